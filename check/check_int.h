/* check/check_int.h: what the checkers of check/ share: the context each
 * gets at set-up, the ops table entry, and the one way to report. Only
 * the files of check/ include it. */
#ifndef CHECK_INT_H
#define CHECK_INT_H

#include "check.h"
#include "spec.h"

/* The fold of source prefixes S (by partition) through the specification,
 * shared by the checkers: I2 advances it to each completed checkpoint's
 * offsets, I1 to the end of the input. Prefixes only grow, except after a
 * restart from the beginning, when it starts over; so a run folds its
 * input about once. */
typedef struct check_prefix {
    uint64_t *offsets;                /* by partition: records folded into expected */
    win_wm   *before_max;             /* by partition: the highest event time folded (windows' late marks) */
    kstate    expected[JOB_VERTICES_MAX];
} check_prefix;

typedef struct check_ctx {
    pipeline       *p;                /* observed; checkers only read it (pipe.h views) */
    const pipe_cfg *cfg;
    const job      *j;
    spec            sp;
    arena          *mem;
    check_report   *report;
    uint32_t        keys;             /* the most keys one vertex's map holds (a join tags keys by input) */
    uint32_t        hashed[JOB_VERTICES_MAX];   /* by vertex: bit i, its input i comes by a hash edge */
    uint32_t        groups[JOB_VERTICES_MAX];   /* by vertex: its key groups (max-parallelism) */
    check_prefix   *prefix;
} check_ctx;

typedef struct check_end {
    pipe_status status;
    sim_time_ns end_ns;
} check_end;

typedef struct check_ops {
    const char *name;
    void *(*create)(const check_ctx *c);
    void (*on_event)(void *self, const pipe_event *e);   /* NULL: it only checks at the end */
    void (*on_end)(void *self, const check_end *end);
} check_ops;

/* A violation of inv, kept (the first CHECK_KEPT_MAX) and counted. */
typedef struct check_where {
    sim_time_ns at_ns;
    uint32_t    task, vertex;
    uint64_t    ckpt, key, record;
} check_where;

#define CHECK_AT(t_ns) ((check_where){ .at_ns = (t_ns), .task = CHECK_NONE, .vertex = CHECK_NONE, \
                                       .ckpt = CHECK_NONE64, .key = CHECK_NONE64, .record = CHECK_NONE64 })

void check_fail(const check_ctx *c, check_inv inv, check_where w, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* "agg[1]" */
const char *check_task_name(const check_ctx *c, uint32_t task, char *buf, size_t n);
/* Keyed state of every stateful vertex: one map each in `maps` (by vertex). */
void check_maps(const check_ctx *c, kstate *maps);
/* Advance the shared prefix fold to `offsets` (NULL: the whole input);
 * returns its maps, by vertex. */
const kstate *check_prefix_to(const check_ctx *c, const uint64_t *offsets);
/* Records counted in a map. */
uint64_t check_records(const kstate *s);

/* Window vertices (check/window.c): E is the specification's map of
 * vertex v (its prefix fold), A the run's: a checkpoint's (I2), the final
 * state (I1; true when it held), and the output (I3/I4; per_key: room for
 * the broker's keys). */
void check_window_cut(const check_ctx *c, uint32_t v, uint32_t par, const kstate *E, const kstate *A,
                      const uint64_t *offsets, uint64_t ckpt, sim_time_ns at_ns);
bool check_window_final(const check_ctx *c, uint32_t v, const kstate *E, const kstate *A, sim_time_ns at_ns);
void check_window_output(const check_ctx *c, uint32_t v, const kstate *E, const kstate *A, bool promised,
                         int64_t *per_key, uint8_t *maybe_late, sim_time_ns at_ns);
/* Rescaling: the parallelism each vertex runs at, by vertex, as the
 * coordinator's RESCALED steps say (restart.c holds those to the
 * schedule); from the parallelism as written. */
void check_par_init(const check_ctx *c, uint32_t *par);
void check_par_step(uint32_t *par, const pipe_event *e);
/* The subtask of vertex v at parallelism p whose key groups hold map key
 * `key` (a join's: key * 2 + input), by Flink's KeyGroupRangeAssignment
 * written out here; CHECK_NONE when any subtask may hold it (its input
 * is not a hash edge). */
uint32_t check_key_owner(const check_ctx *c, uint32_t v, uint64_t key, uint32_t p);

extern const check_ops check_cut_ops, check_state_ops, check_output_ops, check_safety_ops, check_live_ops,
    check_restart_ops;
/* Not an observer of its own: check_safety_ops runs it beside the other I5 steps. */
extern const check_ops check_claim_ops;
/* Not an observer of its own: check_restart_ops runs it beside the restart strategy's checks. */
extern const check_ops check_trigger_ops;
void check_trigger_restarting(void *trigger, bool restarting, sim_time_ns now);   /* from check/restart.c */

#endif
