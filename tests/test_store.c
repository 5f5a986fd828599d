/* tests/test_store.c: checkpoint files, the shared-state registry and
 * restores from incremental chains. */
#include "harness.h"


#include "../model/flow/store.h"

static sim_run *make_run(void) {
    sim_cfg c = test_cfg(1);
    c.model_bytes = 32u << 20;
    return sim_run_create(&c);
}

static kagg agg_of(uint64_t n) {
    return (kagg){ .count = n, .sum = (int64_t)(n * 3), .fingerprint = rng_splitmix64(n) };
}

static bool agg_same(const kagg *x, const kagg *y) {
    return x->count == y->count && x->sum == y->sum && x->fingerprint == y->fingerprint;
}

/* ---- restore of an incremental chain ---------------------------------- */

#define CHAIN_KEYS 300u

static void fold_random(kstate *live, rng *r, uint64_t *next_id, uint32_t n, bool *changed) {
    for (uint32_t i = 0; i < n; i++) {
        uint64_t key = rng_below(r, CHAIN_KEYS);
        kstate_fold(live, &(model_rec){ .id = (*next_id)++, .key = key,
                                        .value = (int64_t)rng_below(r, 1000) - 500 });
        changed[key] = true;
    }
}

static void test_restore_of_full_plus_three_increments_equals_the_live_state(void **state) {
    (void)state;
    sim_run *run = make_run();
    store st;
    store_init(&st, run, 16, 4096, 64);
    kstate live, out, snap[4];
    kstate_init(&live, run, CHAIN_KEYS);
    kstate_init(&out, run, CHAIN_KEYS);
    for (int i = 0; i < 4; i++) kstate_init(&snap[i], run, CHAIN_KEYS);
    rng r;
    rng_seed(&r, 2024, 7);
    uint64_t next_id = 0;
    bool changed[CHAIN_KEYS] = { false };
    uint64_t chain[4];

    /* The full snapshot: every key of the live state. */
    fold_random(&live, &r, &next_id, 2000, changed);
    chain[0] = store_create(&st, 0, 1, true);
    assert_true(chain[0] != 0);
    uint32_t slot = 0;
    uint64_t key;
    kagg agg;
    while (kstate_next(&live, &slot, &key, &agg)) assert_true(store_append(&st, chain[0], key, &agg));
    store_seal(&st, chain[0]);
    assert_int_equal(store_entries(&st, chain[0]), live.count);
    kstate_copy(&snap[0], &live);

    /* Increments: only the keys changed since the previous file, few enough
     * that each is much smaller than the full file. */
    for (uint32_t inc = 1; inc <= 3; inc++) {
        memset(changed, 0, sizeof changed);
        fold_random(&live, &r, &next_id, 40 + 30 * inc, changed);
        chain[inc] = store_create(&st, 0, 1 + inc, false);
        assert_true(chain[inc] != 0);
        uint32_t n = 0;
        for (uint64_t k = 0; k < CHAIN_KEYS; k++) {
            if (!changed[k]) continue;
            assert_true(store_append(&st, chain[inc], k, kstate_find(&live, k)));
            n++;
        }
        store_seal(&st, chain[inc]);
        assert_int_equal(store_entries(&st, chain[inc]), n);
        assert_true(n < live.count);
        assert_int_equal(store_bytes(&st, chain[inc]), (uint64_t)n * 32 + 64);
        kstate_copy(&snap[inc], &live);
    }

    uint64_t diff;
    assert_true(store_restore(&st, chain, 4, &out));
    assert_true(kstate_equal(&out, &live, &diff));
    /* Every prefix of the chain is the state at its checkpoint, so each
     * increment matters and later entries overwrite earlier ones. */
    for (uint32_t len = 1; len <= 3; len++) {
        assert_true(store_restore(&st, chain, len, &out));
        assert_true(kstate_equal(&out, &snap[len - 1], &key));
        assert_false(kstate_equal(&out, &live, &key));
    }
    sim_run_destroy(run);
}

