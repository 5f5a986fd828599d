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
 *   offset o is (o + 1) * event_gap_ns, less a jitter drawn per record
 *   uniform on [0, disorder_ns] (0 by default; never below 0), so with a
 *   disorder a partition's event times are out of order by at most
 *   disorder_ns: the bound a watermark's delay must cover
 *   (broker_event_time, a pure function of the record's id).
 * - Record ids are unique across the broker: id = partition << 40 | offset,
 *   so checkers can name the records involved in a violation.
 * - Topics: the broker holds up to BROKER_TOPICS_MAX topics, each with its
 *   partitions, records per partition, keys, key distribution, values and
 *   event gap. Topic 0 is the default topic (broker_cfg's own fields, what
 *   `broker partitions ...` sets); topics 1.. are named. Partitions have
 *   global ids, topic by topic: topic t's partition i is first(t) + i, so
 *   everything indexed by partition (offsets, the sinks' external system,
 *   the enumerator, the checkers) sees one range, and a record's partition
 *   says its topic. A topic may hold no partitions (the default topic of a
 *   job whose sources all name topics): it then takes no ids. Records are
 *   a function of (seed, global id): a one-topic broker reads as before.
 * - broker_init() allocates the Zipf tables (8 bytes a key) and the
 *   partitions' record bases (8 bytes a partition) from the run's arena; set-up math uses sim/dmath.h, so keys are the same bits on every
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

#define BROKER_TOPICS_MAX 8u

/* One topic's input, as the default topic's fields of broker_cfg. */
typedef struct broker_topic_cfg {
    char        name[SIM_NAME_BYTES];   /* "" for the default topic */
    uint32_t    partitions;
    uint64_t    records_per_partition;
    uint64_t    keys;
    broker_keys dist;
    uint32_t    zipf_s_milli;
    int64_t     value_max;
    sim_time_ns event_gap_ns;
    sim_time_ns disorder_ns;        /* event times out of order by up to this much (0: in order) */
} broker_topic_cfg;

/* The default topic's fields first (every caller that knows one topic
 * sets those), then the named topics. */
typedef struct broker_cfg {
    uint32_t    partitions;
    uint64_t    records_per_partition;
    uint64_t    keys;
    broker_keys dist;
    uint32_t    zipf_s_milli;    /* Zipf exponent x 1000 (1100: s = 1.1) */
    int64_t     value_max;
    sim_time_ns event_gap_ns;
    sim_time_ns disorder_ns;
    char        name[SIM_NAME_BYTES];   /* the default topic's: "" unless a reader renamed it */
    uint32_t    topics_more;            /* named topics after the default one */
    broker_topic_cfg more[BROKER_TOPICS_MAX - 1];
} broker_cfg;

/* Topics in cfg (the default one counted), topic t's settings, and sums
 * over all topics: partitions, records, and the most keys of a topic that
 * holds records (what a keyed map must be able to hold). */
static inline uint32_t broker_cfg_topics(const broker_cfg *c) { return 1 + c->topics_more; }
broker_topic_cfg broker_cfg_topic(const broker_cfg *c, uint32_t t);
uint32_t broker_cfg_partitions(const broker_cfg *c);
uint64_t broker_cfg_records(const broker_cfg *c);
uint64_t broker_cfg_keys(const broker_cfg *c);
/* Above every event time of every topic: (records + 1) x gap, the most. */
sim_time_ns broker_cfg_event_end(const broker_cfg *c);
uint32_t broker_cfg_first(const broker_cfg *c, uint32_t t);   /* topic t's first partition id */
/* The topic named name (len bytes; "" and 0: the default), or -1. */
int broker_cfg_find(const broker_cfg *c, const char *name, size_t len);

typedef struct broker_topic {
    broker_topic_cfg cfg;
    uint32_t   first;            /* its first partition's global id */
    uint32_t   end;              /* first + partitions */
    uint64_t   first_record;     /* its first record's index among all topics' (broker_index) */
    uint64_t   end_record;       /* first_record + partitions x records */
    uint64_t  *zipf_cdf;         /* cdf[k] = P(key <= k) x 2^53, cdf[keys-1] = 2^53 */
    uint32_t  *zipf_guide;       /* guide[i]: the first k with cdf[k] > i x 2^53 / 2^guide_bits (i <= 2^guide_bits) */
    uint32_t   guide_bits;       /* 2^guide_bits >= keys, so a lookup searches about one key */
    uint64_t   seed;             /* the broker's, here too: a read needs nothing but its topic */
} broker_topic;

typedef struct broker {
    broker_cfg   cfg;
    uint64_t     seed;
    broker_topic topic[BROKER_TOPICS_MAX];
    uint32_t     topics;
    uint32_t     partitions;     /* of every topic */
    uint64_t     records;        /* of every topic */
    uint64_t    *part_base;      /* by partition, one more: broker_index of its offset 0 (the sinks index by it) */
} broker;

void broker_init(broker *b, sim_run *run, const broker_cfg *cfg);

/* Zipf: the key of uniform u53 (< 2^53) in topic t, the first k with u53 < cdf[k]. */
uint64_t broker_zipf_key(const broker_topic *t, uint64_t u53);

/* The topic of partition p (a global id below b->partitions): a short
 * scan, one comparison with one topic. */
static inline uint32_t broker_topic_of(const broker *b, uint32_t p) {
    uint32_t t = 0;
    while (p >= b->topic[t].end) t++;
    return t;
}

/* Record (p, off)'s place among all records, 0 .. records - 1 (the sinks'
 * external system is indexed so), and back. */
static inline uint64_t broker_index(const broker *b, uint32_t p, uint64_t off) {
    return b->part_base[p] + off;
}
uint64_t broker_id_of_index(const broker *b, uint64_t i);   /* partition << 40 | offset */

/* The event time of record (partition, offset) of topic cfg t: see the
 * contract. The jitter hashes the id alone (not the broker's seed), so a
 * checker computes it without the broker. */
static inline sim_time_ns broker_event_time(const broker_topic_cfg *t, uint32_t partition, uint64_t offset) {
    sim_time_ns base = (offset + 1) * t->event_gap_ns;
    if (t->disorder_ns == 0) return base;
    uint64_t id = ((uint64_t)partition << 40) | offset;
    sim_time_ns jitter = (sim_time_ns)(((unsigned __int128)rng_splitmix64(id ^ 0x3c6ef372fe94f82bull) *
                                        (uint64_t)(t->disorder_ns + 1)) >> 64);
    return jitter >= base ? 0 : base - jitter;
}

/* The record at (partition, offset); false past the end of the log. */
bool broker_read(const broker *b, uint32_t partition, uint64_t offset, model_rec *out);
/* The same, for a partition of topic t (the caller knows it: a source
 * reads its own topic), without looking the topic up. */
bool broker_topic_read(const broker_topic *t, uint32_t partition, uint64_t offset, model_rec *out);

#endif
