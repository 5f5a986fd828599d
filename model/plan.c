/* model/plan.c: what one run of a configuration holds, part by part,
 * planned before anything is allocated (model/plan.h); pipe_create
 * builds from the same plan (model/pipe_int.h). */
#include "pipe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const pipe_mem_part_names[PIPE_MEM_PARTS] = {
    [PIPE_MEM_KEYED] = "keyed state", [PIPE_MEM_STORE] = "checkpoint files",
    [PIPE_MEM_CHANNELS] = "channels", [PIPE_MEM_CHANNEL_STATE] = "channel state of checkpoints",
    [PIPE_MEM_TXLOG] = "two-phase-commit transaction logs", [PIPE_MEM_RECORDS] = "per-record tables",
    [PIPE_MEM_KERNEL] = "event kernel", [PIPE_MEM_CHECKERS] = "invariant checkers",
};

static uint64_t keyed_task_bytes(uint64_t keys, uint32_t snaps) {
    return kstate_bytes(keys, snaps) + 64;
}

/* A two-phase-commit sink task holds at most every copy of every record
 * that reaches its vertex in one attempt: copies(v) sums over v's inputs,
 * times the parallelism of v for a broadcast edge. */
static void count_copies(plan *pl) {
    const job *g = pl->graph;
    for (uint32_t v = 0; v < g->vertices_count; v++) {   /* edges go from earlier to later vertices */
        uint64_t n = g->vertices[v].kind == JOB_SOURCE;
        for (uint32_t e = 0; e < g->edges_count; e++) {
            const job_edge *x = &g->edges[e];
            if (x->to != v) continue;
            n += pl->copies[x->from] * (x->part == JOB_BROADCAST ? g->vertices[v].parallelism : 1);
            if (n > 1024) n = 1024;               /* beyond: the memory check refuses it */
        }
        pl->copies[v] = n;
    }
}

bool plan_keyed_kind(job_kind k) { return k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN || k == JOB_WINDOW; }

/* The keys task t's map may take: for each input of its vertex, those the
 * hash partitioner routes to its subtask when the input is a hash edge,
 * else every key; a join's map holds key * 2 + input. */
kstate_owner plan_task_owner(const job *g, uint32_t t) {
    const job_task *x = &g->tasks[t];
    bool window = g->vertices[x->vertex].kind == JOB_WINDOW;
    kstate_owner o = { .parallelism = g->vertices[x->vertex].parallelism, .subtask = x->subtask,
                       .max_parallelism = job_max_parallelism(&g->vertices[x->vertex]),
                       .tag_bits = window ? WIN_TAG_BITS : g->vertices[x->vertex].kind == JOB_KEYED_JOIN,
                       .key_bits = window ? WIN_KEY_BITS : 0 };
    if (window) {                                 /* every entry is keyed by the record's key: one hash input */
        o.hashed = (1u << WIN_TAG_BITS) - 1;
        return o;
    }
    for (uint32_t e = 0; e < g->edges_count; e++) {
        if (g->edges[e].to == x->vertex && g->edges[e].part == JOB_HASH) o.hashed |= 1u << g->edges[e].input;
    }
    return o;
}

/* Per keyed task, the keys its map must hold (task_owner's), exactly:
 * the partitioner is fixed at set-up, so the keys of each subtask are
 * counted, once per keyed vertex and parallelism it takes, over the
 * broker's key range. */
static void plan_keys(plan *pl, const pipe_cfg *cfg) {
    const job *g = pl->graph;
    uint64_t keys = broker_cfg_keys(&cfg->broker);   /* every topic's keys start at 0 */
    for (uint32_t v = 0; v < g->vertices_count; v++) {
        const job_vertex *x = &g->vertices[v];
        if (!plan_keyed_kind(x->kind)) continue;
        kstate_owner o = plan_task_owner(g, g->vertex_first_task[v]);
        uint32_t routed[JOB_PARALLELISM_MAX] = { 0 };
        if (o.hashed != 0) cfg_routed(cfg, v, o.max_parallelism, keys, routed);
        for (uint32_t s = 0; s < x->parallelism; s++) {
            uint64_t n = 0;
            if (x->kind == JOB_WINDOW) n = cfg_window_entries(cfg, x, routed[s]);
            else for (uint32_t in = 0; in < (1u << o.tag_bits); in++) n += (o.hashed >> in & 1) ? routed[s] : keys;
            uint32_t t = g->vertex_first_task[v] + s;
            pl->task_keys[t] = n > 0 ? (uint32_t)n : 1;   /* a subtask no key goes to still has a map */
            pl->keys_sum += pl->task_keys[t];
        }
    }
}

