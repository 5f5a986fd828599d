/* flink/fimport.h: a Flink plan and configuration made into an absim job.
 *
 * Contract: fimp_build() turns an fplan (chained) into absim's vertices and
 * edges: one absim vertex per stateful operator, source or sink of each
 * Flink vertex (the stateless operators chained with it add their cost),
 * a union where a one-input operator has several inputs, and each ship
 * strategy mapped to the edge absim has for it; every choice that departs
 * from the plan is kept as a note. fimp_write() then writes the scenario
 * file: the job, the configuration (each setting naming the file line it
 * came from, or Flink's default), and what the plan does not hold (record
 * rates, costs, keys, input length) as stated defaults in comments. It
 * writes nothing but to the given FILE; the caller checks the text parses
 * (scn_parse) before it replaces any file. False with a sentence in err
 * when the job is beyond absim's limits. */
#ifndef FIMPORT_H
#define FIMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fconf.h"
#include "fops.h"
#include "fplan.h"

#define FIMP_VERTICES_MAX 32u     /* absim's job limits (model/flow/job.h) */
#define FIMP_EDGES_MAX    64u
#define FIMP_NOTES_MAX    96u

typedef struct fimp_opts {
    uint32_t    rate_per_s;      /* per source task; 0: derived from records_max */
    int64_t     input_ns;        /* how long the sources read; 0: 10 checkpoint intervals */
    uint32_t    keys;            /* distinct keys per topic */
    uint32_t    records_max;     /* all topics together */
    uint32_t    keep_pct;        /* a filter's share of records kept */
    int64_t     interval_ns;     /* the checkpoint interval when the configuration sets none */
    const char *sink_output;     /* NULL: by the sink's name */
    uint64_t    seed;
} fimp_opts;

void fimp_defaults(fimp_opts *o);

/* absim's vertex kinds (scenarios/README.md, vertex). */
typedef enum fimp_kind { FV_SOURCE, FV_MAP, FV_FILTER, FV_KEYED, FV_WINDOW, FV_JOIN, FV_UNION, FV_SINK } fimp_kind;
const char *fimp_kind_word(fimp_kind k);

typedef struct fimp_vertex {
    char      name[32];
    fimp_kind kind;
    uint32_t  parallelism, max_parallelism;
    int64_t   cost_ns;
    bool      watermarks;
    int64_t   wm_delay_ns;
    int64_t   win_size_ns, win_slide_ns;
    char      output[24];        /* sinks: plain, idempotent, two-phase-commit */
    char      output_why[160];
    char      ops[400];          /* the Flink operators it stands for */
} fimp_vertex;

typedef struct fimp_edge {
    uint32_t from, to;
    char     part[12];
} fimp_edge;

typedef struct fimp_job {
    fimp_vertex v[FIMP_VERTICES_MAX];
    uint32_t    vcount;
    fimp_edge   e[FIMP_EDGES_MAX];
    uint32_t    ecount;
    char        notes[FIMP_NOTES_MAX][320];
    uint32_t    ncount, ndropped;
} fimp_job;

bool fimp_build(const fplan *p, const fconf *c, const fimp_opts *o, fimp_job *j, char *err, size_t n);

/* The scenario text (raw NULL: no configuration file); command is how
 * it was made, scn_path where it goes (its run commands name it). */
void fimp_write(FILE *f, const fplan *p, const fconf_raw *raw, const fconf *c, const fimp_opts *o,
                const fimp_job *j, const char *command, const char *scn_path);

#endif
