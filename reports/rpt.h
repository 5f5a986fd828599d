/* reports/rpt.h: what a run shows, written from the model's protocol
 * observer (pipe_observe): a trace of every protocol step as JSON Lines,
 * and a Graphviz DOT picture of the checkpoints.
 *
 * Contract:
 * - rpt_recorder is a pipe_observe_fn context: rpt_observe() takes every
 *   step; with a trace file set it writes one JSON object per line at
 *   once (t_ns, step, task, ckpt, epoch, then the step's own fields:
 *   scenarios/README.md lists them), in step order. Nothing else is kept
 *   for the trace. Data buffers consumed are left out (one per buffer).
 * - rpt_fault() adds a fault's beginning or end to the trace (step
 *   fault-begin or fault-end, t_ns, then the fields the caller gives: what
 *   the fault is and what it acts on); rpt_fault_mark() adds it, in words,
 *   to the picture. The caller calls them in time order with the steps,
 *   so the trace stays in time order.
 * - For the DOT picture it keeps, for the first RPT_CKPTS_MAX checkpoints
 *   (or the one rpt_keep_only() names), when the coordinator started and
 *   ended each one, in which attempt, and for every task when it got its
 *   first barrier, triggered, switched to unaligned, declined, finished,
 *   sent its acknowledgement and what the coordinator made of it (and
 *   when it got it), when its snapshot's parts ended and what they wrote,
 *   when its alignment timed out; which channels delivered a barrier, a
 *   priority barrier or a cancel marker, when, and in which order at the
 *   consumer (up to RPT_ARRIVALS_CHANS channels);
 *   and the run's incidents (faults, job failures, restarts, failovers),
 *   in fixed arrays sized at rpt_init (no allocation per step).
 *   rpt_write_dot() draws a legend, then one cluster per checkpoint with
 *   the incidents between them, in time order down a column, then the
 *   next column to the right, as many as fit about 1,700 pt wide (the
 *   title says how many were drawn); inside a
 *   cluster the barrier flows top to bottom: the coordinator's trigger,
 *   the tasks stage by stage (an edge along every channel a barrier, or a
 *   cancel marker, actually crossed), and the end (completed, or why
 *   not), to which each acknowledgement goes: counted, dropped (late, of
 *   an old attempt), or lost (sent and never arrived: red, ending in a
 *   cross). A finished task is acknowledged for by the coordinator and
 *   gets no trigger or barrier edge. `dot -Tsvg` renders it; a column is
 *   at most about 36 ranks tall.
 * - Output order depends only on the run: tasks in id order, checkpoints
 *   in id order, incidents in time order.
 */
#ifndef RPT_H
#define RPT_H

#include <stdio.h>

#include "../model/pipe.h"

#define RPT_CKPTS_MAX      32u
#define RPT_INCIDENTS_MAX  48u
#define RPT_INCIDENT_BYTES 192u
#define RPT_ARRIVALS_CHANS 65536u
#define RPT_HELD_PARTS     8u             /* a completed checkpoint's offsets kept for its picture */         /* more channels: no arrival times (the memory would grow with the square of the parallelism) */

typedef enum rpt_ack {
    RPT_ACK_NONE = 0,                 /* no acknowledgement sent */
    RPT_ACK_SENT,                     /* sent, not (yet) arrived: at the end of the run, lost */
    RPT_ACK_COUNTED,                  /* the coordinator took it */
    RPT_ACK_DROPPED,                  /* it arrived and was dropped (`why`) */
    RPT_ACK_FOR_FINISHED,             /* the task had finished: the coordinator acknowledged for it */
} rpt_ack;

typedef struct rpt_task_step {
    sim_time_ns first_barrier_ns;     /* 0: none seen */
    sim_time_ns trigger_ns;           /* 0: did not trigger */
    sim_time_ns ack_ns;               /* when it sent its acknowledgement */
    sim_time_ns finished_ns;          /* RPT_ACK_FOR_FINISHED: when it had finished */
    uint64_t    epoch;                /* the attempt it triggered in */
    sim_time_ns sync_ns, async_ns;    /* its snapshot's synchronous and asynchronous parts ended (0: not) */
    sim_time_ns timeout_ns;           /* its alignment timed out (switched to unaligned) */
    sim_time_ns ack_recv_ns;          /* the coordinator received its acknowledgement */
    sim_time_ns decline_ns, dropped_ns;   /* it declined; it dropped its snapshot (aborted or subsumed) */
    uint64_t    keyed_bytes, cs_bytes;    /* written: keyed state, channel state */
    uint32_t    released;             /* buffers that had waited behind its blocked inputs */
    uint32_t    cs_records;           /* in-flight records it persisted as channel state */
    uint32_t    arrived;              /* barriers or cancel markers taken so far (the next one's order - 1) */
    bool        write_failed;         /* a snapshot write of it failed */
    uint8_t     ack;                  /* rpt_ack */
    uint8_t     why;                  /* RPT_ACK_DROPPED: the pipe_receipt */
    bool        unaligned, timed_out, declined, known_aborted;
    /* What the completed checkpoint holds of the task, read back from the
     * store at its completion (reports/holds.h): */
    uint32_t    held_entries, held_files;   /* its keys (or window, join entries) and its file chain */
    uint64_t    held_records;         /* records folded into them */
    uint64_t    held_inflight;        /* in-flight records on its inputs it would restore */
    uint32_t    held_timers;          /* a window task: its windows' timers still set */
    bool        held_gone;            /* a file of its chain was gone */
} rpt_task_step;

