/* model/event.c: the event table (what each protocol step is, its name
 * in traces, the named payload fields it fills) and the names of the
 * run's vocabulary (model/event.h): the job's status, how a checkpoint
 * ended, message types and RPC kinds. */
#include "event.h"
#include "proto.h"

#include <string.h>

#define E(k, n, f, w) [PIPE_EV_##k] = { n, w, f }

static const pipe_ev_info events[PIPE_EV_KIND_MAX] = {
    E(BARRIER, "barrier", PIPE_F_INPUT, "task took barrier `ckpt` from input `input` (`priority`: unaligned, it "
      "overtook the channel's data); `blocked`, `waiting` after the step, `released` the buffers that had queued on "
      "the inputs it unblocked"),
    E(CANCEL, "cancel", PIPE_F_INPUT, "task took a cancel marker of `ckpt` on input `input`"),
    E(END, "end-of-partition", PIPE_F_INPUT, "task took end of partition on input `input`"),
    E(TRIGGER, "trigger", PIPE_F_UNALIGNED, "task forwarded barrier `ckpt` (`unaligned`), snapshotted, acknowledges "
      "once written"),
    E(DECLINE, "decline", PIPE_F_KNOWN_ABORTED, "task aborted `ckpt` (`known_aborted`: told of the abort before it "
      "triggered: cancel markers, no decline sent)"),
    E(TASK_FINISHED, "task-finished", 0, "task finished"),
    E(CKPT_START, "checkpoint-start", PIPE_F_INNER | PIPE_F_SAVEPOINT, "coordinator: triggered `ckpt` at the sources (and at `inner` "
      "running tasks whose upstream all finished)"),
    E(CKPT_COMPLETE, "checkpoint-complete", PIPE_F_END | PIPE_F_SAVEPOINT, "coordinator: `ckpt` completed (`end`)"),
    E(CKPT_ABORT, "checkpoint-abort", PIPE_F_END | PIPE_F_SAVEPOINT, "coordinator: `ckpt` ended otherwise (`end`: declined, timed "
      "out, subsumed, lost with the attempt, a task finished first); `count`: Flink's reason, a ckr_why"),
    E(JOB_FAILED, "job-failed", PIPE_F_CAUSE, "coordinator: the job failed (`cause`, `culprit` or PIPE_NO_TASK; for "
      "a report `count` the attempt it named and `word_a` the one the coordinator runs of `culprit`; `ok`: the "
      "restart strategy restarts, due at `due_ns`)"),
    E(JOB_RESTARTED, "job-restarted", PIPE_F_REGION, "coordinator: the next attempt is deployed from `ckpt` (0: the "
      "beginning), every task, or with `one_region` region `region` alone, one step per region, `count` its tasks"),
    E(SNAPSHOT_SYNC, "snapshot-sync", 0, "task: synchronous part of `ckpt` done, asynchronous part begins"),
    E(SNAPSHOT_ASYNC, "snapshot-async", 0, "task: asynchronous part of `ckpt` written (then it acknowledges)"),
    E(SINK_COMMIT, "sink-commit", 0, "sink task committed the transactions up to `ckpt`"),
    E(COORD_FAILOVER, "coordinator-failover", 0, "a new coordinator took over"),
    E(CONSUME, "consume", PIPE_F_INPUT, "task began processing a data buffer of `count` records from input `input` "
      "(`first_id` the first record's id)"),
    E(ACK, "ack", 0, "task sent its acknowledgement of `ckpt`"),
    E(WRITE, "write", 0, "task began writing `bytes` of snapshot `ckpt` (`what`)"),
    E(WRITE_DONE, "write-done", 0, "that write ended (`ok`)"),
    E(CHANNEL_STATE, "channel-state", PIPE_F_OUTPUT, "task persisted `count` in-flight records of `chan` for `ckpt` "
      "(`output`: an overtaken output queue's, else input buffers)"),
    E(RESTORE, "restore", 0, "task (re)started from `ckpt` (0: from scratch); `ok`: its files were there"),
    E(SNAPSHOT_DROPPED, "snapshot-dropped", 0, "task dropped its unacknowledged snapshot of `ckpt`: aborted or "
      "subsumed"),
    E(METADATA, "metadata-written", 0, "coordinator: the metadata of `ckpt` reached the completed-checkpoint store "
      "(`ok`; `ambiguous`: its writer could not know), or a write of it failed"),
    E(ACK_RECEIVED, "ack-received", PIPE_F_RECEIPT, "coordinator: `culprit`'s acknowledgement of `ckpt` arrived (or, "
      "for a finished task, was made up for it); `receipt`: what became of it"),
    E(DECLINE_RECEIVED, "decline-received", PIPE_F_RECEIPT, "coordinator: `culprit`'s decline of `ckpt` arrived; "
      "`receipt`: what became of it"),
    E(NOTICE, "notice", 0, "task: the coordinator's notice that `ckpt` completed (`ok`) or was aborted"),
    E(TXN, "transaction", PIPE_F_TXN_WHY, "sink: its transaction of `ckpt` (0: the open one), `count` records, "
      "committed (`ok`) or aborted; `txn_why`: what resolved it"),
    E(ALIGN_TIMEOUT, "alignment-timeout", PIPE_F_OUTPUT, "task: `ckpt` is older than the alignment timeout: its "
      "inputs switch to unaligned (`blocked`, `waiting` before the switch), or with `output` its barrier queued on "
      "output channel `chan` (`count` buffers ahead) turns priority"),
    E(BACKPRESSURE, "backpressure", 0, "task: it was held up by backpressure (an output without room) for `bytes` "
      "ns, up to now (Flink's backPressuredTimeMsPerSecond, as an interval)"),
    E(END_DATA, "end-of-data", PIPE_F_INPUT, "task took end of data on input `input`: no records follow there, "
      "barriers may"),
    E(INPUT_ENDED, "input-ended", 0, "task: its input ended (FLIP-147): it sent end of data downstream and waits for "
      "a checkpoint it triggers from now on to complete, then finishes"),
    E(SEND, "send", PIPE_F_BUF, "a message step: `task` (PIPE_NO_TASK: the coordinator) put message `msg` with words "
      "`word_a`, `word_b` for `peer` on `link`; `ok` false: the link refused it (cut, or lost by a loss fault), else "
      "it is due at `due_ns`. A data message: `chan`, `buf`, `count` records, `ckpt` of a barrier or cancel marker, "
      "`priority` for an unaligned barrier's"),
    E(RECV, "receive", 0, "a message step: that message was delivered to `task` (PIPE_NO_TASK: the coordinator) "
      "from `peer`, before the receiver looks at it (it may still drop it: fencing); one never delivered was lost "
      "in flight (a broken connection, a crash)"),
    E(RESCALED, "rescaled", PIPE_F_VERTEX, "coordinator: this deployment runs vertex `vertex` at parallelism `count` "
      "(it ran `word_a`), restoring `ckpt` (0: the beginning); before the JOB_RESTARTED step of the deployment, one "
      "step per vertex that changed"),
    E(WINDOWS_FIRED, "windows-fired", 0, "window task: its watermark rose to `word_a` (a win_wm's bits): it fired "
      "`count` windows (their results went downstream) and purged `bytes`"),
    E(WATERMARK, "watermark", 0, "a message step: `task` put a watermark, event time `word_a` ns (a win_wm's bits), "
      "among the records of its outputs"),
    E(COMMITTABLES, "committables", PIPE_F_AT_END, "Sink V2: a writer emitted its CommittableSummary of `ckpt` and "
      "`count` committables (its pre-committed transactions) ahead of its barrier, or with `at_end` at end of input; "
      "a committer sent a committed batch on to its global committer; or (`ok`) a committer took a summary"),
    E(GLOBAL_COMMIT, "global-commit", 0, "Sink V2: the global committer committed checkpoint `ckpt`, the committables "
      "of `count` upstream subtasks, `word_b` more counted complete as they had finished (`word_a`: how many its "
      "first summary of the checkpoint said there are)"),
    E(MATERIALIZED, "materialized", 0, "changelog: task's materialization `ckpt` (its count) ended, `count` keys "
      "written (`ok`), or failed: it is the materialized part now, the log truncated below it"),
    E(HALTED, "job-ended", 0, "coordinator: the job ended at a stop (`count` 1) or a cancel (2) of the user's; "
      "`ckpt`: the snapshot the user resumes it from (the savepoint, or the latest retained checkpoint); `ok`: a "
      "stop with drain, after which the job is over, its input ended at the savepoint's offsets"),
    E(RESUMED, "job-resumed", 0, "coordinator: the user submitted the job again from snapshot `ckpt` in restore "
      "mode `count` (1 NO_CLAIM, 2 CLAIM, 3 LEGACY); its deployment follows"),
};

