/* sim/run.h: the run context, actors, machines, timers, the choice point and
 * the dispatch loop. Everything a run has lives in one sim_run, inside one
 * arena; there is no global state.
 *
 * Contract:
 * - Life cycle: sim_run_create() -> add machines, actors, links, devices,
 *   faults and model memory (sim_alloc) -> sim_run_start() freezes the arena
 *   and sends every actor on an up machine SIM_EV_START at time 0 in id
 *   order -> sim_run_loop() dispatches until the queue is empty, a handler
 *   calls sim_stop(), or a bound (events_max, time_max_ns) is hit ->
 *   sim_run_destroy() frees everything at once.
 * - Dispatch order is (time, push order). A handler sees run->now_ns equal to
 *   its event's time; everything it schedules is at now_ns or later.
 * - Crash: an actor that crashes is down and its incarnation is bumped;
 *   every event scheduled to an earlier incarnation (messages, timers, I/O
 *   completions) is dropped at dispatch and counted, and never reaches the
 *   handler. A restart starts a new incarnation with SIM_EV_START, its
 *   first event: until the START is dispatched the actor is down to every
 *   other event, so one that pops before it at the same instant (a
 *   message due then, pushed before the restart) is dropped, as it would
 *   have been a moment earlier; a process receives nothing before it
 *   runs. How:
 *   an event is stamped with the run's crash epoch (the count of actor
 *   crashes so far) rather than its destination's incarnation, so that
 *   scheduling never reads the destination (a cache miss per send with
 *   many actors); a crash bumps the epoch and records it in the actor, and
 *   an event stamped below its destination's crash_epoch was scheduled
 *   before that actor's last crash: to an earlier incarnation.
 * - Timers are cancellable in O(1): a cancelled timer's event stays queued
 *   and is skipped when popped (its slot generation no longer matches).
 * - The choice point: every nondeterministic decision of a run goes through
 *   sim_choose(). By default it draws from the caller's own PCG stream; a
 *   sim_chooser installed before start replaces it (record/replay of a
 *   choice log, PCT, exhaustive enumeration) without changing the model.
 * - Every popped event is folded into run->trace_hash (sim/trace.h).
 * - Simultaneous events run in push order. With cfg.order_ties, whenever
 *   several events are ready at the same time the choice point picks which
 *   goes first (SIM_CHOICE_ORDER, from the kernel's own stream), among the
 *   earliest event of each destination: events to one actor keep their
 *   order, so links stay FIFO. This is the hook for schedule exploration.
 *   Deferred events (below) are ordered among themselves, after the others.
 *   With cfg.near_ns > 0 the decision also takes the events due within
 *   near_ns of the earliest (near-simultaneous ones); when the choice
 *   falls on one due at t later than the earliest, it runs at t and every
 *   event gathered before it waits until t too, in its old order (as a
 *   pause would hold it): no event runs before its time, the clock never
 *   goes back, each destination's events keep their order. An event
 *   waits so once at most (SIM_EVF_WAITED: a decision's window ends at
 *   one), so none runs more than near_ns after it was due; the window
 *   ends before a kernel event later than its start (a fault window
 *   begins and ends on time, and nothing is moved past it), and at the
 *   time bound; deferred events (the late class) are ordered by exact
 *   ties only. An actor that keeps losing such decisions runs each of its
 *   events up to near_ns late, so it runs slower, as under a slow-task
 *   fault; the model's timeouts see that, the checks' time bounds do not
 *   (near_ns is kept small: model/cfg.h). The
 *   default pick (the first) changes nothing: a run that never deviates
 *   is the run without near_ns.
 * - Pause (faults MACHINE_PAUSE, ACTOR_PAUSE; a JVM in a long GC pause, a
 *   SIGSTOP'd process): an actor is paused while a pause window on it or
 *   on its machine is open (nested windows: while any is). A paused actor
 *   handles no event: every event to it (message, timer, I/O completion,
 *   LINK_DOWN, START) popped while it is paused is deferred, not dropped:
 *   put back in the queue at the planned end of its open windows, in the
 *   late class (sim/evq.h), so it pops after the window's end event and
 *   every other event of that time. Deferred events of one actor keep the
 *   order in which they were first deferred, which is the order they were
 *   due, and an event due while its actor still has deferred events waiting
 *   is deferred behind them: each actor's events, and so each link, stay in
 *   order. A window that begins while an actor is paused and ends later
 *   moves what waits to its end. When the last window ends, the deferred
 *   events are delivered at that same time, in order, marked
 *   SIM_EVF_DEFERRED in ev->flags.
 * - The RPC messages waiting for paused actors are bounded: one arriving
 *   for a paused actor while SIM_PAUSED_RPC_MAX RPC messages wait already
 *   is lost (outcome TRACE_LOST_PAUSED, stats.lost_paused), as a message
 *   on an RPC link may be lost at any time (sim/link.h); a stream link's
 *   message, a timer or any other event always waits. Without the bound a
 *   sender that repeats an RPC every millisecond to a process paused for
 *   seconds would fill the event queue, whose size is fixed per run.
 * - A pause changes nothing else: the actor keeps its state, incarnation,
 *   timers and links (no LINK_DOWN: peers notice only silence); devices and
 *   links keep working. A crash of a paused actor drops what was deferred
 *   to its old incarnation, as for any event to it; an actor restarted
 *   while a window on it or its machine is open is paused too. Each
 *   deferral is a popped event: folded into the trace hash with outcome
 *   TRACE_DEFERRED_PAUSED, counted in stats.dispatched (events_max bounds
 *   it) and in stats.deferred_paused. A run that never pauses pays one
 *   predictable branch per event (run->pause_load is 0) and keeps its
 *   trace hash.
 * - Memory per event, for runs with more actors than the caches hold:
 *   dispatching an event reads its body, its actor's hot part (one 64-byte
 *   line, sim_actor; the cold part, sim_actor_cold, is not touched) and
 *   whatever the handler reads; sending reads nothing of the destination.
 *   The kernel prefetches the next event's body and actor line and the
 *   handler's ctx while it works on the current one. Prefetches are hints:
 *   they change no value, so no trace hash depends on them.
 */
