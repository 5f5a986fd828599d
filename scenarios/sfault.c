/* scenarios/sfault.c: the fault statement, read and written back. */
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool link_ref(pctx *c, scn_fault *f) {
    const tok *a = lex_next(c, "the producing task, as map[0]");
    if (a == NULL || !lex_task_ref(c, a, &f->vertex, &f->subtask)) return false;
    f->col = a->col;                              /* fin_all() checks the channel is there */
    if (!lex_expect_word(c, "->")) return false;
    const tok *b = lex_next(c, "the consuming task, as agg[1]");
    return b != NULL && lex_task_ref(c, b, &f->vertex2, &f->subtask2);
}

static bool for_duration(pctx *c, scn_fault *f, bool required) {
    if (!lex_more(c)) return required ? lex_fail_at(c, c->eol_col, "expected 'for' and a duration") : true;
    if (!lex_expect_word(c, "for")) return false;
    if (!lex_opt_duration(c, &f->duration_ns)) return false;
    if (f->duration_ns == 0) return lex_fail_at(c, c->t[c->i - 1].col, "the duration must be above 0");
    return true;
}

/* "5x": a slowdown factor, 2x to 1000000x (1x would change nothing). */
static bool factor(pctx *c, uint32_t *out) {
    const tok *t = lex_next(c, "a slowdown factor such as 5x");
    if (t == NULL) return false;
    tok num = { .s = t->s, .len = t->len > 0 ? t->len - 1 : 0, .col = t->col };
    unsigned __int128 v;
    uint32_t rest;
    if (t->len < 2 || t->s[t->len - 1] != 'x' || !lex_decimal(&num, 0, &v, &rest) || rest != num.len) {
        return lex_fail_at(c, t->col, "'%.*s' is not a slowdown factor such as 5x", (int)t->len, t->s);
    }
    if (v < 2 || v > SCN_FACTOR_MAX) return lex_fail_at(c, t->col, "%.*s is out of range [2x, %ux]", (int)t->len, t->s, SCN_FACTOR_MAX);
    *out = (uint32_t)v;
    return true;
}

/* After "fault when": a task point or a checkpoint point. */
static bool point(pctx *c, scn_fault *f) {
    static const char *const task_points[] = { "aligning", "triggers", "snapshot-sync", "commits", NULL };
    static const scn_point task_point_of[] = { SCN_WHEN_ALIGNING, SCN_WHEN_TRIGGERS, SCN_WHEN_SNAPSHOT_SYNC, SCN_WHEN_COMMITS };
    static const char *const ckpt_points[] = { "starts", "completes", NULL };
    uint64_t n;
    const tok *who = lex_next(c, "a task (as agg[1]) or 'checkpoint'");
    if (who == NULL) return false;
    if (lex_is(who, "checkpoint")) {
        if (!lex_opt_count(c, 1, UINT32_MAX, &n)) return false;
        f->point_ckpt = n;
        const tok *what = lex_next(c, "starts or completes");
        if (what == NULL) return false;
        if (lex_is(what, "starts")) f->point = SCN_WHEN_STARTS;
        else if (lex_is(what, "completes")) f->point = SCN_WHEN_COMPLETES;
        else return lex_unknown(c, what, "checkpoint point", ckpt_points);
        return true;
    }
    if (!lex_task_ref(c, who, &f->point_vertex, &f->point_subtask)) return false;
    const tok *what = lex_next(c, "aligning, triggers, snapshot-sync or commits");
    if (what == NULL) return false;
    int k = -1;
    for (int i = 0; task_points[i] != NULL; i++) {
        if (lex_is(what, task_points[i])) k = i;
    }
    if (k < 0) return lex_unknown(c, what, "task point", task_points);
    f->point = task_point_of[k];
    if (f->point == SCN_WHEN_COMMITS) {          /* only a two-phase-commit sink commits */
        const job_vertex *v = &c->s->cfg.graph.vertices[f->point_vertex];
        if (v->kind != JOB_SINK) return lex_fail_at(c, what->col, "only a sink commits, and %s is not one", v->name);
        if (v->sink != JOB_SINK_2PC) {
            return lex_fail_at(c, what->col, "%s commits nothing: its output is %s (commits needs output two-phase-commit)",
                           v->name, v->sink == JOB_SINK_IDEMPOTENT ? "idempotent" : "plain");
        }
    }
    if (!lex_opt_count(c, 1, UINT32_MAX, &n)) return false;
    f->point_ckpt = n;
    return true;
}

