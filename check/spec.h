/* check/spec.h: the specification the checkers compare a run with: what a
 * failure-free run over the same input must produce, computed from the
 * input alone, without simulating.
 *
 * This is written apart from the tasks' code on purpose (model/tm/task.c
 * applies operators to records; this file says what applying them means),
 * and the two are tested against each other (tests/test_check.c): a defect
 * in the tasks cannot hide behind a reference run of the same code.
 *
 * Operator semantics: a map adds its constant to the value; a filter keeps
 * a record when mark(id) % 100 < keep percent (mark: kstate_record_mark);
 * a keyed aggregate folds (count + 1, sum + value, fingerprint + mark(id))
 * into its key; a two-input keyed operator folds into key * 2 + input (one
 * table for both sides); a union passes records on; a broadcast edge
 * copies a record to every task of the next vertex, every other edge sends
 * it to one. A sink makes a record visible once per copy that reaches it;
 * an idempotent sink upserts by record id, so it contributes one
 * visibility however many copies reach it. Records are independent of one
 * another and every aggregate is commutative, so the fold of a set of
 * records does not depend on their order.
 *
 * Several sources: each reads its own topic (job_vertex.topic), so a
 * record enters the graph at the source of its partition's topic and is
 * folded from there; a join of two sources folds each topic's records
 * into its own input.
 *
 * Contract: spec_init() takes the expanded job and the broker; nothing is
 * allocated. It flattens the graph once: from each vertex, the keyed
 * vertices a record reaches, each with what the way there does to it
 * (maps' constants added, the strictest filter's percentage, broadcast
 * copies), equal ways merged; and the visibility of a record at the sinks
 * for each of the 100 filter marks. Folding a record then costs one step
 * per keyed vertex it reaches, and spec_visible() one lookup. A graph with
 * more ways than SPEC_TERMS_MAX folds by walking it (spec_walk), the
 * definition the flattened form is tested against.
 */
#ifndef CHECK_SPEC_H
#define CHECK_SPEC_H

#include "../model/flow/window.h"
#include "../model/pipe.h"

#define SPEC_TERMS_MAX 512u
#define SPEC_INPUT_START UINT32_MAX       /* a term's input: the one the record entered its start vertex on */

/* A record entering vertex v folds into term.vertex when its filter mark
 * (kstate_record_mark(id) % 100) is below keep. */
typedef struct spec_term {
    uint32_t vertex;                  /* a keyed vertex */
    uint32_t input;                   /* its logical input there, or SPEC_INPUT_START */
    uint32_t keep;                    /* 100: no filter on the way */
    int64_t  add;                     /* maps' constants on the way */
    uint64_t copies;                  /* broadcast copies, summed over equal ways */
    uint8_t  kind;                    /* the vertex's: SPEC_TERM_* (so a fold reads no vertex) */
} spec_term;

enum { SPEC_TERM_KEYED = 0, SPEC_TERM_JOIN, SPEC_TERM_WINDOW };

typedef struct spec {
    const job    *j;
    const broker *b;
    const broker *topics;                         /* b when it has several topics, else NULL: one branch per record */
    uint32_t      source;                         /* the first source vertex */
    uint32_t      source_of[BROKER_TOPICS_MAX];   /* by topic: the source vertex that reads it */
    uint32_t      out_first[JOB_VERTICES_MAX];    /* edges leaving v: edges[out_first[v] ..] */
    uint32_t      out_count[JOB_VERTICES_MAX];
    uint32_t      out_edge[JOB_EDGES_MAX];
    bool          flat;                           /* the terms cover every vertex */
    uint32_t      term_first[JOB_VERTICES_MAX];   /* terms of a record entering v */
    uint32_t      term_count[JOB_VERTICES_MAX];
    spec_term     terms[SPEC_TERMS_MAX];
    uint32_t      terms_count;
    uint8_t       visible[BROKER_TOPICS_MAX][100];   /* by topic and filter mark: spec_visible() */
    bool          windows;                        /* the job has a window: folds follow late records */
} spec;

void spec_init(spec *sp, const job *j, const broker *b);

bool spec_keyed(const spec *sp, uint32_t vertex);     /* keyed aggregate, keyed join or window */

/* A window's map in the specification holds each window's contents, the
 * fold of every record of it (nothing fires or purges there: the
 * checkers compare with a watermark of their own, check/window.c), and
 * under this tag the records of it that may have come late. A record may
 * find its window fired when the watermark of its own split before it
 * had passed the window's end (an operator's watermark is at most that,
 * so any other record never finds it fired: it fires once), and dropped
 * when it had passed the cleanup time. The entry counts both: count and
 * sum of those that may be dropped, fingerprint the number that may find
 * it fired. With a disorder at most the watermark's delay there are none. */
#define SPEC_POSSIBLY_LATE 3

/* Fold record r, arriving at vertex v on logical input `input`, `copies`
 * times into into[] (one map per vertex; only keyed vertices' are
 * touched), and follow it downstream. */
void spec_fold(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies);

/* spec_fold by walking the graph record by record: the definition. */
void spec_walk(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies);

/* Fold input record r from the source of its topic on. */
void spec_fold_input(const spec *sp, kstate *into, const model_rec *r);
/* The same, knowing before_max, the highest event time of the records
 * before r in its partition (WIN_WM_MIN: none, or not known), for the
 * windows' possibly late records. */
void spec_fold_input_after(const spec *sp, kstate *into, const model_rec *r, win_wm before_max);

/* How many times record r must be visible in the sinks' output: a
 * function of r->id alone (its partition names its topic, so its source;
 * filters look at its mark). */
uint32_t spec_visible(const spec *sp, const model_rec *r);

/* The same for a result of window vertex v (model/flow/window.h ids). */
uint32_t spec_result_visible(const spec *sp, uint32_t v, uint64_t id);
/* What the maps after window v add to its results' values on their way
 * to the sinks: false when the ways to two sinks add differently. */
bool spec_result_add(const spec *sp, uint32_t v, int64_t *add);

#endif
