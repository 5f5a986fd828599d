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
 * committable are complete on arrival and commit nothing: not kept, unless
 * a global committer follows (it needs every subtask's summary), and the
 * global committer keeps them until their checkpoint commits. Those grow
 * by one per checkpoint that triggers and does not complete; CMT_MAX per
 * upstream subtask leaves 64 of them (absim's bound: Flink's collector has
 * none), and a collector that fills fails its task (committer_failures). */
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
    /* FLINK-37605: the last checkpoint it observed, at least the restored
     * one ("initialized with max(0, restored id)"), + 1. */
    uint64_t last = t->last_seen_ckpt > t->deploy.ckpt ? t->last_seen_ckpt : t->deploy.ckpt;
    uint64_t ckpt = last + 1;
    bool txn = sinktx_prepare(tm, t, ckpt);
    if (txn) REACHED(tm->w, COMMITTABLES_AT_END);
    emit_for(tm, t, ckpt, txn);
}

/* ---- the committers ----------------------------------------------------- */

/* Its collector's room: an entry per checkpoint and upstream subtask. */
uint32_t sinkv2_cap(const job *j, uint32_t vertex) {
    const job_vertex *x = &j->vertices[vertex];
    SIM_ASSERT(x->kind == JOB_COMMITTER);
    uint32_t up = 1;                              /* a committer: its writer */
    for (uint32_t e = 0; e < j->edges_count && x->global; e++) {
        if (j->edges[e].to == vertex) up = j->vertices[j->edges[e].from].parallelism;
    }
    return up * CMT_MAX;
}

static bool downstream(const rt_task *t) { return t->jt->out_count > 0; }

static rt_cmt *find(rt_task *t, uint64_t ckpt, uint32_t subtask) {
    for (uint32_t i = 0; i < t->cmt_count; i++) {
        if (t->cmt[i].ckpt == ckpt && t->cmt[i].subtask == subtask) return &t->cmt[i];
    }
    return NULL;
}

static void drop(rt_task *t, rt_cmt *e) {
    SIM_ASSERT(e >= t->cmt && e < t->cmt + t->cmt_count);
    *e = t->cmt[--t->cmt_count];                  /* order does not matter: everything goes by checkpoint */
}

/* What Flink's committers throw on: the task fails. */
static void refuse(tm_side *tm, rt_task *t) {
    tm->w->stats.committer_failures++;
    tm->w->stats.committer_refusals++;
    if (!t->failure_reported) t->failure_thrown = true;
    task_fail(tm, t);
}

/* absim's bound on the collector: the task fails, no check of Flink's. */
static void overflow(tm_side *tm, rt_task *t) {
    tm->w->stats.committer_failures++;
    task_fail(tm, t);
}

/* The oldest entry of checkpoint <= upto (committed ones: those waiting
 * to go downstream, when `outbox`), or NULL. */
static rt_cmt *oldest(rt_task *t, uint64_t upto, bool outbox) {
    rt_cmt *e = NULL;
    for (uint32_t i = 0; i < t->cmt_count; i++) {
        rt_cmt *x = &t->cmt[i];
        if (x->ckpt <= upto && x->committed == outbox && (e == NULL || x->ckpt < e->ckpt ||
                                                          (x->ckpt == e->ckpt && x->subtask < e->subtask))) e = x;
    }
    return e;
}

/* The deliberate bug FLINK-36368: the global committer takes every
 * summary as its own (subtask 0 of 1) and merges what arrives for a
 * checkpoint under it, so a checkpoint looks complete once one upstream
 * subtask's committables are in. */
static bool merges(const tm_side *tm, const rt_task *t) {
    return t->v->global && tm->w->cfg.bug == PIPE_BUG_MERGED_SUBTASKS;
}

/* The deliberate bug FLINK-24530 (reported for 1.14's GlobalCommitter):
 * the global committer behind committers commits on its own completion
 * notices (GlobalCommitterOperator with commitOnInput false, the mode for
 * one right behind writers), the checkpoints complete by then, instead of
 * on input (commitOnInput, FLINK-36379: 1.20.1 and 2.0). The committers
 * send a checkpoint's committables only after their own notice, so what
 * arrives after the global committer's last notice is never committed. */
static bool on_notice(const tm_side *tm, const rt_task *t) {
    return t->v->global && tm->w->cfg.bug == PIPE_BUG_GLOBAL_ON_NOTICE;
}

typedef enum { ADDED, DUPLICATE, FULL } added;

