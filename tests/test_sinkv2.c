/* tests/test_sinkv2.c: Sink V2's writer and committer (model/tm/sinkv2.c),
 * held to what Flink's own tests of them say, transcribed as inputs and
 * expected outputs (flink-streaming-java CommitterOperatorTestBase, Flink
 * 2.0): a committer commits a checkpoint's committables on its completion
 * notice (testEmitCommittables), commits what it restored before any notice
 * (testStateRestore), and without checkpoints commits at end of input
 * (testHandleEndInputInStreamingMode); and that the protocol around them
 * keeps every record visible once under crashes. */
#include "harness.h"

#include "../model/pipe.h"

/* source(2) -> keyed aggregate(2, hash) -> writer(2, forward, sink-v2) -> committer(2, forward) */
static pipe_cfg job_v2(uint64_t seed) {
    pipe_cfg c = pipe_cfg_default(seed);
    job *j = &c.graph;
    uint32_t src = job_add_vertex(j, "source", JOB_SOURCE, 2, 2000);
    uint32_t agg = job_add_vertex(j, "agg", JOB_KEYED_AGG, 2, 3000);
    uint32_t out = job_add_vertex(j, "out", JOB_SINK, 2, 500);
    uint32_t cmt = job_add_vertex(j, "commit", JOB_COMMITTER, 2, 500);
    j->vertices[out].sink = JOB_SINK_V2;
    job_add_edge(j, src, agg, JOB_HASH);
    job_add_edge(j, agg, out, JOB_FORWARD);
    job_add_edge(j, out, cmt, JOB_FORWARD);
    c.broker.partitions = 4;
    c.broker.records_per_partition = 20000;
    c.broker.keys = 500;
    c.machines = 2;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    return c;
}

static pipeline *make(const pipe_cfg *c) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    return p;
}

static bool is(const pipeline *p, uint32_t task, job_kind kind) {
    const job *j = pipe_job(p);
    return task != PIPE_NO_TASK && j->vertices[j->tasks[task].vertex].kind == kind;
}

/* What the committers did, step by step: the newest completion notice each
 * took, the checkpoints whose summaries each took, and what its commits
 * were against them. */
typedef struct watch {
    pipeline *p;
    uint64_t  notified[8];            /* by task: the newest completion notice it took, this attempt */
    uint64_t  received[8];            /* by task: the newest summary it took */
    uint64_t  commits_on_notice, commits_on_restore, early, unannounced, writer_summaries, at_end;
    uint64_t  crash_at_completion;    /* crash the committers as this checkpoint completes (0: never) */
    bool      crashed;
    bool      restored_before_notice; /* a restore commit came before any notice of its attempt */
} watch;

static void on_step(void *ctx, const pipe_event *e) {
    watch *w = ctx;
    if (e->kind == PIPE_EV_CKPT_COMPLETE && e->ckpt == w->crash_at_completion && !w->crashed) {
        w->crashed = true;                        /* the notices are still on their way */
        const job *j = pipe_job(w->p);
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            if (!is(w->p, t, JOB_COMMITTER)) continue;
            fault_add(pipe_sim(w->p), &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(w->p, t),
                                                     .duration_ns = 1, .at_ns = e->at_ns });
        }
    }
    if (e->task == PIPE_NO_TASK || e->task >= 8) return;
    if (e->kind == PIPE_EV_RESTORE) w->notified[e->task] = 0;
    if (e->kind == PIPE_EV_NOTICE && e->ok && e->ckpt > w->notified[e->task]) w->notified[e->task] = e->ckpt;
    if (e->kind == PIPE_EV_COMMITTABLES && e->ok) w->received[e->task] = e->ckpt;
    if (e->kind == PIPE_EV_COMMITTABLES && !e->ok) {
        w->writer_summaries++;
        w->at_end += e->at_end;
    }
    if (e->kind != PIPE_EV_TXN || !e->ok || !is(w->p, e->task, JOB_COMMITTER)) return;
    if (e->txn_why == PIPE_TXN_RESTORE) {
        w->commits_on_restore++;
        w->restored_before_notice |= w->notified[e->task] == 0;
        return;
    }
    w->commits_on_notice++;
    if (pipe_config(w->p)->ckpt.enabled && e->ckpt > w->notified[e->task]) w->early++;   /* only that checkpoint or older */
    if (pipe_config(w->p)->ckpt.enabled && e->ckpt > w->received[e->task]) w->unannounced++;
}

