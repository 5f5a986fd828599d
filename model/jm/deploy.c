/* model/jm/deploy.c: the JobManager's side of deployment, failure
 * detection, restarts and failover (what Flink's scheduler, slot pool and
 * heartbeat manager do).
 *
 * Slots: a task's slot is free when the task said so (MSG_SLOT: a new
 * process, a task that lost its JobManager, or one cancelled by a CANCEL
 * of this attempt). Attempt n is deployed (DEPLOY, with the handles of
 * the checkpoint to restore) once the restart strategy's delay is over
 * and every slot is free; until then the restart waits, and cancels again
 * the tasks that have not freed theirs. A deployment is sent again until
 * the task confirms it (MSG_RUNNING).
 *
 * Failure detection: a broken TaskManager connection is noticed at once
 * (LINK_DOWN); a silent TaskManager by heartbeat timeout. Either fails the
 * attempt: every task is cancelled (CANCEL n+1), pending checkpoints die,
 * and the restart strategy decides on the next attempt.
 *
 * Region failover (Flink's RestartPipelinedRegionFailoverStrategy, the
 * default): a task's failure cancels and redeploys its pipelined region
 * only (co->restarting), from its part of the latest completed
 * checkpoint; the other regions keep their attempt and run on (they
 * share no channel with it), pending checkpoints are aborted and no new
 * one is triggered until every failed region runs again (Flink's job is
 * RESTARTING meanwhile; here status stays RUNNING with region_restart).
 * Each failure's restart has its own delay (restartTasksWithDelay: one
 * scheduled restart per failure): the tasks a failure cancelled are due
 * when its timer fires (JM_RESTART_DUE) and deployed once their slots are
 * free, whatever region failed since; a full failure takes the pending
 * regions into its own restart. A
 * failure no task is to blame for (checkpoints, the checkpoint store), a
 * job of one region, or `failover full` restart every task, as before.
 *
 * Failover: a new coordinator knows nothing of the tasks; it waits for
 * their slot offers (the tasks saw its connection break and cancelled
 * themselves), and with the durable backend reads the completed
 * checkpoints back from the store first.
 *
 * Rescaling (the schedule of pipe_cfg.rescales): at a rescale's time the
 * coordinator cancels every task, as for a failure no task is to blame
 * for but without the restart strategy (it is no failure), and the next
 * full deployment runs each vertex at the schedule's parallelism then
 * (co->par): the tasks above it are not deployed; a keyed task is given
 * the handles of every old subtask whose key groups overlap its own
 * range, a source the partitions of its new share. A pending restart
 * keeps its delay. */
#include "jm.h"

#include <string.h>

static rt_coord *coord_of(jm_side *jm) { return &jm->coord; }

static uint32_t tasks_of(const jm_side *jm) { return world_job(jm->w)->tasks_count; }

static uint32_t slots_of(const jm_side *jm) { return tasks_of(jm) * jm->coord.hosts; }

static sim_time_ns retry_ns(const jm_side *jm) { return 50 * jm->w->cfg.rpc_latency_ns; }

/* A restart is pending: of the whole job, or of some regions. */
static bool restart_pending(const jm_side *jm) {
    return jm->coord.status == PIPE_RESTARTING || (jm->coord.status == PIPE_RUNNING && jm->coord.region_restart);
}

/* The source task that reads partition part: of the source vertex of
 * the partition's topic, the subtask (part - the topic's first) mod its
 * parallelism. */
static uint32_t part_reader(const jm_side *jm, uint32_t part) {
    const job *j = world_job(jm->w);
    uint32_t topic = broker_topic_of(&jm->w->brk, part);
    for (uint32_t v = 0; v < j->vertices_count; v++) {   /* the source of its topic (one a topic) */
        if (j->vertices[v].kind != JOB_SOURCE || j->vertices[v].topic != topic) continue;
        return j->vertex_first_task[v] + (part - jm->w->brk.topic[topic].first) % jm->coord.par[v];
    }
    SIM_ASSERT(!"every partition has a source: pipe_create refuses a topic nobody reads");
    return 0;
}

/* A restart timer names its attempt: the tasks cancelled for it are due
 * when it fires, whatever failed since (a later region's failure has its
 * own timer; a full one re-cancels every pending task for its attempt). */
static uint64_t restart_tag(const jm_side *jm) { return jm->coord.epoch << 32 | TIMER_RESTART; }

/* Whether task t is deployed by the restart about to happen. */
static bool due(const jm_side *jm, uint32_t t) { return jm->coord.restarting[t] == JM_RESTART_DUE; }

static bool any_due(const jm_side *jm) {
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (due(jm, t)) return true;
    }
    return false;
}

/* The jitter of an exponential backoff, uniform on [-off, off], drawn
 * through the choice point from the coordinator's stream. */
static int64_t draw_jitter(void *ctx, int64_t base, int64_t off) {
    (void)base;
    return (int64_t)coord_draw_ns(ctx, 0, 2 * (sim_time_ns)off) - off;
}

/* The restart strategy's decision on a failure now (Flink's
 * ExecutionFailureHandler asks it for every failure, region or full). */
static rs_decision restart_decide(jm_side *jm) {
    rs_cfg rules = pipe_restart_rules(&jm->w->cfg.restart);
    rs_decision d = rs_on_failure(&jm->coord.strategy, &rules, (int64_t)jm->w->run->now_ns, draw_jitter, jm);
    if (!d.new_attempt) REACHED(jm->w, RESTART_MERGED);
    if (d.reset) REACHED(jm->w, EXPONENTIAL_RESET);
    return d;
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
    case PIPE_RESTART_EXPONENTIAL:
        if (again) REACHED(jm->w, RESTART_EXPONENTIAL); else REACHED(jm->w, GIVE_UP_EXPONENTIAL);
        break;
    }
}

/* Observers learn why and who (the run summary names the failing task);
 * the note changes nothing in the run. */
