/* sim/link.c: link timing, FIFO order, cuts and connection breaks.
 *
 * Invariant (FIFO): last_arrival_ns is the arrival time of the newest
 * message on the wire; a new message never arrives before it. Because the
 * event queue breaks equal times by push order, and a link pushes its
 * messages in send order, equal arrival times keep send order too. */
#include "run.h"

#include <string.h>

static sim_time_ns transfer_ns(uint64_t size_bytes, uint64_t bandwidth_bytes_per_s) {
    if (bandwidth_bytes_per_s == 0) return 0;
    unsigned __int128 ns = (unsigned __int128)size_bytes * SIM_NS_PER_S;
    ns = (ns + bandwidth_bytes_per_s - 1) / bandwidth_bytes_per_s;   /* round up */
    SIM_ASSERT(ns < (unsigned __int128)1 << 62);
    return (sim_time_ns)ns;
}

uint32_t link_add(sim_run *run, uint32_t src_actor, uint32_t dst_actor, const link_cfg *cfg) {
    SIM_ASSERT(!run->started);
    SIM_ASSERT(run->links_count < run->cfg.links_max);
    SIM_ASSERT(src_actor < run->actors_count && dst_actor < run->actors_count);
    SIM_ASSERT(cfg->kind == LINK_STREAM || cfg->kind == LINK_RPC);
    SIM_ASSERT(cfg->jitter_ns < UINT32_MAX - 1);
    uint32_t id = run->links_count++;
    sim_link *l = &run->links[id];
    l->cfg = *cfg;
    l->rng = rng_stream(run->seed, rng_stream_id(RNG_DOMAIN_LINK, id));
    l->id = id;
    l->src = src_actor;
    l->dst = dst_actor;
    l->loss_fault = UINT32_MAX;
    l->loss = SIM_RATIO_NEVER;
    return id;
}

void link_typed_open(sim_run *run, uint32_t fault_id) {
    const fault_spec *s = &run->faults[fault_id].spec;
    SIM_ASSERT(s->kind == FAULT_LINK_DUP || (s->msg_type != 0 && (s->kind == FAULT_LINK_LOSS || s->kind == FAULT_LINK_DELAY)));
    SIM_ASSERT(run->typed_count < run->cfg.faults_max);   /* one entry per open window */
    run->typed[run->typed_count++] = fault_id;
    sim_link *l = &run->links[s->target];
    l->typed++;
    l->faulted++;
}

void link_typed_close(sim_run *run, uint32_t fault_id) {
    uint32_t i = 0;
    while (i < run->typed_count && run->typed[i] != fault_id) i++;
    SIM_ASSERT(i < run->typed_count);                     /* it was opened */
    /* Shift, not swap: begin order decides ties between equal ratios. */
    memmove(&run->typed[i], &run->typed[i + 1], (run->typed_count - i - 1) * sizeof run->typed[0]);
    run->typed_count--;
    sim_link *l = &run->links[run->faults[fault_id].spec.target];
    SIM_ASSERT(l->typed > 0 && l->faulted > 0);
    l->typed--;
    l->faulted--;
}

/* The loss, delay and duplicate windows open on l that apply to m:
 * whether m is lost (one draw, from the governing window's stream: the
 * strongest of the untyped one and those of m's type; the untyped one
 * wins ties, then the earliest begun), into *extra_ns the delays of m's
 * type, and into *dup whether a kept m is delivered twice (one draw so
 * too, from the strongest duplicate window of m's type or of none).
 * Without typed or duplicate windows this is exactly the untyped draw. */
static bool faulted_send(sim_run *run, const sim_link *l, const sim_msg *m, sim_time_ns *extra_ns, bool *dup) {
    sim_ratio loss = l->loss, twice = SIM_RATIO_NEVER;
    uint32_t by = l->loss_fault, dup_by = UINT32_MAX;
    for (uint32_t i = 0; l->typed > 0 && i < run->typed_count; i++) {
        const sim_fault *f = &run->faults[run->typed[i]];
        if (f->spec.target != l->id) continue;
        if (f->spec.kind == FAULT_LINK_DUP) {
            if (f->spec.msg_type != 0 && f->spec.msg_type != m->type) continue;
            if (dup_by == UINT32_MAX || fault_ratio_stronger(f->spec.ratio, twice)) {
                twice = f->spec.ratio;
                dup_by = f->id;
            }
        } else if (f->spec.msg_type != m->type) {
            continue;
        } else if (f->spec.kind == FAULT_LINK_DELAY) {
            *extra_ns += f->spec.delay_ns;
        } else if (by == UINT32_MAX || fault_ratio_stronger(f->spec.ratio, loss)) {
            loss = f->spec.ratio;
            by = f->id;
        }
    }
    if (loss.num != 0) {
        SIM_ASSERT(by < run->faults_count);
        if (sim_chance(run, &run->faults[by].rng, SIM_CHOICE_DROP, loss)) return true;
    }
    *dup = dup_by != UINT32_MAX && twice.num != 0 && sim_chance(run, &run->faults[dup_by].rng, SIM_CHOICE_DUP, twice);
    return false;
}

/* One delivery of m on l at `arrive`, with its own copy of the data
 * (inlined: every message takes it, a copy of a duplicate a second time). */
