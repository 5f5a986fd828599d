/* model/flow/kstate.c: linear-probing hash map of aggregates, its occupied
 * slots also listed in insertion order (scans cost the live entries). */
#include "kstate.h"

#include <string.h>

static uint32_t home(const kstate *s, uint64_t key) {
    return (uint32_t)(rng_splitmix64(key) & (s->capacity - 1));
}

static void init_from(kstate *s, arena *a, uint32_t keys_max, uint32_t snaps_max);

/* The header's memory figures assume this layout. */
_Static_assert(sizeof(kshadow) == 40, "kshadow layout changed: update the memory cost in kstate.h");
_Static_assert(sizeof(kslot) == 32, "kslot layout changed: two to a line, and the memory cost in kstate.h");

static uint64_t capacity_for(uint64_t keys_max) {
    uint64_t need = keys_max * KSTATE_LOAD_DEN / KSTATE_LOAD_NUM + 1;
    uint64_t cap = 8;
    while (cap < need) cap *= 2;
    return cap;
}

uint64_t kstate_bytes(uint64_t keys_max, uint32_t snaps_max) {
    uint64_t cap = capacity_for(keys_max);
    uint64_t plain = cap * sizeof(kslot) + keys_max * sizeof(uint32_t);
    uint64_t versioned = snaps_max == 0 ? 0 : cap * 4 + snaps_max * (keys_max * sizeof(kshadow) + cap * 4);
    /* Each carve's alignment: the slots' line, 16 for the others. */
    return plain + versioned + 64 + 16 * (1 + 1 + 2 * (uint64_t)snaps_max);
}

void kstate_init(kstate *s, sim_run *run, uint32_t keys_max) {
    kstate_init_versioned(s, run, keys_max, 0);
}

void kstate_init_in(kstate *s, arena *a, uint32_t keys_max) {
    init_from(s, a, keys_max, 0);
}

void kstate_init_versioned(kstate *s, sim_run *run, uint32_t keys_max, uint32_t snaps_max) {
    SIM_ASSERT(!run->started);                    /* model memory is carved before the run */
    init_from(s, &run->arena, keys_max, snaps_max);
}

static void init_from(kstate *s, arena *a, uint32_t keys_max, uint32_t snaps_max) {
    SIM_ASSERT(keys_max >= 1);
    SIM_ASSERT(snaps_max <= KSTATE_SNAPS_MAX);
    uint64_t cap = capacity_for(keys_max);
    SIM_ASSERT(cap <= KSTATE_CAPACITY_MAX);
    memset(s, 0, sizeof *s);
    s->slots = arena_alloc(a, sizeof(kslot) * cap, 64);   /* two slots a line, none across two */
    s->order = arena_alloc(a, sizeof(uint32_t) * keys_max, _Alignof(uint32_t));
    s->capacity = (uint32_t)cap;
    s->keys_max = keys_max;
    s->count = 0;
    s->version = 1;
    s->snaps_max = snaps_max;
    /* A plain map keeps vers NULL: a map nobody snapshots has no use for
     * versions. */
    if (snaps_max == 0) return;
    s->vers = arena_alloc(a, sizeof(uint32_t) * cap, _Alignof(uint32_t));   /* zeroed */
    for (uint32_t n = 0; n < snaps_max; n++) {
        s->snaps[n].shadows = arena_alloc(a, sizeof(kshadow) * keys_max, _Alignof(kshadow));
        s->snaps[n].shadow_of_slot = arena_alloc(a, sizeof(uint32_t) * cap, _Alignof(uint32_t));
    }
}

void kstate_own(kstate *s, const kstate_owner *owner) {
    SIM_ASSERT(owner->parallelism <= JOB_PARALLELISM_MAX && owner->tag_bits <= 2 && owner->key_bits < 64);
    SIM_ASSERT(owner->parallelism == 0 || owner->subtask < owner->parallelism);
    SIM_ASSERT(owner->parallelism <= owner->max_parallelism || owner->parallelism == 0);
    s->owner = *owner;
    for (uint32_t n = 0; n < s->count; n++) SIM_ASSERT(kstate_owns(s, s->slots[s->order[n]].key - 1));
}

bool kstate_owns(const kstate *s, uint64_t key) {
    const kstate_owner *o = &s->owner;
    if (o->parallelism == 0) return true;
    uint64_t tag = key & ((1u << o->tag_bits) - 1);
    if (((o->hashed >> tag) & 1) == 0) return true;   /* that input is not partitioned by key */
    uint64_t k = key >> o->tag_bits;
    if (o->key_bits > 0) k &= (1ull << o->key_bits) - 1;   /* a window's map: the window number above the key */
    return job_key_subtask(k, o->max_parallelism, o->parallelism) == o->subtask;
}

