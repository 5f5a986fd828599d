/* model/tm/sinkv2.c: Sink V2's writer and committer (FLIP-191; the API
 * FLIP-372 renamed in Flink 1.19), as Flink 2.0's SinkWriterOperator and
 * CommitterOperator run them (flink-runtime, org.apache.flink.streaming.
 * runtime.operators.sink), with the end-of-input checkpoint id of
 * FLINK-37605 (2.0.1, backported to 1.19 and 1.20).
 *
 * - The writer writes its records into an open transaction of the external
 *   system (model/tm/sinktx.c, as the two-phase-commit sink does). In
 *   prepareSnapshotPreBarrier, before its barrier goes downstream, it
 *   pre-commits the transaction and emits a CommittableSummary (its
 *   subtask, the number of subtasks, the checkpoint, how many committables
 *   follow) and then each CommittableWithLineage: here one committable at
 *   most, naming its transaction. Nothing after end of input.
 * - At end of input (endInput) it flushes and emits its last committables,
 *   for the checkpoint after the last one it saw (FLINK-37605's "last
 *   observed checkpoint id + 1"; Long.MAX_VALUE, "EOI", before it).
 * - The committer adds what arrives to its CommittableCollector, a summary
 *   per checkpoint and upstream subtask, the committables under it; the
 *   collector is its operator state, copied at the snapshot (snapshotState
 *   stores committableCollector.copy()) and written as a file.
 * - On notifyCheckpointComplete(n) it commits, checkpoint by checkpoint in
 *   ascending order, every batch up to n; a batch whose committables have
 *   not all arrived fails the task ("Trying to commit incomplete batch of
 *   committables", CheckpointCommittableManagerImpl). A duplicate summary
 *   of a checkpoint fails it too ("Received duplicate committable summary",
 *   the check FLINK-25920 added), and so does a committable with no summary
 *   before it ("Unknown subtask").
 * - On a restore (initializeState) it merges the restored collector and
 *   commits up to the restored checkpoint at once; a commit of a
 *   transaction committed already is no error (Kafka's double commit).
 * - With checkpointing off it commits everything at end of input.
 * - The channel from writer to committer takes no part in unaligned
 *   checkpoints (FLINK-36287, Flink 2.0.0 and 1.20): the writer's barrier
 *   goes in band behind the committables, never as a priority barrier,
 *   and the committer aligns (model/tm/snap.c, model/tm/task.c).
 *
 * Bound: a committer's collector holds an entry per checkpoint whose
 * summary announced a committable and which it has not committed; each
 * names a pre-committed transaction still in its writer's log, which holds
 * TXN_MAX at most (a full log fails the writer first). Summaries of no
 * committable are complete on arrival and commit nothing: not kept. So a
 * collector of CMT_MAX per upstream subtask never fills in a run of the
 * protocol; a deliberate bug may fill it, and the committer then fails. */
#include "tm.h"

#include <string.h>

static uint32_t subtasks_of(const rt_task *t) {
    uint32_t p = t->deploy.parallelism[t->jt->vertex];
    return p != 0 ? p : t->v->parallelism;
}

static void note_committables(tm_side *tm, const rt_task *t, uint64_t ckpt, uint32_t count, bool received) {
    if (!world_observed(tm->w)) return;
    pipe_event e = { .kind = PIPE_EV_COMMITTABLES, .task = t->id, .ckpt = ckpt, .count = count, .ok = received,
                     .chan = PIPE_NO_CHAN, .at_end = !received && t->eoi_emitted };
    tm_note_ev(tm, t, &e);
}

/* The summary, then the committable of the transaction if there is one. */
static void emit_for(tm_side *tm, rt_task *t, uint64_t ckpt, bool txn) {
    uint64_t sub = t->jt->subtask;
    model_rec summary = { .id = CMT_REC_BIT | CMT_SUMMARY_BIT | sub, .key = ckpt, .value = txn ? 1 : 0,
                          .event_time_ns = (sim_time_ns)subtasks_of(t) };
    task_emit(tm, t, &summary);
    if (txn) {
        model_rec c = { .id = CMT_REC_BIT | sub, .key = ckpt, .value = (int64_t)sub };
        task_emit(tm, t, &c);
    }
    note_committables(tm, t, ckpt, txn ? 1u : 0u, false);
}

