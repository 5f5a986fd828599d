/* sim/evq.c: two tiers. A 4-ary heap with hole-based sifting (elements are
 * moved into a hole, not swapped) over keys holds every event before the
 * horizon and those beyond the ring; a ring of EVQ_RING_N unsorted buckets
 * of 2^EVQ_RING_SHIFT ns each holds those in [horizon, horizon + span).
 * Bodies stay put in their slots either way.
 *
 * Invariant: the ring is empty, or the heap's least key is before the
 * horizon. Every bucketed event is at or after the horizon, so the heap's
 * root is then the least pending key and the peeks read it directly. A
 * push keeps it: into the ring only while it holds (or, with the ring
 * empty, after moving the horizon to the end of the root's bucket). When a
 * pop would break it, the first non-empty bucket (found through the
 * bitmap, in time order from the horizon's bucket) is poured into the
 * heap and the horizon moves to that bucket's end. Every bucketed event
 * is within one span of the horizon, so the ring never holds two laps.
 * Below EVQ_RING_MIN pending, pushes skip the ring. Nothing here depends
 * on anything but the sequence of pushes and pops.
 *
 * Heap layout: logical node k sits at physical index k + 3. Its children
 * are logical 4k+1 .. 4k+4, physical 4(k+1) .. 4(k+1)+3: a multiple of
 * four, so with a 64-byte aligned array and 16-byte keys all four children
 * are one cache line. Physical parent of p is (p - 4) / 4 + 3. */
#include "evq.h"

#define ROOT 3u
#define SLOT_MASK 0xffffffu
#define RING_W ((sim_time_ns)1 << EVQ_RING_SHIFT)
#define RING_SPAN ((sim_time_ns)EVQ_RING_N << EVQ_RING_SHIFT)

static inline bool key_before(const evq_key *a, const evq_key *b) {
    if (a->at_ns != b->at_ns) return a->at_ns < b->at_ns;
    return a->seqslot < b->seqslot;            /* push order breaks ties */
}

size_t evq_bytes(uint32_t capacity) {
    return ((size_t)capacity + ROOT + 4) * sizeof(evq_key)
         + (size_t)capacity * (sizeof(sim_event) + sizeof(uint32_t) + sizeof(evq_key))
         + EVQ_RING_N * sizeof(uint32_t) + EVQ_RING_WORDS * sizeof(uint64_t) + 64;
}

void evq_init(evq *q, arena *a, uint32_t capacity) {
    SIM_ASSERT(capacity >= 1);
    SIM_ASSERT(capacity <= SIM_EVENTS_PENDING_MAX);
    q->keys = arena_alloc(a, sizeof(evq_key) * ((size_t)capacity + ROOT + 4), 64);
    q->bodies = ARENA_NEW(a, sim_event, capacity);
    q->free_slots = ARENA_NEW(a, uint32_t, capacity);
    q->link = ARENA_NEW(a, evq_key, capacity);
    q->ring_head = ARENA_NEW(a, uint32_t, EVQ_RING_N);
    q->ring_bits = ARENA_NEW(a, uint64_t, EVQ_RING_WORDS);
    q->ring_summary = 0;
    q->horizon = 0;
    q->ring_count = 0;
    q->ring_ahead = EVQ_AHEAD_OFF;
    /* Slot 0 on top of the free stack, so a fresh queue fills slots in order. */
    for (uint32_t i = 0; i < capacity; i++) q->free_slots[i] = capacity - 1 - i;
    q->free_count = capacity;
    q->count = 0;
    q->capacity = capacity;
    q->peak = 0;
    q->seq_next = 0;
    q->last_seq = 0;
}

/* The heap holds n keys; add one. */
static inline void heap_insert(evq *q, uint32_t n, evq_key key) {
    uint32_t hole = ROOT + n;
    while (hole > ROOT) {
        uint32_t parent = (hole - 4u) / 4u + ROOT;
        if (!key_before(&key, &q->keys[parent])) break;
        q->keys[hole] = q->keys[parent];
        hole = parent;
    }
    q->keys[hole] = key;
}

static inline void ring_insert(evq *q, sim_time_ns at_ns, uint64_t seq, uint32_t slot) {
    uint32_t b = (uint32_t)(at_ns >> EVQ_RING_SHIFT) & (EVQ_RING_N - 1u);
    uint64_t bit = 1ull << (b & 63u);
    uint32_t next = slot;                      /* the only one: it ends the list */
    if (q->ring_bits[b >> 6] & bit) {
        next = q->ring_head[b];
    } else {
        q->ring_bits[b >> 6] |= bit;
        q->ring_summary |= 1ull << (b >> 6);
    }
    q->link[slot] = (evq_key){ .at_ns = at_ns, .seqslot = (seq << 24) | next };
    q->ring_head[b] = slot;
    q->ring_count++;
}

