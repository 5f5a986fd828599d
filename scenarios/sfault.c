/* scenarios/sfault.c: the fault statement, read and written back. */
#include "fkind.h"
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
    if (f->point == SCN_WHEN_COMMITS) {          /* a two-phase-commit sink or a Sink V2 committer commits */
        const job_vertex *v = &c->s->cfg.graph.vertices[f->point_vertex];
        if (v->kind != JOB_SINK && v->kind != JOB_COMMITTER)
            return lex_fail_at(c, what->col, "only a sink or a committer commits, and %s is not one", v->name);
        if (v->kind == JOB_SINK && v->sink != JOB_SINK_2PC) {
            return lex_fail_at(c, what->col, "%s commits nothing: %s (commits needs output two-phase-commit, or a "
                               "committer)", v->name, v->sink == JOB_SINK_V2 ? "a sink-v2 writer's committer commits"
                               : v->sink == JOB_SINK_IDEMPOTENT ? "its output is idempotent" : "its output is plain");
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

/* partition A | B: two sets of machines, none on both sides. */
static bool machines_pair(pctx *c, scn_fault *f) {
    const tok *a = lex_next(c, "machines, as 0,1");
    if (a == NULL || !lex_machine_set(c, a, &f->machines_a)) return false;
    if (!lex_expect_word(c, "|")) return false;
    const tok *b = lex_next(c, "machines, as 2 or jm");
    if (b == NULL || !lex_machine_set(c, b, &f->machines_b)) return false;
    if (f->machines_a & f->machines_b) return lex_fail_at(c, b->col, "a machine cannot be on both sides of a partition");
    return true;
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

/* The target a row names, after its words. */
static bool target(pctx *c, const fk_info *k, scn_fault *f) {
    switch (k->target) {
    case FK_MACHINE:     return machine_arg(c, f);
    case FK_TASK:        return task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask);
    case FK_COORDINATOR: return true;
    case FK_MACHINES:    return machines_pair(c, f);
    case FK_LINK:        return link_ref(c, f);
    case FK_RPC:         return rpc_ref(c, f);
    case FK_STORE:       return true;                 /* the object word named it */
    case FK_JOB:         return true;
    case FK_VERTEX: {
        const tok *v = lex_next(c, "a vertex to rescale");
        return v != NULL && lex_vertex_ref(c, v, &f->vertex);
    }
    }
    SIM_ASSERT(!"a target kind the reader knows");
    return false;
}

/* `resume after D [claim|no-claim|legacy]` (the mode: Flink's default,
 * NO_CLAIM, when left out). */
static bool resume_param(pctx *c, scn_fault *f) {
    static const char *const modes[] = { "no-claim", "claim", "legacy", NULL };
    if (f->kind == SCN_STOP_JOB && lex_more(c) && lex_is(&c->t[c->i], "drain")) {   /* flink stop --drain: for good */
        c->i++;
        f->drain = true;
        f->claim = PIPE_CLAIM_NO_CLAIM;           /* a resume to commit after a failure (FLINK-26783) is the default's */
        if (lex_more(c) && lex_is(&c->t[c->i], "resume")) {
            return lex_fail_at(c, c->t[c->i].col, "a drained job ends for good: its savepoint's tasks all finished "
                               "(stop --drain), there is nothing to resume");
        }
        return true;
    }
    if (!lex_more(c) || !lex_is(&c->t[c->i], "resume")) {
        return lex_fail_at(c, lex_more(c) ? c->t[c->i].col : c->eol_col,
                           "expected 'resume after D' (a job stopped or cancelled for good is not modelled yet)");
    }
    c->i++;
    if (!lex_expect_word(c, "after") || !lex_opt_duration(c, &f->resume_ns)) return false;
    f->claim = PIPE_CLAIM_NO_CLAIM;
    if (!lex_more(c)) return true;
    const tok *m = &c->t[c->i];
    for (uint32_t i = 0; modes[i] != NULL; i++) {
        if (!lex_is(m, modes[i])) continue;
        c->i++;
        f->claim = PIPE_CLAIM_NO_CLAIM + i;
        return true;
    }
    return lex_unknown(c, m, "restore mode", modes);
}

/* The row's parameter, after its target. */
static bool param(pctx *c, const fk_info *k, scn_fault *f) {
    switch (k->param) {
    case FK_NO_PARAM:  return true;
    case FK_BY_DELAY:  return lex_expect_word(c, "by") && lex_opt_duration(c, &f->delay_ns);
    case FK_FACTOR:    return factor(c, &f->factor);
    case FK_RATIO: {
        const tok *p = lex_next(c, k->param_hint != NULL ? k->param_hint : "a percentage such as 30%");
        return p != NULL && lex_percent(c, p, &f->ratio);
    }
    case FK_TO_PARALLELISM: {
        if (!lex_expect_word(c, "to")) return false;
        const tok *t = lex_next(c, "the new parallelism");
        uint64_t n;
        if (t == NULL || !lex_count(c, t, 1, JOB_PARALLELISM_MAX, &n)) return false;
        f->parallelism = (uint32_t)n;
        return true;
    }
    case FK_RESUME: return resume_param(c, f);
    }
    SIM_ASSERT(!"a parameter kind the reader knows");
    return false;
}

/* "machine, task or coordinator": the objects of a verb's rows, in the
 * table's order, into list (NULL-terminated) and hint. */
static uint32_t objects_of(const char *verb, const char **list, char *hint, size_t n) {
    uint32_t count = 0;
    for (uint32_t i = 0; fk_at(i) != NULL; i++) {
        if (strcmp(fk_at(i)->verb, verb) == 0 && fk_at(i)->object != NULL) list[count++] = fk_at(i)->object;
    }
    list[count] = NULL;
    size_t used = 0;
    hint[0] = '\0';
    for (uint32_t i = 0; i < count && used < n; i++) {
        const char *sep = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        int w = snprintf(hint + used, n - used, "%s%s", sep, list[i]);
        used = w < 0 ? n : used + (size_t)w;
    }
    return count;
}

/* The row of `verb` and the object word after it (none for a verb whose
 * row names no object); NULL and the error when there is none. A kind
 * that may act on the HA services' store takes `ha` for `store`. */
static const fk_info *row_of(pctx *c, const tok *verb, scn_fault *f, uint32_t *col) {
    char v[16];
    snprintf(v, sizeof v, "%.*s", (int)(verb->len < sizeof v ? verb->len : sizeof v - 1), verb->s);
    const char *objects[16];
    char hint[96], what[32];
    uint32_t n = objects_of(v, objects, hint, sizeof hint);
    *col = verb->col;
    for (uint32_t i = 0; n == 0 && fk_at(i) != NULL; i++) {
        if (strcmp(fk_at(i)->verb, v) == 0) return fk_at(i);   /* its target follows the verb */
    }
    const tok *o;
    if (n == 1) {
        const fk_info *k = NULL;
        for (uint32_t i = 0; k == NULL && fk_at(i) != NULL; i++) k = strcmp(fk_at(i)->verb, v) == 0 ? fk_at(i) : NULL;
        if ((k->flags & FK_HA) && lex_more(c) && lex_is(&c->t[c->i], "ha")) {
            f->ha = true;
            *col = c->t[c->i++].col;
            return k;
        }
        if (!lex_expect_word(c, k->object)) return NULL;
        *col = c->t[c->i - 1].col;
        return k;
    }
    if ((o = lex_next(c, hint)) == NULL) return NULL;
    *col = o->col;
    for (uint32_t i = 0; fk_at(i) != NULL; i++) {
        const fk_info *k = fk_at(i);
        if (strcmp(k->verb, v) == 0 && k->object != NULL && lex_is(o, k->object)) return k;
    }
    snprintf(what, sizeof what, "%s target", v);
    lex_unknown(c, o, what, objects);
    return NULL;
}

/* One fault's words after its head, by its row: verb [object], the
 * target, the parameter, the window. */
static bool fault_body(pctx *c, const tok *verb, scn_fault *f) {
    uint32_t col;
    const fk_info *k = row_of(c, verb, f, &col);
    if (k == NULL) return false;
    f->kind = k->kind;
    if ((k->flags & FK_AT_TIME) && f->point != SCN_AT_TIME) {
        return lex_fail_at(c, f->col, "a %s is at a time ('fault at 60ms %s ...'), not at a protocol point", k->verb,
                           k->verb);
    }
    uint32_t same = 0;
    for (uint32_t i = 0; i < c->s->faults_count; i++) same += c->s->faults[i].kind == k->kind;
    if (k->max > 0 && same == k->max) return lex_fail_at(c, col, "more than %u %s", k->max, k->max_what);
    if (!target(c, k, f) || !param(c, k, f)) return false;
    return k->window == FK_NO_WINDOW || for_duration(c, f, k->window == FK_WINDOW_REQUIRED);
}

bool st_fault(pctx *c) {
    const char *verbs[24];
    char hint[160] = "a fault (";
    uint32_t n = 0;
    for (uint32_t i = 0; fk_at(i) != NULL; i++) {      /* each verb once, in the table's order */
        bool seen = false;
        for (uint32_t k = 0; k < n; k++) seen |= strcmp(verbs[k], fk_at(i)->verb) == 0;
        if (seen) continue;
        SIM_ASSERT(n + 1 < sizeof verbs / sizeof verbs[0]);
        verbs[n++] = fk_at(i)->verb;
        snprintf(hint + strlen(hint), sizeof hint - strlen(hint), "%s%s", n > 1 ? ", " : "", fk_at(i)->verb);
    }
    verbs[n] = NULL;
    snprintf(hint + strlen(hint), sizeof hint - strlen(hint), ")");
    scn *s = c->s;
    if (s->faults_count == SCN_FAULTS_MAX) return lex_fail_at(c, 1, "more than %u faults", SCN_FAULTS_MAX);
    scn_fault f = { .line = c->line };
    if (!fault_head(c, &f)) return false;
    const tok *k = lex_next(c, hint);
    if (k == NULL) return false;
    f.col = k->col;
    bool known = false;
    for (uint32_t i = 0; i < n; i++) known |= lex_is(k, verbs[i]);
    if (!known) return lex_unknown(c, k, "fault", verbs);
    if (!fault_body(c, k, &f)) return false;
    if (lex_more(c)) {
        return lex_fail_at(c, c->t[c->i].col, "unexpected '%.*s' at the end of the fault", (int)c->t[c->i].len,
                           c->t[c->i].s);
    }
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

/* "lose rpc ack out[0]", "link map[0] -> agg[1]", "machine 1": the target. */
static void put_target(txt_buf *b, const scn *s, const fk_info *k, const scn_fault *x) {
    const job *j = &s->cfg.graph;
    switch (k->target) {
    case FK_MACHINE: txt_put(b, " %u", x->machine); return;
    case FK_TASK:
        txt_put(b, " ");
        txt_task(b, j, x->vertex, x->subtask);
        return;
    case FK_COORDINATOR:
    case FK_STORE: return;                             /* the object word named it */
    case FK_MACHINES:
        txt_put(b, " ");
        txt_machines(b, x->machines_a, s->cfg.machines);
        txt_put(b, " | ");
        txt_machines(b, x->machines_b, s->cfg.machines);
        return;
    case FK_LINK:
        txt_put(b, " ");
        txt_task(b, j, x->vertex, x->subtask);
        txt_put(b, " -> ");
        txt_task(b, j, x->vertex2, x->subtask2);
        return;
    case FK_RPC:
        if (x->rpc > 0) txt_put(b, " %s", pipe_rpc_kind_names[x->rpc - 1]);
        txt_put(b, " ");
        txt_task(b, j, x->vertex, x->subtask);
        return;
    case FK_VERTEX: txt_put(b, " %s", j->vertices[x->vertex].name); return;
    case FK_JOB: return;                               /* the object word named it */
    }
    SIM_ASSERT(!"a target kind the writer knows");
}

static void put_param(txt_buf *b, const fk_info *k, const scn_fault *x) {
    switch (k->param) {
    case FK_NO_PARAM: return;
    case FK_BY_DELAY:
        txt_put(b, " by ");
        txt_duration(b, x->delay_ns);
        return;
    case FK_RATIO:
        txt_put(b, " ");
        put_percent(b, x->ratio);
        return;
    case FK_FACTOR: txt_put(b, " %ux", x->factor); return;
    case FK_TO_PARALLELISM: txt_put(b, " to %u", x->parallelism); return;
    case FK_RESUME: {
        static const char *const modes[] = { [PIPE_CLAIM_NO_CLAIM] = "no-claim", [PIPE_CLAIM_CLAIM] = "claim",
                                             [PIPE_CLAIM_LEGACY] = "legacy" };
        if (x->drain) {
            txt_put(b, " drain");
            return;
        }
        SIM_ASSERT(x->claim >= PIPE_CLAIM_NO_CLAIM && x->claim <= PIPE_CLAIM_LEGACY);
        txt_put(b, " resume after ");
        txt_duration(b, x->resume_ns);
        txt_put(b, " %s", modes[x->claim]);
        return;
    }
    }
    SIM_ASSERT(!"a parameter kind the writer knows");
}

/* What the fault does, as the reader reads it back: its row's words, the
 * target, the parameter, the window. */
static void put_what(txt_buf *b, const scn *s, const scn_fault *x) {
    const fk_info *k = fk_of(x->kind);
    txt_put(b, "%s", k->verb);
    if (k->object != NULL) txt_put(b, " %s", x->ha ? "ha" : k->object);
    put_target(b, s, k, x);
    put_param(b, k, x);
    if (k->window == FK_WINDOW_REQUIRED || (k->window == FK_WINDOW_OPTIONAL && x->duration_ns > 0)) {
        put_for(b, x->duration_ns);
    }
}

const char *scn_fault_what(const scn *s, const scn_fault *f, char *buf, size_t n) {
    SIM_ASSERT(n > 0);
    txt_buf b = { .s = buf, .n = n };
    buf[0] = '\0';
    put_what(&b, s, f);
    return buf;
}

const char *scn_point_text(const scn *s, const scn_fault *f, char *buf, size_t n) {
    SIM_ASSERT(n > 0 && f->point != SCN_AT_TIME);
    txt_buf b = { .s = buf, .n = n };
    buf[0] = '\0';
    put_when(&b, &s->cfg.graph, f);
    size_t len = strlen(buf);
    if (len > 0 && buf[len - 1] == ' ') buf[len - 1] = '\0';
    return strncmp(buf, "fault ", 6) == 0 ? memmove(buf, buf + 6, strlen(buf + 6) + 1) : buf;
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
