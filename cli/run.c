/* cli/run.c: `absim run FILE` and `absim replay FILE --seed S`: one run of
 * a scenario, its summary, and its expectations checked. Exit 0: every
 * expectation held; 1: one failed (or the run hit a bound, or a replay's
 * trace hash differs); 2: the scenario or an option is wrong. The same
 * function runs each seed of `absim swarm` (cli/swarm.c). */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../model/flow/window.h"

static bool compare(uint64_t got, scn_cmp cmp, uint64_t want) {
    switch (cmp) {
    case SCN_EQ: return got == want;
    case SCN_GE: return got >= want;
    case SCN_LE: return got <= want;
    case SCN_GT: return got > want;
    case SCN_LT: return got < want;
    }
    return false;
}

void cli_failure_add(cli_failures *f, const char *fmt, ...) {
    if (f->count == CLI_FAILURES_MAX) {
        f->dropped++;
        return;
    }
    char *t = f->text[f->count++];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t, CLI_FAILURE_BYTES, fmt, ap);
    va_end(ap);
    if (n >= (int)CLI_FAILURE_BYTES) memcpy(t + CLI_FAILURE_BYTES - 4, "...", 4);   /* say it was cut */
}

void cli_failures_join(const cli_failures *f, char *buf, size_t n) {
    size_t used = 0;
    if (n > 0) buf[0] = '\0';
    for (uint32_t i = 0; i <= f->count && used < n; i++) {
        int w = i < f->count ? snprintf(buf + used, n - used, "%s%s", i ? "; " : "", f->text[i])
              : f->dropped > 0 ? snprintf(buf + used, n - used, " (and %u more)", f->dropped) : 0;
        used = w < 0 ? n : used + (size_t)w;
    }
}

void cli_failures_json(FILE *out, const cli_failures *f) {
    fputs("\"failures\":[", out);
    for (uint32_t i = 0; i < f->count; i++) {
        if (i > 0) fputc(',', out);
        cli_json_string(out, f->text[i]);
    }
    fprintf(out, "],\"failures_dropped\":%u", f->dropped);
}

static double ms(sim_time_ns ns) { return (double)ns / 1e6; }

/* Snapshots: sync and async parts, bytes, shared files, channel state. */
static void summary_state(FILE *out, const pipe_cfg *c, const pipe_stats *st) {
    char kind[64];
    if (c->state.changelog) snprintf(kind, sizeof kind, "changelog (%" PRIu64 " materializations)", st->materializations);
    else snprintf(kind, sizeof kind, "%s", c->state.incremental ? "incremental" : "full");
    fprintf(out, "  state: %s backend, %s, %s snapshots; %" PRIu64 " task snapshots, sync part mean %.3fms max %.3fms, "
            "async part mean %.3fms max %.3fms\n",
            c->state.backend == PIPE_BACKEND_DURABLE ? "durable" : "memory",
            kind, c->state.async ? "asynchronous" : "synchronous",
            st->snapshots, st->sync_parts ? ms(st->sync_ns_sum) / (double)st->sync_parts : 0.0, ms(st->sync_ns_max),
            st->snapshots ? ms(st->async_ns_sum) / (double)st->snapshots : 0.0, ms(st->async_ns_max));
    if (c->state.backend == PIPE_BACKEND_DURABLE) {
        fprintf(out, "  files: %" PRIu64 " written, %" PRIu64 " references to shared files; %" PRIu64
                " bytes in completed checkpoints; %" PRIu64 " snapshots failed at their task\n",
                st->files_created, st->files_shared, st->bytes_written, st->async_failures);
    } else {                                     /* the coordinator's heap: no files to speak of */
        fprintf(out, "  held by the coordinator: %" PRIu64 " bytes in completed checkpoints", st->bytes_written);
        if (c->state.incremental) fprintf(out, "; %" PRIu64 " references to earlier increments", st->files_shared);
        if (st->async_failures > 0) fprintf(out, "; %" PRIu64 " snapshots failed at their task", st->async_failures);
        fputc('\n', out);
    }
    if (st->unaligned_triggers > 0 || c->ckpt.mode == PIPE_UNALIGNED || c->ckpt.alignment_timeout_ns > 0) {
        fprintf(out, "  unaligned: %" PRIu64 " task triggers, %" PRIu64 " alignment timeouts, %" PRIu64
                " bytes of in-flight data persisted\n", st->unaligned_triggers, st->alignment_timeouts, st->cs_bytes);
    }
}

/* Event-time latency means something only when the sources read no
 * faster than the broker's event time goes (the model counts a record
 * read ahead of its event time as 0): paced, and no partition read at
 * more than one record per gap. A source task with the fewest partitions
 * reads each fastest. */
static bool latency_measured(const pipe_cfg *c) {
    bool paced = c->source_rate_per_s > 0;
    for (uint32_t v = 0; v < c->graph.vertices_count && paced; v++) {   /* every source, over its topic */
        const job_vertex *x = &c->graph.vertices[v];
        if (x->kind != JOB_SOURCE || x->topic >= broker_cfg_topics(&c->broker)) continue;
        broker_topic_cfg t = broker_cfg_topic(&c->broker, x->topic);
        uint64_t fewest = t.partitions >= x->parallelism ? t.partitions / x->parallelism : 1;
        paced = (unsigned __int128)c->source_rate_per_s * t.event_gap_ns <= (unsigned __int128)SIM_NS_PER_S * fewest;
    }
    return paced;
}

/* "  backpressure: map[0] 18.213ms, ...": the three tasks held up longest
 * with an output out of room (Flink's backPressuredTimeMsPerSecond, summed
 * over the run), ties in task order; nothing when none was. */
static void summary_backpressure(FILE *out, const pipeline *p) {
    const job *j = pipe_job(p);
    sim_time_ns below = SIM_TIME_NS_MAX;          /* the next pick is the longest under the last one */
    uint32_t last = 0;
    for (uint32_t i = 0; i < 3; i++) {
        uint32_t best = UINT32_MAX;
        sim_time_ns best_ns = 0;
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            sim_time_ns x = pipe_task_backpressure_ns(p, t);
            bool after = x < below || (x == below && t > last);   /* not picked yet: ties in task order */
            if (x > 0 && after && (best == UINT32_MAX || x > best_ns)) best = t, best_ns = x;
        }
        if (best == UINT32_MAX) break;
        const job_vertex *v = &j->vertices[j->tasks[best].vertex];
        fprintf(out, "%s %s[%u] %.3fms", i == 0 ? "  backpressure (an output out of room):" : ",", v->name,
                j->tasks[best].subtask, (double)best_ns / 1e6);
        below = best_ns;
        last = best;
    }
    if (below != SIM_TIME_NS_MAX) fputc('\n', out);
}

