/* tests/test_buggify.c: two-level fault activation (scenarios/buggify.h):
 * a quarter of the sites active per seed, a quarter of an active site's
 * points firing, at most BGY_FIRES_MAX kept as optional `fault when`
 * lines the reader accepts, the same for the same seed. The rates are
 * held to FoundationDB's 1/4 and 1/4 over fixed seeds, within four
 * standard deviations (the seeds' draws are independent). */
#include "harness.h"

#include "../scenarios/buggify.h"
#include "../model/pipe.h"

#include <math.h>
#include <stdlib.h>

#define JOB_TEXT HARNESS_JOIN_JOB "state backend durable\n"

static scn s_, scratch_, with_;
static spc_menu menu_;
static spc_points pts_;

/* The points of the job's failure-free run and its menu (every kind). */
static void space(void) {
    char err[SCN_ERR_BYTES];
    assert_true(scn_parse(&s_, "t.scn", JOB_TEXT, strlen(JOB_TEXT), err, sizeof err));
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    spc_points_free(&pts_);                       /* the previous test's */
    assert_true(spc_points_init(&pts_, pipe_job(p)));
    static scn_armed arm;
    scn_arm_faults(&s_, p, &arm, spc_points_observe, &pts_);
    pipe_run(p);
    spc_opts o = { .kinds = spc_kinds_all(), .window_ns = 4 * SIM_NS_PER_MS };
    spc_menu_build(&s_, pipe_job(p), &o, &scratch_, &menu_);
    pts_.j = NULL;
    pipe_destroy(p);
}

static bool near(double got, double runs, double p, const char *what) {
    double mean = runs * p, sd = sqrt(runs * p * (1 - p));
    print_message("%s: %.0f (expected %.0f, sd %.1f)\n", what, got, mean, sd);
    return fabs(got - mean) <= 4 * sd;
}

static void test_a_quarter_of_the_sites_is_active_and_a_quarter_of_their_points_fire(void **state) {
    (void)state;
    space();
    double sites = 0, active = 0, fired = 0, chances = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        with_ = s_;
        bgy_tally t;
        bgy_faults(&with_, seed, &pts_, &menu_, &t);
        assert_true(t.sites > 50);                /* 6 point kinds x the menu's kinds */
        sites += t.sites;
        active += t.active;
        fired += (double)t.fired;
        chances += (double)t.chances;
        assert_int_equal(t.added, t.fired < BGY_FIRES_MAX ? t.fired : BGY_FIRES_MAX);
    }
    assert_true(near(active, sites, 0.25, "active sites"));
    assert_true(near(fired, chances, 0.25, "firings"));
}

/* The lines: at most BGY_FIRES_MAX, at points of the run in its order,
 * optional, of the menu's faults, accepted by the reader; the same for
 * the same seed and another for another. */
static void test_the_firings_are_optional_fault_lines_in_point_order_and_the_same_per_seed(void **state) {
    (void)state;
    space();
    char err[SCN_ERR_BYTES];
    uint32_t differ = 0;
    static scn again;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        bgy_tally t, u;
        with_ = s_;
        bgy_faults(&with_, seed, &pts_, &menu_, &t);
        again = s_;
        bgy_faults(&again, seed, &pts_, &menu_, &u);
        assert_int_equal(with_.faults_count, t.added);
        assert_int_equal(again.faults_count, with_.faults_count);
        assert_memory_equal(again.faults, with_.faults, sizeof with_.faults[0] * with_.faults_count);
        uint32_t last = 0;
        for (uint32_t i = 0; i < with_.faults_count; i++) {
            const scn_fault *f = &with_.faults[i];
            assert_true(f->optional && f->point != SCN_AT_TIME && f->at_ns == 0);
            uint32_t at = 0;
            while (at < pts_.count && spc_point_key(&pts_.at[at]) != spc_point_key(f)) at++;
            assert_true(at < pts_.count);         /* a point the run reached */
            assert_true(at >= last);
            last = at;
        }
        assert_true(scn_reparse(&with_, &scratch_, err, sizeof err));
        if (seed > 1) {
            again = s_;
            bgy_faults(&again, seed - 1, &pts_, &menu_, &u);
            differ += again.faults_count != with_.faults_count ||
                      memcmp(again.faults, with_.faults, sizeof with_.faults[0] * with_.faults_count) != 0;
        }
    }
    assert_true(differ > 50);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_quarter_of_the_sites_is_active_and_a_quarter_of_their_points_fire),
        cmocka_unit_test(test_the_firings_are_optional_fault_lines_in_point_order_and_the_same_per_seed),
    };
    int rc = cmocka_run_group_tests_name("buggify", tests, NULL, NULL);
    spc_points_free(&pts_);
    return rc;
}
