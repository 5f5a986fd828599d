/* model/event.c: the names of the run's vocabulary (model/event.h): the
 * job's status, how a checkpoint ended, message types and RPC kinds. */
#include "event.h"
#include "proto.h"

#include <string.h>

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
        [MSG_SLOT] = "slot", [MSG_END] = "end", [MSG_COMMITTED] = "committed", [MSG_RUNNING] = "running",
        [MSG_HEARTBEAT] = "heartbeat", [MSG_ASSIGN] = "assign", [MSG_ASSIGN_ACK] = "assign-ack",
    };
    return msg < sizeof msg_names / sizeof msg_names[0] && msg_names[msg] != NULL ? msg_names[msg] : "?";
}

const char *const pipe_rpc_kind_names[] = { "deploy", "cancel", "trigger", "complete", "abort", "heartbeat", "end",
                                            "assign", "ack", "decline", "failed", "finished", "slot", "running",
                                            "committed", NULL };

bool pipe_rpc_kind(const char *name, uint32_t *msg_type, bool *to_task) {
    static const uint32_t types[] = { MSG_DEPLOY, MSG_CANCEL, MSG_TRIGGER, MSG_COMPLETE, MSG_ABORTED, MSG_HEARTBEAT,
                                      MSG_END, MSG_ASSIGN, MSG_ACK, MSG_DECLINE, MSG_FAILED, MSG_FINISHED,
                                      MSG_SLOT, MSG_RUNNING, MSG_COMMITTED };
    for (uint32_t i = 0; pipe_rpc_kind_names[i] != NULL; i++) {
        if (strcmp(name, pipe_rpc_kind_names[i]) != 0) continue;
        *msg_type = types[i];
        *to_task = i < 8;
        return true;
    }
    return false;
}
