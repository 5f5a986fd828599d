/* cli/run.c: `absim run FILE` and `absim replay FILE --seed S`: one run of
 * a scenario, its summary, and its expectations checked. Exit 0: every
 * expectation held; 1: one failed (or the run hit a bound, or a replay's
 * trace hash differs); 2: the scenario or an option is wrong. The same
 * function runs each seed of `absim swarm` (cli/swarm.c). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

static void failure(cli_outcome *o, const char *fmt, const char *path, uint32_t line, const char *text, const char *got) {
    size_t used = strlen(o->failures);
    if (used + 2 >= sizeof o->failures) return;
    snprintf(o->failures + used, sizeof o->failures - used, fmt, used ? "; " : "", path, line, text, got);
}

static double ms(sim_time_ns ns) { return (double)ns / 1e6; }

/* Snapshots: sync and async parts, bytes, shared files, channel state. */
static void summary_state(FILE *out, const pipe_cfg *c, const pipe_stats *st) {
    fprintf(out, "  state: %s backend, %s, %s snapshots; %" PRIu64 " task snapshots, sync part mean %.3fms max %.3fms, "
            "async part mean %.3fms max %.3fms\n",
            c->state.backend == PIPE_BACKEND_DURABLE ? "durable" : "memory",
            c->state.incremental ? "incremental" : "full", c->state.async ? "asynchronous" : "synchronous",
            st->snapshots, st->sync_parts ? ms(st->sync_ns_sum) / (double)st->sync_parts : 0.0, ms(st->sync_ns_max),
            st->snapshots ? ms(st->async_ns_sum) / (double)st->snapshots : 0.0, ms(st->async_ns_max));
    fprintf(out, "  files: %" PRIu64 " written, %" PRIu64 " references to shared files; %" PRIu64
            " bytes in completed checkpoints; %" PRIu64 " snapshots declined by the backend\n",
            st->files_created, st->files_shared, st->bytes_written, st->async_failures);
    if (st->unaligned_triggers > 0 || c->ckpt.mode == PIPE_UNALIGNED || c->ckpt.alignment_timeout_ns > 0) {
        fprintf(out, "  unaligned: %" PRIu64 " task triggers, %" PRIu64 " alignment timeouts, %" PRIu64
                " bytes of in-flight data persisted\n", st->unaligned_triggers, st->alignment_timeouts, st->cs_bytes);
    }
}

