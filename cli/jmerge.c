/* cli/jmerge.c: the JUnit reports of a swarm campaign's shards as one
 * (absim merge --junit OUT), read and written with libxml2.
 *
 * Contract:
 * - Each input is what `absim swarm ... --shard I/N --junit FILE` wrote
 *   (cli/junit.c): a testsuites element named "absim swarm", a testsuite
 *   per scenario file with the campaign's options as properties (seeds,
 *   shard, faults, bug, pct, jobs) and a testcase per run named "seed S".
 * - The inputs must be shards of one campaign: the same files in the same
 *   order, the same seeds, faults, bug and pct, the same N, each shard once;
 *   anything else is refused as FILE:LINE:COL: what is wrong.
 * - The merged report has a testsuite per file with every shard's
 *   testcases in seed order (copied whole: failures, their text and
 *   output), its counts recounted from them, its time their sum; the
 *   root's time is the sum of the shards' (machine seconds). Its shard
 *   property says which shards it holds ("merged 4 of 4"), and the jobs
 *   property goes (it differed by machine). It validates against
 *   tests/junit.xsd as a shard's does. */
#include <inttypes.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define JMERGE_SUITES_MAX 4096u          /* scenario files of a campaign (swarm's own bound is lower) */

static const char *const counts[4] = { "tests", "failures", "errors", "skipped" };   /* a suite's, the root's */

typedef struct jm_case {
    uint64_t   seed, order;              /* order: the input's place, then the case's, for equal seeds */
    xmlNodePtr node;
} jm_case;

typedef struct jm_suite {
    char    *name;
    jm_case *cases;
    uint64_t count, cap;
} jm_suite;

struct cli_jmerge {
    const char *prog;
    xmlDocPtr  *docs;                    /* kept until written: the cases are their nodes */
    uint32_t    ndocs;
    jm_suite   *suites;
    uint32_t    nsuites;
    xmlNodePtr  props;                   /* the first input's first properties element */
    char       *seeds, *faults, *bug, *pct;   /* the campaign, as the first input says it */
    uint64_t    shard_n;
    uint8_t    *seen;
    double      seconds;
    uint64_t    order;
    uint64_t    sums[4];                 /* written: tests, failures, errors, skipped */
    uint64_t    present;                 /* written: the shards it holds */
};

static bool jm_bad(const cli_jmerge *j, const char *path, long line, long col, const char *what) {
    fprintf(stderr, "%s: %s:%ld:%ld: %s\n", j->prog, path, line > 0 ? line : 1, col > 0 ? col : 1, what);
    return false;
}

static bool named(xmlNodePtr n, const char *name) {
    return n != NULL && n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, (const xmlChar *)name) == 0;
}

/* An attribute's value (malloc'd by libxml2), or NULL. */
static char *attr(xmlNodePtr n, const char *name) { return (char *)xmlGetProp(n, (const xmlChar *)name); }

cli_jmerge *cli_jmerge_new(const char *prog) {
    cli_jmerge *j = calloc(1, sizeof *j);
    SIM_ASSERT(j != NULL);
    j->prog = prog;
    j->docs = calloc(CLI_JMERGE_INPUTS_MAX, sizeof *j->docs);
    j->suites = calloc(JMERGE_SUITES_MAX, sizeof *j->suites);
    SIM_ASSERT(j->docs != NULL && j->suites != NULL);
    return j;
}

/* The campaign's options of one testsuite's properties: the first input
 * sets them, the others must agree; the shard is I/N. */
static bool take_props(cli_jmerge *j, const char *path, xmlNodePtr props, uint64_t *shard_i) {
    char *want[4] = { j->seeds, j->faults, j->bug, j->pct }, *got[4] = { NULL, NULL, NULL, NULL }, *shard = NULL;
    static const char *const keys[4] = { "seeds", "faults", "bug", "pct" };
    for (xmlNodePtr p = props != NULL ? props->children : NULL; p != NULL; p = p->next) {
        if (!named(p, "property")) continue;
        char *k = attr(p, "name"), *v = attr(p, "value");
        for (int i = 0; i < 4 && k != NULL; i++) if (strcmp(k, keys[i]) == 0 && got[i] == NULL) got[i] = v, v = NULL;
        if (k != NULL && strcmp(k, "shard") == 0 && shard == NULL) shard = v, v = NULL;
        xmlFree(k);
        xmlFree(v);
    }
    if (got[3] == NULL) got[3] = (char *)xmlStrdup((const xmlChar *)"none");   /* a build before --pct */
    uint64_t n = 0;
    bool ok = shard != NULL && sscanf(shard, "%" SCNu64 "/%" SCNu64, shard_i, &n) == 2 && n > 0 && *shard_i < n &&
              n <= (1u << 20);
    if (!ok) jm_bad(j, path, props != NULL ? xmlGetLineNo(props) : 1, 1, "no shard property I/N: not a swarm shard's report");
    for (int i = 0; i < 4 && ok; i++) {
        ok = got[i] != NULL && (want[i] == NULL || strcmp(got[i], want[i]) == 0);
        if (!ok) {
            char what[160];
            snprintf(what, sizeof what, "a report of another campaign: its %s differ%s from the first input's", keys[i],
                     got[i] == NULL ? " (none)" : "");
            jm_bad(j, path, xmlGetLineNo(props), 1, what);
        }
    }
    if (ok && j->shard_n != 0 && n != j->shard_n) ok = jm_bad(j, path, xmlGetLineNo(props), 1, "a shard of another N");
    if (ok && j->seeds == NULL) {
        j->seeds = got[0], j->faults = got[1], j->bug = got[2], j->pct = got[3], got[0] = got[1] = got[2] = got[3] = NULL;
        j->shard_n = n;
        j->seen = calloc(n, 1);
        SIM_ASSERT(j->seen != NULL);
        j->props = props;
    }
    for (int i = 0; i < 4; i++) xmlFree(got[i]);
    xmlFree(shard);
    return ok;
}

