/* cli/swarm.c: `absim swarm`: one scenario (or several) over a range of
 * seeds, each run in a child process of its own (runs stay single-threaded:
 * parallelism only across seeds), up to --jobs at once, on the process
 * pool of cli/pool.c.
 *
 * Output: a progress line on a terminal (stderr), one JSON line per failing
 * seed on stdout (in seed order, after the runs), a closing tally, and with
 * --junit a JUnit XML report. --shard I/N keeps the seeds with seed % N == I,
 * so N machines (GNU parallel --sshlogin, a Slurm job array) split a
 * campaign without talking to each other. A child that dies (an assertion,
 * a signal) is a failing seed too. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define SWARM_FILES_MAX 64u
#define SWARM_SEEDS_MAX (1ull << 24)
#define SWARM_FAILS_KEPT 1000u

typedef struct failed {
    uint64_t        seed;
    uint32_t        file;
    cli_task_result r;
} failed;

typedef struct swarm_opts {
    uint64_t    seed_a, seed_b, jobs, shard_i, shard_n;
    bool        random_faults;
    pipe_bug    bug;
    const char *junit_path;
    const char *coverage_path;
} swarm_opts;

/* The campaign, shared by the pool's callbacks. A task is
 * (seed - seed_a) * nfiles + file: every file for a seed, then the next
 * seed of the shard. */
typedef struct swarm_ctx {
    const swarm_opts *opt;
    scn      *files;
    uint32_t  nfiles;
    uint64_t  seed;                   /* the next task's seed and file */
    uint32_t  file;
    bool      exhausted;
    cli_out   junit;                  /* --junit */
    bool      tty;
    uint64_t  total, done, passed, nfailed, kept;
    failed   *fails;                  /* the first SWARM_FAILS_KEPT failing runs */
    cli_out   cov;                    /* --coverage */
    uint64_t  reach[PIPE_REACH_COUNT];   /* summed over the runs */
} swarm_ctx;

static void swarm_usage(FILE *f) {
    fprintf(f, "usage: absim swarm FILE... --seeds A..B [--jobs J] [--shard I/N] [--faults random]\n"
               "                   [--bug NAME] [--junit FILE] [--coverage FILE]\n"
               "\n"
               "Runs each scenario with every seed from A to B (inclusive), each run in a\n"
               "process of its own, J at a time (default: the number of cores), and checks\n"
               "the scenario's expect lines. With --faults random every seed adds a fault\n"
               "profile of its own (which kinds are on, how many, when, how long).\n"
               "Prints a JSON line per failing seed (replay it with absim replay FILE\n"
               "--seed S --hash H) and a closing tally; exit 1 when a seed failed.\n"
               "  --shard I/N   only seeds with seed %% N == I (spread a campaign over N machines)\n"
               "  --junit FILE  also write a JUnit XML report\n"
               "  --coverage FILE  write every protocol reach point's count over all runs\n"
               "                as one JSON object (absim coverage lists them), and print\n"
               "                the points no run reached\n"
               "  --bug NAME    a deliberately wrong protocol (see absim run --help): it must fail\n");
}

static bool parse_range(const char *prog, const char *text, uint64_t *a, uint64_t *b) {
    const char *dots = strstr(text, "..");
    if (dots == NULL) {
        fprintf(stderr, "%s: --seeds '%s': expected A..B\n", prog, text);
        return false;
    }
    char first[32];
    size_t n = (size_t)(dots - text);
    if (n == 0 || n >= sizeof first) {
        fprintf(stderr, "%s: --seeds '%s': expected A..B\n", prog, text);
        return false;
    }
    memcpy(first, text, n);
    first[n] = '\0';
    if (!cli_parse_u64(prog, "--seeds", first, 0, UINT64_MAX, a)) return false;
    if (!cli_parse_u64(prog, "--seeds", dots + 2, *a, UINT64_MAX, b)) return false;
    if (*b - *a >= SWARM_SEEDS_MAX) {
        fprintf(stderr, "%s: --seeds: at most %llu seeds at once\n", prog, (unsigned long long)SWARM_SEEDS_MAX);
        return false;
    }
    return true;
}

static bool next_task(void *ctx, uint64_t *task) {
    swarm_ctx *w = ctx;
    const swarm_opts *o = w->opt;
    if (w->exhausted) return false;
    while (w->seed % o->shard_n != o->shard_i && w->seed != o->seed_b) w->seed++;
    if (w->seed % o->shard_n != o->shard_i) {
        w->exhausted = true;
        return false;
    }
    *task = (w->seed - o->seed_a) * w->nfiles + w->file;
    if (++w->file == w->nfiles) {                /* every file for this seed, then the next seed */
        w->file = 0;
        if (w->seed == o->seed_b) w->exhausted = true; else w->seed++;
    }
    return true;
}

static void work(void *ctx, uint64_t task, cli_task_result *out) {
    const swarm_ctx *w = ctx;
    cli_task_run(&w->files[task % w->nfiles], w->opt->seed_a + task / w->nfiles, w->opt->bug, w->opt->random_faults, out);
}

