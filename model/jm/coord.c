/* model/jm/coord.c: the checkpoint coordinator of the JobManager. One
 * actor, on a machine of its own; deployment, failure detection, restarts
 * and failover are model/jm/deploy.c's.
 *
 * Checkpoint life: trigger (slot taken, sources told, timeout armed) ->
 * acks from every task (finished tasks are acked for, with their final
 * state) -> complete (retained, older pending subsumed, tasks notified);
 * or -> abort on a decline or the timeout (slot freed, tasks notified;
 * counted against tolerable_failures). A slot's states (rt_slot_state)
 * and the only moves between them (coord_slot_to):
 *
 *             start_ckpt            maybe_complete (durable)
 *     FREE ------------> PENDING ------------------> FINALIZING
 *      ^  ^                 |  \ complete (memory)       |  complete
 *      |  | coord_end_slot  |   \---------------------> COMPLETED
 *      |  +-----------------+---------------------------+    |
 *      |      (declined, timed out, subsumed, the          |    | coord_free_slot
 *      |       attempt failed, a new coordinator)          |    | (past `retained`,
 *      +--------------------------------------------------(-----+  or forgotten)
 *      FREE --ha_recover--> COMPLETED (read back from the store)
 *
 * Invariants (coord_invariants, after every event of the coordinator):
 * a slot is free exactly when its ckpt is 0; no two slots hold one
 * checkpoint; the completed slots are exactly completed_order, oldest
 * first, at most `retained`; the checkpoint to restore is a completed
 * one; at most max-concurrent are pending.
 *
 * Job life (model/jm/deploy.c): RUNNING -> (a task reports a failure, a
 * connection breaks, a heartbeat times out, too many failed checkpoints)
 * -> RESTARTING: every task is cancelled by message, the attempt number
 * (epoch) goes up so messages of the old attempt are dropped, and once the
 * restart strategy's delay is over and every slot is free the next attempt
 * is deployed from the latest completed checkpoint -> RUNNING. FAILED
 * when the strategy gives up; FINISHED when every task has finished. */
#include "jm.h"

#include <stddef.h>

#include <string.h>

static rt_coord *coord_of(jm_side *jm) { return &jm->coord; }

void jm_send_slot(jm_side *jm, uint32_t i, sim_msg *m, uint32_t bytes, const void *data, uint32_t data_bytes) {
    SIM_ASSERT(proto_is_cmd(m->type) && m->b <= UINT32_MAX);
    m->b = proto_cmd_word(m->b, jm->w->run->links[jm->coord.conn_from_task[i]].gen);
    uint32_t link = jm->coord.rpc_to_task[i];
    bool ok = data != NULL ? link_send_payload(jm->w->run, link, m, bytes, data, data_bytes)
                           : link_send(jm->w->run, link, m, bytes);
    if (world_msgs(jm->w)) jm_note_send(jm, i / jm->coord.hosts, link, m, ok);
}

void jm_send(jm_side *jm, uint32_t t, sim_msg *m, uint32_t bytes, const void *data, uint32_t data_bytes) {
    jm_send_slot(jm, jm_slot_of(jm, t), m, bytes, data, data_bytes);
}

void jm_note_send(jm_side *jm, uint32_t task, uint32_t link, const sim_msg *m, bool ok) {
    pipe_event e = { .kind = PIPE_EV_SEND, .task = PIPE_NO_TASK, .chan = PIPE_NO_CHAN, .peer = task,
                     .link = link, .msg = m->type, .word_a = m->a, .word_b = m->b, .ok = ok,
                     .due_ns = ok ? jm->w->run->links[link].last_arrival_ns : 0 };
    e.epoch = jm->coord.epoch;
    world_note_msg(jm->w, &e);
}

void jm_note_recv(jm_side *jm, const sim_event *ev) {
    if (ev->aux == SIM_NO_LINK) return;
    uint32_t peer = (uint32_t)ev->msg.b;          /* a slot offer and a heartbeat name the instance */
    if (ev->msg.type == MSG_SLOT || ev->msg.type == MSG_HEARTBEAT) peer /= jm->coord.hosts;
    pipe_event e = { .kind = PIPE_EV_RECV, .task = PIPE_NO_TASK, .chan = PIPE_NO_CHAN, .peer = peer,
                     .link = ev->aux, .msg = ev->msg.type, .word_a = ev->msg.a, .word_b = ev->msg.b };
    e.epoch = jm->coord.epoch;
    world_note_msg(jm->w, &e);
}

void jm_note_ev(jm_side *jm, pipe_event *e) {
    e->epoch = jm->coord.epoch;
    world_note_ev(jm->w, e);
}

void jm_note(jm_side *jm, pipe_ev_kind kind, uint32_t task, uint64_t ckpt) {
    if (!world_observed(jm->w)) return;
    pipe_event e = { .kind = kind, .task = task, .ckpt = ckpt, .chan = PIPE_NO_CHAN };
    jm_note_ev(jm, &e);
}

const job_vertex *coord_vertex_of(const jm_side *jm, uint32_t task) {
    const job *j = world_job(jm->w);
    return &j->vertices[j->tasks[task].vertex];
}

static void notify_all(jm_side *jm, uint32_t type, uint64_t ckpt) {
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        if (!jm_active(jm, t)) continue;         /* not deployed in this attempt */
        sim_msg m = { .type = type, .a = ckpt, .b = jm->coord.attempt[t] };
        jm_send(jm, t, &m, 64, NULL, 0);
    }
}

rt_slot *coord_pending_slot(jm_side *jm, uint64_t ckpt) {
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        if (jm->slots[i].ckpt == ckpt && jm->slots[i].state != SLOT_COMPLETED) return &jm->slots[i];
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
        uint64_t f = s->cs_files[t];
        if (f != 0 && store_alive(&jm->w->files, f)) store_unref(&jm->w->files, f);
        s->cs_files[t] = 0;
    }
    s->bytes = s->files_new = s->files_shared = 0;
}

