/* check/spec.c: the specification fold (see spec.h). */
#include "spec.h"

#include <string.h>

void spec_init(spec *sp, const job *j, const broker *b) {
    memset(sp, 0, sizeof *sp);
    sp->j = j;
    sp->b = b;
    sp->source = UINT32_MAX;
    uint32_t n = 0;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (j->vertices[v].kind == JOB_SOURCE && sp->source == UINT32_MAX) sp->source = v;
        sp->out_first[v] = n;
        for (uint32_t e = 0; e < j->edges_count; e++) {
            if (j->edges[e].from == v) sp->out_edge[n++] = e;
        }
        sp->out_count[v] = n - sp->out_first[v];
    }
    SIM_ASSERT(sp->source != UINT32_MAX);
    SIM_ASSERT(n == j->edges_count);
}

bool spec_keyed(const spec *sp, uint32_t vertex) {
    job_kind k = sp->j->vertices[vertex].kind;
    return k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN;
}

static void aggregate(kstate *s, uint64_t key, const model_rec *r, uint64_t copies) {
    kagg *a = kstate_upsert(s, key);
    a->count += copies;
    a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)r->value * copies);   /* modulo 2^64, as the tasks */
    a->fingerprint += kstate_record_mark(r->id) * copies;
}

void spec_fold(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies) {
    const job *j = sp->j;
    const job_vertex *x = &j->vertices[v];
    switch (x->kind) {
    case JOB_MAP:
        r.value += x->map_add;
        break;
    case JOB_FILTER:
        if (kstate_record_mark(r.id) % 100 >= x->keep_percent) return;
        break;
    case JOB_KEYED_AGG:
        aggregate(&into[v], r.key, &r, copies);
        break;
    case JOB_KEYED_JOIN:
        aggregate(&into[v], r.key * 2 + input, &r, copies);
        break;
    case JOB_SINK:
        return;
    case JOB_UNION:
    case JOB_SOURCE:
        break;
    }
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        const job_edge *d = &j->edges[sp->out_edge[sp->out_first[v] + i]];
        uint64_t fan = d->part == JOB_BROADCAST ? j->vertices[d->to].parallelism : 1;
        spec_fold(sp, into, d->to, d->input, r, copies * fan);
    }
}

void spec_fold_input(const spec *sp, kstate *into, const model_rec *r) {
    spec_fold(sp, into, sp->source, 0, *r, 1);
}

/* Copies of r reaching each sink vertex, from vertex v on. */
static void reach_sinks(const spec *sp, uint32_t v, const model_rec *r, uint64_t copies, uint64_t *plain, bool *idem) {
    const job_vertex *x = &sp->j->vertices[v];
    if (x->kind == JOB_FILTER && kstate_record_mark(r->id) % 100 >= x->keep_percent) return;
    if (x->kind == JOB_SINK) {
        if (x->sink == JOB_SINK_IDEMPOTENT) *idem = true; else *plain += copies;
        return;
    }
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        const job_edge *d = &sp->j->edges[sp->out_edge[sp->out_first[v] + i]];
        uint64_t fan = d->part == JOB_BROADCAST ? sp->j->vertices[d->to].parallelism : 1;
        reach_sinks(sp, d->to, r, copies * fan, plain, idem);
    }
}

uint32_t spec_visible(const spec *sp, const model_rec *r) {
    uint64_t plain = 0;
    bool idem = false;
    reach_sinks(sp, sp->source, r, 1, &plain, &idem);
    if (plain > 127) plain = 127;                 /* the output counts saturate there (model/tm/sinktx.c) */
    return (uint32_t)plain + idem;
}
