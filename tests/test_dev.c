/* tests/test_dev.c: the storage device: timing, queueing, slow and failing
 * windows, completions to crashed actors. */
#include "harness.h"

static recorder log_;

typedef struct store_run {
    sim_run *run;
    uint32_t writer, dev;
} store_run;

static void store_build(store_run *s, uint64_t seed, rec_ctx *ctx) {
    sim_cfg c = test_cfg(seed);
    s->run = sim_run_create(&c);
    uint32_t m = sim_machine_add(s->run, "m");
    s->writer = sim_actor_add(s->run, "writer", m, rec_handler, ctx);
    /* 1 ms latency, 1 MB/s: 1000 bytes transfer in 1 ms. */
    s->dev = dev_add(s->run, "store", &(dev_cfg){ .latency_ns = 1000000, .bandwidth_bytes_per_s = 1000000 });
}

static void test_store_ops_queue_behind_each_other_then_pay_latency(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_ };
    store_run s;
    store_build(&s, 1, &ctx);
    sim_run_start(s.run);
    sim_step(s.run);
    assert_int_equal(dev_write(s.run, s.dev, s.writer, 1000, 11), 2000000);
    assert_int_equal(dev_write(s.run, s.dev, s.writer, 2000, 12), 4000000);
    assert_int_equal(dev_read(s.run, s.dev, s.writer, 1000, 13), 5000000);
    sim_run_loop(s.run);
    assert_int_equal(rec_count(&log_, s.writer, SIM_EV_IO_DONE), 3);
    const rec *r = &log_.items[1];
    assert_int_equal(r->kind, SIM_EV_IO_DONE);
    assert_int_equal(r->at_ns, 2000000);
    assert_int_equal(r->gen, DEV_OK);
    assert_int_equal(r->msg.a, 11);
    assert_int_equal(r->msg.b, 1000);
    assert_int_equal(r->msg.type, DEV_OP_WRITE);
    assert_int_equal(log_.items[3].msg.type, DEV_OP_READ);
    assert_int_equal(s.run->devs[s.dev].bytes_written, 3000);
    sim_run_destroy(s.run);
}

static void test_slow_windows_multiply_time_and_stack(void **state) {
    (void)state;
    rec_ctx ctx = { .log = &log_ };
    store_run s;
    store_build(&s, 1, &ctx);
    fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_SLOW, .at_ns = 0, .duration_ns = 100, .target = s.dev, .factor = 3 });
    fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_SLOW, .at_ns = 0, .duration_ns = 200, .target = s.dev, .factor = 5 });
    sim_run_start(s.run);
    for (int i = 0; i < 3; i++) sim_step(s.run);   /* both windows begin, then START */
    assert_int_equal(s.run->devs[s.dev].slow_extra, 2 + 4);
    /* factor 7: 7 ms transfer + 7 ms latency */
    assert_int_equal(dev_write(s.run, s.dev, s.writer, 1000, 0), 14000000);
    sim_run_loop(s.run);
    assert_int_equal(s.run->devs[s.dev].slow_extra, 0);
    sim_time_ns now = s.run->now_ns;
    sim_actor_restart(s.run, s.writer);        /* still up: no-op */
    assert_int_equal(dev_write(s.run, s.dev, s.writer, 1000, 0), now + 2000000);
    sim_run_destroy(s.run);
}

/* A slow window settles when the last operation issued inside it
 * completed, which the liveness check (I6) counts from; a window with no
 * operation settles at its end, and operations issued after it do not
 * move it. */
static void test_slow_window_settles_when_what_it_slowed_completed(void **state) {
    (void)state;
    rec_ctx ctx = { .log = &log_ };
    store_run s;
    store_build(&s, 1, &ctx);
    uint32_t busy = fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_SLOW, .at_ns = 0, .duration_ns = 100,
                                                    .target = s.dev, .factor = 4 });
    uint32_t idle = fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_SLOW, .at_ns = 50000000, .duration_ns = 1000,
                                                    .target = s.dev, .factor = 4 });
    assert_int_equal(fault_settled(s.run, busy), 100);            /* not begun: its planned end */
    sim_run_start(s.run);
    for (int i = 0; i < 2; i++) sim_step(s.run);   /* the window begins, then START */
    assert_int_equal(dev_write(s.run, s.dev, s.writer, 1000, 0), 8000000);   /* 4 ms transfer + 4 ms latency */
    sim_step(s.run);                               /* the window ends at 100 ns */
    assert_int_equal(dev_write(s.run, s.dev, s.writer, 1000, 0), 6000000);   /* behind it, at normal speed */
    sim_run_loop(s.run);
    assert_int_equal(fault_settled(s.run, busy), 8000000);
    assert_int_equal(fault_settled(s.run, idle), 50001000);
    sim_run_destroy(s.run);
}

