/* check/restart.c: the restart strategy, part of invariant I5 (rule P9),
 * checked against Flink's definitions, not the model's code:
 *
 * - none: the first failure fails the job.
 * - fixed-delay (attempts A, delay D): failures 1..A restart, each no
 *   sooner than D after it; failure A+1 fails the job.
 * - failure-rate (max M per interval I, delay D): a failure restarts, no
 *   sooner than D after it, while at most M failures (this one included)
 *   fell in the last I; otherwise it fails the job.
 * - exponential (initial, max, multiplier, reset): never gives up; the
 *   delay is `initial` at the first failure and after a failure-free
 *   stretch of `reset`, else the previous delay times the multiplier,
 *   capped at `max`.
 *
 * A failure is a JOB_FAILED step (the coordinator's decision to restart
 * or give up follows it), whether it restarts every task or, with region
 * failover, its pipelined region alone (Flink's strategy counts both
 * alike); a restart is the next JOB_RESTARTED (a region restart takes
 * one step per region, at one time: the first ends the wait). A restart
 * may come later than its delay (it waits for machines to come back), not
 * sooner. A new coordinator (failover) starts with a fresh strategy, as a
 * new JobMaster does. At the end: a job that failed did so at a failure
 * the strategy gives up on, and one the strategy gave up on failed.
 *
 * The failover strategy (Flink's RestartPipelinedRegionFailoverStrategy
 * and RestartAllFailoverStrategy), from the job graph, not the model's
 * bookkeeping: with `failover region` a failure a task is to blame for
 * restarts the pipelined region of that task (job_regions: the connected
 * components of the task graph) and nothing else; a failure with no
 * culprit, a coordinator failover, `failover full` or a job of one region
 * restart every task. A region restart names a region that failed since
 * it last restarted; a full restart follows only a failure or failover
 * that calls for one, or a rescale.
 *
 * Rescaling: a deployment that changes a vertex's parallelism (RESCALED)
 * restarts every task, and runs the parallelism the schedule
 * (pipe_parallelism_at) gives the vertex at that moment; a rescale is no
 * failure, so the strategy does not count it. */
#include "check_int.h"

#include <inttypes.h>
#include <string.h>

#define RATE_WINDOW_MAX 64u           /* failure-rate: failure times kept (max failures is far below) */

typedef struct restart {
    const check_ctx *c;
    uint32_t    failures;             /* since the strategy started (fixed delay) */
    sim_time_ns window[RATE_WINDOW_MAX];   /* failure rate: the failures inside the interval */
    uint32_t    window_count;
    sim_time_ns exp_delay_ns, last_failure_ns;
    bool        waiting;              /* a failure's restart is due */
    sim_time_ns failed_ns, due_ns;    /* that failure, and the earliest its restart may come */
    bool        gave_up;              /* at failure gave_up_ns the strategy gives up */
    sim_time_ns gave_up_ns;
    uint32_t   *region;               /* by task: its pipelined region */
    uint32_t    regions;
    uint8_t    *failed;               /* by region: it failed and has not restarted since */
    bool        full_due;             /* a failure or failover that restarts every task, since the last full restart */
    sim_time_ns full_ns;              /* the last full restart */
} restart;

static void *create(const check_ctx *c) {
    restart *r = ARENA_NEW(c->mem, restart, 1);
    r->c = c;
    r->region = ARENA_NEW(c->mem, uint32_t, c->j->tasks_count);
    r->regions = job_regions(c->j, r->region);
    r->failed = ARENA_NEW(c->mem, uint8_t, r->regions);
    return r;
}

static void fresh(restart *r) {
    r->failures = 0;
    r->window_count = 0;
    r->exp_delay_ns = 0;
}

/* Flink's decision at a failure at now: false to give up, else the delay. */
static bool decide(restart *r, sim_time_ns now, sim_time_ns *delay_ns) {
    const pipe_restart_cfg *k = &r->c->cfg->restart;
    switch (k->kind) {
    case PIPE_RESTART_NONE: return false;
    case PIPE_RESTART_FIXED_DELAY:
        *delay_ns = k->delay_ns;
        return ++r->failures <= k->attempts;
    case PIPE_RESTART_FAILURE_RATE: {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < r->window_count; i++) {
            if (now - r->window[i] < k->interval_ns) r->window[kept++] = r->window[i];
        }
        r->window_count = kept;
        if (r->window_count < RATE_WINDOW_MAX) r->window[r->window_count++] = now;
        *delay_ns = k->delay_ns;
        return r->window_count <= k->max_failures;
    }
    case PIPE_RESTART_EXPONENTIAL: {
        bool reset = r->exp_delay_ns == 0 || now - r->last_failure_ns > k->reset_ns;
        sim_time_ns d = r->exp_delay_ns * k->multiplier_milli / 1000;
        r->exp_delay_ns = reset ? k->initial_ns : d > k->max_ns ? k->max_ns : d;
        r->last_failure_ns = now;
        *delay_ns = r->exp_delay_ns;
        return true;
    }
    }
    return false;
}

/* What a failure restarts: its culprit's region, or every task. */
static void failover_of(restart *r, const pipe_event *e) {
    if (r->c->cfg->restart.failover == PIPE_FAILOVER_REGION && e->culprit != PIPE_NO_TASK && r->regions > 1) {
        r->failed[r->region[e->culprit]] = 1;
    } else {
        r->full_due = true;
    }
}

