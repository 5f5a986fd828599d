/* flink/fops.c: operator kinds from the names plans print (see fops.h). */
#include "fops.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fval.h"

const char *fops_kind_name(fops_kind k) {
    static const char *const names[] = { "source", "sink", "keyed", "window", "join", "filter", "map", "watermark",
                                         "unknown" };
    assert(k <= FOP_UNKNOWN);
    return names[k];
}

const char *fops_bare(const char *name) {
    const char *p = name;
    while (*p == ' ') p++;
    if (*p == '[') {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9') q++;
        if (q > p + 1 && q[0] == ']' && q[1] == ':') return q + 2;
    }
    return p;
}

static bool starts(const char *s, const char *prefix) {
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The rules, first match wins; `at_start` rules match the bare name's
 * beginning (SQL node names, "Source:", "Sink:"), the others anywhere. The
 * names are Flink's defaults: DataStream's (DataStream.map names its
 * operator "Map", keyBy().sum() "Keyed Aggregation", window() "Window(...)",
 * connect().process() "Co-Process") and the SQL planner's ExecNode names
 * (StreamExecGroupAggregate prints "GroupAggregate(...)", ...). */
static const struct rule {
    const char *text;
    bool        at_start;
    fops_kind   kind;
    bool        two_input;
    const char *what;
} rules[] = {
    { "Source:", true, FOP_SOURCE, false, "'Source:' (a source's name)" },
    { "TableSourceScan", true, FOP_SOURCE, false, "'TableSourceScan' (SQL source)" },
    { "Sink:", true, FOP_SINK, false, "'Sink:' (a sink's name)" },
    { "Sink(", true, FOP_SINK, false, "'Sink(' (SQL sink)" },
    { "Writer", false, FOP_SINK, false, "'Writer' (a Sink V2 writer)" },
    { "Committer", false, FOP_SINK, false, "'Committer' (a Sink V2 committer)" },
    { "LocalWindowAggregate", true, FOP_MAP, false, "'LocalWindowAggregate' (SQL two-phase pre-aggregation: no keyed state)" },
    { "LocalGroupAggregate", true, FOP_MAP, false, "'LocalGroupAggregate' (SQL two-phase pre-aggregation: no keyed state)" },
    { "WindowAggregate", false, FOP_WINDOW, false, "'WindowAggregate' (SQL window)" },
    { "GroupWindowAggregate", true, FOP_WINDOW, false, "'GroupWindowAggregate' (SQL window)" },
    { "Window(", true, FOP_WINDOW, false, "'Window(' (DataStream window)" },
    { "TriggerWindow(", true, FOP_WINDOW, false, "'TriggerWindow(' (DataStream window)" },
    { "EventTimeWindows", false, FOP_WINDOW, false, "a window assigner's name (DataStream window, 1.15+)" },
    { "ProcessingTimeWindows", false, FOP_WINDOW, false, "a window assigner's name (DataStream window, 1.15+)" },
    { "SessionWindows", false, FOP_WINDOW, false, "a window assigner's name (DataStream window, 1.15+)" },
    { "IntervalJoin", true, FOP_JOIN, true, "'IntervalJoin' (a keyed join)" },
    { "TemporalJoin", true, FOP_JOIN, true, "'TemporalJoin' (SQL join)" },
    { "WindowJoin", true, FOP_JOIN, true, "'WindowJoin' (SQL join)" },
    { "Join(", true, FOP_JOIN, true, "'Join(' (SQL join)" },
    { "Co-", true, FOP_JOIN, true, "'Co-' (connected streams)" },
    { "KeyedCoProcess", true, FOP_JOIN, true, "'KeyedCoProcess' (connected keyed streams)" },
    { "CoProcess", false, FOP_JOIN, true, "'CoProcess' (connected streams)" },
    { "GroupAggregate", false, FOP_KEYED, false, "'GroupAggregate' (SQL keyed aggregate)" },
    { "IncrementalGroupAggregate", true, FOP_KEYED, false, "'IncrementalGroupAggregate' (SQL keyed aggregate)" },
    { "OverAggregate", true, FOP_KEYED, false, "'OverAggregate' (SQL keyed)" },
    { "Rank", true, FOP_KEYED, false, "'Rank' (SQL keyed)" },
    { "Deduplicate", true, FOP_KEYED, false, "'Deduplicate' (SQL keyed)" },
    { "ChangelogNormalize", true, FOP_KEYED, false, "'ChangelogNormalize' (SQL keyed)" },
    { "SinkMaterializer", true, FOP_KEYED, false, "'SinkMaterializer' (SQL keyed)" },
    { "Keyed Aggregation", true, FOP_KEYED, false, "'Keyed Aggregation' (keyBy().sum/min/max)" },
    { "Keyed Reduce", true, FOP_KEYED, false, "'Keyed Reduce' (keyBy().reduce)" },
    { "KeyedProcess", true, FOP_KEYED, false, "'KeyedProcess' (keyBy().process)" },
    { "Timestamps/Watermarks", true, FOP_WATERMARK, false, "'Timestamps/Watermarks'" },
    { "WatermarkAssigner", true, FOP_WATERMARK, false, "'WatermarkAssigner' (SQL)" },
    { "Filter", true, FOP_FILTER, false, "'Filter'" },
    { "Map", true, FOP_MAP, false, "'Map'" },
    { "Flat Map", true, FOP_MAP, false, "'Flat Map'" },
    { "Process", true, FOP_MAP, false, "'Process' (a ProcessFunction, no keyed state)" },
    { "Calc(", true, FOP_MAP, false, "'Calc(' (SQL projection)" },
    { "Correlate", true, FOP_MAP, false, "'Correlate' (SQL table function)" },
    { "Expand", true, FOP_MAP, false, "'Expand' (SQL)" },
    { "Union", true, FOP_MAP, false, "'Union' (SQL)" },
    { "Exchange", true, FOP_MAP, false, "'Exchange' (SQL)" },
    { "DropUpdateBefore", true, FOP_MAP, false, "'DropUpdateBefore' (SQL)" },
    { "ConstraintEnforcer", true, FOP_MAP, false, "'ConstraintEnforcer' (SQL)" },
    { "StreamRecordTimestampInserter", true, FOP_MAP, false, "'StreamRecordTimestampInserter' (SQL)" },
};

fops_class fops_classify(const char *name, const char *pact) {
    assert(name != NULL);
    const char *b = fops_bare(name);
    fops_class c = { .kind = FOP_UNKNOWN, .rule = "no rule: modelled as a stateless map" };
    bool hit = false;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0] && !hit; i++) {
        const struct rule *r = &rules[i];
        if (r->at_start ? !starts(b, r->text) : strstr(b, r->text) == NULL) continue;
        c.kind = r->kind;
        c.rule = r->what;
        c.two_input = r->two_input;
        hit = true;
    }
    if (!hit && pact != NULL && strcmp(pact, "Data Source") == 0) {
        c.kind = FOP_SOURCE;
        c.rule = "pact 'Data Source'";
    } else if (!hit && pact != NULL && strcmp(pact, "Data Sink") == 0) {
        c.kind = FOP_SINK;
        c.rule = "pact 'Data Sink'";
    }
    /* A Calc with a WHERE clause drops records: a filter. */
    if (c.kind == FOP_MAP && starts(b, "Calc(") && strstr(b, "where=[") != NULL) {
        c.kind = FOP_FILTER;
        c.rule = "'Calc(' with 'where=' (SQL filter)";
    }
    c.processing_time = c.kind == FOP_WINDOW && (strstr(b, "ProcessingTime") != NULL || strstr(b, "proctime") != NULL);
    c.stateful = c.kind == FOP_KEYED || c.kind == FOP_WINDOW || c.kind == FOP_JOIN;
    return c;
}

