/* tests/test_window.c: the windows' arithmetic (model/flow/window.h) and
 * the broker's event times with a disorder. */
#include "harness.h"

#include "../model/flow/broker.h"
#include "../model/flow/window.h"

static job_vertex window_of(sim_time_ns size_ns, sim_time_ns slide_ns, sim_time_ns lateness_ns) {
    return (job_vertex){ .kind = JOB_WINDOW, .window_size_ns = size_ns, .window_slide_ns = slide_ns,
                         .lateness_ns = lateness_ns };
}

static void test_window_a_tumbling_window_holds_each_event_time_once(void **state) {
    (void)state;
    job_vertex x = window_of(5000, 5000, 700);
    for (sim_time_ns et = 0; et < 40000; et += 333) {
        uint64_t wi[WIN_PER_RECORD_MAX];
        assert_int_equal(win_assign(&x, et, wi), 1);
        int64_t start = win_start(&x, wi[0]);
        assert_true(start <= (int64_t)et && (int64_t)et < start + 5000);
        assert_int_equal(start % 5000, 0);
        assert_int_equal(win_max_ts(&x, wi[0]), start + 4999);
        assert_int_equal(win_cleanup(&x, wi[0]), start + 4999 + 700);
        assert_true(wi[0] >= 1 && wi[0] < win_count(&x, 40000));
    }
}

/* Sliding windows of 2000 every 500: four windows hold each time, their
 * starts 500 apart and below it; the first records' windows start below
 * 0 and still number from 1. */
static void test_window_sliding_windows_hold_each_event_time_in_size_over_slide_windows(void **state) {
    (void)state;
    job_vertex x = window_of(2000, 500, 0);
    for (sim_time_ns et = 0; et < 20000; et += 77) {
        uint64_t wi[WIN_PER_RECORD_MAX];
        uint32_t n = win_assign(&x, et, wi);
        assert_int_equal(n, 4);
        for (uint32_t k = 0; k < n; k++) {
            int64_t start = win_start(&x, wi[k]);
            assert_true(start <= (int64_t)et && (int64_t)et < start + 2000);
            assert_true(wi[k] >= 1 && wi[k] < win_count(&x, 20000));
            if (k > 0) assert_int_equal(wi[k - 1], wi[k] + 1);   /* the latest start first */
        }
    }
    uint64_t wi[WIN_PER_RECORD_MAX];
    assert_int_equal(win_assign(&x, 10, wi), 4);
    assert_int_equal(win_start(&x, wi[3]), -1500);
    job_vertex odd = window_of(1000, 300, 0);    /* a slide that does not divide the size */
    assert_int_equal(win_assign(&odd, 999, wi), 4);    /* starts 900, 600, 300 and 0 */
    assert_int_equal(win_start(&odd, wi[3]), 0);
    assert_int_equal(win_assign(&odd, 1000, wi), 3);   /* [0, 1000) does not hold 1000 */
    assert_int_equal(win_start(&odd, wi[2]), 300);
}

static void test_window_keys_and_result_ids_decode_to_what_they_name(void **state) {
    (void)state;
    uint64_t keys[] = { 0, 1, 499, (1u << 22) - 1 }, wins[] = { 1, 2, 4000, WIN_INDEX_MAX - 1 };
    for (uint32_t a = 0; a < 4; a++) {
        for (uint32_t b = 0; b < 4; b++) {
            for (uint32_t tag = 0; tag < 3; tag++) {
                uint64_t k = win_key(keys[a], wins[b], (win_tag)tag);
                assert_int_equal(win_key_key(k), keys[a]);
                assert_int_equal(win_key_index(k), wins[b]);
                assert_int_equal(win_key_tag(k), tag);
                assert_true(k != UINT64_MAX);       /* a map never takes it */
            }
            uint64_t id = win_result_id(31, keys[a], wins[b], 15);
            assert_true(win_is_result(id) && id != WIN_WM_ID);
            assert_int_equal(win_result_vertex(id), 31);
            assert_int_equal(win_result_firing(id), 15);
            assert_int_equal(win_result_index(id), wins[b]);
            assert_int_equal(win_result_key(id), keys[a]);
        }
    }
    uint64_t broker_id = ((uint64_t)(BROKER_PARTITIONS_MAX - 1) << 40) | BROKER_OFFSET_MAX;
    assert_false(win_is_result(broker_id));       /* the highest broker id has no top bit */
    model_rec wm = { .id = WIN_WM_ID }, r = { .id = broker_id };
    assert_true(win_is_watermark(&wm));
    assert_false(win_is_watermark(&r));
}

/* Without a disorder a partition's event times are (offset + 1) x gap;
 * with one they are that less at most the disorder, never below 0, the
 * same on every read, and out of order. */
static void test_window_broker_event_times_are_out_of_order_by_at_most_the_disorder(void **state) {
    (void)state;
    broker_topic_cfg t = { .partitions = 2, .records_per_partition = 5000, .event_gap_ns = 10000 };
    for (uint64_t o = 0; o < 100; o++) assert_int_equal(broker_event_time(&t, 1, o), (o + 1) * 10000);
    t.disorder_ns = 35000;
    uint32_t inverted = 0;
    sim_time_ns last = 0;
    for (uint64_t o = 0; o < 5000; o++) {
        sim_time_ns base = (o + 1) * 10000, et = broker_event_time(&t, 1, o);
        assert_true(et <= base && (et + 35000 >= base || et == 0));
        assert_int_equal(et, broker_event_time(&t, 1, o));
        inverted += et < last;
        last = et;
    }
    assert_true(inverted > 500);                  /* out of order, often */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_a_tumbling_window_holds_each_event_time_once),
        cmocka_unit_test(test_window_sliding_windows_hold_each_event_time_in_size_over_slide_windows),
        cmocka_unit_test(test_window_keys_and_result_ids_decode_to_what_they_name),
        cmocka_unit_test(test_window_broker_event_times_are_out_of_order_by_at_most_the_disorder),
    };
    return cmocka_run_group_tests_name("window", tests, NULL, NULL);
}
