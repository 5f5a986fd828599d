/* model/flow/gate.h: the checkpoint-barrier handler of one task's input gate,
 * as Flink (1.15+) runs it: SingleCheckpointBarrierHandler for aligned and
 * unaligned checkpoints, CheckpointBarrierTracker for at-least-once.
 *
 * Contract:
 * - The caller owns the channels' data queues and feeds the gate the
 *   control events it consumes, in consumption order: gate_on_barrier,
 *   gate_on_cancel, gate_on_end. Each call appends what the task must do,
 *   in order, to `out`: trigger checkpoint n (forward barrier n, snapshot,
 *   acknowledge) or abort n (decline, send a cancel marker downstream).
 * - gate_blocked(c): aligned mode only, true while channel c delivered the
 *   barrier of the checkpoint being aligned; the caller must not consume
 *   from a blocked channel (its data waits in the channel and backpressures).
 * - gate_persist_ckpt(c): unaligned (or switched) only, the checkpoint whose
 *   channel state a record consumed now from c belongs to (it is processed too).
 * - Rules, by mode:
 *   aligned/unaligned: one checkpoint at a time. A barrier older than the
 *   current checkpoint, or of the current one once it triggered or aborted,
 *   is obsolete and ignored. The first barrier of a newer checkpoint aborts
 *   a pending one (subsumed) and starts the new one, targeting the channels
 *   open at that moment. Aligned: each barrier blocks its channel; the last
 *   one triggers and unblocks all. Unaligned: the first barrier triggers at
 *   once; until a channel's barrier arrives its records are persisted. A
 *   cancel marker for a newer checkpoint, or for the current one after at
 *   least one of its barriers, aborts that id (and unblocks).
 *   at-least-once: never blocks; up to GATE_TRACKED_MAX checkpoints are
 *   tracked at once; checkpoint n triggers when its barrier arrived on every
 *   channel open when its first barrier came (a lone open channel triggers
 *   at once), and completing n drops every older one silently; a barrier
 *   older than the newest tracked one starts nothing. A cancel marker
 *   aborts its checkpoint and every older tracked one.
 *   end of partition: the channel closes. Default (Flink >= 1.15, FLIP-147):
 *   it counts as that channel's barrier for the pending checkpoint(s),
 *   which may complete them. legacy_eop (Flink < 1.14): it aborts every
 *   pending checkpoint.
 * - No allocation: a gate is a fixed-size value; ids are > 0.
 */
#ifndef MODEL_GATE_H
#define MODEL_GATE_H

#include "../../sim/base.h"

#define GATE_CHANNELS_MAX 512u   /* a task's inputs: JOB_TASK_CHANNELS_MAX (two hash inputs from 256-parallel vertices) */
#define GATE_TRACKED_MAX  50u    /* Flink's CheckpointBarrierTracker.MAX_CHECKPOINTS_TO_TRACK */
#define GATE_ACTS_MAX     (GATE_TRACKED_MAX + 2u)

enum {                             /* deliberate bugs a task can switch on (model/bugs.c) */
    GATE_BUG_EOP_NO_MARK = 1,      /* FLINK-24068: end of partition is not the channel's barrier */
    GATE_BUG_NEWER_NO_ABORT = 2,   /* a newer barrier does not abort the pending alignment */
};

typedef enum gate_mode {
    GATE_ALIGNED = 1,
    GATE_AT_LEAST_ONCE,
    GATE_UNALIGNED,
} gate_mode;

typedef enum gate_act_kind {
    GATE_TRIGGER = 1,
    GATE_ABORT,
} gate_act_kind;

typedef struct gate_act {
    gate_act_kind kind;
    uint64_t      ckpt;
    bool          unaligned;       /* a trigger of an unaligned (or switched) checkpoint */
} gate_act;

/* What a step of the gate did besides its actions, for protocol coverage
 * (the task counts them; the gate never reads them). */
