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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipeline_without_faults_checkpoints_and_reaches_the_end),
    };
    int rc = cmocka_run_group_tests_name("pipe", tests, NULL, NULL);
    sim_run_destroy(holder_);
    return rc;
}
