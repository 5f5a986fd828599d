/* model/jm/coord.c: the checkpoint coordinator and the job's restarts (the
 * JobManager). One actor, on a machine of its own.
 *
 * Checkpoint life: trigger (slot taken, sources told, timeout armed) ->
 * acks from every task (finished tasks are acked for, with their final
 * state) -> complete (retained, older pending subsumed, tasks notified);
 * or -> abort on a decline or the timeout (slot freed, tasks notified;
 * counted against tolerable_failures).
 *
 * Job life: RUNNING -> (a task reports a failure, or too many failed
 * checkpoints) -> RESTARTING: every task is cancelled (crashed), the
 * attempt number (epoch) goes up so late messages of the old attempt are
 * ignored, and after the restart strategy's delay every task restarts
 * from the latest completed checkpoint -> RUNNING. FAILED when the
 * strategy gives up; FINISHED when every task has finished. */
#include "jm.h"

#include <stddef.h>

#include <string.h>

static rt_coord *coord_of(jm_side *jm) { return &jm->coord; }

void jm_note_ev(jm_side *jm, pipe_event *e) {
    e->epoch = jm->coord.epoch;
    world_note_ev(jm->w, e);
}

void jm_note(jm_side *jm, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt) {
    if (!world_observed(jm->w)) return;
    pipe_event e = { .kind = kind, .task = task, .channel = channel, .ckpt = ckpt, .chan = PIPE_NO_CHAN };
    jm_note_ev(jm, &e);
}

static const job_vertex *vertex_of(const jm_side *jm, uint32_t task) {
    const job *j = world_job(jm->w);
    return &j->vertices[j->tasks[task].vertex];
}

static void notify_all(jm_side *jm, uint32_t type, uint64_t ckpt) {
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        sim_msg m = { .type = type, .a = ckpt, .b = jm->coord.epoch };
        link_send(jm->w->run, jm->coord.rpc_to_task[t], &m, 64);
    }
}

rt_slot *coord_pending_slot(jm_side *jm, uint64_t ckpt) {
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        if (jm->slots[i].ckpt == ckpt && !jm->slots[i].complete) return &jm->slots[i];
    }
    return NULL;
}

const rt_slot *coord_restore(const jm_side *jm) {
    return jm->coord.restore_slot == 0 ? NULL : &jm->slots[jm->coord.restore_slot - 1];
}

void coord_slot_release(jm_side *jm, rt_slot *s) {
    uint32_t tasks = world_job(jm->w)->tasks_count;
    for (uint32_t t = 0; t < tasks; t++) {
        rt_chain *c = &s->chains[t];
        for (uint32_t i = 0; i < c->count; i++) {
            if (store_alive(&jm->w->files, c->files[i])) store_unref(&jm->w->files, c->files[i]);
        }
        c->count = 0;
    }
    s->cs_count = 0;
    s->cs_overflow = false;
    s->bytes = s->files_new = s->files_shared = 0;
}

static void free_slot(jm_side *jm, rt_slot *s) {
    coord_slot_release(jm, s);                      /* its files' references go */
    s->ckpt = 0;
    s->complete = false;
    s->finalizing = false;
}

/* The deliberate bug delete-shared-file: a dropped checkpoint deletes the
 * files it wrote although later checkpoints still refer to them. */
static void drop_buggy(jm_side *jm, rt_slot *s) {
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        if (c->count == 0) continue;
        uint64_t f = c->files[c->count - 1];
        while (store_alive(&jm->w->files, f)) store_unref(&jm->w->files, f);
    }
}

/* The deliberate bug FLINK-24611: an aborted checkpoint discards every
 * file its chains name, the shared ones of retained checkpoints too. */
static void discard_all(jm_side *jm, rt_slot *s) {
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        for (uint32_t i = 0; i < c->count; i++) {
            while (store_alive(&jm->w->files, c->files[i])) store_unref(&jm->w->files, c->files[i]);
        }
    }
}

/* The deliberate bug FLINK-7783: the new coordinator reads the store
 * while it fails (a transient error a correct recovery retries through)
 * and removes the checkpoints it "could not read", every retained one
 * but the newest, discarding every file they name, shared ones too. */
