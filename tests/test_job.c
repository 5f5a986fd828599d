/* tests/test_job.c: job graphs: validation messages, expansion into tasks
 * and channels, and placement. */
#include "harness.h"

#include "../model/flow/job.h"

static job_where where_;

static const char *check(const job *j) {
    static char buf[200];
    const char *e = job_check(j, &where_, buf, sizeof buf);
    return e == NULL ? "ok" : e;
}

/* The message, and where job_check put the problem: "vertex 2 kind", "edge 1 part". */
static const char *check_at(const job *j) {
    static const char *const fields[] = { "job", "name", "kind", "parallelism", "cost", "max-parallelism", "from", "to", "part" };
    static char buf[240];
    const char *e = check(j);
    if (strcmp(e, "ok") == 0) return e;
    snprintf(buf, sizeof buf, "%s %u %s: %s", where_.field >= JOB_FIELD_FROM ? "edge" : "vertex", where_.index,
             fields[where_.field], e);
    return buf;
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
    assert_string_equal(check(&j), "out: parallelism 0 out of range [1, 256]");
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
        job_add_edge(&j, s, job_add_vertex(&j, name, JOB_SINK, 128, 0), JOB_HASH);
        assert_string_equal(check(&j), i < 4 ? "ok" : "src: a task would have more than 512 output channels (lower "
                                                      "the parallelism of the vertices it feeds)");
    }
    job_init(&j);
    s = job_add_vertex(&j, "src", JOB_SOURCE, 256, 0);
    for (int i = 0; i < 5; i++) job_add_edge(&j, s, job_add_vertex(&j, "out", JOB_SINK, 256, 0), JOB_HASH);
    assert_string_equal(check(&j), "327680 channels in all, more than the limit of 262144 (an edge other than forward "
                                   "joins every task of one vertex to every task of the other: lower their parallelism, "
                                   "or use forward edges)");
}

/* Each problem names the vertex or edge that causes it, so that a scenario
 * file's reader can point at its statement: a rule broken by an edge is
 * that edge's, a missing edge the vertex's, a limit the vertex's or edge's
 * that goes past it. */
