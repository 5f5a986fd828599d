/* model/tm/clog.c: the changelog state backend (FLIP-158; production-ready
 * in Flink 1.16, `state.changelog.enabled`), as ChangelogKeyedStateBackend
 * and FsStateChangelogWriter run it (flink-statebackend-changelog,
 * flink-dstl-dfs), over the task's keyed state (model/flow/kstate.h).
 *
 * - A change goes to the log as it happens; the log's sequence numbers are
 *   the map's versions: a write gets the version current then, and each
 *   snapshot begin closes one (FsStateChangelogWriter.nextSequenceNumber
 *   closes the batch of changes appended since the last).
 * - A checkpoint's synchronous part closes a batch at version V and asks
 *   for the log from the last materialization's boundary
 *   (persist(lastMaterializedTo)); only what was not uploaded yet is
 *   written: the segment (last_to, V], the keys written in that range with
 *   their values as of V. The checkpoint is the materialized part plus the
 *   segments from its boundary up to V, in order, so it completes as soon
 *   as that tail is durable. A segment whose checkpoint was dropped before
 *   its upload, or whose file is gone, is written again as part of the
 *   next (the writer keeps what it did not upload).
 * - An upload that failed fails every later persist until a
 *   materialization passes it (ensureCanPersist: "The upload for X has
 *   already failed previously").
 * - Materialization, every `materialize` interval (the first after the
 *   interval plus murmurHash(subtask) % interval, PeriodicMaterializationManager), takes
 *   a snapshot of the whole map at version M if anything was written since
 *   the last boundary (upTo = nextSequenceNumber(), exclusive: writes <= M
 *   are in it), writes it in the background, and becomes the materialized
 *   part with boundary M; segments wholly below M are truncated. More than
 *   3 consecutive failures (state.changelog.max-failures-allowed) fail the
 *   task.
 * - A restore applies the materialized part, then the segments in order;
 *   the restored handle is the materialized part of the new attempt, whose
 *   log starts after it.
 *
 * Bounds (absim's, not Flink's: its log has none): CLOG_SEGS_MAX segments
 * are kept, and a checkpoint that would need more uploads everything since
 * the boundary as one segment; a restored chain longer than half of
 * SNAP_CHAIN_MAX (restores without a materialization between) is
 * materialized at once. A materialization's file is the task's to keep
 * until the one after the next replaces it, or its attempt ends. */
#include "tm.h"

#include <string.h>

static void arm(tm_side *tm, rt_task *t, sim_time_ns delay_ns) {
    rt_clog *l = t->clog;
    if (l->mat_timer != 0) sim_timer_cancel(tm->w->run, l->mat_timer);
    l->mat_timer = task_timer(tm, t, delay_ns, TIMER_MATERIALIZE);
}

/* The first one an interval plus a hash of the subtask modulo the interval
 * after the start, as PeriodicMaterializationManager.start schedules it
 * (periodicMaterializeDelay + initialDelay, "to avoid thundering herd"). */
void clog_start(tm_side *tm, rt_task *t) {
    if (t->clog == NULL) return;
    sim_time_ns every = tm->w->cfg.state.materialize_ns;
    uint64_t h = ((uint64_t)t->jt->vertex << 32 | t->jt->subtask) * 0x9e3779b97f4a7c15ull;
    arm(tm, t, every + (sim_time_ns)((h >> 17) % every));
}

static void note(tm_side *tm, const rt_task *t, uint64_t id, uint32_t entries, bool ok) {
    if (!world_observed(tm->w)) return;
    pipe_event e = { .kind = PIPE_EV_MATERIALIZED, .task = t->id, .ckpt = id, .count = entries, .ok = ok,
                     .chan = PIPE_NO_CHAN };
    tm_note_ev(tm, t, &e);
}

void clog_trigger(tm_side *tm, rt_task *t, rt_snap *sn) {
    rt_clog *l = t->clog;
    uint32_t v = kstate_snap_version(&t->state, sn->ksnap);
    SIM_ASSERT(v >= l->last_to);                  /* equal only past a boundary the deliberate bug put one too far */
    if (l->failed_to > l->mat.version) {          /* ensureCanPersist: an earlier upload failed */
        REACHED(tm->w, CHANGELOG_FAILED_UPLOAD);
        sn->failed = true;
    }
    sn->chain = l->mat;                           /* the materialized part it builds on: the one current now */
    sn->seg_from = l->last_to;
    if (l->segs_count == CLOG_SEGS_MAX) {         /* absim's bound: one segment from the boundary */
        REACHED(tm->w, CHANGELOG_SEGMENTS_FULL);
        sn->seg_from = l->mat.version;
        l->segs_count = 0;
    }
    l->segs[l->segs_count++] = (rt_seg){ .from = sn->seg_from, .to = v, .file = 0 };
    l->last_to = v;
}

