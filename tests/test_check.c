/* tests/test_check.c: the invariant checkers of check/ (I1-I6) and the
 * specification they compare with: on real runs, on deliberate bugs, and
 * on hand-made sequences of protocol steps fed to them directly. */
#include "harness.h"

#include "../check/spec.h"
#include "../model/flow/ckrules.h"
#include "../model/pipe.h"
#include "../scenarios/inject.h"

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
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 47 * SIM_NS_PER_MS,
                                               .duration_ns = 5 * SIM_NS_PER_MS };
    return c;
}

static void test_every_completed_checkpoint_is_the_state_of_its_source_prefixes(void **state) {
    (void)state;
    /* Aligned, unaligned (state plus the channel state it persisted), and
     * aligned with a timeout: each completion is checked and holds. */
    pipe_cfg c = job_of(1, PIPE_ALIGNED);
    checked_run r = run_checked(&c);
    assert_int_equal(r.status, PIPE_FINISHED);
    assert_true(r.report.checks[CHECK_I2] >= 5);
    assert_int_equal(r.report.checks[CHECK_I2], r.stats.completed);
    assert_int_equal(check_total(&r.report), 0);
    c = job_of(1, PIPE_UNALIGNED);
    r = run_checked(&c);
    assert_true(r.stats.cs_bytes > 0);
    assert_int_equal(r.report.checks[CHECK_I2], r.stats.completed);
    assert_int_equal(check_total(&r.report), 0);
    c = job_of(1, PIPE_ALIGNED);
    c.ckpt.alignment_timeout_ns = SIM_NS_PER_MS;
    r = run_checked(&c);
    assert_true(r.stats.alignment_timeouts > 0);
    assert_int_equal(check_total(&r.report), 0);
    /* At-least-once does not promise a consistent cut or exactly-once state. */
    c = job_of(1, PIPE_AT_LEAST_ONCE);
    r = run_checked(&c);
    assert_false(r.report.applies[CHECK_I2]);
    assert_false(r.report.applies[CHECK_I1]);
    assert_int_equal(r.report.checks[CHECK_I2], 0);
}

/* Each of these bugs makes a checkpoint claim a state its offsets do not
 * explain, and I2 names the keyed vertex at the first such completion. */
static void test_wrong_offsets_partial_acks_and_leaking_updates_break_the_cut(void **state) {
    (void)state;
    pipe_bug bugs[] = { PIPE_BUG_OFFSET_OFF_BY_ONE, PIPE_BUG_PARTIAL_ACKS, PIPE_BUG_NO_COW };
    for (size_t i = 0; i < sizeof bugs / sizeof bugs[0]; i++) {
        pipe_cfg c = job_of(2, PIPE_ALIGNED);
        c.state.backend = PIPE_BACKEND_DURABLE;        /* a slow write: updates would leak into it */
        c.bug = bugs[i];
        checked_run r = run_checked(&c);
        const check_violation *v = first_of(&r.report, CHECK_I2);
        print_message("%s: %llu I2 violations; %s\n", pipe_bug_name(bugs[i]),
                      (unsigned long long)r.report.violations[CHECK_I2], v ? v->what : "-");
        assert_non_null(v);
        assert_int_equal(v->vertex, 2);
        assert_true(v->ckpt >= 1 && v->key != CHECK_NONE64);
        assert_int_equal(v->seed, 2);
    }
}

/* A job with every operator kind: filters by record id, maps, joins
 * tagging keys by input, broadcast copies, unions; idempotent or
 * two-phase-commit sinks. */
static pipe_cfg every_operator(uint64_t seed, int mode) {
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
    return c;
}

/* The specification against the tasks' own code: without failures, the
 * final state and output of a job with every operator kind are the fold
 * of the input; under crashes, in the three exactly-once variants, every
 * completion, the final state and the output still are. */
static void test_the_tasks_compute_what_the_specification_folds_under_crashes(void **state) {
    (void)state;
    uint64_t checks = 0;
    for (int mode = 0; mode < 3; mode++) {
        for (uint64_t seed = 1; seed <= 8; seed++) {
            pipe_cfg c = every_operator(seed, mode);
            checked_run r = run_checked(&c);              /* failure-free */
            assert_int_equal(r.status, PIPE_FINISHED);
            assert_true(r.report.state_known && r.report.state_equal);
            assert_true(r.report.spec_records > 1000);
            assert_int_equal(r.report.out_lost + r.report.out_duplicated, 0);
            rng g;
            rng_seed(&g, seed, (uint64_t)mode);
            for (int k = 0; k < 3; k++) {
                c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = rng_below(&g, 3),
                                                           .at_ns = (3 + rng_below(&g, 40)) * SIM_NS_PER_MS,
                                                           .duration_ns = 2 * SIM_NS_PER_MS };
            }
            r = run_checked(&c);
            assert_int_equal(r.status, PIPE_FINISHED);
            assert_true(r.report.applies[CHECK_I1] && r.report.applies[CHECK_I3]);
            if (check_total(&r.report) > 0) {
                fail_msg("mode %d seed %llu: %s %s", mode, (unsigned long long)seed,
                         check_inv_name(check_first(&r.report)->inv), check_first(&r.report)->what);
            }
            assert_true(r.report.state_equal);
            checks += r.report.checks[CHECK_I2];
        }
    }
    print_message("%llu completions checked\n", (unsigned long long)checks);
    assert_true(checks >= 100);
}

/* The fold itself, by hand: a filter keeping nothing leaves the aggregate
 * empty; a map's constant reaches the sum; a broadcast into a sink of
 * parallelism 3 makes every record visible three times. */
static void test_the_specification_folds_maps_filters_and_broadcasts(void **state) {
    (void)state;
    pipe_cfg c = pipe_cfg_default(1);
    job *j = &c.graph;
    uint32_t src = job_add_vertex(j, "src", JOB_SOURCE, 1, 0);
    uint32_t mp = job_add_vertex(j, "mp", JOB_MAP, 1, 0);
    uint32_t agg = job_add_vertex(j, "agg", JOB_KEYED_AGG, 1, 0);
    uint32_t snk = job_add_vertex(j, "snk", JOB_SINK, 3, 0);
    j->vertices[mp].map_add = 5;
    job_add_edge(j, src, mp, JOB_FORWARD);
    job_add_edge(j, mp, agg, JOB_HASH);
    job_add_edge(j, agg, snk, JOB_BROADCAST);
    arena mem;
    assert_true(arena_create(&mem, job_expand_bytes(j)));
    job_expand(j, 1, &mem);
    spec sp;
    spec_init(&sp, j, NULL);
    sim_cfg sc = sim_cfg_default(1);
    sc.model_bytes = 1u << 20;
    sim_run *run = sim_run_create(&sc);
    assert_non_null(run);
    kstate into[JOB_VERTICES_MAX];
    kstate_init(&into[agg], run, 16);
    model_rec r = { .id = 7, .key = 3, .value = 10 };
    spec_fold_input(&sp, into, &r);
    const kagg *a = kstate_find(&into[agg], 3);
    assert_non_null(a);
    assert_int_equal(a->count, 1);
    assert_int_equal(a->sum, 15);
    assert_int_equal(spec_visible(&sp, &r), 3);
    sim_run_destroy(run);
    arena_destroy(&mem);
}

/* The flattened fold (spec_fold, spec_visible) against the walk that
 * defines it, over random graphs: diamonds, joins fed twice, filters on
 * some ways only, broadcasts, maps before and after keyed vertices, and
 * records entering mid-graph (channel state). */
