/* model/flow/store.c: a slot table of files with generations, and a pool of
 * fixed-size entry chunks linked per file, both with index free stacks. */
#include "store.h"

_Static_assert(sizeof(store_entry) == 32, "store_bytes() counts 32 bytes an entry");

/* Chunks so that any <= files_max files with <= entries_max entries in all
 * fit. A file of n >= 1 entries takes floor((n-1)/C) + 1 chunks; over k
 * non-empty files holding E entries that sums to at most
 * floor((E-k)/C) + k, which grows with k, so the worst case is
 * k = min(files_max, entries_max). */
static uint64_t chunks_for(uint32_t files_max, uint64_t entries_max) {
    uint64_t k = files_max < entries_max ? files_max : entries_max;
    return (entries_max - k) / STORE_CHUNK_ENTRIES + k;
}

size_t store_arena_bytes(uint32_t files_max, uint64_t entries_max, uint32_t holds_max) {
    uint64_t chunks = chunks_for(files_max, entries_max);
    /* Each allocation may lose up to align-1 bytes to alignment. */
    return sizeof(store_file) * (size_t)files_max + _Alignof(store_file) - 1
         + sizeof(store_hold) * (size_t)(holds_max ? holds_max : 1) + _Alignof(store_hold) - 1
         + sizeof(store_entry) * STORE_CHUNK_ENTRIES * (size_t)chunks + _Alignof(store_entry) - 1
         + sizeof(uint32_t) * (size_t)chunks + _Alignof(uint32_t) - 1;
}

/* Slots and chunks in index order, all free: the state after init. */
static void reset_tables(store *st) {
    for (uint32_t i = 0; i < st->files_max; i++) {
        st->files[i].live = false;
        st->files[i].next_free = i + 1 < st->files_max ? i + 1 : STORE_NONE;
    }
    st->file_free = 0;
    st->holds_count = 0;
    for (uint32_t c = 0; c < st->chunks_count; c++) {
        st->chunk_next[c] = c + 1 < st->chunks_count ? c + 1 : STORE_NONE;
    }
    st->chunk_free = 0;
    st->stats.files_live = 0;
    st->stats.entries_live = 0;
    st->stats.refs_live = 0;
    st->stats.chunks_free = st->chunks_count;
}

void store_init(store *st, sim_run *run, uint32_t files_max, uint64_t entries_max, uint32_t holds_max) {
    SIM_ASSERT(files_max >= 1 && files_max <= STORE_FILES_MAX);
    SIM_ASSERT(entries_max >= 1);
    uint64_t chunks = chunks_for(files_max, entries_max);
    SIM_ASSERT(chunks < STORE_NONE);
    *st = (store){ 0 };
    st->files = sim_alloc(run, sizeof(store_file) * files_max, _Alignof(store_file));
    st->files_max = files_max;
    st->chunks_count = (uint32_t)chunks;
    st->pool = sim_alloc(run, sizeof(store_entry) * STORE_CHUNK_ENTRIES * (size_t)chunks,
                         _Alignof(store_entry));
    st->chunk_next = sim_alloc(run, sizeof(uint32_t) * (size_t)chunks, _Alignof(uint32_t));
    st->entries_max = entries_max;
    st->holds = sim_alloc(run, sizeof(store_hold) * (holds_max ? holds_max : 1), _Alignof(store_hold));
    st->holds_max = holds_max;
    reset_tables(st);
}

static uint32_t id_slot(uint64_t file) { return (uint32_t)(file & UINT32_MAX) - 1; }
static uint32_t id_gen(uint64_t file) { return (uint32_t)(file >> 32); }

/* The live file an id names, or NULL. Slot 0 of the id (low word 0) wraps
 * to UINT32_MAX and fails the range check, so id 0 is never alive. */
static const store_file *find(const store *st, uint64_t file) {
    uint32_t slot = id_slot(file);
    if (slot >= st->files_max) return NULL;
    const store_file *f = &st->files[slot];
    return f->live && f->gen == id_gen(file) ? f : NULL;
}

static store_file *get(store *st, uint64_t file) {
    store_file *f = (store_file *)find(st, file);
    SIM_ASSERT(f != NULL);   /* a dead or invalid id */
    return f;
}