static rt_seg *seg_of(rt_clog *l, uint32_t to) {
    for (uint32_t i = 0; i < l->segs_count; i++) {
        if (l->segs[i].to == to) return &l->segs[i];
    }
    return NULL;
}

/* The segments from c's boundary to `upto` that are uploaded and alive,
 * in order, appended to c; returns where they end (the boundary if none). */
static uint32_t path(const tm_side *tm, const rt_clog *l, uint32_t upto, rt_chain *c) {
    uint32_t at = c->version;
    for (bool more = true; more && at < upto;) {
        more = false;
        for (uint32_t i = 0; i < l->segs_count; i++) {
            const rt_seg *g = &l->segs[i];
            if (g->from > at || g->to <= at || g->to >= upto || g->file == 0 || g->full != (c->count == 0)) continue;
            if (!store_alive(&tm->w->files, g->file) || c->count == SNAP_CHAIN_MAX - 1) continue;
            c->files[c->count++] = g->file;
            at = g->to;
            more = true;
            break;
        }
    }
    return at;
}

static uint32_t from_of(const tm_side *tm, const rt_task *t, const rt_snap *sn) {
    rt_chain c = sn->chain;
    uint32_t v = kstate_snap_version(&t->state, sn->ksnap);
    uint32_t at = path(tm, t->clog, v, &c);
    return at < sn->seg_from ? at : sn->seg_from;   /* what the writer has not uploaded, or lost since */
}

uint64_t clog_entries(const tm_side *tm, const rt_task *t, const rt_snap *sn) {
    uint32_t from = from_of(tm, t, sn), slot = 0, ver;
    uint64_t key, n = 0;
    kagg agg;
    while (kstate_snap_next(&t->state, sn->ksnap, &slot, &key, &agg, &ver)) n += ver > from;
    return n;
}

/* The upload of sn's segment, and its chain: the materialized part, the
 * segments up to it, it. Returns the new file, 0 when the store is full. */
uint64_t clog_upload(tm_side *tm, rt_task *t, const rt_snap *sn, rt_chain *c) {
    rt_clog *l = t->clog;
    uint32_t v = kstate_snap_version(&t->state, sn->ksnap);
    *c = sn->chain;                               /* the materialized part as at its trigger */
    c->ckpt = sn->ckpt;
    uint32_t at = path(tm, l, v, c), from = sn->seg_from;
    if (at < from) {                              /* a segment before it is gone: upload again from there */
        REACHED(tm->w, CHANGELOG_REUPLOAD);
        from = at;
    }
    if (c->count >= SNAP_CHAIN_MAX - 1) return 0; /* restores without a materialization between: too long */
    uint64_t f = store_create(&tm->w->files, t->id, sn->ckpt, c->count == 0);
    if (f == 0) return 0;
    uint32_t slot = 0, ver;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&t->state, sn->ksnap, &slot, &key, &agg, &ver)) {
        if (ver <= from) continue;
        if (!store_append(&tm->w->files, f, key, &agg)) {
            store_discard(&tm->w->files, f);
            return 0;
        }
    }
    store_seal(&tm->w->files, f);
    c->files[c->count++] = f;
    c->version = v;
    rt_seg *g = seg_of(l, v);
    if (g != NULL) *g = (rt_seg){ .from = from, .to = v, .file = f, .full = c->count == 1 };
    if (c->count > sn->chain.count + 1) REACHED(tm->w, CHANGELOG_SHARED_SEGMENT);
    return f;
}

/* The failed upload's newest change: persists from a boundary below it
 * fail until a materialization passes it. A range with no change uploads
 * nothing in Flink (its sequence numbers move only with appends), so it
 * cannot fail. */
void clog_upload_failed(rt_task *t, const rt_snap *sn) {
    uint32_t slot = 0, ver, newest = 0;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&t->state, sn->ksnap, &slot, &key, &agg, &ver)) {
        if (ver > sn->seg_from && ver > newest) newest = ver;
    }
    if (newest > t->clog->failed_to) t->clog->failed_to = newest;
}

/* Anything written since the boundary: a key of the snapshot newer. */
static bool changed_since(const rt_task *t, uint32_t snap, uint32_t boundary) {
    uint32_t slot = 0, ver;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&t->state, snap, &slot, &key, &agg, &ver)) {
        if (ver > boundary) return true;
    }
    return false;
}

/* initMaterialization: a snapshot of the whole map, written in the
 * background, unless nothing changed since the boundary (skipped) or one
 * is running (the next comes an interval after it ends). */
