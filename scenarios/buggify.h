/* scenarios/buggify.h: two-level fault activation at protocol points
 * (absim ... --faults buggify), after FoundationDB's BUGGIFY (flow/flow.cpp:
 * P_BUGGIFIED_SECTION_ACTIVATED and P_BUGGIFIED_SECTION_FIRES, both 0.25:
 * a code site is active in a run with probability 1/4, decided once per
 * run, and an active site fires with probability 1/4 each time it runs).
 *
 * Contract:
 * - A site is a fault kind at a kind of protocol point: one of the
 *   menu's kinds (scenarios/space.h, the faults explore places) at one of
 *   the points a `fault when` line names (a task aligning, triggering,
 *   done with the sync part, committing; the coordinator starting,
 *   completing). The sites of a run are those whose kind is on the menu
 *   and whose point kind the failure-free run (`pts`) reaches.
 * - Level 1: each site is active for the seed with probability 1/4.
 * - Level 2: at each point of `pts`, in the order the run reached them,
 *   each active site of that point's kind fires with probability 1/4. A
 *   firing is the site's fault at that point: a menu fault of its kind,
 *   its target drawn uniformly among the menu's of that kind.
 * - At most BGY_FIRES_MAX firings are kept, a uniform sample of them
 *   (reservoir sampling) when more fired, so that a run stays one the job
 *   survives; they go into s as `fault when POINT ...` lines, in point
 *   order, each `optional` (a run they fault may never reach a later
 *   point of the failure-free run), while the script has room.
 * - Deterministic: every draw from a stream of its own for the seed; the
 *   same s, seed, points and menu give the same faults.
 */
#ifndef SCN_BUGGIFY_H
#define SCN_BUGGIFY_H

#include "space.h"

#define BGY_FIRES_MAX 8u

typedef struct bgy_tally {
    uint32_t sites, active;           /* sites of the run, and those active for the seed */
    uint64_t chances;                 /* points at which an active site could fire (level 2's draws) */
    uint64_t fired;                   /* firings at the run's points, before the sample */
    uint32_t added;                   /* fault lines added to s */
} bgy_tally;

void bgy_faults(scn *s, uint64_t seed, const spc_points *pts, const spc_menu *m, bgy_tally *t);

#endif