static const store_file *get_const(const store *st, uint64_t file) {
    const store_file *f = find(st, file);
    SIM_ASSERT(f != NULL);
    return f;
}

uint64_t store_create(store *st, uint32_t task, uint64_t ckpt, bool full) {
    if (st->file_free == STORE_NONE) return 0;
    uint32_t slot = st->file_free;
    store_file *f = &st->files[slot];
    st->file_free = f->next_free;
    uint32_t gen = f->gen;
    *f = (store_file){
        .ckpt = ckpt, .task = task, .gen = gen, .head = STORE_NONE, .tail = STORE_NONE,
        .next_free = STORE_NONE, .live = true, .full = full,
    };
    st->stats.files_created++;
    st->stats.files_live++;
    st->stats.bytes_written += STORE_HEADER_BYTES;
    return (uint64_t)gen << 32 | (uint64_t)(slot + 1);
}

bool store_append(store *st, uint64_t file, uint64_t key, const kagg *agg) {
    store_file *f = get(st, file);
    SIM_ASSERT(!f->sealed);
    if (st->stats.entries_live >= st->entries_max) return false;
    SIM_ASSERT(f->entries < UINT32_MAX);
    uint32_t off = f->entries % STORE_CHUNK_ENTRIES;
    if (off == 0) {
        /* Sizing guarantees a chunk while entries_live < entries_max. */
        uint32_t c = st->chunk_free;
        SIM_ASSERT(c != STORE_NONE);
        st->chunk_free = st->chunk_next[c];
        st->chunk_next[c] = STORE_NONE;
        st->stats.chunks_free--;
        if (f->tail == STORE_NONE) f->head = c;
        else st->chunk_next[f->tail] = c;
        f->tail = c;
    }
    st->pool[(size_t)f->tail * STORE_CHUNK_ENTRIES + off] = (store_entry){ .key = key, .agg = *agg };
    f->entries++;
    st->stats.entries_live++;
    st->stats.bytes_written += sizeof(store_entry);
    return true;
}

void store_seal(store *st, uint64_t file) {
    get(st, file)->sealed = true;
}

/* Return the chunks, kill the id (bump the generation), free the slot. */
static void delete_file(store *st, uint32_t slot) {
    store_file *f = &st->files[slot];
    uint32_t c = f->head;
    while (c != STORE_NONE) {
        uint32_t next = c == f->tail ? STORE_NONE : st->chunk_next[c];
        st->chunk_next[c] = st->chunk_free;
        st->chunk_free = c;
        st->stats.chunks_free++;
        c = next;
    }
    st->stats.entries_live -= f->entries;
    st->stats.files_live--;
    st->stats.files_deleted++;
    SIM_ASSERT(f->gen < UINT32_MAX);   /* 2^32 files in one slot: ids would repeat */
    f->gen++;
    f->live = false;
    f->next_free = st->file_free;
    st->file_free = slot;
}

void store_discard(store *st, uint64_t file) {
    store_file *f = get(st, file);
    SIM_ASSERT(f->refs == 0);   /* a checkpoint refers to it: unref instead */
    delete_file(st, id_slot(file));
}

void store_ref(store *st, uint64_t file) {
    store_file *f = get(st, file);
    SIM_ASSERT(f->refs < UINT32_MAX);
    f->refs++;
    st->stats.refs_live++;
}

void store_unref(store *st, uint64_t file) {
    store_file *f = get(st, file);
    SIM_ASSERT(f->refs > 0);
    f->refs--;
    st->stats.refs_live--;
    if (f->refs == 0) delete_file(st, id_slot(file));
}

void store_pin(store *st, uint64_t file) {
    store_file *f = get(st, file);
    SIM_ASSERT(f->sealed && !f->pinned);
    f->pinned = true;
    f->refs++;
    st->stats.refs_live++;
}

bool store_pinned(const store *st, uint64_t file) {
    const store_file *f = find(st, file);
    return f != NULL && f->pinned;
}

uint32_t store_refs(const store *st, uint64_t file) {
    const store_file *f = find(st, file);
    return f != NULL ? f->refs : 0;
}

bool store_alive(const store *st, uint64_t file) {
    return find(st, file) != NULL;
}

uint64_t store_bytes(const store *st, uint64_t file) {
    return (uint64_t)get_const(st, file)->entries * sizeof(store_entry) + STORE_HEADER_BYTES;
}

