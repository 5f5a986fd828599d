/* sim/evq.h: the pending-event set, in two tiers over a pool of event
 * bodies: a 4-ary min-heap of 16-byte keys (at_ns, seq << 24 | slot) for
 * the events before a horizon (and those too far ahead for the ring),
 * and a ring of EVQ_RING_N unsorted buckets, 2^EVQ_RING_SHIFT ns wide,
 * for those in [horizon, horizon + EVQ_RING_N << EVQ_RING_SHIFT); a bucket
 * is poured into the heap when the heap runs out of events before the
 * horizon (sim/evq.c has the invariant). Below EVQ_RING_MIN pending the
 * ring is not used.
 *
 * Contract:
 * - evq_pop() yields events in nondecreasing at_ns; events with equal at_ns
 *   pop in push order (seq is a per-queue counter), never in an order that
 *   depends on addresses, slots or the platform.
 * - A push may name its seq (evq_push_seq): a seq taken earlier with
 *   evq_seq_take(), or the seq of a popped event (evq.last_seq) to put it
 *   back in its old place among equals. Seqs with EVQ_SEQ_LATE set form the
 *   late class: at one at_ns every ordinary event pops before every late
 *   one, late ones among themselves by seq. The kernel parks the events of
 *   a paused actor there (sim/run.h). A run that never pushes a named seq
 *   pops exactly as before.
 * - evq_init() is the only call that allocates (from the run's arena). The
 *   queue holds at most `capacity` pending events; pushing more asserts.
 *   Bodies live in a slot pool with a LIFO free list, so steady state never
 *   allocates and a freed slot is reused while still in cache. The ring's
 *   lists run through a per-slot array beside the pool (evq_bytes()
 *   counts it all): nothing allocates after evq_init.
 * - Which tier holds an event, the bucket width and the horizon depend
 *   only on the sequence of pushes and pops, never on the wall clock or
 *   addresses; and the pop order is the same total order (at_ns, seq) as
 *   a single heap's: the tiers change the cost, not the order.
 *
 * Why this structure: measured, not assumed. 2-core reference machine,
 * 2026-12-01, shared with other jobs (load 1-2), so figures move by 10-30%
 * from one session to the next and only same-session ratios count:
 * medians of 5 alternating runs of `absim bench phold`, 10M events, each
 * variant dropped into this file in turn, same trace hash, next to the
 * bare loop (tests/bench/evq_variants.c -j 3: v3 below, no actors); each
 * column is one session:
 *                                                   1,000 LPs  100,000 LPs
 *     4-ary heap of 16-byte keys + body pool,
 *       next body prefetched (the heap tier)           21.3M       6.7M
 *     binary heap of the same keys                     18.6M       4.5M
 *     4-ary heap, least child chosen without branches  15.4M       5.4M
 *     (bare loop, same session                         16.4M       7.0M)
 *   a later session (load 2-4, medians of 3):
 *     the heap here, a full node's least child by a
 *       three-compare tournament (no loop)             20.4M       7.6M
 *     the same with the loop over the children         21.3M       8.1M
 *     calendar queue (below)                           18.6M       2.6M
 *     (bare loop, same session                         16.5M       6.8M)
 * Times there are within that session's noise; instructions are not
 * (callgrind, 2M events): the tournament executes 8% fewer at 1,000 LPs
 * and 11% fewer at 100,000 than the loop, and in `absim bench pipeline
 * --parallelism 32` (about 500 pending, 5 levels; 200,000 records)
 * evq_pop goes from 30.5M to 24.8M instructions (12.5M to 11.1M at
 * parallelism 1), which is why it is kept.
 * The branch-free sift loses: in the hold model a new event lands near the
 * bottom, so which child is least is predictable and selects only add
 * work. The queues measured against
 * it, the two tiers' widths and the alternatives not kept, with their
 * numbers: docs/PERFORMANCE.md, "The event queue".
 */
#ifndef SIM_EVQ_H
#define SIM_EVQ_H

#include "arena.h"

/* A message between actors. `type` and the two words are the model's; the
 * kernel fills `src` and never looks inside. Larger payloads live in model
 * pools and travel as indices (records move in buffers, not one by one). */
typedef struct sim_msg {
    uint32_t type;
    uint32_t src;      /* sending actor id */
    uint64_t a;
    uint64_t b;
} sim_msg;

