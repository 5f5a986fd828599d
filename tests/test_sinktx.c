/* tests/test_sinktx.c: how sink output becomes visible (model/tm/sinktx.c):
 * plain, idempotent and two-phase-commit sinks under crashes placed
 * between a pre-commit and its completion notice (invariant I3). */
#include "harness.h"

#include "../model/pipe.h"

/* source(2) -> map(2, forward) -> keyed aggregate(2, hash) -> sink(2, forward) */
static pipe_cfg job_with_sink(uint64_t seed, job_sink sink) {
    pipe_cfg c = pipe_cfg_default(seed);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 2 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.graph.vertices[3].sink = sink;
    c.broker.partitions = 4;
    c.broker.records_per_partition = 20000;
    c.broker.keys = 500;
    c.machines = 2;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    return c;
}

static pipeline *make(const pipe_cfg *c) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    return p;
}

/* On the completion of checkpoints 2 and 5, crash both sink tasks at
 * once: the completion notice is still on its way, so their pre-committed
 * transactions are neither committed nor aborted when they go down. And
 * when the first sink pre-commits for checkpoint 3, crash them too:
 * checkpoint 3 never completes, so that transaction must be aborted. */
typedef struct crasher {
    pipeline *p;
    uint32_t  crashes;
    uint64_t  commits_seen;
    bool      precommit_crashed;
} crasher;

static void crash_sinks_on_completion(void *ctx, const pipe_event *e) {
    crasher *k = ctx;
    if (e->kind == PIPE_EV_SINK_COMMIT) k->commits_seen++;
    const job *j = pipe_job(k->p);
    bool at_completion = e->kind == PIPE_EV_CKPT_COMPLETE && (e->ckpt == 2 || e->ckpt == 5);
    bool at_precommit = e->kind == PIPE_EV_TRIGGER && e->ckpt == 3 && !k->precommit_crashed &&
                        j->vertices[j->tasks[e->task].vertex].kind == JOB_SINK;
    if (!at_completion && !at_precommit) return;
    k->precommit_crashed |= at_precommit;
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        if (j->vertices[j->tasks[t].vertex].kind != JOB_SINK) continue;
        /* The task dies; its TaskManager lives on and offers the slot again. */
        fault_add(pipe_sim(k->p), &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(k->p, t), .duration_ns = 1,
                                                 .at_ns = e->at_ns });
        k->crashes++;
    }
}

typedef struct result {
    pipe_output_diff out;
    pipe_stats       stats;
    uint32_t         crashes;
    uint64_t         commits_seen;
} result;

static result run_with_crashes(pipe_cfg *c) {
    pipe_cfg r = *c;
    pipeline *ref = make(&r);
    pipe_run(ref);
    assert_int_equal(pipe_get_status(ref), PIPE_FINISHED);
    pipeline *p = make(c);
    crasher k = { .p = p };
    pipe_observe(p, crash_sinks_on_completion, &k);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    result res = { .stats = *pipe_get_stats(p), .crashes = k.crashes, .commits_seen = k.commits_seen };
    pipe_compare_output(ref, p, &res.out);
    pipe_state_diff d;
    assert_true(pipe_compare_states(ref, p, &d));   /* aligned: state is exactly-once in every variant */
    pipe_destroy(p);
    pipe_destroy(ref);
    return res;
}

static void test_two_phase_commit_output_holds_every_record_once_despite_crashes(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        pipe_cfg c = job_with_sink(seed, JOB_SINK_2PC);
        result r = run_with_crashes(&c);
        print_message("2pc seed %llu: %u crashes, %llu restarts, %llu committed, %llu aborted, lost %llu dup %llu\n",
                      (unsigned long long)seed, r.crashes, (unsigned long long)r.stats.restarts,
                      (unsigned long long)r.stats.txn_committed, (unsigned long long)r.stats.txn_aborted,
                      (unsigned long long)r.out.lost, (unsigned long long)r.out.duplicated);
        assert_int_equal(r.crashes, 6);
        assert_true(r.stats.restarts >= 3);
        assert_true(r.stats.txn_aborted >= 2);     /* the open transactions of the failed attempts */
        assert_true(r.commits_seen > 0);
        assert_int_equal(r.out.records, 80000);
        assert_int_equal(r.out.lost, 0);
        assert_int_equal(r.out.duplicated, 0);
    }
}

