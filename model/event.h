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
typedef enum pipe_ev_kind {          /* what each is and fills: the event table, model/event.c */
    PIPE_EV_BARRIER = 1,
    PIPE_EV_CANCEL,
    PIPE_EV_END,
    PIPE_EV_TRIGGER,
    PIPE_EV_DECLINE,
    PIPE_EV_TASK_FINISHED,
    PIPE_EV_CKPT_START,
    PIPE_EV_CKPT_COMPLETE,
    PIPE_EV_CKPT_ABORT,
    PIPE_EV_JOB_FAILED,
    PIPE_EV_JOB_RESTARTED,
    PIPE_EV_SNAPSHOT_SYNC,
    PIPE_EV_SNAPSHOT_ASYNC,
    PIPE_EV_SINK_COMMIT,
    PIPE_EV_COORD_FAILOVER,
    PIPE_EV_CONSUME,
    PIPE_EV_ACK,
    PIPE_EV_WRITE,
    PIPE_EV_WRITE_DONE,
    PIPE_EV_CHANNEL_STATE,
    PIPE_EV_RESTORE,
    PIPE_EV_SNAPSHOT_DROPPED,
    PIPE_EV_METADATA,
    /* Steps only reports read (the trace, the picture, explain): */
    PIPE_EV_ACK_RECEIVED,
    PIPE_EV_DECLINE_RECEIVED,
    PIPE_EV_NOTICE,
    PIPE_EV_TXN,
    PIPE_EV_ALIGN_TIMEOUT,
    PIPE_EV_BACKPRESSURE,
    PIPE_EV_END_DATA,
    PIPE_EV_INPUT_ENDED,
    /* Message steps, for pictures (reports/svg.c): many (one per data
     * buffer), so only observers that ask for them get them
     * (pipe_observe_messages). Credits are left out. */
    PIPE_EV_SEND,
    PIPE_EV_RECV,
    PIPE_EV_RESCALED,
    PIPE_EV_WINDOWS_FIRED,
    PIPE_EV_WATERMARK,
    PIPE_EV_COMMITTABLES,
    PIPE_EV_GLOBAL_COMMIT,
    PIPE_EV_MATERIALIZED,
    PIPE_EV_HALTED,
    PIPE_EV_RESUMED,
    PIPE_EV_KIND_MAX
} pipe_ev_kind;

/* Why the coordinator failed the job (PIPE_EV_JOB_FAILED's `cause`). */
typedef enum pipe_fail_cause {
    PIPE_FAIL_REPORTED = 1,           /* `culprit` reported it failed: it lost a connection, or its transaction log was full */
    PIPE_FAIL_CONNECTION,             /* the coordinator's connection to `culprit` broke (Flink: its TaskManager was lost) */
    PIPE_FAIL_CHECKPOINTS,            /* more consecutive failed checkpoints than tolerable (no culprit) */
    PIPE_FAIL_HEARTBEAT,              /* `culprit`'s TaskManager answered no heartbeat within the timeout */
    PIPE_FAIL_EVENT_LOST = 6,         /* `culprit`, a source, never acknowledged the splits assigned to it
                                         (5 was an ambiguous store write: since FLINK-22494 a checkpoint failure) */
    PIPE_FAIL_STOP,                   /* a stop's savepoint was aborted: its tasks fail ("Stop-with-savepoint failed.") */
    PIPE_FAIL_THREW,                  /* `culprit`, a Sink V2 committer, threw on what arrived (Flink's
                                         IllegalStateException checks: an incomplete batch, a duplicate
                                         summary, an unknown subtask); never in a correct run (I5) */
} pipe_fail_cause;

/* What the coordinator made of an acknowledgement or a decline
 * (PIPE_EV_ACK_RECEIVED's and PIPE_EV_DECLINE_RECEIVED's `receipt`). */
typedef enum pipe_receipt {
    PIPE_RCV_COUNTED = 0,             /* taken for its pending checkpoint */
    PIPE_RCV_LATE,                    /* the checkpoint had ended (aborted, subsumed): dropped */
    PIPE_RCV_REPEATED,                /* the task had acknowledged it already: dropped */
    PIPE_RCV_FENCED,                  /* sent by another attempt of the job: dropped */
    PIPE_RCV_RESTARTING,              /* the job was not running (failed, restarting): dropped */
    PIPE_RCV_FOR_FINISHED,            /* no message: the coordinator acknowledged for a finished task */
} pipe_receipt;

/* Why a sink's transaction was resolved (PIPE_EV_TXN's `txn_why`). */
typedef enum pipe_txn_why {
    PIPE_TXN_NOTICE = 0,              /* a completion notice committed it */
    PIPE_TXN_RESTORE,                 /* a restore committed it (its checkpoint completed) or aborted it */
} pipe_txn_why;

#define PIPE_NO_TASK UINT32_MAX
#define PIPE_NO_CHAN UINT32_MAX

