/* reports/html.c: the run viewer's page (see html.h). */
#include "html.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ckpic.h"
#include "rpt.h"

/* A JSON string that is safe inside <script>: no '<', '>' or '&' as such,
 * and a byte that is not valid UTF-8 as '?'. */
static void json_str(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p != '\0') {
        size_t n = svg_utf8_len(p);
        if (n == 0) {
            fputc('?', f);
            p++;
            continue;
        }
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') fprintf(f, "\\u%04x", *p);
        else fwrite(p, 1, n, f);
        p += n;
    }
    fputc('"', f);
}

static double ms(sim_time_ns t) { return (double)t / 1e6; }

/* The diagram's windows over the run (svg_panes), each drawn as its own
 * picture, one shown at a time. */
typedef struct html_panes {
    sim_time_ns from_ns[SVG_PANES_MAX], to_ns[SVG_PANES_MAX];
    axis        ax[SVG_PANES_MAX];
    uint32_t    count, shown;
} html_panes;

static void input_from(const pipeline *p, uint32_t task, uint32_t input, char *buf, size_t n) {
    const job *j = pipe_job(p);
    svg_task_name(p, j->chans[j->in_chan[j->tasks[task].in_first + input]].producer, buf, n);
}

static void write_tasks(FILE *f, const svg_recorder *r) {
    const job *j = pipe_job(r->p);
    fputs("\"tasks\":[", f);
    for (uint32_t t = 0; t < r->tasks; t++) {
        char name[64];
        svg_task_name(r->p, t, name, sizeof name);
        fprintf(f, "%s{\"n\":", t ? "," : "");
        json_str(f, name);
        fputs(",\"in\":[", f);
        for (uint32_t i = 0; i < j->tasks[t].in_count; i++) {
            input_from(r->p, t, i, name, sizeof name);
            if (i > 0) fputc(',', f);
            json_str(f, name);
        }
        const job_vertex *v = &j->vertices[j->tasks[t].vertex];
        fprintf(f, "],\"tpc\":%s,\"m\":%u}", v->kind == JOB_SINK && v->sink == JOB_SINK_2PC ? "true" : "false",
                j->tasks[t].machine);
    }
    fputc(']', f);
}

/* ---- one sentence per step ------------------------------------------------ */

static void gate_text(const svg_recorder *r, const pipe_event *e, char *buf, size_t n) {
    uint32_t inputs = pipe_job(r->p)->tasks[e->task].in_count;
    if (e->blocked == 0) snprintf(buf, n, "no input blocked");
    else snprintf(buf, n, "%u of %u input%s blocked, %u buffer%s wait%s behind them", e->blocked, inputs, inputs == 1 ? "" : "s",
                  e->waiting, e->waiting == 1 ? "" : "s", e->waiting == 1 ? "s" : "");
}

static void task_gate_step(const svg_recorder *r, const pipe_event *e, const char *who, char *buf, size_t n) {
    char from[64] = "?", gtext[96];
    if (e->task < r->tasks && e->input < pipe_job(r->p)->tasks[e->task].in_count) {
        input_from(r->p, e->task, e->input, from, sizeof from);
    }
    gate_text(r, e, gtext, sizeof gtext);
    switch (e->kind) {
    case PIPE_EV_BARRIER:
        snprintf(buf, n, "%s takes %sbarrier %" PRIu64 " from %s (input %u): %s", who, e->priority ? "unaligned " : "",
                 e->ckpt, from, e->input, gtext);
        break;
    case PIPE_EV_CANCEL:
        snprintf(buf, n, "%s takes the cancel marker of checkpoint %" PRIu64 " from %s: %s", who, e->ckpt, from, gtext);
        break;
    case PIPE_EV_END_DATA:
        snprintf(buf, n, "%s: input %u (from %s) sent its last records (end of data; barriers still come): %s", who,
                 e->input, from, gtext);
        break;
    default:
        snprintf(buf, n, "%s: input %u (from %s) ended: %s", who, e->input, from, gtext);
        break;
    }
}

