/* check/safety.c: invariant I5, protocol safety, checked step by step.
 *
 * The checker keeps its own model of what the protocol allows, from the
 * steps alone (it never asks a task's gate or the coordinator):
 * - per channel, the newest barrier it delivered: barriers only increase,
 *   except that an in-band barrier a priority one overtook (its checkpoint
 *   aborted before it could turn priority) arrives after it, obsolete;
 * - per task in aligned mode, the checkpoint being aligned and the inputs
 *   that delivered its barrier: those are blocked until the task triggers
 *   or aborts it, and consuming a data buffer from one is a violation; a
 *   cancel marker that aborts it must leave no input blocked;
 * - per task, its live snapshots: the writes begun and ended, and the
 *   in-flight records persisted; an acknowledgement needs every write
 *   ended well, the keyed state written (stateful tasks) and the channel
 *   state written when there is some;
 * - per pending checkpoint, which tasks acknowledged: it may complete only
 *   when every task did or has finished;
 * - the retained completed checkpoints (mirrored: the last `retained`
 *   completions, none after a memory-backend coordinator failover): a
 *   restore names one of them (or none) and finds its files; at every
 *   completion no retained checkpoint refers to a deleted file and the new
 *   one holds every stateful task's state. The HA store's view beside it:
 *   the retained ones and every checkpoint whose pointer write ended
 *   ambiguously (Flink's DefaultCompletedCheckpointStore adds to its own
 *   list only after the store's write returned, and removes from the store
 *   only what its list subsumes, so such a checkpoint stays there); a new
 *   coordinator (durable backend) retains the newest `retained` of it;
 * - a two-phase-commit sink commits only up to a completed checkpoint;
 * - no Sink V2 committer throws on what arrived: Flink's committers check
 *   that a batch is complete when committed, that a summary comes once
 *   and a committable after its summary (IllegalStateException), checks
 *   only a protocol fault trips;
 * - the last checkpoints' trigger times: an alignment timeout fires at a
 *   task only once its checkpoint is that old, and one at its inputs
 *   makes it trigger the checkpoint unaligned in that step. */
#include "check_int.h"

#include <inttypes.h>
#include <string.h>

#define SNAPS_PER_TASK (PIPE_CONCURRENT_MAX + 2u)
#define PENDING_MAX    (PIPE_CONCURRENT_MAX + 8u)
#define COMPLETED_RING 64u
#define STORED_MAX     (PIPE_RETAINED_MAX + 16u)   /* the HA store's newest entries (older ones never restore) */
#define TASK_WORDS     (JOB_TASKS_MAX / 64u)
#define CHAN_WORDS     (JOB_TASK_CHANNELS_MAX / 64u)

typedef struct snap_rec {             /* a task's snapshot as the checker saw it */
    uint64_t ckpt;                    /* 0: free */
    uint32_t writes_open;
    bool     failed, keyed_written, cs_written;
    uint64_t cs_records;
} snap_rec;

typedef struct task_rec {
    uint64_t aligning;                /* the checkpoint the gate aligns (aligned mode) */
    bool     done;                    /* it triggered or aborted */
    uint64_t blocked[CHAN_WORDS];
    bool     finished;
    uint64_t switch_due;              /* its inputs timed out aligning this checkpoint: it must trigger it now (0: none) */
    sim_time_ns switch_at_ns;
    uint64_t attempt;                 /* the newest attempt that started at the task (its restore's epoch) */
    uint64_t global_done;             /* a global committer: the newest checkpoint it committed this attempt */
    snap_rec snaps[SNAPS_PER_TASK];
} task_rec;

_Static_assert(sizeof(task_rec) + 64 <= 2048, "check/check.c sizes 2048 bytes per task");

#define STARTED_RING 64u

typedef struct pending_rec {
    uint64_t ckpt;                    /* 0: free */
    uint64_t acked[TASK_WORDS];
    bool     metadata_failed;         /* its metadata write failed at metadata_failed_ns */
    sim_time_ns metadata_failed_ns;
} pending_rec;

