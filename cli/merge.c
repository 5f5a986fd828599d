/* cli/merge.c: `absim merge FILE...`: the shards of one campaign as one
 * report.
 *
 * Each input is what a shard printed with --json (`absim swarm ... --shard
 * I/N --json`, `absim explore ... --shard I/N --json`: a JSON line per
 * failing run, then the tally), or a --coverage file (one object, a count
 * per reach point). The run reports must be the shards of one campaign:
 * one command, the same files, seeds, profiles, bug (and for explore the
 * same space), the same N, each shard once. The failing runs come out in
 * the campaign's order (swarm: seed, then file; explore: placement), then
 * a tally that sums the shards' and says whether every shard of 0..N-1
 * was there and ran all its runs; the coverage files are summed into
 * --coverage FILE, and swarm shards' JUnit reports (an input whose first
 * byte is '<') are merged into --junit FILE (cli/jmerge.c). Exit 0 when the campaign is complete and nothing
 * failed, 1 otherwise, 2 for input that is not such a report
 * (FILE:LINE:COL: what is wrong). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MERGE_INPUTS_MAX 4096u
#define MERGE_LINE_BYTES (1u << 20)   /* a failing run's line: 16 failures of 400 bytes and its profile fit */

typedef enum merge_kind { MERGE_NONE = 0, MERGE_SWARM, MERGE_EXPLORE } merge_kind;

typedef struct merge_fail {
    uint64_t    order_a, order_b;     /* swarm: seed, file index; explore: placement + 1 (0: the file as it is) */
    json_t     *run;
    const char *path;                 /* where it was read, for messages */
    uint64_t    line;
} merge_fail;

typedef struct merge_ctx {
    const char *prog;
    merge_kind  kind;
    json_t     *first_tally;          /* the campaign's identity, as the first shard says it */
    uint64_t    shard_n;
    uint8_t    *seen;                 /* [shard_n]: shard I's report was read */
    bool        all_ran;              /* every shard ran all its runs */
    uint64_t    passed, failed, died, runs, seeds, unrun;
    uint64_t    orders_beyond, orders_unknown;   /* explore --ties: summed over the shards (0 before a build had them) */
    merge_fail *fails;
    uint64_t    nfails, cap;
    uint64_t    reach[PIPE_REACH_COUNT];
    uint32_t    coverage_inputs;
    cli_jmerge *junit;                /* the JUnit inputs */
} merge_ctx;

static void merge_usage(FILE *f) {
    fprintf(f, "usage: absim merge FILE... [--coverage OUT] [--junit OUT]\n"
               "\n"
               "Merges the shards of one campaign into one report. Each FILE is what a\n"
               "shard printed with --json (absim swarm ... --shard I/N --json, or absim\n"
               "explore ... --shard I/N --json), a --coverage file of a shard, or a\n"
               "swarm shard's --junit report. Prints\n"
               "the failing runs of all shards in the campaign's order, as JSON lines, then\n"
               "the merged tally (a JSON object, and a line of text on stderr) that says\n"
               "whether every shard 0..N-1 was there and ran all its runs; exit 0 when\n"
               "complete with no failure, 1 otherwise, 2 for input that is not a report.\n"
               "  --coverage OUT  the sum of the coverage files, as one JSON object\n"
               "  --junit OUT     the JUnit reports as one: a testsuite per scenario file\n"
               "                  with every shard's testcases in seed order (tests/junit.xsd)\n");
}

static bool bad(const merge_ctx *m, const char *path, uint64_t line, uint64_t col, const char *what) {
    fprintf(stderr, "%s: %s:%" PRIu64 ":%" PRIu64 ": %s\n", m->prog, path, line, col, what);
    return false;
}

static uint64_t num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    SIM_ASSERT(json_is_integer(v) && json_integer_value(v) >= 0);   /* has_counts() checked it */
    return (uint64_t)json_integer_value(v);
}

/* A count a tally may lack (a build before it): 0 then. */
static uint64_t opt_num(const json_t *o, const char *key) {
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (uint64_t)json_integer_value(v) : 0;
}

/* Every count a tally of kind k must have, each a whole number >= 0;
 * false with the first one missing in *key. */
static bool has_counts(const json_t *tally, merge_kind k, const char **key) {
    static const char *const both[] = { "passed", "failed", "died", "runs", NULL };
    static const char *const swarm[] = { "unrun", "seeds", "files", NULL };
    static const char *const explore[] = { "placements", "shard_runs", "points", "faults", "ties", NULL };
    const char *const *lists[2] = { both, k == MERGE_SWARM ? swarm : explore };
    for (int l = 0; l < 2; l++) {
        for (const char *const *x = lists[l]; *x != NULL; x++) {
            const json_t *v = json_object_get(tally, *x);
            if (!json_is_integer(v) || json_integer_value(v) < 0) {
                *key = *x;
                return false;
            }
        }
    }
    return true;
}

