/* model/tm/tm.h: the TaskManager side of a job run: the tasks (sources,
 * operators, sinks), their data channels, their snapshots and the sinks'
 * transactions. Not a public interface: the files of model/tm/ and the assembly
 * (pipe.c, plan.c, view.c through model/pipe_int.h, and horizon.c)
 * include it; model/jm/ never does.
 *
 * What a task knows of the JobManager arrived in a message
 * (model/proto.h); what it shares with it is the world (model/world.h).
 *
 * Channel flow control (credit based, as Flink's network stack): buffers of
 * a channel are numbered 0, 1, 2, ... in order. The producer fills buffer
 * `filled` (while its chan_fill is `filling`), queues it (filled++), and
 * puts queued buffers on the wire while sent - acked < credits; `acked` is
 * what the consumer reported finished (credit messages). Since queued -
 * sent <= out_queue (+2 for a flush and an event), sent - acked <= credits
 * and one buffer fills, at most ring_size buffers [acked, filled] are alive. Buffer n
 * lives in ring slot slot_of[n % ring_size] (CHAN_SLOT_OF): the producer takes a free
 * slot when it opens buffer n, the one freed last (its lines are the
 * likeliest still cached: a ring taken in turn would cycle every slot
 * through the cache however few are alive), and frees it when a credit
 * says n was consumed. The ring is the two ends' shared network buffer
 * pool: the data message carries only the buffer number. An alternative measured
 * and not kept (one pool of buffer memory for all channels):
 * docs/PERFORMANCE.md, "Channel buffer rings".
 */
#ifndef MODEL_TM_TM_H
#define MODEL_TM_TM_H

#include "../proto.h"
#include "../world.h"

#define CHAN_BUF_RECORDS 32u
#define CHAN_RING_MAX    131u        /* credits + out_queue + 3, both at their limit of 64 (asserted) */

enum {                               /* a task's timer tags (4, 5: the coordinator's) */
    TIMER_WORK_DONE = 1,
    TIMER_SOURCE_NEXT = 2,
    TIMER_FLUSH = 3,
    TIMER_SYNC_DONE = 6,             /* the synchronous part of a snapshot ended */
    TIMER_ALIGN_TIMEOUT = 7,         /* the aligned checkpoint being aligned is too old */
    TIMER_FAIL_RETRY = 8,            /* report its failure again */
    TIMER_FINISHED_RETRY = 9,        /* report that it finished again */
    TIMER_SLOT_RETRY = 10,           /* offer its slot again */
    TIMER_MATERIALIZE = 13,          /* changelog: the periodic materialization is due (11, 12, 14-17: the coordinator's) */
    TIMER_OUTPUT_BASE = 1u << 20,    /* + checkpoint id: its barrier is still queued */
};

/* Timer and storage tags carry the attempt that set them in their top
 * bits: what an earlier attempt left behind is ignored after a redeploy. */
#define TASK_TAG_SHIFT 40u
#define TASK_TAG_MASK  ((1ull << TASK_TAG_SHIFT) - 1)

typedef enum buf_kind {
    BUF_DATA = 1,
    BUF_BARRIER,
    BUF_CANCEL,
    BUF_END,                         /* end of partition: the producer finished */
    BUF_END_DATA,                    /* end of data: no records follow, barriers still may (FLIP-147) */
} buf_kind;

/* An input buffer in its task's arrival list (model/tm/task.c): the
 * channel's id + 1 (0: none, so a zeroed list is empty), its ring slot
 * (no division to find it) and the low 16 bits of its number (an
 * unconsumed buffer is within a ring of the channel's oldest one). */
typedef struct in_ref {
    uint32_t  chan1;
    uint16_t  slot;
    uint16_t  n;
} in_ref;

typedef struct in_list {             /* oldest first; tail only valid when head is */
    in_ref    head, tail;
} in_list;

/* The records start on a cache line of their own (the struct is aligned
 * to one): with many channels a buffer fills a record at a time, each
 * store long after the last, so a record that straddled two lines would
 * cost two misses, and the header line is not touched while it fills. */
typedef struct chan_buf {
    buf_kind  kind;
    uint32_t  count;                 /* records, for BUF_DATA; while filling, set only when it closes
                                        (the channel's chan_fill count is the live one: chan_fill_sync) */
    uint64_t  ckpt;                  /* for BUF_BARRIER, BUF_CANCEL */
    sim_time_ns ts_ns;               /* BUF_BARRIER: the checkpoint's timestamp */
    uint8_t   ck_type;               /* BUF_BARRIER: the checkpoint's type (proto_ck_type) */
    uint64_t  arrival;               /* consumer's arrival stamp */
    in_ref    next;                  /* consumer's: the buffer that arrived after it (its arrival list) */
    _Alignas(64) model_rec recs[CHAN_BUF_RECORDS];
} chan_buf;

/* The producer's open buffer of a connection, in an array of its own by
 * connection (tm_side's fills, tm_fill): a record put into a channel
 * touches only this, 16 bytes, not the channel's lines. With a hash edge
 * a producer spreads its records over parallelism channels, and the
 * channels' first lines alone (64 KiB at parallelism 32) do not stay in
 * the first-level cache, while the cursors of a producer's outputs fill
 * a few lines (measured: bench pipeline p32, see the commit). */