static void drop_unread(jm_side *jm) {
    rt_coord *co = &jm->coord;
    if (jm->w->run->devs[jm->w->store_dev].fail.num == 0) return;   /* the store answered */
    while (co->completed_count > 1) {
        rt_slot *s = &jm->slots[co->completed_order[0]];
        discard_all(jm, s);
        free_slot(jm, s);
        memmove(co->completed_order, co->completed_order + 1, sizeof(uint64_t) * --co->completed_count);
    }
}

static void history_end(jm_side *jm, uint64_t ckpt, pipe_ckpt_end end) {
    if (ckpt - 1 < jm->history_count) {            /* beyond the recorded ones: only noted */
        pipe_ckpt_rec *h = &jm->history[ckpt - 1];
        SIM_ASSERT(h->end == PIPE_CKPT_PENDING);
        h->end = end;
        h->ended_ns = jm->w->run->now_ns;
    }
    jm_note(jm, end == PIPE_CKPT_COMPLETED ? PIPE_EV_CKPT_COMPLETE : PIPE_EV_CKPT_ABORT, PIPE_NO_TASK, (uint32_t)end, ckpt);
}

/* A finished task will not see this checkpoint's barrier: ack for it with
 * its final state (Flink >= 1.14 keeps finished tasks in checkpoints). */
static void ack_finished(jm_side *jm, rt_slot *s, uint32_t task) {
    if (s->acked[task]) return;
    REACHED(jm->w, FINISHED_ACKED_FOR);
    const job *j = world_job(jm->w);
    const job_task *jt = &j->tasks[task];
    const job_vertex *v = &j->vertices[jt->vertex];
    if (v->kind == JOB_SOURCE) {                  /* read to the end, as its FINISHED said */
        for (uint32_t part = jt->subtask; part < jm->w->cfg.broker.partitions; part += v->parallelism) {
            s->offsets[part] = jm->w->cfg.broker.records_per_partition;
        }
    }
    if (v->kind == JOB_SINK) bridge_sink_final_ack(jm->w, task, s->ckpt);
    uint64_t f = jm->coord.final_file[task];
    if (f != 0 && store_alive(&jm->w->files, f)) {
        store_ref(&jm->w->files, f);
        s->chains[task] = (rt_chain){ .ckpt = s->ckpt, .count = 1, .files = { f } };
        s->files_shared++;
    }
    s->acked[task] = 1;
    s->acks++;
}

static void job_fail(jm_side *jm, pipe_fail_cause why, uint32_t culprit);

static void abort_ckpt(jm_side *jm, rt_slot *s, pipe_ckpt_end why) {
    uint64_t ckpt = s->ckpt;
    bool failure = why == PIPE_CKPT_DECLINED || why == PIPE_CKPT_TIMED_OUT;
    history_end(jm, ckpt, why);
    if (failure && jm->w->cfg.bug == PIPE_BUG_ABORT_DISCARDS_SHARED) discard_all(jm, s);   /* deliberate bug */
    free_slot(jm, s);
    jm->coord.pending--;
    jm->w->stats.aborted++;
    notify_all(jm, MSG_ABORTED, ckpt);
    if (failure && ++jm->coord.consecutive_failures > jm->w->cfg.ckpt.tolerable_failures) {
        REACHED(jm->w, TOLERABLE_EXCEEDED);
        job_fail(jm, PIPE_FAIL_CHECKPOINTS, PIPE_NO_TASK);
    }
}

/* The checkpoint in slot idx joins the retained ones (the oldest goes
 * when `retained` are kept already) and is the one a restart restores. */
static void retain(jm_side *jm, uint32_t idx) {
    rt_coord *co = coord_of(jm);
    if (co->completed_count == jm->w->cfg.ckpt.retained) {      /* drop the oldest retained */
        if (jm->w->cfg.bug == PIPE_BUG_SHARED_DELETE) drop_buggy(jm, &jm->slots[co->completed_order[0]]);
        free_slot(jm, &jm->slots[co->completed_order[0]]);
        memmove(co->completed_order, co->completed_order + 1, sizeof(uint64_t) * --co->completed_count);
    }
    co->completed_order[co->completed_count++] = idx;
    co->restore_slot = idx + 1;
    if (jm->w->cfg.bug == PIPE_BUG_RESTORE_OLDER) co->restore_slot = co->completed_order[0] + 1;   /* deliberate bug */
}

