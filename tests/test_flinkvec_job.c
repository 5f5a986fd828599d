/* tests/test_flinkvec_job.c: absim's key groups (default max-parallelism,
 * KeyGroupRangeAssignment's ranges and operator indexes) and pipelined
 * regions (job_regions) held to vectors transcribed from Apache Flink's
 * own unit tests: each test's inputs and the outputs Flink's test
 * expects, never Flink's code. All paths are in apache/flink, under
 * flink-runtime/src/test/java/org/apache/flink/runtime/ (RT below), at
 * the versions the index holds (commit in brackets):
 *   RT/scheduler/SchedulerBaseComputeVertexParallelismTest.java [dca20fa2]
 *   RT/executiongraph/ExecutionJobVertexTest.java                [df679bff]
 *   RT/scheduler/DefaultVertexParallelismInfoTest.java           [1a0227f8]
 *   RT/checkpoint/CheckpointCoordinatorTest.java (Flink 1.x; the method
 *     is gone from the newest version indexed)
 *   RT/executiongraph/failover/SchedulingPipelinedRegionComputeUtilTest.java
 *     [bf63127a] (the same topologies as flip1/PipelinedRegionComputeUtilTest
 *     and flip1/RestartPipelinedRegionFailoverStrategyBuildingTest)
 *   RT/executiongraph/failover/LogicalPipelinedRegionComputeUtilTest.java
 *     [53367b08]
 *   RT/executiongraph/failover/PipelinedFailoverRegionBuildingTest.java
 *     [0ef7fdde] (the legacy failover strategy's, job graphs with parallelism)
 * absim's streaming jobs have pipelined edges only, forward (subtask i to
 * subtask i) or all-to-all (hash, rebalance, broadcast): Flink's POINTWISE
 * between equal parallelisms is forward here, ALL_TO_ALL is hash or
 * rebalance. Cases with blocking or approximate exchanges, vertices
 * without edges, or co-location have no absim form and are left out. */
#include "harness.h"

#include "../model/flow/job.h"
#include "../scenarios/scn.h"

#include <limits.h>

/* ------------------------------------------------------------------ */
/* Max-parallelism                                                     */
/* ------------------------------------------------------------------ */

/* src(1) -hash-> agg(parallelism, max-parallelism) -rebalance-> out(1):
 * the one vertex Flink's tests configure, keyed. NULL when valid, else
 * job_check's message, and where it lies. */
static const char *keyed_check(uint32_t parallelism, uint32_t max_parallelism, job_where *w) {
    static char buf[240];
    job j;
    job_init(&j);
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 1, 0);
    uint32_t a = job_add_vertex(&j, "agg", JOB_KEYED_AGG, parallelism, 0);
    uint32_t k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    j.vertices[a].max_parallelism = max_parallelism;
    job_add_edge(&j, s, a, JOB_HASH);
    job_add_edge(&j, a, k, JOB_REBALANCE);
    return job_check(&j, w, buf, sizeof buf);
}

/* The max-parallelism absim gives a vertex of that parallelism and
 * configured max-parallelism (0: not configured). */
static uint32_t max_of(uint32_t parallelism, uint32_t max_parallelism) {
    job_vertex v = { .parallelism = parallelism, .max_parallelism = max_parallelism };
    return job_max_parallelism(&v);
}

typedef struct max_case {
    uint32_t parallelism, configured, expected;
} max_case;

/* Flink's JobVertex.MAX_PARALLELISM_DEFAULT (-1) is absim's 0. */
#define UNSET 0u

/* SchedulerBaseComputeVertexParallelismTest#testMaxParallelismDefaulting
 * (RT/scheduler/SchedulerBaseComputeVertexParallelismTest.java), its six
 * parameter rows: parallelism, configured max, expected max. Its "can
 * rescale max" column is about changing the max-parallelism itself, which
 * absim never does, and is left out. absim's vertices stop at 256 tasks,
 * so the 32768 row is checked on the function alone. */
