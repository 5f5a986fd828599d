/* tests/test_fconf.c: Flink's configuration files read as Flink reads them
 * (flink/fconf.h). The legacy reader is held to Flink's own
 * GlobalConfigurationTest#testConfigurationYAML (flink-core, 1.x; the same
 * lines in 2.x's ConfigurationFileMigrationUtilsTest), the standard one to
 * GlobalConfigurationTest#testConfigurationWithStandardYAML (1.19+),
 * transcribed as inputs and expected outputs. */
#include "harness.h"

#include "../flink/fconf.h"

static const fconf_entry *last_of(const fconf_raw *r, const char *key) {
    const fconf_entry *e = NULL;
    for (uint32_t i = 0; i < r->count; i++) {
        if (strcmp(r->entries[i].key, key) == 0) e = &r->entries[i];
    }
    return e;
}

static uint32_t distinct_keys(const fconf_raw *r) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->count; i++) n += last_of(r, r->entries[i].key) == &r->entries[i];
    return n;
}

static void read_text(const char *name, const char *text, fconf_format f, fconf_raw *r) {
    char path[256], err[FCONF_ERR_BYTES];
    tmp_file_named(name, text, path);
    bool ok = fconf_read(path, f, r, err, sizeof err);
    if (!ok) fprintf(stderr, "%s\n", err);
    assert_true(ok);
    tmp_file_drop(path);
}

/* Reads text and resolves it; returns false with the error in err. */
static bool resolve_text(const char *name, const char *text, fconf *c, char *err, size_t n) {
    fconf_raw r;
    read_text(name, text, FCONF_AUTO, &r);
    bool ok = fconf_resolve(&r, c, err, n);
    fconf_raw_free(&r);
    return ok;
}

/* GlobalConfigurationTest#testConfigurationYAML */
static void test_legacy_reader_keeps_the_lines_flinks_test_keeps(void **state) {
    (void)state;
    fconf_raw r;
    read_text("flink-conf.yaml",
              "###########################\n# Some : comments : to skip\n###########################\n"
              "mykey1: myvalue1\nmykey2       : myvalue2\nmykey3:myvalue3\n"
              " some nonsense without colon and whitespace separator\n :  \n   \n \n"
              "mykey4: myvalue4# some comments\n   mykey5    :    myvalue5    \nmykey6: my: value6\n"
              "mykey7: \n: myvalue8\n\nmykey9: myvalue9\nmykey9: myvalue10\n", FCONF_AUTO, &r);
    assert_int_equal(r.format, FCONF_LEGACY);
    assert_int_equal(distinct_keys(&r), 6);
    assert_string_equal(last_of(&r, "mykey1")->value, "myvalue1");
    assert_string_equal(last_of(&r, "mykey2")->value, "myvalue2");
    assert_null(last_of(&r, "mykey3"));
    assert_string_equal(last_of(&r, "mykey4")->value, "myvalue4");
    assert_string_equal(last_of(&r, "mykey5")->value, "myvalue5");
    assert_string_equal(last_of(&r, "mykey6")->value, "my: value6");
    assert_null(last_of(&r, "mykey7"));
    assert_string_equal(last_of(&r, "mykey9")->value, "myvalue10");
    assert_int_equal(last_of(&r, "mykey5")->line, 12);
    assert_int_equal(last_of(&r, "mykey5")->col, 4);
    assert_int_equal(r.note_count, 5);               /* the lines Flink warns of; blank ones silently */
    fconf_raw_free(&r);
}

