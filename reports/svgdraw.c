/* reports/svgdraw.c: the space-time diagram drawn from what svg.c kept
 * (see svg.h). Layers from the back: the axis's breaks and the time grid,
 * fault windows, the task lines, blocked inputs, snapshot bars, record
 * buffers, messages to and from the coordinator, barriers, then the
 * markers of single steps, the axis and the legend. */
#include "svg.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../model/proto.h"
#include "rpt.h"

#define LEFT      160.0               /* the task names */
#define ROW_H     54.0
#define LANE_H    14.0
#define LANES_MAX 8u
#define SNAP_SLOTS 16u                /* open snapshots a task's bars track */
#define FULL_BUFFER 32u               /* records in a full buffer (model/tm/tm.h CHAN_BUF_RECORDS): not labelled */
#define TIP_MAX   320u                /* an element's hover text */

typedef struct step_key {
    uint32_t    kind, task, chan;
    uint64_t    ckpt;
    sim_time_ns at;
    uint32_t    idx;
} step_key;

typedef struct layout {
    const svg_recorder *r;
    const svg_opts     *o;
    FILE               *f;
    axis                ax;
    sim_time_ns         from, to, q;
    double             *y;            /* by task: its line, < 0 when hidden */
    double              coord_y, top, bottom, width, height;
    uint32_t            lanes;
    uint32_t            lane[SVG_FAULTS_MAX];
    step_key           *keys;         /* steps that messages point at, sorted */
    uint32_t            keys_count;
    sim_time_ns        *ckpt_end;     /* by step: a CKPT_START's end (its completion or abort, else the run's) */
    uint32_t            drawn_msgs, drawn_steps;
    double              stack_x;          /* the coordinator's last outcome label, and how many stand there */
    uint32_t            stack_n;
    char               *tip;          /* hover text for the next element drawn ("": none); it takes and clears it */
    struct label_set   *ls;           /* annotations held back to be placed apart, then drawn on top */
} layout;

/* An annotation ("sm": a step's label; "dn": a note on an arrow or bar)
 * waiting for its place: drawn where it was put when nothing placed
 * before it is there, else moved up or down a line or, a mere count on
 * an arrow, left out (its arrow's hover text still has it). */
typedef struct label {
    double   x, y, w, h;
    uint32_t step, order;
    int      prio;                    /* placed first: 2 a step's label, 1 a named note, 0 a count */
    char     cls[4], fill[8];
    char    *text, *tip;              /* owned; tip NULL: none */
} label;

typedef struct label_set {
    label   *v;
    uint32_t count, cap;
    bool     on;                      /* text() holds annotations back (the diagram's body, not its legend) */
} label_set;

#define LABELS_MAX 65536u

static double tx(const layout *L, sim_time_ns t) { return axis_x(&L->ax, t); }
static double ty(const layout *L, uint32_t task) { return task == PIPE_NO_TASK ? L->coord_y : L->y[task]; }
static bool shown(const layout *L, uint32_t task) { return task == PIPE_NO_TASK || L->y[task] >= 0; }
static bool in_window(const layout *L, sim_time_ns t0, sim_time_ns t1) { return t1 >= L->from && t0 <= L->to; }

/* The step index as an attribute, in viewer mode (the stepper finds it). */
static void sattr(const layout *L, uint32_t step) {
    if (L->o->viewer && step != SVG_NONE) fprintf(L->f, " data-s=\"%u\"", step);
}

/* The next element's hover text (SVG <title>): what it stands for, in
 * words, with its times, so that every arrow, box and mark says what it
 * was without the legend. */
static void tipf(const layout *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tipf(const layout *L, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->tip, TIP_MAX, fmt, ap);
    va_end(ap);
}

/* Ends an element's start tag: with its hover text as a <title> child
 * when one is set (then cleared), else as an empty element. */
static void close_el(const layout *L, const char *el) {
    if (L->tip[0] == '\0') {
        fputs("/>\n", L->f);
        return;
    }
    fputs("><title>", L->f);
    svg_xml(L->f, L->tip);
    fprintf(L->f, "</title></%s>\n", el);
    L->tip[0] = '\0';
}

static bool defer_label(const layout *L, double x, double y, const char *cls, const char *fill, uint32_t step,
                        const char *s);

static void text(const layout *L, double x, double y, const char *cls, const char *fill, uint32_t step, const char *s) {
    if (L->ls->on && defer_label(L, x, y, cls, fill, step, s)) return;
    fprintf(L->f, "<text x=\"%.1f\" y=\"%.1f\" class=\"%s\"", x, y, cls);
    if (fill != NULL) fprintf(L->f, " fill=\"%s\"", fill);
    sattr(L, step);
    fputc('>', L->f);
    if (L->tip[0] != '\0') {
        fputs("<title>", L->f);
        svg_xml(L->f, L->tip);
        fputs("</title>", L->f);
        L->tip[0] = '\0';
    }
    svg_xml(L->f, s);
    fputs("</text>\n", L->f);
}

static void line(const layout *L, double x1, double y1, double x2, double y2, const char *cls, const char *stroke,
                 const char *marker, uint32_t step) {
    fprintf(L->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"%s\"", x1, y1, x2, y2, cls);
    if (stroke != NULL) fprintf(L->f, " stroke=\"%s\"", stroke);
    if (marker != NULL) fprintf(L->f, " marker-end=\"url(#sd-%s)\"", marker);
    sattr(L, step);
    close_el(L, "line");
}

static void rect(const layout *L, double x, double y, double w, double h, const char *cls, const char *fill, uint32_t step) {
    fprintf(L->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" class=\"%s\"", x, y, w < 1 ? 1 : w, h, cls);
    if (fill != NULL) fprintf(L->f, " fill=\"%s\"", fill);
    sattr(L, step);
    close_el(L, "rect");
}

/* A message that never arrived: its arrow stops short, in a cross; both
 * carry its hover text. */
static void lost(const layout *L, double x1, double y1, double x2, double y2, double frac, uint32_t step) {
    char tip[TIP_MAX];
    memcpy(tip, L->tip, TIP_MAX);
    double ex = x1 + (x2 - x1) * frac, ey = y1 + (y2 - y1) * frac;
    line(L, x1, y1, ex, ey, "lost", NULL, NULL, step);
    fprintf(L->f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" class=\"lostx\"", ex - 4, ey - 4, ex + 4, ey + 4,
            ex - 4, ey + 4, ex + 4, ey - 4);
    sattr(L, step);
    memcpy(L->tip, tip, TIP_MAX);
    close_el(L, "path");
}

static void ms_text(char *buf, size_t n, sim_time_ns t) { snprintf(buf, n, "%.3fms", (double)t / 1e6); }

/* ---- annotations placed apart --------------------------------------------- */

static char *dup_text(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d != NULL) memcpy(d, s, n);
    return d;
}

/* Holds an annotation back for place_labels(); false: draw it now (not
 * an annotation, or no room to hold it). */
static bool defer_label(const layout *L, double x, double y, const char *cls, const char *fill, uint32_t step,
                        const char *s) {
    bool sm = strcmp(cls, "sm") == 0, dn = strcmp(cls, "dn") == 0;
    label_set *ls = L->ls;
    if ((!sm && !dn) || (fill != NULL && strlen(fill) >= sizeof ls->v[0].fill)) return false;
    if (ls->count == ls->cap) {
        uint32_t cap = ls->cap ? ls->cap * 2 : 256;
        label *v = cap <= LABELS_MAX ? realloc(ls->v, cap * sizeof *v) : NULL;
        if (v == NULL) return false;
        ls->v = v;
        ls->cap = cap;
    }
    label *l = &ls->v[ls->count];
    double px = sm ? 5.0 : 4.4;                   /* Helvetica's mean advance at 9 px and 8 px */
    *l = (label){ .x = x, .y = y, .w = px * (double)strlen(s), .h = sm ? 9 : 8, .step = step, .order = ls->count,
                  .prio = sm ? 2 : step != SVG_NONE || strlen(s) > 6 ? 1 : 0, .text = dup_text(s),
                  .tip = L->tip[0] != '\0' ? dup_text(L->tip) : NULL };
    memcpy(l->cls, cls, strlen(cls) + 1);
    if (fill != NULL) memcpy(l->fill, fill, strlen(fill) + 1);
    L->tip[0] = '\0';
    if (l->text == NULL) return false;
    ls->count++;
    return true;
}

static int by_prio(const void *pa, const void *pb) {
    const label *a = pa, *b = pb;
    if (a->prio != b->prio) return a->prio > b->prio ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static bool overlaps(const label *a, double y, const label *b) {
    return a->x < b->x + b->w && b->x < a->x + a->w && y - a->h < b->y + 1 && b->y - b->h < y + 1;
}

/* Places the held annotations, the most telling first, each where it
 * was put or a line above or below, whichever is free first; a count that
 * finds no free place is left out. Then draws them. Placed labels are
 * kept sorted by x, so a new one is checked against those it could
 * touch only (no label is 600 px wide). */
static void place_labels(const layout *L) {
    label_set *ls = L->ls;
    ls->on = false;
    if (ls->count > 1) qsort(ls->v, ls->count, sizeof *ls->v, by_prio);
    uint32_t *placed = malloc(((size_t)ls->count + 1) * sizeof *placed), n = 0;
    static const double shifts[] = { 0, -10, 10, -20, 20 };
    for (uint32_t i = 0; placed != NULL && i < ls->count; i++) {
        label *l = &ls->v[i];
        uint32_t lo = 0, hi = n;                  /* the first placed label with x > l->x - 600 */
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (ls->v[placed[mid]].x > l->x - 600) hi = mid;
            else lo = mid + 1;
        }
        double y = l->y;
        bool free_at = false;
        for (uint32_t k = 0; k < (l->prio > 0 ? 5u : 1u) && !free_at; k++) {
            y = l->y + shifts[k];
            free_at = true;
            for (uint32_t j = lo; j < n && ls->v[placed[j]].x < l->x + l->w && free_at; j++) {
                if (overlaps(l, y, &ls->v[placed[j]])) free_at = false;
            }
        }
        if (!free_at && l->prio == 0) continue;
        if (!free_at) y = l->y;
        l->y = y;
        uint32_t at = lo;
        while (at < n && ls->v[placed[at]].x <= l->x) at++;
        memmove(placed + at + 1, placed + at, (n - at) * sizeof *placed);
        placed[at] = i;
        n++;
    }
    for (uint32_t k = 0; k < n; k++) {            /* in x order: the same bytes every run */
        label *l = &ls->v[placed[k]];
        if (l->tip != NULL) snprintf(L->tip, TIP_MAX, "%s", l->tip);
        text(L, l->x, l->y, l->cls, l->fill[0] != '\0' ? l->fill : NULL, l->step, l->text);
    }
    free(placed);
}