const pipe_ev_info *pipe_ev_info_of(pipe_ev_kind k) {
    SIM_ASSERT(k >= PIPE_EV_BARRIER && k < PIPE_EV_KIND_MAX);
    SIM_ASSERT(events[k].name != NULL);           /* every kind has its row */
    return &events[k];
}

bool pipe_ev_fields_ok(const pipe_event *e) {
    uint32_t f = pipe_ev_info_of(e->kind)->fields;
    return ((f & PIPE_F_INPUT) || e->input == 0) && ((f & PIPE_F_END) || e->end == 0) &&
           ((f & PIPE_F_CAUSE) || e->cause == 0) && ((f & PIPE_F_RECEIPT) || e->receipt == 0) &&
           ((f & PIPE_F_TXN_WHY) || e->txn_why == 0) && ((f & PIPE_F_BUF) || e->buf == 0) &&
           ((f & PIPE_F_VERTEX) || e->vertex == 0) && ((f & PIPE_F_REGION) || (e->region == 0 && !e->one_region)) &&
           ((f & PIPE_F_INNER) || e->inner == 0) && ((f & PIPE_F_UNALIGNED) || !e->unaligned) &&
           ((f & PIPE_F_KNOWN_ABORTED) || !e->known_aborted) && ((f & PIPE_F_OUTPUT) || !e->output) &&
           ((f & PIPE_F_AT_END) || !e->at_end) && ((f & PIPE_F_SAVEPOINT) || !e->savepoint);
}

