/* check/live.c: invariant I6, liveness, checked after the safety phase,
 * as TigerBeetle's simulator does: once the faults have healed, the job
 * must make progress.
 *
 * - Checkpoints: after the faults healed, a checkpoint completes within
 *   the bound (check_liveness_default, or `expect liveness D`): every gap
 *   between the heal time (or a completion after it) and the next
 *   completion, and between the last one and the moment the sources
 *   finished (no checkpoint is triggered after), is at most the bound.
 *   The heal time is the latest moment a fault that began settled (the
 *   fault table of the kernel: the world, not an actor; fault_settled():
 *   its window's end, or later when work it slowed, a slow store's writes
 *   or a delayed link's messages, finished later) or a slow-task window
 *   ended; a fault still open leaves nothing to check. What the faults
 *   cost after that is theirs too, and the time extends to its end: a
 *   checkpoint in flight while they were on that expires (a barrier,
 *   acknowledgement or write of it lost: its slot is held for the whole
 *   timeout, CHECKPOINT_EXPIRED), and a failure declared by then, until
 *   its restart is due (the strategy's delay, as the event says). So a
 *   bound derived for a scenario's scripted faults holds under any faults
 *   a campaign adds: it measures the protocol from the moment nothing the
 *   faults did is still running out.
 * - End of input: unless the restart strategy gave up (the job failed),
 *   the job finishes. A run that stopped at a bound is stalled: the
 *   violation names the oldest pending checkpoint and the tasks whose
 *   acknowledgement it still waits for, with their blocked inputs.
 * - Where either would fail because the latest checkpoint to expire ran
 *   out of time (every task had taken its barrier and acknowledged or was
 *   still writing its snapshot when the timeout struck), the settings let
 *   no checkpoint complete under the run's load: that is the report's
 *   `unreachable` verdict, the configuration's, and I6 is not judged. */
#include "check_int.h"
#include "../model/flow/ckrules.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define TASK_WORDS (JOB_TASKS_MAX / 64u)
#define RING_CKPTS 8u

typedef struct live {
    const check_ctx *c;
    bool        ckpts_on;
    sim_time_ns bound_ns;
    sim_time_ns last_complete_ns;     /* 0: none yet */
    uint64_t    last_complete;
    uint64_t    finished[TASK_WORDS];     /* this attempt */
    uint32_t    sources, sources_done;
    sim_time_ns sources_done_ns;      /* when the last source finished: triggering stops */
    uint64_t    pending, acked[TASK_WORDS];   /* the oldest pending checkpoint */
    sim_time_ns pending_ns;
    sim_time_ns after_ns;             /* the faults' after-effects ran out then (expiries, restart delays) */
    sim_time_ns expired_ns;           /* the last expiry of a checkpoint triggered while the faults were on */
    uint32_t   *blocked;              /* by task: inputs its gate blocked at its last control step */
    /* The latest checkpoints (by id modulo RING_CKPTS): who acknowledged
     * each, whether it expired, for the configuration's verdict. */
    uint64_t    ring_ckpt[RING_CKPTS];
    sim_time_ns ring_expired_ns[RING_CKPTS];   /* 0: not expired */
    bool        ring_outlast[RING_CKPTS];      /* at its expiry every task had done its part or was writing */
    uint64_t    ring_acked[RING_CKPTS][TASK_WORDS];
    uint64_t    ring_triggered[RING_CKPTS][TASK_WORDS];
    uint8_t    *ring_writing;                  /* RING_CKPTS x tasks: its snapshot writes in flight */
} live;

static void *create(const check_ctx *c) {
    live *l = ARENA_NEW(c->mem, live, 1);
    l->c = c;
    l->ckpts_on = c->cfg->ckpt.enabled;
    l->bound_ns = c->report->liveness_ns;
    l->blocked = ARENA_NEW(c->mem, uint32_t, c->j->tasks_count);
    l->ring_writing = ARENA_NEW(c->mem, uint8_t, (size_t)RING_CKPTS * c->j->tasks_count);
    for (uint32_t t = 0; t < c->j->tasks_count; t++) l->sources += c->j->tasks[t].in_count == 0;
    c->report->applies[CHECK_I6] = true;
    return l;
}

