/* model/pipe.c: building a job run: validation, sizing of the one arena,
 * machines, actors, links, checkpoint slots and scripted faults. */
#include "pipe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GATE_CHANNELS_MAX >= JOB_TASK_CHANNELS_MAX, "a task's inputs are its gate's channels");

void pipe_heartbeat(const pipe_cfg *c, sim_time_ns *interval_ns, sim_time_ns *timeout_ns) {
    /* Flink's defaults are 10 s and 50 s; a run lasts virtual milliseconds,
     * so the interval scales with the RPC latency (50 of them: 10 ms at
     * the default 200 us) and the timeout keeps Flink's ratio of five. */
    *interval_ns = c->heartbeat_interval_ns != 0 ? c->heartbeat_interval_ns : 50 * c->rpc_latency_ns;
    *timeout_ns = c->heartbeat_timeout_ns != 0 ? c->heartbeat_timeout_ns : 5 * *interval_ns;
}

pipe_cfg pipe_cfg_default(uint64_t seed) {
    pipe_cfg c;
    pipe_cfg_init(&c, seed);
    return c;
}

void pipe_cfg_init(pipe_cfg *c, uint64_t seed) {
    memset(c, 0, sizeof *c);
    c->seed = seed;
    job_init(&c->graph);
    c->broker = (broker_cfg){ .partitions = 4, .records_per_partition = 10000, .keys = 1000,
                             .dist = BROKER_UNIFORM, .zipf_s_milli = 1000, .value_max = 100,
                             .event_gap_ns = SIM_NS_PER_MS };
    c->source_rate_per_s = 0;
    c->ckpt = (pipe_ckpt_cfg){ .enabled = true, .mode = PIPE_ALIGNED, .interval_ns = 100 * SIM_NS_PER_MS,
                              .min_pause_ns = 0, .timeout_ns = 10 * SIM_NS_PER_S, .max_concurrent = 1,
                              .tolerable_failures = 0, .retained = 1 };
    c->state = (pipe_state_cfg){ .backend = PIPE_BACKEND_MEMORY, .async = true, .incremental = false,
                                .full_every = 5, .sync_ns = 10 * SIM_NS_PER_US,
                                .store = { .latency_ns = 5 * SIM_NS_PER_MS, .bandwidth_bytes_per_s = 200000000ull },
                                .memory = { .latency_ns = 200 * SIM_NS_PER_US, .bandwidth_bytes_per_s = 1250000000ull } };
    c->restart = (pipe_restart_cfg){ .kind = PIPE_RESTART_FIXED_DELAY, .failover = PIPE_FAILOVER_REGION, .attempts = 10,
                                    .delay_ns = 100 * SIM_NS_PER_MS, .max_failures = 3,
                                    .interval_ns = 60 * SIM_NS_PER_S, .initial_ns = 100 * SIM_NS_PER_MS,
                                    .max_ns = 10 * SIM_NS_PER_S, .multiplier_milli = 2000,
                                    .reset_ns = 60 * SIM_NS_PER_S, .jitter_milli = 0,
                                    .attempts_before_reset = RS_UNLIMITED };
    c->machines = 2;
    c->latency_ns = 50 * SIM_NS_PER_US;
    c->jitter_ns = 10 * SIM_NS_PER_US;
    c->bandwidth_bytes_per_s = 1250000000ull;    /* 10 Gbit/s */
    c->rpc_latency_ns = 200 * SIM_NS_PER_US;
    c->heartbeat_interval_ns = 0;                 /* derived at build: see pipe_heartbeat */
    c->heartbeat_timeout_ns = 0;
    c->credits = 4;
    c->out_queue = 2;
    c->buffer_timeout_ns = SIM_NS_PER_MS;
    c->time_max_ns = 3600 * SIM_NS_PER_S;
    c->events_max = 2000000000ull;
}

rs_cfg pipe_restart_rules(const pipe_restart_cfg *r) {
    rs_cfg c = { .attempts = r->kind == PIPE_RESTART_EXPONENTIAL ? r->attempts_before_reset : r->attempts, .delay = (int64_t)r->delay_ns, .max_failures = r->max_failures,
                 .interval = (int64_t)r->interval_ns, .initial = (int64_t)r->initial_ns, .max = (int64_t)r->max_ns,
                 .reset = (int64_t)r->reset_ns, .multiplier_milli = r->multiplier_milli,
                 .jitter_milli = r->jitter_milli };
    switch (r->kind) {
    case PIPE_RESTART_NONE:         c.kind = RS_NONE; break;
    case PIPE_RESTART_FIXED_DELAY:  c.kind = RS_FIXED_DELAY; break;
    case PIPE_RESTART_FAILURE_RATE: c.kind = RS_FAILURE_RATE; break;
    case PIPE_RESTART_EXPONENTIAL:  c.kind = RS_EXPONENTIAL; break;
    }
    return c;
}

const char *pipe_ckpt_end_name(pipe_ckpt_end e) {
    switch (e) {
    case PIPE_CKPT_PENDING:    return "pending";
    case PIPE_CKPT_COMPLETED:  return "completed";
    case PIPE_CKPT_DECLINED:   return "declined";
    case PIPE_CKPT_TIMED_OUT:  return "timed-out";
    case PIPE_CKPT_SUBSUMED:   return "subsumed";
    case PIPE_CKPT_JOB_FAILED: return "job-failed";
    case PIPE_CKPT_TASK_FINISHED: return "task-finished";
    }
    return "?";
}

const pipe_ckpt_rec *pipe_history(const pipeline *p, uint32_t *count) {
    *count = p->jm.history_count;
    return p->jm.history;
}

const char *pipe_status_name(pipe_status s) {
    switch (s) {
    case PIPE_RUNNING:    return "running";
    case PIPE_RESTARTING: return "restarting";
    case PIPE_FINISHED:   return "finished";
    case PIPE_FAILED:     return "failed";
    }
    return "?";
}

/* Every topic's settings, and their sums. */
static const char *check_topics(const pipe_cfg *c, char *err, size_t n) {
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    const broker_cfg *b = &c->broker;
    if (b->topics_more >= BROKER_TOPICS_MAX) BAD("more than %u topics", BROKER_TOPICS_MAX);
    for (uint32_t t = 0; t < broker_cfg_topics(b); t++) {
        broker_topic_cfg x = broker_cfg_topic(b, t);
        if (x.partitions > BROKER_PARTITIONS_MAX || (t > 0 && x.partitions < 1)) BAD("partitions out of range");
        if (x.keys < 1 || x.keys > BROKER_KEYS_MAX) BAD("keys out of range [1, %u]", BROKER_KEYS_MAX);
        if (x.records_per_partition > BROKER_OFFSET_MAX) BAD("records out of range");
        if (t > 0 && (x.name[0] == '\0' || broker_cfg_find(b, x.name, strlen(x.name)) != (int)t)) BAD("topic %u: no name or one taken", t);
    }
    if (broker_cfg_partitions(b) < 1 || broker_cfg_partitions(b) > BROKER_PARTITIONS_MAX) BAD("partitions out of range");
    if (broker_cfg_records(b) > (1u << 30)) BAD("at most 2^30 records in all (the sinks count each one)");
#undef BAD
    return NULL;
}

/* Each topic that holds partitions is read by exactly one source, each
 * source's topic exists, and each source task reads at least one of its
 * topic's partitions and at most what an acknowledgement carries. */
static const char *check_sources(const pipe_cfg *c, char *err, size_t n) {
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    uint32_t reader[BROKER_TOPICS_MAX];
    for (uint32_t t = 0; t < BROKER_TOPICS_MAX; t++) reader[t] = UINT32_MAX;
    for (uint32_t v = 0; v < c->graph.vertices_count; v++) {
        const job_vertex *x = &c->graph.vertices[v];
        if (x->kind != JOB_SOURCE) continue;
        if (x->topic >= broker_cfg_topics(&c->broker)) BAD("%s: no topic %u in the broker", x->name, x->topic);
        broker_topic_cfg tc = broker_cfg_topic(&c->broker, x->topic);
        if (reader[x->topic] != UINT32_MAX)
            BAD("%s: topic %s is read by source %s already", x->name, x->topic == 0 ? "(default)" : tc.name,
                c->graph.vertices[reader[x->topic]].name);
        reader[x->topic] = v;
        uint32_t hi = pipe_parallelism_max(c, v), lo = pipe_parallelism_min(c, v);   /* a rescale's too */
        if (hi > tc.partitions)
            BAD("%s: parallelism %u above the %u partitions (a source task would read nothing)",
                x->name, hi, tc.partitions);
        if ((tc.partitions + lo - 1) / lo > PROTO_OFFSETS_MAX)
            BAD("%s: a source task would read more than %u partitions (its acknowledgement carries their offsets): "
                "raise its parallelism or lower the partitions", x->name, PROTO_OFFSETS_MAX);
    }
    for (uint32_t t = 0; t < broker_cfg_topics(&c->broker); t++) {
        broker_topic_cfg tc = broker_cfg_topic(&c->broker, t);
        if (tc.partitions > 0 && reader[t] == UINT32_MAX)
            BAD("topic %s is read by no source (its records would never be read)", t == 0 ? "(default)" : tc.name);
    }
#undef BAD
    return NULL;
}

