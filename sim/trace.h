/* sim/trace.h: the run's trace hash.
 *
 * Contract: every event the kernel pops (delivered, dropped, or deferred by
 * a pause: sim/run.h; a deferred event is folded each time it is popped) is
 * folded, in dispatch order, into one 64-bit hash together with its time,
 * destination, kind, aux/gen words, message and outcome. Two runs have the
 * same hash when they dispatched the same events in the same order with the
 * same outcomes; any divergence (a different delay, drop, order or payload)
 * changes it with overwhelming probability. The hash is not cryptographic:
 * it detects accidental divergence, it does not resist forgery. It is folded
 * in a fixed sequence of 64-bit integer operations, so it is identical on
 * every compiler, optimisation level and platform.
 */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include "evq.h"

#define TRACE_HASH_INIT 0x243f6a8885a308d3ull   /* pi's fractional bits */

typedef enum trace_outcome {
    TRACE_DELIVERED      = 0,
    TRACE_DROPPED_DOWN   = 1,   /* destination crashed or restarted since send */
    TRACE_DROPPED_LINK   = 2,   /* the connection it travelled on broke */
    TRACE_TIMER_STALE    = 3,   /* timer was cancelled */
    TRACE_KERNEL         = 4,   /* the kernel's own event (fault step) */
    TRACE_DEFERRED_PAUSED = 5,  /* its actor is paused: put back, delivered later */
    TRACE_LOST_PAUSED    = 6,   /* an RPC message for a paused actor while SIM_PAUSED_RPC_MAX wait */
} trace_outcome;

static inline uint64_t trace_mix(uint64_t h, uint64_t w) {
    h ^= w;
    h *= 0x9fb21c651e98df25ull;
    return h ^ (h >> 29);
}

static inline uint64_t trace_fold(uint64_t h, sim_time_ns at_ns, const sim_event *ev,
                                  trace_outcome outcome) {
    h = trace_mix(h, at_ns);
    h = trace_mix(h, ((uint64_t)ev->dst << 32) | ((uint64_t)ev->kind << 16) | (uint64_t)outcome);
    h = trace_mix(h, ((uint64_t)ev->aux << 32) | ev->gen);
    h = trace_mix(h, ((uint64_t)ev->msg.type << 32) | ev->msg.src);
    h = trace_mix(h, ev->msg.a);
    return trace_mix(h, ev->msg.b);
}

#endif
