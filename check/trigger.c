/* check/trigger.c: the checkpoint coordinator's rules, part of invariant
 * I5 (rule P1), checked against Flink's definitions on what the run
 * reports (its triggers, completions, aborts with their reason, and job
 * failures), not the model's code:
 *
 * - Never more than max-concurrent checkpoints pending
 *   (CheckpointRequestDecider: a request behind them waits).
 * - A periodic trigger never inside the minimum pause after the last
 *   completion (CheckpointRequestDecider drops it), and never sooner than
 *   the minimum pause after the scheduler started: the first delay lies
 *   in [min-pause, max(interval, min-pause)] (CheckpointCoordinator's
 *   getRandomInitDelay), the scheduler starting at every restart.
 * - No trigger while the job restarts: the scheduler stops when the job
 *   leaves RUNNING, a region failover included (DefaultScheduler goes
 *   RESTARTING for both; CheckpointCoordinatorDeActivator).
 * - The job fails over on checkpoints exactly when Flink's
 *   CheckpointFailureManager says so (ckr_fm, held to
 *   CheckpointFailureManagerTest in tests/test_ckrules.c), fed the aborts'
 *   reasons and the completions the run reports; a new coordinator
 *   (failover) starts a new count.
 * Rescales restart every task without a failure: the stretch around one is
 * left alone (its scheduler start is not reported). A stop's savepoint
 * is no periodic request (no pause applies) and comes with nothing
 * pending; its failure is not counted, its completion resets the count. */
#include "check_int.h"

#include <inttypes.h>

#include "../model/flow/ckrules.h"

typedef struct trigger {
    const check_ctx *c;
    ckr_fm      fm;
    uint32_t    pending;
    bool        completed_any, restarting, fail_due;
    sim_time_ns last_completion_ns, started_ns, fail_due_ns;
    uint64_t    fail_ckpt;
} trigger;

static void *create(const check_ctx *c) {
    trigger *t = ARENA_NEW(c->mem, trigger, 1);
    t->c = c;
    ckr_fm_init(&t->fm, c->cfg->ckpt.tolerable_failures);
    return t;
}

static void on_start(trigger *t, const pipe_event *e) {
    const pipe_ckpt_cfg *k = &t->c->cfg->ckpt;
    t->c->report->checks[CHECK_I5]++;
    if (t->restarting) {
        check_fail(t->c, CHECK_I5, CHECK_AT(e->at_ns), "checkpoint %" PRIu64 " was triggered while the job "
                   "restarted: the periodic scheduler stops when the job leaves RUNNING", e->ckpt);
    }
    if (e->savepoint) {                           /* not periodic: no pause; the stop aborted what was pending */
        if (t->pending > 0) {
            check_fail(t->c, CHECK_I5, CHECK_AT(e->at_ns), "stop savepoint %" PRIu64 " was triggered with %u "
                       "checkpoints pending: a stop aborts them first (stopCheckpointScheduler)", e->ckpt, t->pending);
        }
        t->pending++;
        return;
    }
    if (t->pending >= k->max_concurrent) {
        check_fail(t->c, CHECK_I5, CHECK_AT(e->at_ns), "checkpoint %" PRIu64 " was triggered with %u pending, "
                   "max-concurrent %u: the request must wait", e->ckpt, t->pending, k->max_concurrent);
    }
    if (t->completed_any && e->at_ns < t->last_completion_ns + k->min_pause_ns) {
        check_fail(t->c, CHECK_I5, CHECK_AT(e->at_ns), "checkpoint %" PRIu64 " was triggered %.3fms after the "
                   "last completion, inside the minimum pause of %.3fms", e->ckpt,
                   (double)(e->at_ns - t->last_completion_ns) / 1e6, (double)k->min_pause_ns / 1e6);
    }
    if (e->at_ns < t->started_ns + k->min_pause_ns) {
        check_fail(t->c, CHECK_I5, CHECK_AT(e->at_ns), "checkpoint %" PRIu64 " was triggered %.3fms after the "
                   "restart, sooner than the minimum pause of %.3fms (the first delay is at least that)", e->ckpt,
                   (double)(e->at_ns - t->started_ns) / 1e6, (double)k->min_pause_ns / 1e6);
    }
    t->pending++;
}

