/* tests/test_scn.c: the scenario reader: what it reads, and the message
 * it gives for each kind of mistake. */
#include "harness.h"

#include "../scenarios/inject.h"
#include "../model/pipe.h"

#include <inttypes.h>
#include <stdlib.h>

static scn s_;

static const char *parse(const char *text) {
    static char err[SCN_ERR_BYTES];
    if (scn_parse(&s_, "t.scn", text, strlen(text), err, sizeof err)) return "ok";
    return err;
}

/* scn_write's text, malloc'd. */
static char *written(const scn *s) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    scn_write(s, f);
    fclose(f);
    return text;
}

#define JOB "vertex src source parallelism 2\nvertex agg keyed-aggregate parallelism 2\nvertex out sink\n" \
            "edge src -> agg hash\nedge agg -> out rebalance\n"

/* The language's defaults are Flink's (1.19 to 2.x): with no restart
 * statement, exponential delay with every option at its default when
 * checkpoints are on, none when off
 * (RestartBackoffTimeStrategyFactoryLoaderTest#testNoStrategySpecifiedWhenCheckpointingEnabled
 * and #testNoStrategySpecifiedWhenCheckpointingDisabled); a strategy's
 * options at RestartStrategyOptions' defaults; checkpoints off without a
 * statement, an interval required, a 10 min timeout
 * (execution.checkpointing.*), a 100 ms buffer timeout. */
static void test_scn_defaults_are_flinks(void **state) {
    (void)state;
    assert_string_equal(parse(JOB), "ok");
    assert_false(s_.cfg.ckpt.enabled);
    assert_int_equal(s_.cfg.restart.kind, PIPE_RESTART_NONE);
    assert_int_equal(s_.cfg.buffer_timeout_ns, 100 * SIM_NS_PER_MS);
    assert_string_equal(parse(JOB "checkpoint mode aligned\n"),
                        "t.scn:6:1: checkpoints need an interval (Flink's execution.checkpointing.interval has no "
                        "default; 'checkpoint off' turns them off)");
    assert_string_equal(parse(JOB "checkpoint interval 10ms\n"), "ok");
    const pipe_cfg *c = &s_.cfg;
    assert_true(c->ckpt.enabled);
    assert_int_equal(c->ckpt.timeout_ns, 600 * SIM_NS_PER_S);
    assert_int_equal(c->ckpt.max_concurrent, 1);
    assert_int_equal(c->ckpt.tolerable_failures, 0);
    assert_int_equal(c->ckpt.min_pause_ns, 0);
    assert_int_equal(c->restart.kind, PIPE_RESTART_EXPONENTIAL);
    assert_int_equal(c->restart.initial_ns, SIM_NS_PER_S);
    assert_int_equal(c->restart.max_ns, 60 * SIM_NS_PER_S);
    assert_int_equal(c->restart.multiplier_milli, 1500);
    assert_int_equal(c->restart.reset_ns, 3600 * SIM_NS_PER_S);
    assert_int_equal(c->restart.jitter_milli, 100);
    assert_int_equal(c->restart.attempts_before_reset, RS_UNLIMITED);
    assert_string_equal(parse(JOB "checkpoint interval 10ms\nrestart fixed-delay\n"), "ok");
    assert_int_equal(s_.cfg.restart.attempts, 1);
    assert_int_equal(s_.cfg.restart.delay_ns, SIM_NS_PER_S);
    assert_string_equal(parse(JOB "checkpoint interval 10ms\nrestart failure-rate\n"), "ok");
    assert_int_equal(s_.cfg.restart.max_failures, 1);
    assert_int_equal(s_.cfg.restart.interval_ns, 60 * SIM_NS_PER_S);
    assert_int_equal(s_.cfg.restart.delay_ns, SIM_NS_PER_S);
    assert_string_equal(parse(JOB "checkpoint interval 10ms\ncheckpoint off\n"), "ok");   /* off wins, no interval asked */
    assert_false(s_.cfg.ckpt.enabled);
    assert_int_equal(s_.cfg.restart.kind, PIPE_RESTART_NONE);
}

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
        "restart exponential initial 10ms max 1s multiplier 1.5 reset 1min failover full\n"
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
    assert_int_equal(c->restart.failover, PIPE_FAILOVER_FULL);
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
                        "t.scn:6:24: there is no channel out[0] -> src[0] in this job");
    assert_string_equal(parse(JOB "fault at 1s lose rpc agg[0] 150% for 1s\n"),
                        "t.scn:6:29: '150%' is not a percentage such as 30% or 2.5%");
    assert_string_equal(parse(JOB "fault at 1s crash machine 0 for\n"), "t.scn:6:32: expected a duration such as 200ms");
    assert_string_equal(parse(JOB "expect exactly_once\n"),
                        "t.scn:6:8: unknown expectation 'exactly_once' (did you mean 'exactly-once'?)");
    assert_string_equal(parse(JOB "expect checkpoints => 3\n"),
                        "t.scn:6:20: unknown comparison '=>' (did you mean '>='?)");
    assert_string_equal(parse(JOB "restart none delay 1s\n"), "t.scn:6:14: restart none takes no options but failover");
    assert_string_equal(parse(JOB "restart fixed-delay attempts 3 failover task\n"),
                        "t.scn:6:41: unknown failover strategy 'task' (expected one of: region, full)");
    assert_string_equal(parse(JOB "restart fixed-delay failover regoin\n"),
                        "t.scn:6:30: unknown failover strategy 'regoin' (did you mean 'region'?)");
    assert_string_equal(parse(JOB "restart none failover\n"), "t.scn:6:22: expected a failover strategy (region, full)");
    assert_string_equal(parse(JOB "restart fixed-delay initial 1s\n"), "t.scn:6:21: 'initial' is not an option of fixed-delay");
    assert_string_equal(parse("vertex a source\n"), "t.scn:1:8: a: its output goes nowhere (add an edge to a sink)");
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

/* A broker line, a source of parallelism 64 (vertex m0), `maps` maps of
 * parallelism 64 chained by forward edges, and a sink. */
static const char *wide_chain(uint32_t maps) {
    static char text[4096];
    size_t n = (size_t)snprintf(text, sizeof text, "broker partitions 256\nvertex m0 source parallelism 256\n");
    for (uint32_t i = 1; i <= maps; i++) n += (size_t)snprintf(text + n, sizeof text - n, "vertex m%u map parallelism 256\n", i);
    n += (size_t)snprintf(text + n, sizeof text - n, "vertex out sink\n");
    for (uint32_t i = 1; i <= maps; i++) n += (size_t)snprintf(text + n, sizeof text - n, "edge m%u -> m%u forward\n", i - 1, i);
    snprintf(text + n, sizeof text - n, "edge m%u -> out rebalance\n", maps);
    return text;
}

/* Problems of the whole job show only once the file is read; each is
 * named at the statement that causes it, as a mistake in one statement is:
 * the vertex's or the edge's line and the column of what is at fault (a
 * missing input or output: the vertex's name). */
static void test_scn_job_errors_name_the_statement_that_causes_them(void **state) {
    (void)state;
    assert_string_equal(parse("# no job\n"), "t.scn:1:1: the job has no vertices");
    assert_string_equal(parse("vertex j source parallelism 2\nvertex out sink\nedge j -> out forward\n"),
                        "t.scn:3:15: j -> out: forward needs equal parallelism (2 and 1)");
    assert_string_equal(parse("vertex a source\nvertex m map\nvertex out sink\nedge a -> out forward\n"),
                        "t.scn:2:8: m: a map needs an input");
    assert_string_equal(parse("vertex a source\nvertex b source\nvertex out sink\nedge a -> b forward\nedge b -> out forward\n"),
                        "t.scn:4:11: b: a source takes no input");
    assert_string_equal(parse("vertex a source\nvertex o sink\nvertex o2 sink\nedge a -> o forward\nedge o -> o2 forward\n"),
                        "t.scn:5:6: o: a sink has no output (but a sink-v2 sink's one edge to its committer)");
    assert_string_equal(parse("vertex a source\nvertex j keyed-join\nvertex out sink\nedge a -> j hash\nedge j -> out forward\n"),
                        "t.scn:2:8: j: a keyed join takes exactly two inputs, not 1");
    assert_string_equal(parse("vertex a source\nvertex b map\nvertex c map\nvertex out sink\nedge a -> b forward\n"
                              "edge a -> c forward\nedge b -> c forward\nedge c -> out forward\n"),
                        "t.scn:7:11: c: a map takes one input (use a union)");
    assert_string_equal(parse("vertex a source\nvertex b source\nvertex out sink\nedge a -> out forward\nedge b -> out forward\n"),
                        "t.scn:2:8: b: the default topic is read by source a already (a topic has one source: declare "
                        "another with `broker topic NAME ...` and read it with `topic NAME`)");
    assert_string_equal(parse("broker partitions 2\nvertex a source parallelism 4\nvertex out sink\nedge a -> out rebalance\n"),
                        "t.scn:2:17: a: parallelism 4 above the 2 partitions (a source task would read nothing)");
    assert_string_equal(parse(wide_chain(14)), "ok");   /* 3841 tasks */
    assert_string_equal(parse(wide_chain(15)), "t.scn:18:8: out: 4097 tasks in all, more than the limit of 4096 "
                                               "(lower the parallelism of this or another vertex)");   /* the sink's */
    assert_string_equal(parse(wide_chain(16)), "t.scn:18:16: m16: 4353 tasks in all, more than the limit of 4096 "
                                               "(lower the parallelism of this or another vertex)");   /* the 16th map's */
    assert_string_equal(parse("broker partitions 256\nvertex a source parallelism 257\nvertex out sink\nedge a -> out rebalance\n"),
                        "t.scn:2:29: a: parallelism 257 is above the limit of 256 tasks per vertex (lower it)");
    assert_string_equal(parse("vertex a source parallelism 4\nvertex o1 sink parallelism 64\nvertex o2 sink parallelism 64\n"
                              "vertex o3 sink parallelism 64\nedge a -> o1 broadcast\nedge a -> o2 broadcast\nedge a -> o3 broadcast\n"),
                        "ok");
    char text[1024];
    size_t n = (size_t)snprintf(text, sizeof text, "vertex a source\n");
    for (int i = 0; i < 3; i++) n += (size_t)snprintf(text + n, sizeof text - n, "vertex o%d sink parallelism 256\n", i);
    for (int i = 0; i < 3; i++) n += (size_t)snprintf(text + n, sizeof text - n, "edge a -> o%d hash\n", i);
    assert_string_equal(parse(text), "t.scn:7:14: a: a task would have more than 512 output channels (lower the "
                                     "parallelism of the vertices it feeds)");
    /* Settings checked on the statement that completes them. */
    assert_string_equal(parse("broker partitions 1024 records 2000000\n"),
                        "t.scn:1:24: 2048000000 records in all (partitions x records), more than 2^30 (the sinks count each one)");
    assert_string_equal(parse(JOB "broker partitions 128 records 8388608\n"), "ok");   /* 2^30 */
    assert_string_equal(parse(JOB "broker partitions 1024 records 1000\n"),
                        "t.scn:1:19: src: a source task would read more than 64 of the 1024 partitions (its acknowledgement "
                        "carries their offsets): raise its parallelism or lower the partitions");
    assert_string_equal(parse("broker records 2000000\nbroker partitions 1024\n"),
                        "t.scn:2:8: 2048000000 records in all (partitions x records), more than 2^30 (the sinks count each one)");
    assert_string_equal(parse(JOB "checkpoint max-concurrent 2\ncheckpoint alignment-timeout 5ms\n"),
                        "t.scn:7:12: an alignment timeout allows one checkpoint at a time (max-concurrent 1), as in Flink "
                        "(it may turn a checkpoint unaligned)");
    /* A fault reads machine numbers (and jm's) from the count declared before it. */
    assert_string_equal(parse(JOB "fault at 1s crash machine 1\nmachines 3\n"),
                        "t.scn:7:1: declare machines before the faults that name machines (line 6 names some)");
    assert_string_equal(parse(JOB "fault at 1s partition 0 | jm for 1s\nmachines 1\n"),
                        "t.scn:7:1: declare machines before the faults that name machines (line 6 names some)");
    assert_string_equal(parse(JOB "fault at 1s crash task agg[1]\nmachines 3\n"), "ok");
}

/* The reader's checks of the whole job stop where pipe_create's do: what
 * the reader accepts at the limits, pipe_create accepts too, so its
 * messages (which have no place) never reach a user of a scenario file. */
static void test_scn_accepted_jobs_at_the_limits_are_accepted_by_pipe_create(void **state) {
    (void)state;
    static const char *const ok[] = {
        JOB "checkpoint mode aligned alignment-timeout 5ms max-concurrent 1 interval 100ms\n",
        "broker partitions 2\nvertex a source parallelism 2\nvertex out sink\nedge a -> out rebalance\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_string_equal(parse(ok[i]), "ok");
        char err[SCN_ERR_BYTES] = "";
        pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
        assert_string_equal(err, "");
        pipe_destroy(p);
    }
}

/* A job with a two-phase-commit sink (vertices 0, 1, 2: src, agg, out). */
#define JOB_2PC "vertex src source parallelism 2\nvertex agg keyed-aggregate parallelism 2\n" \
                "vertex out sink output two-phase-commit\nedge src -> agg hash\nedge agg -> out rebalance\n"

