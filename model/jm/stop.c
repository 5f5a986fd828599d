/* model/jm/stop.c: the user's stops and cancels of the job and its
 * resume (cfg.stops: `fault at T stop|cancel job resume after D [MODE]`).
 *
 * A cancel (`flink cancel`, with execution.checkpointing.
 * externalized-checkpoint-retention RETAIN_ON_CANCELLATION): every task
 * is cancelled at once; the job is CANCELED and its retained checkpoints
 * stay on storage as the user's. The user resumes from the latest of them
 * (`flink run -s`), or, when none completed, submits the job anew: its
 * sources start over, and a transactional sink had committed nothing.
 *
 * The resume (CheckpointCoordinator.restoreSavepoint, Flink 1.15 on): a
 * new job whose completed-checkpoint store holds the snapshot alone, with
 * the properties of its restore mode (pipe_claim): CLAIM, the job's own
 * checkpoint properties (subsumed and discarded like its own); LEGACY, a
 * savepoint's (never discarded); NO_CLAIM, forUnclaimedSnapshot (never
 * discarded, and while it is the latest restored snapshot every
 * checkpoint triggered is a full one: forceFullSnapshot, until a
 * checkpoint completes). What a job may not discard is pinned in the
 * store (store_pin): in NO_CLAIM and LEGACY the shared state the snapshot
 * created is never discarded, as SharedStateRegistryImpl's
 * highestNotClaimedCheckpointID keeps it (FLINK-26985). The checkpoint ids
 * go on from the snapshot's + 1 (restoreSavepoint resets the counter
 * there), or from the ended job's counter if that is higher: ids name
 * checkpoints across the run here, where Flink's new job has a namespace
 * of its own. The restart strategy and the failure count start anew.
 *
 * A stop (`flink stop`, without --drain: SavepointType.suspend, FLIP-34
 * as FLIP-147 reworked it in 1.14): the periodic scheduler stops and what
 * is pending is aborted; a synchronous savepoint is triggered, a full
 * snapshot no later one shares (NO_SHARING; canonical, FLIP-203's
 * default: a task restored from it builds no increment on its files). A
 * source stops reading after its barrier; a task that took the savepoint
 * finishes once it completed (its notice commits the sinks' side effects:
 * only stop-with-savepoint's savepoints are notified, FLINK-25191),
 * without endInput (FLINK-21132). The savepoint is not in the
 * completed-checkpoint store (FLINK-25191); once every task finished the
 * job is FINISHED, its checkpoints discarded with it
 * (discardOnJobFinished), and the user resumes from the savepoint. With
 * --drain (SavepointType.terminate) each source ends its input before
 * the barrier, every task ends its input and takes the savepoint as its
 * final checkpoint, and the job is over.
 * If the savepoint is aborted, the tasks that took it fail
 * ("Stop-with-savepoint failed.", StreamTask): here the coordinator fails
 * the job over at once, which a lost abort notice cannot delay, and the
 * job runs on from its latest checkpoint; the user tries the stop again.
 * A failure after the savepoint completed ends the job (FLINK-26783,
 * 1.15: StopWithSavepointStoppingException, not recoverable): the user
 * resumes from the savepoint, whose restore commits its side effects (a
 * drained one's sources end their input there). A stop waits for the job
 * to run with every task up; a new JobManager forgets a stop in progress.
 *
 * The user is outside the JobManager (world.h, pipe_client): a new
 * JobManager after a crash learns the ended job and its resume from it. */
#include "jm.h"

#include <string.h>

static uint32_t tasks_of(const jm_side *jm) { return world_job(jm->w)->tasks_count; }

/* The user tries again after about a round trip of its request (a script
 * polling the REST API); a long wait would let the job end first. */
static sim_time_ns retry_ns(const jm_side *jm) { return 2 * jm->w->cfg.rpc_latency_ns + SIM_NS_PER_MS; }

/* How long the coordinator waits for the tasks to finish after the
 * savepoint before it sends the notice again. */