/* A record's latency at a sink runs from its own event time, disorder
 * included, whatever the sink. Without windows disorder changes no
 * event's time, only the records' event times (the same trace), so a
 * two-phase-commit sink's latencies must sum to those of the same job in
 * order plus every record's shift. Event times of a nanosecond apart
 * stay far below every visibility time: no latency is clipped at 0. */
static void test_two_phase_commit_latency_runs_from_each_records_disordered_event_time(void **state) {
    (void)state;
    pipe_cfg c = job_with_sink(1, JOB_SINK_2PC);
    c.broker.event_gap_ns = 1;
    pipeline *in_order = make(&c);
    pipe_run(in_order);
    c.broker.disorder_ns = 5000;
    pipeline *p = make(&c);
    pipe_run(p);
    assert_int_equal(pipe_get_status(in_order), PIPE_FINISHED);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_int_equal(pipe_sim(p)->trace_hash, pipe_sim(in_order)->trace_hash);
    broker_topic_cfg t = broker_cfg_topic(&c.broker, 0);
    uint64_t shift = 0;
    for (uint32_t part = 0; part < t.partitions; part++) {
        for (uint64_t off = 0; off < t.records_per_partition; off++) {
            shift += (off + 1) * t.event_gap_ns - broker_event_time(&t, part, off);
        }
    }
    const pipe_stats *a = pipe_get_stats(in_order), *b = pipe_get_stats(p);
    assert_int_equal(a->visible_records, 80000);
    assert_int_equal(b->visible_records, 80000);
    assert_true(shift > 80000);                   /* most records moved */
    assert_int_equal(b->latency_ns_sum - a->latency_ns_sum, shift);
    pipe_destroy(p);
    pipe_destroy(in_order);
}

static void test_plain_sink_shows_duplicates_and_idempotent_sink_does_not(void **state) {
    (void)state;
    pipe_cfg c = job_with_sink(1, JOB_SINK_PLAIN);
    result plain = run_with_crashes(&c);
    c = job_with_sink(1, JOB_SINK_IDEMPOTENT);
    result idem = run_with_crashes(&c);
    print_message("plain: dup %llu lost %llu; idempotent: dup %llu lost %llu\n",
                  (unsigned long long)plain.out.duplicated, (unsigned long long)plain.out.lost,
                  (unsigned long long)idem.out.duplicated, (unsigned long long)idem.out.lost);
    assert_true(plain.out.duplicated > 0);        /* replayed records were visible already */
    assert_int_equal(plain.out.lost, 0);          /* but at least once */
    assert_int_equal(idem.out.duplicated, 0);
    assert_int_equal(idem.out.lost, 0);
    /* The counters say the same: a plain sink's duplicates are visible
     * again, an idempotent sink's replays overwrite and show once. */
    assert_int_equal(plain.stats.visible_records, plain.stats.sink_records);
    assert_true(plain.stats.visible_records > 80000);
    assert_int_equal(plain.stats.overwrites, 0);
    assert_int_equal(idem.stats.visible_records, 80000);
    assert_true(idem.stats.overwrites > 0);
    assert_int_equal(idem.stats.visible_records + idem.stats.overwrites, idem.stats.sink_records);
}

/* The deliberate bug commit-before-complete: output visible at pre-commit
 * is replayed after the restore, so it shows twice. */
static void test_committing_before_completion_is_caught(void **state) {
    (void)state;
    pipe_cfg c = job_with_sink(1, JOB_SINK_2PC);
    c.bug = PIPE_BUG_EARLY_COMMIT;
    pipe_cfg ref_cfg = c;
    ref_cfg.bug = PIPE_BUG_NONE;
    pipeline *ref = make(&ref_cfg);
    pipe_run(ref);
    pipeline *p = make(&c);
    crasher k = { .p = p };
    pipe_observe(p, crash_sinks_on_completion, &k);
    pipe_run(p);
    pipe_output_diff d;
    pipe_compare_output(ref, p, &d);
    print_message("commit-before-complete: %llu duplicated, first p%llu@%llu\n", (unsigned long long)d.duplicated,
                  (unsigned long long)(d.first_duplicated >> 40), (unsigned long long)(d.first_duplicated & BROKER_OFFSET_MAX));
    assert_true(d.duplicated > 0);
    pipe_destroy(p);
    pipe_destroy(ref);
}

/* No failure: a two-phase-commit sink's output becomes visible only at
 * completions, and all of it by the end. */
