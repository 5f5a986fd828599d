/* tests/test_scn.c: the scenario reader: what it reads, and the message
 * it gives for each kind of mistake. */
#include "harness.h"

#include "../scenarios/scn.h"

#include <stdlib.h>

static scn s_;

static const char *parse(const char *text) {
    static char err[SCN_ERR_BYTES];
    if (scn_parse(&s_, "t.scn", text, strlen(text), err, sizeof err)) return "ok";
    return err;
}

#define JOB "vertex src source parallelism 2\nvertex agg keyed-aggregate parallelism 2\nvertex out sink\n" \
            "edge src -> agg hash\nedge agg -> out rebalance\n"

static void test_scn_reads_every_statement_with_units(void **state) {
    (void)state;
    assert_string_equal(parse(
        "# a comment line\n"
        "seed 42   # and a trailing comment\n"
        "bounds time 2min events 1000000\n"
        "machines 3\n"
        "network latency 1.5ms jitter 250us bandwidth 1Gbit/s rpc-latency 2ms\n"
        "channels credits 8 queue 3 buffer-timeout 10ms\n"
        "broker partitions 6 records 1000 keys 77 zipf 1.25 values 9 gap 2us\n"
        "vertex src source parallelism 3 cost 2us rate 5000/s\n"
        "vertex f filter parallelism 3 keep 40% cost-dist exponential\n"
        "vertex m map parallelism 3 add 5\n"
        "vertex agg keyed-aggregate parallelism 2\n"
        "vertex out sink\n"
        "edge src -> f forward\nedge f -> m forward\nedge m -> agg hash\nedge agg -> out rebalance\n"
        "checkpoint mode at-least-once interval 50ms min-pause 5ms timeout 1s max-concurrent 2 tolerable 3 retained 2 legacy-eop\n"
        "restart exponential initial 10ms max 1s multiplier 1.5 reset 1min\n"
        "fault at 1s crash machine 2 for 500ms\n"
        "fault at 2s crash task agg[1]\n"
        "fault at 3s partition 0,1 | 2,jm for 100ms\n"
        "fault at 4s delay link m[0] -> agg[1] by 5ms for 1s\n"
        "fault at 5s cut link src[2] -> f[2] for 10ms\n"
        "fault at 6s lose rpc out[0] 12.5% for 1s\n"
        "expect finished\nexpect exactly-once\nexpect checkpoints >= 5\nexpect restarts == 2\n"),
        "ok");
    const pipe_cfg *c = &s_.cfg;
    assert_int_equal(c->seed, 42);
    assert_int_equal(c->time_max_ns, 120 * SIM_NS_PER_S);
    assert_int_equal(c->latency_ns, 1500 * SIM_NS_PER_US);
    assert_int_equal(c->bandwidth_bytes_per_s, 125000000);
    assert_int_equal(c->credits, 8);
    assert_int_equal(c->broker.zipf_s_milli, 1250);
    assert_int_equal(c->broker.dist, BROKER_ZIPF);
    assert_int_equal(c->broker.event_gap_ns, 2000);
    assert_int_equal(c->source_rate_per_s, 5000);
    assert_int_equal(c->graph.vertices[1].keep_percent, 40);
    assert_int_equal(c->graph.vertices[1].cost_dist, JOB_COST_EXPONENTIAL);
    assert_int_equal(c->graph.vertices[2].map_add, 5);
    assert_int_equal(c->graph.edges_count, 4);
    assert_int_equal(c->graph.edges[2].part, JOB_HASH);
    assert_int_equal(c->ckpt.mode, PIPE_AT_LEAST_ONCE);
    assert_true(c->ckpt.legacy_eop);
    assert_int_equal(c->restart.kind, PIPE_RESTART_EXPONENTIAL);
    assert_int_equal(c->restart.multiplier_milli, 1500);
    assert_int_equal(s_.faults_count, 6);
    assert_int_equal(s_.faults[2].machines_b, (1u << 2) | (1u << 3));   /* jm is machine 3 */
    assert_int_equal(s_.faults[3].subtask2, 1);
    assert_int_equal(s_.faults[5].ratio.num, 125000);
    assert_int_equal(s_.expects_count, 4);
    assert_int_equal(s_.expects[2].cmp, SCN_GE);
    assert_int_equal(s_.expects[3].value, 2);
}

