/* flink/fops.h: what a Flink operator is, read from the name a plan prints.
 *
 * Contract: fops_classify() maps one operator's name (as a plan prints it:
 * DataStream defaults such as "Source: Custom Source", "Keyed Aggregation",
 * "Window(TumblingEventTimeWindows(5000), ...)", "Co-Process", "Sink: Print
 * to Std. Out"; the SQL planner's "TableSourceScan(...)", "Calc(...)",
 * "GroupAggregate(...)", "WindowAggregate(...)", "Join(...)", "Sink(...)")
 * to the kind of operator absim models, and says which rule matched, so an
 * import can name why. A name no rule knows is FOP_UNKNOWN (modelled as a
 * stateless map, and said so). Pure functions of their text. */
#ifndef FOPS_H
#define FOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fops_kind {
    FOP_SOURCE,      /* reads a topic */
    FOP_SINK,        /* writes the output */
    FOP_KEYED,       /* keyed state per record: aggregations, keyed process, SQL GroupAggregate, Rank, ... */
    FOP_WINDOW,      /* a keyed event-time window */
    FOP_JOIN,        /* two keyed inputs with state */
    FOP_FILTER,      /* drops records, no state */
    FOP_MAP,         /* one record in, records out, no state */
    FOP_WATERMARK,   /* assigns timestamps and watermarks, no state */
    FOP_UNKNOWN,     /* none of the rules: modelled as a map */
} fops_kind;

typedef struct fops_class {
    fops_kind   kind;
    const char *rule;        /* what matched, e.g. "'GroupAggregate' (SQL)" */
    bool        stateful;    /* in absim's model */
    bool        two_input;   /* takes two inputs (joins, connect) */
    bool        processing_time;   /* a window on processing time */
} fops_class;

fops_class fops_classify(const char *name, const char *pact);
const char *fops_kind_name(fops_kind k);

/* An operator's name without the "[3]:" that Flink 1.15+ puts before it. */
const char *fops_bare(const char *name);

/* A window's size and slide from its name: DataStream's
 * TumblingEventTimeWindows(5000) / SlidingEventTimeWindows(10000, 5000)
 * (milliseconds), SQL's TUMBLE(..., size=[5 s]) / HOP(..., slide=[..],
 * size=[..]) / TumblingGroupWindow(..., 5000). False when the name holds
 * neither (a session window, or another assigner). */
bool fops_window_ns(const char *name, int64_t *size_ns, int64_t *slide_ns);

/* A SQL watermark's delay: WatermarkAssigner(..., watermark=[-(ts,
 * 5000:INTERVAL SECOND)]) is 5 s. False when the name holds none. */
bool fops_watermark_delay_ns(const char *name, int64_t *delay_ns);

#endif
