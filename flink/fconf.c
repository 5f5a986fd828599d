/* flink/fconf.c: the keys absim models, resolved as Flink resolves them
 * (see fconf.h); the readers are in fconf_read.c. */
#include "fconf.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "fval.h"

/* One row per field: keys newest first (Flink reads the current key, then
 * its deprecated spellings in order: ConfigOption.withDeprecatedKeys /
 * withFallbackKeys), the REST field of CheckpointConfigInfo, Flink's
 * default (current, 1.19 to 2.x) and the class that defines the key. */
static const fconf_row rows[FC_COUNT] = {
    { FC_INTERVAL, FT_DURATION, { "execution.checkpointing.interval" }, "interval", "", "CheckpointingOptions (2.x), ExecutionCheckpointingOptions (1.x)" },
    { FC_MODE, FT_TEXT, { "execution.checkpointing.mode" }, "mode", "EXACTLY_ONCE", "CheckpointingOptions (2.x), ExecutionCheckpointingOptions (1.x)" },
    { FC_UNALIGNED, FT_BOOL, { "execution.checkpointing.unaligned.enabled", "execution.checkpointing.unaligned" }, "unaligned_checkpoints", "false", "CheckpointingOptions.ENABLE_UNALIGNED" },
    { FC_TIMEOUT, FT_DURATION, { "execution.checkpointing.timeout" }, "timeout", "10min", "CheckpointingOptions.CHECKPOINTING_TIMEOUT" },
    { FC_MIN_PAUSE, FT_DURATION, { "execution.checkpointing.min-pause" }, "min_pause", "0ms", "CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS" },
    { FC_MAX_CONCURRENT, FT_INT, { "execution.checkpointing.max-concurrent-checkpoints" }, "max_concurrent", "1", "CheckpointingOptions.MAX_CONCURRENT_CHECKPOINTS" },
    { FC_TOLERABLE, FT_INT, { "execution.checkpointing.tolerable-failed-checkpoints" }, "tolerable_failed_checkpoints", "0", "CheckpointingOptions.TOLERABLE_FAILURE_NUMBER (unset reads as 0)" },
    { FC_ALIGNED_TIMEOUT, FT_DURATION, { "execution.checkpointing.aligned-checkpoint-timeout", "execution.checkpointing.alignment-timeout" }, "aligned_checkpoint_timeout", "0ms", "CheckpointingOptions.ALIGNED_CHECKPOINT_TIMEOUT" },
    { FC_FINISHED_TASKS, FT_BOOL, { "execution.checkpointing.checkpoints-after-tasks-finish", "execution.checkpointing.checkpoints-after-tasks-finish.enabled" }, "checkpoints_after_tasks_finish", "true", "CheckpointingOptions.ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH" },
    { FC_RETAINED, FT_INT, { "execution.checkpointing.num-retained", "state.checkpoints.num-retained" }, NULL, "1", "CheckpointingOptions.MAX_RETAINED_CHECKPOINTS" },
    { FC_STORAGE, FT_TEXT, { "execution.checkpointing.storage", "state.checkpoint-storage" }, "checkpoint_storage", "", "CheckpointingOptions.CHECKPOINT_STORAGE (unset: filesystem with a directory, else jobmanager)" },
    { FC_CHECKPOINT_DIR, FT_TEXT, { "execution.checkpointing.dir", "state.checkpoints.dir", "state.backend.fs.checkpointdir" }, NULL, "", "CheckpointingOptions.CHECKPOINTS_DIRECTORY" },
    { FC_BACKEND, FT_TEXT, { "state.backend.type", "state.backend" }, "state_backend", "hashmap", "StateBackendOptions.STATE_BACKEND" },
    { FC_INCREMENTAL, FT_BOOL, { "execution.checkpointing.incremental", "state.backend.incremental" }, NULL, "false", "CheckpointingOptions.INCREMENTAL_CHECKPOINTS" },
    { FC_RESTART, FT_TEXT, { "restart-strategy.type", "restart-strategy" }, NULL, "", "RestartStrategyOptions.RESTART_STRATEGY (unset: exponential-delay with checkpoints, none without)" },
    { FC_FD_ATTEMPTS, FT_INT, { "restart-strategy.fixed-delay.attempts" }, NULL, "1", "RestartStrategyOptions" },
    { FC_FD_DELAY, FT_DURATION, { "restart-strategy.fixed-delay.delay" }, NULL, "1s", "RestartStrategyOptions" },
    { FC_FR_MAX, FT_INT, { "restart-strategy.failure-rate.max-failures-per-interval" }, NULL, "1", "RestartStrategyOptions" },
    { FC_FR_INTERVAL, FT_DURATION, { "restart-strategy.failure-rate.failure-rate-interval" }, NULL, "1min", "RestartStrategyOptions" },
    { FC_FR_DELAY, FT_DURATION, { "restart-strategy.failure-rate.delay" }, NULL, "1s", "RestartStrategyOptions" },
    { FC_EX_INITIAL, FT_DURATION, { "restart-strategy.exponential-delay.initial-backoff" }, NULL, "1s", "RestartStrategyOptions" },
    { FC_EX_MAX, FT_DURATION, { "restart-strategy.exponential-delay.max-backoff" }, NULL, "1min", "RestartStrategyOptions (5min up to 1.18)" },
    { FC_EX_MULTIPLIER, FT_DOUBLE, { "restart-strategy.exponential-delay.backoff-multiplier" }, NULL, "1.5", "RestartStrategyOptions (2.0 up to 1.18)" },
    { FC_EX_RESET, FT_DURATION, { "restart-strategy.exponential-delay.reset-backoff-threshold" }, NULL, "1h", "RestartStrategyOptions" },
    { FC_EX_JITTER, FT_DOUBLE, { "restart-strategy.exponential-delay.jitter-factor" }, NULL, "0.1", "RestartStrategyOptions" },
    { FC_EX_ATTEMPTS, FT_INT, { "restart-strategy.exponential-delay.attempts-before-reset-backoff" }, NULL, "2147483647", "RestartStrategyOptions (1.19+)" },
    { FC_FAILOVER, FT_TEXT, { "jobmanager.execution.failover-strategy" }, NULL, "region", "JobManagerOptions.EXECUTION_FAILOVER_STRATEGY" },
    { FC_BUFFER_TIMEOUT, FT_DURATION, { "execution.buffer-timeout.interval", "execution.buffer-timeout" }, NULL, "100ms", "ExecutionOptions.BUFFER_TIMEOUT" },
    { FC_BUFFER_TIMEOUT_ON, FT_BOOL, { "execution.buffer-timeout.enabled" }, NULL, "true", "ExecutionOptions.BUFFER_TIMEOUT_ENABLED (2.x)" },
    { FC_PARALLELISM, FT_INT, { "parallelism.default" }, NULL, "1", "CoreOptions.DEFAULT_PARALLELISM" },
    { FC_MAX_PARALLELISM, FT_INT, { "pipeline.max-parallelism" }, NULL, "", "PipelineOptions.MAX_PARALLELISM (unset: derived per vertex)" },
    { FC_SLOTS, FT_INT, { "taskmanager.numberOfTaskSlots" }, NULL, "1", "TaskManagerOptions.NUM_TASK_SLOTS" },
    { FC_HB_INTERVAL, FT_DURATION, { "heartbeat.interval" }, NULL, "10s", "HeartbeatManagerOptions.HEARTBEAT_INTERVAL" },
    { FC_HB_TIMEOUT, FT_DURATION, { "heartbeat.timeout" }, NULL, "50s", "HeartbeatManagerOptions.HEARTBEAT_TIMEOUT" },
    { FC_CHAINING, FT_BOOL, { "pipeline.operator-chaining.enabled", "pipeline.operator-chaining" }, NULL, "true", "PipelineOptions.OPERATOR_CHAINING" },
};