static uint32_t walk_visible(const spec *sp, uint32_t v, const model_rec *r, uint64_t copies, bool *idem) {
    const job_vertex *x = &sp->j->vertices[v];
    if (x->kind == JOB_FILTER && kstate_record_mark(r->id) % 100 >= x->keep_percent) return 0;
    if (x->kind == JOB_SINK) {
        if (x->sink == JOB_SINK_IDEMPOTENT) *idem = true;
        return x->sink == JOB_SINK_IDEMPOTENT ? 0 : (uint32_t)copies;
    }
    uint32_t n = 0;
    for (uint32_t e = 0; e < sp->j->edges_count; e++) {
        const job_edge *d = &sp->j->edges[e];
        if (d->from != v) continue;
        n += walk_visible(sp, d->to, r, copies * (d->part == JOB_BROADCAST ? sp->j->vertices[d->to].parallelism : 1), idem);
    }
    return n;
}

static void random_graph(job *j, rng *g) {
    static const job_kind kinds[] = { JOB_MAP, JOB_FILTER, JOB_KEYED_AGG, JOB_UNION, JOB_KEYED_JOIN, JOB_SINK };
    job_init(j);
    job_add_vertex(j, "src", JOB_SOURCE, 1 + (uint32_t)rng_below(g, 3), 0);
    uint32_t n = 3 + (uint32_t)rng_below(g, 6);
    for (uint32_t v = 1; v < n; v++) {
        char name[8];
        snprintf(name, sizeof name, "v%u", v);
        job_kind k = v == n - 1 ? JOB_SINK : kinds[rng_below(g, 6)];
        uint32_t id = job_add_vertex(j, name, k, 1 + (uint32_t)rng_below(g, 3), 0);
        j->vertices[id].keep_percent = (uint32_t)rng_below(g, 101);
        j->vertices[id].map_add = (int64_t)rng_below(g, 7);
        j->vertices[id].sink = rng_below(g, 3) == 0 ? JOB_SINK_IDEMPOTENT : JOB_SINK_PLAIN;
        uint32_t ins = k == JOB_KEYED_JOIN ? 2 : 1 + (uint32_t)rng_below(g, 2);
        for (uint32_t i = 0; i < ins; i++) {
            uint32_t from = (uint32_t)rng_below(g, v);
            if (j->vertices[from].kind == JOB_SINK) from = 0;
            job_add_edge(j, from, id, rng_below(g, 4) == 0 ? JOB_BROADCAST : JOB_HASH);
        }
    }
}

static void test_the_flattened_fold_equals_the_walk_over_random_graphs(void **state) {
    (void)state;
    static pipe_cfg c;
    sim_cfg sc = sim_cfg_default(1);
    sc.model_bytes = 1u << 22;
    sim_run *run = sim_run_create(&sc);
    assert_non_null(run);
    rng g = rng_stream(7, 1);
    static kstate flat[JOB_VERTICES_MAX], walk[JOB_VERTICES_MAX];
    for (uint32_t v = 0; v < JOB_VERTICES_MAX; v++) {
        kstate_init(&flat[v], run, 64);
        kstate_init(&walk[v], run, 64);
    }
    uint32_t flattened = 0;
    for (uint32_t graph = 0; graph < 200; graph++) {
        random_graph(&c.graph, &g);
        static spec sp;
        spec_init(&sp, &c.graph, NULL);
        flattened += sp.flat;
        for (uint32_t v = 0; v < c.graph.vertices_count; v++) {
            kstate_clear(&flat[v]);
            kstate_clear(&walk[v]);
        }
        for (uint32_t i = 0; i < 40; i++) {
            model_rec r = { .id = (uint64_t)rng_u32(&g) << 32 | rng_u32(&g), .key = rng_below(&g, 8), .value = (int64_t)rng_below(&g, 100) };
            uint32_t at = i % 2 ? 0 : (uint32_t)rng_below(&g, c.graph.vertices_count), input = (uint32_t)rng_below(&g, 2);
            spec_fold(&sp, flat, at, input, r, 1 + i % 3);
            spec_walk(&sp, walk, at, input, r, 1 + i % 3);
            bool idem = false;
            uint32_t plain = walk_visible(&sp, sp.source, &r, 1, &idem);
            assert_int_equal(spec_visible(&sp, &r), (plain > 127 ? 127 : plain) + idem);
        }
        for (uint32_t v = 0; v < c.graph.vertices_count; v++) {
            uint64_t key;
            if (!kstate_equal(&flat[v], &walk[v], &key)) fail_msg("graph %u vertex %u differs at key %llu", graph, v, (unsigned long long)key);
        }
    }
    assert_true(flattened >= 190);                /* the table holds nearly every graph: the flat path is what ran */
    sim_run_destroy(run);
}


/* Two sources, a topic each, into a keyed join: clicks (4 partitions,
 * through a map adding 5) on input 0, views (2 partitions of other
 * length, keys and values) on input 1, then an idempotent sink. */
static pipe_cfg two_sources(uint64_t seed) {
    pipe_cfg c = pipe_cfg_default(seed);
    c.broker.partitions = 0;                       /* every source names its topic */
    c.broker.topics_more = 2;
    c.broker.more[0] = (broker_topic_cfg){ .name = "clicks", .partitions = 4, .records_per_partition = 2000, .keys = 60,
                                           .dist = BROKER_UNIFORM, .zipf_s_milli = 1000, .value_max = 100,
                                           .event_gap_ns = SIM_NS_PER_MS };
    c.broker.more[1] = (broker_topic_cfg){ .name = "views", .partitions = 2, .records_per_partition = 3000, .keys = 40,
                                           .dist = BROKER_ZIPF, .zipf_s_milli = 1100, .value_max = 9,
                                           .event_gap_ns = SIM_NS_PER_MS };
    job *j = &c.graph;
    uint32_t clicks = job_add_vertex(j, "clicks", JOB_SOURCE, 2, 2000);
    uint32_t views = job_add_vertex(j, "views", JOB_SOURCE, 2, 2000);
    uint32_t mp = job_add_vertex(j, "mp", JOB_MAP, 2, 1000);
    uint32_t jn = job_add_vertex(j, "jn", JOB_KEYED_JOIN, 2, 3000);
    uint32_t snk = job_add_vertex(j, "snk", JOB_SINK, 1, 500);
    j->vertices[clicks].topic = 1;
    j->vertices[views].topic = 2;
    j->vertices[mp].map_add = 5;
    j->vertices[snk].sink = JOB_SINK_IDEMPOTENT;
    job_add_edge(j, clicks, mp, JOB_FORWARD);
    job_add_edge(j, mp, jn, JOB_HASH);             /* input 0 */
    job_add_edge(j, views, jn, JOB_HASH);          /* input 1 */
    job_add_edge(j, jn, snk, JOB_REBALANCE);
    c.machines = 2;
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    c.restart.delay_ns = 3 * SIM_NS_PER_MS;
    return c;
}

/* The fold by hand: each topic's records enter at their own source, so
 * the join holds at key * 2 the clicks of that key (values plus 5) and at
 * key * 2 + 1 its views; every record is visible once. */
static void test_the_specification_of_a_two_source_join_folds_each_topic_into_its_input(void **state) {
    (void)state;
    pipe_cfg c = two_sources(3);
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    const broker *b = pipe_broker(p);
    static spec sp;
    spec_init(&sp, pipe_job(p), b);
    assert_int_equal(sp.source_of[1], 0);
    assert_int_equal(sp.source_of[2], 1);
    sim_cfg sc = sim_cfg_default(1);
    sc.model_bytes = 1u << 22;
    sim_run *run = sim_run_create(&sc);
    static kstate into[JOB_VERTICES_MAX];
    kstate_init(&into[3], run, 256);
    uint64_t count[120] = { 0 };
    int64_t sum[120] = { 0 };
    for (uint32_t part = 0; part < b->partitions; part++) {
        bool views = part >= 4;                   /* clicks: 0-3, views: 4-5 */
        model_rec r;
        for (uint64_t o = 0; broker_read(b, part, o, &r); o++) {
            spec_fold_input(&sp, into, &r);
            assert_int_equal(spec_visible(&sp, &r), 1);
            uint64_t k = r.key * 2 + views;
            count[k]++;
            sum[k] += r.value + (views ? 0 : 5);
            assert_true(views ? r.key < 40 && r.value <= 9 : r.key < 60);
        }
    }
    uint64_t all = 0;
    for (uint64_t k = 0; k < 120; k++) {
        const kagg *a = kstate_find(&into[3], k);
        if (count[k] == 0) {
            assert_true(a == NULL || a->count == 0);
            continue;
        }
        assert_non_null(a);
        assert_int_equal(a->count, count[k]);
        assert_int_equal(a->sum, sum[k]);
        all += a->count;
    }
    assert_int_equal(all, 4 * 2000 + 2 * 3000);
    assert_true(count[1] > 0 && count[0] > 0);    /* both inputs of key 0 are there */
    sim_run_destroy(run);
    pipe_destroy(p);
}