typedef struct chan_fill {
    chan_buf *buf;                   /* while filling, buffer `filled` of the channel */
    uint32_t  count;                 /* and its records (what buf->count says once it closes) */
    bool      filling;
} chan_fill;

/* Field order is for the cache: a hash edge has parallelism^2 channels;
 * a record put into one touches its chan_fill only, a buffer opened,
 * closed or sent the first line (the producer's counters), a buffer sent
 * or taken the second (the consumer's counters and the slot arrays); what
 * a checkpoint or a connection reads follows. */
typedef struct rt_chan {
    _Alignas(64) chan_buf *ring;     /* its slot 0; slot s is ring + s * ring_stride (chan_slot_buf) */
    uint64_t  filled, sent, acked;   /* producer's counters; buffer `filled` is open while its chan_fill is filling */
    uint32_t  ring_size;
    uint32_t  ring_stride;
    uint32_t  prod_inst;             /* the instance at its producing end (tm_side) */
    bool      ring_short;            /* producer's: no room in the ring for a flush and an event */
    bool      queue_full;            /* producer's: the send queue is at its bound */
    /* Connection of an attempt (Flink's partition request): the producer
     * sends nothing until the consumer of its attempt asked (its first
     * credit); a request of a newer attempt than the producer's waits. */
    bool      requested;
    uint8_t   free_count;            /* free slots, on top of the free stack in slots[] */
    bool      off;                   /* producer's: its consumer is above the attempt's parallelism (no event goes) */
    uint64_t  received, consumed;    /* consumer's counters */
    uint64_t  barrier_slots;         /* bit s: slot s holds a barrier (chan_set_kind; rings of up to 64) */
    uint32_t  id;                    /* this connection's (the messages name it) */
    uint32_t  cons_inst;             /* the instance at its consuming end */
    uint32_t  gate_index;
    uint32_t  data_link;
    uint32_t  credit_link;
    /* The producer's slots (see the top): slots[0, ring_size) by buffer
     * number mod ring_size (CHAN_SLOT_OF), slots[ring_size, 2 ring_size)
     * the free ones, freed last on top (CHAN_FREE_SLOTS): one array, so
     * that both sit in the line above for a ring of up to 14. */
    uint8_t   slots[2 * CHAN_RING_MAX];
    uint32_t  input;                 /* which input of the consumer (a join's side) */
    uint64_t  barrier_ckpt;          /* newest barrier that arrived on the channel */
    uint64_t  barrier_at;            /* buffers received before it */
    uint64_t  early_request;         /* attempt + 1 of a request that came before the producer's deployment, 0: none */
    uint64_t  prio_held;             /* a priority barrier waiting for the request, 0: none */
    uint32_t  producer, consumer;    /* task ids */
    uint32_t  jc;                    /* the job channel (the observers name it) */
    win_wm    in_wm;                 /* consumer's: the channel's watermark (WIN_WM_MAX once it ended) */
} rt_chan;

/* Buffer slot s of channel c. The rings of all channels are interleaved
 * by slot (slot 0 of every channel, then slot 1, ...): a channel takes
 * its slots lowest first and most use only a few, so the pages of the
 * higher slots, which the system zeroes on first touch, mostly never are. */
static inline chan_buf *chan_slot_buf(const rt_chan *c, uint32_t s) {
    SIM_ASSERT(s < c->ring_size);
    return c->ring + (size_t)s * c->ring_stride;
}

/* Macros, so that a const channel gives const slots. */
#define CHAN_SLOT_OF(c)    ((c)->slots)
#define CHAN_FREE_SLOTS(c) ((c)->slots + (c)->ring_size)

/* A buffer's kind, set by the producer; the channel also notes by slot
 * which buffers are barriers, so that the consumer tells a barrier that
 * just arrived without loading the buffer's header line (written long
 * before, and with many channels a miss). Rings of more than 64 slots
 * keep no notes: their consumers read the header. */
static inline void chan_set_kind(rt_chan *c, uint64_t n, chan_buf *b, buf_kind kind) {
    b->kind = kind;
    if (c->ring_size > 64) return;
    uint64_t bit = 1ull << CHAN_SLOT_OF(c)[n % c->ring_size];
    c->barrier_slots = kind == BUF_BARRIER ? c->barrier_slots | bit : c->barrier_slots & ~bit;
}

static inline bool chan_slot_barrier(const rt_chan *c, uint32_t slot, const chan_buf *b) {
    return c->ring_size > 64 ? b->kind == BUF_BARRIER : (c->barrier_slots >> slot & 1) != 0;
}

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
    bool     cs_overflow;            /* the store had no room for its channel state: declined */
    bool     cs_sealed;              /* its channel-state write ended: the file is the directory's */
    bool     cs_writing;             /* that write is in flight */
    uint32_t cs_count;               /* records of channel state */
    uint64_t cs_file;                /* their file in the store, written as they are persisted (0: none) */
    rt_chain chain;                  /* its keyed state's files once written (count 0: none yet) */
    uint64_t chain_bytes;            /* what the newest of them holds */
    uint32_t seg_from;               /* changelog: its segment's range starts here (ends at its version); until
                                        its upload, `chain` is the materialized part it builds on */
} rt_snap;