static void test_job_check_says_where_each_problem_lies(void **state) {
    (void)state;
    job j;
    job_init(&j);
    assert_string_equal(check_at(&j), "vertex 0 job: the job has no vertices");
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 2, 0);
    uint32_t m = job_add_vertex(&j, "m", JOB_MAP, 2, 0);
    uint32_t k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    assert_string_equal(check_at(&j), "vertex 0 name: src: its output goes nowhere (add an edge to a sink)");
    job_add_edge(&j, s, m, JOB_FORWARD);          /* edge 0 */
    assert_string_equal(check_at(&j), "vertex 1 name: m: its output goes nowhere (add an edge to a sink)");
    job_add_edge(&j, m, k, JOB_FORWARD);          /* edge 1 */
    assert_string_equal(check_at(&j), "edge 1 part: m -> out: forward needs equal parallelism (2 and 1)");
    j.edges[1].part = JOB_REBALANCE;
    assert_string_equal(check_at(&j), "ok");
    job_add_edge(&j, s, k, JOB_HASH);             /* edge 2: a sink may take two inputs */
    assert_string_equal(check_at(&j), "ok");
    j.vertices[k].kind = JOB_MAP;                 /* a map may not, and its output goes nowhere */
    assert_string_equal(check_at(&j), "vertex 2 name: out: its output goes nowhere (add an edge to a sink)");
    j.vertices[k].kind = JOB_SINK;
    j.vertices[m].kind = JOB_KEYED_JOIN;          /* one input: the join is missing one */
    assert_string_equal(check_at(&j), "vertex 1 name: m: a keyed join takes exactly two inputs, not 1");
    j.vertices[m].kind = JOB_SOURCE;              /* a second source, with an input */
    assert_string_equal(check_at(&j), "edge 0 to: m: a source takes no input");
    j.edges[0].to = k;                            /* src -> out twice; m is a second source: the graph may have several */
    j.edges[0].part = JOB_REBALANCE;
    assert_string_equal(check_at(&j), "ok");
    j.vertices[k].topic = 1;                      /* only a source names a topic (pipe_create checks which) */
    assert_string_equal(check_at(&j), "vertex 2 kind: out: only a source reads a topic");
    j.vertices[k].topic = 0;
    j.edges[0].part = JOB_FORWARD;
    j.vertices[m].kind = JOB_MAP;
    j.edges[0].to = m;
    j.vertices[k].parallelism = 0;
    assert_string_equal(check_at(&j), "vertex 2 parallelism: out: parallelism 0 out of range [1, 256]");
    j.vertices[k].parallelism = 1;
    j.vertices[m].cost_ns = 2 * SIM_NS_PER_S;
    assert_string_equal(check_at(&j), "vertex 1 cost: m: a record costing more than 1 s is not a stream");
    j.vertices[m].cost_ns = 0;

    job_init(&j);                                 /* the edge that breaks an input or output rule */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 1, 0);
    m = job_add_vertex(&j, "m", JOB_MAP, 1, 0);
    uint32_t x = job_add_vertex(&j, "x", JOB_KEYED_JOIN, 1, 0);
    k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    uint32_t k2 = job_add_vertex(&j, "out2", JOB_SINK, 1, 0);
    job_add_edge(&j, s, m, JOB_FORWARD);          /* 0 */
    job_add_edge(&j, m, x, JOB_FORWARD);          /* 1 */
    job_add_edge(&j, s, x, JOB_FORWARD);          /* 2 */
    job_add_edge(&j, x, k, JOB_FORWARD);          /* 3 */
    job_add_edge(&j, k, k2, JOB_FORWARD);         /* 4: out of a sink */
    assert_string_equal(check_at(&j), "edge 4 from: out: a sink has no output (but a sink-v2 sink's one edge to its committer)");
    j.edges[4].from = x;
    assert_string_equal(check_at(&j), "ok");
    job_add_edge(&j, m, x, JOB_HASH);             /* 5: a join's third input */
    assert_string_equal(check_at(&j), "edge 5 to: x: a keyed join takes exactly two inputs, not 3");
    j.vertices[x].kind = JOB_FILTER;              /* a filter's second input: edge 2 */
    assert_string_equal(check_at(&j), "edge 2 to: x: a filter takes one input (use a union)");
    j.vertices[x].kind = JOB_UNION;
    assert_string_equal(check_at(&j), "ok");
    j.edges[5] = (job_edge){ .from = x, .to = x, .part = JOB_HASH };   /* a cycle */
    assert_string_equal(check_at(&j), "edge 5 to: x -> x: edges go from earlier to later vertices (no cycles)");

    job_init(&j);                                 /* limits: the vertex or edge that goes past them */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 256, 0);
    for (uint32_t i = 0; i < 15; i++) job_add_edge(&j, i == 0 ? s : i, job_add_vertex(&j, "m", JOB_MAP, 256, 0), JOB_FORWARD);
    assert_string_equal(check_at(&j), "vertex 15 name: m: its output goes nowhere (add an edge to a sink)");
    job_add_edge(&j, 15, job_add_vertex(&j, "out", JOB_SINK, 1, 0), JOB_HASH);
    assert_string_equal(check_at(&j), "vertex 16 parallelism: out: 4097 tasks in all, more than the limit of 4096 "
                                      "(lower the parallelism of this or another vertex)");
    j.vertices[16].parallelism = 0;
    assert_string_equal(check_at(&j), "vertex 16 parallelism: out: parallelism 0 out of range [1, 256]");
    job_init(&j);                                 /* four hash edges between 256-parallel vertices fit, a fifth not */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 256, 0);
    for (int i = 0; i < 5; i++) job_add_edge(&j, s, job_add_vertex(&j, "out", JOB_SINK, 256, 0), JOB_HASH);
    assert_string_equal(check_at(&j), "edge 4 part: 327680 channels in all, more than the limit of 262144 (an edge "
                                      "other than forward joins every task of one vertex to every task of the other: "
                                      "lower their parallelism, or use forward edges)");
    j.edges_count = 4;
    j.vertices_count = 5;
    assert_string_equal(check_at(&j), "edge 2 part: src: a task would have more than 512 output channels (lower the "
                                      "parallelism of the vertices it feeds)");
    job_init(&j);                                 /* a join of two hash inputs from 256-parallel vertices */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 256, 0);
    uint32_t a = job_add_vertex(&j, "a", JOB_MAP, 256, 0), b = job_add_vertex(&j, "b", JOB_MAP, 256, 0);
    uint32_t u = job_add_vertex(&j, "u", JOB_UNION, 256, 0);
    k = job_add_vertex(&j, "out", JOB_SINK, 256, 0);
    job_add_edge(&j, s, a, JOB_FORWARD);
    job_add_edge(&j, s, b, JOB_FORWARD);
    job_add_edge(&j, a, u, JOB_HASH);
    job_add_edge(&j, b, u, JOB_HASH);             /* 2 x 256 inputs: at the limit */
    job_add_edge(&j, u, k, JOB_FORWARD);
    assert_string_equal(check_at(&j), "ok");
    job_add_edge(&j, s, u, JOB_HASH);             /* edge 5: the 513th input channel */
    assert_string_equal(check_at(&j), "edge 5 part: u: a task would have more than 512 input channels (lower the "
                                      "parallelism of the vertices feeding it)");
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
    arena mem;
    assert_true(arena_create(&mem, job_expand_bytes(&j)));
    job_expand(&j, 3, &mem);
    assert_int_equal(arena_mark(&mem) <= job_expand_bytes(&j), true);
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
    arena_destroy(&mem);
}

