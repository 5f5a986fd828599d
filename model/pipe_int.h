/* model/pipe_int.h: the assembly of a job run (model/pipe.c): the world,
 * the TaskManagers' side and the JobManager's side in one allocation.
 * Only model/pipe.c and the model's white-box tests include it. */
#ifndef MODEL_PIPE_INT_H
#define MODEL_PIPE_INT_H

#include "jm/jm.h"
#include "tm/tm.h"

struct pipeline {
    pipe_world w;
    tm_side    tm;
    jm_side    jm;
};

static inline pipeline *pipe_of_world(pipe_world *w) {
    return (pipeline *)(void *)((char *)w - offsetof(pipeline, w));
}

#endif
