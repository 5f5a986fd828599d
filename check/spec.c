/* check/spec.c: the specification fold (see spec.h). */
#include "spec.h"

#include <string.h>

/* Adds the way (to vertex, input, keep, add) with its copies, merged with
 * an equal one of the same start; false when the table is full. */
static bool add_term(spec *sp, uint32_t start, spec_term t) {
    for (uint32_t i = sp->term_first[start]; i < sp->terms_count; i++) {
        spec_term *u = &sp->terms[i];
        if (u->vertex == t.vertex && u->input == t.input && u->keep == t.keep && u->add == t.add) {
            u->copies += t.copies;
            return true;
        }
    }
    if (sp->terms_count == SPEC_TERMS_MAX) return false;
    sp->terms[sp->terms_count++] = t;
    return true;
}

/* The ways from `start` through v on, as spec_walk goes; false when the
 * table is full or the ways are too many to walk (*budget). */
static bool flatten(spec *sp, uint32_t start, uint32_t v, spec_term t, uint32_t *budget) {
    const job_vertex *x = &sp->j->vertices[v];
    if ((*budget)-- == 0) return false;
    switch (x->kind) {
    case JOB_MAP:    t.add += x->map_add; break;
    case JOB_FILTER: if (x->keep_percent < t.keep) t.keep = x->keep_percent; break;
    case JOB_KEYED_AGG:
    case JOB_KEYED_JOIN:
        t.vertex = v;
        t.kind = x->kind == JOB_KEYED_JOIN ? SPEC_TERM_JOIN : SPEC_TERM_KEYED;
        if (!add_term(sp, start, t)) return false;
        break;
    case JOB_WINDOW:                              /* records end there: its results are records of its own */
        t.vertex = v;
        t.kind = SPEC_TERM_WINDOW;
        return add_term(sp, start, t);
    case JOB_SINK:   return true;
    case JOB_COMMITTER: return true;              /* never reached: records end at its writer, a sink */
    case JOB_UNION:
    case JOB_SOURCE: break;
    }
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        const job_edge *d = &sp->j->edges[sp->out_edge[sp->out_first[v] + i]];
        spec_term n = t;
        n.input = d->input;
        n.copies *= d->part == JOB_BROADCAST ? sp->j->vertices[d->to].parallelism : 1;
        if (!flatten(sp, start, d->to, n, budget)) return false;
    }
    return true;
}

static void reach_sinks(const spec *sp, uint32_t v, uint32_t mark, uint64_t copies, uint64_t *plain, bool *idem);

static void flatten_all(spec *sp) {
    sp->flat = true;
    for (uint32_t v = 0; v < sp->j->vertices_count && sp->flat; v++) {
        uint32_t budget = 64 * SPEC_TERMS_MAX;
        sp->term_first[v] = sp->terms_count;
        sp->flat = flatten(sp, v, v, (spec_term){ .input = SPEC_INPUT_START, .keep = 100, .copies = 1 }, &budget);
        sp->term_count[v] = sp->terms_count - sp->term_first[v];
    }
    for (uint32_t t = 0; t < BROKER_TOPICS_MAX; t++) {
        if (sp->source_of[t] == UINT32_MAX) continue;   /* no source reads it: it holds no record */
        for (uint32_t m = 0; m < 100; m++) {
            uint64_t plain = 0;
            bool idem = false;
            reach_sinks(sp, sp->source_of[t], m, 1, &plain, &idem);
            if (plain > 127) plain = 127;         /* the output counts saturate there (model/tm/sinktx.c) */
            sp->visible[t][m] = (uint8_t)(plain + idem);
        }
    }
}

