/* reports/dot.c: the checkpoint picture (Graphviz DOT) from what the
 * recorder kept (reports/rpt.c). Laid out top to bottom inside a cluster
 * (the barrier's way through the job's stages); the legend, the clusters
 * and the incident boxes between them are cells read like a newspaper:
 * in time order down a column, then the next column to the right. A
 * column is a chain of invisible edges (bottom of one cell to the top of
 * the next), and dot places the unconnected columns side by side in the
 * order they are written. Which cell goes in which column, and how many
 * checkpoints fit at all, is decided before writing from the labels'
 * lengths (pack()), so that the picture stays about a screen wide and a
 * few screens tall at the size of its text. */
#include "rpt.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "holds.h"

/* A rank's height is its tallest node's: the legend and the incident
 * boxes come in pieces about a task node's height, one under the other,
 * so that they do not stretch the row of the coordinator's triggers. */
#define LEGEND_ROWS    3u
#define INCIDENT_LINES 3u                 /* per box */
#define LEGEND_PIECES  5u                 /* 15 rows */

/* The page the picture should fit at the size of its text (points): about
 * a screen wide, and three screens tall. dot's sizes are estimated: a
 * character of 9 pt Helvetica is about 5 pt wide, a rank (a node and
 * ranksep) about 72 pt tall; the bounds leave room for the error. */
#define PAGE_W_PT   1700.0
#define PAGE_RANKS  36u
#define CHAR_PT     5.2
#define NODE_PAD_PT 14.0
#define NODE_GAP_PT 9.0                   /* nodesep */
#define COL_GAP_PT  30.0
#define CELLS_MAX   (2u * RPT_CKPTS_MAX + 2u)

typedef enum cell_kind { CELL_LEGEND, CELL_INCIDENTS, CELL_CKPT } cell_kind;

/* One piece of the picture: the legend, the incidents [first, first +
 * count), or checkpoint slot `slot`; its estimated width and height in
 * ranks, and the column pack() put it in. */
typedef struct cell {
    cell_kind kind;
    uint32_t  slot, first, count;
    double    w;
    uint32_t  ranks, column;
} cell;

static double ms(sim_time_ns ns) { return (double)ns / 1e6; }

static void task_label(const pipeline *p, uint32_t t, char *buf, size_t n) {
    const job *j = pipe_job(p);
    snprintf(buf, n, "%s[%u]", j->vertices[j->tasks[t].vertex].name, j->tasks[t].subtask);
}

/* Text inside a DOT string: quotes and backslashes escaped; a byte
 * outside ASCII becomes '?' (a path may hold any byte; dot wants UTF-8). */
static void dot_text(FILE *f, const char *s) {
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fputc('\\', f);
        fputc(ch >= 0x80 || ch < 0x20 ? '?' : ch, f);
    }
}

static bool has_bit(const uint64_t *set, uint32_t i) { return set[i / 64] >> (i % 64) & 1; }

