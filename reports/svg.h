/* reports/svg.h: the space-time diagram of a run (absim run --svg, and the
 * run viewer's picture): one horizontal line per task and one for the
 * coordinator over virtual time; barriers as arrows from producer to
 * consumer coloured by checkpoint, record buffers as thin arrows
 * (aggregated where dense, with their record counts), triggers,
 * acknowledgements and notices between the coordinator and the tasks,
 * lost messages as arrows ending in a cross; an input's blocked interval
 * shaded, persisted channel state, the snapshot's synchronous and
 * asynchronous parts as bars; faults, crashes, restores and restarts;
 * sink commits, aborted transactions, window firings and watermarks sent
 * (PIPE_EV_WATERMARK, kept apart from the steps). Every arrow,
 * bar and mark carries hover text (<title>); annotations are placed so
 * that none covers another where a line up or down is free.
 *
 * Contract:
 * - svg_recorder observes a run with the message steps
 *   (pipe_observe_messages via svg_attach) and keeps, in arrays that grow
 *   by doubling (never per event) up to SVG_STEPS_MAX protocol steps and
 *   SVG_MSGS_MAX messages (the rest counted, and the picture says so):
 *   every protocol step but CONSUME, with the inputs of every task whose
 *   view (pipe_task_input) changed since the last step; every message
 *   with its send, its delivery, or how it was lost: refused at once by
 *   its link, or never delivered (a link delivers in send order, so a
 *   delivery tells which earlier sends of its link were lost).
 * - Faults are told after the run (svg_add_fault: times and what they
 *   act on, from cli/story.c); svg_finish() then puts them among the
 *   steps by time (a fault before the steps of its instant) and closes the
 *   messages still undelivered. Step indices are final from then on: the
 *   run viewer (reports/html.c) numbers its stepper by them and the
 *   diagram marks its elements with them (data-s) in viewer mode.
 * - svg_window(): the options' window, else the whole run when it
 *   triggered at most 16 checkpoints (and the recording kept all of it),
 *   else a default around the first checkpoints and, when there is one,
 *   the first fault or failure: from
 *   the start of the last checkpoint begun before it to the end of the
 *   first checkpoint that completed after the fault ended and the job
 *   restarted; without one the first three checkpoints; never more than six
 *   checkpoints' starts.
 * - svg_write() lays the window out on one time scale with breaks
 *   (reports/axis.h)
 *   and writes one SVG document (viewer mode: an <svg> element for an
 *   HTML page). Output depends only on the run and the options: the same
 *   run gives the same bytes.
 */
#ifndef REPORTS_SVG_H
#define REPORTS_SVG_H

#include <stdio.h>

#include "../model/pipe.h"
#include "axis.h"

#define SVG_STEPS_MAX (1u << 18)
#define SVG_MSGS_MAX  (1u << 20)
#define SVG_FAULTS_MAX 64u
#define SVG_FAULT_TEXT 200u
#define SVG_NONE UINT32_MAX

enum {                                /* svg_msg.flags */
    SVG_DELIVERED = 1,
    SVG_LOST_AT_ONCE = 2,             /* the link refused it: cut, or a loss fault */
    SVG_LOST_IN_FLIGHT = 4,           /* sent, never delivered (a broken connection, a crashed receiver) */
    SVG_IN_FLIGHT = 8,                /* still on its way when the run ended */
    SVG_PRIORITY = 16,                /* an unaligned barrier, ahead of the channel's data */
};

typedef struct svg_msg {
    sim_time_ns sent_ns, recv_ns, due_ns;
    uint32_t    from, to;             /* tasks; PIPE_NO_TASK: the coordinator */
    uint32_t    msg;                  /* model/proto.h MSG_* (pipe_msg_name) */
    uint32_t    chan;                 /* a data message's channel, else PIPE_NO_CHAN */
    uint32_t    count;                /* records, a data buffer */
    uint8_t     buf;                  /* pipe_buf, a data message */
    uint8_t     flags;
    uint64_t    ckpt;                 /* a barrier's, cancel marker's, or an RPC's about one */
    uint64_t    a, b;                 /* its words, to tell its delivery */
    uint32_t    link, next;           /* the link's queue of sends awaiting delivery */
} svg_msg;

typedef struct svg_step {
    pipe_event  e;                    /* kind 0: a fault's beginning or end (fault, begin) */
    uint32_t    gate_first, gate_count;   /* the inputs whose view changed: gates[first ..] */
    uint32_t    fault;                /* svg_fault index, for kind 0 */
    bool        begin;
} svg_step;

typedef struct svg_gate {
    uint32_t        task, input;
    pipe_input_view v;
} svg_gate;

typedef struct svg_fault {
    sim_time_ns begin_ns, end_ns;     /* end_ns 0: it did not end */
    bool        ended;
    bool        crash;                /* what it acts on is down meanwhile */
    bool        coord;                /* it acts on the coordinator */
    bool        everywhere;           /* no one task (a store): shown across the picture */
    char        text[SVG_FAULT_TEXT]; /* the scenario's line */
    uint8_t    *tasks;                /* by task: 1 when it acts on it (svg_add_fault copies) */
} svg_fault;

