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
 * is the bound; runs after it do not branch again. With --depth 2 the
 * bound is two: each placement's run is observed once more (no checkers)
 * for the points it first reaches after its fault fired, and every menu
 * fault at each of those is a pair, numbered after the single faults and
 * the tie orders (--ties); the second line fires after the first, as the
 * run is the placement's run until then.
 *
 * Every failing placement is printed (the first EXPLORE_FAILS_KEPT, in
 * placement order, whatever --jobs) with the command that runs it alone:
 * `absim explore FILE --only I` (the same options), which prints the run
 * as `absim run` does and with -o writes the placement's scenario file,
 * for explain, shrink and scenarios/regress/. */
#include <getopt.h>
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
#define EXPLORE_AFTER_MAX  (1u << 24)    /* --depth 2: points first reached after the first fault, over all its runs */
#define EXPLORE_LINE_BYTES (2u * SCN_FAULT_TEXT_BYTES + 8)   /* a placement: a line, or two joined by "; " */

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
    bool          seed_given, json, quiet, list, ties;
    explore_kinds first, then;        /* then.text NULL: the second fault's menu is the first's */
    sim_time_ns   window_ns;          /* 0: the checkpoint interval (10 ms without checkpoints) */
    pipe_bug      bug;
    const char   *coverage_path, *out, *window_text;
} explore_opts;

typedef struct explore_fail {
    uint64_t        task;
    cli_task_result r;
} explore_fail;

/* The exploration, shared by the pool's callbacks. Task 0 is the file as
 * it is, task i + 1 placement i; the shard keeps tasks with task % N == I. */
typedef struct explore_ctx {
    const explore_opts *opt;
    scn          *s;
    spc_points    pts;
    spc_menu     *menu;
    spc_menu     *menu2;              /* --depth 2: the second fault's (--then), else menu itself */
    uint64_t      placements, tasks, next;  /* placements: the faults' (fault_placements), then the tie orders' */
    uint64_t      fault_placements;
    choice_deviation dev;             /* --ties: the discovery run's decisions among simultaneous events ... */
    uint64_t     *tie_end;            /* ... tie_end[i]: the tie placements of decisions 0..i (each allows n - 1) */
    uint64_t      ties;
    uint64_t     *after_end;          /* --depth 2: after_end[i]: the points first reached after placement i's fault
                                         fired, in its run, counted over placements 0..i ... */
    uint64_t     *after_keys;         /* ... each (spc_point_key), placement by placement, in the order reached */
    uint64_t      after_count, pairs, pairs_from;   /* pairs: after_count x menu2, numbered from pairs_from */
    uint64_t      done, passed, failed, died;
    explore_fail *fails;              /* the first EXPLORE_FAILS_KEPT failing tasks, sorted at the end */
    uint64_t      kept;
    uint64_t      reach[PIPE_REACH_COUNT];
    double        t0, shown;
} explore_ctx;