/* A rescale of the schedule since the last full restart: it cancels every
 * task, though its deployment may find the parallelism back where it was
 * (a second rescale while the restart waited) and say no RESCALED step. */
static bool rescale_since(const restart *r, sim_time_ns now) {
    const pipe_cfg *cfg = r->c->cfg;
    for (uint32_t i = 0; i < cfg->rescales_count; i++) {
        if (cfg->rescales[i].at_ns > r->full_ns && cfg->rescales[i].at_ns <= now) return true;
    }
    return false;
}

/* A restart step: region e->channel - 1 alone, or every task (0). */
static void failover_check(restart *r, const pipe_event *e) {
    const check_ctx *c = r->c;
    if (e->channel == 0) {
        bool rescaled = rescale_since(r, e->at_ns);
        r->full_ns = e->at_ns;
        if (!r->full_due && !rescaled) {
            check_fail(c, CHECK_I5, CHECK_AT(e->at_ns), "every task restarted, though region failover restarts only "
                       "the regions of the tasks that failed");
        }
        r->full_due = false;
        memset(r->failed, 0, r->regions);
        return;
    }
    uint32_t g = e->channel - 1;
    if (g >= r->regions || c->cfg->restart.failover != PIPE_FAILOVER_REGION || !r->failed[g]) {
        check_fail(c, CHECK_I5, CHECK_AT(e->at_ns), "region %u restarted alone, though %s", g,
                   c->cfg->restart.failover != PIPE_FAILOVER_REGION ? "failover full restarts every task"
                                                                    : "none of its tasks failed since it last started");
    }
    if (g < r->regions) r->failed[g] = 0;
}

static void on_failed(restart *r, sim_time_ns now) {
    sim_time_ns delay = 0;
    r->c->report->checks[CHECK_I5]++;
    if (!decide(r, now, &delay)) {
        r->gave_up = true;
        r->gave_up_ns = now;
        return;
    }
    r->waiting = true;
    r->failed_ns = now;
    r->due_ns = now + delay;
}

static void on_restarted(restart *r, sim_time_ns now) {
    if (r->gave_up) {
        check_fail(r->c, CHECK_I5, CHECK_AT(now), "the job restarted after the failure at t=%.3fms, where the "
                   "restart strategy gives up", (double)r->gave_up_ns / 1e6);
        r->gave_up = false;
    }
    if (r->waiting && now < r->due_ns) {
        check_fail(r->c, CHECK_I5, CHECK_AT(now), "the job restarted %.3fms after the failure at t=%.3fms, "
                   "sooner than the restart strategy's delay of %.3fms", (double)(now - r->failed_ns) / 1e6,
                   (double)r->failed_ns / 1e6, (double)(r->due_ns - r->failed_ns) / 1e6);
    }
    r->waiting = false;
}

/* A failure report of another attempt (an old one, a zombie's) names a
 * task the coordinator no longer runs: Flink drops updates of an old
 * execution attempt, so such a report must fail nothing. */
static void report_of_attempt(restart *r, const pipe_event *e) {
    if (e->channel != PIPE_FAIL_REPORTED || e->count == e->word_a) return;
    char who[64];
    check_fail(r->c, CHECK_I5, CHECK_AT(e->at_ns), "the coordinator failed attempt %" PRIu64 " of %s on a failure "
               "report of its attempt %" PRIu64 ": a report of another attempt must be dropped", e->word_a,
               check_task_name(r->c, e->culprit, who, sizeof who), (uint64_t)e->count);
}

static void on_event(void *self, const pipe_event *e) {
    restart *r = self;
    switch (e->kind) {
    case PIPE_EV_JOB_FAILED:
        report_of_attempt(r, e);
        failover_of(r, e);
        on_failed(r, e->at_ns);
        break;
    case PIPE_EV_JOB_RESTARTED:
        failover_check(r, e);
        on_restarted(r, e->at_ns);
        break;
    case PIPE_EV_RESCALED: {                  /* the next JOB_RESTARTED restarts every task */
        r->full_due = true;
        uint32_t want = e->channel < r->c->j->vertices_count ? pipe_parallelism_at(r->c->cfg, e->channel, e->at_ns) : 0;
        if (e->count != want) {
            check_fail(r->c, CHECK_I5, CHECK_AT(e->at_ns), "vertex %u was deployed at parallelism %u, though the "
                       "rescale schedule gives it %u at t=%.3fms", e->channel, e->count, want, (double)e->at_ns / 1e6);
        }
        break;
    }
    case PIPE_EV_COORD_FAILOVER:              /* a new JobMaster: a new strategy; the pending restart is its own */
        r->full_due = true;                   /* it knows no task: every one is deployed */
        fresh(r);
        r->waiting = false;
        r->gave_up = false;
        break;
    default: break;
    }
}

static void on_end(void *self, const check_end *end) {
    restart *r = self;
    if (r->gave_up && end->status != PIPE_FAILED) {
        check_fail(r->c, CHECK_I5, CHECK_AT(r->gave_up_ns), "the restart strategy gives up at the failure at "
                   "t=%.3fms, yet the job did not fail (%s)", (double)r->gave_up_ns / 1e6, pipe_status_name(end->status));
    }
    if (!r->gave_up && end->status == PIPE_FAILED) {
        check_fail(r->c, CHECK_I5, CHECK_AT(end->end_ns), "the job failed, though the restart strategy allows "
                   "a restart after every failure it saw");
    }
}

const check_ops check_restart_ops = { .name = "restart strategy (I5)", .create = create, .on_event = on_event,
                                      .on_end = on_end };
