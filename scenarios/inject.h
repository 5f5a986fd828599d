/* scenarios/inject.h: a scenario's fault script handed to a running
 * pipeline: run-time fault injection, apart from reading (scn.h). Faults
 * at times go to the kernel (or, a slow task, to the model) before the
 * run; faults at protocol points are armed through the pipeline's
 * observer and added when their point is first reached; and afterwards
 * scn_unfired says which never fired, which fails the run. */
#ifndef SCN_INJECT_H
#define SCN_INJECT_H

#include "scn.h"

/* Add the fault script to a pipe created from s->cfg (before pipe_run).
 * Faults at protocol points are armed through the pipe's observer, which
 * then passes every step on to `next` (may be NULL). `arm` must live until
 * the run ends; it records, per fault of the script, what became of it,
 * for scn_unfired(). scn_add_faults() adds only the faults at times, and
 * tracks nothing. */
typedef struct scn_armed {
    const scn      *s;
    pipeline       *p;
    bool            reached[SCN_FAULTS_MAX];     /* a protocol point's fault: its point was reached */
    bool            added[SCN_FAULTS_MAX];       /* handed to the kernel, or to the model (slow task) */
    uint32_t        kernel_id[SCN_FAULTS_MAX];   /* if added: its kernel fault, UINT32_MAX for a slow task */
    sim_time_ns     begin_ns[SCN_FAULTS_MAX];    /* if added: when it was due to begin */
    uint32_t        points_waiting;              /* protocol points' faults not reached yet: 0, no event is looked at */
    pipe_observe_fn next;
    void           *next_ctx;
} scn_armed;

void scn_add_faults(const scn *s, pipeline *p);

/* Whether step e reaches the protocol point of fault f (not a fault at a
 * time): the test the armed observer makes for each step. */
bool scn_point_hit(const scn_fault *f, const job *j, const pipe_event *e);
/* The protocol point step e is, if any, into f's point fields (point,
 * point_vertex, point_subtask, point_ckpt; the others untouched): a fault
 * at that point would fire at e if the run has not reached it before.
 * False when e is no point a `fault when` line can name. */
bool scn_point_of(const pipe_event *e, const job *j, scn_fault *f);
void scn_arm_faults(const scn *s, pipeline *p, scn_armed *arm, pipe_observe_fn next, void *next_ctx);

/* After the run of a pipe armed with scn_arm_faults(): how many faults of
 * the script that are not `optional` never fired, that is: a fault at a
 * time whose kernel fault never began (the run stopped first); a `slow
 * task` window the run never reached (end_ns below its start); a fault at a
 * protocol point whose point was never reached, or whose fault then never
 * began. end_ns is the virtual time the run stopped (pipe_sim(p)->now_ns).
 * Writes one message per such fault into out (terminated when out_bytes >
 * 0; cut off when out is too small, the count stays right), joined by "; ":
 *   t.scn:12: fault at 10ms crash machine 1 never fired (the job ended at 1.399ms)
 *   t.scn:7: fault when j[1] aligning 5 crash task map[0] never fired (the point
 *   was never reached; the job ended at 80.000ms)
 * and "(the point was reached at X; the job ended at Y)" for a point
 * reached too late for its `after` delay. A run with such faults fails
 * (absim run exits 1 with these messages): the script did not do what it
 * says. */
uint32_t scn_unfired(const scn_armed *arm, sim_time_ns end_ns, char *out, size_t out_bytes);

#endif
