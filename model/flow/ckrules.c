/* model/flow/ckrules.c: the checkpoint coordinator's rules (ckrules.h has
 * the contract and the Flink classes each part follows). */
#include "ckrules.h"

#include <stddef.h>

#include "../../sim/base.h"

bool ckr_counted(ckr_why why) {
    return why == CKR_DECLINED || why == CKR_EXPIRED || why == CKR_FINALIZE_FAILED;
}

const char *ckr_why_name(ckr_why why) {
    switch (why) {
    case CKR_DECLINED:            return "CHECKPOINT_DECLINED";
    case CKR_EXPIRED:             return "CHECKPOINT_EXPIRED";
    case CKR_FINALIZE_FAILED:     return "FINALIZE_CHECKPOINT_FAILURE";
    case CKR_DECLINED_BY_BARRIERS: return "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER";
    case CKR_TASK_CLOSING:        return "CHECKPOINT_DECLINED_TASK_CLOSING";
    case CKR_SUBSUMED:            return "CHECKPOINT_SUBSUMED";
    case CKR_SUSPEND:             return "CHECKPOINT_COORDINATOR_SUSPEND";
    case CKR_MIN_PAUSE:           return "MINIMUM_TIME_BETWEEN_CHECKPOINTS";
    case CKR_TOO_MANY_REQUESTS:   return "TOO_MANY_CHECKPOINT_REQUESTS";
    case CKR_NOT_RUNNING:         return "NOT_ALL_REQUIRED_TASKS_RUNNING";
    }
    return "?";
}

/* ---- CheckpointFailureManager ------------------------------------------ */

void ckr_fm_init(ckr_fm *f, uint32_t tolerable) {
    *f = (ckr_fm){ .tolerable = tolerable };
}

static void fm_clear(ckr_fm *f) {
    f->failures = 0;
    f->counted_count = 0;
}

void ckr_fm_success(ckr_fm *f, uint64_t id) {
    if (id <= f->last_succeeded) return;          /* an older one: nothing changes */
    f->last_succeeded = id;
    fm_clear(f);
}

static bool fm_seen(const ckr_fm *f, uint64_t id) {
    uint32_t n = f->counted_count < CKR_COUNTED_MAX ? f->counted_count : CKR_COUNTED_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (f->counted[i] == id) return true;
    }
    return false;
}

bool ckr_fm_failure(ckr_fm *f, uint64_t id, ckr_why why) {
    if (f->tolerable == CKR_UNLIMITED || !ckr_counted(why)) return false;
    if (id != 0 && id <= f->last_succeeded) return false;   /* FLINK-18336: a past checkpoint's */
    if (id != 0) {                                 /* once per checkpoint (0: no checkpoint, every time) */
        if (fm_seen(f, id)) return false;
        f->counted[f->counted_count % CKR_COUNTED_MAX] = id;
        f->counted_count++;
    }
    f->failures++;
    if (f->failures <= f->tolerable) return false;
    fm_clear(f);                                  /* cleared before the job fails */
    return true;
}

/* ---- the coordinator ---------------------------------------------------- */

const char *ckr_cfg_error(const ckr_cfg *c) {
    if (c->interval <= 0) return "the interval must be above 0";
    if (c->timeout <= 0) return "the timeout must be above 0";
    if (c->min_pause < 0) return "the minimum pause must be at least 0";
    if (c->max_concurrent < 1 || c->max_concurrent > CKR_PENDING_MAX) return "max-concurrent out of range";
    if (c->queue_max > CKR_QUEUE_MAX) return "too many queued requests";
    return NULL;
}

void ckr_init(ckr *k, const ckr_cfg *c, uint64_t first_id) {
    SIM_ASSERT(ckr_cfg_error(c) == NULL);
    SIM_ASSERT(first_id >= 1);
    *k = (ckr){ .cfg = *c, .next_id = first_id };
    k->base = c->interval > c->min_pause ? c->interval : c->min_pause;
    if (k->cfg.queue_max == 0) k->cfg.queue_max = CKR_QUEUE_MAX;
    ckr_fm_init(&k->fm, c->tolerable);
}

static void act(ckr_acts *out, ckr_act a) {
    SIM_ASSERT(out->count < CKR_ACTS_MAX);
    out->items[out->count++] = a;
}

static void arm(ckr *k, int64_t at, ckr_acts *out) {
    k->next_fire = at;
    k->gen++;
    act(out, (ckr_act){ .kind = CKR_ARM, .at = at, .gen = k->gen });
}

void ckr_init_delay_range(const ckr *k, int64_t *lo, int64_t *hi) {
    *lo = k->cfg.min_pause;
    *hi = k->base;
    SIM_ASSERT(*lo <= *hi);
}

/* CheckpointRequestDecider.chooseQueuedRequestToExecute, until nothing
 * more can go (a trigger ends the triggering phase at once here, and
 * Flink then tries the queue again: onTriggerSuccess). */
static void choose(ckr *k, int64_t now, bool ready, ckr_acts *out) {
    while (k->queued > 0 && k->pending_count < k->cfg.max_concurrent) {
        int64_t wait = k->completed_any ? k->last_completion + k->cfg.min_pause - now : 0;
        k->queued--;
        if (wait > 0) {                           /* the head is dropped, the grid moves */
            act(out, (ckr_act){ .kind = CKR_DROP, .why = CKR_MIN_PAUSE });
            arm(k, now + wait, out);
            return;
        }
        if (!ready) {                             /* onTriggerFailure: the next is tried, and fails too */
            act(out, (ckr_act){ .kind = CKR_DROP, .why = CKR_NOT_RUNNING, .id = k->queued + 1 });
            k->queued = 0;
            return;
        }
        uint64_t id = k->next_id++;
        k->pending[k->pending_count++] = (ckr_pending){ .id = id, .started = now };
        act(out, (ckr_act){ .kind = CKR_TRIGGER, .id = id, .at = now });
    }
}

