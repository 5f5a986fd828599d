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
 * Contract: spec_init() takes the expanded job and the broker; nothing is
 * allocated. Folding a record costs O(paths through the graph).
 */
#ifndef CHECK_SPEC_H
#define CHECK_SPEC_H

#include "../model/pipe.h"

typedef struct spec {
    const job    *j;
    const broker *b;
    uint32_t      source;                         /* the source vertex */
    uint32_t      out_first[JOB_VERTICES_MAX];    /* edges leaving v: edges[out_first[v] ..] */
    uint32_t      out_count[JOB_VERTICES_MAX];
    uint32_t      out_edge[JOB_EDGES_MAX];
} spec;

void spec_init(spec *sp, const job *j, const broker *b);

bool spec_keyed(const spec *sp, uint32_t vertex);     /* keyed aggregate or keyed join */

/* Fold record r, arriving at vertex v on logical input `input`, `copies`
 * times into into[] (one map per vertex; only keyed vertices' are
 * touched), and follow it downstream. */
void spec_fold(const spec *sp, kstate *into, uint32_t v, uint32_t input, model_rec r, uint64_t copies);

/* Fold input record r from the source on. */
void spec_fold_input(const spec *sp, kstate *into, const model_rec *r);

/* How many times record r must be visible in the sinks' output. */
uint32_t spec_visible(const spec *sp, const model_rec *r);

#endif
