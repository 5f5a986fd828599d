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

#define CHAN_BUF_RECORDS 32u

enum {                               /* sim_msg.type of the model's messages */
    MSG_DATA = 1,                    /* a = channel, b = buffer number */
    MSG_CREDIT,                      /* a = channel, b = buffers consumed */
    MSG_TRIGGER,                     /* coord -> source: a = ckpt, b = epoch */
    MSG_ACK,                         /* task -> coord: a = ckpt, b = epoch << 32 | task */
    MSG_DECLINE,
    MSG_COMPLETE,                    /* coord -> task: a = ckpt, b = epoch */
    MSG_ABORTED,
    MSG_FAILED,                      /* task -> coord: b = epoch << 32 | task */
    MSG_FINISHED,                    /* task -> coord: b = epoch << 32 | task */
};

enum {                               /* timer tags */
    TIMER_WORK_DONE = 1,
    TIMER_SOURCE_NEXT,
    TIMER_FLUSH,
    TIMER_TRIGGER,                   /* coord */
    TIMER_RESTART,                   /* coord */
    TIMER_TIMEOUT_BASE = 1u << 16,   /* coord: + checkpoint id */
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
} rt_chan;

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
} rt_task;

typedef struct rt_slot {              /* one checkpoint's snapshot at the coordinator */
    uint64_t    ckpt;                 /* 0: free */
    bool        complete;
    sim_time_ns started_ns;
    uint8_t    *acked;                /* by task */
    uint32_t    acks;
    kstate     *states;               /* by task; capacity 0 for stateless ones */
    uint64_t   *offsets;              /* by partition */
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
    uint32_t    completed_count;
    uint8_t    *finished;             /* by task, this attempt */
    uint32_t    finished_count;
    uint32_t    sources_running;
    /* restart strategy */
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
    uint8_t   *sink_seen;             /* by partition * records_per_partition + offset */
    uint64_t  *offsets;               /* by partition: the next offset its source reads */
    pipe_stats stats;
    pipe_ckpt_rec *history;           /* by id - 1 */
    pipe_observe_fn observe;
    void      *observe_ctx;
    uint32_t   history_count;
};

/* Report a protocol step to the observer, if any. */
void pipe_note(pipeline *p, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt);

/* model/task.c */
void task_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
void task_reset(pipeline *p, rt_task *t);            /* to the restore checkpoint */
void task_copy_state(pipeline *p, const rt_task *t, rt_slot *s);   /* its share of a snapshot */

/* model/coord.c */
void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
rt_slot *coord_pending_slot(pipeline *p, uint64_t ckpt);   /* NULL unless ckpt is pending */
const rt_slot *coord_restore(const pipeline *p);            /* NULL: start from scratch */

#endif
