/* tests/test_rng.c: PCG32 against the PCG authors' reference demo, stream
 * independence, bounded draws, and the deterministic exponential. */
#include "harness.h"

#include <math.h>

#include "../sim/rng.h"

/* One round of pcg32-demo.c (pcg-c-basic): six 32-bit outputs, 65 coin
 * flips, 33 dice, and a 52-card Fisher-Yates deal, written as the demo
 * prints them (without the line breaks between cards). */
static void demo_round(rng *r, uint32_t out32[6], char coins[66], char rolls[100], char cards[200]) {
    for (int i = 0; i < 6; i++) out32[i] = rng_u32(r);
    for (int i = 0; i < 65; i++) coins[i] = rng_below(r, 2) ? 'H' : 'T';
    coins[65] = '\0';
    char *p = rolls;
    for (int i = 0; i < 33; i++) p += sprintf(p, i ? " %u" : "%u", rng_below(r, 6) + 1);
    int deck[52];
    for (int i = 0; i < 52; i++) deck[i] = i;
    for (uint32_t i = 52; i > 1; i--) {
        uint32_t chosen = rng_below(r, i);
        int card = deck[chosen];
        deck[chosen] = deck[i - 1];
        deck[i - 1] = card;
    }
    p = cards;
    for (int i = 0; i < 52; i++) {
        p += sprintf(p, i ? " %c%c" : "%c%c", "A23456789TJQK"[deck[i] / 4], "hcds"[deck[i] % 4]);
    }
}

static void test_rng_reproduces_pcg32_demo_seed_42_stream_54(void **state) {
    (void)state;
    rng r;
    rng_seed(&r, 42u, 54u);
    uint32_t v[6];
    char coins[66], rolls[100], cards[200];

    demo_round(&r, v, coins, rolls, cards);   /* Round 1 */
    const uint32_t r1[6] = { 0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e };
    for (int i = 0; i < 6; i++) assert_int_equal(v[i], r1[i]);
    assert_string_equal(coins, "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT");
    assert_string_equal(rolls, "3 4 1 1 2 2 3 2 4 3 2 4 3 3 5 2 3 1 3 1 5 1 4 1 5 6 4 6 6 2 6 3 3");
    assert_string_equal(cards,
        "Qd Ks 6d 3s 3d 4c 3h Td Kc 5c Jh Kd Jd As 4s 4h Ad Th Ac Jc 7s Qs "
        "2s 7h Kh 2d 6c Ah 4d Qh 9h 6s 5s 2c 9c Ts 8d 9s 3c 8c Js 5d 2h 6h "
        "7d 8s 9d 5h 8h Qc 7c Tc");

    demo_round(&r, v, coins, rolls, cards);   /* Round 2 */
    const uint32_t r2[6] = { 0x74ab93ad, 0x1c1da000, 0x494ff896, 0x34462f2f, 0xd308a3e5, 0x0fa83bab };
    for (int i = 0; i < 6; i++) assert_int_equal(v[i], r2[i]);
    assert_string_equal(coins, "HHHHHHHHHHTHHHTHTHTHTHTTTTHHTTTHHTHHTHTTHHTTTHHHHHHTHTTHTHTTTTTTT");
    assert_string_equal(rolls, "5 1 1 3 3 2 4 5 3 2 2 6 4 3 2 4 2 4 3 2 3 6 3 2 3 4 2 4 1 1 5 4 4");
    assert_string_equal(cards,
        "7d 2s 7h Td 8s 3c 3d Js 2d Tc 4h Qs 5c 9c Th 2c Jc Qd 9d Qc 7s 3s "
        "5s 6h 4d Jh 4c Ac 4s 5h 5d Kc 8h 8d Jd 9s Ad 6s 6c Kd 2h 3h Kh Ts "
        "Qh 9h 6d As 7c Ks Ah 8c");

    demo_round(&r, v, coins, rolls, cards);   /* Rounds 3 and 4 */
    demo_round(&r, v, coins, rolls, cards);
    demo_round(&r, v, coins, rolls, cards);   /* Round 5 */
    const uint32_t r5[6] = { 0xfcef7cd6, 0x1b488b5a, 0xd0daf7ea, 0x1d9a70f7, 0x241a37cf, 0x9a3857b7 };
    for (int i = 0; i < 6; i++) assert_int_equal(v[i], r5[i]);
    assert_string_equal(coins, "HHHHTHHTTHTTHHHTTTHHTHTHTTTTHTTHTHTTTHHHTHTHTTHTTHTHHTHTHHHTHTHTT");
    assert_string_equal(rolls, "5 4 1 2 6 1 3 1 5 6 3 6 2 1 4 4 5 2 1 5 6 5 6 4 4 4 5 2 6 4 3 5 6");
    assert_string_equal(cards,
        "4d 9s Qc 9h As Qs 7s 4c Kd 6h 6s 2c 8c 5d 7h 5h Jc 3s 7c Jh Js Ks "
        "Tc Jd Kc Th 3h Ts Qh Ad Td 3c Ah 2d 3d 5c Ac 8s 5s 9c 2h 6c 6d Kh "
        "Qd 8d 7d 2s 8h 4h 9d 4s");
}

