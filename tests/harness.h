/* tests/harness.h: shared helpers for the cmocka tests: a recording actor
 * that logs every event it receives, and small run builders. Header-only;
 * each test file is its own program. */
#ifndef TESTS_HARNESS_H
#define TESTS_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../check/check.h"
#include "../sim/run.h"

#define REC_MAX 65536u

typedef struct rec {
    sim_time_ns at_ns;
    uint32_t    actor;
    uint16_t    kind;
    uint32_t    aux;
    uint32_t    gen;
    uint32_t    inc;
    sim_msg     msg;
} rec;

typedef struct recorder {
    rec      items[REC_MAX];
    uint32_t count;
} recorder;

/* Hook a test can set to act on events after they are recorded. */
typedef void (*rec_hook_fn)(sim_run *run, sim_actor *self, const sim_event *ev);

typedef struct rec_ctx {
    recorder   *log;
    rec_hook_fn hook;
} rec_ctx;

static inline void rec_handler(sim_run *run, sim_actor *self, const sim_event *ev) {
    rec_ctx *c = self->ctx;
    assert_true(c->log->count < REC_MAX);
    c->log->items[c->log->count++] = (rec){
        .at_ns = run->now_ns, .actor = self->id, .kind = ev->kind, .aux = ev->aux,
        .gen = ev->gen, .inc = self->inc, .msg = ev->msg,
    };
    if (c->hook != NULL) c->hook(run, self, ev);
}

/* Count recorded events of one kind at one actor (UINT32_MAX: any actor). */
static inline uint32_t rec_count(const recorder *r, uint32_t actor, uint16_t kind) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->count; i++) {
        if ((actor == UINT32_MAX || r->items[i].actor == actor) && r->items[i].kind == kind) n++;
    }
    return n;
}

/* A small job (tests of explore's space and of buggify): two sources on topics of their own, a keyed join, a two-phase-commit
 * sink: 7 tasks on 2 machines, 10 data channels. */
#define HARNESS_JOIN_JOB "seed 1\nmachines 2\n" \
    "broker topic clicks partitions 2 records 200 keys 50\nbroker topic views partitions 2 records 200 keys 40\n" \
    "vertex clicks source topic clicks parallelism 2 rate 20000/s\n" \
    "vertex views source topic views parallelism 2 rate 20000/s\n" \
    "vertex join keyed-join parallelism 2\nvertex out sink output two-phase-commit\n" \
    "edge clicks -> join hash\nedge views -> join hash\nedge join -> out rebalance\n" \
    "checkpoint mode aligned interval 4ms\nchannels buffer-timeout 1ms\n"

static inline sim_cfg test_cfg(uint64_t seed) {
    sim_cfg c = sim_cfg_default(seed);
    c.time_max_ns = 1000ull * SIM_NS_PER_S;
    return c;
}

/* A job run with every checker attached: its end and the checkers'
 * report (the verdicts come from the specification, never from another
 * run). fail_msg when the configuration is refused. */
typedef struct checked_run {
    pipe_status  status;
    pipe_stats   stats;
    check_report report;
    uint64_t     reach[PIPE_REACH_COUNT];
    uint32_t     fail_causes;        /* bit c: a job failure of pipe_fail_cause c */
} checked_run;

/* Every step of a checked run is held to the event table: it leaves the
 * named payload fields its kind does not fill at zero. */
static inline void checked_see(void *ctx, const pipe_event *e) {
    if (!pipe_ev_fields_ok(e)) fail_msg("a %s step fills a field its kind does not", pipe_ev_info_of(e->kind)->name);
    if (e->kind == PIPE_EV_JOB_FAILED && e->cause < 32) ((checked_run *)ctx)->fail_causes |= 1u << e->cause;
}

/* run_checked, with setup(p, ctx) called before the run (faults that name
 * the pipeline's links or actors) and after(p, ctx) after it, before the
 * pipeline goes (what the external system holds); either may be NULL. */
