/* tests/test_flinkvec_window.c: absim's event time held to Apache Flink's
 * own unit tests. Each vector is transcribed from one Flink test method:
 * its inputs (element timestamps, window size, slide, allowed lateness,
 * watermarks) and the outputs Flink's test expects; none of Flink's code
 * is here. Every test names its Flink method as Class#method.
 *
 * Sources (apache/flink; the versions read, by commit):
 * - flink-runtime/src/test/java/org/apache/flink/streaming/runtime/
 *   operators/windowing/TumblingEventTimeWindowsTest.java and
 *   SlidingEventTimeWindowsTest.java (51f1684b; the same vectors as the
 *   older copies under flink-streaming-java/src/test/java/, 067bc183 and
 *   162894c6), WindowOperatorContractTest.java (47a02f63, the contract
 *   RegularWindowOperatorContractTest runs).
 * - flink-streaming-java/src/test/java/org/apache/flink/streaming/runtime/
 *   operators/windowing/TimeWindowTest.java (60c01d3a),
 *   WindowOperatorTest.java (6da38a6a), EventTimeTriggerTest.java
 *   (1b68496d).
 * - flink-core/src/test/java/org/apache/flink/api/common/eventtime/
 *   BoundedOutOfOrdernessWatermarksTest.java (0420837a),
 *   AscendingTimestampsWatermarksTest.java (db41c1da),
 *   WatermarkOutputMultiplexerTest.java (0fe383b7).
 *
 * How they are run:
 * - Window assignment, maxTimestamp and the cleanup time go to the pure
 *   functions of model/flow/window.h. Flink's millisecond timestamps are
 *   passed as they are: window.h's arithmetic has no unit.
 * - WindowOperator sequences (elements and watermarks in, window results
 *   out) go to the window task's own code, model/tm/evtime.c, on a bench:
 *   one task with one input channel and no outputs, built by hand
 *   (white-box, as tests/test_task.c). A result is seen in the task's
 *   state: the window's timer counts its firings, and the result carries
 *   the window's sum (its contents before a watermark's firing, after the
 *   element's for a firing on a late element). A watermark step fires
 *   exactly the results Flink's test expects and no other; an element
 *   Flink sends to the late side output is one absim drops as late.
 *   Flink's snapshot-and-restore in the middle of a sequence is left out:
 *   its expected outputs are those of an uninterrupted run.
 * - Watermark generation is not a pure function in absim: a source keeps
 *   per split the highest event time it read (model/tm/task.c, in its read
 *   loop) and evt_source_batch() (model/tm/evtime.c) sends, periodically,
 *   the lowest over its splits not read to their end of highest - delay -
 *   1. The bench sets the highest event time per split as that read loop
 *   does and calls evt_source_batch() itself.
 *
 * Left out: Flink's window offsets and staggering (absim's windows start
 * at multiples of the slide: offset 0), negative timestamps (absim's event
 * times are unsigned), session and merging windows, processing time,
 * triggers other than EventTimeTrigger (a purging trigger's values),
 * idleness, and timestamps near Long.MAX_VALUE (testCleanupTimeOverflow). */
#include "harness.h"

#include "../model/pipe_int.h"

#define KEY1 1u                               /* Flink's "key1" */
#define KEY2 2u                               /* Flink's "key2" */
#define FV_ANY INT64_MIN                      /* a result's sum not compared */
#define FV_OUTS 6u
#define BENCH_SPLITS 3u
#define BENCH_INTERVAL 200u                   /* the source's watermark interval */

_Static_assert(WIN_WM_MIN == INT64_MIN, "absim's lowest watermark is Java's Long.MIN_VALUE");

/* ---- window.h: assignment, maxTimestamp, cleanup time ---------------------- */

static job_vertex window_of(int64_t size, int64_t slide, int64_t lateness) {
    return (job_vertex){ .kind = JOB_WINDOW, .window_size_ns = (sim_time_ns)size,
                         .window_slide_ns = (sim_time_ns)slide, .lateness_ns = (sim_time_ns)lateness };
}

/* The windows of timestamp ts are exactly [start, start + size) for the
 * n starts given, in any order. */
static void expect_windows(const job_vertex *x, int64_t ts, const int64_t *starts, uint32_t n) {
    uint64_t wi[WIN_PER_RECORD_MAX];
    uint32_t got = win_assign(x, (sim_time_ns)ts, wi);
    if (got != n) fail_msg("timestamp %lld: %u windows, Flink %u", (long long)ts, got, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t found = 0;
        for (uint32_t k = 0; k < got; k++) {
            if (win_start(x, wi[k]) != starts[i]) continue;
            found++;
            assert_int_equal(win_max_ts(x, wi[k]), starts[i] + (int64_t)x->window_size_ns - 1);
        }
        if (found != 1) fail_msg("timestamp %lld: window [%lld, +size) found %u times", (long long)ts,
                                 (long long)starts[i], found);
    }
}

