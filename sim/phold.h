/* sim/phold.h: PHOLD (Fujimoto 1990), the kernel's reference workload.
 *
 * N logical processes (actors). At start each LP schedules one event to
 * itself; whenever an LP handles an event it schedules exactly one new event
 * after lookahead + an exponential delay, at a uniformly random LP with
 * probability `remote` and at itself otherwise. The pending population stays
 * at N, so the run measures the kernel's per-event cost: queue, dispatch,
 * choice point, trace hash. It knows nothing of Flink; it lives in sim/
 * because the benchmark, the determinism checks and the tests all run it.
 *
 * Contract: phold_create() builds a run that is not started; after
 * sim_run_start() and sim_run_loop() the run has handled exactly `events`
 * message events (it stops itself), and phold_handled() says so.
 * tests/bench/phold_simpy.py mirrors this model (and, with --exact, its
 * random draws and trace hash) in SimPy.
 */
#ifndef SIM_PHOLD_H
#define SIM_PHOLD_H

#include "run.h"

typedef struct phold_cfg {
    uint64_t    seed;
    uint32_t    lps;
    uint64_t    events;          /* message events to handle */
    sim_ratio   remote;
    sim_time_ns mean_ns;         /* mean of the exponential part of a delay */
    sim_time_ns lookahead_ns;    /* constant part of a delay */
    FILE       *log;
} phold_cfg;

#define PHOLD_MSG 1u

phold_cfg phold_cfg_default(void);
sim_run  *phold_create(const phold_cfg *cfg);   /* NULL when memory is short */
uint64_t  phold_handled(const sim_run *run);

#endif
