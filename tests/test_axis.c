/* tests/test_axis.c: the time axis of the pictures (reports/axis.c)
 * draws everything but its breaks on one scale, leaves long quiet
 * stretches out as marked breaks, and never runs backwards. */
#include "harness.h"

#include "../reports/axis.h"

#define MS(x) ((sim_time_ns)(x) * SIM_NS_PER_MS)
#define SPAN(a, b) { (a), (b), 0 }

static const axis_cfg cfg = { .target_px = 1000, .max_width_px = 3000, .gap_px = 40, .max_px_per_ms = 2000 };

/* Pixels a millisecond of every segment that is not a break: all equal. */
static double one_scale(const axis *a) {
    double px_per_ms = -1;
    for (uint32_t s = 0; s < a->count; s++) {
        const axis_seg *g = &a->seg[s];
        if (g->gap) continue;
        double k = (g->x1 - g->x0) / (double)(g->t1 - g->t0) * 1e6;
        if (px_per_ms < 0) px_per_ms = k;
        assert_true(k > px_per_ms * 0.999999 && k < px_per_ms * 1.000001);
    }
    assert_true(px_per_ms > 0);
    assert_true(px_per_ms > a->px_per_ns * 1e6 * 0.999999 && px_per_ms < a->px_per_ns * 1e6 * 1.000001);
    return px_per_ms;
}

static void test_the_window_maps_onto_its_ends_and_no_time_goes_backwards(void **state) {
    (void)state;
    axis_span sp[] = { SPAN(MS(30), MS(31)), SPAN(MS(10), MS(12)), SPAN(MS(11), MS(13)), SPAN(MS(90), MS(200)) };
    axis a;
    axis_build(&a, 5 * SIM_NS_PER_MS, 100 * SIM_NS_PER_MS, sp, 4, 150, &cfg);
    assert_true(axis_x(&a, 0) == 150.0);
    assert_true(axis_x(&a, 5 * SIM_NS_PER_MS) == 150.0);
    assert_true(axis_x(&a, 100 * SIM_NS_PER_MS) == a.x_end);
    assert_true(axis_x(&a, 500 * SIM_NS_PER_MS) == a.x_end);
    double last = -1;
    for (sim_time_ns t = 5 * SIM_NS_PER_MS; t <= 100 * SIM_NS_PER_MS; t += 37 * SIM_NS_PER_US) {
        double x = axis_x(&a, t);
        assert_true(x >= last);
        last = x;
    }
    for (uint32_t s = 1; s < a.count; s++) {          /* segments tile the window */
        assert_true(a.seg[s].t0 == a.seg[s - 1].t1);
        assert_true(a.seg[s].x0 == a.seg[s - 1].x1);
    }
}

static void test_busy_spans_merge_and_long_quiet_stretches_become_marked_breaks(void **state) {
    (void)state;
    axis_span sp[] = { SPAN(MS(10), MS(12)), SPAN(MS(11), MS(13)), SPAN(MS(30), MS(31)) };
    axis a;
    axis_build(&a, 5 * SIM_NS_PER_MS, 40 * SIM_NS_PER_MS, sp, 3, 0, &cfg);
    /* break 5..10, span 10..13 (merged), break 13..30, span 30..31, break 31..40 */
    assert_int_equal(a.count, 5);
    assert_true(a.seg[1].t0 == 10 * SIM_NS_PER_MS && a.seg[1].t1 == 13 * SIM_NS_PER_MS && !a.seg[1].gap);
    assert_true(a.seg[0].gap && a.seg[2].gap && a.seg[4].gap && a.seg[2].x1 - a.seg[2].x0 == cfg.gap_px);
    /* busy time 4 ms over 1000 px: 250 px/ms, the 3 ms span three times the 1 ms one */
    assert_true(a.seg[1].x1 - a.seg[1].x0 == 750.0);
    assert_true(a.seg[3].x1 - a.seg[3].x0 == 250.0);
    assert_true(one_scale(&a) > 249.999 && one_scale(&a) < 250.001);
    axis_span near[] = { SPAN(MS(10), MS(12)), SPAN(MS(12) + 100 * SIM_NS_PER_US, MS(14)) };
    axis_build(&a, MS(10), MS(14), near, 2, 0, &cfg);   /* a quiet 100 us: 26 px at scale, under gap_px: kept */
    assert_int_equal(a.count, 3);
    assert_false(a.seg[1].gap);
    assert_true(one_scale(&a) > 256.0 && one_scale(&a) < 257.0);
}

static void test_a_span_that_asks_for_width_raises_the_one_scale_within_the_widest(void **state) {
    (void)state;
    /* 50 us asking 200 px: 4000 px/ms wanted, the cap is 2000 */
    axis_span one[] = { { MS(30), MS(30) + 50 * SIM_NS_PER_US, 200 } };
    axis a;
    axis_build(&a, MS(29), MS(31), one, 1, 0, &cfg);
    assert_true(a.seg[1].x1 - a.seg[1].x0 > 99.999 && a.seg[1].x1 - a.seg[1].x0 < 100.001);
    /* a 1 ms span asking 200 px beside a 9 ms one: 200 px/ms, 2000 px of busy spans, within 3000 */
    axis_span two[] = { { MS(10), MS(11), 200 }, SPAN(MS(20), MS(29)) };
    axis_build(&a, MS(10), MS(29), two, 2, 0, &cfg);
    assert_true(one_scale(&a) > 199.999 && one_scale(&a) < 200.001);
    /* asking 1000 px: 1000 px/ms would make 10 ms of spans 10000 px wide; held to 3000 */
    axis_span big[] = { { MS(10), MS(11), 1000 }, SPAN(MS(20), MS(29)) };
    axis_build(&a, MS(10), MS(29), big, 2, 0, &cfg);
    assert_true(one_scale(&a) > 299.999 && one_scale(&a) < 300.001);
}

static void test_no_busy_span_is_one_linear_segment_and_ticks_are_round(void **state) {
    (void)state;
    axis a;
    axis_build(&a, 0, 20 * SIM_NS_PER_MS, NULL, 0, 10, &cfg);
    assert_int_equal(a.count, 1);
    assert_false(a.seg[0].gap);
    assert_true(axis_x(&a, 10 * SIM_NS_PER_MS) == 10 + cfg.target_px / 2);
    sim_time_ns step = axis_tick_ns(&a, 70);        /* 50 px/ms: 70 px needs 2 ms */
    assert_int_equal(step, 2 * SIM_NS_PER_MS);
}

static void test_more_spans_than_segments_are_merged_into_the_limit(void **state) {
    (void)state;
    static axis_span sp[1000];
    for (uint32_t i = 0; i < 1000; i++) {
        sp[i] = (axis_span){ MS(i * 10), MS(i * 10 + 1), 0 };
    }
    axis a;
    axis_build(&a, 0, 10000 * SIM_NS_PER_MS, sp, 1000, 0, &cfg);
    assert_true(a.count <= AXIS_SEGS_MAX);
    assert_true(axis_x(&a, 10000 * SIM_NS_PER_MS) == a.x_end);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_window_maps_onto_its_ends_and_no_time_goes_backwards),
        cmocka_unit_test(test_busy_spans_merge_and_long_quiet_stretches_become_marked_breaks),
        cmocka_unit_test(test_a_span_that_asks_for_width_raises_the_one_scale_within_the_widest),
        cmocka_unit_test(test_no_busy_span_is_one_linear_segment_and_ticks_are_round),
        cmocka_unit_test(test_more_spans_than_segments_are_merged_into_the_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
