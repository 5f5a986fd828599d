/* cli/bugs.c: `absim bugs`: the checkers' power, measured. Every
 * deliberate bug of the registry (model/bugs.c) runs over the swarm
 * scenarios with random fault profiles, seed 1, 2, ... until a run fails
 * (a violation, a failed expectation, or an assertion); then the correct
 * protocol runs over the seeds the bugs ran and must pass every one. Runs are
 * child processes, --jobs at a time; for each bug the seeds after its
 * first catch are not run. */
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#define BUGS_FILES_MAX 64u

typedef struct bug_tally {
    uint64_t caught_seed;             /* 0: not caught */
    uint32_t caught_file;
    char     by[32];                  /* "I2 I1", "expect", "crash": what failed the catching run */
    bool     must;                    /* the invariant the registry names was among them */
    char     what[200];
    double   seconds;
    uint64_t runs, failed;
} bug_tally;

typedef struct bugs_ctx {
    scn      *files;
    uint32_t  nfiles;
    uint64_t  seeds;
    uint32_t  nbugs;                  /* bugs run (then the correct protocol) */
    pipe_bug  bug[PIPE_BUG_COUNT];
    bug_tally tally[PIPE_BUG_COUNT + 1];
    uint64_t  next;                   /* the next task id */
    uint8_t   profile;                /* --faults: SCN_PROFILE_* */
    cli_pct   pct;                    /* --pct */
} bugs_ctx;

/* The campaign's options as a command says them: " --faults buggify --pct 1". */
static const char *campaign_words(const bugs_ctx *b, char *buf, size_t n) {
    char pct[48];
    snprintf(buf, n, "%s%s", cli_faults_words(true, b->profile), cli_pct_words(&b->pct, pct, sizeof pct));
    return buf;
}

/* Task id: ((bug index * seeds) + seed - 1) * files + file; the last bug
 * index is the correct protocol. */
static void decode(const bugs_ctx *b, uint64_t task, uint32_t *bi, uint64_t *seed, uint32_t *file) {
    *file = (uint32_t)(task % b->nfiles);
    *seed = (task / b->nfiles) % b->seeds + 1;
    *bi = (uint32_t)(task / b->nfiles / b->seeds);
}

/* The seeds the correct protocol must pass: those the bugs ran, up to the
 * latest first catch (every seed when a bug is not caught yet). A bug's
 * catch only moves to an earlier seed as runs end, so the bound only
 * falls: a few seeds past the final one may run, never too few. */
static uint64_t baseline_seeds(const bugs_ctx *b) {
    uint64_t most = 0;
    for (uint32_t i = 0; i < b->nbugs; i++) {
        if (b->tally[i].caught_seed == 0) return b->seeds;
        if (b->tally[i].caught_seed > most) most = b->tally[i].caught_seed;
    }
    return most;
}

static bool next_task(void *ctx, uint64_t *task) {
    bugs_ctx *b = ctx;
    uint64_t end = (uint64_t)(b->nbugs + 1) * b->seeds * b->nfiles;
    for (; b->next < end; b->next++) {
        uint32_t bi, file;
        uint64_t seed;
        decode(b, b->next, &bi, &seed, &file);
        const bug_tally *t = &b->tally[bi];
        if (bi < b->nbugs && t->caught_seed != 0 && seed > t->caught_seed) continue;   /* caught already */
        if (bi == b->nbugs && seed > baseline_seeds(b)) continue;   /* no bug ran it */
        *task = b->next++;
        return true;
    }
    return false;
}

static void work(void *ctx, uint64_t task, cli_task_result *out) {
    bugs_ctx *b = ctx;
    uint32_t bi, file;
    uint64_t seed;
    decode(b, task, &bi, &seed, &file);
    cli_task_run(&b->files[file], seed, bi < b->nbugs ? b->bug[bi] : PIPE_BUG_NONE, true, out);
}