/* The next word, a task (vertex[subtask]). */
static bool task_arg(pctx *c, const char *what, uint32_t *vertex, uint32_t *subtask) {
    const tok *t = lex_next(c, what);
    return t != NULL && lex_task_ref(c, t, vertex, subtask);
}

static bool machine_arg(pctx *c, scn_fault *f) {
    uint64_t m;
    if (!lex_opt_count(c, 0, c->s->cfg.machines - 1, &m)) return false;
    f->machine = (uint32_t)m;
    return true;
}

static bool fault_crash(pctx *c, scn_fault *f) {
    static const char *const what_kinds[] = { "machine", "task", "coordinator", NULL };
    const tok *what = lex_next(c, "machine, task or coordinator");
    if (what == NULL) return false;
    if (lex_is(what, "machine")) {
        f->kind = SCN_CRASH_MACHINE;
        return machine_arg(c, f) && for_duration(c, f, false);
    }
    if (lex_is(what, "task")) {
        f->kind = SCN_CRASH_TASK;
        return task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask);
    }
    if (lex_is(what, "coordinator")) {
        f->kind = SCN_CRASH_COORDINATOR;
        return for_duration(c, f, false);
    }
    return lex_unknown(c, what, "crash target", what_kinds);
}

/* A pause stops its target handling anything and resumes it with its
 * state, so it always has a window: without one it would be a crash. */
static bool fault_pause(pctx *c, scn_fault *f) {
    static const char *const what_kinds[] = { "machine", "task", "coordinator", NULL };
    const tok *what = lex_next(c, "machine, task or coordinator");
    if (what == NULL) return false;
    if (lex_is(what, "machine")) {
        f->kind = SCN_PAUSE_MACHINE;
        if (!machine_arg(c, f)) return false;
    } else if (lex_is(what, "task")) {
        f->kind = SCN_PAUSE_TASK;
        if (!task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask)) return false;
    } else if (lex_is(what, "coordinator")) {
        f->kind = SCN_PAUSE_COORDINATOR;
    } else {
        return lex_unknown(c, what, "pause target", what_kinds);
    }
    return for_duration(c, f, true);
}

static bool fault_partition(pctx *c, scn_fault *f) {
    f->kind = SCN_PARTITION;
    const tok *a = lex_next(c, "machines, as 0,1");
    if (a == NULL || !lex_machine_set(c, a, &f->machines_a)) return false;
    if (!lex_expect_word(c, "|")) return false;
    const tok *b = lex_next(c, "machines, as 2 or jm");
    if (b == NULL || !lex_machine_set(c, b, &f->machines_b)) return false;
    if (f->machines_a & f->machines_b) return lex_fail_at(c, b->col, "a machine cannot be on both sides of a partition");
    return for_duration(c, f, true);
}

/* The kinds are few and not guessable: list them even with a suggestion. */
static bool unknown_rpc_kind(pctx *c, const tok *t) {
    const char *best = lex_nearest(t, pipe_rpc_kind_names);
    char list[256], mean[64] = "";
    lex_choice_list(pipe_rpc_kind_names, list, sizeof list);
    if (best != NULL) snprintf(mean, sizeof mean, "did you mean '%s'? ", best);
    return lex_fail_at(c, t->col, "unknown RPC kind '%.*s' (%sexpected a task, as agg[1], or one of the kinds: %s)",
                   (int)t->len, t->s, mean, list);
}

/* After "rpc": an optional RPC kind (pipe_rpc_kind_names), then the task.
 * A word without a subscript that names no vertex is taken for a kind, so
 * a mistyped kind is reported as one, with the kinds listed. */
static bool rpc_ref(pctx *c, scn_fault *f) {
    const tok *t = lex_next(c, "a task, as agg[1], or an RPC kind such as ack");
    if (t == NULL) return false;
    f->rpc = 0;
    if (memchr(t->s, '[', t->len) == NULL && lex_find_vertex(c, t->s, t->len) < 0) {   /* a vertex: a task was meant */
        for (uint32_t i = 0; pipe_rpc_kind_names[i] != NULL && f->rpc == 0; i++) {
            if (lex_is(t, pipe_rpc_kind_names[i])) f->rpc = i + 1;
        }
        if (f->rpc == 0) return unknown_rpc_kind(c, t);
        t = lex_next(c, "a task, as agg[1] (the RPCs of this kind between it and the coordinator)");
        if (t == NULL) return false;
    }
    return lex_task_ref(c, t, &f->vertex, &f->subtask);
}

