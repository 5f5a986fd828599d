/* sim/fault.c: scripted faults as pairs of kernel events (begin, end).
 *
 * Every begin has an end that undoes exactly its own effect (a counter
 * decremented, a sum reduced), never "reset to normal", so overlapping
 * faults of any kinds compose and heal in any order. */
#include "run.h"

#include <stdio.h>

static const char *const names[FAULT_KIND_COUNT] = {
    [FAULT_ACTOR_CRASH] = "crash-actor",     [FAULT_ACTOR_RESTART] = "restart-actor",
    [FAULT_MACHINE_CRASH] = "crash-machine", [FAULT_MACHINE_RESTART] = "restart-machine",
    [FAULT_PARTITION] = "partition",         [FAULT_LINK_CUT] = "cut-link",
    [FAULT_LINK_DELAY] = "delay-link",       [FAULT_LINK_LOSS] = "lose-rpc",
    [FAULT_DEV_SLOW] = "slow-store",         [FAULT_DEV_FAIL] = "fail-store",
    [FAULT_MACHINE_PAUSE] = "machine-pause", [FAULT_ACTOR_PAUSE] = "actor-pause",
    [FAULT_DEV_AMBIGUOUS] = "ambiguous-store", [FAULT_LINK_DUP] = "duplicate-rpc",
};

const char *fault_kind_name(fault_kind kind) {
    SIM_ASSERT(kind >= FAULT_ACTOR_CRASH && kind < FAULT_KIND_COUNT);
    return names[kind];
}

void fault_observe(sim_run *run, fault_observe_fn fn, void *ctx) {
    run->fault_fn = fn;
    run->fault_ctx = ctx;
}

/* "tm0,tm1": the machines of a partition side, by name. */
static size_t machines_text(const sim_run *run, uint64_t mask, char *buf, size_t n) {
    size_t used = 0;
    for (uint32_t m = 0; m < run->machines_count && used < n; m++) {
        if (!(mask & (1ull << m))) continue;
        int w = snprintf(buf + used, n - used, "%s%s", used > 0 ? "," : "", run->machines[m].name);
        used = w < 0 ? n : used + (size_t)w;
    }
    return used < n ? used : n;
}

const char *fault_target_text(const sim_run *run, uint32_t fault_id, char *buf, size_t n) {
    SIM_ASSERT(fault_id < run->faults_count && n > 0);
    const fault_spec *s = &run->faults[fault_id].spec;
    buf[0] = '\0';
    switch (s->kind) {
    case FAULT_ACTOR_CRASH:
    case FAULT_ACTOR_RESTART:
    case FAULT_ACTOR_PAUSE:     snprintf(buf, n, "%s", sim_actor_name(run, s->target)); break;
    case FAULT_MACHINE_CRASH:
    case FAULT_MACHINE_RESTART:
    case FAULT_MACHINE_PAUSE:   snprintf(buf, n, "%s", run->machines[s->target].name); break;
    case FAULT_PARTITION: {
        size_t used = machines_text(run, s->machines_a, buf, n);
        if (used + 1 < n) {
            buf[used++] = '|';
            buf[used] = '\0';
            machines_text(run, s->machines_b, buf + used, n - used);
        }
        break;
    }
    case FAULT_LINK_CUT:
    case FAULT_LINK_DELAY:
    case FAULT_LINK_LOSS:
    case FAULT_LINK_DUP: {
        const sim_link *l = &run->links[s->target];
        snprintf(buf, n, "%s->%s", sim_actor_name(run, l->src), sim_actor_name(run, l->dst));
        break;
    }
    case FAULT_DEV_SLOW:
    case FAULT_DEV_FAIL:
    case FAULT_DEV_AMBIGUOUS:   snprintf(buf, n, "%s", run->devs[s->target].name); break;
    default:                    SIM_ASSERT(!"unknown fault kind");
    }
    return buf;
}

static bool has_window(const fault_spec *s) {
    switch (s->kind) {
    case FAULT_ACTOR_RESTART:
    case FAULT_MACHINE_RESTART: return false;
    case FAULT_ACTOR_CRASH:
    case FAULT_MACHINE_CRASH:   return s->duration_ns > 0;
    default:                    return true;
    }
}

