/* model/bugs.h: the deliberate bugs, the known-wrong variants of the
 * protocol that the checkers must catch (their table: model/bugs.c).
 * Vocabulary of the lowest floor of model/: it includes nothing of the
 * model. */
#ifndef MODEL_BUGS_H
#define MODEL_BUGS_H

#include <stdint.h>

/* Deliberate bugs: known-wrong variants of the protocol, each the smallest
 * deviation in the real code path, each of which the checkers must catch;
 * the correct protocol is never flagged. One table (model/bugs.c) names
 * them, says what each breaks and which invariant must catch it, and pins
 * a scenario and seed that shows it. Append new ones at the end. */
typedef enum pipe_bug {
    PIPE_BUG_NONE = 0,
    PIPE_BUG_NO_ALIGNMENT,            /* aligned mode claimed, but inputs never block */
    PIPE_BUG_NO_REWIND,               /* sources keep reading where they were after a restore */
    PIPE_BUG_OFFSET_OFF_BY_ONE,       /* sources record S_n + 1 in their snapshot */
    PIPE_BUG_PARTIAL_ACKS,            /* the coordinator completes once half the tasks acknowledged */
    PIPE_BUG_NO_COW,                  /* the async part reads the live state: later updates leak in */
    PIPE_BUG_EARLY_ACK,               /* acknowledge before the async write finished */
    PIPE_BUG_SHARED_DELETE,           /* a dropped checkpoint deletes its files though later ones share them */
    PIPE_BUG_EARLY_COMMIT,            /* two-phase commit sinks commit at pre-commit */
    PIPE_BUG_DROP_RECORDS,            /* a keyed aggregate loses one record in a thousand, failures or not */
    PIPE_BUG_NO_CHANNEL_STATE,        /* unaligned snapshots keep no in-flight records */
    PIPE_BUG_BARRIER_FIRST,           /* a barrier overtakes the records in the buffer being filled */
    PIPE_BUG_NO_REPLAY,               /* a restore skips the input channel state */
    PIPE_BUG_RESTORE_COMMITS_ALL,     /* a restored sink commits every pre-committed transaction */
    PIPE_BUG_EOP_NO_MARK,             /* FLINK-24068: end of partition skips the alignment bookkeeping */
    PIPE_BUG_ABORT_DISCARDS_SHARED,   /* FLINK-24611: an aborted checkpoint discards the shared files it used */
    PIPE_BUG_RESTORE_OLDER,           /* FLINK-10354: a failover restores an older retained checkpoint */
    PIPE_BUG_NO_FINAL_CHECKPOINT,     /* FLINK-2491: finished tasks are not acknowledged for, no final commit */
    PIPE_BUG_SECOND_INPUT_STATE,      /* FLINK-18139: overtaken buffers of a task's second input are not persisted */
    PIPE_BUG_NEWER_NO_ABORT,          /* a newer barrier does not abort the pending alignment */
    PIPE_BUG_RESTORE_PENDING,         /* a failed job restores its newest pending checkpoint */
    PIPE_BUG_COW_NO_BUMP,             /* FLINK-26968: an update with no snapshot active keeps its old version */
    PIPE_BUG_REGISTRY_BY_NAME,        /* FLINK-29913: concurrent increments on one base share one registry entry */
    PIPE_BUG_ACK_FAILED_WRITE,        /* FLINK-5701: a task acknowledges although its asynchronous write failed */
    PIPE_BUG_COMMIT_ONLY_NOTIFIED,    /* FLINK-10377: a completion notice commits only its own checkpoint's transaction */
    PIPE_BUG_SWITCH_NO_QUEUED,        /* a switch to unaligned at the alignment timeout persists no queued input */
    PIPE_BUG_COMMIT_ON_ABORT,         /* a sink takes an abort notice for a completion notice */
    PIPE_BUG_RECOVER_DISCARDS,        /* FLINK-7783: a failover discards the checkpoints it could not read, shared files too */
    PIPE_BUG_NO_FENCING,              /* the coordinator takes messages of old attempts */
    PIPE_BUG_ACK_BEFORE_CS,           /* a task acknowledges before its channel state is durable */
    PIPE_BUG_HA_DISCARD,              /* FLINK-22494: an ambiguous metadata write is taken as failed: its files go */
    PIPE_BUG_LOST_ASSIGNMENT,         /* FLINK-21996: a lost split assignment goes unnoticed, checkpoints complete anyway */
    PIPE_BUG_JOIN_DROPS_INPUT,        /* a keyed join drops every record of its second input */
    PIPE_BUG_REGION_RESTARTS_ALL,     /* region failover configured, yet a task's failure restarts every task */
    PIPE_BUG_RESTORE_DROPS_TIMERS,    /* a restored window keeps its contents but not its timers: it never fires */
    PIPE_BUG_WATERMARK_HIGHEST,       /* an operator's watermark is the highest over its inputs, not the lowest */
    PIPE_BUG_RESCALE_WRONG_RANGE,     /* a rescaled task is given the old subtasks' handles off by one: the last one overlapping its key groups is left out */
    PIPE_BUG_FAILURE_COUNT_KEPT,      /* the failed-checkpoint count survives the job failure it caused (absim's old reading) */
    PIPE_BUG_EOI_COMMITTABLES_KEPT,   /* FLINK-26403: a Sink V2 writer emits no committables at end of input */
    PIPE_BUG_MERGED_SUBTASKS,         /* FLINK-36368: a global committer merges the committables of its upstream subtasks */
    PIPE_BUG_CHANGELOG_BOUNDARY,      /* FLINK-25987: a materialization with nothing new sets its boundary one past */
    PIPE_BUG_STATELESS_SKIPPED,       /* FLINK-31963: a rescale leaves a stateless vertex's channel state unassigned */
    PIPE_BUG_LEGACY_DISCARDS,         /* FLINK-26985: a LEGACY resume discards the restored checkpoint's shared files */
    PIPE_BUG_NO_CLAIM_SHARES,         /* the first checkpoint after a NO_CLAIM restore builds on the restored files */
    PIPE_BUG_STOP_FAILS_OVER,         /* FLINK-26783: a failure after a stop's savepoint restarts from the latest checkpoint */
    PIPE_BUG_TM_CLEANUP_SHARED,       /* FLINK-25395: a task's cleanup of an aborted snapshot discards the shared files too */
    PIPE_BUG_RESTORED_CKPT_ONE,       /* FLINK-29512: a restored committer sends its committables under checkpoint 1 */
    PIPE_BUG_GLOBAL_ON_NOTICE,        /* FLINK-24530: the global committer commits on its notice what arrived, complete or not */
    PIPE_BUG_CLAIM_PRIVATE_DISCARDED, /* FLINK-25872: a claimed savepoint's files go when it is subsumed, though changelog checkpoints use them */
    PIPE_BUG_COUNT
} pipe_bug;

typedef struct pipe_bug_info {
    pipe_bug    bug;
    const char *name;                 /* --bug NAME */
    const char *breaks;               /* what goes wrong, one line */
    const char *mechanism;            /* the deviation in the code path, one line */
    const char *catches;              /* the invariant that must catch it ("I2") */
    const char *scenario;             /* a pinned scenario file ... */
    uint64_t    seed;                 /* ... and seed, with --faults random, that shows it */
    const char *also;                 /* a bug of two halves: the invariant that catches the other, or NULL */
} pipe_bug_info;

/* Entry b (PIPE_BUG_NO_ALIGNMENT <= b < PIPE_BUG_COUNT). */
const pipe_bug_info *pipe_bug_info_of(pipe_bug b);
const char *pipe_bug_name(pipe_bug b);

#endif