static void test_entries_read_back_in_append_order_across_chunk_boundaries(void **state) {
    (void)state;
    sim_run *run = make_run();
    store st;
    store_init(&st, run, 4, 1000, 64);
    uint64_t a = store_create(&st, 1, 1, true);
    uint64_t b = store_create(&st, 2, 1, true);
    uint64_t empty = store_create(&st, 3, 1, true);
    /* Interleaved appends, so the two files' chunks interleave in the pool. */
    for (uint64_t i = 0; i < 3 * STORE_CHUNK_ENTRIES + 5; i++) {
        kagg x = agg_of(i), y = agg_of(1000 + i);
        assert_true(store_append(&st, a, 999 - i, &x));
        if (i % 2 == 0) assert_true(store_append(&st, b, i, &y));
    }
    uint64_t cursor = 0;
    store_entry e;
    for (uint64_t i = 0; i < 3 * STORE_CHUNK_ENTRIES + 5; i++) {
        assert_true(store_next(&st, a, &cursor, &e));
        kagg x = agg_of(i);
        assert_int_equal(e.key, 999 - i);
        assert_true(agg_same(&e.agg, &x));
    }
    assert_false(store_next(&st, a, &cursor, &e));
    cursor = 0;
    for (uint64_t i = 0; i < 3 * STORE_CHUNK_ENTRIES + 5; i += 2) {
        assert_true(store_next(&st, b, &cursor, &e));
        assert_int_equal(e.key, i);
    }
    assert_false(store_next(&st, b, &cursor, &e));
    cursor = 0;
    assert_false(store_next(&st, empty, &cursor, &e));
    assert_int_equal(store_bytes(&st, empty), 64);
    sim_run_destroy(run);
}

/* ---- the registry: deleted exactly when the last reference goes -------- */

#define REG_TASKS     3u
#define REG_RETAIN    3u      /* R: completed checkpoints retained */
#define REG_FULL_EVERY 5u     /* K: every K-th checkpoint is full */
#define REG_CHAIN_MAX 16u
#define REG_CKPTS     1000u
#define REG_FILES_MAX (REG_CKPTS * REG_TASKS + 1)

typedef struct reg_ckpt {
    uint64_t id;
    uint32_t len[REG_TASKS];
    uint32_t seq[REG_TASKS][REG_CHAIN_MAX];   /* files, by creation number */
} reg_ckpt;

typedef struct reg {
    store    st;
    uint64_t ids[REG_FILES_MAX];              /* every file ever created */
    uint32_t created;
    uint32_t expect[REG_FILES_MAX];           /* refs from retained checkpoints */
    reg_ckpt retained[REG_RETAIN + 1];        /* oldest first; +1 before a drop */
    uint32_t retained_count;
    uint64_t digest;                          /* of every id and stats, for replay */
    uint32_t declined;                        /* checkpoints whose upload failed */
    uint32_t refs_peak;                       /* most checkpoints sharing one file */
} reg;

static void reg_drop_oldest(reg *g) {
    reg_ckpt *old = &g->retained[0];
    for (uint32_t t = 0; t < REG_TASKS; t++) {
        for (uint32_t i = 0; i < old->len[t]; i++) store_unref(&g->st, g->ids[old->seq[t][i]]);
    }
    memmove(&g->retained[0], &g->retained[1], sizeof(reg_ckpt) * (g->retained_count - 1));
    g->retained_count--;
}

/* A file is alive exactly when a retained checkpoint refers to it, with as
 * many references as retained checkpoints use it; the exception are files
 * created from creation number `pending` on: the checkpoint in progress
 * wrote them and does not refer to them yet, so they live with 0 refs. */