static void plan_routed(const pipe_cfg *cfg, uint32_t v, uint32_t max_parallelism, uint64_t keys, uint32_t *routed);
static uint64_t window_entries(const pipe_cfg *cfg, const job_vertex *x, uint64_t routed);

/* The most map entries a subtask of window vertex v may need, over the
 * parallelisms the schedule gives it: what plan_keys sizes its map for,
 * so a job this passes never finds its map short (keys do not divide
 * evenly: the subtask with the most decides). */
static uint64_t window_entries_max(const pipe_cfg *c, uint32_t v) {
    const job_vertex *x = &c->graph.vertices[v];    /* every entry is keyed by the record's key (task_owner) */
    uint32_t routed[JOB_PARALLELISM_MAX] = { 0 };
    uint64_t most = 0;
    plan_routed(c, v, job_max_parallelism(x), broker_cfg_keys(&c->broker), routed);
    for (uint32_t s = 0; s < JOB_PARALLELISM_MAX; s++) {
        uint64_t n = window_entries(c, x, routed[s]);
        if (n > most) most = n;
    }
    return most;
}

uint32_t pipe_vertex_map_keys(const pipe_cfg *c, uint32_t v) {
    const job_vertex *x = &c->graph.vertices[v];
    uint64_t keys = broker_cfg_keys(&c->broker);
    if (x->kind == JOB_WINDOW) return (uint32_t)pipe_window_vertex_entries(c, v);   /* bounded by the reader */
    return (uint32_t)(keys * (x->kind == JOB_KEYED_JOIN ? 2 : 1));
}

uint64_t pipe_window_vertex_entries(const pipe_cfg *c, uint32_t v) {
    const job_vertex *x = &c->graph.vertices[v];
    SIM_ASSERT(x->kind == JOB_WINDOW);
    uint64_t keys = broker_cfg_keys(&c->broker);
    uint64_t every = keys * (3 * win_count(x, broker_cfg_event_end(&c->broker)) + 1);
    uint64_t touched = 3 * broker_cfg_records(&c->broker) * win_per_record(x) + keys;
    return touched < every ? touched : every;
}

const char *pipe_window_problem(const pipe_cfg *c, uint32_t *vertex, char *err, size_t n) {
#define BAD(...) return *vertex = v, snprintf(err, n, __VA_ARGS__), err
    sim_time_ns end = broker_cfg_event_end(&c->broker);
    uint64_t keys = broker_cfg_keys(&c->broker), slots = 0;
    for (uint32_t v = 0; v < c->graph.vertices_count; v++) {
        const job_vertex *x = &c->graph.vertices[v];
        if (x->kind != JOB_WINDOW) continue;
        uint64_t windows = win_count(x, end);
        if (windows >= WIN_INDEX_MAX)
            BAD("window %s: the input's event times span %llu windows, more than 2^28 (a longer slide)", x->name,
                (unsigned long long)windows);
        if (window_entries_max(c, v) > KSTATE_CAPACITY_MAX / 2)
            BAD("window %s: %llu keys in %llu windows need more state than a task's map holds (2^23 entries): "
                "fewer keys, a longer slide or more parallelism", x->name, (unsigned long long)keys,
                (unsigned long long)windows);
        if (pipe_window_vertex_entries(c, v) > KSTATE_CAPACITY_MAX / 2)
            BAD("window %s: its whole state (%llu keys in %llu windows, %llu records) needs more than a map holds "
                "(2^23 entries; the checkers fold it in one): fewer keys or records, or a longer slide", x->name,
                (unsigned long long)keys, (unsigned long long)windows,
                (unsigned long long)broker_cfg_records(&c->broker));
        slots += keys * windows;
        if (slots * WIN_FIRINGS_MAX + broker_cfg_records(&c->broker) > (1ull << 31))
            BAD("the windows' results (keys x windows x %u firings each) and the records are more than 2^31 entries of "
                "the sinks' external system: fewer keys, a longer slide or a shorter input", WIN_FIRINGS_MAX);
    }
#undef BAD
    return NULL;
}

/* ---- the rescale schedule ------------------------------------------------ */

static uint32_t written_parallelism(const pipe_cfg *cfg, uint32_t v) {
    return cfg->start_parallelism[v] != 0 ? cfg->start_parallelism[v] : cfg->graph.vertices[v].parallelism;
}

uint32_t pipe_parallelism_at(const pipe_cfg *cfg, uint32_t vertex, sim_time_ns t) {
    uint32_t p = written_parallelism(cfg, vertex);
    for (uint32_t i = 0; i < cfg->rescales_count && cfg->rescales[i].at_ns <= t; i++) {   /* in time order */
        if (cfg->rescales[i].vertex == vertex) p = cfg->rescales[i].parallelism;
    }
    return p;
}

uint32_t pipe_parallelism_max(const pipe_cfg *cfg, uint32_t vertex) {
    uint32_t p = written_parallelism(cfg, vertex);
    for (uint32_t i = 0; i < cfg->rescales_count; i++) {
        if (cfg->rescales[i].vertex == vertex && cfg->rescales[i].parallelism > p) p = cfg->rescales[i].parallelism;
    }
    return p;
}

uint32_t pipe_parallelism_min(const pipe_cfg *cfg, uint32_t vertex) {
    uint32_t p = written_parallelism(cfg, vertex);
    for (uint32_t i = 0; i < cfg->rescales_count; i++) {
        if (cfg->rescales[i].vertex == vertex && cfg->rescales[i].parallelism < p) p = cfg->rescales[i].parallelism;
    }
    return p;
}

/* The graph a run expands: each vertex at the largest parallelism of the
 * schedule, its key groups fixed from its parallelism as written (Flink
 * keeps a job's max-parallelism across rescales), and in *start what was
 * written. */
static void widen(const pipe_cfg *cfg, job *g, uint32_t *start) {
    for (uint32_t v = 0; v < g->vertices_count; v++) {
        job_vertex *x = &g->vertices[v];
        start[v] = x->parallelism;
        x->max_parallelism = job_max_parallelism(x);
        x->parallelism = pipe_parallelism_max(cfg, v);
    }
}

/* What a rescale needs (scenarios/scn.c says the same at the statement). */
static const char *check_rescales(const pipe_cfg *c, char *err, size_t n) {
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (c->rescales_count > PIPE_RESCALES_MAX) BAD("more than %u rescales", PIPE_RESCALES_MAX);
    if (c->rescales_count == 0) return NULL;
    if (c->ckpt.mode == PIPE_UNALIGNED || c->ckpt.alignment_timeout_ns > 0)
        BAD("rescaling needs aligned checkpoints without an alignment timeout (redistributing channel state is not "
            "modelled)");
    if (c->task_slots > 0) BAD("rescaling with slots is not modelled");
    if (c->ckpt.finished_tasks_off) BAD("rescaling with finished-tasks off is not modelled");
    for (uint32_t i = 0; i < c->rescales_count; i++) {
        const pipe_rescale *r = &c->rescales[i];
        if (i > 0 && r->at_ns < c->rescales[i - 1].at_ns) BAD("rescales out of time order");
        if (r->vertex >= c->graph.vertices_count) BAD("a rescale of vertex %u: no such vertex", r->vertex);
        const job_vertex *x = &c->graph.vertices[r->vertex];
        if (r->parallelism < 1 || r->parallelism > JOB_PARALLELISM_MAX)
            BAD("%s: rescale to %u out of range [1, %u]", x->name, r->parallelism, JOB_PARALLELISM_MAX);
        if (r->parallelism > job_max_parallelism(x))
            BAD("%s: rescale to %u above its max-parallelism %u", x->name, r->parallelism, job_max_parallelism(x));
        if (x->kind == JOB_WINDOW || (x->kind == JOB_SOURCE && x->watermarks))
            BAD("%s: rescaling a window or a source that emits watermarks is not modelled", x->name);
        for (uint32_t e = 0; e < c->graph.edges_count; e++) {
            const job_edge *d = &c->graph.edges[e];
            if (d->part == JOB_FORWARD && (d->from == r->vertex || d->to == r->vertex))
                BAD("%s: a rescaled vertex takes no forward edge (%s -> %s)", x->name, c->graph.vertices[d->from].name,
                    c->graph.vertices[d->to].name);
        }
        uint32_t lo = pipe_parallelism_min(c, r->vertex), hi = pipe_parallelism_max(c, r->vertex);
        uint32_t handles = (hi + lo - 1) / lo + 1, chain = c->state.incremental ? c->state.full_every + 1 : 1;
        if (handles > PIPE_RESCALE_HANDLES_MAX)
            BAD("%s: from parallelism %u to %u a task would read the state of more than %u old subtasks", x->name, hi,
                lo, PIPE_RESCALE_HANDLES_MAX);
        if ((handles - 1) * chain > PROTO_MORE_FILES_MAX)   /* what a deployment names */
            BAD("%s: from parallelism %u to %u a task would read %u chains of up to %u files, more than a deployment "
                "names: lower full-every", x->name, hi, lo, handles, chain);
    }
#undef BAD
    return NULL;
}