static void complete(jm_side *jm, rt_slot *s) {
    rt_coord *co = coord_of(jm);
    s->complete = true;
    s->finalizing = false;
    jm->w->stats.bytes_written += s->bytes;
    history_end(jm, s->ckpt, PIPE_CKPT_COMPLETED);
    co->pending--;
    co->consecutive_failures = 0;
    co->last_completed_ns = jm->w->run->now_ns;
    jm->w->stats.completed++;
    jm->w->stats.last_completed = s->ckpt;
    REACHED(jm->w, CKPT_COMPLETED);
    sim_time_ns d = jm->w->run->now_ns - s->started_ns;
    jm->w->stats.ckpt_duration_ns_sum += d;
    if (d > jm->w->stats.ckpt_duration_ns_max) jm->w->stats.ckpt_duration_ns_max = d;
    retain(jm, (uint32_t)(s - jm->slots));
    for (uint32_t i = 0; i < jm->slots_count; i++) {          /* subsume older pending ones */
        rt_slot *o = &jm->slots[i];
        if (o->ckpt != 0 && !o->complete && o->ckpt < s->ckpt) {
            jm->w->stats.subsumed++;
            REACHED(jm->w, CKPT_SUBSUMED);
            abort_ckpt(jm, o, PIPE_CKPT_SUBSUMED);
        }
    }
    notify_all(jm, MSG_COMPLETE, s->ckpt);
}

/* Every acknowledgement is in: with the durable backend the coordinator
 * writes the checkpoint's metadata to the store first (Flink's _metadata
 * file), and the checkpoint completes when that write succeeded. */
static void maybe_complete(jm_side *jm, rt_slot *s) {
    uint32_t needed = world_job(jm->w)->tasks_count;
    if (jm->w->cfg.bug == PIPE_BUG_PARTIAL_ACKS) needed = (needed + 1) / 2;   /* deliberate bug: half will do */
    if (s->acks < needed || s->finalizing) return;
    if (jm->w->cfg.state.backend != PIPE_BACKEND_DURABLE) {
        complete(jm, s);
        return;
    }
    s->finalizing = true;
    uint64_t bytes = 1024 + (uint64_t)world_job(jm->w)->tasks_count * 64;
    dev_write(jm->w->run, jm->w->store_dev, jm->coord.actor, bytes, s->ckpt << 2 | IO_METADATA);
}

static void metadata_written(jm_side *jm, const sim_event *ev) {
    rt_slot *s = coord_pending_slot(jm, ev->msg.a >> 2);
    if (s == NULL || !s->finalizing || jm->coord.status != PIPE_RUNNING) return;   /* aborted meanwhile */
    if (world_observed(jm->w)) {
        pipe_event e = { .kind = PIPE_EV_METADATA, .task = PIPE_NO_TASK, .ckpt = s->ckpt, .chan = PIPE_NO_CHAN,
                         .ok = ev->gen != DEV_FAILED };
        jm_note_ev(jm, &e);
    }
    if (ev->gen == DEV_FAILED) {
        REACHED(jm->w, METADATA_FAILED);
        jm->w->stats.declined++;
        abort_ckpt(jm, s, PIPE_CKPT_DECLINED);
        return;
    }
    complete(jm, s);
}

static void arm_trigger(jm_side *jm, sim_time_ns delay_ns) {
    rt_coord *co = coord_of(jm);
    if (!jm->w->cfg.ckpt.enabled || co->trigger_armed) return;
    co->trigger_armed = true;
    sim_timer_set(jm->w->run, co->actor, delay_ns, TIMER_TRIGGER);
}

