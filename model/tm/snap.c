/* model/tm/snap.c: a task's side of a checkpoint, after the barrier reached
 * it (README.md P2, P5, P6, P7).
 *
 *   trigger n:  forward barrier n (in-band; or, unaligned, as a priority
 *               message ahead of the queued output, which is persisted as
 *               channel state together with the queued input before the
 *               barrier), then the synchronous part: a source records its
 *               offsets, a two-phase-commit sink pre-commits, a stateful
 *               task marks a copy-on-write version of its keyed state.
 *               The task waits state.sync_ns for it.
 *   sync done:  the asynchronous part writes the marked version to the
 *               backend's device (full, or only the keys changed since the
 *               last confirmed checkpoint) while the task goes on
 *               processing; with state.async off the task waits for the
 *               write too (the ABS paper's synchronous baseline).
 *   acknowledge once the writes finished and, unaligned, every input
 *               delivered its barrier and the channel state was written.
 *               A failed write declines the checkpoint.
 *
 * Files go to the backend's store (model/flow/store.h) when their write
 * completes; the pending checkpoint's slot holds a reference to every
 * file of the task's chain, so shared files of earlier checkpoints stay
 * alive as long as a checkpoint refers to them. */
#include "tm.h"

#include <string.h>

#define STATE_ENTRY_BYTES ((uint64_t)sizeof(store_entry))
#define CS_RECORD_BYTES   CSFILE_RECORD_BYTES


static rt_snap *snap_of(rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->snaps[i].ckpt == ckpt && ckpt != 0) {
            SIM_ASSERT(ckpt <= t->last_seen_ckpt);   /* only a checkpoint it triggered has a snapshot */
            return &t->snaps[i];
        }
    }
    return NULL;
}

static void snap_free(rt_task *t, rt_snap *sn) {
    SIM_ASSERT(sn >= t->snaps && sn < t->snaps + PIPE_CONCURRENT_MAX + 1 && sn->ckpt != 0);
    store *files = &t->owner->w->files;
    if (sn->cs_file != 0 && !sn->cs_sealed && store_alive(files, sn->cs_file)) store_discard(files, sn->cs_file);   /* its write never ended */
    if (t->stateful && sn->ksnap != UINT32_MAX) kstate_snap_end(&t->state, sn->ksnap);
    if (sn->syncing) {
        SIM_ASSERT(t->syncing > 0);
        t->syncing--;
    }
    memset(sn, 0, sizeof *sn);
    sn->ksnap = UINT32_MAX;
    SIM_ASSERT(sn->ckpt == 0 && !sn->syncing && sn->io_pending == 0);
}

/* The held file of checkpoint ckpt (or a free entry with ckpt 0). */
static rt_held *held_of(rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->held_cs[i].ckpt == ckpt) return &t->held_cs[i];
    }
    return NULL;
}

/* The task lets go of its hold on a file of checkpoint h->ckpt's
 * directory (the coordinator may have released it already). */
static void release_held(tm_side *tm, rt_held *h) {
    (void)store_dir_drop(&tm->w->files, h->ckpt, h->file);
    *h = (rt_held){ .ckpt = 0 };
}

/* The tables of written, unconfirmed snapshots (recent, held_cs) empty
 * as notices come: a completion takes every older entry with it, as
 * Flink's RocksIncrementalSnapshotStrategy.notifyCheckpointComplete
 * clears its materializedSstFiles below the completed id (an abort takes
 * its own). Flink's map has no bound; these hold PIPE_CONCURRENT_MAX + 1
 * entries, and only notices lost or late for that many checkpoints fill
 * them. The oldest entry is then forgotten: its holds stay in its
 * directory, which the coordinator releases when it ends that checkpoint
 * (it has ended it already unless it lost its slots to a failover, when
 * the directory's holds are left behind, as Flink leaves the files of a
 * pending checkpoint after a JobManager failover), and it can no longer
 * be the base of an increment: the next snapshot may share less. */
static void note_forgotten(tm_side *tm) {
    REACHED(tm->w, NOTICE_TABLE_FULL);
    tm->w->stats.snapshots_forgotten++;
}

static uint32_t recent_entry(tm_side *tm, rt_task *t) {
    uint32_t free = PIPE_CONCURRENT_MAX + 1, oldest = 0;
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->recent[i].ckpt == 0 && free > PIPE_CONCURRENT_MAX) free = i;
        if (t->recent[i].ckpt != 0 && t->recent[i].ckpt < t->recent[oldest].ckpt) oldest = i;
    }
    if (free <= PIPE_CONCURRENT_MAX) return free;
    note_forgotten(tm);
    memset(&t->recent[oldest], 0, sizeof t->recent[oldest]);
    return oldest;
}

static rt_held *forget_oldest_held(tm_side *tm, rt_task *t) {
    rt_held *oldest = &t->held_cs[0];
    for (uint32_t i = 1; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->held_cs[i].ckpt < oldest->ckpt) oldest = &t->held_cs[i];
    }
    SIM_ASSERT(oldest->ckpt != 0);                /* called on a full table only */
    note_forgotten(tm);
    *oldest = (rt_held){ .ckpt = 0 };
    return oldest;
}

static uint32_t device_of(const tm_side *tm) {
    return tm->w->cfg.state.backend == PIPE_BACKEND_DURABLE ? tm->w->store_dev : tm->w->memory_dev;
}

/* Snapshot steps for the observers (checkers see the writes and the
 * acknowledgement, so they can tell an ack that came before its data). */
static void note(tm_side *tm, const rt_task *t, pipe_ev_kind kind, uint64_t ckpt, pipe_write what, uint64_t bytes, bool ok) {
    if (!world_observed(tm->w)) return;
    pipe_event e = { .kind = kind, .task = t->id, .ckpt = ckpt, .chan = PIPE_NO_CHAN, .what = what, .bytes = bytes, .ok = ok };
    tm_note_ev(tm, t, &e);
}

static void write_part(tm_side *tm, rt_task *t, rt_snap *sn, pipe_write what, uint64_t bytes) {
    SIM_ASSERT(sn->ckpt != 0 && bytes > 0 && (what == PIPE_WRITE_KEYED || what == PIPE_WRITE_CHANNELS));
    note(tm, t, PIPE_EV_WRITE, sn->ckpt, what, bytes, true);
    dev_write(tm->w->run, device_of(tm), t->actor, bytes, task_io_tag(t, sn->ckpt << 2 | (what == PIPE_WRITE_KEYED ? IO_KEYED : IO_CHANNELS)));
    sn->io_pending++;
}

/* The acknowledgement carries the snapshot's state handles: keyed state,
 * channel state, and a source's positions. */
