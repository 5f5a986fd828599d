/* tests/test_deploy.c: the JobManager and the TaskManagers by message
 * (model/jm/deploy.c, model/jm/ha.c, model/proto.h): lost deployments
 * and cancellations are sent again, a silent TaskManager is declared lost
 * by heartbeat timeout and its zombie is fenced, a paused coordinator
 * recovers, a lost split assignment fails the job over (FLINK-21996), an
 * ambiguous write of the completed-checkpoint store aborts its checkpoint
 * but keeps its files for a new coordinator (FLINK-22494), a failure in a job of forward
 * chains restarts its pipelined region alone. Every verdict comes from the
 * checkers (the input fold), never from a second run. */
#include "harness.h"

#include "../model/pipe.h"

/* source(2) -> map(2, forward) -> keyed aggregate(2, hash) -> 2PC sink(1) on 3 machines */
static pipe_cfg three_machines(uint64_t seed) {
    pipe_cfg c = pipe_cfg_default(seed);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 1 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.graph.vertices[3].sink = JOB_SINK_2PC;
    c.broker.partitions = 4;
    c.broker.records_per_partition = 5000;
    c.broker.keys = 300;
    c.source_rate_per_s = 100000;
    c.machines = 3;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    c.heartbeat_interval_ns = 5 * SIM_NS_PER_MS;
    c.heartbeat_timeout_ns = 25 * SIM_NS_PER_MS;
    return c;
}

static void assert_exactly_once(const checked_run *r) {
    assert_int_equal(r->status, PIPE_FINISHED);
    for (uint32_t i = 0; i < CHECK_INV_COUNT; i++) {
        if (r->report.violations[i] == 0) continue;
        fail_msg("I%u violated: %s", i + 1, r->report.kept_count > 0 ? r->report.kept[0].what : "?");
    }
    assert_true(r->report.applies[CHECK_I1] && r->report.applies[CHECK_I3]);
}

typedef struct fault_at {
    const char *kind;                 /* an RPC kind (pipe_rpc_kind), or NULL */
    uint32_t    task;
    fault_kind  what;                 /* when kind is NULL */
    uint32_t    target;               /* when kind is NULL: a machine, or UINT32_MAX for the coordinator */
    sim_time_ns at_ns, for_ns;
} fault_at;

static void add_faults(pipeline *p, void *ctx) {
    for (const fault_at *f = ctx; f->for_ns != 0; f++) {
        fault_spec x = { .at_ns = f->at_ns, .duration_ns = f->for_ns };
        if (f->kind != NULL) {
            bool to_task;
            assert_true(pipe_rpc_kind(f->kind, &x.msg_type, &to_task));
            x.kind = FAULT_LINK_LOSS;
            x.ratio = (sim_ratio){ 1, 1 };
            x.target = to_task ? pipe_task_rpc_in_link(p, f->task) : pipe_task_rpc_link(p, f->task);
        } else {
            x.kind = f->what;
            x.target = f->target == UINT32_MAX ? pipe_coord_actor(p) : f->target;
            if (f->what == FAULT_DEV_AMBIGUOUS) {   /* every write of the HA store, for the window */
                x.target = pipe_ha_dev(p);
                x.ratio = (sim_ratio){ 1, 1 };
            }
        }
        fault_add(pipe_sim(p), &x);
    }
}

static void test_a_lost_deployment_is_sent_again_and_the_job_stays_exactly_once(void **state) {
    (void)state;
    pipe_cfg c = three_machines(1);
    fault_at f[] = { { .kind = "deploy", .task = 4, .at_ns = 0, .for_ns = SIM_NS_PER_MS }, { 0 } };
    checked_run r = run_checked_with(&c, add_faults, f);
    assert_exactly_once(&r);
    assert_true(r.reach[PIPE_REACH_DEPLOY_REPEATED] >= 1);
    assert_int_equal(r.stats.restarts, 0);   /* a lost deployment is no failure: it goes again */
}

/* A machine crash fails the attempt; the cancellation of a task on
 * another machine is lost, so the restart waits for its slot and cancels
 * it again. */
static void test_a_lost_cancellation_is_sent_again_while_the_restart_waits(void **state) {
    (void)state;
    pipe_cfg c = three_machines(2);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = 2 * SIM_NS_PER_MS };
    fault_at f[] = { { .kind = "cancel", .task = 6, .at_ns = 30 * SIM_NS_PER_MS, .for_ns = 20 * SIM_NS_PER_MS }, { 0 } };
    checked_run r = run_checked_with(&c, add_faults, f);
    assert_exactly_once(&r);
    assert_true(r.reach[PIPE_REACH_CANCEL_REPEATED] >= 1);
    assert_true(r.stats.restarts >= 1);
}

