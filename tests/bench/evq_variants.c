/*
 * evq_variants.c -- micro-benchmark of pending-event-set structures for a
 * discrete-event simulator, under the classic "hold" model used by PHOLD.
 *
 * What it measures
 *   N events are pending.  One step pops the minimum event, reads its body,
 *   and pushes one new event at
 *       popped.at_ns + 1000 (lookahead) + Exp(mean 1,000,000 ns)
 *   (uint64 nanoseconds) whose body is derived from the popped one.  Events
 *   are ordered by (at_ns, seq), seq being a global insertion counter, so
 *   equal times pop in insertion order.  The figure reported is million
 *   steps (one pop + one push) per second of the step loop alone; set-up and
 *   the untimed drain at the end are excluded.
 *
 * Variants
 *   v1  binary heap, whole events (key + body) stored by value, hole sift
 *   v2  4-ary heap, whole events stored by value, hole sift
 *   v3  4-ary heap of 16-byte keys {at_ns, seq<<24 | slot} plus a body pool
 *       with a LIFO free list; key array 64-byte aligned with the root at
 *       index 3, so the four children of any node fill exactly one line
 *   v4  binary heap of the same 16-byte keys plus body pool (1-based, so a
 *       pair of siblings never straddles a cache line)
 *   v5  calendar queue (R. Brown, CACM 31(10), 1988) with Brown's resize
 *       rules (double above 2 per bucket, halve below 1/2, width = 3 x the
 *       trimmed mean gap of up to 25 sampled front events), sorted bucket
 *       lists of pool slots, ties by seq
 *
 * Correctness check
 *   Each run folds the popped (at_ns, seq) sequence -- timed steps followed
 *   by an untimed drain of the N events left -- into an order-sensitive
 *   hash, the popped bodies into a second hash, and counts pops that are not
 *   strictly increasing in (at_ns, seq).  All runs of all variants for one
 *   N and seed must agree and the count must be 0, else the program prints
 *   MISMATCH and exits with status 1.
 *
 * Build and run (from the repository root)
 *   gcc -std=c11 -O2 -g -ffp-contract=off -Wall -Wextra -Werror \
 *       tests/bench/evq_variants.c -lm -o /tmp/evq_variants
 *   (clang with the same flags works too)
 *   /tmp/evq_variants                   N = 1000 and 100000, 1e7 steps, 5 reps
 *   /tmp/evq_variants -n 1000 -s 2000000 -r 3 -S 7
 *   /tmp/evq_variants 1000000           a bare number is the step count
 *   Options: -n N (repeatable), -s steps per run, -r repetitions, -S seed.
 *   -j K: run variant K (1..5) alone, one run per N and repetition, and
 *   print each as a JSON line with the keys of `absim bench phold`
 *   (events, wall_s, events_per_sec; order_hash instead of trace_hash), so
 *   tests/bench/bench.sh can alternate it with absim as the bare loop.
 *   Runs are interleaved (v1..v5, v1..v5, ...); the median over the reps is
 *   printed with the ratio to v3 (> 1 means faster than v3).  Run it on an
 *   otherwise idle machine.
 *
 *   The body fields listed in the design (dst, kind, inc, aux, gen, pad and
 *   a 24-byte message) add up to 48 bytes, so a by-value event is 64 bytes.
 *   Build with -DEVQ_BODY40 for a 40-byte body (aux and pad dropped, 56-byte
 *   event) to see how much the by-value heaps depend on that size.
 *
 *   In the pool variants the popped body was written about N steps earlier,
 *   so at large N reading it is likely a cache miss, and by default the load
 *   comes after the sift-down in program order.  -DEVQ_PREFETCH (GCC/Clang)
 *   prefetches it before the sift-down instead.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LOOKAHEAD_NS  UINT64_C(1000)
#define MEAN_DELAY_NS 1000000.0
#define SLOT_BITS     24
#define SLOT_MASK     ((UINT64_C(1) << SLOT_BITS) - 1)
#define NIL           UINT32_MAX
#define MAX_REPS      64
#define MAX_NS        16

/* ------------------------------------------------------------------------ */
/* Event layout                                                              */

struct msg {
    uint32_t type, src;
    uint64_t a, b;
};

struct body {
    uint32_t dst, kind, inc;
#ifndef EVQ_BODY40
    uint32_t aux;
#endif
    uint32_t gen;
#ifndef EVQ_BODY40
    uint32_t pad;
#endif
    struct msg m;
};

