/* model/coord.c: the checkpoint coordinator and the job's restarts (the
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
#include "pipe_int.h"

#include <string.h>

static rt_coord *coord_of(pipeline *p) { return &p->coord; }

static void notify_all(pipeline *p, uint32_t type, uint64_t ckpt) {
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
        sim_msg m = { .type = type, .a = ckpt, .b = p->coord.epoch };
        link_send(p->run, p->coord.rpc_to_task[t], &m, 64);
    }
}

rt_slot *coord_pending_slot(pipeline *p, uint64_t ckpt) {
    for (uint32_t i = 0; i < p->slots_count; i++) {
        if (p->slots[i].ckpt == ckpt && !p->slots[i].complete) return &p->slots[i];
    }
    return NULL;
}

const rt_slot *coord_restore(const pipeline *p) {
    return p->coord.restore_slot == 0 ? NULL : &p->slots[p->coord.restore_slot - 1];
}

static void free_slot(pipeline *p, rt_slot *s) {
    snap_slot_release(p, s);                      /* its files' references go */
    s->ckpt = 0;
    s->complete = false;
    s->finalizing = false;
}

/* The deliberate bug delete-shared-file: a dropped checkpoint deletes the
 * files it wrote although later checkpoints still refer to them. */
static void drop_buggy(pipeline *p, rt_slot *s) {
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        if (c->count == 0) continue;
        uint64_t f = c->files[c->count - 1];
        while (store_alive(&p->files, f)) store_unref(&p->files, f);
    }
}

/* The deliberate bug FLINK-24611: an aborted checkpoint discards every
 * file its chains name, the shared ones of retained checkpoints too. */
static void discard_all(pipeline *p, rt_slot *s) {
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        for (uint32_t i = 0; i < c->count; i++) {
            while (store_alive(&p->files, c->files[i])) store_unref(&p->files, c->files[i]);
        }
    }
}

/* The deliberate bug FLINK-7783: the new coordinator reads the store
 * while it fails (a transient error a correct recovery retries through)
 * and removes the checkpoints it "could not read", every retained one
 * but the newest, discarding every file they name, shared ones too. */
static void drop_unread(pipeline *p) {
    rt_coord *co = &p->coord;
    if (p->run->devs[p->store_dev].fail.num == 0) return;   /* the store answered */
    while (co->completed_count > 1) {
        rt_slot *s = &p->slots[co->completed_order[0]];
        discard_all(p, s);
        free_slot(p, s);
        memmove(co->completed_order, co->completed_order + 1, sizeof(uint64_t) * --co->completed_count);
    }
}

static void history_end(pipeline *p, uint64_t ckpt, pipe_ckpt_end end) {
    if (ckpt - 1 < p->history_count) {            /* beyond the recorded ones: only noted */
        pipe_ckpt_rec *h = &p->history[ckpt - 1];
        SIM_ASSERT(h->end == PIPE_CKPT_PENDING);
        h->end = end;
        h->ended_ns = p->run->now_ns;
    }
    pipe_note(p, end == PIPE_CKPT_COMPLETED ? PIPE_EV_CKPT_COMPLETE : PIPE_EV_CKPT_ABORT, PIPE_NO_TASK, (uint32_t)end, ckpt);
}

/* A finished task will not see this checkpoint's barrier: ack for it with
 * its final state (Flink >= 1.14 keeps finished tasks in checkpoints). */
static void ack_finished(pipeline *p, rt_slot *s, uint32_t task) {
    if (s->acked[task]) return;
    REACHED(p, FINISHED_ACKED_FOR);
    const job *j = pipe_job(p);
    const job_task *jt = &j->tasks[task];
    const job_vertex *v = &j->vertices[jt->vertex];
    if (v->kind == JOB_SOURCE) {                  /* read to the end, as its FINISHED said */
        for (uint32_t part = jt->subtask; part < p->cfg.broker.partitions; part += v->parallelism) {
            s->offsets[part] = p->cfg.broker.records_per_partition;
        }
    }
    if (v->kind == JOB_SINK) sinktx_final_ack(p, &p->tasks[task], s->ckpt);   /* still task code: to move */
    uint64_t f = p->coord.final_file[task];
    if (f != 0 && store_alive(&p->files, f)) {
        store_ref(&p->files, f);
        s->chains[task] = (rt_chain){ .ckpt = s->ckpt, .count = 1, .files = { f } };
        s->files_shared++;
    }
    s->acked[task] = 1;
    s->acks++;
}

