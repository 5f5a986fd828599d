/* model/pipe.c: building a job run: validation, sizing of the one arena,
 * machines, actors, links, checkpoint slots and scripted faults. */
#include "pipe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    c->restart = (pipe_restart_cfg){ .kind = PIPE_RESTART_FIXED_DELAY, .attempts = 10,
                                    .delay_ns = 100 * SIM_NS_PER_MS, .max_failures = 3,
                                    .interval_ns = 60 * SIM_NS_PER_S, .initial_ns = 100 * SIM_NS_PER_MS,
                                    .max_ns = 10 * SIM_NS_PER_S, .multiplier_milli = 2000,
                                    .reset_ns = 60 * SIM_NS_PER_S };
    c->machines = 2;
    c->latency_ns = 50 * SIM_NS_PER_US;
    c->jitter_ns = 10 * SIM_NS_PER_US;
    c->bandwidth_bytes_per_s = 1250000000ull;    /* 10 Gbit/s */
    c->rpc_latency_ns = 200 * SIM_NS_PER_US;
    c->credits = 4;
    c->out_queue = 2;
    c->buffer_timeout_ns = SIM_NS_PER_MS;
    c->time_max_ns = 3600 * SIM_NS_PER_S;
    c->events_max = 2000000000ull;
}

const char *pipe_ckpt_end_name(pipe_ckpt_end e) {
    switch (e) {
    case PIPE_CKPT_PENDING:    return "pending";
    case PIPE_CKPT_COMPLETED:  return "completed";
    case PIPE_CKPT_DECLINED:   return "declined";
    case PIPE_CKPT_TIMED_OUT:  return "timed-out";
    case PIPE_CKPT_SUBSUMED:   return "subsumed";
    case PIPE_CKPT_JOB_FAILED: return "job-failed";
    }
    return "?";
}

