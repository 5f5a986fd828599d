/* cli/story.c: what happened in a run, told in its summary, its --json
 * line and its --trace: the faults of the script (scripted or drawn by
 * --faults random), when each began and ended and what it acted on; each
 * failure of the job, which task, why and the fault behind it; each
 * restart, from which checkpoint and how many records the sources
 * rewound; the settings `vary` drew. Everything comes from observers (the
 * kernel's fault observer, the model's protocol steps) and read-only
 * views, so the run is the run it would be without them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../model/flow/ckrules.h"

#define TARGET_BYTES 600u                   /* a partition may name 64 machines a side */

static double ms(sim_time_ns ns) { return (double)ns / 1e6; }

static void task_text(const job *j, uint32_t v, uint32_t i, char *buf, size_t n) {
    snprintf(buf, n, "%s[%u]", j->vertices[v].name, i);
}

/* "0,1" or "jm": a partition side as the scenario writes it. */
static void machines_text(uint64_t mask, uint32_t machines, char *buf, size_t n) {
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t m = 0; m <= machines && used < n; m++) {
        if (!(mask & (1ull << m))) continue;
        int w = m == machines ? snprintf(buf + used, n - used, "%sjm", used ? "," : "")
                              : snprintf(buf + used, n - used, "%s%u", used ? "," : "", m);
        used = w < 0 ? n : used + (size_t)w;
    }
}

/* The RPCs a lose or delay rpc fault acts on: "out[0] -> coordinator"
 * (every message), "coordinator -> agg[1] (deploy)", "out[0] ->
 * coordinator (ack)": the direction is the kind's. */
static void rpc_text(const job *j, const scn_fault *f, char *buf, size_t n) {
    char a[CLI_STORY_NAME];
    task_text(j, f->vertex, f->subtask, a, sizeof a);
    if (f->rpc == 0) {
        snprintf(buf, n, "%s -> coordinator", a);
        return;
    }
    const char *kind = pipe_rpc_kind_names[f->rpc - 1];
    uint32_t type = 0;
    bool to_task = false;
    pipe_rpc_kind(kind, &type, &to_task);
    if (to_task) snprintf(buf, n, "coordinator -> %s (%s)", a, kind);
    else snprintf(buf, n, "%s -> coordinator (%s)", a, kind);
}

/* What a fault acts on, in the scenario's words: "machine 1", "agg[1]",
 * "map[0] -> agg[1]", "out[0] -> coordinator", "0 | 1,jm", "store". */
static void target_text(const scn *s, const scn_fault *f, char *buf, size_t n) {
    const job *j = &s->cfg.graph;
    char a[TARGET_BYTES / 2 - 8], b[TARGET_BYTES / 2 - 8];
    switch (fk_of(f->kind)->target) {
    case FK_MACHINE:     snprintf(buf, n, "machine %u", f->machine); return;
    case FK_TASK:        task_text(j, f->vertex, f->subtask, buf, n); return;
    case FK_RPC:         rpc_text(j, f, buf, n); return;
    case FK_LINK:
        task_text(j, f->vertex, f->subtask, a, sizeof a);
        task_text(j, f->vertex2, f->subtask2, b, sizeof b);
        snprintf(buf, n, "%s -> %s", a, b);
        return;
    case FK_MACHINES:
        machines_text(f->machines_a, s->cfg.machines, a, sizeof a);
        machines_text(f->machines_b, s->cfg.machines, b, sizeof b);
        snprintf(buf, n, "%s | %s", a, b);
        return;
    case FK_COORDINATOR: snprintf(buf, n, "coordinator"); return;
    case FK_STORE:       snprintf(buf, n, "%s", f->ha ? "ha" : "store"); return;
    case FK_VERTEX:      snprintf(buf, n, "%s", j->vertices[f->vertex].name); return;
    case FK_JOB:         snprintf(buf, n, "job"); return;
    }
    snprintf(buf, n, "?");
}

/* The target as the story tells it: the store in full. */
static void told_target(const scn *s, const scn_fault *f, char *buf, size_t n) {
    if (fk_of(f->kind)->target == FK_STORE) snprintf(buf, n, "%s", f->ha ? "HA services' checkpoint store" : "store");
    else target_text(s, f, buf, n);
}

/* A machine crash or pause names the tasks it stopped. */
static bool on_machine(scn_fault_kind k) { return fk_of(k)->target == FK_MACHINE; }

static uint32_t task_of(const pipeline *p, uint32_t vertex, uint32_t subtask) {
    return pipe_job(p)->vertex_first_task[vertex] + subtask;
}

/* The tasks a machine holds, "source[1] map[1] agg[1]" (cut with "..."). */
static void victims_text(const pipeline *p, uint32_t machine, char *buf, size_t n) {
    const job *j = pipe_job(p);
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        if (pipe_task_host(p, t) != machine) continue;   /* with slots, where it runs now */
        char name[CLI_STORY_NAME];
        task_text(j, j->tasks[t].vertex, j->tasks[t].subtask, name, sizeof name);
        if (used + strlen(name) + 5 >= n) {
            snprintf(buf + used, n - used, "%s...", used ? " " : "");
            return;
        }
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? " " : "", name);
    }
}

/* A JSON string: the names and texts here hold no quote, but say so safely. */
static void json_str(FILE *out, const char *text) {
    fputc('"', out);
    for (const char *q = text; *q; q++) {
        if (*q == '"' || *q == '\\') fputc('\\', out);
        fputc(*q, out);
    }
    fputc('"', out);
}

/* ---- during the run -------------------------------------------------------- */

/* "machine 0 crashes, with source[0] map[0] on it (line 22: fault at
 * 53ms crash machine 0 for 10ms)": what fault i does as it begins or ends. */