static void job_fail(pipeline *p, pipe_fail_cause why, uint32_t culprit);

static void abort_ckpt(pipeline *p, rt_slot *s, pipe_ckpt_end why) {
    uint64_t ckpt = s->ckpt;
    bool failure = why == PIPE_CKPT_DECLINED || why == PIPE_CKPT_TIMED_OUT;
    history_end(p, ckpt, why);
    if (failure && p->cfg.bug == PIPE_BUG_ABORT_DISCARDS_SHARED) discard_all(p, s);   /* deliberate bug */
    free_slot(p, s);
    p->coord.pending--;
    p->stats.aborted++;
    notify_all(p, MSG_ABORTED, ckpt);
    if (failure && ++p->coord.consecutive_failures > p->cfg.ckpt.tolerable_failures) {
        REACHED(p, TOLERABLE_EXCEEDED);
        job_fail(p, PIPE_FAIL_CHECKPOINTS, PIPE_NO_TASK);
    }
}

/* The checkpoint in slot idx joins the retained ones (the oldest goes
 * when `retained` are kept already) and is the one a restart restores. */
static void retain(pipeline *p, uint32_t idx) {
    rt_coord *co = coord_of(p);
    if (co->completed_count == p->cfg.ckpt.retained) {      /* drop the oldest retained */
        if (p->cfg.bug == PIPE_BUG_SHARED_DELETE) drop_buggy(p, &p->slots[co->completed_order[0]]);
        free_slot(p, &p->slots[co->completed_order[0]]);
        memmove(co->completed_order, co->completed_order + 1, sizeof(uint64_t) * --co->completed_count);
    }
    co->completed_order[co->completed_count++] = idx;
    co->restore_slot = idx + 1;
    if (p->cfg.bug == PIPE_BUG_RESTORE_OLDER) co->restore_slot = co->completed_order[0] + 1;   /* deliberate bug */
}

static void complete(pipeline *p, rt_slot *s) {
    rt_coord *co = coord_of(p);
    s->complete = true;
    s->finalizing = false;
    p->stats.bytes_written += s->bytes;
    history_end(p, s->ckpt, PIPE_CKPT_COMPLETED);
    co->pending--;
    co->consecutive_failures = 0;
    co->last_completed_ns = p->run->now_ns;
    p->stats.completed++;
    p->stats.last_completed = s->ckpt;
    REACHED(p, CKPT_COMPLETED);
    sim_time_ns d = p->run->now_ns - s->started_ns;
    p->stats.ckpt_duration_ns_sum += d;
    if (d > p->stats.ckpt_duration_ns_max) p->stats.ckpt_duration_ns_max = d;
    retain(p, (uint32_t)(s - p->slots));
    for (uint32_t i = 0; i < p->slots_count; i++) {          /* subsume older pending ones */
        rt_slot *o = &p->slots[i];
        if (o->ckpt != 0 && !o->complete && o->ckpt < s->ckpt) {
            p->stats.subsumed++;
            REACHED(p, CKPT_SUBSUMED);
            abort_ckpt(p, o, PIPE_CKPT_SUBSUMED);
        }
    }
    notify_all(p, MSG_COMPLETE, s->ckpt);
}

/* Every acknowledgement is in: with the durable backend the coordinator
 * writes the checkpoint's metadata to the store first (Flink's _metadata
 * file), and the checkpoint completes when that write succeeded. */
static void maybe_complete(pipeline *p, rt_slot *s) {
    uint32_t needed = pipe_job(p)->tasks_count;
    if (p->cfg.bug == PIPE_BUG_PARTIAL_ACKS) needed = (needed + 1) / 2;   /* deliberate bug: half will do */
    if (s->acks < needed || s->finalizing) return;
    if (p->cfg.state.backend != PIPE_BACKEND_DURABLE) {
        complete(p, s);
        return;
    }
    s->finalizing = true;
    uint64_t bytes = 1024 + (uint64_t)pipe_job(p)->tasks_count * 64;
    dev_write(p->run, p->store_dev, p->coord.actor, bytes, s->ckpt << 2 | IO_METADATA);
}

