/* cli/junit.c: the JUnit XML report of absim swarm (--junit FILE) as CI
 * servers read it; tests/junit.xsd is the schema it must validate
 * against (tests/cli_check.sh checks with xmllint). One testsuite per
 * scenario file, in the order given; one testcase per run, in case
 * order (seed order), whatever order the runs end in.
 *
 * With --jobs > 1 runs end out of order, so each case is formatted when
 * it arrives and held until every case before it has come, then appended
 * to its suite's temporary file. A run that takes long holds back all
 * that end after it, so the window of held cases has no fixed bound and
 * grows as needed; usually it holds fewer cases than there are jobs. A
 * suite's counts go on its opening tag, so the file is assembled at the
 * end, through cli_out (a temporary file renamed over FILE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

typedef struct junit_suite {
    FILE    *body;                    /* its testcase elements so far, in order */
    uint64_t tests, failures, errors;
    double   seconds;                 /* the sum of its cases' times */
} junit_suite;

typedef struct junit_held {
    char    *xml;                     /* NULL: not come yet */
    uint32_t suite;
} junit_held;

struct cli_junit {
    cli_out            out;
    uint32_t           nsuites;
    junit_suite       *suites;
    const char *const *names;
    const char *const *props;         /* name, value, name, value, ... */
    uint32_t           nprops;
    char               timestamp[24];
    uint64_t           next;          /* the index of the next case to append */
    junit_held        *held;          /* held[i]: case next + i */
    size_t             cap;
    bool               broken;        /* out of memory, or a temporary file failed */
};

bool cli_junit_open(const char *prog, const char *path, uint32_t nsuites, const char *const *names,
                    const char *const *props, uint32_t nprops, cli_junit **out) {
    *out = NULL;
    if (path == NULL) return true;
    cli_junit *j = calloc(1, sizeof *j);
    junit_suite *suites = calloc(nsuites, sizeof *suites);
    bool ok = j != NULL && suites != NULL;
    for (uint32_t i = 0; ok && i < nsuites; i++) ok = (suites[i].body = tmpfile()) != NULL;
    if (!ok) fprintf(stderr, "%s: --junit %s: no room for the report's temporary files\n", prog, path);
    if (!ok || !cli_out_open(prog, "--junit", path, &j->out)) {
        for (uint32_t i = 0; suites != NULL && i < nsuites; i++) {
            if (suites[i].body != NULL) fclose(suites[i].body);
        }
        free(suites);
        free(j);
        return false;
    }
    j->nsuites = nsuites;
    j->suites = suites;
    j->names = names;
    j->props = props;
    j->nprops = nprops;
    time_t now = time(NULL);                         /* when the campaign began, in UTC */
    struct tm utc;
    if (gmtime_r(&now, &utc) == NULL ||
        strftime(j->timestamp, sizeof j->timestamp, "%Y-%m-%dT%H:%M:%S", &utc) == 0) {
        j->timestamp[0] = '\0';
    }
    *out = j;
    return true;
}

/* <testcase>, with the failure or error and its output, as one string. */
static char *format_case(const cli_junit_case *c) {
    char *xml = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&xml, &len);
    if (m == NULL) return NULL;
    fputs("<testcase name=\"", m);
    cli_xml_string(m, c->name, true);
    fputs("\" classname=\"", m);
    cli_xml_string(m, c->classname, true);
    fprintf(m, "\" time=\"%.3f\"%s>\n", c->seconds, c->verdict == CLI_JUNIT_PASSED && c->out == NULL ? "/" : "");
    const char *kind = c->verdict == CLI_JUNIT_FAILURE ? "failure" : "error";
    if (c->verdict != CLI_JUNIT_PASSED) {
        const cli_failures *f = c->failures;
        fprintf(m, "<%s message=\"", kind);
        cli_xml_string(m, f->count > 0 ? f->text[0] : c->type, true);   /* the first failure; all of them below */
        fputs("\" type=\"", m);
        cli_xml_string(m, c->type, true);
        fputs("\">", m);
        for (uint32_t i = 0; i < f->count; i++) {
            cli_xml_string(m, f->text[i], false);
            fputc('\n', m);
        }
        if (f->dropped > 0) fprintf(m, "(and %u more)\n", f->dropped);
        fprintf(m, "</%s>\n", kind);
    }
    if (c->out != NULL) {
        fputs("<system-out>", m);
        cli_xml_string(m, c->out, false);
        fputs("</system-out>\n", m);
    }
    if (c->verdict != CLI_JUNIT_PASSED || c->out != NULL) fputs("</testcase>\n", m);
    bool ok = !ferror(m);
    if (fclose(m) != 0 || !ok) {
        free(xml);
        return NULL;
    }
    return xml;
}

/* Appends the held cases that have every case before them, in order:
 * all of them when `all` (the end of the campaign, where a case that
 * never came, a run the pool could not start, leaves a gap). */