/* The tasks against that fold, with a crash: each source rewinds its own
 * partitions, and state, cuts and output hold. A join that drops its
 * second input (the deliberate bug join-drops-input) is caught: the
 * first checkpoint misses the views (I2, at the join), and so do the
 * final state (I1) and the output (I4, a views record). */
static void test_a_two_source_join_holds_under_a_crash_and_a_join_dropping_an_input_is_caught(void **state) {
    (void)state;
    pipe_cfg c = two_sources(5);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 17 * SIM_NS_PER_MS,
                                               .duration_ns = 3 * SIM_NS_PER_MS };
    checked_run r = run_checked(&c);
    assert_int_equal(r.status, PIPE_FINISHED);
    assert_int_equal(r.stats.restarts, 1);
    assert_true(r.report.checks[CHECK_I2] >= 3);
    assert_true(r.report.state_known && r.report.state_equal);
    assert_int_equal(r.report.spec_records, 4 * 2000 + 2 * 3000);
    assert_int_equal(r.report.out_lost + r.report.out_duplicated, 0);
    assert_int_equal(check_total(&r.report), 0);
    c.bug = PIPE_BUG_JOIN_DROPS_INPUT;
    r = run_checked(&c);
    const check_violation *cut = first_of(&r.report, CHECK_I2), *fin = first_of(&r.report, CHECK_I1);
    const check_violation *out = first_of(&r.report, CHECK_I4);
    assert_non_null(cut);
    assert_int_equal(cut->vertex, 3);
    assert_int_equal(cut->ckpt, 1);
    assert_non_null(fin);
    assert_int_equal(fin->vertex, 3);
    assert_int_equal(fin->key % 2, 1);            /* a key of input 1 */
    assert_non_null(out);
    assert_true(out->record >> 40 >= 4);          /* a views partition */
}

/* ---- windows ---------------------------------------------------------------- */

/* source -> map (+4) -> window -> sink: event time with a disorder at
 * most the watermark delay (no record can be late), or above it. */
static pipe_cfg windowed(uint64_t seed, sim_time_ns slide_ns, sim_time_ns disorder_ns) {
    pipe_cfg c = pipe_cfg_default(seed);
    c.broker.partitions = 4;
    c.broker.records_per_partition = 2500;
    c.broker.keys = 50;
    c.broker.event_gap_ns = 10 * SIM_NS_PER_US;
    c.broker.disorder_ns = disorder_ns;
    job *j = &c.graph;
    uint32_t src = job_add_vertex(j, "src", JOB_SOURCE, 2, 2000);
    uint32_t mp = job_add_vertex(j, "mp", JOB_MAP, 2, 1000);
    uint32_t win = job_add_vertex(j, "win", JOB_WINDOW, 2, 3000);
    uint32_t snk = job_add_vertex(j, "snk", JOB_SINK, 2, 500);
    j->vertices[src].watermarks = true;
    j->vertices[src].watermark_delay_ns = 100 * SIM_NS_PER_US;
    j->vertices[mp].map_add = 4;
    j->vertices[win].window_size_ns = 2 * SIM_NS_PER_MS;
    j->vertices[win].window_slide_ns = slide_ns;
    j->vertices[win].lateness_ns = 50 * SIM_NS_PER_US;
    j->vertices[snk].sink = JOB_SINK_2PC;
    job_add_edge(j, src, mp, JOB_FORWARD);
    job_add_edge(j, mp, win, JOB_HASH);
    job_add_edge(j, win, snk, JOB_REBALANCE);
    c.machines = 2;
    c.source_rate_per_s = 100000;
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    c.restart.delay_ns = 3 * SIM_NS_PER_MS;
    return c;
}

/* The fold by hand: a record's value plus 4 goes into each of the
 * size / slide windows holding its event time; a record is possibly late
 * only when the watermark before it could have passed a window's end. */
static void test_the_specification_folds_a_record_into_every_window_holding_its_event_time(void **state) {
    (void)state;
    pipe_cfg c = windowed(3, 500 * SIM_NS_PER_US, 0);
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    const broker *b = pipe_broker(p);
    const job_vertex *x = &pipe_job(p)->vertices[2];
    static spec sp;
    spec_init(&sp, pipe_job(p), b);
    assert_true(spec_keyed(&sp, 2));
    sim_cfg sc = sim_cfg_default(1);
    sc.model_bytes = 1u << 24;
    sim_run *run = sim_run_create(&sc);
    static kstate into[JOB_VERTICES_MAX];
    kstate_init(&into[2], run, 50 * 3 * (uint32_t)win_count(x, 30 * SIM_NS_PER_MS));
    int64_t sum = 0;
    uint64_t pairs = 0;
    for (uint32_t part = 0; part < 4; part++) {
        model_rec r;
        for (uint64_t o = 0; broker_read(b, part, o, &r); o++) {
            spec_fold_input_after(&sp, into, &r, o == 0 ? WIN_WM_MIN : (win_wm)(o * 10 * SIM_NS_PER_US));
            sum += 4 * (r.value + 4);
            pairs += 4;
        }
    }
    uint32_t pos = 0;
    uint64_t k, got_pairs = 0;
    int64_t got_sum = 0;
    kagg a;
    while (kstate_next(&into[2], &pos, &k, &a)) {
        assert_int_equal(win_key_tag(k), WIN_CONTENTS);   /* in order: none possibly late */
        got_pairs += a.count;
        got_sum += a.sum;
    }
    assert_int_equal(got_pairs, pairs);
    assert_int_equal(got_sum, sum);
    model_rec r;                                  /* the watermark before it passed its windows: late */
    assert_true(broker_read(b, 0, 100, &r));
    kstate_clear(&into[2]);
    spec_fold_input_after(&sp, into, &r, (win_wm)r.event_time_ns + 3 * (win_wm)SIM_NS_PER_MS);
    uint64_t wi[WIN_PER_RECORD_MAX];
    uint32_t n = win_assign(x, r.event_time_ns, wi);
    for (uint32_t i = 0; i < n; i++) {
        const kagg *m = kstate_find(&into[2], win_key(r.key, wi[i], (win_tag)SPEC_POSSIBLY_LATE));
        assert_non_null(m);
        assert_int_equal(m->fingerprint, 1);      /* may find its window fired */
        assert_int_equal(m->count, 1);            /* and purged: 3 ms past every end, lateness 50 us */
    }
    sim_run_destroy(run);
    pipe_destroy(p);
}

/* The tasks against the specification, with a crash: every window fires
 * once with the sum of its records, in state, at each cut and in the
 * output; an operator whose watermark is its inputs' highest fires early
 * and drops records that were not late (I2), and a restore that loses
 * the timers leaves windows unfired (caught). */
