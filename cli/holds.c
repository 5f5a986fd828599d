/* cli/holds.c: what a checkpoint holds, in explain's words: the content
 * reports/holds.c reads back from the store, as a line (at every
 * completion) or as a line per part (`explain --checkpoint N`). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define HOLDS_KEYS_LISTED 12u          /* a task's keys are listed one by one up to this many */
#define LINE_BYTES        1024u

typedef struct line {
    char   text[LINE_BYTES];
    size_t used;
} line;

static void add(line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(line *l, const char *fmt, ...) {
    if (l->used >= sizeof l->text - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->text + l->used, sizeof l->text - l->used, fmt, ap);
    va_end(ap);
    l->used += w < 0 ? 0 : (size_t)w;
    if (l->used >= sizeof l->text - 1) memcpy(l->text + sizeof l->text - 4, "...", 4);
}

/* The line so far goes out; the next starts empty. */
static void emit_line(line *l, void (*emit)(void *ctx, const char *text), void *ctx) {
    emit(ctx, l->text);
    l->used = 0;
    l->text[0] = '\0';
}

/* "p0 3520, p1 3456, ...: 13768 records before them" */
static void offsets_text(const pipeline *p, const uint64_t *off, line *l) {
    const broker *b = pipe_broker(p);
    uint64_t before = 0;
    for (uint32_t part = 0; part < b->partitions; part++) {
        add(l, "%sp%u %" PRIu64, part == 0 ? "" : ", ", part, off[part]);
        before += off[part];
    }
    add(l, ": %" PRIu64 " record%s before them", before, before == 1 ? "" : "s");
}

/* Small maps of plain keys: every key's count and sum. */
static void keys_text(rpt_holds *h, uint32_t t, line *l) {
    const kstate *s = rpt_holds_state(h, t);
    if (s == NULL || s->count == 0 || s->count > HOLDS_KEYS_LISTED) return;
    uint32_t pos = 0;
    uint64_t key;
    kagg a;
    add(l, "; by key (count, sum):");
    while (kstate_next(s, &pos, &key, &a)) add(l, " %" PRIu64 " (%" PRIu64 ", %" PRId64 ")", key, a.count, a.sum);
}

/* "agg[0] 148 keys (4821 records)", with detail its key groups, files and
 * (a small aggregate) every key. */
static void task_line(const pipeline *p, rpt_holds *h, sim_time_ns at_ns, uint32_t t, bool detail, line *l) {
    const job *j = pipe_job(p);
    const job_vertex *v = &j->vertices[j->tasks[t].vertex];
    const rpt_task_holds *x = rpt_holds_task(h, t);
    char name[64];
    svg_task_name(p, t, name, sizeof name);
    if (x->gone) {
        add(l, "%s a file of its chain is gone", name);
        return;
    }
    uint32_t n = x->entries;
    const char *unit = rpt_holds_unit(v->kind, n);
    if (v->kind == JOB_COMMITTER) {               /* its collector: not keyed state */
        add(l, "%s %" PRIu64 " committable%s (%u %s)", name, x->records, x->records == 1 ? "" : "s", n, unit);
        return;
    }
    add(l, "%s %u %s (%" PRIu64 " record%s)", name, n, unit, x->records, x->records == 1 ? "" : "s");
    if (v->kind == JOB_WINDOW) add(l, ", %u timer%s set", x->timers, x->timers == 1 ? "" : "s");
    if (v->kind == JOB_WINDOW && x->late > 0) add(l, ", %" PRIu64 " late record%s kept", x->late, x->late == 1 ? "" : "s");
    if (!detail) return;
    uint32_t par = pipe_parallelism_at(pipe_config(p), j->tasks[t].vertex, at_ns);   /* the attempt's then */
    uint32_t first, end;
    job_group_range(job_max_parallelism(v), par, j->tasks[t].subtask, &first, &end);
    add(l, "; key groups %u-%u of %u, %u file%s in its chain", first, end - 1, job_max_parallelism(v), x->files,
        x->files == 1 ? "" : "s");
    if (v->kind == JOB_KEYED_AGG) keys_text(h, t, l);
}

/* The in-flight records: by the task that restores them ("agg[0] 894"),
 * or with detail by channel ("map[0] -> agg[0] 458"). */
static void channels_text(const pipeline *p, const rpt_holds *h, bool detail, line *l) {
    const job *j = pipe_job(p);
    uint64_t all = rpt_holds_inflight(h);
    if (all == 0) {
        add(l, "no channel state");
        return;
    }
    add(l, "channel state %" PRIu64 " record%s (%s):", all, all == 1 ? "" : "s",
        detail ? "by channel" : "by the task that restores them");
    bool first = true;
    for (uint32_t t = 0; t < j->tasks_count; t++) {   /* task order; within a task, its inputs' order */
        uint64_t mine = 0;
        char to[64], from[64];
        svg_task_name(p, t, to, sizeof to);
        for (uint32_t i = 0; i < j->tasks[t].in_count; i++) {
            uint32_t c = j->in_chan[j->tasks[t].in_first + i];
            uint64_t k = rpt_holds_chan(h, c);
            mine += k;
            if (!detail || k == 0) continue;
            svg_task_name(p, j->chans[c].producer, from, sizeof from);
            add(l, "%s %s -> %s %" PRIu64, first ? "" : ",", from, to, k);
            first = false;
        }
        if (detail || mine == 0) continue;
        add(l, "%s %s %" PRIu64, first ? "" : ",", to, mine);
        first = false;
    }
}

void cli_holds_tell(const pipeline *p, rpt_holds *h, uint64_t ckpt, sim_time_ns at_ns, bool detail,
                    void (*emit)(void *ctx, const char *text), void *ctx) {
    line l = { .used = 0 };
    if (!rpt_holds_read(h, ckpt)) {
        add(&l, "checkpoint %" PRIu64 " is no longer in the store", ckpt);
        emit_line(&l, emit, ctx);
        return;
    }
    const job *j = pipe_job(p);
    add(&l, "checkpoint %" PRIu64 " holds: the sources' offsets (S_%" PRIu64 ") ", ckpt, ckpt);
    offsets_text(p, rpt_holds_offsets(h), &l);
    if (detail) emit_line(&l, emit, ctx);
    bool any = false, cmt = false;
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        if (rpt_holds_task(h, t)->files == 0 || j->vertices[j->tasks[t].vertex].kind == JOB_COMMITTER) continue;
        if (!detail) add(&l, "%s", any ? ", " : "; keyed state ");
        task_line(p, h, at_ns, t, detail, &l);
        any = true;
        if (detail) emit_line(&l, emit, ctx);
    }
    if (!detail && !any) add(&l, "; no keyed state");
    for (uint32_t t = 0; t < j->tasks_count; t++) {   /* Sink V2 committers' collectors: operator state */
        if (rpt_holds_task(h, t)->files == 0 || j->vertices[j->tasks[t].vertex].kind != JOB_COMMITTER) continue;
        if (!detail) add(&l, "%s", cmt ? ", " : "; committer state ");
        task_line(p, h, at_ns, t, detail, &l);
        cmt = true;
        if (detail) emit_line(&l, emit, ctx);
    }
    if (!detail) add(&l, "; ");
    channels_text(p, h, detail, &l);
    emit_line(&l, emit, ctx);
}