static void test_scn_reads_state_modes_sinks_faults_and_expectations(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "state\n"), "ok");            /* every option has its default */
    pipe_cfg d = pipe_cfg_default(1);
    assert_int_equal(s_.cfg.state.backend, d.state.backend);
    assert_int_equal(s_.cfg.state.full_every, d.state.full_every);
    assert_int_equal(s_.cfg.graph.vertices[2].sink, JOB_SINK_PLAIN);
    assert_int_equal(s_.cfg.ckpt.alignment_timeout_ns, 0);

    assert_string_equal(parse(
        JOB_2PC
        "checkpoint mode unaligned interval 30ms\n"
        "state backend durable sync incremental full-every 3 sync-cost 20us store-latency 2ms store-bandwidth 100MB/s\n"
        "state memory-latency 300us memory-bandwidth 2GB/s\n"
        "fault at 50ms crash coordinator for 100ms\n"
        "fault at 60ms crash coordinator\n"
        "fault at 40ms slow store 5x for 100ms\n"
        "fault at 40ms fail store 30% for 100ms\n"
        "fault at 40ms slow task agg[1] 10x for 200ms\n"
        "fault when agg[0] snapshot-sync 2 crash task agg[0]\n"
        "fault when out[0] commits 3 after 1ms slow task out[0] 1000000x for 1ms\n"
        "fault when checkpoint 4 completes crash task out[0]\n"
        "expect output exactly-once\nexpect output at-least-once\nexpect output duplicates\n"
        "expect failovers == 1\nexpect unaligned >= 4\nexpect output lost\n"),
        "ok");
    const pipe_cfg *c = &s_.cfg;
    assert_int_equal(c->ckpt.mode, PIPE_UNALIGNED);
    assert_int_equal(c->graph.vertices[2].sink, JOB_SINK_2PC);
    assert_int_equal(c->state.backend, PIPE_BACKEND_DURABLE);
    assert_false(c->state.async);
    assert_true(c->state.incremental);
    assert_int_equal(c->state.full_every, 3);
    assert_int_equal(c->state.sync_ns, 20 * SIM_NS_PER_US);
    assert_int_equal(c->state.store.latency_ns, 2 * SIM_NS_PER_MS);
    assert_int_equal(c->state.store.bandwidth_bytes_per_s, 100000000);
    assert_int_equal(c->state.memory.latency_ns, 300 * SIM_NS_PER_US);
    assert_int_equal(c->state.memory.bandwidth_bytes_per_s, 2000000000);
    assert_int_equal(s_.faults_count, 8);
    const scn_fault *f = s_.faults;
    assert_int_equal(f[0].kind, SCN_CRASH_COORDINATOR);
    assert_int_equal(f[0].duration_ns, 100 * SIM_NS_PER_MS);
    assert_int_equal(f[1].kind, SCN_CRASH_COORDINATOR);
    assert_int_equal(f[1].duration_ns, 0);
    assert_int_equal(f[2].kind, SCN_SLOW_STORE);
    assert_int_equal(f[2].factor, 5);
    assert_int_equal(f[3].kind, SCN_FAIL_STORE);
    assert_int_equal(f[3].ratio.num * 100 / f[3].ratio.den, 30);
    assert_int_equal(f[4].kind, SCN_SLOW_TASK);
    assert_int_equal(f[4].vertex, 1);
    assert_int_equal(f[4].subtask, 1);
    assert_int_equal(f[4].factor, 10);
    assert_int_equal(f[4].duration_ns, 200 * SIM_NS_PER_MS);
    assert_int_equal(f[5].point, SCN_WHEN_SNAPSHOT_SYNC);
    assert_int_equal(f[5].point_vertex, 1);
    assert_int_equal(f[5].point_ckpt, 2);
    assert_int_equal(f[6].point, SCN_WHEN_COMMITS);
    assert_int_equal(f[6].point_vertex, 2);
    assert_int_equal(f[6].point_ckpt, 3);
    assert_int_equal(f[6].at_ns, SIM_NS_PER_MS);
    assert_int_equal(f[6].factor, 1000000);
    assert_int_equal(f[7].point, SCN_WHEN_COMPLETES);
    assert_int_equal(s_.expects_count, 6);
    assert_int_equal(s_.expects[5].kind, SCN_EXPECT_OUTPUT_LOST);
    assert_int_equal(s_.expects[0].kind, SCN_EXPECT_OUTPUT_EXACTLY_ONCE);
    assert_int_equal(s_.expects[1].kind, SCN_EXPECT_OUTPUT_AT_LEAST_ONCE);
    assert_int_equal(s_.expects[2].kind, SCN_EXPECT_OUTPUT_DUPLICATES);
    assert_int_equal(s_.expects[3].kind, SCN_EXPECT_FAILOVERS);
    assert_int_equal(s_.expects[3].cmp, SCN_EQ);
    assert_int_equal(s_.expects[3].value, 1);
    assert_int_equal(s_.expects[4].kind, SCN_EXPECT_UNALIGNED);
    assert_int_equal(s_.expects[4].cmp, SCN_GE);
    assert_int_equal(s_.expects[4].value, 4);
    char text[64];
    assert_string_equal(scn_expect_text(&s_.expects[1], text, sizeof text), "output at-least-once");
    assert_string_equal(scn_expect_text(&s_.expects[3], text, sizeof text), "failovers == 1");
    assert_string_equal(scn_expect_text(&s_.expects[4], text, sizeof text), "unaligned >= 4");
    assert_string_equal(parse(JOB "expect duration < 2500us\n"), "ok");   /* compared in ns, written back in units */
    assert_int_equal(s_.expects[0].kind, SCN_EXPECT_DURATION);
    assert_int_equal(s_.expects[0].cmp, SCN_LT);
    assert_int_equal(s_.expects[0].value, 2500 * SIM_NS_PER_US);
    assert_string_equal(scn_expect_text(&s_.expects[0], text, sizeof text), "duration < 2.5ms");

    assert_string_equal(parse(JOB "checkpoint mode aligned alignment-timeout 20ms interval 100ms\nstate backend memory async full\n"), "ok");
    assert_int_equal(s_.cfg.ckpt.mode, PIPE_ALIGNED);
    assert_int_equal(s_.cfg.ckpt.alignment_timeout_ns, 20 * SIM_NS_PER_MS);
    assert_int_equal(s_.cfg.state.backend, PIPE_BACKEND_MEMORY);
    assert_true(s_.cfg.state.async);
    assert_false(s_.cfg.state.incremental);
    assert_string_equal(parse(JOB "vertex o2 sink output idempotent\nedge agg -> o2 rebalance\n"), "ok");
    assert_int_equal(s_.cfg.graph.vertices[3].sink, JOB_SINK_IDEMPOTENT);
}

static void test_scn_new_statements_report_mistakes_with_suggestions(void **state) {
    (void)state;
    assert_string_equal(parse("state backend durabel\n"),
                        "t.scn:1:15: unknown state backend 'durabel' (did you mean 'durable'?)");
    assert_string_equal(parse("state incremantal\n"),
                        "t.scn:1:7: unknown state option 'incremantal' (did you mean 'incremental'?)");
    assert_string_equal(parse("state full-every 65\n"), "t.scn:1:18: 65 is out of range [1, 64]");
    /* Flink's HashMapStateBackend has no incremental checkpoints: refused
     * on the line that asked, whatever order the state lines come in. */
    assert_string_equal(parse(JOB "state backend memory incremental\n"),
                        "t.scn:6:22: incremental checkpoints need 'state backend durable' (Flink offers them with RocksDB "
                        "or the changelog backend, whose files are in durable storage; the memory backend keeps full snapshots)");
    assert_string_equal(parse(JOB "state incremental\nstate backend durable\n"), "ok");
    assert_string_equal(parse(JOB "state backend durable incremental\nstate backend memory\n"),
                        "t.scn:6:23: incremental checkpoints need 'state backend durable' (Flink offers them with RocksDB "
                        "or the changelog backend, whose files are in durable storage; the memory backend keeps full snapshots)");
    assert_string_equal(parse(JOB "expect duration < 5\n"), "t.scn:6:19: '5' needs a unit (duration)");
    assert_string_equal(parse(JOB "expect duration 5ms\n"),
                        "t.scn:6:17: unknown comparison '5ms' (expected one of: >=, <=, ==, >, <)");
    assert_string_equal(parse("state store-bandwidth 10KB/s\n"), "t.scn:1:23: a store's bandwidth must be at least 1MB/s");
    assert_string_equal(parse("state store-bandwidth 10MBps\n"),
                        "t.scn:1:25: unknown unit 'MBps' (did you mean 'MB/s'?)");
    assert_string_equal(parse("state memory-latency 2min\n"), "t.scn:1:7: a store's latency must be at most 1min");
    assert_string_equal(parse("state sync-cost 2s\n"), "t.scn:1:7: a synchronous part longer than 1 s stops the stream");
    assert_string_equal(parse("vertex a map output plain\n"), "t.scn:1:14: only a sink has an output mode");
    assert_string_equal(parse("vertex a sink output two-phase\n"),
                        "t.scn:1:22: unknown sink output 'two-phase' (expected one of: plain, idempotent, two-phase-commit, sink-v2)");
    assert_string_equal(parse("vertex a sink output idempotant\n"),
                        "t.scn:1:22: unknown sink output 'idempotant' (did you mean 'idempotent'?)");
    assert_string_equal(parse(JOB "checkpoint mode unalligned\n"),
                        "t.scn:6:17: unknown checkpoint mode 'unalligned' (did you mean 'unaligned'?)");
    assert_string_equal(parse(JOB "checkpoint mode at-least-once alignment-timeout 20ms\n"),
                        "t.scn:6:31: an alignment timeout needs mode aligned (it turns an aligned checkpoint unaligned)");
    assert_string_equal(parse(JOB "checkpoint alignment-timeout 20ms\ncheckpoint mode unaligned\n"),
                        "t.scn:7:17: an alignment timeout needs mode aligned (it turns an aligned checkpoint unaligned)");
    assert_string_equal(parse(JOB "checkpoint mode unaligned max-concurrent 2\n"),
                        "t.scn:6:27: unaligned checkpoints go one at a time (max-concurrent 1), as in Flink");
    assert_string_equal(parse(JOB "fault at 1s crash coordinater for 1s\n"),
                        "t.scn:6:19: unknown crash target 'coordinater' (did you mean 'coordinator'?)");
    assert_string_equal(parse(JOB "fault at 1s slow stor 5x for 1s\n"),
                        "t.scn:6:18: unknown slow target 'stor' (did you mean 'store'?)");
    assert_string_equal(parse(JOB "fault at 1s slwo task agg[0] 5x for 1s\n"),
                        "t.scn:6:13: unknown fault 'slwo' (did you mean 'slow'?)");
    assert_string_equal(parse(JOB "fault at 1s slow task agg[0] 1x for 1s\n"), "t.scn:6:30: 1x is out of range [2x, 1000000x]");
    assert_string_equal(parse(JOB "fault at 1s slow task agg[0] 5 for 1s\n"), "t.scn:6:30: '5' is not a slowdown factor such as 5x");
    assert_string_equal(parse(JOB "fault at 1s slow task agg[0] 2.5x for 1s\n"),
                        "t.scn:6:30: '2.5x' is not a slowdown factor such as 5x");
    assert_string_equal(parse(JOB "fault at 1s slow task agg[0] 5x\n"), "t.scn:6:32: expected 'for' and a duration");
    assert_string_equal(parse(JOB "state backend durable\nfault at 1s fail store 30%\n"),
                        "t.scn:7:27: expected 'for' and a duration");
    assert_string_equal(parse(JOB "state backend durable\nfault at 1s fail stores 3% for 1s\n"),
                        "t.scn:7:18: expected 'store', not 'stores'");
    assert_string_equal(parse(JOB "fault at 1s fail store 30% for 1s\n"),
                        "t.scn:6:13: the fail store fault needs 'state backend durable' (the memory backend keeps snapshots "
                        "at the coordinator, not in the store)");
    assert_string_equal(parse(JOB "fault at 1s slow store 3x for 1s\nstate backend durable\n"), "ok");   /* any order */
    assert_string_equal(parse(JOB "fault when out[0] commits 2 crash coordinator\n"),
                        "t.scn:6:19: out commits nothing: its output is plain (commits needs output two-phase-commit, or a committer)");
    assert_string_equal(parse(JOB "fault when agg[0] commits 2 crash coordinator\n"),
                        "t.scn:6:19: only a sink or a committer commits, and agg is not one");
    assert_string_equal(parse(JOB "fault when agg[0] snapshot-synk 2 crash coordinator\n"),
                        "t.scn:6:19: unknown task point 'snapshot-synk' (did you mean 'snapshot-sync'?)");
    assert_string_equal(parse(JOB "expect output exactly_once\n"),
                        "t.scn:6:15: unknown output expectation 'exactly_once' (did you mean 'exactly-once'?)");
    assert_string_equal(parse(JOB "expect outputs duplicates\n"),
                        "t.scn:6:8: unknown expectation 'outputs' (did you mean 'output'?)");
    assert_string_equal(parse(JOB "expect output\n"), "t.scn:6:14: expected exactly-once, at-least-once, duplicates or lost");
    assert_string_equal(parse(JOB "expect failovers = 1\n"), "t.scn:6:18: unknown comparison '=' (did you mean '>='?)");
    assert_string_equal(parse(JOB "expect unaligned\n"), "t.scn:6:17: expected a comparison (==, >=, <=, >, <)");
    char text[2048] = JOB;
    for (uint32_t i = 0; i <= PIPE_SLOW_MAX; i++) strcat(text, "fault at 1s slow task agg[1] 2x for 1ms\n");
    assert_string_equal(parse(text), "t.scn:22:18: more than 16 slow tasks");
}

/* The new faults become the kernel's faults on the right targets, and slow
 * tasks the model's slow operator windows. */
static void test_scn_new_faults_resolve_on_a_created_pipe(void **state) {
    (void)state;
    assert_string_equal(parse(JOB_2PC "state backend durable\n"
                              "fault at 50ms crash coordinator for 100ms\n"
                              "fault at 40ms slow store 5x for 100ms\n"
                              "fault at 45ms fail store 30% for 10ms\n"
                              "fault at 40ms slow task agg[1] 10x for 200ms\n"),
                        "ok");
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    scn_add_faults(&s_, p);
    const sim_run *run = pipe_sim(p);
    assert_int_equal(run->faults_count, 3);                     /* the slow task is the model's */
    const fault_spec *x = &run->faults[0].spec;
    assert_int_equal(x->kind, FAULT_ACTOR_CRASH);
    assert_int_equal(x->target, pipe_coord_actor(p));
    assert_int_equal(x->at_ns, 50 * SIM_NS_PER_MS);
    assert_int_equal(x->duration_ns, 100 * SIM_NS_PER_MS);
    x = &run->faults[1].spec;
    assert_int_equal(x->kind, FAULT_DEV_SLOW);
    assert_int_equal(x->target, pipe_store_dev(p));
    assert_int_equal(x->factor, 5);
    x = &run->faults[2].spec;
    assert_int_equal(x->kind, FAULT_DEV_FAIL);
    assert_int_equal(x->target, pipe_store_dev(p));
    assert_int_equal(x->ratio.num * 100 / x->ratio.den, 30);
    assert_int_equal(x->duration_ns, 10 * SIM_NS_PER_MS);
    assert_int_equal(pipe_config(p)->slow_count, 1);
    assert_int_equal(pipe_config(p)->slow[0].task, pipe_job(p)->vertex_first_task[1] + 1);
    assert_int_equal(pipe_config(p)->slow[0].at_ns, 40 * SIM_NS_PER_MS);
    assert_int_equal(pipe_config(p)->slow[0].duration_ns, 200 * SIM_NS_PER_MS);
    assert_int_equal(pipe_config(p)->slow[0].factor, 10);
    pipe_destroy(p);
}

typedef struct seen {
    sim_time_ns sync2_ns, commit3_ns;      /* agg[0]'s sync part of 2; out[0]'s first commit of >= 3 */
    uint64_t    commit3_ckpt;
} seen;

static void watch(void *ctx, const pipe_event *e) {
    seen *w = ctx;
    if (e->kind == PIPE_EV_SNAPSHOT_SYNC && e->task == 2 && e->ckpt == 2 && w->sync2_ns == 0) w->sync2_ns = e->at_ns;
    if (e->kind == PIPE_EV_SINK_COMMIT && e->task == 4 && e->ckpt >= 3 && w->commit3_ns == 0) {
        w->commit3_ns = e->at_ns;
        w->commit3_ckpt = e->ckpt;
    }
}

/* Faults at the new protocol points are added when the point is reached:
 * the sync part of checkpoint 2 on agg[0], the first commit of a sink up
 * to checkpoint 3 or later. */
static void test_scn_new_points_fire_when_reached(void **state) {
    (void)state;
    assert_string_equal(parse("vertex src source parallelism 2 cost 2us rate 100000/s\n"
                              "vertex agg keyed-aggregate parallelism 2 cost 3us\nvertex out sink output two-phase-commit\n"
                              "edge src -> agg hash\nedge agg -> out rebalance\n"
                              "broker partitions 2 records 10000 keys 50\ncheckpoint interval 5ms\nstate backend durable\n"
                              "fault when agg[0] snapshot-sync 2 slow task agg[0] 3x for 2ms\n"
                              "fault when out[0] commits 3 after 1ms slow store 2x for 1ms\n"
                              "fault when out[0] commits 4 crash coordinator for 5ms\n"),
                        "ok");
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(pipe_job(p)->vertex_first_task[1], 2);   /* agg[0] is task 2, out[0] task 4 */
    seen w = { 0 };
    scn_armed arm;
    scn_arm_faults(&s_, p, &arm, watch, &w);
    assert_int_equal(pipe_sim(p)->faults_count, 0);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(w.sync2_ns > 0 && w.commit3_ns > 0);
    assert_true(arm.reached[0] && arm.reached[1] && arm.reached[2]);
    char why[SCN_ERR_BYTES];
    assert_int_equal(scn_unfired(&arm, pipe_sim(p)->now_ns, why, sizeof why), 0);
    assert_string_equal(why, "");
    assert_int_equal(pipe_config(p)->slow_count, 1);
    assert_int_equal(pipe_config(p)->slow[0].task, 2);
    assert_int_equal(pipe_config(p)->slow[0].at_ns, w.sync2_ns);
    assert_int_equal(pipe_config(p)->slow[0].factor, 3);
    const sim_run *run = pipe_sim(p);
    assert_true(run->faults_count >= 2);
    assert_int_equal(run->faults[0].spec.kind, FAULT_DEV_SLOW);
    assert_int_equal(run->faults[0].spec.at_ns, w.commit3_ns + SIM_NS_PER_MS);
    assert_int_equal(run->faults[1].spec.kind, FAULT_ACTOR_CRASH);
    assert_int_equal(run->faults[1].spec.target, pipe_coord_actor(p));
    assert_true(run->faults[1].spec.at_ns >= w.commit3_ns);
    assert_int_equal(pipe_get_stats(p)->failovers, 1);
    pipe_destroy(p);
}

