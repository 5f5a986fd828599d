/* model/jm/jm.h: the JobManager side of a job run: the checkpoint
 * coordinator, the completed checkpoints it retains, the restart strategy
 * and failover. Not a public interface: the files of model/jm/ and the assembly
 * (model/pipe.c) include it; model/tm/ never does.
 *
 * What the coordinator knows of a task arrived in a message
 * (model/proto.h) or a connection's break; what it shares with the tasks
 * is the world (model/world.h). */
#ifndef MODEL_JM_JM_H
#define MODEL_JM_JM_H

#include "../bridge.h"
#include "../proto.h"
#include "../world.h"

enum {                               /* the coordinator's timer tags (the tasks' are others) */
    TIMER_TRIGGER = 4,
    TIMER_RESTART = 5,
    TIMER_TIMEOUT_BASE = 1u << 16,   /* + checkpoint id */
};

typedef struct rt_slot {              /* one checkpoint's snapshot at the coordinator */
    uint64_t    ckpt;                 /* 0: free */
    bool        complete;
    bool        finalizing;           /* every ack in; metadata being written */
    sim_time_ns started_ns;
    uint8_t    *acked;                /* by task */
    uint32_t    acks;
    rt_chain   *chains;               /* by task: keyed state files (refs held by the slot) */
    uint64_t   *offsets;              /* by partition */
    rt_cs_rec  *cs;                   /* channel state, all tasks */
    uint32_t    cs_count, cs_cap;
    bool        cs_overflow;
    uint64_t    bytes;                /* state and channel state written for it */
    uint64_t    files_new, files_shared;
} rt_slot;

typedef struct rt_coord {
    uint32_t    actor;
    uint32_t    machine;
    uint32_t   *rpc_to_task;          /* by task */
    uint32_t   *task_actor;           /* by task: the actor it is deployed on */
    uint32_t   *conn_from_task;       /* by task: the stream link whose break says it is lost */
    uint32_t   *deploy_inc;           /* by task: the incarnation the coordinator deployed */
    uint32_t   *deploy_gen;           /* by task: connection generation at deployment */
    pipe_status status;
    uint64_t    epoch;
    uint64_t    next_ckpt;
    uint32_t    pending;              /* checkpoints in flight */
    sim_time_ns last_completed_ns;
    uint32_t    consecutive_failures;
    uint64_t    restore_slot;         /* slot index + 1 of the latest completed, 0: none */
    uint64_t    completed_order[PIPE_RETAINED_MAX];   /* slot indices, oldest first */
    bool        recovering;           /* a new coordinator is reading the store */
    bool        started;              /* the first coordinator started (a later START is a failover) */
    uint32_t    completed_count;
    uint8_t    *finished;             /* by task, this attempt */
    uint64_t   *final_file;           /* by task: the final state a FINISHED message named (0: none) */
    uint32_t    finished_count;
    uint32_t    sources_running;
    /* restart strategy (this coordinator's: a failover starts a new one) */
    uint32_t    strategy_failures;    /* fixed delay: failures it saw */
    sim_time_ns failure_times[64];    /* failure rate window */
    uint32_t    failure_count;
    sim_time_ns exp_delay_ns;
    sim_time_ns last_failure_ns;
    bool        trigger_armed;
} rt_coord;

/* The JobManager. */
typedef struct jm_side {
    pipe_world    *w;
    rt_coord       coord;
    rt_slot       *slots;
    uint32_t       slots_count;
    pipe_ckpt_rec *history;           /* by id - 1 */
    uint32_t       history_count;
} jm_side;

/* Protocol steps for the observers: the event's attempt is the coordinator's. */
void jm_note(jm_side *jm, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt);
void jm_note_ev(jm_side *jm, pipe_event *e);

/* model/jm/coord.c */
void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
rt_slot *coord_pending_slot(jm_side *jm, uint64_t ckpt);    /* NULL unless ckpt is pending */
const rt_slot *coord_restore(const jm_side *jm);             /* NULL: start from scratch */
void coord_slot_release(jm_side *jm, rt_slot *s);            /* its files' references go */

#endif