/* The window whose maxTimestamp is max_ts (it holds max_ts). */
static uint64_t window_ending(const job_vertex *x, int64_t max_ts) {
    uint64_t wi[WIN_PER_RECORD_MAX];
    uint32_t n = win_assign(x, (sim_time_ns)max_ts, wi);
    for (uint32_t k = 0; k < n; k++) {
        if (win_max_ts(x, wi[k]) == max_ts) return wi[k];
    }
    fail_msg("no window ends at %lld", (long long)max_ts);
    return 0;
}

/* Flink's WindowOperator#isWindowLate: cleanupTime <= current watermark. */
static bool window_late(const job_vertex *x, int64_t max_ts, win_wm wm) {
    return win_cleanup(x, window_ending(x, max_ts)) <= wm;
}

/* TumblingEventTimeWindowsTest#testWindowAssignment (flink-runtime/src/test/
 * java/org/apache/flink/streaming/runtime/operators/windowing/): size 5000. */
static void test_tumbling_windows_of_5000_hold_0_and_4999_together_and_5000_in_the_next(void **state) {
    (void)state;
    job_vertex x = window_of(5000, 5000, 0);
    expect_windows(&x, 0, (int64_t[]){ 0 }, 1);
    expect_windows(&x, 4999, (int64_t[]){ 0 }, 1);
    expect_windows(&x, 5000, (int64_t[]){ 5000 }, 1);
}

/* SlidingEventTimeWindowsTest#testWindowAssignment (flink-runtime/src/test/
 * java/org/apache/flink/streaming/runtime/operators/windowing/): size 5000,
 * slide 1000, five windows each, the first ones starting below 0. */
static void test_sliding_windows_of_5000_every_1000_put_each_timestamp_in_five_windows(void **state) {
    (void)state;
    job_vertex x = window_of(5000, 1000, 0);
    expect_windows(&x, 0, (int64_t[]){ -4000, -3000, -2000, -1000, 0 }, 5);
    expect_windows(&x, 4999, (int64_t[]){ 0, 1000, 2000, 3000, 4000 }, 5);
    expect_windows(&x, 5000, (int64_t[]){ 1000, 2000, 3000, 4000, 5000 }, 5);
}

/* TimeWindowTest#testGetWindowStartWithOffset (flink-streaming-java/src/test/
 * java/org/apache/flink/streaming/runtime/operators/windowing/), offset 0,
 * size 7, the timestamps at or above 0: [0, 7), [7, 14). */
static void test_a_window_of_7_starts_at_the_multiple_of_7_at_or_below_the_timestamp(void **state) {
    (void)state;
    job_vertex x = window_of(7, 7, 0);
    expect_windows(&x, 1, (int64_t[]){ 0 }, 1);
    expect_windows(&x, 6, (int64_t[]){ 0 }, 1);
    expect_windows(&x, 7, (int64_t[]){ 7 }, 1);
    expect_windows(&x, 8, (int64_t[]){ 7 }, 1);
}

/* WindowOperatorTest#testLateness, #testSideOutputDueToLatenessTumbling,
 * #testSideOutputDueToLatenessSliding and
 * #testCleanupTimerWithEmptyListStateForTumblingWindows (flink-streaming-java/
 * src/test/java/org/apache/flink/streaming/runtime/operators/windowing/), as
 * their comments state them: a window is late once maxTimestamp + allowed
 * lateness is at or below the watermark. */
static void test_a_window_is_late_once_its_max_timestamp_plus_lateness_reaches_the_watermark(void **state) {
    (void)state;
    job_vertex lateness500 = window_of(2000, 2000, 500), lateness0 = window_of(2000, 2000, 0);
    job_vertex sliding = window_of(3000, 1000, 0), lateness1 = window_of(2000, 2000, 1);
    assert_false(window_late(&lateness500, 1999, 2300));     /* testLateness: 1999 + 500 > 2300 */
    assert_true(window_late(&lateness500, 1999, 6000));      /* 1999 + 500 < 6000 */
    assert_false(window_late(&lateness0, 1999, 1985));       /* testSideOutputDueToLatenessTumbling */
    assert_true(window_late(&lateness0, 1999, 1999));
    assert_true(window_late(&sliding, 2999, 3000));          /* testSideOutputDueToLatenessSliding: 2400 */
    assert_false(window_late(&sliding, 3999, 3000));
    assert_false(window_late(&sliding, 4999, 3000));
    assert_int_equal(win_cleanup(&lateness1, window_ending(&lateness1, 1999)), 2000);   /* "the cleanup timer" */
}