static bool same_fault(const scn_fault *a, const scn_fault *b) {   /* all but the line */
    return a->kind == b->kind && a->point == b->point && a->point_vertex == b->point_vertex &&
           a->point_subtask == b->point_subtask && a->point_ckpt == b->point_ckpt && a->at_ns == b->at_ns &&
           a->duration_ns == b->duration_ns && a->delay_ns == b->delay_ns && a->machine == b->machine &&
           a->vertex == b->vertex && a->subtask == b->subtask && a->vertex2 == b->vertex2 &&
           a->subtask2 == b->subtask2 && a->machines_a == b->machines_a && a->machines_b == b->machines_b &&
           (uint64_t)a->ratio.num * b->ratio.den == (uint64_t)b->ratio.num * a->ratio.den && a->factor == b->factor &&
           a->rpc == b->rpc && a->ha == b->ha;
}

/* Swarm profiles: the kinds drawn before the new ones are unchanged (the
 * new ones draw after them), store faults only with the durable backend,
 * every kind drawn (lost RPCs of one kind, delayed RPCs of one kind and of
 * all, machine pauses beyond the heartbeat timeout among them), and every
 * profile is a scenario the writer and the reader agree on. */
static void test_scn_random_faults_cover_the_new_kinds(void **state) {
    (void)state;
    static scn mem, dur, back;
    char err[SCN_ERR_BYTES];
    const char *base = JOB_2PC "machines 2\n";
    char durable[512];
    snprintf(durable, sizeof durable, "%sstate backend durable\n", base);
    uint32_t kinds[SCN_DUPLICATE_RPC + 1] = { 0 }, typed_loss = 0, typed_delay = 0, untyped_delay = 0, long_pause = 0;
    uint32_t typed_dup = 0;
    assert_true(scn_parse(&mem, "m.scn", base, strlen(base), err, sizeof err));
    sim_time_ns interval, timeout;
    pipe_heartbeat(&mem.cfg, &interval, &timeout);
    for (uint64_t seed = 1; seed <= 200; seed++) {
        assert_true(scn_parse(&mem, "m.scn", base, strlen(base), err, sizeof err));
        assert_true(scn_parse(&dur, "d.scn", durable, strlen(durable), err, sizeof err));
        uint32_t nm = scn_random_faults(&mem, seed, SIM_NS_PER_S);
        uint32_t nd = scn_random_faults(&dur, seed, SIM_NS_PER_S);
        assert_true(nd >= nm);
        uint32_t old = 0;
        while (old < nm && mem.faults[old].kind <= SCN_LOSE_RPC && mem.faults[old].rpc == 0) old++;
        for (uint32_t i = 0; i < old; i++) assert_true(same_fault(&mem.faults[i], &dur.faults[i]));
        for (uint32_t i = 0; i < nm; i++) {
            assert_true(mem.faults[i].kind != SCN_SLOW_STORE && mem.faults[i].kind != SCN_FAIL_STORE &&
                        mem.faults[i].kind != SCN_AMBIGUOUS_STORE);
            if (mem.faults[i].kind == SCN_CRASH_COORDINATOR) assert_true(mem.faults[i].duration_ns > 0);
        }
        for (uint32_t i = 0; i < nd; i++) {
            const scn_fault *f = &dur.faults[i];
            assert_true(f->kind <= SCN_DUPLICATE_RPC && f->kind != SCN_RESCALE);   /* a rescale is never drawn */
            kinds[f->kind]++;
            typed_dup += f->kind == SCN_DUPLICATE_RPC && f->rpc > 0;
            typed_loss += f->kind == SCN_LOSE_RPC && f->rpc > 0;
            typed_delay += f->kind == SCN_DELAY_RPC && f->rpc > 0;
            untyped_delay += f->kind == SCN_DELAY_RPC && f->rpc == 0;
            long_pause += f->kind == SCN_PAUSE_MACHINE && f->duration_ns > timeout;
            if (f->kind >= SCN_PAUSE_MACHINE && f->kind <= SCN_PAUSE_TASK) assert_true(f->duration_ns > 0);
        }
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        scn_write(&dur, f);
        fclose(f);
        assert_true(scn_parse(&back, "d.scn", text, len, err, sizeof err));
        assert_int_equal(back.faults_count, dur.faults_count);
        for (uint32_t i = 0; i < nd; i++) assert_true(same_fault(&back.faults[i], &dur.faults[i]));
        char *again = NULL;
        size_t len2 = 0;
        f = open_memstream(&again, &len2);
        scn_write(&back, f);
        fclose(f);
        assert_string_equal(text, again);
        free(text);
        free(again);
    }
    for (uint32_t k = SCN_CRASH_MACHINE; k <= SCN_AMBIGUOUS_STORE; k++) assert_true(kinds[k] > 0);
    assert_true(kinds[SCN_DUPLICATE_RPC] > 0 && typed_dup > 0 && typed_dup < kinds[SCN_DUPLICATE_RPC]);
    assert_true(typed_loss > 0 && typed_delay > 0 && untyped_delay > 0 && long_pause > 0);
}

/* `vary`: a random profile also draws the named settings, from a stream
 * of its own (the faults a seed draws stay the same), always a valid
 * configuration, and the same ones for the same seed. */
static void test_scn_vary_draws_valid_settings_per_seed_and_keeps_the_faults(void **state) {
    (void)state;
    static scn plain, varied, again, ref;
    char err[SCN_ERR_BYTES];
    const char *base = JOB_2PC "machines 2\nstate backend durable\n";
    assert_true(scn_parse(&ref, "p.scn", base, strlen(base), err, sizeof err));
    char text[1024];
    snprintf(text, sizeof text, "%svary checkpoint restart network\n", base);
    uint32_t kinds[PIPE_RESTART_EXPONENTIAL + 1] = { 0 }, concurrent = 0, timeouts = 0, pauses = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        assert_true(scn_parse(&plain, "p.scn", base, strlen(base), err, sizeof err));
        assert_true(scn_parse(&varied, "v.scn", text, strlen(text), err, sizeof err));
        assert_true(scn_parse(&again, "v.scn", text, strlen(text), err, sizeof err));
        assert_int_equal(varied.vary, SCN_VARY_CHECKPOINT | SCN_VARY_RESTART | SCN_VARY_NETWORK);
        uint32_t n = scn_random_faults(&plain, seed, SIM_NS_PER_S);
        assert_int_equal(scn_random_faults(&varied, seed, SIM_NS_PER_S), n);
        scn_random_faults(&again, seed, SIM_NS_PER_S);
        for (uint32_t i = 0; i < n; i++) assert_true(same_fault(&plain.faults[i], &varied.faults[i]));
        assert_memory_equal(&varied.cfg.ckpt, &again.cfg.ckpt, sizeof varied.cfg.ckpt);
        assert_memory_equal(&varied.cfg.restart, &again.cfg.restart, sizeof varied.cfg.restart);
        assert_memory_equal(&plain.cfg.ckpt, &ref.cfg.ckpt, sizeof ref.cfg.ckpt);   /* no vary: as written */
        assert_memory_equal(&plain.cfg.restart, &ref.cfg.restart, sizeof ref.cfg.restart);
        pipeline *p = pipe_create(&varied.cfg, err, sizeof err);
        assert_non_null(p);                       /* every draw is a valid configuration */
        pipe_destroy(p);
        kinds[varied.cfg.restart.kind]++;
        concurrent += varied.cfg.ckpt.max_concurrent > 1;
        timeouts += varied.cfg.ckpt.alignment_timeout_ns > 0;
        pauses += varied.cfg.ckpt.min_pause_ns > 0;
    }
    for (uint32_t k = PIPE_RESTART_NONE; k <= PIPE_RESTART_EXPONENTIAL; k++) assert_true(kinds[k] > 20);
    assert_true(concurrent > 30 && timeouts > 30 && pauses > 30);
    assert_string_equal(parse("vary checkpoint sometimes\n"),
                        "t.scn:1:17: unknown setting to vary 'sometimes' (expected one of: checkpoint, restart, network, "
                        "unaligned)");
}

/* `vary unaligned`: Flink's own test randomisation
 * (TestStreamEnvironment.randomizeConfiguration, flink-test-utils):
 * execution.checkpointing.unaligned in {true, false} and
 * aligned-checkpoint-timeout in {0 s, 100 ms, 2 s}, every one of the six
 * drawn, valid, one checkpoint at a time when unaligned is on; the other
 * vary words keep their draws; refused where Flink or absim refuse
 * unaligned checkpoints. */
static void test_scn_vary_unaligned_draws_flinks_test_randomisation(void **state) {
    (void)state;
    static scn with, without;
    char err[SCN_ERR_BYTES];
    const char *a = JOB_2PC "checkpoint interval 5ms max-concurrent 2\nvary checkpoint unaligned\n";
    const char *b = JOB_2PC "checkpoint interval 5ms max-concurrent 2\nvary checkpoint\n";
    uint32_t drawn[2][3] = { { 0 } };
    for (uint64_t seed = 1; seed <= 120; seed++) {
        assert_true(scn_parse(&with, "u.scn", a, strlen(a), err, sizeof err));
        assert_true(scn_parse(&without, "c.scn", b, strlen(b), err, sizeof err));
        scn_random_settings(&with, seed);
        scn_random_settings(&without, seed);
        const pipe_ckpt_cfg *k = &with.cfg.ckpt;
        assert_int_equal(k->interval_ns, without.cfg.ckpt.interval_ns);   /* vary checkpoint's draws stay */
        assert_int_equal(k->tolerable_failures, without.cfg.ckpt.tolerable_failures);
        bool on = k->mode == PIPE_UNALIGNED || k->alignment_timeout_ns > 0;
        uint32_t t = k->mode == PIPE_UNALIGNED ? 0 : k->alignment_timeout_ns == 100 * SIM_NS_PER_MS ? 1
                   : k->alignment_timeout_ns == 2 * SIM_NS_PER_S ? 2 : 3;
        if (on) {
            assert_true(t < 3);
            assert_int_equal(k->max_concurrent, 1);
            drawn[1][t]++;
        } else {
            assert_int_equal(k->mode, PIPE_ALIGNED);
            assert_int_equal(k->alignment_timeout_ns, 0);
            drawn[0][0]++;
        }
        pipeline *p = pipe_create(&with.cfg, err, sizeof err);
        assert_non_null(p);
        pipe_destroy(p);
    }
    assert_true(drawn[0][0] > 40 && drawn[1][0] > 10 && drawn[1][1] > 10 && drawn[1][2] > 10);
    assert_string_equal(parse(JOB "checkpoint mode at-least-once interval 5ms\nvary unaligned\n"),
                        "t.scn:7:6: vary unaligned needs exactly-once checkpoints (checkpoint mode aligned or "
                        "unaligned): Flink enables unaligned checkpoints for exactly-once only");
    assert_string_equal(parse(JOB "checkpoint interval 5ms\nvary unaligned\nfault at 5ms rescale agg to 1\n"), "ok");
    assert_string_equal(parse(JOB "checkpoint interval 5ms\nvary network unaligned\n"), "ok");
    char *text = written(&s_);
    assert_non_null(strstr(text, "vary network unaligned\n"));
    free(text);
}

/* `machines M slots S`: read, written back, and refused when the slots
 * cannot hold a vertex's parallelism (slot sharing: one task of every
 * vertex a slot). */
static void test_scn_machines_slots_are_read_checked_and_written_back(void **state) {
    (void)state;
    assert_string_equal(parse("machines 2 slots 1\n" JOB), "ok");
    assert_int_equal(s_.cfg.machines, 2);
    assert_int_equal(s_.cfg.task_slots, 1);
    char *out = written(&s_);
    assert_non_null(strstr(out, "machines 2 slots 1\n"));
    assert_string_equal(parse(out), "ok");                       /* and it reads back */
    assert_int_equal(s_.cfg.task_slots, 1);
    free(out);
    assert_string_equal(parse("machines 1 slots 1\n" JOB),
                        "t.scn:1:12: machines 1 slots 1 give 1 slots, fewer than the parallelism 2 of vertex src (a slot "
                        "holds one task of every vertex): raise the slots or the machines");
    assert_string_equal(parse("machines 2 slots 0\n" JOB), "t.scn:1:18: 0 is out of range [1, 64]");
    assert_string_equal(parse("machines 2 slots\n" JOB), "t.scn:1:17: expected a number");
}

/* `expect backpressure TASK OP D` and `expect checkpointed-bytes OP N`:
 * read, written back, and their mistakes placed. */
static void test_scn_expect_backpressure_and_checkpointed_bytes_are_read_and_written_back(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "expect backpressure agg[1] >= 90ms\nexpect checkpointed-bytes == 497216\n"), "ok");
    assert_int_equal(s_.expects[0].kind, SCN_EXPECT_BACKPRESSURE);
    assert_int_equal(s_.expects[0].vertex, 1);
    assert_int_equal(s_.expects[0].subtask, 1);
    assert_int_equal(s_.expects[0].value, 90 * SIM_NS_PER_MS);
    assert_int_equal(s_.expects[1].kind, SCN_EXPECT_CHECKPOINTED_BYTES);
    assert_int_equal(s_.expects[1].value, 497216);
    char *out = written(&s_);
    assert_non_null(strstr(out, "expect backpressure agg[1] >= 90ms\n"));
    assert_non_null(strstr(out, "expect checkpointed-bytes == 497216\n"));
    assert_string_equal(parse(out), "ok");
    free(out);
    assert_string_equal(parse(JOB "expect backpressure agg[2] >= 1ms\n"), "t.scn:6:25: 2 is out of range [0, 1]");
    assert_string_equal(parse(JOB "expect backpressure agg >= 1ms\n"),
                        "t.scn:6:21: 'agg' is not a task: write vertex[subtask], as in agg[0]");
    assert_string_equal(parse(JOB "expect backpressure agg[0] >= 5\n"), "t.scn:6:31: '5' needs a unit (duration)");
}

/* `expect checkpoint N triggered|completed at T`: the time and the
 * precision it is written with (the last digit's worth), written back as
 * written, and its mistakes placed. */