static void explore_usage(FILE *f) {
    fprintf(f, "usage: absim explore FILE [--seed S] [--kinds LIST] [--window D] [--depth 2 [--then LIST]]\n"
               "                     [--bug NAME] [--jobs J] [--shard I/N] [--json] [--quiet] [--coverage FILE]\n"
               "       absim explore FILE --list [...]\n"
               "       absim explore FILE --only I [-o OUT.scn] [...]\n"
               "       (and --ties with any of them)\n"
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
               "  --depth 2     also every pair of faults: for each placement, a second fault\n"
               "                of the menu at each point its run first reaches after the\n"
               "                first fault fired (after the single faults and tie orders)\n"
               "  --then LIST   with --depth 2: the second fault's menu, as --kinds says it\n"
               "                (default: the first fault's)\n"
               "  --ties        also every order of simultaneous events one decision away\n"
               "                from the default: at each decision among events due at once,\n"
               "                each destination that could have gone first (schedule tie N\n"
               "                pick K), after the faults' placements\n"
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
        case 't': o->ties = true; break;
        case 'd': if (!cli_parse_u64(prog, "--depth", optarg, 1, 2, &o->depth)) return CLI_USAGE; break;
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
    if (o->then.text != NULL && o->depth != 2) {
        fprintf(stderr, "%s: --then names the second fault's menu: it needs --depth 2\n", prog);
        return CLI_USAGE;
    }
    if (o->jobs == 0) o->jobs = cli_cores();
    return -1;
}

/* ---- the space ------------------------------------------------------------ */

/* --ties: the deviations from the default order the discovery run
 * allows, one per decision among simultaneous events and destination
 * that could have gone first instead. */
static bool tie_space(const char *prog, explore_ctx *w) {
    if (w->dev.log_overflow) {
        fprintf(stderr, "%s: %s: the space is too big to explore exhaustively: more than %u decisions among "
                "simultaneous events; explore a smaller job\n", prog, w->s->path, EXPLORE_TIES_MAX);
        return false;
    }
    w->tie_end = malloc((w->dev.seen ? w->dev.seen : 1) * sizeof *w->tie_end);
    SIM_ASSERT(w->tie_end != NULL);
    for (uint64_t i = 0; i < w->dev.seen; i++) {
        SIM_ASSERT(w->dev.log[i] > 1);
        w->ties += w->dev.log[i] - 1u;
        w->tie_end[i] = w->ties;
    }
    return true;
}

/* The menu's window: --window, else the checkpoint interval (10 ms
 * without checkpoints). */
static sim_time_ns window_of(const explore_ctx *w) {
    const pipe_cfg *c = &w->s->cfg;
    return w->opt->window_ns > 0 ? w->opt->window_ns : c->ckpt.enabled ? c->ckpt.interval_ns : 10 * SIM_NS_PER_MS;
}

static void with_placement(const explore_ctx *w, uint64_t i, scn *out);

/* Placement i's run (its fault line, and the file's), without the
 * checkers, observed for the points it reaches, into pts. */
static bool placement_points(const explore_ctx *w, uint64_t i, scn *s, spc_points *pts, char *err, size_t n) {
    with_placement(w, i, s);
    pipeline *p = pipe_create(&s->cfg, err, n);
    if (p == NULL) return false;
    spc_points_reset(pts, pipe_job(p));
    scn_armed *arm = malloc(sizeof *arm);
    SIM_ASSERT(arm != NULL);
    scn_arm_faults(s, p, arm, spc_points_observe, pts);
    pipe_run(p);
    free(arm);
    pipe_destroy(p);
    pts->j = NULL;                                /* the job went with the pipeline */
    return true;
}

/* The points of pts first reached after point `key` (where the first
 * fault fired), appended to w->after_keys. A commit point a line could
 * not name apart from an earlier commit of the same task (`commits n`
 * fires at the first commit covering n, and a restore commits older
 * ones) is left out: its line would fire before the first fault. */
static bool append_after(explore_ctx *w, const spc_points *pts, uint64_t key, uint64_t *cap) {
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
        if (shadowed) continue;
        if (w->after_count == EXPLORE_AFTER_MAX) return false;
        if (w->after_count == *cap) {
            *cap *= 2;
            w->after_keys = realloc(w->after_keys, *cap * sizeof *w->after_keys);
            SIM_ASSERT(w->after_keys != NULL);
        }
        w->after_keys[w->after_count++] = spc_point_key(x);
    }
    return true;
}

/* --depth 2: each placement's run, for the points a second fault can sit
 * at; pairs = their count x the menu. False after saying why. */