static sim_time_ns notice_ns(const jm_side *jm) { return 50 * jm->w->cfg.rpc_latency_ns; }

static sim_time_ns until(const jm_side *jm, sim_time_ns at_ns) {
    sim_time_ns now = jm->w->run->now_ns;
    return at_ns > now ? at_ns - now : 0;
}

/* Pin every file slot s names (its keyed chains and channel state) but
 * those the user's snapshot `keep` names (NULL: none). */
static void pin_files(jm_side *jm, const rt_chain *chains, const uint64_t *cs, const ha_entry *keep) {
    store *st = &jm->w->files;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        for (uint32_t i = 0; i <= chains[t].count; i++) {
            uint64_t f = i < chains[t].count ? chains[t].files[i] : cs[t];
            if (f == 0 || !store_alive(st, f) || store_pinned(st, f)) continue;
            bool kept = false;
            for (uint32_t k = 0; keep != NULL && k < keep->chains[t].count; k++) kept |= keep->chains[t].files[k] == f;
            kept |= keep != NULL && keep->cs_files[t] == f;
            if (!kept) store_pin(st, f);
        }
    }
}

/* The user's next stop or cancel, at its time (or now, when that passed). */
static void arm_next(jm_side *jm) {
    const pipe_client *cl = &jm->w->client;
    const pipe_cfg *cfg = &jm->w->cfg;
    if (cl->stops_done >= cfg->stops_count) return;
    sim_timer_set(jm->w->run, jm->coord.actor, until(jm, cfg->stops[cl->stops_done].at_ns),
                  (uint64_t)cl->stops_done << 32 | TIMER_HALT);
}

void stop_arm(jm_side *jm) {
    const pipe_client *cl = &jm->w->client;
    SIM_ASSERT(jm->coord.halting == 0 && jm->coord.savepoint_slot == 0);
    if (cl->waiting) {
        sim_timer_set(jm->w->run, jm->coord.actor, until(jm, cl->resume_at_ns), TIMER_RESUME);
        return;
    }
    arm_next(jm);
}

/* The job ended (CANCELED; or FINISHED at a stop): the user keeps `snap`
 * to resume from. The other retained checkpoints stay on storage as the
 * user's with `keep` (RETAIN_ON_CANCELLATION), else they are discarded
 * with the job (CheckpointProperties.discardOnJobFinished). The job's
 * completed-checkpoint store goes (a globally terminal job's HA data is
 * cleaned up). */
static void job_ended(jm_side *jm, const rt_slot *snap, bool keep) {
    pipe_client *cl = &jm->w->client;
    rt_coord *co = &jm->coord;
    const pipe_stop *x = &jm->w->cfg.stops[cl->stops_done];
    cl->has_snap = snap != NULL;
    if (snap != NULL) ha_entry_fill(jm, &cl->snap, snap);
    for (uint32_t i = 0; i < co->completed_count && keep; i++) {
        const rt_slot *s = &jm->slots[co->completed_order[i]];
        pin_files(jm, s->chains, s->cs_files, cl->has_snap ? &cl->snap : NULL);
    }
    for (uint32_t i = 0; i < jm->w->ha.count && keep; i++) {
        const ha_entry *e = &jm->w->ha.entries[i];
        pin_files(jm, e->chains, e->cs_files, cl->has_snap ? &cl->snap : NULL);
    }
    for (uint32_t i = 0; i < co->completed_count; i++) coord_free_slot(jm, &jm->slots[co->completed_order[i]]);
    co->completed_count = 0;
    co->restore_slot = 0;
    while (jm->w->ha.count > 0) ha_remove(jm, jm->w->ha.entries[0].ckpt);
    cl->waiting = true;
    cl->resume_at_ns = jm->w->run->now_ns + x->resume_ns;
    cl->stops_done++;
    co->halting = 0;
    if (world_observed(jm->w)) {
        pipe_event e = { .kind = PIPE_EV_HALTED, .task = PIPE_NO_TASK, .ckpt = cl->has_snap ? cl->snap.ckpt : 0,
                         .chan = PIPE_NO_CHAN, .count = x->how };
        jm_note_ev(jm, &e);
    }
    sim_timer_set(jm->w->run, co->actor, x->resume_ns, TIMER_RESUME);
}

