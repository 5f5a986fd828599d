/* check/state.c: invariant I1, exactly-once state. When the job finished,
 * every stateful vertex's final keyed state (merged over its tasks) must
 * equal the fold of the whole input through the specification: whatever
 * failed and was recovered, each record counted once. It applies in the
 * exactly-once modes (aligned, unaligned); in at-least-once mode the
 * figures are still computed, for `expect duplicates`.
 *
 * Rescaling: the tasks merged are those of the parallelism the last
 * attempt ran (the coordinator's RESCALED steps, held to the schedule by
 * restart.c), and each key must be in the subtask whose key groups hold
 * it at that parallelism (check_key_owner). */
#include "check_int.h"

#include <inttypes.h>

typedef struct state {
    const check_ctx *c;
    kstate actual;
    uint32_t par[JOB_VERTICES_MAX];
} state;

static void *create(const check_ctx *c) {
    state *s = ARENA_NEW(c->mem, state, 1);
    s->c = c;
    kstate_init_in(&s->actual, c->mem, c->keys);
    check_par_init(c, s->par);
    c->report->applies[CHECK_I1] = c->cfg->ckpt.mode != PIPE_AT_LEAST_ONCE;
    return s;
}

static void on_event(void *self, const pipe_event *e) {
    state *s = self;
    check_par_step(s->par, e);
}

/* Vertex v's final state, merged over the subtasks of its parallelism,
 * into s->actual; the first key a subtask holds that is not in its key
 * groups is a violation (a restore of the wrong ranges, a misrouting). */
static void merge_final(state *s, uint32_t v, sim_time_ns end_ns) {
    const check_ctx *c = s->c;
    kstate_clear(&s->actual);
    bool told = false;
    for (uint32_t i = 0; i < s->par[v]; i++) {
        uint32_t t = c->j->vertex_first_task[v] + i;
        const kstate *m = pipe_task_state(c->p, t);
        uint32_t pos = 0;
        uint64_t key;
        kagg agg;
        while (m != NULL && kstate_next(m, &pos, &key, &agg)) {
            uint32_t owner = check_key_owner(c, v, key, s->par[v]);
            if (owner != CHECK_NONE && owner != i && !told && c->report->applies[CHECK_I1]) {
                told = true;
                char who[64];
                check_where w = CHECK_AT(end_ns);
                w.task = t;
                w.vertex = v;
                w.key = key;
                check_fail(c, CHECK_I1, w, "%s holds key %" PRIu64 ", which is in the key groups of subtask %u of %u",
                           check_task_name(c, t, who, sizeof who), key, owner, s->par[v]);
            }
            kagg *o = kstate_upsert(&s->actual, key);
            o->count += agg.count;
            o->sum = (int64_t)((uint64_t)o->sum + (uint64_t)agg.sum);
            o->fingerprint += agg.fingerprint;
        }
    }
}

static void on_end(void *self, const check_end *end) {
    state *s = self;
    const check_ctx *c = s->c;
    check_report *rep = c->report;
    if (end->status != PIPE_FINISHED) return;     /* the input was not consumed: I6's to say */
    const kstate *expected = check_prefix_to(c, pipe_end_offsets(c->p));   /* the whole input, or a drain's */
    rep->state_known = true;
    rep->state_equal = true;
    if (rep->applies[CHECK_I1]) rep->checks[CHECK_I1]++;
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {
        if (!spec_keyed(&c->sp, v)) continue;
        merge_final(s, v, end->end_ns);
        if (c->j->vertices[v].kind == JOB_WINDOW) {   /* not a fold: what its watermark left (check/window.c) */
            bool held = !rep->applies[CHECK_I1] || check_window_final(c, v, &expected[v], &s->actual, end->end_ns);
            rep->state_equal &= held;
            continue;
        }
        rep->state_records += check_records(&s->actual);
        rep->spec_records += check_records(&expected[v]);
        uint64_t key;
        if (kstate_equal(&expected[v], &s->actual, &key)) continue;
        if (!rep->state_equal || !rep->applies[CHECK_I1]) {
            rep->state_equal = false;
            continue;
        }
        rep->state_equal = false;
        const kagg *want = kstate_find(&expected[v], key), *got = kstate_find(&s->actual, key);
        check_where w = CHECK_AT(end->end_ns);
        w.vertex = v;
        w.key = key;
        check_fail(c, CHECK_I1, w, "final state of %s differs from the fold of the input at key %" PRIu64
                   ": %" PRIu64 " records counted, %" PRIu64 " in the input",
                   c->j->vertices[v].name, key, got ? got->count : 0, want ? want->count : 0);
    }
}

const check_ops check_state_ops = { "I1 exactly-once state", create, on_event, on_end };
