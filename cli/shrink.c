/* cli/shrink.c: `absim shrink FILE --seed S`: minimise a failing run.
 *
 * The failure to keep is the first expectation that fails for that seed,
 * or else the invariant (I2, I5) the run violated.
 * Greedy passes, repeated until none makes progress: drop each fault,
 * halve each fault's duration and delay, move each fault later (half as
 * late again, or one checkpoint later at a protocol point), so that a
 * minimal case has as little run before its faults as it can; halve the
 * records per partition,
 * drop a partition, lower the parallelism of each vertex (of all at once,
 * for forward edges). A change is kept when the candidate is still a valid
 * scenario (it goes through the writer and the reader) and the same
 * expectation still fails. The result is written as a scenario file with a
 * comment saying what failed, ready for scenarios/regress/. */
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SHRINK_RUNS_MAX 2000u

typedef struct shrinker {
    char     target[128];         /* the expectation that must keep failing */
    uint32_t runs;
} shrinker;

/* Round trip through text: the candidate must be a scenario the reader
 * accepts (fault targets exist, forward edges match, ...). */
static bool normalise(scn *c) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) return false;
    scn_write(c, f);
    fclose(f);
    char err[SCN_ERR_BYTES], path[256];
    snprintf(path, sizeof path, "%s", c->path);
    bool ok = scn_parse(c, path, text, len, err, sizeof err);
    free(text);
    return ok;
}

static bool still_fails(shrinker *k, scn *c) {
    if (k->runs >= SHRINK_RUNS_MAX || !normalise(c)) return false;
    k->runs++;
    cli_outcome o;
    int rc = cli_run_scenario(c, false, NULL, NULL, NULL, NULL, &o);
    return rc == CLI_FAIL && strstr(o.failures, k->target) != NULL;
}

static bool try_change(shrinker *k, scn *cur, const scn *cand) {
    scn *tmp = malloc(sizeof *tmp);
    if (tmp == NULL) return false;
    *tmp = *cand;
    bool ok = still_fails(k, tmp);
    if (ok) *cur = *tmp;
    free(tmp);
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
    *c = *cur;
    if (c->cfg.broker.records_per_partition >= 200) {       /* less input */
        c->cfg.broker.records_per_partition /= 2;
        progress |= try_change(k, cur, c);
    }
    *c = *cur;
    if (c->cfg.broker.partitions > 1) {
        c->cfg.broker.partitions--;
        progress |= try_change(k, cur, c);
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
    fprintf(f, "usage: absim shrink FILE --seed S [--faults random] [--out FILE]\n"
               "\n"
               "For a seed whose run fails an expectation, removes faults, shortens them,\n"
               "moves them later, shrinks the input and the parallelism while that\n"
               "expectation still fails, and writes the smallest scenario found\n"
               "(default: scenarios/regress/NAME-seedS.scn). With --faults random, the seed's random fault profile\n"
               "is written out as a script first.\n");
}

int cli_shrink(int argc, char **argv) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "faults", required_argument, NULL, 'f' },
        { "out", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim shrink";
    uint64_t seed = 0;
    bool seed_given = false, random_faults = false;
    const char *out_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE;
            seed_given = true;
            break;
        case 'f':
            if (!cli_parse_faults(prog, optarg, &random_faults)) return CLI_USAGE;
            break;
        case 'o': out_path = optarg; break;
        case 'h': shrink_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!seed_given) {
        fprintf(stderr, "%s: --seed is required (see --help)\n", prog);
        return CLI_USAGE;
    }
    scn *s = cli_load_scenario(prog, argc, argv, true, seed);
    if (s == NULL) return CLI_USAGE;
    scn *orig = malloc(sizeof *orig);
    if (orig == NULL) {
        free(s);
        return CLI_FAIL;
    }
    shrinker k = { .runs = 0 };
    cli_outcome o;
    int rc = cli_run_scenario(s, random_faults, NULL, NULL, NULL, NULL, &o);   /* random faults land in the script */
    if (rc != CLI_FAIL) {
        fprintf(stderr, "%s: seed %" PRIu64 " does not fail %s; nothing to shrink\n", prog, seed, argv[optind]);
        free(s);
        free(orig);
        return rc == CLI_USAGE ? CLI_USAGE : CLI_FAIL;
    }
    /* The first failed expectation is the failure to keep. */
    for (uint32_t i = 0; i < s->expects_count && k.target[0] == '\0'; i++) {
        char text[64], needle[96];
        scn_expect_text(&s->expects[i], text, sizeof text);
        snprintf(needle, sizeof needle, "expectation failed: %s ", text);
        if (strstr(o.failures, needle) != NULL) snprintf(k.target, sizeof k.target, "%s", needle);
    }
    static const char *const invariants[] = { "invariant I2 violated", "invariant I5 violated" };
    for (size_t i = 0; i < sizeof invariants / sizeof invariants[0] && k.target[0] == '\0'; i++) {
        if (strstr(o.failures, invariants[i]) != NULL) snprintf(k.target, sizeof k.target, "%s", invariants[i]);
    }
    if (k.target[0] == '\0') {
        fprintf(stderr, "%s: the run fails without a failed expectation (%s); nothing to shrink\n", prog, o.failures);
        free(s);
        free(orig);
        return CLI_FAIL;
    }
    *orig = *s;
    uint32_t rounds = 0;
    while (rounds++ < 20 && pass(&k, s)) {
    }
    uint64_t records_before = (uint64_t)orig->cfg.broker.partitions * orig->cfg.broker.records_per_partition;
    uint64_t records_after = (uint64_t)s->cfg.broker.partitions * s->cfg.broker.records_per_partition;
    char def[512];
    if (out_path == NULL) {
        char base[256];
        snprintf(base, sizeof base, "%s", argv[optind]);
        char *b = basename(base), *dot = strrchr(b, '.');
        if (dot != NULL) *dot = '\0';
        snprintf(def, sizeof def, "scenarios/regress/%s-seed%" PRIu64 ".scn", b, seed);
        out_path = def;
    }
    FILE *f = fopen(out_path, "w");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot write %s\n", prog, out_path);
        free(s);
        free(orig);
        return CLI_USAGE;
    }
    fprintf(f, "# Shrunk by absim shrink from %s, seed %" PRIu64 "%s.\n", argv[optind], seed,
            random_faults ? " with its random fault profile" : "");
    fprintf(f, "# What fails: %s\n", k.target);
    fprintf(f, "# Kept from the original: %u of %u faults, %" PRIu64 " of %" PRIu64 " records (%u runs to shrink).\n",
            s->faults_count, orig->faults_count, records_after, records_before, k.runs);
    fprintf(f, "# Say here why it failed before moving it to scenarios/regress/.\n");
    scn_write(s, f);
    fclose(f);
    printf("%s: %s still fails with %u of %u faults and %" PRIu64 " of %" PRIu64 " records; written to %s (%u runs)\n",
           prog, k.target, s->faults_count, orig->faults_count, records_after, records_before, out_path, k.runs);
    free(s);
    free(orig);
    return CLI_OK;
}