static void note_failed(jm_side *jm, pipe_fail_cause why, uint32_t culprit, const rs_decision *d) {
    if (!world_observed(jm->w)) return;
    bool report = (why == PIPE_FAIL_REPORTED || why == PIPE_FAIL_THREW) && culprit < world_job(jm->w)->tasks_count;
    pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .task = PIPE_NO_TASK, .cause = why, .chan = PIPE_NO_CHAN,
                     .culprit = culprit, .count = (uint32_t)(report ? jm->coord.report_epoch : 0),
                     .word_a = report ? jm->coord.attempt[culprit] : 0, .ok = d->restart,
                     .due_ns = d->restart ? jm->w->run->now_ns + (sim_time_ns)d->backoff : 0 };
    jm_note_ev(jm, &e);
}

/* ---- deployment ---------------------------------------------------------- */

/* With slots: where the tasks at the other ends of t's inputs and
 * outputs are deployed. */
static void hosts_of(jm_side *jm, uint32_t t, msg_deploy *d) {
    SIM_ASSERT(t < tasks_of(jm));
    d->hosts_count = 0;
    if (jm->coord.hosts == 1) return;
    const job *j = world_job(jm->w);
    const job_task *jt = &j->tasks[t];
    SIM_ASSERT(jt->in_count + jt->out_count <= PROTO_HOSTS_MAX);   /* the plan refuses more */
    for (uint32_t i = 0; i < jt->in_count; i++) {
        d->hosts[d->hosts_count++] = (uint8_t)jm->coord.placed[j->chans[j->in_chan[jt->in_first + i]].producer];
    }
    for (uint32_t i = 0; i < jt->out_count; i++) {
        d->hosts[d->hosts_count++] = (uint8_t)jm->coord.placed[j->chans[j->out_chan[jt->out_first + i]].consumer];
    }
}

/* A keyed task of a vertex that ran at parallelism `from` in checkpoint
 * s: the handles of every old subtask whose key-group range overlaps its
 * own (computeKeyGroupRangeForOperatorIndex at both parallelisms), the
 * first in d->chain, the others after it. The deliberate bug
 * rescale-wrong-range leaves the last of several out. */
static void handles_of(jm_side *jm, const rt_slot *s, uint32_t t, uint32_t from, msg_deploy *d) {
    const job *j = world_job(jm->w);
    const job_task *x = &j->tasks[t];
    uint32_t groups = job_max_parallelism(&j->vertices[x->vertex]), first, end;
    job_group_range(groups, jm->coord.par[x->vertex], x->subtask, &first, &end);
    uint32_t lo = job_group_subtask(first, groups, from), hi = job_group_subtask(end - 1, groups, from);
    if (jm->w->cfg.bug == PIPE_BUG_RESCALE_WRONG_RANGE && hi > lo) hi--;   /* deliberate bug */
    uint32_t base = j->vertex_first_task[x->vertex], files = 0;
    SIM_ASSERT(s->state == SLOT_COMPLETED && lo <= hi && hi < from);   /* the old subtasks it overlaps */
    d->chain = s->chains[base + lo];
    for (uint32_t o = lo + 1; o <= hi; o++) {
        const rt_chain *c = &s->chains[base + o];
        SIM_ASSERT(d->more_count < PIPE_RESCALE_HANDLES_MAX && files + c->count <= PROTO_MORE_FILES_MAX);   /* check_cfg */
        memcpy(d->more_files + files, c->files, sizeof(uint64_t) * c->count);
        files += c->count;
        d->more_len[d->more_count++] = (uint8_t)c->count;
    }
}

/* Whether the checkpoint ran vertex v or a neighbour of it at another
 * parallelism than the attempt. */
static bool rescaled_near(const jm_side *jm, const rt_slot *s, uint32_t v) {
    const job *j = world_job(jm->w);
    if (s->par[v] != jm->coord.par[v]) return true;
    for (uint32_t e = 0; e < j->edges_count; e++) {
        const job_edge *d = &j->edges[e];
        uint32_t other = d->from == v ? d->to : d->to == v ? d->from : UINT32_MAX;
        if (other != UINT32_MAX && s->par[other] != jm->coord.par[other]) return true;
    }
    return false;
}

/* Whether old subtask k of t's vertex holds channel state new subtask i
 * replays or re-emits (SubtaskStateMapper): its output and a rebalance
 * input map round robin (new i takes old i, i + p, ...), a hash input by
 * key-group range (new i takes the old subtasks whose range overlaps its
 * own, and filters). */
static bool cs_maps(const jm_side *jm, const rt_slot *s, uint32_t t, uint32_t k) {
    const job *j = world_job(jm->w);
    const job_task *x = &j->tasks[t];
    uint32_t p = jm->coord.par[x->vertex], from = s->par[x->vertex];
    if (k % p == x->subtask) return true;        /* ROUND_ROBIN */
    for (uint32_t e = 0; e < j->edges_count; e++) {
        if (j->edges[e].to != x->vertex || j->edges[e].part != JOB_HASH) continue;
        if (job_ranges_overlap(job_max_parallelism(&j->vertices[x->vertex]), p, x->subtask, from, k)) return true;   /* RANGE */
    }
    return false;
}

static void channel_state_of(jm_side *jm, const rt_slot *s, uint32_t t, msg_deploy *d) {
    const job *j = world_job(jm->w);
    const job_task *x = &j->tasks[t];
    if (!rescaled_near(jm, s, x->vertex)) {
        d->cs_file = s->cs_files[t];
        return;
    }
    d->cs_rescaled = true;
    uint32_t from = s->par[x->vertex], base = j->vertex_first_task[x->vertex];
    /* The deliberate bug FLINK-31963: a rescaled vertex without keyed
     * state is left out of the reassignment, its in-flight data with it. */
    if (jm->w->cfg.bug == PIPE_BUG_STATELESS_SKIPPED && from != jm->coord.par[x->vertex] &&
        j->vertices[x->vertex].kind != JOB_KEYED_AGG && j->vertices[x->vertex].kind != JOB_KEYED_JOIN) return;
    for (uint32_t k = 0; k < from; k++) {
        if (from == jm->coord.par[x->vertex] ? k != x->subtask : !cs_maps(jm, s, t, k)) continue;
        if (s->cs_files[base + k] == 0) continue;
        SIM_ASSERT(d->cs_count <= PIPE_RESCALE_HANDLES_MAX);   /* check_cfg bounds the old subtasks a task reads */
        if (d->cs_count == 0) d->cs_file = s->cs_files[base + k];
        else d->cs_more[d->cs_count - 1] = s->cs_files[base + k];
        d->cs_old[d->cs_count++] = (uint16_t)k;
    }
}

