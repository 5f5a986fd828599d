/* tests/test_space.c: the space of absim explore (scenarios/space.h): the
 * protocol points a run reaches, each once and each the point a `fault
 * when` line names, and the fault menu: every kind on every target, with
 * the reader's refusals left out. */
#include "harness.h"

#include "../scenarios/space.h"
#include "../model/pipe.h"

#include <stdlib.h>

static scn s_, scratch_;

static void parse_ok(const char *text) {
    char err[SCN_ERR_BYTES];
    bool ok = scn_parse(&s_, "t.scn", text, strlen(text), err, sizeof err);
    if (!ok) fail_msg("%s", err);
}

/* The points of one run of s_ (the pipeline stays for the job). */
static pipeline *observe(spc_points *ps) {
    char err[SCN_ERR_BYTES];
    pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(p);
    assert_true(spc_points_init(ps, pipe_job(p)));
    static scn_armed arm;
    scn_arm_faults(&s_, p, &arm, spc_points_observe, ps);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    return p;
}

static void count_points(const spc_points *ps, uint32_t by_point[8]) {
    memset(by_point, 0, 8 * sizeof *by_point);
    for (uint32_t i = 0; i < ps->count; i++) by_point[ps->at[i].point]++;
}

/* Every checkpoint of the run gives: a start and a completion; a trigger
 * and a sync part at each of the 7 tasks; at most 3 alignments (2 join
 * tasks and the sink, when a barrier blocked an input); at most one
 * commit of the sink. Each point once, in the order of time. */
static void test_space_points_are_each_protocol_point_once_in_order(void **state) {
    (void)state;
    parse_ok(HARNESS_JOIN_JOB);
    spc_points ps;
    pipeline *p = observe(&ps);
    uint64_t n = pipe_get_stats(p)->completed;
    assert_true(n >= 2);
    uint32_t by[8];
    count_points(&ps, by);
    assert_int_equal(by[SCN_WHEN_STARTS], n);
    assert_int_equal(by[SCN_WHEN_COMPLETES], n);
    assert_int_equal(by[SCN_WHEN_TRIGGERS], 7 * n);
    assert_int_equal(by[SCN_WHEN_SNAPSHOT_SYNC], 7 * n);
    assert_true(by[SCN_WHEN_ALIGNING] >= 1 && by[SCN_WHEN_ALIGNING] <= 3 * n);
    assert_true(by[SCN_WHEN_COMMITS] >= 1 && by[SCN_WHEN_COMMITS] <= n);
    assert_false(ps.overflow);
    for (uint32_t i = 1; i < ps.count; i++) assert_true(ps.at_ns[i - 1] <= ps.at_ns[i]);
    for (uint32_t i = 0; i < ps.count; i++) {
        for (uint32_t k = 0; k < i; k++) {
            const scn_fault *a = &ps.at[i], *b = &ps.at[k];
            assert_false(a->point == b->point && a->point_ckpt == b->point_ckpt && a->point_vertex == b->point_vertex &&
                         a->point_subtask == b->point_subtask);
        }
    }
    spc_points_free(&ps);
    pipe_destroy(p);
}

/* A point is one word and back (what --depth 2 keeps of the points after
 * the first fault), and a reset set takes a second run's points as the
 * first run's were taken. */
static void test_space_point_keys_round_trip_and_a_reset_set_sees_a_run_again(void **state) {
    (void)state;
    parse_ok(HARNESS_JOIN_JOB);
    spc_points ps;
    pipeline *p = observe(&ps);
    uint32_t first = ps.count;
    for (uint32_t i = 0; i < ps.count; i++) {
        scn_fault back = { 0 };
        uint64_t key = spc_point_key(&ps.at[i]);
        assert_true(key != 0);
        spc_point_of_key(key, &back);
        assert_int_equal(back.point, ps.at[i].point);
        assert_int_equal(back.point_ckpt, ps.at[i].point_ckpt);
        assert_int_equal(back.point_vertex, ps.at[i].point_vertex);
        assert_int_equal(back.point_subtask, ps.at[i].point_subtask);
    }
    char err[SCN_ERR_BYTES];
    pipeline *q = pipe_create(&s_.cfg, err, sizeof err);
    assert_non_null(q);
    spc_points_reset(&ps, pipe_job(q));
    assert_int_equal(ps.count, 0);
    static scn_armed arm;
    scn_arm_faults(&s_, q, &arm, spc_points_observe, &ps);
    pipe_run(q);
    assert_int_equal(ps.count, first);            /* the same run: the same points, none taken as seen before */
    spc_points_free(&ps);
    pipe_destroy(q);
    pipe_destroy(p);
}

