/* model/tm/note.c: the tasks' protocol steps for the observers (check/,
 * narrations, pictures). Control steps at a task with inputs also say
 * what its gate blocks and how many buffers wait there. */
#include "tm.h"

void tm_note_ev(tm_side *tm, pipe_event *e) {
    if (!world_observed(tm->w)) return;
    e->epoch = e->task != PIPE_NO_TASK ? tm->tasks[e->task].epoch : 0;
    world_note_ev(tm->w, e);
}

static bool shows_gate(pipe_ev_kind kind) {
    return kind == PIPE_EV_BARRIER || kind == PIPE_EV_CANCEL || kind == PIPE_EV_END || kind == PIPE_EV_TRIGGER ||
           kind == PIPE_EV_DECLINE;
}

void tm_note(tm_side *tm, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt) {
    tm_note_barrier(tm, kind, task, channel, ckpt, false);
}

void tm_note_barrier(tm_side *tm, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt, bool priority) {
    if (!world_observed(tm->w)) return;
    pipe_event e = { .kind = kind, .task = task, .channel = channel, .ckpt = ckpt, .chan = PIPE_NO_CHAN, .priority = priority };
    const job *j = world_job(tm->w);
    const rt_task *t = &tm->tasks[task];
    if (shows_gate(kind) && t->jt->in_count > 0) {
        for (uint32_t i = 0; i < t->jt->in_count; i++) {
            if (!gate_blocked(&t->g, i)) continue;
            const rt_chan *c = &tm->chans[j->in_chan[t->jt->in_first + i]];
            e.blocked++;
            e.waiting += (uint32_t)(c->received - c->consumed);
        }
        if (kind != PIPE_EV_TRIGGER && kind != PIPE_EV_DECLINE) e.chan = j->in_chan[t->jt->in_first + channel];
    }
    tm_note_ev(tm, &e);
}