static bool bit(const uint64_t *w, uint32_t i) { return (w[i / 64] >> (i % 64)) & 1; }

/* When the faults that began by now settled (beyond now: not healed). */
static sim_time_ns heal_ns(const live *l) {
    const sim_run *run = pipe_sim(l->c->p);
    const pipe_cfg *cfg = pipe_config(l->c->p);
    sim_time_ns heal = 0, now = run->now_ns;
    for (uint32_t i = 0; i < run->faults_count; i++) {
        if (!fault_begun(run, i)) continue;
        sim_time_ns end = fault_settled(run, i);
        if (end > heal) heal = end;
    }
    for (uint32_t i = 0; i < cfg->slow_count; i++) {
        const pipe_slow *w = &cfg->slow[i];
        if (w->at_ns <= now && w->at_ns + w->duration_ns > heal) heal = w->at_ns + w->duration_ns;
    }
    return heal;
}

/* heal_ns, or later while what the faults set off runs out. */
static sim_time_ns settled_ns(const live *l) {
    sim_time_ns heal = heal_ns(l);
    return l->after_ns > heal ? l->after_ns : heal;
}

/* A checkpoint that expires counts to the settling when it was triggered
 * (its timeout before) while the faults were on; a failure declared by
 * their heal, within a heartbeat timeout after (a crashed TaskManager's
 * silence is noticed that late) or by such an expiry (one past the
 * tolerable failures), until its restart is due. Neither rule feeds on
 * itself: a protocol whose checkpoints keep expiring, or whose job keeps
 * failing, after the heal is the protocol's, and I6 sees it. */
static void after_effect(live *l, const pipe_event *e) {
    sim_time_ns heal = heal_ns(l), beat, noticed;
    pipe_heartbeat(pipe_config(l->c->p), &beat, &noticed);
    if (e->kind == PIPE_EV_CKPT_ABORT && e->count == CKR_EXPIRED) {
        sim_time_ns timeout = pipe_config(l->c->p)->ckpt.timeout_ns;
        if (e->at_ns - timeout < heal && e->at_ns > l->expired_ns) l->expired_ns = e->at_ns;
        if (l->expired_ns > l->after_ns) l->after_ns = l->expired_ns;
    } else if (e->kind == PIPE_EV_JOB_FAILED && e->ok && (e->at_ns <= heal + noticed || e->at_ns <= l->expired_ns)) {
        if (e->due_ns > l->after_ns) l->after_ns = e->due_ns;
    }
}

/* Whether checkpoint slot i, expiring now, ran out of time rather than
 * stalled: every task took its barrier and either acknowledged (the
 * acknowledgement may still be on its way) or was still writing its
 * snapshot, and the coordinator acknowledged for every finished task. */
static bool ran_out(const live *l, uint32_t i) {
    for (uint32_t t = 0; t < l->c->j->tasks_count; t++) {
        if (bit(l->ring_acked[i], t)) continue;   /* a finished task's: the coordinator's, for it (FLIP-147) */
        if (!bit(l->ring_triggered[i], t) || l->ring_writing[(size_t)i * l->c->j->tasks_count + t] == 0) return false;
    }
    return true;
}

static void ring_event(live *l, const pipe_event *e) {
    uint32_t i = (uint32_t)(e->ckpt % RING_CKPTS);
    uint8_t *writing = l->ring_writing + (size_t)i * l->c->j->tasks_count;
    if (e->kind == PIPE_EV_CKPT_START) {
        l->ring_ckpt[i] = e->ckpt;
        l->ring_expired_ns[i] = 0;
        l->ring_outlast[i] = false;
        memset(l->ring_acked[i], 0, sizeof l->ring_acked[i]);
        memset(l->ring_triggered[i], 0, sizeof l->ring_triggered[i]);
        memset(writing, 0, l->c->j->tasks_count);
        return;
    }
    if (l->ring_ckpt[i] != e->ckpt || e->ckpt == 0) return;
    if (e->kind == PIPE_EV_ACK) l->ring_acked[i][e->task / 64] |= 1ull << (e->task % 64);
    if (e->kind == PIPE_EV_ACK_RECEIVED && e->receipt == PIPE_RCV_FOR_FINISHED && e->culprit < l->c->j->tasks_count) {
        l->ring_acked[i][e->culprit / 64] |= 1ull << (e->culprit % 64);
    }
    if (e->kind == PIPE_EV_TRIGGER) l->ring_triggered[i][e->task / 64] |= 1ull << (e->task % 64);
    if (e->kind == PIPE_EV_WRITE && writing[e->task] < UINT8_MAX) writing[e->task]++;
    if (e->kind == PIPE_EV_WRITE_DONE && writing[e->task] > 0) writing[e->task]--;
    if (e->kind == PIPE_EV_CKPT_ABORT && e->count == CKR_EXPIRED) {
        l->ring_expired_ns[i] = e->at_ns;
        l->ring_outlast[i] = ran_out(l, i);
    }
}

