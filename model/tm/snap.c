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
#define CS_RECORD_BYTES   ((uint64_t)sizeof(model_rec))


static rt_snap *snap_of(rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->snaps[i].ckpt == ckpt && ckpt != 0) return &t->snaps[i];
    }
    return NULL;
}

static void snap_free(rt_task *t, rt_snap *sn) {
    if (t->stateful && sn->ksnap != UINT32_MAX) kstate_snap_end(&t->state, sn->ksnap);
    if (sn->syncing) {
        SIM_ASSERT(t->syncing > 0);
        t->syncing--;
    }
    memset(sn, 0, sizeof *sn);
    sn->ksnap = UINT32_MAX;
}

static uint32_t device_of(const tm_side *tm) {
    return tm->w->cfg.state.backend == PIPE_BACKEND_DURABLE ? tm->w->store_dev : tm->w->memory_dev;
}

/* Snapshot steps for the observers (checkers see the writes and the
 * acknowledgement, so they can tell an ack that came before its data). */
static void note(tm_side *tm, const rt_task *t, pipe_ev_kind kind, uint64_t ckpt, pipe_write what, uint64_t bytes, bool ok) {
    if (!world_observed(tm->w)) return;
    pipe_event e = { .kind = kind, .task = t->id, .ckpt = ckpt, .chan = PIPE_NO_CHAN, .what = what, .bytes = bytes, .ok = ok };
    tm_note_ev(tm, &e);
}

static void write_part(tm_side *tm, rt_task *t, rt_snap *sn, pipe_write what, uint64_t bytes) {
    note(tm, t, PIPE_EV_WRITE, sn->ckpt, what, bytes, true);
    dev_write(tm->w->run, device_of(tm), t->actor, bytes, sn->ckpt << 2 | (what == PIPE_WRITE_KEYED ? IO_KEYED : IO_CHANNELS));
    sn->io_pending++;
}

/* The acknowledgement carries the snapshot's keyed-state handle. */
static void send_ack(tm_side *tm, rt_task *t, const rt_snap *sn) {
    note(tm, t, PIPE_EV_ACK, sn->ckpt, PIPE_WRITE_KEYED, 0, true);
    msg_ack a = { .chain = sn->chain, .bytes = sn->chain_bytes };
    sim_msg m = { .type = MSG_ACK, .a = sn->ckpt, .b = (t->epoch << 32) | t->id };
    link_send_payload(tm->w->run, t->rpc_to_coord, &m, 64, &a, sizeof a);
}

/* The task's own references to a chain it wrote go (confirmed, aborted,
 * or the task restored): the coordinator holds its own. */
static void release_chain(tm_side *tm, rt_chain *c) {
    for (uint32_t i = 0; i < c->count; i++) {
        if (store_alive(&tm->w->files, c->files[i])) store_unref(&tm->w->files, c->files[i]);
    }
    memset(c, 0, sizeof *c);
}

/* ---- channel state (unaligned) ----------------------------------------- */

