/* model/tm/sinktx.c: how a sink's output becomes visible (README.md P10).
 *
 * - plain: every record is visible when the sink processes it, so a
 *   replay after a restore shows it again (at-least-once end to end).
 * - idempotent: an upsert by record id; a replayed record overwrites
 *   itself, so each is visible once.
 * - two-phase commit (Flink's TwoPhaseCommitSinkFunction): records go into
 *   the open transaction of the external system; on barrier n the sink
 *   pre-commits it (for checkpoint n) and opens a new one; on the
 *   completion notice for n it commits every pre-committed transaction
 *   with id <= n; on a restore from checkpoint k the transactions the
 *   checkpoint recorded as pre-committed (id <= k) are committed and every
 *   other one is aborted. Only committed records are visible.
 *
 * The transactions live in the external system (the pipeline, not the
 * task), so a crash of the sink leaves them for the restore to resolve.
 * They cover consecutive ranges of a ring of record indexes per sink task
 * and always resolve oldest first; a ring that fills up fails the sink
 * (its transaction would be too large), which restarts the job. */
#include "tm.h"



/* A window result made visible: its window-key's value is the highest
 * firing's (a firing made visible again writes the same row), and the
 * highest value any firing showed is kept apart: after an at-least-once
 * restore a purged window may fire again with only the replayed records,
 * a lower value under the same firing, while its full value was seen. */
static void result_value(tm_side *tm, uint64_t i, int64_t value) {
    const pipe_world *w = tm->w;
    if (i < w->brk.records) return;
    uint64_t wkey = (i - w->brk.records) / WIN_FIRINGS_MAX;
    uint8_t top = (uint8_t)((i - w->brk.records) % WIN_FIRINGS_MAX + 1);
    SIM_ASSERT(wkey < w->res_count);
    if (w->res_top[wkey] == 0 || value > w->res_most[wkey]) w->res_most[wkey] = value;
    if (top < w->res_top[wkey]) return;
    w->res_top[wkey] = top;
    w->res_value[wkey] = value;
}

/* A record becomes visible now. Its event-time latency is now minus the
 * broker's event time, (offset + 1) * gap of its topic: meaningful when
 * the sources read at the rate the broker produces (a source reading
 * ahead of event time counts 0). */
static inline void latency(tm_side *tm, sim_time_ns event_ns) {
    sim_time_ns now = tm->w->run->now_ns;
    sim_time_ns d = now > event_ns ? now - event_ns : 0;
    tm->w->stats.latency_ns_sum += d;
    if (d > tm->w->stats.latency_ns_max) tm->w->stats.latency_ns_max = d;
}

/* The event time of record i (broker_index), for a transaction's records,
 * which the log keeps by index: the record's own, disorder included, as
 * the other sinks take it from the record. */
static sim_time_ns event_of(const tm_side *tm, uint64_t i) {
    const broker_topic *t = tm->w->brk.topic;
    if (i >= tm->w->brk.records) {                /* a window result: its window's last timestamp */
        const pipe_world *w = tm->w;
        uint64_t wkey = (i - w->brk.records) / WIN_FIRINGS_MAX;
        uint32_t v = 0;
        while (w->res_windows[v] == 0 || wkey >= w->res_first[v] + w->res_windows[v] * w->res_keys) v++;
        return (sim_time_ns)win_max_ts(&w->cfg.graph.vertices[v], (wkey - w->res_first[v]) / w->res_keys);
    }
    while (i >= t->end_record) t++;               /* one comparison with one topic */
    uint64_t per = t->cfg.records_per_partition, at = i - t->first_record;
    return broker_event_time(&t->cfg, t->first + (uint32_t)(at / per), at % per);
}

/* sink_seen[i]: the low 7 bits count the copies plain and two-phase-commit
 * sinks made visible (saturating at 127), the top bit says an idempotent
 * sink upserted it (once, however often it is written), so the count does
 * not depend on the order the sinks wrote in. */
static inline __attribute__((always_inline)) void visible(tm_side *tm, uint64_t i, sim_time_ns event_ns) {
    if ((tm->w->sink_seen[i] & 0x7f) < 0x7f) tm->w->sink_seen[i]++;
    tm->w->stats.visible_records++;
    latency(tm, event_ns);
}

/* The external system fences a producer of an older attempt than the
 * one that last restored the sink (Kafka's producer epoch, bumped by
 * initTransactions): a zombie's writes and commits are refused. Not with
 * the deliberate bug no-fencing, which checks no attempt anywhere. */
static bool txlog_fenced(tm_side *tm, const rt_task *t) {
    if (t->epoch >= t->txlog->epoch || tm->w->cfg.bug == PIPE_BUG_NO_FENCING) return false;
    REACHED(tm->w, TXN_FENCED);
    tm->w->stats.fenced_data++;
    return true;
}