/* Entries of a two-phase-commit sink's transaction log: a record's copies
 * that reach it, and with windows two firings of every window-key. */
uint64_t plan_txlog_cap(const plan *pl, uint32_t vertex) {
    return pl->records * pl->copies[vertex] + 2 * pl->results + 1;
}

/* Channel state one channel end can hold in a snapshot: its ring. */
static uint64_t cs_cap_of_chan(const plan *pl) { return (uint64_t)pl->ring * CHAN_BUF_RECORDS; }

/* A rescaled source's tasks keep room for the positions of the most
 * partitions they read at any parallelism (the rest of the records part
 * counts the written parallelism's). */
static uint64_t rescaled_sources_bytes(const plan *pl, const pipe_cfg *cfg) {
    uint64_t bytes = 0;
    for (uint32_t v = 0; v < pl->graph->vertices_count && cfg->rescales_count > 0; v++) {
        if (pl->graph->vertices[v].kind != JOB_SOURCE) continue;
        uint32_t parts = broker_cfg_topic(&cfg->broker, pl->graph->vertices[v].topic).partitions;
        uint32_t lo = pipe_parallelism_min(cfg, v);
        bytes += (uint64_t)pl->graph->vertices[v].parallelism * ((parts + lo - 1) / lo) * 8 * (PIPE_CONCURRENT_MAX + 1) + 64;
    }
    return bytes * pl->hosts;
}

/* Source instances: each keeps its own read position per partition. */
static uint64_t source_insts(const plan *pl) {
    uint64_t n = 0;
    for (uint32_t t = 0; t < pl->graph->tasks_count; t++) {
        n += pl->graph->vertices[pl->graph->tasks[t].vertex].kind == JOB_SOURCE;
    }
    return n * pl->hosts;
}

/* The counts the parts are sized by: tasks, channels and their instances
 * on every host, a channel's ring, checkpoint slots, records, the keys of
 * each keyed task and the window results. */
static void plan_counts(plan *pl, const pipe_cfg *cfg) {
    const job *g = pl->graph;
    pl->tasks = g->tasks_count;
    pl->chans = g->chans_count;
    pl->hosts = cfg->task_slots > 0 ? cfg->machines : 1;
    pl->insts = pl->tasks * pl->hosts;
    pl->conns = pl->chans * pl->hosts * pl->hosts;
    pl->ring = cfg->credits + cfg->out_queue + 3;
    pl->slots = cfg->ckpt.retained + cfg->ckpt.max_concurrent + 1;
    pl->records = broker_cfg_records(&cfg->broker);
    for (uint32_t t = 0; t < pl->tasks; t++) pl->stateful += plan_keyed_kind(g->vertices[g->tasks[t].vertex].kind);
    for (uint32_t t = 0; t < pl->tasks; t++) pl->committers += g->vertices[g->tasks[t].vertex].kind == JOB_COMMITTER;
    plan_keys(pl, cfg);
    for (uint32_t v = 0; v < g->vertices_count; v++) {
        if (g->vertices[v].kind == JOB_WINDOW)
            pl->results += broker_cfg_keys(&cfg->broker) * win_count(&g->vertices[v], broker_cfg_event_end(&cfg->broker));
    }
}

/* The bounds of what tasks and the backend hold at once (snapshots per
 * task, the store's files, entries and holds), from the counts: the store
 * is carved to them before the run (model/flow/store.h). */