#ifndef SIM_RUN_H
#define SIM_RUN_H

#include <stdio.h>

#include "arena.h"
#include "dev.h"
#include "evq.h"
#include "fault.h"
#include "link.h"
#include "rng.h"
#include "trace.h"

#define SIM_KERNEL  UINT32_MAX   /* dst of the kernel's own events */
#define SIM_NO_LINK UINT32_MAX

typedef enum sim_ev_kind {
    SIM_EV_START = 1,     /* actor (re)started: first event of each incarnation */
    SIM_EV_MSG,           /* message in ev->msg; aux = link id or SIM_NO_LINK */
    SIM_EV_TIMER,         /* timer fired; msg.a = the tag given to sim_timer_set */
    SIM_EV_LINK_DOWN,     /* a stream link touching this actor broke; aux = link */
    SIM_EV_IO_DONE,       /* storage operation finished (sim/dev.h) */
    SIM_EV_FAULT_BEGIN,   /* kernel: aux = fault id */
    SIM_EV_FAULT_END,     /* kernel: aux = fault id */
    SIM_EV_KIND_COUNT
} sim_ev_kind;

#define SIM_EVF_DEFERRED 1u       /* ev->flags: the event waited out a pause of its actor */
#define SIM_EVF_HELD     2u       /* ev->flags: an RPC message a delay holds, counted until it pops (sim/link.h) */
#define SIM_EVF_WAITED   4u       /* ev->flags: it waited for a near-simultaneous pick (cfg.near_ns) once already */

typedef enum sim_stop_reason {
    SIM_STOP_NONE = 0,
    SIM_STOP_IDLE,          /* no event left */
    SIM_STOP_REQUESTED,     /* a handler called sim_stop() */
    SIM_STOP_EVENT_LIMIT,   /* events_max dispatched */
    SIM_STOP_TIME_LIMIT,    /* next event lies beyond time_max_ns */
} sim_stop_reason;

typedef enum sim_choice_kind {
    SIM_CHOICE_DELAY = 1,   /* a duration (n = 0: a raw 32-bit uniform) */
    SIM_CHOICE_DROP,        /* whether to lose or fail something */
    SIM_CHOICE_PICK,        /* which of n targets or items */
    SIM_CHOICE_FAULT,       /* which fault, when */
    SIM_CHOICE_ORDER,       /* which of n ready deliveries goes first */
    SIM_CHOICE_BRANCH,      /* a yes/no decision of the model's own */
    SIM_CHOICE_DUP,         /* whether to deliver a message twice */
    SIM_CHOICE_KIND_COUNT
} sim_choice_kind;