uint32_t store_entries(const store *st, uint64_t file) {
    return get_const(st, file)->entries;
}

/* Cursor: low word = position of the next entry; high word = 1 + the chunk
 * of the entry before it (0 at the start), so each step is O(1). */
bool store_next(const store *st, uint64_t file, uint64_t *cursor, store_entry *out) {
    const store_file *f = get_const(st, file);
    uint32_t pos = (uint32_t)(*cursor & UINT32_MAX);
    uint32_t prev = (uint32_t)(*cursor >> 32);
    if (pos >= f->entries) return false;
    uint32_t c;
    if (pos == 0) c = f->head;
    else if (pos % STORE_CHUNK_ENTRIES == 0) c = st->chunk_next[prev - 1];
    else c = prev - 1;
    SIM_ASSERT(c < st->chunks_count);
    *out = st->pool[(size_t)c * STORE_CHUNK_ENTRIES + pos % STORE_CHUNK_ENTRIES];
    *cursor = (uint64_t)(c + 1) << 32 | (uint64_t)(pos + 1);
    return true;
}

/* Check the whole chain before touching out, so a failed restore leaves
 * it as it was. */
static bool chain_there(const store *st, const uint64_t *files, uint32_t count) {
    SIM_ASSERT(count >= 1);
    for (uint32_t i = 0; i < count; i++) {
        const store_file *f = find(st, files[i]);
        if (f == NULL) return false;
        SIM_ASSERT(f->sealed);                 /* reading a file still being written */
        SIM_ASSERT(f->full == (i == 0));       /* a full file, then increments */
        if (i > 0) SIM_ASSERT(f->ckpt >= find(st, files[i - 1])->ckpt);
    }
    return true;
}

bool store_restore_owned(const store *st, const uint64_t *files, uint32_t count, kstate *out) {
    if (!chain_there(st, files, count)) return false;
    for (uint32_t i = 0; i < count; i++) {     /* a later file's entry replaces an earlier one's */
        uint64_t cursor = 0;
        store_entry e;
        while (store_next(st, files[i], &cursor, &e)) {
            if (kstate_owns(out, e.key)) *kstate_upsert(out, e.key) = e.agg;
        }
    }
    return true;
}

bool store_restore(const store *st, const uint64_t *files, uint32_t count, kstate *out) {
    if (!chain_there(st, files, count)) return false;
    kstate_clear(out);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t cursor = 0;
        store_entry e;
        while (store_next(st, files[i], &cursor, &e)) *kstate_upsert(out, e.key) = e.agg;
    }
    return true;
}

bool store_dir_hold(store *st, uint64_t ckpt, uint64_t file) {
    if (!store_alive(st, file) || st->holds_count == st->holds_max) return false;
    SIM_ASSERT(get(st, file)->sealed);
    st->holds[st->holds_count++] = (store_hold){ .ckpt = ckpt, .file = file };
    store_ref(st, file);
    return true;
}

/* Hold i goes (the last one takes its place: the table is unordered, and
 * the order of unrefs is a function of the calls, so ids stay exact). */
static void drop_hold(store *st, uint32_t i) {
    store_hold h = st->holds[i];
    st->holds[i] = st->holds[--st->holds_count];
    if (store_alive(st, h.file)) store_unref(st, h.file);   /* a deliberate bug may have deleted it */
}

bool store_dir_drop(store *st, uint64_t ckpt, uint64_t file) {
    for (uint32_t i = 0; i < st->holds_count; i++) {
        if (st->holds[i].ckpt != ckpt || st->holds[i].file != file) continue;
        drop_hold(st, i);
        return true;
    }
    return false;
}

uint32_t store_dir_release(store *st, uint64_t ckpt) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < st->holds_count;) {
        if (st->holds[i].ckpt != ckpt) {
            i++;
            continue;
        }
        drop_hold(st, i);
        n++;
    }
    return n;
}

void store_wipe(store *st) {
    for (uint32_t i = 0; i < st->files_max; i++) {
        store_file *f = &st->files[i];
        if (!f->live) continue;
        SIM_ASSERT(f->gen < UINT32_MAX);
        f->gen++;
        st->stats.files_deleted++;
    }
    reset_tables(st);
}

store_stats store_get_stats(const store *st) {
    return st->stats;
}
