/* tests/test_fval.c: configuration values read as Flink reads them
 * (flink/fval.h). The duration cases are Flink's own TimeUtilsTest
 * (flink-core/src/test/java/org/apache/flink/util/TimeUtilsTest.java),
 * transcribed as inputs and expected outputs; each test names its method. */
#include "harness.h"

#include "../flink/fval.h"

#define MS  1000000LL
#define SEC 1000000000LL

static int64_t dur(const char *text) {
    int64_t ns = -1;
    const char *why = NULL;
    assert_true(fval_duration_ns(text, &ns, &why));
    return ns;
}

static bool dur_refused(const char *text) {
    int64_t ns;
    const char *why = NULL;
    bool ok = fval_duration_ns(text, &ns, &why);
    if (!ok) assert_non_null(why);
    return !ok;
}

/* testParseDurationMillis, ...Seconds, ...Minutes, ...Hours */
static void test_duration_units_match_flinks_time_utils_test(void **state) {
    (void)state;
    assert_int_equal(dur("1234"), 1234 * MS);
    assert_int_equal(dur("1234ms"), 1234 * MS);
    assert_int_equal(dur("1234 ms"), 1234 * MS);
    assert_int_equal(dur("667766s"), 667766 * SEC);
    assert_int_equal(dur("667766 s"), 667766 * SEC);
    assert_int_equal(dur("7657623min"), 7657623LL * 60 * SEC);
    assert_int_equal(dur("7657623 min"), 7657623LL * 60 * SEC);
    assert_int_equal(dur("987654h"), 987654LL * 3600 * SEC);
    assert_int_equal(dur("987654 h"), 987654LL * 3600 * SEC);
}

/* testParseDurationUpperCase, testParseDurationTrim */
static void test_duration_units_ignore_case_and_surrounding_blanks(void **state) {
    (void)state;
    assert_int_equal(dur("1 MS"), MS);
    assert_int_equal(dur("1 S"), SEC);
    assert_int_equal(dur("1 MIN"), 60 * SEC);
    assert_int_equal(dur("1 H"), 3600 * SEC);
    assert_int_equal(dur("      155      "), 155 * MS);
    assert_int_equal(dur("      155      ms   "), 155 * MS);
}

/* testParseDurationInvalid, testParseDurationNumberOverflow,
 * testParseDurationNumberTimeUnitOverflow */
static void test_duration_refuses_what_flink_refuses(void **state) {
    (void)state;
    assert_true(dur_refused(""));
    assert_true(dur_refused("     "));
    assert_true(dur_refused("foobar or fubar or foo bazz"));
    assert_true(dur_refused("16 gjah"));
    assert_true(dur_refused("16 16 17 18 ms"));
    assert_true(dur_refused("-100 ms"));
    assert_true(dur_refused("100000000000000000000000000000000 ms"));
    assert_true(dur_refused("100000000000000000 h"));
}

/* TimeUtils.TimeUnit's labels: every spelling, plurals included (the
 * 1.10+ enum; "m" since 1.15, FLINK-24886), and no fractions. */
static void test_duration_takes_every_label_flink_lists(void **state) {
    (void)state;
    assert_int_equal(dur("2d"), 2 * 86400 * SEC);
    assert_int_equal(dur("2 days"), 2 * 86400 * SEC);
    assert_int_equal(dur("3 hours"), 3 * 3600 * SEC);
    assert_int_equal(dur("10m"), 10 * 60 * SEC);
    assert_int_equal(dur("10 minutes"), 10 * 60 * SEC);
    assert_int_equal(dur("5sec"), 5 * SEC);
    assert_int_equal(dur("5 secs"), 5 * SEC);
    assert_int_equal(dur("30 seconds"), 30 * SEC);
    assert_int_equal(dur("7 millis"), 7 * MS);
    assert_int_equal(dur("9 \xc2\xb5s"), 9000);
    assert_int_equal(dur("9 micros"), 9000);
    assert_int_equal(dur("11 nanoseconds"), 11);
    assert_true(dur_refused("1.5 s"));
    assert_true(dur_refused("10 mins"));
}

/* ConfigurationUtils.convertToBoolean / convertToEnum / parseInt */
static void test_booleans_enums_and_integers_read_as_flink_converts_them(void **state) {
    (void)state;
    bool b = false;
    const char *why;
    assert_true(fval_bool("TRUE", &b, &why) && b);
    assert_true(fval_bool("False", &b, &why) && !b);
    assert_false(fval_bool("yes", &b, &why));
    static const char *const modes[] = { "EXACTLY_ONCE", "AT_LEAST_ONCE", NULL };
    assert_int_equal(fval_enum("exactly_once", modes), 0);
    assert_int_equal(fval_enum("At_Least_Once", modes), 1);
    assert_int_equal(fval_enum("exactly-once", modes), -1);
    int64_t v;
    assert_true(fval_int("-3", -10, 10, &v, &why) && v == -3);
    assert_false(fval_int(" 5", 0, 10, &v, &why));
    assert_false(fval_int("${cpu_thread}", 0, 10, &v, &why));
    assert_false(fval_int("11", 0, 10, &v, &why));
    double d;
    assert_true(fval_double("1.5", &d, &why) && d == 1.5);
    assert_false(fval_double("nan", &d, &why));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration_units_match_flinks_time_utils_test),
        cmocka_unit_test(test_duration_units_ignore_case_and_surrounding_blanks),
        cmocka_unit_test(test_duration_refuses_what_flink_refuses),
        cmocka_unit_test(test_duration_takes_every_label_flink_lists),
        cmocka_unit_test(test_booleans_enums_and_integers_read_as_flink_converts_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
