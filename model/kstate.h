/* model/kstate.h: keyed state of a stateful operator: per key a count, a
 * sum and a fingerprint of the ids of the records folded in.
 *
 * Contract:
 * - All three aggregates are commutative and exact (integer arithmetic
 *   modulo 2^64), so the state after a set of records does not depend on
 *   the order they were folded in: a checker can compare a run with
 *   failures against a failure-free run (invariant I1), and a checkpoint
 *   against the source prefixes it claims (I2). The fingerprint is a sum of
 *   hashes, not an xor, so a record folded twice changes it (a duplicate
 *   never cancels out).
 * - The map is open addressing with linear probing over a power-of-two
 *   table carved from the run's arena at kstate_init(); it never grows:
 *   inserting past KSTATE_LOAD_MAX of the capacity asserts.
 * - Iteration (kstate_next) goes by slot, which depends only on the keys
 *   inserted and their order, never on addresses.
 * - kstate_copy() is the synchronous snapshot (the memory backend's copy);
 *   the copy-on-write versions come with the asynchronous-snapshot issue.
 */
#ifndef MODEL_KSTATE_H
#define MODEL_KSTATE_H

#include "../sim/run.h"
#include "broker.h"

#define KSTATE_CAPACITY_MAX (1u << 24)
#define KSTATE_LOAD_NUM 3u            /* at most 3/4 full */
#define KSTATE_LOAD_DEN 4u

typedef struct kagg {
    uint64_t count;
    int64_t  sum;
    uint64_t fingerprint;             /* sum of mix(record id) */
} kagg;

typedef struct kstate {
    uint64_t *keys;                   /* key + 1; 0 marks an empty slot */
    kagg     *aggs;
    uint32_t  capacity;               /* slots, a power of two */
    uint32_t  count;                  /* keys present */
} kstate;

/* Room for keys_max keys at the load limit. */
void kstate_init(kstate *s, sim_run *run, uint32_t keys_max);
void kstate_clear(kstate *s);

kagg       *kstate_upsert(kstate *s, uint64_t key);
const kagg *kstate_find(const kstate *s, uint64_t key);   /* NULL when absent */

/* Fold one record into its key's aggregate. */
void kstate_fold(kstate *s, const model_rec *r);

/* dst := src; dst must have at least src's capacity. */
void kstate_copy(kstate *dst, const kstate *src);

/* True when both hold the same keys with the same aggregates; otherwise
 * *key is a key that differs (the smallest such key, for stable reports). */
bool kstate_equal(const kstate *a, const kstate *b, uint64_t *key);

/* Iterate: start with *slot = 0; false when done. */
bool kstate_next(const kstate *s, uint32_t *slot, uint64_t *key, kagg *agg);

uint64_t kstate_record_mark(uint64_t record_id);   /* the fingerprint term */

#endif