static void test_scn_expect_checkpoint_time_keeps_the_precision_written(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "expect checkpoint 1 triggered at 15.2ms\nexpect checkpoint 13 completed at 206.50ms\n"
                                  "expect checkpoint 2 triggered at 31ms\nexpect checkpoint 3 completed at 1.5s\n"), "ok");
    assert_int_equal(s_.expects[0].kind, SCN_EXPECT_CKPT_TRIGGERED);
    assert_int_equal(s_.expects[0].ckpt, 1);
    assert_int_equal(s_.expects[0].value, 15200 * SIM_NS_PER_US);
    assert_int_equal(s_.expects[0].res_ns, 100 * SIM_NS_PER_US);
    assert_int_equal(s_.expects[1].kind, SCN_EXPECT_CKPT_COMPLETED);
    assert_int_equal(s_.expects[1].res_ns, 10 * SIM_NS_PER_US);
    assert_int_equal(s_.expects[2].res_ns, SIM_NS_PER_MS);
    assert_int_equal(s_.expects[3].value, 1500 * SIM_NS_PER_MS);
    assert_int_equal(s_.expects[3].res_ns, 100 * SIM_NS_PER_MS);
    char text[96];
    assert_string_equal(scn_expect_text(&s_.expects[1], text, sizeof text), "checkpoint 13 completed at 206.50ms");
    char *out = written(&s_);
    assert_non_null(strstr(out, "expect checkpoint 1 triggered at 15.2ms\n"));
    assert_non_null(strstr(out, "expect checkpoint 13 completed at 206.50ms\n"));
    assert_string_equal(parse(out), "ok");
    assert_int_equal(s_.expects[1].res_ns, 10 * SIM_NS_PER_US);
    free(out);
    assert_string_equal(parse(JOB "expect checkpoint 0 triggered at 1ms\n"), "t.scn:6:19: 0 is out of range [1, 4096]");
    assert_string_equal(parse(JOB "expect checkpoint 1 trigered at 1ms\n"),
                        "t.scn:6:21: unknown checkpoint event 'trigered' (did you mean 'triggered'?)");
    assert_string_equal(parse(JOB "expect checkpoint 1 completed 1ms\n"),
                        "t.scn:6:31: expected 'at' before the time, found '1ms'");
    assert_string_equal(parse(JOB "expect checkpoint 1 completed at 1\n"), "t.scn:6:34: '1' needs a unit (duration)");
    assert_string_equal(parse(JOB "expect checkpoint 1 completed at\n"), "t.scn:6:33: expected a time such as 15.2ms");
    assert_string_equal(parse(JOB "expect checkpoint 1 completed at 2ms 3ms\n"), "t.scn:6:38: unexpected '3ms'");
}

/* `expect liveness D` sets the I6 bound: read exactly, written back in
 * human units, at most once, above 0, and its mistakes placed. */
static void test_scn_expect_liveness_sets_the_bound_and_reports_mistakes(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "expect finished\n"), "ok");
    assert_int_equal(scn_liveness_ns(&s_), 0);                     /* the default */
    assert_string_equal(parse(JOB "expect finished\nexpect liveness 1.5s\n"), "ok");
    assert_int_equal(s_.expects[1].kind, SCN_EXPECT_LIVENESS);
    assert_int_equal(s_.expects[1].value, 1500 * SIM_NS_PER_MS);
    assert_int_equal(s_.expects[1].line, 7);
    assert_int_equal(scn_liveness_ns(&s_), 1500 * SIM_NS_PER_MS);
    char text[64];
    assert_string_equal(scn_expect_text(&s_.expects[1], text, sizeof text), "liveness 1.5s");
    char *out = written(&s_);
    assert_non_null(strstr(out, "expect liveness 1.5s\n"));
    assert_string_equal(parse(out), "ok");                       /* and it reads back */
    assert_int_equal(scn_liveness_ns(&s_), 1500 * SIM_NS_PER_MS);
    free(out);
    assert_string_equal(parse(JOB "expect liveness\n"), "t.scn:6:16: expected the liveness bound, a duration such as 500ms");
    assert_string_equal(parse(JOB "expect liveness 500\n"), "t.scn:6:17: '500' needs a unit (duration)");
    assert_string_equal(parse(JOB "expect liveness 5sec\n"), "t.scn:6:18: unknown unit 'sec' (did you mean 's'?)");
    assert_string_equal(parse(JOB "expect liveness soon\n"), "t.scn:6:17: 'soon' is not a duration such as 200ms");
    assert_string_equal(parse(JOB "expect liveness 0ms\n"),
                        "t.scn:6:17: the liveness bound must be above 0 (leave the line out for the default)");
    assert_string_equal(parse(JOB "expect liveness 1ms 2ms\n"), "t.scn:6:21: unexpected '2ms'");
    assert_string_equal(parse(JOB "expect liveness 1s\nexpect liveness 2s\n"),
                        "t.scn:7:8: a second 'expect liveness' (the first is on line 6)");
    assert_string_equal(parse(JOB "expect livenes 1s\n"),
                        "t.scn:6:8: unknown expectation 'livenes' (did you mean 'liveness'?)");
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
        "restart exponential initial 10ms max 1s multiplier 1.5 reset 1min failover full\n"
        "bounds time 2min\n"
        "fault at 1s crash machine 2 for 500ms\nfault at 2s crash task agg[1]\n"
        "fault at 3s partition 0,1 | 2,jm for 100ms\nfault at 4s delay link m[0] -> agg[1] by 5ms for 1s\n"
        "fault at 5s cut link src[2] -> f[2] for 10ms\nfault at 6s lose rpc out[0] 12.5% for 1s\n"
        "fault when agg[1] aligning 3 crash machine 0 for 1ms\n"
        "fault when checkpoint 4 completes after 2ms cut link m[1] -> agg[0] for 1ms\n"
        "vertex out2 sink parallelism 2 output two-phase-commit\nedge agg -> out2 forward\n"
        "checkpoint mode aligned alignment-timeout 15ms max-concurrent 1 interval 100ms\n"
        "state backend durable sync incremental full-every 7 sync-cost 3us store-latency 4ms store-bandwidth 50MiB/s\n"
        "state memory-latency 1ms memory-bandwidth 3Gbit/s\n"
        "fault at 7s crash coordinator for 50ms\nfault at 8s crash coordinator\n"
        "fault at 9s slow store 7x for 20ms\nfault at 10s fail store 2.5% for 30ms\n"
        "fault at 11s slow task m[2] 1000000x for 5ms\n"
        "fault when agg[0] snapshot-sync 2 after 1us crash task agg[0]\n"
        "fault when out2[1] commits 3 slow task out2[1] 4x for 1ms\n"
        "expect finished\nexpect duplicates\nexpect aborted < 4\n"
        "expect output exactly-once\nexpect output at-least-once\nexpect output duplicates\n"
        "expect failovers == 1\nexpect unaligned > 0\nexpect liveness 250us\n"
        "expect restarted-tasks == 4\nexpect records-read >= 100\n";
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
    assert_non_null(strstr(first, "fault at 6s lose rpc out[0] 12.5% for 1s\n"));
    assert_non_null(strstr(first, " reset 60s jitter 0.100 failover full\n"));   /* Flink's jitter unsaid; region, the default, too */
    assert_non_null(strstr(first, "expect restarted-tasks == 4\nexpect records-read >= 100\n"));
    assert_non_null(strstr(first, "bounds time 120s events "));   /* durations and bandwidths in human units */
    assert_null(strstr(first, "000ns"));
    assert_null(strstr(first, "000B/s"));
    assert_int_equal(s_.cfg.time_max_ns, 120 * SIM_NS_PER_S);
    assert_non_null(strstr(first, "vertex out sink parallelism 1 cost 0ms cost-dist uniform output plain\n"));
    assert_non_null(strstr(first, " retained 2 legacy-eop alignment-timeout 15ms\n"));
    assert_non_null(strstr(first, "state backend durable sync incremental full-every 7 sync-cost 3us store-latency "
                                  "4ms store-bandwidth 50MiB/s memory-latency 1ms memory-bandwidth 3Gbit/s\n"));
    assert_non_null(strstr(first, "fault at 10s fail store 2.5% for 30ms\n"));
    assert_non_null(strstr(first, "fault at 11s slow task m[2] 1000000x for 5ms\n"));
    assert_non_null(strstr(first, "fault when agg[0] snapshot-sync 2 after 1us crash task agg[0]\n"));
    assert_non_null(strstr(first, "fault when out2[1] commits 3 slow task out2[1] 4x for 1ms\n"));
    assert_non_null(strstr(first, "fault at 8s crash coordinator\n"));
    assert_non_null(strstr(first, "expect output at-least-once\n"));
    assert_non_null(strstr(first, "expect unaligned > 0\n"));
    assert_non_null(strstr(first, "expect liveness 250us\n"));
    assert_int_equal(s_.faults_count, 15);
    assert_int_equal(s_.expects_count, 11);
    free(first);
    free(second);
}


/* ---- topics and several sources -------------------------------------------- */

#define TWO_SOURCES "broker topic clicks partitions 4 records 2000 keys 500\n" \
                    "broker topic views partitions 2 records 3000 keys 80 zipf 1.1 values 9 gap 2us\n" \
                    "vertex c source topic clicks parallelism 2\nvertex v source parallelism 2 topic views\n" \
                    "vertex j keyed-join parallelism 2\nvertex out sink\n" \
                    "edge c -> j hash\nedge v -> j hash\nedge j -> out rebalance\n"

/* Two sources, each naming its topic, feed a keyed join: the topics are
 * read with their settings (a named topic starts from the defaults, not
 * from the default topic's), the unread default topic holds nothing, the
 * join's inputs are the edges in order, pipe_create takes the job and the
 * file writes back to the same file. */
#define WINDOWED "broker gap 10us disorder 30us\nvertex src source parallelism 2 watermark-delay 50us\n" \
                 "vertex win window sliding 2ms every 500us lateness 100us parallelism 2\nvertex out sink\n" \
                 "edge src -> win hash\nedge win -> out rebalance\n"

/* Event time and windows: read, written back the same, and every
 * mistake named at its statement. */
static void test_scn_reads_windows_and_watermarks_and_names_their_mistakes(void **state) {
    (void)state;
    assert_string_equal(parse(WINDOWED), "ok");
    const job_vertex *src = &s_.cfg.graph.vertices[0], *win = &s_.cfg.graph.vertices[1];
    assert_true(src->watermarks);
    assert_int_equal(src->watermark_delay_ns, 50000);
    assert_int_equal(win->kind, JOB_WINDOW);
    assert_int_equal(win->window_size_ns, 2000000);
    assert_int_equal(win->window_slide_ns, 500000);
    assert_int_equal(win->lateness_ns, 100000);
    assert_int_equal(s_.cfg.broker.disorder_ns, 30000);
    char *text = written(&s_);
    scn again;
    char err[SCN_ERR_BYTES];
    assert_true(scn_parse(&again, "w.scn", text, strlen(text), err, sizeof err));
    assert_memory_equal(&again.cfg.graph.vertices[1], win, sizeof *win);
    assert_int_equal(again.cfg.broker.disorder_ns, 30000);
    free(text);
    assert_string_equal(parse("vertex w window\n"), "t.scn:1:16: expected tumbling SIZE or sliding SIZE every SLIDE");
    assert_string_equal(parse("vertex w window hopping 5ms\n"),
                        "t.scn:1:17: unknown window shape 'hopping' (expected one of: tumbling, sliding)");
    assert_string_equal(parse("vertex w window sliding 5ms every 6ms\n"),
                        "t.scn:1:35: a sliding window starts every 1ns to SIZE (here up to 5ms)");
    assert_string_equal(parse("vertex w window sliding 65ms every 1ms\n"),
                        "t.scn:1:36: a record would fall into 65 windows; at most 64 (a longer slide)");
    assert_string_equal(parse("vertex s source lateness 1ms\n"), "t.scn:1:17: only a window has an allowed lateness");
    assert_string_equal(parse("vertex m map watermark-delay 1ms\n"), "t.scn:1:14: only a source emits watermarks");
    assert_string_equal(parse("vertex src source\nvertex win window tumbling 5ms\nvertex out sink\n"
                              "edge src -> win hash\nedge win -> out rebalance\n"),
                        "t.scn:2:8: win: a window needs event time: every source before it must emit watermarks "
                        "(source ... watermark-delay D)");
    assert_string_equal(parse("vertex src source watermark-delay 1ms\nvertex win window tumbling 5ms\nvertex out sink\n"
                              "edge src -> win rebalance\nedge win -> out rebalance\n"),
                        "t.scn:4:17: win: a window is keyed: its input edge must be hash");
    assert_string_equal(parse("broker gap 10us records 100000 keys 10000\nvertex src source watermark-delay 1ms\n"
                              "vertex win window sliding 640us every 10us\nvertex out sink\n"
                              "edge src -> win hash\nedge win -> out rebalance\n"),
                        "t.scn:3:12: window win: 10000 keys in 100066 windows need more state than a task's map holds "
                        "(2^23 entries): fewer keys, a longer slide or more parallelism");
    assert_string_equal(parse("broker gap 10us records 100000 keys 10000\nvertex src source watermark-delay 1ms\n"
                              "vertex win window sliding 90us every 10us\nvertex out sink\n"
                              "edge src -> win hash\nedge win -> out rebalance\n"),
                        "t.scn:3:12: window win: its whole state (10000 keys in 100011 windows, 400000 records) needs "
                        "more than a map holds (2^23 entries; the checkers fold it in one): fewer keys or records, or "
                        "a longer slide");
    /* The keys do not divide evenly over the subtasks: the map of the one
     * with the most is sized for them (this job crashed at set-up when the
     * sizing took the mean). The records bound the state below every
     * window of every key. */
    assert_string_equal(parse("vertex src source parallelism 2 watermark-delay 200us\n"
                              "vertex win window tumbling 2ms parallelism 2\nvertex out sink\n"
                              "edge src -> win hash\nedge win -> out rebalance\n"), "ok");
}

static void test_scn_reads_topics_and_a_source_per_topic(void **state) {
    (void)state;
    assert_string_equal(parse("broker partitions 3 keys 7\n" TWO_SOURCES), "t.scn:1:1: the default topic is read by no "
                        "source (every source names a topic: name this one too, `broker topic NAME ...`, or read it "
                        "with a source without `topic`)");
    assert_string_equal(parse(TWO_SOURCES), "ok");
    const broker_cfg *b = &s_.cfg.broker;
    assert_int_equal(broker_cfg_topics(b), 3);
    assert_int_equal(b->partitions, 0);           /* no source reads the default topic */
    assert_string_equal(b->more[0].name, "clicks");
    assert_int_equal(b->more[0].partitions, 4);
    assert_int_equal(b->more[0].records_per_partition, 2000);
    assert_int_equal(b->more[0].keys, 500);
    assert_int_equal(b->more[0].dist, BROKER_UNIFORM);
    assert_int_equal(b->more[0].value_max, 100);
    assert_int_equal(b->more[1].dist, BROKER_ZIPF);
    assert_int_equal(b->more[1].zipf_s_milli, 1100);
    assert_int_equal(b->more[1].event_gap_ns, 2000);
    assert_int_equal(s_.cfg.graph.vertices[0].topic, 1);
    assert_int_equal(s_.cfg.graph.vertices[1].topic, 2);
    assert_int_equal(s_.cfg.graph.edges[1].input, 1);   /* views: the join's input 1 */
    assert_int_equal(broker_cfg_records(b), 14000);
    char err[SCN_ERR_BYTES] = "";
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_string_equal(err, "");
    assert_int_equal(pipe_broker(p)->partitions, 6);
    assert_int_equal(pipe_broker(p)->topic[2].first, 4);   /* views: partitions 4 and 5 */
    pipe_destroy(p);
    char *first = NULL, *second = NULL;
    size_t n1 = 0, n2 = 0;
    FILE *f = open_memstream(&first, &n1);
    scn_write(&s_, f);
    fclose(f);
    assert_null(strstr(first, "broker partitions"));   /* the empty default topic is not written */
    assert_non_null(strstr(first, "broker topic views partitions 2 records 3000 keys 80 zipf 1.100 values 9 gap 2us\n"));
    assert_non_null(strstr(first, "vertex v source parallelism 2 cost 0ms cost-dist uniform topic views\n"));
    assert_true(scn_parse(&s_, "t.scn", first, n1, err, sizeof err));
    f = open_memstream(&second, &n2);
    scn_write(&s_, f);
    fclose(f);
    assert_string_equal(first, second);
    free(first);
    free(second);
    /* A default topic beside a named one: the source without `topic` reads it. */
    assert_string_equal(parse("broker partitions 2\nbroker topic t partitions 3\nvertex a source\nvertex b source topic t\n"
                              "vertex out sink\nedge a -> out rebalance\nedge b -> out rebalance\n"), "ok");
    assert_int_equal(s_.cfg.broker.partitions, 2);
    assert_int_equal(broker_cfg_partitions(&s_.cfg.broker), 5);
}

