/* tests/test_gate.c: the input gate's barrier handling, rule by rule, as
 * `absim gate` prints it (model/flow/gatesim.h runs the real handler). */
#include "harness.h"

#include <stdlib.h>

#include "../model/flow/gatesim.h"

static gatesim_token tokens_[1024];
static uint32_t next_[1024];

/* Runs the tokens (space separated) and returns what the gate printed, or
 * the error message prefixed with "error: ". */
static const char *run(gate_mode mode, uint32_t channels, bool legacy, bool blocked, const char *seq) {
    static char out[8192];
    static gatesim s;
    FILE *f = tmpfile();
    assert_non_null(f);
    gatesim_init(&s, mode, channels, legacy, blocked, tokens_, next_, 1024, f);
    char buf[1024], err[256];
    snprintf(buf, sizeof buf, "%s", seq);
    for (char *t = strtok(buf, " "); t != NULL; t = strtok(NULL, " ")) {
        gatesim_token tok;
        if (!gatesim_parse(t, channels, &tok, err, sizeof err) || !gatesim_feed(&s, &tok, err, sizeof err)) {
            fclose(f);
            snprintf(out, sizeof out, "error: %s", err);
            return out;
        }
    }
    rewind(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = '\0';
    fclose(f);
    for (char *p = out; *p; p++) if (*p == '\n') *p = ';';   /* one line per action -> ';' */
    return out;
}

#define ALIGNED(ch, seq)    run(GATE_ALIGNED, ch, false, false, seq)
#define ALO(ch, seq)        run(GATE_AT_LEAST_ONCE, ch, false, false, seq)
#define UNALIGNED(ch, seq)  run(GATE_UNALIGNED, ch, false, false, seq)

static void test_aligned_blocks_each_input_until_the_last_barrier_then_drains_in_arrival_order(void **state) {
    (void)state;
    assert_string_equal(run(GATE_ALIGNED, 3, false, true, "r@0 b1@0 r@0 r@1 b1@1 r@2 r@1 r@0 b1@2 r@2"),
                        "emit 0;blocked;blocked 0;blocked 0;emit 3;blocked 0;blocked 0,1;"
                        "emit 5;blocked 0,1;blocked 0,1;blocked 0,1;"
                        "trigger 1;emit 2;emit 6;emit 7;blocked;emit 9;blocked;");
}

static void test_aligned_single_input_triggers_on_its_barrier_at_once(void **state) {
    (void)state;
    assert_string_equal(ALIGNED(1, "r@0 b1@0 r@0 b2@0"), "emit 0;trigger 1;emit 2;trigger 2;");
}

static void test_aligned_newer_barrier_aborts_the_pending_checkpoint(void **state) {
    (void)state;
    /* b2 on channel 1 before b1: checkpoint 1 is subsumed, 2 aligns, and
     * the late b1 on channel 1 is obsolete (it neither blocks nor triggers). */
    assert_string_equal(run(GATE_ALIGNED, 2, false, true, "b1@0 r@1 b2@1 b1@0 r@1"),
                        "blocked 0;emit 1;blocked 0;abort 1;blocked 1;blocked 1;blocked 1;");
    assert_string_equal(ALIGNED(2, "b1@0 b2@1 r@0 b2@0 r@1"), "abort 1;emit 2;trigger 2;emit 4;");
    /* After 2 completed, a straggling b1 is ignored, records flow. */
    assert_string_equal(ALIGNED(2, "b2@0 b2@1 b1@0 r@0"), "trigger 2;emit 3;");
}

static void test_aligned_cancel_marker_aborts_and_unblocks(void **state) {
    (void)state;
    assert_string_equal(run(GATE_ALIGNED, 2, false, true, "b1@0 r@0 x1@1 r@1 b1@0"),
                        "blocked 0;blocked 0;abort 1;emit 1;blocked;emit 3;blocked;blocked;");
    /* A marker for a newer checkpoint aborts that one, and its barriers
     * that still arrive are obsolete. */
    assert_string_equal(ALIGNED(2, "x3@0 b3@1 r@1"), "abort 3;emit 2;");
    /* A marker for an old checkpoint changes nothing. */
    assert_string_equal(ALIGNED(2, "b2@0 b2@1 x1@0 r@0"), "trigger 2;emit 3;");
}

static void test_aligned_end_of_partition_counts_as_that_inputs_barrier(void **state) {
    (void)state;
    assert_string_equal(ALIGNED(3, "b1@0 e@1 r@2 b1@2 r@0"), "emit 1;emit 2;trigger 1;emit 4;");
    assert_string_equal(ALIGNED(2, "b1@0 r@0 e@1"), "trigger 1;emit 2;emit 1;");
    /* An input that ended before the checkpoint is not waited for. */
    assert_string_equal(ALIGNED(2, "e@1 b1@0"), "emit 0;trigger 1;");
}

static void test_aligned_legacy_end_of_partition_aborts_the_pending_checkpoint(void **state) {
    (void)state;
    assert_string_equal(run(GATE_ALIGNED, 2, true, false, "b1@0 r@0 e@1"), "abort 1;emit 2;emit 1;");
    assert_string_equal(run(GATE_ALIGNED, 2, true, false, "e@1 b1@0"), "emit 0;trigger 1;");
}

static void test_at_least_once_never_blocks_and_triggers_when_all_barriers_came(void **state) {
    (void)state;
    assert_string_equal(run(GATE_AT_LEAST_ONCE, 2, false, true, "b1@0 r@0 r@1 b1@1 r@0"),
                        "blocked;emit 1;blocked;emit 2;blocked;trigger 1;blocked;emit 4;blocked;");
    assert_string_equal(ALO(1, "r@0 b1@0 b2@0"), "emit 0;trigger 1;trigger 2;");
}

static void test_at_least_once_tracks_several_checkpoints_and_late_barriers_complete_older(void **state) {
    (void)state;
    assert_string_equal(ALO(2, "b1@0 b2@0 b1@1 b2@1"), "trigger 1;trigger 2;");
    /* Completing 2 drops 1 silently; its late barrier starts nothing. */
    assert_string_equal(ALO(2, "b1@0 b2@0 b2@1 b1@1 r@1"), "trigger 2;emit 4;");
}

static void test_at_least_once_cancel_marker_aborts_it_and_every_older_one(void **state) {
    (void)state;
    assert_string_equal(ALO(2, "b1@0 b2@0 b3@0 x2@1 b3@1"), "abort 1;abort 2;trigger 3;");
    /* Marker for a checkpoint never seen: abort it; its barriers are then ignored. */
    assert_string_equal(ALO(2, "x5@0 b5@1 b6@0 b6@1"), "abort 5;trigger 6;");
}

static void test_at_least_once_end_of_partition_completes_or_legacy_aborts(void **state) {
    (void)state;
    assert_string_equal(ALO(3, "b1@0 b1@1 e@2"), "trigger 1;emit 2;");
    assert_string_equal(ALO(2, "b1@0 b2@0 e@1"), "trigger 2;emit 2;");   /* 1 dropped with it */
    assert_string_equal(run(GATE_AT_LEAST_ONCE, 2, true, false, "b1@0 b2@0 e@1 b3@0"),
                        "abort 1;abort 2;emit 2;trigger 3;");
}

static void test_unaligned_triggers_on_the_first_barrier_and_persists_overtaken_records(void **state) {
    (void)state;
    assert_string_equal(UNALIGNED(2, "r@1 b1@0 r@1 r@0 r@1 b1@1 r@1"),
                        "emit 0;trigger 1;persist 1 2;emit 2;emit 3;persist 1 4;emit 4;emit 6;");
    /* A newer barrier before the old one completed aborts it. */
    assert_string_equal(UNALIGNED(2, "b1@0 b2@0 r@1 b2@1"), "trigger 1;abort 1;trigger 2;persist 2 2;emit 2;");
    /* An ended input has nothing more to persist. */
    assert_string_equal(UNALIGNED(2, "b1@0 e@1 r@0"), "trigger 1;emit 1;emit 2;");
}

/* Aligned with a timeout (Flink 1.14+): the checkpoint being aligned
 * switches to unaligned: it triggers at once, the blocked input's queued
 * data (after its barrier) is released unpersisted, and the other input's
 * records persist until its barrier comes. The next checkpoint is aligned. */
static void test_alignment_timeout_switches_the_pending_checkpoint_to_unaligned(void **state) {
    (void)state;
    assert_string_equal(ALIGNED(2, "b1@0 r@0 r@1 t1 r@1 b1@1 r@1"),
                        "emit 2;trigger 1;emit 1;persist 1 4;emit 4;emit 6;");   /* r@1 (2) came before: state */
    assert_string_equal(ALIGNED(2, "b1@0 r@0 t1 b1@1 b2@0 r@0 b2@1"), "trigger 1;emit 1;trigger 2;emit 5;");
    assert_string_equal(ALIGNED(2, "t1 b1@0 t2 r@1 b1@1"), "emit 3;trigger 1;");   /* not pending: nothing */
}

/* A priority barrier overtakes its channel's queue; an aligned gate takes
 * it as an unaligned checkpoint; an obsolete one changes nothing. */
static void test_priority_barrier_overtakes_queued_records(void **state) {
    (void)state;
    assert_string_equal(UNALIGNED(2, "b1@1 r@0 p2@0"), "trigger 1;persist 1 1;emit 1;abort 1;trigger 2;");
    assert_string_equal(ALIGNED(2, "b1@0 r@0 r@1 p1@1"), "emit 2;trigger 1;emit 1;");   /* nothing queued on 1 */
    assert_string_equal(ALIGNED(2, "b1@0 r@0 p2@0"), "abort 1;trigger 2;persist 2 1;emit 1;");
    assert_string_equal(UNALIGNED(1, "p1@0 p1@0 r@0"), "trigger 1;emit 2;");
    /* A channel that ends after its barrier does not trigger again. */
    assert_string_equal(UNALIGNED(2, "b1@0 e@0 r@1 b1@1"), "trigger 1;emit 1;persist 1 2;emit 2;");
    assert_string_equal(ALO(1, "p1@0"), "error: token 0: at-least-once barriers are never priority");
}

static void test_bad_tokens_are_reported_not_asserted(void **state) {
    (void)state;
    assert_string_equal(ALIGNED(2, "q@1"),
                        "error: token 'q@1': unknown kind 'q' (expected r@C, b<N>@C, x<N>@C, e@C, p<N>@C or t<N>)");
    assert_string_equal(ALIGNED(2, "b@1"), "error: token 'b@1': expected a checkpoint id after 'b', as in b3@0");
    assert_string_equal(ALIGNED(2, "b0@1"), "error: token 'b0@1': checkpoint ids start at 1");
    assert_string_equal(ALIGNED(2, "r1"), "error: token 'r1': expected '@' and a channel after 'r'");
    assert_string_equal(ALIGNED(2, "r@2"), "error: token 'r@2': channel 2 out of range (channels 0 to 1)");
    assert_string_equal(ALIGNED(2, "r@1x"), "error: token 'r@1x': expected a channel number after '@'");
    assert_string_equal(ALIGNED(2, "e@1 r@1"), "error: channel 1 already ended (e@1 was token 0)");
    assert_string_equal(ALIGNED(2, "b99999999999999999999@0"),
                        "error: token 'b99999999999999999999@0': expected a checkpoint id after 'b', as in b3@0");
}

/* What a gate step saw, for protocol coverage: each GATE_SAW_* bit is set
 * by exactly the step that does it. */
static uint32_t saw_of(gate *g, char what, uint32_t ch, uint64_t ckpt) {
    gate_acts a = { .count = 0 };
    if (what == 'b') gate_on_barrier(g, ch, ckpt, &a);
    if (what == 'x') gate_on_cancel(g, ch, ckpt, &a);
    if (what == 'e') gate_on_end(g, ch, &a);
    return a.saw;
}

static void test_gate_reports_newer_abort_cancel_end_and_obsolete_steps_for_coverage(void **state) {
    (void)state;
    static gate g;
    gate_init(&g, GATE_ALIGNED, 3, false);
    assert_int_equal(saw_of(&g, 'b', 0, 1), 0);                       /* a plain first barrier */
    assert_int_equal(saw_of(&g, 'b', 1, 2), GATE_SAW_NEWER_ABORTS);   /* 2 aborts 1 */
    assert_int_equal(saw_of(&g, 'b', 0, 1), GATE_SAW_OBSOLETE);       /* the late 1 */
    assert_int_equal(saw_of(&g, 'e', 2, 0), GATE_SAW_END_MARKS);      /* end counts for 2 */
    assert_int_equal(saw_of(&g, 'x', 0, 2), GATE_SAW_CANCEL_ENDS);    /* the cancel ends 2 */
    assert_int_equal(saw_of(&g, 'x', 0, 3), 0);                       /* 3 was not pending: it ends nothing */
    assert_int_equal(saw_of(&g, 'b', 1, 3), GATE_SAW_OBSOLETE);       /* 3 was cancelled */
}

static void test_at_least_once_gate_reports_two_tracked_and_the_cancel_that_ends_one(void **state) {
    (void)state;
    static gate g;
    gate_init(&g, GATE_AT_LEAST_ONCE, 2, false);
    assert_int_equal(saw_of(&g, 'b', 0, 1), 0);
    assert_int_equal(saw_of(&g, 'b', 0, 2), GATE_SAW_TRACKS_TWO);
    assert_int_equal(saw_of(&g, 'x', 1, 1), GATE_SAW_CANCEL_ENDS);
    assert_int_equal(saw_of(&g, 'e', 1, 0), GATE_SAW_END_MARKS);      /* completes 2 */
}

/* A channel is unblocked only by a step that counts a release: the pump
 * of model/tm/task.c looks at the input it set aside only then. */
static void test_releases_count_every_step_that_unblocks_and_no_other(void **state) {
    (void)state;
    static gate g;
    gate_acts a = { .count = 0 };
    gate_init(&g, GATE_ALIGNED, 3, false);
    gate_on_barrier(&g, 0, 1, &a);                                  /* blocks 0 */
    gate_on_barrier(&g, 1, 1, &a);                                  /* blocks 1 */
    assert_true(gate_blocked(&g, 0) && gate_blocked(&g, 1));
    assert_int_equal(gate_releases(&g), 0);
    gate_on_barrier(&g, 2, 1, &a);                                  /* the last: triggers, unblocks */
    assert_false(gate_blocked(&g, 0) || gate_blocked(&g, 1));
    assert_int_equal(gate_releases(&g), 1);
    gate_on_barrier(&g, 0, 2, &a);
    gate_on_barrier(&g, 1, 3, &a);                                  /* 3 subsumes 2: 0 unblocks, 1 blocks */
    assert_false(gate_blocked(&g, 0));
    assert_true(gate_blocked(&g, 1));
    assert_int_equal(gate_releases(&g), 2);
    gate_on_cancel(&g, 2, 3, &a);                                   /* the cancel ends 3 */
    assert_false(gate_blocked(&g, 1));
    assert_int_equal(gate_releases(&g), 3);
    gate_on_barrier(&g, 2, 4, &a);
    gate_on_alignment_timeout(&g, 4, &a);                           /* switched: 2 no longer blocks */
    assert_false(gate_blocked(&g, 2));
    assert_int_equal(gate_releases(&g), 4);
    gate_on_end(&g, 0, &a);                                         /* marks 4 for channel 0: no release */
    assert_int_equal(gate_releases(&g), 4);
    gate_on_barrier(&g, 1, 4, &a);                                  /* the last of switched 4: ends it */
    assert_int_equal(gate_releases(&g), 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aligned_blocks_each_input_until_the_last_barrier_then_drains_in_arrival_order),
        cmocka_unit_test(test_aligned_single_input_triggers_on_its_barrier_at_once),
        cmocka_unit_test(test_aligned_newer_barrier_aborts_the_pending_checkpoint),
        cmocka_unit_test(test_aligned_cancel_marker_aborts_and_unblocks),
        cmocka_unit_test(test_aligned_end_of_partition_counts_as_that_inputs_barrier),
        cmocka_unit_test(test_aligned_legacy_end_of_partition_aborts_the_pending_checkpoint),
        cmocka_unit_test(test_at_least_once_never_blocks_and_triggers_when_all_barriers_came),
        cmocka_unit_test(test_at_least_once_tracks_several_checkpoints_and_late_barriers_complete_older),
        cmocka_unit_test(test_at_least_once_cancel_marker_aborts_it_and_every_older_one),
        cmocka_unit_test(test_at_least_once_end_of_partition_completes_or_legacy_aborts),
        cmocka_unit_test(test_unaligned_triggers_on_the_first_barrier_and_persists_overtaken_records),
        cmocka_unit_test(test_alignment_timeout_switches_the_pending_checkpoint_to_unaligned),
        cmocka_unit_test(test_priority_barrier_overtakes_queued_records),
        cmocka_unit_test(test_bad_tokens_are_reported_not_asserted),
        cmocka_unit_test(test_gate_reports_newer_abort_cancel_end_and_obsolete_steps_for_coverage),
        cmocka_unit_test(test_at_least_once_gate_reports_two_tracked_and_the_cancel_that_ends_one),
        cmocka_unit_test(test_releases_count_every_step_that_unblocks_and_no_other),
    };
    return cmocka_run_group_tests_name("gate", tests, NULL, NULL);
}