static bool task_snap_step(const pipe_event *e, const char *who, char *buf, size_t n) {
    const char *what = e->what == PIPE_WRITE_KEYED ? "keyed state" : "channel state";
    switch (e->kind) {
    case PIPE_EV_TRIGGER:
        snprintf(buf, n, "%s triggers checkpoint %" PRIu64 "%s: forwards the barrier, takes the synchronous part", who,
                 e->ckpt, e->unaligned ? " unaligned" : "");
        return true;
    case PIPE_EV_SNAPSHOT_SYNC:
        snprintf(buf, n, "%s: synchronous part of %" PRIu64 " done; the asynchronous part goes on in the background", who,
                 e->ckpt);
        return true;
    case PIPE_EV_WRITE:
        snprintf(buf, n, "%s writes %" PRIu64 " bytes of %s for %" PRIu64, who, e->bytes, what, e->ckpt);
        return true;
    case PIPE_EV_WRITE_DONE:
        snprintf(buf, n, "%s: the %s write of %" PRIu64 " %s", who, what, e->ckpt, e->ok ? "is durable" : "failed");
        return true;
    case PIPE_EV_SNAPSHOT_ASYNC:
        snprintf(buf, n, "%s: snapshot %" PRIu64 " written", who, e->ckpt);
        return true;
    case PIPE_EV_ACK:
        snprintf(buf, n, "%s acknowledges checkpoint %" PRIu64 " to the coordinator", who, e->ckpt);
        return true;
    case PIPE_EV_DECLINE:
        if (e->known_aborted) snprintf(buf, n, "%s: %" PRIu64 " was aborted before its trigger: cancel markers instead", who, e->ckpt);
        else snprintf(buf, n, "%s declines checkpoint %" PRIu64, who, e->ckpt);
        return true;
    case PIPE_EV_SNAPSHOT_DROPPED:
        snprintf(buf, n, "%s drops its snapshot of %" PRIu64 " (aborted or subsumed)", who, e->ckpt);
        return true;
    case PIPE_EV_CHANNEL_STATE:
        snprintf(buf, n, "%s persists %u in-flight records as channel state of %" PRIu64, who, e->count, e->ckpt);
        return true;
    default:
        return false;
    }
}

static void task_step(const svg_recorder *r, const pipe_event *e, char *buf, size_t n) {
    char who[64];
    svg_task_name(r->p, e->task, who, sizeof who);
    if (task_snap_step(e, who, buf, n)) return;
    switch (e->kind) {
    case PIPE_EV_BARRIER: case PIPE_EV_CANCEL: case PIPE_EV_END: case PIPE_EV_END_DATA:
        task_gate_step(r, e, who, buf, n);
        break;
    case PIPE_EV_RESTORE:
        if (e->ckpt == 0) snprintf(buf, n, "%s starts attempt %" PRIu64 " from the beginning", who, e->epoch);
        else snprintf(buf, n, "%s starts attempt %" PRIu64 " from checkpoint %" PRIu64 "%s", who, e->epoch, e->ckpt,
                      e->ok ? "" : ": its files are gone");
        break;
    case PIPE_EV_INPUT_ENDED:
        snprintf(buf, n, "%s reached the end of its input: end of data goes downstream, it waits for a final checkpoint", who);
        break;
    case PIPE_EV_TASK_FINISHED: snprintf(buf, n, "%s finished", who); break;
    case PIPE_EV_SINK_COMMIT: snprintf(buf, n, "%s commits its transactions up to checkpoint %" PRIu64, who, e->ckpt); break;
    case PIPE_EV_GLOBAL_COMMIT:
        snprintf(buf, n, "%s commits checkpoint %" PRIu64 " globally: the committables of %u of %" PRIu64 " upstream subtasks "
                 "(%" PRIu64 " more finished)", who, e->ckpt, e->count, e->word_a, e->word_b);
        break;
    case PIPE_EV_MATERIALIZED:
        snprintf(buf, n, e->ok ? "%s materializes its state (%u keys): checkpoints build on it, the log before it goes"
                               : "%s's materialization failed (%u keys): the log stays", who, e->count);
        break;
    case PIPE_EV_COMMITTABLES:
        if (e->ok) snprintf(buf, n, "%s takes the committable summary of checkpoint %" PRIu64 " (%u committable%s) into its "
                            "collector", who, e->ckpt, e->count, e->count == 1 ? "" : "s");
        else snprintf(buf, n, "%s sends its committable summary of checkpoint %" PRIu64 " and %u committable%s%s", who,
                      e->ckpt, e->count, e->count == 1 ? "" : "s", e->at_end ? " at end of input" : " ahead of its barrier");
        break;
    default: snprintf(buf, n, "%s: %s", who, rpt_step_name(e->kind)); break;
    }
}