typedef enum pipe_write {             /* what a snapshot write holds */
    PIPE_WRITE_KEYED = 0,
    PIPE_WRITE_CHANNELS = 1,
} pipe_write;

/* What a data buffer holds (PIPE_EV_SEND's `buf` for a data message). */
typedef enum pipe_buf {
    PIPE_BUF_DATA = 1,
    PIPE_BUF_BARRIER,
    PIPE_BUF_CANCEL,
    PIPE_BUF_END,                     /* end of partition */
    PIPE_BUF_END_DATA,                /* end of data: no records follow, barriers still do (FLIP-147) */
} pipe_buf;

typedef struct pipe_event {
    pipe_ev_kind kind;
    sim_time_ns  at_ns;
    uint32_t     task;                /* PIPE_NO_TASK for the coordinator */
    uint64_t     ckpt;
    uint32_t     blocked;             /* channels the task's gate blocks after the step (control steps) */
    uint32_t     waiting;             /* buffers queued on those blocked channels */
    uint64_t     epoch;               /* job attempt */
    uint32_t     chan;                /* the channel's id (pipe-wide), or PIPE_NO_CHAN */
    uint32_t     count;               /* records: CONSUME, CHANNEL_STATE, TXN; buffers: ALIGN_TIMEOUT at an output;
                                         CKPT_ABORT: Flink's reason, a ckr_why (model/flow/ckrules.h) */
    uint64_t     bytes;               /* WRITE; BACKPRESSURE: the interval's length in ns */
    pipe_write   what;                /* WRITE, WRITE_DONE */
    bool         ok;                  /* WRITE_DONE, RESTORE; NOTICE: completed; TXN: committed; COMMITTABLES: received;
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
    /* One named field per meaning, each filled by the kinds the event
     * table says (pipe_ev_info.fields), zero for the others. */
    uint32_t     input;               /* BARRIER, CANCEL, END, END_DATA, CONSUME: the task's input (gate channel) */
    pipe_ckpt_end end;                /* CKPT_COMPLETE, CKPT_ABORT: how it ended */
    pipe_fail_cause cause;            /* JOB_FAILED: why */
    pipe_receipt receipt;             /* ACK_RECEIVED, DECLINE_RECEIVED: what the coordinator made of it */
    pipe_txn_why txn_why;             /* TXN: what resolved it */
    pipe_buf     buf;                 /* SEND of a data message: what the buffer holds */
    uint32_t     vertex;              /* RESCALED: the vertex */
    uint32_t     region;              /* JOB_RESTARTED with one_region: the region (job_regions) */
    uint32_t     inner;               /* CKPT_START: running tasks with inputs triggered too (upstream all finished) */
    bool         one_region;          /* JOB_RESTARTED: region `region` alone, not every task */
    bool         unaligned;           /* TRIGGER: it forwarded its barrier unaligned */
    bool         known_aborted;       /* DECLINE: told of the abort before it triggered, no decline sent */
    bool         output;              /* CHANNEL_STATE: output buffers (an overtaken output queue), not input;
                                         ALIGN_TIMEOUT: a barrier queued at output `chan`, not the inputs */
    bool         at_end;              /* COMMITTABLES: a writer's at end of input (endInput), not at a barrier */
    bool         savepoint;           /* CKPT_START, CKPT_COMPLETE, CKPT_ABORT: a stop's savepoint, not a checkpoint */
} pipe_event;

/* The event table (model/event.c): for each kind its name in traces and
 * reports, a line on it, and the named payload fields it fills. */
enum {
    PIPE_F_INPUT = 1u << 0, PIPE_F_END = 1u << 1, PIPE_F_CAUSE = 1u << 2, PIPE_F_RECEIPT = 1u << 3,
    PIPE_F_TXN_WHY = 1u << 4, PIPE_F_BUF = 1u << 5, PIPE_F_VERTEX = 1u << 6, PIPE_F_REGION = 1u << 7,
    PIPE_F_INNER = 1u << 8, PIPE_F_UNALIGNED = 1u << 9, PIPE_F_KNOWN_ABORTED = 1u << 10, PIPE_F_OUTPUT = 1u << 11,
    PIPE_F_AT_END = 1u << 12, PIPE_F_SAVEPOINT = 1u << 13,
};

typedef struct pipe_ev_info {
    const char *name;                 /* "barrier": the trace's "step" */
    const char *what;                 /* one line */
    uint32_t    fields;               /* PIPE_F_*: the named payload fields it fills */
} pipe_ev_info;

/* Entry k (PIPE_EV_BARRIER <= k < PIPE_EV_KIND_MAX). */
const pipe_ev_info *pipe_ev_info_of(pipe_ev_kind k);
/* Whether e leaves every named payload field its kind does not fill at
 * zero (the table is true to the producers: tests hold every step to it). */
bool pipe_ev_fields_ok(const pipe_event *e);

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
