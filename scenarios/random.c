/* scenarios/random.c: random fault profiles and the settings `vary`
 * draws, per seed, from streams of their own. */
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

/* The first kinds, crash machine to lose rpc (of every message): each
 * fault draws a task and a channel whether it uses them or not, as it
 * always did, so seeds keep their profiles. */
static void draw_first_kinds(scn *s, rng *r, const job *j, const draw_span *w) {
    for (uint32_t kind = SCN_CRASH_MACHINE; kind <= SCN_LOSE_RPC; kind++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, (scn_fault_kind)kind);
            const job_task *t = &j->tasks[rng_below(r, j->tasks_count)];
            const job_chan *c = &j->chans[rng_below(r, j->chans_count)];
            switch (f.kind) {
            case SCN_CRASH_MACHINE: f.machine = rng_below(r, s->cfg.machines); break;
            case SCN_CRASH_TASK: f.vertex = t->vertex; f.subtask = t->subtask; f.duration_ns = 0; break;
            case SCN_PARTITION: {
                uint32_t m = s->cfg.machines + 1;       /* the coordinator's machine too */
                uint32_t a = rng_below(r, m), b = rng_below(r, m - 1);
                if (b >= a) b++;
                f.machines_a = 1ull << a;
                f.machines_b = 1ull << b;
                break;
            }
            case SCN_DELAY_LINK:
            case SCN_CUT_LINK:
                f.vertex = j->tasks[c->producer].vertex;
                f.subtask = j->tasks[c->producer].subtask;
                f.vertex2 = j->tasks[c->consumer].vertex;
                f.subtask2 = j->tasks[c->consumer].subtask;
                f.delay_ns = SIM_NS_PER_MS * (1 + rng_below(r, 20));
                if (f.kind == SCN_CUT_LINK) f.delay_ns = 0;   /* drawn to keep the stream, meaningless: as a cut reads back */
                break;
            case SCN_LOSE_RPC:
                f.vertex = t->vertex;
                f.subtask = t->subtask;
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                break;
            default: SIM_ASSERT(!"drawn below");
            }
            s->faults[s->faults_count++] = f;
        }
    }
}

/* The kinds added second, crash coordinator to slow task. The store is
 * only used by the durable backend: its faults are drawn either way (the
 * draws stay the same for both backends) but kept only there. */
static void draw_second_kinds(scn *s, rng *r, const job *j, const draw_span *w) {
    uint32_t slow = 0;
    for (uint32_t i = 0; i < s->faults_count; i++) slow += s->faults[i].kind == SCN_SLOW_TASK;
    bool durable = s->cfg.state.backend == PIPE_BACKEND_DURABLE;
    for (uint32_t kind = SCN_CRASH_COORDINATOR; kind <= SCN_SLOW_TASK; kind++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, (scn_fault_kind)kind);
            bool keep = true;
            switch (f.kind) {
            case SCN_CRASH_COORDINATOR: break;          /* a new one takes over after the window */
            case SCN_SLOW_STORE:
                f.factor = 2 + rng_below(r, 19);
                keep = durable;
                break;
            case SCN_FAIL_STORE:
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                keep = durable;
                break;
            case SCN_SLOW_TASK:
                draw_task(r, j, &f);
                f.factor = 2 + rng_below(r, 19);
                keep = slow < PIPE_SLOW_MAX;
                slow += keep;
                break;
            default: SIM_ASSERT(!"drawn above");
            }
            if (keep) s->faults[s->faults_count++] = f;
        }
    }
}

/* The kinds added third, in this order: pauses (machine, coordinator,
 * task), lost RPCs of one kind, delayed RPCs (of every message from a
 * task, or of one kind), ambiguous store writes (kept with the durable
 * backend only, drawn either way). A machine pause is one time in four
 * longer than the heartbeat timeout, so the coordinator declares its
 * TaskManager lost and restarts the job. No pause lasts more than twice
 * the timeout: past one timeout a TaskManager is lost whatever the length,
 * and a long coordinator pause piles up what the tasks keep sending it
 * (their finished reports repeat every 50 RPC latencies) beyond the
 * message payloads a run holds (model/pipe.c sizes them for messages in
 * flight, not for seconds of them). The timeout is the file's (its RPC
 * latency, before `vary network` draws another), so that a seed's faults
 * stay the same with or without `vary`. */
static void draw_third_kinds(scn *s, rng *r, const job *j, const draw_span *w) {
    static const scn_fault_kind kinds[] = { SCN_PAUSE_MACHINE, SCN_PAUSE_COORDINATOR, SCN_PAUSE_TASK, SCN_LOSE_RPC,
                                            SCN_DELAY_RPC, SCN_AMBIGUOUS_STORE };
    uint32_t rpc_kinds = 0;
    while (pipe_rpc_kind_names[rpc_kinds] != NULL) rpc_kinds++;
    sim_time_ns interval, timeout;
    pipe_heartbeat(&s->cfg, &interval, &timeout);
    bool durable = s->cfg.state.backend == PIPE_BACKEND_DURABLE;
    for (uint32_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, kinds[k]);
            bool pause = f.kind == SCN_PAUSE_MACHINE || f.kind == SCN_PAUSE_COORDINATOR || f.kind == SCN_PAUSE_TASK;
            if (pause && f.duration_ns > 2 * timeout) f.duration_ns = 2 * timeout;
            switch (f.kind) {
            case SCN_PAUSE_MACHINE:
                f.machine = rng_below(r, s->cfg.machines);
                if (rng_below(r, 4) == 0) {              /* beyond the timeout, within twice it */
                    f.duration_ns = timeout + 1 + (sim_time_ns)(((unsigned __int128)rng_u32(r) * (timeout - 1)) >> 32);
                }
                break;
            case SCN_PAUSE_COORDINATOR: break;
            case SCN_PAUSE_TASK: draw_task(r, j, &f); break;
            case SCN_LOSE_RPC:
                draw_task(r, j, &f);
                f.rpc = 1 + rng_below(r, rpc_kinds);
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                break;
            case SCN_DELAY_RPC:
                draw_task(r, j, &f);
                f.rpc = rng_below(r, rpc_kinds + 1);    /* 0: every message from the task */
                f.delay_ns = SIM_NS_PER_MS * (1 + rng_below(r, 20));
                break;
            case SCN_AMBIGUOUS_STORE:
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                f.ha = rng_below(r, 2) == 0;        /* the checkpoint storage, or the HA store */
                break;
            default: SIM_ASSERT(!"not drawn here");
            }
            if (f.kind != SCN_AMBIGUOUS_STORE || durable) s->faults[s->faults_count++] = f;
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
    draw_first_kinds(s, &r, j, &w);
    draw_second_kinds(s, &r, j, &w);
    draw_third_kinds(s, &r, j, &w);
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
static void draw_checkpoint(rng *r, pipe_ckpt_cfg *k) {
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
        k->alignment_timeout_ns = draw_in(r, 1, 5) * SIM_NS_PER_MS;
    }
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
    if (s->vary & SCN_VARY_CHECKPOINT) draw_checkpoint(&r, &s->cfg.ckpt);
    if (s->vary & SCN_VARY_RESTART) draw_restart(&r, &s->cfg.restart);
    if (s->vary & SCN_VARY_NETWORK) s->cfg.rpc_latency_ns = scn_vary_rpc_ns[rng_below(&r, SCN_VARY_RPC_CHOICES)];
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