void coord_slot_to(rt_slot *s, rt_slot_state to) {
    static const bool legal[4][4] = {
        [SLOT_FREE] = { [SLOT_PENDING] = true, [SLOT_COMPLETED] = true },   /* triggered; read back (ha_recover) */
        [SLOT_PENDING] = { [SLOT_FREE] = true, [SLOT_FINALIZING] = true, [SLOT_COMPLETED] = true },
        [SLOT_FINALIZING] = { [SLOT_FREE] = true, [SLOT_COMPLETED] = true },
        [SLOT_COMPLETED] = { [SLOT_FREE] = true },
    };
    SIM_ASSERT(s->state <= SLOT_COMPLETED && to <= SLOT_COMPLETED);
    SIM_ASSERT(legal[s->state][to]);
    s->state = to;
}

void coord_free_slot(jm_side *jm, rt_slot *s) {
    SIM_ASSERT(s->ckpt != 0 && s->state != SLOT_FREE);
    if (s->state != SLOT_COMPLETED) (void)store_dir_release(&jm->w->files, s->ckpt);   /* it ended: its directory goes */
    coord_slot_release(jm, s);                      /* its files' references go */
    s->ckpt = 0;
    s->unclaimed = s->savepoint = s->canonical = s->drained = false;
    coord_slot_to(s, SLOT_FREE);
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

/* The deliberate bug FLINK-25872 (fixed for 1.16): a savepoint restored
 * in CLAIM mode with the changelog backend is the materialized part of
 * the checkpoints after it (ChangelogKeyedStateBackend.completeRestore),
 * but its state was registered as private, not shared: subsumed, it is
 * discarded outright, while they still refer to it. Pinned (LEGACY)
 * files are the user's and stay. */
static void discard_private(jm_side *jm, rt_slot *s) {
    if (!s->canonical || !jm->w->cfg.state.changelog) return;
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        for (uint32_t i = 0; i < c->count; i++) {
            uint64_t f = c->files[i];
            while (store_alive(&jm->w->files, f) && !store_pinned(&jm->w->files, f)) store_unref(&jm->w->files, f);
        }
    }
}

/* The deliberate bug FLINK-7783: the new coordinator reads the store
 * while it fails (a transient error a correct recovery retries through)
 * and removes the checkpoints it "could not read", every retained one
 * but the newest, discarding every file they name, shared ones too. */
void coord_drop_unread(jm_side *jm) {
    rt_coord *co = &jm->coord;
    if (jm->w->run->devs[jm->w->store_dev].fail.num == 0) return;   /* the store answered */
    while (co->completed_count > 1) {
        rt_slot *s = &jm->slots[co->completed_order[0]];
        ha_remove(jm, s->ckpt);
        discard_all(jm, s);
        coord_free_slot(jm, s);
        memmove(co->completed_order, co->completed_order + 1, sizeof(uint64_t) * --co->completed_count);
    }
}

void coord_history_end(jm_side *jm, uint64_t ckpt, pipe_ckpt_end end, ckr_why why) {
    if (ckpt - 1 < jm->history_count) {            /* beyond the recorded ones: only noted */
        pipe_ckpt_rec *h = &jm->history[ckpt - 1];
        SIM_ASSERT(h->end == PIPE_CKPT_PENDING);
        h->end = end;
        h->ended_ns = jm->w->run->now_ns;
    }
    if (!world_observed(jm->w)) return;
    bool savepoint = false;
    for (uint32_t i = 0; i < jm->slots_count; i++) savepoint |= jm->slots[i].ckpt == ckpt && jm->slots[i].savepoint;
    pipe_event e = { .kind = end == PIPE_CKPT_COMPLETED ? PIPE_EV_CKPT_COMPLETE : PIPE_EV_CKPT_ABORT,
                     .task = PIPE_NO_TASK, .end = end, .ckpt = ckpt, .chan = PIPE_NO_CHAN,
                     .count = (uint32_t)why, .savepoint = savepoint };
    jm_note_ev(jm, &e);
}

/* What became of a task's report of a checkpoint (reports draw lost and
 * dropped acknowledgements from these; the run reads nothing of it). */
static void note_receipt(jm_side *jm, pipe_ev_kind kind, uint32_t task, uint64_t ckpt, pipe_receipt what) {
    if (!world_observed(jm->w)) return;
    pipe_event e = { .kind = kind, .task = PIPE_NO_TASK, .receipt = what, .ckpt = ckpt, .chan = PIPE_NO_CHAN,
                     .culprit = task };
    jm_note_ev(jm, &e);
}

/* A finished task will not see this checkpoint's barrier: ack for it with
 * its final state (Flink >= 1.14 keeps finished tasks in checkpoints). */
static void ack_finished(jm_side *jm, rt_slot *s, uint32_t task) {
    if (s->acked[task]) return;
    REACHED(jm->w, FINISHED_ACKED_FOR);
    note_receipt(jm, PIPE_EV_ACK_RECEIVED, task, s->ckpt, PIPE_RCV_FOR_FINISHED);
    const job *j = world_job(jm->w);
    const job_task *jt = &j->tasks[task];
    const job_vertex *v = &j->vertices[jt->vertex];
    if (v->kind == JOB_SOURCE) {                  /* read to the end, as its FINISHED said */
        for (uint32_t part = 0; part < jm->w->brk.partitions; part++) {
            if (jm->coord.end_owner[part] != task) continue;
            s->offsets[part] = jm->coord.end_offsets[part];
            s->splits[part] = SPLIT_READ;
        }
    }
    uint64_t f = jm->coord.final_file[task];
    if (f != 0 && store_alive(&jm->w->files, f)) {
        store_ref(&jm->w->files, f);
        s->chains[task] = (rt_chain){ .ckpt = s->ckpt, .count = 1, .files = { f } };
        s->files_shared++;
    }
    s->acked[task] = 1;
    s->acks++;
}