void clog_materialize(tm_side *tm, rt_task *t) {
    rt_clog *l = t->clog;
    l->mat_timer = 0;
    if (l->mat_snap != UINT32_MAX) return;
    if ((t->life != LIFE_RUNNING && t->life != LIFE_ENDING) || kstate_snaps_active(&t->state) >= t->state.snaps_max) {
        arm(tm, t, tm->w->cfg.state.materialize_ns);
        return;
    }
    uint32_t snap = kstate_snap_begin(&t->state);
    /* The deliberate bug FLINK-25987 (its duplicate FLINK-25997): the
     * boundary is the last appended number + 1, wrong when nothing was
     * appended since: a materialization nothing changed for is taken, and
     * its boundary is one past it. */
    bool idle = !changed_since(t, snap, l->mat.version) && !l->mat_forced;
    l->mat_forced = false;
    if (idle && tm->w->cfg.bug != PIPE_BUG_CHANGELOG_BOUNDARY) {
        kstate_snap_end(&t->state, snap);
        REACHED(tm->w, CHANGELOG_NOTHING_TO_MATERIALIZE);
        arm(tm, t, tm->w->cfg.state.materialize_ns);
        return;
    }
    l->mat_past = idle;                           /* only with the bug */
    l->mat_snap = snap;
    l->mat_id++;
    uint64_t bytes = 64 + (uint64_t)t->state.count * sizeof(store_entry);
    dev_write(tm->w->run, tm->w->store_dev, t->actor, bytes, task_io_tag(t, l->mat_id << 2 | IO_MATERIALIZE));
}

static uint64_t write_full(tm_side *tm, rt_task *t, uint32_t snap) {
    uint64_t f = store_create(&tm->w->files, t->id, 0, true);
    if (f == 0) return 0;
    uint32_t slot = 0, ver;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&t->state, snap, &slot, &key, &agg, &ver)) {
        if (!store_append(&tm->w->files, f, key, &agg)) {
            store_discard(&tm->w->files, f);
            return 0;
        }
    }
    store_seal(&tm->w->files, f);
    return f;
}

/* Truncation: segments wholly at or below the boundary are no longer
 * asked for (ChangelogTruncateHelper: their checkpoints hold their files). */
static void truncate_to(rt_clog *l, uint32_t boundary) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < l->segs_count; i++) {
        if (l->segs[i].to > boundary) l->segs[k++] = l->segs[i];
    }
    l->segs_count = k;
    if (l->last_to < boundary) l->last_to = boundary;
}

void clog_materialized(tm_side *tm, rt_task *t, uint64_t id, bool ok) {
    rt_clog *l = t->clog;
    if (l == NULL || id != l->mat_id || l->mat_snap == UINT32_MAX) return;   /* an attempt's before */
    uint32_t snap = l->mat_snap, m = kstate_snap_version(&t->state, snap);
    uint64_t f = ok ? write_full(tm, t, snap) : 0;
    kstate_snap_end(&t->state, snap);
    l->mat_snap = UINT32_MAX;
    note(tm, t, id, t->state.count, f != 0);
    if (f == 0) {                                 /* PeriodicMaterializationManager: retry, or fail the task */
        if (++l->mat_failures > 3) {
            task_fail(tm, t);
            return;
        }
        arm(tm, t, tm->w->cfg.state.materialize_ns);
        return;
    }
    l->mat_failures = 0;
    /* The task's until the one after the next replaces it: a snapshot
     * begun before this one completed builds on the one before. */
    store_ref(&tm->w->files, f);
    if (l->mat_prev != 0 && store_alive(&tm->w->files, l->mat_prev)) store_unref(&tm->w->files, l->mat_prev);
    l->mat_prev = l->mat_held;
    l->mat_held = f;
    if (l->mat_past) m++;                         /* the deliberate bug: one past what it holds */
    l->mat = (rt_chain){ .ckpt = 0, .version = m, .count = 1, .files = { f } };
    REACHED(tm->w, CHANGELOG_MATERIALIZED);
    tm->w->stats.materializations++;
    truncate_to(l, m);
    arm(tm, t, tm->w->cfg.state.materialize_ns);
}

void clog_restored(tm_side *tm, rt_task *t, const rt_chain *c) {
    rt_clog *l = t->clog;
    clog_clear(tm, t);
    l->mat = *c;
    l->mat.version = t->base.version;             /* restored entries are that version: the log starts after */
    l->last_to = l->mat.version;
    if (c->count > SNAP_CHAIN_MAX / 2) {          /* absim's bound: restores without a materialization between */
        REACHED(tm->w, CHANGELOG_LONG_RESTORE);
        l->mat_forced = true;
        arm(tm, t, 0);
        return;
    }
    clog_start(tm, t);
}

void clog_clear(tm_side *tm, rt_task *t) {
    rt_clog *l = t->clog;
    if (l == NULL) return;
    if (l->mat_snap != UINT32_MAX) kstate_snap_end(&t->state, l->mat_snap);
    if (l->mat_held != 0 && store_alive(&tm->w->files, l->mat_held)) store_unref(&tm->w->files, l->mat_held);
    if (l->mat_prev != 0 && store_alive(&tm->w->files, l->mat_prev)) store_unref(&tm->w->files, l->mat_prev);
    if (l->mat_timer != 0) sim_timer_cancel(tm->w->run, l->mat_timer);
    memset(l, 0, sizeof *l);
    l->mat_snap = UINT32_MAX;
}