const fconf_row *fconf_row_of(fconf_field f) {
    assert(f < FC_COUNT && rows[f].field == f);
    return &rows[f];
}

/* The row's value text into c; false with why for text Flink refuses. */
static bool parse_value(const fconf_row *r, const char *text, bool rest, fconf *c, const char **why) {
    fconf_field f = r->field;
    int64_t v = 0;
    switch (r->type) {
    case FT_DURATION:
        if (rest && f == FC_INTERVAL && strcmp(text, "9223372036854775807") == 0) {   /* Long.MAX_VALUE: checkpointing off */
            c->num[f] = -1;
            return true;
        }
        if (!fval_duration_ns(text, &c->num[f], why)) return false;
        return true;
    case FT_BOOL: {
        bool b;
        if (!fval_bool(text, &b, why)) return false;
        c->num[f] = b;
        return true;
    }
    case FT_INT:
        if (!fval_int(text, INT32_MIN, INT32_MAX, &v, why)) return false;
        c->num[f] = v;
        return true;
    case FT_DOUBLE:
        return fval_double(text, &c->real[f], why);
    case FT_TEXT:
        snprintf(c->text[f], sizeof c->text[f], "%s", text);
        return true;
    }
    *why = "unknown type";
    return false;
}

/* Flink's default for every field: what a file that says nothing gives. */
static void defaults(fconf *c) {
    memset(c, 0, sizeof *c);
    for (int f = 0; f < FC_COUNT; f++) {
        const char *why;
        if (rows[f].dflt[0] != '\0' && !parse_value(&rows[f], rows[f].dflt, false, c, &why)) assert(!"a bad default");
    }
    c->num[FC_INTERVAL] = -1;                  /* no interval: checkpointing off */
    c->num[FC_MAX_PARALLELISM] = -1;
}