void cli_fault_words(const scn *s, const cli_story *st, uint32_t i, bool begin, char *buf, size_t n) {
    const scn_fault *f = &s->faults[i];
    char target[TARGET_BYTES], text[SCN_FAULT_TEXT_BYTES], line[32] = "";
    told_target(s, f, target, sizeof target);
    scn_fault_text(s, f, text, sizeof text);
    if (f->line > 0) snprintf(line, sizeof line, "line %u: ", f->line);
    const char *victims = st->faults[i].victims;
    const fk_info *k = fk_of(f->kind);
    int w = snprintf(buf, n, begin ? k->begins : k->ends, target);
    if (w < 0 || (size_t)w >= n) return;
    if (begin && on_machine(f->kind) && victims[0] != '\0') w += snprintf(buf + w, n - (size_t)w, ", with %s on it", victims);
    if (w >= 0 && (size_t)w < n) snprintf(buf + w, n - (size_t)w, " (%s%s)", line, text);
}

/* The trace's fault step: kind, target, the tasks a machine crash took,
 * the scenario line and its text; the picture's incident; explain's line. */
static void trace_fault(cli_story_run *r, uint32_t i, sim_time_ns at_ns, bool begin) {
    const scn_fault *f = &r->s->faults[i];
    bool instant = !begin && f->duration_ns == 0;          /* an end at once (a crash for good) is no news */
    if (r->on_fault != NULL && !instant) r->on_fault(r->on_fault_ctx, i, at_ns, begin);
    if (r->rec == NULL) return;
    char target[TARGET_BYTES], text[SCN_FAULT_TEXT_BYTES], tasks[2 * CLI_STORY_VICTIMS] = "", fields[2048];
    target_text(r->s, f, target, sizeof target);
    scn_fault_text(r->s, f, text, sizeof text);
    if (r->rec->keep && !instant) {                       /* "crash machine 1 for 20ms (line 25)" */
        char mark[SCN_FAULT_TEXT_BYTES + 2 * CLI_STORY_VICTIMS];
        const char *words = strncmp(text, "fault ", 6) == 0 ? text + 6 : text;   /* the box says when already */
        if (strncmp(words, "at ", 3) == 0 && strchr(words + 3, ' ') != NULL) words = strchr(words + 3, ' ') + 1;
        int w = snprintf(mark, sizeof mark, "%s", words);
        if (f->line > 0 && w >= 0 && (size_t)w < sizeof mark) w += snprintf(mark + w, sizeof mark - (size_t)w, " (line %u)", f->line);
        if (begin && r->st->faults[i].victims[0] != '\0' && w >= 0 && (size_t)w < sizeof mark) {
            snprintf(mark + w, sizeof mark - (size_t)w, ", on %s", r->st->faults[i].victims);
        }
        rpt_fault_mark(r->rec, at_ns, begin, mark);
    }
    if (r->rec->trace == NULL) return;
    const char *v = r->st->faults[i].victims;
    if (on_machine(f->kind)) {                            /* ["source[1]","map[1]"] */
        size_t used = (size_t)snprintf(tasks, sizeof tasks, ",\"tasks\":[\"");
        for (; *v && used + 4 < sizeof tasks; v++) {
            if (*v == ' ') used += (size_t)snprintf(tasks + used, sizeof tasks - used, "\",\"");
            else tasks[used++] = *v;
        }
        snprintf(tasks + used, sizeof tasks - used, "\"]");
    }
    snprintf(fields, sizeof fields, ",\"fault\":%u,\"kind\":\"%s\",\"target\":\"%s\"%s,\"line\":%u,\"text\":\"%s\"", i,
             fk_of(f->kind)->name, target, tasks, f->line, text);
    rpt_fault(r->rec, at_ns, begin, fields);
}

/* Slow task windows are the model's, not the kernel's: no event marks
 * them, so they are told once the run has passed their edges (before the
 * next step at or after it), which keeps the trace in time order. */
static void flush_slow(cli_story_run *r, sim_time_ns now) {
    if (!r->has_slow || now < r->slow_next_ns) return;   /* the common cases, at every step */
    r->slow_next_ns = SIM_TIME_NS_MAX;
    for (uint32_t i = 0; i < r->s->faults_count; i++) {
        const scn_fault *f = &r->s->faults[i];
        if (fk_of(f->kind)->kernel != 0) continue;        /* the model's: no kernel event */
        if (!r->arm->added[i]) {                          /* a point's window, not added yet: look again next step */
            r->slow_next_ns = 0;
            continue;
        }
        sim_time_ns at = r->arm->begin_ns[i], end = at + f->duration_ns;
        cli_fault_fate *x = &r->st->faults[i];
        if (!r->slow_begun[i] && at <= now) {
            r->slow_begun[i] = x->begun = true;
            x->begun_ns = at;
            trace_fault(r, i, at, true);
        }
        if (r->slow_begun[i] && !r->slow_ended[i] && end <= now) {
            r->slow_ended[i] = x->ended = true;
            x->ended_ns = end;
            trace_fault(r, i, end, false);
        }
        sim_time_ns edge = !r->slow_begun[i] ? at : !r->slow_ended[i] ? end : SIM_TIME_NS_MAX;
        if (edge < r->slow_next_ns) r->slow_next_ns = edge;
    }
}

static void on_fault(void *ctx, const sim_run *run, uint32_t id, bool begin) {
    cli_story_run *r = ctx;
    flush_slow(r, run->now_ns);
    uint32_t i = 0;
    while (i < r->s->faults_count && !(r->arm->added[i] && r->arm->kernel_id[i] == id)) i++;
    if (i == r->s->faults_count) return;                  /* not the script's (none such today) */
    cli_fault_fate *x = &r->st->faults[i];
    if (begin) {
        x->begun = true;
        x->begun_ns = run->now_ns;
        if (on_machine(r->s->faults[i].kind)) victims_text(r->p, r->s->faults[i].machine, x->victims, sizeof x->victims);
    } else {
        x->ended = true;
        x->ended_ns = run->now_ns;
    }
    trace_fault(r, i, run->now_ns, begin);
}

