/* check/restart.c: the restart strategy, part of invariant I5 (rule P9),
 * checked against Flink's definitions, not the model's code:
 *
 * Flink's strategies are model/flow/restart.h, held to Flink's own unit
 * tests (tests/test_restart.c: FixedDelay-, FailureRate- and
 * ExponentialDelayRestartBackoffTimeStrategyTest): the checker runs its
 * own instance over the failures the run reports and holds each decision
 * to it: restart or give up, and when. An exponential backoff's jitter is
 * the model's draw: the checker takes the one the model's restart time
 * implies if it lies within Flink's range (+-jitter x the backoff), and
 * flags a restart time no jitter gives.
 *
 * A failure is a JOB_FAILED step (the coordinator's decision to restart
 * or give up follows it), whether it restarts every task or, with region
 * failover, its pipelined region alone (Flink's strategy counts both
 * alike). Each failure's restart has its own delay
 * (DefaultScheduler.restartTasksWithDelay schedules one per failure): a
 * region restarts (JOB_RESTARTED naming it) no sooner than the delay of
 * the failure that last failed it, whatever other regions failed since;
 * a full restart no sooner than the delay of the failure that called for
 * it (after a rescale alone: of every region still waiting). A restart
 * may come later than its delay (it waits for machines to come back), not
 * sooner. The job is RUNNING again, for the coordinator's rules
 * (check/trigger.c), once no region waits (removeVerticesFromRestartPending).
 * A new coordinator (failover) starts with a fresh strategy, as a
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

typedef struct restart {
    const check_ctx *c;
    rs_cfg      rules;
    rs_state    strategy;             /* Flink's strategy, fed the failures the run reported */
    int64_t     model_backoff;        /* the failure being decided: the model's backoff (-1: it gave up) */
    bool        waiting;              /* a full restart's delay runs: of the failure at failed_ns, until due_ns */
    sim_time_ns failed_ns, due_ns;
    bool        gave_up;              /* at failure gave_up_ns the strategy gives up */
    sim_time_ns gave_up_ns;
    uint32_t   *region;               /* by task: its pipelined region */
    uint32_t    regions;
    uint8_t    *failed;               /* by region: it failed and has not restarted since */
    sim_time_ns *region_failed_ns, *region_due_ns;   /* by region: that failure, and the earliest its restart may come */
    bool        full_due;             /* a failure or failover that restarts every task, since the last full restart */
    void       *trigger;              /* check/trigger.c, the coordinator's rules: one observer for both */
    sim_time_ns full_ns;              /* the last full restart */
} restart;

static void *create(const check_ctx *c) {
    restart *r = ARENA_NEW(c->mem, restart, 1);
    r->c = c;
    r->region = ARENA_NEW(c->mem, uint32_t, c->j->tasks_count);
    r->regions = job_regions(c->j, r->region);
    r->failed = ARENA_NEW(c->mem, uint8_t, r->regions);
    r->region_failed_ns = ARENA_NEW(c->mem, sim_time_ns, r->regions);
    r->region_due_ns = ARENA_NEW(c->mem, sim_time_ns, r->regions);
    r->rules = pipe_restart_rules(&c->cfg->restart);
    rs_init(&r->strategy);
    r->trigger = check_trigger_ops.create(c);
    return r;
}

/* The jitter the model drew, as its backoff implies: within Flink's range
 * it is taken as drawn; outside, the nearest end (the decision then
 * differs from the model's and is flagged). */
static int64_t follow_jitter(void *ctx, int64_t base, int64_t off) {
    const restart *r = ctx;
    int64_t j = r->model_backoff < 0 ? 0 : r->model_backoff - base;
    return j < -off ? -off : j > off ? off : j;
}