static void writer_loop(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (ev->kind == SIM_EV_START || (ev->kind == SIM_EV_IO_DONE && run->now_ns < 300000000)) {
        dev_write(run, 0, self->id, 1000, run->now_ns);
        dev_read(run, 0, self->id, 10, run->now_ns);
    }
}

static void test_writes_fail_only_inside_the_fail_window_and_reads_never(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = writer_loop };
    store_run s;
    store_build(&s, 1, &ctx);
    fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_FAIL, .at_ns = 100000000, .duration_ns = 100000000,
                                    .target = s.dev, .ratio = SIM_RATIO_ALWAYS });
    sim_run_start(s.run);
    sim_run_loop(s.run);
    uint32_t failed = 0, ok_in_window = 0;
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_IO_DONE) continue;
        sim_time_ns issued = r->msg.a;
        bool in_window = issued >= 100000000 && issued < 200000000;
        if (r->msg.type == DEV_OP_READ) {
            assert_int_equal(r->gen, DEV_OK);
        } else if (r->gen == DEV_FAILED) {
            assert_true(in_window);
            failed++;
        } else {
            ok_in_window += in_window;
        }
    }
    assert_true(failed > 10);
    assert_int_equal(ok_in_window, 0);
    assert_int_equal(s.run->devs[s.dev].failed_writes, failed);
    sim_run_destroy(s.run);
}

/* What the writer was told, by status, for writes issued inside and
 * outside [lo, hi); reads never fail nor are ambiguous. */
typedef struct told {
    uint32_t in[3], out[3];     /* by DEV_OK, DEV_FAILED, DEV_AMBIGUOUS */
} told;

static told told_in_window(sim_time_ns lo, sim_time_ns hi) {
    told t = { { 0 }, { 0 } };
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_IO_DONE) continue;
        if (r->msg.type == DEV_OP_READ) {
            assert_int_equal(r->gen, DEV_OK);
            continue;
        }
        assert_true(r->gen <= DEV_AMBIGUOUS);
        bool in = r->msg.a >= lo && r->msg.a < hi;    /* the tag is the issue time */
        if (in) t.in[r->gen]++; else t.out[r->gen]++;
    }
    return t;
}

/* A 1/4 ambiguous window: about a quarter of the writes issued inside it
 * come back DEV_AMBIGUOUS, none outside, no read ever; the store did them
 * all (bytes_written counts every write), and the same seed draws the
 * same ones. */
static void test_ambiguous_writes_happen_but_are_reported_ambiguous_at_the_window_ratio(void **state) {
    (void)state;
    uint32_t counts[2];
    for (int run_no = 0; run_no < 2; run_no++) {
        log_.count = 0;
        rec_ctx ctx = { .log = &log_, .hook = writer_loop };
        store_run s;
        store_build(&s, 1, &ctx);
        fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_AMBIGUOUS, .at_ns = 100000000, .duration_ns = 100000000,
                                        .target = s.dev, .ratio = { 1, 4 } });
        sim_run_start(s.run);
        sim_run_loop(s.run);
        told t = told_in_window(100000000, 200000000);
        const sim_dev *d = &s.run->devs[s.dev];
        uint32_t in_window = t.in[DEV_OK] + t.in[DEV_AMBIGUOUS];
        assert_true(in_window >= 40);
        uint32_t amb = t.in[DEV_AMBIGUOUS];
        assert_true(amb * 8 >= in_window && amb * 8 <= in_window * 3);   /* 1/8 .. 3/8 */
        assert_int_equal(t.out[DEV_AMBIGUOUS], 0);
        assert_int_equal(t.in[DEV_FAILED] + t.out[DEV_FAILED], 0);
        assert_int_equal(d->ambiguous_writes, t.in[DEV_AMBIGUOUS]);
        assert_int_equal(d->failed_writes, 0);
        assert_int_equal(d->bytes_written, d->writes * 1000);
        assert_int_equal(d->writes, in_window + t.out[DEV_OK]);
        assert_int_equal(d->ambiguous.num, 0);         /* the window closed */
        counts[run_no] = t.in[DEV_AMBIGUOUS];
        sim_run_destroy(s.run);
    }
    assert_int_equal(counts[0], counts[1]);
    assert_int_equal(counts[0], 56);                   /* seed 1: 56 of 198, recorded; the draws are the fault's */
}

