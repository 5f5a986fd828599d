/* tests/test_broker.c: the broker's replayable partitions and key
 * distributions. */
#include "harness.h"

#include <math.h>

#include "../model/flow/broker.h"

/* broker_read(seed 42, Zipf s=1, 1000 keys, partition 1, offset 12345) */
#define BROKER_GOLDEN_KEY 52
#define BROKER_GOLDEN_VALUE 61

static sim_run *make_run(uint64_t seed) {
    sim_cfg c = test_cfg(seed);
    c.model_bytes = 64u << 20;
    return sim_run_create(&c);
}

static broker_cfg cfg_of(broker_keys dist, uint64_t keys) {
    return (broker_cfg){ .partitions = 4, .records_per_partition = 100000, .keys = keys, .dist = dist,
                         .zipf_s_milli = 1000, .value_max = 100, .event_gap_ns = 1000 };
}

static void test_broker_rereads_the_same_record_after_a_rewind(void **state) {
    (void)state;
    sim_run *run = make_run(9);
    broker b;
    broker_cfg c = cfg_of(BROKER_ZIPF, 1000);
    broker_init(&b, run, &c);
    model_rec first[100], again;
    for (uint64_t o = 0; o < 100; o++) assert_true(broker_read(&b, 2, o, &first[o]));
    for (uint64_t o = 100; o-- > 0;) {          /* backwards: no hidden cursor */
        assert_true(broker_read(&b, 2, o, &again));
        assert_memory_equal(&again, &first[o], sizeof again);
        assert_int_equal(rec_partition(&again), 2);
        assert_int_equal(rec_offset(&again), o);
        assert_int_equal(again.event_time_ns, (o + 1) * 1000);
        assert_true(again.value >= 1 && again.value <= 100);
    }
    assert_false(broker_read(&b, 2, 100000, &again));   /* end of partition */
    assert_true(broker_read(&b, 2, 99999, &again));
    sim_run_destroy(run);
}

static void test_broker_other_seed_gives_other_data_same_seed_same_data(void **state) {
    (void)state;
    sim_run *r1 = make_run(1), *r2 = make_run(2), *r3 = make_run(1);
    broker b1, b2, b3;
    broker_cfg c = cfg_of(BROKER_UNIFORM, 1u << 20);
    broker_init(&b1, r1, &c);
    broker_init(&b2, r2, &c);
    broker_init(&b3, r3, &c);
    uint32_t same12 = 0;
    for (uint64_t o = 0; o < 1000; o++) {
        model_rec x, y, z;
        broker_read(&b1, 0, o, &x);
        broker_read(&b2, 0, o, &y);
        broker_read(&b3, 0, o, &z);
        same12 += x.key == y.key;
        assert_memory_equal(&x, &z, sizeof x);
    }
    assert_true(same12 < 5);                   /* 1000 draws from 2^20 keys */
    sim_run_destroy(r1);
    sim_run_destroy(r2);
    sim_run_destroy(r3);
}

static void test_broker_uniform_keys_are_uniform(void **state) {
    (void)state;
    sim_run *run = make_run(3);
    broker b;
    broker_cfg c = cfg_of(BROKER_UNIFORM, 10);
    broker_init(&b, run, &c);
    uint32_t counts[10] = { 0 };
    for (uint32_t p = 0; p < 4; p++) {
        for (uint64_t o = 0; o < 25000; o++) {
            model_rec r;
            broker_read(&b, p, o, &r);
            counts[r.key]++;
        }
    }
    double chi2 = 0;
    for (int k = 0; k < 10; k++) chi2 += pow((double)counts[k] - 10000.0, 2) / 10000.0;
    assert_true(chi2 < 27.9);                  /* p = 0.001, 9 degrees of freedom */
    sim_run_destroy(run);
}

static void test_broker_zipf_keys_follow_the_power_law(void **state) {
    (void)state;
    sim_run *run = make_run(4);
    broker b;
    broker_cfg c = cfg_of(BROKER_ZIPF, 100);
    c.zipf_s_milli = 1100;
    broker_init(&b, run, &c);
    uint32_t counts[100] = { 0 };
    for (uint32_t p = 0; p < 4; p++) {
        for (uint64_t o = 0; o < 100000; o++) {
            model_rec r;
            broker_read(&b, p, o, &r);
            counts[r.key]++;
        }
    }
    double h = 0;
    for (int k = 1; k <= 100; k++) h += pow(k, -1.1);
    for (int k = 0; k < 8; k++) {              /* the head of the distribution, within 5 sd */
        double p = pow(k + 1, -1.1) / h, want = 400000.0 * p, sd = sqrt(400000.0 * p * (1 - p));
        assert_true(fabs((double)counts[k] - want) < 5 * sd);
    }
    assert_true(counts[0] > counts[1] && counts[1] > counts[3]);
    assert_true(counts[99] > 0);
    /* The table itself, exactly: key k is drawn with probability
     * (k+1)^-s / H(keys, s), so the cumulative sum over the first k+1 keys
     * is their share of H; a sample of 400000 cannot see an error of a
     * tenth of a percent, this can. */
    double partial = 0;
    for (int k = 0; k < 99; k++) {
        partial += pow(k + 1, -1.1);
        assert_true(fabs((double)b.topic[0].zipf_cdf[k] / 9007199254740992.0 - partial / h) < 1e-12);
    }
    sim_run_destroy(run);
}