/* Task t's part of the checkpoint to restore (nothing: from scratch), and
 * the attempt's parallelism of every vertex. */
static void restore_of(jm_side *jm, uint32_t t, msg_deploy *d) {
    memset(d, 0, offsetof(msg_deploy, offsets));
    const rt_slot *s = coord_restore(jm);
    const job *j = world_job(jm->w);
    const job_vertex *v = coord_vertex_of(jm, t);
    uint32_t stride = jm->coord.par[j->tasks[t].vertex];
    for (uint32_t u = 0; u < j->vertices_count; u++) d->parallelism[u] = (uint16_t)jm->coord.par[u];
    if (v->kind == JOB_SOURCE && s != NULL) {     /* the splits its state in the checkpoint holds, by partition */
        const broker_topic *topic = &jm->w->brk.topic[v->topic];
        for (uint32_t part = topic->first + j->tasks[t].subtask; part < topic->end; part += stride) {
            if (s->splits[part] != SPLIT_READ) continue;
            SIM_ASSERT(d->offsets_count < PROTO_OFFSETS_MAX);
            d->offsets[d->offsets_count++] = (proto_offset){ .partition = part, .next = s->offsets[part] };
        }
    }
    hosts_of(jm, t, d);
    if (s == NULL) return;
    SIM_ASSERT(s->state == SLOT_COMPLETED);       /* a restore reads a completed checkpoint only */
    d->ckpt = s->ckpt;
    d->canonical = s->canonical;
    d->drained = s->drained;
    uint32_t from = s->par[j->tasks[t].vertex];
    channel_state_of(jm, s, t, d);
    if (from == stride || (v->kind != JOB_KEYED_AGG && v->kind != JOB_KEYED_JOIN)) {
        d->chain = s->chains[t];
        return;
    }
    d->from_parallelism = (uint16_t)from;
    handles_of(jm, s, t, from, d);
}

/* What a deployment sends: up to its offsets, or a rescaled task's files. */
static uint32_t deploy_bytes(const msg_deploy *d) {
    uint32_t files = 0;
    for (uint32_t i = 0; i < d->more_count; i++) files += d->more_len[i];
    uint32_t offsets = PROTO_WITH_OFFSETS_BYTES(msg_deploy, d->offsets_count);
    uint32_t more = (uint32_t)(offsetof(msg_deploy, more_files) + files * sizeof(uint64_t));
    return offsets > more ? offsets : more;
}

static void send_deploy(jm_side *jm, uint32_t t) {
    SIM_ASSERT(jm_active(jm, t));                 /* a task of the attempt's parallelism */
    msg_deploy d;
    restore_of(jm, t, &d);
    SIM_ASSERT(deploy_bytes(&d) <= PROTO_PAYLOAD_BYTES_MAX);
    sim_msg m = { .type = MSG_DEPLOY, .b = jm->coord.attempt[t] };
    jm_send(jm, t, &m, 64 + 16 * d.chain.count, &d, deploy_bytes(&d));
}

/* ---- the split enumerator ------------------------------------------------ */

/* The enumerator gives reader t the partitions of its share of its topic
 * ((p - first) mod the parallelism) no one was assigned; the message says no more will come.
 * Sent again with a repeated deployment (the reader takes it once). */
static void send_assign(jm_side *jm, uint32_t t) {
    rt_coord *co = coord_of(jm);
    const job *j = world_job(jm->w);
    const job_vertex *v = coord_vertex_of(jm, t);
    msg_assign a = { .final = 1 };
    const broker_topic *topic = &jm->w->brk.topic[v->topic];   /* the enumerator assigns per topic */
    for (uint32_t part = topic->first + j->tasks[t].subtask; part < topic->end; part += co->par[j->tasks[t].vertex]) {
        uint8_t mine = (uint8_t)(1 + co->attempt[t] % 254);   /* this attempt's mark; 255: the checkpoint's */
        if (co->assigned[part] == mine || co->assigned[part] == 0) {
            co->assigned[part] = mine;
            a.partitions[a.partitions_count++] = part;
        }
    }
    sim_msg m = { .type = MSG_ASSIGN, .b = co->attempt[t] };
    jm_send(jm, t, &m, 64, &a, (uint32_t)(offsetof(msg_assign, partitions) +
                                                                         a.partitions_count * sizeof(uint32_t)));
}

static void assign_all(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    bool any = false;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (coord_vertex_of(jm, t)->kind != JOB_SOURCE || !due(jm, t) || !jm_active(jm, t)) continue;
        send_assign(jm, t);
        co->assign_pending[t] = co->sched.next_id;    /* checkpoints from this id on wait for its ack */
        co->assign_sent_ns[t] = jm->w->run->now_ns;
        any = true;
    }
    /* An operator event is an RPC with an answer: none within
     * PIPE_ASSIGN_TIMEOUT_RPCS latencies (ten round trips) means it was
     * lost (Flink fails the reader then, since FLINK-21996). The bug
     * checks nothing. */
    if (any && jm->w->cfg.bug != PIPE_BUG_LOST_ASSIGNMENT) {
        sim_timer_set(jm->w->run, co->actor, PIPE_ASSIGN_TIMEOUT_RPCS * jm->w->cfg.rpc_latency_ns,
                      co->epoch << 32 | TIMER_ASSIGN_TIMEOUT);   /* the epoch is no longer read: kept, the tag is in the trace hash */
    }
}

bool deploy_assign_unacked(const jm_side *jm, uint64_t ckpt) {
    if (jm->w->cfg.bug == PIPE_BUG_LOST_ASSIGNMENT) return false;   /* deliberate bug */
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (jm->coord.assign_pending[t] != 0 && jm->coord.assign_pending[t] <= ckpt) return true;
    }
    return false;
}

