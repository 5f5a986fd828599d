/* cli/explore.c: `absim explore FILE`: bounded-exhaustive fault placement.
 *
 * One run of the scenario as it is finds the protocol points it reaches
 * (scenarios/space.h: each task aligning, triggering, done with the sync
 * part of, or committing each checkpoint; the coordinator starting and
 * completing each); the menu is every fault of the chosen kinds on every
 * target of the job. Then every placement, one menu fault at one point,
 * runs as a `fault when POINT ...` line added to the file, not optional
 * (a placement whose fault never fires fails), with the file's own seed,
 * faults and expect lines and every invariant checked; and the file as it
 * is runs too. Runs are child processes, --jobs at a time (cli/pool.c).
 * The space is covered completely when every placement ran: the last
 * line says so, or which part ran (--shard). A single fault at each point
 * is the bound; runs after it do not branch again. With --depth K the
 * bound is K: each placement of k < K faults is observed once more (no
 * checkers) for the points its run first reaches after its last fault
 * fired, and every fault of the menu (--then's) at each of those extends
 * it to k + 1 faults; the new line fires after the others, as the run is
 * the extended one's until then.
 *
 * Tie orders (--ties, --tie-depth K) are the same tree over the order of
 * simultaneous events (sim/choice.h, choice_deviation): at depth 1 each
 * decision of the run as it is with each destination that could have
 * gone first instead (`schedule tie N pick K`), at depth k + 1 an order
 * of k ties, then each decision its run makes after its last tie, each
 * other destination first. Every order of the events that tie is one
 * path of this tree, and no two placements are the same order. The runs
 * of the deepest level report whether they made decisions after their
 * last tie: when none did, every order of the run ran, and the tally
 * says so.
 *
 * Placements are numbered level by level: faults at depth 1, tie orders
 * at depth 1, faults at depth 2, tie orders at depth 2, ...
 *
 * Every failing placement is printed (the first EXPLORE_FAILS_KEPT, in
 * placement order, whatever --jobs) with the command that runs it alone:
 * `absim explore FILE --only I` (the same options), which prints the run
 * as `absim run` does and with -o writes the placement's scenario file,
 * for explain, shrink and scenarios/regress/. */
#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "../sim/choice.h"

#define EXPLORE_FAILS_KEPT 1000u
#define EXPLORE_NONE       UINT64_MAX
#define EXPLORE_TIES_MAX   (1u << 20)    /* decisions among simultaneous events the discovery run may make */
#define EXPLORE_OPT_BYTES  400u          /* --kinds, --then and --window, which every printed command repeats */
#define EXPLORE_WORD_BYTES (4u * 400 + 8) /* one of them, or a path (256 bytes), as a shell word: ' is 4 bytes */
#define EXPLORE_ARGS_BYTES (4u * EXPLORE_WORD_BYTES + 128)   /* the space's options as a command line */
#define EXPLORE_DEPTH_MAX  4u           /* --depth: the faults a placement adds (ties: CHOICE_TIES_MAX) */
#define EXPLORE_GROUPS_MAX (1u << 24)    /* a level's groups: points or decisions, over all the runs it extends */
#define EXPLORE_LINE_BYTES (EXPLORE_DEPTH_MAX * (SCN_FAULT_TEXT_BYTES + 2) + CHOICE_TIES_MAX * 48)
                                         /* a placement: its lines joined by "; " */

/* A menu's kinds as --kinds or --then names them: each at the window,
 * or at a length of its own (KIND=D). */
typedef struct explore_kinds {
    uint64_t    kinds;
    spc_length  lengths[SPC_LENGTHS_MAX];
    uint32_t    lengths_count;
    const char *text;                 /* as given; NULL: the default */
} explore_kinds;

typedef struct explore_opts {
    uint64_t      seed, jobs, shard_i, shard_n, only, depth;
    uint64_t      tie_depth;          /* --ties (1) or --tie-depth K; 0: no tie orders */
    bool          seed_given, json, quiet, list;
    explore_kinds first, then;        /* then.text NULL: the second fault's menu is the first's */
    sim_time_ns   window_ns;          /* 0: the checkpoint interval (10 ms without checkpoints) */
    pipe_bug      bug;
    const char   *coverage_path, *out, *window_text;
} explore_opts;

typedef struct explore_fail {
    uint64_t        task;
    cli_task_result r;
} explore_fail;

/* A level of the space: the placements that add `depth` fault lines
 * (or, for a tie level, `depth` schedule tie lines), numbered from
 * `from`. They come in groups, each a point (each fault of the menu
 * there: the first's at depth 1, the second's, --then, deeper) or a
 * decision among simultaneous events (each ready destination but the
 * first). At depth > 1 each group belongs to a placement of the level
 * one less deep of its kind, `parent`: a point its run first reached
 * after its last fault fired, or a decision its run made after its last
 * tie; so no placement is two orders of the same lines. */
typedef struct explore_level {
    bool      ties;
    uint32_t  depth;
    int32_t   parent;             /* the level this one extends, -1 at depth 1 */
    uint64_t  from, count;
    uint64_t  groups, cap;
    uint64_t *key;                /* group g: its point (spc_point_key), or its decision (from 1) */
    uint64_t *end;                /* the level's placements in groups 0..g */
    uint64_t *parent_end;         /* depth > 1: the groups of the parent level's placements 0..p */
} explore_level;

/* The exploration, shared by the pool's callbacks. Task 0 is the file as
 * it is, task i + 1 placement i; the shard keeps tasks with task % N == I.
 * Placements are numbered level by level: faults at depth 1, tie orders
 * at depth 1, faults at depth 2, tie orders at depth 2, ... */
typedef struct explore_ctx {
    const explore_opts *opt;
    scn          *s;
    spc_points    pts;
    spc_menu     *menu;
    spc_menu     *menu2;              /* the second and later faults' (--then), else menu itself */
    uint64_t      placements, tasks, next;
    explore_level lv[EXPLORE_DEPTH_MAX + CHOICE_TIES_MAX];
    uint32_t      levels;
    choice_deviation dev;             /* --ties: the decisions of a run among simultaneous events, logged */
    uint64_t      decisions;          /* --ties: the discovery run's */
    uint64_t      orders_beyond;      /* --ties: runs of the deepest tie level with decisions after their last tie */
    uint64_t      orders_unknown;     /* ... and those that died (unknown) */
    uint64_t      done, passed, failed, died;
    explore_fail *fails;              /* the first EXPLORE_FAILS_KEPT failing tasks, sorted at the end */
    uint64_t      kept;
    uint64_t      reach[PIPE_REACH_COUNT];
    double        t0, shown;
} explore_ctx;

