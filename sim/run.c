/* sim/run.c: run life cycle, actors, machines, timers and the dispatch loop.
 *
 * Dispatch of one event (sim_step), in order:
 *   1. pop the earliest event; now_ns = its time (never decreases);
 *   2. decide its outcome: a kernel event runs its fault step; an event to a
 *      down actor or an older incarnation is dropped; a message whose stream
 *      connection broke is dropped; a cancelled timer is skipped; an event
 *      to a paused actor, or queued behind its deferred ones, is deferred
 *      (only looked at while run->pause_load > 0);
 *   3. fold (time, event, outcome) into the trace hash, log it if asked;
 *   4. call the handler for delivered events;
 *   5. prefetch the next event's actor line (its body was prefetched by
 *      the pop: see prefetch_next).
 * The outcome is decided before the fold so the hash records drops too.
 *
 * Deferral (pauses). A deferred event is pushed back with a late-class seq
 * (sim/evq.h): at its time it pops after every ordinary event, so after the
 * end event of the window it waits for, whatever the order in which the
 * window and the event were scheduled. Its seq is its ticket: taken fresh
 * at its first deferral and kept when it is deferred again (a window that
 * began later moved the end), so an actor's deferred events always pop in
 * the order they were first deferred, which is the order they were due.
 * An event popped for an actor that is not paused but still has deferred
 * events waiting (pause_state.waiting > 0) is deferred behind them, at the
 * same time: it was due after them. When the actor is not paused its
 * deferred events all wait at the current time (the end of its last
 * window), so a deferred event popped then is the earliest and is
 * delivered. */
#include "run.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void copy_name(char dst[SIM_NAME_BYTES], const char *src) {
    SIM_ASSERT(src != NULL);
    size_t n = strlen(src);
    if (n >= SIM_NAME_BYTES) n = SIM_NAME_BYTES - 1;   /* names are labels: truncate */
    memcpy(dst, src, n);
    dst[n] = '\0';
}

sim_cfg sim_cfg_default(uint64_t seed) {
    return (sim_cfg){
        .seed = seed,
        .actors_max = 1024,
        .machines_max = 16,
        .links_max = 4096,
        .timers_max = 4096,
        .devs_max = 4,
        .faults_max = 256,
        .events_pending_max = 1u << 16,
        .events_max = 100000000ull,
        .time_max_ns = 3600ull * SIM_NS_PER_S,
        .model_bytes = 1u << 20,
        .log = NULL,
    };
}

/* A payload slot: the largest payload, rounded up so that every slot is
 * aligned for any struct a model sends. */
static size_t slot_bytes(const sim_cfg *c) { return ((size_t)c->payload_bytes + 15) & ~(size_t)15; }

static size_t kernel_bytes(const sim_cfg *c) {
    size_t slack = 64 * 16;   /* alignment padding of the arrays below */
    return sizeof(sim_run) + slack
         + (size_t)c->actors_max * (sizeof(sim_actor) + sizeof(sim_actor_cold) + sizeof(sim_pause) + SIM_NAME_BYTES)
         + (size_t)c->machines_max * sizeof(sim_machine)
         + (size_t)c->timers_max * (sizeof(sim_timer) + sizeof(uint32_t))
         + (size_t)c->links_max * sizeof(sim_link)
         + (size_t)c->devs_max * sizeof(sim_dev)
         + (size_t)c->faults_max * (sizeof(sim_fault) + sizeof(uint32_t))
         + evq_bytes(c->events_pending_max)
         + (c->order_ties ? (size_t)c->events_pending_max * (sizeof(sim_event) + 2 * sizeof(uint64_t) + 2 * sizeof(uint32_t)) : 0)
         + (size_t)c->payloads_max * (slot_bytes(c) + sizeof(uint32_t));
}

size_t sim_run_bytes(const sim_cfg *cfg) { return kernel_bytes(cfg) + cfg->model_bytes; }

