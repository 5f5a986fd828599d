/* model/tm/evtime.c: event time at the tasks: watermarks and windows.
 *
 * - A source with a watermark delay D keeps per split the highest event
 *   time it read; its watermark is the lowest over its assigned splits
 *   that are not at their end of (highest - D - 1), Flink's
 *   BoundedOutOfOrdernessWatermarks generated per split (FLIP-27), and
 *   it sends it on, when it rose, at most every watermark interval
 *   (between two reads, Flink's periodic emission), once the enumerator
 *   said it assigns it no more splits (a split assigned later would start
 *   behind the watermark: all its records late). A split read to its
 *   end holds nothing back; at the end of its input a source sends the
 *   highest watermark (WIN_WM_MAX), which fires every window.
 * - A watermark goes into every output's buffer among the records (a
 *   record with id WIN_WM_ID, model/flow/window.h), as Flink serializes
 *   it, so it costs no buffer of its own and alignment holds it back with
 *   the records. An operator's watermark is the lowest over its inputs
 *   (Flink's StatusWatermarkValve; an input that ended counts as
 *   WIN_WM_MAX). When it rises, the rest of the input buffer waits: the
 *   task sends it on as its next step (a window after firing what it made
 *   due), then takes the buffer's remaining records, as Flink processes a
 *   watermark before the next element.
 * - Watermarks are not in a snapshot: a restored task starts from
 *   WIN_WM_MIN and derives them again from its input, as Flink does.
 * - A window (model/flow/window.h) folds each record into its windows,
 *   or into the key's late aggregate for each window already purged; a
 *   record for a window that fired but is within the allowed lateness
 *   fires it again at once. A rising watermark starts a firing: the
 *   task's map is walked from the first live timer, a buffer's worth of
 *   results at a time (each result costs as a record), before any other
 *   input; the walk costs the live entries, not the map's capacity.
 */
#include "tm.h"

static sim_time_ns interval_of(const job_vertex *x) {
    return x->watermark_interval_ns > 0 ? x->watermark_interval_ns : SIM_NS_PER_MS;
}

void evt_reset(tm_side *tm, rt_task *t) {
    t->wm = WIN_WM_MIN;
    t->wm_sent = WIN_WM_MIN;
    t->wm_sent_ns = 0;
    t->fire_to = WIN_WM_MIN;
    t->wm_fired = WIN_WM_MIN;
    t->fire_pos = t->fire_from = 0;
    t->busy_pos = 0;
    t->fire_live = UINT32_MAX;
    t->end_after_fire = false;
    if (t->split_max != NULL) {
        for (uint32_t i = 0; i < t->parts_count; i++) t->split_max[i] = WIN_WM_MIN;
    }
    for (uint32_t i = 0; i < t->jt->in_count; i++) {   /* an input the attempt does not run ended already */
        bool ended = t->data_ended[i / 64] >> (i % 64) & 1;
        task_in_chan(tm, t, i)->in_wm = ended ? WIN_WM_MAX : WIN_WM_MIN;
    }
}

void evt_send(tm_side *tm, rt_task *t, win_wm wm) {
    SIM_ASSERT(wm > t->wm_sent);
    t->wm_sent = wm;
    t->wm_sent_ns = tm->w->run->now_ns;
    if (t->jt->out_count == 0) return;
    model_rec r = { .id = WIN_WM_ID, .event_time_ns = (sim_time_ns)wm };
    for (uint32_t i = 0; i < t->jt->out_count; i++) {   /* to the consumers the attempt runs (rescaling) */
        if (!task_out_chan(tm, t, i)->off) task_emit_to(tm, t, i, &r);
    }
    tm->w->stats.watermarks++;
    tm_note_watermark(tm, t, wm);
}

/* The source's watermark over its splits: false when no split holds it
 * (none assigned, or all read to the end). */
static bool source_wm(tm_side *tm, const rt_task *t, win_wm *out) {
    const broker_topic_cfg *tc = &tm->w->brk.topic[t->v->topic].cfg;
    if (!t->splits_final) return false;           /* a split still to come could be behind the others */
    bool any = false;
    win_wm low = WIN_WM_MAX;
    for (uint32_t i = 0; i < t->parts_count; i++) {
        uint32_t part = t->parts_first + i * t->parts_stride;
        if (!(t->splits >> i & 1) || tm_offsets(t)[part] >= tc->records_per_partition) continue;
        any = true;
        win_wm m = t->split_max[i] == WIN_WM_MIN ? WIN_WM_MIN
                                                  : t->split_max[i] - (win_wm)t->v->watermark_delay_ns - 1;
        if (m < low) low = m;
    }
    *out = low;
    SIM_ASSERT(!any || low < WIN_WM_MAX);         /* a split not read to its end holds it below the top */
    return any;
}