/* Each mistake with topics at its statement, with the nearest name. */
static void test_scn_topic_mistakes_name_their_statement(void **state) {
    (void)state;
    const char *two = "broker topic clicks partitions 2\nbroker topic views partitions 2\n";
    char text[1024];
    snprintf(text, sizeof text, "%svertex a source topic clicks\nvertex b source topic veiws\n", two);
    assert_string_equal(parse(text), "t.scn:4:23: unknown topic 'veiws' (did you mean 'views'?)");
    assert_string_equal(parse("vertex a source topic clicks\n"),
                        "t.scn:1:23: no topic named 'clicks' (declare it first: broker topic clicks partitions ...)");
    snprintf(text, sizeof text, "%svertex a source\nvertex m map topic clicks\n", two);
    assert_string_equal(parse(text), "t.scn:4:14: only a source reads a topic");
    assert_string_equal(parse("broker topic clicks partitions 2\nbroker topic clicks records 5\n"),
                        "t.scn:2:14: topic 'clicks' was already declared on line 1");
    assert_string_equal(parse("broker topic cl!cks\n"), "t.scn:1:16: topic names use letters, digits, '_' and '-'");
    assert_string_equal(parse("broker topic\n"), "t.scn:1:13: expected a topic name");
    assert_string_equal(parse("broker partitions 2 topic x\n"), "t.scn:1:21: 'topic' comes first: broker topic NAME partitions ...");
    assert_string_equal(parse("broker topic x partitons 2\n"), "t.scn:1:16: unknown broker option 'partitons' (did you mean 'partitions'?)");
    snprintf(text, sizeof text, "%svertex a source topic clicks\nvertex b source topic clicks\nvertex out sink\n"
             "edge a -> out rebalance\nedge b -> out rebalance\n", two);
    assert_string_equal(parse(text), "t.scn:4:17: b: topic clicks is read by source a already (a topic has one source: "
                        "declare another with `broker topic NAME ...` and read it with `topic NAME`)");
    snprintf(text, sizeof text, "%svertex a source topic clicks\nvertex out sink\nedge a -> out rebalance\n", two);
    assert_string_equal(parse(text), "t.scn:2:8: topic views is read by no source (add `vertex NAME source topic views`)");
    snprintf(text, sizeof text, "%svertex a source topic clicks rate 10/s\nvertex b source topic views rate 20/s\n", two);
    assert_string_equal(parse(text), "t.scn:4:34: every source reads at one rate per task (10/s on line 3)");
    snprintf(text, sizeof text, "%svertex a source topic clicks parallelism 3\nvertex b source topic views\nvertex out sink\n"
             "edge a -> out rebalance\nedge b -> out rebalance\n", two);
    assert_string_equal(parse(text), "t.scn:3:30: a: parallelism 3 above the 2 partitions (a source task would read nothing)");
    assert_string_equal(parse("broker topic a partitions 1000 records 1000000\nbroker topic b partitions 1000 records 1000000\n"
                              "vertex x source topic a\nvertex y source topic b\nvertex out sink\n"
                              "edge x -> out rebalance\nedge y -> out rebalance\n"),
                        "t.scn:2:32: 2000000000 records in all topics, more than 2^30 (the sinks count each one)");
    text[0] = '\0';
    for (int i = 0; i < 8; i++) snprintf(text + strlen(text), sizeof text - strlen(text), "broker topic t%d\n", i);
    assert_string_equal(parse(text), "t.scn:8:8: more than 7 named topics (the broker holds 8 topics, the default one counted)");
}

/* ---- optional faults and the fault text ------------------------------------ */

static void test_scn_optional_is_read_written_back_and_placed_in_errors(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "fault at 1s crash machine 0 optional\nfault at 2s crash task agg[1]\n"), "ok");
    assert_true(s_.faults[0].optional);
    assert_false(s_.faults[1].optional);
    assert_string_equal(parse(JOB "fault when agg[1] aligning 3 after 1ms cut link src[0] -> agg[1] for 2ms optional\n"), "ok");
    assert_true(s_.faults[0].optional);
    assert_int_equal(s_.faults[0].duration_ns, 2 * SIM_NS_PER_MS);
    /* What is missing is reported where 'optional' stands. */
    assert_string_equal(parse(JOB "fault at 1s crash machine 0 for optional\n"),
                        "t.scn:6:33: expected a duration such as 200ms");
    assert_string_equal(parse(JOB "fault at 1s cut link src[0] -> agg[1] optional\n"),
                        "t.scn:6:39: expected 'for' and a duration");
    assert_string_equal(parse(JOB "fault at 1s crash task agg[1] optional optional\n"),
                        "t.scn:6:31: unexpected 'optional' at the end of the fault");
    assert_string_equal(parse(JOB "fault at 1s optional crash task agg[1]\n"),
                        "t.scn:6:13: unknown fault 'optional' (expected one of: crash, partition, delay, cut, lose, slow, fail, "
                        "pause, ambiguous, rescale, duplicate, stop, cancel)");
}

/* Durations in the largest unit that says them exactly, percentages
 * without trailing zeros; and every such text reads back to its fault. */
static void test_scn_fault_text_is_in_human_units_and_reads_back(void **state) {
    (void)state;
    static const char *const lines[] = {
        "fault at 10ms crash machine 1",
        "fault at 1.5s crash machine 0 for 200us",
        "fault at 300ns crash task agg[1]",
        "fault at 0ms partition 0 | 1,jm for 1.000001ms",
        "fault at 61s delay link src[1] -> agg[0] by 2.5ms for 1s",
        "fault at 5s lose rpc out[0] 12.5% for 1s",
        "fault at 5s lose rpc out[0] 0.0001% for 1s",
        "fault when checkpoint 4 completes after 1us crash coordinator for 50ms",
        "fault when agg[1] aligning 3 cut link src[0] -> agg[1] for 2ms optional",
        "fault at 40ms slow task agg[1] 10x for 200ms optional",
    };
    char text[512], buf[SCN_FAULT_TEXT_BYTES];
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        snprintf(text, sizeof text, JOB "machines 2\n%s\n", lines[i]);
        assert_string_equal(parse(text), "ok");
        assert_string_equal(scn_fault_text(&s_, &s_.faults[0], buf, sizeof buf), lines[i]);
    }
    char tiny[8];
    assert_string_equal(scn_fault_text(&s_, &s_.faults[0], tiny, sizeof tiny), "fault a");   /* cut off, terminated */
}

/* ---- every scenario fault resolves to exactly the target it names ---------- */

/* 3 machines; tasks a[0] a[1] b[0] b[1] b[2] x[0] x[1] out[0] are tasks
 * (and actors) 0 to 7, task t on machine t % 3. The job runs for ~50ms. */
#define JOB_WIDE "machines 3\nvertex a source parallelism 2 cost 2us rate 100000/s\nvertex b map parallelism 3 cost 1us\n" \
                 "vertex x keyed-aggregate parallelism 2 cost 2us\nvertex out sink\n" \
                 "edge a -> b rebalance\nedge b -> x hash\nedge x -> out rebalance\n" \
                 "broker partitions 2 records 5000 keys 50\ncheckpoint interval 5ms\nstate backend durable\n"
#define WIDE_AT_NS (10 * SIM_NS_PER_MS)

static scn_armed arm_;

/* A pipe of JOB_WIDE and one fault at 10ms, run up to 10ms: the fault began. */
static pipeline *wide_at_fault(const char *fault) {
    char text[2048];
    snprintf(text, sizeof text, "%s%s\n", JOB_WIDE, fault);
    assert_string_equal(parse(text), "ok");
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    scn_arm_faults(&s_, p, &arm_, NULL, NULL);
    pipe_sim(p)->cfg.time_max_ns = WIDE_AT_NS;
    assert_int_equal(pipe_run(p), SIM_STOP_TIME_LIMIT);
    assert_int_equal(pipe_sim(p)->faults_count, 1);
    assert_true(fault_begun(pipe_sim(p), 0));
    return p;
}

static uint32_t task_of(const pipeline *p, uint32_t vertex, uint32_t subtask) {
    return pipe_job(p)->vertex_first_task[vertex] + subtask;
}

static void test_scn_cut_link_cuts_only_the_named_channel(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms cut link b[0] -> x[1] for 5ms");
    const sim_run *run = pipe_sim(p);
    uint32_t target = run->faults[0].spec.target;
    assert_int_equal(run->faults[0].spec.kind, FAULT_LINK_CUT);
    assert_int_equal(target, pipe_chan_link(p, task_of(p, 1, 0), task_of(p, 2, 1)));
    assert_string_equal(sim_actor_name(run, run->links[target].src), "b[0]");
    assert_string_equal(sim_actor_name(run, run->links[target].dst), "x[1]");
    for (uint32_t l = 0; l < run->links_count; l++) assert_int_equal(link_is_up(run, l), l != target);
    pipe_destroy(p);
}

static void test_scn_delay_link_delays_only_the_named_channel(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms delay link b[2] -> x[0] by 3ms for 5ms");
    const sim_run *run = pipe_sim(p);
    uint32_t target = run->faults[0].spec.target;
    assert_int_equal(target, pipe_chan_link(p, task_of(p, 1, 2), task_of(p, 2, 0)));
    assert_string_equal(sim_actor_name(run, run->links[target].src), "b[2]");
    assert_string_equal(sim_actor_name(run, run->links[target].dst), "x[0]");
    for (uint32_t l = 0; l < run->links_count; l++) {
        assert_int_equal(run->links[l].spike_ns, l == target ? 3 * SIM_NS_PER_MS : 0);
    }
    pipe_destroy(p);
}

static void test_scn_lose_rpc_loses_only_on_the_named_task_link_to_the_coordinator(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms lose rpc x[0] 50% for 5ms");
    const sim_run *run = pipe_sim(p);
    uint32_t target = run->faults[0].spec.target;
    assert_int_equal(target, pipe_task_rpc_link(p, task_of(p, 2, 0)));
    assert_string_equal(sim_actor_name(run, run->links[target].src), "x[0]");
    assert_int_equal(run->links[target].dst, pipe_coord_actor(p));
    assert_int_equal(run->links[target].cfg.kind, LINK_RPC);
    for (uint32_t l = 0; l < run->links_count; l++) assert_int_equal(run->links[l].loss.num > 0, l == target);
    pipe_destroy(p);
}

static void test_scn_crash_task_downs_only_the_named_task(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms crash task x[1]");
    const sim_run *run = pipe_sim(p);
    assert_int_equal(run->faults[0].spec.target, pipe_task_actor(p, task_of(p, 2, 1)));
    for (uint32_t a = 0; a < run->actors_count; a++) {
        assert_int_equal(run->actors[a].up, strcmp(sim_actor_name(run, a), "x[1]") != 0);
    }
    pipe_destroy(p);
}

static void test_scn_crash_machine_downs_only_that_machine_and_its_tasks(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms crash machine 1 for 5ms");
    const sim_run *run = pipe_sim(p);
    for (uint32_t m = 0; m < run->machines_count; m++) assert_int_equal(run->machines[m].up, m != 1);
    assert_string_equal(run->machines[1].name, "tm1");
    uint32_t tasks = pipe_job(p)->tasks_count;
    assert_int_equal(tasks, 8);
    for (uint32_t t = 0; t < tasks; t++) assert_int_equal(run->actors[pipe_task_actor(p, t)].up, t % 3 != 1);
    assert_true(run->actors[pipe_coord_actor(p)].up);
    pipe_destroy(p);
}

/* jm is the machine after the task machines: cutting tm0 from it cuts
 * exactly the links between tm0's tasks (0, 3, 6) and the coordinator. */
static void test_scn_partition_cuts_only_the_links_between_its_sides(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms partition 0 | jm for 5ms");
    const sim_run *run = pipe_sim(p);
    uint32_t coord = pipe_coord_actor(p), cut = 0;
    for (uint32_t l = 0; l < run->links_count; l++) {
        const sim_link *k = &run->links[l];
        uint32_t task = k->src == coord ? k->dst : k->src;
        bool crossing = (k->src == coord) != (k->dst == coord) && task % 3 == 0;
        assert_int_equal(link_is_up(run, l), !crossing);
        cut += crossing;
    }
    assert_int_equal(cut, 3 * 3);              /* per task: RPC up, RPC down, the connection */
    pipe_destroy(p);
}

static void test_scn_store_faults_act_on_the_store_device_only(void **state) {
    (void)state;
    pipeline *p = wide_at_fault("fault at 10ms slow store 4x for 5ms");
    const sim_run *run = pipe_sim(p);
    assert_int_equal(run->faults[0].spec.target, pipe_store_dev(p));
    for (uint32_t d = 0; d < run->devs_count; d++) {
        assert_int_equal(run->devs[d].slow_extra, strcmp(run->devs[d].name, "store") == 0 ? 3 : 0);
    }
    pipe_destroy(p);
    p = wide_at_fault("fault at 10ms fail store 50% for 5ms");
    run = pipe_sim(p);
    assert_int_equal(run->faults[0].spec.target, pipe_store_dev(p));
    for (uint32_t d = 0; d < run->devs_count; d++) {
        assert_int_equal(run->devs[d].fail.num > 0, strcmp(run->devs[d].name, "store") == 0);
    }
    pipe_destroy(p);
}

/* ---- heartbeats, pauses, RPC faults by kind, ambiguous writes ---------------- */

static void test_scn_heartbeat_keys_are_read_alone_or_together_and_written_back_only_when_set(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "network heartbeat-interval 50ms heartbeat-timeout 500ms\n"), "ok");
    assert_int_equal(s_.cfg.heartbeat_interval_ns, 50 * SIM_NS_PER_MS);
    assert_int_equal(s_.cfg.heartbeat_timeout_ns, 500 * SIM_NS_PER_MS);
    char *text = written(&s_);
    assert_non_null(strstr(text, " rpc-latency 200us heartbeat-interval 50ms heartbeat-timeout 500ms\n"));
    free(text);
    assert_string_equal(parse(JOB "network heartbeat-interval 5ms\n"), "ok");      /* timeout: five intervals */
    assert_int_equal(s_.cfg.heartbeat_timeout_ns, 0);
    text = written(&s_);
    assert_non_null(strstr(text, " heartbeat-interval 5ms\n"));
    assert_null(strstr(text, "heartbeat-timeout"));
    free(text);
    assert_string_equal(parse(JOB "network heartbeat-timeout 20ms\n"), "ok");      /* interval: 50 x 200us = 10ms */
    assert_int_equal(s_.cfg.heartbeat_interval_ns, 0);
    sim_time_ns interval, timeout;
    pipe_heartbeat(&s_.cfg, &interval, &timeout);
    assert_int_equal(interval, 10 * SIM_NS_PER_MS);
    assert_int_equal(timeout, 20 * SIM_NS_PER_MS);
    text = written(&s_);
    assert_non_null(strstr(text, " rpc-latency 200us heartbeat-timeout 20ms\n"));
    assert_null(strstr(text, "heartbeat-interval"));
    free(text);
    assert_string_equal(parse(JOB "network latency 1ms\n"), "ok");                 /* not set: not written */
    text = written(&s_);
    assert_null(strstr(text, "heartbeat"));
    free(text);
}

/* The timeout must outlast an interval and a round trip, checked on the
 * whole file (a later rpc-latency, a latency vary may draw) and reported
 * at the statement that set the key. */