/* A coverage file: every key a reach point's name, every value a count. */
static bool is_coverage(const json_t *o) {
    return json_is_object(o) && json_object_get(o, pipe_reach_info_of((pipe_reach)0)->name) != NULL;
}

static bool add_coverage(merge_ctx *m, const char *path, const json_t *o) {
    for (uint32_t r = 0; r < PIPE_REACH_COUNT; r++) {
        const json_t *v = json_object_get(o, pipe_reach_info_of((pipe_reach)r)->name);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            char what[160];
            snprintf(what, sizeof what, "a coverage file without a count for %s", pipe_reach_info_of((pipe_reach)r)->name);
            return bad(m, path, 1, 1, what);
        }
        m->reach[r] += (uint64_t)json_integer_value(v);
    }
    m->coverage_inputs++;
    return true;
}

static merge_kind kind_of(const json_t *tally) {
    if (json_object_get(tally, "placements") != NULL) return MERGE_EXPLORE;
    if (json_object_get(tally, "range") != NULL) return MERGE_SWARM;
    return MERGE_NONE;
}

/* Tally a's and b's `key` are the same; a "pct" neither has (a build
 * before --pct) is "none", a "then" (before --then) null, a "tie_depth"
 * (before --tie-depth) missing in both the same. */
static bool same_value(const json_t *a, const json_t *b, const char *key) {
    const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);
    if (strcmp(key, "tie_depth") == 0 && x == NULL && y == NULL) return true;
    if (strcmp(key, "then") == 0) return (x == NULL || json_is_null(x)) ? (y == NULL || json_is_null(y)) : json_equal(x, y);
    if (strcmp(key, "pct") != 0) return json_equal(x, y);
    const char *p = x != NULL ? json_string_value(x) : "none", *q = y != NULL ? json_string_value(y) : "none";
    return p != NULL && q != NULL && strcmp(p, q) == 0;
}

/* The keys that name a campaign: every shard of one must agree on them. */
static bool same_campaign(const json_t *a, const json_t *b, merge_kind k, const char **key) {
    static const char *const swarm[] = { "range", "profiles", "target", "bug", "pct", "paths", "files", NULL };
    static const char *const explore[] = { "file", "seed", "bug", "points", "faults", "placements", "ties", "depth",
                                           "pairs", "window_ns", "kinds", "then", "tie_depth", NULL };
    for (const char *const *x = k == MERGE_SWARM ? swarm : explore; *x != NULL; x++) {
        if (!same_value(a, b, *x)) {
            *key = *x;
            return false;
        }
    }
    return true;
}

static bool parse_shard_text(const json_t *tally, uint64_t *i, uint64_t *n) {
    const char *t = json_string_value(json_object_get(tally, "shard"));
    return t != NULL && sscanf(t, "%" SCNu64 "/%" SCNu64, i, n) == 2 && *n > 0 && *i < *n && *n <= (1u << 20);
}

static bool add_tally(merge_ctx *m, const char *path, uint64_t line, json_t *tally) {
    merge_kind k = kind_of(tally);
    uint64_t i, n;
    const char *key = NULL;
    if (k == MERGE_NONE || !parse_shard_text(tally, &i, &n)) {
        return bad(m, path, line, 1, "a tally of neither absim swarm --json nor absim explore --json (or one too old to name its shard)");
    }
    if (!has_counts(tally, k, &key)) {
        char what[120];
        snprintf(what, sizeof what, "a tally without its \"%s\" (a whole number, 0 or more)", key);
        return bad(m, path, line, 1, what);
    }
    if (m->kind == MERGE_NONE) {
        m->kind = k;
        m->first_tally = json_incref(tally);
        m->shard_n = n;
        m->seen = calloc(n, 1);
        if (m->seen == NULL) return bad(m, path, line, 1, "out of memory");
    } else if (k != m->kind) {
        return bad(m, path, line, 1, "a tally of another command than the first input's");
    } else if (n != m->shard_n) {
        return bad(m, path, line, 1, "a shard of another split (its N differs from the first input's)");
    } else if (!same_campaign(m->first_tally, tally, k, &key)) {
        char what[120];
        snprintf(what, sizeof what, "a shard of another campaign (its \"%s\" differs from the first input's)", key);
        return bad(m, path, line, 1, what);
    }
    if (m->seen[i]) return bad(m, path, line, 1, "the same shard twice");
    m->seen[i] = 1;
    m->passed += num(tally, "passed");
    m->failed += num(tally, "failed");
    m->died += num(tally, "died");
    m->runs += num(tally, "runs");
    if (k == MERGE_SWARM) {
        m->seeds += num(tally, "seeds");
        m->unrun += num(tally, "unrun");
    }
    m->orders_beyond += opt_num(tally, "orders_beyond");
    m->orders_unknown += opt_num(tally, "orders_unknown");
    bool ran = k == MERGE_SWARM ? num(tally, "unrun") == 0 : num(tally, "runs") == num(tally, "shard_runs");
    m->all_ran = m->all_ran && ran;
    return true;
}

