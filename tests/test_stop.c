/* tests/test_stop.c: stops, cancels and resumes (model/jm/stop.c) and the
 * restore modes' checks (check/claim.c), held to Flink's own tests,
 * transcribed as inputs and expected outputs:
 * - CheckpointCoordinatorTriggeringTest: after a NO_CLAIM restore the
 *   checkpoint triggered is a FULL_CHECKPOINT, after a JobManager
 *   failover too (testTriggeringFullSnapshotAfterJobmasterFailover);
 * - SavepointITCase: resumed in CLAIM mode, the snapshot is gone once
 *   the job's own checkpoints subsumed it
 *   (testTriggerSavepointAndResumeWithClaim); in LEGACY mode it is still
 *   there (testTriggerSavepointAndResumeWithLegacyMode); in NO_CLAIM mode
 *   the job's checkpoints do not depend on it
 *   (testTriggerSavepointAndResumeWithNoClaim);
 * - ChangelogRestoreITCase (testSwitchFromDisablingToEnablingInClaimMode,
 *   FLINK-25872): a changelog job restores a non-changelog snapshot (here
 *   a savepoint, the nested backend's) in CLAIM mode, checkpoints on it,
 *   and restores its latest checkpoint after the snapshot was subsumed;
 * - CheckpointRequestDecider and CheckpointFailureManager for the
 *   savepoint request (tests/test_ckrules.c holds the periodic ones). */
#include "harness.h"

#include "../model/flow/ckrules.h"
#include "../model/pipe.h"
#include "../scenarios/scn.h"

static scn s_;

/* A keyed job with incremental state, a two-phase-commit sink, retained 1:
 * every completed checkpoint subsumes the one before. */
#define STOP_JOB "seed 1\nmachines 2\nchannels buffer-timeout 1ms\n" \
    "broker partitions 2 records 1500 keys 200\n" \
    "vertex source source parallelism 2 rate 50000/s\nvertex agg keyed-aggregate parallelism 2\n" \
    "vertex out sink parallelism 1 output two-phase-commit\n" \
    "edge source -> agg hash\nedge agg -> out rebalance\n" \
    "checkpoint mode aligned interval 2ms retained 1\nstate backend durable incremental full-every 8\n"

static void parse_ok(const char *text) {
    char err[512];
    if (!scn_parse(&s_, "t.scn", text, strlen(text), err, sizeof err)) fail_msg("%s", err);
}

/* What the observer saw of the resume: the snapshot and its files, and
 * of the first checkpoint completed after it, its chains' lengths. */
typedef struct seen {
    pipeline *p;
    uint64_t  restored, first_after;
    uint32_t  resumes;
    uint64_t  files[64];
    uint32_t  files_count;
    uint32_t  first_chain[8];         /* by task */
    uint64_t  first_file[8];          /* by task: the first file of that chain */
} seen;

static void watch(void *ctx, const pipe_event *e) {
    seen *w = ctx;
    if (e->kind == PIPE_EV_RESUMED) {
        w->resumes++;
        w->restored = e->ckpt;
        w->first_after = 0;
        w->files_count = 0;
        for (uint32_t t = 0; t < pipe_job(w->p)->tasks_count && w->files_count < 56; t++) {
            w->files_count += pipe_ckpt_task_file_ids(w->p, e->ckpt, t, w->files + w->files_count, 8);
        }
    }
    if (e->kind == PIPE_EV_CKPT_COMPLETE && !e->savepoint && w->restored != 0 && w->first_after == 0) {
        w->first_after = e->ckpt;
        for (uint32_t t = 0; t < pipe_job(w->p)->tasks_count && t < 8; t++) {
            w->first_chain[t] = pipe_ckpt_task_files(w->p, e->ckpt, t);
            uint64_t ids[16];
            if (pipe_ckpt_task_file_ids(w->p, e->ckpt, t, ids, 16) > 0) w->first_file[t] = ids[0];
        }
    }
}

static void setup(pipeline *p, void *ctx) {
    seen *w = ctx;
    w->p = p;
    pipe_observe(p, watch, w);
}

static uint32_t alive_at_end;

static void after(pipeline *p, void *ctx) {
    seen *w = ctx;
    alive_at_end = 0;
    for (uint32_t i = 0; i < w->files_count; i++) alive_at_end += pipe_file_alive(p, w->files[i]);
}

static checked_run run_text(const char *text, seen *w) {
    parse_ok(text);
    *w = (seen){ .p = NULL };
    return run_checked_around(&s_.cfg, setup, after, w);
}

static void assert_clean(const checked_run *r) {
    if (r->report.kept_count > 0) print_error("%s\n", r->report.kept[0].what);
    assert_int_equal(r->status, PIPE_FINISHED);
    assert_int_equal(r->report.kept_count, 0);
}

