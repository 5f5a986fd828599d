/* model/proto.h: every message of a job run, with what each carries.
 *
 * Between tasks (data channels, LINK_STREAM): DATA, CREDIT, PRIORITY.
 * Between the JobManager's coordinator and the tasks (LINK_RPC, lossy and
 * delayable): DEPLOY, CANCEL, ASSIGN, TRIGGER, COMPLETE, ABORTED, END,
 * HEARTBEAT down; SLOT, RUNNING, ASSIGN_ACK, ACK, DECLINE, FAILED,
 * FINISHED, COMMITTED, HEARTBEAT up. Every message has a type and two
 * words (sim_msg.a, .b); the ones with a payload struct here carry it too
 * (link_send_payload, sim_payload at the receiver): what the receiver
 * learns of the sender is in the message, or in the store (files the
 * handles name, read with device time).
 *
 * Attempts (fencing): every message names the job attempt of its sender
 * (the `epoch` of the words below); a receiver in another attempt drops it
 * and counts it (pipe_stats.fenced_*), so a task of an old attempt that
 * kept running (a zombie: its cancellation lost, or its machine paused)
 * changes nothing the new attempt holds.
 */
#ifndef MODEL_PROTO_H
#define MODEL_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flow/ckrules.h"
#include "flow/csfile.h"
#include "cfg.h"

enum {                               /* sim_msg.type of the model's messages */
    MSG_DATA = 1,                    /* a = attempt << 32 | channel, b = buffer number */
    MSG_CREDIT,                      /* a = attempt << 32 | channel, b = buffers consumed */
    MSG_TRIGGER,                     /* coord -> source: a = ckpt, b = epoch; msg_trigger */
    MSG_ACK,                         /* task -> coord: a = ckpt, b = epoch << 32 | task */
    MSG_DECLINE,                     /* task -> coord: a = ckpt, b = epoch << 32 | task; msg_decline */
    MSG_COMPLETE,                    /* coord -> task: a = ckpt, b = epoch */
    MSG_ABORTED,
    MSG_FAILED,                      /* task -> coord: b = epoch << 32 | task; a = MSG_FAILED_THREW or 0 */
    MSG_FINISHED,                    /* task -> coord: a = last checkpoint it triggered or declined,
                                        b = epoch << 32 | task */
    MSG_PRIORITY,                    /* unaligned barrier, ahead of queued data: a = attempt << 32 | channel,
                                        b = ckpt; msg_trigger (its timestamp) */
    MSG_DEPLOY,                      /* coord -> task: b = attempt; msg_deploy */
    MSG_CANCEL,                      /* coord -> task: b = the attempt that replaces the task's */
    MSG_SLOT,                        /* task -> coord: its slot is free (a new process, a CANCEL, or the
                                        JobManager lost). a = the offering process's start number (its
                                        TaskManager's id); b = epoch << 32 | task */
    MSG_RUNNING,                     /* task -> coord: it took its deployment; b = epoch << 32 | task */
    MSG_HEARTBEAT,                   /* coord -> task: are you there (b = epoch); task -> coord: yes,
                                        b = epoch << 32 | task */
    MSG_ASSIGN,                      /* coord (split enumerator) -> source: b = epoch; msg_assign */
    MSG_ASSIGN_ACK,                  /* source -> coord: it has them; b = epoch << 32 | task */
};

/* MSG_FAILED's `a`: a check of Flink's threw (a Sink V2 committer's), as
 * opposed to a lost connection or a full transaction log. */
#define MSG_FAILED_THREW 1u

/* A coordinator command's word (b of DEPLOY, CANCEL, ASSIGN, TRIGGER,
 * COMPLETE, ABORTED, HEARTBEAT): the attempt, and the generation of
 * the task's connection to the JobManager when it was sent. Commands are
 * scoped to a connection, as RPCs to a registered JobMaster are: one sent
 * before the connection broke (by a coordinator that died, or across a
 * partition) is dropped, and a new coordinator's cannot be confused with
 * its predecessor's. */