static void test_rng_streams_of_one_seed_are_distinct_and_reproducible(void **state) {
    (void)state;
    rng a = rng_stream(7, rng_stream_id(RNG_DOMAIN_ACTOR, 0));
    rng b = rng_stream(7, rng_stream_id(RNG_DOMAIN_ACTOR, 1));
    rng c = rng_stream(7, rng_stream_id(RNG_DOMAIN_LINK, 0));
    rng a2 = rng_stream(7, rng_stream_id(RNG_DOMAIN_ACTOR, 0));
    rng a8 = rng_stream(8, rng_stream_id(RNG_DOMAIN_ACTOR, 0));
    uint32_t same_ab = 0, same_ac = 0, same_seed = 0;
    for (int i = 0; i < 10000; i++) {
        uint32_t x = rng_u32(&a), y = rng_u32(&b), z = rng_u32(&c);
        same_ab += x == y;
        same_ac += x == z;
        same_seed += x == rng_u32(&a8);
        assert_int_equal(x, rng_u32(&a2));     /* same (seed, id): same sequence */
    }
    /* Independent 32-bit sequences agree by chance about 10000 / 2^32 times. */
    assert_true(same_ab <= 1);
    assert_true(same_ac <= 1);
    assert_true(same_seed <= 1);
}

static void test_rng_below_is_in_range_and_unbiased(void **state) {
    (void)state;
    rng r = rng_stream(99, 1);
    enum { BINS = 6, DRAWS = 600000 };
    uint32_t counts[BINS] = { 0 };
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = rng_below(&r, BINS);
        assert_true(v < BINS);
        counts[v]++;
    }
    double chi2 = 0;
    for (int i = 0; i < BINS; i++) {
        double d = (double)counts[i] - DRAWS / BINS;
        chi2 += d * d / (DRAWS / BINS);
    }
    assert_true(chi2 < 20.5);                  /* p = 0.001 for 5 degrees of freedom */
    /* A bound just above 2^31 is where modulo bias would be worst: half the
     * values would be twice as likely. Rejection keeps the halves even. */
    uint32_t bound = 0x80000001u, low = 0;
    for (int i = 0; i < 200000; i++) low += rng_below(&r, bound) < bound / 2;
    assert_true(low > 98000 && low < 102000);
    for (int i = 0; i < 1000; i++) assert_int_equal(rng_below(&r, 1), 0);
}

static void test_rng_unit_ln_matches_libm_within_1e12(void **state) {
    (void)state;
    double worst = 0;
    rng r = rng_stream(3, 3);
    for (int i = 0; i < 200000; i++) {
        uint32_t u = i < 4 ? (uint32_t[]){ 0, 1, 0x7fffffffu, UINT32_MAX }[i] : rng_u32(&r);
        double x = ((double)u + 0.5) / 4294967296.0;
        double err = fabs(rng_unit_ln(u) - log(x));
        if (err > worst) worst = err;
    }
    assert_true(worst < 1e-12);
}

static void test_rng_exp_has_the_requested_mean_and_fixed_bits(void **state) {
    (void)state;
    rng r = rng_stream(5, 5);
    const sim_time_ns mean = 1000000;
    double sum = 0;
    enum { N = 1000000 };
    for (int i = 0; i < N; i++) sum += (double)rng_exp_ns(rng_u32(&r), mean);
    double m = sum / N;
    assert_true(m > 0.997 * mean && m < 1.003 * mean);   /* sd of the mean: 0.1% */
    /* Golden values: these must be the same under every compiler and -O
     * level (make test runs this file from gcc and clang builds). */
    assert_int_equal(rng_exp_ns(0, mean), 22873856);         /* 33 ln 2 ms */
    assert_int_equal(rng_exp_ns(UINT32_MAX, mean), 0);
    assert_int_equal(rng_exp_ns(0x80000000u, mean), 693147);
    assert_int_equal(rng_exp_ns(12345678u, 1000000000ull), 5851893137ull);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_reproduces_pcg32_demo_seed_42_stream_54),
        cmocka_unit_test(test_rng_streams_of_one_seed_are_distinct_and_reproducible),
        cmocka_unit_test(test_rng_below_is_in_range_and_unbiased),
        cmocka_unit_test(test_rng_unit_ln_matches_libm_within_1e12),
        cmocka_unit_test(test_rng_exp_has_the_requested_mean_and_fixed_bits),
    };
    return cmocka_run_group_tests_name("rng", tests, NULL, NULL);
}
