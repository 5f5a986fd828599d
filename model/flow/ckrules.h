/* model/flow/ckrules.h: the checkpoint coordinator's rules as Flink defines
 * them, as a pure state machine: when a periodic checkpoint is triggered,
 * queued or dropped, when pending ones time out, and when failed
 * checkpoints fail the job. The simulated coordinator (model/jm/coord.c)
 * decides with it, `absim coord` drives it by hand, tests/test_ckrules.c
 * holds it to Flink's own unit tests, and check/trigger.c holds a run's
 * triggers and job failures to Flink's definitions.
 *
 * Contract (Flink 1.15 to 2.x, flink-runtime org.apache.flink.runtime.checkpoint):
 * - The periodic scheduler (CheckpointCoordinator.startCheckpointScheduler)
 *   starts whenever the job turns RUNNING (CheckpointCoordinatorDeActivator),
 *   its first firing after a random delay in [min-pause, base interval]
 *   (getRandomInitDelay; base interval = max(interval, min-pause)), then on a
 *   grid of the base interval (ScheduledTrigger: the next firing is set
 *   before the request is decided). It stops when the job leaves RUNNING
 *   (a failure, full or region: DefaultScheduler goes RESTARTING for
 *   both): pending checkpoints and queued requests are aborted
 *   (CHECKPOINT_COORDINATOR_SUSPEND, not counted).
 * - Each firing is a request (CheckpointRequestDecider, its queue of
 *   1,000): with max-concurrent checkpoints pending it stays queued; when
 *   it comes up inside the minimum pause after the last completion it is
 *   dropped and the grid moves to end at that pause's end; when the tasks
 *   to trigger are not all running it fails (NOT_ALL_REQUIRED_TASKS_RUNNING,
 *   not counted) and the next queued one is tried; otherwise the
 *   checkpoint is triggered. Queued requests are tried again whenever a
 *   checkpoint completes or is aborted (declined, expired, subsumed).
 * - A pending checkpoint expires `timeout` after its trigger; a completed
 *   one subsumes the older pending ones.
 * - CheckpointFailureManager: declines for a failed snapshot or its
 *   write, expiries and failed metadata writes count (IO_EXCEPTION,
 *   CHECKPOINT_DECLINED, CHECKPOINT_EXPIRED, CHECKPOINT_ASYNC_EXCEPTION,
 *   FINALIZE_CHECKPOINT_FAILURE), once per checkpoint, and only for
 *   checkpoints newer than the last completed one (FLINK-18336); what a
 *   task's barrier handling aborts (a newer barrier, a cancellation
 *   barrier, an end of input), subsumption and suspension do not. When
 *   the count exceeds `tolerable` it is cleared and the job fails over
 *   globally, every task (FailJobCallback: failJob -> failGlobal, and for
 *   a task's decline failJobDueToTaskFailure ->
 *   failGlobalIfExecutionIsStillRunning). A completion resets it.
 * Savepoints: only stop-with-savepoint's (ckr_savepoint); manual
 * checkpoints and intermediate savepoints are not modelled. Not modelled
 * either: the asynchronous triggering phase (a trigger is decided and
 * sent at once), checkpoints still being cleaned up.
 * Times are in the caller's unit (the vectors: ms; absim: ns).
 * Pure: no allocation, no randomness (the caller draws the first delay). */
#ifndef MODEL_FLOW_CKRULES_H
#define MODEL_FLOW_CKRULES_H

#include <stdbool.h>
#include <stdint.h>

#define CKR_PENDING_MAX   64u          /* max-concurrent at most this */
#define CKR_QUEUE_MAX     1000u        /* CheckpointRequestDecider.DEFAULT_MAX_QUEUED_REQUESTS */
#define CKR_UNLIMITED     UINT32_MAX   /* tolerable: never fail the job (Integer.MAX_VALUE) */
#define CKR_NO_TASK       UINT32_MAX
#define CKR_COUNTED_MAX   64u          /* counted checkpoint ids remembered (Flink: all since the last clear) */
#define CKR_ACTS_MAX      (2u * CKR_PENDING_MAX + 8u)   /* subsumed, then triggered, and a few more */

/* Why a checkpoint ended or a request went (Flink's CheckpointFailureReason). */
typedef enum ckr_why {
    CKR_DECLINED = 1,                  /* CHECKPOINT_DECLINED / ASYNC_EXCEPTION: a snapshot or its write failed: counted */
    CKR_EXPIRED,                       /* CHECKPOINT_EXPIRED: timed out: counted */
    CKR_FINALIZE_FAILED,               /* FINALIZE_CHECKPOINT_FAILURE: the metadata write failed: counted */
    CKR_DECLINED_BY_BARRIERS,          /* CHECKPOINT_DECLINED_SUBSUMED / _ON_CANCELLATION_BARRIER /
                                          _INPUT_END_OF_STREAM: a task's barrier handling aborted it */
    CKR_TASK_CLOSING,                  /* CHECKPOINT_DECLINED_TASK_CLOSING: a task finished before taking it */
    CKR_SUBSUMED,                      /* CHECKPOINT_SUBSUMED */
    CKR_SUSPEND,                       /* CHECKPOINT_COORDINATOR_SUSPEND: the job left RUNNING */
    CKR_MIN_PAUSE,                     /* MINIMUM_TIME_BETWEEN_CHECKPOINTS: a request dropped */
    CKR_TOO_MANY_REQUESTS,             /* TOO_MANY_CHECKPOINT_REQUESTS: the queue was full */
    CKR_NOT_RUNNING,                   /* NOT_ALL_REQUIRED_TASKS_RUNNING: a request failed */
} ckr_why;