static added add_summary(tm_side *tm, rt_task *t, const model_rec *r, uint32_t sub) {
    uint64_t ckpt = r->key;
    uint32_t subtasks = (uint32_t)r->event_time_ns;
    if (merges(tm, t)) sub = 0, subtasks = 1;
    rt_cmt *e = find(t, ckpt, sub);
    note_committables(tm, t, ckpt, (uint32_t)r->value, true);
    if (e != NULL && merges(tm, t)) {
        e->expected = (uint8_t)(e->expected + r->value);
        return ADDED;
    }
    if (e != NULL) return DUPLICATE;              /* "Received duplicate committable summary" (FLINK-25920's check) */
    /* Nothing to commit and nobody downstream to tell: complete on arrival. */
    if (r->value == 0 && !downstream(t) && !t->v->global) return ADDED;
    if (t->cmt_count == t->cmt_cap) return FULL;
    t->cmt[t->cmt_count++] = (rt_cmt){ .ckpt = ckpt, .subtask = (uint16_t)sub, .subtasks = (uint16_t)subtasks,
                                       .expected = (uint8_t)r->value };
    return ADDED;
}

static bool commit_global(tm_side *tm, rt_task *t, uint64_t upto, pipe_txn_why why);

void sinkv2_receive(tm_side *tm, rt_task *t, const model_rec *r) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER && cmt_is_rec(r->id));
    uint32_t sub = (uint32_t)(r->id & 0xffffu);
    if (r->id & CMT_SUMMARY_BIT) {
        added a = add_summary(tm, t, r, sub);
        if (a != ADDED) {
            if (a == DUPLICATE) refuse(tm, t);
            else overflow(tm, t);
            return;
        }
    } else {
        rt_cmt *e = find(t, r->key, merges(tm, t) ? 0 : sub);
        if (e == NULL || e->received >= e->expected) {   /* "Unknown subtask", "Already received all committables" */
            refuse(tm, t);
            return;
        }
        if (e->txns_count == CMT_TXNS_MAX) {      /* only a merged entry (FLINK-36368) holds several: absim's bound */
            overflow(tm, t);
            return;
        }
        e->txn_of[e->txns_count++] = (uint16_t)r->value;
        e->received++;
    }
    /* GlobalCommitterOperator behind committers commits on input, up to
     * the newest checkpoint it heard of (commitOnInput). */
    if (t->v->global && !on_notice(tm, t)) {
        if (r->key > t->cmt_upto) t->cmt_upto = r->key;
        (void)commit_global(tm, t, t->cmt_upto, PIPE_TXN_NOTICE);
    }
}

static void commit_txns(tm_side *tm, rt_task *t, const rt_cmt *e, pipe_txn_why why) {
    for (uint32_t i = 0; i < e->txns_count; i++) (void)sinktx_commit_txn(tm, t, e->txn_of[i], e->ckpt, why);
}

/* A committer's batches up to `upto`, oldest checkpoint first (the
 * collector's headMap); false when one is incomplete and the task failed.
 * With a global committer downstream its own commit is the sink's
 * Committer's, which commits nothing of the external system (a
 * DeltaCommitter's is empty): the batch waits in the collector, marked,
 * until it goes downstream (sinkv2_drain). */
static bool commit_upto(tm_side *tm, rt_task *t, uint64_t upto, pipe_txn_why why) {
    uint32_t batches = 0;
    for (rt_cmt *e; (e = oldest(t, upto, false)) != NULL;) {
        if (e->received < e->expected) {          /* "Trying to commit incomplete batch of committables" */
            refuse(tm, t);
            return false;
        }
        if (downstream(t)) {
            e->committed = true;
        } else {
            commit_txns(tm, t, e, why);
            drop(t, e);
        }
        batches++;
    }
    if (batches > 1) REACHED(tm->w, COMMIT_COVERS_EARLIER);
    if (batches > 0 && upto != UINT64_MAX) tm_note(tm, PIPE_EV_SINK_COMMIT, t, upto);   /* not at end of input */
    return true;
}

/* Whether upstream subtask `sub` of the global committer finished: its end
 * of partition came, after everything it sent (its end of data does not
 * say that: a committer sends its last batches after it). */
static bool upstream_ended(const tm_side *tm, const rt_task *t, uint32_t sub) {
    const job *j = world_job(tm->w);
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        uint32_t producer = j->chans[j->in_chan[t->jt->in_first + i]].producer;
        if (j->tasks[producer].subtask == sub) return gate_ended(&t->g, i);
    }
    return false;
}

