/* cli/shrink.c: `absim shrink FILE --seed S`: minimise a failing run.
 *
 * The failure to keep is the run's structured verdict: for every expect
 * line whether it held or how it failed (cli_expect_failure: restarts == 1
 * got 3 is not the failure got 0), and the set of invariants violated. A
 * candidate fails the same way when its verdict is the same in full, so an
 * expectation that held (expect duplicates, expect failed) keeps holding
 * and the faults that make it hold stay.
 * Greedy passes, repeated until none makes progress: drop each fault,
 * halve each fault's duration and delay, move each fault later (half as
 * late again, or one checkpoint later at a protocol point), so that a
 * minimal case has as little run before its faults as it can; halve the
 * records per partition,
 * drop a partition, lower the parallelism of each vertex (of all at once,
 * for forward edges). A change is kept when the candidate is still a valid
 * scenario (it goes through the writer and the reader), every fault of
 * its script fires (faults stay `optional` only while shrinking cannot
 * settle them) and the verdict is the same. Before and after the passes
 * the faults that fired lose `optional` and those that did not are
 * dropped. The result is written (through a temporary file, renamed when
 * complete) as a scenario file with a comment saying what failed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define SHRINK_RUNS_MAX 2000u

typedef struct shrink_opts {
    uint64_t    seed;
    bool        random_faults;
    uint8_t     profile;          /* --faults random or buggify */
    pipe_bug    bug;              /* --bug: a deliberately wrong protocol to shrink a catch of */
    cli_pct     pct;              /* --pct */
    const char *out;
} shrink_opts;

typedef struct verdict {
    uint32_t expect[SCN_EXPECTS_MAX];   /* cli_expect_failure of each expect line, by index */
    uint32_t violated;                  /* bit i: invariant i was violated */
} verdict;

typedef struct shrinker {
    verdict  want;                /* the failure that must stay the same */
    uint64_t fired, cand_fired;   /* faults that fired: in the current scenario, in the last candidate */
    uint32_t runs;
} shrinker;

static void verdict_of(const scn *s, const cli_outcome *o, verdict *v) {
    memset(v, 0, sizeof *v);
    for (uint32_t i = 0; i < s->expects_count; i++) v->expect[i] = cli_expect_failure(s, i, o);
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT; i++) v->violated |= (uint32_t)(o->report.violations[i] > 0) << i;
}

/* Round trip through text: the candidate must be a scenario the reader
 * accepts (fault targets exist, forward edges match, ...). */
static bool normalise(scn *c) {
    char err[SCN_ERR_BYTES];
    pipe_bug bug = c->cfg.bug;                   /* --bug: not part of the file */
    bool ok = scn_reparse(c, c, err, sizeof err);
    c->cfg.bug = bug;
    return ok;
}

static bool still_fails(shrinker *k, scn *c) {
    if (k->runs >= SHRINK_RUNS_MAX || !normalise(c)) return false;
    k->runs++;
    cli_outcome *o = malloc(sizeof *o);
    if (o == NULL) return false;
    int rc = cli_run_scenario(c, false, NULL, NULL, NULL, NULL, 0, NULL, o);
    verdict v;
    verdict_of(c, o, &v);
    k->cand_fired = o->fired;
    bool same = rc == CLI_FAIL && o->unfired == 0 && memcmp(&v, &k->want, sizeof v) == 0;
    free(o);
    return same;
}

static bool try_change(shrinker *k, scn *cur, const scn *cand) {
    scn *tmp = malloc(sizeof *tmp);
    if (tmp == NULL) return false;
    *tmp = *cand;
    bool ok = still_fails(k, tmp);
    if (ok) {
        *cur = *tmp;
        k->fired = k->cand_fired;
    }
    free(tmp);
    return ok;
}

/* The faults that fired lose `optional`, those that did not are dropped:
 * true when that keeps the verdict (or changes nothing). */
static bool settle(shrinker *k, scn *cur) {
    scn *c = malloc(sizeof *c);
    if (c == NULL) return false;
    *c = *cur;
    bool change = false;
    c->faults_count = 0;
    for (uint32_t i = 0; i < cur->faults_count; i++) {
        bool fired = k->fired >> i & 1;
        change |= !fired || cur->faults[i].optional;
        if (!fired) continue;
        c->faults[c->faults_count] = cur->faults[i];
        c->faults[c->faults_count++].optional = false;
    }
    bool ok = !change || try_change(k, cur, c);
    free(c);
    return ok;
}

