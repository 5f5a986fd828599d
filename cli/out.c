/* cli/out.c: the files a command writes (--log, --trace, --dot, --junit,
 * --coverage). None may name one of the command's inputs (a scenario
 * file): that is refused before anything is written. A temporary file is
 * removed on every way out, signals included. A regular file is written under a temporary name beside
 * it and renamed over it only once the command commits it, so a command
 * refused for a later argument, or one that fails to write, loses nothing
 * that was there; every write is checked when the file is committed
 * (buffered stdio reports errors at the flush). "-" is stdout; a path
 * that exists and is not a regular file (/dev/null, /dev/full, a FIFO) is
 * written in place: it cannot be replaced by a rename. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- inputs: no output may replace one ------------------------------------ */

#define INPUTS_MAX 64u                /* bugs and swarm take at most 64 files */

static struct { dev_t dev; ino_t ino; } inputs[INPUTS_MAX];
static uint32_t inputs_count;

void cli_input_note(const char *path) {
    struct stat st;
    if (inputs_count == INPUTS_MAX || stat(path, &st) != 0) return;
    inputs[inputs_count].dev = st.st_dev;
    inputs[inputs_count++].ino = st.st_ino;
}

bool cli_names_input(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    for (uint32_t i = 0; i < inputs_count; i++) {
        if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) return true;
    }
    return false;
}

/* ---- temporary files: removed on every way out ---------------------------- *
 * A signal that ends the process (an interrupt, a closed pipe, an
 * assertion's abort) removes this process's temporary files, then takes
 * its default course. Children forked by the worker pool inherit the
 * table; the pid of each entry keeps a dying child off its parent's. */

#define TMPS_MAX 16u

static char tmps[TMPS_MAX][4096];
static volatile pid_t tmp_owner[TMPS_MAX];

static void on_fatal_signal(int sig) {
    pid_t me = getpid();
    for (uint32_t i = 0; i < TMPS_MAX; i++) {
        if (tmp_owner[i] == me) (void)unlink(tmps[i]);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void handlers_once(void) {
    static bool installed;
    if (installed) return;
    installed = true;
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGABRT, SIGSEGV, SIGBUS, SIGFPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

void cli_tmp_note(const char *tmp) {
    handlers_once();
    for (uint32_t i = 0; i < TMPS_MAX; i++) {
        if (tmp_owner[i] != 0) continue;
        snprintf(tmps[i], sizeof tmps[i], "%s", tmp);
        tmp_owner[i] = getpid();
        return;
    }
    SIM_ASSERT(false);                            /* more files at once than any command writes */
}

void cli_tmp_forget(const char *tmp) {
    for (uint32_t i = 0; i < TMPS_MAX; i++) {
        if (tmp_owner[i] != 0 && strcmp(tmps[i], tmp) == 0) tmp_owner[i] = 0;
    }
}

/* ---- outputs ------------------------------------------------------------- */

bool cli_out_open(const char *prog, const char *opt, const char *path, cli_out *o) {
    memset(o, 0, sizeof *o);
    if (path == NULL) return true;
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return true;
    }
    if (cli_names_input(path)) {
        fprintf(stderr, "%s: %s %s: that is an input of this command: it would be replaced\n", prog, opt, path);
        return false;
    }
    struct stat st;
    bool in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    if (!in_place) {
        int n = snprintf(o->tmp, sizeof o->tmp, "%s.tmp%ld", path, (long)getpid());
        if (n < 0 || (size_t)n >= sizeof o->tmp) {
            fprintf(stderr, "%s: %s %s: path too long\n", prog, opt, path);
            return false;
        }
    }
    if (!in_place) cli_tmp_note(o->tmp);
    o->f = fopen(in_place ? path : o->tmp, "w");
    if (o->f == NULL) {
        if (!in_place) cli_tmp_forget(o->tmp);
        fprintf(stderr, "%s: %s %s: cannot write there: %s\n", prog, opt, path, strerror(errno));
        o->tmp[0] = '\0';
        return false;
    }
    return true;
}

void cli_out_abandon(cli_out *o) {
    if (o->f != NULL && o->f != stdout) fclose(o->f);
    if (o->tmp[0] != '\0') remove(o->tmp);
    if (o->tmp[0] != '\0') cli_tmp_forget(o->tmp);
    memset(o, 0, sizeof *o);
}

bool cli_out_commit(const char *prog, const char *opt, cli_out *o) {
    if (o->f == NULL) return true;
    bool ok = fflush(o->f) == 0 && !ferror(o->f);
    int err = errno;
    if (o->f != stdout) {
        ok = fclose(o->f) == 0 && ok;
        if (!ok && err == 0) err = errno;
        o->f = NULL;
    }
    if (ok && o->tmp[0] != '\0' && rename(o->tmp, o->path) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        fprintf(stderr, "%s: %s %s: write failed: %s\n", prog, opt, o->path, strerror(err ? err : EIO));
        if (o->tmp[0] != '\0') remove(o->tmp);
    }
    if (o->tmp[0] != '\0') cli_tmp_forget(o->tmp);
    memset(o, 0, sizeof *o);
    return ok;
}

bool cli_stdout_ok(const char *prog) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return true;
    fprintf(stderr, "%s: writing to standard output failed: %s\n", prog, strerror(errno ? errno : EIO));
    return false;
}
