/* model/tm/task.c: the task actor: sources, operators and sinks.
 *
 * A task runs one thing at a time, like Flink's mailbox thread:
 *
 *     idle --input buffer, outputs have room--> busy (cost of its records)
 *     busy --WORK_DONE: apply operator, emit, return credit--> idle
 *
 * Control buffers (barrier, cancel marker, end of partition) cost nothing
 * and go through the input gate (model/flow/gate.h), whose actions the task
 * carries out at once: trigger n = the snapshot of model/tm/snap.c (forward
 * barrier n, synchronous part, asynchronous write, acknowledge); abort n =
 * decline and send a cancel marker downstream. Inputs are taken in arrival
 * order among the channels the gate does not block; priority (unaligned)
 * barriers go first, between two batches, and after a restore the input
 * channel state is replayed before anything new. A task in a synchronous
 * snapshot part takes nothing. A source instead reads batches of
 * records from its partitions and handles triggers between batches.
 *
 * A task instance's life (rt_life), moved only by task_life_to, which
 * asserts every move below:
 *
 *            deploy (state to read)           start: read or none
 *     FREE ------------------------> RESTORING -------------------+
 *      |  deploy (nothing to read)                                v
 *      +--------------------------------------------------> RUNNING <-+
 *                                    channel state to replay  |   ^   | replayed
 *                                                             v   |   |
 *                                                        REPLAYING-+--+
 *     RUNNING --end_input--> ENDING --maybe_finish--> FINISHED
 *     RUNNING --finish (no checkpoints after tasks finish)--> FINISHED
 *     any --cancel, a newer deployment, a new process--> FREE
 *
 * Invariants (task_invariants, after every event of the instance): a free
 * instance holds no snapshot in its synchronous part, no queued trigger or
 * priority barrier; only a replaying, running or ending one processes a
 * buffer; the queued triggers and synchronous parts stay within their
 * bounds. */
#include "tm.h"

#include <string.h>

void task_ts_learn(rt_task *t, uint64_t ckpt, sim_time_ns ts_ns, uint32_t type) {
    sim_time_ns known;
    if (task_ts_of(t, ckpt, &known)) return;
    t->ts_ckpt[t->ts_next] = ckpt;
    t->ts_ns[t->ts_next] = ts_ns;
    t->ts_type[t->ts_next] = (uint8_t)type;
    t->ts_next = (t->ts_next + 1) % TASK_TS_MAX;
}

uint32_t task_type_of(const rt_task *t, uint64_t ckpt) {
    for (uint32_t i = 0; i < TASK_TS_MAX; i++) {
        if (t->ts_ckpt[i] == ckpt && ckpt != 0) return t->ts_type[i];
    }
    return PROTO_CK_CHECKPOINT;
}

bool task_ts_of(const rt_task *t, uint64_t ckpt, sim_time_ns *ts_ns) {
    for (uint32_t i = 0; i < TASK_TS_MAX; i++) {
        if (t->ts_ckpt[i] != ckpt || ckpt == 0) continue;
        *ts_ns = t->ts_ns[i];
        return true;
    }
    return false;
}

chan_buf *task_buf(rt_chan *c, uint64_t n) {
    return chan_slot_buf(c, CHAN_SLOT_OF(c)[n % c->ring_size]);
}


void task_send_rpc(tm_side *tm, rt_task *t, const sim_msg *m, const void *data, uint32_t data_bytes) {
    bool ok = data != NULL ? link_send_payload(tm->w->run, t->rpc_to_coord, m, 64, data, data_bytes)
                           : link_send(tm->w->run, t->rpc_to_coord, m, 64);
    if (world_msgs(tm->w)) tm_note_send(tm, t, t->rpc_to_coord, PIPE_NO_TASK, m, ok, NULL, NULL);
}

void task_rpc(tm_side *tm, rt_task *t, uint32_t type, uint64_t ckpt) {
    sim_msg m = { .type = type, .a = ckpt, .b = (t->epoch << 32) | t->id };
    task_send_rpc(tm, t, &m, NULL, 0);
}

void task_decline(tm_side *tm, rt_task *t, uint64_t ckpt, uint32_t why) {
    sim_msg m = { .type = MSG_DECLINE, .a = ckpt, .b = (t->epoch << 32) | t->id };
    msg_decline d = { .why = why };
    task_send_rpc(tm, t, &m, &d, sizeof d);
}

/* A connection the task needs is gone (a cut or partitioned link refuses
 * the send, or a peer broke it): the task fails, once per incarnation, and
 * the coordinator restarts the job. */
void task_fail(tm_side *tm, rt_task *t) {
    if (t->failure_reported) return;
    t->failure_reported = true;
    task_rpc(tm, t, MSG_FAILED, t->failure_thrown ? MSG_FAILED_THREW : 0);
    /* The report is an RPC and may be lost: repeat it until the task is
     * cancelled (Flink retries updateTaskExecutionState the same way). */
    task_timer(tm, t, 50 * tm->w->cfg.rpc_latency_ns, TIMER_FAIL_RETRY);
}

/* ---- producer side of channels ----------------------------------------- */

/* What room() asks of an output, kept in the producer's counts whenever
 * filled, sent or acked change (all of them end in send_ready), so that
 * room() answers without looking at every output. */
static void out_sync(tm_side *tm, rt_chan *c) {
    rt_task *t = &tm->tasks[c->prod_inst];
    bool ring_short = c->filled + 3 - c->acked > c->ring_size;
    bool queue_full = c->filled - c->sent >= tm->w->cfg.out_queue;
    if (ring_short != c->ring_short) t->outs_short += ring_short ? 1u : UINT32_MAX;
    if (queue_full != c->queue_full) t->outs_full += queue_full ? 1u : UINT32_MAX;
    c->ring_short = ring_short;
    c->queue_full = queue_full;
}

static void set_filling(tm_side *tm, rt_chan *c, bool filling) {
    chan_fill *f = tm_fill(tm, c);
    if (filling == f->filling) return;
    f->filling = filling;
    tm->tasks[c->prod_inst].outs_filling += filling ? 1u : UINT32_MAX;
}

static void send_ready(tm_side *tm, rt_chan *c) {
    while (c->requested && c->sent < c->filled && c->sent - c->acked < tm->w->cfg.credits) {
        const chan_buf *b = task_buf(c, c->sent);
        uint32_t bytes = 64 + (b->kind == BUF_DATA ? b->count * (uint32_t)sizeof(model_rec) : 0);
        sim_msg m = { .type = MSG_DATA, .a = proto_chan_word(tm->tasks[c->prod_inst].epoch, c->id), .b = c->sent };
        bool ok = link_send(tm->w->run, c->data_link, &m, bytes);
        if (world_msgs(tm->w)) tm_note_send(tm, &tm->tasks[c->prod_inst], c->data_link, c->consumer, &m, ok, c, b);
        if (!ok) task_fail(tm, &tm->tasks[c->prod_inst]);
        c->sent++;
        tm->w->stats.data_buffers += b->kind == BUF_DATA;
        if (b->kind == BUF_BARRIER) snap_barrier_sent(tm, &tm->tasks[c->prod_inst], b->ckpt);
    }
    out_sync(tm, c);
}

/* The buffer being filled; the channel's chan_fill keeps where it is and
 * how many records it holds, so that adding one reads nothing of the
 * buffer's header, nor of the channel while the buffer is open. */
static chan_buf *open_buf(tm_side *tm, rt_chan *c) {
    chan_fill *f = tm_fill(tm, c);
    if (f->filling) return f->buf;
    SIM_ASSERT(c->filled - c->acked < c->ring_size);   /* the ring has a free slot */
    SIM_ASSERT(c->free_count == c->ring_size - (c->filled - c->acked));
    uint8_t slot = CHAN_FREE_SLOTS(c)[--c->free_count];
    CHAN_SLOT_OF(c)[c->filled % c->ring_size] = slot;
    chan_buf *b = chan_slot_buf(c, slot);
    chan_set_kind(c, c->filled, b, BUF_DATA);
    b->count = 0;
    b->ckpt = 0;
    f->buf = b;
    f->count = 0;
    set_filling(tm, c, true);
    return b;
}

static void close_buf(tm_side *tm, rt_chan *c) {
    if (!tm_fill(tm, c)->filling) return;
    chan_fill_sync(tm, c);
    set_filling(tm, c, false);
    c->filled++;
    send_ready(tm, c);
}

/* With many outputs (a hash edge) the next record into a buffer comes
 * dozens of records later, when its lines may have left the cache: the
 * record is only stored (its count is in output `out`'s cursor f until
 * the buffer closes, so the header line stays untouched, and the channel
 * is read only to open or close a buffer), and the line after the next
 * record's is asked for now (a hint only: nothing observable changes).
 * Alternatives measured and not kept: docs/PERFORMANCE.md, "Records into
 * the buffers of a hash edge". */
static inline __attribute__((always_inline)) void push_to(tm_side *tm, rt_task *t, uint32_t out, chan_fill *f,
                                                         const model_rec *r) {
    chan_buf *b = f->filling ? f->buf : open_buf(tm, task_out_chan(tm, t, out));
    uint32_t n = f->count++;
    b->recs[n] = *r;
    if (n + 2 < CHAN_BUF_RECORDS) __builtin_prefetch(&b->recs[n + 2], 1);
    if (n + 1 == CHAN_BUF_RECORDS) close_buf(tm, task_out_chan(tm, t, out));
}

static inline __attribute__((always_inline)) void push_rec(tm_side *tm, rt_task *t, uint32_t out, const model_rec *r) {
    push_to(tm, t, out, t->out_fills[out], r);
}

/* Output i of edge oe (its i-th), with its cursor. */
static inline __attribute__((always_inline)) void push_edge(tm_side *tm, rt_task *t, const rt_out_edge *oe, uint32_t i,
                                                           const model_rec *r) {
    push_to(tm, t, oe->first + i, oe->fills != NULL ? oe->fills + i : t->out_fills[oe->first + i], r);
}

void task_push_event(tm_side *tm, rt_chan *c, buf_kind kind, uint64_t ckpt) {
    if (c->off) return;                           /* its consumer is above the attempt's parallelism */
    chan_fill *f = tm_fill(tm, c);
    if (tm->w->cfg.bug == PIPE_BUG_BARRIER_FIRST && kind == BUF_BARRIER && f->filling) {   /* deliberate bug */
        chan_fill_sync(tm, c);
        chan_buf held = *f->buf;                  /* the records before it go after it */
        chan_buf *b = f->buf;                     /* their slot takes the barrier */
        chan_set_kind(c, c->filled, b, kind);
        b->count = 0;
        b->ckpt = ckpt;
        (void)task_ts_of(&tm->tasks[c->prod_inst], ckpt, &b->ts_ns);
        b->ck_type = (uint8_t)task_type_of(&tm->tasks[c->prod_inst], ckpt);
        set_filling(tm, c, false);
        c->filled++;
        *open_buf(tm, c) = held;
        f->count = held.count;
        send_ready(tm, c);
        return;
    }
    close_buf(tm, c);                              /* the records before it go first */
    chan_buf *b = open_buf(tm, c);
    chan_set_kind(c, c->filled, b, kind);
    b->ckpt = ckpt;
    b->ts_ns = 0;
    b->ck_type = 0;
    if (kind == BUF_BARRIER) {
        (void)task_ts_of(&tm->tasks[c->prod_inst], ckpt, &b->ts_ns);
        b->ck_type = (uint8_t)task_type_of(&tm->tasks[c->prod_inst], ckpt);
    }
    close_buf(tm, c);
}

