/* tests/test_clog.c: the changelog state backend (model/tm/clog.c), held
 * to what Flink's own tests of it say, transcribed as inputs and expected
 * outputs: a restore after materializations gives the state written
 * (ChangelogStateBackendTestUtils.testMaterializedRestore), a
 * materialization with nothing new is skipped (PeriodicMaterializationManager:
 * "has no state updates since last materialization, skip this one"), a
 * persist of what was uploaded already uploads nothing again
 * (FsStateChangelogWriterTest), and an upload that failed fails later
 * persists until a materialization (FsStateChangelogWriter.ensureCanPersist). */
#include "harness.h"

#include "../model/pipe.h"

/* source(2) -> keyed aggregate(2, hash) -> sink(2, forward), changelog. */
static pipe_cfg job_clog(uint64_t seed) {
    pipe_cfg c = pipe_cfg_default(seed);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 2 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.graph.vertices[3].sink = JOB_SINK_2PC;
    c.broker.partitions = 4;
    c.broker.records_per_partition = 10000;
    c.broker.keys = 500;
    c.machines = 2;
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.state.changelog = true;
    c.state.materialize_ns = 12 * SIM_NS_PER_MS;
    return c;
}

static pipeline *make(const pipe_cfg *c) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    return p;
}

/* Crash the keyed tasks once, as checkpoint `at` completes, after the
 * materializations before it. */
typedef struct crasher {
    pipeline *p;
    uint64_t  at, materialized_before;
    uint32_t  max_files;              /* the longest chain a completed checkpoint named */
    bool      crashed;
} crasher;

static void on_step(void *ctx, const pipe_event *e) {
    crasher *k = ctx;
    const job *j = pipe_job(k->p);
    if (e->kind == PIPE_EV_MATERIALIZED && e->ok && !k->crashed) k->materialized_before++;
    if (e->kind != PIPE_EV_CKPT_COMPLETE) return;
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        uint32_t files = pipe_ckpt_task_files(k->p, e->ckpt, t);
        if (files > k->max_files) k->max_files = files;
    }
    if (e->ckpt != k->at || k->crashed) return;
    k->crashed = true;
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        if (j->vertices[j->tasks[t].vertex].kind != JOB_KEYED_AGG) continue;
        fault_add(pipe_sim(k->p), &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(k->p, t),
                                                 .duration_ns = 1, .at_ns = e->at_ns });
    }
}

/* testMaterializedRestore: state written across two materializations,
 * checkpointed, restored: every key holds what was written. Here: the
 * keyed tasks crash after two materializations each; the restored state,
 * and the job's end state, are the failure-free run's. */
static void test_a_restore_after_materializations_gives_the_state_written(void **state) {
    (void)state;
    pipe_cfg c = job_clog(1);
    pipeline *ref = make(&c);
    pipe_run(ref);
    assert_int_equal(pipe_get_status(ref), PIPE_FINISHED);
    pipeline *p = make(&c);
    crasher k = { .p = p, .at = 6 };
    pipe_observe(p, on_step, &k);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    print_message("%llu materializations before the crash, chains up to %u files, %llu restarts\n",
                  (unsigned long long)k.materialized_before, k.max_files,
                  (unsigned long long)pipe_get_stats(p)->restarts);
    assert_true(k.crashed);
    assert_true(k.materialized_before >= 4);      /* two per keyed task */
    assert_true(k.max_files >= 2);                /* a materialization and the log after it */
    assert_true(pipe_get_stats(p)->restarts >= 1);
    pipe_state_diff d;
    assert_true(pipe_compare_states(ref, p, &d));
    pipe_output_diff out;
    pipe_compare_output(ref, p, &out);
    assert_int_equal(out.lost, 0);
    assert_int_equal(out.duplicated, 0);
    pipe_destroy(p);
    pipe_destroy(ref);
}

/* "has no state updates since last materialization, skip this one": a
 * keyed task that gets no key changes nothing, and its materializations
 * are skipped; a checkpoint takes the segments earlier ones uploaded
 * since the materialization and uploads only what is new (a persist of
 * an uploaded range uploads nothing again). */
static void test_a_materialization_with_nothing_new_is_skipped_and_uploads_are_shared(void **state) {
    (void)state;
    pipe_cfg c = job_clog(2);
    c.broker.keys = 1;                            /* one keyed task gets every record, the other none */
    c.broker.records_per_partition = 30000;
    c.state.materialize_ns = 40 * SIM_NS_PER_MS;
    pipeline *p = make(&c);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    const uint64_t *r = pipe_reached(p);
    print_message("%llu materialized, %llu skipped, %llu shared segments\n",
                  (unsigned long long)r[PIPE_REACH_CHANGELOG_MATERIALIZED],
                  (unsigned long long)r[PIPE_REACH_CHANGELOG_NOTHING_TO_MATERIALIZE],
                  (unsigned long long)r[PIPE_REACH_CHANGELOG_SHARED_SEGMENT]);
    assert_true(r[PIPE_REACH_CHANGELOG_MATERIALIZED] > 0);
    assert_true(r[PIPE_REACH_CHANGELOG_NOTHING_TO_MATERIALIZE] > 0);
    assert_true(r[PIPE_REACH_CHANGELOG_SHARED_SEGMENT] > 0);
    assert_true(pipe_get_stats(p)->files_shared > 0);
    pipe_destroy(p);
}

/* ensureCanPersist: after an upload failed, persists fail ("The upload for
 * X has already failed previously") until a materialization passes it;
 * the job goes on exactly-once. */
static void test_after_a_failed_upload_checkpoints_fail_until_a_materialization(void **state) {
    (void)state;
    pipe_cfg c = job_clog(3);
    c.ckpt.tolerable_failures = 1000;
    pipeline *ref = make(&c);
    pipe_run(ref);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_DEV_FAIL, .target = 0, .at_ns = 14 * SIM_NS_PER_MS,
                                               .duration_ns = 3 * SIM_NS_PER_MS, .ratio = SIM_RATIO_ALWAYS };
    pipeline *p = make(&c);
    assert_int_equal(pipe_store_dev(p), 0);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(pipe_reached(p)[PIPE_REACH_CHANGELOG_FAILED_UPLOAD] > 0);
    assert_true(pipe_reached(p)[PIPE_REACH_CHANGELOG_MATERIALIZED] > 0);
    pipe_state_diff d;
    assert_true(pipe_compare_states(ref, p, &d));
    pipe_destroy(p);
    pipe_destroy(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_restore_after_materializations_gives_the_state_written),
        cmocka_unit_test(test_a_materialization_with_nothing_new_is_skipped_and_uploads_are_shared),
        cmocka_unit_test(test_after_a_failed_upload_checkpoints_fail_until_a_materialization),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