static void plan_store(plan *pl, const pipe_cfg *cfg) {
    /* Snapshots a task may hold at once: the concurrent checkpoints, one
     * whose abort notice is still on its way, and one more; a trigger
     * beyond that declines (model/tm/snap.c). */
    pl->snaps = cfg->ckpt.max_concurrent + 2 < KSTATE_SNAPS_MAX ? cfg->ckpt.max_concurrent + 2 : KSTATE_SNAPS_MAX;
    /* The backend's files: every live checkpoint (retained, pending, one
     * finishing) holds a chain per stateful task; entries are bounded by
     * (slots + 2) full copies of every key, twice over for increments. */
    pl->files_max = pl->stateful * (pl->slots + PIPE_CONCURRENT_MAX + 3) * (cfg->state.full_every + 1) + 16;
    pl->entries_max = pl->keys_sum * (pl->slots + 2) * 2 + 1024;
    /* Channel state: a file per task and live checkpoint, of at most every
     * one of its channels' rings (each channel counted at both ends). */
    pl->unaligned = cfg->ckpt.mode == PIPE_UNALIGNED || cfg->ckpt.alignment_timeout_ns > 0;
    uint64_t cs_all = pl->unaligned ? (uint64_t)pl->chans * 2 * cs_cap_of_chan(pl) : 0;
    /* Directory holds: every snapshot a task keeps (at most one per
     * checkpoint entry) holds its chain and its channel state until the
     * checkpoint ends, and every task its final state. */
    pl->holds_max = pl->tasks * ((PIPE_CONCURRENT_MAX + 1 + pl->slots) * (cfg->state.full_every + 2) + 1) + 64;
    /* The changelog: per stateful task its segments and a materialization
     * besides the chains' files; what they hold is bounded by the keys. */
    if (cfg->state.changelog) {
        pl->files_max += pl->stateful * (CLOG_SEGS_MAX + 2) * (pl->slots + 2);
        pl->entries_max += pl->keys_sum * (CLOG_SEGS_MAX + 2);
    }
    /* A committer's collector: one full file per live checkpoint, all its entries at most. */
    for (uint32_t t = 0; t < pl->tasks; t++) {
        if (pl->graph->vertices[pl->graph->tasks[t].vertex].kind != JOB_COMMITTER) continue;
        pl->files_max += pl->slots + PIPE_CONCURRENT_MAX + 3;
        pl->entries_max += (uint64_t)sinkv2_cap(pl->graph, pl->graph->tasks[t].vertex) * (pl->slots + PIPE_CONCURRENT_MAX + 3);
    }
    if (pl->unaligned) {
        pl->files_max += pl->tasks * (pl->slots + PIPE_CONCURRENT_MAX + 3);
        pl->entries_max += cs_all * (pl->slots + 2);
    }
    if (pl->unaligned && cfg->rescales_count > 0) {   /* a rescale's restore maps channel state into a file of its own */
        pl->files_max += pl->tasks;
        pl->entries_max += cs_all;
    }
    /* A resume leaves what the job before it held to the user (pinned:
     * the retained checkpoints kept on cancellation, a savepoint): at
     * most the whole store of that job each time. */
    pl->files_max *= cfg->stops_count + 1;
    pl->entries_max *= cfg->stops_count + 1;
    if (pl->hosts > 1) {                          /* a zombie instance writes snapshots beside the new attempt's */
        pl->files_max *= pl->hosts;
        pl->entries_max *= pl->hosts;
        pl->holds_max *= pl->hosts;
    }
}

