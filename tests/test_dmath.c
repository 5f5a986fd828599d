/* tests/test_dmath.c: the libm-free log, exp and pow. */
#include "harness.h"

#include <math.h>

#include "../sim/dmath.h"
#include "../sim/rng.h"

static double rel_err(double got, double want) {
    return want == 0.0 ? fabs(got) : fabs(got - want) / fabs(want);
}

static void test_dmath_ln_exp_pow_agree_with_libm_to_1e14(void **state) {
    (void)state;
    rng r = rng_stream(1, 1);
    double worst_ln = 0, worst_exp = 0, worst_pow = 0;
    for (int i = 0; i < 200000; i++) {
        double u = ((double)rng_u32(&r) + 0.5) / 4294967296.0;
        double x = u * 1e6 + 1e-3;                   /* (0.001, 1e6) */
        double e = (u - 0.5) * 1400.0;               /* (-700, 700) */
        double k = 1.0 + (double)(rng_u32(&r) % 100000);
        double s = 0.5 + u * 2.0;
        double dl = rel_err(dmath_ln(x), log(x));
        if (fabs(log(x)) > 1e-3 && dl > worst_ln) worst_ln = dl;
        double de = rel_err(dmath_exp(e), exp(e));
        if (de > worst_exp) worst_exp = de;
        double dp = rel_err(dmath_pow(k, -s), pow(k, -s));
        if (dp > worst_pow) worst_pow = dp;
    }
    assert_true(worst_ln < 1e-14);
    /* exp(700) carries 700 ulps of relative sensitivity to its argument's
     * last bit; 1e-13 is the honest bound over the whole range. */
    assert_true(worst_exp < 1e-13);
    assert_true(worst_pow < 1e-12);
    assert_true(dmath_ln(1.0) == 0.0);
    assert_true(dmath_exp(0.0) == 1.0);
    assert_true(rel_err(dmath_ln(4.9406564584124654e-324), log(4.9406564584124654e-324)) < 1e-14);
}

/* Golden bits: the same under every compiler and -O level (det_check runs
 * the unit tests of each build). */
static void test_dmath_results_have_fixed_bits(void **state) {
    (void)state;
    assert_true(dmath_ln(10.0) == 0x1.26bb1bbb55516p+1);
    assert_true(dmath_exp(1.0) == 0x1.5bf0a8b14576ap+1);    /* e, 1 ulp above the nearest */
    assert_true(dmath_pow(1000.0, -1.1) == 0x1.06c436388750fp-11);
    assert_true(dmath_pow(1000.0, -1.1) == dmath_exp(-1.1 * dmath_ln(1000.0)));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dmath_ln_exp_pow_agree_with_libm_to_1e14),
        cmocka_unit_test(test_dmath_results_have_fixed_bits),
    };
    return cmocka_run_group_tests_name("dmath", tests, NULL, NULL);
}
