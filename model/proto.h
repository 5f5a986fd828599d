/* model/proto.h: the messages of a job run, with what each carries.
 *
 * Between tasks (data channels, LINK_STREAM): DATA, CREDIT, PRIORITY.
 * Between the JobManager's coordinator and the tasks (LINK_RPC, lossy):
 * TRIGGER, COMPLETE, ABORTED down; ACK, DECLINE, FAILED, FINISHED up.
 * Every message has a type and two words (sim_msg.a, .b); the ones with a
 * payload struct here carry it too (link_send_payload, sim_payload at the
 * receiver): what the receiver learns of the sender is in the message.
 *
 * Not every piece of knowledge goes by message yet: a source's offsets
 * and a task's channel state still go straight into the coordinator's
 * checkpoint slot, a restore reads that slot, and deployment is a kernel
 * call. Those are
 * the next steps of moving the JobManager and the TaskManagers apart.
 */
#ifndef MODEL_PROTO_H
#define MODEL_PROTO_H

#include <stdint.h>

#include "flow/broker.h"

enum {                               /* sim_msg.type of the model's messages */
    MSG_DATA = 1,                    /* a = channel, b = buffer number */
    MSG_CREDIT,                      /* a = channel, b = buffers consumed */
    MSG_TRIGGER,                     /* coord -> source: a = ckpt, b = epoch */
    MSG_ACK,                         /* task -> coord: a = ckpt, b = epoch << 32 | task */
    MSG_DECLINE,
    MSG_COMPLETE,                    /* coord -> task: a = ckpt, b = epoch */
    MSG_ABORTED,
    MSG_FAILED,                      /* task -> coord: b = epoch << 32 | task */
    MSG_FINISHED,                    /* task -> coord: a = last checkpoint it triggered or declined,
                                        b = epoch << 32 | task */
    MSG_PRIORITY,                    /* unaligned barrier, ahead of queued data: a = channel, b = ckpt */
};

#define SNAP_CHAIN_MAX 65u           /* a full file + at most 64 increments */

/* A snapshot of the task's keyed state as files: base for increments. */
typedef struct rt_chain {
    uint64_t ckpt;
    uint32_t version;                /* the kstate version it holds (increments: keys written after) */
    uint32_t count;
    uint64_t files[SNAP_CHAIN_MAX];
} rt_chain;

/* One record of channel state: an in-flight record a checkpoint overtook. */
typedef struct rt_cs_rec {
    model_rec rec;
    uint32_t  chan;
    uint32_t  output;                 /* 1: the producer re-emits it; 0: the consumer replays it */
} rt_cs_rec;

/* ACK's payload: the handle of the task's keyed state for the checkpoint
 * (its chain of files in the store; count 0: no keyed state) and the
 * bytes it wrote. The coordinator takes its own references to the files
 * when it accepts the acknowledgement; the task keeps its own until the
 * checkpoint is confirmed or aborted, so a lost or late ack frees nothing
 * twice and keeps nothing forever. */
typedef struct msg_ack {
    rt_chain chain;
    uint64_t bytes;                  /* keyed state written for this checkpoint */
} msg_ack;

/* FINISHED's payload: what the coordinator acknowledges with on the
 * finished task's behalf for checkpoints the task will never see (FLIP-147).
 * A finished source has read each of its partitions to the end, so its
 * offsets are the partitions' ends: the message says so by being sent. */
typedef struct msg_finished {
    uint64_t final_file;             /* the task's final keyed state in the store, 0: none */
} msg_finished;

#define PROTO_PAYLOAD_BYTES_MAX \
    ((uint32_t)(sizeof(msg_ack) > sizeof(msg_finished) ? sizeof(msg_ack) : sizeof(msg_finished)))

#endif
