/* tests/test_fhist.c: checkpoint histories of real Flink runs
 * (tests/flink/history and holdout/history, SOURCES.md) read and held to
 * the protocol's rules (flink/fhist.h): every real history conforms, and
 * the same history with one rule broken is flagged with that rule, and
 * with no other. */
#include "harness.h"

#include "../flink/fhist.h"

static const char *const histories[] = {
    "tests/flink/history/checkpoints-1.14-k8sop-restresponsetest.json",
    "tests/flink/history/checkpoints-1.15-k8sop-restresponsetest.json",
    "tests/flink/history/checkpoints-1.9.1-statemachine-soojae-638total.json",
    "tests/flink/holdout/history/checkpoints-1.15-k8sop-abstractflinkservicetest-79total.json",
    "tests/flink/holdout/history/checkpoints-1.9.1-statemachine-soojae-38total.json",
};

/* Flink's defaults, with the interval and min pause the history allows:
 * its smallest trigger spacing, and no pause. */
static fconf conf_for(const fhist *h) {
    fconf c;
    char err[64];
    assert_true(fconf_resolve(NULL, &c, err, sizeof err));
    int64_t spacing = INT64_MAX;
    for (uint32_t i = 1; i < h->count; i++) {
        int64_t d = h->ckpts[i].trigger_ms - h->ckpts[i - 1].trigger_ms;
        if (h->ckpts[i].id == h->ckpts[i - 1].id + 1 && d < spacing) spacing = d;
    }
    c.num[FC_INTERVAL] = spacing == INT64_MAX ? 10000000000LL : spacing * 1000000;
    return c;
}

static uint32_t flagged(const fhist *h, const fconf *c, fhist_rule want, uint32_t *others) {
    static fhist_result r;
    fhist_check(h, c, 100, &r);
    uint32_t n = 0;
    *others = 0;
    for (uint32_t i = 0; i < r.count; i++) {
        if (r.found[i].rule == want) n++;
        else {
            (*others)++;
            fprintf(stderr, "  other finding: %s: %s\n", fhist_rule_name(r.found[i].rule), r.found[i].text);
        }
    }
    return n;
}

static void load(const char *path, fhist *h) {
    char err[1024];
    bool ok = fhist_read(path, h, err, sizeof err);
    if (!ok) fprintf(stderr, "%s\n", err);
    assert_true(ok);
}

static void test_every_real_history_conforms(void **state) {
    (void)state;
    for (size_t f = 0; f < sizeof histories / sizeof histories[0]; f++) {
        fhist h;
        load(histories[f], &h);
        fconf c = conf_for(&h);
        static fhist_result r;
        fhist_check(&h, &c, 100, &r);
        assert_int_equal(r.count, 0);
        assert_true(r.checked[FR_IDS] > 0);
        fhist_free(&h);
    }
}

/* The two versions' shapes: @class (1.14) and className (1.15+), the
 * counts, and latest.restored of a job that was restored once. */
static void test_histories_read_both_type_fields_and_the_restore(void **state) {
    (void)state;
    fhist h;
    load(histories[0], &h);
    assert_string_equal(h.class_key, "@class");
    fhist_free(&h);
    load(histories[3], &h);
    assert_string_equal(h.class_key, "className");
    assert_int_equal(h.total, 79);
    assert_true(h.has_restore);
    assert_int_equal(h.restored, 1);
    assert_true(h.count >= 10);
    for (uint32_t i = 1; i < h.count; i++) assert_true(h.ckpts[i].id > h.ckpts[i - 1].id);
    fhist_free(&h);
}

typedef void (*breaker)(fhist *h, fconf *c);

static fhist_ckpt *last_completed(fhist *h) {
    for (uint32_t i = h->count; i-- > 0;) {
        if (h->ckpts[i].status == FH_COMPLETED && !h->ckpts[i].savepoint) return &h->ckpts[i];
    }
    fail();
    return NULL;
}