/* ---- the window task's code (model/tm/evtime.c) on a bench ------------------ */

typedef struct bench {
    pipe_world w;
    tm_side    tm;
    rt_task    t;
    rt_chan    in;
    rt_chan   *ins[1];
    job_vertex x;
    job_task   jt;
    uint64_t   offsets[BENCH_SPLITS];
    win_wm     split_max[BENCH_SPLITS];
    uint64_t   next_id;
} bench;

static bench bench_;

static bench *bench_open(job_vertex x) {
    bench *b = &bench_;
    memset(b, 0, sizeof *b);
    sim_cfg sc = sim_cfg_default(1);
    sc.model_bytes = 1u << 22;
    b->w.run = sim_run_create(&sc);
    assert_non_null(b->w.run);
    b->tm.w = &b->w;
    b->x = x;
    b->t.v = &b->x;
    b->t.jt = &b->jt;
    b->t.ins = b->ins;
    b->ins[0] = &b->in;
    return b;
}

static void bench_close(bench *b) { sim_run_destroy(b->w.run); }

/* A window task with one input, its watermark not yet risen. */
static bench *bench_window(int64_t size, int64_t slide, int64_t lateness) {
    bench *b = bench_open(window_of(size, slide, lateness));
    b->jt.in_count = 1;
    kstate_init(&b->t.state, b->w.run, 1024);
    evt_reset(&b->tm, &b->t);
    return b;
}

static void element(bench *b, uint64_t key, int64_t value, int64_t ts) {
    model_rec r = { .id = ++b->next_id, .key = key, .value = value, .event_time_ns = (sim_time_ns)ts };
    evt_window_apply(&b->tm, &b->t, &r);
}

/* The watermark arrives on the input; the task fires what it made due. */
static void watermark(bench *b, win_wm wm) {
    evt_on_watermark(&b->tm, &b->t, &b->in, wm);
    while (evt_firing(&b->t)) evt_fire_batch(&b->tm, &b->t);
}

static kagg entry(const bench *b, uint64_t key, int64_t max_ts, win_tag tag) {
    const kagg *a = kstate_find(&b->t.state, win_key(key, window_ending(&b->x, max_ts), tag));
    return a != NULL ? *a : (kagg){ 0 };
}

static uint64_t firings(const bench *b) { return b->w.stats.windows_fired + b->w.stats.late_firings; }

/* One step of a Flink test: an element (key, value, timestamp t), or a
 * watermark t; the window results Flink expects from it (key, sum,
 * maxTimestamp; key 0 ends the list), and for an element whether Flink
 * sends it to the late side output. */
typedef struct fv_out {
    uint64_t key;
    int64_t  sum;
    int64_t  max_ts;
} fv_out;

typedef struct fv_step {
    bool     wm;
    int64_t  t;
    uint64_t key;
    int64_t  value;
    bool     late;
    fv_out   out[FV_OUTS];
} fv_step;

#define EL(k, v, ts)        { .t = (ts), .key = (k), .value = (v) }
#define EL_LATE(k, v, ts)   { .t = (ts), .key = (k), .value = (v), .late = true }
#define EL_FIRES(k, v, ts, ...) { .t = (ts), .key = (k), .value = (v), .out = { __VA_ARGS__ } }
#define WM(w)               { .wm = true, .t = (w) }
#define WM_FIRES(w, ...)    { .wm = true, .t = (w), .out = { __VA_ARGS__ } }
#define OUT(k, s, ts)       { .key = (k), .sum = (s), .max_ts = (ts) }

static uint32_t outs_of(const fv_step *s) {
    uint32_t n = 0;
    while (n < FV_OUTS && s->out[n].key != 0) n++;
    return n;
}

/* Step s, then its results: the firings it made are exactly those. */
static void run_step(bench *b, const char *name, uint32_t i, const fv_step *s) {
    uint32_t n = outs_of(s);
    kagg timer0[FV_OUTS], sum0[FV_OUTS];
    for (uint32_t k = 0; k < n; k++) {
        timer0[k] = entry(b, s->out[k].key, s->out[k].max_ts, WIN_TIMER);
        sum0[k] = entry(b, s->out[k].key, s->out[k].max_ts, WIN_CONTENTS);
    }
    uint64_t fired0 = firings(b), late0 = b->w.stats.late_records;
    if (s->wm) watermark(b, s->t); else element(b, s->key, s->value, s->t);
    if (firings(b) - fired0 != n) fail_msg("%s step %u: %llu results, Flink %u", name, i,
                                           (unsigned long long)(firings(b) - fired0), n);
    if (b->w.stats.late_records - late0 != (uint64_t)s->late) fail_msg("%s step %u: late or not", name, i);
    for (uint32_t k = 0; k < n; k++) {
        const fv_out *o = &s->out[k];
        kagg timer = entry(b, o->key, o->max_ts, WIN_TIMER), sum = entry(b, o->key, o->max_ts, WIN_CONTENTS);
        if (timer.count != timer0[k].count + 1) fail_msg("%s step %u: window ending %lld of key %llu did not fire",
                                                          name, i, (long long)o->max_ts, (unsigned long long)o->key);
        int64_t got = s->wm ? sum0[k].sum : sum.sum;
        if (o->sum != FV_ANY && got != o->sum) fail_msg("%s step %u: window ending %lld of key %llu: %lld, Flink %lld",
                                                        name, i, (long long)o->max_ts, (unsigned long long)o->key,
                                                        (long long)got, (long long)o->sum);
    }
}

