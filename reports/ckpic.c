/* reports/ckpic.c: one checkpoint as an SVG picture for the run viewer
 * (see ckpic.h). A task's box lists, a line each, what the recorder kept
 * for it; every box of a picture is as tall as the tallest, so that the
 * rows line up and the channels' arrows stay short and straight. */
#include "ckpic.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "holds.h"
#include "svg.h"

#define MARGIN     12.0
#define TOP        58.0                   /* the title's lines */
#define COORD_W    210.0
#define BOX_W      290.0
#define COL_GAP    74.0                   /* room for the arrows and their order numbers */
#define LINE_H     13.0
#define BOX_PAD    7.0
#define ROW_GAP    16.0
#define LINES_MAX  20u
#define LINE_CHARS 48u                    /* about BOX_W at 11 px */
#define INPUTS_LISTED 6u

enum { L_PLAIN, L_NAME, L_BAD, L_DIM };   /* how a line is written */

typedef struct lines {
    char     text[LINES_MAX][LINE_CHARS + 4];
    uint8_t  cls[LINES_MAX];
    uint32_t n;
} lines;

typedef struct pic {
    const rpt_recorder *r;
    const rpt_ckpt     *c;
    const job          *j;
    FILE               *f;
    uint32_t            col[JOB_VERTICES_MAX], cols, rows;
    uint32_t            max_lines;
    double              box_h, pitch, width, height;
} pic;

static double ms(sim_time_ns t) { return (double)t / 1e6; }
static bool has_bit(const uint64_t *set, uint32_t i) { return set[i / 64] >> (i % 64) & 1; }

/* A line of the box; one longer than the box is cut and ends in "...". */
static void add(lines *l, uint8_t cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(lines *l, uint8_t cls, const char *fmt, ...) {
    if (l->n == LINES_MAX) return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)LINE_CHARS) memcpy(buf + LINE_CHARS - 3, "...", 4);
    memcpy(l->text[l->n], buf, strlen(buf) + 1);
    l->cls[l->n++] = cls;
}

static const char *ordinal(uint32_t k, char *buf, size_t n) {
    const char *suf = (k % 100 >= 11 && k % 100 <= 13) ? "th" : k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
    snprintf(buf, n, "%u%s", k, suf);
    return buf;
}

static bool aligning(const pic *P) { return pipe_config(P->r->p)->ckpt.mode == PIPE_ALIGNED; }

/* When task t's alignment ended: its trigger, or the timeout that made
 * it unaligned (0: it never ended). */
static sim_time_ns align_end(const rpt_task_step *s) {
    if (s->timed_out && s->timeout_ns != 0) return s->timeout_ns;
    return s->trigger_ns;
}

/* Input k of task t: from whom, the barrier's order and time, and how
 * long the input was blocked behind it. */
static void input_line(const pic *P, uint32_t t, uint32_t k, lines *l) {
    const job_task *jt = &P->j->tasks[t];
    const rpt_task_step *s = &P->c->tasks[t];
    uint32_t ch = P->j->in_chan[jt->in_first + k];
    char from[64], nth[16];
    svg_task_name(P->r->p, P->j->chans[ch].producer, from, sizeof from);
    const rpt_arrival *a = P->c->arrivals != NULL ? &P->c->arrivals[ch] : NULL;
    if (a == NULL || a->order == 0) {
        add(l, L_DIM, "from %s: %s", from, a == NULL ? "arrival not kept" : "no barrier");
        return;
    }
    ordinal(a->order, nth, sizeof nth);
    if (has_bit(P->c->cancels, ch) && !has_bit(P->c->barriers, ch) && !has_bit(P->c->priority, ch)) {
        add(l, L_DIM, "from %s: %s, cancel marker t=%.3f", from, nth, ms(a->at_ns));
        return;
    }
    bool blocks = aligning(P) && !(s->unaligned && !s->timed_out);
    sim_time_ns end = align_end(s);
    if (has_bit(P->c->priority, ch)) add(l, L_PLAIN, "from %s: %s t=%.3f, overtook data", from, nth, ms(a->at_ns));
    else if (!blocks || jt->in_count < 2) add(l, L_PLAIN, "from %s: %s t=%.3f", from, nth, ms(a->at_ns));
    else if (end == 0) add(l, L_BAD, "from %s: %s t=%.3f, blocked to the end", from, nth, ms(a->at_ns));
    else if (end > a->at_ns) add(l, L_PLAIN, "from %s: %s t=%.3f, blocked %.3fms", from, nth, ms(a->at_ns), ms(end - a->at_ns));
    else add(l, L_PLAIN, "from %s: %s t=%.3f, not blocked", from, nth, ms(a->at_ns));
}