/* A file the task holds a reference to until the checkpoint's outcome. */
typedef struct rt_held {
    uint64_t ckpt;                   /* 0: free */
    uint64_t file;
} rt_held;

/* Two-phase-commit sink: its transactions in the external system, which
 * outlive the task. Records are kept as sink_seen indexes in a ring;
 * transactions cover consecutive ranges and resolve oldest first. */
typedef enum txn_state {
    TXN_OPEN = 1,
    TXN_PRECOMMITTED,
    TXN_COMMITTED,                    /* Sink V2: resolved where it is, gone once every older one is */
    TXN_ABORTED,
} txn_state;

#define TXN_MAX 64u

typedef struct rt_txn {
    uint64_t  ckpt;                  /* pre-committed for this checkpoint (UINT64_MAX: at the end) */
    uint64_t  first, end;            /* ring positions */
    txn_state state;
} rt_txn;

typedef struct rt_txlog {
    uint32_t *recs;
    int64_t  *vals;                  /* with windows: each entry's value (a result's is the window's sum) */
    uint64_t  cap;
    uint64_t  head, tail;            /* ring positions of the oldest unresolved record, next free */
    rt_txn    txns[TXN_MAX];
    uint32_t  first, count;          /* txns ring */
    uint64_t  epoch;                 /* the attempt that restored it last: older ones are fenced */
} rt_txlog;

/* Sink V2 (model/tm/sinkv2.c). A writer's committables travel to its
 * committer as records in the data stream, ahead of the barrier: its
 * CommittableSummary (subtask, numberOfSubtasks, checkpoint, how many
 * committables) and then each CommittableWithLineage (checkpoint, subtask,
 * the committable: here the writer subtask whose transaction it names).
 * Their ids are outside the broker's (partition < 2^16 puts a record's id
 * below 2^56) and a window result's (bit 63). */
#define CMT_REC_BIT     (1ull << 62)
#define CMT_SUMMARY_BIT (1ull << 61)

static inline bool cmt_is_rec(uint64_t id) { return (id >> 62) == 1; }

/* A committer's CommittableCollector: one entry per checkpoint and
 * upstream subtask (its SubtaskCommittableManager), with what the summary
 * said and what arrived. A writer emits one committable per checkpoint at
 * most: a transaction, named by its writer subtask (txn_of). */
#define CMT_TXNS_MAX 4u

typedef struct rt_cmt {
    uint64_t ckpt;
    uint16_t subtask;                 /* the upstream subtask (its lineage) */
    uint16_t subtasks;                /* numberOfSubtasks its summary said */
    uint8_t  expected;                /* the summary's numberOfCommittables */
    uint8_t  received;
    uint8_t  txns_count;
    bool     committed : 1;           /* a committer with a global committer after it: committed, still to go on */
    bool     restored : 1;            /* read back from its snapshot (only the deliberate bug FLINK-29512 asks) */
    uint16_t txn_of[CMT_TXNS_MAX];    /* the writer subtasks whose transactions the committables name */
} rt_cmt;

/* Entries per upstream subtask: a writer's log holds TXN_MAX transactions,
 * and summaries of none wait with them while no completion comes
 * (model/tm/sinkv2.c). */
#define CMT_MAX (TXN_MAX + 64u)

/* The changelog state backend (FLIP-158; model/tm/clog.c): a task's
 * state changes since its last materialization, uploaded as segments at
 * checkpoints. A segment holds the keys written in its range of kstate
 * versions (from, to], each with its value as of `to`. */
#define CLOG_SEGS_MAX 16u

typedef struct rt_seg {
    uint32_t from, to;
    uint64_t file;                    /* 0: not uploaded (in flight, failed, or its snapshot dropped) */
    bool     full;                    /* uploaded with nothing materialized before it: a chain's first file */
} rt_seg;

typedef struct rt_clog {
    rt_chain     mat;                 /* the materialized part: its files, and `version`, its boundary (writes <= it) */
    uint64_t     mat_held;            /* the materialization's file, which the task holds a reference to (0: none) */
    uint64_t     mat_prev;            /* ... and the one before it, for snapshots begun before this one ended */
    rt_seg       segs[CLOG_SEGS_MAX];
    uint32_t     segs_count;
    uint32_t     last_to;             /* where the next segment starts */
    uint32_t     failed_to;           /* the newest failed upload's bound: persists fail until a materialization passes it */
    uint32_t     mat_snap;            /* a materialization in progress: its kstate snapshot (UINT32_MAX: none) */
    uint32_t     mat_failures;        /* consecutive failed materializations */
    bool         mat_past;            /* the deliberate bug FLINK-25987: that one's boundary goes one past */
    bool         mat_forced;          /* a long restored chain: materialize though nothing changed */
    uint64_t     mat_id;              /* materializations started (the nested backend's checkpoint ids) */
    sim_timer_id mat_timer;
} rt_clog;