static rt_txn *txn_at(rt_txlog *l, uint32_t k) {     /* k-th oldest */
    SIM_ASSERT(k < l->count);
    return &l->txns[(l->first + k) % TXN_MAX];
}

static rt_txn *open_txn(rt_txlog *l) {
    if (l->count > 0 && txn_at(l, l->count - 1)->state == TXN_OPEN) return txn_at(l, l->count - 1);
    if (l->count == TXN_MAX) return NULL;
    rt_txn *x = &l->txns[(l->first + l->count++) % TXN_MAX];
    *x = (rt_txn){ .ckpt = 0, .first = l->tail, .end = l->tail, .state = TXN_OPEN };
    return x;
}

static void settle(rt_txlog *l) {
    while (l->count > 0 && (txn_at(l, 0)->state == TXN_COMMITTED || txn_at(l, 0)->state == TXN_ABORTED)) {
        l->head = txn_at(l, 0)->end;
        l->first = (l->first + 1) % TXN_MAX;
        l->count--;
    }
}

/* Transaction x of log l resolved by task `by` (a two-phase-commit sink,
 * a Sink V2 committer that commits it, or a writer that aborts it on its
 * restore): resolved where it is, and gone once every older one is. */
static void resolve_at(tm_side *tm, rt_task *by, rt_txlog *l, rt_txn *x, bool commit, pipe_txn_why why) {
    if (world_observed(tm->w)) {
        pipe_event e = { .kind = PIPE_EV_TXN, .task = by->id, .txn_why = why, .chan = PIPE_NO_CHAN,
                         .ckpt = x->state == TXN_OPEN ? 0 : x->ckpt, .count = (uint32_t)(x->end - x->first),
                         .ok = commit };
        tm_note_ev(tm, by, &e);
    }
    if (commit) {
        for (uint64_t i = x->first; i < x->end; i++) {
            uint64_t k = l->recs[i % l->cap];
            visible(tm, k, event_of(tm, k));
            if (l->vals != NULL) result_value(tm, k, l->vals[i % l->cap]);
        }
        tm->w->stats.txn_committed++;
    } else {
        tm->w->stats.txn_aborted++;
    }
    x->state = commit ? TXN_COMMITTED : TXN_ABORTED;
    settle(l);
}

/* A two-phase-commit sink resolves its oldest transaction. */
static void resolve_first(tm_side *tm, rt_task *t, bool commit, pipe_txn_why why) {
    rt_txlog *l = t->txlog;
    SIM_ASSERT(txn_at(l, 0)->first == l->head);
    resolve_at(tm, t, l, txn_at(l, 0), commit, why);
}

static void overflow(tm_side *tm, rt_task *t) {
    tm->w->stats.txn_overflows++;
    task_fail(tm, t);
}

/* Record r, at index i of the external system (a window's result when
 * `result`: inlined twice, so a broker record's path knows no results). */
static inline __attribute__((always_inline)) void write_at(tm_side *tm, rt_task *t, const model_rec *r, uint64_t i,
                                                           bool result) {
    switch (t->v->sink) {
    case JOB_SINK_PLAIN:
        visible(tm, i, r->event_time_ns);
        if (result) result_value(tm, i, r->value);
        return;
    case JOB_SINK_IDEMPOTENT:                     /* upsert: a replay overwrites the same row */
        if (tm->w->sink_seen[i] & 0x80) {             /* visible already: nothing new to see */
            REACHED(tm->w, IDEMPOTENT_OVERWRITE);
            tm->w->stats.overwrites++;
            return;
        }
        tm->w->sink_seen[i] |= 0x80;
        if (result) result_value(tm, i, r->value);
        tm->w->stats.visible_records++;
        latency(tm, r->event_time_ns);
        return;
    case JOB_SINK_2PC:
    case JOB_SINK_V2: {                           /* a Sink V2 writer writes into its transaction likewise */
        rt_txlog *l = t->txlog;
        if (txlog_fenced(tm, t)) return;
        rt_txn *x = open_txn(l);
        if (x == NULL || l->tail - l->head == l->cap) {
            overflow(tm, t);
            return;
        }
        SIM_ASSERT(i <= UINT32_MAX);              /* pipe.c bounds records and results to 2^31 */
        if (l->vals != NULL) l->vals[l->tail % l->cap] = r->value;
        l->recs[l->tail++ % l->cap] = (uint32_t)i;
        x->end = l->tail;
        return;
    }
    }
}

void sinktx_write_result(tm_side *tm, rt_task *t, const model_rec *r) {
    SIM_ASSERT(win_is_result(r->id));
    write_at(tm, t, r, world_result_index(tm->w, r->id), true);
}

