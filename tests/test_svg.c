/* tests/test_svg.c: the space-time diagram (reports/svg.c, svgdraw.c)
 * keeps every protocol step and message of a run, tells lost messages
 * from delivered ones, draws a picture that XML readers take, the same
 * bytes every time, and changes nothing in the run. */
#include "harness.h"

#include <math.h>
#include <stdlib.h>

#include "../model/proto.h"
#include "../reports/svg.h"

#define CRASH_AT (30 * SIM_NS_PER_MS)
#define CRASH_FOR (25 * SIM_NS_PER_MS)   /* heartbeats, whose words repeat, are lost to it */

static pipe_cfg small_job(void) {
    pipe_cfg c = pipe_cfg_default(3);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, 2, 2, 1 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.broker.partitions = 4;
    c.broker.records_per_partition = 5000;
    c.broker.keys = 100;
    c.source_rate_per_s = 200000;
    c.ckpt.interval_ns = 8 * SIM_NS_PER_MS;
    c.machines = 2;
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .at_ns = CRASH_AT, .duration_ns = CRASH_FOR,
                                               .target = 1 };
    return c;
}

typedef struct run_pic {
    uint64_t hash, steps_seen;
    char    *svg;
    size_t   len;
    uint32_t lost_at_once, lost_in_flight, delivered, steps, against_log, completions;
    sim_time_ns from, to;
    axis        ax;                   /* the diagram's time axis, as laid out */
} run_pic;

static void count_steps(void *ctx, const pipe_event *e) {
    run_pic *x = ctx;
    x->steps_seen += e->kind != PIPE_EV_CONSUME && e->kind != PIPE_EV_SEND && e->kind != PIPE_EV_RECV;
}

/* Whether the kernel's log says of m what the recorder does: a message
 * drawn delivered has a "delivered" line on its link, with its words, at
 * its arrival; one drawn lost on the way a "dropped" line at its due time
 * (no receiver in these runs is paused, so nothing is deferred). 1 when
 * it was checked and agrees; fails the test when it disagrees. */
static uint32_t fate_as_logged(const char *log, const svg_msg *m) {
    bool delivered = (m->flags & SVG_DELIVERED) != 0;
    if (!delivered && !(m->flags & SVG_LOST_IN_FLIGHT)) return 0;   /* refused at the send: never an event */
    sim_time_ns at = delivered ? m->recv_ns : m->due_ns;
    char want[160];
    snprintf(want, sizeof want, "t=%llu.%09llu msg ", (unsigned long long)(at / SIM_NS_PER_S),
             (unsigned long long)(at % SIM_NS_PER_S));
    char words[120];
    snprintf(words, sizeof words, " link=%u type=%u a=%llu b=%llu %s", m->link, m->msg, (unsigned long long)m->a,
             (unsigned long long)m->b, delivered ? "delivered" : "dropped");
    for (const char *l = strstr(log, want); l != NULL; l = strstr(l + 1, want)) {
        const char *end = strchr(l, '\n');
        const char *w = strstr(l, words);
        if (w != NULL && (end == NULL || w < end)) return 1;
    }
    fail_msg("message type %u on link %u sent at %llu ns is drawn %s, the kernel's log has no such line at %llu ns",
             m->msg, m->link, (unsigned long long)m->sent_ns, delivered ? "delivered" : "lost", (unsigned long long)at);
    return 0;
}

/* One run with a recorder (pictured) or without; the sink's RPCs are lost
 * from 20 to 24 ms, machine 1 crashes at 30 ms. */