/* testTriggeringFullSnapshotAfterJobmasterFailover's outcome, without the
 * failover: restored in NO_CLAIM, the first checkpoint after is a full
 * one (each keyed task's chain is a single file), and the snapshot's
 * files are all still there at the end (testTriggerSavepointAndResumeWithNoClaim:
 * the job's checkpoints never depended on it). */
static void test_a_no_claim_resume_takes_a_full_checkpoint_first_and_deletes_nothing_of_the_snapshot(void **state) {
    (void)state;
    seen w;
    checked_run r = run_text(STOP_JOB "fault at 30ms cancel job resume after 2ms no-claim\n", &w);
    assert_clean(&r);
    assert_int_equal(w.resumes, 1);
    assert_true(w.restored > 0 && w.first_after > w.restored);
    assert_true(r.reach[PIPE_REACH_FULL_FORCED] > 0);
    for (uint32_t t = 2; t < 4; t++) assert_int_equal(w.first_chain[t], 1);   /* agg[0], agg[1] */
    assert_true(w.files_count > 0);
    assert_int_equal(alive_at_end, w.files_count);
}

/* The same in LEGACY mode: the first checkpoint builds on the snapshot's
 * files (an increment), and they are never deleted
 * (testTriggerSavepointAndResumeWithLegacyMode: the directory is still there). */
static void test_a_legacy_resume_shares_the_snapshots_files_and_never_deletes_them(void **state) {
    (void)state;
    seen w;
    checked_run r = run_text(STOP_JOB "fault at 30ms cancel job resume after 2ms legacy\n", &w);
    assert_clean(&r);
    assert_int_equal(r.reach[PIPE_REACH_FULL_FORCED], 0);
    assert_true(w.first_chain[2] > 1 || w.first_chain[3] > 1);
    assert_int_equal(alive_at_end, w.files_count);
}

/* testTriggerSavepointAndResumeWithClaim: stopped with a savepoint and
 * resumed in CLAIM mode, the savepoint is the job's: its files are gone
 * once its checkpoints subsumed it (retained 1), and no rule is broken. */
static void test_a_claim_resume_owns_the_savepoint_and_discards_it_once_subsumed(void **state) {
    (void)state;
    seen w;
    checked_run r = run_text(STOP_JOB "fault at 30ms stop job resume after 2ms claim\n", &w);
    assert_clean(&r);
    assert_int_equal(r.stats.resumes, 1);
    assert_true(r.reach[PIPE_REACH_JOB_STOPPED] == 1 && r.reach[PIPE_REACH_STOP_SAVEPOINT_COMPLETED] == 1);
    assert_true(w.files_count > 0);
    assert_int_equal(alive_at_end, 0);
}

/* A stop's sources stop at the savepoint's barrier and the resumed job
 * starts at its offsets: no record is read twice, and a NO_CLAIM resume
 * of the savepoint keeps its files. */
static void test_a_stopped_job_resumes_where_its_savepoint_stopped_the_sources(void **state) {
    (void)state;
    seen w;
    checked_run r = run_text(STOP_JOB "fault at 30ms stop job resume after 2ms\n", &w);
    assert_clean(&r);
    assert_int_equal(r.stats.records_read, 3000);
    assert_int_equal(alive_at_end, w.files_count);
    assert_true(r.report.checks[CHECK_I5] > 0);
}

/* A stop with drain ends each source's input where it is: the job is
 * over, its state and output the fold of the input up to the savepoint's
 * offsets (what the checkers hold it to: they pass, on fewer records than
 * the topics hold). */
static void test_a_drained_stop_ends_the_input_at_the_savepoints_offsets(void **state) {
    (void)state;
    seen w;
    checked_run r = run_text(STOP_JOB "fault at 15ms stop job drain\n", &w);
    assert_clean(&r);
    assert_true(r.reach[PIPE_REACH_SOURCE_DRAINED] == 2 && r.reach[PIPE_REACH_JOB_DRAINED] == 1);
    assert_int_equal(r.stats.resumes, 0);
    assert_true(r.stats.records_read > 0 && r.stats.records_read < 3000);
    assert_true(r.report.applies[CHECK_I1] && r.report.applies[CHECK_I3] && r.report.checks[CHECK_I3] > 0);
}

/* testTriggeringFullSnapshotAfterJobmasterFailover: a JobManager that
 * fails over before the first checkpoint after a NO_CLAIM restore
 * restores the unclaimed snapshot again, and its first checkpoint is a
 * full one too. */