static void run_steps(bench *b, const char *name, const fv_step *s, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) run_step(b, name, i, &s[i]);
}

#define RUN(b, name, steps) run_steps((b), (name), (steps), (uint32_t)(sizeof(steps) / sizeof((steps)[0])))

/* The elements WindowOperatorTest's testTumblingEventTimeWindows and
 * testSlidingEventTimeWindows put in, out of order, before any watermark. */
#define SEVEN_ELEMENTS \
    EL(KEY2, 1, 3999), EL(KEY2, 1, 3000), EL(KEY1, 1, 20), EL(KEY1, 1, 0), EL(KEY1, 1, 999), \
    EL(KEY2, 1, 1998), EL(KEY2, 1, 1999), EL(KEY2, 1, 1000)

/* WindowOperatorTest#testTumblingEventTimeWindowsReduce and
 * #testTumblingEventTimeWindowsApply (flink-streaming-java/src/test/java/org/
 * apache/flink/streaming/runtime/operators/windowing/): size 3 s, sums. */
static void test_tumbling_windows_of_3s_fire_each_key_s_sum_when_the_watermark_passes_their_end(void **state) {
    (void)state;
    static const fv_step steps[] = {
        SEVEN_ELEMENTS, WM(999), WM(1999),
        WM_FIRES(2999, OUT(KEY1, 3, 2999), OUT(KEY2, 3, 2999)),
        WM(3999), WM(4999),
        WM_FIRES(5999, OUT(KEY2, 2, 5999)),
        WM(6999), WM(7999),
    };
    bench *b = bench_window(3000, 3000, 0);
    RUN(b, "testTumblingEventTimeWindows", steps);
    bench_close(b);
}

/* WindowOperatorTest#testSlidingEventTimeWindowsReduce and
 * #testSlidingEventTimeWindowsApply (flink-streaming-java/src/test/java/org/
 * apache/flink/streaming/runtime/operators/windowing/): size 3 s, slide 1 s. */
static void test_sliding_windows_of_3s_every_1s_fire_each_key_s_sum_as_the_watermark_passes_their_ends(void **state) {
    (void)state;
    static const fv_step steps[] = {
        SEVEN_ELEMENTS,
        WM_FIRES(999, OUT(KEY1, 3, 999)),
        WM_FIRES(1999, OUT(KEY1, 3, 1999), OUT(KEY2, 3, 1999)),
        WM_FIRES(2999, OUT(KEY1, 3, 2999), OUT(KEY2, 3, 2999)),
        WM_FIRES(3999, OUT(KEY2, 5, 3999)),
        WM_FIRES(4999, OUT(KEY2, 2, 4999)),
        WM_FIRES(5999, OUT(KEY2, 2, 5999)),
        WM(6999), WM(7999),
    };
    bench *b = bench_window(3000, 1000, 0);
    RUN(b, "testSlidingEventTimeWindows", steps);
    bench_close(b);
}

/* WindowOperatorTest#testSideOutputDueToLatenessTumbling (flink-streaming-java/
 * src/test/java/org/apache/flink/streaming/runtime/operators/windowing/): size
 * 2 s, lateness 0. */
static void test_with_no_lateness_an_element_for_a_window_the_watermark_passed_is_dropped(void **state) {
    (void)state;
    static const fv_step steps[] = {
        EL(KEY2, 1, 1000), WM(1985),
        EL(KEY2, 1, 1980),                        /* maxTimestamp + lateness > watermark: kept */
        WM_FIRES(1999, OUT(KEY2, 2, 1999)),
        EL_LATE(KEY2, 1, 1998),
        EL(KEY2, 1, 2001), WM(2999),
        WM_FIRES(3999, OUT(KEY2, 1, 3999)),
    };
    bench *b = bench_window(2000, 2000, 0);
    RUN(b, "testSideOutputDueToLatenessTumbling", steps);
    bench_close(b);
}

/* WindowOperatorTest#testSideOutputDueToLatenessSliding (flink-streaming-java/
 * src/test/java/org/apache/flink/streaming/runtime/operators/windowing/): size
 * 3 s, slide 1 s, lateness 0; 2400 at watermark 3000 misses only its window
 * ending 2999. */
