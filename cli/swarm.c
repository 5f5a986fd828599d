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
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
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
#define SWARM_BATCH       64u         /* --faults guided: runs made from one state of the kept profiles */

typedef struct failed {
    uint64_t        task;             /* its place in the listing */
    cli_task_result r;
    char            scenario[512];    /* --faults guided: the run as a scenario file ("" when not written) */
} failed;

typedef struct swarm_opts {
    uint64_t    seed_a, seed_b, jobs, shard_i, shard_n, progress_s;
    bool        random_faults, guided, json, quiet;
    uint8_t     profile;              /* --faults random or buggify: SCN_PROFILE_* */
    uint64_t    target;               /* --faults guided: runs a point must reach before it stops being rare */
    pipe_bug    bug;
    cli_pct     pct;                  /* --pct */
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
    const char *props[12];            /* the report's properties: the campaign's options */
    char      seeds_text[48], shard_text[48], jobs_text[24], pct_text[40];   /* pct_text: "3", "3/250" or "none" */
    bool      tty;
    uint64_t  done, passed, nfailed, died, kept;
    failed   *fails;                  /* the SWARM_FAILS_KEPT failing runs first in the listing */
    cli_out   cov;                    /* --coverage */
    uint64_t  reach[PIPE_REACH_COUNT];   /* summed over the runs */
    uint64_t  runs_reaching[PIPE_REACH_COUNT];   /* runs that reached each point */
    double    t0, shown;              /* wall clock (CLOCK_MONOTONIC): the start, the last progress line */
    /* --faults guided: runs go in batches of SWARM_BATCH tasks, whose
     * profiles are made before the batch from what the runs before it
     * reached (cli/guide.c) */
    cli_guide *guide;
    scn       *batch;                 /* [SWARM_BATCH]: task batch_first + i's scenario */
    uint64_t  *batch_settings;        /* ... the seed its settings were drawn for */
    cli_task_result *batch_result;   /* ... its result, once it ran (taken after the batch, in order) */
    uint64_t   batch_first, batch_end;
    char       dir[256];              /* where failing guided runs are written ("" until the first, "-": cannot) */
} swarm_ctx;

static void swarm_usage(FILE *f) {
    fprintf(f, "usage: absim swarm FILE... --seeds A..B [--jobs J] [--shard I/N] [--faults random|buggify|guided]\n"
               "                   [--target N] [--bug NAME] [--pct D[/K][~T]] [--json] [--quiet]\n"
               "                   [--progress S]\n"
               "                   [--junit FILE] [--coverage FILE]\n"
               "\n"
               "Runs each scenario with every seed from A to B (inclusive), each run in a\n"
               "process of its own, J at a time (default: the number of cores), and checks\n"
               "the scenario's expect lines. With --faults random every seed adds a fault\n"
               "profile of its own (which kinds are on, how many, when, how long); with\n"
               "--faults buggify its two-level activation profile (absim run --help); with\n"
               "--faults guided most profiles are mutants of earlier runs' that reached\n"
               "protocol points fewer than --target runs (default 100) had reached, and a\n"
               "failing run is written as a scenario file (its commands name it).\n"
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
               "                the points no run reached and those fewer than --target did\n"
               "  --bug NAME    a deliberately wrong protocol (see absim run --help): it must fail\n"
               "  --pct D[/K][~T]  every run orders simultaneous events by PCT of depth D, its\n"
               "                seed drawing the priorities and change points (absim run --help)\n");
}