/* What PCT did, and what it promises (sim/choice.h). */
static void pct_summary(FILE *out, const choice_pct *c, sim_time_ns near_ns) {
    char d[32], near[64] = "", among[96] = "simultaneous events";
    if (near_ns > 0) {
        snprintf(near, sizeof near, " near %s", scn_duration_text(d, sizeof d, near_ns));
        snprintf(among, sizeof among, "events due within %s of the earliest", d);
    }
    fprintf(out, "  schedule: PCT depth %u over %" PRIu64 " order decisions (schedule pct depth %u steps %" PRIu64
            "%s): the run took %" PRIu64 " decisions among %s, %u destinations ready at them, %u of %u "
            "change points reached; a run finds a bug that %u ordering constraints among the first %" PRIu64
            " decisions' events show with probability at least 1/(%u x %" PRIu64 "^%u) = %.3g\n", c->depth, c->steps,
            c->depth, c->steps, near, c->seen, among, c->met, c->changed, c->depth - 1, c->depth, c->steps, c->met,
            c->steps, c->depth - 1, choice_pct_bound(c));
}

/* The run's summary lines (checkpoints, durations, state, records). */
static void summary(FILE *out, const scn *s, const pipeline *p, const pipe_stats *st, pipe_status status,
                    const cli_story *story) {
    const sim_run *run = pipe_sim((pipeline *)p);
    fprintf(out, "%s: seed %" PRIu64 ", %s at t=%.3fms after %" PRIu64 " events\n", s->path, s->cfg.seed,
            pipe_status_name(status), (double)run->now_ns / 1e6, run->stats.dispatched);
    if (s->cfg.bug != PIPE_BUG_NONE) {           /* the run is of a wrong protocol: say so before anything it did */
        const pipe_bug_info *b = pipe_bug_info_of(s->cfg.bug);
        fprintf(out, "  deliberate bug: %s (--bug): %s; %s\n", b->name, b->breaks, b->mechanism);
    }
    cli_story_faults(out, s, story);
    for (uint32_t i = 0; i < s->cfg.ties_count && pipe_tie_applied(p, &(uint32_t){ 0 }); i++) {
        const choice_tie *t = &s->cfg.ties[i];
        fprintf(out, "  schedule: at decision %" PRIu64 " among simultaneous events (of %" PRIu64 "), ready destination %u "
                "went first instead of the first in push order (schedule tie %" PRIu64 " pick %u)\n", t->at,
                pipe_tie_decisions(p), t->pick + 1, t->at, t->pick);
    }
    if (pipe_pct(p) != NULL) pct_summary(out, pipe_pct(p), s->cfg.pct_near_ns);
    fprintf(out, "  checkpoints: %" PRIu64 " triggered, %" PRIu64 " completed, %" PRIu64 " aborted (%" PRIu64
            " declined, %" PRIu64 " timed out, %" PRIu64 " subsumed, %" PRIu64 " lost with a failed attempt",
            st->triggered, st->completed, st->aborted, st->declined, st->timed_out, st->subsumed, st->lost_with_job);
    if (st->aborted_task_finished > 0) fprintf(out, ", %" PRIu64 " as a task finished", st->aborted_task_finished);
    fputs(")\n", out);
    if (st->completed > 0) {
        fprintf(out, "  duration: mean %.3fms, max %.3fms; start delay mean %.3fms, max %.3fms; "
                "alignment mean %.3fms, max %.3fms\n",
                (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6,
                (double)st->ckpt_duration_ns_max / 1e6,
                st->start_delays ? (double)st->start_delay_ns_sum / (double)st->start_delays / 1e6 : 0.0,
                (double)st->start_delay_ns_max / 1e6,
                st->alignments ? (double)st->alignment_ns_sum / (double)st->alignments / 1e6 : 0.0,
                (double)st->alignment_ns_max / 1e6);
    }
    summary_state(out, &s->cfg, st);
    char over[80] = "";                          /* an idempotent sink's rewrites are at sinks, not visible twice */
    if (st->overwrites > 0) snprintf(over, sizeof over, " (%" PRIu64 " overwrites by idempotent sinks)", st->overwrites);
    char rescales[48] = "";                      /* a rescale is a restart of its own, no failure */
    if (st->rescales > 0) snprintf(rescales, sizeof rescales, " (%" PRIu64 " of them rescales)", st->rescales);
    fprintf(out, "  restarts: %" PRIu64 "%s; records read %" PRIu64 ", processed %" PRIu64 ", at sinks %" PRIu64
            ", visible %" PRIu64 "%s\n", st->restarts, rescales, st->records_read, st->records_processed, st->sink_records,
            st->visible_records, over);
    if (st->watermarks + st->windows_fired + st->late_records > 0) {
        fprintf(out, "  event time: %" PRIu64 " watermarks sent, %" PRIu64 " windows fired (%" PRIu64
                " more firings on records within the allowed lateness), %" PRIu64 " records dropped as late\n",
                st->watermarks, st->windows_fired, st->late_firings, st->late_records);
    }
    summary_backpressure(out, p);
    cli_story_recovery(out, s, story, status);
    if (latency_measured(&s->cfg) && st->visible_records > 0) {
        fprintf(out, "  event-time latency of the visible output: mean %.3fms, max %.3fms\n",
                (double)st->latency_ns_sum / (double)st->visible_records / 1e6, (double)st->latency_ns_max / 1e6);
    }
    if (st->txn_committed + st->txn_aborted > 0) {
        fprintf(out, "  transactions: %" PRIu64 " committed, %" PRIu64 " aborted\n", st->txn_committed, st->txn_aborted);
    }
    if (st->failovers > 0) {
        fprintf(out, "  coordinator failovers: %" PRIu64 "; completed checkpoints lost with it: %" PRIu64 "\n",
                st->failovers, st->checkpoints_lost);
    }
    fprintf(out, "  trace_hash %016" PRIx64 "\n", run->trace_hash);
}

/* "invariants: I1 exactly-once state held; I2 consistent cut held (12 checks); I3 ... not promised; ..." */
static void summary_invariants(FILE *out, const check_report *r) {
    fprintf(out, "  invariants:");
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT; i++) {
        const char *verdict = !r->applies[i] ? "not promised" : r->violations[i] > 0 ? "VIOLATED"
                            : i == CHECK_I6 && r->unreachable[0] != '\0' ? "not judged (no checkpoint can complete)"
                            : r->checks[i] == 0 ? "not reached" : "held";
        fprintf(out, "%s %s %s %s", i == CHECK_I1 ? "" : ";", check_inv_name((check_inv)i), check_inv_title((check_inv)i),
                verdict);
        if (r->verdict_note[i] != NULL) fprintf(out, " (%s)", r->verdict_note[i]);
        if (r->applies[i] && r->checks[i] > 1) fprintf(out, " (%" PRIu64 " checks)", r->checks[i]);
    }
    fputc('\n', out);
}

/* `expect liveness D` set I6's bound (check_create): it holds when I6
 * found no gap longer than D and no stall. */
static void liveness(const check_report *r, bool *ok, char *got, size_t n) {
    *ok = r->violations[CHECK_I6] == 0;
    snprintf(got, n, "%s", r->applies[CHECK_I6] ? "no gap beyond the bound" : "not promised: the restart strategy gave up");
    for (uint32_t i = 0; i < r->kept_count && !*ok; i++) {
        if (r->kept[i].inv == CHECK_I6) {
            snprintf(got, n, "%s", r->kept[i].what);
            return;
        }
    }
}

