/* scenarios/space.h: the space of a bounded-exhaustive exploration (absim
 * explore): the protocol points a run reaches, and the faults that can be
 * placed at each.
 *
 * Contract:
 * - A point is a place a `fault when` line can name (scn_point: a task
 *   aligning, triggering, done with the sync part of, or committing
 *   checkpoint n; the coordinator starting or completing it), taken the
 *   first time a run reaches it, since a fault at a point fires then.
 *   A step no line can name (a commit at a restore from no checkpoint)
 *   is counted in `unnamed`, not kept.
 *   spc_points observes a run (its pipe observer) and keeps each point
 *   once, in the order the run reached them, at most SPC_POINTS_MAX; a
 *   new point past that sets `overflow` (the job is too big to explore
 *   exhaustively: the caller refuses it).
 * - The menu is every fault of the chosen kinds (a bit per scn_fault_kind)
 *   on every target of the job, with fixed parameters: a window of
 *   `window_ns` (the crashed machine or coordinator comes back after it; a
 *   crashed task at once), delays of window_ns, ratios of 100%, slowdowns
 *   of 10x; and every fault of each `lengths` entry's kind at that entry's
 *   window instead (a kind may be on the menu at several lengths: two
 *   faults that must overlap need different ones). Kind by kind in the
 *   order of fk_at, the kind's bit first, then its entries as given, each
 *   length once; a kind with no window and no delay (a crashed task) is
 *   offered once whatever the lengths (spc_kind_timed says which).
 *   Targets: each machine, task, data channel; the coordinator; a
 *   partition between each pair of TaskManager machines and between each
 *   machine and the JobManager's; RPCs of each task, every message from it
 *   and, to it, the checkpoint protocol's three (trigger, complete,
 *   abort); the store and, where the kind allows it, the HA store. Kinds
 *   at a time only (rescale) have no place at a point and are left out.
 *   A menu fault the reader refuses for this scenario (a store fault
 *   without a durable store, say) is left out and counted in `refused`,
 *   with the first reason kept.
 * - A placement is menu fault f at point p: f with p's point fields, not
 *   optional (it must fire), at no delay after the point. Placements are
 *   numbered point-major: placement i is point i / menu, fault i % menu.
 * - Deterministic: the same scenario and options give the same points and
 *   menu in the same order; nothing here draws a random number. */
#ifndef SCN_SPACE_H
#define SCN_SPACE_H

#include "fkind.h"
#include "inject.h"

#define SPC_POINTS_MAX 4096u
#define SPC_MENU_MAX   1024u
#define SPC_RPC_KINDS  4u             /* every message from the task, and three to it */

typedef struct spc_points {
    scn_fault   *at;                  /* [SPC_POINTS_MAX]: the point fields of each (the rest zero) */
    sim_time_ns *at_ns;               /* [SPC_POINTS_MAX]: when the run reached it */
    uint64_t    *seen;                /* hash set of point keys, 2 * SPC_POINTS_MAX slots (0: empty) */
    uint32_t     count;
    uint64_t     unnamed;             /* steps no `fault when` line can name (a commit at a restore from nothing) */
    uint64_t     ckpt_max;            /* the highest checkpoint of a point so far */
    bool         overflow;
    const job   *j;
} spc_points;

/* Memory for the point lists (malloc'd); false when there is none. */
bool spc_points_init(spc_points *ps, const job *j);
void spc_points_free(spc_points *ps);
/* Empty again, for another run of job j. */
void spc_points_reset(spc_points *ps, const job *j);
/* A point (f's point fields) as one nonzero word, and back. */
uint64_t spc_point_key(const scn_fault *f);
void spc_point_of_key(uint64_t key, scn_fault *f);
/* A pipe_observe_fn; ctx is the spc_points. */
void spc_points_observe(void *ctx, const pipe_event *e);

#define SPC_LENGTHS_MAX 32u

typedef struct spc_length {
    uint32_t    kind;                 /* a scn_fault_kind */
    sim_time_ns window_ns;            /* above 0 */
} spc_length;

typedef struct spc_opts {
    uint64_t    kinds;                /* bit k: scn_fault_kind k is on the menu at window_ns */
    sim_time_ns window_ns;
    spc_length  lengths[SPC_LENGTHS_MAX];   /* a kind on the menu at a window of its own */
    uint32_t    lengths_count;
} spc_opts;

typedef struct spc_menu {
    scn_fault faults[SPC_MENU_MAX];
    uint32_t  count;
    uint32_t  refused;                /* faults the reader refused for this scenario */
    uint32_t  beyond;                 /* faults past SPC_MENU_MAX (the menu is then incomplete: refuse it) */
    char      first_refusal[SCN_ERR_BYTES];
} spc_menu;

/* Every kind that can be placed at a point (the default menu). */
uint64_t spc_kinds_all(void);
/* Whether kind k's menu faults take a window or a delay (a length). */
bool spc_kind_timed(const fk_info *k);
/* The menu of s (j: its expanded job). scratch: a scenario's worth of
 * memory the round trips through the reader use. */
void spc_menu_build(const scn *s, const job *j, const spc_opts *o, scn *scratch, spc_menu *m);
/* Placement `i` of the space (points x menu) into *f. */
void spc_place(const spc_points *ps, const spc_menu *m, uint64_t i, scn_fault *f);

#endif
