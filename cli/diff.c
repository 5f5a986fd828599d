/* cli/diff.c: `absim diff FILE --modes aligned,at-least-once,unaligned`:
 * the same scenario, seed and faults under several checkpoint modes, side
 * by side. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define DIFF_MODES_MAX 4

typedef struct column {
    const char *name;
    pipe_mode   mode;
    bool        timeout;             /* aligned-timeout: keep the scenario's alignment timeout */
    pipe_stats  st;
    pipe_status status;
    check_report report;             /* the checkers' figures: the run against the fold of its input */
    uint64_t    trace_hash;
} column;

static void diff_usage(FILE *f) {
    fprintf(f, "usage: absim diff FILE [--seed S] [--faults random|buggify] [--bug NAME]\n"
               "                  [--modes aligned,at-least-once,unaligned,aligned-timeout]\n"
               "\n"
               "Runs the scenario, with the same seed, input and faults, once per\n"
               "checkpoint mode and prints them side by side: checkpoints and their\n"
               "durations, alignment, in-flight data persisted, restarts, what the keyed\n"
               "state counts against the fold of the input (what a failure-free run must\n"
               "hold), and the sinks' visible output (records shown twice or never), as\n"
               "the invariant checkers measure them. Modes: aligned (no alignment timeout),\n"
               "at-least-once, unaligned, aligned-timeout (aligned with the scenario's\n"
               "alignment-timeout). Default: aligned,at-least-once.\n"
               "  --faults random  adds the fault profile swarm draws for the seed (drawn\n"
               "                   once, from the file's own settings, for every mode)\n"
               "  --bug NAME       runs a deliberately wrong protocol (absim bugs --list)\n");
}

static bool run_mode(scn *s, column *col, char *err, size_t n) {
    static pipe_cfg cfg;                          /* large: not on the stack */
    cfg = s->cfg;
    cfg.ckpt.mode = col->mode;
    if (!col->timeout) cfg.ckpt.alignment_timeout_ns = 0;
    if (col->mode == PIPE_UNALIGNED || col->timeout) cfg.ckpt.max_concurrent = 1;   /* Flink: they may be unaligned */
    if (!cli_memory_ok(&cfg, 1, true, err, n) || !cli_pct_resolve(s, &cfg, err, n)) return false;
    pipeline *p = pipe_create(&cfg, err, n);
    check_set *cs = p != NULL ? check_create(p, &(check_cfg){ .liveness_ns = scn_liveness_ns(s) }, err, n) : NULL;
    if (cs == NULL) {
        pipe_destroy(p);
        return false;
    }
    check_attach(cs);
    scn_armed arm;
    scn_arm_faults(s, p, &arm, NULL, NULL);
    pipe_run(p);
    col->st = *pipe_get_stats(p);
    col->status = pipe_get_status(p);
    col->trace_hash = pipe_sim(p)->trace_hash;
    col->report = *check_finish(cs);
    check_destroy(cs);
    pipe_destroy(p);
    return true;
}

typedef struct diff_opts {
    uint64_t seed;
    bool     seed_given, random_faults;
    uint8_t  profile;
    pipe_bug bug;
    char     modes[128];                 /* --modes as given, split by parse_modes */
} diff_opts;

/* The options; returns -1 when the run goes on, else the exit status. */
static int parse_diff(const char *prog, int argc, char **argv, diff_opts *x) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "modes", required_argument, NULL, 'm' },
        { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    *x = (diff_opts){ .bug = PIPE_BUG_NONE, .modes = "aligned,at-least-once" };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &x->seed)) return CLI_USAGE;
            x->seed_given = true;
            break;
        case 'm': snprintf(x->modes, sizeof x->modes, "%s", optarg); break;
        case 'f': if (!cli_parse_faults(prog, optarg, &x->random_faults, &x->profile)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &x->bug)) return CLI_USAGE; break;
        case 'h': diff_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    return -1;
}

/* A column per name in modes (comma-separated, cut in place), before any
 * run: a wrong name costs no simulation. -1 when all are known, else the
 * exit status. */
static int parse_modes(const char *prog, char *modes, column *cols, uint32_t *ncols) {
    *ncols = 0;
    for (char *save = NULL, *m = strtok_r(modes, ",", &save); m != NULL; m = strtok_r(NULL, ",", &save)) {
        if (*ncols == DIFF_MODES_MAX) {
            fprintf(stderr, "%s: at most %d modes\n", prog, DIFF_MODES_MAX);
            return CLI_USAGE;
        }
        if (strcmp(m, "aligned") == 0) {
            cols[(*ncols)++] = (column){ .name = "aligned", .mode = PIPE_ALIGNED };
        } else if (strcmp(m, "at-least-once") == 0) {
            cols[(*ncols)++] = (column){ .name = "at-least-once", .mode = PIPE_AT_LEAST_ONCE };
        } else if (strcmp(m, "unaligned") == 0) {
            cols[(*ncols)++] = (column){ .name = "unaligned", .mode = PIPE_UNALIGNED };
        } else if (strcmp(m, "aligned-timeout") == 0) {
            cols[(*ncols)++] = (column){ .name = "aligned-timeout", .mode = PIPE_ALIGNED, .timeout = true };
        } else {
            fprintf(stderr, "%s: --modes: unknown mode '%s' (aligned, at-least-once, unaligned, aligned-timeout)\n",
                    prog, m);
            return CLI_USAGE;
        }
    }
    if (*ncols == 0) {
        fprintf(stderr, "%s: --modes: name at least one mode\n", prog);
        return CLI_USAGE;
    }
    return -1;
}