static void check_spec(const sim_run *run, const fault_spec *s) {
    /* A type filter only where a message is at hand. */
    SIM_ASSERT(s->msg_type == 0 || s->kind == FAULT_LINK_LOSS || s->kind == FAULT_LINK_DELAY || s->kind == FAULT_LINK_DUP);
    switch (s->kind) {
    case FAULT_ACTOR_CRASH:
    case FAULT_ACTOR_RESTART:
        SIM_ASSERT(s->target < run->actors_count);
        break;
    case FAULT_MACHINE_CRASH:
    case FAULT_MACHINE_RESTART:
        SIM_ASSERT(s->target < run->machines_count);
        break;
    case FAULT_ACTOR_PAUSE:                 /* a pause without a window would never end */
        SIM_ASSERT(s->target < run->actors_count);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    case FAULT_MACHINE_PAUSE:
        SIM_ASSERT(s->target < run->machines_count);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    case FAULT_PARTITION:
        SIM_ASSERT(s->machines_a != 0 && s->machines_b != 0);
        SIM_ASSERT((s->machines_a & s->machines_b) == 0);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    case FAULT_LINK_CUT:
    case FAULT_LINK_DELAY:
        SIM_ASSERT(s->target < run->links_count);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    case FAULT_LINK_LOSS:
    case FAULT_LINK_DUP:
        SIM_ASSERT(s->target < run->links_count);
        SIM_ASSERT(run->links[s->target].cfg.kind == LINK_RPC);   /* TCP neither loses nor duplicates */
        SIM_ASSERT(s->ratio.den > 0 && s->ratio.num <= s->ratio.den);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    case FAULT_DEV_SLOW:
        SIM_ASSERT(s->target < run->devs_count);
        SIM_ASSERT(s->factor >= 1 && s->factor <= 1000000);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    case FAULT_DEV_FAIL:
    case FAULT_DEV_AMBIGUOUS:
        SIM_ASSERT(s->target < run->devs_count);
        SIM_ASSERT(s->ratio.den > 0 && s->ratio.num <= s->ratio.den);
        SIM_ASSERT(s->duration_ns > 0);
        break;
    default:
        SIM_ASSERT(!"unknown fault kind");
    }
}

uint32_t fault_add(sim_run *run, const fault_spec *spec) {
    SIM_ASSERT(run->faults_count < run->cfg.faults_max);
    SIM_ASSERT(spec->at_ns >= run->now_ns);
    SIM_ASSERT(spec->duration_ns <= SIM_TIME_NS_MAX - spec->at_ns);
    check_spec(run, spec);
    uint32_t id = run->faults_count++;
    sim_fault *f = &run->faults[id];
    f->spec = *spec;
    f->id = id;
    f->rng = rng_stream(run->seed, rng_stream_id(RNG_DOMAIN_FAULT, id));
    sim_event *ev = sim_schedule(run, spec->at_ns, SIM_KERNEL, SIM_EV_FAULT_BEGIN);
    ev->aux = id;
    ev->gen = (uint32_t)spec->kind;
    if (has_window(spec)) {
        ev = sim_schedule(run, spec->at_ns + spec->duration_ns, SIM_KERNEL, SIM_EV_FAULT_END);
        ev->aux = id;
        ev->gen = (uint32_t)spec->kind;
    }
    return id;
}

bool fault_begun(const sim_run *run, uint32_t fault_id) {
    SIM_ASSERT(fault_id < run->faults_count);
    return run->faults[fault_id].begun;
}

sim_time_ns fault_settled(const sim_run *run, uint32_t fault_id) {
    SIM_ASSERT(fault_id < run->faults_count);
    const sim_fault *f = &run->faults[fault_id];
    if (f->begun && !f->active && has_window(&f->spec)) return f->settled_ns;
    return f->spec.at_ns + f->spec.duration_ns;
}

static bool crosses(const sim_run *run, const sim_link *l, uint64_t a, uint64_t b) {
    uint64_t ms = 1ull << run->actors_cold[l->src].machine;
    uint64_t md = 1ull << run->actors_cold[l->dst].machine;
    return ((ms & a) && (md & b)) || ((ms & b) && (md & a));
}

/* A window whose ratio governs while it is the strongest open (loss,
 * fail, ambiguous): it takes over if stronger than the one governing. */