static void legend(FILE *f) {
    static const char *const rows[][2] = {
        { "<TD BGCOLOR=\"white\">task</TD>", "triggered, aligned: every input delivered the barrier" },
        { "<TD BGCOLOR=\"lightyellow\">task</TD>", "triggered unaligned: in-flight records persisted" },
        { "<TD BGCOLOR=\"mistyrose\">task</TD>", "declined (or skipped: known to be aborted)" },
        { "<TD BGCOLOR=\"lightblue\">task</TD>", "finished: acknowledged for, with its final state" },
        { "<TD BGCOLOR=\"gray90\">task</TD>", "no trigger: the barrier never reached it" },
        { "<TD><FONT COLOR=\"blue\">&#8212;&gt;</FONT></TD>", "trigger, coordinator to source" },
        { "<TD>&#8212;&gt;</TD>", "barrier along a channel" },
        { "<TD><FONT COLOR=\"darkorange\"><B>&#8212;&gt;</B></FONT></TD>", "priority barrier: overtook the queued data" },
        { "<TD><FONT COLOR=\"gray50\">- - &gt;</FONT></TD>", "cancel marker (an aborted checkpoint)" },
        { "<TD><FONT COLOR=\"darkgreen\">- - &gt;</FONT></TD>", "acknowledgement the coordinator counted" },
        { "<TD><FONT COLOR=\"darkorange\">- - &gt;</FONT></TD>", "acknowledgement dropped on arrival (label: why)" },
        { "<TD><FONT COLOR=\"red\">- - &#215;</FONT></TD>", "acknowledgement lost: sent, never arrived" },
        { "<TD><FONT COLOR=\"gray50\">- - &gt;</FONT></TD>", "acknowledgement on its way when the run ended" },
        { "<TD><FONT COLOR=\"red\">&#8212;&gt;</FONT></TD>", "decline" },
        { "<TD BGCOLOR=\"#fff0e0\">t=...</TD>", "faults, failures, restarts (attempt: the trace's epoch)" },
    };
    size_t n = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < n; i++) {
        if (i % LEGEND_ROWS == 0) {
            fprintf(f, "  legend%zu [shape=plaintext, style=\"\", margin=0, label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" "
                       "CELLSPACING=\"0\" CELLPADDING=\"2\">\n", i / LEGEND_ROWS);
        }
        fprintf(f, "    <TR>%s<TD ALIGN=\"LEFT\">%s</TD></TR>\n", rows[i][0], rows[i][1]);
        if (i % LEGEND_ROWS == LEGEND_ROWS - 1 || i + 1 == n) fprintf(f, "  </TABLE>>];\n");
    }
    for (size_t i = LEGEND_ROWS; i < n; i += LEGEND_ROWS) {   /* a column, a piece per rank */
        fprintf(f, "  legend%zu -> legend%zu [style=invis];\n", i / LEGEND_ROWS - 1, i / LEGEND_ROWS);
    }
}

/* The legend's widest row, "acknowledgement dropped on arrival (label: why)" beside its swatch. */
#define LEGEND_W_PT (48 * CHAR_PT + 40.0)

/* The incidents [first, first + count), a box of up to INCIDENT_LINES
 * lines each, one under the other. */
static void incidents(const rpt_recorder *r, FILE *f, uint32_t first, uint32_t count) {
    for (uint32_t k = 0; k < count; k++) {
        const rpt_incident *x = &r->incidents[first + k];
        if (k % INCIDENT_LINES == 0) {
            if (k > 0) fprintf(f, "\"];\n  i%u -> i%u [style=invis];\n", first + k - INCIDENT_LINES, first + k);
            fprintf(f, "  i%u [shape=box, style=filled, fillcolor=\"#fff0e0\", label=\"", first + k);
        }
        fprintf(f, "t=%.3fms ", ms(x->at_ns));
        dot_text(f, x->text);
        fprintf(f, "\\l");
    }
    if (count > 0) fprintf(f, "\"];\n");
}

static const char *fill_of(const rpt_task_step *s) {
    if (s->ack == RPT_ACK_FOR_FINISHED) return "lightblue";
    if (s->declined) return "mistyrose";
    if (s->trigger_ns == 0) return "gray90";
    return s->unaligned ? "lightyellow" : "white";
}

/* Appends to buf (the text is a label: cut where it would overflow). */
static void cat(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t n, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(buf + used, n - used, fmt, ap);
    va_end(ap);
}

/* A task node's label: its name, then what it did, a line each. Built
 * before it is written so that the layout can measure it (pack()). */