static bool pair_space(const char *prog, explore_ctx *w) {
    char err[SCN_ERR_BYTES];
    uint64_t cap = 1024;
    w->after_end = malloc(w->fault_placements * sizeof *w->after_end);
    w->after_keys = malloc(cap * sizeof *w->after_keys);
    scn *s = malloc(sizeof *s);
    spc_points pts = { 0 };
    bool ok = w->after_end != NULL && w->after_keys != NULL && s != NULL && spc_points_init(&pts, NULL);
    if (!ok) fprintf(stderr, "%s: %s: out of memory\n", prog, w->s->path);
    bool full = ok && w->s->faults_count + 2 > SCN_FAULTS_MAX;
    if (full) fprintf(stderr, "%s: %s: --depth 2 adds two fault lines, and the script has room for %u in all\n", prog,
                      w->s->path, SCN_FAULTS_MAX);
    double shown = cli_now_s();
    for (uint64_t i = 0; ok && !full && i < w->fault_placements; i++) {
        if (!w->opt->quiet && cli_now_s() - shown >= 3.0) {
            shown = cli_now_s();
            fprintf(stderr, "explore: --depth 2: %" PRIu64 "/%" PRIu64 " placements' runs observed\n", i,
                    w->fault_placements);
        }
        ok = placement_points(w, i, s, &pts, err, sizeof err);
        if (!ok) fprintf(stderr, "%s: %s: %s\n", prog, w->s->path, err);
        full = ok && (pts.overflow || !append_after(w, &pts, spc_point_key(&w->pts.at[i / w->menu->count]), &cap));
        if (full) fprintf(stderr, "%s: %s: --depth 2: the space is too big to explore exhaustively: %s %u; explore a "
                          "smaller job or fewer --kinds or --then\n", prog, w->s->path,
                          pts.overflow ? "a placement's run reaches more protocol points than"
                                       : "the placements' runs reach more points after their fault than",
                          pts.overflow ? SPC_POINTS_MAX : EXPLORE_AFTER_MAX);
        if (ok && !full) w->after_end[i] = w->after_count;
    }
    if (pts.seen != NULL) spc_points_free(&pts);
    free(s);
    w->pairs = w->after_count * w->menu2->count;
    return ok && !full;
}

/* The menu of kinds k (the window theirs, else --window's) for job j. */
static void build_menu(const explore_ctx *w, const explore_kinds *k, const job *j, scn *scratch, spc_menu *m) {
    spc_opts so = { .kinds = k->kinds, .window_ns = window_of(w), .lengths_count = k->lengths_count };
    memcpy(so.lengths, k->lengths, sizeof so.lengths);
    spc_menu_build(w->s, j, &so, scratch, m);
}

/* One run of s as it is, observed for its points; the menu of its job.
 * False after saying why (the run could not start, or the space is
 * beyond the bounds). */
static bool find_space(const char *prog, explore_ctx *w) {
    char err[SCN_ERR_BYTES];
    scn *s = w->s;
    if (!cli_memory_ok(&s->cfg, 1, false, err, sizeof err)) {
        fprintf(stderr, "%s: %s: %s\n", prog, s->path, err);
        return false;
    }
    pipe_cfg *cfg = malloc(sizeof *cfg);
    SIM_ASSERT(cfg != NULL);
    *cfg = s->cfg;
    if (w->opt->ties) cfg->tie_at = UINT64_MAX;  /* simultaneous events meet the choice point, in the default order */
    pipeline *p = pipe_create(cfg, err, sizeof err);
    free(cfg);
    if (p != NULL && w->opt->ties) choice_deviate(pipe_sim(p), &w->dev);   /* counts them, and how many were ready */
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
    w->fault_placements = (uint64_t)w->pts.count * w->menu->count;
    if (w->opt->ties && !tie_space(prog, w)) return false;
    w->pairs_from = w->fault_placements + w->ties;
    if (w->opt->depth == 2 && !pair_space(prog, w)) return false;
    w->placements = w->pairs_from + w->pairs;
    w->tasks = w->placements + 1;
    return true;
}

/* Pair q (0 .. pairs): its first fault's placement, and its second
 * fault (the menu's, at a point first reached after the first fired). */
static uint64_t pair_of(const explore_ctx *w, uint64_t q, scn_fault *second) {
    SIM_ASSERT(q < w->pairs);
    uint64_t g = q / w->menu2->count, lo = 0, hi = w->fault_placements - 1;
    while (lo < hi) {                                 /* the first placement whose points end past g */
        uint64_t mid = lo + (hi - lo) / 2;
        if (w->after_end[mid] > g) hi = mid; else lo = mid + 1;
    }
    *second = w->menu2->faults[q % w->menu2->count];
    spc_point_of_key(w->after_keys[g], second);
    second->at_ns = 0;
    second->optional = false;
    second->line = 0;
    return lo;
}

