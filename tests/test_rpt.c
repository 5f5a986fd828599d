/* tests/test_rpt.c: the protocol trace and the checkpoint picture
 * (reports/rpt.c, reports/dot.c) say what the run did: acknowledgements
 * counted or lost, finished tasks, restarts and the checkpoint they
 * restore, the buffers an alignment held back, transactions resolved on
 * restore; and the picture fits columns about a screen wide. */
#include "harness.h"

#include <inttypes.h>
#include <stdlib.h>

#include "../reports/rpt.h"
#include "../scenarios/inject.h"

static pipe_cfg small_job(uint32_t partitions, uint64_t records) {
    pipe_cfg c = pipe_cfg_default(3);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 1 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.broker.partitions = partitions;
    c.broker.records_per_partition = records;   /* 5000: about 37 ms */
    c.broker.keys = 100;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    return c;
}

/* What the run did, counted from the steps themselves, beside the recorder. */
typedef struct counting {
    rpt_recorder rec;
    pipeline    *p;
    uint64_t     steps, triggers, completes, restarts, restored[8];
    uint64_t     acks_sent[RPT_CKPTS_MAX + 1], acks_arrived[RPT_CKPTS_MAX + 1];   /* by checkpoint */
    uint64_t     txn_restore, txn_wrong;   /* resolved on restore; against the restored checkpoint */
    uint64_t     restoring;                /* the checkpoint the last restart restores */
    uint64_t     released;
} counting;

static void count_and_record(void *ctx, const pipe_event *e) {
    counting *k = ctx;
    k->steps += e->kind != PIPE_EV_CONSUME;          /* one per buffer: the trace leaves those out */
    k->triggers += e->kind == PIPE_EV_TRIGGER;
    k->completes += e->kind == PIPE_EV_CKPT_COMPLETE;
    bool drawn = e->ckpt >= 1 && e->ckpt <= RPT_CKPTS_MAX;
    if (e->kind == PIPE_EV_ACK && drawn) k->acks_sent[e->ckpt]++;
    if (e->kind == PIPE_EV_ACK_RECEIVED && drawn && e->receipt != PIPE_RCV_FOR_FINISHED) k->acks_arrived[e->ckpt]++;
    if (e->kind == PIPE_EV_JOB_RESTARTED) {
        k->restoring = pipe_restore_ckpt(k->p);       /* what the tasks are deployed from */
        if (k->restarts < 8) k->restored[k->restarts] = k->restoring;
        k->restarts++;
    }
    if (e->kind == PIPE_EV_TXN && e->txn_why == PIPE_TXN_RESTORE) {   /* commit <= restored < abort (0: open) */
        k->txn_restore++;
        bool right = e->ok ? e->ckpt != 0 && e->ckpt <= k->restoring : e->ckpt == 0 || e->ckpt > k->restoring;
        k->txn_wrong += !right;
    }
    k->released += e->released;
    rpt_observe(&k->rec, e);
}

/* One run with its trace and picture in memory. */
typedef struct shot {
    counting k;
    char    *trace, *dot;
    size_t   trace_len, dot_len;
} shot;

static void draw(shot *s, const char *title) {
    FILE *dot = open_memstream(&s->dot, &s->dot_len);
    assert_non_null(dot);
    rpt_write_dot(&s->k.rec, dot, title);
    fclose(dot);
}

/* Runs p (faults armed by the caller, or a scenario's by arm) into s. */
static void shoot(pipeline *p, shot *s, uint64_t only, const scn *file) {
    memset(s, 0, sizeof *s);
    s->k.p = p;
    FILE *trace = open_memstream(&s->trace, &s->trace_len);
    assert_non_null(trace);
    assert_true(rpt_init(&s->k.rec, p, trace, true));
    if (only != 0) rpt_keep_only(&s->k.rec, only);
    static scn_armed arm;
    if (file != NULL) scn_arm_faults(file, p, &arm, count_and_record, &s->k);
    else pipe_observe(p, count_and_record, &s->k);
    pipe_run(p);
    fclose(trace);
    draw(s, "test");
}

static void unshoot(shot *s) {
    rpt_free(&s->k.rec);
    free(s->trace);
    free(s->dot);
}

/* dot's layout of text: its height (and, with width, its width) in
 * inches (the first line of -Tplain), and whether dot said nothing on
 * stderr. */