static void send_ack(tm_side *tm, rt_task *t, const rt_snap *sn) {
    SIM_ASSERT(sn->ckpt != 0 && sn->ckpt <= t->last_seen_ckpt);
    note(tm, t, PIPE_EV_ACK, sn->ckpt, PIPE_WRITE_KEYED, 0, true);
    uint64_t cs = sn->cs_sealed ? sn->cs_file : 0;   /* a handle only once its write ended */
    msg_ack a = { .chain = sn->chain, .bytes = sn->chain_bytes, .cs_file = cs,
                  .cs_bytes = cs != 0 ? sn->cs_count * CS_RECORD_BYTES : 0 };
    if (t->snap_offsets != NULL) {                /* the splits it had, with their positions */
        size_t k = (size_t)(sn - t->snaps);
        const uint64_t *at = t->snap_offsets + k * t->parts_count;
        for (uint32_t i = 0; i < t->parts_count; i++) {
            if (!(t->snap_splits[k] >> i & 1)) continue;
            a.offsets[a.offsets_count++] = (proto_offset){ .partition = t->parts_first + i * t->parts_stride, .next = at[i] };
        }
    }
    SIM_ASSERT(a.offsets_count <= PROTO_OFFSETS_MAX);
    sim_msg m = { .type = MSG_ACK, .a = sn->ckpt, .b = (t->epoch << 32) | t->id };
    task_send_rpc(tm, t, &m, &a, PROTO_WITH_OFFSETS_BYTES(msg_ack, a.offsets_count));
}

/* The task's holds on a chain it wrote go (confirmed, aborted, or the
 * task cancelled): the coordinator holds its own references by then, or
 * released the checkpoint's directory already (store_dir_drop is false). */
static void release_chain(tm_side *tm, rt_chain *c) {
    for (uint32_t i = 0; i < c->count; i++) (void)store_dir_drop(&tm->w->files, c->ckpt, c->files[i]);
    memset(c, 0, sizeof *c);
}

/* ---- channel state (unaligned) ----------------------------------------- */

/* Records of a data buffer, watermarks left out (they are not state). */
static uint32_t records_of(const chan_buf *b) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->count; i++) n += !win_is_watermark(&b->recs[i]);
    return n;
}

static void persist(tm_side *tm, rt_task *t, rt_snap *sn, const rt_chan *c, const chan_buf *b, bool output) {
    if (b->kind != BUF_DATA || b->count == 0) return;
    uint32_t records = tm->w->event_time ? records_of(b) : b->count;
    if (records == 0) return;
    if (tm->w->cfg.bug == PIPE_BUG_NO_CHANNEL_STATE) return;                       /* deliberate bugs */
    if (tm->w->cfg.bug == PIPE_BUG_SECOND_INPUT_STATE && !output && c->input == 1) return;
    if (output) REACHED(tm->w, PRIORITY_OVERTOOK); else REACHED(tm->w, INPUT_CHANNEL_STATE);
    tm->w->stats.cs_bytes += records * CS_RECORD_BYTES;
    if (world_observed(tm->w)) {
        pipe_event e = { .kind = PIPE_EV_CHANNEL_STATE, .task = t->id, .output = output, .ckpt = sn->ckpt, .chan = c->id,
                         .count = records };
        tm_note_ev(tm, t, &e);
    }
    SIM_ASSERT(!sn->cs_sealed);                   /* one channel-state write per snapshot, after the last record */
    if (sn->cs_overflow) return;
    if (sn->cs_file == 0) sn->cs_file = store_create(&tm->w->files, t->id, sn->ckpt, true);
    /* The store full (its files or its entries) declines the snapshot:
     * channel state of a channel whose barrier is late grows with the
     * lateness, and this bounds it, as a quota on the checkpoint storage. */
    if (sn->cs_file == 0 || !store_alive(&tm->w->files, sn->cs_file)) {   /* or wiped with a memory backend */
        sn->cs_overflow = true;
        return;
    }
    for (uint32_t i = 0; i < b->count; i++) {
        if (win_is_watermark(&b->recs[i])) continue;   /* not state: a restored task derives its watermarks again */
        rt_cs_rec r = { .rec = b->recs[i], .chan = c->jc, .output = output };   /* by job channel: it may be restored elsewhere */
        if (!csfile_append(&tm->w->files, sn->cs_file, &r)) {
            sn->cs_overflow = true;
            return;
        }
        sn->cs_count++;
    }
}

/* The channel state's write ended: its file (filled as records were
 * persisted) is sealed and put in the checkpoint's directory; the
 * acknowledgement names it. False when the directory has no room. */
static bool materialize_cs(tm_side *tm, rt_task *t, rt_snap *sn) {
    SIM_ASSERT(sn->cs_file != 0 && !sn->cs_sealed);
    uint64_t f = sn->cs_file;
    if (!store_alive(&tm->w->files, f)) {         /* the memory backend died with its JobManager */
        sn->cs_file = 0;
        return false;
    }
    store_seal(&tm->w->files, f);
    sn->cs_sealed = true;
    if (!store_dir_hold(&tm->w->files, sn->ckpt, f)) {   /* no room for a hold: as a full store */
        store_discard(&tm->w->files, f);
        sn->cs_file = 0;
        return false;
    }
    rt_held *h = held_of(t, 0);
    if (h == NULL) h = forget_oldest_held(tm, t);
    *h = (rt_held){ .ckpt = sn->ckpt, .file = f };
    return true;
}

/* Buffers of input c that came before checkpoint ckpt's barrier and were
 * not consumed: [consumed, barrier or received). */
static void persist_inputs(tm_side *tm, rt_task *t, rt_snap *sn) {
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        rt_chan *c = task_in_chan(tm, t, i);
        uint64_t end = c->barrier_ckpt >= sn->ckpt ? c->barrier_at : c->received;
        for (uint64_t n = c->consumed; n < end; n++) persist(tm, t, sn, c, task_buf(c, n), false);
    }
}

/* A priority barrier carries the checkpoint's timestamp, as an in-band
 * one does; on a channel its consumer has not asked for yet it waits. */
void snap_send_priority(tm_side *tm, rt_task *t, rt_chan *c, uint64_t ckpt) {
    if (!c->requested) {
        REACHED(tm->w, PRIORITY_HELD);
        c->prio_held = ckpt;
        return;
    }
    msg_trigger ts = { .timestamp_ns = 0, .type = task_type_of(t, ckpt) };
    (void)task_ts_of(t, ckpt, &ts.timestamp_ns);
    SIM_ASSERT(ckpt <= UINT32_MAX);               /* the priority queue packs it beside the channel */
    sim_msg m = { .type = MSG_PRIORITY, .a = proto_chan_word(t->epoch, c->id), .b = ckpt };
    bool ok = link_send_payload(tm->w->run, c->data_link, &m, 64, &ts, sizeof ts);
    if (world_msgs(tm->w)) tm_note_send(tm, t, c->data_link, c->consumer, &m, ok, c, NULL);
    if (!ok) task_fail(tm, t);
}

/* The barrier overtakes the output queue: what was produced but not sent
 * is channel state; the barrier goes out as a priority message. */
static void priority_barriers(tm_side *tm, rt_task *t, rt_snap *sn) {
    for (uint32_t i = 0; i < t->jt->out_count; i++) {
        rt_chan *c = task_out_chan(tm, t, i);
        uint64_t end = c->filled + (tm_fill(tm, c)->filling ? 1 : 0);
        chan_fill_sync(tm, c);                        /* the open buffer's records count too */
        for (uint64_t n = c->sent; n < end; n++) persist(tm, t, sn, c, task_buf(c, n), true);
        snap_send_priority(tm, t, c, sn->ckpt);
    }
}

