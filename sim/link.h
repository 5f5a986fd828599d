/* sim/link.h: one-directional network links between two actors.
 *
 * Contract:
 * - FIFO: messages sent on one link arrive in send order, whatever the
 *   jitter and delay spikes (an arrival is never earlier than the previous
 *   arrival on the same link; equal times keep push order in the queue).
 * - Timing: a message of B bytes starts transmitting when the link is free,
 *   occupies it for B / bandwidth, then arrives after latency + jitter +
 *   any active delay spike. Jitter is uniform on [0, jitter_ns], drawn
 *   through sim_choose() from the link's own stream.
 * - LINK_STREAM (a TCP connection, for data channels): reliable while up.
 *   A cut, a partition or a crash of either endpoint breaks the connection:
 *   messages in flight are dropped and counted, and each endpoint still up
 *   receives SIM_EV_LINK_DOWN one latency later.
 * - LINK_RPC (for control messages): no connection state and no
 *   notification; a message is lost while the link is cut, or with the
 *   probability of an active loss fault. In-flight messages survive the
 *   crash of their sender but not a cut of the link.
 * - A link is cut while its cut count is above zero (a manual cut and any
 *   number of overlapping partitions stack); link_heal() undoes one cut.
 * - Links are created before sim_run_start(); nothing here allocates after.
 */
#ifndef SIM_LINK_H
#define SIM_LINK_H

#include "rng.h"

typedef struct sim_run sim_run;
typedef struct sim_msg sim_msg;

typedef enum link_kind {
    LINK_STREAM = 1,
    LINK_RPC    = 2,
} link_kind;

typedef struct link_cfg {
    link_kind   kind;
    sim_time_ns latency_ns;
    sim_time_ns jitter_ns;              /* <= UINT32_MAX - 1 */
    uint64_t    bandwidth_bytes_per_s;  /* 0: unlimited */
} link_cfg;

typedef struct sim_link {
    link_cfg    cfg;
    rng         rng;
    uint32_t    id;
    uint32_t    src;                /* actor ids */
    uint32_t    dst;
    uint32_t    gen;                /* connection generation: bumped on break */
    uint32_t    cut_count;          /* > 0: cut */
    uint32_t    loss_fault;         /* fault owning the active loss, or UINT32_MAX */
    sim_ratio   loss;               /* RPC loss probability while a fault is active */
    sim_time_ns spike_ns;           /* sum of active delay spikes */
    sim_time_ns busy_until_ns;      /* transmitter free from this time */
    sim_time_ns last_arrival_ns;    /* FIFO floor for the next arrival */
    uint64_t    sent;
    uint64_t    bytes_sent;
    uint64_t    dropped_cut;        /* sent while cut */
    uint64_t    lost;               /* RPC loss fault */
    uint64_t    dropped_in_flight;  /* connection broke before arrival */
    uint64_t    breaks;
} sim_link;

uint32_t link_add(sim_run *run, uint32_t src_actor, uint32_t dst_actor, const link_cfg *cfg);

/* Send m from the link's source. Returns true when the message was put on
 * the wire (it may still be dropped in flight), false when it was dropped at
 * once (link cut, loss). Must be called while the source actor is up. */
bool link_send(sim_run *run, uint32_t link_id, const sim_msg *m, uint32_t size_bytes);
/* link_send with data_bytes of data copied into the message's payload
 * (sim_payload() at the receiver); nothing is taken when the message is
 * dropped at once. size_bytes, what the wire carries, includes it. */
bool link_send_payload(sim_run *run, uint32_t link_id, const sim_msg *m, uint32_t size_bytes, const void *data,
                       uint32_t data_bytes);

void link_cut(sim_run *run, uint32_t link_id);
void link_heal(sim_run *run, uint32_t link_id);
bool link_is_up(const sim_run *run, uint32_t link_id);

/* Break the connection of a stream link (called by the kernel on a cut or
 * an endpoint crash; `crashed` is the endpoint that crashed, or UINT32_MAX). */
void link_break(sim_run *run, sim_link *l, uint32_t crashed);

#endif