/* A failing run, with its place in the campaign's order. */
static bool add_fail(merge_ctx *m, const char *path, uint64_t line, json_t *run) {
    if (m->nfails == m->cap) {
        uint64_t cap = m->cap ? 2 * m->cap : 64;
        merge_fail *f = realloc(m->fails, cap * sizeof *f);
        if (f == NULL) return bad(m, path, line, 1, "out of memory");
        m->fails = f;
        m->cap = cap;
    }
    merge_fail *x = &m->fails[m->nfails];
    const json_t *p = json_object_get(run, "placement");
    if (p != NULL && json_object_get(run, "fault") != NULL) {    /* explore's */
        if (!json_is_null(p) && (!json_is_integer(p) || json_integer_value(p) < 0)) {
            return bad(m, path, line, 1, "a failing run whose \"placement\" is neither null nor a whole number");
        }
        x->order_a = json_is_integer(p) ? (uint64_t)json_integer_value(p) + 1 : 0;
        x->order_b = 0;
    } else if (json_is_integer(json_object_get(run, "seed")) && json_is_string(json_object_get(run, "file"))) {
        x->order_a = num(run, "seed");
        x->order_b = 0;                                          /* the file's index, once the tally names the files */
    } else {
        return bad(m, path, line, 1, "a line that is neither a failing run nor a tally");
    }
    x->run = json_incref(run);
    x->path = path;
    x->line = line;
    m->nfails++;
    return true;
}

/* One input: JSON lines ending in a tally, one coverage object, or a
 * JUnit report (its first byte '<'). */
static bool read_input(merge_ctx *m, const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", m->prog, path, strerror(errno));
        return false;
    }
    cli_input_note(path);
    int first = fgetc(f);
    if (first == '<') {
        fclose(f);
        return cli_jmerge_add(m->junit, path);
    }
    if (first != EOF) ungetc(first, f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint64_t no = 0;
    bool ok = true, tally = false, coverage = false;
    while (ok && (len = getline(&line, &cap, f)) >= 0) {
        no++;
        json_error_t e;
        json_t *o = len <= MERGE_LINE_BYTES ? json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, &e) : NULL;
        if (o == NULL) {
            ok = bad(m, path, no, len > MERGE_LINE_BYTES || e.column < 1 ? 1 : (uint64_t)e.column,
                     len > MERGE_LINE_BYTES ? "a line longer than 1 MiB" : e.text);
        } else if (tally || coverage) {
            ok = bad(m, path, no, 1, tally ? "a line after the tally" : "a line after the coverage object");
        } else if (no == 1 && is_coverage(o)) {
            ok = coverage = add_coverage(m, path, o);
        } else if (json_is_true(json_object_get(o, "tally"))) {
            ok = tally = add_tally(m, path, no, o);
        } else {
            ok = add_fail(m, path, no, o);
        }
        json_decref(o);
    }
    if (ok && ferror(f)) {                                       /* a folder, an unreadable file: no line to name */
        fprintf(stderr, "%s: %s: %s\n", m->prog, path, strerror(errno));
        ok = false;
    }
    if (ok && !tally && !coverage) ok = bad(m, path, no + 1, 1, "no tally at the end: the shard's report is cut short");
    free(line);
    fclose(f);
    return ok;
}

/* Swarm's failing runs by seed, then by the file's place in the
 * campaign's list; explore's by placement. */
static int by_order(const void *a, const void *b) {
    const merge_fail *x = a, *y = b;
    if (x->order_a != y->order_a) return x->order_a < y->order_a ? -1 : 1;
    return (x->order_b > y->order_b) - (x->order_b < y->order_b);
}