void task_emit_to(tm_side *tm, rt_task *t, uint32_t out, const model_rec *r) {
    push_rec(tm, t, out, r);
}

/* A record into output edge oe, by its partitioning. */
static inline __attribute__((always_inline)) void emit_edge(tm_side *tm, rt_task *t, rt_out_edge *oe, const model_rec *r) {
        switch (oe->part) {
        case JOB_FORWARD:
            push_edge(tm, t, oe, 0, r);
            break;
        case JOB_REBALANCE:
            push_edge(tm, t, oe, oe->rr, r);
            if (++oe->rr == oe->count) oe->rr = 0;
            break;
        case JOB_HASH: {
            uint32_t i = oe->mp_shift != JOB_MP_NOT_POW2 ? job_key_subtask_pow2(r->key, oe->mp_shift, oe->count)
                                                         : job_key_subtask(r->key, oe->max_parallelism, oe->count);
            push_edge(tm, t, oe, i, r);
            break;
        }
        case JOB_BROADCAST:
            for (uint32_t i = 0; i < oe->count; i++) push_edge(tm, t, oe, i, r);
            break;
        }
}

/* A record into every output edge. Inline where a buffer's records are
 * taken in a loop of one vertex kind (plain_records); a call elsewhere. */
static inline __attribute__((always_inline)) void emit_inline(tm_side *tm, rt_task *t, const model_rec *r) {
    for (uint32_t e = 0; e < t->out_edges_count; e++) emit_edge(tm, t, &t->out_edges[e], r);
}

/* A record into the output of job edge `edge` (a restore re-emits an old
 * subtask's output channel state through it): the task's output edges are
 * its vertex's job edges in order (pipe.c). */
void task_emit_on_edge(tm_side *tm, rt_task *t, uint32_t edge, const model_rec *r) {
    const job *j = world_job(tm->w);
    uint32_t k = 0;
    for (uint32_t e = 0; e < edge; e++) k += j->edges[e].from == t->jt->vertex;
    SIM_ASSERT(j->edges[edge].from == t->jt->vertex && k < t->out_edges_count);
    emit_edge(tm, t, &t->out_edges[k], r);
}

static void emit(tm_side *tm, rt_task *t, const model_rec *r) { emit_inline(tm, t, r); }

static void emit_event(tm_side *tm, rt_task *t, buf_kind kind, uint64_t ckpt) {
    for (uint32_t i = 0; i < t->jt->out_count; i++) task_push_event(tm, task_out_chan(tm, t, i), kind, ckpt);
}

void task_emit(tm_side *tm, rt_task *t, const model_rec *r) { emit(tm, t, r); }
void task_emit_event(tm_side *tm, rt_task *t, buf_kind kind, uint64_t ckpt) { emit_event(tm, t, kind, ckpt); }

/* In output order, up to the last one filling. */
static void flush_all(tm_side *tm, rt_task *t) {
    for (uint32_t i = 0; i < t->jt->out_count && t->outs_filling > 0; i++) close_buf(tm, task_out_chan(tm, t, i));
}

/* Room for one more input buffer's output: every output's send queue is
 * below its bound (backpressure) and its ring can take a flush and an
 * event. The counts say it (out_sync). */
static bool room(const rt_task *t, bool data) {
    return t->outs_short == 0 && (!data || t->outs_full == 0);
}

/* Backpressure, as Flink measures it (backPressuredTimeMsPerSecond): the
 * task has input to process, or records to read, and an output has no
 * room. Instrumentation: written, never read to decide anything. */
static void bp_begin(tm_side *tm, rt_task *t) {
    if (t->bp_on) return;
    t->bp_on = true;
    t->bp_since_ns = tm->w->run->now_ns;
}

static void bp_end(tm_side *tm, rt_task *t) {
    if (!t->bp_on) return;
    t->bp_on = false;
    sim_time_ns d = tm->w->run->now_ns - t->bp_since_ns;
    t->bp_ns += d;
    if (d > 0 && world_observed(tm->w)) {
        pipe_event e = { .kind = PIPE_EV_BACKPRESSURE, .task = t->id, .chan = PIPE_NO_CHAN, .bytes = d };
        tm_note_ev(tm, t, &e);
    }
}

sim_time_ns task_backpressure_ns(const tm_side *tm, const rt_task *t) {
    return t->bp_ns + (t->bp_on ? tm->w->run->now_ns - t->bp_since_ns : 0);
}

static void arm_flush(tm_side *tm, rt_task *t) {
    if (t->flush_timer != 0 || t->outs_filling == 0) return;
    t->flush_timer = task_timer(tm, t, tm->w->cfg.buffer_timeout_ns, TIMER_FLUSH);
}

/* ---- checkpoints -------------------------------------------------------- */

/* The gate aborted `ckpt`: the task declines it to the coordinator; its
 * cancel marker goes downstream from carry_out. */
static void decline(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (ckpt > t->last_seen_ckpt) t->last_seen_ckpt = ckpt;
    snap_abort(t, ckpt);
    REACHED(tm->w, DECLINE_SENT);
    tm_note(tm, PIPE_EV_DECLINE, t, ckpt);
    task_decline(tm, t, ckpt, CKR_DECLINED_BY_BARRIERS);   /* subsumed, cancelled or ended: not counted */
}

/* FINISHED carries the final state's handle: the coordinator acknowledges
 * later checkpoints for the task with it, and with the ends of a source's
 * partitions, which it has read to the end (asserted: the message claims it). */
static void send_finished(tm_side *tm, rt_task *t) {
    msg_finished f = { .final_file = t->final_file, .offsets_count = 0 };
    SIM_ASSERT(t->parts_count <= PROTO_OFFSETS_MAX);
    for (uint32_t i = 0; i < t->parts_count; i++) {
        if (!(t->splits >> i & 1)) continue;
        uint32_t part = t->parts_first + i * t->parts_stride;
        SIM_ASSERT(t->stop_ckpt != 0 || t->deploy.drained ||   /* a stop, a drain: where they stopped it */
                   tm_offsets(t)[part] == tm->w->brk.topic[t->v->topic].cfg.records_per_partition);
        f.offsets[f.offsets_count++] = (proto_offset){ .partition = part, .next = tm_offsets(t)[part] };
    }
    sim_msg m = { .type = MSG_FINISHED, .a = t->last_seen_ckpt, .b = (t->epoch << 32) | t->id };
    task_send_rpc(tm, t, &m, &f, PROTO_WITH_OFFSETS_BYTES(msg_finished, f.offsets_count));
}

static void finish(tm_side *tm, rt_task *t) {
    flush_all(tm, t);
    emit_event(tm, t, BUF_END, 0);
    task_life_to(t, LIFE_FINISHED);
    snap_finish(tm, t);
    tm_note(tm, PIPE_EV_TASK_FINISHED, t, 0);
    send_finished(tm, t);
    /* An RPC can be lost, and the job cannot finish without it: say it
     * again until the job ends or restarts (the coordinator ignores
     * repeats), as Flink retries task state updates. */
    t->finished_retries = 0;
    task_timer(tm, t, 50 * tm->w->cfg.rpc_latency_ns, TIMER_FINISHED_RETRY);
}

/* A task whose final checkpoint completed finishes once every input
 * brought its end of partition: in Flink a task's input processing ends
 * only at EndOfPartition on every channel, so a task never finishes
 * before the tasks upstream of it (FLIP-147's finishing steps). */
static void maybe_finish(tm_side *tm, rt_task *t) {
    if (!t->final_done || t->life == LIFE_FINISHED || t->g.open > 0) return;
    if (t->cmt != NULL && sinkv2_outbox(t) > 0) return;   /* a committer's committables go first (the pump) */
    REACHED(tm->w, FINAL_CHECKPOINT_DONE);
    finish(tm, t);
}

/* The end of the task's input (a source read its splits, an operator got
 * end of data or of partition on every input). Without checkpoints after
 * tasks finish (`finished-tasks off`, or no checkpoints) it finishes now.
 * With them (FLIP-147) it sends end of data, takes part in checkpoints
 * as before, and finishes once one it triggered from now on completed:
 * that checkpoint holds its final state, and a two-phase-commit sink
 * commits its last transaction on the notice. */
static void end_input(tm_side *tm, rt_task *t) {
    if (t->life == LIFE_ENDING || t->life == LIFE_FINISHED) return;
    if (sinkv2_writer(t)) sinkv2_end_input(tm, t);   /* its last committables go before end of data */
    if (t->v->kind == JOB_COMMITTER) sinkv2_end_of_input(tm, t);
    if (tm->w->cfg.ckpt.finished_tasks_off || !tm->w->cfg.ckpt.enabled) {
        if (t->cmt != NULL && sinkv2_outbox(t) > 0) {   /* its committables go first: the pump finishes it */
            t->finish_after_outbox = true;
            return;
        }
        finish(tm, t);
        return;
    }
    flush_all(tm, t);
    emit_event(tm, t, BUF_END_DATA, 0);
    task_life_to(t, LIFE_ENDING);
    t->final_from = 0;
    t->final_done = false;
    REACHED(tm->w, INPUT_ENDED);
    tm_note(tm, PIPE_EV_INPUT_ENDED, t, 0);
}

/* An input's end of data or of partition: it brings no more records. */
static void data_end(rt_task *t, uint32_t input) {
    if (t->data_ended[input / 64] >> (input % 64) & 1) return;
    t->data_ended[input / 64] |= 1ull << (input % 64);
    SIM_ASSERT(t->data_open > 0);
    t->data_open--;
}

/* Processing time of n records, drawn per the vertex's distribution from
 * the task's own stream through the choice point. */
static sim_time_ns base_cost(tm_side *tm, rt_task *t, uint32_t n);

static uint32_t slowdown(const tm_side *tm, const rt_task *t) {
    uint32_t f = 1;
    for (uint32_t i = 0; i < tm->w->cfg.slow_count; i++) {   /* a handful at most */
        const pipe_slow *w = &tm->w->cfg.slow[i];
        sim_time_ns now = tm->w->run->now_ns;
        if (w->task == t->id && now >= w->at_ns && now - w->at_ns < w->duration_ns) f += w->factor - 1;
    }
    return f;
}

static sim_time_ns cost_of(tm_side *tm, rt_task *t, uint32_t n) {
    return slowdown(tm, t) * base_cost(tm, t, n);
}

