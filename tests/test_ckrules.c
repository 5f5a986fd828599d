/* tests/test_ckrules.c: the checkpoint coordinator's rules
 * (model/flow/ckrules.h) held to Flink's own unit tests, transcribed as
 * inputs and expected outputs (times in ms). Each test names its Flink
 * method; the files are in flink-runtime/src/test/java/org/apache/flink/
 * runtime/checkpoint/: CheckpointRequestDeciderTest,
 * CheckpointFailureManagerTest, CheckpointCoordinatorTriggeringTest,
 * CheckpointCoordinatorTest and FailoverStrategyCheckpointCoordinatorTest
 * (Flink 1.15 to 2.x). Flink's tests fire the periodic trigger by hand
 * (ManuallyTriggeredScheduledExecutor) without moving the clock; so do
 * these, by the generation the last ARM named. Savepoints, forced and
 * manual checkpoints are not modelled: their vectors are left out. */
#include "harness.h"

#include "../model/flow/ckrules.h"

static ckr k_;
static ckr_acts a_;

static uint32_t count(ckr_act_kind kind) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < a_.count; i++) n += a_.items[i].kind == kind;
    return n;
}

static const ckr_act *find_act(ckr_act_kind kind) {
    for (uint32_t i = 0; i < a_.count; i++) {
        if (a_.items[i].kind == kind) return &a_.items[i];
    }
    return NULL;
}

static void setup(int64_t interval, int64_t min_pause, uint32_t max_concurrent, uint32_t tolerable) {
    ckr_cfg c = { .interval = interval, .min_pause = min_pause, .timeout = 200000, .max_concurrent = max_concurrent,
                  .tolerable = tolerable };
    assert_null(ckr_cfg_error(&c));
    ckr_init(&k_, &c, 1);
}

static void start(int64_t now) {
    a_.count = 0;
    int64_t lo, hi;
    ckr_init_delay_range(&k_, &lo, &hi);
    ckr_start(&k_, now, lo, &a_);
}

/* Fire the armed periodic trigger (as triggerPeriodicScheduledTasks). */
static void fire(int64_t now) {
    a_.count = 0;
    ckr_fire(&k_, now, k_.gen, true, &a_);
}

/* CheckpointCoordinatorTriggeringTest#testPeriodicTriggering: five
 * firings trigger checkpoints 1..5; once stopped a firing triggers
 * nothing; started again, five more. */
static void test_periodic_firings_trigger_increasing_checkpoints_until_stopped(void **state) {
    (void)state;
    setup(10, 0, CKR_PENDING_MAX, 0);
    start(0);
    for (uint64_t i = 1; i <= 5; i++) {
        fire(0);
        assert_int_equal(count(CKR_TRIGGER), 1);
        assert_int_equal(find_act(CKR_TRIGGER)->id, i);
    }
    a_.count = 0;
    ckr_stop(&k_, &a_);
    uint32_t gen = k_.gen;
    a_.count = 0;
    ckr_fire(&k_, 0, gen, true, &a_);
    assert_int_equal(a_.count, 0);
    start(0);
    for (uint64_t i = 6; i <= 10; i++) {
        fire(0);
        assert_int_equal(find_act(CKR_TRIGGER)->id, i);
    }
}

/* CheckpointCoordinatorTriggeringTest#testStopPeriodicScheduler: a
 * periodic request with the scheduler never started triggers nothing. */
static void test_a_periodic_request_without_the_scheduler_triggers_nothing(void **state) {
    (void)state;
    setup(10, 0, 1, 0);
    fire(0);
    assert_int_equal(a_.count, 0);
}

/* CheckpointCoordinatorTest#testMaxConcurrentAttempts1/2/5: N firings
 * trigger N; the next one stays queued; once 1 completes, it goes. */
static void max_concurrent(uint32_t n) {
    setup(10, 0, n, 0);
    start(0);
    for (uint32_t i = 0; i < n; i++) fire(0);
    assert_int_equal(k_.pending_count, n);
    fire(0);
    assert_int_equal(count(CKR_TRIGGER), 0);   /* queued, not dropped */
    assert_int_equal(k_.queued, 1);
    a_.count = 0;
    ckr_complete(&k_, 1, 0, true, &a_);
    assert_int_equal(count(CKR_TRIGGER), 1);   /* the queued request */
    assert_int_equal(find_act(CKR_TRIGGER)->id, n + 1);
    fire(0);
    assert_int_equal(count(CKR_TRIGGER), 0);
}

static void test_max_concurrent_checkpoints_queue_the_next_request_until_one_completes(void **state) {
    (void)state;
    max_concurrent(1);
    max_concurrent(2);
    max_concurrent(5);
}

