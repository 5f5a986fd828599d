/* flink/fhist_rules.c: the protocol's rules on a real checkpoint history
 * (see fhist.h). Each rule names the Flink class that makes it a rule.
 * Times the history lacks are bounded soundly: a checkpoint completes
 * after its latest acknowledgement (latest_ack_timestamp), so a rule that
 * needs the completion uses the acknowledgement where that can only hide
 * a violation, never invent one. */
#include "fhist.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fval.h"

static const struct { const char *name, *text; } rules[FR_COUNT] = {
    [FR_IDS] = { "ids", "ids rise with trigger time, none twice, and the counts add up (CheckpointIDCounter; one trigger at a time)" },
    [FR_ACKED] = { "acknowledged", "a completed checkpoint was acknowledged by every subtask (PendingCheckpoint.isFullyAcknowledged)" },
    [FR_CONCURRENT] = { "max-concurrent", "at most max-concurrent checkpoints pending at once (CheckpointRequestDecider)" },
    [FR_MIN_PAUSE] = { "min-pause", "no periodic trigger sooner than min-pause after the last completion (CheckpointRequestDecider)" },
    [FR_INTERVAL] = { "interval", "periodic triggers on the scheduler's ticks at least an interval apart (CheckpointCoordinator's fixed-rate scheduler; not after a slow or failed checkpoint, nor across a restore)" },
    [FR_TIMEOUT] = { "timeout", "a checkpoint completes within the timeout; one expires at it, not before (CheckpointCanceller)" },
    [FR_UNALIGNED] = { "unaligned", "unaligned checkpoints only where enabled with exactly-once, and only after the aligned-checkpoint timeout" },
    [FR_RESTORE] = { "restore", "a restore is of the latest completed checkpoint, or of a savepoint (restoreLatestCheckpointedState)" },
    [FR_TOLERABLE] = { "tolerable", "past the tolerable number of counted failures in a row the job fails over (CheckpointFailureManager)" },
};

const char *fhist_rule_name(fhist_rule r) {
    assert(r < FR_COUNT);
    return rules[r].name;
}

const char *fhist_rule_text(fhist_rule r) {
    assert(r < FR_COUNT);
    return rules[r].text;
}