sim_run *sim_run_create(const sim_cfg *cfg) {
    SIM_ASSERT(cfg->actors_max >= 1 && cfg->actors_max <= SIM_ACTORS_MAX);
    SIM_ASSERT(cfg->machines_max >= 1 && cfg->machines_max <= SIM_MACHINES_MAX);
    SIM_ASSERT(cfg->links_max <= SIM_LINKS_MAX);
    SIM_ASSERT(cfg->timers_max <= SIM_TIMERS_MAX);
    SIM_ASSERT(cfg->devs_max <= SIM_DEVS_MAX);
    SIM_ASSERT(cfg->faults_max <= SIM_FAULTS_MAX);
    SIM_ASSERT(cfg->events_pending_max >= 1 && cfg->events_pending_max <= SIM_EVENTS_PENDING_MAX);

    arena a;
    if (!arena_create(&a, kernel_bytes(cfg) + cfg->model_bytes)) return NULL;
    sim_run *run = ARENA_NEW(&a, sim_run, 1);
    run->arena = a;                       /* the run owns the arena it lives in */
    run->cfg = *cfg;
    run->seed = cfg->seed;
    run->trace_hash = TRACE_HASH_INIT;
    arena *ar = &run->arena;
    run->actors = arena_alloc(ar, sizeof(sim_actor) * cfg->actors_max, _Alignof(sim_actor));
    run->actors_cold = ARENA_NEW(ar, sim_actor_cold, cfg->actors_max);
    run->actor_names = arena_alloc(ar, (size_t)SIM_NAME_BYTES * cfg->actors_max, 8);
    run->machines = ARENA_NEW(ar, sim_machine, cfg->machines_max);
    run->timers = ARENA_NEW(ar, sim_timer, cfg->timers_max ? cfg->timers_max : 1);
    run->timer_free = ARENA_NEW(ar, uint32_t, cfg->timers_max ? cfg->timers_max : 1);
    for (uint32_t i = 0; i < cfg->timers_max; i++) run->timer_free[i] = cfg->timers_max - 1 - i;
    run->timer_free_count = cfg->timers_max;
    run->links = ARENA_NEW(ar, sim_link, cfg->links_max ? cfg->links_max : 1);
    run->devs = ARENA_NEW(ar, sim_dev, cfg->devs_max ? cfg->devs_max : 1);
    run->faults = ARENA_NEW(ar, sim_fault, cfg->faults_max ? cfg->faults_max : 1);
    run->typed = ARENA_NEW(ar, uint32_t, cfg->faults_max ? cfg->faults_max : 1);
    run->pauses = ARENA_NEW(ar, sim_pause, cfg->actors_max);
    evq_init(&run->events, ar, cfg->events_pending_max);
    run->kernel_rng = rng_stream(cfg->seed, rng_stream_id(RNG_DOMAIN_KERNEL, 0));
    if (cfg->order_ties) {
        run->ties = ARENA_NEW(ar, sim_event, cfg->events_pending_max);
        run->ties_seq = ARENA_NEW(ar, uint64_t, cfg->events_pending_max);
        run->ties_ns = ARENA_NEW(ar, sim_time_ns, cfg->events_pending_max);
        run->ties_first = ARENA_NEW(ar, uint32_t, cfg->events_pending_max);
        run->ready_dst = ARENA_NEW(ar, uint32_t, cfg->events_pending_max);
    }
    if (cfg->payloads_max > 0) {
        SIM_ASSERT(cfg->payload_bytes > 0);
        run->payloads = arena_alloc(ar, (size_t)cfg->payloads_max * slot_bytes(cfg), 16);
        run->payload_free = ARENA_NEW(ar, uint32_t, cfg->payloads_max);
        for (uint32_t i = 0; i < cfg->payloads_max; i++) run->payload_free[i] = cfg->payloads_max - 1 - i;
        run->payload_free_count = cfg->payloads_max;
    }
    SIM_ASSERT(arena_mark(ar) <= kernel_bytes(cfg));
    return run;
}

void sim_run_destroy(sim_run *run) {
    if (run == NULL) return;
    if (sim_assert_ctx_current.now_ns == &run->now_ns) {
        sim_assert_ctx_current = (sim_assert_ctx){ 0 };
    }
    arena a = run->arena;                 /* copy out: run lives inside it */
    arena_destroy(&a);
}

void *sim_alloc(sim_run *run, size_t size_bytes, size_t align) {
    SIM_ASSERT(!run->started);
    return arena_alloc(&run->arena, size_bytes, align);
}

uint32_t sim_machine_add(sim_run *run, const char *name) {
    SIM_ASSERT(!run->started);
    SIM_ASSERT(run->machines_count < run->cfg.machines_max);
    uint32_t id = run->machines_count++;
    sim_machine *m = &run->machines[id];
    m->up = true;
    copy_name(m->name, name);
    return id;
}