static sim_time_ns base_cost(tm_side *tm, rt_task *t, uint32_t n) {
    sim_time_ns mean = t->v->cost_ns;
    if (mean == 0 || n == 0) return 0;
    rng *r = &tm->w->run->actors[t->actor].rng;
    switch (t->v->cost_dist) {
    case JOB_COST_FIXED:
        return n * mean;
    case JOB_COST_UNIFORM: {                      /* one draw per buffer */
        sim_time_ns total = n * mean, half = total / 2;
        if (2 * half >= UINT32_MAX - 1) return total; /* spread beyond 4.29 s: fixed */
        return sim_delay_uniform_ns(tm->w->run, r, total - half, total + half);
    }
    case JOB_COST_EXPONENTIAL: {
        sim_time_ns sum = 0;
        for (uint32_t i = 0; i < n; i++) sum += sim_delay_exp_ns(tm->w->run, r, mean);
        return sum;
    }
    }
    return n * mean;
}

/* ---- sources ------------------------------------------------------------ */

static void source_triggers(tm_side *tm, rt_task *t);

static void source_kick(tm_side *tm, rt_task *t) {
    if (t->v->kind != JOB_SOURCE || t->life == LIFE_FINISHED || t->source_waiting || t->life == LIFE_RESTORING) return;
    if (t->life == LIFE_REPLAYING) return;        /* a rescale's output channel state goes first (task_pump) */
    if (t->life == LIFE_ENDING) {                              /* nothing to read: only triggers, as the outputs have room */
        source_triggers(tm, t);
        return;
    }
    t->source_waiting = true;
    task_timer(tm, t, 0, TIMER_SOURCE_NEXT);
}

/* Queued triggers, while the outputs have room; a source still reading
 * its restored state keeps them until it has its positions. */
static void source_triggers(tm_side *tm, rt_task *t) {
    while (t->life != LIFE_RESTORING && t->life != LIFE_REPLAYING && t->triggers_queued > 0 && room(t, false)) {
        uint64_t ckpt = t->trigger_queue[0];
        memmove(t->trigger_queue, t->trigger_queue + 1, sizeof(uint64_t) * --t->triggers_queued);
        if (task_type_of(t, ckpt) == PROTO_CK_TERMINATE && t->life == LIFE_RUNNING) {   /* stop --drain: its input */
            REACHED(tm->w, SOURCE_DRAINED);                                            /* ends before the barrier */
            end_input(tm, t);
        }
        snap_trigger(tm, t, ckpt, false);
    }
}

/* A queued trigger of a checkpoint the coordinator aborted meanwhile is
 * not acted on (Flink skips triggers of checkpoints it knows are aborted):
 * no snapshot, no barrier for a checkpoint that cannot complete. */
static void withdraw_trigger(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (t->rpc_trigger == ckpt) {
        t->rpc_trigger = 0;
        REACHED(tm->w, TRIGGER_WITHDRAWN);
        return;
    }
    for (uint32_t i = 0; i < t->triggers_queued; i++) {
        if (t->trigger_queue[i] != ckpt) continue;
        memmove(t->trigger_queue + i, t->trigger_queue + i + 1, sizeof(uint64_t) * (t->triggers_queued - i - 1));
        t->triggers_queued--;
        REACHED(tm->w, TRIGGER_WITHDRAWN);
        return;
    }
}

/* Whether a source triggered `ckpt` already, or has it queued: a second
 * delivery of its trigger RPC, which Flink's out-of-order check drops
 * (snap_trigger), is not queued, so it cannot push a pending one out. */
static bool trigger_known(const rt_task *t, uint64_t ckpt) {
    bool queued = false;
    for (uint32_t i = 0; i < t->triggers_queued; i++) queued |= t->trigger_queue[i] == ckpt;
    return queued || ckpt <= t->last_seen_ckpt;
}

static void forget_oldest_trigger(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->triggers_queued > 0);
    memmove(t->trigger_queue, t->trigger_queue + 1, sizeof(uint64_t) * (t->triggers_queued - 1));
    t->triggers_queued--;
    REACHED(tm->w, NOTICE_TABLE_FULL);
    tm->w->stats.triggers_forgotten++;
}

static void source_read(tm_side *tm, rt_task *t) {
    t->source_waiting = false;
    if (t->life == LIFE_FINISHED || t->syncing > 0) return;   /* the sync part's end kicks it */
    if (t->stop_ckpt != 0) return;                /* stopped for a savepoint: it waits for its notice */
    if (t->deploy.drained && t->life == LIFE_RUNNING) {   /* restored from a drained savepoint: its input ended there */
        end_input(tm, t);
        return;
    }
    source_triggers(tm, t);
    if (t->syncing > 0) return;
    if (t->triggers_queued > 0) return;           /* a credit will kick it */
    if (!room(t, true)) {
        bp_begin(tm, t);
        return;
    }
    bp_end(tm, t);
    if (t->v->watermarks) {                       /* one due goes first, then the room is asked again */
        win_wm sent = t->wm_sent;
        evt_source_batch(tm, t);
        if (t->wm_sent != sent && !room(t, true)) {
            bp_begin(tm, t);
            return;
        }
    }
    uint32_t n = 0, ended = 0;
    const broker_topic *topic = &tm->w->brk.topic[t->v->topic];
    while (n < CHAN_BUF_RECORDS && ended < t->parts_count) {
        uint32_t i = t->parts_rr, part = t->parts_first + i * t->parts_stride;
        t->parts_rr = (t->parts_rr + 1) % t->parts_count;
        model_rec r;
        if (!(t->splits >> i & 1) || !broker_topic_read(topic, part, tm_offsets(t)[part], &r)) {   /* not its, or at its end */
            ended++;
            continue;
        }
        ended = 0;
        tm_offsets(t)[part]++;
        world_read(tm->w, part, t->epoch, tm_offsets(t)[part]);
        if (t->split_max != NULL && (win_wm)r.event_time_ns > t->split_max[i]) t->split_max[i] = (win_wm)r.event_time_ns;
        emit(tm, t, &r);
        n++;
    }
    tm->w->stats.records_read += n;
    if (n == 0) {                                 /* every split it has is at its end */
        if (!t->splits_final) return;             /* the enumerator's assignment will kick it */
        if (t->v->watermarks && t->wm_sent != WIN_WM_MAX) {   /* the end of event time first, then of data */
            t->wm = WIN_WM_MAX;
            evt_send(tm, t, WIN_WM_MAX);
            t->source_waiting = true;
            task_timer(tm, t, 0, TIMER_SOURCE_NEXT);
            return;
        }
        end_input(tm, t);
        return;
    }
    sim_time_ns cost = cost_of(tm, t, n);
    if (tm->w->cfg.source_rate_per_s > 0) {
        sim_time_ns paced = n * SIM_NS_PER_S / tm->w->cfg.source_rate_per_s;
        if (paced > cost) cost = paced;
    }
    t->source_waiting = true;
    task_timer(tm, t, cost, TIMER_SOURCE_NEXT);
    arm_flush(tm, t);
}

/* ---- operators ---------------------------------------------------------- */

/* What an operator of kind `kind` (the task's vertex's) does with one
 * record. Inline: apply() passes the vertex's kind, plain_records() a
 * constant per loop, so that a buffer's loop is one kind's code, the
 * switch folded away and emit inline. `plain` (a constant too): no
 * deliberate bug is on and the caller counts the records, so neither is
 * looked at per record. */
static inline __attribute__((always_inline)) void apply_as(tm_side *tm, rt_task *t, rt_chan *c, const model_rec *in,
                                                           job_kind kind, bool plain) {
    /* never a watermark: timed_records takes those (a job with event time);
     * read in place: only a map and a join change what they pass on */
    const model_rec *r = in;
    pipe_bug bug = plain ? PIPE_BUG_NONE : tm->w->cfg.bug;
    switch (kind) {
    case JOB_MAP: {
        model_rec m = *r;
        m.value += t->v->map_add;
        emit_inline(tm, t, &m);
        break;
    }
    case JOB_FILTER:
        if (kstate_record_mark(r->id) % 100 < t->v->keep_percent) emit_inline(tm, t, r);
        break;
    case JOB_KEYED_AGG:
        if (bug == PIPE_BUG_DROP_RECORDS && kstate_record_mark(r->id) % 1000 == 0) break;   /* deliberate bug */
        kstate_fold(&t->state, r);
        emit_inline(tm, t, r);
        break;
    case JOB_UNION:
        emit_inline(tm, t, r);
        break;
    case JOB_KEYED_JOIN: {
        if (bug == PIPE_BUG_JOIN_DROPS_INPUT && c->input == 1) break;   /* deliberate bug */
        model_rec tagged = *r;
        tagged.key = r->key * 2 + c->input;      /* one table, both sides */
        kstate_fold(&t->state, &tagged);
        emit_inline(tm, t, r);
        break;
    }
    case JOB_WINDOW:
        evt_window_apply(tm, t, r);
        break;
    case JOB_SINK:
        if (__builtin_expect(win_is_result(r->id), 0)) sinktx_write_result(tm, t, r);
        else sinktx_write(tm, t, r);
        if (!plain) tm->w->stats.sink_records++;
        break;
    case JOB_COMMITTER:                           /* committables, not records: no record counts */
        sinkv2_receive(tm, t, r);
        return;
    case JOB_SOURCE:
        SIM_ASSERT(!"a source has no input");
    }
    if (!plain) tm->w->stats.records_processed++;
}

static void apply(tm_side *tm, rt_task *t, rt_chan *c, const model_rec *in) {
    apply_as(tm, t, c, in, t->v->kind, false);
}

/* A buffer's records, none of them a watermark: the vertex's kind is
 * decided once for the buffer, not per record; with a deliberate bug on,
 * or a kind that is rare, each record takes apply(). An alternative measured and not kept: docs/PERFORMANCE.md,
 * "A buffer's records". gcc 12 drops a call to a
 * function whose only effect is a prefetch (it finds it pure) before
 * inlining it: such a helper must be always_inline, or the build has no
 * prefetch in it at all. */
static void plain_records(tm_side *tm, rt_task *t, rt_chan *c, const chan_buf *b) {
    const uint32_t n = b->count;
    job_kind kind = tm->w->cfg.bug == PIPE_BUG_NONE ? t->v->kind : JOB_SOURCE;
#define EACH(k) for (uint32_t i = 0; i < n; i++) apply_as(tm, t, c, &b->recs[i], k, true)
    switch (kind) {
    case JOB_MAP:       EACH(JOB_MAP); break;
    case JOB_FILTER:    EACH(JOB_FILTER); break;
    case JOB_KEYED_AGG: EACH(JOB_KEYED_AGG); break;
    case JOB_UNION:     EACH(JOB_UNION); break;
    case JOB_SINK:      EACH(JOB_SINK); break;
    default:
        for (uint32_t i = 0; i < n; i++) apply(tm, t, c, &b->recs[i]);
        return;                                   /* apply counts them */
    }
#undef EACH
    if (kind == JOB_SINK) tm->w->stats.sink_records += n;
    tm->w->stats.records_processed += n;
}

