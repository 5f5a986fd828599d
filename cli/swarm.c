/* cli/swarm.c: `absim swarm`: one scenario (or several) over a range of
 * seeds, each run in a child process of its own (runs stay single-threaded:
 * parallelism only across seeds), up to --jobs at once.
 *
 * Output: a progress line on a terminal (stderr), one JSON line per failing
 * seed on stdout (in seed order, after the runs), a closing tally, and with
 * --junit a JUnit XML report. --shard I/N keeps the seeds with seed % N == I,
 * so N machines (GNU parallel --sshlogin, a Slurm job array) split a
 * campaign without talking to each other. A child that dies (an assertion,
 * a signal) is a failing seed too. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define SWARM_FILES_MAX 64u
#define SWARM_SEEDS_MAX (1ull << 24)
#define SWARM_FAILS_KEPT 1000u

typedef struct result {           /* sent by a child through its pipeline */
    uint64_t    seed;
    uint64_t    trace_hash;
    int32_t     rc;
    pipe_status status;
    char        failures[1024];
} result;

typedef struct slot {
    pid_t    pid;
    int      fd;
    uint32_t file;
    uint64_t seed;
} slot;

typedef struct failed {
    uint32_t file;
    result   r;
} failed;

static void swarm_usage(FILE *f) {
    fprintf(f, "usage: absim swarm FILE... --seeds A..B [--jobs J] [--shard I/N] [--faults random]\n"
               "                   [--bug NAME] [--junit FILE]\n"
               "\n"
               "Runs each scenario with every seed from A to B (inclusive), each run in a\n"
               "process of its own, J at a time (default: the number of cores), and checks\n"
               "the scenario's expect lines. With --faults random every seed adds a fault\n"
               "profile of its own (which kinds are on, how many, when, how long).\n"
               "Prints a JSON line per failing seed (replay it with absim replay FILE\n"
               "--seed S --hash H) and a closing tally; exit 1 when a seed failed.\n"
               "  --shard I/N   only seeds with seed %% N == I (spread a campaign over N machines)\n"
               "  --junit FILE  also write a JUnit XML report\n"
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

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s < 32) fprintf(f, "\\u%04x", *s); else fputc(*s, f);
    }
    fputc('"', f);
}