void sinktx_write(tm_side *tm, rt_task *t, const model_rec *r) {
    write_at(tm, t, r, broker_index(&tm->w->brk, rec_partition(r), rec_offset(r)), false);
}

void sinktx_commit(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (t->v->sink != JOB_SINK_2PC || txlog_fenced(tm, t)) return;
    rt_txlog *l = t->txlog;
    uint32_t n = 0;
    /* The deliberate bug FLINK-10377: a notice is taken to name exactly
     * one transaction, so one left by an aborted or subsumed checkpoint
     * stays open, and every later one waits behind it. */
    bool exact = tm->w->cfg.bug == PIPE_BUG_COMMIT_ONLY_NOTIFIED;
    while (l->count > 0 && txn_at(l, 0)->state == TXN_PRECOMMITTED &&
           (exact ? txn_at(l, 0)->ckpt == ckpt : txn_at(l, 0)->ckpt <= ckpt)) {
        resolve_first(tm, t, true, PIPE_TXN_NOTICE);
        n++;
    }
    bool any = n > 0;
    if (n > 1) REACHED(tm->w, COMMIT_COVERS_EARLIER);
    if (any) tm_note(tm, PIPE_EV_SINK_COMMIT, t, ckpt);
}

void sinktx_precommit(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (t->v->sink != JOB_SINK_2PC || txlog_fenced(tm, t)) return;
    rt_txlog *l = t->txlog;
    if (l->count == 0 || txn_at(l, l->count - 1)->state != TXN_OPEN) return;   /* nothing written */
    rt_txn *x = txn_at(l, l->count - 1);
    x->state = TXN_PRECOMMITTED;
    x->ckpt = ckpt;
    if (tm->w->cfg.bug == PIPE_BUG_EARLY_COMMIT) sinktx_commit(tm, t, ckpt);   /* deliberate bug */
}

/* recoverAndCommit of t's log from checkpoint ckpt: its pre-committed
 * transactions up to ckpt are committed, the others aborted. */
static void resolve_log(tm_side *tm, rt_task *t, uint64_t ckpt) {
    rt_txlog *l = t->txlog;
    l->epoch = t->epoch;                          /* older attempts are fenced from now on */
    bool any = false;
    while (l->count > 0) {
        rt_txn *x = txn_at(l, 0);
        bool commit = x->state == TXN_PRECOMMITTED && (x->ckpt <= ckpt || tm->w->cfg.bug == PIPE_BUG_RESTORE_COMMITS_ALL);
        any |= commit;
        if (commit) REACHED(tm->w, TXN_COMMITTED_ON_RESTORE); else REACHED(tm->w, TXN_ABORTED_ON_RESTORE);
        resolve_first(tm, t, commit, PIPE_TXN_RESTORE);
    }
    SIM_ASSERT(l->head == l->tail);
    if (any) tm_note(tm, PIPE_EV_SINK_COMMIT, t, ckpt);
}

void sinktx_restore(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (t->v->sink == JOB_SINK_V2) sinktx_v2_restore(tm, t, ckpt);
    if (t->v->sink != JOB_SINK_2PC || txlog_fenced(tm, t)) return;
    resolve_log(tm, t, ckpt);
    sinktx_adopt(tm, t, ckpt);
}

/* Rescaling down: the transactions of the old subtasks above the
 * attempt's parallelism p are the external system's still, and subtask
 * i of p takes over those of subtasks i + p, i + 2p, ... (as a sink's
 * committables are redistributed on a rescale, and its lingering
 * transactions of subtasks that no longer run are aborted): resolved as
 * its own, its attempt fencing their old producers. The log is t's for
 * the while (a task resolves through its own), so the steps are t's. */
void sinktx_adopt(tm_side *tm, rt_task *t, uint64_t ckpt) {
    uint32_t p = t->deploy.parallelism[t->jt->vertex];
    if (p == 0 || t->jt->subtask + p >= t->v->parallelism) return;
    SIM_ASSERT(tm->hosts == 1);                  /* a rescale runs without slots: an instance per task */
    rt_txlog *own = t->txlog;
    uint32_t first = world_job(tm->w)->vertex_first_task[t->jt->vertex];
    for (uint32_t s = t->jt->subtask + p; s < t->v->parallelism; s += p) {
        t->txlog = tm->tasks[first + s].txlog;
        if (t->txlog->count > 0) REACHED(tm->w, TXN_ADOPTED);
        resolve_log(tm, t, ckpt);
    }
    t->txlog = own;
}