static const char *check_windows(const pipe_cfg *c, char *err, size_t n) {
    uint32_t vertex;
    return pipe_window_problem(c, &vertex, err, n);
}

static const char *check_cfg(const pipe_cfg *c, char *err, size_t n) {
    if (job_check(&c->graph, NULL, err, n) != NULL) return err;
    if (check_rescales(c, err, n) != NULL) return err;
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (c->machines < 1 || c->machines > PIPE_MACHINES_MAX) BAD("machines %u out of range [1, %u]", c->machines, PIPE_MACHINES_MAX);
    if (c->task_slots > PIPE_TASK_SLOTS_MAX) BAD("slots %u out of range [1, %u]", c->task_slots, PIPE_TASK_SLOTS_MAX);
    for (uint32_t v = 0; v < c->graph.vertices_count && c->task_slots > 0; v++) {   /* slot sharing: one per vertex */
        if (c->graph.vertices[v].parallelism > c->machines * c->task_slots)
            BAD("vertex %s has parallelism %u, more than the %u slots of `machines %u slots %u`: raise the slots or "
                "the machines, or lower the parallelism", c->graph.vertices[v].name, c->graph.vertices[v].parallelism,
                c->machines * c->task_slots, c->machines, c->task_slots);
    }
    const char *topics = check_topics(c, err, n);
    if (topics != NULL) return topics;
    if (c->credits < 1 || c->credits > 64) BAD("credits out of range [1, 64]");
    if (c->out_queue < 1 || c->out_queue > 64) BAD("out_queue out of range [1, 64]");
    if (c->latency_ns == 0 || c->rpc_latency_ns == 0) BAD("link latencies must be above 0");
    sim_time_ns hb_interval, hb_timeout;
    pipe_heartbeat(c, &hb_interval, &hb_timeout);
    if (hb_timeout <= hb_interval + 2 * c->rpc_latency_ns)
        BAD("the heartbeat timeout must be longer than its interval and a round trip (2 RPC latencies)");
    if (c->ckpt.enabled) {
        if (c->ckpt.interval_ns == 0) BAD("checkpoint interval must be above 0");
        if (c->ckpt.timeout_ns == 0) BAD("checkpoint timeout must be above 0");
        if (c->ckpt.max_concurrent < 1 || c->ckpt.max_concurrent > PIPE_CONCURRENT_MAX)
            BAD("max concurrent checkpoints out of range [1, %u]", PIPE_CONCURRENT_MAX);
        if (c->ckpt.retained < 1 || c->ckpt.retained > PIPE_RETAINED_MAX)
            BAD("retained checkpoints out of range [1, %u]", PIPE_RETAINED_MAX);
    }
    if (c->ckpt.mode < PIPE_ALIGNED || c->ckpt.mode > PIPE_UNALIGNED) BAD("unknown checkpoint mode");
    if (c->ckpt.alignment_timeout_ns > 0 && c->ckpt.mode != PIPE_ALIGNED)
        BAD("an alignment timeout needs aligned checkpoints");
    if (c->ckpt.mode == PIPE_UNALIGNED && c->ckpt.max_concurrent > 1)
        BAD("unaligned checkpoints allow one at a time (max-concurrent 1), as Flink does");
    if (c->ckpt.alignment_timeout_ns > 0 && c->ckpt.max_concurrent > 1)   /* they may turn unaligned */
        BAD("an alignment timeout allows one checkpoint at a time (max-concurrent 1), as Flink does");
    if (c->state.backend != PIPE_BACKEND_MEMORY && c->state.backend != PIPE_BACKEND_DURABLE) BAD("unknown state backend");
    if (c->state.full_every < 1 || c->state.full_every > SNAP_CHAIN_MAX - 1)
        BAD("full-every out of range [1, %u]", SNAP_CHAIN_MAX - 1);
    if (c->slow_count > PIPE_SLOW_MAX) BAD("more than %u slow operators", PIPE_SLOW_MAX);
    for (uint32_t i = 0; i < c->slow_count; i++) {
        if (c->slow[i].factor < 1 || c->slow[i].factor > 1000000) BAD("slow operator factor out of range [1, 1000000]");
    }
    if (c->bug >= PIPE_BUG_COUNT) BAD("unknown deliberate bug");
    rs_cfg rules = pipe_restart_rules(&c->restart);
    const char *rules_bad = rs_cfg_error(&rules);
    if (rules_bad != NULL) BAD("restart strategy: %s", rules_bad);
    const char *sources = check_sources(c, err, n);
    if (sources != NULL) return sources;
    const char *windows = check_windows(c, err, n);
    if (windows != NULL) return windows;
    if (c->faults_count > PIPE_FAULTS_MAX) BAD("more than %u faults", PIPE_FAULTS_MAX);
#undef BAD
    return NULL;
}

/* ---- sizing: what one run holds, part by part ------------------------------ */

const char *const pipe_mem_part_names[PIPE_MEM_PARTS] = {
    [PIPE_MEM_KEYED] = "keyed state", [PIPE_MEM_STORE] = "checkpoint files",
    [PIPE_MEM_CHANNELS] = "channels", [PIPE_MEM_CHANNEL_STATE] = "channel state of checkpoints",
    [PIPE_MEM_TXLOG] = "two-phase-commit transaction logs", [PIPE_MEM_RECORDS] = "per-record tables",
    [PIPE_MEM_KERNEL] = "event kernel", [PIPE_MEM_CHECKERS] = "invariant checkers",
};

/* What the plan of a run fixes before anything is allocated: the expanded
 * graph and every size the builders below carve. */
typedef struct plan {
    job     *graph;                   /* expanded: &graph_job, its expansion in graph_mem */
    job      graph_job;
    arena    graph_mem;
    uint32_t tasks, chans, ring, slots, snaps, stateful, files_max, holds_max;
    uint32_t hosts, insts, conns;     /* with slots a task has an instance per machine, a channel a connection per pair */
    uint64_t keys_sum, records, entries_max;     /* keys_sum: over the keyed tasks' maps */
    uint64_t results;                 /* window-keys of every window vertex (world.h) */
    uint32_t task_keys[JOB_TASKS_MAX];           /* keys a keyed task's map is sized for (0: not keyed) */
    bool     unaligned;               /* a snapshot may hold channel state */
    uint64_t copies[JOB_VERTICES_MAX];   /* copies of a record that reach each vertex in one attempt */
    sim_cfg  sc;
    pipe_mem mem;
} plan;

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

static bool keyed_kind(job_kind k) { return k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN || k == JOB_WINDOW; }

/* Map entries a window subtask that `routed` keys go to may hold: a
 * window's contents and timer per window-key touched and a late
 * aggregate per key (purged windows are zeroed, never deleted: window.h).
 * Every window of every key, or, when fewer, those the input's records
 * can touch: win_per_record windows each, whatever path brought it (a
 * record keeps its key and event time up to a window, and no window
 * feeds another). */
static uint64_t window_entries(const pipe_cfg *cfg, const job_vertex *x, uint64_t routed) {
    uint64_t every = routed * (2 * win_count(x, broker_cfg_event_end(&cfg->broker)) + 1);
    uint64_t touched = 2 * broker_cfg_records(&cfg->broker) * win_per_record(x) + routed;
    return touched < every ? touched : every;
}

/* The keys task t's map may take: for each input of its vertex, those the
 * hash partitioner routes to its subtask when the input is a hash edge,
 * else every key; a join's map holds key * 2 + input. */
