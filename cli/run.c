/* cli/run.c: `absim run FILE`: one run of a scenario, its summary, and its
 * expectations checked. Exit 0: every expectation held; 1: one failed (or
 * the run hit a bound); 2: the scenario or an option is wrong. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scenarios/scn.h"
#include "cli.h"

static void run_usage(FILE *f) {
    fprintf(f, "usage: absim run FILE [--seed S] [--log FILE]\n"
               "\n"
               "Runs the scenario FILE (see scenarios/README.md), prints a summary of the\n"
               "run (checkpoints, restarts, records, trace hash) and checks the file's\n"
               "expect lines. Expectations about state (exactly-once, duplicates) compare\n"
               "with a failure-free run of the same job and seed, which runs first.\n"
               "  --seed S     overrides the file's seed\n"
               "  --log FILE   writes the kernel's event log of the run ('-': stdout)\n"
               "exit status: 0 all expectations held, 1 one failed, 2 bad input\n");
}

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

int cli_run(int argc, char **argv) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "log", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim run";
    uint64_t seed = 0;
    bool seed_given = false;
    const char *log_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE;
            seed_given = true;
            break;
        case 'l': log_path = optarg; break;
        case 'h': run_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "%s: expected one scenario file (see --help)\n", prog);
        return CLI_USAGE;
    }
    const char *path = argv[optind];
    scn *s = malloc(sizeof *s);
    char err[SCN_ERR_BYTES];
    if (s == NULL) return CLI_FAIL;
    if (!scn_load(s, path, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        free(s);
        return CLI_USAGE;
    }
    if (seed_given) s->cfg.seed = seed;
    bool need_reference = false;
    for (uint32_t i = 0; i < s->expects_count; i++) {
        need_reference |= s->expects[i].kind == SCN_EXPECT_EXACTLY_ONCE || s->expects[i].kind == SCN_EXPECT_DUPLICATES;
    }
    FILE *log;
    if (!cli_open_log(prog, log_path, &log)) {
        free(s);
        return CLI_USAGE;
    }
    pipe *ref = NULL;
    if (need_reference) {
        ref = pipe_create(&s->cfg, err, sizeof err);
        if (ref == NULL) {
            fprintf(stderr, "%s: %s\n", path, err);
            free(s);
            cli_close_log(log);
            return CLI_USAGE;
        }
        pipe_run(ref);
    }
    pipe *p = pipe_create(&s->cfg, err, sizeof err);
    if (p == NULL) {
        fprintf(stderr, "%s: %s\n", path, err);
        pipe_destroy(ref);
        free(s);
        cli_close_log(log);
        return CLI_USAGE;
    }
    scn_add_faults(s, p);
    pipe_sim(p)->cfg.log = log;
    sim_stop_reason why = pipe_run(p);

    const pipe_stats *st = pipe_get_stats(p);
    sim_run *run = pipe_sim(p);
    printf("%s: seed %" PRIu64 ", %s at t=%.3fms after %" PRIu64 " events\n", path, s->cfg.seed,
           pipe_status_name(pipe_get_status(p)), (double)run->now_ns / 1e6, run->stats.dispatched);
    printf("  checkpoints: %" PRIu64 " triggered, %" PRIu64 " completed, %" PRIu64 " aborted (%" PRIu64
           " declined, %" PRIu64 " timed out, %" PRIu64 " subsumed)\n",
           st->triggered, st->completed, st->aborted, st->declined, st->timed_out, st->subsumed);
    if (st->completed > 0) {
        printf("  duration: mean %.3fms, max %.3fms; alignment max %.3fms\n",
               (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6,
               (double)st->ckpt_duration_ns_max / 1e6, (double)st->alignment_ns_max / 1e6);
    }
    printf("  restarts: %" PRIu64 "; records read %" PRIu64 ", processed %" PRIu64 ", at sinks %" PRIu64 "\n",
           st->restarts, st->records_read, st->records_processed, st->sink_records);
    printf("  trace_hash %016" PRIx64 "\n", run->trace_hash);

    int rc = CLI_OK;
    if (pipe_get_status(p) != PIPE_FINISHED && pipe_get_status(p) != PIPE_FAILED) {
        char buf[256];
        sim_stop_describe(run, buf, sizeof buf);
        printf("  %s\n", buf);
        (void)why;
        rc = CLI_FAIL;
    }
    pipe_state_diff diff = { .equal = true };
    if (ref != NULL) pipe_compare_states(ref, p, &diff);
    for (uint32_t i = 0; i < s->expects_count; i++) {
        const scn_expect *e = &s->expects[i];
        bool ok = false;
        char got[160] = "";
        switch (e->kind) {
        case SCN_EXPECT_FINISHED: ok = pipe_get_status(p) == PIPE_FINISHED; snprintf(got, sizeof got, "%s", pipe_status_name(pipe_get_status(p))); break;
        case SCN_EXPECT_FAILED:   ok = pipe_get_status(p) == PIPE_FAILED; snprintf(got, sizeof got, "%s", pipe_status_name(pipe_get_status(p))); break;
        case SCN_EXPECT_EXACTLY_ONCE:
            ok = diff.equal;
            if (!ok) snprintf(got, sizeof got, "%s: key %" PRIu64 " differs from the failure-free run (%" PRIu64 " records counted, %" PRIu64 " without failures)",
                              pipe_job(p)->vertices[diff.vertex].name, diff.key, diff.records_b, diff.records_a);
            break;
        case SCN_EXPECT_DUPLICATES:
            ok = diff.records_b > diff.records_a;
            snprintf(got, sizeof got, "%" PRIu64 " records counted in state, %" PRIu64 " without failures", diff.records_b, diff.records_a);
            break;
        case SCN_EXPECT_CHECKPOINTS: ok = compare(st->completed, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->completed); break;
        case SCN_EXPECT_RESTARTS:    ok = compare(st->restarts, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->restarts); break;
        case SCN_EXPECT_ABORTED:     ok = compare(st->aborted, e->cmp, e->value); snprintf(got, sizeof got, "%" PRIu64, st->aborted); break;
        }
        char text[64];
        scn_expect_text(e, text, sizeof text);
        if (ok) {
            printf("  expect %s: held\n", text);
        } else {
            printf("%s:%u: expectation failed: %s (got %s)\n", path, e->line, text, got);
            rc = CLI_FAIL;
        }
    }
    pipe_destroy(p);
    pipe_destroy(ref);
    free(s);
    cli_close_log(log);
    return rc;
}