/* Paused past the heartbeat timeout, machine 1's TaskManager is declared
 * lost; when it wakes up its tasks first handle what waited for them as
 * the old attempt, and what they send is dropped and counted. */
static void test_a_machine_paused_past_the_heartbeat_timeout_is_lost_and_its_zombie_fenced(void **state) {
    (void)state;
    pipe_cfg c = three_machines(3);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_PAUSE, .target = 1, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = 60 * SIM_NS_PER_MS };
    checked_run r = run_checked(&c);
    assert_exactly_once(&r);
    assert_true(r.fail_causes >> PIPE_FAIL_HEARTBEAT & 1);
    assert_true(r.reach[PIPE_REACH_HEARTBEAT_TIMEOUT] >= 1);
    print_message("fenced: %llu data, %llu rpcs\n", (unsigned long long)r.stats.fenced_data,
                  (unsigned long long)r.stats.fenced_rpcs);
    assert_true(r.stats.fenced_data + r.stats.fenced_rpcs >= 1);
}

/* A pause below the timeout is silence, not loss: nothing restarts. */
static void test_a_short_pause_is_no_failure(void **state) {
    (void)state;
    pipe_cfg c = three_machines(3);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_PAUSE, .target = 1, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = 10 * SIM_NS_PER_MS };
    checked_run r = run_checked(&c);
    assert_exactly_once(&r);
    assert_int_equal(r.stats.restarts, 0);
}

/* A coordinator paused longer than the timeout finds every TaskManager
 * silent when it wakes (as a JobManager after a long GC pause) and
 * restarts the job; nothing is lost or counted twice. */
static void test_a_paused_coordinator_restarts_the_job_and_stays_exactly_once(void **state) {
    (void)state;
    pipe_cfg c = three_machines(4);
    c.state.backend = PIPE_BACKEND_DURABLE;
    fault_at f[] = { { .what = FAULT_ACTOR_PAUSE, .target = UINT32_MAX, .at_ns = 30 * SIM_NS_PER_MS,
                       .for_ns = 40 * SIM_NS_PER_MS }, { 0 } };
    checked_run r = run_checked_with(&c, add_faults, f);
    assert_exactly_once(&r);
    assert_true(r.fail_causes >> PIPE_FAIL_HEARTBEAT & 1);
}

/* The enumerator's first assignment to source[0] is lost: the first
 * checkpoint waits for its acknowledgement, none comes within the timeout
 * (PIPE_ASSIGN_TIMEOUT_RPCS), and the job fails over; with the deliberate bug FLINK-21996 the checkpoints complete
 * without it and source[0]'s partitions are never read. */
static void test_a_lost_split_assignment_fails_the_job_over_and_loses_no_split(void **state) {
    (void)state;
    pipe_cfg c = three_machines(5);
    c.ckpt.interval_ns = SIM_NS_PER_MS;           /* a checkpoint comes before the assignment's timeout */
    fault_at f[] = { { .kind = "assign", .task = 0, .at_ns = 0, .for_ns = SIM_NS_PER_MS }, { 0 } };
    checked_run r = run_checked_with(&c, add_faults, f);
    assert_exactly_once(&r);
    assert_true(r.fail_causes >> PIPE_FAIL_EVENT_LOST & 1);
    assert_true(r.reach[PIPE_REACH_COMPLETION_WAITS_ASSIGN] >= 1);
    c.bug = PIPE_BUG_LOST_ASSIGNMENT;
    checked_run b = run_checked_with(&c, add_faults, f);
    assert_true(b.report.violations[CHECK_I3] + b.report.violations[CHECK_I4] + b.report.violations[CHECK_I6] > 0);
}

/* The metadata write of a checkpoint ends ambiguously (done at the store,
 * reported failed), then the coordinator crashes. Flink since FLINK-22494
 * aborts the checkpoint (FINALIZE_CHECKPOINT_FAILURE, counted: with 3
 * tolerable the job runs on) and keeps its files; the new coordinator
 * reads the store, which holds it, and restores it. The bug discards the
 * checkpoint's files although the store names them, and the new
 * coordinator's restore finds them gone. */