static kstate_owner task_owner(const job *g, uint32_t t) {
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

/* The most keys of [0, keys) subtask s is routed at any parallelism the
 * schedule gives vertex v (a rescale changes its key groups), into
 * routed[s]; the written one alone for a vertex never rescaled. */
static void plan_routed(const pipe_cfg *cfg, uint32_t v, uint32_t max_parallelism, uint64_t keys, uint32_t *routed) {
    uint32_t seen[PIPE_RESCALES_MAX + 1], count = 0;
    for (uint32_t i = 0; i <= cfg->rescales_count; i++) {
        uint32_t p = i == cfg->rescales_count ? written_parallelism(cfg, v) : cfg->rescales[i].parallelism;
        if (i < cfg->rescales_count && cfg->rescales[i].vertex != v) continue;
        bool dup = false;
        for (uint32_t k = 0; k < count; k++) dup |= seen[k] == p;
        if (dup) continue;
        seen[count++] = p;
        uint32_t n[JOB_PARALLELISM_MAX] = { 0 };
        for (uint64_t k = 0; k < keys; k++) n[job_key_subtask(k, max_parallelism, p)]++;
        for (uint32_t s = 0; s < p; s++) routed[s] = n[s] > routed[s] ? n[s] : routed[s];
    }
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
        if (!keyed_kind(x->kind)) continue;
        kstate_owner o = task_owner(g, g->vertex_first_task[v]);
        uint32_t routed[JOB_PARALLELISM_MAX] = { 0 };
        if (o.hashed != 0) plan_routed(cfg, v, o.max_parallelism, keys, routed);
        for (uint32_t s = 0; s < x->parallelism; s++) {
            uint64_t n = 0;
            if (x->kind == JOB_WINDOW) n = window_entries(cfg, x, routed[s]);
            else for (uint32_t in = 0; in < (1u << o.tag_bits); in++) n += (o.hashed >> in & 1) ? routed[s] : keys;
            uint32_t t = g->vertex_first_task[v] + s;
            pl->task_keys[t] = n > 0 ? (uint32_t)n : 1;   /* a subtask no key goes to still has a map */
            pl->keys_sum += pl->task_keys[t];
        }
    }
}

/* Entries of a two-phase-commit sink's transaction log: a record's copies
 * that reach it, and with windows two firings of every window-key. */