static void test_scn_heartbeat_timeout_not_beyond_interval_and_round_trip_is_refused_at_its_statement(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "network heartbeat-interval 50ms heartbeat-timeout 50ms\n"),
                        "t.scn:6:33: network: heartbeat-timeout 50ms must be longer than heartbeat-interval 50ms plus "
                        "a round trip (2 x rpc-latency 200us), or every TaskManager is declared lost");
    assert_string_equal(parse(JOB "network heartbeat-timeout 10.4ms\n"),
                        "t.scn:6:9: network: heartbeat-timeout 10.4ms must be longer than heartbeat-interval 10ms "
                        "(50 RPC latencies) plus a round trip (2 x rpc-latency 200us), or every TaskManager is declared lost");
    assert_string_equal(parse(JOB "network heartbeat-interval 5ms heartbeat-timeout 10ms\nnetwork rpc-latency 3ms\n"),
                        "t.scn:6:32: network: heartbeat-timeout 10ms must be longer than heartbeat-interval 5ms plus "
                        "a round trip (2 x rpc-latency 3ms), or every TaskManager is declared lost");
    assert_string_equal(parse(JOB "network heartbeat-interval 5ms heartbeat-timeout 10ms\nvary network\n"),
                        "t.scn:6:32: network: heartbeat-timeout 10ms must be longer than heartbeat-interval 5ms plus "
                        "a round trip (2 x rpc-latency 3ms, the largest that vary network draws), or every TaskManager "
                        "is declared lost");
    assert_string_equal(parse(JOB "network heartbeat-interval 100us\n"),
                        "t.scn:6:9: network: heartbeat-timeout 500us (five intervals) must be longer than heartbeat-interval "
                        "100us plus a round trip (2 x rpc-latency 200us), or every TaskManager is declared lost");
    assert_string_equal(parse(JOB "network heartbeat-interval 0ms\n"),
                        "t.scn:6:9: heartbeat-interval must be above 0 (leave it out for the default)");
    assert_string_equal(parse(JOB "network heartbeat-intervall 5ms\n"),
                        "t.scn:6:9: unknown network option 'heartbeat-intervall' (did you mean 'heartbeat-interval'?)");
    assert_string_equal(parse(JOB "network heartbeat-interval 5ms heartbeat-timeout 10.401ms\n"), "ok");
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);          /* what the reader accepts, the model does */
    assert_non_null(p);
    pipe_destroy(p);
}

/* The pipe of JOB_WIDE with `faults` added (not run). */
static pipeline *wide_with(const char *faults) {
    char text[4096];
    snprintf(text, sizeof text, "%s%s", JOB_WIDE, faults);
    assert_string_equal(parse(text), "ok");
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    scn_add_faults(&s_, p);
    return p;
}

static void test_scn_pauses_map_to_kernel_pauses_of_the_machine_the_coordinator_and_the_task(void **state) {
    (void)state;
    pipeline *p = wide_with("fault at 30ms pause machine 1 for 200ms\nfault at 30ms pause coordinator for 50ms\n"
                            "fault at 30ms pause task x[1] for 20ms\n");
    const sim_run *run = pipe_sim(p);
    assert_int_equal(run->faults_count, 3);
    const fault_spec *x = &run->faults[0].spec;
    assert_int_equal(x->kind, FAULT_MACHINE_PAUSE);
    assert_int_equal(x->target, 1);
    assert_string_equal(run->machines[x->target].name, "tm1");
    assert_int_equal(x->at_ns, 30 * SIM_NS_PER_MS);
    assert_int_equal(x->duration_ns, 200 * SIM_NS_PER_MS);
    x = &run->faults[1].spec;
    assert_int_equal(x->kind, FAULT_ACTOR_PAUSE);
    assert_int_equal(x->target, pipe_coord_actor(p));
    assert_int_equal(x->duration_ns, 50 * SIM_NS_PER_MS);
    x = &run->faults[2].spec;
    assert_int_equal(x->kind, FAULT_ACTOR_PAUSE);
    assert_int_equal(x->target, pipe_task_actor(p, task_of(p, 2, 1)));
    assert_string_equal(sim_actor_name(run, x->target), "x[1]");
    assert_int_equal(x->duration_ns, 20 * SIM_NS_PER_MS);
    pipe_destroy(p);
    /* at a protocol point too, as any fault */
    assert_string_equal(parse(JOB_WIDE "fault when checkpoint 2 starts after 1ms pause machine 2 for 5ms\n"), "ok");
    assert_int_equal(s_.faults[0].kind, SCN_PAUSE_MACHINE);
    assert_int_equal(s_.faults[0].point, SCN_WHEN_STARTS);
    assert_int_equal(s_.faults[0].machine, 2);
}

static void test_scn_a_pause_needs_a_duration_and_a_target_that_exists(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "fault at 30ms pause machine 1\n"), "t.scn:6:30: expected 'for' and a duration");
    assert_string_equal(parse(JOB "fault at 30ms pause coordinator\n"), "t.scn:6:32: expected 'for' and a duration");
    assert_string_equal(parse(JOB "fault at 30ms pause task agg[1] optional\n"),
                        "t.scn:6:33: expected 'for' and a duration");
    assert_string_equal(parse(JOB "fault at 30ms pause task agg[1] for 0ms\n"), "t.scn:6:37: the duration must be above 0");
    assert_string_equal(parse(JOB "fault at 30ms pause machine 2 for 1ms\n"), "t.scn:6:29: 2 is out of range [0, 1]");
    assert_string_equal(parse(JOB "fault at 30ms pause tsk agg[1] for 1ms\n"),
                        "t.scn:6:21: unknown pause target 'tsk' (did you mean 'task'?)");
    assert_string_equal(parse(JOB "fault at 30ms pause task agg[2] for 1ms\n"), "t.scn:6:30: 2 is out of range [0, 1]");
    assert_string_equal(parse(JOB "fault at 30ms pause machine 1 for 1ms\nmachines 3\n"),
                        "t.scn:7:1: declare machines before the faults that name machines (line 6 names some)");
}

/* The RPC link and message type a fault of one kind of RPC got. */
static void expect_rpc_window(const pipeline *p, const fault_spec *x, fault_kind kind, const char *rpc, uint32_t task) {
    uint32_t type = 0;
    bool to_task = false;
    assert_int_equal(x->kind, kind);
    if (rpc == NULL) {
        assert_int_equal(x->msg_type, 0);
        assert_int_equal(x->target, pipe_task_rpc_link(p, task));
        return;
    }
    assert_true(pipe_rpc_kind(rpc, &type, &to_task));
    assert_int_equal(x->msg_type, type);
    assert_int_equal(x->target, to_task ? pipe_task_rpc_in_link(p, task) : pipe_task_rpc_link(p, task));
}

static void test_scn_rpc_faults_of_a_kind_act_on_that_type_on_the_link_the_kind_travels(void **state) {
    (void)state;
    pipeline *p = wide_with("fault at 20ms lose rpc deploy x[1] 100% for 10ms\n"
                            "fault at 20ms lose rpc ack out[0] 50% for 40ms\n"
                            "fault at 20ms lose rpc out[0] 30% for 40ms\n"
                            "fault at 20ms delay rpc finished a[0] by 30ms for 10ms\n"
                            "fault at 20ms delay rpc a[0] by 30ms for 10ms\n"
                            "fault at 20ms delay rpc heartbeat b[2] by 1ms for 10ms\n"
                            "fault at 20ms duplicate rpc complete x[1] 50% for 10ms\n");
    const sim_run *run = pipe_sim(p);
    assert_int_equal(run->faults_count, 7);
    const fault_spec *x = run->faults[0].spec.kind ? &run->faults[0].spec : NULL;
    expect_rpc_window(p, x, FAULT_LINK_LOSS, "deploy", task_of(p, 2, 1));
    assert_int_equal(run->links[x->target].src, pipe_coord_actor(p));      /* deploy: coordinator -> task */
    assert_string_equal(sim_actor_name(run, run->links[x->target].dst), "x[1]");
    assert_int_equal(x->ratio.num, x->ratio.den);
    x = &run->faults[1].spec;
    expect_rpc_window(p, x, FAULT_LINK_LOSS, "ack", task_of(p, 3, 0));
    assert_string_equal(sim_actor_name(run, run->links[x->target].src), "out[0]");   /* ack: task -> coordinator */
    assert_int_equal(run->links[x->target].dst, pipe_coord_actor(p));
    assert_int_equal((uint64_t)x->ratio.num * 2, x->ratio.den);
    expect_rpc_window(p, &run->faults[2].spec, FAULT_LINK_LOSS, NULL, task_of(p, 3, 0));   /* every message, as before */
    x = &run->faults[3].spec;
    expect_rpc_window(p, x, FAULT_LINK_DELAY, "finished", task_of(p, 0, 0));
    assert_int_equal(x->delay_ns, 30 * SIM_NS_PER_MS);
    assert_int_equal(x->duration_ns, 10 * SIM_NS_PER_MS);
    expect_rpc_window(p, &run->faults[4].spec, FAULT_LINK_DELAY, NULL, task_of(p, 0, 0));
    expect_rpc_window(p, &run->faults[5].spec, FAULT_LINK_DELAY, "heartbeat", task_of(p, 1, 2));
    x = &run->faults[6].spec;                                              /* complete: coordinator -> task */
    expect_rpc_window(p, x, FAULT_LINK_DUP, "complete", task_of(p, 2, 1));
    assert_int_equal(run->links[x->target].src, pipe_coord_actor(p));
    assert_int_equal((uint64_t)x->ratio.num * 2, x->ratio.den);
    pipe_destroy(p);
}

/* "deploy, cancel, ...": the model's kinds, whatever they are. */
static const char *rpc_kinds_listed(void) {
    static char list[512];
    list[0] = '\0';
    for (uint32_t i = 0; pipe_rpc_kind_names[i] != NULL; i++) {
        if (i > 0) strcat(list, ", ");
        strcat(list, pipe_rpc_kind_names[i]);
    }
    return list;
}

static void test_scn_an_unknown_rpc_kind_is_refused_with_the_kinds_listed(void **state) {
    (void)state;
    char want[SCN_ERR_BYTES];
    assert_non_null(strstr(rpc_kinds_listed(), "deploy, cancel, trigger, complete, abort, heartbeat, assign, "));
    snprintf(want, sizeof want, "t.scn:6:24: unknown RPC kind 'deply' (did you mean 'deploy'? expected a task, as "
             "agg[1], or one of the kinds: %s)", rpc_kinds_listed());
    assert_string_equal(parse(JOB "fault at 20ms lose rpc deply agg[1] 100% for 10ms\n"), want);
    assert_string_equal(parse(JOB "fault at 20ms delay rpc agg by 1ms for 10ms\n"),   /* a vertex: a task was meant */
                        "t.scn:6:25: 'agg' is not a task: write vertex[subtask], as in agg[0]");
    snprintf(want, sizeof want, "t.scn:6:25: unknown RPC kind 'everything' (expected a task, as agg[1], or one of "
             "the kinds: %s)", rpc_kinds_listed());
    assert_string_equal(parse(JOB "fault at 20ms delay rpc everything agg[0] by 1ms for 10ms\n"), want);
    assert_string_equal(parse(JOB "fault at 20ms lose rpc ack 50% for 10ms\n"),
                        "t.scn:6:28: '50%' is not a task: write vertex[subtask], as in agg[0]");
    assert_string_equal(parse(JOB "fault at 20ms delay rpc ack agg[1] for 10ms\n"), "t.scn:6:36: expected 'by', not 'for'");
    assert_string_equal(parse(JOB "fault at 20ms delay wire agg[1] by 1ms for 10ms\n"),
                        "t.scn:6:21: unknown delay target 'wire' (did you mean 'link'?)");
    assert_string_equal(parse(JOB "fault at 20ms delay queue agg[1] by 1ms for 10ms\n"),
                        "t.scn:6:21: unknown delay target 'queue' (expected one of: link, rpc)");
    assert_string_equal(parse(JOB "fault at 20ms cut rpc agg[1] for 10ms\n"), "t.scn:6:19: expected 'link', not 'rpc'");
}

static void test_scn_ambiguous_store_maps_to_ambiguous_writes_on_the_store_and_needs_the_durable_backend(void **state) {
    (void)state;
    pipeline *p = wide_with("fault at 40ms ambiguous store 30% for 20ms\n");
    const fault_spec *x = &pipe_sim(p)->faults[0].spec;
    assert_int_equal(x->kind, FAULT_DEV_AMBIGUOUS);
    assert_int_equal(x->target, pipe_store_dev(p));
    assert_int_equal((uint64_t)x->ratio.num * 100, 30ull * x->ratio.den);
    assert_int_equal(x->at_ns, 40 * SIM_NS_PER_MS);
    assert_int_equal(x->duration_ns, 20 * SIM_NS_PER_MS);
    pipe_destroy(p);
    p = wide_with("fault at 40ms ambiguous ha 30% for 20ms\n");   /* the HA services' store: metadata pointers */
    assert_int_equal(pipe_sim(p)->faults[0].spec.kind, FAULT_DEV_AMBIGUOUS);
    assert_int_equal(pipe_sim(p)->faults[0].spec.target, pipe_ha_dev(p));
    assert_true(pipe_ha_dev(p) != pipe_store_dev(p));
    pipe_destroy(p);
    assert_string_equal(parse(JOB "fault at 40ms ambiguous store 30% for 20ms\n"),
                        "t.scn:6:15: the ambiguous store fault needs 'state backend durable' (the memory backend keeps "
                        "snapshots at the coordinator, not in the store)");
    assert_string_equal(parse(JOB "state backend durable\nfault at 40ms ambiguous store 30%\n"),
                        "t.scn:7:34: expected 'for' and a duration");
    assert_string_equal(parse(JOB "state backend durable\nfault at 40ms ambiguous stor 30% for 1ms\n"),
                        "t.scn:7:25: expected 'store', not 'stor'");
}

/* shrink writes the scenario back: each new fault must read back to the
 * same fault, and so to the same kernel fault. */
static void test_scn_write_round_trips_every_new_fault_to_the_same_kernel_fault(void **state) {
    (void)state;
    static const char *const lines[] = {
        "fault at 30ms pause machine 1 for 200ms",
        "fault at 30ms pause coordinator for 50ms",
        "fault at 30ms pause task x[1] for 20ms",
        "fault when checkpoint 3 completes after 2ms pause task b[0] for 1.5ms optional",
        "fault at 20ms lose rpc deploy x[1] 100% for 10ms",
        "fault at 20ms lose rpc ack out[0] 50% for 40ms",
        "fault at 20ms lose rpc running out[0] 12.5% for 1s",
        "fault at 20ms delay rpc finished a[0] by 30ms for 10ms",
        "fault at 20ms delay rpc a[0] by 30ms for 10ms",
        "fault at 40ms ambiguous store 30% for 20ms",
        "fault at 40ms ambiguous ha 30% for 20ms",
        "fault at 20ms duplicate rpc trigger a[0] 100% for 10ms",
        "fault at 20ms duplicate rpc out[0] 25% for 40ms",
    };
    static scn back;
    char text[4096] = "", buf[SCN_FAULT_TEXT_BYTES], err[SCN_ERR_BYTES];
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        strcat(text, lines[i]);
        strcat(text, "\n");
    }
    pipeline *p = wide_with(text);
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        assert_string_equal(scn_fault_text(&s_, &s_.faults[i], buf, sizeof buf), lines[i]);
    }
    char *first = written(&s_);
    assert_true(scn_parse(&back, "t.scn", first, strlen(first), err, sizeof err));
    char *second = written(&back);
    assert_string_equal(first, second);
    assert_int_equal(back.faults_count, s_.faults_count);
    for (uint32_t i = 0; i < s_.faults_count; i++) assert_true(same_fault(&s_.faults[i], &back.faults[i]));
    pipeline *q = pipe_create(&back.cfg, err, sizeof err);
    assert_non_null(q);
    scn_add_faults(&back, q);
    const sim_run *a = pipe_sim(p), *b = pipe_sim(q);
    assert_int_equal(b->faults_count, a->faults_count);          /* the point's fault is armed at its point: 10 */
    assert_int_equal(a->faults_count, 12);
    for (uint32_t i = 0; i < b->faults_count; i++) {
        const fault_spec *x = &a->faults[i].spec, *y = &b->faults[i].spec;
        assert_true(x->kind == y->kind && x->at_ns == y->at_ns && x->duration_ns == y->duration_ns &&
                    x->target == y->target && x->delay_ns == y->delay_ns && x->msg_type == y->msg_type &&
                    x->ratio.num == y->ratio.num && x->ratio.den == y->ratio.den);
    }
    free(first);
    free(second);
    pipe_destroy(p);
    pipe_destroy(q);
}

