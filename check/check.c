/* check/check.c: the set of checkers of one run: their table, set-up,
 * attachment as observers, the end-of-run pass and the report. */
#include "check_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every checker, in the order it observes. */
static const check_ops *const checkers[] = {
    &check_safety_ops, &check_cut_ops, &check_live_ops, &check_state_ops, &check_output_ops, &check_restart_ops,
};
#define CHECKERS_COUNT (sizeof checkers / sizeof checkers[0])
_Static_assert(CHECKERS_COUNT <= PIPE_OBSERVERS_MAX - 2, "room for the fault script and a report");

struct check_set {
    arena        mem;
    check_ctx    ctx;
    check_report report;
    void        *self[CHECKERS_COUNT];
    bool         finished;
};

static const char *const inv_names[CHECK_INV_COUNT] = { "", "I1", "I2", "I3", "I4", "I5", "I6" };
static const char *const titles[CHECK_INV_COUNT] = {
    "", "exactly-once state", "consistent cut", "exactly-once output", "at-least-once output",
    "protocol safety", "liveness",
};

const char *check_inv_name(check_inv inv) {
    SIM_ASSERT(inv >= CHECK_I1 && inv < CHECK_INV_COUNT);
    return inv_names[inv];
}

const char *check_inv_title(check_inv inv) {
    SIM_ASSERT(inv >= CHECK_I1 && inv < CHECK_INV_COUNT);
    return titles[inv];
}

void check_fail(const check_ctx *c, check_inv inv, check_where w, const char *fmt, ...) {
    check_report *r = c->report;
    SIM_ASSERT(inv >= CHECK_I1 && inv < CHECK_INV_COUNT);
    r->violations[inv]++;
    check_violation *v = NULL;
    if (r->kept_count < CHECK_KEPT_MAX) {
        v = &r->kept[r->kept_count++];
    } else if (r->violations[inv] == 1) {
        /* The first of every invariant is kept: it takes the place of the
         * latest kept one of an invariant that has another kept. */
        for (uint32_t i = CHECK_KEPT_MAX; i-- > 0 && v == NULL;) {
            uint32_t same = 0;
            for (uint32_t k = 0; k < CHECK_KEPT_MAX; k++) same += r->kept[k].inv == r->kept[i].inv;
            if (same > 1) v = &r->kept[i];
        }
    }
    if (v == NULL) return;
    *v = (check_violation){ .inv = inv, .at_ns = w.at_ns, .seed = r->seed, .task = w.task, .vertex = w.vertex,
                            .ckpt = w.ckpt, .key = w.key, .record = w.record };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->what, sizeof v->what, fmt, ap);
    va_end(ap);
}

const char *check_task_name(const check_ctx *c, uint32_t task, char *buf, size_t n) {
    SIM_ASSERT(task < c->j->tasks_count);
    snprintf(buf, n, "%s[%u]", c->j->vertices[c->j->tasks[task].vertex].name, c->j->tasks[task].subtask);
    return buf;
}

/* The most any one vertex's map holds (the scratch maps hold one at a time). */
static uint32_t most_keys(const pipe_cfg *cfg) {
    uint32_t most = 0;
    for (uint32_t v = 0; v < cfg->graph.vertices_count; v++) {
        if (pipe_vertex_map_keys(cfg, v) > most) most = pipe_vertex_map_keys(cfg, v);
    }
    return most;
}

void check_par_init(const check_ctx *c, uint32_t *par) {
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {   /* even a rescale at 0 is the first deployment's to say */
        par[v] = c->cfg->start_parallelism[v] != 0 ? c->cfg->start_parallelism[v] : c->j->vertices[v].parallelism;
    }
}

void check_par_step(uint32_t *par, const pipe_event *e) {
    if (e->kind == PIPE_EV_RESCALED && e->vertex < JOB_VERTICES_MAX) par[e->vertex] = e->count;
}

/* Flink: group = murmurHash(Long.hashCode(key)) % maxParallelism, then
 * group * parallelism / maxParallelism (job.h says the same for the
 * tasks; this is the checkers' reading of it). */