typedef struct rt_out_edge {          /* a task's outputs of one edge */
    job_part part;
    uint32_t first;                   /* index into the task's outputs */
    uint32_t count;
    uint32_t rr;                      /* rebalance position */
    uint32_t max_parallelism;         /* hash: the consumer's key groups */
    uint32_t mp_shift;                /* log2 of it when a power of two, else JOB_MP_NOT_POW2 */
    uint32_t width;                   /* its channels: count is the first `count`, those of the attempt's consumers */
    uint32_t to;                      /* the consumer vertex */
    /* The edge's cursors when they are consecutive in tm_side's fills
     * (without slots a producer's channels of an edge are), else NULL:
     * a record then finds its output's cursor without out_fills. */
    chan_fill *fills;
} rt_out_edge;

typedef struct tm_side tm_side;

#define TASK_TS_MAX (2u * (PIPE_CONCURRENT_MAX + 1))

/* A task instance's life (the diagram and the moves: model/tm/task.c).
 * It moves only through task_life_to, which refuses a move the diagram
 * has not. */
typedef enum rt_life {
    LIFE_FREE = 0,                    /* runs no attempt: its slot is free (offered to the coordinator) */
    LIFE_RESTORING,                   /* deployed; reading the state its deployment names from the store */
    LIFE_REPLAYING,                   /* restored; replaying its input channel state before new input */
    LIFE_RUNNING,                     /* taking input */
    LIFE_ENDING,                      /* FLIP-147: its input ended (a source read its splits, an operator got end
                                         of data or of partition on every input); it sent end of data and waits
                                         for a checkpoint it triggered since (final_from) to complete */
    LIFE_FINISHED,                    /* done; the coordinator acknowledges for it */
} rt_life;

/* Field order is for the cache, not for reading: with a hash edge a run
 * has hundreds of tasks and every event touches one, so what an event's
 * handling reads (the hot scalars, the keyed state's header, the first
 * output edges, the gate's head) comes first and packs into a few lines;
 * the large and rarely touched parts (snapshots, chains, the priority
 * queue, replay, the deployment) follow. */