/* The counts and the model's parts of the memory. */
static void plan_model(plan *pl, const pipe_cfg *cfg) {
    const job *g = pl->graph;
    plan_counts(pl, cfg);
    plan_store(pl, cfg);
    uint32_t parts = broker_cfg_partitions(&cfg->broker);
    uint64_t zipf = 0;                            /* the keys of the topics that hold records */
    for (uint32_t t = 0; t < broker_cfg_topics(&cfg->broker); t++) {
        broker_topic_cfg tc = broker_cfg_topic(&cfg->broker, t);
        zipf += tc.partitions > 0 ? tc.keys : 0;
    }
    count_copies(pl);
    uint64_t *b = pl->mem.bytes;
    for (uint32_t t = 0; t < pl->tasks; t++) {
        uint32_t snaps = cfg->state.changelog && pl->snaps < KSTATE_SNAPS_MAX ? pl->snaps + 1 : pl->snaps;   /* pipe.c */
        if (pl->task_keys[t] > 0)
            b[PIPE_MEM_KEYED] += pl->hosts * (keyed_task_bytes(pl->task_keys[t], snaps) + (cfg->state.changelog ? sizeof(rt_clog) + 64 : 0));
    }
    b[PIPE_MEM_STORE] = store_arena_bytes(pl->files_max, pl->entries_max, pl->holds_max);
    /* A channel: its ring (the buffers both ends share), and its place in
     * the expanded graph (copied into the run). */
    b[PIPE_MEM_CHANNELS] = (uint64_t)pl->conns * (sizeof(rt_chan) + sizeof(chan_fill) + pl->ring * sizeof(chan_buf))
                         + job_expand_bytes(g);
    b[PIPE_MEM_CHANNEL_STATE] = (uint64_t)pl->slots * pl->tasks * 8;   /* the records are checkpoint files */
    for (uint32_t t = 0; t < pl->tasks; t++) {
        const job_vertex *v = &g->vertices[g->tasks[t].vertex];
        if (v->kind == JOB_COMMITTER)             /* its collector and a copy per snapshot, per instance */
            b[PIPE_MEM_TXLOG] += (uint64_t)pl->hosts * (sinkv2_cap(g, g->tasks[t].vertex) * (PIPE_CONCURRENT_MAX + 2) *
                                                        sizeof(rt_cmt) + 64);
        if (v->kind != JOB_SINK || (v->sink != JOB_SINK_2PC && v->sink != JOB_SINK_V2)) continue;
        b[PIPE_MEM_TXLOG] += sizeof(rt_txlog) + plan_txlog_cap(pl, g->tasks[t].vertex) * (pl->results > 0 ? 12 : 4) + 32;
    }
    b[PIPE_MEM_RECORDS] = sizeof(pipeline) + (uint64_t)pl->insts * (sizeof(rt_task) + 64) + pl->records
                        + pl->results * (WIN_FIRINGS_MAX + 17)       /* window results in the external system: seen, top, value, most */
                        + (uint64_t)pl->insts * 8 * PIPE_SOURCE_PARTS_MAX   /* sources' split maxima */
                        + (pl->hosts > 1 ? (uint64_t)pl->insts * (2 * JOB_TASK_CHANNELS_MAX + 48) : 0)   /* hosts, slots */
                        + ((uint64_t)pl->chans * 3 * pl->hosts + pl->insts * 3) * sizeof(void *) + pl->insts * 48   /* wiring */
                        + (uint64_t)(pl->slots + cfg->ckpt.retained + 2)   /* slots, and the checkpoint store */
                              * (sizeof(rt_slot) + pl->tasks * (9 + sizeof(rt_chain)) + parts * 8 + 64)
                        + (uint64_t)parts * (20 + 8 * (PIPE_CONCURRENT_MAX + 1))   /* the broker's record bases */
                        + source_insts(pl) * ((uint64_t)parts * 8 + 8)   /* each source instance's read positions */
                        + (uint64_t)parts * 24            /* where each partition's reader is, for the reports */
                        + zipf * 16                       /* the Zipf tables and their guides */
                        + rescaled_sources_bytes(pl, cfg)
                        + PIPE_HISTORY_MAX * sizeof(pipe_ckpt_rec) + (1u << 20)
                        + (cfg->pct_depth > 0 ? (uint64_t)(pl->insts + 2) * 8 : 0);   /* PCT's priorities, by actor */
}

/* The kernel's sizes, from the plan's counts. */
static void plan_kernel(plan *pl, const pipe_cfg *cfg) {
    sim_cfg *sc = &pl->sc;
    *sc = sim_cfg_default(cfg->seed);
    sc->actors_max = pl->insts + 1;
    sc->machines_max = cfg->machines + 1;
    sc->links_max = pl->conns * 2 + pl->insts * 3;
    sc->timers_max = pl->insts * (8 + 2 * pl->snaps) + cfg->ckpt.max_concurrent * 4 + 64
                   + (cfg->state.changelog ? pl->insts : 0);   /* a materialization's */
    sc->devs_max = 3;
    sc->faults_max = cfg->faults_count + PIPE_FAULTS_MAX;   /* room for faults added at run time */
    sc->events_pending_max = pl->conns * (pl->ring + 4) + pl->insts * 16 + 4096
                           + SIM_PAUSED_RPC_MAX + SIM_RPC_HELD_MAX;   /* RPCs that pauses and delays hold, up to bounds */
    sc->events_max = cfg->events_max;
    sc->time_max_ns = cfg->time_max_ns;
    sc->order_ties = cfg->ties_count > 0 || cfg->ties_counted || cfg->pct_depth > 0;   /* simultaneous events meet the choice point */
    sc->near_ns = sc->order_ties ? cfg->pct_near_ns : 0;     /* and near-simultaneous ones, with PCT's near */
    /* Payloads in flight: RPC messages carry them (a task's ACKs and
     * FINISHED, repeated every 50 RPC latencies; the coordinator's
     * triggers and deployments). Twice the concurrency limit and some
     * more a task covers runs whose RPC latency is short against the
     * checkpoint interval and timeout. What delays and pauses hold
     * besides has bounds of its own, SIM_RPC_HELD_MAX and
     * SIM_PAUSED_RPC_MAX (sim/link.h, sim/run.h). A channel carries one
     * only as a priority barrier (unaligned checkpoints, or aligned ones
     * that may switch), four a channel; a slot is as big as the largest
     * payload (a deployment), so aligned-only jobs reserve none per
     * channel. Known limits, where a valid input can still use up the
     * slots (or the event queue): an RPC latency far above the interval
     * and the timeout (every checkpoint times out, and its triggers,
     * ACKs and aborts each travel a latency), and priority barriers
     * waiting for a task paused under frequent unaligned checkpoints.
     * The arena is one calloc: slots never used cost no memory
     * (sim/arena.h). */
    sc->payloads_max = pl->insts * (2 * PIPE_CONCURRENT_MAX + 8) + (pl->unaligned ? pl->conns * 4 : 0) + 64
                       + SIM_RPC_HELD_MAX + SIM_PAUSED_RPC_MAX;
    sc->payload_bytes = PROTO_PAYLOAD_BYTES_MAX;
    uint64_t model = 0;
    for (uint32_t i = 0; i < PIPE_MEM_KERNEL; i++) model += pl->mem.bytes[i];
    sc->model_bytes = (size_t)model;
    pl->mem.bytes[PIPE_MEM_KERNEL] = sim_run_bytes(sc) - model;
}

