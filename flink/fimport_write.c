/* flink/fimport_write.c: the scenario file of an imported job (see
 * fimport.h): the job, the configuration with where each value came from,
 * and the stated defaults for what Flink's files do not hold. */
#include "fimport.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fval.h"

#define NS_PER_S 1000000000LL

/* In the largest unit absim reads that holds it exactly. */
static const char *dur(char *buf, size_t n, int64_t ns) {
    static const struct { const char *u; int64_t ns; } units[] = {
        { "h", 3600 * NS_PER_S }, { "min", 60 * NS_PER_S }, { "s", NS_PER_S }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
    };
    if (ns == 0) { snprintf(buf, n, "0ms"); return buf; }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (ns % units[i].ns == 0) { snprintf(buf, n, "%" PRId64 "%s", ns / units[i].ns, units[i].u); return buf; }
    }
    return buf;
}

/* Where a field's value came from: "file:line key" or Flink's default. */
static void origin(FILE *f, const fconf_raw *raw, const fconf *c, fconf_field k) {
    const fconf_row *r = fconf_row_of(k);
    if (c->set[k] && raw != NULL && raw->format == FCONF_REST) {
        fprintf(f, "#   %s: %s (REST field %s)\n", r->keys[0], c->from[k]->value, c->from[k]->key);
    } else if (c->set[k]) {
        fprintf(f, "#   %s: %s (%s:%u)\n", c->from[k]->key, c->from[k]->value, raw->path, c->from[k]->line);
    } else {
        fprintf(f, "#   %s: %s (Flink's default: %s)\n", r->keys[0], r->dflt[0] ? r->dflt : "none", r->source);
    }
}

/* The run's input: how long the sources read and how fast, so the topics
 * hold at most o->records_max records. */
typedef struct input_plan {
    int64_t  input_ns;
    uint32_t rate;           /* per source task, records per second */
    uint64_t per_partition;
    uint32_t source_tasks;
} input_plan;

static input_plan plan_input(const fimp_job *j, const fimp_opts *o, int64_t interval_ns) {
    input_plan ip = { .input_ns = o->input_ns };
    if (ip.input_ns == 0) {                       /* 10 intervals, clamped before it could overflow */
        ip.input_ns = interval_ns > 180 * NS_PER_S ? 1800 * NS_PER_S : 10 * interval_ns;
        if (ip.input_ns < NS_PER_S) ip.input_ns = NS_PER_S;
    }
    for (uint32_t v = 0; v < j->vcount; v++) {
        if (j->v[v].kind == FV_SOURCE) ip.source_tasks += j->v[v].parallelism;
    }
    double secs = (double)ip.input_ns / NS_PER_S;
    ip.rate = o->rate_per_s;
    if (ip.rate == 0) {
        double r = (double)o->records_max / (secs * (ip.source_tasks > 0 ? ip.source_tasks : 1));
        ip.rate = r > 1000 ? 1000 : r < 1 ? 1 : (uint32_t)r;
    }
    ip.per_partition = (uint64_t)((double)ip.rate * secs);
    if (ip.per_partition == 0) ip.per_partition = 1;
    return ip;
}

