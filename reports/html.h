/* reports/html.h: the run viewer (absim run --html): one self-contained
 * HTML page, nothing fetched at view time (inline CSS, JavaScript and
 * SVG), that shows a run and steps through it.
 *
 * Contract:
 * - html_write() writes the page from a finished svg_recorder (svg.h):
 *   the summary (the text absim run printed), a timeline of the whole
 *   run's checkpoints by outcome with its faults, failures and restarts,
 *   the violations, the space-time diagram (svg_write in viewer mode,
 *   one picture per window of svg_panes, shown one at a time: the one
 *   holding the stepper's step, or the one chosen with earlier/later or
 *   in the timeline; zoom buttons scale them), and a stepper: first/prev/next/last buttons, a slider and the arrow
 *   keys move through the run's protocol steps (the recorder's, faults
 *   included, in order), highlight the current one in the diagram (its
 *   elements carry data-s) with a cursor at its time, and show every
 *   task's state at that moment: its gate (inputs blocked, buffers and
 *   records waiting), its snapshots by checkpoint and phase, a
 *   two-phase-commit sink's pre-committed transactions, the
 *   coordinator's pending checkpoints and acknowledgements.
 * - The steps are embedded as a JSON array (script#absim-data), each with
 *   its time, kind, task, checkpoint, attempt, a sentence, and the inputs
 *   whose view changed; the script computes the state by replaying the
 *   steps up to the slider's position. The first HTML_STEPS_MAX steps
 *   are embedded (the page says when there were more).
 * - The checkpoint pictures (reports/ckpic.h), those ckpic_pick() embeds,
 *   one shown at a time: a select box, a click on a checkpoint in the
 *   timeline (its bars carry data-ck), or the stepper (each step shows
 *   its checkpoint's picture, with the step's task box marked, while
 *   "follow the stepper" is checked) choose it. The page says how many of
 *   the run's checkpoints it embeds and how to get the others.
 * - The URL fragment #step=N opens the page at step N (and follows the
 *   stepper), so a test can render two steps and compare them; #ck=N
 *   opens checkpoint N's picture and scrolls to it.
 * - The page depends only on the run and the options: the same bytes on
 *   every rerun.
 */
#ifndef REPORTS_HTML_H
#define REPORTS_HTML_H

#include <stdio.h>

#include "../check/check.h"
#include "rpt.h"
#include "svg.h"

#define HTML_STEPS_MAX 100000u

typedef struct html_page {
    const char            *title;         /* "FILE, seed S" */
    const char            *summary;       /* what absim run printed */
    const check_violation *violations;    /* the checkers' kept ones */
    uint32_t               violations_count;
    uint64_t               violations_all;
    const svg_recorder    *rec;
    const svg_opts        *opts;          /* the diagram's window and tasks (viewer is set by html_write) */
    const rpt_recorder    *ckpts;         /* what the checkpoint pictures draw (kept as for --dot), or NULL */
} html_page;

void html_write(FILE *f, const html_page *pg);

/* The viewer's script and style (reports/htmljs.c). */
extern const char html_script[];
extern const char html_style[];

#endif