/* The barrier's way in: the trigger of a source, else the first barrier,
 * the alignment and each input. */
static void head_lines(const pic *P, uint32_t t, lines *l) {
    const job_task *jt = &P->j->tasks[t];
    const rpt_task_step *s = &P->c->tasks[t];
    char name[64];
    svg_task_name(P->r->p, t, name, sizeof name);
    add(l, L_NAME, "%s", name);
    if (jt->in_count == 0) {
        if (s->trigger_ns != 0) add(l, L_PLAIN, "trigger from the coordinator t=%.3f", ms(s->trigger_ns));
        return;
    }
    if (s->first_barrier_ns == 0) return;
    if (jt->in_count > 1) add(l, L_PLAIN, "first barrier t=%.3f", ms(s->first_barrier_ns));   /* one input: its line says it */
    sim_time_ns end = align_end(s);
    if (jt->in_count > 1 && !s->unaligned && end != 0) {
        add(l, L_PLAIN, "%s t=%.3f to %.3f: %.3fms", aligning(P) ? "aligned" : "all barriers in", ms(s->first_barrier_ns),
            ms(end), ms(end - s->first_barrier_ns));
    } else if (jt->in_count > 1 && s->timed_out) {
        add(l, L_BAD, "aligning t=%.3f, timed out t=%.3f", ms(s->first_barrier_ns), ms(s->timeout_ns));
    }
    if (s->released > 0) add(l, L_PLAIN, "%u buffer%s waited behind blocked inputs", s->released, s->released == 1 ? "" : "s");
    uint32_t listed = jt->in_count < INPUTS_LISTED ? jt->in_count : INPUTS_LISTED;
    for (uint32_t k = 0; k < listed; k++) input_line(P, t, k, l);
    if (jt->in_count > listed) add(l, L_DIM, "... %u more inputs", jt->in_count - listed);
}

/* The snapshot: trigger, unaligned channel state, its two parts. */
static void snap_lines(const pic *P, uint32_t t, lines *l) {
    const rpt_task_step *s = &P->c->tasks[t];
    if (s->trigger_ns == 0) return;
    if (P->j->tasks[t].in_count > 0) add(l, L_PLAIN, "trigger t=%.3f: barrier forwarded", ms(s->trigger_ns));
    if (s->unaligned) {
        add(l, L_PLAIN, "%s: %u records persisted", s->timed_out ? "unaligned after the timeout" : "unaligned", s->cs_records);
        add(l, L_PLAIN, "channel state: %" PRIu64 " bytes", s->cs_bytes);
    }
    if (s->sync_ns != 0) add(l, L_PLAIN, "sync part t=%.3f to %.3f", ms(s->trigger_ns), ms(s->sync_ns));
    if (s->async_ns != 0) add(l, L_PLAIN, "async part to t=%.3f", ms(s->async_ns));
    if (s->keyed_bytes != 0) add(l, L_PLAIN, "keyed state written: %" PRIu64 " bytes", s->keyed_bytes);
    if (s->write_failed) add(l, L_BAD, "a snapshot write failed");
}