static uint64_t txlog_cap(const plan *pl, uint32_t vertex) {
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

/* The counts and the model's parts of the memory. */
static void plan_model(plan *pl, const pipe_cfg *cfg) {
    const job *g = pl->graph;
    pl->tasks = g->tasks_count;
    pl->chans = g->chans_count;
    pl->hosts = cfg->task_slots > 0 ? cfg->machines : 1;
    pl->insts = pl->tasks * pl->hosts;
    pl->conns = pl->chans * pl->hosts * pl->hosts;
    pl->ring = cfg->credits + cfg->out_queue + 3;
    pl->slots = cfg->ckpt.retained + cfg->ckpt.max_concurrent + 1;
    pl->records = broker_cfg_records(&cfg->broker);
    uint32_t parts = broker_cfg_partitions(&cfg->broker);
    uint64_t zipf = 0;                            /* the keys of the topics that hold records */
    for (uint32_t t = 0; t < broker_cfg_topics(&cfg->broker); t++) {
        broker_topic_cfg tc = broker_cfg_topic(&cfg->broker, t);
        zipf += tc.partitions > 0 ? tc.keys : 0;
    }
    for (uint32_t t = 0; t < pl->tasks; t++) pl->stateful += keyed_kind(g->vertices[g->tasks[t].vertex].kind);
    plan_keys(pl, cfg);
    for (uint32_t v = 0; v < g->vertices_count; v++) {
        if (g->vertices[v].kind == JOB_WINDOW)
            pl->results += broker_cfg_keys(&cfg->broker) * win_count(&g->vertices[v], broker_cfg_event_end(&cfg->broker));
    }
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
    if (pl->unaligned) {
        pl->files_max += pl->tasks * (pl->slots + PIPE_CONCURRENT_MAX + 3);
        pl->entries_max += cs_all * (pl->slots + 2);
    }
    if (pl->hosts > 1) {                          /* a zombie instance writes snapshots beside the new attempt's */
        pl->files_max *= pl->hosts;
        pl->entries_max *= pl->hosts;
        pl->holds_max *= pl->hosts;
    }
    count_copies(pl);
    uint64_t *b = pl->mem.bytes;
    for (uint32_t t = 0; t < pl->tasks; t++) {
        if (pl->task_keys[t] > 0) b[PIPE_MEM_KEYED] += pl->hosts * keyed_task_bytes(pl->task_keys[t], pl->snaps);
    }
    b[PIPE_MEM_STORE] = store_arena_bytes(pl->files_max, pl->entries_max, pl->holds_max);
    /* A channel: its ring (the buffers both ends share), and its place in
     * the expanded graph (copied into the run). */
    b[PIPE_MEM_CHANNELS] = (uint64_t)pl->conns * (sizeof(rt_chan) + sizeof(chan_fill) + pl->ring * sizeof(chan_buf))
                         + job_expand_bytes(g);
    b[PIPE_MEM_CHANNEL_STATE] = (uint64_t)pl->slots * pl->tasks * 8;   /* the records are checkpoint files */
    for (uint32_t t = 0; t < pl->tasks; t++) {
        const job_vertex *v = &g->vertices[g->tasks[t].vertex];
        if (v->kind != JOB_SINK || v->sink != JOB_SINK_2PC) continue;
        b[PIPE_MEM_TXLOG] += sizeof(rt_txlog) + txlog_cap(pl, g->tasks[t].vertex) * (pl->results > 0 ? 12 : 4) + 32;
    }
    b[PIPE_MEM_RECORDS] = sizeof(pipeline) + (uint64_t)pl->insts * (sizeof(rt_task) + 64) + pl->records
                        + pl->results * (WIN_FIRINGS_MAX + 9)        /* window results in the external system */
                        + (uint64_t)pl->insts * 8 * PIPE_SOURCE_PARTS_MAX   /* sources' split maxima */
                        + (pl->hosts > 1 ? (uint64_t)pl->insts * (2 * JOB_TASK_CHANNELS_MAX + 48) : 0)   /* hosts, slots */
                        + ((uint64_t)pl->chans * 3 * pl->hosts + pl->insts * 3) * sizeof(void *) + pl->insts * 48   /* wiring */
                        + (uint64_t)(pl->slots + cfg->ckpt.retained + 2)   /* slots, and the checkpoint store */
                              * (sizeof(rt_slot) + pl->tasks * (9 + sizeof(rt_chain)) + parts * 8 + 64)
                        + (uint64_t)parts * (8 * pl->hosts + 20 + 8 * (PIPE_CONCURRENT_MAX + 1))   /* 8: the broker's record bases */
                        + (uint64_t)parts * 24            /* where each partition's reader is, for the reports */
                        + zipf * 16                       /* the Zipf tables and their guides */
                        + rescaled_sources_bytes(pl, cfg)
                        + PIPE_HISTORY_MAX * sizeof(pipe_ckpt_rec) + (1u << 20);
}

/* The kernel's sizes, from the plan's counts. */
static void plan_kernel(plan *pl, const pipe_cfg *cfg) {
    sim_cfg *sc = &pl->sc;
    *sc = sim_cfg_default(cfg->seed);
    sc->actors_max = pl->insts + 1;
    sc->machines_max = cfg->machines + 1;
    sc->links_max = pl->conns * 2 + pl->insts * 3;
    sc->timers_max = pl->insts * (8 + 2 * pl->snaps) + cfg->ckpt.max_concurrent * 4 + 64;
    sc->devs_max = 3;
    sc->faults_max = cfg->faults_count + PIPE_FAULTS_MAX;   /* room for faults added at run time */
    sc->events_pending_max = pl->conns * (pl->ring + 4) + pl->insts * 16 + 4096;
    sc->events_max = cfg->events_max;
    sc->time_max_ns = cfg->time_max_ns;
    /* Payloads in flight: a task's ACKs (one per checkpoint; at most
     * max-concurrent are pending, and late ones of aborted checkpoints
     * are few) and its FINISHED, repeated every 50 RPC latencies. Twice
     * the concurrency limit and some more each; running out asserts. A
     * channel carries one only as a priority barrier (unaligned
     * checkpoints, or aligned ones that may switch): a slot is as big as
     * the largest payload (a deployment), so aligned-only jobs reserve
     * none per channel. */
    sc->payloads_max = pl->insts * (2 * PIPE_CONCURRENT_MAX + 8) + (pl->unaligned ? pl->conns * 4 : 0) + 64;
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
    if ((uint64_t)pl->conns * (pl->ring + 4) + pl->insts * 16ull + 4096 > SIM_EVENTS_PENDING_MAX) {
        snprintf(err, n, "%u channels with `channels credits %u queue %u` may hold %llu events at once, more than the "
                 "kernel's %u: lower `channels ... credits` or `queue`, or the parallelism of vertices joined by "
                 "edges other than forward", pl->conns, cfg->credits, cfg->out_queue,
                 (unsigned long long)pl->conns * (pl->ring + 4) + pl->insts * 16ull + 4096, SIM_EVENTS_PENDING_MAX);
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
static bool plan_run(plan *pl, const pipe_cfg *cfg, char *err, size_t err_bytes) {
    memset(pl, 0, sizeof *pl);
    if (check_cfg(cfg, err, err_bytes) != NULL) return false;
    pl->graph = &pl->graph_job;
    *pl->graph = cfg->graph;
    uint32_t start[JOB_VERTICES_MAX];
    widen(cfg, pl->graph, start);
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

static void plan_free(plan *pl) {
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

/* ---- building ---------------------------------------------------------------- */

/* Instance h of task t (tm.h): on machine h with slots, else on the
 * task's machine. A two-phase-commit sink's transactions are the
 * external system's, so its instances share one log. */
static void build_task(pipeline *p, const plan *pl, uint32_t t, uint32_t h) {
    const pipe_cfg *cfg = &p->w.cfg;
    const job *j = &p->w.cfg.graph;
    uint32_t inst = t * pl->hosts + h;
    rt_task *k = &p->tm.tasks[inst];
    k->owner = &p->tm;
    k->id = t;
    k->inst = inst;
    k->host = h;
    k->jt = &j->tasks[t];
    k->v = &j->vertices[k->jt->vertex];
    k->stateful = keyed_kind(k->v->kind);
    if (k->stateful) {
        kstate_init_versioned(&k->state, p->w.run, pl->task_keys[t], pl->snaps);
        kstate_owner own = task_owner(j, t);
        kstate_own(&k->state, &own);
    }
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) k->snaps[i].ksnap = UINT32_MAX;
    if (k->v->kind == JOB_SINK && k->v->sink == JOB_SINK_2PC && h > 0) {
        k->txlog = p->tm.tasks[inst - h].txlog;
    } else if (k->v->kind == JOB_SINK && k->v->sink == JOB_SINK_2PC) {
        k->txlog = sim_alloc(p->w.run, sizeof(rt_txlog), _Alignof(rt_txlog));
        k->txlog->cap = txlog_cap(pl, k->jt->vertex);
        k->txlog->recs = sim_alloc(p->w.run, sizeof(uint32_t) * k->txlog->cap, 4);
        if (pl->results > 0) k->txlog->vals = sim_alloc(p->w.run, sizeof(int64_t) * k->txlog->cap, 8);
    }
    if (k->v->kind == JOB_SOURCE) {
        broker_topic_cfg tc = broker_cfg_topic(&cfg->broker, k->v->topic);
        k->parts_first = broker_cfg_first(&cfg->broker, k->v->topic) + k->jt->subtask;
        k->parts_stride = k->v->parallelism;      /* its deployment names the attempt's */
        k->parts_count = (tc.partitions - k->jt->subtask + k->v->parallelism - 1) / k->v->parallelism;
        uint32_t lo = pipe_parallelism_min(&p->w.cfg, k->jt->vertex);   /* the most it reads over a rescale schedule */
        k->parts_cap = k->jt->subtask < tc.partitions ? (tc.partitions - k->jt->subtask + lo - 1) / lo : 0;
        k->snap_offsets = sim_alloc(p->w.run, sizeof(uint64_t) * (PIPE_CONCURRENT_MAX + 1) * k->parts_cap, 8);
        if (k->v->watermarks) k->split_max = sim_alloc(p->w.run, sizeof(win_wm) * (k->parts_cap + 1), 8);
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {   /* outputs grouped by edge, in order */
        if (j->edges[e].from != k->jt->vertex) continue;
        uint32_t first = UINT32_MAX, count = 0;
        for (uint32_t i = 0; i < k->jt->out_count; i++) {
            if (j->chans[j->out_chan[k->jt->out_first + i]].edge != e) continue;
            if (first == UINT32_MAX) first = i;
            count++;
        }
        k->out_edges[k->out_edges_count++] = (rt_out_edge){ .part = j->edges[e].part, .first = first, .count = count,
                                                            .width = count, .to = j->edges[e].to,
                                                            .max_parallelism = job_max_parallelism(&j->vertices[j->edges[e].to]) };
        rt_out_edge *oe = &k->out_edges[k->out_edges_count - 1];
        oe->mp_shift = job_mp_shift(oe->max_parallelism);
    }
    if (pl->hosts > 1) {
        k->in_host = sim_alloc(p->w.run, k->jt->in_count + 1, 1);
        k->out_host = sim_alloc(p->w.run, k->jt->out_count + 1, 1);
    }
    k->outs = sim_alloc(p->w.run, sizeof(rt_chan *) * (k->jt->out_count + 1), _Alignof(rt_chan *));
    k->out_fills = sim_alloc(p->w.run, sizeof(chan_fill *) * (k->jt->out_count + 1), _Alignof(chan_fill *));
    k->ins = sim_alloc(p->w.run, sizeof(rt_chan *) * (k->jt->in_count + 1), _Alignof(rt_chan *));
    char name[SIM_NAME_BYTES + 16];          /* sim_actor_add truncates to a label */
    if (pl->hosts > 1) snprintf(name, sizeof name, "%s[%u]@tm%u", k->v->name, k->jt->subtask, h);
    else snprintf(name, sizeof name, "%s[%u]", k->v->name, k->jt->subtask);
    k->actor = sim_actor_add(p->w.run, name, pl->hosts > 1 ? h : k->jt->machine, task_on_event, k);
    SIM_ASSERT(k->actor == inst);
}

static void build_coordinator(pipeline *p, const plan *pl, uint32_t jm) {
    const pipe_cfg *cfg = &p->w.cfg;
    sim_run *run = p->w.run;
    p->jm.coord.actor = sim_actor_add(run, "coordinator", jm, coord_on_event, &p->jm);
    p->jm.coord.machine = jm;
    for (uint32_t v = 0; v < cfg->graph.vertices_count; v++) p->jm.coord.par[v] = cfg->start_parallelism[v];   /* as written */
    for (uint32_t t = 0; t < pl->tasks; t++) p->jm.coord.active_count += jm_active(&p->jm, t);
    p->w.store_dev = dev_add(run, "store", &cfg->state.store);
    store_init(&p->w.files, run, pl->files_max, pl->entries_max, pl->holds_max);
    p->tm.snaps_max = pl->snaps;
    p->w.memory_dev = dev_add(run, "jm-memory", &cfg->state.memory);
    /* The high-availability services' store (ZooKeeper): small writes at
     * an RPC latency (a quorum write next to the JobManager). */
    p->w.ha_dev = dev_add(run, "ha", &(dev_cfg){ .latency_ns = cfg->rpc_latency_ns });
    uint32_t n = pl->insts;                       /* what it knows of each slot (instance), and of each task */
    p->jm.coord.hosts = pl->hosts;
    p->jm.coord.rpc_to_task = sim_alloc(run, sizeof(uint32_t) * n, 4);
    p->jm.coord.conn_from_task = sim_alloc(run, sizeof(uint32_t) * n, 4);
    p->jm.coord.deploy_gen = sim_alloc(run, sizeof(uint32_t) * n, 4);
    p->jm.coord.slot_free = sim_alloc(run, n, 1);
    p->jm.coord.alive = sim_alloc(run, n, 1);
    p->jm.coord.lost = sim_alloc(run, n, 1);
    p->jm.coord.process = sim_alloc(run, sizeof(uint64_t) * n, 8);
    p->jm.coord.heard_ns = sim_alloc(run, sizeof(sim_time_ns) * n, 8);
    p->jm.coord.placed = sim_alloc(run, sizeof(uint32_t) * pl->tasks, 4);
    p->jm.coord.place_next = sim_alloc(run, sizeof(uint32_t) * pl->tasks, 4);
    for (uint32_t t = 0; t < pl->tasks; t++) p->jm.coord.placed[t] = pl->hosts > 1 ? p->w.cfg.graph.tasks[t].machine : 0;
    p->jm.coord.finished = sim_alloc(run, pl->tasks, 1);
    p->jm.coord.final_file = sim_alloc(run, sizeof(uint64_t) * pl->tasks, 8);
    p->jm.coord.running = sim_alloc(run, pl->tasks, 1);
    p->jm.coord.committed = sim_alloc(run, pl->tasks, 1);
    p->jm.coord.attempt = sim_alloc(run, sizeof(uint64_t) * pl->tasks, 8);
    p->jm.coord.region = sim_alloc(run, sizeof(uint32_t) * pl->tasks, 4);
    p->jm.coord.regions = job_regions(&p->w.cfg.graph, p->jm.coord.region);
    p->jm.coord.restarting = sim_alloc(run, pl->tasks, 1);
    memset(p->jm.coord.restarting, JM_RESTART_DUE, pl->tasks);   /* the first deployment deploys every task */
    p->jm.coord.assigned = sim_alloc(run, broker_cfg_partitions(&cfg->broker), 1);
    p->jm.coord.assign_pending = sim_alloc(run, sizeof(uint64_t) * pl->tasks, 8);
    p->jm.coord.assign_sent_ns = sim_alloc(run, sizeof(sim_time_ns) * pl->tasks, 8);
    p->jm.coord.end_offsets = sim_alloc(run, sizeof(uint64_t) * broker_cfg_partitions(&cfg->broker), 8);
    p->jm.coord.end_owner = sim_alloc(run, sizeof(uint32_t) * broker_cfg_partitions(&cfg->broker), 4);
    for (uint32_t part = 0; part < broker_cfg_partitions(&cfg->broker); part++) p->jm.coord.end_owner[part] = UINT32_MAX;
    coord_rules_init(&p->jm, 1);
    p->jm.coord.status = PIPE_RUNNING;              /* submitted; at its start it waits for slots */
}

static void build_links(pipeline *p, const plan *pl) {
    const pipe_cfg *cfg = &p->w.cfg;
    const job *j = &p->w.cfg.graph;
    sim_run *run = p->w.run;
    link_cfg data = { .kind = LINK_STREAM, .latency_ns = cfg->latency_ns, .jitter_ns = cfg->jitter_ns,
                      .bandwidth_bytes_per_s = cfg->bandwidth_bytes_per_s };
    link_cfg rpc = { .kind = LINK_RPC, .latency_ns = cfg->rpc_latency_ns };
    p->tm.chan_link0 = run->links_count;
    p->tm.conns = pl->conns;
    uint32_t hs = pl->hosts;
    chan_buf *rings = pl->conns == 0 ? NULL : sim_alloc(run, sizeof(chan_buf) * pl->ring * pl->conns, _Alignof(chan_buf));
    for (uint32_t k = 0; k < pl->conns; k++) {      /* k = (c * hosts + hp) * hosts + hc */
        rt_chan *x = &p->tm.chans[k];
        uint32_t c = k / (hs * hs), hp = k / hs % hs, hc = k % hs;
        const job_chan *jc = &j->chans[c];
        x->id = k;
        x->jc = c;
        x->producer = jc->producer;
        x->consumer = jc->consumer;
        x->prod_inst = jc->producer * hs + hp;
        x->cons_inst = jc->consumer * hs + hc;
        x->gate_index = jc->gate_index;
        x->input = jc->input;
        x->ring_size = pl->ring;
        x->ring = rings + k;                       /* interleaved by slot: see chan_slot_buf */
        x->ring_stride = pl->conns;
        x->data_link = link_add(run, p->tm.tasks[x->prod_inst].actor, p->tm.tasks[x->cons_inst].actor, &data);
        x->credit_link = link_add(run, p->tm.tasks[x->cons_inst].actor, p->tm.tasks[x->prod_inst].actor, &data);
        SIM_ASSERT(x->data_link == p->tm.chan_link0 + 2 * k);   /* task.c finds a link's connection so */
    }
    for (uint32_t i = 0; i < pl->insts; i++) {
        p->tm.tasks[i].rpc_to_coord = link_add(run, p->tm.tasks[i].actor, p->jm.coord.actor, &rpc);
        p->jm.coord.rpc_to_task[i] = link_add(run, p->jm.coord.actor, p->tm.tasks[i].actor, &rpc);
        /* The TaskManager's connection to the JobManager: a crash or a
         * partition breaks it, and the coordinator hears of it. */
        link_cfg conn = { .kind = LINK_STREAM, .latency_ns = cfg->rpc_latency_ns };
        p->tm.tasks[i].conn_to_coord = link_add(run, p->tm.tasks[i].actor, p->jm.coord.actor, &conn);
        p->jm.coord.conn_from_task[i] = p->tm.tasks[i].conn_to_coord;
    }
}

/* The completed-checkpoint store: the retained checkpoints, one being
 * written and one an ambiguous write may have left. */
static void build_ha(pipeline *p, const plan *pl) {
    ha_store *h = &p->w.ha;
    h->cap = p->w.cfg.ckpt.retained + 2;
    h->entries = sim_alloc(p->w.run, sizeof(ha_entry) * h->cap, _Alignof(ha_entry));
    for (uint32_t i = 0; i < h->cap; i++) {
        h->entries[i].chains = sim_alloc(p->w.run, sizeof(rt_chain) * pl->tasks, _Alignof(rt_chain));
        h->entries[i].cs_files = sim_alloc(p->w.run, sizeof(uint64_t) * pl->tasks, 8);
        h->entries[i].offsets = sim_alloc(p->w.run, sizeof(uint64_t) * p->w.brk.partitions, 8);
        h->entries[i].splits = sim_alloc(p->w.run, p->w.brk.partitions, 1);
    }
}

static void build_slots(pipeline *p, const plan *pl) {
    p->jm.slots_count = pl->slots;
    p->jm.slots = sim_alloc(p->w.run, sizeof(rt_slot) * pl->slots, _Alignof(rt_slot));
    for (uint32_t s = 0; s < pl->slots; s++) {
        rt_slot *x = &p->jm.slots[s];
        x->acked = sim_alloc(p->w.run, pl->tasks, 1);
        x->offsets = sim_alloc(p->w.run, sizeof(uint64_t) * p->w.brk.partitions, 8);
        x->splits = sim_alloc(p->w.run, p->w.brk.partitions, 1);
        x->chains = sim_alloc(p->w.run, sizeof(rt_chain) * pl->tasks, _Alignof(rt_chain));
        x->cs_files = sim_alloc(p->w.run, sizeof(uint64_t) * pl->tasks, 8);
    }
}

/* The window-keys of the external system, vertex by vertex (world.h). */
static void build_results(pipeline *p, const plan *pl) {
    const job *g = &p->w.cfg.graph;
    pipe_world *w = &p->w;
    w->res_keys = broker_cfg_keys(&w->cfg.broker);
    for (uint32_t v = 0; v < g->vertices_count; v++) {
        if (g->vertices[v].kind != JOB_WINDOW) continue;
        w->res_first[v] = w->res_count;
        w->res_windows[v] = win_count(&g->vertices[v], broker_cfg_event_end(&w->cfg.broker));
        w->res_count += w->res_windows[v] * w->res_keys;
    }
    SIM_ASSERT(w->res_count == pl->results);
    w->res_value = sim_alloc(w->run, sizeof(int64_t) * (w->res_count + 1), 8);
    w->res_top = sim_alloc(w->run, w->res_count + 1, 1);
}

static pipeline *build(plan *pl, const pipe_cfg *cfg, sim_run *run) {
    pipeline *p = sim_alloc(run, sizeof *p, _Alignof(pipeline));
    p->w.cfg = *cfg;
    widen(cfg, &p->w.cfg.graph, p->w.cfg.start_parallelism);
    job_expand(&p->w.cfg.graph, cfg->machines, &run->arena);   /* as the plan's, in the run's memory */
    /* The bug no-alignment never blocks: nothing waits, so nothing times out. */
    if (cfg->bug == PIPE_BUG_NO_ALIGNMENT) p->w.cfg.ckpt.alignment_timeout_ns = 0;
    p->w.run = run;
    p->tm.w = &p->w;
    p->jm.w = &p->w;
    broker_init(&p->w.brk, run, &cfg->broker);
    p->tm.hosts = pl->hosts;
    p->tm.offsets = sim_alloc(run, sizeof(uint64_t) * p->w.brk.partitions * pl->hosts, 8);
    p->w.read_pos = sim_alloc(run, sizeof(uint64_t) * p->w.brk.partitions, 8);
    p->w.read_epoch = sim_alloc(run, sizeof(uint64_t) * p->w.brk.partitions, 8);
    p->w.rewound = sim_alloc(run, sizeof(uint64_t) * p->w.brk.partitions, 8);
    for (uint32_t v = 0; v < cfg->graph.vertices_count; v++) {   /* a source emits watermarks: the job has event time */
        p->w.event_time |= cfg->graph.vertices[v].kind == JOB_SOURCE && cfg->graph.vertices[v].watermarks;
    }
    p->w.sink_seen = sim_alloc(run, pl->records + pl->results * WIN_FIRINGS_MAX + 1, 1);
    build_results(p, pl);
    p->tm.tasks = sim_alloc(run, sizeof(rt_task) * pl->insts, _Alignof(rt_task));
    p->tm.chans = sim_alloc(run, sizeof(rt_chan) * (pl->conns ? pl->conns : 1), _Alignof(rt_chan));
    p->tm.fills = sim_alloc(run, sizeof(chan_fill) * (pl->conns ? pl->conns : 1), 64);
    for (uint32_t m = 0; m < cfg->machines; m++) {
        char name[SIM_NAME_BYTES];
        snprintf(name, sizeof name, "tm%u", m);
        sim_machine_add(run, name);
    }
    uint32_t jm = sim_machine_add(run, "jm");
    for (uint32_t t = 0; t < pl->tasks; t++) {
        for (uint32_t h = 0; h < pl->hosts; h++) build_task(p, pl, t, h);
    }
    build_coordinator(p, pl, jm);
    build_links(p, pl);
    for (uint32_t i = 0; i < pl->insts; i++) task_wire(&p->tm, &p->tm.tasks[i]);   /* host 0 until deployed, with slots */
    build_slots(p, pl);
    build_ha(p, pl);
    p->jm.history = sim_alloc(run, sizeof(pipe_ckpt_rec) * PIPE_HISTORY_MAX, _Alignof(pipe_ckpt_rec));
    for (uint32_t f = 0; f < cfg->faults_count; f++) fault_add(run, &cfg->faults[f]);
    return p;
}

pipeline *pipe_create(const pipe_cfg *cfg, char *err, size_t err_bytes) {
    plan *pl = malloc(sizeof *pl);
    if (pl == NULL) {
        snprintf(err, err_bytes, "out of memory");
        return NULL;
    }
    pipeline *p = NULL;
    if (!plan_run(pl, cfg, err, err_bytes)) goto done;
    if (pl->mem.total_bytes > PIPE_MEMORY_MAX_BYTES) {   /* the callers check the whole run first */
        pipe_mem_refusal(&pl->mem, PIPE_MEMORY_MAX_BYTES, err, err_bytes);
        goto done;
    }
    sim_run *run = sim_run_create(&pl->sc);
    if (run == NULL) {
        snprintf(err, err_bytes, "out of memory (%llu MiB)", (unsigned long long)(pl->mem.total_bytes >> 20));
        goto done;
    }
    p = build(pl, cfg, run);
done:
    plan_free(pl);
    return p;
}

void pipe_destroy(pipeline *p) {
    if (p != NULL) sim_run_destroy(p->w.run);
}

sim_stop_reason pipe_run(pipeline *p) {
    if (!p->w.run->started) sim_run_start(p->w.run);
    return sim_run_loop(p->w.run);
}

bool pipe_add_slow(pipeline *p, const pipe_slow *w) {
    SIM_ASSERT(w->task < p->w.cfg.graph.tasks_count && w->factor >= 1);
    if (p->w.cfg.slow_count == PIPE_SLOW_MAX) return false;
    p->w.cfg.slow[p->w.cfg.slow_count++] = *w;
    return true;
}

void pipe_observe(pipeline *p, pipe_observe_fn fn, void *ctx) {
    SIM_ASSERT(fn != NULL);
    SIM_ASSERT(p->w.observers < PIPE_OBSERVERS_MAX);
    p->w.observe[p->w.observers] = fn;
    p->w.observe_ctx[p->w.observers] = ctx;
    p->w.observers++;
}

void pipe_observe_messages(pipeline *p, pipe_observe_fn fn, void *ctx) {
    pipe_observe(p, fn, ctx);
    p->w.msg_observers |= 1u << (p->w.observers - 1);
}

void world_note_msg(pipe_world *w, pipe_event *e) {
    e->at_ns = w->run->now_ns;
    for (uint32_t i = 0; i < w->observers; i++) {
        if (w->msg_observers >> i & 1) w->observe[i](w->observe_ctx[i], e);
    }
}

const char *pipe_msg_name(uint32_t msg) {
    static const char *const names[] = {
        [MSG_DATA] = "data", [MSG_CREDIT] = "credit", [MSG_TRIGGER] = "trigger", [MSG_ACK] = "ack",
        [MSG_DECLINE] = "decline", [MSG_COMPLETE] = "complete", [MSG_ABORTED] = "abort", [MSG_FAILED] = "failed",
        [MSG_FINISHED] = "finished", [MSG_PRIORITY] = "priority", [MSG_DEPLOY] = "deploy", [MSG_CANCEL] = "cancel",
        [MSG_SLOT] = "slot", [MSG_END] = "end", [MSG_COMMITTED] = "committed", [MSG_RUNNING] = "running",
        [MSG_HEARTBEAT] = "heartbeat", [MSG_ASSIGN] = "assign", [MSG_ASSIGN_ACK] = "assign-ack",
    };
    return msg < sizeof names / sizeof names[0] && names[msg] != NULL ? names[msg] : "?";
}

void world_note_ev(pipe_world *w, pipe_event *e) {
    if (w->observers == 0) return;
    e->at_ns = w->run->now_ns;
    for (uint32_t i = 0; i < w->observers; i++) w->observe[i](w->observe_ctx[i], e);   /* in registration order */
}

sim_run *pipe_sim(pipeline *p) { return p->w.run; }
pipe_status pipe_get_status(const pipeline *p) { return p->jm.coord.status; }
const pipe_stats *pipe_get_stats(const pipeline *p) { return &p->w.stats; }
const job *pipe_job(const pipeline *p) { return &p->w.cfg.graph; }

uint64_t pipe_restore_ckpt(const pipeline *p) {
    const rt_slot *s = coord_restore(&p->jm);
    return s == NULL ? 0 : s->ckpt;
}

/* The instance a fault names for a task: on the task's first machine
 * (with slots the task may run elsewhere later). */
static uint32_t home_inst(const pipeline *p, uint32_t task) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    return p->tm.hosts == 1 ? task : task * p->tm.hosts + p->w.cfg.graph.tasks[task].machine;
}

/* The instance that runs (or last ran) the task's attempt, for the views:
 * where the coordinator deployed it. */
static const rt_task *current_inst(const pipeline *p, uint32_t task) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    return &p->tm.tasks[task * p->tm.hosts + p->jm.coord.placed[task]];
}

uint32_t pipe_task_actor(const pipeline *p, uint32_t task) { return p->tm.tasks[home_inst(p, task)].actor; }
uint32_t pipe_task_rpc_link(const pipeline *p, uint32_t task) { return p->tm.tasks[home_inst(p, task)].rpc_to_coord; }
uint32_t pipe_task_rpc_in_link(const pipeline *p, uint32_t task) { return p->jm.coord.rpc_to_task[home_inst(p, task)]; }

uint32_t pipe_task_region(const pipeline *p, uint32_t task) { return p->jm.coord.region[task]; }

uint32_t pipe_task_host(const pipeline *p, uint32_t task) {
    return p->tm.hosts == 1 ? p->w.cfg.graph.tasks[task].machine : p->jm.coord.placed[task];
}

const char *const pipe_rpc_kind_names[] = { "deploy", "cancel", "trigger", "complete", "abort", "heartbeat", "end",
                                            "assign", "ack", "decline", "failed", "finished", "slot", "running",
                                            "committed", NULL };

bool pipe_rpc_kind(const char *name, uint32_t *msg_type, bool *to_task) {
    static const uint32_t types[] = { MSG_DEPLOY, MSG_CANCEL, MSG_TRIGGER, MSG_COMPLETE, MSG_ABORTED, MSG_HEARTBEAT,
                                      MSG_END, MSG_ASSIGN, MSG_ACK, MSG_DECLINE, MSG_FAILED, MSG_FINISHED,
                                      MSG_SLOT, MSG_RUNNING, MSG_COMMITTED };
    for (uint32_t i = 0; pipe_rpc_kind_names[i] != NULL; i++) {
        if (strcmp(name, pipe_rpc_kind_names[i]) != 0) continue;
        *msg_type = types[i];
        *to_task = i < 8;
        return true;
    }
    return false;
}

uint32_t pipe_coord_actor(const pipeline *p) { return p->jm.coord.actor; }
uint32_t pipe_coord_machine(const pipeline *p) { return p->jm.coord.machine; }
uint32_t pipe_store_dev(const pipeline *p) { return p->w.store_dev; }
uint32_t pipe_ha_dev(const pipeline *p) { return p->w.ha_dev; }

uint32_t pipe_chan_link(const pipeline *p, uint32_t producer, uint32_t consumer) {
    const job *j = &p->w.cfg.graph;
    for (uint32_t c = 0; c < j->chans_count; c++) {
        if (j->chans[c].producer != producer || j->chans[c].consumer != consumer) continue;
        uint32_t hs = p->tm.hosts;                /* the connection between the tasks' first machines */
        uint32_t hp = hs == 1 ? 0 : j->tasks[producer].machine, hc = hs == 1 ? 0 : j->tasks[consumer].machine;
        return p->tm.chans[tm_conn(&p->tm, c, hp, hc)].data_link;
    }
    return UINT32_MAX;
}

const kstate *pipe_task_state(const pipeline *p, uint32_t task) {
    const rt_task *x = current_inst(p, task);
    return x->stateful ? &x->state : NULL;
}

void pipe_vertex_state(const pipeline *p, uint32_t vertex, kstate *out) {
    kstate_clear(out);
    const job *j = pipe_job(p);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        const rt_task *x = current_inst(p, t);
        if (j->tasks[t].vertex != vertex || !x->stateful) continue;
        uint32_t slot = 0;
        uint64_t key;
        kagg agg;
        while (kstate_next(&x->state, &slot, &key, &agg)) {
            kagg *o = kstate_upsert(out, key);
            o->count += agg.count;
            o->sum = (int64_t)((uint64_t)o->sum + (uint64_t)agg.sum);
            o->fingerprint += agg.fingerprint;
        }
    }
}

uint32_t pipe_sink_count(const pipeline *p, uint32_t partition, uint64_t offset) {
    SIM_ASSERT(partition < p->w.brk.partitions);
    uint64_t i = broker_index(&p->w.brk, partition, offset);
    SIM_ASSERT(i < p->w.brk.part_base[partition + 1]);   /* offset within its partition */
    uint8_t v = p->w.sink_seen[i];
    return (uint32_t)(v & 0x7f) + (v >> 7);              /* see model/tm/sinktx.c */
}

uint32_t pipe_result_count(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, uint32_t firing) {
    uint8_t x = p->w.sink_seen[world_result_index(&p->w, win_result_id(v, key, wi, firing))];
    return (uint32_t)(x & 0x7f) + (x >> 7);
}

bool pipe_result_top(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, uint32_t *firing, int64_t *value) {
    uint64_t k = world_result_wkey(&p->w, win_result_id(v, key, wi, 0));
    if (p->w.res_top[k] == 0) return false;
    *firing = p->w.res_top[k] - 1u;
    *value = p->w.res_value[k];
    return true;
}

void pipe_compare_output(const pipeline *a, const pipeline *b, pipe_output_diff *out) {
    SIM_ASSERT(a->w.brk.partitions == b->w.brk.partitions && a->w.brk.records == b->w.brk.records);
    memset(out, 0, sizeof *out);
    uint64_t n = a->w.brk.records;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t x = (a->w.sink_seen[i] & 0x7fu) + (a->w.sink_seen[i] >> 7), y = (b->w.sink_seen[i] & 0x7fu) + (b->w.sink_seen[i] >> 7);
        out->records += x > 0;
        uint64_t id = x != y ? broker_id_of_index(&a->w.brk, i) : 0;
        if (y < x && out->lost++ == 0) out->first_lost = id;
        if (y > x && out->duplicated++ == 0) out->first_duplicated = id;
    }
}

static uint64_t records_in(const kstate *s) {
    uint64_t n = 0, key;
    uint32_t slot = 0;
    kagg agg;
    while (kstate_next(s, &slot, &key, &agg)) n += agg.count;
    return n;
}

bool pipe_compare_states(const pipeline *a, const pipeline *b, pipe_state_diff *out) {
    const job *ja = pipe_job(a);
    SIM_ASSERT(ja->vertices_count == pipe_job(b)->vertices_count);
    memset(out, 0, sizeof *out);
    out->equal = true;
    /* Two maps outside both runs, in an arena sized for them (a join's
     * map tags each key by its input). */
    uint64_t keys = broker_cfg_keys(&a->w.cfg.broker) * 2;
    arena scratch;
    bool made = arena_create(&scratch, (size_t)(2 * kstate_bytes(keys, 0) + 4096));
    SIM_ASSERT(made);
    kstate x, y;
    kstate_init_in(&x, &scratch, (uint32_t)keys);
    kstate_init_in(&y, &scratch, (uint32_t)keys);
    for (uint32_t v = 0; v < ja->vertices_count; v++) {
        job_kind k = ja->vertices[v].kind;
        if (k != JOB_KEYED_AGG && k != JOB_KEYED_JOIN) continue;
        pipe_vertex_state(a, v, &x);
        pipe_vertex_state(b, v, &y);
        out->records_a += records_in(&x);
        out->records_b += records_in(&y);
        uint64_t key;
        if (out->equal && !kstate_equal(&x, &y, &key)) {
            out->equal = false;
            out->vertex = v;
            out->key = key;
        }
    }
    arena_destroy(&scratch);
    return out->equal;
}

/* ---- read-only views for checkers ------------------------------------------ */

const broker *pipe_broker(const pipeline *p) { return &p->w.brk; }

sim_time_ns pipe_task_backpressure_ns(const pipeline *p, uint32_t task) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    sim_time_ns sum = 0;                          /* every instance's: every attempt's */
    for (uint32_t h = 0; h < p->tm.hosts; h++) sum += task_backpressure_ns(&p->tm, &p->tm.tasks[task * p->tm.hosts + h]);
    return sum;
}
const pipe_cfg *pipe_config(const pipeline *p) { return &p->w.cfg; }

