/* model/jm/jm.h: the JobManager side of a job run: the checkpoint
 * coordinator, the completed checkpoints it retains, the restart strategy
 * and failover. Not a public interface: the files of model/jm/ and the assembly
 * (pipe.c, plan.c, view.c, through model/pipe_int.h) include it;
 * model/tm/ never does.
 *
 * What the coordinator knows of a task arrived in a message
 * (model/proto.h) or a connection's break; what it shares with the tasks
 * is the world (model/world.h). */
#ifndef MODEL_JM_JM_H
#define MODEL_JM_JM_H

#include "../proto.h"
#include "../world.h"
#include "../flow/ckrules.h"

enum {                               /* the coordinator's timer tags (the tasks' are others) */
    TIMER_TRIGGER = 4,
    TIMER_RESTART = 5,
    TIMER_HEARTBEAT = 11,            /* ask every TaskManager, and find the silent ones */
    TIMER_DEPLOY_RETRY = 12,         /* deployments nobody confirmed go again */
    TIMER_ASSIGN_TIMEOUT = 14,       /* an assignment nobody acknowledged: the event was lost */
    TIMER_TIMEOUT = 15,              /* the earliest deadline of a pending checkpoint */
    TIMER_RESCALE = 16,              /* a rescale of the schedule is due (tag: its index << 32) */
    TIMER_RESTART_RETRY = 17,        /* restarts whose delay is over look again for their slots */
    TIMER_HALT = 18,                 /* a stop or cancel of cfg.stops is due (tag: its index << 32) */
    TIMER_RESUME = 19,               /* the user submits the ended job again */
    TIMER_STOP_FAILED = 20,          /* a stop's savepoint was aborted: its tasks fail */
    TIMER_STOP_NOTICE = 21,          /* tasks have not finished since the stop's savepoint: its notice again */
};

/* A task's part in a restart (rt_coord.restarting). Each failure's
 * restart has its own delay (DefaultScheduler.restartTasksWithDelay
 * schedules one restart per failure): a region that failed later does
 * not hold back one whose delay is over. */
enum {
    JM_RESTART_NONE = 0,             /* it runs (or is not deployed: above the attempt's parallelism) */
    JM_RESTART_WAITING = 1,          /* cancelled; its failure's delay runs (the timer names attempt[t]) */
    JM_RESTART_MARKED = 2,           /* being cancelled by the failure at hand */
    JM_RESTART_DUE = 3,              /* its delay is over: it is deployed once its slot is free */
};

enum {                               /* a partition in a checkpoint (rt_slot.splits) */
    SPLIT_FREE = 0,                  /* the enumerator had not assigned it */
    SPLIT_ASSIGNED = 1,              /* assigned, but no reader's state holds it (its assignment in flight) */
    SPLIT_READ = 2,                  /* a reader's state holds it, with its offset */
};

/* A checkpoint slot's life (the diagram: model/jm/coord.c). A slot moves
 * only through coord_slot_to, which refuses a move the diagram has not. */
typedef enum rt_slot_state {
    SLOT_FREE = 0,                    /* ckpt 0 */
    SLOT_PENDING,                     /* triggered; acknowledgements come in */
    SLOT_FINALIZING,                  /* every ack in; its metadata is being written (durable backend) */
    SLOT_COMPLETED,                   /* retained (completed_order), the newest the one to restore */
} rt_slot_state;

typedef struct rt_slot {              /* one checkpoint's snapshot at the coordinator */
    uint64_t    ckpt;                 /* 0: free */
    rt_slot_state state;
    sim_time_ns started_ns;
    uint8_t    *acked;                /* by task */
    uint32_t    acks;
    rt_chain   *chains;               /* by task: keyed state files (refs held by the slot) */
    uint64_t   *cs_files;             /* by task: channel-state files (refs held by the slot), 0: none */
    uint64_t   *offsets;              /* by partition: the sources' positions the acks carried */
    uint8_t    *splits;               /* by partition: SPLIT_* (the enumerator's state, then the readers') */
    uint64_t    bytes;                /* state and channel state written for it */
    uint64_t    files_new, files_shared;
    uint16_t    par[JOB_VERTICES_MAX];   /* the parallelism of each vertex in the attempt that took it */
    bool        unclaimed;            /* restored in NO_CLAIM mode: never discarded (forUnclaimedSnapshot) */
    bool        savepoint;            /* a stop's synchronous savepoint: never in completed_order (FLINK-25191) */
    bool        canonical;            /* a savepoint's state, in the canonical format: loaded, not built on */
    bool        drained;              /* a drained savepoint: its tasks had all ended their input */
} rt_slot;

