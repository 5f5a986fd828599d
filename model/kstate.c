/* model/kstate.c: linear-probing hash map of aggregates. */
#include "kstate.h"

#include <string.h>

static uint32_t home(const kstate *s, uint64_t key) {
    return (uint32_t)(rng_splitmix64(key) & (s->capacity - 1));
}

void kstate_init(kstate *s, sim_run *run, uint32_t keys_max) {
    SIM_ASSERT(keys_max >= 1);
    uint64_t need = (uint64_t)keys_max * KSTATE_LOAD_DEN / KSTATE_LOAD_NUM + 1;
    uint32_t cap = 8;
    while (cap < need) cap *= 2;
    SIM_ASSERT(cap <= KSTATE_CAPACITY_MAX);
    s->keys = sim_alloc(run, sizeof(uint64_t) * cap, _Alignof(uint64_t));
    s->aggs = sim_alloc(run, sizeof(kagg) * cap, _Alignof(kagg));
    s->capacity = cap;
    s->count = 0;
}

void kstate_clear(kstate *s) {
    memset(s->keys, 0, sizeof(uint64_t) * s->capacity);
    memset(s->aggs, 0, sizeof(kagg) * s->capacity);
    s->count = 0;
}

kagg *kstate_upsert(kstate *s, uint64_t key) {
    SIM_ASSERT(key != UINT64_MAX);
    uint32_t mask = s->capacity - 1;
    for (uint32_t i = home(s, key);; i = (i + 1) & mask) {
        if (s->keys[i] == key + 1) return &s->aggs[i];
        if (s->keys[i] == 0) {
            SIM_ASSERT((uint64_t)(s->count + 1) * KSTATE_LOAD_DEN <= (uint64_t)s->capacity * KSTATE_LOAD_NUM);
            s->keys[i] = key + 1;
            s->count++;
            return &s->aggs[i];
        }
    }
}

const kagg *kstate_find(const kstate *s, uint64_t key) {
    uint32_t mask = s->capacity - 1;
    for (uint32_t i = home(s, key);; i = (i + 1) & mask) {
        if (s->keys[i] == key + 1) return &s->aggs[i];
        if (s->keys[i] == 0) return NULL;
    }
}

uint64_t kstate_record_mark(uint64_t record_id) {
    return rng_splitmix64(record_id ^ 0x6a09e667f3bcc909ull);
}

void kstate_fold(kstate *s, const model_rec *r) {
    kagg *a = kstate_upsert(s, r->key);
    a->count++;
    a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)r->value);   /* wraps, never UB */
    a->fingerprint += kstate_record_mark(r->id);
}

void kstate_copy(kstate *dst, const kstate *src) {
    if (dst->capacity == src->capacity) {       /* same layout: copy the table */
        memcpy(dst->keys, src->keys, sizeof(uint64_t) * src->capacity);
        memcpy(dst->aggs, src->aggs, sizeof(kagg) * src->capacity);
        dst->count = src->count;
        return;
    }
    SIM_ASSERT(dst->capacity > src->capacity);
    kstate_clear(dst);
    uint32_t slot = 0;
    uint64_t key;
    kagg agg;
    while (kstate_next(src, &slot, &key, &agg)) *kstate_upsert(dst, key) = agg;
    SIM_ASSERT(dst->count == src->count);
}

bool kstate_next(const kstate *s, uint32_t *slot, uint64_t *key, kagg *agg) {
    for (uint32_t i = *slot; i < s->capacity; i++) {
        if (s->keys[i] == 0) continue;
        *key = s->keys[i] - 1;
        *agg = s->aggs[i];
        *slot = i + 1;
        return true;
    }
    *slot = s->capacity;
    return false;
}

static bool agg_equal(const kagg *x, const kagg *y) {
    return x->count == y->count && x->sum == y->sum && x->fingerprint == y->fingerprint;
}

/* Smallest key of a that b lacks or holds differently. */
static bool first_diff(const kstate *a, const kstate *b, uint64_t *key) {
    bool found = false;
    uint32_t slot = 0;
    uint64_t k;
    kagg agg;
    while (kstate_next(a, &slot, &k, &agg)) {
        const kagg *other = kstate_find(b, k);
        if (other != NULL && agg_equal(&agg, other)) continue;
        if (!found || k < *key) *key = k;
        found = true;
    }
    return found;
}

bool kstate_equal(const kstate *a, const kstate *b, uint64_t *key) {
    uint64_t ka = 0, kb = 0;
    bool da = first_diff(a, b, &ka), db = first_diff(b, a, &kb);
    if (!da && !db) return true;
    *key = da && db ? (ka < kb ? ka : kb) : (da ? ka : kb);
    return false;
}