#define CKPT_NEVER    UINT64_MAX          /* an expected checkpoint's time: it was never triggered */
#define CKPT_NOT_DONE (1ull << 63)         /* ... it ended otherwise (its pipe_ckpt_end in the low bits) */

/* What a comparing expectation counts; false for the others. */
static bool counted(const scn_expect *e, const pipe_stats *st, uint64_t *got) {
    switch (e->kind) {
    case SCN_EXPECT_CHECKPOINTS: *got = st->completed; return true;
    case SCN_EXPECT_RESTARTS:    *got = st->restarts; return true;
    case SCN_EXPECT_ABORTED:     *got = st->aborted; return true;
    case SCN_EXPECT_FAILOVERS:   *got = st->failovers; return true;
    case SCN_EXPECT_UNALIGNED:   *got = st->unaligned_triggers; return true;
    case SCN_EXPECT_FENCED:      *got = st->fenced_data + st->fenced_rpcs; return true;
    case SCN_EXPECT_DURATION:    *got = st->completed > 0 ? st->ckpt_duration_ns_sum / st->completed : 0; return true;
    case SCN_EXPECT_RELOCATED:   *got = st->relocated; return true;
    case SCN_EXPECT_CHECKPOINTED_BYTES: *got = st->bytes_written; return true;
    case SCN_EXPECT_RESTARTED_TASKS: *got = st->restarted_tasks; return true;
    case SCN_EXPECT_RECORDS_READ: *got = st->records_read; return true;
    case SCN_EXPECT_LATE_RECORDS: *got = st->late_records; return true;
    case SCN_EXPECT_WINDOWS_FIRED: *got = st->windows_fired; return true;
    case SCN_EXPECT_LATE_FIRINGS: *got = st->late_firings; return true;
    case SCN_EXPECT_RESCALED:    *got = st->rescales; return true;
    default: return false;
    }
}

/* A record id as the summary names it: pP@O (partition P, offset O), or
 * a window result as key K window W firing F. */
static void id_text(uint64_t id, char *buf, size_t n) {
    if (win_is_result(id)) {
        snprintf(buf, n, "a window result: key %" PRIu64 ", window %" PRIu64 ", firing %u", win_result_key(id),
                 win_result_index(id), win_result_firing(id));
    } else {
        snprintf(buf, n, "p%" PRIu64 "@%" PRIu64, id >> 40, (uint64_t)(id & BROKER_OFFSET_MAX));
    }
}

/* "3 of 80000 records lost (first p0@12), 0 duplicated": the first record
 * only when there is one. Window results count as records (check/window.c). */
static void output_got(const check_report *r, char *got, size_t n) {
    char lost[96] = "", dup[96] = "", id[80];
    if (r->out_lost > 0) {
        id_text(r->out_first_lost, id, sizeof id);
        snprintf(lost, sizeof lost, " (first %s)", id);
    }
    if (r->out_duplicated > 0) {
        id_text(r->out_first_duplicated, id, sizeof id);
        snprintf(dup, sizeof dup, " (first %s)", id);
    }
    snprintf(got, n, "%" PRIu64 " of %" PRIu64 " records lost%s, %" PRIu64 " duplicated%s", r->out_lost, r->out_records,
             lost, r->out_duplicated, dup);
}

static void expectation(const scn_expect *e, uint64_t task_value, const cli_outcome *o, const check_report *r, bool *ok,
                        char *got, size_t n) {
    const pipe_stats *st = &o->stats;
    switch (e->kind) {
    case SCN_EXPECT_FINISHED:
    case SCN_EXPECT_FAILED:
        *ok = o->status == (e->kind == SCN_EXPECT_FINISHED ? PIPE_FINISHED : PIPE_FAILED);
        snprintf(got, n, "%s", pipe_status_name(o->status));
        return;
    case SCN_EXPECT_EXACTLY_ONCE:
    case SCN_EXPECT_DUPLICATES:
        *ok = r->state_known && (e->kind == SCN_EXPECT_EXACTLY_ONCE ? r->state_equal : r->state_records > r->spec_records);
        if (!r->state_known) {
            snprintf(got, n, "the job did not finish (%s)", pipe_status_name(o->status));
        } else {
            snprintf(got, n, "%" PRIu64 " records counted in keyed state, %" PRIu64 " in the fold of the input%s",
                     r->state_records, r->spec_records, r->state_equal ? "" : "; the state differs from the fold");
        }
        return;
    case SCN_EXPECT_OUTPUT_EXACTLY_ONCE:
    case SCN_EXPECT_OUTPUT_AT_LEAST_ONCE:
    case SCN_EXPECT_OUTPUT_DUPLICATES:
    case SCN_EXPECT_OUTPUT_LOST:
        *ok = r->output_known && (e->kind == SCN_EXPECT_OUTPUT_DUPLICATES ? r->out_duplicated > 0
                                  : e->kind == SCN_EXPECT_OUTPUT_LOST ? r->out_lost > 0
                                  : e->kind == SCN_EXPECT_OUTPUT_AT_LEAST_ONCE ? r->out_lost == 0
                                  : r->out_lost == 0 && r->out_duplicated == 0);
        if (!r->output_known) {
            snprintf(got, n, "the job did not finish (%s)", pipe_status_name(o->status));
            return;
        }
        output_got(r, got, n);
        return;
    case SCN_EXPECT_LIVENESS:    liveness(r, ok, got, n); return;
    case SCN_EXPECT_BACKPRESSURE:
        *ok = compare(task_value, e->cmp, e->value);
        snprintf(got, n, "%.3fms", (double)task_value / 1e6);
        return;
    case SCN_EXPECT_CKPT_TRIGGERED:
    case SCN_EXPECT_CKPT_COMPLETED: {             /* rounds to the time as written */
        const char *what = e->kind == SCN_EXPECT_CKPT_TRIGGERED ? "triggered" : "completed";
        if (task_value == CKPT_NEVER) {
            *ok = false;
            snprintf(got, n, "checkpoint %" PRIu64 " was never triggered", e->ckpt);
        } else if (task_value & CKPT_NOT_DONE) {
            pipe_ckpt_end end = (pipe_ckpt_end)(task_value & ~CKPT_NOT_DONE);
            *ok = false;
            snprintf(got, n, "checkpoint %" PRIu64 " did not complete (%s)", e->ckpt,
                     end == PIPE_CKPT_PENDING ? "pending at the end" : pipe_ckpt_end_name(end));
        } else {
            *ok = 2 * task_value + e->res_ns >= 2 * e->value && 2 * task_value < 2 * e->value + e->res_ns;
            snprintf(got, n, "%s at %.*fms", what, e->res_ns >= SIM_NS_PER_US ? 3 : 6, (double)task_value / 1e6);
        }
        return;
    }
    case SCN_EXPECT_DURATION: {                   /* the summary's mean, to the microsecond */
        uint64_t mean = 0;
        *ok = st->completed > 0 && counted(e, st, &mean) && compare(mean, e->cmp, e->value);
        if (st->completed == 0) snprintf(got, n, "no checkpoint completed");
        else snprintf(got, n, "%.3fms", (double)mean / 1e6);
        return;
    }
    default: {
        uint64_t count = 0;
        *ok = counted(e, st, &count) && compare(count, e->cmp, e->value);
        snprintf(got, n, "%" PRIu64, count);
        return;
    }
    }
}

