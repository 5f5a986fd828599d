/* sim/phold.c: the PHOLD handler.
 *
 * Per event, in this order (tests/bench/phold_simpy.py --exact relies on
 * it): count the event (stop at the target), draw the delay, draw whether
 * the event is remote, draw the remote LP, send. Message word a is the
 * sender's count of messages sent, so payloads enter the trace hash. */
#include "phold.h"

typedef struct phold_shared {
    uint64_t    handled;
    uint64_t    target;
    uint32_t    lps;
    sim_ratio   remote;
    sim_time_ns mean_ns;
    sim_time_ns lookahead_ns;
} phold_shared;

typedef struct phold_lp {
    phold_shared *shared;
    uint64_t      sent;
} phold_lp;

phold_cfg phold_cfg_default(void) {
    return (phold_cfg){
        .seed = 1,
        .lps = 1000,
        .events = 10000000,
        .remote = { .num = 900000, .den = 1000000 },
        .mean_ns = 1000000,
        .lookahead_ns = 1000,
        .log = NULL,
    };
}

static void phold_on_event(sim_run *run, sim_actor *self, const sim_event *ev) {
    phold_lp *lp = self->ctx;
    phold_shared *sh = lp->shared;
    if (ev->kind == SIM_EV_MSG) {
        if (++sh->handled >= sh->target) {
            sim_stop(run);
            return;
        }
    } else {
        SIM_ASSERT(ev->kind == SIM_EV_START);
    }
    sim_time_ns delay_ns = sh->lookahead_ns + sim_delay_exp_ns(run, &self->rng, sh->mean_ns);
    uint32_t dst = self->id;
    if (sim_chance(run, &self->rng, SIM_CHOICE_BRANCH, sh->remote)) {
        dst = sim_choose(run, &self->rng, SIM_CHOICE_PICK, sh->lps);
    }
    sim_msg m = { .type = PHOLD_MSG, .a = ++lp->sent, .b = 0 };
    sim_send(run, self->id, dst, delay_ns, &m);
}

sim_run *phold_create(const phold_cfg *cfg) {
    SIM_ASSERT(cfg->lps >= 1 && cfg->lps <= SIM_ACTORS_MAX);
    SIM_ASSERT(cfg->events >= 1);
    SIM_ASSERT(cfg->remote.den > 0 && cfg->remote.num <= cfg->remote.den);
    sim_cfg sc = sim_cfg_default(cfg->seed);
    sc.actors_max = cfg->lps;
    sc.machines_max = 1;
    sc.links_max = 0;
    sc.timers_max = 0;
    sc.devs_max = 0;
    sc.faults_max = 0;
    sc.events_pending_max = cfg->lps + 1;       /* one pending event per LP */
    sc.events_max = cfg->events + cfg->lps + 1; /* START events + messages */
    sc.time_max_ns = SIM_TIME_NS_MAX - 1;
    sc.model_bytes = sizeof(phold_shared) + (size_t)cfg->lps * sizeof(phold_lp) + 64;
    sc.log = cfg->log;
    sim_run *run = sim_run_create(&sc);
    if (run == NULL) return NULL;

    phold_shared *sh = sim_alloc(run, sizeof *sh, _Alignof(phold_shared));
    *sh = (phold_shared){
        .target = cfg->events, .lps = cfg->lps, .remote = cfg->remote,
        .mean_ns = cfg->mean_ns, .lookahead_ns = cfg->lookahead_ns,
    };
    phold_lp *lps = sim_alloc(run, sizeof(phold_lp) * cfg->lps, _Alignof(phold_lp));
    uint32_t m = sim_machine_add(run, "m0");
    for (uint32_t i = 0; i < cfg->lps; i++) {
        lps[i].shared = sh;
        char name[SIM_NAME_BYTES];
        snprintf(name, sizeof name, "lp%u", i);
        uint32_t id = sim_actor_add(run, name, m, phold_on_event, &lps[i]);
        SIM_ASSERT(id == i);
    }
    return run;
}

uint64_t phold_handled(const sim_run *run) {
    SIM_ASSERT(run->actors_count >= 1);
    const phold_lp *lp = run->actors[0].ctx;
    return lp->shared->handled;
}
