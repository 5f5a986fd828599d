/* scenarios/random.c: random fault profiles and the settings `vary`
 * draws, per seed, from streams of their own. */
#include "fkind.h"
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The coordinator's RPC latencies `vary network` draws from. */
const sim_time_ns scn_vary_rpc_ns[SCN_VARY_RPC_CHOICES] = { 50 * SIM_NS_PER_US, 200 * SIM_NS_PER_US, SIM_NS_PER_MS,
                                                           3 * SIM_NS_PER_MS };

/* Where a profile's faults fall: from lo, over span, windows of 1 ms up
 * to 1 ms + dur_max. */
typedef struct draw_span {
    sim_time_ns lo, span, dur_max;
} draw_span;

/* A fault of `kind`, optional, with its time and window drawn (in that
 * order: every profile draws them so). */
static scn_fault draw_window(rng *r, const draw_span *w, scn_fault_kind kind) {
    scn_fault f = { .kind = kind, .optional = true, .line = 0 };
    f.at_ns = w->lo + (sim_time_ns)(((unsigned __int128)rng_u32(r) * w->span) >> 32);
    f.duration_ns = SIM_NS_PER_MS + (sim_time_ns)(((unsigned __int128)rng_u32(r) * w->dur_max) >> 32);
    return f;
}

static void draw_task(rng *r, const job *j, scn_fault *f) {
    const job_task *t = &j->tasks[rng_below(r, j->tasks_count)];
    f->vertex = t->vertex;
    f->subtask = t->subtask;
}

static bool room(const scn *s) { return s->faults_count < SCN_FAULTS_MAX; }

static sim_ratio draw_ratio(rng *r) { return (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 }; }

static uint32_t rpc_kinds(void) {
    uint32_t n = 0;
    while (pipe_rpc_kind_names[n] != NULL) n++;
    return n;
}

/* ---- each kind's own draws (the rows of scenarios/fkind.c name them) ------- */

void fk_draw_nothing(const fk_draw *d, scn_fault *f) { (void)d, (void)f; }
void fk_draw_crash_machine(const fk_draw *d, scn_fault *f) { f->machine = rng_below(d->r, d->s->cfg.machines); }
void fk_draw_task(const fk_draw *d, scn_fault *f) { draw_task(d->r, d->j, f); }

void fk_draw_crash_task(const fk_draw *d, scn_fault *f) {
    f->vertex = d->t->vertex;
    f->subtask = d->t->subtask;
    f->duration_ns = 0;
}

void fk_draw_partition(const fk_draw *d, scn_fault *f) {
    uint32_t m = d->s->cfg.machines + 1;                /* the coordinator's machine too */
    uint32_t a = rng_below(d->r, m), b = rng_below(d->r, m - 1);
    if (b >= a) b++;
    f->machines_a = 1ull << a;
    f->machines_b = 1ull << b;
}

/* A delay or a cut of group 1's channel; a cut draws a delay too, to keep
 * the stream, and keeps none (as a cut reads back). */
void fk_draw_link(const fk_draw *d, scn_fault *f) {
    f->vertex = d->j->tasks[d->c->producer].vertex;
    f->subtask = d->j->tasks[d->c->producer].subtask;
    f->vertex2 = d->j->tasks[d->c->consumer].vertex;
    f->subtask2 = d->j->tasks[d->c->consumer].subtask;
    f->delay_ns = SIM_NS_PER_MS * (1 + rng_below(d->r, 20));
    if (fk_of(f->kind)->param != FK_BY_DELAY) f->delay_ns = 0;
}

/* Group 1 loses every message from group 1's task; group 3 one kind of
 * RPC of a task of its own. */
void fk_draw_lose_rpc(const fk_draw *d, scn_fault *f) {
    if (d->group == 1) {
        f->vertex = d->t->vertex;
        f->subtask = d->t->subtask;
    } else {
        draw_task(d->r, d->j, f);
        f->rpc = 1 + rng_below(d->r, rpc_kinds());
    }
    f->ratio = draw_ratio(d->r);
}

void fk_draw_factor(const fk_draw *d, scn_fault *f) { f->factor = 2 + rng_below(d->r, 19); }
void fk_draw_ratio(const fk_draw *d, scn_fault *f) { f->ratio = draw_ratio(d->r); }

