/* model/flow/window.h: keyed event-time windows, the arithmetic the tasks
 * and the checkers share: which windows a record falls into, when a
 * window fires and when it is purged, how its state is keyed and how its
 * results are named.
 *
 * Contract (Flink's TumblingEventTimeWindows, SlidingEventTimeWindows and
 * WindowOperator with an aggregate and the event-time trigger):
 * - A window of vertex x is [start, start + size) with start a multiple
 *   of slide (tumbling: slide = size); a record of event time et falls
 *   into every window with start <= et < start + size, ceil(size / slide)
 *   of them at most (some with starts below 0 for the first records).
 *   Windows are numbered by wi = start / slide + ceil(size / slide), so
 *   every number is >= 1 and below win_count(x, latest event time).
 * - Its last timestamp is start + size - 1 (maxTimestamp); it fires when
 *   the watermark reaches it, and it is purged (its state and timer
 *   cleared) once the watermark reaches maxTimestamp + lateness (the
 *   cleanup time, Flink's cleanupTime). A record for a window whose
 *   cleanup time the watermark has reached is late for it (isWindowLate);
 *   one for a window that fired but is not purged fires it again.
 * - State: three kinds of entries in the task's keyed map, all keyed by
 *   the record's key (so the hash partitioner owns them as the key):
 *   the window's aggregate (WIN_CONTENTS), its timer (WIN_TIMER: count =
 *   firings so far, sum = the timer's time, the fire time before the
 *   first firing and the cleanup time after it) and per key the late
 *   aggregate (WIN_LATE, window 0: the (record, window) pairs dropped as
 *   late, Flink's side output of late data kept as state). A purged
 *   window's entries are written back to zero: the map has no deletions,
 *   and a zero aggregate counts as absent (kstate_equal).
 * - A firing emits one result record: the key, the window's sum as the
 *   value, maxTimestamp as event time, and an id that names (vertex,
 *   key, window, firing) with the top bit set (no broker id has it).
 *   Firings past WIN_FIRINGS_MAX - 1 all take the last firing's number.
 * Pure functions: no state, no allocation.
 */
#ifndef MODEL_WINDOW_H
#define MODEL_WINDOW_H

#include "broker.h"
#include "job.h"

#define WIN_KEY_BITS     22u          /* broker keys are below 2^22 (BROKER_KEYS_MAX) */
#define WIN_TAG_BITS     2u
#define WIN_INDEX_MAX    (1ull << 28) /* windows a vertex may number (result ids hold 28 bits) */
#define WIN_FIRINGS_MAX  16u
#define WIN_PER_RECORD_MAX 64u        /* ceil(size / slide) at most (the reader refuses more) */

typedef enum win_tag {
    WIN_CONTENTS = 0,
    WIN_TIMER = 1,
    WIN_LATE = 2,
} win_tag;

/* Watermarks: signed, so "nothing yet" and "the end" have a value. A
 * watermark travels among the records of a channel's buffers, as Flink
 * serializes it into them: a record with id WIN_WM_ID (no record has it:
 * broker ids are below 2^56, results' fields never make it) and the
 * watermark as its event time. */
typedef int64_t win_wm;
#define WIN_WM_MIN INT64_MIN
#define WIN_WM_MAX INT64_MAX
#define WIN_WM_ID  UINT64_MAX

static inline bool win_is_watermark(const model_rec *r) { return r->id == WIN_WM_ID; }

static inline uint64_t win_per_record(const job_vertex *x) {
    return (x->window_size_ns + x->window_slide_ns - 1) / x->window_slide_ns;
}

/* The windows of event time et: their numbers into wi[] (at most
 * win_per_record), returns how many. */
static inline uint32_t win_assign(const job_vertex *x, sim_time_ns et, uint64_t *wi) {
    SIM_ASSERT(x->kind == JOB_WINDOW && x->window_slide_ns > 0);
    int64_t slide = (int64_t)x->window_slide_ns, size = (int64_t)x->window_size_ns, t = (int64_t)et;
    int64_t bias = (int64_t)win_per_record(x);
    uint32_t n = 0;
    for (int64_t start = t - t % slide; start > t - size; start -= slide) {
        SIM_ASSERT(n < WIN_PER_RECORD_MAX);
        wi[n++] = (uint64_t)(start / slide + bias);   /* start is a multiple of slide: exact */
    }
    return n;
}

static inline int64_t win_start(const job_vertex *x, uint64_t wi) {
    return ((int64_t)wi - (int64_t)win_per_record(x)) * (int64_t)x->window_slide_ns;
}
static inline win_wm win_max_ts(const job_vertex *x, uint64_t wi) {
    return win_start(x, wi) + (int64_t)x->window_size_ns - 1;
}
static inline win_wm win_cleanup(const job_vertex *x, uint64_t wi) {
    return win_max_ts(x, wi) + (int64_t)x->lateness_ns;
}
/* Window numbers of a vertex whose records' event times are below end_ns. */
static inline uint64_t win_count(const job_vertex *x, sim_time_ns end_ns) {
    return end_ns / x->window_slide_ns + win_per_record(x) + 1;
}

/* Map keys: window number, key, tag. */
static inline uint64_t win_key(uint64_t key, uint64_t wi, win_tag tag) {
    SIM_ASSERT(key < (1ull << WIN_KEY_BITS) && wi < WIN_INDEX_MAX);
    return wi << (WIN_KEY_BITS + WIN_TAG_BITS) | key << WIN_TAG_BITS | (uint64_t)tag;
}
static inline uint64_t win_key_key(uint64_t k) { return k >> WIN_TAG_BITS & ((1ull << WIN_KEY_BITS) - 1); }
static inline uint64_t win_key_index(uint64_t k) { return k >> (WIN_KEY_BITS + WIN_TAG_BITS); }
static inline win_tag win_key_tag(uint64_t k) { return (win_tag)(k & ((1u << WIN_TAG_BITS) - 1)); }

/* Result ids: 1 | vertex (5 bits) | firing (4) | window (28) | key (22). */
#define WIN_RESULT_BIT (1ull << 63)
static inline uint64_t win_result_id(uint32_t vertex, uint64_t key, uint64_t wi, uint32_t firing) {
    SIM_ASSERT(vertex < JOB_VERTICES_MAX && firing < WIN_FIRINGS_MAX);
    return WIN_RESULT_BIT | (uint64_t)vertex << 58 | (uint64_t)firing << 54 | wi << WIN_KEY_BITS | key;
}
static inline bool win_is_result(uint64_t id) { return (id & WIN_RESULT_BIT) != 0; }
static inline uint32_t win_result_vertex(uint64_t id) { return (uint32_t)(id >> 58 & 31); }
static inline uint32_t win_result_firing(uint64_t id) { return (uint32_t)(id >> 54 & 15); }
static inline uint64_t win_result_index(uint64_t id) { return id >> WIN_KEY_BITS & (WIN_INDEX_MAX - 1); }
static inline uint64_t win_result_key(uint64_t id) { return id & ((1ull << WIN_KEY_BITS) - 1); }

#endif