enum {
    GATE_SAW_NEWER_ABORTS = 1u << 0,  /* a newer barrier aborted the pending checkpoint */
    GATE_SAW_CANCEL_ENDS  = 1u << 1,  /* a cancel marker ended the checkpoint it cancels */
    GATE_SAW_END_MARKS    = 1u << 2,  /* end of partition counted as a pending checkpoint's barrier */
    GATE_SAW_OBSOLETE     = 1u << 3,  /* a barrier of an older or aborted checkpoint was ignored */
    GATE_SAW_TRACKS_TWO   = 1u << 4,  /* at-least-once: a second checkpoint is tracked */
};

typedef struct gate_acts {
    gate_act items[GATE_ACTS_MAX];
    uint32_t count;
    uint32_t saw;                  /* GATE_SAW_* */
} gate_acts;

typedef struct gate_chanset {
    uint64_t words[GATE_CHANNELS_MAX / 64];
} gate_chanset;

typedef struct gate_tracked {      /* at-least-once: one checkpoint in flight */
    uint64_t     ckpt;
    gate_chanset aligned;
    uint32_t     aligned_count;
    uint32_t     target;           /* open channels when it started */
    bool         aborted;
} gate_tracked;

typedef struct gate {
    /* The scalars first, in one line: a task's every step reads some of
     * them (gate_blocked, gate_releases, gate_pending), the sets and the
     * ring of tracked checkpoints far less often. */
    gate_mode    mode;
    bool         legacy_eop;
    bool         switched;         /* aligned: the current checkpoint went unaligned (timeout) */
    uint32_t     bugs;             /* deliberate bugs (model/bugs.c): GATE_BUG_* */
    uint32_t     channels;
    uint32_t     open;             /* channels that have not ended */
    uint32_t     aligned_count;
    uint32_t     target;
    uint32_t     tracked_first;
    uint32_t     tracked_count;
    uint64_t     releases;         /* see gate_releases */
    /* aligned and unaligned: the current checkpoint */
    uint64_t     current;          /* 0: none yet */
    uint64_t     last_done;        /* last triggered-or-aborted id */
    uint64_t     latest;           /* at-least-once: newest tracked id ever */
    gate_chanset ended;
    gate_chanset aligned;          /* channels that delivered `current` */
    /* at-least-once: tracked checkpoints, oldest first, in a ring */
    gate_tracked tracked[GATE_TRACKED_MAX + 1];
} gate;

void gate_init(gate *g, gate_mode mode, uint32_t channels, bool legacy_eop);

void gate_on_barrier(gate *g, uint32_t channel, uint64_t ckpt, gate_acts *out);
void gate_on_cancel(gate *g, uint32_t channel, uint64_t ckpt, gate_acts *out);
void gate_on_end(gate *g, uint32_t channel, gate_acts *out);

/* A priority (unaligned) barrier: it overtook the channel's data, so it
 * is taken even from a blocked channel; in aligned mode it turns the
 * checkpoint unaligned (as gate_on_alignment_timeout). */
void gate_on_priority_barrier(gate *g, uint32_t channel, uint64_t ckpt, gate_acts *out);

/* Aligned mode: checkpoint `ckpt`, being aligned, has waited past the
 * alignment timeout: it switches to unaligned. It triggers now; blocked
 * channels unblock (their data is after the barrier); channels still
 * without the barrier persist their data until it comes. The next
 * checkpoint starts aligned again. Nothing happens when `ckpt` is not the
 * one being aligned. */
void gate_on_alignment_timeout(gate *g, uint64_t ckpt, gate_acts *out);

/* True while the current checkpoint is unaligned (mode unaligned, or
 * switched) and still collecting channel state. */
bool gate_unaligned_pending(const gate *g);

bool gate_blocked(const gate *g, uint32_t channel);

/* Counts the steps that may have unblocked channels (a trigger or abort
 * ending an alignment, a switch to unaligned); a channel goes from blocked
 * to unblocked only in such a step. A caller that set input of blocked
 * channels aside looks at it again when the count changed, not at every
 * step; between changes, blocked channels only get more. */
static inline uint64_t gate_releases(const gate *g) { return g->releases; }
bool gate_ended(const gate *g, uint32_t channel);
bool gate_persist_ckpt(const gate *g, uint32_t channel, uint64_t *ckpt);
bool gate_pending(const gate *g);   /* a checkpoint is being aligned or tracked */

const char *gate_mode_name(gate_mode mode);

#endif