static void done(void *ctx, uint64_t task, const cli_task_result *r) {
    bugs_ctx *b = ctx;
    uint32_t bi, file;
    uint64_t seed;
    decode(b, task, &bi, &seed, &file);
    bug_tally *t = &b->tally[bi];
    t->seconds += r->seconds;
    t->runs++;
    if (r->rc == CLI_OK) return;
    t->failed++;
    bool earlier = t->caught_seed == 0 || seed < t->caught_seed || (seed == t->caught_seed && file < t->caught_file);
    if (!earlier) return;
    t->caught_seed = seed;
    t->caught_file = file;
    snprintf(t->by, sizeof t->by, "%s", r->died ? "crash" : r->inv != 0 ? check_inv_name(r->inv)
                                      : r->failed_line != 0 ? "expect" : "other");
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT; i++) {   /* the others it violated, after the first */
        if (!(r->violated >> i & 1) || i == (uint32_t)r->inv) continue;
        size_t used = strlen(t->by);
        snprintf(t->by + used, sizeof t->by - used, " %s", check_inv_name((check_inv)i));
    }
    const pipe_bug_info *info = bi < b->nbugs ? pipe_bug_info_of(b->bug[bi]) : NULL;
    t->must = info != NULL && (strstr(t->by, info->catches) != NULL || (info->also != NULL && strstr(t->by, info->also) != NULL));
    snprintf(t->what, sizeof t->what, "%.199s", r->failures.count > 0 ? r->failures.text[0] : "");
}

