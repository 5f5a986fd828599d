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
 *   but for one decision: the unit of absim explore's tie orders.
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

/* One deviation from the default order of simultaneous events: every
 * decision of kind SIM_CHOICE_ORDER takes the first ready destination
 * (the order events were pushed in: the run is the run without
 * cfg.order_ties), except the `at`-th (1-based), which takes the
 * `pick`-th; decisions of other kinds draw from the caller's stream as
 * the default choice point does. `applied` says whether the `at`-th
 * decision came, with more than `pick` ready. With `log` (the caller's,
 * `log_cap` entries) it also records how many destinations were ready at
 * each decision (at most 65535 counted), for an exploration to list the
 * deviations a run allows; past the capacity it keeps counting and sets
 * `log_overflow`. */
typedef struct choice_deviation {
    uint64_t  at;                 /* 0: none (the default order throughout) */
    uint32_t  pick;
    uint64_t  seen;               /* order decisions so far */
    bool      applied;
    uint16_t *log;
    uint64_t  log_cap;
    bool      log_overflow;
} choice_deviation;

void choice_deviate(sim_run *run, choice_deviation *d);   /* installs it; the run needs cfg.order_ties */

void choice_log_init(choice_log *log, choice_entry *entries, uint64_t capacity);
void choice_record(sim_run *run, choice_log *log);   /* installs the recorder */
void choice_replay(sim_run *run, choice_log *log);   /* installs the replayer */

#endif
