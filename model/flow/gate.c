/* model/flow/gate.c: barrier handling in a task's input gate.
 *
 * Aligned and unaligned share Flink's SingleCheckpointBarrierHandler state:
 *
 *     current == last_done          idle (no checkpoint pending)
 *     current  > last_done          pending: aligning (aligned) or
 *                                   collecting channel state (unaligned)
 *
 * A pending checkpoint ends by trigger (aligned: the last barrier;
 * unaligned: it triggered at the first, and ends at the last) or by abort;
 * either way last_done = current and every channel is unblocked.
 * At-least-once is Flink's CheckpointBarrierTracker: a deque of tracked
 * checkpoints, oldest first, none of them blocking anything. */
#include "gate.h"

#include <string.h>

static bool set_has(const gate_chanset *s, uint32_t c) {
    return (s->words[c / 64] >> (c % 64)) & 1u;
}

static bool set_add(gate_chanset *s, uint32_t c) {   /* true when newly added */
    uint64_t bit = 1ull << (c % 64);
    if (s->words[c / 64] & bit) return false;
    s->words[c / 64] |= bit;
    return true;
}

static void act(gate_acts *out, gate_act_kind kind, uint64_t ckpt) {
    SIM_ASSERT(out->count < GATE_ACTS_MAX);
    SIM_ASSERT(ckpt > 0);
    out->items[out->count++] = (gate_act){ .kind = kind, .ckpt = ckpt };
}

const char *gate_mode_name(gate_mode mode) {
    switch (mode) {
    case GATE_ALIGNED:       return "aligned";
    case GATE_AT_LEAST_ONCE: return "at-least-once";
    case GATE_UNALIGNED:     return "unaligned";
    }
    return "?";
}

void gate_init(gate *g, gate_mode mode, uint32_t channels, bool legacy_eop) {
    SIM_ASSERT(mode >= GATE_ALIGNED && mode <= GATE_UNALIGNED);
    SIM_ASSERT(channels >= 1 && channels <= GATE_CHANNELS_MAX);
    memset(g, 0, sizeof *g);
    g->mode = mode;
    g->legacy_eop = legacy_eop;
    g->channels = channels;
    g->open = channels;
}

/* ---- aligned and unaligned: one checkpoint at a time ------------------- */

static bool single_pending(const gate *g) {
    return g->current > g->last_done;
}

/* The alignment ends: every channel is unblocked. */
static void release(gate *g) {
    memset(&g->aligned, 0, sizeof g->aligned);
    g->aligned_count = 0;
    g->switched = false;
    g->releases++;
}

static void single_abort(gate *g, uint64_t ckpt, gate_acts *out) {
    if (ckpt > g->current) g->current = ckpt;
    if (ckpt > g->last_done) g->last_done = ckpt;
    release(g);
    g->target = 0;
    act(out, GATE_ABORT, ckpt);
    SIM_ASSERT(!single_pending(g));
}

/* Channel c delivered the current checkpoint's barrier (or ended). */
static void single_mark(gate *g, uint32_t c, gate_acts *out) {
    SIM_ASSERT(single_pending(g));
    if (!set_add(&g->aligned, c)) return;        /* its barrier came already; now it ended */
    g->aligned_count++;
    SIM_ASSERT(g->aligned_count <= g->target);
    if (g->mode == GATE_UNALIGNED && g->aligned_count == 1) {
        act(out, GATE_TRIGGER, g->current);      /* the barrier overtook the data */
        out->items[out->count - 1].unaligned = true;
    }
    if (g->aligned_count == g->target) {
        if (g->mode == GATE_ALIGNED && !g->switched) act(out, GATE_TRIGGER, g->current);
        g->last_done = g->current;
        release(g);
    }
}

/* A barrier of `ckpt` arrived: false when it is obsolete; the first
 * barrier of a newer checkpoint aborts a pending one (subsumed) and starts
 * the new one, targeting the channels open now. */
static bool single_start(gate *g, uint64_t ckpt, gate_acts *out) {
    if (ckpt < g->current || (ckpt == g->current && !single_pending(g))) {
        out->saw |= GATE_SAW_OBSOLETE;
        return false;
    }
    if (ckpt > g->current && single_pending(g) && (g->bugs & GATE_BUG_NEWER_NO_ABORT)) return false;
    if (ckpt > g->current) {
        if (single_pending(g)) {
            out->saw |= GATE_SAW_NEWER_ABORTS;
            single_abort(g, g->current, out);
        }
        g->current = ckpt;
        memset(&g->aligned, 0, sizeof g->aligned);
        g->aligned_count = 0;
        g->target = g->open;
        g->switched = false;
    }
    return true;
}

static void single_barrier(gate *g, uint32_t c, uint64_t ckpt, gate_acts *out) {
    if (single_start(g, ckpt, out)) single_mark(g, c, out);
}

