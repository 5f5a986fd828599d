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
 */
#ifndef MODEL_PIPE_H
#define MODEL_PIPE_H

#include "../sim/run.h"
#include "flow/broker.h"
#include "flow/gate.h"
#include "flow/job.h"
#include "flow/kstate.h"
#include "flow/restart.h"

#define PIPE_MACHINES_MAX 32u
#define PIPE_RETAINED_MAX 16u
#define PIPE_CONCURRENT_MAX 8u
#define PIPE_FAULTS_MAX 64u
#define PIPE_SOURCE_PARTS_MAX 64u       /* partitions one source task reads at most (its ack carries their offsets) */
#define PIPE_TASK_SLOTS_MAX 64u         /* slots per machine */
#define PIPE_SLOTTED_PEERS_MAX 128u     /* with slots: a task's inputs and outputs (its deployment names their hosts) */
#define PIPE_RESCALES_MAX 8u            /* rescales a run's schedule holds */
#define PIPE_RESCALE_HANDLES_MAX 8u     /* keyed-state handles (old subtasks) one rescaled task reads at most */

typedef enum pipe_mode {
    PIPE_ALIGNED = 1,
    PIPE_AT_LEAST_ONCE,
    PIPE_UNALIGNED,                   /* barriers overtake in-flight data (P5) */
} pipe_mode;

typedef enum pipe_backend {
    PIPE_BACKEND_MEMORY = 1,          /* snapshots kept by the coordinator (JobManager heap) */
    PIPE_BACKEND_DURABLE,             /* an HDFS/S3-like store on the kernel's storage device */
} pipe_backend;

/* Where and how snapshots are written (P6, P7). */
typedef struct pipe_state_cfg {
    pipe_backend backend;
    bool         async;               /* false: the whole write blocks the task (the ABS paper's baseline) */
    bool         incremental;         /* write only keys changed since the last confirmed checkpoint */
    uint32_t     full_every;          /* incremental: a full snapshot after this many increments */
    sim_time_ns  sync_ns;             /* the synchronous part's fixed cost (mark a version) */
    dev_cfg      store;               /* durable: the store's latency and bandwidth */
    dev_cfg      memory;              /* memory: the transfer to the coordinator */
} pipe_state_cfg;

#define PIPE_SLOW_MAX 16u

typedef struct pipe_slow {            /* a slow operator: its task's cost x factor for a while */
    uint32_t    task;
    sim_time_ns at_ns;
    sim_time_ns duration_ns;
    uint32_t    factor;
} pipe_slow;

typedef enum pipe_restart {
    PIPE_RESTART_NONE = 1,            /* the first failure fails the job */
    PIPE_RESTART_FIXED_DELAY,
    PIPE_RESTART_FAILURE_RATE,
    PIPE_RESTART_EXPONENTIAL,
} pipe_restart;

typedef struct pipe_ckpt_cfg {
    bool        enabled;
    pipe_mode   mode;
    sim_time_ns interval_ns;
    sim_time_ns min_pause_ns;
    sim_time_ns timeout_ns;
    uint32_t    max_concurrent;
    uint32_t    tolerable_failures;   /* consecutive failed checkpoints tolerated */
    uint32_t    retained;             /* completed checkpoints kept */
    bool        legacy_eop;           /* end of partition aborts (Flink < 1.14) */
    /* Checkpoints after tasks finish (FLIP-147, Flink's default since
     * 1.15) off: a task finishes at the end of its input, and once one
     * has, no checkpoint is triggered or completes (Flink < 1.14). */
    bool        finished_tasks_off;
    sim_time_ns alignment_timeout_ns; /* aligned: switch to unaligned once a checkpoint is this old (0: never) */
} pipe_ckpt_cfg;

/* What a task's failure restarts (Flink's jobmanager.execution.failover-strategy). */
typedef enum pipe_failover {
    PIPE_FAILOVER_REGION = 0,         /* its pipelined region (job_regions), the default as in Flink */
    PIPE_FAILOVER_FULL,               /* every task */
} pipe_failover;

typedef struct pipe_restart_cfg {
    pipe_restart kind;
    pipe_failover failover;           /* a failure with no task to blame (checkpoints, the store) restarts all */
    uint32_t     attempts;            /* fixed delay: restarts allowed */
    sim_time_ns  delay_ns;            /* fixed delay, failure rate */
    uint32_t     max_failures;        /* failure rate: per interval */
    sim_time_ns  interval_ns;         /* failure rate */
    sim_time_ns  initial_ns;          /* exponential */
    sim_time_ns  max_ns;              /* exponential */
    uint32_t     multiplier_milli;    /* exponential, x1000 */
    sim_time_ns  reset_ns;            /* exponential: quiet time that resets the delay */
    uint32_t     jitter_milli;        /* exponential: jitter factor x1000 */
    uint32_t     attempts_before_reset;   /* exponential: attempts allowed until a reset (RS_UNLIMITED: no limit) */
} pipe_restart_cfg;

/* The strategy's rules (model/flow/restart.h) for this configuration, in
 * nanoseconds. */
rs_cfg pipe_restart_rules(const pipe_restart_cfg *r);

/* Deliberate bugs: known-wrong variants of the protocol, each the smallest
 * deviation in the real code path, each of which the checkers must catch;
 * the correct protocol is never flagged. One table (model/bugs.c) names
 * them, says what each breaks and which invariant must catch it, and pins
 * a scenario and seed that shows it. Append new ones at the end. */