typedef struct svg_wm {              /* a watermark a task sent (PIPE_EV_WATERMARK) */
    sim_time_ns at_ns;
    int64_t     wm;                   /* its event time, ns */
    uint32_t    task;
} svg_wm;

typedef struct svg_holds_ref {       /* a completion step's content: holds_buf[off .. off + len) */
    uint32_t step;
    size_t   off, len;
} svg_holds_ref;

typedef struct svg_recorder {
    pipeline       *p;
    uint32_t        tasks;
    svg_step       *steps;
    uint32_t        steps_count, steps_cap;
    uint64_t        steps_dropped;
    svg_msg        *msgs;
    uint32_t        msgs_count, msgs_cap;
    uint64_t        msgs_dropped;
    svg_gate       *gates;
    uint32_t        gates_count, gates_cap;
    svg_wm         *wms;              /* watermarks sent, up to SVG_MSGS_MAX (the rest dropped, counted) */
    uint32_t        wms_count, wms_cap;
    uint64_t        wms_dropped;
    pipe_input_view *now;             /* by input (in_first[task] + input): as last seen */
    uint32_t       *in_first;         /* by task, and one past the last */
    uint32_t       *hosts;            /* by task: bit m, it was deployed to machine m (slots move tasks) */
    uint32_t       *head, *tail;      /* by link: sends awaiting delivery */
    uint32_t        links;
    svg_fault       faults[SVG_FAULTS_MAX];
    uint32_t        faults_count;
    sim_time_ns     end_ns;
    sim_time_ns     keep_until_ns;    /* nothing later is kept (a window given before the run); 0: all */
    bool            oom;              /* an array could not grow: later steps are counted only */
    /* svg_keep_holds: what each completed checkpoint holds, as JSON
     * (reports/holds.h), read back when it completed, for the viewer. */
    struct rpt_holds *holds;
    FILE           *holds_f;          /* an open_memstream over holds_buf */
    char           *holds_buf;
    size_t          holds_len;
    svg_holds_ref  *holds_refs;       /* in step order */
    uint32_t        holds_count, holds_cap;
} svg_recorder;

typedef struct svg_opts {
    sim_time_ns    from_ns, to_ns;
    bool           from_given, to_given;
    const uint8_t *show;              /* by task: 1 draws its line (NULL: every task) */
    const char    *title;
    bool           viewer;            /* for the run viewer: no XML declaration, steps marked (data-s) */
    uint32_t       pane;              /* viewer: the diagram's number on its page (ids sd-N, sd-cursor-N) */
} svg_opts;

#define SVG_PANES_MAX 12u

/* The run viewer's windows over a run: the default window (svg_window)
 * when the options give one or it is the whole run; else consecutive
 * windows that tile the run from 0 to its end, cut at checkpoint starts,
 * as many as six checkpoints a window asks (at most SVG_PANES_MAX), the
 * checkpoints shared out evenly. Returns how many (at least 1); *shown:
 * the one holding the default window's start. */
uint32_t svg_panes(const svg_recorder *r, const svg_opts *o, sim_time_ns from_ns[SVG_PANES_MAX],
                   sim_time_ns to_ns[SVG_PANES_MAX], uint32_t *shown);

/* false when memory is short. */
bool svg_init(svg_recorder *r, pipeline *p);
void svg_free(svg_recorder *r);
/* Keep what each completed checkpoint holds (before the run); false when
 * memory is short. */
bool svg_keep_holds(svg_recorder *r);
/* Step i's content (a completion, with svg_keep_holds): JSON, its length
 * in *len; NULL when none. Valid until svg_free. */
const char *svg_step_holds(const svg_recorder *r, uint32_t i, size_t *len);
/* Observe r->p (before pipe_run), message steps included. */
void svg_attach(svg_recorder *r);
void svg_observe(void *ctx, const pipe_event *e);
/* After the run: a fault (false when SVG_FAULTS_MAX are in or memory is
 * short), then svg_finish once. */
bool svg_add_fault(svg_recorder *r, const svg_fault *f);
void svg_finish(svg_recorder *r);

void svg_window(const svg_recorder *r, const svg_opts *o, sim_time_ns *from_ns, sim_time_ns *to_ns);
/* The picture; *ax gets its axis (for the viewer's cursor), when not NULL. */
void svg_write(const svg_recorder *r, FILE *f, const svg_opts *o, axis *ax);

/* The task's name, "agg[1]" ("coordinator" for PIPE_NO_TASK). */
void svg_task_name(const pipeline *p, uint32_t task, char *buf, size_t n);
/* s as XML text (or attribute) with <, >, &, " escaped, and a byte that
 * is not valid UTF-8 (or a control byte) as '?'. */
void svg_xml(FILE *f, const char *s);
size_t svg_utf8_len(const unsigned char *s);   /* 1 to 4, 0: no valid UTF-8 sequence starts at s */
/* A checkpoint's colour ("#1f77b4"), the same in the diagram and the viewer. */
#define SVG_CKPT_COLOURS 5u           /* checkpoints cycle through these (svg.c) */
const char *svg_ckpt_colour(uint64_t ckpt);

#endif
