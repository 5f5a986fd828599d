/* cli/swarm.c: `absim swarm`: one scenario (or several) over a range of
 * seeds, each run in a child process of its own (runs stay single-threaded:
 * parallelism only across seeds), up to --jobs at once, on the process
 * pool of cli/pool.c.
 *
 * Output: on stdout one JSON line per failing run (in seed and file
 * order, after the runs) and a closing tally, a line of text, or with
 * --json the last JSON object (the text then goes to stderr, so stdout
 * is JSON lines only); on stderr a progress line, rewritten in place on a
 * terminal and otherwise a line every --progress seconds, unless
 * --quiet; with --junit a JUnit XML report (cli/junit.c). Everything but
 * the times is the same whatever --jobs. --shard I/N keeps the seeds
 * with seed % N == I, so N machines (GNU parallel --sshlogin, a Slurm
 * job array) split a campaign without talking to each other. A child
 * that dies (an assertion, a signal) is a failing run too. */
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
#define SWARM_TTY_SECONDS 0.25        /* a terminal's line is rewritten at most this often */

typedef struct failed {
    uint64_t        task;             /* its place in the listing */
    cli_task_result r;
} failed;

typedef struct swarm_opts {
    uint64_t    seed_a, seed_b, jobs, shard_i, shard_n, progress_s;
    bool        random_faults, json, quiet;
    pipe_bug    bug;
    const char *junit_path;
    const char *coverage_path;
} swarm_opts;

/* The campaign, shared by the pool's callbacks. Task k * nfiles + f is
 * file f with the k-th seed of the shard, first + k * shard_n: every file
 * for a seed, then the next seed; tasks start in that order, and it is
 * the order of every listing. */
typedef struct swarm_ctx {
    const swarm_opts *opt;
    scn      *files;
    uint32_t  nfiles;
    uint64_t  first, seeds;           /* the shard's first seed, and how many it has */
    uint64_t  next;                   /* the next task to start */
    cli_junit *junit;                 /* --junit */
    const char *suites[SWARM_FILES_MAX];   /* the report's testsuites: the files' paths */
    const char *props[10];            /* the report's properties: the campaign's options */
    char      seeds_text[48], shard_text[48], jobs_text[24];
    bool      tty;
    uint64_t  done, passed, nfailed, died, kept;
    failed   *fails;                  /* the SWARM_FAILS_KEPT failing runs first in the listing */
    cli_out   cov;                    /* --coverage */
    uint64_t  reach[PIPE_REACH_COUNT];   /* summed over the runs */
    double    t0, shown;              /* wall clock (CLOCK_MONOTONIC): the start, the last progress line */
} swarm_ctx;