/* The kernel's own limits (sim/base.h) the plan's counts must fit: a job
 * past one is refused with what to lower, never asserted at creation.
 * Within the job's limits only the pending events can exceed theirs:
 * every channel may hold a ring's worth of buffers and credits. */
static bool kernel_fits(const plan *pl, const pipe_cfg *cfg, char *err, size_t n) {
    const sim_cfg *sc = &pl->sc;
    uint64_t pending = (uint64_t)pl->conns * (pl->ring + 4) + pl->insts * 16ull + 4096   /* as plan_kernel sizes it */
                     + SIM_PAUSED_RPC_MAX + SIM_RPC_HELD_MAX;
    if (pending > SIM_EVENTS_PENDING_MAX) {
        snprintf(err, n, "%u channels with `channels credits %u queue %u` may hold %llu events at once, more than the "
                 "kernel's %u: lower `channels ... credits` or `queue`, or the parallelism of vertices joined by "
                 "edges other than forward", pl->conns, cfg->credits, cfg->out_queue, (unsigned long long)pending,
                 SIM_EVENTS_PENDING_MAX);
        return false;
    }
    if (pl->hosts > 1 && ((uint64_t)pl->conns * 2 + pl->insts * 3ull > SIM_LINKS_MAX || pl->insts + 1 > SIM_ACTORS_MAX)) {
        snprintf(err, n, "with `machines %u slots %u` every machine can run every task: %u channels need %llu links, "
                 "more than the kernel's %u: lower `machines` or the parallelism", cfg->machines, cfg->task_slots,
                 pl->chans, (unsigned long long)pl->conns * 2 + pl->insts * 3ull, SIM_LINKS_MAX);
        return false;
    }
    SIM_ASSERT(sc->actors_max <= SIM_ACTORS_MAX && sc->links_max <= SIM_LINKS_MAX);   /* JOB_*_MAX keep them */
    SIM_ASSERT(sc->timers_max <= SIM_TIMERS_MAX && sc->faults_max <= SIM_FAULTS_MAX);
    SIM_ASSERT(sc->machines_max <= SIM_MACHINES_MAX);
    return true;
}

void pipe_mem_sum(pipe_mem *m) {
    m->total_bytes = 0;
    for (uint32_t i = 0; i < PIPE_MEM_PARTS; i++) m->total_bytes += m->bytes[i];
}