static void node_text(const rpt_recorder *r, const rpt_ckpt *c, uint32_t t, char *buf, size_t n) {
    const rpt_task_step *s = &c->tasks[t];
    task_label(r->p, t, buf, n);
    if (s->ack == RPT_ACK_FOR_FINISHED) {
        cat(buf, n, "\\nfinished t=%.3fms\\nacknowledged for it", ms(s->finished_ns));
    } else if (s->trigger_ns != 0) {
        cat(buf, n, "\\ntrigger t=%.3fms", ms(s->trigger_ns));
        if (s->unaligned) {
            cat(buf, n, "\\n%sunaligned, %u records persisted", s->timed_out ? "alignment timeout: " : "", s->cs_records);
        } else if (s->first_barrier_ns != 0 && pipe_job(r->p)->tasks[t].in_count > 1) {   /* one input: nothing to align */
            bool blocks = pipe_config(r->p)->ckpt.mode != PIPE_AT_LEAST_ONCE;   /* the barrier tracker never blocks */
            cat(buf, n, "\\n%s %.3fms", blocks ? "aligned in" : "all barriers in", ms(s->trigger_ns - s->first_barrier_ns));
            if (s->released > 0) cat(buf, n, ", %u buffer%s waited", s->released, s->released == 1 ? "" : "s");
        }
        if (s->ack_ns != 0) cat(buf, n, "\\nack t=%.3fms", ms(s->ack_ns));
    } else {
        cat(buf, n, s->known_aborted ? "\\nskipped: known aborted" : "\\nno trigger");
    }
    if (s->declined && !s->known_aborted) cat(buf, n, "\\ndeclined");
    if (c->held && s->held_gone) cat(buf, n, "\\nholds: a file is gone");
    else if (c->held && s->held_files > 0) {
        job_kind k = pipe_job(r->p)->vertices[pipe_job(r->p)->tasks[t].vertex].kind;
        cat(buf, n, "\\nholds %u %s (%" PRIu64 " records)", s->held_entries, rpt_holds_unit(k, s->held_entries),
            s->held_records);
        if (k == JOB_WINDOW) cat(buf, n, "\\nand %u timers set", s->held_timers);
    }
    if (c->held && s->held_inflight > 0) cat(buf, n, "\\nholds %" PRIu64 " in-flight records", s->held_inflight);
}

static void task_node(const rpt_recorder *r, FILE *f, const rpt_ckpt *c, uint32_t t) {
    char label[512] = "";
    node_text(r, c, t, label, sizeof label);
    fprintf(f, "    c%" PRIu64 "_t%u [label=\"%s\", fillcolor=%s];\n", c->id, t, label, fill_of(&c->tasks[t]));
}

/* Whether q < k names the same consumer as output k of task t (one edge
 * per producer-consumer pair). */
static bool pair_seen(const job *j, const job_task *jt, uint32_t k) {
    uint32_t to = j->chans[j->out_chan[jt->out_first + k]].consumer;
    for (uint32_t q = 0; q < k; q++) {
        if (j->chans[j->out_chan[jt->out_first + q]].consumer == to) return true;
    }
    return false;
}

/* Task t's edges to its consumers: what crossed each pair's channels; an
 * invisible edge where nothing did, so every task keeps its stage's row. */
static void barrier_edges(const rpt_recorder *r, FILE *f, const rpt_ckpt *c, uint32_t t) {
    const job *j = pipe_job(r->p);
    const job_task *jt = &j->tasks[t];
    for (uint32_t k = 0; k < jt->out_count; k++) {
        if (pair_seen(j, jt, k)) continue;
        uint32_t to = j->chans[j->out_chan[jt->out_first + k]].consumer;
        bool barrier = false, priority = false, cancel = false;
        for (uint32_t q = k; q < jt->out_count; q++) {
            uint32_t ch = j->out_chan[jt->out_first + q];
            if (j->chans[ch].consumer != to) continue;
            barrier |= has_bit(c->barriers, ch);
            priority |= has_bit(c->priority, ch);
            cancel |= has_bit(c->cancels, ch);
        }
        const char *style = priority ? "color=darkorange, penwidth=2" : barrier ? "color=black"
                          : cancel ? "style=dashed, color=gray50" : "style=invis";
        fprintf(f, "    c%" PRIu64 "_t%u -> c%" PRIu64 "_t%u [%s];\n", c->id, t, c->id, to, style);
    }
}

/* Task t's report to the checkpoint's end: counted, dropped, lost (to a
 * cross of its own), made up for a finished task, or a decline. */
