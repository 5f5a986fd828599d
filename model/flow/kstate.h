/* model/flow/kstate.h: keyed state of a stateful operator: per key a count, a
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
 *   table carved from the run's arena at kstate_init(); it never grows. It
 *   is sized for keys_max keys (a task's map for the keys the hash
 *   partitioner sends it, fixed at set-up): inserting one more asserts.
 * - Occupied slots are also listed densely in insertion order (order[]),
 *   so iteration, clearing, copying and snapshot reads cost the live
 *   entries, never the table's capacity. There are no deletions, so a
 *   position in order[] never changes until kstate_clear().
 * - Iteration (kstate_next) goes by insertion order, which depends only on
 *   the keys inserted and their order, never on addresses.
 * - An owner (kstate_own) restricts the keys a map takes to those the hash
 *   partitioner routes to one subtask: a key routed elsewhere asserts when
 *   it would be inserted (a routing bug, or a restore of another task's
 *   state, never an operating condition).
 * - kstate_copy() is the synchronous snapshot (the memory backend's copy).
 *
 * Copy-on-write snapshots (the heap backend's CopyOnWriteStateMap):
 * - A map made with kstate_init_versioned(.., snaps_max >= 1) keeps a state
 *   version (s->version, starting at 1) and per slot the version of its
 *   last write (vers[i]; 0 = never written since init/clear/restore).
 * - kstate_snap_begin() is the synchronous part of a checkpoint: it takes a
 *   free snapshot record, gives it version V = s->version and bumps
 *   s->version. It touches no slot: O(snaps_max), independent of the keys.
 * - Every write to a slot (kstate_upsert, hence kstate_fold) first does the
 *   copy-on-write check: for every active snapshot with vers[i] <= its
 *   version, the slot's content and version as they were before the write
 *   are saved as a shadow of that snapshot (a slot that was empty needs
 *   none: the snapshot never reads a key inserted after its begin). Then vers[i] = s->version, which is above every active
 *   snapshot's version, so a slot is shadowed at most once per snapshot and
 *   later writes never leak into it. The cost of a snapshot is thus paid by
 *   the first write to each slot after it, never by kstate_snap_begin.
 * - kstate_snap_next()/kstate_snap_copy() read a snapshot (the asynchronous
 *   part) while the live map keeps changing: they walk the first `count`
 *   positions of order[] (the keys present at kstate_snap_begin; keys
 *   inserted later come after them), and take slot i from the snapshot's
 *   shadow when vers[i] > V (written since), otherwise from the live table
 *   (unchanged since). So a snapshot iterates in the order kstate_next
 *   would have given at kstate_snap_begin, in O(1) per entry.
 * - kstate_snap_next also gives each entry's version at snapshot time: for
 *   snapshots A before B of one history, the entries of B with ver >
 *   A.version are exactly the keys written between A's and B's begin (the
 *   delta of an incremental checkpoint based on A).
 * - The kagg pointer from kstate_upsert is for the one write that follows;
 *   holding it across kstate_snap_begin would write past the COW check.
 * - Versions are per map and start over at kstate_clear() and at a
 *   kstate_copy() into the map (a restore): all entries then count as
 *   version 0 and s->version is 1 again. Versions are therefore not
 *   comparable across maps or across a clear/restore; both assert that no
 *   snapshot is active.
 * - A plain map (kstate_init, or snaps_max 0) has vers == NULL and carves
 *   nothing more than before; its write path pays one branch on that pointer
 *   (a versioned map with no active snapshot pays a second branch, on
 *   snaps_active, and a 4-byte version store). kstate_snap_begin asserts on
 *   a plain map.
 * - Memory, all carved at init (nothing is allocated later), for capacity
 *   C (the power of two above keys_max * 4/3) and K = keys_max: a plain map
 *   takes C * sizeof(kslot) + K * 4 = 32 bytes per slot and 4 per key
 *   (order); a versioned one adds C * 4 (vers) plus, per snapshot record,
 *   K * sizeof(kshadow) (a shadow per key at most) and C * 4
 *   (shadow_of_slot, the slot -> shadow index that makes reading a
 *   snapshot O(1) per entry). kstate_bytes() is the total, what sizing
 *   code must use.
 */