/* ---- steps that messages point at ----------------------------------------- */

static int by_key(const void *pa, const void *pb) {
    const step_key *a = pa, *b = pb;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->task != b->task) return a->task < b->task ? -1 : 1;
    if (a->chan != b->chan) return a->chan < b->chan ? -1 : 1;
    if (a->ckpt != b->ckpt) return a->ckpt < b->ckpt ? -1 : 1;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static bool keyed(pipe_ev_kind k) {
    return k == PIPE_EV_BARRIER || k == PIPE_EV_CANCEL || k == PIPE_EV_ACK || k == PIPE_EV_DECLINE ||
           k == PIPE_EV_TRIGGER || k == PIPE_EV_CKPT_COMPLETE || k == PIPE_EV_CKPT_ABORT || k == PIPE_EV_RESTORE;
}

static void build_keys(layout *L) {
    const svg_recorder *r = L->r;
    L->keys = malloc(((size_t)r->steps_count + 1) * sizeof *L->keys);
    if (L->keys == NULL) return;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const pipe_event *e = &r->steps[i].e;
        if (r->steps[i].fault != SVG_NONE || !keyed(e->kind)) continue;
        bool on_chan = e->kind == PIPE_EV_BARRIER || e->kind == PIPE_EV_CANCEL;
        L->keys[L->keys_count++] = (step_key){ .kind = e->kind, .task = e->task, .chan = on_chan ? e->chan : PIPE_NO_CHAN,
                                               .ckpt = e->kind == PIPE_EV_RESTORE ? 0 : e->ckpt, .at = e->at_ns, .idx = i };
    }
    qsort(L->keys, L->keys_count, sizeof *L->keys, by_key);
}

/* The first step of that kind, task, channel and checkpoint at or after
 * `at`, or SVG_NONE. */
static uint32_t find_step(const layout *L, uint32_t kind, uint32_t task, uint32_t chan, uint64_t ckpt, sim_time_ns at) {
    step_key want = { .kind = kind, .task = task, .chan = chan, .ckpt = ckpt, .at = at, .idx = 0 };
    uint32_t lo = 0, hi = L->keys_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (by_key(&L->keys[mid], &want) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == L->keys_count) return SVG_NONE;
    const step_key *k = &L->keys[lo];
    return k->kind == kind && k->task == task && k->chan == chan && k->ckpt == ckpt ? k->idx : SVG_NONE;
}

/* The step a message belongs to: where the receiver took it (a barrier,
 * a trigger, a deployment) or where it was sent (an acknowledgement, a
 * notice). */
static uint32_t msg_step(const layout *L, const svg_msg *m) {
    if (L->keys == NULL) return SVG_NONE;
    sim_time_ns got = m->recv_ns != 0 ? m->recv_ns : m->sent_ns;
    switch (m->msg) {
    case MSG_DATA:
        if (m->buf == PIPE_BUF_BARRIER) return find_step(L, PIPE_EV_BARRIER, m->to, m->chan, m->ckpt, got);
        if (m->buf == PIPE_BUF_CANCEL) return find_step(L, PIPE_EV_CANCEL, m->to, m->chan, m->ckpt, got);
        return SVG_NONE;
    case MSG_PRIORITY: return find_step(L, PIPE_EV_BARRIER, m->to, m->chan, m->ckpt, got);
    case MSG_TRIGGER:  return find_step(L, PIPE_EV_TRIGGER, m->to, PIPE_NO_CHAN, m->ckpt, got);
    case MSG_ACK:      return find_step(L, PIPE_EV_ACK, m->from, PIPE_NO_CHAN, m->ckpt, m->sent_ns);
    case MSG_DECLINE:  return find_step(L, PIPE_EV_DECLINE, m->from, PIPE_NO_CHAN, m->ckpt, m->sent_ns);
    case MSG_COMPLETE: return find_step(L, PIPE_EV_CKPT_COMPLETE, PIPE_NO_TASK, PIPE_NO_CHAN, m->ckpt, m->sent_ns);
    case MSG_ABORTED:  return find_step(L, PIPE_EV_CKPT_ABORT, PIPE_NO_TASK, PIPE_NO_CHAN, m->ckpt, m->sent_ns);
    case MSG_DEPLOY:   return find_step(L, PIPE_EV_RESTORE, m->to, PIPE_NO_CHAN, 0, got);
    default:           return SVG_NONE;
    }
}

/* ---- layout ---------------------------------------------------------------- */

/* Each CKPT_START's end: its completion or abort, else the run's end. */
static void ckpt_ends(layout *L) {
    const svg_recorder *r = L->r;
    L->ckpt_end = calloc((size_t)r->steps_count + 1, sizeof *L->ckpt_end);
    if (L->ckpt_end == NULL) return;
    uint32_t open[64], n = 0;                    /* pending: far fewer than 64 at once */
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const pipe_event *e = &r->steps[i].e;
        if (r->steps[i].fault != SVG_NONE) continue;
        if (e->kind == PIPE_EV_CKPT_START) {
            L->ckpt_end[i] = r->end_ns;
            if (n == 64) memmove(open, open + 1, --n * sizeof open[0]);
            open[n++] = i;
        } else if (e->kind == PIPE_EV_CKPT_COMPLETE || e->kind == PIPE_EV_CKPT_ABORT) {
            for (uint32_t k = n; k-- > 0;) {
                if (r->steps[open[k]].e.ckpt != e->ckpt) continue;
                L->ckpt_end[open[k]] = e->at_ns;
                memmove(open + k, open + k + 1, (n - k - 1) * sizeof open[0]);
                n--;
                break;
            }
        }
    }
}

static bool instant_worth_room(const svg_step *s) {
    if (s->fault != SVG_NONE) return true;
    pipe_ev_kind k = s->e.kind;
    return k == PIPE_EV_JOB_FAILED || k == PIPE_EV_JOB_RESTARTED || k == PIPE_EV_COORD_FAILOVER ||
           k == PIPE_EV_HALTED || k == PIPE_EV_RESUMED ||
           (k == PIPE_EV_RESTORE && s->e.epoch > 0);
}

/* Busy spans: each checkpoint's life, and a little room around each
 * fault edge, failure, restart and restore. */
static void build_axis(layout *L) {
    const svg_recorder *r = L->r;
    uint32_t cap = 4096, n = 0;
    axis_span *sp = malloc(cap * sizeof *sp);
    for (uint32_t i = 0; sp != NULL && i < r->steps_count && n < cap; i++) {
        const svg_step *s = &r->steps[i];
        if (s->fault == SVG_NONE && s->e.kind == PIPE_EV_CKPT_START && L->ckpt_end != NULL) {
            sim_time_ns end = L->ckpt_end[i], pad = (end - s->e.at_ns) / 10 + L->q / 4;
            if (in_window(L, s->e.at_ns, end)) sp[n++] = (axis_span){ s->e.at_ns > pad ? s->e.at_ns - pad : 0, end + pad, 160 };
        } else if (instant_worth_room(s) && in_window(L, s->e.at_ns, s->e.at_ns)) {
            sim_time_ns t = s->e.at_ns;
            sp[n++] = (axis_span){ t > L->q ? t - L->q : 0, t + L->q, 0 };   /* room for its marks, at the one scale */
        }
    }
    /* The shortest checkpoint gets 160 px if the busy spans fit 4200 px so. */
    axis_cfg cfg = { .target_px = 1400, .max_width_px = 4200, .gap_px = 48, .max_px_per_ms = 2000 };
    axis_build(&L->ax, L->from, L->to, sp, sp != NULL ? n : 0, LEFT, &cfg);
    free(sp);
}

/* Fault labels in lanes, so that overlapping ones do not collide. */
static void fault_lanes(layout *L) {
    double lane_end[LANES_MAX];
    for (uint32_t k = 0; k < LANES_MAX; k++) lane_end[k] = -1e9;
    for (uint32_t i = 0; i < L->r->faults_count; i++) {
        const svg_fault *f = &L->r->faults[i];
        L->lane[i] = 0;
        if (!in_window(L, f->begin_ns, f->ended ? f->end_ns : L->r->end_ns)) continue;
        double x = tx(L, f->begin_ns), w = 6.2 * (double)(strlen(f->text) + 8);
        uint32_t k = 0;
        while (k + 1 < LANES_MAX && lane_end[k] > x) k++;
        L->lane[i] = k;
        lane_end[k] = x + w;
        if (k + 1 > L->lanes) L->lanes = k + 1;
    }
}

static bool layout_init(layout *L, const svg_recorder *r, FILE *f, const svg_opts *o) {
    memset(L, 0, sizeof *L);
    L->r = r;
    L->o = o;
    L->f = f;
    svg_window(r, o, &L->from, &L->to);
    sim_time_ns rpc = pipe_config(r->p)->rpc_latency_ns;
    L->q = 2 * rpc > 50 * SIM_NS_PER_US ? 2 * rpc : 50 * SIM_NS_PER_US;
    L->y = malloc(((size_t)r->tasks + 1) * sizeof *L->y);
    L->tip = calloc(TIP_MAX, 1);
    L->ls = calloc(1, sizeof *L->ls);
    if (L->y == NULL || L->tip == NULL || L->ls == NULL) return false;
    ckpt_ends(L);
    build_keys(L);
    build_axis(L);
    fault_lanes(L);
    L->coord_y = 62 + LANE_H * L->lanes + 40;
    L->stack_x = -1e9;
    double y = L->coord_y + 80;
    for (uint32_t t = 0; t < r->tasks; t++) {
        bool show = o->show == NULL || o->show[t];
        L->y[t] = show ? y : -1;
        if (show) y += ROW_H;
    }
    L->top = L->coord_y - 30;
    L->bottom = y - ROW_H + 34;
    L->width = L->ax.x_end + 220 > 1100 ? L->ax.x_end + 220 : 1100;
    L->height = L->bottom + 60 + 150;
    return true;
}

static void layout_free(layout *L) {
    free(L->y);
    free(L->tip);
    for (uint32_t i = 0; L->ls != NULL && i < L->ls->count; i++) {
        free(L->ls->v[i].text);
        free(L->ls->v[i].tip);
    }
    if (L->ls != NULL) free(L->ls->v);
    free(L->ls);
    free(L->keys);
    free(L->ckpt_end);
}

