/* reports/axis.h: the time axis of pictures of a run: one linear scale,
 * with breaks. What teaches happens in bursts (a checkpoint's barriers
 * cross a hop in 50 us, the next checkpoint comes 20 ms later): drawn
 * whole on one scale, either the burst is a hair or the picture is
 * metres wide. So the axis leaves the quiet stretches out, as breaks a
 * reader sees, and draws everything else on one scale, so that two
 * lengths on the picture compare as the times they stand for.
 *
 * Contract:
 * - axis_build() takes the window [from, to] and busy spans (any order,
 *   overlapping or not, clipped to the window) and lays the window out
 *   from x0: spans merged where they overlap; one scale for the whole
 *   axis, the busy time over target_px, raised so that the shortest span
 *   that asks for a least width (min_px > 0) gets it, as long as the busy
 *   spans stay within max_width_px and the scale within max_px_per_ms.
 *   A quiet stretch is drawn at that scale unless it would be wider than
 *   gap_px; then it is a break: gap_px wide, marked `gap`, not to scale.
 *   No busy span: the window is one segment, linear.
 * - Every segment that is not a break has the same pixels per ns.
 * - axis_x() is monotone (non-decreasing) in t and maps from to x0 and to
 *   to x_end; times outside the window are clamped to its ends.
 * - Everything is integer nanoseconds in and doubles out, computed the
 *   same way on every run: the layout depends on its inputs only.
 */
#ifndef REPORTS_AXIS_H
#define REPORTS_AXIS_H

#include <stdbool.h>
#include <stdint.h>

#include "../sim/base.h"

#define AXIS_SEGS_MAX 128u

typedef struct axis_span {
    sim_time_ns t0, t1;
    double      min_px;               /* the least width it asks for (0: none); merged spans keep the larger */
} axis_span;

typedef struct axis_cfg {
    double target_px;                 /* width the busy spans share at the plain scale */
    double max_width_px;              /* the busy spans' width when raised for a span's min_px, at most */
    double gap_px;                    /* a break's width */
    double max_px_per_ms;             /* the scale's limit */
} axis_cfg;

typedef struct axis_seg {
    sim_time_ns t0, t1;
    double      x0, x1;
    bool        gap;                  /* a break: left out, not to scale */
} axis_seg;

typedef struct axis {
    axis_seg    seg[AXIS_SEGS_MAX];
    uint32_t    count;
    sim_time_ns from, to;
    double      x0, x_end;
    double      px_per_ns;            /* the one scale of every segment but the breaks */
} axis;

/* spans: n of them (the array is sorted in place). More busy spans than
 * fit AXIS_SEGS_MAX segments are merged with their neighbours. */
void   axis_build(axis *a, sim_time_ns from, sim_time_ns to, axis_span *spans, uint32_t n, double x0,
                  const axis_cfg *cfg);
double axis_x(const axis *a, sim_time_ns t);
/* The segment t falls in (times outside the window: the first or last). */
uint32_t axis_seg_of(const axis *a, sim_time_ns t);
/* Tick spacing: a round step (1, 2, 5 x 10^k ns) at least min_px apart
 * at the axis's scale. */
sim_time_ns axis_tick_ns(const axis *a, double min_px);

#endif