/* One testsuite of input `doc` (the k-th of it): its cases, under the
 * suite of the same place and name. */
static bool take_suite(cli_jmerge *j, const char *path, xmlNodePtr ts, uint32_t k) {
    char *name = attr(ts, "name");
    bool first = j->ndocs == 1;
    bool ok = name != NULL && (first ? k < JMERGE_SUITES_MAX : k < j->nsuites && strcmp(name, j->suites[k].name) == 0);
    if (!ok) jm_bad(j, path, xmlGetLineNo(ts), 1, "a testsuite the first input does not have in that place (another campaign)");
    if (ok && first) {
        j->suites[k].name = strdup(name);
        SIM_ASSERT(j->suites[k].name != NULL);
        j->nsuites = k + 1;
    }
    xmlFree(name);
    jm_suite *s = &j->suites[k];
    for (xmlNodePtr c = ok ? ts->children : NULL; c != NULL && ok; c = c->next) {
        if (!named(c, "testcase")) continue;
        char *cn = attr(c, "name");
        uint64_t seed = 0;
        ok = cn != NULL && sscanf(cn, "seed %" SCNu64, &seed) == 1;
        xmlFree(cn);
        if (!ok) return jm_bad(j, path, xmlGetLineNo(c), 1, "a testcase not named \"seed S\"");
        if (s->count == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 64;
            s->cases = realloc(s->cases, s->cap * sizeof *s->cases);
            SIM_ASSERT(s->cases != NULL);
        }
        s->cases[s->count++] = (jm_case){ .seed = seed, .order = j->order++, .node = c };
    }
    return ok;
}

bool cli_jmerge_add(cli_jmerge *j, const char *path) {
    if (j->ndocs == CLI_JMERGE_INPUTS_MAX) return jm_bad(j, path, 1, 1, "too many JUnit reports");
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (doc == NULL) {
        const xmlError *e = xmlGetLastError();
        char what[256];
        snprintf(what, sizeof what, "%s", e != NULL && e->message != NULL ? e->message : "not XML");
        what[strcspn(what, "\n")] = '\0';                   /* libxml2 ends its messages with one */
        return jm_bad(j, path, e != NULL ? e->line : 1, e != NULL ? e->int2 : 1, what);
    }
    j->docs[j->ndocs++] = doc;
    xmlNodePtr root = xmlDocGetRootElement(doc);
    char *rn = named(root, "testsuites") ? attr(root, "name") : NULL;
    bool ok = rn != NULL && strcmp(rn, "absim swarm") == 0;
    xmlFree(rn);
    if (!ok) return jm_bad(j, path, root != NULL ? xmlGetLineNo(root) : 1, 1, "not a JUnit report of absim swarm");
    char *t = attr(root, "time");
    j->seconds += t != NULL ? strtod(t, NULL) : 0.0;
    xmlFree(t);
    uint32_t k = 0;
    uint64_t shard_i = 0;
    for (xmlNodePtr ts = root->children; ts != NULL && ok; ts = ts->next) {
        if (!named(ts, "testsuite")) continue;
        xmlNodePtr props = ts->children;
        while (props != NULL && !named(props, "properties")) props = props->next;
        uint64_t i = 0;
        ok = take_props(j, path, props, &i);
        if (ok && k > 0 && i != shard_i) ok = jm_bad(j, path, xmlGetLineNo(ts), 1, "testsuites of two shards in one report");
        ok = ok && take_suite(j, path, ts, k);
        if (k == 0 && ok) {
            if (j->seen[i]) ok = jm_bad(j, path, xmlGetLineNo(ts), 1, "a shard given twice");
            j->seen[i] = 1;
        }
        shard_i = i;
        k++;
    }
    if (ok && k != j->nsuites) ok = jm_bad(j, path, xmlGetLineNo(root), 1, "fewer testsuites than the first input (another campaign)");
    return ok;
}