/* Checkpoint ckpt's entries at the global committer: complete when every
 * upstream subtask its first summary counts sent one, and each its
 * committables (hasGloballyReceivedAll). An upstream subtask whose input
 * ended sends no summary of a later checkpoint: absim counts it as having
 * sent all it will (Flink's operator waits for it; the open FLINK-38614
 * reports the final checkpoint's committables lost around there). */
static bool globally_complete(const tm_side *tm, rt_task *t, uint64_t ckpt, uint32_t *subtasks, uint32_t *have,
                              uint32_t *ended_out) {
    *subtasks = 0;
    *have = 0;
    bool all = true;
    uint64_t seen = 0;                            /* upstream subtasks with a summary (bit i: subtask i, the first 64) */
    for (uint32_t i = 0; i < t->cmt_count; i++) {
        const rt_cmt *x = &t->cmt[i];
        if (x->ckpt != ckpt) continue;
        if (*subtasks == 0) *subtasks = x->subtasks;
        (*have)++;
        all &= x->received == x->expected;
        if (x->subtask < 64) seen |= 1ull << x->subtask;
    }
    if (!all || *have > *subtasks) return false;
    uint32_t ended = 0;
    for (uint32_t sub = 0; sub < *subtasks && sub < 64; sub++) {
        if (!(seen >> sub & 1) && upstream_ended(tm, t, sub)) ended++;
    }
    if (ended > 0 && *have + ended == *subtasks) REACHED(tm->w, GLOBAL_UPSTREAM_ENDED);
    *ended_out = ended;
    return *have + ended == *subtasks;
}

/* GlobalCommitterOperator.commit: checkpoint by checkpoint up to `upto`,
 * stopping at the first that is not complete (later ones wait). */
static bool commit_global(tm_side *tm, rt_task *t, uint64_t upto, pipe_txn_why why) {
    for (rt_cmt *e; (e = oldest(t, upto, false)) != NULL;) {
        uint64_t ckpt = e->ckpt;
        uint32_t subtasks, have, ended = 0;
        if (!globally_complete(tm, t, ckpt, &subtasks, &have, &ended)) {
            if (have < subtasks) REACHED(tm->w, GLOBAL_WAITS);
            return false;
        }
        if (world_observed(tm->w)) {
            pipe_event ev = { .kind = PIPE_EV_GLOBAL_COMMIT, .task = t->id, .ckpt = ckpt, .count = have,
                              .word_a = subtasks, .word_b = ended, .chan = PIPE_NO_CHAN };
            tm_note_ev(tm, t, &ev);
        }
        for (rt_cmt *x; (x = oldest(t, ckpt, false)) != NULL && x->ckpt == ckpt;) {
            commit_txns(tm, t, x, why);
            drop(t, x);
        }
    }
    return true;
}

/* An upstream committer ended: a checkpoint that waited for it may be
 * complete now. */
void sinkv2_upstream_ended(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER && t->v->global);
    if (!on_notice(tm, t)) (void)commit_global(tm, t, t->cmt_upto, PIPE_TXN_NOTICE);
}

void sinkv2_notified(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    if (!t->v->global) (void)commit_upto(tm, t, ckpt, PIPE_TXN_NOTICE);   /* a global one commits on input */
    if (on_notice(tm, t)) (void)commit_global(tm, t, ckpt, PIPE_TXN_NOTICE);   /* the deliberate bug */
}

/* Checkpointing off: there is no final checkpoint, so CommitterOperator's
 * endInput commits what it holds. With checkpoints, the final one does. */
void sinkv2_end_of_input(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    if (!tm->w->cfg.ckpt.enabled && !t->v->global) (void)commit_upto(tm, t, UINT64_MAX, PIPE_TXN_NOTICE);
}

/* Committed batches still to go downstream. */
uint32_t sinkv2_outbox(const rt_task *t) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->cmt_count; i++) n += t->cmt[i].committed;
    return n;
}

/* One committed batch downstream, oldest first, as CommitterOperator
 * emits after its commit: a summary of its own subtask and parallelism,
 * then the committables, their lineage its own subtask. The caller saw
 * room for a buffer's worth. */
