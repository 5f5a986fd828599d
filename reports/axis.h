/* reports/axis.h: a broken time axis for pictures of a run. What teaches
 * happens in bursts (a checkpoint's barriers cross a hop in 50 us, the
 * next checkpoint comes 20 ms later): on one linear scale either the
 * burst is a hair or the picture is metres wide. So the axis draws busy
 * spans to scale and squeezes the quiet gaps between them to a fixed
 * width, marked as breaks.
 *
 * Contract:
 * - axis_build() takes the window [from, to] and busy spans (any order,
 *   overlapping or not, clipped to the window) and lays the window out
 *   from x0: spans merged where they overlap, each drawn at the common
 *   scale (busy time over the target width, at most max_px_per_ms) or,
 *   when that leaves it narrower than its least width (its own, else
 *   min_span_px), stretched to that; a
 *   gap drawn at the common scale unless that is wider than gap_px, then
 *   squeezed to gap_px and marked `gap`. No busy span: the window is one
 *   span, linear.
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
    double      min_px;               /* its own least width (0: min_span_px); merged spans keep the larger */
} axis_span;

typedef struct axis_cfg {
    double target_px;                 /* width the busy spans share at the common scale */
    double min_span_px;               /* no busy span narrower */
    double gap_px;                    /* a squeezed gap's width */
    double max_px_per_ms;             /* the common scale's limit */
} axis_cfg;

typedef struct axis_seg {
    sim_time_ns t0, t1;
    double      x0, x1;
    bool        gap;                  /* squeezed: not to scale */
} axis_seg;

typedef struct axis {
    axis_seg    seg[AXIS_SEGS_MAX];
    uint32_t    count;
    sim_time_ns from, to;
    double      x0, x_end;
} axis;

/* spans: n of them (the array is sorted in place). More busy spans than
 * fit AXIS_SEGS_MAX segments are merged with their neighbours. */
void   axis_build(axis *a, sim_time_ns from, sim_time_ns to, axis_span *spans, uint32_t n, double x0,
                  const axis_cfg *cfg);
double axis_x(const axis *a, sim_time_ns t);
/* The segment t falls in (times outside the window: the first or last). */
uint32_t axis_seg_of(const axis *a, sim_time_ns t);
/* Tick spacing for segment s: a round step (1, 2, 5 x 10^k ns) at least
 * min_px apart; 0 for a gap. */
sim_time_ns axis_tick_ns(const axis *a, uint32_t s, double min_px);

#endif
