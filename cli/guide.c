/* cli/guide.c: coverage-guided fault profiles for absim swarm --faults
 * guided (cli/cli.h, cli_guide).
 *
 * A run whose protocol coverage reached a point fewer than `target` runs
 * of the campaign have reached (counted over all its files: a point one
 * file reaches often needs no help from another) is kept (per file, with
 * the profile it ran: its drawn faults and the seed its settings were
 * drawn from). A new
 * run's profile is, with probability 1/4 or when nothing is kept, the
 * seed's own random profile (as --faults random draws it); otherwise a
 * kept profile, chosen with a weight that grows with how rare the points
 * it reached still are, mutated: a fault moved in time, its window halved
 * or doubled, a fault dropped, a fault of the seed's own profile added,
 * the settings of the seed's own draw taken. Every mutant goes through
 * the writer and the reader (an invalid one falls back to the seed's own
 * profile), and every profile runs as the reader reads it back, so that
 * the scenario file written for a failing run replays it. Decisions draw from a stream of the run's seed, and the kept
 * profiles change only between batches, in run order: a campaign is the
 * same whatever --jobs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define GUIDE_KEPT_MAX   128u          /* kept profiles per file */
#define GUIDE_FAULTS_MAX 32u           /* drawn faults a kept profile holds */
#define GUIDE_WORDS      ((PIPE_REACH_COUNT + 63) / 64)

typedef struct guide_entry {
    uint64_t  settings_seed;           /* scn_random_settings(s, settings_seed) */
    uint64_t  reached[GUIDE_WORDS];    /* bit p: the run reached point p */
    uint32_t  nfaults;
    scn_fault faults[GUIDE_FAULTS_MAX];
} guide_entry;

typedef struct guide_file {
    guide_entry *kept;                      /* [GUIDE_KEPT_MAX] */
    uint32_t     nkept;
} guide_file;

struct cli_guide {
    const scn  *files;
    uint32_t    nfiles;
    uint64_t    target;
    uint64_t    count[PIPE_REACH_COUNT];    /* runs that reached each point, over the campaign so far */
    guide_file *f;
    scn        *scratch;
    uint64_t    mutants, fresh, refused;    /* profiles made so far, by origin */
};

cli_guide *cli_guide_new(const scn *files, uint32_t nfiles, uint64_t target) {
    SIM_ASSERT(nfiles > 0 && target > 0);
    cli_guide *g = calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    *g = (cli_guide){ .files = files, .nfiles = nfiles, .target = target };
    g->f = calloc(nfiles, sizeof *g->f);
    g->scratch = malloc(sizeof *g->scratch);
    bool ok = g->f != NULL && g->scratch != NULL;
    for (uint32_t i = 0; i < nfiles && ok; i++) ok = (g->f[i].kept = calloc(GUIDE_KEPT_MAX, sizeof(guide_entry))) != NULL;
    if (!ok) {
        cli_guide_free(g);
        return NULL;
    }
    return g;
}

void cli_guide_free(cli_guide *g) {
    if (g == NULL) return;
    for (uint32_t i = 0; g->f != NULL && i < g->nfiles; i++) free(g->f[i].kept);
    free(g->f);
    free(g->scratch);
    free(g);
}

/* How much a kept profile is worth now: the rarer the points it reached
 * (fewer runs of the campaign reached them, under the target), the more. */
static uint64_t weight(const cli_guide *g, const guide_entry *e) {
    uint64_t w = 0;
    for (uint32_t p = 0; p < PIPE_REACH_COUNT; p++) {
        if (!(e->reached[p / 64] >> (p % 64) & 1) || g->count[p] >= g->target) continue;
        w += 1024 / (1 + g->count[p]);
    }
    return w;
}

static const guide_entry *choose_parent(const cli_guide *g, const guide_file *gf, rng *r) {
    uint64_t total = 0, w[GUIDE_KEPT_MAX];
    for (uint32_t i = 0; i < gf->nkept; i++) total += w[i] = weight(g, &gf->kept[i]);
    if (total == 0) return NULL;
    SIM_ASSERT(total < (1ull << 32));
    uint64_t x = (uint64_t)rng_u32(r) * total >> 32;
    for (uint32_t i = 0; i < gf->nkept; i++) {
        if (x < w[i]) return &gf->kept[i];
        x -= w[i];
    }
    SIM_ASSERT(false);
    return NULL;
}

/* The drawn faults of s (line 0: not the file's own). */
static uint32_t drawn_faults(const scn *s, scn_fault *out, uint32_t max) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->faults_count; i++) {
        if (s->faults[i].line != 0) continue;
        if (n == max) return UINT32_MAX;
        out[n++] = s->faults[i];
    }
    return n;
}

/* One mutation of the drawn faults f[0 .. *n - 1] (own: the seed's own
 * drawn faults, for additions; horizon: where faults may fall). */
static void mutate_once(rng *r, scn_fault *f, uint32_t *n, const scn_fault *own, uint32_t nown, sim_time_ns horizon,
                        uint64_t *settings_seed, uint64_t seed) {
    uint32_t op = rng_below(r, 5);
    if (op == 2 && *n > 1) {                                   /* drop one */
        uint32_t i = rng_below(r, *n);
        f[i] = f[--*n];
    } else if (op == 3 && nown > 0 && *n < GUIDE_FAULTS_MAX) { /* add one of the seed's own */
        f[(*n)++] = own[rng_below(r, nown)];
    } else if (op == 4) {                                      /* the seed's own settings */
        *settings_seed = seed;
    } else if (*n > 0) {
        scn_fault *x = &f[rng_below(r, *n)];
        uint32_t flags = fk_of(x->kind)->flags;
        if (op == 1 && x->duration_ns > 0 && !(flags & FK_PAUSE)) {   /* a pause keeps the length it was drawn with */
            x->duration_ns = rng_below(r, 2) ? x->duration_ns * 2 : x->duration_ns / 2;
            if (x->duration_ns < SIM_NS_PER_MS) x->duration_ns = SIM_NS_PER_MS;
        } else if (x->point == SCN_AT_TIME) {                  /* move it by up to an eighth of the horizon */
            sim_time_ns step = horizon / 8, d = (sim_time_ns)(((unsigned __int128)rng_u32(r) * (2 * step + 1)) >> 32);
            x->at_ns = x->at_ns + d < step ? 0 : x->at_ns + d - step;
            if (x->at_ns >= horizon) x->at_ns = horizon - 1;
        }
    }
}