void snap_on_data(tm_side *tm, rt_task *t, rt_chan *c, const chan_buf *b) {
    if (b->kind == BUF_BARRIER && b->ckpt > c->barrier_ckpt) {
        c->barrier_ckpt = b->ckpt;
        c->barrier_at = c->received;             /* this buffer's number */
        return;
    }
    if (t->jt->in_count == 0 || !gate_unaligned_pending(&t->g)) return;
    rt_snap *sn = snap_of(t, t->g.current);
    if (sn == NULL || !sn->collecting || c->barrier_ckpt >= sn->ckpt) return;
    persist(tm, t, sn, c, b, false);
}

/* ---- acknowledging ------------------------------------------------------ */

static void decline_snap(tm_side *tm, rt_task *t, rt_snap *sn) {
    uint64_t ckpt = sn->ckpt;
    SIM_ASSERT(ckpt != 0 && !sn->syncing && sn->io_pending == 0);   /* declined once it has nothing in flight */
    snap_free(t, sn);
    REACHED(tm->w, DECLINE_SENT);
    tm_note(tm, PIPE_EV_DECLINE, t, ckpt);
    task_decline(tm, t, ckpt, CKR_DECLINED);      /* the snapshot's write failed: counted */
}

static void maybe_ack(tm_side *tm, rt_task *t, rt_snap *sn) {
    if (tm->w->cfg.bug == PIPE_BUG_EARLY_ACK && !sn->syncing && !sn->acked) {   /* deliberate bug */
        sn->acked = true;
        send_ack(tm, t, sn);                       /* before its files exist: no handle in it */
    }
    /* The deliberate bug ack-before-channel-state: the channel-state write
     * is not waited for (the ack names no channel state). */
    bool only_cs = sn->cs_writing && sn->io_pending == 1 && !sn->failed;
    if (tm->w->cfg.bug == PIPE_BUG_ACK_BEFORE_CS && only_cs && !sn->syncing && !sn->collecting && !sn->out_waiting &&
        !sn->acked) {
        sn->acked = true;
        send_ack(tm, t, sn);
    }
    if (sn->syncing || sn->io_pending > 0 || sn->collecting || sn->out_waiting) return;
    bool failed = sn->failed && tm->w->cfg.bug != PIPE_BUG_ACK_FAILED_WRITE;   /* the deliberate bug: not looked at */
    if (failed || sn->cs_overflow) {
        if (failed) REACHED(tm->w, WRITE_FAILED);
        tm->w->stats.async_failures++;
        decline_snap(tm, t, sn);
        return;
    }
    uint64_t ckpt = sn->ckpt;
    sim_time_ns async = tm->w->run->now_ns - sn->async_start_ns;
    tm->w->stats.async_ns_sum += async;
    if (async > tm->w->stats.async_ns_max) tm->w->stats.async_ns_max = async;
    tm->w->stats.snapshots++;
    bool acked = sn->acked;
    tm_note(tm, PIPE_EV_SNAPSHOT_ASYNC, t, ckpt);
    if (!acked) send_ack(tm, t, sn);
    snap_free(t, sn);
}

static void write_channel_state(tm_side *tm, rt_task *t, rt_snap *sn) {
    if (sn->cs_count == 0) return;
    SIM_ASSERT(!sn->cs_writing && !sn->cs_sealed);   /* one write a snapshot */
    sn->cs_writing = true;
    write_part(tm, t, sn, PIPE_WRITE_CHANNELS, sn->cs_count * CS_RECORD_BYTES);
}

/* ---- aligned barriers stuck in output queues (Flink 1.14+) --------------- */

static bool barrier_queued(tm_side *tm, const rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < t->jt->out_count; i++) {
        rt_chan *c = task_out_chan(tm, t, i);
        for (uint64_t n = c->sent; n < c->filled; n++) {
            const chan_buf *b = task_buf(c, n);
            if (b->kind == BUF_BARRIER && b->ckpt == ckpt) return true;
        }
    }
    return false;
}

void snap_barrier_sent(tm_side *tm, rt_task *t, uint64_t ckpt) {
    rt_snap *sn = snap_of(t, ckpt);
    if (sn == NULL || !sn->out_waiting || barrier_queued(tm, t, ckpt)) return;
    sn->out_waiting = false;
    maybe_ack(tm, t, sn);
}

/* The aligned barrier of `ckpt` still sits behind queued output after the
 * alignment timeout: it becomes a priority barrier, and the buffers it
 * overtakes become this task's output channel state (the checkpoint is
 * unaligned from here on; the receivers switch when it reaches them). */
void snap_output_timeout(tm_side *tm, rt_task *t, uint64_t ckpt) {
    rt_snap *sn = snap_of(t, ckpt);
    if (sn == NULL || !sn->out_waiting) return;
    for (uint32_t i = 0; i < t->jt->out_count; i++) {
        rt_chan *c = task_out_chan(tm, t, i);
        uint64_t at = c->filled;                  /* the barrier's buffer, if still queued here */
        for (uint64_t n = c->sent; n < c->filled && at == c->filled; n++) {
            const chan_buf *b = task_buf(c, n);
            if (b->kind == BUF_BARRIER && b->ckpt == ckpt) at = n;
        }
        if (at == c->filled) continue;            /* sent already: what follows it is after it */
        if (world_observed(tm->w)) {
            pipe_event e = { .kind = PIPE_EV_ALIGN_TIMEOUT, .task = t->id, .output = true, .ckpt = ckpt, .chan = c->id,
                             .count = (uint32_t)(at - c->sent) };
            tm_note_ev(tm, t, &e);
        }
        for (uint64_t n = c->sent; n < at; n++) persist(tm, t, sn, c, task_buf(c, n), true);
        chan_buf *b = task_buf(c, at);
        chan_set_kind(c, at, b, BUF_DATA);        /* the in-band barrier is gone: an empty buffer */
        b->count = 0;
        snap_send_priority(tm, t, c, ckpt);
    }
    tm->w->stats.alignment_timeouts++;
    tm->w->stats.unaligned_triggers++;
    REACHED(tm->w, OUTPUT_TIMEOUT);
    sn->out_waiting = false;
    if (!sn->syncing) write_channel_state(tm, t, sn);
    maybe_ack(tm, t, sn);
}

void snap_inputs_done(tm_side *tm, rt_task *t) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        rt_snap *sn = &t->snaps[i];
        if (sn->ckpt == 0 || !sn->collecting) continue;
        if (gate_unaligned_pending(&t->g) && t->g.current == sn->ckpt) continue;
        sn->collecting = false;
        if (!sn->syncing) write_channel_state(tm, t, sn);
        maybe_ack(tm, t, sn);
    }
}

/* ---- keyed state files -------------------------------------------------- */

static bool chain_alive(const tm_side *tm, const rt_chain *c) {
    for (uint32_t i = 0; i < c->count; i++) {
        if (!store_alive(&tm->w->files, c->files[i])) return false;
    }
    return c->count > 0;
}

/* A stop's savepoint. With the changelog backend it is the nested
 * backend's canonical snapshot of the whole state, not the log
 * (ChangelogKeyedStateBackend.savepoint() delegates), so it neither
 * closes a segment nor uploads one. */
static bool savepoint_of(const rt_task *t, uint64_t ckpt) {
    return task_type_of(t, ckpt) >= PROTO_CK_SUSPEND;
}