static void junit_case(const swarm_ctx *w, uint32_t f, uint64_t seed, const cli_task_result *r) {
    FILE *j = w->junit.f;
    pipe_bug bug = w->opt->bug;
    fprintf(j, "<testcase classname=\"");
    cli_xml_string(j, w->files[f].path, true);
    fprintf(j, "\" name=\"seed %" PRIu64 "\">", seed);
    if (r->rc != CLI_OK) {
        fprintf(j, "<failure message=\"");
        cli_xml_string(j, r->failures.count > 0 ? r->failures.text[0] : "", true);
        fprintf(j, "\">replay: absim replay %s --seed %" PRIu64 " --hash %016" PRIx64 "%s%s%s</failure>",
                w->files[f].path, seed, r->trace_hash, w->opt->random_faults ? " --faults random" : "",
                bug ? " --bug " : "", bug ? pipe_bug_name(bug) : "");
    }
    fprintf(j, "</testcase>\n");
}

static void done(void *ctx, uint64_t task, const cli_task_result *r) {
    swarm_ctx *w = ctx;
    uint32_t f = (uint32_t)(task % w->nfiles);
    uint64_t seed = w->opt->seed_a + task / w->nfiles;
    w->done++;
    for (uint32_t i = 0; i < PIPE_REACH_COUNT; i++) w->reach[i] += r->reach[i];
    if (r->rc == CLI_OK) {
        w->passed++;
    } else {
        w->nfailed++;
        if (w->kept < SWARM_FAILS_KEPT) w->fails[w->kept++] = (failed){ .seed = seed, .file = f, .r = *r };
    }
    if (w->junit.f != NULL) junit_case(w, f, seed, r);
    if (w->tty) fprintf(stderr, "\rswarm: %" PRIu64 "/%" PRIu64 " runs, %" PRIu64 " failed", w->done,
                        w->total * w->nfiles, w->nfailed);
}

/* What a failing seed needs to be followed: its bug, the faults it ran
 * with (drawn ones included), and the commands that reproduce, narrate
 * and minimise it. */
static void print_follow_up(const swarm_ctx *w, const failed *x) {
    const char *path = w->files[x->file].path, *bug = pipe_bug_name(w->opt->bug);
    char opts[96];
    snprintf(opts, sizeof opts, "%s%s%s", w->opt->random_faults ? " --faults random" : "",
             w->opt->bug ? " --bug " : "", w->opt->bug ? bug : "");
    printf(",\"bug\":\"%s\",\"profile\":[", w->opt->bug ? bug : "none");
    const char *line = x->r.profile;
    for (bool first = true; *line != '\0'; first = false) {
        const char *end = strchr(line, '\n');
        char one[SCN_FAULT_TEXT_BYTES];
        size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
        snprintf(one, sizeof one, "%.*s", (int)n, line);
        printf("%s", first ? "" : ",");
        cli_json_string(stdout, one);
        line += n + (end != NULL);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "absim replay %s --seed %" PRIu64 " --hash %016" PRIx64 "%s", path, x->seed, x->r.trace_hash, opts);
    printf("],\"replay\":");
    cli_json_string(stdout, cmd);
    snprintf(cmd, sizeof cmd, "absim explain %s --seed %" PRIu64 "%s", path, x->seed, opts);
    printf(",\"explain\":");
    cli_json_string(stdout, cmd);
    snprintf(cmd, sizeof cmd, "absim shrink %s --seed %" PRIu64 "%s", path, x->seed, opts);
    printf(",\"shrink\":");
    cli_json_string(stdout, cmd);
}

/* Failing seeds in (seed, file) order, whatever order the children ended in. */
static void print_fails(const swarm_ctx *w) {
    failed *fs = w->fails;
    for (uint64_t i = 1; i < w->kept; i++) {
        failed x = fs[i];
        uint64_t j = i;
        while (j > 0 && (fs[j - 1].seed > x.seed || (fs[j - 1].seed == x.seed && fs[j - 1].file > x.file))) {
            fs[j] = fs[j - 1];
            j--;
        }
        fs[j] = x;
    }
    for (uint64_t i = 0; i < w->kept; i++) {
        const failed *x = &fs[i];
        printf("{\"file\":");
        cli_json_string(stdout, w->files[x->file].path);
        printf(",\"seed\":%" PRIu64 ",\"trace_hash\":\"%016" PRIx64 "\",\"status\":\"%s\",\"faults\":\"%s\",",
               x->seed, x->r.trace_hash, x->r.status ? pipe_status_name(x->r.status) : "none",
               w->opt->random_faults ? "random" : "scripted");
        cli_failures_json(stdout, &x->r.failures);
        print_follow_up(w, x);
        printf("}\n");
    }
}

