/* model/bridge.h: what the TaskManagers still learn from the JobManager's
 * memory, and the JobManager from theirs, without a message: each call
 * names one such shortcut, implemented by the assembly (model/pipe.c),
 * which sees both sides. Each is a step still to take towards a
 * JobManager and TaskManagers that share nothing (model/proto.h); the
 * file goes when the last one does. */
#ifndef MODEL_BRIDGE_H
#define MODEL_BRIDGE_H

#include "proto.h"
#include "world.h"

/* ---- read by tasks ---- */

/* Whether incarnation `inc` of task's actor is the one the coordinator deployed. */
bool bridge_deployed(pipe_world *w, uint32_t task, uint32_t inc);
/* The coordinator's job attempt (what a deployment would say). */
uint64_t bridge_attempt(pipe_world *w);
/* Checkpoint ckpt of attempt epoch is pending at the coordinator: true and
 * when it was created, else false. */
bool bridge_pending(pipe_world *w, uint64_t epoch, uint64_t ckpt, sim_time_ns *started_ns);
/* The pending checkpoint's offsets table (by partition), NULL when not pending. */
uint64_t *bridge_offsets(pipe_world *w, uint64_t epoch, uint64_t ckpt);
/* Add one record of channel state to pending checkpoint ckpt: false when it
 * is not pending; a full table marks it overflowed (declined at the ack). */
bool bridge_cs_add(pipe_world *w, uint64_t epoch, uint64_t ckpt, const rt_cs_rec *r);
bool bridge_cs_overflow(pipe_world *w, uint64_t epoch, uint64_t ckpt);

/* The checkpoint a (re)deployed task restores from; ckpt 0: none. */
typedef struct bridge_restore_view {
    uint64_t         ckpt;
    const rt_chain  *chains;          /* by task */
    const uint64_t  *offsets;         /* by partition */
    const rt_cs_rec *cs;
    uint32_t         cs_count;
} bridge_restore_view;
bridge_restore_view bridge_restore(pipe_world *w);

/* ---- done by the coordinator ---- */

/* A finished two-phase-commit sink's last transaction is pre-committed for ckpt. */
void bridge_sink_final_ack(pipe_world *w, uint32_t task, uint64_t ckpt);
/* The job finished: a two-phase-commit sink commits what it pre-committed. */
void bridge_sink_commit_all(pipe_world *w, uint32_t task);
/* The memory backend died with the coordinator: the task's final-state handle names nothing. */
void bridge_clear_final_file(pipe_world *w, uint32_t task);

#endif