static void test_an_ambiguous_store_write_is_recovered_from_the_store_not_discarded(void **state) {
    (void)state;
    pipe_cfg c = three_machines(6);
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.ckpt.tolerable_failures = 3;
    fault_at f[] = { { .what = FAULT_DEV_AMBIGUOUS, .at_ns = 25 * SIM_NS_PER_MS, .for_ns = 25 * SIM_NS_PER_MS },
                     { .what = FAULT_ACTOR_CRASH, .target = UINT32_MAX, .at_ns = 46 * SIM_NS_PER_MS,
                       .for_ns = 5 * SIM_NS_PER_MS }, { 0 } };
    checked_run r = run_checked_with(&c, add_faults, f);
    assert_exactly_once(&r);
    assert_true(r.reach[PIPE_REACH_METADATA_AMBIGUOUS] >= 1);
    assert_int_equal(r.fail_causes, 0);                      /* the job ran on: nothing failed it */
    assert_true(r.stats.failovers == 1 && r.stats.restarts == 1);
    c.bug = PIPE_BUG_HA_DISCARD;
    checked_run b = run_checked_with(&c, add_faults, f);
    assert_true(b.stats.restore_failures > 0);
    assert_true(b.report.violations[CHECK_I5] > 0);
}

/* With slots: where each task was deployed at the first restart. */
typedef struct hosts_seen {
    pipeline *p;
    uint32_t  host[8];
    bool      restarted;
} hosts_seen;

static void note_hosts(void *ctx, const pipe_event *e) {
    hosts_seen *h = ctx;
    if (e->kind != PIPE_EV_JOB_RESTARTED || h->restarted) return;
    h->restarted = true;
    for (uint32_t t = 0; t < pipe_job(h->p)->tasks_count && t < 8; t++) h->host[t] = pipe_task_host(h->p, t);
}

static void watch_hosts(pipeline *p, void *ctx) {
    hosts_seen *h = ctx;
    h->p = p;
    pipe_observe(p, note_hosts, h);
}

/* Machine 1 (source[1] and agg[0]: tasks go round robin, t % 3) crashes
 * for longer than the run. With two slots per machine the restart does
 * not wait for it: the two lost tasks go to machine 0, the first with a
 * free slot for their vertices, and every other task stays where it was. */
static void test_with_slots_a_lost_machines_tasks_move_to_free_slots_and_the_others_stay(void **state) {
    (void)state;
    pipe_cfg c = three_machines(7);
    c.task_slots = 2;
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = SIM_NS_PER_S };
    hosts_seen h = { .restarted = false };
    checked_run r = run_checked_with(&c, watch_hosts, &h);
    assert_exactly_once(&r);
    assert_true(h.restarted);
    assert_int_equal(r.stats.restarts, 1);
    assert_int_equal(r.stats.relocated, 2);
    assert_true(r.reach[PIPE_REACH_RELOCATED] >= 1);
    assert_int_equal(r.reach[PIPE_REACH_RESTART_WAITS], 0);
    static const uint32_t expect[7] = { 0, 0, 2, 0, 0, 2, 0 };   /* source, map, agg by subtask, then the sink */
    for (uint32_t t = 0; t < 7; t++) assert_int_equal(h.host[t], expect[t]);
}

/* With one slot per machine on two machines every slot is taken: the
 * restart after machine 1's crash waits until it is back, and nothing
 * moves. */
static void test_with_slots_a_restart_waits_while_no_machine_has_a_free_slot(void **state) {
    (void)state;
    pipe_cfg c = three_machines(8);
    c.machines = 2;
    c.task_slots = 1;
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = 40 * SIM_NS_PER_MS };
    checked_run r = run_checked(&c);
    assert_exactly_once(&r);
    assert_int_equal(r.stats.restarts, 1);
    assert_int_equal(r.stats.relocated, 0);
    assert_true(r.reach[PIPE_REACH_RESTART_WAITS] >= 1);
}

/* Machine 1 pauses past the heartbeat timeout: its tasks move to free
 * slots and run there while the old attempts still sit on the paused
 * machine; when it wakes, those zombies' messages are fenced, and state
 * and output stay exactly once. */