bool ckr_counted(ckr_why why);         /* counted against tolerable-failed-checkpoints */
const char *ckr_why_name(ckr_why why); /* Flink's reason, as CHECKPOINT_EXPIRED */

typedef struct ckr_cfg {
    int64_t  interval, min_pause, timeout;   /* interval, timeout > 0; min_pause >= 0 */
    uint32_t max_concurrent;                 /* 1..CKR_PENDING_MAX */
    uint32_t tolerable;                      /* CKR_UNLIMITED: never */
    uint32_t queue_max;                      /* requests queued at most (0: Flink's 1,000) */
} ckr_cfg;

/* CheckpointFailureManager. */
typedef struct ckr_fm {
    uint32_t tolerable;
    uint32_t failures;                       /* continuous, counted */
    uint64_t last_succeeded;                 /* 0: none */
    uint64_t counted[CKR_COUNTED_MAX];       /* a ring of the ids counted since the last clear */
    uint32_t counted_count;
} ckr_fm;

void ckr_fm_init(ckr_fm *f, uint32_t tolerable);
void ckr_fm_success(ckr_fm *f, uint64_t id);
/* A checkpoint failed (id 0: none was pending): true when the job must
 * fail now (the count was cleared). */
bool ckr_fm_failure(ckr_fm *f, uint64_t id, ckr_why why);

typedef enum ckr_act_kind {
    CKR_ARM = 1,                       /* the periodic trigger fires at `at` (gen names it) */
    CKR_TRIGGER,                       /* checkpoint id is triggered now */
    CKR_COMPLETE,                      /* checkpoint id completed */
    CKR_ABORT,                         /* checkpoint id ended, why */
    CKR_DROP,                          /* a request went, why (no checkpoint; NOT_RUNNING: id requests) */
    CKR_FAIL_JOB,                      /* too many failed checkpoints: a global failover (task: whose decline) */
} ckr_act_kind;

typedef struct ckr_act {
    ckr_act_kind kind;
    ckr_why      why;
    uint64_t     id;
    int64_t      at;
    uint32_t     gen, task;
    bool         savepoint;            /* TRIGGER: of ckr_savepoint */
} ckr_act;

typedef struct ckr_acts {
    ckr_act  items[CKR_ACTS_MAX];
    uint32_t count;
} ckr_acts;

typedef struct ckr_pending {
    uint64_t id;
    int64_t  started;
    bool     savepoint;
} ckr_pending;

typedef struct ckr {
    ckr_cfg     cfg;
    int64_t     base;                  /* max(interval, min_pause) */
    bool        scheduling;
    int64_t     next_fire;
    uint32_t    gen;                   /* of the armed trigger: an older firing is stale */
    uint32_t    queued;                /* periodic requests waiting */
    ckr_pending pending[CKR_PENDING_MAX];   /* by id, oldest first */
    uint32_t    pending_count;
    bool        completed_any;
    int64_t     last_completion;
    uint64_t    next_id;
    ckr_fm      fm;
} ckr;

/* 0, or what is wrong with the configuration. */
const char *ckr_cfg_error(const ckr_cfg *c);
void ckr_init(ckr *k, const ckr_cfg *c, uint64_t first_id);

/* The range of the scheduler's first delay: [min_pause, base]. */
void ckr_init_delay_range(const ckr *k, int64_t *lo, int64_t *hi);

/* The job turned RUNNING: the scheduler starts (after stopping), its
 * first firing init_delay from now (drawn by the caller in the range). */
void ckr_start(ckr *k, int64_t now, int64_t init_delay, ckr_acts *out);
/* The job left RUNNING: the scheduler stops, pending and queued go. */
void ckr_stop(ckr *k, ckr_acts *out);
/* The periodic trigger armed as gen fired; `ready`: the tasks to trigger
 * and to wait for all run. */
void ckr_fire(ckr *k, int64_t now, uint32_t gen, bool ready, ckr_acts *out);
/* A savepoint is requested (stop-with-savepoint: CheckpointCoordinator.
 * triggerSynchronousSavepoint) while nothing is pending (the caller
 * stopped the scheduler first): CheckpointRequestDecider sorts savepoints
 * first and holds only periodic requests to the minimum pause, so it is
 * triggered at once, or dropped when the tasks are not all running. Its
 * failure is not counted against tolerable; its completion resets the
 * count, as any completion does. */
void ckr_savepoint(ckr *k, int64_t now, bool ready, ckr_acts *out);
/* Every acknowledgement of pending checkpoint id is in (and its metadata written). */
void ckr_complete(ckr *k, uint64_t id, int64_t now, bool ready, ckr_acts *out);
/* Pending checkpoint id ended: declined by `task` (CKR_NO_TASK: by the coordinator). */
void ckr_abort(ckr *k, uint64_t id, ckr_why why, uint32_t task, int64_t now, bool ready, ckr_acts *out);
/* Pending checkpoints whose deadline is at or before now expire, oldest first. */
void ckr_expire(ckr *k, int64_t now, bool ready, ckr_acts *out);
/* The earliest deadline of a pending checkpoint, or INT64_MAX. */
int64_t ckr_next_deadline(const ckr *k);
bool ckr_is_pending(const ckr *k, uint64_t id);

#endif