void cli_story_begin(cli_story_run *r, cli_story *st, const scn *s, pipeline *p, const scn_armed *arm,
                     rpt_recorder *rec, bool drawn) {
    memset(r, 0, sizeof *r);
    memset(st, 0, sizeof *st);
    r->st = st;
    r->s = s;
    r->p = p;
    r->arm = arm;
    r->rec = rec;
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) r->host[t] = (uint8_t)pipe_task_host(p, t);
    st->drawn = drawn && s->vary != 0;
    st->faults_count = s->faults_count;
    for (uint32_t i = 0; i < s->faults_count; i++) {
        st->scripted += s->faults[i].line > 0;
        r->has_slow |= fk_of(s->faults[i].kind)->kernel == 0;
    }
    fault_observe(pipe_sim(p), on_fault, r);
    uint32_t parts = pipe_broker(p)->partitions;   /* NULL: out of memory, the restarts' totals only */
    r->rewound_at = calloc((size_t)CLI_STORY_MAX * parts + 1, sizeof *r->rewound_at);
}

/* Whether a fault of kind k can be behind a failure of this cause. A
 * heartbeat timeout needs a TaskManager that stays silent (a paused
 * machine or task) or whose answers do not come in time (lost or delayed
 * RPCs, a paused coordinator that reads them late); a paused machine or
 * task also fails the tasks it leaves waiting, and its zombies. Too many
 * failed checkpoints: any fault but a coordinator crash (which starts a
 * new count); a failover: only a coordinator crash. */
static bool can_cause(scn_fault_kind k, uint32_t cause) {
    uint32_t flags = fk_of(k)->flags;
    switch (cause) {
    case CLI_FAILOVER:          return flags & FK_FAILOVER;
    case PIPE_FAIL_CHECKPOINTS: return !(flags & FK_FAILOVER);
    case PIPE_FAIL_HEARTBEAT:   return flags & (FK_BREAKS | FK_STALLS | FK_SILENCES);   /* a broken connection may be noticed by heartbeat too */
    default:                    return flags & (FK_BREAKS | FK_STALLS);
    }
}

/* Whether fault i touches task t: it breaks, stalls or silences its
 * machine, the task itself, one of its links, its RPCs, or a partition
 * with its machine on one side. */
static bool touches(const cli_story_run *r, uint32_t i, uint32_t t) {
    const scn_fault *f = &r->s->faults[i];
    const fk_info *k = fk_of(f->kind);
    if (!(k->flags & (FK_BREAKS | FK_STALLS | FK_SILENCES))) return false;
    uint32_t m = pipe_task_host(r->p, t);
    switch (k->target) {
    case FK_MACHINE:  return f->machine == m;
    case FK_TASK:
    case FK_RPC:      return task_of(r->p, f->vertex, f->subtask) == t;
    case FK_LINK:     return task_of(r->p, f->vertex, f->subtask) == t || task_of(r->p, f->vertex2, f->subtask2) == t;
    case FK_MACHINES: return ((f->machines_a | f->machines_b) >> m) & 1;
    default:          return false;
    }
}

/* Whether lost-RPC window i governs over j, both open on the same RPCs
 * at once: the kernel draws each message's loss from the strongest open
 * window, the earliest begun among equals (sim/link.c), so a weaker
 * window nested inside a stronger one lost nothing of its own. */
static bool governs(const cli_story_run *r, uint32_t i, uint32_t j) {
    const scn_fault *a = &r->s->faults[i], *b = &r->s->faults[j];
    if (a->kind != b->kind || fk_of(a->kind)->kernel != FAULT_LINK_LOSS || a->vertex != b->vertex ||
        a->subtask != b->subtask || a->rpc != b->rpc) {
        return false;
    }
    const cli_fault_fate *x = &r->st->faults[i], *y = &r->st->faults[j];
    bool overlap = x->begun_ns <= y->begun_ns ? !x->ended || x->ended_ns > y->begun_ns : !y->ended || y->ended_ns > x->begun_ns;
    if (!overlap) return false;
    if (fault_ratio_stronger(a->ratio, b->ratio)) return true;
    return !fault_ratio_stronger(b->ratio, a->ratio) && x->begun_ns < y->begun_ns;
}

/* The fault behind a failure at `at`: of those begun by then and either
 * begun since the last recovery or still open, the latest that can cause
 * this kind of failure, preferring one that touches the culprit, and a
 * lost-RPC window over one it governs; for a failover the first
 * coordinator crash since then (a nested one inside it changed nothing). */
static uint32_t blame(const cli_story_run *r, sim_time_ns at, uint32_t cause, uint32_t culprit) {
    uint32_t best = UINT32_MAX;
    bool best_touches = false;
    for (uint32_t i = 0; i < r->s->faults_count; i++) {
        const cli_fault_fate *x = &r->st->faults[i];
        scn_fault_kind k = r->s->faults[i].kind;
        bool open = x->begun && (!x->ended || x->ended_ns >= at);
        if (!x->begun || x->begun_ns > at || (x->begun_ns < r->last_recovery_ns && !open)) continue;
        if (!can_cause(k, cause)) continue;
        bool t = culprit != PIPE_NO_TASK && touches(r, i, culprit);
        bool later = best != UINT32_MAX && (cause == CLI_FAILOVER ? x->begun_ns < r->st->faults[best].begun_ns
                                                                   : x->begun_ns >= r->st->faults[best].begun_ns);
        if (best != UINT32_MAX && t == best_touches && governs(r, i, best)) later = true;
        if (best != UINT32_MAX && t == best_touches && governs(r, best, i)) later = false;
        if (best == UINT32_MAX || (t && !best_touches) || (t == best_touches && later)) {
            best = i;
            best_touches = t;
        }
    }
    return best;
}

static void incident(cli_story_run *r, const pipe_event *e) {
    cli_story *st = r->st;
    st->incidents_all++;
    uint32_t cause = e->kind == PIPE_EV_COORD_FAILOVER ? CLI_FAILOVER : e->cause;
    uint32_t culprit = e->kind == PIPE_EV_JOB_FAILED ? e->culprit : PIPE_NO_TASK;
    uint64_t overflows = pipe_get_stats(r->p)->txn_overflows;
    bool txn_full = overflows > r->txn_overflows;
    r->txn_overflows = overflows;
    if (st->incidents_count == CLI_STORY_MAX) return;     /* counted, not told */
    cli_incident *x = &st->incidents[st->incidents_count++];
    memset(x, 0, sizeof *x);
    x->at_ns = e->at_ns;
    x->cause = cause;
    x->fault = blame(r, e->at_ns, cause, culprit);
    x->txn_full = txn_full && cause == PIPE_FAIL_REPORTED;
    if (culprit != PIPE_NO_TASK) {
        const job *j = pipe_job(r->p);
        task_text(j, j->tasks[culprit].vertex, j->tasks[culprit].subtask, x->culprit, sizeof x->culprit);
    }
    if (cause == PIPE_FAIL_CHECKPOINTS) {
        x->ckpt = r->abort_ckpt;
        x->ckpt_end = r->abort_end;
        x->ckpt_why = r->abort_why;
    }
}