static run_pic run_once(bool pictured) {
    pipe_cfg c = small_job();
    char err[256];
    pipeline *p = pipe_create(&c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    uint32_t sink = pipe_job(p)->tasks_count - 1;
    fault_add(pipe_sim(p), &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 20 * SIM_NS_PER_MS, .duration_ns = 4 * SIM_NS_PER_MS,
                                          .ratio = SIM_RATIO_ALWAYS, .target = pipe_task_rpc_link(p, sink) });
    run_pic x = { 0 };
    static svg_recorder r;
    char *log = NULL;
    size_t log_len = 0;
    FILE *logf = NULL;
    if (pictured) {
        assert_true(svg_init(&r, p));
        assert_true(svg_keep_holds(&r));
        pipe_observe(p, count_steps, &x);
        svg_attach(&r);
        logf = open_memstream(&log, &log_len);
        pipe_sim(p)->cfg.log = logf;             /* the kernel's own account of every message's fate */
    }
    pipe_run(p);
    if (logf != NULL) fclose(logf);
    x.hash = pipe_sim(p)->trace_hash;
    if (pictured) {
        uint8_t on_machine_1[16] = { 0 };
        for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) on_machine_1[t] = pipe_job(p)->tasks[t].machine == 1;
        svg_fault f = { .begin_ns = CRASH_AT, .end_ns = CRASH_AT + CRASH_FOR, .ended = true, .crash = true,
                        .tasks = on_machine_1, .text = "fault at 30ms crash machine 1 for 25ms" };
        assert_true(svg_add_fault(&r, &f));
        svg_finish(&r);
        for (uint32_t i = 0; i < r.steps_count; i++) {   /* a completion's contents stay with it, the faults put among the steps */
            size_t len = 0;
            const char *h = svg_step_holds(&r, i, &len);
            bool completion = r.steps[i].fault == SVG_NONE && r.steps[i].e.kind == PIPE_EV_CKPT_COMPLETE;
            if (completion != (h != NULL)) fail_msg("step %u (%s): contents %s", i, completion ? "a completion" : "not one",
                                                     h != NULL ? "kept" : "missing");
            x.completions += completion;
        }
        for (uint32_t i = 0; i < r.msgs_count; i++) {
            const svg_msg *m = &r.msgs[i];
            x.lost_at_once += (m->flags & SVG_LOST_AT_ONCE) != 0;
            x.lost_in_flight += (m->flags & SVG_LOST_IN_FLIGHT) != 0;
            x.delivered += (m->flags & SVG_DELIVERED) != 0;
            if (m->flags & SVG_DELIVERED) assert_true(m->recv_ns >= m->sent_ns && m->recv_ns >= m->due_ns);
            x.against_log += fate_as_logged(log, m);
        }
        free(log);
        x.steps = r.steps_count;
        svg_opts o = { .title = "test <&> run" };
        svg_window(&r, &o, &x.from, &x.to);
        FILE *f2 = open_memstream(&x.svg, &x.len);
        svg_write(&r, f2, &o, &x.ax);
        fclose(f2);
        svg_free(&r);
    }
    pipe_destroy(p);
    return x;
}

static void test_the_recorder_keeps_every_step_tells_lost_messages_and_changes_nothing(void **state) {
    (void)state;
    run_pic a = run_once(true), plain = run_once(false);
    assert_int_equal(a.hash, plain.hash);
    assert_int_equal(a.steps, a.steps_seen + 2);       /* and the crash's beginning and end */
    assert_true(a.lost_at_once > 0);                    /* the sink's RPCs in the loss window */
    assert_true(a.lost_in_flight > 0);                  /* what was on its way to the crashed machine */
    assert_true(a.delivered > 1000);
    assert_int_equal(a.against_log, a.delivered + a.lost_in_flight);   /* each drawn as the kernel's log tells it */
    assert_true(a.completions >= 3);                 /* before and after the crash: their contents found at each */
    /* The default window: from the last checkpoint before the crash to the first completed after the restart. */
    assert_true(a.from < CRASH_AT && a.to > CRASH_AT + CRASH_FOR);
    free(a.svg);
}

/* Elements of class cls before the legend that carry no hover text (end
 * their start tag with "/>"), and how many there are in all. */
static uint32_t without_title(const char *svg, const char *cls, uint32_t *all) {
    const char *legend = strstr(svg, ">Legend");
    char want[32];
    snprintf(want, sizeof want, "class=\"%s\"", cls);
    uint32_t bare = 0;
    *all = 0;
    for (const char *at = strstr(svg, want); at != NULL && (legend == NULL || at < legend); at = strstr(at + 1, want)) {
        const char *end = strchr(at, '>');
        assert_non_null(end);
        (*all)++;
        bare += end[-1] == '/';
    }
    return bare;
}

typedef struct text_box { double x0, x1, y0, y1; } text_box;

/* Pairs of annotations (classes sm and dn) before the legend whose boxes
 * meet, with the advance the diagram assumes (5 px a character at 9 px,
 * 4.4 at 8 px); and how many annotations there are. */
