/* model/flow/gatesim.h: one input gate driven by a written sequence of tokens,
 * consumed the way a task consumes its channels. It runs the real barrier
 * handler (model/flow/gate.c), so `absim gate` and the gate tests are an oracle
 * for what tasks do in a full run.
 *
 * Tokens: r@C a record on channel C, b<N>@C the barrier of checkpoint N,
 * x<N>@C a cancel marker for N, e@C the end of channel C's partition,
 * p<N>@C a priority (unaligned) barrier of N that overtakes what is queued
 * on C, t<N> the alignment timeout of checkpoint N firing (aligned mode:
 * the checkpoint switches to unaligned). A token's index is its 0-based
 * position in the sequence.
 *
 * Contract: gatesim_feed() appends a token to its channel's FIFO queue, then
 * consumes everything it can, from channels that are not blocked, in
 * arrival order, and writes one line per action, in order:
 *   emit I        the operator processed record or end-of-partition token I
 *   trigger N     the task triggers checkpoint N
 *   abort N       the task aborts checkpoint N
 *   persist N I   (unaligned, or switched) record I is saved as channel
 *                 state of N: consumed before its channel's barrier, or
 *                 queued on C when p<N>@C overtook it
 *   blocked C,... with show_blocked, after each token: the blocked
 *                 channels, ascending ("blocked" alone when none)
 * End of partition is handed to the barrier handler before the operator
 * sees it, as Flink's CheckpointedInputGate does, so its trigger or abort
 * line comes before its emit line. Input errors (a malformed token, a
 * channel out of range, a token after its channel ended) are returned as
 * messages, never asserted. No allocation: the caller gives the buffers.
 */
#ifndef MODEL_GATESIM_H
#define MODEL_GATESIM_H

#include <stdio.h>

#include "gate.h"

#define GATESIM_TOKENS_MAX (1u << 20)
#define GATESIM_CKPT_MAX   (1ull << 62)

typedef enum gatesim_kind {
    GATESIM_RECORD = 1,
    GATESIM_BARRIER,
    GATESIM_CANCEL,
    GATESIM_END,
    GATESIM_PRIORITY,            /* taken on arrival, ahead of the channel's queue */
    GATESIM_TIMEOUT,             /* no channel */
} gatesim_kind;

typedef struct gatesim_token {
    gatesim_kind kind;
    uint32_t     channel;
    uint64_t     ckpt;
} gatesim_token;

typedef struct gatesim {
    gate           g;
    gatesim_token *tokens;       /* by index */
    uint32_t      *next;         /* by index: the channel queue */
    uint32_t       capacity;
    uint32_t       count;
    uint32_t       head[GATE_CHANNELS_MAX];
    uint32_t       tail[GATE_CHANNELS_MAX];
    uint32_t       end_token[GATE_CHANNELS_MAX];   /* index of e@C, or UINT32_MAX */
    bool           show_blocked;
    FILE          *out;
} gatesim;

/* Parse one token; false with a message in err (no position: the caller
 * knows where the token came from). */
bool gatesim_parse(const char *text, uint32_t channels, gatesim_token *tok, char *err, size_t err_bytes);

void gatesim_init(gatesim *s, gate_mode mode, uint32_t channels, bool legacy_eop, bool show_blocked,
                  gatesim_token *tokens, uint32_t *next, uint32_t capacity, FILE *out);

/* Append and consume; false with a message in err when the token cannot
 * follow what came before (its channel ended) or the capacity is reached. */
bool gatesim_feed(gatesim *s, const gatesim_token *tok, char *err, size_t err_bytes);

#endif