/* Flink's decision at a failure at now: false to give up, else the delay. */
static bool decide(restart *r, const pipe_event *e, sim_time_ns *delay_ns) {
    r->model_backoff = e->ok && e->due_ns >= e->at_ns ? (int64_t)(e->due_ns - e->at_ns) : -1;
    rs_decision d = rs_on_failure(&r->strategy, &r->rules, (int64_t)e->at_ns, follow_jitter, r);
    *delay_ns = (sim_time_ns)d.backoff;
    if (d.restart && e->ok && d.backoff != r->model_backoff) {
        check_fail(r->c, CHECK_I5, CHECK_AT(e->at_ns), "the coordinator set the restart after the failure at "
                   "t=%.3fms %.3fms later, where the restart strategy gives %.3fms%s", (double)e->at_ns / 1e6,
                   (double)r->model_backoff / 1e6, (double)d.backoff / 1e6,
                   r->rules.jitter_milli > 0 ? " (or a jitter within its factor)" : "");
    }
    return d.restart;
}

/* What a failure restarts: its culprit's region, or every task (UINT32_MAX). */
static uint32_t failover_of(const restart *r, const pipe_event *e) {
    bool region = r->c->cfg->restart.failover == PIPE_FAILOVER_REGION && e->culprit != PIPE_NO_TASK && r->regions > 1;
    return region ? r->region[e->culprit] : UINT32_MAX;
}

/* Whether some restart is pending: the job is not RUNNING. */
static bool restarting(const restart *r) {
    for (uint32_t g = 0; g < r->regions; g++) {
        if (r->failed[g]) return true;
    }
    return r->full_due;
}