void sinkv2_emit(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(sinkv2_writer(t));
    if (t->eoi_emitted) return;                   /* "no records are expected to emit after endOfInput" */
    emit_for(tm, t, ckpt, sinktx_prepare(tm, t, ckpt));
}

/* The deliberate bug FLINK-26403: the writer leaves its pending
 * committables for the final checkpoint, which no longer emits any after
 * end of input: its last transaction is never committed. */
void sinkv2_end_input(tm_side *tm, rt_task *t) {
    SIM_ASSERT(sinkv2_writer(t));
    if (t->eoi_emitted) return;
    t->eoi_emitted = true;
    if (tm->w->cfg.bug == PIPE_BUG_EOI_COMMITTABLES_KEPT) return;   /* deliberate bug */
    uint64_t ckpt = t->last_seen_ckpt + 1;
    bool txn = sinktx_prepare(tm, t, ckpt);
    if (txn) REACHED(tm->w, COMMITTABLES_AT_END);
    emit_for(tm, t, ckpt, txn);
}

/* ---- the committer ----------------------------------------------------- */

static rt_cmt *find(rt_task *t, uint64_t ckpt, uint32_t subtask) {
    for (uint32_t i = 0; i < t->cmt_count; i++) {
        if (t->cmt[i].ckpt == ckpt && t->cmt[i].subtask == subtask) return &t->cmt[i];
    }
    return NULL;
}

static void drop(rt_task *t, rt_cmt *e) {
    SIM_ASSERT(e >= t->cmt && e < t->cmt + t->cmt_count);
    *e = t->cmt[--t->cmt_count];                  /* order does not matter: commits go by checkpoint */
}

/* What Flink's CommitterOperator throws on: the task fails. */
static void refuse(tm_side *tm, rt_task *t) {
    tm->w->stats.committer_failures++;
    task_fail(tm, t);
}

void sinkv2_receive(tm_side *tm, rt_task *t, const model_rec *r) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER && cmt_is_rec(r->id));
    uint32_t sub = (uint32_t)(r->id & 0xffffu);
    uint64_t ckpt = r->key;
    rt_cmt *e = find(t, ckpt, sub);
    if (r->id & CMT_SUMMARY_BIT) {
        if (e != NULL) {                          /* "Received duplicate committable summary" */
            refuse(tm, t);
            return;
        }
        note_committables(tm, t, ckpt, (uint32_t)r->value, true);
        if (r->value == 0) return;                /* complete, and nothing to commit */
        if (t->cmt_count == CMT_MAX) {              /* one upstream subtask: the writer of its index */
            refuse(tm, t);
            return;
        }
        t->cmt[t->cmt_count++] = (rt_cmt){ .ckpt = ckpt, .subtask = (uint16_t)sub,
                                           .subtasks = (uint16_t)r->event_time_ns, .expected = (uint8_t)r->value };
        return;
    }
    if (e == NULL || e->received >= e->expected) {   /* "Unknown subtask", "Already received all committables" */
        refuse(tm, t);
        return;
    }
    e->received++;
    e->txn_of = (uint16_t)r->value;
}

/* Every batch up to `upto`, oldest checkpoint first (the collector's
 * headMap); false when one is incomplete and the task failed. */
