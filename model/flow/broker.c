/* model/flow/broker.c: records as a hash of (seed, id); Zipf keys by inverse
 * transform over a cumulative table, searched from a guide table (Chen and
 * Asau's cutpoint method: the uniform's top bits name a bucket, the guide
 * the keys the bucket spans), which finds the same key as a binary search
 * of the whole table in about one step instead of log2(keys). */
#include "broker.h"

#include "../../sim/dmath.h"

#include <string.h>

#define UNIT53 (1ull << 53)

broker_topic_cfg broker_cfg_topic(const broker_cfg *c, uint32_t t) {
    SIM_ASSERT(t < broker_cfg_topics(c));
    if (t > 0) return c->more[t - 1];
    broker_topic_cfg d = { .partitions = c->partitions, .records_per_partition = c->records_per_partition,
                           .keys = c->keys, .dist = c->dist, .zipf_s_milli = c->zipf_s_milli,
                           .value_max = c->value_max, .event_gap_ns = c->event_gap_ns,
                           .disorder_ns = c->disorder_ns };
    memcpy(d.name, c->name, sizeof d.name);
    return d;
}

uint32_t broker_cfg_partitions(const broker_cfg *c) {
    uint32_t n = c->partitions;
    for (uint32_t t = 0; t < c->topics_more; t++) n += c->more[t].partitions;
    return n;
}

uint64_t broker_cfg_records(const broker_cfg *c) {
    uint64_t n = (uint64_t)c->partitions * c->records_per_partition;
    for (uint32_t t = 0; t < c->topics_more; t++) n += (uint64_t)c->more[t].partitions * c->more[t].records_per_partition;
    return n;
}

sim_time_ns broker_cfg_event_end(const broker_cfg *c) {
    sim_time_ns end = 1;
    for (uint32_t t = 0; t < broker_cfg_topics(c); t++) {
        broker_topic_cfg x = broker_cfg_topic(c, t);
        sim_time_ns e = (x.records_per_partition + 1) * x.event_gap_ns;
        if (x.partitions > 0 && e > end) end = e;
    }
    return end;
}

uint64_t broker_cfg_keys(const broker_cfg *c) {
    uint64_t most = c->partitions > 0 || c->topics_more == 0 ? c->keys : 0;   /* an empty default topic holds no key */
    for (uint32_t t = 0; t < c->topics_more; t++) {
        if (c->more[t].partitions > 0 && c->more[t].keys > most) most = c->more[t].keys;
    }
    return most;
}

uint32_t broker_cfg_first(const broker_cfg *c, uint32_t t) {
    SIM_ASSERT(t < broker_cfg_topics(c));
    uint32_t first = 0;
    for (uint32_t i = 0; i < t; i++) first += broker_cfg_topic(c, i).partitions;
    return first;
}

int broker_cfg_find(const broker_cfg *c, const char *name, size_t len) {
    for (uint32_t t = 0; t < broker_cfg_topics(c); t++) {
        const char *n = t == 0 ? c->name : c->more[t - 1].name;
        if (strlen(n) == len && memcmp(n, name, len) == 0) return (int)t;
    }
    return -1;
}

