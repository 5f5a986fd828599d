/* model/bugs.c: the one table of deliberate bugs (model/pipe.h). Help
 * texts, the --bug parser, `absim bugs` and the catalog test read it;
 * nothing else spells the names. The seeds are pinned with --faults
 * random on the scenario named (the catalog test runs each). */
#include "pipe.h"

static const pipe_bug_info bugs[PIPE_BUG_COUNT] = {
    [PIPE_BUG_NONE] = { PIPE_BUG_NONE, "none", "", "", "", "", 0 },
    [PIPE_BUG_NO_ALIGNMENT] = { PIPE_BUG_NO_ALIGNMENT, "no-alignment",
        "records after barrier n reach the snapshot of n", "the gate runs in at-least-once mode under aligned checkpoints",
        "I5", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_NO_REWIND] = { PIPE_BUG_NO_REWIND, "no-rewind",
        "records between S_k and the failure are lost", "sources keep their offsets at a restore",
        "I1", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_OFFSET_OFF_BY_ONE] = { PIPE_BUG_OFFSET_OFF_BY_ONE, "offset-off-by-one",
        "one record per partition is skipped after a restore", "a source records S_n + 1 in its snapshot",
        "I2", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_PARTIAL_ACKS] = { PIPE_BUG_PARTIAL_ACKS, "partial-acks",
        "a checkpoint completes without every task's snapshot", "the coordinator completes at half the acknowledgements",
        "I5", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_NO_COW] = { PIPE_BUG_NO_COW, "no-copy-on-write",
        "updates after the barrier leak into the snapshot", "the asynchronous part reads the live map",
        "I2", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_EARLY_ACK] = { PIPE_BUG_EARLY_ACK, "ack-before-write",
        "a checkpoint completes before its state is durable", "the task acknowledges when the synchronous part ends",
        "I5", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_SHARED_DELETE] = { PIPE_BUG_SHARED_DELETE, "delete-shared-file",
        "a retained checkpoint refers to a deleted file", "dropping a checkpoint deletes its newest files whatever their count",
        "I5", "scenarios/swarm/durable-incremental-timeouts.scn", 1 },
    [PIPE_BUG_EARLY_COMMIT] = { PIPE_BUG_EARLY_COMMIT, "commit-before-complete",
        "output of a checkpoint that never completes is visible", "a two-phase-commit sink commits at pre-commit",
        "I5", "scenarios/swarm/durable-incremental-timeouts.scn", 1 },
    [PIPE_BUG_DROP_RECORDS] = { PIPE_BUG_DROP_RECORDS, "drop-records",
        "one record in a thousand vanishes, with or without failures", "a keyed aggregate skips records whose mark is 0 mod 1000",
        "I1", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_NO_CHANNEL_STATE] = { PIPE_BUG_NO_CHANNEL_STATE, "no-channel-state",
        "in-flight records overtaken by an unaligned barrier are in no checkpoint", "persisting channel state keeps nothing",
        "I2", "scenarios/swarm/durable-unaligned-2pc.scn", 1 },
    [PIPE_BUG_BARRIER_FIRST] = { PIPE_BUG_BARRIER_FIRST, "barrier-before-records",
        "records a source read before the trigger arrive after the barrier", "the barrier is put ahead of the buffer being filled",
        "I2", "scenarios/swarm/aligned-exactly-once.scn", 1 },
    [PIPE_BUG_NO_REPLAY] = { PIPE_BUG_NO_REPLAY, "no-channel-state-replay",
        "in-flight records of the restored checkpoint are lost", "a restore does not replay the input channel state",
        "I2", "scenarios/swarm/unaligned-join.scn", 1 },
    [PIPE_BUG_RESTORE_COMMITS_ALL] = { PIPE_BUG_RESTORE_COMMITS_ALL, "restore-commits-all",
        "output of checkpoints after the restored one is visible twice", "recoverAndCommit commits pre-committed transactions of any checkpoint",
        "I3", "scenarios/swarm/durable-incremental-timeouts.scn", 1 },
    [PIPE_BUG_EOP_NO_MARK] = { PIPE_BUG_EOP_NO_MARK, "FLINK-24068",
        "an alignment waits forever for an input that ended", "end of partition does not count as the channel's barrier",
        "I6", "scenarios/swarm/durable-incremental-timeouts.scn", 5 },
    [PIPE_BUG_ABORT_DISCARDS_SHARED] = { PIPE_BUG_ABORT_DISCARDS_SHARED, "FLINK-24611",
        "a retained checkpoint refers to a file an aborted one discarded", "aborting a checkpoint deletes every file of its chains",
        "I5", "scenarios/swarm/durable-incremental-timeouts.scn", 9 },
    [PIPE_BUG_RESTORE_OLDER] = { PIPE_BUG_RESTORE_OLDER, "FLINK-10354",
        "output a sink committed for a newer checkpoint is produced again", "a restart restores the oldest retained checkpoint",
        "I3", "scenarios/swarm/durable-incremental-timeouts.scn", 1 },
    [PIPE_BUG_NO_FINAL_CHECKPOINT] = { PIPE_BUG_NO_FINAL_CHECKPOINT, "FLINK-2491",
        "once a task finished no checkpoint completes; the last transactions are never committed",
        "finished tasks are not acknowledged for and the job's end commits nothing", "I4",
        "scenarios/swarm/durable-incremental-timeouts.scn", 1 },
    [PIPE_BUG_SECOND_INPUT_STATE] = { PIPE_BUG_SECOND_INPUT_STATE, "FLINK-18139",
        "in-flight records on a two-input task's second input are in no checkpoint",
        "channel state is not persisted for channels of logical input 1", "I2", "scenarios/swarm/unaligned-join.scn", 1 },
    [PIPE_BUG_NEWER_NO_ABORT] = { PIPE_BUG_NEWER_NO_ABORT, "newer-barrier-no-abort",
        "an alignment that lost a barrier never ends", "the first barrier of a newer checkpoint is ignored while one is pending",
        "I6", "scenarios/swarm/durable-incremental-timeouts.scn", 53 },
};

const pipe_bug_info *pipe_bug_info_of(pipe_bug b) {
    SIM_ASSERT(b < PIPE_BUG_COUNT);
    SIM_ASSERT(bugs[b].bug == b);                 /* every entry filled, in order */
    return &bugs[b];
}

const char *pipe_bug_name(pipe_bug b) {
    return b < PIPE_BUG_COUNT ? pipe_bug_info_of(b)->name : "?";
}