static void report_edge(FILE *f, const rpt_ckpt *c, uint32_t t) {
    const rpt_task_step *s = &c->tasks[t];
    const char *from_to = "    c%" PRIu64 "_t%u -> c%" PRIu64 "_end [%s%s%s];\n";
    switch ((rpt_ack)s->ack) {
    case RPT_ACK_COUNTED: fprintf(f, from_to, c->id, t, c->id, "style=dashed, color=darkgreen", "", ""); return;
    case RPT_ACK_FOR_FINISHED: fprintf(f, from_to, c->id, t, c->id, "style=dotted, color=gray50", "", ""); return;
    case RPT_ACK_DROPPED:
        fprintf(f, from_to, c->id, t, c->id, "style=dashed, color=darkorange, fontcolor=darkorange, label=\"",
                rpt_receipt_name((pipe_receipt)s->why), "\"");
        return;
    case RPT_ACK_SENT:                            /* never arrived: lost, unless the run ended while it travelled */
        if (c->end == PIPE_CKPT_PENDING) {
            fprintf(f, from_to, c->id, t, c->id, "style=dashed, color=gray50, fontcolor=gray50, label=\"", "on its way", "\"");
            return;
        }
        fprintf(f, "    c%" PRIu64 "_x%u [shape=plaintext, style=\"\", label=\"&#215;\", fontcolor=red, fontsize=18];\n"
                   "    c%" PRIu64 "_t%u -> c%" PRIu64 "_x%u [style=dashed, color=red, arrowhead=none, fontcolor=red, "
                   "label=\"lost\"];\n", c->id, t, c->id, t, c->id, t);
        fprintf(f, from_to, c->id, t, c->id, "style=invis", "", "");
        return;
    case RPT_ACK_NONE: break;
    }
    if (s->declined && !s->known_aborted) fprintf(f, from_to, c->id, t, c->id, "color=red", "", "");
    else fprintf(f, from_to, c->id, t, c->id, "style=invis", "", "");   /* keeps the end below every task */
}

static void cluster_label(FILE *f, const rpt_ckpt *c) {
    bool done = c->end != PIPE_CKPT_PENDING;
    fprintf(f, "  subgraph cluster_c%" PRIu64 " {\n    label=\"checkpoint %" PRIu64 ", attempt %" PRIu64 "\\n%s", c->id,
            c->id, c->epoch, done ? pipe_ckpt_end_name(c->end) : "pending at the end");
    if (done) fprintf(f, " after %.3fms", ms(c->end_ns - c->start_ns));
    fprintf(f, "\";\n    color=%s;\n", done && c->end == PIPE_CKPT_COMPLETED ? "darkgreen" : "firebrick");
    fprintf(f, "    c%" PRIu64 "_start [shape=ellipse, label=\"coordinator\\ntriggers %" PRIu64 "\\nt=%.3fms\"];\n", c->id,
            c->id, ms(c->start_ns));
    fprintf(f, "    c%" PRIu64 "_end [shape=ellipse, label=\"%s\\nt=%.3fms", c->id,
            done ? pipe_ckpt_end_name(c->end) : "pending", ms(done ? c->end_ns : c->start_ns));
    if (c->held) fprintf(f, "\\nholds S_%" PRIu64 ": %" PRIu64 " records\\nbefore the sources' offsets", c->id, c->held_before);
    fputs("\"];\n", f);
}

static void cluster(const rpt_recorder *r, FILE *f, const rpt_ckpt *c) {
    const job *j = pipe_job(r->p);
    cluster_label(f, c);
    for (uint32_t t = 0; t < j->tasks_count; t++) task_node(r, f, c, t);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        const rpt_task_step *s = &c->tasks[t];
        if (j->vertices[j->tasks[t].vertex].kind == JOB_SOURCE) {   /* a finished source gets no trigger */
            bool told = s->trigger_ns != 0 || s->declined;
            fprintf(f, "    c%" PRIu64 "_start -> c%" PRIu64 "_t%u [%s];\n", c->id, c->id, t,
                    told ? "color=blue" : "style=invis");
        }
        barrier_edges(r, f, c, t);
        report_edge(f, c, t);
    }
    for (uint32_t v = 0; v < j->vertices_count; v++) {   /* a vertex's tasks on a row, in subtask order */
        if (j->vertices[v].parallelism < 2) continue;
        fprintf(f, "    { rank=same; ");
        for (uint32_t i = 0; i < j->vertices[v].parallelism; i++) {
            fprintf(f, "%sc%" PRIu64 "_t%u", i ? " -> " : "", c->id, j->vertex_first_task[v] + i);
        }
        fprintf(f, " [style=invis]; }\n");
    }
    fprintf(f, "  }\n");
}

/* ---- the layout ------------------------------------------------------------ */

/* The widest line of a label (lines end in \\n or \\l), in characters. */
static uint32_t widest_line(const char *s) {
    uint32_t best = 0, run = 0;
    for (; *s; s++) {
        if (s[0] == '\\' && (s[1] == 'n' || s[1] == 'l')) {
            run = 0;
            s++;
            continue;
        }
        if (++run > best) best = run;
    }
    return best;
}