static void guide_init(broker_topic *b, sim_run *run) {
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

static void topic_init(broker_topic *b, sim_run *run, const broker_topic_cfg *cfg) {
    SIM_ASSERT(cfg->partitions <= BROKER_PARTITIONS_MAX);
    SIM_ASSERT(cfg->records_per_partition <= BROKER_OFFSET_MAX);
    SIM_ASSERT(cfg->keys >= 1 && cfg->keys <= BROKER_KEYS_MAX);
    SIM_ASSERT(cfg->dist == BROKER_UNIFORM || cfg->dist == BROKER_ZIPF);
    SIM_ASSERT(cfg->value_max >= 1 && cfg->value_max <= (1ll << 31));
    b->cfg = *cfg;
    b->zipf_cdf = NULL;
    b->zipf_guide = NULL;
    b->guide_bits = 0;
    if (cfg->dist != BROKER_ZIPF || cfg->partitions == 0) return;   /* an empty topic draws no key */
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

void broker_init(broker *b, sim_run *run, const broker_cfg *cfg) {
    SIM_ASSERT(cfg->topics_more < BROKER_TOPICS_MAX);
    memset(b, 0, sizeof *b);
    b->cfg = *cfg;
    b->seed = run->seed;
    b->topics = broker_cfg_topics(cfg);
    for (uint32_t t = 0; t < b->topics; t++) {
        broker_topic *x = &b->topic[t];
        broker_topic_cfg c = broker_cfg_topic(cfg, t);
        topic_init(x, run, &c);
        x->seed = b->seed;
        x->first = b->partitions;
        x->end = x->first + c.partitions;
        x->first_record = b->records;
        x->end_record = x->first_record + (uint64_t)c.partitions * c.records_per_partition;
        b->partitions = x->end;
        b->records = x->end_record;
    }
    SIM_ASSERT(b->partitions >= 1 && b->partitions <= BROKER_PARTITIONS_MAX);
    b->part_base = sim_alloc(run, sizeof(uint64_t) * (b->partitions + 1), _Alignof(uint64_t));
    for (uint32_t p = 0; p < b->partitions; p++) {
        const broker_topic *x = &b->topic[broker_topic_of(b, p)];
        b->part_base[p] = x->first_record + (uint64_t)(p - x->first) * x->cfg.records_per_partition;
    }
    b->part_base[b->partitions] = b->records;
}

uint64_t broker_id_of_index(const broker *b, uint64_t i) {
    SIM_ASSERT(i < b->records);
    const broker_topic *t = b->topic;
    while (i >= t->end_record) t++;
    uint64_t per = t->cfg.records_per_partition, at = i - t->first_record;
    return (uint64_t)(t->first + at / per) << 40 | (at % per);
}

/* The first k with u53 < cdf[k]: at or after the guide of u53's bucket
 * (every key before it ends at or below the bucket's start), at or before
 * the next bucket's guide (its cdf is above the bucket's end). */
static inline uint64_t zipf_key(const broker_topic *b, uint64_t u53) {
    uint64_t i = u53 >> (53 - b->guide_bits);
    uint64_t lo = b->zipf_guide[i], hi = b->zipf_guide[i + 1];
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (u53 < b->zipf_cdf[mid]) hi = mid; else lo = mid + 1;
    }
    return lo;
}

uint64_t broker_zipf_key(const broker_topic *t, uint64_t u53) { return zipf_key(t, u53); }

/* Inline throughout, with no call: it runs once per record read. */
static inline bool topic_read(const broker_topic *t, uint32_t partition, uint64_t offset, model_rec *out) {
    SIM_ASSERT(partition - t->first < t->cfg.partitions);   /* one comparison: unsigned */
    if (offset >= t->cfg.records_per_partition) return false;
    uint64_t id = ((uint64_t)partition << 40) | offset;
    uint64_t h1 = rng_splitmix64(t->seed ^ rng_splitmix64(id));
    uint64_t h2 = rng_splitmix64(h1);
    uint64_t key = t->cfg.dist == BROKER_ZIPF
        ? zipf_key(t, h1 >> 11)
        : (uint64_t)(((unsigned __int128)h1 * t->cfg.keys) >> 64);
    *out = (model_rec){
        .id = id,
        .key = key,
        .value = 1 + (int64_t)(((unsigned __int128)h2 * (uint64_t)t->cfg.value_max) >> 64),
        .event_time_ns = broker_event_time(&t->cfg, partition, offset),
    };
    SIM_ASSERT(out->key < t->cfg.keys);
    return true;
}

bool broker_topic_read(const broker_topic *t, uint32_t partition, uint64_t offset, model_rec *out) {
    return topic_read(t, partition, offset, out);
}

bool broker_read(const broker *b, uint32_t partition, uint64_t offset, model_rec *out) {
    SIM_ASSERT(partition < b->partitions);
    return topic_read(&b->topic[broker_topic_of(b, partition)], partition, offset, out);
}