static void test_a_sliding_element_late_for_one_window_still_counts_in_its_others(void **state) {
    (void)state;
    static const fv_step steps[] = {
        EL(KEY2, 1, 1000),
        WM_FIRES(1999, OUT(KEY2, 1, 1999)),
        EL(KEY2, 1, 2000),
        WM_FIRES(3000, OUT(KEY2, 2, 2999)),
        EL(KEY1, 1, 3001), EL(KEY2, 1, 2400), EL(KEY2, 1, 2400), EL(KEY1, 1, 3001), EL(KEY2, 1, 3900),
        WM_FIRES(6000, OUT(KEY2, 5, 3999), OUT(KEY1, 2, 3999), OUT(KEY2, 4, 4999), OUT(KEY1, 2, 4999),
                 OUT(KEY2, 1, 5999), OUT(KEY1, 2, 5999)),
        EL_LATE(KEY1, 1, 3001),
        WM(25000),
    };
    bench *b = bench_window(3000, 1000, 0);
    RUN(b, "testSideOutputDueToLatenessSliding", steps);
    bench_close(b);
}

/* WindowOperatorTest#testLateness (flink-streaming-java/src/test/java/org/
 * apache/flink/streaming/runtime/operators/windowing/): size 2 s, lateness
 * 500. Flink's test runs PurgingTrigger.of(EventTimeTrigger): the firing on
 * 1997 emits 1, the purged window's new contents; absim's window keeps its
 * contents (EventTimeTrigger, FIRE) and would emit 3, so that one sum is
 * not compared. Which steps fire, and which element is late, are. */
static void test_an_element_within_the_allowed_lateness_fires_its_window_again_and_one_past_it_is_dropped(void **state) {
    (void)state;
    static const fv_step steps[] = {
        EL(KEY2, 1, 500), WM(1500),
        EL(KEY2, 1, 1300),
        WM_FIRES(2300, OUT(KEY2, 2, 1999)),
        EL_FIRES(KEY2, 1, 1997, OUT(KEY2, FV_ANY, 1999)),   /* 1999 + 500 > 2300: fires at once */
        WM(6000),
        EL_LATE(KEY2, 1, 1998),                              /* 1999 + 500 < 6000 */
        WM(7000),
    };
    bench *b = bench_window(2000, 2000, 500);
    RUN(b, "testLateness", steps);
    bench_close(b);
}

/* WindowOperatorTest#testCleanupTimerWithEmptyListStateForTumblingWindows and
 * #testCleanupTimerWithEmptyReduceStateForTumblingWindows (flink-streaming-
 * java/src/test/java/org/apache/flink/streaming/runtime/operators/windowing/):
 * size 2 s, lateness 1: the window fires at 1999, its cleanup timer at 2000
 * emits nothing, and absim purges it there. */
static void test_the_cleanup_timer_one_after_the_window_s_end_purges_it_without_a_result(void **state) {
    (void)state;
    static const fv_step steps[] = {
        EL(KEY2, 1, 1000), WM(1599),
        WM_FIRES(1999, OUT(KEY2, 1, 1999)),
        WM(2000), WM(5000),
    };
    bench *b = bench_window(2000, 2000, 1);
    run_steps(b, "testCleanupTimerWithEmptyStateForTumblingWindows", steps, 3);
    assert_int_equal(entry(b, KEY2, 1999, WIN_CONTENTS).sum, 1);   /* fired, kept until the cleanup time */
    run_steps(b, "testCleanupTimerWithEmptyStateForTumblingWindows", steps + 3, 2);
    assert_int_equal(entry(b, KEY2, 1999, WIN_CONTENTS).count, 0);
    assert_int_equal(entry(b, KEY2, 1999, WIN_TIMER).fingerprint, 0);   /* no timer left */
    bench_close(b);
}

/* WindowOperatorTest#testCleanupTimerWithEmptyStateNoResultForTumblingWindows
 * (flink-streaming-java/src/test/java/org/apache/flink/streaming/runtime/
 * operators/windowing/): size 2 s, lateness 1; the window's contents stay
 * through watermarks 1599, 1699, 1799 and 1999, and are gone at 2000 and
 * 5000. Flink's test fires with a trigger of its own and a function that
 * emits nothing; only its state claims are transcribed. */