typedef struct safety {
    const check_ctx *c;
    uint64_t     throws_told;         /* Sink V2 committers' throws reported as a job failure's cause */
    bool         aligned;
    task_rec    *tasks;
    uint64_t    *last_barrier;        /* by channel id: the newest barrier it delivered */
    uint64_t    *last_inband;         /* by channel id: the newest in-band (not priority) one */
    pending_rec  pending[PENDING_MAX];
    uint64_t     retained[PIPE_RETAINED_MAX];   /* the coordinator's, oldest first */
    uint32_t     retained_count;
    uint64_t     stored[STORED_MAX];           /* the HA store's, by id */
    uint32_t     stored_count;
    uint64_t     completed[COMPLETED_RING];   /* the last completions, a ring */
    uint32_t     completed_count;
    uint64_t     latest_completed;
    uint64_t     attempt;             /* the coordinator's newest attempt (its events' epoch) */
    uint32_t     par[JOB_VERTICES_MAX];   /* the attempt's parallelism (check_par_step) */
    void        *claim;               /* check/claim.c: the restore modes' rules */
    uint64_t     started[STARTED_RING];   /* the last checkpoints triggered, and when (a ring by id) */
    sim_time_ns  started_ns[STARTED_RING];
} safety;

static void *create(const check_ctx *c) {
    safety *s = ARENA_NEW(c->mem, safety, 1);
    s->c = c;
    s->aligned = c->cfg->ckpt.mode == PIPE_ALIGNED;
    s->tasks = ARENA_NEW(c->mem, task_rec, c->j->tasks_count);
    s->last_barrier = ARENA_NEW(c->mem, uint64_t, c->j->chans_count ? c->j->chans_count : 1);
    s->last_inband = ARENA_NEW(c->mem, uint64_t, c->j->chans_count ? c->j->chans_count : 1);
    check_par_init(c, s->par);
    c->report->applies[CHECK_I5] = true;
    s->claim = check_claim_ops.create(c);
    return s;
}

static bool bit(const uint64_t *w, uint32_t i) { return (w[i / 64] >> (i % 64)) & 1; }
static void set_bit(uint64_t *w, uint32_t i) { w[i / 64] |= 1ull << (i % 64); }

static check_where at_task(const pipe_event *e) {
    check_where w = CHECK_AT(e->at_ns);
    w.task = e->task;
    w.ckpt = e->ckpt;
    return w;
}

/* ---- alignment ------------------------------------------------------------ */

static void unblock(task_rec *t) {
    memset(t->blocked, 0, sizeof t->blocked);
    t->done = true;
}

static void on_barrier(safety *s, const pipe_event *e) {
    const check_ctx *c = s->c;
    char who[64];
    if (e->chan != PIPE_NO_CHAN) {
        /* A priority barrier overtakes the channel's data, and with it an
         * in-band barrier of an older checkpoint (aborted before it could
         * turn priority itself): that one arrives later, obsolete. */
        bool overtaken = !e->priority && e->ckpt > s->last_inband[e->chan];
        if (e->ckpt <= s->last_barrier[e->chan] && !(overtaken && e->ckpt < s->last_barrier[e->chan])) {
            check_fail(c, CHECK_I5, at_task(e), "%s took barrier %" PRIu64 " on input %u after barrier %" PRIu64
                       " (barriers of a channel must increase)", check_task_name(c, e->task, who, sizeof who), e->ckpt,
                       e->input, s->last_barrier[e->chan]);
        }
        if (e->ckpt > s->last_barrier[e->chan]) s->last_barrier[e->chan] = e->ckpt;
        if (!e->priority && e->ckpt > s->last_inband[e->chan]) s->last_inband[e->chan] = e->ckpt;
    }
    task_rec *t = &s->tasks[e->task];
    if (e->ckpt > t->aligning) {                  /* a newer checkpoint: it starts (and aborts an older one) */
        memset(t->blocked, 0, sizeof t->blocked);
        t->aligning = e->ckpt;
        t->done = false;
    }
    if (e->ckpt == t->aligning && !t->done) set_bit(t->blocked, e->input);
}

