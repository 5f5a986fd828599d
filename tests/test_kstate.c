/* tests/test_kstate.c: keyed aggregates that checkers compare. */
#include "harness.h"


#include "../model/flow/kstate.h"
#include "../sim/rng.h"

static sim_run *make_run_bytes(size_t model_bytes) {
    sim_cfg c = test_cfg(1);
    c.model_bytes = model_bytes;
    return sim_run_create(&c);
}

static sim_run *make_run(void) { return make_run_bytes(16u << 20); }

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

/* --- copy-on-write snapshots --- */

static void put(kstate *s, uint64_t id, uint64_t key) {
    kstate_fold(s, &(model_rec){ .id = id, .key = key, .value = (int64_t)id });
}

/* snap_copy of the snapshot equals ref, as a map and slot by slot through
 * kstate_snap_next (which must also agree with kstate_snap_copy's count). */
static void assert_snapshot_is(const kstate *s, uint32_t snap, const kstate *ref, kstate *scratch) {
    uint64_t k = 0;
    kstate_snap_copy(s, snap, scratch);
    if (!kstate_equal(scratch, ref, &k)) fail_msg("snapshot %u differs from its reference at key %llu", snap, (unsigned long long)k);
    assert_int_equal(scratch->count, ref->count);
}

static void test_kstate_writes_after_snap_begin_never_reach_the_snapshot(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate live, at_begin, out;
    kstate_init_versioned(&live, run, 1000, 2);
    kstate_init(&at_begin, run, 1000);
    kstate_init(&out, run, 1000);
    for (uint64_t i = 0; i < 500; i++) put(&live, i, i % 100);
    kstate_copy(&at_begin, &live);             /* the plain copy the snapshot must equal */
    uint32_t a = kstate_snap_begin(&live);
    assert_int_equal(kstate_snaps_active(&live), 1);
    for (uint64_t i = 500; i < 700; i++) put(&live, i, i % 150);   /* updates + keys 100..149 */
    *kstate_upsert(&live, 999) = (kagg){ .count = 7 };              /* a direct write, new key */
    assert_snapshot_is(&live, a, &at_begin, &out);
    assert_null(kstate_find(&out, 120));
    assert_null(kstate_find(&out, 999));
    assert_int_equal(kstate_find(&out, 5)->count, 5);
    /* ... while the live map has them. */
    assert_int_equal(live.count, 151);
    assert_int_equal(kstate_find(&live, 5)->count, 6);     /* + record 605 */
    assert_int_equal(kstate_find(&live, 120)->count, 1);
    assert_int_equal(kstate_find(&live, 999)->count, 7);
    /* Iteration gives the same entries in slot order, each slot once. */
    uint32_t slot = 0, ver, n = 0, last = 0;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&live, a, &slot, &key, &agg, &ver)) {
        assert_true(slot > last);
        last = slot;
        const kagg *want = kstate_find(&at_begin, key);
        assert_non_null(want);
        assert_int_equal(agg.count, want->count);
        assert_int_equal(agg.fingerprint, want->fingerprint);
        assert_int_equal(ver, 1);              /* all written at version 1 */
        n++;
    }
    assert_int_equal(n, 100);
    kstate_snap_end(&live, a);
    assert_int_equal(kstate_snaps_active(&live), 0);
    uint64_t k;
    kstate_copy(&out, &live);
    assert_true(kstate_equal(&out, &live, &k));
    sim_run_destroy(run);
}