/* Verdicts: every violation of an invariant the configuration promises
 * fails the run, whatever the file expects; then the expect lines. */
static int verdicts(const scn *s, FILE *out, const check_report *r, cli_outcome *o) {
    int rc = CLI_OK;
    for (uint32_t i = 0; i < r->kept_count; i++) {
        const check_violation *v = &r->kept[i];
        char at[40];
        snprintf(at, sizeof at, "t=%.3fms", (double)v->at_ns / 1e6);
        char inv[64];
        snprintf(inv, sizeof inv, "%s violated at %s", check_inv_name(v->inv), at);
        /* The file, no line: the run broke it, no statement did. */
        cli_failure_add(&o->failures, "%s: invariant %s: %s", s->path, inv, v->what);
        if (out != NULL) fprintf(out, "  invariant %s violated at %s: %s\n", check_inv_name(v->inv), at, v->what);
        rc = CLI_FAIL;
    }
    if (check_total(r) > r->kept_count && out != NULL) {
        fprintf(out, "  ... %" PRIu64 " violations in all\n", check_total(r));
    }
    if (r->unreachable[0] != '\0') {            /* the configuration's verdict: a failed run, not a protocol's */
        cli_failure_add(&o->failures, "%s: configuration: %s", s->path, r->unreachable);
        if (out != NULL) fprintf(out, "  configuration: %s\n", r->unreachable);
        rc = CLI_FAIL;
    }
    for (uint32_t i = 0; i < s->expects_count; i++) {
        const scn_expect *e = &s->expects[i];
        bool ok = false;
        char got[200] = "", text[96];
        expectation(e, o->task_values[i], o, r, &ok, got, sizeof got);
        scn_expect_text(e, text, sizeof text);
        if (ok) {
            if (out != NULL) fprintf(out, "  expect %s: held\n", text);
            continue;
        }
        if (out != NULL) fprintf(out, "%s:%u: expectation failed: %s (got %s)\n", s->path, e->line, text, got);
        cli_failure_add(&o->failures, "%s:%u: expectation failed: %s (got %s)", s->path, e->line, text, got);
        if (o->failed_line == 0) o->failed_line = e->line;
        rc = CLI_FAIL;
    }
    return rc;
}

uint32_t cli_expect_failure(const scn *s, uint32_t i, const cli_outcome *o) {
    SIM_ASSERT(i < s->expects_count);
    const scn_expect *e = &s->expects[i];
    bool ok = false;
    char got[200];
    expectation(e, o->task_values[i], o, &o->report, &ok, got, sizeof got);
    if (ok) return 0;
    uint64_t count = 0;
    if (counted(e, &o->stats, &count)) return count < e->value ? 1 : count > e->value ? 2 : 3;
    switch (e->kind) {
    case SCN_EXPECT_FINISHED:
    case SCN_EXPECT_FAILED: return 1 + (uint32_t)o->status;
    case SCN_EXPECT_EXACTLY_ONCE:
    case SCN_EXPECT_DUPLICATES: return o->report.state_known ? 1 : 2;
    case SCN_EXPECT_LIVENESS: return 1;          /* a gap beyond the bound, or a stall */
    case SCN_EXPECT_CKPT_TRIGGERED:
    case SCN_EXPECT_CKPT_COMPLETED: {            /* never triggered, not completed, earlier, later */
        uint64_t v = o->task_values[i];
        return v == CKPT_NEVER ? 1 : (v & CKPT_NOT_DONE) ? 2 : v < e->value ? 3 : 4;
    }
    default: return o->report.output_known ? 1 : 2;
    }
}

/* Which faults of the script fired, whether optional or not, and a
 * failure (printed to out, which may be NULL) for each one not optional
 * that did not: scn_unfired() is asked about one fault at a time, the
 * others marked optional, so each gets a message of its own. */
static void fault_verdicts(const scn_armed *arm, sim_time_ns end_ns, FILE *out, cli_outcome *o) {
    _Static_assert(SCN_FAULTS_MAX <= 64, "one bit per fault");
    scn *one = malloc(sizeof *one);
    SIM_ASSERT(one != NULL);
    *one = *arm->s;
    for (uint32_t i = 0; i < one->faults_count; i++) one->faults[i].optional = true;
    scn_armed a = *arm;
    a.s = one;
    for (uint32_t i = 0; i < one->faults_count; i++) {
        char why[1024];                          /* path, the fault's line (SCN_FAULT_TEXT_BYTES), the reason */
        one->faults[i].optional = false;
        if (scn_unfired(&a, end_ns, why, sizeof why) == 0) {
            o->fired |= 1ull << i;
        } else if (!arm->s->faults[i].optional) {   /* a scripted fault that never fired tested nothing */
            o->unfired++;
            if (out != NULL) fprintf(out, "%s\n", why);
            cli_failure_add(&o->failures, "%s", why);
        }
        one->faults[i].optional = true;
    }
    free(one);
}

/* A schedule line whose deviation never happened fails the run, as a
 * fault that never fired: the file did not do what it says. */
static void tie_verdict(const scn *s, const pipeline *p, FILE *out, cli_outcome *o) {
    uint32_t first = 0;
    if (pipe_tie_applied(p, &first)) return;
    const choice_tie *t = &s->cfg.ties[first];
    char why[600];
    snprintf(why, sizeof why, "%s: schedule tie %" PRIu64 " pick %u never applied (the run made %" PRIu64
             " decisions among simultaneous events, or no more than %u destinations were ready at that one)", s->path,
             t->at, t->pick, pipe_tie_decisions(p), t->pick);
    o->unfired++;
    if (out != NULL) fprintf(out, "%s\n", why);
    cli_failure_add(&o->failures, "%s", why);
}

bool cli_memory_ok(const pipe_cfg *cfg, uint32_t pipelines, bool checkers, char *err, size_t err_bytes) {
    pipe_mem m;
    if (!pipe_memory(cfg, &m, err, err_bytes)) return false;
    for (uint32_t i = 0; i < PIPE_MEM_PARTS; i++) m.bytes[i] *= pipelines;
    m.bytes[PIPE_MEM_CHECKERS] = checkers ? check_memory_bytes(cfg, m.tasks, m.chans) : 0;
    pipe_mem_sum(&m);
    if (m.total_bytes <= PIPE_MEMORY_MAX_BYTES) return true;
    pipe_mem_refusal(&m, PIPE_MEMORY_MAX_BYTES, err, err_bytes);
    return false;
}

/* The points the seed's run of s reaches as it is, and the menu of
 * faults for them (explore's: every kind, a checkpoint interval's
 * window); false when the run cannot be built. */