static const rt_slot *slot_of(const pipeline *p, uint64_t ckpt) {
    if (ckpt == 0) return NULL;
    for (uint32_t i = 0; i < p->jm.slots_count; i++) {
        if (p->jm.slots[i].ckpt == ckpt) return &p->jm.slots[i];
    }
    return NULL;
}

const uint64_t *pipe_partitions_rewound(const pipeline *p) { return p->w.rewound; }

const uint64_t *pipe_ckpt_offsets(const pipeline *p, uint64_t ckpt) {
    const rt_slot *s = slot_of(p, ckpt);
    return s == NULL ? NULL : s->offsets;
}

bool pipe_ckpt_task_state(const pipeline *p, uint64_t ckpt, uint32_t task, kstate *out, uint32_t *files) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    kstate_clear(out);
    *files = 0;
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL) return false;
    const rt_chain *c = &s->chains[task];
    *files = c->count;
    if (c->count == 0) return true;
    for (uint32_t i = 0; i < c->count; i++) {
        if (!store_alive(&p->w.files, c->files[i])) return false;
    }
    return store_restore(&p->w.files, c->files, c->count, out);
}

bool pipe_ckpt_inflight(const pipeline *p, uint64_t ckpt, pipe_cursor *cur, model_rec *rec, uint32_t *chan) {
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL) return false;
    for (; cur->task < p->w.cfg.graph.tasks_count; cur->task++, cur->pos = 0) {
        uint64_t f = s->cs_files[cur->task];
        rt_cs_rec r;
        if (f == 0 || !store_alive(&p->w.files, f) || !csfile_next(&p->w.files, f, &cur->pos, &r)) continue;
        *rec = r.rec;
        *chan = r.chan;
        return true;
    }
    return false;
}