static void write_header(FILE *f, const fplan *p, const fconf_raw *raw, const fimp_job *j, const char *command,
                         const char *scn_path) {
    fprintf(f, "# Imported from a Flink %s plan: %s%s%s\n", p->shape == FPLAN_STREAM ? "StreamGraph" : "JobGraph",
            p->path, p->job_name[0] ? ", job " : "", p->job_name);
    if (raw != NULL) fprintf(f, "# with the configuration %s, read as %s\n", raw->path, fconf_format_name(raw->format));
    else fprintf(f, "# with no configuration file: Flink's defaults\n");
    fprintf(f, "# by: %s\n#\n", command);
    fprintf(f, "# Run it as it is, and under random faults:\n#\n#     absim run %s\n"
               "#     absim swarm %s --seeds 1..100 --faults random\n#\n", scn_path, scn_path);
    fprintf(f, "# The plan's %u Flink vertices (tasks) made %u absim vertices:\n", p->chains, j->vcount);
    for (uint32_t v = 0; v < j->vcount; v++) {
        const fimp_vertex *x = &j->v[v];
        fprintf(f, "#   %s (%s, parallelism %u): %s\n", x->name, fimp_kind_word(x->kind), x->parallelism, x->ops);
    }
    if (j->ncount > 0) fprintf(f, "# Where the model departs from the plan:\n");
    for (uint32_t i = 0; i < j->ncount; i++) fprintf(f, "#   %s\n", j->notes[i]);
    if (j->ndropped > 0) fprintf(f, "#   (%u more)\n", j->ndropped);
}

static void write_job(FILE *f, const fimp_job *j, const input_plan *ip, const fimp_opts *o) {
    char d1[32];
    for (uint32_t v = 0; v < j->vcount; v++) {
        if (j->v[v].kind != FV_SOURCE) continue;
        fprintf(f, "broker topic %s partitions %u records %" PRIu64 " keys %u\n", j->v[v].name, j->v[v].parallelism,
                ip->per_partition, o->keys);
    }
    for (uint32_t v = 0; v < j->vcount; v++) {
        const fimp_vertex *x = &j->v[v];
        fprintf(f, "vertex %s %s", x->name, fimp_kind_word(x->kind));
        if (x->kind == FV_WINDOW) {
            if (x->win_slide_ns == x->win_size_ns) fprintf(f, " tumbling %s", dur(d1, sizeof d1, x->win_size_ns));
            else {
                fprintf(f, " sliding %s", dur(d1, sizeof d1, x->win_size_ns));
                fprintf(f, " every %s", dur(d1, sizeof d1, x->win_slide_ns));
            }
        }
        fprintf(f, " parallelism %u cost %s", x->parallelism, dur(d1, sizeof d1, x->cost_ns));
        if (x->max_parallelism > 0) fprintf(f, " max-parallelism %u", x->max_parallelism);
        if (x->kind == FV_SOURCE) fprintf(f, " topic %s rate %u/s", x->name, ip->rate);
        if (x->kind == FV_SOURCE && x->watermarks) fprintf(f, " watermark-delay %s", dur(d1, sizeof d1, x->wm_delay_ns));
        if (x->kind == FV_FILTER) fprintf(f, " keep %u%%", o->keep_pct);
        if (x->kind == FV_SINK) fprintf(f, " output %s", x->output);
        fprintf(f, "\n");
    }
    for (uint32_t e = 0; e < j->ecount; e++) {
        fprintf(f, "edge %s -> %s %s\n", j->v[j->e[e].from].name, j->v[j->e[e].to].name, j->e[e].part);
    }
}

/* checkpoint ...: Flink's mode, unaligned switch and alignment timeout as
 * absim's three modes (unaligned with an aligned-checkpoint-timeout starts
 * aligned and switches: absim's `mode aligned alignment-timeout`). */
static bool write_checkpoint(FILE *f, const fconf *c, int64_t interval_ns) {
    char d1[32], d2[32], d3[32];
    bool alo = fval_enum(c->text[FC_MODE], (const char *const[]){ "EXACTLY_ONCE", "AT_LEAST_ONCE", NULL }) == 1;
    bool unaligned = !alo && c->num[FC_UNALIGNED] != 0;
    const char *mode = alo ? "at-least-once" : unaligned && c->num[FC_ALIGNED_TIMEOUT] == 0 ? "unaligned" : "aligned";
    fprintf(f, "checkpoint mode %s interval %s min-pause %s timeout %s max-concurrent %" PRId64 " tolerable %" PRId64
               " retained %" PRId64, mode, dur(d1, sizeof d1, interval_ns), dur(d2, sizeof d2, c->num[FC_MIN_PAUSE]),
            dur(d3, sizeof d3, c->num[FC_TIMEOUT]), c->num[FC_MAX_CONCURRENT], c->num[FC_TOLERABLE], c->num[FC_RETAINED]);
    if (unaligned && c->num[FC_ALIGNED_TIMEOUT] > 0) fprintf(f, " alignment-timeout %s", dur(d1, sizeof d1, c->num[FC_ALIGNED_TIMEOUT]));
    if (c->num[FC_FINISHED_TASKS] == 0) fprintf(f, " finished-tasks off");
    fprintf(f, "\n");
    return alo;
}

