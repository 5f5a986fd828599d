/* tests/test_html.c: the run viewer (reports/html.c) is one page that
 * needs nothing from the network, embeds every step the recorder kept as
 * JSON that cannot end its script early, marks the steps in its diagram,
 * has one picture per checkpoint it embeds (reports/ckpic.c), at most as
 * many as its bounds allow, and is the same bytes for the same run. */
#include "harness.h"

#include <inttypes.h>
#include <stdlib.h>

#include "../reports/ckpic.h"
#include "../reports/html.h"

static pipe_cfg small_job(void) {
    pipe_cfg c = pipe_cfg_default(5);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 1 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.broker.partitions = 4;
    c.broker.records_per_partition = 3000;
    c.broker.keys = 100;
    c.source_rate_per_s = 200000;
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    return c;
}

typedef struct page {
    char    *text;
    size_t   len;
    uint32_t steps;
    uint64_t triggered, completed;
} page;

static page write_page(void) {
    pipe_cfg c = small_job();
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    static svg_recorder r;
    static rpt_recorder k;                          /* the checkpoint pictures' */
    assert_true(svg_init(&r, p));
    assert_true(rpt_init(&k, p, NULL, true));
    svg_attach(&r);
    pipe_observe(p, rpt_observe, &k);
    pipe_run(p);
    svg_finish(&r);
    check_violation v = { .inv = CHECK_I5, .at_ns = 7 * SIM_NS_PER_MS, .what = "a made-up violation </script>" };
    svg_opts o = { .title = "t" };
    html_page pg = { .title = "job <1>", .summary = "the summary: a < b & c\n", .violations = &v,
                     .violations_count = 1, .violations_all = 1, .rec = &r, .opts = &o, .ckpts = &k };
    page x = { .steps = r.steps_count, .triggered = k.triggered, .completed = pipe_get_stats(p)->completed };
    FILE *f = open_memstream(&x.text, &x.len);
    html_write(f, &pg);
    fclose(f);
    svg_free(&r);
    rpt_free(&k);
    pipe_destroy(p);
    return x;
}

static void test_the_page_embeds_every_step_as_json_its_script_cannot_end_early(void **state) {
    (void)state;
    page a = write_page();
    const char *data = strstr(a.text, "<script type=\"application/json\" id=\"absim-data\">");
    assert_non_null(data);
    data = strchr(data, '>') + 1;
    const char *end = strstr(data, "</script>");
    assert_non_null(end);
    for (const char *q = data; q < end; q++) assert_true(*q != '<');   /* made-up text with </script> is escaped */
    size_t n = (size_t)(end - data);
    char *json = malloc(n + 1);
    memcpy(json, data, n);
    json[n] = '\0';
    assert_int_equal(count_of(json, "{\"t\":"), a.steps);
    assert_non_null(strstr(json, "\"k\":\"checkpoint-complete\""));
    assert_non_null(strstr(json, "\"panes\":[{\"from\":0,"));   /* a short run: one window, the whole run */
    assert_int_equal(count_of(json, "\"axis\":[["), 1);
    free(json);
    free(a.text);
}

static void test_the_page_is_self_contained_marks_its_steps_and_is_the_same_every_time(void **state) {
    (void)state;
    page a = write_page(), b = write_page();
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.text, b.text, a.len);
    assert_true(strncmp(a.text, "<!DOCTYPE html>", 15) == 0);
    assert_int_equal(count_of(a.text, " src="), 0);                 /* nothing to fetch */
    assert_int_equal(count_of(a.text, " href="), 0);
    assert_int_equal(count_of(a.text, "https://"), 0);
    assert_int_equal(count_of(a.text, "http://"), count_of(a.text, "http://www.w3.org/2000/svg"));
    assert_non_null(strstr(a.text, "the summary: a &lt; b &amp; c"));
    assert_non_null(strstr(a.text, "<button class=\"jump\" data-t=\"7000000\">"));
    assert_true(count_of(a.text, "data-s=\"") > 100);
    assert_non_null(strstr(a.text, "id=\"st-slider\""));
    assert_non_null(strstr(a.text, "id=\"sd-cursor-0\""));
    free(a.text);
    free(b.text);
}