/* GlobalConfigurationTest#testConfigurationWithStandardYAML: 12 keys. */
static void test_standard_reader_flattens_nested_keys_as_flinks_test_does(void **state) {
    (void)state;
    fconf_raw r;
    read_text("config.yaml",
              "Key1: \n    Key2: v1\n    Key3: 'v2'\nKey4: 1\nKey5: '1'\nKey6: '*'\nKey7: true\nKey8: 'true'\n"
              "Key9: [a, b, '*', 1, '2',  true, 'true']\nKey10: {k1: v1, k2: '2', k3: 3}\n"
              "Key11: [{k1: v1, k2: '2', k3: 3}, {k4: true}]\n", FCONF_AUTO, &r);
    assert_int_equal(r.format, FCONF_YAML);
    assert_int_equal(distinct_keys(&r), 12);
    assert_string_equal(last_of(&r, "Key1.Key2")->value, "v1");
    assert_string_equal(last_of(&r, "Key1.Key3")->value, "v2");
    assert_string_equal(last_of(&r, "Key4")->value, "1");
    assert_string_equal(last_of(&r, "Key8")->value, "true");
    assert_string_equal(last_of(&r, "Key10.k2")->value, "2");
    assert_non_null(last_of(&r, "Key11"));
    assert_int_equal(last_of(&r, "Key1.Key3")->line, 3);
    fconf_raw_free(&r);
}

/* The REST answer (CheckpointConfigInfo) of a real Flink 1.15+ job with
 * checkpointing off (tests/flink/conf/restconfig-1.15plus-...: interval
 * Long.MAX_VALUE). */
static void test_rest_config_reads_fields_and_long_max_as_off(void **state) {
    (void)state;
    fconf_raw r;
    char err[FCONF_ERR_BYTES];
    assert_true(fconf_read("tests/flink/conf/restconfig-1.15plus-streampark-archive-d933fa6c.json", FCONF_AUTO, &r,
                           err, sizeof err));
    assert_int_equal(r.format, FCONF_REST);
    fconf c;
    assert_true(fconf_resolve(&r, &c, err, sizeof err));
    assert_true(c.set[FC_INTERVAL]);
    assert_int_equal(c.num[FC_INTERVAL], -1);
    assert_string_equal(c.text[FC_MODE], "at_least_once");
    assert_int_equal(c.num[FC_TIMEOUT], 600000LL * 1000000);
    assert_int_equal(c.num[FC_FINISHED_TASKS], 1);
    assert_int_equal(last_of(&r, "externalization.enabled")->use, FCONF_NOT_MODELLED);
    fconf_raw_free(&r);
}

/* Configuration.applyWithOption: the current key, then the deprecated
 * ones; the new key wins wherever it stands; within a key the last line. */
static void test_newer_key_wins_over_deprecated_and_later_line_over_earlier(void **state) {
    (void)state;
    fconf_raw r;
    char err[FCONF_ERR_BYTES];
    read_text("flink-conf.yaml", "execution.checkpointing.num-retained: 3\nstate.checkpoints.num-retained: 5\n"
              "execution.checkpointing.interval: 10000\nexecution.checkpointing.interval: 30 s\n"
              "state.backend: rocksdb\nrest.port: 8081\n", FCONF_AUTO, &r);
    fconf c;
    assert_true(fconf_resolve(&r, &c, err, sizeof err));
    assert_int_equal(c.num[FC_RETAINED], 3);
    assert_int_equal(c.num[FC_INTERVAL], 30000000000LL);
    assert_string_equal(c.text[FC_BACKEND], "rocksdb");
    assert_int_equal(r.entries[1].use, FCONF_SHADOWED);
    assert_int_equal(r.entries[2].use, FCONF_SHADOWED);
    assert_int_equal(r.entries[5].use, FCONF_NOT_MODELLED);
    assert_false(c.set[FC_TIMEOUT]);
    assert_int_equal(c.num[FC_TIMEOUT], 600000000000LL);   /* Flink's default, 10 min */
    fconf_raw_free(&r);
}