static void release(cli_junit *j, bool all) {
    size_t k = 0;
    for (; k < j->cap && (all || j->held[k].xml != NULL); k++) {
        junit_held *h = &j->held[k];
        if (h->xml == NULL) continue;
        if (fputs(h->xml, j->suites[h->suite].body) == EOF) j->broken = true;
        free(h->xml);
    }
    if (k == 0) return;
    memmove(j->held, j->held + k, (j->cap - k) * sizeof *j->held);
    memset(j->held + (j->cap - k), 0, k * sizeof *j->held);
    j->next += k;
}

void cli_junit_add(cli_junit *j, uint64_t index, const cli_junit_case *c) {
    if (j == NULL || j->broken) return;
    SIM_ASSERT(index >= j->next && c->suite < j->nsuites);
    junit_suite *s = &j->suites[c->suite];
    s->tests++;
    s->failures += c->verdict == CLI_JUNIT_FAILURE;
    s->errors += c->verdict == CLI_JUNIT_ERROR;
    s->seconds += c->seconds;
    uint64_t at = index - j->next;
    if (at >= j->cap) {                              /* a long run holds back more cases than fit */
        size_t cap = j->cap * 2 > at + 1 ? j->cap * 2 : (size_t)at + 1;
        junit_held *h = realloc(j->held, cap * sizeof *h);
        if (h == NULL) {
            j->broken = true;
            return;
        }
        memset(h + j->cap, 0, (cap - j->cap) * sizeof *h);
        j->held = h;
        j->cap = cap;
    }
    SIM_ASSERT(j->held[at].xml == NULL);
    j->held[at] = (junit_held){ .xml = format_case(c), .suite = c->suite };
    if (j->held[at].xml == NULL) j->broken = true;
    release(j, false);
}

static void free_junit(cli_junit *j) {
    for (size_t k = 0; k < j->cap; k++) free(j->held[k].xml);
    for (uint32_t i = 0; i < j->nsuites; i++) fclose(j->suites[i].body);
    free(j->held);
    free(j->suites);
    free(j);
}

void cli_junit_abandon(cli_junit *j) {
    if (j == NULL) return;
    cli_out_abandon(&j->out);
    free_junit(j);
}

/* One <testsuite>: its counts, the campaign's properties, its cases. */
static void write_suite(cli_junit *j, uint32_t i) {
    FILE *f = j->out.f;
    const junit_suite *s = &j->suites[i];
    fputs("<testsuite name=\"", f);
    cli_xml_string(f, j->names[i], true);
    fprintf(f, "\" tests=\"%llu\" failures=\"%llu\" errors=\"%llu\" skipped=\"0\" time=\"%.3f\"",
            (unsigned long long)s->tests, (unsigned long long)s->failures, (unsigned long long)s->errors, s->seconds);
    if (j->timestamp[0] != '\0') fprintf(f, " timestamp=\"%s\"", j->timestamp);
    fputs(">\n", f);
    if (j->nprops > 0) {
        fputs("<properties>\n", f);
        for (uint32_t p = 0; p < j->nprops; p++) {
            fputs("<property name=\"", f);
            cli_xml_string(f, j->props[2 * p], true);
            fputs("\" value=\"", f);
            cli_xml_string(f, j->props[2 * p + 1], true);
            fputs("\"/>\n", f);
        }
        fputs("</properties>\n", f);
    }
    char buf[8192];
    size_t n;
    if (fflush(s->body) != 0) j->broken = true;
    rewind(s->body);
    while ((n = fread(buf, 1, sizeof buf, s->body)) > 0) fwrite(buf, 1, n, f);
    if (ferror(s->body)) j->broken = true;
    fputs("</testsuite>\n", f);
}

bool cli_junit_commit(const char *prog, cli_junit *j, double seconds) {
    if (j == NULL) return true;
    release(j, true);
    uint64_t tests = 0, failures = 0, errors = 0;
    for (uint32_t i = 0; i < j->nsuites; i++) {
        tests += j->suites[i].tests;
        failures += j->suites[i].failures;
        errors += j->suites[i].errors;
    }
    FILE *f = j->out.f;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"absim swarm\" tests=\"%llu\" "
            "failures=\"%llu\" errors=\"%llu\" skipped=\"0\" time=\"%.3f\">\n", (unsigned long long)tests,
            (unsigned long long)failures, (unsigned long long)errors, seconds);
    for (uint32_t i = 0; i < j->nsuites; i++) write_suite(j, i);
    fputs("</testsuites>\n", f);
    if (j->broken) {
        fprintf(stderr, "%s: --junit %s: the report could not be assembled (out of memory or temporary space)\n",
                prog, j->out.path);
        cli_junit_abandon(j);
        return false;
    }
    bool ok = cli_out_commit(prog, "--junit", &j->out);   /* checks every write to the file */
    free_junit(j);
    return ok;
}