static void on_cancel(safety *s, const pipe_event *e) {
    task_rec *t = &s->tasks[e->task];
    if (e->ckpt < t->aligning || (e->ckpt == t->aligning && t->done)) return;   /* obsolete */
    bool was_aligning = e->ckpt == t->aligning;
    t->aligning = e->ckpt;
    unblock(t);
    if (was_aligning && s->aligned && e->blocked > 0) {
        char who[64];
        check_fail(s->c, CHECK_I5, at_task(e), "%s took the cancel marker of checkpoint %" PRIu64
                   " and still blocks %u inputs (a cancel marker ends the alignment it cancels)",
                   check_task_name(s->c, e->task, who, sizeof who), e->ckpt, e->blocked);
    }
}

static void on_consume(safety *s, const pipe_event *e) {
    task_rec *t = &s->tasks[e->task];
    if (!s->aligned || t->done || !bit(t->blocked, e->input)) return;
    char who[64];
    check_where w = at_task(e);
    w.ckpt = t->aligning;
    w.record = e->first_id;
    check_fail(s->c, CHECK_I5, w, "%s consumed %u records from input %u, blocked for the alignment of checkpoint %"
               PRIu64 " (first p%" PRIu64 "@%" PRIu64 ")", check_task_name(s->c, e->task, who, sizeof who), e->count,
               e->input, t->aligning, e->first_id >> 40, (uint64_t)(e->first_id & BROKER_OFFSET_MAX));
}

/* ---- snapshots and acknowledgements -------------------------------------- */

static snap_rec *snap_of(task_rec *t, uint64_t ckpt, bool make) {
    snap_rec *free_rec = NULL, *oldest = NULL;
    for (uint32_t i = 0; i < SNAPS_PER_TASK; i++) {
        snap_rec *r = &t->snaps[i];
        if (r->ckpt == ckpt) return r;
        if (r->ckpt == 0 && free_rec == NULL) free_rec = r;
        if (r->ckpt != 0 && (oldest == NULL || r->ckpt < oldest->ckpt)) oldest = r;
    }
    if (!make) return NULL;
    snap_rec *r = free_rec != NULL ? free_rec : oldest;   /* more alive than a task may hold (a buggy protocol): the oldest goes */
    *r = (snap_rec){ .ckpt = ckpt };
    return r;
}

static void on_write(safety *s, const pipe_event *e, bool done) {
    snap_rec *r = snap_of(&s->tasks[e->task], e->ckpt, !done);
    if (r == NULL) return;                        /* a write of a snapshot begun before a restore */
    if (!done) {
        r->writes_open++;
        return;
    }
    if (r->writes_open > 0) r->writes_open--;    /* a record reused under a buggy protocol: keep going */
    if (!e->ok) r->failed = true;
    if (e->ok && e->what == PIPE_WRITE_KEYED) r->keyed_written = true;
    if (e->ok && e->what == PIPE_WRITE_CHANNELS) r->cs_written = true;
}

static void ack_written(safety *s, const pipe_event *e) {
    const check_ctx *c = s->c;
    snap_rec *r = snap_of(&s->tasks[e->task], e->ckpt, true);
    const char *why = r->writes_open > 0 ? "with a write of its snapshot still in flight"
                    : r->failed ? "although a write of its snapshot failed"
                    : spec_keyed(&c->sp, c->j->tasks[e->task].vertex) && !r->keyed_written ? "before its keyed state was written"
                    : r->cs_records > 0 && !r->cs_written ? "before its channel state was written"
                    : NULL;
    if (why != NULL) {
        char who[64];
        check_fail(c, CHECK_I5, at_task(e), "%s acknowledged checkpoint %" PRIu64 " %s",
                   check_task_name(c, e->task, who, sizeof who), e->ckpt, why);
    }
    r->ckpt = 0;
}

static pending_rec *pending_of(safety *s, uint64_t ckpt) {
    for (uint32_t i = 0; i < PENDING_MAX; i++) {
        if (s->pending[i].ckpt == ckpt) return &s->pending[i];
    }
    return NULL;
}

static void on_ack(safety *s, const pipe_event *e) {
    s->c->report->checks[CHECK_I5]++;
    ack_written(s, e);
    pending_rec *r = pending_of(s, e->ckpt);
    if (r != NULL) set_bit(r->acked, e->task);
}

/* ---- completion, restore, commit ------------------------------------------- */