/* Empties every occupied slot: the table is all zero again (unoccupied
 * slots never hold anything, versions included), in O(count). */
void kstate_clear(kstate *s) {
    SIM_ASSERT(s->snaps_active == 0);             /* no snapshot may still read the old history */
    for (uint32_t n = 0; n < s->count; n++) {
        uint32_t i = s->order[n];
        s->slots[i].key = 0;
        s->slots[i].agg = (kagg){ 0 };
        if (s->vers != NULL) s->vers[i] = 0;
    }
    s->count = 0;
    s->version = 1;
}

/* Slot i, found empty on key's probe path, takes key. */
static void take_slot(kstate *s, uint32_t i, uint64_t key) {
    SIM_ASSERT(s->slots[i].key == 0);
    /* Sized for the keys it owns: one more is a sizing or a routing bug. */
    SIM_ASSERT(s->count < s->keys_max);
    SIM_ASSERT(kstate_owns(s, key));
    s->slots[i].key = key + 1;
    s->order[s->count++] = i;
}

/* Slot of key, inserting it when absent; no version bookkeeping (callers
 * that write through it either do the COW check or start a new history). */
static uint32_t slot_of(kstate *s, uint64_t key) {
    SIM_ASSERT(key != UINT64_MAX);
    uint32_t mask = s->capacity - 1;
    for (uint32_t i = home(s, key);; i = (i + 1) & mask) {
        if (s->slots[i].key == key + 1) return i;
        if (s->slots[i].key == 0) {
            take_slot(s, i, key);
            return i;
        }
    }
}

/* The copy-on-write check, before slot i changes: every active snapshot
 * that still sees the slot's current content (written at or before its
 * version) keeps a copy. A slot empty before the write needs none: its
 * key comes after every snapshot's entries in order[]. Cold: runs only
 * while a snapshot is active. */
static void cow_slot(kstate *s, uint32_t i, uint64_t key_before) {
    if (key_before == 0) return;
    uint32_t v = s->vers[i];
    for (uint32_t n = 0; n < s->snaps_max; n++) {
        ksnap *sn = &s->snaps[n];
        if (!sn->active || v > sn->version) continue;
        SIM_ASSERT(sn->shadows_count < s->keys_max);   /* one per key at most */
        sn->shadow_of_slot[i] = sn->shadows_count;
        sn->shadows[sn->shadows_count++] = (kshadow){
            .slot = i, .ver = v, .key = key_before, .agg = s->slots[i].agg,
        };
    }
}

kagg *kstate_upsert(kstate *s, uint64_t key) {
    if (s->vers == NULL) return &s->slots[slot_of(s, key)].agg;     /* plain map */
    SIM_ASSERT(key != UINT64_MAX);
    /* Find without inserting first: the shadow of a new key's slot must say
     * "was empty", so the COW check needs the slot's content before. */
    uint32_t mask = s->capacity - 1;
    uint32_t i = home(s, key);
    while (s->slots[i].key != key + 1 && s->slots[i].key != 0) i = (i + 1) & mask;
    if (s->snaps_active != 0) cow_slot(s, i, s->slots[i].key);
    /* The deliberate bug FLINK-26968: with nothing to copy for, an update
     * of a present key skips the version stamp, so the next incremental
     * snapshot (the keys written since its base) leaves it out. */
    if (s->snaps_active == 0 && (s->bugs & KSTATE_BUG_NO_BUMP) && s->slots[i].key != 0) return &s->slots[i].agg;
    if (s->slots[i].key == 0) take_slot(s, i, key);
    s->vers[i] = s->version;
    return &s->slots[i].agg;
}

const kagg *kstate_find(const kstate *s, uint64_t key) {
    uint32_t mask = s->capacity - 1;
    for (uint32_t i = home(s, key);; i = (i + 1) & mask) {
        if (s->slots[i].key == key + 1) return &s->slots[i].agg;
        if (s->slots[i].key == 0) return NULL;
    }
}

void kstate_fold(kstate *s, const model_rec *r) {
    kagg *a = kstate_upsert(s, r->key);
    a->count++;
    a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)r->value);   /* wraps, never UB */
    a->fingerprint += kstate_record_mark(r->id);
}