static void trigger(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    const pipe_ckpt_cfg *cc = &jm->w->cfg.ckpt;
    co->trigger_armed = false;
    if (co->status != PIPE_RUNNING || co->sources_running == 0) return;   /* re-armed on restart */
    sim_time_ns now = jm->w->run->now_ns;
    if (jm->w->stats.completed > 0 && now < co->last_completed_ns + cc->min_pause_ns) {
        REACHED(jm->w, TRIGGER_MIN_PAUSE);
        arm_trigger(jm, co->last_completed_ns + cc->min_pause_ns - now);   /* min pause after a completion */
        return;
    }
    if (co->pending >= cc->max_concurrent) {
        REACHED(jm->w, TRIGGER_MAX_CONCURRENT);
        arm_trigger(jm, cc->interval_ns);
        return;
    }
    rt_slot *s = NULL;
    for (uint32_t i = 0; i < jm->slots_count && s == NULL; i++) {
        if (jm->slots[i].ckpt == 0) s = &jm->slots[i];
    }
    SIM_ASSERT(s != NULL);                       /* slots = retained + concurrent + 1 */
    s->ckpt = co->next_ckpt++;
    s->complete = false;
    s->started_ns = now;
    s->acks = 0;
    memset(s->acked, 0, world_job(jm->w)->tasks_count);
    if (co->pending > 0) REACHED(jm->w, CKPT_CONCURRENT);
    co->pending++;
    jm->w->stats.triggered++;
    jm_note(jm, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, s->ckpt);
    if (jm->history_count < PIPE_HISTORY_MAX && s->ckpt == jm->history_count + 1) {
        jm->history[jm->history_count++] = (pipe_ckpt_rec){ .id = s->ckpt, .epoch = co->epoch, .triggered_ns = now };
    }
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        if (co->finished[t]) {
            if (jm->w->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT) ack_finished(jm, s, t);   /* the bug: never */
        } else if (vertex_of(jm, t)->kind == JOB_SOURCE) {
            sim_msg m = { .type = MSG_TRIGGER, .a = s->ckpt, .b = co->epoch };
            link_send(jm->w->run, co->rpc_to_task[t], &m, 64);
        }
    }
    sim_timer_set(jm->w->run, co->actor, cc->timeout_ns, TIMER_TIMEOUT_BASE + s->ckpt);
    arm_trigger(jm, cc->interval_ns);
}

/* The restart strategy: the delay before the next attempt, or false when it
 * gives up. */
static bool restart_delay(jm_side *jm, sim_time_ns *delay_ns) {
    rt_coord *co = coord_of(jm);
    const pipe_restart_cfg *r = &jm->w->cfg.restart;
    sim_time_ns now = jm->w->run->now_ns;
    switch (r->kind) {
    case PIPE_RESTART_NONE:
        return false;
    case PIPE_RESTART_FIXED_DELAY:                /* failures this coordinator's strategy saw, this one included */
        if (++co->strategy_failures > r->attempts) return false;
        *delay_ns = r->delay_ns;
        return true;
    case PIPE_RESTART_FAILURE_RATE: {
        uint32_t kept = 0;                        /* failures inside the window, this one included */
        for (uint32_t i = 0; i < co->failure_count; i++) {
            if (co->failure_times[i] + r->interval_ns > now) co->failure_times[kept++] = co->failure_times[i];
        }
        co->failure_count = kept;
        if (co->failure_count < 64) co->failure_times[co->failure_count++] = now;
        if (co->failure_count > r->max_failures) return false;
        *delay_ns = r->delay_ns;
        return true;
    }
    case PIPE_RESTART_EXPONENTIAL:
        if (co->exp_delay_ns != 0 && now - co->last_failure_ns > r->reset_ns) REACHED(jm->w, EXPONENTIAL_RESET);
        if (co->exp_delay_ns == 0 || now - co->last_failure_ns > r->reset_ns) co->exp_delay_ns = r->initial_ns;
        *delay_ns = co->exp_delay_ns;
        co->exp_delay_ns = co->exp_delay_ns * r->multiplier_milli / 1000;
        if (co->exp_delay_ns > r->max_ns) co->exp_delay_ns = r->max_ns;
        co->last_failure_ns = now;
        return true;
    }
    return false;
}

static void reach_strategy(jm_side *jm, bool again) {
    switch (jm->w->cfg.restart.kind) {
    case PIPE_RESTART_NONE: REACHED(jm->w, GIVE_UP_NONE); break;
    case PIPE_RESTART_FIXED_DELAY:
        if (again) REACHED(jm->w, RESTART_FIXED_DELAY); else REACHED(jm->w, GIVE_UP_FIXED_DELAY);
        break;
    case PIPE_RESTART_FAILURE_RATE:
        if (again) REACHED(jm->w, RESTART_FAILURE_RATE); else REACHED(jm->w, GIVE_UP_FAILURE_RATE);
        break;
    case PIPE_RESTART_EXPONENTIAL: REACHED(jm->w, RESTART_EXPONENTIAL); break;
    }
}