static bool completed(const safety *s, uint64_t ckpt) {
    if (ckpt > s->latest_completed) return false;
    uint32_t n = s->completed_count < COMPLETED_RING ? s->completed_count : COMPLETED_RING;
    uint64_t oldest = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (s->completed[i] == ckpt) return true;
        if (s->completed[i] < oldest) oldest = s->completed[i];
    }
    return n == COMPLETED_RING && ckpt < oldest;  /* older than the ring remembers: not judged */
}

/* Checkpoint e->ckpt completed without `what` of task t. */
static void completed_without(const check_ctx *c, const pipe_event *e, uint32_t t, const char *what) {
    char who[64];
    check_where w = CHECK_AT(e->at_ns);
    w.task = t;
    w.ckpt = e->ckpt;
    check_fail(c, CHECK_I5, w, "checkpoint %" PRIu64 " completed without %s %s", e->ckpt, what,
               check_task_name(c, t, who, sizeof who));
}

static void complete_acks(safety *s, const pipe_event *e) {
    const check_ctx *c = s->c;
    pending_rec *r = pending_of(s, e->ckpt);
    if (r == NULL) return;
    for (uint32_t t = 0; t < c->j->tasks_count; t++) {
        if (bit(r->acked, t) || s->tasks[t].finished || c->j->tasks[t].subtask >= s->par[c->j->tasks[t].vertex]) continue;
        completed_without(c, e, t, "the acknowledgement of");
        break;
    }
    r->ckpt = 0;
}

static void complete_files(safety *s, const pipe_event *e) {
    const check_ctx *c = s->c;
    for (uint32_t t = 0; t < c->j->tasks_count; t++) {
        const job_task *x = &c->j->tasks[t];
        bool runs = x->subtask < s->par[x->vertex], files = pipe_ckpt_task_files(c->p, e->ckpt, t) > 0;
        if (!spec_keyed(&c->sp, x->vertex) || files == runs) continue;
        if (runs) {
            completed_without(c, e, t, "the state of");
            continue;
        }
        char who[64];
        check_where w = CHECK_AT(e->at_ns);
        w.task = t;
        w.ckpt = e->ckpt;
        check_fail(c, CHECK_I5, w, "checkpoint %" PRIu64 " holds state of %s, above the parallelism %u its vertex runs "
                   "at", e->ckpt, check_task_name(c, t, who, sizeof who), s->par[x->vertex]);
    }
    uint64_t id;
    for (uint32_t i = 0; (id = pipe_retained(c->p, i)) != 0; i++) {
        uint32_t dead = pipe_ckpt_dead_files(c->p, id);
        if (dead == 0) continue;
        check_where w = CHECK_AT(e->at_ns);
        w.ckpt = id;
        check_fail(c, CHECK_I5, w, "retained checkpoint %" PRIu64 " refers to %u deleted files", id, dead);
    }
}

/* Without its metadata a checkpoint cannot be found again: a failed
 * write aborts it then and there (Flink declines it at once). */
/* The HA store's view: ckpt goes in (by id; the oldest goes when full),
 * or out. */
static void store_put(safety *s, uint64_t ckpt) {
    if (s->stored_count == STORED_MAX) memmove(s->stored, s->stored + 1, sizeof(uint64_t) * --s->stored_count);
    uint32_t i = s->stored_count;
    while (i > 0 && s->stored[i - 1] > ckpt) i--;
    if (i > 0 && s->stored[i - 1] == ckpt) return;
    memmove(s->stored + i + 1, s->stored + i, sizeof(uint64_t) * (s->stored_count - i));
    s->stored[i] = ckpt;
    s->stored_count++;
}

static void store_drop(safety *s, uint64_t ckpt) {
    for (uint32_t i = 0; i < s->stored_count; i++) {
        if (s->stored[i] != ckpt) continue;
        memmove(s->stored + i, s->stored + i + 1, sizeof(uint64_t) * (--s->stored_count - i));
        return;
    }
}

/* Checkpoint ckpt joins the retained ones, and the store (the oldest
 * retained goes, from both, when `retained` are kept). */