uint32_t check_key_owner(const check_ctx *c, uint32_t v, uint64_t key, uint32_t p) {
    const job_vertex *x = &c->j->vertices[v];
    uint32_t tag = x->kind == JOB_KEYED_JOIN ? (uint32_t)(key & 1) : 0;
    uint64_t k = x->kind == JOB_KEYED_JOIN ? key >> 1 : x->kind == JOB_WINDOW ? win_key_key(key) : key;
    if (!(c->hashed[v] >> tag & 1)) return CHECK_NONE;
    uint32_t groups = c->groups[v];
    uint32_t group = job_murmur_hash((uint32_t)(k ^ k >> 32)) % groups;
    return (uint32_t)((uint64_t)group * p / groups);
}

void check_maps(const check_ctx *c, kstate *maps) {
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {
        if (spec_keyed(&c->sp, v)) kstate_init_in(&maps[v], c->mem, pipe_vertex_map_keys(c->cfg, v));
    }
}

const kstate *check_prefix_to(const check_ctx *c, const uint64_t *offsets) {
    check_prefix *x = c->prefix;
    const broker *b = pipe_broker(c->p);
    uint32_t parts = b->partitions;
    bool back = false;
    for (uint32_t i = 0; i < parts && offsets != NULL; i++) back |= offsets[i] < x->offsets[i];
    if (back) {                                   /* a restart from the beginning: start over */
        for (uint32_t v = 0; v < c->j->vertices_count; v++) {
            if (spec_keyed(&c->sp, v)) kstate_clear(&x->expected[v]);
        }
        memset(x->offsets, 0, sizeof(uint64_t) * parts);
        for (uint32_t i = 0; i < parts; i++) x->before_max[i] = WIN_WM_MIN;
    }
    for (uint32_t i = 0; i < parts; i++) {        /* every partition of every topic */
        const broker_topic *t = &b->topic[broker_topic_of(b, i)];
        uint64_t to = offsets != NULL ? offsets[i] : t->cfg.records_per_partition;
        model_rec r;
        for (uint64_t o = x->offsets[i]; o < to && broker_topic_read(t, i, o, &r); o++) {
            if (!c->sp.windows) {                 /* no window: no late records to follow */
                spec_fold_input(&c->sp, x->expected, &r);
                continue;
            }
            spec_fold_input_after(&c->sp, x->expected, &r, x->before_max[i]);
            if ((win_wm)r.event_time_ns > x->before_max[i]) x->before_max[i] = (win_wm)r.event_time_ns;
        }
        if (to > x->offsets[i]) x->offsets[i] = to;
    }
    return x->expected;
}

uint64_t check_records(const kstate *s) {
    uint64_t n = 0, key;
    uint32_t slot = 0;
    kagg agg;
    while (kstate_next(s, &slot, &key, &agg)) n += agg.count;
    return n;
}

/* The bound counts from the moment the faults settled (T: every window
 * closed and everything it slowed finished, fault_settled(), and, since
 * live.c takes them in, a doomed checkpoint's expiry and a failure's
 * restart delay; the terms below still allow for both), so no term
 * stands for a fault's own duration or after-effect: a store slowed 20x
 * keeps its FIFO busy with the writes issued inside the window (a dead
 * attempt's too: the device's work is not withdrawn) for tens of ms after
 * the window, and that time is the fault's, not the protocol's. From T,
 * the phases a checkpoint may have to go through, one after the other:
 *   restart   a failure the faults caused may be declared only at T (a
 *             task crashed for a window restarts at its end, a doomed
 *             checkpoint exceeds the tolerable failures); the strategy
 *             waits its longest delay (exponential: the maximum);
 *   timeout   a checkpoint in flight at T whose barrier, acknowledgement or
 *             write the faults lost holds its slot until its timeout;
 *   pause     then the minimum pause before the next trigger;
 *   timeout   the next checkpoint runs under the catch-up load (records
 *             queued behind the credits, writes of aborted checkpoints
 *             still in the store's FIFO, an incremental chain's full
 *             snapshot); a checkpoint slower than the timeout is aborted,
 *             so one that completes takes at most the timeout;
 *   intervals triggers come on the interval's ticks: the first one an
 *             interval after a restart, the next tick after an abort, and
 *             with two concurrent checkpoints the second doomed one expires
 *             an interval after the first (3); and two more for a
 *             checkpoint's own run at normal speed before its timer even
 *             matters (barriers through the graph, alignment, the
 *             asynchronous writes and the metadata write: at most 14.8 ms
 *             at a 5 ms interval in the swarm scenarios);
 *   10 ms     the coordinator's recovery read, store latencies and message
 *             latencies along the way.
 * Measured from T over 10,000 random-fault runs (scenarios/swarm, seeds
 * 1..2500), the longest gap was 34 of 95 ms (durable incremental with
 * timeouts) and 214 of 465 ms (unaligned join): the bound is not tight,
 * and still catches FLINK-24068 and newer-barrier-no-abort (absim bugs). */
