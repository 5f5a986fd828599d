/* check/output.c: invariants I3 and I4 on what the sinks made visible in
 * the external system, when the job finished: record by record, against
 * the number of times the specification says it must be visible.
 *
 * I4 (at-least-once) applies to every run with sinks (no record's effect
 * is lost), unless checkpoints after tasks finish are off and a sink is
 * two-phase-commit: Flink up to 1.13 never committed what such a sink
 * wrote after the last checkpoint it was told of before it finished
 * (FLIP-147 Part One: that data "finally gets lost"), a loss the protocol
 * did not promise to avoid; nor when checkpointing is off and a sink is
 * two-phase-commit: TwoPhaseCommitSinkFunction commits only on a
 * checkpoint's completion notice or a restore, and its close() aborts the
 * open transaction, so nothing it wrote becomes visible.
 * I3 (exactly-once) applies in the exactly-once modes when every sink is
 * transactional or idempotent, unless the checkpoints died with a
 * memory-backend coordinator (the job then starts over and replays output
 * it had committed: the promise is void, as in Flink without HA).
 *
 * I4 is void too when a two-phase-commit sink restores a checkpoint whose
 * metadata write ended ambiguously after it had restored an older one (or
 * none): since FLINK-22494 the coordinator aborts such a checkpoint but
 * keeps its files, the HA store may hold it, and a new coordinator
 * (JobManager failover) restores it from there; the restore to the older
 * one aborted the transactions it pre-committed (recoverAndAbort, a Kafka
 * sink's lingering transactions), so what it covered is never committed.
 * This is absim's reading of Flink's code (CheckpointCoordinator,
 * DefaultCompletedCheckpointStore), not a run on a cluster. */
#include "check_int.h"

#include <inttypes.h>

#define AMBIGUOUS_MAX 16u             /* the newest checkpoints whose metadata write ended ambiguously */

typedef struct output {
    const check_ctx *c;
    bool promised;                    /* I3 */
    uint64_t ambiguous[AMBIGUOUS_MAX];    /* a ring by id: such checkpoints */
    bool     rolled_back[AMBIGUOUS_MAX];  /* a sink restored an older one since */
    bool     stop_committed;          /* a stop's savepoint completed, the job has not ended yet */
    int64_t *per_key;                 /* windows: by key, what results and late records leave of the input */
    uint8_t *maybe_late;              /* windows: by key, whether a record of it may have come after a purge */
    kstate   final;                   /* windows: a window vertex's final state (its late aggregates) */
} output;

static void *create(const check_ctx *c) {
    output *o = ARENA_NEW(c->mem, output, 1);
    o->c = c;
    bool sinks = false, exact = c->cfg->ckpt.mode != PIPE_AT_LEAST_ONCE, lossy_end = false, lossy_v2 = false;
    bool off = !c->cfg->ckpt.enabled;
    for (uint32_t v = 0; v < c->j->vertices_count; v++) {
        const job_vertex *x = &c->j->vertices[v];
        if (x->kind != JOB_SINK) continue;
        sinks = true;
        exact &= x->sink != JOB_SINK_PLAIN;
        lossy_end |= x->sink == JOB_SINK_2PC && (c->cfg->ckpt.finished_tasks_off || off);
        lossy_v2 |= x->sink == JOB_SINK_V2 && c->cfg->ckpt.finished_tasks_off && !off;   /* no final checkpoint commits */
    }
    o->promised = sinks && exact;
    for (uint32_t v = 0; v < c->j->vertices_count && o->per_key == NULL; v++) {
        if (c->j->vertices[v].kind != JOB_WINDOW) continue;
        o->per_key = ARENA_NEW(c->mem, int64_t, broker_cfg_keys(&c->cfg->broker) + 1);
        o->maybe_late = ARENA_NEW(c->mem, uint8_t, broker_cfg_keys(&c->cfg->broker) + 1);
        kstate_init_in(&o->final, c->mem, c->keys);
    }
    c->report->applies[CHECK_I3] = o->promised;
    c->report->applies[CHECK_I4] = sinks && !lossy_end && !lossy_v2;
    if (sinks && lossy_v2 && !lossy_end) {
        c->report->verdict_note[CHECK_I4] = "finished-tasks off: a Sink V2 committer commits at end of input only "
                                            "without checkpoints (CommitterOperator.endInput), so the writers' last "
                                            "committables wait for a final checkpoint that never comes";
        if (o->promised) c->report->verdict_note[CHECK_I3] = "no record twice; what the sinks lost is I4's";
    }
    if (sinks && lossy_end) {
        c->report->verdict_note[CHECK_I4] = off ? "checkpointing off: a two-phase-commit sink commits only on a "
                                                  "checkpoint's completion notice or a restore, and close() aborts its "
                                                  "open transaction (TwoPhaseCommitSinkFunction)"
                                                : "finished-tasks off: Flink up to 1.13 never committed a two-phase-commit "
                                                  "sink's output after the last checkpoint it was told of, FLIP-147 Part One";
        if (o->promised) c->report->verdict_note[CHECK_I3] = "no record twice; what the sinks lost is I4's";
    }
    return o;
}