void evt_source_batch(tm_side *tm, rt_task *t) {
    if (!t->v->watermarks) return;
    if (t->wm_sent != WIN_WM_MIN && tm->w->run->now_ns - t->wm_sent_ns < interval_of(t->v)) return;
    win_wm wm;
    if (!source_wm(tm, t, &wm) || wm <= t->wm_sent) return;
    SIM_ASSERT(t->v->kind == JOB_SOURCE);
    t->wm = wm;
    evt_send(tm, t, wm);
}

void evt_on_watermark(tm_side *tm, rt_task *t, rt_chan *c, win_wm wm) {
    win_wm was = c->in_wm;
    if (wm <= was) return;                        /* a channel's watermark never falls */
    c->in_wm = wm;
    if (was > t->wm && tm->w->cfg.bug != PIPE_BUG_WATERMARK_HIGHEST) return;   /* not the lowest: the task's stays */
    win_wm low = WIN_WM_MAX;                      /* O(inputs) per watermark: they come once per interval */
    bool highest = tm->w->cfg.bug == PIPE_BUG_WATERMARK_HIGHEST;   /* deliberate bug */
    if (highest) low = wm;
    for (uint32_t i = 0; i < t->jt->in_count && !highest; i++) {
        win_wm x = task_in_chan(tm, t, i)->in_wm;
        if (x < low) low = x;
    }
    if (low <= t->wm) return;
    SIM_ASSERT(highest || low <= wm);             /* the lowest over the inputs, at most the one that rose */
    t->wm = low;
    t->fire_to = low;                             /* the task's next step sends it on (a window fires first) */
    t->fire_pos = t->fire_from;
    t->fire_live = UINT32_MAX;
    t->fire_count = t->purge_count = 0;
}

/* ---- windows ------------------------------------------------------------ */

static void fold(kagg *a, const model_rec *r) {
    a->count++;
    a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)r->value);   /* wraps, never UB */
    a->fingerprint += kstate_record_mark(r->id);
}

/* Window wi of key fires: its contents go downstream as one result. */
static void fire(tm_side *tm, rt_task *t, uint64_t key, uint64_t wi, uint64_t firing) {
    const kagg *c = kstate_find(&t->state, win_key(key, wi, WIN_CONTENTS));
    model_rec r = { .id = win_result_id(t->jt->vertex, key, wi, firing < WIN_FIRINGS_MAX ? (uint32_t)firing
                                                                                           : WIN_FIRINGS_MAX - 1),
                    .key = key, .value = c != NULL ? c->sum : 0, .event_time_ns = (sim_time_ns)win_max_ts(t->v, wi) };
    task_emit(tm, t, &r);
}

void evt_window_apply(tm_side *tm, rt_task *t, const model_rec *r) {
    const job_vertex *x = t->v;
    uint64_t wis[WIN_PER_RECORD_MAX];
    uint32_t n = win_assign(x, r->event_time_ns, wis);
    bool taken = false;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t wi = wis[k];
        if (win_cleanup(x, wi) <= t->wm) {        /* purged: late for this window */
            fold(kstate_upsert(&t->state, win_key(r->key, 0, WIN_LATE)), r);
            continue;
        }
        taken = true;
        fold(kstate_upsert(&t->state, win_key(r->key, wi, WIN_CONTENTS)), r);
        kagg *timer = kstate_upsert(&t->state, win_key(r->key, wi, WIN_TIMER));
        bool fired = win_max_ts(x, wi) <= t->wm;  /* within the allowed lateness: fire again now */
        if (timer->fingerprint == 0) {            /* no timer yet (or a window restored purged) */
            if (timer->count > 0) t->fire_from = 0;   /* an old entry, maybe below the firings' start: look from 0 */
            timer->fingerprint = 1;
            timer->sum = fired ? win_cleanup(x, wi) : win_max_ts(x, wi);
        }
        if (!fired) {                             /* the trigger's timer at its end, again after a restore */
            timer->sum = win_max_ts(x, wi);      /* (a restored window that fired took records in flight) */
            continue;
        }
        uint64_t firing = timer->count++;
        fire(tm, t, r->key, wi, firing);
        tm->w->stats.late_firings++;
        REACHED(tm->w, WINDOW_FIRED_LATE);
    }
    if (!taken) {
        tm->w->stats.late_records++;
        REACHED(tm->w, LATE_DROPPED);
    }
}