typedef enum pipe_bug {
    PIPE_BUG_NONE = 0,
    PIPE_BUG_NO_ALIGNMENT,            /* aligned mode claimed, but inputs never block */
    PIPE_BUG_NO_REWIND,               /* sources keep reading where they were after a restore */
    PIPE_BUG_OFFSET_OFF_BY_ONE,       /* sources record S_n + 1 in their snapshot */
    PIPE_BUG_PARTIAL_ACKS,            /* the coordinator completes once half the tasks acknowledged */
    PIPE_BUG_NO_COW,                  /* the async part reads the live state: later updates leak in */
    PIPE_BUG_EARLY_ACK,               /* acknowledge before the async write finished */
    PIPE_BUG_SHARED_DELETE,           /* a dropped checkpoint deletes its files though later ones share them */
    PIPE_BUG_EARLY_COMMIT,            /* two-phase commit sinks commit at pre-commit */
    PIPE_BUG_DROP_RECORDS,            /* a keyed aggregate loses one record in a thousand, failures or not */
    PIPE_BUG_NO_CHANNEL_STATE,        /* unaligned snapshots keep no in-flight records */
    PIPE_BUG_BARRIER_FIRST,           /* a barrier overtakes the records in the buffer being filled */
    PIPE_BUG_NO_REPLAY,               /* a restore skips the input channel state */
    PIPE_BUG_RESTORE_COMMITS_ALL,     /* a restored sink commits every pre-committed transaction */
    PIPE_BUG_EOP_NO_MARK,             /* FLINK-24068: end of partition skips the alignment bookkeeping */
    PIPE_BUG_ABORT_DISCARDS_SHARED,   /* FLINK-24611: an aborted checkpoint discards the shared files it used */
    PIPE_BUG_RESTORE_OLDER,           /* FLINK-10354: a failover restores an older retained checkpoint */
    PIPE_BUG_NO_FINAL_CHECKPOINT,     /* FLINK-2491: finished tasks are not acknowledged for, no final commit */
    PIPE_BUG_SECOND_INPUT_STATE,      /* FLINK-18139: overtaken buffers of a task's second input are not persisted */
    PIPE_BUG_NEWER_NO_ABORT,          /* a newer barrier does not abort the pending alignment */
    PIPE_BUG_RESTORE_PENDING,         /* a failed job restores its newest pending checkpoint */
    PIPE_BUG_COW_NO_BUMP,             /* FLINK-26968: an update with no snapshot active keeps its old version */
    PIPE_BUG_REGISTRY_BY_NAME,        /* FLINK-29913: concurrent increments on one base share one registry entry */
    PIPE_BUG_ACK_FAILED_WRITE,        /* FLINK-5701: a task acknowledges although its asynchronous write failed */
    PIPE_BUG_COMMIT_ONLY_NOTIFIED,    /* FLINK-10377: a completion notice commits only its own checkpoint's transaction */
    PIPE_BUG_SWITCH_NO_QUEUED,        /* a switch to unaligned at the alignment timeout persists no queued input */
    PIPE_BUG_COMMIT_ON_ABORT,         /* a sink takes an abort notice for a completion notice */
    PIPE_BUG_RECOVER_DISCARDS,        /* FLINK-7783: a failover discards the checkpoints it could not read, shared files too */
    PIPE_BUG_NO_FENCING,              /* the coordinator takes messages of old attempts */
    PIPE_BUG_ACK_BEFORE_CS,           /* a task acknowledges before its channel state is durable */
    PIPE_BUG_HA_DISCARD,              /* FLINK-22494: an ambiguous metadata write is taken as failed: its files go */
    PIPE_BUG_LOST_ASSIGNMENT,         /* FLINK-21996: a lost split assignment goes unnoticed, checkpoints complete anyway */
    PIPE_BUG_JOIN_DROPS_INPUT,        /* a keyed join drops every record of its second input */
    PIPE_BUG_REGION_RESTARTS_ALL,     /* region failover configured, yet a task's failure restarts every task */
    PIPE_BUG_RESTORE_DROPS_TIMERS,    /* a restored window keeps its contents but not its timers: it never fires */
    PIPE_BUG_WATERMARK_HIGHEST,       /* an operator's watermark is the highest over its inputs, not the lowest */
    PIPE_BUG_RESCALE_WRONG_RANGE,     /* a rescaled task is given the old subtasks' handles off by one: the last one overlapping its key groups is left out */
    PIPE_BUG_FAILURE_COUNT_KEPT,      /* the failed-checkpoint count survives the job failure it caused (absim's old reading) */
    PIPE_BUG_COUNT
} pipe_bug;

typedef struct pipe_bug_info {
    pipe_bug    bug;
    const char *name;                 /* --bug NAME */
    const char *breaks;               /* what goes wrong, one line */
    const char *mechanism;            /* the deviation in the code path, one line */
    const char *catches;              /* the invariant that must catch it ("I2") */
    const char *scenario;             /* a pinned scenario file ... */
    uint64_t    seed;                 /* ... and seed, with --faults random, that shows it */
} pipe_bug_info;

/* Entry b (PIPE_BUG_NO_ALIGNMENT <= b < PIPE_BUG_COUNT). */
const pipe_bug_info *pipe_bug_info_of(pipe_bug b);
const char *pipe_bug_name(pipe_bug b);

/* A rescale: from at_ns on, vertex `vertex` runs at `parallelism` (the
 * JobManager restarts the job for it at at_ns). */
typedef struct pipe_rescale {
    sim_time_ns at_ns;
    uint32_t    vertex;
    uint32_t    parallelism;
} pipe_rescale;