/* The configuration's verdict, where I6 would fail: the latest checkpoint
 * that expired after `from` ran out of time (ran_out) rather than stalled.
 * The protocol did its part; the timeout is shorter than a checkpoint
 * takes with these settings under this load. */
static bool outlasted(live *l, sim_time_ns from) {
    uint32_t best = RING_CKPTS;
    for (uint32_t i = 0; i < RING_CKPTS; i++) {
        if (l->ring_expired_ns[i] <= from) continue;
        if (best == RING_CKPTS || l->ring_ckpt[i] > l->ring_ckpt[best]) best = i;
    }
    if (best == RING_CKPTS || !l->ring_outlast[best]) return false;
    check_report *r = l->c->report;
    if (r->unreachable[0] == '\0') {
        snprintf(r->unreachable, sizeof r->unreachable, "checkpoint %" PRIu64 " expired at %.3fms, its %.3fms timeout "
                 "shorter than it took: every task had taken its barrier and acknowledged or was still writing its "
                 "snapshot; no checkpoint can complete with these settings under this load", l->ring_ckpt[best],
                 (double)l->ring_expired_ns[best] / 1e6, (double)pipe_config(l->c->p)->ckpt.timeout_ns / 1e6);
    }
    return true;
}

static void gap(live *l, sim_time_ns until_ns, const char *until) {
    sim_time_ns heal = settled_ns(l), from = l->last_complete_ns > heal ? l->last_complete_ns : heal;
    if (until_ns <= from || until_ns - from <= l->bound_ns) return;
    if (outlasted(l, from)) return;
    check_where w = CHECK_AT(until_ns);
    w.ckpt = l->pending != 0 ? l->pending : CHECK_NONE64;
    const char *since = l->last_complete_ns > heal ? "the last completion"
                      : heal > heal_ns(l) ? "the faults' after-effects ran out (an expiry or a restart's delay)"
                      : "the faults healed";
    check_fail(l->c, CHECK_I6, w, "no checkpoint completed for %.3fms after %s at %.3fms, until %s at %.3fms "
               "(bound %.3fms)", (double)(until_ns - from) / 1e6, since, (double)from / 1e6, until,
               (double)until_ns / 1e6, (double)l->bound_ns / 1e6);
}

