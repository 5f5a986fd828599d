/* check/claim.c: invariant I5's rules of the restore modes (FLIP-193,
 * Flink 1.15 on), from Flink's definitions, not the model's bookkeeping:
 *
 * - NO_CLAIM: the first checkpoint to complete after the restore refers to
 *   no file of the restored snapshot (RestoreMode.NO_CLAIM: "it will make
 *   sure it does not depend on any artefacts from the restored snapshot";
 *   CheckpointCoordinator.forceFullSnapshot, held by
 *   CheckpointCoordinatorTriggeringTest's NO_CLAIM cases).
 * - NO_CLAIM and LEGACY: no file of the restored snapshot is ever deleted
 *   (RestoreMode: Flink "will not claim ownership of the snapshot";
 *   SharedStateRegistryImpl discards no state created at or below
 *   highestNotClaimedCheckpointID, FLINK-26985).
 * CLAIM puts no rule here: the snapshot is the job's own, subsumed and
 * discarded like its checkpoints, which the retained-checkpoint rules of
 * check/safety.c cover.
 *
 * The files are those the restored snapshot names when the job resumes
 * (the RESUMED step), as the coordinator's store holds them then. */
#include "check_int.h"

#include <inttypes.h>

#define CLAIM_IDS_MAX 72u             /* a task's files in a checkpoint: a chain of at most 65, and channel state */

typedef struct claim {
    const check_ctx *c;
    uint64_t *files;                  /* the user's files: of every snapshot restored in NO_CLAIM or LEGACY */
    uint64_t *snap_of;                /* by file: the snapshot that named it */
    uint32_t  count, cap;
    uint64_t  no_claim;               /* a NO_CLAIM restore whose first checkpoint is awaited (0: none) */
    uint32_t  no_claim_from;          /* its files: files[no_claim_from, count) */
    bool      told;                   /* a deleted file was reported (once a run) */
} claim;

static uint32_t per_task(const check_ctx *c) { return c->cfg->state.full_every + 3; }

static void *create(const check_ctx *c) {
    claim *k = ARENA_NEW(c->mem, claim, 1);
    k->c = c;
    k->cap = c->cfg->stops_count * c->j->tasks_count * per_task(c);
    if (k->cap > 0) {
        k->files = ARENA_NEW(c->mem, uint64_t, k->cap);
        k->snap_of = ARENA_NEW(c->mem, uint64_t, k->cap);
    }
    return k;
}

static void resumed(claim *k, const pipe_event *e) {
    if (e->count == PIPE_CLAIM_CLAIM) return;
    k->no_claim = e->count == PIPE_CLAIM_NO_CLAIM ? e->ckpt : 0;
    k->no_claim_from = k->count;
    uint64_t ids[CLAIM_IDS_MAX];
    for (uint32_t t = 0; t < k->c->j->tasks_count; t++) {
        uint32_t n = pipe_ckpt_task_file_ids(k->c->p, e->ckpt, t, ids, CLAIM_IDS_MAX);
        SIM_ASSERT(k->count + n <= k->cap);      /* a chain of at most full-every + 1 and channel state, a task */
        for (uint32_t i = 0; i < n; i++) {
            k->snap_of[k->count] = e->ckpt;
            k->files[k->count++] = ids[i];
        }
    }
}

/* The first checkpoint completed after a NO_CLAIM restore. */
static void first_after(claim *k, const pipe_event *e) {
    const check_ctx *c = k->c;
    uint64_t ids[CLAIM_IDS_MAX];
    c->report->checks[CHECK_I5]++;
    for (uint32_t t = 0; t < c->j->tasks_count; t++) {
        uint32_t n = pipe_ckpt_task_file_ids(c->p, e->ckpt, t, ids, CLAIM_IDS_MAX);
        for (uint32_t i = 0; i < n; i++) {
            for (uint32_t f = k->no_claim_from; f < k->count; f++) {
                if (k->files[f] != ids[i]) continue;
                char who[64];
                check_where w = CHECK_AT(e->at_ns);
                w.task = t;
                w.ckpt = e->ckpt;
                check_fail(c, CHECK_I5, w, "checkpoint %" PRIu64 ", the first to complete after the NO_CLAIM restore "
                           "of %" PRIu64 ", refers to a file of it (%s's): NO_CLAIM's first checkpoint is a full one",
                           e->ckpt, k->no_claim, check_task_name(c, t, who, sizeof who));
                k->no_claim = 0;
                return;
            }
        }
    }
    k->no_claim = 0;
}

/* Every file of the user's is still in the store. */
static void all_alive(claim *k, sim_time_ns at_ns) {
    if (k->count == 0 || k->told) return;
    k->c->report->checks[CHECK_I5]++;
    for (uint32_t f = 0; f < k->count; f++) {
        if (pipe_file_alive(k->c->p, k->files[f])) continue;
        check_where w = CHECK_AT(at_ns);
        w.ckpt = k->snap_of[f];
        check_fail(k->c, CHECK_I5, w, "a file of checkpoint %" PRIu64 " was deleted, though the job restored it in "
                   "NO_CLAIM or LEGACY mode: it is the user's, never the job's to discard", k->snap_of[f]);
        k->told = true;
        return;
    }
}

static void on_event(void *self, const pipe_event *e) {
    claim *k = self;
    if (k->cap == 0) return;
    if (e->kind == PIPE_EV_RESUMED) resumed(k, e);
    if (e->kind != PIPE_EV_CKPT_COMPLETE) return;
    if (k->no_claim != 0 && !e->savepoint) first_after(k, e);   /* a savepoint does not end forceFullSnapshot */
    all_alive(k, e->at_ns);
}

static void on_end(void *self, const check_end *end) {
    claim *k = self;
    if (k->cap > 0) all_alive(k, end->end_ns);
}

const check_ops check_claim_ops = { "I5 restore modes", create, on_event, on_end };