static void test_windows_under_a_crash_fire_once_and_wrong_watermarks_or_lost_timers_are_caught(void **state) {
    (void)state;
    pipe_cfg c = windowed(5, 2 * SIM_NS_PER_MS, 80 * SIM_NS_PER_US);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .at_ns = 23 * SIM_NS_PER_MS,
                                               .duration_ns = 3 * SIM_NS_PER_MS };
    checked_run r = run_checked(&c);
    assert_int_equal(r.status, PIPE_FINISHED);
    assert_int_equal(r.stats.restarts, 1);
    assert_int_equal(check_total(&r.report), 0);
    assert_true(r.report.checks[CHECK_I2] >= 3);
    assert_int_equal(r.stats.late_records + r.stats.late_firings, 0);
    assert_true(r.report.out_records > 0 && r.report.out_lost + r.report.out_duplicated == 0);
    assert_true(r.reach[PIPE_REACH_WINDOW_FIRED] > r.report.out_records);   /* windows after the cut fire again */
    c.bug = PIPE_BUG_WATERMARK_HIGHEST;
    r = run_checked(&c);
    const check_violation *cut = first_of(&r.report, CHECK_I2);
    assert_non_null(cut);
    assert_int_equal(cut->vertex, 2);
    c.bug = PIPE_BUG_RESTORE_DROPS_TIMERS;
    r = run_checked(&c);
    assert_true(check_total(&r.report) > 0);
    assert_true(r.report.out_lost > 0);           /* windows restored open never fired */
}

typedef struct refired {
    const scn  *s;
    scn_armed   arm;
    uint64_t    windows, lower, unfired;
} refired;

static void arm_file_faults(pipeline *p, void *ctx) {
    refired *f = ctx;
    scn_arm_faults(f->s, p, &f->arm, NULL, NULL);
}

/* Windows of vertex 1 whose highest value shown is above the value the
 * external system holds: fired again lower after a restore. */
static void count_fired_again_lower(pipeline *p, void *ctx) {
    refired *f = ctx;
    f->unfired = scn_unfired(&f->arm, pipe_sim(p)->now_ns, NULL, 0);
    for (uint64_t key = 0; key < broker_cfg_keys(&f->s->cfg.broker); key++) {
        for (uint64_t wi = 0; wi < f->windows; wi++) {
            uint32_t top;
            int64_t value, most;
            if (!pipe_result_top(p, 1, key, wi, &top, &value)) continue;
            assert_true(pipe_result_most(p, 1, key, wi, &most));
            f->lower += most > value;
        }
    }
}

/* At-least-once checkpoints do not align: a task may fire and purge a
 * window with records past the checkpoint's offsets before it snapshots;
 * after a restore the replay opens the window again and it fires with
 * those alone, lower. Output is at-least-once still (some firing showed
 * the sum); an operator whose watermark is its inputs' highest fires
 * windows before their records, which no firing then shows (I4). */
static void test_at_least_once_windows_may_fire_again_lower_and_a_firing_short_of_its_sum_is_caught(void **state) {
    (void)state;
    static scn s;
    char err[SCN_ERR_BYTES];
    if (!scn_load(&s, "scenarios/regress/window-fired-again-after-restore.scn", err, sizeof err)) fail_msg("%s", err);
    static refired f;
    f = (refired){ .s = &s, .windows = win_count(&s.cfg.graph.vertices[1], broker_cfg_event_end(&s.cfg.broker)) };
    checked_run r = run_checked_around(&s.cfg, arm_file_faults, count_fired_again_lower, &f);
    assert_int_equal(r.status, PIPE_FINISHED);
    assert_int_equal(f.unfired, 0);
    assert_true(r.report.applies[CHECK_I4] && !r.report.applies[CHECK_I3]);
    assert_int_equal(check_total(&r.report), 0);
    assert_true(f.lower > 0);
    s.cfg.bug = PIPE_BUG_WATERMARK_HIGHEST;
    s.cfg.seed = 1;                               /* the file's seed 6 shows a firing missing first */
    f.lower = 0;
    r = run_checked_around(&s.cfg, arm_file_faults, count_fired_again_lower, &f);
    const check_violation *out = first_of(&r.report, CHECK_I4);
    assert_non_null(out);
    assert_non_null(strstr(out->what, "no firing of it showed the sum"));
}

/* ---- hand-made sequences of steps ----------------------------------------- */

typedef struct fed {
    pipeline  *p;
    check_set *cs;
} fed;

/* The checkers of a job (aligned, 2 inputs at agg[0]) that never runs:
 * the steps come from the test. */
static fed feed_cfg(const pipe_cfg *c) {
    char err[256];
    fed f = { .p = pipe_create(c, err, sizeof err) };
    if (f.p == NULL) print_message("%s\n", err);
    assert_non_null(f.p);
    f.cs = check_create(f.p, &(check_cfg){ .liveness_ns = 0 }, err, sizeof err);
    assert_non_null(f.cs);
    return f;
}

static fed feed_of(pipe_mode mode) {
    pipe_cfg c = job_of(3, mode);
    c.faults_count = 0;
    return feed_cfg(&c);
}

/* One step; `arg` is the kind's one payload word: a gate step's input,
 * TRIGGER's unaligned, ALIGN_TIMEOUT's output, JOB_RESTARTED's region + 1
 * (0: every task), a checkpoint's end; 0 for the others. */
static void step(fed *f, pipe_ev_kind kind, uint32_t task, uint32_t arg, uint64_t ckpt, sim_time_ns at_ns) {
    pipe_event e = { .kind = kind, .at_ns = at_ns, .task = task, .ckpt = ckpt, .chan = PIPE_NO_CHAN };
    if (pipe_ev_info_of(kind)->fields & PIPE_F_INPUT) e.input = arg;
    else if (kind == PIPE_EV_TRIGGER) e.unaligned = arg != 0;
    else if (kind == PIPE_EV_ALIGN_TIMEOUT) e.output = arg != 0;
    else if (kind == PIPE_EV_CKPT_ABORT || kind == PIPE_EV_CKPT_COMPLETE) e.end = (pipe_ckpt_end)arg;
    else if (kind == PIPE_EV_JOB_RESTARTED && arg > 0) e = (pipe_event){ .kind = kind, .at_ns = at_ns, .task = task,
                                                                         .ckpt = ckpt, .chan = PIPE_NO_CHAN,
                                                                         .one_region = true, .region = arg - 1 };
    else assert_int_equal(arg, 0);
    assert_true(pipe_ev_fields_ok(&e));
    const job *j = pipe_job(f->p);
    if (kind == PIPE_EV_BARRIER || kind == PIPE_EV_CONSUME || kind == PIPE_EV_CANCEL) {
        e.chan = j->in_chan[j->tasks[task].in_first + arg];
        e.count = 32;
    }
    check_feed(f->cs, &e);
}

static void write_step(fed *f, pipe_ev_kind kind, uint32_t task, uint64_t ckpt, pipe_write what, bool ok) {
    pipe_event e = { .kind = kind, .at_ns = 1000, .task = task, .ckpt = ckpt, .chan = PIPE_NO_CHAN, .what = what,
                     .ok = ok, .bytes = 64, .count = 5 };
    check_feed(f->cs, &e);
}

static void fed_free(fed *f) {
    check_destroy(f->cs);
    pipe_destroy(f->p);
}

/* An aligned checkpoint turns unaligned only once it is older than the
 * alignment timeout, counted from its trigger: a switch 1 ms after the
 * trigger with a 2 ms timeout breaks I5, one at 2 ms does not. */
static void test_a_switch_to_unaligned_before_the_alignment_timeout_breaks_safety(void **state) {
    (void)state;
    pipe_cfg c = job_of(3, PIPE_ALIGNED);
    c.faults_count = 0;
    c.ckpt.alignment_timeout_ns = 2 * SIM_NS_PER_MS;
    fed f = feed_cfg(&c);
    step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10 * SIM_NS_PER_MS);
    step(&f, PIPE_EV_ALIGN_TIMEOUT, 3, 0, 1, 11 * SIM_NS_PER_MS);   /* its inputs, too early */
    step(&f, PIPE_EV_TRIGGER, 3, 1, 1, 11 * SIM_NS_PER_MS);         /* and the switch it makes */
    step(&f, PIPE_EV_ALIGN_TIMEOUT, 4, 1, 1, 12 * SIM_NS_PER_MS);   /* an output queue, in time */
    const check_report *r = check_finish(f.cs);
    assert_int_equal(r->violations[CHECK_I5], 1);
    const check_violation *v = first_of(r, CHECK_I5);
    assert_non_null(v);
    assert_int_equal(v->task, 3);
    assert_non_null(strstr(v->what, "before its alignment timeout (due at t=12.000ms)"));
    fed_free(&f);
}