static void coord_step(const svg_recorder *r, const pipe_event *e, char *buf, size_t n) {
    char who[64] = "";
    uint32_t region, tasks;
    switch (e->kind) {
    case PIPE_EV_CKPT_START:
        if (e->savepoint) snprintf(buf, n, "the coordinator stops the job with savepoint %" PRIu64 ": the sources stop "
                                   "after its barrier", e->ckpt);
        else snprintf(buf, n, "the coordinator triggers checkpoint %" PRIu64 " at the sources", e->ckpt);
        break;
    case PIPE_EV_CKPT_COMPLETE:
        snprintf(buf, n, "%s %" PRIu64 " completes: every task acknowledged; the tasks are notified%s",
                 e->savepoint ? "savepoint" : "checkpoint", e->ckpt, e->savepoint ? " and finish" : "");
        break;
    case PIPE_EV_HALTED:
        if (e->ok) {
            snprintf(buf, n, "the job is over: its input ended at drained savepoint %" PRIu64, e->ckpt);
            break;
        }
        snprintf(buf, n, e->count == PIPE_HALT_STOP ? "the job is stopped: the user keeps savepoint %" PRIu64
                                                    : "the job is cancelled: the user keeps checkpoint %" PRIu64, e->ckpt);
        break;
    case PIPE_EV_RESUMED:
        snprintf(buf, n, "the user submits the job again from %" PRIu64 " in %s mode", e->ckpt,
                 e->count == PIPE_CLAIM_CLAIM ? "CLAIM" : e->count == PIPE_CLAIM_LEGACY ? "LEGACY" : "NO_CLAIM");
        break;
    case PIPE_EV_CKPT_ABORT:
        snprintf(buf, n, "checkpoint %" PRIu64 " ends: %s", e->ckpt, pipe_ckpt_end_name(e->end));
        break;
    case PIPE_EV_JOB_FAILED:
        if (e->culprit != PIPE_NO_TASK) svg_task_name(r->p, e->culprit, who, sizeof who);
        if (rpt_step_region(r->p, e, &region, &tasks)) {
            snprintf(buf, n, "the job fails (%s%s%s): the %u tasks of its region %u are cancelled, the others run on",
                     rpt_fail_cause_name(e->cause), *who ? ", " : "", who, tasks, region);
            break;
        }
        snprintf(buf, n, "the job fails (%s%s%s): every task is cancelled", rpt_fail_cause_name(e->cause),
                 *who ? ", " : "", who);
        break;
    case PIPE_EV_JOB_RESTARTED:
        if (rpt_step_region(r->p, e, &region, &tasks)) {
            snprintf(buf, n, "restart of region %u (%u tasks): attempt %" PRIu64 " is deployed from %s %" PRIu64, region,
                     tasks, e->epoch, e->ckpt > 0 ? "checkpoint" : "the beginning, checkpoint", e->ckpt);
            break;
        }
        if (e->ckpt > 0) snprintf(buf, n, "restart: attempt %" PRIu64 " is deployed from checkpoint %" PRIu64, e->epoch, e->ckpt);
        else snprintf(buf, n, "restart: attempt %" PRIu64 " is deployed from the beginning", e->epoch);
        break;
    case PIPE_EV_COORD_FAILOVER: snprintf(buf, n, "a new coordinator takes over"); break;
    case PIPE_EV_METADATA:
        snprintf(buf, n, "the metadata of %" PRIu64 " %s", e->ckpt,
                 e->ambiguous ? "was written, but its writer was told it failed" : e->ok ? "is in the store" : "could not be written");
        break;
    default: snprintf(buf, n, "coordinator: %s", rpt_step_name(e->kind)); break;
    }
}

static void step_text(const svg_recorder *r, const svg_step *s, char *buf, size_t n) {
    if (s->fault != SVG_NONE) {
        snprintf(buf, n, "fault %s: %s", s->begin ? "begins" : "ends", r->faults[s->fault].text);
    } else if (s->e.task == PIPE_NO_TASK) {
        coord_step(r, &s->e, buf, n);
    } else {
        task_step(r, &s->e, buf, n);
    }
}