static bool points_and_menu(scn *s, spc_points *pts, spc_menu *menu) {
    char err[SCN_ERR_BYTES];
    pipe_cfg *cfg = malloc(sizeof *cfg);          /* PCT's K is counted later, with the drawn faults: resolved in a copy */
    if (cfg != NULL) *cfg = s->cfg;
    pipeline *p = cfg != NULL && cli_pct_resolve(s, cfg, err, sizeof err) ? pipe_create(cfg, err, sizeof err) : NULL;
    free(cfg);
    scn_armed *arm = malloc(sizeof *arm);
    scn *scratch = malloc(sizeof *scratch);
    bool ok = p != NULL && arm != NULL && scratch != NULL && spc_points_init(pts, pipe_job(p));
    if (ok) {
        scn_arm_faults(s, p, arm, spc_points_observe, pts);
        pipe_run(p);
        spc_opts o = { .kinds = spc_kinds_all(),
                       .window_ns = s->cfg.ckpt.enabled ? s->cfg.ckpt.interval_ns : 10 * SIM_NS_PER_MS };
        spc_menu_build(s, pipe_job(p), &o, scratch, menu);
        pts->j = NULL;                            /* the job goes with the pipeline */
    }
    free(arm);
    free(scratch);
    pipe_destroy(p);
    return ok;
}

uint32_t cli_buggify_faults(scn *s, bgy_tally *t) {
    *t = (bgy_tally){ 0 };
    scn_random_settings(s, s->cfg.seed);          /* first: the points are those of the run with them */
    spc_points pts = { 0 };
    spc_menu *menu = malloc(sizeof *menu);
    if (menu != NULL && points_and_menu(s, &pts, menu)) bgy_faults(s, s->cfg.seed, &pts, menu, t);
    spc_points_free(&pts);
    free(menu);
    return t->added;
}

uint32_t cli_random_faults(scn *s) {
    if (s->profile == SCN_PROFILE_BUGGIFY) {
        bgy_tally t;
        return cli_buggify_faults(s, &t);
    }
    sim_time_ns horizon = pipe_horizon_ns(&s->cfg);   /* estimated, not simulated: model/horizon.c */
    return scn_random_faults(s, s->cfg.seed, horizon > 10 * SIM_NS_PER_MS ? horizon : 10 * SIM_NS_PER_MS);
}

bool cli_pct_resolve(const scn *s, pipe_cfg *cfg, char *err, size_t err_bytes) {
    if (cfg->pct_depth == 0 || cfg->pct_steps > 0) return true;
    pipe_cfg *c = malloc(sizeof *c);
    scn_armed *arm = malloc(sizeof *arm);
    pipeline *p = NULL;
    if (c != NULL && arm != NULL) {
        *c = *cfg;
        c->pct_depth = 0;
        c->ties_counted = true;                   /* the decisions are counted, none deviates */
        p = pipe_create(c, err, err_bytes);
    } else {
        snprintf(err, err_bytes, "out of memory");
    }
    if (p != NULL) {
        scn_arm_faults(s, p, arm, NULL, NULL);
        pipe_run(p);
        cfg->pct_steps = pipe_tie_decisions(p) > 0 ? pipe_tie_decisions(p) : 1;
        pipe_destroy(p);
    }
    free(c);
    free(arm);
    return p != NULL;
}

/* What the run prints (summary, violations, expectations, faults that
 * never fired) to out; with `kept`, into a malloc'd copy too (the run
 * viewer shows it; NULL when memory was short). */
static int report_run(const scn *s, pipeline *p, const check_report *r, const scn_armed *arm, FILE *out, char **kept,
                      cli_outcome *o) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = kept != NULL ? open_memstream(&buf, &len) : NULL;
    FILE *text = mem != NULL ? mem : out;
    if (text != NULL) {
        summary(text, s, p, &o->stats, o->status, &o->story);
        summary_invariants(text, r);
    }
    int rc = verdicts(s, text, r, o);
    fault_verdicts(arm, pipe_sim(p)->now_ns, text, o);
    tie_verdict(s, p, text, o);
    if (mem != NULL) {
        bool closed = fclose(mem) == 0;
        if (out != NULL && buf != NULL) fwrite(buf, 1, len, out);   /* out's errors show when it is committed */
        *kept = closed ? buf : NULL;
        if (!closed) free(buf);
    }
    return rc;
}

/* When checkpoint e->ckpt was triggered or completed, as the run's
 * history has it; CKPT_NEVER when it was not triggered, CKPT_NOT_DONE |
 * its end when it ended otherwise (or was pending at the end). */
static uint64_t ckpt_time(const pipeline *p, const scn_expect *e) {
    uint32_t count = 0;
    const pipe_ckpt_rec *h = pipe_history(p, &count);
    for (uint32_t k = 0; k < count; k++) {
        if (h[k].id != e->ckpt) continue;
        if (e->kind == SCN_EXPECT_CKPT_TRIGGERED) return h[k].triggered_ns;
        return h[k].end == PIPE_CKPT_COMPLETED ? h[k].ended_ns : CKPT_NOT_DONE | (uint64_t)h[k].end;
    }
    return CKPT_NEVER;
}

/* What the verdicts read of a finished run. */
static void outcome_fill(cli_outcome *o, const scn *s, pipeline *p, const check_report *r) {
    o->trace_hash = pipe_sim(p)->trace_hash;
    o->order_decisions = pipe_tie_decisions(p);
    o->status = pipe_get_status(p);
    o->stats = *pipe_get_stats(p);
    o->completed = o->stats.completed;
    o->restarts = o->stats.restarts;
    o->report = *r;
    memcpy(o->reach, pipe_reached(p), sizeof o->reach);
    const choice_pct *pct = pipe_pct(p);
    if (pct != NULL) {
        o->pct = (cli_pct_seen){ .depth = pct->depth, .met = pct->met, .changed = pct->changed, .steps = pct->steps,
                                 .decisions = pct->seen, .near_ns = s->cfg.pct_near_ns, .bound = choice_pct_bound(pct) };
    }
    for (uint32_t i = 0; i < s->expects_count; i++) {   /* what expect lines about one task or checkpoint compare */
        const scn_expect *e = &s->expects[i];
        if (e->kind == SCN_EXPECT_BACKPRESSURE) {
            o->task_values[i] = pipe_task_backpressure_ns(p, pipe_job(p)->vertex_first_task[e->vertex] + e->subtask);
        } else if (e->kind == SCN_EXPECT_CKPT_TRIGGERED || e->kind == SCN_EXPECT_CKPT_COMPLETED) {
            o->task_values[i] = ckpt_time(p, e);
        }
    }
}

int cli_verdicts(const scn *s, pipeline *p, const check_report *r, const scn_armed *arm, FILE *out, cli_outcome *o) {
    outcome_fill(o, s, p, r);
    summary_invariants(out, r);
    int rc = verdicts(s, out, r, o);
    fault_verdicts(arm, pipe_sim(p)->now_ns, out, o);
    tie_verdict(s, p, out, o);
    return o->unfired > 0 ? CLI_FAIL : rc;
}