static double dot_size(const char *text, bool *quiet, double *width_out) {
    char path[] = "/tmp/absim-test-rpt-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "dot -Tplain %s 2>%s.err | head -1 > %s.out", path, path, path);
    assert_int_equal(system(cmd), 0);
    char name[300], line[200] = "";
    snprintf(name, sizeof name, "%s.err", path);
    FILE *e = fopen(name, "r");
    assert_non_null(e);
    *quiet = fgetc(e) == EOF;
    fclose(e);
    remove(name);
    snprintf(name, sizeof name, "%s.out", path);
    FILE *o = fopen(name, "r");
    assert_non_null(o);
    assert_non_null(fgets(line, sizeof line, o));
    fclose(o);
    remove(name);
    remove(path);
    double scale = 0, width = 0, height = 0;
    assert_int_equal(sscanf(line, "graph %lf %lf %lf", &scale, &width, &height), 3);
    if (width_out != NULL) *width_out = width;
    return height;
}

static double dot_height(const char *text, bool *quiet) { return dot_size(text, quiet, NULL); }

static pipeline *create(const pipe_cfg *c) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("%s", err);
    return p;
}

static void test_trace_has_one_json_line_per_protocol_step_and_the_picture_one_cluster_per_checkpoint(void **state) {
    (void)state;
    pipe_cfg c = small_job(4, 5000);
    pipeline *p = create(&c);
    shot s;
    shoot(p, &s, 0, NULL);
    const pipe_stats *st = pipe_get_stats(p);
    uint32_t tasks = pipe_job(p)->tasks_count;
    assert_true(st->completed >= 3 && st->triggered <= RPT_CKPTS_MAX);
    /* The trace: a line per step (data buffers consumed aside), each a JSON object; triggers and
     * completions as many as the run had; every acknowledgement sent arrived and was counted. */
    assert_int_equal(count_of(s.trace, "\n"), s.k.steps);
    assert_int_equal(count_of(s.trace, "{\"t_ns\":"), s.k.steps);
    assert_int_equal(count_of(s.trace, "\"step\":\"trigger\""), s.k.triggers);
    assert_int_equal(count_of(s.trace, "\"step\":\"checkpoint-complete\""), st->completed);
    assert_int_equal(count_of(s.trace, "\"step\":\"ack\""), count_of(s.trace, "\"outcome\":\"counted\""));
    /* The picture: a cluster per triggered checkpoint; in each completed one every task's
     * acknowledgement was counted (or made up for a finished task); nothing lost. */
    assert_int_equal(count_of(s.dot, "subgraph cluster_c"), st->triggered);
    uint64_t counted = count_of(s.dot, "[style=dashed, color=darkgreen]");
    uint64_t for_finished = count_of(s.dot, "[style=dotted, color=gray50]");
    assert_true(counted + for_finished >= st->completed * tasks);
    assert_int_equal(count_of(s.dot, "label=\"lost\""), 0);
    assert_non_null(strstr(s.dot, "checkpoint 1, attempt 0\\ncompleted after"));
    assert_int_equal(s.k.completes, st->completed);
    bool quiet = false;
    assert_true(dot_height(s.dot, &quiet) > 0);   /* Graphviz (tests/deps.sh) reads it, without a word */
    assert_true(quiet);
    unshoot(&s);
    pipe_destroy(p);
}

static void test_an_acknowledgement_that_never_arrived_is_drawn_lost_and_no_other(void **state) {
    (void)state;
    pipe_cfg c = small_job(4, 15000);
    c.ckpt.timeout_ns = 15 * SIM_NS_PER_MS;
    c.ckpt.max_concurrent = 3;                      /* triggers go on while the ones without the sink's ack wait */
    c.ckpt.tolerable_failures = 100;
    pipeline *p = create(&c);
    uint32_t sink = pipe_job(p)->tasks_count - 1;   /* its acknowledgements are lost from 20 to 40 ms */
    fault_add(pipe_sim(p), &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 20 * SIM_NS_PER_MS,
                                          .duration_ns = 20 * SIM_NS_PER_MS, .ratio = SIM_RATIO_ALWAYS,
                                          .target = pipe_task_rpc_link(p, sink) });
    shot s;
    shoot(p, &s, 0, NULL);
    uint64_t lost = 0;
    for (uint32_t i = 1; i <= RPT_CKPTS_MAX; i++) lost += s.k.acks_sent[i] - s.k.acks_arrived[i];
    assert_true(lost >= 2);                         /* the window spans two checkpoints at least */
    assert_int_equal(count_of(s.dot, "label=\"lost\""), lost);
    char cross[64];                                 /* each lost one is the sink's, ending in its cross */
    uint64_t crosses = 0;
    for (uint32_t i = 1; i <= RPT_CKPTS_MAX; i++) {
        snprintf(cross, sizeof cross, "c%u_t%u -> c%u_x%u [", i, sink, i, sink);
        crosses += count_of(s.dot, cross);
    }
    assert_int_equal(crosses, lost);
    /* The trace: each ack sent, and a receipt for each one that arrived. */
    assert_int_equal(count_of(s.trace, "\"step\":\"ack\""), count_of(s.trace, "\"step\":\"ack-received\"") -
                     count_of(s.trace, "\"outcome\":\"for-finished-task\"") + lost);
    unshoot(&s);
    pipe_destroy(p);
}