void ckr_start(ckr *k, int64_t now, int64_t init_delay, ckr_acts *out) {
    ckr_stop(k, out);
    SIM_ASSERT(init_delay >= k->cfg.min_pause && init_delay <= k->base);
    k->scheduling = true;
    arm(k, now + init_delay, out);
}

static void remove_at(ckr *k, uint32_t i) {
    SIM_ASSERT(i < k->pending_count);
    for (uint32_t j = i + 1; j < k->pending_count; j++) k->pending[j - 1] = k->pending[j];
    k->pending_count--;
}

void ckr_stop(ckr *k, ckr_acts *out) {
    k->scheduling = false;
    k->gen++;                                     /* an armed trigger is stale */
    k->queued = 0;
    for (uint32_t i = 0; i < k->pending_count; i++) {
        act(out, (ckr_act){ .kind = CKR_ABORT, .id = k->pending[i].id, .why = CKR_SUSPEND });
    }
    k->pending_count = 0;
}

void ckr_fire(ckr *k, int64_t now, uint32_t gen, bool ready, ckr_acts *out) {
    if (!k->scheduling || gen != k->gen) return;   /* stopped or moved since */
    arm(k, k->next_fire + k->base > now ? k->next_fire + k->base : now, out);
    if (k->queued >= k->cfg.queue_max) {
        act(out, (ckr_act){ .kind = CKR_DROP, .why = CKR_TOO_MANY_REQUESTS });   /* the newest goes */
    } else {
        k->queued++;
    }
    choose(k, now, ready, out);
}

static int32_t find(const ckr *k, uint64_t id) {
    for (uint32_t i = 0; i < k->pending_count; i++) {
        if (k->pending[i].id == id) return (int32_t)i;
    }
    return -1;
}

bool ckr_is_pending(const ckr *k, uint64_t id) { return find(k, id) >= 0; }

void ckr_complete(ckr *k, uint64_t id, int64_t now, bool ready, ckr_acts *out) {
    int32_t i = find(k, id);
    SIM_ASSERT(i >= 0);
    remove_at(k, (uint32_t)i);
    k->completed_any = true;
    k->last_completion = now;
    ckr_fm_success(&k->fm, id);
    act(out, (ckr_act){ .kind = CKR_COMPLETE, .id = id, .at = now });
    while (k->pending_count > 0 && k->pending[0].id < id) {   /* older pending ones are subsumed */
        act(out, (ckr_act){ .kind = CKR_ABORT, .id = k->pending[0].id, .why = CKR_SUBSUMED });
        remove_at(k, 0);
    }
    if (k->scheduling) choose(k, now, ready, out);
}

void ckr_savepoint(ckr *k, int64_t now, bool ready, ckr_acts *out) {
    SIM_ASSERT(k->pending_count == 0 && k->queued == 0);
    if (!ready) {
        act(out, (ckr_act){ .kind = CKR_DROP, .why = CKR_NOT_RUNNING, .id = 0 });
        return;
    }
    uint64_t id = k->next_id++;
    k->pending[k->pending_count++] = (ckr_pending){ .id = id, .started = now, .savepoint = true };
    act(out, (ckr_act){ .kind = CKR_TRIGGER, .id = id, .at = now, .savepoint = true });
}

void ckr_abort(ckr *k, uint64_t id, ckr_why why, uint32_t task, int64_t now, bool ready, ckr_acts *out) {
    int32_t i = find(k, id);
    SIM_ASSERT(i >= 0);
    bool savepoint = k->pending[i].savepoint;
    remove_at(k, (uint32_t)i);
    act(out, (ckr_act){ .kind = CKR_ABORT, .id = id, .why = why, .at = now, .task = task });
    if (!savepoint && ckr_fm_failure(&k->fm, id, why)) {        /* the job fails: nothing more is triggered */
        act(out, (ckr_act){ .kind = CKR_FAIL_JOB, .id = id, .why = why, .at = now,
                            .task = why == CKR_DECLINED ? task : CKR_NO_TASK });
        return;
    }
    if (k->scheduling) choose(k, now, ready, out);
}

int64_t ckr_next_deadline(const ckr *k) {
    int64_t due = INT64_MAX;
    for (uint32_t i = 0; i < k->pending_count; i++) {
        int64_t d = k->pending[i].started + k->cfg.timeout;
        if (d < due) due = d;
    }
    return due;
}

void ckr_expire(ckr *k, int64_t now, bool ready, ckr_acts *out) {
    while (k->pending_count > 0) {
        uint32_t oldest = UINT32_MAX;
        for (uint32_t i = 0; i < k->pending_count && oldest == UINT32_MAX; i++) {
            if (k->pending[i].started + k->cfg.timeout <= now) oldest = i;
        }
        if (oldest == UINT32_MAX) return;
        uint64_t id = k->pending[oldest].id;
        uint32_t before = out->count;
        ckr_abort(k, id, CKR_EXPIRED, CKR_NO_TASK, now, ready, out);
        for (uint32_t a = before; a < out->count; a++) {
            if (out->items[a].kind == CKR_FAIL_JOB) return;
        }
    }
}