/* A new attempt, or a new coordinator: no task has finished. */
void coord_forget_finished(jm_side *jm) {
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {   /* the coordinator's references go */
        uint64_t f = jm->coord.final_file[t];
        if (f != 0 && store_alive(&jm->w->files, f)) store_unref(&jm->w->files, f);
    }
    memset(jm->coord.final_file, 0, sizeof(uint64_t) * world_job(jm->w)->tasks_count);
    (void)store_dir_release(&jm->w->files, 0);   /* the finished tasks' final state of the attempt that ended */
    for (uint32_t part = 0; part < jm->w->brk.partitions; part++) jm->coord.end_owner[part] = UINT32_MAX;
}

/* Task t of a region that restarts runs again: what its FINISHED said
 * goes (its final state's file stays held by directory 0 until the job's
 * attempt ends: the other regions' finished tasks share it). */
void coord_forget_task(jm_side *jm, uint32_t t) {
    rt_coord *co = coord_of(jm);
    if (co->finished[t]) {
        co->finished[t] = 0;
        co->finished_count--;
        if (coord_vertex_of(jm, t)->kind == JOB_SOURCE) co->sources_running++;
    }
    uint64_t f = co->final_file[t];
    if (f != 0 && store_alive(&jm->w->files, f)) store_unref(&jm->w->files, f);
    co->final_file[t] = 0;
    for (uint32_t part = 0; part < jm->w->brk.partitions; part++) {
        if (co->end_owner[part] == t) co->end_owner[part] = UINT32_MAX;
    }
}


static pipe_ckpt_end end_of(ckr_why why) {
    switch (why) {
    case CKR_EXPIRED:      return PIPE_CKPT_TIMED_OUT;
    case CKR_SUBSUMED:     return PIPE_CKPT_SUBSUMED;
    case CKR_TASK_CLOSING: return PIPE_CKPT_TASK_FINISHED;
    case CKR_SUSPEND:      return PIPE_CKPT_JOB_FAILED;
    default:               return PIPE_CKPT_DECLINED;
    }
}

void coord_end_slot(jm_side *jm, rt_slot *s, ckr_why why) {
    SIM_ASSERT(s->state == SLOT_PENDING || s->state == SLOT_FINALIZING);
    if (s->savepoint) stop_savepoint_ended(jm, false, why == CKR_SUSPEND);
    coord_history_end(jm, s->ckpt, end_of(why), why);
    if (ckr_counted(why) && jm->w->cfg.bug == PIPE_BUG_ABORT_DISCARDS_SHARED) discard_all(jm, s);   /* deliberate bug */
    coord_free_slot(jm, s);
    jm->w->stats.aborted++;
    if (why == CKR_SUSPEND) jm->w->stats.lost_with_job++;
}

/* Checkpoint s ended without completing: its slot goes, the tasks are told. */
static void end_slot(jm_side *jm, rt_slot *s, ckr_why why) {
    uint64_t ckpt = s->ckpt;
    coord_end_slot(jm, s, why);
    notify_all(jm, MSG_ABORTED, ckpt);
}

static void start_ckpt(jm_side *jm, uint64_t id, bool savepoint);
static void complete(jm_side *jm, rt_slot *s);

/* A checkpoint ended and a queued request took its place. */
static void reach_dequeued(jm_side *jm, const ckr_acts *a) {
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->items[i].kind == CKR_TRIGGER) REACHED(jm->w, QUEUED_TRIGGERED);
    }
}

/* Carry out what the rules decided (model/flow/ckrules.h), in order. */
static void run_acts(jm_side *jm, const ckr_acts *a) {
    uint64_t completed = 0;                       /* told once the older ones are subsumed, as Flink does */
    for (uint32_t i = 0; i < a->count; i++) {
        const ckr_act *x = &a->items[i];
        if (completed != 0 && !(x->kind == CKR_ABORT && x->why == CKR_SUBSUMED)) {
            notify_all(jm, MSG_COMPLETE, completed);
            completed = 0;
        }
        switch (x->kind) {
        case CKR_ARM:
            sim_timer_set(jm->w->run, jm->coord.actor, (sim_time_ns)x->at - jm->w->run->now_ns,
                          (uint64_t)x->gen << 32 | TIMER_TRIGGER);
            break;
        case CKR_TRIGGER: start_ckpt(jm, x->id, x->savepoint); break;
        case CKR_COMPLETE:
            complete(jm, coord_pending_slot(jm, x->id));
            completed = x->id;
            break;
        case CKR_ABORT: {
            rt_slot *s = coord_pending_slot(jm, x->id);
            SIM_ASSERT(s != NULL);
            if (x->why == CKR_SUBSUMED) {
                jm->w->stats.subsumed++;
                REACHED(jm->w, CKPT_SUBSUMED);
            } else if (x->why == CKR_EXPIRED) {
                jm->w->stats.timed_out++;
                REACHED(jm->w, CKPT_TIMED_OUT);
            }
            end_slot(jm, s, x->why);
            break;
        }
        case CKR_DROP:
            if (x->why == CKR_MIN_PAUSE) REACHED(jm->w, TRIGGER_MIN_PAUSE);
            if (x->why == CKR_NOT_RUNNING) REACHED(jm->w, TRIGGER_NOT_RUNNING);
            break;
        case CKR_FAIL_JOB:
            REACHED(jm->w, TOLERABLE_EXCEEDED);
            if (jm->w->cfg.bug == PIPE_BUG_FAILURE_COUNT_KEPT) {   /* deliberate bug: the count stays past the limit */
                jm->coord.sched.fm.failures = jm->coord.sched.fm.tolerable;
            }
            deploy_job_fail(jm, PIPE_FAIL_CHECKPOINTS, PIPE_NO_TASK);   /* failGlobal: every task */
            break;
        }
    }
    if (completed != 0) notify_all(jm, MSG_COMPLETE, completed);
}