static void crash_coordinator(pipeline *p, void *ctx) {
    setup(p, ctx);
    fault_spec f = { .kind = FAULT_ACTOR_CRASH, .at_ns = 33 * SIM_NS_PER_MS, .duration_ns = 2 * SIM_NS_PER_MS,
                     .target = pipe_coord_actor(p) };
    (void)fault_add(pipe_sim(p), &f);
}

static void test_a_failover_before_the_first_checkpoint_after_no_claim_forces_a_full_one_again(void **state) {
    (void)state;
    seen w = { .p = NULL };
    parse_ok(STOP_JOB "fault at 30ms cancel job resume after 2ms no-claim\n");
    checked_run r = run_checked_around(&s_.cfg, crash_coordinator, after, &w);
    assert_clean(&r);
    assert_int_equal(r.stats.failovers, 1);
    assert_true(r.reach[PIPE_REACH_RESTORED_UNCLAIMED] >= 2);   /* the resume's deployment and the failover's */
    for (uint32_t t = 2; t < 4; t++) assert_int_equal(w.first_chain[t], 1);
    assert_int_equal(alive_at_end, w.files_count);
}

/* The deliberate bugs the rules catch: a LEGACY resume that discards the
 * snapshot's files (FLINK-26985), a NO_CLAIM first checkpoint that builds
 * on them. */
static void test_the_restore_mode_rules_catch_what_breaks_them(void **state) {
    (void)state;
    seen w;
    parse_ok(STOP_JOB "fault at 30ms cancel job resume after 2ms legacy\n");
    s_.cfg.bug = PIPE_BUG_LEGACY_DISCARDS;
    s_.cfg.state.full_every = 1;                  /* chains rebase soon: the shared files go out of use */
    w = (seen){ .p = NULL };
    checked_run r = run_checked_around(&s_.cfg, setup, after, &w);
    assert_non_null(first_of(&r.report, CHECK_I5));
    assert_non_null(strstr(first_of(&r.report, CHECK_I5)->what, "NO_CLAIM or LEGACY"));
    parse_ok(STOP_JOB "fault at 30ms cancel job resume after 2ms no-claim\n");
    s_.cfg.bug = PIPE_BUG_NO_CLAIM_SHARES;
    w = (seen){ .p = NULL };
    r = run_checked_around(&s_.cfg, setup, after, &w);
    assert_non_null(first_of(&r.report, CHECK_I5));
    assert_non_null(strstr(first_of(&r.report, CHECK_I5)->what, "the first to complete after the NO_CLAIM restore"));
}

/* The changelog backend under STOP_JOB's job: materializations rare
 * enough that the resumed job's checkpoints all build on the savepoint. */
#define CLOG_JOB "seed 1\nmachines 2\nchannels buffer-timeout 1ms\n" \
    "broker partitions 2 records 4000 keys 200\n" \
    "vertex source source parallelism 2 rate 50000/s\nvertex agg keyed-aggregate parallelism 2\n" \
    "vertex out sink parallelism 1 output two-phase-commit\n" \
    "edge source -> agg hash\nedge agg -> out rebalance\n" \
    "checkpoint mode aligned interval 2ms retained 1\n" \
    "state backend durable changelog materialize-interval 500ms\n"

static bool among(const seen *w, uint64_t f) {
    for (uint32_t i = 0; i < w->files_count; i++) {
        if (w->files[i] == f) return true;
    }
    return false;
}

static void crash_agg(pipeline *p, void *ctx) {
    setup(p, ctx);
    fault_spec f = { .kind = FAULT_ACTOR_CRASH, .at_ns = 70 * SIM_NS_PER_MS, .duration_ns = SIM_NS_PER_MS,
                     .target = pipe_task_actor(p, 2) };
    (void)fault_add(pipe_sim(p), &f);
}

/* testSwitchFromDisablingToEnablingInClaimMode: the resumed changelog
 * job's first checkpoint is the savepoint's file plus a log segment;
 * a failover long after the savepoint was subsumed (retained 1) restores
 * that chain whole, and the job ends exactly once; the savepoint's files
 * outlive its subsumption while a checkpoint uses them. With the deliberate bug
 * FLINK-25872 the subsumed savepoint takes its file with it. */
