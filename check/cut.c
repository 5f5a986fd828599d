/* check/cut.c: invariant I2, the consistent cut, at every completed
 * checkpoint (exactly-once modes).
 *
 * Checkpoint n claims that its snapshots are the state of a failure-free
 * run after consuming exactly the source prefixes S_n. The checker folds
 * those prefixes through the specification (check/spec.h) into `expected`
 * and compares with the checkpoint's side, read from the backend: the
 * keyed-state files of every task of a vertex, merged, plus the in-flight
 * records its unaligned snapshots stored as channel state, folded on from
 * the channel's consumer (they are part of the cut: a restore replays
 * them).
 *
 * The expected state is the checkers' shared prefix fold (check_int.h),
 * advanced to the checkpoint's offsets.
 *
 * Rescaling: a checkpoint is taken at the parallelism of its attempt
 * (the coordinator's RESCALED steps, which restart.c holds to the
 * schedule), and each task's file holds only keys of its key groups at
 * that parallelism (check_key_owner): the first one that is not is a
 * violation, as the restore of a rescaled task would give it to another. */
#include "check_int.h"

#include <inttypes.h>
#include <string.h>

typedef struct cut {
    const check_ctx *c;
    bool      on;
    kstate    actual[JOB_VERTICES_MAX];
    kstate    scratch;
    uint32_t  par[JOB_VERTICES_MAX];
} cut;

static void *create(const check_ctx *c) {
    cut *k = ARENA_NEW(c->mem, cut, 1);
    k->c = c;
    k->on = c->cfg->ckpt.enabled && c->cfg->ckpt.mode != PIPE_AT_LEAST_ONCE;
    c->report->applies[CHECK_I2] = k->on;
    if (!k->on) return k;
    check_maps(c, k->actual);
    kstate_init_in(&k->scratch, c->mem, c->keys);
    check_par_init(c, k->par);
    return k;
}

/* The first key of task t's file in checkpoint ckpt outside its key groups. */
static void owned_check(const cut *k, uint32_t t, uint64_t ckpt, sim_time_ns at_ns) {
    const check_ctx *c = k->c;
    uint32_t v = c->j->tasks[t].vertex, pos = 0;
    uint64_t key;
    kagg agg;
    while (kstate_next(&k->scratch, &pos, &key, &agg)) {
        uint32_t owner = check_key_owner(c, v, key, k->par[v]);
        if (owner == CHECK_NONE || owner == c->j->tasks[t].subtask) continue;
        char who[64];
        check_where w = CHECK_AT(at_ns);
        w.task = t;
        w.vertex = v;
        w.ckpt = ckpt;
        w.key = key;
        check_fail(c, CHECK_I2, w, "checkpoint %" PRIu64 " holds key %" PRIu64 " in %s's state, though it is in the key "
                   "groups of subtask %u of %u", ckpt, key, check_task_name(c, t, who, sizeof who), owner, k->par[v]);
        return;
    }
}

static void merge(kstate *into, const kstate *from) {
    uint32_t slot = 0;
    uint64_t key;
    kagg agg;
    while (kstate_next(from, &slot, &key, &agg)) {
        kagg *a = kstate_upsert(into, key);
        a->count += agg.count;
        a->sum = (int64_t)((uint64_t)a->sum + (uint64_t)agg.sum);
        a->fingerprint += agg.fingerprint;
    }
}

/* The checkpoint's side: files merged per vertex, channel state folded on. */
static void collect(cut *k, uint64_t ckpt, sim_time_ns at_ns) {
    const check_ctx *c = k->c;
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {
        if (spec_keyed(&c->sp, v)) kstate_clear(&k->actual[v]);
    }
    for (uint32_t t = 0; t < c->j->tasks_count; t++) {
        uint32_t files;
        if (!spec_keyed(&c->sp, c->j->tasks[t].vertex)) continue;
        if (!pipe_ckpt_task_state(c->p, ckpt, t, &k->scratch, &files) || files == 0) continue;   /* I5 reports those */
        owned_check(k, t, ckpt, at_ns);
        merge(&k->actual[c->j->tasks[t].vertex], &k->scratch);
    }
    model_rec r;
    uint32_t chan;
    pipe_cursor cur = { 0, 0 };
    while (pipe_ckpt_inflight(c->p, ckpt, &cur, &r, &chan)) {
        uint32_t producer, consumer, input;
        pipe_chan_ends(c->p, chan, &producer, &consumer, &input);
        spec_fold(&c->sp, k->actual, c->j->tasks[consumer].vertex, input, r, 1);
    }
}

static void on_event(void *self, const pipe_event *e) {
    cut *k = self;
    if (k->on) check_par_step(k->par, e);
    if (!k->on || e->kind != PIPE_EV_CKPT_COMPLETE) return;
    const check_ctx *c = k->c;
    const uint64_t *offsets = pipe_ckpt_offsets(c->p, e->ckpt);
    if (offsets == NULL) return;                  /* a step fed by hand, not the pipe's: nothing to read */
    const kstate *expected = check_prefix_to(c, offsets);
    collect(k, e->ckpt, e->at_ns);
    c->report->checks[CHECK_I2]++;
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {
        uint64_t key;
        if (spec_keyed(&c->sp, v) && c->j->vertices[v].kind == JOB_WINDOW) {
            check_window_cut(c, v, k->par[v], &expected[v], &k->actual[v], offsets, e->ckpt, e->at_ns);
            continue;
        }
        if (!spec_keyed(&c->sp, v) || kstate_equal(&expected[v], &k->actual[v], &key)) continue;
        const kagg *want = kstate_find(&expected[v], key), *got = kstate_find(&k->actual[v], key);
        check_where w = CHECK_AT(e->at_ns);
        w.vertex = v;
        w.ckpt = e->ckpt;
        w.key = key;
        check_fail(c, CHECK_I2, w, "checkpoint %" PRIu64 " is not the state after its source offsets (%s, key %" PRIu64
                   ": %" PRIu64 " records in the checkpoint, %" PRIu64 " in the prefixes)",
                   e->ckpt, c->j->vertices[v].name, key, got ? got->count : 0, want ? want->count : 0);
    }
}

static void on_end(void *self, const check_end *end) {
    (void)self;
    (void)end;
}

const check_ops check_cut_ops = { "I2 consistent cut", create, on_event, on_end };