/* How it ended for the task: its acknowledgement, or why there was none. */
static void end_lines(const pic *P, uint32_t t, lines *l) {
    const rpt_task_step *s = &P->c->tasks[t];
    switch ((rpt_ack)s->ack) {
    case RPT_ACK_COUNTED: add(l, L_PLAIN, "ack sent t=%.3f, counted t=%.3f", ms(s->ack_ns), ms(s->ack_recv_ns)); break;
    case RPT_ACK_DROPPED:
        add(l, L_BAD, "ack sent t=%.3f, dropped t=%.3f: %s", ms(s->ack_ns), ms(s->ack_recv_ns),
            rpt_receipt_name((pipe_receipt)s->why));
        break;
    case RPT_ACK_SENT:
        if (P->c->end == PIPE_CKPT_PENDING) add(l, L_DIM, "ack sent t=%.3f, on its way at the end", ms(s->ack_ns));
        else add(l, L_BAD, "ack sent t=%.3f: LOST, never arrived", ms(s->ack_ns));
        break;
    case RPT_ACK_FOR_FINISHED:
        add(l, L_PLAIN, "finished t=%.3f: acknowledged for it", ms(s->finished_ns));
        break;
    case RPT_ACK_NONE: break;
    }
    if (s->declined && s->known_aborted) add(l, L_DIM, "skipped: known to be aborted");
    else if (s->declined) add(l, L_BAD, "declined t=%.3f", ms(s->decline_ns));
    if (s->dropped_ns != 0) add(l, L_DIM, "snapshot dropped t=%.3f (aborted)", ms(s->dropped_ns));
    if (s->trigger_ns == 0 && s->first_barrier_ns == 0 && !s->declined && s->ack == RPT_ACK_NONE) {
        add(l, L_DIM, "no barrier reached it");
    }
}

/* What the completed checkpoint holds of the task, as the store had it
 * at the completion: its keyed state, and the in-flight records of its
 * inputs it would restore. */
static void held_lines(const pic *P, uint32_t t, lines *l) {
    const rpt_task_step *s = &P->c->tasks[t];
    if (!P->c->held) return;
    const job_vertex *v = &P->j->vertices[P->j->tasks[t].vertex];
    const char *unit = rpt_holds_unit(v->kind, s->held_entries);
    if (s->held_gone) add(l, L_BAD, "holds: a file of its chain is gone");
    else if (s->held_files > 0) add(l, L_PLAIN, "holds %u %s, %" PRIu64 " records, %u file%s", s->held_entries, unit,
                                    s->held_records, s->held_files, s->held_files == 1 ? "" : "s");
    if (!s->held_gone && s->held_files > 0 && v->kind == JOB_WINDOW) add(l, L_PLAIN, "and %u timers set", s->held_timers);
    if (s->held_inflight > 0) add(l, L_PLAIN, "holds %" PRIu64 " in-flight records to restore", s->held_inflight);
}

static void task_lines(const pic *P, uint32_t t, lines *l) {
    l->n = 0;
    head_lines(P, t, l);
    snap_lines(P, t, l);
    end_lines(P, t, l);
    held_lines(P, t, l);
}

/* ---- layout -------------------------------------------------------------- */

static bool drawn(const pic *P, uint32_t t) { return P->j->tasks[t].subtask < CKPIC_ROWS; }

static uint32_t shown_rows(const job_vertex *v) { return v->parallelism < CKPIC_ROWS ? v->parallelism : CKPIC_ROWS; }

static double box_x(const pic *P, uint32_t t) {
    return MARGIN + COORD_W + COL_GAP + P->col[P->j->tasks[t].vertex] * (BOX_W + COL_GAP);
}

static double box_y(const pic *P, uint32_t t) {
    const job_task *jt = &P->j->tasks[t];
    double offset = (P->rows - shown_rows(&P->j->vertices[jt->vertex])) * P->pitch / 2;   /* a short column centred */
    return TOP + offset + jt->subtask * P->pitch;
}

/* Columns by stage (then vertex order), rows by subtask, boxes as tall
 * as the tallest box's lines. */
