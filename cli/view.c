/* cli/view.c: `absim run --svg FILE --html FILE [--from T] [--to T]
 * [--tasks PATTERN]`: the options, the faults told to the diagram's
 * recorder in its terms (what each acts on, and whether it takes that
 * down), and the two files written from the recorder after the run
 * (reports/svg.h, reports/html.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* '*' any run of characters, '?' one; everything else, '[' too, itself. */
static bool glob(const char *p, const char *s) {
    if (*p == '\0') return *s == '\0';
    if (*p == '*') return glob(p + 1, s) || (*s != '\0' && glob(p, s + 1));
    if (*s == '\0') return false;
    return (*p == '?' || *p == *s) && glob(p + 1, s + 1);
}

static bool item_matches(const char *item, const job *j, uint32_t t) {
    char name[64];
    snprintf(name, sizeof name, "%s[%u]", j->vertices[j->tasks[t].vertex].name, j->tasks[t].subtask);
    return glob(item, name) || glob(item, j->vertices[j->tasks[t].vertex].name);
}

static bool tasks_matching(const char *prog, const char *pattern, const job *j, uint8_t *show) {
    memset(show, 0, j->tasks_count);
    char buf[512];
    if (strlen(pattern) >= sizeof buf) {
        fprintf(stderr, "%s: --tasks '%.40s...': too long\n", prog, pattern);
        return false;
    }
    snprintf(buf, sizeof buf, "%s", pattern);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        bool any = false;
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            if (!item_matches(item, j, t)) continue;
            show[t] = 1;
            any = true;
        }
        if (any) continue;
        fprintf(stderr, "%s: --tasks '%s': '%s' matches no task (the tasks: ", prog, pattern, item);
        for (uint32_t t = 0; t < j->tasks_count && t < 24; t++) {
            fprintf(stderr, "%s%s[%u]", t ? ", " : "", j->vertices[j->tasks[t].vertex].name, j->tasks[t].subtask);
        }
        fprintf(stderr, "%s; a vertex name takes all its tasks, * and ? match any characters)\n",
                j->tasks_count > 24 ? ", ..." : "");
        return false;
    }
    return true;
}

bool cli_view_tasks(const char *prog, const char *pattern, const job *graph, uint8_t *show) {
    job *j = malloc(sizeof *j);                 /* the tasks as the run expands them (large: not on the stack) */
    if (j == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return false;
    }
    *j = *graph;
    arena mem;
    if (!arena_create(&mem, job_expand_bytes(j))) {
        fprintf(stderr, "%s: out of memory\n", prog);
        free(j);
        return false;
    }
    job_expand(j, 1, &mem);                      /* tasks are numbered the same on any number of machines */
    bool ok = tasks_matching(prog, pattern, j, show);
    arena_destroy(&mem);
    free(j);
    return ok;
}

bool cli_view_time(const char *prog, const char *opt, const char *text, sim_time_ns *out) {
    char err[SCN_ERR_BYTES];
    if (scn_parse_duration(text, out, err, sizeof err)) return true;
    fprintf(stderr, "%s: %s %s: %s (a time in the run, as the scenario language writes it: 10ms, 1.5s)\n", prog, opt,
            text, err);
    return false;
}

static uint32_t task_of(const job *j, uint32_t vertex, uint32_t subtask) { return j->vertex_first_task[vertex] + subtask; }