/* Incremental when on, a confirmed base exists whose files all live, the
 * chain is not at its length limit, and the checkpoint may share files
 * with earlier ones: a FULL_CHECKPOINT (NO_CLAIM's first after a restore)
 * writes everything anew (SharingFilesStrategy.FORWARD), unless the
 * deliberate bug no-claim-shares has it build on the restored files; a
 * savepoint too, and no later snapshot builds on it (NO_SHARING). */
static bool incremental(const tm_side *tm, const rt_task *t, uint64_t ckpt) {
    bool forward = (task_type_of(t, ckpt) == PROTO_CK_FULL && tm->w->cfg.bug != PIPE_BUG_NO_CLAIM_SHARES) ||
                   savepoint_of(t, ckpt);
    return tm->w->cfg.state.incremental && !forward && chain_alive(tm, &t->base) &&
           t->base.count <= tm->w->cfg.state.full_every;
}

/* With the changelog backend only the log's tail, unless a savepoint. */
static bool logged(const rt_task *t, const rt_snap *sn) {
    return t->clog != NULL && !savepoint_of(t, sn->ckpt);
}

static uint64_t keyed_entries(const tm_side *tm, const rt_task *t, const rt_snap *sn) {
    bool incr = incremental(tm, t, sn->ckpt);
    uint64_t n = 0;
    uint32_t slot = 0, ver;
    uint64_t key;
    kagg agg;
    while (kstate_snap_next(&t->state, sn->ksnap, &slot, &key, &agg, &ver)) n += !incr || ver > t->base.version;
    return n;
}

static void reach_kind(tm_side *tm, const rt_task *t, bool incr) {
    if (incr) {
        REACHED(tm->w, INCREMENTAL);
    } else if (tm->w->cfg.state.incremental && t->base.count > tm->w->cfg.state.full_every) {
        REACHED(tm->w, FULL_CHAIN_LIMIT);
    }
}

/* The marked version in a new sealed file (full, or the keys changed
 * since the base); 0 when the store is full. */
static uint64_t write_file(tm_side *tm, rt_task *t, const rt_snap *sn, bool incr) {
    uint64_t f = store_create(&tm->w->files, t->id, sn->ckpt, !incr);
    if (f == 0) return 0;
    uint32_t slot = 0, ver = 0;
    uint64_t key;
    kagg agg;
    bool cow = tm->w->cfg.bug != PIPE_BUG_NO_COW;    /* the bug: read the live map, later updates leak in */
    while (cow ? kstate_snap_next(&t->state, sn->ksnap, &slot, &key, &agg, &ver)
               : kstate_next(&t->state, &slot, &key, &agg)) {
        if (incr && cow && ver <= t->base.version) continue;
        if (!store_append(&tm->w->files, f, key, &agg)) {
            store_discard(&tm->w->files, f);
            return 0;
        }
    }
    store_seal(&tm->w->files, f);
    return f;
}

/* A committer's collector as its snapshot copied it; 0 when the store is full. */
static uint64_t committer_file(tm_side *tm, rt_task *t, const rt_snap *sn) {
    uint64_t f = store_create(&tm->w->files, t->id, sn->ckpt, true);
    if (f == 0) return 0;
    if (!sinkv2_write(tm, t, (uint32_t)(sn - t->snaps), f)) {
        store_discard(&tm->w->files, f);
        return 0;
    }
    store_seal(&tm->w->files, f);
    return f;
}

/* The deliberate bug FLINK-29913: the registry names an increment by its
 * task and its place in the chain, so the increment a concurrent
 * checkpoint wrote on the same base is taken for this one's. */
static uint64_t registered_as(const tm_side *tm, const rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        const rt_chain *c = &t->recent[i];
        if (c->ckpt == 0 || c->ckpt == ckpt || c->count != t->base.count + 1) continue;
        if (c->files[c->count - 2] == t->base.files[t->base.count - 1] && store_alive(&tm->w->files, c->files[c->count - 1])) {
            return c->files[c->count - 1];
        }
    }
    return 0;
}

/* Write the marked version into a new file (full, or the keys changed
 * since the base); the chain goes to the coordinator with the ack, and
 * the task keeps its references until the checkpoint is confirmed or
 * aborted. The task cannot know whether the coordinator still waits for
 * it: it writes anyway, as a TaskManager does. */
/* The snapshot's file and chain: a committer's collector (full, every
 * time), the changelog's materialized part and segments, or keyed state
 * full or incremental. 0: the store is full. */
static uint64_t write_chain(tm_side *tm, rt_task *t, rt_snap *sn, rt_chain *c) {
    if (logged(t, sn)) return clog_upload(tm, t, sn, c);
    if (t->clog != NULL) REACHED(tm->w, CHANGELOG_SAVEPOINT);
    bool cmt = t->v->kind == JOB_COMMITTER;
    bool incr = !cmt && incremental(tm, t, sn->ckpt) && tm->w->cfg.bug != PIPE_BUG_NO_COW;
    if (!cmt) reach_kind(tm, t, incr);
    uint64_t f = incr && tm->w->cfg.bug == PIPE_BUG_REGISTRY_BY_NAME ? registered_as(tm, t, sn->ckpt) : 0;   /* deliberate bug */
    if (f == 0) f = cmt ? committer_file(tm, t, sn) : write_file(tm, t, sn, incr);
    if (f == 0) return 0;
    *c = (rt_chain){ .ckpt = sn->ckpt, .version = cmt ? 0 : kstate_snap_version(&t->state, sn->ksnap) };
    if (incr) {
        c->count = t->base.count;
        memcpy(c->files, t->base.files, sizeof(uint64_t) * t->base.count);
    }
    c->files[c->count++] = f;
    return f;
}

static void materialize(tm_side *tm, rt_task *t, rt_snap *sn) {
    rt_chain c;
    uint64_t f = write_chain(tm, t, sn, &c);
    if (f == 0) {
        sn->failed = true;
        return;
    }
    tm->w->stats.files_created++;
    tm->w->stats.files_shared += c.count - 1;
    uint32_t i = recent_entry(tm, t);             /* remembered until confirmed or aborted */
    for (uint32_t k = 0; k < c.count; k++) {      /* the checkpoint's directory holds its chain */
        if (store_dir_hold(&tm->w->files, sn->ckpt, c.files[k])) continue;
        c.count = k;                              /* no room, or a base file is gone: the snapshot fails */
        release_chain(tm, &c);
        if (store_alive(&tm->w->files, f) && store_refs(&tm->w->files, f) == 0) store_discard(&tm->w->files, f);
        sn->failed = true;
        return;
    }
    t->recent[i] = c;
    sn->chain = c;
    sn->chain_bytes = store_bytes(&tm->w->files, f);
}

/* ---- the protocol steps -------------------------------------------------- */

/* Abort notices of checkpoints the task has not triggered yet (barriers
 * still on their way): remembered, as Flink's abortedCheckpointIds. */
void snap_note_aborted(rt_task *t, uint64_t ckpt) {
    if (ckpt <= t->last_seen_ckpt) return;
    t->aborted[t->aborted_next] = ckpt;
    t->aborted_next = (t->aborted_next + 1) % PIPE_CONCURRENT_MAX;
}

static bool known_aborted(rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX; i++) {
        if (t->aborted[i] != ckpt) continue;
        t->aborted[i] = 0;
        return true;
    }
    return false;
}