static void test_max_parallelism_defaults_and_configured_values_match_schedulerbase_rows(void **state) {
    (void)state;
    static const max_case rows[] = {
        { 1, UNSET, 128 },                      /* default minimum */
        { 171, UNSET, 256 },                    /* round up part 1 */
        { 172, UNSET, 512 },                    /* round up part 2 */
        { 32768, UNSET, 32768 },                /* round up limit */
        { 4, 32768, 32768 },                    /* configured takes precedence */
        { 4, 7, 7 },                            /* configured, not a power of two */
    };
    for (uint32_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const max_case *r = &rows[i];
        assert_int_equal(max_of(r->parallelism, r->configured), r->expected);
        if (r->configured == UNSET) assert_int_equal(job_default_max_parallelism(r->parallelism), r->expected);
        if (r->parallelism <= JOB_PARALLELISM_MAX) assert_null(keyed_check(r->parallelism, r->configured, NULL));
    }
}

/* ExecutionJobVertexTest#testMaxParallelismDefaulting
 * (RT/executiongraph/ExecutionJobVertexTest.java): the values it expects. */
static void test_max_parallelism_values_match_executionjobvertex_defaulting(void **state) {
    (void)state;
    static const max_case rows[] = {
        { 1, UNSET, 128 },                      /* default minimum */
        { 171, UNSET, 256 },                    /* round up part 1 */
        { 172, UNSET, 512 },                    /* round up part 2 */
        { 1u << 15, UNSET, 1u << 15 },          /* round up limit */
        { 4, 1u << 15, 1u << 15 },              /* configured trumps computed default */
        { 4, 7, 7 },                            /* setMaxParallelism(7) over the default */
    };
    for (uint32_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_int_equal(max_of(rows[i].parallelism, rows[i].configured), rows[i].expected);
    assert_null(keyed_check(4, 1u << 15, NULL));
    assert_null(keyed_check(4, 7, NULL));
}

/* "vertex src source parallelism 1\nvertex agg keyed-aggregate <opts>\n..."
 * read by the scenario reader: "ok" or its message. */
static const char *scenario_with_agg(const char *opts) {
    static scn s;
    static char err[SCN_ERR_BYTES], text[400];
    snprintf(text, sizeof text, "vertex src source parallelism 1\nvertex agg keyed-aggregate %s\nvertex out sink\n"
             "edge src -> agg hash\nedge agg -> out rebalance\n", opts);
    return scn_parse(&s, "t.scn", text, strlen(text), err, sizeof err) ? "ok" : err;
}

/* ExecutionJobVertexTest#testMaxParallelismDefaulting
 * (RT/executiongraph/ExecutionJobVertexTest.java): what it refuses. A
 * parallelism of 2^15 + 1 (absim refuses it earlier, at its own limit of
 * 256 tasks), a parallelism of 172 over a configured 4, a configured
 * 2^15 + 1, and a configured 0 (absim's job graph reads 0 as "not
 * configured", as Flink reads -1, so the 0 a user writes is refused where
 * it is written: the scenario reader). */
static void test_max_parallelism_refusals_match_executionjobvertex_defaulting(void **state) {
    (void)state;
    job_where w;
    assert_non_null(keyed_check((1u << 15) + 1, UNSET, &w));
    assert_int_equal(w.field, JOB_FIELD_PARALLELISM);
    assert_non_null(keyed_check(172, 4, &w));          /* "parallelism must be smaller than the max parallelism" */
    assert_int_equal(w.field, JOB_FIELD_MAX_PARALLELISM);
    assert_int_equal(w.index, 1);
    assert_non_null(keyed_check(4, (1u << 15) + 1, &w));   /* upper bound configured */
    assert_int_equal(w.field, JOB_FIELD_MAX_PARALLELISM);
    assert_string_equal(scenario_with_agg("parallelism 4 max-parallelism 4"), "ok");
    assert_non_null(strstr(scenario_with_agg("parallelism 4 max-parallelism 0"), "out of range [1, 32768]"));
}

/* DefaultVertexParallelismInfoTest#testSetParallelism and #setMaxValid
 * (RT/scheduler/DefaultVertexParallelismInfoTest.java): with 10 key
 * groups a parallelism of 11 is refused and one of 5 taken; a configured
 * max-parallelism of 40 over parallelism 1 is 40. */
static void test_parallelism_above_max_parallelism_is_refused_as_in_default_vertex_parallelism_info(void **state) {
    (void)state;
    job_where w;
    assert_non_null(keyed_check(11, 10, &w));
    assert_int_equal(w.field, JOB_FIELD_MAX_PARALLELISM);
    assert_null(keyed_check(5, 10, NULL));
    assert_int_equal(max_of(1, 40), 40);
    assert_null(keyed_check(1, 40, NULL));
}

/* ------------------------------------------------------------------ */
/* Key-group ranges                                                    */
/* ------------------------------------------------------------------ */

/* java.util.Random as its Javadoc specifies it (a 48-bit LCG), to draw
 * the same (max-parallelism, parallelism) pairs as Flink's test. */
#define JR_MULT 0x5DEECE66Dull
#define JR_MASK ((1ull << 48) - 1)

typedef struct java_random {
    uint64_t seed;
} java_random;

static java_random jr_new(int64_t seed) { return (java_random){ .seed = ((uint64_t)seed ^ JR_MULT) & JR_MASK }; }

static int32_t jr_next(java_random *r, int bits) {
    r->seed = (r->seed * JR_MULT + 0xBu) & JR_MASK;
    return (int32_t)(uint32_t)(r->seed >> (48 - bits));
}

/* Random.nextInt(bound): uniform on [0, bound). */
static int32_t jr_next_int(java_random *r, int32_t bound) {
    int32_t bits = jr_next(r, 31), m = bound - 1;
    if ((bound & m) == 0) return (int32_t)(((int64_t)bound * bits) >> 31);
    int32_t val = bits % bound;
    while ((int64_t)bits - val + m > INT32_MAX) {     /* Java's int overflow: draw again */
        bits = jr_next(r, 31);
        val = bits % bound;
    }
    return val;
}

/* Flink's check: every key group lies in the range of the subtask
 * computeOperatorIndexForKeyGroup gives it. */
static void assert_each_group_in_its_subtasks_range(uint32_t max_parallelism, uint32_t parallelism) {
    for (uint32_t g = 0; g < max_parallelism; g++) {
        uint32_t first, end, s = job_group_subtask(g, max_parallelism, parallelism);
        job_group_range(max_parallelism, parallelism, s, &first, &end);
        if (g < first || g >= end)
            fail_msg("max %u, parallelism %u: key group %u not in subtask %u's [%u, %u)", max_parallelism, parallelism,
                     g, s, first, end);
    }
}

/* CheckpointCoordinatorTest#testCreateKeyGroupPartitions
 * (RT/checkpoint/CheckpointCoordinatorTest.java): its six fixed
 * (max-parallelism, parallelism) pairs, then the 1000 pairs of
 * java.util.Random(1234) it draws; createKeyGroupPartitions is the list of
 * computeKeyGroupRangeForOperatorIndex over the subtasks. */
static void test_every_key_group_lies_in_the_range_of_its_operator_index(void **state) {
    (void)state;
    java_random probe = jr_new(42);                   /* the generator itself: new Random(42).nextInt() */
    assert_int_equal(jr_next(&probe, 32), -1170105035);
    static const uint32_t fixed[][2] = { { 1, 1 }, { 13, 1 }, { 13, 2 }, { 32767, 1 }, { 32767, 13 }, { 32767, 32767 } };
    for (uint32_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) assert_each_group_in_its_subtasks_range(fixed[i][0], fixed[i][1]);
    java_random r = jr_new(1234);
    for (int k = 0; k < 1000; k++) {
        int32_t max_parallelism = 1 + jr_next_int(&r, SHRT_MAX - 1);
        int32_t parallelism = 1 + jr_next_int(&r, max_parallelism);
        assert_each_group_in_its_subtasks_range((uint32_t)max_parallelism, (uint32_t)parallelism);
    }
}

/* ------------------------------------------------------------------ */
/* Pipelined regions                                                   */
/* ------------------------------------------------------------------ */

static uint32_t region_[JOB_TASKS_MAX];

/* Expands j (valid) and computes its regions into region_; the count. */
static uint32_t regions_of(job *j, arena *mem) {
    char buf[240];
    const char *e = job_check(j, NULL, buf, sizeof buf);
    if (e != NULL) fail_msg("job_check: %s", e);
    assert_true(arena_create(mem, job_expand_bytes(j)));
    job_expand(j, 1, mem);
    return job_regions(j, region_);
}

/* The region of subtask s of vertex v. */
static uint32_t region(const job *j, uint32_t v, uint32_t s) { return region_[j->vertex_first_task[v] + s]; }

/* SchedulingPipelinedRegionComputeUtilTest#testEmbarrassinglyParallelCase
 * (RT/executiongraph/failover/SchedulingPipelinedRegionComputeUtilTest.java):
 * a1 -> b1, a2 -> b2, a3 -> b3 pipelined: a_i and b_i share a region,
 * a1, a2, a3 are in three. */
static void test_three_pointwise_pairs_are_three_regions(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t a = job_add_vertex(&j, "a", JOB_SOURCE, 3, 0);
    uint32_t b = job_add_vertex(&j, "b", JOB_SINK, 3, 0);
    job_add_edge(&j, a, b, JOB_FORWARD);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 3);
    for (uint32_t i = 0; i < 3; i++) assert_int_equal(region(&j, a, i), region(&j, b, i));
    assert_int_not_equal(region(&j, a, 0), region(&j, a, 1));
    assert_int_not_equal(region(&j, a, 0), region(&j, a, 2));
    assert_int_not_equal(region(&j, a, 1), region(&j, a, 2));
    arena_destroy(&mem);
}