static void single_cancel(gate *g, uint64_t ckpt, gate_acts *out) {
    if (ckpt > g->current || (ckpt == g->current && g->aligned_count > 0)) {
        if (single_pending(g)) out->saw |= GATE_SAW_CANCEL_ENDS;
        single_abort(g, ckpt, out);
    }
}

static void single_end(gate *g, uint32_t c, gate_acts *out) {
    if (!single_pending(g)) return;
    if (g->legacy_eop) {
        single_abort(g, g->current, out);
    } else if (g->bugs & GATE_BUG_EOP_NO_MARK) {
        return;                                  /* the bug: the alignment still waits for this channel */
    } else {
        out->saw |= GATE_SAW_END_MARKS;
        single_mark(g, c, out);                  /* end of partition counts as its barrier */
    }
}

/* ---- at-least-once: the barrier tracker --------------------------------- */

static gate_tracked *tracked_at(gate *g, uint32_t i) {   /* i-th oldest */
    SIM_ASSERT(i < g->tracked_count);
    return &g->tracked[(g->tracked_first + i) % (GATE_TRACKED_MAX + 1)];
}

static void tracked_drop_first(gate *g, uint32_t n) {
    SIM_ASSERT(n <= g->tracked_count);
    g->tracked_first = (g->tracked_first + n) % (GATE_TRACKED_MAX + 1);
    g->tracked_count -= n;
}

static gate_tracked *tracked_push(gate *g, bool front, uint64_t ckpt, uint32_t c) {
    SIM_ASSERT(g->tracked_count <= GATE_TRACKED_MAX);
    uint32_t slot;
    if (front) {
        g->tracked_first = (g->tracked_first + GATE_TRACKED_MAX) % (GATE_TRACKED_MAX + 1);
        slot = g->tracked_first;
    } else {
        slot = (g->tracked_first + g->tracked_count) % (GATE_TRACKED_MAX + 1);
    }
    g->tracked_count++;
    gate_tracked *t = &g->tracked[slot];
    memset(t, 0, sizeof *t);
    t->ckpt = ckpt;
    t->target = g->open;
    set_add(&t->aligned, c);
    t->aligned_count = 1;
    return t;
}

static uint32_t tracked_mark(gate_tracked *t, uint32_t c) {
    if (set_add(&t->aligned, c)) t->aligned_count++;
    return t->aligned_count;
}

/* Tracked checkpoint at position pos completed: drop it and every older one
 * (silently: they are subsumed), and trigger it unless it was aborted. */
static void tracked_complete(gate *g, uint32_t pos, gate_acts *out) {
    gate_tracked t = *tracked_at(g, pos);
    tracked_drop_first(g, pos + 1);
    if (!t.aborted) act(out, GATE_TRIGGER, t.ckpt);
}

static void tracker_barrier(gate *g, uint32_t c, uint64_t ckpt, gate_acts *out) {
    if (ckpt > g->latest && g->open == 1) {      /* one open channel: at once */
        act(out, GATE_TRIGGER, ckpt);
        return;
    }
    for (uint32_t i = 0; i < g->tracked_count; i++) {
        gate_tracked *t = tracked_at(g, i);
        if (t->ckpt != ckpt) continue;
        if (tracked_mark(t, c) == t->target) tracked_complete(g, i, out);
        return;
    }
    if (ckpt > g->latest) {                      /* the first barrier of a newer one */
        g->latest = ckpt;
        if (g->tracked_count > 0) out->saw |= GATE_SAW_TRACKS_TWO;
        tracked_push(g, false, ckpt, c);
        if (g->tracked_count > GATE_TRACKED_MAX) tracked_drop_first(g, 1);
    }
}

static void tracker_cancel(gate *g, uint32_t c, uint64_t ckpt, gate_acts *out) {
    if (ckpt > g->latest && g->open == 1) {
        act(out, GATE_ABORT, ckpt);
        return;
    }
    while (g->tracked_count > 0 && tracked_at(g, 0)->ckpt < ckpt) {   /* older ones go too */
        gate_tracked *t = tracked_at(g, 0);
        bool first_abort = !t->aborted;
        uint64_t id = t->ckpt;
        tracked_drop_first(g, 1);
        if (first_abort) act(out, GATE_ABORT, id);
    }
    if (g->tracked_count > 0 && tracked_at(g, 0)->ckpt == ckpt) {
        gate_tracked *t = tracked_at(g, 0);
        if (!t->aborted) {
            out->saw |= GATE_SAW_CANCEL_ENDS;
            t->aborted = true;
            act(out, GATE_ABORT, ckpt);
        }
        /* keep counting, to forget it once every barrier or marker came */
        if (tracked_mark(t, c) == t->target) tracked_drop_first(g, 1);
    } else if (ckpt > g->latest) {
        act(out, GATE_ABORT, ckpt);
        g->latest = ckpt;
        tracked_push(g, true, ckpt, c)->aborted = true;
    }
}