typedef struct outcome {
    watch            w;
    pipe_output_diff out;
    pipe_stats       stats;
} outcome;

static outcome run_watched(const pipe_cfg *c, uint64_t crash_at) {
    pipe_cfg ref_cfg = *c;
    ref_cfg.bug = PIPE_BUG_NONE;
    pipeline *ref = make(&ref_cfg);
    pipe_run(ref);
    assert_int_equal(pipe_get_status(ref), PIPE_FINISHED);
    pipeline *p = make(c);
    outcome o = { .w = { .p = p, .crash_at_completion = crash_at } };
    pipe_observe(p, on_step, &o.w);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    o.stats = *pipe_get_stats(p);
    pipe_compare_output(ref, p, &o.out);
    o.w.p = NULL;
    pipe_destroy(p);
    pipe_destroy(ref);
    return o;
}

/* testEmitCommittables: summary(1 committable) + the committable, then
 * notifyCheckpointComplete(1): 1 commit. Here: every commit follows the
 * notice of its checkpoint or a later one, of a committable announced
 * before, and the output is every record once. */
static void test_a_committer_commits_announced_committables_on_the_notice_of_their_checkpoint_or_later(void **state) {
    (void)state;
    pipe_cfg c = job_v2(1);
    outcome o = run_watched(&c, 0);
    print_message("%llu commits on notices, %llu writer summaries (%llu at end of input)\n",
                  (unsigned long long)o.w.commits_on_notice, (unsigned long long)o.w.writer_summaries,
                  (unsigned long long)o.w.at_end);
    assert_true(o.w.commits_on_notice >= 4);
    assert_int_equal(o.w.early, 0);
    assert_int_equal(o.w.unannounced, 0);
    assert_int_equal(o.w.at_end, 2);             /* each writer's endInput */
    assert_int_equal(o.stats.committer_failures, 0);
    assert_int_equal(o.out.records, 80000);
    assert_int_equal(o.out.lost, 0);
    assert_int_equal(o.out.duplicated, 0);
}

/* testStateRestore: a committer restored with committables commits them
 * in initializeState, before any notice. Here: both committers crash as
 * checkpoint 2 completes, its notices still on their way; the restore
 * from checkpoint 2 commits its transactions first thing. */
static void test_a_restored_committer_commits_its_committables_before_any_notice(void **state) {
    (void)state;
    pipe_cfg c = job_v2(2);
    outcome o = run_watched(&c, 2);
    print_message("%llu commits on restore, %llu restarts\n", (unsigned long long)o.w.commits_on_restore,
                  (unsigned long long)o.stats.restarts);
    assert_true(o.w.crashed);
    assert_true(o.stats.restarts >= 1);
    assert_true(o.w.commits_on_restore >= 1);
    assert_true(o.w.restored_before_notice);
    assert_int_equal(o.w.early, 0);
    assert_int_equal(o.out.lost, 0);
    assert_int_equal(o.out.duplicated, 0);
}

/* testHandleEndInputInStreamingMode(checkpointing off): the committables
 * are committed at endInput, with no notice at all. */
static void test_without_checkpoints_a_committer_commits_at_end_of_input(void **state) {
    (void)state;
    pipe_cfg c = job_v2(3);
    c.ckpt.enabled = false;
    outcome o = run_watched(&c, 0);
    assert_int_equal(o.stats.completed, 0);
    assert_int_equal(o.w.commits_on_notice, 2);  /* each writer's one transaction */
    assert_int_equal(o.w.at_end, 2);
    assert_int_equal(o.out.lost, 0);
    assert_int_equal(o.out.duplicated, 0);
}

/* Unaligned checkpoints: the writer's barrier goes in band behind its
 * committables and the committer aligns (FLINK-36287); the job stays
 * exactly-once, and no committable is channel state. */
static void test_unaligned_checkpoints_keep_committables_out_of_channel_state(void **state) {
    (void)state;
    pipe_cfg c = job_v2(4);
    c.ckpt.mode = PIPE_UNALIGNED;
    c.graph.vertices[2].cost_ns = 6000;           /* a slow writer: its input queues, its barrier overtakes */
    outcome o = run_watched(&c, 3);
    assert_true(o.stats.unaligned_triggers > 0);
    assert_true(o.stats.cs_bytes > 0);           /* the writer's input is channel state, its output never */
    assert_int_equal(o.stats.committer_failures, 0);
    assert_int_equal(o.w.early, 0);
    assert_int_equal(o.out.lost, 0);
    assert_int_equal(o.out.duplicated, 0);
}