static void test_two_phase_commit_output_is_invisible_until_its_checkpoint_completes(void **state) {
    (void)state;
    pipe_cfg c = job_with_sink(2, JOB_SINK_2PC);
    pipeline *p = make(&c);
    pipe_sim(p)->cfg.time_max_ns = 15 * SIM_NS_PER_MS;   /* stop after the first completion or so */
    pipe_run(p);
    uint64_t visible_early = pipe_get_stats(p)->visible_records, at_sinks = pipe_get_stats(p)->sink_records;
    uint64_t completed = pipe_get_stats(p)->completed;
    pipe_destroy(p);
    print_message("at 15ms: %llu at the sinks, %llu visible, %llu completed\n", (unsigned long long)at_sinks,
                  (unsigned long long)visible_early, (unsigned long long)completed);
    assert_true(at_sinks > 0);
    assert_true(visible_early < at_sinks);
    p = make(&c);
    pipe_run(p);
    assert_int_equal(pipe_get_stats(p)->visible_records, 80000);
    pipe_destroy(p);
}

/* With slots, pause the machine of sink[0] while it processes a buffer,
 * long past the heartbeat timeout: the coordinator moves the sink (and
 * what else ran there) to a free slot, the new attempt restores and
 * aborts the open transaction, and when the machine wakes the old
 * attempt finishes its buffer as a zombie: the external system must
 * refuse its write, so each record stays visible once. */
typedef struct pauser {
    pipeline *p;
    bool      paused;
} pauser;

static void pause_busy_sink(void *ctx, const pipe_event *e) {
    pauser *k = ctx;
    const job *j = pipe_job(k->p);
    if (k->paused || e->kind != PIPE_EV_CONSUME || e->at_ns < 30 * SIM_NS_PER_MS) return;
    if (j->vertices[j->tasks[e->task].vertex].kind != JOB_SINK || j->tasks[e->task].subtask != 0) return;
    k->paused = true;
    fault_add(pipe_sim(k->p), &(fault_spec){ .kind = FAULT_MACHINE_PAUSE, .target = pipe_task_host(k->p, e->task),
                                             .at_ns = e->at_ns, .duration_ns = 150 * SIM_NS_PER_MS });
}

static uint64_t zombie_sink_run(pipe_bug bug, uint64_t *duplicated, uint64_t *lost) {
    pipe_cfg c = job_with_sink(3, JOB_SINK_2PC);
    c.machines = 3;
    c.task_slots = 2;
    c.bug = bug;
    pipeline *p = make(&c);
    pauser k = { .p = p };
    pipe_observe(p, pause_busy_sink, &k);
    pipe_run(p);
    assert_true(k.paused);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(pipe_get_stats(p)->relocated >= 1);
    *duplicated = *lost = 0;                      /* every record reaches one sink, once (forward edges) */
    for (uint32_t part = 0; part < c.broker.partitions; part++) {
        for (uint64_t o = 0; o < c.broker.records_per_partition; o++) {
            uint32_t n = pipe_sink_count(p, part, o);
            *duplicated += n > 1;
            *lost += n == 0;
        }
    }
    uint64_t fenced = pipe_reached(p)[PIPE_REACH_TXN_FENCED];
    pipe_destroy(p);
    return fenced;
}

static void test_a_zombie_sink_moved_away_from_a_paused_machine_is_fenced_by_the_external_system(void **state) {
    (void)state;
    uint64_t duplicated, lost;
    assert_true(zombie_sink_run(PIPE_BUG_NONE, &duplicated, &lost) >= 1);
    assert_int_equal(duplicated, 0);
    assert_int_equal(lost, 0);
    assert_int_equal(zombie_sink_run(PIPE_BUG_NO_FENCING, &duplicated, &lost), 0);   /* the bug fences nothing */
    print_message("no fencing: %llu records duplicated\n", (unsigned long long)duplicated);
    assert_true(duplicated > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_zombie_sink_moved_away_from_a_paused_machine_is_fenced_by_the_external_system),
        cmocka_unit_test(test_two_phase_commit_output_holds_every_record_once_despite_crashes),
        cmocka_unit_test(test_two_phase_commit_latency_runs_from_each_records_disordered_event_time),
        cmocka_unit_test(test_plain_sink_shows_duplicates_and_idempotent_sink_does_not),
        cmocka_unit_test(test_committing_before_completion_is_caught),
        cmocka_unit_test(test_two_phase_commit_output_is_invisible_until_its_checkpoint_completes),
    };
    return cmocka_run_group_tests_name("sinktx", tests, NULL, NULL);
}