/* Observers learn why and who (the run summary names the failing task);
 * the note changes nothing in the run. */
static void note_failed(jm_side *jm, pipe_fail_cause why, uint32_t culprit) {
    if (!world_observed(jm->w)) return;
    pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .task = PIPE_NO_TASK, .channel = why, .chan = PIPE_NO_CHAN,
                     .culprit = culprit };
    jm_note_ev(jm, &e);
}

static void job_fail(jm_side *jm, pipe_fail_cause why, uint32_t culprit) {
    rt_coord *co = coord_of(jm);
    if (co->status != PIPE_RUNNING) return;
    note_failed(jm, why, culprit);
    /* The deliberate bug restore-from-pending: the newest triggered
     * checkpoint is kept for the restore although it never completed. */
    uint32_t keep = UINT32_MAX;
    for (uint32_t i = 0; i < jm->slots_count && jm->w->cfg.bug == PIPE_BUG_RESTORE_PENDING; i++) {
        const rt_slot *x = &jm->slots[i];
        if (x->ckpt != 0 && !x->complete && (keep == UINT32_MAX || x->ckpt > jm->slots[keep].ckpt)) keep = i;
    }
    for (uint32_t i = 0; i < jm->slots_count; i++) {      /* pending checkpoints die with the attempt */
        if (jm->slots[i].ckpt != 0 && !jm->slots[i].complete) {
            REACHED(jm->w, PENDING_LOST);
            history_end(jm, jm->slots[i].ckpt, PIPE_CKPT_JOB_FAILED);
            if (i != keep) free_slot(jm, &jm->slots[i]);
            jm->w->stats.aborted++;
            jm->w->stats.lost_with_job++;
        }
    }
    if (keep != UINT32_MAX) {
        jm->slots[keep].complete = true;
        jm->slots[keep].finalizing = false;
        retain(jm, keep);
    }
    co->pending = 0;
    co->epoch++;
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) sim_actor_crash(jm->w->run, co->task_actor[t]);
    sim_time_ns delay;
    bool again = restart_delay(jm, &delay);
    reach_strategy(jm, again);
    if (!again) {
        co->status = PIPE_FAILED;
        sim_stop(jm->w->run);
        return;
    }
    co->status = PIPE_RESTARTING;
    jm->w->stats.restart_delay_ns_sum += delay;
    sim_timer_set(jm->w->run, co->actor, delay, TIMER_RESTART);
}

static void restart(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    SIM_ASSERT(co->status == PIPE_RESTARTING);
    const job *j = world_job(jm->w);
    for (uint32_t t = 0; t < j->tasks_count; t++) {      /* every slot must be there */
        if (!jm->w->run->machines[j->tasks[t].machine].up) {
            REACHED(jm->w, RESTART_WAITS);
            /* Try again after the strategy's delay (its initial one for
             * exponential backoff), as a slot request waits for a
             * TaskManager to register; not a fixed second, which would
             * leave a healed job idle for most of it. */
            const pipe_restart_cfg *r = &jm->w->cfg.restart;
            sim_time_ns delay = r->delay_ns > 0 ? r->delay_ns : r->initial_ns > 0 ? r->initial_ns : 10 * SIM_NS_PER_MS;
            sim_timer_set(jm->w->run, co->actor, delay, TIMER_RESTART);   /* wait for resources */
            return;
        }
    }
    co->status = PIPE_RUNNING;
    jm->w->stats.restarts++;
    memset(co->finished, 0, j->tasks_count);
    memset(co->final_file, 0, sizeof(uint64_t) * j->tasks_count);
    co->finished_count = 0;
    co->sources_running = 0;
    /* All down first (a task a machine restart woke up goes too), so no
     * redeployed task hears of a connection its old peers broke. */
    for (uint32_t t = 0; t < j->tasks_count; t++) sim_actor_crash(jm->w->run, co->task_actor[t]);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        uint32_t a = co->task_actor[t];
        co->sources_running += vertex_of(jm, t)->kind == JOB_SOURCE;
        sim_actor_restart(jm->w->run, a);                /* START: task_reset from the restore slot */
        co->deploy_inc[t] = jm->w->run->actors[a].inc;
        co->deploy_gen[t] = jm->w->run->links[co->conn_from_task[t]].gen;
    }
    jm_note(jm, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0);
    arm_trigger(jm, jm->w->cfg.ckpt.interval_ns);
}