static void persist(tm_side *tm, rt_task *t, rt_snap *sn, const rt_chan *c, const chan_buf *b, bool output) {
    if (b->kind != BUF_DATA || b->count == 0) return;
    if (tm->w->cfg.bug == PIPE_BUG_NO_CHANNEL_STATE) return;                       /* deliberate bugs */
    if (tm->w->cfg.bug == PIPE_BUG_SECOND_INPUT_STATE && !output && c->input == 1) return;
    if (output) REACHED(tm->w, PRIORITY_OVERTOOK); else REACHED(tm->w, INPUT_CHANNEL_STATE);
    sn->cs_records += b->count;
    tm->w->stats.cs_bytes += b->count * CS_RECORD_BYTES;
    if (world_observed(tm->w)) {
        pipe_event e = { .kind = PIPE_EV_CHANNEL_STATE, .task = t->id, .ckpt = sn->ckpt, .chan = c->id, .count = b->count };
        tm_note_ev(tm, &e);
    }
    for (uint32_t i = 0; i < b->count; i++) {
        rt_cs_rec r = { .rec = b->recs[i], .chan = c->id, .output = output };
        if (!bridge_cs_add(tm->w, t->epoch, sn->ckpt, &r)) return;
    }
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

/* The barrier overtakes the output queue: what was produced but not sent
 * is channel state; the barrier goes out as a priority message. */
static void priority_barriers(tm_side *tm, rt_task *t, rt_snap *sn) {
    for (uint32_t i = 0; i < t->jt->out_count; i++) {
        rt_chan *c = task_out_chan(tm, t, i);
        uint64_t end = c->filled + (c->filling ? 1 : 0);
        for (uint64_t n = c->sent; n < end; n++) persist(tm, t, sn, c, task_buf(c, n), true);
        sim_msg m = { .type = MSG_PRIORITY, .a = c->id, .b = sn->ckpt };
        if (!link_send(tm->w->run, c->data_link, &m, 64)) task_fail(tm, t);
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
    snap_free(t, sn);
    REACHED(tm->w, DECLINE_SENT);
    tm_note(tm, PIPE_EV_DECLINE, t->id, 0, ckpt);
    task_rpc(tm, t, MSG_DECLINE, ckpt);
}

static void maybe_ack(tm_side *tm, rt_task *t, rt_snap *sn) {
    if (tm->w->cfg.bug == PIPE_BUG_EARLY_ACK && !sn->syncing && !sn->acked) {   /* deliberate bug */
        sn->acked = true;
        send_ack(tm, t, sn);                       /* before its files exist: no handle in it */
    }
    if (sn->syncing || sn->io_pending > 0 || sn->collecting || sn->out_waiting) return;
    bool failed = sn->failed && tm->w->cfg.bug != PIPE_BUG_ACK_FAILED_WRITE;   /* the deliberate bug: not looked at */
    if (failed || bridge_cs_overflow(tm->w, t->epoch, sn->ckpt)) {
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
    tm_note(tm, PIPE_EV_SNAPSHOT_ASYNC, t->id, 0, ckpt);
    if (!acked) send_ack(tm, t, sn);
    snap_free(t, sn);
}

static void write_channel_state(tm_side *tm, rt_task *t, rt_snap *sn) {
    if (sn->cs_records == 0) return;
    write_part(tm, t, sn, PIPE_WRITE_CHANNELS, sn->cs_records * CS_RECORD_BYTES);
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
        for (uint64_t n = c->sent; n < at; n++) persist(tm, t, sn, c, task_buf(c, n), true);
        chan_buf *b = task_buf(c, at);
        b->kind = BUF_DATA;                       /* the in-band barrier is gone: an empty buffer */
        b->count = 0;
        sim_msg m = { .type = MSG_PRIORITY, .a = c->id, .b = ckpt };
        if (!link_send(tm->w->run, c->data_link, &m, 64)) task_fail(tm, t);
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

/* Incremental when on, a confirmed base exists whose files all live, and
 * the chain is not at its length limit. */
static bool incremental(const tm_side *tm, const rt_task *t) {
    return tm->w->cfg.state.incremental && chain_alive(tm, &t->base) && t->base.count <= tm->w->cfg.state.full_every;
}

static uint64_t keyed_entries(const tm_side *tm, const rt_task *t, const rt_snap *sn) {
    bool incr = incremental(tm, t);
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
static void materialize(tm_side *tm, rt_task *t, rt_snap *sn) {
    bool incr = incremental(tm, t) && tm->w->cfg.bug != PIPE_BUG_NO_COW;
    reach_kind(tm, t, incr);
    uint64_t f = incr && tm->w->cfg.bug == PIPE_BUG_REGISTRY_BY_NAME ? registered_as(tm, t, sn->ckpt) : 0;   /* deliberate bug */
    if (f == 0) f = write_file(tm, t, sn, incr);
    if (f == 0) {
        sn->failed = true;
        return;
    }
    rt_chain c = { .ckpt = sn->ckpt, .version = kstate_snap_version(&t->state, sn->ksnap) };
    if (incr) {
        c.count = t->base.count;
        memcpy(c.files, t->base.files, sizeof(uint64_t) * t->base.count);
    }
    c.files[c.count++] = f;
    tm->w->stats.files_created++;
    tm->w->stats.files_shared += c.count - 1;
    uint32_t i = 0;                               /* remembered until confirmed or aborted */
    while (i < PIPE_CONCURRENT_MAX + 1 && t->recent[i].ckpt != 0) i++;
    SIM_ASSERT(i < PIPE_CONCURRENT_MAX + 1);      /* one per snapshot the task holds at most */
    for (uint32_t k = 0; k < c.count; k++) store_ref(&tm->w->files, c.files[k]);
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

void snap_trigger(tm_side *tm, rt_task *t, uint64_t ckpt, bool unaligned_gate) {
    if (ckpt > t->last_seen_ckpt) t->last_seen_ckpt = ckpt;
    if (known_aborted(t, ckpt)) {
        /* Flink 1.15 (checkAndClearAbortedStatus): no snapshot of a
         * checkpoint known to be aborted; cancel markers downstream, so
         * no alignment waits for its barriers. */
        REACHED(tm->w, ABORTED_BEFORE_TRIGGER);
        tm_note(tm, PIPE_EV_DECLINE, t->id, 1, ckpt);   /* 1: aborted already, no decline sent */
        for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_CANCEL, ckpt);
        return;
    }
    if (t->jt->in_count > 0) {                    /* from its first barrier to the trigger */
        sim_time_ns align = tm->w->run->now_ns - t->align_start_ns;
        tm->w->stats.alignment_ns_sum += align;
        if (align > tm->w->stats.alignment_ns_max) tm->w->stats.alignment_ns_max = align;
        tm->w->stats.alignments++;
    }
    rt_snap *sn = NULL;
    uint32_t busy = 0;
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->snaps[i].ckpt != 0) busy++; else if (sn == NULL) sn = &t->snaps[i];
    }
    /* Too many still writing: decline this one. A guard, not a protocol
     * situation: a task snapshots only checkpoints not known to be
     * aborted, and abort notices come within an RPC latency, far below a
     * checkpoint timeout, so no campaign gets here (a lost or long-delayed
     * notice, once the model has them, could). */
    if (busy >= tm->snaps_max) {
        REACHED(tm->w, DECLINE_SENT);
        tm->w->stats.async_failures++;
        tm_note(tm, PIPE_EV_DECLINE, t->id, 0, ckpt);
        task_rpc(tm, t, MSG_DECLINE, ckpt);
        for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_CANCEL, ckpt);
        return;
    }
    SIM_ASSERT(sn != NULL);
    if (busy > 0) REACHED(tm->w, TWO_SNAPSHOTS);
    sn->ckpt = ckpt;
    sn->ksnap = UINT32_MAX;
    sn->sync_start_ns = tm->w->run->now_ns;
    bool unaligned = tm->w->cfg.ckpt.mode == PIPE_UNALIGNED || unaligned_gate;
    if (unaligned) {
        tm->w->stats.unaligned_triggers++;
        priority_barriers(tm, t, sn);
        /* The deliberate bug switch-no-queued-input: a checkpoint
         * that switched at the alignment timeout keeps no queued input. */
        if (tm->w->cfg.ckpt.mode == PIPE_UNALIGNED || tm->w->cfg.bug != PIPE_BUG_SWITCH_NO_QUEUED) persist_inputs(tm, t, sn);
        sn->collecting = t->jt->in_count > 0 && gate_unaligned_pending(&t->g) && t->g.current == ckpt;
    } else {
        for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), BUF_BARRIER, ckpt);
        /* Aligned with a timeout: a barrier stuck behind queued output
         * turns unaligned once the checkpoint is older than the timeout. */
        sim_time_ns started_ns;
        if (tm->w->cfg.ckpt.alignment_timeout_ns > 0 && bridge_pending(tm->w, t->epoch, ckpt, &started_ns) &&
            barrier_queued(tm, t, ckpt)) {
            sn->out_waiting = true;
            sim_time_ns due = started_ns + tm->w->cfg.ckpt.alignment_timeout_ns, now = tm->w->run->now_ns;
            sim_timer_set(tm->w->run, t->actor, due > now ? due - now : 0, TIMER_OUTPUT_BASE + ckpt);
        }
    }
    tm_note(tm, PIPE_EV_TRIGGER, t->id, unaligned, ckpt);
    /* The synchronous part. */
    uint64_t *offsets = t->v->kind == JOB_SOURCE ? bridge_offsets(tm->w, t->epoch, ckpt) : NULL;
    if (offsets != NULL) {
        uint64_t skew = tm->w->cfg.bug == PIPE_BUG_OFFSET_OFF_BY_ONE;   /* deliberate bug */
        for (uint32_t i = 0; i < t->parts_count; i++) {
            uint32_t part = t->jt->subtask + i * t->v->parallelism;
            offsets[part] = tm->offsets[part] + skew;
        }
    }
    if (t->v->kind == JOB_SINK) sinktx_precommit(tm, t, ckpt);
    if (t->stateful) sn->ksnap = kstate_snap_begin(&t->state);
    sn->syncing = true;
    t->syncing++;
    sim_timer_set(tm->w->run, t->actor, tm->w->cfg.state.sync_ns, TIMER_SYNC_DONE);
}