int cli_run_scenario(scn *s, bool random_faults, FILE *log, FILE *out, FILE *trace, FILE *dot, cli_outcome *o) {
    char err[SCN_ERR_BYTES];
    memset(o, 0, sizeof *o);
    bool need_reference = random_faults;
    for (uint32_t i = 0; i < s->expects_count; i++) {
        scn_expect_kind k = s->expects[i].kind;
        need_reference |= k == SCN_EXPECT_EXACTLY_ONCE || k == SCN_EXPECT_DUPLICATES || k == SCN_EXPECT_OUTPUT_EXACTLY_ONCE ||
                          k == SCN_EXPECT_OUTPUT_AT_LEAST_ONCE || k == SCN_EXPECT_OUTPUT_DUPLICATES;
    }
    pipeline *ref = NULL;
    if (need_reference) {
        ref = pipe_create(&s->cfg, err, sizeof err);
        if (ref == NULL) {
            snprintf(o->failures, sizeof o->failures, "%s: %s", s->path, err);
            return CLI_USAGE;
        }
        pipe_run(ref);
    }
    if (random_faults) {
        sim_time_ns horizon = pipe_sim(ref)->now_ns;
        o->random_faults = scn_random_faults(s, s->cfg.seed, horizon > 10 * SIM_NS_PER_MS ? horizon : 10 * SIM_NS_PER_MS);
    }
    pipe_cfg checked = s->cfg;                   /* the run under test checks I2 as it goes */
    checked.check_cut = true;
    pipeline *p = pipe_create(&checked, err, sizeof err);
    if (p == NULL) {
        snprintf(o->failures, sizeof o->failures, "%s: %s", s->path, err);
        pipe_destroy(ref);
        return CLI_USAGE;
    }
    rpt_recorder rec;                            /* --trace, --dot */
    if (!rpt_init(&rec, p, trace, dot != NULL)) {
        snprintf(o->failures, sizeof o->failures, "%s: out of memory for the report", s->path);
        pipe_destroy(p);
        pipe_destroy(ref);
        return CLI_USAGE;
    }
    scn_armed arm;                               /* faults at times and at protocol points */
    bool reporting = trace != NULL || dot != NULL;
    scn_arm_faults(s, p, &arm, reporting ? rpt_observe : NULL, reporting ? &rec : NULL);
    pipe_sim(p)->cfg.log = log;
    pipe_run(p);
    if (dot != NULL) {
        char title[320];
        snprintf(title, sizeof title, "%s, seed %" PRIu64, s->path, s->cfg.seed);
        rpt_write_dot(&rec, dot, title);
    }
    rpt_free(&rec);

    const pipe_stats *st = pipe_get_stats(p);
    sim_run *run = pipe_sim(p);
    o->trace_hash = run->trace_hash;
    o->completed = st->completed;
    o->restarts = st->restarts;
    o->status = pipe_get_status(p);
    o->stats = *st;
    if (out != NULL) {
        fprintf(out, "%s: seed %" PRIu64 ", %s at t=%.3fms after %" PRIu64 " events\n", s->path, s->cfg.seed,
                pipe_status_name(o->status), (double)run->now_ns / 1e6, run->stats.dispatched);
        fprintf(out, "  checkpoints: %" PRIu64 " triggered, %" PRIu64 " completed, %" PRIu64 " aborted (%" PRIu64
                " declined, %" PRIu64 " timed out, %" PRIu64 " subsumed, %" PRIu64 " lost with a failed attempt)\n",
                st->triggered, st->completed, st->aborted, st->declined, st->timed_out, st->subsumed, st->lost_with_job);
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
        fprintf(out, "  restarts: %" PRIu64 "; records read %" PRIu64 ", processed %" PRIu64 ", at sinks %" PRIu64
                ", visible %" PRIu64 "\n", st->restarts, st->records_read, st->records_processed, st->sink_records,
                st->visible_records);
        if (s->cfg.source_rate_per_s > 0 && st->visible_records > 0) {   /* paced sources: latency means something */
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
    int rc = CLI_OK;
    if (o->status != PIPE_FINISHED && o->status != PIPE_FAILED) {
        char buf[256];
        sim_stop_describe(run, buf, sizeof buf);
        size_t used = strlen(o->failures);
        snprintf(o->failures + used, sizeof o->failures - used, "%s%s: %s", used ? "; " : "", s->path, buf);
        if (out != NULL) fprintf(out, "  %s\n", buf);
        rc = CLI_FAIL;
    }
    pipe_state_diff diff = { .equal = true };
    pipe_output_diff odiff = { 0 };
    if (ref != NULL) {
        pipe_compare_states(ref, p, &diff);
        pipe_compare_output(ref, p, &odiff);
    }
    const struct { uint64_t n; const char *what; } i5[] = {   /* protocol safety, checked on every run */
        { st->restore_failures, "a restore read a deleted file" },
        { st->deleted_referenced, "a file of a retained checkpoint was deleted" },
        { st->incomplete_checkpoints, "a checkpoint completed without a task's state" },
    };
    if (st->cut_violations > 0) {                 /* I2: a checkpoint is not the state of its prefixes */
        char what[160], got[64];
        snprintf(what, sizeof what, "checkpoint %" PRIu64 " is not the state after its source offsets (%s, key %" PRIu64 ")",
                 st->cut_first_ckpt, pipe_job(p)->vertices[st->cut_first_vertex].name, st->cut_first_key);
        snprintf(got, sizeof got, "%" PRIu64 " of %" PRIu64 " checks", st->cut_violations, st->cut_checks);
        failure(o, "%s%s:%u: invariant I2 violated: %s (got %s)", s->path, 0, what, got);
        if (out != NULL) fprintf(out, "  invariant I2 violated: %s (%s)\n", what, got);
        rc = CLI_FAIL;
    }
    if (out != NULL) {                            /* what this run shows, whatever the file expects */
        fprintf(out, "  invariants: I5 protocol safety %s", st->restore_failures + st->deleted_referenced +
                st->incomplete_checkpoints == 0 ? "held" : "VIOLATED");
        if (st->cut_checks > 0) {
            fprintf(out, "; I2 consistent cut %s (%" PRIu64 " checkpoints)", st->cut_violations == 0 ? "held" : "VIOLATED",
                    st->cut_checks);
        }
        if (ref != NULL) {
            fprintf(out, "; I1 exactly-once state %s; output %s", diff.equal ? "held" : "not held",
                    odiff.lost > 0 ? "lost records" : odiff.duplicated > 0 ? "at-least-once (duplicates)" : "exactly-once");
        }
        fputc('\n', out);
    }
    for (size_t i = 0; i < sizeof i5 / sizeof i5[0]; i++) {
        if (i5[i].n == 0) continue;
        char got[64];
        snprintf(got, sizeof got, "%" PRIu64 " times", i5[i].n);
        failure(o, "%s%s:%u: invariant I5 violated: %s (got %s)", s->path, 0, i5[i].what, got);
        if (out != NULL) fprintf(out, "  invariant I5 violated: %s (%s)\n", i5[i].what, got);
        rc = CLI_FAIL;
    }
    for (uint32_t i = 0; i < s->expects_count; i++) {
        const scn_expect *e = &s->expects[i];
        bool ok = false;
        char got[200] = "";
        switch (e->kind) {
        case SCN_EXPECT_FINISHED:
        case SCN_EXPECT_FAILED:
            ok = o->status == (e->kind == SCN_EXPECT_FINISHED ? PIPE_FINISHED : PIPE_FAILED);
            snprintf(got, sizeof got, "%s", pipe_status_name(o->status));
            break;
        case SCN_EXPECT_EXACTLY_ONCE:
            ok = diff.equal;
            if (!ok) {
                snprintf(got, sizeof got, "%s: key %" PRIu64 " differs from the failure-free run; %" PRIu64
                         " records counted, %" PRIu64 " without failures",
                         pipe_job(p)->vertices[diff.vertex].name, diff.key, diff.records_b, diff.records_a);
            }
            break;
        case SCN_EXPECT_DUPLICATES:
            ok = diff.records_b > diff.records_a;
            snprintf(got, sizeof got, "%" PRIu64 " records counted in state, %" PRIu64 " without failures",
                     diff.records_b, diff.records_a);
            break;
        case SCN_EXPECT_CHECKPOINTS: ok = compare(st->completed, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->completed); break;
        case SCN_EXPECT_RESTARTS:    ok = compare(st->restarts, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->restarts); break;
        case SCN_EXPECT_ABORTED:     ok = compare(st->aborted, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->aborted); break;
        case SCN_EXPECT_FAILOVERS:   ok = compare(st->failovers, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->failovers); break;
        case SCN_EXPECT_UNALIGNED:   ok = compare(st->unaligned_triggers, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->unaligned_triggers); break;
        case SCN_EXPECT_OUTPUT_EXACTLY_ONCE:
        case SCN_EXPECT_OUTPUT_AT_LEAST_ONCE:
        case SCN_EXPECT_OUTPUT_DUPLICATES:
            ok = e->kind == SCN_EXPECT_OUTPUT_DUPLICATES ? odiff.duplicated > 0
               : e->kind == SCN_EXPECT_OUTPUT_AT_LEAST_ONCE ? odiff.lost == 0
               : odiff.lost == 0 && odiff.duplicated == 0;
            snprintf(got, sizeof got, "%" PRIu64 " of %" PRIu64 " records lost (first p%" PRIu64 "@%" PRIu64 "), %" PRIu64
                     " duplicated (first p%" PRIu64 "@%" PRIu64 ")", odiff.lost, odiff.records, odiff.first_lost >> 40,
                     (uint64_t)(odiff.first_lost & BROKER_OFFSET_MAX), odiff.duplicated, odiff.first_duplicated >> 40,
                     (uint64_t)(odiff.first_duplicated & BROKER_OFFSET_MAX));
            break;
        }
        char text[64];
        scn_expect_text(e, text, sizeof text);
        if (ok) {
            if (out != NULL) fprintf(out, "  expect %s: held\n", text);
        } else {
            if (out != NULL) fprintf(out, "%s:%u: expectation failed: %s (got %s)\n", s->path, e->line, text, got);
            failure(o, "%s%s:%u: expectation failed: %s (got %s)", s->path, e->line, text, got);
            rc = CLI_FAIL;
        }
    }
    o->ok = rc == CLI_OK;
    pipe_destroy(p);
    pipe_destroy(ref);
    return rc;
}

static void run_usage(FILE *f, bool replay) {
    if (replay) {
        fprintf(f, "usage: absim replay FILE --seed S [--hash H] [--faults random] [--bug NAME] [--log FILE]\n"
                   "\n"
                   "Re-runs one seed of a scenario (as a failing swarm seed reported it) and,\n"
                   "with --hash, checks that the run's trace hash is H: the same run, event\n"
                   "for event. Exit 1 when the hash differs or an expectation fails.\n");
        return;
    }
    fprintf(f, "usage: absim run FILE [--seed S] [--faults random] [--bug NAME] [--json] [--log FILE]\n"
               "                 [--trace FILE] [--dot FILE]\n"
               "\n"
               "Runs the scenario FILE (see scenarios/README.md), prints a summary of the\n"
               "run (checkpoints, restarts, records, trace hash) and checks the file's\n"
               "expect lines. Expectations about state (exactly-once, duplicates) compare\n"
               "with a failure-free run of the same job and seed, which runs first.\n"
               "  --seed S         overrides the file's seed\n"
               "  --faults random  adds the fault profile swarm draws for the seed\n"
               "  --bug NAME       runs a deliberately wrong protocol (no-alignment, no-rewind,\n"
               "                   offset-off-by-one, partial-acks, no-copy-on-write,\n"
               "                   ack-before-write, delete-shared-file, commit-before-complete):\n"
               "                   the checks must catch it\n"
               "  --json           prints one JSON line instead of the summary\n"
               "  --log FILE       writes the kernel's event log of the run ('-': stdout)\n"
               "  --trace FILE     writes every protocol step as a JSON line ('-': stdout)\n"
               "  --dot FILE       writes the first 32 checkpoints as a Graphviz picture\n"
               "                   (render it with: dot -Tsvg FILE > FILE.svg)\n"
               "exit status: 0 all expectations held, 1 one failed, 2 bad input\n");
}

static int run_or_replay(int argc, char **argv, bool replay) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "hash", required_argument, NULL, 'H' },
        { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },
        { "json", no_argument, NULL, 'j' },
        { "log", required_argument, NULL, 'l' },
        { "trace", required_argument, NULL, 't' },
        { "dot", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = replay ? "absim replay" : "absim run";
    uint64_t seed = 0, hash = 0;
    bool seed_given = false, hash_given = false, random_faults = false;
    pipe_bug bug = PIPE_BUG_NONE;
    bool json = false;
    const char *log_path = NULL, *trace_path = NULL, *dot_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE;
            seed_given = true;
            break;
        case 'H': {
            char *end = NULL;
            hash = strtoull(optarg, &end, 16);
            if (end == optarg || *end != '\0' || strlen(optarg) > 16) {
                fprintf(stderr, "%s: --hash '%s': expected up to 16 hex digits\n", prog, optarg);
                return CLI_USAGE;
            }
            hash_given = true;
            break;
        }
        case 'f':
            if (!cli_parse_faults(prog, optarg, &random_faults)) return CLI_USAGE;
            break;
        case 'b':
            if (!cli_parse_bug(prog, optarg, &bug)) return CLI_USAGE;
            break;
        case 'l': log_path = optarg; break;
        case 't': trace_path = optarg; break;
        case 'd': dot_path = optarg; break;
        case 'j': json = true; break;
        case 'h': run_usage(stdout, replay); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (replay && !seed_given) {
        fprintf(stderr, "%s: --seed is required\n", prog);
        return CLI_USAGE;
    }
    scn *s = cli_load_scenario(prog, argc, argv, seed_given, seed);
    if (s == NULL) return CLI_USAGE;
    s->cfg.bug = bug;
    FILE *log, *trace, *dot;
    if (!cli_open_log(prog, log_path, &log)) {
        free(s);
        return CLI_USAGE;
    }
    if (!cli_open_log(prog, trace_path, &trace) || !cli_open_log(prog, dot_path, &dot)) {
        cli_close_log(log);
        if (trace_path != NULL) cli_close_log(trace);
        free(s);
        return CLI_USAGE;
    }
    cli_outcome o;
    int rc = cli_run_scenario(s, random_faults, log, json ? NULL : stdout, trace, dot, &o);
    cli_close_log(trace);
    cli_close_log(dot);
    if (json && rc != CLI_USAGE) {                   /* one line for scripts and CI */
        const pipe_stats *st = &o.stats;
        uint64_t n = st->completed ? st->completed : 1, k = st->snapshots ? st->snapshots : 1;
        uint64_t ks = st->sync_parts ? st->sync_parts : 1;
        printf("{\"file\":\"%s\",\"seed\":%" PRIu64 ",\"ok\":%s,\"status\":\"%s\",\"checkpoints\":%" PRIu64
               ",\"aborted\":%" PRIu64 ",\"restarts\":%" PRIu64 ",\"failovers\":%" PRIu64
               ",\"ckpt_ms_mean\":%.3f,\"ckpt_ms_max\":%.3f,\"align_ms_max\":%.3f"
               ",\"sync_ms_mean\":%.3f,\"async_ms_mean\":%.3f,\"bytes_written\":%" PRIu64
               ",\"files_created\":%" PRIu64 ",\"files_shared\":%" PRIu64 ",\"inflight_bytes\":%" PRIu64
               ",\"unaligned_triggers\":%" PRIu64 ",\"visible_records\":%" PRIu64 ",\"latency_ms_mean\":%.3f"
               ",\"random_faults\":%u,\"bug\":\"%s\",\"trace_hash\":\"%016" PRIx64 "\",\"failures\":\"",
               s->path, s->cfg.seed, o.ok ? "true" : "false", pipe_status_name(o.status), o.completed, st->aborted,
               o.restarts, st->failovers, (double)st->ckpt_duration_ns_sum / (double)n / 1e6,
               (double)st->ckpt_duration_ns_max / 1e6, (double)st->alignment_ns_max / 1e6,
               (double)st->sync_ns_sum / (double)ks / 1e6, (double)st->async_ns_sum / (double)k / 1e6,
               st->bytes_written, st->files_created, st->files_shared, st->cs_bytes, st->unaligned_triggers,
               st->visible_records,
               st->visible_records ? (double)st->latency_ns_sum / (double)st->visible_records / 1e6 : 0.0,
               o.random_faults, pipe_bug_name(bug), o.trace_hash);
        for (const char *q = o.failures; *q; q++) {
            if (*q == '"' || *q == '\\') putchar('\\');
            putchar(*q);
        }
        printf("\"}\n");
    }
    if (rc == CLI_USAGE) fprintf(stderr, "%s\n", o.failures);
    if (rc != CLI_USAGE && hash_given) {
        if (o.trace_hash == hash) {
            printf("  replay: trace hash %016" PRIx64 " as recorded\n", hash);
        } else {
            printf("%s: replay diverged: trace hash %016" PRIx64 ", recorded %016" PRIx64 "\n", argv[optind],
                   o.trace_hash, hash);
            rc = CLI_FAIL;
        }
    }
    free(s);
    cli_close_log(log);
    return rc;
}

int cli_run(int argc, char **argv) { return run_or_replay(argc, argv, false); }
int cli_replay(int argc, char **argv) { return run_or_replay(argc, argv, true); }