static void found(fhist_result *r, fhist_rule rule, int64_t ckpt, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void found(fhist_result *r, fhist_rule rule, int64_t ckpt, const char *fmt, ...) {
    if (r->count == FHIST_FINDINGS_MAX) { r->dropped++; return; }
    fhist_finding *f = &r->found[r->count++];
    f->rule = rule;
    f->ckpt = ckpt;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

static void rule_ids(const fhist *h, int64_t tol_ms, fhist_result *r) {
    for (uint32_t i = 1; i < h->count; i++) {
        const fhist_ckpt *a = &h->ckpts[i - 1], *b = &h->ckpts[i];
        if (a->trigger_ms < 0 || b->trigger_ms < 0) continue;
        r->checked[FR_IDS]++;
        if (b->trigger_ms + tol_ms < a->trigger_ms)
            found(r, FR_IDS, b->id, "%s trigger_timestamp %" PRId64 " is before checkpoint %" PRId64 "'s (%s) %" PRId64
                  ": a higher id was triggered earlier", b->where, b->trigger_ms, a->id, a->where, a->trigger_ms);
    }
    r->checked[FR_IDS]++;
    if (h->dups > 0)
        found(r, FR_IDS, h->dup_id, "$.history lists %u id%s twice, first checkpoint %" PRId64, h->dups,
              h->dups == 1 ? "" : "s", h->dup_id);
    if (h->total >= 0 && h->completed >= 0 && h->failed >= 0 && h->in_progress >= 0) {
        r->checked[FR_IDS]++;
        if (h->total != h->completed + h->failed + h->in_progress)
            found(r, FR_IDS, -1, "$.counts: total %" PRId64 " is not completed %" PRId64 " + failed %" PRId64
                  " + in_progress %" PRId64, h->total, h->completed, h->failed, h->in_progress);
    }
}

static void rule_acked(const fhist *h, fhist_result *r) {
    for (uint32_t i = 0; i < h->count; i++) {
        const fhist_ckpt *c = &h->ckpts[i];
        if (c->status != FH_COMPLETED) continue;
        r->checked[FR_ACKED]++;
        if (c->subtasks >= 0 && c->acked != c->subtasks)
            found(r, FR_ACKED, c->id, "%s: COMPLETED with num_acknowledged_subtasks %" PRId64 " of num_subtasks %" PRId64,
                  c->where, c->acked, c->subtasks);
        if (c->detail_unacked > 0)
            found(r, FR_ACKED, c->id, "its details: COMPLETED, but %u of %u tasks have num_acknowledged_subtasks below "
                  "num_subtasks", c->detail_unacked, c->detail_tasks);
    }
}

/* When a checkpoint stopped being pending, as early as the fields allow:
 * its latest acknowledgement (completed), its failure; INT64_MAX while in
 * progress. */
static int64_t end_ms(const fhist_ckpt *c) {
    if (c->status == FH_IN_PROGRESS) return INT64_MAX;
    if (c->status == FH_FAILED && c->failure_ms >= 0) return c->failure_ms;
    return c->ack_ms >= c->trigger_ms ? c->ack_ms : c->trigger_ms;
}

static void rule_concurrent(const fhist *h, const fconf *cf, int64_t tol_ms, fhist_result *r) {
    int64_t max = cf->num[FC_MAX_CONCURRENT];
    for (uint32_t j = 0; j < h->count; j++) {
        const fhist_ckpt *b = &h->ckpts[j];
        if (b->savepoint || b->trigger_ms < 0) continue;   /* savepoints are forced past the limit */
        r->checked[FR_CONCURRENT]++;
        int64_t pending = 1, first = -1;
        for (uint32_t i = j > 4096 ? j - 4096 : 0; i < j; i++) {
            const fhist_ckpt *a = &h->ckpts[i];
            if (a->savepoint || a->trigger_ms < 0 || a->trigger_ms > b->trigger_ms || end_ms(a) <= b->trigger_ms + tol_ms)
                continue;                              /* a trigger's timestamp is taken before the limit is checked */
            pending++;
            if (first < 0) first = a->id;
        }
        if (pending > max)
            found(r, FR_CONCURRENT, b->id, "%s triggered at %" PRId64 " while %" PRId64 " others were pending (from "
                  "checkpoint %" PRId64 ", by their trigger_timestamp and latest_ack_timestamp or failure_timestamp); "
                  "max-concurrent-checkpoints is %" PRId64, b->where, b->trigger_ms, pending - 1, first, max);
    }
}

/* The latest completed checkpoint or savepoint before b (by id) whose
 * acknowledgements all came before b's trigger, or NULL. */
static const fhist_ckpt *completed_before(const fhist *h, uint32_t j) {
    for (uint32_t i = j; i-- > 0;) {
        const fhist_ckpt *a = &h->ckpts[i];
        if (a->status == FH_COMPLETED && a->ack_ms >= 0 && a->ack_ms <= h->ckpts[j].trigger_ms) return a;
    }
    return NULL;
}

/* Only with one checkpoint at a time: then the checkpoint before a
 * trigger completed before it, so its acknowledgement bounds the pause. */
static void rule_min_pause(const fhist *h, const fconf *cf, int64_t tol_ms, fhist_result *r) {
    int64_t pause_ms = cf->num[FC_MIN_PAUSE] / 1000000;
    if (pause_ms <= 0 || cf->num[FC_MAX_CONCURRENT] != 1) return;
    for (uint32_t j = 0; j < h->count; j++) {
        const fhist_ckpt *b = &h->ckpts[j], *a = completed_before(h, j);
        if (b->savepoint || b->trigger_ms < 0 || a == NULL) continue;
        r->checked[FR_MIN_PAUSE]++;
        if (b->trigger_ms + tol_ms < a->ack_ms + pause_ms)
            found(r, FR_MIN_PAUSE, b->id, "%s trigger_timestamp %" PRId64 " is %" PRId64 " ms after checkpoint %" PRId64
                  "'s latest_ack_timestamp %" PRId64 ", and it completed no earlier: min-pause is %" PRId64 " ms",
                  b->where, b->trigger_ms, b->trigger_ms - a->ack_ms, a->id, a->ack_ms, pause_ms);
    }
}

/* Whether a's trigger may have come from the decider's queue rather than
 * a scheduler tick: a periodic request waits while max-concurrent are
 * pending and runs when one ends (CheckpointRequestDecider), so after a
 * checkpoint that ran an interval or longer, or one that failed (a
 * failover restarts the scheduler, and one with nothing to restore leaves
 * no trace in the history), the next trigger is off the ticks. The first
 * of the history is unknown: it counts as such. */
static bool off_the_ticks(const fhist *h, uint32_t i, int64_t base_ms, int64_t tol_ms) {
    if (i == 0) return true;
    const fhist_ckpt *w = &h->ckpts[i - 1];
    if (w->id != h->ckpts[i].id - 1 || w->status != FH_COMPLETED || w->trigger_ms < 0) return true;
    return end_ms(w) + tol_ms >= w->trigger_ms + base_ms;
}

/* Consecutive periodic triggers at least the base interval, max(interval,
 * min-pause), apart: the scheduler fires at a fixed rate. Only pairs whose
 * first trigger was on a tick and whose first checkpoint completed in
 * time; none across a restore, since the scheduler starts anew, and none
 * when there were restores the history cannot place. */
static void rule_interval(const fhist *h, const fconf *cf, int64_t tol_ms, fhist_result *r) {
    int64_t base_ms = (cf->num[FC_INTERVAL] > cf->num[FC_MIN_PAUSE] ? cf->num[FC_INTERVAL] : cf->num[FC_MIN_PAUSE]) / 1000000;
    if (cf->num[FC_INTERVAL] <= 0) return;
    int64_t since = h->has_restore ? h->restore_ms : INT64_MIN;
    if (h->restored > (h->has_restore ? 1 : 0)) return;
    for (uint32_t j = 1; j < h->count; j++) {
        const fhist_ckpt *a = &h->ckpts[j - 1], *b = &h->ckpts[j];
        if (a->savepoint || b->savepoint || a->trigger_ms < 0 || b->trigger_ms < 0 || b->id != a->id + 1) continue;
        if (a->trigger_ms < since && b->trigger_ms >= since) continue;   /* the restart between them */
        if (b->trigger_ms < a->trigger_ms) continue;                      /* out of order: the ids rule's */
        if (a->status != FH_COMPLETED || end_ms(a) + tol_ms >= a->trigger_ms + base_ms) continue;   /* b may be queued */
        if (off_the_ticks(h, j - 1, base_ms, tol_ms)) continue;
        r->checked[FR_INTERVAL]++;
        if (b->trigger_ms - a->trigger_ms + tol_ms < base_ms)
            found(r, FR_INTERVAL, b->id, "%s trigger_timestamp %" PRId64 " is %" PRId64 " ms after checkpoint %" PRId64
                  "'s, which completed in time, with no restore between: the interval is %" PRId64 " ms", b->where,
                  b->trigger_ms, b->trigger_ms - a->trigger_ms, a->id, base_ms);
    }
}

static void rule_timeout(const fhist *h, const fconf *cf, int64_t tol_ms, fhist_result *r) {
    int64_t timeout_ms = cf->num[FC_TIMEOUT] / 1000000;
    for (uint32_t i = 0; i < h->count; i++) {
        const fhist_ckpt *c = &h->ckpts[i];
        if (c->trigger_ms < 0) continue;
        if (c->status == FH_COMPLETED && c->ack_ms >= 0) {
            /* The canceller is armed once the pending checkpoint exists,
             * after the id and the storage location (ZooKeeper, a file
             * system) are had: a second and 1% of the timeout allowed. */
            r->checked[FR_TIMEOUT]++;
            if (c->ack_ms - c->trigger_ms > timeout_ms + tol_ms + 1000 + timeout_ms / 100)
                found(r, FR_TIMEOUT, c->id, "%s: COMPLETED, its latest_ack_timestamp %" PRId64 " ms after its trigger: "
                      "the timeout is %" PRId64 " ms, it should have expired", c->where, c->ack_ms - c->trigger_ms, timeout_ms);
        }
        if (c->status == FH_FAILED && c->failure_ms >= 0 && strstr(c->failure, "expired before completing") != NULL) {
            r->checked[FR_TIMEOUT]++;
            if (c->failure_ms - c->trigger_ms + tol_ms < timeout_ms)
                found(r, FR_TIMEOUT, c->id, "%s: failure_message '%.80s' %" PRId64 " ms after its trigger: the timeout "
                      "is %" PRId64 " ms", c->where, c->failure, c->failure_ms - c->trigger_ms, timeout_ms);
        }
    }
}

static void rule_unaligned(const fhist *h, const fconf *cf, int64_t tol_ms, fhist_result *r) {
    bool exactly = fval_enum(cf->text[FC_MODE], (const char *const[]){ "EXACTLY_ONCE", NULL }) == 0;
    bool enabled = exactly && cf->num[FC_UNALIGNED] != 0;
    int64_t aligned_ms = cf->num[FC_ALIGNED_TIMEOUT] / 1000000;
    for (uint32_t i = 0; i < h->count; i++) {
        const fhist_ckpt *c = &h->ckpts[i];
        if (c->type[0] == '\0' && !c->unaligned) continue;    /* before 1.12 nothing says */
        r->checked[FR_UNALIGNED]++;
        if (!c->unaligned) continue;
        if (!enabled)
            found(r, FR_UNALIGNED, c->id, "%s: unaligned (checkpoint_type %s, or a subtask's unaligned_checkpoint), but "
                  "the configuration %s", c->where, c->type[0] ? c->type : "-",
                  exactly ? "does not enable unaligned checkpoints" : "is AT_LEAST_ONCE, where Flink turns them off");
        else if (aligned_ms > 0 && c->ack_ms >= 0 && c->ack_ms - c->trigger_ms + tol_ms < aligned_ms)
            found(r, FR_UNALIGNED, c->id, "%s: unaligned, though all its acknowledgements came %" PRId64 " ms after the "
                  "trigger: aligned-checkpoint-timeout is %" PRId64 " ms", c->where, c->ack_ms - c->trigger_ms, aligned_ms);
    }
}

/* Failover restores the latest completed checkpoint (savepoints are not
 * used for recovery since 1.15, FLINK-25191); a restore of a savepoint is
 * one the user named. A completed checkpoint triggered before the restore
 * completed before it: a failover aborts what is pending. */
static void rule_restore(const fhist *h, fhist_result *r) {
    if (!h->has_restore || h->restore_savepoint || h->restore_ms < 0 || h->restore_id < 0) return;
    const fhist_ckpt *latest = NULL;
    for (uint32_t i = 0; i < h->count; i++) {
        const fhist_ckpt *c = &h->ckpts[i];
        if (c->status == FH_COMPLETED && !c->savepoint && c->trigger_ms >= 0 && c->trigger_ms < h->restore_ms) latest = c;
    }
    r->checked[FR_RESTORE]++;
    if (latest != NULL && h->restore_id < latest->id)
        found(r, FR_RESTORE, h->restore_id, "$.latest.restored: checkpoint %" PRId64 " restored at %" PRId64 ", but "
              "checkpoint %" PRId64 " (%s) completed before that, triggered at %" PRId64, h->restore_id, h->restore_ms,
              latest->id, latest->where, latest->trigger_ms);
}

/* The failures CheckpointFailureManager counts, by their messages
 * (CheckpointFailureReason): declined in every version since 1.9;
 * expired and asynchronous from 1.11, I/O from 1.14, finalize from 1.16.
 * A history with `@class` is 1.14 or older and one with `className` 1.15
 * or newer, so only what every version of its era counts is counted:
 * fewer counted failures can hide a missed failover, never invent one. */
static bool counted(const fhist *h, const fhist_ckpt *c) {
    static const char *const msgs[] = { "Checkpoint was declined.", "Checkpoint expired before completing.",
                                        "Asynchronous task checkpoint failed.", "IO-problem detected", NULL };
    int known = strcmp(h->class_key, "className") == 0 ? 4 : 1;
    for (int i = 0; i < known; i++) {
        if (strstr(c->failure, msgs[i]) != NULL) return true;
    }
    return false;
}

/* The first checkpoint triggered after `fail` with no restore between,
 * as far as the history can tell: it knows the latest restore only, and
 * counts.restored how many there were; a failover with no completed
 * checkpoint to restore leaves no restore. NULL when none, or when the
 * history cannot tell. */
static const fhist_ckpt *triggered_on(const fhist *h, uint32_t from, const fhist_ckpt *fail) {
    bool something = false;                        /* a completed checkpoint before the failure, in the history */
    for (uint32_t i = 0; i < from; i++) something = something || (h->ckpts[i].status == FH_COMPLETED && !h->ckpts[i].savepoint);
    if (!something) return NULL;
    for (uint32_t j = from; j < h->count; j++) {
        const fhist_ckpt *b = &h->ckpts[j];
        if (b->savepoint || b->trigger_ms <= fail->failure_ms) continue;
        if (!h->has_restore) return h->restored == 0 ? b : NULL;
        if (h->restore_ms <= fail->failure_ms) return b;          /* the last restore came before the failure */
        if (h->restore_ms <= b->trigger_ms) return NULL;          /* restored between them */
        return h->restored == 1 ? b : NULL;
    }
    return NULL;
}

/* Every completion resets the count, a savepoint's too
 * (CheckpointFailureManager.handleCheckpointSuccess); a savepoint's
 * failure is not counted. */
static void rule_tolerable(const fhist *h, const fconf *cf, fhist_result *r) {
    int64_t tolerable = cf->num[FC_TOLERABLE], run = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        const fhist_ckpt *c = &h->ckpts[i];
        if (c->status == FH_COMPLETED) { run = 0; continue; }
        if (c->savepoint || c->status != FH_FAILED || !counted(h, c) || c->failure_ms < 0) continue;
        r->checked[FR_TOLERABLE]++;
        if (++run <= tolerable) continue;
        run = 0;                                   /* the job fails over and the count starts anew */
        const fhist_ckpt *b = triggered_on(h, i + 1, c);
        if (b != NULL)
            found(r, FR_TOLERABLE, c->id, "%s: failure %" PRId64 " in a row that Flink counts ('%.60s'), past tolerable "
                  "%" PRId64 ": the job fails over, yet checkpoint %" PRId64 " was triggered at %" PRId64 " with no restore "
                  "between ($.latest.restored)", c->where, tolerable + 1, c->failure, tolerable, b->id, b->trigger_ms);
    }
}

void fhist_check(const fhist *h, const fconf *c, int64_t tol_ms, fhist_result *r) {
    assert(h != NULL && c != NULL && r != NULL && tol_ms >= 0);
    memset(r, 0, sizeof *r);
    rule_ids(h, tol_ms, r);
    rule_acked(h, r);
    rule_concurrent(h, c, tol_ms, r);
    rule_min_pause(h, c, tol_ms, r);
    rule_interval(h, c, tol_ms, r);
    rule_timeout(h, c, tol_ms, r);
    rule_unaligned(h, c, tol_ms, r);
    rule_restore(h, r);
    rule_tolerable(h, c, r);
}