/* The guide table finds what a binary search of the whole cumulative table
 * finds: for random uniforms, for every table entry and the values next to
 * it, and at every bucket edge, on tables of several sizes (1 key, fewer
 * keys than buckets, a power of two, many keys and a steep exponent). */
static uint64_t first_above(const broker *b, uint64_t u53) {
    uint64_t lo = 0, hi = b->cfg.keys - 1;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (u53 < b->topic[0].zipf_cdf[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static void test_broker_zipf_guide_finds_the_key_a_full_search_finds(void **state) {
    (void)state;
    static const struct { uint32_t keys, s_milli; } cases[] = { { 1, 1100 }, { 3, 1100 }, { 256, 1000 }, { 300, 1100 }, { 70000, 2500 } };
    for (uint32_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        sim_run *run = make_run(5 + c);
        broker b;
        broker_cfg cfg = cfg_of(BROKER_ZIPF, cases[c].keys);
        cfg.zipf_s_milli = cases[c].s_milli;
        broker_init(&b, run, &cfg);
        const uint64_t top = 1ull << 53;
        rng g = rng_stream(11, c);
        for (uint32_t i = 0; i < 100000; i++) {
            uint64_t u = ((uint64_t)rng_u32(&g) << 32 | rng_u32(&g)) >> 11;
            assert_int_equal(broker_zipf_key(&b.topic[0], u), first_above(&b, u));
        }
        for (uint64_t k = 0; k < cfg.keys; k++) {
            uint64_t e = b.topic[0].zipf_cdf[k];
            for (uint64_t u = e > 0 ? e - 1 : 0; u <= e + 1 && u < top; u++) assert_int_equal(broker_zipf_key(&b.topic[0], u), first_above(&b, u));
        }
        for (uint64_t i = 0; i < (1ull << b.topic[0].guide_bits); i++) {
            uint64_t edge = i << (53 - b.topic[0].guide_bits);
            assert_int_equal(broker_zipf_key(&b.topic[0], edge), first_above(&b, edge));
            if (edge > 0) assert_int_equal(broker_zipf_key(&b.topic[0], edge - 1), first_above(&b, edge - 1));
        }
        assert_int_equal(broker_zipf_key(&b.topic[0], top - 1), cfg.keys - 1);
        sim_run_destroy(run);
    }
}

/* Golden record: the same under every compiler and -O level. */
static void test_broker_records_have_fixed_values(void **state) {
    (void)state;
    sim_run *run = make_run(42);
    broker b;
    broker_cfg c = cfg_of(BROKER_ZIPF, 1000);
    broker_init(&b, run, &c);
    model_rec r;
    broker_read(&b, 1, 12345, &r);
    assert_int_equal(r.id, (1ull << 40) | 12345);
    assert_int_equal(r.key, BROKER_GOLDEN_KEY);
    assert_int_equal(r.value, BROKER_GOLDEN_VALUE);
    sim_run_destroy(run);
}


/* Three topics: the default one (4 partitions), clicks (2, Zipf) and
 * views (3, fewer and shorter logs, other keys and values). Partitions
 * have global ids topic by topic, each reads within its own topic's
 * settings, the default topic reads as a broker of that topic alone (the
 * same records: a one-topic file keeps its runs), and the record indexes
 * of the sinks' external system cover every record once. */
static void test_broker_topics_have_global_partition_ids_and_their_own_records(void **state) {
    (void)state;
    sim_run *run = make_run(6), *alone_run = make_run(6);
    broker_cfg c = cfg_of(BROKER_UNIFORM, 50);
    c.records_per_partition = 300;
    c.topics_more = 2;
    c.more[0] = (broker_topic_cfg){ .name = "clicks", .partitions = 2, .records_per_partition = 500, .keys = 20,
                                    .dist = BROKER_ZIPF, .zipf_s_milli = 1100, .value_max = 7, .event_gap_ns = 10 };
    c.more[1] = (broker_topic_cfg){ .name = "views", .partitions = 3, .records_per_partition = 100, .keys = 5,
                                    .dist = BROKER_UNIFORM, .zipf_s_milli = 1000, .value_max = 1000, .event_gap_ns = 3 };
    assert_int_equal(broker_cfg_topics(&c), 3);
    assert_int_equal(broker_cfg_partitions(&c), 9);
    assert_int_equal(broker_cfg_records(&c), 4 * 300 + 2 * 500 + 3 * 100);
    assert_int_equal(broker_cfg_keys(&c), 50);
    assert_int_equal(broker_cfg_first(&c, 1), 4);
    assert_int_equal(broker_cfg_first(&c, 2), 6);
    assert_int_equal(broker_cfg_find(&c, "views", 5), 2);
    assert_int_equal(broker_cfg_find(&c, "", 0), 0);
    assert_int_equal(broker_cfg_find(&c, "view", 4), -1);
    broker b, alone;
    broker_init(&b, run, &c);
    broker_cfg one = cfg_of(BROKER_UNIFORM, 50);
    one.records_per_partition = 300;
    broker_init(&alone, alone_run, &one);
    assert_int_equal(b.partitions, 9);
    assert_int_equal(b.records, 2500);
    static const uint32_t topic_of[9] = { 0, 0, 0, 0, 1, 1, 2, 2, 2 };
    static const uint64_t per[3] = { 300, 500, 100 }, keys[3] = { 50, 20, 5 };
    static const int64_t values[3] = { 100, 7, 1000 };
    static const sim_time_ns gap[3] = { 1000, 10, 3 };
    static uint8_t seen[2500];
    for (uint32_t p = 0; p < 9; p++) {
        uint32_t t = topic_of[p];
        assert_int_equal(broker_topic_of(&b, p), t);
        model_rec r, again;
        for (uint64_t o = 0; o < per[t]; o++) {
            assert_true(broker_read(&b, p, o, &r));
            assert_true(broker_topic_read(&b.topic[t], p, o, &again));
            assert_memory_equal(&r, &again, sizeof r);
            assert_int_equal(rec_partition(&r), p);   /* a record's partition names its topic */
            assert_int_equal(rec_offset(&r), o);
            assert_true(r.key < keys[t] && r.value >= 1 && r.value <= values[t]);
            assert_int_equal(r.event_time_ns, (o + 1) * gap[t]);
            if (t == 0) {
                assert_true(broker_read(&alone, p, o, &again));
                assert_memory_equal(&r, &again, sizeof r);
            }
            uint64_t i = broker_index(&b, p, o);
            assert_true(i < b.records && seen[i] == 0);
            seen[i] = 1;
            assert_int_equal(broker_id_of_index(&b, i), r.id);
        }
        assert_false(broker_read(&b, p, per[t], &r));   /* each topic's logs end at its own length */
    }
    sim_run_destroy(run);
    sim_run_destroy(alone_run);
}

/* A default topic with no partitions (a job whose sources all name
 * topics) takes no ids: the first named topic starts at partition 0. */
static void test_broker_an_empty_default_topic_takes_no_partition_ids(void **state) {
    (void)state;
    sim_run *run = make_run(7);
    broker_cfg c = cfg_of(BROKER_ZIPF, 1000);
    c.partitions = 0;
    c.topics_more = 1;
    c.more[0] = (broker_topic_cfg){ .name = "clicks", .partitions = 3, .records_per_partition = 10, .keys = 4,
                                    .dist = BROKER_UNIFORM, .zipf_s_milli = 1000, .value_max = 5, .event_gap_ns = 1 };
    assert_int_equal(broker_cfg_keys(&c), 4);      /* the empty topic's keys hold nothing */
    broker b;
    broker_init(&b, run, &c);
    assert_int_equal(b.partitions, 3);
    assert_null(b.topic[0].zipf_cdf);              /* and it draws none */
    model_rec r;
    assert_int_equal(broker_topic_of(&b, 0), 1);
    assert_true(broker_read(&b, 0, 9, &r));
    assert_true(r.key < 4);
    assert_int_equal(broker_index(&b, 2, 9), 29);
    sim_run_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broker_rereads_the_same_record_after_a_rewind),
        cmocka_unit_test(test_broker_zipf_guide_finds_the_key_a_full_search_finds),
        cmocka_unit_test(test_broker_other_seed_gives_other_data_same_seed_same_data),
        cmocka_unit_test(test_broker_uniform_keys_are_uniform),
        cmocka_unit_test(test_broker_zipf_keys_follow_the_power_law),
        cmocka_unit_test(test_broker_records_have_fixed_values),
        cmocka_unit_test(test_broker_topics_have_global_partition_ids_and_their_own_records),
        cmocka_unit_test(test_broker_an_empty_default_topic_takes_no_partition_ids),
    };
    return cmocka_run_group_tests_name("broker", tests, NULL, NULL);
}