/* The task stood still from the trigger until now; it goes on. */
static void sync_part_over(tm_side *tm, rt_task *t, rt_snap *sn) {
    sim_time_ns sync = tm->w->run->now_ns - sn->sync_start_ns;
    tm->w->stats.sync_ns_sum += sync;
    tm->w->stats.sync_parts++;
    if (sync > tm->w->stats.sync_ns_max) tm->w->stats.sync_ns_max = sync;
    sn->syncing = false;
    SIM_ASSERT(t->syncing > 0);
    t->syncing--;
}

void snap_sync_done(tm_side *tm, rt_task *t) {
    rt_snap *sn = NULL;                           /* sync parts take equal time: oldest first */
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        rt_snap *x = &t->snaps[i];
        if (x->ckpt != 0 && x->syncing && x->io_pending == 0 && (sn == NULL || x->ckpt < sn->ckpt)) sn = x;
    }
    if (sn == NULL) return;                       /* declined meanwhile */
    tm_note(tm, PIPE_EV_SNAPSHOT_SYNC, t->id, 0, sn->ckpt);
    sn->async_start_ns = tm->w->run->now_ns;
    if (t->stateful) {
        write_part(tm, t, sn, PIPE_WRITE_KEYED, 64 + keyed_entries(tm, t, sn) * STATE_ENTRY_BYTES);
    }
    if (!sn->collecting) write_channel_state(tm, t, sn);
    if (tm->w->cfg.state.async || sn->io_pending == 0) sync_part_over(tm, t, sn);   /* the task goes on now */
    maybe_ack(tm, t, sn);
    task_pump(tm, t);
}

