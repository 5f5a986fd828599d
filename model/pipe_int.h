/* model/pipe_int.h: the runtime structures shared by model/pipe.c (set-up),
 * model/task.c (the task actor) and model/coord.c (the coordinator actor).
 * Not a public interface: only those three files include it.
 *
 * Channel flow control (credit based, as Flink's network stack): buffers of
 * a channel are numbered 0, 1, 2, ... in order. The producer fills buffer
 * `filled` (while `filling`), queues it (filled++), and puts queued buffers
 * on the wire while sent - acked < credits; `acked` is what the consumer
 * reported finished (credit messages). Buffer n lives in ring slot
 * n % ring_size; since queued - sent <= out_queue (+2 for a flush and an
 * event), sent - acked <= credits and one buffer fills, a slot is never
 * reused before its buffer was consumed. The ring is shared memory: the
 * data message carries only the buffer number.
 */
#ifndef MODEL_PIPE_INT_H
#define MODEL_PIPE_INT_H

#include "pipe.h"
#include "proto.h"
#include "store.h"

#define CHAN_BUF_RECORDS 32u

enum {                               /* timer tags */
    TIMER_WORK_DONE = 1,
    TIMER_SOURCE_NEXT,
    TIMER_FLUSH,
    TIMER_TRIGGER,                   /* coord */
    TIMER_RESTART,                   /* coord */
    TIMER_SYNC_DONE,                 /* task: the synchronous part of a snapshot ended */
    TIMER_ALIGN_TIMEOUT,             /* task: the aligned checkpoint being aligned is too old */
    TIMER_FAIL_RETRY,                /* task: report its failure again */
    TIMER_FINISHED_RETRY,            /* task: report that it finished again */
    TIMER_TIMEOUT_BASE = 1u << 16,   /* coord: + checkpoint id */
    TIMER_OUTPUT_BASE = 1u << 20,    /* task: + checkpoint id: its barrier is still queued */
};

enum {                               /* storage operation tags: ckpt << 2 | what */
    IO_KEYED = 0,                    /* a task's keyed state */
    IO_CHANNELS = 1,                 /* a task's channel state (unaligned) */
    IO_METADATA = 2,                 /* the coordinator's checkpoint metadata */
};


typedef enum buf_kind {
    BUF_DATA = 1,
    BUF_BARRIER,
    BUF_CANCEL,
    BUF_END,
} buf_kind;

typedef struct chan_buf {
    buf_kind  kind;
    uint32_t  count;                 /* records, for BUF_DATA */
    uint64_t  ckpt;                  /* for BUF_BARRIER, BUF_CANCEL */
    uint64_t  arrival;               /* consumer's arrival stamp */
    model_rec recs[CHAN_BUF_RECORDS];
} chan_buf;

typedef struct rt_chan {
    uint32_t  id;
    uint32_t  producer, consumer;    /* task ids */
    uint32_t  gate_index;
    uint32_t  input;
    uint32_t  data_link, credit_link;
    chan_buf *ring;
    uint32_t  ring_size;
    bool      filling;
    uint64_t  filled, sent, acked;   /* producer's counters */
    uint64_t  received, consumed;    /* consumer's counters */
    uint64_t  barrier_ckpt;          /* newest barrier that arrived on the channel */
    uint64_t  barrier_at;            /* buffers received before it */
} rt_chan;

/* A checkpoint a task triggered and has not acknowledged yet. */
typedef struct rt_snap {
    uint64_t ckpt;                   /* 0: free */
    uint32_t ksnap;                  /* kstate snapshot index (stateful tasks) */
    uint32_t io_pending;             /* writes in flight */
    bool     syncing;                /* in its synchronous part */
    bool     collecting;             /* unaligned: inputs still owe their barrier */
    bool     failed;
    bool     acked;                  /* deliberate bug ack-before-write: acknowledged already */
    bool     out_waiting;            /* aligned with a timeout: a barrier is still in an output queue */
    sim_time_ns sync_start_ns, async_start_ns;
    uint64_t cs_records;             /* channel state persisted so far */
    rt_chain chain;                  /* its keyed state's files once written (count 0: none yet) */
    uint64_t chain_bytes;            /* what the newest of them holds */
} rt_snap;


/* Two-phase-commit sink: its transactions in the external system, which
 * outlive the task. Records are kept as sink_seen indexes in a ring;
 * transactions cover consecutive ranges and resolve oldest first. */
typedef enum txn_state { TXN_OPEN = 1, TXN_PRECOMMITTED } txn_state;

#define TXN_MAX 64u

typedef struct rt_txn {
    uint64_t  ckpt;                  /* pre-committed for this checkpoint (UINT64_MAX: at the end) */
    uint64_t  first, end;            /* ring positions */
    txn_state state;
} rt_txn;

typedef struct rt_txlog {
    uint32_t *recs;
    uint64_t  cap;
    uint64_t  head, tail;            /* ring positions of the oldest unresolved record, next free */
    rt_txn    txns[TXN_MAX];
    uint32_t  first, count;          /* txns ring */
} rt_txlog;