const pipe_ckpt_rec *pipe_history(const pipeline *p, uint32_t *count) {
    *count = p->history_count;
    return p->history;
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

static const char *check_cfg(const pipe_cfg *c, char *err, size_t n) {
    if (job_check(&c->graph, NULL, err, n) != NULL) return err;
#define BAD(...) return snprintf(err, n, __VA_ARGS__), err
    if (c->machines < 1 || c->machines > PIPE_MACHINES_MAX) BAD("machines %u out of range [1, %u]", c->machines, PIPE_MACHINES_MAX);
    if (c->broker.partitions < 1 || c->broker.partitions > BROKER_PARTITIONS_MAX) BAD("partitions out of range");
    if (c->broker.keys < 1 || c->broker.keys > BROKER_KEYS_MAX) BAD("keys out of range [1, %u]", BROKER_KEYS_MAX);
    if ((unsigned __int128)c->broker.partitions * c->broker.records_per_partition > (1u << 30))
        BAD("at most 2^30 records in all (the sinks count each one)");
    if (c->credits < 1 || c->credits > 64) BAD("credits out of range [1, 64]");
    if (c->out_queue < 1 || c->out_queue > 64) BAD("out_queue out of range [1, 64]");
    if (c->latency_ns == 0 || c->rpc_latency_ns == 0) BAD("link latencies must be above 0");
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
    if (c->restart.kind == PIPE_RESTART_EXPONENTIAL && (c->restart.multiplier_milli < 1000 || c->restart.initial_ns == 0))
        BAD("exponential restart needs a multiplier >= 1 and an initial delay > 0");
    for (uint32_t v = 0; v < c->graph.vertices_count; v++) {   /* job_check saw to one source vertex */
        if (c->graph.vertices[v].kind == JOB_SOURCE && c->graph.vertices[v].parallelism > c->broker.partitions)
            BAD("%s: parallelism %u above the %u partitions (a source task would read nothing)",
                c->graph.vertices[v].name, c->graph.vertices[v].parallelism, c->broker.partitions);
    }
    if (c->faults_count > PIPE_FAULTS_MAX) BAD("more than %u faults", PIPE_FAULTS_MAX);
#undef BAD
    return NULL;
}

pipeline *pipe_create(const pipe_cfg *cfg, char *err, size_t err_bytes) {
    if (check_cfg(cfg, err, err_bytes) != NULL) return NULL;
    job *graph = malloc(sizeof *graph);               /* ~280 KB: not on the stack */
    if (graph == NULL) {
        snprintf(err, err_bytes, "out of memory");
        return NULL;
    }
    *graph = cfg->graph;
    job_expand(graph, cfg->machines);
    uint32_t tasks = graph->tasks_count, chans = graph->chans_count;
    uint32_t ring = cfg->credits + cfg->out_queue + 3;
    uint32_t slots = cfg->ckpt.retained + cfg->ckpt.max_concurrent + 1;
    uint64_t keys = cfg->broker.keys * 2;             /* a join tags keys by input */
    uint64_t records = (uint64_t)cfg->broker.partitions * cfg->broker.records_per_partition;
    uint32_t stateful = 0;
    for (uint32_t t = 0; t < tasks; t++) {
        job_kind k = graph->vertices[graph->tasks[t].vertex].kind;
        stateful += k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN;
    }
    uint64_t cap = 8;
    while (cap < keys * KSTATE_LOAD_DEN / KSTATE_LOAD_NUM + 1) cap *= 2;
    /* Snapshots a task may hold at once: the concurrent checkpoints, one
     * whose abort notice is still on its way, and one more; a trigger
     * beyond that declines (model/snap.c). */
    uint32_t snaps = cfg->ckpt.max_concurrent + 2 < KSTATE_SNAPS_MAX ? cfg->ckpt.max_concurrent + 2 : KSTATE_SNAPS_MAX;
    uint64_t kstate_bytes = cap * (sizeof(uint64_t) + sizeof(kagg) + 4 + (uint64_t)snaps * (sizeof(kshadow) + 4)) + 64;
    /* The backend's files: every live checkpoint (retained, pending, one
     * finishing) holds a chain per stateful task; entries are bounded by
     * (slots + 2) full copies of every key, twice over for increments. */
    uint32_t files_max = stateful * (slots + PIPE_CONCURRENT_MAX + 3) * (cfg->state.full_every + 1) + 16;
    uint64_t entries_max = (uint64_t)stateful * keys * (slots + 2) * 2 + 1024;
    uint64_t store_bytes = store_arena_bytes(files_max, entries_max);
    /* Channel state per checkpoint: every channel's ring at both ends. */
    bool unaligned = cfg->ckpt.mode == PIPE_UNALIGNED || cfg->ckpt.alignment_timeout_ns > 0;
    uint64_t cs_cap = unaligned ? (uint64_t)chans * ring * 2 * CHAN_BUF_RECORDS : 0;
    /* A two-phase-commit sink task holds at most every copy of every record
     * that reaches its vertex in one attempt: copies(v) sums over v's
     * inputs, times the parallelism of v for a broadcast edge. */
    uint64_t copies[JOB_VERTICES_MAX] = { 0 }, txlog_bytes = 0;
    for (uint32_t v = 0; v < graph->vertices_count; v++) {   /* edges go from earlier to later vertices */
        uint64_t n = graph->vertices[v].kind == JOB_SOURCE;
        for (uint32_t e = 0; e < graph->edges_count; e++) {
            const job_edge *x = &graph->edges[e];
            if (x->to != v) continue;
            n += copies[x->from] * (x->part == JOB_BROADCAST ? graph->vertices[v].parallelism : 1);
            if (n > 1024) n = 1024;               /* beyond: the memory check refuses it */
        }
        copies[v] = n;
    }
    for (uint32_t t = 0; t < tasks; t++) {
        const job_vertex *v = &graph->vertices[graph->tasks[t].vertex];
        if (v->kind == JOB_SINK && v->sink == JOB_SINK_2PC) {
            txlog_bytes += sizeof(rt_txlog) + (records * copies[graph->tasks[t].vertex] + 1) * sizeof(uint32_t) + 16;
        }
    }
    uint64_t model_bytes = sizeof(pipeline) + (uint64_t)tasks * sizeof(rt_task) + (uint64_t)chans * sizeof(rt_chan)
                         + (uint64_t)chans * ring * sizeof(chan_buf)
                         + (uint64_t)stateful * kstate_bytes + store_bytes + txlog_bytes
                         + (uint64_t)slots * (sizeof(rt_slot) + tasks * (1 + sizeof(rt_chain)) + cfg->broker.partitions * 8
                                              + cs_cap * sizeof(rt_cs_rec) + 64)
                         + records + cfg->broker.partitions * 8 + tasks * 8 + cfg->broker.keys * 8
                         + PIPE_HISTORY_MAX * sizeof(pipe_ckpt_rec) + (1u << 20);
    if (model_bytes > (16ull << 30)) {
        snprintf(err, err_bytes, "the job needs %llu MiB of memory, more than 16 GiB",
                 (unsigned long long)(model_bytes >> 20));
        free(graph);
        return NULL;
    }
    sim_cfg sc = sim_cfg_default(cfg->seed);
    sc.actors_max = tasks + 1;
    sc.machines_max = cfg->machines + 1;
    sc.links_max = chans * 2 + tasks * 3;
    sc.timers_max = tasks * (8 + 2 * snaps) + cfg->ckpt.max_concurrent * 4 + 64;
    sc.devs_max = 2;
    sc.faults_max = cfg->faults_count + PIPE_FAULTS_MAX;   /* room for faults added at run time */
    sc.events_pending_max = chans * (ring + 4) + tasks * 16 + 4096;
    sc.events_max = cfg->events_max;
    sc.time_max_ns = cfg->time_max_ns;
    sc.model_bytes = (size_t)model_bytes;
    sim_run *run = sim_run_create(&sc);
    if (run == NULL) {
        snprintf(err, err_bytes, "out of memory (%llu MiB)", (unsigned long long)(model_bytes >> 20));
        free(graph);
        return NULL;
    }
    pipeline *p = sim_alloc(run, sizeof *p, _Alignof(pipeline));
    p->cfg = *cfg;
    p->cfg.graph = *graph;                             /* expanded */
    free(graph);
    /* The bug no-alignment never blocks: nothing waits, so nothing times out. */
    if (cfg->bug == PIPE_BUG_NO_ALIGNMENT) p->cfg.ckpt.alignment_timeout_ns = 0;
    p->run = run;
    broker_init(&p->brk, run, &cfg->broker);
    p->offsets = sim_alloc(run, sizeof(uint64_t) * cfg->broker.partitions, 8);
    p->sink_seen = sim_alloc(run, records > 0 ? records : 1, 1);
    p->tasks = sim_alloc(run, sizeof(rt_task) * tasks, _Alignof(rt_task));
    p->chans = sim_alloc(run, sizeof(rt_chan) * (chans ? chans : 1), _Alignof(rt_chan));
    const job *j = &p->cfg.graph;

    for (uint32_t m = 0; m < cfg->machines; m++) {
        char name[SIM_NAME_BYTES];
        snprintf(name, sizeof name, "tm%u", m);
        sim_machine_add(run, name);
    }
    uint32_t jm = sim_machine_add(run, "jm");
    for (uint32_t t = 0; t < tasks; t++) {
        rt_task *k = &p->tasks[t];
        k->owner = p;
        k->id = t;
        k->jt = &j->tasks[t];
        k->v = &j->vertices[k->jt->vertex];
        k->stateful = k->v->kind == JOB_KEYED_AGG || k->v->kind == JOB_KEYED_JOIN;
        if (k->stateful) kstate_init_versioned(&k->state, run, (uint32_t)keys, snaps);
        for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) k->snaps[i].ksnap = UINT32_MAX;
        if (k->v->kind == JOB_SINK && k->v->sink == JOB_SINK_2PC) {
            k->txlog = sim_alloc(run, sizeof(rt_txlog), _Alignof(rt_txlog));
            k->txlog->cap = records * copies[k->jt->vertex] + 1;
            k->txlog->recs = sim_alloc(run, sizeof(uint32_t) * k->txlog->cap, 4);
        }
        if (k->v->kind == JOB_SOURCE) {
            k->parts_count = (cfg->broker.partitions - k->jt->subtask + k->v->parallelism - 1) / k->v->parallelism;
        }
        for (uint32_t e = 0; e < j->edges_count; e++) {   /* outputs grouped by edge, in order */
            if (j->edges[e].from != k->jt->vertex) continue;
            uint32_t first = UINT32_MAX, count = 0;
            for (uint32_t i = 0; i < k->jt->out_count; i++) {
                if (j->chans[j->out_chan[k->jt->out_first + i]].edge != e) continue;
                if (first == UINT32_MAX) first = i;
                count++;
            }
            k->out_edges[k->out_edges_count++] = (rt_out_edge){ .part = j->edges[e].part, .first = first, .count = count };
        }
        char name[SIM_NAME_BYTES + 16];          /* sim_actor_add truncates to a label */
        snprintf(name, sizeof name, "%s[%u]", k->v->name, k->jt->subtask);
        k->actor = sim_actor_add(run, name, k->jt->machine, task_on_event, k);
        SIM_ASSERT(k->actor == t);
    }
    p->coord.actor = sim_actor_add(run, "coordinator", jm, coord_on_event, p);
    p->coord.machine = jm;
    p->store_dev = dev_add(run, "store", &cfg->state.store);
    store_init(&p->files, run, files_max, entries_max);
    p->snaps_max = snaps;
    p->memory_dev = dev_add(run, "jm-memory", &cfg->state.memory);
    p->coord.rpc_to_task = sim_alloc(run, sizeof(uint32_t) * tasks, 4);
    p->coord.finished = sim_alloc(run, tasks, 1);
    p->coord.deploy_inc = sim_alloc(run, sizeof(uint32_t) * tasks, 4);
    p->coord.deploy_gen = sim_alloc(run, sizeof(uint32_t) * tasks, 4);
    p->coord.next_ckpt = 1;
    p->coord.status = PIPE_RUNNING;
    for (uint32_t t = 0; t < tasks; t++) p->coord.sources_running += p->tasks[t].v->kind == JOB_SOURCE;

    link_cfg data = { .kind = LINK_STREAM, .latency_ns = cfg->latency_ns, .jitter_ns = cfg->jitter_ns,
                      .bandwidth_bytes_per_s = cfg->bandwidth_bytes_per_s };
    link_cfg rpc = { .kind = LINK_RPC, .latency_ns = cfg->rpc_latency_ns };
    for (uint32_t c = 0; c < chans; c++) {
        rt_chan *x = &p->chans[c];
        const job_chan *jc = &j->chans[c];
        x->id = c;
        x->producer = jc->producer;
        x->consumer = jc->consumer;
        x->gate_index = jc->gate_index;
        x->input = jc->input;
        x->ring_size = ring;
        x->ring = sim_alloc(run, sizeof(chan_buf) * ring, _Alignof(chan_buf));
        x->data_link = link_add(run, p->tasks[jc->producer].actor, p->tasks[jc->consumer].actor, &data);
        x->credit_link = link_add(run, p->tasks[jc->consumer].actor, p->tasks[jc->producer].actor, &data);
    }
    for (uint32_t t = 0; t < tasks; t++) {
        p->tasks[t].rpc_to_coord = link_add(run, p->tasks[t].actor, p->coord.actor, &rpc);
        p->coord.rpc_to_task[t] = link_add(run, p->coord.actor, p->tasks[t].actor, &rpc);
        /* The TaskManager's connection to the JobManager: a crash or a
         * partition breaks it, and the coordinator hears of it. */
        link_cfg conn = { .kind = LINK_STREAM, .latency_ns = cfg->rpc_latency_ns };
        p->tasks[t].conn_to_coord = link_add(run, p->tasks[t].actor, p->coord.actor, &conn);
    }
    p->slots_count = slots;
    p->slots = sim_alloc(run, sizeof(rt_slot) * slots, _Alignof(rt_slot));
    for (uint32_t s = 0; s < slots; s++) {
        rt_slot *x = &p->slots[s];
        x->acked = sim_alloc(run, tasks, 1);
        x->offsets = sim_alloc(run, sizeof(uint64_t) * cfg->broker.partitions, 8);
        x->chains = sim_alloc(run, sizeof(rt_chain) * tasks, _Alignof(rt_chain));
        x->cs_cap = (uint32_t)cs_cap;
        if (cs_cap > 0) x->cs = sim_alloc(run, sizeof(rt_cs_rec) * cs_cap, _Alignof(rt_cs_rec));
    }
    p->history = sim_alloc(run, sizeof(pipe_ckpt_rec) * PIPE_HISTORY_MAX, _Alignof(pipe_ckpt_rec));
    for (uint32_t f = 0; f < cfg->faults_count; f++) fault_add(run, &cfg->faults[f]);
    return p;
}