void fk_draw_slow_task(const fk_draw *d, scn_fault *f) {
    draw_task(d->r, d->j, f);
    f->factor = 2 + rng_below(d->r, 19);
}

/* One time in four beyond the heartbeat timeout (within twice it), so
 * the coordinator declares the TaskManager lost and restarts the job. */
void fk_draw_pause_machine(const fk_draw *d, scn_fault *f) {
    f->machine = rng_below(d->r, d->s->cfg.machines);
    if (rng_below(d->r, 4) == 0) {
        sim_time_ns t = d->hb_timeout_ns;
        f->duration_ns = t + 1 + (sim_time_ns)(((unsigned __int128)rng_u32(d->r) * (t - 1)) >> 32);
    }
}

void fk_draw_delay_rpc(const fk_draw *d, scn_fault *f) {
    draw_task(d->r, d->j, f);
    f->rpc = rng_below(d->r, rpc_kinds() + 1);          /* 0: every message from the task */
    f->delay_ns = SIM_NS_PER_MS * (1 + rng_below(d->r, 20));
}

/* One kind of RPC of a task, or every message from it (0), a share of
 * them delivered twice. */
void fk_draw_duplicate_rpc(const fk_draw *d, scn_fault *f) {
    draw_task(d->r, d->j, f);
    f->rpc = rng_below(d->r, rpc_kinds() + 1);
    f->ratio = draw_ratio(d->r);
}

void fk_draw_ambiguous(const fk_draw *d, scn_fault *f) {
    f->ratio = draw_ratio(d->r);
    f->ha = rng_below(d->r, 2) == 0;                    /* the checkpoint storage, or the HA store */
}

/* ---- profiles ---------------------------------------------------------------- */

/* The row at place `at` of random group g (0-based), NULL past its last. */
static const fk_info *group_row(uint32_t g, uint32_t at) {
    for (uint32_t i = 0; fk_at(i) != NULL; i++) {
        if (fk_at(i)->draw_at[g] == at) return fk_at(i);
    }
    return NULL;
}

/* Random group g: each of its kinds on or off for this seed, then one or
 * two faults of each kind that is on, its time and window drawn, then its
 * own draws. Group 1's faults draw a task and a channel whether they use
 * them or not, as they always did, so seeds keep their profiles. A kind
 * of the store is drawn with either backend (the draws stay the same for
 * both) but kept only with the durable one; a kind with a limit past it
 * is drawn and not kept. No pause lasts more than twice the heartbeat
 * timeout: past one timeout a TaskManager is lost whatever the length,
 * and a long coordinator pause piles up what the tasks keep sending it
 * (their finished reports repeat every 50 RPC latencies) beyond the
 * message payloads a run holds (model/plan.c sizes them for messages in
 * flight, not for seconds of them). The timeout is the file's (its RPC
 * latency, before `vary network` draws another), so that a seed's faults
 * stay the same with or without `vary`. */
static void draw_group(scn *s, rng *r, const job *j, const draw_span *w, uint32_t g) {
    sim_time_ns interval;
    fk_draw d = { .group = g + 1, .s = s, .j = j, .r = r };
    pipe_heartbeat(&s->cfg, &interval, &d.hb_timeout_ns);
    bool durable = s->cfg.state.backend == PIPE_BACKEND_DURABLE;
    const fk_info *k;
    for (uint32_t at = 1; (k = group_row(g, at)) != NULL; at++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, k->kind);
            if (g == 0) {
                d.t = &j->tasks[rng_below(r, j->tasks_count)];
                d.c = &j->chans[rng_below(r, j->chans_count)];
            }
            if ((k->flags & FK_PAUSE) && f.duration_ns > 2 * d.hb_timeout_ns) f.duration_ns = 2 * d.hb_timeout_ns;
            k->draw(&d, &f);
            uint32_t same = 0;
            for (uint32_t x = 0; x < s->faults_count; x++) same += s->faults[x].kind == k->kind;
            bool keep = (durable || !(k->flags & FK_DURABLE)) && (k->max == 0 || same < k->max);
            if (keep) s->faults[s->faults_count++] = f;
        }
    }
}