typedef struct rt_task {
    _Alignas(64) tm_side *owner;     /* the struct starts a cache line: its hot lines are whole */
    uint32_t          id;             /* the task */
    uint32_t          inst;           /* this instance of it (tm_side) */
    uint32_t          host;           /* which of the task's hosts it is: its machine with slots, else 0 */
    uint32_t          actor;
    const job_task   *jt;
    const job_vertex *v;
    rt_chan         **outs, **ins;    /* its connections by output and input (task_wire) */
    chan_fill       **out_fills;      /* by output: tm_fill of outs[i] (task_wire), what a record touches */
    uint64_t          epoch;          /* the job attempt it runs (or was cancelled for) */
    uint64_t          arrivals;
    /* Unconsumed input buffers in arrival order; those the pump found on
     * blocked channels wait in `parked` (older than any in `ready`) until
     * the gate's release count differs from `parked_releases`. */
    in_list           ready, parked;
    uint64_t          parked_releases;
    /* Outputs by what room() asks: counts of ring_short, queue_full and
     * filling channels among them, kept as the channels change. */
    uint32_t          outs_short, outs_full, outs_filling;
    uint32_t          busy_chan;
    sim_timer_id      flush_timer;
    rt_life           life;           /* where it is in its life (the diagram: model/tm/task.c) */
    bool              busy;           /* processing a data buffer */
    uint64_t          rpc_trigger;    /* a trigger sent to it as its upstream finished: taken once every input ended */
    uint32_t          data_open;      /* inputs without end of data or of partition */
    /* Up to out_edges_count, with those above: the flags and counts every
     * event reads, in the struct's third line (final_from and data_ended,
     * read at the ends of inputs only, are below). */
    bool              failure_reported;
    bool              failure_thrown;  /* a check of Flink's threw (a Sink V2 committer's), not a lost connection */
    bool              stateful;
    bool              align_due;      /* its timeout fired: switch when the task is free */
    bool              bp_on;          /* held up by backpressure since bp_since_ns */
    bool              source_waiting; /* a read is scheduled */
    bool              splits_final;   /* the enumerator will assign no more */
    bool              slot_timer;     /* a slot offer's retry is armed */
    uint32_t          syncing;        /* snapshots in their synchronous part: the task waits */
    uint32_t          prio_count;     /* priority barriers waiting in prio_queue */
    uint32_t          out_edges_count;
    uint32_t          triggers_queued;
    sim_time_ns       bp_since_ns;
    sim_time_ns       bp_ns;          /* backpressured in all, every attempt (instrumentation) */
    /* sources */
    uint32_t          parts_first, parts_count;   /* sources: partitions parts_first + i x parts_stride, i < parts_count: its topic's (p - first) % stride == subtask */
    uint32_t          parts_stride;   /* sources: the attempt's parallelism of its vertex (its deployment's) */
    uint32_t          parts_cap;      /* the most partitions it reads at any parallelism (snap_offsets' stride room) */
    uint32_t          parts_rr;
    uint64_t          splits;         /* bit i: partition subtask + i * parallelism is assigned to it */
    /* sinks */
    rt_txlog         *txlog;          /* two-phase commit, and a Sink V2 writer's */
    rt_cmt           *cmt;            /* Sink V2 committer: its collector (cmt_cap), then one copy per snapshot */
    uint32_t          cmt_count, cmt_cap;
    uint64_t          cmt_upto;       /* a global committer: the newest checkpoint it heard of (commits up to it) */
    uint32_t          cmt_snap_count[PIPE_CONCURRENT_MAX + 1];
    bool              eoi_emitted;    /* Sink V2 writer: its end-of-input committables went out this attempt */
    bool              finish_after_outbox;   /* Sink V2 committer without a final checkpoint: finish once they went */
    uint32_t          rpc_to_coord;
    uint32_t          conn_to_coord;  /* stream link: its break tells the coordinator */
    uint32_t          finished_retries;   /* FINISHED repeated so far (the wait doubles) */
    uint64_t          final_from;     /* ending: the first checkpoint it triggered since, 0: none yet */
    bool              final_done;     /* ending: that checkpoint completed; it finishes once every input ended */
    bool              final_kept;     /* its map is the final state of an attempt that finished (snap_clear) */
    uint64_t          data_ended[JOB_TASK_CHANNELS_MAX / 64];   /* bit i: input i brought end of data or of partition */
    kstate            state;          /* keyed aggregate, keyed join */
    rt_clog          *clog;           /* its changelog, with the changelog state backend (else NULL) */
    rt_out_edge       out_edges[JOB_EDGES_MAX];
    gate              g;
    uint64_t          trigger_queue[PIPE_CONCURRENT_MAX + 1];
    sim_time_ns       align_start_ns; /* first barrier of the pending checkpoint ... */
    uint64_t          align_start_ckpt;   /* ... this one (a trigger of another, sent by the coordinator, aligned nothing) */
    uint64_t          ts_ckpt[TASK_TS_MAX];   /* checkpoints' timestamps the task learned (ring) */
    sim_time_ns       ts_ns[TASK_TS_MAX];
    uint8_t           ts_type[TASK_TS_MAX];   /* their types (proto_ck_type) */
    uint32_t          ts_next;
    uint64_t          last_seen_ckpt; /* newest checkpoint it triggered or declined */
    uint64_t          stop_ckpt;      /* a stop's savepoint it took (SavepointType.suspend): it finishes once
                                         that completes, and fails if it is aborted (0: none) */
    uint64_t          aborted[PIPE_CONCURRENT_MAX];   /* notified as aborted before it triggered them (ring) */
    uint32_t          aborted_next;
    sim_timer_id      align_timer;
    uint64_t          align_ckpt;     /* the aligned checkpoint the timer is for */
    /* snapshots (model/tm/snap.c) */
    rt_snap           snaps[PIPE_CONCURRENT_MAX + 1];
    rt_chain          base;           /* last confirmed (or restored) keyed-state chain */
    rt_chain          recent[PIPE_CONCURRENT_MAX + 1];   /* written, not yet confirmed: the task's references */
    rt_held           held_cs[PIPE_CONCURRENT_MAX + 1];  /* channel-state files likewise */
    uint64_t         *snap_offsets;   /* sources: parts_count positions per snapshot entry */
    uint64_t         *read_at;        /* sources: the next offset it reads, by partition: its own, as a reader's
                                         consumer is (a zombie of an older attempt reads on without moving the
                                         current reader of its old splits) */
    uint64_t          snap_splits[PIPE_CONCURRENT_MAX + 1];   /* sources: the splits each snapshot holds */
    uint64_t          final_file;     /* finished: its final state (held by the task) */
    uint64_t          prio_queue[GATE_CHANNELS_MAX];     /* priority barriers waiting: chan << 32 | index */
    msg_deploy        deploy;         /* what the deployment said */
    /* With slots: the hosts of the instances at the other ends of its
     * inputs and outputs, as the deployment said (NULL without slots). */
    uint8_t          *in_host, *out_host;
    /* restore: input channel state to replay before new input */
    model_rec         replay_recs[CHAN_BUF_RECORDS];   /* the batch being replayed */
    uint32_t          replay_chans[CHAN_BUF_RECORDS];
    uint32_t          replay_n;
    uint64_t          replay_file;    /* the restored checkpoint's channel-state file of this task */
    uint64_t          replay_pos;     /* its cursor */
    bool              replay_rescaled;/* a rescale's mapped file: its output records go out with the replay */
    /* event time (model/tm/evtime.c); none of it is in a snapshot: a
     * restored task derives its watermark again, as Flink does */
    win_wm            wm;             /* the task's watermark: over its inputs (a source's: over its splits) */
    win_wm            wm_sent;        /* the last one it sent on */
    sim_time_ns       wm_sent_ns;     /* source: when */
    win_wm           *split_max;      /* source with watermarks: by split, the highest event time read */
    win_wm            fire_to;        /* a risen watermark to send on (a window: after firing) while above wm_fired */
    win_wm            wm_fired;       /* the watermark sent on last (a window: every window due fired) */
    uint32_t          busy_pos;       /* > 0: the input buffer's records from there wait for that (a watermark among them) */
    uint32_t          resume_chan;    /* ... of that channel (busy_chan meanwhile: the firing's) */
    uint32_t          fire_pos;       /* window: the map position the firing looks at next */
    uint32_t          fire_from;      /* window: no live timer below this map position */
    uint32_t          fire_live;      /* window: the lowest live timer position the firing saw */
    uint32_t          fire_count, purge_count;   /* window: what the firing fired and purged (for the note) */
    uint32_t          restored_entries;   /* window: map positions below it came with the restored state */
    bool              end_after_fire; /* its input ended during a firing: end once it is done */
} rt_task;