typedef struct rt_coord {
    uint32_t    actor;
    uint32_t    machine;
    /* By slot (a task's instance, model/tm/tm.h: task * hosts + host):
     * the links to it, and what the coordinator knows of it from its
     * messages: free (offered for this attempt), its TaskManager
     * registered (alive) or lost (its connection broke or it fell silent
     * past the heartbeat timeout, until it offers again), its process,
     * and when it last answered a heartbeat. */
    uint32_t    hosts;                /* instances per task: the machines with slots, else 1 */
    uint32_t   *rpc_to_task;
    uint32_t   *conn_from_task;       /* the stream link whose break says it is lost */
    uint32_t   *deploy_gen;           /* connection generation at deployment */
    uint8_t    *slot_free;
    uint8_t    *alive;
    uint8_t    *lost;
    uint64_t   *process;
    sim_time_ns *heard_ns;
    uint32_t   *placed;               /* by task: the host its attempt was deployed to */
    uint32_t   *place_next;           /* by task: a placement being tried (deploy.c) */
    uint8_t    *running;              /* by task: its attempt confirmed running */
    /* Failover (P9): a task's attempt is the job's epoch when it was last
     * cancelled for a restart; with region failover the tasks of other
     * regions keep theirs (and keep running) while one region restarts. */
    uint64_t   *attempt;              /* by task: the attempt it runs, or is cancelled for */
    uint32_t   *region;               /* by task: its pipelined region (job_regions) */
    uint32_t    regions;
    uint8_t    *restarting;           /* by task: JM_RESTART_*, its part in a pending restart */
    bool        region_restart;       /* a restart of some regions is pending; the job stays RUNNING */
    bool        restart_retry_armed;  /* TIMER_RESTART_RETRY pending */
    uint64_t    report_epoch;         /* the attempt the failure report being handled named (for the observers) */
    bool        deployed_once;        /* the first deployment happened (later ones are restarts) */
    bool        deploy_armed;         /* TIMER_DEPLOY_RETRY pending */
    uint32_t    deploy_retries;       /* of this attempt: the wait doubles */
    /* The split enumerator (Flink's SplitEnumerator of the sources): */
    uint8_t    *assigned;             /* by partition: 0 free, 255 assigned in the restored checkpoint,
                                         1 + epoch % 254 assigned by this attempt */
    uint64_t   *assign_pending;       /* by task: next_ckpt when an ASSIGN went unacknowledged, 0: none */
    sim_time_ns *assign_sent_ns;      /* by task: when that ASSIGN was sent (its timeout counts from then) */
    pipe_status status;
    uint64_t    epoch;
    /* Rescaling: the active parallelism of each vertex in the attempt
     * deployed last (a task above it is not deployed, triggered or waited
     * for), and when the last pending restart's delay ends. */
    uint32_t    par[JOB_VERTICES_MAX];
    uint32_t    active_count;         /* tasks below their vertex's par */
    sim_time_ns restart_due_ns;
    ckr         sched;                /* model/flow/ckrules.h: Flink's periodic scheduler, request queue and
                                         failure manager (pending ids, next id, failures counted) */
    uint64_t    restore_slot;         /* slot index + 1 of the latest completed, 0: none */
    uint64_t    completed_order[PIPE_RETAINED_MAX];   /* slot indices, oldest first */
    bool        recovering;           /* reading the completed-checkpoint store back */
    bool        started;              /* the first coordinator started (a later START is a failover) */
    uint32_t    completed_count;
    uint8_t    *finished;             /* by task, this attempt */
    uint64_t   *final_file;           /* by task: the final state a FINISHED message named (0: none) */
    uint64_t   *end_offsets;          /* by partition: where a finished source said it ended */
    uint32_t   *end_owner;            /* by partition: the finished source that said so (UINT32_MAX: none) */
    uint32_t    finished_count;
    uint32_t    sources_running;
    /* restart strategy (this coordinator's: a failover starts a new one) */
    rs_state    strategy;             /* model/flow/restart.h: what it counted of the failures */
    /* A stop or cancel of the user's (model/jm/stop.c): which one runs
     * (cfg.stops index + 1, 0: none), and whether the checkpoints to
     * trigger are full ones (CheckpointCoordinator.forceFullSnapshot: the
     * latest restored snapshot is unclaimed, until a checkpoint completes). */
    uint32_t    halting;
    uint64_t    savepoint_slot;       /* slot index + 1 of the halting stop's completed savepoint, 0: none */
    bool        force_full;
    bool        timeout_armed;        /* one timer for the earliest deadline of the pending checkpoints: a
                                         run of many short checkpoints with a long timeout holds one
                                         event for it, not one per checkpoint */
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
void jm_note(jm_side *jm, pipe_ev_kind kind, uint32_t task, uint64_t ckpt);
/* The only way a slot changes state (asserts a move the diagram has not). */
void coord_slot_to(rt_slot *s, rt_slot_state to);
/* Pending (or finalizing) checkpoint s ends without completing for `why`:
 * its end is recorded, its slot freed, it counts as aborted (and as lost
 * with the attempt for CKR_SUSPEND). The one place a checkpoint ends so;
 * telling the tasks is the caller's. */
void coord_end_slot(jm_side *jm, rt_slot *s, ckr_why why);
/* What must hold of the coordinator between any two of its events:
 * checked after each (coord_on_event), always on. */
void coord_invariants(const jm_side *jm);
void jm_note_ev(jm_side *jm, pipe_event *e);
/* Message steps (only while an observer takes them: world_msgs): a
 * command to `task` on `link`, and a message delivered to the coordinator. */
void jm_note_send(jm_side *jm, uint32_t task, uint32_t link, const sim_msg *m, bool ok);
void jm_note_recv(jm_side *jm, const sim_event *ev);

/* Send a command to task t where its attempt was deployed, or to slot
 * (instance) i (proto_cmd_word: its b names the connection). */
void jm_send(jm_side *jm, uint32_t t, sim_msg *m, uint32_t bytes, const void *data, uint32_t data_bytes);
void jm_send_slot(jm_side *jm, uint32_t i, sim_msg *m, uint32_t bytes, const void *data, uint32_t data_bytes);
static inline uint32_t jm_slot_of(const jm_side *jm, uint32_t t) { return t * jm->coord.hosts + jm->coord.placed[t]; }
/* Task t runs in the current attempt's parallelism (rescaling: the tasks
 * above it are not deployed). */
static inline bool jm_active(const jm_side *jm, uint32_t t) {
    const job_task *x = &world_job(jm->w)->tasks[t];
    return x->subtask < jm->coord.par[x->vertex];
}

/* model/jm/coord.c: checkpoints */
void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev);
rt_slot *coord_pending_slot(jm_side *jm, uint64_t ckpt);    /* NULL unless ckpt is pending */
const rt_slot *coord_restore(const jm_side *jm);             /* NULL: start from scratch */
void coord_slot_release(jm_side *jm, rt_slot *s);            /* its files' references go */
void coord_free_slot(jm_side *jm, rt_slot *s);
void coord_history_end(jm_side *jm, uint64_t ckpt, pipe_ckpt_end end, ckr_why why);
void coord_retain(jm_side *jm, uint32_t idx);                /* slot idx joins the retained checkpoints */
/* The job turned RUNNING (a deployment) / left it (a failure, a rescale,
 * the end): Flink's CheckpointCoordinatorDeActivator starts and stops the
 * periodic scheduler. Stopping forgets the pending checkpoints (the
 * caller ended their slots: drop_pending). */