static void lay_out(pic *P) {
    uint32_t depth[JOB_VERTICES_MAX];
    uint32_t deepest = rpt_stages(P->j, depth);
    P->cols = 0;
    P->rows = 1;
    for (uint32_t d = 0; d <= deepest; d++) {
        for (uint32_t v = 0; v < P->j->vertices_count; v++) {
            if (depth[v] == d) P->col[v] = P->cols++;
        }
    }
    for (uint32_t v = 0; v < P->j->vertices_count; v++) {
        if (shown_rows(&P->j->vertices[v]) > P->rows) P->rows = shown_rows(&P->j->vertices[v]);
    }
    P->max_lines = 6;                                    /* the coordinator's */
    lines l;
    for (uint32_t t = 0; t < P->j->tasks_count; t++) {
        if (!drawn(P, t)) continue;
        task_lines(P, t, &l);
        if (l.n > P->max_lines) P->max_lines = l.n;
    }
    P->box_h = P->max_lines * LINE_H + 2 * BOX_PAD;
    P->pitch = P->box_h + ROW_GAP;
    P->width = MARGIN + COORD_W + COL_GAP + P->cols * (BOX_W + COL_GAP);
    P->height = TOP + P->rows * P->pitch + 40;
}

/* ---- drawing ------------------------------------------------------------- */

static void text_lines(const pic *P, double x, double y, const lines *l) {
    static const char *const cls[] = { "", " class=\"nm\"", " class=\"bad\"", " class=\"dim\"" };
    for (uint32_t i = 0; i < l->n; i++) {
        fprintf(P->f, "<text x=\"%.1f\" y=\"%.1f\"%s>", x + 6, y + BOX_PAD + LINE_H * (i + 1) - 3, cls[l->cls[i]]);
        svg_xml(P->f, l->text[i]);
        fputs("</text>\n", P->f);
    }
}

static const char *fill_of(const rpt_task_step *s) {
    if (s->ack == RPT_ACK_FOR_FINISHED) return "#add8e6";
    if (s->declined) return "#ffe4e1";
    if (s->trigger_ns == 0) return "#e5e5e5";
    return s->unaligned ? "#ffffe0" : "#ffffff";
}

static void task_box(const pic *P, uint32_t t) {
    lines l;
    task_lines(P, t, &l);
    double x = box_x(P, t), y = box_y(P, t);
    const rpt_task_step *s = &P->c->tasks[t];
    bool lost = s->ack == RPT_ACK_SENT && P->c->end != PIPE_CKPT_PENDING;
    fprintf(P->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"5\" fill=\"%s\" stroke=\"%s\" "
                  "data-t=\"%u\"/>\n", x, y, BOX_W, P->box_h, fill_of(s), lost || s->declined ? "#d62728" : "#555555", t);
    text_lines(P, x, y, &l);
}

/* Where input k of task t meets its box's left side. */
static double input_y(const pic *P, uint32_t t, uint32_t k) {
    uint32_t n = P->j->tasks[t].in_count;
    return box_y(P, t) + LINE_H + (P->box_h - 2 * LINE_H) * ((double)k + 0.5) / (double)(n ? n : 1);
}

/* The input of consumer `to` that channel ch feeds. */
static uint32_t input_of(const job *j, uint32_t to, uint32_t ch) {
    const job_task *jt = &j->tasks[to];
    for (uint32_t k = 0; k < jt->in_count; k++) {
        if (j->in_chan[jt->in_first + k] == ch) return k;
    }
    return 0;
}

static void marker(const pic *P, const char *name, const char *fill) {
    fprintf(P->f, "<marker id=\"ck%" PRIu64 "-%s\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
                  "markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"%s\"/></marker>\n",
            P->c->id, name, fill);
}

