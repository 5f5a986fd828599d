/* sim/fault.h: fault primitives that scenarios script.
 *
 * Contract:
 * - fault_add() schedules one fault at spec->at_ns (>= now). A fault with a
 *   window (duration_ns > 0) begins and ends with two kernel events; the end
 *   undoes exactly what the beginning did, so overlapping faults compose:
 *   a crash with a duration restarts its target when the window ends and
 *   no other crash window of the same kind on it is still open; of the
 *   loss, fail or ambiguous windows open on a link or device the strongest
 *   (highest ratio) governs, so a weaker one nested inside changes
 *   nothing; a target is paused while any pause window on it is open.
 * - Pauses (MACHINE_PAUSE, ACTOR_PAUSE) always have a window: the target's
 *   actors handle nothing inside it and get what was sent to them when it
 *   ends (sim/run.h says how); nothing is dropped or broken.
 * - Duplicates (LINK_DUP): a message sent on the RPC link while the
 *   window is open is delivered twice, with its ratio (one draw from the
 *   governing window's stream, the strongest of those that apply to it, as
 *   for loss, after the loss draw: a lost message is not duplicated). The
 *   copy arrives right behind the original (FIFO: nothing sent later
 *   overtakes it) and carries a copy of its payload; when the run has no
 *   payload slot free the copy is not made (sim_link.dup_skipped), which
 *   a run sized for its messages in flight never meets (model/plan.c).
 * - msg_type (LINK_LOSS, LINK_DELAY and LINK_DUP; 0 for every other kind): when
 *   non-zero the window acts only on messages whose sim_msg.type equals
 *   it. Windows of different types are open on one link at once and act
 *   independently; of the loss windows that apply to one message (the
 *   untyped ones and those of its type) the strongest governs, and a
 *   message pays the untyped delays plus the delays of its type. A link
 *   stays FIFO, so messages sent behind a delayed one wait for it.
 * - Faults take effect in the kernel's own events, ordered like any other
 *   event by (time, push order), and are folded into the trace hash.
 * - Every fault owns a PCG stream (domain FAULT, its index): probabilistic
 *   faults (RPC loss, failing and ambiguous writes) draw only from it,
 *   through the choice point, so adding a fault never shifts another
 *   actor's or link's draws.
 * - At most cfg.faults_max faults per run; fault_add() may be called before
 *   the run starts or from a handler during it (no allocation: the table is
 *   carved at sim_run_create()).
 * - A fault records whether its beginning ran (fault_begun()): a run that
 *   stops first (the job ended, a bound) leaves it unbegun, which scripts
 *   report. Recording it schedules nothing and draws nothing, so the trace
 *   hash is the same as without it.
 * - A window can outlast itself: work it slowed finishes after it closed.
 *   At a fault's end, settled_ns records when nothing it slowed is left:
 *   for a slow store, when every operation issued inside a slow window has
 *   completed (its transfer and latency were multiplied; later operations
 *   queued behind it in the FIFO run at normal speed); for a delayed link,
 *   when the last message sent inside it arrives (FIFO: later ones cannot
 *   overtake it); for the others, the window's end (for a pause, when what
 *   waited is delivered, at that same time). Only recorded, never
 *   folded into the hash.
 * - An observer (fault_observe(), at most one: absim run's --trace and
 *   summary) is called after a fault's beginning and after its end took
 *   effect. It may read the run, never change it (no event, no draw, no
 *   crash), so a run has the same trace hash with or without it.
 */
#ifndef SIM_FAULT_H
#define SIM_FAULT_H

#include "rng.h"

typedef struct sim_run sim_run;