static void consumed(tm_side *tm, rt_task *t, rt_chan *c) {
    c->consumed++;
    sim_msg m = { .type = MSG_CREDIT, .a = proto_chan_word(t->epoch, c->id), .b = c->consumed };
    if (!link_send(tm->w->run, c->credit_link, &m, 64)) task_fail(tm, t);
}

/* Protocol coverage of a gate step, by the gate's mode. */
static void reach_gate(tm_side *tm, const rt_task *t, uint32_t saw) {
    static const pipe_reach table[3][5] = {   /* [mode - 1][bit]: newer, cancel, end, obsolete, two */
        { PIPE_REACH_NEWER_ABORTS_ALIGNED, PIPE_REACH_CANCEL_ENDS_ALIGNED, PIPE_REACH_END_MARKS_ALIGNED,
          PIPE_REACH_OBSOLETE_ALIGNED, PIPE_REACH_COUNT },
        { PIPE_REACH_COUNT, PIPE_REACH_CANCEL_ENDS_AT_LEAST_ONCE, PIPE_REACH_END_MARKS_AT_LEAST_ONCE,
          PIPE_REACH_COUNT, PIPE_REACH_TRACKS_TWO },
        { PIPE_REACH_NEWER_ABORTS_UNALIGNED, PIPE_REACH_CANCEL_ENDS_UNALIGNED, PIPE_REACH_END_MARKS_UNALIGNED,
          PIPE_REACH_OBSOLETE_UNALIGNED, PIPE_REACH_COUNT },
    };
    SIM_ASSERT(t->g.mode >= GATE_ALIGNED && t->g.mode <= GATE_UNALIGNED);
    for (uint32_t bit = 0; bit < 5; bit++) {
        if (!(saw >> bit & 1)) continue;
        pipe_reach r = table[t->g.mode - GATE_ALIGNED][bit];
        SIM_ASSERT(r != PIPE_REACH_COUNT);        /* the mode cannot see that */
        tm->w->reach[r]++;
    }
}

/* The gate's actions of one step. Several aborts in a step (a cancel
 * marker that ends every older tracked checkpoint too) send one cancel
 * marker, for the newest: every gate mode takes it to cancel the older
 * ones as well, and one step then adds at most a partial buffer, a cancel
 * and a barrier to an output, the room the pump made sure of. */
static void carry_out(tm_side *tm, rt_task *t, const gate_acts *acts) {
    if (acts->saw != 0) reach_gate(tm, t, acts->saw);
    uint64_t cancel = 0;                          /* the newest checkpoint aborted, not yet sent */
    for (uint32_t i = 0; i < acts->count; i++) {
        if (acts->items[i].kind == GATE_TRIGGER) {
            if (cancel != 0) emit_event(tm, t, BUF_CANCEL, cancel);
            cancel = 0;
            snap_trigger(tm, t, acts->items[i].ckpt, acts->items[i].unaligned);
        } else {
            decline(tm, t, acts->items[i].ckpt);
            if (acts->items[i].ckpt > cancel) cancel = acts->items[i].ckpt;
        }
    }
    if (cancel != 0) emit_event(tm, t, BUF_CANCEL, cancel);
    snap_inputs_done(tm, t);
}

/* The aligned checkpoint being aligned is older than the alignment
 * timeout (from its creation at the coordinator): switch it to unaligned
 * now, or arm a timer for the moment it will be. */
static void align_check(tm_side *tm, rt_task *t) {
    sim_time_ns timeout = tm->w->cfg.ckpt.alignment_timeout_ns;
    if (timeout == 0 || t->g.mode != GATE_ALIGNED || !gate_pending(&t->g) || t->g.switched) return;
    if (t->v->kind == JOB_COMMITTER) return;      /* FLINK-36287: committables never become channel state */
    uint64_t ckpt = t->g.current;
    sim_time_ns started_ns;
    if (!task_ts_of(t, ckpt, &started_ns)) return;   /* a barrier always tells it */
    sim_time_ns due = started_ns + timeout;
    if (tm->w->run->now_ns < due) {
        if (t->align_ckpt == ckpt && t->align_timer != 0) return;
        if (t->align_timer != 0) sim_timer_cancel(tm->w->run, t->align_timer);
        t->align_ckpt = ckpt;
        t->align_timer = task_timer(tm, t, due - tm->w->run->now_ns, TIMER_ALIGN_TIMEOUT);
        return;
    }
    gate_acts acts = { .count = 0 };
    tm_note(tm, PIPE_EV_ALIGN_TIMEOUT, t, ckpt);   /* before the switch: what it leaves blocked */
    gate_on_alignment_timeout(&t->g, ckpt, &acts);
    tm->w->stats.alignment_timeouts++;
    REACHED(tm->w, ALIGNMENT_TIMEOUT);
    carry_out(tm, t, &acts);
}

/* The first barrier of a checkpoint at this task: alignment starts; the
 * time since the coordinator created the checkpoint is Flink's
 * "checkpoint start delay" (barriers travelling behind queued data). */
static void first_barrier(tm_side *tm, rt_task *t, uint64_t ckpt) {
    t->align_start_ns = tm->w->run->now_ns;
    t->align_start_ckpt = ckpt;
    sim_time_ns started_ns;
    if (!task_ts_of(t, ckpt, &started_ns)) return;
    sim_time_ns d = tm->w->run->now_ns - started_ns;
    tm->w->stats.start_delay_ns_sum += d;
    tm->w->stats.start_delays++;
    if (d > tm->w->stats.start_delay_ns_max) tm->w->stats.start_delay_ns_max = d;
}

/* Priority barriers wait only for the record batch in progress (the
 * mailbox takes them between batches), and for a replay of channel state. */
static void take_priority(tm_side *tm, rt_task *t) {
    uint32_t k = 0;
    for (; k < t->prio_count && t->life != LIFE_FINISHED; k++) {
        /* A step may add a cancel marker and a barrier to every output: it
         * waits for room, as any control buffer does (outputs whose
         * consumer has not asked yet hold everything). */
        if (!room(t, false)) break;
        rt_chan *c = &tm->chans[t->prio_queue[k] >> 32];
        uint64_t ckpt = t->prio_queue[k] & 0xffffffffu;
        uint32_t ch = c->gate_index;
        if (gate_ended(&t->g, ch)) continue;
        gate_acts acts = { .count = 0 };
        if (!gate_pending(&t->g)) first_barrier(tm, t, ckpt);
        if (t->g.mode == GATE_ALIGNED) REACHED(tm->w, ALIGNED_TAKES_PRIORITY);
        tm_gate_view before;
        tm_gate_look(tm, t, &before);
        gate_on_priority_barrier(&t->g, ch, ckpt, &acts);
        tm_note_gate(tm, PIPE_EV_BARRIER, t, ch, ckpt, true, &before);
        carry_out(tm, t, &acts);
    }
    if (t->life == LIFE_FINISHED) k = t->prio_count;
    memmove(t->prio_queue, t->prio_queue + k, sizeof(uint64_t) * (t->prio_count - k));
    t->prio_count -= k;
}

/* Input channel state of the restored checkpoint: replayed before any new
 * input, a buffer's worth at a time. */
#define REPLAY_OUTPUT (1u << 31)              /* replay_chans: an output record (job channel ids stay below) */

static bool replay_next(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->replay_file != 0);
    if (!store_alive(&tm->w->files, t->replay_file)) {
        /* The file went with the coordinator's memory (a memory backend
         * wiped by a coordinator failover) under a zombie attempt: the
         * read fails and so does the attempt, as a failed state read
         * fails a Flink task; it takes no more input. */
        REACHED(tm->w, REPLAY_READ_FAILED);
        t->replay_file = 0;
        task_fail(tm, t);
        return true;
    }
    t->replay_n = 0;
    rt_cs_rec r;
    while (t->replay_n < CHAN_BUF_RECORDS && csfile_next(&tm->w->files, t->replay_file, &t->replay_pos, &r)) {
        if (r.output && !t->replay_rescaled) continue;   /* re-emitted at the restore */
        t->replay_recs[t->replay_n] = r.rec;
        t->replay_chans[t->replay_n++] = r.chan | (r.output ? REPLAY_OUTPUT : 0);
    }
    if (t->replay_n == 0) {
        snap_replay_done(tm, t);
        return false;
    }
    t->busy = true;
    t->busy_chan = UINT32_MAX;
    task_timer(tm, t, cost_of(tm, t, t->replay_n), TIMER_WORK_DONE);
    return true;
}

/* ---- inputs in arrival order ---------------------------------------------
 *
 * The pump takes the earliest arrival among the channels the gate does not
 * block. Arrival stamps are a counter of the task, so that is the oldest
 * unconsumed buffer of those channels: the buffers are kept in a list in
 * arrival order (ready), threaded through the buffers themselves (a
 * buffer stays in its ring until consumed), and the pump takes the head.
 * A head on a blocked channel moves to a second list (parked), in the
 * same order; everything parked is older than everything ready. Channels
 * unblock only in a step the gate counts as a release: then the parked
 * buffers go back in front of the ready ones, in their order, and those
 * of channels still blocked are parked again as the pump meets them.
 * Each buffer costs O(1), and parking once per blocked checkpoint. */

/* The records of a buffer the task has just taken, asked for now (a hint
 * only: nothing observable changes). They are read when its work is done,
 * the buffer's cost in virtual time later, and with many channels the
 * buffer was written long before and has left the cache: the lines come
 * in while other events run instead of one miss after another then. */
static void prefetch_recs(const chan_buf *b) {
    for (uint32_t i = 0; i < b->count; i += 64 / sizeof b->recs[0]) __builtin_prefetch(&b->recs[i], 0, 2);
}

static chan_buf *in_buf(tm_side *tm, in_ref r) {
    SIM_ASSERT(r.chan1 != 0);
    const rt_chan *c = &tm->chans[r.chan1 - 1];
    SIM_ASSERT((uint16_t)(r.n - (uint16_t)c->consumed) < c->received - c->consumed);   /* unconsumed */
    return chan_slot_buf(c, r.slot);
}

static void in_append(tm_side *tm, in_list *l, in_ref r) {
    in_buf(tm, r)->next = (in_ref){ .chan1 = 0 };
    if (l->head.chan1 == 0) {
        l->head = r;
    } else {
        in_buf(tm, l->tail)->next = r;
    }
    l->tail = r;
}

static in_ref in_pop(tm_side *tm, in_list *l) {
    in_ref r = l->head;
    l->head = in_buf(tm, r)->next;
    return r;
}

static void in_clear(rt_task *t) {
    t->ready.head.chan1 = 0;
    t->parked.head.chan1 = 0;
}

/* The parked buffers, all older than the ready ones, go back in front. */
static void in_unpark(tm_side *tm, rt_task *t) {
    in_buf(tm, t->parked.tail)->next = t->ready.head;
    if (t->ready.head.chan1 == 0) t->ready.tail = t->parked.tail;
    t->ready.head = t->parked.head;
    t->parked.head.chan1 = 0;
}

/* The channel whose oldest buffer is the earliest arrival on an unblocked
 * channel (it stays listed until taken), or NULL. */