typedef struct rt_out_edge {          /* a task's outputs of one edge */
    job_part part;
    uint32_t first;                   /* index into the task's outputs */
    uint32_t count;
    uint32_t rr;                      /* rebalance position */
} rt_out_edge;

typedef struct rt_task {
    pipeline         *owner;
    uint32_t          id;
    uint32_t          actor;
    const job_task   *jt;
    const job_vertex *v;
    gate              g;
    kstate            state;          /* keyed aggregate, keyed join */
    bool              stateful;
    rt_out_edge       out_edges[JOB_EDGES_MAX];
    uint32_t          out_edges_count;
    uint32_t          rpc_to_coord;
    uint32_t          conn_to_coord;  /* stream link: its break tells the coordinator */
    uint64_t          epoch;          /* job attempt this incarnation belongs to */
    uint64_t          arrivals;
    bool              busy;           /* processing a data buffer */
    uint32_t          busy_chan;
    bool              finished;
    bool              failure_reported;
    sim_timer_id      flush_timer;
    /* sources */
    uint32_t          parts_first, parts_count;   /* partitions p where p % parallelism == subtask */
    uint32_t          parts_rr;
    bool              source_waiting;              /* a read is scheduled */
    uint64_t          trigger_queue[PIPE_CONCURRENT_MAX + 1];
    uint32_t          triggers_queued;
    sim_time_ns       align_start_ns; /* first barrier of the pending checkpoint */
    uint64_t          last_seen_ckpt; /* newest checkpoint it triggered or declined */
    uint64_t          aborted[PIPE_CONCURRENT_MAX];   /* notified as aborted before it triggered them (ring) */
    uint32_t          aborted_next;
    /* snapshots (model/snap.c) */
    rt_snap           snaps[PIPE_CONCURRENT_MAX + 1];
    uint32_t          syncing;        /* snapshots in their synchronous part: the task waits */
    rt_chain          base;           /* last confirmed (or restored) keyed-state chain */
    rt_chain          recent[PIPE_CONCURRENT_MAX + 1];   /* written, not yet confirmed: the task's references */
    uint64_t          final_file;     /* finished: its final state (held by the task) */
    uint64_t          prio_queue[GATE_CHANNELS_MAX];     /* priority barriers waiting: chan << 32 | index */
    uint32_t          prio_count;
    sim_timer_id      align_timer;
    uint64_t          align_ckpt;     /* the aligned checkpoint the timer is for */
    bool              align_due;      /* its timeout fired: switch when the task is free */
    model_rec         replay_recs[CHAN_BUF_RECORDS];   /* the batch being replayed */
    uint32_t          replay_chans[CHAN_BUF_RECORDS];
    uint32_t          replay_n;
    /* restore: input channel state to replay before new input */
    uint32_t          replay_pos;     /* next entry of the restore slot's channel state */
    bool              replaying;
    /* sinks */
    rt_txlog         *txlog;          /* two-phase commit */
} rt_task;

/* One record of channel state: an in-flight record a checkpoint overtook. */
typedef struct rt_cs_rec {
    model_rec rec;
    uint32_t  chan;
    uint32_t  output;                 /* 1: the producer re-emits it; 0: the consumer replays it */
} rt_cs_rec;

typedef struct rt_slot {              /* one checkpoint's snapshot at the coordinator */
    uint64_t    ckpt;                 /* 0: free */
    bool        complete;
    bool        finalizing;           /* every ack in; metadata being written */
    sim_time_ns started_ns;
    uint8_t    *acked;                /* by task */
    uint32_t    acks;
    rt_chain   *chains;               /* by task: keyed state files (refs held by the slot) */
    uint64_t   *offsets;              /* by partition */
    rt_cs_rec  *cs;                   /* channel state, all tasks */
    uint32_t    cs_count, cs_cap;
    bool        cs_overflow;
    uint64_t    bytes;                /* state and channel state written for it */
    uint64_t    files_new, files_shared;
} rt_slot;

typedef struct rt_coord {
    uint32_t    actor;
    uint32_t    machine;
    uint32_t   *rpc_to_task;          /* by task */
    uint32_t   *deploy_inc;           /* by task: the incarnation the coordinator deployed */
    uint32_t   *deploy_gen;           /* by task: connection generation at deployment */
    pipe_status status;
    uint64_t    epoch;
    uint64_t    next_ckpt;
    uint32_t    pending;              /* checkpoints in flight */
    sim_time_ns last_completed_ns;
    uint32_t    consecutive_failures;
    uint64_t    restore_slot;         /* slot index + 1 of the latest completed, 0: none */
    uint64_t    completed_order[PIPE_RETAINED_MAX];   /* slot indices, oldest first */
    bool        recovering;           /* a new coordinator is reading the store */
    bool        started;              /* the first coordinator started (a later START is a failover) */
    uint32_t    completed_count;
    uint8_t    *finished;             /* by task, this attempt */
    uint64_t   *final_file;           /* by task: the final state a FINISHED message named (0: none) */
    uint32_t    finished_count;
    uint32_t    sources_running;
    /* restart strategy (this coordinator's: a failover starts a new one) */
    uint32_t    strategy_failures;    /* fixed delay: failures it saw */
    sim_time_ns failure_times[64];    /* failure rate window */
    uint32_t    failure_count;
    sim_time_ns exp_delay_ns;
    sim_time_ns last_failure_ns;
    bool        trigger_armed;
} rt_coord;