static void metadata_written(pipeline *p, const sim_event *ev) {
    rt_slot *s = coord_pending_slot(p, ev->msg.a >> 2);
    if (s == NULL || !s->finalizing || p->coord.status != PIPE_RUNNING) return;   /* aborted meanwhile */
    if (pipe_observed(p)) {
        pipe_event e = { .kind = PIPE_EV_METADATA, .task = PIPE_NO_TASK, .ckpt = s->ckpt, .chan = PIPE_NO_CHAN,
                         .ok = ev->gen != DEV_FAILED };
        pipe_note_ev(p, &e);
    }
    if (ev->gen == DEV_FAILED) {
        REACHED(p, METADATA_FAILED);
        p->stats.declined++;
        abort_ckpt(p, s, PIPE_CKPT_DECLINED);
        return;
    }
    complete(p, s);
}

static void arm_trigger(pipeline *p, sim_time_ns delay_ns) {
    rt_coord *co = coord_of(p);
    if (!p->cfg.ckpt.enabled || co->trigger_armed) return;
    co->trigger_armed = true;
    sim_timer_set(p->run, co->actor, delay_ns, TIMER_TRIGGER);
}

static void trigger(pipeline *p) {
    rt_coord *co = coord_of(p);
    const pipe_ckpt_cfg *cc = &p->cfg.ckpt;
    co->trigger_armed = false;
    if (co->status != PIPE_RUNNING || co->sources_running == 0) return;   /* re-armed on restart */
    sim_time_ns now = p->run->now_ns;
    if (p->stats.completed > 0 && now < co->last_completed_ns + cc->min_pause_ns) {
        REACHED(p, TRIGGER_MIN_PAUSE);
        arm_trigger(p, co->last_completed_ns + cc->min_pause_ns - now);   /* min pause after a completion */
        return;
    }
    if (co->pending >= cc->max_concurrent) {
        REACHED(p, TRIGGER_MAX_CONCURRENT);
        arm_trigger(p, cc->interval_ns);
        return;
    }
    rt_slot *s = NULL;
    for (uint32_t i = 0; i < p->slots_count && s == NULL; i++) {
        if (p->slots[i].ckpt == 0) s = &p->slots[i];
    }
    SIM_ASSERT(s != NULL);                       /* slots = retained + concurrent + 1 */
    s->ckpt = co->next_ckpt++;
    s->complete = false;
    s->started_ns = now;
    s->acks = 0;
    memset(s->acked, 0, pipe_job(p)->tasks_count);
    if (co->pending > 0) REACHED(p, CKPT_CONCURRENT);
    co->pending++;
    p->stats.triggered++;
    pipe_note(p, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, s->ckpt);
    if (p->history_count < PIPE_HISTORY_MAX && s->ckpt == p->history_count + 1) {
        p->history[p->history_count++] = (pipe_ckpt_rec){ .id = s->ckpt, .epoch = co->epoch, .triggered_ns = now };
    }
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
        if (co->finished[t]) {
            if (p->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT) ack_finished(p, s, t);   /* the bug: never */
        } else if (p->tasks[t].v->kind == JOB_SOURCE) {
            sim_msg m = { .type = MSG_TRIGGER, .a = s->ckpt, .b = co->epoch };
            link_send(p->run, co->rpc_to_task[t], &m, 64);
        }
    }
    sim_timer_set(p->run, co->actor, cc->timeout_ns, TIMER_TIMEOUT_BASE + s->ckpt);
    arm_trigger(p, cc->interval_ns);
}

/* The restart strategy: the delay before the next attempt, or false when it
 * gives up. */
static bool restart_delay(pipeline *p, sim_time_ns *delay_ns) {
    rt_coord *co = coord_of(p);
    const pipe_restart_cfg *r = &p->cfg.restart;
    sim_time_ns now = p->run->now_ns;
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
        if (co->exp_delay_ns != 0 && now - co->last_failure_ns > r->reset_ns) REACHED(p, EXPONENTIAL_RESET);
        if (co->exp_delay_ns == 0 || now - co->last_failure_ns > r->reset_ns) co->exp_delay_ns = r->initial_ns;
        *delay_ns = co->exp_delay_ns;
        co->exp_delay_ns = co->exp_delay_ns * r->multiplier_milli / 1000;
        if (co->exp_delay_ns > r->max_ns) co->exp_delay_ns = r->max_ns;
        co->last_failure_ns = now;
        return true;
    }
    return false;
}