/* ---- the data the script reads ------------------------------------------------ */

static void write_step(FILE *f, const svg_recorder *r, uint32_t i) {
    const svg_step *s = &r->steps[i];
    const pipe_event *e = &s->e;
    char text[512];
    step_text(r, s, text, sizeof text);
    fprintf(f, "%s\n{\"t\":%" PRIu64 ",\"k\":\"%s\",\"ti\":%d,\"c\":%" PRIu64 ",\"e\":%" PRIu64 ",\"d\":", i ? "," : "",
            e->at_ns, s->fault != SVG_NONE ? (s->begin ? "fault-begin" : "fault-end") : rpt_step_name(e->kind),
            e->task == PIPE_NO_TASK ? -1 : (int)e->task, e->ckpt, e->epoch);
    json_str(f, text);
    if (e->kind == PIPE_EV_TRIGGER && e->unaligned) fputs(",\"u\":1", f);
    uint32_t region, tasks;
    if (s->fault == SVG_NONE && rpt_step_region(r->p, e, &region, &tasks)) {   /* region failover: its tasks alone */
        fputs(",\"rg\":[", f);
        for (uint32_t t = 0, k = 0; t < r->tasks; t++) {
            if (pipe_task_region(r->p, t) == region) fprintf(f, "%s%u", k++ ? "," : "", t);
        }
        fputc(']', f);
    }
    if (e->kind == PIPE_EV_WRITE) fprintf(f, ",\"x\":\"%" PRIu64 " bytes\"", e->bytes);
    size_t holds_len;
    const char *holds = svg_step_holds(r, i, &holds_len);   /* JSON of task names and numbers: safe in <script> */
    if (holds != NULL) {
        fputs(",\"h\":", f);
        fwrite(holds, 1, holds_len, f);
    }
    if (e->kind == PIPE_EV_WRITE_DONE || e->kind == PIPE_EV_RESTORE) fprintf(f, ",\"ok\":%d", e->ok ? 1 : 0);
    if (s->fault != SVG_NONE) {
        const svg_fault *x = &r->faults[s->fault];
        fprintf(f, ",\"crash\":%d,\"co\":%d,\"ts\":[", x->crash ? 1 : 0, x->coord ? 1 : 0);
        for (uint32_t t = 0, k = 0; t < r->tasks; t++) {
            if (x->tasks[t]) fprintf(f, "%s%u", k++ ? "," : "", t);
        }
        fputc(']', f);
    }
    if (s->gate_count > 0) {
        fputs(",\"g\":[", f);
        for (uint32_t g = 0; g < s->gate_count; g++) {
            const svg_gate *x = &r->gates[s->gate_first + g];
            fprintf(f, "%s[%u,%u,%d,%u,%u]", g ? "," : "", x->task, x->input, x->v.blocked ? 1 : 0, x->v.buffers, x->v.records);
        }
        fputc(']', f);
    }
    fputc('}', f);
}

/* The diagram's windows: for each, its times and its axis's segments
 * (t0, t1, x0, x1, break), so the script puts a step's cursor where the
 * diagram drew its time. */
static void write_panes(FILE *f, const html_panes *pn) {
    fprintf(f, ",\n\"pane\":%u,\"panes\":[", pn->shown);
    for (uint32_t k = 0; k < pn->count; k++) {
        const axis *ax = &pn->ax[k];
        fprintf(f, "%s{\"from\":%" PRIu64 ",\"to\":%" PRIu64 ",\"axis\":[", k ? "," : "", pn->from_ns[k], pn->to_ns[k]);
        for (uint32_t s = 0; s < ax->count; s++) {
            fprintf(f, "%s[%" PRIu64 ",%" PRIu64 ",%.1f,%.1f,%d]", s ? "," : "", ax->seg[s].t0, ax->seg[s].t1, ax->seg[s].x0,
                    ax->seg[s].x1, ax->seg[s].gap ? 1 : 0);
        }
        fputs("]}", f);
    }
    fputc(']', f);
}