/* Which rows a fault acts on, as the diagram shows it. */
static void fault_targets(const scn *s, const scn_fault *f, const job *j, svg_fault *x) {
    uint32_t coord_machine = s->cfg.machines;
    const fk_info *k = fk_of(f->kind);
    switch (k->target) {
    case FK_MACHINE:
        x->coord = f->machine == coord_machine;
        for (uint32_t t = 0; t < j->tasks_count; t++) x->tasks[t] = j->tasks[t].machine == f->machine;
        break;
    case FK_MACHINES:
        x->coord = ((f->machines_a | f->machines_b) >> coord_machine) & 1;
        for (uint32_t t = 0; t < j->tasks_count; t++) x->tasks[t] = ((f->machines_a | f->machines_b) >> j->tasks[t].machine) & 1;
        break;
    case FK_TASK:
        x->tasks[task_of(j, f->vertex, f->subtask)] = 1;
        break;
    case FK_RPC:
        x->tasks[task_of(j, f->vertex, f->subtask)] = 1;
        x->coord = true;
        break;
    case FK_LINK:
        x->tasks[task_of(j, f->vertex, f->subtask)] = 1;
        x->tasks[task_of(j, f->vertex2, f->subtask2)] = 1;
        break;
    case FK_COORDINATOR:
    case FK_VERTEX:                                   /* a rescale: the coordinator's */
    case FK_JOB:                                      /* a stop, a cancel: so are they */
        x->coord = true;
        break;
    case FK_STORE:
        x->everywhere = true;
        break;
    }
    x->crash = k->flags & FK_DOWN;
}

/* The faults that began, in the script's order. */
static void add_faults(svg_recorder *rec, const scn *s, const cli_story *st) {
    const job *j = pipe_job(rec->p);
    uint8_t *tasks = calloc(j->tasks_count + 1, 1);
    if (tasks == NULL) return;
    for (uint32_t i = 0; i < s->faults_count && i < SCN_FAULTS_MAX; i++) {
        const cli_fault_fate *fate = &st->faults[i];
        if (!fate->begun) continue;
        memset(tasks, 0, j->tasks_count);
        svg_fault x = { .begin_ns = fate->begun_ns, .end_ns = fate->ended ? fate->ended_ns : 0, .ended = fate->ended,
                        .tasks = tasks };
        fault_targets(s, &s->faults[i], j, &x);
        char text[SCN_FAULT_TEXT_BYTES];
        scn_fault_text(s, &s->faults[i], text, sizeof text);
        size_t n = strlen(text) < sizeof x.text ? strlen(text) : sizeof x.text - 1;   /* cut: a label */
        memcpy(x.text, text, n);
        x.text[n] = '\0';
        if (!svg_add_fault(rec, &x)) break;
    }
    free(tasks);
}

bool cli_view_begin(const cli_views *v, pipeline *p, svg_recorder **rec) {
    *rec = NULL;
    if (v == NULL || (v->svg == NULL && v->html == NULL)) return true;
    svg_recorder *r = malloc(sizeof *r);
    if (r == NULL) return false;
    if (!svg_init(r, p) || (v->html != NULL && !svg_keep_holds(r))) {   /* the viewer shows what each checkpoint holds */
        svg_free(r);
        free(r);
        return false;
    }
    if (v->opts.to_given) {                     /* a little past the window: what ends there ends in the picture */
        sim_time_ns from = v->opts.from_given ? v->opts.from_ns : 0;
        r->keep_until_ns = v->opts.to_ns + (v->opts.to_ns - from);
    }
    *rec = r;                                   /* attached by the caller, after the checkers */
    return true;
}

void cli_view_end(const cli_views *v, svg_recorder *rec, const scn *s, const cli_story *st, const char *summary,
                  const check_report *report, const rpt_recorder *ckpts) {
    if (rec == NULL) return;
    add_faults(rec, s, st);
    svg_finish(rec);
    char title[400];                             /* a wrong protocol says so in every picture of it */
    snprintf(title, sizeof title, "%s, seed %" PRIu64 "%s%s", s->path, s->cfg.seed,
             s->cfg.bug != PIPE_BUG_NONE ? ", deliberate bug " : "", s->cfg.bug != PIPE_BUG_NONE ? pipe_bug_name(s->cfg.bug) : "");
    svg_opts o = v->opts;
    o.title = title;
    o.show = v->show_given ? v->show : NULL;
    if (v->svg != NULL) svg_write(rec, v->svg, &o, NULL);
    if (v->html != NULL) {
        html_page pg = { .title = title, .summary = summary, .violations = report->kept,
                         .violations_count = report->kept_count, .violations_all = check_total(report), .rec = rec,
                         .opts = &o, .ckpts = ckpts };
        html_write(v->html, &pg);
    }
    svg_free(rec);
    free(rec);
}
