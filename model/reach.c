/* model/reach.c: the names of the protocol's reach points (model/pipe.h,
 * pipe_reach) and a line on each: `absim coverage` lists them, and
 * `--coverage FILE` writes their counts under these names. */
#include "pipe_int.h"

#define R(id, name, what) [PIPE_REACH_##id] = { name, what }

static const pipe_reach_info points[PIPE_REACH_COUNT] = {
    R(CKPT_COMPLETED, "checkpoint-completed", "a checkpoint completed"),
    R(CKPT_SUBSUMED, "checkpoint-subsumed", "a pending checkpoint was subsumed by a newer one that completed"),
    R(CKPT_TIMED_OUT, "checkpoint-timed-out", "a pending checkpoint timed out"),
    R(CKPT_DECLINED, "checkpoint-declined", "the coordinator aborted a checkpoint a task declined"),
    R(METADATA_FAILED, "metadata-write-failed", "the store failed a checkpoint's metadata write: declined"),
    R(CKPT_CONCURRENT, "checkpoints-concurrent", "a checkpoint was triggered while another was pending"),
    R(TRIGGER_MIN_PAUSE, "trigger-waits-min-pause", "a trigger waited for the minimum pause after a completion"),
    R(TRIGGER_MAX_CONCURRENT, "trigger-waits-max-concurrent", "a trigger waited: max-concurrent checkpoints pending"),
    R(TOLERABLE_EXCEEDED, "tolerable-failures-exceeded", "more failed checkpoints in a row than tolerated: the job fails"),
    R(LATE_ACK, "late-ack-dropped", "an acknowledgement of a checkpoint no longer pending was dropped"),
    R(COORD_OLD_ATTEMPT, "coordinator-drops-old-attempt", "the coordinator dropped a message of an older attempt"),
    R(METADATA_AMBIGUOUS, "metadata-ambiguous", "a metadata write ended ambiguously: the coordinator fails the job over to what the checkpoint store holds"),
    R(FINISHED_ACKED_FOR, "finished-task-acknowledged", "the coordinator acknowledged for a finished task (FLIP-147)"),
    R(FINAL_CHECKPOINT, "final-checkpoint", "every task finished: the sinks committed what was left"),
    R(PENDING_LOST, "pending-lost-with-attempt", "pending checkpoints died with a failed attempt"),
    R(RESTART_FIXED_DELAY, "restart-fixed-delay", "the fixed-delay strategy restarted the job"),
    R(RESTART_FAILURE_RATE, "restart-failure-rate", "the failure-rate strategy restarted the job"),
    R(RESTART_EXPONENTIAL, "restart-exponential", "the exponential-delay strategy restarted the job"),
    R(GIVE_UP_NONE, "give-up-no-restart", "the no-restart strategy failed the job at its first failure"),
    R(GIVE_UP_FIXED_DELAY, "give-up-fixed-delay", "the fixed-delay strategy ran out of attempts"),
    R(GIVE_UP_FAILURE_RATE, "give-up-failure-rate", "the failure-rate strategy saw too many failures in its interval"),
    R(EXPONENTIAL_RESET, "exponential-backoff-reset", "a quiet time reset the exponential backoff"),
    R(RESTART_WAITS, "restart-waits-for-machine", "a restart waited for free slots (a TaskManager to come back)"),
    R(FAILOVER_MEMORY, "failover-memory-backend", "a new coordinator, memory backend: checkpoints lost, the job starts over"),
    R(FAILOVER_DURABLE, "failover-durable-backend", "a new coordinator read the completed checkpoints back from the store"),
    R(HEARTBEAT_TIMEOUT, "heartbeat-timeout", "a TaskManager that stopped answering heartbeats was declared lost"),
    R(CANCEL_REPEATED, "cancel-repeated", "a restart waiting for slots cancelled a task again (its cancellation or its answer was lost)"),
    R(DEPLOY_REPEATED, "deploy-repeated", "a deployment no task confirmed was sent again"),
    R(DECLINE_SENT, "decline-sent", "a task declined a checkpoint"),
    R(TWO_SNAPSHOTS, "two-snapshots-alive", "a snapshot began while another was alive at the same task"),
    R(WRITE_FAILED, "snapshot-write-failed", "the store failed a snapshot write: the task declined"),
    R(PRIORITY_OVERTOOK, "priority-barrier-overtook", "a priority barrier overtook queued output buffers (channel state)"),
    R(INPUT_CHANNEL_STATE, "input-channel-state", "in-flight input buffers were persisted as channel state"),
    R(ALIGNMENT_TIMEOUT, "alignment-timeout", "an aligned checkpoint switched to unaligned at a task's inputs"),
    R(OUTPUT_TIMEOUT, "output-barrier-timeout", "an aligned barrier stuck in an output queue became a priority one"),
    R(ALIGNED_TAKES_PRIORITY, "aligned-gate-takes-priority", "an aligned gate took a priority barrier and switched"),
    R(INCREMENTAL, "incremental-snapshot", "an incremental snapshot shared the files of earlier ones"),
    R(FULL_CHAIN_LIMIT, "full-snapshot-chain-limit", "a full snapshot: the chain had full-every increments"),
    R(TRIGGER_QUEUED, "trigger-queued", "a source under backpressure queued a trigger"),
    R(TRIGGER_WITHDRAWN, "trigger-withdrawn", "a source dropped a queued trigger of a checkpoint aborted meanwhile"),
    R(ABORTED_BEFORE_TRIGGER, "aborted-before-trigger", "a task triggered a checkpoint it knew was aborted: it sent cancel markers, no snapshot"),
    R(RESTORE_CHAIN, "restore-incremental-chain", "a task restored its state from a chain of several files"),
    R(RESTORE_CHANNEL_STATE, "restore-channel-state", "a restore replayed or re-emitted in-flight records"),
    R(RESTORE_SCRATCH, "restore-from-scratch", "a restart with no completed checkpoint: from the beginning"),
    R(UNDEPLOYED, "undeployed-ignores", "a free slot (no task deployed) ignored an event"),
    R(FAILURE_REPEATED, "failure-reported-again", "a failed task reported its failure again (RPCs get lost)"),
    R(LOST_JOBMANAGER, "lost-jobmanager", "a task whose JobManager connection broke cancelled itself and offered its slot"),
    R(FENCED_DATA, "fenced-data", "a task dropped a data, credit or priority message of another attempt"),
    R(TXN_ABORTED_ON_RESTORE, "txn-aborted-on-restore", "a restored sink aborted a transaction after the restored checkpoint"),
    R(TXN_COMMITTED_ON_RESTORE, "txn-committed-on-restore", "a restored sink committed a completed checkpoint's transaction"),
    R(COMMIT_COVERS_EARLIER, "commit-covers-earlier", "one completion notice committed several checkpoints' transactions"),
    R(IDEMPOTENT_OVERWRITE, "idempotent-overwrite", "an idempotent sink overwrote a record it held"),
    R(CANCEL_ALIGNED, "cancel-marker-aligned", "a cancel marker came to an aligned gate"),
    R(CANCEL_AT_LEAST_ONCE, "cancel-marker-at-least-once", "a cancel marker came to an at-least-once gate"),
    R(CANCEL_UNALIGNED, "cancel-marker-unaligned", "a cancel marker came to an unaligned gate"),
    R(CANCEL_ENDS_ALIGNED, "cancel-ends-alignment-aligned", "a cancel marker ended the aligned checkpoint it cancels"),
    R(CANCEL_ENDS_AT_LEAST_ONCE, "cancel-ends-tracking-at-least-once", "a cancel marker ended the at-least-once checkpoint it cancels"),
    R(CANCEL_ENDS_UNALIGNED, "cancel-ends-alignment-unaligned", "a cancel marker ended the unaligned checkpoint it cancels"),
    R(NEWER_ABORTS_ALIGNED, "newer-barrier-aborts-aligned", "a newer barrier aborted the pending aligned checkpoint"),
    R(NEWER_ABORTS_UNALIGNED, "newer-barrier-aborts-unaligned", "a newer barrier aborted the pending unaligned checkpoint"),
    R(TRACKS_TWO, "tracks-two-at-least-once", "an at-least-once gate tracked two checkpoints at once"),
    R(END_MARKS_ALIGNED, "end-counts-as-barrier-aligned", "end of partition counted as a pending aligned checkpoint's barrier"),
    R(END_MARKS_AT_LEAST_ONCE, "end-counts-as-barrier-at-least-once", "end of partition completed an at-least-once checkpoint"),
    R(END_MARKS_UNALIGNED, "end-counts-as-barrier-unaligned", "end of partition counted as a pending unaligned checkpoint's barrier"),
    R(OBSOLETE_ALIGNED, "obsolete-barrier-aligned", "an aligned gate ignored a barrier of an older checkpoint"),
    R(OBSOLETE_UNALIGNED, "obsolete-barrier-unaligned", "an unaligned gate ignored a barrier of an older checkpoint"),
};

const pipe_reach_info *pipe_reach_info_of(pipe_reach r) {
    SIM_ASSERT(r < PIPE_REACH_COUNT);
    SIM_ASSERT(points[r].name != NULL);           /* every entry filled */
    return &points[r];
}

const uint64_t *pipe_reached(const pipeline *p) { return p->w.reach; }