/* A free snapshot of the task (NULL: none), and in *busy how many are
 * alive. */
static rt_snap *free_snap(rt_task *t, uint32_t *busy) {
    rt_snap *sn = NULL;
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->snaps[i].ckpt != 0) (*busy)++; else if (sn == NULL) sn = &t->snaps[i];
    }
    SIM_ASSERT((sn == NULL) == (*busy == PIPE_CONCURRENT_MAX + 1));
    return sn;
}

/* Barrier sn->ckpt goes downstream: unaligned, as priority barriers ahead
 * of the queued output, which with the queued input becomes channel
 * state; aligned, behind the queued output, where with an alignment
 * timeout a barrier still stuck when the checkpoint grows older than it
 * turns priority (TIMER_OUTPUT_BASE). */
static void forward_barrier(tm_side *tm, rt_task *t, rt_snap *sn, bool unaligned) {
    uint64_t ckpt = sn->ckpt;
    SIM_ASSERT(ckpt != 0 && ckpt == t->last_seen_ckpt);
    if (unaligned) {
        tm->w->stats.unaligned_triggers++;
        if (sinkv2_in_band(t)) {                  /* FLINK-36287: in band, behind the committables */
            for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_BARRIER, ckpt);
        } else {
            priority_barriers(tm, t, sn);
        }
        /* The deliberate bug switch-no-queued-input: a checkpoint
         * that switched at the alignment timeout keeps no queued input. */
        if (tm->w->cfg.ckpt.mode == PIPE_UNALIGNED || tm->w->cfg.bug != PIPE_BUG_SWITCH_NO_QUEUED) persist_inputs(tm, t, sn);
        sn->collecting = t->jt->in_count > 0 && gate_unaligned_pending(&t->g) && t->g.current == ckpt;
        return;
    }
    for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_BARRIER, ckpt);
    sim_time_ns started_ns;
    if (tm->w->cfg.ckpt.alignment_timeout_ns > 0 && !sinkv2_in_band(t) && task_ts_of(t, ckpt, &started_ns) &&
        barrier_queued(tm, t, ckpt)) {            /* a writer's, a committer's barrier never turns priority (FLINK-36287) */
        sn->out_waiting = true;
        sim_time_ns due = started_ns + tm->w->cfg.ckpt.alignment_timeout_ns, now = tm->w->run->now_ns;
        task_timer(tm, t, due > now ? due - now : 0, TIMER_OUTPUT_BASE + ckpt);
    }
}

/* Where a source's snapshot says partition i (of its own) goes on. The
 * deliberate bug skips a record, never past the partition's end: a
 * source restored there would claim a record it cannot read. */
static uint64_t snap_offset(tm_side *tm, const rt_task *t, uint32_t i) {
    uint64_t next = tm_offsets(t)[t->parts_first + i * t->parts_stride];
    uint64_t end = tm->w->brk.topic[t->v->topic].cfg.records_per_partition;
    return tm->w->cfg.bug == PIPE_BUG_OFFSET_OFF_BY_ONE && next < end ? next + 1 : next;   /* deliberate bug */
}

static void sync_part(tm_side *tm, rt_task *t, rt_snap *sn, uint64_t ckpt);

void snap_trigger(tm_side *tm, rt_task *t, uint64_t ckpt, bool unaligned_gate) {
    /* Flink's SubtaskCheckpointCoordinatorImpl.checkpointState (Flink 1.15 to 2.x):
     * a checkpoint not newer than the last this task triggered or
     * declined (abortCheckpointOnBarrier raises lastCheckpointId too) is
     * out of order ("aborted previously?"): nothing is
     * snapshotted, acknowledged or sent. A trigger RPC delivered twice
     * comes here. */
    if (ckpt <= t->last_seen_ckpt) {
        REACHED(tm->w, TRIGGER_OUT_OF_ORDER);
        return;
    }
    t->last_seen_ckpt = ckpt;
    if (known_aborted(t, ckpt)) {
        /* Flink 1.15 (checkAndClearAbortedStatus): no snapshot of a
         * checkpoint known to be aborted; cancel markers downstream, so
         * no alignment waits for its barriers. */
        REACHED(tm->w, ABORTED_BEFORE_TRIGGER);
        tm_note_step(tm, t, &(pipe_event){ .kind = PIPE_EV_DECLINE, .ckpt = ckpt, .known_aborted = true }, NULL);
        for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_CANCEL, ckpt);
        return;
    }
    if (t->jt->in_count > 0 && t->align_start_ckpt == ckpt) {   /* from its first barrier to the trigger; a trigger the
                                                             coordinator sent (upstream finished) aligned nothing */
        sim_time_ns align = tm->w->run->now_ns - t->align_start_ns;
        tm->w->stats.alignment_ns_sum += align;
        if (align > tm->w->stats.alignment_ns_max) tm->w->stats.alignment_ns_max = align;
        tm->w->stats.alignments++;
    }
    uint32_t busy = 0;
    rt_snap *sn = free_snap(t, &busy);
    /* Too many still writing: decline this one. A guard, not a protocol
     * situation: a task snapshots only checkpoints not known to be
     * aborted, and abort notices come within an RPC latency, far below a
     * checkpoint timeout, so no campaign gets here (a lost or long-delayed
     * notice, once the model has them, could). */
    /* ... or no snapshot record of its map is free (a changelog
     * materialization holds one besides the checkpoints'). */
    if (busy >= tm->snaps_max || (t->stateful && kstate_snaps_active(&t->state) >= t->state.snaps_max)) {
        REACHED(tm->w, DECLINE_SENT);
        tm->w->stats.async_failures++;
        tm_note(tm, PIPE_EV_DECLINE, t, ckpt);
        task_decline(tm, t, ckpt, CKR_DECLINED);
        for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_CANCEL, ckpt);
        return;
    }
    SIM_ASSERT(sn != NULL);
    if (busy > 0) REACHED(tm->w, TWO_SNAPSHOTS);
    sn->ckpt = ckpt;
    sn->ksnap = UINT32_MAX;
    sn->sync_start_ns = tm->w->run->now_ns;
    bool unaligned = (tm->w->cfg.ckpt.mode == PIPE_UNALIGNED || unaligned_gate) && t->v->kind != JOB_COMMITTER;   /* FLINK-36287 */
    if (sinkv2_writer(t)) sinkv2_emit(tm, t, ckpt);   /* prepareSnapshotPreBarrier: before the barrier */
    forward_barrier(tm, t, sn, unaligned);
    tm_note_step(tm, t, &(pipe_event){ .kind = PIPE_EV_TRIGGER, .ckpt = ckpt, .unaligned = unaligned }, NULL);
    if (t->life == LIFE_ENDING && t->final_from == 0) t->final_from = ckpt;   /* the first that holds its final state */
    sync_part(tm, t, sn, ckpt);
}

/* The synchronous part of snapshot sn: a stop's savepoint stops a source
 * after its barrier (and the task finishes once it completes); a source
 * records its positions, a sink pre-commits, keyed state marks a version. */