/* A timeout fired: the first reader whose assignment went unanswered for
 * the whole timeout fails. Each deployment's assignments set their own
 * timer, and a timer stays good across a later region's failure: a reader
 * assigned since (by a later deployment) is judged by its own. A reader
 * that finished has read its splits: its answer was lost, not its
 * assignment, and nothing is owed (and its failure would be ignored). */
static void assign_timeout(jm_side *jm) {
    sim_time_ns timeout_ns = PIPE_ASSIGN_TIMEOUT_RPCS * jm->w->cfg.rpc_latency_ns, now = jm->w->run->now_ns;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (jm->coord.assign_pending[t] == 0 || now - jm->coord.assign_sent_ns[t] < timeout_ns) continue;
        if (jm->coord.finished[t]) {
            jm->coord.assign_pending[t] = 0;
            coord_retry_completion(jm);
            continue;
        }
        REACHED(jm->w, ASSIGNMENT_LOST);
        deploy_job_fail(jm, PIPE_FAIL_EVENT_LOST, t);
        return;
    }
}

/* Unconfirmed deployments go again after a wait that doubles (to 64
 * times the first): a machine paused for long gets a handful of repeats. */
static void arm_deploy_retry(jm_side *jm) {
    if (jm->coord.deploy_armed) return;
    jm->coord.deploy_armed = true;
    sim_timer_set(jm->w->run, jm->coord.actor, retry_ns(jm) << jm->coord.deploy_retries, TIMER_DEPLOY_RETRY);
    if (jm->coord.deploy_retries < 6) jm->coord.deploy_retries++;
}

/* The tasks to deploy talk only to each other: a region is closed under
 * channels (job_regions), so no restored task has a channel from or to a
 * task that runs on in an older attempt or waits for a later restart. */
static void assert_closed(const jm_side *jm) {
    const job *j = world_job(jm->w);
    for (uint32_t c = 0; c < j->chans_count; c++) {
        SIM_ASSERT(due(jm, j->chans[c].producer) == due(jm, j->chans[c].consumer));
    }
}

/* Observers learn which checkpoint the tasks restore, and with region
 * failover which regions (one step each, with its task count). */
static void note_restarted(jm_side *jm, bool regions, uint64_t ckpt) {
    rt_coord *co = coord_of(jm);
    if (!regions) {
        jm_note(jm, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, ckpt);
        return;
    }
    REACHED(jm->w, REGION_RESTART);
    if (!world_observed(jm->w)) return;
    for (uint32_t r = 0; r < co->regions; r++) {
        uint32_t count = 0;
        for (uint32_t t = 0; t < tasks_of(jm); t++) count += due(jm, t) && co->region[t] == r;
        if (count == 0) continue;
        pipe_event e = { .kind = PIPE_EV_JOB_RESTARTED, .task = PIPE_NO_TASK, .one_region = true, .region = r, .ckpt = ckpt,
                         .chan = PIPE_NO_CHAN, .count = count };
        jm_note_ev(jm, &e);
    }
}

/* A full deployment runs each vertex at the schedule's parallelism now:
 * the observers learn of each change before the restart (the restored
 * checkpoint, 0: none, says where the state comes from). */
static void take_parallelism(jm_side *jm, uint64_t ckpt) {
    rt_coord *co = coord_of(jm);
    const job *j = world_job(jm->w);
    bool changed = false;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        uint32_t p = pipe_parallelism_at(&jm->w->cfg, v, jm->w->run->now_ns);
        if (p == co->par[v]) continue;
        changed = true;
        if (world_observed(jm->w)) {
            pipe_event e = { .kind = PIPE_EV_RESCALED, .task = PIPE_NO_TASK, .vertex = v, .ckpt = ckpt,
                             .chan = PIPE_NO_CHAN, .count = p, .word_a = co->par[v] };
            jm_note_ev(jm, &e);
        }
        co->par[v] = p;
    }
    if (!changed) return;
    jm->w->stats.rescales++;
    if (ckpt != 0) REACHED(jm->w, RESCALED); else REACHED(jm->w, RESCALE_FROM_NOTHING);
    co->active_count = 0;
    for (uint32_t t = 0; t < j->tasks_count; t++) co->active_count += jm_active(jm, t);
}

/* Every slot of the tasks to deploy (the due ones: all of them, or the
 * regions whose delay is over) is free: each starts its attempt; with a
 * full restart, at the schedule's parallelism (the tasks above it are
 * not deployed). The job is RUNNING again, and its periodic scheduler
 * starts, once no region waits any more (DefaultScheduler's
 * removeVerticesFromRestartPending). */
static void deploy_all(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    uint32_t n = tasks_of(jm);
    bool regions = co->status == PIPE_RUNNING;    /* a region restart: the others run on */
    if (regions) assert_closed(jm);
    const rt_slot *restored = coord_restore(jm);  /* the enumerator's state: the checkpoint's */
    co->status = PIPE_RUNNING;
    co->force_full = restored != NULL && restored->unclaimed;   /* restoreLatestCheckpointedStateInternal */
    if (co->force_full) REACHED(jm->w, RESTORED_UNCLAIMED);
    bool restart = co->deployed_once;
    if (!regions) take_parallelism(jm, restored != NULL ? restored->ckpt : 0);
    if (restart) {
        jm->w->stats.restarts++;
        note_restarted(jm, regions, restored != NULL ? restored->ckpt : 0);
    }
    co->deployed_once = true;
    co->deploy_retries = 0;
    if (!regions) {                               /* a region's tasks forgot theirs when it failed */
        memset(co->finished, 0, n);
        coord_forget_finished(jm);
        co->finished_count = 0;
        co->sources_running = 0;
    }
    for (uint32_t part = 0; part < jm->w->brk.partitions; part++) {
        if (regions && !due(jm, part_reader(jm, part))) continue;   /* read on by a region that runs or waits */
        co->assigned[part] = restored != NULL && restored->splits[part] != SPLIT_FREE ? 255 : 0;
    }
    for (uint32_t t = 0; t < n; t++) {
        if (!due(jm, t)) continue;
        co->assign_pending[t] = 0;                /* a source a downscale left out owes nothing either */
        if (!jm_active(jm, t)) continue;
        jm->w->stats.restarted_tasks += restart;
        if (!regions) co->sources_running += coord_vertex_of(jm, t)->kind == JOB_SOURCE;
        uint32_t i = jm_slot_of(jm, t);
        co->slot_free[i] = 0;
        co->running[t] = 0;
        co->deploy_gen[i] = jm->w->run->links[co->conn_from_task[i]].gen;
        send_deploy(jm, t);
    }
    assign_all(jm);
    co->region_restart = false;
    for (uint32_t t = 0; t < n; t++) {
        if (due(jm, t)) co->restarting[t] = JM_RESTART_NONE;
        co->region_restart |= co->restarting[t] != JM_RESTART_NONE;   /* another region's delay runs */
    }
    arm_deploy_retry(jm);
    if (!co->region_restart) coord_start_scheduler(jm);   /* the job (again) RUNNING: the periodic scheduler starts */
}

