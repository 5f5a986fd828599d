/* tests/test_restart.c: the restart-backoff strategies (model/flow/restart.h)
 * held to Flink's own unit tests, transcribed as inputs and expected
 * outputs (times in milliseconds, as Flink's ManualClock counts them).
 * Each test names the Flink test method it comes from; the files are
 * flink-runtime/src/test/java/org/apache/flink/runtime/executiongraph/
 * failover/{FixedDelay,FailureRate,ExponentialDelay}RestartBackoffTimeStrategyTest.java
 * (Flink 1.19 to 2.x; the exponential one after FLIP-364). */
#include "harness.h"

#include "../model/flow/restart.h"
#include "../sim/rng.h"

static rs_cfg fixed(uint32_t attempts, int64_t delay) {
    return (rs_cfg){ .kind = RS_FIXED_DELAY, .attempts = attempts, .delay = delay };
}

static rs_cfg rate(uint32_t max, int64_t interval, int64_t delay) {
    return (rs_cfg){ .kind = RS_FAILURE_RATE, .max_failures = max, .interval = interval, .delay = delay };
}

/* ExponentialDelayRestartBackoffTimeStrategy(clock, initial, max, multiplier, reset, jitter, attempts) */
static rs_cfg expo(int64_t initial, int64_t max, uint32_t mult_milli, int64_t reset, uint32_t jitter_milli,
                   uint32_t attempts) {
    rs_cfg c = { .kind = RS_EXPONENTIAL, .initial = initial, .max = max, .multiplier_milli = mult_milli,
                 .reset = reset, .jitter_milli = jitter_milli, .attempts = attempts };
    assert_null(rs_cfg_error(&c));
    return c;
}

static int64_t draw_rng(void *ctx, int64_t base, int64_t off) {
    (void)base;
    return (int64_t)rng_below(ctx, (uint32_t)(2 * off + 1)) - off;
}

static rng rng_;

/* FixedDelayRestartBackoffTimeStrategyTest#testNumberOfRestarts: 3
 * attempts; canRestart has no side effect; the 4th failure gives up. */
static void test_fixed_delay_allows_as_many_restarts_as_attempts(void **state) {
    (void)state;
    rs_cfg c = fixed(3, 0);
    rs_state s;
    rs_init(&s);
    for (int i = 0; i < 3; i++) {
        rs_notify(&s, &c, 0, NULL, NULL);
        assert_true(rs_can_restart(&s, &c, 0));
        assert_true(rs_can_restart(&s, &c, 0));
    }
    rs_notify(&s, &c, 0, NULL, NULL);
    assert_false(rs_can_restart(&s, &c, 0));
}

/* FixedDelayRestartBackoffTimeStrategyTest#testBackoffTime and
 * FailureRateRestartBackoffTimeStrategyTest#testBackoffTime: the backoff
 * is the configured delay, before any failure too. */
static void test_fixed_delay_and_failure_rate_back_off_by_their_delay(void **state) {
    (void)state;
    rs_state s;
    rs_init(&s);
    rs_cfg f = fixed(1, 10000), r = rate(1, 1, 10000);
    assert_int_equal(rs_backoff(&s, &f, 0), 10000);
    assert_int_equal(rs_backoff(&s, &r, 0), 10000);
}

/* FailureRateRestartBackoffTimeStrategyTest#testManyFailuresWithinRate:
 * 1 failure per 1 ms, failures 2 ms apart always restart. */
static void test_failure_rate_restarts_failures_spread_wider_than_the_interval(void **state) {
    (void)state;
    rs_cfg c = rate(1, 1, 0);
    rs_state s;
    rs_init(&s);
    rs_notify(&s, &c, 0, NULL, NULL);
    assert_true(rs_can_restart(&s, &c, 0));
    rs_notify(&s, &c, 2, NULL, NULL);
    assert_true(rs_can_restart(&s, &c, 2));
    rs_notify(&s, &c, 4, NULL, NULL);
    assert_true(rs_can_restart(&s, &c, 4));
    assert_true(rs_can_restart(&s, &c, 6));
}

/* FailureRateRestartBackoffTimeStrategyTest#testFailuresExceedingRate: 3
 * per 10 s, four failures at one time: three restart, the 4th gives up. */