static rt_chan *next_input(tm_side *tm, rt_task *t) {
    if (t->parked.head.chan1 != 0 && gate_releases(&t->g) != t->parked_releases) in_unpark(tm, t);
    while (t->ready.head.chan1 != 0) {
        rt_chan *c = &tm->chans[t->ready.head.chan1 - 1];
        if (!gate_blocked(&t->g, c->gate_index)) {
            SIM_ASSERT(t->ready.head.n == (uint16_t)c->consumed);   /* nothing older of it is parked */
            return c;
        }
        if (t->parked.head.chan1 == 0) t->parked_releases = gate_releases(&t->g);
        in_append(tm, &t->parked, in_pop(tm, &t->ready));
    }
    return NULL;
}

/* A barrier, cancel marker or end of partition at the head of input
 * channel c: through the gate, then what the gate says to do. */
static void take_control(tm_side *tm, rt_task *t, rt_chan *c, const chan_buf *b) {
    gate_acts acts = { .count = 0 };
    buf_kind kind = b->kind;
    uint64_t ckpt = b->ckpt;
    consumed(tm, t, c);
    tm_gate_view before;                          /* for the note: what the step unblocks */
    tm_gate_look(tm, t, &before);
    if (kind == BUF_BARRIER) {
        if (!gate_pending(&t->g)) first_barrier(tm, t, ckpt);
        gate_on_barrier(&t->g, c->gate_index, ckpt, &acts);
        tm_note_gate(tm, PIPE_EV_BARRIER, t, c->gate_index, ckpt, false, &before);
    } else if (kind == BUF_CANCEL) {
        tm->w->reach[t->g.mode == GATE_ALIGNED         ? PIPE_REACH_CANCEL_ALIGNED
                 : t->g.mode == GATE_AT_LEAST_ONCE ? PIPE_REACH_CANCEL_AT_LEAST_ONCE
                                                   : PIPE_REACH_CANCEL_UNALIGNED]++;
        gate_on_cancel(&t->g, c->gate_index, ckpt, &acts);
        tm_note_gate(tm, PIPE_EV_CANCEL, t, c->gate_index, ckpt, false, &before);
    } else if (kind == BUF_END) {
        data_end(t, c->gate_index);
        gate_on_end(&t->g, c->gate_index, &acts);
        tm_note_gate(tm, PIPE_EV_END, t, c->gate_index, 0, false, &before);
    } else {                                      /* end of data: barriers still come on the input */
        SIM_ASSERT(kind == BUF_END_DATA);
        data_end(t, c->gate_index);
        tm_note_gate(tm, PIPE_EV_END_DATA, t, c->gate_index, 0, false, &before);
    }
    carry_out(tm, t, &acts);
    if (kind == BUF_BARRIER) align_check(tm, t);
    if ((kind == BUF_END || kind == BUF_END_DATA) && t->v->global) sinkv2_upstream_ended(tm, t);
    if (kind == BUF_END) maybe_finish(tm, t);     /* the last end of partition it waited for */
    if (t->life == LIFE_FINISHED || t->data_open > 0 || (kind != BUF_END && kind != BUF_END_DATA)) return;
    if (t->stop_ckpt != 0) return;                /* a stop without drain ends no input (FLINK-21132): no endInput */
    if (!tm->w->event_time) {
        end_input(tm, t);
        return;
    }
    evt_on_watermark(tm, t, c, WIN_WM_MAX);      /* an ended input holds no watermark back */
    t->end_after_fire = true;                     /* the pump ends it, after what the watermark fires and sends */
}

static inline void work_done(tm_side *tm, rt_task *t);

/* The pump's step while replaying input channel state: false when the
 * pump stops (its read failed, and it is cancelled next; backpressure;
 * a batch in work), true to look again. */
static bool pump_replay(tm_side *tm, rt_task *t) {
    if (t->replay_file == 0) return false;
    if (!room(t, true)) {
        bp_begin(tm, t);
        return false;
    }
    bp_end(tm, t);
    return !replay_next(tm, t);
}

/* The pump's step for a risen watermark, which goes before input: the
 * rest of an input buffer it interrupted, then batches of firings, then
 * an end of input that waited for them. False when the pump stops (busy,
 * or backpressured), true to look again. */
static bool pump_windows(tm_side *tm, rt_task *t) {
    if (!evt_firing(t) && t->busy_pos > 0) {      /* sent on: the rest of the input buffer */
        t->busy = true;
        t->busy_chan = t->resume_chan;
        work_done(tm, t);
        return false;
    }
    if (!room(t, true)) {
        bp_begin(tm, t);
        return false;
    }
    bp_end(tm, t);
    if (!evt_firing(t)) {
        t->end_after_fire = false;
        end_input(tm, t);
        return true;
    }
    uint32_t n = evt_fire_batch(tm, t);
    if (n == 0) return true;
    t->busy = true;
    t->busy_chan = UINT32_MAX - 1;                /* a batch of results: nothing to consume after it */
    task_timer(tm, t, cost_of(tm, t, n), TIMER_WORK_DONE);
    return false;
}

/* One committed batch of a Sink V2 committer on to its global committer;
 * false when the task waits (no room: a credit will pump) or finished. */
static bool pump_outbox(tm_side *tm, rt_task *t) {
    if (!room(t, true)) return false;
    sinkv2_drain(tm, t);
    if (sinkv2_outbox(t) > 0) return true;
    if (t->finish_after_outbox) {                 /* no final checkpoint: it finishes now */
        t->finish_after_outbox = false;
        finish(tm, t);
        return false;
    }
    maybe_finish(tm, t);
    return true;
}

void task_pump(tm_side *tm, rt_task *t) {
    if (t->life == LIFE_RESTORING) return;        /* input waits until the state is read */
    if (t->v->kind == JOB_SOURCE) {
        /* A source restored across a rescale sends the old subtasks'
         * output channel state mapped to it before it reads, or triggers. */
        while (t->life == LIFE_REPLAYING && !t->busy && pump_replay(tm, t)) {}
        if (t->life != LIFE_REPLAYING) source_kick(tm, t);
        return;
    }
    while (!t->busy && t->life != LIFE_FINISHED && t->syncing == 0) {
        if (t->life == LIFE_REPLAYING) {
            if (!pump_replay(tm, t)) return;
            continue;
        }
        if (tm->w->event_time && (evt_firing(t) || t->busy_pos > 0 || t->end_after_fire)) {   /* a risen watermark goes first */
            if (!pump_windows(tm, t)) return;
            continue;
        }
        if (t->cmt != NULL && sinkv2_outbox(t) > 0) {   /* a committer's committed batches go downstream */
            if (!pump_outbox(tm, t)) return;
            continue;
        }
        if (t->prio_count > 0) {
            uint32_t before = t->prio_count;
            take_priority(tm, t);
            if (t->prio_count == before) return;  /* no room: a credit or a request will pump */
            continue;
        }
        if (t->align_due) {
            t->align_due = false;
            align_check(tm, t);
            continue;
        }
        if (t->rpc_trigger != 0 && t->g.open == 0) {   /* every input ended: as a source, the task starts it */
            if (!room(t, false)) return;          /* its barrier needs room, as any control buffer's: a credit will pump */
            uint64_t ckpt = t->rpc_trigger;
            t->rpc_trigger = 0;
            if (ckpt > t->last_seen_ckpt) snap_trigger(tm, t, ckpt, false);   /* unless the gate took it meanwhile */
            continue;
        }
        rt_chan *best = next_input(tm, t);
        if (best == NULL) {
            arm_flush(tm, t);
            return;
        }
        const chan_buf *b = in_buf(tm, t->ready.head);   /* best's oldest */
        SIM_ASSERT((b->kind == BUF_BARRIER) == chan_slot_barrier(best, t->ready.head.slot, b));
        if (!room(t, b->kind == BUF_DATA)) {      /* backpressure: a credit will pump */
            bp_begin(tm, t);
            return;
        }
        bp_end(tm, t);
        (void)in_pop(tm, &t->ready);
        if (b->kind == BUF_DATA) {
            if (world_observed(tm->w)) {
                pipe_event e = { .kind = PIPE_EV_CONSUME, .task = t->id, .input = best->gate_index, .chan = best->id,
                                 .count = b->count, .first_id = b->count > 0 ? b->recs[0].id : 0 };
                tm_note_ev(tm, t, &e);
            }
            t->busy = true;
            t->busy_chan = best->id;
            prefetch_recs(b);
            task_timer(tm, t, cost_of(tm, t, b->count), TIMER_WORK_DONE);
            return;
        }
        take_control(tm, t, best, b);
    }
}

/* A buffer's records with watermarks among them, from busy_pos on: true
 * when all are taken; false when a watermark rose before the last (the
 * task sends it on, a window fires, as its next step; the pump then
 * takes the rest, busy_pos on). */
static bool timed_records(tm_side *tm, rt_task *t, rt_chan *c, const chan_buf *b) {
    for (uint32_t i = t->busy_pos; i < b->count; i++) {
        if (!win_is_watermark(&b->recs[i])) {
            apply(tm, t, c, &b->recs[i]);
            continue;
        }
        evt_on_watermark(tm, t, c, (win_wm)b->recs[i].event_time_ns);
        if (!evt_firing(t) || i + 1 == b->count) continue;
        t->busy_pos = i + 1;
        t->resume_chan = t->busy_chan;
        t->busy = false;
        task_pump(tm, t);
        return false;
    }
    t->busy_pos = 0;
    return true;
}

/* Inline into its callers (the timer's and the pump's, which resumes a
 * buffer after a watermark): once per data buffer, it was part of the
 * event's handling before windows gave it a second caller. */
static inline __attribute__((always_inline)) void work_done(tm_side *tm, rt_task *t) {
    SIM_ASSERT(t->busy);
    t->busy = false;
    if (t->busy_chan == UINT32_MAX) {             /* a replayed batch of channel state */
        for (uint32_t i = 0; i < t->replay_n; i++) {   /* a record's job channel: the input it came on */
            const job_chan *jc = &world_job(tm->w)->chans[t->replay_chans[i] & ~REPLAY_OUTPUT];
            if (t->replay_chans[i] & REPLAY_OUTPUT) {   /* a rescaled old subtask's output: through the partitioner */
                task_emit_on_edge(tm, t, jc->edge, &t->replay_recs[i]);
                continue;
            }
            apply(tm, t, task_in_chan(tm, t, jc->gate_index), &t->replay_recs[i]);
        }
        t->replay_n = 0;
        task_pump(tm, t);
        return;
    }
    if (t->busy_chan == UINT32_MAX - 1) {         /* a batch of window results */
        task_pump(tm, t);
        return;
    }
    rt_chan *c = &tm->chans[t->busy_chan];
    const chan_buf *b = task_buf(c, c->consumed);
    SIM_ASSERT(b->kind == BUF_DATA);
    if (!tm->w->event_time) {                     /* no watermark among the records: the plain loop */
        plain_records(tm, t, c, b);
    } else if (!timed_records(tm, t, c, b)) {
        return;                                   /* a watermark rose: it goes on first, then the rest */
    }
    consumed(tm, t, c);
    task_pump(tm, t);
}