static uint32_t kind_count(const spc_menu *m, scn_fault_kind k) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->count; i++) n += m->faults[i].kind == k;
    return n;
}

/* Each kind on each of its targets: 2 machines, 7 tasks, the coordinator,
 * 3 partitions (0|1, 0|jm, 1|jm), 10 channels, 4 RPC kinds per task (all
 * from it; trigger, complete, abort to it). With the memory backend, no
 * store fault: the reader refuses them, and the menu says so. */
static void test_space_menu_is_every_kind_on_every_target(void **state) {
    (void)state;
    parse_ok(HARNESS_JOIN_JOB);
    spc_points ps;
    pipeline *p = observe(&ps);
    static spc_menu m;
    spc_opts o = { .kinds = spc_kinds_all(), .window_ns = 4 * SIM_NS_PER_MS };
    spc_menu_build(&s_, pipe_job(p), &o, &scratch_, &m);
    assert_int_equal(kind_count(&m, SCN_CRASH_MACHINE), 2);
    assert_int_equal(kind_count(&m, SCN_CRASH_TASK), 7);
    assert_int_equal(kind_count(&m, SCN_CRASH_COORDINATOR), 1);
    assert_int_equal(kind_count(&m, SCN_PARTITION), 3);
    assert_int_equal(kind_count(&m, SCN_CUT_LINK), 10);
    assert_int_equal(kind_count(&m, SCN_LOSE_RPC), 28);
    assert_int_equal(kind_count(&m, SCN_DUPLICATE_RPC), 28);
    assert_int_equal(kind_count(&m, SCN_FAIL_STORE), 0);
    assert_int_equal(kind_count(&m, SCN_RESCALE), 0);         /* at a time only */
    assert_int_equal(m.refused, 4);                           /* slow, fail, ambiguous store and ha */
    assert_non_null(strstr(m.first_refusal, "durable"));
    assert_int_equal(m.count, 134);
    for (uint32_t i = 0; i < m.count; i++) {                  /* the window is the one asked for */
        const scn_fault *f = &m.faults[i];
        if (f->kind == SCN_CRASH_TASK) assert_int_equal(f->duration_ns, 0);
        if (f->kind == SCN_CRASH_MACHINE || f->kind == SCN_LOSE_RPC) assert_int_equal(f->duration_ns, 4 * SIM_NS_PER_MS);
    }
    o.kinds = 1ull << SCN_CRASH_TASK;
    spc_menu_build(&s_, pipe_job(p), &o, &scratch_, &m);
    assert_int_equal(m.count, 7);
    assert_int_equal(m.refused, 0);
    spc_points_free(&ps);
    pipe_destroy(p);
}

/* A kind at lengths of its own: each length's faults in turn, after the
 * kind at the window, each length once; a crashed task (no window, no
 * delay) once whatever the lengths. */