/* The deliberate bug FLINK-26403: the writers keep their last committables
 * at end of input; what they wrote after their last checkpoint is lost. */
static void test_committables_kept_at_end_of_input_lose_the_last_transaction(void **state) {
    (void)state;
    pipe_cfg c = job_v2(1);
    c.bug = PIPE_BUG_EOI_COMMITTABLES_KEPT;
    outcome o = run_watched(&c, 0);
    print_message("FLINK-26403: %llu of %llu records lost\n", (unsigned long long)o.out.lost,
                  (unsigned long long)o.out.records);
    assert_int_equal(o.w.at_end, 0);
    assert_true(o.out.lost > 0);
    assert_int_equal(o.out.duplicated, 0);
}

/* writers(3) -> committers(3, forward) -> global committer(1): the post-commit topology of
 * StandardSinkTopologies.addGlobalCommitter. */
static pipe_cfg job_global(uint64_t seed) {
    pipe_cfg c = job_v2(seed);
    job *j = &c.graph;
    for (uint32_t v = 0; v < j->vertices_count; v++) j->vertices[v].parallelism = 3;
    c.broker.partitions = 6;
    c.broker.records_per_partition = 5000;
    uint32_t g = job_add_vertex(j, "global", JOB_COMMITTER, 1, 500);
    j->vertices[g].global = true;
    job_add_edge(j, 3, g, JOB_REBALANCE);
    return c;
}

typedef struct global_watch {
    pipeline *p;
    uint32_t  commits, partial, txn_outside;
    uint64_t  last_global_at;
    uint64_t  crash_at_completion;
    bool      crashed;
} global_watch;

static void on_global(void *ctx, const pipe_event *e) {
    global_watch *w = ctx;
    if (e->kind == PIPE_EV_CKPT_COMPLETE && e->ckpt == w->crash_at_completion && !w->crashed) {
        w->crashed = true;                        /* the committers lose what they have not sent on yet */
        const job *j = pipe_job(w->p);
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            if (!is(w->p, t, JOB_COMMITTER)) continue;
            fault_add(pipe_sim(w->p), &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = pipe_task_actor(w->p, t),
                                                     .duration_ns = 1, .at_ns = e->at_ns });
        }
    }
    if (e->kind == PIPE_EV_GLOBAL_COMMIT) {
        w->commits++;
        w->partial += e->count != 3;
        w->last_global_at = e->at_ns;
    }
    /* Every transaction the global committer commits, it commits in a global commit's step. */
    if (e->kind == PIPE_EV_TXN && e->ok && e->txn_why == PIPE_TXN_NOTICE && is(w->p, e->task, JOB_COMMITTER) &&
        e->at_ns != w->last_global_at) w->txn_outside++;
}

static global_watch run_global(const pipe_cfg *c, uint64_t crash_at, pipe_output_diff *out) {
    pipe_cfg ref_cfg = *c;
    ref_cfg.bug = PIPE_BUG_NONE;
    pipeline *ref = make(&ref_cfg);
    pipe_run(ref);
    pipeline *p = make(c);
    global_watch w = { .p = p, .crash_at_completion = crash_at };
    pipe_observe(p, on_global, &w);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    pipe_compare_output(ref, p, out);
    w.p = NULL;
    pipe_destroy(p);
    pipe_destroy(ref);
    return w;
}

/* GlobalCommitterOperator (Flink 2.0): "Once all committables from all
 * subtasks have been received, the global committer will commit them";
 * it stops at the first checkpoint that is not complete. Here: every
 * global commit covers the three upstream committers, the transactions it
 * commits are committed in those steps only, and the output is exact,
 * also when the committers crash as a checkpoint completes. */
static void test_a_global_committer_commits_a_checkpoint_once_every_upstream_subtask_sent_it(void **state) {
    (void)state;
    for (uint64_t crash = 0; crash <= 3; crash += 3) {
        pipe_cfg c = job_global(5);
        pipe_output_diff out;
        global_watch w = run_global(&c, crash, &out);
        print_message("crash at %llu: %u global commits\n", (unsigned long long)crash, w.commits);
        assert_true(w.commits >= 3);
        assert_true(w.crashed == (crash > 0));
        assert_int_equal(w.partial, 0);
        assert_int_equal(w.txn_outside, 0);
        assert_int_equal(out.records, 30000);
        assert_int_equal(out.lost, 0);
        assert_int_equal(out.duplicated, 0);
    }
}