static void explore_usage(FILE *f) {
    fprintf(f, "usage: absim explore FILE [--seed S] [--kinds LIST] [--window D] [--depth K [--then LIST]]\n"
               "                     [--bug NAME] [--jobs J] [--shard I/N] [--json] [--quiet] [--coverage FILE]\n"
               "       absim explore FILE --list [...]\n"
               "       absim explore FILE --only I [-o OUT.scn] [...]\n"
               "       (and --ties or --tie-depth K with any of them)\n"
               "\n"
               "Bounded-exhaustive fault placement: runs the scenario once to find every\n"
               "protocol point it reaches (a task aligning, triggering, done with the\n"
               "sync part of, or committing checkpoint n; the coordinator starting or\n"
               "completing it), then runs every fault of the menu (each kind on each of\n"
               "its targets: machines, tasks, channels, the coordinator, RPCs, the store)\n"
               "at every point, one fault per run, each as a `fault when` line that must\n"
               "fire, with the file's expect lines and every invariant checked. Prints\n"
               "each failing placement with the command that runs it alone, then a tally\n"
               "that says whether the whole space ran; exit 1 when a run failed.\n"
               "  --kinds LIST  fault kinds on the menu, comma-separated (crash-task,\n"
               "                lose-rpc, ...; --list names them), or all (the default);\n"
               "                KIND=D puts a kind on the menu at a window of its own, and\n"
               "                a kind may be named at several (fail-store=12ms,fail-store)\n"
               "  --window D    how long a fault lasts: a crashed machine or coordinator\n"
               "                comes back after D, a lost or delayed RPC window lasts D, a\n"
               "                delay is D (default: the checkpoint interval)\n"
               "  --depth K     up to K faults (1 to 4): each placement of fewer is extended\n"
               "                by each fault of the menu at each point its run first\n"
               "                reaches after its last fault fired (after the single faults\n"
               "                and tie orders; 2 are pairs)\n"
               "  --then LIST   with --depth 2 or more: the menu of the second and later\n"
               "                faults, as --kinds says it (default: the first fault's)\n"
               "  --ties        also every order of simultaneous events one decision away\n"
               "                from the default: at each decision among events due at once,\n"
               "                each destination that could have gone first (schedule tie N\n"
               "                pick K), after the faults' placements\n"
               "  --tie-depth K orders up to K decisions away (1 to 16): each order of fewer\n"
               "                ties is extended at each decision its run makes after its\n"
               "                last tie; when no run of K ties made a decision after its\n"
               "                last, every order ran, and the tally says so\n"
               "  --list        print the points and the menu, run nothing\n"
               "  --only I      run placement I alone and print it as absim run does;\n"
               "                with -o OUT.scn write it as a scenario file instead\n"
               "  --shard I/N   only runs with number %% N == I (run 0 is the file as it is,\n"
               "                run i + 1 placement i); the tally says what part ran\n"
               "  --json        stdout is JSON lines only: a line per failing placement,\n"
               "                then the tally ({\"tally\":true,...})\n"
               "  --quiet       no progress line on stderr\n"
               "  --coverage FILE  every reach point's count over all runs (JSON)\n"
               "  --bug NAME    a deliberately wrong protocol (absim bugs --list)\n");
}

/* One item of --kinds or --then: KIND, or KIND=D (a window of its own). */
static bool parse_kind_item(const char *prog, const char *opt, const char *p, size_t n, explore_kinds *k) {
    size_t name_n = strcspn(p, "=,");
    const fk_info *f = NULL;
    for (uint32_t i = 0; fk_at(i) != NULL && f == NULL; i++) {
        if (strlen(fk_at(i)->name) == name_n && strncmp(fk_at(i)->name, p, name_n) == 0) f = fk_at(i);
    }
    if (f == NULL || (f->flags & FK_AT_TIME)) {
        fprintf(stderr, "%s: %s: '%.*s' is %s (--list names the kinds)\n", prog, opt, (int)name_n, p,
                f == NULL ? "no fault kind" : "a fault at a time only, never at a protocol point");
        return false;
    }
    if (name_n == n) {                               /* KIND: at the window */
        if (k->kinds >> f->kind & 1) {
            fprintf(stderr, "%s: %s: '%s' is named twice\n", prog, opt, f->name);
            return false;
        }
        k->kinds |= 1ull << f->kind;
        return true;
    }
    char d[64];
    sim_time_ns ns = 0;
    if (n - name_n - 1 >= sizeof d) {
        fprintf(stderr, "%s: %s: '%.*s': the length is too long\n", prog, opt, (int)n, p);
        return false;
    }
    snprintf(d, sizeof d, "%.*s", (int)(n - name_n - 1), p + name_n + 1);
    char err[SCN_ERR_BYTES];
    if (!spc_kind_timed(f)) {
        fprintf(stderr, "%s: %s: '%.*s': %s takes no length (it has no window and no delay)\n", prog, opt, (int)n, p,
                f->name);
        return false;
    }
    if (!scn_parse_duration(d, &ns, err, sizeof err)) {
        fprintf(stderr, "%s: %s: '%.*s': %s (a length as the scenario language writes it: 4ms, 1.5s)\n", prog, opt,
                (int)n, p, err);
        return false;
    }
    bool twice = false;
    for (uint32_t i = 0; i < k->lengths_count; i++) twice |= k->lengths[i].kind == f->kind && k->lengths[i].window_ns == ns;
    if (ns == 0 || twice || k->lengths_count == SPC_LENGTHS_MAX) {
        fprintf(stderr, "%s: %s: '%.*s': %s\n", prog, opt, (int)n, p,
                ns == 0 ? "the length must be above 0" : twice ? "named twice"
                        : "more kinds with a length of their own than the menu takes");
        return false;
    }
    k->lengths[k->lengths_count++] = (spc_length){ .kind = f->kind, .window_ns = ns };
    return true;
}

/* --kinds or --then: items comma-separated, or "all". */
static bool parse_kinds(const char *prog, const char *opt, const char *text, explore_kinds *k) {
    *k = (explore_kinds){ .text = text };
    if (strlen(text) > EXPLORE_OPT_BYTES) {          /* every command explore prints repeats it */
        fprintf(stderr, "%s: %s: at most %u bytes (every kind once is fewer)\n", prog, opt, EXPLORE_OPT_BYTES);
        return false;
    }
    if (strcmp(text, "all") == 0) {
        k->kinds = spc_kinds_all();
        return true;
    }
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, ",");
        if (n == 0 || (p[n] == ',' && p[n + 1] == '\0')) {
            fprintf(stderr, "%s: %s: an empty item (two commas, or one at an end)\n", prog, opt);
            return false;
        }
        if (!parse_kind_item(prog, opt, p, n, k)) return false;
        p += n + (p[n] == ',');
    }
    if (k->kinds == 0 && k->lengths_count == 0) fprintf(stderr, "%s: %s: no kind named\n", prog, opt);
    return k->kinds != 0 || k->lengths_count > 0;
}

/* --window D: a duration above 0, as the scenario language writes it. */
static bool parse_window(const char *prog, const char *text, explore_opts *o) {
    if (strlen(text) > EXPLORE_OPT_BYTES) {          /* every command explore prints repeats it */
        fprintf(stderr, "%s: --window: at most %u bytes\n", prog, EXPLORE_OPT_BYTES);
        return false;
    }
    if (!cli_view_time(prog, "--window", text, &o->window_ns)) return false;
    if (o->window_ns == 0) {
        fprintf(stderr, "%s: --window %s: must be above 0\n", prog, text);
        return false;
    }
    o->window_text = text;
    return true;
}

/* An option that names a menu, given once (a second would replace the first). */
static bool once(const char *prog, const char *opt, const char *given) {
    if (given != NULL) fprintf(stderr, "%s: %s given twice: name every kind in one list\n", prog, opt);
    return given == NULL;
}

