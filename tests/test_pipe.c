/* tests/test_pipe.c: whole jobs on the simulator: checkpoints, crashes,
 * recovery, and the exactly-once / at-least-once claims of the protocol. */
#include "harness.h"

#include <stdlib.h>

#include "../model/pipe.h"

/* source(p) -> map(p, forward) -> keyed aggregate(p, hash) -> sink(1, rebalance) */
static pipe_cfg three_stage(uint64_t seed, uint32_t p, uint64_t records_per_partition) {
    pipe_cfg c = pipe_cfg_default(seed);
    job *j = &c.graph;
    uint32_t src = job_add_vertex(j, "source", JOB_SOURCE, p, 2000);
    uint32_t map = job_add_vertex(j, "map", JOB_MAP, p, 1000);
    uint32_t agg = job_add_vertex(j, "agg", JOB_KEYED_AGG, p, 3000);
    uint32_t sink = job_add_vertex(j, "sink", JOB_SINK, 1, 500);
    job_add_edge(j, src, map, JOB_FORWARD);
    job_add_edge(j, map, agg, JOB_HASH);
    job_add_edge(j, agg, sink, JOB_REBALANCE);
    c.broker.partitions = p * 2;
    c.broker.records_per_partition = records_per_partition;
    c.broker.keys = 500;
    c.machines = 2;
    c.ckpt.interval_ns = 20 * SIM_NS_PER_MS;
    return c;
}

typedef struct outcome {
    pipe_status status;
    pipe_stats  stats;
    kstate      agg;                 /* merged state of vertex 2 */
    uint64_t    sink_dups, sink_missing;
    uint64_t    trace_hash;
} outcome;

/* With 2 ms of link jitter, seeds 1 to 30 all but 5, 6, 12, 14 and 25
 * show duplicates after the crash at 47 ms (seed 1: 59 records counted
 * twice); without jitter none does: barriers then arrive almost together. */
#define AT_LEAST_ONCE_DUP_SEED 1

static sim_run *holder_;             /* owns the memory of outcome.agg */

static outcome run_job(const pipe_cfg *c) {
    char err[200];
    pipe *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    pipe_run(p);
    outcome o = { .status = pipe_get_status(p), .stats = *pipe_get_stats(p), .trace_hash = pipe_sim(p)->trace_hash };
    if (holder_ == NULL) {
        sim_cfg hc = sim_cfg_default(0);
        hc.model_bytes = 256u << 20;
        holder_ = sim_run_create(&hc);
    }
    kstate_init(&o.agg, holder_, 2 * (uint32_t)c->broker.keys);
    pipe_vertex_state(p, 2, &o.agg);
    for (uint32_t part = 0; part < c->broker.partitions; part++) {
        for (uint64_t off = 0; off < c->broker.records_per_partition; off++) {
            uint32_t n = pipe_sink_count(p, part, off);
            o.sink_dups += n > 1 ? n - 1 : 0;
            o.sink_missing += n == 0;
        }
    }
    pipe_destroy(p);
    return o;
}

static uint64_t state_records(const kstate *s) {
    uint64_t n = 0, key;
    uint32_t slot = 0;
    kagg agg;
    while (kstate_next(s, &slot, &key, &agg)) n += agg.count;
    return n;
}

static void test_pipeline_without_faults_checkpoints_and_reaches_the_end(void **state) {
    (void)state;
    pipe_cfg c = three_stage(1, 2, 20000);
    outcome o = run_job(&c);
    print_message("completed %llu aborted %llu records %llu\n", (unsigned long long)o.stats.completed,
                  (unsigned long long)o.stats.aborted, (unsigned long long)o.stats.records_read);
    assert_int_equal(o.status, PIPE_FINISHED);
    assert_true(o.stats.completed >= 3);
    assert_int_equal(o.stats.aborted, 0);
    assert_int_equal(o.stats.restarts, 0);
    assert_int_equal(state_records(&o.agg), 80000);
    assert_int_equal(o.sink_dups, 0);
    assert_int_equal(o.sink_missing, 0);
}

static void add_crash(pipe_cfg *c, uint32_t machine, sim_time_ns at_ns, sim_time_ns down_ns) {
    c->faults[c->faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .at_ns = at_ns,
                                                 .duration_ns = down_ns, .target = machine };
}

/* Aligned checkpoints: a machine crash in the middle, recovery from the
 * latest completed checkpoint, and the final keyed state equals that of a
 * failure-free run over the same input (I1), for several seeds and times. */