static void sync_part(tm_side *tm, rt_task *t, rt_snap *sn, uint64_t ckpt) {
    if (savepoint_of(t, ckpt)) {
        t->stop_ckpt = ckpt;
        REACHED(tm->w, STOP_SAVEPOINT_TAKEN);
    }
    if (t->snap_offsets != NULL) {                /* a source's positions: operator state */
        uint64_t *at = t->snap_offsets + (size_t)(sn - t->snaps) * t->parts_count;
        t->snap_splits[sn - t->snaps] = t->splits;
        for (uint32_t i = 0; i < t->parts_count; i++) at[i] = snap_offset(tm, t, i);
    }
    if (t->v->kind == JOB_SINK) sinktx_precommit(tm, t, ckpt);
    if (t->stateful) sn->ksnap = kstate_snap_begin(&t->state);
    if (logged(t, sn)) clog_trigger(tm, t, sn);    /* its segment: the log since the last upload */
    if (t->v->kind == JOB_COMMITTER) sinkv2_snapshot(tm, t, (uint32_t)(sn - t->snaps));
    sn->syncing = true;
    t->syncing++;
    task_timer(tm, t, tm->w->cfg.state.sync_ns, TIMER_SYNC_DONE);
    SIM_ASSERT(t->syncing <= PIPE_CONCURRENT_MAX + 1 && t->last_seen_ckpt == ckpt);
}

/* The task stood still from the trigger until now; it goes on. */
static void sync_part_over(tm_side *tm, rt_task *t, rt_snap *sn) {
    SIM_ASSERT(sn->syncing && sn->ckpt != 0 && tm->w->run->now_ns >= sn->sync_start_ns);
    sim_time_ns sync = tm->w->run->now_ns - sn->sync_start_ns;
    tm->w->stats.sync_ns_sum += sync;
    tm->w->stats.sync_parts++;
    if (sync > tm->w->stats.sync_ns_max) tm->w->stats.sync_ns_max = sync;
    sn->syncing = false;
    SIM_ASSERT(t->syncing > 0);
    t->syncing--;
}

bool snap_sync_done(tm_side *tm, rt_task *t) {
    rt_snap *sn = NULL;                           /* sync parts take equal time: oldest first */
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        rt_snap *x = &t->snaps[i];
        if (x->ckpt != 0 && x->syncing && x->io_pending == 0 && (sn == NULL || x->ckpt < sn->ckpt)) sn = x;
    }
    if (sn == NULL) return false;                 /* declined meanwhile */
    SIM_ASSERT(t->syncing > 0);
    tm_note(tm, PIPE_EV_SNAPSHOT_SYNC, t, sn->ckpt);
    sn->async_start_ns = tm->w->run->now_ns;
    if (logged(t, sn)) {                          /* only the log's tail */
        write_part(tm, t, sn, PIPE_WRITE_KEYED, 64 + clog_entries(tm, t, sn) * STATE_ENTRY_BYTES);
    } else if (t->stateful) {
        write_part(tm, t, sn, PIPE_WRITE_KEYED, 64 + keyed_entries(tm, t, sn) * STATE_ENTRY_BYTES);
    } else if (t->v->kind == JOB_COMMITTER) {     /* its collector: operator state */
        write_part(tm, t, sn, PIPE_WRITE_KEYED, 64 + sinkv2_snapshot_entries(t, (uint32_t)(sn - t->snaps)) * STATE_ENTRY_BYTES);
    }
    if (!sn->collecting) write_channel_state(tm, t, sn);
    if (tm->w->cfg.state.async || sn->io_pending == 0) sync_part_over(tm, t, sn);   /* the task goes on now */
    maybe_ack(tm, t, sn);
    return true;
}

bool snap_io_done(tm_side *tm, rt_task *t, uint64_t tag, bool ok) {
    uint64_t ckpt = tag >> 2, what = tag & 3;
    if (what == IO_MATERIALIZE) {                 /* a changelog materialization: no snapshot's */
        clog_materialized(tm, t, ckpt, ok);
        return false;
    }
    rt_snap *sn = snap_of(t, ckpt);
    if (sn == NULL) return false;                 /* declined meanwhile */
    SIM_ASSERT(sn->io_pending > 0);
    sn->io_pending--;
    note(tm, t, PIPE_EV_WRITE_DONE, ckpt, what == IO_KEYED ? PIPE_WRITE_KEYED : PIPE_WRITE_CHANNELS, 0, ok);
    if (what != IO_KEYED) sn->cs_writing = false;
    if (!ok) {
        sn->failed = true;
        if (what == IO_KEYED && logged(t, sn)) clog_upload_failed(t, sn);
    } else if (what == IO_KEYED) {
        materialize(tm, t, sn);
    } else if (!sn->cs_overflow && !materialize_cs(tm, t, sn)) {
        sn->failed = true;                        /* the store is full */
    }
    if (sn->syncing && sn->io_pending == 0) {     /* synchronous snapshots: the task resumes */
        sync_part_over(tm, t, sn);
        maybe_ack(tm, t, sn);
        return true;
    }
    maybe_ack(tm, t, sn);
    return false;
}

/* Drops what the snapshot holds. It may end a synchronous part the task
 * waits for: a caller outside the task's pump loop pumps afterwards (the
 * loop itself re-checks, and pumping from inside it would re-enter it). */
/* The deliberate bug FLINK-25395: the cleanup discards every file the
 * aborted snapshot names, though earlier checkpoints share them. */
static void discard_chain(tm_side *tm, const rt_chain *c) {
    for (uint32_t i = 0; i < c->count; i++) {
        while (store_alive(&tm->w->files, c->files[i]) && store_refs(&tm->w->files, c->files[i]) > 0) {
            store_unref(&tm->w->files, c->files[i]);
        }
    }
}

void snap_abort(rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {   /* its files are no longer the task's to keep */
        if (t->recent[i].ckpt == ckpt && ckpt != 0 && t->owner->w->cfg.bug == PIPE_BUG_TM_CLEANUP_SHARED) {
            discard_chain(t->owner, &t->recent[i]);
        }
        if (t->recent[i].ckpt == ckpt && ckpt != 0) release_chain(t->owner, &t->recent[i]);
        if (t->held_cs[i].ckpt == ckpt && ckpt != 0) release_held(t->owner, &t->held_cs[i]);
    }
    rt_snap *sn = snap_of(t, ckpt);
    if (sn == NULL) return;
    snap_free(t, sn);
    tm_note(t->owner, PIPE_EV_SNAPSHOT_DROPPED, t, ckpt);
}

void snap_confirmed(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(ckpt != 0);
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {   /* older ones are subsumed: stop them */
        if (t->snaps[i].ckpt == 0 || t->snaps[i].ckpt >= ckpt) continue;
        uint64_t old = t->snaps[i].ckpt;
        snap_free(t, &t->snaps[i]);
        tm_note(tm, PIPE_EV_SNAPSHOT_DROPPED, t, old);
    }
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        rt_chain *c = &t->recent[i];
        if (c->ckpt == 0 || c->ckpt > ckpt) continue;
        if (c->ckpt == ckpt && !savepoint_of(t, ckpt)) t->base = *c;   /* the retained checkpoint
                                                                                         keeps its files alive */
        release_chain(tm, c);
    }
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->held_cs[i].ckpt != 0 && t->held_cs[i].ckpt <= ckpt) release_held(tm, &t->held_cs[i]);
    }
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) SIM_ASSERT(t->snaps[i].ckpt == 0 || t->snaps[i].ckpt >= ckpt);
    if (t->v->kind == JOB_SINK) sinktx_commit(tm, t, ckpt);
    if (t->v->kind == JOB_COMMITTER) sinkv2_notified(tm, t, ckpt);
}