void kstate_copy(kstate *dst, const kstate *src) {
    SIM_ASSERT(dst != src);
    kstate_clear(dst);
    /* Same capacity: same home slots, and src's layout is a valid probe
     * layout of its keys, so the entries go where they are in src. */
    bool same = dst->capacity == src->capacity;
    for (uint32_t n = 0; n < src->count; n++) {
        uint32_t i = src->order[n];
        uint64_t key = src->slots[i].key - 1;
        uint32_t j = i;
        if (same) take_slot(dst, i, key);
        else j = slot_of(dst, key);
        dst->slots[j].agg = src->slots[i].agg;              /* restored entries stay at version 0 */
    }
    SIM_ASSERT(dst->count == src->count);
}

bool kstate_next(const kstate *s, uint32_t *pos, uint64_t *key, kagg *agg) {
    if (*pos >= s->count) {
        *pos = s->count;
        return false;
    }
    uint32_t i = s->order[(*pos)++];
    *key = s->slots[i].key - 1;
    *agg = s->slots[i].agg;
    return true;
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
        static const kagg zero = { 0 };
        if (agg_equal(&agg, other != NULL ? other : &zero)) continue;   /* a zero aggregate is absent */
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

/* Copy-on-write snapshots. */

uint32_t kstate_snap_begin(kstate *s) {
    SIM_ASSERT(s->vers != NULL);                       /* a versioned map */
    SIM_ASSERT(s->snaps_active < s->snaps_max);
    SIM_ASSERT(s->version < UINT32_MAX);               /* never wraps */
    uint32_t n = 0;
    while (s->snaps[n].active) n++;                    /* <= KSTATE_SNAPS_MAX steps */
    SIM_ASSERT(n < s->snaps_max);
    ksnap *sn = &s->snaps[n];
    sn->active = true;
    sn->version = s->version;
    sn->count = s->count;
    sn->shadows_count = 0;
    /* From now on every write stamps a version above sn->version, which is
     * what marks a slot as shadowed for sn: no slot needs touching here. */
    s->version++;
    s->snaps_active++;
    return n;
}

static const ksnap *snap_get(const kstate *s, uint32_t snap) {
    SIM_ASSERT(snap < s->snaps_max);
    SIM_ASSERT(s->snaps[snap].active);
    return &s->snaps[snap];
}

void kstate_snap_end(kstate *s, uint32_t snap) {
    (void)snap_get(s, snap);
    /* shadow_of_slot needs no clearing: an entry is only read where vers
     * is above the version of the snapshot that wrote it. */
    s->snaps[snap].active = false;
    s->snaps[snap].shadows_count = 0;
    s->snaps_active--;
}

uint32_t kstate_snaps_active(const kstate *s) { return s->snaps_active; }

uint32_t kstate_snap_version(const kstate *s, uint32_t snap) { return snap_get(s, snap)->version; }

uint32_t kstate_version(const kstate *s) { return s->version; }

/* Entry pos of the snapshot: its slot, key, aggregate and version then. */
static uint32_t snap_entry(const kstate *s, const ksnap *sn, uint32_t pos, uint64_t *key, kagg *agg, uint32_t *ver) {
    uint32_t i = s->order[pos];
    if (s->vers[i] > sn->version) {               /* written since: the shadow */
        SIM_ASSERT(sn->shadow_of_slot[i] < sn->shadows_count);
        const kshadow *sh = &sn->shadows[sn->shadow_of_slot[i]];
        SIM_ASSERT(sh->slot == i && sh->key != 0);   /* present at the begin */
        *key = sh->key - 1;
        *agg = sh->agg;
        *ver = sh->ver;
    } else {                                      /* unchanged: the live slot */
        *key = s->slots[i].key - 1;
        *agg = s->slots[i].agg;
        *ver = s->vers[i];
    }
    return i;
}

bool kstate_snap_next(const kstate *s, uint32_t snap, uint32_t *pos,
                      uint64_t *key, kagg *agg, uint32_t *ver) {
    const ksnap *sn = snap_get(s, snap);
    if (*pos >= sn->count) {
        *pos = sn->count;
        return false;
    }
    (void)snap_entry(s, sn, (*pos)++, key, agg, ver);
    return true;
}

void kstate_snap_copy(const kstate *s, uint32_t snap, kstate *out) {
    SIM_ASSERT(out != s);
    const ksnap *sn = snap_get(s, snap);
    kstate_clear(out);
    /* Same capacity: the snapshot's keys were a valid probe layout at its
     * begin (no deletions since), so the entries go back where they were. */
    bool same = out->capacity == s->capacity;
    for (uint32_t pos = 0; pos < sn->count; pos++) {
        uint64_t key;
        kagg agg;
        uint32_t ver;
        uint32_t i = snap_entry(s, sn, pos, &key, &agg, &ver);
        if (same) take_slot(out, i, key);
        else i = slot_of(out, key);               /* like a restore: version 0 */
        out->slots[i].agg = agg;
    }
}
