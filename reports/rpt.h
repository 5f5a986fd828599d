/* reports/rpt.h: what a run shows, written from the model's protocol
 * observer (pipe_observe): a trace of every protocol step as JSON Lines,
 * and a Graphviz DOT picture of the checkpoints.
 *
 * Contract:
 * - rpt_recorder is a pipe_observe_fn context: rpt_observe() takes every
 *   step; with a trace file set it writes one JSON object per line at
 *   once (t_ns, step, task, input, ckpt, blocked, waiting, epoch), in
 *   step order. Nothing else is kept for the trace. A job-failed step
 *   also says why (cause: task-reported, connection-lost,
 *   checkpoint-failures) and which task (culprit), when one did.
 * - rpt_fault() adds a fault's beginning or end to the trace (step
 *   fault-begin or fault-end, t_ns, then the fields the caller gives: what
 *   the fault is and what it acts on); the caller calls it in time order
 *   with the steps, so the trace stays in time order.
 * - For the DOT picture it keeps, for the first RPT_CKPTS_MAX checkpoints,
 *   when the coordinator started and ended each one and when every task
 *   triggered and acknowledged it, in fixed arrays sized at rpt_init (no
 *   allocation per step). rpt_write_dot() then draws one cluster per
 *   checkpoint: the coordinator's start, one node per task (trigger time,
 *   alignment, aligned or unaligned, acknowledgement), an edge along every
 *   channel the barrier travelled, and the end (completed, or why not).
 *   `dot -Tsvg` renders it.
 * - Output order depends only on the run: tasks in id order, checkpoints
 *   in id order.
 */
#ifndef RPT_H
#define RPT_H

#include <stdio.h>

#include "../model/pipe.h"

#define RPT_CKPTS_MAX 32u

typedef struct rpt_task_step {
    sim_time_ns first_barrier_ns;     /* 0: none seen */
    sim_time_ns trigger_ns;           /* 0: did not trigger */
    sim_time_ns ack_ns;               /* the asynchronous part written */
    bool        unaligned;
    bool        declined;
} rpt_task_step;

typedef struct rpt_ckpt {
    uint64_t       id;                /* 0: unused */
    sim_time_ns    start_ns, end_ns;
    pipe_ckpt_end  end;
    rpt_task_step *tasks;             /* by task */
} rpt_ckpt;

typedef struct rpt_recorder {
    pipeline       *p;
    FILE           *trace;            /* JSON Lines, or NULL */
    bool            keep;             /* collect for the DOT picture */
    rpt_ckpt        ckpts[RPT_CKPTS_MAX];
    rpt_task_step  *steps;            /* RPT_CKPTS_MAX x tasks, malloc'd once at rpt_init */
    uint64_t        lines;
} rpt_recorder;

/* false when memory is short. */
bool rpt_init(rpt_recorder *r, pipeline *p, FILE *trace, bool keep);
void rpt_free(rpt_recorder *r);
void rpt_observe(void *ctx, const pipe_event *e);
void rpt_write_dot(const rpt_recorder *r, FILE *f, const char *title);

const char *rpt_step_name(pipe_ev_kind kind);
const char *rpt_fail_cause_name(pipe_fail_cause c);
/* fields: ",\"name\":value,..." (JSON members, each with a leading comma). */
void        rpt_fault(rpt_recorder *r, sim_time_ns at_ns, bool begin, const char *fields);

#endif