/* An event body. Its time is in the heap key and in run->now_ns at dispatch. */
typedef struct sim_event {
    uint32_t dst;      /* actor id, or SIM_KERNEL for the kernel's own events */
    uint32_t epoch;    /* the run's crash epoch when scheduled: stale if dst crashed since (sim/run.h) */
    uint16_t kind;     /* sim_ev_kind */
    uint16_t flags;
    uint32_t aux;      /* link id, timer slot, device id or fault index */
    uint32_t gen;      /* link connection / timer generation, or I/O status */
    uint32_t payload;  /* SIM_EV_MSG: payload slot + 1 (link_send_payload), 0: none; not in the trace hash */
    sim_msg  msg;
} sim_event;

_Static_assert(sizeof(sim_event) == 48, "event bodies stay small");

typedef struct evq_key {
    sim_time_ns at_ns;
    uint64_t    seqslot;   /* seq << 24 | slot: unique, so order is total */
} evq_key;

#define EVQ_SEQ_LATE (1ull << 39)         /* the late class: after every ordinary key of its time */
#define EVQ_SEQ_MAX  (EVQ_SEQ_LATE - 1)   /* pushes per run: ~5.5e11 */

#define EVQ_RING_SHIFT 12u                /* bucket width: 2^12 ns, ~4 us (measured: see above) */
#define EVQ_RING_BITS  12u                /* 4,096 buckets: the ring spans ~16.8 ms */
#define EVQ_RING_MIN   64u                /* pending events below which the heap alone is used */
#define EVQ_RING_AHEAD 128u               /* a pour of this many walks the next bucket's list ahead */
#define EVQ_AHEAD_OFF  0xffffffffu
#define EVQ_RING_N     (1u << EVQ_RING_BITS)
#define EVQ_RING_WORDS ((EVQ_RING_N + 63u) / 64u)
_Static_assert(EVQ_RING_WORDS <= 64, "one summary word over the bucket bitmap");

typedef struct evq {
    evq_key   *keys;        /* the near heap; physical index = logical + 3 (cache-line trick) */
    sim_event *bodies;
    uint32_t  *free_slots;
    evq_key   *link;        /* per slot, a bucketed event's key: at_ns, seq << 24 | next slot (itself: the last) */
    uint32_t  *ring_head;   /* per bucket, its first slot (valid when its bit is set) */
    uint64_t  *ring_bits;   /* per bucket, non-empty */
    uint64_t   ring_summary;/* per word of ring_bits, non-zero */
    sim_time_ns horizon;    /* every bucketed event is at or after it; a multiple of the width */
    uint32_t   ring_count;  /* bucketed events */
    uint32_t   ring_ahead;  /* a slot in the next bucket's list, whose link is being prefetched; EVQ_AHEAD_OFF: none */
    uint32_t   free_count;
    uint32_t   count;       /* pending: in the heap and the ring */
    uint32_t   capacity;
    uint32_t   peak;
    uint64_t   seq_next;
    uint64_t   last_seq;    /* seq of the event evq_pop() returned last */
} evq;

/* Arena bytes evq_init takes for `capacity`, without alignment padding. */
size_t evq_bytes(uint32_t capacity);

void evq_init(evq *q, arena *a, uint32_t capacity);

/* Reserve an event at at_ns and return its body for the caller to fill
 * before the next evq call. */
sim_event *evq_push(evq *q, sim_time_ns at_ns);

/* evq_push with a named seq (a fresh one from evq_seq_take(), possibly
 * with EVQ_SEQ_LATE set, or an old one from last_seq): its order among
 * events of equal at_ns. */
sim_event *evq_push_seq(evq *q, sim_time_ns at_ns, uint64_t seq);

/* A fresh seq, after every seq pushed so far. */
static inline uint64_t evq_seq_take(evq *q) {
    SIM_ASSERT(q->seq_next <= EVQ_SEQ_MAX);
    return q->seq_next++;
}

/* Remove the earliest event: its time into *at_ns and its body into *out.
 * False when the queue is empty. */
bool evq_pop(evq *q, sim_time_ns *at_ns, sim_event *out);

static inline bool evq_empty(const evq *q) { return q->count == 0; }

/* Time of the earliest event; the queue must not be empty. */
static inline sim_time_ns evq_peek_ns(const evq *q) {
    SIM_ASSERT(q->count > 0);
    return q->keys[3].at_ns;
}

/* Body of the earliest event, to look at before it is popped (the kernel
 * prefetches what it names); the queue must not be empty. */
static inline const sim_event *evq_peek_body(const evq *q) {
    SIM_ASSERT(q->count > 0);
    return &q->bodies[q->keys[3].seqslot & 0xffffffu];
}

/* Seq of the earliest event; the queue must not be empty. */
static inline uint64_t evq_peek_seq(const evq *q) {
    SIM_ASSERT(q->count > 0);
    return q->keys[3].seqslot >> 24;
}

#endif