int cli_run_scenario(scn *s, bool random_faults, FILE *log, FILE *out, FILE *trace, FILE *dot, uint64_t dot_ckpt, const cli_views *views,
                     cli_outcome *o) {
    char err[SCN_ERR_BYTES];
    memset(o, 0, sizeof *o);
    if (!cli_memory_ok(&s->cfg, 1, true, err, sizeof err)) {    /* one pipeline at a time, and the checkers */
        cli_failure_add(&o->failures, "%s: %s", s->path, err);
        return CLI_USAGE;
    }
    if (random_faults) o->random_faults = cli_random_faults(s);
    pipeline *p = cli_pct_resolve(s, &s->cfg, err, sizeof err) ? pipe_create(&s->cfg, err, sizeof err) : NULL;
    check_set *cs = p != NULL ? check_create(p, &(check_cfg){ .liveness_ns = scn_liveness_ns(s) }, err, sizeof err) : NULL;
    rpt_recorder *rec = malloc(sizeof *rec);     /* --trace, --dot, the --html page's checkpoint pictures (heap: large) */
    svg_recorder *pic = NULL;                    /* --svg, --html */
    bool html = views != NULL && views->html != NULL;
    bool reported = cs != NULL && rec != NULL && rpt_init(rec, p, trace, dot != NULL || html);
    if (!reported || !cli_view_begin(views, p, &pic)) {
        cli_failure_add(&o->failures, "%s: %s", s->path, cs == NULL ? err : "out of memory for the report");
        if (reported) rpt_free(rec);
        free(rec);
        check_destroy(cs);
        pipe_destroy(p);
        return CLI_USAGE;
    }
    if (dot_ckpt != 0) rpt_keep_only(rec, dot_ckpt);
    check_attach(cs);                            /* the checkers observe first */
    scn_armed arm;                               /* faults at times and at protocol points */
    cli_story_run story;                         /* what happened, told by the summary, --json and --trace */
    bool reporting = trace != NULL || dot != NULL || html;
    cli_story_begin(&story, &o->story, s, p, &arm, reporting ? rec : NULL, random_faults);
    scn_arm_faults(s, p, &arm, cli_story_observe, &story);
    if (pic != NULL) svg_attach(pic);
    pipe_sim(p)->cfg.log = log;
    pipe_run(p);
    cli_story_end(&story);
    bool drawn = dot_ckpt == 0 || dot_ckpt <= rec->triggered;
    if (dot != NULL && drawn) {
        char title[320];
        snprintf(title, sizeof title, "%s, seed %" PRIu64, s->path, s->cfg.seed);
        rpt_write_dot(rec, dot, title);
    } else if (!drawn) {                         /* nothing to draw: a mistake of the command, as a bad option */
        cli_failure_add(&o->failures, "absim run: --dot-checkpoint %" PRIu64 ": the run triggered %s%" PRIu64
                        " checkpoint%s", dot_ckpt, rec->triggered ? "only " : "", rec->triggered, rec->triggered == 1 ? "" : "s");
    }
    const check_report *r = check_finish(cs);
    outcome_fill(o, s, p, r);
    char *text = NULL;
    int rc = report_run(s, p, r, &arm, out, views != NULL && views->html != NULL ? &text : NULL, o);
    if (o->unfired > 0) rc = CLI_FAIL;
    if (!drawn) rc = CLI_USAGE;                  /* its refusal is the first failure: the one the caller prints */
    o->ok = rc == CLI_OK;
    cli_view_end(views, pic, s, &o->story, text, r, rec);
    rpt_free(rec);
    free(rec);
    free(text);
    check_destroy(cs);
    pipe_destroy(p);
    return rc;
}

static void run_usage(FILE *f, bool replay) {
    if (replay) {
        fprintf(f, "usage: absim replay FILE --seed S [--hash H] [--faults random|buggify] [--bug NAME] [--pct D[/K][~T]]\n"
                   "                    [--log FILE]\n"
                   "\n"
                   "Re-runs one seed of a scenario (as a failing swarm seed reported it) and,\n"
                   "with --hash, checks that the run's trace hash is H: the same run, event\n"
                   "for event. Exit 1 when the hash differs or an expectation fails.\n");
        return;
    }
    fprintf(f, "usage: absim run FILE [--seed S] [--faults random|buggify] [--bug NAME] [--pct D[/K][~T]] [--json]\n"
               "                 [--log FILE] [--trace FILE] [--dot FILE [--dot-checkpoint N]] [--coverage FILE]\n"
               "                 [--svg FILE] [--html FILE] [--from T] [--to T] [--tasks PATTERN]\n"
               "\n"
               "Runs the scenario FILE (see scenarios/README.md), prints a summary of the\n"
               "run (its faults, checkpoints, failures and the restarts that followed,\n"
               "records, trace hash) and checks the file's expect lines. The invariants\n"
               "I1-I6 are checked on every run against the input folded through the\n"
               "job's operators; a violation of one the configuration promises fails\n"
               "the run, and so does a scripted fault that never fired.\n"
               "  --seed S         overrides the file's seed\n"
               "  --faults random  adds the fault profile swarm draws for the seed\n"
               "  --faults buggify adds the seed's two-level fault activation profile: a\n"
               "                   quarter of the fault sites (a fault kind at a kind of\n"
               "                   protocol point) active, each firing at a quarter of the\n"
               "                   points of the seed's run where it can, at most 8 kept, as\n"
               "                   fault when lines (FoundationDB's BUGGIFY at protocol points)\n"
               "  --bug NAME       runs a deliberately wrong protocol (absim bugs --list):\n"
               "                   the checks must catch it\n"
               "  --pct D[/K][~T]  orders simultaneous events by PCT of depth D (d - 1 priority\n"
               "                   change points among K order decisions; without K, as many\n"
               "                   as the run takes in the default order, counted by running\n"
               "                   it first); the seed draws the priorities (docs/EXPLORATION.md);\n"
               "                   ~T: events due within T of the earliest count as\n"
               "                   simultaneous, the earlier ones waiting for a later pick\n"
               "  --json           prints one JSON line instead of the summary (the faults,\n"
               "                   failures and restarts too)\n"
               "  --log FILE       writes the kernel's event log of the run ('-': stdout)\n"
               "  --trace FILE     writes every protocol step and each fault's beginning and\n"
               "                   end as a JSON line ('-': stdout)\n"
               "  --dot FILE       writes the first checkpoints (as many as fit a screen's\n"
               "                   width, at most 32) as a Graphviz picture, in columns\n"
               "                   (render it with: dot -Tsvg FILE > FILE.svg)\n"
               "  --dot-checkpoint N  draws checkpoint N alone, in --dot's picture and --html's\n"
               "                   (exit 2 when the run did not trigger it)\n"
               "  --coverage FILE  writes the count of every protocol reach point (absim\n"
               "                   coverage) as one JSON object, and prints those not reached\n"
               "  --svg FILE       writes a space-time diagram: a line per task and one for the\n"
               "                   coordinator, barriers coloured by checkpoint, record buffers,\n"
               "                   acknowledgements and notices, lost messages crossed out,\n"
               "                   blocked inputs, snapshot parts, faults, crashes and restarts,\n"
               "                   each completed checkpoint's cut; hover text on every mark\n"
               "  --html FILE      writes a self-contained run viewer: the summary, a timeline\n"
               "                   of the checkpoints, the diagram, the violations, and a\n"
               "                   stepper that shows each task's state step by step\n"
               "                   (open FILE#step=N for step N), and a picture of each of\n"
               "                   the first checkpoints (FILE#ck=N for checkpoint N)\n"
               "  --from T, --to T the diagram's window, as the scenario language writes time\n"
               "                   (10ms, 1.5s); by default a run of at most 16 checkpoints\n"
               "                   whole, a longer one's first checkpoints, or those around\n"
               "                   the first fault and the restart after it (--html draws a\n"
               "                   longer run whole, in windows the page moves between)\n"
               "  --tasks PATTERN  the tasks the diagram draws: tasks (agg[1]) and vertices\n"
               "                   (agg), comma-separated, * and ? as wildcards\n"
               "exit status: 0 all expectations held, 1 one failed, 2 bad input\n");
}

