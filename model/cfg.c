/* model/cfg.c: the configuration's defaults, validation, rescale
 * schedule and derived settings (model/cfg.h): functions of a pipe_cfg
 * alone. */
#include "cfg.h"
#include "proto.h"                 /* SNAP_CHAIN_MAX, PROTO_OFFSETS_MAX */
#include "flow/window.h"
#include "../sim/choice.h"        /* CHOICE_PCT_DEPTH_MAX */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
                                .full_every = 5, .sync_ns = 10 * SIM_NS_PER_US, .changelog = false,
                                .materialize_ns = 600 * SIM_NS_PER_S,   /* periodic-materialize.interval: 10 min */
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

/* Every topic's settings, and their sums. */
static const char *cfg_check_topics(const pipe_cfg *c, char *err, size_t n) {
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
static const char *cfg_check_sources(const pipe_cfg *c, char *err, size_t n) {
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


/* The most map entries a subtask of window vertex v may need, over the
 * parallelisms the schedule gives it: what plan_keys sizes its map for,
 * so a job this passes never finds its map short (keys do not divide
 * evenly: the subtask with the most decides). */
static uint64_t window_entries_max(const pipe_cfg *c, uint32_t v) {
    const job_vertex *x = &c->graph.vertices[v];    /* every entry is keyed by the record's key (task_owner) */
    uint32_t routed[JOB_PARALLELISM_MAX] = { 0 };
    uint64_t most = 0;
    cfg_routed(c, v, job_max_parallelism(x), broker_cfg_keys(&c->broker), routed);
    for (uint32_t s = 0; s < JOB_PARALLELISM_MAX; s++) {
        uint64_t n = cfg_window_entries(c, x, routed[s]);
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

/* The most keys of [0, keys) subtask s is routed at any parallelism the
 * schedule gives vertex v (a rescale changes its key groups), into
 * routed[s]; the written one alone for a vertex never rescaled. */
void cfg_routed(const pipe_cfg *cfg, uint32_t v, uint32_t max_parallelism, uint64_t keys, uint32_t *routed) {
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

/* Map entries a window subtask that `routed` keys go to may hold: a
 * window's contents and timer per window-key touched and a late
 * aggregate per key (purged windows are zeroed, never deleted: window.h).
 * Every window of every key, or, when fewer, those the input's records
 * can touch: win_per_record windows each, whatever path brought it (a
 * record keeps its key and event time up to a window, and no window
 * feeds another). */
uint64_t cfg_window_entries(const pipe_cfg *cfg, const job_vertex *x, uint64_t routed) {
    uint64_t every = routed * (2 * win_count(x, broker_cfg_event_end(&cfg->broker)) + 1);
    uint64_t touched = 2 * broker_cfg_records(&cfg->broker) * win_per_record(x) + routed;
    return touched < every ? touched : every;
}

/* The graph a run expands: each vertex at the largest parallelism of the
 * schedule, its key groups fixed from its parallelism as written (Flink
 * keeps a job's max-parallelism across rescales), and in *start what was
 * written. */
void cfg_widen(const pipe_cfg *cfg, job *g, uint32_t *start) {
    for (uint32_t v = 0; v < g->vertices_count; v++) {
        job_vertex *x = &g->vertices[v];
        start[v] = x->parallelism;
        x->max_parallelism = job_max_parallelism(x);
        x->parallelism = pipe_parallelism_max(cfg, v);
    }
}

/* What a rescale needs (scenarios/finish.c says the same at the fault line). */
static const char *cfg_check_rescales(const pipe_cfg *c, char *err, size_t n) {
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (c->rescales_count > PIPE_RESCALES_MAX) BAD("more than %u rescales", PIPE_RESCALES_MAX);
    if (c->rescales_count == 0) return NULL;
    bool channel_state = c->ckpt.mode == PIPE_UNALIGNED || c->ckpt.alignment_timeout_ns > 0;
    for (uint32_t v = 0; v < c->graph.vertices_count && channel_state; v++) {
        if (c->graph.vertices[v].kind == JOB_SOURCE && c->graph.vertices[v].watermarks)
            BAD("rescaling with channel state (unaligned checkpoints, an alignment timeout) and event time is not "
                "modelled (watermarks in flight would have to be mapped too)");
    }
    for (uint32_t e = 0; e < c->graph.edges_count && channel_state; e++) {   /* a broadcast channel's state is its copy */
        if (c->graph.edges[e].part == JOB_BROADCAST)
            BAD("rescaling with channel state (unaligned checkpoints, an alignment timeout) and a broadcast edge is not "
                "modelled (Flink keeps broadcast edges aligned, FLINK-22815)");
    }
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
        if (handles > PIPE_RESCALE_HANDLES_MAX || (channel_state && 2 * (handles - 1) + 1 > PIPE_RESCALE_HANDLES_MAX + 1))
            BAD("%s: from parallelism %u to %u a task would read the state of more than %u old subtasks", x->name, hi,
                lo, channel_state ? (PIPE_RESCALE_HANDLES_MAX + 2) / 2 : PIPE_RESCALE_HANDLES_MAX);
        if ((handles - 1) * chain > PROTO_MORE_FILES_MAX)   /* what a deployment names */
            BAD("%s: from parallelism %u to %u a task would read %u chains of up to %u files, more than a deployment "
                "names: lower full-every", x->name, hi, lo, handles, chain);
    }
#undef BAD
    return NULL;
}

static const char *cfg_check_windows(const pipe_cfg *c, char *err, size_t n) {
    uint32_t vertex;
    return pipe_window_problem(c, &vertex, err, n);
}

/* What the changelog state backend needs (FLIP-158). */
static const char *cfg_check_changelog(const pipe_cfg *c, char *err, size_t n) {
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (!c->state.changelog) return NULL;
    if (c->state.backend != PIPE_BACKEND_DURABLE)
        BAD("the changelog state backend writes its log to durable storage: it needs 'state backend durable'");
    if (c->state.incremental)
        BAD("the changelog state backend's materializations are full snapshots here (an incremental nested backend "
            "is not modelled): drop 'incremental'");
    if (c->rescales_count > 0) BAD("rescaling with the changelog state backend is not modelled");
    if (c->state.materialize_ns == 0) BAD("a materialize interval is more than 0");
#undef BAD
    return NULL;
}

/* What a stop or cancel with a resume needs (scenarios/finish.c says the
 * same at the fault line). */
const char *pipe_stops_problem(const pipe_cfg *c, char *err, size_t n) {
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (c->stops_count > PIPE_STOPS_MAX) BAD("more than %u stops and cancels", PIPE_STOPS_MAX);
    for (uint32_t i = 0; i < c->stops_count; i++) {
        const pipe_stop *x = &c->stops[i];
        if (i > 0 && x->at_ns < c->stops[i - 1].at_ns) BAD("stops out of time order");
        if (x->how != PIPE_HALT_STOP && x->how != PIPE_HALT_CANCEL) BAD("a stop is a stop or a cancel");
        if (!x->drain && (x->claim < PIPE_CLAIM_NO_CLAIM || x->claim > PIPE_CLAIM_LEGACY)) BAD("no such restore mode");
        if (x->drain && x->how != PIPE_HALT_STOP) BAD("only a stop drains");
        if (x->drain && i + 1 < c->stops_count) BAD("a stop with drain ends the job: no stop or cancel after it");
    }
    if (c->stops_count == 0) return NULL;
    if (!c->ckpt.enabled) BAD("a resumed job starts from a savepoint or a retained checkpoint: it needs checkpoints on");
    if (c->state.backend != PIPE_BACKEND_DURABLE)
        BAD("a resumed job reads its snapshot from durable storage: it needs 'state backend durable'");
    for (uint32_t i = 0; i < c->stops_count && c->state.changelog; i++) {
        if (!c->stops[i].drain && c->stops[i].claim == PIPE_CLAIM_NO_CLAIM)   /* FLINK-38307; FLINK-40476 (docs) */
            BAD("the changelog state backend cannot take the full snapshot a NO_CLAIM resume forces (Flink fails its "
                "first checkpoint): resume in claim or legacy mode");
    }
    if (c->rescales_count > 0) BAD("a stop or cancel together with rescales is not modelled");
    for (uint32_t i = 0; i < c->stops_count; i++) {
        if (c->stops[i].how == PIPE_HALT_STOP && (c->ckpt.mode == PIPE_UNALIGNED || c->ckpt.alignment_timeout_ns > 0))
            BAD("a stop with unaligned checkpoints or an alignment timeout is not modelled (its savepoint would be aligned)");
        if (c->stops[i].drain && c->ckpt.finished_tasks_off)
            BAD("a stop with drain needs checkpoints after tasks finish (its savepoint holds the finished tasks)");
        for (uint32_t v = 0; v < c->graph.vertices_count && c->stops[i].drain; v++) {
            if (c->graph.vertices[v].watermarks)
                BAD("a stop with drain and event time is not modelled (the end of event time before its savepoint)");
        }
    }
#undef BAD
    return NULL;
}

const char *cfg_check(const pipe_cfg *c, char *err, size_t n) {
    if (job_check(&c->graph, NULL, err, n) != NULL) return err;
    if (cfg_check_rescales(c, err, n) != NULL) return err;
    if (pipe_stops_problem(c, err, n) != NULL) return err;
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (c->machines < 1 || c->machines > PIPE_MACHINES_MAX) BAD("machines %u out of range [1, %u]", c->machines, PIPE_MACHINES_MAX);
    if (c->task_slots > PIPE_TASK_SLOTS_MAX) BAD("slots %u out of range [1, %u]", c->task_slots, PIPE_TASK_SLOTS_MAX);
    for (uint32_t v = 0; v < c->graph.vertices_count && c->task_slots > 0; v++) {   /* slot sharing: one per vertex */
        if (c->graph.vertices[v].parallelism > c->machines * c->task_slots)
            BAD("vertex %s has parallelism %u, more than the %u slots of `machines %u slots %u`: raise the slots or "
                "the machines, or lower the parallelism", c->graph.vertices[v].name, c->graph.vertices[v].parallelism,
                c->machines * c->task_slots, c->machines, c->task_slots);
    }
    const char *topics = cfg_check_topics(c, err, n);
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
    if (c->pct_depth > CHOICE_PCT_DEPTH_MAX) BAD("pct depth %u out of range [1, %u]", c->pct_depth, CHOICE_PCT_DEPTH_MAX);
    if (c->ties_count > CHOICE_TIES_MAX) BAD("%u schedule tie lines, above %u", c->ties_count, CHOICE_TIES_MAX);
    for (uint32_t i = 0; i < c->ties_count && i < CHOICE_TIES_MAX; i++) {
        if (c->ties[i].at == 0 || c->ties[i].pick == 0) BAD("schedule tie: decisions and picks count from 1");
        if (i > 0 && c->ties[i].at <= c->ties[i - 1].at) BAD("schedule tie lines: decisions must increase");
    }
    if (c->pct_depth > 0 && c->ties_count > 0) BAD("schedule pct and schedule tie: one order of simultaneous events at a time");
    if (c->pct_near_ns > PIPE_PCT_NEAR_MAX_NS) BAD("pct near %" PRIu64 "ns above %" PRIu64 "ns", (uint64_t)c->pct_near_ns,
                                                 (uint64_t)PIPE_PCT_NEAR_MAX_NS);
    if (c->pct_near_ns > 0 && c->pct_depth == 0 && c->ties_count == 0 && !c->ties_counted) BAD("pct near without schedule pct");
    if (c->ckpt.alignment_timeout_ns > 0 && c->ckpt.mode != PIPE_ALIGNED)
        BAD("an alignment timeout needs aligned checkpoints");
    if (c->ckpt.mode == PIPE_UNALIGNED && c->ckpt.max_concurrent > 1)
        BAD("unaligned checkpoints allow one at a time (max-concurrent 1), as Flink does");
    if (c->ckpt.alignment_timeout_ns > 0 && c->ckpt.max_concurrent > 1)   /* they may turn unaligned */
        BAD("an alignment timeout allows one checkpoint at a time (max-concurrent 1), as Flink does");
    if (c->state.backend != PIPE_BACKEND_MEMORY && c->state.backend != PIPE_BACKEND_DURABLE) BAD("unknown state backend");
    if (c->state.full_every < 1 || c->state.full_every > SNAP_CHAIN_MAX - 1)
        BAD("full-every out of range [1, %u]", SNAP_CHAIN_MAX - 1);
    if (cfg_check_changelog(c, err, n) != NULL) return err;
    if (c->slow_count > PIPE_SLOW_MAX) BAD("more than %u slow operators", PIPE_SLOW_MAX);
    for (uint32_t i = 0; i < c->slow_count; i++) {
        if (c->slow[i].factor < 1 || c->slow[i].factor > 1000000) BAD("slow operator factor out of range [1, 1000000]");
    }
    if (c->bug >= PIPE_BUG_COUNT) BAD("unknown deliberate bug");
    rs_cfg rules = pipe_restart_rules(&c->restart);
    const char *rules_bad = rs_cfg_error(&rules);
    if (rules_bad != NULL) BAD("restart strategy: %s", rules_bad);
    const char *sources = cfg_check_sources(c, err, n);
    if (sources != NULL) return sources;
    const char *windows = cfg_check_windows(c, err, n);
    if (windows != NULL) return windows;
    if (c->faults_count > PIPE_FAULTS_MAX) BAD("more than %u faults", PIPE_FAULTS_MAX);
#undef BAD
    return NULL;
}