/* `flink cancel`: every task is cancelled at once, as for a rescale. */
static void cancel_job(jm_side *jm) {
    rt_coord *co = &jm->coord;
    deploy_cancel_all(jm);
    co->status = PIPE_RESTARTING;
    co->region_restart = false;
    REACHED(jm->w, JOB_CANCELLED);
    job_ended(jm, coord_restore(jm), true);
}

/* `flink stop`: what is pending ends, the scheduler stops, and the
 * savepoint is triggered. */
static void stop_job(jm_side *jm, uint32_t i) {
    rt_coord *co = &jm->coord;
    co->halting = i + 1;
    co->savepoint_slot = 0;
    deploy_drop_pending(jm);                      /* stopCheckpointScheduler: CHECKPOINT_COORDINATOR_SUSPEND */
    REACHED(jm->w, STOP_TRIGGERED);
    coord_trigger_savepoint(jm);
}

/* Whether the job can take stop or cancel x now: a cancel unless a new
 * JobManager reads its store; a stop while the job runs with every task
 * up and no stop in progress. */
static bool can_halt(jm_side *jm, const pipe_stop *x) {
    const rt_coord *co = &jm->coord;
    if (co->recovering || co->halting != 0) return false;
    if (x->how == PIPE_HALT_CANCEL) return true;
    return co->status == PIPE_RUNNING && !co->region_restart && coord_tasks_ready(jm);
}

static void retry_halt(jm_side *jm, uint32_t i) {
    REACHED(jm->w, HALT_WAITS);
    sim_timer_set(jm->w->run, jm->coord.actor, retry_ns(jm), (uint64_t)i << 32 | TIMER_HALT);
}

/* Stop or cancel i of the schedule is due: now, or once the job can take
 * it (the user tries again, as a script around the CLI would). */
static void halt(jm_side *jm, uint32_t i) {
    const pipe_client *cl = &jm->w->client;
    const rt_coord *co = &jm->coord;
    if (cl->waiting || i != cl->stops_done || co->status == PIPE_FINISHED || co->status == PIPE_FAILED) return;
    const pipe_stop *x = &jm->w->cfg.stops[i];
    if (!can_halt(jm, x)) {
        retry_halt(jm, i);
        return;
    }
    if (x->how == PIPE_HALT_CANCEL) cancel_job(jm);
    else stop_job(jm, i);
}

/* The savepoint ends the job: it is the user's now (the client's
 * references), its slot goes; the retained checkpoints stay the user's
 * with `keep`. */
static void end_with_savepoint(jm_side *jm, bool keep) {
    rt_coord *co = &jm->coord;
    rt_slot *sp = &jm->slots[co->savepoint_slot - 1];
    deploy_cancel_all(jm);                        /* the slots are freed for the resume's deployment */
    co->status = PIPE_RESTARTING;
    co->region_restart = false;
    job_ended(jm, sp, keep);
    coord_free_slot(jm, sp);
    co->savepoint_slot = 0;
}

/* Every task finished after a drained savepoint: the job is over, its
 * input ended where the savepoint's offsets are (what the checkers hold
 * the run to). */
static void drained(jm_side *jm) {
    pipe_client *cl = &jm->w->client;
    const rt_slot *sp = &jm->slots[jm->coord.savepoint_slot - 1];
    REACHED(jm->w, JOB_DRAINED);
    cl->end_offsets = sp->offsets;                /* the slot stays: the run ends with the job */
    cl->stops_done++;
    jm->coord.halting = 0;
    if (world_observed(jm->w)) {
        pipe_event e = { .kind = PIPE_EV_HALTED, .task = PIPE_NO_TASK, .ckpt = sp->ckpt, .chan = PIPE_NO_CHAN,
                         .count = PIPE_HALT_STOP, .ok = true };
        jm_note_ev(jm, &e);
    }
}