/* The options; returns -1 when the run goes on, else the exit status. */
static int parse_opts(const char *prog, int argc, char **argv, swarm_opts *o) {
    static const struct option opts[] = {
        { "seeds", required_argument, NULL, 's' }, { "jobs", required_argument, NULL, 'j' },
        { "shard", required_argument, NULL, 'S' }, { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },   { "junit", required_argument, NULL, 'J' },
        { "coverage", required_argument, NULL, 'C' }, { "json", no_argument, NULL, 'o' },
        { "quiet", no_argument, NULL, 'q' },       { "progress", required_argument, NULL, 'p' },
        { "target", required_argument, NULL, 'T' }, { "help", no_argument, NULL, 'h' },
        { "pct", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    *o = (swarm_opts){ .shard_n = 1, .bug = PIPE_BUG_NONE, .progress_s = 3, .target = 100 };
    bool seeds_given = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_range(prog, optarg, SWARM_SEEDS_MAX, &o->seed_a, &o->seed_b)) return CLI_USAGE;
            seeds_given = true;
            break;
        case 'j': if (!cli_parse_u64(prog, "--jobs", optarg, 1, 256, &o->jobs)) return CLI_USAGE; break;
        case 'S': if (!cli_parse_shard(prog, optarg, &o->shard_i, &o->shard_n)) return CLI_USAGE; break;
        case 'f':
            o->guided = strcmp(optarg, "guided") == 0;
            o->random_faults = strcmp(optarg, "random") == 0 || strcmp(optarg, "buggify") == 0;
            o->profile = strcmp(optarg, "buggify") == 0 ? SCN_PROFILE_BUGGIFY : SCN_PROFILE_RANDOM;
            if (!o->guided && !o->random_faults) {
                fprintf(stderr, "%s: --faults '%s': random, buggify or guided\n", prog, optarg);
                return CLI_USAGE;
            }
            break;
        case 'T': if (!cli_parse_u64(prog, "--target", optarg, 1, 1u << 30, &o->target)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &o->bug)) return CLI_USAGE; break;
        case 'P': if (!cli_parse_pct(prog, optarg, &o->pct)) return CLI_USAGE; break;
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

/* The campaign's profiles as its reports name them. */
static const char *profile_name(const swarm_opts *o) {
    if (o->guided) return "guided";
    if (!o->random_faults) return "scripted";
    return o->profile == SCN_PROFILE_BUGGIFY ? "buggify" : "random";
}

static uint64_t task_seed(const swarm_ctx *w, uint64_t task) {
    return w->first + task / w->nfiles * w->opt->shard_n;
}

static bool next_task(void *ctx, uint64_t *task) {
    swarm_ctx *w = ctx;
    if (w->next == w->batch_end) return false;
    *task = w->next++;
    return true;
}

static void work(void *ctx, uint64_t task, cli_task_result *out) {
    const swarm_ctx *w = ctx;
    if (w->guide != NULL) {                       /* the batch's scenario holds the profile and the settings */
        cli_task_run(&w->batch[task - w->batch_first], task_seed(w, task), w->opt->bug, false, out);
        return;
    }
    cli_task_run(&w->files[task % w->nfiles], task_seed(w, task), w->opt->bug, w->opt->random_faults, out);
}

/* A guided run's commands, on the scenario file it was written to (none
 * when it could not be). */
static void guided_follow_up(const cli_task_result *r, const char *scenario, uint64_t seed, pipe_bug bug,
                             char cmd[3][1024]) {
    char path[600], opts[64];
    const char *self = cli_self();
    if (scenario[0] == '\0') {
        for (uint32_t i = 0; i < 3; i++) cmd[i][0] = '\0';
        return;
    }
    (void)cli_shell_word(scenario, path, sizeof path);
    snprintf(opts, sizeof opts, "%s%s", bug ? " --bug " : "", bug ? pipe_bug_name(bug) : "");
    if (r->died || r->rc == CLI_USAGE) snprintf(cmd[0], 1024, "%s run %s --seed %" PRIu64 "%s", self, path, seed, opts);
    else snprintf(cmd[0], 1024, "%s replay %s --seed %" PRIu64 " --hash %016" PRIx64 "%s", self, path, seed, r->trace_hash, opts);
    snprintf(cmd[1], 1024, "%s explain %s --seed %" PRIu64 "%s", self, path, seed, opts);
    snprintf(cmd[2], 1024, "%s shrink %s --seed %" PRIu64 "%s", self, path, seed, opts);
}

/* The commands that reproduce, narrate and minimise a failing run (a run
 * that died or could not start has no trace hash: `run` shows it again). */
static void follow_up(const swarm_ctx *w, uint64_t task, const cli_task_result *r, const char *scenario,
                      char cmd[3][1024]) {
    char path[512];
    if (w->guide != NULL) {                       /* the run is its scenario file: profile and settings in it */
        guided_follow_up(r, scenario, task_seed(w, task), w->opt->bug, cmd);
        return;
    }
    (void)cli_shell_word(w->files[task % w->nfiles].path, path, sizeof path);
    uint64_t seed = task_seed(w, task);
    const char *self = cli_self();
    char opts[160], pct[48];
    snprintf(opts, sizeof opts, "%s%s%s%s", cli_faults_words(w->opt->random_faults, w->opt->profile),
             w->opt->bug ? " --bug " : "", w->opt->bug ? pipe_bug_name(w->opt->bug) : "",
             cli_pct_words(&w->opt->pct, pct, sizeof pct));
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
static void junit_case(const swarm_ctx *w, uint64_t task, const cli_task_result *r, const char *scenario) {
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
        follow_up(w, task, r, scenario, cmd);
        snprintf(out, sizeof out, "faults:\n%sreplay: %s\nexplain: %s\nshrink: %s\n", r->profile, cmd[0], cmd[1], cmd[2]);
        c.out = out;
    }
    cli_junit_add(w->junit, task, &c);
}

/* Keeps the failing runs first in the listing, whatever order they end
 * in: once SWARM_FAILS_KEPT are kept, a run earlier than the last kept
 * one takes its place. */
static void keep_fail(swarm_ctx *w, uint64_t task, const cli_task_result *r, const char *scenario) {
    uint64_t at = w->kept;
    if (w->kept == SWARM_FAILS_KEPT) {
        at = 0;
        for (uint64_t i = 1; i < w->kept; i++) at = w->fails[i].task > w->fails[at].task ? i : at;
        if (w->fails[at].task < task) return;
    } else {
        w->kept++;
    }
    w->fails[at] = (failed){ .task = task, .r = *r };
    snprintf(w->fails[at].scenario, sizeof w->fails[at].scenario, "%s", scenario);
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

/* A failing guided run as a scenario file, NAME-seedS.scn in a folder of
 * the campaign's own under $TMPDIR (or /tmp): its faults (drawn and
 * mutated) and settings are in no seed's random profile, so the file is
 * how it runs again. path stays "" when it cannot be written (said on
 * stderr once). */
static void write_guided(swarm_ctx *w, uint64_t task, char *path, size_t n) {
    const scn *s = &w->batch[task - w->batch_first];
    if (w->dir[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(w->dir, sizeof w->dir, "%s/absim-guided-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
        if (mkdtemp(w->dir) == NULL) {
            fprintf(stderr, "absim swarm: cannot make a folder for the failing runs (%s): %s\n", w->dir, strerror(errno));
            snprintf(w->dir, sizeof w->dir, "-");
        }
    }
    if (strcmp(w->dir, "-") == 0) return;
    char base[sizeof s->path];
    snprintf(base, sizeof base, "%s", s->path);
    char *b = basename(base), *dot = strrchr(b, '.');
    if (dot != NULL) *dot = '\0';
    char which[24] = "";                           /* two files of one name in a campaign must not collide */
    if (w->nfiles > 1) snprintf(which, sizeof which, "-file%" PRIu64, task % w->nfiles);
    int k = snprintf(path, n, "%s/%.100s%s-seed%" PRIu64 ".scn", w->dir, b, which, s->cfg.seed);
    SIM_ASSERT(k > 0 && (size_t)k < n);             /* a folder of 255 bytes, a name cut at 100 */
    scn *c = malloc(sizeof *c);
    FILE *f = c != NULL ? fopen(path, "wx") : NULL;
    bool ok = f != NULL;
    if (ok) {
        *c = *s;
        c->vary = 0;                                /* the settings drawn are in the file */
        ok = fprintf(f, "# absim swarm --faults guided, run of seed %" PRIu64 " of %s: its faults and settings\n",
                     s->cfg.seed, s->path) > 0;
        scn_write(c, f);
        ok = ok && fflush(f) == 0 && !ferror(f);
        ok = fclose(f) == 0 && ok;
    }
    free(c);
    if (!ok) {
        fprintf(stderr, "absim swarm: %s: %s\n", path, strerror(errno));
        if (f != NULL) remove(path);                /* no half-written file left behind */
        path[0] = '\0';
    }
}

/* A run's result, in the campaign's order for guided runs (after their
 * batch, so the first SWARM_FAILS_KEPT failing runs in that order are the
 * ones written as files and listed), as runs end otherwise. */
static void take(swarm_ctx *w, uint64_t task, const cli_task_result *r) {
    for (uint32_t i = 0; i < PIPE_REACH_COUNT; i++) w->reach[i] += r->reach[i], w->runs_reaching[i] += r->reach[i] > 0;
    char scenario[512] = "";
    if (r->rc == CLI_OK) {
        w->passed++;
    } else {
        w->nfailed++;
        w->died += r->died;
        if (w->guide != NULL && w->nfailed <= SWARM_FAILS_KEPT) write_guided(w, task, scenario, sizeof scenario);
        keep_fail(w, task, r, scenario);
    }
    junit_case(w, task, r, scenario);
}

static void done(void *ctx, uint64_t task, const cli_task_result *r) {
    swarm_ctx *w = ctx;
    w->done++;
    if (w->guide != NULL) w->batch_result[task - w->batch_first] = *r;   /* taken after the batch, in order */
    else take(w, task, r);
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
           profile_name(w->opt));
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
    follow_up(w, x->task, &x->r, x->scenario, cmd);
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
    if (w->guide != NULL) {
        uint64_t fresh, mutants, refused;
        cli_guide_tally(w->guide, &fresh, &mutants, &refused);
        fprintf(text, "; profiles: %" PRIu64 " mutants of kept ones, %" PRIu64 " seeds' own (%" PRIu64
                " of them for a mutant the reader refused)", mutants, fresh + refused, refused);
    }
    if (w->nfailed == 0 && w->done > 0 && !o->guided) {
        /* n independent clean draws: the share of failing ones is below
         * ln(20) / n at 95% confidence ((1 - q)^n <= 1/20). Guided runs
         * are not independent draws, so no bound is said for them. */
        fprintf(text, "; at 95%% confidence fewer than %.3g%% of the runs drawn so would fail (ln 20 / %" PRIu64 ")",
                100.0 * 2.995732 / (double)w->done, w->done);
    }
    fputc('\n', text);
    if (!o->json) return;
    printf("{\"tally\":true,\"passed\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"died\":%" PRIu64 ",\"runs\":%" PRIu64
           ",\"unrun\":%" PRIu64 ",\"listed\":%" PRIu64 ",\"seeds\":%" PRIu64 ",\"files\":%u,\"seconds\":%.3f"
           ",\"runs_per_s\":%.1f,\"jobs\":%" PRIu64 ",\"range\":\"%" PRIu64 "..%" PRIu64 "\",\"shard\":\"%" PRIu64 "/%" PRIu64
           "\",\"profiles\":\"%s\",\"target\":%" PRIu64 ",\"bug\":\"%s\",\"pct\":\"%s\",\"paths\":[", w->passed, w->nfailed,
           w->died, w->done, unrun, w->kept, w->seeds, w->nfiles, wall, rate, o->jobs, o->seed_a, o->seed_b, o->shard_i,
           o->shard_n, profile_name(o), o->target,
           o->bug ? pipe_bug_name(o->bug) : "none", w->pct_text);
    for (uint32_t i = 0; i < w->nfiles; i++) {   /* the campaign's files: shards of one campaign name the same */
        if (i > 0) putchar(',');
        cli_json_string(stdout, w->files[i].path);
    }
    printf("]}\n");
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
        if (!cli_apply_pct(prog, &w->files[i], &o->pct)) return false;
        w->files[i].profile = o->profile;
    }
    if (!cli_out_open(prog, "--coverage", o->coverage_path, &w->cov)) return false;
    for (uint32_t i = 0; i < w->nfiles; i++) w->suites[i] = w->files[i].path;
    snprintf(w->seeds_text, sizeof w->seeds_text, "%" PRIu64 "..%" PRIu64, o->seed_a, o->seed_b);
    snprintf(w->shard_text, sizeof w->shard_text, "%" PRIu64 "/%" PRIu64, o->shard_i, o->shard_n);
    snprintf(w->jobs_text, sizeof w->jobs_text, "%" PRIu64, o->jobs);
    cli_pct_value(&o->pct, w->pct_text, sizeof w->pct_text);
    const char *props[12] = { "seeds", w->seeds_text, "shard", w->shard_text, "faults",
                              profile_name(o), "bug", pipe_bug_name(o->bug),
                              "pct", w->pct_text, "jobs", w->jobs_text };
    memcpy(w->props, props, sizeof props);
    if (!cli_junit_open(prog, o->junit_path, w->nfiles, w->suites, w->props, 6, &w->junit)) {
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

/* --coverage: the points that some but fewer than --target runs reached
 * (rare points, whose code the campaign tested little), rarest first. */
static void rare_report(const swarm_ctx *w, FILE *out) {
    uint32_t order[PIPE_REACH_COUNT], n = 0;
    for (uint32_t p = 0; p < PIPE_REACH_COUNT; p++) {
        if (w->runs_reaching[p] >= w->opt->target || w->runs_reaching[p] == 0) continue;   /* the line before names those never reached */
        uint32_t j = n++;
        for (; j > 0 && w->runs_reaching[order[j - 1]] > w->runs_reaching[p]; j--) order[j] = order[j - 1];
        order[j] = p;
    }
    fprintf(out, "coverage: %u points reached by fewer than %" PRIu64 " runs (--target)%s", n, w->opt->target,
            n == 0 ? ", none but those never reached" : "");
    for (uint32_t i = 0; i < n; i++) {
        fprintf(out, "%s%s %" PRIu64, i ? ", " : ": ", pipe_reach_info_of((pipe_reach)order[i])->name,
                w->runs_reaching[order[i]]);
    }
    fputc('\n', out);
}

/* --faults guided: the runs in batches, each batch's profiles made from
 * what the runs before it reached, learnt from in run order after it. */
static bool run_guided(const char *prog, swarm_ctx *w) {
    uint64_t total = w->seeds * w->nfiles;
    w->guide = cli_guide_new(w->files, w->nfiles, w->opt->target);
    w->batch = malloc(SWARM_BATCH * sizeof *w->batch);
    w->batch_settings = malloc(SWARM_BATCH * sizeof *w->batch_settings);
    w->batch_result = malloc(SWARM_BATCH * sizeof *w->batch_result);
    bool ran = w->guide != NULL && w->batch != NULL && w->batch_settings != NULL && w->batch_result != NULL;
    if (!ran) fprintf(stderr, "%s: out of memory for the guided campaign\n", prog);
    for (w->next = 0; ran && w->next < total;) {
        w->batch_first = w->next;
        w->batch_end = total - w->next < SWARM_BATCH ? total : w->next + SWARM_BATCH;
        for (uint64_t t = w->batch_first; t < w->batch_end; t++) {
            uint64_t i = t - w->batch_first;
            cli_guide_profile(w->guide, (uint32_t)(t % w->nfiles), task_seed(w, t), &w->batch[i], &w->batch_settings[i]);
            memset(&w->batch_result[i], 0, sizeof w->batch_result[i]);
            w->batch_result[i].rc = -1;           /* not run: a pool that stopped early leaves some so */
        }
        ran = cli_pool(prog, w->opt->jobs, w, next_task, work, done);
        for (uint64_t t = w->batch_first; t < w->batch_end; t++) {
            uint64_t i = t - w->batch_first;
            if (w->batch_result[i].rc < 0) continue;
            take(w, t, &w->batch_result[i]);
            cli_guide_learn(w->guide, (uint32_t)(t % w->nfiles), &w->batch[i], w->batch_settings[i], w->batch_result[i].reach);
        }
    }
    return ran;
}

static void guided_free(swarm_ctx *w) {
    cli_guide_free(w->guide);
    free(w->batch);
    free(w->batch_settings);
    free(w->batch_result);
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
    w.batch_end = w.seeds * w.nfiles;
    w.t0 = w.shown = cli_now_s();
    bool ran = o.guided ? run_guided(prog, &w) : cli_pool(prog, o.jobs, &w, next_task, work, done);
    double wall = cli_now_s() - w.t0;
    if (w.tty && !o.quiet) fputs("\r\033[K", stderr);   /* the tally says it all */
    print_fails(&w);
    print_tally(&w, wall, ran);
    if (o.coverage_path != NULL) {
        cli_cov_report(o.json ? stderr : stdout, w.reach);
        rare_report(&w, o.json ? stderr : stdout);
        cli_cov_write(w.cov.f, w.reach);          /* a failed write shows at the commit */
    }
    bool written = cli_junit_commit(prog, w.junit, wall);
    written = cli_out_commit(prog, "--coverage", &w.cov) && written;
    free(w.files);
    free(w.fails);
    guided_free(&w);
    if (!cli_stdout_ok(prog) || !written) return CLI_USAGE;
    return ran && w.nfailed == 0 ? CLI_OK : CLI_FAIL;   /* runs left unstarted (fork failed) are no pass */
}
