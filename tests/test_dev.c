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
    };
    return cmocka_run_group_tests_name("dev", tests, NULL, NULL);
}