uint32_t rpt_stages(const job *j, uint32_t *depth) {
    memset(depth, 0, sizeof *depth * JOB_VERTICES_MAX);
    for (uint32_t pass = 0; pass < j->vertices_count; pass++) {   /* a DAG: settles in as many passes as vertices */
        for (uint32_t e = 0; e < j->edges_count; e++) {
            uint32_t a = j->edges[e].from, b = j->edges[e].to;
            if (depth[b] < depth[a] + 1) depth[b] = depth[a] + 1;
        }
    }
    uint32_t deepest = 0;
    for (uint32_t v = 0; v < j->vertices_count; v++) deepest = depth[v] > deepest ? depth[v] : deepest;
    return deepest;
}

/* A cluster's width: its widest stage's nodes side by side, or its label. */
static void measure_cluster(const rpt_recorder *r, cell *x) {
    const job *j = pipe_job(r->p);
    const rpt_ckpt *c = &r->ckpts[x->slot];
    uint32_t depth[JOB_VERTICES_MAX];
    uint32_t deepest = rpt_stages(j, depth);
    double row[JOB_VERTICES_MAX] = { 0 }, w = 30 * 6.2;   /* "completed after 12.345ms" at 11 pt */
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        char label[512] = "";
        node_text(r, c, t, label, sizeof label);
        row[depth[j->tasks[t].vertex]] += widest_line(label) * CHAR_PT + NODE_PAD_PT + NODE_GAP_PT;
    }
    for (uint32_t d = 0; d <= deepest; d++) w = row[d] > w ? row[d] : w;
    x->w = w + 24.0;                              /* the cluster's margins, edge labels and the crosses of lost acks */
    x->ranks = deepest + 1 + 2 + 1;               /* the stages, the coordinator's start and end, the label */
}

static void measure_incidents(const rpt_recorder *r, cell *x) {
    uint32_t widest = 0;
    for (uint32_t k = 0; k < x->count; k++) {
        uint32_t n = (uint32_t)strlen(r->incidents[x->first + k].text) + 12;   /* "t=12.345ms " */
        widest = n > widest ? n : widest;
    }
    x->w = widest * CHAR_PT + NODE_PAD_PT;
    x->ranks = (x->count + INCIDENT_LINES - 1) / INCIDENT_LINES;
}

/* The incidents in [from, to) from *next on (they are in time order) as
 * a cell, when there are any. */
static void add_incidents(const rpt_recorder *r, cell *cells, uint32_t *n, sim_time_ns from, sim_time_ns to,
                          uint32_t *next) {
    while (*next < r->incidents_count && r->incidents[*next].at_ns < from) (*next)++;
    uint32_t first = *next;
    while (*next < r->incidents_count && r->incidents[*next].at_ns < to) (*next)++;
    if (*next == first) return;
    cells[*n] = (cell){ .kind = CELL_INCIDENTS, .first = first, .count = *next - first };
    measure_incidents(r, &cells[(*n)++]);
}

/* The cells in time order: the legend, then each checkpoint after the
 * incidents before it; with one checkpoint kept, what happened while it
 * ran after it. */
static uint32_t build_cells(const rpt_recorder *r, cell *cells) {
    uint32_t n = 0, next = 0;
    cells[n++] = (cell){ .kind = CELL_LEGEND, .w = LEGEND_W_PT, .ranks = LEGEND_PIECES };
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) {
        const rpt_ckpt *c = &r->ckpts[i];
        if (c->id == 0) continue;
        add_incidents(r, cells, &n, r->only != 0 ? c->start_ns : 0, c->start_ns, &next);
        cells[n] = (cell){ .kind = CELL_CKPT, .slot = i };
        measure_cluster(r, &cells[n++]);
        if (r->only != 0) add_incidents(r, cells, &n, c->start_ns, (c->end_ns != 0 ? c->end_ns : r->last_ns) + 1, &next);
    }
    if (r->only == 0) add_incidents(r, cells, &n, 0, SIM_TIME_NS_MAX, &next);
    return n;
}

/* Columns of at most PAGE_RANKS ranks, side by side while they fit
 * PAGE_W_PT; returns how many cells are drawn (the first cluster always
 * is, however wide). */