/* One channel: what crossed it, and the barrier's order at its input. */
static void channel(const pic *P, uint32_t ch) {
    const job_chan *jc = &P->j->chans[ch];
    uint32_t a = jc->producer, b = jc->consumer, k = input_of(P->j, b, ch);
    if (!drawn(P, a) || !drawn(P, b)) return;
    double x1 = box_x(P, a) + BOX_W, y1 = box_y(P, a) + P->box_h / 2, x2 = box_x(P, b) - 1, y2 = input_y(P, b, k);
    bool pri = has_bit(P->c->priority, ch), bar = has_bit(P->c->barriers, ch), can = has_bit(P->c->cancels, ch);
    const char *stroke = pri ? "#ff7f0e" : bar ? "#222222" : can ? "#888888" : "#c8c8c8";
    const char *mk = pri ? "o" : bar ? "b" : can ? "g" : "n";
    const char *dash = pri || bar ? "" : can ? " stroke-dasharray=\"5 3\"" : " stroke-dasharray=\"2 3\"";
    char from[64], to[64];
    svg_task_name(P->r->p, a, from, sizeof from);
    svg_task_name(P->r->p, b, to, sizeof to);
    fputs("<g><title>", P->f);
    svg_xml(P->f, from);
    fputs(" to ", P->f);
    svg_xml(P->f, to);
    fprintf(P->f, " (its input %u): %s</title>\n", k, pri ? "a priority barrier" : bar ? "the barrier" : can ? "a cancel marker"
                                                                                                          : "nothing");
    fprintf(P->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\"%s "
                  "marker-end=\"url(#ck%" PRIu64 "-%s)\"/>\n", x1, y1, x2, y2, stroke, pri ? "2" : "1.2", dash, P->c->id, mk);
    const rpt_arrival *at = P->c->arrivals != NULL ? &P->c->arrivals[ch] : NULL;
    if (at != NULL && at->order != 0) {                 /* the number sits on the line, short of the head */
        double cx = x2 - 18, cy = y1 + (y2 - y1) * (cx - x1) / (x2 - x1);
        fprintf(P->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7\" fill=\"#ffffff\" stroke=\"%s\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\" class=\"ord\" text-anchor=\"middle\">%u</text>\n",
                cx, cy, stroke, cx, cy + 3.5, at->order);
    }
    fputs("</g>\n", P->f);
}

static double coord_y(const pic *P) { return TOP + (P->rows - 1) * P->pitch / 2; }

static void coord_box(const pic *P) {
    const rpt_ckpt *c = P->c;
    lines l = { .n = 0 };
    uint32_t counted = 0, dropped = 0, lost = 0, finished = 0;
    for (uint32_t t = 0; t < P->j->tasks_count; t++) {
        uint8_t a = c->tasks[t].ack;
        counted += a == RPT_ACK_COUNTED;
        dropped += a == RPT_ACK_DROPPED;
        lost += a == RPT_ACK_SENT && c->end != PIPE_CKPT_PENDING;
        finished += a == RPT_ACK_FOR_FINISHED;
    }
    add(&l, L_NAME, "coordinator");
    add(&l, L_PLAIN, "triggers %" PRIu64 " t=%.3f, attempt %" PRIu64, c->id, ms(c->start_ns), c->epoch);
    if (c->end == PIPE_CKPT_PENDING) add(&l, L_DIM, "pending at the end");
    else add(&l, c->end == PIPE_CKPT_COMPLETED ? L_PLAIN : L_BAD, "%s t=%.3f", pipe_ckpt_end_name(c->end), ms(c->end_ns));
    add(&l, L_PLAIN, "acks counted: %u of %u tasks", counted, P->j->tasks_count);
    if (finished > 0) add(&l, L_PLAIN, "acknowledged for %u finished", finished);
    if (dropped + lost > 0) add(&l, L_BAD, "acks dropped: %u, lost: %u", dropped, lost);
    if (c->held) {                                /* S_n, the cut at the sources */
        char off[LINE_CHARS + 4];
        int used = 0;
        for (uint32_t i = 0; i < c->held_parts && i < RPT_HELD_PARTS && used >= 0 && used < (int)sizeof off; i++) {
            used += snprintf(off + used, sizeof off - (size_t)used, "%sp%u %" PRIu64, i ? ", " : "", i, c->held_offsets[i]);
        }
        add(&l, L_PLAIN, "holds S_%" PRIu64 ", the sources' offsets:", c->id);
        add(&l, L_PLAIN, "%s%s", off, c->held_parts > RPT_HELD_PARTS ? ", ..." : "");
        add(&l, L_PLAIN, "%" PRIu64 " records before them", c->held_before);
    }
    double y = coord_y(P);
    fprintf(P->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"12\" fill=\"#eef4fb\" stroke=\"#1f77b4\"/>\n",
            MARGIN, y, COORD_W, P->box_h);
    text_lines(P, MARGIN, y, &l);
    for (uint32_t t = 0; t < P->j->tasks_count; t++) {   /* its triggers, to the sources it reached */
        const rpt_task_step *s = &c->tasks[t];
        if (P->j->tasks[t].in_count != 0 || !drawn(P, t) || (s->trigger_ns == 0 && !s->declined)) continue;
        fprintf(P->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\" stroke-width=\"1.2\" "
                      "marker-end=\"url(#ck%" PRIu64 "-t)\"/>\n", MARGIN + COORD_W, y + P->box_h / 2, box_x(P, t) - 1,
                box_y(P, t) + P->box_h / 2, c->id);
    }
}

