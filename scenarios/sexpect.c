/* scenarios/sexpect.c: the expect statement, read and written back. */
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool st_compares(scn_expect_kind k) {
    return k == SCN_EXPECT_CHECKPOINTS || k == SCN_EXPECT_RESTARTS || k == SCN_EXPECT_ABORTED ||
           k == SCN_EXPECT_FAILOVERS || k == SCN_EXPECT_UNALIGNED || k == SCN_EXPECT_FENCED || k == SCN_EXPECT_DURATION ||
           k == SCN_EXPECT_RELOCATED || k == SCN_EXPECT_BACKPRESSURE || k == SCN_EXPECT_CHECKPOINTED_BYTES ||
           k == SCN_EXPECT_RESTARTED_TASKS || k == SCN_EXPECT_RECORDS_READ || k == SCN_EXPECT_LATE_RECORDS ||
           k == SCN_EXPECT_WINDOWS_FIRED || k == SCN_EXPECT_LATE_FIRINGS || k == SCN_EXPECT_RESCALED;
}

/* `expect liveness D`: the bound I6 holds the run to. One per file (the
 * checkers use one bound), and above 0 (0 would mean the default). */
static bool liveness_bound(pctx *c, uint64_t *ns) {
    for (uint32_t i = 0; i < c->s->expects_count; i++) {
        if (c->s->expects[i].kind != SCN_EXPECT_LIVENESS) continue;
        return lex_fail_at(c, c->t[c->i - 1].col, "a second 'expect liveness' (the first is on line %u)",
                       c->s->expects[i].line);
    }
    const tok *t = lex_next(c, "the liveness bound, a duration such as 500ms");
    if (t == NULL || !lex_duration(c, t, ns)) return false;
    if (*ns == 0) return lex_fail_at(c, t->col, "the liveness bound must be above 0 (leave the line out for the default)");
    return true;
}

/* backpressure TASK: the task it is about. */
static bool expect_task(pctx *c, scn_expect *e) {
    const tok *t = lex_next(c, "a task, as agg[1]");
    if (t == NULL || !lex_task_ref(c, t, &e->vertex, &e->subtask)) return false;
    snprintf(e->task, sizeof e->task, "%s[%u]", c->s->cfg.graph.vertices[e->vertex].name, e->subtask);
    return true;
}

/* `checkpoint N triggered|completed at T`: a time the run must bear out
 * to the precision it is written with (the teaching files quote them), so
 * "15.2ms" holds for 15.15 ms up to, not including, 15.25 ms. */
static bool expect_ckpt_time(pctx *c, scn_expect *e) {
    static const char *const events[] = { "triggered", "completed", NULL };
    if (!lex_opt_count(c, 1, PIPE_HISTORY_MAX, &e->ckpt)) return false;   /* the checkpoints whose times a run keeps */
    const tok *w = lex_next(c, "triggered or completed");
    if (w == NULL) return false;
    if (!lex_is(w, "triggered") && !lex_is(w, "completed")) return lex_unknown(c, w, "checkpoint event", events);
    e->kind = lex_is(w, "triggered") ? SCN_EXPECT_CKPT_TRIGGERED : SCN_EXPECT_CKPT_COMPLETED;
    const tok *at = lex_next(c, "'at' and a time such as 15.2ms");
    if (at == NULL) return false;
    if (!lex_is(at, "at")) return lex_fail_at(c, at->col, "expected 'at' before the time, found '%.*s'", (int)at->len, at->s);
    const tok *t = lex_next(c, "a time such as 15.2ms");
    if (t == NULL || !lex_duration(c, t, &e->value)) return false;
    if (t->len >= sizeof e->task) return lex_fail_at(c, t->col, "'%.*s' is too long a time", (int)t->len, t->s);
    uint32_t digits = 0, u = 0;                   /* decimals written, and where the unit starts */
    while (u < t->len && ((t->s[u] >= '0' && t->s[u] <= '9') || t->s[u] == '.')) u++;
    for (const char *d = memchr(t->s, '.', u); d != NULL && d + 1 < t->s + u; d++) digits++;
    char one[16];
    int n = snprintf(one, sizeof one, "1%.*s", (int)(t->len - u), t->s + u);
    tok unit_tok = { .s = one, .len = (uint32_t)n, .col = t->col + u };
    sim_time_ns unit_ns = 0;
    if (n <= 0 || (size_t)n >= sizeof one || !lex_duration(c, &unit_tok, &unit_ns)) return false;
    e->res_ns = unit_ns;
    for (uint32_t k = 0; k < digits && e->res_ns >= 10; k++) e->res_ns /= 10;
    memcpy(e->task, t->s, t->len);
    e->task[t->len] = '\0';
    return true;
}