void pipe_destroy(pipeline *p) {
    if (p != NULL) sim_run_destroy(p->run);
}

sim_stop_reason pipe_run(pipeline *p) {
    if (!p->run->started) sim_run_start(p->run);
    return sim_run_loop(p->run);
}

bool pipe_add_slow(pipeline *p, const pipe_slow *w) {
    SIM_ASSERT(w->task < p->cfg.graph.tasks_count && w->factor >= 1);
    if (p->cfg.slow_count == PIPE_SLOW_MAX) return false;
    p->cfg.slow[p->cfg.slow_count++] = *w;
    return true;
}

void pipe_observe(pipeline *p, pipe_observe_fn fn, void *ctx) {
    SIM_ASSERT(fn != NULL);
    SIM_ASSERT(p->observers < PIPE_OBSERVERS_MAX);
    p->observe[p->observers] = fn;
    p->observe_ctx[p->observers] = ctx;
    p->observers++;
}

void pipe_note_ev(pipeline *p, pipe_event *e) {
    if (p->observers == 0) return;
    e->at_ns = p->run->now_ns;
    e->epoch = p->coord.epoch;
    for (uint32_t i = 0; i < p->observers; i++) p->observe[i](p->observe_ctx[i], e);   /* in registration order */
}

/* Control steps at a task with inputs also say what its gate blocks. */
static bool shows_gate(pipe_ev_kind kind) {
    return kind == PIPE_EV_BARRIER || kind == PIPE_EV_CANCEL || kind == PIPE_EV_END || kind == PIPE_EV_TRIGGER ||
           kind == PIPE_EV_DECLINE;
}