static void test_kstate_overlapping_snapshots_each_keep_their_own_version(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate live, ref_a, ref_b, out;
    kstate_init_versioned(&live, run, 500, 2);
    kstate_init(&ref_a, run, 500);
    kstate_init(&ref_b, run, 500);
    kstate_init(&out, run, 500);
    uint64_t id = 0;
    for (; id < 100; id++) put(&live, id, id % 40);
    kstate_copy(&ref_a, &live);
    uint32_t a = kstate_snap_begin(&live);
    for (; id < 200; id++) put(&live, id, id % 60);
    kstate_copy(&ref_b, &live);
    uint32_t b = kstate_snap_begin(&live);
    assert_int_not_equal(a, b);
    assert_true(kstate_snap_version(&live, a) < kstate_snap_version(&live, b));
    for (; id < 300; id++) put(&live, id, id % 80);
    assert_snapshot_is(&live, a, &ref_a, &out);
    assert_snapshot_is(&live, b, &ref_b, &out);
    kstate_snap_end(&live, a);
    for (; id < 400; id++) put(&live, id, id % 90);
    assert_snapshot_is(&live, b, &ref_b, &out);
    /* The freed record is reused, at a newer version, for a third snapshot. */
    kstate_copy(&ref_a, &live);
    uint32_t c = kstate_snap_begin(&live);
    assert_int_equal(c, a);
    for (; id < 450; id++) put(&live, id, id % 95);
    assert_snapshot_is(&live, c, &ref_a, &out);
    assert_snapshot_is(&live, b, &ref_b, &out);
    kstate_snap_end(&live, b);
    kstate_snap_end(&live, c);
    assert_int_equal(live.count, 90);           /* keys 0..89 */
    sim_run_destroy(run);
}

/* A checksum over vers: a begin that touched any slot would change it. */
static uint64_t vers_sum(const kstate *s) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < s->capacity; i++) h = h * 31 + s->vers[i];
    return h;
}

static void test_kstate_snap_begin_costs_the_same_for_10_and_100000_keys(void **state) {
    (void)state;
    sim_run *run = make_run_bytes(64u << 20);
    const uint32_t sizes[2] = { 10, 100000 };
    for (uint32_t t = 0; t < 2; t++) {
        kstate s;
        kstate_init_versioned(&s, run, sizes[t], 1);
        for (uint64_t i = 0; i < sizes[t]; i++) put(&s, i, i);
        uint64_t before = vers_sum(&s);
        uint32_t v = kstate_version(&s);
        uint32_t snap = kstate_snap_begin(&s);
        /* The synchronous part did no per-key work. */
        assert_int_equal(s.snaps[snap].shadows_count, 0);
        assert_int_equal(kstate_version(&s), v + 1);
        assert_int_equal(kstate_snap_version(&s, snap), v);
        assert_int_equal(vers_sum(&s), before);
        /* The copy-on-write cost is one shadow per key written, whatever the
         * size of the map, and a key written again costs nothing more. */
        for (uint32_t round = 0; round < 3; round++) {
            for (uint64_t i = 0; i < 10; i++) put(&s, 1000000 + round * 10 + i, i * (sizes[t] / 10));
        }
        assert_int_equal(s.snaps[snap].shadows_count, 10);
        kstate_snap_end(&s, snap);
    }
    sim_run_destroy(run);
}

static void test_kstate_snapshot_versions_name_exactly_the_keys_written_since_a_base(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate live;
    kstate_init_versioned(&live, run, 1000, 2);
    uint64_t id = 0;
    for (uint64_t k = 0; k < 300; k++) put(&live, id++, k);
    uint32_t a = kstate_snap_begin(&live);
    uint32_t base = kstate_snap_version(&live, a);
    /* Between A and B: some existing keys (some several times) and new ones. */
    bool between[600] = { false };
    for (uint64_t k = 0; k < 600; k += 7) { put(&live, id++, k); between[k] = true; }
    for (uint64_t k = 0; k < 600; k += 21) put(&live, id++, k);
    uint32_t b = kstate_snap_begin(&live);
    kstate_snap_end(&live, a);                 /* the base may be gone already */
    /* After B: must not count, neither new keys nor keys untouched in between. */
    for (uint64_t k = 1; k < 600; k += 5) put(&live, id++, k);
    uint32_t slot = 0, ver, changed = 0, entries = 0;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&live, b, &slot, &key, &agg, &ver)) {
        assert_true(key < 600);
        entries++;
        assert_true(ver >= 1);
        assert_true(ver < kstate_version(&live));
        if (ver > base) {
            assert_true(between[key]);
            changed++;
        } else {
            assert_false(between[key]);
        }
    }
    uint32_t want = 0, keys_b = 300;
    for (uint64_t k = 0; k < 600; k++) {
        want += between[k];
        if (between[k] && k >= 300) keys_b++;
    }
    assert_int_equal(changed, want);
    assert_int_equal(entries, keys_b);
    kstate_snap_end(&live, b);
    sim_run_destroy(run);
}