void coord_start_scheduler(jm_side *jm);
void coord_stop_scheduler(jm_side *jm);
bool coord_tasks_ready(jm_side *jm);                         /* the tasks to trigger and wait for all run */
void coord_trigger_savepoint(jm_side *jm);                    /* a stop's, once nothing is pending */
/* A fresh coordinator's rules (a new JobMaster): ids go on from next_id. */
void coord_rules_init(jm_side *jm, uint64_t next_id);
/* A duration uniform on [lo, hi], drawn through the choice point from the
 * coordinator's stream (two draws past 32 bits; bias below span / 2^64). */
sim_time_ns coord_draw_ns(jm_side *jm, sim_time_ns lo, sim_time_ns hi);
void coord_forget_finished(jm_side *jm);                     /* a new attempt: no task finished */
void coord_forget_task(jm_side *jm, uint32_t t);              /* a region restart: t has not finished */
void coord_drop_unread(jm_side *jm);                         /* the deliberate bug FLINK-7783 */
const job_vertex *coord_vertex_of(const jm_side *jm, uint32_t task);

/* model/jm/ha.c: the completed-checkpoint store (world.h) */
void ha_put(jm_side *jm, const rt_slot *s);                   /* a metadata write reached the store */
void ha_remove(jm_side *jm, uint64_t ckpt);                   /* retention dropped it */
bool ha_has(const jm_side *jm, uint64_t ckpt);
void ha_recover(jm_side *jm);                                 /* the retained checkpoints := the store's */
/* An entry's handles: a copy of slot s's, with references of its own to
 * its files; and those references let go. */