static void reg_check(reg *g, uint32_t pending) {
    memset(g->expect, 0, sizeof(uint32_t) * g->created);
    uint64_t refs = 0;
    for (uint32_t c = 0; c < g->retained_count; c++) {
        for (uint32_t t = 0; t < REG_TASKS; t++) {
            for (uint32_t i = 0; i < g->retained[c].len[t]; i++) {
                uint32_t e = ++g->expect[g->retained[c].seq[t][i]];
                if (e > g->refs_peak) g->refs_peak = e;
                refs++;
            }
        }
    }
    uint64_t live = 0, entries = 0;
    for (uint32_t s = 0; s < g->created; s++) {
        uint64_t id = g->ids[s];
        if (s >= pending) {
            assert_true(store_alive(&g->st, id));
            assert_int_equal(store_refs(&g->st, id), 0);
        } else {
            assert_int_equal(store_alive(&g->st, id), g->expect[s] > 0);
            assert_int_equal(store_refs(&g->st, id), g->expect[s]);
        }
        if (store_alive(&g->st, id)) {
            live++;
            entries += store_entries(&g->st, id);
        }
    }
    store_stats s = store_get_stats(&g->st);
    assert_int_equal(s.files_live, live);
    assert_int_equal(s.entries_live, entries);
    assert_int_equal(s.refs_live, refs);
    assert_int_equal(s.files_created - s.files_deleted, s.files_live);
}

static uint64_t mix(uint64_t h, uint64_t x) { return rng_splitmix64(h ^ x); }

/* ~1000 checkpoints of REG_TASKS tasks under the policy; some writes fail
 * and their checkpoint is declined. Returns the digest. */
static uint64_t run_registry(uint64_t seed) {
    sim_run *run = make_run();
    reg *g = sim_alloc(run, sizeof *g, _Alignof(reg));
    store_init(&g->st, run, 128, 40000, 64);
    kstate restored;
    kstate_init(&restored, run, 5000);
    rng r;
    rng_seed(&r, seed, 3);
    for (uint64_t ck = 1; ck <= REG_CKPTS; ck++) {
        const reg_ckpt *base = g->retained_count > 0 ? &g->retained[g->retained_count - 1] : NULL;
        reg_ckpt next = { .id = ck };
        bool declined = false;
        uint32_t made[REG_TASKS];
        uint32_t made_count = 0;
        for (uint32_t t = 0; t < REG_TASKS && !declined; t++) {
            bool full = ck % REG_FULL_EVERY == 0 || base == NULL || base->len[t] == REG_CHAIN_MAX;
            uint64_t id = store_create(&g->st, t, ck, full);
            assert_true(id != 0);
            uint32_t seq = g->created++;
            g->ids[seq] = id;
            made[made_count++] = seq;
            g->digest = mix(g->digest, id);
            uint32_t n = full ? 100 + rng_below(&r, 200) : rng_below(&r, 150);
            for (uint32_t i = 0; i < n; i++) {
                kagg a = agg_of(ck * 1000 + i);
                assert_true(store_append(&g->st, id, rng_below(&r, 5000), &a));
            }
            reg_check(g, made[0]);
            if (rng_below(&r, 20) == 0) {            /* the upload failed */
                declined = true;
                continue;
            }
            store_seal(&g->st, id);
            if (!full) {
                next.len[t] = base->len[t];
                memcpy(next.seq[t], base->seq[t], sizeof(uint32_t) * base->len[t]);
            }
            next.seq[t][next.len[t]++] = seq;
        }
        if (declined) {
            /* Nothing refers to this checkpoint's new files yet. */
            for (uint32_t i = 0; i < made_count; i++) store_discard(&g->st, g->ids[made[i]]);
            g->declined++;
            reg_check(g, g->created);
            continue;
        }
        /* Completed: the checkpoint refers to its whole chain, then the
         * oldest retained one goes. Ref before unref, so shared files never
         * pass through zero. */
        for (uint32_t t = 0; t < REG_TASKS; t++) {
            for (uint32_t i = 0; i < next.len[t]; i++) store_ref(&g->st, g->ids[next.seq[t][i]]);
        }
        g->retained[g->retained_count++] = next;
        reg_check(g, g->created);
        if (g->retained_count > REG_RETAIN) reg_drop_oldest(g);
        reg_check(g, g->created);
        /* Every retained checkpoint can be restored from: its chains are
         * intact and well formed. */
        for (uint32_t c = 0; c < g->retained_count; c++) {
            for (uint32_t t = 0; t < REG_TASKS; t++) {
                uint64_t chain[REG_CHAIN_MAX];
                for (uint32_t i = 0; i < g->retained[c].len[t]; i++) chain[i] = g->ids[g->retained[c].seq[t][i]];
                assert_true(store_restore(&g->st, chain, g->retained[c].len[t], &restored));
            }
        }
    }
    store_stats s = store_get_stats(&g->st);
    assert_true(s.files_deleted > 20 * 128);  /* the table was reused many times */
    assert_true(g->declined > 10);               /* discards were exercised */
    /* Files were shared by every checkpoint held, R retained + the new one
     * before the oldest goes. */
    assert_int_equal(g->refs_peak, REG_RETAIN + 1);
    while (g->retained_count > 0) {
        reg_drop_oldest(g);
        reg_check(g, g->created);
    }
    s = store_get_stats(&g->st);
    assert_int_equal(s.files_live, 0);
    assert_int_equal(s.entries_live, 0);
    assert_int_equal(s.refs_live, 0);
    assert_int_equal(s.chunks_free, g->st.chunks_count);
    assert_int_equal(s.files_created, g->created);
    assert_int_equal(s.files_deleted, g->created);
    g->digest = mix(g->digest, s.bytes_written);
    uint64_t digest = g->digest;
    sim_run_destroy(run);
    return digest;
}