static void bugs_usage(FILE *f) {
    fprintf(f, "usage: absim bugs [--seeds K] [--jobs J] [--bug NAME] [--faults random|buggify] [--pct D[/K][~T]]\n"
               "                  [--json] [SCENARIO...]\n"
               "       absim bugs --list   # name, invariant that must catch it, pinned scenario and seed, what it breaks\n"
               "\n"
               "Runs every deliberate bug (or only NAME) over the scenarios (default:\n"
               "scenarios/swarm/*.scn) with random fault profiles, seeds 1..K (default 60),\n"
               "until a run fails; then the correct protocol over the seeds the bugs ran\n"
               "(up to the latest first catch), which must pass every one. Prints per bug\n"
               "whether it was caught, the seed and scenario file of the first catch and\n"
               "its place among the runs (run = (seed - 1) x files + the file's place, the\n"
               "runs to the first catch), what caught it (an invariant, an expectation, an\n"
               "assertion) against the invariant the registry says must (or, for a bug of\n"
               "two halves, the one that catches the other), and the time its runs took.\n"
               "  --faults buggify  the seeds' two-level activation profiles instead (absim run --help)\n"
               "  --pct D[/K][~T]  every run orders simultaneous events by PCT (absim run --help)\n"
               "Exit 0 when every bug is caught and the correct protocol passes, else 1.\n");
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The runs to bug i's first catch, in the order the campaign lists its
 * runs (0: not caught). */
static uint64_t first_run(const bugs_ctx *b, uint32_t i) {
    const bug_tally *t = &b->tally[i];
    return t->caught_seed ? (t->caught_seed - 1) * b->nfiles + t->caught_file + 1 : 0;
}

/* The median and the worst of the caught bugs' runs to the first catch. */
static void run_figures(const bugs_ctx *b, uint64_t *median, uint64_t *worst) {
    uint64_t runs[PIPE_BUG_COUNT];
    uint32_t n = 0;
    for (uint32_t i = 0; i < b->nbugs; i++) {
        if (first_run(b, i) > 0) runs[n++] = first_run(b, i);
    }
    qsort(runs, n, sizeof runs[0], cmp_u64);
    *median = n ? runs[(n - 1) / 2] : 0;
    *worst = n ? runs[n - 1] : 0;
}

static void print_text(const bugs_ctx *b, double wall, uint64_t correct_fails, uint64_t median) {
    printf("%-26s %-7s %-7s %-6s %-6s %-16s %-8s %s\n", "bug", "must", "caught", "seed", "run", "by", "seconds", "file");
    uint32_t caught = 0;
    for (uint32_t i = 0; i < b->nbugs; i++) {
        const pipe_bug_info *info = pipe_bug_info_of(b->bug[i]);
        const bug_tally *t = &b->tally[i];
        caught += t->caught_seed != 0;
        printf("%-26s %-7s %-7s %-6" PRIu64 " %-6" PRIu64 " %-16s %-8.2f %s\n", info->name, info->catches,
               !t->caught_seed ? "NO" : t->must ? "yes" : "other", t->caught_seed, first_run(b, i),
               t->caught_seed ? t->by : "-", t->seconds,
               t->caught_seed ? b->files[t->caught_file].path : "-");
    }
    const bug_tally *c = &b->tally[b->nbugs];
    printf("correct protocol: %" PRIu64 " runs over seeds 1..%" PRIu64 ", %" PRIu64 " failed%s%s\n", c->runs, baseline_seeds(b),
           correct_fails, correct_fails ? ": " : "", correct_fails ? c->what : "");
    uint64_t run_median, run_worst;
    run_figures(b, &run_median, &run_worst);
    char how[96];
    printf("bugs: %u of %u caught with%s, median seed of the first catch %" PRIu64 "; runs to the first catch: median %" PRIu64
           ", worst %" PRIu64 "; %.1f s\n", caught, b->nbugs, campaign_words(b, how, sizeof how), median, run_median, run_worst,
           wall);
}

static void print_json(const bugs_ctx *b, double wall, uint64_t correct_fails, uint64_t median) {
    printf("{\"bugs\":[");
    uint32_t caught = 0;
    for (uint32_t i = 0; i < b->nbugs; i++) {
        const pipe_bug_info *info = pipe_bug_info_of(b->bug[i]);
        const bug_tally *t = &b->tally[i];
        caught += t->caught_seed != 0;
        printf("%s{\"name\":\"%s\",\"must\":\"%s\",\"must_violated\":%s,\"caught\":%s,\"seed\":%" PRIu64
               ",\"first_run\":%" PRIu64 ",\"by\":\"%s\",\"file\":\"%s\""
               ",\"runs\":%" PRIu64 ",\"seconds\":%.3f}", i ? "," : "", info->name, info->catches,
               t->must ? "true" : "false", t->caught_seed ? "true" : "false", t->caught_seed, first_run(b, i),
               t->caught_seed ? t->by : "",
               t->caught_seed ? b->files[t->caught_file].path : "", t->runs, t->seconds);
    }
    uint64_t run_median, run_worst;
    run_figures(b, &run_median, &run_worst);
    char pct[48];
    printf("],\"profiles\":\"%s\",\"pct\":\"%s\"", b->profile == SCN_PROFILE_BUGGIFY ? "buggify" : "random",
           cli_pct_value(&b->pct, pct, sizeof pct));
    printf(",\"caught\":%u,\"total\":%u,\"median_seed\":%" PRIu64 ",\"median_first_run\":%" PRIu64
           ",\"worst_first_run\":%" PRIu64 ",\"correct_runs\":%" PRIu64 ",\"correct_failed\":%" PRIu64 ",\"seconds\":%.2f}\n",
           caught, b->nbugs, median, run_median, run_worst, b->tally[b->nbugs].runs, correct_fails, wall);
}

/* The scenario files: the operands, or every .scn file of scenarios/swarm. */
static bool load_files(const char *prog, int argc, char **argv, const cli_pct *pct, bugs_ctx *b) {
    glob_t g = { 0 };
    char **names = argv + optind;
    size_t n = (size_t)(argc - optind);
    if (n == 0) {
        if (glob("scenarios/swarm/*.scn", 0, NULL, &g) != 0) {
            fprintf(stderr, "%s: no scenario files given and none in scenarios/swarm/\n", prog);
            return false;
        }
        names = g.gl_pathv;
        n = g.gl_pathc;
    }
    bool ok = n <= BUGS_FILES_MAX;
    if (!ok) fprintf(stderr, "%s: at most %u scenario files\n", prog, BUGS_FILES_MAX);
    b->files = ok ? calloc(n, sizeof *b->files) : NULL;
    char err[SCN_ERR_BYTES];
    for (size_t i = 0; ok && i < n; i++) {
        ok = b->files != NULL && scn_load(&b->files[i], names[i], err, sizeof err);
        if (!ok) fprintf(stderr, "%s\n", b->files == NULL ? "out of memory" : err);
        ok = ok && cli_apply_pct(prog, &b->files[i], pct);
    }
    b->nfiles = (uint32_t)n;
    if (g.gl_pathv != NULL) globfree(&g);
    return ok;
}

int cli_bugs(int argc, char **argv) {
    static const struct option opts[] = {
        { "seeds", required_argument, NULL, 's' }, { "jobs", required_argument, NULL, 'j' },
        { "bug", required_argument, NULL, 'b' },   { "json", no_argument, NULL, 'J' },
        { "list", no_argument, NULL, 'l' },         { "help", no_argument, NULL, 'h' },
        { "pct", required_argument, NULL, 'P' },    { "faults", required_argument, NULL, 'f' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim bugs";
    cli_pct pct = { 0 };
    bool drawn = true;
    uint8_t profile = SCN_PROFILE_RANDOM;
    uint64_t seeds = 60, jobs = 0;
    pipe_bug only = PIPE_BUG_NONE;
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': if (!cli_parse_u64(prog, "--seeds", optarg, 1, 100000, &seeds)) return CLI_USAGE; break;
        case 'j': if (!cli_parse_u64(prog, "--jobs", optarg, 1, 256, &jobs)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &only)) return CLI_USAGE; break;
        case 'J': json = true; break;
        case 'P': if (!cli_parse_pct(prog, optarg, &pct)) return CLI_USAGE; break;
        case 'f': if (!cli_parse_faults(prog, optarg, &drawn, &profile)) return CLI_USAGE; break;
        case 'l':                                 /* the registry, one bug a line */
            for (pipe_bug x = PIPE_BUG_NO_ALIGNMENT; x < PIPE_BUG_COUNT; x++) {
                const pipe_bug_info *i = pipe_bug_info_of(x);
                printf("%s %s %s %" PRIu64 "\t%s; %s\n", i->name, i->catches, i->scenario, i->seed, i->breaks, i->mechanism);
            }
            return CLI_OK;
        case 'h': bugs_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    bugs_ctx *b = calloc(1, sizeof *b);
    if (b == NULL || !load_files(prog, argc, argv, &pct, b)) {
        if (b != NULL) free(b->files);
        free(b);
        return CLI_USAGE;
    }
    b->seeds = seeds;
    b->profile = profile;
    b->pct = pct;
    for (uint32_t i = 0; i < b->nfiles; i++) b->files[i].profile = profile;
    for (pipe_bug x = PIPE_BUG_NO_ALIGNMENT; x < PIPE_BUG_COUNT; x++) {
        if (only == PIPE_BUG_NONE || only == x) b->bug[b->nbugs++] = x;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool ran = cli_pool(prog, jobs ? jobs : cli_cores(), b, next_task, work, done);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    uint64_t firsts[PIPE_BUG_COUNT], caught = 0;
    uint32_t must = 0;
    for (uint32_t i = 0; i < b->nbugs; i++) {
        if (b->tally[i].caught_seed != 0) firsts[caught++] = b->tally[i].caught_seed;
        must += b->tally[i].must;
    }
    qsort(firsts, caught, sizeof firsts[0], cmp_u64);
    uint64_t median = caught ? firsts[(caught - 1) / 2] : 0;
    uint64_t correct_fails = b->tally[b->nbugs].failed;   /* the correct protocol must pass every run */
    if (json) print_json(b, wall, correct_fails, median); else print_text(b, wall, correct_fails, median);
    int rc = ran && caught == b->nbugs && must == b->nbugs && correct_fails == 0 ? CLI_OK : CLI_FAIL;
    free(b->files);
    free(b);
    return rc;
}