static void xml_string(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void child(scn *s, uint64_t seed, bool random_faults, int fd) {
    result r;
    memset(&r, 0, sizeof r);
    r.seed = seed;
    s->cfg.seed = seed;
    cli_outcome o;
    r.rc = cli_run_scenario(s, random_faults, NULL, NULL, NULL, NULL, &o);
    r.trace_hash = o.trace_hash;
    r.status = o.status;
    snprintf(r.failures, sizeof r.failures, "%s", o.failures);
    ssize_t w = write(fd, &r, sizeof r);
    _exit(w == (ssize_t)sizeof r ? 0 : 3);
}

/* Collect one finished child: its result, or the way it died. */
static void reap(slot *sl, result *r) {
    memset(r, 0, sizeof *r);
    r->seed = sl->seed;
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t n = read(sl->fd, (char *)r + got, sizeof *r - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(sl->fd);
    int status = 0;
    while (waitpid(sl->pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof *r) {
        memset(r, 0, sizeof *r);
        r->seed = sl->seed;
        r->rc = CLI_FAIL;
        if (WIFSIGNALED(status)) {
            snprintf(r->failures, sizeof r->failures, "the run died of signal %d (an assertion aborts: replay it)",
                     WTERMSIG(status));
        } else {
            snprintf(r->failures, sizeof r->failures, "the run exited with status %d without a result",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    }
    sl->pid = 0;
}

int cli_swarm(int argc, char **argv) {
    static const struct option opts[] = {
        { "seeds", required_argument, NULL, 's' },
        { "jobs", required_argument, NULL, 'j' },
        { "shard", required_argument, NULL, 'S' },
        { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },
        { "junit", required_argument, NULL, 'J' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim swarm";
    uint64_t seed_a = 0, seed_b = 0, jobs = 0, shard_i = 0, shard_n = 1;
    bool seeds_given = false, random_faults = false;
    pipe_bug bug = PIPE_BUG_NONE;
    const char *junit_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!parse_range(prog, optarg, &seed_a, &seed_b)) return CLI_USAGE;
            seeds_given = true;
            break;
        case 'j':
            if (!cli_parse_u64(prog, "--jobs", optarg, 1, 256, &jobs)) return CLI_USAGE;
            break;
        case 'S': {
            const char *slash = strchr(optarg, '/');
            char first[24];
            if (slash == NULL || slash == optarg || (size_t)(slash - optarg) >= sizeof first) {
                fprintf(stderr, "%s: --shard '%s': expected I/N, as 0/4\n", prog, optarg);
                return CLI_USAGE;
            }
            memcpy(first, optarg, (size_t)(slash - optarg));
            first[slash - optarg] = '\0';
            if (!cli_parse_u64(prog, "--shard", slash + 1, 1, 1u << 20, &shard_n)) return CLI_USAGE;
            if (!cli_parse_u64(prog, "--shard", first, 0, shard_n - 1, &shard_i)) return CLI_USAGE;
            break;
        }
        case 'f':
            if (!cli_parse_faults(prog, optarg, &random_faults)) return CLI_USAGE;
            break;
        case 'b':
            if (!cli_parse_bug(prog, optarg, &bug)) return CLI_USAGE;
            break;
        case 'J': junit_path = optarg; break;
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
    if (jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        jobs = n > 0 ? (uint64_t)n : 1;
    }
    scn *files = calloc(nfiles, sizeof *files);
    slot *slots = calloc(jobs, sizeof *slots);
    failed *fails = calloc(SWARM_FAILS_KEPT, sizeof *fails);
    if (files == NULL || slots == NULL || fails == NULL) {
        free(files);
        free(slots);
        free(fails);
        return CLI_FAIL;
    }
    char err[SCN_ERR_BYTES];
    for (uint32_t i = 0; i < nfiles; i++) {          /* every file is valid before any run */
        if (!scn_load(&files[i], argv[optind + i], err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            free(files);
            free(slots);
            free(fails);
            return CLI_USAGE;
        }
        files[i].cfg.bug = bug;
    }
    FILE *junit = NULL;
    if (junit_path != NULL && (junit = fopen(junit_path, "w")) == NULL) {
        fprintf(stderr, "%s: --junit %s: cannot open for writing\n", prog, junit_path);
        free(files);
        free(slots);
        free(fails);
        return CLI_USAGE;
    }
    if (junit != NULL) fprintf(junit, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"absim swarm\">\n");

    bool tty = isatty(2);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t total = 0, passed = 0, nfailed = 0, kept = 0;
    for (uint64_t x = seed_a;; x++) {
        total += x % shard_n == shard_i;
        if (x == seed_b) break;
    }
    uint64_t done = 0;
    uint32_t file = 0;
    uint64_t seed = seed_a;
    bool exhausted = false;
    for (;;) {
        /* Fill free slots with the next (file, seed). */
        for (uint64_t k = 0; k < jobs && !exhausted; k++) {
            if (slots[k].pid != 0) continue;
            while (seed % shard_n != shard_i) {
                if (seed == seed_b) break;
                seed++;
            }
            if (seed % shard_n != shard_i) {
                exhausted = true;
                break;
            }
            int fds[2];
            if (pipe(fds) != 0) {
                fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
                exhausted = true;
                break;
            }
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid == 0) {
                close(fds[0]);
                child(&files[file], seed, random_faults, fds[1]);
            }
            close(fds[1]);
            if (pid < 0) {
                close(fds[0]);
                fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
                exhausted = true;
                break;
            }
            slots[k] = (slot){ .pid = pid, .fd = fds[0], .file = file, .seed = seed };
            if (++file == nfiles) {                  /* every file for this seed, then the next seed */
                file = 0;
                if (seed == seed_b) exhausted = true; else seed++;
            }
        }
        /* Wait until a child's pipe is readable (its result, or EOF when it
         * died), then collect that child. */
        struct pollfd pfd[256];
        uint64_t owner[256], npfd = 0;
        for (uint64_t k = 0; k < jobs; k++) {
            if (slots[k].pid == 0) continue;
            pfd[npfd] = (struct pollfd){ .fd = slots[k].fd, .events = POLLIN };
            owner[npfd++] = k;
        }
        if (npfd == 0) break;
        if (poll(pfd, (nfds_t)npfd, -1) < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "%s: poll: %s\n", prog, strerror(errno));
            break;
        }
        pid_t pid = 0;
        for (uint64_t i = 0; i < npfd && pid == 0; i++) {
            if (pfd[i].revents != 0) pid = slots[owner[i]].pid;
        }
        for (uint64_t k = 0; k < jobs; k++) {
            if (slots[k].pid != pid) continue;
            result r;
            uint32_t f = slots[k].file;
            reap(&slots[k], &r);
            done++;
            bool ok = r.rc == CLI_OK;
            if (ok) {
                passed++;
            } else {
                nfailed++;
                if (kept < SWARM_FAILS_KEPT) fails[kept++] = (failed){ .file = f, .r = r };
            }
            if (junit != NULL) {
                fprintf(junit, "<testcase classname=\"");
                xml_string(junit, files[f].path);
                fprintf(junit, "\" name=\"seed %" PRIu64 "\">", r.seed);
                if (!ok) {
                    fprintf(junit, "<failure message=\"");
                    xml_string(junit, r.failures);
                    fprintf(junit, "\">replay: absim replay %s --seed %" PRIu64 " --hash %016" PRIx64 "%s%s%s</failure>",
                            files[f].path, r.seed, r.trace_hash, random_faults ? " --faults random" : "",
                            bug ? " --bug " : "", bug ? pipe_bug_name(bug) : "");
                }
                fprintf(junit, "</testcase>\n");
            }
            if (tty) fprintf(stderr, "\rswarm: %" PRIu64 "/%" PRIu64 " runs, %" PRIu64 " failed", done,
                             total * nfiles, nfailed);
            break;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (tty) fputc('\n', stderr);
    /* Failing seeds in (seed, file) order, whatever order the children ended in. */
    for (uint64_t i = 1; i < kept; i++) {
        failed x = fails[i];
        uint64_t j = i;
        while (j > 0 && (fails[j - 1].r.seed > x.r.seed || (fails[j - 1].r.seed == x.r.seed && fails[j - 1].file > x.file))) {
            fails[j] = fails[j - 1];
            j--;
        }
        fails[j] = x;
    }
    for (uint64_t i = 0; i < kept; i++) {
        const failed *x = &fails[i];
        printf("{\"file\":");
        json_string(stdout, files[x->file].path);
        printf(",\"seed\":%" PRIu64 ",\"trace_hash\":\"%016" PRIx64 "\",\"status\":\"%s\",\"faults\":\"%s\",\"failures\":",
               x->r.seed, x->r.trace_hash, x->r.status ? pipe_status_name(x->r.status) : "none",
               random_faults ? "random" : "scripted");
        json_string(stdout, x->r.failures);
        printf("}\n");
    }
    printf("swarm: %" PRIu64 " passed, %" PRIu64 " failed (%" PRIu64 " runs in %.2f s, %.1f runs/s with %" PRIu64 " jobs)\n",
           passed, nfailed, done, wall, wall > 0 ? (double)done / wall : 0.0, jobs);
    if (junit != NULL) {
        fprintf(junit, "</testsuite>\n</testsuites>\n");
        fclose(junit);
    }
    free(files);
    free(slots);
    free(fails);
    return nfailed == 0 ? CLI_OK : CLI_FAIL;
}
