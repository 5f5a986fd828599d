/* sim/rng.h: PCG32 random streams (O'Neill, pcg-random.org; XSH-RR output,
 * 64-bit LCG state, selectable stream) and the deterministic distributions
 * built on them.
 *
 * Contract:
 * - rng_seed(r, initstate, initseq) is the reference pcg32_srandom_r and
 *   rng_u32() the reference pcg32_random_r: seed 42, stream 54 gives
 *   0xa15c02b7 0x7b47f409 ... (tests/test_rng.c checks the authors' demo).
 * - rng_below(r, n) is uniform on [0, n) without modulo bias, using the
 *   reference pcg32_boundedrand_r rejection method, so the demo's coins,
 *   dice and card shuffle are reproduced too.
 * - rng_stream(run_seed, stream_id) derives an independent stream per
 *   (seed, id): each actor, link and fault injector owns one, so adding an
 *   actor never changes what the others draw.
 * - rng_exp_ns() and rng_unit_ln() use only IEEE +, -, *, / on doubles and
 *   integer bit operations, never libm: with FP contraction off they give
 *   bit-identical results at -O0 and -O2, under gcc and clang.
 * - Nothing here allocates. The model does not call these directly for
 *   decisions that shape a run; it goes through sim_choose() (sim/run.h).
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include "base.h"

typedef struct rng {
    uint64_t state;
    uint64_t inc;      /* always odd: (initseq << 1) | 1 */
} rng;

/* Stream-id domains: an id is (domain << 32) | index. */
enum {
    RNG_DOMAIN_ACTOR = 1,
    RNG_DOMAIN_LINK  = 2,
    RNG_DOMAIN_FAULT = 3,
    RNG_DOMAIN_DEV   = 4,
    RNG_DOMAIN_MODEL = 5,   /* for model-level injectors that are not actors */
    RNG_DOMAIN_KERNEL = 6,  /* the kernel's own choices */
};

static inline uint64_t rng_stream_id(uint32_t domain, uint32_t index) {
    return ((uint64_t)domain << 32) | index;
}

void     rng_seed(rng *r, uint64_t initstate, uint64_t initseq);
rng      rng_stream(uint64_t run_seed, uint64_t stream_id);

/* SplitMix64's finaliser: a bijective 64-bit hash. Inline: the model calls
 * it several times per record (keys, marks, partitioning, the broker). */
static inline uint64_t rng_splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint32_t rng_u32(rng *r) {
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ull + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

/* Uniform on [0, bound), bound >= 1. Rejects the low (2^32 mod bound)
 * values, as the reference does; expected draws < 2 for any bound. */
static inline uint32_t rng_below(rng *r, uint32_t bound) {
    SIM_ASSERT(bound >= 1);
    uint32_t threshold = (0u - bound) % bound;
    for (;;) {
        uint32_t x = rng_u32(r);
        if (x >= threshold) return x % bound;
    }
}

/* ln(u') for u' = (2u + 1) / 2^33, the midpoint of the u-th of 2^32 equal
 * cells of (0, 1): never 0 or 1, so the log is finite and negative. */
double rng_unit_ln(uint32_t u);

/* An exponential variate with the given mean, from one 32-bit uniform u
 * (normally drawn through sim_choose). Inverse transform: -mean * ln(u').
 * mean_ns <= 2^48 keeps the product exact enough and far from overflow. */
sim_time_ns rng_exp_ns(uint32_t u, sim_time_ns mean_ns);

#endif