typedef struct pipe_cfg {
    uint64_t         seed;
    pipe_bug         bug;
    job              graph;
    broker_cfg       broker;
    uint64_t         source_rate_per_s;   /* records per second per source task; 0: as fast as possible */
    pipe_ckpt_cfg    ckpt;
    pipe_state_cfg   state;
    pipe_restart_cfg restart;
    uint32_t         machines;
    /* Slots per machine (Flink's taskmanager.numberOfTaskSlots, slot
     * sharing on: a slot holds one task of every vertex). 0: no slots,
     * each task has its own on its machine and waits for it after a
     * failure. With slots a restart deploys the tasks of a lost
     * TaskManager onto free slots of the others. */
    uint32_t         task_slots;
    sim_time_ns      latency_ns;          /* data links */
    sim_time_ns      jitter_ns;
    uint64_t         bandwidth_bytes_per_s;
    sim_time_ns      rpc_latency_ns;      /* coordinator <-> tasks */
    sim_time_ns      heartbeat_interval_ns;   /* the coordinator asks every TaskManager this often (0: 50 RPC latencies) */
    sim_time_ns      heartbeat_timeout_ns;    /* silent this long: its TaskManager is lost (0: five intervals) */
    uint32_t         credits;             /* receive buffers per channel */
    uint32_t         out_queue;           /* send buffers per channel before backpressure */
    sim_time_ns      buffer_timeout_ns;   /* flush partial buffers after this idle time */
    sim_time_ns      time_max_ns;
    uint64_t         events_max;
    fault_spec       faults[PIPE_FAULTS_MAX];   /* targets: see pipe_task_actor, machines */
    uint32_t         faults_count;
    pipe_slow        slow[PIPE_SLOW_MAX];       /* slow operators */
    uint32_t         slow_count;
    pipe_rescale     rescales[PIPE_RESCALES_MAX];   /* the rescale schedule, in time order */
    uint32_t         rescales_count;
    /* Filled by pipe_create in its copy (pipe_config): each vertex's
     * parallelism as written, before the graph was expanded at the
     * largest one of the schedule (0: not filled, the graph's). */
    uint32_t         start_parallelism[JOB_VERTICES_MAX];
} pipe_cfg;

/* The parallelism vertex v runs at from time t on: the last rescale of
 * it at or before t, else its parallelism as written. */
uint32_t pipe_parallelism_at(const pipe_cfg *cfg, uint32_t vertex, sim_time_ns t);
/* The largest and smallest parallelism vertex v takes over the run. */
uint32_t pipe_parallelism_max(const pipe_cfg *cfg, uint32_t vertex);
uint32_t pipe_parallelism_min(const pipe_cfg *cfg, uint32_t vertex);

typedef enum pipe_status {
    PIPE_RUNNING = 1,
    PIPE_RESTARTING,
    PIPE_FINISHED,
    PIPE_FAILED,                      /* the restart strategy gave up */
} pipe_status;

typedef enum pipe_ckpt_end {
    PIPE_CKPT_PENDING = 0,
    PIPE_CKPT_COMPLETED,
    PIPE_CKPT_DECLINED,
    PIPE_CKPT_TIMED_OUT,
    PIPE_CKPT_SUBSUMED,
    PIPE_CKPT_JOB_FAILED,             /* the attempt it belonged to failed */
    PIPE_CKPT_TASK_FINISHED,          /* a task finished before it took it, and a running task below it would
                                         never get its barrier: the next checkpoint starts there (FLIP-147) */
} pipe_ckpt_end;

#define PIPE_HISTORY_MAX 4096u

typedef struct pipe_ckpt_rec {        /* one triggered checkpoint */
    uint64_t      id;
    uint64_t      epoch;
    sim_time_ns   triggered_ns;
    sim_time_ns   ended_ns;
    pipe_ckpt_end end;
} pipe_ckpt_rec;

typedef struct pipe_stats {
    uint64_t    triggered, completed, aborted, declined, timed_out, subsumed;
    uint64_t    lost_with_job;         /* pending when the attempt failed */
    uint64_t    aborted_task_finished; /* a task finished before it took it, above a running one (FLIP-147) */
    uint64_t    restarts;
    sim_time_ns restart_delay_ns_sum;  /* the restart strategy's delays, summed */
    uint64_t    records_read;          /* by sources, replays included */
    uint64_t    records_processed;     /* by operators and sinks */
    uint64_t    sink_records;          /* written by sinks, replays and aborted transactions included */
    uint64_t    data_buffers;          /* data buffers put on channels (full, or closed early by the
                                          buffer timeout, a barrier or the end), every attempt's */
    uint64_t    last_completed;        /* id */
    sim_time_ns ckpt_duration_ns_max;
    sim_time_ns ckpt_duration_ns_sum;
    sim_time_ns alignment_ns_max;      /* a task's first barrier of a checkpoint to its trigger */
    sim_time_ns alignment_ns_sum;
    uint64_t    alignments;            /* triggers at tasks with inputs */
    sim_time_ns start_delay_ns_sum, start_delay_ns_max;   /* checkpoint created to a task's first barrier */
    uint64_t    start_delays;
    /* snapshots (P5-P7) */
    uint64_t    snapshots;             /* acknowledged by tasks */
    uint64_t    sync_parts;            /* synchronous parts ended (declined snapshots too) */
    sim_time_ns sync_ns_sum, sync_ns_max;     /* trigger to the task going on */
    sim_time_ns async_ns_sum, async_ns_max;   /* background write to acknowledgement */
    uint64_t    triggers_forgotten;    /* triggers a backpressured source stopped queueing: abort notices were lost (task.c) */
    uint64_t    snapshots_forgotten;   /* written snapshots a task stopped remembering: their notices were lost or late (snap.c) */
    uint64_t    async_failures;        /* snapshots that failed at their task: a failed write (a full
                                          store too), channel state past its bound, too many at once
                                          (each declined), or a finished task's final state not written */
    uint64_t    bytes_written;         /* state files of completed checkpoints */
    uint64_t    files_created, files_shared;  /* shared: references to earlier files */
    uint64_t    cs_bytes;              /* in-flight data persisted as channel state */
    uint64_t    unaligned_triggers;    /* tasks that triggered unaligned */
    uint64_t    alignment_timeouts;    /* aligned checkpoints that switched to unaligned */
    uint64_t    restore_failures;      /* a restore found a file deleted */
    /* sinks (P10) */
    uint64_t    txn_committed, txn_aborted;
    /* Records visible in the output, each copy once: a plain or two-phase-
     * commit sink's duplicates count again, an idempotent sink's overwrites
     * do not (the sum of pipe_sink_count over the input). */
    uint64_t    visible_records;
    uint64_t    overwrites;            /* idempotent upserts of a record visible already */
    sim_time_ns latency_ns_sum, latency_ns_max;   /* event-time latency when records became visible (first time) */
    uint64_t    txn_overflows;         /* a sink's transaction log was full: it failed */
    /* coordinator */
    uint64_t    failovers;
    /* fencing: messages of another attempt dropped (zombies, or sent before a restart) */
    uint64_t    fenced_data;           /* data, credit and priority messages, at tasks */
    uint64_t    fenced_rpcs;           /* reports at the coordinator, and commands at tasks sent on a
                                          connection to the JobManager that broke since */
    uint64_t    checkpoints_lost;      /* completed ones a memory backend lost with the coordinator */
    uint64_t    relocated;             /* tasks a restart deployed onto another machine than their last (slots) */
    uint64_t    restarted_tasks;       /* tasks restarts deployed again: all, or the failed regions' */
    /* event time */
    uint64_t    watermarks;            /* watermarks sent, per output channel counted once per task */
    uint64_t    windows_fired;         /* firings at the watermark, replays included */
    uint64_t    late_firings;          /* firings on a record within the allowed lateness */
    uint64_t    late_records;          /* records dropped as late for every window of theirs */
    uint64_t    rescales;              /* deployments that changed a vertex's parallelism (each counts as a restart too) */
} pipe_stats;