const char *pipe_ckpt_end_name(pipe_ckpt_end e) {
    switch (e) {
    case PIPE_CKPT_PENDING:    return "pending";
    case PIPE_CKPT_COMPLETED:  return "completed";
    case PIPE_CKPT_DECLINED:   return "declined";
    case PIPE_CKPT_TIMED_OUT:  return "timed-out";
    case PIPE_CKPT_SUBSUMED:   return "subsumed";
    case PIPE_CKPT_JOB_FAILED: return "job-failed";
    case PIPE_CKPT_TASK_FINISHED: return "task-finished";
    }
    return "?";
}

const char *pipe_status_name(pipe_status s) {
    switch (s) {
    case PIPE_RUNNING:    return "running";
    case PIPE_RESTARTING: return "restarting";
    case PIPE_FINISHED:   return "finished";
    case PIPE_FAILED:     return "failed";
    }
    return "?";
}

const char *pipe_msg_name(uint32_t msg) {
    static const char *const msg_names[] = {
        [MSG_DATA] = "data", [MSG_CREDIT] = "credit", [MSG_TRIGGER] = "trigger", [MSG_ACK] = "ack",
        [MSG_DECLINE] = "decline", [MSG_COMPLETE] = "complete", [MSG_ABORTED] = "abort", [MSG_FAILED] = "failed",
        [MSG_FINISHED] = "finished", [MSG_PRIORITY] = "priority", [MSG_DEPLOY] = "deploy", [MSG_CANCEL] = "cancel",
        [MSG_SLOT] = "slot", [MSG_RUNNING] = "running",
        [MSG_HEARTBEAT] = "heartbeat", [MSG_ASSIGN] = "assign", [MSG_ASSIGN_ACK] = "assign-ack",
    };
    return msg < sizeof msg_names / sizeof msg_names[0] && msg_names[msg] != NULL ? msg_names[msg] : "?";
}

const char *const pipe_rpc_kind_names[] = { "deploy", "cancel", "trigger", "complete", "abort", "heartbeat", "assign",
                                            "ack", "decline", "failed", "finished", "slot", "running", NULL };

bool pipe_rpc_kind(const char *name, uint32_t *msg_type, bool *to_task) {
    static const uint32_t types[] = { MSG_DEPLOY, MSG_CANCEL, MSG_TRIGGER, MSG_COMPLETE, MSG_ABORTED, MSG_HEARTBEAT,
                                      MSG_ASSIGN, MSG_ACK, MSG_DECLINE, MSG_FAILED, MSG_FINISHED, MSG_SLOT, MSG_RUNNING };
    for (uint32_t i = 0; pipe_rpc_kind_names[i] != NULL; i++) {
        if (strcmp(name, pipe_rpc_kind_names[i]) != 0) continue;
        *msg_type = types[i];
        *to_task = i < 7;
        return true;
    }
    return false;
}
