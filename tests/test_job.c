/* tests/test_job.c: job graphs: validation messages, expansion into tasks
 * and channels, and placement. */
#include "harness.h"

#include "../model/job.h"

static const char *check(const job *j) {
    static char buf[200];
    const char *e = job_check(j, buf, sizeof buf);
    return e == NULL ? "ok" : e;
}

static void test_job_check_names_the_first_problem(void **state) {
    (void)state;
    job j;
    job_init(&j);
    assert_string_equal(check(&j), "the job has no vertices");
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 2, 0);
    assert_string_equal(check(&j), "src: its output goes nowhere (add an edge to a sink)");
    uint32_t k = job_add_vertex(&j, "out", JOB_SINK, 3, 0);
    j.vertices[s].kind = JOB_MAP;                 /* no source at all: the map lacks input */
    assert_string_equal(check(&j), "src: a map needs an input");
    j.vertices[s].kind = JOB_SOURCE;
    job_add_edge(&j, s, k, JOB_FORWARD);
    assert_string_equal(check(&j), "src -> out: forward needs equal parallelism (2 and 3)");
    j.edges[0].part = JOB_HASH;
    assert_string_equal(check(&j), "ok");
    j.vertices[k].parallelism = 0;
    assert_string_equal(check(&j), "out: parallelism 0 out of range [1, 64]");
    j.vertices[k].parallelism = 3;
    j.vertices[s].cost_ns = 2 * SIM_NS_PER_S;
    assert_string_equal(check(&j), "src: a record costing more than 1 s is not a stream");
    j.vertices[s].cost_ns = 0;

    job_init(&j);                                 /* a map with two inputs, a join with one */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 1, 0);
    uint32_t a = job_add_vertex(&j, "a", JOB_MAP, 1, 0);
    uint32_t m = job_add_vertex(&j, "m", JOB_MAP, 1, 0);
    k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    job_add_edge(&j, s, a, JOB_FORWARD);
    job_add_edge(&j, s, m, JOB_FORWARD);
    job_add_edge(&j, a, m, JOB_FORWARD);
    job_add_edge(&j, m, k, JOB_FORWARD);
    assert_string_equal(check(&j), "m: a map takes one input (use a union)");
    j.vertices[m].kind = JOB_KEYED_JOIN;
    assert_string_equal(check(&j), "ok");
    j.vertices[m].kind = JOB_UNION;
    assert_string_equal(check(&j), "ok");
    j.edges[1].from = m;                          /* m -> m: a cycle */
    j.edges[1].to = m;
    assert_string_equal(check(&j), "m -> m: edges go from earlier to later vertices (no cycles)");

    job_init(&j);                                 /* limits: channels of one task, of the job */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 1, 0);
    for (int i = 0; i < 5; i++) {
        char name[8];
        snprintf(name, sizeof name, "out%d", i);
        job_add_edge(&j, s, job_add_vertex(&j, name, JOB_SINK, 64, 0), JOB_HASH);
        assert_string_equal(check(&j), i < 4 ? "ok" : "src: a task would have more than 256 input or output channels");
    }
    job_init(&j);
    s = job_add_vertex(&j, "src", JOB_SOURCE, 64, 0);
    for (int i = 0; i < 3; i++) job_add_edge(&j, s, job_add_vertex(&j, "out", JOB_SINK, 64, 0), JOB_HASH);
    assert_string_equal(check(&j), "12288 channels, more than the limit of 8192");
}

static void test_job_expand_numbers_tasks_channels_and_gate_inputs_in_graph_order(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 2, 0);
    uint32_t f = job_add_vertex(&j, "fil", JOB_FILTER, 2, 0);
    uint32_t u = job_add_vertex(&j, "uni", JOB_KEYED_JOIN, 3, 0);
    uint32_t k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    job_add_edge(&j, s, f, JOB_FORWARD);          /* 2 channels */
    job_add_edge(&j, f, u, JOB_HASH);             /* 6, input 0 */
    job_add_edge(&j, s, u, JOB_BROADCAST);        /* 6, input 1 */
    job_add_edge(&j, u, k, JOB_REBALANCE);        /* 3 */
    assert_string_equal(check(&j), "ok");
    job_expand(&j, 3);
    assert_int_equal(j.tasks_count, 8);
    assert_int_equal(j.chans_count, 17);
    assert_int_equal(j.tasks[4].vertex, u);       /* uni[0] */
    assert_int_equal(j.tasks[4].subtask, 0);
    assert_int_equal(j.tasks[5].machine, 2);      /* round robin over 3 machines */
    assert_int_equal(j.tasks[6].machine, 0);
    /* uni[1] (task 5): inputs fil[0], fil[1] (edge 1), then src[0], src[1] (edge 2). */
    const job_task *t = &j.tasks[5];
    assert_int_equal(t->in_count, 4);
    uint32_t producers[4], inputs[4];
    for (uint32_t i = 0; i < 4; i++) {
        const job_chan *c = &j.chans[j.in_chan[t->in_first + i]];
        assert_int_equal(c->consumer, 5);
        assert_int_equal(c->gate_index, i);
        producers[i] = c->producer;
        inputs[i] = c->input;
    }
    assert_int_equal(producers[0], 2);
    assert_int_equal(producers[1], 3);
    assert_int_equal(producers[2], 0);
    assert_int_equal(producers[3], 1);
    assert_int_equal(inputs[0], 0);
    assert_int_equal(inputs[2], 1);
    /* src[0] (task 0): outputs fil[0] (forward), then uni[0..2] (broadcast). */
    t = &j.tasks[0];
    assert_int_equal(t->out_count, 4);
    for (uint32_t i = 0; i < 4; i++) {
        const job_chan *c = &j.chans[j.out_chan[t->out_first + i]];
        assert_int_equal(c->producer, 0);
        assert_int_equal(c->out_index, i);
        assert_int_equal(c->consumer, i == 0 ? 2 : 4 + (i - 1));
    }
    assert_int_equal(j.tasks[7].in_count, 3);     /* the sink hears every uni task */
    assert_string_equal(job_kind_name(JOB_KEYED_JOIN), "keyed-join");
    assert_string_equal(job_part_name(JOB_BROADCAST), "broadcast");
    assert_string_equal(job_cost_name(JOB_COST_EXPONENTIAL), "exponential");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_check_names_the_first_problem),
        cmocka_unit_test(test_job_expand_numbers_tasks_channels_and_gate_inputs_in_graph_order),
    };
    return cmocka_run_group_tests_name("job", tests, NULL, NULL);
}