/* A finished task's final keyed state, for the checkpoints the
 * coordinator acknowledges on its behalf (FLIP-147). */
void snap_finish(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->life == LIFE_FINISHED);
    if (t->v->kind == JOB_SINK) sinktx_finish(tm, t);
    if (!t->stateful) return;
    uint64_t f = store_create(&tm->w->files, t->id, 0, true);
    bool ok = f != 0;
    uint32_t slot = 0;
    uint64_t key;
    kagg agg;
    while (ok && kstate_next(&t->state, &slot, &key, &agg)) ok = store_append(&tm->w->files, f, key, &agg);
    if (!ok) {
        if (f != 0) store_discard(&tm->w->files, f);
        tm->w->stats.async_failures++;
        return;                                   /* checkpoints acked for it will be declined */
    }
    store_seal(&tm->w->files, f);
    if (!store_dir_hold(&tm->w->files, 0, f)) {   /* directory 0: final state, until the attempt ends */
        store_discard(&tm->w->files, f);
        tm->w->stats.async_failures++;
        return;
    }
    t->final_file = f;
}

/* ---- restore ------------------------------------------------------------- */

void snap_replay_done(tm_side *tm, rt_task *t) {
    if (t->replay_file != 0 && store_alive(&tm->w->files, t->replay_file)) store_unref(&tm->w->files, t->replay_file);
    t->replay_file = 0;
    if (t->life == LIFE_REPLAYING) task_life_to(t, LIFE_RUNNING);
    SIM_ASSERT(t->life != LIFE_REPLAYING);
}

/* The task's channel state of the restored checkpoint: its output part
 * goes out again first, its input part is replayed before new input
 * (task.c reads the file batch by batch). */
static void restore_channel_state(tm_side *tm, rt_task *t, uint64_t file, bool rescaled) {
    uint64_t cursor = 0;
    rt_cs_rec r;
    bool any = false;
    t->replay_rescaled = rescaled;
    while (csfile_next(&tm->w->files, file, &cursor, &r)) {
        any = true;
        const job_chan *jc = &world_job(tm->w)->chans[r.chan];
        if (rescaled) {                           /* outputs too go out with the replay, as room allows */
            if (tm->w->cfg.bug != PIPE_BUG_NO_REPLAY && t->life != LIFE_REPLAYING) task_life_to(t, LIFE_REPLAYING);
        } else if (r.output) {
            SIM_ASSERT(jc->producer == t->id);
            task_emit_to(tm, t, jc->out_index, &r.rec);
        } else {
            SIM_ASSERT(jc->consumer == t->id);
            if (tm->w->cfg.bug != PIPE_BUG_NO_REPLAY && t->life != LIFE_REPLAYING) task_life_to(t, LIFE_REPLAYING);
        }
    }
    if (t->life == LIFE_REPLAYING) {                           /* read while replaying: the task holds it */
        store_ref(&tm->w->files, file);
        t->replay_file = file;
    }
    if (any) REACHED(tm->w, RESTORE_CHANNEL_STATE);
}

void snap_clear(tm_side *tm, rt_task *t, bool died) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->snaps[i].ckpt != 0) snap_free(t, &t->snaps[i]);
        t->snaps[i].ksnap = UINT32_MAX;
        /* A dead process lets go of nothing: its files stay in their
         * checkpoints' directories until the coordinator ends those. */
        if (died) {
            memset(&t->recent[i], 0, sizeof t->recent[i]);
            t->held_cs[i] = (rt_held){ .ckpt = 0 };
            continue;
        }
        release_chain(tm, &t->recent[i]);
        if (t->held_cs[i].ckpt != 0) release_held(tm, &t->held_cs[i]);
    }
    t->syncing = 0;
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) SIM_ASSERT(t->snaps[i].ckpt == 0);
    snap_replay_done(tm, t);
    if (t->final_file != 0 && !died) (void)store_dir_drop(&tm->w->files, 0, t->final_file);
    t->final_file = 0;
    memset(&t->base, 0, sizeof t->base);
    t->prio_count = 0;
    t->align_timer = 0;
    /* A finished task's keyed state is its final state (FLIP-147: its
     * final checkpoint holds the same), the job's end result, which the
     * invariant checkers read when the job finishes. Its process may die or
     * be cancelled after (its TaskManager lost): that fails nothing, as
     * Flink ignores a failure of a finished execution, and the map stays
     * as the record of what the task held, whatever happens to the
     * process until the next deployment. Nothing in the model reads it:
     * every deployment restores the map first (restore_keyed). A subtask
     * a rescale leaves out keeps it for good; the views count the
     * deployed parallelism's subtasks only (model/view.c). */
    t->final_kept |= t->life == LIFE_FINISHED;
    clog_clear(tm, t);                            /* before the map's clear: a materialization's snapshot ends */
    if (t->stateful && !t->final_kept) kstate_clear(&t->state);
}

/* The files of a rescaled task's handles after its first (proto.h). */
static uint32_t more_files(const msg_deploy *d) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->more_count; i++) n += d->more_len[i];
    SIM_ASSERT(d->more_count <= PIPE_RESCALE_HANDLES_MAX && n <= PROTO_MORE_FILES_MAX);
    return n;
}

/* Bytes a restore of d reads from the store (what the device charges):
 * a rescaled task reads the whole files of its handles. */
uint64_t snap_restore_bytes(const tm_side *tm, const msg_deploy *d) {
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < d->chain.count; i++) {
        if (store_alive(&tm->w->files, d->chain.files[i])) bytes += store_bytes(&tm->w->files, d->chain.files[i]);
    }
    for (uint32_t i = 0, n = more_files(d); i < n; i++) {
        if (store_alive(&tm->w->files, d->more_files[i])) bytes += store_bytes(&tm->w->files, d->more_files[i]);
    }
    if (d->cs_file != 0 && store_alive(&tm->w->files, d->cs_file)) bytes += store_bytes(&tm->w->files, d->cs_file);
    for (uint32_t i = 0; i + 1 < d->cs_count; i++) {   /* a rescale's other old subtasks' */
        if (store_alive(&tm->w->files, d->cs_more[i])) bytes += store_bytes(&tm->w->files, d->cs_more[i]);
    }
    return bytes;
}

/* A rescaled task: the keys of its key groups from every handle (each an
 * old subtask's chain), the others' keys left out; no base for an
 * increment (its files hold other keys too): the next snapshot is full. */
static bool restore_rescaled(tm_side *tm, rt_task *t, const msg_deploy *d) {
    bool ok = d->chain.count == 0 || store_restore_owned(&tm->w->files, d->chain.files, d->chain.count, &t->state);
    for (uint32_t h = 0, at = 0; h < d->more_count && ok; at += d->more_len[h++]) {
        ok = d->more_len[h] == 0 || store_restore_owned(&tm->w->files, d->more_files + at, d->more_len[h], &t->state);
    }
    if (!ok) {
        tm->w->stats.restore_failures++;          /* I5: a file the checkpoint needs was deleted */
        kstate_clear(&t->state);
    }
    bool chain = d->chain.count > 1;
    for (uint32_t h = 0; h < d->more_count; h++) chain |= d->more_len[h] > 1;
    if (chain) REACHED(tm->w, RESTORE_CHAIN);
    return ok;
}