struct pipeline {
    pipe_cfg   cfg;
    sim_run   *run;
    broker     brk;
    rt_task   *tasks;
    rt_chan   *chans;
    rt_slot   *slots;
    uint32_t   slots_count;
    rt_coord   coord;
    uint32_t   store_dev;             /* durable store */
    uint32_t   memory_dev;            /* memory backend: the transfer to the coordinator */
    store      files;                 /* the backend's state files and shared-state registry */
    uint32_t   snaps_max;             /* snapshots a task may hold at once */
    uint8_t   *sink_seen;             /* by partition * records_per_partition + offset */
    uint64_t  *offsets;               /* by partition: the next offset its source reads */
    pipe_stats stats;
    pipe_ckpt_rec *history;           /* by id - 1 */
    pipe_observe_fn observe[PIPE_OBSERVERS_MAX];
    void      *observe_ctx[PIPE_OBSERVERS_MAX];
    uint32_t   observers;
    uint32_t   history_count;
    uint64_t   reach[PIPE_REACH_COUNT];   /* protocol coverage: written, never read, by the model */
};

/* Count a reach point (model/reach.c). */
#define REACHED(p, point) ((void)((p)->reach[PIPE_REACH_##point]++))

/* Report a protocol step to the observers: pipe_note fills time, epoch
 * and (for control steps) the gate's blocked channels; pipe_note_ev takes
 * an event with its payload filled in by the caller. Both cost one branch
 * when nobody observes. */
void pipe_note(pipeline *p, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt);
void pipe_note_ev(pipeline *p, pipe_event *e);
/* pipe_note, saying whether the step's barrier is a priority one. */
void pipe_note_barrier(pipeline *p, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt, bool priority);
static inline bool pipe_observed(const pipeline *p) { return p->observers > 0; }

/* model/task.c */
void task_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
void task_reset(pipeline *p, rt_task *t);            /* to the restore checkpoint */
rt_chan *task_in_chan(pipeline *p, const rt_task *t, uint32_t i);
rt_chan *task_out_chan(pipeline *p, const rt_task *t, uint32_t i);
chan_buf *task_buf(rt_chan *c, uint64_t n);
void task_rpc(pipeline *p, rt_task *t, uint32_t type, uint64_t ckpt);
void task_emit_to(pipeline *p, rt_chan *c, const model_rec *r);
void task_push_event(pipeline *p, rt_chan *c, buf_kind kind, uint64_t ckpt);
void task_pump(pipeline *p, rt_task *t);
void task_fail(pipeline *p, rt_task *t);            /* the task failed: it stops and reports */

/* model/snap.c: a task's side of a checkpoint (P2, P5, P6, P7). */
void snap_trigger(pipeline *p, rt_task *t, uint64_t ckpt, bool unaligned);   /* forward barrier, sync part */
void snap_sync_done(pipeline *p, rt_task *t);
void snap_io_done(pipeline *p, rt_task *t, const sim_event *ev);
void snap_inputs_done(pipeline *p, rt_task *t);                 /* the gate stopped collecting */
void snap_on_data(pipeline *p, rt_task *t, rt_chan *c, const chan_buf *b);   /* unaligned: persist? */
void snap_abort(rt_task *t, uint64_t ckpt);                     /* declined or aborted: drop what it holds */
void snap_note_aborted(rt_task *t, uint64_t ckpt);              /* an abort notice before the trigger */
void snap_barrier_sent(pipeline *p, rt_task *t, uint64_t ckpt); /* an in-band barrier left a queue */
void snap_output_timeout(pipeline *p, rt_task *t, uint64_t ckpt);   /* it waited past the timeout */
void snap_confirmed(pipeline *p, rt_task *t, uint64_t ckpt);    /* notifyCheckpointComplete */
void snap_finish(pipeline *p, rt_task *t);                      /* final state of a finished task */
void snap_reset(pipeline *p, rt_task *t);                       /* restore: state, channel state */
void snap_slot_release(pipeline *p, rt_slot *s);                /* its files' references go */

/* model/sinktx.c: sinks' output (P10): plain, idempotent, two-phase commit. */
void sinktx_write(pipeline *p, rt_task *t, const model_rec *r);
void sinktx_precommit(pipeline *p, rt_task *t, uint64_t ckpt);
void sinktx_commit(pipeline *p, rt_task *t, uint64_t ckpt);     /* every pre-committed <= ckpt */
void sinktx_restore(pipeline *p, rt_task *t, uint64_t ckpt);    /* commit <= ckpt, abort the rest */
void sinktx_finish(pipeline *p, rt_task *t);
void sinktx_final_ack(pipeline *p, rt_task *t, uint64_t ckpt);

/* model/coord.c */
void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
rt_slot *coord_pending_slot(pipeline *p, uint64_t ckpt);   /* NULL unless ckpt is pending */
const rt_slot *coord_restore(const pipeline *p);            /* NULL: start from scratch */

#endif