/* The checkpoint takes the task's keyed state as the ack names it, with
 * references of its own (the task drops its own when told the outcome). */
static void accept_ack(jm_side *jm, rt_slot *s, uint32_t task, const msg_ack *a) {
    s->acked[task] = 1;
    s->acks++;
    if (a->chain.count == 0) return;
    for (uint32_t i = 0; i < a->chain.count; i++) {   /* the task holds them until told, unless a bug deleted one */
        if (store_alive(&jm->w->files, a->chain.files[i])) store_ref(&jm->w->files, a->chain.files[i]);
    }
    s->chains[task] = a->chain;
    s->files_new++;
    s->files_shared += a->chain.count - 1;
    s->bytes += a->bytes;
}

static void on_msg(jm_side *jm, const sim_msg *m, const void *payload) {
    rt_coord *co = coord_of(jm);
    uint64_t epoch = m->b >> 32;
    uint32_t task = (uint32_t)(m->b & 0xffffffffu);
    if (epoch != co->epoch) REACHED(jm->w, COORD_OLD_ATTEMPT);
    if (epoch != co->epoch || co->status != PIPE_RUNNING) return;   /* an older attempt's */
    SIM_ASSERT(task < world_job(jm->w)->tasks_count);
    rt_slot *s;
    switch (m->type) {
    case MSG_ACK:
        s = coord_pending_slot(jm, m->a);
        if (s == NULL) REACHED(jm->w, LATE_ACK);
        if (s == NULL || s->acked[task]) break;  /* late: aborted or subsumed meanwhile */
        SIM_ASSERT(payload != NULL);
        accept_ack(jm, s, task, payload);
        maybe_complete(jm, s);
        break;
    case MSG_DECLINE:
        s = coord_pending_slot(jm, m->a);
        if (s == NULL) break;
        REACHED(jm->w, CKPT_DECLINED);
        jm->w->stats.declined++;
        abort_ckpt(jm, s, PIPE_CKPT_DECLINED);
        break;
    case MSG_FAILED:
        job_fail(jm, PIPE_FAIL_REPORTED, task);
        break;
    case MSG_FINISHED:
        if (co->finished[task]) break;
        co->finished[task] = 1;
        SIM_ASSERT(payload != NULL);
        co->final_file[task] = ((const msg_finished *)payload)->final_file;
        co->finished_count++;
        if (vertex_of(jm, task)->kind == JOB_SOURCE) co->sources_running--;
        /* The task triggered (or declined) every checkpoint up to m->a
         * itself and acknowledges those on its own. Pending ones after that
         * it never saw (a source that had finished when the trigger came,
         * a task whose inputs all ended without the barrier): acknowledge
         * for it with its final state, which is consistent with them. */
        for (uint32_t i = 0; i < jm->slots_count && jm->w->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT; i++) {
            s = &jm->slots[i];
            if (s->ckpt == 0 || s->complete || s->ckpt <= m->a) continue;
            ack_finished(jm, s, task);
            maybe_complete(jm, s);
        }
        if (co->finished_count == world_job(jm->w)->tasks_count) {
            /* The final checkpoint (FLIP-147): every task finished, its
             * final state is the job's; sinks commit what is left. */
            REACHED(jm->w, FINAL_CHECKPOINT);
            for (uint32_t t = 0; t < world_job(jm->w)->tasks_count && jm->w->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT; t++) {
                if (vertex_of(jm, t)->kind == JOB_SINK) bridge_sink_commit_all(jm->w, t);
            }
            co->status = PIPE_FINISHED;
            sim_stop(jm->w->run);
        }
        break;
    default:
        SIM_ASSERT(!"unexpected message at the coordinator");
    }
}

/* A new coordinator (JobManager failover, after a crash): the tasks lost
 * their JobManager and are cancelled; pending checkpoints are gone. With
 * the durable backend the completed checkpoints are read back from the
 * store and the job restarts from the latest; with the memory backend
 * they died with the old coordinator and the job starts over. */
