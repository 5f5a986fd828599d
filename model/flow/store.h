/* model/flow/store.h: the file table of a state backend's storage (a durable
 * HDFS/S3-like store, or the coordinator's memory): checkpoint state files
 * and a shared-state registry that counts references to them, as Flink's
 * SharedStateRegistry does for incremental checkpoints.
 *
 * Contract:
 * - Contents and bookkeeping only. How long a write or a read takes is the
 *   storage device's business (sim/dev.h); this module never looks at time.
 * - A file is a sequence of (key, kagg) entries owned by one task for one
 *   checkpoint: a full snapshot or an increment (only the keys changed since
 *   the task's previous file). Life cycle: store_create() (refcount 0,
 *   unsealed) -> store_append()... -> store_seal() -> store_ref() by every
 *   checkpoint that uses it -> store_unref() by each of them when it is
 *   dropped; the last unref deletes it. A file whose write failed before any
 *   checkpoint referred to it is deleted with store_discard(). A file is thus
 *   deleted exactly when its last reference goes, never while referenced:
 *   this is the property incremental checkpoints need, because a later
 *   checkpoint keeps using the files of earlier ones.
 * - Ids: a file id is gen << 32 | (slot + 1), never 0. A slot's generation
 *   is bumped when its file is deleted, so an id of a deleted file stays
 *   dead even after its slot is reused: store_alive() is exact, in O(1).
 *   Freed slots are reused last-freed-first (the table starts in slot
 *   order, and store_wipe() restores that order), so ids are a pure
 *   function of the sequence of calls.
 * - Memory: everything is carved from the run's arena at store_init(), none
 *   after. Entries live in chunks of STORE_CHUNK_ENTRIES; the pool has just
 *   enough chunks that any set of at most files_max files holding at most
 *   entries_max entries in all fits, whatever their sizes. So the two limits
 *   are exact and independent of fragmentation: store_create() returns 0
 *   exactly when files_max files are live, store_append() returns false
 *   exactly when entries_max entries are live, and a scenario can predict
 *   when a checkpoint is declined. The price is up to STORE_CHUNK_ENTRIES-1
 *   unused entries per file; store_arena_bytes() tells what init will take.
 * - Exhaustion is an operating condition (the caller declines the
 *   checkpoint), never an assertion. Misuse is: a reference to a dead file,
 *   an unref below zero, an append to a sealed file, a discard of a
 *   referenced file, reading a dead file's contents, restoring from an
 *   unsealed file. Each SIM_ASSERTs.
 * - Determinism: there are no pointers in ids or in any ordering; entries
 *   read back in append order; free lists are index stacks.
 */
#ifndef MODEL_STORE_H
#define MODEL_STORE_H

#include "kstate.h"

#define STORE_CHUNK_ENTRIES  64u
#define STORE_FILES_MAX      (1u << 24)
#define STORE_HEADER_BYTES   64u     /* per file, counted in store_bytes() */
#define STORE_NONE           UINT32_MAX

typedef struct store_entry {
    uint64_t key;
    kagg     agg;
} store_entry;

typedef struct store_stats {
    uint64_t files_created;
    uint64_t files_deleted;          /* by the last unref, a discard or a wipe */
    uint64_t files_live;
    uint64_t entries_live;
    uint64_t bytes_written;          /* headers and entries of every file ever created */
    uint64_t refs_live;              /* sum of the refcounts of live files */
    uint64_t chunks_free;
} store_stats;

typedef struct store_file {
    uint64_t ckpt;
    uint32_t task;
    uint32_t gen;                    /* bumped at deletion: old ids go dead */
    uint32_t refs;
    uint32_t entries;
    uint32_t head;                   /* first chunk, STORE_NONE when empty */
    uint32_t tail;                   /* chunk that takes the next append */
    uint32_t next_free;              /* free-slot stack link, when dead */
    bool     live;
    bool     full;                   /* a whole snapshot, else an increment */
    bool     sealed;
    bool     pinned;                 /* holds a reference of the user's (store_pin) */
} store_file;

typedef struct store_hold {
    uint64_t ckpt;
    uint64_t file;
} store_hold;