typedef struct pipeline pipeline;

/* Protocol steps, for checkers (check/), narrations and pictures. Each
 * carries its payload: a checker keeps its own model of what must hold
 * from these alone (plus the read-only views below), and the protocol
 * code never calls a checker. */
typedef enum pipe_ev_kind {
    PIPE_EV_BARRIER = 1,              /* task took barrier `ckpt` from `channel` */
    PIPE_EV_CANCEL,                   /* task took a cancel marker */
    PIPE_EV_END,                      /* task took end of partition */
    PIPE_EV_TRIGGER,                  /* task forwarded barrier, snapshotted, acknowledged */
    PIPE_EV_DECLINE,                  /* task aborted `ckpt` */
    PIPE_EV_TASK_FINISHED,
    PIPE_EV_CKPT_START,               /* coordinator: triggered `ckpt` at the sources */
    PIPE_EV_CKPT_COMPLETE,
    PIPE_EV_CKPT_ABORT,               /* declined, timed out, subsumed or lost with the attempt */
    PIPE_EV_JOB_FAILED,               /* coordinator: `channel` a pipe_fail_cause, `culprit`; for a report, `count`
                                         the attempt it named and `word_a` the one the coordinator runs of `culprit` */
    PIPE_EV_JOB_RESTARTED,            /* coordinator: the next attempt is deployed from `ckpt` (0: the beginning);
                                         `channel` 0: every task, else region `channel` - 1 alone (job_regions),
                                         one step per region, `count` its tasks */
    PIPE_EV_SNAPSHOT_SYNC,            /* task: synchronous part of `ckpt` done, asynchronous part begins */
    PIPE_EV_SNAPSHOT_ASYNC,           /* task: asynchronous part of `ckpt` written (then it acknowledges) */
    PIPE_EV_SINK_COMMIT,              /* sink task committed the transactions up to `ckpt` */
    PIPE_EV_COORD_FAILOVER,           /* a new coordinator took over */
    PIPE_EV_CONSUME,                  /* task began processing a data buffer of `count` records from `channel` */
    PIPE_EV_ACK,                      /* task sent its acknowledgement of `ckpt` */
    PIPE_EV_WRITE,                    /* task began writing `bytes` of snapshot `ckpt` (`what`) */
    PIPE_EV_WRITE_DONE,               /* that write ended (`ok`) */
    PIPE_EV_CHANNEL_STATE,            /* task persisted `count` in-flight records of `chan` for `ckpt` */
    PIPE_EV_RESTORE,                  /* task (re)started from `ckpt` (0: from scratch); `ok`: its files were there */
    PIPE_EV_SNAPSHOT_DROPPED,         /* task dropped its unacknowledged snapshot of `ckpt`: aborted or subsumed */
    PIPE_EV_METADATA,                 /* coordinator: the metadata of `ckpt` reached the completed-checkpoint store
                                         (`ok`; `ambiguous`: its writer could not know), or a write of it failed */
    /* Steps only reports read (the trace, the picture, explain): */
    PIPE_EV_ACK_RECEIVED,             /* coordinator: `culprit`'s acknowledgement of `ckpt` arrived (or, for a finished
                                         task, was made up for it); `channel`: a pipe_receipt */
    PIPE_EV_DECLINE_RECEIVED,         /* coordinator: `culprit`'s decline of `ckpt` arrived; `channel`: a pipe_receipt */
    PIPE_EV_NOTICE,                   /* task: the coordinator's notice that `ckpt` completed (`ok`) or was aborted */
    PIPE_EV_TXN,                      /* sink: its transaction of `ckpt` (0: the open one), `count` records, committed
                                         (`ok`) or aborted; `channel`: a pipe_txn_why */
    PIPE_EV_ALIGN_TIMEOUT,            /* task: `ckpt` is older than the alignment timeout: its inputs switch to
                                         unaligned (`channel` 0; `blocked`, `waiting` before the switch), or its
                                         barrier queued on output channel `chan` turns priority (`channel` 1) */
    PIPE_EV_BACKPRESSURE,             /* task: it was held up by backpressure (an output without room) for `bytes` ns,
                                         up to now (Flink's backPressuredTimeMsPerSecond, as an interval) */
    /* Message steps, for pictures (reports/svg.c): many (one per data
     * buffer), so only observers that ask for them get them
     * (pipe_observe_messages). Credits are left out. */
    PIPE_EV_END_DATA,                 /* task took end of data on `channel`: no records follow there, barriers may */
    PIPE_EV_INPUT_ENDED,              /* task: its input ended (FLIP-147): it sent end of data downstream and waits
                                         for a checkpoint it triggers from now on to complete, then finishes */
    PIPE_EV_SEND,                     /* `task` (PIPE_NO_TASK: the coordinator) put message `msg` with words
                                         `word_a`, `word_b` for `peer` on `link`; `ok` false: the link refused it
                                         (cut, or lost by a loss fault), else it is due at `due_ns`. A data message:
                                         `chan`, `channel` its pipe_buf, `count` records, `ckpt` of a barrier or
                                         cancel marker, `priority` for an unaligned barrier's */
    PIPE_EV_RECV,                     /* that message was delivered to `task` (PIPE_NO_TASK: the coordinator) from
                                         `peer`, before the receiver looks at it (it may still drop it: fencing);
                                         one never delivered was lost in flight (a broken connection, a crash) */
    PIPE_EV_RESCALED,                 /* coordinator: this deployment runs vertex `channel` at parallelism `count`
                                         (it ran `word_a`), restoring `ckpt` (0: the beginning); before the
                                         JOB_RESTARTED step of the deployment, one step per vertex that changed */
    PIPE_EV_WINDOWS_FIRED,            /* window task: its watermark rose to `word_a` (a win_wm's bits): it fired
                                         `count` windows (their results went downstream) and purged `bytes` */
    PIPE_EV_WATERMARK,                /* a message step: `task` put a watermark, event time `word_a` ns (a win_wm's
                                         bits), among the records of its outputs (only for pipe_observe_messages) */
    PIPE_EV_KIND_MAX
} pipe_ev_kind;