/* ---- the frame --------------------------------------------------------------- */

static void head(const layout *L) {
    FILE *f = L->f;
    if (!L->o->viewer) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\"", f);
    if (L->o->viewer) fprintf(f, " id=\"sd-%u\" class=\"sd\"", L->o->pane);
    fprintf(f, " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n", L->width, L->height, L->width, L->height);
    fputs("<title>", f);
    svg_xml(f, L->o->title != NULL ? L->o->title : "absim run");
    fputs("</title>\n<defs>\n", f);
    static const char *const extra[][2] = { { "g", "#9a9a9a" }, { "k", "#333333" }, { "r", "#d62728" }, { "n", "#2ca02c" } };
    for (uint32_t i = 0; i < SVG_CKPT_COLOURS + 4; i++) {
        char id[8];
        bool ck = i < SVG_CKPT_COLOURS;
        snprintf(id, sizeof id, "%s%u", ck ? "c" : extra[i - SVG_CKPT_COLOURS][0], ck ? i : 0);
        fprintf(f, "<marker id=\"sd-%s\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"5\" markerHeight=\"5\" "
                   "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"%s\"/></marker>\n",
                id, ck ? svg_ckpt_colour(i + 1) : extra[i - SVG_CKPT_COLOURS][1]);
    }
    fputs("<style>\n"
          "text{font-family:Helvetica,Arial,sans-serif}\n"
          ".ttl{font-size:15px;font-weight:bold;fill:#222}.sub{font-size:11px;fill:#555}\n"
          ".lbl{font-size:12px;fill:#222}.mach{font-size:9px;fill:#888}.tk{font-size:9px;fill:#666}\n"
          ".sm{font-size:9px}.dn{font-size:8px;fill:#777}.flbl{font-size:10px;fill:#b22222}\n"
          ".row{stroke:#444;stroke-width:1}.down{stroke:#bbb;stroke-width:1;stroke-dasharray:4 3}\n"
          ".grid{stroke:#eee;stroke-width:1}.gap{fill:#f3f3f3}.axis{stroke:#666;stroke-width:1}\n"
          ".wm{stroke:#555555;stroke-width:1.2}.cut{fill:none;stroke-width:1.2;stroke-dasharray:8 3 1 3;stroke-opacity:.8}.d{stroke:#9a9a9a;stroke-width:.7}.b{stroke-width:2}.pr{stroke-width:2;stroke-dasharray:6 3}\n"
          ".cx{stroke-width:1.5;stroke-dasharray:2 2}.rpc{stroke-width:1}.tr{stroke-width:1;stroke-dasharray:3 2}\n"
          ".note{stroke-width:.8}.hb{stroke:#cfcfcf;stroke-width:.5}.q{stroke-width:1.5;stroke-dasharray:1 2}\n"
          ".lost{stroke:#d62728;stroke-width:1.3}.lostx{stroke:#d62728;stroke-width:2;fill:none}\n"
          ".blk{fill:#ff9f1c;fill-opacity:.5}.sync{fill-opacity:1}.async{fill-opacity:.35}\n"
          ".flt{fill:#d62728;fill-opacity:.08}.fltall{fill:#d62728;fill-opacity:.05}.fltl{stroke:#d62728;stroke-width:1;stroke-dasharray:3 3}\n"
          ".crash{stroke:#d62728;stroke-width:2.5}.life{stroke-width:4;stroke-opacity:.3}\n"
          "</style>\n</defs>\n", f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", L->width, L->height);
}

static void title(const layout *L) {
    char a[32], b[32], c[32], sub[320];
    text(L, 12, 22, "ttl", NULL, SVG_NONE, L->o->title != NULL ? L->o->title : "absim run");
    ms_text(a, sizeof a, L->from);
    ms_text(b, sizeof b, L->to);
    ms_text(c, sizeof c, L->r->end_ns);
    snprintf(sub, sizeof sub, "space-time diagram, t = %s to %s of a run that ended at t = %s; one time scale "
             "throughout (%.0f px a millisecond) but for the grey breaks, idle time left out, each labelled with "
             "how long", a, b, c, L->ax.px_per_ns * 1e6);
    text(L, 12, 40, "sub", NULL, SVG_NONE, sub);
}

/* The time grid at the axis's one scale; each break shaded, drawn as a
 * cut in the axis line, with how much time it leaves out. */
static void grid(const layout *L) {
    double ay = L->bottom;
    sim_time_ns step = axis_tick_ns(&L->ax, 70);
    int dec = step >= SIM_NS_PER_MS ? 0 : step >= 100 * SIM_NS_PER_US ? 1 : step >= 10 * SIM_NS_PER_US ? 2 : 3;
    for (uint32_t s = 0; s < L->ax.count; s++) {
        const axis_seg *g = &L->ax.seg[s];
        char buf[64];
        if (g->gap) {
            snprintf(buf, sizeof buf, "%.2f ms", (double)(g->t1 - g->t0) / 1e6);
            tipf(L, "break: t = %.3fms to %.3fms (%s) left out of the axis: no checkpoint pending, no fault beginning "
                 "or ending, no failure, restart or restore in it", (double)g->t0 / 1e6, (double)g->t1 / 1e6, buf);
            rect(L, g->x0, L->top, g->x1 - g->x0, ay - L->top, "gap", NULL, SVG_NONE);
            line(L, g->x0 + 4, ay + 5, g->x0 + 10, ay - 5, "axis", NULL, NULL, SVG_NONE);
            line(L, g->x1 - 10, ay + 5, g->x1 - 4, ay - 5, "axis", NULL, NULL, SVG_NONE);
            text(L, g->x0 + 1, ay + 26, "tk", NULL, SVG_NONE, buf);
            continue;
        }
        line(L, g->x0, ay, g->x1, ay, "axis", NULL, NULL, SVG_NONE);
        for (sim_time_ns t = step == 0 ? g->t1 + 1 : (g->t0 + step - 1) / step * step; t <= g->t1; t += step) {
            double x = tx(L, t);
            line(L, x, L->top, x, ay, "grid", NULL, NULL, SVG_NONE);
            line(L, x, ay, x, ay + 5, "axis", NULL, NULL, SVG_NONE);
            snprintf(buf, sizeof buf, "%.*f", dec, (double)t / 1e6);
            text(L, x - 8, ay + 15, "tk", NULL, SVG_NONE, buf);
        }
    }
    text(L, L->ax.x_end + 6, ay + 15, "tk", NULL, SVG_NONE, "ms");
}

/* ---- faults and task lines ------------------------------------------------- */

static uint32_t fault_step(const layout *L, uint32_t fault) {
    for (uint32_t i = 0; i < L->r->steps_count; i++) {
        if (L->r->steps[i].fault == fault && L->r->steps[i].begin) return i;
    }
    return SVG_NONE;
}

static void fault_band(const layout *L, uint32_t i) {
    const svg_fault *f = &L->r->faults[i];
    sim_time_ns end = f->ended ? f->end_ns : L->r->end_ns;
    if (!in_window(L, f->begin_ns, end)) return;
    uint32_t s = fault_step(L, i);
    double x0 = tx(L, f->begin_ns), x1 = tx(L, end), w = x1 - x0 < 2 ? 2 : x1 - x0;
    double ly = 62 + LANE_H * L->lane[i];
    char tip[SVG_FAULT_TEXT + 64];
    if (end - f->begin_ns < SIM_NS_PER_US) snprintf(tip, sizeof tip, "%s (at t = %.3fms)", f->text, (double)f->begin_ns / 1e6);
    else snprintf(tip, sizeof tip, "%s (t = %.3fms to %.3fms%s)", f->text, (double)f->begin_ns / 1e6, (double)end / 1e6,
                  f->ended ? "" : ", the run's end");
    if (f->everywhere) tipf(L, "%s", tip);
    if (f->everywhere) rect(L, x0, L->top, w, L->bottom - L->top, "fltall", NULL, s);
    for (uint32_t t = 0; t <= L->r->tasks; t++) {
        uint32_t task = t == L->r->tasks ? PIPE_NO_TASK : t;
        bool on = task == PIPE_NO_TASK ? f->coord : f->tasks[t] != 0;
        if (!on || !shown(L, task)) continue;
        double y = ty(L, task);
        tipf(L, "%s", tip);
        rect(L, x0, y - ROW_H / 2 + 3, w, ROW_H - 6, "flt", NULL, s);
        if (f->crash && f->begin_ns >= L->from) {
            fprintf(L->f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" class=\"crash\"", x0 - 6, y - 6, x0 + 6,
                    y + 6, x0 - 6, y + 6, x0 + 6, y - 6);
            tipf(L, "%s", tip);
            sattr(L, s);
            close_el(L, "path");
        }
    }
    line(L, x0, ly + 3, x0, L->bottom, "fltl", NULL, NULL, s);
    char buf[SVG_FAULT_TEXT + 16];
    snprintf(buf, sizeof buf, "fault: %s", f->text);
    tipf(L, "%s", tip);
    text(L, x0 + 3, ly, "flbl", NULL, s, buf);
}

/* When task (PIPE_NO_TASK: the coordinator) was down after a crash that
 * began in [t0, t1]: the first such crash's start, or t1. */
static sim_time_ns crash_in(const layout *L, uint32_t task, sim_time_ns t0, sim_time_ns t1) {
    sim_time_ns first = t1;
    for (uint32_t i = 0; i < L->r->faults_count; i++) {
        const svg_fault *f = &L->r->faults[i];
        bool on = task == PIPE_NO_TASK ? f->coord : f->tasks[task] != 0;
        if (on && f->crash && f->begin_ns > t0 && f->begin_ns < first) first = f->begin_ns;
    }
    return first;
}

/* After a crash at t: back when it restores (a task) or a new
 * coordinator takes over, else at the end. */
static sim_time_ns back_at(const layout *L, uint32_t task, sim_time_ns t) {
    for (uint32_t i = 0; i < L->r->steps_count; i++) {
        const svg_step *s = &L->r->steps[i];
        if (s->fault != SVG_NONE || s->e.at_ns < t) continue;
        if (task == PIPE_NO_TASK ? s->e.kind == PIPE_EV_COORD_FAILOVER : s->e.kind == PIPE_EV_RESTORE && s->e.task == task) {
            return s->e.at_ns;
        }
    }
    return L->r->end_ns;
}