/* The files a run writes besides stdout (cli/out.c): all open before the
 * run, committed together after it; on failure nothing stays open and
 * nothing that was there is replaced. */
#define RUN_OUTPUTS 6u

typedef struct run_outputs {
    cli_out log, trace, dot, cov, svg, html;
} run_outputs;

static const char *const out_opts[RUN_OUTPUTS] = { "--log", "--trace", "--dot", "--coverage", "--svg", "--html" };

static cli_out *out_at(run_outputs *w, uint32_t i) {
    cli_out *all[RUN_OUTPUTS] = { &w->log, &w->trace, &w->dot, &w->cov, &w->svg, &w->html };
    return all[i];
}

static void abandon_outputs(run_outputs *w) {
    for (uint32_t i = 0; i < RUN_OUTPUTS; i++) cli_out_abandon(out_at(w, i));
}

static bool open_outputs(const char *prog, const char *const paths[RUN_OUTPUTS], run_outputs *w) {
    memset(w, 0, sizeof *w);
    for (uint32_t i = 0; i < RUN_OUTPUTS; i++) {  /* two outputs into one file would overwrite each other */
        for (uint32_t k = 0; k < i && paths[i] != NULL && strcmp(paths[i], "-") != 0; k++) {
            if (paths[k] == NULL || strcmp(paths[k], paths[i]) != 0) continue;
            fprintf(stderr, "%s: %s and %s name the same file %s\n", prog, out_opts[k], out_opts[i], paths[i]);
            return false;
        }
    }
    for (uint32_t i = 0; i < RUN_OUTPUTS; i++) {
        if (!cli_out_open(prog, out_opts[i], paths[i], out_at(w, i))) {
            abandon_outputs(w);
            return false;
        }
    }
    return true;
}

static bool commit_outputs(const char *prog, run_outputs *w) {
    bool ok = true;
    for (uint32_t i = 0; i < RUN_OUTPUTS; i++) ok = cli_out_commit(prog, out_opts[i], out_at(w, i)) && ok;
    return ok;
}

/* --json: one line for scripts and CI. */
static void json_line(const scn *s, const cli_outcome *o, pipe_bug bug) {
    const pipe_stats *st = &o->stats;
    uint64_t n = st->completed ? st->completed : 1, k = st->snapshots ? st->snapshots : 1;
    uint64_t ks = st->sync_parts ? st->sync_parts : 1;
    char latency[32] = "null";                   /* null: the sources read ahead of event time (as in the summary) */
    if (latency_measured(&s->cfg) && st->visible_records > 0) {
        snprintf(latency, sizeof latency, "%.3f", (double)st->latency_ns_sum / (double)st->visible_records / 1e6);
    }
    printf("{\"file\":");
    cli_json_string(stdout, s->path);            /* a path may hold any byte */
    printf(",\"seed\":%" PRIu64 ",\"ok\":%s,\"status\":\"%s\",\"checkpoints\":%" PRIu64
           ",\"aborted\":%" PRIu64 ",\"restarts\":%" PRIu64 ",\"failovers\":%" PRIu64
           ",\"ckpt_ms_mean\":%.3f,\"ckpt_ms_max\":%.3f,\"align_ms_max\":%.3f"
           ",\"sync_ms_mean\":%.3f,\"async_ms_mean\":%.3f,\"bytes_written\":%" PRIu64
           ",\"files_created\":%" PRIu64 ",\"files_shared\":%" PRIu64 ",\"inflight_bytes\":%" PRIu64
           ",\"unaligned_triggers\":%" PRIu64 ",\"visible_records\":%" PRIu64 ",\"overwrites\":%" PRIu64
           ",\"latency_ms_mean\":%s,\"random_faults\":%u,\"bug\":\"%s\",\"trace_hash\":\"%016" PRIx64 "\"",
           s->cfg.seed, o->ok ? "true" : "false", pipe_status_name(o->status), o->completed, st->aborted,
           o->restarts, st->failovers, (double)st->ckpt_duration_ns_sum / (double)n / 1e6,
           (double)st->ckpt_duration_ns_max / 1e6, (double)st->alignment_ns_max / 1e6,
           (double)st->sync_ns_sum / (double)ks / 1e6, (double)st->async_ns_sum / (double)k / 1e6,
           st->bytes_written, st->files_created, st->files_shared, st->cs_bytes, st->unaligned_triggers,
           st->visible_records, st->overwrites, latency, o->random_faults, pipe_bug_name(bug), o->trace_hash);
    if (o->pct.depth > 0) {
        printf(",\"pct\":{\"depth\":%u,\"steps\":%" PRIu64 ",\"decisions\":%" PRIu64 ",\"destinations\":%u"
               ",\"changes_reached\":%u,\"near_ns\":%" PRIu64 ",\"bound\":%.6g}", o->pct.depth, o->pct.steps,
               o->pct.decisions, o->pct.met, o->pct.changed, (uint64_t)o->pct.near_ns, o->pct.bound);
    }
    cli_story_json(stdout, s, &o->story);
    fputc(',', stdout);
    cli_failures_json(stdout, &o->failures);
    printf("}\n");
}

typedef struct run_opts {
    uint64_t    seed, hash;
    bool        seed_given, hash_given, random_faults, json;
    uint8_t     profile;              /* --faults random or buggify */
    pipe_bug    bug;
    cli_pct     pct;                  /* --pct */
    const char *paths[RUN_OUTPUTS];   /* --log, --trace, --dot, --coverage, --svg, --html */
    uint64_t    dot_ckpt;             /* --dot-checkpoint: draw that one alone (0: the first that fit) */
    const char *tasks;                /* --tasks PATTERN, or NULL */
    cli_views   views;                /* --from, --to (the files and --tasks once known) */
} run_opts;

static bool parse_hash(const char *prog, const char *text, uint64_t *hash) {
    char *end = NULL;
    *hash = strtoull(text, &end, 16);
    if (end == text || *end != '\0' || strlen(text) > 16) {
        fprintf(stderr, "%s: --hash '%s': expected up to 16 hex digits\n", prog, text);
        return false;
    }
    return true;
}

/* --from, --to and --tasks shape a picture: without one asked for, or
 * with an empty window, they are a mistake. -1: fine. */