/* The options; returns -1 when the command goes on, else the exit status. */
static int parse_opts(const char *prog, int argc, char **argv, explore_opts *o) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },  { "jobs", required_argument, NULL, 'j' },
        { "shard", required_argument, NULL, 'S' }, { "kinds", required_argument, NULL, 'k' },
        { "window", required_argument, NULL, 'w' }, { "bug", required_argument, NULL, 'b' },
        { "coverage", required_argument, NULL, 'C' }, { "json", no_argument, NULL, 'J' },
        { "quiet", no_argument, NULL, 'q' },       { "list", no_argument, NULL, 'l' },
        { "only", required_argument, NULL, 'O' },  { "out", required_argument, NULL, 'o' },
        { "ties", no_argument, NULL, 't' },        { "help", no_argument, NULL, 'h' },
        { "depth", required_argument, NULL, 'd' },  { "then", required_argument, NULL, 'T' },
        { "tie-depth", required_argument, NULL, 'D' },
        { NULL, 0, NULL, 0 },
    };
    *o = (explore_opts){ .shard_n = 1, .only = EXPLORE_NONE, .first = { .kinds = spc_kinds_all() }, .depth = 1 };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &o->seed)) return CLI_USAGE;
                  o->seed_given = true; break;
        case 'j': if (!cli_parse_u64(prog, "--jobs", optarg, 1, 256, &o->jobs)) return CLI_USAGE; break;
        case 'S': if (!cli_parse_shard(prog, optarg, &o->shard_i, &o->shard_n)) return CLI_USAGE; break;
        case 'k': if (!once(prog, "--kinds", o->first.text) || !parse_kinds(prog, "--kinds", optarg, &o->first)) return CLI_USAGE;
                  break;
        case 'T': if (!once(prog, "--then", o->then.text) || !parse_kinds(prog, "--then", optarg, &o->then)) return CLI_USAGE;
                  break;
        case 'w': if (!parse_window(prog, optarg, o)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &o->bug)) return CLI_USAGE; break;
        case 'C': o->coverage_path = optarg; break;
        case 'J': o->json = true; break;
        case 'q': o->quiet = true; break;
        case 'l': o->list = true; break;
        case 't': o->tie_depth = o->tie_depth > 1 ? o->tie_depth : 1; break;
        case 'D': if (!cli_parse_u64(prog, "--tie-depth", optarg, 1, CHOICE_TIES_MAX, &o->tie_depth)) return CLI_USAGE;
                  break;
        case 'd': if (!cli_parse_u64(prog, "--depth", optarg, 1, EXPLORE_DEPTH_MAX, &o->depth)) return CLI_USAGE; break;
        case 'O': if (!cli_parse_u64(prog, "--only", optarg, 0, UINT64_MAX - 1, &o->only)) return CLI_USAGE; break;
        case 'o': o->out = optarg; break;
        case 'h': explore_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (o->json && o->only != EXPLORE_NONE) {
        fprintf(stderr, "%s: --only prints the run as absim run does; --json is for the space's runs\n", prog);
        return CLI_USAGE;
    }
    if (o->out != NULL && o->only == EXPLORE_NONE) {
        fprintf(stderr, "%s: -o writes one placement's scenario: it needs --only I\n", prog);
        return CLI_USAGE;
    }
    if (o->then.text != NULL && o->depth < 2) {
        fprintf(stderr, "%s: --then names the second and later faults' menu: it needs --depth 2 or more\n", prog);
        return CLI_USAGE;
    }
    if (o->jobs == 0) o->jobs = cli_cores();
    return -1;
}

/* ---- the space ------------------------------------------------------------ */

static bool level_add_group(explore_level *l, uint64_t key, uint64_t width) {
    if (l->groups == EXPLORE_GROUPS_MAX) return false;
    if (l->groups == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->key = realloc(l->key, l->cap * sizeof *l->key);
        l->end = realloc(l->end, l->cap * sizeof *l->end);
        SIM_ASSERT(l->key != NULL && l->end != NULL);
    }
    SIM_ASSERT(width > 0);
    l->count += width;
    l->key[l->groups] = key;
    l->end[l->groups++] = l->count;
    return true;
}

/* A new level after the others: depth d of faults or of tie orders. */
static explore_level *level_new(explore_ctx *w, bool ties, uint32_t depth) {
    SIM_ASSERT(w->levels < EXPLORE_DEPTH_MAX + CHOICE_TIES_MAX);
    explore_level *l = &w->lv[w->levels];
    *l = (explore_level){ .ties = ties, .depth = depth, .parent = -1 };
    for (uint32_t k = 0; k < w->levels; k++) {
        if (w->lv[k].ties == ties && w->lv[k].depth + 1 == depth) l->parent = (int32_t)k;
    }
    SIM_ASSERT((depth == 1) == (l->parent < 0));
    l->from = w->levels == 0 ? 0 : w->lv[w->levels - 1].from + w->lv[w->levels - 1].count;
    w->levels++;
    return l;
}

/* The first index of a (n entries, non-decreasing) above v. */
static uint64_t first_above(const uint64_t *a, uint64_t n, uint64_t v) {
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (a[mid] > v) hi = mid; else lo = mid + 1;
    }
    return lo;
}

/* Placement i's level, its group there and its place in the group; the
 * placement it extends, or EXPLORE_NONE at depth 1. */
static uint64_t locate(const explore_ctx *w, uint64_t i, const explore_level **lp, uint64_t *g, uint64_t *within) {
    const explore_level *l = NULL;
    for (uint32_t k = 0; k < w->levels && l == NULL; k++) {
        if (i >= w->lv[k].from && i - w->lv[k].from < w->lv[k].count) l = &w->lv[k];
    }
    SIM_ASSERT(l != NULL);
    uint64_t j = i - l->from;
    *g = first_above(l->end, l->groups, j);
    SIM_ASSERT(*g < l->groups);
    *within = j - (*g > 0 ? l->end[*g - 1] : 0);
    *lp = l;
    if (l->parent < 0) return EXPLORE_NONE;
    const explore_level *up = &w->lv[l->parent];
    uint64_t p = first_above(l->parent_end, up->count, *g);
    SIM_ASSERT(p < up->count);
    return up->from + p;
}

/* The menu's window: --window, else the checkpoint interval (10 ms
 * without checkpoints). */
static sim_time_ns window_of(const explore_ctx *w) {
    const pipe_cfg *c = &w->s->cfg;
    return w->opt->window_ns > 0 ? w->opt->window_ns : c->ckpt.enabled ? c->ckpt.interval_ns : 10 * SIM_NS_PER_MS;
}

/* s with placement i of the space added (i == EXPLORE_NONE: as it is):
 * the placement it extends, then its own fault line or schedule tie. */
static void with_placement(const explore_ctx *w, uint64_t i, scn *out) {
    if (i == EXPLORE_NONE) {
        *out = *w->s;
        return;
    }
    const explore_level *l;
    uint64_t g, within;
    with_placement(w, locate(w, i, &l, &g, &within), out);
    if (l->ties) {                                   /* decision key[g]: ready destination within + 1 first */
        SIM_ASSERT(out->cfg.ties_count < CHOICE_TIES_MAX);   /* --tie-depth is at most CHOICE_TIES_MAX */
        out->cfg.ties[out->cfg.ties_count++] = (choice_tie){ .at = l->key[g], .pick = (uint32_t)(within + 1) };
        return;
    }
    SIM_ASSERT(out->faults_count < SCN_FAULTS_MAX);   /* find_space refused a script too full for --depth */
    scn_fault *f = &out->faults[out->faults_count++];
    *f = (l->depth == 1 ? w->menu : w->menu2)->faults[within];
    spc_point_of_key(l->key[g], f);
    f->at_ns = 0;
    f->optional = false;
    f->line = 0;
}

/* Level 1 of the tie orders: each decision of the discovery run, each
 * destination that could have gone first instead. */
static bool tie_level_one(const char *prog, explore_ctx *w) {
    if (w->dev.log_overflow) {
        fprintf(stderr, "%s: %s: the space is too big to explore exhaustively: more than %u decisions among "
                "simultaneous events; explore a smaller job\n", prog, w->s->path, EXPLORE_TIES_MAX);
        return false;
    }
    explore_level *l = level_new(w, true, 1);
    w->decisions = w->dev.seen;
    for (uint64_t d = 1; d <= w->dev.seen; d++) {
        SIM_ASSERT(w->dev.log[d - 1] > 1);
        if (!level_add_group(l, d, w->dev.log[d - 1] - 1u)) return false;   /* EXPLORE_TIES_MAX < EXPLORE_GROUPS_MAX */
    }
    return true;
}