/* A task's line: solid while it runs, dashed while a crash has it down. */
static void task_line(const layout *L, uint32_t task) {
    double y = ty(L, task);
    char name[64];
    svg_task_name(L->r->p, task, name, sizeof name);
    text(L, 10, y + 4, "lbl", NULL, SVG_NONE, name);
    if (task != PIPE_NO_TASK) {
        char m[64];                               /* with slots a restart may have moved it */
        uint32_t mask = L->r->hosts[task], n = 0;
        int used = snprintf(m, sizeof m, "machine%s", (mask & (mask - 1)) ? "s" : "");
        for (uint32_t h = 0; h < 32 && used > 0 && (size_t)used < sizeof m; h++) {
            if (mask >> h & 1) used += snprintf(m + used, sizeof m - (size_t)used, "%s%u", n++ ? ", " : " ", h);
        }
        text(L, 10, y + 15, "mach", NULL, SVG_NONE, m);
    }
    sim_time_ns at = L->from;
    while (at < L->to) {
        sim_time_ns down = crash_in(L, task, at, L->to);
        line(L, tx(L, at), y, tx(L, down), y, "row", NULL, NULL, SVG_NONE);
        if (down >= L->to) break;
        sim_time_ns up = back_at(L, task, down);
        tipf(L, "%s down: crashed at t = %.3fms, %s at t = %.3fms", name, (double)down / 1e6,
             up >= L->r->end_ns ? "still down at the run's end" : task == PIPE_NO_TASK ? "a new coordinator took over"
                                                                   : "restored", (double)up / 1e6);
        line(L, tx(L, down), y, tx(L, up), y, "down", NULL, NULL, SVG_NONE);
        at = up > down ? up : down + 1;
    }
}

/* The coordinator's checkpoints as bars along its line: pending from
 * start to end, in the checkpoint's colour. */
static void ckpt_lives(const layout *L) {
    for (uint32_t i = 0; L->ckpt_end != NULL && i < L->r->steps_count; i++) {
        const pipe_event *e = &L->r->steps[i].e;
        if (L->r->steps[i].fault != SVG_NONE || e->kind != PIPE_EV_CKPT_START) continue;
        if (!in_window(L, e->at_ns, L->ckpt_end[i])) continue;
        double lane = (double)(e->ckpt % 3) * 4;
        tipf(L, "checkpoint %" PRIu64 " pending: triggered at t = %.3fms, ended at t = %.3fms (%.3fms)", e->ckpt,
             (double)e->at_ns / 1e6, (double)L->ckpt_end[i] / 1e6, (double)(L->ckpt_end[i] - e->at_ns) / 1e6);
        line(L, tx(L, e->at_ns), L->coord_y + 6 + lane, tx(L, L->ckpt_end[i]), L->coord_y + 6 + lane, "life",
             svg_ckpt_colour(e->ckpt), NULL, i);
    }
}

/* ---- blocked inputs and snapshots ---------------------------------------- */

typedef struct blocked_at {
    sim_time_ns since;
    uint32_t    step, most;            /* the step that blocked it; the most buffers waiting meanwhile */
    bool        on;
} blocked_at;

static void blocked_rect(const layout *L, uint32_t task, uint32_t input, const blocked_at *b, sim_time_ns until) {
    until = crash_in(L, task, b->since, until);
    if (!shown(L, task) || !in_window(L, b->since, until)) return;
    uint32_t n = L->r->in_first[task + 1] - L->r->in_first[task];
    double h = n > 0 && 16.0 / n < 5 ? 16.0 / n : 5, y = ty(L, task) + 3 + h * input;
    double x0 = tx(L, b->since), x1 = tx(L, until);
    const job *j = pipe_job(L->r->p);
    char from[64], self[64], buf[128];
    svg_task_name(L->r->p, j->chans[j->in_chan[j->tasks[task].in_first + input]].producer, from, sizeof from);
    svg_task_name(L->r->p, task, self, sizeof self);
    tipf(L, "%s: its input from %s blocked for alignment (its barrier came first), t = %.3fms to %.3fms; up to %u "
         "buffer%s waited", self, from, (double)b->since / 1e6, (double)until / 1e6, b->most, b->most == 1 ? "" : "s");
    rect(L, x0, y, x1 - x0, h, "blk", NULL, b->step);
    if (x1 - x0 < 90) return;
    snprintf(buf, sizeof buf, "input from %s blocked%s%u buffer%s wait%s", from, b->most > 0 ? ", up to " : ", ", b->most,
             b->most == 1 ? "" : "s", b->most == 1 ? "s" : "");
    text(L, x0 + 3, y + h + 8, "dn", NULL, b->step, buf);
}

static void blocked(const layout *L) {
    const svg_recorder *r = L->r;
    uint32_t inputs = r->in_first[r->tasks];
    blocked_at *b = calloc((size_t)inputs + 1, sizeof *b);
    if (b == NULL) return;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const svg_step *s = &r->steps[i];
        for (uint32_t g = s->gate_first; g < s->gate_first + s->gate_count; g++) {
            const svg_gate *x = &r->gates[g];
            blocked_at *a = &b[r->in_first[x->task] + x->input];
            if (x->v.blocked && !a->on) *a = (blocked_at){ .since = s->e.at_ns, .step = i, .on = true };
            if (a->on && x->v.buffers > a->most) a->most = x->v.buffers;
            if (!x->v.blocked && a->on) {
                blocked_rect(L, x->task, x->input, a, s->e.at_ns);
                a->on = false;
            }
        }
    }
    for (uint32_t t = 0; t < r->tasks; t++) {
        for (uint32_t k = r->in_first[t]; k < r->in_first[t + 1]; k++) {
            if (b[k].on) blocked_rect(L, t, k - r->in_first[t], &b[k], r->end_ns);
        }
    }
    free(b);
}

typedef struct snap_open {
    uint64_t    ckpt;
    sim_time_ns trig, sync;
    uint32_t    step;
} snap_open;

static snap_open *snap_slot(snap_open *all, uint32_t task, uint64_t ckpt, bool make) {
    snap_open *row = all + (size_t)task * SNAP_SLOTS, *free_one = NULL;
    for (uint32_t k = 0; k < SNAP_SLOTS; k++) {
        if (row[k].ckpt == ckpt) return &row[k];
        if (row[k].ckpt == 0 && free_one == NULL) free_one = &row[k];
    }
    if (!make) return NULL;
    if (free_one == NULL) free_one = &row[ckpt % SNAP_SLOTS];   /* an old one never ended: forget it */
    *free_one = (snap_open){ .ckpt = ckpt };
    return free_one;
}

static bool two_phase(const layout *L, uint32_t task) {
    const job *j = pipe_job(L->r->p);
    const job_vertex *v = &j->vertices[j->tasks[task].vertex];
    return v->kind == JOB_SINK && v->sink == JOB_SINK_2PC;
}

static void snap_bar(const layout *L, uint32_t task, sim_time_ns t0, sim_time_ns t1, const char *cls, uint64_t ckpt,
                     uint32_t step) {
    if (!shown(L, task) || !in_window(L, t0, t1)) return;
    double x0 = tx(L, t0), x1 = tx(L, t1);
    char who[64];
    svg_task_name(L->r->p, task, who, sizeof who);
    bool sync = strcmp(cls, "sync") == 0, tpc = two_phase(L, task);
    tipf(L, "%s: %s of its snapshot of checkpoint %" PRIu64 ", t = %.3fms to %.3fms (%.3fms)%s", who,
         sync ? "synchronous part" : "asynchronous part (the write)", ckpt, (double)t0 / 1e6, (double)t1 / 1e6,
         (double)(t1 - t0) / 1e6, sync && tpc ? "; it pre-commits its transaction for the checkpoint" : "");
    rect(L, x0, ty(L, task) - 10, x1 - x0 < 1.5 ? 1.5 : x1 - x0, 6, cls, svg_ckpt_colour(ckpt), step);
}

/* Synchronous part: trigger to snapshot-sync; asynchronous: to its write's end (or its drop). */
static void snapshots(const layout *L) {
    const svg_recorder *r = L->r;
    snap_open *all = calloc((size_t)r->tasks * SNAP_SLOTS + 1, sizeof *all);
    if (all == NULL) return;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const pipe_event *e = &r->steps[i].e;
        if (r->steps[i].fault != SVG_NONE || e->task == PIPE_NO_TASK || e->ckpt == 0) continue;
        snap_open *o = snap_slot(all, e->task, e->ckpt, e->kind == PIPE_EV_TRIGGER);
        if (o == NULL) continue;
        if (e->kind == PIPE_EV_TRIGGER) {
            *o = (snap_open){ .ckpt = e->ckpt, .trig = e->at_ns, .step = i };
        } else if (e->kind == PIPE_EV_SNAPSHOT_SYNC) {
            snap_bar(L, e->task, o->trig, e->at_ns, "sync", e->ckpt, o->step);
            o->sync = e->at_ns;
            o->step = i;
        } else if (e->kind == PIPE_EV_SNAPSHOT_ASYNC || e->kind == PIPE_EV_SNAPSHOT_DROPPED || e->kind == PIPE_EV_DECLINE) {
            if (o->sync != 0) snap_bar(L, e->task, o->sync, e->at_ns, "async", e->ckpt, i);
            o->ckpt = 0;
        }
    }
    free(all);
}

/* ---- watermarks ------------------------------------------------------------- */

/* A tick under a task's line where it sent a watermark among its records
 * (one every watermark interval at a source: a tick within 8 px of the
 * last one drawn on the line is left out, the next one's hover text has
 * the watermark then). */
static void watermarks(const layout *L) {
    const svg_recorder *r = L->r;
    double *last = malloc(((size_t)r->tasks + 1) * sizeof *last);
    if (last == NULL) return;
    for (uint32_t t = 0; t < r->tasks; t++) last[t] = -1e9;
    for (uint32_t i = 0; i < r->wms_count; i++) {
        const svg_wm *w = &r->wms[i];
        if (!shown(L, w->task) || !in_window(L, w->at_ns, w->at_ns)) continue;
        double x = tx(L, w->at_ns), y = ty(L, w->task);
        if (x - last[w->task] < 8) continue;
        last[w->task] = x;
        char who[64];
        svg_task_name(r->p, w->task, who, sizeof who);
        if (w->wm == INT64_MAX) tipf(L, "t=%.3fms, %s: sent the final watermark (its input ended) on its outputs", (double)w->at_ns / 1e6, who);
        else tipf(L, "t=%.3fms, %s: sent watermark %.3fms (event time) among its records, on its outputs",
                  (double)w->at_ns / 1e6, who, (double)w->wm / 1e6);
        line(L, x, y + 3, x, y + 10, "wm", NULL, NULL, SVG_NONE);
    }
    free(last);
}