static bool fault_delay_cut(pctx *c, scn_fault *f, bool delay) {
    const tok *what = lex_next(c, delay ? "link or rpc" : "link");
    if (what == NULL) return false;
    if (delay && lex_is(what, "rpc")) {
        f->kind = SCN_DELAY_RPC;
        if (!rpc_ref(c, f)) return false;
    } else if (lex_is(what, "link")) {
        f->kind = delay ? SCN_DELAY_LINK : SCN_CUT_LINK;
        if (!link_ref(c, f)) return false;
    } else if (delay) {
        static const char *const delay_kinds[] = { "link", "rpc", NULL };
        return lex_unknown(c, what, "delay target", delay_kinds);
    } else {
        return lex_fail_at(c, what->col, "expected 'link', not '%.*s'", (int)what->len, what->s);
    }
    if (delay && (!lex_expect_word(c, "by") || !lex_opt_duration(c, &f->delay_ns))) return false;
    return for_duration(c, f, true);
}

/* rescale V to N: at a time (the JobManager's decision), not at a point. */
static bool fault_rescale(pctx *c, scn_fault *f) {
    f->kind = SCN_RESCALE;
    if (f->point != SCN_AT_TIME) return lex_fail_at(c, f->col, "a rescale is at a time ('fault at 60ms rescale ...'), not at a protocol point");
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->s->faults_count; i++) n += c->s->faults[i].kind == SCN_RESCALE;
    if (n == PIPE_RESCALES_MAX) return lex_fail_at(c, f->col, "more than %u rescales", PIPE_RESCALES_MAX);
    const tok *v = lex_next(c, "a vertex to rescale");
    if (v == NULL || !lex_vertex_ref(c, v, &f->vertex) || !lex_expect_word(c, "to")) return false;
    const tok *t = lex_next(c, "the new parallelism");
    uint64_t p;
    if (t == NULL || !lex_count(c, t, 1, JOB_PARALLELISM_MAX, &p)) return false;
    f->parallelism = (uint32_t)p;
    return true;
}

static bool fault_lose(pctx *c, scn_fault *f) {
    f->kind = SCN_LOSE_RPC;
    if (!lex_expect_word(c, "rpc") || !rpc_ref(c, f)) return false;
    const tok *p = lex_next(c, "a percentage such as 30%");
    if (p == NULL || !lex_percent(c, p, &f->ratio)) return false;
    return for_duration(c, f, true);
}

static bool fault_slow(pctx *c, scn_fault *f) {
    static const char *const slow_kinds[] = { "store", "task", NULL };
    const tok *what = lex_next(c, "store or task");
    if (what == NULL) return false;
    if (lex_is(what, "store")) {
        f->kind = SCN_SLOW_STORE;
    } else if (lex_is(what, "task")) {
        f->kind = SCN_SLOW_TASK;
        uint32_t slow = 0;
        for (uint32_t i = 0; i < c->s->faults_count; i++) slow += c->s->faults[i].kind == SCN_SLOW_TASK;
        if (slow == PIPE_SLOW_MAX) return lex_fail_at(c, what->col, "more than %u slow tasks", PIPE_SLOW_MAX);
        if (!task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask)) return false;
    } else {
        return lex_unknown(c, what, "slow target", slow_kinds);
    }
    return factor(c, &f->factor) && for_duration(c, f, true);
}

/* fail store P% / ambiguous store|ha P%: a share of the store's writes
 * (ha: the HA services' completed-checkpoint store, ambiguous only). */
static bool fault_store_ratio(pctx *c, scn_fault *f, scn_fault_kind kind) {
    f->kind = kind;
    if (kind == SCN_AMBIGUOUS_STORE && c->i < c->n && lex_is(&c->t[c->i], "ha")) {
        f->ha = true;
        c->i++;
    } else if (!lex_expect_word(c, "store")) {
        return false;
    }
    const tok *p = lex_next(c, "a percentage of writes such as 30%");
    if (p == NULL || !lex_percent(c, p, &f->ratio)) return false;
    return for_duration(c, f, true);
}

/* The head of a fault line: `optional` at its end, then `at T` or `when
 * POINT [after D]`. */