/* Placement i's run (its lines, and the file's), without the checkers:
 * observed for the points it reaches into pts, or with its schedule tie
 * lines for the decisions it makes into w->dev. */
static bool observe(explore_ctx *w, uint64_t i, scn *s, spc_points *pts, char *err, size_t n) {
    with_placement(w, i, s);
    s->cfg.ties_counted = pts == NULL;
    pipeline *p = pipe_create(&s->cfg, err, n);
    if (p == NULL) return false;
    if (pts != NULL) spc_points_reset(pts, pipe_job(p));
    if (pts == NULL) {
        w->dev.count = s->cfg.ties_count;
        memcpy(w->dev.ties, s->cfg.ties, sizeof w->dev.ties);
        choice_deviate(pipe_sim(p), &w->dev);
    }
    scn_armed *arm = malloc(sizeof *arm);
    SIM_ASSERT(arm != NULL);
    scn_arm_faults(s, p, arm, pts != NULL ? spc_points_observe : NULL, pts);
    pipe_run(p);
    free(arm);
    pipe_destroy(p);
    if (pts != NULL) pts->j = NULL;               /* the job went with the pipeline */
    return true;
}

/* The points of pts first reached after point `key` (where the last
 * fault fired), each a group of l. A commit point a line could not name
 * apart from an earlier commit of the same task (`commits n` fires at
 * the first commit covering n, and a restore commits older ones) is left
 * out: its line would fire before the last fault. */
static bool groups_after_point(explore_level *l, const spc_points *pts, uint64_t key, uint64_t width) {
    uint32_t at = 0;
    while (at < pts->count && spc_point_key(&pts->at[at]) != key) at++;
    for (uint32_t k = at + 1; k < pts->count; k++) {
        const scn_fault *x = &pts->at[k];
        bool shadowed = false;
        for (uint32_t b = 0; b < k && x->point == SCN_WHEN_COMMITS && !shadowed; b++) {
            const scn_fault *y = &pts->at[b];
            shadowed = y->point == SCN_WHEN_COMMITS && y->point_vertex == x->point_vertex &&
                       y->point_subtask == x->point_subtask && y->point_ckpt >= x->point_ckpt;
        }
        if (!shadowed && !level_add_group(l, spc_point_key(x), width)) return false;
    }
    return true;
}

/* The decisions of w->dev's run after decision `last` (where the last
 * tie applied), each a group of l: its destinations but the first. */
static bool groups_after_decision(const char *prog, explore_ctx *w, explore_level *l, uint64_t last) {
    if (w->dev.log_overflow) {
        fprintf(stderr, "%s: %s: the space is too big to explore exhaustively: a run makes more than %u decisions "
                "among simultaneous events; explore a smaller job\n", prog, w->s->path, EXPLORE_TIES_MAX);
        return false;
    }
    for (uint64_t d = last + 1; d <= w->dev.seen; d++) {
        if (level_add_group(l, d, w->dev.log[d - 1] - 1u)) continue;
        fprintf(stderr, "%s: %s: --tie-depth %u: the space is too big to explore exhaustively: the runs make more than %u "
                "decisions after their last tie; explore a smaller job or a smaller --tie-depth\n", prog, w->s->path,
                l->depth, EXPLORE_GROUPS_MAX);
        return false;
    }
    return true;
}

/* Level `up`'s placements' runs, each observed once (no checkers), give
 * the level after it: for each, the points its run first reaches after
 * its last fault fired (each fault of the second menu there), or the
 * decisions its run makes after its last tie (each other destination
 * first). False after saying why. */
static bool next_level(const char *prog, explore_ctx *w, uint32_t up) {
    char err[SCN_ERR_BYTES];
    bool ties = w->lv[up].ties;
    explore_level *l = level_new(w, ties, w->lv[up].depth + 1);
    const explore_level *u = &w->lv[up];
    l->parent_end = malloc((u->count ? u->count : 1) * sizeof *l->parent_end);
    scn *s = malloc(sizeof *s);
    spc_points pts = { 0 };
    bool ok = l->parent_end != NULL && s != NULL && (ties || spc_points_init(&pts, NULL));
    if (!ok) fprintf(stderr, "%s: %s: out of memory\n", prog, w->s->path);
    double shown = cli_now_s();
    for (uint64_t i = 0; ok && i < u->count; i++) {
        if (!w->opt->quiet && cli_now_s() - shown >= 3.0) {
            shown = cli_now_s();
            fprintf(stderr, "explore: %s %u: %" PRIu64 "/%" PRIu64 " runs of %s observed\n", ties ? "--tie-depth" : "--depth",
                    l->depth, i, u->count, ties ? "tie orders" : "placements");
        }
        const explore_level *self;
        uint64_t g, within;
        locate(w, u->from + i, &self, &g, &within);
        ok = observe(w, u->from + i, s, ties ? NULL : &pts, err, sizeof err);
        if (!ok) fprintf(stderr, "%s: %s: %s\n", prog, w->s->path, err);
        if (ok && ties) {
            ok = groups_after_decision(prog, w, l, u->key[g]);
        } else if (ok) {
            ok = !pts.overflow && groups_after_point(l, &pts, u->key[g], w->menu2->count);
            if (!ok) fprintf(stderr, "%s: %s: --depth %u: the space is too big to explore exhaustively: %s %u; explore "
                             "a smaller job or fewer --kinds or --then\n", prog, w->s->path, l->depth,
                             pts.overflow ? "a placement's run reaches more protocol points than"
                                          : "the runs reach more points after their last fault than",
                             pts.overflow ? SPC_POINTS_MAX : EXPLORE_GROUPS_MAX);
        }
        if (ok) l->parent_end[i] = l->groups;
    }
    if (pts.seen != NULL) spc_points_free(&pts);
    free(s);
    return ok;
}

/* The menu of kinds k (the window theirs, else --window's) for job j. */
static void build_menu(const explore_ctx *w, const explore_kinds *k, const job *j, scn *scratch, spc_menu *m) {
    spc_opts so = { .kinds = k->kinds, .window_ns = window_of(w), .lengths_count = k->lengths_count };
    memcpy(so.lengths, k->lengths, sizeof so.lengths);
    spc_menu_build(w->s, j, &so, scratch, m);
}

/* The discovery run: s as it is, observed for its points (and, with
 * --ties, its decisions); the menus of its job. False after saying why. */
static bool discover(const char *prog, explore_ctx *w) {
    char err[SCN_ERR_BYTES];
    scn *s = w->s;
    pipe_cfg *cfg = malloc(sizeof *cfg);
    SIM_ASSERT(cfg != NULL);
    *cfg = s->cfg;
    cfg->ties_counted = w->opt->tie_depth > 0;   /* simultaneous events meet the choice point, in the default order */
    pipeline *p = pipe_create(cfg, err, sizeof err);
    free(cfg);
    if (p != NULL && w->opt->tie_depth > 0) choice_deviate(pipe_sim(p), &w->dev);   /* counts them, and how many were ready */
    scn *scratch = malloc(sizeof *scratch);
    w->menu = malloc(sizeof *w->menu);
    w->menu2 = w->opt->then.text != NULL ? malloc(sizeof *w->menu2) : w->menu;
    if (p == NULL || scratch == NULL || w->menu == NULL || w->menu2 == NULL || !spc_points_init(&w->pts, pipe_job(p))) {
        fprintf(stderr, "%s: %s: %s\n", prog, s->path, p == NULL ? err : "out of memory");
        pipe_destroy(p);
        free(scratch);
        return false;
    }
    scn_armed *arm = malloc(sizeof *arm);
    SIM_ASSERT(arm != NULL);
    scn_arm_faults(s, p, arm, spc_points_observe, &w->pts);
    pipe_run(p);
    build_menu(w, &w->opt->first, pipe_job(p), scratch, w->menu);
    if (w->menu2 != w->menu) build_menu(w, &w->opt->then, pipe_job(p), scratch, w->menu2);
    free(arm);
    free(scratch);
    pipe_destroy(p);
    w->pts.j = NULL;                              /* the job went with the pipeline */
    return true;
}