static void write_data(FILE *f, const html_page *pg, const html_panes *pn) {
    const svg_recorder *r = pg->rec;
    uint32_t n = r->steps_count < HTML_STEPS_MAX ? r->steps_count : HTML_STEPS_MAX;
    fputs("<script type=\"application/json\" id=\"absim-data\">{", f);
    write_tasks(f, r);
    write_panes(f, pn);
    fprintf(f, ",\n\"more\":%" PRIu64 ",\"steps\":[", (uint64_t)(r->steps_count - n) + r->steps_dropped);
    for (uint32_t i = 0; i < n; i++) write_step(f, r, i);
    fputs("]}</script>\n", f);
}

/* ---- the whole run's timeline ----------------------------------------------- */

#define TL_LEFT 110.0
#define TL_W    1050.0

static const char *end_colour(pipe_ckpt_end e) {
    switch (e) {
    case PIPE_CKPT_COMPLETED:  return "#2ca02c";
    case PIPE_CKPT_DECLINED:   return "#ff7f0e";
    case PIPE_CKPT_TIMED_OUT:  return "#d62728";
    case PIPE_CKPT_SUBSUMED:   return "#999999";
    case PIPE_CKPT_JOB_FAILED: return "#9467bd";
    case PIPE_CKPT_TASK_FINISHED: return "#8c564b";
    case PIPE_CKPT_PENDING:    break;
    }
    return "#1f77b4";
}

static double tl_x(sim_time_ns t, sim_time_ns end) { return TL_LEFT + TL_W * ((double)t / (double)(end ? end : 1)); }

static void tl_bar(FILE *f, double x0, double x1, double y, double h, const char *fill, const char *title) {
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x0, y,
            x1 - x0 < 2 ? 2 : x1 - x0, h, fill);
    svg_xml(f, title);
    fputs("</title></rect>\n", f);
}

static void tl_checkpoints(FILE *f, const svg_recorder *r, sim_time_ns end) {
    uint32_t count = 0;
    const pipe_ckpt_rec *h = pipe_history(r->p, &count);
    for (uint32_t i = 0; i < count; i++) {
        sim_time_ns e = h[i].end == PIPE_CKPT_PENDING ? end : h[i].ended_ns;
        char t[160];
        snprintf(t, sizeof t, "checkpoint %" PRIu64 ": %s, t=%.3f to %.3f ms", h[i].id,
                 h[i].end == PIPE_CKPT_PENDING ? "pending at the end" : pipe_ckpt_end_name(h[i].end), ms(h[i].triggered_ns), ms(e));
        double x0 = tl_x(h[i].triggered_ns, end), x1 = tl_x(e, end);
        fprintf(f, "<g data-ck=\"%" PRIu64 "\" class=\"tlck\">", h[i].id);   /* a click shows its picture */
        tl_bar(f, x0, x1, 14 + (double)((h[i].id - 1) % 3) * 9, 7, end_colour(h[i].end), t);
        fputs("</g>", f);
    }
    for (uint32_t i = 0; i < r->faults_count; i++) {
        const svg_fault *x = &r->faults[i];
        tl_bar(f, tl_x(x->begin_ns, end), tl_x(x->ended ? x->end_ns : end, end), 52 + (double)(i % 2) * 9, 7, "#d62728",
               x->text);
    }
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const pipe_event *e = &r->steps[i].e;
        if (r->steps[i].fault != SVG_NONE) continue;
        const char *fill = e->kind == PIPE_EV_JOB_FAILED ? "#d62728" : e->kind == PIPE_EV_JOB_RESTARTED ? "#2ca02c"
                         : e->kind == PIPE_EV_COORD_FAILOVER ? "#9467bd" : NULL;
        if (fill == NULL) continue;
        double x = tl_x(e->at_ns, end);
        fprintf(f, "<path d=\"M%.1f 78L%.1f 90L%.1f 90z\" fill=\"%s\"><title>%s at t=%.3fms</title></path>\n", x, x - 5,
                x + 5, fill, rpt_step_name(e->kind), ms(e->at_ns));
    }
}

/* A round tick step that gives about ten ticks. */
static sim_time_ns tl_step(sim_time_ns end) {
    static const sim_time_ns nice[] = { 1, 2, 5 };
    for (sim_time_ns d = 1;; d *= 10) {
        for (uint32_t k = 0; k < 3; k++) {
            if (nice[k] * d * 12 >= end) return nice[k] * d;
        }
    }
}