static bool key_matches(const fconf_raw *raw, const fconf_row *r, const fconf_entry *e, int *rank) {
    if (raw->format == FCONF_REST) {
        *rank = 0;
        return r->rest != NULL && strcmp(e->key, r->rest) == 0;
    }
    for (int k = 0; k < 4 && r->keys[k] != NULL; k++) {
        if (strcmp(e->key, r->keys[k]) == 0) { *rank = k; return true; }
    }
    return false;
}

/* The entry's place for an error: "file:line:col: key: 'value'" (a JSON
 * path for a REST field). */
static void where(const fconf_raw *raw, const fconf_entry *e, char *buf, size_t n) {
    if (raw->format == FCONF_REST) snprintf(buf, n, "%s: $.%s: '%s'", raw->path, e->key, e->value);
    else snprintf(buf, n, "%s:%u:%u: %s: '%s'", raw->path, e->line, e->col, e->key, e->value);
}

static const char *const restart_names[] = { "none", "off", "disable", "fixeddelay", "fixed-delay", "failurerate",
                                              "failure-rate", "exponentialdelay", "exponential-delay", NULL };

/* What Flink refuses at job submission (CheckpointConfig setters,
 * CheckpointCoordinatorConfiguration, the restart strategies' factories,
 * FailoverStrategyFactoryLoader), as "why" for field f; NULL when fine. */
static const char *refused(const fconf *c, fconf_field f) {
    int64_t v = c->num[f];
    double d = c->real[f];
    switch (f) {
    case FC_INTERVAL: return v >= 0 && v < 10000000 ? "below 10 ms: Flink refuses it (CheckpointConfig: interval must be >= 10 ms; leave it unset for no checkpoints)" : NULL;
    case FC_TIMEOUT: return v < 10000000 ? "below 10 ms: Flink refuses it (CheckpointConfig)" : NULL;
    case FC_MAX_CONCURRENT: return v < 1 ? "below 1: Flink refuses it (CheckpointConfig)" : NULL;
    case FC_TOLERABLE: return v < 0 ? "negative: Flink refuses it (CheckpointConfig)" : NULL;
    case FC_RETAINED: return v < 1 ? "below 1: Flink refuses it" : NULL;
    case FC_MODE: return fval_enum(c->text[f], (const char *const[]){ "EXACTLY_ONCE", "AT_LEAST_ONCE", NULL }) < 0 ? "not EXACTLY_ONCE or AT_LEAST_ONCE (any case, with '_')" : NULL;
    case FC_RESTART: return fval_enum(c->text[f], restart_names) < 0 ? "not a restart strategy Flink knows (none, off, disable, fixed-delay, failure-rate, exponential-delay, or without the '-')" : NULL;
    case FC_FAILOVER: return fval_enum(c->text[f], (const char *const[]){ "full", "region", NULL }) < 0 ? "not full or region: Flink refuses it (FailoverStrategyFactoryLoader)" : NULL;
    case FC_FD_ATTEMPTS: return v < 0 ? "negative: Flink refuses it" : NULL;
    case FC_FR_MAX: return v <= 0 ? "not above 0: Flink refuses it (FailureRateRestartBackoffTimeStrategy)" : NULL;
    case FC_FR_INTERVAL: return v <= 0 ? "not above 0: Flink refuses it" : NULL;
    case FC_EX_INITIAL: return v < 1000000 || v > c->num[FC_EX_MAX] ? "below 1 ms or above max-backoff: Flink refuses it (ExponentialDelayRestartBackoffTimeStrategy)" : NULL;
    case FC_EX_MAX:
    case FC_EX_RESET: return v < 1000000 ? "below 1 ms: Flink refuses it" : NULL;
    case FC_EX_MULTIPLIER: return d <= 1 ? "not above 1: Flink refuses it" : NULL;
    case FC_EX_JITTER: return d < 0 || d > 1 ? "outside 0 to 1: Flink refuses it" : NULL;
    case FC_EX_ATTEMPTS: return v < 1 ? "below 1: Flink refuses it" : NULL;
    case FC_PARALLELISM:
    case FC_SLOTS: return v < 1 ? "below 1" : NULL;
    case FC_MAX_PARALLELISM: return v != -1 && (v < 1 || v > 32768) ? "not -1 (derived) or from 1 to 32768: Flink refuses it (KeyGroupRangeAssignment's bounds)" : NULL;
    case FC_HB_INTERVAL:
    case FC_HB_TIMEOUT: return v <= 0 ? "not above 0" : NULL;
    default: return NULL;
    }
}