/* When a channel's barrier (or cancel marker) reached its consumer, and
 * in which order among the consumer's inputs (1: first; 0: never). */
typedef struct rpt_arrival {
    sim_time_ns at_ns;
    uint32_t    order;
} rpt_arrival;

typedef struct rpt_ckpt {
    uint64_t       id;                /* 0: unused */
    uint64_t       epoch;             /* the attempt it was triggered in */
    sim_time_ns    start_ns, end_ns;
    pipe_ckpt_end  end;
    rpt_task_step *tasks;             /* by task */
    uint64_t      *barriers, *priority, *cancels;   /* bit sets by channel id: delivered to the consumer */
    rpt_arrival   *arrivals;          /* by channel id (NULL: not kept, more than RPT_ARRIVALS_CHANS channels) */
    bool           held;              /* completed, and what it holds was read back (tasks' held_*, and:) */
    uint32_t       held_parts;        /* partitions; the first RPT_HELD_PARTS offsets kept */
    uint64_t       held_offsets[RPT_HELD_PARTS];   /* the sources' offsets by partition: S_n */
    uint64_t       held_before;       /* records before them all */
} rpt_ckpt;

typedef struct rpt_incident {
    sim_time_ns at_ns;
    char        text[RPT_INCIDENT_BYTES];
} rpt_incident;

typedef struct rpt_recorder {
    pipeline       *p;
    FILE           *trace;            /* JSON Lines, or NULL */
    bool            keep;             /* collect for the DOT picture */
    uint64_t        only;             /* rpt_keep_only: the one checkpoint kept (0: the first RPT_CKPTS_MAX) */
    rpt_ckpt        ckpts[RPT_CKPTS_MAX];
    rpt_task_step  *steps;            /* RPT_CKPTS_MAX x tasks, malloc'd once at rpt_init */
    uint64_t       *bits;             /* the clusters' channel bit sets, 3 x RPT_CKPTS_MAX x words */
    rpt_arrival    *arrivals;         /* RPT_CKPTS_MAX x channels, or NULL */
    uint32_t        words;            /* per bit set */
    sim_time_ns    *finished_ns;      /* by task: when it last finished (0: running) */
    rpt_incident    incidents[RPT_INCIDENTS_MAX];
    uint32_t        incidents_count, incidents_all;
    uint64_t        triggered;        /* the newest checkpoint started */
    sim_time_ns     last_ns;          /* the latest step */
    uint64_t        lines;
    struct rpt_holds *holds;          /* with a trace or pictures: what a completed checkpoint holds, read back */
} rpt_recorder;

/* false when memory is short. */
bool rpt_init(rpt_recorder *r, pipeline *p, FILE *trace, bool keep);
/* Keep checkpoint `ckpt` alone for the picture (before the run). */
void rpt_keep_only(rpt_recorder *r, uint64_t ckpt);
void rpt_free(rpt_recorder *r);
void rpt_observe(void *ctx, const pipe_event *e);
void rpt_write_dot(const rpt_recorder *r, FILE *f, const char *title);
/* Each vertex's stage (depth[JOB_VERTICES_MAX]): the longest path to it
 * from a source, the rank dot gives its tasks in a cluster and the
 * column the viewer's pictures give it; returns the deepest. */
uint32_t rpt_stages(const job *j, uint32_t *depth);

const char *rpt_step_name(pipe_ev_kind kind);
const char *rpt_fail_cause_name(pipe_fail_cause c);
/* Region failover (model/jm/deploy.c): the region a JOB_FAILED step
 * cancels or a JOB_RESTARTED step deploys alone, into *region, and its
 * tasks; false when the step concerns every task. */
bool rpt_step_region(const pipeline *p, const pipe_event *e, uint32_t *region, uint32_t *tasks);
const char *rpt_receipt_name(pipe_receipt w);
/* fields: ",\"name\":value,..." (JSON members, each with a leading comma). */
void        rpt_fault(rpt_recorder *r, sim_time_ns at_ns, bool begin, const char *fields);
/* The fault in words for the picture ("crash machine 1 for 20ms (line 25)"). */
void        rpt_fault_mark(rpt_recorder *r, sim_time_ns at_ns, bool begin, const char *what);

#endif
