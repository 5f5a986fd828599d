/* model/stats.h: what a run counts (pipe_stats), written by the model
 * where it happens and never read by it to decide anything. Vocabulary
 * of the lowest floor of model/. */
#ifndef MODEL_STATS_H
#define MODEL_STATS_H

#include "../sim/run.h"

typedef struct pipe_stats {
    uint64_t    triggered, completed, aborted, declined, timed_out, subsumed;
    uint64_t    lost_with_job;         /* pending when the attempt failed */
    uint64_t    aborted_task_finished; /* a task finished before it took it, above a running one (FLIP-147) */
    uint64_t    restarts;
    sim_time_ns restart_delay_ns_sum;  /* the restart strategy's delays, summed */
    uint64_t    records_read;          /* by sources, replays included */
    uint64_t    records_processed;     /* by operators and sinks */
    uint64_t    sink_records;          /* written by sinks, replays and aborted transactions included */
    uint64_t    data_buffers;          /* data buffers put on channels (full, or closed early by the
                                          buffer timeout, a barrier or the end), every attempt's */
    uint64_t    last_completed;        /* id */
    sim_time_ns ckpt_duration_ns_max;
    sim_time_ns ckpt_duration_ns_sum;
    sim_time_ns alignment_ns_max;      /* a task's first barrier of a checkpoint to its trigger */
    sim_time_ns alignment_ns_sum;
    uint64_t    alignments;            /* triggers at tasks with inputs */
    sim_time_ns start_delay_ns_sum, start_delay_ns_max;   /* checkpoint created to a task's first barrier */
    uint64_t    start_delays;
    /* snapshots (P5-P7) */
    uint64_t    snapshots;             /* acknowledged by tasks */
    uint64_t    sync_parts;            /* synchronous parts ended (declined snapshots too) */
    sim_time_ns sync_ns_sum, sync_ns_max;     /* trigger to the task going on */
    sim_time_ns async_ns_sum, async_ns_max;   /* background write to acknowledgement */
    uint64_t    triggers_forgotten;    /* triggers a backpressured source stopped queueing: abort notices were lost (task.c) */
    uint64_t    snapshots_forgotten;   /* written snapshots a task stopped remembering: their notices were lost or late (snap.c) */
    uint64_t    async_failures;        /* snapshots that failed at their task: a failed write (a full
                                          store too), channel state past its bound, too many at once
                                          (each declined), or a finished task's final state not written */
    uint64_t    bytes_written;         /* state files of completed checkpoints */
    uint64_t    files_created, files_shared;  /* shared: references to earlier files */
    uint64_t    cs_bytes;              /* in-flight data persisted as channel state */
    uint64_t    unaligned_triggers;    /* tasks that triggered unaligned */
    uint64_t    alignment_timeouts;    /* aligned checkpoints that switched to unaligned */
    uint64_t    restore_failures;      /* a restore found a file deleted */
    /* sinks (P10) */
    uint64_t    txn_committed, txn_aborted;
    /* Records visible in the output, each copy once: a plain or two-phase-
     * commit sink's duplicates count again, an idempotent sink's overwrites
     * do not (the sum of pipe_sink_count over the input). */
    uint64_t    visible_records;
    uint64_t    overwrites;            /* idempotent upserts of a record visible already */
    sim_time_ns latency_ns_sum, latency_ns_max;   /* event-time latency when records became visible (first time) */
    uint64_t    txn_overflows;         /* a sink's transaction log was full: it failed */
    uint64_t    committer_failures;    /* Sink V2: a committer failed on what arrived (an incomplete batch, a duplicate),
                                          or its collector was full */
    uint64_t    committer_refusals;    /* of those, Flink's own checks (IllegalStateException): never in a correct run */
    uint64_t    materializations;      /* changelog: materializations that became the materialized part */
    /* coordinator */
    uint64_t    failovers;
    /* fencing: messages of another attempt dropped (zombies, or sent before a restart) */
    uint64_t    fenced_data;           /* data, credit and priority messages, at tasks */
    uint64_t    fenced_rpcs;           /* reports at the coordinator, and commands at tasks sent on a
                                          connection to the JobManager that broke since */
    uint64_t    checkpoints_lost;      /* completed ones a memory backend lost with the coordinator */
    uint64_t    relocated;             /* tasks a restart deployed onto another machine than their last (slots) */
    uint64_t    restarted_tasks;       /* tasks restarts deployed again: all, or the failed regions' */
    /* event time */
    uint64_t    watermarks;            /* watermarks sent, per output channel counted once per task */
    uint64_t    windows_fired;         /* firings at the watermark, replays included */
    uint64_t    late_firings;          /* firings on a record within the allowed lateness */
    uint64_t    late_records;          /* records dropped as late for every window of theirs */
    uint64_t    rescales;              /* deployments that changed a vertex's parallelism (each counts as a restart too) */
    uint64_t    resumes;               /* the job submitted again after a stop or cancel (each counts as a restart too) */
} pipe_stats;

#endif