/* Region failover: the tasks of region e->region join the restart
 * record x (one step per region; regions whose delays end at one time
 * are told as one restart). */
static void region_tasks(cli_story_run *r, cli_restart *x, const pipe_event *e) {
    const job *j = pipe_job(r->p);
    x->regions++;
    x->tasks += e->count;
    x->of = j->tasks_count;
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        if (pipe_task_region(r->p, t) != e->region) continue;
        size_t used = strlen(x->who);
        char name[SIM_NAME_BYTES + 16];
        task_text(j, j->tasks[t].vertex, j->tasks[t].subtask, name, sizeof name);
        if (used + strlen(name) + 6 >= sizeof x->who) {
            if (used + 5 < sizeof x->who) snprintf(x->who + used, sizeof x->who - used, " ...");
            return;
        }
        snprintf(x->who + used, sizeof x->who - used, "%s%s", used > 0 ? " " : "", name);
    }
}

/* A restart: the checkpoint it restores, and the records the sources
 * rewind: where they are (what they read, less what earlier restarts
 * rewound) less that checkpoint's offsets. A region's restart rewinds
 * its own sources only; how far is not counted (the others read on). */
static void restarted(cli_story_run *r, const pipe_event *e) {
    cli_story *st = r->st;
    if (e->one_region && st->restarts_count > 0) {   /* a further region of the same restart */
        cli_restart *last = &st->restarts[st->restarts_count - 1];
        if (last->regions > 0 && last->at_ns == e->at_ns && st->restarts_count == st->restarts_all) {
            region_tasks(r, last, e);
            return;
        }
    }
    const pipe_stats *ps = pipe_get_stats(r->p);
    uint64_t ckpt = pipe_restore_ckpt(r->p), to = 0;
    const uint64_t *offsets = ckpt > 0 ? pipe_ckpt_offsets(r->p, ckpt) : NULL;
    for (uint32_t i = 0; offsets != NULL && i < pipe_broker(r->p)->partitions; i++) to += offsets[i];
    uint64_t at = ps->records_read - r->rewound_sum, rewound = at > to ? at - to : 0;
    if (e->one_region) rewound = 0;
    if (pipe_config(r->p)->bug == PIPE_BUG_NO_REWIND) rewound = 0;   /* the deliberate bug: the sources read on */
    r->rewound_sum += rewound;
    r->last_recovery_ns = e->at_ns;
    uint32_t n = ++st->restarts_all;
    for (uint32_t i = 0; i < st->incidents_count; i++) {
        if (st->incidents[i].restart == 0) st->incidents[i].restart = n;
    }
    if (st->restarts_count == CLI_STORY_MAX) return;
    cli_restart *x = &st->restarts[st->restarts_count++];
    *x = (cli_restart){ .at_ns = e->at_ns, .restored = ckpt, .rewound = rewound, .parts = pipe_broker(r->p)->partitions };
    if (r->rewound_at != NULL) {                  /* where the partitions' rewinds stood when it began */
        memcpy(r->rewound_at + (size_t)(st->restarts_count - 1) * x->parts, pipe_partitions_rewound(r->p),
               x->parts * sizeof *r->rewound_at);
    }
    if (e->one_region) region_tasks(r, x, e);
    for (uint32_t t = 0; t < pipe_job(r->p)->tasks_count; t++) {   /* with slots: who moved, and where */
        uint32_t h = pipe_task_host(r->p, t);
        if (h == r->host[t]) continue;
        if (x->moved < 4) {
            x->moved_vertex[x->moved] = pipe_job(r->p)->tasks[t].vertex;
            x->moved_subtask[x->moved] = pipe_job(r->p)->tasks[t].subtask;
            x->moved_to[x->moved] = h;
        }
        x->moved++;
        r->host[t] = (uint8_t)h;
    }
    uint32_t count = 0;
    const pipe_ckpt_rec *h = pipe_history(r->p, &count);
    if (ckpt > 0 && ckpt <= count) {
        x->restored_ns = h[ckpt - 1].ended_ns;
        x->restored_aborted = h[ckpt - 1].end != PIPE_CKPT_COMPLETED;
    }
}

void cli_story_observe(void *ctx, const pipe_event *e) {
    cli_story_run *r = ctx;
    flush_slow(r, e->at_ns);
    switch (e->kind) {
    case PIPE_EV_CKPT_ABORT:
        r->abort_ckpt = e->ckpt;
        r->abort_end = e->end;
        r->abort_why = e->count;
        break;
    case PIPE_EV_JOB_FAILED:
    case PIPE_EV_COORD_FAILOVER: incident(r, e); break;
    case PIPE_EV_JOB_RESTARTED:  restarted(r, e); break;
    default: break;
    }
    if (r->rec != NULL) rpt_observe(r->rec, e);
    if (r->then != NULL) r->then(r->then_ctx, e);
}

/* The sort key: when the fault began, else when it was due, else its
 * time; a point never reached goes last. */
static sim_time_ns due_key(const scn *s, const cli_story *st, uint32_t i) {
    const cli_fault_fate *x = &st->faults[i];
    if (x->begun) return x->begun_ns;
    if (x->due) return x->due_ns;
    return s->faults[i].point == SCN_AT_TIME ? s->faults[i].at_ns : SIM_TIME_NS_MAX;
}

/* Each restart's rewind by partition: the rewinds between its step and
 * the next restart's (or the end), as its tasks restore after its step.
 * Kept only for a full restart whose partitions add up to its total (the
 * sources' records read, less the checkpoint's offsets): a restart that
 * failed before all its sources restored shares its rewinds with the
 * next, and a region's restart has no total to hold them to. */