/* CheckpointCoordinatorTest#testMaxConcurrentAttempsWithSubsumption: with
 * 2 allowed, completing 2 subsumes 1, and the next two go. */
static void test_a_completion_subsumes_older_pending_checkpoints(void **state) {
    (void)state;
    setup(10, 0, 2, 0);
    start(0);
    fire(0);
    fire(0);
    a_.count = 0;
    ckr_complete(&k_, 2, 0, true, &a_);
    const ckr_act *ab = find_act(CKR_ABORT);
    assert_non_null(ab);
    assert_int_equal(ab->id, 1);
    assert_int_equal(ab->why, CKR_SUBSUMED);
    assert_int_equal(k_.pending_count, 0);
    fire(0);
    fire(0);
    assert_int_equal(k_.pending_count, 2);
    assert_int_equal(k_.pending[0].id, 3);
    assert_int_equal(k_.pending[1].id, 4);
}

/* CheckpointRequestDeciderTest#testCheckpointTiming (min pause 10, last
 * completion at 0, now 0): the periodic request is dropped, not queued. */
static void test_a_periodic_request_inside_the_min_pause_is_dropped(void **state) {
    (void)state;
    setup(10, 10, 1, 0);
    start(0);
    fire(0);
    a_.count = 0;
    ckr_complete(&k_, 1, 0, true, &a_);
    fire(0);
    const ckr_act *d = find_act(CKR_DROP);
    assert_non_null(d);
    assert_int_equal(d->why, CKR_MIN_PAUSE);
    assert_int_equal(k_.queued, 0);
    assert_int_equal(count(CKR_TRIGGER), 0);
}

/* CheckpointCoordinatorTriggeringTest#testMinTimeBetweenCheckpointsInterval:
 * interval 12, min pause 50 (base 50): after the completion at 3 the next
 * trigger is at 53 or later; the grid moves to the pause's end. */
static void test_the_next_trigger_waits_the_min_pause_after_a_completion(void **state) {
    (void)state;
    setup(12, 50, 1, 0);
    start(0);
    fire(k_.next_fire);
    assert_int_equal(count(CKR_TRIGGER), 1);
    a_.count = 0;
    ckr_complete(&k_, 1, 53, true, &a_);
    int64_t t = 60;
    for (int i = 0; i < 20 && count(CKR_TRIGGER) == 0; i++, t += 12) fire(t);
    const ckr_act *tr = find_act(CKR_TRIGGER);
    assert_non_null(tr);
    assert_int_equal(tr->id, 2);
    assert_true(tr->at - 53 >= 50);
}

/* CheckpointCoordinatorTest#testMinCheckpointPause: interval 1000, min
 * pause 1000, one at a time: a request queued behind checkpoint 1 is
 * dropped at 1's completion (T) and the trigger moves to T + 1000. */
static void test_a_queued_request_is_dropped_at_a_completion_inside_the_min_pause(void **state) {
    (void)state;
    setup(1000, 1000, 1, 0);
    start(0);
    fire(k_.next_fire);
    fire(k_.next_fire);
    assert_int_equal(k_.queued, 1);
    a_.count = 0;
    ckr_complete(&k_, 1, 5000, true, &a_);
    assert_int_equal(count(CKR_TRIGGER), 0);
    assert_int_equal(find_act(CKR_DROP)->why, CKR_MIN_PAUSE);
    assert_int_equal(find_act(CKR_ARM)->at, 6000);
    fire(6000);
    assert_int_equal(find_act(CKR_TRIGGER)->id, 2);
}

/* CheckpointCoordinatorTest#testPeriodicSchedulingWithInactiveTasks:
 * firings while the tasks do not run trigger nothing (the request fails,
 * not counted), and the timer keeps going; once they run, it triggers. */
static void test_firings_while_tasks_do_not_run_fail_and_the_timer_goes_on(void **state) {
    (void)state;
    setup(10, 0, 2, 0);
    start(0);
    a_.count = 0;
    ckr_fire(&k_, 0, k_.gen, false, &a_);
    assert_int_equal(find_act(CKR_DROP)->why, CKR_NOT_RUNNING);
    assert_int_equal(count(CKR_ARM), 1);
    assert_int_equal(k_.pending_count, 0);
    fire(10);
    assert_int_equal(k_.pending_count, 1);
}

/* FailoverStrategyCheckpointCoordinatorTest#testAbortPendingCheckpointsWithTriggerValidation:
 * aborting every pending checkpoint (not counted) leaves the periodic
 * trigger armed. */
