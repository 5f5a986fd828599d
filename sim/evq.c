/* sim/evq.c: 4-ary heap with hole-based sifting (elements are moved into a
 * hole, not swapped) over keys; bodies stay put in their slots.
 *
 * Layout: logical node k sits at physical index k + 3. Its children are
 * logical 4k+1 .. 4k+4, physical 4(k+1) .. 4(k+1)+3: a multiple of four, so
 * with a 64-byte aligned array and 16-byte keys all four children are one
 * cache line. Physical parent of p is (p - 4) / 4 + 3. */
#include "evq.h"

#define ROOT 3u

static inline bool key_before(const evq_key *a, const evq_key *b) {
    if (a->at_ns != b->at_ns) return a->at_ns < b->at_ns;
    return a->seqslot < b->seqslot;            /* push order breaks ties */
}

void evq_init(evq *q, arena *a, uint32_t capacity) {
    SIM_ASSERT(capacity >= 1);
    SIM_ASSERT(capacity <= SIM_EVENTS_PENDING_MAX);
    q->keys = arena_alloc(a, sizeof(evq_key) * ((size_t)capacity + ROOT + 4), 64);
    q->bodies = ARENA_NEW(a, sim_event, capacity);
    q->free_slots = ARENA_NEW(a, uint32_t, capacity);
    /* Slot 0 on top of the free stack, so a fresh queue fills slots in order. */
    for (uint32_t i = 0; i < capacity; i++) q->free_slots[i] = capacity - 1 - i;
    q->free_count = capacity;
    q->count = 0;
    q->capacity = capacity;
    q->peak = 0;
    q->seq_next = 0;
    q->last_seq = 0;
}

static inline sim_event *push(evq *q, sim_time_ns at_ns, uint64_t seq) {
    SIM_ASSERT(q->count < q->capacity);        /* raise events_pending_max */
    SIM_ASSERT(q->free_count > 0);
    uint32_t slot = q->free_slots[--q->free_count];
    evq_key key = { .at_ns = at_ns, .seqslot = (seq << 24) | slot };

    uint32_t hole = ROOT + q->count++;
    while (hole > ROOT) {
        uint32_t parent = (hole - 4u) / 4u + ROOT;
        if (!key_before(&key, &q->keys[parent])) break;
        q->keys[hole] = q->keys[parent];
        hole = parent;
    }
    q->keys[hole] = key;
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
    const char *b = (const char *)&q->bodies[q->keys[phys].seqslot & 0xffffffu];
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

bool evq_pop(evq *q, sim_time_ns *at_ns, sim_event *out) {
    if (q->count == 0) return false;
    evq_key top = q->keys[ROOT];
    uint32_t slot = (uint32_t)(top.seqslot & 0xffffffu);
    SIM_ASSERT(slot < q->capacity);
    *at_ns = top.at_ns;
    q->last_seq = top.seqslot >> 24;
    *out = q->bodies[slot];
    q->free_slots[q->free_count++] = slot;

    uint32_t n = --q->count;
    if (n > 0) {
        evq_key *k = q->keys;
        evq_key last = k[ROOT + n];
        uint32_t end = ROOT + n;               /* first physical index not in heap */
        uint32_t hole = ROOT;
        for (;;) {
            uint32_t c = 4u * (hole - ROOT + 1u); /* first child, physical */
            uint32_t best;
            if (c + 4u <= end) {               /* all four children: the common case */
                best = least_of_4(k, c);
            } else {                           /* the last, partial node, or none */
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
        prefetch_body(q, ROOT);
    }
    SIM_ASSERT(q->count + q->free_count == q->capacity);
    return true;
}