uint32_t sim_actor_add(sim_run *run, const char *name, uint32_t machine,
                       sim_handler_fn on_event, void *ctx) {
    SIM_ASSERT(!run->started);
    SIM_ASSERT(run->actors_count < run->cfg.actors_max);
    SIM_ASSERT(machine < run->machines_count);
    SIM_ASSERT(on_event != NULL);
    uint32_t id = run->actors_count++;
    sim_actor *a = &run->actors[id];
    a->on_event = on_event;
    a->ctx = ctx;
    a->id = id;
    a->up = run->machines[machine].up;
    a->inc = 0;
    a->crash_epoch = 0;
    run->actors_cold[id].machine = machine;
    a->rng = rng_stream(run->seed, rng_stream_id(RNG_DOMAIN_ACTOR, id));
    copy_name(run->actor_names[id], name);
    return id;
}

const char *sim_actor_name(const sim_run *run, uint32_t actor) {
    if (actor == SIM_KERNEL) return "kernel";
    SIM_ASSERT(actor < run->actors_count);
    return run->actor_names[actor];
}

sim_event *sim_schedule(sim_run *run, sim_time_ns at_ns, uint32_t dst, sim_ev_kind kind) {
    SIM_ASSERT(at_ns >= run->now_ns);
    SIM_ASSERT(dst == SIM_KERNEL || dst < run->actors_count);
    sim_event *ev = evq_push(&run->events, at_ns);
    ev->dst = dst;
    ev->epoch = run->crash_epoch;
    ev->kind = (uint16_t)kind;
    ev->flags = 0;
    ev->aux = SIM_NO_LINK;
    ev->gen = 0;
    ev->payload = 0;
    ev->msg = (sim_msg){ 0 };
    return ev;
}

void sim_run_start(sim_run *run) {
    SIM_ASSERT(!run->started);
    arena_freeze(&run->arena);
    run->started = true;
    sim_assert_ctx_current = (sim_assert_ctx){ .seed = run->seed, .now_ns = &run->now_ns };
    for (uint32_t i = 0; i < run->actors_count; i++) {
        if (run->actors[i].up) sim_schedule(run, 0, i, SIM_EV_START);
    }
}

void sim_send(sim_run *run, uint32_t src, uint32_t dst, sim_time_ns delay_ns, const sim_msg *m) {
    SIM_ASSERT(src == SIM_KERNEL || (src < run->actors_count && run->actors[src].up));
    SIM_ASSERT(delay_ns <= SIM_TIME_NS_MAX - run->now_ns);
    sim_event *ev = sim_schedule(run, run->now_ns + delay_ns, dst, SIM_EV_MSG);
    ev->msg = *m;
    ev->msg.src = src;
}

sim_timer_id sim_timer_set(sim_run *run, uint32_t actor, sim_time_ns delay_ns, uint64_t tag) {
    SIM_ASSERT(actor < run->actors_count && run->actors[actor].up);
    SIM_ASSERT(run->timer_free_count > 0);   /* raise timers_max */
    SIM_ASSERT(delay_ns <= SIM_TIME_NS_MAX - run->now_ns);
    uint32_t slot = run->timer_free[--run->timer_free_count];
    sim_timer *t = &run->timers[slot];
    SIM_ASSERT(!t->armed);
    t->armed = true;
    sim_event *ev = sim_schedule(run, run->now_ns + delay_ns, actor, SIM_EV_TIMER);
    ev->aux = slot;
    ev->gen = t->gen;
    ev->msg.a = tag;
    ev->msg.src = actor;
    return ((uint64_t)t->gen << 32) | ((uint64_t)slot + 1);
}

static void timer_release(sim_run *run, uint32_t slot) {
    sim_timer *t = &run->timers[slot];
    SIM_ASSERT(t->armed);
    t->armed = false;
    t->gen++;
    run->timer_free[run->timer_free_count++] = slot;
    SIM_ASSERT(run->timer_free_count <= run->cfg.timers_max);
}

bool sim_timer_cancel(sim_run *run, sim_timer_id id) {
    SIM_ASSERT(id != 0);
    uint32_t slot = (uint32_t)(id & 0xffffffffu) - 1u;
    uint32_t gen = (uint32_t)(id >> 32);
    SIM_ASSERT(slot < run->cfg.timers_max);
    sim_timer *t = &run->timers[slot];
    if (!t->armed || t->gen != gen) return false;
    timer_release(run, slot);
    return true;
}

void sim_actor_crash(sim_run *run, uint32_t actor) {
    SIM_ASSERT(actor < run->actors_count);
    sim_actor *a = &run->actors[actor];
    if (!a->up && !a->starting) return;
    a->up = false;
    a->starting = false;                  /* a START still queued is stale now */
    a->inc++;
    SIM_ASSERT(run->crash_epoch < UINT32_MAX);
    a->crash_epoch = ++run->crash_epoch;  /* everything queued for it is now stale */
    run->actors_cold[actor].crashes++;
    run->pauses[actor].waiting = 0;      /* its deferred events too: they will be dropped, not waited for */
    run->stats.actor_crashes++;
    for (uint32_t i = 0; i < run->links_count; i++) {   /* id order: deterministic */
        sim_link *l = &run->links[i];
        if (l->cfg.kind == LINK_STREAM && (l->src == actor || l->dst == actor)) {
            link_break(run, l, actor);
        }
    }
    SIM_ASSERT(!a->up);
}

