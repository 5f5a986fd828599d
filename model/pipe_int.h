/* model/pipe_int.h: the assembly of a job run (model/pipe.c): the world,
 * the TaskManagers' side and the JobManager's side in one allocation, and
 * the plan both the sizing (model/plan.c) and the builder read. The top
 * floor of model/: only pipe.c, plan.c, view.c, reach.c's counts and the
 * model's white-box tests include it; nothing in tm/ or jm/ does. */
#ifndef MODEL_PIPE_INT_H
#define MODEL_PIPE_INT_H

#include "jm/jm.h"
#include "tm/tm.h"
#include "pipe.h"
#include "../sim/choice.h"

struct pipeline {
    pipe_world       w;
    tm_side          tm;
    jm_side          jm;
    choice_deviation tie;             /* cfg.ties: the decisions among simultaneous events that deviate */
    choice_pct       pct;             /* cfg.pct_depth > 0: PCT orders them */
};

static inline pipeline *pipe_of_world(pipe_world *w) {
    return (pipeline *)(void *)((char *)w - offsetof(pipeline, w));
}

/* What the plan of a run fixes before anything is allocated: the expanded
 * graph and every size the builders carve. */
typedef struct plan {
    job     *graph;                   /* expanded: &graph_job, its expansion in graph_mem */
    job      graph_job;
    arena    graph_mem;
    uint32_t tasks, chans, ring, slots, snaps, stateful, files_max, holds_max;
    uint32_t committers;             /* Sink V2 committer tasks: their collectors are files too */
    uint32_t hosts, insts, conns;     /* with slots a task has an instance per machine, a channel a connection per pair */
    uint64_t keys_sum, records, entries_max;     /* keys_sum: over the keyed tasks' maps */
    uint64_t results;                 /* window-keys of every window vertex (world.h) */
    uint32_t task_keys[JOB_TASKS_MAX];           /* keys a keyed task's map is sized for (0: not keyed) */
    bool     unaligned;               /* a snapshot may hold channel state */
    uint64_t copies[JOB_VERTICES_MAX];   /* copies of a record that reach each vertex in one attempt */
    sim_cfg  sc;
    pipe_mem mem;
} plan;

/* Validate cfg and plan its run into *pl: false and a message when cfg is
 * invalid. pl->graph_mem is created (plan_free frees it, and pl) unless
 * the result is false. */
bool plan_run(plan *pl, const pipe_cfg *cfg, char *err, size_t err_bytes);
void plan_free(plan *pl);
/* A vertex kind that keeps keyed state (a task of it is stateful). */
bool plan_keyed_kind(job_kind k);
/* The keys task t's map may take (kstate's owner: its key groups, its
 * hash inputs, its tags). */
kstate_owner plan_task_owner(const job *g, uint32_t t);
/* Transactions a two-phase-commit sink task of `vertex` logs at most. */
uint64_t plan_txlog_cap(const plan *pl, uint32_t vertex);

#endif
