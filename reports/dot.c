/* reports/dot.c: the checkpoint picture (Graphviz DOT) from what the
 * recorder kept (reports/rpt.c). Laid out top to bottom inside a cluster
 * (the barrier's way through the job's stages) and the clusters left to
 * right (dot places unconnected parts side by side in the order they are
 * written), so the picture's height is one checkpoint's, however many
 * checkpoints it draws. */
#include "rpt.h"

#include <inttypes.h>
#include <string.h>

/* A rank's height is its tallest node's: the legend and the incident
 * boxes come in pieces about a task node's height, one under the other,
 * so that they do not stretch the row of the coordinator's triggers. */
#define LEGEND_ROWS    3u
#define INCIDENT_LINES 3u                 /* per box */
#define INCIDENT_BOXES 5u                 /* per column: then a new column beside it */

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

/* The incidents in [from, to): a box of up to INCIDENT_LINES lines each.
 * *next: the first not drawn yet (they are in time order). */
static void incidents(const rpt_recorder *r, FILE *f, sim_time_ns from, sim_time_ns to, uint32_t *next) {
    uint32_t lines = 0, box = UINT32_MAX;
    for (; *next < r->incidents_count && r->incidents[*next].at_ns < to; (*next)++) {
        const rpt_incident *x = &r->incidents[*next];
        if (x->at_ns < from) continue;
        if (lines % INCIDENT_LINES == 0) {
            if (lines > 0) fprintf(f, "\"];\n");
            uint32_t prev = box;
            box = *next;
            if (prev != UINT32_MAX && (lines / INCIDENT_LINES) % INCIDENT_BOXES != 0) {
                fprintf(f, "  i%u -> i%u [style=invis];\n", prev, box);
            }
            fprintf(f, "  i%u [shape=box, style=filled, fillcolor=\"#fff0e0\", label=\"", box);
        }
        fprintf(f, "t=%.3fms ", ms(x->at_ns));
        dot_text(f, x->text);
        fprintf(f, "\\l");
        lines++;
    }
    if (lines > 0) fprintf(f, "\"];\n");
}

static const char *fill_of(const rpt_task_step *s) {
    if (s->ack == RPT_ACK_FOR_FINISHED) return "lightblue";
    if (s->declined) return "mistyrose";
    if (s->trigger_ns == 0) return "gray90";
    return s->unaligned ? "lightyellow" : "white";
}

/* One task's node: its name, then what it did, a line each. */
static void task_node(const rpt_recorder *r, FILE *f, const rpt_ckpt *c, uint32_t t) {
    const rpt_task_step *s = &c->tasks[t];
    char name[64];
    task_label(r->p, t, name, sizeof name);
    fprintf(f, "    c%" PRIu64 "_t%u [label=\"%s", c->id, t, name);
    if (s->ack == RPT_ACK_FOR_FINISHED) {
        fprintf(f, "\\nfinished t=%.3fms\\nacknowledged for it", ms(s->finished_ns));
    } else if (s->trigger_ns != 0) {
        fprintf(f, "\\ntrigger t=%.3fms", ms(s->trigger_ns));
        if (s->unaligned) {
            fprintf(f, "\\n%sunaligned, %u records persisted", s->timed_out ? "alignment timeout: " : "", s->cs_records);
        } else if (s->first_barrier_ns != 0 && pipe_job(r->p)->tasks[t].in_count > 1) {   /* one input: nothing to align */
            bool blocks = pipe_config(r->p)->ckpt.mode != PIPE_AT_LEAST_ONCE;   /* the barrier tracker never blocks */
            fprintf(f, "\\n%s %.3fms", blocks ? "aligned in" : "all barriers in", ms(s->trigger_ns - s->first_barrier_ns));
            if (s->released > 0) fprintf(f, ", %u buffer%s waited", s->released, s->released == 1 ? "" : "s");
        }
        if (s->ack_ns != 0) fprintf(f, "\\nack t=%.3fms", ms(s->ack_ns));
    } else {
        fprintf(f, s->known_aborted ? "\\nskipped: known aborted" : "\\nno trigger");
    }
    if (s->declined && !s->known_aborted) fprintf(f, "\\ndeclined");
    fprintf(f, "\", fillcolor=%s];\n", fill_of(s));
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
    fprintf(f, "    c%" PRIu64 "_end [shape=ellipse, label=\"%s\\nt=%.3fms\"];\n", c->id,
            done ? pipe_ckpt_end_name(c->end) : "pending", ms(done ? c->end_ns : c->start_ns));
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

static void header(const rpt_recorder *r, FILE *f, const char *title, uint32_t drawn) {
    fprintf(f, "digraph absim {\n  label=\"");
    dot_text(f, title);
    if (r->only != 0) {
        fprintf(f, ": checkpoint %" PRIu64 " of the %" PRIu64 " triggered", r->only, r->triggered);
    } else {
        fprintf(f, ": %u of the %" PRIu64 " checkpoints triggered%s", drawn, r->triggered,
                r->triggered > drawn ? " (--dot-checkpoint N draws any one)" : "");
    }
    fprintf(f, "\\lleft to right in time; in each, the barrier flows down from the coordinator's trigger through the "
               "tasks, and their acknowledgements go to the end\\l\";\n"
               "  labelloc=t;\n  labeljust=l;\n  fontname=\"Helvetica\";\n  fontsize=11;\n  rankdir=TB;\n  remincross=false;\n  nodesep=0.12;\n  ranksep=0.3;\n"
               "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=9, "
               "margin=\"0.05,0.02\"];\n  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6];\n");
}

void rpt_write_dot(const rpt_recorder *r, FILE *f, const char *title) {
    uint32_t drawn = 0;
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) drawn += r->ckpts[i].id != 0;
    header(r, f, title, drawn);
    legend(f);
    uint32_t next = 0;
    sim_time_ns from = 0;
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) {
        const rpt_ckpt *c = &r->ckpts[i];
        if (c->id == 0) continue;
        if (r->only != 0) from = c->start_ns;    /* one checkpoint: what happened while it ran */
        incidents(r, f, from, c->start_ns, &next);
        cluster(r, f, c);
        if (r->only != 0) incidents(r, f, c->start_ns, (c->end_ns != 0 ? c->end_ns : r->last_ns) + 1, &next);
    }
    if (r->only == 0) incidents(r, f, 0, SIM_TIME_NS_MAX, &next);
    if (r->incidents_all > r->incidents_count) {
        fprintf(f, "  more [shape=plaintext, style=\"\", label=\"and %u more incidents (see --trace)\"];\n",
                r->incidents_all - r->incidents_count);
    }
    fprintf(f, "}\n");
}
