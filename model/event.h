/* model/event.h: the protocol steps a run reports to its observers
 * (pipe_event), the job's status and how checkpoints end, and the names
 * of messages and RPC kinds. Vocabulary of the lowest floor of model/:
 * the names are in model/event.c; tm/ and jm/ fill events and hand
 * them to world_note_ev (model/world.h). */
#ifndef MODEL_EVENT_H
#define MODEL_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include "../sim/run.h"

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

const char *pipe_status_name(pipe_status s);
const char *pipe_ckpt_end_name(pipe_ckpt_end e);

/* "data", "priority", "trigger", "ack", ... for a message type (PIPE_EV_SEND's `msg`); "?" for another. */
const char *pipe_msg_name(uint32_t msg);

/* The RPCs by name, for faults that lose or delay one kind: `name` is one
 * of deploy, cancel, trigger, complete, abort, heartbeat, end, assign
 * (coordinator to task) or ack, decline, failed, finished, slot, running,
 * committed (task to coordinator). False for another name. */
bool              pipe_rpc_kind(const char *name, uint32_t *msg_type, bool *to_task);
extern const char *const pipe_rpc_kind_names[];   /* NULL-terminated, in the order above */

#endif