static inline uint64_t proto_cmd_word(uint64_t epoch, uint32_t conn_gen) { return (uint64_t)conn_gen << 32 | epoch; }
static inline bool proto_is_cmd(uint32_t type) {
    return type == MSG_DEPLOY || type == MSG_CANCEL || type == MSG_ASSIGN || type == MSG_TRIGGER ||
           type == MSG_COMPLETE || type == MSG_ABORTED || type == MSG_HEARTBEAT;
}

/* A data channel's message word: the sender's attempt and the channel. */
static inline uint64_t proto_chan_word(uint64_t attempt, uint32_t chan) { return attempt << 32 | chan; }
static inline uint64_t proto_word_attempt(uint64_t word) { return word >> 32; }
static inline uint32_t proto_word_low(uint64_t word) { return (uint32_t)word; }

/* TRIGGER's payload, and a priority barrier's: what Flink's barrier
 * carries besides the id. A task learns a checkpoint's timestamp from its
 * trigger or its first barrier, never from the coordinator's memory. */
/* Why a task declined (Flink's CheckpointException reason, which decides
 * whether CheckpointFailureManager counts it): a ckr_why. */
typedef struct msg_decline {
    uint32_t why;
} msg_decline;

/* What a checkpoint is (Flink's SnapshotType in its CheckpointOptions, in
 * the trigger and in every barrier): its files' sharing strategy. */
typedef enum proto_ck_type {
    PROTO_CK_CHECKPOINT = 0,         /* CHECKPOINT: shares files with earlier snapshots (FORWARD_BACKWARD) */
    PROTO_CK_FULL,                   /* FULL_CHECKPOINT: writes everything anew (FORWARD), NO_CLAIM's first */
    PROTO_CK_SUSPEND,                /* SavepointType.suspend(): stop-with-savepoint without drain, synchronous;
                                        a full snapshot no later one shares (NO_SHARING) */
    PROTO_CK_TERMINATE,              /* SavepointType.terminate(): with drain: a source ends its input first */
} proto_ck_type;

typedef struct msg_trigger {
    uint64_t timestamp_ns;           /* when the coordinator created the checkpoint */
    uint32_t type;                   /* proto_ck_type */
} msg_trigger;

#define SNAP_CHAIN_MAX 65u           /* a full file + at most 64 increments */

/* A snapshot of the task's keyed state as files: base for increments. */
typedef struct rt_chain {
    uint64_t ckpt;
    uint32_t version;                /* the kstate version it holds (increments: keys written after) */
    uint32_t count;
    uint64_t files[SNAP_CHAIN_MAX];
} rt_chain;

#define PROTO_OFFSETS_MAX PIPE_SOURCE_PARTS_MAX   /* partitions one source task reads at most */
#define PROTO_HOSTS_MAX   PIPE_SLOTTED_PEERS_MAX  /* with slots: a task's inputs and outputs at most */

/* A source's position in one partition: the next offset it reads. */
typedef struct proto_offset {
    uint32_t partition;
    uint64_t next;
} proto_offset;

/* ACK's payload: the snapshot's state handles. Its keyed state (a chain
 * of files in the store; count 0: no keyed state), its channel state (a
 * file, 0: none; model/flow/csfile.h) and, for a source, its positions
 * (operator state, sent as bytes: offsets_count of them). The coordinator
 * takes its own references to the files when it accepts the
 * acknowledgement; the task keeps its own until the checkpoint is
 * confirmed or aborted, so a lost or late ack frees nothing twice and
 * keeps nothing forever. Only the used part of `offsets` is sent. */
typedef struct msg_ack {
    rt_chain     chain;
    uint64_t     bytes;              /* keyed state written for this checkpoint */
    uint64_t     cs_file;
    uint64_t     cs_bytes;           /* channel state written for it */
    uint32_t     offsets_count;
    proto_offset offsets[PROTO_OFFSETS_MAX];
} msg_ack;

/* FINISHED's payload: what the coordinator acknowledges with on the
 * finished task's behalf for checkpoints the task will never see
 * (FLIP-147): its final keyed state and, for a source, the positions it
 * ended at (each partition read to its end). */