static void test_aligned_crash_recovers_to_the_failure_free_state(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        pipe_cfg c = three_stage(seed, 2, 20000);
        c.source_rate_per_s = 200000;                 /* 0.1 s of input per task */
        if (seed % 2 == 0) c.jitter_ns = 2 * SIM_NS_PER_MS;   /* barriers skewed across channels */
        outcome clean = run_job(&c);
        add_crash(&c, 1, (30 + 7 * seed) * SIM_NS_PER_MS, 20 * SIM_NS_PER_MS);
        outcome hit = run_job(&c);
        uint64_t key = 0;
        if (!kstate_equal(&clean.agg, &hit.agg, &key)) {
            fail_msg("seed=0x%llx: state of key %llu differs after recovery", (unsigned long long)seed,
                     (unsigned long long)key);
        }
        assert_int_equal(hit.status, PIPE_FINISHED);
        assert_true(hit.stats.restarts >= 1);
        assert_true(hit.stats.completed >= 1);
        assert_int_equal(state_records(&hit.agg), 80000);
        assert_true(hit.sink_dups > 0);               /* a plain sink shows the replay */
        assert_int_equal(hit.sink_missing, 0);
    }
}

/* source -> map -> filter -> aggregate, all forward: every task has one
 * input, so at-least-once mode is still exactly-once for state. */
static pipe_cfg forward_chain(uint64_t seed) {
    pipe_cfg c = pipe_cfg_default(seed);
    job *j = &c.graph;
    uint32_t src = job_add_vertex(j, "source", JOB_SOURCE, 2, 2000);
    uint32_t map = job_add_vertex(j, "map", JOB_MAP, 2, 1000);
    uint32_t agg = job_add_vertex(j, "agg", JOB_KEYED_AGG, 2, 3000);
    uint32_t sink = job_add_vertex(j, "sink", JOB_SINK, 2, 500);
    job_add_edge(j, src, map, JOB_FORWARD);
    job_add_edge(j, map, agg, JOB_FORWARD);
    job_add_edge(j, agg, sink, JOB_FORWARD);
    c.broker.partitions = 4;
    c.broker.records_per_partition = 20000;
    c.broker.keys = 500;
    c.ckpt.mode = PIPE_AT_LEAST_ONCE;
    c.ckpt.interval_ns = 20 * SIM_NS_PER_MS;
    c.source_rate_per_s = 200000;
    return c;
}

static void test_at_least_once_on_a_forward_chain_is_still_exactly_once(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        pipe_cfg c = forward_chain(seed);
        outcome clean = run_job(&c);
        add_crash(&c, 1, (30 + 7 * seed) * SIM_NS_PER_MS, 20 * SIM_NS_PER_MS);
        outcome hit = run_job(&c);
        uint64_t key = 0;
        if (!kstate_equal(&clean.agg, &hit.agg, &key)) {
            fail_msg("seed=0x%llx: key %llu differs", (unsigned long long)seed, (unsigned long long)key);
        }
        assert_true(hit.stats.restarts >= 1);
    }
}

/* With a shuffle, at-least-once lets records that overtook a barrier into
 * the snapshot; after a restore they are replayed and counted twice. */
static void test_at_least_once_with_a_shuffle_duplicates_state_after_a_crash(void **state) {
    (void)state;
    pipe_cfg c = three_stage(AT_LEAST_ONCE_DUP_SEED, 2, 20000);
    c.ckpt.mode = PIPE_AT_LEAST_ONCE;
    c.source_rate_per_s = 200000;
    c.jitter_ns = 2 * SIM_NS_PER_MS;                  /* barriers skewed across channels */
    outcome clean = run_job(&c);
    add_crash(&c, 1, 47 * SIM_NS_PER_MS, 20 * SIM_NS_PER_MS);
    outcome hit = run_job(&c);
    uint64_t key = 0;
    assert_false(kstate_equal(&clean.agg, &hit.agg, &key));
    assert_true(state_records(&hit.agg) > state_records(&clean.agg));   /* duplicates, no losses */
    assert_int_equal(hit.status, PIPE_FINISHED);
    /* The same crash in aligned mode leaves no trace in state. */
    c.ckpt.mode = PIPE_ALIGNED;
    outcome aligned = run_job(&c);
    assert_true(kstate_equal(&clean.agg, &aligned.agg, &key));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_without_faults_checkpoints_and_reaches_the_end),
        cmocka_unit_test(test_aligned_crash_recovers_to_the_failure_free_state),
        cmocka_unit_test(test_at_least_once_on_a_forward_chain_is_still_exactly_once),
        cmocka_unit_test(test_at_least_once_with_a_shuffle_duplicates_state_after_a_crash),
    };
    int rc = cmocka_run_group_tests_name("pipe", tests, NULL, NULL);
    sim_run_destroy(holder_);
    return rc;
}
