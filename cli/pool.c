/* cli/pool.c: child processes, `jobs` at a time, each running one task
 * and sending its result back through a pipe (see cli.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define POOL_JOBS_MAX 256u

typedef struct worker {
    pid_t    pid;                     /* 0: free */
    int      fd;
    uint64_t task;
} worker;

uint64_t cli_cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint64_t)n : 1;
}

/* Loops because a record may be longer than PIPE_BUF: such a write can
 * be split (and a signal can cut it short); false on an error. */
static bool write_all(int fd, const void *buf, size_t len) {
    size_t put = 0;
    while (put < len) {
        ssize_t n = write(fd, (const char *)buf + put, len - put);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        put += (size_t)n;
    }
    return true;
}

/* Reads until len bytes or end of file: how many arrived. */
static size_t read_all(int fd, void *buf, size_t len) {
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    return got;
}

static void child(void *ctx, uint64_t task, cli_pool_work_fn work, int fd) {
    cli_task_result r;
    memset(&r, 0, sizeof r);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    work(ctx, task, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r.seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    _exit(write_all(fd, &r, sizeof r) ? 0 : 3);
}

/* Collect one finished child: its record, or the way it died. */
static void reap(worker *w, cli_task_result *r) {
    memset(r, 0, sizeof *r);
    size_t got = read_all(w->fd, r, sizeof *r);
    close(w->fd);
    int status = 0;
    while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got != sizeof *r) {
        memset(r, 0, sizeof *r);
        r->rc = CLI_FAIL;
        r->died = true;
        cli_failure_add(&r->failures, WIFSIGNALED(status) ? "the run died of signal %d (an assertion aborts: replay it)"
                 : "the run exited with status %d without a result", WIFSIGNALED(status) ? WTERMSIG(status)
                 : WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    w->pid = 0;
}

void cli_task_run(const scn *file, uint64_t seed, pipe_bug bug, bool random_faults, cli_task_result *out) {
    scn *s = malloc(sizeof *s);              /* both are large: not on the stack */
    cli_outcome *o = malloc(sizeof *o);
    SIM_ASSERT(s != NULL && o != NULL);
    *s = *file;
    s->cfg.seed = seed;
    s->cfg.bug = bug;
    out->rc = cli_run_scenario(s, random_faults, NULL, NULL, NULL, NULL, 0, NULL, o);
    const check_violation *v = check_first(&o->report);
    out->inv = v != NULL ? v->inv : 0;
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT; i++) out->violated |= (uint32_t)(o->report.violations[i] > 0) << i;
    out->failed_line = o->failed_line;
    out->status = o->status;
    out->trace_hash = o->trace_hash;
    out->order_decisions = o->order_decisions;
    out->failures = o->failures;
    memcpy(out->reach, o->reach, sizeof out->reach);
    size_t used = 0;                              /* the faults it ran with, drawn ones included */
    for (uint32_t i = 0; i < s->faults_count; i++) {
        char line[SCN_FAULT_TEXT_BYTES];
        scn_fault_text(s, &s->faults[i], line, sizeof line);
        size_t n = strlen(line);
        if (used + n + 2 > sizeof out->profile) break;   /* whole lines only */
        memcpy(out->profile + used, line, n);
        out->profile[used + n] = '\n';
        used += n + 1;
    }
    out->profile[used] = '\0';
    free(o);
    free(s);
}

static bool start(const char *prog, worker *w, void *ctx, uint64_t task, cli_pool_work_fn work) {
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", prog, strerror(errno));
        return false;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child(ctx, task, work, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
        return false;
    }
    *w = (worker){ .pid = pid, .fd = fds[0], .task = task };
    return true;
}

/* The pool's tables, on the heap: the children start from inside the
 * pool's frame, and a run needs the stack they leave (ulimit -s 64). */
typedef struct pool_mem {
    worker          ws[POOL_JOBS_MAX];
    struct pollfd   pfd[POOL_JOBS_MAX];
    uint64_t        owner[POOL_JOBS_MAX];
    cli_task_result r;
} pool_mem;

static bool pool_loop(const char *prog, uint64_t jobs, void *ctx, cli_pool_next_fn next, cli_pool_work_fn work,
                      cli_pool_done_fn done, pool_mem *m) {
    worker *ws = m->ws;
    bool more = true, ok = true;
    for (;;) {
        for (uint64_t k = 0; k < jobs && more; k++) {
            uint64_t task;
            if (ws[k].pid != 0) continue;
            if (!next(ctx, &task)) {
                more = false;
            } else if (!start(prog, &ws[k], ctx, task, work)) {
                more = false;
                ok = false;
            }
        }
        struct pollfd *pfd = m->pfd;
        uint64_t *owner = m->owner, n = 0;
        for (uint64_t k = 0; k < jobs; k++) {
            if (ws[k].pid == 0) continue;
            pfd[n] = (struct pollfd){ .fd = ws[k].fd, .events = POLLIN };
            owner[n++] = k;
        }
        if (n == 0) return ok;
        bool polled = poll(pfd, (nfds_t)n, -1) >= 0;
        if (!polled && errno == EINTR) continue;
        if (!polled) {                       /* no more starts; wait for each child in turn */
            fprintf(stderr, "%s: poll: %s\n", prog, strerror(errno));
            more = ok = false;
        }
        for (uint64_t i = 0; i < n; i++) {
            if (polled && pfd[i].revents == 0) continue;
            uint64_t task = ws[owner[i]].task;
            reap(&ws[owner[i]], &m->r);
            done(ctx, task, &m->r);
        }
    }
}

bool cli_pool(const char *prog, uint64_t jobs, void *ctx, cli_pool_next_fn next, cli_pool_work_fn work,
              cli_pool_done_fn done) {
    SIM_ASSERT(jobs >= 1);
    if (jobs > POOL_JOBS_MAX) jobs = POOL_JOBS_MAX;
    pool_mem *m = calloc(1, sizeof *m);
    if (m == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return false;
    }
    bool ok = pool_loop(prog, jobs, ctx, next, work, done, m);
    free(m);
    return ok;
}

double cli_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
