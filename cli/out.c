/* cli/out.c: the files a command writes (--log, --trace, --dot, --junit,
 * --coverage). A regular file is written under a temporary name beside
 * it and renamed over it only once the command commits it, so a command
 * refused for a later argument, or one that fails to write, loses nothing
 * that was there; every write is checked when the file is committed
 * (buffered stdio reports errors at the flush). "-" is stdout; a path
 * that exists and is not a regular file (/dev/null, /dev/full, a FIFO) is
 * written in place: it cannot be replaced by a rename. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

bool cli_out_open(const char *prog, const char *opt, const char *path, cli_out *o) {
    memset(o, 0, sizeof *o);
    if (path == NULL) return true;
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return true;
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
    o->f = fopen(in_place ? path : o->tmp, "w");
    if (o->f == NULL) {
        fprintf(stderr, "%s: %s %s: cannot write there: %s\n", prog, opt, path, strerror(errno));
        o->tmp[0] = '\0';
        return false;
    }
    return true;
}

void cli_out_abandon(cli_out *o) {
    if (o->f != NULL && o->f != stdout) fclose(o->f);
    if (o->tmp[0] != '\0') remove(o->tmp);
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
    memset(o, 0, sizeof *o);
    return ok;
}

bool cli_stdout_ok(const char *prog) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return true;
    fprintf(stderr, "%s: writing to standard output failed: %s\n", prog, strerror(errno ? errno : EIO));
    return false;
}