static bool pass(shrinker *k, scn *cur) {
    bool progress = false;
    scn *c = malloc(sizeof *c);
    if (c == NULL) return false;
    for (uint32_t i = 0; i < cur->faults_count;) {          /* drop faults */
        *c = *cur;
        memmove(&c->faults[i], &c->faults[i + 1], sizeof(scn_fault) * (c->faults_count - i - 1));
        c->faults_count--;
        if (try_change(k, cur, c)) progress = true; else i++;
    }
    for (uint32_t i = 0; i < cur->faults_count; i++) {      /* shorter windows, smaller delays */
        *c = *cur;
        if (c->faults[i].duration_ns > SIM_NS_PER_MS) {
            c->faults[i].duration_ns /= 2;
            progress |= try_change(k, cur, c);
        }
        *c = *cur;
        if (c->faults[i].delay_ns > SIM_NS_PER_MS) {
            c->faults[i].delay_ns /= 2;
            progress |= try_change(k, cur, c);
        }
    }
    for (uint32_t i = 0; i < cur->faults_count; i++) {      /* later */
        *c = *cur;
        scn_fault *f = &c->faults[i];
        if (f->point == SCN_AT_TIME) {
            if (f->at_ns < SIM_NS_PER_MS || f->at_ns / 2 > c->cfg.time_max_ns - f->at_ns) continue;
            f->at_ns += f->at_ns / 2;
        } else {
            if (f->point_ckpt >= 1000) continue;  /* bounded: a run has no more checkpoints */
            f->point_ckpt++;
        }
        progress |= try_change(k, cur, c);
    }
    for (uint32_t t = 0; t < broker_cfg_topics(&cur->cfg.broker); t++) {   /* less input, topic by topic */
        broker_topic_cfg *x = t > 0 ? &c->cfg.broker.more[t - 1] : NULL;
        *c = *cur;
        uint64_t *records = x != NULL ? &x->records_per_partition : &c->cfg.broker.records_per_partition;
        uint32_t *parts = x != NULL ? &x->partitions : &c->cfg.broker.partitions;
        if (*parts > 0 && *records >= 200) {      /* an empty default topic has nothing to lose */
            *records /= 2;
            progress |= try_change(k, cur, c);
        }
        *c = *cur;
        if (*parts > 1) {
            (*parts)--;
            progress |= try_change(k, cur, c);
        }
    }
    for (uint32_t v = 0; v <= cur->cfg.graph.vertices_count; v++) {   /* lower parallelism; v == count: all */
        *c = *cur;
        bool changed = false;
        for (uint32_t w = 0; w < c->cfg.graph.vertices_count; w++) {
            if ((v == w || v == cur->cfg.graph.vertices_count) && c->cfg.graph.vertices[w].parallelism > 1) {
                c->cfg.graph.vertices[w].parallelism--;
                changed = true;
            }
        }
        if (changed) progress |= try_change(k, cur, c);
    }
    free(c);
    return progress;
}

static void shrink_usage(FILE *f) {
    fprintf(f, "usage: absim shrink FILE --seed S [--faults random|buggify] [--bug NAME] [--pct D[/K][~T]] [-o FILE]\n"
               "\n"
               "For a seed whose run fails (an expect line, an invariant), removes faults,\n"
               "shortens them, moves them later, shrinks the input and the parallelism while\n"
               "the run fails in the same way: the same expect lines fail in the same\n"
               "direction, the others still hold, the same invariants are violated, and every\n"
               "fault of the script fires. With --faults random (or buggify), the seed's fault\n"
               "profile is written out as a script first; the faults that fired lose\n"
               "`optional`, the others are dropped.\n"
               "  --bug NAME      shrink a run of a deliberately wrong protocol (absim bugs\n"
               "                  --list) that the checks caught; run the result with --bug\n"
               "  --pct D[/K][~T] shrink a run ordered by PCT (absim run --help); the result\n"
               "                  has the line schedule pct depth D steps K, K as the run took\n"
               "  -o, --out FILE  where to write the result (default: NAME-seedS.scn in a\n"
               "                  new folder under $TMPDIR or /tmp, named in the last line);\n"
               "                  written to a temporary file first and renamed, so an\n"
               "                  existing FILE stays as it was on failure\n"
               "exit status: 0 written, 1 the seed does not fail (or the result could not\n"
               "be written), 2 bad input (an output that cannot be created)\n");
}

/* "invariant I2 (consistent cut) violated, line 26: expect exactly-once
 * failed": what the message and the file's comment name as the failure
 * kept (the verdict holds every expect line; this names the first). */