bool st_expect(pctx *c) {
    static const char *const kinds[] = { "finished", "failed", "exactly-once", "duplicates", "checkpoints",
                                         "restarts", "aborted", "output", "failovers", "unaligned", "liveness",
                                         "fenced", "duration", "relocated", "backpressure", "checkpointed-bytes",
                                         "restarted-tasks", "records-read", "late-records", "windows-fired",
                                         "late-firings", "rescaled", "checkpoint", NULL };
    static const scn_expect_kind kind_of[] = { SCN_EXPECT_FINISHED, SCN_EXPECT_FAILED, SCN_EXPECT_EXACTLY_ONCE,
                                               SCN_EXPECT_DUPLICATES, SCN_EXPECT_CHECKPOINTS, SCN_EXPECT_RESTARTS,
                                               SCN_EXPECT_ABORTED, 0, SCN_EXPECT_FAILOVERS, SCN_EXPECT_UNALIGNED,
                                               SCN_EXPECT_LIVENESS, SCN_EXPECT_FENCED, SCN_EXPECT_DURATION,
                                               SCN_EXPECT_RELOCATED, SCN_EXPECT_BACKPRESSURE,
                                               SCN_EXPECT_CHECKPOINTED_BYTES, SCN_EXPECT_RESTARTED_TASKS,
                                               SCN_EXPECT_RECORDS_READ, SCN_EXPECT_LATE_RECORDS,
                                               SCN_EXPECT_WINDOWS_FIRED, SCN_EXPECT_LATE_FIRINGS, SCN_EXPECT_RESCALED,
                                               SCN_EXPECT_CKPT_TRIGGERED };
    static const char *const outputs[] = { "exactly-once", "at-least-once", "duplicates", "lost", NULL };
    static const scn_expect_kind output_of[] = { SCN_EXPECT_OUTPUT_EXACTLY_ONCE, SCN_EXPECT_OUTPUT_AT_LEAST_ONCE,
                                                 SCN_EXPECT_OUTPUT_DUPLICATES, SCN_EXPECT_OUTPUT_LOST };
    static const char *const ops[] = { ">=", "<=", "==", ">", "<", NULL };   /* ties suggest the first */
    static const scn_cmp cmp_of[] = { SCN_GE, SCN_LE, SCN_EQ, SCN_GT, SCN_LT };
    scn *s = c->s;
    if (s->expects_count == SCN_EXPECTS_MAX) return lex_fail_at(c, 1, "more than %u expectations", SCN_EXPECTS_MAX);
    scn_expect e = { .line = c->line };
    const tok *k = lex_next(c, "what to expect (finished, exactly-once, duplicates, checkpoints >= N, ...)");
    if (k == NULL) return false;
    int kind = -1;
    for (int i = 0; kinds[i] != NULL; i++) {
        if (lex_is(k, kinds[i])) kind = i;
    }
    if (kind < 0) return lex_unknown(c, k, "expectation", kinds);
    e.kind = kind_of[kind];
    if (lex_is(k, "output")) {                        /* what the sinks made visible */
        const tok *o = lex_next(c, "exactly-once, at-least-once, duplicates or lost");
        if (o == NULL) return false;
        int x = -1;
        for (int i = 0; outputs[i] != NULL; i++) {
            if (lex_is(o, outputs[i])) x = i;
        }
        if (x < 0) return lex_unknown(c, o, "output expectation", outputs);
        e.kind = output_of[x];
    }
    if (e.kind == SCN_EXPECT_LIVENESS && !liveness_bound(c, &e.value)) return false;
    if (e.kind == SCN_EXPECT_BACKPRESSURE && !expect_task(c, &e)) return false;
    if (lex_is(k, "checkpoint") && !expect_ckpt_time(c, &e)) return false;
    if (st_compares(e.kind)) {
        const tok *op = lex_next(c, "a comparison (==, >=, <=, >, <)");
        if (op == NULL) return false;
        int o = -1;
        for (int i = 0; ops[i] != NULL; i++) {
            if (lex_is(op, ops[i])) o = i;
        }
        if (o < 0) return lex_unknown(c, op, "comparison", ops);
        e.cmp = cmp_of[o];
        if (e.kind == SCN_EXPECT_DURATION || e.kind == SCN_EXPECT_BACKPRESSURE) {   /* a duration such as 5ms */
            const tok *d = lex_next(c, "a duration such as 5ms");
            if (d == NULL || !lex_duration(c, d, &e.value)) return false;
        } else if (!lex_opt_count(c, 0, UINT64_MAX, &e.value)) {
            return false;
        }
    }
    if (lex_more(c)) return lex_fail_at(c, c->t[c->i].col, "unexpected '%.*s'", (int)c->t[c->i].len, c->t[c->i].s);
    s->expects[s->expects_count++] = e;
    return true;
}