sim_time_ns check_liveness_default(const pipe_cfg *cfg) {
    const pipe_restart_cfg *r = &cfg->restart;
    sim_time_ns restart = r->kind == PIPE_RESTART_EXPONENTIAL ? r->max_ns : r->kind == PIPE_RESTART_NONE ? 0 : r->delay_ns;
    /* A redeployment: the slots offered again (a retry after the fault
     * healed, then the RPC), the deployment and its confirmation, and each
     * task's read of the state it restores from the backend's device (at
     * most full-every + 1 files of every key, plus every channel ring of
     * channel state, at the device's bandwidth, after its latency). */
    const dev_cfg *dev = cfg->state.backend == PIPE_BACKEND_DURABLE ? &cfg->state.store : &cfg->state.memory;
    uint64_t bytes = broker_cfg_keys(&cfg->broker) * 2 * 32 * (cfg->state.full_every + 1);
    if (cfg->ckpt.mode == PIPE_UNALIGNED || cfg->ckpt.alignment_timeout_ns > 0) {
        uint32_t ends = 0;                        /* the most channel ends one task has */
        for (uint32_t t = 0; t < cfg->graph.tasks_count; t++) {
            uint32_t n = cfg->graph.tasks[t].in_count + cfg->graph.tasks[t].out_count;
            if (n > ends) ends = n;
        }
        bytes += (uint64_t)ends * (cfg->credits + cfg->out_queue + 3) * 32 * 32;
    }
    sim_time_ns read = dev->latency_ns + (dev->bandwidth_bytes_per_s > 0 ? bytes * SIM_NS_PER_S / dev->bandwidth_bytes_per_s : 0);
    /* ... and one lost split assignment (or its lost answer), noticed at
     * its timeout, which fails the new attempt once more. */
    sim_time_ns deploy = (PIPE_SLOT_RETRY_RPCS + 4) * cfg->rpc_latency_ns + read;
    deploy += PIPE_ASSIGN_TIMEOUT_RPCS * cfg->rpc_latency_ns + restart + deploy;
    return 5 * cfg->ckpt.interval_ns + cfg->ckpt.min_pause_ns + 2 * cfg->ckpt.timeout_ns + restart + deploy + 10 * SIM_NS_PER_MS;
}

/* Memory the checkers carve: per keyed vertex two maps (the shared prefix
 * fold, the cut's actual), two more (state's actual, the cut's scratch),
 * and per-task tables of the safety and liveness checkers. */
uint64_t check_memory_bytes(const pipe_cfg *cfg, uint32_t tasks, uint32_t chans) {
    uint64_t maps = 2 * (kstate_bytes(most_keys(cfg), 0) + 64);   /* state's actual, the cut's scratch */
    for (uint32_t v = 0; v < cfg->graph.vertices_count; v++) {    /* the shared prefix fold, the cut's actual */
        job_kind k = cfg->graph.vertices[v].kind;
        if (k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN || k == JOB_WINDOW) maps += 2 * (kstate_bytes(pipe_vertex_map_keys(cfg, v), 0) + 64);
    }
    for (uint32_t v = 0; v < cfg->graph.vertices_count; v++) {   /* the output's window maps and sums */
        if (cfg->graph.vertices[v].kind == JOB_WINDOW) maps += kstate_bytes(most_keys(cfg), 0) + broker_cfg_keys(&cfg->broker) * 9 + 128;
    }
    uint64_t per_task = 2048;                     /* safety's task record, liveness's counters and
                                                     checkpoint ring, the restart check's regions, rounded up */
    uint64_t ring = 2 * 8 * (JOB_TASKS_MAX / 8);  /* liveness's ring: acknowledged and triggered sets of 8 checkpoints */
    return maps + (uint64_t)tasks * per_task + (uint64_t)chans * 24
         + broker_cfg_partitions(&cfg->broker) * 16ull + ring + (1u << 16);
}