static void govern_begin(sim_ratio *r, uint32_t *by, const sim_fault *f) {
    if (*by == UINT32_MAX || fault_ratio_stronger(f->spec.ratio, *r)) {
        *r = f->spec.ratio;
        *by = f->id;
    }
}

/* It closes: if it governed, the strongest still open (outer) does now. */
static void govern_end(const sim_run *run, sim_ratio *r, uint32_t *by, uint32_t fault_id, uint32_t outer) {
    if (*by != fault_id) return;
    *r = outer == UINT32_MAX ? SIM_RATIO_NEVER : run->faults[outer].spec.ratio;
    *by = outer;
}

/* A pause window opens or closes on an actor or a machine. The planned end
 * only grows while windows overlap: what waits goes to the latest one. */
static void pause_step(sim_run *run, const sim_fault *f, bool begin) {
    const fault_spec *s = &f->spec;
    sim_time_ns end_ns = s->at_ns + s->duration_ns;
    uint32_t *count;
    sim_time_ns *until;
    if (s->kind == FAULT_ACTOR_PAUSE) {
        count = &run->pauses[s->target].windows;
        until = &run->pauses[s->target].until_ns;
    } else {
        SIM_ASSERT(s->kind == FAULT_MACHINE_PAUSE);
        count = &run->machines[s->target].pauses;
        until = &run->machines[s->target].paused_until_ns;
    }
    if (begin) {
        SIM_ASSERT(run->now_ns == s->at_ns && end_ns > run->now_ns);
        (*count)++;
        if (end_ns > *until) *until = end_ns;
        run->pause_load++;
    } else {
        SIM_ASSERT(*count > 0 && run->pause_load > 0 && *until >= run->now_ns);
        (*count)--;
        run->pause_load--;
    }
}

static void link_loss_step(sim_run *run, const sim_fault *f, bool begin, uint32_t outer) {
    sim_link *l = &run->links[f->spec.target];
    if (f->spec.msg_type != 0) {           /* typed: in the run's table, not the link */
        if (begin) link_typed_open(run, f->id); else link_typed_close(run, f->id);
        return;
    }
    if (begin) {
        l->faulted++;
        govern_begin(&l->loss, &l->loss_fault, f);
    } else {
        SIM_ASSERT(l->faulted > 0);
        l->faulted--;
        govern_end(run, &l->loss, &l->loss_fault, f->id, outer);
    }
}

static void link_delay_step(sim_run *run, sim_fault *f, bool begin) {
    sim_link *l = &run->links[f->spec.target];
    if (!begin && l->last_arrival_ns > f->settled_ns) f->settled_ns = l->last_arrival_ns;
    if (f->spec.msg_type != 0) {
        if (begin) link_typed_open(run, f->id); else link_typed_close(run, f->id);
    } else if (begin) {
        l->spike_ns += f->spec.delay_ns;
    } else {
        SIM_ASSERT(l->spike_ns >= f->spec.delay_ns);
        l->spike_ns -= f->spec.delay_ns;
    }
}

void fault_begin(sim_run *run, uint32_t fault_id) {
    SIM_ASSERT(fault_id < run->faults_count);
    sim_fault *f = &run->faults[fault_id];
    const fault_spec *s = &f->spec;
    SIM_ASSERT(!f->active);
    SIM_ASSERT(!f->begun);                  /* one begin event per fault */
    f->active = has_window(s);
    f->begun = true;
    f->begun_ns = run->now_ns;
    switch (s->kind) {
    case FAULT_ACTOR_CRASH:     sim_actor_crash(run, s->target); break;
    case FAULT_ACTOR_RESTART:   sim_actor_restart(run, s->target); break;
    case FAULT_MACHINE_CRASH:   sim_machine_crash(run, s->target); break;
    case FAULT_MACHINE_RESTART: sim_machine_restart(run, s->target); break;
    case FAULT_PARTITION:
        for (uint32_t i = 0; i < run->links_count; i++) {
            if (crosses(run, &run->links[i], s->machines_a, s->machines_b)) {
                link_cut(run, i);
                f->links_cut++;
            }
        }
        break;
    case FAULT_LINK_CUT:      link_cut(run, s->target); break;
    case FAULT_LINK_DELAY:    link_delay_step(run, f, true); break;
    case FAULT_LINK_LOSS:     link_loss_step(run, f, true, UINT32_MAX); break;
    case FAULT_LINK_DUP:      link_typed_open(run, f->id); break;   /* typed or not, in the run's table */
    case FAULT_DEV_SLOW:      run->devs[s->target].slow_extra += s->factor - 1; break;
    case FAULT_DEV_FAIL:      govern_begin(&run->devs[s->target].fail, &run->devs[s->target].fail_fault, f); break;
    case FAULT_DEV_AMBIGUOUS:
        govern_begin(&run->devs[s->target].ambiguous, &run->devs[s->target].ambiguous_fault, f);
        break;
    case FAULT_MACHINE_PAUSE:
    case FAULT_ACTOR_PAUSE:   pause_step(run, f, true); break;
    default: SIM_ASSERT(!"unknown fault kind");
    }
    if (run->fault_fn != NULL) run->fault_fn(run->fault_ctx, run, fault_id, true);
}