/* ---- life cycle --------------------------------------------------------- */

sim_timer_id task_timer(tm_side *tm, rt_task *t, sim_time_ns delay_ns, uint64_t tag) {
    SIM_ASSERT(tag <= TASK_TAG_MASK);
    return sim_timer_set(tm->w->run, t->actor, delay_ns, task_io_tag(t, tag));
}

/* What a task of any attempt starts from: nothing running, nothing held. */
static void clear(tm_side *tm, rt_task *t, bool died) {
    if (died) t->bp_on = false;                   /* a crash cut it short, at a time the task never saw */
    else bp_end(tm, t);                           /* a cancelled attempt is held up no more */
    t->arrivals = 0;
    in_clear(t);
    t->busy = false;
    t->final_from = 0;
    t->final_done = false;
    t->stop_ckpt = 0;
    t->rpc_trigger = 0;
    t->failure_reported = t->failure_thrown = false;
    t->flush_timer = 0;
    t->source_waiting = false;
    t->triggers_queued = 0;
    t->parts_rr = 0;
    t->splits = 0;
    t->splits_final = false;
    for (uint32_t e = 0; e < t->out_edges_count; e++) t->out_edges[e].rr = 0;
    t->align_due = false;
    t->align_ckpt = 0;
    t->align_start_ckpt = 0;
    t->last_seen_ckpt = 0;
    memset(t->aborted, 0, sizeof t->aborted);
    t->aborted_next = 0;
    memset(t->ts_ckpt, 0, sizeof t->ts_ckpt);
    t->replay_n = 0;
    snap_clear(tm, t, died);
}

/* The channels of a new attempt: empty, and the inputs ask their
 * producers for data (Flink's partition request). */
static void connect(tm_side *tm, rt_task *t) {
    t->outs_short = t->outs_full = t->outs_filling = 0;
    for (uint32_t i = 0; i < t->jt->out_count; i++) {
        rt_chan *c = task_out_chan(tm, t, i);
        tm_fill(tm, c)->filling = false;
        c->filled = c->sent = c->acked = 0;
        SIM_ASSERT(c->ring_size <= CHAN_RING_MAX);  /* a slot fits a byte */
        c->free_count = (uint8_t)c->ring_size;      /* every slot free, slot 0 taken first */
        for (uint32_t k = 0; k < c->ring_size; k++) CHAN_FREE_SLOTS(c)[k] = (uint8_t)(c->ring_size - 1 - k);
        c->ring_short = c->queue_full = false;
        out_sync(tm, c);
        c->requested = c->early_request == t->epoch + 1;
        if (c->early_request <= t->epoch + 1) c->early_request = 0;   /* one of a newer attempt waits for it */
        c->prio_held = 0;
        c->off = !task_peer_runs(tm, t, c->consumer);
    }
    in_clear(t);
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        rt_chan *c = task_in_chan(tm, t, i);
        SIM_ASSERT(c->ring_size <= UINT16_MAX);    /* an in_ref's slot and number fit */
        c->received = c->consumed = 0;
        c->barrier_ckpt = c->barrier_at = 0;
        if (!task_peer_runs(tm, t, c->producer)) continue;   /* not deployed in this attempt: nothing to ask */
        sim_msg m = { .type = MSG_CREDIT, .a = proto_chan_word(t->epoch, c->id), .b = 0 };
        if (!link_send(tm->w->run, c->credit_link, &m, 64)) task_fail(tm, t);
    }
}

static void init_gate(tm_side *tm, rt_task *t) {
    t->data_open = t->jt->in_count;
    memset(t->data_ended, 0, sizeof t->data_ended);
    if (t->jt->in_count == 0) return;
    gate_mode mode = GATE_ALIGNED;
    if (tm->w->cfg.ckpt.mode == PIPE_AT_LEAST_ONCE || tm->w->cfg.bug == PIPE_BUG_NO_ALIGNMENT) mode = GATE_AT_LEAST_ONCE;
    if (tm->w->cfg.ckpt.mode == PIPE_UNALIGNED) mode = GATE_UNALIGNED;
    if (t->v->kind == JOB_COMMITTER && mode == GATE_UNALIGNED) mode = GATE_ALIGNED;   /* FLINK-36287: committables stay out of channel state */
    gate_init(&t->g, mode, t->jt->in_count, tm->w->cfg.ckpt.legacy_eop);
    if (tm->w->cfg.bug == PIPE_BUG_EOP_NO_MARK) t->g.bugs |= GATE_BUG_EOP_NO_MARK;        /* deliberate bugs */
    if (tm->w->cfg.bug == PIPE_BUG_NEWER_NO_ABORT) t->g.bugs |= GATE_BUG_NEWER_NO_ABORT;
    for (uint32_t i = 0; i < t->jt->in_count; i++) {   /* inputs from tasks the attempt does not run: ended */
        if (task_peer_runs(tm, t, task_in_chan(tm, t, i)->producer)) continue;
        gate_acts acts = { .count = 0 };
        gate_on_end(&t->g, i, &acts);             /* before any barrier: nothing to do */
        SIM_ASSERT(acts.count == 0);
        data_end(t, i);
    }
}

bool task_peer_runs(const tm_side *tm, const rt_task *t, uint32_t task) {
    const job_task *x = &world_job(tm->w)->tasks[task];
    uint32_t p = t->deploy.parallelism[x->vertex];
    return p == 0 || x->subtask < p;
}

/* The attempt's parallelism (the deployment's): a hash edge routes by
 * the consumers it runs, a rebalance or broadcast edge feeds those only;
 * a source reads the partitions of its share. */
static void take_parallelism(tm_side *tm, rt_task *t) {
    const job *j = world_job(tm->w);
    for (uint32_t e = 0; e < t->out_edges_count; e++) {
        rt_out_edge *oe = &t->out_edges[e];
        uint32_t p = t->deploy.parallelism[oe->to];
        oe->count = oe->part == JOB_FORWARD || p == 0 || p > oe->width ? oe->width : p;
    }
    if (t->v->kind != JOB_SOURCE) return;
    uint32_t p = t->deploy.parallelism[t->jt->vertex];
    uint32_t parts = tm->w->brk.topic[t->v->topic].cfg.partitions;
    t->parts_stride = p != 0 ? p : j->vertices[t->jt->vertex].parallelism;
    t->parts_count = t->jt->subtask < parts ? (parts - t->jt->subtask + t->parts_stride - 1) / t->parts_stride : 0;
    SIM_ASSERT(t->parts_count <= t->parts_cap);
}

/* The slot is free: say so until a deployment comes (RPCs are lossy). */
static void offer_slot(tm_side *tm, rt_task *t) {
    uint64_t process = tm->w->run->actors[t->actor].inc;   /* its own start number */
    sim_msg m = { .type = MSG_SLOT, .a = process, .b = (t->epoch << 32) | t->inst };   /* the slot is the instance's */
    task_send_rpc(tm, t, &m, NULL, 0);
    if (t->slot_timer) return;
    t->slot_timer = true;
    sim_timer_set(tm->w->run, t->actor, PIPE_SLOT_RETRY_RPCS * tm->w->cfg.rpc_latency_ns, TIMER_SLOT_RETRY);   /* any attempt's */
}

/* Cancelled, or its JobManager is gone: the task stops and drops what it
 * held; its slot is free for a new attempt. */
static void cancel(tm_side *tm, rt_task *t, uint64_t attempt) {
    if (t->life != LIFE_FREE) {
        clear(tm, t, false);
        task_life_to(t, LIFE_FREE);
    }
    t->epoch = attempt;
    offer_slot(tm, t);
}

/* The restore read ended (or there was nothing to read): the task takes
 * its state and starts. */
static void start(tm_side *tm, rt_task *t) {
    const msg_deploy *d = &t->deploy;
    task_life_to(t, LIFE_RUNNING);                /* snap_restore makes it REPLAYING when it has channel state */
    if (t->stateful && tm->w->cfg.bug == PIPE_BUG_COW_NO_BUMP) t->state.bugs |= KSTATE_BUG_NO_BUMP;   /* deliberate bug */
    snap_restore(tm, t, d);                        /* keyed state, sink transactions, channel state */
    evt_restored(tm, t);
    if (t->v->kind == JOB_SOURCE && tm->w->cfg.bug != PIPE_BUG_NO_REWIND) {   /* the bug: no rewind */
        for (uint32_t i = 0; i < t->parts_count; i++) tm_offsets(t)[t->parts_first + i * t->parts_stride] = 0;
        for (uint32_t i = 0; i < d->offsets_count; i++) tm_offsets(t)[d->offsets[i].partition] = d->offsets[i].next;
        for (uint32_t i = 0; i < t->parts_count; i++) {   /* for the reports: how far it set them back */
            uint32_t part = t->parts_first + i * t->parts_stride;
            world_rewind(tm->w, part, t->epoch, tm_offsets(t)[part]);
        }
    }
    for (uint32_t i = 0; i < d->offsets_count; i++) {   /* the splits its restored state holds */
        t->splits |= 1ull << ((d->offsets[i].partition - t->parts_first) / t->parts_stride);
    }
    source_kick(tm, t);
    task_pump(tm, t);
}

/* With slots, the deployment says where the tasks at the other ends of
 * the inputs and outputs run: its connections are the ones to them. */
static void take_hosts(tm_side *tm, rt_task *t, const msg_deploy *d) {
    if (tm->hosts == 1) return;
    SIM_ASSERT(d->hosts_count == t->jt->in_count + t->jt->out_count);
    for (uint32_t i = 0; i < t->jt->in_count; i++) t->in_host[i] = d->hosts[i];
    for (uint32_t i = 0; i < t->jt->out_count; i++) t->out_host[i] = d->hosts[t->jt->in_count + i];
    task_wire(tm, t);
}

void task_wire(tm_side *tm, rt_task *t) {
    const job *j = world_job(tm->w);
    for (uint32_t i = 0; i < t->jt->out_count; i++) {
        uint32_t jc = j->out_chan[t->jt->out_first + i];
        t->outs[i] = &tm->chans[tm->hosts == 1 ? jc : tm_conn(tm, jc, t->host, t->out_host[i])];
        t->out_fills[i] = tm_fill(tm, t->outs[i]);
    }
    for (uint32_t e = 0; e < t->out_edges_count; e++) {
        rt_out_edge *oe = &t->out_edges[e];
        oe->fills = t->out_fills[oe->first];
        for (uint32_t i = 1; i < oe->count && oe->fills != NULL; i++) {
            if (t->out_fills[oe->first + i] != oe->fills + i) oe->fills = NULL;
        }
    }
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        uint32_t jc = j->in_chan[t->jt->in_first + i];
        t->ins[i] = &tm->chans[tm->hosts == 1 ? jc : tm_conn(tm, jc, t->in_host[i], t->host)];
    }
}

/* A deployment of attempt `attempt` with what to restore: a newer one
 * replaces what the task runs (its cancellation may have been lost); a
 * repeat is confirmed again; an older one is stale. */