static void test_a_file_is_deleted_exactly_when_its_last_reference_goes(void **state) {
    (void)state;
    uint64_t d = run_registry(0x5eed);
    /* Same seed, same ids and bytes: nothing depends on addresses. */
    assert_true(d == run_registry(0x5eed));
    assert_true(d != run_registry(0x5eee));
}

/* ---- bounds ------------------------------------------------------------ */

static void test_appends_past_entries_max_and_creates_past_files_max_are_refused(void **state) {
    (void)state;
    sim_run *run = make_run();
    size_t before = arena_mark(&run->arena);
    store st;
    store_init(&st, run, 4, 200, 64);
    assert_true(arena_mark(&run->arena) - before <= store_arena_bytes(4, 200, 64));
    kagg x = agg_of(1);

    uint64_t a = store_create(&st, 0, 1, true);
    for (uint32_t i = 0; i < 200; i++) assert_true(store_append(&st, a, i, &x));
    assert_false(store_append(&st, a, 200, &x));
    assert_int_equal(store_entries(&st, a), 200);
    uint64_t b = store_create(&st, 0, 1, true);
    assert_false(store_append(&st, b, 0, &x));
    assert_int_equal(store_get_stats(&st).entries_live, 200);
    store_discard(&st, a);
    assert_true(store_append(&st, b, 0, &x));

    /* The limit holds whatever the file sizes: 1 + 1 + 1 + 197 entries take
     * more chunks than 200 entries in one file, and still fit. */
    store_discard(&st, b);
    uint64_t f[4];
    for (int i = 0; i < 4; i++) f[i] = store_create(&st, (uint32_t)i, 2, true);
    for (int i = 0; i < 3; i++) assert_true(store_append(&st, f[i], 0, &x));
    for (uint32_t i = 0; i < 197; i++) assert_true(store_append(&st, f[3], i, &x));
    assert_false(store_append(&st, f[0], 1, &x));
    assert_int_equal(store_get_stats(&st).chunks_free, 0);

    /* The table is full: no fifth file. A freed slot comes back under a new
     * id, and the old id stays dead. */
    assert_int_equal(store_create(&st, 9, 3, true), 0);
    store_discard(&st, f[1]);
    uint64_t g = store_create(&st, 9, 3, true);
    assert_true(g != 0);
    assert_true(g != f[1]);
    assert_false(store_alive(&st, f[1]));
    assert_true(store_alive(&st, g));
    assert_int_equal(store_refs(&st, f[1]), 0);
    assert_false(store_alive(&st, 0));
    sim_run_destroy(run);
}