/* The first non-empty bucket in time order: from the horizon's bucket
 * around the ring. The ring must not be empty. */
static uint32_t ring_first(const evq *q) {
    uint32_t from = (uint32_t)(q->horizon >> EVQ_RING_SHIFT) & (EVQ_RING_N - 1u);
    uint32_t w = from >> 6;
    uint64_t bits = q->ring_bits[w] & (~0ull << (from & 63u));
    if (bits) return w << 6 | (uint32_t)__builtin_ctzll(bits);
    uint64_t later = q->ring_summary & (~1ull << w);   /* words after w */
    if (later == 0) later = q->ring_summary;           /* wrapped: before from */
    SIM_ASSERT(later != 0);
    w = (uint32_t)__builtin_ctzll(later);
    return w << 6 | (uint32_t)__builtin_ctzll(q->ring_bits[w]);
}

/* Move the first non-empty bucket into the heap; the horizon goes to its
 * end, after every event poured and before every one left in the ring. */
static __attribute__((noinline)) void ring_pour(evq *q) {
    uint32_t b = ring_first(q);
    uint32_t from = (uint32_t)(q->horizon >> EVQ_RING_SHIFT) & (EVQ_RING_N - 1u);
    sim_time_ns start = q->horizon + ((sim_time_ns)((b - from) & (EVQ_RING_N - 1u)) << EVQ_RING_SHIFT);
    uint32_t slot = q->ring_head[b], n = 0;   /* the heap grows by n as the ring shrinks */
    for (;;) {
        evq_key l = q->link[slot];
        uint32_t next = (uint32_t)(l.seqslot & SLOT_MASK);
        SIM_ASSERT(l.at_ns - start < RING_W);   /* at or after start, in this bucket */
        heap_insert(q, q->count - q->ring_count + n, (evq_key){ .at_ns = l.at_ns, .seqslot = (l.seqslot & ~(uint64_t)SLOT_MASK) | slot });
        n++;
        if (next == slot) break;
        slot = next;
    }
    q->ring_bits[b >> 6] &= ~(1ull << (b & 63u));
    if (q->ring_bits[b >> 6] == 0) q->ring_summary &= ~(1ull << (b >> 6));
    SIM_ASSERT(n <= q->ring_count);
    q->ring_count -= n;
    /* Only the last bucket of time ends at 2^64, which wraps to 0: it is
     * then the ring's last event, and with the ring empty and the time
     * near its end, nothing is bucketed again (see ring_takes). */
    q->horizon = start + RING_W;
    /* With buckets this full (100,000 pending), the next bucket's list is
     * a long chain of dependent cache misses: walk it ahead, a step a pop
     * (ring_prefetch), so the next pour finds it in cache. */
    q->ring_ahead = EVQ_AHEAD_OFF;
    if (n >= EVQ_RING_AHEAD && q->ring_count > 0) q->ring_ahead = q->ring_head[ring_first(q)];
}

/* A hint only: ring_ahead is a slot, its link holds a slot index (a stale
 * one after a pour, which is harmless). The list ends at a self-link. */
static inline void ring_prefetch(evq *q) {
    uint32_t at = q->ring_ahead;
    uint32_t next = (uint32_t)(q->link[at].seqslot & SLOT_MASK);
    SIM_PREFETCH(&q->link[next]);
    q->ring_ahead = next == at ? EVQ_AHEAD_OFF : next;
}

/* Whether a push at at_ns goes to the ring: only with EVQ_RING_MIN events
 * pending, below which the heap alone is cheaper. With the ring empty the
 * horizon may move anywhere: to the end of the heap root's bucket, which
 * keeps the invariant. Called before the push is counted. */
static inline bool ring_takes(evq *q, sim_time_ns at_ns) {
    if (q->count < EVQ_RING_MIN) return false;
    if (q->ring_count == 0) {
        q->horizon = (q->keys[ROOT].at_ns & ~(RING_W - 1u)) + RING_W;   /* 0 in time's last bucket */
    }
    return at_ns - q->horizon < RING_SPAN;     /* before the horizon wraps to huge */
}

