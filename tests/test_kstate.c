/* tests/test_kstate.c: keyed aggregates that checkers compare. */
#include "harness.h"

#include "../model/kstate.h"

static sim_run *make_run(void) {
    sim_cfg c = test_cfg(1);
    c.model_bytes = 16u << 20;
    return sim_run_create(&c);
}

static model_rec rec_of(uint64_t id, uint64_t key, int64_t value) {
    return (model_rec){ .id = id, .key = key, .value = value };
}

static void test_kstate_aggregates_do_not_depend_on_fold_order(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate a, b;
    kstate_init(&a, run, 1000);
    kstate_init(&b, run, 1000);
    for (uint64_t i = 0; i < 5000; i++) kstate_fold(&a, &(model_rec){ .id = i, .key = i % 700, .value = (int64_t)i });
    for (uint64_t i = 5000; i-- > 0;) kstate_fold(&b, &(model_rec){ .id = i, .key = i % 700, .value = (int64_t)i });
    uint64_t k;
    assert_true(kstate_equal(&a, &b, &k));
    assert_int_equal(a.count, 700);
    const kagg *g = kstate_find(&a, 3);
    assert_non_null(g);
    assert_int_equal(g->count, 8);             /* 3, 703, ..., 4903 */
    assert_null(kstate_find(&a, 700));
    sim_run_destroy(run);
}

static void test_kstate_a_duplicate_or_a_loss_is_visible_and_named(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate a, b, c;
    kstate_init(&a, run, 100);
    kstate_init(&b, run, 100);
    kstate_init(&c, run, 100);
    for (uint64_t i = 0; i < 300; i++) {
        model_rec r = rec_of(i, i % 50, 1);
        kstate_fold(&a, &r);
        kstate_fold(&b, &r);
        if (i != 120) kstate_fold(&c, &r);    /* c loses record 120 (key 20) */
    }
    kstate_fold(&b, &(model_rec){ .id = 77, .key = 27, .value = 1 });   /* b: duplicate of 77 */
    uint64_t k = 0;
    assert_false(kstate_equal(&a, &b, &k));
    assert_int_equal(k, 27);
    assert_false(kstate_equal(&a, &c, &k));
    assert_int_equal(k, 20);
    /* Same count and sum, other record: only the fingerprint tells. */
    kstate d;
    kstate_init(&d, run, 100);
    kstate_copy(&d, &a);
    kagg *x = kstate_upsert(&d, 5);
    x->fingerprint += kstate_record_mark(9999) - kstate_record_mark(5);
    assert_false(kstate_equal(&a, &d, &k));
    assert_int_equal(k, 5);
    sim_run_destroy(run);
}

static void test_kstate_copy_is_a_snapshot_later_updates_do_not_touch(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate live, snap, big;
    kstate_init(&live, run, 100);
    kstate_init(&snap, run, 100);
    kstate_init(&big, run, 10000);
    for (uint64_t i = 0; i < 60; i++) kstate_fold(&live, &(model_rec){ .id = i, .key = i, .value = 2 });
    kstate_copy(&snap, &live);
    kstate_copy(&big, &live);                  /* other capacity: rehashed */
    uint64_t k;
    assert_true(kstate_equal(&snap, &live, &k));
    assert_true(kstate_equal(&big, &live, &k));
    kstate_fold(&live, &(model_rec){ .id = 1000, .key = 4, .value = 2 });
    assert_int_equal(kstate_find(&snap, 4)->count, 1);
    assert_int_equal(kstate_find(&live, 4)->count, 2);
    kstate_clear(&live);
    assert_int_equal(live.count, 0);
    assert_null(kstate_find(&live, 4));
    sim_run_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kstate_aggregates_do_not_depend_on_fold_order),
        cmocka_unit_test(test_kstate_a_duplicate_or_a_loss_is_visible_and_named),
        cmocka_unit_test(test_kstate_copy_is_a_snapshot_later_updates_do_not_touch),
    };
    return cmocka_run_group_tests_name("kstate", tests, NULL, NULL);
}