/* Whether task t runs in the attempt a pending restart deploys: a
 * region's at the attempt's parallelism, a full one's at the schedule's. */
static bool runs_next(const jm_side *jm, uint32_t t) {
    if (jm->coord.status == PIPE_RUNNING) return jm_active(jm, t);
    const job_task *x = &world_job(jm->w)->tasks[t];
    return x->subtask < pipe_parallelism_at(&jm->w->cfg, x->vertex, jm->w->run->now_ns);
}

static bool all_free(const jm_side *jm) {
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (due(jm, t) && !jm->coord.slot_free[t] && runs_next(jm, t)) return false;
    }
    return true;
}

/* With slots: whether every task to deploy has a slot for the next
 * attempt, and then which (co->placed). The cancelled tasks must have
 * freed theirs first (Flink waits for the cancellation to end); a task
 * keeps its slot when it is free (its state is local there), and one
 * whose TaskManager was lost goes to the first machine with a free slot
 * for its vertex, in machine order; the tasks of regions that run on,
 * or wait for their own restart, keep theirs. None: the restart waits
 * for slots. */
static bool place_all(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    const job *j = world_job(jm->w);
    uint32_t n = tasks_of(jm), hs = co->hosts;
    for (uint32_t t = 0; t < n; t++) {
        uint32_t i = jm_slot_of(jm, t);
        if (due(jm, t) && !co->slot_free[i] && !co->lost[i]) return false;   /* still cancelling */
    }
    uint16_t used[JOB_VERTICES_MAX][PIPE_MACHINES_MAX] = { { 0 } };
    uint32_t *next = co->place_next;
    for (uint32_t t = 0; t < n; t++) {
        next[t] = UINT32_MAX;
        if (due(jm, t) && !co->slot_free[jm_slot_of(jm, t)]) continue;
        next[t] = co->placed[t];
        used[j->tasks[t].vertex][next[t]]++;
    }
    for (uint32_t t = 0; t < n; t++) {
        if (next[t] != UINT32_MAX) continue;
        uint32_t v = j->tasks[t].vertex;
        for (uint32_t m = 0; m < hs && next[t] == UINT32_MAX; m++) {
            if (co->slot_free[t * hs + m] && used[v][m] < jm->w->cfg.task_slots) next[t] = m;
        }
        if (next[t] == UINT32_MAX) return false;
        used[v][next[t]]++;
    }
    for (uint32_t t = 0; t < n; t++) {
        if (next[t] != co->placed[t]) {
            REACHED(jm->w, RELOCATED);
            jm->w->stats.relocated++;
        }
        co->placed[t] = next[t];
    }
    return true;
}

/* Deploy the due tasks now if the store is read and each has a free slot. */
static void maybe_deploy(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    if (!restart_pending(jm) || !any_due(jm) || co->recovering || jm->w->client.waiting) return;
    if (co->hosts == 1 ? !all_free(jm) : !place_all(jm)) return;
    deploy_all(jm);
}

/* The slots that are not free yet: their tasks are cancelled again (the
 * CANCEL or the slot offer may have been lost), and the restart waits. */
static void cancel_again(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (!due(jm, t) || co->slot_free[jm_slot_of(jm, t)]) continue;   /* a lost TaskManager too: it may be back, silent */
        REACHED(jm->w, CANCEL_REPEATED);
        sim_msg m = { .type = MSG_CANCEL, .b = co->attempt[t] };
        jm_send(jm, t, &m, 64, NULL, 0);
    }
}

/* Deploy what is due, or wait for its slots and look again. */
void deploy_look_again(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    maybe_deploy(jm);
    if (!restart_pending(jm) || !any_due(jm) || co->restart_retry_armed) return;
    REACHED(jm->w, RESTART_WAITS);
    cancel_again(jm);
    co->restart_retry_armed = true;
    sim_timer_set(jm->w->run, co->actor, retry_ns(jm), TIMER_RESTART_RETRY);
}

/* The delay of the failure that cancelled attempt `epoch` is over: its
 * tasks are due (none, when a later full failure took them over). */
static void restart_due(jm_side *jm, uint64_t epoch) {
    rt_coord *co = coord_of(jm);
    if (!restart_pending(jm)) return;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (co->restarting[t] == JM_RESTART_WAITING && co->attempt[t] == epoch) co->restarting[t] = JM_RESTART_DUE;
    }
    deploy_look_again(jm);
}

/* ---- failing an attempt -------------------------------------------------- */

static void tell_survivors(jm_side *jm, uint64_t ckpt) {
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (jm->coord.restarting[t]) continue;
        sim_msg m = { .type = MSG_ABORTED, .a = ckpt, .b = jm->coord.attempt[t] };
        jm_send(jm, t, &m, 64, NULL, 0);
    }
}

/* Pending checkpoints die with the attempt; the tasks that run on (other
 * regions) are told, so that they drop their snapshots of them. The
 * deliberate bug restore-from-pending keeps the newest for the restore
 * although it never completed. */