/* Inputs that timed out aligning make the task trigger the checkpoint
 * unaligned in that same step: an unaligned trigger then is right; an
 * aligned one, going on with other steps, or the run ending first breaks
 * I5. */
static void test_a_task_whose_inputs_timed_out_triggers_unaligned_at_once(void **state) {
    (void)state;
    pipe_cfg c = job_of(3, PIPE_ALIGNED);
    c.faults_count = 0;
    c.ckpt.alignment_timeout_ns = 2 * SIM_NS_PER_MS;
    for (int bad = 0; bad < 4; bad++) {         /* 0 right; 1 aligned; 2 none, a later step; 3 none, the end */
        fed f = feed_cfg(&c);
        sim_time_ns at = 12 * SIM_NS_PER_MS;
        step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10 * SIM_NS_PER_MS);
        step(&f, PIPE_EV_ALIGN_TIMEOUT, 3, 0, 1, at);
        if (bad == 0) step(&f, PIPE_EV_TRIGGER, 3, 1, 1, at);          /* unaligned, in the same step */
        if (bad == 1) step(&f, PIPE_EV_TRIGGER, 3, 0, 1, at);          /* aligned */
        if (bad != 3) step(&f, PIPE_EV_CONSUME, 3, 1, 0, at + SIM_NS_PER_US);
        const check_report *r = check_finish(f.cs);
        assert_int_equal(r->violations[CHECK_I5], bad == 0 ? 0 : 1);
        if (bad > 0) assert_non_null(strstr(first_of(r, CHECK_I5)->what, "did not switch it to unaligned"));
        fed_free(&f);
    }
}

enum { AGG0 = 4 };                    /* tasks: source 0-1, map 2-3, agg 4-5, sink 6-7 */

static void test_safety_flags_a_record_consumed_from_a_blocked_input(void **state) {
    (void)state;
    fed f = feed_of(PIPE_ALIGNED);
    step(&f, PIPE_EV_BARRIER, AGG0, 0, 1, 100);
    step(&f, PIPE_EV_CONSUME, AGG0, 1, 0, 110);         /* the other input: allowed */
    assert_null(first_of(check_finish(f.cs), CHECK_I5));
    fed_free(&f);
    f = feed_of(PIPE_ALIGNED);
    step(&f, PIPE_EV_BARRIER, AGG0, 0, 1, 100);
    step(&f, PIPE_EV_CONSUME, AGG0, 1, 0, 110);
    step(&f, PIPE_EV_CONSUME, AGG0, 0, 0, 120);         /* the blocked one */
    step(&f, PIPE_EV_TRIGGER, AGG0, 0, 1, 130);
    step(&f, PIPE_EV_CONSUME, AGG0, 0, 0, 140);         /* unblocked by the trigger */
    const check_report *r = check_finish(f.cs);
    const check_violation *v = first_of(r, CHECK_I5);
    assert_non_null(v);
    assert_int_equal(r->violations[CHECK_I5], 1);
    assert_int_equal(v->task, AGG0);
    assert_int_equal(v->ckpt, 1);
    assert_int_equal(v->at_ns, 120);
    fed_free(&f);
    /* Unaligned mode blocks nothing. */
    f = feed_of(PIPE_UNALIGNED);
    step(&f, PIPE_EV_BARRIER, AGG0, 0, 1, 100);
    step(&f, PIPE_EV_CONSUME, AGG0, 0, 0, 120);
    assert_null(first_of(check_finish(f.cs), CHECK_I5));
    fed_free(&f);
}

static void test_safety_flags_barriers_that_do_not_increase_on_a_channel(void **state) {
    (void)state;
    fed f = feed_of(PIPE_AT_LEAST_ONCE);
    step(&f, PIPE_EV_BARRIER, AGG0, 0, 2, 100);
    step(&f, PIPE_EV_BARRIER, AGG0, 1, 1, 105);         /* another channel: its own order */
    step(&f, PIPE_EV_BARRIER, AGG0, 0, 2, 110);
    const check_report *r = check_finish(f.cs);
    assert_int_equal(r->violations[CHECK_I5], 1);
    assert_int_equal(first_of(r, CHECK_I5)->at_ns, 110);
    fed_free(&f);
}

static void test_safety_flags_an_ack_before_the_channel_state_is_durable(void **state) {
    (void)state;
    fed f = feed_of(PIPE_UNALIGNED);
    uint32_t map0 = 2;
    write_step(&f, PIPE_EV_CHANNEL_STATE, map0, 1, PIPE_WRITE_CHANNELS, true);
    write_step(&f, PIPE_EV_WRITE, map0, 1, PIPE_WRITE_CHANNELS, true);
    write_step(&f, PIPE_EV_ACK, map0, 1, PIPE_WRITE_KEYED, true);        /* the write is still in flight */
    write_step(&f, PIPE_EV_CHANNEL_STATE, map0, 2, PIPE_WRITE_CHANNELS, true);
    write_step(&f, PIPE_EV_ACK, map0, 2, PIPE_WRITE_KEYED, true);        /* never written */
    write_step(&f, PIPE_EV_CHANNEL_STATE, map0, 3, PIPE_WRITE_CHANNELS, true);
    write_step(&f, PIPE_EV_WRITE, map0, 3, PIPE_WRITE_CHANNELS, true);
    write_step(&f, PIPE_EV_WRITE_DONE, map0, 3, PIPE_WRITE_CHANNELS, true);
    write_step(&f, PIPE_EV_ACK, map0, 3, PIPE_WRITE_KEYED, true);        /* fine */
    write_step(&f, PIPE_EV_ACK, AGG0, 3, PIPE_WRITE_KEYED, true);        /* a stateful task without its keyed state */
    const check_report *r = check_finish(f.cs);
    assert_int_equal(r->violations[CHECK_I5], 3);
    assert_int_equal(r->kept[0].ckpt, 1);
    assert_int_equal(r->kept[1].ckpt, 2);
    assert_int_equal(r->kept[2].task, AGG0);
    fed_free(&f);
}

/* Snapshots a task dropped (aborted, subsumed) leave the checker's table:
 * however many came and went, the live one keeps its record, so its
 * acknowledgement after its keyed state is durable is no violation. */
static void test_safety_forgets_dropped_snapshots_so_a_live_one_keeps_its_writes(void **state) {
    (void)state;
    fed f = feed_of(PIPE_ALIGNED);
    write_step(&f, PIPE_EV_WRITE, AGG0, 1, PIPE_WRITE_KEYED, true);    /* the live one: its write begins */
    for (uint64_t n = 2; n < 40; n++) {                                /* many begun and dropped meanwhile */
        write_step(&f, PIPE_EV_WRITE, AGG0, n, PIPE_WRITE_KEYED, true);
        write_step(&f, PIPE_EV_SNAPSHOT_DROPPED, AGG0, n, PIPE_WRITE_KEYED, true);
    }
    write_step(&f, PIPE_EV_WRITE_DONE, AGG0, 1, PIPE_WRITE_KEYED, true);
    write_step(&f, PIPE_EV_ACK, AGG0, 1, PIPE_WRITE_KEYED, true);
    assert_null(first_of(check_finish(f.cs), CHECK_I5));
    fed_free(&f);
}