/* ---- the cut of each completed checkpoint --------------------------------- */

#define CUT_RECENT 8u                 /* a task's latest snapshots a cut looks among */

typedef struct cut_mark {
    uint64_t    ckpt;
    sim_time_ns at;
} cut_mark;

/* A completed checkpoint's cut: a line through the point where each task
 * took its snapshot, the line of the algorithm: what a task did before
 * its point is in the checkpoint, what it did after is not. Drawn when
 * every shown task's point is known. */
static void cut_line(const layout *L, const cut_mark *recent, uint64_t ckpt, sim_time_ns done) {
    char pts[64];
    uint32_t n = 0;
    for (uint32_t t = 0; t < L->r->tasks; t++) {
        if (!shown(L, t)) continue;
        const cut_mark *m = NULL;
        for (uint32_t k = 0; k < CUT_RECENT; k++) {
            if (recent[t * CUT_RECENT + k].ckpt == ckpt) m = &recent[t * CUT_RECENT + k];
        }
        if (m == NULL || !in_window(L, m->at, m->at)) return;   /* a finished task's or one outside: no line */
        n++;
    }
    if (n < 2) return;
    tipf(L, "the cut of checkpoint %" PRIu64 " (completed at t = %.3fms): each task's point is where it took its "
         "snapshot; the records it had processed before that point are in the checkpoint, those after are not",
         ckpt, (double)done / 1e6);
    fprintf(L->f, "<polyline class=\"cut\" stroke=\"%s\" points=\"", svg_ckpt_colour(ckpt));
    for (uint32_t t = 0, i = 0; t < L->r->tasks; t++) {
        if (!shown(L, t)) continue;
        for (uint32_t k = 0; k < CUT_RECENT; k++) {
            const cut_mark *m = &recent[t * CUT_RECENT + k];
            if (m->ckpt != ckpt) continue;
            snprintf(pts, sizeof pts, "%s%.1f,%.1f", i++ ? " " : "", tx(L, m->at), ty(L, t));
            fputs(pts, L->f);
            break;
        }
    }
    fputc('"', L->f);
    close_el(L, "polyline");
}

static void cuts(const layout *L) {
    const svg_recorder *r = L->r;
    cut_mark *recent = calloc((size_t)r->tasks * CUT_RECENT + 1, sizeof *recent);
    if (recent == NULL) return;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const pipe_event *e = &r->steps[i].e;
        if (r->steps[i].fault != SVG_NONE) continue;
        if (e->kind == PIPE_EV_TRIGGER && e->task != PIPE_NO_TASK) {
            cut_mark *row = &recent[(size_t)e->task * CUT_RECENT];
            memmove(row + 1, row, (CUT_RECENT - 1) * sizeof *row);   /* newest first */
            row[0] = (cut_mark){ .ckpt = e->ckpt, .at = e->at_ns };
        } else if (e->kind == PIPE_EV_CKPT_COMPLETE && in_window(L, e->at_ns, e->at_ns)) {
            cut_line(L, recent, e->ckpt, e->at_ns);
        }
    }
    free(recent);
}

/* ---- messages ---------------------------------------------------------------- */

static bool msg_shown(const layout *L, const svg_msg *m) {
    sim_time_ns end = m->recv_ns != 0 ? m->recv_ns : m->due_ns != 0 ? m->due_ns : m->sent_ns;
    return shown(L, m->from) && shown(L, m->to) && in_window(L, m->sent_ns, end);
}

/* What a message was: its kind (a data message's buffer kind), whose
 * checkpoint, between whom, sent when, and what became of it. */
static void msg_tip(const layout *L, const svg_msg *m) {
    char from[64], to[64], what[80], fate[96];
    svg_task_name(L->r->p, m->from, from, sizeof from);
    svg_task_name(L->r->p, m->to, to, sizeof to);
    if (m->msg == MSG_PRIORITY) snprintf(what, sizeof what, "unaligned barrier of checkpoint %" PRIu64, m->ckpt);
    else if (m->msg == MSG_DATA && m->buf == PIPE_BUF_BARRIER) snprintf(what, sizeof what, "barrier of checkpoint %" PRIu64, m->ckpt);
    else if (m->msg == MSG_DATA && m->buf == PIPE_BUF_CANCEL) snprintf(what, sizeof what, "cancel marker of checkpoint %" PRIu64, m->ckpt);
    else if (m->msg == MSG_DATA && m->buf == PIPE_BUF_END) snprintf(what, sizeof what, "end of partition");
    else if (m->msg == MSG_DATA && m->buf == PIPE_BUF_END_DATA) snprintf(what, sizeof what, "end of data");
    else if (m->msg == MSG_DATA) snprintf(what, sizeof what, "buffer of %u record%s", m->count, m->count == 1 ? "" : "s");
    else if (m->ckpt > 0) snprintf(what, sizeof what, "%s (checkpoint %" PRIu64 ")", pipe_msg_name(m->msg), m->ckpt);
    else snprintf(what, sizeof what, "%s", pipe_msg_name(m->msg));
    if (m->flags & SVG_DELIVERED) snprintf(fate, sizeof fate, "arrived at t = %.3fms", (double)m->recv_ns / 1e6);
    else if (m->flags & SVG_LOST_AT_ONCE) snprintf(fate, sizeof fate, "refused by its link: lost");
    else if (m->flags & SVG_IN_FLIGHT) snprintf(fate, sizeof fate, "still travelling at the run's end");
    else snprintf(fate, sizeof fate, "lost on the way (due at t = %.3fms)", (double)m->due_ns / 1e6);
    tipf(L, "%s from %s to %s%s, sent at t = %.3fms, %s", what, from, to,
         m->chan != PIPE_NO_CHAN && m->msg == MSG_DATA ? " on its channel" : "", (double)m->sent_ns / 1e6, fate);
}

/* A message that did not arrive: lost at once, lost on the way, or still
 * travelling at the end. True when it was drawn so. */
static bool undelivered(const layout *L, const svg_msg *m, uint32_t step) {
    if (m->flags & SVG_DELIVERED) return false;
    double x1 = tx(L, m->sent_ns), y1 = ty(L, m->from), y2 = ty(L, m->to);
    if (m->flags & SVG_IN_FLIGHT) return true;   /* past the end: nothing to say */
    sim_time_ns lat = m->msg == MSG_DATA || m->msg == MSG_PRIORITY ? pipe_config(L->r->p)->latency_ns
                                                                    : pipe_config(L->r->p)->rpc_latency_ns;
    double x2 = tx(L, (m->flags & SVG_LOST_AT_ONCE) ? m->sent_ns + lat : m->due_ns);
    if (x2 - x1 < 12) x2 = x1 + 12;
    msg_tip(L, m);
    lost(L, x1, y1, x2, y2, (m->flags & SVG_LOST_AT_ONCE) ? 0.35 : 0.75, step);
    return true;
}

typedef struct data_bin {
    int64_t  bin;                     /* 10 px of sending time; a break in the axis: one bin, below 0 */
    uint32_t n, records;
    double   xs, xr;                  /* sums */
    sim_time_ns first_ns, last_ns;    /* sending times of the first and the last */
    uint32_t from, to;
    double   labelled;                /* where the channel's last count was written */
} data_bin;

static uint32_t bits(uint32_t n) {
    uint32_t b = 0;
    while (n > 0) { b++; n >>= 1; }
    return b;
}

static void flush_bin(const layout *L, data_bin *b) {
    if (b->n == 0) return;
    double x1 = b->xs / b->n, x2 = b->xr / b->n, y1 = ty(L, b->from), y2 = ty(L, b->to);
    char from[64], to[64];
    svg_task_name(L->r->p, b->from, from, sizeof from);
    svg_task_name(L->r->p, b->to, to, sizeof to);
    if (b->n == 1) tipf(L, "buffer of %u record%s from %s to %s, sent at t = %.3fms", b->records, b->records == 1 ? "" : "s",
                        from, to, (double)b->first_ns / 1e6);
    else tipf(L, "%u buffers, %u records, from %s to %s, sent t = %.3fms to %.3fms", b->n, b->records, from, to,
              (double)b->first_ns / 1e6, (double)b->last_ns / 1e6);
    char tip[TIP_MAX];
    memcpy(tip, L->tip, TIP_MAX);
    fprintf(L->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"d\"", x1, y1, x2, y2);
    if (b->n > 1) fprintf(L->f, " stroke-width=\"%.2f\"", 0.5 + 0.45 * bits(b->n));
    fputs(" marker-end=\"url(#sd-g0)\"", L->f);
    close_el(L, "line");
    bool worth = b->bin < 0 || b->n > 2 || (b->n == 1 && b->records < FULL_BUFFER / 2);   /* a few, or a short flush */
    if (worth && x1 - b->labelled > 80) {         /* counts no closer than 80 px on a channel */
        char buf[32];
        snprintf(buf, sizeof buf, "%u", b->records);
        memcpy(L->tip, tip, TIP_MAX);
        text(L, (x1 + x2) / 2 + 2, (y1 + y2) / 2 - 2, "dn", NULL, SVG_NONE, buf);
        b->labelled = x1;
    }
    b->n = 0;
}

/* Record buffers, a thin arrow each; several sent within a few pixels of
 * one channel become one thicker arrow labelled with their records. */
static void data_msgs(layout *L) {
    const svg_recorder *r = L->r;
    uint32_t chans = pipe_job(r->p)->chans_count;
    data_bin *bins = calloc((size_t)chans + 1, sizeof *bins);
    if (bins == NULL) return;
    for (uint32_t c = 0; c <= chans; c++) bins[c].labelled = -1e9;
    for (uint32_t i = 0; i < r->msgs_count; i++) {
        const svg_msg *m = &r->msgs[i];
        if (m->msg != MSG_DATA || m->buf != PIPE_BUF_DATA || !msg_shown(L, m) || m->chan >= chans) continue;
        L->drawn_msgs++;
        if (undelivered(L, m, SVG_NONE)) continue;
        data_bin *b = &bins[m->chan];
        double xs = tx(L, m->sent_ns);
        uint32_t seg = axis_seg_of(&L->ax, m->sent_ns);
        int64_t bin = L->ax.seg[seg].gap ? -1 - (int64_t)seg : (int64_t)(xs / 10.0);
        if (b->n > 0 && b->bin != bin) flush_bin(L, b);
        if (b->n == 0) *b = (data_bin){ .bin = bin, .from = m->from, .to = m->to, .labelled = b->labelled, .first_ns = m->sent_ns };
        b->last_ns = m->sent_ns;
        b->n++;
        b->records += m->count;
        b->xs += xs;
        b->xr += tx(L, m->recv_ns);
    }
    for (uint32_t c = 0; c < chans; c++) flush_bin(L, &bins[c]);
    free(bins);
}

