/* model/tm/note.c: the tasks' protocol steps for the observers (check/,
 * narrations, pictures). Control steps at a task with inputs also say
 * what its gate blocks and how many buffers wait there, and a step that
 * ends an alignment how many buffers had waited behind the inputs it
 * unblocks: measured after the step alone, the queue behind a barrier is
 * empty when it blocks (nothing came after it yet) and gone when it
 * unblocks, so the trace would never show it. */
#include "tm.h"

#include <string.h>

void tm_note_ev(tm_side *tm, const rt_task *t, pipe_event *e) {
    if (!world_observed(tm->w)) return;
    SIM_ASSERT(t == NULL || e->task == t->id);
    e->epoch = t != NULL ? t->epoch : 0;
    if (e->chan != PIPE_NO_CHAN) e->chan = tm->chans[e->chan].jc;   /* the observers know job channels */
    world_note_ev(tm->w, e);
}

static bool shows_gate(pipe_ev_kind kind) {
    return kind == PIPE_EV_BARRIER || kind == PIPE_EV_CANCEL || kind == PIPE_EV_END || kind == PIPE_EV_END_DATA ||
           kind == PIPE_EV_TRIGGER ||
           kind == PIPE_EV_DECLINE || kind == PIPE_EV_ALIGN_TIMEOUT;
}

static uint32_t queued(const tm_side *tm, const rt_task *t, uint32_t input) {
    const rt_chan *c = task_in_chan(tm, t, input);
    return (uint32_t)(c->received - c->consumed);
}

void tm_gate_look(const tm_side *tm, const rt_task *t, tm_gate_view *v) {
    memset(v, 0, sizeof *v);
    if (!world_observed(tm->w)) return;           /* only observers read it */
    v->looked = true;
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        if (gate_blocked(&t->g, i)) v->blocked[i / 64] |= 1ull << (i % 64);
    }
}

void tm_note(tm_side *tm, pipe_ev_kind kind, const rt_task *t, uint64_t ckpt) {
    if (!world_observed(tm->w)) return;
    tm_note_step(tm, t, &(pipe_event){ .kind = kind, .ckpt = ckpt }, NULL);
}

void tm_note_gate(tm_side *tm, pipe_ev_kind kind, const rt_task *t, uint32_t input, uint64_t ckpt, bool priority,
                  const tm_gate_view *before) {
    if (!world_observed(tm->w)) return;
    SIM_ASSERT(pipe_ev_info_of(kind)->fields & PIPE_F_INPUT);
    tm_note_step(tm, t, &(pipe_event){ .kind = kind, .ckpt = ckpt, .input = input, .priority = priority }, before);
}

void tm_note_step(tm_side *tm, const rt_task *t, pipe_event *e, const tm_gate_view *before) {
    if (!world_observed(tm->w)) return;
    e->task = t->id;
    e->chan = PIPE_NO_CHAN;
    if (shows_gate(e->kind) && t->jt->in_count > 0) {
        for (uint32_t i = 0; i < t->jt->in_count; i++) {
            bool now = gate_blocked(&t->g, i);
            bool was = before != NULL && before->looked && (before->blocked[i / 64] >> (i % 64) & 1);
            if (now) e->blocked++;
            if (now) e->waiting += queued(tm, t, i);
            if (was && !now) e->released += queued(tm, t, i);
        }
        if (pipe_ev_info_of(e->kind)->fields & PIPE_F_INPUT) e->chan = task_in_chan(tm, t, e->input)->id;
    }
    tm_note_ev(tm, t, e);
}

_Static_assert((int)PIPE_BUF_DATA == (int)BUF_DATA && (int)PIPE_BUF_BARRIER == (int)BUF_BARRIER &&
               (int)PIPE_BUF_CANCEL == (int)BUF_CANCEL && (int)PIPE_BUF_END == (int)BUF_END &&
               (int)PIPE_BUF_END_DATA == (int)BUF_END_DATA, "pipe_buf names buf_kind");

void tm_note_send(tm_side *tm, const rt_task *t, uint32_t link, uint32_t peer, const sim_msg *m, bool ok,
                  const rt_chan *c, const chan_buf *b) {
    const sim_link *l = &tm->w->run->links[link];
    pipe_event e = { .kind = PIPE_EV_SEND, .task = t->id, .epoch = t->epoch, .chan = PIPE_NO_CHAN, .peer = peer,
                     .link = link, .msg = m->type, .word_a = m->a, .word_b = m->b, .ok = ok,
                     .due_ns = ok ? l->last_arrival_ns : 0 };
    if (c != NULL) e.chan = c->jc;
    if (b != NULL) {                              /* a data buffer */
        e.buf = (pipe_buf)b->kind;
        e.count = b->kind == BUF_DATA ? b->count : 0;
        e.ckpt = b->ckpt;
    } else if (m->type == MSG_PRIORITY) {
        e.buf = PIPE_BUF_BARRIER;
        e.ckpt = m->b;
        e.priority = true;
    }
    world_note_msg(tm->w, &e);
}

void tm_note_watermark(tm_side *tm, const rt_task *t, int64_t wm) {
    if (!world_msgs(tm->w)) return;
    pipe_event e = { .kind = PIPE_EV_WATERMARK, .task = t->id, .epoch = t->epoch, .chan = PIPE_NO_CHAN,
                     .word_a = (uint64_t)wm };
    world_note_msg(tm->w, &e);
}

void tm_note_recv(tm_side *tm, const rt_task *t, const sim_event *ev) {
    if (ev->kind != SIM_EV_MSG || ev->aux == SIM_NO_LINK || ev->msg.type == MSG_CREDIT) return;
    bool data = ev->msg.type == MSG_DATA || ev->msg.type == MSG_PRIORITY;
    const rt_chan *c = data ? &tm->chans[proto_word_low(ev->msg.a)] : NULL;
    pipe_event e = { .kind = PIPE_EV_RECV, .task = t->id, .epoch = t->epoch, .chan = c != NULL ? c->jc : PIPE_NO_CHAN,
                     .peer = c != NULL ? c->producer : PIPE_NO_TASK, .link = ev->aux, .msg = ev->msg.type,
                     .word_a = ev->msg.a, .word_b = ev->msg.b };
    world_note_msg(tm->w, &e);
}