/* Values Flink refuses at submission are refused at their line. */
static void test_values_flink_refuses_name_their_line(void **state) {
    (void)state;
    fconf c;
    char err[FCONF_ERR_BYTES + 512];
    assert_false(resolve_text("flink-conf.yaml", "a: b\nexecution.checkpointing.interval: 5 ms\n", &c, err, sizeof err));
    assert_non_null(strstr(err, "flink-conf.yaml:2:1: execution.checkpointing.interval: '5 ms': below 10 ms"));
    assert_false(resolve_text("flink-conf.yaml", "execution.checkpointing.mode: exactly-once\n", &c, err, sizeof err));
    assert_non_null(strstr(err, ":1:1: execution.checkpointing.mode: 'exactly-once': not EXACTLY_ONCE"));
    assert_false(resolve_text("config.yaml", "execution:\n  checkpointing:\n    unaligned:\n      enabled: true\n"
                              "    max-concurrent-checkpoints: 2\n", &c, err, sizeof err));
    assert_non_null(strstr(err, "config.yaml:4:7: execution.checkpointing.unaligned.enabled: 'true': unaligned"));
    assert_false(resolve_text("flink-conf.yaml", "restart-strategy: sometimes\n", &c, err, sizeof err));
    assert_non_null(strstr(err, "not a restart strategy Flink knows"));
    assert_false(resolve_text("flink-conf.yaml", "heartbeat.timeout: soon\n", &c, err, sizeof err));
    assert_non_null(strstr(err, ":1:1: heartbeat.timeout: 'soon': a duration must start with a number"));
}

/* Every spelling of every key absim models is read (the current name and
 * each deprecated one), and the REST field where there is one. */
static void test_every_spelling_of_every_modelled_key_is_read(void **state) {
    (void)state;
    static const char *const values[] = { [FT_DURATION] = "3 s", [FT_BOOL] = "true", [FT_INT] = "3",
                                          [FT_DOUBLE] = "1.5", [FT_TEXT] = "region" };
    for (int f = 0; f < FC_COUNT; f++) {
        const fconf_row *r = fconf_row_of((fconf_field)f);
        for (int k = 0; k < 4 && r->keys[k] != NULL; k++) {
            char text[300];
            const char *v = f == FC_MODE ? "AT_LEAST_ONCE" : f == FC_RESTART ? "none" : f == FC_EX_INITIAL ? "1 s"
                          : f == FC_EX_JITTER ? "0.5" : f == FC_TIMEOUT || f == FC_INTERVAL ? "30 s" : values[r->type];
            snprintf(text, sizeof text, "%s: %s\n", r->keys[k], v);
            fconf_raw raw;
            fconf c;
            char err[FCONF_ERR_BYTES];
            read_text("flink-conf.yaml", text, FCONF_AUTO, &raw);
            bool ok = fconf_resolve(&raw, &c, err, sizeof err);
            if (!ok) fprintf(stderr, "%s\n", err);
            assert_true(ok);
            assert_true(c.set[f]);
            assert_int_equal(raw.entries[0].use, FCONF_MODELLED);
            fconf_raw_free(&raw);
        }
    }
}

/* YAML whose aliases expand without end is refused, not followed; a list
 * is its scalars joined with ';', whatever text stands before it. */
