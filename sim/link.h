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
 *   probability of an active loss fault, and delivered twice with that of
 *   an active duplicate fault (sim/fault.h). In-flight messages survive the
 *   crash of their sender but not a cut of the link.
 * - Loss and delay windows may name a message type (fault_spec.msg_type,
 *   sim/fault.h): then only messages of that type are lost or delayed.
 *   Any number of typed windows, of different types, may be open on a
 *   link at once; they live in one per-run table of open typed windows
 *   (run->typed, fault ids in begin order, at most faults_max), not in
 *   the link. A link with no loss or typed window open costs one test of
 *   `faulted` per send, as before; one with some scans the table.
 * - A pause of either endpoint (sim/run.h) does not touch a link: what
 *   arrives for a paused receiver waits, in order, and the connection
 *   stays up; only RPC messages past SIM_PAUSED_RPC_MAX waiting in the
 *   whole run are lost instead (sim/run.h).
 * - RPC messages a delay holds are bounded too. A message is held when it
 *   arrives later than the link without faults could make it (latency,
 *   its bandwidth's queue, the most jitter): a delay window is open on
 *   the link, or it waits behind such a message (FIFO). One held while
 *   SIM_RPC_LINK_HELD_MAX are held on its link, or SIM_RPC_HELD_MAX in
 *   the whole run, is lost at once (link lost_held, stats.lost_held), as
 *   an RPC message may be lost at any time. Without the bound a sender
 *   that repeats an RPC every millisecond on a link delayed by seconds
 *   would fill the event queue and the payload slots, whose sizes are
 *   fixed per run; the bound per link keeps one such link from taking
 *   the room of the others. A run without delays holds none.
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

/* Aligned to a cache line: a send reads and writes the first two lines
 * (everything up to bytes_sent) and fate() the first, so with thousands
 * of links (a job's channels) each stays two whole lines, not three.
 * An alternative measured and not kept:
 * docs/PERFORMANCE.md, "Link layout". */
typedef struct sim_link {
    _Alignas(64) link_cfg cfg;
    rng         rng;
    uint32_t    id;
    uint32_t    src;                /* actor ids */
    uint32_t    dst;
    uint32_t    gen;                /* connection generation: bumped on break */
    uint32_t    cut_count;          /* > 0: cut */
    uint32_t    loss_fault;         /* fault owning the active untyped loss, or UINT32_MAX */
    sim_ratio   loss;               /* RPC loss probability while an untyped loss fault is active */
    uint32_t    faulted;            /* open loss windows + open typed delay windows: > 0, send looks */
    uint32_t    typed;              /* open typed (msg_type != 0) loss or delay windows */
    sim_time_ns spike_ns;           /* sum of active untyped delay spikes */
    sim_time_ns busy_until_ns;      /* transmitter free from this time */
    sim_time_ns last_arrival_ns;    /* FIFO floor for the next arrival */
    uint64_t    sent;
    uint64_t    bytes_sent;
    uint64_t    dropped_cut;        /* sent while cut */
    uint64_t    lost;               /* RPC loss fault, typed or not */
    uint64_t    lost_held;          /* RPC lost at sending: a delay held too many (sim/base.h) */
    uint32_t    held;               /* RPC: messages a delay holds (see above), queued and not yet popped */
    uint64_t    duplicated;         /* RPC duplicate fault: copies delivered */
    uint64_t    dup_skipped;        /* ... copies not made: no payload slot free, or no room to hold one */
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

/* An endpoint closes a stream link's connection (as a JobManager closes
 * the connection of a TaskManager it declared lost): what is in flight is
 * dropped, both ends get SIM_EV_LINK_DOWN one latency later, and the next
 * send opens a new connection. */
void link_close(sim_run *run, uint32_t link_id);

/* Break the connection of a stream link (called by the kernel on a cut or
 * an endpoint crash; `crashed` is the endpoint that crashed, or UINT32_MAX). */
void link_break(sim_run *run, sim_link *l, uint32_t crashed);

/* Kernel side (fault.c): a typed loss or delay window opens or closes on
 * its link (the fault's spec names link and type). */
void link_typed_open(sim_run *run, uint32_t fault_id);
void link_typed_close(sim_run *run, uint32_t fault_id);

#endif