/* The number at p, then an optional SQL unit ("5 s", "10 min"); digits
 * alone are milliseconds, as DataStream's assigners print them. */
static bool num_ms(const char *p, int64_t *ns) {
    while (*p == ' ') p++;
    if (*p < '0' || *p > '9') return false;
    char buf[48];
    size_t k = 0;
    while (k + 1 < sizeof buf && p[k] != '\0' && p[k] != ']' && p[k] != ',' && p[k] != ')') {
        buf[k] = p[k];
        k++;
    }
    buf[k] = '\0';
    const char *why;
    return fval_duration_ns(buf, ns, &why) && *ns > 0;
}

bool fops_window_ns(const char *name, int64_t *size_ns, int64_t *slide_ns) {
    const char *b = fops_bare(name), *p;
    if ((p = strstr(b, "TumblingEventTimeWindows(")) != NULL || (p = strstr(b, "TumblingProcessingTimeWindows(")) != NULL) {
        if (!num_ms(strchr(p, '(') + 1, size_ns)) return false;
        *slide_ns = *size_ns;
        return true;
    }
    if ((p = strstr(b, "SlidingEventTimeWindows(")) != NULL || (p = strstr(b, "SlidingProcessingTimeWindows(")) != NULL) {
        p = strchr(p, '(') + 1;
        const char *comma = strchr(p, ',');
        return comma != NULL && num_ms(p, size_ns) && num_ms(comma + 1, slide_ns);
    }
    if ((p = strstr(b, "TUMBLE(")) != NULL) {
        const char *s = strstr(p, "size=[");
        if (s == NULL || !num_ms(s + 6, size_ns)) return false;
        *slide_ns = *size_ns;
        return true;
    }
    if ((p = strstr(b, "HOP(")) != NULL) {
        const char *s = strstr(p, "size=["), *l = strstr(p, "slide=[");
        return s != NULL && l != NULL && num_ms(s + 6, size_ns) && num_ms(l + 7, slide_ns);
    }
    if ((p = strstr(b, "TumblingGroupWindow(")) != NULL) {
        const char *last = strrchr(p, ',');
        if (last == NULL || !num_ms(last + 1, size_ns)) return false;
        *slide_ns = *size_ns;
        return true;
    }
    if ((p = strstr(b, "SlidingGroupWindow(")) != NULL) {   /* ('w$, ts, size, slide) */
        const char *c1 = strchr(p, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL, *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
        return c3 != NULL && num_ms(c2 + 1, size_ns) && num_ms(c3 + 1, slide_ns);
    }
    return false;
}

bool fops_watermark_delay_ns(const char *name, int64_t *delay_ns) {
    const char *p = strstr(fops_bare(name), "watermark=[-(");
    if (p == NULL) return false;
    const char *c = strchr(p, ',');
    if (c == NULL) return false;
    c++;
    while (*c == ' ') c++;
    char *end = NULL;
    long long ms = strtoll(c, &end, 10);
    if (end == c || ms < 0 || ms > INT64_MAX / 1000000 || strncmp(end, ":INTERVAL", 9) != 0) return false;   /* Calcite prints day-time intervals in ms */
    *delay_ns = (int64_t)ms * 1000000;
    return true;
}
