/* tests/test_fimport.c: Flink plans made into absim jobs (flink/fimport.h),
 * on the real plans of tests/flink: which vertices and edges, what the
 * model departs from (noted), and that every plan with every real
 * configuration makes a scenario absim reads. */
#include "harness.h"

#include <dirent.h>

#include "../flink/fimport.h"
#include "../scenarios/scn.h"

static void build(const char *plan, const char *conf, fimp_job *j, fplan *p, fconf_raw *raw, fconf *c) {
    char err[2048];
    fimp_opts o;
    fimp_defaults(&o);
    assert_true(fplan_read(plan, p, err, sizeof err));
    if (conf != NULL) assert_true(fconf_read(conf, FCONF_AUTO, raw, err, sizeof err));
    assert_true(fconf_resolve(conf != NULL ? raw : NULL, c, err, sizeof err));
    fplan_chain(p, c->num[FC_CHAINING] != 0);
    bool ok = fimp_build(p, c, &o, j, err, sizeof err);
    if (!ok) fprintf(stderr, "%s\n", err);
    assert_true(ok);
}

static bool noted(const fimp_job *j, const char *needle) {
    for (uint32_t i = 0; i < j->ncount; i++) {
        if (strstr(j->notes[i], needle) != NULL) return true;
    }
    return false;
}

/* Source -> (HASH) Flat Map -> Sink, Flat Map and Sink chained: the keyed
 * Flat Map may keep keyed state (the state machine example does), so it
 * is a keyed aggregate, and the chained sink a vertex of its own. */
static void test_keyed_input_makes_a_stateful_vertex_and_a_chained_sink_its_own(void **state) {
    (void)state;
    static fimp_job j;
    fplan p;
    fconf c;
    build("tests/flink/plans/jobdetails-1.15-statemachine-k8sop.json", NULL, &j, &p, NULL, &c);
    assert_int_equal(j.vcount, 3);
    assert_int_equal(j.v[0].kind, FV_SOURCE);
    assert_int_equal(j.v[1].kind, FV_KEYED);
    assert_int_equal(j.v[2].kind, FV_SINK);
    assert_string_equal(j.e[0].part, "hash");
    assert_string_equal(j.e[1].part, "forward");
    assert_int_equal(j.v[1].max_parallelism, 128);
    assert_true(noted(&j, "its input is keyed (HASH)"));
    fplan_free(&p);
}

/* SQL's UNION ALL into a GroupAggregate (Flink's docs): two HASH inputs
 * into a one-input operator become a union before it; a plan with no
 * sink gets one after the aggregate; the chained filter is its cost. */
static void test_union_of_inputs_and_a_missing_sink_are_added_and_said(void **state) {
    (void)state;
    static fimp_job j;
    fplan p;
    fconf c;
    build("tests/flink/plans/streamgraph-docs-master-explain-union-groupagg.json", NULL, &j, &p, NULL, &c);
    assert_int_equal(j.vcount, 5);
    assert_int_equal(j.v[2].kind, FV_UNION);
    assert_int_equal(j.v[3].kind, FV_KEYED);
    assert_int_equal(j.v[4].kind, FV_SINK);
    assert_string_equal(j.e[2].part, "hash");        /* union -> aggregate: keyed again */
    assert_true(noted(&j, "a sink groupaggregate-out added"));
    assert_string_equal(j.v[0].name, "mytable1");   /* a SQL source is named by its table */
    assert_true(noted(&j, "a filter chained into"));
    fplan_free(&p);
}

/* A processing-time window is not one of absim's (event time): a keyed
 * aggregate, and said so. */
static void test_processing_time_window_is_a_keyed_aggregate(void **state) {
    (void)state;
    static fimp_job j;
    fplan p;
    fconf c;
    build("tests/flink/plans/streamgraph-1.7.2-socketwindowwordcount-opensourceteams.json", NULL, &j, &p, NULL, &c);
    assert_int_equal(j.v[1].kind, FV_KEYED);
    assert_true(noted(&j, "processing-time window"));
    fplan_free(&p);
}

static uint32_t files_in(const char *dir, char names[][300], uint32_t max) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    uint32_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] == '.') continue;
        snprintf(names[n++], 300, "%s/%.200s", dir, e->d_name);
    }
    closedir(d);
    return n;
}

/* Every real plan (the truncated one aside) with no configuration and
 * with every real configuration (the template with ${...} placeholders
 * aside: Flink refuses it too) makes a scenario that parses. */
static void test_every_real_plan_and_configuration_make_a_scenario_absim_reads(void **state) {
    (void)state;
    static char plans[64][300], confs[64][300];
    uint32_t np = files_in("tests/flink/plans", plans, 32);
    np += files_in("tests/flink/holdout/plans", plans + np, 32);
    uint32_t nc = files_in("tests/flink/conf", confs, 32);
    nc += files_in("tests/flink/holdout/conf", confs + nc, 32);
    uint32_t made = 0;
    static fimp_job j;
    static scn s;
    for (uint32_t a = 0; a < np; a++) {
        if (strstr(plans[a], "TRUNCATED") != NULL) continue;
        for (uint32_t b = 0; b <= nc; b++) {
            if (b < nc && strstr(confs[b], "placeholders") != NULL) continue;
            fplan p;
            fconf_raw raw;
            fconf c;
            build(plans[a], b < nc ? confs[b] : NULL, &j, &p, &raw, &c);
            char *text = NULL, err[2048];
            size_t len = 0;
            FILE *f = open_memstream(&text, &len);
            fimp_write(f, &p, b < nc ? &raw : NULL, &c, &(fimp_opts){ .keys = 1000, .records_max = 200000, .keep_pct = 100,
                       .interval_ns = 10000000000LL, .seed = 1 }, &j, "absim import", "job.scn");
            assert_int_equal(fclose(f), 0);
            bool ok = scn_parse(&s, "job.scn", text, len, err, sizeof err);
            if (!ok) fprintf(stderr, "%s with %s: %s\n", plans[a], b < nc ? confs[b] : "-", err);
            assert_true(ok);
            for (uint32_t e = 0; b < nc && e < raw.count; e++) {   /* no key silently dropped: each is named */
                char at[300];
                snprintf(at, sizeof at, "%s%s", raw.entries[e].key, raw.format == FCONF_REST ? "" : " (");
                if (strstr(text, at) == NULL) snprintf(at, sizeof at, "%s: ", raw.entries[e].key);
                if (strstr(text, at) == NULL) fprintf(stderr, "%s: %s not in the file\n", confs[b], raw.entries[e].key);
                assert_non_null(strstr(text, at));
            }
            made++;
            free(text);
            if (b < nc) fconf_raw_free(&raw);
            fplan_free(&p);
        }
    }
    assert_true(made >= 200);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keyed_input_makes_a_stateful_vertex_and_a_chained_sink_its_own),
        cmocka_unit_test(test_union_of_inputs_and_a_missing_sink_are_added_and_said),
        cmocka_unit_test(test_processing_time_window_is_a_keyed_aggregate),
        cmocka_unit_test(test_every_real_plan_and_configuration_make_a_scenario_absim_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
