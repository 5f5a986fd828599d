/* model/reach.h: the protocol's reach points (coverage). Vocabulary of
 * the lowest floor of model/; their names in model/reach.c, their counts
 * in the world (REACHED, model/world.h). */
#ifndef MODEL_REACH_H
#define MODEL_REACH_H

#include <stdint.h>

/* Protocol coverage: named situations the protocol must handle, each
 * counted where the model handles it (as SQLite's testcase()), so a
 * campaign can say which it reached. Counting never changes a run: the
 * counters are written, never read, by the model. Names and one line
 * each: model/reach.c. Append new ones at the end of their group. */
typedef enum pipe_reach {
    /* coordinator: checkpoints */
    PIPE_REACH_CKPT_COMPLETED = 0,    /* a checkpoint completed */
    PIPE_REACH_CKPT_SUBSUMED,         /* a pending one was subsumed by a newer completion */
    PIPE_REACH_CKPT_TIMED_OUT,
    PIPE_REACH_CKPT_DECLINED,         /* the coordinator took a task's decline */
    PIPE_REACH_METADATA_FAILED,       /* the metadata write failed: declined */
    PIPE_REACH_CKPT_CONCURRENT,       /* triggered while another was pending */
    PIPE_REACH_TRIGGER_MIN_PAUSE,     /* a trigger waited for the minimum pause */
    PIPE_REACH_TRIGGER_MAX_CONCURRENT,/* a trigger waited: max-concurrent pending */
    PIPE_REACH_TOLERABLE_EXCEEDED,    /* too many failed checkpoints: the job fails */
    PIPE_REACH_LATE_ACK,              /* an acknowledgement of an aborted checkpoint was dropped */
    PIPE_REACH_COORD_OLD_ATTEMPT,     /* the coordinator dropped a message of an older attempt */
    PIPE_REACH_FINISHED_ACKED_FOR,    /* acknowledged on behalf of a finished task */
    PIPE_REACH_FINAL_CHECKPOINT,      /* every task finished: the job ended */
    PIPE_REACH_PENDING_LOST,          /* pending checkpoints died with a failed attempt */
    PIPE_REACH_METADATA_AMBIGUOUS,    /* a metadata write ended ambiguously: the checkpoint is aborted, its files kept */
    PIPE_REACH_COMPLETION_WAITS_ASSIGN, /* a checkpoint waited for a split assignment to be acknowledged */
    PIPE_REACH_ASSIGNMENT_LOST,       /* an assignment was never acknowledged: the job fails over */
    /* coordinator: restarts and failover */
    PIPE_REACH_RESTART_FIXED_DELAY,
    PIPE_REACH_RESTART_FAILURE_RATE,
    PIPE_REACH_RESTART_EXPONENTIAL,
    PIPE_REACH_GIVE_UP_NONE,
    PIPE_REACH_GIVE_UP_FIXED_DELAY,
    PIPE_REACH_GIVE_UP_FAILURE_RATE,
    PIPE_REACH_EXPONENTIAL_RESET,     /* a quiet time reset the backoff */
    PIPE_REACH_RESTART_WAITS,         /* a restart waited for free slots (a TaskManager to come back) */
    PIPE_REACH_RELOCATED,             /* a restart deployed a task onto another machine than its last */
    PIPE_REACH_INPUT_ENDED,           /* a task's input ended: it waits for a final checkpoint (FLIP-147) */
    PIPE_REACH_FINAL_CHECKPOINT_DONE, /* a task finished once a checkpoint it triggered after its input ended completed */
    PIPE_REACH_TRIGGER_AFTER_UPSTREAM,/* a task that is no source was triggered: every task upstream had finished */
    PIPE_REACH_TRIGGER_SKIP_FINISHED, /* finished-tasks off: a checkpoint was not triggered as a task had finished */
    PIPE_REACH_CKPT_TASK_FINISHED,    /* a pending checkpoint was aborted: a task finished before it took it */
    PIPE_REACH_TXN_FENCED,            /* the external system refused a zombie two-phase-commit sink */
    PIPE_REACH_FAILOVER_MEMORY,       /* a new coordinator, memory backend: start over */
    PIPE_REACH_FAILOVER_DURABLE,      /* a new coordinator read the completed checkpoints back */
    PIPE_REACH_HEARTBEAT_TIMEOUT,     /* a silent TaskManager was declared lost */
    PIPE_REACH_CANCEL_REPEATED,       /* a restart waiting for slots cancelled a task again */
    PIPE_REACH_DEPLOY_REPEATED,       /* a deployment nobody confirmed was sent again */
    PIPE_REACH_REGION_RESTART,        /* a failure restarted its pipelined region alone, the others kept running */
    PIPE_REACH_RESCALED,              /* a deployment changed a vertex's parallelism from a checkpoint */
    PIPE_REACH_RESCALE_FROM_NOTHING,  /* ... with no completed checkpoint: the rescaled job started over */
    PIPE_REACH_GIVE_UP_EXPONENTIAL,   /* the exponential strategy used its attempts before a reset */
    PIPE_REACH_RESTART_MERGED,        /* a failure before the scheduled restart joined its attempt (FLIP-364) */
    PIPE_REACH_TRIGGER_NOT_RUNNING,   /* a request failed: not every task to trigger or wait for runs */
    PIPE_REACH_QUEUED_TRIGGERED,      /* a queued request triggered as a pending checkpoint ended */
    PIPE_REACH_FAILURE_OF_FINISHED_IGNORED, /* a finished task's process or TaskManager died: no failure */
    /* tasks: snapshots */
    PIPE_REACH_DECLINE_SENT,          /* a task declined a checkpoint */
    PIPE_REACH_TWO_SNAPSHOTS,         /* a snapshot began while another was alive at the task */
    PIPE_REACH_WRITE_FAILED,          /* the store failed a snapshot write: declined */
    PIPE_REACH_PRIORITY_OVERTOOK,     /* a priority barrier overtook queued output buffers */
    PIPE_REACH_INPUT_CHANNEL_STATE,   /* in-flight input buffers persisted */
    PIPE_REACH_ALIGNMENT_TIMEOUT,     /* an aligned checkpoint switched to unaligned at the inputs */
    PIPE_REACH_OUTPUT_TIMEOUT,        /* an aligned barrier stuck in an output queue became a priority one */
    PIPE_REACH_ALIGNED_TAKES_PRIORITY,/* an aligned gate took a priority barrier */
    PIPE_REACH_INCREMENTAL,           /* an incremental snapshot shared earlier files */
    PIPE_REACH_FULL_CHAIN_LIMIT,      /* a full snapshot: the chain reached full-every */
    PIPE_REACH_TRIGGER_QUEUED,        /* a source under backpressure queued a trigger */
    PIPE_REACH_TRIGGER_WITHDRAWN,     /* a source dropped a queued trigger of a checkpoint aborted meanwhile */
    PIPE_REACH_ABORTED_BEFORE_TRIGGER,/* a task's trigger of a checkpoint notified as aborted: cancel markers instead */
    PIPE_REACH_TRIGGER_OUT_OF_ORDER,  /* a task ignored a trigger of a checkpoint not newer than its last (Flink's check) */
    /* tasks: restore and attempts */
    PIPE_REACH_RESTORE_CHAIN,         /* a task restored from an incremental chain */
    PIPE_REACH_RESTORE_CHANNEL_STATE, /* a restore replayed or re-emitted channel state */
    PIPE_REACH_RESCALED_CHANNEL_STATE,/* a restore across a rescale took channel state of old subtasks, filtered and mapped */
    PIPE_REACH_RESTORE_SCRATCH,       /* a restart with no completed checkpoint */
    PIPE_REACH_NOTICE_TABLE_FULL,     /* notices lost or late for more checkpoints than a task keeps: it forgot the oldest */
    PIPE_REACH_REPLAY_READ_FAILED,    /* a zombie's read of channel state found its file gone with the coordinator's memory */
    PIPE_REACH_UNDEPLOYED,            /* an incarnation nobody deployed ignored an event */
    PIPE_REACH_FAILURE_REPEATED,      /* a failed task reported its failure again */
    PIPE_REACH_LOST_JOBMANAGER,       /* a task whose JobManager connection broke freed its slot */
    PIPE_REACH_FENCED_DATA,           /* a task dropped a data message of another attempt */
    PIPE_REACH_STALE_COMMAND,         /* a task dropped a command sent on a JobManager connection that broke */
    PIPE_REACH_EARLY_REQUEST,         /* a producer kept a partition request of an attempt not yet deployed there */
    PIPE_REACH_PRIORITY_HELD,         /* a priority barrier waited for its channel's partition request */
    /* sinks */
    PIPE_REACH_TXN_ABORTED_ON_RESTORE,
    PIPE_REACH_TXN_COMMITTED_ON_RESTORE,   /* recoverAndCommit of a completed checkpoint's */
    PIPE_REACH_COMMIT_COVERS_EARLIER, /* one notice committed several checkpoints' transactions */
    PIPE_REACH_IDEMPOTENT_OVERWRITE,  /* an idempotent sink overwrote a record it had */
    PIPE_REACH_TXN_ADOPTED,           /* a rescaled-down sink resolved transactions of an old subtask above its parallelism */
    PIPE_REACH_COMMIT_AGAIN,          /* Sink V2: a committer's commit found its transaction committed already */
    PIPE_REACH_COMMITTABLES_AT_END,   /* Sink V2: a writer emitted a transaction's committable at end of input */
    PIPE_REACH_COMMITTER_RESTORED,    /* Sink V2: a committer restored committables and committed them at once */
    PIPE_REACH_GLOBAL_UPSTREAM_ENDED, /* Sink V2: a global commit counted an upstream subtask that ended as complete */
    PIPE_REACH_GLOBAL_WAITS,          /* Sink V2: a global committer held a checkpoint back: an upstream subtask's summary was missing */
    /* the changelog state backend (model/tm/clog.c) */
    PIPE_REACH_CHANGELOG_MATERIALIZED,     /* a materialization became the materialized part */
    PIPE_REACH_CHANGELOG_NOTHING_TO_MATERIALIZE,   /* nothing changed since the boundary: skipped */
    PIPE_REACH_CHANGELOG_SHARED_SEGMENT,   /* a checkpoint's chain took a segment an earlier one uploaded */
    PIPE_REACH_CHANGELOG_REUPLOAD,         /* a segment before it was lost: uploaded again */
    PIPE_REACH_CHANGELOG_FAILED_UPLOAD,    /* a persist refused: an earlier upload failed, no materialization since */
    PIPE_REACH_CHANGELOG_SEGMENTS_FULL,    /* absim's bound: one segment from the boundary */
    PIPE_REACH_CHANGELOG_LONG_RESTORE,     /* absim's bound: a long restored chain materialized at once */
    PIPE_REACH_CHANGELOG_SAVEPOINT,        /* a savepoint of a changelog task: the nested backend's, canonical */
    PIPE_REACH_CHANGELOG_ON_SAVEPOINT,     /* a changelog task restored a savepoint: its materialized part */
    /* stops, cancels and resumes (model/jm/stop.c) */
    PIPE_REACH_HALT_WAITS,            /* a stop or cancel waited: nothing to resume from yet, or the job not ready */
    PIPE_REACH_JOB_CANCELLED,         /* the user cancelled the job, its retained checkpoints kept */
    PIPE_REACH_JOB_RESUMED,           /* the user submitted the job again from its snapshot */
    PIPE_REACH_FULL_FORCED,           /* NO_CLAIM: a checkpoint was triggered as a full one */
    PIPE_REACH_RESTORED_UNCLAIMED,    /* a restore took a snapshot restored in NO_CLAIM mode again */
    PIPE_REACH_STOP_TRIGGERED,        /* a stop's savepoint was triggered */
    PIPE_REACH_STOP_SAVEPOINT_TAKEN,  /* a task took a stop's savepoint (a source stopped reading) */
    PIPE_REACH_STOP_SAVEPOINT_COMPLETED,
    PIPE_REACH_STOP_SAVEPOINT_ABORTED,/* ... aborted: the job fails over, the stop is tried again */
    PIPE_REACH_STOP_SAVEPOINT_FAILED, /* a task that took it heard of its abort and failed */
    PIPE_REACH_JOB_STOPPED,           /* every task finished after the stop's savepoint: the job ended */
    PIPE_REACH_STOP_NOTICE_AGAIN,
    PIPE_REACH_SOURCE_DRAINED,        /* stop --drain: a source ended its input before the savepoint's barrier */
    PIPE_REACH_JOB_DRAINED,           /* every task finished after a drained savepoint: the job is over */     /* a task had not finished long after the savepoint: its notice went again */
    PIPE_REACH_STOP_FAILED_AFTER_SAVEPOINT,   /* a failure after the savepoint completed ended the job (FLINK-26783) */
    /* gates, by mode (model/flow/gate.h) */
    PIPE_REACH_CANCEL_ALIGNED,        /* a cancel marker came to an aligned gate */
    PIPE_REACH_CANCEL_AT_LEAST_ONCE,
    PIPE_REACH_CANCEL_UNALIGNED,
    PIPE_REACH_CANCEL_ENDS_ALIGNED,   /* ... and ended the alignment it cancels */
    PIPE_REACH_CANCEL_ENDS_AT_LEAST_ONCE,
    PIPE_REACH_CANCEL_ENDS_UNALIGNED,
    PIPE_REACH_NEWER_ABORTS_ALIGNED,  /* a newer barrier aborted the pending alignment */
    PIPE_REACH_NEWER_ABORTS_UNALIGNED,
    PIPE_REACH_TRACKS_TWO,            /* at-least-once: two checkpoints tracked at once */
    PIPE_REACH_END_MARKS_ALIGNED,     /* end of partition counted as a pending checkpoint's barrier */
    PIPE_REACH_END_MARKS_AT_LEAST_ONCE,
    PIPE_REACH_END_MARKS_UNALIGNED,
    PIPE_REACH_OBSOLETE_ALIGNED,      /* a barrier of an older checkpoint was ignored */
    PIPE_REACH_OBSOLETE_UNALIGNED,
    /* event time (model/tm/evtime.c) */
    PIPE_REACH_WINDOW_FIRED,          /* a watermark fired a window */
    PIPE_REACH_WINDOW_FIRED_LATE,     /* a record within the allowed lateness fired its window again */
    PIPE_REACH_LATE_DROPPED,          /* a record came after every window of it was purged: dropped, counted */
    PIPE_REACH_RESTORED_WINDOW_FIRED, /* a window fired on a timer restored from a checkpoint */
    PIPE_REACH_COUNT
} pipe_reach;

typedef struct pipe_reach_info {
    const char *name;                 /* "decline-sent" */
    const char *what;                 /* one line */
} pipe_reach_info;

const pipe_reach_info *pipe_reach_info_of(pipe_reach r);

#endif