static int check_view_opts(const char *prog, const run_opts *x) {
    const svg_opts *o = &x->views.opts;
    const char *alone = o->from_given ? "--from" : o->to_given ? "--to" : x->tasks != NULL ? "--tasks" : NULL;
    if (alone != NULL && x->paths[4] == NULL && x->paths[5] == NULL) {
        fprintf(stderr, "%s: %s shapes the picture of --svg or --html: give one of them\n", prog, alone);
        return CLI_USAGE;
    }
    if (o->from_given && o->to_given && o->from_ns >= o->to_ns) {
        fprintf(stderr, "%s: --from %.3fms must be before --to %.3fms\n", prog, (double)o->from_ns / 1e6,
                (double)o->to_ns / 1e6);
        return CLI_USAGE;
    }
    return -1;
}

/* The options; returns -1 when the run goes on, else the exit status. */
static int parse_run_opts(const char *prog, int argc, char **argv, bool replay, run_opts *x) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },  { "hash", required_argument, NULL, 'H' },
        { "faults", required_argument, NULL, 'f' }, { "bug", required_argument, NULL, 'b' },
        { "json", no_argument, NULL, 'j' },         { "log", required_argument, NULL, 'l' },
        { "trace", required_argument, NULL, 't' },  { "dot", required_argument, NULL, 'd' },
        { "coverage", required_argument, NULL, 'c' }, { "help", no_argument, NULL, 'h' },
        { "dot-checkpoint", required_argument, NULL, 'D' },
        { "svg", required_argument, NULL, 'S' },    { "html", required_argument, NULL, 'W' },
        { "from", required_argument, NULL, 'F' },   { "to", required_argument, NULL, 'T' },
        { "tasks", required_argument, NULL, 'K' },   { "pct", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    *x = (run_opts){ .bug = PIPE_BUG_NONE };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &x->seed)) return CLI_USAGE;
            x->seed_given = true;
            break;
        case 'H':
            if (!parse_hash(prog, optarg, &x->hash)) return CLI_USAGE;
            x->hash_given = true;
            break;
        case 'f': if (!cli_parse_faults(prog, optarg, &x->random_faults, &x->profile)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &x->bug)) return CLI_USAGE; break;
        case 'P': if (!cli_parse_pct(prog, optarg, &x->pct)) return CLI_USAGE; break;
        case 'l': x->paths[0] = optarg; break;
        case 't': x->paths[1] = optarg; break;
        case 'd': x->paths[2] = optarg; break;
        case 'c': x->paths[3] = optarg; break;
        case 'D': if (!cli_parse_u64(prog, "--dot-checkpoint", optarg, 1, UINT64_MAX, &x->dot_ckpt)) return CLI_USAGE; break;
        case 'S': x->paths[4] = optarg; break;
        case 'W': x->paths[5] = optarg; break;
        case 'K': x->tasks = optarg; break;
        case 'F':
            if (!cli_view_time(prog, "--from", optarg, &x->views.opts.from_ns)) return CLI_USAGE;
            x->views.opts.from_given = true;
            break;
        case 'T':
            if (!cli_view_time(prog, "--to", optarg, &x->views.opts.to_ns)) return CLI_USAGE;
            x->views.opts.to_given = true;
            break;
        case 'j': x->json = true; break;
        case 'h': run_usage(stdout, replay); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (x->dot_ckpt != 0 && x->paths[2] == NULL && x->paths[5] == NULL) {
        fprintf(stderr, "%s: --dot-checkpoint needs --dot FILE or --html FILE (the pictures it draws)\n", prog);
        return CLI_USAGE;
    }
    if (replay && !x->seed_given) {
        fprintf(stderr, "%s: --seed is required\n", prog);
        return CLI_USAGE;
    }
    return check_view_opts(prog, x);
}

/* A replay's verdict: the trace hash as recorded, or which options the
 * hash depends on and which this run had. */
static bool hash_as_recorded(const char *path, const run_opts *x, uint64_t got) {
    if (got == x->hash) {
        printf("  replay: trace hash %016" PRIx64 " as recorded\n", x->hash);
        return true;
    }
    char pct[80] = ",";                           /* ", --pct D[/K][~T]" */
    if (x->pct.depth > 0) cli_pct_words(&x->pct, pct + 1, sizeof pct - 1);
    printf("%s: replay diverged: trace hash %016" PRIx64 ", recorded %016" PRIx64 " (run%s%s%s%s); the hash"
           " is of the file, --seed, --faults, --bug and --pct: give the ones the recorded run had (swarm"
           " prints its replay command), with the same build\n", path, got, x->hash,
           x->random_faults ? x->profile == SCN_PROFILE_BUGGIFY ? " with --faults buggify" : " with --faults random"
                            : " without --faults", x->bug ? ", --bug " : ", no --bug",
           x->bug ? pipe_bug_name(x->bug) : "", x->pct.depth > 0 ? pct : ", no --pct");
    return false;
}

static int run_or_replay(int argc, char **argv, bool replay) {
    const char *prog = replay ? "absim replay" : "absim run";
    run_opts x;
    int rc = parse_run_opts(prog, argc, argv, replay, &x);
    if (rc >= 0) return rc;
    scn *s = cli_load_scenario(prog, argc, argv, x.seed_given, x.seed);
    if (s == NULL) return CLI_USAGE;
    if (x.tasks != NULL && !cli_view_tasks(prog, x.tasks, &s->cfg.graph, x.views.show)) {
        free(s);
        return CLI_USAGE;
    }
    x.views.show_given = x.tasks != NULL;
    s->cfg.bug = x.bug;
    s->profile = x.profile;
    if (!cli_apply_pct(prog, s, &x.pct)) {
        free(s);
        return CLI_USAGE;
    }
    /* The outcome and the outputs' names are tens of KiB: on the heap, so a
     * small stack (ulimit -s 64) runs as well. */
    run_outputs *w = malloc(sizeof *w);
    cli_outcome *o = malloc(sizeof *o);
    if (w == NULL || o == NULL || !open_outputs(prog, x.paths, w)) {
        if (w == NULL || o == NULL) fprintf(stderr, "%s: out of memory\n", prog);
        free(w);
        free(o);
        free(s);
        return CLI_USAGE;
    }
    x.views.svg = w->svg.f;
    x.views.html = w->html.f;
    rc = cli_run_scenario(s, x.random_faults, w->log.f, x.json ? NULL : stdout, w->trace.f, w->dot.f, x.dot_ckpt, &x.views, o);
    if (rc == CLI_USAGE) {
        fprintf(stderr, "%s\n", o->failures.text[0]);
        abandon_outputs(w);
    } else {
        if (x.paths[3] != NULL) {
            cli_cov_report(x.json ? stderr : stdout, o->reach);
            cli_cov_write(w->cov.f, o->reach);    /* a failed write shows at the commit */
        }
        if (x.json) json_line(s, o, x.bug);
        if (x.hash_given && !hash_as_recorded(argv[optind], &x, o->trace_hash)) rc = CLI_FAIL;
        bool written = commit_outputs(prog, w);
        if (!cli_stdout_ok(prog) || !written) rc = CLI_USAGE;
    }
    free(s);
    free(w);
    free(o);
    return rc;
}

int cli_run(int argc, char **argv) { return run_or_replay(argc, argv, false); }
int cli_replay(int argc, char **argv) { return run_or_replay(argc, argv, true); }