static void test_scn_errors_name_file_line_column_and_suggest(void **state) {
    (void)state;
    assert_string_equal(parse("sed 1\n"), "t.scn:1:1: unknown statement 'sed' (did you mean 'seed'?)");
    assert_string_equal(parse("seed\n"), "t.scn:1:5: expected a number");
    assert_string_equal(parse("seed x1\n"), "t.scn:1:6: 'x1' is not a whole number");
    assert_string_equal(parse("\n\nbounds time 5\n"), "t.scn:3:13: '5' needs a unit (duration)");
    assert_string_equal(parse("bounds time 5sec\n"), "t.scn:1:14: unknown unit 'sec' (did you mean 's'?)");
    assert_string_equal(parse("bounds time 1.5ns\n"), "t.scn:1:13: '1.5ns' is finer than 1 ns");
    assert_string_equal(parse("bounds time soon\n"), "t.scn:1:13: 'soon' is not a duration such as 200ms");
    assert_string_equal(parse("network bandwidth 10Gbps\n"), "t.scn:1:21: unknown unit 'Gbps' (did you mean 'Gb/s'?)");
    assert_string_equal(parse(JOB "network bandwidth 10Gb/s\n"), "ok");
    assert_int_equal(s_.cfg.bandwidth_bytes_per_s, 1250000000);
    assert_string_equal(parse("network latency 0ms\n"), "t.scn:1:1: latencies must be above 0");
    assert_string_equal(parse("vertex a sourze\n"), "t.scn:1:10: unknown vertex kind 'sourze' (did you mean 'source'?)");
    assert_string_equal(parse("vertex a source paralelism 2\n"),
                        "t.scn:1:17: unknown vertex option 'paralelism' (did you mean 'parallelism'?)");
    assert_string_equal(parse("vertex a source\nvertex a sink\n"), "t.scn:2:8: vertex 'a' was already declared on line 1");
    assert_string_equal(parse("vertex a map keep 10%\n"), "t.scn:1:14: only a filter keeps a share of records");
    assert_string_equal(parse(JOB "edge agg -> ot forward\n"), "t.scn:6:13: unknown vertex 'ot' (did you mean 'out'?)");
    assert_string_equal(parse(JOB "edge src -> out shuffle\n"),
                        "t.scn:6:17: unknown partitioning 'shuffle' (expected one of: forward, rebalance, hash, broadcast)");
    assert_string_equal(parse(JOB "fault at 1s crash task agg[2]\n"), "t.scn:6:28: 2 is out of range [0, 1]");
    assert_string_equal(parse(JOB "fault at 1s crash task agg\n"),
                        "t.scn:6:24: 'agg' is not a task: write vertex[subtask], as in agg[0]");
    assert_string_equal(parse(JOB "fault at 1s partition 0 | 0 for 1s\n"),
                        "t.scn:6:27: a machine cannot be on both sides of a partition");
    assert_string_equal(parse(JOB "fault at 1s delay link out[0] -> src[0] by 1ms for 1s\n"),
                        "t.scn:6: there is no channel out[0] -> src[0] in this job");
    assert_string_equal(parse(JOB "fault at 1s lose rpc agg[0] 150% for 1s\n"),
                        "t.scn:6:29: '150%' is not a percentage such as 30% or 2.5%");
    assert_string_equal(parse(JOB "fault at 1s crash machine 0 for\n"), "t.scn:6:32: expected a duration such as 200ms");
    assert_string_equal(parse(JOB "expect exactly_once\n"),
                        "t.scn:6:8: unknown expectation 'exactly_once' (did you mean 'exactly-once'?)");
    assert_string_equal(parse(JOB "expect checkpoints => 3\n"),
                        "t.scn:6:20: unknown comparison '=>' (did you mean '>='?)");
    assert_string_equal(parse(JOB "checkpoint mode unaligned\n"),
                        "t.scn:6:17: unaligned checkpoints in jobs come with the next protocol issue (absim gate --mode unaligned shows the handler)");
    assert_string_equal(parse(JOB "restart none delay 1s\n"), "t.scn:6:14: restart none takes no options");
    assert_string_equal(parse(JOB "restart fixed-delay initial 1s\n"), "t.scn:6:21: 'initial' is not an option of fixed-delay");
    assert_string_equal(parse("vertex a source\n"), "t.scn: the job is not valid: a: its output goes nowhere (add an edge to a sink)");
    assert_string_equal(parse("seed 1 \x01\n"), "t.scn:1:8: unexpected byte 0x01 (scenario files are ASCII)");
    assert_string_equal(parse(JOB "fault when agg[1] algning 3 crash machine 0\n"),
                        "t.scn:6:19: unknown task point 'algning' (did you mean 'aligning'?)");
    assert_string_equal(parse(JOB "fault when checkpoint 2 finishes crash machine 0\n"),
                        "t.scn:6:25: unknown checkpoint point 'finishes' (expected one of: starts, completes)");
    assert_string_equal(parse(JOB "fault on 1s crash machine 0\n"),
                        "t.scn:6:7: expected 'at' and a time, or 'when' and a protocol point, not 'on'");
    assert_string_equal(parse(JOB "fault when agg[1] aligning 3 crash machine 0 for 1ms\n"), "ok");
    assert_int_equal(s_.faults[0].point, SCN_WHEN_ALIGNING);
    assert_int_equal(s_.faults[0].point_subtask, 1);
    assert_int_equal(s_.faults[0].point_ckpt, 3);
}

