/* sim/choice.h: choice-point strategies that record and replay a run's
 * decisions.
 *
 * Contract:
 * - A recorder draws exactly as the default choice point does (so a
 *   recorded run has the same trace hash as an unrecorded one) and appends
 *   each decision (kind, n, value) to a log of fixed capacity; past the
 *   capacity it keeps drawing and sets `overflow`.
 * - A replayer returns the logged values in order, whatever the seed. When
 *   the run asks for a decision the log does not match (other kind or n,
 *   or the log is exhausted) it sets `diverged`, remembers where, and falls
 *   back to drawing from the caller's stream, so the run still ends.
 * - The log's memory is the caller's (from a run's sim_alloc, or set up
 *   before any run), so a log recorded in one run can be replayed in
 *   another. These are also the template for other strategies (PCT,
 *   exhaustive search): they only have to fill in sim_chooser.
 * - A deviation (below) orders simultaneous events as they were pushed,
 *   but for the decisions it names: absim explore's tie orders.
 * - PCT (below) orders simultaneous events by priorities of their
 *   destinations, with d - 1 priority change points.
 */
#ifndef SIM_CHOICE_H
#define SIM_CHOICE_H

#include "run.h"

typedef struct choice_entry {
    uint32_t value;
    uint32_t n;
    uint8_t  kind;
} choice_entry;

typedef struct choice_log {
    choice_entry *entries;
    uint64_t      count;
    uint64_t      capacity;
    uint64_t      cursor;        /* replay position */
    uint64_t      diverged_at;   /* first mismatching decision, if diverged */
    bool          overflow;
    bool          diverged;
} choice_log;

/* Deviations from the default order of simultaneous events: every
 * decision of kind SIM_CHOICE_ORDER takes the first ready destination
 * (the order events were pushed in: the run is the run without
 * cfg.order_ties), except the ones `ties` names: the ties[i].at-th
 * decision (1-based, strictly increasing in i) takes the ties[i].pick-th
 * ready destination. A run is identified by these choices: together
 * with its seed they give the run again. Decisions of other kinds draw
 * from the caller's stream as the default choice point does. Bit i of
 * `applied` says whether ties[i]'s decision came with more than its pick
 * ready. With `log` (the caller's, `log_cap` entries) it also records how
 * many destinations were ready at each decision (at most 65535 counted),
 * for an exploration to list the deviations a run allows; past the
 * capacity it keeps counting and sets `log_overflow`. */
#define CHOICE_TIES_MAX 16u

typedef struct choice_tie {
    uint64_t at;                  /* the decision, from 1 */
    uint32_t pick;                /* the ready destination that goes first, from 1 (0 is the default's) */
} choice_tie;

typedef struct choice_deviation {
    choice_tie ties[CHOICE_TIES_MAX];
    uint32_t   count;             /* 0: the default order throughout */
    uint32_t   next;              /* the first of ties whose decision has not come */
    uint32_t   applied;           /* bit i: ties[i] applied */
    uint64_t   seen;              /* order decisions so far */
    uint16_t  *log;
    uint64_t   log_cap;
    bool       log_overflow;
} choice_deviation;

/* Whether every tie applied; else *first is the first that did not. */
bool choice_deviation_applied(const choice_deviation *d, uint32_t *first);
void choice_deviate(sim_run *run, choice_deviation *d);   /* installs it; the run needs cfg.order_ties */

/* PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi
 * and Nagarakatte, "A Randomized Scheduler with Probabilistic Guarantees
 * of Finding Bugs", ASPLOS 2010), on the order of simultaneous events.
 * Every destination (an actor, or the kernel) has a priority, drawn the
 * first time it is ready at a decision: a random 32-bit value above any
 * change point's, distinct by destination. At each decision of kind
 * SIM_CHOICE_ORDER the ready destination of highest priority goes first.
 * Before the first decision d - 1 change points are drawn, distinct,
 * uniformly among decisions 1..steps (with replacement when steps < d -
 * 1); change point i (1-based) falls at decision change_at[i - 1], where
 * the ready destination of highest priority drops to priority i, below
 * every drawn one and below what change points i + 1.. set, before the
 * pick: from then on it goes after every destination ready with it
 * whose priority is higher.
 * Every draw comes from the stream of the order decisions (the kernel's,
 * sim/run.h); decisions of other kinds draw from the caller's stream as
 * the default choice point does.
 *
 * The guarantee (the paper's Theorem 9, with its threads as destinations
 * and its steps as order decisions): when some order of the run's
 * simultaneous events shows a bug, and d ordering constraints among the
 * events of its first `steps` decisions (the bug's depth) suffice, one
 * run finds it with probability at least 1 / (n * steps^(d - 1)), n the
 * destinations that were ever ready at a decision. Events at
 * different times keep their time order: PCT orders what ties, the
 * seeds' delays decide what ties. With the run's cfg.near_ns > 0 a
 * decision is among the events due within near_ns of the earliest
 * (sim/run.h), and the bound is over those decisions: orders that move
 * an event later by up to near_ns are then in reach too. */
#define CHOICE_PCT_DEPTH_MAX 8u

typedef struct choice_pct {
    uint32_t  depth;                  /* d >= 1 */
    uint64_t  steps;                  /* k >= 1: the decisions the change points are drawn among */
    uint64_t *prio;                   /* by destination (slots - 1: the kernel), 0: not drawn yet; the caller's */
    uint32_t  slots;                  /* the run's actors_max + 1 */
    uint64_t  change_at[CHOICE_PCT_DEPTH_MAX - 1];
    uint64_t  seen;                   /* order decisions so far */
    uint32_t  met;                    /* destinations ready at some decision so far (n) */
    uint32_t  changed;                /* change points the run reached */
    bool      drawn;                  /* change points drawn (at the first decision) */
} choice_pct;

/* Installs PCT of depth d over `steps` decisions; prio has room for
 * actors_max + 1 priorities (zeroed here). The run needs cfg.order_ties. */
void choice_pct_install(sim_run *run, choice_pct *p, uint32_t depth, uint64_t steps, uint64_t *prio);
/* The guarantee's probability, 1 / (n * steps^(d - 1)), for the
 * destinations met so far (0 before any decision). */
double choice_pct_bound(const choice_pct *p);

void choice_log_init(choice_log *log, choice_entry *entries, uint64_t capacity);
void choice_record(sim_run *run, choice_log *log);   /* installs the recorder */
void choice_replay(sim_run *run, choice_log *log);   /* installs the replayer */

#endif