static void retain(safety *s, uint64_t ckpt) {
    uint32_t keep = s->c->cfg->ckpt.retained;
    if (s->retained_count == keep) {
        store_drop(s, s->retained[0]);
        memmove(s->retained, s->retained + 1, sizeof(uint64_t) * (keep - 1));
        s->retained_count--;
    }
    s->retained[s->retained_count++] = ckpt;
    store_put(s, ckpt);
}

/* A new coordinator reads the store back: it retains its newest. */
static void recover_store(safety *s) {
    uint32_t keep = s->c->cfg->ckpt.retained, n = s->stored_count < keep ? s->stored_count : keep;
    memmove(s->stored, s->stored + (s->stored_count - n), sizeof(uint64_t) * n);
    s->stored_count = n;
    memcpy(s->retained, s->stored, sizeof(uint64_t) * n);
    s->retained_count = n;
}

static void on_metadata(safety *s, const pipe_event *e) {
    s->c->report->checks[CHECK_I5]++;
    /* The store took a write its writer cannot know of: the checkpoint is
     * one a new coordinator may restore, though this one aborts it. */
    if (e->ok && e->ambiguous) {
        s->completed[s->completed_count++ % COMPLETED_RING] = e->ckpt;
        if (e->ckpt > s->latest_completed) s->latest_completed = e->ckpt;
        store_put(s, e->ckpt);
    }
    pending_rec *r = pending_of(s, e->ckpt);
    if (r == NULL || e->ok) return;
    r->metadata_failed = true;
    r->metadata_failed_ns = e->at_ns;
}

static void on_complete(safety *s, const pipe_event *e) {
    s->c->report->checks[CHECK_I5]++;
    const pending_rec *r = pending_of(s, e->ckpt);
    if (r != NULL && r->metadata_failed) {
        check_fail(s->c, CHECK_I5, CHECK_AT(e->at_ns), "checkpoint %" PRIu64 " completed although its metadata "
                   "write failed at t=%.3fms", e->ckpt, (double)r->metadata_failed_ns / 1e6);
    }
    complete_acks(s, e);
    complete_files(s, e);
    s->completed[s->completed_count++ % COMPLETED_RING] = e->ckpt;
    if (e->ckpt > s->latest_completed) s->latest_completed = e->ckpt;
    if (!e->savepoint) retain(s, e->ckpt);        /* no savepoint enters the store (FLINK-25191) */
}

static void on_restore(safety *s, const pipe_event *e) {
    const check_ctx *c = s->c;
    task_rec *t = &s->tasks[e->task];
    memset(t, 0, sizeof *t);
    t->attempt = e->epoch;
    for (uint32_t i = 0; i < c->j->tasks[e->task].in_count; i++) {
        uint32_t chan = c->j->in_chan[c->j->tasks[e->task].in_first + i];
        s->last_barrier[chan] = s->last_inband[chan] = 0;
    }
    char who[64];
    /* A zombie (a task of an attempt the coordinator has left, its machine
     * paused) that restores changes nothing the new attempt holds: its
     * restore is not checked against the retained checkpoints. */
    if (e->ckpt == 0 || e->epoch < s->attempt) return;
    bool retained = false;
    for (uint32_t i = 0; i < s->retained_count; i++) retained |= s->retained[i] == e->ckpt;
    if (!retained) {
        check_fail(c, CHECK_I5, at_task(e), "%s restored checkpoint %" PRIu64 ", which is not a retained completed checkpoint",
                   check_task_name(c, e->task, who, sizeof who), e->ckpt);
    } else if (!e->ok) {
        check_fail(c, CHECK_I5, at_task(e), "%s restored checkpoint %" PRIu64 " and found a file of it deleted",
                   check_task_name(c, e->task, who, sizeof who), e->ckpt);
    }
}

static void on_commit(safety *s, const pipe_event *e) {
    if (completed(s, e->ckpt)) return;
    char who[64];
    check_fail(s->c, CHECK_I5, at_task(e), "%s committed its transactions up to checkpoint %" PRIu64
               ", which has not completed", check_task_name(s->c, e->task, who, sizeof who), e->ckpt);
}