/* s with placement i of the space added (i == EXPLORE_NONE: as it is). */
static void with_placement(const explore_ctx *w, uint64_t i, scn *out) {
    *out = *w->s;
    if (i == EXPLORE_NONE) return;
    if (i >= w->pairs_from) {                        /* two faults */
        scn_fault second;
        with_placement(w, pair_of(w, i - w->pairs_from, &second), out);
        SIM_ASSERT(out->faults_count < SCN_FAULTS_MAX);   /* pair_space refused a script too full for both */
        out->faults[out->faults_count++] = second;
        return;
    }
    if (i >= w->fault_placements) {                  /* a tie order: decision d, the k-th ready destination first */
        uint64_t j = i - w->fault_placements, lo = 0, hi = w->dev.seen - 1;
        SIM_ASSERT(j < w->ties);
        while (lo < hi) {                             /* the first decision whose placements end past j */
            uint64_t mid = lo + (hi - lo) / 2;
            if (w->tie_end[mid] > j) hi = mid; else lo = mid + 1;
        }
        uint64_t before = lo > 0 ? w->tie_end[lo - 1] : 0;
        out->cfg.tie_at = lo + 1;
        out->cfg.tie_pick = (uint32_t)(j - before + 1);
        return;
    }
    SIM_ASSERT(out->faults_count < SCN_FAULTS_MAX);   /* spc_menu_build refused faults that did not fit */
    scn_fault *f = &out->faults[out->faults_count++];
    spc_place(&w->pts, w->menu, i, f);
    f->line = 0;
}

/* Placement i as the lines that add it: a fault line, a schedule line,
 * or two fault lines joined by "; ". */
static const char *placement_text(const explore_ctx *w, uint64_t i, char *buf, size_t n) {
    SIM_ASSERT(n >= EXPLORE_LINE_BYTES);
    scn *s = malloc(sizeof *s);
    SIM_ASSERT(s != NULL);
    with_placement(w, i, s);
    if (i >= w->pairs_from) {
        char first[SCN_FAULT_TEXT_BYTES], second[SCN_FAULT_TEXT_BYTES];
        scn_fault_text(s, &s->faults[s->faults_count - 2], first, sizeof first);
        scn_fault_text(s, &s->faults[s->faults_count - 1], second, sizeof second);
        snprintf(buf, n, "%s; %s", first, second);
    } else if (i >= w->fault_placements) {
        snprintf(buf, n, "schedule tie %" PRIu64 " pick %u", s->cfg.tie_at, s->cfg.tie_pick);
    } else {
        scn_fault_text(s, &s->faults[s->faults_count - 1], buf, n);
    }
    free(s);
    return buf;
}




