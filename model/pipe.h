/* model/pipe.h: one streaming job on the simulator: broker, tasks, channels
 * with credit-based flow control, the checkpoint coordinator and recovery.
 *
 * Contract:
 * - pipe_create() builds a whole run from a pipe_cfg (job graph, broker,
 *   checkpointing, restart strategy, machines, network) inside one sim run
 *   and one arena; pipe_run() runs it until the job finishes, fails for
 *   good, or a bound of the run is hit; pipe_destroy() frees everything.
 * - Protocol (rules P1-P10 of README.md): the coordinator triggers
 *   checkpoint n at the sources only; a source records its next offsets and
 *   emits barrier n on every output after the records before it; other
 *   tasks run their input gate (model/flow/gate.h) and, on trigger, forward
 *   barrier n (unaligned: as a priority message that overtakes the queued
 *   output, which becomes channel state with the queued input before the
 *   barrier), take the synchronous part of the snapshot (a copy-on-write
 *   version of the keyed state; a two-phase-commit sink pre-commits) and
 *   acknowledge once the asynchronous part is written to the backend
 *   (model/tm/snap.c: memory at the coordinator, or a durable store; full or
 *   incremental files with a shared-state registry, model/flow/store.h). On
 *   abort they decline and send a cancel marker downstream; a task told of
 *   an abort before it triggers that checkpoint sends cancel markers
 *   instead of snapshotting (Flink's abortedCheckpointIds). Checkpoint n
 *   completes when every task acknowledged (finished tasks count with
 *   their final state) and, with the durable backend, its metadata is
 *   written; older pending ones are subsumed; tasks are notified and sinks
 *   commit (model/tm/sinktx.c).
 * - The JobManager and the TaskManagers talk by messages only
 *   (model/proto.h). A task that loses a connection (a crashed peer, a
 *   partition) fails and reports it (repeatedly: RPCs can be lost); the
 *   coordinator also notices a broken TaskManager connection at once and a
 *   silent TaskManager by heartbeat timeout. The attempt is cancelled
 *   (CANCEL to every task); after the restart strategy's delay, once every
 *   task's slot is free again, the next attempt is deployed (DEPLOY with
 *   the handles of the latest completed checkpoint; the tasks read that
 *   state from the store, channel state is replayed before new input, and
 *   sources rewind to its offsets, from the beginning when none
 *   completed). A crashed coordinator is replaced when it restarts
 *   (failover): with the durable backend it recovers the completed
 *   checkpoints, with the memory backend they are lost and the job starts
 *   over.
 * - Rescaling (pipe_cfg.rescales, `fault at T rescale V to N`): at T the
 *   JobManager restarts every task from the latest completed checkpoint
 *   (from the beginning when none completed) with vertex V at parallelism
 *   N. A run is sized at set-up, so pipe_create expands each vertex at the
 *   largest parallelism it takes over the run and each attempt runs an
 *   active parallelism per vertex (pipe_parallelism_at: the schedule at
 *   the deployment): tasks above it are not deployed, triggered or waited
 *   for, and hash edges route by it. The deployment names it (proto.h);
 *   a keyed task restores the key groups of its range from the old
 *   subtasks' files (several handles), a source the partitions of its
 *   share, by partition, a two-phase-commit sink subtask the transactions
 *   of the old subtasks above the parallelism that map to it. Forward
 *   edges at a rescaled vertex, unaligned checkpoints, an alignment
 *   timeout (channel state is not redistributed), slots and
 *   `finished-tasks off` are refused with a rescale.
 * - Everything is deterministic per seed; all random decisions are drawn
 *   through the kernel's choice point from the actors' own streams.
 *
 * This header is the model's face: check/, reports/, scenarios/ and cli/
 * include it alone. It gathers the vocabulary (bugs.h, cfg.h, event.h,
 * reach.h, stats.h), what a run will hold (plan.h) and the read-only
 * views (view.h), and declares the assembly's functions (model/pipe.c).
 * The floors below it, and the rule that keeps them, are in
 * tests/layout_check.sh.
 */
#ifndef MODEL_PIPE_H
#define MODEL_PIPE_H

#include "bugs.h"
#include "cfg.h"
#include "event.h"
#include "plan.h"
#include "reach.h"
#include "stats.h"
#include "view.h"
#include "../sim/choice.h"

/* NULL and a message in err when the configuration is invalid (or memory
 * is short): user input never asserts. */
pipeline *pipe_create(const pipe_cfg *cfg, char *err, size_t err_bytes);
void  pipe_destroy(pipeline *p);

sim_stop_reason pipe_run(pipeline *p);

/* A slow operator window (before or during pipe_run: it only appends to a
 * list the tasks read); false when PIPE_SLOW_MAX are in. */
bool pipe_add_slow(pipeline *p, const pipe_slow *w);

/* Call fn at every protocol step, after the observers added before it
 * (before pipe_run; at most PIPE_OBSERVERS_MAX). */
void pipe_observe(pipeline *p, pipe_observe_fn fn, void *ctx);
/* pipe_observe, and fn gets the message steps too (PIPE_EV_SEND,
 * PIPE_EV_RECV), which no other observer gets; while none asks for them
 * the model pays one branch per message. */
void pipe_observe_messages(pipeline *p, pipe_observe_fn fn, void *ctx);

sim_run          *pipe_sim(pipeline *p);
/* Whether every one of cfg.ties happened (true without any): its
 * decision came, with more destinations ready than its pick; else
 * *first is the first that did not. */
bool              pipe_tie_applied(const pipeline *p, uint32_t *first);
uint64_t          pipe_tie_decisions(const pipeline *p);   /* ... and the decisions among simultaneous events so far */
/* cfg.pct_depth > 0: PCT's state (its steps as the run took them, the
 * decisions so far, the destinations met, the change points reached);
 * NULL otherwise. */
const choice_pct *pipe_pct(const pipeline *p);

#endif