static void test_kstate_clear_or_restore_starts_a_new_version_history(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate live, saved, big;
    kstate_init_versioned(&live, run, 100, 1);
    kstate_init(&saved, run, 100);
    kstate_init_versioned(&big, run, 1000, 1);
    for (uint64_t i = 0; i < 50; i++) put(&live, i, i);
    uint32_t s0 = kstate_snap_begin(&live);
    put(&live, 99, 1);
    kstate_snap_copy(&live, s0, &saved);
    kstate_snap_end(&live, s0);
    kstate *targets[2] = { &live, &big };       /* same layout, and rehashed */
    for (uint32_t t = 0; t < 2; t++) {
        kstate *m = targets[t];
        kstate_copy(m, &saved);
        assert_int_equal(kstate_version(m), 1);
        uint32_t snap = kstate_snap_begin(m);
        uint32_t slot = 0, ver, n = 0;
        uint64_t key;
        kagg agg;
        while (kstate_snap_next(m, snap, &slot, &key, &agg, &ver)) { assert_int_equal(ver, 0); n++; }
        assert_int_equal(n, 50);
        kstate_snap_end(m, snap);
    }
    put(&live, 1000, 3);
    kstate_clear(&live);
    assert_int_equal(kstate_version(&live), 1);
    assert_int_equal(vers_sum(&live), 0);
    assert_int_equal(live.count, 0);
    sim_run_destroy(run);
}

/* Random writes, begins, ends, restores and reads against a reference model
 * that takes a full copy (and a copy of every key's version) at each begin. */
#define RND_KEYS 600u
typedef struct rnd_snap {
    bool     active;
    uint32_t index;                 /* in the map */
    uint32_t version;
    kstate   copy;
    uint32_t ver[RND_KEYS];         /* each key's version at the begin */
} rnd_snap;