static void print_head(FILE *out, const explore_ctx *w) {
    char d[32];
    fprintf(out, "explore: %s, seed %" PRIu64 "%s%s: %u points x %u faults = %" PRIu64 " placements (window %s",
            w->s->path, w->s->cfg.seed, w->opt->bug ? ", bug " : "", w->opt->bug ? pipe_bug_name(w->opt->bug) : "",
            w->pts.count, w->menu->count, w->fault_placements, scn_duration_text(d, sizeof d, window_of(w)));
    if (w->opt->first.lengths_count + w->opt->then.lengths_count > 0) fprintf(out, "; some kinds at lengths of their own");
    if (w->menu->refused > 0) fprintf(out, "; %u faults the reader refused here, as: %s", w->menu->refused,
                                      w->menu->first_refusal);
    if (w->pts.unnamed > 0) fprintf(out, "; %" PRIu64 " steps no fault line can name, left out", w->pts.unnamed);
    fprintf(out, ")");
    if (w->opt->ties) fprintf(out, ", and %" PRIu64 " tie orders (%" PRIu64 " decisions among simultaneous events, "
                              "each destination that could have gone first instead)", w->ties, w->dev.seen);
    if (w->opt->depth == 2) fprintf(out, ", and %" PRIu64 " pairs (%" PRIu64 " points the placements' runs first reach "
                                    "after their fault fired x %u faults%s)", w->pairs, w->after_count, w->menu2->count,
                                    w->menu2 != w->menu ? " of --then" : "");
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
    if (w->opt->ties) {
        printf("tie orders, placements %" PRIu64 " to %" PRIu64 ": at decision d among simultaneous events (of %" PRIu64
               "), each destination k but the first (schedule tie d pick k)\n", w->fault_placements,
               w->pairs_from - 1, w->dev.seen);
    }
    if (w->menu2 != w->menu) {
        printf("the second fault's menu (--then):\n");
        for (uint32_t i = 0; i < w->menu2->count; i++) {
            printf("  %4u  %s\n", i, scn_fault_what(w->s, &w->menu2->faults[i], text, sizeof text));
        }
    }
    if (w->pairs > 0) {
        printf("pairs, placements %" PRIu64 " to %" PRIu64 ": placement i's fault, then each fault of the %s at each "
               "point its run first reaches after it fired, in that order (--only names them)\n", w->pairs_from,
               w->placements - 1, w->menu2 != w->menu ? "second menu" : "menu");
    }
    for (uint32_t m = 0; m < (w->menu2 != w->menu ? 2u : 1u); m++) {
        const explore_kinds *x = m == 0 ? &w->opt->first : &w->opt->then;
        printf("%s", m == 0 ? "kinds:" : "kinds of the second fault (--then):");
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
    if (o->ties && used < n) used += (size_t)snprintf(buf + used, n - used, " --ties");
    if (o->depth == 2 && used < n) used += (size_t)snprintf(buf + used, n - used, " --depth 2");
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

static void done(void *ctx, uint64_t task, const cli_task_result *r) {
    explore_ctx *w = ctx;
    w->done++;
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
    printf(",\"seconds\":%.3f,\"ties\":%" PRIu64 ",\"depth\":%" PRIu64 ",\"pairs\":%" PRIu64 ",\"window_ns\":%" PRIu64
           ",\"kinds\":", wall, w->ties, o->depth, w->pairs, window_of(w));
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
    if (!o.ties && !cli_pct_resolve(w.s, &w.s->cfg, err, sizeof err)) {   /* one PCT run per placement, one K for all */
        fprintf(stderr, "%s: %s: %s\n", prog, w.s->path, err);
        free(w.s);
        return CLI_USAGE;
    }
    if (o.ties) {
        w.dev.log = malloc(EXPLORE_TIES_MAX * sizeof *w.dev.log);
        w.dev.log_cap = EXPLORE_TIES_MAX;
        SIM_ASSERT(w.dev.log != NULL);
    }
    if (o.ties && w.s->cfg.tie_at > 0) {
        fprintf(stderr, "%s: --ties: %s already deviates from the default order (schedule tie %" PRIu64 " pick %u): "
                "explore the tie orders of a file without a schedule line\n", prog, w.s->path, w.s->cfg.tie_at,
                w.s->cfg.tie_pick);
        rc = CLI_USAGE;
    } else if (o.ties && w.s->cfg.pct_depth > 0) {
        fprintf(stderr, "%s: --ties: %s orders simultaneous events by PCT (schedule pct): explore the tie orders of a "
                "file without a schedule line\n", prog, w.s->path);
        rc = CLI_USAGE;
    } else if (!find_space(prog, &w)) {
        rc = CLI_USAGE;
    } else if (o.list) {
        rc = print_list(&w);
    } else if (o.only != EXPLORE_NONE) {
        rc = run_only(prog, &w);
    } else {
        rc = run_space(prog, &w);
    }
    spc_points_free(&w.pts);
    free(w.dev.log);
    free(w.tie_end);
    free(w.after_end);
    free(w.after_keys);
    if (w.menu2 != w.menu) free(w.menu2);
    free(w.menu);
    free(w.s);
    return rc;
}