/* The discovery run, then the levels: faults at depth 1, tie orders at
 * depth 1, faults at depth 2, ... False after saying why (the run could
 * not start, or the space is beyond the bounds). */
static bool find_space(const char *prog, explore_ctx *w) {
    char err[SCN_ERR_BYTES];
    scn *s = w->s;
    if (!cli_memory_ok(&s->cfg, 1, false, err, sizeof err)) {
        fprintf(stderr, "%s: %s: %s\n", prog, s->path, err);
        return false;
    }
    if (w->opt->depth > 1 && s->faults_count + w->opt->depth > SCN_FAULTS_MAX) {   /* depth 1: the menu refuses */
        fprintf(stderr, "%s: %s: --depth %" PRIu64 " adds up to %" PRIu64 " fault lines, and the script has room for %u "
                "in all\n", prog, s->path, w->opt->depth, w->opt->depth, SCN_FAULTS_MAX);
        return false;
    }
    if (!discover(prog, w)) return false;
    if (w->pts.overflow || w->menu->beyond > 0 || w->menu2->beyond > 0) {
        fprintf(stderr, "%s: %s: the space is too big to explore exhaustively: more than %u %s; explore a smaller "
                "job (fewer records, checkpoints, tasks) or fewer --kinds or --then\n", prog, s->path,
                w->pts.overflow ? SPC_POINTS_MAX : SPC_MENU_MAX, w->pts.overflow ? "protocol points" : "faults on the menu");
        return false;
    }
    const spc_menu *empty = w->menu->count == 0 ? w->menu : w->menu2->count == 0 ? w->menu2 : NULL;
    if (empty != NULL || w->pts.count == 0) {
        fprintf(stderr, "%s: %s: nothing to explore: %s%s%s%s\n", prog, s->path,
                w->pts.count == 0 ? "the run reaches no protocol point (no checkpoint?)" : "no fault of ",
                w->pts.count == 0 ? "" : empty == w->menu ? "--kinds fits this job" : "--then fits this job",
                empty != NULL && empty->refused > 0 ? "; the reader refused them: " : "",
                empty != NULL && empty->refused > 0 ? empty->first_refusal : "");
        return false;
    }
    explore_level *faults = level_new(w, false, 1);
    for (uint32_t i = 0; i < w->pts.count; i++) {
        bool added = level_add_group(faults, spc_point_key(&w->pts.at[i]), w->menu->count);
        SIM_ASSERT(added);                           /* SPC_POINTS_MAX < EXPLORE_GROUPS_MAX */
    }
    if (w->opt->tie_depth > 0 && !tie_level_one(prog, w)) return false;
    uint64_t deepest = w->opt->depth > w->opt->tie_depth ? w->opt->depth : w->opt->tie_depth;
    for (uint32_t d = 2; d <= deepest; d++) {
        uint32_t up = w->levels;
        for (uint32_t k = w->levels; k-- > 0;) {
            if (w->lv[k].depth == d - 1) up = k;     /* the faults' level d - 1, then the ties' */
        }
        for (uint32_t k = up, n = w->levels; k < n; k++) {
            if (d > (w->lv[k].ties ? w->opt->tie_depth : w->opt->depth)) continue;
            if (!next_level(prog, w, k)) return false;
        }
    }
    const explore_level *last = &w->lv[w->levels - 1];
    w->placements = last->from + last->count;
    w->tasks = w->placements + 1;
    return true;
}

/* The levels of one kind, and their placements. */
static uint64_t placements_of(const explore_ctx *w, bool ties, uint32_t depth) {
    uint64_t n = 0;
    for (uint32_t k = 0; k < w->levels; k++) {
        if (w->lv[k].ties == ties && (depth == 0 || w->lv[k].depth == depth)) n += w->lv[k].count;
    }
    return n;
}

/* Placement i as the lines that add it: its fault lines, or its
 * schedule tie lines, joined by "; ". */
static const char *placement_text(const explore_ctx *w, uint64_t i, char *buf, size_t n) {
    SIM_ASSERT(n >= EXPLORE_LINE_BYTES);
    scn *s = malloc(sizeof *s);
    SIM_ASSERT(s != NULL);
    with_placement(w, i, s);
    const explore_level *l;
    uint64_t g, within;
    locate(w, i, &l, &g, &within);
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < l->depth; k++) {
        char line[SCN_FAULT_TEXT_BYTES];
        if (l->ties) {
            const choice_tie *t = &s->cfg.ties[s->cfg.ties_count - l->depth + k];
            snprintf(line, sizeof line, "schedule tie %" PRIu64 " pick %u", t->at, t->pick);
        } else {
            scn_fault_text(s, &s->faults[s->faults_count - l->depth + k], line, sizeof line);
        }
        used += (size_t)snprintf(buf + used, n - used, "%s%s", k > 0 ? "; " : "", line);
        SIM_ASSERT(used < n);
    }
    free(s);
    return buf;
}

/* A level after the first, as the head line adds it. */
static void print_level(FILE *out, const explore_ctx *w, const explore_level *l) {
    const char *then = w->menu2 != w->menu ? " of --then" : "";
    if (l->ties && l->depth == 1) {
        fprintf(out, ", and %" PRIu64 " tie orders (%" PRIu64 " decisions among simultaneous events, each destination "
                "that could have gone first instead)", l->count, w->decisions);
    } else if (l->ties) {
        fprintf(out, ", and %" PRIu64 " orders of %u ties (%" PRIu64 " decisions the runs of orders of %u make after "
                "their last tie, each destination that could have gone first instead)", l->count, l->depth, l->groups,
                l->depth - 1);
    } else if (l->depth == 2) {
        fprintf(out, ", and %" PRIu64 " pairs (%" PRIu64 " points the placements' runs first reach after their fault "
                "fired x %u faults%s)", l->count, l->groups, w->menu2->count, then);
    } else {
        fprintf(out, ", and %" PRIu64 " placements of %u faults (%" PRIu64 " points the runs of placements of %u first "
                "reach after their last fault fired x %u faults%s)", l->count, l->depth, l->groups, l->depth - 1,
                w->menu2->count, then);
    }
}

static void print_head(FILE *out, const explore_ctx *w) {
    char d[32];
    fprintf(out, "explore: %s, seed %" PRIu64 "%s%s: %u points x %u faults = %" PRIu64 " placements (window %s",
            w->s->path, w->s->cfg.seed, w->opt->bug ? ", bug " : "", w->opt->bug ? pipe_bug_name(w->opt->bug) : "",
            w->pts.count, w->menu->count, w->lv[0].count, scn_duration_text(d, sizeof d, window_of(w)));
    if (w->opt->first.lengths_count + w->opt->then.lengths_count > 0) fprintf(out, "; some kinds at lengths of their own");
    if (w->menu->refused > 0) fprintf(out, "; %u faults the reader refused here, as: %s", w->menu->refused,
                                      w->menu->first_refusal);
    if (w->pts.unnamed > 0) fprintf(out, "; %" PRIu64 " steps no fault line can name, left out", w->pts.unnamed);
    fprintf(out, ")");
    for (uint32_t k = 1; k < w->levels; k++) print_level(out, w, &w->lv[k]);
    fprintf(out, "\n");
}