typedef struct sim_run sim_run;
typedef struct sim_actor sim_actor;

typedef void (*sim_handler_fn)(sim_run *run, sim_actor *self, const sim_event *ev);

/* A strategy for the choice point. It returns a value in [0, n), or any
 * 32-bit value when n == 0. `stream` is the caller's stream: a strategy that
 * does not draw from it must leave it alone. */
typedef struct sim_chooser {
    uint32_t (*choose)(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n);
    void *ctx;
} sim_chooser;

/* An actor's hot part: what dispatch and a handler read or write per event,
 * one 64-byte line each (aligned), in a dense array (run->actors) apart from
 * the cold part. At 100,000 actors the array is far beyond the caches, so
 * an event to a random actor costs one line, not the two a 72-byte actor
 * straddled, and dispatch prefetches that line for the next event. */
struct sim_actor {
    _Alignas(64)
    sim_handler_fn on_event;
    void          *ctx;            /* the model's object for this actor */
    rng            rng;            /* the actor's own stream */
    uint64_t       delivered;
    uint32_t       inc;            /* incarnation, bumped by every crash */
    uint32_t       id;
    uint32_t       crash_epoch;    /* run->crash_epoch at its last crash: events stamped earlier are stale */
    bool           up;
    bool           starting;       /* restarted, its START not dispatched yet: down to every other event */
};

_Static_assert(sizeof(sim_actor) == 64, "an actor's hot part is one cache line");

/* An actor's cold part (run->actors_cold): what only crashes, restarts,
 * pauses, faults and reports read. */
typedef struct sim_actor_cold {
    uint32_t machine;
    uint64_t dropped;              /* events that found it down or restarted */
    uint64_t crashes;
} sim_actor_cold;

typedef struct sim_machine {
    bool        up;
    uint32_t    pauses;            /* open pause windows on the machine */
    sim_time_ns paused_until_ns;   /* the latest planned end of those windows */
    uint64_t    crashes;
    char        name[SIM_NAME_BYTES];
} sim_machine;

/* An actor's pause state, apart from sim_actor so that dispatch without
 * pauses never touches it. */
typedef struct sim_pause {
    uint32_t    windows;           /* open ACTOR_PAUSE windows on the actor */
    uint32_t    waiting;           /* its deferred events in the queue (current incarnation) */
    sim_time_ns until_ns;          /* the latest planned end of its windows */
    uint64_t    deferred;          /* deferrals, all incarnations */
} sim_pause;

typedef uint64_t sim_timer_id;     /* gen << 32 | (slot + 1); 0 is never a timer */

typedef struct sim_timer {
    uint32_t gen;
    bool     armed;
} sim_timer;

typedef struct sim_cfg {
    uint64_t    seed;
    uint32_t    actors_max;
    uint32_t    machines_max;
    uint32_t    links_max;
    uint32_t    timers_max;
    uint32_t    devs_max;
    uint32_t    faults_max;
    uint32_t    events_pending_max;
    uint64_t    events_max;        /* bound: events dispatched */
    sim_time_ns time_max_ns;       /* bound: virtual time */
    size_t      model_bytes;       /* arena room for the model */
    uint32_t    payloads_max;      /* message payloads in flight at once (link_send_payload) */
    uint32_t    payload_bytes;     /* the largest payload */
    bool        order_ties;        /* let the choice point order simultaneous events */
    sim_time_ns near_ns;           /* order_ties: events due within this of the earliest tie too (0: exact ties only) */
    FILE       *log;               /* human-readable event log, or NULL */
} sim_cfg;