/* Its key groups: those of its subtask at the attempt's parallelism. */
static void own_groups(const tm_side *tm, rt_task *t) {
    kstate_owner o = t->state.owner;
    uint32_t p = t->deploy.parallelism[t->jt->vertex];
    o.parallelism = p != 0 ? p : world_job(tm->w)->vertices[t->jt->vertex].parallelism;
    kstate_own(&t->state, &o);
}

/* Keyed state from the deployment's chain; false when a file is gone. */
static bool restore_keyed(tm_side *tm, rt_task *t, const msg_deploy *d) {
    bool ok = true;
    kstate_clear(&t->state);
    own_groups(tm, t);
    if (d->from_parallelism != 0) {
        ok = restore_rescaled(tm, t, d);
    } else if (d->chain.count > 0) {
        if (!store_restore(&tm->w->files, d->chain.files, d->chain.count, &t->state)) {
            tm->w->stats.restore_failures++;      /* I5: a file the checkpoint needs was deleted */
            ok = false;
            kstate_clear(&t->state);
        } else {
            if (!d->canonical) t->base = d->chain;   /* a canonical savepoint's state is loaded anew: a full one next */
            if (d->chain.count > 1) REACHED(tm->w, RESTORE_CHAIN);
        }
    }
    /* Restored entries are version 1; new writes must come after. */
    kstate_snap_end(&t->state, kstate_snap_begin(&t->state));
    t->base.version = kstate_version(&t->state) - 1;
    if (t->clog != NULL && ok && d->canonical && d->chain.count > 0) REACHED(tm->w, CHANGELOG_ON_SAVEPOINT);
    if (t->clog != NULL) clog_restored(tm, t, ok ? &d->chain : &(rt_chain){ .count = 0 });
    return ok;
}

/* The channel for an old subtask's input record at this subtask: its
 * input on the same edge from the same producer if that one runs, else
 * its first input on that edge (the replay needs the edge's input side). */
static uint32_t input_for(const tm_side *tm, const rt_task *t, const job_chan *old) {
    const job *j = world_job(tm->w);
    uint32_t any = UINT32_MAX;
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        uint32_t c = j->in_chan[t->jt->in_first + i];
        if (j->chans[c].edge != old->edge) continue;
        if (j->chans[c].producer == old->producer && task_peer_runs(tm, t, old->producer)) return c;
        if (any == UINT32_MAX) any = c;
    }
    SIM_ASSERT(any != UINT32_MAX);
    return any;
}

/* Whether this subtask takes old subtask k's input record r (the
 * consumer's side of SubtaskStateMapper): by key group on a hash edge
 * (RANGE, filtered as RecordFilter does), else round robin. */
static bool takes_input(const tm_side *tm, const rt_task *t, uint32_t k, const rt_cs_rec *r) {
    const job *j = world_job(tm->w);
    uint32_t p = t->deploy.parallelism[t->jt->vertex];
    if (p == 0) p = t->v->parallelism;
    if (j->edges[j->chans[r->chan].edge].part == JOB_HASH)
        return job_key_subtask(r->rec.key, job_max_parallelism(t->v), p) == t->jt->subtask;
    return k % p == t->jt->subtask;
}

/* One old subtask's channel-state file: the records this subtask takes
 * into `merged`, its output records (round robin; the replay sends them
 * out through the partitioner, as room allows) and its input records, on
 * this subtask's own channels. False: the store is full. */
static bool redistribute(tm_side *tm, rt_task *t, uint64_t file, uint32_t k, uint64_t *merged, uint64_t ckpt) {
    const job *j = world_job(tm->w);
    uint32_t p = t->deploy.parallelism[t->jt->vertex];
    if (p == 0) p = t->v->parallelism;
    uint64_t cursor = 0;
    rt_cs_rec r;
    while (csfile_next(&tm->w->files, file, &cursor, &r)) {
        const job_chan *jc = &j->chans[r.chan];
        if (r.output ? k % p != t->jt->subtask : !takes_input(tm, t, k, &r)) continue;
        if (!r.output) r.chan = input_for(tm, t, jc);   /* an output record keeps its old channel: its edge */
        if (*merged == 0 && (*merged = store_create(&tm->w->files, t->id, ckpt, true)) == 0) return false;
        if (!csfile_append(&tm->w->files, *merged, &r)) return false;
    }
    return true;
}

/* The channel state of a restore across a rescale: the files of the old
 * subtasks the coordinator mapped to this one, filtered and mapped onto
 * its own channels (FLINK-17979, Flink 1.13). Returns the file of the
 * input records it replays (0: none); false in *ok when a file is gone or
 * the store is full. */
static uint64_t rescaled_channel_state(tm_side *tm, rt_task *t, const msg_deploy *d, bool *ok) {
    uint64_t merged = 0;
    for (uint32_t i = 0; i < d->cs_count; i++) {
        uint64_t f = i == 0 ? d->cs_file : d->cs_more[i - 1];
        if (!store_alive(&tm->w->files, f)) {
            tm->w->stats.restore_failures++;      /* I5: the checkpoint's channel state was deleted */
            *ok = false;
            continue;
        }
        if (!redistribute(tm, t, f, d->cs_old[i], &merged, d->ckpt)) {
            *ok = false;
            if (merged != 0) store_discard(&tm->w->files, merged);
            return 0;
        }
    }
    if (d->cs_count > 0) REACHED(tm->w, RESCALED_CHANNEL_STATE);
    if (merged != 0) store_seal(&tm->w->files, merged);
    return merged;
}

void snap_restore(tm_side *tm, rt_task *t, const msg_deploy *d) {
    t->final_kept = false;                        /* the map is this attempt's from now on */
    bool restored = t->stateful ? restore_keyed(tm, t, d) : t->v->kind == JOB_COMMITTER ? sinkv2_restore(tm, t, d) : true;
    t->eoi_emitted = false;                       /* a writer: its end of input is this attempt's to see */
    t->finish_after_outbox = false;
    uint64_t cs = d->cs_rescaled ? rescaled_channel_state(tm, t, d, &restored) : d->cs_file;
    if (cs != 0 && !store_alive(&tm->w->files, cs)) {
        tm->w->stats.restore_failures++;          /* I5: the checkpoint's channel state was deleted */
        restored = false;
        cs = 0;
    }
    note(tm, t, PIPE_EV_RESTORE, d->ckpt, PIPE_WRITE_KEYED, 0, restored);
    if (t->v->kind == JOB_SINK) sinktx_restore(tm, t, d->ckpt);
    if (t->v->kind == JOB_COMMITTER) sinkv2_commit_restored(tm, t, d->ckpt);
    SIM_ASSERT(t->life == LIFE_RUNNING);          /* start() took it out of RESTORING */
    t->replay_pos = 0;
    if (d->ckpt == 0 && t->epoch > 0) REACHED(tm->w, RESTORE_SCRATCH);
    if (cs != 0) restore_channel_state(tm, t, cs, d->cs_rescaled);
}