static inline checked_run run_checked_around(const pipe_cfg *c, void (*setup)(pipeline *p, void *ctx),
                                             void (*after)(pipeline *p, void *ctx), void *ctx) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    check_set *cs = check_create(p, &(check_cfg){ .liveness_ns = 0 }, err, sizeof err);
    if (cs == NULL) fail_msg("check_create: %s", err);
    check_attach(cs);
    checked_run r = { .fail_causes = 0 };
    pipe_observe(p, checked_see, &r);
    if (setup != NULL) setup(p, ctx);
    pipe_run(p);
    r.status = pipe_get_status(p);
    r.stats = *pipe_get_stats(p);
    r.report = *check_finish(cs);
    memcpy(r.reach, pipe_reached(p), sizeof r.reach);
    if (after != NULL) after(p, ctx);
    check_destroy(cs);
    pipe_destroy(p);
    return r;
}

static inline checked_run run_checked_with(const pipe_cfg *c, void (*setup)(pipeline *p, void *ctx), void *ctx) {
    return run_checked_around(c, setup, NULL, ctx);
}

static inline checked_run run_checked(const pipe_cfg *c) { return run_checked_with(c, NULL, NULL); }

/* The first kept violation of invariant inv, or NULL. */
static inline const check_violation *first_of(const check_report *r, check_inv inv) {
    for (uint32_t i = 0; i < r->kept_count; i++) {
        if (r->kept[i].inv == inv) return &r->kept[i];
    }
    return NULL;
}

/* Runs fn(ctx) in a child process and reports whether it died of an
 * assertion (SIGABRT) whose message, on stderr, contains `needle`. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
static inline bool aborts_saying(void (*fn)(void *ctx), void *ctx, const char *needle) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        fn(ctx);
        _exit(0);
    }
    close(fds[1]);
    char out[1024] = { 0 };
    size_t got = 0;
    ssize_t n;
    while (got < sizeof out - 1 && (n = read(fds[0], out + got, sizeof out - 1 - got)) > 0) got += (size_t)n;
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strstr(out, needle) != NULL;
}

/* How many times needle occurs in text (overlapping occurrences too). */
static inline uint64_t count_of(const char *text, const char *needle) {
    uint64_t n = 0;
    for (const char *q = strstr(text, needle); q != NULL; q = strstr(q + 1, needle)) n++;
    return n;
}

/* Calls each(path, ctx) for every shipped scenario file (scenarios/DIR/
 * *.scn, run from the repository root, as make does), in directory order;
 * returns how many. */
#include <dirent.h>
static inline uint32_t each_shipped_scenario(void (*each)(const char *path, void *ctx), void *ctx) {
    DIR *top = opendir("scenarios");
    assert_non_null(top);
    uint32_t files = 0;
    struct dirent *d;
    while ((d = readdir(top)) != NULL) {
        if (d->d_name[0] == '.') continue;
        char dir[300];
        snprintf(dir, sizeof dir, "scenarios/%s", d->d_name);
        DIR *sub = opendir(dir);
        if (sub == NULL) continue;                /* a file, not a folder */
        struct dirent *e;
        while ((e = readdir(sub)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".scn") != 0) continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            files++;
            each(path, ctx);
        }
        closedir(sub);
    }
    closedir(top);
    return files;
}

/* text written to a new file under /tmp named NAME (a directory of its
 * own, so the name itself can matter: config.yaml, flink-conf.yaml); the
 * path goes to path (at least 256 bytes). */
#include <stdlib.h>
#include <sys/stat.h>
static inline void tmp_file_named(const char *name, const char *text, char *path) {
    char dir[] = "/tmp/absim-test-XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(path, 256, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Removes what tmp_file_named made. */
static inline void tmp_file_drop(const char *path) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = '\0';
    assert_int_equal(remove(path), 0);
    assert_int_equal(remove(dir), 0);
}

#endif
