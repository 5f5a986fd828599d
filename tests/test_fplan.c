/* tests/test_fplan.c: both JSON shapes of a Flink plan (flink/fplan.h),
 * read from real Flink output in tests/flink/plans (tests/flink/SOURCES.md
 * says where each came from), and the chaining rule of Flink's
 * StreamingJobGraphGenerator.isChainable (one input, FORWARD, equal
 * parallelism, chaining enabled). */
#include "harness.h"

#include "../flink/fplan.h"

static void read_ok(const char *path, fplan *p) {
    char err[1024];
    bool ok = fplan_read(path, p, err, sizeof err);
    if (!ok) fprintf(stderr, "%s\n", err);
    assert_true(ok);
}

static const char *read_err(const char *name, const char *text, char *err, size_t n) {
    char path[256];
    fplan p;
    tmp_file_named(name, text, path);
    assert_false(fplan_read(path, &p, err, n));
    tmp_file_drop(path);
    return err;
}

/* Flink 1.7.2's SocketWindowWordCount: Source -> Flat Map -> Map chain
 * (FORWARD, parallelism 1), the window behind a HASH edge starts the
 * second vertex and the sink chains to it, as the job ran. */
static void test_streamgraph_plan_chains_as_flink_chains(void **state) {
    (void)state;
    fplan p;
    read_ok("tests/flink/plans/streamgraph-1.7.2-socketwindowwordcount-opensourceteams.json", &p);
    assert_int_equal(p.shape, FPLAN_STREAM);
    assert_int_equal(p.count, 5);
    assert_string_equal(p.nodes[0].name, "Source: Socket Stream");
    assert_string_equal(p.nodes[4].name, "Sink: Print to Std. Out");
    assert_int_equal(p.nodes[3].in[0].ship, FSHIP_HASH);
    fplan_chain(&p, true);
    assert_int_equal(p.chains, 2);
    assert_int_equal(p.nodes[1].chain, 0);
    assert_int_equal(p.nodes[2].chain, 0);
    assert_int_equal(p.nodes[3].chain, 1);
    assert_int_equal(p.nodes[4].chain, 1);
    fplan_chain(&p, false);                           /* pipeline.operator-chaining: false */
    assert_int_equal(p.chains, 5);
    fplan_free(&p);
}

/* GET /jobs/:jobid of Flink 1.15: the plan lists the sink's vertex first;
 * read in topological order, its 1.15+ description split into its chained
 * operators, the vertices' maxParallelism taken from `vertices`. */
static void test_jobgraph_plan_is_sorted_split_and_takes_max_parallelism(void **state) {
    (void)state;
    fplan p;
    read_ok("tests/flink/plans/jobdetails-1.15-statemachine-k8sop.json", &p);
    assert_int_equal(p.shape, FPLAN_JOB);
    assert_int_equal(p.count, 2);
    assert_string_equal(p.nodes[0].id, "bc764cd8ddf7a0cff126f51c16239658");
    assert_int_equal(p.nodes[1].in[0].from, 0);
    assert_int_equal(p.nodes[1].op_count, 2);
    assert_string_equal(p.nodes[1].ops[0], "Flat Map");
    assert_string_equal(p.nodes[1].ops[1], "Sink: Print to Std. Out");
    assert_int_equal(p.nodes[1].max_parallelism, 128);
    assert_string_equal(p.job_type, "STREAMING");
    fplan_chain(&p, true);
    assert_int_equal(p.chains, 2);
    fplan_free(&p);
}

/* The {"plan": ...} wrapper of GET /jobs/:jobid/plan, and a tree of three
 * chained operators ("+- " lines joined by <br/>). */
static void test_wrapped_plan_and_operator_tree(void **state) {
    (void)state;
    fplan p;
    read_ok("tests/flink/plans/jobgraph-1.15plus-streampark-archive-d933fa6c-plan.json", &p);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.nodes[0].op_count, 3);
    assert_string_equal(p.nodes[0].ops[0], "Source: Socket Stream");
    assert_string_equal(p.nodes[0].ops[1], "Map");
    assert_string_equal(p.nodes[0].ops[2], "Sink: Print to Std. Out");
    fplan_free(&p);
}

/* Flink 1.9's REST plan escapes descriptions (" -&gt; ") and the DataSet
 * optimizer names its strategies in words ("Hash Partition on [0]"). */
static void test_escaped_descriptions_and_dataset_strategies(void **state) {
    (void)state;
    fplan p;
    read_ok("tests/flink/plans/jobdetails-1.9.1-dataset-wordcount-optimizer-soojae.json", &p);
    bool hash = false, arrow_split = false;
    for (uint32_t i = 0; i < p.count; i++) {
        for (uint32_t k = 0; k < p.nodes[i].in_count; k++) hash = hash || p.nodes[i].in[k].ship == FSHIP_HASH;
        arrow_split = arrow_split || p.nodes[i].op_count > 1;
        assert_null(strstr(p.nodes[i].name, "&gt;"));
    }
    assert_true(hash);
    assert_true(arrow_split);
    fplan_free(&p);
}

/* Unreadable plans: file:line:col for JSON that does not parse (a plan
 * cut off in Flink's own 1.15 docs), a JSON path for the rest. */
static void test_bad_plans_name_the_line_or_the_json_path(void **state) {
    (void)state;
    char err[1024];
    fplan p;
    assert_false(fplan_read("tests/flink/plans/streamgraph-1.15-docs-explain-union-TRUNCATED-invalid.json", &p, err,
                            sizeof err));
    assert_non_null(strstr(err, "TRUNCATED-invalid.json:26:1: JSON: "));
    assert_non_null(strstr(read_err("p.json", "{\"nodes\":[{\"id\":1,\"parallelism\":0}]}", err, sizeof err),
                           "p.json: $.nodes[0].parallelism: not an integer from 1 to 32768"));
    assert_non_null(strstr(read_err("p.json", "{\"jobs\":[]}", err, sizeof err), "p.json: $.nodes: missing"));
    assert_non_null(strstr(read_err("p.json", "{\"nodes\":[{\"id\":1,\"parallelism\":1,\"predecessors\":[{\"id\":9}]}]}",
                                    err, sizeof err), "input 0 names id 9, which no node has"));
    assert_non_null(strstr(read_err("p.json", "{\"nodes\":[{\"id\":1,\"parallelism\":1,\"predecessors\":[{\"id\":2}]},"
                                    "{\"id\":2,\"parallelism\":1,\"predecessors\":[{\"id\":1}]}]}", err, sizeof err),
                           "a cycle"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_streamgraph_plan_chains_as_flink_chains),
        cmocka_unit_test(test_jobgraph_plan_is_sorted_split_and_takes_max_parallelism),
        cmocka_unit_test(test_wrapped_plan_and_operator_tree),
        cmocka_unit_test(test_escaped_descriptions_and_dataset_strategies),
        cmocka_unit_test(test_bad_plans_name_the_line_or_the_json_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