static inline __attribute__((always_inline)) void deliver(sim_run *run, sim_link *l, const sim_msg *m, sim_time_ns arrive, bool held, const void *data, uint32_t data_bytes) {
    sim_event *ev = sim_schedule(run, arrive, l->dst, SIM_EV_MSG);
    ev->aux = l->id;
    ev->gen = l->gen;
    ev->msg = *m;
    ev->msg.src = l->src;
    if (held) {
        ev->flags |= SIM_EVF_HELD;
        run->rpc_held++;
        l->held++;
    }
    if (data != NULL) memcpy(sim_payload_take(run, ev, data_bytes), data, data_bytes);   /* the receiver's copy */
}

bool link_is_up(const sim_run *run, uint32_t link_id) {
    SIM_ASSERT(link_id < run->links_count);
    return run->links[link_id].cut_count == 0;
}

static bool send(sim_run *run, uint32_t link_id, const sim_msg *m, uint32_t size_bytes, const void *data, uint32_t data_bytes) {
    SIM_ASSERT(link_id < run->links_count);
    sim_link *l = &run->links[link_id];
    SIM_ASSERT(run->actors[l->src].up);
    l->sent++;
    if (l->cut_count > 0) {
        l->dropped_cut++;
        return false;
    }
    sim_time_ns typed_ns = 0;              /* delays of m's type */
    bool dup = false;
    if (l->faulted > 0 && faulted_send(run, l, m, &typed_ns, &dup)) {
        l->lost++;
        return false;
    }
    sim_time_ns now = run->now_ns;
    sim_time_ns start = l->busy_until_ns > now ? l->busy_until_ns : now;
    sim_time_ns busy_until = start + transfer_ns(size_bytes, l->cfg.bandwidth_bytes_per_s);
    sim_time_ns jitter = l->cfg.jitter_ns == 0
        ? 0 : sim_delay_uniform_ns(run, &l->rng, 0, l->cfg.jitter_ns);
    sim_time_ns arrive = busy_until + l->cfg.latency_ns + l->spike_ns + typed_ns + jitter;
    if (arrive < l->last_arrival_ns) arrive = l->last_arrival_ns;    /* FIFO */
    /* Held: later than the link without faults could make it. */
    bool held = l->cfg.kind == LINK_RPC && arrive > busy_until + l->cfg.latency_ns + l->cfg.jitter_ns;
    bool room = run->rpc_held < SIM_RPC_HELD_MAX && l->held < SIM_RPC_LINK_HELD_MAX;
    if (held && !room) {
        l->lost_held++;
        run->stats.lost_held++;
        return false;
    }
    l->busy_until_ns = busy_until;
    l->last_arrival_ns = arrive;
    l->bytes_sent += size_bytes;

    deliver(run, l, m, arrive, held, data, data_bytes);
    room = !held || (run->rpc_held < SIM_RPC_HELD_MAX && l->held < SIM_RPC_LINK_HELD_MAX);
    if (dup && (data == NULL || sim_payload_free(run) > 0) && room) {   /* right behind it: pushed after, same time */
        deliver(run, l, m, arrive, held, data, data_bytes);
        l->duplicated++;
    } else if (dup) {
        l->dup_skipped++;
    }
    SIM_ASSERT(arrive >= now);
    return true;
}

bool link_send(sim_run *run, uint32_t link_id, const sim_msg *m, uint32_t size_bytes) {
    return send(run, link_id, m, size_bytes, NULL, 0);
}

bool link_send_payload(sim_run *run, uint32_t link_id, const sim_msg *m, uint32_t size_bytes, const void *data,
                       uint32_t data_bytes) {
    SIM_ASSERT(data != NULL && data_bytes > 0);
    return send(run, link_id, m, size_bytes, data, data_bytes);
}

void link_break(sim_run *run, sim_link *l, uint32_t crashed) {
    l->gen++;                              /* everything in flight is now stale */
    l->breaks++;
    l->busy_until_ns = run->now_ns;
    l->last_arrival_ns = run->now_ns;
    if (l->cfg.kind != LINK_STREAM) return;
    sim_time_ns at = run->now_ns + l->cfg.latency_ns;
    uint32_t ends[2] = { l->src, l->dst };
    for (uint32_t i = 0; i < 2; i++) {
        const sim_actor *a = &run->actors[ends[i]];
        if (ends[i] == crashed || (!a->up && !a->starting)) continue;   /* starting: it hears it after its START */
        if (i == 1 && ends[1] == ends[0]) break;
        sim_event *ev = sim_schedule(run, at, ends[i], SIM_EV_LINK_DOWN);
        ev->aux = l->id;
        ev->gen = l->gen;
    }
}

void link_close(sim_run *run, uint32_t link_id) {
    SIM_ASSERT(link_id < run->links_count);
    SIM_ASSERT(run->links[link_id].cfg.kind == LINK_STREAM);
    link_break(run, &run->links[link_id], UINT32_MAX);
}

void link_cut(sim_run *run, uint32_t link_id) {
    SIM_ASSERT(link_id < run->links_count);
    sim_link *l = &run->links[link_id];
    if (l->cut_count++ == 0) link_break(run, l, UINT32_MAX);
    SIM_ASSERT(l->cut_count > 0);
}

void link_heal(sim_run *run, uint32_t link_id) {
    SIM_ASSERT(link_id < run->links_count);
    sim_link *l = &run->links[link_id];
    SIM_ASSERT(l->cut_count > 0);
    l->cut_count--;
}