/* The strongest other open window of the same kind on the same target
 * (and of the same message type: a typed window never governs untyped
 * traffic), by the highest loss, fail or ambiguity ratio; for crashes any;
 * or UINT32_MAX: nested windows compose, so a weaker window inside a
 * stronger one changes nothing, and when one ends the ones still open keep
 * governing. */
static uint32_t still_open(const sim_run *run, uint32_t fault_id) {
    const fault_spec *s = &run->faults[fault_id].spec;
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < run->faults_count; i++) {   /* a few dozen at most, and only at a window's edge */
        const sim_fault *o = &run->faults[i];
        if (i == fault_id || !o->active || o->spec.kind != s->kind || o->spec.target != s->target) continue;
        if (o->spec.msg_type != s->msg_type) continue;
        if (best == UINT32_MAX || fault_ratio_stronger(o->spec.ratio, run->faults[best].spec.ratio)) best = i;
    }
    return best;
}

void fault_end(sim_run *run, uint32_t fault_id) {
    SIM_ASSERT(fault_id < run->faults_count);
    sim_fault *f = &run->faults[fault_id];
    const fault_spec *s = &f->spec;
    SIM_ASSERT(f->active);
    f->active = false;
    f->settled_ns = run->now_ns;
    uint32_t outer = still_open(run, fault_id);
    switch (s->kind) {
    case FAULT_ACTOR_CRASH:                       /* an outer window keeps it down */
        if (outer == UINT32_MAX) sim_actor_restart(run, s->target);
        break;
    case FAULT_MACHINE_CRASH:
        if (outer == UINT32_MAX) sim_machine_restart(run, s->target);
        break;
    case FAULT_PARTITION: {
        uint32_t healed = 0;
        for (uint32_t i = 0; i < run->links_count; i++) {
            if (crosses(run, &run->links[i], s->machines_a, s->machines_b)) {
                link_heal(run, i);
                healed++;
            }
        }
        SIM_ASSERT(healed == f->links_cut);
        break;
    }
    case FAULT_LINK_CUT:   link_heal(run, s->target); break;
    case FAULT_LINK_DELAY: link_delay_step(run, f, false); break;
    case FAULT_LINK_LOSS:  link_loss_step(run, f, false, outer); break;
    case FAULT_LINK_DUP:   link_typed_close(run, fault_id); break;
    case FAULT_DEV_SLOW:
        if (run->devs[s->target].slowed_until_ns > f->settled_ns) f->settled_ns = run->devs[s->target].slowed_until_ns;
        SIM_ASSERT(run->devs[s->target].slow_extra >= s->factor - 1);
        run->devs[s->target].slow_extra -= s->factor - 1;
        break;
    case FAULT_DEV_FAIL:
        govern_end(run, &run->devs[s->target].fail, &run->devs[s->target].fail_fault, fault_id, outer);
        break;
    case FAULT_DEV_AMBIGUOUS:
        govern_end(run, &run->devs[s->target].ambiguous, &run->devs[s->target].ambiguous_fault, fault_id, outer);
        break;
    case FAULT_MACHINE_PAUSE:
    case FAULT_ACTOR_PAUSE: pause_step(run, f, false); break;   /* what waited pops right after: sim/run.c */
    default: SIM_ASSERT(!"windowless fault has no end");
    }
    if (run->fault_fn != NULL) run->fault_fn(run->fault_ctx, run, fault_id, false);
}