/* Whether a checkpoint can start now: the tasks to trigger and to wait
 * for all run (Flink's NOT_ALL_REQUIRED_TASKS_RUNNING otherwise). */
bool coord_tasks_ready(jm_side *jm) {
    const rt_coord *co = &jm->coord;
    if (co->status != PIPE_RUNNING || co->region_restart || co->finished_count == co->active_count) return false;
    if (jm->w->cfg.ckpt.finished_tasks_off && co->finished_count > 0) {   /* Flink <= 1.13: not every task runs */
        REACHED(jm->w, TRIGGER_SKIP_FINISHED);
        return false;
    }
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        if (jm_active(jm, t) && !co->finished[t] && !co->running[t]) return false;
    }
    return true;
}

/* Checkpoint s is aborted for `why`, by `task` (a decline) or the
 * coordinator: the rules count it and try the queued requests. */
static void abort_ckpt(jm_side *jm, rt_slot *s, ckr_why why, uint32_t task) {
    ckr_acts a = { .count = 0 };
    ckr_abort(&jm->coord.sched, s->ckpt, why, task, (int64_t)jm->w->run->now_ns, coord_tasks_ready(jm), &a);
    reach_dequeued(jm, &a);
    run_acts(jm, &a);
}

sim_time_ns coord_draw_ns(jm_side *jm, sim_time_ns lo, sim_time_ns hi) {
    SIM_ASSERT(lo <= hi);
    sim_run *run = jm->w->run;
    rng *stream = &run->actors[jm->coord.actor].rng;
    uint64_t span = hi - lo + 1, v;
    if (span <= UINT32_MAX) {
        v = sim_choose(run, stream, SIM_CHOICE_DELAY, (uint32_t)span);
    } else {
        uint64_t top = sim_choose(run, stream, SIM_CHOICE_DELAY, 0);
        v = (top << 32 | sim_choose(run, stream, SIM_CHOICE_DELAY, 0)) % span;
    }
    return lo + v;
}

void coord_rules_init(jm_side *jm, uint64_t next_id) {
    const pipe_ckpt_cfg *cc = &jm->w->cfg.ckpt;
    ckr_cfg c = { .interval = (int64_t)cc->interval_ns, .min_pause = (int64_t)cc->min_pause_ns,
                  .timeout = (int64_t)cc->timeout_ns, .max_concurrent = cc->max_concurrent,
                  .tolerable = cc->tolerable_failures };
    ckr_init(&jm->coord.sched, &c, next_id);
}

/* A stop's savepoint: the scheduler stopped, nothing pending (the caller
 * ended it), the tasks all running (coord_tasks_ready). */
void coord_trigger_savepoint(jm_side *jm) {
    ckr_acts a = { .count = 0 };
    ckr_savepoint(&jm->coord.sched, (int64_t)jm->w->run->now_ns, coord_tasks_ready(jm), &a);
    run_acts(jm, &a);
}

void coord_start_scheduler(jm_side *jm) {
    if (!jm->w->cfg.ckpt.enabled) return;
    int64_t lo, hi;
    ckr_init_delay_range(&jm->coord.sched, &lo, &hi);
    ckr_acts a = { .count = 0 };
    ckr_start(&jm->coord.sched, (int64_t)jm->w->run->now_ns, (int64_t)coord_draw_ns(jm, (sim_time_ns)lo, (sim_time_ns)hi), &a);
    for (uint32_t i = 0; i < a.count; i++) SIM_ASSERT(a.items[i].kind == CKR_ARM);   /* stopped before: nothing pending */
    run_acts(jm, &a);
}

void coord_stop_scheduler(jm_side *jm) {
    ckr_acts a = { .count = 0 };
    ckr_stop(&jm->coord.sched, &a);               /* its SUSPEND aborts are the caller's drop_pending */
}

/* The checkpoint in slot idx joins the retained ones (the oldest goes
 * when `retained` are kept already) and is the one a restart restores. */
void coord_retain(jm_side *jm, uint32_t idx) {
    rt_coord *co = coord_of(jm);
    if (co->completed_count == jm->w->cfg.ckpt.retained) {      /* drop the oldest retained */
        if (jm->w->cfg.bug == PIPE_BUG_SHARED_DELETE) drop_buggy(jm, &jm->slots[co->completed_order[0]]);
        if (jm->w->cfg.bug == PIPE_BUG_CLAIM_PRIVATE_DISCARDED) discard_private(jm, &jm->slots[co->completed_order[0]]);
        ha_remove(jm, jm->slots[co->completed_order[0]].ckpt);
        coord_free_slot(jm, &jm->slots[co->completed_order[0]]);
        memmove(co->completed_order, co->completed_order + 1, sizeof(uint64_t) * --co->completed_count);
    }
    co->completed_order[co->completed_count++] = idx;
    co->restore_slot = idx + 1;
    co->force_full = false;                       /* addCompletedCheckpointToStoreAndSubsumeOldest */
    if (jm->w->cfg.bug == PIPE_BUG_RESTORE_OLDER) co->restore_slot = co->completed_order[0] + 1;   /* deliberate bug */
}

static void complete(jm_side *jm, rt_slot *s) {
    SIM_ASSERT(s != NULL);
    coord_slot_to(s, SLOT_COMPLETED);
    jm->w->stats.bytes_written += s->bytes;
    coord_history_end(jm, s->ckpt, PIPE_CKPT_COMPLETED, 0);
    jm->w->stats.completed++;
    jm->w->stats.last_completed = s->ckpt;
    REACHED(jm->w, CKPT_COMPLETED);
    sim_time_ns d = jm->w->run->now_ns - s->started_ns;
    jm->w->stats.ckpt_duration_ns_sum += d;
    if (d > jm->w->stats.ckpt_duration_ns_max) jm->w->stats.ckpt_duration_ns_max = d;
    (void)store_dir_release(&jm->w->files, s->ckpt);   /* it holds its own references now */
    if (s->savepoint) {                           /* not in the completed-checkpoint store (FLINK-25191) */
        jm->coord.savepoint_slot = (uint64_t)(s - jm->slots) + 1;
        stop_savepoint_ended(jm, true, false);
        return;
    }
    coord_retain(jm, (uint32_t)(s - jm->slots));
}