static void break_ids(fhist *h, fconf *c) {
    (void)c;
    fhist_ckpt *b = last_completed(h);
    b->trigger_ms = h->ckpts[0].trigger_ms - 5000;
    b->ack_ms = b->trigger_ms + 1;
}
static void break_acked(fhist *h, fconf *c) {
    (void)c;
    last_completed(h)->acked -= 1;
}
static void break_concurrent(fhist *h, fconf *c) {
    (void)c;
    h->ckpts[h->count - 2].status = FH_IN_PROGRESS;        /* still pending when the last one triggered */
}
/* A pause of 1 s, which the real runs kept; the last but one
 * checkpoint's acknowledgements moved to 50 ms before the next trigger. */
static void break_min_pause(fhist *h, fconf *c) {
    c->num[FC_MIN_PAUSE] = 1000000000;
    fhist_ckpt *a = &h->ckpts[h->count - 2], *b = &h->ckpts[h->count - 1];
    a->ack_ms = b->trigger_ms - 50;
    a->e2e_ms = a->ack_ms - a->trigger_ms;
}
static void break_interval(fhist *h, fconf *c) {
    fhist_ckpt *b = &h->ckpts[h->count - 1], *a = &h->ckpts[h->count - 2];
    int64_t early = (b->trigger_ms - a->trigger_ms) / 2;
    b->trigger_ms -= early;
    b->ack_ms -= early;
    (void)c;
}
/* A timeout of 200 ms, which the real runs kept; the last completed
 * one's acknowledgements moved to 1.5 s after its trigger, past the slack
 * for the canceller's start (1 s and 1%) and the 100 ms tolerance. */
static void break_timeout(fhist *h, fconf *c) {
    fhist_ckpt *b = last_completed(h);
    c->num[FC_TIMEOUT] = 200000000;
    b->ack_ms = b->trigger_ms + 1500;
    b->e2e_ms = 1500;
}
static void break_unaligned(fhist *h, fconf *c) {
    (void)c;
    last_completed(h)->unaligned = true;
    snprintf(last_completed(h)->type, sizeof last_completed(h)->type, "UNALIGNED_CHECKPOINT");
}
static void break_restore(fhist *h, fconf *c) {
    (void)c;
    h->has_restore = true;
    h->restored = 1;
    h->restore_savepoint = false;
    h->restore_id = h->ckpts[0].id;
    h->restore_ms = h->ckpts[h->count - 1].ack_ms + 1;
}
static void break_tolerable(fhist *h, fconf *c) {
    c->num[FC_TOLERABLE] = 0;
    fhist_ckpt *a = &h->ckpts[h->count - 2];
    a->status = FH_FAILED;
    a->failure_ms = a->trigger_ms + 5;
    snprintf(a->failure, sizeof a->failure, "Checkpoint was declined.");
    h->has_restore = false;
    h->restored = 0;
}

static void test_each_rule_broken_is_flagged_with_that_rule_alone(void **state) {
    (void)state;
    static const breaker breakers[FR_COUNT] = {
        [FR_IDS] = break_ids, [FR_ACKED] = break_acked, [FR_CONCURRENT] = break_concurrent,
        [FR_MIN_PAUSE] = break_min_pause, [FR_INTERVAL] = break_interval, [FR_TIMEOUT] = break_timeout,
        [FR_UNALIGNED] = break_unaligned, [FR_RESTORE] = break_restore, [FR_TOLERABLE] = break_tolerable,
    };
    uint32_t cases = 0;
    for (size_t f = 0; f < sizeof histories / sizeof histories[0]; f++) {
        for (int rule = 0; rule < FR_COUNT; rule++) {
            fhist h;
            load(histories[f], &h);
            if (h.count < 3) { fhist_free(&h); continue; }
            fconf c = conf_for(&h);
            breakers[rule](&h, &c);
            uint32_t others;
            uint32_t n = flagged(&h, &c, (fhist_rule)rule, &others);
            if (n == 0 || others != 0) fprintf(stderr, "%s, rule %s: %u findings, %u others\n", histories[f],
                                               fhist_rule_name((fhist_rule)rule), n, others);
            assert_true(n > 0);
            assert_int_equal(others, 0);
            cases++;
            fhist_free(&h);
        }
    }
    assert_true(cases >= 4 * FR_COUNT);
}