void snap_io_done(tm_side *tm, rt_task *t, const sim_event *ev) {
    uint64_t ckpt = ev->msg.a >> 2, what = ev->msg.a & 3;
    rt_snap *sn = snap_of(t, ckpt);
    if (sn == NULL) return;                       /* declined meanwhile */
    SIM_ASSERT(sn->io_pending > 0);
    sn->io_pending--;
    note(tm, t, PIPE_EV_WRITE_DONE, ckpt, what == IO_KEYED ? PIPE_WRITE_KEYED : PIPE_WRITE_CHANNELS, 0, ev->gen != DEV_FAILED);
    if (ev->gen == DEV_FAILED) {
        sn->failed = true;
    } else if (what == IO_KEYED) {
        materialize(tm, t, sn);
    }
    if (sn->syncing && sn->io_pending == 0) {     /* synchronous snapshots: the task resumes */
        sync_part_over(tm, t, sn);
        maybe_ack(tm, t, sn);
        task_pump(tm, t);
        return;
    }
    maybe_ack(tm, t, sn);
}

/* Drops what the snapshot holds. It may end a synchronous part the task
 * waits for: a caller outside the task's pump loop pumps afterwards (the
 * loop itself re-checks, and pumping from inside it would re-enter it). */
void snap_abort(rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {   /* its files are no longer the task's to keep */
        if (t->recent[i].ckpt == ckpt && ckpt != 0) release_chain(t->owner, &t->recent[i]);
    }
    rt_snap *sn = snap_of(t, ckpt);
    if (sn == NULL) return;
    snap_free(t, sn);
    tm_note(t->owner, PIPE_EV_SNAPSHOT_DROPPED, t->id, 0, ckpt);
}