/* Whether Flink reads field f: a restart strategy's parameters only when
 * restart-strategy.type names that strategy (unset, the default strategy
 * takes its options' defaults); every other field always. */
static bool restart_param_read(const fconf *c, fconf_field f) {
    if (f < FC_FD_ATTEMPTS || f > FC_EX_ATTEMPTS) return true;
    if (!c->set[FC_RESTART]) return false;
    int k = fval_enum(c->text[FC_RESTART], restart_names);
    if (f <= FC_FD_DELAY) return k == 3 || k == 4;
    if (f <= FC_FR_DELAY) return k == 5 || k == 6;
    return k == 7 || k == 8;
}

/* Every value Flink would refuse, named at its line (only the values a
 * file set: Flink's defaults are valid). */
static bool check_values(const fconf_raw *raw, const fconf *c, char *err, size_t n) {
    char at[1400];
    for (int f = 0; f < FC_COUNT; f++) {
        if (!restart_param_read(c, (fconf_field)f)) continue;   /* Flink never reads it */
        const char *why = c->set[f] ? refused(c, (fconf_field)f) : NULL;
        if (why == NULL) continue;
        where(raw, c->from[f], at, sizeof at);
        snprintf(err, n, "%s: %s", at, why);
        return false;
    }
    bool exactly = fval_enum(c->text[FC_MODE], (const char *const[]){ "EXACTLY_ONCE", NULL }) == 0;
    if (c->set[FC_UNALIGNED] && c->num[FC_UNALIGNED] != 0 && exactly && c->num[FC_MAX_CONCURRENT] > 1) {
        where(raw, c->from[FC_UNALIGNED], at, sizeof at);
        snprintf(err, n, "%s: unaligned checkpoints with max-concurrent-checkpoints %lld: Flink refuses it "
                 "(CheckpointCoordinatorConfiguration: maxConcurrentCheckpoints can't be > 1 if UnalignedCheckpoints "
                 "enabled)", at, (long long)c->num[FC_MAX_CONCURRENT]);
        return false;
    }
    return true;
}

bool fconf_resolve(fconf_raw *raw, fconf *c, char *err, size_t n) {
    assert(c != NULL && err != NULL);
    defaults(c);
    if (raw == NULL) return true;
    for (int f = 0; f < FC_COUNT; f++) {
        const fconf_row *r = &rows[f];
        fconf_entry *best = NULL;
        int best_rank = 99, rank;
        for (uint32_t i = 0; i < raw->count; i++) {   /* the newest key wins; within a key the last line */
            fconf_entry *e = &raw->entries[i];
            if (!key_matches(raw, r, e, &rank)) continue;
            e->field = (int16_t)f;
            e->use = FCONF_SHADOWED;
            if (rank <= best_rank) { best = e; best_rank = rank; }
        }
        if (best == NULL) continue;
        const char *why = NULL;
        if (!parse_value(r, best->value, raw->format == FCONF_REST, c, &why)) {
            char at[1400];
            best->use = FCONF_INVALID;
            where(raw, best, at, sizeof at);
            snprintf(err, n, "%s: %s", at, why);
            return false;
        }
        best->use = FCONF_MODELLED;
        c->set[f] = true;
        c->from[f] = best;
    }
    for (uint32_t i = 0; i < raw->count; i++) {
        if (raw->entries[i].use == FCONF_UNREAD) raw->entries[i].use = FCONF_NOT_MODELLED;
    }
    return check_values(raw, c, err, n);
}

bool fconf_check_heartbeat(const fconf_raw *raw, const fconf *c, char *err, size_t n) {
    assert(raw != NULL && c != NULL && err != NULL);
    char at[1400];
    /* absim's own bound (scenarios/README.md, network): a timeout no longer
     * than the interval and a round trip (2 x the default 200 us RPC
     * latency) declares every TaskManager lost. */
    if ((c->set[FC_HB_TIMEOUT] || c->set[FC_HB_INTERVAL]) && c->num[FC_HB_TIMEOUT] <= c->num[FC_HB_INTERVAL] + 400000) {
        where(raw, c->from[c->set[FC_HB_TIMEOUT] ? FC_HB_TIMEOUT : FC_HB_INTERVAL], at, sizeof at);
        snprintf(err, n, "%s: heartbeat.timeout %lld ms is not above heartbeat.interval %lld ms plus a round trip: absim "
                 "would declare every TaskManager lost", at, (long long)(c->num[FC_HB_TIMEOUT] / 1000000),
                 (long long)(c->num[FC_HB_INTERVAL] / 1000000));
        return false;
    }
    return true;
}