uint32_t scn_random_faults(scn *s, uint64_t seed, sim_time_ns horizon_ns) {
    SIM_ASSERT(horizon_ns >= 10 * SIM_NS_PER_MS);
    rng r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0x5ca1ab1e));
    job graph, *j = &graph;
    arena mem;
    bool expanded = fin_expand_job(s, j, &mem);
    SIM_ASSERT(expanded);                         /* a job of a few MiB at most */
    uint32_t before = s->faults_count;
    draw_span w = { .lo = horizon_ns / 10, .span = horizon_ns * 7 / 10, .dur_max = horizon_ns / 8 };
    /* Each group of kinds draws after the ones before it, from the same
     * stream, so a seed keeps the faults of the older kinds it had. */
    for (uint32_t g = 0; g < FK_GROUPS; g++) draw_group(s, &r, j, &w, g);
    arena_destroy(&mem);
    scn_random_settings(s, seed);                 /* after: the faults are drawn against the file's settings */
    return s->faults_count - before;
}

/* Uniform on [lo, hi]. */
static uint64_t draw_in(rng *r, uint64_t lo, uint64_t hi) {
    SIM_ASSERT(lo <= hi && hi - lo < UINT32_MAX);
    return lo + rng_below(r, (uint32_t)(hi - lo + 1));
}

/* Checkpoint settings that let checkpoints complete when nothing fails
 * (a timeout of at least 40 ms and 3 intervals: a shorter one than the
 * checkpoints need with no tolerable failure restarts the job forever, a
 * configuration's livelock, not the protocol's) but also time out, pile
 * up, wait for the minimum pause and fail the job past `tolerable`.
 * Unaligned checkpoints (and aligned ones with an alignment timeout)
 * stay one at a time, as Flink requires. */
static void draw_checkpoint(rng *r, pipe_ckpt_cfg *k, bool stops) {
    static const uint32_t tolerable[] = { 0, 1, 3, 1000 };
    k->interval_ns = draw_in(r, 2, 20) * SIM_NS_PER_MS;
    sim_time_ns floor = 3 * k->interval_ns > 40 * SIM_NS_PER_MS ? 3 * k->interval_ns : 40 * SIM_NS_PER_MS;
    k->timeout_ns = floor + draw_in(r, 0, 160) * SIM_NS_PER_MS;
    k->min_pause_ns = rng_below(r, 2) ? draw_in(r, 0, k->interval_ns / SIM_NS_PER_US) * SIM_NS_PER_US : 0;
    k->max_concurrent = k->mode == PIPE_UNALIGNED ? 1 : (uint32_t)draw_in(r, 1, 3);
    k->tolerable_failures = tolerable[rng_below(r, 4)];
    k->alignment_timeout_ns = 0;                  /* it may turn a checkpoint unaligned: one at a time */
    if (k->mode == PIPE_ALIGNED && rng_below(r, 2)) {
        k->max_concurrent = 1;
        sim_time_ns t = draw_in(r, 1, 5) * SIM_NS_PER_MS;
        if (!stops) k->alignment_timeout_ns = t;   /* a stop's savepoint here is aligned only: drawn, not taken */
    }
}

/* Flink's own test randomisation (TestStreamEnvironment.randomizeConfiguration,
 * flink-test-utils, with -Dcheckpointing.randomization=true; its
 * PseudoRandomValueSelector takes each option's alternative with a
 * seeded java.util.Random): execution.checkpointing.unaligned true or
 * false, and execution.checkpointing.aligned-checkpoint-timeout 0 s, 100
 * ms or 2 s, drawn both, in that order. On with 0: every checkpoint
 * unaligned; on with a timeout: aligned until it passes, then unaligned
 * (absim's alignment timeout); off: aligned. Unaligned checkpoints go
 * one at a time (model/cfg.c). The reader keeps `vary unaligned` to
 * exactly-once files without rescales. */
static void draw_unaligned(rng *r, pipe_ckpt_cfg *k) {
    static const sim_time_ns timeouts[] = { 0, 100 * SIM_NS_PER_MS, 2 * SIM_NS_PER_S };
    bool on = rng_below(r, 2) == 0;
    sim_time_ns timeout = timeouts[rng_below(r, 3)];
    SIM_ASSERT(k->mode == PIPE_ALIGNED || k->mode == PIPE_UNALIGNED);
    k->mode = on && timeout == 0 ? PIPE_UNALIGNED : PIPE_ALIGNED;
    k->alignment_timeout_ns = on ? timeout : 0;
    if (on) k->max_concurrent = 1;
}