static void test_with_slots_a_paused_machines_tasks_move_and_its_zombies_are_fenced(void **state) {
    (void)state;
    pipe_cfg c = three_machines(9);
    c.task_slots = 2;
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_PAUSE, .target = 1, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = 60 * SIM_NS_PER_MS };
    checked_run r = run_checked(&c);
    assert_exactly_once(&r);
    assert_true(r.fail_causes >> PIPE_FAIL_HEARTBEAT & 1);
    assert_int_equal(r.stats.relocated, 2);
    assert_true(r.stats.fenced_data + r.stats.fenced_rpcs >= 1);
}

/* source(3) -> map(3) -> keyed aggregate(3) -> 2PC sink(3), every edge
 * forward: three pipelined regions, subtask i's four tasks each. */
static pipe_cfg three_chains(uint64_t seed, pipe_failover failover) {
    pipe_cfg c = three_machines(seed);
    job_init(&c.graph);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 3, 3, 3, 3 },
                                          .into = { 0, JOB_FORWARD, JOB_FORWARD, JOB_FORWARD },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.graph.vertices[3].sink = JOB_SINK_2PC;
    c.broker.partitions = 6;
    c.restart.failover = failover;
    return c;
}

typedef struct attempts {
    uint32_t crash;                   /* the task that crashes */
    uint32_t restores[12];            /* by task: its deployments (the first one too) */
    uint64_t attempt[12];             /* by task: the attempt of its last one */
    uint32_t restarted, region, tasks;   /* JOB_RESTARTED steps, the last one's region + 1 and task count */
} attempts;

static void see_attempts(void *ctx, const pipe_event *e) {
    attempts *a = ctx;
    if (e->kind == PIPE_EV_RESTORE && e->task < 12) {
        a->restores[e->task]++;
        a->attempt[e->task] = e->epoch;
    }
    if (e->kind == PIPE_EV_JOB_RESTARTED) {
        a->restarted++;
        a->region = e->one_region ? e->region + 1 : 0;
        a->tasks = e->count;
    }
}

static void crash_and_watch(pipeline *p, void *ctx) {
    attempts *a = ctx;
    pipe_observe(p, see_attempts, a);
    fault_spec x = { .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(p, a->crash), .at_ns = 35 * SIM_NS_PER_MS,
                     .duration_ns = 5 * SIM_NS_PER_MS };
    fault_add(pipe_sim(p), &x);
}

/* agg[1] crashes: its region (source[1], map[1], agg[1], out[1]) is
 * cancelled and deployed again as attempt 1 from the latest completed
 * checkpoint; the other eight tasks keep attempt 0 and are never
 * deployed again; state and output stay exactly-once (I1, I3: the input
 * fold). With failover full every task restarts. */
static void test_region_failover_restarts_the_failed_region_alone(void **state) {
    (void)state;
    pipe_cfg c = three_chains(3, PIPE_FAILOVER_REGION);
    attempts a = { .crash = 7 };                  /* tasks: source 0-2, map 3-5, agg 6-8, out 9-11 */
    checked_run r = run_checked_with(&c, crash_and_watch, &a);
    assert_exactly_once(&r);
    assert_int_equal(r.stats.restarts, 1);
    assert_int_equal(r.stats.restarted_tasks, 4);
    assert_int_equal(r.reach[PIPE_REACH_REGION_RESTART], 1);
    assert_int_equal(a.restarted, 1);
    assert_int_equal(a.region, 1 + 1);            /* region 1, one step */
    assert_int_equal(a.tasks, 4);
    for (uint32_t t = 0; t < 12; t++) {
        bool mine = t % 3 == 1;
        assert_int_equal(a.restores[t], mine ? 2 : 1);
        assert_int_equal(a.attempt[t], mine ? 1 : 0);
    }
    c = three_chains(3, PIPE_FAILOVER_FULL);
    attempts b = { .crash = 7 };
    r = run_checked_with(&c, crash_and_watch, &b);
    assert_exactly_once(&r);
    assert_int_equal(r.stats.restarts, 1);
    assert_int_equal(r.stats.restarted_tasks, 12);
    assert_int_equal(r.reach[PIPE_REACH_REGION_RESTART], 0);
    assert_int_equal(b.region, 0);                /* every task */
    for (uint32_t t = 0; t < 12; t++) assert_int_equal(b.attempt[t], 1);
}

/* Once agg[0] finished and the coordinator knows it, its process
 * crashes: the job runs on, and the coordinator fails nothing (Flink ignores a
 * failure of a FINISHED execution, Execution.processFail). agg[0]'s
 * final state is what it held when it finished: I1 holds against the
 * input fold. */