/* A commit of a transaction (a two-phase-commit sink's, a Sink V2
 * committer's) needs a completed checkpoint at or after the one it was
 * pre-committed for: only a completion notice, or a restore of a completed
 * checkpoint, commits. Without checkpoints a committer commits at end of
 * input (CommitterOperator.endInput): nothing to judge. */
static void on_txn(safety *s, const pipe_event *e) {
    if (!e->ok || e->ckpt == 0 || !s->c->cfg->ckpt.enabled || e->ckpt <= s->latest_completed) return;
    char who[64];
    check_fail(s->c, CHECK_I5, at_task(e), "%s committed the transaction pre-committed for checkpoint %" PRIu64
               " (%u records), but no checkpoint at or after it has completed", check_task_name(s->c, e->task, who,
               sizeof who), e->ckpt, e->count);
}

/* A global committer commits a checkpoint once, in one step, with the
 * committables of every upstream committer subtask (GlobalCommitterOperator
 * commits a checkpoint once hasGloballyReceivedAll: a summary of each);
 * absim counts an upstream subtask that finished as having sent all, so
 * those it counts so must have finished. */
static void on_global_commit(safety *s, const pipe_event *e) {
    const job *j = s->c->j;
    uint32_t v = j->tasks[e->task].vertex, up = 0, up_v = 0, finished = 0;
    for (uint32_t k = 0; k < j->edges_count; k++) {
        if (j->edges[k].to == v) up_v = j->edges[k].from, up = j->vertices[up_v].parallelism;
    }
    for (uint32_t k = 0; k < up; k++) finished += s->tasks[j->vertex_first_task[up_v] + k].finished;
    task_rec *t = &s->tasks[e->task];
    char who[64];
    check_task_name(s->c, e->task, who, sizeof who);
    if (e->count + e->word_b != up) {
        check_fail(s->c, CHECK_I5, at_task(e), "%s committed checkpoint %" PRIu64 " with the committables of %u of the "
                   "%u committer subtasks", who, e->ckpt, e->count + (uint32_t)e->word_b, up);
    } else if (e->word_b > finished) {
        check_fail(s->c, CHECK_I5, at_task(e), "%s committed checkpoint %" PRIu64 " counting %" PRIu64 " committer "
                   "subtasks without a summary as finished, but %u had finished", who, e->ckpt, e->word_b, finished);
    }
    if (e->ckpt <= t->global_done) {
        check_fail(s->c, CHECK_I5, at_task(e), "%s committed checkpoint %" PRIu64 " again in one attempt (it had "
                   "committed up to %" PRIu64 ")", who, e->ckpt, t->global_done);
    }
    if (e->ckpt > t->global_done) t->global_done = e->ckpt;
}

/* An aligned checkpoint turns unaligned at a task (its inputs, or a
 * barrier held in an output queue) only once it is older than the
 * alignment timeout: its age counts from the trigger, whose time the
 * barrier carries (Flink's aligned-checkpoint-timeout). */
static void on_align_timeout(safety *s, const pipe_event *e) {
    const check_ctx *c = s->c;
    if (!e->output) {                        /* at the inputs: the switch triggers it at once, unaligned */
        s->tasks[e->task].switch_due = e->ckpt;
        s->tasks[e->task].switch_at_ns = e->at_ns;
    }
    uint32_t i = (uint32_t)(e->ckpt % STARTED_RING);
    if (s->started[i] != e->ckpt) return;         /* triggered too long ago to be remembered */
    sim_time_ns due = s->started_ns[i] + c->cfg->ckpt.alignment_timeout_ns;
    if (c->cfg->ckpt.alignment_timeout_ns > 0 && e->at_ns >= due) return;
    char who[64];
    check_fail(c, CHECK_I5, at_task(e), "%s switched checkpoint %" PRIu64 " to unaligned at t=%.3fms, before its "
               "alignment timeout (due at t=%.3fms)", check_task_name(c, e->task, who, sizeof who), e->ckpt,
               (double)e->at_ns / 1e6, (double)due / 1e6);
}

/* A task whose inputs timed out aligning checkpoint n triggers n
 * unaligned in the same step (or the checkpoint ends for it, declined);
 * a later step of the task, or an aligned trigger, says it did not. */
