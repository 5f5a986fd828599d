/* check/state.c: invariant I1, exactly-once state. When the job finished,
 * every stateful vertex's final keyed state (merged over its tasks) must
 * equal the fold of the whole input through the specification: whatever
 * failed and was recovered, each record counted once. It applies in the
 * exactly-once modes (aligned, unaligned); in at-least-once mode the
 * figures are still computed, for `expect duplicates`. */
#include "check_int.h"

#include <inttypes.h>

typedef struct state {
    const check_ctx *c;
    kstate actual;
} state;

static void *create(const check_ctx *c) {
    state *s = ARENA_NEW(c->mem, state, 1);
    s->c = c;
    kstate_init_in(&s->actual, c->mem, c->keys);
    c->report->applies[CHECK_I1] = c->cfg->ckpt.mode != PIPE_AT_LEAST_ONCE;
    return s;
}

static void on_end(void *self, const check_end *end) {
    state *s = self;
    const check_ctx *c = s->c;
    check_report *rep = c->report;
    if (end->status != PIPE_FINISHED) return;     /* the input was not consumed: I6's to say */
    const kstate *expected = check_prefix_to(c, NULL);   /* the whole input */
    rep->state_known = true;
    rep->state_equal = true;
    if (rep->applies[CHECK_I1]) rep->checks[CHECK_I1]++;
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {
        if (!spec_keyed(&c->sp, v)) continue;
        pipe_vertex_state(c->p, v, &s->actual);
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

const check_ops check_state_ops = { "I1 exactly-once state", create, NULL, on_end };