static void failover(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    const job *j = world_job(jm->w);
    jm->w->stats.failovers++;
    co->trigger_armed = false;
    co->epoch++;
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        rt_slot *s = &jm->slots[i];
        if (s->ckpt == 0 || s->complete) continue;
        history_end(jm, s->ckpt, PIPE_CKPT_JOB_FAILED);
        free_slot(jm, s);
        jm->w->stats.aborted++;
        jm->w->stats.lost_with_job++;
    }
    co->pending = 0;
    /* A new JobMaster starts a new restart strategy: what the old one
     * counted (attempts, the failure-rate window, the backoff) died with it. */
    co->strategy_failures = 0;
    co->failure_count = 0;
    co->exp_delay_ns = 0;
    for (uint32_t t = 0; t < j->tasks_count; t++) sim_actor_crash(jm->w->run, co->task_actor[t]);
    co->status = PIPE_RESTARTING;
    jm_note(jm, PIPE_EV_COORD_FAILOVER, PIPE_NO_TASK, 0, 0);
    if (jm->w->cfg.state.backend == PIPE_BACKEND_DURABLE) {
        REACHED(jm->w, FAILOVER_DURABLE);
        co->recovering = true;                     /* read the completed checkpoints' metadata */
        dev_read(jm->w->run, jm->w->store_dev, co->actor, 1024 + (uint64_t)j->tasks_count * 64, IO_METADATA);
        return;
    }
    REACHED(jm->w, FAILOVER_MEMORY);
    for (uint32_t i = 0; i < co->completed_count; i++) free_slot(jm, &jm->slots[co->completed_order[i]]);
    jm->w->stats.checkpoints_lost += co->completed_count;
    co->completed_count = 0;
    co->restore_slot = 0;
    memset(co->final_file, 0, sizeof(uint64_t) * j->tasks_count);
    /* The tasks' own handles name files of the wiped heap: still cleared
     * here, not by a message (a step still to take). */
    for (uint32_t t = 0; t < j->tasks_count; t++) bridge_clear_final_file(jm->w, t);
    store_wipe(&jm->w->files);
    sim_timer_set(jm->w->run, co->actor, jm->w->cfg.rpc_latency_ns, TIMER_RESTART);
}

void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev) {
    jm_side *jm = self->ctx;
    SIM_ASSERT(jm->w->run == run);
    rt_coord *co = coord_of(jm);
    switch (ev->kind) {
    case SIM_EV_START:
        if (co->started) {                         /* restarted after a crash */
            if (co->status == PIPE_FINISHED || co->status == PIPE_FAILED) break;
            failover(jm);
            break;
        }
        co->started = true;
        co->status = PIPE_RUNNING;
        arm_trigger(jm, jm->w->cfg.ckpt.interval_ns);
        break;
    case SIM_EV_IO_DONE:
        if ((ev->msg.a & 3) != IO_METADATA) break;
        if (co->recovering) {                      /* failover: the store's checkpoints are read */
            co->recovering = false;
            if (jm->w->cfg.bug == PIPE_BUG_RECOVER_DISCARDS) drop_unread(jm);   /* deliberate bug */
            restart(jm);
        } else {
            metadata_written(jm, ev);
        }
        break;
    case SIM_EV_MSG:
        on_msg(jm, &ev->msg, sim_payload(run, ev));
        break;
    case SIM_EV_LINK_DOWN: {                     /* a TaskManager connection broke */
        const sim_link *l = &jm->w->run->links[ev->aux];
        SIM_ASSERT(l->src < world_job(jm->w)->tasks_count);
        if (ev->gen > co->deploy_gen[l->src]) job_fail(jm, PIPE_FAIL_CONNECTION, l->src);   /* not a break we caused */
        break;
    }
    case SIM_EV_TIMER:
        if (ev->msg.a == TIMER_TRIGGER) {
            trigger(jm);
        } else if (ev->msg.a == TIMER_RESTART) {
            restart(jm);
        } else {
            SIM_ASSERT(ev->msg.a > TIMER_TIMEOUT_BASE);
            rt_slot *s = coord_pending_slot(jm, ev->msg.a - TIMER_TIMEOUT_BASE);
            if (s != NULL && co->status == PIPE_RUNNING) {
                jm->w->stats.timed_out++;
                REACHED(jm->w, CKPT_TIMED_OUT);
                abort_ckpt(jm, s, PIPE_CKPT_TIMED_OUT);
            }
        }
        break;
    default:
        break;
    }
}
