/* model/flow/restart.h: Flink's restart-backoff strategies as pure state
 * machines: after each failure of a job, whether it may restart, after how
 * long, and whether the failure opens a new attempt or joins the one
 * already scheduled.
 *
 * Contract (Flink 1.19 to 2.x, flink-runtime
 * org.apache.flink.runtime.executiongraph.failover; held to Flink's own
 * unit tests in tests/test_restart.c):
 * - fixed delay (FixedDelayRestartBackoffTimeStrategy): every failure
 *   counts; a restart is allowed while the failures seen are at most
 *   `attempts` (attempts N: N restarts, failure N+1 fails the job); the
 *   backoff is `delay`.
 * - failure rate (FailureRateRestartBackoffTimeStrategy, since FLINK-20752,
 *   1.12.1): the last max+1 failure times are kept; a restart is allowed
 *   unless max+1 are kept and the oldest is no more than `interval` before
 *   now: the window [now - interval, now] is closed at both ends, so M
 *   failures in it restart and the (M+1)-th fails the job.
 * - exponential delay (ExponentialDelayRestartBackoffTimeStrategy as
 *   FLIP-364 left it in 1.19, FLINK-33737 and FLINK-32895): a failure at or
 *   before the restart already scheduled joins that attempt (no state
 *   changes; its backoff is the time left until the scheduled restart).
 *   Otherwise the attempt count goes back to 0 when the failure comes at
 *   least `reset` after the scheduled restart (the job ran that long),
 *   the backoff is initial x multiplier^attempt plus a jitter drawn
 *   uniformly in +-(that x jitter), clamped to [initial, max], and the
 *   attempt count goes up; a restart is allowed while it is at most
 *   `attempts` (attempts-before-reset-backoff; RS_UNLIMITED: Flink's
 *   default, Integer.MAX_VALUE).
 * - none (NoRestartBackoffTimeStrategy): never.
 *
 * Times are in one unit of the caller's choosing: Flink's clocks count
 * milliseconds (the vectors use them), absim's coordinator nanoseconds.
 * The one place the unit shows is where the exponential backoff is
 * truncated to a whole unit (Flink: a whole millisecond).
 * Not modelled: the pre-1.19 exponential strategy (no attempt limit,
 * compounding truncation, reset measured from the last failure), and the
 * overflow of Flink's backoff past 2^63 ms (attempt 91 with the defaults).
 * Pure: no allocation; randomness only through the caller's draw. */
#ifndef MODEL_FLOW_RESTART_H
#define MODEL_FLOW_RESTART_H

#include <stdbool.h>
#include <stdint.h>

#define RS_WINDOW_MAX 64u              /* failure rate: max failures per interval + 1 */
#define RS_UNLIMITED  UINT32_MAX       /* exponential: no attempt limit (Flink's Integer.MAX_VALUE) */

typedef enum rs_kind {
    RS_NONE = 0,
    RS_FIXED_DELAY,
    RS_FAILURE_RATE,
    RS_EXPONENTIAL,
} rs_kind;

typedef struct rs_cfg {
    rs_kind  kind;
    uint32_t attempts;                 /* fixed delay: restarts; exponential: attempts before reset */
    int64_t  delay;                    /* fixed delay, failure rate: the backoff (>= 0) */
    uint32_t max_failures;             /* failure rate: per interval, 1..RS_WINDOW_MAX-1 */
    int64_t  interval;                 /* failure rate (> 0) */
    int64_t  initial, max, reset;      /* exponential: 1 <= initial <= max; reset >= 1 */
    uint32_t multiplier_milli;         /* exponential: x1000, > 1000 */
    uint32_t jitter_milli;             /* exponential: x1000, 0..1000 */
} rs_cfg;

typedef struct rs_state {
    uint32_t failures;                 /* fixed delay: seen; exponential: the attempt number */
    bool     scheduled;                /* exponential: next_restart holds a restart time */
    int64_t  next_restart;
    int64_t  times[RS_WINDOW_MAX];     /* failure rate: a ring of the last max+1 failures */
    uint32_t times_first, times_count;
} rs_state;

/* The jitter of an exponential backoff: a value uniform on [-off, off]
 * (off >= 1), drawn by the caller (absim: through the choice point). */
typedef int64_t (*rs_draw_fn)(void *ctx, int64_t base, int64_t off);

/* A failure's outcome. */
typedef struct rs_decision {
    bool    restart;                   /* false: the job fails */
    bool    new_attempt;               /* false: merged into the scheduled restart (exponential) */
    bool    reset;                     /* exponential: the attempt count went back to 0 (not the first failure) */
    int64_t backoff;                   /* the delay from now, when restart */
} rs_decision;

/* 0, or what is wrong with the configuration (Flink's constructor checks). */
const char *rs_cfg_error(const rs_cfg *c);

void rs_init(rs_state *s);

/* Flink's notifyFailure at time now: true when the failure opens a new
 * attempt. draw may be NULL when the jitter is 0. */
bool rs_notify(rs_state *s, const rs_cfg *c, int64_t now, rs_draw_fn draw, void *ctx);
bool rs_can_restart(const rs_state *s, const rs_cfg *c, int64_t now);
/* The backoff from now (exponential: until the scheduled restart, which
 * needs a failure first). */
int64_t rs_backoff(const rs_state *s, const rs_cfg *c, int64_t now);

/* What Flink's ExecutionFailureHandler does with a failure at now:
 * notify, then ask whether and when to restart. */
rs_decision rs_on_failure(rs_state *s, const rs_cfg *c, int64_t now, rs_draw_fn draw, void *ctx);

/* The exponential backoff of attempt k before jitter and clamping: the
 * truncated initial x multiplier^k, at most RS_BASE_MAX (the jitter's
 * base; Flink's own saturates at 2^63 - 1 and then overflows). */
#define RS_BASE_MAX (INT64_C(1) << 61)
int64_t rs_exp_base(const rs_cfg *c, uint32_t k);

#endif
