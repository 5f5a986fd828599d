/* tests/test_choice.c: the choice point and its record/replay strategies.
 * Replaying a recorded log under another seed must reproduce the recorded
 * run exactly: that proves every decision of the run went through the
 * choice point (a decision taken behind its back would follow the new seed
 * and change the trace hash). */
#include "harness.h"

#include <stdlib.h>

#include "../sim/choice.h"
#include "../sim/phold.h"

static sim_run *phold(uint64_t seed) {
    phold_cfg pc = phold_cfg_default();
    pc.seed = seed;
    pc.lps = 50;
    pc.events = 20000;
    return phold_create(&pc);
}

static void test_recording_does_not_change_the_run(void **state) {
    (void)state;
    sim_run *plain = phold(3);
    sim_run_start(plain);
    sim_run_loop(plain);

    choice_entry *entries = malloc(sizeof(choice_entry) * 100000);
    choice_log log;
    choice_log_init(&log, entries, 100000);
    sim_run *recd = phold(3);
    choice_record(recd, &log);
    sim_run_start(recd);
    sim_run_loop(recd);
    assert_true(recd->trace_hash == plain->trace_hash);
    assert_int_equal(log.count, recd->stats.choices);
    assert_false(log.overflow);
    sim_run_destroy(plain);
    sim_run_destroy(recd);
    free(entries);
}

static void test_replaying_a_log_under_another_seed_reproduces_the_run(void **state) {
    (void)state;
    choice_entry *entries = malloc(sizeof(choice_entry) * 100000);
    choice_log log;
    choice_log_init(&log, entries, 100000);
    sim_run *recd = phold(3);
    choice_record(recd, &log);
    sim_run_start(recd);
    sim_run_loop(recd);

    sim_run *other = phold(4);                 /* a different seed ... */
    sim_run_start(other);
    sim_run_loop(other);
    assert_true(other->trace_hash != recd->trace_hash);

    sim_run *rep = phold(4);                   /* ... driven by the log */
    choice_replay(rep, &log);
    sim_run_start(rep);
    sim_run_loop(rep);
    assert_false(log.diverged);
    assert_int_equal(log.cursor, log.count);
    assert_true(rep->trace_hash == recd->trace_hash);
    sim_run_destroy(recd);
    sim_run_destroy(other);
    sim_run_destroy(rep);
    free(entries);
}

static void test_replay_of_a_truncated_log_reports_where_it_diverged(void **state) {
    (void)state;
    choice_entry *entries = malloc(sizeof(choice_entry) * 1000);
    choice_log log;
    choice_log_init(&log, entries, 1000);
    sim_run *recd = phold(3);
    choice_record(recd, &log);
    sim_run_start(recd);
    sim_run_loop(recd);
    assert_true(log.overflow);                 /* the run took far more than 1000 */

    sim_run *rep = phold(4);
    choice_replay(rep, &log);
    sim_run_start(rep);
    assert_int_equal(sim_run_loop(rep), SIM_STOP_REQUESTED);   /* still finishes */
    assert_true(log.diverged);
    assert_int_equal(log.diverged_at, 1000);
    sim_run_destroy(recd);
    sim_run_destroy(rep);
    free(entries);
}

/* A strategy that always takes the first option (delay 0 draws the largest
 * exponential; PICK and DROP pick 0): every LP then sends to LP 0 and every
 * message is "remote" (0 < num). A plug-in changes the run without any
 * change to the model. */
static uint32_t first_choice(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    (void)run;
    (void)stream;
    uint64_t *counts = ctx;
    counts[kind]++;
    return n == 0 ? UINT32_MAX / 2 : 0;
}

static void test_a_plugged_in_strategy_takes_every_decision(void **state) {
    (void)state;
    uint64_t counts[SIM_CHOICE_KIND_COUNT] = { 0 };
    sim_run *run = phold(3);
    run->chooser = (sim_chooser){ .choose = first_choice, .ctx = counts };
    sim_run_start(run);
    sim_run_loop(run);
    /* Per event: one delay, one remote-or-not, one target. */
    uint64_t sends = 20000 - 1 + 50;
    assert_int_equal(counts[SIM_CHOICE_DELAY], sends);
    assert_int_equal(counts[SIM_CHOICE_BRANCH], sends);
    assert_int_equal(counts[SIM_CHOICE_PICK], sends);
    assert_int_equal(run->stats.choices, 3 * sends);
    /* Everything went to LP 0: it handled every message. */
    assert_int_equal(run->actors[0].delivered, 20000 + 1);
    sim_run_destroy(run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recording_does_not_change_the_run),
        cmocka_unit_test(test_replaying_a_log_under_another_seed_reproduces_the_run),
        cmocka_unit_test(test_replay_of_a_truncated_log_reports_where_it_diverged),
        cmocka_unit_test(test_a_plugged_in_strategy_takes_every_decision),
    };
    return cmocka_run_group_tests_name("choice", tests, NULL, NULL);
}