/* --details: a task short of acknowledgements in a details answer, and a
 * subtask's unaligned flag in a subtask-details answer, are flagged. */
static void test_details_files_add_acknowledgements_and_unaligned_flags(void **state) {
    (void)state;
    fhist h;
    load(histories[1], &h);
    char path[256], second[300], err[1024];
    tmp_file_named("details-2.json", "{\"id\":2,\"status\":\"COMPLETED\",\"tasks\":{\"bc76\":{\"num_subtasks\":2,"
                   "\"num_acknowledged_subtasks\":1},\"20ba\":{\"num_subtasks\":2,\"num_acknowledged_subtasks\":2}}}", path);
    snprintf(second, sizeof second, "%.*s/subtasks-3.json", (int)(strrchr(path, '/') - path), path);
    FILE *f = fopen(second, "w");
    assert_non_null(f);
    fputs("{\"id\":3,\"subtasks\":[{\"index\":0,\"status\":\"completed\",\"unaligned_checkpoint\":true}]}", f);
    assert_int_equal(fclose(f), 0);
    char dir[256];
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(path, '/') - path), path);
    uint32_t files = 0;
    assert_true(fhist_details(&h, dir, &files, err, sizeof err));
    assert_int_equal(files, 2);
    fconf c = conf_for(&h);
    uint32_t others;
    assert_int_equal(flagged(&h, &c, FR_ACKED, &others), 1);
    assert_int_equal(others, 1);                        /* the unaligned one */
    assert_int_equal(flagged(&h, &c, FR_UNALIGNED, &others), 1);
    assert_int_equal(remove(second), 0);
    tmp_file_drop(path);
    fhist_free(&h);
}

static fhist_ckpt ck(int64_t id, fhist_status st, int64_t trigger, int64_t end, const char *failure) {
    fhist_ckpt c = { .id = id, .status = st, .trigger_ms = trigger, .ack_ms = st == FH_COMPLETED ? end : -1,
                     .failure_ms = st == FH_FAILED ? end : -1, .subtasks = 2, .acked = st == FH_COMPLETED ? 2 : 0 };
    snprintf(c.failure, sizeof c.failure, "%s", failure);
    snprintf(c.where, sizeof c.where, "$.history[%lld]", (long long)id);
    return c;
}

/* Correct Flink runs the rules once flagged: a checkpoint slower than the
 * interval, whose queued successor triggers at its completion and the
 * next tick soon after (CheckpointRequestDecider); a first checkpoint
 * that expires, past tolerable 0, so the job fails over with nothing to
 * restore; a completed savepoint between two expired checkpoints (it
 * resets the count); a restore with no id. */
static void test_correct_runs_that_look_odd_are_not_flagged(void **state) {
    (void)state;
    static fhist_ckpt cks[8];
    fhist h = { .ckpts = cks, .total = -1, .restored = 0, .restore_id = -1 };
    snprintf(h.class_key, sizeof h.class_key, "className");
    fconf c;
    char err[64];
    assert_true(fconf_resolve(NULL, &c, err, sizeof err));
    c.num[FC_INTERVAL] = 10000000000LL;
    cks[0] = ck(1, FH_COMPLETED, 0, 25000, "");
    cks[1] = ck(2, FH_COMPLETED, 25000, 25500, "");
    cks[2] = ck(3, FH_COMPLETED, 30000, 30500, "");
    h.count = 3;
    uint32_t others;
    assert_int_equal(flagged(&h, &c, FR_INTERVAL, &others) + others, 0);
    cks[0] = ck(1, FH_FAILED, 0, 600000, "Checkpoint expired before completing.");
    cks[1] = ck(2, FH_COMPLETED, 700000, 700100, "");
    h.count = 2;
    assert_int_equal(flagged(&h, &c, FR_TOLERABLE, &others) + others, 0);
    c.num[FC_TOLERABLE] = 1;
    cks[0] = ck(1, FH_COMPLETED, 0, 100, "");
    cks[1] = ck(2, FH_FAILED, 10000, 610000, "Checkpoint expired before completing.");
    cks[2] = ck(3, FH_COMPLETED, 620000, 620100, "");
    cks[2].savepoint = true;
    cks[3] = ck(4, FH_FAILED, 630000, 1230000, "Checkpoint expired before completing.");
    cks[4] = ck(5, FH_COMPLETED, 1240000, 1240100, "");
    h.count = 5;
    assert_int_equal(flagged(&h, &c, FR_TOLERABLE, &others) + others, 0);
    h.has_restore = true;
    h.restore_ms = 2000000;
    assert_int_equal(flagged(&h, &c, FR_RESTORE, &others) + others, 0);
}