static bool commit_upto(tm_side *tm, rt_task *t, uint64_t upto, pipe_txn_why why) {
    uint32_t batches = 0;
    for (;;) {
        rt_cmt *e = NULL;
        for (uint32_t i = 0; i < t->cmt_count; i++) {
            if (t->cmt[i].ckpt <= upto && (e == NULL || t->cmt[i].ckpt < e->ckpt)) e = &t->cmt[i];
        }
        if (e == NULL) break;
        if (e->received < e->expected) {          /* "Trying to commit incomplete batch of committables" */
            refuse(tm, t);
            return false;
        }
        (void)sinktx_commit_txn(tm, t, e->txn_of, e->ckpt, why);
        drop(t, e);
        batches++;
    }
    if (batches > 1) REACHED(tm->w, COMMIT_COVERS_EARLIER);
    if (batches > 0 && upto != UINT64_MAX) tm_note(tm, PIPE_EV_SINK_COMMIT, t, upto);   /* not at end of input */
    return true;
}

void sinkv2_notified(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    (void)commit_upto(tm, t, ckpt, PIPE_TXN_NOTICE);
}

/* Checkpointing off: there is no final checkpoint, so CommitterOperator's
 * endInput commits what it holds. With checkpoints, the final one does. */
void sinkv2_end_of_input(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    if (!tm->w->cfg.ckpt.enabled) (void)commit_upto(tm, t, UINT64_MAX, PIPE_TXN_NOTICE);
}

/* ---- its state ---------------------------------------------------------- */

static rt_cmt *snap_copy(rt_task *t, uint32_t snap) { return t->cmt + (size_t)(snap + 1) * CMT_MAX; }

void sinkv2_snapshot(tm_side *tm, rt_task *t, uint32_t snap) {
    (void)tm;
    SIM_ASSERT(t->v->kind == JOB_COMMITTER && snap < PIPE_CONCURRENT_MAX + 1);
    memcpy(snap_copy(t, snap), t->cmt, sizeof(rt_cmt) * t->cmt_count);
    t->cmt_snap_count[snap] = t->cmt_count;
}

uint64_t sinkv2_snapshot_entries(const rt_task *t, uint32_t snap) { return t->cmt_snap_count[snap]; }

/* Entry: key = the checkpoint; count = subtask | subtasks << 16 |
 * expected << 32 | received << 40 | txn_of << 48. */
bool sinkv2_write(tm_side *tm, rt_task *t, uint32_t snap, uint64_t file) {
    const rt_cmt *c = snap_copy(t, snap);
    for (uint32_t i = 0; i < t->cmt_snap_count[snap]; i++) {
        kagg agg = { .count = c[i].subtask | (uint64_t)c[i].subtasks << 16 | (uint64_t)c[i].expected << 32 |
                              (uint64_t)c[i].received << 40 | (uint64_t)c[i].txn_of << 48 };
        if (!store_append(&tm->w->files, file, c[i].ckpt, &agg)) return false;
    }
    return true;
}

/* initializeState: the collector of the restored checkpoint (none: an
 * empty one); false when its file is gone. Its batches are committed
 * once the restore is noted (sinkv2_commit_restored). */
bool sinkv2_restore(tm_side *tm, rt_task *t, const msg_deploy *d) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    t->cmt_count = 0;
    if (d->chain.count == 0) return true;
    SIM_ASSERT(d->chain.count == 1);              /* a committer writes full files only */
    uint64_t f = d->chain.files[0], cursor = 0;
    if (!store_alive(&tm->w->files, f)) {
        tm->w->stats.restore_failures++;          /* I5: a file the checkpoint needs was deleted */
        return false;
    }
    store_entry e;
    while (store_next(&tm->w->files, f, &cursor, &e)) {
        SIM_ASSERT(t->cmt_count < CMT_MAX);       /* it wrote no more */
        uint64_t w = e.agg.count;
        t->cmt[t->cmt_count++] = (rt_cmt){ .ckpt = e.key, .subtask = (uint16_t)w, .subtasks = (uint16_t)(w >> 16),
                                           .expected = (uint8_t)(w >> 32), .received = (uint8_t)(w >> 40),
                                           .txn_of = (uint16_t)(w >> 48) };
    }
    return true;
}

void sinkv2_commit_restored(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    if (t->cmt_count > 0) REACHED(tm->w, COMMITTER_RESTORED);
    (void)commit_upto(tm, t, ckpt, PIPE_TXN_RESTORE);
}