/* SchedulingPipelinedRegionComputeUtilTest#testOneComponentViaTwoExchanges
 * (RT/executiongraph/failover/SchedulingPipelinedRegionComputeUtilTest.java):
 * a(2) -all-to-all-> b(2) -all-to-all-> c(2), pipelined: one region. */
static void test_two_all_to_all_exchanges_make_one_region(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t a = job_add_vertex(&j, "a", JOB_SOURCE, 2, 0);
    uint32_t b = job_add_vertex(&j, "b", JOB_KEYED_AGG, 2, 0);
    uint32_t c = job_add_vertex(&j, "c", JOB_SINK, 2, 0);
    job_add_edge(&j, a, b, JOB_HASH);
    job_add_edge(&j, b, c, JOB_REBALANCE);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 1);
    for (uint32_t t = 0; t < j.tasks_count; t++) assert_int_equal(region_[t], 0);
    arena_destroy(&mem);
}

/* Seven single tasks: v1, v2 joined into v5, v3, v4 into v6, v5 and v6
 * into v7 (the sink); ids[i] is v(i+1). */
static void add_cascade_of_joins(job *j, uint32_t leaves, uint32_t mid, uint32_t last, job_part part, uint32_t *ids) {
    static const char *const names[] = { "v1", "v2", "v3", "v4" };
    for (uint32_t i = 0; i < 4; i++) ids[i] = job_add_vertex(j, names[i], JOB_SOURCE, leaves, 0);
    ids[4] = job_add_vertex(j, "v5", JOB_KEYED_JOIN, mid, 0);
    ids[5] = job_add_vertex(j, "v6", JOB_KEYED_JOIN, mid, 0);
    ids[6] = job_add_vertex(j, "v7", JOB_SINK, last, 0);
    for (uint32_t i = 0; i < 4; i++) job_add_edge(j, ids[i], ids[4 + i / 2], part);
    job_add_edge(j, ids[4], ids[6], part);
    job_add_edge(j, ids[5], ids[6], part);
}