typedef struct msg_finished {
    uint64_t     final_file;         /* the task's final keyed state in the store, 0: none */
    uint32_t     offsets_count;
    proto_offset offsets[PROTO_OFFSETS_MAX];
} msg_finished;

#define PROTO_MORE_FILES_MAX (2 * PROTO_OFFSETS_MAX)   /* a rescaled task's files after its first handle */

/* DEPLOY's payload: what the task restores (ckpt 0: start from scratch),
 * its part of the checkpoint only, as Flink's task deployment descriptor
 * carries the task's state handles. The task reads the files from the
 * store before it starts.
 *
 * Rescaling: `parallelism` is the attempt's parallelism of every vertex
 * (the JobManager's decision): the task reads its key groups, its share
 * of the partitions, and which of its channels' other ends run, from it.
 * A keyed task whose vertex ran at another parallelism in the checkpoint
 * (`from_parallelism`) restores the keys of its key-group range from the
 * handles of every old subtask whose range overlaps its own: `chain`,
 * then `more_count` more, whose files are in `more_files` (a keyed task
 * has no offsets: they share the room), `more_len` each. */
typedef struct msg_deploy {
    uint64_t     ckpt;
    rt_chain     chain;              /* keyed state (count 0: none) */
    uint64_t     cs_file;            /* channel state, 0: none */
    /* With slots: where the tasks at the other ends of its inputs, then
     * of its outputs, run (their hosts: machines), as Flink's deployment
     * descriptor names the producers' locations. 0 without slots. */
    uint32_t     hosts_count;
    uint8_t      hosts[PROTO_HOSTS_MAX];
    uint16_t     parallelism[JOB_VERTICES_MAX];   /* by vertex; 0: the graph's */
    uint16_t     from_parallelism;   /* its vertex's in the checkpoint restored (0: the same) */
    /* Channel state across a rescale (StateAssignmentOperation): the old
     * subtasks whose files it reads, cs_file the first (cs_old[0]); set
     * when the checkpoint ran another parallelism of its vertex or of a
     * neighbour, so that the task filters and maps what it replays. */
    bool         cs_rescaled;
    uint8_t      cs_count;           /* files: cs_file, then cs_more[0 .. cs_count - 1) */
    bool         canonical;          /* a canonical savepoint: its state is loaded, no increment builds on its files */
    bool         drained;            /* a drained savepoint: a source's input ends where it restores (FLIP-147) */
    uint16_t     cs_old[PIPE_RESCALE_HANDLES_MAX + 1];
    uint64_t     cs_more[PIPE_RESCALE_HANDLES_MAX];
    uint16_t     more_count;
    uint8_t      more_len[PIPE_RESCALE_HANDLES_MAX];
    uint32_t     offsets_count;      /* a source: where to read from */
    union {
        proto_offset offsets[PROTO_OFFSETS_MAX];
        uint64_t     more_files[PROTO_MORE_FILES_MAX];
    };
} msg_deploy;

/* ASSIGN's payload: splits (partitions) the enumerator gives a source
 * reader, to read from their beginning; final: no more will come, so
 * the reader finishes when these and those it restored are read. An
 * operator event in Flink's terms (the SplitEnumerator's assignSplits). */
typedef struct msg_assign {
    uint32_t partitions_count;
    uint32_t final;
    uint32_t partitions[PROTO_OFFSETS_MAX];
} msg_assign;

/* The bytes of a payload with n offsets (what is copied and sent). */
#define PROTO_WITH_OFFSETS_BYTES(type, n) ((uint32_t)(offsetof(type, offsets) + (n) * sizeof(proto_offset)))

#define PROTO_MAX2(a, b) ((a) > (b) ? (a) : (b))
#define PROTO_PAYLOAD_BYTES_MAX                                                                                     \
    ((uint32_t)PROTO_MAX2(PROTO_MAX2(sizeof(msg_ack), sizeof(msg_deploy)),                                         \
                          PROTO_MAX2(PROTO_MAX2(sizeof(msg_finished), sizeof(msg_trigger)), sizeof(msg_assign))))

#endif