static uint32_t pack(cell *cells, uint32_t n) {
    double used = 0, col_w = 0;
    uint32_t ranks = 0, column = 0, i = 0;
    bool any = false;
    for (; i < n; i++) {
        cell *x = &cells[i];
        if (ranks > 0 && ranks + x->ranks > PAGE_RANKS) {
            used += col_w + COL_GAP_PT;
            col_w = 0;
            ranks = 0;
            column++;
        }
        double w = x->w > col_w ? x->w : col_w;
        if (any && used + w > PAGE_W_PT) break;   /* no room: the title says how many are drawn */
        x->column = column;
        col_w = w;
        ranks += x->ranks;
        any |= x->kind == CELL_CKPT;
    }
    return i;
}

static void cell_ends(const rpt_recorder *r, const cell *x, char *top, char *bottom, size_t n) {
    switch (x->kind) {
    case CELL_LEGEND:
        snprintf(top, n, "legend0");
        snprintf(bottom, n, "legend%u", LEGEND_PIECES - 1);
        return;
    case CELL_INCIDENTS:
        snprintf(top, n, "i%u", x->first);
        snprintf(bottom, n, "i%u", x->first + (x->count - 1) / INCIDENT_LINES * INCIDENT_LINES);
        return;
    case CELL_CKPT:
        snprintf(top, n, "c%" PRIu64 "_start", r->ckpts[x->slot].id);
        snprintf(bottom, n, "c%" PRIu64 "_end", r->ckpts[x->slot].id);
        return;
    }
}

static void header(const rpt_recorder *r, FILE *f, const char *title, uint32_t drawn, uint64_t last) {
    fprintf(f, "digraph absim {\n  label=\"");
    dot_text(f, title);
    if (r->only != 0) {
        fprintf(f, ": checkpoint %" PRIu64 " of the %" PRIu64 " triggered", r->only, r->triggered);
    } else if (drawn < r->triggered) {
        fprintf(f, ": checkpoints 1 to %" PRIu64 " of the %" PRIu64 " triggered (%s; --dot-checkpoint N draws any one)",
                last, r->triggered, drawn < RPT_CKPTS_MAX ? "more would not fit a screen" : "the first 32");
    } else {
        fprintf(f, ": the %u checkpoints triggered", drawn);
    }
    fprintf(f, "\\lin time order down each column, then the next column; in each checkpoint the barrier flows down from "
               "the coordinator's trigger through the tasks, and their acknowledgements go to the end\\l\";\n"
               "  labelloc=t;\n  labeljust=l;\n  fontname=\"Helvetica\";\n  fontsize=11;\n  rankdir=TB;\n  remincross=false;\n  nodesep=0.12;\n  ranksep=0.3;\n"
               "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=9, "
               "margin=\"0.05,0.02\"];\n  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6];\n");
}

void rpt_write_dot(const rpt_recorder *r, FILE *f, const char *title) {
    cell cells[CELLS_MAX];
    uint32_t n = build_cells(r, cells), placed = pack(cells, n), drawn = 0, shown = 0;
    uint64_t last = 0;
    for (uint32_t i = 0; i < placed; i++) {
        if (cells[i].kind == CELL_CKPT) {
            drawn++;
            last = r->ckpts[cells[i].slot].id;
        } else if (cells[i].kind == CELL_INCIDENTS) {
            shown += cells[i].count;
        }
    }
    header(r, f, title, drawn, last);
    for (uint32_t i = 0; i < placed; i++) {
        const cell *x = &cells[i];
        if (x->kind == CELL_LEGEND) legend(f);
        else if (x->kind == CELL_INCIDENTS) incidents(r, f, x->first, x->count);
        else cluster(r, f, &r->ckpts[x->slot]);
        if (i == 0 || cells[i - 1].column != x->column) continue;
        char a[48], b[48], top[48], bottom[48];   /* the column's chain: after both ends exist, outside the clusters */
        cell_ends(r, &cells[i - 1], a, bottom, sizeof a);
        cell_ends(r, x, top, b, sizeof top);
        fprintf(f, "  %s -> %s [style=invis];\n", bottom, top);
    }
    if (r->incidents_all > shown) {
        fprintf(f, "  more [shape=plaintext, style=\"\", label=\"and %u more incidents (see --trace)\"];\n",
                r->incidents_all - shown);
    }
    fprintf(f, "}\n");
}