typedef struct rpc_look {
    const char *cls, *stroke, *marker, *label;
} rpc_look;

/* How a message between the coordinator and a task looks; cls NULL: not drawn. */
static rpc_look look_of(const svg_msg *m, char *marker, size_t n) {
    snprintf(marker, n, "c%u", m->ckpt > 0 ? (uint32_t)((m->ckpt - 1) % SVG_CKPT_COLOURS) : 0);
    const char *colour = svg_ckpt_colour(m->ckpt);
    switch (m->msg) {
    case MSG_TRIGGER:   return (rpc_look){ "tr", colour, marker, NULL };
    case MSG_ACK:       return (rpc_look){ "rpc", colour, marker, NULL };
    case MSG_DECLINE:   return (rpc_look){ "rpc", "#d62728", "r0", "decline" };
    case MSG_COMPLETE:  return (rpc_look){ "note", "#2ca02c", "n0", NULL };
    case MSG_ABORTED:   return (rpc_look){ "note", "#d62728", "r0", NULL };
    case MSG_FAILED:    return (rpc_look){ "rpc", "#d62728", "r0", "failed" };
    case MSG_DEPLOY:    return (rpc_look){ "rpc", "#333333", "k0", "deploy" };
    case MSG_CANCEL:    return (rpc_look){ "tr", "#333333", "k0", "cancel" };
    case MSG_HEARTBEAT: return (rpc_look){ "hb", NULL, NULL, NULL };
    default:            return (rpc_look){ "note", "#9a9a9a", "g0", NULL };
    }
}

/* Routine RPCs (heartbeats, slot offers, ...) sent and delivered inside
 * one break in the axis would only draw a smudge there. */
static bool smudge(const layout *L, const svg_msg *m) {
    if (!(m->flags & SVG_DELIVERED) || m->msg == MSG_DEPLOY || m->msg == MSG_CANCEL || m->msg == MSG_FAILED ||
        m->msg == MSG_DECLINE || m->msg == MSG_TRIGGER || m->msg == MSG_ACK) {
        return false;
    }
    uint32_t a = axis_seg_of(&L->ax, m->sent_ns), b = axis_seg_of(&L->ax, m->recv_ns);
    return a == b && L->ax.seg[a].gap;
}

static void rpc_msgs(layout *L) {
    const svg_recorder *r = L->r;
    for (uint32_t i = 0; i < r->msgs_count; i++) {
        const svg_msg *m = &r->msgs[i];
        if (m->msg == MSG_DATA || m->msg == MSG_PRIORITY || !msg_shown(L, m) || smudge(L, m)) continue;
        L->drawn_msgs++;
        uint32_t step = L->o->viewer ? msg_step(L, m) : SVG_NONE;
        if (undelivered(L, m, step)) continue;
        char marker[8];
        rpc_look k = look_of(m, marker, sizeof marker);
        double x1 = tx(L, m->sent_ns), y1 = ty(L, m->from), x2 = tx(L, m->recv_ns), y2 = ty(L, m->to);
        msg_tip(L, m);
        line(L, x1, y1, x2, y2, k.cls, k.stroke, k.marker, step);
        if (k.label != NULL) msg_tip(L, m);
        if (k.label != NULL) text(L, x1 + (x2 - x1) * 0.6 + 3, y1 + (y2 - y1) * 0.6, "dn", NULL, step, k.label);
    }
}

/* Barriers (in-band, or unaligned ahead of the data), cancel markers and
 * end of partition; a barrier that waited in the queue behind data
 * before the gate took it shows the wait as a dotted stretch. */
static void barrier_msgs(layout *L) {
    const svg_recorder *r = L->r;
    for (uint32_t i = 0; i < r->msgs_count; i++) {
        const svg_msg *m = &r->msgs[i];
        bool prio = m->msg == MSG_PRIORITY;
        if ((m->msg != MSG_DATA || m->buf == PIPE_BUF_DATA) && !prio) continue;
        if (!msg_shown(L, m)) continue;
        L->drawn_msgs++;
        uint32_t step = msg_step(L, m);
        if (undelivered(L, m, step)) continue;
        double x1 = tx(L, m->sent_ns), y1 = ty(L, m->from), x2 = tx(L, m->recv_ns), y2 = ty(L, m->to);
        char marker[8];
        snprintf(marker, sizeof marker, "c%u", m->ckpt > 0 ? (uint32_t)((m->ckpt - 1) % SVG_CKPT_COLOURS) : 0);
        msg_tip(L, m);
        if (m->buf == PIPE_BUF_END) {
            line(L, x1, y1, x2, y2, "rpc", "#333333", "k0", SVG_NONE);
            msg_tip(L, m);
            text(L, x2 + 2, y2 - 3, "dn", NULL, SVG_NONE, "end");
            continue;
        }
        const char *cls = prio ? "pr" : m->buf == PIPE_BUF_CANCEL ? "cx" : "b";
        line(L, x1, y1, x2, y2, cls, svg_ckpt_colour(m->ckpt), marker, L->o->viewer ? step : SVG_NONE);
        if (step == SVG_NONE) continue;
        sim_time_ns took = r->steps[step].e.at_ns;
        char to[64];
        svg_task_name(r->p, m->to, to, sizeof to);
        tipf(L, "barrier %" PRIu64 " queued at %s behind the data that came before it, t = %.3fms to %.3fms, until its "
             "gate took it", m->ckpt, to, (double)m->recv_ns / 1e6, (double)took / 1e6);
        if (took > m->recv_ns) line(L, x2, y2 - 2, tx(L, took), y2 - 2, "q", svg_ckpt_colour(m->ckpt), NULL, SVG_NONE);
    }
}

/* ---- single steps -------------------------------------------------------- */

static void dot(const layout *L, double x, double y, double rad, const char *fill, uint32_t step) {
    fprintf(L->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"", x, y, rad, fill);
    sattr(L, step);
    close_el(L, "circle");
}

static void cross(const layout *L, double x, double y, double d, const char *stroke, uint32_t step) {
    fprintf(L->f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"1.5\"", x - d, y - d,
            x + d, y + d, x - d, y + d, x + d, y - d, stroke);
    sattr(L, step);
    close_el(L, "path");
}

static void triangle(const layout *L, double x, double y, const char *fill, uint32_t step) {
    fprintf(L->f, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fz\" fill=\"%s\"", x, y - 7, x - 5, y + 2, x + 5, y + 2, fill);
    sattr(L, step);
    close_el(L, "path");
}

/* A mark's hover text: when, who, what. */
static void mark_tip(const layout *L, const pipe_event *e, const char *what) {
    char who[64];
    svg_task_name(L->r->p, e->task, who, sizeof who);
    tipf(L, "t=%.3fms, %s: %s", (double)e->at_ns / 1e6, who, what);
}

/* The coordinator's steps: checkpoints begun and ended, failures, restarts. */
/* Where a checkpoint's outcome goes: below the line, stacked when several end together. */
static double outcome_y(layout *L, double x, double y) {
    L->stack_n = x - L->stack_x < 60 && L->stack_n < 5 ? L->stack_n + 1 : 0;
    if (L->stack_n == 0) L->stack_x = x;
    return y + 24 + 10.0 * L->stack_n;
}

/* The job's end at a stop or cancel, and its resume. */
static void halt_mark(layout *L, const pipe_event *e, double x, double y, uint32_t i) {
    char buf[160];
    if (e->kind == PIPE_EV_HALTED && e->ok) snprintf(buf, sizeof buf, "job drained at savepoint %" PRIu64 ": over", e->ckpt);
    else if (e->kind == PIPE_EV_HALTED) snprintf(buf, sizeof buf, "job %s; resumes from %" PRIu64,
                                                 e->count == PIPE_HALT_STOP ? "stopped" : "cancelled", e->ckpt);
    else snprintf(buf, sizeof buf, "resumed from %" PRIu64 " (%s)", e->ckpt, e->count == PIPE_CLAIM_CLAIM ? "CLAIM"
                                   : e->count == PIPE_CLAIM_LEGACY ? "LEGACY" : "NO_CLAIM");
    mark_tip(L, e, buf);
    triangle(L, x, y, e->kind == PIPE_EV_HALTED ? "#7f7f7f" : "#2ca02c", i);
    mark_tip(L, e, buf);
    text(L, x + 4, y - 16, "sm", "#7f7f7f", i, buf);
}