struct event {                 /* by-value element of v1 and v2 */
    uint64_t at, seq;
    struct body b;
};

typedef struct {               /* heap element of v3 and v4 */
    uint64_t at, ss;           /* ss = seq << SLOT_BITS | slot */
} key16;

_Static_assert(sizeof(struct msg) == 24, "message must be 24 bytes");
#ifdef EVQ_BODY40
_Static_assert(sizeof(struct body) == 40, "body must be 40 bytes");
#else
_Static_assert(sizeof(struct body) == 48, "body must be 48 bytes");
#endif
_Static_assert(sizeof(key16) == 16, "key must be 16 bytes");

static inline int ev_less(uint64_t at, uint64_t seq, const struct event *e)
{
    return at < e->at || (at == e->at && seq < e->seq);
}

static inline int key_less(const key16 *a, const key16 *b)
{
    return a->at < b->at || (a->at == b->at && a->ss < b->ss);
}

/* -DEVQ_PREFETCH: the pool variants prefetch the popped body before the
 * sift-down / bucket unlink instead of loading it after (GCC/Clang only). */
#if defined(EVQ_PREFETCH) && defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

static void *alloc64(size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* ------------------------------------------------------------------------ */
/* PCG32 (O'Neill, XSH-RR) and the workload shared by all variants           */

typedef struct {
    uint64_t state, inc;
} pcg32;

static inline uint32_t pcg32_next(pcg32 *r)
{
    uint64_t old = r->state;
    r->state = old * UINT64_C(6364136223846793005) + r->inc;
    uint32_t xs = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (xs >> rot) | (xs << ((32u - rot) & 31u));
}

static void pcg32_seed(pcg32 *r, uint64_t initstate, uint64_t initseq)
{
    r->state = 0;
    r->inc = (initseq << 1) | 1u;
    pcg32_next(r);
    r->state += initstate;
    pcg32_next(r);
}

static inline uint64_t exp_delay(pcg32 *r)
{
    double u = ((double)pcg32_next(r) + 0.5) * (1.0 / 4294967296.0);
    return (uint64_t)(-MEAN_DELAY_NS * log(u));
}

typedef struct {
    pcg32 rng;
    uint64_t next_seq;
    uint64_t key_ck, body_ck;   /* order-sensitive hashes of what was popped */
    uint64_t last_at, last_seq;
    uint64_t order_err;         /* pops not strictly after the previous one */
} sim;

static void sim_init(sim *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    pcg32_seed(&s->rng, seed, UINT64_C(0x9e3779b97f4a7c15));
    s->key_ck = UINT64_C(0xcbf29ce484222325);
    s->body_ck = UINT64_C(0x84222325cbf29ce4);
}

/* Initial event i: time and body. */
static uint64_t sim_first(sim *s, uint64_t i, struct body *b)
{
    memset(b, 0, sizeof *b);
    b->dst = (uint32_t)i;
    b->kind = (uint32_t)(i & 3);
    b->inc = 1;
#ifndef EVQ_BODY40
    b->aux = (uint32_t)(i * 7);
#endif
    b->m.type = (uint32_t)(i % 5);
    b->m.src = (uint32_t)i;
    b->m.a = i;
    b->m.b = ~i;
    return LOOKAHEAD_NS + exp_delay(&s->rng);
}

/* Account for a popped event: checksums and order check. */
static inline void sim_pop(sim *s, uint64_t at, uint64_t seq,
                           const struct body *b)
{
    const uint64_t k = UINT64_C(0x100000001b3);
    s->order_err += (at < s->last_at) |
                    ((at == s->last_at) & (seq <= s->last_seq));
    s->last_at = at;
    s->last_seq = seq;
    s->key_ck = ((s->key_ck ^ at) * k ^ seq) * k;
    s->body_ck = (s->body_ck ^ b->dst ^ b->m.a) * k;
}

/* The new event's body (written to *out, which must not alias *in) and
 * time; exactly one random draw per pushed event. */
static inline uint64_t sim_next(sim *s, uint64_t now, const struct body *in,
                                struct body *out)
{
    out->dst = in->dst * 2654435761u + in->inc;
    out->kind = in->kind ^ 1u;
    out->inc = in->inc + 1u;
#ifndef EVQ_BODY40
    out->aux = in->aux ^ in->m.src;
    out->pad = 0;
#endif
    out->gen = in->gen + 1u;
    out->m.type = in->m.type + in->kind;
    out->m.src = in->dst;
    out->m.a = in->m.b + now;
    out->m.b = in->m.a ^ in->gen;
    return now + LOOKAHEAD_NS + exp_delay(&s->rng);
}

/* ------------------------------------------------------------------------ */
/* Body pool with a LIFO free list (v3, v4, v5)                              */

typedef struct {
    struct body *b;
    uint32_t *free;
    uint32_t nfree;
} pool;

static int pool_init(pool *p, size_t cap)
{
    p->b = alloc64(cap * sizeof *p->b);
    p->free = malloc(cap * sizeof *p->free);
    if (!p->b || !p->free)
        return -1;
    for (size_t i = 0; i < cap; i++)    /* slot 0 is handed out first */
        p->free[i] = (uint32_t)(cap - 1 - i);
    p->nfree = (uint32_t)cap;
    return 0;
}

static void pool_destroy(pool *p)
{
    free(p->b);
    free(p->free);
}

static inline uint32_t pool_alloc(pool *p)
{
    return p->free[--p->nfree];
}

static inline void pool_release(pool *p, uint32_t slot)
{
    p->free[p->nfree++] = slot;
}

/*
 * Every variant X provides, for the generic run loop below:
 *   int  X_init(X_q *, size_t cap)
 *   void X_push(X_q *, uint64_t at, uint64_t seq, const struct body *)
 *   const struct body *X_pop(X_q *, uint64_t *at, uint64_t *seq)
 *        (the body pointer stays valid until the next push)
 *   void X_free(X_q *)
 *   and a member n, the number of pending events.
 */

/* ------------------------------------------------------------------------ */
/* v1: binary heap of whole events, 0-based, hole-based sift                 */

typedef struct {
    struct event *h;
    size_t n;
    struct event out;
} v1_q;

static int v1_init(v1_q *q, size_t cap)
{
    q->n = 0;
    q->h = alloc64(cap * sizeof *q->h);
    return q->h ? 0 : -1;
}

static void v1_free(v1_q *q)
{
    free(q->h);
}

static inline void v1_push(v1_q *q, uint64_t at, uint64_t seq,
                           const struct body *b)
{
    struct event *h = q->h;
    size_t hole = q->n++;
    while (hole > 0) {
        size_t p = (hole - 1) / 2;
        if (!ev_less(at, seq, &h[p]))
            break;
        h[hole] = h[p];
        hole = p;
    }
    h[hole].at = at;
    h[hole].seq = seq;
    h[hole].b = *b;
}

static inline const struct body *v1_pop(v1_q *q, uint64_t *at, uint64_t *seq)
{
    struct event *h = q->h;
    q->out = h[0];
    size_t n = --q->n;
    if (n > 0) {
        const struct event *last = &h[n];  /* outside [0, n): never written */
        size_t hole = 0;
        for (;;) {
            size_t c = 2 * hole + 1;
            if (c >= n)
                break;
            if (c + 1 < n && ev_less(h[c + 1].at, h[c + 1].seq, &h[c]))
                c++;
            if (!ev_less(h[c].at, h[c].seq, last))
                break;
            h[hole] = h[c];
            hole = c;
        }
        h[hole] = *last;
    }
    *at = q->out.at;
    *seq = q->out.seq;
    return &q->out.b;
}

/* ------------------------------------------------------------------------ */
/* v2: 4-ary heap of whole events, 0-based, hole-based sift                  */

typedef struct {
    struct event *h;
    size_t n;
    struct event out;
} v2_q;

static int v2_init(v2_q *q, size_t cap)
{
    q->n = 0;
    q->h = alloc64(cap * sizeof *q->h);
    return q->h ? 0 : -1;
}

static void v2_free(v2_q *q)
{
    free(q->h);
}

static inline void v2_push(v2_q *q, uint64_t at, uint64_t seq,
                           const struct body *b)
{
    struct event *h = q->h;
    size_t hole = q->n++;
    while (hole > 0) {
        size_t p = (hole - 1) / 4;
        if (!ev_less(at, seq, &h[p]))
            break;
        h[hole] = h[p];
        hole = p;
    }
    h[hole].at = at;
    h[hole].seq = seq;
    h[hole].b = *b;
}

static inline const struct body *v2_pop(v2_q *q, uint64_t *at, uint64_t *seq)
{
    struct event *h = q->h;
    q->out = h[0];
    size_t n = --q->n;
    if (n > 0) {
        const struct event *last = &h[n];
        size_t hole = 0;
        for (;;) {
            size_t c = 4 * hole + 1;
            if (c >= n)
                break;
            size_t end = c + 4 < n ? c + 4 : n, best = c;
            for (size_t j = c + 1; j < end; j++)
                if (ev_less(h[j].at, h[j].seq, &h[best]))
                    best = j;
            if (!ev_less(h[best].at, h[best].seq, last))
                break;
            h[hole] = h[best];
            hole = best;
        }
        h[hole] = *last;
    }
    *at = q->out.at;
    *seq = q->out.seq;
    return &q->out.b;
}

/* ------------------------------------------------------------------------ */
/* v3: 4-ary heap of 16-byte keys + body pool.                               */
/* Root at index 3: node p has children 4p-8 .. 4p-5 (a 64-byte aligned      */
/* group of four keys) and parent p/4 + 2.  Live keys are k[3 .. 3+n).       */

#define V3_ROOT 3

typedef struct {
    key16 *k;
    size_t n;
    pool p;
} v3_q;

static int v3_init(v3_q *q, size_t cap)
{
    q->n = 0;
    q->k = alloc64((cap + V3_ROOT) * sizeof *q->k);
    if (!q->k || pool_init(&q->p, cap) != 0)
        return -1;
    return 0;
}

static void v3_free(v3_q *q)
{
    free(q->k);
    pool_destroy(&q->p);
}

static inline void v3_push(v3_q *q, uint64_t at, uint64_t seq,
                           const struct body *b)
{
    uint32_t slot = pool_alloc(&q->p);
    q->p.b[slot] = *b;
    key16 nk = { at, seq << SLOT_BITS | slot };
    key16 *k = q->k;
    size_t hole = V3_ROOT + q->n++;
    while (hole > V3_ROOT) {
        size_t p = hole / 4 + 2;
        if (!key_less(&nk, &k[p]))
            break;
        k[hole] = k[p];
        hole = p;
    }
    k[hole] = nk;
}

static inline const struct body *v3_pop(v3_q *q, uint64_t *at, uint64_t *seq)
{
    key16 *k = q->k;
    key16 top = k[V3_ROOT];
    PREFETCH(&q->p.b[top.ss & SLOT_MASK]);
    size_t end = V3_ROOT + --q->n;         /* one past the last live key */
    if (end > V3_ROOT) {
        const key16 *last = &k[end];
        size_t hole = V3_ROOT;
        for (;;) {
            size_t c = 4 * hole - 8;
            if (c >= end)
                break;
            size_t lim = c + 4 < end ? c + 4 : end, best = c;
            for (size_t j = c + 1; j < lim; j++)
                if (key_less(&k[j], &k[best]))
                    best = j;
            if (!key_less(&k[best], last))
                break;
            k[hole] = k[best];
            hole = best;
        }
        k[hole] = *last;
    }
    uint32_t slot = (uint32_t)(top.ss & SLOT_MASK);
    pool_release(&q->p, slot);   /* body stays intact until the next push */
    *at = top.at;
    *seq = top.ss >> SLOT_BITS;
    return &q->p.b[slot];
}

/* ------------------------------------------------------------------------ */
/* v4: binary heap of 16-byte keys + body pool, 1-based: children of p are   */
/* 2p and 2p+1, sharing a 32-byte aligned half line.  Live keys k[1 .. n].   */

typedef struct {
    key16 *k;
    size_t n;
    pool p;
} v4_q;

static int v4_init(v4_q *q, size_t cap)
{
    q->n = 0;
    q->k = alloc64((cap + 1) * sizeof *q->k);
    if (!q->k || pool_init(&q->p, cap) != 0)
        return -1;
    return 0;
}

static void v4_free(v4_q *q)
{
    free(q->k);
    pool_destroy(&q->p);
}

static inline void v4_push(v4_q *q, uint64_t at, uint64_t seq,
                           const struct body *b)
{
    uint32_t slot = pool_alloc(&q->p);
    q->p.b[slot] = *b;
    key16 nk = { at, seq << SLOT_BITS | slot };
    key16 *k = q->k;
    size_t hole = ++q->n;
    while (hole > 1) {
        size_t p = hole / 2;
        if (!key_less(&nk, &k[p]))
            break;
        k[hole] = k[p];
        hole = p;
    }
    k[hole] = nk;
}

static inline const struct body *v4_pop(v4_q *q, uint64_t *at, uint64_t *seq)
{
    key16 *k = q->k;
    key16 top = k[1];
    PREFETCH(&q->p.b[top.ss & SLOT_MASK]);
    size_t n = --q->n;
    if (n > 0) {
        const key16 *last = &k[n + 1];
        size_t hole = 1;
        for (;;) {
            size_t c = 2 * hole;
            if (c > n)
                break;
            if (c < n && key_less(&k[c + 1], &k[c]))
                c++;
            if (!key_less(&k[c], last))
                break;
            k[hole] = k[c];
            hole = c;
        }
        k[hole] = *last;
    }
    uint32_t slot = (uint32_t)(top.ss & SLOT_MASK);
    pool_release(&q->p, slot);
    *at = top.at;
    *seq = top.ss >> SLOT_BITS;
    return &q->p.b[slot];
}

/* ------------------------------------------------------------------------ */
/* v5: calendar queue (Brown 1988).                                          */
/* nb buckets (a power of two) of width ns; an event at time t lives in      */
/* bucket (t / width) mod nb, in a singly linked list sorted by (at, seq).   */
/* The current window is [top - width, top) in bucket cur; the queue floor   */
/* last_at (time of the last pop) lies in it, and no pending event is below  */
/* it (the hold model never schedules into the past).                        */

#define CQ_MIN_BUCKETS 2u
#define CQ_MAX_SAMPLE  25

typedef struct {
    uint64_t at, seq;
    uint32_t next;
} cq_node;

typedef struct {
    cq_node *node;       /* per slot: key and list link */
    pool p;              /* per slot: body; LIFO free list */
    uint32_t *head;      /* per bucket: first slot or NIL */
    uint32_t nb, mask;
    uint64_t width;
    size_t n;
    uint32_t cur;
    uint64_t top;
    uint64_t last_at;
} v5_q;

static inline int node_less(const cq_node *a, const cq_node *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void cq_set_window(v5_q *q, uint64_t t)
{
    uint64_t vb = t / q->width;
    q->cur = (uint32_t)(vb & q->mask);
    q->top = (vb + 1) * q->width;
}

static inline void cq_link(v5_q *q, uint32_t s)
{
    cq_node *nd = q->node, *e = &nd[s];
    uint32_t *pp = &q->head[(e->at / q->width) & q->mask];
    while (*pp != NIL && node_less(&nd[*pp], e))
        pp = &nd[*pp].next;
    e->next = *pp;
    *pp = s;
    q->n++;
}

static inline uint32_t cq_unlink_min(v5_q *q)
{
    cq_node *nd = q->node;
    uint32_t b = q->cur, i;
    uint64_t top = q->top;
    for (i = 0; i < q->nb; i++) {
        uint32_t s = q->head[b];
        if (s != NIL && nd[s].at < top)
            break;
        b = (b + 1) & q->mask;
        top += q->width;
    }
    if (i < q->nb) {
        q->cur = b;
        q->top = top;
    } else {
        /* A whole year without a due event: direct search for the minimum,
         * which is the head of its bucket, and jump there. */
        uint32_t best = NIL;
        for (uint32_t j = 0; j < q->nb; j++) {
            uint32_t s = q->head[j];
            if (s != NIL && (best == NIL || node_less(&nd[s], &nd[best]))) {
                best = s;
                b = j;
            }
        }
        cq_set_window(q, nd[best].at);
    }
    uint32_t s = q->head[b];
    PREFETCH(&q->p.b[s]);
    q->head[b] = nd[s].next;
    q->n--;
    q->last_at = nd[s].at;
    return s;
}

/* Brown's width estimate: dequeue up to 25 front events, average their
 * gaps, average again only the gaps below twice that, and use 3x that.
 * The sampled events are put back and the window restored. */
static uint64_t cq_sample_width(v5_q *q)
{
    if (q->n < 2)
        return 1;
    size_t ns = q->n <= 5 ? q->n : 5 + q->n / 10;
    if (ns > CQ_MAX_SAMPLE)
        ns = CQ_MAX_SAMPLE;
    uint32_t slot[CQ_MAX_SAMPLE];
    uint64_t t[CQ_MAX_SAMPLE];
    uint32_t cur = q->cur;
    uint64_t top = q->top, last_at = q->last_at;
    for (size_t i = 0; i < ns; i++) {
        slot[i] = cq_unlink_min(q);
        t[i] = q->node[slot[i]].at;
    }
    for (size_t i = 0; i < ns; i++)
        cq_link(q, slot[i]);
    q->cur = cur;
    q->top = top;
    q->last_at = last_at;

    double avg = (double)(t[ns - 1] - t[0]) / (double)(ns - 1), sum = 0;
    size_t cnt = 0;
    for (size_t i = 1; i < ns; i++) {
        double d = (double)(t[i] - t[i - 1]);
        if (d < 2.0 * avg) {
            sum += d;
            cnt++;
        }
    }
    double w = cnt ? 3.0 * sum / (double)cnt : 3.0 * avg;
    return w < 1.0 ? 1 : (uint64_t)(w + 0.5);
}

static void cq_resize(v5_q *q, uint32_t nb)
{
    uint64_t width = cq_sample_width(q);
    uint32_t *nh = malloc((size_t)nb * sizeof *nh);
    if (!nh) {
        fprintf(stderr, "evq_variants: out of memory in calendar resize\n");
        exit(2);
    }
    for (uint32_t b = 0; b < nb; b++)
        nh[b] = NIL;
    uint32_t *oh = q->head, onb = q->nb;
    q->head = nh;
    q->nb = nb;
    q->mask = nb - 1;
    q->width = width;
    q->n = 0;
    cq_set_window(q, q->last_at);
    for (uint32_t b = 0; b < onb; b++) {
        for (uint32_t s = oh[b], next; s != NIL; s = next) {
            next = q->node[s].next;
            cq_link(q, s);
        }
    }
    free(oh);
}

static int v5_init(v5_q *q, size_t cap)
{
    memset(q, 0, sizeof *q);
    q->node = malloc(cap * sizeof *q->node);
    q->head = malloc(CQ_MIN_BUCKETS * sizeof *q->head);
    if (!q->node || !q->head || pool_init(&q->p, cap) != 0)
        return -1;
    q->nb = CQ_MIN_BUCKETS;
    q->mask = q->nb - 1;
    for (uint32_t b = 0; b < q->nb; b++)
        q->head[b] = NIL;
    q->width = 1;
    q->last_at = 0;
    cq_set_window(q, 0);
    return 0;
}

static void v5_free(v5_q *q)
{
    free(q->node);
    free(q->head);
    pool_destroy(&q->p);
}

static inline void v5_push(v5_q *q, uint64_t at, uint64_t seq,
                           const struct body *b)
{
    uint32_t s = pool_alloc(&q->p);
    q->p.b[s] = *b;
    q->node[s].at = at;
    q->node[s].seq = seq;
    cq_link(q, s);
    if (q->n > 2 * (size_t)q->nb)
        cq_resize(q, q->nb * 2);
}

static inline const struct body *v5_pop(v5_q *q, uint64_t *at, uint64_t *seq)
{
    uint32_t s = cq_unlink_min(q);
    if (q->nb > CQ_MIN_BUCKETS && q->n < q->nb / 2)
        cq_resize(q, q->nb / 2);
    pool_release(&q->p, s);
    *at = q->node[s].at;
    *seq = q->node[s].seq;
    return &q->p.b[s];
}

/* ------------------------------------------------------------------------ */
/* Generic hold-model run, instantiated once per variant                     */

typedef struct {
    double secs;
    uint64_t key_ck, body_ck, order_err;
} run_result;

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define DEFINE_RUN(V)                                                       \
    static int V##_run(size_t n, uint64_t steps, uint64_t seed,             \
                       run_result *r)                                       \
    {                                                                       \
        V##_q q;                                                            \
        sim s;                                                              \
        if (V##_init(&q, n + 1) != 0)                                       \
            return -1;                                                      \
        sim_init(&s, seed);                                                 \
        for (size_t i = 0; i < n; i++) {                                    \
            struct body b;                                                  \
            uint64_t at = sim_first(&s, i, &b);                             \
            V##_push(&q, at, s.next_seq++, &b);                             \
        }                                                                   \
        double t0 = now_sec();                                              \
        for (uint64_t i = 0; i < steps; i++) {                              \
            uint64_t at, seq;                                               \
            const struct body *b = V##_pop(&q, &at, &seq);                  \
            sim_pop(&s, at, seq, b);                                        \
            struct body nb;                                                 \
            uint64_t nat = sim_next(&s, at, b, &nb);                        \
            V##_push(&q, nat, s.next_seq++, &nb);                           \
        }                                                                   \
        double t1 = now_sec();                                              \
        while (q.n > 0) {                                                   \
            uint64_t at, seq;                                               \
            const struct body *b = V##_pop(&q, &at, &seq);                  \
            sim_pop(&s, at, seq, b);                                        \
        }                                                                   \
        V##_free(&q);                                                       \
        r->secs = t1 - t0;                                                  \
        r->key_ck = s.key_ck;                                               \
        r->body_ck = s.body_ck;                                             \
        r->order_err = s.order_err;                                         \
        return 0;                                                           \
    }

DEFINE_RUN(v1)
DEFINE_RUN(v2)
DEFINE_RUN(v3)
DEFINE_RUN(v4)
DEFINE_RUN(v5)

static const struct {
    const char *name;
    int (*run)(size_t, uint64_t, uint64_t, run_result *);
} variants[] = {
    { "v1 binary heap, events by value", v1_run },
    { "v2 4-ary heap, events by value", v2_run },
    { "v3 4-ary heap, 16B keys + pool", v3_run },
    { "v4 binary heap, 16B keys + pool", v4_run },
    { "v5 calendar queue, slot pool", v5_run },
};
#define NVAR (sizeof variants / sizeof variants[0])
#define REF_VARIANT 2   /* ratios are relative to v3 */

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, unsigned n)
{
    double tmp[MAX_REPS];
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : 0.5 * (tmp[n / 2 - 1] + tmp[n / 2]);
}

static int same_ck(const run_result *a, const run_result *b)
{
    return a->key_ck == b->key_ck && a->body_ck == b->body_ck;
}

/* Runs every variant reps times, interleaved; returns 0 if all agree.  The
 * reference checksum is the one most runs produced with a clean pop order,
 * so a single broken variant is the one blamed. */
static int bench(size_t n, uint64_t steps, unsigned reps, uint64_t seed)
{
    static run_result res[NVAR][MAX_REPS];
    double mops[NVAR][MAX_REPS];
    const run_result *ref = &res[0][0];
    int bad = 0, var_bad[NVAR] = { 0 }, ref_votes = 0;

    printf("\nN = %zu\n", n);
    fflush(stdout);
    for (unsigned rep = 0; rep < reps; rep++) {
        for (size_t v = 0; v < NVAR; v++) {
            run_result *r = &res[v][rep];
            if (variants[v].run(n, steps, seed, r) != 0) {
                fprintf(stderr, "evq_variants: out of memory (N=%zu)\n", n);
                exit(2);
            }
            mops[v][rep] = r->secs > 0 ? (double)steps / r->secs / 1e6 : 0;
        }
    }

    for (size_t v = 0; v < NVAR; v++) {
        for (unsigned rep = 0; rep < reps; rep++) {
            const run_result *c = &res[v][rep];
            int votes = 0;
            if (c->order_err != 0)
                continue;
            for (size_t w = 0; w < NVAR; w++)
                for (unsigned k = 0; k < reps; k++)
                    votes += same_ck(c, &res[w][k]);
            if (votes > ref_votes) {
                ref = c;
                ref_votes = votes;
            }
        }
    }
    for (size_t v = 0; v < NVAR; v++) {
        for (unsigned rep = 0; rep < reps; rep++) {
            const run_result *r = &res[v][rep];
            if (r->order_err == 0 && same_ck(r, ref))
                continue;
            printf("  MISMATCH: %s rep %u: keys %016" PRIx64 " bodies %016"
                   PRIx64 ", %" PRIu64 " out-of-order pops\n",
                   variants[v].name, rep, r->key_ck, r->body_ck,
                   r->order_err);
            var_bad[v] = bad = 1;
        }
    }

    double med[NVAR];
    for (size_t v = 0; v < NVAR; v++)
        med[v] = median(mops[v], reps);
    printf("  %-34s %9s %9s %9s %7s  %s\n", "variant", "median", "min",
           "max", "vs v3", "check");
    printf("  %-34s %9s %9s %9s\n", "", "Mops/s", "Mops/s", "Mops/s");
    for (size_t v = 0; v < NVAR; v++) {
        double lo = mops[v][0], hi = mops[v][0];
        for (unsigned rep = 1; rep < reps; rep++) {
            lo = mops[v][rep] < lo ? mops[v][rep] : lo;
            hi = mops[v][rep] > hi ? mops[v][rep] : hi;
        }
        printf("  %-34s %9.2f %9.2f %9.2f %7.3f  %s\n", variants[v].name,
               med[v], lo, hi,
               med[REF_VARIANT] > 0 ? med[v] / med[REF_VARIANT] : 0,
               var_bad[v] ? "MISMATCH" : "ok");
    }
    printf("  checksums (%u runs): keys %016" PRIx64 " bodies %016" PRIx64
           " -- %s\n", reps * (unsigned)NVAR, ref->key_ck, ref->body_ck,
           bad ? "MISMATCH" : "all agree, pop order strictly increasing");
    fflush(stdout);
    return bad;
}

/* -j: one run of one variant, as a JSON line; nonzero if it popped out of
 * order. */
static int bench_json(size_t v, size_t n, uint64_t steps, uint64_t seed)
{
    run_result r;
    if (variants[v].run(n, steps, seed, &r) != 0) {
        fprintf(stderr, "evq_variants: out of memory (N=%zu)\n", n);
        exit(2);
    }
    printf("{\"impl\":\"bare-v%zu\",\"model\":\"hold\",\"lps\":%zu,\"events\":%"
           PRIu64 ",\"seed\":%" PRIu64 ",\"wall_s\":%.6f,\"events_per_sec\":%.0f,"
           "\"order_hash\":\"%016" PRIx64 "\",\"order_errors\":%" PRIu64 "}\n",
           v + 1, n, steps, seed, r.secs,
           r.secs > 0 ? (double)steps / r.secs : 0, r.key_ck, r.order_err);
    fflush(stdout);
    return r.order_err != 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0')
        return -1;
    *out = (uint64_t)v;
    return 0;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-n N]... [-s steps] [-r reps] [-S seed] [-j K] [steps]\n"
            "  defaults: -n 1000 -n 100000 -s 10000000 -r 5 -S 1\n", prog);
}