/* Pipelined regions, as Flink computes them for a streaming job: forward
 * chains of parallelism p are p regions; an all-to-all edge anywhere
 * joins the vertices it connects, here every task. */
static void test_job_regions_forward_chains_and_all_to_all_edges(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 3, 0);
    uint32_t m = job_add_vertex(&j, "map", JOB_MAP, 3, 0);
    uint32_t k = job_add_vertex(&j, "out", JOB_SINK, 3, 0);
    job_add_edge(&j, s, m, JOB_FORWARD);
    uint32_t e = job_add_edge(&j, m, k, JOB_FORWARD);
    assert_string_equal(check(&j), "ok");
    arena mem;
    assert_true(arena_create(&mem, 1u << 16));
    job_expand(&j, 2, &mem);
    uint32_t region[9];
    assert_int_equal(job_regions(&j, region), 3);
    for (uint32_t t = 0; t < 9; t++) assert_int_equal(region[t], j.tasks[t].subtask);   /* src[i], map[i], out[i] */
    static const job_part all_to_all[] = { JOB_HASH, JOB_REBALANCE, JOB_BROADCAST };
    for (uint32_t i = 0; i < 3; i++) {
        j.edges[e].part = all_to_all[i];
        job_expand(&j, 2, &mem);
        assert_int_equal(job_regions(&j, region), 1);
        for (uint32_t t = 0; t < 9; t++) assert_int_equal(region[t], 0);
    }
    job_init(&j);                                 /* two forward pairs ... */
    s = job_add_vertex(&j, "src", JOB_SOURCE, 2, 0);
    m = job_add_vertex(&j, "agg", JOB_KEYED_AGG, 2, 0);
    k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    job_add_edge(&j, s, m, JOB_FORWARD);
    job_add_edge(&j, m, k, JOB_REBALANCE);        /* ... both chains meet at the one sink */
    job_expand(&j, 2, &mem);
    assert_int_equal(job_regions(&j, region), 1);
    j.vertices[k].parallelism = 2;
    j.edges[1].part = JOB_FORWARD;
    job_expand(&j, 2, &mem);
    assert_int_equal(job_regions(&j, region), 2);
    assert_int_equal(region[1], 1);               /* src[1] */
    assert_int_equal(region[4], 0);               /* out[0] */
    arena_destroy(&mem);
}