typedef struct crash_finished {
    pipeline *p;
    uint32_t  task;
    bool      added;
    uint64_t  crashes;                /* the kernel's count, as last seen */
} crash_finished;

static void crash_when_finished(void *ctx, const pipe_event *e) {
    crash_finished *a = ctx;
    a->crashes = pipe_sim(a->p)->stats.actor_crashes;
    /* Once the coordinator knows it finished: it acknowledges a checkpoint for it. */
    if (e->kind != PIPE_EV_ACK_RECEIVED || e->receipt != PIPE_RCV_FOR_FINISHED || e->culprit != a->task || a->added) return;
    a->added = true;
    fault_spec x = { .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(a->p, a->task), .at_ns = e->at_ns,
                     .duration_ns = SIM_NS_PER_MS };
    fault_add(pipe_sim(a->p), &x);
}

static void watch_finish(pipeline *p, void *ctx) {
    ((crash_finished *)ctx)->p = p;
    pipe_observe(p, crash_when_finished, ctx);
}

static void test_a_crash_of_a_finished_task_fails_nothing_and_its_final_state_counts(void **state) {
    (void)state;
    pipe_cfg c = three_chains(3, PIPE_FAILOVER_REGION);
    c.slow[c.slow_count++] = (pipe_slow){ .task = 5, .duration_ns = SIM_NS_PER_S, .factor = 20 };   /* map[2]: its region ends last */
    crash_finished a = { .task = 6 };             /* agg[0] */
    checked_run r = run_checked_with(&c, watch_finish, &a);
    assert_true(a.added);
    assert_int_equal(a.crashes, 1);               /* it crashed before the job ended */
    assert_exactly_once(&r);
    assert_int_equal(r.stats.restarts, 0);
    assert_true(r.reach[PIPE_REACH_FAILURE_OF_FINISHED_IGNORED] >= 1);
}

typedef struct region_times {
    sim_time_ns failed_ns[3], restarted_ns[3];   /* by region: its failure, its restart (0: none) */
    uint32_t    restarts;
} region_times;

static void see_region_times(void *ctx, const pipe_event *e) {
    region_times *a = ctx;
    if (e->kind == PIPE_EV_JOB_FAILED && e->culprit < 12) a->failed_ns[e->culprit % 3] = e->at_ns;
    if (e->kind == PIPE_EV_JOB_RESTARTED && e->one_region && e->region < 3) {
        a->restarted_ns[e->region] = e->at_ns;
        a->restarts++;
    }
}

static void crash_two_regions(pipeline *p, void *ctx) {
    pipe_observe(p, see_region_times, ctx);
    for (uint32_t i = 1; i <= 2; i++) {           /* agg[1] at 35 ms, agg[2] at 40 ms */
        fault_spec x = { .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(p, 6 + i),
                         .at_ns = (30 + 5 * i) * SIM_NS_PER_MS, .duration_ns = SIM_NS_PER_MS };
        fault_add(pipe_sim(p), &x);
    }
}

/* Each failure's restart has its own delay (Flink's DefaultScheduler
 * schedules one restart per failure, restartTasksWithDelay): agg[1]'s
 * region restarts 10 ms after its failure, though agg[2]'s region failed
 * 5 ms later and restarts 10 ms after its own; the job is exactly-once. */
static void test_region_failover_restarts_each_region_after_its_own_delay(void **state) {
    (void)state;
    pipe_cfg c = three_chains(3, PIPE_FAILOVER_REGION);
    c.restart.delay_ns = 10 * SIM_NS_PER_MS;
    region_times a = { .restarts = 0 };
    checked_run r = run_checked_with(&c, crash_two_regions, &a);
    assert_exactly_once(&r);
    assert_int_equal(a.restarts, 2);
    assert_int_equal(r.stats.restarted_tasks, 8);
    for (uint32_t g = 1; g <= 2; g++) {
        assert_true(a.failed_ns[g] > 0);
        assert_int_equal(a.restarted_ns[g], a.failed_ns[g] + c.restart.delay_ns);
    }
    assert_int_equal(a.restarted_ns[0], 0);
}

typedef struct lost_assign {
    sim_time_ns failed_ns[8];         /* the job's failures: when, and why */
    uint32_t    cause[8], culprit[8], count;
} lost_assign;

static void see_failures(void *ctx, const pipe_event *e) {
    lost_assign *a = ctx;
    if (e->kind != PIPE_EV_JOB_FAILED || a->count == 8) return;
    a->failed_ns[a->count] = e->at_ns;
    a->cause[a->count] = e->cause;
    a->culprit[a->count++] = e->culprit;
}