/* s as the scenario file of a failing run will say it: through the
 * writer and the reader, since what a run draws can depend on how a value
 * is written (a drawn ratio of 12/100 reads back as 120000/1000000, and a
 * run draws a chance by the ratio's denominator), so that the file
 * replays the run. The file's own faults and expect lines keep their
 * lines (messages name them), the drawn faults have none. False (s as it
 * was) when the reader refuses it. */
static bool as_written(scn *s, const scn *base, scn *tmp) {
    char err[SCN_ERR_BYTES];
    pipe_bug bug = s->cfg.bug;                       /* --bug: not part of the file */
    if (!scn_reparse(s, tmp, err, sizeof err)) return false;
    SIM_ASSERT(tmp->faults_count == s->faults_count && tmp->expects_count == base->expects_count);
    tmp->cfg.bug = bug;
    for (uint32_t i = 0; i < tmp->faults_count; i++) tmp->faults[i].line = i < base->faults_count ? base->faults[i].line : 0;
    for (uint32_t i = 0; i < tmp->expects_count; i++) tmp->expects[i].line = base->expects[i].line;
    *s = *tmp;
    return true;
}

void cli_guide_profile(cli_guide *g, uint32_t file, uint64_t seed, scn *out, uint64_t *settings_seed) {
    SIM_ASSERT(file < g->nfiles);
    const scn *base = &g->files[file];
    *out = *base;
    out->cfg.seed = seed;
    *settings_seed = seed;
    rng r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0x6e1de0u + file));
    const guide_entry *parent = rng_below(&r, 4) == 0 ? NULL : choose_parent(g, &g->f[file], &r);
    cli_random_faults(out);                                    /* the seed's own profile */
    scn *check = malloc(sizeof *check);
    SIM_ASSERT(check != NULL);
    if (parent == NULL) {
        bool ok = as_written(out, base, check);
        SIM_ASSERT(ok);                                        /* a random profile is a valid script */
        free(check);
        g->fresh++;
        return;
    }
    scn_fault own[GUIDE_FAULTS_MAX], f[GUIDE_FAULTS_MAX];
    uint32_t nown = drawn_faults(out, own, GUIDE_FAULTS_MAX), n = parent->nfaults;
    if (nown == UINT32_MAX) nown = 0;
    memcpy(f, parent->faults, n * sizeof *f);
    uint64_t set = parent->settings_seed;
    sim_time_ns horizon = pipe_horizon_ns(&base->cfg);
    if (horizon < 10 * SIM_NS_PER_MS) horizon = 10 * SIM_NS_PER_MS;
    for (uint32_t k = 1 + rng_below(&r, 3); k > 0; k--) mutate_once(&r, f, &n, own, nown, horizon, &set, seed);
    scn *m = g->scratch;                                       /* the mutant: the file, the settings, the faults */
    *m = *base;
    m->cfg.seed = seed;
    scn_random_settings(m, set);
    bool room = m->faults_count + n <= SCN_FAULTS_MAX;
    for (uint32_t i = 0; room && i < n; i++) m->faults[m->faults_count++] = f[i];
    if (!room || !as_written(m, base, check)) {                /* keep the seed's own profile */
        bool ok = as_written(out, base, check);
        SIM_ASSERT(ok);
        free(check);
        g->refused++;
        return;
    }
    free(check);
    *out = *m;
    *settings_seed = set;
    g->mutants++;
}

void cli_guide_learn(cli_guide *g, uint32_t file, const scn *ran, uint64_t settings_seed, const uint64_t *reach) {
    SIM_ASSERT(file < g->nfiles);
    guide_file *gf = &g->f[file];
    guide_entry e = { .settings_seed = settings_seed };
    bool rare = false;
    for (uint32_t p = 0; p < PIPE_REACH_COUNT; p++) {
        if (reach[p] == 0) continue;
        e.reached[p / 64] |= 1ull << (p % 64);
        rare = rare || g->count[p] < g->target;
        g->count[p]++;
    }
    uint32_t n = drawn_faults(ran, e.faults, GUIDE_FAULTS_MAX);
    if (!rare || n == UINT32_MAX || n == 0) return;           /* nothing rare, or no profile to mutate */
    e.nfaults = n;
    uint32_t at = gf->nkept;
    if (gf->nkept == GUIDE_KEPT_MAX) {                         /* full: it replaces the least worth, if worth more */
        at = 0;
        uint64_t least = UINT64_MAX;
        for (uint32_t i = 0; i < gf->nkept; i++) {
            uint64_t w = weight(g, &gf->kept[i]);
            if (w < least) least = w, at = i;
        }
        if (weight(g, &e) <= least) return;
    } else {
        gf->nkept++;
    }
    gf->kept[at] = e;
}

void cli_guide_tally(const cli_guide *g, uint64_t *fresh, uint64_t *mutants, uint64_t *refused) {
    *fresh = g->fresh;
    *mutants = g->mutants;
    *refused = g->refused;
}