static void test_scn_expect_fenced_compares_the_dropped_messages_of_old_attempts(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "expect fenced >= 1\nexpect fenced == 0\n"), "ok");
    assert_int_equal(s_.expects[0].kind, SCN_EXPECT_FENCED);
    assert_int_equal(s_.expects[0].cmp, SCN_GE);
    assert_int_equal(s_.expects[0].value, 1);
    char buf[64];
    assert_string_equal(scn_expect_text(&s_.expects[0], buf, sizeof buf), "fenced >= 1");
    char *text = written(&s_);
    assert_non_null(strstr(text, "expect fenced >= 1\nexpect fenced == 0\n"));
    free(text);
    assert_string_equal(parse(JOB "expect fenced\n"), "t.scn:6:14: expected a comparison (==, >=, <=, >, <)");
    assert_string_equal(parse(JOB "expect fencd >= 1\n"), "t.scn:6:8: unknown expectation 'fencd' (did you mean 'fenced'?)");
}

/* Seed 7's profile for this job, as the generator drew it before pauses,
 * typed RPC faults and ambiguous writes were added: the new kinds draw
 * after these, from the same stream, so the old faults stay. */
static void test_scn_random_profiles_keep_the_faults_earlier_generators_drew(void **state) {
    (void)state;
    static const char *const before[] = {
        "fault at 167.704072ms crash machine 0 for 112.47546ms optional",
        "fault at 391.091706ms crash task agg[0] optional",
        "fault at 431.639827ms crash task agg[0] optional",
        "fault at 635.452639ms crash coordinator for 7.964162ms optional",
        "fault at 205.38041ms fail store 12% for 8.184276ms optional",
        "fault at 677.379796ms fail store 91% for 4.853585ms optional",
        "fault at 447.772288ms slow task src[1] 4x for 80.941144ms optional",
        "fault at 793.320752ms slow task agg[1] 19x for 94.00201ms optional",
    };
    const char *base = JOB_2PC "machines 2\nstate backend durable\n";
    assert_string_equal(parse(base), "ok");
    uint32_t n = scn_random_faults(&s_, 7, SIM_NS_PER_S);
    assert_true(n > sizeof before / sizeof before[0]);
    char buf[SCN_FAULT_TEXT_BYTES];
    for (size_t i = 0; i < sizeof before / sizeof before[0]; i++) {
        assert_string_equal(scn_fault_text(&s_, &s_.faults[i], buf, sizeof buf), before[i]);
    }
}

/* ---- faults that never fire ------------------------------------------------ */

/* The run of `text` to its end; returns the unfired count, the message in why. */
static uint32_t unfired_of(const char *text, char *why, size_t why_bytes, sim_time_ns *end_ns) {
    assert_string_equal(parse(text), "ok");
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    scn_arm_faults(&s_, p, &arm_, NULL, NULL);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    *end_ns = pipe_sim(p)->now_ns;
    uint32_t n = scn_unfired(&arm_, *end_ns, why, why_bytes);
    pipe_destroy(p);
    return n;
}

static const char *ms3(sim_time_ns ns, char *buf, size_t n) {   /* as scn_unfired prints times */
    uint64_t us = (ns + 500) / 1000;
    snprintf(buf, n, "%" PRIu64 ".%03" PRIu64 "ms", us / 1000, us % 1000);
    return buf;
}

static void test_scn_unfired_reports_a_time_fault_after_the_job_ended(void **state) {
    (void)state;
    char why[1024], want[1024], end[32];
    sim_time_ns end_ns;
    /* Lines 12 and 13 of the text: one fires, one lies past the end. */
    assert_int_equal(unfired_of(JOB_WIDE "fault at 1ms crash task x[0]\nfault at 10s crash machine 1\n", why, sizeof why,
                                &end_ns), 1);
    assert_true(end_ns > SIM_NS_PER_MS && end_ns < 10 * SIM_NS_PER_S);
    snprintf(want, sizeof want, "t.scn:13: fault at 10s crash machine 1 never fired (the job ended at %s)",
             ms3(end_ns, end, sizeof end));
    assert_string_equal(why, want);
    assert_int_equal(unfired_of(JOB_WIDE "fault at 1ms crash task x[0]\nfault at 10s crash machine 1 optional\n", why,
                                sizeof why, &end_ns), 0);
    assert_string_equal(why, "");
}

/* A fault drawn at random has no line (shrink scripts such faults): its
 * message names the file alone, never "file:0:". */
static void test_scn_unfired_names_no_line_for_a_drawn_fault(void **state) {
    (void)state;
    assert_string_equal(parse(JOB_WIDE "fault at 10s crash machine 1\n"), "ok");
    s_.faults[0].line = 0;
    char err[256], why[512];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    scn_arm_faults(&s_, p, &arm_, NULL, NULL);
    pipe_run(p);
    assert_int_equal(scn_unfired(&arm_, pipe_sim(p)->now_ns, why, sizeof why), 1);
    pipe_destroy(p);
    assert_non_null(strstr(why, "t.scn: fault at 10s crash machine 1 never fired (the job ended at "));
}

static void test_scn_unfired_reports_a_slow_task_window_after_the_job_ended(void **state) {
    (void)state;
    char why[1024];
    sim_time_ns end_ns;
    assert_int_equal(unfired_of(JOB_WIDE "fault at 5ms slow task x[0] 3x for 1ms\n", why, sizeof why, &end_ns), 0);
    assert_int_equal(unfired_of(JOB_WIDE "fault at 30s slow task x[0] 3x for 1ms\n", why, sizeof why, &end_ns), 1);
    assert_non_null(strstr(why, "t.scn:12: fault at 30s slow task x[0] 3x for 1ms never fired (the job ended at "));
}

/* Unaligned checkpoints never block an input: an `aligning` point is
 * never reached, though in aligned mode the same point is. */
static void test_scn_unfired_reports_a_point_never_reached(void **state) {
    (void)state;
    char why[1024], want[1024], end[32];
    sim_time_ns end_ns;
    assert_int_equal(unfired_of(JOB_WIDE "checkpoint mode aligned\nfault when x[1] aligning 2 crash task b[0]\nchannels buffer-timeout 1ms\n", why,
                                sizeof why, &end_ns), 0);
    assert_true(arm_.reached[0]);
    assert_int_equal(unfired_of(JOB_WIDE "checkpoint mode unaligned\nfault when x[1] aligning 2 crash task b[0]\nchannels buffer-timeout 1ms\n", why,
                                sizeof why, &end_ns), 1);
    assert_false(arm_.reached[0]);
    snprintf(want, sizeof want, "t.scn:13: fault when x[1] aligning 2 crash task b[0] never fired (the point was never "
             "reached; the job ended at %s)", ms3(end_ns, end, sizeof end));
    assert_string_equal(why, want);
}

/* A point reached, but its `after` delay runs past the end of the job. */
static void test_scn_unfired_reports_a_point_reached_too_late(void **state) {
    (void)state;
    char why[1024], want[1024], end[32], at[32];
    sim_time_ns end_ns;
    assert_int_equal(unfired_of(JOB_WIDE "fault when checkpoint 2 completes after 10s crash task x[0]\n", why, sizeof why,
                                &end_ns), 1);
    assert_true(arm_.reached[0]);
    snprintf(want, sizeof want, "t.scn:12: fault when checkpoint 2 completes after 10s crash task x[0] never fired (the "
             "point was reached at %s; the job ended at %s)", ms3(arm_.begin_ns[0] - 10 * SIM_NS_PER_S, at, sizeof at),
             ms3(end_ns, end, sizeof end));
    assert_string_equal(why, want);
}

static void test_scn_unfired_joins_messages_and_counts_past_a_full_buffer(void **state) {
    (void)state;
    char why[1024], tiny[40];
    sim_time_ns end_ns;
    const char *text = JOB_WIDE "fault at 20s crash task x[0]\nfault at 1ms crash task x[1]\nfault at 30s crash task b[0]\n";
    assert_int_equal(unfired_of(text, why, sizeof why, &end_ns), 2);
    const char *sep = strstr(why, "; t.scn:14: fault at 30s crash task b[0] never fired");
    assert_non_null(sep);
    assert_true(strncmp(why, "t.scn:12: fault at 20s crash task x[0] never fired", 50) == 0);
    assert_int_equal(unfired_of(text, tiny, sizeof tiny, &end_ns), 2);
    assert_int_equal(strlen(tiny), sizeof tiny - 1);
}

/* A random profile is not a script: its faults are optional, so those it
 * draws past the end of the job are not reported. */
static void test_scn_random_faults_are_optional(void **state) {
    (void)state;
    static scn r;
    char err[SCN_ERR_BYTES], why[4096];
    const char *text = JOB_WIDE;
    assert_true(scn_parse(&r, "r.scn", text, strlen(text), err, sizeof err));
    assert_true(scn_random_faults(&r, 7, 600 * SIM_NS_PER_S) > 0);   /* a horizon far past the end */
    for (uint32_t i = 0; i < r.faults_count; i++) assert_true(r.faults[i].optional);
    for (int pass = 0; pass < 2; pass++) {
        pipeline *p = pipe_create(&r.cfg, err, sizeof err);
        assert_non_null(p);
        scn_arm_faults(&r, p, &arm_, NULL, NULL);
        pipe_run(p);
        uint32_t n = scn_unfired(&arm_, pipe_sim(p)->now_ns, why, sizeof why);
        pipe_destroy(p);
        if (pass == 0) assert_int_equal(n, 0);
        else assert_true(n > 0);               /* the same faults, required: some never fire */
        for (uint32_t i = 0; i < r.faults_count; i++) r.faults[i].optional = false;
    }
}

/* Run one scenario file as `absim run` does (cli/run.c) and return its
 * unfired faults' count. */
static uint32_t unfired_in(const char *path, char *why, size_t why_bytes) {
    static scn s;
    char err[SCN_ERR_BYTES];
    if (!scn_load(&s, path, err, sizeof err)) fail_msg("%s", err);
    if (s.faults_count == 0) return 0;
    pipeline *p = pipe_create(&s.cfg, err, sizeof err);
    if (p == NULL) fail_msg("%s: %s", path, err);
    static scn_armed arm;
    scn_arm_faults(&s, p, &arm, NULL, NULL);
    pipe_run(p);
    uint32_t n = scn_unfired(&arm, pipe_sim(p)->now_ns, why, why_bytes);
    pipe_destroy(p);
    return n;
}

/* Every shipped scenario's faults fire: a scripted fault that never fires
 * would fail `absim run` (run from the repository root, as make does). */
static void count_unfired(const char *path, void *ctx) {
    char why[2048];
    if (unfired_in(path, why, sizeof why) == 0) return;
    print_error("%s\n", why);
    ++*(uint32_t *)ctx;
}

static void test_scn_every_shipped_scenario_fault_fires(void **state) {
    (void)state;
    uint32_t bad = 0, files = each_shipped_scenario(count_unfired, &bad);
    assert_true(files >= 30);
    assert_int_equal(bad, 0);
}

static void test_scn_load_reports_missing_files(void **state) {
    (void)state;
    char err[SCN_ERR_BYTES];
    assert_false(scn_load(&s_, "/nonexistent/x.scn", err, sizeof err));
    assert_string_equal(err, "/nonexistent/x.scn: cannot open");
}

/* --from and --to read a duration as a scenario file does, and say why not without a place. */
static void test_scn_parse_duration_reads_the_language_units_and_says_why_not(void **state) {
    (void)state;
    sim_time_ns t = 0;
    char err[200];
    assert_true(scn_parse_duration("1.5ms", &t, err, sizeof err));
    assert_int_equal(t, 1500 * SIM_NS_PER_US);
    assert_true(scn_parse_duration("2s", &t, err, sizeof err));
    assert_int_equal(t, 2 * SIM_NS_PER_S);
    assert_false(scn_parse_duration("10mss", &t, err, sizeof err));
    assert_string_equal(err, "unknown unit 'mss' (did you mean 'ms'?)");
    assert_false(scn_parse_duration("10", &t, err, sizeof err));
    assert_string_equal(err, "'10' needs a unit (duration)");
    assert_false(scn_parse_duration("soon", &t, err, sizeof err));
    assert_string_equal(err, "'soon' is not a duration such as 200ms");
    assert_false(scn_parse_duration("", &t, err, sizeof err));
}

/* `max-parallelism` sets a vertex's key groups and is written back; a
 * parallelism above it is refused where it is set. */
static void test_scn_max_parallelism_is_read_written_back_and_bounds_the_parallelism(void **state) {
    (void)state;
    assert_string_equal(parse("vertex src source parallelism 2\nvertex agg keyed-aggregate parallelism 2 max-parallelism 8\n"
                              "vertex out sink\nedge src -> agg hash\nedge agg -> out rebalance\n"), "ok");
    assert_int_equal(s_.cfg.graph.vertices[1].max_parallelism, 8);
    char *text = written(&s_);
    assert_non_null(strstr(text, "vertex agg keyed-aggregate parallelism 2 "));
    assert_non_null(strstr(text, " max-parallelism 8\n"));
    free(text);
    assert_string_equal(parse("vertex src source parallelism 2\nvertex agg keyed-aggregate parallelism 4 max-parallelism 3\n"
                              "vertex out sink\nedge src -> agg hash\nedge agg -> out rebalance\n"),
                        "t.scn:2:42: agg: parallelism 4 above its max-parallelism 3 (the key groups; raise it or lower "
                        "the parallelism)");
    assert_string_equal(parse("vertex src source parallelism 2 max-parallelism 40000\n"),
                        "t.scn:1:49: 40000 is out of range [1, 32768]");
}

/* A rescale is read into the schedule in time order, written back, and
 * sizes the run at the largest parallelism it gives a vertex. */
/* Stops and cancels with their resumes go into cfg.stops in time order,
 * the restore mode NO_CLAIM (Flink's default) when left out, and read
 * back; what cannot go with them is refused at the first of them. */
static void test_scn_stops_and_cancels_go_into_the_schedule_and_read_back(void **state) {
    (void)state;
    const char *durable = "checkpoint interval 5ms\nstate backend durable\n";
    char text[SCN_FAULT_TEXT_BYTES], txt[1024];
    snprintf(txt, sizeof txt, JOB "%sfault at 50ms stop job resume after 2ms claim\nfault at 20ms cancel job resume after 1ms\n",
             durable);
    assert_string_equal(parse(txt), "ok");
    assert_int_equal(s_.cfg.stops_count, 2);
    assert_int_equal(s_.cfg.stops[0].how, PIPE_HALT_CANCEL);
    assert_int_equal(s_.cfg.stops[0].claim, PIPE_CLAIM_NO_CLAIM);
    assert_int_equal(s_.cfg.stops[0].resume_ns, SIM_NS_PER_MS);
    assert_int_equal(s_.cfg.stops[1].how, PIPE_HALT_STOP);
    assert_int_equal(s_.cfg.stops[1].claim, PIPE_CLAIM_CLAIM);
    assert_string_equal(scn_fault_text(&s_, &s_.faults[1], text, sizeof text),
                        "fault at 20ms cancel job resume after 1ms no-claim");
    char *w = written(&s_);
    assert_string_equal(parse(w), "ok");
    free(w);
    assert_int_equal(s_.cfg.stops_count, 2);
    snprintf(txt, sizeof txt, JOB "%sfault at 20ms stop job drain\n", durable);
    assert_string_equal(parse(txt), "ok");
    assert_true(s_.cfg.stops[0].drain);
    assert_string_equal(scn_fault_text(&s_, &s_.faults[0], text, sizeof text), "fault at 20ms stop job drain");
    snprintf(txt, sizeof txt, JOB "%sfault at 20ms stop job drain resume after 1ms\n", durable);
    assert_string_equal(parse(txt), "t.scn:8:30: a drained job ends for good: its savepoint's tasks all finished (stop "
                                    "--drain), there is nothing to resume");
    snprintf(txt, sizeof txt, JOB "%sfault at 20ms stop job\n", durable);
    assert_string_equal(parse(txt), "t.scn:8:23: expected 'resume after D' (a job stopped or cancelled for good is not "
                                    "modelled yet)");
    snprintf(txt, sizeof txt, JOB "%sfault at 20ms cancel job resume after 1ms maybe\n", durable);
    assert_string_equal(parse(txt), "t.scn:8:43: unknown restore mode 'maybe' (expected one of: no-claim, claim, legacy)");
    assert_string_equal(parse(JOB "checkpoint interval 5ms\nfault at 20ms stop job resume after 1ms\n"),
                        "t.scn:7:15: a resumed job reads its snapshot from durable storage: it needs 'state backend durable'");
    snprintf(txt, sizeof txt, JOB "%scheckpoint mode unaligned\nfault at 20ms stop job resume after 1ms\n", durable);
    assert_string_equal(parse(txt), "t.scn:9:15: a stop with unaligned checkpoints or an alignment timeout is not modelled "
                                    "(its savepoint would be aligned)");
}