static bool fault_head(pctx *c, scn_fault *f) {
    if (c->n > c->i && lex_is(&c->t[c->n - 1], "optional")) {   /* allowed not to fire */
        f->optional = true;
        c->eol_col = c->t[c->n - 1].col;           /* what is missing goes where 'optional' is */
        c->n--;
    }
    const tok *w = lex_next(c, "'at' and a time, or 'when' and a protocol point");
    if (w == NULL) return false;
    if (lex_is(w, "when")) {                          /* a named protocol point */
        if (!point(c, f)) return false;
        if (c->i < c->n && lex_is(&c->t[c->i], "after")) {   /* optional delay after the point */
            c->i++;
            if (!lex_opt_duration(c, &f->at_ns)) return false;
        }
        return true;
    }
    if (!lex_is(w, "at")) {
        return lex_fail_at(c, w->col, "expected 'at' and a time, or 'when' and a protocol point, not '%.*s'", (int)w->len, w->s);
    }
    return lex_opt_duration(c, &f->at_ns);
}

bool st_fault(pctx *c) {
    static const char *const kinds[] = { "crash", "partition", "delay", "cut", "lose", "slow", "fail", "pause",
                                         "ambiguous", "rescale", NULL };
    scn *s = c->s;
    if (s->faults_count == SCN_FAULTS_MAX) return lex_fail_at(c, 1, "more than %u faults", SCN_FAULTS_MAX);
    scn_fault f = { .line = c->line };
    if (!fault_head(c, &f)) return false;
    const tok *k = lex_next(c, "a fault (crash, partition, delay, cut, lose, slow, fail, pause, ambiguous, rescale)");
    if (k == NULL) return false;
    f.col = k->col;
    bool ok;
    if (lex_is(k, "crash")) ok = fault_crash(c, &f);
    else if (lex_is(k, "pause")) ok = fault_pause(c, &f);
    else if (lex_is(k, "partition")) ok = fault_partition(c, &f);
    else if (lex_is(k, "delay") || lex_is(k, "cut")) ok = fault_delay_cut(c, &f, lex_is(k, "delay"));
    else if (lex_is(k, "lose")) ok = fault_lose(c, &f);
    else if (lex_is(k, "slow")) ok = fault_slow(c, &f);
    else if (lex_is(k, "fail")) ok = fault_store_ratio(c, &f, SCN_FAIL_STORE);
    else if (lex_is(k, "ambiguous")) ok = fault_store_ratio(c, &f, SCN_AMBIGUOUS_STORE);
    else if (lex_is(k, "rescale")) ok = fault_rescale(c, &f);
    else return lex_unknown(c, k, "fault", kinds);
    if (!ok) return false;
    if (lex_more(c)) return lex_fail_at(c, c->t[c->i].col, "unexpected '%.*s' at the end of the fault", (int)c->t[c->i].len, c->t[c->i].s);
    s->faults[s->faults_count++] = f;
    return true;
}

/* "12.5%": in 1/10000 %, as the reader reads it. */
static void put_percent(txt_buf *b, sim_ratio r) {
    uint64_t ppm = (uint64_t)r.num * 1000000 / r.den;
    txt_decimal(b, ppm / 10000, ppm % 10000, 4);
    txt_put(b, "%%");
}

static void put_for(txt_buf *b, sim_time_ns ns) {
    txt_put(b, " for ");
    txt_duration(b, ns);
}

/* "fault at 10ms " or "fault when agg[1] aligning 3 after 1ms ". */
static void put_when(txt_buf *b, const job *j, const scn_fault *x) {
    static const char *const points[] = { [SCN_WHEN_ALIGNING] = "aligning", [SCN_WHEN_TRIGGERS] = "triggers",
                                          [SCN_WHEN_STARTS] = "starts", [SCN_WHEN_COMPLETES] = "completes",
                                          [SCN_WHEN_SNAPSHOT_SYNC] = "snapshot-sync", [SCN_WHEN_COMMITS] = "commits" };
    if (x->point == SCN_AT_TIME) {
        txt_put(b, "fault at ");
        txt_duration(b, x->at_ns);
        txt_put(b, " ");
        return;
    }
    txt_put(b, "fault when ");
    if (x->point == SCN_WHEN_STARTS || x->point == SCN_WHEN_COMPLETES) {
        txt_put(b, "checkpoint %" PRIu64 " %s ", x->point_ckpt, points[x->point]);
    } else {
        txt_task(b, j, x->point_vertex, x->point_subtask);
        txt_put(b, " %s %" PRIu64 " ", points[x->point], x->point_ckpt);
    }
    if (x->at_ns > 0) {
        txt_put(b, "after ");
        txt_duration(b, x->at_ns);
        txt_put(b, " ");
    }
}