static void test_unreadable_histories_name_the_place(void **state) {
    (void)state;
    fhist h;
    char err[1024];
    assert_false(fhist_read("tests/flink/history/details-1.9.1-statemachine-soojae-714.json", &h, err, sizeof err));
    assert_non_null(strstr(err, "$.counts or $.history: missing"));
    char path[256];
    tmp_file_named("h.json", "{\"counts\":{}, \"history\":[{\"id\":3}]}", path);
    assert_false(fhist_read(path, &h, err, sizeof err));
    assert_non_null(strstr(err, "$.history[0]: no id or no status"));
    tmp_file_drop(path);
    tmp_file_named("h.json", "{\"counts\":{\"total\":1,\"completed\":9223372036854775807,\"failed\":1,"
                   "\"in_progress\":0},\"history\":[{\"id\":1e300,\"status\":\"COMPLETED\"},"
                   "{\"id\":2,\"status\":\"COMPLETED\",\"trigger_timestamp\":9223372036854775807}]}", path);
    assert_false(fhist_read(path, &h, err, sizeof err));   /* an id of 1e300 is no id */
    assert_non_null(strstr(err, "$.history[0]: no id"));
    tmp_file_drop(path);
    tmp_file_named("h.json", "{\"counts\":{\"total\":1,\"completed\":9223372036854775807,\"failed\":1,"
                   "\"in_progress\":0},\"history\":[{\"id\":2,\"status\":\"COMPLETED\",\"trigger_timestamp\":"
                   "9223372036854775807,\"latest_ack_timestamp\":-9223372036854775807}]}", path);
    assert_true(fhist_read(path, &h, err, sizeof err));    /* times past 2^53 read as absent: no overflow */
    fconf c = conf_for(&h);
    uint32_t others;
    (void)flagged(&h, &c, FR_IDS, &others);
    fhist_free(&h);
    tmp_file_drop(path);
    tmp_file_named("h.json", "{\"counts\":{},\"history\":[{\"id\":4,\"status\":\"COMPLETED\"},"
                   "{\"id\":4,\"status\":\"FAILED\"}]}", path);
    assert_true(fhist_read(path, &h, err, sizeof err));    /* an id twice is a finding, not an error */
    c = conf_for(&h);
    assert_int_equal(flagged(&h, &c, FR_IDS, &others), 1);
    fhist_free(&h);
    tmp_file_drop(path);
    tmp_file_named("h.json", "{\"counts\":{},\n \"history\":[}", path);
    assert_false(fhist_read(path, &h, err, sizeof err));
    assert_non_null(strstr(err, "h.json:2:"));
    tmp_file_drop(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_real_history_conforms),
        cmocka_unit_test(test_histories_read_both_type_fields_and_the_restore),
        cmocka_unit_test(test_each_rule_broken_is_flagged_with_that_rule_alone),
        cmocka_unit_test(test_details_files_add_acknowledgements_and_unaligned_flags),
        cmocka_unit_test(test_correct_runs_that_look_odd_are_not_flagged),
        cmocka_unit_test(test_unreadable_histories_name_the_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