static void test_scn_rescales_go_into_the_schedule_in_time_order_and_read_back(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "fault at 90ms rescale agg to 1\nfault at 30ms rescale agg to 4\n"
                                  "fault at 60ms rescale src to 1\n"), "ok");
    const pipe_cfg *c = &s_.cfg;
    assert_int_equal(c->rescales_count, 3);
    assert_int_equal(c->rescales[0].at_ns, 30 * SIM_NS_PER_MS);
    assert_int_equal(c->rescales[0].parallelism, 4);
    assert_int_equal(c->rescales[1].vertex, 0);
    assert_int_equal(c->rescales[2].parallelism, 1);
    assert_int_equal(pipe_parallelism_at(c, 1, 29 * SIM_NS_PER_MS), 2);
    assert_int_equal(pipe_parallelism_at(c, 1, 30 * SIM_NS_PER_MS), 4);
    assert_int_equal(pipe_parallelism_at(c, 1, 95 * SIM_NS_PER_MS), 1);
    assert_int_equal(pipe_parallelism_max(c, 1), 4);
    assert_int_equal(pipe_parallelism_min(c, 0), 1);
    char text[SCN_FAULT_TEXT_BYTES];
    assert_string_equal(scn_fault_text(&s_, &s_.faults[0], text, sizeof text), "fault at 90ms rescale agg to 1");
    char *w = written(&s_);
    assert_string_equal(parse(w), "ok");
    free(w);
    assert_int_equal(s_.cfg.rescales_count, 3);
    char err[256];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    assert_int_equal(pipe_job(p)->vertices[1].parallelism, 4);   /* expanded at the largest */
    assert_int_equal(pipe_config(p)->start_parallelism[1], 2);
    pipe_destroy(p);
}

/* What a rescale cannot go with is refused at its fault: forward edges
 * at the vertex (channel state it may: it is redistributed), a parallelism above the key groups, a
 * protocol point, a vertex that does not exist. */
static void test_scn_a_rescale_is_refused_at_its_fault_where_it_cannot_be(void **state) {
    (void)state;
    assert_string_equal(parse("vertex src source parallelism 2\nvertex m map parallelism 2\nvertex out sink\n"
                              "edge src -> m forward\nedge m -> out rebalance\nfault at 10ms rescale m to 3\n"),
                        "t.scn:6:15: m: a rescaled vertex takes no forward edge (src -> m forward needs equal parallelism)");
    assert_string_equal(parse(JOB "checkpoint mode unaligned interval 100ms\nfault at 10ms rescale agg to 3\n"), "ok");
    assert_string_equal(parse(JOB "checkpoint alignment-timeout 2ms interval 100ms\nfault at 10ms rescale agg to 3\n"), "ok");
    assert_string_equal(parse("vertex src source parallelism 2\nvertex agg keyed-aggregate parallelism 2 max-parallelism 4\n"
                              "vertex out sink\nedge src -> agg hash\nedge agg -> out rebalance\n"
                              "fault at 10ms rescale agg to 5\n"),
                        "t.scn:6:15: agg: rescale to 5 above its max-parallelism 4 (its key groups)");
    assert_string_equal(parse(JOB "fault when agg[0] triggers 2 rescale agg to 3\n"),
                        "t.scn:6:30: a rescale is at a time ('fault at 60ms rescale ...'), not at a protocol point");
    assert_string_equal(parse(JOB "fault at 10ms rescale nope to 3\n"), "t.scn:6:23: unknown vertex 'nope' (did you mean 'out'?)");
    assert_string_equal(parse(JOB "broker partitions 2\nfault at 10ms rescale src to 3\n"),
                        "t.scn:7:15: src: parallelism 3 above the 2 partitions (a source task would read nothing)");
    assert_string_equal(parse(JOB "state backend durable incremental full-every 64\nfault at 10ms rescale agg to 6\n"
                                  "fault at 20ms rescale agg to 1\n"),
                        "t.scn:8:15: agg: from parallelism 6 to 1 a task would read 7 chains of up to 65 files, more "
                        "than a deployment names: lower full-every");
}

/* scn_reparse: a scenario through the writer and the reader comes back
 * the same (into itself too), and a fault the reader refuses in a file
 * (a store fault with the memory backend) is refused with its reason. */
static void test_scn_reparse_reads_back_what_the_writer_says_and_refuses_what_a_file_could_not(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "checkpoint interval 10ms\nfault at 5ms crash task agg[1]\n"), "ok");
    static scn back;
    char err[SCN_ERR_BYTES];
    assert_true(scn_reparse(&s_, &back, err, sizeof err));
    assert_int_equal(back.faults_count, 1);
    assert_int_equal(back.faults[0].kind, SCN_CRASH_TASK);
    assert_int_equal(back.faults[0].at_ns, 5 * SIM_NS_PER_MS);
    s_.faults[s_.faults_count++] = (scn_fault){ .kind = SCN_FAIL_STORE, .at_ns = SIM_NS_PER_MS,
                                               .duration_ns = SIM_NS_PER_MS, .ratio = { 1, 2 } };
    assert_false(scn_reparse(&s_, &s_, err, sizeof err));
    assert_non_null(strstr(err, "needs 'state backend durable'"));
}

/* `schedule tie N pick K`: the N-th decision among simultaneous events
 * lets the K-th ready destination go first (cfg.ties); several lines
 * make one order, their decisions increasing, at most CHOICE_TIES_MAX;
 * the writer says them back; K is from 1 (0 is the default order's). */
static void test_scn_schedule_tie_lines_name_deviations_from_the_default_order(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "schedule tie 25 pick 2\n"), "ok");
    assert_int_equal(s_.cfg.ties_count, 1);
    assert_int_equal(s_.cfg.ties[0].at, 25);
    assert_int_equal(s_.cfg.ties[0].pick, 2);
    char *text = written(&s_);
    assert_non_null(strstr(text, "schedule tie 25 pick 2\n"));
    free(text);
    assert_string_equal(parse(JOB "schedule tie 3 pick 1\nschedule tie 25 pick 2\n"), "ok");
    assert_int_equal(s_.cfg.ties_count, 2);
    assert_int_equal(s_.cfg.ties[0].at, 3);
    assert_int_equal(s_.cfg.ties[1].at, 25);
    text = written(&s_);
    assert_non_null(strstr(text, "schedule tie 3 pick 1\nschedule tie 25 pick 2\n"));
    free(text);
    assert_string_equal(parse(JOB "schedule tie 25 pick 0\n"), "t.scn:6:22: 0 is out of range [1, 65534]");
    assert_string_equal(parse(JOB "schedule 25 pick 1\n"), "t.scn:6:10: unknown schedule '25' (expected one of: tie, pct)");
    assert_string_equal(parse(JOB "schedule tie 25 pick 1\nschedule tie 25 pick 2\n"),
                        "t.scn:7:14: decision 25 after decision 25: schedule tie lines name increasing decisions");
    char many[2048];
    int used = snprintf(many, sizeof many, "%s", JOB);
    for (uint32_t i = 1; i <= CHOICE_TIES_MAX + 1; i++) used += snprintf(many + used, sizeof many - (size_t)used,
                                                                          "schedule tie %u pick 1\n", i);
    char want[80];
    snprintf(want, sizeof want, "t.scn:%u:1: more than %u schedule tie lines", 6 + CHOICE_TIES_MAX, CHOICE_TIES_MAX);
    assert_string_equal(parse(many), want);
}

/* `schedule pct depth D [steps K]`: PCT orders simultaneous events
 * (cfg.pct_depth, pct_steps; steps 0 until a command counts them); the
 * writer says it back; one schedule line per file. */
static void test_scn_schedule_pct_names_its_depth_and_steps(void **state) {
    (void)state;
    assert_string_equal(parse(JOB "schedule pct depth 3\n"), "ok");
    assert_int_equal(s_.cfg.pct_depth, 3);
    assert_int_equal(s_.cfg.pct_steps, 0);
    char *text = written(&s_);
    assert_non_null(strstr(text, "schedule pct depth 3\n"));
    free(text);
    assert_string_equal(parse(JOB "schedule pct depth 2 steps 250\n"), "ok");
    assert_int_equal(s_.cfg.pct_depth, 2);
    assert_int_equal(s_.cfg.pct_steps, 250);
    text = written(&s_);
    assert_non_null(strstr(text, "schedule pct depth 2 steps 250\n"));
    free(text);
    assert_string_equal(parse(JOB "schedule pct depth 9\n"), "t.scn:6:20: 9 is out of range [1, 8]");
    assert_string_equal(parse(JOB "schedule pct depth 2 steps 0\n"), "t.scn:6:28: 0 is out of range [1, 1099511627776]");
    assert_string_equal(parse(JOB "schedule pct 3\n"), "t.scn:6:14: expected 'depth', not '3'");
    assert_string_equal(parse(JOB "schedule pct depth 2\nschedule tie 3 pick 1\n"),
                        "t.scn:7:1: a schedule line after schedule pct: one order of simultaneous events per file");
    assert_string_equal(parse(JOB "schedule tie 3 pick 1\nschedule pct depth 2\n"),
                        "t.scn:7:10: schedule pct after schedule tie: one order of simultaneous events per file");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scn_defaults_are_flinks),
        cmocka_unit_test(test_scn_reads_every_statement_with_units),
        cmocka_unit_test(test_scn_errors_name_file_line_column_and_suggest),
        cmocka_unit_test(test_scn_job_errors_name_the_statement_that_causes_them),
        cmocka_unit_test(test_scn_accepted_jobs_at_the_limits_are_accepted_by_pipe_create),
        cmocka_unit_test(test_scn_reads_state_modes_sinks_faults_and_expectations),
        cmocka_unit_test(test_scn_new_statements_report_mistakes_with_suggestions),
        cmocka_unit_test(test_scn_new_faults_resolve_on_a_created_pipe),
        cmocka_unit_test(test_scn_new_points_fire_when_reached),
        cmocka_unit_test(test_scn_random_faults_cover_the_new_kinds),
        cmocka_unit_test(test_scn_vary_draws_valid_settings_per_seed_and_keeps_the_faults),
        cmocka_unit_test(test_scn_vary_unaligned_draws_flinks_test_randomisation),
        cmocka_unit_test(test_scn_machines_slots_are_read_checked_and_written_back),
        cmocka_unit_test(test_scn_expect_backpressure_and_checkpointed_bytes_are_read_and_written_back),
        cmocka_unit_test(test_scn_expect_liveness_sets_the_bound_and_reports_mistakes),
        cmocka_unit_test(test_scn_write_round_trips_through_the_reader),
        cmocka_unit_test(test_scn_reads_topics_and_a_source_per_topic),
        cmocka_unit_test(test_scn_reads_windows_and_watermarks_and_names_their_mistakes),
        cmocka_unit_test(test_scn_topic_mistakes_name_their_statement),
        cmocka_unit_test(test_scn_optional_is_read_written_back_and_placed_in_errors),
        cmocka_unit_test(test_scn_fault_text_is_in_human_units_and_reads_back),
        cmocka_unit_test(test_scn_cut_link_cuts_only_the_named_channel),
        cmocka_unit_test(test_scn_delay_link_delays_only_the_named_channel),
        cmocka_unit_test(test_scn_lose_rpc_loses_only_on_the_named_task_link_to_the_coordinator),
        cmocka_unit_test(test_scn_crash_task_downs_only_the_named_task),
        cmocka_unit_test(test_scn_crash_machine_downs_only_that_machine_and_its_tasks),
        cmocka_unit_test(test_scn_partition_cuts_only_the_links_between_its_sides),
        cmocka_unit_test(test_scn_store_faults_act_on_the_store_device_only),
        cmocka_unit_test(test_scn_heartbeat_keys_are_read_alone_or_together_and_written_back_only_when_set),
        cmocka_unit_test(test_scn_heartbeat_timeout_not_beyond_interval_and_round_trip_is_refused_at_its_statement),
        cmocka_unit_test(test_scn_pauses_map_to_kernel_pauses_of_the_machine_the_coordinator_and_the_task),
        cmocka_unit_test(test_scn_a_pause_needs_a_duration_and_a_target_that_exists),
        cmocka_unit_test(test_scn_rpc_faults_of_a_kind_act_on_that_type_on_the_link_the_kind_travels),
        cmocka_unit_test(test_scn_an_unknown_rpc_kind_is_refused_with_the_kinds_listed),
        cmocka_unit_test(test_scn_ambiguous_store_maps_to_ambiguous_writes_on_the_store_and_needs_the_durable_backend),
        cmocka_unit_test(test_scn_write_round_trips_every_new_fault_to_the_same_kernel_fault),
        cmocka_unit_test(test_scn_expect_fenced_compares_the_dropped_messages_of_old_attempts),
        cmocka_unit_test(test_scn_random_profiles_keep_the_faults_earlier_generators_drew),
        cmocka_unit_test(test_scn_unfired_reports_a_time_fault_after_the_job_ended),
        cmocka_unit_test(test_scn_unfired_reports_a_slow_task_window_after_the_job_ended),
        cmocka_unit_test(test_scn_unfired_names_no_line_for_a_drawn_fault),
        cmocka_unit_test(test_scn_unfired_reports_a_point_never_reached),
        cmocka_unit_test(test_scn_unfired_reports_a_point_reached_too_late),
        cmocka_unit_test(test_scn_unfired_joins_messages_and_counts_past_a_full_buffer),
        cmocka_unit_test(test_scn_random_faults_are_optional),
        cmocka_unit_test(test_scn_every_shipped_scenario_fault_fires),
        cmocka_unit_test(test_scn_load_reports_missing_files),
        cmocka_unit_test(test_scn_expect_checkpoint_time_keeps_the_precision_written),
        cmocka_unit_test(test_scn_max_parallelism_is_read_written_back_and_bounds_the_parallelism),
        cmocka_unit_test(test_scn_rescales_go_into_the_schedule_in_time_order_and_read_back),
        cmocka_unit_test(test_scn_stops_and_cancels_go_into_the_schedule_and_read_back),
        cmocka_unit_test(test_scn_a_rescale_is_refused_at_its_fault_where_it_cannot_be),
        cmocka_unit_test(test_scn_parse_duration_reads_the_language_units_and_says_why_not),
        cmocka_unit_test(test_scn_reparse_reads_back_what_the_writer_says_and_refuses_what_a_file_could_not),
        cmocka_unit_test(test_scn_schedule_tie_lines_name_deviations_from_the_default_order),
        cmocka_unit_test(test_scn_schedule_pct_names_its_depth_and_steps),
    };
    return cmocka_run_group_tests_name("scn", tests, NULL, NULL);
}