static bool tpc_sink(const check_ctx *c, uint32_t task) {
    const job_vertex *v = &c->j->vertices[c->j->tasks[task].vertex];
    return v->kind == JOB_SINK && (v->sink == JOB_SINK_2PC || v->sink == JOB_SINK_V2);
}

/* A sink's restore: it rolls back past the ambiguous checkpoints newer
 * than what it restores; restoring one it rolled back past voids I4. */
static void sink_restored(output *o, const pipe_event *e) {
    if (e->task == PIPE_NO_TASK || !tpc_sink(o->c, e->task)) return;
    uint32_t i = e->ckpt % AMBIGUOUS_MAX;
    if (e->ckpt != 0 && o->ambiguous[i] == e->ckpt && o->rolled_back[i] && o->c->report->applies[CHECK_I4]) {
        o->c->report->applies[CHECK_I4] = false;
        o->c->report->verdict_note[CHECK_I4] = "a sink restored a checkpoint whose metadata write had ended ambiguously, "
                                               "from the store, after restoring an older one had aborted its "
                                               "transactions: absim's reading of Flink since FLINK-22494";
    }
    for (uint32_t k = 0; k < AMBIGUOUS_MAX; k++) o->rolled_back[k] |= o->ambiguous[k] > e->ckpt;
}

static void on_event(void *self, const pipe_event *e) {
    output *o = self;
    if (e->kind == PIPE_EV_METADATA && e->ok && e->ambiguous) {
        o->ambiguous[e->ckpt % AMBIGUOUS_MAX] = e->ckpt;
        o->rolled_back[e->ckpt % AMBIGUOUS_MAX] = false;
    }
    if (e->kind == PIPE_EV_RESTORE) sink_restored(o, e);
    if (e->kind == PIPE_EV_CKPT_COMPLETE && e->savepoint) o->stop_committed = true;
    if (e->kind == PIPE_EV_HALTED) o->stop_committed = false;
    if (e->kind == PIPE_EV_COORD_FAILOVER && o->stop_committed && o->promised) {
        o->promised = false;                      /* I4 still holds */
        o->c->report->applies[CHECK_I3] = false;
        o->c->report->verdict_note[CHECK_I3] = "a new JobManager took over after a stop's savepoint completed: it "
                                               "restores the latest checkpoint, which a savepoint is not "
                                               "(FLINK-25191), and what the savepoint's notice committed is "
                                               "committed again (absim's reading of Flink)";
    }
    if (e->kind == PIPE_EV_COORD_FAILOVER && o->c->cfg->state.backend == PIPE_BACKEND_MEMORY) {
        o->promised = false;
        o->c->report->applies[CHECK_I3] = false;
        o->c->report->verdict_note[CHECK_I3] = NULL;   /* it checks nothing now */
    }
}

static void report(output *o, check_inv inv, sim_time_ns at, uint64_t id, uint32_t got, uint32_t want) {
    check_where w = CHECK_AT(at);
    w.record = id;
    check_fail(o->c, inv, w, "record p%" PRIu64 "@%" PRIu64 " is visible %u time%s in the output, the input says %u",
               id >> 40, (uint64_t)(id & BROKER_OFFSET_MAX), got, got == 1 ? "" : "s", want);
}

static void on_end(void *self, const check_end *end) {
    output *o = self;
    const check_ctx *c = o->c;
    check_report *rep = c->report;
    if (end->status != PIPE_FINISHED) return;
    rep->output_known = true;
    rep->checks[CHECK_I4] += rep->applies[CHECK_I4];
    rep->checks[CHECK_I3] += rep->applies[CHECK_I3];
    const broker *b = pipe_broker(c->p);
    for (uint32_t part = 0; part < b->partitions; part++) {   /* every partition of every topic */
        uint64_t per = b->topic[broker_topic_of(b, part)].cfg.records_per_partition;
        if (pipe_end_offsets(c->p) != NULL) per = pipe_end_offsets(c->p)[part];   /* a drain ended the input there */
        for (uint64_t off = 0; off < per; off++) {
            model_rec r = { .id = (uint64_t)part << 40 | off };   /* visibility depends on the id alone (spec.h) */
            uint32_t want = spec_visible(&c->sp, &r), got = pipe_sink_count(c->p, part, off);
            rep->out_records += want > 0;
            if (got < want && rep->out_lost++ == 0) rep->out_first_lost = r.id;
            if (got > want && rep->out_duplicated++ == 0) rep->out_first_duplicated = r.id;
            if (got < want && rep->applies[CHECK_I4]) report(o, CHECK_I4, end->end_ns, r.id, got, want);
            if (got > want && o->promised) report(o, CHECK_I3, end->end_ns, r.id, got, want);
        }
    }
    for (uint32_t v = 0; v < c->j->vertices_count && o->per_key != NULL; v++) {   /* window results */
        if (c->j->vertices[v].kind != JOB_WINDOW) continue;
        pipe_vertex_state(c->p, v, &o->final);
        check_window_output(c, v, &check_prefix_to(c, pipe_end_offsets(c->p))[v], &o->final, o->promised, o->per_key,
                            o->maybe_late, end->end_ns);
    }
}

const check_ops check_output_ops = { "I3/I4 output", create, on_event, on_end };
