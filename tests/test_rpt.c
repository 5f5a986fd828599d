/* tests/test_rpt.c: the protocol trace and the checkpoint picture
 * (reports/rpt.c) say what the run did. */
#include "harness.h"

#include <stdlib.h>

#include "../reports/rpt.h"

static pipe_cfg small_job(void) {
    pipe_cfg c = pipe_cfg_default(3);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 1 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.broker.partitions = 4;
    c.broker.records_per_partition = 5000;
    c.broker.keys = 100;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    return c;
}

typedef struct counting {
    rpt_recorder rec;
    uint64_t     steps, triggers, completes;
} counting;

static void count_and_record(void *ctx, const pipe_event *e) {
    counting *k = ctx;
    k->steps += e->kind != PIPE_EV_CONSUME;          /* one per buffer: the trace leaves those out */
    k->triggers += e->kind == PIPE_EV_TRIGGER;
    k->completes += e->kind == PIPE_EV_CKPT_COMPLETE;
    rpt_observe(&k->rec, e);
}

static uint64_t count_of(const char *text, const char *needle) {
    uint64_t n = 0;
    for (const char *q = strstr(text, needle); q != NULL; q = strstr(q + 1, needle)) n++;
    return n;
}

static void test_trace_has_one_json_line_per_protocol_step_and_the_picture_one_cluster_per_checkpoint(void **state) {
    (void)state;
    pipe_cfg c = small_job();
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    assert_non_null(p);
    char *trace_text = NULL, *dot_text = NULL;
    size_t trace_len = 0, dot_len = 0;
    FILE *trace = open_memstream(&trace_text, &trace_len);
    counting k = { 0 };
    assert_true(rpt_init(&k.rec, p, trace, true));
    pipe_observe(p, count_and_record, &k);
    pipe_run(p);
    fclose(trace);
    FILE *dot = open_memstream(&dot_text, &dot_len);
    rpt_write_dot(&k.rec, dot, "test");
    fclose(dot);
    const pipe_stats *st = pipe_get_stats(p);
    uint32_t tasks = pipe_job(p)->tasks_count;
    assert_true(st->completed >= 3 && st->triggered <= RPT_CKPTS_MAX);
    /* The trace: a line per step (data buffers consumed aside), each a JSON object; triggers and
     * completions as many as the run had. */
    assert_int_equal(count_of(trace_text, "\n"), k.steps);
    assert_int_equal(count_of(trace_text, "{\"t_ns\":"), k.steps);
    assert_int_equal(count_of(trace_text, "\"step\":\"trigger\""), k.triggers);
    assert_int_equal(count_of(trace_text, "\"step\":\"checkpoint-complete\""), st->completed);
    /* The picture: a cluster per triggered checkpoint; in each completed
     * one every task triggered and acknowledged. */
    assert_int_equal(count_of(dot_text, "subgraph cluster_c"), st->triggered);
    assert_int_equal(count_of(dot_text, "label=\"ack\""), st->completed * tasks);
    assert_int_equal(count_of(dot_text, "no trigger"), 0);
    assert_non_null(strstr(dot_text, "checkpoint 1: completed after"));
    assert_int_equal(k.completes, st->completed);
    /* Graphviz (a test dependency, tests/deps.sh) reads it. */
    char path[] = "/tmp/absim-test-rpt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(dot_text, f);
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "dot -Tsvg %s -o /dev/null", path);
    assert_int_equal(system(cmd), 0);
    remove(path);
    rpt_free(&k.rec);
    free(trace_text);
    free(dot_text);
    pipe_destroy(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_has_one_json_line_per_protocol_step_and_the_picture_one_cluster_per_checkpoint),
    };
    return cmocka_run_group_tests_name("rpt", tests, NULL, NULL);
}
