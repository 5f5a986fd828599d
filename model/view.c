/* model/view.c: the read-only views of a run (model/view.h). */
#include "pipe_int.h"

#include <string.h>

const pipe_ckpt_rec *pipe_history(const pipeline *p, uint32_t *count) {
    *count = p->jm.history_count;
    return p->jm.history;
}

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

/* Over the subtasks of the parallelism the coordinator last deployed:
 * a subtask a rescale left out may keep the map of its finished attempt
 * (snap_clear), which no longer counts. */
void pipe_vertex_state(const pipeline *p, uint32_t vertex, kstate *out) {
    kstate_clear(out);
    const job *j = pipe_job(p);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        const rt_task *x = current_inst(p, t);
        if (j->tasks[t].vertex != vertex || !x->stateful || j->tasks[t].subtask >= p->jm.coord.par[vertex]) continue;
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

bool pipe_result_most(const pipeline *p, uint32_t v, uint64_t key, uint64_t wi, int64_t *value) {
    uint64_t k = world_result_wkey(&p->w, win_result_id(v, key, wi, 0));
    if (p->w.res_top[k] == 0) return false;
    *value = p->w.res_most[k];
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
    if (t->life == LIFE_FREE || !p->w.run->actors[t->actor].up) return;
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

uint32_t pipe_ckpt_task_file_ids(const pipeline *p, uint64_t ckpt, uint32_t task, uint64_t *out, uint32_t max) {
    SIM_ASSERT(task < p->w.cfg.graph.tasks_count);
    const rt_slot *s = slot_of(p, ckpt);
    uint32_t n = 0;
    for (uint32_t i = 0; s != NULL && i < s->chains[task].count && n < max; i++) out[n++] = s->chains[task].files[i];
    if (s != NULL && s->cs_files[task] != 0 && n < max) out[n++] = s->cs_files[task];
    return n;
}

bool pipe_file_alive(const pipeline *p, uint64_t file) { return store_alive(&p->w.files, file); }

uint32_t pipe_stops_done(const pipeline *p) { return p->w.client.stops_done; }

const uint64_t *pipe_end_offsets(const pipeline *p) { return p->w.client.end_offsets; }

uint32_t pipe_ckpt_dead_files(const pipeline *p, uint64_t ckpt) {
    const rt_slot *s = slot_of(p, ckpt);
    if (s == NULL) return 0;
    uint32_t dead = 0;
    for (uint32_t t = 0; t < p->w.cfg.graph.tasks_count; t++) dead += task_dead_files(p, s, t);
    return dead;
}

const uint64_t *pipe_reached(const pipeline *p) { return p->w.reach; }