static void test_failure_rate_gives_up_at_the_failure_after_max(void **state) {
    (void)state;
    rs_cfg c = rate(3, 10000, 0);
    rs_state s;
    rs_init(&s);
    for (int i = 0; i < 3; i++) {
        rs_notify(&s, &c, 0, NULL, NULL);
        assert_true(rs_can_restart(&s, &c, 0));
    }
    rs_notify(&s, &c, 0, NULL, NULL);
    assert_false(rs_can_restart(&s, &c, 0));
}

/* FailureRateRestartBackoffTimeStrategy's strict comparison (FLINK-20752):
 * a failure exactly one interval after the oldest kept one is inside the
 * window; one unit later it is not. */
static void test_failure_rate_window_is_closed_at_its_far_end(void **state) {
    (void)state;
    rs_cfg c = rate(2, 100, 5);
    rs_state s;
    rs_init(&s);
    assert_true(rs_on_failure(&s, &c, 0, NULL, NULL).restart);
    assert_true(rs_on_failure(&s, &c, 50, NULL, NULL).restart);
    assert_false(rs_on_failure(&s, &c, 100, NULL, NULL).restart);
    rs_init(&s);
    rs_on_failure(&s, &c, 0, NULL, NULL);
    rs_on_failure(&s, &c, 50, NULL, NULL);
    rs_decision d = rs_on_failure(&s, &c, 101, NULL, NULL);
    assert_true(d.restart);
    assert_int_equal(d.backoff, 5);
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testMaxAttempts: 13
 * attempts before reset, failures max + 1 apart (no reset): 14 new
 * attempts restart until the count passes 13. */
static void test_exponential_gives_up_after_its_attempts_before_reset(void **state) {
    (void)state;
    rs_cfg c = expo(1, 3, 1200, 10, 250, 13);
    rs_state s;
    rs_init(&s);
    rng_seed(&rng_, 1, 1);
    int64_t t = 0;
    for (int i = 0; i <= 13; i++, t += 4) {
        assert_true(rs_can_restart(&s, &c, t));
        assert_true(rs_notify(&s, &c, t, draw_rng, &rng_));
    }
    assert_false(rs_can_restart(&s, &c, t));
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testInitialBackoff. */
static void test_exponential_first_backoff_is_the_initial_one(void **state) {
    (void)state;
    rs_cfg c = expo(42, 45, 2000, 8, 0, RS_UNLIMITED);
    rs_state s;
    rs_init(&s);
    rs_notify(&s, &c, 0, NULL, NULL);
    assert_int_equal(rs_backoff(&s, &c, 0), 42);
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testMaxBackoff: ten
 * failures at one time never back off beyond the max (the first opens an
 * attempt of 1, the others join it). */
static void test_exponential_never_backs_off_beyond_its_max(void **state) {
    (void)state;
    rs_cfg c = expo(1, 6, 2000, 8, 250, RS_UNLIMITED);
    rs_state s;
    rs_init(&s);
    rng_seed(&rng_, 2, 1);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(rs_notify(&s, &c, 0, draw_rng, &rng_), i == 0);
        assert_true(rs_backoff(&s, &c, 0) <= 6);
        assert_int_equal(rs_backoff(&s, &c, 0), 1);
    }
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testResetBackoff: the
 * reset threshold counts from the scheduled restart (t=1): a failure at
 * t=8 (7 after it) doubles, one at t=18 (8 after the restart at t=10)
 * resets. */
static void test_exponential_resets_once_the_job_ran_the_threshold_after_its_restart(void **state) {
    (void)state;
    rs_cfg c = expo(1, 5, 2000, 8, 250, RS_UNLIMITED);
    rs_state s;
    rs_init(&s);
    assert_true(rs_notify(&s, &c, 0, NULL, NULL));    /* jitter offset (long)(1 x 0.25) = 0 */
    assert_true(rs_notify(&s, &c, 8, NULL, NULL));    /* offset (long)(2 x 0.25) = 0 */
    assert_int_equal(rs_backoff(&s, &c, 8), 2);
    assert_true(rs_notify(&s, &c, 18, NULL, NULL));
    assert_int_equal(rs_backoff(&s, &c, 18), 1);
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testBackoffMultiplier:
 * initial 4, multiplier 2.3, failures 301 apart: 4, 9 (9.2), 21 (21.16:
 * the power is taken whole, then truncated). */
static void test_exponential_backoff_is_initial_times_the_multiplier_power_truncated(void **state) {
    (void)state;
    rs_cfg c = expo(4, 300, 2300, INT32_MAX, 0, 10);
    rs_state s;
    rs_init(&s);
    const int64_t want[] = { 4, 9, 21 };
    for (int i = 0; i < 3; i++) {
        assert_true(rs_notify(&s, &c, 301 * i, NULL, NULL));
        assert_int_equal(rs_backoff(&s, &c, 301 * i), want[i]);
    }
}

/* The set of backoffs a fresh strategy gives after k failures 8 ms apart,
 * over 1000 strategies (one clock for all, as the Flink test's). */
static uint32_t jitter_set(const rs_cfg *c, int k, int64_t *clock) {
    uint32_t seen = 0;                            /* bit v: backoff v seen */
    for (int n = 0; n < 1000; n++) {
        rs_state s;
        rs_init(&s);
        for (int i = 0; i < k; i++) {
            *clock += 8;
            assert_true(rs_notify(&s, c, *clock, draw_rng, &rng_));
        }
        int64_t b = rs_backoff(&s, c, *clock);
        assert_true(b >= 0 && b < 32);
        seen |= 1u << b;
    }
    return seen;
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testJitter: initial 2,
 * max 7, x2, jitter 0.25: after 2 failures {3,4,5}; after 3 {6,7}; after
 * 4 {7}. */
static void test_exponential_jitter_spreads_the_backoff_within_its_factor(void **state) {
    (void)state;
    rs_cfg c = expo(2, 7, 2000, INT32_MAX, 250, RS_UNLIMITED);
    rng_seed(&rng_, 3, 1);
    int64_t clock = 0;
    assert_int_equal(jitter_set(&c, 2, &clock), 1u << 3 | 1u << 4 | 1u << 5);
    assert_int_equal(jitter_set(&c, 3, &clock), 1u << 6 | 1u << 7);
    assert_int_equal(jitter_set(&c, 4, &clock), 1u << 7);
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testJitterNoHigherThanMax:
 * initial 1, max 7, x2, jitter 1.0: after 1 failure {1,2}; after 2
 * {1..4}; after 3 {1..7} (clamped to [initial, max]). */
static void test_exponential_jitter_stays_within_initial_and_max(void **state) {
    (void)state;
    rs_cfg c = expo(1, 7, 2000, INT32_MAX, 1000, RS_UNLIMITED);
    rng_seed(&rng_, 4, 1);
    int64_t clock = 0;
    assert_int_equal(jitter_set(&c, 1, &clock), 0x6u);
    assert_int_equal(jitter_set(&c, 2, &clock), 0x1eu);
    assert_int_equal(jitter_set(&c, 3, &clock), 0xfeu);
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testMultipleSettings:
 * initial 1, max 9, x2, reset 80, jitter 0.25. */
static void test_exponential_resets_and_grows_as_flinks_multiple_settings_test(void **state) {
    (void)state;
    rs_cfg c = expo(1, 9, 2000, 80, 250, RS_UNLIMITED);
    rs_state s;
    rs_init(&s);
    const int64_t at[] = { 0, 81, 85, 175, 185 }, want[] = { 1, 1, 2, 1, 2 };
    for (int i = 0; i < 5; i++) {
        assert_true(rs_notify(&s, &c, at[i], NULL, NULL));
        assert_true(rs_can_restart(&s, &c, at[i]));
        assert_int_equal(rs_backoff(&s, &c, at[i]), want[i]);
    }
}

/* The Flink test's checkMultipleExceptionsAreMergedIntoOneAttempt: for
 * each unit until the restart (expected backoff e), ten failures: the
 * first of all is a new attempt, the others join it; the backoff counts
 * down to the scheduled restart. */
static int64_t merged(rs_state *s, const rs_cfg *c, int64_t t, int64_t e, bool first_new) {
    for (int64_t a = 0; a < e; a++, t++) {
        for (int i = 0; i < 10; i++) {
            assert_int_equal(rs_notify(s, c, t, NULL, NULL), first_new && a == 0 && i == 0);
            assert_true(rs_can_restart(s, c, t));
            assert_int_equal(rs_backoff(s, c, t), e - a);
        }
    }
    return t;
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testMergeMultipleExceptionsIntoOneAttempt:
 * initial 2, max 6, x2, reset 80, attempts 3: attempts of 2, 4 and 6
 * absorb every failure until their restart; the 4th attempt gives up. */
static void test_exponential_failures_before_the_scheduled_restart_join_its_attempt(void **state) {
    (void)state;
    rs_cfg c = expo(2, 6, 2000, 80, 0, 3);
    rs_state s;
    rs_init(&s);
    int64_t t = merged(&s, &c, 0, 2, true);
    t = merged(&s, &c, t + 1, 4, true);
    t = merged(&s, &c, t + 1, 6, true);
    assert_true(rs_notify(&s, &c, t + 1, NULL, NULL));
    assert_false(rs_can_restart(&s, &c, t + 1));
}

/* ExponentialDelayRestartBackoffTimeStrategyTest#testMergingExceptionsWorksWithResetting:
 * ten rounds of the three attempts, each round 80 after the last restart
 * (exactly the threshold): every round starts again at 2. */
static void test_exponential_merging_and_resetting_repeat(void **state) {
    (void)state;
    rs_cfg c = expo(2, 6, 2000, 80, 0, 3);
    rs_state s;
    rs_init(&s);
    int64_t t = 0;
    for (int round = 0; round < 10; round++) {
        t = merged(&s, &c, t, 2, true);
        t = merged(&s, &c, t + 1, 4, true);
        t = merged(&s, &c, t + 1, 6, true);
        t += 80;
    }
}

/* RestartBackoffTimeStrategy's contract as the scheduler
 * (ExecutionFailureHandler) uses it: a failure the strategy refuses
 * gives no backoff; none never restarts. */
static void test_none_never_restarts(void **state) {
    (void)state;
    rs_cfg c = { .kind = RS_NONE };
    rs_state s;
    rs_init(&s);
    rs_decision d = rs_on_failure(&s, &c, 0, NULL, NULL);
    assert_false(d.restart);
    assert_int_equal(d.backoff, 0);
}

/* The constructors' checks (ExponentialDelayRestartBackoffTimeStrategy):
 * multiplier above 1, initial at most max, jitter within [0, 1]. */
static void test_exponential_refuses_what_flinks_constructor_refuses(void **state) {
    (void)state;
    rs_cfg c = { .kind = RS_EXPONENTIAL, .initial = 1, .max = 5, .multiplier_milli = 1000, .reset = 1, .attempts = 1 };
    assert_non_null(rs_cfg_error(&c));
    c.multiplier_milli = 1500;
    assert_null(rs_cfg_error(&c));
    c.initial = 6;
    assert_non_null(rs_cfg_error(&c));
    c.initial = 1;
    c.jitter_milli = 1001;
    assert_non_null(rs_cfg_error(&c));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_delay_allows_as_many_restarts_as_attempts),
        cmocka_unit_test(test_fixed_delay_and_failure_rate_back_off_by_their_delay),
        cmocka_unit_test(test_failure_rate_restarts_failures_spread_wider_than_the_interval),
        cmocka_unit_test(test_failure_rate_gives_up_at_the_failure_after_max),
        cmocka_unit_test(test_failure_rate_window_is_closed_at_its_far_end),
        cmocka_unit_test(test_exponential_gives_up_after_its_attempts_before_reset),
        cmocka_unit_test(test_exponential_first_backoff_is_the_initial_one),
        cmocka_unit_test(test_exponential_never_backs_off_beyond_its_max),
        cmocka_unit_test(test_exponential_resets_once_the_job_ran_the_threshold_after_its_restart),
        cmocka_unit_test(test_exponential_backoff_is_initial_times_the_multiplier_power_truncated),
        cmocka_unit_test(test_exponential_jitter_spreads_the_backoff_within_its_factor),
        cmocka_unit_test(test_exponential_jitter_stays_within_initial_and_max),
        cmocka_unit_test(test_exponential_resets_and_grows_as_flinks_multiple_settings_test),
        cmocka_unit_test(test_exponential_failures_before_the_scheduled_restart_join_its_attempt),
        cmocka_unit_test(test_exponential_merging_and_resetting_repeat),
        cmocka_unit_test(test_none_never_restarts),
        cmocka_unit_test(test_exponential_refuses_what_flinks_constructor_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