static void tl_axis(FILE *f, sim_time_ns end) {
    sim_time_ns step = tl_step(end);
    fprintf(f, "<line x1=\"%.1f\" y1=\"100\" x2=\"%.1f\" y2=\"100\" stroke=\"#666\"/>\n", TL_LEFT, TL_LEFT + TL_W);
    for (sim_time_ns t = 0; t <= end; t += step) {
        double x = tl_x(t, end);
        fprintf(f, "<line x1=\"%.1f\" y1=\"100\" x2=\"%.1f\" y2=\"105\" stroke=\"#666\"/><text x=\"%.1f\" y=\"116\" "
                   "class=\"tk\">%g</text>\n", x, x, x - 6, ms(t));
    }
    fprintf(f, "<text x=\"%.1f\" y=\"116\" class=\"tk\">ms</text>\n", TL_LEFT + TL_W + 12);
}

static void timeline(FILE *f, const html_page *pg, const html_panes *pn) {
    const svg_recorder *r = pg->rec;
    sim_time_ns end = r->end_ns ? r->end_ns : 1;
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"tl\" width=\"1200\" height=\"150\" viewBox=\"0 0 1200 150\">\n"
          "<rect width=\"1200\" height=\"150\" fill=\"#fff\"/>\n"
          "<text x=\"8\" y=\"26\" class=\"lb\">checkpoints</text><text x=\"8\" y=\"62\" class=\"lb\">faults</text>"
          "<text x=\"8\" y=\"88\" class=\"lb\">failures, restarts</text>\n", f);
    for (uint32_t k = 0; k < pn->count; k++) {   /* the shown one filled (the script moves that) */
        double x0 = tl_x(pn->from_ns[k], end), w = tl_x(pn->to_ns[k], end) - x0;
        fprintf(f, "<rect x=\"%.1f\" y=\"8\" width=\"%.1f\" height=\"88\" class=\"tlpane%s\" data-pane=\"%u\" fill=\"#1f77b4\" "
                   "fill-opacity=\"%s\" stroke=\"#1f77b4\" stroke-dasharray=\"4 3\"><title>the diagram's window %u of %u: "
                   "t = %.3fms to %.3fms</title></rect>\n", x0, w < 2 ? 2 : w, k == pn->shown ? " on" : "", k,
                k == pn->shown ? ".07" : "0", k + 1, pn->count, ms(pn->from_ns[k]), ms(pn->to_ns[k]));
    }
    tl_checkpoints(f, r, end);
    tl_axis(f, end);
    static const pipe_ckpt_end ends[] = { PIPE_CKPT_COMPLETED, PIPE_CKPT_DECLINED, PIPE_CKPT_TIMED_OUT,
                                          PIPE_CKPT_SUBSUMED, PIPE_CKPT_JOB_FAILED, PIPE_CKPT_TASK_FINISHED,
                                          PIPE_CKPT_PENDING };
    for (uint32_t i = 0; i < 7; i++) {
        double x = TL_LEFT + 125.0 * i;
        fprintf(f, "<rect x=\"%.1f\" y=\"130\" width=\"12\" height=\"8\" fill=\"%s\"/><text x=\"%.1f\" y=\"138\" class=\"tk\">%s</text>\n",
                x, end_colour(ends[i]), x + 16, ends[i] == PIPE_CKPT_PENDING ? "pending at the end" : pipe_ckpt_end_name(ends[i]));
    }
    fprintf(f, "<text x=\"%.1f\" y=\"138\" class=\"tk\">%s</text>\n", TL_LEFT + 870,
            pn->count > 1 ? "dashed: diagram windows, shaded: shown" : "dashed: the diagram's window");
    fputs("</svg>\n", f);
}