/* Checkpoint s is complete: the rules subsume the older pending ones
 * and try the queued requests. */
static void completed(jm_side *jm, rt_slot *s) {
    ckr_acts a = { .count = 0 };
    ckr_complete(&jm->coord.sched, s->ckpt, (int64_t)jm->w->run->now_ns, coord_tasks_ready(jm), &a);
    reach_dequeued(jm, &a);
    run_acts(jm, &a);
}

/* Every acknowledgement is in: with the durable backend the coordinator
 * writes the checkpoint's metadata to the store first (Flink's _metadata
 * file), and the checkpoint completes when that write succeeded. */
static void maybe_complete(jm_side *jm, rt_slot *s) {
    uint32_t needed = jm->coord.active_count;     /* the tasks of the attempt's parallelism */
    if (jm->w->cfg.bug == PIPE_BUG_PARTIAL_ACKS) needed = (needed + 1) / 2;   /* deliberate bug: half will do */
    if (s->acks < needed || s->state == SLOT_FINALIZING) return;
    if (deploy_assign_unacked(jm, s->ckpt)) {     /* FLINK-21996: its enumerator state is not the readers' yet */
        REACHED(jm->w, COMPLETION_WAITS_ASSIGN);
        return;
    }
    if (jm->w->cfg.state.backend != PIPE_BACKEND_DURABLE) {
        completed(jm, s);
        return;
    }
    coord_slot_to(s, SLOT_FINALIZING);
    uint64_t bytes = 1024 + (uint64_t)world_job(jm->w)->tasks_count * 64;
    dev_write(jm->w->run, jm->w->store_dev, jm->coord.actor, bytes, s->ckpt << 2 | IO_METADATA);
}

/* The deliberate bug FLINK-22494: the checkpoint's own files are deleted
 * as for a failed checkpoint, though the store may point at them. */
static void discard_own(jm_side *jm, const rt_slot *s) {
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        const rt_chain *c = &s->chains[t];
        uint64_t own[2] = { c->count > 0 ? c->files[c->count - 1] : 0, s->cs_files[t] };
        for (uint32_t i = 0; i < 2; i++) {
            while (own[i] != 0 && store_alive(&jm->w->files, own[i])) store_unref(&jm->w->files, own[i]);
        }
    }
}

/* The metadata write ended ambiguously: the checkpoint may be in the
 * store or not. Since FLINK-22494 (1.14: PossibleInconsistentStateException)
 * the coordinator discards none of its files (the store may name them; it
 * holds its own references, ha.c) and aborts it as
 * FINALIZE_CHECKPOINT_FAILURE (CheckpointCoordinator's
 * addCompletedCheckpointToStoreAndSubsumeOldest), which counts against the
 * tolerable failed checkpoints (since 1.18, FLINK-32347): the job runs on,
 * or fails over globally to the coordinator's own latest completed one
 * (DefaultCompletedCheckpointStore lists a checkpoint only once the
 * store's write returned). A later coordinator reads the store back, this
 * checkpoint perhaps included. The deliberate bug deletes its files as
 * for a failed write. */
static void metadata_unknown(jm_side *jm, rt_slot *s) {
    REACHED(jm->w, METADATA_AMBIGUOUS);
    if (jm->w->cfg.bug == PIPE_BUG_HA_DISCARD) discard_own(jm, s);   /* deliberate bug */
    jm->w->stats.declined++;
    abort_ckpt(jm, s, CKR_FINALIZE_FAILED, CKR_NO_TASK);
}

void coord_retry_completion(jm_side *jm) {
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        rt_slot *s = &jm->slots[i];
        if (s->state == SLOT_PENDING || s->state == SLOT_FINALIZING) maybe_complete(jm, s);
    }
}

static void metadata_written(jm_side *jm, const sim_event *ev) {
    rt_slot *s = coord_pending_slot(jm, ev->msg.a >> 2);
    if (s == NULL || s->state != SLOT_FINALIZING || jm->coord.status != PIPE_RUNNING) return;   /* aborted meanwhile */
    bool to_ha = ev->aux == jm->w->ha_dev;
    bool failed = ev->gen == DEV_FAILED || (ev->gen == DEV_AMBIGUOUS && !to_ha);   /* no file, no pointer */
    if (world_observed(jm->w) && (failed || to_ha)) {
        pipe_event e = { .kind = PIPE_EV_METADATA, .task = PIPE_NO_TASK, .ckpt = s->ckpt, .chan = PIPE_NO_CHAN,
                         .ok = !failed, .ambiguous = !failed && ev->gen == DEV_AMBIGUOUS };
        jm_note_ev(jm, &e);
    }
    if (failed) {
        REACHED(jm->w, METADATA_FAILED);
        jm->w->stats.declined++;
        abort_ckpt(jm, s, CKR_FINALIZE_FAILED, CKR_NO_TASK);
        return;
    }
    if (!to_ha && s->savepoint) {                 /* a savepoint's _metadata is all: no store holds it (FLINK-25191) */
        completed(jm, s);
        return;
    }
    if (!to_ha) {                                 /* the _metadata file is written: now the pointer */
        dev_write(jm->w->run, jm->w->ha_dev, jm->coord.actor, 256, s->ckpt << 2 | IO_METADATA);
        return;
    }
    ha_put(jm, s);                                /* done or ambiguous: the store has it */
    if (ev->gen == DEV_AMBIGUOUS) {
        metadata_unknown(jm, s);
        return;
    }
    completed(jm, s);
}

/* The timer of the earliest deadline among the pending checkpoints, if
 * none is armed (a later one is armed when it fires). */
