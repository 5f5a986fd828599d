/* reports/axis.c: one linear time scale with breaks (see axis.h). */
#include "axis.h"

#include <stdlib.h>
#include <string.h>

static int by_start(const void *pa, const void *pb) {
    const axis_span *a = pa, *b = pb;
    if (a->t0 != b->t0) return a->t0 < b->t0 ? -1 : 1;
    if (a->t1 != b->t1) return a->t1 < b->t1 ? -1 : 1;
    return 0;
}

/* Clip to the window, sort, merge overlapping spans; then, while there
 * are more than fit (a span and a gap each, and one gap more), merge the
 * two closest neighbours (the first such pair: the same every run). */
static uint32_t normalise(axis_span *s, uint32_t n, sim_time_ns from, sim_time_ns to) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        sim_time_ns t0 = s[i].t0 > from ? s[i].t0 : from, t1 = s[i].t1 < to ? s[i].t1 : to;
        if (t1 > t0) s[k++] = (axis_span){ t0, t1, s[i].min_px };
    }
    if (k > 1) qsort(s, k, sizeof *s, by_start);   /* s may be NULL when n is 0 */
    uint32_t m = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (m > 0 && s[i].t0 <= s[m - 1].t1) {
            if (s[i].t1 > s[m - 1].t1) s[m - 1].t1 = s[i].t1;
            if (s[i].min_px > s[m - 1].min_px) s[m - 1].min_px = s[i].min_px;
        } else {
            s[m++] = s[i];
        }
    }
    const uint32_t most = (AXIS_SEGS_MAX - 1) / 2;
    while (m > most) {
        uint32_t best = 0;
        for (uint32_t i = 1; i + 1 < m; i++) {
            if (s[i + 1].t0 - s[i].t1 < s[best + 1].t0 - s[best].t1) best = i;
        }
        s[best].t1 = s[best + 1].t1;
        if (s[best + 1].min_px > s[best].min_px) s[best].min_px = s[best + 1].min_px;
        memmove(&s[best + 1], &s[best + 2], (m - best - 2) * sizeof *s);
        m--;
    }
    return m;
}

static void add_seg(axis *a, sim_time_ns t0, sim_time_ns t1, double w, bool gap) {
    SIM_ASSERT(a->count < AXIS_SEGS_MAX);
    double x = a->x_end;
    a->seg[a->count++] = (axis_seg){ .t0 = t0, .t1 = t1, .x0 = x, .x1 = x + w, .gap = gap };
    a->x_end = x + w;
}

/* A quiet stretch: to scale, or a break when that is too wide. */
static void add_gap(axis *a, sim_time_ns t0, sim_time_ns t1, const axis_cfg *cfg) {
    if (t1 <= t0) return;
    double w = (double)(t1 - t0) * a->px_per_ns;
    bool squeeze = w > cfg->gap_px;
    add_seg(a, t0, t1, squeeze ? cfg->gap_px : w, squeeze);
}

/* The one scale: busy time over the target width, raised for the span
 * that asks most (its least width over its length) while the busy spans
 * fit max_width_px, never past max_px_per_ms. */
static double choose_scale(const axis_span *s, uint32_t m, const axis_cfg *cfg) {
    sim_time_ns busy = 0;
    double want = 0;
    for (uint32_t i = 0; i < m; i++) {
        busy += s[i].t1 - s[i].t0;
        double w = s[i].min_px / (double)(s[i].t1 - s[i].t0);
        if (w > want) want = w;
    }
    double px_per_ns = cfg->target_px / (double)busy;
    double widest = cfg->max_width_px / (double)busy;
    if (want > widest) want = widest;
    if (want > px_per_ns) px_per_ns = want;
    if (px_per_ns > cfg->max_px_per_ms / 1e6) px_per_ns = cfg->max_px_per_ms / 1e6;
    return px_per_ns;
}

void axis_build(axis *a, sim_time_ns from, sim_time_ns to, axis_span *spans, uint32_t n, double x0,
                const axis_cfg *cfg) {
    SIM_ASSERT(cfg->target_px > 0 && cfg->max_width_px >= cfg->target_px && cfg->gap_px > 0);
    memset(a, 0, sizeof *a);
    if (to <= from) to = from + 1;
    a->from = from;
    a->to = to;
    a->x0 = a->x_end = x0;
    uint32_t m = normalise(spans, n, from, to);
    if (m == 0) {
        a->px_per_ns = cfg->target_px / (double)(to - from);
        add_seg(a, from, to, cfg->target_px, false);
        return;
    }
    a->px_per_ns = choose_scale(spans, m, cfg);
    sim_time_ns at = from;
    for (uint32_t i = 0; i < m; i++) {
        add_gap(a, at, spans[i].t0, cfg);
        add_seg(a, spans[i].t0, spans[i].t1, (double)(spans[i].t1 - spans[i].t0) * a->px_per_ns, false);
        at = spans[i].t1;
    }
    add_gap(a, at, to, cfg);
    SIM_ASSERT(a->count > 0 && a->seg[a->count - 1].t1 == to);
}

uint32_t axis_seg_of(const axis *a, sim_time_ns t) {
    uint32_t lo = 0, hi = a->count - 1;          /* the last segment with t0 <= t */
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (a->seg[mid].t0 <= t) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

double axis_x(const axis *a, sim_time_ns t) {
    if (t <= a->from) return a->x0;
    if (t >= a->to) return a->x_end;
    const axis_seg *s = &a->seg[axis_seg_of(a, t)];
    return s->x0 + (s->x1 - s->x0) * ((double)(t - s->t0) / (double)(s->t1 - s->t0));
}

sim_time_ns axis_tick_ns(const axis *a, double min_px) {
    SIM_ASSERT(a->px_per_ns > 0);
    static const sim_time_ns steps[] = { 1, 2, 5 };
    for (sim_time_ns decade = 1; decade <= 1000000000000ull; decade *= 10) {
        for (uint32_t i = 0; i < 3; i++) {
            if ((double)(steps[i] * decade) * a->px_per_ns >= min_px) return steps[i] * decade;
        }
    }
    return 0;
}