bool sim_actor_paused(const sim_run *run, uint32_t actor) {
    SIM_ASSERT(actor < run->actors_count);
    return run->pauses[actor].windows > 0 || run->machines[run->actors_cold[actor].machine].pauses > 0;
}

void sim_actor_restart(sim_run *run, uint32_t actor) {
    SIM_ASSERT(actor < run->actors_count);
    sim_actor *a = &run->actors[actor];
    if (a->up || a->starting || !run->machines[run->actors_cold[actor].machine].up) return;   /* machine down: stays down */
    a->starting = true;                   /* up when its START is dispatched (fate) */
    sim_schedule(run, run->now_ns, actor, SIM_EV_START);
}

void sim_machine_crash(sim_run *run, uint32_t machine) {
    SIM_ASSERT(machine < run->machines_count);
    sim_machine *m = &run->machines[machine];
    if (!m->up) return;
    m->up = false;
    m->crashes++;
    run->stats.machine_crashes++;
    for (uint32_t i = 0; i < run->actors_count; i++) {
        if (run->actors_cold[i].machine == machine) sim_actor_crash(run, i);
    }
}

void sim_machine_restart(sim_run *run, uint32_t machine) {
    SIM_ASSERT(machine < run->machines_count);
    sim_machine *m = &run->machines[machine];
    if (m->up) return;
    m->up = true;
    for (uint32_t i = 0; i < run->actors_count; i++) {
        if (run->actors_cold[i].machine == machine) sim_actor_restart(run, i);
    }
}

uint32_t sim_choose_slow(sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    SIM_ASSERT(kind >= SIM_CHOICE_DELAY && kind < SIM_CHOICE_KIND_COUNT);
    uint32_t v = run->chooser.choose(run->chooser.ctx, run, stream, kind, n);
    SIM_ASSERT(n == 0 || v < n);
    return v;
}

const uint32_t *sim_ready_dsts(const sim_run *run, uint32_t *n) {
    *n = run->ready_count;
    return run->ready_count > 0 ? run->ready_dst : NULL;
}

void sim_stop(sim_run *run) {
    run->stop_requested = true;
}

const char *sim_stop_reason_text(sim_stop_reason r) {
    switch (r) {
    case SIM_STOP_NONE:        return "running";
    case SIM_STOP_IDLE:        return "idle";
    case SIM_STOP_REQUESTED:   return "stopped";
    case SIM_STOP_EVENT_LIMIT: return "event-limit";
    case SIM_STOP_TIME_LIMIT:  return "time-limit";
    }
    return "?";
}

void sim_stop_describe(const sim_run *run, char *buf, size_t size_bytes) {
    switch (run->stop) {
    case SIM_STOP_EVENT_LIMIT:
        snprintf(buf, size_bytes,
                 "run stopped: event limit of %" PRIu64 " events reached at t=%" PRIu64
                 "ns with %" PRIu32 " events pending (raise the event bound)",
                 run->cfg.events_max, run->now_ns, run->events.count);
        break;
    case SIM_STOP_TIME_LIMIT:
        snprintf(buf, size_bytes,
                 "run stopped: time limit of %" PRIu64 "ns reached after %" PRIu64
                 " events with %" PRIu32 " events pending (raise the time bound)",
                 run->cfg.time_max_ns, run->stats.dispatched, run->events.count);
        break;
    default:
        snprintf(buf, size_bytes, "run %s at t=%" PRIu64 "ns after %" PRIu64 " events",
                 sim_stop_reason_text(run->stop), run->now_ns, run->stats.dispatched);
        break;
    }
}

static const char *const kind_names[SIM_EV_KIND_COUNT] = {
    [SIM_EV_START] = "start", [SIM_EV_MSG] = "msg", [SIM_EV_TIMER] = "timer",
    [SIM_EV_LINK_DOWN] = "link-down", [SIM_EV_IO_DONE] = "io-done",
    [SIM_EV_FAULT_BEGIN] = "fault-begin", [SIM_EV_FAULT_END] = "fault-end",
};
static const char *const outcome_names[] = {
    "delivered", "dropped:down", "dropped:link", "timer:cancelled", "kernel", "deferred:paused",
};