static void switch_check(safety *s, const pipe_event *e) {
    task_rec *t = &s->tasks[e->task];
    if (e->kind == PIPE_EV_ALIGN_TIMEOUT) return;
    bool ends = (e->kind == PIPE_EV_TRIGGER && e->unaligned) || e->kind == PIPE_EV_DECLINE ||
                e->kind == PIPE_EV_RESTORE;   /* a new attempt starts over */
    if (ends && (e->kind == PIPE_EV_RESTORE || e->ckpt == t->switch_due)) {
        t->switch_due = 0;
        return;
    }
    if (e->at_ns == t->switch_at_ns && !(e->kind == PIPE_EV_TRIGGER && e->ckpt == t->switch_due)) return;
    char who[64];
    check_fail(s->c, CHECK_I5, at_task(e), "%s timed out aligning checkpoint %" PRIu64 " at t=%.3fms but did not "
               "switch it to unaligned and trigger it then", check_task_name(s->c, e->task, who, sizeof who),
               t->switch_due, (double)t->switch_at_ns / 1e6);
    t->switch_due = 0;
}

/* Its record goes with the snapshot: no stale one crowds out a live one. */
static void forget_snap(task_rec *t, uint64_t ckpt) {
    snap_rec *r = snap_of(t, ckpt, false);
    if (r != NULL) r->ckpt = 0;
}

/* A trigger or a decline ends the task's alignment of that checkpoint (or
 * an older one); a decline's snapshot record goes. */
static void on_trigger_or_decline(safety *s, const pipe_event *e) {
    task_rec *t = &s->tasks[e->task];
    if (e->ckpt >= t->aligning) {
        t->aligning = e->ckpt;
        unblock(t);
    }
    if (e->kind == PIPE_EV_DECLINE) forget_snap(t, e->ckpt);
}

static void on_start(safety *s, const pipe_event *e) {
    s->started[e->ckpt % STARTED_RING] = e->ckpt;
    s->started_ns[e->ckpt % STARTED_RING] = e->at_ns;
    pending_rec *r = pending_of(s, 0);
    if (r == NULL) r = &s->pending[e->ckpt % PENDING_MAX];   /* more in flight than can be: reuse */
    memset(r, 0, sizeof *r);
    r->ckpt = e->ckpt;
}

/* A checkpoint whose metadata write failed is aborted then, not later. */
static void on_abort(safety *s, const pipe_event *e) {
    pending_rec *r = pending_of(s, e->ckpt);
    if (r != NULL && r->metadata_failed && e->at_ns != r->metadata_failed_ns) {
        check_fail(s->c, CHECK_I5, CHECK_AT(e->at_ns), "checkpoint %" PRIu64 " aborted only at t=%.3fms, not "
                   "when its metadata write failed at t=%.3fms", e->ckpt, (double)e->at_ns / 1e6,
                   (double)r->metadata_failed_ns / 1e6);
    }
    if (r != NULL) r->ckpt = 0;
}

/* The attempt's pending checkpoints die with it; a new coordinator keeps
 * the retained ones only with the durable backend. */
static void on_attempt_lost(safety *s, const pipe_event *e) {
    if (e->kind == PIPE_EV_JOB_FAILED && e->cause == PIPE_FAIL_THREW && e->culprit != PIPE_NO_TASK) {
        char who[48];
        s->throws_told++;
        check_where w = CHECK_AT(e->at_ns);
        w.task = e->culprit;
        check_fail(s->c, CHECK_I5, w,
                   "%s threw: Flink's committer checks (a batch complete at its commit, one summary per checkpoint "
                   "and subtask, no committable of an unknown subtask) failed", check_task_name(s->c, e->culprit, who, sizeof who));
    }
    memset(s->pending, 0, sizeof s->pending);
    if (e->kind != PIPE_EV_COORD_FAILOVER) return;
    if (s->c->cfg->state.backend == PIPE_BACKEND_MEMORY) s->retained_count = s->stored_count = 0;
    else recover_store(s);
}

/* The job ended at a stop or cancel: its checkpoints leave the
 * completed-checkpoint store (the user keeps what it resumes from). */
static void on_halted(safety *s) {
    memset(s->pending, 0, sizeof s->pending);
    s->retained_count = s->stored_count = 0;
}