static uint32_t overlapping_labels(const char *svg, uint32_t *all) {
    const char *legend = strstr(svg, ">Legend");
    static text_box box[4096];
    uint32_t n = 0, pairs = 0;
    for (const char *at = strstr(svg, "<text x=\""); at != NULL && at < legend && n < 4096; at = strstr(at + 1, "<text x=\"")) {
        double x, y;
        char cls[8];
        if (sscanf(at, "<text x=\"%lf\" y=\"%lf\" class=\"%7[a-z]\"", &x, &y, cls) != 3) continue;
        bool sm = strcmp(cls, "sm") == 0;
        if (!sm && strcmp(cls, "dn") != 0) continue;
        const char *body = strchr(at, '>') + 1, *end = strstr(body, "</text>");
        const char *title_end = strstr(body, "</title>");
        if (title_end != NULL && title_end < end) body = title_end + 8;
        uint32_t chars = 0;
        for (const char *c = body; c < end; c++) {
            if (*c == '&') c = strchr(c, ';');
            chars++;
        }
        box[n++] = (text_box){ x, x + (sm ? 5.0 : 4.4) * chars, y - (sm ? 9 : 8), y + 1 };
    }
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t j = i + 1; j < n; j++) {
            pairs += box[i].x0 < box[j].x1 && box[j].x0 < box[i].x1 && box[i].y0 < box[j].y1 && box[j].y0 < box[i].y1;
        }
    }
    *all = n;
    return pairs;
}

static void test_the_picture_is_xml_the_same_bytes_every_time_and_draws_what_happened(void **state) {
    (void)state;
    run_pic a = run_once(true), b = run_once(true);
    assert_int_equal(a.len, b.len);
    assert_memory_equal(a.svg, b.svg, a.len);
    assert_non_null(strstr(a.svg, "<?xml version=\"1.0\""));
    assert_non_null(strstr(a.svg, "test &lt;&amp;&gt; run"));
    assert_true(count_of(a.svg, "class=\"b\"") > 10);    /* barriers */
    assert_true(count_of(a.svg, "class=\"lostx\"") > 1); /* lost messages end in a cross */
    assert_true(count_of(a.svg, "class=\"crash\"") >= 1);
    assert_true(count_of(a.svg, "class=\"down\"") >= 1); /* the crashed tasks' lines while down */
    assert_true(count_of(a.svg, "class=\"blk\"") >= 1);  /* an input blocked for alignment */
    assert_true(count_of(a.svg, "class=\"sync\"") >= 1 && count_of(a.svg, "class=\"async\"") >= 1);
    assert_null(strstr(a.svg, "data-s="));               /* steps are marked for the viewer only */
    static const char *const hover[] = { "b", "d", "rpc", "tr", "note", "lost", "lostx", "blk", "sync", "async", "flt",
                                         "crash", "down", "life", "gap", "flbl", "cut" };
    for (uint32_t k = 0; k < sizeof hover / sizeof hover[0]; k++) {   /* every arrow, bar and mark says what it was */
        uint32_t all, bare = without_title(a.svg, hover[k], &all);
        if (bare != 0 || all == 0) fail_msg("class %s: %u of %u elements without hover text", hover[k], bare, all);
    }
    assert_true(count_of(a.svg, "<title>t=") > 20);     /* the protocol steps' marks: when, who, what */
    uint32_t cuts = 0;                                   /* a completed checkpoint's cut: a point on every task's line */
    for (const char *c = strstr(a.svg, "<polyline class=\"cut\""); c != NULL; c = strstr(c + 1, "<polyline class=\"cut\"")) {
        const char *pts = strstr(c, "points=\""), *end = strchr(pts + 8, '"');
        uint32_t points = 0;
        for (const char *q = pts; q < end; q++) points += *q == ',';
        assert_int_equal(points, 7);
        cuts++;
    }
    assert_true(cuts >= 2);
    uint32_t labels, touching = overlapping_labels(a.svg, &labels);
    if (labels < 10 || touching != 0) fail_msg("%u of the %u annotations' boxes meet another's", touching, labels);
    uint32_t breaks = 0;                                 /* one time scale, but for breaks labelled with their length */
    for (uint32_t s = 0; s < a.ax.count; s++) {
        const axis_seg *g = &a.ax.seg[s];
        char label[48];
        snprintf(label, sizeof label, ">%.2f ms</text>", (double)(g->t1 - g->t0) / 1e6);
        if (g->gap) breaks += strstr(a.svg, label) != NULL;
        else assert_true(fabs((g->x1 - g->x0) / (double)(g->t1 - g->t0) / a.ax.px_per_ns - 1) < 1e-9);
    }
    assert_true(breaks >= 1);
    for (uint32_t s = 0; s < a.ax.count; s++) breaks -= a.ax.seg[s].gap;
    assert_int_equal(breaks, 0);
    char path[] = "/tmp/absim-test-svg-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fwrite(a.svg, 1, a.len, f);
    fclose(f);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "xmllint --noout %s", path);   /* libxml2-utils: a test dependency (tests/deps.sh) */
    assert_int_equal(system(cmd), 0);
    remove(path);
    free(a.svg);
    free(b.svg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_recorder_keeps_every_step_tells_lost_messages_and_changes_nothing),
        cmocka_unit_test(test_the_picture_is_xml_the_same_bytes_every_time_and_draws_what_happened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