/* SchedulingPipelinedRegionComputeUtilTest#testOneComponentViaCascadeOfJoins
 * (RT/executiongraph/failover/SchedulingPipelinedRegionComputeUtilTest.java):
 * v1, v2 -> v5; v3, v4 -> v6; v5, v6 -> v7, every vertex one task, all
 * pipelined: the seven are one region. */
static void test_cascade_of_pipelined_joins_is_one_region(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t v[7];
    add_cascade_of_joins(&j, 1, 1, 1, JOB_HASH, v);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 1);
    assert_int_equal(j.tasks_count, 7);
    arena_destroy(&mem);
}

/* v7 feeding v5 and v6, v5 feeding v1 and v2, v6 feeding v3 and v4 (the
 * fan-out tree, named as the legacy test names it); ids[i] is v(i+1). */
static void add_fan_out_tree(job *j, uint32_t root, uint32_t mid, uint32_t leaves, job_part part, uint32_t *ids) {
    static const char *const names[] = { "v1", "v2", "v3", "v4" };
    ids[6] = job_add_vertex(j, "v7", JOB_SOURCE, root, 0);
    ids[4] = job_add_vertex(j, "v5", JOB_MAP, mid, 0);
    ids[5] = job_add_vertex(j, "v6", JOB_MAP, mid, 0);
    for (uint32_t i = 0; i < 4; i++) ids[i] = job_add_vertex(j, names[i], JOB_SINK, leaves, 0);
    job_add_edge(j, ids[6], ids[4], part);
    job_add_edge(j, ids[6], ids[5], part);
    for (uint32_t i = 0; i < 4; i++) job_add_edge(j, ids[4 + i / 2], ids[i], part);
}

