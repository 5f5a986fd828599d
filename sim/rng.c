/* sim/rng.c: PCG32 seeding, stream derivation and the deterministic log.
 *
 * Why a hand-written log: libm's log() may differ between C libraries and
 * versions, and a compiler may evaluate it differently at different -O levels
 * (constant folding with MPFR, vectorised variants). The run's event order
 * depends on every delay, so one differing bit would fork the trace. The
 * series below uses only operations IEEE 754 defines exactly (each rounded
 * once), which x86-64 SSE2, AArch64 and every other target absim cares about
 * implement identically, given -ffp-contract=off (no fused multiply-add). */
#include "rng.h"

void rng_seed(rng *r, uint64_t initstate, uint64_t initseq) {
    r->state = 0u;
    r->inc = (initseq << 1u) | 1u;
    (void)rng_u32(r);
    r->state += initstate;
    (void)rng_u32(r);
}

uint64_t rng_splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The stream id picks the LCG increment (63 bits of it), which makes streams
 * distinct sequences; the start state is scrambled from both seed and id so
 * streams of one seed do not start at related points of their cycles. */
rng rng_stream(uint64_t run_seed, uint64_t stream_id) {
    rng r;
    rng_seed(&r, rng_splitmix64(run_seed ^ rng_splitmix64(stream_id)), stream_id);
    return r;
}

double rng_unit_ln(uint32_t u) {
    static const double ln2 = 0.693147180559945309417232121458;
    static const double sqrt2 = 1.41421356237309504880168872421;
    uint64_t v = 2u * (uint64_t)u + 1u;            /* odd, 1 <= v < 2^33 */
    int e = 63 - __builtin_clzll(v);                /* 2^e <= v < 2^(e+1) */
    double m = (double)v / (double)(1ull << e);     /* exact: m in [1, 2) */
    if (m > sqrt2) {                                /* centre m around 1 */
        m = m * 0.5;                                /* exact */
        e += 1;
    }
    /* ln(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716: the series
     * 2(s + s^3/3 + ... + s^15/15) leaves an error below 1e-13. */
    double s = (m - 1.0) / (m + 1.0);
    double s2 = s * s;
    double p = 1.0 / 15.0;
    p = p * s2 + 1.0 / 13.0;
    p = p * s2 + 1.0 / 11.0;
    p = p * s2 + 1.0 / 9.0;
    p = p * s2 + 1.0 / 7.0;
    p = p * s2 + 1.0 / 5.0;
    p = p * s2 + 1.0 / 3.0;
    p = p * s2 + 1.0;
    double ln_m = 2.0 * s * p;
    double result = ln_m + (double)(e - 33) * ln2;
    SIM_ASSERT(result < 0.0);
    return result;
}

sim_time_ns rng_exp_ns(uint32_t u, sim_time_ns mean_ns) {
    SIM_ASSERT(mean_ns <= (1ull << 48));
    double x = -rng_unit_ln(u) * (double)mean_ns;  /* <= 22.9 * mean */
    SIM_ASSERT(x >= 0.0 && x < 18446744073709551616.0);
    return (sim_time_ns)x;                         /* truncation: exact */
}
