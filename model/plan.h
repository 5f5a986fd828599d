/* model/plan.h: what one run of a configuration will hold, before
 * anything is built: its memory by part (model/plan.c) and its length
 * without faults (model/horizon.c). */
#ifndef MODEL_PLAN_H
#define MODEL_PLAN_H

#include "cfg.h"

/* The memory one run of a configuration holds, part by part: what a
 * refusal names, so that a user knows what to lower. pipe_memory fills
 * every part but PIPE_MEM_CHECKERS (check/ adds its own) and the total of
 * the parts it fills; false and a message when cfg is invalid. */
typedef enum pipe_mem_part {
    PIPE_MEM_KEYED, PIPE_MEM_STORE, PIPE_MEM_CHANNELS, PIPE_MEM_CHANNEL_STATE, PIPE_MEM_TXLOG,
    PIPE_MEM_RECORDS, PIPE_MEM_KERNEL, PIPE_MEM_CHECKERS, PIPE_MEM_PARTS
} pipe_mem_part;

typedef struct pipe_mem {
    uint64_t bytes[PIPE_MEM_PARTS];
    uint64_t total_bytes;
    uint32_t tasks, chans;            /* of the expanded graph */
} pipe_mem;

/* A run holds at most this much (a pipeline alone, or a run's pipelines
 * and checkers together: the commands check the whole before they start). */
#define PIPE_MEMORY_MAX_BYTES (16ull << 30)

extern const char *const pipe_mem_part_names[PIPE_MEM_PARTS];

/* How long a failure-free run of cfg takes, estimated from its input, rates
 * and costs without simulating (model/horizon.c): where random fault
 * profiles place their faults. */
sim_time_ns pipe_horizon_ns(const pipe_cfg *cfg);
bool pipe_memory(const pipe_cfg *cfg, pipe_mem *m, char *err, size_t err_bytes);
void pipe_mem_sum(pipe_mem *m);       /* total_bytes = the sum of the parts */
/* "the run needs X of memory, more than the limit of Y: part A, part B, ...;
 * the largest part, P, shrinks with <statements>". */
void pipe_mem_refusal(const pipe_mem *m, uint64_t limit_bytes, char *err, size_t err_bytes);

#endif
