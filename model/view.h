/* model/view.h: read-only views of a run, for check/, reports/ and cli/
 * (model/view.c). They never change the run. What each reads is said
 * with it: the world (the store, the broker, the external system behind
 * the sinks), or a side's structures (the coordinator's checkpoint
 * slots, a task's gate and state), which a view may read because
 * observing is not taking part: no actor of the run ever calls one. */
#ifndef MODEL_VIEW_H
#define MODEL_VIEW_H

#include "cfg.h"
#include "event.h"
#include "reach.h"
#include "stats.h"
#include "flow/broker.h"
#include "flow/kstate.h"

typedef struct pipeline pipeline;

pipe_status       pipe_get_status(const pipeline *p);
const pipe_stats *pipe_get_stats(const pipeline *p);
const job        *pipe_job(const pipeline *p);
uint64_t          pipe_restore_ckpt(const pipeline *p);   /* the checkpoint a restart restores; 0: none */
uint32_t          pipe_task_actor(const pipeline *p, uint32_t task);
uint32_t          pipe_task_rpc_link(const pipeline *p, uint32_t task);   /* task -> coordinator */
uint32_t          pipe_task_rpc_in_link(const pipeline *p, uint32_t task); /* coordinator -> task */
uint32_t          pipe_coord_actor(const pipeline *p);
uint32_t          pipe_coord_machine(const pipeline *p);                   /* the machine after the task machines */
uint32_t          pipe_task_host(const pipeline *p, uint32_t task);         /* the machine its attempt was deployed to */
uint32_t          pipe_task_region(const pipeline *p, uint32_t task);       /* its pipelined region (job_regions) */
uint32_t          pipe_store_dev(const pipeline *p);                       /* the durable store's device */
uint32_t          pipe_ha_dev(const pipeline *p);                          /* the completed-checkpoint store's (ZooKeeper) */
/* The data link of the channel producer -> consumer (tasks), or UINT32_MAX. */
uint32_t          pipe_chan_link(const pipeline *p, uint32_t producer, uint32_t consumer);

/* How long task `task` was held up by backpressure in the run (its
 * attempts summed; an interval still open at the end counts up to now). */
sim_time_ns   pipe_task_backpressure_ns(const pipeline *p, uint32_t task);

/* The keyed state of a vertex, summed over its tasks, into `out` (which
 * must be big enough). */
void          pipe_vertex_state(const pipeline *p, uint32_t vertex, kstate *out);
/* Task `task`'s keyed state now (its current instance's; NULL for a task
 * that keeps none): what a checker reads per subtask. */
const kstate *pipe_task_state(const pipeline *p, uint32_t task);

/* Compare the keyed state of every stateful vertex of two runs of the same
 * job (merged over subtasks). Returns true when all are equal; otherwise
 * names the first differing vertex and its smallest differing key. Also
 * reports the records counted in all keyed state of each run. For tests
 * (the commands compare with the specification, check/, never with a
 * second run); the two maps it needs live in an arena of their own. */
typedef struct pipe_state_diff {
    bool     equal;
    uint32_t vertex;
    uint64_t key;
    uint64_t records_a, records_b;
} pipe_state_diff;

bool pipe_compare_states(const pipeline *a, const pipeline *b, pipe_state_diff *out);

/* Compare the visible sink output of two runs of the same job, record by
 * record (a is the failure-free reference): records visible fewer times
 * in b (lost) and more times (duplicated), with the first of each. */
typedef struct pipe_output_diff {
    uint64_t records;                 /* visible in a */
    uint64_t lost, duplicated;
    uint64_t first_lost, first_duplicated;   /* record ids (partition << 40 | offset) */
} pipe_output_diff;

void pipe_compare_output(const pipeline *a, const pipeline *b, pipe_output_diff *out);

/* How many times record (partition, offset) is visible in the sinks' output. */
uint32_t pipe_sink_count(const pipeline *p, uint32_t partition, uint64_t offset);
/* A window result in the external system (model/world.h): how many times
 * firing `firing` of (window vertex v, key, window wi) was made visible;
 * the highest firing made visible with its value (false: none); and the
 * highest value any of its firings showed (false: none visible). */