static void test_safety_flags_a_completion_without_every_ack_and_a_commit_before_completion(void **state) {
    (void)state;
    fed f = feed_of(PIPE_ALIGNED);
    step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10);
    for (uint32_t t = 0; t < 7; t++) write_step(&f, PIPE_EV_ACK, t, 1, PIPE_WRITE_KEYED, true);   /* not the last sink */
    step(&f, PIPE_EV_SINK_COMMIT, 6, 0, 1, 20);         /* before the completion */
    step(&f, PIPE_EV_CKPT_COMPLETE, PIPE_NO_TASK, 0, 1, 30);
    step(&f, PIPE_EV_SINK_COMMIT, 7, 0, 1, 40);         /* after it: fine */
    const check_report *r = check_finish(f.cs);
    assert_true(r->violations[CHECK_I5] >= 2);
    bool commit = false, acks = false;
    for (uint32_t i = 0; i < r->kept_count; i++) {
        commit |= r->kept[i].task == 6 && r->kept[i].at_ns == 20;
        acks |= r->kept[i].task == 7 && r->kept[i].at_ns == 30;
    }
    assert_true(commit && acks);
    fed_free(&f);
}

/* A failure report fails the attempt it names only: the coordinator at
 * attempt 3 that fails the job on a report of attempt 2 (a zombie's, or
 * one sent before the restart) breaks I5; on a report of attempt 3 it is
 * right. */
static void test_safety_rejects_a_failure_on_a_report_of_another_attempt(void **state) {
    (void)state;
    for (uint32_t named = 2; named <= 3; named++) {
        fed f = feed_of(PIPE_ALIGNED);
        pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .at_ns = SIM_NS_PER_MS, .task = PIPE_NO_TASK,
                         .cause = PIPE_FAIL_REPORTED, .chan = PIPE_NO_CHAN, .culprit = 1, .epoch = 3, .count = named,
                         .word_a = 3 };
        check_feed(f.cs, &e);
        const check_violation *v = first_of(check_finish(f.cs), CHECK_I5);
        if (named == 3) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_non_null(strstr(v->what, "failed attempt 3 of source[1] on a failure report of its attempt 2"));
        }
        fed_free(&f);
    }
}

/* The restart strategy as Flink defines it (fixed delay: 10 attempts,
 * 5 ms apart): a restart sooner than the delay is a
 * violation; so is a job still running after the failure the strategy
 * gives up on (the 11th); a failover starts the count again. */
static void test_safety_holds_the_restart_strategy_to_its_delay_and_its_give_up(void **state) {
    (void)state;
    fed f = feed_of(PIPE_ALIGNED);
    const pipe_restart_cfg *rs = &pipe_config(f.p)->restart;
    assert_int_equal(rs->kind, PIPE_RESTART_FIXED_DELAY);
    assert_int_equal(rs->attempts, 10);
    sim_time_ns t = SIM_NS_PER_MS, delay = rs->delay_ns;
    step(&f, PIPE_EV_JOB_FAILED, PIPE_NO_TASK, 0, 0, t);
    step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0, t + delay / 2);   /* too soon */
    const check_report *r = check_finish(f.cs);
    const check_violation *v = first_of(r, CHECK_I5);
    assert_non_null(v);
    assert_non_null(strstr(v->what, "sooner than the restart strategy's delay of 5.000ms"));
    fed_free(&f);

    f = feed_of(PIPE_ALIGNED);
    for (uint32_t i = 0; i < 4; i++, t += 2 * delay) {   /* a failover in the middle: a fresh count */
        step(&f, PIPE_EV_JOB_FAILED, PIPE_NO_TASK, 0, 0, t);
        step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0, t + delay);
    }
    step(&f, PIPE_EV_COORD_FAILOVER, PIPE_NO_TASK, 0, 0, t);
    for (uint32_t i = 0; i < 10; i++, t += 2 * delay) {
        step(&f, PIPE_EV_JOB_FAILED, PIPE_NO_TASK, 0, 0, t);
        step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0, t + delay);
    }
    assert_int_equal(check_finish(f.cs)->violations[CHECK_I5], 0);   /* 10 since the failover: all allowed */
    fed_free(&f);

    f = feed_of(PIPE_ALIGNED);
    for (uint32_t i = 0; i < 11; i++, t += 2 * delay) {
        step(&f, PIPE_EV_JOB_FAILED, PIPE_NO_TASK, 0, 0, t);
        if (i < 10) step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0, t + delay);
    }
    r = check_finish(f.cs);                          /* never run: still running, not failed */
    v = first_of(r, CHECK_I5);
    assert_non_null(v);
    assert_non_null(strstr(v->what, "the restart strategy gives up at the failure at"));
    assert_non_null(strstr(v->what, "yet the job did not fail (running)"));
    fed_free(&f);
}

/* A failure as the coordinator reports it: whether it restarts, and when. */
static void failed_step(fed *f, sim_time_ns at_ns, bool restart, sim_time_ns due_ns) {
    pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .at_ns = at_ns, .task = PIPE_NO_TASK, .chan = PIPE_NO_CHAN,
                     .culprit = PIPE_NO_TASK, .ok = restart, .due_ns = due_ns };
    check_feed(f->cs, &e);
}

/* Each failure's restart has its own delay (DefaultScheduler's
 * restartTasksWithDelay, one per failure): with region failover and a
 * fixed 5 ms delay, source[0]'s region failing at 1 ms restarts at 6 ms,
 * though source[1]'s failed at 3 ms; the second region restarting at
 * 7 ms is too soon; and no checkpoint is triggered until both run again
 * (the job is RESTARTING while one region waits). */
static void test_safety_holds_each_region_to_its_own_failures_delay(void **state) {
    (void)state;
    pipe_cfg c = job_of(3, PIPE_ALIGNED);
    c.faults_count = 0;
    c.graph = (job){ 0 };
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 2 }, .into = { 0, JOB_FORWARD, JOB_FORWARD, JOB_FORWARD },
                                          .cost_ns = { 1000, 1000, 1000, 1000 } });
    c.restart.failover = PIPE_FAILOVER_REGION;
    c.ckpt.min_pause_ns = 0;
    fed f = feed_cfg(&c);
    uint32_t region[8];
    assert_int_equal(job_regions(pipe_job(f.p), region), 2);
    const sim_time_ns ms = SIM_NS_PER_MS;
    for (uint32_t culprit = 0; culprit < 2; culprit++) {
        pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .at_ns = (1 + 2 * culprit) * ms, .task = PIPE_NO_TASK,
                         .chan = PIPE_NO_CHAN, .culprit = culprit, .ok = true, .due_ns = (6 + 2 * culprit) * ms };
        check_feed(f.cs, &e);
    }
    step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, region[0] + 1, 0, 6 * ms);   /* its own delay: fine */
    step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 6 * ms + ms / 2);         /* source[1]'s region waits */
    step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, region[1] + 1, 0, 7 * ms);   /* 1 ms too soon */
    const check_report *r = check_finish(f.cs);
    assert_int_equal(r->violations[CHECK_I5], 2);
    assert_non_null(strstr(r->kept[0].what, "checkpoint 1 was triggered while the job restarted"));
    char want[96];
    snprintf(want, sizeof want, "region %u restarted 4.000ms after the failure at t=3.000ms, sooner", region[1]);
    assert_non_null(strstr(r->kept[1].what, want));
    fed_free(&f);
}

/* Failure rate 2 per 100 ms (FLINK-20752: the window is closed at its far
 * end): failures at 0, 50 and 100 ms give up at the third, so a
 * coordinator that restarts it breaks I5; at 101 ms it restarts. */