static void reach_strategy(pipeline *p, bool again) {
    switch (p->cfg.restart.kind) {
    case PIPE_RESTART_NONE: REACHED(p, GIVE_UP_NONE); break;
    case PIPE_RESTART_FIXED_DELAY:
        if (again) REACHED(p, RESTART_FIXED_DELAY); else REACHED(p, GIVE_UP_FIXED_DELAY);
        break;
    case PIPE_RESTART_FAILURE_RATE:
        if (again) REACHED(p, RESTART_FAILURE_RATE); else REACHED(p, GIVE_UP_FAILURE_RATE);
        break;
    case PIPE_RESTART_EXPONENTIAL: REACHED(p, RESTART_EXPONENTIAL); break;
    }
}

/* Observers learn why and who (the run summary names the failing task);
 * the note changes nothing in the run. */
static void note_failed(pipeline *p, pipe_fail_cause why, uint32_t culprit) {
    if (!pipe_observed(p)) return;
    pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .task = PIPE_NO_TASK, .channel = why, .chan = PIPE_NO_CHAN,
                     .culprit = culprit };
    pipe_note_ev(p, &e);
}

static void job_fail(pipeline *p, pipe_fail_cause why, uint32_t culprit) {
    rt_coord *co = coord_of(p);
    if (co->status != PIPE_RUNNING) return;
    note_failed(p, why, culprit);
    /* The deliberate bug restore-from-pending: the newest triggered
     * checkpoint is kept for the restore although it never completed. */
    uint32_t keep = UINT32_MAX;
    for (uint32_t i = 0; i < p->slots_count && p->cfg.bug == PIPE_BUG_RESTORE_PENDING; i++) {
        const rt_slot *x = &p->slots[i];
        if (x->ckpt != 0 && !x->complete && (keep == UINT32_MAX || x->ckpt > p->slots[keep].ckpt)) keep = i;
    }
    for (uint32_t i = 0; i < p->slots_count; i++) {      /* pending checkpoints die with the attempt */
        if (p->slots[i].ckpt != 0 && !p->slots[i].complete) {
            REACHED(p, PENDING_LOST);
            history_end(p, p->slots[i].ckpt, PIPE_CKPT_JOB_FAILED);
            if (i != keep) free_slot(p, &p->slots[i]);
            p->stats.aborted++;
            p->stats.lost_with_job++;
        }
    }
    if (keep != UINT32_MAX) {
        p->slots[keep].complete = true;
        p->slots[keep].finalizing = false;
        retain(p, keep);
    }
    co->pending = 0;
    co->epoch++;
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) sim_actor_crash(p->run, p->tasks[t].actor);
    sim_time_ns delay;
    bool again = restart_delay(p, &delay);
    reach_strategy(p, again);
    if (!again) {
        co->status = PIPE_FAILED;
        sim_stop(p->run);
        return;
    }
    co->status = PIPE_RESTARTING;
    p->stats.restart_delay_ns_sum += delay;
    sim_timer_set(p->run, co->actor, delay, TIMER_RESTART);
}

static void restart(pipeline *p) {
    rt_coord *co = coord_of(p);
    SIM_ASSERT(co->status == PIPE_RESTARTING);
    const job *j = pipe_job(p);
    for (uint32_t t = 0; t < j->tasks_count; t++) {      /* every slot must be there */
        if (!p->run->machines[j->tasks[t].machine].up) {
            REACHED(p, RESTART_WAITS);
            /* Try again after the strategy's delay (its initial one for
             * exponential backoff), as a slot request waits for a
             * TaskManager to register; not a fixed second, which would
             * leave a healed job idle for most of it. */
            const pipe_restart_cfg *r = &p->cfg.restart;
            sim_time_ns delay = r->delay_ns > 0 ? r->delay_ns : r->initial_ns > 0 ? r->initial_ns : 10 * SIM_NS_PER_MS;
            sim_timer_set(p->run, co->actor, delay, TIMER_RESTART);   /* wait for resources */
            return;
        }
    }
    co->status = PIPE_RUNNING;
    p->stats.restarts++;
    memset(co->finished, 0, j->tasks_count);
    memset(co->final_file, 0, sizeof(uint64_t) * j->tasks_count);
    co->finished_count = 0;
    co->sources_running = 0;
    /* All down first (a task a machine restart woke up goes too), so no
     * redeployed task hears of a connection its old peers broke. */
    for (uint32_t t = 0; t < j->tasks_count; t++) sim_actor_crash(p->run, p->tasks[t].actor);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        uint32_t a = p->tasks[t].actor;
        co->sources_running += p->tasks[t].v->kind == JOB_SOURCE;
        sim_actor_restart(p->run, a);                /* START: task_reset from the restore slot */
        co->deploy_inc[t] = p->run->actors[a].inc;
        co->deploy_gen[t] = p->run->links[p->tasks[t].conn_to_coord].gen;
    }
    pipe_note(p, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0);
    arm_trigger(p, p->cfg.ckpt.interval_ns);
}