/* Why the coordinator failed the job (PIPE_EV_JOB_FAILED's `channel`). */
typedef enum pipe_fail_cause {
    PIPE_FAIL_REPORTED = 1,           /* `culprit` reported it failed: it lost a connection, or its transaction log was full */
    PIPE_FAIL_CONNECTION,             /* the coordinator's connection to `culprit` broke (Flink: its TaskManager was lost) */
    PIPE_FAIL_CHECKPOINTS,            /* more consecutive failed checkpoints than tolerable (no culprit) */
    PIPE_FAIL_HEARTBEAT,              /* `culprit`'s TaskManager answered no heartbeat within the timeout */
    PIPE_FAIL_EVENT_LOST = 6,         /* `culprit`, a source, never acknowledged the splits assigned to it
                                         (5 was an ambiguous store write: since FLINK-22494 a checkpoint failure) */
} pipe_fail_cause;

/* What the coordinator made of an acknowledgement or a decline
 * (PIPE_EV_ACK_RECEIVED's and PIPE_EV_DECLINE_RECEIVED's `channel`). */
typedef enum pipe_receipt {
    PIPE_RCV_COUNTED = 0,             /* taken for its pending checkpoint */
    PIPE_RCV_LATE,                    /* the checkpoint had ended (aborted, subsumed): dropped */
    PIPE_RCV_REPEATED,                /* the task had acknowledged it already: dropped */
    PIPE_RCV_FENCED,                  /* sent by another attempt of the job: dropped */
    PIPE_RCV_RESTARTING,              /* the job was not running (failed, restarting): dropped */
    PIPE_RCV_FOR_FINISHED,            /* no message: the coordinator acknowledged for a finished task */
} pipe_receipt;

/* Why a sink's transaction was resolved (PIPE_EV_TXN's `channel`). */
typedef enum pipe_txn_why {
    PIPE_TXN_NOTICE = 0,              /* a completion notice (or the job's end) committed it */
    PIPE_TXN_RESTORE,                 /* a restore committed it (its checkpoint completed) or aborted it */
} pipe_txn_why;

#define PIPE_NO_TASK UINT32_MAX
#define PIPE_NO_CHAN UINT32_MAX

typedef enum pipe_write {             /* what a snapshot write holds */
    PIPE_WRITE_KEYED = 0,
    PIPE_WRITE_CHANNELS = 1,
} pipe_write;