/* A restart at now that comes sooner than its failure's delay. */
static void too_soon(const restart *r, const char *what, sim_time_ns now, sim_time_ns failed_ns, sim_time_ns due_ns) {
    if (now >= due_ns) return;
    check_fail(r->c, CHECK_I5, CHECK_AT(now), "%s restarted %.3fms after the failure at t=%.3fms, sooner than the "
               "restart strategy's delay of %.3fms", what, (double)(now - failed_ns) / 1e6, (double)failed_ns / 1e6,
               (double)(due_ns - failed_ns) / 1e6);
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

/* A full restart: after the failure that called for it, or after a
 * rescale that waited for the regions' delays. */
static void full_restarted(restart *r, sim_time_ns now) {
    if (!r->full_due && !rescale_since(r, now)) {
        check_fail(r->c, CHECK_I5, CHECK_AT(now), "every task restarted, though region failover restarts only "
                   "the regions of the tasks that failed");
    }
    if (r->waiting) {
        too_soon(r, "the job", now, r->failed_ns, r->due_ns);
    } else {
        for (uint32_t g = 0; g < r->regions; g++) {
            if (r->failed[g]) too_soon(r, "the job", now, r->region_failed_ns[g], r->region_due_ns[g]);
        }
    }
    r->full_ns = now;
    r->full_due = false;
    r->waiting = false;
    memset(r->failed, 0, r->regions);
}

/* A restart step: region e->region alone (one_region), or every task. */
static void failover_check(restart *r, const pipe_event *e) {
    const check_ctx *c = r->c;
    if (!e->one_region) {
        full_restarted(r, e->at_ns);
        return;
    }
    uint32_t g = e->region;
    if (g >= r->regions || c->cfg->restart.failover != PIPE_FAILOVER_REGION || !r->failed[g]) {
        check_fail(c, CHECK_I5, CHECK_AT(e->at_ns), "region %u restarted alone, though %s", g,
                   c->cfg->restart.failover != PIPE_FAILOVER_REGION ? "failover full restarts every task"
                                                                    : "none of its tasks failed since it last started");
    }
    if (g >= r->regions || !r->failed[g]) return;
    char what[32];
    snprintf(what, sizeof what, "region %u", g);
    too_soon(r, what, e->at_ns, r->region_failed_ns[g], r->region_due_ns[g]);
    r->failed[g] = 0;
}

/* A failure: Flink's strategy decides; the restart of what it fails (its
 * culprit's region, or every task) is due after the delay. */
static void on_failed(restart *r, const pipe_event *e) {
    sim_time_ns delay = 0, now = e->at_ns;
    uint32_t g = failover_of(r, e);
    r->c->report->checks[CHECK_I5]++;
    if (g == UINT32_MAX) r->full_due = true;
    else r->failed[g] = 1;
    if (!decide(r, e, &delay)) {
        r->gave_up = true;
        r->gave_up_ns = now;
        return;
    }
    if (g != UINT32_MAX) {
        r->region_failed_ns[g] = now;
        r->region_due_ns[g] = now + delay;
        return;
    }
    r->waiting = true;
    r->failed_ns = now;
    r->due_ns = now + delay;
}

static void on_restarted(restart *r, const pipe_event *e) {
    if (r->gave_up) {
        check_fail(r->c, CHECK_I5, CHECK_AT(e->at_ns), "the job restarted after the failure at t=%.3fms, where the "
                   "restart strategy gives up", (double)r->gave_up_ns / 1e6);
        r->gave_up = false;
    }
    failover_check(r, e);
}

/* A failure report of another attempt (an old one, a zombie's) names a
 * task the coordinator no longer runs: Flink drops updates of an old
 * execution attempt, so such a report must fail nothing. */
static void report_of_attempt(restart *r, const pipe_event *e) {
    if ((e->cause != PIPE_FAIL_REPORTED && e->cause != PIPE_FAIL_THREW) || e->count == e->word_a) return;
    char who[64];
    check_fail(r->c, CHECK_I5, CHECK_AT(e->at_ns), "the coordinator failed attempt %" PRIu64 " of %s on a failure "
               "report of its attempt %" PRIu64 ": a report of another attempt must be dropped", e->word_a,
               check_task_name(r->c, e->culprit, who, sizeof who), (uint64_t)e->count);
}

static void on_event(void *self, const pipe_event *e) {
    restart *r = self;
    check_trigger_ops.on_event(r->trigger, e);
    switch (e->kind) {
    case PIPE_EV_JOB_FAILED:
        report_of_attempt(r, e);
        on_failed(r, e);
        check_trigger_restarting(r->trigger, true, e->at_ns);
        break;
    case PIPE_EV_JOB_RESTARTED:
        on_restarted(r, e);
        if (!restarting(r)) check_trigger_restarting(r->trigger, false, e->at_ns);
        break;
    case PIPE_EV_RESCALED: {                  /* the next JOB_RESTARTED restarts every task */
        r->full_due = true;
        uint32_t want = e->vertex < r->c->j->vertices_count ? pipe_parallelism_at(r->c->cfg, e->vertex, e->at_ns) : 0;
        if (e->count != want) {
            check_fail(r->c, CHECK_I5, CHECK_AT(e->at_ns), "vertex %u was deployed at parallelism %u, though the "
                       "rescale schedule gives it %u at t=%.3fms", e->vertex, e->count, want, (double)e->at_ns / 1e6);
        }
        break;
    }
    case PIPE_EV_HALTED:                      /* the job ended at a stop or cancel: its resume is a new job */
    case PIPE_EV_COORD_FAILOVER:              /* a new JobMaster: a new strategy; the pending restart is its own */
        r->full_due = true;                   /* it knows no task: every one is deployed */
        rs_init(&r->strategy);
        r->waiting = false;
        memset(r->failed, 0, r->regions);
        r->gave_up = false;
        break;
    default: break;
    }
}

static void on_end(void *self, const check_end *end) {
    restart *r = self;
    check_trigger_ops.on_end(r->trigger, end);
    if (r->gave_up && end->status != PIPE_FAILED) {
        check_fail(r->c, CHECK_I5, CHECK_AT(r->gave_up_ns), "the restart strategy gives up at the failure at "
                   "t=%.3fms, yet the job did not fail (%s)", (double)r->gave_up_ns / 1e6, pipe_status_name(end->status));
    }
    if (!r->gave_up && end->status == PIPE_FAILED) {
        check_fail(r->c, CHECK_I5, CHECK_AT(end->end_ns), "the job failed, though the restart strategy allows "
                   "a restart after every failure it saw");
    }
}

const check_ops check_restart_ops = { .name = "restart strategy and coordinator (I5)", .create = create, .on_event = on_event,
                                      .on_end = on_end };