static void test_kstate_random_snapshots_match_plain_copies(void **state) {
    (void)state;
    sim_run *run = make_run();
    kstate live, scratch, restore_src;
    kstate_init_versioned(&live, run, RND_KEYS, KSTATE_SNAPS_MAX);
    kstate_init(&scratch, run, RND_KEYS);
    kstate_init(&restore_src, run, RND_KEYS);
    static rnd_snap model[KSTATE_SNAPS_MAX];
    static uint32_t ver[RND_KEYS];                    /* each live key's last-write version */
    memset(model, 0, sizeof model);
    memset(ver, 0, sizeof ver);
    for (uint32_t n = 0; n < KSTATE_SNAPS_MAX; n++) kstate_init(&model[n].copy, run, RND_KEYS);
    rng r;
    rng_seed(&r, 20240601u, 7u);
    uint32_t active = 0, begins = 0, ends = 0, restores = 0, checks = 0;
    uint64_t id = 0;
    for (uint32_t op = 0; op < 6000; op++) {
        uint32_t dice = rng_below(&r, 100);
        if (dice < 70) {                                    /* a write */
            uint64_t key = rng_below(&r, dice < 10 ? RND_KEYS : RND_KEYS / 3);
            put(&live, id++, key);
            ver[key] = kstate_version(&live);
        } else if (dice < 80 && active < KSTATE_SNAPS_MAX) {   /* begin */
            uint32_t n = 0;
            while (model[n].active) n++;
            rnd_snap *m = &model[n];
            kstate_copy(&m->copy, &live);
            memcpy(m->ver, ver, sizeof ver);
            m->version = kstate_version(&live);
            m->index = kstate_snap_begin(&live);
            assert_int_equal(live.snaps[m->index].shadows_count, 0);
            m->active = true;
            active++;
            begins++;
        } else if (dice < 88 && active > 0) {               /* end */
            uint32_t pick = rng_below(&r, active), n = 0;
            for (;; n++) if (model[n].active && pick-- == 0) break;
            kstate_snap_end(&live, model[n].index);
            model[n].active = false;
            active--;
            ends++;
        } else if (dice < 90 && active == 0) {              /* restore */
            kstate_copy(&restore_src, &live);
            kstate_copy(&live, &restore_src);
            memset(ver, 0, sizeof ver);
            restores++;
        } else {                                            /* read every snapshot */
            for (uint32_t n = 0; n < KSTATE_SNAPS_MAX; n++) {
                rnd_snap *m = &model[n];
                if (!m->active) continue;
                assert_int_equal(kstate_snap_version(&live, m->index), m->version);
                assert_snapshot_is(&live, m->index, &m->copy, &scratch);
                uint32_t slot = 0, v, entries = 0;
                uint64_t key;
                kagg agg;
                while (kstate_snap_next(&live, m->index, &slot, &key, &agg, &v)) {
                    assert_true(key < RND_KEYS);
                    assert_int_equal(v, m->ver[key]);
                    entries++;
                }
                assert_int_equal(entries, m->copy.count);
                checks++;
            }
        }
        assert_int_equal(kstate_snaps_active(&live), active);
    }
    /* Every kind of step happened, enough times to mean something. */
    assert_true(begins > 100 && ends > 100 && restores > 2 && checks > 100);
    sim_run_destroy(run);
}


/* Iteration, clearing and copying walk the occupied slots in insertion
 * order: a map sized for 100000 keys holding three yields exactly those,
 * in the order they came, and a clear leaves the whole table zero. */
static void test_kstate_scans_walk_the_live_entries_in_insertion_order(void **state) {
    (void)state;
    sim_run *run = make_run_bytes(64u << 20);
    kstate s, small;
    kstate_init_versioned(&s, run, 100000, 2);
    kstate_init(&small, run, 3);
    const uint64_t keys[3] = { 77777, 5, 4242 };
    for (uint32_t i = 0; i < 3; i++) put(&s, i, keys[i]);
    put(&s, 9, 5);                                 /* an update keeps its place */
    uint32_t pos = 0, n = 0;
    uint64_t key;
    kagg agg;
    while (kstate_next(&s, &pos, &key, &agg)) assert_int_equal(key, keys[n++]);
    assert_int_equal(n, 3);
    assert_int_equal(pos, 3);                      /* the cursor counts entries, not slots */
    uint32_t snap = kstate_snap_begin(&s);
    put(&s, 10, 1);                                /* after the begin: not in the snapshot */
    uint32_t ver;
    for (pos = 0, n = 0; kstate_snap_next(&s, snap, &pos, &key, &agg, &ver);) assert_int_equal(key, keys[n++]);
    assert_int_equal(n, 3);
    kstate_snap_copy(&s, snap, &small);            /* other capacity, exactly its three keys */
    assert_int_equal(small.count, 3);
    assert_int_equal(kstate_find(&small, 5)->count, 2);
    kstate_snap_end(&s, snap);
    kstate_clear(&s);
    for (uint32_t i = 0; i < s.capacity; i++) {
        assert_int_equal(s.slots[i].key, 0);
        assert_int_equal(s.slots[i].agg.count, 0);
        assert_int_equal(s.vers[i], 0);
    }
    assert_null(kstate_find(&s, 77777));
    sim_run_destroy(run);
}

/* fn, called in a child: it must die of an assertion of model/flow/kstate.c. */
typedef struct thunk { void (*fn)(void); } thunk;
static void call(void *t) { ((thunk *)t)->fn(); }
static bool dies_in_kstate(void (*fn)(void)) { return aborts_saying(call, &(thunk){ fn }, "model/flow/kstate.c:"); }