static void test_a_window_s_contents_stay_until_the_watermark_reaches_its_cleanup_time(void **state) {
    (void)state;
    static const win_wm wms[] = { 1599, 1699, 1799, 1999, 2000, 5000 };
    static const uint64_t held[] = { 1, 1, 1, 1, 0, 0 };
    bench *b = bench_window(2000, 2000, 1);
    element(b, KEY1, 1, 1000);
    assert_int_equal(entry(b, KEY1, 1999, WIN_CONTENTS).count, 1);
    for (uint32_t i = 0; i < 6; i++) {
        watermark(b, wms[i]);
        assert_int_equal(entry(b, KEY1, 1999, WIN_CONTENTS).count, held[i]);
    }
    bench_close(b);
}

/* WindowOperatorContractTest#testProcessingElementsWithinAllowedLateness
 * (flink-runtime/src/test/java/org/apache/flink/streaming/runtime/operators/
 * windowing/): window [0, 2), lateness 20, watermark 20, element 0: it fires
 * the window at once with [0], the contents stay and one timer is left (the
 * cleanup timer). Flink's trigger is a mock firing on every element; absim's
 * EventTimeTrigger fires here too, the window's end being passed. */
static void test_an_element_at_the_lateness_limit_fires_its_window_and_leaves_the_cleanup_timer(void **state) {
    (void)state;
    static const fv_step steps[] = {
        WM(20),
        EL_FIRES(KEY1, 1, 0, OUT(KEY1, 1, 1)),
    };
    bench *b = bench_window(2, 2, 20);
    RUN(b, "testProcessingElementsWithinAllowedLateness", steps);
    assert_int_equal(entry(b, KEY1, 1, WIN_CONTENTS).count, 1);
    kagg timer = entry(b, KEY1, 1, WIN_TIMER);
    assert_int_equal(timer.fingerprint, 1);
    assert_int_equal(timer.sum, 1 + 20);          /* the cleanup time */
    bench_close(b);
}

/* WindowOperatorContractTest#testLateWindowDropping (flink-runtime/src/test/
 * java/org/apache/flink/streaming/runtime/operators/windowing/): window
 * [0, 2), lateness 20, watermark 21 = 1 + 20: element 0 leaves no contents,
 * no timer and no result. (absim counts it in the key's late aggregate, its
 * side output.) */
static void test_an_element_whose_window_reached_its_cleanup_time_leaves_nothing_behind(void **state) {
    (void)state;
    static const fv_step steps[] = {
        WM(21),
        EL_LATE(KEY1, 1, 0),
    };
    bench *b = bench_window(2, 2, 20);
    RUN(b, "testLateWindowDropping", steps);
    assert_int_equal(entry(b, KEY1, 1, WIN_CONTENTS).count, 0);
    assert_int_equal(entry(b, KEY1, 1, WIN_TIMER).fingerprint, 0);
    bench_close(b);
}

/* WindowOperatorContractTest#testStateAndTimerCleanupAtEventTimeGarbageCollection
 * (flink-runtime/src/test/java/org/apache/flink/streaming/runtime/operators/
 * windowing/): window [0, 20), lateness 20; element 0 leaves contents and a
 * timer, and the watermark 19 + 20 clears both. Flink's mock trigger never
 * fires; absim's fires at 19, which the state claims do not see. */
static void test_the_watermark_at_max_timestamp_plus_lateness_clears_a_window_s_state_and_timers(void **state) {
    (void)state;
    bench *b = bench_window(20, 20, 20);
    element(b, KEY1, 1, 0);
    assert_int_equal(entry(b, KEY1, 19, WIN_CONTENTS).count, 1);
    assert_int_equal(entry(b, KEY1, 19, WIN_TIMER).fingerprint, 1);
    watermark(b, 19 + 20);
    assert_int_equal(entry(b, KEY1, 19, WIN_CONTENTS).count, 0);
    assert_int_equal(entry(b, KEY1, 19, WIN_TIMER).fingerprint, 0);
    bench_close(b);
}

/* EventTimeTriggerTest#testWindowSeparationAndFiring (flink-streaming-java/
 * src/test/java/org/apache/flink/streaming/runtime/operators/windowing/):
 * three elements in [0, 2), two in [2, 4): two timers, one per window;
 * watermark 2 fires [0, 2) alone, watermark 4 fires [2, 4). Flink's harness
 * gives the windows; the elements here take their starts as timestamps. */
static void test_the_event_time_trigger_keeps_one_timer_per_window_and_fires_each_at_its_end(void **state) {
    (void)state;
    static const fv_step steps[] = {
        EL(KEY1, 1, 0), EL(KEY1, 1, 0), EL(KEY1, 1, 0), EL(KEY1, 1, 2), EL(KEY1, 1, 2),
        WM_FIRES(2, OUT(KEY1, 3, 1)),
        WM_FIRES(4, OUT(KEY1, 2, 3)),
    };
    bench *b = bench_window(2, 2, 0);
    run_steps(b, "testWindowSeparationAndFiring", steps, 5);
    assert_int_equal(entry(b, KEY1, 1, WIN_TIMER).fingerprint + entry(b, KEY1, 3, WIN_TIMER).fingerprint, 2);
    run_steps(b, "testWindowSeparationAndFiring", steps + 5, 1);
    assert_int_equal(entry(b, KEY1, 1, WIN_TIMER).fingerprint, 0);
    assert_int_equal(entry(b, KEY1, 3, WIN_TIMER).fingerprint, 1);
    run_steps(b, "testWindowSeparationAndFiring", steps + 6, 1);
    assert_int_equal(entry(b, KEY1, 3, WIN_TIMER).fingerprint, 0);
    bench_close(b);
}