static bool coord_mark(layout *L, const pipe_event *e, double x, double y, uint32_t i) {
    char buf[160], what[200], who[64] = "";
    const char *colour = svg_ckpt_colour(e->ckpt);
    switch (e->kind) {
    case PIPE_EV_CKPT_START:
        snprintf(what, sizeof what, e->savepoint ? "stop: savepoint %" PRIu64 " triggered" : "checkpoint %" PRIu64 " triggered",
                 e->ckpt);
        mark_tip(L, e, what);
        dot(L, x, y, 4, colour, i);
        snprintf(buf, sizeof buf, "%" PRIu64, e->ckpt);
        mark_tip(L, e, what);
        text(L, x - 3, y - 8, "sm", colour, i, buf);
        return true;
    case PIPE_EV_CKPT_COMPLETE:
        snprintf(what, sizeof what, e->savepoint ? "savepoint %" PRIu64 " completed" : "checkpoint %" PRIu64 " completed",
                 e->ckpt);
        mark_tip(L, e, what);
        dot(L, x, y, 3.5, "#2ca02c", i);
        snprintf(buf, sizeof buf, e->savepoint ? "savepoint %" PRIu64 : "%" PRIu64 " done", e->ckpt);
        mark_tip(L, e, what);
        text(L, x + 3, outcome_y(L, x, y), "sm", "#2ca02c", i, buf);
        return true;
    case PIPE_EV_CKPT_ABORT:
        snprintf(buf, sizeof buf, "%" PRIu64 " %s", e->ckpt, pipe_ckpt_end_name(e->end));
        snprintf(what, sizeof what, "checkpoint %" PRIu64 " aborted: %s", e->ckpt, pipe_ckpt_end_name(e->end));
        mark_tip(L, e, what);
        cross(L, x, y, 4, "#d62728", i);
        mark_tip(L, e, what);
        text(L, x + 3, outcome_y(L, x, y), "sm", "#d62728", i, buf);
        return true;
    case PIPE_EV_HALTED:
    case PIPE_EV_RESUMED: halt_mark(L, e, x, y, i); return true;
    case PIPE_EV_JOB_FAILED:
        if (e->culprit != PIPE_NO_TASK) svg_task_name(L->r->p, e->culprit, who, sizeof who);
        snprintf(buf, sizeof buf, "job failed: %s%s%s", rpt_fail_cause_name(e->cause), *who ? ", " : "", who);
        mark_tip(L, e, buf);
        triangle(L, x, y, "#d62728", i);
        mark_tip(L, e, buf);
        text(L, x + 4, y - 16, "sm", "#d62728", i, buf);
        return true;
    case PIPE_EV_JOB_RESTARTED: {
        char of[64] = "";
        uint32_t region, tasks;
        if (rpt_step_region(L->r->p, e, &region, &tasks)) snprintf(of, sizeof of, " of region %u (%u tasks)", region, tasks);
        if (e->ckpt > 0) snprintf(buf, sizeof buf, "restart%s: attempt %" PRIu64 " from checkpoint %" PRIu64, of, e->epoch, e->ckpt);
        else snprintf(buf, sizeof buf, "restart%s: attempt %" PRIu64 " from the beginning", of, e->epoch);
        mark_tip(L, e, buf);
        triangle(L, x, y, "#2ca02c", i);
        mark_tip(L, e, buf);
        text(L, x + 4, y - 16, "sm", "#2ca02c", i, buf);
        return true;
    }
    case PIPE_EV_COORD_FAILOVER:
        mark_tip(L, e, "a new coordinator took over");
        triangle(L, x, y, "#9467bd", i);
        mark_tip(L, e, "a new coordinator took over");
        text(L, x + 4, y - 16, "sm", "#9467bd", i, "a new coordinator took over");
        return true;
    case PIPE_EV_METADATA:
        if (e->ok && !e->ambiguous) return true;
        snprintf(buf, sizeof buf, "metadata of %" PRIu64 ": %s", e->ckpt, e->ambiguous ? "ambiguous" : "write failed");
        snprintf(what, sizeof what, "the metadata write of checkpoint %" PRIu64 " %s", e->ckpt,
                 e->ambiguous ? "ended ambiguously: the coordinator cannot tell whether the store took it" : "failed");
        mark_tip(L, e, what);
        text(L, x + 3, y + 34, "sm", "#d62728", i, buf);
        return true;
    default:
        return false;
    }
}

/* A task's snapshot steps: trigger, channel state, decline, drop, failed write. */
static bool snap_mark(const layout *L, const pipe_event *e, double x, double y, uint32_t i) {
    char buf[96], what[200];
    const char *colour = svg_ckpt_colour(e->ckpt);
    switch (e->kind) {
    case PIPE_EV_TRIGGER:
        if (two_phase(L, e->task)) {              /* TwoPhaseCommitSinkFunction.snapshotState pre-commits */
            snprintf(what, sizeof what, "pre-commits its open transaction for checkpoint %" PRIu64 " and opens the next: "
                     "committed when the checkpoint completes", e->ckpt);
            mark_tip(L, e, what);
            fprintf(L->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"5\" height=\"5\" fill=\"#ffffff\" stroke=\"#2ca02c\"",
                    x - 2.5, y + 5);
            sattr(L, i);
            close_el(L, "rect");
        }
        snprintf(what, sizeof what, "takes its snapshot of checkpoint %" PRIu64 "%s", e->ckpt,
                 e->unaligned ? " (unaligned: its in-flight data goes into the snapshot)" : "");
        mark_tip(L, e, what);
        line(L, x, y - 15, x, y + 4, "b", colour, NULL, i);
        snprintf(buf, sizeof buf, "%" PRIu64 "%s", e->ckpt, e->unaligned ? " unaligned" : "");
        mark_tip(L, e, what);
        text(L, x - 3, y - 18, "sm", colour, i, buf);
        return true;
    case PIPE_EV_CHANNEL_STATE:
        snprintf(what, sizeof what, "persists channel state of checkpoint %" PRIu64 ": %u in-flight records", e->ckpt, e->count);
        mark_tip(L, e, what);
        fprintf(L->f, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" fill=\"%s\"", x, y + 8, colour);
        sattr(L, i);
        close_el(L, "path");
        snprintf(buf, sizeof buf, "cs %u", e->count);
        mark_tip(L, e, what);
        text(L, x + 5, y + 16, "dn", NULL, i, buf);
        return true;
    case PIPE_EV_DECLINE:
        snprintf(buf, sizeof buf, "%" PRIu64 " %s", e->ckpt, e->known_aborted ? "aborted before its trigger" : "declined");
        snprintf(what, sizeof what, "checkpoint %s", buf);
        mark_tip(L, e, what);
        cross(L, x, y, 3, "#d62728", i);
        mark_tip(L, e, what);
        text(L, x + 3, y + 26, "sm", "#d62728", i, buf);
        return true;
    case PIPE_EV_SNAPSHOT_DROPPED:
        snprintf(buf, sizeof buf, "%" PRIu64 " dropped", e->ckpt);
        snprintf(what, sizeof what, "drops its snapshot of checkpoint %" PRIu64, e->ckpt);
        mark_tip(L, e, what);
        text(L, x + 3, y + 26, "sm", "#888888", i, buf);
        return true;
    case PIPE_EV_WRITE_DONE:
        if (e->ok) return true;
        snprintf(what, sizeof what, "a snapshot write of checkpoint %" PRIu64 " failed", e->ckpt);
        mark_tip(L, e, what);
        text(L, x + 3, y + 26, "sm", "#d62728", i, "write failed");
        return true;
    default:
        return false;
    }
}

/* A sink's transaction aborted: the open one on a restore, or one
 * pre-committed for a checkpoint that did not complete. (Commits are
 * SINK_COMMIT's marks.) */
/* A commit: a green square of side `side` under the task's line, a label below. */
static void commit_mark(const layout *L, const pipe_event *e, double x, double y, uint32_t i, double side,
                        const char *what, const char *caption) {
    mark_tip(L, e, what);
    rect(L, x - side / 2, y + 5, side, side, "row", "#2ca02c", i);
    mark_tip(L, e, what);
    text(L, x + side / 2 + 1.5, y + 26, "sm", "#2ca02c", i, caption);
}

static void txn_mark(const layout *L, const pipe_event *e, double x, double y, uint32_t i) {
    char buf[96], what[200];
    if (e->ok) return;
    if (e->ckpt > 0) {
        snprintf(buf, sizeof buf, "txn %" PRIu64 " aborted", e->ckpt);
        snprintf(what, sizeof what, "aborts its transaction pre-committed for checkpoint %" PRIu64 " (%u records)%s", e->ckpt,
                 e->count, e->txn_why == PIPE_TXN_RESTORE ? " on its restore of an earlier checkpoint" : "");
    } else {
        snprintf(buf, sizeof buf, "open txn aborted");
        snprintf(what, sizeof what, "aborts its open transaction (%u records, not pre-committed)%s", e->count,
                 e->txn_why == PIPE_TXN_RESTORE ? " on its restore" : "");
    }
    mark_tip(L, e, what);
    rect(L, x - 2.5, y + 5, 5, 5, "row", "#d62728", i);
    mark_tip(L, e, what);
    text(L, x + 4, y + 26, "sm", "#d62728", i, buf);
}

/* Its gate, its life: barriers taken, cancel markers, restores, the end,
 * commits, window firings. */
/* Sink V2's and the changelog's marks: a materialization, a global
 * commit, a committable summary sent or taken. */
static void sink_state_mark(const layout *L, const pipe_event *e, double x, double y, uint32_t i) {
    char buf[96], what[200];
    switch (e->kind) {
    case PIPE_EV_MATERIALIZED:                    /* changelog: a materialization ended */
        snprintf(what, sizeof what, e->ok ? "materialized its state (%u keys): checkpoints build on it from now"
                                          : "its materialization failed (%u keys)", e->count);
        mark_tip(L, e, what);
        rect(L, x - 3, y - 13, 6, 6, "row", e->ok ? "#8c564b" : "#d62728", i);
        break;
    case PIPE_EV_GLOBAL_COMMIT:
        snprintf(what, sizeof what, "commits checkpoint %" PRIu64 " globally: the committables of %u of %" PRIu64
                 " upstream subtasks", e->ckpt, e->count, e->word_a);
        snprintf(buf, sizeof buf, "global %" PRIu64, e->ckpt);
        commit_mark(L, e, x, y, i, 7, what, buf);
        break;
    case PIPE_EV_COMMITTABLES:                    /* Sink V2: a committable summary sent or taken */
        snprintf(what, sizeof what, "%s the committable summary of checkpoint %" PRIu64 ": %u committable%s%s",
                 e->ok ? "took" : "sent", e->ckpt, e->count, e->count == 1 ? "" : "s",
                 e->ok ? " into its collector" : e->at_end ? ", at end of input" : ", ahead of its barrier");
        mark_tip(L, e, what);
        rect(L, x - 2.5, y - 11, 5, 5, "row", e->count > 0 ? "#9467bd" : "#c5b0d5", i);
        break;
    default:
        break;
    }
}