static const char *io_status_name(uint32_t gen) {
    return gen == DEV_OK ? "ok" : gen == DEV_AMBIGUOUS ? "ambiguous" : "failed";
}

/* One line per popped event; fields by kind, so a reader needs no decoder. */
static void log_event(const sim_run *run, const sim_event *ev, trace_outcome o) {
    FILE *f = run->cfg.log;
    fprintf(f, "t=%" PRIu64 ".%09" PRIu64 " %-11s %-16s", run->now_ns / SIM_NS_PER_S,
            run->now_ns % SIM_NS_PER_S, kind_names[ev->kind], sim_actor_name(run, ev->dst));
    switch (ev->kind) {
    case SIM_EV_START:                    /* the incarnation it starts, unless a crash made it stale */
        if (ev->epoch >= run->actors[ev->dst].crash_epoch) {
            fprintf(f, " inc=%" PRIu32, run->actors[ev->dst].inc);
        } else {
            fprintf(f, " inc=stale");
        }
        break;
    case SIM_EV_MSG:
        fprintf(f, " from=%s", sim_actor_name(run, ev->msg.src));
        if (ev->aux != SIM_NO_LINK) fprintf(f, " link=%" PRIu32, ev->aux);
        fprintf(f, " type=%" PRIu32 " a=%" PRIu64 " b=%" PRIu64, ev->msg.type, ev->msg.a, ev->msg.b);
        break;
    case SIM_EV_TIMER:
        fprintf(f, " tag=%" PRIu64, ev->msg.a);
        break;
    case SIM_EV_LINK_DOWN:
        fprintf(f, " link=%" PRIu32, ev->aux);
        break;
    case SIM_EV_IO_DONE:
        fprintf(f, " dev=%s op=%s status=%s tag=%" PRIu64 " bytes=%" PRIu64, run->devs[ev->aux].name,
                ev->msg.type == DEV_OP_WRITE ? "write" : "read", io_status_name(ev->gen),
                ev->msg.a, ev->msg.b);
        break;
    default: {                            /* the kernel's own event: name what the fault acts on */
        char target[512];                 /* a partition names up to 64 machines */
        fprintf(f, " fault=%" PRIu32 " %s target=%s", ev->aux, fault_kind_name(run->faults[ev->aux].spec.kind),
                fault_target_text(run, ev->aux, target, sizeof target));
        break;
    }
    }
    fprintf(f, " %s\n", outcome_names[o]);
}

static void payload_release(sim_run *run, uint32_t slot) {
    SIM_ASSERT(slot < run->cfg.payloads_max && run->payload_free_count < run->cfg.payloads_max);
    run->payload_free[run->payload_free_count++] = slot;
}

void *sim_payload_take(sim_run *run, sim_event *ev, uint32_t bytes) {
    SIM_ASSERT(ev->payload == 0 && bytes > 0 && bytes <= run->cfg.payload_bytes);
    SIM_ASSERT(run->payload_free_count > 0);   /* more payloads in flight than the run was sized for */
    uint32_t slot = run->payload_free[--run->payload_free_count];
    ev->payload = slot + 1;
    return run->payloads + (size_t)slot * slot_bytes(&run->cfg);
}

uint32_t sim_payload_free(const sim_run *run) { return run->payload_free_count; }

const void *sim_payload(const sim_run *run, const sim_event *ev) {
    if (ev->payload == 0) return NULL;
    SIM_ASSERT(ev->payload <= run->cfg.payloads_max);
    return run->payloads + (size_t)(ev->payload - 1) * slot_bytes(&run->cfg);
}

/* An event to an actor that is down, or stamped before its last crash:
 * dropped, but for the START of a restarted actor's new incarnation,
 * which brings it up. */
static trace_outcome fate_down(sim_actor *a, const sim_event *ev) {
    if (!a->starting || ev->kind != SIM_EV_START || ev->epoch < a->crash_epoch) return TRACE_DROPPED_DOWN;
    a->starting = false;
    a->up = true;
    return TRACE_DELIVERED;
}

