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

/* I2's model of the operators (filters by record id, maps, joins tagging
 * keys by input, broadcast copies, unions) against the real tasks: on a
 * graph with all of them, under crashes, in the three exactly-once
 * variants, every completion holds and so do state and output. */
static void test_the_cut_holds_on_joins_broadcasts_and_unions_under_crashes(void **state) {
    (void)state;
    uint64_t checks = 0;
    for (int mode = 0; mode < 3; mode++) {
        for (uint64_t seed = 1; seed <= 8; seed++) {
            pipe_cfg c = pipe_cfg_default(seed);
            job *j = &c.graph;
            uint32_t src = job_add_vertex(j, "src", JOB_SOURCE, 2, 2000);
            uint32_t flt = job_add_vertex(j, "flt", JOB_FILTER, 2, 1000);
            uint32_t mp = job_add_vertex(j, "mp", JOB_MAP, 2, 1000);
            uint32_t agg = job_add_vertex(j, "agg", JOB_KEYED_AGG, 2, 3000);
            uint32_t jn = job_add_vertex(j, "jn", JOB_KEYED_JOIN, 3, 3000);
            uint32_t un = job_add_vertex(j, "un", JOB_UNION, 2, 500);
            uint32_t snk = job_add_vertex(j, "snk", JOB_SINK, 1, 500);
            j->vertices[flt].keep_percent = 70;
            j->vertices[mp].map_add = 3;
            j->vertices[snk].sink = seed % 2 ? JOB_SINK_2PC : JOB_SINK_IDEMPOTENT;
            job_add_edge(j, src, flt, JOB_FORWARD);
            job_add_edge(j, src, mp, JOB_REBALANCE);
            job_add_edge(j, flt, agg, JOB_HASH);
            job_add_edge(j, agg, jn, JOB_HASH);
            job_add_edge(j, mp, jn, JOB_BROADCAST);
            job_add_edge(j, jn, un, JOB_REBALANCE);
            job_add_edge(j, flt, un, JOB_REBALANCE);
            job_add_edge(j, un, snk, JOB_REBALANCE);
            c.broker.partitions = 4;
            c.broker.records_per_partition = 3000;
            c.broker.keys = 200;
            c.machines = 3;
            c.jitter_ns = SIM_NS_PER_MS;
            c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
            c.ckpt.tolerable_failures = 1000;
            c.restart.delay_ns = 3 * SIM_NS_PER_MS;
            c.restart.attempts = 1000;
            if (mode == 1) c.ckpt.mode = PIPE_UNALIGNED;
            if (mode == 2) {
                c.ckpt.alignment_timeout_ns = SIM_NS_PER_MS;
                c.state.backend = PIPE_BACKEND_DURABLE;
                c.state.incremental = true;
                c.state.full_every = 2;
            }
            char err[256];
            pipeline *ref = pipe_create(&c, err, sizeof err);
            assert_non_null(ref);
            pipe_run(ref);
            c.check_cut = true;
            rng r;
            rng_seed(&r, seed, (uint64_t)mode);
            for (int k = 0; k < 3; k++) {
                c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = rng_below(&r, 3),
                                                           .at_ns = (3 + rng_below(&r, 40)) * SIM_NS_PER_MS,
                                                           .duration_ns = 2 * SIM_NS_PER_MS };
            }
            pipeline *p = pipe_create(&c, err, sizeof err);
            assert_non_null(p);
            pipe_run(p);
            const pipe_stats *st = pipe_get_stats(p);
            pipe_state_diff d;
            pipe_output_diff o;
            assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
            assert_true(pipe_compare_states(ref, p, &d));
            pipe_compare_output(ref, p, &o);
            assert_int_equal(o.lost + o.duplicated, 0);
            if (st->cut_violations > 0) {
                fail_msg("mode %d seed %llu: checkpoint %llu breaks the cut at %s key %llu", mode, (unsigned long long)seed,
                         (unsigned long long)st->cut_first_ckpt, j->vertices[st->cut_first_vertex].name,
                         (unsigned long long)st->cut_first_key);
            }
            checks += st->cut_checks;
            pipe_destroy(p);
            pipe_destroy(ref);
        }
    }
    print_message("%llu completions checked\n", (unsigned long long)checks);
    assert_true(checks >= 100);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_completed_checkpoint_is_the_state_of_its_source_prefixes),
        cmocka_unit_test(test_wrong_offsets_partial_acks_and_leaking_updates_break_the_cut),
        cmocka_unit_test(test_the_cut_holds_on_joins_broadcasts_and_unions_under_crashes),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