static bool on_menu(const explore_kinds *k, uint32_t kind) {
    bool on = (k->kinds >> kind & 1) != 0;
    for (uint32_t i = 0; i < k->lengths_count && !on; i++) on = k->lengths[i].kind == kind;
    return on;
}

/* --list: the points, in the order the run reached them, and the menu. */
static int print_list(const explore_ctx *w) {
    char text[SCN_FAULT_TEXT_BYTES], d[32];
    print_head(stdout, w);
    printf("points, in the order the run reached them:\n");
    for (uint32_t i = 0; i < w->pts.count; i++) {
        printf("  %4u  %s  (t=%s)\n", i, scn_point_text(w->s, &w->pts.at[i], text, sizeof text),
               scn_duration_text(d, sizeof d, w->pts.at_ns[i]));
    }
    printf("menu, placement i is point i / %u with fault i %% %u:\n", w->menu->count, w->menu->count);
    for (uint32_t i = 0; i < w->menu->count; i++) {
        printf("  %4u  %s\n", i, scn_fault_what(w->s, &w->menu->faults[i], text, sizeof text));
    }
    if (w->menu2 != w->menu) {
        printf("the second and later faults' menu (--then):\n");
        for (uint32_t i = 0; i < w->menu2->count; i++) {
            printf("  %4u  %s\n", i, scn_fault_what(w->s, &w->menu2->faults[i], text, sizeof text));
        }
    }
    for (uint32_t k = 1; k < w->levels; k++) {
        const explore_level *l = &w->lv[k];
        if (l->count == 0) continue;
        printf("%s, placements %" PRIu64 " to %" PRIu64 ": ", l->ties ? "tie orders" : l->depth == 2 ? "pairs" : "faults",
               l->from, l->from + l->count - 1);
        if (l->ties && l->depth == 1) {
            printf("at decision d among simultaneous events (of %" PRIu64 "), each destination k but the first "
                   "(schedule tie d pick k)\n", w->decisions);
        } else if (l->ties) {
            printf("an order of %u tie%s, then at each decision its run makes after its last tie, each destination k but "
                   "the first, in that order (--only names them)\n", l->depth - 1, l->depth == 2 ? "" : "s");
        } else {
            printf("a placement of %u fault%s, then each fault of the %s at each point its run first reaches after its "
                   "last fault fired, in that order (--only names them)\n", l->depth - 1, l->depth == 2 ? "" : "s",
                   w->menu2 != w->menu ? "second menu" : "menu");
        }
    }
    for (uint32_t m = 0; m < (w->menu2 != w->menu ? 2u : 1u); m++) {
        const explore_kinds *x = m == 0 ? &w->opt->first : &w->opt->then;
        printf("%s", m == 0 ? "kinds:" : "kinds of the second and later faults (--then):");
        for (uint32_t i = 0; fk_at(i) != NULL; i++) {
            const fk_info *k = fk_at(i);
            printf(" %s%s", k->name, k->flags & FK_AT_TIME ? " (at a time only)" : on_menu(x, k->kind) ? "" : " (off)");
        }
        printf("\n");
    }
    return cli_stdout_ok("absim explore") ? CLI_OK : CLI_FAIL;
}

/* The options that name the space, as a command line says them: the
 * points and the menu depend on them, so every command printed repeats
 * them. */
static void space_args(const explore_ctx *w, char *buf, size_t n) {
    char word[EXPLORE_WORD_BYTES];
    const explore_opts *o = w->opt;
    size_t used = (size_t)snprintf(buf, n, "%s", cli_shell_word(w->s->path, word, sizeof word));
    if (o->seed_given && used < n) used += (size_t)snprintf(buf + used, n - used, " --seed %" PRIu64, o->seed);
    if (o->first.text != NULL && used < n) {
        used += (size_t)snprintf(buf + used, n - used, " --kinds %s", cli_shell_word(o->first.text, word, sizeof word));
    }
    if (o->window_text != NULL && used < n) {
        used += (size_t)snprintf(buf + used, n - used, " --window %s", cli_shell_word(o->window_text, word, sizeof word));
    }
    if (o->bug && used < n) used += (size_t)snprintf(buf + used, n - used, " --bug %s", pipe_bug_name(o->bug));
    if (o->tie_depth == 1 && used < n) used += (size_t)snprintf(buf + used, n - used, " --ties");
    if (o->tie_depth > 1 && used < n) used += (size_t)snprintf(buf + used, n - used, " --tie-depth %" PRIu64, o->tie_depth);
    if (o->depth > 1 && used < n) used += (size_t)snprintf(buf + used, n - used, " --depth %" PRIu64, o->depth);
    if (o->then.text != NULL && used < n) {
        used += (size_t)snprintf(buf + used, n - used, " --then %s", cli_shell_word(o->then.text, word, sizeof word));
    }
    SIM_ASSERT(used < n);                        /* the caller sizes buf for a path and the options */
}

/* --only I: placement I alone, told as absim run tells a run, or with -o
 * written as a scenario file. */
static int run_only(const char *prog, explore_ctx *w) {
    const explore_opts *o = w->opt;
    if (o->only >= w->placements) {
        fprintf(stderr, "%s: --only %" PRIu64 ": the space has %" PRIu64 " placements (0 to %" PRIu64 ")\n", prog,
                o->only, w->placements, w->placements - 1);
        return CLI_USAGE;
    }
    scn *s = malloc(sizeof *s);
    SIM_ASSERT(s != NULL);
    with_placement(w, o->only, s);
    char args[EXPLORE_ARGS_BYTES], line[EXPLORE_LINE_BYTES];
    space_args(w, args, sizeof args);
    placement_text(w, o->only, line, sizeof line);
    int rc;
    if (o->out != NULL) {
        cli_out f;
        rc = CLI_USAGE;
        if (cli_out_open(prog, "-o", o->out, &f)) {
            fprintf(f.f, "# Placement %" PRIu64 " of %" PRIu64 " of absim explore %s:\n# %s\n", o->only,
                    w->placements, args, line);
            scn_write(s, f.f);
            rc = cli_out_commit(prog, "-o", &f) ? CLI_OK : CLI_USAGE;
        }
    } else {
        printf("placement %" PRIu64 " of %" PRIu64 ": %s\n", o->only, w->placements, line);
        cli_outcome *out = malloc(sizeof *out);
        SIM_ASSERT(out != NULL);
        rc = cli_run_scenario(s, false, NULL, stdout, NULL, NULL, 0, NULL, out);
        if (rc == CLI_USAGE) fprintf(stderr, "%s: %s\n", prog, out->failures.count ? out->failures.text[0] : "cannot run");
        free(out);
        if (!cli_stdout_ok(prog)) rc = CLI_FAIL;
    }
    free(s);
    return rc;
}

/* ---- the runs --------------------------------------------------------------- */

static bool next_task(void *ctx, uint64_t *task) {
    explore_ctx *w = ctx;
    if (w->next >= w->tasks) return false;
    *task = w->next;
    w->next += w->opt->shard_n;
    return true;
}

static void work(void *ctx, uint64_t task, cli_task_result *out) {
    explore_ctx *w = ctx;
    scn *s = malloc(sizeof *s);
    SIM_ASSERT(s != NULL);
    with_placement(w, task == 0 ? EXPLORE_NONE : task - 1, s);
    cli_task_run(s, s->cfg.seed, w->opt->bug, false, out);
    free(s);
}