/* The timer of the entry at map position pos (key, window wi) is due at
 * watermark w: fire the window if it is its firing time, purge it if it
 * is its cleanup time. True when it emitted a result. */
static bool timer_due(tm_side *tm, rt_task *t, uint32_t pos, uint64_t key, uint64_t wi, win_wm w) {
    const job_vertex *x = t->v;
    kagg *timer = kstate_upsert(&t->state, win_key(key, wi, WIN_TIMER));
    bool firing = timer->sum == win_max_ts(x, wi);
    uint64_t n = firing ? timer->count++ : 0;
    if (win_cleanup(x, wi) <= w) {                /* purged: the map has no deletions, zero is absent */
        t->purge_count++;
        timer->sum = 0;
        timer->fingerprint = 0;
    } else {
        timer->sum = win_cleanup(x, wi);
        if (pos < t->fire_live) t->fire_live = pos;
    }
    if (firing) {
        t->fire_count++;
        fire(tm, t, key, wi, n);
        tm->w->stats.windows_fired++;
        REACHED(tm->w, WINDOW_FIRED);
        if (pos < t->restored_entries) REACHED(tm->w, RESTORED_WINDOW_FIRED);
    }
    if (timer->fingerprint == 0) *kstate_upsert(&t->state, win_key(key, wi, WIN_CONTENTS)) = (kagg){ 0 };
    return firing;
}

uint32_t evt_fire_batch(tm_side *tm, rt_task *t) {
    SIM_ASSERT(evt_firing(t));
    uint32_t n = 0;
    while (n < CHAN_BUF_RECORDS && t->v->kind == JOB_WINDOW) {
        uint32_t pos = t->fire_pos;
        uint64_t mkey;
        kagg agg;
        if (!kstate_next(&t->state, &t->fire_pos, &mkey, &agg)) break;
        if (win_key_tag(mkey) != WIN_TIMER || agg.fingerprint == 0) continue;
        if ((win_wm)agg.sum > t->fire_to) {       /* not due yet: live */
            if (pos < t->fire_live) t->fire_live = pos;
            continue;
        }
        n += timer_due(tm, t, pos, win_key_key(mkey), win_key_index(mkey), t->fire_to);
    }
    if (n > 0 || (t->v->kind == JOB_WINDOW && t->fire_pos < t->state.count)) return n;
    t->wm_fired = t->fire_to;                     /* the walk is over: every due timer went */
    if (t->v->kind == JOB_WINDOW) t->fire_from = t->fire_live == UINT32_MAX ? t->state.count : t->fire_live;
    if (t->v->kind == JOB_WINDOW && t->fire_count + t->purge_count > 0 && world_observed(tm->w)) {
        pipe_event e = { .kind = PIPE_EV_WINDOWS_FIRED, .task = t->id, .chan = PIPE_NO_CHAN, .count = t->fire_count,
                         .bytes = t->purge_count, .word_a = (uint64_t)t->fire_to };
        tm_note_ev(tm, t, &e);
    }
    if (t->fire_to > t->wm_sent) evt_send(tm, t, t->fire_to);
    return 0;
}

/* The restored state is in the map. With the deliberate bug
 * restore-drops-timers every window's timer is gone then (its firings
 * kept), as if timers were not in the snapshot. */
void evt_restored(tm_side *tm, rt_task *t) {
    if (t->v->kind != JOB_WINDOW) return;
    t->restored_entries = t->state.count;         /* a restore fills a cleared map: positions 0 .. count */
    if (tm->w->cfg.bug != PIPE_BUG_RESTORE_DROPS_TIMERS) return;
    uint32_t pos = 0;
    uint64_t mkey;
    kagg agg;
    while (kstate_next(&t->state, &pos, &mkey, &agg)) {
        if (win_key_tag(mkey) != WIN_TIMER || agg.fingerprint == 0) continue;
        kagg *timer = kstate_upsert(&t->state, mkey);
        timer->fingerprint = 0;
        timer->sum = 0;
    }
}