/* Nested ambiguous windows: the strongest governs (a certain one inside a
 * 1/2 one makes every write ambiguous, the 1/2 one governs again after);
 * a write a fail window fails is failed, not ambiguous: it did not happen. */
static void test_ambiguous_windows_nest_like_fail_windows_and_a_failed_write_is_not_ambiguous(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = writer_loop };
    store_run s;
    store_build(&s, 1, &ctx);
    sim_time_ns ms = 1000000;
    fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_AMBIGUOUS, .at_ns = 50 * ms, .duration_ns = 150 * ms,
                                    .target = s.dev, .ratio = { 1, 2 } });
    uint32_t inner = fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_AMBIGUOUS, .at_ns = 100 * ms,
                                                     .duration_ns = 50 * ms, .target = s.dev,
                                                     .ratio = SIM_RATIO_ALWAYS });
    fault_add(s.run, &(fault_spec){ .kind = FAULT_DEV_FAIL, .at_ns = 120 * ms, .duration_ns = 10 * ms,
                                    .target = s.dev, .ratio = SIM_RATIO_ALWAYS });
    sim_run_start(s.run);
    s.run->cfg.time_max_ns = 110 * ms;
    sim_run_loop(s.run);
    assert_int_equal(s.run->devs[s.dev].ambiguous_fault, inner);
    s.run->cfg.time_max_ns = 1000ull * SIM_NS_PER_S;
    sim_run_loop(s.run);
    told inner_only = told_in_window(100 * ms, 120 * ms), failing = told_in_window(120 * ms, 130 * ms);
    told after = told_in_window(150 * ms, 200 * ms);
    assert_int_equal(inner_only.in[DEV_OK] + inner_only.in[DEV_FAILED], 0);      /* all ambiguous */
    assert_true(inner_only.in[DEV_AMBIGUOUS] > 5);
    assert_int_equal(failing.in[DEV_OK] + failing.in[DEV_AMBIGUOUS], 0);         /* all failed */
    assert_true(failing.in[DEV_FAILED] > 2);
    assert_true(after.in[DEV_OK] > 0 && after.in[DEV_AMBIGUOUS] > 0);            /* 1/2 again */
    const sim_dev *d = &s.run->devs[s.dev];
    assert_int_equal(d->ambiguous_fault, UINT32_MAX);
    assert_int_equal(d->failed_writes + d->ambiguous_writes, told_in_window(0, 1000 * ms).in[DEV_FAILED] +
                                                             told_in_window(0, 1000 * ms).in[DEV_AMBIGUOUS]);
    sim_run_destroy(s.run);
}

static void test_completion_to_a_crashed_writer_is_dropped(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_ };
    store_run s;
    store_build(&s, 1, &ctx);
    sim_run_start(s.run);
    sim_step(s.run);
    dev_write(s.run, s.dev, s.writer, 1000, 1);
    sim_actor_crash(s.run, s.writer);
    sim_actor_restart(s.run, s.writer);        /* a new incarnation */
    sim_run_loop(s.run);
    assert_int_equal(rec_count(&log_, s.writer, SIM_EV_IO_DONE), 0);
    assert_int_equal(rec_count(&log_, s.writer, SIM_EV_START), 2);
    assert_int_equal(s.run->stats.dropped_down, 1);
    assert_int_equal(s.run->devs[s.dev].writes, 1);   /* the write itself happened */
    sim_run_destroy(s.run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_ops_queue_behind_each_other_then_pay_latency),
        cmocka_unit_test(test_slow_windows_multiply_time_and_stack),
        cmocka_unit_test(test_slow_window_settles_when_what_it_slowed_completed),
        cmocka_unit_test(test_writes_fail_only_inside_the_fail_window_and_reads_never),
        cmocka_unit_test(test_completion_to_a_crashed_writer_is_dropped),
        cmocka_unit_test(test_ambiguous_writes_happen_but_are_reported_ambiguous_at_the_window_ratio),
        cmocka_unit_test(test_ambiguous_windows_nest_like_fail_windows_and_a_failed_write_is_not_ambiguous),
    };
    return cmocka_run_group_tests_name("dev", tests, NULL, NULL);
}