/* The task finishes: what it wrote after the barrier of its final
 * checkpoint (nothing, as end of data comes first) is pre-committed for
 * the first checkpoint the task will not see, last_seen + 1: the
 * coordinator acknowledges every later one on the finished sink's behalf
 * (FLIP-147), so any of them that completes holds it, and a restore from
 * one commits it. Without checkpoints after tasks finish (Flink up to
 * 1.13), or with no checkpoints at all, the sink closes instead and its
 * open transaction is never committed (TwoPhaseCommitSinkFunction commits
 * on a completion notice or a restore only, and close() aborts it;
 * FLIP-147 Part One: that data "finally gets lost"): it stays open here,
 * and a restore aborts it. (Sink V2's CommitterOperator commits what is
 * left at end of input when checkpointing is off; absim's two-phase-commit
 * sink is TwoPhaseCommitSinkFunction, not Sink V2.) */
void sinktx_finish(tm_side *tm, rt_task *t) {
    const pipe_ckpt_cfg *ck = &tm->w->cfg.ckpt;
    if (t->v->sink != JOB_SINK_2PC || ck->finished_tasks_off || !ck->enabled) return;
    sinktx_precommit(tm, t, t->last_seen_ckpt + 1);
}

/* ---- Sink V2: the external system's side ------------------------------
 * A Sink V2 writer's transactions live in the same log, but a committer
 * resolves them, by checkpoint, in whatever order its committables say;
 * a transaction is resolved where it is and leaves the log once every
 * older one has (its records' ring positions are freed in order). */

/* The Sink V2 writer pre-commits its open transaction for ckpt
 * (prepareCommit): true when there was one, its committable to send. */
bool sinktx_prepare(tm_side *tm, rt_task *t, uint64_t ckpt) {
    SIM_ASSERT(t->v->sink == JOB_SINK_V2);
    rt_txlog *l = t->txlog;
    if (txlog_fenced(tm, t) || l->count == 0 || txn_at(l, l->count - 1)->state != TXN_OPEN) return false;
    rt_txn *x = txn_at(l, l->count - 1);
    x->state = TXN_PRECOMMITTED;
    x->ckpt = ckpt;
    return true;
}

/* The log of writer subtask `writer` feeding committer `by`: the
 * external system's, which every attempt of every task reaches. */
static rt_txlog *writer_log(tm_side *tm, const rt_task *by, uint32_t writer) {
    const job *j = world_job(tm->w);
    uint32_t wv = by->jt->vertex;                 /* up from a committer (a global one: two steps) to the writer */
    for (uint32_t up = 0; up < 2 && j->vertices[wv].kind != JOB_SINK; up++) {
        const job_task *first = &j->tasks[j->vertex_first_task[wv]];
        wv = j->tasks[j->chans[j->in_chan[first->in_first]].producer].vertex;
    }
    SIM_ASSERT(j->vertices[wv].kind == JOB_SINK && j->vertices[wv].sink == JOB_SINK_V2);
    SIM_ASSERT(writer < j->vertices[wv].parallelism);
    return tm->tasks[(j->vertex_first_task[wv] + writer) * tm->hosts].txlog;
}

/* The committer commits writer `writer`'s transaction of ckpt (Kafka's
 * KafkaCommitter: commitTransaction of the producer the committable
 * names). Committed already: nothing (a double commit is no error);
 * aborted: nothing either (InvalidTxnStateException, "a known reason"),
 * its records are lost. True when it committed now. */
bool sinktx_commit_txn(tm_side *tm, rt_task *by, uint32_t writer, uint64_t ckpt, pipe_txn_why why) {
    rt_txlog *l = writer_log(tm, by, writer);
    for (uint32_t k = 0; k < l->count; k++) {
        rt_txn *x = txn_at(l, k);
        if (x->ckpt != ckpt || x->state == TXN_OPEN) continue;
        if (x->state != TXN_PRECOMMITTED) break;
        if (why == PIPE_TXN_RESTORE) REACHED(tm->w, TXN_COMMITTED_ON_RESTORE);
        resolve_at(tm, by, l, x, true, why);
        return true;
    }
    REACHED(tm->w, COMMIT_AGAIN);
    return false;
}

/* A restored writer aborts its lingering transactions: the open one and
 * those pre-committed for checkpoints after the restored one (Kafka's
 * writer aborts the transactional ids of later checkpoints on start);
 * those of the restored checkpoint and older are its committer's to
 * commit. Older attempts are fenced from now on. */
void sinktx_v2_restore(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (txlog_fenced(tm, t)) return;
    rt_txlog *l = t->txlog;
    l->epoch = t->epoch;
    for (uint32_t k = l->count; k-- > 0;) {       /* newest first: settle() pops only from the oldest */
        rt_txn *x = txn_at(l, k);
        if (x->state == TXN_OPEN || (x->state == TXN_PRECOMMITTED && x->ckpt > ckpt)) {
            REACHED(tm->w, TXN_ABORTED_ON_RESTORE);
            resolve_at(tm, t, l, x, false, PIPE_TXN_RESTORE);   /* pops only once k is 0: the older stay put */
        }
    }
}