void sinkv2_drain(tm_side *tm, rt_task *t) {
    rt_cmt *e = oldest(t, UINT64_MAX, true);
    SIM_ASSERT(e != NULL && downstream(t) && e->txns_count <= CMT_TXNS_MAX);
    uint64_t sub = t->jt->subtask;
    model_rec summary = { .id = CMT_REC_BIT | CMT_SUMMARY_BIT | sub, .key = e->ckpt, .value = e->txns_count,
                          .event_time_ns = (sim_time_ns)subtasks_of(t) };
    task_emit(tm, t, &summary);
    /* The deliberate bug FLINK-29512 (Flink 1.15's Sink V2, fixed in
     * October 2022): the restored collector's per-subtask managers start
     * at checkpoint 1 while their checkpoint's holder has the right one;
     * the committables go out under 1 behind a summary of the right
     * checkpoint, and the global committer throws ("Unknown subtask"). */
    uint64_t of = e->restored && tm->w->cfg.bug == PIPE_BUG_RESTORED_CKPT_ONE ? 1 : e->ckpt;
    for (uint32_t i = 0; i < e->txns_count; i++) {
        model_rec c = { .id = CMT_REC_BIT | sub, .key = of, .value = e->txn_of[i] };
        task_emit(tm, t, &c);
    }
    note_committables(tm, t, e->ckpt, e->txns_count, false);
    drop(t, e);
}

/* ---- its state ---------------------------------------------------------- */

static rt_cmt *snap_copy(rt_task *t, uint32_t snap) { return t->cmt + (size_t)(snap + 1) * t->cmt_cap; }

void sinkv2_snapshot(tm_side *tm, rt_task *t, uint32_t snap) {
    (void)tm;
    SIM_ASSERT(t->v->kind == JOB_COMMITTER && snap < PIPE_CONCURRENT_MAX + 1);
    memcpy(snap_copy(t, snap), t->cmt, sizeof(rt_cmt) * t->cmt_count);
    t->cmt_snap_count[snap] = t->cmt_count;
}

uint64_t sinkv2_snapshot_entries(const rt_task *t, uint32_t snap) { return t->cmt_snap_count[snap]; }

/* Entry: key = the checkpoint; count = subtask | subtasks << 16 |
 * expected << 32 | received << 40 | committed << 48 | txns << 49;
 * fingerprint: the transactions' writer subtasks, 16 bits each. */
bool sinkv2_write(tm_side *tm, rt_task *t, uint32_t snap, uint64_t file) {
    const rt_cmt *c = snap_copy(t, snap);
    for (uint32_t i = 0; i < t->cmt_snap_count[snap]; i++) {
        kagg agg = { .count = c[i].subtask | (uint64_t)c[i].subtasks << 16 | (uint64_t)c[i].expected << 32 |
                              (uint64_t)c[i].received << 40 | (uint64_t)c[i].committed << 48 |
                              (uint64_t)c[i].txns_count << 49 };
        for (uint32_t k = 0; k < c[i].txns_count; k++) agg.fingerprint |= (uint64_t)c[i].txn_of[k] << (16 * k);
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
    t->cmt_upto = 0;
    if (d->chain.count == 0) return true;
    SIM_ASSERT(d->chain.count == 1);              /* a committer writes full files only */
    uint64_t f = d->chain.files[0], cursor = 0;
    if (!store_alive(&tm->w->files, f)) {
        tm->w->stats.restore_failures++;          /* I5: a file the checkpoint needs was deleted */
        return false;
    }
    store_entry e;
    while (store_next(&tm->w->files, f, &cursor, &e)) {
        SIM_ASSERT(t->cmt_count < t->cmt_cap);    /* it wrote no more */
        uint64_t w = e.agg.count;
        rt_cmt *x = &t->cmt[t->cmt_count++];
        *x = (rt_cmt){ .ckpt = e.key, .subtask = (uint16_t)w, .subtasks = (uint16_t)(w >> 16),
                       .expected = (uint8_t)(w >> 32), .received = (uint8_t)(w >> 40), .committed = (w >> 48) & 1,
                       .txns_count = (uint8_t)((w >> 49) & 0xf), .restored = true };
        for (uint32_t k = 0; k < x->txns_count; k++) x->txn_of[k] = (uint16_t)(e.agg.fingerprint >> (16 * k));
    }
    return true;
}

void sinkv2_commit_restored(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(t->v->kind == JOB_COMMITTER);
    if (t->cmt_count > 0) REACHED(tm->w, COMMITTER_RESTORED);
    t->cmt_upto = ckpt;
    if (t->v->global) (void)commit_global(tm, t, ckpt, PIPE_TXN_RESTORE);
    else (void)commit_upto(tm, t, ckpt, PIPE_TXN_RESTORE);
}