void deploy_drop_pending(jm_side *jm) {
    uint32_t keep = UINT32_MAX;
    for (uint32_t i = 0; i < jm->slots_count && jm->w->cfg.bug == PIPE_BUG_RESTORE_PENDING; i++) {
        const rt_slot *x = &jm->slots[i];
        bool pending = x->state == SLOT_PENDING || x->state == SLOT_FINALIZING;
        if (pending && (keep == UINT32_MAX || x->ckpt > jm->slots[keep].ckpt)) keep = i;
    }
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        rt_slot *s = &jm->slots[i];
        if (s->state != SLOT_PENDING && s->state != SLOT_FINALIZING) continue;
        REACHED(jm->w, PENDING_LOST);
        tell_survivors(jm, s->ckpt);
        if (i != keep) {
            coord_end_slot(jm, s, CKR_SUSPEND);
            continue;
        }
        coord_history_end(jm, s->ckpt, PIPE_CKPT_JOB_FAILED, CKR_SUSPEND);   /* deliberate bug: kept, as completed */
        jm->w->stats.aborted++;
        jm->w->stats.lost_with_job++;
    }
    if (keep != UINT32_MAX) {
        coord_slot_to(&jm->slots[keep], SLOT_COMPLETED);
        coord_retain(jm, keep);
    }
    coord_stop_scheduler(jm);                     /* the job left RUNNING: Flink stops the periodic scheduler */
}

/* Read the completed-checkpoint store back (its metadata: a size that
 * grows with the tasks); the deployment waits for it. */
static void read_store(jm_side *jm) {
    jm->coord.recovering = true;
    dev_read(jm->w->run, jm->w->store_dev, jm->coord.actor, 1024 + (uint64_t)tasks_of(jm) * 64, IO_METADATA);
}

/* Mark the tasks to restart that were running: every one, or region r's. */
static void mark(jm_side *jm, uint32_t r) {
    rt_coord *co = coord_of(jm);
    SIM_ASSERT(r == UINT32_MAX || r < co->regions);
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (!co->restarting[t] && (r == UINT32_MAX || co->region[t] == r)) co->restarting[t] = JM_RESTART_MARKED;
    }
}

/* Cancel the marked tasks: attempt epoch replaces theirs, and they wait
 * for this failure's delay. A region's tasks forget they finished (the
 * whole job's do at its deployment). Other regions whose restart is
 * pending keep theirs (Flink schedules each failure's restart on its
 * own); a full restart takes them over (a newer deployment replaces what
 * a task runs), so that every restore of it is of the newest. */
static void cancel_marked(jm_side *jm, bool region) {
    rt_coord *co = coord_of(jm);
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        if (co->restarting[t] == JM_RESTART_NONE || (region && co->restarting[t] != JM_RESTART_MARKED)) continue;
        co->attempt[t] = co->epoch;
        bool marked = co->restarting[t] == JM_RESTART_MARKED;
        co->restarting[t] = JM_RESTART_WAITING;
        SIM_ASSERT(co->attempt[t] == co->epoch);
        if (!marked) continue;
        co->slot_free[jm_slot_of(jm, t)] = 0;
        co->running[t] = 0;
        if (region) coord_forget_task(jm, t);
        sim_msg m = { .type = MSG_CANCEL, .b = co->epoch };
        jm_send(jm, t, &m, 64, NULL, 0);
    }
}

/* Whether a failure restarts the culprit's region alone: a task is to
 * blame, and its region is not the whole job. */
static bool region_failover(const jm_side *jm, uint32_t culprit) {
    if (jm->w->cfg.bug == PIPE_BUG_REGION_RESTARTS_ALL) return false;   /* deliberate bug */
    return jm->w->cfg.restart.failover == PIPE_FAILOVER_REGION && culprit != PIPE_NO_TASK && jm->coord.regions > 1;
}

void deploy_job_fail(jm_side *jm, pipe_fail_cause why, uint32_t culprit) {
    rt_coord *co = coord_of(jm);
    if (co->status != PIPE_RUNNING) return;
    if (culprit != PIPE_NO_TASK && co->restarting[culprit]) return;   /* its region restarts already */
    if (culprit != PIPE_NO_TASK && co->finished[culprit]) {
        /* Its FINISHED arrived: Execution.processFail ignores a failure
         * of a finished execution (its TaskManager lost, its process gone). */
        REACHED(jm->w, FAILURE_OF_FINISHED_IGNORED);
        return;
    }
    if (stop_job_failed(jm)) return;              /* a stop whose savepoint completed fails for good (FLINK-26783) */
    bool region = region_failover(jm, culprit);
    rs_decision d = restart_decide(jm);
    note_failed(jm, why, culprit, &d);
    mark(jm, region ? co->region[culprit] : UINT32_MAX);
    deploy_drop_pending(jm);
    for (uint32_t i = 0; i < jm->slots_count; i++) {   /* they died with the attempt */
        SIM_ASSERT(jm->slots[i].state != SLOT_PENDING && jm->slots[i].state != SLOT_FINALIZING);
    }
    co->epoch++;
    cancel_marked(jm, region);
    sim_time_ns delay = (sim_time_ns)d.backoff;
    bool again = d.restart;
    reach_strategy(jm, again);
    if (!again) {                                 /* the job fails: every task goes */
        mark(jm, UINT32_MAX);
        cancel_marked(jm, region);
        co->status = PIPE_FAILED;
        sim_stop(jm->w->run);
        return;
    }
    sim_time_ns due_ns = jm->w->run->now_ns + delay;
    if (!region || !co->region_restart || co->restart_due_ns < due_ns) co->restart_due_ns = due_ns;   /* the latest */
    co->status = region ? PIPE_RUNNING : PIPE_RESTARTING;
    co->region_restart = region;
    SIM_ASSERT(co->restart_due_ns >= due_ns);         /* the latest due */
    jm->w->stats.restart_delay_ns_sum += delay;
    sim_timer_set(jm->w->run, co->actor, delay, restart_tag(jm));
}