typedef struct sim_stats {
    uint64_t dispatched;           /* events popped, all outcomes */
    uint64_t delivered;            /* handler calls */
    uint64_t dropped_down;         /* to a crashed or restarted actor */
    uint64_t dropped_link;         /* on a connection that broke */
    uint64_t timers_stale;         /* cancelled timers popped */
    uint64_t deferred_paused;      /* popped and put back: the actor was paused (sim_pause) */
    uint64_t lost_paused;          /* RPC messages lost: SIM_PAUSED_RPC_MAX waited for paused actors */
    uint64_t lost_held;            /* RPC messages lost at sending: delays held their link's or the run's bound */
    uint64_t choices;              /* decisions taken at the choice point */
    uint64_t actor_crashes;
    uint64_t machine_crashes;
} sim_stats;

struct sim_run {
    sim_time_ns     now_ns;
    uint64_t        seed;
    uint64_t        trace_hash;
    sim_actor      *actors;        /* hot parts, one line each */
    uint32_t        crash_epoch;   /* actor crashes so far: what sim_schedule stamps on events */
    uint64_t        pause_load;    /* open pause windows + deferred events queued; 0: dispatch ignores pauses */
    uint32_t        paused_rpc;    /* RPC messages among the deferred events queued */
    uint32_t        rpc_held;      /* RPC messages delays hold, queued and not yet popped (sim/link.h) */
    evq             events;
    sim_chooser     chooser;       /* .choose == NULL: draw from the stream */
    sim_stats       stats;
    sim_stop_reason stop;
    bool            started;
    bool            stop_requested;
    sim_cfg         cfg;
    arena           arena;
    uint32_t        actors_count;
    sim_actor_cold *actors_cold;   /* cold parts, same index */
    char          (*actor_names)[SIM_NAME_BYTES];
    sim_machine    *machines;
    uint32_t        machines_count;
    sim_timer      *timers;
    uint32_t       *timer_free;
    uint32_t        timer_free_count;
    sim_link       *links;
    uint32_t        links_count;
    sim_dev        *devs;
    uint32_t        devs_count;
    sim_fault      *faults;
    uint32_t        faults_count;
    sim_pause      *pauses;        /* per actor */
    uint32_t       *typed;         /* open typed link windows (fault ids, in begin order: sim/link.h) */
    uint32_t        typed_count;
    rng             kernel_rng;    /* the kernel's own decisions (tie order) */
    sim_event      *ties;          /* order_ties: scratch for ready events */
    uint64_t       *ties_seq;      /* and their queue seqs, to put them back in place */
    uint32_t       *ties_first;    /* index in ties of each ready destination's first event */
    sim_time_ns    *ties_ns;       /* order_ties: when each of ties was due */
    uint32_t       *ready_dst;     /* the ready destinations (sim_ready_dsts) */
    uint32_t        ready_count;   /* > 0 only during a SIM_CHOICE_ORDER decision */
    uint64_t        ties_reordered;
    uint8_t        *payloads;      /* payloads_max slots of payload_bytes: what messages carry */
    uint32_t       *payload_free;  /* free slots, a stack */
    uint32_t        payload_free_count;
    fault_observe_fn fault_fn;     /* fault_observe(): sees fault steps, changes nothing */
    void           *fault_ctx;
};

/* A configuration with room for small runs; callers raise what they need. */
sim_cfg sim_cfg_default(uint64_t seed);

sim_run *sim_run_create(const sim_cfg *cfg);    /* NULL when memory is short */

/* During a SIM_CHOICE_ORDER decision (inside a chooser's choose), the n
 * destinations that are ready, in push order: value k of the decision
 * lets ready[k]'s earliest event go first. SIM_KERNEL stands for the
 * kernel's own events (fault windows). *n is 0, and the result NULL,
 * outside such a decision. For strategies that order by destination
 * (PCT, sim/choice.h). */
const uint32_t *sim_ready_dsts(const sim_run *run, uint32_t *n);
size_t   sim_run_bytes(const sim_cfg *cfg);     /* the arena sim_run_create takes: kernel + model_bytes */

/* Message payloads: what a message carries beyond its type and two words
 * (a state handle, a list of offsets). sim_payload_take() gives ev, a
 * message being scheduled, a slot of cfg.payload_bytes to fill now; the
 * receiver reads it with sim_payload() during its handler, and the slot is
 * free again once the event was dispatched, delivered or dropped. The
 * sender keeps no reference: what it sent is the receiver's copy. Taking
 * more than cfg.payloads_max at once asserts (a sizing bug of the model).
 * Payloads are not in the trace hash: the hash folds the message words. */