static inline __attribute__((always_inline)) sim_event *push(evq *q, sim_time_ns at_ns, uint64_t seq) {
    SIM_ASSERT(q->count < q->capacity);        /* raise events_pending_max */
    SIM_ASSERT(q->free_count > 0);
    uint32_t slot = q->free_slots[--q->free_count];
    if (ring_takes(q, at_ns)) {                /* the heap is unchanged: the invariant holds */
        ring_insert(q, at_ns, seq, slot);
    } else {
        heap_insert(q, q->count - q->ring_count, (evq_key){ .at_ns = at_ns, .seqslot = (seq << 24) | slot });
    }
    q->count++;
    if (q->count > q->peak) q->peak = q->count;
    SIM_ASSERT(q->count + q->free_count == q->capacity);
    return &q->bodies[slot];
}

sim_event *evq_push(evq *q, sim_time_ns at_ns) {
    SIM_ASSERT(q->seq_next <= EVQ_SEQ_MAX);
    return push(q, at_ns, q->seq_next++);
}

sim_event *evq_push_seq(evq *q, sim_time_ns at_ns, uint64_t seq) {
    /* A named seq was taken before (it is below seq_next), in either class:
     * the slot keeps keys unique even when a seq is pushed again. */
    SIM_ASSERT((seq & ~EVQ_SEQ_LATE) < q->seq_next);
    return push(q, at_ns, seq);
}

/* The pops to come copy bodies written about `count` pushes ago and, with
 * many pending, long evicted: start loading both lines a 48-byte body can
 * straddle, so the caller's work until then hides the miss. */
static inline void prefetch_body(const evq *q, uint32_t phys) {
    const char *b = (const char *)&q->bodies[q->keys[phys].seqslot & SLOT_MASK];
    SIM_PREFETCH(b);
    SIM_PREFETCH(b + sizeof(sim_event) - 1);
}

/* Of four siblings c .. c+3 (one cache line), the least: a tournament of
 * three compares with no loop around them. */
static inline uint32_t least_of_4(const evq_key *k, uint32_t c) {
    uint32_t a = key_before(&k[c + 1], &k[c]) ? c + 1 : c;
    uint32_t b = key_before(&k[c + 3], &k[c + 2]) ? c + 3 : c + 2;
    return key_before(&k[b], &k[a]) ? b : a;
}

/* The heap held n + 1 keys: fill the root's hole with the last, sifted down. */
static inline void heap_remove_root(evq *q, uint32_t n) {
    evq_key *k = q->keys;
    evq_key last = k[ROOT + n];
    uint32_t end = ROOT + n;                   /* first physical index not in heap */
    uint32_t hole = ROOT;
    for (;;) {
        uint32_t c = 4u * (hole - ROOT + 1u);  /* first child, physical */
        uint32_t best;
        if (c + 4u <= end) {                   /* all four children: the common case */
            best = least_of_4(k, c);
        } else {                               /* the last, partial node, or none */
            if (c >= end) break;
            best = c;
            for (uint32_t i = c + 1u; i < end; i++) {
                if (key_before(&k[i], &k[best])) best = i;
            }
        }
        if (!key_before(&k[best], &last)) break;
        k[hole] = k[best];
        hole = best;
    }
    k[hole] = last;
}

bool evq_pop(evq *q, sim_time_ns *at_ns, sim_event *out) {
    if (q->count == 0) return false;
    evq_key top = q->keys[ROOT];
    uint32_t slot = (uint32_t)(top.seqslot & SLOT_MASK);
    SIM_ASSERT(slot < q->capacity);
    *at_ns = top.at_ns;
    q->last_seq = top.seqslot >> 24;
    *out = q->bodies[slot];
    q->free_slots[q->free_count++] = slot;

    uint32_t rc = q->ring_count;
    SIM_ASSERT(q->count > rc);                 /* the invariant: the root is the least */
    uint32_t n = --q->count - rc;              /* left in the heap */
    if (n > 0) heap_remove_root(q, n);
    /* The ring is empty, or the heap's least must be before the horizon. */
    if (rc > 0) {
        if (n == 0 || q->keys[ROOT].at_ns >= q->horizon) ring_pour(q);
        else if (q->ring_ahead != EVQ_AHEAD_OFF) ring_prefetch(q);
    }
    if (q->count > 0) prefetch_body(q, ROOT);
    SIM_ASSERT(q->count + q->free_count == q->capacity);
    return true;
}