/* Key groups as Flink's KeyGroupRangeAssignment computes them, on values
 * worked out by hand from its formulas (MathUtils.murmurHash of
 * Long.hashCode; murmurHash(1) = 68075478 is what the JVM prints). */
/* The per-record path's mask and shift give the subtask the divisions
 * give, for every power-of-two max-parallelism Flink allows, parallelism
 * up to it, and keys with high words; other max-parallelisms have none. */
static void test_key_subtask_by_shift_equals_by_division_for_powers_of_two(void **state) {
    (void)state;
    assert_int_equal(job_mp_shift(128), 7);
    assert_int_equal(job_mp_shift(32768), 15);
    assert_int_equal(job_mp_shift(1), 0);
    assert_int_equal(job_mp_shift(96), JOB_MP_NOT_POW2);
    assert_int_equal(job_mp_shift(129), JOB_MP_NOT_POW2);
    uint64_t checked = 0;
    for (uint32_t shift = 0; shift <= 15; shift++) {
        uint32_t mp = 1u << shift;
        static const uint32_t ps[] = { 1, 2, 3, 7, 32, 64, 100, 255, 256, 4096, 32768 };
        for (uint32_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
            if (ps[pi] > mp) continue;
            for (uint64_t k = 0; k < 2000; k++) {
                uint64_t key = k * 0x9e3779b97f4a7c15ull;   /* high words too */
                assert_int_equal(job_key_subtask_pow2(key, shift, ps[pi]), job_key_subtask(key, mp, ps[pi]));
                checked++;
            }
        }
    }
    assert_true(checked > 100000);
}

static void test_key_groups_match_flinks_formulas_on_hand_computed_keys(void **state) {
    (void)state;
    assert_int_equal(job_murmur_hash(0), 593689054u);
    assert_int_equal(job_murmur_hash(1), 68075478u);
    assert_int_equal(job_murmur_hash(42), 1134849565u);
    assert_int_equal(job_key_group(0, 128), 94);           /* 593689054 % 128 */
    assert_int_equal(job_key_group(2, 128), 127);
    assert_int_equal(job_key_group(42, 128), 29);
    assert_int_equal(job_key_group(1000, 32768), 135);
    /* A long's hashCode folds its high word in: 2^32 + 5 hashes as 4 ^ 1... */
    assert_int_equal(job_key_group((1ull << 32) + 5, 128), job_murmur_hash(5u ^ 1u) % 128);
    assert_int_equal(job_key_group((1ull << 32) + 5, 128), 7);
    assert_int_equal(job_group_subtask(94, 128, 3), 2);    /* 94 * 3 / 128 */
    assert_int_equal(job_group_subtask(42, 128, 3), 0);
    assert_int_equal(job_group_subtask(43, 128, 3), 1);
    assert_int_equal(job_key_subtask(42, 128, 3), 0);      /* group 29 */
    assert_int_equal(job_key_subtask(123456789, 128, 3), 1);   /* group 81 */
    uint32_t first, end;
    job_group_range(128, 3, 0, &first, &end);
    assert_int_equal(first, 0);
    assert_int_equal(end, 43);                             /* Flink's [0, 42] */
    job_group_range(128, 3, 1, &first, &end);
    assert_int_equal(first, 43);
    assert_int_equal(end, 86);
    job_group_range(128, 3, 2, &first, &end);
    assert_int_equal(first, 86);
    assert_int_equal(end, 128);
}

/* Every parallelism's ranges are contiguous, cover all groups in subtask
 * order, and agree with the assignment of each group. */