static void title(const pic *P) {
    const rpt_ckpt *c = P->c;
    bool done = c->end != PIPE_CKPT_PENDING;
    fprintf(P->f, "<text x=\"%.1f\" y=\"18\" class=\"tt\">checkpoint %" PRIu64 ", attempt %" PRIu64 ": ", MARGIN, c->id, c->epoch);
    if (done) fprintf(P->f, "%s after %.3fms (t=%.3f to %.3f ms)</text>\n", pipe_ckpt_end_name(c->end),
                      ms(c->end_ns - c->start_ns), ms(c->start_ns), ms(c->end_ns));
    else fprintf(P->f, "pending at the end of the run (triggered t=%.3f ms)</text>\n", ms(c->start_ns));
    uint32_t hidden = 0;
    for (uint32_t t = 0; t < P->j->tasks_count; t++) hidden += !drawn(P, t);
    fprintf(P->f, "<text x=\"%.1f\" y=\"35\" class=\"nt\">columns: the vertices in stage order; rows: subtasks; times in ms. "
                  "Arrows: channels, numbered by the order the barriers reached the consumer's inputs.</text>\n", MARGIN);
    fprintf(P->f, "<text x=\"%.1f\" y=\"50\" class=\"nt\">black: barrier; orange: priority barrier (overtook the data); "
                  "grey dashed: cancel marker; light dotted: nothing crossed; blue: trigger. Box: white aligned, yellow "
                  "unaligned, pink declined, blue finished, grey not reached.", MARGIN);
    if (hidden) fprintf(P->f, " %u tasks beyond the first %u subtasks of a vertex are not drawn.", hidden, CKPIC_ROWS);
    fputs("</text>\n", P->f);
}

void ckpic_write(const rpt_recorder *r, FILE *f, uint32_t slot, bool shown) {
    pic P = { .r = r, .c = &r->ckpts[slot], .j = pipe_job(r->p), .f = f };
    lay_out(&P);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ckpic%s\" id=\"ck-%" PRIu64 "\" data-ck=\"%" PRIu64 "\" "
               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n<defs>\n", shown ? " on" : "", P.c->id, P.c->id,
            P.width, P.height, P.width, P.height);
    marker(&P, "b", "#222222");
    marker(&P, "o", "#ff7f0e");
    marker(&P, "g", "#888888");
    marker(&P, "n", "#c8c8c8");
    marker(&P, "t", "#1f77b4");
    fprintf(f, "</defs>\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", P.width, P.height);
    title(&P);
    coord_box(&P);
    for (uint32_t ch = 0; ch < P.j->chans_count; ch++) channel(&P, ch);
    for (uint32_t t = 0; t < P.j->tasks_count; t++) {
        if (drawn(&P, t)) task_box(&P, t);
    }
    fputs("</svg>\n", f);
}

uint32_t ckpic_boxes(const rpt_recorder *r) {
    const job *j = pipe_job(r->p);
    uint32_t n = 0;
    for (uint32_t v = 0; v < j->vertices_count; v++) n += shown_rows(&j->vertices[v]);
    return n;
}

uint32_t ckpic_pick(const rpt_recorder *r, uint32_t *slots) {
    uint32_t n = 0, boxes = ckpic_boxes(r), used = 0;
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) {
        if (r->ckpts[i].id == 0) continue;
        if (n > 0 && (n == CKPIC_MAX || used + boxes > CKPIC_BOXES_MAX)) break;   /* the page says how many */
        slots[n++] = i;
        used += boxes;
    }
    return n;
}