static void swarm_usage(FILE *f) {
    fprintf(f, "usage: absim swarm FILE... --seeds A..B [--jobs J] [--shard I/N] [--faults random]\n"
               "                   [--bug NAME] [--json] [--quiet] [--progress S] [--junit FILE]\n"
               "                   [--coverage FILE]\n"
               "\n"
               "Runs each scenario with every seed from A to B (inclusive), each run in a\n"
               "process of its own, J at a time (default: the number of cores), and checks\n"
               "the scenario's expect lines. With --faults random every seed adds a fault\n"
               "profile of its own (which kinds are on, how many, when, how long).\n"
               "Prints a JSON line per failing run (in seed order; replay it with absim\n"
               "replay FILE --seed S --hash H) and a closing tally; exit 1 when a run failed.\n"
               "  --shard I/N   only seeds with seed %% N == I (spread a campaign over N machines)\n"
               "  --json        stdout is JSON lines only: the tally is the last object\n"
               "                ({\"tally\":true,\"passed\":...}); its text line goes to stderr\n"
               "  --quiet       no progress line on stderr (the tally is still printed)\n"
               "  --progress S  when stderr is not a terminal, a progress line every S\n"
               "                seconds (default 3; 0: after every run); on a terminal the\n"
               "                line is rewritten in place\n"
               "  --junit FILE  also write a JUnit XML report: a testsuite per scenario file,\n"
               "                a testcase per seed in seed order (tests/junit.xsd)\n"
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

/* The options; returns -1 when the run goes on, else the exit status. */
static int parse_opts(const char *prog, int argc, char **argv, swarm_opts *o) {
    static const struct option opts[] = {
        { "seeds", required_argument, NULL, 's' }, { "jobs", required_argument, NULL, 'j' },
        { "shard", required_argument, NULL, 'S' }, { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },   { "junit", required_argument, NULL, 'J' },
        { "coverage", required_argument, NULL, 'C' }, { "json", no_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },       { "progress", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },        { NULL, 0, NULL, 0 },
    };
    *o = (swarm_opts){ .shard_n = 1, .bug = PIPE_BUG_NONE, .progress_s = 3 };
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
        case 'S': if (!cli_parse_shard(prog, optarg, &o->shard_i, &o->shard_n)) return CLI_USAGE; break;
        case 'f': if (!cli_parse_faults(prog, optarg, &o->random_faults)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &o->bug)) return CLI_USAGE; break;
        case 'J': o->junit_path = optarg; break;
        case 'C': o->coverage_path = optarg; break;
        case 'o': o->json = true; break;
        case 'q': o->quiet = true; break;
        case 'p': if (!cli_parse_u64(prog, "--progress", optarg, 0, 3600, &o->progress_s)) return CLI_USAGE; break;
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

static uint64_t task_seed(const swarm_ctx *w, uint64_t task) {
    return w->first + task / w->nfiles * w->opt->shard_n;
}

static bool next_task(void *ctx, uint64_t *task) {
    swarm_ctx *w = ctx;
    if (w->next == w->seeds * w->nfiles) return false;
    *task = w->next++;
    return true;
}

static void work(void *ctx, uint64_t task, cli_task_result *out) {
    const swarm_ctx *w = ctx;
    cli_task_run(&w->files[task % w->nfiles], task_seed(w, task), w->opt->bug, w->opt->random_faults, out);
}

/* The commands that reproduce, narrate and minimise a failing run (a run
 * that died or could not start has no trace hash: `run` shows it again). */
static void follow_up(const swarm_ctx *w, uint64_t task, const cli_task_result *r, char cmd[3][1024]) {
    char path[512];
    (void)cli_shell_word(w->files[task % w->nfiles].path, path, sizeof path);
    uint64_t seed = task_seed(w, task);
    const char *self = cli_self();
    char opts[96];
    snprintf(opts, sizeof opts, "%s%s%s", w->opt->random_faults ? " --faults random" : "",
             w->opt->bug ? " --bug " : "", w->opt->bug ? pipe_bug_name(w->opt->bug) : "");
    if (r->died || r->rc == CLI_USAGE) {          /* no trace hash to check: running it again shows what happened */
        snprintf(cmd[0], 1024, "%s run %s --seed %" PRIu64 "%s", self, path, seed, opts);
    } else {
        snprintf(cmd[0], 1024, "%s replay %s --seed %" PRIu64 " --hash %016" PRIx64 "%s", self, path, seed,
                 r->trace_hash, opts);
    }
    snprintf(cmd[1], 1024, "%s explain %s --seed %" PRIu64 "%s", self, path, seed, opts);
    snprintf(cmd[2], 1024, "%s shrink %s --seed %" PRIu64 "%s", self, path, seed, opts);
}

/* The run as a JUnit testcase: a failure (an invariant, an expectation,
 * a fault that never fired) or an error (the run died, or could not
 * start); a failing one's output has its faults and the follow-up
 * commands. */
static void junit_case(const swarm_ctx *w, uint64_t task, const cli_task_result *r) {
    char name[40], type[40], out[sizeof r->profile + 3200], cmd[3][1024];
    uint32_t f = (uint32_t)(task % w->nfiles);
    snprintf(name, sizeof name, "seed %" PRIu64, task_seed(w, task));
    cli_junit_case c = { .suite = f, .name = name, .classname = w->files[f].path, .seconds = r->seconds,
                         .type = type, .failures = &r->failures };
    if (r->rc != CLI_OK) {
        bool error = r->died || r->rc == CLI_USAGE;
        c.verdict = error ? CLI_JUNIT_ERROR : CLI_JUNIT_FAILURE;
        snprintf(type, sizeof type, "%s%s", r->died ? "crash" : r->rc == CLI_USAGE ? "bad input" : r->inv ? "invariant "
                 : r->failed_line ? "expectation" : "fault never fired", error || !r->inv ? "" : check_inv_name(r->inv));
        follow_up(w, task, r, cmd);
        snprintf(out, sizeof out, "faults:\n%sreplay: %s\nexplain: %s\nshrink: %s\n", r->profile, cmd[0], cmd[1], cmd[2]);
        c.out = out;
    }
    cli_junit_add(w->junit, task, &c);
}

/* Keeps the failing runs first in the listing, whatever order they end
 * in: once SWARM_FAILS_KEPT are kept, a run earlier than the last kept
 * one takes its place. */
static void keep_fail(swarm_ctx *w, uint64_t task, const cli_task_result *r) {
    uint64_t at = w->kept;
    if (w->kept == SWARM_FAILS_KEPT) {
        at = 0;
        for (uint64_t i = 1; i < w->kept; i++) at = w->fails[i].task > w->fails[at].task ? i : at;
        if (w->fails[at].task < task) return;
    } else {
        w->kept++;
    }
    w->fails[at] = (failed){ .task = task, .r = *r };
}

static void eta_text(double s, char *buf, size_t n) {
    uint64_t t = (uint64_t)(s + 0.5);
    if (t < 60) snprintf(buf, n, "%" PRIu64 "s", t);
    else if (t < 3600) snprintf(buf, n, "%" PRIu64 "m%02" PRIu64 "s", t / 60, t % 60);
    else snprintf(buf, n, "%" PRIu64 "h%02" PRIu64 "m", t / 3600, t / 60 % 60);
}

/* The progress line, when due: a CI log keeps every line, so off a
 * terminal one comes only every --progress seconds. */
static void progress(swarm_ctx *w) {
    double now = cli_now_s(), every = (double)w->opt->progress_s;
    if (w->tty && every > SWARM_TTY_SECONDS) every = SWARM_TTY_SECONDS;
    if (w->opt->quiet || now - w->shown < every) return;
    w->shown = now;
    uint64_t total = w->seeds * w->nfiles;
    double rate = now > w->t0 ? (double)w->done / (now - w->t0) : 0.0;
    char eta[32];
    eta_text(rate > 0 ? (double)(total - w->done) / rate : 0.0, eta, sizeof eta);
    fprintf(stderr, "%sswarm: %" PRIu64 "/%" PRIu64 " %s, %" PRIu64 " failed, %.*f runs/s, eta %s%s", w->tty ? "\r" : "",
            w->done, total, w->nfiles == 1 ? "seeds" : "runs", w->nfailed, rate < 10 ? 1 : 0, rate, eta,
            w->tty ? "\033[K" : "\n");
}

static void done(void *ctx, uint64_t task, const cli_task_result *r) {
    swarm_ctx *w = ctx;
    w->done++;
    for (uint32_t i = 0; i < PIPE_REACH_COUNT; i++) w->reach[i] += r->reach[i];
    if (r->rc == CLI_OK) {
        w->passed++;
    } else {
        w->nfailed++;
        w->died += r->died;
        keep_fail(w, task, r);
    }
    junit_case(w, task, r);
    progress(w);
}

/* A failing run's JSON line: what failed, its bug, the faults it ran
 * with (drawn ones included, a scenario line each), and the commands
 * that reproduce, narrate and minimise it. */
static void print_fail(const swarm_ctx *w, const failed *x) {
    char cmd[3][1024];
    const char *bug = pipe_bug_name(w->opt->bug);
    printf("{\"file\":");
    cli_json_string(stdout, w->files[x->task % w->nfiles].path);
    printf(",\"seed\":%" PRIu64 ",\"trace_hash\":\"%016" PRIx64 "\",\"status\":\"%s\",\"faults\":\"%s\",",
           task_seed(w, x->task), x->r.trace_hash, x->r.status ? pipe_status_name(x->r.status) : "none",
           w->opt->random_faults ? "random" : "scripted");
    cli_failures_json(stdout, &x->r.failures);
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
    follow_up(w, x->task, &x->r, cmd);
    static const char *const keys[3] = { "replay", "explain", "shrink" };
    for (uint32_t i = 0; i < 3; i++) {
        printf("%s\"%s\":", i == 0 ? "]," : ",", keys[i]);
        cli_json_string(stdout, cmd[i]);
    }
    printf("}\n");
}

/* Failing runs in task (seed, file) order, whatever order they ended in. */
static void print_fails(const swarm_ctx *w) {
    failed *fs = w->fails;
    for (uint64_t i = 1; i < w->kept; i++) {
        failed x = fs[i];
        uint64_t j = i;
        for (; j > 0 && fs[j - 1].task > x.task; j--) fs[j] = fs[j - 1];
        fs[j] = x;
    }
    for (uint64_t i = 0; i < w->kept; i++) print_fail(w, &fs[i]);
}

/* The tally: a line of text (stdout, or stderr with --json), and with
 * --json the last JSON object on stdout. */
static void print_tally(const swarm_ctx *w, double wall, bool ran) {
    const swarm_opts *o = w->opt;
    double rate = wall > 0 ? (double)w->done / wall : 0.0;
    uint64_t unrun = w->seeds * w->nfiles - w->done;
    FILE *text = o->json ? stderr : stdout;
    fprintf(text, "swarm: %" PRIu64 " passed, %" PRIu64 " failed (%" PRIu64 " runs in %.2f s, %.1f runs/s with %" PRIu64
            " jobs)", w->passed, w->nfailed, w->done, wall, rate, o->jobs);
    if (w->kept < w->nfailed) fprintf(text, "; the first %" PRIu64 " failing runs are listed", w->kept);
    if (!ran) fprintf(text, "; %" PRIu64 " runs not started", unrun);
    fputc('\n', text);
    if (!o->json) return;
    printf("{\"tally\":true,\"passed\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"died\":%" PRIu64 ",\"runs\":%" PRIu64
           ",\"unrun\":%" PRIu64 ",\"listed\":%" PRIu64 ",\"seeds\":%" PRIu64 ",\"files\":%u,\"seconds\":%.3f"
           ",\"runs_per_s\":%.1f,\"jobs\":%" PRIu64 "}\n", w->passed, w->nfailed, w->died, w->done, unrun, w->kept,
           w->seeds, w->nfiles, wall, rate, o->jobs);
}

/* Two outputs into one file (stdout included) would overwrite each
 * other, and with --json stdout carries the JSON lines only. */
static bool outputs_apart(const char *prog, const swarm_opts *o) {
    const char *j = o->junit_path, *c = o->coverage_path;
    if (j != NULL && c != NULL && strcmp(j, c) == 0) {
        fprintf(stderr, "%s: --junit and --coverage name the same file %s\n", prog, j);
        return false;
    }
    const char *dash = j != NULL && strcmp(j, "-") == 0 ? "--junit" : c != NULL && strcmp(c, "-") == 0 ? "--coverage" : NULL;
    if (o->json && dash != NULL) {
        fprintf(stderr, "%s: %s -: with --json standard output carries the JSON lines only; name a file\n", prog, dash);
        return false;
    }
    return true;
}

/* Every file is valid before any run, and the reports can be written. */
static bool open_campaign(const char *prog, char **names, swarm_ctx *w) {
    const swarm_opts *o = w->opt;
    char err[SCN_ERR_BYTES];
    if (!outputs_apart(prog, o)) return false;
    for (uint32_t i = 0; i < w->nfiles; i++) {
        cli_input_note(names[i]);
        if (!scn_load(&w->files[i], names[i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return false;
        }
    }
    if (!cli_out_open(prog, "--coverage", o->coverage_path, &w->cov)) return false;
    for (uint32_t i = 0; i < w->nfiles; i++) w->suites[i] = w->files[i].path;
    snprintf(w->seeds_text, sizeof w->seeds_text, "%" PRIu64 "..%" PRIu64, o->seed_a, o->seed_b);
    snprintf(w->shard_text, sizeof w->shard_text, "%" PRIu64 "/%" PRIu64, o->shard_i, o->shard_n);
    snprintf(w->jobs_text, sizeof w->jobs_text, "%" PRIu64, o->jobs);
    const char *props[10] = { "seeds", w->seeds_text, "shard", w->shard_text, "faults",
                              o->random_faults ? "random" : "scripted", "bug", pipe_bug_name(o->bug), "jobs", w->jobs_text };
    memcpy(w->props, props, sizeof props);
    if (!cli_junit_open(prog, o->junit_path, w->nfiles, w->suites, w->props, 5, &w->junit)) {
        cli_out_abandon(&w->cov);
        return false;
    }
    return true;
}

/* The seeds of the shard: the first, and how many. */
static void shard_seeds(swarm_ctx *w) {
    const swarm_opts *o = w->opt;
    uint64_t skip = (o->shard_i + o->shard_n - o->seed_a % o->shard_n) % o->shard_n;
    w->first = o->seed_a + skip;
    w->seeds = skip > o->seed_b - o->seed_a ? 0 : (o->seed_b - w->first) / o->shard_n + 1;
}

int cli_swarm(int argc, char **argv) {
    const char *prog = "absim swarm";
    swarm_opts o;
    int rc = parse_opts(prog, argc, argv, &o);
    if (rc >= 0) return rc;
    swarm_ctx w = { .opt = &o, .nfiles = (uint32_t)(argc - optind), .tty = isatty(2) };
    w.files = calloc(w.nfiles, sizeof *w.files);
    w.fails = calloc(SWARM_FAILS_KEPT, sizeof *w.fails);
    if (w.files == NULL || w.fails == NULL || !open_campaign(prog, argv + optind, &w)) {
        rc = w.files == NULL || w.fails == NULL ? CLI_FAIL : CLI_USAGE;
        free(w.files);
        free(w.fails);
        return rc;
    }
    shard_seeds(&w);
    w.t0 = w.shown = cli_now_s();
    bool ran = cli_pool(prog, o.jobs, &w, next_task, work, done);
    double wall = cli_now_s() - w.t0;
    if (w.tty && !o.quiet) fputs("\r\033[K", stderr);   /* the tally says it all */
    print_fails(&w);
    print_tally(&w, wall, ran);
    if (o.coverage_path != NULL) {
        cli_cov_report(o.json ? stderr : stdout, w.reach);
        cli_cov_write(w.cov.f, w.reach);          /* a failed write shows at the commit */
    }
    bool written = cli_junit_commit(prog, w.junit, wall);
    written = cli_out_commit(prog, "--coverage", &w.cov) && written;
    free(w.files);
    free(w.fails);
    if (!cli_stdout_ok(prog) || !written) return CLI_USAGE;
    return ran && w.nfailed == 0 ? CLI_OK : CLI_FAIL;   /* runs left unstarted (fork failed) are no pass */
}