/* The deliberate bug FLINK-36368: merged on receipt, one committer's batch
 * looks like the whole checkpoint's. */
static void test_merging_upstream_subtasks_makes_a_global_commit_partial(void **state) {
    (void)state;
    pipe_cfg c = job_global(5);
    c.bug = PIPE_BUG_MERGED_SUBTASKS;
    pipe_output_diff out;
    global_watch w = run_global(&c, 0, &out);
    assert_true(w.partial > 0);
}

/* GlobalCommitterOperatorTest.testWaitForCommittablesOfLatestCheckpointBeforeCommitting
 * (Flink 2.0): with commitOnInput the second committable of a checkpoint
 * whose notice came while it was incomplete is committed on arrival;
 * without it, only at the next notice. Behind committers, which send a
 * checkpoint's committables after their own notice, the mode without it
 * (the deliberate bug FLINK-24530) never commits what arrives after the
 * global committer's last notice: the job ends with records lost. */
static void test_a_global_committer_behind_committers_must_commit_on_input_not_on_its_notice(void **state) {
    (void)state;
    pipe_cfg c = job_global(5);
    c.bug = PIPE_BUG_GLOBAL_ON_NOTICE;
    pipe_output_diff out;
    global_watch w = run_global(&c, 0, &out);
    assert_true(w.commits > 0);
    assert_int_equal(w.partial, 0);               /* complete checkpoints only, as Flink's notice mode */
    assert_true(out.lost > 0);
    assert_int_equal(out.duplicated, 0);
}

static void watch_global(pipeline *p, void *ctx) {
    global_watch *w = ctx;
    w->p = p;
    pipe_observe(p, on_global, w);
}

/* CommitterOperatorTest.testStateRestore as FLINK-29512 adapted it: the
 * committables a restored committer emits align with the summary it
 * emits (CommittableCollectorSerializerTest: the restored managers take
 * the persisted checkpoint id). Here the committers crash as checkpoint 3
 * completes and restore batches they had not sent on: the global
 * committer takes them, throws on nothing, and the output is exact. With
 * the deliberate bug the committables go under checkpoint 1 and the global
 * committer throws ("Unknown subtask"), which I5 reports. */
static void test_a_restored_committer_sends_its_committables_under_their_own_checkpoint(void **state) {
    (void)state;
    pipe_cfg c = job_global(5);
    global_watch w = { .crash_at_completion = 3 };
    checked_run r = run_checked_with(&c, watch_global, &w);
    assert_true(w.crashed);
    assert_true(r.reach[PIPE_REACH_COMMITTER_RESTORED] > 0);
    assert_int_equal(r.status, PIPE_FINISHED);
    assert_int_equal(r.report.kept_count, 0);
    assert_int_equal(r.stats.committer_refusals, 0);
    c.bug = PIPE_BUG_RESTORED_CKPT_ONE;
    w = (global_watch){ .crash_at_completion = 3 };
    r = run_checked_with(&c, watch_global, &w);
    assert_true(r.stats.committer_refusals > 0);
    assert_non_null(first_of(&r.report, CHECK_I5));
    assert_non_null(strstr(first_of(&r.report, CHECK_I5)->what, "threw: Flink's committer checks"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_committer_commits_announced_committables_on_the_notice_of_their_checkpoint_or_later),
        cmocka_unit_test(test_a_restored_committer_commits_its_committables_before_any_notice),
        cmocka_unit_test(test_without_checkpoints_a_committer_commits_at_end_of_input),
        cmocka_unit_test(test_unaligned_checkpoints_keep_committables_out_of_channel_state),
        cmocka_unit_test(test_committables_kept_at_end_of_input_lose_the_last_transaction),
        cmocka_unit_test(test_a_global_committer_commits_a_checkpoint_once_every_upstream_subtask_sent_it),
        cmocka_unit_test(test_merging_upstream_subtasks_makes_a_global_commit_partial),
        cmocka_unit_test(test_a_global_committer_behind_committers_must_commit_on_input_not_on_its_notice),
        cmocka_unit_test(test_a_restored_committer_sends_its_committables_under_their_own_checkpoint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
