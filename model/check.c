/* model/check.c: invariant I2, the consistent cut, checked at every
 * completed checkpoint (exactly-once modes).
 *
 * Checkpoint n claims that its snapshots equal the state of a failure-free
 * run after consuming exactly the source prefixes S_n. The model's
 * aggregates are commutative and every operator is a function of the
 * record, so that state can be computed from the input alone: push each
 * record of the prefixes through the job graph (maps add, filters keep by
 * record id, joins tag keys by input, broadcast edges copy) and fold it
 * into every keyed vertex it reaches. The checkpoint's side: the keyed
 * state files of every task of the vertex, merged, plus the in-flight
 * records its unaligned snapshots stored as channel state, pushed through
 * the graph from the channel's consumer on (they are part of the cut: a
 * restore replays them).
 *
 * The expected state advances with the prefixes (checkpoints complete in
 * id order and their prefixes only grow, except after a restart from the
 * beginning, when it starts over), so a run folds its input about once.
 * Memory: three maps per keyed vertex, carved at set-up. */
#include "pipe_int.h"

#include <string.h>

static bool stateful_kind(job_kind k) { return k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN; }

void check_init(pipeline *p, uint32_t keys) {
    const job *j = pipe_job(p);
    p->check.on = p->cfg.check_cut && p->cfg.ckpt.mode != PIPE_AT_LEAST_ONCE;
    if (!p->check.on) return;
    p->check.prefix = sim_alloc(p->run, sizeof(uint64_t) * p->cfg.broker.partitions, 8);
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (!stateful_kind(j->vertices[v].kind)) continue;
        kstate_init(&p->check.expected[v], p->run, keys);
        kstate_init(&p->check.actual[v], p->run, keys);
    }
    kstate_init(&p->check.scratch, p->run, keys);
}

/* Fold record r, arriving at vertex v on logical input `input`, `copies`
 * times into `into`, and follow it downstream. */
static void reach(const pipeline *p, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies) {
    const job *j = pipe_job(p);
    const job_vertex *x = &j->vertices[v];
    switch (x->kind) {
    case JOB_MAP:
        r.value += x->map_add;
        break;
    case JOB_FILTER:
        if (kstate_record_mark(r.id) % 100 >= x->keep_percent) return;
        break;
    case JOB_KEYED_AGG:
        for (uint64_t i = 0; i < copies; i++) kstate_fold(&into[v], &r);
        break;
    case JOB_KEYED_JOIN: {
        model_rec tagged = r;
        tagged.key = r.key * 2 + input;
        for (uint64_t i = 0; i < copies; i++) kstate_fold(&into[v], &tagged);
        break;
    }
    case JOB_SINK:
        return;
    case JOB_UNION:
    case JOB_SOURCE:
        break;
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {
        const job_edge *d = &j->edges[e];
        if (d->from != v) continue;
        uint64_t fan = d->part == JOB_BROADCAST ? j->vertices[d->to].parallelism : 1;
        reach(p, into, d->to, d->input, r, copies * fan);
    }
}

static uint32_t source_vertex(const job *j) {
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (j->vertices[v].kind == JOB_SOURCE) return v;
    }
    SIM_ASSERT(!"a job has a source");
    return 0;
}

/* The expected state after the prefixes `offsets`. */
static void advance(pipeline *p, const uint64_t *offsets) {
    const job *j = pipe_job(p);
    uint32_t parts = p->cfg.broker.partitions;
    bool back = false;
    for (uint32_t i = 0; i < parts; i++) back |= offsets[i] < p->check.prefix[i];
    if (back) {                                   /* a restart from the beginning: start over */
        for (uint32_t v = 0; v < j->vertices_count; v++) {
            if (stateful_kind(j->vertices[v].kind)) kstate_clear(&p->check.expected[v]);
        }
        memset(p->check.prefix, 0, sizeof(uint64_t) * parts);
    }
    uint32_t src = source_vertex(j);
    for (uint32_t i = 0; i < parts; i++) {
        for (uint64_t o = p->check.prefix[i]; o < offsets[i]; o++) {
            model_rec r;
            if (!broker_read(&p->brk, i, o, &r)) break;
            reach(p, p->check.expected, src, 0, r, 1);
        }
        if (offsets[i] > p->check.prefix[i]) p->check.prefix[i] = offsets[i];
    }
}

static void merge(kstate *into, const kstate *from) {
    uint32_t slot = 0;
    uint64_t key;
    kagg agg;
    while (kstate_next(from, &slot, &key, &agg)) {
        kagg *a = kstate_upsert(into, key);
        a->count += agg.count;
        a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)agg.sum);
        a->fingerprint += agg.fingerprint;
    }
}

void check_cut(pipeline *p, const rt_slot *s) {
    if (!p->check.on) return;
    const job *j = pipe_job(p);
    advance(p, s->offsets);
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (stateful_kind(j->vertices[v].kind)) kstate_clear(&p->check.actual[v]);
    }
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        if (!p->tasks[t].stateful || c->count == 0) continue;   /* a missing state is I5's to report */
        if (!store_restore(&p->files, c->files, c->count, &p->check.scratch)) continue;
        merge(&p->check.actual[j->tasks[t].vertex], &p->check.scratch);
    }
    for (uint32_t i = 0; i < s->cs_count; i++) {  /* in flight: part of the cut */
        const rt_chan *c = &p->chans[s->cs[i].chan];
        reach(p, p->check.actual, j->tasks[c->consumer].vertex, c->input, s->cs[i].rec, 1);
    }
    p->stats.cut_checks++;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        uint64_t key;
        if (!stateful_kind(j->vertices[v].kind) || kstate_equal(&p->check.expected[v], &p->check.actual[v], &key)) continue;
        if (p->stats.cut_violations++ == 0) {
            p->stats.cut_first_ckpt = s->ckpt;
            p->stats.cut_first_vertex = v;
            p->stats.cut_first_key = key;
        }
    }
}