static bool parse_shard(const char *prog, const char *text, swarm_opts *o) {
    const char *slash = strchr(text, '/');
    char first[24];
    if (slash == NULL || slash == text || (size_t)(slash - text) >= sizeof first) {
        fprintf(stderr, "%s: --shard '%s': expected I/N, as 0/4\n", prog, text);
        return false;
    }
    memcpy(first, text, (size_t)(slash - text));
    first[slash - text] = '\0';
    return cli_parse_u64(prog, "--shard", slash + 1, 1, 1u << 20, &o->shard_n) &&
           cli_parse_u64(prog, "--shard", first, 0, o->shard_n - 1, &o->shard_i);
}

/* The options; returns -1 when the run goes on, else the exit status. */
static int parse_opts(const char *prog, int argc, char **argv, swarm_opts *o) {
    static const struct option opts[] = {
        { "seeds", required_argument, NULL, 's' }, { "jobs", required_argument, NULL, 'j' },
        { "shard", required_argument, NULL, 'S' }, { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },   { "junit", required_argument, NULL, 'J' },
        { "coverage", required_argument, NULL, 'C' },
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
    };
    *o = (swarm_opts){ .shard_n = 1, .bug = PIPE_BUG_NONE };
    bool seeds_given = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!parse_range(prog, optarg, &o->seed_a, &o->seed_b)) return CLI_USAGE;
            seeds_given = true;
            break;
        case 'j': if (!cli_parse_u64(prog, "--jobs", optarg, 1, 256, &o->jobs)) return CLI_USAGE; break;
        case 'S': if (!parse_shard(prog, optarg, o)) return CLI_USAGE; break;
        case 'f': if (!cli_parse_faults(prog, optarg, &o->random_faults)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &o->bug)) return CLI_USAGE; break;
        case 'J': o->junit_path = optarg; break;
        case 'C': o->coverage_path = optarg; break;
        case 'h': swarm_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    uint32_t nfiles = (uint32_t)(argc - optind);
    if (nfiles == 0 || !seeds_given) {
        fprintf(stderr, "%s: expected scenario files and --seeds A..B (see --help)\n", prog);
        return CLI_USAGE;
    }
    if (nfiles > SWARM_FILES_MAX) {
        fprintf(stderr, "%s: at most %u scenario files\n", prog, SWARM_FILES_MAX);
        return CLI_USAGE;
    }
    if (o->jobs == 0) o->jobs = cli_cores();
    return -1;
}

/* Every file is valid before any run, and the JUnit file can be written. */
static bool open_campaign(const char *prog, char **names, swarm_ctx *w) {
    char err[SCN_ERR_BYTES];
    for (uint32_t i = 0; i < w->nfiles; i++) {
        if (!scn_load(&w->files[i], names[i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return false;
        }
    }
    if (!cli_out_open(prog, "--coverage", w->opt->coverage_path, &w->cov)) return false;
    if (!cli_out_open(prog, "--junit", w->opt->junit_path, &w->junit)) {
        cli_out_abandon(&w->cov);
        return false;
    }
    if (w->junit.f != NULL) fprintf(w->junit.f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"absim swarm\">\n");
    return true;
}

int cli_swarm(int argc, char **argv) {
    const char *prog = "absim swarm";
    swarm_opts o;
    int rc = parse_opts(prog, argc, argv, &o);
    if (rc >= 0) return rc;
    swarm_ctx w = { .opt = &o, .nfiles = (uint32_t)(argc - optind), .seed = o.seed_a, .tty = isatty(2) };
    w.files = calloc(w.nfiles, sizeof *w.files);
    w.fails = calloc(SWARM_FAILS_KEPT, sizeof *w.fails);
    if (w.files == NULL || w.fails == NULL || !open_campaign(prog, argv + optind, &w)) {
        rc = w.files == NULL || w.fails == NULL ? CLI_FAIL : CLI_USAGE;
        free(w.files);
        free(w.fails);
        return rc;
    }
    for (uint64_t x = o.seed_a;; x++) {
        w.total += x % o.shard_n == o.shard_i;
        if (x == o.seed_b) break;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool ran = cli_pool(prog, o.jobs, &w, next_task, work, done);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (w.tty) fputc('\n', stderr);
    print_fails(&w);
    printf("swarm: %" PRIu64 " passed, %" PRIu64 " failed (%" PRIu64 " runs in %.2f s, %.1f runs/s with %" PRIu64 " jobs)\n",
           w.passed, w.nfailed, w.done, wall, wall > 0 ? (double)w.done / wall : 0.0, o.jobs);
    if (w.junit.f != NULL) fprintf(w.junit.f, "</testsuite>\n</testsuites>\n");
    if (o.coverage_path != NULL) {
        cli_cov_report(stdout, w.reach);
        cli_cov_write(w.cov.f, w.reach);          /* a failed write shows at the commit */
    }
    bool written = cli_out_commit(prog, "--junit", &w.junit);
    written = cli_out_commit(prog, "--coverage", &w.cov) && written;
    free(w.files);
    free(w.fails);
    if (!cli_stdout_ok(prog) || !written) return CLI_USAGE;
    return ran && w.nfailed == 0 ? CLI_OK : CLI_FAIL;   /* seeds left unrun (fork failed) are no pass */
}