static void ckpt_table(FILE *f, const svg_recorder *r) {
    uint32_t count = 0, by[PIPE_CKPT_TASK_FINISHED + 1] = { 0 };
    const pipe_ckpt_rec *h = pipe_history(r->p, &count);
    for (uint32_t i = 0; i < count; i++) by[h[i].end]++;
    fprintf(f, "<p>%u checkpoints triggered: %u completed, %u declined, %u timed out, %u subsumed, %u lost with a failed "
               "attempt, %u aborted as a task finished, %u pending at the end.</p>\n<details><summary>Every checkpoint"
               "</summary>\n<table class=\"ck\"><tr><th>checkpoint</th><th>triggered (ms)</th><th>ended (ms)</th>"
               "<th>took (ms)</th><th>outcome</th></tr>\n",
            count, by[PIPE_CKPT_COMPLETED], by[PIPE_CKPT_DECLINED], by[PIPE_CKPT_TIMED_OUT], by[PIPE_CKPT_SUBSUMED],
            by[PIPE_CKPT_JOB_FAILED], by[PIPE_CKPT_TASK_FINISHED], by[PIPE_CKPT_PENDING]);
    for (uint32_t i = 0; i < count && i < 500; i++) {
        bool done = h[i].end != PIPE_CKPT_PENDING;
        fprintf(f, "<tr><td>%" PRIu64 "</td><td>%.3f</td><td>%s%.3f</td><td>%.3f</td><td style=\"color:%s\">%s</td></tr>\n",
                h[i].id, ms(h[i].triggered_ns), done ? "" : "&gt; ", ms(done ? h[i].ended_ns : r->end_ns),
                ms((done ? h[i].ended_ns : r->end_ns) - h[i].triggered_ns), end_colour(h[i].end),
                done ? pipe_ckpt_end_name(h[i].end) : "pending at the end");
    }
    fprintf(f, "</table>%s</details>\n", count > 500 ? "<p>(the first 500)</p>" : "");
}

static void violations(FILE *f, const html_page *pg) {
    if (pg->violations_count == 0) {
        fputs("<p>No invariant was violated.</p>\n", f);
        return;
    }
    fputs("<ul class=\"viol\">\n", f);
    for (uint32_t i = 0; i < pg->violations_count; i++) {
        const check_violation *v = &pg->violations[i];
        fprintf(f, "<li><button class=\"jump\" data-t=\"%" PRIu64 "\">show</button> invariant %s violated at t=%.3fms: ",
                v->at_ns, check_inv_name(v->inv), ms(v->at_ns));
        svg_xml(f, v->what);
        fputs("</li>\n", f);
    }
    if (pg->violations_all > pg->violations_count) {
        fprintf(f, "<li>... %" PRIu64 " violations in all</li>\n", pg->violations_all);
    }
    fputs("</ul>\n", f);
}

/* The checkpoint pictures: those ckpic_pick() embeds, the first shown;
 * the note says which of the run's checkpoints are there. */
static void pictures(FILE *f, const html_page *pg) {
    fputs("<section id=\"pictures\"><h2>Checkpoint by checkpoint</h2>\n", f);
    uint32_t slots[RPT_CKPTS_MAX], n = pg->ckpts != NULL ? ckpic_pick(pg->ckpts, slots) : 0;
    if (n == 0) {
        fputs(pg->ckpts == NULL ? "<p>This page has no checkpoint pictures.</p></section>\n"
                                : "<p>No checkpoint was triggered.</p></section>\n", f);
        return;
    }
    const rpt_recorder *r = pg->ckpts;
    uint64_t first = r->ckpts[slots[0]].id, last = r->ckpts[slots[n - 1]].id;
    if (r->only != 0) {
        fprintf(f, "<p class=\"note\">Checkpoint %" PRIu64 " alone (--dot-checkpoint) of the %" PRIu64 " triggered.", first,
                r->triggered);
    } else if (last < r->triggered) {
        fprintf(f, "<p class=\"note\">Checkpoints %" PRIu64 " to %" PRIu64 " of the %" PRIu64 " triggered are embedded (at "
                   "most %u pictures and %u task boxes a page); <code>absim run FILE --html OUT --dot OUT.dot "
                   "--dot-checkpoint N</code> embeds checkpoint N.", first, last, r->triggered, CKPIC_MAX, CKPIC_BOXES_MAX);
    } else {
        fprintf(f, "<p class=\"note\">All %u checkpoints triggered.", n);
    }
    fputs(" Choose one here or click it in the timeline; while <i>follow the stepper</i> is checked, the picture is the "
          "current step's checkpoint, its task's box outlined in red.</p>\n<div class=\"controls\"><select id=\"ck-sel\">", f);
    for (uint32_t i = 0; i < n; i++) {
        const rpt_ckpt *c = &r->ckpts[slots[i]];
        fprintf(f, "<option value=\"%" PRIu64 "\">checkpoint %" PRIu64 ": %s</option>", c->id, c->id,
                c->end == PIPE_CKPT_PENDING ? "pending at the end" : pipe_ckpt_end_name(c->end));
    }
    fprintf(f, "</select> <label><input type=\"checkbox\" id=\"ck-follow\" checked> follow the stepper</label> "
               "<span id=\"ck-now\"></span></div>\n<div id=\"ck-box\" data-count=\"%u\">\n", n);
    for (uint32_t i = 0; i < n; i++) ckpic_write(r, f, slots[i], i == 0);
    fputs("</div></section>\n", f);
}