static void test_space_menu_offers_a_kind_at_each_length_of_its_own_once(void **state) {
    (void)state;
    parse_ok(HARNESS_JOIN_JOB);
    spc_points ps;
    pipeline *p = observe(&ps);
    static spc_menu m;
    const sim_time_ns ms = SIM_NS_PER_MS;
    spc_opts o = { .kinds = 1ull << SCN_CRASH_MACHINE, .window_ns = 4 * ms, .lengths_count = 5,
                   .lengths = { { SCN_CRASH_MACHINE, 12 * ms }, { SCN_DELAY_LINK, 9 * ms }, { SCN_CRASH_MACHINE, 4 * ms },
                                { SCN_CRASH_TASK, 3 * ms }, { SCN_CRASH_MACHINE, 12 * ms } } };
    spc_menu_build(&s_, pipe_job(p), &o, &scratch_, &m);
    assert_int_equal(kind_count(&m, SCN_CRASH_MACHINE), 4);      /* 2 machines at 4 ms, then at 12 ms */
    assert_int_equal(kind_count(&m, SCN_DELAY_LINK), 10);
    assert_int_equal(kind_count(&m, SCN_CRASH_TASK), 7);
    assert_int_equal(m.count, 21);
    assert_int_equal(m.faults[0].duration_ns, 4 * ms);
    assert_int_equal(m.faults[1].duration_ns, 4 * ms);
    assert_int_equal(m.faults[2].duration_ns, 12 * ms);
    assert_int_equal(m.faults[3].duration_ns, 12 * ms);
    for (uint32_t i = 0; i < m.count; i++) {
        const scn_fault *f = &m.faults[i];
        if (f->kind == SCN_DELAY_LINK) assert_int_equal(f->delay_ns, 9 * ms);
        if (f->kind == SCN_CRASH_TASK) assert_int_equal(f->duration_ns, 0);
    }
    o.kinds |= 1ull << SCN_CRASH_TASK;                           /* at the window, and at 3 ms: still once */
    spc_menu_build(&s_, pipe_job(p), &o, &scratch_, &m);
    assert_int_equal(kind_count(&m, SCN_CRASH_TASK), 7);
    spc_points_free(&ps);
    pipe_destroy(p);
}

/* Placement i is menu fault i % menu at point i / menu, must fire, at no
 * delay; run, it fires at its point. */
static void test_space_placement_fires_at_its_point(void **state) {
    (void)state;
    parse_ok(HARNESS_JOIN_JOB);
    spc_points ps;
    pipeline *p = observe(&ps);
    static spc_menu m;
    spc_opts o = { .kinds = 1ull << SCN_CRASH_TASK, .window_ns = 4 * SIM_NS_PER_MS };
    spc_menu_build(&s_, pipe_job(p), &o, &scratch_, &m);
    uint64_t last = (uint64_t)ps.count * m.count - 1;
    scn_fault f;
    spc_place(&ps, &m, last, &f);
    assert_int_equal(f.point, ps.at[ps.count - 1].point);
    assert_int_equal(f.point_ckpt, ps.at[ps.count - 1].point_ckpt);
    assert_int_equal(f.vertex, m.faults[m.count - 1].vertex);
    assert_false(f.optional);
    assert_int_equal(f.at_ns, 0);
    pipe_destroy(p);
    for (uint64_t i = 0; i <= last; i += last / 5) {          /* a few, first and last among them */
        spc_place(&ps, &m, i, &f);
        scratch_ = s_;
        scratch_.faults[scratch_.faults_count++] = f;
        char err[SCN_ERR_BYTES];
        pipeline *q = pipe_create(&scratch_.cfg, err, sizeof err);
        assert_non_null(q);
        static scn_armed arm;
        scn_arm_faults(&scratch_, q, &arm, NULL, NULL);
        pipe_run(q);
        assert_true(arm.reached[scratch_.faults_count - 1]);
        assert_int_equal(scn_unfired(&arm, pipe_sim(q)->now_ns, err, sizeof err), 0);
        pipe_destroy(q);
    }
    spc_points_free(&ps);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_space_points_are_each_protocol_point_once_in_order),
        cmocka_unit_test(test_space_menu_is_every_kind_on_every_target),
        cmocka_unit_test(test_space_menu_offers_a_kind_at_each_length_of_its_own_once),
        cmocka_unit_test(test_space_placement_fires_at_its_point),
        cmocka_unit_test(test_space_point_keys_round_trip_and_a_reset_set_sees_a_run_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