static void deploy(tm_side *tm, rt_task *t, uint64_t attempt, const msg_deploy *d) {
    if (attempt < t->epoch || (attempt == t->epoch && t->life != LIFE_FREE)) {
        if (attempt == t->epoch) task_rpc(tm, t, MSG_RUNNING, 0);   /* its confirmation was lost */
        return;
    }
    if (t->life != LIFE_FREE) {                   /* a newer attempt replaces it: as a cancel */
        clear(tm, t, false);
        task_life_to(t, LIFE_FREE);
    }
    t->epoch = attempt;
    t->deploy = *d;
    take_hosts(tm, t, d);
    take_parallelism(tm, t);
    init_gate(tm, t);
    connect(tm, t);
    evt_reset(tm, t);
    task_rpc(tm, t, MSG_RUNNING, 0);
    uint64_t bytes = snap_restore_bytes(tm, d);
    if (bytes == 0) {
        start(tm, t);
        return;
    }
    task_life_to(t, LIFE_RESTORING);              /* read the state first */
    uint32_t dev = tm->w->cfg.state.backend == PIPE_BACKEND_DURABLE ? tm->w->store_dev : tm->w->memory_dev;
    dev_read(tm->w->run, dev, t->actor, bytes, task_io_tag(t, IO_RESTORE));
}

/* Data, credit and priority messages of another attempt of the job: from
 * a zombie, or sent before a restart. Dropped and counted. */
static bool fenced(tm_side *tm, const rt_task *t, uint64_t word) {
    if (proto_word_attempt(word) == t->epoch) return false;
    REACHED(tm->w, FENCED_DATA);
    tm->w->stats.fenced_data++;
    return true;
}

/* The deliberate bug no-fencing: a data buffer of another attempt is not
 * dropped but consumed at once (its records applied), as a task that
 * checks no attempt would take a zombie's output. */
static void unfenced(tm_side *tm, rt_task *t, rt_chan *c, uint64_t n) {
    const chan_buf *b = task_buf(c, n);
    if (b->kind != BUF_DATA) return;
    for (uint32_t i = 0; i < b->count; i++) {
        if (!win_is_watermark(&b->recs[i])) apply(tm, t, c, &b->recs[i]);   /* its watermarks: not this attempt's */
    }
}

/* A data buffer arrived: it waits for the pump in arrival order. */
static void on_data(tm_side *tm, rt_task *t, const sim_msg *m) {
    rt_chan *c = &tm->chans[proto_word_low(m->a)];
    SIM_ASSERT(c->cons_inst == t->inst);
    if (fenced(tm, t, m->a)) {
        if (tm->w->cfg.bug == PIPE_BUG_NO_FENCING) unfenced(tm, t, c, m->b);   /* deliberate bug */
        return;
    }
    SIM_ASSERT(m->b == c->received);              /* FIFO link, one connection */
    uint8_t slot = CHAN_SLOT_OF(c)[m->b % c->ring_size];
    chan_buf *b = chan_slot_buf(c, slot);
    b->arrival = ++t->arrivals;
    bool barrier = chan_slot_barrier(c, slot, b);   /* not b->kind: its line is likely cold */
    if (barrier) task_ts_learn(t, b->ckpt, b->ts_ns, b->ck_type);
    if (barrier || t->g.mode == GATE_UNALIGNED || t->g.switched) {
        snap_on_data(tm, t, c, b);                 /* unaligned: persist what precedes the barrier */
    }
    c->received++;
    in_append(tm, &t->ready, (in_ref){ .chan1 = c->id + 1, .slot = slot, .n = (uint16_t)m->b });
    task_pump(tm, t);
}

/* An unaligned barrier overtook the queue: taken between batches. */
static void on_priority(tm_side *tm, rt_task *t, const sim_msg *m, const void *payload) {
    rt_chan *c = &tm->chans[proto_word_low(m->a)];
    SIM_ASSERT(c->cons_inst == t->inst);
    if (fenced(tm, t, m->a)) return;
    SIM_ASSERT(payload != NULL);
    task_ts_learn(t, m->b, ((const msg_trigger *)payload)->timestamp_ns, ((const msg_trigger *)payload)->type);
    if (m->b > c->barrier_ckpt) {
        c->barrier_ckpt = m->b;                   /* what came before it on this channel precedes it */
        c->barrier_at = c->received;
        SIM_ASSERT(t->prio_count < GATE_CHANNELS_MAX);
        t->prio_queue[t->prio_count++] = (uint64_t)c->id << 32 | m->b;
    }
    task_pump(tm, t);
}

/* Credit, or the consumer's first one: its request, which opens the channel. */
static void on_credit(tm_side *tm, rt_task *t, const sim_msg *m) {
    rt_chan *c = &tm->chans[proto_word_low(m->a)];
    SIM_ASSERT(c->prod_inst == t->inst);
    if (proto_word_attempt(m->a) > t->epoch) {    /* a request of an attempt not deployed here yet */
        SIM_ASSERT(m->b == 0);
        REACHED(tm->w, EARLY_REQUEST);
        c->early_request = proto_word_attempt(m->a) + 1;
        return;
    }
    if (fenced(tm, t, m->a)) return;
    if (!c->requested) {
        c->requested = true;
        if (c->prio_held != 0) snap_send_priority(tm, t, c, c->prio_held);
        c->prio_held = 0;
    }
    SIM_ASSERT(m->b <= c->sent);
    uint8_t *slot_of = CHAN_SLOT_OF(c), *free_slots = CHAN_FREE_SLOTS(c);
    for (; c->acked < m->b; c->acked++) free_slots[c->free_count++] = slot_of[c->acked % c->ring_size];
    send_ready(tm, c);
    task_pump(tm, t);
}

/* A trigger for a task that is not a source: the coordinator sends one
 * when every task upstream of it finished (FLIP-147's new sources of the
 * running graph). Their end of partition may still be on its way, so the
 * task takes it once every input ended, after all they sent, as Flink
 * puts the barrier behind what the channels still hold. */
static void rpc_trigger(tm_side *tm, rt_task *t, uint64_t ckpt) {
    if (ckpt <= t->last_seen_ckpt || ckpt <= t->rpc_trigger) return;
    REACHED(tm->w, TRIGGER_AFTER_UPSTREAM);
    t->rpc_trigger = ckpt;
    task_pump(tm, t);
}

static void note_notice(tm_side *tm, const rt_task *t, uint64_t ckpt, bool completed) {
    if (!world_observed(tm->w)) return;
    pipe_event e = { .kind = PIPE_EV_NOTICE, .task = t->id, .ckpt = ckpt, .chan = PIPE_NO_CHAN, .ok = completed };
    tm_note_ev(tm, t, &e);
}

static void on_msg(tm_side *tm, rt_task *t, const sim_msg *m, const void *payload) {
    switch (m->type) {
    case MSG_DATA: on_data(tm, t, m); break;
    case MSG_PRIORITY: on_priority(tm, t, m, payload); break;
    case MSG_CREDIT: on_credit(tm, t, m); break;
    case MSG_TRIGGER:
        if (m->b != t->epoch || t->life == LIFE_FINISHED) break;   /* a finished source is acked for */
        SIM_ASSERT(payload != NULL);
        task_ts_learn(t, m->a, ((const msg_trigger *)payload)->timestamp_ns, ((const msg_trigger *)payload)->type);
        if (t->v->kind != JOB_SOURCE) {           /* its upstream finished (FLIP-147) */
            rpc_trigger(tm, t, m->a);
            break;
        }
        /* A source held up by backpressure queues triggers. An abort notice
         * withdraws its checkpoint's (MSG_ABORTED), and it comes on the
         * same link before any later trigger, so the queue holds pending
         * checkpoints only, at most max-concurrent, unless notices were
         * lost: then the queue may fill, and its oldest goes (at most that
         * checkpoint fails: the coordinator has fewer pending than the
         * queue holds, and the oldest is the likeliest aborted). */
        if (trigger_known(t, m->a)) {               /* delivered twice: snap_trigger would ignore it */
            REACHED(tm->w, TRIGGER_OUT_OF_ORDER);
            break;
        }
        if (t->triggers_queued == PIPE_CONCURRENT_MAX + 1) forget_oldest_trigger(tm, t);
        t->trigger_queue[t->triggers_queued++] = m->a;
        source_triggers(tm, t);
        if (t->triggers_queued > 0) REACHED(tm->w, TRIGGER_QUEUED);
        break;
    case MSG_COMPLETE:                            /* notifyCheckpointComplete */
        /* Without checkpoints after tasks finish a finished task is gone:
         * its TaskExecutor drops the notice ("checkpoint confirmation for
         * unknown task", TaskExecutor.confirmCheckpoint), so a sink's
         * transactions wait for no commit any more. */
        if (m->b != t->epoch || (t->life == LIFE_FINISHED && tm->w->cfg.ckpt.finished_tasks_off)) break;
        note_notice(tm, t, m->a, true);
        snap_confirmed(tm, t, m->a);
        if ((t->life == LIFE_ENDING && t->final_from != 0 && m->a >= t->final_from) ||
            (t->stop_ckpt != 0 && m->a >= t->stop_ckpt && t->life != LIFE_FINISHED)) {
            t->final_done = true;                 /* its final checkpoint, or its stop's savepoint, completed: it may go */
            maybe_finish(tm, t);
        }
        if (t->cmt != NULL && sinkv2_outbox(t) > 0) task_pump(tm, t);   /* what a committer committed goes on */
        break;
    case MSG_ABORTED:                             /* notifyCheckpointAborted: stop its async part */
        if (m->b != t->epoch) break;              /* (a sink's pre-committed data waits for the next) */
        note_notice(tm, t, m->a, false);
        if (t->stop_ckpt != 0 && m->a == t->stop_ckpt) {   /* StreamTask: "Stop-with-savepoint failed." */
            REACHED(tm->w, STOP_SAVEPOINT_FAILED);
            task_fail(tm, t);
            break;
        }
        withdraw_trigger(tm, t, m->a);
        snap_abort(t, m->a);
        snap_note_aborted(t, m->a);
        if (tm->w->cfg.bug == PIPE_BUG_COMMIT_ON_ABORT && t->v->kind == JOB_SINK) sinktx_commit(tm, t, m->a);   /* deliberate bug */
        task_pump(tm, t);
        break;
    default:
        break;
    }
}

static void take_splits(tm_side *tm, rt_task *t, const msg_assign *a) {
    for (uint32_t k = 0; k < a->partitions_count; k++) {
        uint32_t part = a->partitions[k];
        SIM_ASSERT(part >= t->parts_first && (part - t->parts_first) % t->parts_stride == 0);
        uint64_t bit = 1ull << ((part - t->parts_first) / t->parts_stride);
        if (t->splits & bit) continue;            /* a repeated assignment */
        t->splits |= bit;
        if (tm->w->cfg.bug != PIPE_BUG_NO_REWIND) tm_offsets(t)[part] = 0;
        if (tm->w->cfg.bug != PIPE_BUG_NO_REWIND) world_rewind(tm->w, part, t->epoch, 0);
    }
    t->splits_final |= a->final != 0;
    task_rpc(tm, t, MSG_ASSIGN_ACK, 0);
    source_kick(tm, t);
}

