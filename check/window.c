/* check/window.c: what I1, I2 and I3/I4 say of a window vertex, whose
 * state is not the fold of its input but depends on a watermark.
 *
 * The specification's map of a window (check/spec.h) holds each window's
 * contents, the fold of all its records, and the records of it that may
 * have come late. A window's state in the run is one of four: not seen
 * (no timer: every record of it is still in flight as channel state, or
 * to come), open (a timer at its end, never fired), fired (a timer at its
 * cleanup time, fired at least once), purged (no timer, contents zero,
 * fired at least once). What is checked, from the input alone:
 * - Contents of every window not purged equal the fold of its records in
 *   the prefix, exactly when none of them may have come late, else
 *   missing at most those; nothing else is in the state.
 * - The windows of one task fired and purged as one watermark W would
 *   have it (open: W < end; fired: end <= W < cleanup; purged: cleanup
 *   <= W), and W is at most what the input up to the checkpoint's
 *   offsets allows: a source's watermark is below every split it reads,
 *   so an operator's is below the lowest split's (input_bound).
 * - At the end every window fired and was purged, exactly once when
 *   none of its records may have come late; late aggregates are zero
 *   then, and never more than the records that may have come late.
 * - Output: the first firing of every window is visible as the sinks
 *   promise, later firings not at all when no record of it may have come
 *   late, and the highest firing's value is the window's sum (with an
 *   at-least-once promise, some firing's: a window fired and purged past
 *   the checkpoint's offsets is opened by the replay after a restore and
 *   fires again with fewer records); with an exactly-once promise, per key the highest firings' values and the
 *   late aggregate add up to the sum of the key's records in all its
 *   windows, or to less when some may have come after their window was
 *   purged: after a restore, whose watermark starts low, such records
 *   open the window again (as in Flink) and its highest firing holds only
 *   them. Never to more: no record counts twice.
 */
#include "check_int.h"

#include <inttypes.h>

static const kagg none = { 0 };

static const kagg *find(const kstate *s, uint64_t key, uint64_t wi, uint32_t tag) {
    const kagg *a = kstate_find(s, win_key(key, wi, (win_tag)tag));
    return a != NULL ? a : &none;
}

/* Bit u: vertex u is upstream of v (or v). */
static uint64_t upstream(const job *j, uint32_t v) {
    uint64_t up = 1ull << v;
    for (uint32_t pass = 0; pass < j->vertices_count; pass++) {
        for (uint32_t e = 0; e < j->edges_count; e++) {
            if (up >> j->edges[e].to & 1) up |= 1ull << j->edges[e].from;
        }
    }
    return up;
}

/* The highest event time of partition p's records before offset next. */
static win_wm before_max(const broker_topic_cfg *tc, uint32_t p, uint64_t next) {
    if (tc->event_gap_ns == 0) return 0;          /* every event time is 0 */
    uint64_t back = tc->disorder_ns / tc->event_gap_ns + 2, from = next > back ? next - back : 0;
    win_wm most = WIN_WM_MIN;                     /* records further back are earlier than record next - 1 */
    for (uint64_t o = from; o < next; o++) {
        win_wm et = (win_wm)broker_event_time(tc, p, o);
        if (et > most) most = et;
    }
    return most;
}

/* The highest watermark vertex v can have after its sources read up to
 * offsets: the lowest split watermark of a split read in part. */
static win_wm input_bound(const check_ctx *c, uint32_t v, const uint64_t *offsets) {
    const broker *b = pipe_broker(c->p);
    uint64_t up = upstream(c->j, v);
    win_wm low = WIN_WM_MAX;
    for (uint32_t s = 0; s < c->j->vertices_count; s++) {
        const job_vertex *x = &c->j->vertices[s];
        if (!(up >> s & 1) || x->kind != JOB_SOURCE) continue;
        const broker_topic *t = &b->topic[x->topic];
        for (uint32_t p = t->first; p < t->end; p++) {
            if (offsets[p] == 0 || offsets[p] >= t->cfg.records_per_partition) continue;
            win_wm w = before_max(&t->cfg, p, offsets[p]) - (win_wm)x->watermark_delay_ns - 1;
            if (w < low) low = w;
        }
    }
    return low;
}

typedef struct wcheck {
    const check_ctx *c;
    check_inv   inv;
    uint32_t    v;
    uint64_t    ckpt;
    sim_time_ns at_ns;
    bool        failed;
} wcheck;