static void test_aborting_pending_checkpoints_keeps_the_periodic_trigger(void **state) {
    (void)state;
    setup(1000, 0, 3, 0);
    start(0);
    for (int i = 0; i < 4; i++) fire(0);
    assert_int_equal(k_.pending_count, 3);
    for (uint64_t id = 1; id <= 3; id++) {
        a_.count = 0;
        ckr_abort(&k_, id, CKR_DECLINED_BY_BARRIERS, 0, 0, true, &a_);
        assert_int_equal(count(CKR_FAIL_JOB), 0);
    }
    assert_true(k_.scheduling);
    assert_int_equal(k_.pending_count, 1);           /* the queued request went at the first abort */
}

/* CheckpointRequestDeciderTest#testQueueSizeLimit (queue of 10): while
 * the request cannot go, the 11th is refused. */
static void test_the_request_queue_refuses_requests_past_its_size(void **state) {
    (void)state;
    ckr_cfg c = { .interval = 10, .timeout = 1000, .max_concurrent = 1, .queue_max = 10 };
    ckr_init(&k_, &c, 1);
    start(0);
    fire(0);                                          /* checkpoint 1 pending */
    for (int i = 1; i <= 11; i++) {
        fire(0);
        assert_int_equal(count(CKR_DROP), i == 11);
    }
    assert_int_equal(find_act(CKR_DROP)->why, CKR_TOO_MANY_REQUESTS);
    assert_int_equal(k_.queued, 10);
}

/* CheckpointRequestDeciderTest#testEnqueueOnTooManyPending: queued while
 * pending == max, taken once pending drops (here: 1 declined). */
static void test_a_queued_request_goes_when_a_pending_checkpoint_is_aborted(void **state) {
    (void)state;
    setup(10, 1, 1, 5);
    start(1);
    fire(1);
    fire(1);
    assert_int_equal(k_.queued, 1);
    a_.count = 0;
    ckr_abort(&k_, 1, CKR_EXPIRED, CKR_NO_TASK, 2, true, &a_);
    assert_int_equal(find_act(CKR_TRIGGER)->id, 2);   /* a failure does not start the min pause */
}

/* CheckpointCoordinator.getRandomInitDelay: [min pause, max(interval,
 * min pause)], both ends included (no Flink test pins it). */
static void test_the_first_delay_lies_between_the_min_pause_and_the_base_interval(void **state) {
    (void)state;
    int64_t lo, hi;
    setup(100, 30, 1, 0);
    ckr_init_delay_range(&k_, &lo, &hi);
    assert_int_equal(lo, 30);
    assert_int_equal(hi, 100);
    setup(100, 300, 1, 0);
    ckr_init_delay_range(&k_, &lo, &hi);
    assert_int_equal(lo, 300);
    assert_int_equal(hi, 300);
}

/* ---- CheckpointFailureManagerTest ---------------------------------------- */

/* #testIgnoresPastCheckpoints: tolerable 2: EXPIRED 1, 2, success 2,
 * EXPIRED 1 (past: ignored), 3, 4: never above 2. */
static void test_failures_of_checkpoints_before_the_last_success_are_ignored(void **state) {
    (void)state;
    ckr_fm f;
    ckr_fm_init(&f, 2);
    assert_false(ckr_fm_failure(&f, 1, CKR_EXPIRED));
    assert_false(ckr_fm_failure(&f, 2, CKR_EXPIRED));
    ckr_fm_success(&f, 2);
    assert_false(ckr_fm_failure(&f, 1, CKR_EXPIRED));
    assert_false(ckr_fm_failure(&f, 3, CKR_EXPIRED));
    assert_false(ckr_fm_failure(&f, 4, CKR_EXPIRED));
}

/* #testContinuousFailure: tolerable 2: DECLINED 1, 2, a failover's abort
 * of 3 (not counted), DECLINED 4: the third counted fails the job. */
static void test_the_failure_past_tolerable_fails_the_job(void **state) {
    (void)state;
    ckr_fm f;
    ckr_fm_init(&f, 2);
    assert_false(ckr_fm_failure(&f, 1, CKR_DECLINED));
    assert_false(ckr_fm_failure(&f, 2, CKR_DECLINED));
    assert_false(ckr_fm_failure(&f, 3, CKR_SUSPEND));
    assert_true(ckr_fm_failure(&f, 4, CKR_DECLINED));
    assert_int_equal(f.failures, 0);                  /* cleared before the job fails */
}

/* #testBreakContinuousFailure: IO 1, DECLINED 2, failover 3, success 4,
 * EXPIRED 5: the success breaks the run. */