void pipe_note(pipeline *p, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt) {
    pipe_note_barrier(p, kind, task, channel, ckpt, false);
}

void pipe_note_barrier(pipeline *p, pipe_ev_kind kind, uint32_t task, uint32_t channel, uint64_t ckpt, bool priority) {
    if (p->observers == 0) return;
    pipe_event e = { .kind = kind, .task = task, .channel = channel, .ckpt = ckpt, .chan = PIPE_NO_CHAN, .priority = priority };
    if (task != PIPE_NO_TASK && shows_gate(kind) && p->tasks[task].jt->in_count > 0) {
        const rt_task *t = &p->tasks[task];
        for (uint32_t i = 0; i < t->jt->in_count; i++) {
            if (!gate_blocked(&t->g, i)) continue;
            const rt_chan *c = &p->chans[p->cfg.graph.in_chan[t->jt->in_first + i]];
            e.blocked++;
            e.waiting += (uint32_t)(c->received - c->consumed);
        }
        if (kind != PIPE_EV_TRIGGER && kind != PIPE_EV_DECLINE) e.chan = p->cfg.graph.in_chan[t->jt->in_first + channel];
    }
    pipe_note_ev(p, &e);
}

sim_run *pipe_sim(pipeline *p) { return p->run; }
pipe_status pipe_get_status(const pipeline *p) { return p->coord.status; }
const pipe_stats *pipe_get_stats(const pipeline *p) { return &p->stats; }
const job *pipe_job(const pipeline *p) { return &p->cfg.graph; }