static bool order_fails(merge_ctx *m) {
    const json_t *paths = json_object_get(m->first_tally, "paths");
    for (uint64_t i = 0; i < m->nfails; i++) {
        merge_fail *x = &m->fails[i];
        bool explore = json_object_get(x->run, "fault") != NULL;
        if (explore != (m->kind == MERGE_EXPLORE)) {
            return bad(m, x->path, x->line, 1, explore ? "a failing run of absim explore among the reports of absim swarm"
                                                       : "a failing run of absim swarm among the reports of absim explore");
        }
        if (explore && x->order_a > num(m->first_tally, "placements")) {
            return bad(m, x->path, x->line, 1, "a failing run whose placement is past the space's");
        }
        const char *file = json_string_value(json_object_get(x->run, "file"));
        bool known = explore;
        for (size_t k = 0; !explore && k < json_array_size(paths); k++) {
            const char *p = json_string_value(json_array_get(paths, k));
            if (p != NULL && file != NULL && strcmp(file, p) == 0) x->order_b = k, known = true;
        }
        if (!known) return bad(m, x->path, x->line, 1, "a failing run of a file the campaign's tally does not name");
    }
    if (m->nfails > 1) qsort(m->fails, m->nfails, sizeof *m->fails, by_order);   /* fails is NULL when there are none */
    return true;
}

/* The failing runs, then the merged tally (JSON on stdout, text on
 * stderr). Returns whether the campaign is complete. */
static bool print_report(merge_ctx *m) {
    uint64_t present = 0;
    for (uint64_t i = 0; i < m->shard_n; i++) present += m->seen[i];
    bool complete = present == m->shard_n && m->all_ran;
    for (uint64_t i = 0; i < m->nfails; i++) {
        char *text = json_dumps(m->fails[i].run, JSON_COMPACT);
        if (text != NULL) printf("%s\n", text);
        free(text);
    }
    json_t *t = json_deep_copy(m->first_tally);
    json_object_del(t, "shard");
    json_object_del(t, "shard_runs");
    json_object_del(t, "seconds");
    json_object_del(t, "runs_per_s");
    json_object_del(t, "jobs");
    json_object_del(t, "listed");
    json_object_set_new(t, "passed", json_integer((json_int_t)m->passed));
    json_object_set_new(t, "failed", json_integer((json_int_t)m->failed));
    json_object_set_new(t, "died", json_integer((json_int_t)m->died));
    json_object_set_new(t, "runs", json_integer((json_int_t)m->runs));
    if (m->kind == MERGE_SWARM) {
        json_object_set_new(t, "seeds", json_integer((json_int_t)m->seeds));
        json_object_set_new(t, "unrun", json_integer((json_int_t)m->unrun));
    }
    json_object_set_new(t, "shards", json_integer((json_int_t)present));
    json_object_set_new(t, "of", json_integer((json_int_t)m->shard_n));
    json_object_set_new(t, "complete", json_boolean(complete));
    if (m->kind == MERGE_EXPLORE) json_object_del(t, "first_failing_run");   /* a shard's own order; the lines say where */
    if (m->kind == MERGE_EXPLORE && json_is_boolean(json_object_get(t, "every_order"))) {   /* explore --ties */
        json_object_set_new(t, "orders_beyond", json_integer((json_int_t)m->orders_beyond));
        json_object_set_new(t, "orders_unknown", json_integer((json_int_t)m->orders_unknown));
        json_object_set_new(t, "every_order", json_boolean(complete && m->orders_beyond == 0 && m->orders_unknown == 0));
    }
    char *text = json_dumps(t, JSON_COMPACT);
    if (text != NULL) printf("%s\n", text);
    free(text);
    json_decref(t);
    fprintf(stderr, "merge: %" PRIu64 " of %" PRIu64 " shards of absim %s: %" PRIu64 " runs, %" PRIu64 " passed, %" PRIu64
            " failed (%" PRIu64 " died); ", present, m->shard_n, m->kind == MERGE_EXPLORE ? "explore" : "swarm", m->runs,
            m->passed, m->failed, m->died);
    if (complete) {
        fprintf(stderr, "the campaign is complete: every shard ran all its runs\n");
        if (m->kind == MERGE_EXPLORE && json_is_boolean(json_object_get(m->first_tally, "every_order"))) {
            fprintf(stderr, "merge: %s\n", m->orders_beyond == 0 && m->orders_unknown == 0
                    ? "every order of simultaneous events ran: no run of the deepest tie level made a decision after its last tie"
                    : "more orders of simultaneous events exist than ran (or runs that would say so died)");
        }
        return true;
    }
    fprintf(stderr, "the campaign is NOT complete:");
    const char *sep = " shards missing: ";
    for (uint64_t i = 0; i < m->shard_n && present < m->shard_n; i++) {
        if (!m->seen[i]) fprintf(stderr, "%s%" PRIu64, sep, i), sep = ", ";
    }
    fprintf(stderr, "%s\n", m->all_ran ? "" : (present < m->shard_n ? "; and a shard left runs unstarted" : " a shard left runs unstarted"));
    return false;
}