typedef struct pipe_event {
    pipe_ev_kind kind;
    sim_time_ns  at_ns;
    uint32_t     task;                /* PIPE_NO_TASK for the coordinator */
    uint32_t     channel;             /* the gate's channel number, for BARRIER/CANCEL/END/CONSUME;
                                         the pipe_ckpt_end, for CKPT_COMPLETE/CKPT_ABORT;
                                         1 for an unaligned TRIGGER, and for a DECLINE of a
                                         checkpoint known to be aborted (no decline sent);
                                         the pipe_fail_cause, for JOB_FAILED;
                                         1 for a CHANNEL_STATE of output buffers (an overtaken output
                                         queue), 0 for input ones; the pipe_receipt, for ACK_RECEIVED and
                                         DECLINE_RECEIVED; the pipe_txn_why, for TXN; 0 (inputs) or 1
                                         (an output), for ALIGN_TIMEOUT */
    uint64_t     ckpt;
    uint32_t     blocked;             /* channels the task's gate blocks after the step (control steps) */
    uint32_t     waiting;             /* buffers queued on those blocked channels */
    uint64_t     epoch;               /* job attempt */
    uint32_t     chan;                /* the channel's id (pipe-wide), or PIPE_NO_CHAN */
    uint32_t     count;               /* records: CONSUME, CHANNEL_STATE, TXN; buffers: ALIGN_TIMEOUT at an output;
                                         CKPT_ABORT: Flink's reason, a ckr_why (model/flow/ckrules.h) */
    uint64_t     bytes;               /* WRITE; BACKPRESSURE: the interval's length in ns */
    pipe_write   what;                /* WRITE, WRITE_DONE */
    bool         ok;                  /* WRITE_DONE, RESTORE; NOTICE: completed; TXN: committed;
                                         JOB_FAILED: the restart strategy restarts */
    uint64_t     first_id;            /* CONSUME: the first record's id */
    bool         priority;            /* BARRIER: an unaligned barrier that overtook the channel's data */
    bool         ambiguous;           /* METADATA: the store took the write, its writer was told it failed */
    uint32_t     culprit;             /* JOB_FAILED: the task that failed it, or PIPE_NO_TASK;
                                         ACK_RECEIVED, DECLINE_RECEIVED: the task that sent it */
    uint32_t     released;            /* BARRIER, CANCEL, END: buffers that had queued on the inputs the step
                                         unblocked (they are processed next) */
    uint32_t     msg;                 /* SEND, RECV: the message's type (model/proto.h MSG_*, pipe_msg_name) */
    uint32_t     peer;                /* SEND: the receiver, RECV: the sender (a task, or PIPE_NO_TASK) */
    uint32_t     link;                /* SEND, RECV: the kernel link it travels */
    uint64_t     word_a, word_b;      /* SEND, RECV: its words, which tell a delivery's send among a link's */
    sim_time_ns  due_ns;              /* SEND: when it is to arrive (a paused receiver takes it later);
                                         JOB_FAILED: when the restart is due, if `ok` (the strategy restarts) */
} pipe_event;

/* What a data buffer holds (PIPE_EV_SEND's `channel` for a data message). */
typedef enum pipe_buf {
    PIPE_BUF_DATA = 1,
    PIPE_BUF_BARRIER,
    PIPE_BUF_CANCEL,
    PIPE_BUF_END,                     /* end of partition */
    PIPE_BUF_END_DATA,                /* end of data: no records follow, barriers still do (FLIP-147) */
} pipe_buf;

typedef void (*pipe_observe_fn)(void *ctx, const pipe_event *e);

#define PIPE_OBSERVERS_MAX 8u

/* The defaults, into *c. A pipe_cfg is large (the job graph, about 280
 * KB): keep it off the stack (pipe_cfg_default returns a copy, for tests,
 * which run with a full-size stack). */
void     pipe_cfg_init(pipe_cfg *c, uint64_t seed);
pipe_cfg pipe_cfg_default(uint64_t seed);
/* A free slot is offered again this many RPC latencies after the last
 * offer (a TaskManager registers again quickly; its offers are small). */
#define PIPE_SLOT_RETRY_RPCS 5u

/* A split assignment (an operator event) not acknowledged within this many
 * RPC latencies is lost: the job fails over. */
#define PIPE_ASSIGN_TIMEOUT_RPCS 20u

/* The heartbeat interval and timeout a configuration runs with. */
void pipe_heartbeat(const pipe_cfg *c, sim_time_ns *interval_ns, sim_time_ns *timeout_ns);

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

/* NULL when every window vertex of c fits the model's bounds (its window
 * numbers, its tasks' maps whatever the keys' spread over the subtasks,
 * a map of its whole state, the external system's results), else what
 * is wrong, and *vertex says which window. pipe_create refuses the same. */
const char *pipe_window_problem(const pipe_cfg *c, uint32_t *vertex, char *err, size_t n);

/* Entries a map of window vertex v's whole state may need, with a late
 * aggregate per window-key beside its contents and timer, and one per key:
 * every window of every key, or fewer when the input's records touch
 * fewer (what a fold of the input for the checkers holds at most). */
uint64_t pipe_window_vertex_entries(const pipe_cfg *c, uint32_t v);
/* Keys a map of vertex v's state holds at most (a join tags each key by
 * its input; a window: pipe_window_vertex_entries): what a map to fold the
 * input into, or to read a checkpoint of it back into, must take. */
uint32_t pipe_vertex_map_keys(const pipe_cfg *c, uint32_t v);

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
/* "data", "priority", "trigger", "ack", ... for a message type (PIPE_EV_SEND's `msg`); "?" for another. */
const char *pipe_msg_name(uint32_t msg);

sim_run          *pipe_sim(pipeline *p);
pipe_status       pipe_get_status(const pipeline *p);
const pipe_stats *pipe_get_stats(const pipeline *p);
const job        *pipe_job(const pipeline *p);
uint64_t          pipe_restore_ckpt(const pipeline *p);   /* the checkpoint a restart restores; 0: none */
uint32_t          pipe_task_actor(const pipeline *p, uint32_t task);
uint32_t          pipe_task_rpc_link(const pipeline *p, uint32_t task);   /* task -> coordinator */
uint32_t          pipe_task_rpc_in_link(const pipeline *p, uint32_t task); /* coordinator -> task */
/* The RPCs by name, for faults that lose or delay one kind: `name` is one
 * of deploy, cancel, trigger, complete, abort, heartbeat, end, assign
 * (coordinator to task) or ack, decline, failed, finished, slot, running,
 * committed (task to coordinator). False for another name. */
bool              pipe_rpc_kind(const char *name, uint32_t *msg_type, bool *to_task);
extern const char *const pipe_rpc_kind_names[];   /* NULL-terminated, in the order above */
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
 * and the highest firing made visible with its value (false: none). */
