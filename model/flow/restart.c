/* model/flow/restart.c: Flink's restart-backoff strategies (restart.h has
 * the contract and the Flink classes each part follows). */
#include "restart.h"

#include <stddef.h>

#include "../../sim/base.h"

const char *rs_cfg_error(const rs_cfg *c) {
    switch (c->kind) {
    case RS_NONE: return NULL;
    case RS_FIXED_DELAY: return c->delay < 0 ? "the delay must be at least 0" : NULL;
    case RS_FAILURE_RATE:
        if (c->max_failures < 1 || c->max_failures >= RS_WINDOW_MAX) return "max failures out of range";
        if (c->interval <= 0) return "the interval must be above 0";
        return c->delay < 0 ? "the delay must be at least 0" : NULL;
    case RS_EXPONENTIAL:
        if (c->initial < 1 || c->max < 1) return "the initial and the max backoff must be above 0";
        if (c->initial > c->max) return "the initial backoff must be at most the max backoff";
        if (c->multiplier_milli <= 1000) return "the multiplier must be above 1";
        if (c->reset < 1) return "the reset threshold must be above 0";
        if (c->jitter_milli > 1000) return "the jitter factor must be within 0 and 1";
        return c->attempts < 1 ? "the attempts before reset must be at least 1" : NULL;
    }
    return "unknown strategy";
}

void rs_init(rs_state *s) {
    *s = (rs_state){ .failures = 0 };
}

int64_t rs_exp_base(const rs_cfg *c, uint32_t k) {
    double m = (double)c->multiplier_milli / 1000.0, p = 1.0;
    for (uint32_t i = 0; i < k; i++) {            /* m^k by products: exact for 2^k, as Java's pow */
        p *= m;
        if ((double)c->initial * p >= (double)RS_BASE_MAX) return RS_BASE_MAX;
    }
    double b = (double)c->initial * p;
    SIM_ASSERT(b >= 1.0 && b < (double)RS_BASE_MAX);
    return (int64_t)b;                            /* truncated, as Java's (long) cast */
}

/* Failure rate: the ring holds at most max+1 times; the oldest goes first. */
static void rate_push(rs_state *s, const rs_cfg *c, int64_t now) {
    if (s->times_count > c->max_failures) {
        s->times_first = (s->times_first + 1) % RS_WINDOW_MAX;
        s->times_count--;
    }
    s->times[(s->times_first + s->times_count) % RS_WINDOW_MAX] = now;
    s->times_count++;
    SIM_ASSERT(s->times_count <= c->max_failures + 1);
}

static bool exp_notify(rs_state *s, const rs_cfg *c, int64_t now, rs_draw_fn draw, void *ctx) {
    if (s->scheduled && now <= s->next_restart) return false;   /* joins the scheduled attempt */
    if (!s->scheduled || now - s->next_restart >= c->reset) s->failures = 0;
    int64_t base = rs_exp_base(c, s->failures);
    int64_t off = (int64_t)((double)base * ((double)c->jitter_milli / 1000.0));
    int64_t j = 0;
    if (off > 0) {
        SIM_ASSERT(draw != NULL);
        j = draw(ctx, base, off);
        SIM_ASSERT(j >= -off && j <= off);
    }
    int64_t b = base + j;
    if (b > c->max) b = c->max;
    if (b < c->initial) b = c->initial;
    s->next_restart = now + b;
    s->scheduled = true;
    if (s->failures < UINT32_MAX) s->failures++;
    return true;
}

bool rs_notify(rs_state *s, const rs_cfg *c, int64_t now, rs_draw_fn draw, void *ctx) {
    switch (c->kind) {
    case RS_NONE: return true;
    case RS_FIXED_DELAY:
        if (s->failures < UINT32_MAX) s->failures++;
        return true;
    case RS_FAILURE_RATE:
        rate_push(s, c, now);
        return true;
    case RS_EXPONENTIAL: return exp_notify(s, c, now, draw, ctx);
    }
    SIM_ASSERT(!"unknown strategy");
    return true;
}

bool rs_can_restart(const rs_state *s, const rs_cfg *c, int64_t now) {
    switch (c->kind) {
    case RS_NONE: return false;
    case RS_FIXED_DELAY: return s->failures <= c->attempts;
    case RS_FAILURE_RATE:
        if (s->times_count <= c->max_failures) return true;
        return now - s->times[s->times_first] > c->interval;   /* strict: the window is closed */
    case RS_EXPONENTIAL: return c->attempts == RS_UNLIMITED || s->failures <= c->attempts;
    }
    return false;
}

int64_t rs_backoff(const rs_state *s, const rs_cfg *c, int64_t now) {
    switch (c->kind) {
    case RS_NONE: return 0;
    case RS_FIXED_DELAY:
    case RS_FAILURE_RATE: return c->delay;
    case RS_EXPONENTIAL:
        SIM_ASSERT(s->scheduled);                 /* Flink: "Please call notifyFailure first." */
        return s->next_restart > now ? s->next_restart - now : 0;
    }
    return 0;
}

rs_decision rs_on_failure(rs_state *s, const rs_cfg *c, int64_t now, rs_draw_fn draw, void *ctx) {
    bool before = s->scheduled && s->failures > 0;
    rs_decision d = { .new_attempt = rs_notify(s, c, now, draw, ctx) };
    d.reset = c->kind == RS_EXPONENTIAL && d.new_attempt && before && s->failures == 1;
    d.restart = rs_can_restart(s, c, now);
    if (d.restart) d.backoff = rs_backoff(s, c, now);
    SIM_ASSERT(d.backoff >= 0);
    return d;
}