static void fail(wcheck *k, uint64_t key, const char *what, uint64_t wi, uint64_t a, uint64_t b) {
    if (k->failed) return;                        /* the first problem of a vertex says enough */
    k->failed = true;
    const job_vertex *x = &k->c->j->vertices[k->v];
    check_where w = CHECK_AT(k->at_ns);
    w.vertex = k->v;
    w.ckpt = k->ckpt;
    w.key = key;
    int64_t start = win_start(x, wi);
    check_fail(k->c, k->inv, w, "%s, key %" PRIu64 ", window [%" PRId64 "ns, %" PRId64 "ns): %s (%" PRIu64 ", %" PRIu64 ")",
               x->name, key, start, start + (int64_t)x->window_size_ns, what, a, b);
}

/* One window of the specification's map E and what the run's map A
 * holds of it. */
typedef struct wview {
    uint64_t    mkey, key, wi;
    kagg        e;                    /* the fold of its records */
    const kagg *maybe, *timer, *got;  /* E's possibly late; A's timer and contents (zero when absent) */
} wview;

/* The next window of E from *pos (false when done); *maybe_all adds the
 * possibly late records it passes (may be NULL). */
static bool next_window(const kstate *E, const kstate *A, uint32_t *pos, wview *w, uint64_t *maybe_all) {
    while (kstate_next(E, pos, &w->mkey, &w->e)) {
        if (win_key_tag(w->mkey) == SPEC_POSSIBLY_LATE && maybe_all != NULL) *maybe_all += w->e.count;
        if (win_key_tag(w->mkey) != WIN_CONTENTS) continue;
        w->key = win_key_key(w->mkey);
        w->wi = win_key_index(w->mkey);
        w->maybe = find(E, w->key, w->wi, SPEC_POSSIBLY_LATE);
        w->timer = A != NULL ? find(A, w->key, w->wi, WIN_TIMER) : &none;
        w->got = A != NULL ? find(A, w->key, w->wi, WIN_CONTENTS) : &none;
        return true;
    }
    return false;
}

/* Contents got of a window whose prefix fold is want, of which maybe may
 * have come late (and been dropped), fired `firings` times. A window
 * purged and opened again after a restore (records that came late for
 * it: maybe) holds only what came since: at most the fold then. */
static bool contents_ok(const kagg *got, const kagg *want, const kagg *maybe, uint64_t firings) {
    if (maybe->count == 0) return got->count == want->count && got->sum == want->sum && got->fingerprint == want->fingerprint;
    if (firings > 0) return got->count <= want->count;
    return got->count <= want->count && got->count + maybe->count >= want->count;
}

/* Entries of the run's map that the prefix fold has no window for, and
 * late aggregates beyond the records that may have come late. */
static void extras(wcheck *k, const kstate *E, const kstate *A, uint64_t maybe_all) {
    uint32_t pos = 0;
    uint64_t mkey, late = 0;
    kagg a;
    while (kstate_next(A, &pos, &mkey, &a)) {
        uint64_t key = win_key_key(mkey), wi = win_key_index(mkey);
        if (win_key_tag(mkey) == WIN_LATE) {
            late += a.count;
            continue;
        }
        if (kstate_find(E, win_key(key, wi, WIN_CONTENTS)) != NULL) continue;
        if (a.count != 0 || a.sum != 0 || a.fingerprint != 0) fail(k, key, "state of a window no record of the input falls into", wi, a.count, 0);
    }
    if (late > maybe_all) fail(k, CHECK_NONE64, "more records counted late than may have come late", 0, late, maybe_all);
}