/* The writer's text reads back to the same scenario: writing it again
 * gives the same text (shrink relies on this round trip). */
static void test_scn_write_round_trips_through_the_reader(void **state) {
    (void)state;
    const char *text =
        "seed 9\nmachines 3\nnetwork jitter 2ms bandwidth 1Gbit/s\n"
        "broker partitions 6 records 1000 keys 50 zipf 1.25 values 7 gap 3us\n"
        "vertex src source parallelism 3 cost 2us rate 5000/s\n"
        "vertex f filter parallelism 3 keep 40% cost-dist exponential\n"
        "vertex m map parallelism 3 add 5\n"
        "vertex agg keyed-aggregate parallelism 2\nvertex out sink\n"
        "edge src -> f forward\nedge f -> m forward\nedge m -> agg hash\nedge agg -> out rebalance\n"
        "checkpoint mode at-least-once interval 50ms min-pause 5ms timeout 1s max-concurrent 2 tolerable 3 retained 2 legacy-eop\n"
        "restart exponential initial 10ms max 1s multiplier 1.5 reset 1min\n"
        "bounds time 2min\n"
        "fault at 1s crash machine 2 for 500ms\nfault at 2s crash task agg[1]\n"
        "fault at 3s partition 0,1 | 2,jm for 100ms\nfault at 4s delay link m[0] -> agg[1] by 5ms for 1s\n"
        "fault at 5s cut link src[2] -> f[2] for 10ms\nfault at 6s lose rpc out[0] 12.5% for 1s\n"
        "fault when agg[1] aligning 3 crash machine 0 for 1ms\n"
        "fault when checkpoint 4 completes after 2ms cut link m[1] -> agg[0] for 1ms\n"
        "expect finished\nexpect duplicates\nexpect aborted < 4\n";
    assert_string_equal(parse(text), "ok");
    char *first = NULL, *second = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f = open_memstream(&first, &n1);
    scn_write(&s_, f);
    fclose(f);
    char err[SCN_ERR_BYTES];
    assert_true(scn_parse(&s_, "t.scn", first, n1, err, sizeof err));
    f = open_memstream(&second, &n2);
    scn_write(&s_, f);
    fclose(f);
    assert_string_equal(first, second);
    assert_non_null(strstr(first, "fault at 6000000000ns lose rpc out[0] 12.5000% for 1000000000ns\n"));
    assert_non_null(strstr(first, "bounds time 120000000000ns"));
    assert_int_equal(s_.cfg.time_max_ns, 120 * SIM_NS_PER_S);
    free(first);
    free(second);
}

static void test_scn_load_reports_missing_files(void **state) {
    (void)state;
    char err[SCN_ERR_BYTES];
    assert_false(scn_load(&s_, "/nonexistent/x.scn", err, sizeof err));
    assert_string_equal(err, "/nonexistent/x.scn: cannot open");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scn_reads_every_statement_with_units),
        cmocka_unit_test(test_scn_errors_name_file_line_column_and_suggest),
        cmocka_unit_test(test_scn_write_round_trips_through_the_reader),
        cmocka_unit_test(test_scn_load_reports_missing_files),
    };
    return cmocka_run_group_tests_name("scn", tests, NULL, NULL);
}