typedef struct store {
    store_file  *files;
    uint32_t     files_max;
    uint32_t     file_free;          /* top of the free-slot stack */
    store_entry *pool;               /* chunks_count * STORE_CHUNK_ENTRIES */
    uint32_t    *chunk_next;         /* a file's chain, or the free stack */
    uint32_t     chunks_count;
    uint32_t     chunk_free;         /* top of the free-chunk stack */
    uint64_t     entries_max;
    store_hold  *holds;              /* checkpoint directories' holds, unordered */
    uint32_t     holds_count, holds_max;
    store_stats  stats;
} store;

/* Arena bytes store_init() takes for these limits (for sizing model_bytes). */
size_t store_arena_bytes(uint32_t files_max, uint64_t entries_max, uint32_t holds_max);

/* Room for files_max live files, entries_max entries in all of them and
 * holds_max directory holds. */
void store_init(store *st, sim_run *run, uint32_t files_max, uint64_t entries_max, uint32_t holds_max);

/* A new file owned by `task` for checkpoint `ckpt`, full or an increment,
 * with refcount 0 and unsealed; 0 when files_max files are live. */
uint64_t store_create(store *st, uint32_t task, uint64_t ckpt, bool full);

/* False when entries_max entries are live (nothing is written). */
bool store_append(store *st, uint64_t file, uint64_t key, const kagg *agg);
void store_seal(store *st, uint64_t file);       /* no appends after */

/* Delete a file nobody refers to (its write failed or was abandoned). */
void store_discard(store *st, uint64_t file);

void     store_ref(store *st, uint64_t file);    /* a checkpoint refers to it */
void     store_unref(store *st, uint64_t file);  /* deleted when the count reaches 0 */
uint32_t store_refs(const store *st, uint64_t file);   /* 0 for a dead id */
/* The file is the user's from now on (a snapshot a resumed job does not
 * own, or one left behind by a job that ended): a reference nobody
 * releases, so that no unref of the job's deletes it. At most once a file. */
void     store_pin(store *st, uint64_t file);
bool     store_pinned(const store *st, uint64_t file);

/* Checkpoint directories (Flink's chk-n, in the store itself): a task's
 * snapshot for checkpoint n puts a hold on every file its handle names
 * (the new file and the shared ones of its base) in n's directory: a
 * reference, until the coordinator ends checkpoint n whatever the outcome
 * (store_dir_release: a completed checkpoint holds its own references by
 * then, an aborted one none), or the writer abandons the snapshot before
 * acknowledging it (store_dir_drop). So a file survives the crash of its
 * writer between the acknowledgement and the coordinator's decision, and
 * one whose acknowledgement was lost goes with its directory. Directory 0
 * holds finished tasks' final state until the attempt ends. At most
 * holds_max holds at once: store_dir_hold is false beyond, and for a dead
 * file (the snapshot fails, as on a full store). */
bool     store_dir_hold(store *st, uint64_t ckpt, uint64_t file);
bool     store_dir_drop(store *st, uint64_t ckpt, uint64_t file);   /* false: no such hold */
uint32_t store_dir_release(store *st, uint64_t ckpt);               /* holds it let go of */

bool     store_alive(const store *st, uint64_t file);
uint64_t store_bytes(const store *st, uint64_t file);  /* entries * 32 + the header */
uint32_t store_entries(const store *st, uint64_t file);

/* A live file's entries in append order: start with *cursor = 0; false
 * when done. Appends made during an iteration are seen by it. */
bool store_next(const store *st, uint64_t file, uint64_t *cursor, store_entry *out);

/* Rebuild a task's keyed state from a chain: files[0] a full file, then
 * increments in checkpoint order; a later entry overwrites an earlier one
 * of the same key. Returns false, leaving *out untouched, when a file of
 * the chain is dead: a restore that reads a deleted file is a protocol
 * violation the caller reports. Otherwise *out holds exactly the chain's
 * keys. The chain may mix owners (the store does not check tasks). */
bool store_restore(const store *st, const uint64_t *files, uint32_t count, kstate *out);
/* A rescaled task's restore of one old subtask's chain: as store_restore,
 * but out is not cleared and takes only the keys it owns (kstate_owns:
 * its key groups), so several chains merge into it. */
bool store_restore_owned(const store *st, const uint64_t *files, uint32_t count, kstate *out);

/* Drop every file, referenced or not, and kill every id (a memory backend
 * whose coordinator crashed). Slots and chunks return to their initial
 * order; cumulative counters keep counting. */
void store_wipe(store *st);

store_stats store_get_stats(const store *st);

#endif