void check_window_cut(const check_ctx *c, uint32_t v, uint32_t par, const kstate *E, const kstate *A,
                      const uint64_t *offsets, uint64_t ckpt, sim_time_ns at_ns) {
    const job_vertex *x = &c->j->vertices[v];
    wcheck k = { .c = c, .inv = CHECK_I2, .v = v, .ckpt = ckpt, .at_ns = at_ns };
    win_wm lo[JOB_PARALLELISM_MAX], hi[JOB_PARALLELISM_MAX];   /* per task: the watermark W its windows say */
    uint64_t lo_key[JOB_PARALLELISM_MAX] = { 0 }, maybe_all = 0;
    for (uint32_t s = 0; s < par; s++) lo[s] = WIN_WM_MIN, hi[s] = WIN_WM_MAX;
    uint32_t pos = 0;
    wview w;
    while (next_window(E, A, &pos, &w, &maybe_all)) {
        uint64_t key = w.key, wi = w.wi, mkey = w.mkey;
        const kagg *maybe = w.maybe, *timer = w.timer, *got = w.got, e = w.e;
        uint32_t s = check_key_owner(c, v, mkey, par);   /* a hash input: never CHECK_NONE */
        SIM_ASSERT(s < par);
        win_wm end = win_max_ts(x, wi), clean = win_cleanup(x, wi), low = WIN_WM_MIN, high = WIN_WM_MAX;
        bool purged = false;
        if (timer->fingerprint == 0 && timer->count == 0 && timer->sum == 0) {
            /* not seen yet: all of it in flight */
        } else if (timer->fingerprint == 1 && (win_wm)timer->sum == end) {   /* fired before a restore, or never */
            high = end - 1;
        } else if (timer->fingerprint == 1 && timer->count > 0 && (win_wm)timer->sum == clean && clean > end) {
            low = end;
            high = clean - 1;
        } else if (timer->fingerprint == 0 && timer->count > 0 && timer->sum == 0) {
            low = clean;
            purged = true;
        } else {
            fail(&k, key, "its timer is none the window operator sets (firings, time)", wi, timer->count, timer->sum);
            continue;
        }
        if (purged ? got->count > maybe->count : !contents_ok(got, &e, maybe, timer->count))
            fail(&k, key, "its contents are not the fold of its records in the prefix (records counted, in the prefix)",
                 wi, got->count, e.count);
        if (low > lo[s]) lo[s] = low, lo_key[s] = mkey;
        /* A window open below one that fired: after a restore (the new
         * watermark starts low), for records that may come late only. */
        if (high < hi[s] && maybe->fingerprint == 0) hi[s] = high;
    }
    extras(&k, E, A, maybe_all);
    win_wm bound = input_bound(c, v, offsets);
    for (uint32_t s = 0; s < par && !k.failed; s++) {
        uint64_t key = win_key_key(lo_key[s]), wi = win_key_index(lo_key[s]);
        if (lo[s] > hi[s]) fail(&k, key, "it fired or was purged while an earlier window did not", wi, s, 0);
        else if (lo[s] > bound)
            fail(&k, key, "it fired or was purged before the input up to the checkpoint's offsets allowed "
                 "(subtask, highest watermark those offsets allow)", wi, s, (uint64_t)bound);
    }
}

bool check_window_final(const check_ctx *c, uint32_t v, const kstate *E, const kstate *A, sim_time_ns at_ns) {
    wcheck k = { .c = c, .inv = CHECK_I1, .v = v, .ckpt = CHECK_NONE64, .at_ns = at_ns };
    uint64_t maybe_all = 0;
    uint32_t pos = 0;
    wview w;
    while (next_window(E, A, &pos, &w, &maybe_all)) {
        uint64_t key = w.key, wi = w.wi;
        const kagg *maybe = w.maybe, *timer = w.timer, *got = w.got, e = w.e;
        bool dropped = timer->count == 0 && timer->fingerprint == 0 && maybe->count == e.count;   /* all came late */
        if (!dropped && (timer->fingerprint != 0 || timer->count == 0))
            fail(&k, key, "at the end it has not fired and been purged (firings, timer set)", wi, timer->count, timer->fingerprint);
        else if (maybe->fingerprint == 0 && timer->count != 1)
            fail(&k, key, "it fired other than once, though no record of it may have come late (firings, 1)", wi, timer->count, 1);
        else if (got->count > maybe->count)
            fail(&k, key, "purged, it still holds records (records, that may have come late)", wi, got->count, maybe->count);
    }
    extras(&k, E, A, maybe_all);
    return !k.failed;
}

/* No filter after v: every result reaches the sinks. */
static bool unfiltered(const job *j, uint32_t v) {
    for (uint32_t e = 0; e < j->edges_count; e++) {
        if (j->edges[e].from != v) continue;
        if (j->vertices[j->edges[e].to].kind == JOB_FILTER || !unfiltered(j, j->edges[e].to)) return false;
    }
    return true;
}

/* The output's counts (`expect output ...`): a window's result counts as
 * a record, lost or duplicated by its firings and its value. */
static void count_output(const check_ctx *c, uint64_t id, bool lost, bool dup) {
    check_report *r = c->report;
    r->out_records++;
    if (lost && r->out_lost++ == 0) r->out_first_lost = id;
    if (dup && r->out_duplicated++ == 0) r->out_first_duplicated = id;
}