static void describe(const scn *s, const cli_outcome *o, char *buf, size_t n) {
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT && used < n; i++) {
        if (o->report.violations[i] == 0) continue;
        int w = snprintf(buf + used, n - used, "%sinvariant %s (%s) violated", used ? ", " : "",
                         check_inv_name((check_inv)i), check_inv_title((check_inv)i));
        used = w < 0 ? n : used + (size_t)w;
    }
    for (uint32_t i = 0; i < s->expects_count && used < n; i++) {
        if (s->expects[i].line != o->failed_line) continue;
        char text[96];
        snprintf(buf + used, n - used, "%sline %u: expect %s failed", used ? ", " : "", o->failed_line,
                 scn_expect_text(&s->expects[i], text, sizeof text));
    }
}

/* The output's name when --out is not given: NAME-seedS.scn in a new
 * folder of its own under $TMPDIR (or /tmp), so that no file a user has
 * is ever replaced; false when the folder cannot be made. */
static bool default_out(const char *prog, const char *input, uint64_t seed, char *out, size_t n) {
    char base[256], dir[512];
    snprintf(base, sizeof base, "%s", input);
    char *b = basename(base), *dot = strrchr(b, '.');
    if (dot != NULL) *dot = '\0';
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/absim-shrink-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "%s: cannot make a folder for the result (%s): %s; say where with --out\n", prog, dir,
                strerror(errno));
        return false;
    }
    snprintf(out, n, "%s/%s-seed%" PRIu64 ".scn", dir, b, seed);
    return true;
}

/* The scenario as text (scn_write spells durations as people do); malloc'd. */
static char *scenario_text(const scn *s) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) return NULL;
    scn_write(s, f);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Write the result to tmp (made by mkstemp beside the output), then
 * rename it over out: every write is checked, and on any failure the
 * temporary file goes and an existing out is left untouched. */
static bool write_result(const char *prog, FILE *f, const char *tmp, const char *out, const scn *s, const char *head) {
    char *text = scenario_text(s);
    bool ok = text != NULL && fputs(head, f) >= 0 && fputs(text, f) >= 0;
    free(text);
    ok = ok && fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && rename(tmp, out) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, out, strerror(err ? err : EIO));
        unlink(tmp);
    }
    cli_tmp_forget(tmp);
    return ok;
}

/* The run to shrink must fail on an expect line or an invariant, with
 * every scripted fault firing; returns -1 when it does, else the exit
 * status after saying why not. */
static int check_original(const char *prog, const scn *s, uint64_t seed, int rc, const cli_outcome *o) {
    char all[2048];
    cli_failures_join(&o->failures, all, sizeof all);
    if (rc == CLI_USAGE) {
        fprintf(stderr, "%s\n", all);
        return CLI_USAGE;
    }
    if (rc != CLI_FAIL) {
        fprintf(stderr, "%s: seed %" PRIu64 " does not fail %s; nothing to shrink\n", prog, seed, s->path);
        return CLI_FAIL;
    }
    if (o->unfired > 0) {
        fprintf(stderr, "%s: seed %" PRIu64 ": a scripted fault never fired (%s); fix the script first\n", prog, seed,
                all);
        return CLI_FAIL;
    }
    if (o->failed_line == 0 && check_first(&o->report) == NULL) {
        fprintf(stderr, "%s: the run fails without a failed expectation or a violation (%s); nothing to shrink\n", prog,
                all);
        return CLI_FAIL;
    }
    return -1;
}

/* The options; returns -1 when the run goes on, else the exit status. */
static int parse_opts(const char *prog, int argc, char **argv, shrink_opts *x) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' }, { "faults", required_argument, NULL, 'f' },
        { "out", required_argument, NULL, 'o' },  { "bug", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },       { "pct", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    *x = (shrink_opts){ .bug = PIPE_BUG_NONE };
    bool seed_given = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &x->seed)) return CLI_USAGE;
            seed_given = true;
            break;
        case 'f': if (!cli_parse_faults(prog, optarg, &x->random_faults, &x->profile)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &x->bug)) return CLI_USAGE; break;
        case 'P': if (!cli_parse_pct(prog, optarg, &x->pct)) return CLI_USAGE; break;
        case 'o': x->out = optarg; break;
        case 'h': shrink_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!seed_given) {
        fprintf(stderr, "%s: --seed is required (see --help)\n", prog);
        return CLI_USAGE;
    }
    return -1;
}