/* Flink's checkpoint storage: jobmanager keeps snapshots in the
 * JobManager's heap (absim's memory backend), filesystem writes files
 * (durable); unset, a checkpoint directory means filesystem
 * (CheckpointStorageLoader). Incremental needs a backend that has it. */
static bool durable_storage(const fconf *c) {
    const char *s = c->text[FC_STORAGE];
    if (strstr(s, "FileSystem") != NULL || fval_enum(s, (const char *const[]){ "filesystem", NULL }) == 0) return true;
    if (strstr(s, "JobManager") != NULL || fval_enum(s, (const char *const[]){ "jobmanager", NULL }) == 0) return false;
    return c->text[FC_CHECKPOINT_DIR][0] != '\0';
}

static void write_state(FILE *f, const fconf *c) {
    bool durable = durable_storage(c);
    const char *b = c->text[FC_BACKEND];
    bool has_incr = strstr(b, "RocksDB") != NULL || strstr(b, "ForSt") != NULL ||
                    fval_enum(b, (const char *const[]){ "rocksdb", "forst", NULL }) >= 0;
    bool incr = c->num[FC_INCREMENTAL] != 0 && has_incr && durable;
    if (c->num[FC_INCREMENTAL] != 0 && !incr)
        fprintf(f, "# incremental asked, but %s: written in full\n",
                !has_incr ? "the state backend has no incremental snapshots" : "snapshots go to the JobManager's memory");
    fprintf(f, "state backend %s async %s\n", durable ? "durable" : "memory", incr ? "incremental" : "full");
}

/* restart-strategy.type's spellings, as RestartBackoffTimeStrategyFactoryLoader
 * lower-cases and matches them: 0-2 none, 3-4 fixed delay, 5-6 failure
 * rate, 7-8 exponential delay. */
static int restart_kind(const fconf *c) {
    static const char *const names[] = { "none", "off", "disable", "fixeddelay", "fixed-delay", "failurerate",
                                         "failure-rate", "exponentialdelay", "exponential-delay", NULL };
    int k = fval_enum(c->text[FC_RESTART], names);
    return k <= 2 ? 0 : k <= 4 ? 1 : k <= 6 ? 2 : 3;
}

/* The restart statement. Without restart-strategy.type Flink (1.19+,
 * FLIP-364) takes exponential delay with the options' defaults whenever
 * checkpoints are on, whatever restart-strategy.*.* say; the import always
 * has checkpoints on. */