typedef enum fault_kind {
    FAULT_ACTOR_CRASH = 1,   /* target = actor; duration > 0: restart after it */
    FAULT_ACTOR_RESTART,     /* target = actor */
    FAULT_MACHINE_CRASH,     /* target = machine; duration > 0: restart after it */
    FAULT_MACHINE_RESTART,   /* target = machine */
    FAULT_PARTITION,         /* machines_a | machines_b cut apart for duration */
    FAULT_LINK_CUT,          /* target = link, cut for duration */
    FAULT_LINK_DELAY,        /* target = link, + delay_ns for duration */
    FAULT_LINK_LOSS,         /* target = RPC link, lose with ratio for duration */
    FAULT_DEV_SLOW,          /* target = device, factor x slower for duration */
    FAULT_DEV_FAIL,          /* target = device, writes fail with ratio for duration */
    FAULT_MACHINE_PAUSE,     /* target = machine, its actors paused for duration (> 0) */
    FAULT_ACTOR_PAUSE,       /* target = actor, paused for duration (> 0) */
    FAULT_DEV_AMBIGUOUS,     /* target = device, writes done but reported DEV_AMBIGUOUS with ratio */
    FAULT_LINK_DUP,          /* target = RPC link, deliver a message twice with ratio for duration */
    FAULT_KIND_COUNT
} fault_kind;

typedef struct fault_spec {
    fault_kind  kind;
    sim_time_ns at_ns;
    sim_time_ns duration_ns;
    uint32_t    target;
    uint64_t    machines_a;    /* partition sides, bit i = machine i */
    uint64_t    machines_b;
    sim_time_ns delay_ns;      /* LINK_DELAY */
    sim_ratio   ratio;         /* LINK_LOSS, LINK_DUP, DEV_FAIL, DEV_AMBIGUOUS */
    uint32_t    factor;        /* DEV_SLOW, >= 1 */
    uint32_t    msg_type;      /* LINK_LOSS, LINK_DELAY, LINK_DUP: only messages of this type; 0: all */
} fault_spec;

typedef struct sim_fault {
    fault_spec  spec;
    rng         rng;
    uint32_t    id;
    bool        active;
    bool        begun;          /* its begin event ran (set once, never cleared) */
    sim_time_ns begun_ns;       /* when, if begun */
    uint32_t    links_cut;      /* partition: how many links it cut */
    sim_time_ns settled_ns;     /* set at its end: when what it slowed is over (below) */
} sim_fault;

uint32_t    fault_add(sim_run *run, const fault_spec *spec);
const char *fault_kind_name(fault_kind kind);
/* Whether fault_id's beginning ran (a fault added but not yet due, or due
 * after the run stopped, has not begun). */
bool        fault_begun(const sim_run *run, uint32_t fault_id);
/* When fault_id's effects are over (settled_ns once it ended; while its
 * window is open, the window's planned end, which is later than now). */
sim_time_ns fault_settled(const sim_run *run, uint32_t fault_id);

/* The observer of fault steps (begin: true at the beginning, false at the
 * end; windowless faults have a beginning only), or fn NULL: none. */
typedef void (*fault_observe_fn)(void *ctx, const sim_run *run, uint32_t fault_id, bool begin);
void        fault_observe(sim_run *run, fault_observe_fn fn, void *ctx);
/* What fault_id acts on, by the kernel's names: an actor ("agg[1]"), a
 * machine ("tm1"; a pause names its actor or machine the same way), a link ("map[0]->agg[1]"), a device ("store"), or a
 * partition's two sides ("tm0|tm1,jm"). Returns buf (cut to n bytes). */
const char *fault_target_text(const sim_run *run, uint32_t fault_id, char *buf, size_t n);

/* a > b, exactly (the ratio of the strongest window governs). */
static inline bool fault_ratio_stronger(sim_ratio a, sim_ratio b) {
    return (uint64_t)a.num * b.den > (uint64_t)b.num * a.den;
}

/* Kernel side: run a fault's beginning or end (called from dispatch). */
void fault_begin(sim_run *run, uint32_t fault_id);
void fault_end(sim_run *run, uint32_t fault_id);

#endif