static void test_a_changelog_job_resumed_in_claim_mode_builds_its_log_on_the_savepoint_and_keeps_it(void **state) {
    (void)state;
    seen w = { .p = NULL };
    parse_ok(CLOG_JOB "fault at 20ms stop job resume after 2ms claim\n");
    checked_run r = run_checked_around(&s_.cfg, crash_agg, after, &w);
    assert_clean(&r);
    assert_true(r.reach[PIPE_REACH_CHANGELOG_SAVEPOINT] > 0 && r.reach[PIPE_REACH_CHANGELOG_ON_SAVEPOINT] > 0);
    assert_true(r.reach[PIPE_REACH_RESTORE_CHAIN] > 0 && r.stats.restore_failures == 0);   /* the failover read it */
    for (uint32_t t = 2; t < 4; t++) {            /* agg[0], agg[1] */
        assert_true(w.first_chain[t] >= 2);
        assert_true(among(&w, w.first_file[t]));
    }
    assert_true(w.files_count > 0);               /* subsumed long since, the files stay: the last checkpoint */
    assert_int_equal(alive_at_end, w.files_count);   /* still builds on them (no materialization since) */
    parse_ok(CLOG_JOB "fault at 20ms stop job resume after 2ms claim\n");
    s_.cfg.bug = PIPE_BUG_CLAIM_PRIVATE_DISCARDED;
    w = (seen){ .p = NULL };
    r = run_checked_around(&s_.cfg, crash_agg, after, &w);
    assert_non_null(first_of(&r.report, CHECK_I5));
    assert_non_null(strstr(first_of(&r.report, CHECK_I5)->what, "deleted"));
}

/* A NO_CLAIM resume forces a full snapshot, which the changelog backend
 * cannot take (FLINK-38307; FLINK-40476, a docs change, says so): refused. */
static void test_a_no_claim_resume_with_the_changelog_backend_is_refused(void **state) {
    (void)state;
    parse_ok(CLOG_JOB "fault at 20ms stop job resume after 2ms claim\n");
    s_.cfg.stops[0].claim = PIPE_CLAIM_NO_CLAIM;
    char err[256];
    assert_non_null(pipe_stops_problem(&s_.cfg, err, sizeof err));
    assert_non_null(strstr(err, "claim or legacy"));
}

/* CheckpointRequestDecider: a savepoint is no periodic request, so no
 * minimum pause holds it; CheckpointFailureManager counts no savepoint's
 * failure, and a savepoint's completion resets the count. */
static void test_a_savepoint_request_ignores_the_pause_and_its_failure_is_not_counted(void **state) {
    (void)state;
    ckr k;
    ckr_cfg c = { .interval = 100, .min_pause = 50, .timeout = 1000, .max_concurrent = 1, .tolerable = 0 };
    ckr_init(&k, &c, 1);
    ckr_acts a = { .count = 0 };
    ckr_start(&k, 0, 50, &a);
    a.count = 0;
    ckr_fire(&k, 50, k.gen, true, &a);            /* checkpoint 1 */
    a.count = 0;
    ckr_complete(&k, 1, 60, true, &a);
    a.count = 0;
    ckr_stop(&k, &a);
    a.count = 0;
    ckr_savepoint(&k, 61, true, &a);              /* 1 after the completion, inside the pause */
    assert_int_equal(a.count, 1);
    assert_int_equal(a.items[0].kind, CKR_TRIGGER);
    assert_true(a.items[0].savepoint && a.items[0].id == 2);
    a.count = 0;
    ckr_abort(&k, 2, CKR_EXPIRED, CKR_NO_TASK, 1061, true, &a);   /* tolerable 0: a counted one would fail the job */
    for (uint32_t i = 0; i < a.count; i++) assert_int_not_equal(a.items[i].kind, CKR_FAIL_JOB);
    assert_int_equal(k.fm.failures, 0);
    a.count = 0;
    ckr_savepoint(&k, 1100, false, &a);           /* the tasks are not all running */
    assert_int_equal(a.count, 1);
    assert_true(a.items[0].kind == CKR_DROP && a.items[0].why == CKR_NOT_RUNNING);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_no_claim_resume_takes_a_full_checkpoint_first_and_deletes_nothing_of_the_snapshot),
        cmocka_unit_test(test_a_legacy_resume_shares_the_snapshots_files_and_never_deletes_them),
        cmocka_unit_test(test_a_claim_resume_owns_the_savepoint_and_discards_it_once_subsumed),
        cmocka_unit_test(test_a_stopped_job_resumes_where_its_savepoint_stopped_the_sources),
        cmocka_unit_test(test_a_drained_stop_ends_the_input_at_the_savepoints_offsets),
        cmocka_unit_test(test_a_failover_before_the_first_checkpoint_after_no_claim_forces_a_full_one_again),
        cmocka_unit_test(test_the_restore_mode_rules_catch_what_breaks_them),
        cmocka_unit_test(test_a_savepoint_request_ignores_the_pause_and_its_failure_is_not_counted),
        cmocka_unit_test(test_a_changelog_job_resumed_in_claim_mode_builds_its_log_on_the_savepoint_and_keeps_it),
        cmocka_unit_test(test_a_no_claim_resume_with_the_changelog_backend_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