/* The diagram: its windows' controls, then each window's picture, the
 * shown one visible. */
static void diagram(FILE *f, const html_page *pg, html_panes *pn) {
    fputs("<section id=\"diagram\"><h2>Space-time diagram</h2>\n<div class=\"controls\">", f);
    if (pn->count > 1) {
        fputs("<button id=\"sd-prev\">&#9664; earlier</button><button id=\"sd-next\">later &#9654;</button> ", f);
    }
    fputs("<button id=\"sd-out\">&#8722;</button><button id=\"sd-in\">+</button><button id=\"sd-fit\">fit</button>"
          "<button id=\"sd-one\">100%</button> <span id=\"sd-now\"></span></div>\n"
          "<p class=\"note\">The run is drawn in windows, one at a time: the stepper shows the one holding its step "
          "(or move with earlier and later), and the buttons zoom it. Hover over an arrow, a bar or a mark for what it "
          "was.</p>\n<div id=\"sd-box\">\n", f);
    svg_opts o = *pg->opts;
    o.viewer = true;
    for (uint32_t k = 0; k < pn->count; k++) {
        o.from_ns = pn->from_ns[k];
        o.to_ns = pn->to_ns[k];
        o.from_given = o.to_given = true;
        o.pane = k;
        fprintf(f, "<div class=\"sd-pane%s\" id=\"sd-pane-%u\">\n", k == pn->shown ? " on" : "", k);
        svg_write(pg->rec, f, &o, &pn->ax[k]);
        fputs("</div>\n", f);
    }
    fputs("</div></section>\n", f);
}

void html_write(FILE *f, const html_page *pg) {
    html_panes *pn = calloc(1, sizeof *pn);
    if (pn == NULL) {
        fputs("<!DOCTYPE html>\n<p>out of memory for the page</p>\n", f);
        return;
    }
    pn->count = svg_panes(pg->rec, pg->opts, pn->from_ns, pn->to_ns, &pn->shown);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>absim: ", f);
    svg_xml(f, pg->title);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>absim run: ", html_style);
    svg_xml(f, pg->title);
    fputs("</h1>\n<p class=\"note\">Written by <code>absim run --html</code>: one file, nothing is fetched. "
          "Step through the run below; click a mark in the diagram to go to its step.</p>\n"
          "<section id=\"summary\"><h2>Summary</h2>\n<pre>", f);
    svg_xml(f, pg->summary != NULL ? pg->summary : "");
    fputs("</pre></section>\n<section id=\"timeline\"><h2>Checkpoints, faults and restarts over the whole run</h2>\n", f);
    timeline(f, pg, pn);
    ckpt_table(f, pg->rec);
    fputs("</section>\n<section id=\"violations\"><h2>Violations</h2>\n", f);
    violations(f, pg);
    fputs("</section>\n<section id=\"stepper\"><h2>Step through the run</h2>\n<div class=\"controls\">"
          "<button id=\"st-first\">first</button><button id=\"st-prev\">prev</button><button id=\"st-next\">next</button>"
          "<button id=\"st-last\">last</button><input type=\"range\" id=\"st-slider\" min=\"0\" max=\"0\" value=\"0\">"
          "<span id=\"st-pos\"></span></div>\n<div id=\"st-text\"></div>\n<div id=\"st-where\"></div>\n"
          "<div id=\"st-holds\"></div>\n"
          "<table id=\"state\"></table>\n</section>\n", f);
    diagram(f, pg, pn);
    pictures(f, pg);
    write_data(f, pg, pn);
    fprintf(f, "<script>\n%s</script>\n</body>\n</html>\n", html_script);
    free(pn);
}