/* The resumed job's store holds the snapshot it restores, alone. */
static void on_resumed(safety *s, const pipe_event *e) {
    s->retained_count = s->stored_count = 0;
    if (e->ckpt != 0) retain(s, e->ckpt);
}

static void on_event(void *self, const pipe_event *e) {
    safety *s = self;
    /* With slots, a zombie (an old attempt on a machine that was paused
     * while the task moved elsewhere) takes steps after its new attempt
     * started: they are its own sequence, not the new attempt's, and all
     * it sends is fenced (what is not, I1 and I3 see). Checked are the
     * steps of the newest attempt at each task. */
    bool at_task = e->task != PIPE_NO_TASK && e->task < s->c->j->tasks_count;
    if (at_task && e->epoch < s->tasks[e->task].attempt) return;
    if (at_task && s->tasks[e->task].switch_due != 0) switch_check(s, e);
    if (e->task == PIPE_NO_TASK && e->epoch > s->attempt) s->attempt = e->epoch;
    check_claim_ops.on_event(s->claim, e);
    switch (e->kind) {
    case PIPE_EV_BARRIER:        on_barrier(s, e); break;
    case PIPE_EV_CANCEL:         on_cancel(s, e); break;
    case PIPE_EV_TRIGGER:
    case PIPE_EV_DECLINE:        on_trigger_or_decline(s, e); break;
    case PIPE_EV_SNAPSHOT_DROPPED: forget_snap(&s->tasks[e->task], e->ckpt); break;
    case PIPE_EV_CONSUME:        on_consume(s, e); break;
    case PIPE_EV_WRITE:          on_write(s, e, false); break;
    case PIPE_EV_WRITE_DONE:     on_write(s, e, true); break;
    case PIPE_EV_CHANNEL_STATE:  snap_of(&s->tasks[e->task], e->ckpt, true)->cs_records += e->count; break;
    case PIPE_EV_ACK:            on_ack(s, e); break;
    case PIPE_EV_TASK_FINISHED:  s->tasks[e->task].finished = true; break;
    case PIPE_EV_ALIGN_TIMEOUT:  on_align_timeout(s, e); break;
    case PIPE_EV_RESCALED:       check_par_step(s->par, e); break;
    case PIPE_EV_CKPT_START:     on_start(s, e); break;
    case PIPE_EV_CKPT_COMPLETE:  on_complete(s, e); break;
    case PIPE_EV_METADATA:       on_metadata(s, e); break;
    case PIPE_EV_CKPT_ABORT:     on_abort(s, e); break;
    case PIPE_EV_JOB_FAILED:
    case PIPE_EV_COORD_FAILOVER: on_attempt_lost(s, e); break;
    case PIPE_EV_HALTED:         on_halted(s); break;
    case PIPE_EV_RESUMED:        on_resumed(s, e); break;
    case PIPE_EV_RESTORE:        on_restore(s, e); break;
    case PIPE_EV_SINK_COMMIT:    on_commit(s, e); break;
    case PIPE_EV_TXN:            on_txn(s, e); break;
    case PIPE_EV_GLOBAL_COMMIT:  on_global_commit(s, e); break;
    default:
        break;
    }
}

static void on_end(void *self, const check_end *end) {
    safety *s = self;
    /* A throw the coordinator took no failure of (the job not running, the
     * task's region restarting already, a stop's savepoint completed). */
    uint64_t threw = pipe_get_stats(s->c->p)->committer_refusals;
    if (threw > 0 && s->throws_told == 0) {
        check_fail(s->c, CHECK_I5, CHECK_AT(end->end_ns), "a Sink V2 committer threw %" PRIu64 " times on what it "
                   "took: Flink's committer checks failed", threw);
    }
    check_claim_ops.on_end(s->claim, end);
    for (uint32_t t = 0; t < s->c->j->tasks_count; t++) {   /* a timed-out alignment that no step followed */
        if (s->tasks[t].switch_due == 0) continue;
        pipe_event e = { .kind = PIPE_EV_KIND_MAX, .at_ns = end->end_ns, .task = t };
        switch_check(s, &e);
    }
}

const check_ops check_safety_ops = { "I5 protocol safety", create, on_event, on_end };
