/* sim/dmath.c: series with argument reduction.
 *
 * ln: x = m 2^e with m in [sqrt(1/2), sqrt(2)) from the bits of x; then
 * ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| < 0.1716, summed to s^25.
 * exp: x = n ln2 + r, |r| <= ln2/2, with ln2 split in two parts so n ln2 is
 * exact enough; exp r by its Taylor series to r^17; 2^n put into the
 * exponent bits. */
#include "dmath.h"

#include <string.h>

static const double LN2 = 0x1.62e42fefa39efp-1;
static const double LN2_HI = 0x1.62e42fee00000p-1;   /* 32 significant bits: n * LN2_HI exact */
static const double LN2_LO = 0x1.a39ef35793c76p-33;

static double from_bits(uint64_t b) {
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static uint64_t to_bits(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

double dmath_ln(double x) {
    SIM_ASSERT(x > 0.0 && x < 1.0 / 0.0);
    uint64_t b = to_bits(x);
    int e = (int)((b >> 52) & 0x7ff);
    if (e == 0) {                                  /* subnormal: scale up by 2^64 */
        b = to_bits(x * 18446744073709551616.0);
        e = (int)((b >> 52) & 0x7ff) - 64;
    }
    e -= 1023;
    double m = from_bits((b & ((1ull << 52) - 1)) | (1023ull << 52));   /* [1, 2) */
    if (m > 1.41421356237309504880) {
        m *= 0.5;
        e += 1;
    }
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double p = 1.0 / 25.0;
    for (int k = 23; k >= 1; k -= 2) p = p * s2 + 1.0 / (double)k;
    double ln_m = 2.0 * s * p;
    return (double)e * LN2_HI + (ln_m + (double)e * LN2_LO);
}

double dmath_exp(double x) {
    SIM_ASSERT(x >= -700.0 && x <= 700.0);
    double t = x / LN2;
    int n = (int)(t < 0 ? t - 0.5 : t + 0.5);      /* nearest integer */
    double r = (x - (double)n * LN2_HI) - (double)n * LN2_LO;
    double p = 1.0;                                /* Taylor, Horner, to r^17/17! */
    for (int k = 17; k >= 1; k--) p = 1.0 + p * r / (double)k;
    SIM_ASSERT(n + 1023 > 0 && n + 1023 < 2047);
    return p * from_bits((uint64_t)(n + 1023) << 52);
}

double dmath_pow(double x, double y) {
    SIM_ASSERT(x > 0.0);
    if (y == 0.0 || x == 1.0) return 1.0;
    return dmath_exp(y * dmath_ln(x));
}