uint64_t pipe_restore_ckpt(const pipeline *p) {
    const rt_slot *s = coord_restore(p);
    return s == NULL ? 0 : s->ckpt;
}

uint32_t pipe_task_actor(const pipeline *p, uint32_t task) {
    SIM_ASSERT(task < p->cfg.graph.tasks_count);
    return p->tasks[task].actor;
}

uint32_t pipe_task_rpc_link(const pipeline *p, uint32_t task) {
    SIM_ASSERT(task < p->cfg.graph.tasks_count);
    return p->tasks[task].rpc_to_coord;
}

uint32_t pipe_coord_actor(const pipeline *p) { return p->coord.actor; }
uint32_t pipe_coord_machine(const pipeline *p) { return p->coord.machine; }
uint32_t pipe_store_dev(const pipeline *p) { return p->store_dev; }

uint32_t pipe_chan_link(const pipeline *p, uint32_t producer, uint32_t consumer) {
    for (uint32_t c = 0; c < p->cfg.graph.chans_count; c++) {
        if (p->chans[c].producer == producer && p->chans[c].consumer == consumer) return p->chans[c].data_link;
    }
    return UINT32_MAX;
}

void pipe_vertex_state(const pipeline *p, uint32_t vertex, kstate *out) {
    kstate_clear(out);
    const job *j = pipe_job(p);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        if (j->tasks[t].vertex != vertex || !p->tasks[t].stateful) continue;
        uint32_t slot = 0;
        uint64_t key;
        kagg agg;
        while (kstate_next(&p->tasks[t].state, &slot, &key, &agg)) {
            kagg *o = kstate_upsert(out, key);
            o->count += agg.count;
            o->sum = (int64_t)((uint64_t)o->sum + (uint64_t)agg.sum);
            o->fingerprint += agg.fingerprint;
        }
    }
}

uint32_t pipe_sink_count(const pipeline *p, uint32_t partition, uint64_t offset) {
    SIM_ASSERT(partition < p->brk.cfg.partitions && offset < p->brk.cfg.records_per_partition);
    uint8_t v = p->sink_seen[(uint64_t)partition * p->brk.cfg.records_per_partition + offset];
    return (uint32_t)(v & 0x7f) + (v >> 7);              /* see model/sinktx.c */
}