static void test_alias_bombs_are_refused_and_lists_joined(void **state) {
    (void)state;
    char text[2048] = "l0: &l0 {}\n", path[256], err[FCONF_ERR_BYTES];
    for (int i = 1; i <= 12; i++) {
        size_t k = strlen(text);
        snprintf(text + k, sizeof text - k, "l%d: &l%d {a: *l%d, b: *l%d, c: *l%d, d: *l%d, e: *l%d, f: *l%d, g: *l%d, h: *l%d}\n",
                 i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    }
    fconf_raw r;
    tmp_file_named("config.yaml", text, path);
    assert_false(fconf_read(path, FCONF_AUTO, &r, err, sizeof err));
    assert_non_null(strstr(err, "anchors and aliases expand past"));
    tmp_file_drop(path);
    read_text("config.yaml", "# \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nenv:\n  java:\n    opts: [-Da=1, -Db=2]\n", FCONF_AUTO, &r);
    assert_string_equal(last_of(&r, "env.java.opts")->value, "-Da=1;-Db=2");
    fconf_raw_free(&r);
    fconf c;
    assert_false(resolve_text("flink-conf.yaml", "pipeline.max-parallelism: -5\n", &c, err, sizeof err));
    assert_non_null(strstr(err, "not -1 (derived) or from 1 to 32768"));
    fconf_raw hb;
    read_text("flink-conf.yaml", "heartbeat.interval: 10000\nheartbeat.timeout: 5000\n", FCONF_AUTO, &hb);
    assert_true(fconf_resolve(&hb, &c, err, sizeof err));        /* conform reads it */
    assert_false(fconf_check_heartbeat(&hb, &c, err, sizeof err)); /* a run of it would lose every TaskManager */
    assert_non_null(strstr(err, ":2:1: heartbeat.timeout: '5000': heartbeat.timeout 5000 ms is not above"));
    fconf_raw_free(&hb);
    assert_true(resolve_text("flink-conf.yaml", "restart-strategy.type: fixed-delay\n"
                             "restart-strategy.exponential-delay.jitter-factor: 7\n", &c, err, sizeof err));
}

/* Without a file every field is Flink's default (1.19 to 2.x). */
static void test_no_file_gives_flinks_defaults(void **state) {
    (void)state;
    fconf c;
    char err[64];
    assert_true(fconf_resolve(NULL, &c, err, sizeof err));
    assert_int_equal(c.num[FC_INTERVAL], -1);
    assert_int_equal(c.num[FC_MAX_CONCURRENT], 1);
    assert_int_equal(c.num[FC_TOLERABLE], 0);
    assert_int_equal(c.num[FC_FINISHED_TASKS], 1);
    assert_int_equal(c.num[FC_BUFFER_TIMEOUT], 100000000);
    assert_int_equal(c.num[FC_HB_TIMEOUT], 50000000000LL);
    assert_true(c.real[FC_EX_MULTIPLIER] == 1.5);
    assert_string_equal(c.text[FC_FAILOVER], "region");
    for (int f = 0; f < FC_COUNT; f++) assert_false(c.set[f]);
}

/* Every file of each shape in tests/flink/conf reads. */
static void test_real_configurations_read_in_their_format(void **state) {
    (void)state;
    static const struct { const char *path; fconf_format f; } files[] = {
        { "tests/flink/conf/flink-conf-1.7.2-shipped-default.yaml", FCONF_LEGACY },
        { "tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml", FCONF_YAML },
        { "tests/flink/conf/config-2.0-SNAPSHOT-shipped-default.yaml", FCONF_YAML },
        { "tests/flink/conf/restconfig-1.9.1-statemachine-soojae.json", FCONF_REST },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        fconf_raw r;
        fconf c;
        char err[FCONF_ERR_BYTES];
        assert_true(fconf_read(files[i].path, FCONF_AUTO, &r, err, sizeof err));
        assert_int_equal(r.format, files[i].f);
        assert_true(fconf_resolve(&r, &c, err, sizeof err));
        for (uint32_t e = 0; e < r.count; e++) assert_int_not_equal(r.entries[e].use, FCONF_UNREAD);
        fconf_raw_free(&r);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_legacy_reader_keeps_the_lines_flinks_test_keeps),
        cmocka_unit_test(test_standard_reader_flattens_nested_keys_as_flinks_test_does),
        cmocka_unit_test(test_rest_config_reads_fields_and_long_max_as_off),
        cmocka_unit_test(test_newer_key_wins_over_deprecated_and_later_line_over_earlier),
        cmocka_unit_test(test_values_flink_refuses_name_their_line),
        cmocka_unit_test(test_every_spelling_of_every_modelled_key_is_read),
        cmocka_unit_test(test_alias_bombs_are_refused_and_lists_joined),
        cmocka_unit_test(test_no_file_gives_flinks_defaults),
        cmocka_unit_test(test_real_configurations_read_in_their_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