static void part_rewinds(cli_story_run *r) {
    cli_story *st = r->st;
    const uint64_t *now = pipe_partitions_rewound(r->p);
    for (uint32_t k = 0; r->rewound_at != NULL && k < st->restarts_count; k++) {
        cli_restart *x = &st->restarts[k];
        const uint64_t *from = r->rewound_at + (size_t)k * x->parts;
        const uint64_t *to = k + 1 < st->restarts_count ? r->rewound_at + (size_t)(k + 1) * x->parts : now;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < x->parts; i++) {
            if (i < CLI_PARTS_TOLD) x->part_rewound[i] = to[i] - from[i];
            sum += to[i] - from[i];
        }
        if (sum != x->rewound || x->regions > 0 || x->rewound == 0) x->parts = 0;   /* not told by partition */
    }
    if (r->rewound_at == NULL) {
        for (uint32_t k = 0; k < st->restarts_count; k++) st->restarts[k].parts = 0;
    }
    free(r->rewound_at);
    r->rewound_at = NULL;
}

void cli_story_end(cli_story_run *r) {
    cli_story *st = r->st;
    const scn *s = r->s;
    part_rewinds(r);
    st->end_ns = pipe_sim(r->p)->now_ns;
    st->fenced_data = pipe_get_stats(r->p)->fenced_data;
    st->fenced_rpcs = pipe_get_stats(r->p)->fenced_rpcs;
    st->lost_held = pipe_sim(r->p)->stats.lost_held;
    st->lost_paused = pipe_sim(r->p)->stats.lost_paused;
    flush_slow(r, st->end_ns);
    fault_observe(pipe_sim(r->p), NULL, NULL);
    for (uint32_t i = 0; i < s->faults_count; i++) {
        st->faults[i].due = r->arm->added[i];
        st->faults[i].due_ns = r->arm->begin_ns[i];
    }
    for (uint32_t i = 0; i < s->faults_count; i++) {      /* insertion sort: stable, a few dozen */
        uint32_t k = i;
        while (k > 0 && due_key(s, st, st->order[k - 1]) > due_key(s, st, i)) {
            st->order[k] = st->order[k - 1];
            k--;
        }
        st->order[k] = (uint8_t)i;
    }
    uint32_t count = 0;
    const pipe_ckpt_rec *h = pipe_history(r->p, &count);
    for (uint32_t i = 0; i < count; i++) {
        if (h[i].end != PIPE_CKPT_PENDING) continue;
        if (st->pending_count < 8) st->pending[st->pending_count] = h[i].id;
        st->pending_count++;
    }
}

/* ---- telling it ------------------------------------------------------------ */