static void test_safety_holds_the_failure_rate_window_closed_at_its_far_end(void **state) {
    (void)state;
    for (sim_time_ns third = 100; third <= 101; third++) {
        pipe_cfg c = job_of(3, PIPE_ALIGNED);
        c.faults_count = 0;
        c.restart = (pipe_restart_cfg){ .kind = PIPE_RESTART_FAILURE_RATE, .max_failures = 2,
                                        .interval_ns = 100 * SIM_NS_PER_MS, .delay_ns = SIM_NS_PER_MS };
        fed f = feed_cfg(&c);
        const sim_time_ns at[] = { 0, 50 * SIM_NS_PER_MS, third * SIM_NS_PER_MS };
        for (int i = 0; i < 3; i++) {
            failed_step(&f, at[i], true, at[i] + SIM_NS_PER_MS);
            step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0, at[i] + SIM_NS_PER_MS);
        }
        const check_violation *v = first_of(check_finish(f.cs), CHECK_I5);
        if (third == 101) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_non_null(strstr(v->what, "where the restart strategy gives up"));
        }
        fed_free(&f);
    }
}

/* Exponential delay, initial 10 ms, jitter 0.1 (FLIP-364): a first
 * restart 9 to 11 ms after the failure is one the jitter gives (the
 * clamp to [initial, max] takes 9 to 10); 12 ms is none, a violation. */
static void test_safety_holds_an_exponential_restart_within_its_jitter(void **state) {
    (void)state;
    const sim_time_ns after[] = { 10, 11, 12 };
    for (int i = 0; i < 3; i++) {
        pipe_cfg c = job_of(3, PIPE_ALIGNED);
        c.faults_count = 0;
        c.restart = (pipe_restart_cfg){ .kind = PIPE_RESTART_EXPONENTIAL, .initial_ns = 10 * SIM_NS_PER_MS,
                                        .max_ns = SIM_NS_PER_S, .multiplier_milli = 1500, .reset_ns = SIM_NS_PER_S,
                                        .jitter_milli = 100, .attempts_before_reset = RS_UNLIMITED };
        fed f = feed_cfg(&c);
        failed_step(&f, SIM_NS_PER_MS, true, SIM_NS_PER_MS + after[i] * SIM_NS_PER_MS);
        const check_violation *v = first_of(check_finish(f.cs), CHECK_I5);
        if (after[i] <= 11) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_non_null(strstr(v->what, "12.000ms later, where the restart strategy gives 11.000ms"));
        }
        fed_free(&f);
    }
}

/* A checkpoint's end as the coordinator reports it, with Flink's reason. */
static void ended_step(fed *f, pipe_ev_kind kind, uint64_t ckpt, uint32_t why, sim_time_ns at_ns) {
    pipe_event e = { .kind = kind, .at_ns = at_ns, .task = PIPE_NO_TASK, .chan = PIPE_NO_CHAN, .ckpt = ckpt,
                     .end = kind == PIPE_EV_CKPT_COMPLETE ? PIPE_CKPT_COMPLETED : PIPE_CKPT_DECLINED, .count = why };
    check_feed(f->cs, &e);
}

/* The coordinator's rules (check/trigger.c): one checkpoint at a time and
 * a minimum pause of 5 ms; a second trigger while one is pending, or one
 * 2 ms after a completion, breaks I5. */
static void test_safety_holds_triggers_to_max_concurrent_and_the_min_pause(void **state) {
    (void)state;
    for (int bad = 0; bad < 3; bad++) {
        pipe_cfg c = job_of(3, PIPE_ALIGNED);
        c.faults_count = 0;
        c.ckpt.min_pause_ns = 5 * SIM_NS_PER_MS;
        fed f = feed_cfg(&c);
        step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10 * SIM_NS_PER_MS);
        if (bad == 1) step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 2, 11 * SIM_NS_PER_MS);   /* 2 pending */
        ended_step(&f, PIPE_EV_CKPT_COMPLETE, 1, 0, 12 * SIM_NS_PER_MS);
        step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 3, (bad == 2 ? 14 : 17) * SIM_NS_PER_MS);
        const check_report *r = check_finish(f.cs);     /* the other checks flag the missing acks: not these */
        uint32_t hits = 0;
        for (uint32_t i = 0; i < r->kept_count; i++) {
            hits += strstr(r->kept[i].what, bad == 2 ? "inside the minimum pause of 5.000ms"
                                                     : "triggered with 1 pending, max-concurrent 1") != NULL;
        }
        assert_int_equal(hits, bad == 0 ? 0 : bad == 1 ? 2 : 1);   /* 1: checkpoint 2 stays pending under 3 too */
        fed_free(&f);
    }
}

/* CheckpointFailureManager, tolerable 0: a declined checkpoint (counted)
 * must fail the job over at once; a barrier's abort (not counted) must
 * not. */
static void test_safety_holds_job_failures_to_flinks_failure_count(void **state) {
    (void)state;
    for (int c_ = 0; c_ < 3; c_++) {
        fed f = feed_of(PIPE_ALIGNED);
        step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10 * SIM_NS_PER_MS);
        ended_step(&f, PIPE_EV_CKPT_ABORT, 1, c_ == 2 ? CKR_DECLINED_BY_BARRIERS : CKR_DECLINED, 11 * SIM_NS_PER_MS);
        if (c_ != 1) {
            pipe_event e = { .kind = PIPE_EV_JOB_FAILED, .at_ns = 11 * SIM_NS_PER_MS, .task = PIPE_NO_TASK,
                             .chan = PIPE_NO_CHAN, .cause = PIPE_FAIL_CHECKPOINTS, .culprit = PIPE_NO_TASK,
                             .ok = true, .due_ns = 16 * SIM_NS_PER_MS };
            check_feed(f.cs, &e);
        }
        step(&f, PIPE_EV_JOB_RESTARTED, PIPE_NO_TASK, 0, 0, 16 * SIM_NS_PER_MS);
        const check_violation *v = first_of(check_finish(f.cs), CHECK_I5);
        if (c_ == 0) assert_null(v);
        if (c_ == 1) assert_non_null(strstr(v->what, "yet the job did not fail over"));
        if (c_ == 2) assert_non_null(strstr(v->what, "CheckpointFailureManager counts 0 in a row against 0 tolerable"));
        fed_free(&f);
    }
}

/* A failed metadata write aborts its checkpoint at once: completing it
 * anyway, or aborting it only later (at the timeout), is a violation. */
static void test_safety_flags_a_checkpoint_kept_after_its_metadata_write_failed(void **state) {
    (void)state;
    pipe_cfg c = job_of(3, PIPE_ALIGNED);
    c.faults_count = 0;
    c.ckpt.max_concurrent = 3;                       /* the three are pending at once */
    fed f = feed_cfg(&c);
    for (uint64_t ckpt = 1; ckpt <= 3; ckpt++) {
        step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, ckpt, ckpt * 100);
        for (uint32_t t = 0; t < 8; t++) write_step(&f, PIPE_EV_ACK, t, ckpt, PIPE_WRITE_KEYED, true);
        pipe_event m = { .kind = PIPE_EV_METADATA, .at_ns = ckpt * 100 + 10, .task = PIPE_NO_TASK, .ckpt = ckpt,
                         .chan = PIPE_NO_CHAN, .ok = ckpt == 3 };
        check_feed(f.cs, &m);
    }
    step(&f, PIPE_EV_CKPT_ABORT, PIPE_NO_TASK, PIPE_CKPT_DECLINED, 1, 110);   /* at once: fine */
    step(&f, PIPE_EV_CKPT_ABORT, PIPE_NO_TASK, PIPE_CKPT_TIMED_OUT, 2, 900);  /* only at its timeout */
    step(&f, PIPE_EV_CKPT_COMPLETE, PIPE_NO_TASK, 0, 3, 310);                /* its write succeeded: fine */
    const check_report *r = check_finish(f.cs);
    uint32_t metadata = 0;                           /* the acks without snapshot steps are flagged too: not these */
    bool late = false;
    for (uint32_t i = 0; i < r->kept_count; i++) {
        if (strstr(r->kept[i].what, "metadata") == NULL) continue;
        metadata++;
        late |= r->kept[i].ckpt == 2 || strstr(r->kept[i].what, "checkpoint 2 aborted only at t=0.001ms") != NULL;
    }
    assert_int_equal(metadata, 1);
    assert_true(late);
    fed_free(&f);
}