/* Shrink s, which failed as o says, and write it through tmp to out. */
static int shrink_and_write(const char *prog, scn *s, const cli_outcome *o, const shrink_opts *x, FILE *f,
                            const char *tmp, const char *out) {
    shrinker k = { .fired = o->fired };
    verdict_of(s, o, &k.want);
    scn *orig = malloc(sizeof *orig);
    if (orig == NULL) return CLI_FAIL;
    *orig = *s;
    settle(&k, s);                                   /* fired faults scripted, the others gone */
    uint32_t rounds = 0;
    while (rounds++ < 20 && pass(&k, s)) {
    }
    bool settled = settle(&k, s);
    uint64_t records_before = broker_cfg_records(&orig->cfg.broker);
    uint64_t records_after = broker_cfg_records(&s->cfg.broker);
    char what[240], head[2048], bug[96] = "", all[701];   /* each comment line well under SCN_LINE_BYTES_MAX */
    describe(orig, o, what, sizeof what);
    cli_failures_join(&o->failures, all, sizeof all);
    if (x->bug != PIPE_BUG_NONE) snprintf(bug, sizeof bug, "# It fails with --bug %s (the file cannot say so).\n", pipe_bug_name(x->bug));
    _Static_assert(sizeof what + 700 + 40 < SCN_LINE_BYTES_MAX, "the comment lines can be read back");
    snprintf(head, sizeof head, "# Shrunk by absim shrink from %s, seed %" PRIu64 "%s.\n%s"
             "# What fails: %s.\n# In the original run: %.700s\n"
             "# Kept from the original: %u of %u faults, %" PRIu64 " of %" PRIu64 " records (%u runs to shrink).\n"
             "%s# Say here why it failed before moving it to scenarios/regress/.\n",
             orig->path, s->cfg.seed, x->random_faults ? x->profile == SCN_PROFILE_BUGGIFY ? " with its buggify fault profile" : " with its random fault profile" : "", bug, what, all,
             s->faults_count, orig->faults_count, records_after, records_before, k.runs,
             settled ? "" : "# Some faults stay optional: without them the run fails differently.\n");
    bool ok = write_result(prog, f, tmp, out, s, head);
    if (ok) {
        printf("%s: still fails with %u of %u faults and %" PRIu64 " of %" PRIu64 " records (%s); written to %s (%u runs)\n",
               prog, s->faults_count, orig->faults_count, records_after, records_before, what, out, k.runs);
    }
    free(orig);
    return ok ? CLI_OK : CLI_FAIL;
}

int cli_shrink(int argc, char **argv) {
    const char *prog = "absim shrink";
    shrink_opts x;
    int rc = parse_opts(prog, argc, argv, &x);
    if (rc >= 0) return rc;
    const char *out = x.out;
    scn *s = cli_load_scenario(prog, argc, argv, true, x.seed);
    cli_outcome *o = malloc(sizeof *o);
    if (s == NULL || o == NULL) {
        free(s);
        free(o);
        return s == NULL ? CLI_USAGE : CLI_FAIL;
    }
    s->cfg.bug = x.bug;
    s->profile = x.profile;
    if (!cli_apply_pct(prog, s, &x.pct)) {
        free(s);
        free(o);
        return CLI_USAGE;
    }
    rc = check_original(prog, s, x.seed, cli_run_scenario(s, x.random_faults, NULL, NULL, NULL, NULL, 0, NULL, o), o);
    if (o->pct.depth > 0) s->cfg.pct_steps = o->pct.steps;   /* PCT's steps as the run took them: the same run as the shrinking's faults go */
    char def[800], tmp[900];                         /* random faults land in s's script */
    if (rc < 0 && out == NULL) {
        if (!default_out(prog, s->path, x.seed, def, sizeof def)) rc = CLI_FAIL;
        out = def;
    }
    if (rc < 0 && cli_names_input(out)) {
        fprintf(stderr, "%s: -o %s: that is the scenario being shrunk: it would be replaced\n", prog, out);
        rc = CLI_USAGE;
    }
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", out);
    int fd = rc < 0 ? mkstemp(tmp) : -1;             /* writable? known before the shrinking */
    if (fd >= 0) cli_tmp_note(tmp);
    FILE *f = fd >= 0 && fchmod(fd, 0644) == 0 ? fdopen(fd, "w") : NULL;   /* mkstemp makes it 0600 */
    if (rc < 0 && f == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", prog, out, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
            cli_tmp_forget(tmp);
        }
        rc = CLI_USAGE;
    }
    if (rc < 0) rc = shrink_and_write(prog, s, o, &x, f, tmp, out);
    free(s);
    free(o);
    return rc;
}