static void tracker_end(gate *g, uint32_t c, gate_acts *out) {
    if (g->legacy_eop) {
        while (g->tracked_count > 0) {
            gate_tracked *t = tracked_at(g, 0);
            bool first_abort = !t->aborted;
            uint64_t id = t->ckpt;
            tracked_drop_first(g, 1);
            if (first_abort) act(out, GATE_ABORT, id);
        }
        return;
    }
    /* Newest first: the newest checkpoint this channel was the last one
     * missing for completes, and takes every older one with it. */
    for (uint32_t i = g->tracked_count; i-- > 0;) {
        gate_tracked *t = tracked_at(g, i);
        if (tracked_mark(t, c) == t->target) {
            out->saw |= GATE_SAW_END_MARKS;
            tracked_complete(g, i, out);
            return;
        }
    }
}

/* ---- entry points -------------------------------------------------------- */

void gate_on_barrier(gate *g, uint32_t channel, uint64_t ckpt, gate_acts *out) {
    SIM_ASSERT(channel < g->channels);
    SIM_ASSERT(ckpt > 0);
    SIM_ASSERT(!set_has(&g->ended, channel));    /* nothing follows end of partition */
    SIM_ASSERT(!gate_blocked(g, channel));       /* a blocked channel is not consumed */
    if (g->mode == GATE_AT_LEAST_ONCE) {
        tracker_barrier(g, channel, ckpt, out);
    } else {
        single_barrier(g, channel, ckpt, out);
    }
}

void gate_on_cancel(gate *g, uint32_t channel, uint64_t ckpt, gate_acts *out) {
    SIM_ASSERT(channel < g->channels);
    SIM_ASSERT(ckpt > 0);
    SIM_ASSERT(!set_has(&g->ended, channel));
    SIM_ASSERT(!gate_blocked(g, channel));
    if (g->mode == GATE_AT_LEAST_ONCE) {
        tracker_cancel(g, channel, ckpt, out);
    } else {
        single_cancel(g, ckpt, out);
    }
}

void gate_on_end(gate *g, uint32_t channel, gate_acts *out) {
    SIM_ASSERT(channel < g->channels);
    SIM_ASSERT(!gate_blocked(g, channel));
    SIM_ASSERT(set_add(&g->ended, channel));      /* a channel ends once */
    SIM_ASSERT(g->open > 0);
    g->open--;
    if (g->mode == GATE_AT_LEAST_ONCE) {
        tracker_end(g, channel, out);
    } else {
        single_end(g, channel, out);
    }
}

void gate_on_priority_barrier(gate *g, uint32_t channel, uint64_t ckpt, gate_acts *out) {
    SIM_ASSERT(channel < g->channels);
    SIM_ASSERT(ckpt > 0);
    SIM_ASSERT(!set_has(&g->ended, channel));
    SIM_ASSERT(g->mode != GATE_AT_LEAST_ONCE);    /* at-least-once barriers are never priority */
    if (g->mode == GATE_UNALIGNED) {
        single_barrier(g, channel, ckpt, out);
        return;
    }
    /* Aligned: the checkpoint is unaligned from here on, even when this
     * barrier is the last one missing: what it overtook on its channel is
     * channel state, not data to process before the snapshot. */
    if (!single_start(g, ckpt, out)) return;
    gate_on_alignment_timeout(g, ckpt, out);
    single_mark(g, channel, out);
}

void gate_on_alignment_timeout(gate *g, uint64_t ckpt, gate_acts *out) {
    if (g->mode != GATE_ALIGNED || !single_pending(g) || g->current != ckpt || g->switched) return;
    g->switched = true;
    g->releases++;                               /* blocked channels unblock */
    act(out, GATE_TRIGGER, ckpt);
    out->items[out->count - 1].unaligned = true;
    /* Channels that delivered the barrier stay marked but no longer block
     * (gate_blocked looks at `switched`): their queued data follows the
     * barrier. The others persist until theirs comes (gate_persist_ckpt). */
}

bool gate_unaligned_pending(const gate *g) {
    return (g->mode == GATE_UNALIGNED || g->switched) && single_pending(g);
}

bool gate_blocked(const gate *g, uint32_t channel) {
    SIM_ASSERT(channel < g->channels);
    return g->mode == GATE_ALIGNED && !g->switched && single_pending(g) && set_has(&g->aligned, channel);
}

bool gate_ended(const gate *g, uint32_t channel) {
    SIM_ASSERT(channel < g->channels);
    return set_has(&g->ended, channel);
}

bool gate_persist_ckpt(const gate *g, uint32_t channel, uint64_t *ckpt) {
    SIM_ASSERT(channel < g->channels);
    if (!gate_unaligned_pending(g)) return false;
    if (set_has(&g->aligned, channel) || set_has(&g->ended, channel)) return false;
    *ckpt = g->current;
    return true;
}

bool gate_pending(const gate *g) {
    return g->mode == GATE_AT_LEAST_ONCE ? g->tracked_count > 0 : single_pending(g);
}