/* --coverage and --junit; -1 when the command goes on, else its exit. */
static int parse_merge_opts(const char *prog, int argc, char **argv, const char **cov_path, const char **junit_path) {
    static const struct option opts[] = {
        { "coverage", required_argument, NULL, 'C' }, { "help", no_argument, NULL, 'h' },
        { "junit", required_argument, NULL, 'J' },    { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'h') {
            merge_usage(stdout);
            return CLI_OK;
        }
        if (c != 'C' && c != 'J') return cli_bad_option(prog, argv);
        *(c == 'C' ? cov_path : junit_path) = optarg;
    }
    return -1;
}

int cli_merge(int argc, char **argv) {
    const char *prog = "absim merge";
    const char *cov_path = NULL, *junit_path = NULL;
    int rc = parse_merge_opts(prog, argc, argv, &cov_path, &junit_path);
    if (rc >= 0) return rc;
    if (optind == argc || argc - optind > (int)MERGE_INPUTS_MAX) {
        fprintf(stderr, "%s: expected 1 to %u reports (see --help)\n", prog, MERGE_INPUTS_MAX);
        return CLI_USAGE;
    }
    merge_ctx m = { .prog = prog, .all_ran = true, .junit = cli_jmerge_new(prog) };
    bool ok = true;
    for (int i = optind; i < argc && ok; i++) ok = read_input(&m, argv[i]);
    if (ok && cov_path != NULL && m.coverage_inputs == 0) {
        fprintf(stderr, "%s: --coverage %s: no coverage file among the inputs\n", prog, cov_path);
        ok = false;
    }
    if (ok && (junit_path != NULL) != (cli_jmerge_inputs(m.junit) > 0)) {
        if (junit_path != NULL) fprintf(stderr, "%s: --junit %s: no JUnit report among the inputs\n", prog, junit_path);
        else fprintf(stderr, "%s: JUnit reports among the inputs: name the merged one's file with --junit OUT\n", prog);
        ok = false;
    }
    if (ok && junit_path != NULL && strcmp(junit_path, "-") == 0 && m.kind != MERGE_NONE) {
        fprintf(stderr, "%s: --junit -: standard output carries the merged JSON lines; name a file\n", prog);
        ok = false;
    }
    cli_out cov = { 0 }, junit = { 0 };
    ok = ok && cli_out_open(prog, "--coverage", cov_path, &cov);
    if (ok && !cli_out_open(prog, "--junit", junit_path, &junit)) {
        cli_out_abandon(&cov);
        ok = false;
    }
    bool complete = false;
    if (ok && m.kind != MERGE_NONE && order_fails(&m)) complete = print_report(&m);
    else if (ok && m.kind != MERGE_NONE) ok = false;
    if (ok && m.coverage_inputs > 0) cli_cov_report(stderr, m.reach);
    if (ok && cov_path != NULL) cli_cov_write(cov.f, m.reach);
    bool junit_clean = true;
    if (ok && junit_path != NULL && !cli_jmerge_write(m.junit, junit.f)) {
        fprintf(stderr, "%s: --junit %s: the write failed\n", prog, junit_path);
        ok = false;
    } else if (ok && junit_path != NULL) {
        junit_clean = cli_jmerge_report(m.junit, stderr);
    }
    bool written = true;
    if (ok) {                                    /* both, whatever the first says */
        bool cov_written = cli_out_commit(prog, "--coverage", &cov);
        bool junit_written = cli_out_commit(prog, "--junit", &junit);
        written = cov_written && junit_written;
    }
    if (!ok) cli_out_abandon(&cov), cli_out_abandon(&junit);
    cli_jmerge_free(m.junit);
    for (uint64_t i = 0; i < m.nfails; i++) json_decref(m.fails[i].run);
    free(m.fails);
    free(m.seen);
    json_decref(m.first_tally);
    if (!ok || !written || !cli_stdout_ok(prog)) return CLI_USAGE;
    if (m.kind == MERGE_NONE) return junit_clean ? CLI_OK : CLI_FAIL;   /* coverage files, JUnit reports */
    return complete && m.failed == 0 && junit_clean ? CLI_OK : CLI_FAIL;
}