static int by_seed(const void *a, const void *b) {
    const jm_case *x = a, *y = b;
    if (x->seed != y->seed) return x->seed < y->seed ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static void set_count(xmlNodePtr n, const char *name, uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    xmlSetProp(n, (const xmlChar *)name, (const xmlChar *)buf);
}

/* Suite k of the merged report: its properties, its cases in seed order,
 * its counts recounted; the totals into sums[4] (tests, failures, errors, skipped). */
static xmlNodePtr merged_suite(cli_jmerge *j, uint32_t k, uint64_t present, uint64_t sums[4]) {
    jm_suite *s = &j->suites[k];
    xmlNodePtr ts = xmlNewNode(NULL, (const xmlChar *)"testsuite");
    xmlSetProp(ts, (const xmlChar *)"name", (const xmlChar *)s->name);
    if (s->count > 1) qsort(s->cases, s->count, sizeof *s->cases, by_seed);
    uint64_t n[4] = { s->count, 0, 0, 0 };
    double seconds = 0.0;
    for (uint64_t i = 0; i < s->count; i++) {
        xmlNodePtr c = s->cases[i].node;
        for (xmlNodePtr x = c->children; x != NULL; x = x->next) {
            n[1] += named(x, "failure"), n[2] += named(x, "error"), n[3] += named(x, "skipped");
        }
        char *t = attr(c, "time");
        seconds += t != NULL ? strtod(t, NULL) : 0.0;
        xmlFree(t);
    }
    for (int i = 0; i < 4; i++) set_count(ts, counts[i], n[i]), sums[i] += n[i];
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", seconds);
    xmlSetProp(ts, (const xmlChar *)"time", (const xmlChar *)buf);
    xmlNodePtr props = xmlAddChild(ts, xmlNewNode(NULL, (const xmlChar *)"properties"));
    for (xmlNodePtr p = j->props->children; p != NULL; p = p->next) {
        if (!named(p, "property")) continue;
        char *key = attr(p, "name");
        bool jobs = key != NULL && strcmp(key, "jobs") == 0, shard = key != NULL && strcmp(key, "shard") == 0;
        xmlFree(key);
        if (jobs) continue;
        xmlNodePtr q = xmlAddChild(props, xmlCopyNode(p, 1));
        snprintf(buf, sizeof buf, "merged %" PRIu64 " of %" PRIu64, present, j->shard_n);
        if (shard) xmlSetProp(q, (const xmlChar *)"value", (const xmlChar *)buf);
    }
    for (uint64_t i = 0; i < s->count; i++) xmlAddChild(ts, xmlCopyNode(s->cases[i].node, 1));
    return ts;
}

bool cli_jmerge_write(cli_jmerge *j, FILE *f) {
    if (j->ndocs == 0) return true;
    uint64_t present = 0, sums[4] = { 0, 0, 0, 0 };
    for (uint64_t i = 0; i < j->shard_n; i++) present += j->seen[i];
    xmlDocPtr out = xmlNewDoc((const xmlChar *)"1.0");
    xmlNodePtr root = xmlNewNode(NULL, (const xmlChar *)"testsuites");
    xmlDocSetRootElement(out, root);
    xmlSetProp(root, (const xmlChar *)"name", (const xmlChar *)"absim swarm");
    xmlNodePtr *suites = malloc((j->nsuites ? j->nsuites : 1) * sizeof *suites);
    SIM_ASSERT(suites != NULL);
    for (uint32_t k = 0; k < j->nsuites; k++) suites[k] = merged_suite(j, k, present, sums);
    for (int i = 0; i < 4; i++) set_count(root, counts[i], sums[i]), j->sums[i] = sums[i];
    j->present = present;
    char buf[32];
    snprintf(buf, sizeof buf, "%.3f", j->seconds);
    xmlSetProp(root, (const xmlChar *)"time", (const xmlChar *)buf);
    for (uint32_t k = 0; k < j->nsuites; k++) xmlAddChild(root, suites[k]);
    free(suites);
    xmlChar *text = NULL;
    int len = 0;
    xmlDocDumpFormatMemoryEnc(out, &text, &len, "UTF-8", 1);
    bool ok = text != NULL && fwrite(text, 1, (size_t)len, f) == (size_t)len;
    xmlFree(text);
    xmlFreeDoc(out);
    return ok;
}

uint32_t cli_jmerge_inputs(const cli_jmerge *j) { return j->ndocs; }

bool cli_jmerge_report(const cli_jmerge *j, FILE *f) {
    bool complete = j->present == j->shard_n;
    fprintf(f, "merge: %" PRIu64 " of %" PRIu64 " shards' JUnit reports of absim swarm: %" PRIu64 " testcases, %" PRIu64
            " failures, %" PRIu64 " errors; %s\n", j->present, j->shard_n, j->sums[0], j->sums[1], j->sums[2],
            complete ? "every shard is there" : "shards are MISSING");
    return complete && j->sums[1] == 0 && j->sums[2] == 0;
}

void cli_jmerge_free(cli_jmerge *j) {
    if (j == NULL) return;
    for (uint32_t i = 0; i < j->ndocs; i++) xmlFreeDoc(j->docs[i]);
    for (uint32_t k = 0; k < j->nsuites; k++) free(j->suites[k].name), free(j->suites[k].cases);
    xmlFree(j->seeds);
    xmlFree(j->faults);
    xmlFree(j->bug);
    xmlFree(j->pct);
    free(j->seen);
    free(j->docs);
    free(j->suites);
    free(j);
}
