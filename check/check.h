/* check/check.h: the invariant checkers (I1-I6) of a run, as observers.
 *
 * Contract:
 * - A checker is one file of check/ with a check_ops entry: create() carves
 *   what it keeps from the set's arena at set-up, on_event() receives every
 *   protocol step of the run with its payload (model/pipe.h, pipe_event),
 *   on_end() runs once after the run stopped. The protocol code never calls
 *   a checker; check_attach() registers each one as an observer of the pipe
 *   (pipe_observe), in the order of the table in check/check.c.
 * - What a checker compares with is the specification (check/spec.h): the
 *   input folded through the job's operator semantics, written apart from
 *   the tasks' code. No checker runs a second simulation.
 *     I1 exactly-once state: every stateful vertex's final state equals the
 *        fold of the whole input (exactly-once modes, job finished).
 *     I2 consistent cut: every completed checkpoint holds the fold of its
 *        source prefixes S_n, in-flight channel state included.
 *     Both compare per key, and hold each key to the subtask whose key
 *     groups hold it at the parallelism of the last attempt (I1) or of the
 *     checkpoint (I2): a rescale changes it (the coordinator's RESCALED
 *     steps, which I5 holds to the configuration's rescale schedule).
 *     I3 exactly-once output: with transactional or idempotent sinks, every
 *        record's effect is visible exactly as often as the fold says.
 *     I4 at-least-once output: every record's effect is visible at least
 *        that often (duplicates are counted, not failed).
 *     I5 protocol safety: barriers on a channel only increase (an in-band one a priority barrier overtook may follow it, obsolete); no record is
 *        consumed from an input blocked for alignment; an acknowledgement
 *        only after every write of its snapshot is durable; a restore only
 *        from a retained completed checkpoint whose files are there; no
 *        retained checkpoint refers to a deleted file; no checkpoint
 *        completes without every stateful task's state; a two-phase-commit
 *        sink commits only checkpoints that completed; a cancel marker ends
 *        the alignment it cancels; an aligned checkpoint turns unaligned
 *        at a task only once it is older than the alignment timeout, and
 *        a task whose inputs timed out triggers it unaligned at once.
 *     I6 liveness: once faults settled (windows closed, and what they
 *        slowed finished), a checkpoint completes within the bound, and
 *        the job reaches the end of its input (unless the restart strategy
 *        gave up).
 * - A violation is a structured value (check_violation): invariant, time,
 *   task, vertex, key, checkpoint, record, seed, and one line of text.
 *   run, swarm, replay, shrink, bugs and the JSON output read these fields;
 *   none of them matches text.
 * - Memory: one arena per set, sized at check_create() from the job (maps
 *   for the keyed vertices, per-task tables); nothing is allocated after.
 */
#ifndef CHECK_H
#define CHECK_H

#include "../model/pipe.h"
#include "../sim/arena.h"

typedef enum check_inv {
    CHECK_I1 = 1,                     /* exactly-once state */
    CHECK_I2,                         /* consistent cut */
    CHECK_I3,                         /* exactly-once output */
    CHECK_I4,                         /* at-least-once output */
    CHECK_I5,                         /* protocol safety */
    CHECK_I6,                         /* liveness */
    CHECK_INV_COUNT
} check_inv;

#define CHECK_NONE   UINT32_MAX
#define CHECK_NONE64 UINT64_MAX
#define CHECK_KEPT_MAX 8u

typedef struct check_violation {
    check_inv   inv;
    sim_time_ns at_ns;
    uint64_t    seed;
    uint32_t    task, vertex;         /* CHECK_NONE when not about one */
    uint64_t    ckpt, key, record;    /* CHECK_NONE64 when not about one; record: partition << 40 | offset */
    char        what[240];
} check_violation;

typedef struct check_report {
    uint64_t        seed;
    bool            applies[CHECK_INV_COUNT];      /* the configuration promises it */
    const char     *verdict_note[CHECK_INV_COUNT];   /* a static text the verdict needs (why a promise
                                                      is void, what it covers), or NULL */
    uint64_t        checks[CHECK_INV_COUNT];       /* times it was checked */
    uint64_t        violations[CHECK_INV_COUNT];
    check_violation kept[CHECK_KEPT_MAX];          /* the first violations, and the first of every invariant */
    uint32_t        kept_count;
    /* What the expectations read (computed whether or not the invariant applies). */
    bool            state_known;                   /* the job finished: its final state is comparable */
    bool            state_equal;
    uint64_t        state_records, spec_records;   /* records counted in keyed state: run, fold */
    bool            output_known;
    uint64_t        out_records, out_lost, out_duplicated, out_first_lost, out_first_duplicated;
    sim_time_ns     liveness_ns;                   /* the bound I6 used */
    /* The configuration's verdict, not the protocol's: where I6 would have
     * failed, the checkpoints expired although every task acknowledged
     * them (later than the timeout): no checkpoint can complete with these
     * settings and this load. I6 is then not judged; the text says which
     * checkpoint and when ("" when none). */
    char            unreachable[240];
} check_report;

typedef struct check_set check_set;

typedef struct check_cfg {
    sim_time_ns liveness_ns;          /* I6 bound; 0: the default (check_liveness_default) */
} check_cfg;

/* The bytes check_create carves for a job of cfg with that many tasks and
 * channels (after expansion: pipe_mem's counts), so that a command can
 * check a whole run's memory before it builds anything. */
uint64_t check_memory_bytes(const pipe_cfg *cfg, uint32_t tasks, uint32_t chans);

/* The checkers for pipe p (created, not yet run). NULL and a message in
 * err when memory is short. */
check_set *check_create(pipeline *p, const check_cfg *cfg, char *err, size_t err_bytes);
/* Register every checker as an observer of p (before pipe_run). */
void check_attach(check_set *c);
/* Hand one step to every checker, as the pipe does when attached: for
 * tests of hand-made situations and for checking a recorded trace. */
void check_feed(check_set *c, const pipe_event *e);
/* After pipe_run: end-of-run checks; the report stays valid until destroy. */
const check_report *check_finish(check_set *c);
/* The report so far, during the run: a narrator that observes after the
 * checkers sees each violation in the step that made it (violations
 * grow; a kept entry is new, or replaced by the first of another
 * invariant once kept is full). */
const check_report *check_progress(const check_set *c);
void check_destroy(check_set *c);

/* The default I6 bound, counted from the moment the faults settled (every
 * window closed and all it slowed finished, fault_settled()): the longest
 * restart delay the strategy can take (a failure declared at that moment)
 * + a timeout (a checkpoint the faults doomed holds its slot) + the min
 * pause + a timeout (the next one, under the catch-up load, completes
 * within it or is aborted) + 5 intervals (trigger ticks after a restart,
 * after an abort, after a second doomed concurrent checkpoint, and a
 * checkpoint's own run) + 10 ms (store and message latencies). The
 * derivation is at the definition; `expect liveness D` overrides it. */
sim_time_ns check_liveness_default(const pipe_cfg *cfg);

/* Short names ("I1".."I6") and what each promises. */
const char *check_inv_name(check_inv inv);
const char *check_inv_title(check_inv inv);

/* The first violation of the run, or NULL. */
const check_violation *check_first(const check_report *r);
uint64_t check_total(const check_report *r);

#endif