/* The checkpoint takes the task's keyed state as the ack names it, with
 * references of its own (the task drops its own when told the outcome). */
static void accept_ack(pipeline *p, rt_slot *s, uint32_t task, const msg_ack *a) {
    s->acked[task] = 1;
    s->acks++;
    if (a->chain.count == 0) return;
    for (uint32_t i = 0; i < a->chain.count; i++) {   /* the task holds them until told, unless a bug deleted one */
        if (store_alive(&p->files, a->chain.files[i])) store_ref(&p->files, a->chain.files[i]);
    }
    s->chains[task] = a->chain;
    s->files_new++;
    s->files_shared += a->chain.count - 1;
    s->bytes += a->bytes;
}

static void on_msg(pipeline *p, const sim_msg *m, const void *payload) {
    rt_coord *co = coord_of(p);
    uint64_t epoch = m->b >> 32;
    uint32_t task = (uint32_t)(m->b & 0xffffffffu);
    if (epoch != co->epoch) REACHED(p, COORD_OLD_ATTEMPT);
    if (epoch != co->epoch || co->status != PIPE_RUNNING) return;   /* an older attempt's */
    SIM_ASSERT(task < pipe_job(p)->tasks_count);
    rt_slot *s;
    switch (m->type) {
    case MSG_ACK:
        s = coord_pending_slot(p, m->a);
        if (s == NULL) REACHED(p, LATE_ACK);
        if (s == NULL || s->acked[task]) break;  /* late: aborted or subsumed meanwhile */
        SIM_ASSERT(payload != NULL);
        accept_ack(p, s, task, payload);
        maybe_complete(p, s);
        break;
    case MSG_DECLINE:
        s = coord_pending_slot(p, m->a);
        if (s == NULL) break;
        REACHED(p, CKPT_DECLINED);
        p->stats.declined++;
        abort_ckpt(p, s, PIPE_CKPT_DECLINED);
        break;
    case MSG_FAILED:
        job_fail(p, PIPE_FAIL_REPORTED, task);
        break;
    case MSG_FINISHED:
        if (co->finished[task]) break;
        co->finished[task] = 1;
        SIM_ASSERT(payload != NULL);
        co->final_file[task] = ((const msg_finished *)payload)->final_file;
        co->finished_count++;
        if (p->tasks[task].v->kind == JOB_SOURCE) co->sources_running--;
        /* The task triggered (or declined) every checkpoint up to m->a
         * itself and acknowledges those on its own. Pending ones after that
         * it never saw (a source that had finished when the trigger came,
         * a task whose inputs all ended without the barrier): acknowledge
         * for it with its final state, which is consistent with them. */
        for (uint32_t i = 0; i < p->slots_count && p->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT; i++) {
            s = &p->slots[i];
            if (s->ckpt == 0 || s->complete || s->ckpt <= m->a) continue;
            ack_finished(p, s, task);
            maybe_complete(p, s);
        }
        if (co->finished_count == pipe_job(p)->tasks_count) {
            /* The final checkpoint (FLIP-147): every task finished, its
             * final state is the job's; sinks commit what is left. */
            REACHED(p, FINAL_CHECKPOINT);
            for (uint32_t t = 0; t < pipe_job(p)->tasks_count && p->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT; t++) {
                if (p->tasks[t].v->kind == JOB_SINK) sinktx_commit(p, &p->tasks[t], UINT64_MAX);
            }
            co->status = PIPE_FINISHED;
            sim_stop(p->run);
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
static void failover(pipeline *p) {
    rt_coord *co = coord_of(p);
    const job *j = pipe_job(p);
    p->stats.failovers++;
    co->trigger_armed = false;
    co->epoch++;
    for (uint32_t i = 0; i < p->slots_count; i++) {
        rt_slot *s = &p->slots[i];
        if (s->ckpt == 0 || s->complete) continue;
        history_end(p, s->ckpt, PIPE_CKPT_JOB_FAILED);
        free_slot(p, s);
        p->stats.aborted++;
        p->stats.lost_with_job++;
    }
    co->pending = 0;
    /* A new JobMaster starts a new restart strategy: what the old one
     * counted (attempts, the failure-rate window, the backoff) died with it. */
    co->strategy_failures = 0;
    co->failure_count = 0;
    co->exp_delay_ns = 0;
    for (uint32_t t = 0; t < j->tasks_count; t++) sim_actor_crash(p->run, p->tasks[t].actor);
    co->status = PIPE_RESTARTING;
    pipe_note(p, PIPE_EV_COORD_FAILOVER, PIPE_NO_TASK, 0, 0);
    if (p->cfg.state.backend == PIPE_BACKEND_DURABLE) {
        REACHED(p, FAILOVER_DURABLE);
        co->recovering = true;                     /* read the completed checkpoints' metadata */
        dev_read(p->run, p->store_dev, co->actor, 1024 + (uint64_t)j->tasks_count * 64, IO_METADATA);
        return;
    }
    REACHED(p, FAILOVER_MEMORY);
    for (uint32_t i = 0; i < co->completed_count; i++) free_slot(p, &p->slots[co->completed_order[i]]);
    p->stats.checkpoints_lost += co->completed_count;
    co->completed_count = 0;
    co->restore_slot = 0;
    memset(co->final_file, 0, sizeof(uint64_t) * j->tasks_count);
    /* The tasks' own handles name files of the wiped heap: still cleared
     * here, not by a message (a step still to take). */
    for (uint32_t t = 0; t < j->tasks_count; t++) p->tasks[t].final_file = 0;
    store_wipe(&p->files);
    sim_timer_set(p->run, co->actor, p->cfg.rpc_latency_ns, TIMER_RESTART);
}

void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev) {
    pipeline *p = self->ctx;
    SIM_ASSERT(p->run == run);
    rt_coord *co = coord_of(p);
    switch (ev->kind) {
    case SIM_EV_START:
        if (co->started) {                         /* restarted after a crash */
            if (co->status == PIPE_FINISHED || co->status == PIPE_FAILED) break;
            failover(p);
            break;
        }
        co->started = true;
        co->status = PIPE_RUNNING;
        arm_trigger(p, p->cfg.ckpt.interval_ns);
        break;
    case SIM_EV_IO_DONE:
        if ((ev->msg.a & 3) != IO_METADATA) break;
        if (co->recovering) {                      /* failover: the store's checkpoints are read */
            co->recovering = false;
            if (p->cfg.bug == PIPE_BUG_RECOVER_DISCARDS) drop_unread(p);   /* deliberate bug */
            restart(p);
        } else {
            metadata_written(p, ev);
        }
        break;
    case SIM_EV_MSG:
        on_msg(p, &ev->msg, sim_payload(run, ev));
        break;
    case SIM_EV_LINK_DOWN: {                     /* a TaskManager connection broke */
        const sim_link *l = &p->run->links[ev->aux];
        SIM_ASSERT(l->src < pipe_job(p)->tasks_count);
        if (ev->gen > co->deploy_gen[l->src]) job_fail(p, PIPE_FAIL_CONNECTION, l->src);   /* not a break we caused */
        break;
    }
    case SIM_EV_TIMER:
        if (ev->msg.a == TIMER_TRIGGER) {
            trigger(p);
        } else if (ev->msg.a == TIMER_RESTART) {
            restart(p);
        } else {
            SIM_ASSERT(ev->msg.a > TIMER_TIMEOUT_BASE);
            rt_slot *s = coord_pending_slot(p, ev->msg.a - TIMER_TIMEOUT_BASE);
            if (s != NULL && co->status == PIPE_RUNNING) {
                p->stats.timed_out++;
                REACHED(p, CKPT_TIMED_OUT);
                abort_ckpt(p, s, PIPE_CKPT_TIMED_OUT);
            }
        }
        break;
    default:
        break;
    }
}