void       *sim_payload_take(sim_run *run, sim_event *ev, uint32_t bytes);
const void *sim_payload(const sim_run *run, const sim_event *ev);   /* NULL: the message has none */
uint32_t    sim_payload_free(const sim_run *run);                  /* slots free now */
void     sim_run_destroy(sim_run *run);
void    *sim_alloc(sim_run *run, size_t size_bytes, size_t align);   /* before start */

uint32_t sim_machine_add(sim_run *run, const char *name);
uint32_t sim_actor_add(sim_run *run, const char *name, uint32_t machine,
                       sim_handler_fn on_event, void *ctx);
const char *sim_actor_name(const sim_run *run, uint32_t actor);

void            sim_run_start(sim_run *run);
sim_stop_reason sim_run_loop(sim_run *run);
bool            sim_step(sim_run *run);            /* one event; false when stopped */
void            sim_stop(sim_run *run);
const char     *sim_stop_reason_text(sim_stop_reason r);
/* One line on the bound that stopped the run, or on idle/requested. */
void            sim_stop_describe(const sim_run *run, char *buf, size_t size_bytes);

/* Schedule a message to dst after delay_ns without a link (local delivery,
 * or models that do their own networking). src may be SIM_KERNEL. */
void sim_send(sim_run *run, uint32_t src, uint32_t dst, sim_time_ns delay_ns, const sim_msg *m);

sim_timer_id sim_timer_set(sim_run *run, uint32_t actor, sim_time_ns delay_ns, uint64_t tag);
bool         sim_timer_cancel(sim_run *run, sim_timer_id id);   /* false: fired or cancelled */

/* Whether actor is paused now (a pause window on it or its machine is
 * open): what it is sent waits. For the model's observers and checks. */
bool sim_actor_paused(const sim_run *run, uint32_t actor);

void sim_actor_crash(sim_run *run, uint32_t actor);
void sim_actor_restart(sim_run *run, uint32_t actor);
void sim_machine_crash(sim_run *run, uint32_t machine);
void sim_machine_restart(sim_run *run, uint32_t machine);

/* Kernel internal: reserve an event to dst, stamped with the run's crash
 * epoch (sim_event.epoch), so scheduling never reads dst's actor. */
sim_event *sim_schedule(sim_run *run, sim_time_ns at_ns, uint32_t dst, sim_ev_kind kind);

/* The choice point. */
uint32_t sim_choose_slow(sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n);

static inline uint32_t sim_choose(sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    run->stats.choices++;
    if (SIM_LIKELY(run->chooser.choose == NULL)) {
        return n != 0 ? rng_below(stream, n) : rng_u32(stream);
    }
    return sim_choose_slow(run, stream, kind, n);
}

/* Decisions built on the choice point. */
static inline sim_time_ns sim_delay_exp_ns(sim_run *run, rng *stream, sim_time_ns mean_ns) {
    return rng_exp_ns(sim_choose(run, stream, SIM_CHOICE_DELAY, 0), mean_ns);
}

/* Uniform on [lo_ns, hi_ns]; the span must be below 2^32 - 1 ns (4.29 s). */
static inline sim_time_ns sim_delay_uniform_ns(sim_run *run, rng *stream, sim_time_ns lo_ns,
                                               sim_time_ns hi_ns) {
    SIM_ASSERT(lo_ns <= hi_ns);
    SIM_ASSERT(hi_ns - lo_ns < UINT32_MAX);
    if (hi_ns == lo_ns) return lo_ns;
    return lo_ns + sim_choose(run, stream, SIM_CHOICE_DELAY, (uint32_t)(hi_ns - lo_ns + 1));
}

/* True with probability r; `kind` tells a strategy what is decided (DROP
 * for losses and failures, BRANCH for the model's own yes/no). Certain
 * outcomes take no draw. */
static inline bool sim_chance(sim_run *run, rng *stream, sim_choice_kind kind, sim_ratio r) {
    SIM_ASSERT(r.den > 0);
    SIM_ASSERT(r.num <= r.den);
    if (r.num == 0) return false;
    if (r.num == r.den) return true;
    return sim_choose(run, stream, kind, r.den) < r.num;
}

static inline sim_time_ns sim_now(const sim_run *run) { return run->now_ns; }

#endif