/* SchedulingPipelinedRegionComputeUtilTest#testOneComponentInstanceFromOneSource
 * (RT/executiongraph/failover/SchedulingPipelinedRegionComputeUtilTest.java):
 * v1 -> v2, v3; v2 -> v4, v5; v3 -> v6, v7, single tasks, pipelined:
 * one region (here the root is called v7, as in the legacy test below). */
static void test_pipelined_fan_out_from_one_source_is_one_region(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t v[7];
    add_fan_out_tree(&j, 1, 1, 1, JOB_FORWARD, v);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 1);
    assert_int_equal(j.tasks_count, 7);
    arena_destroy(&mem);
}

/* LogicalPipelinedRegionComputeUtilTest#testVariousResultPartitionTypesBetweenVertices
 * (RT/executiongraph/failover/LogicalPipelinedRegionComputeUtilTest.java),
 * its PIPELINED, PIPELINED case: v1 -ALL_TO_ALL-> v2 -POINTWISE-> v3 is
 * one region of three vertices. Logical regions are sets of job vertices;
 * at parallelism 1 each vertex is one task, so absim's partition is the
 * same. (Its other cases have blocking edges.) */
static void test_all_to_all_then_pointwise_pipelined_is_one_region_of_three(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t v1 = job_add_vertex(&j, "v1", JOB_SOURCE, 1, 0);
    uint32_t v2 = job_add_vertex(&j, "v2", JOB_KEYED_AGG, 1, 0);
    uint32_t v3 = job_add_vertex(&j, "v3", JOB_SINK, 1, 0);
    job_add_edge(&j, v1, v2, JOB_HASH);
    job_add_edge(&j, v2, v3, JOB_FORWARD);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 1);
    assert_int_equal(j.tasks_count, 3);
    arena_destroy(&mem);
}

/* PipelinedFailoverRegionBuildingTest#testEmbarrassinglyParallelCase
 * (RT/executiongraph/failover/PipelinedFailoverRegionBuildingTest.java):
 * three vertices joined POINTWISE, pipelined: subtask i of all three share
 * a region, and no i > 0 shares subtask 0's. Flink runs it at parallelism
 * 10000; absim's vertices stop at 256, so it runs at 256. */
static void test_pointwise_chain_is_one_region_per_subtask(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t p = JOB_PARALLELISM_MAX;
    uint32_t v1 = job_add_vertex(&j, "vertex1", JOB_SOURCE, p, 0);
    uint32_t v2 = job_add_vertex(&j, "vertex2", JOB_MAP, p, 0);
    uint32_t v3 = job_add_vertex(&j, "vertex3", JOB_SINK, p, 0);
    job_add_edge(&j, v1, v2, JOB_FORWARD);
    job_add_edge(&j, v2, v3, JOB_FORWARD);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), p);
    assert_int_equal(region(&j, v1, 0), region(&j, v2, 0));
    assert_int_equal(region(&j, v2, 0), region(&j, v3, 0));
    for (uint32_t i = 1; i < p; i++) {
        assert_int_equal(region(&j, v1, i), region(&j, v2, i));
        assert_int_equal(region(&j, v2, i), region(&j, v3, i));
        assert_int_not_equal(region(&j, v1, 0), region(&j, v1, i));
    }
    arena_destroy(&mem);
}