bool stop_job_finished(jm_side *jm) {
    if (jm->coord.halting == 0 || jm->coord.savepoint_slot == 0) return false;   /* the input ended first */
    if (jm->w->cfg.stops[jm->coord.halting - 1].drain) {
        drained(jm);
        return false;                             /* FINISHED, for good */
    }
    REACHED(jm->w, JOB_STOPPED);
    end_with_savepoint(jm, false);                /* FINISHED: its checkpoints go with it (discardOnJobFinished) */
    return true;
}

bool stop_job_failed(jm_side *jm) {
    rt_coord *co = &jm->coord;
    if (co->halting == 0 || co->savepoint_slot == 0) return false;
    REACHED(jm->w, STOP_FAILED_AFTER_SAVEPOINT);
    bool drain = jm->w->cfg.stops[co->halting - 1].drain;
    if (jm->w->cfg.bug == PIPE_BUG_STOP_FAILS_OVER) {   /* deliberate bug: a failover from the latest checkpoint */
        stop_forget(jm);
        retry_halt(jm, jm->w->client.stops_done);
        return false;
    }
    end_with_savepoint(jm, true);                 /* FAILED: retained checkpoints stay (RETAIN_ON_CANCELLATION) */
    if (drain) jm->w->client.end_offsets = jm->w->client.snap.offsets;   /* resumed to commit, it ends there */
    return true;
}

void stop_savepoint_ended(jm_side *jm, bool completed, bool lost) {
    rt_coord *co = &jm->coord;
    if (co->halting == 0) return;
    if (completed) {
        REACHED(jm->w, STOP_SAVEPOINT_COMPLETED);
        sim_timer_set(jm->w->run, co->actor, notice_ns(jm), TIMER_STOP_NOTICE);
        return;
    }
    /* Aborted: the tasks that took it fail, and the stop is tried again.
     * Lost with the attempt (a failure, full or of a region, or a new
     * JobManager), what failed is restarting already: the tasks of other
     * regions fail on the abort notice they are sent. */
    uint32_t i = co->halting - 1;
    co->halting = 0;
    REACHED(jm->w, STOP_SAVEPOINT_ABORTED);
    if (!lost) sim_timer_set(jm->w->run, co->actor, 0, TIMER_STOP_FAILED);
    retry_halt(jm, i);
}

/* The savepoint completed and some task has not finished: its notice
 * may have been lost (absim's RPCs can lose a message on a live
 * connection, Flink's do not), so it goes again to those tasks, as the
 * coordinator sends a deployment again until the task confirms it. */
static void notice_again(jm_side *jm) {
    rt_coord *co = &jm->coord;
    if (co->halting == 0 || co->savepoint_slot == 0 || co->status != PIPE_RUNNING) return;
    uint64_t ckpt = jm->slots[co->savepoint_slot - 1].ckpt;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (!jm_active(jm, t) || co->finished[t]) continue;
        REACHED(jm->w, STOP_NOTICE_AGAIN);
        sim_msg m = { .type = MSG_COMPLETE, .a = ckpt, .b = co->attempt[t] };
        jm_send(jm, t, &m, 64, NULL, 0);
    }
    sim_timer_set(jm->w->run, co->actor, notice_ns(jm), TIMER_STOP_NOTICE);
}

/* A stop in progress is gone (a new JobManager): its savepoint, if it
 * completed, stays on storage as the user's, out of the job; the user
 * keeps the newest such savepoint only, so repeated failovers during
 * stops do not fill the store. */