int main(int argc, char **argv)
{
    size_t ns[MAX_NS], nn = 0;
    uint64_t steps = 10000000, reps = 5, seed = 1, x, json = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-n") && i + 1 < argc && nn < MAX_NS &&
            parse_u64(argv[i + 1], &x) == 0) {
            ns[nn++] = (size_t)x;
            i++;
        } else if (!strcmp(a, "-s") && i + 1 < argc &&
                   parse_u64(argv[i + 1], &x) == 0) {
            steps = x;
            i++;
        } else if (!strcmp(a, "-r") && i + 1 < argc &&
                   parse_u64(argv[i + 1], &x) == 0) {
            reps = x;
            i++;
        } else if (!strcmp(a, "-S") && i + 1 < argc &&
                   parse_u64(argv[i + 1], &x) == 0) {
            seed = x;
            i++;
        } else if (!strcmp(a, "-j") && i + 1 < argc &&
                   parse_u64(argv[i + 1], &x) == 0 && x >= 1 && x <= NVAR) {
            json = x;
            i++;
        } else if (a[0] != '-' && parse_u64(a, &x) == 0) {
            steps = x;
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    if (nn == 0) {
        ns[nn++] = 1000;
        ns[nn++] = 100000;
    }
    if (reps < 1 || reps > MAX_REPS || steps < 1) {
        fprintf(stderr, "evq_variants: need 1 <= reps <= %d and steps >= 1\n",
                MAX_REPS);
        return 2;
    }
    for (size_t i = 0; i < nn; i++) {
        /* slots must fit in SLOT_BITS and seq in the remaining 40 bits */
        if (ns[i] < 1 || ns[i] + 1 > SLOT_MASK ||
            ns[i] + steps >= (UINT64_C(1) << (64 - SLOT_BITS))) {
            fprintf(stderr, "evq_variants: N=%zu or steps out of range\n",
                    ns[i]);
            return 2;
        }
    }

    if (json != 0) {
        int bad = 0;
        for (uint64_t rep = 0; rep < reps; rep++)
            for (size_t i = 0; i < nn; i++)
                bad |= bench_json((size_t)json - 1, ns[i], steps, seed);
        return bad ? 1 : 0;
    }

    printf("evq_variants: hold model, lookahead %" PRIu64 " ns, exp delay mean"
           " %.0f ns, seed %" PRIu64 "\n", LOOKAHEAD_NS, MEAN_DELAY_NS, seed);
    printf("body %zu B, by-value event %zu B, key %zu B; %" PRIu64
           " steps/run, %" PRIu64 " reps interleaved, median shown\n",
           sizeof(struct body), sizeof(struct event), sizeof(key16), steps,
           reps);

    int bad = 0;
    for (size_t i = 0; i < nn; i++)
        bad |= bench(ns[i], steps, (unsigned)reps, seed);
    return bad ? 1 : 0;
}