check_set *check_create(pipeline *p, const check_cfg *cfg, char *err, size_t err_bytes) {
    check_set *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(err, err_bytes, "out of memory for the checkers");
        return NULL;
    }
    const pipe_cfg *pc = pipe_config(p);
    c->ctx.p = p;
    c->ctx.cfg = pc;
    c->ctx.j = pipe_job(p);
    c->ctx.keys = most_keys(pc);
    size_t bytes = (size_t)check_memory_bytes(pc, c->ctx.j->tasks_count, c->ctx.j->chans_count);
    if (!arena_create(&c->mem, bytes)) {
        snprintf(err, err_bytes, "out of memory for the checkers (%zu MiB)", bytes >> 20);
        free(c);
        return NULL;
    }
    c->ctx.mem = &c->mem;
    c->ctx.report = &c->report;
    spec_init(&c->ctx.sp, c->ctx.j, pipe_broker(p));
    for (uint32_t e = 0; e < c->ctx.j->edges_count; e++) {   /* what check_key_owner asks of every key */
        const job_edge *d = &c->ctx.j->edges[e];
        if (d->part == JOB_HASH && d->input < 32) c->ctx.hashed[d->to] |= 1u << d->input;
    }
    for (uint32_t v = 0; v < c->ctx.j->vertices_count; v++) c->ctx.groups[v] = job_max_parallelism(&c->ctx.j->vertices[v]);
    c->ctx.prefix = ARENA_NEW(&c->mem, check_prefix, 1);
    c->ctx.prefix->offsets = ARENA_NEW(&c->mem, uint64_t, broker_cfg_partitions(&pc->broker));
    c->ctx.prefix->before_max = ARENA_NEW(&c->mem, win_wm, broker_cfg_partitions(&pc->broker) + 1);
    for (uint32_t i = 0; i < broker_cfg_partitions(&pc->broker); i++) c->ctx.prefix->before_max[i] = WIN_WM_MIN;
    check_maps(&c->ctx, c->ctx.prefix->expected);
    c->report.seed = pc->seed;
    c->report.liveness_ns = cfg->liveness_ns > 0 ? cfg->liveness_ns : check_liveness_default(pc);
    for (size_t i = 0; i < CHECKERS_COUNT; i++) c->self[i] = checkers[i]->create(&c->ctx);
    arena_freeze(&c->mem);
    return c;
}

void check_attach(check_set *c) {
    for (size_t i = 0; i < CHECKERS_COUNT; i++) {
        if (checkers[i]->on_event != NULL) pipe_observe(c->ctx.p, checkers[i]->on_event, c->self[i]);
    }
}

void check_feed(check_set *c, const pipe_event *e) {
    for (size_t i = 0; i < CHECKERS_COUNT; i++) {
        if (checkers[i]->on_event != NULL) checkers[i]->on_event(c->self[i], e);
    }
}

const check_report *check_progress(const check_set *c) { return &c->report; }

const check_report *check_finish(check_set *c) {
    if (c->finished) return &c->report;
    c->finished = true;
    check_end end = { .status = pipe_get_status(c->ctx.p), .end_ns = pipe_sim(c->ctx.p)->now_ns };
    for (size_t i = 0; i < CHECKERS_COUNT; i++) checkers[i]->on_end(c->self[i], &end);
    return &c->report;
}

void check_destroy(check_set *c) {
    if (c == NULL) return;
    arena_destroy(&c->mem);
    free(c);
}

const check_violation *check_first(const check_report *r) {
    return r->kept_count > 0 ? &r->kept[0] : NULL;
}

uint64_t check_total(const check_report *r) {
    uint64_t n = 0;
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT; i++) n += r->violations[i];
    return n;
}