static void progress(explore_ctx *w, bool last) {
    double now = cli_now_s();
    if (w->opt->quiet || (!last && now - w->shown < 3.0)) return;
    w->shown = now;
    uint64_t total = (w->tasks - w->opt->shard_i + w->opt->shard_n - 1) / w->opt->shard_n;
    fprintf(stderr, "explore: %" PRIu64 "/%" PRIu64 " runs, %" PRIu64 " failed, %.0f runs/s\n", w->done, total,
            w->failed, now > w->t0 ? (double)w->done / (now - w->t0) : 0.0);
}

/* Keeps the failing runs first in order, whatever order they end in:
 * once the list is full, a run before the last kept takes its place. */
static void keep_fail(explore_ctx *w, uint64_t task, const cli_task_result *r) {
    uint64_t at = w->kept;
    if (w->kept == EXPLORE_FAILS_KEPT) {
        at = 0;
        for (uint64_t i = 1; i < w->kept; i++) at = w->fails[i].task > w->fails[at].task ? i : at;
        if (w->fails[at].task < task) return;
    } else {
        w->kept++;
    }
    w->fails[at] = (explore_fail){ .task = task, .r = *r };
}

/* --ties: whether a run of the deepest tie level made decisions after
 * its last tie (so orders with more ties exist), or died (unknown). */
static void note_orders(explore_ctx *w, uint64_t task, const cli_task_result *r) {
    if (w->opt->tie_depth == 0 || task == 0) return;
    const explore_level *l;
    uint64_t g, within;
    locate(w, task - 1, &l, &g, &within);
    if (!l->ties || l->depth != w->opt->tie_depth) return;
    if (r->died) w->orders_unknown++;
    else if (r->order_decisions > l->key[g]) w->orders_beyond++;
}

/* --ties: every order of simultaneous events ran: the whole space ran,
 * and no run of the deepest tie level made a decision after its last
 * tie (each level's placements are every way to extend the level
 * before; an empty level has no runs). */
static bool every_order(const explore_ctx *w, bool all) {
    return w->opt->tie_depth > 0 && all && w->opt->shard_n == 1 && w->orders_beyond == 0 && w->orders_unknown == 0;
}

static void done(void *ctx, uint64_t task, const cli_task_result *r) {
    explore_ctx *w = ctx;
    w->done++;
    note_orders(w, task, r);
    for (uint32_t i = 0; i < PIPE_REACH_COUNT; i++) w->reach[i] += r->reach[i];
    if (r->rc == CLI_OK) {
        w->passed++;
    } else {
        w->failed++;
        w->died += r->died;
        keep_fail(w, task, r);
    }
    progress(w, false);
}

static int by_task(const void *a, const void *b) {
    uint64_t x = ((const explore_fail *)a)->task, y = ((const explore_fail *)b)->task;
    return (x > y) - (x < y);
}

/* A failing run: its placement (or the file as it is), what failed, and
 * the command that runs it alone. */
static void print_fail(const explore_ctx *w, const explore_fail *x) {
    char args[EXPLORE_ARGS_BYTES], line[EXPLORE_LINE_BYTES], cmd[EXPLORE_ARGS_BYTES + 1200], joined[2048];
    space_args(w, args, sizeof args);
    bool file = x->task == 0;
    line[0] = '\0';
    if (!file) placement_text(w, x->task - 1, line, sizeof line);
    if (file) {                                  /* absim run takes the seed and the bug, not the space's options */
        char path[EXPLORE_WORD_BYTES];
        snprintf(cmd, sizeof cmd, "%s run %s", cli_self(), cli_shell_word(w->s->path, path, sizeof path));
        size_t used = strlen(cmd);
        if (w->opt->seed_given) used += (size_t)snprintf(cmd + used, sizeof cmd - used, " --seed %" PRIu64, w->opt->seed);
        if (w->opt->bug) snprintf(cmd + used, sizeof cmd - used, " --bug %s", pipe_bug_name(w->opt->bug));
    } else {
        snprintf(cmd, sizeof cmd, "%s explore %s --only %" PRIu64, cli_self(), args, x->task - 1);
    }
    cli_failures_join(&x->r.failures, joined, sizeof joined);
    if (!w->opt->json) {
        printf("FAIL %s%s: %s%s\n  run alone: %s\n", file ? "the file as it is" : "", line, x->r.died ? "the run died; " : "",
               joined, cmd);
        return;
    }
    printf("{\"placement\":");
    if (file) printf("null"); else printf("%" PRIu64, x->task - 1);
    printf(",\"fault\":");
    cli_json_string(stdout, file ? "" : line);
    printf(",\"trace_hash\":\"%016" PRIx64 "\",\"died\":%s,", x->r.trace_hash, x->r.died ? "true" : "false");
    cli_failures_json(stdout, &x->r.failures);
    printf(",\"run\":");
    cli_json_string(stdout, cmd);
    printf("}\n");
}

static uint64_t shard_runs(const explore_ctx *w) {
    const explore_opts *o = w->opt;
    return o->shard_i >= w->tasks ? 0 : (w->tasks - o->shard_i + o->shard_n - 1) / o->shard_n;
}

/* --ties: whether every order of simultaneous events ran, or what is
 * known of the orders beyond the deepest tie level. */
static void print_orders(FILE *out, const explore_ctx *w) {
    const explore_opts *o = w->opt;
    const char *s = o->tie_depth > 1 ? "s" : "";
    if (every_order(w, true)) {
        uint32_t most = 0;
        for (uint32_t k = 0; k < w->levels; k++) most = w->lv[k].ties && w->lv[k].count > 0 ? w->lv[k].depth : most;
        fprintf(out, "explore: every order of simultaneous events ran: the default one and %" PRIu64 " others (of 1 to "
                "%u ties); no run made a decision among simultaneous events after its last tie\n",
                placements_of(w, true, 0), most);
    } else if (w->orders_beyond > 0) {
        fprintf(out, "explore: every order with at most %" PRIu64 " tie%s ran%s; %" PRIu64 " of the runs with %" PRIu64
                " made decisions after their last tie, so more orders exist%s\n", o->tie_depth, s,
                o->shard_n > 1 ? " in this shard" : "", w->orders_beyond, o->tie_depth,
                o->tie_depth < CHOICE_TIES_MAX ? " (a larger --tie-depth reaches some)" : "");
    } else if (w->orders_unknown > 0) {
        fprintf(out, "explore: every order with at most %" PRIu64 " tie%s ran%s; whether more exist is unknown: %" PRIu64
                " of the runs with %" PRIu64 " died\n", o->tie_depth, s, o->shard_n > 1 ? " in this shard" : "",
                w->orders_unknown, o->tie_depth);
    } else {
        fprintf(out, "explore: every order with at most %" PRIu64 " tie%s ran in this shard, and none of its runs with %"
                PRIu64 " made a decision after its last tie; absim merge of every shard says whether every order "
                "ran\n", o->tie_depth, s, o->tie_depth);
    }
}

/* The closing tally: what ran, what failed, and whether the space was
 * covered (every placement ran: the whole space here, or this shard's
 * part of it). */