/* The lines of the picture that leave node `from` ("c5_t1 -> "). */
static uint64_t visible_edges_from(const char *dot, const char *from) {
    uint64_t n = 0;
    for (const char *q = strstr(dot, from); q != NULL; q = strstr(q + 1, from)) {
        const char *end = strchr(q, '\n');
        char line[256];
        size_t len = end != NULL ? (size_t)(end - q) : strlen(q);
        snprintf(line, sizeof line, "%.*s", (int)len, q);
        n += strstr(line, "style=invis") == NULL && strstr(line, "style=dotted") == NULL;
    }
    return n;
}

static void test_a_finished_task_is_acknowledged_for_and_drawn_without_trigger_or_barrier_edges(void **state) {
    (void)state;
    pipe_cfg c = small_job(3, 5000);                      /* source[1] reads one partition, source[0] two */
    pipeline *p = create(&c);
    shot s;
    shoot(p, &s, 0, NULL);
    uint32_t clusters = 0;
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) {
        const rpt_ckpt *k = &s.k.rec.ckpts[i];
        if (k->id == 0 || k->tasks[1].ack != RPT_ACK_FOR_FINISHED) continue;
        clusters++;
        char name[64], edge[64];
        snprintf(name, sizeof name, "c%" PRIu64 "_t1 [label=\"source[1]\\nfinished t=", k->id);
        assert_non_null(strstr(s.dot, name));
        snprintf(edge, sizeof edge, "c%" PRIu64 "_start -> c%" PRIu64 "_t1 [color=blue]", k->id, k->id);
        assert_null(strstr(s.dot, edge));           /* no trigger */
        snprintf(edge, sizeof edge, "    c%" PRIu64 "_t1 -> ", k->id);
        assert_int_equal(visible_edges_from(s.dot, edge), 0);   /* no barrier, no acknowledgement of its own */
    }
    assert_true(clusters >= 1);
    unshoot(&s);
    pipe_destroy(p);
}

static void test_a_restart_names_the_checkpoint_it_restores_in_the_trace_and_the_picture(void **state) {
    (void)state;
    pipe_cfg c = small_job(4, 15000);
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .at_ns = 37 * SIM_NS_PER_MS,
                                               .duration_ns = 10 * SIM_NS_PER_MS, .target = 1 };
    pipeline *p = create(&c);
    shot s;
    shoot(p, &s, 0, NULL);
    assert_int_equal(s.k.restarts, 1);
    assert_true(s.k.restored[0] >= 2);
    char want[160];
    snprintf(want, sizeof want, "\"step\":\"job-restarted\",\"task\":\"coordinator\",\"ckpt\":%" PRIu64 ",\"epoch\":1}",
             s.k.restored[0]);
    assert_non_null(strstr(s.trace, want));
    snprintf(want, sizeof want, "attempt 1 deployed, restoring checkpoint %" PRIu64 "\\l", s.k.restored[0]);
    assert_non_null(strstr(s.dot, want));
    assert_non_null(strstr(s.dot, "job failed (connection-lost of "));
    assert_non_null(strstr(s.dot, ", attempt 1\\n"));   /* checkpoints of the new attempt say so */
    unshoot(&s);
    pipe_destroy(p);
}

static void run_file(const char *path, shot *s, uint64_t only, pipeline **out) {
    static scn file;
    char err[SCN_ERR_BYTES];
    if (!scn_load(&file, path, err, sizeof err)) fail_msg("%s", err);
    *out = create(&file.cfg);
    shoot(*out, s, only, &file);
}

static void test_the_barrier_that_ends_an_alignment_says_how_many_buffers_waited_behind_the_blocked_input(void **state) {
    (void)state;
    shot s;
    pipeline *p;
    run_file("scenarios/teach/p3-alignment-blocks-inputs.scn", &s, 0, &p);   /* a slow link: agg[0] aligns long */
    assert_true(s.k.released > 0);
    /* Released buffers are those of inputs the step unblocked: after it nothing is blocked
     * (two inputs), so nothing waits. */
    assert_non_null(strstr(s.trace, "\"blocked\":0,\"waiting\":0,\"released\":4"));
    assert_null(strstr(s.trace, "\"blocked\":1,\"waiting\":0,\"released\":4"));
    assert_non_null(strstr(s.dot, " buffers waited"));
    unshoot(&s);
    pipe_destroy(p);
}