static bool write_restart(FILE *f, const fconf_raw *raw, const fconf *given) {
    static const fconf_field params[4][7] = {
        { FC_COUNT },
        { FC_FD_ATTEMPTS, FC_FD_DELAY, FC_COUNT },
        { FC_FR_MAX, FC_FR_INTERVAL, FC_FR_DELAY, FC_COUNT },
        { FC_EX_INITIAL, FC_EX_MAX, FC_EX_MULTIPLIER, FC_EX_RESET, FC_EX_JITTER, FC_EX_ATTEMPTS, FC_COUNT },
    };
    char d1[32], d2[32], d3[32], err[64];
    fconf flink;
    const fconf *c = given;
    int k = 3;
    if (given->set[FC_RESTART]) {
        k = restart_kind(given);
        origin(f, raw, given, FC_RESTART);
    } else {
        fconf_resolve(NULL, &flink, err, sizeof err);
        c = &flink;
        fprintf(f, "#   restart-strategy.type: unset: with checkpoints on, Flink 1.19+ restarts with exponential-delay "
                   "at its options' defaults, whatever restart-strategy.* say (RestartBackoffTimeStrategyFactoryLoader, "
                   "FLIP-364; up to 1.18: fixed-delay, Integer.MAX_VALUE attempts, 1s apart)\n");
    }
    for (int i = 0; params[k][i] != FC_COUNT; i++) origin(f, raw, c, params[k][i]);
    origin(f, raw, given, FC_FAILOVER);
    const char *failover = fval_enum(given->text[FC_FAILOVER], (const char *const[]){ "full", NULL }) == 0 ? " failover full" : "";
    bool gives_up = k == 0 || k == 2 || (k == 1 && c->num[FC_FD_ATTEMPTS] < INT32_MAX) ||
                    (k == 3 && c->num[FC_EX_ATTEMPTS] < INT32_MAX);
    if (k == 0) {
        fprintf(f, "restart none%s\n", failover);
    } else if (k == 1) {
        fprintf(f, "restart fixed-delay attempts %" PRId64 " delay %s%s\n", c->num[FC_FD_ATTEMPTS],
                dur(d1, sizeof d1, c->num[FC_FD_DELAY]), failover);
    } else if (k == 2) {
        fprintf(f, "restart failure-rate max %" PRId64 " per %s delay %s%s\n", c->num[FC_FR_MAX],
                dur(d1, sizeof d1, c->num[FC_FR_INTERVAL]), dur(d2, sizeof d2, c->num[FC_FR_DELAY]), failover);
    } else {
        fprintf(f, "restart exponential initial %s max %s multiplier %g reset %s jitter %g",
                dur(d1, sizeof d1, c->num[FC_EX_INITIAL]), dur(d2, sizeof d2, c->num[FC_EX_MAX]), c->real[FC_EX_MULTIPLIER],
                dur(d3, sizeof d3, c->num[FC_EX_RESET]), c->real[FC_EX_JITTER]);
        if (c->num[FC_EX_ATTEMPTS] < INT32_MAX) fprintf(f, " attempts %" PRId64, c->num[FC_EX_ATTEMPTS]);
        fprintf(f, "%s\n", failover);
    }
    return gives_up;
}

/* The fields a statement of the file shows (write_config, write_cluster);
 * the restart parameters of the strategy chosen only. */
static bool shown(const fconf *c, fconf_field k) {
    static const fconf_field by_kind[4][2] = { { FC_COUNT, FC_COUNT }, { FC_FD_ATTEMPTS, FC_FD_DELAY },
                                               { FC_FR_MAX, FC_FR_DELAY }, { FC_EX_INITIAL, FC_EX_ATTEMPTS } };
    if (k >= FC_FD_ATTEMPTS && k <= FC_EX_ATTEMPTS) {
        int r = c->set[FC_RESTART] ? restart_kind(c) : 3;
        return c->set[FC_RESTART] && k >= by_kind[r][0] && k <= by_kind[r][1];
    }
    return k != FC_PARALLELISM;
}

/* Every key the configuration holds that absim does not model, by name;
 * and those it read whose value no statement shows, with why. */