#ifndef MODEL_KSTATE_H
#define MODEL_KSTATE_H

#include "../../sim/run.h"
#include "broker.h"
#include "job.h"

#define KSTATE_CAPACITY_MAX (1u << 24)
#define KSTATE_LOAD_NUM 3u            /* at most 3/4 full */
#define KSTATE_LOAD_DEN 4u

typedef struct kagg {
    uint64_t count;
    int64_t  sum;
    uint64_t fingerprint;             /* sum of mix(record id) */
} kagg;

#define KSTATE_SNAPS_MAX 9u            /* snapshot records per map */

/* A slot as it was before its first write after a snapshot. */
typedef struct kshadow {
    uint32_t slot;
    uint32_t ver;                     /* the slot's version then */
    uint64_t key;                     /* as in kslot: key + 1, 0 = was empty */
    kagg     agg;
} kshadow;

typedef struct ksnap {
    bool      active;
    uint32_t  version;                /* V: the snapshot holds writes <= V */
    uint32_t  count;                  /* keys present at its begin: order[0 .. count) */
    kshadow  *shadows;                /* keys_max entries, in write order */
    uint32_t  shadows_count;          /* slots written since the begin */
    uint32_t *shadow_of_slot;         /* capacity entries: slot -> index in
                                         shadows; valid only where vers[slot]
                                         > version, so never needs clearing */
} ksnap;

/* The keys one task's map takes: those the hash partitioner routes to
 * its subtask (job_key_subtask: the key groups of its range). A join's
 * map holds key * 2 + input (tag_bits 1), and each input may come by a
 * hash edge or not; a window's map holds window << 24 | key << 2 | tag
 * (tag_bits 2, key_bits 22). */
typedef struct kstate_owner {
    uint32_t parallelism;             /* the vertex's; 0: the map takes every key */
    uint32_t max_parallelism;         /* its key groups (job_key_subtask) */
    uint32_t subtask;
    uint32_t tag_bits;                /* low bits of a map key that are a tag, not the key */
    uint32_t hashed;                  /* bit t: keys tagged t came by a hash edge (else: any key) */
    uint32_t key_bits;                /* 0, or the bits of the key above the tag (a window's map: model/flow/window.h) */
} kstate_owner;

/* A slot: the key beside its aggregate, 32 bytes on a 64-byte-aligned
 * table, so that a lookup's probe brings in the aggregate it then writes
 * (one line, where two arrays cost two misses once the map has left the
 * cache: with parallelism 32 the maps of a worker's tasks do). */
typedef struct kslot {
    uint64_t key;                     /* key + 1; 0 marks an empty slot */
    kagg     agg;
} kslot;

typedef struct kstate {
    kslot    *slots;                  /* capacity slots */
    uint32_t *order;                  /* occupied slots in insertion order: order[0 .. count) */
    uint32_t  capacity;               /* slots, a power of two */
    uint32_t  count;                  /* keys present */
    uint32_t  keys_max;               /* keys it was sized for: one more asserts */
    /* Up to here and the four below: what a write reads, one cache line. */
    uint32_t *vers;                   /* per slot: version of the last write,
                                         0 = never; NULL on a plain map */
    uint32_t  version;                /* the version the next write gets */
    uint32_t  snaps_active;           /* records in use: the fast-path test */
    uint32_t  bugs;                   /* deliberate bugs (model/bugs.c): KSTATE_BUG_* */
    uint32_t  snaps_max;              /* records carved at init */
    kstate_owner owner;               /* parallelism 0: any key */
    ksnap     snaps[KSTATE_SNAPS_MAX];
} kstate;

enum {                                /* deliberate bugs a task's map can switch on (model/bugs.c) */
    KSTATE_BUG_NO_BUMP = 1,           /* FLINK-26968: an update while no snapshot is active keeps its version */
};

