/* model/pipe.c: the assembly: building a job run from its plan
 * (model/plan.c, which validated the configuration with cfg_check):
 * machines, actors, links, checkpoint slots and scripted faults in the
 * one arena, and running it. */
#include "pipe_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(GATE_CHANNELS_MAX >= JOB_TASK_CHANNELS_MAX, "a task's inputs are its gate's channels");

/* ---- building ---------------------------------------------------------------- */

/* A sink's transaction log (the external system's: one per task, shared
 * by its instances) and a Sink V2 committer's collector (its instance's). */
static void build_sink(pipeline *p, const plan *pl, rt_task *k, uint32_t h) {
    const job *j = &p->w.cfg.graph;
    uint32_t inst = k->inst;
    bool txns = k->v->kind == JOB_SINK && (k->v->sink == JOB_SINK_2PC || k->v->sink == JOB_SINK_V2);
    if (k->v->kind == JOB_COMMITTER) {             /* its collector, and a copy per snapshot */
        k->cmt_cap = sinkv2_cap(j, k->jt->vertex);
        k->cmt = sim_alloc(p->w.run, sizeof(rt_cmt) * k->cmt_cap * (PIPE_CONCURRENT_MAX + 2), _Alignof(rt_cmt));
    }
    if (txns && h > 0) {                          /* the external system's: one log per task, whichever instance */
        k->txlog = p->tm.tasks[inst - h].txlog;
    } else if (txns) {
        k->txlog = sim_alloc(p->w.run, sizeof(rt_txlog), _Alignof(rt_txlog));
        k->txlog->cap = plan_txlog_cap(pl, k->jt->vertex);
        k->txlog->recs = sim_alloc(p->w.run, sizeof(uint32_t) * k->txlog->cap, 4);
        if (pl->results > 0) k->txlog->vals = sim_alloc(p->w.run, sizeof(int64_t) * k->txlog->cap, 8);
    }
}

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
    k->stateful = plan_keyed_kind(k->v->kind);
    if (k->stateful) {                            /* with a changelog, one more snapshot: its materialization */
        bool clog = p->w.cfg.state.changelog;
        uint32_t snaps = clog && pl->snaps < KSTATE_SNAPS_MAX ? pl->snaps + 1 : pl->snaps;
        kstate_init_versioned(&k->state, p->w.run, pl->task_keys[t], snaps);
        kstate_owner own = plan_task_owner(j, t);
        kstate_own(&k->state, &own);
        if (clog) {
            k->clog = sim_alloc(p->w.run, sizeof(rt_clog), _Alignof(rt_clog));
            k->clog->mat_snap = UINT32_MAX;
        }
    }
    for (uint32_t i = 0; i < PIPE_CONCURRENT_MAX + 1; i++) k->snaps[i].ksnap = UINT32_MAX;
    build_sink(p, pl, k, h);
    if (k->v->kind == JOB_SOURCE) {
        broker_topic_cfg tc = broker_cfg_topic(&cfg->broker, k->v->topic);
        k->parts_first = broker_cfg_first(&cfg->broker, k->v->topic) + k->jt->subtask;
        k->parts_stride = k->v->parallelism;      /* its deployment names the attempt's */
        k->parts_count = (tc.partitions - k->jt->subtask + k->v->parallelism - 1) / k->v->parallelism;
        uint32_t lo = pipe_parallelism_min(&p->w.cfg, k->jt->vertex);   /* the most it reads over a rescale schedule */
        k->parts_cap = k->jt->subtask < tc.partitions ? (tc.partitions - k->jt->subtask + lo - 1) / lo : 0;
        k->snap_offsets = sim_alloc(p->w.run, sizeof(uint64_t) * (PIPE_CONCURRENT_MAX + 1) * k->parts_cap, 8);
        k->read_at = sim_alloc(p->w.run, sizeof(uint64_t) * p->w.brk.partitions, 8);
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
static void alloc_entry(pipeline *p, const plan *pl, ha_entry *e) {
    e->chains = sim_alloc(p->w.run, sizeof(rt_chain) * pl->tasks, _Alignof(rt_chain));
    e->cs_files = sim_alloc(p->w.run, sizeof(uint64_t) * pl->tasks, 8);
    e->offsets = sim_alloc(p->w.run, sizeof(uint64_t) * p->w.brk.partitions, 8);
    e->splits = sim_alloc(p->w.run, p->w.brk.partitions, 1);
}

/* ... and with stops, the user's snapshot to resume from (world.h). */
static void build_ha(pipeline *p, const plan *pl) {
    ha_store *h = &p->w.ha;
    h->cap = p->w.cfg.ckpt.retained + 2;
    h->entries = sim_alloc(p->w.run, sizeof(ha_entry) * h->cap, _Alignof(ha_entry));
    for (uint32_t i = 0; i < h->cap; i++) alloc_entry(p, pl, &h->entries[i]);
    if (p->w.cfg.stops_count > 0) {
        alloc_entry(p, pl, &p->w.client.snap);
        alloc_entry(p, pl, &p->w.client.orphan);
        p->w.client.end_offsets = NULL;           /* set from the drained savepoint's, when one ends the job */
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
    w->res_most = sim_alloc(w->run, sizeof(int64_t) * (w->res_count + 1), 8);
}

static pipeline *build(plan *pl, const pipe_cfg *cfg, sim_run *run) {
    pipeline *p = sim_alloc(run, sizeof *p, _Alignof(pipeline));
    p->w.cfg = *cfg;
    cfg_widen(cfg, &p->w.cfg.graph, p->w.cfg.start_parallelism);
    job_expand(&p->w.cfg.graph, cfg->machines, &run->arena);   /* as the plan's, in the run's memory */
    /* The bug no-alignment never blocks: nothing waits, so nothing times out. */
    if (cfg->bug == PIPE_BUG_NO_ALIGNMENT) p->w.cfg.ckpt.alignment_timeout_ns = 0;
    p->w.run = run;
    p->tm.w = &p->w;
    p->jm.w = &p->w;
    broker_init(&p->w.brk, run, &cfg->broker);
    p->tm.hosts = pl->hosts;
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
    if (cfg->pct_depth > 0 && cfg->pct_steps == 0) {   /* what the run takes depends on the caller's faults */
        snprintf(err, err_bytes, "schedule pct without its steps: count the run's order decisions first (cli_pct_resolve)");
        return NULL;
    }
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
    if (cfg->ties_count > 0 || cfg->ties_counted) {   /* the order of simultaneous events, but for the ties' decisions */
        p->tie = (choice_deviation){ .count = cfg->ties_count };
        memcpy(p->tie.ties, cfg->ties, sizeof p->tie.ties);
        choice_deviate(run, &p->tie);
    }
    if (cfg->pct_depth > 0) {
        uint64_t *prio = sim_alloc(run, sizeof(uint64_t) * ((size_t)run->cfg.actors_max + 1), 8);
        choice_pct_install(run, &p->pct, cfg->pct_depth, cfg->pct_steps, prio);
    }
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

sim_run *pipe_sim(pipeline *p) { return p->w.run; }

bool pipe_tie_applied(const pipeline *p, uint32_t *first) {
    return p->w.cfg.ties_count == 0 || choice_deviation_applied(&p->tie, first);
}

uint64_t pipe_tie_decisions(const pipeline *p) { return p->w.cfg.pct_depth > 0 ? p->pct.seen : p->tie.seen; }

const choice_pct *pipe_pct(const pipeline *p) { return p->w.cfg.pct_depth > 0 ? &p->pct : NULL; }
