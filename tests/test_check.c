/* tests/test_check.c: invariant I2, the consistent cut (model/check.c):
 * every completed checkpoint equals the state of its source prefixes. */
#include "harness.h"

#include "../model/pipe.h"

/* source(2) -> map(2, forward) -> keyed aggregate(2, hash) -> sink(2, forward) */
static pipe_cfg job_of(uint64_t seed, pipe_mode mode) {
    pipe_cfg c = pipe_cfg_default(seed);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 2 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD },
                                          .cost_ns = { 2000, 1000, 3000, 8000 } });
    c.broker.partitions = 4;
    c.broker.records_per_partition = 10000;
    c.broker.keys = 300;
    c.ckpt.mode = mode;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    c.check_cut = true;
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 47 * SIM_NS_PER_MS,
                                               .duration_ns = 5 * SIM_NS_PER_MS };
    return c;
}

static pipe_stats run(const pipe_cfg *c) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    pipe_stats st = *pipe_get_stats(p);
    pipe_destroy(p);
    return st;
}

static void test_every_completed_checkpoint_is_the_state_of_its_source_prefixes(void **state) {
    (void)state;
    /* Aligned, unaligned (state plus the channel state it persisted), and
     * aligned with a timeout: each completion is checked and holds. */
    pipe_cfg c = job_of(1, PIPE_ALIGNED);
    pipe_stats st = run(&c);
    assert_true(st.cut_checks >= 5);
    assert_int_equal(st.cut_checks, st.completed);
    assert_int_equal(st.cut_violations, 0);
    c = job_of(1, PIPE_UNALIGNED);
    st = run(&c);
    assert_true(st.cs_bytes > 0);
    assert_int_equal(st.cut_checks, st.completed);
    assert_int_equal(st.cut_violations, 0);
    c = job_of(1, PIPE_ALIGNED);
    c.ckpt.alignment_timeout_ns = SIM_NS_PER_MS;
    st = run(&c);
    assert_true(st.alignment_timeouts > 0);
    assert_int_equal(st.cut_violations, 0);
    /* At-least-once does not promise it: not checked. */
    c = job_of(1, PIPE_AT_LEAST_ONCE);
    st = run(&c);
    assert_int_equal(st.cut_checks, 0);
}

/* Each of these bugs makes a checkpoint claim a state its offsets do not
 * explain, and I2 names it at the first such completion. */
static void test_wrong_offsets_partial_acks_and_leaking_updates_break_the_cut(void **state) {
    (void)state;
    pipe_bug bugs[] = { PIPE_BUG_OFFSET_OFF_BY_ONE, PIPE_BUG_PARTIAL_ACKS, PIPE_BUG_NO_COW };
    for (size_t i = 0; i < sizeof bugs / sizeof bugs[0]; i++) {
        pipe_cfg c = job_of(2, PIPE_ALIGNED);
        c.state.backend = PIPE_BACKEND_DURABLE;        /* a slow write: updates would leak into it */
        c.bug = bugs[i];
        pipe_stats st = run(&c);
        print_message("%s: %llu of %llu checks violated, first checkpoint %llu key %llu\n", pipe_bug_name(bugs[i]),
                      (unsigned long long)st.cut_violations, (unsigned long long)st.cut_checks,
                      (unsigned long long)st.cut_first_ckpt, (unsigned long long)st.cut_first_key);
        assert_true(st.cut_violations > 0);
        assert_int_equal(st.cut_first_vertex, 2);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_completed_checkpoint_is_the_state_of_its_source_prefixes),
        cmocka_unit_test(test_wrong_offsets_partial_acks_and_leaking_updates_break_the_cut),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