/* Every task is cancelled for a new attempt, with no failure to count:
 * a rescale, or the end of the job at a stop or cancel (model/jm/stop.c).
 * Pending checkpoints die with the attempt. */
void deploy_cancel_all(jm_side *jm) {
    mark(jm, UINT32_MAX);
    deploy_drop_pending(jm);
    jm->coord.epoch++;
    cancel_marked(jm, false);
}

/* ---- rescaling ----------------------------------------------------------- */

/* Whether the schedule's parallelism now differs from the attempt's. */
static bool rescale_due(const jm_side *jm) {
    const job *j = world_job(jm->w);
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (pipe_parallelism_at(&jm->w->cfg, v, jm->w->run->now_ns) != jm->coord.par[v]) return true;
    }
    return false;
}

/* A rescale of the schedule is due: every task is cancelled and the next
 * attempt deployed (deploy_all takes the new parallelism) once the slots
 * are free, after what is left of a pending region restart's delay. A
 * job restarting already takes it at its deployment; one that finished
 * or failed has nothing to rescale. */
static void rescale(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    if (co->status != PIPE_RUNNING || !rescale_due(jm)) return;
    deploy_cancel_all(jm);
    sim_time_ns now = jm->w->run->now_ns, delay = co->region_restart && co->restart_due_ns > now ? co->restart_due_ns - now : 0;
    co->status = PIPE_RESTARTING;
    co->region_restart = false;
    sim_timer_set(jm->w->run, co->actor, delay, restart_tag(jm));
}

static void deploy_arm_rescales(jm_side *jm) {
    const pipe_cfg *cfg = &jm->w->cfg;
    for (uint32_t i = 0; i < cfg->rescales_count; i++) {   /* those past are the deployment's to take */
        if (cfg->rescales[i].at_ns < jm->w->run->now_ns) continue;
        sim_timer_set(jm->w->run, jm->coord.actor, cfg->rescales[i].at_ns - jm->w->run->now_ns,
                      (uint64_t)i << 32 | TIMER_RESCALE);
    }
}

/* ---- what the tasks say -------------------------------------------------- */

/* A slot offer (instance i), whatever attempt freed it: a deployment of
 * a newer attempt replaces what a task runs, so an offer that is older
 * than the truth is safe to take while restarting. */
static void slot_offered(jm_side *jm, uint32_t i, uint64_t process) {
    rt_coord *co = coord_of(jm);
    uint32_t t = i / co->hosts;
    if (co->status == PIPE_RUNNING && !co->restarting[t] && i == jm_slot_of(jm, t) && jm_active(jm, t)) {
        /* An offer sent before the deployment arrived is stale; one from a
         * new process in place of a deployed task means it is gone (its
         * connection's break is on its way, or was lost with it). */
        if (process == co->process[i]) return;
        deploy_job_fail(jm, PIPE_FAIL_CONNECTION, t);
    }
    co->alive[i] = 1;
    co->lost[i] = 0;
    co->heard_ns[i] = jm->w->run->now_ns;
    co->process[i] = process;
    co->slot_free[i] = 1;
    maybe_deploy(jm);
}

bool deploy_on_msg(jm_side *jm, const sim_msg *m) {
    rt_coord *co = coord_of(jm);
    uint64_t epoch = m->b >> 32;
    uint32_t t = (uint32_t)(m->b & 0xffffffffu);
    switch (m->type) {
    case MSG_SLOT:                                /* these two name the slot (instance) */
        SIM_ASSERT(t < slots_of(jm));
        slot_offered(jm, t, m->a);
        return true;
    case MSG_HEARTBEAT:                           /* its TaskManager is there, whatever the attempt */
        SIM_ASSERT(t < slots_of(jm));
        if (co->alive[t]) co->heard_ns[t] = jm->w->run->now_ns;
        return true;
    case MSG_RUNNING:
        if (epoch == co->attempt[t] && co->status == PIPE_RUNNING && !co->restarting[t]) co->running[t] = 1;
        return true;
    case MSG_ASSIGN_ACK:
        if (epoch != co->attempt[t] || co->status != PIPE_RUNNING || co->assign_pending[t] == 0) return true;
        co->assign_pending[t] = 0;
        coord_retry_completion(jm);
        return true;
    default:
        return false;
    }
}

void deploy_link_down(jm_side *jm, uint32_t i, uint32_t gen) {
    rt_coord *co = coord_of(jm);
    co->slot_free[i] = 0;                         /* gone with its connection, until it offers again */
    co->lost[i] = 1;
    uint32_t t = i / co->hosts;
    if (i == jm_slot_of(jm, t) && gen > co->deploy_gen[i] && jm_active(jm, t)) deploy_job_fail(jm, PIPE_FAIL_CONNECTION, t);
}

/* ---- heartbeats and retries ---------------------------------------------- */

static void heartbeat(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    sim_time_ns interval, timeout, now = jm->w->run->now_ns;
    pipe_heartbeat(&jm->w->cfg, &interval, &timeout);
    for (uint32_t i = 0; i < slots_of(jm); i++) {
        if (!co->alive[i]) continue;
        if (now - co->heard_ns[i] > timeout) {    /* its TaskManager is lost */
            REACHED(jm->w, HEARTBEAT_TIMEOUT);
            co->alive[i] = 0;
            co->slot_free[i] = 0;
            co->lost[i] = 1;
            /* Disconnect it, as Flink's JobMaster does: when it hears of it,
             * it cancels what it runs and registers its slot again. */
            link_close(jm->w->run, co->conn_from_task[i]);
            if (i == jm_slot_of(jm, i / co->hosts) && jm_active(jm, i / co->hosts)) {   /* a task of the attempt */
                deploy_job_fail(jm, PIPE_FAIL_HEARTBEAT, i / co->hosts);
            }
            continue;
        }
        sim_msg m = { .type = MSG_HEARTBEAT, .b = co->attempt[i / co->hosts] };
        jm_send_slot(jm, i, &m, 64, NULL, 0);
    }
    sim_timer_set(jm->w->run, co->actor, interval, TIMER_HEARTBEAT);
}

