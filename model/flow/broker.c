/* model/flow/broker.c: records as a hash of (seed, id); Zipf keys by inverse
 * transform over a cumulative table, searched from a guide table (Chen and
 * Asau's cutpoint method: the uniform's top bits name a bucket, the guide
 * the keys the bucket spans), which finds the same key as a binary search
 * of the whole table in about one step instead of log2(keys). */
#include "broker.h"

#include "../../sim/dmath.h"

#define UNIT53 (1ull << 53)

static void guide_init(broker *b, sim_run *run) {
    uint32_t bits = 0;
    while ((1ull << bits) < b->cfg.keys) bits++;
    uint64_t buckets = 1ull << bits;
    b->guide_bits = bits;
    b->zipf_guide = sim_alloc(run, sizeof(uint32_t) * (buckets + 1), _Alignof(uint32_t));
    uint64_t k = 0;
    for (uint64_t i = 0; i <= buckets; i++) {     /* cdf is nondecreasing: one pass */
        uint64_t edge = i << (53 - bits);
        while (k < b->cfg.keys - 1 && b->zipf_cdf[k] <= edge) k++;
        b->zipf_guide[i] = (uint32_t)k;
    }
}

void broker_init(broker *b, sim_run *run, const broker_cfg *cfg) {
    SIM_ASSERT(cfg->partitions >= 1 && cfg->partitions <= BROKER_PARTITIONS_MAX);
    SIM_ASSERT(cfg->records_per_partition <= BROKER_OFFSET_MAX);
    SIM_ASSERT(cfg->keys >= 1 && cfg->keys <= BROKER_KEYS_MAX);
    SIM_ASSERT(cfg->dist == BROKER_UNIFORM || cfg->dist == BROKER_ZIPF);
    SIM_ASSERT(cfg->value_max >= 1 && cfg->value_max <= (1ll << 31));
    b->cfg = *cfg;
    b->seed = run->seed;
    b->zipf_cdf = NULL;
    b->zipf_guide = NULL;
    if (cfg->dist != BROKER_ZIPF) return;
    SIM_ASSERT(cfg->zipf_s_milli >= 1 && cfg->zipf_s_milli <= 10000);
    double s = (double)cfg->zipf_s_milli / 1000.0;
    b->zipf_cdf = sim_alloc(run, sizeof(uint64_t) * cfg->keys, _Alignof(uint64_t));
    /* Two passes, sums in key order: the same bits on every build. */
    double total = 0.0;
    for (uint64_t k = 0; k < cfg->keys; k++) total += dmath_pow((double)(k + 1), -s);
    double partial = 0.0;
    for (uint64_t k = 0; k < cfg->keys; k++) {
        partial += dmath_pow((double)(k + 1), -s);
        double c = partial / total * (double)UNIT53;
        b->zipf_cdf[k] = c >= (double)UNIT53 ? UNIT53 : (uint64_t)c;
    }
    b->zipf_cdf[cfg->keys - 1] = UNIT53;        /* rounding never loses the tail */
    for (uint64_t k = 1; k < cfg->keys; k++) SIM_ASSERT(b->zipf_cdf[k] >= b->zipf_cdf[k - 1]);
    guide_init(b, run);
}

/* The first k with u53 < cdf[k]: at or after the guide of u53's bucket
 * (every key before it ends at or below the bucket's start), at or before
 * the next bucket's guide (its cdf is above the bucket's end). */
uint64_t broker_zipf_key(const broker *b, uint64_t u53) {
    uint64_t i = u53 >> (53 - b->guide_bits);
    uint64_t lo = b->zipf_guide[i], hi = b->zipf_guide[i + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (u53 < b->zipf_cdf[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
}

bool broker_read(const broker *b, uint32_t partition, uint64_t offset, model_rec *out) {
    SIM_ASSERT(partition < b->cfg.partitions);
    if (offset >= b->cfg.records_per_partition) return false;
    uint64_t id = ((uint64_t)partition << 40) | offset;
    uint64_t h1 = rng_splitmix64(b->seed ^ rng_splitmix64(id));
    uint64_t h2 = rng_splitmix64(h1);
    uint64_t key = b->cfg.dist == BROKER_ZIPF
        ? broker_zipf_key(b, h1 >> 11)
        : (uint64_t)(((unsigned __int128)h1 * b->cfg.keys) >> 64);
    *out = (model_rec){
        .id = id,
        .key = key,
        .value = 1 + (int64_t)(((unsigned __int128)h2 * (uint64_t)b->cfg.value_max) >> 64),
        .event_time_ns = (offset + 1) * b->cfg.event_gap_ns,
    };
    SIM_ASSERT(out->key < b->cfg.keys);
    return true;
}