/* One window's firings in the output. */
static void output_window(wcheck *k, bool promised, uint64_t key, uint64_t wi, const kagg *e, const kagg *maybe,
                          bool one_way, int64_t add) {
    const check_ctx *c = k->c;
    bool lost = false, dup = false;
    for (uint32_t f = 0; f < WIN_FIRINGS_MAX - 1; f++) {
        uint32_t got = pipe_result_count(c->p, k->v, key, wi, f);
        uint32_t want = f == 0 ? spec_result_visible(&c->sp, k->v, win_result_id(k->v, key, wi, 0)) : 0;
        bool optional = f > 0 ? maybe->fingerprint > 0 : maybe->count == e->count;   /* late records may make or drop it */
        if (optional) want = got > 0 ? spec_result_visible(&c->sp, k->v, win_result_id(k->v, key, wi, f)) : 0;
        lost |= got < want;
        dup |= got > want;
        if (got < want && c->report->applies[CHECK_I4]) k->inv = CHECK_I4, fail(k, key, "a firing is visible fewer times than the sinks promise (firing, times)", wi, f, got);
        if (got > want && promised) k->inv = CHECK_I3, fail(k, key, "a firing is visible more times than the sinks promise (firing, times)", wi, f, got);
    }
    uint32_t top;
    int64_t value, most;
    if (maybe->count == 0 && one_way && pipe_result_top(c->p, k->v, key, wi, &top, &value)) {
        bool shown = pipe_result_most(c->p, k->v, key, wi, &most);
        SIM_ASSERT(shown && most >= value);
        /* Exactly-once: the row the external system holds. At-least-once:
         * some firing showed the sum, as a restore may fire the window
         * again with fewer records (model/tm/sinktx.c). */
        int64_t low = promised ? value : most;
        lost |= low < e->sum + add;
        dup |= value > e->sum + add;
        if (low < e->sum + add && c->report->applies[CHECK_I4])
            k->inv = CHECK_I4, fail(k, key, promised ? "its result is below the sum of its records (result, sum)"
                                                     : "no firing of it showed the sum of its records (highest result, sum)",
                                    wi, (uint64_t)low, (uint64_t)(e->sum + add));
        if (value > e->sum + add && promised)
            k->inv = CHECK_I3, fail(k, key, "its result is above the sum of its records (result, sum)", wi, (uint64_t)value, (uint64_t)(e->sum + add));
    }
    count_output(c, win_result_id(k->v, key, wi, 0), lost, dup);
}

void check_window_output(const check_ctx *c, uint32_t v, const kstate *E, const kstate *A, bool promised,
                         int64_t *per_key, uint8_t *maybe_late, sim_time_ns at_ns) {
    wcheck k = { .c = c, .inv = CHECK_I3, .v = v, .ckpt = CHECK_NONE64, .at_ns = at_ns };
    int64_t add = 0;
    bool one_way = spec_result_add(&c->sp, v, &add);
    bool sums = promised && one_way && unfiltered(c->j, v);   /* per key: results and late add up */
    uint64_t keys = broker_cfg_keys(&c->cfg->broker);
    for (uint64_t i = 0; sums && i < keys; i++) per_key[i] = 0, maybe_late[i] = 0;
    uint32_t pos = 0;
    wview w;
    while (next_window(E, NULL, &pos, &w, NULL)) {
        uint64_t key = w.key, wi = w.wi;
        const kagg e = w.e;
        output_window(&k, promised, key, wi, &e, w.maybe, one_way, add);
        uint32_t top;
        int64_t value;
        if (!sums) continue;
        per_key[key] = (int64_t)((uint64_t)per_key[key] + (uint64_t)e.sum);
        if (pipe_result_top(c->p, v, key, wi, &top, &value)) per_key[key] = (int64_t)((uint64_t)per_key[key] - (uint64_t)(value - add));
        if (w.maybe->count > 0) maybe_late[key] = 1;
    }
    if (!sums) return;
    pos = 0;
    uint64_t mkey;
    kagg late;
    while (kstate_next(A, &pos, &mkey, &late)) {
        if (win_key_tag(mkey) == WIN_LATE) per_key[win_key_key(mkey)] -= late.sum;
    }
    k.inv = CHECK_I3;
    for (uint64_t i = 0; i < keys; i++) {           /* the sums are of values >= 1 after the maps: no wrap */
        if (per_key[i] < 0 || (per_key[i] > 0 && !maybe_late[i]))
            fail(&k, i, "the windows' results and the late records of the key do not add up to its records "
                 "(difference)", 0, (uint64_t)per_key[i], 0);
    }
}