/* FLINK-22494 as absim reads it: checkpoint 3's metadata write ended
 * ambiguously (the coordinator aborted it, the HA store has it). A sink
 * that rolled back to checkpoint 1 and then restores 3 from the store
 * after a coordinator failover has lost 3's transactions: I4 is not
 * promised then, and says why; without the rollback it is. The restore of
 * 3 after the failover is of a checkpoint the store holds (no I5); the
 * same restore by the coordinator that aborted it is not. */
static void test_output_and_safety_follow_an_ambiguous_checkpoint_into_the_store(void **state) {
    (void)state;
    const uint32_t out0 = 6;
    for (int rollback = 0; rollback <= 1; rollback++) {
        for (int failover = 0; failover <= 1; failover++) {
            pipe_cfg c = job_of(3, PIPE_ALIGNED);
            c.faults_count = 0;
            c.graph.vertices[3].sink = JOB_SINK_2PC;
            c.state.backend = PIPE_BACKEND_DURABLE;
            fed f = feed_cfg(&c);
            step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 100);
            step(&f, PIPE_EV_CKPT_COMPLETE, PIPE_NO_TASK, 0, 1, 200);
            pipe_event m = { .kind = PIPE_EV_METADATA, .at_ns = 300, .task = PIPE_NO_TASK, .ckpt = 3, .chan = PIPE_NO_CHAN,
                             .ok = true, .ambiguous = true };
            check_feed(f.cs, &m);
            pipe_event back = { .kind = PIPE_EV_RESTORE, .at_ns = 400, .task = out0, .ckpt = 1, .epoch = 1, .chan = PIPE_NO_CHAN,
                                .ok = true };
            if (rollback) check_feed(f.cs, &back);
            if (failover) step(&f, PIPE_EV_COORD_FAILOVER, PIPE_NO_TASK, 0, 0, 500);
            pipe_event again = { .kind = PIPE_EV_RESTORE, .at_ns = 600, .task = out0, .ckpt = 3, .epoch = 2,
                                 .chan = PIPE_NO_CHAN, .ok = true };
            check_feed(f.cs, &again);
            const check_report *r = check_finish(f.cs);
            assert_int_equal(r->applies[CHECK_I4], !rollback);
            if (rollback) assert_non_null(strstr(r->verdict_note[CHECK_I4], "FLINK-22494"));
            bool not_retained = false;
            for (uint32_t i = 0; i < r->kept_count; i++) {
                not_retained |= strstr(r->kept[i].what, "restored checkpoint 3, which is not a retained") != NULL;
            }
            assert_int_equal(not_retained, !failover);
            fed_free(&f);
        }
    }
}

/* A stalled checkpoint: the run stops at a bound with checkpoint 1 waiting
 * for agg[0], which blocks an input; I6 names both. */
static void test_liveness_names_the_stalled_checkpoint_and_what_it_waits_for(void **state) {
    (void)state;
    fed f = feed_of(PIPE_ALIGNED);
    step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10);
    for (uint32_t t = 0; t < 8; t++) {
        if (t != AGG0) write_step(&f, PIPE_EV_ACK, t, 1, PIPE_WRITE_KEYED, true);
    }
    pipe_event e = { .kind = PIPE_EV_BARRIER, .at_ns = 20, .task = AGG0, .input = 0, .ckpt = 1, .blocked = 1,
                     .chan = pipe_job(f.p)->in_chan[pipe_job(f.p)->tasks[AGG0].in_first] };
    check_feed(f.cs, &e);
    const check_report *r = check_finish(f.cs);     /* never run: the job is still running */
    const check_violation *v = first_of(r, CHECK_I6);
    assert_non_null(v);
    assert_int_equal(v->ckpt, 1);
    assert_non_null(strstr(v->what, "checkpoint 1 pending"));
    assert_non_null(strstr(v->what, "agg[0] (blocks 1 inputs)"));
    assert_null(strstr(v->what, "map[0]"));
    fed_free(&f);
}

/* A checkpoint every task acknowledged, still pending when the run
 * stops (the coordinator had not completed it yet): I6 says no task
 * holds it, not an empty list. */
static void test_liveness_says_when_no_task_holds_the_pending_checkpoint(void **state) {
    (void)state;
    fed f = feed_of(PIPE_ALIGNED);
    step(&f, PIPE_EV_CKPT_START, PIPE_NO_TASK, 0, 1, 10);
    for (uint32_t t = 0; t < 8; t++) write_step(&f, PIPE_EV_ACK, t, 1, PIPE_WRITE_KEYED, true);
    const check_report *r = check_finish(f.cs);
    const check_violation *v = first_of(r, CHECK_I6);
    assert_non_null(v);
    assert_non_null(strstr(v->what, "checkpoint 1 pending since 0.000ms waits for the acknowledgement of no task "
                                    "(every one acknowledged it or finished); none completed"));
    fed_free(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_completed_checkpoint_is_the_state_of_its_source_prefixes),
        cmocka_unit_test(test_wrong_offsets_partial_acks_and_leaking_updates_break_the_cut),
        cmocka_unit_test(test_the_tasks_compute_what_the_specification_folds_under_crashes),
        cmocka_unit_test(test_the_specification_folds_maps_filters_and_broadcasts),
        cmocka_unit_test(test_the_flattened_fold_equals_the_walk_over_random_graphs),
        cmocka_unit_test(test_the_specification_of_a_two_source_join_folds_each_topic_into_its_input),
        cmocka_unit_test(test_a_two_source_join_holds_under_a_crash_and_a_join_dropping_an_input_is_caught),
        cmocka_unit_test(test_a_switch_to_unaligned_before_the_alignment_timeout_breaks_safety),
        cmocka_unit_test(test_a_task_whose_inputs_timed_out_triggers_unaligned_at_once),
        cmocka_unit_test(test_safety_flags_a_record_consumed_from_a_blocked_input),
        cmocka_unit_test(test_safety_holds_the_restart_strategy_to_its_delay_and_its_give_up),
        cmocka_unit_test(test_safety_holds_the_failure_rate_window_closed_at_its_far_end),
        cmocka_unit_test(test_safety_holds_each_region_to_its_own_failures_delay),
        cmocka_unit_test(test_safety_holds_an_exponential_restart_within_its_jitter),
        cmocka_unit_test(test_safety_holds_triggers_to_max_concurrent_and_the_min_pause),
        cmocka_unit_test(test_safety_holds_job_failures_to_flinks_failure_count),
        cmocka_unit_test(test_safety_rejects_a_failure_on_a_report_of_another_attempt),
        cmocka_unit_test(test_safety_flags_a_checkpoint_kept_after_its_metadata_write_failed),
        cmocka_unit_test(test_output_and_safety_follow_an_ambiguous_checkpoint_into_the_store),
        cmocka_unit_test(test_safety_flags_barriers_that_do_not_increase_on_a_channel),
        cmocka_unit_test(test_safety_flags_an_ack_before_the_channel_state_is_durable),
        cmocka_unit_test(test_safety_forgets_dropped_snapshots_so_a_live_one_keeps_its_writes),
        cmocka_unit_test(test_safety_flags_a_completion_without_every_ack_and_a_commit_before_completion),
        cmocka_unit_test(test_liveness_names_the_stalled_checkpoint_and_what_it_waits_for),
        cmocka_unit_test(test_liveness_says_when_no_task_holds_the_pending_checkpoint),
        cmocka_unit_test(test_the_specification_folds_a_record_into_every_window_holding_its_event_time),
        cmocka_unit_test(test_windows_under_a_crash_fire_once_and_wrong_watermarks_or_lost_timers_are_caught),
        cmocka_unit_test(test_at_least_once_windows_may_fire_again_lower_and_a_firing_short_of_its_sum_is_caught),
    };
    return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