/* Every TaskManager of the run.
 *
 * Instances: without slots a task runs on one machine, its instance is
 * the task (hosts = 1). With slots (`machines M slots S`) every machine
 * can run every task, so a task has one instance per machine (hosts = M),
 * each with its own state: an attempt that the coordinator moved away
 * from a paused machine lives on there as a zombie beside the new one.
 * Instance i = task * hosts + host. A connection of job channel c from
 * the producer's host hp to the consumer's hc is chans[(c * hosts + hp)
 * * hosts + hc], with a ring of its own, so that a zombie's buffers are
 * never the ones a new attempt fills. */
struct tm_side {
    pipe_world *w;
    rt_task    *tasks;                /* by instance */
    rt_chan    *chans;                /* by connection */
    chan_fill  *fills;                /* by connection: the producer's open buffer (tm_fill) */
    uint32_t    conns;
    uint32_t    hosts;
    uint32_t    chan_link0;           /* the first connection's data link; connection k's are 2k and 2k + 1 after it */
    uint32_t    snaps_max;            /* snapshots a task may hold at once */
};

static inline uint32_t tm_conn(const tm_side *tm, uint32_t jc, uint32_t hp, uint32_t hc) {
    return (jc * tm->hosts + hp) * tm->hosts + hc;
}

/* The read positions of the source instance t, by partition. */
static inline uint64_t *tm_offsets(const rt_task *t) {
    SIM_ASSERT(t->read_at != NULL);
    return t->read_at;
}

/* Protocol steps for the observers: the event's attempt is the task's. */
void tm_note(tm_side *tm, pipe_ev_kind kind, const rt_task *t, uint64_t ckpt);
void tm_note_ev(tm_side *tm, const rt_task *t, pipe_event *e);   /* t: the instance that took the step, or NULL */
/* The inputs a task's gate blocks, looked at before a step (only when
 * observed), so that the step's note can say what it unblocked. */
typedef struct tm_gate_view {
    bool     looked;
    uint64_t blocked[JOB_TASK_CHANNELS_MAX / 64];
} tm_gate_view;
void tm_gate_look(const tm_side *tm, const rt_task *t, tm_gate_view *v);
void tm_note_gate(tm_side *tm, pipe_ev_kind kind, const rt_task *t, uint32_t input, uint64_t ckpt, bool priority,
                  const tm_gate_view *before);
/* A step whose payload the caller filled (its kind, ckpt and named
 * fields): the task, and for a step that shows the gate what it blocks
 * (before: as tm_note_gate's), are filled here. */
void tm_note_step(tm_side *tm, const rt_task *t, pipe_event *e, const tm_gate_view *before);
/* What must hold of a task instance between any two of its events. */
void task_invariants(const rt_task *t);
/* The only way a task instance's life changes (asserts a move the
 * diagram has not). */
void task_life_to(rt_task *t, rt_life to);
/* Message steps (only while an observer takes them: world_msgs): a
 * message t put on `link` for `peer` (c, b: the channel and buffer of a
 * data message), and one delivered to t. */
void tm_note_send(tm_side *tm, const rt_task *t, uint32_t link, uint32_t peer, const sim_msg *m, bool ok,
                  const rt_chan *c, const chan_buf *b);
void tm_note_recv(tm_side *tm, const rt_task *t, const sim_event *ev);
void tm_note_watermark(tm_side *tm, const rt_task *t, int64_t wm);   /* for pictures: a watermark sent */

/* Task t's output i and input i: without slots a connection is its job
 * channel; with them, the one between this instance and the host the
 * deployment named. task_wire() looks them up once (at set-up, and at a
 * deployment with slots); every record goes through one. */
void task_wire(tm_side *tm, rt_task *t);

static inline rt_chan *task_out_chan(const tm_side *tm, const rt_task *t, uint32_t i) {
    (void)tm;
    SIM_ASSERT(i < t->jt->out_count);
    return t->outs[i];
}

static inline rt_chan *task_in_chan(const tm_side *tm, const rt_task *t, uint32_t i) {
    (void)tm;
    SIM_ASSERT(i < t->jt->in_count);
    return t->ins[i];
}

/* Connection c's open buffer (the producer's hot path finds it by
 * output, in out_fills, and reads nothing of the channel). */
static inline chan_fill *tm_fill(const tm_side *tm, const rt_chan *c) {
    SIM_ASSERT(c->id < tm->conns);
    return &tm->fills[c->id];
}

/* The buffer being filled says how many records it holds (readers of an
 * open buffer call this first; the producer keeps the count in the
 * channel's chan_fill and stores it in the buffer when it closes it). */
static inline void chan_fill_sync(const tm_side *tm, const rt_chan *c) {
    chan_fill *f = tm_fill(tm, c);
    if (f->filling) f->buf->count = f->count;
}

