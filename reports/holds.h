/* reports/holds.h: what a checkpoint holds, read back from the store the
 * way a restore reads it (pipe_ckpt_offsets, pipe_ckpt_task_state,
 * pipe_ckpt_inflight): the sources' offsets (S_n of the algorithm: every
 * record before them is in the cut, none after), each stateful task's
 * keyed state (its keys or window entries, the records folded into them,
 * its file chain), and the channel state (the in-flight records an
 * unaligned snapshot persisted, by channel). For the trace
 * (reports/rpt.c) and `absim explain` (cli/holds.c); the checkers hold
 * the same content to the fold of the input (I2), this only reads it.
 *
 * Contract: rpt_holds_create sizes one scratch map for the largest state
 * of the job (pipe_vertex_map_keys), a summary per task and a count per
 * channel; reading a checkpoint allocates nothing. A checkpoint is
 * readable while it is pending or retained. */
#ifndef REPORTS_HOLDS_H
#define REPORTS_HOLDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../model/pipe.h"

typedef struct rpt_task_holds {
    uint32_t files;                   /* its chain's length; 0: the checkpoint holds no state of the task */
    bool     gone;                    /* a file of the chain was deleted: the rest is unknown */
    uint32_t entries;                 /* keys (a window task's: its windows' contents, a key and window each, the
                                         purged left out; a join's: key and input) */
    uint64_t records;                 /* records folded into them (the aggregates' counts); a Sink V2 committer's
                                         entries are checkpoints, its records the committables under them */
    uint32_t timers;                  /* a window task: its windows' timers still set (model/flow/window.h) */
    uint64_t late;                    /* a window task: (record, window) pairs dropped as late, kept per key */
} rpt_task_holds;

typedef struct rpt_holds rpt_holds;

rpt_holds *rpt_holds_create(pipeline *p);    /* NULL: out of memory */
void rpt_holds_destroy(rpt_holds *h);

/* Reads checkpoint ckpt: false when the store no longer has it. */
bool rpt_holds_read(rpt_holds *h, uint64_t ckpt);
/* Of the checkpoint read last: the offsets by partition, a task's
 * summary, a channel's in-flight records, and all of them. */
const uint64_t       *rpt_holds_offsets(const rpt_holds *h);
const rpt_task_holds *rpt_holds_task(const rpt_holds *h, uint32_t task);
uint64_t              rpt_holds_chan(const rpt_holds *h, uint32_t chan);
uint64_t              rpt_holds_inflight(const rpt_holds *h);
/* Task `task`'s state in the checkpoint read last, read again into the
 * scratch map (valid until the next read): NULL when it holds none. */
const kstate *rpt_holds_state(rpt_holds *h, uint32_t task);
/* The checkpoint read last as a JSON object (the trace's "holds",
 * scenarios/README.md): {"offsets":[by partition],"state":[{"task",
 * "files","entries","records"} or {"task","files","gone":true}],
 * "channel_state":[{"from","to","records"}]}. */
void rpt_holds_json(const rpt_holds *h, FILE *f);
/* What a task's entries are, by its vertex's kind: "keys", "window
 * entries" (a key and window each), "key entries" (a key and input). */
const char *rpt_holds_unit(job_kind kind, uint32_t entries);

#endif