static inline trace_outcome fate(sim_run *run, const sim_event *ev) {
    if (ev->dst == SIM_KERNEL) return TRACE_KERNEL;
    if (ev->kind == SIM_EV_TIMER) {        /* cancelled: stale, whoever it was for */
        const sim_timer *t = &run->timers[ev->aux];
        if (!t->armed || t->gen != ev->gen) return TRACE_TIMER_STALE;
    }
    sim_actor *a = &run->actors[ev->dst];
    if (SIM_UNLIKELY(!a->up || ev->epoch < a->crash_epoch)) return fate_down(a, ev);
    SIM_PREFETCH(a->ctx);                 /* the handler's likely first load: overlap it with the hash fold */
    if (ev->kind == SIM_EV_MSG && ev->aux != SIM_NO_LINK && run->links[ev->aux].gen != ev->gen) {
        return TRACE_DROPPED_LINK;
    }
    return TRACE_DELIVERED;
}

/* Where an event to a paused actor waits: the latest planned end of the
 * windows open on it and on its machine. It may be now, for an event that
 * popped before a window's end event of the same time; deferred, it pops
 * after that end event, which is ordinary. */
static sim_time_ns paused_until(const sim_run *run, uint32_t actor) {
    const sim_pause *p = &run->pauses[actor];
    const sim_machine *m = &run->machines[run->actors_cold[actor].machine];
    sim_time_ns until = 0;
    if (p->windows > 0) until = p->until_ns;
    if (m->pauses > 0 && m->paused_until_ns > until) until = m->paused_until_ns;
    SIM_ASSERT(until >= run->now_ns);
    return until;
}

/* fate() while pauses are about (pause_load > 0). A popped deferred event
 * waits no longer: it leaves the counts first, and is counted again if it
 * is deferred again. */
static bool rpc_message(const sim_run *run, const sim_event *ev) {
    return ev->kind == SIM_EV_MSG && ev->aux != SIM_NO_LINK && run->links[ev->aux].cfg.kind == LINK_RPC;
}

static trace_outcome fate_pausing(sim_run *run, const sim_event *ev) {
    if (ev->flags & SIM_EVF_DEFERRED) {
        SIM_ASSERT(run->pause_load > 0);
        run->pause_load--;
        if (rpc_message(run, ev)) {
            SIM_ASSERT(run->paused_rpc > 0);
            run->paused_rpc--;
        }
        sim_pause *p = &run->pauses[ev->dst];
        if (ev->epoch >= run->actors[ev->dst].crash_epoch) {   /* an older incarnation's were forgotten at its crash */
            SIM_ASSERT(p->waiting > 0);
            p->waiting--;
        }
    }
    trace_outcome o = fate(run, ev);
    if (o != TRACE_DELIVERED) return o;
    bool wait = sim_actor_paused(run, ev->dst);
    /* Not paused: a deferred event is the earliest waiting (all wait at
     * now), anything else was due after what still waits. */
    if (!wait && !(ev->flags & SIM_EVF_DEFERRED) && run->pauses[ev->dst].waiting > 0) wait = true;
    if (!wait) return TRACE_DELIVERED;
    if (!(ev->flags & SIM_EVF_DEFERRED) && run->paused_rpc >= SIM_PAUSED_RPC_MAX && rpc_message(run, ev))
        return TRACE_LOST_PAUSED;
    return TRACE_DEFERRED_PAUSED;
}

static inline trace_outcome classify(sim_run *run, const sim_event *ev) {
    if (SIM_UNLIKELY(run->pause_load != 0)) return fate_pausing(run, ev);
    return fate(run, ev);
}

/* Put ev back to wait: to its actor's window end while it is paused, else
 * behind what waits at now. A deferred event keeps its ticket (its seq),
 * a new one takes the next. The copy in the queue owns ev's payload. */
static void defer(sim_run *run, sim_event *ev) {
    uint32_t actor = ev->dst;
    sim_time_ns at_ns = sim_actor_paused(run, actor) ? paused_until(run, actor) : run->now_ns;
    uint64_t seq = (ev->flags & SIM_EVF_DEFERRED) ? run->events.last_seq : (evq_seq_take(&run->events) | EVQ_SEQ_LATE);
    SIM_ASSERT(seq & EVQ_SEQ_LATE);
    sim_event *back = evq_push_seq(&run->events, at_ns, seq);
    *back = *ev;
    back->flags |= SIM_EVF_DEFERRED;
    sim_pause *p = &run->pauses[actor];
    p->waiting++;
    p->deferred++;
    run->pause_load++;
    if (rpc_message(run, ev)) run->paused_rpc++;
    SIM_ASSERT(run->paused_rpc <= SIM_PAUSED_RPC_MAX);
    run->stats.deferred_paused++;
    ev->payload = 0;
}

/* Whether a near-simultaneous pick may make ev wait: not one that waited
 * once already, not the kernel's own (a fault window begins and ends on
 * time). A decision's window ends at the first that may not. */