/* model/tm/task.c */
void task_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
chan_buf *task_buf(rt_chan *c, uint64_t n);
void task_rpc(tm_side *tm, rt_task *t, uint32_t type, uint64_t ckpt);
/* Decline ckpt to the coordinator, saying why (a ckr_why). */
void task_decline(tm_side *tm, rt_task *t, uint64_t ckpt, uint32_t why);
/* An RPC to the coordinator (data: its payload, or NULL), told to message observers. */
void task_send_rpc(tm_side *tm, rt_task *t, const sim_msg *m, const void *data, uint32_t data_bytes);
void task_emit_to(tm_side *tm, rt_task *t, uint32_t out, const model_rec *r);   /* into output `out` */
void task_emit_on_edge(tm_side *tm, rt_task *t, uint32_t edge, const model_rec *r);   /* by job edge `edge`'s partitioning */
void task_emit(tm_side *tm, rt_task *t, const model_rec *r);     /* on every output edge, as the vertex partitions */
void task_emit_event(tm_side *tm, rt_task *t, buf_kind kind, uint64_t ckpt);   /* on every output */
void task_push_event(tm_side *tm, rt_chan *c, buf_kind kind, uint64_t ckpt);
void task_pump(tm_side *tm, rt_task *t);
/* A checkpoint's timestamp as a trigger or a barrier told it: learn it,
 * look it up (false: the task has not heard of the checkpoint). */
/* A checkpoint's timestamp and type (proto_ck_type), as a trigger or a
 * barrier told them; what the task knows of them (type 0 when unknown). */
void task_ts_learn(rt_task *t, uint64_t ckpt, sim_time_ns ts_ns, uint32_t type);
bool task_ts_of(const rt_task *t, uint64_t ckpt, sim_time_ns *ts_ns);
uint32_t task_type_of(const rt_task *t, uint64_t ckpt);
void task_fail(tm_side *tm, rt_task *t);             /* the task failed: it stops and reports */
/* Whether `task` runs in the attempt t's deployment names (rescaling:
 * the tasks above their vertex's parallelism do not). */
bool task_peer_runs(const tm_side *tm, const rt_task *t, uint32_t task);
sim_time_ns task_backpressure_ns(const tm_side *tm, const rt_task *t);   /* held up by backpressure, so far */
sim_timer_id task_timer(tm_side *tm, rt_task *t, sim_time_ns delay_ns, uint64_t tag);   /* tagged with the attempt */
static inline uint64_t task_io_tag(const rt_task *t, uint64_t tag) {
    return (t->epoch & 0xffffffu) << TASK_TAG_SHIFT | tag;
}

/* model/tm/snap.c: a task's side of a checkpoint (P2, P5, P6, P7). */
void snap_trigger(tm_side *tm, rt_task *t, uint64_t ckpt, bool unaligned);   /* forward barrier, sync part */
/* A synchronous part's time is over; a snapshot write ended. True when
 * the task may take input again: its caller (task.c, which alone drives
 * the task's loop) pumps. */
bool snap_sync_done(tm_side *tm, rt_task *t);
bool snap_io_done(tm_side *tm, rt_task *t, uint64_t tag, bool ok);
void snap_inputs_done(tm_side *tm, rt_task *t);                 /* the gate stopped collecting */
void snap_on_data(tm_side *tm, rt_task *t, rt_chan *c, const chan_buf *b);   /* unaligned: persist? */
void snap_abort(rt_task *t, uint64_t ckpt);                     /* declined or aborted: drop what it holds */
void snap_note_aborted(rt_task *t, uint64_t ckpt);              /* an abort notice before the trigger */
void snap_send_priority(tm_side *tm, rt_task *t, rt_chan *c, uint64_t ckpt);   /* a priority barrier */
void snap_barrier_sent(tm_side *tm, rt_task *t, uint64_t ckpt); /* an in-band barrier left a queue */
void snap_output_timeout(tm_side *tm, rt_task *t, uint64_t ckpt);   /* it waited past the timeout */
void snap_confirmed(tm_side *tm, rt_task *t, uint64_t ckpt);    /* notifyCheckpointComplete */
void snap_finish(tm_side *tm, rt_task *t);                      /* final state of a finished task */
void snap_clear(tm_side *tm, rt_task *t, bool died);            /* cancelled (or a new process): drop every snapshot */
uint64_t snap_restore_bytes(const tm_side *tm, const msg_deploy *d);   /* what restoring d reads */
void snap_restore(tm_side *tm, rt_task *t, const msg_deploy *d);  /* keyed state, sink transactions, channel state */
void snap_replay_done(tm_side *tm, rt_task *t);                 /* the input channel state is replayed */

/* model/tm/evtime.c: watermarks and windows. */
void evt_reset(tm_side *tm, rt_task *t);                         /* a new attempt: nothing seen */
void evt_source_batch(tm_side *tm, rt_task *t);                  /* a source read a batch: a watermark due? */
void evt_on_watermark(tm_side *tm, rt_task *t, rt_chan *c, win_wm wm);   /* an input's watermark */
void evt_window_apply(tm_side *tm, rt_task *t, const model_rec *r);     /* a record into its windows */
static inline bool evt_firing(const rt_task *t) { return t->fire_to > t->wm_fired; }   /* a watermark to send on */
uint32_t evt_fire_batch(tm_side *tm, rt_task *t);                /* results emitted, a buffer's worth at most; 0: sent on */
void evt_send(tm_side *tm, rt_task *t, win_wm wm);               /* a watermark into every output's buffer */
void evt_restored(tm_side *tm, rt_task *t);                      /* its state was restored: which windows came with it */