static void arm_timeout(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    if (co->timeout_armed || co->status != PIPE_RUNNING) return;   /* a restart drops what is pending */
    int64_t due = ckr_next_deadline(&co->sched);
    if (due == INT64_MAX) return;
    co->timeout_armed = true;
    sim_time_ns now = jm->w->run->now_ns;
    sim_timer_set(jm->w->run, co->actor, (sim_time_ns)due > now ? (sim_time_ns)due - now : 0, TIMER_TIMEOUT);
}

/* Pending checkpoints past their deadline expire, oldest first. */
static void timeouts(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    co->timeout_armed = false;
    if (co->status != PIPE_RUNNING) return;
    ckr_acts a = { .count = 0 };
    ckr_expire(&co->sched, (int64_t)jm->w->run->now_ns, coord_tasks_ready(jm), &a);
    run_acts(jm, &a);
    arm_timeout(jm);
}

/* Whether every task upstream of t finished (the coordinator's knowledge:
 * their FINISHED messages). */
static bool upstream_finished(const jm_side *jm, uint32_t t) {
    const job *j = world_job(jm->w);
    const job_task *jt = &j->tasks[t];
    for (uint32_t i = 0; i < jt->in_count; i++) {
        uint32_t up = j->chans[j->in_chan[jt->in_first + i]].producer;
        if (!jm->coord.finished[up] && jm_active(jm, up)) return false;
    }
    return true;
}

/* The running tasks that are no source and whose upstream all finished:
 * a checkpoint starts at them too (the observers are told how many). */
static uint32_t inner_starts(const jm_side *jm) {
    uint32_t n = 0;
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        n += jm_active(jm, t) && !jm->coord.finished[t] && coord_vertex_of(jm, t)->kind != JOB_SOURCE &&
             upstream_finished(jm, t);
    }
    return n;
}

/* Who starts a checkpoint: the running tasks with no running task
 * upstream (FLIP-147: the sources, and once tasks finish, the first
 * running tasks below them); the finished ones are acknowledged for. */
static void trigger_tasks(jm_side *jm, rt_slot *s) {
    rt_coord *co = coord_of(jm);
    if (co->force_full && !s->savepoint) REACHED(jm->w, FULL_FORCED);
    for (uint32_t t = 0; t < world_job(jm->w)->tasks_count; t++) {
        if (!jm_active(jm, t)) continue;         /* above the attempt's parallelism: no part of it */
        if (co->finished[t]) {
            if (jm->w->cfg.bug != PIPE_BUG_NO_FINAL_CHECKPOINT) ack_finished(jm, s, t);   /* the bug: never */
        } else if (coord_vertex_of(jm, t)->kind == JOB_SOURCE || upstream_finished(jm, t)) {
            sim_msg m = { .type = MSG_TRIGGER, .a = s->ckpt, .b = co->attempt[t] };
            bool drain = s->savepoint && co->halting != 0 && jm->w->cfg.stops[co->halting - 1].drain;
            msg_trigger ts = { .timestamp_ns = s->started_ns, .type = drain ? PROTO_CK_TERMINATE
                                                                     : s->savepoint ? PROTO_CK_SUSPEND
                                                                     : jm->coord.force_full ? PROTO_CK_FULL
                                                                                            : PROTO_CK_CHECKPOINT };
            jm_send(jm, t, &m, 64, &ts, sizeof ts);
        }
    }
}

/* The periodic trigger armed as gen fired (CheckpointCoordinator's
 * ScheduledTrigger): a request for the rules. */
static void fire(jm_side *jm, uint32_t gen) {
    rt_coord *co = coord_of(jm);
    if (co->status == PIPE_FINISHED || co->status == PIPE_FAILED) return;
    uint32_t queued = co->sched.queued;
    ckr_acts a = { .count = 0 };
    ckr_fire(&co->sched, (int64_t)jm->w->run->now_ns, gen, coord_tasks_ready(jm), &a);
    if (co->sched.queued > queued) REACHED(jm->w, TRIGGER_MAX_CONCURRENT);   /* it waits in the queue */
    run_acts(jm, &a);
}

/* The rules triggered checkpoint id (a stop's savepoint, or a
 * checkpoint): a slot takes it, the tasks that start it are told. */
static void start_ckpt(jm_side *jm, uint64_t id, bool savepoint) {
    rt_coord *co = coord_of(jm);
    sim_time_ns now = jm->w->run->now_ns;
    rt_slot *s = NULL;
    for (uint32_t i = 0; i < jm->slots_count && s == NULL; i++) {
        if (jm->slots[i].state == SLOT_FREE) s = &jm->slots[i];
    }
    SIM_ASSERT(s != NULL);                       /* slots = retained + concurrent + 1 */
    s->ckpt = id;
    s->savepoint = s->canonical = savepoint;      /* the savepoint format's default (FLIP-203) */
    /* Drained: a drain's savepoint, and every checkpoint of a job resumed
     * from one (its sources ended their input there, FLIP-147's finished
     * tasks): a restore from any of them ends the input where it did. */
    const rt_slot *from = coord_restore(jm);
    s->drained = (savepoint && co->halting != 0 && jm->w->cfg.stops[co->halting - 1].drain) ||
                 (from != NULL && from->drained);
    coord_slot_to(s, SLOT_PENDING);
    s->started_ns = now;
    s->acks = 0;
    memset(s->acked, 0, world_job(jm->w)->tasks_count);
    for (uint32_t v = 0; v < world_job(jm->w)->vertices_count; v++) s->par[v] = (uint16_t)co->par[v];
    for (uint32_t part = 0; part < jm->w->brk.partitions; part++) {   /* the enumerator checkpoints first */
        s->splits[part] = co->assigned[part] ? SPLIT_ASSIGNED : SPLIT_FREE;
        s->offsets[part] = 0;
    }
    if (co->sched.pending_count > 1) REACHED(jm->w, CKPT_CONCURRENT);
    jm->w->stats.triggered++;
    if (world_observed(jm->w)) {
        pipe_event e = { .kind = PIPE_EV_CKPT_START, .task = PIPE_NO_TASK, .ckpt = s->ckpt, .chan = PIPE_NO_CHAN,
                         .inner = co->finished_count > 0 ? inner_starts(jm) : 0, .savepoint = savepoint };
        jm_note_ev(jm, &e);
    }
    if (jm->history_count < PIPE_HISTORY_MAX && s->ckpt == jm->history_count + 1) {
        jm->history[jm->history_count++] = (pipe_ckpt_rec){ .id = s->ckpt, .epoch = co->epoch, .triggered_ns = now };
    }
    trigger_tasks(jm, s);
    arm_timeout(jm);
}