void ha_entry_fill(jm_side *jm, ha_entry *e, const rt_slot *s);
void ha_entry_release(jm_side *jm, const ha_entry *e);
/* Entry e as the newest retained checkpoint (a free slot takes it, with
 * references of its own), the one to restore. */
rt_slot *ha_slot_from(jm_side *jm, const ha_entry *e);

/* model/jm/deploy.c: slots, deployments, failure detection, restarts, failover */
void deploy_start(jm_side *jm);                               /* the first coordinator starts */
void deploy_failover(jm_side *jm);                            /* a new coordinator after a crash */
void deploy_job_fail(jm_side *jm, pipe_fail_cause why, uint32_t culprit);
void deploy_recovered(jm_side *jm);                           /* failover: the store was read */
void deploy_on_timer(jm_side *jm, uint64_t tag);              /* heartbeat, deploy and end retries */
void deploy_link_down(jm_side *jm, uint32_t task, uint32_t gen);
bool deploy_on_msg(jm_side *jm, const sim_msg *m);           /* SLOT, RUNNING, HEARTBEAT, COMMITTED: true if taken */
void deploy_job_finished(jm_side *jm);                        /* every task finished: the job ends */
/* A split assignment sent before checkpoint ckpt was triggered is not
 * acknowledged yet (always false with the deliberate bug FLINK-21996). */
bool deploy_assign_unacked(const jm_side *jm, uint64_t ckpt);
void coord_retry_completion(jm_side *jm);                     /* pending checkpoints may complete now */
void deploy_cancel_all(jm_side *jm);                          /* every task cancelled for a new attempt, no failure */
void deploy_look_again(jm_side *jm);                          /* deploy what is due, or wait for its slots */
void deploy_drop_pending(jm_side *jm);                        /* pending checkpoints end, the scheduler stops */

/* model/jm/stop.c: a stop or cancel of the user's (cfg.stops) and the resume */
void stop_arm(jm_side *jm);                                   /* a coordinator starts: the user's next step */
void stop_on_timer(jm_side *jm, uint64_t tag);                /* TIMER_HALT, TIMER_RESUME */
bool stop_job_finished(jm_side *jm);                          /* every task finished: true if a stop ended the job */
bool stop_job_failed(jm_side *jm);                            /* a failure: true if it ends a stop whose savepoint completed */
/* The stop's savepoint completed, or was aborted (with the attempt: `lost`). */
void stop_savepoint_ended(jm_side *jm, bool completed, bool lost);
void stop_forget(jm_side *jm);                                /* a new JobManager: the stop in progress is gone */

#endif