static void test_key_group_ranges_are_contiguous_cover_every_group_and_agree_with_the_assignment(void **state) {
    (void)state;
    static const uint32_t maxes[] = { 128, 256, 384, 32768 };
    for (uint32_t m = 0; m < 4; m++) {
        for (uint32_t p = 1; p <= 256 && p <= maxes[m]; p += p < 12 ? 1 : 37) {
            uint32_t next = 0;
            for (uint32_t i = 0; i < p; i++) {
                uint32_t first, end;
                job_group_range(maxes[m], p, i, &first, &end);
                assert_int_equal(first, next);
                assert_true(end > first);                  /* p <= max: no subtask owns nothing */
                assert_int_equal(job_group_subtask(first, maxes[m], p), i);
                assert_int_equal(job_group_subtask(end - 1, maxes[m], p), i);
                next = end;
            }
            assert_int_equal(next, maxes[m]);
        }
    }
}

/* Flink's default: roundUpToPowerOfTwo(p + p / 2), within [128, 32768];
 * an explicit max-parallelism wins, and one below the parallelism is refused. */
static void test_default_max_parallelism_is_flinks_rule_and_a_parallelism_above_it_is_refused(void **state) {
    (void)state;
    assert_int_equal(job_default_max_parallelism(1), 128);
    assert_int_equal(job_default_max_parallelism(85), 128);    /* 127 */
    assert_int_equal(job_default_max_parallelism(86), 256);    /* 129 */
    assert_int_equal(job_default_max_parallelism(171), 256);   /* 256 */
    assert_int_equal(job_default_max_parallelism(172), 512);   /* 258 */
    assert_int_equal(job_default_max_parallelism(170), 256);   /* 255 */
    assert_int_equal(job_default_max_parallelism(256), 512);
    assert_int_equal(job_default_max_parallelism(30000), 32768);
    job j;
    job_init(&j);
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 1, 0);
    uint32_t a = job_add_vertex(&j, "agg", JOB_KEYED_AGG, 4, 0);
    uint32_t k = job_add_vertex(&j, "out", JOB_SINK, 1, 0);
    job_add_edge(&j, s, a, JOB_HASH);
    job_add_edge(&j, a, k, JOB_REBALANCE);
    assert_int_equal(job_max_parallelism(&j.vertices[a]), 128);
    j.vertices[a].max_parallelism = 4;
    assert_int_equal(job_max_parallelism(&j.vertices[a]), 4);
    assert_string_equal(check(&j), "ok");
    j.vertices[a].max_parallelism = 3;
    assert_string_equal(check_at(&j), "vertex 1 max-parallelism: agg: parallelism 4 above its max-parallelism 3 (the "
                                   "key groups; raise it or lower the parallelism)");
    j.vertices[a].max_parallelism = 40000;
    assert_string_equal(check_at(&j), "vertex 1 max-parallelism: agg: max-parallelism 40000 above Flink's limit of "
                                   "32768 key groups");
}

/* Sink V2 as Flink's translator lays it out: the writer's one output is a
 * forward edge to a committer, whose one input is that writer. */
