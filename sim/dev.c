/* sim/dev.c: storage device timing, failure and ambiguity windows. */
#include "run.h"

#include <string.h>

uint32_t dev_add(sim_run *run, const char *name, const dev_cfg *cfg) {
    SIM_ASSERT(!run->started);
    SIM_ASSERT(run->devs_count < run->cfg.devs_max);
    uint32_t id = run->devs_count++;
    sim_dev *d = &run->devs[id];
    d->cfg = *cfg;
    d->id = id;
    d->fail_fault = UINT32_MAX;
    d->fail = SIM_RATIO_NEVER;
    d->ambiguous_fault = UINT32_MAX;
    d->ambiguous = SIM_RATIO_NEVER;
    size_t n = strlen(name);
    if (n >= SIM_NAME_BYTES) n = SIM_NAME_BYTES - 1;
    memcpy(d->name, name, n);
    d->name[n] = '\0';
    return id;
}

/* What the writer is told: fail windows first (the write did not happen,
 * so there is nothing to be ambiguous about), then ambiguous windows (it
 * happened; the writer cannot know). Each draws only when its window is
 * open, from its own fault's stream. */
static uint32_t write_status(sim_run *run, sim_dev *d) {
    if (d->fail.num > 0) {
        SIM_ASSERT(d->fail_fault < run->faults_count);
        if (sim_chance(run, &run->faults[d->fail_fault].rng, SIM_CHOICE_DROP, d->fail)) {
            d->failed_writes++;
            return DEV_FAILED;
        }
    }
    if (SIM_UNLIKELY(d->ambiguous.num > 0)) {
        SIM_ASSERT(d->ambiguous_fault < run->faults_count);
        if (sim_chance(run, &run->faults[d->ambiguous_fault].rng, SIM_CHOICE_DROP, d->ambiguous)) {
            d->ambiguous_writes++;
            return DEV_AMBIGUOUS;
        }
    }
    return DEV_OK;
}

static sim_time_ns dev_op(sim_run *run, uint32_t dev_id, uint32_t actor, uint64_t size_bytes,
                          uint64_t tag, uint32_t op) {
    SIM_ASSERT(dev_id < run->devs_count);
    SIM_ASSERT(actor < run->actors_count && run->actors[actor].up);
    sim_dev *d = &run->devs[dev_id];
    uint64_t factor = 1u + (uint64_t)d->slow_extra;
    sim_time_ns xfer = 0;
    if (d->cfg.bandwidth_bytes_per_s > 0) {
        unsigned __int128 ns = (unsigned __int128)size_bytes * SIM_NS_PER_S * factor;
        ns = (ns + d->cfg.bandwidth_bytes_per_s - 1) / d->cfg.bandwidth_bytes_per_s;
        SIM_ASSERT(ns < (unsigned __int128)1 << 62);
        xfer = (sim_time_ns)ns;
    }
    sim_time_ns start = d->busy_until_ns > run->now_ns ? d->busy_until_ns : run->now_ns;
    d->busy_until_ns = start + xfer;
    sim_time_ns done = d->busy_until_ns + d->cfg.latency_ns * factor;
    if (factor > 1 && done > d->slowed_until_ns) d->slowed_until_ns = done;   /* the slow windows' ends report it */

    uint32_t status = DEV_OK;
    if (op == DEV_OP_WRITE) {
        d->writes++;
        d->bytes_written += size_bytes;
        status = write_status(run, d);
    } else {
        d->reads++;
        d->bytes_read += size_bytes;
    }
    sim_event *ev = sim_schedule(run, done, actor, SIM_EV_IO_DONE);
    ev->aux = dev_id;
    ev->gen = status;
    ev->msg.type = op;
    ev->msg.src = actor;
    ev->msg.a = tag;
    ev->msg.b = size_bytes;
    SIM_ASSERT(done >= run->now_ns);
    return done;
}

sim_time_ns dev_write(sim_run *run, uint32_t dev_id, uint32_t actor, uint64_t size_bytes, uint64_t tag) {
    return dev_op(run, dev_id, actor, size_bytes, tag, DEV_OP_WRITE);
}

sim_time_ns dev_read(sim_run *run, uint32_t dev_id, uint32_t actor, uint64_t size_bytes, uint64_t tag) {
    return dev_op(run, dev_id, actor, size_bytes, tag, DEV_OP_READ);
}