void stop_forget(jm_side *jm) {
    rt_coord *co = &jm->coord;
    pipe_client *cl = &jm->w->client;
    if (co->savepoint_slot != 0) {
        rt_slot *sp = &jm->slots[co->savepoint_slot - 1];
        if (cl->has_orphan) ha_entry_release(jm, &cl->orphan);
        ha_entry_fill(jm, &cl->orphan, sp);
        cl->has_orphan = true;
        coord_free_slot(jm, sp);
        co->savepoint_slot = 0;
    }
    co->halting = 0;
}

static uint64_t restore_from(jm_side *jm, pipe_claim claim);

/* The mode the user resumes in: the stop's. A drained job resumed to
 * commit its savepoint's side effects after a failure (FLINK-26783) takes
 * Flink's default, NO_CLAIM, except with the changelog backend, which
 * cannot take the full snapshot NO_CLAIM forces (FLINK-38307): CLAIM. */
static pipe_claim mode_of(const jm_side *jm, const pipe_stop *x) {
    return x->drain && jm->w->cfg.state.changelog ? PIPE_CLAIM_CLAIM : x->claim;
}

/* The user submits the job again from its snapshot. */
static void resume(jm_side *jm) {
    pipe_client *cl = &jm->w->client;
    rt_coord *co = &jm->coord;
    if (!cl->waiting) return;
    if (co->recovering) {                         /* a new JobManager reads its store first */
        sim_timer_set(jm->w->run, co->actor, retry_ns(jm), TIMER_RESUME);
        return;
    }
    const pipe_stop *x = &jm->w->cfg.stops[cl->stops_done - 1];
    cl->waiting = false;
    SIM_ASSERT(co->completed_count == 0 && co->restore_slot == 0);
    pipe_claim mode = mode_of(jm, x);
    uint64_t ckpt = cl->has_snap ? restore_from(jm, mode) : 0;
    uint32_t gen = co->sched.gen;                 /* the ended job's armed trigger must stay stale */
    coord_rules_init(jm, co->sched.next_id > ckpt + 1 ? co->sched.next_id : ckpt + 1);
    co->sched.gen = gen + 1;
    rs_init(&co->strategy);
    for (uint32_t t = 0; t < tasks_of(jm); t++) co->restarting[t] = JM_RESTART_DUE;
    jm->w->stats.resumes++;
    REACHED(jm->w, JOB_RESUMED);
    if (world_observed(jm->w)) {
        pipe_event e = { .kind = PIPE_EV_RESUMED, .task = PIPE_NO_TASK, .ckpt = ckpt, .chan = PIPE_NO_CHAN,
                         .count = mode };
        jm_note_ev(jm, &e);
    }
    deploy_look_again(jm);
    arm_next(jm);
}

/* The user's snapshot becomes the resumed job's one completed checkpoint,
 * in restore mode `claim`; its id. */
static uint64_t restore_from(jm_side *jm, pipe_claim claim) {
    pipe_client *cl = &jm->w->client;
    rt_slot *r = ha_slot_from(jm, &cl->snap);
    r->unclaimed = claim == PIPE_CLAIM_NO_CLAIM;
    bool owned = claim == PIPE_CLAIM_CLAIM ||
                 (claim == PIPE_CLAIM_LEGACY && jm->w->cfg.bug == PIPE_BUG_LEGACY_DISCARDS);   /* deliberate bug */
    if (!owned) pin_files(jm, r->chains, r->cs_files, NULL);   /* the user's: never discarded */
    ha_put(jm, r);
    ha_entry_release(jm, &cl->snap);
    cl->has_snap = false;
    return r->ckpt;
}

void stop_on_timer(jm_side *jm, uint64_t tag) {
    switch (tag & 0xffffffffu) {
    case TIMER_RESUME: resume(jm); return;
    case TIMER_STOP_FAILED:
        if (jm->coord.status == PIPE_RUNNING) deploy_job_fail(jm, PIPE_FAIL_STOP, PIPE_NO_TASK);
        return;
    case TIMER_STOP_NOTICE: notice_again(jm); return;
    default: halt(jm, (uint32_t)(tag >> 32)); return;
    }
}