void snap_confirmed(tm_side *tm, rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {   /* older ones are subsumed: stop them */
        if (t->snaps[i].ckpt == 0 || t->snaps[i].ckpt >= ckpt) continue;
        uint64_t old = t->snaps[i].ckpt;
        snap_free(t, &t->snaps[i]);
        tm_note(tm, PIPE_EV_SNAPSHOT_DROPPED, t->id, 0, old);
    }
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        rt_chain *c = &t->recent[i];
        if (c->ckpt == 0 || c->ckpt > ckpt) continue;
        if (c->ckpt == ckpt) t->base = *c;       /* the retained checkpoint keeps its files alive */
        release_chain(tm, c);
    }
    if (t->v->kind == JOB_SINK) sinktx_commit(tm, t, ckpt);
}

/* A finished task's final keyed state, for the checkpoints the
 * coordinator acknowledges on its behalf (FLIP-147). */
void snap_finish(tm_side *tm, rt_task *t) {
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
    store_ref(&tm->w->files, f);                      /* the task's own reference */
    t->final_file = f;
}

/* ---- restore ------------------------------------------------------------- */

void snap_reset(tm_side *tm, rt_task *t) {
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) {
        if (t->snaps[i].ckpt != 0) snap_free(t, &t->snaps[i]);
        t->snaps[i].ksnap = UINT32_MAX;
        release_chain(tm, &t->recent[i]);
    }
    t->syncing = 0;
    if (t->final_file != 0 && store_alive(&tm->w->files, t->final_file)) store_unref(&tm->w->files, t->final_file);
    t->final_file = 0;
    memset(&t->base, 0, sizeof t->base);
    t->prio_count = 0;
    t->align_timer = 0;
    bridge_restore_view s = bridge_restore(tm->w);
    bool restored = true;
    if (t->stateful) {
        kstate_clear(&t->state);
        if (s.ckpt != 0 && s.chains[t->id].count > 0) {
            const rt_chain *c = &s.chains[t->id];
            if (!store_restore(&tm->w->files, c->files, c->count, &t->state)) {
                tm->w->stats.restore_failures++;      /* I5: a file the checkpoint needs was deleted */
                restored = false;
                kstate_clear(&t->state);
            } else {
                t->base = *c;
                if (c->count > 1) REACHED(tm->w, RESTORE_CHAIN);
            }
        }
        /* Restored entries are version 1; new writes must come after. */
        kstate_snap_end(&t->state, kstate_snap_begin(&t->state));
        t->base.version = kstate_version(&t->state) - 1;
    }
    note(tm, t, PIPE_EV_RESTORE, s.ckpt, PIPE_WRITE_KEYED, 0, restored);
    if (t->v->kind == JOB_SINK) sinktx_restore(tm, t, s.ckpt);
    t->replaying = false;
    t->replay_pos = 0;
    if (s.ckpt == 0 && tm->w->stats.restarts > 0) REACHED(tm->w, RESTORE_SCRATCH);
    if (s.ckpt == 0) return;
    bool cs = false;
    for (uint32_t i = 0; i < s.cs_count; i++) {   /* output channel state goes out first */
        const rt_cs_rec *r = &s.cs[i];
        if (r->output && tm->chans[r->chan].producer == t->id) {
            task_emit_to(tm, &tm->chans[r->chan], &r->rec);
            cs = true;
        }
        if (!r->output && tm->chans[r->chan].consumer == t->id) {
            t->replaying = tm->w->cfg.bug != PIPE_BUG_NO_REPLAY;
            cs = true;
        }
    }
    if (cs) REACHED(tm->w, RESTORE_CHANNEL_STATE);
}