static void test_a_success_breaks_the_run_of_failures(void **state) {
    (void)state;
    ckr_fm f;
    ckr_fm_init(&f, 2);
    assert_false(ckr_fm_failure(&f, 1, CKR_DECLINED));
    assert_false(ckr_fm_failure(&f, 2, CKR_DECLINED));
    assert_false(ckr_fm_failure(&f, 3, CKR_SUSPEND));
    ckr_fm_success(&f, 4);
    assert_false(ckr_fm_failure(&f, 5, CKR_EXPIRED));
}

/* #testTotalCountValue: tolerable 0, one failure of every reason (no
 * checkpoint id): the counted ones each fail the job; the others never. */
static void test_only_the_counted_reasons_fail_the_job(void **state) {
    (void)state;
    ckr_fm f;
    ckr_fm_init(&f, 0);
    uint32_t fails = 0;
    for (ckr_why w = CKR_DECLINED; w <= CKR_NOT_RUNNING; w++) fails += ckr_fm_failure(&f, 0, w);
    assert_int_equal(fails, 3);                       /* DECLINED (and ASYNC, IO), EXPIRED, FINALIZE */
}

/* #testIgnoreOneCheckpointRepeatedlyCountMultiTimes: DECLINED 1, 2,
 * failover 3, DECLINED 2 again: checkpoint 2 counts once. */
static void test_a_checkpoint_counts_once(void **state) {
    (void)state;
    ckr_fm f;
    ckr_fm_init(&f, 2);
    assert_false(ckr_fm_failure(&f, 1, CKR_DECLINED));
    assert_false(ckr_fm_failure(&f, 2, CKR_DECLINED));
    assert_false(ckr_fm_failure(&f, 3, CKR_SUSPEND));
    assert_false(ckr_fm_failure(&f, 2, CKR_DECLINED));
}

/* The coordinator's side: the job fails at the failure past tolerable
 * (a global failover: the act names whose decline it was, CKR_NO_TASK for
 * an expiry); the count starts again after it. */
static void test_the_coordinator_fails_the_job_past_tolerable_and_counts_anew(void **state) {
    (void)state;
    setup(10, 0, 1, 1);
    start(0);
    fire(0);
    a_.count = 0;
    ckr_abort(&k_, 1, CKR_DECLINED, 7, 0, true, &a_);
    assert_int_equal(count(CKR_FAIL_JOB), 0);
    fire(0);
    a_.count = 0;
    ckr_abort(&k_, 2, CKR_DECLINED, 7, 0, true, &a_);
    assert_int_equal(find_act(CKR_FAIL_JOB)->task, 7);
    fire(0);
    a_.count = 0;
    ckr_expire(&k_, 200000, true, &a_);
    assert_int_equal(count(CKR_FAIL_JOB), 0);         /* one after the clear: tolerated */
    fire(200000);
    a_.count = 0;
    ckr_expire(&k_, 400000, true, &a_);
    assert_int_equal(find_act(CKR_FAIL_JOB)->task, CKR_NO_TASK);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_periodic_firings_trigger_increasing_checkpoints_until_stopped),
        cmocka_unit_test(test_a_periodic_request_without_the_scheduler_triggers_nothing),
        cmocka_unit_test(test_max_concurrent_checkpoints_queue_the_next_request_until_one_completes),
        cmocka_unit_test(test_a_completion_subsumes_older_pending_checkpoints),
        cmocka_unit_test(test_a_periodic_request_inside_the_min_pause_is_dropped),
        cmocka_unit_test(test_the_next_trigger_waits_the_min_pause_after_a_completion),
        cmocka_unit_test(test_a_queued_request_is_dropped_at_a_completion_inside_the_min_pause),
        cmocka_unit_test(test_firings_while_tasks_do_not_run_fail_and_the_timer_goes_on),
        cmocka_unit_test(test_aborting_pending_checkpoints_keeps_the_periodic_trigger),
        cmocka_unit_test(test_the_request_queue_refuses_requests_past_its_size),
        cmocka_unit_test(test_a_queued_request_goes_when_a_pending_checkpoint_is_aborted),
        cmocka_unit_test(test_the_first_delay_lies_between_the_min_pause_and_the_base_interval),
        cmocka_unit_test(test_failures_of_checkpoints_before_the_last_success_are_ignored),
        cmocka_unit_test(test_the_failure_past_tolerable_fails_the_job),
        cmocka_unit_test(test_a_success_breaks_the_run_of_failures),
        cmocka_unit_test(test_only_the_counted_reasons_fail_the_job),
        cmocka_unit_test(test_a_checkpoint_counts_once),
        cmocka_unit_test(test_the_coordinator_fails_the_job_past_tolerable_and_counts_anew),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