/* A duration as the scenario reader takes it: 12ms, 1.5s, 250us. */
static void dur_text(sim_time_ns ns, char *buf, size_t n) {
    static const struct { const char *name; uint64_t ns; int digits; } units[] = {
        { "s", SIM_NS_PER_S, 9 }, { "ms", SIM_NS_PER_MS, 6 }, { "us", SIM_NS_PER_US, 3 }, { "ns", 1, 0 },
    };
    uint32_t u = 0;
    while (ns > 0 && ns < units[u].ns) u++;
    if (ns == 0) u = 1;
    uint64_t whole = ns / units[u].ns, frac = ns % units[u].ns;
    int digits = units[u].digits;
    while (frac > 0 && frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    if (frac == 0) snprintf(buf, n, "%" PRIu64 "%s", whole, units[u].name);
    else snprintf(buf, n, "%" PRIu64 ".%0*" PRIu64 "%s", whole, digits, frac, units[u].name);
}

/* The statements `vary` drew, as scenario lines (without the newline). */
static void drawn_checkpoint(const pipe_ckpt_cfg *k, char *buf, size_t n) {
    static const char *const modes[] = { "", "aligned", "at-least-once", "unaligned" };
    char iv[32], mp[32], to[32], at[32];
    dur_text(k->interval_ns, iv, sizeof iv);
    dur_text(k->min_pause_ns, mp, sizeof mp);
    dur_text(k->timeout_ns, to, sizeof to);
    dur_text(k->alignment_timeout_ns, at, sizeof at);
    snprintf(buf, n, "checkpoint mode %s interval %s min-pause %s timeout %s max-concurrent %u tolerable %u%s%s",
             modes[k->mode], iv, mp, to, k->max_concurrent, k->tolerable_failures,
             k->alignment_timeout_ns > 0 ? " alignment-timeout " : "", k->alignment_timeout_ns > 0 ? at : "");
}

static void drawn_restart(const pipe_restart_cfg *x, char *buf, size_t n) {
    char a[32], b[32], c[32];
    switch (x->kind) {
    case PIPE_RESTART_NONE: snprintf(buf, n, "restart none"); return;
    case PIPE_RESTART_FIXED_DELAY:
        dur_text(x->delay_ns, a, sizeof a);
        snprintf(buf, n, "restart fixed-delay attempts %u delay %s", x->attempts, a);
        return;
    case PIPE_RESTART_FAILURE_RATE:
        dur_text(x->interval_ns, a, sizeof a);
        dur_text(x->delay_ns, b, sizeof b);
        snprintf(buf, n, "restart failure-rate max %u per %s delay %s", x->max_failures, a, b);
        return;
    case PIPE_RESTART_EXPONENTIAL:
        dur_text(x->initial_ns, a, sizeof a);
        dur_text(x->max_ns, b, sizeof b);
        dur_text(x->reset_ns, c, sizeof c);
        size_t k = (size_t)snprintf(buf, n, "restart exponential initial %s max %s multiplier %u.%03u reset %s "
                                    "jitter %u.%03u", a, b, x->multiplier_milli / 1000, x->multiplier_milli % 1000, c,
                                    x->jitter_milli / 1000, x->jitter_milli % 1000);
        if (x->attempts_before_reset != RS_UNLIMITED && k < n) snprintf(buf + k, n - k, " attempts %u", x->attempts_before_reset);
        return;
    }
    snprintf(buf, n, "restart ?");
}

void cli_protocol_words(const pipe_cfg *c, char *buf, size_t n) {
    char ck[256], rs[200];
    if (c->ckpt.enabled) drawn_checkpoint(&c->ckpt, ck, sizeof ck);
    else snprintf(ck, sizeof ck, "checkpoints off");
    drawn_restart(&c->restart, rs, sizeof rs);
    int k = snprintf(buf, n, "%s; %s", ck, rs);
    if (c->bug != PIPE_BUG_NONE && k >= 0 && (size_t)k < n) {
        const pipe_bug_info *b = pipe_bug_info_of(c->bug);
        snprintf(buf + k, n - (size_t)k, "; the deliberate bug %s is on (--bug): %s", b->name, b->breaks);
    }
}

/* Line by line, what the run's faults did, in the order they were due. */
void cli_story_faults(FILE *out, const scn *s, const cli_story *st) {
    uint32_t fired = 0;
    for (uint32_t i = 0; i < st->faults_count; i++) fired += st->faults[i].begun;
    uint32_t placed = 0;                          /* in no line of the file and not optional: absim explore's */
    for (uint32_t i = 0; i < st->faults_count; i++) placed += s->faults[i].line == 0 && !s->faults[i].optional;
    uint32_t drawn = st->faults_count - st->scripted - placed;
    char place[64] = "";
    if (placed > 0) snprintf(place, sizeof place, "%s%u placed by absim explore", st->scripted ? " and " : "", placed);
    if (st->faults_count == 0) fprintf(out, "  faults: none\n");
    else if (drawn == 0 && st->scripted == 0) fprintf(out, "  faults: %s, %u fired\n", place + 0, fired);
    else if (drawn == 0) fprintf(out, "  faults: %u scripted%s, %u fired\n", st->scripted, place, fired);
    else if (st->scripted == 0) fprintf(out, "  faults: %u drawn by%s for seed %" PRIu64 ", %u fired\n",
                                        drawn, cli_faults_words(true, s->profile), s->cfg.seed, fired);
    else fprintf(out, "  faults: %u scripted and %u drawn by%s for seed %" PRIu64 ", %u fired\n",
                 st->scripted, drawn, cli_faults_words(true, s->profile), s->cfg.seed, fired);
    for (uint32_t k = 0; k < st->faults_count; k++) {
        uint32_t i = st->order[k];
        const cli_fault_fate *x = &st->faults[i];
        char text[SCN_FAULT_TEXT_BYTES];
        scn_fault_text(s, &s->faults[i], text, sizeof text);
        if (x->begun && x->ended) {
            fprintf(out, "    t=%.3fms fired, ended t=%.3fms: ", ms(x->begun_ns), ms(x->ended_ns));
        } else if (x->begun) {
            scn_fault_kind kind = s->faults[i].kind;     /* a crash without `for` keeps its target down */
            uint32_t flags = fk_of(kind)->flags;
            bool window = s->faults[i].duration_ns > 0, down = (flags & FK_DOWN) && !(flags & FK_BACK_AT_ONCE);
            fprintf(out, "    t=%.3fms fired%s: ", ms(x->begun_ns),
                    window ? ", still on at the end" : down ? ", never brought back" : "");
        } else if (x->due || s->faults[i].point == SCN_AT_TIME) {
            fprintf(out, "    t=%.3fms did not fire (the run ended first): ", ms(due_key(s, st, i)));
        } else {
            fprintf(out, "    did not fire (its point was never reached): ");
        }
        fprintf(out, "%s", text);
        if (s->faults[i].line > 0) fprintf(out, " (line %u)", s->faults[i].line);
        if (x->victims[0] != '\0') fprintf(out, "; machine %u held %s", s->faults[i].machine, x->victims);
        fputc('\n', out);
    }
    if (!st->drawn) return;
    char line[256];
    fprintf(out, "  drawn by vary for seed %" PRIu64 ":\n", s->cfg.seed);
    if (s->vary & (SCN_VARY_CHECKPOINT | SCN_VARY_UNALIGNED)) {
        drawn_checkpoint(&s->cfg.ckpt, line, sizeof line);
        fprintf(out, "    %s\n", line);
    }
    if (s->vary & SCN_VARY_RESTART) {
        drawn_restart(&s->cfg.restart, line, sizeof line);
        fprintf(out, "    %s\n", line);
    }
    if (s->vary & SCN_VARY_NETWORK) {
        dur_text(s->cfg.rpc_latency_ns, line, sizeof line);
        fprintf(out, "    network rpc-latency %s\n", line);
    }
}

/* "machine 1 crashed at t=47.000ms (source[1] map[1] agg[1])": the fault
 * behind a failure, in a Flink user's words. */
static void fault_cause(FILE *out, const scn *s, const cli_story *st, uint32_t i) {
    const scn_fault *f = &s->faults[i];
    const cli_fault_fate *x = &st->faults[i];
    char target[TARGET_BYTES];
    told_target(s, f, target, sizeof target);
    const fk_info *k = fk_of(f->kind);
    fprintf(out, k->cause, target);
    fprintf(out, " %s t=%.3fms", k->flags & (FK_DOWN | FK_BREAKS) ? "at" : "from", ms(x->begun_ns));
    if (k->flags & FK_PAUSE) fprintf(out, " for %.3fms", ms(f->duration_ns));
    if (x->victims[0] != '\0') fprintf(out, " (%s)", x->victims);
}

static void incident_line(FILE *out, const scn *s, const cli_story *st, const cli_incident *x) {
    fprintf(out, "  %s at t=%.3fms: ", x->cause == CLI_FAILOVER ? "failover" : "failure", ms(x->at_ns));
    switch (x->cause) {
    case PIPE_FAIL_REPORTED:
        fprintf(out, "%s failed and reported it (%s)", x->culprit,
                x->txn_full ? "its transaction log was full" : "it lost a connection it needs");
        break;
    case PIPE_FAIL_CONNECTION:
        fprintf(out, "%s failed, the coordinator lost its connection to it (its TaskManager went away)", x->culprit);
        break;
    case PIPE_FAIL_HEARTBEAT:
        fprintf(out, "%s's TaskManager answered no heartbeat within the timeout and was declared lost", x->culprit);
        break;
    case PIPE_FAIL_STOP:
        fprintf(out, "the stop's savepoint was aborted, and its tasks fail (\"Stop-with-savepoint failed.\")");
        break;
    case PIPE_FAIL_THREW:
        fprintf(out, "%s threw: a check of Flink's committer failed (a batch incomplete at its commit, a duplicate summary, a committable of an unknown subtask)", x->culprit);
        break;
    case PIPE_FAIL_EVENT_LOST:
        fprintf(out, "%s never acknowledged the splits assigned to it: the assignment is taken as lost", x->culprit);
        break;
    case PIPE_FAIL_CHECKPOINTS:
        fprintf(out, "checkpoint %" PRIu64 " %s: more failed checkpoints in a row than the %u tolerable", x->ckpt,
                x->ckpt_end == PIPE_CKPT_TIMED_OUT ? "timed out"
                : x->ckpt_why == CKR_FINALIZE_FAILED ? "could not be finalized (its metadata write failed or ended ambiguously)"
                : "was declined", s->cfg.ckpt.tolerable_failures);
        break;
    case CLI_FAILOVER: fprintf(out, "a new coordinator took over"); break;
    default: break;
    }
    if (x->fault != UINT32_MAX) {
        fprintf(out, "; cause: ");
        fault_cause(out, s, st, x->fault);
    }
    fputc('\n', out);
}

static void restart_line(FILE *out, const scn *s, const cli_story *st, const cli_incident *x) {
    const cli_restart *r = &st->restarts[x->restart - 1];
    fprintf(out, "    restart %u at t=%.3fms ", x->restart, ms(r->at_ns));
    if (r->regions > 0) {
        fprintf(out, "of %u region%s, %u of %u tasks (%s; the others kept running) ", r->regions,
                r->regions == 1 ? "" : "s", r->tasks, r->of, r->who);
    }
    if (r->restored > 0) {
        if (r->restored_aborted) {           /* FLINK-22494: its metadata write ended ambiguously */
            fprintf(out, "from checkpoint %" PRIu64 " (aborted at t=%.3fms by a coordinator that could not tell whether the "
                    "store took it; it did)", r->restored, ms(r->restored_ns));
        } else {
            fprintf(out, "from checkpoint %" PRIu64 " (completed at t=%.3fms)", r->restored, ms(r->restored_ns));
        }
    } else if (x->cause == CLI_FAILOVER && s->cfg.state.backend == PIPE_BACKEND_MEMORY) {
        fprintf(out, "from the beginning (the memory backend's checkpoints died with the coordinator)");
    } else {
        fprintf(out, "from the beginning (no checkpoint to restore)");
    }
    if (s->cfg.bug == PIPE_BUG_NO_REWIND) fprintf(out, "; the sources kept their positions (the deliberate bug no-rewind)");
    else if (r->regions > 0) fprintf(out, "; %s sources rewound to its offsets", r->regions == 1 ? "the region's" : "their");
    else fprintf(out, "; the sources rewound %" PRIu64 " records", r->rewound);
    for (uint32_t i = 0; r->regions == 0 && i < r->parts && i < CLI_PARTS_TOLD; i++) {   /* how far, each partition */
        fprintf(out, "%sp%u %" PRIu64, i == 0 ? " (by partition: " : ", ", i, r->part_rewound[i]);
    }
    if (r->regions == 0 && r->parts > 0) fprintf(out, "%s)", r->parts > CLI_PARTS_TOLD ? ", ..." : "");
    for (uint32_t i = 0; i < r->moved && i < 4; i++) {
        fprintf(out, "%s%s[%u] to machine %u", i == 0 ? "; moved to free slots: " : ", ",
                s->cfg.graph.vertices[r->moved_vertex[i]].name, r->moved_subtask[i], r->moved_to[i]);
    }
    if (r->moved > 4) fprintf(out, " (%u tasks in all)", r->moved);
    fputc('\n', out);
}

/* Each failure of the job, then the restart it led to (the last of
 * several that one restart followed), or why none came. */
void cli_story_recovery(FILE *out, const scn *s, const cli_story *st, pipe_status status) {
    for (uint32_t i = 0; i < st->incidents_count; i++) {
        const cli_incident *x = &st->incidents[i];
        incident_line(out, s, st, x);
        bool last = i + 1 == st->incidents_count || st->incidents[i + 1].restart != x->restart;
        if (x->restart > 0 && x->restart <= st->restarts_count && last) restart_line(out, s, st, x);
        if (x->restart == 0 && i + 1 == st->incidents_count) {
            fprintf(out, "    no restart: %s\n", status == PIPE_FAILED ? "the restart strategy gave up"
                                                                          : "the run ended first");
        }
    }
    if (st->incidents_all > st->incidents_count) {
        fprintf(out, "  ... %u failures in all, the first %u told\n", st->incidents_all, st->incidents_count);
    }
    for (uint32_t i = 0; i < st->pending_count && i < 8; i++) {
        fprintf(out, "  checkpoint %" PRIu64 " was still pending at the end\n", st->pending[i]);
    }
    /* Receivers drop what an attempt they no longer run sends: a paused
     * TaskManager's zombies after it resumes, messages sent before a
     * restart and delivered after it. */
    uint64_t fenced = st->fenced_data + st->fenced_rpcs;
    if (fenced > 0) {
        fprintf(out, "  fencing: %" PRIu64 " message%s of old attempts or connections dropped (%" PRIu64
                " data at tasks, %" PRIu64 " RPC%s)\n", fenced, fenced == 1 ? "" : "s", st->fenced_data, st->fenced_rpcs,
                st->fenced_rpcs == 1 ? "" : "s");
    }
    /* The kernel holds at most so many RPC messages for delays and for
     * paused actors (sim/link.h, sim/run.h); past that they are lost, as
     * an RPC message may be: said, since no fault line asked for it. */
    if (st->lost_held + st->lost_paused > 0) {
        fprintf(out, "  RPC messages lost past the simulator's bounds: %" PRIu64 " that delays would have held past %u on"
                " their link or %u in the run, %" PRIu64 " arriving while %u waited for paused processes\n", st->lost_held,
                SIM_RPC_LINK_HELD_MAX, SIM_RPC_HELD_MAX, st->lost_paused, SIM_PAUSED_RPC_MAX);
    }
}

/* ---- --json ---------------------------------------------------------------- */

static void json_ns(FILE *out, const char *name, bool known, sim_time_ns ns) {
    if (known) fprintf(out, ",\"%s\":%" PRIu64, name, ns);
    else fprintf(out, ",\"%s\":null", name);
}

static void json_fault(FILE *out, const scn *s, const cli_story *st, uint32_t i) {
    const scn_fault *f = &s->faults[i];
    const cli_fault_fate *x = &st->faults[i];
    char target[TARGET_BYTES], text[SCN_FAULT_TEXT_BYTES];
    target_text(s, f, target, sizeof target);
    fprintf(out, "{\"fault\":%u,\"kind\":\"%s\",\"target\":", i, fk_of(f->kind)->name);
    json_str(out, target);
    if (on_machine(f->kind)) {
        fprintf(out, ",\"tasks\":[");
        for (const char *v = x->victims; *v; v++) {
            if (v == x->victims || v[-1] == ' ') fputc('"', out);
            if (*v != ' ') fputc(*v, out);
            if (v[1] == ' ' || v[1] == '\0') fprintf(out, "\"%s", v[1] == ' ' ? "," : "");
        }
        fputc(']', out);
    }
    json_ns(out, "at_ns", x->due || f->point == SCN_AT_TIME, x->due ? x->due_ns : f->at_ns);
    fprintf(out, ",\"duration_ns\":%" PRIu64 ",\"fired\":%s", f->duration_ns, x->begun ? "true" : "false");
    json_ns(out, "began_ns", x->begun, x->begun_ns);
    json_ns(out, "ended_ns", x->ended, x->ended_ns);
    fprintf(out, ",\"optional\":%s,\"line\":%u,\"text\":", f->optional ? "true" : "false", f->line);
    json_str(out, scn_fault_text(s, f, text, sizeof text));
    fputc('}', out);
}

static const char *cause_name(uint32_t cause) {
    return cause == CLI_FAILOVER ? "coordinator-failover" : rpt_fail_cause_name((pipe_fail_cause)cause);
}

/* "fault": the script's number of the fault behind it, as in "faults". */
static void json_incident(FILE *out, const cli_story *st, const cli_incident *x) {
    fprintf(out, "{\"at_ns\":%" PRIu64 ",\"cause\":\"%s\",\"task\":", x->at_ns, cause_name(x->cause));
    if (x->culprit[0] != '\0') json_str(out, x->culprit); else fprintf(out, "null");
    if (x->fault != UINT32_MAX) fprintf(out, ",\"fault\":%u", x->fault); else fprintf(out, ",\"fault\":null");
    if (x->cause == PIPE_FAIL_CHECKPOINTS) fprintf(out, ",\"checkpoint\":%" PRIu64, x->ckpt);
    if (x->cause == PIPE_FAIL_REPORTED) fprintf(out, ",\"transaction_log_full\":%s", x->txn_full ? "true" : "false");
    if (x->restart == 0 || x->restart > st->restarts_count) {
        fprintf(out, ",\"restart\":null}");
        return;
    }
    const cli_restart *r = &st->restarts[x->restart - 1];
    fprintf(out, ",\"restart\":{\"n\":%u,\"at_ns\":%" PRIu64 ",\"restored_checkpoint\":%" PRIu64, x->restart,
            r->at_ns, r->restored);
    json_ns(out, "restored_completed_ns", r->restored > 0, r->restored_ns);
    fprintf(out, ",\"rewound_records\":%" PRIu64 ",\"moved_tasks\":%u", r->rewound, r->moved);
    if (r->regions > 0) {
        fprintf(out, ",\"regions\":%u,\"restarted_tasks\":%u,\"tasks\":", r->regions, r->tasks);
        json_str(out, r->who);
    }
    fputs("}}", out);
}

void cli_story_json(FILE *out, const scn *s, const cli_story *st) {
    fprintf(out, ",\"faults\":[");
    for (uint32_t k = 0; k < st->faults_count; k++) {
        if (k > 0) fputc(',', out);
        json_fault(out, s, st, st->order[k]);
    }
    fprintf(out, "],\"recovery\":[");
    for (uint32_t i = 0; i < st->incidents_count; i++) {
        if (i > 0) fputc(',', out);
        json_incident(out, st, &st->incidents[i]);
    }
    fprintf(out, "],\"pending_checkpoints\":[");
    for (uint32_t i = 0; i < st->pending_count && i < 8; i++) fprintf(out, "%s%" PRIu64, i ? "," : "", st->pending[i]);
    fprintf(out, "],\"fenced_data\":%" PRIu64 ",\"fenced_rpcs\":%" PRIu64 ",\"rpc_lost_held\":%" PRIu64
            ",\"rpc_lost_paused\":%" PRIu64 ",\"drawn\":", st->fenced_data, st->fenced_rpcs, st->lost_held, st->lost_paused);
    if (!st->drawn) {
        fprintf(out, "null");
        return;
    }
    char line[256];
    const char *sep = "{";
    if (s->vary & (SCN_VARY_CHECKPOINT | SCN_VARY_UNALIGNED)) {
        drawn_checkpoint(&s->cfg.ckpt, line, sizeof line);
        fprintf(out, "%s\"checkpoint\":\"%s\"", sep, line);
        sep = ",";
    }
    if (s->vary & SCN_VARY_RESTART) {
        drawn_restart(&s->cfg.restart, line, sizeof line);
        fprintf(out, "%s\"restart\":\"%s\"", sep, line);
        sep = ",";
    }
    if (s->vary & SCN_VARY_NETWORK) {
        dur_text(s->cfg.rpc_latency_ns, line, sizeof line);
        fprintf(out, "%s\"network\":\"network rpc-latency %s\"", sep, line);
    }
    fputc('}', out);
}