/* "lose rpc ack out[0] 50%" / "delay rpc out[0] by 3ms": the RPCs of a task. */
static void put_rpc(txt_buf *b, const job *j, const scn_fault *x) {
    txt_put(b, "%s rpc ", x->kind == SCN_LOSE_RPC ? "lose" : "delay");
    if (x->rpc > 0) txt_put(b, "%s ", pipe_rpc_kind_names[x->rpc - 1]);
    txt_task(b, j, x->vertex, x->subtask);
    if (x->kind == SCN_LOSE_RPC) {
        txt_put(b, " ");
        put_percent(b, x->ratio);
    } else {
        txt_put(b, " by ");
        txt_duration(b, x->delay_ns);
    }
    put_for(b, x->duration_ns);
}

/* A fault of a target with a window: what it does, then "for D". */
static void put_windowed(txt_buf *b, const scn *s, const scn_fault *x) {
    const job *j = &s->cfg.graph;
    switch (x->kind) {
    case SCN_PARTITION:
        txt_put(b, "partition ");
        txt_machines(b, x->machines_a, s->cfg.machines);
        txt_put(b, " | ");
        txt_machines(b, x->machines_b, s->cfg.machines);
        break;
    case SCN_DELAY_LINK:
    case SCN_CUT_LINK:
        txt_put(b, "%s link ", x->kind == SCN_DELAY_LINK ? "delay" : "cut");
        txt_task(b, j, x->vertex, x->subtask);
        txt_put(b, " -> ");
        txt_task(b, j, x->vertex2, x->subtask2);
        if (x->kind == SCN_DELAY_LINK) {
            txt_put(b, " by ");
            txt_duration(b, x->delay_ns);
        }
        break;
    case SCN_SLOW_STORE: txt_put(b, "slow store %ux", x->factor); break;
    case SCN_FAIL_STORE:
    case SCN_AMBIGUOUS_STORE:
        txt_put(b, "%s %s ", x->kind == SCN_FAIL_STORE ? "fail" : "ambiguous", x->ha ? "ha" : "store");
        put_percent(b, x->ratio);
        break;
    case SCN_SLOW_TASK:
        txt_put(b, "slow task ");
        txt_task(b, j, x->vertex, x->subtask);
        txt_put(b, " %ux", x->factor);
        break;
    case SCN_PAUSE_MACHINE: txt_put(b, "pause machine %u", x->machine); break;
    case SCN_PAUSE_COORDINATOR: txt_put(b, "pause coordinator"); break;
    case SCN_PAUSE_TASK:
        txt_put(b, "pause task ");
        txt_task(b, j, x->vertex, x->subtask);
        break;
    default: SIM_ASSERT(!"told by put_what"); break;
    }
    put_for(b, x->duration_ns);
}

static void put_what(txt_buf *b, const scn *s, const scn_fault *x) {
    const job *j = &s->cfg.graph;
    switch (x->kind) {
    case SCN_CRASH_MACHINE:
        txt_put(b, "crash machine %u", x->machine);
        if (x->duration_ns > 0) put_for(b, x->duration_ns);
        break;
    case SCN_CRASH_TASK:
        txt_put(b, "crash task ");
        txt_task(b, j, x->vertex, x->subtask);
        break;
    case SCN_CRASH_COORDINATOR:
        txt_put(b, "crash coordinator");
        if (x->duration_ns > 0) put_for(b, x->duration_ns);
        break;
    case SCN_RESCALE: txt_put(b, "rescale %s to %u", j->vertices[x->vertex].name, x->parallelism); break;
    case SCN_LOSE_RPC:
    case SCN_DELAY_RPC: put_rpc(b, j, x); break;
    default: put_windowed(b, s, x); break;
    }
}

const char *scn_fault_text(const scn *s, const scn_fault *f, char *buf, size_t n) {
    SIM_ASSERT(n > 0);
    txt_buf b = { .s = buf, .n = n };
    buf[0] = '\0';
    put_when(&b, &s->cfg.graph, f);
    put_what(&b, s, f);
    if (f->optional) txt_put(&b, " optional");
    return buf;
}