void pipe_chan_ends(const pipeline *p, uint32_t chan, uint32_t *producer, uint32_t *consumer, uint32_t *input) {
    SIM_ASSERT(chan < p->w.cfg.graph.chans_count);
    const job_chan *c = &p->w.cfg.graph.chans[chan];
    *producer = c->producer;
    *consumer = c->consumer;
    *input = c->input;
}

void pipe_task_input(const pipeline *p, uint32_t task, uint32_t input, pipe_input_view *out) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    const rt_task *t = current_inst(p, task);
    SIM_ASSERT(input < t->jt->in_count);
    *out = (pipe_input_view){ .blocked = false };
    if (!t->deployed || !p->w.run->actors[t->actor].up) return;
    const rt_chan *c = task_in_chan(&p->tm, t, input);
    out->blocked = gate_blocked(&t->g, input);
    out->buffers = (uint32_t)(c->received - c->consumed);
    for (uint64_t n = c->consumed; n < c->received; n++) {
        const chan_buf *b = chan_slot_buf(c, CHAN_SLOT_OF(c)[n % c->ring_size]);   /* slots are taken LIFO, not in turn */
        if (b->kind == BUF_DATA) out->records += b->count;
    }
}

uint64_t pipe_retained(const pipeline *p, uint32_t i) {
    if (i >= p->jm.coord.completed_count) return 0;
    return p->jm.slots[p->jm.coord.completed_order[i]].ckpt;
}

uint32_t pipe_ckpt_task_files(const pipeline *p, uint64_t ckpt, uint32_t task) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    const rt_slot *s = slot_of(p, ckpt);
    return s == NULL ? 0 : s->chains[task].count;
}

static uint32_t task_dead_files(const pipeline *p, const rt_slot *s, uint32_t t) {
    uint32_t dead = 0;
    for (uint32_t f = 0; f < s->chains[t].count; f++) dead += !store_alive(&p->w.files, s->chains[t].files[f]);
    return dead + (s->cs_files[t] != 0 && !store_alive(&p->w.files, s->cs_files[t]));
}

uint32_t pipe_ckpt_dead_files(const pipeline *p, uint64_t ckpt) {
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL) return 0;
    uint32_t dead = 0;
    for (uint32_t t = 0; t < p->w.cfg.graph.tasks_count; t++) dead += task_dead_files(p, s, t);
    return dead;
}