/* Arena bytes a map for keys_max keys and snaps_max snapshot records
 * takes, alignment included (for sizing an arena before carving). */
uint64_t kstate_bytes(uint64_t keys_max, uint32_t snaps_max);

/* Room for keys_max keys at the load limit. A plain map: no versions, no
 * snapshots; same as kstate_init_versioned(s, run, keys_max, 0). */
void kstate_init(kstate *s, sim_run *run, uint32_t keys_max);
/* A plain map carved from an arena of the caller's (a checker's memory,
 * outside any run). */
void kstate_init_in(kstate *s, arena *a, uint32_t keys_max);
/* Also carves vers and snaps_max (<= KSTATE_SNAPS_MAX) snapshot records. */
void kstate_init_versioned(kstate *s, sim_run *run, uint32_t keys_max, uint32_t snaps_max);
/* Only keys `owner` describes may be inserted from now on (asserted). */
void kstate_own(kstate *s, const kstate_owner *owner);
/* True when the map may take key: its owner's partitioner routes it here. */
bool kstate_owns(const kstate *s, uint64_t key);
/* Empties the map and starts a new version history (asserts no snapshot
 * is active). O(keys present). */
void kstate_clear(kstate *s);

kagg       *kstate_upsert(kstate *s, uint64_t key);
const kagg *kstate_find(const kstate *s, uint64_t key);   /* NULL when absent */

/* Fold one record into its key's aggregate. */
void kstate_fold(kstate *s, const model_rec *r);

/* dst := src; dst must have room for src's keys (and own them). A
 * versioned dst must have no active snapshot and starts a new version
 * history (all entries at version 0). src may have active snapshots: its
 * live content is copied. O(keys of src and dst). */
void kstate_copy(kstate *dst, const kstate *src);

/* True when both hold the same keys with the same aggregates, an entry
 * whose aggregate is all zero counting as absent (a purged window);
 * otherwise
 * *key is a key that differs (the smallest such key, for stable reports). */
bool kstate_equal(const kstate *a, const kstate *b, uint64_t *key);

/* Iterate in insertion order: start with *pos = 0; false when done. */
bool kstate_next(const kstate *s, uint32_t *pos, uint64_t *key, kagg *agg);

/* The fingerprint term of a record (filters keep by it too). Inline: the
 * tasks and the checkers compute it for every record. */
static inline uint64_t kstate_record_mark(uint64_t record_id) {
    return rng_splitmix64(record_id ^ 0x6a09e667f3bcc909ull);
}

/* Copy-on-write snapshots (versioned maps only; see the contract above). */

/* The synchronous part: O(1), touches no slot. Asserts that a record is
 * free and that the version does not wrap. Returns the snapshot's index. */
uint32_t kstate_snap_begin(kstate *s);
/* Releases the snapshot: O(1). Later writes no longer shadow for it. */
void     kstate_snap_end(kstate *s, uint32_t snap);
uint32_t kstate_snaps_active(const kstate *s);
/* The version V of an active snapshot: it holds the writes made at
 * versions <= V (the base_version of an incremental checkpoint). */
uint32_t kstate_snap_version(const kstate *s, uint32_t snap);
/* The version the next write gets. */
uint32_t kstate_version(const kstate *s);

/* Iterate the snapshot's content as it was at kstate_snap_begin, in the
 * order kstate_next gave then: start with *pos = 0; false when done. *ver
 * is the entry's version at snapshot time (>= 1, or 0 when it was
 * restored and not written since). O(1) per entry. */
bool kstate_snap_next(const kstate *s, uint32_t snap, uint32_t *pos,
                      uint64_t *key, kagg *agg, uint32_t *ver);
/* out := the snapshot's content (out is cleared first, so a versioned out
 * must have no active snapshot; out has room for its keys; out != s). */
void kstate_snap_copy(const kstate *s, uint32_t snap, kstate *out);

#endif