/* model/tm/sinktx.c: sinks' output (P10): plain, idempotent, two-phase commit. */
void sinktx_write(tm_side *tm, rt_task *t, const model_rec *r);          /* a broker record */
void sinktx_write_result(tm_side *tm, rt_task *t, const model_rec *r);   /* a window's result */
void sinktx_precommit(tm_side *tm, rt_task *t, uint64_t ckpt);
void sinktx_commit(tm_side *tm, rt_task *t, uint64_t ckpt);     /* every pre-committed <= ckpt */
void sinktx_restore(tm_side *tm, rt_task *t, uint64_t ckpt);    /* commit <= ckpt, abort the rest (and adopt) */
void sinktx_adopt(tm_side *tm, rt_task *t, uint64_t ckpt);      /* rescaled down: the old subtasks' transactions too */
void sinktx_finish(tm_side *tm, rt_task *t);
bool sinktx_prepare(tm_side *tm, rt_task *t, uint64_t ckpt);    /* Sink V2 writer: pre-commit; true: a transaction */
bool sinktx_commit_txn(tm_side *tm, rt_task *by, uint32_t writer, uint64_t ckpt, pipe_txn_why why);
void sinktx_v2_restore(tm_side *tm, rt_task *t, uint64_t ckpt); /* writer: abort what no completed checkpoint holds */

/* model/tm/clog.c: the changelog state backend (FLIP-158). */
#define IO_MATERIALIZE 3u                /* at a task, with an id above 0: tag id << 2 | 3 (0 << 2 | 3 is IO_RESTORE) */
void clog_start(tm_side *tm, rt_task *t);                        /* a deployment: its materialization timer */
void clog_trigger(tm_side *tm, rt_task *t, rt_snap *sn);         /* the sync part: its segment's range */
uint64_t clog_entries(const tm_side *tm, const rt_task *t, const rt_snap *sn);   /* what its upload writes */
uint64_t clog_upload(tm_side *tm, rt_task *t, const rt_snap *sn, rt_chain *c);   /* the segment; c: the chain; 0: failed */
void clog_upload_failed(rt_task *t, const rt_snap *sn);          /* its write failed */
void clog_materialize(tm_side *tm, rt_task *t);                  /* the timer: begin one */
void clog_materialized(tm_side *tm, rt_task *t, uint64_t id, bool ok);   /* its write ended */
void clog_restored(tm_side *tm, rt_task *t, const rt_chain *c);  /* restored from c: it is the materialized part */
void clog_clear(tm_side *tm, rt_task *t);                        /* cancelled or dead: no materialization runs */

/* model/tm/sinkv2.c: Sink V2's writer and committer (FLIP-191, FLIP-372). */
static inline bool sinkv2_writer(const rt_task *t) { return t->v->kind == JOB_SINK && t->v->sink == JOB_SINK_V2; }
/* Its outputs carry committables: no barrier of it overtakes them (FLINK-36287). */
static inline bool sinkv2_in_band(const rt_task *t) { return sinkv2_writer(t) || t->v->kind == JOB_COMMITTER; }
void sinkv2_emit(tm_side *tm, rt_task *t, uint64_t ckpt);       /* writer: prepareSnapshotPreBarrier's committables */
void sinkv2_end_input(tm_side *tm, rt_task *t);                 /* writer: endInput's */
void sinkv2_receive(tm_side *tm, rt_task *t, const model_rec *r);  /* committer: a summary or a committable */
void sinkv2_snapshot(tm_side *tm, rt_task *t, uint32_t snap);   /* committer: its collector into snapshot `snap` */
uint64_t sinkv2_snapshot_entries(const rt_task *t, uint32_t snap);
bool sinkv2_write(tm_side *tm, rt_task *t, uint32_t snap, uint64_t file);   /* ... into the file; false: no room */
void sinkv2_notified(tm_side *tm, rt_task *t, uint64_t ckpt);   /* committer: notifyCheckpointComplete */
bool sinkv2_restore(tm_side *tm, rt_task *t, const msg_deploy *d);   /* committer: initializeState; false: a file is gone */
void sinkv2_commit_restored(tm_side *tm, rt_task *t, uint64_t ckpt);   /* ... then commits up to the restored one */
void sinkv2_end_of_input(tm_side *tm, rt_task *t);              /* committer: its input ended */
uint32_t sinkv2_cap(const job *j, uint32_t vertex);             /* a committer's collector entries */
void sinkv2_upstream_ended(tm_side *tm, rt_task *t);            /* global committer: an input ended */
uint32_t sinkv2_outbox(const rt_task *t);                       /* committed batches still to go downstream */
void sinkv2_drain(tm_side *tm, rt_task *t);                     /* one of them downstream (room seen) */

#endif