static void write_unmodelled(FILE *f, const fconf_raw *raw, const fconf *c) {
    if (raw == NULL) return;
    uint32_t count = 0;
    for (uint32_t i = 0; i < raw->count; i++) count += raw->entries[i].use == FCONF_NOT_MODELLED;
    fprintf(f, "#\n# %u key%s of %s that absim does not model%s\n", count, count == 1 ? "" : "s", raw->path,
            count > 0 ? " (they change nothing here):" : ".");
    for (uint32_t i = 0; i < raw->count; i++) {
        const fconf_entry *e = &raw->entries[i];
        if (e->use != FCONF_NOT_MODELLED) continue;
        if (e->line > 0) fprintf(f, "#   %s (line %u)\n", e->key, e->line);
        else fprintf(f, "#   %s\n", e->key);
    }
    for (uint32_t i = 0; i < raw->count; i++) {
        const fconf_entry *e = &raw->entries[i];
        if (e->use == FCONF_SHADOWED) fprintf(f, "#   %s (line %u): overridden by a later line or the key's newer name\n", e->key, e->line);
    }
    for (uint32_t i = 0; i < raw->count; i++) {
        const fconf_entry *e = &raw->entries[i];
        if (e->use != FCONF_MODELLED || e->field < 0 || shown(c, (fconf_field)e->field)) continue;
        const char *why = e->field == FC_PARALLELISM ? "the plan gives every vertex its parallelism"
                        : !c->set[FC_RESTART] ? "restart-strategy.type is unset, so Flink takes the default strategy with its own options"
                                              : "a parameter of another restart strategy than the one chosen";
        fprintf(f, "#   %s (line %u): read, but it changes nothing here: %s\n", e->key, e->line, why);
    }
    for (uint32_t i = 0; i < raw->note_count; i++) fprintf(f, "#   %s\n", raw->notes[i]);
}

static void write_cluster(FILE *f, const fconf_raw *raw, const fconf *c, const fimp_job *j) {
    char d1[32], d2[32];
    uint32_t maxp = 1;
    for (uint32_t v = 0; v < j->vcount; v++) maxp = j->v[v].parallelism > maxp ? j->v[v].parallelism : maxp;
    uint32_t slots = c->num[FC_SLOTS] > 0 ? (uint32_t)c->num[FC_SLOTS] : 1;
    uint32_t machines = (maxp + slots - 1) / slots;
    fprintf(f, "# TaskManagers: as many as the largest parallelism (%u) needs at %u slot%s each, slots shared as "
               "Flink shares them by default\n", maxp, slots, slots == 1 ? "" : "s");
    origin(f, raw, c, FC_SLOTS);
    fprintf(f, "machines %u slots %u\n", machines, slots);
    fprintf(f, "# Applied to the plan: chaining, and the max parallelism of vertices the plan gives none\n");
    origin(f, raw, c, FC_CHAINING);
    origin(f, raw, c, FC_MAX_PARALLELISM);
    origin(f, raw, c, FC_HB_INTERVAL);
    origin(f, raw, c, FC_HB_TIMEOUT);
    fprintf(f, "network heartbeat-interval %s heartbeat-timeout %s\n", dur(d1, sizeof d1, c->num[FC_HB_INTERVAL]),
            dur(d2, sizeof d2, c->num[FC_HB_TIMEOUT]));
    origin(f, raw, c, FC_BUFFER_TIMEOUT);
    if (c->set[FC_BUFFER_TIMEOUT_ON]) origin(f, raw, c, FC_BUFFER_TIMEOUT_ON);
    if (c->num[FC_BUFFER_TIMEOUT_ON] == 0)
        fprintf(f, "# buffer timeout off: Flink sends a buffer only when full; absim flushes after 1 hour\n");
    fprintf(f, "channels buffer-timeout %s\n",
            dur(d1, sizeof d1, c->num[FC_BUFFER_TIMEOUT_ON] != 0 ? c->num[FC_BUFFER_TIMEOUT] : 3600 * NS_PER_S));
}

/* Returns whether the restart strategy can give up (then the job may
 * fail); *alo: whether checkpoints are at-least-once. */