static void test_restore_fails_for_a_chain_with_a_dead_file_and_leaves_out_alone(void **state) {
    (void)state;
    sim_run *run = make_run();
    store st;
    store_init(&st, run, 8, 1000, 64);
    kstate out, before;
    kstate_init(&out, run, 100);
    kstate_init(&before, run, 100);
    kagg x = agg_of(7), y = agg_of(8);
    uint64_t chain[3];
    for (int i = 0; i < 3; i++) {
        chain[i] = store_create(&st, 0, (uint64_t)i + 1, i == 0);
        assert_true(store_append(&st, chain[i], (uint64_t)i, &x));
        store_seal(&st, chain[i]);
        store_ref(&st, chain[i]);
    }
    *kstate_upsert(&out, 42) = y;
    kstate_copy(&before, &out);
    assert_true(store_restore(&st, chain, 3, &out));
    assert_int_equal(out.count, 3);
    assert_null(kstate_find(&out, 42));

    kstate_copy(&out, &before);
    store_unref(&st, chain[1]);                 /* the middle increment is deleted */
    assert_false(store_alive(&st, chain[1]));
    uint64_t k;
    assert_false(store_restore(&st, chain, 3, &out));
    assert_true(kstate_equal(&out, &before, &k));
    assert_true(store_restore(&st, chain, 1, &out));   /* the full file alone is fine */
    sim_run_destroy(run);
}

/* A rescaled task merges several old subtasks' chains and keeps only the
 * keys of its key groups: two chains of parallelism 2 restored into
 * subtask 1 of 3 give exactly the keys job_key_subtask sends it, with the
 * latest value of each (an increment's replaces its full file's). */
static void test_restore_owned_merges_chains_and_keeps_the_keys_of_its_groups(void **state) {
    (void)state;
    sim_run *run = make_run();
    store st;
    store_init(&st, run, 8, 4000, 64);
    uint64_t chains[2][2];
    for (uint32_t old = 0; old < 2; old++) {   /* subtask old of 2: its keys, then an increment of its even ones */
        for (uint32_t f = 0; f < 2; f++) {
            chains[old][f] = store_create(&st, 0, f + 1, f == 0);
            for (uint64_t k = 0; k < 600; k++) {
                if (job_key_subtask(k, 128, 2) != old || (f == 1 && k % 2 != 0)) continue;
                kagg a = agg_of(k + 1000 * f);
                assert_true(store_append(&st, chains[old][f], k, &a));
            }
            store_seal(&st, chains[old][f]);
            store_ref(&st, chains[old][f]);
        }
    }
    kstate out;
    kstate_init(&out, run, 600);
    kstate_own(&out, &(kstate_owner){ .parallelism = 3, .max_parallelism = 128, .subtask = 1, .hashed = 1 });
    assert_true(store_restore_owned(&st, chains[0], 2, &out));
    assert_true(store_restore_owned(&st, chains[1], 2, &out));
    uint32_t mine = 0;
    for (uint64_t k = 0; k < 600; k++) {
        const kagg *got = kstate_find(&out, k);
        if (job_key_subtask(k, 128, 3) != 1) {
            assert_null(got);
            continue;
        }
        mine++;
        kagg want = agg_of(k + (k % 2 == 0 ? 1000 : 0));
        assert_non_null(got);
        assert_true(agg_same(got, &want));
    }
    assert_int_equal(out.count, mine);
    assert_true(mine > 150 && mine < 250);   /* about a third of the keys */
    store_unref(&st, chains[1][1]);
    assert_false(store_restore_owned(&st, chains[1], 2, &out));   /* a dead file: nothing read */
    assert_int_equal(out.count, mine);
    sim_run_destroy(run);
}