static void deploy_retry(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    co->deploy_armed = false;
    if (co->status != PIPE_RUNNING) return;
    bool any = false;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        /* A restarting region deploys later; a finished task's FINISHED
         * says it took its deployment (its RUNNING was lost). */
        if (co->running[t] || co->finished[t] || co->restarting[t] || !jm_active(jm, t)) continue;
        REACHED(jm->w, DEPLOY_REPEATED);
        send_deploy(jm, t);
        if (co->assign_pending[t] != 0) send_assign(jm, t);   /* it came to no task */
        any = true;
    }
    if (any) arm_deploy_retry(jm);
}

void deploy_on_timer(jm_side *jm, uint64_t tag) {
    switch (tag & 0xffffffffu) {
    case TIMER_RESTART:
        restart_due(jm, tag >> 32);
        break;
    case TIMER_RESTART_RETRY:
        jm->coord.restart_retry_armed = false;
        deploy_look_again(jm);
        break;
    case TIMER_HEARTBEAT: heartbeat(jm); break;
    case TIMER_ASSIGN_TIMEOUT:
        if (jm->coord.status == PIPE_RUNNING) assign_timeout(jm);   /* any epoch's: each reader by its own age */
        break;
    case TIMER_DEPLOY_RETRY: deploy_retry(jm); break;
    case TIMER_RESCALE: rescale(jm); break;
    case TIMER_HALT:
    case TIMER_RESUME:
    case TIMER_STOP_FAILED:
    case TIMER_STOP_NOTICE: stop_on_timer(jm, tag); break;
    default: SIM_ASSERT(!"unknown coordinator timer");
    }
}

/* Every task finished: the job is FINISHED, as Flink's ExecutionGraph is
 * once its last execution reports FINISHED; nothing is sent after. The
 * two-phase-commit sinks committed before they finished: the notice of
 * their final checkpoint did it (FLIP-147, StreamTask waits for it). With
 * no checkpoint to notify them (checkpointing off, or finished tasks that
 * take no checkpoint: Flink up to 1.13) they never commit their last
 * transaction: TwoPhaseCommitSinkFunction commits only on a completion
 * notice or a restore, and close() aborts the open one. */
void deploy_job_finished(jm_side *jm) {
    if (stop_job_finished(jm)) return;            /* a stop ended it: the user resumes it */
    coord_of(jm)->status = PIPE_FINISHED;
    sim_stop(jm->w->run);
}

/* ---- the coordinator's life ---------------------------------------------- */

void deploy_start(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    co->status = PIPE_RESTARTING;                 /* attempt 0 waits for its slots (every task is due) */
    deploy_arm_rescales(jm);                      /* a new coordinator's timers are its own */
    stop_arm(jm);
    sim_time_ns interval, timeout;
    pipe_heartbeat(&jm->w->cfg, &interval, &timeout);
    sim_timer_set(jm->w->run, co->actor, interval, TIMER_HEARTBEAT);
}

/* A new coordinator (JobManager failover, after a crash): it knows no
 * task and no pending checkpoint; the tasks saw their JobManager go and
 * offer their slots again. With the durable backend the completed
 * checkpoints are read back from the store and the job restarts from the
 * latest; with the memory backend they died with the old coordinator and
 * the job starts over. */
void deploy_failover(jm_side *jm) {
    rt_coord *co = coord_of(jm);
    const job *j = world_job(jm->w);
    jm->w->stats.failovers++;
    stop_forget(jm);                              /* a stop in progress died with the old JobManager */
    co->timeout_armed = false;                   /* its timer died with the old process */
    co->deploy_armed = false;
    co->restart_retry_armed = false;
    co->epoch++;
    co->region_restart = false;
    memset(co->restarting, JM_RESTART_DUE, j->tasks_count);   /* every task, whatever region restarted, at once */
    for (uint32_t t = 0; t < j->tasks_count; t++) co->attempt[t] = co->epoch;
    for (uint32_t i = 0; i < jm->slots_count; i++) {
        rt_slot *s = &jm->slots[i];
        if (s->state == SLOT_PENDING || s->state == SLOT_FINALIZING) coord_end_slot(jm, s, CKR_SUSPEND);
    }
    /* A new JobMaster starts a new CheckpointCoordinator (its failure count,
     * its scheduler; the ids go on, from the store's counter) and a new
     * restart strategy: what the old ones counted died with them. */
    coord_rules_init(jm, co->sched.next_id);
    rs_init(&co->strategy);
    memset(co->slot_free, 0, slots_of(jm));
    memset(co->running, 0, j->tasks_count);
    memset(co->alive, 0, slots_of(jm));
    memset(co->lost, 0, slots_of(jm));
    memset(co->process, 0, sizeof(uint64_t) * slots_of(jm));
    /* The new JobMaster's deployment restarts the job even when the old
     * one crashed before its first: the observers took the failover as
     * the job leaving RUNNING, and this is its return. */
    co->deployed_once = true;
    deploy_start(jm);
    jm_note(jm, PIPE_EV_COORD_FAILOVER, PIPE_NO_TASK, 0);
    if (jm->w->cfg.state.backend == PIPE_BACKEND_DURABLE) {
        REACHED(jm->w, FAILOVER_DURABLE);
        read_store(jm);                            /* the completed checkpoints are the store's */
        return;
    }
    REACHED(jm->w, FAILOVER_MEMORY);
    for (uint32_t i = 0; i < co->completed_count; i++) coord_free_slot(jm, &jm->slots[co->completed_order[i]]);
    jm->w->stats.checkpoints_lost += co->completed_count;
    co->completed_count = 0;
    co->restore_slot = 0;
    coord_forget_finished(jm);
    store_wipe(&jm->w->files);
}

void deploy_recovered(jm_side *jm) {
    jm->coord.recovering = false;
    ha_recover(jm);
    if (jm->w->cfg.bug == PIPE_BUG_RECOVER_DISCARDS) coord_drop_unread(jm);   /* deliberate bug */
    maybe_deploy(jm);
}