static bool write_config(FILE *f, const fconf_raw *raw, const fconf *c, int64_t interval_ns, bool *alo) {
    fprintf(f, "#\n# The checkpoint configuration:\n");
    if (c->num[FC_INTERVAL] < 0)
        fprintf(f, "#   no checkpoint interval (Flink runs without checkpoints then): absim's import sets one "
                   "(--interval) so there is a protocol to test\n");
    static const fconf_field ck[] = { FC_INTERVAL, FC_MODE, FC_UNALIGNED, FC_ALIGNED_TIMEOUT, FC_MIN_PAUSE, FC_TIMEOUT,
                                      FC_MAX_CONCURRENT, FC_TOLERABLE, FC_RETAINED, FC_FINISHED_TASKS };
    for (size_t i = 0; i < sizeof ck / sizeof ck[0]; i++) origin(f, raw, c, ck[i]);
    *alo = write_checkpoint(f, c, interval_ns);
    static const fconf_field st[] = { FC_STORAGE, FC_CHECKPOINT_DIR, FC_BACKEND, FC_INCREMENTAL };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) origin(f, raw, c, st[i]);
    write_state(f, c);
    return write_restart(f, raw, c);
}

void fimp_write(FILE *f, const fplan *p, const fconf_raw *raw, const fconf *c, const fimp_opts *o,
                const fimp_job *j, const char *command, const char *scn_path) {
    assert(f != NULL && p != NULL && c != NULL && o != NULL && j != NULL);
    char d1[32], d2[32];
    int64_t interval_ns = c->num[FC_INTERVAL] > 0 ? c->num[FC_INTERVAL] : o->interval_ns;
    input_plan ip = plan_input(j, o, interval_ns);
    write_header(f, p, raw, j, command, scn_path);
    fprintf(f, "#\n# What a plan does not hold, as absim's import sets it (a flag, or edit the line):\n");
    fprintf(f, "#   the sources read for %s (--input; default 10 checkpoint intervals, 1s to 30min)\n",
            dur(d1, sizeof d1, ip.input_ns));
    fprintf(f, "#   %u records per second per source task (--rate; default: at most %u records in all, at most "
               "1000/s)\n", ip.rate, o->records_max);
    fprintf(f, "#   one partition per source task, %u keys per topic, uniform (--keys)\n", o->keys);
    fprintf(f, "#   costs per record: a source 2us, a stateful operator 3us, others 1us, plus 1us per operator "
               "chained into it\n");
    fprintf(f, "#   a filter keeps %u%% (--keep); a window's size from its name, else 1s tumbling; watermarks "
               "1ms behind unless the plan says\n", o->keep_pct);
    fprintf(f, "#   state sizes follow from the keys; max parallelism: the plan's or pipeline.max-parallelism, else "
               "Flink's default per vertex (KeyGroupRangeAssignment); operator uids: absim names vertices by operator "
               "name (edit a vertex's max-parallelism to change it)\n");
    for (uint32_t v = 0; v < j->vcount; v++) {
        if (j->v[v].kind == FV_SINK) fprintf(f, "#   %s writes %s: %s\n", j->v[v].name, j->v[v].output, j->v[v].output_why);
    }
    fprintf(f, "seed %" PRIu64 "\n", o->seed);
    write_cluster(f, raw, c, j);
    write_job(f, j, &ip, o);
    bool alo = false, gives_up = write_config(f, raw, c, interval_ns, &alo);
    fprintf(f, "# The run's bound: three times the input, plus 30 minutes for restarts\n");
    fprintf(f, "bounds time %s\n", dur(d2, sizeof d2, 3 * ip.input_ns + 1800 * NS_PER_S));
    if (gives_up) {
        fprintf(f, "# No expectation of the job's end: this restart strategy gives up, and under random faults\n"
                   "# the job may fail, as Flink's would. The invariants I1-I6 judge every run.\n");
    } else if (alo) {
        fprintf(f, "# AT_LEAST_ONCE checkpoints promise every record at least once, not exactly once\n");
        fprintf(f, "expect output at-least-once\n");
    } else {
        fprintf(f, "expect exactly-once\n");
    }
    write_unmodelled(f, raw, c);
}