/* The side-by-side table: a row per figure, a column per mode, headed by
 * the file (path), its seed and its faults count. */
static void print_columns(const char *path, const scn *s, const column *cols, uint32_t ncols) {
    printf("%s: seed %" PRIu64 ", %u fault%s\n%-34s", path, s->cfg.seed, s->faults_count,
           s->faults_count == 1 ? "" : "s", "");
    for (uint32_t i = 0; i < ncols; i++) printf("%18s", cols[i].name);
    printf("\n");
#define ROW(label, fmt, expr)                                        \
    do {                                                             \
        printf("%-34s", label);                                      \
        for (uint32_t i = 0; i < ncols; i++) {                       \
            const column *x = &cols[i];                              \
            char cell[32];                                           \
            snprintf(cell, sizeof cell, fmt, expr);                  \
            printf("%18s", cell);                                    \
        }                                                            \
        printf("\n");                                                \
    } while (0)
    ROW("status", "%s", pipe_status_name(x->status));
    ROW("checkpoints completed", "%" PRIu64, x->st.completed);
    ROW("checkpoints aborted", "%" PRIu64, x->st.aborted);
    ROW("checkpoint duration mean (ms)", "%.3f", x->st.completed ? (double)x->st.ckpt_duration_ns_sum / (double)x->st.completed / 1e6 : 0.0);
    ROW("checkpoint duration max (ms)", "%.3f", (double)x->st.ckpt_duration_ns_max / 1e6);
    ROW("start delay mean (ms)", "%.3f", x->st.start_delays ? (double)x->st.start_delay_ns_sum / (double)x->st.start_delays / 1e6 : 0.0);
    ROW("alignment mean (ms)", "%.3f", x->st.alignments ? (double)x->st.alignment_ns_sum / (double)x->st.alignments / 1e6 : 0.0);
    ROW("alignment max (ms)", "%.3f", (double)x->st.alignment_ns_max / 1e6);
    ROW("unaligned task triggers", "%" PRIu64, x->st.unaligned_triggers);
    ROW("in-flight bytes persisted", "%" PRIu64, x->st.cs_bytes);
    ROW("async part mean (ms)", "%.3f", x->st.snapshots ? (double)x->st.async_ns_sum / (double)x->st.snapshots / 1e6 : 0.0);
    ROW("restarts", "%" PRIu64, x->st.restarts);
    ROW("records in keyed state", "%" PRIu64, x->report.state_records);
    ROW("  ... in the fold of the input", "%" PRIu64, x->report.spec_records);
    ROW("keyed state exactly-once", "%s", !x->report.state_known ? "unknown" : x->report.state_equal ? "yes" : "NO");
    ROW("output: records shown twice+", "%" PRIu64, x->report.out_duplicated);
    ROW("output: records missing", "%" PRIu64, x->report.out_lost);
    ROW("trace hash", "%016" PRIx64, x->trace_hash);
#undef ROW
}

int cli_diff(int argc, char **argv) {
    const char *prog = "absim diff";
    diff_opts x;
    int rc = parse_diff(prog, argc, argv, &x);
    if (rc >= 0) return rc;
    column cols[DIFF_MODES_MAX];
    uint32_t ncols;
    rc = parse_modes(prog, x.modes, cols, &ncols);
    if (rc >= 0) return rc;
    scn *s = cli_load_scenario(prog, argc, argv, x.seed_given, x.seed);
    if (s == NULL) return CLI_USAGE;
    s->cfg.bug = x.bug;
    s->profile = x.profile;
    if (x.random_faults) cli_random_faults(s);   /* one profile, drawn from the file's own settings, for every mode */
    for (uint32_t i = 0; i < ncols; i++) {
        if (cols[i].timeout && s->cfg.ckpt.alignment_timeout_ns == 0) {
            fprintf(stderr, "%s: --modes aligned-timeout: the scenario sets no alignment-timeout\n", prog);
            free(s);
            return CLI_USAGE;
        }
    }
    char err[SCN_ERR_BYTES];
    for (uint32_t i = 0; i < ncols; i++) {
        if (!run_mode(s, &cols[i], err, sizeof err)) {
            fprintf(stderr, "%s: %s\n", argv[optind], err);
            free(s);
            return CLI_USAGE;
        }
    }
    print_columns(argv[optind], s, cols, ncols);
    free(s);
    return CLI_OK;
}