/* ---- watermark generation (model/tm/evtime.c, evt_source_batch) ------------ */

/* A source with watermarks: `splits` splits, all assigned and none read
 * to its end, out-of-orderness `delay`. */
static bench *bench_source(int64_t delay, uint32_t splits) {
    bench *b = bench_open((job_vertex){ .kind = JOB_SOURCE, .watermarks = true,
                                        .watermark_delay_ns = (sim_time_ns)delay,
                                        .watermark_interval_ns = BENCH_INTERVAL });
    b->w.brk.partitions = BENCH_SPLITS;
    b->w.brk.topic[0].cfg.records_per_partition = 1000;
    b->t.read_at = b->offsets;
    b->t.parts_count = splits;
    b->t.parts_stride = 1;
    b->t.splits = (1ull << splits) - 1;
    b->t.splits_final = true;
    b->t.split_max = b->split_max;
    evt_reset(&b->tm, &b->t);
    return b;
}

/* A record of event time ts read from split i: the split's highest event
 * time, as the source's read loop keeps it (model/tm/task.c). */
static void read_event(bench *b, uint32_t i, int64_t ts) {
    b->offsets[i]++;
    if (ts > b->split_max[i]) b->split_max[i] = ts;
}

/* Split i read to its end: it holds nothing back. */
static void read_to_end(bench *b, uint32_t i) { b->offsets[i] = b->w.brk.topic[0].cfg.records_per_partition; }

/* The periodic emission: an interval later, the source sends its
 * watermark if it rose. Returns the last watermark it sent. */
static win_wm periodic_emit(bench *b) {
    b->w.run->now_ns += BENCH_INTERVAL;
    evt_source_batch(&b->tm, &b->t);
    return b->t.wm_sent;
}

/* BoundedOutOfOrdernessWatermarksTest#testWatermarkBeforeRecords and
 * AscendingTimestampsWatermarksTest#testWatermarkBeforeRecords (flink-core/
 * src/test/java/org/apache/flink/api/common/eventtime/): before any record
 * the watermark is Long.MIN_VALUE (absim sends none: it would not rise). */
static void test_before_any_record_a_source_s_watermark_is_the_lowest(void **state) {
    (void)state;
    static const int64_t delays[] = { 10, 0 };
    for (uint32_t i = 0; i < 2; i++) {
        bench *b = bench_source(delays[i], 1);
        assert_int_equal(periodic_emit(b), INT64_MIN);
        assert_int_equal(b->t.wm, INT64_MIN);
        bench_close(b);
    }
}

/* BoundedOutOfOrdernessWatermarksTest#testWatermarkAfterEvent,
 * #testWatermarkAfterNonMonotonousEvents and #testRepeatedProbe (flink-core/
 * src/test/java/org/apache/flink/api/common/eventtime/): out-of-orderness
 * 10 ms, watermark = highest timestamp - 10 - 1. */
static void test_a_source_s_watermark_is_its_highest_timestamp_less_the_delay_less_one(void **state) {
    (void)state;
    bench *b = bench_source(10, 1);
    read_event(b, 0, 1337);
    assert_int_equal(periodic_emit(b), 1326);
    bench_close(b);
    b = bench_source(10, 1);
    read_event(b, 0, 12345);
    read_event(b, 0, 12300);
    read_event(b, 0, 12340);
    read_event(b, 0, 12280);
    assert_int_equal(periodic_emit(b), 12334);
    bench_close(b);
    b = bench_source(10, 1);
    read_event(b, 0, 723456);
    assert_int_equal(periodic_emit(b), 723445);
    assert_int_equal(periodic_emit(b), 723445);   /* probed again: the same */
    bench_close(b);
}

/* AscendingTimestampsWatermarksTest#testWatermarkAfterEvent and
 * #testWatermarkAfterEventWithLowerTimestamp (flink-core/src/test/java/org/
 * apache/flink/api/common/eventtime/): out-of-orderness 0 (Flink's
 * forMonotonousTimestamps), watermark = highest timestamp - 1. */