static void on_abort(trigger *t, const pipe_event *e) {
    if (t->pending > 0) t->pending--;
    if (e->count == 0 || e->savepoint) return;    /* no reason given, or a savepoint's: not counted */
    if (ckr_fm_failure(&t->fm, e->ckpt, (ckr_why)e->count)) {
        t->fail_due = true;
        t->fail_due_ns = e->at_ns;
        t->fail_ckpt = e->ckpt;
    }
}

static void on_failed(trigger *t, const pipe_event *e) {
    bool on_checkpoints = e->cause == PIPE_FAIL_CHECKPOINTS;
    if (on_checkpoints && !t->fail_due) {
        check_fail(t->c, CHECK_I5, CHECK_AT(e->at_ns), "the job failed over on failed checkpoints, though "
                   "Flink's CheckpointFailureManager counts %u in a row against %u tolerable", t->fm.failures,
                   t->fm.tolerable);
    }
    if (on_checkpoints) t->fail_due = false;
    t->pending = 0;                               /* suspended with the attempt */
}

/* From check/restart.c, which knows the regions: whether the job is
 * RESTARTING (a failure's restart pending, of every task or of a region)
 * or RUNNING again (its scheduler started then). */
void check_trigger_restarting(void *self, bool restarting, sim_time_ns now) {
    trigger *t = self;
    if (!restarting && t->restarting) t->started_ns = now;
    t->restarting = restarting;
}

/* A failure the count called for must come at once. */
static void overdue(trigger *t, sim_time_ns now) {
    if (!t->fail_due || now <= t->fail_due_ns) return;
    check_fail(t->c, CHECK_I5, CHECK_AT(t->fail_due_ns), "checkpoint %" PRIu64 " was the failed one past the %u "
               "tolerable in a row, yet the job did not fail over", t->fail_ckpt, t->fm.tolerable);
    t->fail_due = false;
}

static void on_event(void *self, const pipe_event *e) {
    trigger *t = self;
    if (e->kind != PIPE_EV_CKPT_ABORT) overdue(t, e->at_ns);
    switch (e->kind) {
    case PIPE_EV_CKPT_START: on_start(t, e); break;
    case PIPE_EV_CKPT_COMPLETE:
        if (t->pending > 0) t->pending--;
        t->completed_any = true;
        t->last_completion_ns = e->at_ns;
        ckr_fm_success(&t->fm, e->ckpt);
        break;
    case PIPE_EV_CKPT_ABORT: on_abort(t, e); break;
    case PIPE_EV_JOB_FAILED: on_failed(t, e); break;
    case PIPE_EV_RESCALED:                        /* a restart that no failure announced */
        t->restarting = false;
        t->started_ns = e->at_ns;
        t->pending = 0;
        break;
    case PIPE_EV_HALTED:                          /* the job ended: its resume has a coordinator of its own */
        t->completed_any = false;                 /* ... that completed nothing yet: no pause holds its first */
        /* fall through */
    case PIPE_EV_COORD_FAILOVER:                  /* a new JobMaster: a new coordinator and count */
        ckr_fm_init(&t->fm, t->c->cfg->ckpt.tolerable_failures);
        t->fail_due = false;
        t->restarting = true;
        t->pending = 0;
        break;
    default: break;
    }
}

static void on_end(void *self, const check_end *end) {
    trigger *t = self;
    if (end->status != PIPE_FAILED) overdue(t, end->end_ns + 1);
}

const check_ops check_trigger_ops = { .name = "checkpoint coordinator (I5)", .create = create, .on_event = on_event,
                                      .on_end = on_end };