/* Messages from the coordinator that a task takes whatever it runs
 * (undeployed, failed or not): true when the message was one of them. */
static bool control(tm_side *tm, rt_task *t, const sim_msg *m, const void *payload) {
    switch (m->type) {
    case MSG_DEPLOY:
        SIM_ASSERT(payload != NULL);
        deploy(tm, t, m->b, payload);
        return true;
    case MSG_CANCEL:                              /* attempt m->b replaces the task's */
        if (m->b > t->epoch || (m->b == t->epoch && t->life == LIFE_FREE)) cancel(tm, t, m->b);
        return true;
    case MSG_HEARTBEAT: {                         /* the TaskManager answers whatever its task does */
        sim_msg r = { .type = MSG_HEARTBEAT, .a = m->a, .b = (t->epoch << 32) | t->inst };
        task_send_rpc(tm, t, &r, NULL, 0);
        return true;
    }
    case MSG_CREDIT:                              /* an undeployed producer keeps a consumer's request */
        if (t->life != LIFE_FREE || m->b != 0 || proto_word_attempt(m->a) < t->epoch) return false;
        SIM_ASSERT(tm->chans[proto_word_low(m->a)].prod_inst == t->inst);
        REACHED(tm->w, EARLY_REQUEST);
        tm->chans[proto_word_low(m->a)].early_request = proto_word_attempt(m->a) + 1;
        return true;
    case MSG_ASSIGN:                              /* splits from the enumerator, to read from their start */
        if (t->life == LIFE_FREE || m->b != t->epoch) return true;
        SIM_ASSERT(payload != NULL && t->v->kind == JOB_SOURCE);
        take_splits(tm, t, payload);
        return true;
    default:
        return false;
    }
}

/* Timers and storage completions of the current attempt, tag stripped;
 * false for what an earlier attempt left behind. */
static bool current(const rt_task *t, uint64_t word, uint64_t *tag) {
    *tag = word & TASK_TAG_MASK;
    return word >> TASK_TAG_SHIFT == (t->epoch & 0xffffffu);
}

static void on_timer(tm_side *tm, rt_task *t, uint64_t tag) {
    if (tag == TIMER_WORK_DONE) {
        work_done(tm, t);
    } else if (tag == TIMER_SOURCE_NEXT) {
        source_read(tm, t);
    } else if (tag == TIMER_FINISHED_RETRY) {
        /* Backing off (to 64 times the first wait): a coordinator paused
         * for long gets a handful of repeats, not one every few ms. */
        send_finished(tm, t);
        if (t->finished_retries < 6) t->finished_retries++;
        task_timer(tm, t, (50 * tm->w->cfg.rpc_latency_ns) << t->finished_retries, TIMER_FINISHED_RETRY);
    } else if (tag == TIMER_SYNC_DONE) {
        if (snap_sync_done(tm, t)) task_pump(tm, t);
    } else if (tag >= TIMER_OUTPUT_BASE) {
        snap_output_timeout(tm, t, tag - TIMER_OUTPUT_BASE);
    } else if (tag == TIMER_ALIGN_TIMEOUT) {
        t->align_timer = 0;
        t->align_due = true;
        task_pump(tm, t);
    } else if (tag == TIMER_MATERIALIZE) {
        clog_materialize(tm, t);
    } else {
        SIM_ASSERT(tag == TIMER_FLUSH);
        t->flush_timer = 0;
        flush_all(tm, t);
    }
}

/* The kernel's events that concern the process rather than the attempt:
 * true when taken. */
static bool process_event(tm_side *tm, rt_task *t, const sim_event *ev) {
    switch (ev->kind) {
    case SIM_EV_START:                            /* a new process: no task until one is deployed */
        clear(tm, t, true);
        if (t->life != LIFE_FREE) task_life_to(t, LIFE_FREE);
        t->slot_timer = false;
        t->epoch = 0;
        offer_slot(tm, t);
        return true;
    case SIM_EV_TIMER:
        if (ev->msg.a != TIMER_SLOT_RETRY) return false;
        t->slot_timer = false;
        if (t->life == LIFE_FREE) offer_slot(tm, t);
        return true;
    case SIM_EV_LINK_DOWN:                        /* its JobManager is gone: Flink's TaskManager frees its slots */
        if (ev->aux != t->conn_to_coord) return false;
        REACHED(tm->w, LOST_JOBMANAGER);
        cancel(tm, t, t->epoch);
        return true;
    case SIM_EV_MSG:
        return control(tm, t, &ev->msg, sim_payload(tm->w->run, ev));
    default:
        return false;
    }
}

/* Whether a broken link is one of the attempt's connections: with slots
 * an instance has links to every host of its peers, and only those the
 * deployment named carry its data. */
static bool ours(const tm_side *tm, const rt_task *t, uint32_t link) {
    if (tm->hosts == 1 || link < tm->chan_link0 || link - tm->chan_link0 >= 2 * tm->conns) return true;
    uint32_t conn = (link - tm->chan_link0) / 2;
    const rt_chan *c = &tm->chans[conn];
    const job_chan *jc = &world_job(tm->w)->chans[c->jc];
    if (c->prod_inst == t->inst && task_out_chan(tm, t, jc->out_index) == c) return true;
    return c->cons_inst == t->inst && task_in_chan(tm, t, jc->gate_index) == c;
}

/* A coordinator command sent on another connection than the task's
 * current one (before it broke): dropped, counted. Else its word is
 * reduced to the attempt, as the handlers read it. */
static bool stale_command(tm_side *tm, const rt_task *t, const sim_event *ev, sim_event *copy) {
    if (ev->kind != SIM_EV_MSG || !proto_is_cmd(ev->msg.type)) return false;
    if (ev->msg.b >> 32 != tm->w->run->links[t->conn_to_coord].gen) {
        REACHED(tm->w, STALE_COMMAND);
        tm->w->stats.fenced_rpcs++;
        return true;
    }
    *copy = *ev;
    copy->msg.b &= 0xffffffffu;
    return false;
}

void task_life_to(rt_task *t, rt_life to) {
    static const bool legal[6][6] = {
        [LIFE_FREE] = { [LIFE_RESTORING] = true, [LIFE_RUNNING] = true },
        [LIFE_RESTORING] = { [LIFE_RUNNING] = true, [LIFE_FREE] = true },
        [LIFE_RUNNING] = { [LIFE_REPLAYING] = true, [LIFE_ENDING] = true, [LIFE_FINISHED] = true, [LIFE_FREE] = true },
        [LIFE_REPLAYING] = { [LIFE_RUNNING] = true, [LIFE_FREE] = true },
        [LIFE_ENDING] = { [LIFE_FINISHED] = true, [LIFE_FREE] = true },
        [LIFE_FINISHED] = { [LIFE_FREE] = true },
    };
    SIM_ASSERT(t->life <= LIFE_FINISHED && to <= LIFE_FINISHED);
    SIM_ASSERT(legal[t->life][to]);
    t->life = to;
}

/* Inlined into every event of a task: a handful of compares on fields the
 * event just touched. */
static inline __attribute__((always_inline)) void invariants(const rt_task *t) {
    SIM_ASSERT(t->life <= LIFE_FINISHED);
    if (t->life == LIFE_FREE) {                   /* cleared when it left its attempt */
        SIM_ASSERT(t->syncing == 0 && t->triggers_queued == 0 && t->rpc_trigger == 0 && t->prio_count == 0);
    }
    if (t->busy) SIM_ASSERT(t->life == LIFE_REPLAYING || t->life == LIFE_RUNNING || t->life == LIFE_ENDING);
    SIM_ASSERT(t->triggers_queued <= PIPE_CONCURRENT_MAX + 1);
    SIM_ASSERT(t->syncing <= PIPE_CONCURRENT_MAX + 1);
    SIM_ASSERT(t->life != LIFE_REPLAYING || t->replay_file != 0 || t->replay_n == 0);
}

void task_invariants(const rt_task *t) { invariants(t); }

static void task_event(sim_run *run, sim_actor *self, const sim_event *raw);

void task_on_event(sim_run *run, sim_actor *self, const sim_event *raw) {
    task_event(run, self, raw);
    invariants(self->ctx);
}

static void task_event(sim_run *run, sim_actor *self, const sim_event *raw) {
    rt_task *t = self->ctx;
    tm_side *tm = t->owner;
    SIM_ASSERT(tm->w->run == run);
    if (world_msgs(tm->w)) tm_note_recv(tm, t, raw);
    sim_event copy;
    const sim_event *ev = raw;
    if (raw->kind == SIM_EV_MSG && proto_is_cmd(raw->msg.type)) {   /* data, the hot path, copies nothing */
        if (stale_command(tm, t, raw, &copy)) return;
        ev = &copy;
    }
    if (process_event(tm, t, ev)) return;
    /* A free slot holds no task: what comes for one is ignored. */
    if (t->life == LIFE_FREE) {
        REACHED(tm->w, UNDEPLOYED);
        uint32_t type = ev->kind == SIM_EV_MSG ? ev->msg.type : 0;
        if (type == MSG_DATA || type == MSG_CREDIT || type == MSG_PRIORITY) {   /* of an attempt not running here */
            REACHED(tm->w, FENCED_DATA);
            tm->w->stats.fenced_data++;
        }
        return;
    }
    uint64_t tag = 0;
    if ((ev->kind == SIM_EV_TIMER || ev->kind == SIM_EV_IO_DONE) && !current(t, ev->msg.a, &tag)) return;
    /* A task that lost a connection has failed: it stops, and waits to be
     * cancelled and redeployed (its coordinator may be down meanwhile). */
    if (t->failure_reported) {
        if (ev->kind == SIM_EV_TIMER && tag == TIMER_FAIL_RETRY) {
            REACHED(tm->w, FAILURE_REPEATED);
            task_rpc(tm, t, MSG_FAILED, t->failure_thrown ? MSG_FAILED_THREW : 0);
            task_timer(tm, t, 50 * tm->w->cfg.rpc_latency_ns, TIMER_FAIL_RETRY);
        }
        return;
    }
    switch (ev->kind) {
    case SIM_EV_MSG:
        on_msg(tm, t, &ev->msg, sim_payload(run, ev));
        break;
    case SIM_EV_TIMER:
        on_timer(tm, t, tag);
        break;
    case SIM_EV_IO_DONE:
        if (tag == IO_RESTORE) {
            if (t->life == LIFE_RESTORING) start(tm, t);
        } else {
            if (snap_io_done(tm, t, tag, ev->gen == DEV_OK)) task_pump(tm, t);   /* ambiguous: no success to the writer */
        }
        break;
    case SIM_EV_LINK_DOWN:                        /* a peer died or the network split */
        if (ours(tm, t, ev->aux)) task_fail(tm, t);
        break;
    default:
        break;
    }
}