void pipe_compare_output(const pipeline *a, const pipeline *b, pipe_output_diff *out) {
    SIM_ASSERT(a->brk.cfg.partitions == b->brk.cfg.partitions);
    SIM_ASSERT(a->brk.cfg.records_per_partition == b->brk.cfg.records_per_partition);
    memset(out, 0, sizeof *out);
    uint64_t per = a->brk.cfg.records_per_partition;
    uint64_t n = (uint64_t)a->brk.cfg.partitions * per;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t x = (a->sink_seen[i] & 0x7fu) + (a->sink_seen[i] >> 7), y = (b->sink_seen[i] & 0x7fu) + (b->sink_seen[i] >> 7);
        out->records += x > 0;
        uint64_t id = (i / per) << 40 | (i % per);
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
    /* Scratch memory outside both runs: a small run of its own. */
    sim_cfg sc = sim_cfg_default(0);
    uint64_t keys = a->cfg.broker.keys * 2;
    sc.model_bytes = (size_t)(2 * ((keys * 4 / 3 * 2 + 16) * (sizeof(uint64_t) + sizeof(kagg))) + 4096);
    sim_run *scratch = sim_run_create(&sc);
    SIM_ASSERT(scratch != NULL);
    kstate x, y;
    kstate_init(&x, scratch, (uint32_t)keys);
    kstate_init(&y, scratch, (uint32_t)keys);
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
    sim_run_destroy(scratch);
    return out->equal;
}

/* ---- read-only views for checkers ------------------------------------------ */

const broker *pipe_broker(const pipeline *p) { return &p->brk; }
const pipe_cfg *pipe_config(const pipeline *p) { return &p->cfg; }

static const rt_slot *slot_of(const pipeline *p, uint64_t ckpt) {
    if (ckpt == 0) return NULL;
    for (uint32_t i = 0; i < p->slots_count; i++) {
        if (p->slots[i].ckpt == ckpt) return &p->slots[i];
    }
    return NULL;
}

const uint64_t *pipe_ckpt_offsets(const pipeline *p, uint64_t ckpt) {
    const rt_slot *s = slot_of(p, ckpt);
    return s == NULL ? NULL : s->offsets;
}

bool pipe_ckpt_task_state(const pipeline *p, uint64_t ckpt, uint32_t task, kstate *out, uint32_t *files) {
    SIM_ASSERT(task < p->cfg.graph.tasks_count);
    kstate_clear(out);
    *files = 0;
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL) return false;
    const rt_chain *c = &s->chains[task];
    *files = c->count;
    if (c->count == 0) return true;
    for (uint32_t i = 0; i < c->count; i++) {
        if (!store_alive(&p->files, c->files[i])) return false;
    }
    return store_restore(&p->files, c->files, c->count, out);
}

bool pipe_ckpt_inflight(const pipeline *p, uint64_t ckpt, uint32_t i, model_rec *rec, uint32_t *chan) {
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL || i >= s->cs_count) return false;
    *rec = s->cs[i].rec;
    *chan = s->cs[i].chan;
    return true;
}

void pipe_chan_ends(const pipeline *p, uint32_t chan, uint32_t *producer, uint32_t *consumer, uint32_t *input) {
    SIM_ASSERT(chan < p->cfg.graph.chans_count);
    *producer = p->chans[chan].producer;
    *consumer = p->chans[chan].consumer;
    *input = p->chans[chan].input;
}

uint64_t pipe_retained(const pipeline *p, uint32_t i) {
    if (i >= p->coord.completed_count) return 0;
    return p->slots[p->coord.completed_order[i]].ckpt;
}

uint32_t pipe_ckpt_task_files(const pipeline *p, uint64_t ckpt, uint32_t task) {
    SIM_ASSERT(task < p->cfg.graph.tasks_count);
    const rt_slot *s = slot_of(p, ckpt);
    return s == NULL ? 0 : s->chains[task].count;
}

uint32_t pipe_ckpt_dead_files(const pipeline *p, uint64_t ckpt) {
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL) return 0;
    uint32_t dead = 0;
    for (uint32_t t = 0; t < p->cfg.graph.tasks_count; t++) {
        for (uint32_t f = 0; f < s->chains[t].count; f++) dead += !store_alive(&p->files, s->chains[t].files[f]);
    }
    return dead;
}