static void print_tally(const explore_ctx *w, double wall, bool ran) {
    const explore_opts *o = w->opt;
    uint64_t want = shard_runs(w);
    bool all = ran && w->done == want;
    bool complete = all && o->shard_n == 1;
    FILE *out = o->json ? stderr : stdout;
    fprintf(out, "explore: %" PRIu64 " runs (the file as it is and %" PRIu64 " placements", w->done,
            w->done - (o->shard_i == 0 && w->done > 0));
    if (o->shard_n > 1) fprintf(out, ", shard %" PRIu64 "/%" PRIu64 ": %" PRIu64 " of the space's %" PRIu64 " runs",
                                o->shard_i, o->shard_n, want, w->tasks);
    fprintf(out, "): %" PRIu64 " passed, %" PRIu64 " failed (%" PRIu64 " died) in %.1fs; %s\n", w->passed, w->failed,
            w->died, wall, complete ? "the space was covered completely: every placement ran, and took effect or failed the run"
            : all ? "this shard's part of the space ran completely; the other shards cover the rest"
                  : "the space was NOT covered: runs were left unstarted");
    if (o->tie_depth > 0 && all) print_orders(out, w);
    if (w->failed > w->kept) fprintf(out, "explore: %" PRIu64 " failing runs not listed (the first %u are)\n",
                                     w->failed - w->kept, EXPLORE_FAILS_KEPT);
    /* Runs to the first catch in the order of the space (run 0 the file
     * as it is): what a sequential exploration would have paid. */
    uint64_t first = UINT64_MAX;
    for (uint64_t i = 0; i < w->kept; i++) first = w->fails[i].task < first ? w->fails[i].task : first;
    if (first != UINT64_MAX && !o->json) {
        char what[48] = "the file as it is";
        if (first > 0) snprintf(what, sizeof what, "placement %" PRIu64, first - 1);
        fprintf(out, "explore: the first failing run is run %" PRIu64 " (%s; runs are numbered from 0, the file as it is, "
                "as --shard numbers them): %" PRIu64 " runs in the space's order find it\n", first, what, first + 1);
    }
    if (!o->json) return;
    printf("{\"tally\":true,\"file\":");
    cli_json_string(stdout, w->s->path);
    printf(",\"seed\":%" PRIu64 ",\"bug\":\"%s\",\"points\":%u,\"faults\":%u,\"placements\":%" PRIu64
           ",\"runs\":%" PRIu64 ",\"passed\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"died\":%" PRIu64
           ",\"shard\":\"%" PRIu64 "/%" PRIu64 "\",\"shard_runs\":%" PRIu64 ",\"complete\":%s,\"first_failing_run\":",
           w->s->cfg.seed, o->bug ? pipe_bug_name(o->bug) : "none", w->pts.count, w->menu->count,
           w->placements, w->done, w->passed, w->failed, w->died, o->shard_i, o->shard_n, want, complete ? "true" : "false");
    if (first == UINT64_MAX) printf("null"); else printf("%" PRIu64, first);   /* numbered as --shard numbers runs */
    printf(",\"seconds\":%.3f,\"ties\":%" PRIu64 ",\"depth\":%" PRIu64 ",\"pairs\":%" PRIu64 ",\"window_ns\":%" PRIu64,
           wall, placements_of(w, true, 0), o->depth, placements_of(w, false, 2), window_of(w));
    printf(",\"tie_depth\":%" PRIu64 ",\"orders_beyond\":%" PRIu64 ",\"orders_unknown\":%" PRIu64, o->tie_depth,
           w->orders_beyond, w->orders_unknown);
    printf(",\"every_order\":");
    if (o->tie_depth > 0) printf("%s", every_order(w, all) ? "true" : "false"); else printf("null");
    printf(",\"kinds\":");
    cli_json_string(stdout, o->first.text != NULL ? o->first.text : "all");
    printf(",\"then\":");
    if (o->then.text != NULL) cli_json_string(stdout, o->then.text); else printf("null");   /* the menu's */
    printf("}\n");
}

/* Every run of the shard on the pool, then the failing ones in order,
 * the tally and the coverage. */
static int run_space(const char *prog, explore_ctx *w) {
    const explore_opts *o = w->opt;
    cli_out cov = { 0 };
    if (o->coverage_path != NULL && o->json && strcmp(o->coverage_path, "-") == 0) {
        fprintf(stderr, "%s: --coverage -: with --json standard output carries the JSON lines only; name a file\n", prog);
        return CLI_USAGE;
    }
    if (!cli_out_open(prog, "--coverage", o->coverage_path, &cov)) return CLI_USAGE;
    w->fails = calloc(EXPLORE_FAILS_KEPT, sizeof *w->fails);
    SIM_ASSERT(w->fails != NULL);
    if (!o->json) print_head(stdout, w);
    w->next = o->shard_i;
    w->t0 = w->shown = cli_now_s();
    bool ran = cli_pool(prog, o->jobs, w, next_task, work, done);
    double wall = cli_now_s() - w->t0;
    progress(w, true);
    qsort(w->fails, w->kept, sizeof *w->fails, by_task);
    for (uint64_t i = 0; i < w->kept; i++) print_fail(w, &w->fails[i]);
    print_tally(w, wall, ran);
    if (o->coverage_path != NULL) {
        cli_cov_report(o->json ? stderr : stdout, w->reach);
        cli_cov_write(cov.f, w->reach);          /* a failed write shows at the commit */
    }
    bool written = cli_out_commit(prog, "--coverage", &cov);
    free(w->fails);
    if (!cli_stdout_ok(prog) || !written) return CLI_USAGE;
    return ran && w->failed == 0 && w->done == shard_runs(w) ? CLI_OK : CLI_FAIL;
}

/* The observation runs freed their pipelines, but glibc keeps the pages:
 * every child the pool forks would copy their page tables (measured: an
 * exploration of 1,161 runs took 31 s with them, 8 s without). */
static void trim_heap(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

int cli_explore(int argc, char **argv) {
    const char *prog = "absim explore";
    explore_opts o;
    int rc = parse_opts(prog, argc, argv, &o);
    if (rc >= 0) return rc;
    explore_ctx w = { .opt = &o };
    w.s = cli_load_scenario(prog, argc, argv, o.seed_given, o.seed);
    if (w.s == NULL) return CLI_USAGE;
    w.s->cfg.bug = o.bug;
    char err[SCN_ERR_BYTES];
    if (o.tie_depth == 0 && !cli_pct_resolve(w.s, &w.s->cfg, err, sizeof err)) {   /* one PCT run per placement, one K for all */
        fprintf(stderr, "%s: %s: %s\n", prog, w.s->path, err);
        free(w.s);
        return CLI_USAGE;
    }
    if (o.tie_depth > 0) {
        w.dev.log = malloc(EXPLORE_TIES_MAX * sizeof *w.dev.log);
        w.dev.log_cap = EXPLORE_TIES_MAX;
        SIM_ASSERT(w.dev.log != NULL);
    }
    if (o.tie_depth > 0 && w.s->cfg.ties_count > 0) {
        fprintf(stderr, "%s: --ties: %s already deviates from the default order (schedule tie %" PRIu64 " pick %u): "
                "explore the tie orders of a file without a schedule line\n", prog, w.s->path, w.s->cfg.ties[0].at,
                w.s->cfg.ties[0].pick);
        rc = CLI_USAGE;
    } else if (o.tie_depth > 0 && w.s->cfg.pct_depth > 0) {
        fprintf(stderr, "%s: --ties: %s orders simultaneous events by PCT (schedule pct): explore the tie orders of a "
                "file without a schedule line\n", prog, w.s->path);
        rc = CLI_USAGE;
    } else if (!find_space(prog, &w)) {
        rc = CLI_USAGE;
    } else {
        trim_heap();
        rc = o.list ? print_list(&w) : o.only != EXPLORE_NONE ? run_only(prog, &w) : run_space(prog, &w);
    }
    spc_points_free(&w.pts);
    free(w.dev.log);
    for (uint32_t k = 0; k < w.levels; k++) {
        free(w.lv[k].key);
        free(w.lv[k].end);
        free(w.lv[k].parent_end);
    }
    if (w.menu2 != w.menu) free(w.menu2);
    free(w.menu);
    free(w.s);
    return rc;
}