/* PipelinedFailoverRegionBuildingTest#testOneComponentViaTwoExchanges
 * (RT/executiongraph/failover/PipelinedFailoverRegionBuildingTest.java):
 * vertex1(3) -ALL_TO_ALL-> vertex2(5) -ALL_TO_ALL-> vertex3(2), pipelined:
 * vertex1[1], vertex2[4] and vertex3[0] share a region. */
static void test_all_to_all_exchanges_of_unequal_parallelism_make_one_region(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t v1 = job_add_vertex(&j, "vertex1", JOB_SOURCE, 3, 0);
    uint32_t v2 = job_add_vertex(&j, "vertex2", JOB_KEYED_AGG, 5, 0);
    uint32_t v3 = job_add_vertex(&j, "vertex3", JOB_SINK, 2, 0);
    job_add_edge(&j, v1, v2, JOB_HASH);
    job_add_edge(&j, v2, v3, JOB_REBALANCE);
    arena mem;
    regions_of(&j, &mem);
    assert_int_equal(region(&j, v1, 1), region(&j, v2, 4));
    assert_int_equal(region(&j, v2, 4), region(&j, v3, 0));
    arena_destroy(&mem);
}

/* PipelinedFailoverRegionBuildingTest#testOneComponentViaCascadeOfJoins
 * (RT/executiongraph/failover/PipelinedFailoverRegionBuildingTest.java):
 * vertex1..4 (8 each) ALL_TO_ALL into vertex5 and vertex6 (4 each), those
 * into vertex7 (2), pipelined: every execution vertex in one region. */
static void test_parallel_cascade_of_joins_is_one_region(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t v[7];
    add_cascade_of_joins(&j, 8, 4, 2, JOB_HASH, v);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 1);
    assert_int_equal(j.tasks_count, 4 * 8 + 2 * 4 + 2);
    arena_destroy(&mem);
}

/* PipelinedFailoverRegionBuildingTest#testOneComponentInstanceFromOneSource
 * (RT/executiongraph/failover/PipelinedFailoverRegionBuildingTest.java):
 * vertex7(2) ALL_TO_ALL into vertex5 and vertex6 (4 each), vertex5 into
 * vertex1 and vertex2, vertex6 into vertex3 and vertex4 (8 each),
 * pipelined: every execution vertex in one region. */
static void test_parallel_fan_out_from_one_source_is_one_region(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t v[7];
    add_fan_out_tree(&j, 2, 4, 8, JOB_REBALANCE, v);
    arena mem;
    assert_int_equal(regions_of(&j, &mem), 1);
    assert_int_equal(j.tasks_count, 2 + 2 * 4 + 4 * 8);
    arena_destroy(&mem);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_parallelism_defaults_and_configured_values_match_schedulerbase_rows),
        cmocka_unit_test(test_max_parallelism_values_match_executionjobvertex_defaulting),
        cmocka_unit_test(test_max_parallelism_refusals_match_executionjobvertex_defaulting),
        cmocka_unit_test(test_parallelism_above_max_parallelism_is_refused_as_in_default_vertex_parallelism_info),
        cmocka_unit_test(test_every_key_group_lies_in_the_range_of_its_operator_index),
        cmocka_unit_test(test_three_pointwise_pairs_are_three_regions),
        cmocka_unit_test(test_two_all_to_all_exchanges_make_one_region),
        cmocka_unit_test(test_cascade_of_pipelined_joins_is_one_region),
        cmocka_unit_test(test_pipelined_fan_out_from_one_source_is_one_region),
        cmocka_unit_test(test_all_to_all_then_pointwise_pipelined_is_one_region_of_three),
        cmocka_unit_test(test_pointwise_chain_is_one_region_per_subtask),
        cmocka_unit_test(test_all_to_all_exchanges_of_unequal_parallelism_make_one_region),
        cmocka_unit_test(test_parallel_cascade_of_joins_is_one_region),
        cmocka_unit_test(test_parallel_fan_out_from_one_source_is_one_region),
    };
    return cmocka_run_group_tests_name("flinkvec_job", tests, NULL, NULL);
}