uint32_t pipe_result_count(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, uint32_t firing);
bool pipe_result_top(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, uint32_t *firing, int64_t *value);
bool pipe_result_most(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, int64_t *value);

/* Checkpoints in trigger order (ids 1, 2, ...), the first PIPE_HISTORY_MAX. */
const pipe_ckpt_rec *pipe_history(const pipeline *p, uint32_t *count);

/* The run's counts, by pipe_reach. */
const uint64_t *pipe_reached(const pipeline *p);

/* Read-only views for checkers (check/): what a checkpoint holds, as the
 * backend stores it. A checkpoint is found by the coordinator's slot for
 * it (its handles: offsets S_n, each task's file chain and channel-state
 * file); what the handles name is read from the store, as a restore would
 * read it. They never change either, and are valid while the checkpoint
 * is pending or retained (NULL / false otherwise). pipe_broker and
 * pipe_config read the world. */
const broker   *pipe_broker(const pipeline *p);
const pipe_cfg *pipe_config(const pipeline *p);
const uint64_t *pipe_ckpt_offsets(const pipeline *p, uint64_t ckpt);   /* by partition: S_n */
/* By partition: the records its readers were set back by, summed over the
 * restores so far (a restore to S_n from where the failed attempt had
 * read; a split assigned afresh from where it was). For reports. */
const uint64_t *pipe_partitions_rewound(const pipeline *p);
/* Task `task`'s keyed state in checkpoint `ckpt`, restored from its file
 * chain into `out` (cleared first). *files: the chain's length (0: the
 * checkpoint holds no state of the task). False when a file is gone. */
bool pipe_ckpt_task_state(const pipeline *p, uint64_t ckpt, uint32_t task, kstate *out, uint32_t *files);
/* The in-flight records checkpoint `ckpt` holds as channel state, one at
 * a time from a zeroed cursor (false past the end), with the channel each
 * belongs to: its tasks' channel-state files in the store, task by task. */
typedef struct pipe_cursor {
    uint32_t task;
    uint64_t pos;
} pipe_cursor;
bool pipe_ckpt_inflight(const pipeline *p, uint64_t ckpt, pipe_cursor *cur, model_rec *rec, uint32_t *chan);
/* The consumer task and its logical input of channel `chan`. */
void pipe_chan_ends(const pipeline *p, uint32_t chan, uint32_t *producer, uint32_t *consumer, uint32_t *input);
/* Input `input` (its gate channel, 0 .. in_count - 1) of task `task` now:
 * whether the gate blocks it for alignment, and the buffers (and records
 * in them) that arrived and were not taken yet. A task that is down or
 * runs no attempt shows nothing. For pictures and the run viewer. */
typedef struct pipe_input_view {
    bool     blocked;
    uint32_t buffers, records;
} pipe_input_view;
void pipe_task_input(const pipeline *p, uint32_t task, uint32_t input, pipe_input_view *out);
/* Retained completed checkpoints, oldest first: the i-th, or 0. */
uint64_t pipe_retained(const pipeline *p, uint32_t i);
/* The length of task `task`'s file chain in checkpoint `ckpt` (0: none). */
uint32_t pipe_ckpt_task_files(const pipeline *p, uint64_t ckpt, uint32_t task);
/* Files of checkpoint `ckpt` (all tasks: keyed state, channel state) that the store has deleted. */
uint32_t pipe_ckpt_dead_files(const pipeline *p, uint64_t ckpt);
/* The files task `task`'s part of checkpoint `ckpt` names (its keyed
 * state's chain, then its channel state), at most max into out: how many. */
uint32_t pipe_ckpt_task_file_ids(const pipeline *p, uint64_t ckpt, uint32_t task, uint64_t *out, uint32_t max);
/* Where the input ended, by partition, when a stop with drain ended the
 * job (its savepoint's offsets: the sources ended their input there);
 * NULL otherwise, when the input is the topics' whole. */
const uint64_t *pipe_end_offsets(const pipeline *p);
/* Stops and cancels of cfg.stops that ended the job so far. */
uint32_t pipe_stops_done(const pipeline *p);
/* Whether the store still holds file `file`. */
bool pipe_file_alive(const pipeline *p, uint64_t file);

#endif