static void test_the_page_has_one_picture_per_checkpoint_the_first_shown_each_with_its_tasks(void **state) {
    (void)state;
    page a = write_page();
    uint64_t n = count_of(a.text, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ckpic");
    assert_true(a.triggered >= 3 && a.triggered <= RPT_CKPTS_MAX);
    assert_int_equal(n, a.triggered);                           /* all of them: few, and a small job */
    assert_int_equal(count_of(a.text, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ckpic on\""), 1);
    assert_non_null(strstr(a.text, "class=\"ckpic on\" id=\"ck-1\" data-ck=\"1\""));
    assert_int_equal(count_of(a.text, "<option value=\""), n);
    char want[64];
    snprintf(want, sizeof want, "<div id=\"ck-box\" data-count=\"%" PRIu64 "\">", n);
    assert_non_null(strstr(a.text, want));
    assert_int_equal(count_of(a.text, "rx=\"5\""), n * 7);     /* a box per task (7) in each */
    assert_int_equal(count_of(a.text, "<g data-ck=\""), a.triggered);   /* the timeline's bars choose them */
    assert_non_null(strstr(a.text, "aligned t="));              /* the agg tasks have two inputs */
    assert_non_null(strstr(a.text, ", counted t="));
    assert_non_null(strstr(a.text, "trigger from the coordinator t="));
    /* what each completed checkpoint holds: S_n at the coordinator, each keyed task's part (the two aggs) */
    assert_true(a.completed >= 2);
    assert_int_equal(count_of(a.text, ">holds S_"), a.completed);
    assert_int_equal(count_of(a.text, " records before them<"), a.completed);
    assert_int_equal(count_of(a.text, " keys, "), 2 * a.completed);
    free(a.text);
}

/* A job of many tasks: a picture draws CKPIC_ROWS subtasks a vertex, and
 * a page no more than CKPIC_BOXES_MAX boxes, however many were kept. */
static void test_a_big_job_embeds_as_many_pictures_as_the_boxes_allow(void **state) {
    (void)state;
    pipe_cfg c = pipe_cfg_default(1);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 40, 40, 40, 40 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD } });
    c.broker.partitions = 40;
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    static rpt_recorder k;
    assert_true(rpt_init(&k, p, NULL, true));
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) k.ckpts[i].id = i + 1;   /* as if 32 were kept */
    uint32_t slots[RPT_CKPTS_MAX], boxes = ckpic_boxes(&k), n = ckpic_pick(&k, slots);
    assert_int_equal(boxes, 4 * CKPIC_ROWS);
    assert_int_equal(n, CKPIC_BOXES_MAX / boxes);
    for (uint32_t i = 0; i < n; i++) assert_int_equal(slots[i], i);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ckpic_write(&k, f, 0, true);
    fclose(f);
    assert_int_equal(count_of(text, "rx=\"5\""), boxes);
    assert_non_null(strstr(text, "112 tasks beyond the first 12 subtasks of a vertex are not drawn."));
    free(text);
    rpt_free(&k);
    pipe_destroy(p);
}

/* A run of 60 checkpoints: the page draws it in windows that tile it from
 * 0 to its end, each cut at a checkpoint's start and holding five to
 * seven of them, one picture (and one axis) each, the first shown. */
static void test_a_long_run_is_drawn_in_windows_that_tile_it_at_checkpoint_starts(void **state) {
    (void)state;
    pipe_cfg c = small_job();
    c.broker.records_per_partition = 30000;
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    static svg_recorder r;
    assert_true(svg_init(&r, p));
    svg_attach(&r);
    pipe_run(p);
    svg_finish(&r);
    uint32_t starts = 0;
    for (uint32_t i = 0; i < r.steps_count; i++) starts += r.steps[i].e.kind == PIPE_EV_CKPT_START;
    assert_true(starts > 36 && starts <= 72);      /* more windows than one, fewer than the limit */
    svg_opts o = { .title = "t" };
    sim_time_ns from[SVG_PANES_MAX], to[SVG_PANES_MAX];
    uint32_t shown, n = svg_panes(&r, &o, from, to, &shown);
    assert_int_equal(n, (starts + 5) / 6);
    assert_true(from[0] == 0 && to[n - 1] == r.end_ns && shown == 0);
    for (uint32_t k = 0; k < n; k++) {
        uint32_t inside = 0, at_start = k == 0;
        for (uint32_t i = 0; i < r.steps_count; i++) {
            const pipe_event *e = &r.steps[i].e;
            if (e->kind != PIPE_EV_CKPT_START) continue;
            inside += e->at_ns >= from[k] && e->at_ns < to[k];
            at_start += e->at_ns == from[k];
        }
        assert_true(inside >= 5 && inside <= 7);
        assert_true(at_start >= 1);                 /* cut where a checkpoint starts */
        if (k > 0) assert_true(from[k] == to[k - 1]);
    }
    html_page pg = { .title = "long", .summary = "", .rec = &r, .opts = &o };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    html_write(f, &pg);
    fclose(f);
    assert_int_equal(count_of(text, "<div class=\"sd-pane"), n);
    assert_int_equal(count_of(text, "<div class=\"sd-pane on\" id=\"sd-pane-0\">"), 1);
    assert_int_equal(count_of(text, "\"axis\":[["), n);
    assert_int_equal(count_of(text, "class=\"tlpane"), n);
    free(text);
    svg_free(&r);
    pipe_destroy(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_long_run_is_drawn_in_windows_that_tile_it_at_checkpoint_starts),
        cmocka_unit_test(test_the_page_embeds_every_step_as_json_its_script_cannot_end_early),
        cmocka_unit_test(test_the_page_is_self_contained_marks_its_steps_and_is_the_same_every_time),
        cmocka_unit_test(test_the_page_has_one_picture_per_checkpoint_the_first_shown_each_with_its_tasks),
        cmocka_unit_test(test_a_big_job_embeds_as_many_pictures_as_the_boxes_allow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