uint32_t pipe_result_count(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, uint32_t firing);
bool pipe_result_top(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, uint32_t *firing, int64_t *value);

const char *pipe_status_name(pipe_status s);
const char *pipe_ckpt_end_name(pipe_ckpt_end e);

/* Checkpoints in trigger order (ids 1, 2, ...), the first PIPE_HISTORY_MAX. */
const pipe_ckpt_rec *pipe_history(const pipeline *p, uint32_t *count);

/* Protocol coverage: named situations the protocol must handle, each
 * counted where the model handles it (as SQLite's testcase()), so a
 * campaign can say which it reached. Counting never changes a run: the
 * counters are written, never read, by the model. Names and one line
 * each: model/reach.c. Append new ones at the end of their group. */
typedef enum pipe_reach {
    /* coordinator: checkpoints */
    PIPE_REACH_CKPT_COMPLETED = 0,    /* a checkpoint completed */
    PIPE_REACH_CKPT_SUBSUMED,         /* a pending one was subsumed by a newer completion */
    PIPE_REACH_CKPT_TIMED_OUT,
    PIPE_REACH_CKPT_DECLINED,         /* the coordinator took a task's decline */
    PIPE_REACH_METADATA_FAILED,       /* the metadata write failed: declined */
    PIPE_REACH_CKPT_CONCURRENT,       /* triggered while another was pending */
    PIPE_REACH_TRIGGER_MIN_PAUSE,     /* a trigger waited for the minimum pause */
    PIPE_REACH_TRIGGER_MAX_CONCURRENT,/* a trigger waited: max-concurrent pending */
    PIPE_REACH_TOLERABLE_EXCEEDED,    /* too many failed checkpoints: the job fails */
    PIPE_REACH_LATE_ACK,              /* an acknowledgement of an aborted checkpoint was dropped */
    PIPE_REACH_COORD_OLD_ATTEMPT,     /* the coordinator dropped a message of an older attempt */
    PIPE_REACH_FINISHED_ACKED_FOR,    /* acknowledged on behalf of a finished task */
    PIPE_REACH_FINAL_CHECKPOINT,      /* every task finished: sinks commit the rest */
    PIPE_REACH_PENDING_LOST,          /* pending checkpoints died with a failed attempt */
    PIPE_REACH_METADATA_AMBIGUOUS,    /* a metadata write ended ambiguously: the checkpoint is aborted, its files kept */
    PIPE_REACH_COMPLETION_WAITS_ASSIGN, /* a checkpoint waited for a split assignment to be acknowledged */
    PIPE_REACH_ASSIGNMENT_LOST,       /* an assignment was never acknowledged: the job fails over */
    /* coordinator: restarts and failover */
    PIPE_REACH_RESTART_FIXED_DELAY,
    PIPE_REACH_RESTART_FAILURE_RATE,
    PIPE_REACH_RESTART_EXPONENTIAL,
    PIPE_REACH_GIVE_UP_NONE,
    PIPE_REACH_GIVE_UP_FIXED_DELAY,
    PIPE_REACH_GIVE_UP_FAILURE_RATE,
    PIPE_REACH_EXPONENTIAL_RESET,     /* a quiet time reset the backoff */
    PIPE_REACH_RESTART_WAITS,         /* a restart waited for free slots (a TaskManager to come back) */
    PIPE_REACH_RELOCATED,             /* a restart deployed a task onto another machine than its last */
    PIPE_REACH_INPUT_ENDED,           /* a task's input ended: it waits for a final checkpoint (FLIP-147) */
    PIPE_REACH_FINAL_CHECKPOINT_DONE, /* a task finished once a checkpoint it triggered after its input ended completed */
    PIPE_REACH_TRIGGER_AFTER_UPSTREAM,/* a task that is no source was triggered: every task upstream had finished */
    PIPE_REACH_TRIGGER_SKIP_FINISHED, /* finished-tasks off: a checkpoint was not triggered as a task had finished */
    PIPE_REACH_CKPT_TASK_FINISHED,    /* a pending checkpoint was aborted: a task finished before it took it */
    PIPE_REACH_TXN_FENCED,            /* the external system refused a zombie two-phase-commit sink */
    PIPE_REACH_FAILOVER_MEMORY,       /* a new coordinator, memory backend: start over */
    PIPE_REACH_FAILOVER_DURABLE,      /* a new coordinator read the completed checkpoints back */
    PIPE_REACH_HEARTBEAT_TIMEOUT,     /* a silent TaskManager was declared lost */
    PIPE_REACH_CANCEL_REPEATED,       /* a restart waiting for slots cancelled a task again */
    PIPE_REACH_DEPLOY_REPEATED,       /* a deployment nobody confirmed was sent again */
    PIPE_REACH_REGION_RESTART,        /* a failure restarted its pipelined region alone, the others kept running */
    PIPE_REACH_RESCALED,              /* a deployment changed a vertex's parallelism from a checkpoint */
    PIPE_REACH_RESCALE_FROM_NOTHING,  /* ... with no completed checkpoint: the rescaled job started over */
    PIPE_REACH_GIVE_UP_EXPONENTIAL,   /* the exponential strategy used its attempts before a reset */
    PIPE_REACH_RESTART_MERGED,        /* a failure before the scheduled restart joined its attempt (FLIP-364) */
    PIPE_REACH_TRIGGER_NOT_RUNNING,   /* a request failed: not every task to trigger or wait for runs */
    PIPE_REACH_QUEUED_TRIGGERED,      /* a queued request triggered as a pending checkpoint ended */
    /* tasks: snapshots */
    PIPE_REACH_DECLINE_SENT,          /* a task declined a checkpoint */
    PIPE_REACH_TWO_SNAPSHOTS,         /* a snapshot began while another was alive at the task */
    PIPE_REACH_WRITE_FAILED,          /* the store failed a snapshot write: declined */
    PIPE_REACH_PRIORITY_OVERTOOK,     /* a priority barrier overtook queued output buffers */
    PIPE_REACH_INPUT_CHANNEL_STATE,   /* in-flight input buffers persisted */
    PIPE_REACH_ALIGNMENT_TIMEOUT,     /* an aligned checkpoint switched to unaligned at the inputs */
    PIPE_REACH_OUTPUT_TIMEOUT,        /* an aligned barrier stuck in an output queue became a priority one */
    PIPE_REACH_ALIGNED_TAKES_PRIORITY,/* an aligned gate took a priority barrier */
    PIPE_REACH_INCREMENTAL,           /* an incremental snapshot shared earlier files */
    PIPE_REACH_FULL_CHAIN_LIMIT,      /* a full snapshot: the chain reached full-every */
    PIPE_REACH_TRIGGER_QUEUED,        /* a source under backpressure queued a trigger */
    PIPE_REACH_TRIGGER_WITHDRAWN,     /* a source dropped a queued trigger of a checkpoint aborted meanwhile */
    PIPE_REACH_ABORTED_BEFORE_TRIGGER,/* a task's trigger of a checkpoint notified as aborted: cancel markers instead */
    /* tasks: restore and attempts */
    PIPE_REACH_RESTORE_CHAIN,         /* a task restored from an incremental chain */
    PIPE_REACH_RESTORE_CHANNEL_STATE, /* a restore replayed or re-emitted channel state */
    PIPE_REACH_RESTORE_SCRATCH,       /* a restart with no completed checkpoint */
    PIPE_REACH_NOTICE_TABLE_FULL,     /* notices lost or late for more checkpoints than a task keeps: it forgot the oldest */
    PIPE_REACH_REPLAY_READ_FAILED,    /* a zombie's read of channel state found its file gone with the coordinator's memory */
    PIPE_REACH_UNDEPLOYED,            /* an incarnation nobody deployed ignored an event */
    PIPE_REACH_FAILURE_REPEATED,      /* a failed task reported its failure again */
    PIPE_REACH_LOST_JOBMANAGER,       /* a task whose JobManager connection broke freed its slot */
    PIPE_REACH_FENCED_DATA,           /* a task dropped a data message of another attempt */
    PIPE_REACH_STALE_COMMAND,         /* a task dropped a command sent on a JobManager connection that broke */
    PIPE_REACH_EARLY_REQUEST,         /* a producer kept a partition request of an attempt not yet deployed there */
    PIPE_REACH_PRIORITY_HELD,         /* a priority barrier waited for its channel's partition request */
    /* sinks */
    PIPE_REACH_TXN_ABORTED_ON_RESTORE,
    PIPE_REACH_TXN_COMMITTED_ON_RESTORE,   /* recoverAndCommit of a completed checkpoint's */
    PIPE_REACH_COMMIT_COVERS_EARLIER, /* one notice committed several checkpoints' transactions */
    PIPE_REACH_IDEMPOTENT_OVERWRITE,  /* an idempotent sink overwrote a record it had */
    PIPE_REACH_TXN_ADOPTED,           /* a rescaled-down sink resolved transactions of an old subtask above its parallelism */
    /* gates, by mode (model/flow/gate.h) */
    PIPE_REACH_CANCEL_ALIGNED,        /* a cancel marker came to an aligned gate */
    PIPE_REACH_CANCEL_AT_LEAST_ONCE,
    PIPE_REACH_CANCEL_UNALIGNED,
    PIPE_REACH_CANCEL_ENDS_ALIGNED,   /* ... and ended the alignment it cancels */
    PIPE_REACH_CANCEL_ENDS_AT_LEAST_ONCE,
    PIPE_REACH_CANCEL_ENDS_UNALIGNED,
    PIPE_REACH_NEWER_ABORTS_ALIGNED,  /* a newer barrier aborted the pending alignment */
    PIPE_REACH_NEWER_ABORTS_UNALIGNED,
    PIPE_REACH_TRACKS_TWO,            /* at-least-once: two checkpoints tracked at once */
    PIPE_REACH_END_MARKS_ALIGNED,     /* end of partition counted as a pending checkpoint's barrier */
    PIPE_REACH_END_MARKS_AT_LEAST_ONCE,
    PIPE_REACH_END_MARKS_UNALIGNED,
    PIPE_REACH_OBSOLETE_ALIGNED,      /* a barrier of an older checkpoint was ignored */
    PIPE_REACH_OBSOLETE_UNALIGNED,
    /* event time (model/tm/evtime.c) */
    PIPE_REACH_WINDOW_FIRED,          /* a watermark fired a window */
    PIPE_REACH_WINDOW_FIRED_LATE,     /* a record within the allowed lateness fired its window again */
    PIPE_REACH_LATE_DROPPED,          /* a record came after every window of it was purged: dropped, counted */
    PIPE_REACH_RESTORED_WINDOW_FIRED, /* a window fired on a timer restored from a checkpoint */
    PIPE_REACH_COUNT
} pipe_reach;

typedef struct pipe_reach_info {
    const char *name;                 /* "decline-sent" */
    const char *what;                 /* one line */
} pipe_reach_info;

const pipe_reach_info *pipe_reach_info_of(pipe_reach r);
/* The run's counts, by pipe_reach. */
const uint64_t *pipe_reached(const pipeline *p);

/* Read-only views for checkers (check/): what a checkpoint holds, as the
 * backend stores it. They read the world (the store, the broker, the
 * external system behind the sinks), never change it, and are valid while
 * the checkpoint is pending or retained (NULL / false otherwise). */
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

#endif