static void test_a_restored_sink_commits_what_its_checkpoint_precommitted_and_aborts_the_rest_in_the_trace(void **state) {
    (void)state;
    shot s;
    pipeline *p;
    run_file("scenarios/teach/p10a-two-phase-commit.scn", &s, 0, &p);   /* crashes of the sinks at the worst moments */
    assert_true(s.k.restarts >= 1 && s.k.txn_restore >= 2);
    assert_int_equal(s.k.txn_wrong, 0);
    assert_int_equal(count_of(s.trace, "\"on\":\"restore\""), s.k.txn_restore);
    assert_true(count_of(s.trace, "\"outcome\":\"committed\",\"records\"") > 0);
    assert_true(count_of(s.trace, "\"outcome\":\"aborted\",\"records\"") > 0);
    unshoot(&s);
    pipe_destroy(p);
}

static void test_dot_checkpoint_draws_that_checkpoint_alone_and_the_whole_run_fits_columns_a_screen_wide(void **state) {
    (void)state;
    shot all, one;
    pipeline *p, *q;
    run_file("scenarios/teach/p9-recovery.scn", &all, 0, &p);
    run_file("scenarios/teach/p9-recovery.scn", &one, 4, &q);
    assert_int_equal(count_of(one.dot, "subgraph cluster_c"), 1);
    assert_non_null(strstr(one.dot, "subgraph cluster_c4 {"));
    assert_non_null(strstr(one.dot, "checkpoint 4 of the "));
    /* The whole run: every checkpoint, in columns about a screen wide and a few screens tall,
     * read down the first column first (legend, checkpoint 1, 2, ... in the order written). */
    bool quiet_all = false, quiet_one = false;
    double w_all = 0, w_one = 0;
    double h_all = dot_size(all.dot, &quiet_all, &w_all), h_one = dot_size(one.dot, &quiet_one, &w_one);
    assert_int_equal(count_of(all.dot, "subgraph cluster_c"), all.k.rec.triggered);
    char triggered[64];
    snprintf(triggered, sizeof triggered, ": the %u checkpoints triggered", (unsigned)all.k.rec.triggered);
    assert_true(all.k.rec.triggered >= 10);
    assert_non_null(strstr(all.dot, triggered));
    assert_true(w_all * 72 <= 2000 && h_all * 72 <= 3000);   /* points, text at its size */
    assert_true(h_one <= h_all && w_one <= w_all);
    assert_non_null(strstr(all.dot, "  c1_end -> c2_start [style=invis];"));   /* a column's chain */
    assert_true(strstr(all.dot, "subgraph cluster_c1 {") < strstr(all.dot, "subgraph cluster_c2 {"));
    assert_true(quiet_all && quiet_one);
    unshoot(&all);
    unshoot(&one);
    pipe_destroy(p);
    pipe_destroy(q);
}

static void test_a_title_with_quotes_backslashes_and_odd_bytes_still_renders(void **state) {
    (void)state;
    pipe_cfg c = small_job(4, 5000);
    pipeline *p = create(&c);
    shot s;
    shoot(p, &s, 0, NULL);
    free(s.dot);
    draw(&s, "a \"quoted\" \\path\\ \377.scn");
    bool quiet = false;
    assert_true(dot_height(s.dot, &quiet) > 0);
    assert_true(quiet);
    unshoot(&s);
    pipe_destroy(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_has_one_json_line_per_protocol_step_and_the_picture_one_cluster_per_checkpoint),
        cmocka_unit_test(test_an_acknowledgement_that_never_arrived_is_drawn_lost_and_no_other),
        cmocka_unit_test(test_a_finished_task_is_acknowledged_for_and_drawn_without_trigger_or_barrier_edges),
        cmocka_unit_test(test_a_restart_names_the_checkpoint_it_restores_in_the_trace_and_the_picture),
        cmocka_unit_test(test_the_barrier_that_ends_an_alignment_says_how_many_buffers_waited_behind_the_blocked_input),
        cmocka_unit_test(test_a_restored_sink_commits_what_its_checkpoint_precommitted_and_aborts_the_rest_in_the_trace),
        cmocka_unit_test(test_dot_checkpoint_draws_that_checkpoint_alone_and_the_whole_run_fits_columns_a_screen_wide),
        cmocka_unit_test(test_a_title_with_quotes_backslashes_and_odd_bytes_still_renders),
    };
    return cmocka_run_group_tests_name("rpt", tests, NULL, NULL);
}
