/* model/flow/broker.h: a Kafka-like broker: partitions holding finite,
 * append-only logs of records, readable from any offset.
 *
 * Contract:
 * - broker_read(b, p, off) is a pure function of (seed, p, off): a record
 *   reads the same every time, so a source that rewinds to an offset after
 *   a failure replays exactly what it read before. Nothing is stored per
 *   record; logs of any length cost no memory.
 * - Keys are uniform on [0, keys) or Zipf(s): key k has weight (k+1)^-s,
 *   key 0 the most frequent. Values are in [1, value_max]. Event time of
 *   offset o is (o + 1) * event_gap_ns.
 * - Record ids are unique across the broker: id = partition << 40 | offset,
 *   so checkers can name the records involved in a violation.
 * - broker_init() allocates the Zipf table (8 bytes a key) from the run's
 *   arena; set-up math uses sim/dmath.h, so keys are the same bits on every
 *   build. Bounds: BROKER_PARTITIONS_MAX, BROKER_OFFSET_MAX, BROKER_KEYS_MAX.
 */
#ifndef MODEL_BROKER_H
#define MODEL_BROKER_H

#include "../../sim/run.h"

#define BROKER_PARTITIONS_MAX (1u << 16)
#define BROKER_OFFSET_MAX     ((1ull << 40) - 1)
#define BROKER_KEYS_MAX       (1u << 22)

typedef struct model_rec {
    uint64_t    id;              /* partition << 40 | offset */
    uint64_t    key;
    int64_t     value;
    sim_time_ns event_time_ns;
} model_rec;

static inline uint32_t rec_partition(const model_rec *r) { return (uint32_t)(r->id >> 40); }
static inline uint64_t rec_offset(const model_rec *r) { return r->id & BROKER_OFFSET_MAX; }

typedef enum broker_keys {
    BROKER_UNIFORM = 1,
    BROKER_ZIPF,
} broker_keys;

typedef struct broker_cfg {
    uint32_t    partitions;
    uint64_t    records_per_partition;
    uint64_t    keys;
    broker_keys dist;
    uint32_t    zipf_s_milli;    /* Zipf exponent x 1000 (1100: s = 1.1) */
    int64_t     value_max;
    sim_time_ns event_gap_ns;
} broker_cfg;

typedef struct broker {
    broker_cfg cfg;
    uint64_t   seed;
    uint64_t  *zipf_cdf;         /* cdf[k] = P(key <= k) x 2^53, cdf[keys-1] = 2^53 */
    uint32_t  *zipf_guide;       /* guide[i]: the first k with cdf[k] > i x 2^53 / 2^guide_bits (i <= 2^guide_bits) */
    uint32_t   guide_bits;       /* 2^guide_bits >= keys, so a lookup searches about one key */
} broker;

void broker_init(broker *b, sim_run *run, const broker_cfg *cfg);

/* Zipf: the key of uniform u53 (< 2^53), the first k with u53 < cdf[k]. */
uint64_t broker_zipf_key(const broker *b, uint64_t u53);

/* The record at (partition, offset); false past the end of the log. */
bool broker_read(const broker *b, uint32_t partition, uint64_t offset, model_rec *out);

#endif