/* A restart strategy; strategies that give up do so after a few failures. */
static void draw_restart(rng *r, pipe_restart_cfg *x) {
    static const pipe_restart kinds[] = { PIPE_RESTART_NONE, PIPE_RESTART_FIXED_DELAY, PIPE_RESTART_FIXED_DELAY,
                                          PIPE_RESTART_FAILURE_RATE, PIPE_RESTART_FAILURE_RATE,
                                          PIPE_RESTART_EXPONENTIAL, PIPE_RESTART_EXPONENTIAL };
    *x = (pipe_restart_cfg){ .kind = kinds[rng_below(r, 7)], .failover = x->failover };   /* the file's failover stays */
    switch (x->kind) {
    case PIPE_RESTART_NONE: break;
    case PIPE_RESTART_FIXED_DELAY:
        x->attempts = (uint32_t)draw_in(r, 0, 4);
        x->delay_ns = draw_in(r, 1, 30) * SIM_NS_PER_MS;
        break;
    case PIPE_RESTART_FAILURE_RATE:
        x->max_failures = (uint32_t)draw_in(r, 1, 3);
        x->interval_ns = draw_in(r, 50, 300) * SIM_NS_PER_MS;
        x->delay_ns = draw_in(r, 1, 20) * SIM_NS_PER_MS;
        break;
    case PIPE_RESTART_EXPONENTIAL:
        x->initial_ns = draw_in(r, 1, 5) * SIM_NS_PER_MS;
        x->max_ns = draw_in(r, 20, 60) * SIM_NS_PER_MS;
        x->multiplier_milli = (uint32_t)draw_in(r, 1500, 3000);
        x->reset_ns = draw_in(r, 20, 100) * SIM_NS_PER_MS;
        x->jitter_milli = (uint32_t)draw_in(r, 0, 2) * 100;   /* 0, Flink's 0.1, or 0.2 */
        x->attempts_before_reset = rng_below(r, 2) ? (uint32_t)draw_in(r, 1, 6) : RS_UNLIMITED;
        break;
    }
}

void scn_random_settings(scn *s, uint64_t seed) {
    rng r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0x5e7711e5));
    bool stops = false;
    for (uint32_t i = 0; i < s->cfg.stops_count; i++) stops |= s->cfg.stops[i].how == PIPE_HALT_STOP;
    if (s->vary & SCN_VARY_CHECKPOINT) draw_checkpoint(&r, &s->cfg.ckpt, stops);
    if (s->vary & SCN_VARY_RESTART) draw_restart(&r, &s->cfg.restart);
    if (s->vary & SCN_VARY_NETWORK) s->cfg.rpc_latency_ns = scn_vary_rpc_ns[rng_below(&r, SCN_VARY_RPC_CHOICES)];
    if (s->vary & SCN_VARY_UNALIGNED) draw_unaligned(&r, &s->cfg.ckpt);   /* after the others: their draws stay */
    /* A checkpoint waits on RPCs (the trigger, each acknowledgement, with
     * slow ones the notices and redeployments around it): a drawn timeout
     * leaves room for ten of them beyond its floor, or at 3 ms each a
     * timeout of 41 ms with three concurrent checkpoints let none complete
     * (aligned-memory-vary seed 9101408: 4353 timeouts in 60 s, the job
     * never ended). No draw is added: every other setting stays. */
    if ((s->vary & SCN_VARY_CHECKPOINT) && (s->vary & SCN_VARY_NETWORK)) s->cfg.ckpt.timeout_ns += 10 * s->cfg.rpc_latency_ns;
    /* A strategy that never gives up, few tolerable failures and a timeout
     * shorter than the first checkpoint after a restart (it runs under the
     * catch-up load) fail the job over forever: a configuration's livelock,
     * in Flink as here, not the protocol's (seed 9101642 of the same file:
     * a 46 ms timeout, tolerable 0). Such a draw takes a timeout of 200 ms
     * or more. */
    const pipe_restart_cfg *x = &s->cfg.restart;
    bool endless = x->kind == PIPE_RESTART_EXPONENTIAL && x->attempts_before_reset == RS_UNLIMITED;
    if ((s->vary & SCN_VARY_CHECKPOINT) && endless && s->cfg.ckpt.tolerable_failures < 1000 &&
        s->cfg.ckpt.timeout_ns < 200 * SIM_NS_PER_MS) {
        s->cfg.ckpt.timeout_ns += 200 * SIM_NS_PER_MS;
    }
}

/* ---- fault text ------------------------------------------------------------ */