static void task_mark(const layout *L, const pipe_event *e, double x, double y, uint32_t i) {
    char buf[96], what[200];
    const char *colour = svg_ckpt_colour(e->ckpt);
    switch (e->kind) {
    case PIPE_EV_BARRIER:
        snprintf(what, sizeof what, "its gate takes barrier %" PRIu64 " on input channel %u", e->ckpt, e->input);
        mark_tip(L, e, what);
        dot(L, x, y, 2.5, colour, i);
        break;
    case PIPE_EV_CANCEL:
        snprintf(what, sizeof what, "its gate takes the cancel marker of checkpoint %" PRIu64 " on input channel %u", e->ckpt,
                 e->input);
        mark_tip(L, e, what);
        cross(L, x, y, 2.5, colour, i);
        break;
    case PIPE_EV_RESTORE:
        if (e->ckpt > 0) snprintf(buf, sizeof buf, "restore %" PRIu64 "%s", e->ckpt, e->ok ? "" : ": files gone");
        else snprintf(buf, sizeof buf, "start, attempt %" PRIu64, e->epoch);
        if (e->ckpt > 0) snprintf(what, sizeof what, "attempt %" PRIu64 " restores its state from checkpoint %" PRIu64 "%s",
                                  e->epoch, e->ckpt, e->ok ? "" : ", but its files are gone");
        else snprintf(what, sizeof what, "attempt %" PRIu64 " starts from the beginning", e->epoch);
        mark_tip(L, e, what);
        dot(L, x, y, 3, e->ok ? "#333333" : "#d62728", i);
        if (e->ckpt == 0 && e->epoch == 0) break;   /* the job's first start: the dot and its hover text say it */
        mark_tip(L, e, what);
        text(L, x + 3, y - 12, "sm", e->ok ? "#333333" : "#d62728", i, buf);
        break;
    case PIPE_EV_TASK_FINISHED:
        mark_tip(L, e, "finished");
        rect(L, x - 3, y - 3, 6, 6, "row", "#222222", i);
        mark_tip(L, e, "finished");
        text(L, x + 5, y - 5, "sm", "#222222", i, "finished");
        break;
    case PIPE_EV_SINK_COMMIT:
        snprintf(what, sizeof what, "commits its transaction of checkpoint %" PRIu64 ": its records become visible", e->ckpt);
        snprintf(buf, sizeof buf, "commit %" PRIu64, e->ckpt);
        commit_mark(L, e, x, y, i, 5, what, buf);
        break;
    case PIPE_EV_TXN:
        txn_mark(L, e, x, y, i);
        break;
    case PIPE_EV_WINDOWS_FIRED:
        snprintf(buf, sizeof buf, "%u fired", e->count);
        snprintf(what, sizeof what, "its watermark rose: %u window%s fired (results sent downstream), %" PRIu64
                 " purged (past their allowed lateness)", e->count, e->count == 1 ? "" : "s", (uint64_t)e->bytes);
        mark_tip(L, e, what);
        fprintf(L->f, "<path d=\"M%.1f %.1fl3.5 -7l3.5 7z\" fill=\"#ffffff\" stroke=\"#333333\"", x - 3.5, y - 3);
        sattr(L, i);
        close_el(L, "path");
        break;
    default:
        sink_state_mark(L, e, x, y, i);
        break;
    }
}

static void marks(layout *L) {
    const svg_recorder *r = L->r;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const svg_step *s = &r->steps[i];
        const pipe_event *e = &s->e;
        if (!in_window(L, e->at_ns, e->at_ns) || !shown(L, e->task)) continue;
        L->drawn_steps++;
        if (s->fault != SVG_NONE) continue;
        double x = tx(L, e->at_ns), y = ty(L, e->task);
        if (e->task == PIPE_NO_TASK) coord_mark(L, e, x, y, i);
        else if (!snap_mark(L, e, x, y, i)) task_mark(L, e, x, y, i);
    }
}

/* ---- legend and notes ---------------------------------------------------- */

typedef enum sample { S_LINE, S_LOST, S_RECT, S_BARS, S_DIAMOND, S_CROSS, S_SQUARES, S_TRIANGLE, S_TICK } sample;

typedef struct legend_item {
    sample      kind;
    const char *cls, *colour, *marker, *what;
} legend_item;

static const legend_item legend_items[] = {
    { S_LINE, "b", "#1f77b4", "c0", "barrier n in checkpoint n's colour (dot: the gate takes it)" },
    { S_LINE, "pr", "#1f77b4", "c0", "unaligned barrier (long dashes): overtakes the queued data" },
    { S_LINE, "cx", "#1f77b4", "c0", "cancel marker (short dashes)" },
    { S_LINE, "d", NULL, "g0", "record buffer (number: its records, or several buffers')" },
    { S_LINE, "q", "#1f77b4", NULL, "barrier queued behind data until the gate takes it" },
    { S_LOST, NULL, NULL, NULL, "lost message (refused by its link, or never delivered)" },
    { S_LINE, "tr", "#1f77b4", "c0", "trigger: coordinator to source (its checkpoint's colour)" },
    { S_LINE, "rpc", "#1f77b4", "c0", "acknowledgement: task to coordinator (its checkpoint's colour)" },
    { S_LINE, "note", "#2ca02c", "n0", "completion notice (checkpoint n done)" },
    { S_LINE, "note", "#d62728", "r0", "abort notice, decline, failure report" },
    { S_LINE, "rpc", "#333333", "k0", "deploy; cancel (dashed)" },
    { S_LINE, "hb", NULL, NULL, "heartbeat; grey: other RPCs" },
    { S_RECT, "blk", NULL, NULL, "input blocked for alignment" },
    { S_BARS, NULL, "#1f77b4", NULL, "snapshot: synchronous part, then asynchronous part" },
    { S_DIAMOND, NULL, "#1f77b4", NULL, "channel state persisted (cs: records)" },
    { S_RECT, "flt", NULL, NULL, "fault window (its line above)" },
    { S_CROSS, NULL, "#d62728", NULL, "crash; the line dashed while down" },
    { S_RECT, "gap", NULL, NULL, "break: idle time left out (below: how long)" },
    { S_SQUARES, NULL, NULL, NULL, "sink's transaction: pre-committed (hollow), committed, aborted (red)" },
    { S_TRIANGLE, NULL, NULL, NULL, "window task: its watermark rose, windows fired" },
    { S_LINE, "cut", "#1f77b4", NULL, "a completed checkpoint's cut: each task's snapshot point" },
    { S_TICK, "wm", NULL, NULL, "watermark sent among the records (event time jobs)" },
};

static void legend_sample(const layout *L, const legend_item *k, double x, double y) {
    switch (k->kind) {
    case S_LINE: line(L, x, y, x + 34, y, k->cls, k->colour, k->marker, SVG_NONE); break;
    case S_LOST: lost(L, x, y, x + 40, y, 0.8, SVG_NONE); break;
    case S_RECT: rect(L, x, y - 4, 34, 8, k->cls, NULL, SVG_NONE); break;
    case S_BARS:
        rect(L, x, y - 3, 8, 6, "sync", k->colour, SVG_NONE);
        rect(L, x + 8, y - 3, 26, 6, "async", k->colour, SVG_NONE);
        break;
    case S_DIAMOND:
        fprintf(L->f, "<path d=\"M%.1f %.1fl4 4l-4 4l-4 -4z\" fill=\"%s\"/>\n", x + 16, y - 4, k->colour);
        break;
    case S_CROSS:
        fprintf(L->f, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" class=\"crash\"/>\n", x + 10, y - 5, x + 20,
                y + 5, x + 10, y + 5, x + 20, y - 5);
        line(L, x + 22, y, x + 40, y, "down", NULL, NULL, SVG_NONE);
        break;
    case S_SQUARES:
        fprintf(L->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"5\" height=\"5\" fill=\"#ffffff\" stroke=\"#2ca02c\"/>\n", x + 2, y - 2.5);
        rect(L, x + 14, y - 2.5, 5, 5, "row", "#2ca02c", SVG_NONE);
        rect(L, x + 26, y - 2.5, 5, 5, "row", "#d62728", SVG_NONE);
        break;
    case S_TICK:
        line(L, x, y, x + 34, y, "row", NULL, NULL, SVG_NONE);
        for (double d = 6; d < 34; d += 9) line(L, x + d, y + 2, x + d, y + 9, "wm", NULL, NULL, SVG_NONE);
        break;
    case S_TRIANGLE:
        fprintf(L->f, "<path d=\"M%.1f %.1fl3.5 -7l3.5 7z\" fill=\"#ffffff\" stroke=\"#333333\"/>\n", x + 13.5, y + 3.5);
        break;
    }
}

static void legend(const layout *L) {
    double y0 = L->bottom + 50;
    text(L, LEFT - 140, y0, "lbl", NULL, SVG_NONE, "Legend (hover over any arrow, bar or mark: what it was, and when)");
    uint32_t n = sizeof legend_items / sizeof legend_items[0], per = (n + 2) / 3;
    for (uint32_t i = 0; i < n; i++) {
        double x = LEFT - 140 + (double)(i / per) * 340, y = y0 + 18 + (double)(i % per) * 17;
        legend_sample(L, &legend_items[i], x, y);
        text(L, x + 48, y + 4, "sm", "#333333", SVG_NONE, legend_items[i].what);
    }
}

static void notes(const layout *L) {
    char buf[256];
    const svg_recorder *r = L->r;
    snprintf(buf, sizeof buf, "%u protocol steps and %u messages in the window%s", L->drawn_steps, L->drawn_msgs,
             r->msgs_dropped + r->steps_dropped > 0 ? "; the recording kept only the first steps and messages" : "");
    text(L, LEFT - 140, L->height - 12, "sub", NULL, SVG_NONE, buf);
}

void svg_write(const svg_recorder *r, FILE *f, const svg_opts *o, axis *ax) {
    layout L;
    if (!layout_init(&L, r, f, o)) {
        fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"40\"><text x=\"10\" y=\"20\">"
              "out of memory for the picture</text></svg>\n", f);
        layout_free(&L);
        return;
    }
    head(&L);
    title(&L);
    grid(&L);
    L.ls->on = true;
    for (uint32_t i = 0; i < r->faults_count; i++) fault_band(&L, i);
    task_line(&L, PIPE_NO_TASK);
    for (uint32_t t = 0; t < r->tasks; t++) {
        if (shown(&L, t)) task_line(&L, t);
    }
    ckpt_lives(&L);
    blocked(&L);
    snapshots(&L);
    cuts(&L);
    watermarks(&L);
    data_msgs(&L);
    rpc_msgs(&L);
    barrier_msgs(&L);
    marks(&L);
    place_labels(&L);
    legend(&L);
    notes(&L);
    if (o->viewer) fprintf(f, "<line id=\"sd-cursor-%u\" x1=\"0\" y1=\"%.1f\" x2=\"0\" y2=\"%.1f\" stroke=\"#000\" "
                              "stroke-width=\"1\" visibility=\"hidden\"/>\n", o->pane, L.top, L.bottom);
    fputs("</svg>\n", f);
    if (ax != NULL) *ax = L.ax;
    layout_free(&L);
}