void spec_init(spec *sp, const job *j, const broker *b) {
    memset(sp, 0, sizeof *sp);
    sp->j = j;
    sp->b = b;
    sp->topics = b != NULL && b->topics > 1 ? b : NULL;
    sp->source = UINT32_MAX;
    for (uint32_t t = 0; t < BROKER_TOPICS_MAX; t++) sp->source_of[t] = UINT32_MAX;
    uint32_t n = 0;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        const job_vertex *x = &j->vertices[v];
        if (x->kind == JOB_SOURCE && sp->source == UINT32_MAX) sp->source = v;
        sp->windows |= x->kind == JOB_WINDOW;
        if (x->kind == JOB_SOURCE) {
            SIM_ASSERT(x->topic < (b != NULL ? b->topics : 1) && sp->source_of[x->topic] == UINT32_MAX);   /* pipe_create saw to it */
            sp->source_of[x->topic] = v;
        }
        sp->out_first[v] = n;
        for (uint32_t e = 0; e < j->edges_count; e++) {
            if (j->edges[e].from == v) sp->out_edge[n++] = e;
        }
        sp->out_count[v] = n - sp->out_first[v];
    }
    SIM_ASSERT(sp->source != UINT32_MAX);
    for (uint32_t t = 0; b != NULL && t < b->topics; t++) {   /* a topic that holds records has its source */
        SIM_ASSERT(b->topic[t].end == b->topic[t].first || sp->source_of[t] != UINT32_MAX);
    }
    SIM_ASSERT(n == j->edges_count);
    flatten_all(sp);
}

bool spec_keyed(const spec *sp, uint32_t vertex) {
    job_kind k = sp->j->vertices[vertex].kind;
    return k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN || k == JOB_WINDOW;
}

static void aggregate(kstate *s, uint64_t key, int64_t value, uint64_t mark, uint64_t copies) {
    kagg *a = kstate_upsert(s, key);
    a->count += copies;
    a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)value * copies);   /* modulo 2^64, as the tasks */
    a->fingerprint += mark * copies;
}

/* A record into the windows of vertex v: each window's contents, and
 * (tag SPEC_POSSIBLY_LATE) those for which the watermark of its own split
 * before it, `bound`, may have passed the window's end (spec.h). */
static void window(const spec *sp, kstate *into, uint32_t v, const model_rec *r, uint64_t copies, win_wm bound) {
    const job_vertex *x = &sp->j->vertices[v];
    uint64_t wis[WIN_PER_RECORD_MAX], mark = kstate_record_mark(r->id);
    uint32_t n = win_assign(x, r->event_time_ns, wis);
    for (uint32_t k = 0; k < n; k++) {
        aggregate(&into[v], win_key(r->key, wis[k], WIN_CONTENTS), r->value, mark, copies);
        if (win_max_ts(x, wis[k]) > bound) continue;   /* never late: the window's end is after any watermark before it */
        kagg *late = kstate_upsert(&into[v], win_key(r->key, wis[k], SPEC_POSSIBLY_LATE));
        late->fingerprint += copies;              /* may fire its window again */
        if (win_cleanup(x, wis[k]) > bound) continue;
        late->count += copies;                    /* may be dropped */
        late->sum = (int64_t)((uint64_t)late->sum + (uint64_t)r->value * copies);
    }
}

static void walk(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies, win_wm bound);

void spec_walk(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies) {
    walk(sp, into, v, input, r, copies, WIN_WM_MIN);
}

static void walk(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies, win_wm bound) {
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
        aggregate(&into[v], r.key, r.value, kstate_record_mark(r.id), copies);
        break;
    case JOB_KEYED_JOIN:
        aggregate(&into[v], r.key * 2 + input, r.value, kstate_record_mark(r.id), copies);
        break;
    case JOB_WINDOW:
        window(sp, into, v, &r, copies, bound);
        return;
    case JOB_SINK:
    case JOB_COMMITTER:
        return;
    case JOB_UNION:
    case JOB_SOURCE:
        break;
    }
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        const job_edge *d = &j->edges[sp->out_edge[sp->out_first[v] + i]];
        uint64_t fan = d->part == JOB_BROADCAST ? j->vertices[d->to].parallelism : 1;
        walk(sp, into, d->to, d->input, r, copies * fan, bound);
    }
}

static void fold(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies, win_wm bound);

void spec_fold(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies) {
    fold(sp, into, v, input, r, copies, WIN_WM_MIN);
}

static void fold(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies, win_wm bound) {
    if (!sp->flat) {
        walk(sp, into, v, input, r, copies, bound);
        return;
    }
    uint64_t mark = kstate_record_mark(r.id);
    const spec_term *t = &sp->terms[sp->term_first[v]];
    for (uint32_t i = 0; i < sp->term_count[v]; i++, t++) {
        if (mark % 100 >= t->keep) continue;
        uint64_t key = r.key;
        if (t->kind == SPEC_TERM_WINDOW) {
            model_rec w = r;
            w.value += t->add;
            window(sp, into, t->vertex, &w, copies * t->copies, bound);
            continue;
        }
        if (t->kind == SPEC_TERM_JOIN) key = key * 2 + (t->input == SPEC_INPUT_START ? input : t->input);
        aggregate(&into[t->vertex], key, r.value + t->add, mark, copies * t->copies);
    }
}