/* pl->graph_mem created (plan_free frees it) unless the result is false. */
bool plan_run(plan *pl, const pipe_cfg *cfg, char *err, size_t err_bytes) {
    memset(pl, 0, sizeof *pl);
    if (cfg_check(cfg, err, err_bytes) != NULL) return false;
    pl->graph = &pl->graph_job;
    *pl->graph = cfg->graph;
    uint32_t start[JOB_VERTICES_MAX];
    cfg_widen(cfg, pl->graph, start);
    if (job_check(pl->graph, NULL, err, err_bytes) != NULL) return false;   /* the largest parallelisms' limits */
    if (!arena_create(&pl->graph_mem, job_expand_bytes(pl->graph))) {
        snprintf(err, err_bytes, "out of memory");
        return false;
    }
    job_expand(pl->graph, cfg->machines, &pl->graph_mem);
    for (uint32_t t = 0; t < pl->graph->tasks_count && cfg->task_slots > 0; t++) {
        const job_task *x = &pl->graph->tasks[t];
        if (x->in_count + x->out_count <= PIPE_SLOTTED_PEERS_MAX) continue;
        snprintf(err, err_bytes, "with `slots` a task's deployment names where its %u channels' other ends run, more "
                 "than %u: lower the parallelism of vertices joined by hash, rebalance or broadcast edges",
                 x->in_count + x->out_count, PIPE_SLOTTED_PEERS_MAX);
        return false;
    }
    plan_model(pl, cfg);
    plan_kernel(pl, cfg);
    pl->mem.tasks = pl->tasks;
    pl->mem.chans = pl->chans;
    pipe_mem_sum(&pl->mem);
    return kernel_fits(pl, cfg, err, err_bytes);
}

void plan_free(plan *pl) {
    if (pl->graph_mem.base != NULL) arena_destroy(&pl->graph_mem);
    free(pl);
}

bool pipe_memory(const pipe_cfg *cfg, pipe_mem *m, char *err, size_t err_bytes) {
    plan *pl = malloc(sizeof *pl);
    if (pl == NULL) {
        snprintf(err, err_bytes, "out of memory");
        return false;
    }
    bool ok = plan_run(pl, cfg, err, err_bytes);
    if (ok) *m = pl->mem;
    plan_free(pl);
    return ok;
}

/* What to lower for each part: the statement whose figures it grows with. */
static const char *const lower_what[PIPE_MEM_PARTS] = {
    [PIPE_MEM_KEYED] = ("`broker ... keys`, or the parallelism of keyed vertices whose input is not a hash edge "
                        "(each of their tasks holds every key)"),
    [PIPE_MEM_STORE] = ("`broker ... keys`, `checkpoint ... retained` or `state ... full-every` (or the parallelism "
                        "of keyed vertices whose input is not a hash edge)"),
    [PIPE_MEM_CHANNELS] = ("the parallelism of vertices joined by hash, rebalance or broadcast edges, "
                           "or `channels ... credits`"),
    [PIPE_MEM_CHANNEL_STATE] = "`channels ... credits`, `checkpoint ... retained`, or the channels' count (parallelism)",
    [PIPE_MEM_TXLOG] = "`broker ... records` or the broadcast edges before the two-phase-commit sink",
    [PIPE_MEM_RECORDS] = "`broker ... records` or `broker ... keys`",
    [PIPE_MEM_KERNEL] = "the parallelism (tasks and channels)",
    [PIPE_MEM_CHECKERS] = "`broker ... keys`",
};

static void mib_text(char *buf, size_t n, uint64_t bytes) {
    if (bytes >= (1ull << 30)) snprintf(buf, n, "%.1f GiB", (double)bytes / (double)(1ull << 30));
    else snprintf(buf, n, "%.1f MiB", (double)bytes / (double)(1ull << 20));
}

void pipe_mem_refusal(const pipe_mem *m, uint64_t limit_bytes, char *err, size_t err_bytes) {
    char total[32], limit[32];
    mib_text(total, sizeof total, m->total_bytes);
    mib_text(limit, sizeof limit, limit_bytes);
    int used = snprintf(err, err_bytes, "the run needs %s of memory, more than the limit of %s:", total, limit);
    uint32_t top = 0;
    for (uint32_t i = 0; i < PIPE_MEM_PARTS; i++) {
        if (m->bytes[i] > m->bytes[top]) top = i;
        if (m->bytes[i] < (1ull << 20) || used < 0 || (size_t)used >= err_bytes) continue;
        char part[32];
        mib_text(part, sizeof part, m->bytes[i]);
        used += snprintf(err + used, err_bytes - (size_t)used, " %s %s,", pipe_mem_part_names[i], part);
    }
    if (used > 0 && (size_t)used < err_bytes) {
        snprintf(err + used - 1, err_bytes - (size_t)used + 1, "; the largest part, %s, shrinks with %s",
                 pipe_mem_part_names[top], lower_what[top]);
    }
}