/* The checkpoint takes the task's keyed state as the ack names it, with
 * references of its own (the task drops its own when told the outcome). */
static void accept_ack(jm_side *jm, rt_slot *s, uint32_t task, const msg_ack *a) {
    s->acked[task] = 1;
    s->acks++;
    for (uint32_t i = 0; i < a->offsets_count; i++) {
        s->offsets[a->offsets[i].partition] = a->offsets[i].next;
        s->splits[a->offsets[i].partition] = SPLIT_READ;
    }
    if (a->cs_file != 0 && store_alive(&jm->w->files, a->cs_file)) {   /* the task holds it until told */
        store_ref(&jm->w->files, a->cs_file);
        s->cs_files[task] = a->cs_file;
        s->bytes += a->cs_bytes;
    }
    if (a->chain.count == 0) return;
    for (uint32_t i = 0; i < a->chain.count; i++) {   /* the task holds them until told, unless a bug deleted one */
        if (store_alive(&jm->w->files, a->chain.files[i])) store_ref(&jm->w->files, a->chain.files[i]);
    }
    s->chains[task] = a->chain;
    s->files_new++;
    s->files_shared += a->chain.count - 1;
    s->bytes += a->bytes;
}

/* Whether a running task is downstream of t (the coordinator's view). */
static bool feeds_running(const jm_side *jm, uint32_t t) {
    const job *j = world_job(jm->w);
    const job_task *jt = &j->tasks[t];
    for (uint32_t i = 0; i < jt->out_count; i++) {
        uint32_t down = j->chans[j->out_chan[jt->out_first + i]].consumer;
        if (!jm->coord.finished[down] && jm_active(jm, down)) return true;
    }
    return false;
}

/* Task `task` finished; it triggered (or declined) every checkpoint up to
 * `seen` itself and acknowledges those on its own. Pending ones after
 * that it never saw: its final state is consistent with them, so the
 * coordinator acknowledges them for it, unless a running task below it
 * would then wait for a barrier that never comes (it finished without
 * passing one on, and that task may have no other way to learn of the
 * checkpoint): then the checkpoint is aborted, and the next one starts
 * at the tasks whose upstream all finished (FLIP-147). Flink < 1.14
 * (`finished-tasks off`) never acknowledges for a finished task. */
static void unseen_by_finished(jm_side *jm, uint32_t task, uint64_t seen) {
    if (jm->w->cfg.bug == PIPE_BUG_NO_FINAL_CHECKPOINT || jm->w->cfg.ckpt.finished_tasks_off) return;
    bool stranded = feeds_running(jm, task);
    /* The checkpoints pending now: one a queued request triggers meanwhile
     * knows the task finished (trigger_tasks acknowledged for it). */
    uint64_t ids[CKR_PENDING_MAX];
    uint32_t n = 0;
    for (uint32_t i = 0; i < jm->coord.sched.pending_count; i++) {
        if (jm->coord.sched.pending[i].id > seen) ids[n++] = jm->coord.sched.pending[i].id;
    }
    for (uint32_t k = 0; k < n; k++) {
        rt_slot *s = coord_pending_slot(jm, ids[k]);
        if (s == NULL) continue;                  /* subsumed or aborted by an earlier one of these */
        if (stranded) {
            REACHED(jm->w, CKPT_TASK_FINISHED);
            jm->w->stats.aborted_task_finished++;
            abort_ckpt(jm, s, CKR_TASK_CLOSING, CKR_NO_TASK);
            continue;
        }
        ack_finished(jm, s, task);
        maybe_complete(jm, s);
    }
}

/* What a FINISHED message says: the task's final state, and where a
 * source ended in each of its partitions. */
static void finished_from(jm_side *jm, uint32_t task, const msg_finished *f) {
    if (f->final_file != 0 && store_alive(&jm->w->files, f->final_file)) {   /* its own reference */
        store_ref(&jm->w->files, f->final_file);
        jm->coord.final_file[task] = f->final_file;
    }
    SIM_ASSERT(f->offsets_count <= PROTO_OFFSETS_MAX);
    for (uint32_t i = 0; i < f->offsets_count; i++) {
        jm->coord.end_offsets[f->offsets[i].partition] = f->offsets[i].next;
        jm->coord.end_owner[f->offsets[i].partition] = task;
    }
}