/* Without a broker (the unit tests' graphs) or with one topic, a record
 * is the default topic's: one branch, no look-up. */
void spec_fold_input(const spec *sp, kstate *into, const model_rec *r) {
    uint32_t source = sp->topics == NULL ? sp->source : sp->source_of[broker_topic_of(sp->topics, rec_partition(r))];
    fold(sp, into, source, 0, *r, 1, WIN_WM_MIN);
}

void spec_fold_input_after(const spec *sp, kstate *into, const model_rec *r, win_wm before_max) {
    uint32_t source = sp->topics == NULL ? sp->source : sp->source_of[broker_topic_of(sp->topics, rec_partition(r))];
    const job_vertex *x = &sp->j->vertices[source];
    win_wm bound = WIN_WM_MIN;                    /* its split's watermark before it, at the most */
    if (x->watermarks && before_max != WIN_WM_MIN) bound = before_max - (win_wm)x->watermark_delay_ns - 1;
    fold(sp, into, source, 0, *r, 1, bound);
}

/* Copies of a record with filter mark `mark` reaching each sink vertex,
 * from vertex v on. */
static void reach_sinks(const spec *sp, uint32_t v, uint32_t mark, uint64_t copies, uint64_t *plain, bool *idem) {
    const job_vertex *x = &sp->j->vertices[v];
    if (x->kind == JOB_FILTER && mark >= x->keep_percent) return;
    if (x->kind == JOB_WINDOW) return;            /* records end in a window: its results go on */
    if (x->kind == JOB_SINK) {
        if (x->sink == JOB_SINK_IDEMPOTENT) *idem = true; else *plain += copies;
        return;
    }
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        const job_edge *d = &sp->j->edges[sp->out_edge[sp->out_first[v] + i]];
        uint64_t fan = d->part == JOB_BROADCAST ? sp->j->vertices[d->to].parallelism : 1;
        reach_sinks(sp, d->to, mark, copies * fan, plain, idem);
    }
}

uint32_t spec_visible(const spec *sp, const model_rec *r) {
    uint32_t m = kstate_record_mark(r->id) % 100;
    if (sp->topics == NULL) return sp->visible[0][m];
    return sp->visible[broker_topic_of(sp->topics, rec_partition(r))][m];
}

uint32_t spec_result_visible(const spec *sp, uint32_t v, uint64_t id) {
    SIM_ASSERT(sp->j->vertices[v].kind == JOB_WINDOW);
    uint64_t plain = 0;
    bool idem = false;
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        const job_edge *d = &sp->j->edges[sp->out_edge[sp->out_first[v] + i]];
        uint64_t fan = d->part == JOB_BROADCAST ? sp->j->vertices[d->to].parallelism : 1;
        reach_sinks(sp, d->to, (uint32_t)(kstate_record_mark(id) % 100), fan, &plain, &idem);
    }
    if (plain > 127) plain = 127;                 /* the output counts saturate there */
    return (uint32_t)(plain + idem);
}

/* The maps' constants from v to each sink: false when two ways differ. */
static bool adds_to_sinks(const spec *sp, uint32_t v, int64_t add, bool *seen, int64_t *out) {
    const job_vertex *x = &sp->j->vertices[v];
    if (x->kind == JOB_MAP) add += x->map_add;
    if (x->kind == JOB_SINK) {
        if (*seen && *out != add) return false;
        *seen = true;
        *out = add;
        return true;
    }
    for (uint32_t i = 0; i < sp->out_count[v]; i++) {
        if (!adds_to_sinks(sp, sp->j->edges[sp->out_edge[sp->out_first[v] + i]].to, add, seen, out)) return false;
    }
    return true;
}

bool spec_result_add(const spec *sp, uint32_t v, int64_t *add) {
    bool seen = false;
    *add = 0;
    return adds_to_sinks(sp, v, 0, &seen, add);
}