static inline bool may_wait(const sim_event *ev) {
    return ev->dst != SIM_KERNEL && !(ev->flags & SIM_EVF_WAITED);
}

/* The end of a decision's window from *at_ns: near_ns on, for the
 * ordinary class only (a deferred event waits for a window's end, and
 * its ticket must stay in order), never past the run's time bound (the
 * pick would run beyond it). */
static inline sim_time_ns window_end(const sim_run *run, sim_time_ns at_ns, uint64_t late) {
    if (late != 0 || run->cfg.near_ns == 0) return at_ns;
    sim_time_ns last = at_ns + run->cfg.near_ns;
    SIM_ASSERT(at_ns <= run->cfg.time_max_ns);    /* stops() ends the run first */
    return last < run->cfg.time_max_ns ? last : run->cfg.time_max_ns;
}

/* Several events are ready at *at_ns (or, with cfg.near_ns, within near_ns
 * of it): pop them all, let the choice point pick one among the first
 * event of each destination, and push the others back in their places
 * (their old seqs). All of them, not a window: an event left in the queue
 * would otherwise overtake re-pushed events of its own destination; all
 * of one class (ordinary or deferred) at a time, so no choice puts a
 * deferred event before the window end it waits for. A pick due later
 * than *at_ns moves the clock there (*at_ns): the events gathered before
 * it wait until then, pushed back with new seqs in their old order. */
static void order_ties(sim_run *run, sim_time_ns *at_ns, sim_event *ev) {
    sim_event *ready = run->ties;
    uint64_t *seqs = run->ties_seq;
    uint64_t late = run->events.last_seq & EVQ_SEQ_LATE;
    sim_time_ns *times = run->ties_ns, last = window_end(run, *at_ns, late);
    uint32_t n = 0;
    seqs[n] = run->events.last_seq;
    times[n] = *at_ns;
    ready[n++] = *ev;
    if (!may_wait(ev)) last = *at_ns;
    while (!evq_empty(&run->events) && evq_peek_ns(&run->events) <= last &&
           (evq_peek_seq(&run->events) & EVQ_SEQ_LATE) == late) {
        /* A kernel event (a fault window beginning or ending) later than
         * *at_ns ends the window before it: nothing waits past a fault's
         * time, and the fault keeps its own. */
        if (evq_peek_ns(&run->events) > *at_ns && evq_peek_body(&run->events)->dst == SIM_KERNEL) break;
        SIM_ASSERT(n < run->cfg.events_pending_max);
        evq_pop(&run->events, &times[n], &ready[n]);
        if (!may_wait(&ready[n])) last = times[n];
        seqs[n++] = run->events.last_seq;
    }
    uint32_t eligible = 0;
    for (uint32_t i = 0; i < n; i++) {   /* the first event of each destination, in (time, push) order */
        bool first = true;
        for (uint32_t j = 0; j < eligible && first; j++) first = run->ready_dst[j] != ready[i].dst;
        if (first) {
            run->ties_first[eligible] = i;
            run->ready_dst[eligible++] = ready[i].dst;
        }
    }
    run->ready_count = eligible;
    uint32_t pick_rank = eligible > 1 ? sim_choose(run, &run->kernel_rng, SIM_CHOICE_ORDER, eligible) : 0;
    run->ready_count = 0;
    uint32_t pick = run->ties_first[pick_rank];
    *ev = ready[pick];
    if (pick != 0) run->ties_reordered++;
    if (times[pick] == *at_ns) {
        run->events.last_seq = seqs[pick];   /* as if it had been popped alone: defer() reads it */
        for (uint32_t i = 0; i < n; i++) {   /* in their old places: before anything pushed from now on */
            if (i != pick) *evq_push_seq(&run->events, times[i], seqs[i]) = ready[i];
        }
        return;
    }
    SIM_ASSERT(late == 0 && ev->dst != SIM_KERNEL);   /* window_end and the loop keep both to their times */
    *at_ns = times[pick];                    /* a near one: what came before it waits until it */
    for (uint32_t i = 0; i < n; i++) {       /* new seqs in the old (time, push) order */
        if (i == pick) continue;
        sim_time_ns t = times[i] < *at_ns ? *at_ns : times[i];
        if (t != times[i]) ready[i].flags |= SIM_EVF_WAITED;
        *evq_push_seq(&run->events, t, evq_seq_take(&run->events) | late) = ready[i];
    }
    run->events.last_seq = evq_seq_take(&run->events);   /* the pick's ticket (ordinary: defer() takes a new one) */
}

