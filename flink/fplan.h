/* flink/fplan.h: a Flink job's plan, read from either JSON shape Flink prints.
 *
 * Contract: fplan_read() reads one plan file with jansson into an fplan:
 *   FPLAN_STREAM  the StreamGraph plan (StreamExecutionEnvironment
 *                 .getExecutionPlan(), `flink info`, SQL EXPLAIN's physical
 *                 execution plan; JSONGenerator): one node per operator,
 *                 integer ids with gaps, `predecessors` with ship strategies;
 *   FPLAN_JOB     the JobGraph plan (REST GET /jobs/:jobid/plan or the
 *                 `plan` field of GET /jobs/:jobid; JsonPlanGenerator): one
 *                 node per chained vertex (a task: what receives barriers),
 *                 32-hex ids, `inputs`, an HTML-escaped `description`.
 * Nodes come out in topological order (every input before its consumer),
 * whatever order the file lists them in. fplan_chain() then groups the
 * operators of a StreamGraph plan into the vertices Flink would chain them
 * into (a JobGraph plan is chained already: one operator list per node,
 * split from its description). Errors name the file and the JSON path
 * ("plan.json: $.nodes[3].parallelism: not a positive integer"), or the
 * file's line and column for JSON that does not parse. No aborts on input. */
#ifndef FPLAN_H
#define FPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FPLAN_NODES_MAX   1024u   /* operators or vertices in one plan */
#define FPLAN_INPUTS_MAX  16u     /* inputs of one node */
#define FPLAN_OPS_MAX     64u     /* operators chained into one vertex */
#define FPLAN_NAME_BYTES  512u

typedef enum fplan_shape { FPLAN_STREAM, FPLAN_JOB } fplan_shape;

/* Ship strategies as Flink prints them (the partitioner's toString). */
typedef enum fplan_ship {
    FSHIP_FORWARD, FSHIP_RESCALE, FSHIP_HASH, FSHIP_REBALANCE, FSHIP_SHUFFLE,
    FSHIP_BROADCAST, FSHIP_GLOBAL, FSHIP_CUSTOM, FSHIP_UNKNOWN
} fplan_ship;

typedef struct fplan_input {
    uint32_t   from;        /* index into fplan.nodes */
    fplan_ship ship;
    char       ship_text[48];
} fplan_input;

typedef struct fplan_node {
    char        id[48];
    char        name[FPLAN_NAME_BYTES];   /* StreamGraph: contents; JobGraph: the description, unescaped */
    char        type[128];                /* StreamGraph's type, JobGraph's operator ("" when absent) */
    char        pact[32];                 /* StreamGraph only: Data Source, Operator, Data Sink */
    uint32_t    parallelism;
    uint32_t    max_parallelism;          /* 0: not in the plan */
    fplan_input in[FPLAN_INPUTS_MAX];
    uint32_t    in_count;
    uint32_t    chain;                    /* after fplan_chain(): its vertex */
    /* JobGraph: the chained operators' names, split from the description */
    uint32_t    op_count;
    char        ops[FPLAN_OPS_MAX][160];
} fplan_node;

typedef struct fplan {
    fplan_shape shape;
    char        path[1024];
    char        job_name[256];
    char        job_type[16];    /* JobGraph 1.14+: STREAMING or BATCH; "" when absent */
    fplan_node *nodes;       /* topological order */
    uint32_t    count;
    uint32_t    chains;      /* after fplan_chain(): vertices */
} fplan;

bool fplan_read(const char *path, fplan *out, char *err, size_t n);
void fplan_free(fplan *p);
const char *fplan_ship_name(fplan_ship s);

/* Groups a StreamGraph plan's operators into vertices, setting each node's
 * chain; on a JobGraph plan each node is its own vertex. chaining false is
 * pipeline.operator-chaining: false (every operator its own vertex). */
void fplan_chain(fplan *p, bool chaining);

#endif