const char *scn_expect_text(const scn_expect *e, char *buf, size_t size_bytes) {
    static const char *const names[] = { "", "finished", "failed", "exactly-once", "duplicates", "checkpoints",
                                         "restarts", "aborted", "output exactly-once", "output at-least-once",
                                         "output duplicates", "failovers", "unaligned", "liveness", "fenced",
                                         "duration", "relocated", "backpressure", "checkpointed-bytes",
                                         "restarted-tasks", "records-read", "late-records", "windows-fired",
                                         "late-firings", "rescaled", "output lost", "checkpoint", "checkpoint" };
    static const char *const ops[] = { "", "==", ">=", "<=", ">", "<" };
    SIM_ASSERT(e->kind >= SCN_EXPECT_FINISHED && e->kind <= SCN_EXPECT_CKPT_COMPLETED);
    if (e->kind == SCN_EXPECT_LIVENESS) {         /* in human units, exact: the reader takes it back */
        txt_buf b = { .s = buf, .n = size_bytes };
        buf[0] = '\0';
        txt_put(&b, "liveness ");
        txt_duration(&b, e->value);
    } else if (e->kind == SCN_EXPECT_DURATION || e->kind == SCN_EXPECT_BACKPRESSURE) {
        txt_buf b = { .s = buf, .n = size_bytes };
        buf[0] = '\0';
        if (e->kind == SCN_EXPECT_BACKPRESSURE) txt_put(&b, "backpressure %s %s ", e->task, ops[e->cmp]);
        else txt_put(&b, "duration %s ", ops[e->cmp]);
        txt_duration(&b, e->value);
    } else if (e->kind == SCN_EXPECT_CKPT_TRIGGERED || e->kind == SCN_EXPECT_CKPT_COMPLETED) {   /* as written */
        snprintf(buf, size_bytes, "checkpoint %llu %s at %s", (unsigned long long)e->ckpt,
                 e->kind == SCN_EXPECT_CKPT_TRIGGERED ? "triggered" : "completed", e->task);
    } else if (st_compares(e->kind)) {
        snprintf(buf, size_bytes, "%s %s %llu", names[e->kind], ops[e->cmp], (unsigned long long)e->value);
    } else {
        snprintf(buf, size_bytes, "%s", names[e->kind]);
    }
    return buf;
}

sim_time_ns scn_liveness_ns(const scn *s) {
    for (uint32_t i = 0; i < s->expects_count; i++) {
        if (s->expects[i].kind == SCN_EXPECT_LIVENESS) return s->expects[i].value;
    }
    return 0;
}