/* With many actors, an event's body, its actor and the actor's model
 * object are three dependent cache misses. evq_pop prefetches the next
 * event's body; after a handler it has had time to arrive, so the next
 * actor's line is requested here, to arrive during the next pop's
 * sift-down, and fate() requests the model object behind it. With many
 * links (a job's channels) or timers, the line fate() reads to tell a
 * stale message or timer is a miss of its own: requested here too. Hints
 * only: nothing here changes what a run does. */
static inline void prefetch_next(const sim_run *run) {
    if (evq_empty(&run->events)) return;
    const sim_event *next = evq_peek_body(&run->events);
    if (next->dst == SIM_KERNEL) return;
    SIM_PREFETCH(&run->actors[next->dst]);
    if (next->kind == SIM_EV_MSG && next->aux != SIM_NO_LINK) SIM_PREFETCH(&run->links[next->aux].gen);
    if (next->kind == SIM_EV_TIMER) SIM_PREFETCH(&run->timers[next->aux]);
}

/* Whether the run stops before its next event, and why (run->stop). */
static inline bool stops(sim_run *run) {
    if (run->stop_requested) run->stop = SIM_STOP_REQUESTED;
    else if (evq_empty(&run->events)) run->stop = SIM_STOP_IDLE;
    else if (run->stats.dispatched >= run->cfg.events_max) run->stop = SIM_STOP_EVENT_LIMIT;
    else if (evq_peek_ns(&run->events) > run->cfg.time_max_ns) run->stop = SIM_STOP_TIME_LIMIT;
    else return false;
    return true;
}

static inline bool step(sim_run *run) {
    if (stops(run)) return false;
    sim_time_ns at_ns;
    sim_event ev;
    evq_pop(&run->events, &at_ns, &ev);
    SIM_ASSERT(at_ns >= run->now_ns);
    if (SIM_UNLIKELY(run->ties != NULL) && !evq_empty(&run->events) &&
        evq_peek_ns(&run->events) - at_ns <= run->cfg.near_ns) {
        order_ties(run, &at_ns, &ev);
    }
    run->now_ns = at_ns;
    run->stats.dispatched++;
    if ((ev.flags & (SIM_EVF_HELD | SIM_EVF_DEFERRED)) == SIM_EVF_HELD) {   /* it arrived: no longer held */
        SIM_ASSERT(run->rpc_held > 0 && run->links[ev.aux].held > 0);
        run->rpc_held--;
        run->links[ev.aux].held--;
    }

    trace_outcome o = classify(run, &ev);
    run->trace_hash = trace_fold(run->trace_hash, at_ns, &ev, o);
    if (SIM_UNLIKELY(run->cfg.log != NULL)) log_event(run, &ev, o);

    switch (o) {
    case TRACE_DELIVERED: {
        sim_actor *a = &run->actors[ev.dst];
        if (ev.kind == SIM_EV_TIMER) timer_release(run, ev.aux);
        a->delivered++;
        run->stats.delivered++;
        a->on_event(run, a, &ev);
        break;
    }
    case TRACE_DROPPED_DOWN:
        /* A live timer of a dead incarnation still holds its slot: free it. */
        if (ev.kind == SIM_EV_TIMER) timer_release(run, ev.aux);
        run->actors_cold[ev.dst].dropped++;
        run->stats.dropped_down++;
        break;
    case TRACE_DROPPED_LINK:
        run->links[ev.aux].dropped_in_flight++;
        run->stats.dropped_link++;
        break;
    case TRACE_TIMER_STALE:
        run->stats.timers_stale++;
        break;
    case TRACE_DEFERRED_PAUSED:
        defer(run, &ev);                 /* clears ev.payload: the copy put back holds the slot */
        break;
    case TRACE_LOST_PAUSED:
        run->stats.lost_paused++;
        break;
    case TRACE_KERNEL:
        if (ev.kind == SIM_EV_FAULT_BEGIN) {
            fault_begin(run, ev.aux);
        } else {
            SIM_ASSERT(ev.kind == SIM_EV_FAULT_END);
            fault_end(run, ev.aux);
        }
        break;
    }
    if (ev.payload != 0) payload_release(run, ev.payload - 1);   /* delivered or dropped: its slot is free */
    prefetch_next(run);
    return true;
}

bool sim_step(sim_run *run) {
    SIM_ASSERT(run->started);
    return step(run);
}

sim_stop_reason sim_run_loop(sim_run *run) {
    SIM_ASSERT(run->started);
    run->stop = SIM_STOP_NONE;
    run->stop_requested = false;
    while (step(run)) {
    }
    SIM_ASSERT(run->stop != SIM_STOP_NONE);
    return run->stop;
}