/* Subtask 1 of 4 behind a hash edge: the keys job_key_subtask sends it. */
static void own_subtask_1_of_4(kstate *s) {
    kstate_own(s, &(kstate_owner){ .parallelism = 4, .max_parallelism = 128, .subtask = 1, .hashed = 1 });
}

static uint64_t key_routed_to(uint32_t subtask, uint64_t from) {
    while (job_key_subtask(from, 128, 4) != subtask) from++;
    return from;
}

static void insert_a_key_of_subtask_2(void) {
    sim_run *run = make_run();
    kstate s;
    kstate_init(&s, run, 100);
    own_subtask_1_of_4(&s);
    put(&s, 1, key_routed_to(2, 0));
}

static void insert_one_key_past_keys_max(void) {
    sim_run *run = make_run();
    kstate s;
    kstate_init(&s, run, 5);
    for (uint64_t k = 0; k < 6; k++) put(&s, k, k);
}

/* A task's map holds exactly the keys routed to it: they all fit, an
 * update of one costs no room, and a key the partitioner sends to another
 * subtask, or one key more than the map was sized for, is a bug that
 * asserts (in a child process). */
static void test_kstate_an_owned_map_takes_its_keys_and_refuses_a_key_routed_elsewhere(void **state) {
    (void)state;
    sim_run *run = make_run();
    uint32_t mine = 0;
    for (uint64_t k = 0; k < 1000; k++) mine += job_key_subtask(k, 128, 4) == 1;
    kstate s;
    kstate_init_versioned(&s, run, mine, 1);
    own_subtask_1_of_4(&s);
    for (uint64_t round = 0; round < 2; round++) {
        for (uint64_t k = 0; k < 1000; k++) {
            if (kstate_owns(&s, k)) put(&s, round * 1000 + k, k);
        }
    }
    assert_int_equal(s.count, mine);
    assert_int_equal(s.keys_max, mine);
    assert_false(kstate_owns(&s, key_routed_to(2, 0)));
    /* A join's map: input 0 by hash (owned keys only), input 1 not. */
    kstate join;
    kstate_init(&join, run, 10);
    kstate_own(&join, &(kstate_owner){ .parallelism = 4, .max_parallelism = 128, .subtask = 1, .tag_bits = 1, .hashed = 1 });
    assert_true(kstate_owns(&join, key_routed_to(1, 0) * 2));
    assert_false(kstate_owns(&join, key_routed_to(2, 0) * 2));
    assert_true(kstate_owns(&join, key_routed_to(2, 0) * 2 + 1));
    sim_run_destroy(run);
    assert_true(dies_in_kstate(insert_a_key_of_subtask_2));
    assert_true(dies_in_kstate(insert_one_key_past_keys_max));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kstate_aggregates_do_not_depend_on_fold_order),
        cmocka_unit_test(test_kstate_a_duplicate_or_a_loss_is_visible_and_named),
        cmocka_unit_test(test_kstate_copy_is_a_snapshot_later_updates_do_not_touch),
        cmocka_unit_test(test_kstate_writes_after_snap_begin_never_reach_the_snapshot),
        cmocka_unit_test(test_kstate_overlapping_snapshots_each_keep_their_own_version),
        cmocka_unit_test(test_kstate_snap_begin_costs_the_same_for_10_and_100000_keys),
        cmocka_unit_test(test_kstate_snapshot_versions_name_exactly_the_keys_written_since_a_base),
        cmocka_unit_test(test_kstate_clear_or_restore_starts_a_new_version_history),
        cmocka_unit_test(test_kstate_random_snapshots_match_plain_copies),
        cmocka_unit_test(test_kstate_scans_walk_the_live_entries_in_insertion_order),
        cmocka_unit_test(test_kstate_an_owned_map_takes_its_keys_and_refuses_a_key_routed_elsewhere),
    };
    return cmocka_run_group_tests_name("kstate", tests, NULL, NULL);
}