static void test_wipe_leaves_no_live_file_and_every_id_dead(void **state) {
    (void)state;
    sim_run *run = make_run();
    store st;
    store_init(&st, run, 8, 1000, 64);
    kagg x = agg_of(3);
    uint64_t ids[8];
    for (uint32_t i = 0; i < 8; i++) {
        ids[i] = store_create(&st, i, 1, true);
        for (uint32_t j = 0; j < 30 * i; j++) assert_true(store_append(&st, ids[i], j, &x));
        if (i % 2 == 0) {
            store_seal(&st, ids[i]);
            store_ref(&st, ids[i]);
            store_ref(&st, ids[i]);
        }
    }
    store_stats s0 = store_get_stats(&st);
    store_wipe(&st);
    store_stats s = store_get_stats(&st);
    assert_int_equal(s.files_live, 0);
    assert_int_equal(s.entries_live, 0);
    assert_int_equal(s.refs_live, 0);
    assert_int_equal(s.chunks_free, st.chunks_count);
    assert_int_equal(s.files_deleted, 8);
    assert_int_equal(s.files_created, 8);
    assert_int_equal(s.bytes_written, s0.bytes_written);
    for (uint32_t i = 0; i < 8; i++) {
        assert_false(store_alive(&st, ids[i]));
        assert_int_equal(store_refs(&st, ids[i]), 0);
    }
    /* The store works again, with ids none of the old ones equals. */
    for (uint32_t i = 0; i < 8; i++) {
        uint64_t id = store_create(&st, i, 2, true);
        assert_true(id != 0);
        for (uint32_t j = 0; j < 8; j++) assert_true(id != ids[j]);
        assert_true(store_append(&st, id, 0, &x));
    }
    assert_int_equal(store_create(&st, 0, 2, true), 0);
    sim_run_destroy(run);
}

/* ---- misuse asserts ---------------------------------------------------- */

typedef enum misuse {
    MISUSE_REF_DEAD = 1,
    MISUSE_UNREF_BELOW_ZERO,
    MISUSE_APPEND_SEALED,
    MISUSE_DISCARD_REFERENCED,
} misuse;

static void do_misuse(misuse m) {
    sim_run *run = make_run();
    store st;
    store_init(&st, run, 4, 100, 64);
    kagg x = agg_of(1);
    uint64_t f = store_create(&st, 0, 1, true);
    switch (m) {
    case MISUSE_REF_DEAD:
        store_discard(&st, f);
        store_ref(&st, f);
        break;
    case MISUSE_UNREF_BELOW_ZERO:
        store_unref(&st, f);
        break;
    case MISUSE_APPEND_SEALED:
        store_seal(&st, f);
        store_append(&st, f, 0, &x);
        break;
    case MISUSE_DISCARD_REFERENCED:
        store_ref(&st, f);
        store_discard(&st, f);
        break;
    }
}

static void misuse_in_child(void *m) { do_misuse(*(misuse *)m); }

static void test_misuse_aborts_with_an_assertion_naming_store(void **state) {
    (void)state;
    for (misuse m = MISUSE_REF_DEAD; m <= MISUSE_DISCARD_REFERENCED; m++) {
        assert_true(aborts_saying(misuse_in_child, &m, "model/flow/store.c:"));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restore_of_full_plus_three_increments_equals_the_live_state),
        cmocka_unit_test(test_entries_read_back_in_append_order_across_chunk_boundaries),
        cmocka_unit_test(test_a_file_is_deleted_exactly_when_its_last_reference_goes),
        cmocka_unit_test(test_appends_past_entries_max_and_creates_past_files_max_are_refused),
        cmocka_unit_test(test_restore_fails_for_a_chain_with_a_dead_file_and_leaves_out_alone),
        cmocka_unit_test(test_restore_owned_merges_chains_and_keeps_the_keys_of_its_groups),
        cmocka_unit_test(test_wipe_leaves_no_live_file_and_every_id_dead),
        cmocka_unit_test(test_misuse_aborts_with_an_assertion_naming_store),
    };
    return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