static void test_with_no_delay_a_source_s_watermark_is_one_below_its_highest_timestamp(void **state) {
    (void)state;
    bench *b = bench_source(0, 1);
    read_event(b, 0, 1337);
    assert_int_equal(periodic_emit(b), 1336);
    bench_close(b);
    b = bench_source(0, 1);
    read_event(b, 0, 12345);
    read_event(b, 0, 12340);
    assert_int_equal(periodic_emit(b), 12344);
    bench_close(b);
}

/* WatermarkOutputMultiplexerTest#singleDeferredWatermark,
 * #deferredOutputDoesNotImmediatelyAdvanceWatermark and
 * #multipleDeferredWatermark (flink-core/src/test/java/org/apache/flink/api/
 * common/eventtime/): per-split watermarks combine to their lowest, at the
 * periodic emission, not before; a split that holds nothing back (Flink's
 * idle output, absim's split read to its end) is left out. Split
 * watermarks w come from delay 0 and a highest timestamp w + 1. */
static void test_a_source_sends_the_lowest_of_its_splits_watermarks_at_the_periodic_emission(void **state) {
    (void)state;
    bench *b = bench_source(0, 1);
    read_event(b, 0, 0 + 1);
    assert_int_equal(periodic_emit(b), 0);
    bench_close(b);
    b = bench_source(0, 2);
    read_event(b, 0, 0 + 1);
    read_event(b, 1, 1 + 1);
    assert_int_equal(b->t.wm_sent, INT64_MIN);    /* nothing before the periodic emission */
    assert_int_equal(periodic_emit(b), 0);
    bench_close(b);
    b = bench_source(0, 3);
    read_event(b, 0, 2 + 1);
    read_event(b, 1, 5 + 1);
    read_to_end(b, 2);
    assert_int_equal(periodic_emit(b), 2);
    bench_close(b);
}

/* WatermarkOutputMultiplexerTest#noCombinedDeferredUpdateWhenWeHaveZeroOutputs
 * (flink-core/src/test/java/org/apache/flink/api/common/eventtime/): with no
 * split the periodic emission sends nothing (not Long.MAX_VALUE). */
static void test_a_source_without_splits_sends_no_watermark(void **state) {
    (void)state;
    bench *b = bench_source(0, 0);
    assert_int_equal(periodic_emit(b), INT64_MIN);
    assert_int_equal(b->t.wm, INT64_MIN);
    bench_close(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tumbling_windows_of_5000_hold_0_and_4999_together_and_5000_in_the_next),
        cmocka_unit_test(test_sliding_windows_of_5000_every_1000_put_each_timestamp_in_five_windows),
        cmocka_unit_test(test_a_window_of_7_starts_at_the_multiple_of_7_at_or_below_the_timestamp),
        cmocka_unit_test(test_a_window_is_late_once_its_max_timestamp_plus_lateness_reaches_the_watermark),
        cmocka_unit_test(test_tumbling_windows_of_3s_fire_each_key_s_sum_when_the_watermark_passes_their_end),
        cmocka_unit_test(test_sliding_windows_of_3s_every_1s_fire_each_key_s_sum_as_the_watermark_passes_their_ends),
        cmocka_unit_test(test_with_no_lateness_an_element_for_a_window_the_watermark_passed_is_dropped),
        cmocka_unit_test(test_a_sliding_element_late_for_one_window_still_counts_in_its_others),
        cmocka_unit_test(test_an_element_within_the_allowed_lateness_fires_its_window_again_and_one_past_it_is_dropped),
        cmocka_unit_test(test_the_cleanup_timer_one_after_the_window_s_end_purges_it_without_a_result),
        cmocka_unit_test(test_a_window_s_contents_stay_until_the_watermark_reaches_its_cleanup_time),
        cmocka_unit_test(test_an_element_at_the_lateness_limit_fires_its_window_and_leaves_the_cleanup_timer),
        cmocka_unit_test(test_an_element_whose_window_reached_its_cleanup_time_leaves_nothing_behind),
        cmocka_unit_test(test_the_watermark_at_max_timestamp_plus_lateness_clears_a_window_s_state_and_timers),
        cmocka_unit_test(test_the_event_time_trigger_keeps_one_timer_per_window_and_fires_each_at_its_end),
        cmocka_unit_test(test_before_any_record_a_source_s_watermark_is_the_lowest),
        cmocka_unit_test(test_a_source_s_watermark_is_its_highest_timestamp_less_the_delay_less_one),
        cmocka_unit_test(test_with_no_delay_a_source_s_watermark_is_one_below_its_highest_timestamp),
        cmocka_unit_test(test_a_source_sends_the_lowest_of_its_splits_watermarks_at_the_periodic_emission),
        cmocka_unit_test(test_a_source_without_splits_sends_no_watermark),
    };
    return cmocka_run_group_tests_name("flinkvec_window", tests, NULL, NULL);
}