static void on_msg(jm_side *jm, const sim_msg *m, const void *payload) {
    rt_coord *co = coord_of(jm);
    if (deploy_on_msg(jm, m)) return;            /* slots, heartbeats, confirmations */
    uint64_t epoch = m->b >> 32;
    uint32_t task = (uint32_t)(m->b & 0xffffffffu);
    SIM_ASSERT(task < world_job(jm->w)->tasks_count);
    if (epoch != co->attempt[task]) {             /* the task's attempt: other regions' may be older */
        REACHED(jm->w, COORD_OLD_ATTEMPT);
        jm->w->stats.fenced_rpcs++;
    }
    bool stale = epoch != co->attempt[task] && jm->w->cfg.bug != PIPE_BUG_NO_FENCING;   /* the bug: taken */
    pipe_ev_kind report = m->type == MSG_ACK ? PIPE_EV_ACK_RECEIVED : PIPE_EV_DECLINE_RECEIVED;
    bool is_report = m->type == MSG_ACK || m->type == MSG_DECLINE;
    if (stale || co->status != PIPE_RUNNING) {   /* an older attempt's */
        if (is_report) note_receipt(jm, report, task, m->a, stale ? PIPE_RCV_FENCED : PIPE_RCV_RESTARTING);
        return;
    }
    rt_slot *s;
    switch (m->type) {
    case MSG_ACK:
        s = coord_pending_slot(jm, m->a);
        if (s == NULL) REACHED(jm->w, LATE_ACK);
        note_receipt(jm, report, task, m->a, s == NULL ? PIPE_RCV_LATE : s->acked[task] ? PIPE_RCV_REPEATED : PIPE_RCV_COUNTED);
        if (s == NULL || s->acked[task]) break;  /* late: aborted or subsumed meanwhile */
        SIM_ASSERT(payload != NULL);
        accept_ack(jm, s, task, payload);
        maybe_complete(jm, s);
        break;
    case MSG_DECLINE:
        s = coord_pending_slot(jm, m->a);
        note_receipt(jm, report, task, m->a, s == NULL ? PIPE_RCV_LATE : PIPE_RCV_COUNTED);
        if (s == NULL) break;
        REACHED(jm->w, CKPT_DECLINED);
        jm->w->stats.declined++;
        SIM_ASSERT(payload != NULL);
        abort_ckpt(jm, s, (ckr_why)((const msg_decline *)payload)->why, task);
        break;
    case MSG_FAILED:
        co->report_epoch = epoch;
        deploy_job_fail(jm, m->a == MSG_FAILED_THREW ? PIPE_FAIL_THREW : PIPE_FAIL_REPORTED, task);
        break;
    case MSG_FINISHED:
        if (co->finished[task]) break;
        co->finished[task] = 1;
        SIM_ASSERT(payload != NULL);
        finished_from(jm, task, payload);
        co->finished_count++;
        if (coord_vertex_of(jm, task)->kind == JOB_SOURCE) co->sources_running--;
        unseen_by_finished(jm, task, m->a);
        if (co->finished_count == co->active_count) {
            REACHED(jm->w, FINAL_CHECKPOINT);
            deploy_job_finished(jm);
        }
        break;
    default:
        SIM_ASSERT(!"unexpected message at the coordinator");
    }
}


void coord_invariants(const jm_side *jm) {
    const rt_coord *co = &jm->coord;
    uint32_t pending = 0, completed = 0;
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        const rt_slot *s = &jm->slots[i];
        SIM_ASSERT((s->state == SLOT_FREE) == (s->ckpt == 0));
        SIM_ASSERT(s->acks <= world_job(jm->w)->tasks_count);
        pending += s->state == SLOT_PENDING || s->state == SLOT_FINALIZING;
        completed += s->state == SLOT_COMPLETED;
        for (uint32_t k = i + 1; k < jm->slots_count && s->ckpt != 0; k++) SIM_ASSERT(jm->slots[k].ckpt != s->ckpt);
    }
    completed -= co->savepoint_slot != 0 && jm->slots[co->savepoint_slot - 1].state == SLOT_COMPLETED;
    SIM_ASSERT(co->savepoint_slot == 0 || jm->slots[co->savepoint_slot - 1].savepoint);
    SIM_ASSERT(completed == co->completed_count && completed <= jm->w->cfg.ckpt.retained);
    for (uint32_t i = 0; i < co->completed_count; i++) {     /* oldest first */
        const rt_slot *s = &jm->slots[co->completed_order[i]];
        SIM_ASSERT(s->state == SLOT_COMPLETED);
        SIM_ASSERT(i == 0 || jm->slots[co->completed_order[i - 1]].ckpt < s->ckpt);
    }
    SIM_ASSERT(co->restore_slot == 0 || jm->slots[co->restore_slot - 1].state == SLOT_COMPLETED);
    SIM_ASSERT(pending <= jm->w->cfg.ckpt.max_concurrent);
}

void coord_on_event(sim_run *run, sim_actor *self, const sim_event *ev) {
    jm_side *jm = self->ctx;
    SIM_ASSERT(jm->w->run == run);
    rt_coord *co = coord_of(jm);
    switch (ev->kind) {
    case SIM_EV_START:
        if (co->started) {                         /* restarted after a crash */
            /* A FINISHED or FAILED job stopped the run: the job was not
             * terminal, and the new JobMaster recovers it. */
            SIM_ASSERT(co->status != PIPE_FINISHED && co->status != PIPE_FAILED);
            deploy_failover(jm);
            break;
        }
        co->started = true;
        deploy_start(jm);
        break;
    case SIM_EV_IO_DONE:
        if ((ev->msg.a & 3) != IO_METADATA) break;
        if (co->recovering && ev->msg.a >> 2 == 0) {   /* the store's checkpoints are read back */
            deploy_recovered(jm);
        } else {
            metadata_written(jm, ev);
        }
        break;
    case SIM_EV_MSG:
        if (world_msgs(jm->w)) jm_note_recv(jm, ev);
        on_msg(jm, &ev->msg, sim_payload(run, ev));
        break;
    case SIM_EV_LINK_DOWN: {                     /* a TaskManager connection broke */
        const sim_link *l = &jm->w->run->links[ev->aux];
        SIM_ASSERT(l->src < world_job(jm->w)->tasks_count * jm->coord.hosts);   /* instances are the first actors */
        deploy_link_down(jm, l->src, ev->gen);
        break;
    }
    case SIM_EV_TIMER:
        if ((ev->msg.a & 0xffffffffu) == TIMER_TRIGGER) {
            fire(jm, (uint32_t)(ev->msg.a >> 32));
        } else if (ev->msg.a == TIMER_TIMEOUT) {
            timeouts(jm);
        } else {
            deploy_on_timer(jm, ev->msg.a);
        }
        break;
    default:
        break;
    }
    coord_invariants(jm);
}