static void test_job_check_holds_a_sink_v2_writer_to_one_forward_edge_into_its_committer(void **state) {
    (void)state;
    job j;
    job_init(&j);
    uint32_t s = job_add_vertex(&j, "src", JOB_SOURCE, 2, 0);
    uint32_t w = job_add_vertex(&j, "out", JOB_SINK, 2, 0);
    j.vertices[w].sink = JOB_SINK_V2;
    job_add_edge(&j, s, w, JOB_HASH);
    assert_string_equal(check_at(&j), "vertex 1 name: out: a sink-v2 sink has one output, a forward edge to its "
                                      "committer (0 edges)");
    uint32_t c = job_add_vertex(&j, "commit", JOB_COMMITTER, 2, 0);
    job_add_edge(&j, w, c, JOB_REBALANCE);        /* 1 */
    assert_string_equal(check_at(&j), "edge 1 part: out: a sink-v2 sink's output is a forward edge to a committer");
    j.edges[1].part = JOB_FORWARD;
    assert_string_equal(check_at(&j), "ok");
    j.vertices[w].sink = JOB_SINK_2PC;            /* a committer behind a sink of another kind */
    assert_string_equal(check_at(&j), "edge 1 from: out: a sink has no output (but a sink-v2 sink's one edge to its "
                                      "committer)");
    j.vertices[w].sink = JOB_SINK_V2;
    job_add_edge(&j, s, c, JOB_FORWARD);          /* 2: a second input of the committer, and a second output of src */
    assert_string_equal(check_at(&j), "edge 2 to: commit: a committer takes one input, from its sink-v2 sink");
    j.edges[2] = (job_edge){ .from = c, .to = c, .part = JOB_FORWARD };
    j.edges_count = 2;
    uint32_t k = job_add_vertex(&j, "after", JOB_SINK, 2, 0);
    job_add_edge(&j, c, k, JOB_FORWARD);          /* 2: out of the committer */
    assert_string_equal(check_at(&j), "edge 2 from: commit: a committer's only output is an edge to a global committer");
    j.vertices[k].kind = JOB_COMMITTER;           /* a global committer after it */
    j.vertices[k].global = true;
    assert_string_equal(check_at(&j), "vertex 3 parallelism: after: a global committer runs at parallelism 1");
    j.vertices[k].parallelism = 1;
    j.edges[2].part = JOB_REBALANCE;
    assert_string_equal(check_at(&j), "ok");
    j.edges[2].from = w;                          /* a global committer right behind the writer */
    assert_string_equal(check_at(&j), "edge 2 from: out: a sink-v2 sink has one output, a forward edge to its "
                                      "committer (2 edges)");
}

/* SubtaskStateMapperTest (flink-runtime), RANGE: 3 -> 2, new 0 takes old
 * {0, 1}, new 1 {1, 2}; 3 -> 4, new 0 {0}, 1 {0, 1}, 2 {1, 2}, 3 {2}. With
 * Flink's default max parallelism for these (128), as the mapper's own
 * ranges cancel the actual one out. */
static void test_key_group_ranges_map_old_subtasks_as_flinks_range_mapper(void **state) {
    (void)state;
    static const uint32_t to2[2][3] = { { 1, 1, 0 }, { 0, 1, 1 } };
    static const uint32_t to4[4][3] = { { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 1 }, { 0, 0, 1 } };
    for (uint32_t i = 0; i < 2; i++) {
        for (uint32_t k = 0; k < 3; k++) assert_int_equal(job_ranges_overlap(128, 2, i, 3, k), to2[i][k]);
    }
    for (uint32_t i = 0; i < 4; i++) {
        for (uint32_t k = 0; k < 3; k++) assert_int_equal(job_ranges_overlap(128, 4, i, 3, k), to4[i][k]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_check_names_the_first_problem),
        cmocka_unit_test(test_key_group_ranges_map_old_subtasks_as_flinks_range_mapper),
        cmocka_unit_test(test_job_check_holds_a_sink_v2_writer_to_one_forward_edge_into_its_committer),
        cmocka_unit_test(test_job_check_says_where_each_problem_lies),
        cmocka_unit_test(test_job_expand_numbers_tasks_channels_and_gate_inputs_in_graph_order),
        cmocka_unit_test(test_job_regions_forward_chains_and_all_to_all_edges),
        cmocka_unit_test(test_key_groups_match_flinks_formulas_on_hand_computed_keys),
        cmocka_unit_test(test_key_subtask_by_shift_equals_by_division_for_powers_of_two),
        cmocka_unit_test(test_key_group_ranges_are_contiguous_cover_every_group_and_agree_with_the_assignment),
        cmocka_unit_test(test_default_max_parallelism_is_flinks_rule_and_a_parallelism_above_it_is_refused),
    };
    return cmocka_run_group_tests_name("job", tests, NULL, NULL);
}