static void on_event(void *self, const pipe_event *e) {
    live *l = self;
    const job *j = l->c->j;
    switch (e->kind) {
    case PIPE_EV_CKPT_START: case PIPE_EV_ACK: case PIPE_EV_CKPT_ABORT: case PIPE_EV_TRIGGER: case PIPE_EV_WRITE:
    case PIPE_EV_WRITE_DONE: case PIPE_EV_ACK_RECEIVED:
        ring_event(l, e);
        break;
    default:
        break;
    }
    switch (e->kind) {
    case PIPE_EV_CKPT_START:
        if (l->pending == 0) {
            l->pending = e->ckpt;
            l->pending_ns = e->at_ns;
            memset(l->acked, 0, sizeof l->acked);
        }
        break;
    case PIPE_EV_ACK:
        if (e->ckpt == l->pending) l->acked[e->task / 64] |= 1ull << (e->task % 64);
        break;
    case PIPE_EV_CKPT_COMPLETE:
        if (l->ckpts_on) gap(l, e->at_ns, "the completion of the next");
        l->last_complete_ns = e->at_ns;
        l->last_complete = e->ckpt;
        l->c->report->checks[CHECK_I6]++;
        /* fall through */
    case PIPE_EV_CKPT_ABORT:
        if (e->kind == PIPE_EV_CKPT_ABORT) after_effect(l, e);
        if (e->ckpt == l->pending) l->pending = 0;
        break;
    case PIPE_EV_JOB_FAILED:
        after_effect(l, e);
        l->pending = 0;
        break;
    case PIPE_EV_COORD_FAILOVER:
        l->pending = 0;
        break;
    case PIPE_EV_BARRIER: case PIPE_EV_CANCEL: case PIPE_EV_END: case PIPE_EV_END_DATA: case PIPE_EV_TRIGGER:
    case PIPE_EV_DECLINE:
        if (e->task != PIPE_NO_TASK) l->blocked[e->task] = e->blocked;
        break;
    case PIPE_EV_TASK_FINISHED:
        l->finished[e->task / 64] |= 1ull << (e->task % 64);
        if (j->tasks[e->task].in_count == 0 && ++l->sources_done == l->sources) l->sources_done_ns = e->at_ns;
        break;
    case PIPE_EV_RESTORE:                         /* the task starts over in a new attempt */
        if (bit(l->finished, e->task)) {
            l->finished[e->task / 64] &= ~(1ull << (e->task % 64));
            if (j->tasks[e->task].in_count == 0) l->sources_done--;
        }
        l->blocked[e->task] = 0;
        break;
    default:
        break;
    }
}

/* "waiting for the acknowledgement of agg[0] (blocks 1 input), out[0]" */
static void waiting_for(const live *l, char *buf, size_t n) {
    size_t used = 0;
    uint32_t listed = 0, missing = 0;
    buf[0] = '\0';
    for (uint32_t t = 0; t < l->c->j->tasks_count; t++) {
        if (bit(l->acked, t) || bit(l->finished, t)) continue;
        missing++;
        if (listed == 6 || used + 80 > n) continue;
        char who[64];
        check_task_name(l->c, t, who, sizeof who);
        int w = l->blocked[t] > 0 ? snprintf(buf + used, n - used, "%s%s (blocks %u inputs)", listed ? ", " : "", who, l->blocked[t])
                                  : snprintf(buf + used, n - used, "%s%s", listed ? ", " : "", who);
        if (w > 0) used += (size_t)w;
        listed++;
    }
    if (missing > listed && used + 24 < n) snprintf(buf + used, n - used, " and %u more", missing - listed);
}

static void on_end(void *self, const check_end *end) {
    live *l = self;
    if (end->status == PIPE_FAILED) {             /* the restart strategy gave up: nothing is promised */
        l->c->report->applies[CHECK_I6] = false;
        return;
    }
    if (end->status == PIPE_FINISHED) {
        if (l->ckpts_on && l->sources_done == l->sources) gap(l, l->sources_done_ns, "the sources finished");
        return;
    }
    sim_time_ns from = l->last_complete_ns > settled_ns(l) ? l->last_complete_ns : settled_ns(l);
    if (l->ckpts_on && outlasted(l, from)) return;
    check_where w = CHECK_AT(end->end_ns);
    char why[400] = "no checkpoint pending";
    if (l->pending != 0) {
        char tasks[160];
        waiting_for(l, tasks, sizeof tasks);
        if (tasks[0] == '\0') snprintf(tasks, sizeof tasks, "no task (every one acknowledged it or finished)");
        snprintf(why, sizeof why, "checkpoint %" PRIu64 " pending since %.3fms waits for the acknowledgement of %s",
                 l->pending, (double)l->pending_ns / 1e6, tasks);
        w.ckpt = l->pending;
    }
    char last[64] = "none completed";
    if (l->last_complete != 0) {
        snprintf(last, sizeof last, "the last completed was %" PRIu64 " at %.3fms", l->last_complete,
                 (double)l->last_complete_ns / 1e6);
    }
    check_fail(l->c, CHECK_I6, w, "the job did not reach the end of its input: it was %s when the run stopped at "
               "%.3fms; %s; %s", pipe_status_name(end->status), (double)end->end_ns / 1e6, why, last);
}

const check_ops check_live_ops = { "I6 liveness", create, on_event, on_end };
