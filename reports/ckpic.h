/* reports/ckpic.h: the run viewer's pictures of single checkpoints
 * (absim run --html), drawn by absim as inline SVG from what the DOT
 * picture's recorder kept (reports/rpt.h): no Graphviz when the page is
 * viewed, nothing fetched.
 *
 * Contract:
 * - ckpic_pick() chooses the checkpoints a page embeds: the recorder's
 *   (its first RPT_CKPTS_MAX, or the one rpt_keep_only named), in id
 *   order, while there are at most CKPIC_MAX pictures and CKPIC_BOXES_MAX
 *   task boxes in all (one picture at least). It returns how many and
 *   puts their recorder slots in slots[] (room for RPT_CKPTS_MAX).
 * - ckpic_write() writes one <svg> element, a well-formed XML document on
 *   its own (xmlns set), class "ckpic", id "ck-N" and data-ck="N" for
 *   checkpoint N: the coordinator at the left (when it triggered, how the
 *   checkpoint ended, the acknowledgements counted, dropped and lost),
 *   then one column per vertex in stage order and one row per subtask (at
 *   most CKPIC_ROWS a vertex: the picture says how many it leaves out);
 *   each task a box with what it did for that checkpoint: the trigger or
 *   its first barrier, the alignment's start and end and, per input, the
 *   barrier's arrival (its order among the task's inputs, its time) and
 *   how long that input was blocked; unaligned: the records and bytes of
 *   channel state; the end of its snapshot's synchronous and asynchronous
 *   parts and the bytes written; its acknowledgement sent and received,
 *   dropped, or lost; declined, skipped or dropped as aborted. An arrow
 *   along each channel from producer to consumer (a barrier, a priority
 *   barrier, a cancel marker, or nothing) ends in the arrival's order
 *   number; blue arrows are the coordinator's triggers to the sources.
 *   The first picture is shown (class "ckpic on"), the others hidden by
 *   the page's style. Task boxes carry data-t (the task), for the
 *   viewer's stepper.
 * - Output depends only on the run: the same run gives the same bytes.
 */
#ifndef REPORTS_CKPIC_H
#define REPORTS_CKPIC_H

#include <stdio.h>

#include "rpt.h"

#define CKPIC_MAX       RPT_CKPTS_MAX
#define CKPIC_BOXES_MAX 512u              /* task boxes on one page, all pictures together */
#define CKPIC_ROWS      12u               /* subtasks a vertex shows */

uint32_t ckpic_pick(const rpt_recorder *r, uint32_t *slots);
void     ckpic_write(const rpt_recorder *r, FILE *f, uint32_t slot, bool shown);
/* Task boxes a picture of r's job draws. */
uint32_t ckpic_boxes(const rpt_recorder *r);

#endif