/* agg[1] crashes at 35 ms: its region restarts 10 ms later, and the
 * enumerator's assignment to source[1] is lost; agg[2]'s region fails
 * before that assignment's timeout runs out. */
static void lose_an_assignment_then_fail_another_region(pipeline *p, void *ctx) {
    pipe_observe(p, see_failures, ctx);
    fault_spec crash = { .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(p, 7), .at_ns = 35 * SIM_NS_PER_MS,
                         .duration_ns = SIM_NS_PER_MS };
    fault_add(pipe_sim(p), &crash);
    fault_spec lose = { .kind = FAULT_LINK_LOSS, .at_ns = 40 * SIM_NS_PER_MS, .duration_ns = 20 * SIM_NS_PER_MS,
                        .ratio = SIM_RATIO_ALWAYS };
    bool to_task;
    assert_true(pipe_rpc_kind("assign", &lose.msg_type, &to_task));
    lose.target = to_task ? pipe_task_rpc_in_link(p, 1) : pipe_task_rpc_link(p, 1);
    fault_add(pipe_sim(p), &lose);
    fault_spec crash2 = { .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(p, 8), .at_ns = 46 * SIM_NS_PER_MS,
                          .duration_ns = SIM_NS_PER_MS };
    fault_add(pipe_sim(p), &crash2);
}

/* A region's lost assignment is found though another region failed
 * before its timeout ran out (FLINK-21996: the reader fails): the timeout
 * is the reader's, not the attempt's, so the later failure does not void
 * it, and the job stays exactly-once. */
static void test_a_lost_assignment_is_found_though_another_region_failed_meanwhile(void **state) {
    (void)state;
    pipe_cfg c = three_chains(3, PIPE_FAILOVER_REGION);
    c.restart.delay_ns = 10 * SIM_NS_PER_MS;
    lost_assign a = { .count = 0 };
    checked_run r = run_checked_with(&c, lose_an_assignment_then_fail_another_region, &a);
    assert_exactly_once(&r);
    assert_true(r.fail_causes >> PIPE_FAIL_EVENT_LOST & 1);
    /* the assignment went at the region's redeployment (45.2 ms); with a
     * timeout of 20 RPC latencies (4 ms) source[1] fails at 49.2 ms, before
     * agg[2]'s region restarts (56.2 ms: before, only that deployment's
     * timer found it, at 60.2 ms) */
    assert_true(a.count >= 3 && a.cause[0] == PIPE_FAIL_CONNECTION && a.cause[1] == PIPE_FAIL_CONNECTION);
    assert_int_equal(a.cause[2], PIPE_FAIL_EVENT_LOST);
    assert_int_equal(a.culprit[2], 1);
    assert_int_equal(a.failed_ns[2], a.failed_ns[0] + c.restart.delay_ns + 4 * SIM_NS_PER_MS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_with_slots_a_lost_machines_tasks_move_to_free_slots_and_the_others_stay),
        cmocka_unit_test(test_with_slots_a_restart_waits_while_no_machine_has_a_free_slot),
        cmocka_unit_test(test_with_slots_a_paused_machines_tasks_move_and_its_zombies_are_fenced),
        cmocka_unit_test(test_a_lost_deployment_is_sent_again_and_the_job_stays_exactly_once),
        cmocka_unit_test(test_a_lost_cancellation_is_sent_again_while_the_restart_waits),
        cmocka_unit_test(test_a_machine_paused_past_the_heartbeat_timeout_is_lost_and_its_zombie_fenced),
        cmocka_unit_test(test_a_short_pause_is_no_failure),
        cmocka_unit_test(test_a_paused_coordinator_restarts_the_job_and_stays_exactly_once),
        cmocka_unit_test(test_a_lost_split_assignment_fails_the_job_over_and_loses_no_split),
        cmocka_unit_test(test_an_ambiguous_store_write_is_recovered_from_the_store_not_discarded),
        cmocka_unit_test(test_region_failover_restarts_the_failed_region_alone),
        cmocka_unit_test(test_a_crash_of_a_finished_task_fails_nothing_and_its_final_state_counts),
        cmocka_unit_test(test_region_failover_restarts_each_region_after_its_own_delay),
        cmocka_unit_test(test_a_lost_assignment_is_found_though_another_region_failed_meanwhile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
