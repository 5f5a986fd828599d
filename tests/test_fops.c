/* tests/test_fops.c: operator kinds from the names Flink's plans print
 * (flink/fops.h): DataStream's default names, the SQL planner's node
 * names with and without 1.15's "[n]:" prefix, window sizes and SQL
 * watermark delays. The names are as in the real plans of tests/flink. */
#include "harness.h"

#include "../flink/fops.h"

static fops_kind kind(const char *name) { return fops_classify(name, "Operator").kind; }

static void test_datastream_and_sql_names_map_to_absim_kinds(void **state) {
    (void)state;
    assert_int_equal(kind("Source: Custom Source"), FOP_SOURCE);
    assert_int_equal(kind("[15]:TableSourceScan(table=[[default_catalog, default_database, MyTable1]], fields=[count, word])"), FOP_SOURCE);
    assert_int_equal(kind("Sink: Print to Std. Out"), FOP_SINK);
    assert_int_equal(kind("Sink: Writer"), FOP_SINK);
    assert_int_equal(kind("[20]:GroupAggregate(groupBy=[count], select=[count, COUNT(word) AS EXPR$1])"), FOP_KEYED);
    assert_int_equal(kind("LocalGroupAggregate(groupBy=[a], select=[a, COUNT(*) AS count1$0])"), FOP_MAP);
    assert_int_equal(kind("Keyed Aggregation"), FOP_KEYED);
    assert_int_equal(kind("Window(TumblingEventTimeWindows(5000), EventTimeTrigger, ReduceFunction$1, PassThroughWindowFunction)"), FOP_WINDOW);
    assert_int_equal(kind("TumblingEventTimeWindows"), FOP_WINDOW);
    assert_int_equal(kind("Co-Process"), FOP_JOIN);
    assert_int_equal(kind("Join(joinType=[InnerJoin], where=[=(a, b)], select=[a, b])"), FOP_JOIN);
    assert_int_equal(kind("[16]:Calc(select=[count, word], where=[LIKE(word, 'F%')])"), FOP_FILTER);
    assert_int_equal(kind("Calc(select=[a, b])"), FOP_MAP);
    assert_int_equal(kind("Timestamps/Watermarks"), FOP_WATERMARK);
    assert_int_equal(kind("Frobnicate the records"), FOP_UNKNOWN);
    assert_int_equal(fops_classify("Custom thing", "Data Source").kind, FOP_SOURCE);
    assert_true(fops_classify("Window(TumblingProcessingTimeWindows(3000), ProcessingTimeTrigger, SumAggregator, "
                              "PassThroughWindowFunction)", "Operator").processing_time);
}

static void test_window_sizes_and_watermark_delays_come_from_the_names(void **state) {
    (void)state;
    int64_t size, slide, delay;
    assert_true(fops_window_ns("Window(TumblingEventTimeWindows(5000), EventTimeTrigger, x)", &size, &slide));
    assert_int_equal(size, 5000000000LL);
    assert_int_equal(slide, size);
    assert_true(fops_window_ns("Window(SlidingEventTimeWindows(10000, 5000), EventTimeTrigger, x)", &size, &slide));
    assert_int_equal(size, 10000000000LL);
    assert_int_equal(slide, 5000000000LL);
    assert_true(fops_window_ns("WindowAggregate(window=[TUMBLE(time_col=[rowtime], size=[5 s])], select=[a])", &size, &slide));
    assert_int_equal(size, 5000000000LL);
    assert_true(fops_window_ns("WindowAggregate(window=[HOP(time_col=[ts], size=[10 min], slide=[5 min])])", &size, &slide));
    assert_int_equal(size, 600000000000LL);
    assert_int_equal(slide, 300000000000LL);
    assert_false(fops_window_ns("Window(EventTimeSessionWindows(1000), EventTimeTrigger, x)", &size, &slide));
    assert_true(fops_watermark_delay_ns("WatermarkAssigner(rowtime=[ts], watermark=[-(ts, 5000:INTERVAL SECOND)])", &delay));
    assert_int_equal(delay, 5000000000LL);
    assert_false(fops_watermark_delay_ns("WatermarkAssigner(rowtime=[ts], watermark=[ts])", &delay));
    assert_string_equal(fops_bare("[3]:Calc(select=[a])"), "Calc(select=[a])");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datastream_and_sql_names_map_to_absim_kinds),
        cmocka_unit_test(test_window_sizes_and_watermark_delays_come_from_the_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
