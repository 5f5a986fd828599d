/* sim/dev.h: a storage device, the model of a durable store (HDFS/S3-like).
 *
 * Contract:
 * - One FIFO transfer queue per device: an operation of B bytes transfers
 *   for B / bandwidth after the previous one finished, then completes after
 *   the device latency. Completion is a SIM_EV_IO_DONE event to the actor
 *   that issued it: aux = device id, gen = DEV_OK, DEV_FAILED or
 *   DEV_AMBIGUOUS, msg.type = DEV_OP_*, msg.a = the caller's tag,
 *   msg.b = bytes.
 * - Slow windows (fault DEV_SLOW, factor f) multiply transfer time and
 *   latency of operations issued inside them by f; overlapping windows add
 *   their slowdowns (factors 3 and 5 together: 1 + 2 + 4 = 7).
 * - Fail windows (fault DEV_FAIL with probability p) fail each write issued
 *   inside them with probability p, drawn through sim_choose() from the
 *   fault's own stream; a failed write still takes its time, as a timeout
 *   on a real store does. Reads always succeed.
 * - Ambiguous windows (fault DEV_AMBIGUOUS with probability p): a write
 *   issued inside one that did not fail is, with probability p (drawn like
 *   a failure, from that fault's stream, SIM_CHOICE_DROP), completed with
 *   gen = DEV_AMBIGUOUS: the store did the write, the writer was told it
 *   failed in a way that does not say so (a timeout after the store
 *   committed). It is counted in writes, bytes_written and
 *   ambiguous_writes. The device holds no contents: what "the write
 *   happened" means for the data (the object is there and readable later)
 *   is the model's to decide and to keep. Nested ambiguous windows: the
 *   strongest governs, as for fail windows. A write drawn to fail is not
 *   drawn again for ambiguity. A writer that tests gen != DEV_FAILED takes
 *   an ambiguous write for a success; one that must not assume tests
 *   gen == DEV_OK.
 * - Every write, failed or not, is counted in writes and bytes_written
 *   (the device spent the time); failed_writes and ambiguous_writes say
 *   which did not plainly succeed.
 * - A completion addressed to an actor that crashed meanwhile is dropped
 *   like any event to a crashed actor; the device's work still happened.
 *   Devices keep working while their issuer is paused; its completions
 *   wait for the pause's end like anything sent to it (sim/run.h).
 */
#ifndef SIM_DEV_H
#define SIM_DEV_H

#include "rng.h"

typedef struct sim_run sim_run;

enum { DEV_OK = 0, DEV_FAILED = 1, DEV_AMBIGUOUS = 2 };
enum { DEV_OP_READ = 1, DEV_OP_WRITE = 2 };

typedef struct dev_cfg {
    sim_time_ns latency_ns;
    uint64_t    bandwidth_bytes_per_s;   /* 0: unlimited */
} dev_cfg;

typedef struct sim_dev {
    dev_cfg     cfg;
    uint32_t    id;
    uint32_t    slow_extra;       /* sum over active slow windows of (factor - 1) */
    uint32_t    fail_fault;       /* fault owning the active fail window, or UINT32_MAX */
    sim_ratio   fail;             /* write failure probability in that window */
    uint32_t    ambiguous_fault;  /* fault owning the active ambiguous window, or UINT32_MAX */
    sim_ratio   ambiguous;        /* probability of a done write reported DEV_AMBIGUOUS */
    sim_time_ns busy_until_ns;
    sim_time_ns slowed_until_ns;  /* the last operation issued in a slow window completes */
    uint64_t    reads, writes, failed_writes, ambiguous_writes;
    uint64_t    bytes_read, bytes_written;
    char        name[SIM_NAME_BYTES];
} sim_dev;

uint32_t dev_add(sim_run *run, const char *name, const dev_cfg *cfg);

/* Issue an operation for `actor`; returns the completion time. */
sim_time_ns dev_write(sim_run *run, uint32_t dev_id, uint32_t actor, uint64_t size_bytes, uint64_t tag);
sim_time_ns dev_read(sim_run *run, uint32_t dev_id, uint32_t actor, uint64_t size_bytes, uint64_t tag);

#endif
