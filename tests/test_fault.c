/* tests/test_fault.c: scripted faults: windows that restore what they
 * changed, faults injected from inside a run, each fault acting on exactly
 * its target, whether a fault began, and determinism of a run that uses
 * every fault kind at once. */
#include "harness.h"

#define GOSSIP_GOLDEN_HASH 0x48d2d133d642fcc0ull   /* gossip_run(11), every fault kind */

static recorder log_;

static void test_crash_with_a_duration_restarts_the_target_when_it_ends(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_ };
    sim_cfg c = test_cfg(1);
    sim_run *run = sim_run_create(&c);
    uint32_t m0 = sim_machine_add(run, "m0");
    uint32_t x = sim_actor_add(run, "x", m0, rec_handler, &ctx);
    fault_add(run, &(fault_spec){ .kind = FAULT_MACHINE_CRASH, .at_ns = 100, .duration_ns = 50, .target = m0 });
    fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .at_ns = 300, .target = x });
    fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_RESTART, .at_ns = 400, .target = x });
    sim_run_start(run);
    sim_run_loop(run);
    assert_int_equal(rec_count(&log_, x, SIM_EV_START), 3);
    assert_int_equal(log_.items[1].at_ns, 150);
    assert_int_equal(log_.items[2].at_ns, 400);
    assert_int_equal(log_.items[2].inc, 2);
    assert_int_equal(run->actors_cold[x].crashes, 2);
    assert_int_equal(run->machines[m0].crashes, 1);
    assert_string_equal(fault_kind_name(FAULT_LINK_LOSS), "lose-rpc");
    sim_run_destroy(run);
}

/* A fault added by a handler (a "protocol point" trigger) at now happens
 * right after the current event, before anything else scheduled later. */
static void inject_hook(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (ev->kind == SIM_EV_START && self->inc == 0) {
        sim_timer_set(run, self->id, 0, 1);    /* same time, pushed first */
        fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .at_ns = run->now_ns,
                                      .duration_ns = 10, .target = self->id });
    }
}

static void test_fault_injected_by_a_handler_applies_before_later_events(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = inject_hook };
    sim_cfg c = test_cfg(1);
    sim_run *run = sim_run_create(&c);
    uint32_t x = sim_actor_add(run, "x", sim_machine_add(run, "m"), rec_handler, &ctx);
    sim_run_start(run);
    sim_run_loop(run);
    /* The timer was pushed before the fault at the same time, so it fires
     * first; then x crashes and comes back at 10. */
    assert_int_equal(rec_count(&log_, x, SIM_EV_TIMER), 1);
    assert_int_equal(rec_count(&log_, x, SIM_EV_START), 2);
    assert_int_equal(log_.items[2].at_ns, 10);
    sim_run_destroy(run);
}

/* ---- every fault acts on exactly its target -------------------------------
 *
 * A world with several of everything: 4 machines, 8 actors (actor i on
 * machine i / 2), 8 stream links (link i: actor i -> actor i + 1 mod 8),
 * 8 RPC links (link 8 + i: actor i -> actor i + 3 mod 8) and 3 devices. At
 * W_PROBE_NS, inside every fault's window, each actor still up sends one
 * message on each of its links and actor 0 writes to each device; the
 * world records what arrived where, and when. */

#define W_MACHINES    4u
#define W_ACTORS      8u
#define W_STREAMS     8u
#define W_LINKS       16u
#define W_DEVS        3u
#define W_LAT_NS      1000u
#define W_AT_NS       (100 * SIM_NS_PER_US)
#define W_FOR_NS      (100 * SIM_NS_PER_US)
#define W_PROBE_NS    (150 * SIM_NS_PER_US)

typedef struct world {
    sim_run    *run;
    uint32_t    got[W_LINKS];           /* probe messages delivered per link */
    sim_time_ns got_ns[W_LINKS];
    uint32_t    io_done[W_DEVS], io_failed[W_DEVS];
    sim_time_ns io_ns[W_DEVS];
} world;

static world w_;

static void world_actor(sim_run *run, sim_actor *self, const sim_event *ev) {
    world *w = self->ctx;
    switch (ev->kind) {
    case SIM_EV_START:
        if (self->inc == 0) sim_timer_set(run, self->id, W_PROBE_NS - run->now_ns, 0);
        break;
    case SIM_EV_TIMER:
        for (uint32_t l = 0; l < run->links_count; l++) {
            if (run->links[l].src == self->id) link_send(run, l, &(sim_msg){ .type = 1 }, 64);
        }
        for (uint32_t d = 0; self->id == 0 && d < run->devs_count; d++) dev_write(run, d, self->id, 0, d);
        break;
    case SIM_EV_MSG:
        if (ev->aux != SIM_NO_LINK) {
            w->got[ev->aux]++;
            w->got_ns[ev->aux] = run->now_ns;
        }
        break;
    case SIM_EV_IO_DONE:
        w->io_done[ev->aux]++;
        w->io_failed[ev->aux] += ev->gen == DEV_FAILED;
        w->io_ns[ev->aux] = run->now_ns;
        break;
    default:
        break;
    }
}

static world *world_create(void) {
    world *w = &w_;
    memset(w, 0, sizeof *w);
    sim_cfg c = test_cfg(5);
    w->run = sim_run_create(&c);
    char name[8];
    for (uint32_t m = 0; m < W_MACHINES; m++) {
        snprintf(name, sizeof name, "m%u", m);
        sim_machine_add(w->run, name);
    }
    for (uint32_t a = 0; a < W_ACTORS; a++) {
        snprintf(name, sizeof name, "a%u", a);
        sim_actor_add(w->run, name, a / 2, world_actor, w);
    }
    link_cfg stream = { .kind = LINK_STREAM, .latency_ns = W_LAT_NS };
    link_cfg rpc = { .kind = LINK_RPC, .latency_ns = W_LAT_NS };
    for (uint32_t a = 0; a < W_ACTORS; a++) link_add(w->run, a, (a + 1) % W_ACTORS, &stream);
    for (uint32_t a = 0; a < W_ACTORS; a++) link_add(w->run, a, (a + 3) % W_ACTORS, &rpc);
    for (uint32_t d = 0; d < W_DEVS; d++) {
        snprintf(name, sizeof name, "d%u", d);
        dev_add(w->run, name, &(dev_cfg){ .latency_ns = W_LAT_NS });
    }
    return w;
}

/* Run up to (and including) events at t_ns. */
static void world_run_to(world *w, sim_time_ns t_ns) {
    if (!w->run->started) sim_run_start(w->run);
    w->run->cfg.time_max_ns = t_ns;
    sim_run_loop(w->run);
}

static uint32_t world_fault(world *w, fault_spec spec) {
    spec.at_ns = W_AT_NS;
    if (spec.duration_ns == 0 && spec.kind != FAULT_ACTOR_CRASH && spec.kind != FAULT_MACHINE_CRASH) {
        spec.duration_ns = W_FOR_NS;
    }
    return fault_add(w->run, &spec);
}

static void test_fault_crash_actor_downs_only_its_actor(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = 5 });
    world_run_to(w, W_AT_NS);
    for (uint32_t a = 0; a < W_ACTORS; a++) {
        assert_int_equal(w->run->actors[a].up, a != 5);
        assert_int_equal(w->run->actors_cold[a].crashes, a == 5);
    }
    for (uint32_t m = 0; m < W_MACHINES; m++) assert_true(w->run->machines[m].up);
    sim_run_destroy(w->run);
}

static void test_fault_crash_machine_downs_only_its_machine_and_actors(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1, .duration_ns = W_FOR_NS });
    world_run_to(w, W_AT_NS);
    for (uint32_t m = 0; m < W_MACHINES; m++) assert_int_equal(w->run->machines[m].up, m != 1);
    for (uint32_t a = 0; a < W_ACTORS; a++) {
        assert_int_equal(w->run->actors[a].up, a / 2 != 1);     /* actors 2 and 3 live on machine 1 */
    }
    world_run_to(w, W_AT_NS + W_FOR_NS);                            /* the window ends: all back */
    for (uint32_t m = 0; m < W_MACHINES; m++) assert_true(w->run->machines[m].up);
    for (uint32_t a = 0; a < W_ACTORS; a++) assert_true(w->run->actors[a].up);
    for (uint32_t a = 0; a < W_ACTORS; a++) assert_int_equal(w->run->actors_cold[a].crashes, a / 2 == 1);
    sim_run_destroy(w->run);
}

/* A partition {0} | {1, 2} cuts exactly the links between machine 0
 * (actors 0, 1) and machines 1, 2 (actors 2 to 5), in either direction,
 * and heals exactly those; links inside a side or to machine 3 are left
 * alone. Listed by hand from the topology: stream 1 (a1 -> a2), RPC 8
 * (a0 -> a3), RPC 9 (a1 -> a4), RPC 13 (a5 -> a0). */
static void test_fault_partition_cuts_and_heals_exactly_the_crossing_links(void **state) {
    (void)state;
    static const bool crossing[W_LINKS] = { [1] = true, [8] = true, [9] = true, [13] = true };
    world *w = world_create();
    uint32_t id = world_fault(w, (fault_spec){ .kind = FAULT_PARTITION, .machines_a = 1u << 0,
                                               .machines_b = (1u << 1) | (1u << 2) });
    world_run_to(w, W_PROBE_NS + 10 * W_LAT_NS);
    uint32_t cut = 0;
    for (uint32_t l = 0; l < W_LINKS; l++) {
        assert_int_equal(link_is_up(w->run, l), !crossing[l]);
        assert_int_equal(w->got[l], crossing[l] ? 0 : 1);           /* the others still deliver */
        cut += crossing[l];
    }
    assert_int_equal(w->run->faults[id].links_cut, cut);
    for (uint32_t a = 0; a < W_ACTORS; a++) assert_true(w->run->actors[a].up);
    world_run_to(w, W_AT_NS + W_FOR_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) assert_true(link_is_up(w->run, l));
    sim_run_destroy(w->run);
}

/* The end of a partition undoes its own cuts only: links also cut by a
 * longer fault of their own (one crossing, one not) stay cut. */
static void test_fault_partition_end_leaves_other_cuts_in_place(void **state) {
    (void)state;
    world *w = world_create();
    fault_add(w->run, &(fault_spec){ .kind = FAULT_LINK_CUT, .at_ns = W_AT_NS / 2, .duration_ns = 3 * W_FOR_NS,
                                     .target = 1 });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_LINK_CUT, .at_ns = W_AT_NS / 2, .duration_ns = 3 * W_FOR_NS,
                                     .target = 4 });
    world_fault(w, (fault_spec){ .kind = FAULT_PARTITION, .machines_a = 1u << 0, .machines_b = (1u << 1) | (1u << 2) });
    world_run_to(w, W_AT_NS + W_FOR_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) assert_int_equal(link_is_up(w->run, l), l != 1 && l != 4);
    assert_int_equal(w->run->links[1].cut_count, 1);
    world_run_to(w, W_AT_NS / 2 + 3 * W_FOR_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) assert_true(link_is_up(w->run, l));
    sim_run_destroy(w->run);
}

static void test_fault_cut_link_cuts_only_its_link(void **state) {
    (void)state;
    for (uint32_t target = 0; target < W_LINKS; target += 5) {      /* streams 0, 5; RPCs 10, 15 */
        world *w = world_create();
        world_fault(w, (fault_spec){ .kind = FAULT_LINK_CUT, .target = target });
        world_run_to(w, W_PROBE_NS + 10 * W_LAT_NS);
        for (uint32_t l = 0; l < W_LINKS; l++) {
            assert_int_equal(link_is_up(w->run, l), l != target);
            assert_int_equal(w->got[l], l == target ? 0 : 1);
            assert_int_equal(w->run->links[l].dropped_cut, l == target);
        }
        world_run_to(w, W_AT_NS + W_FOR_NS);
        for (uint32_t l = 0; l < W_LINKS; l++) assert_true(link_is_up(w->run, l));
        sim_run_destroy(w->run);
    }
}

static void test_fault_delay_link_delays_only_its_link(void **state) {
    (void)state;
    world *w = world_create();
    sim_time_ns spike = 7 * SIM_NS_PER_US;
    world_fault(w, (fault_spec){ .kind = FAULT_LINK_DELAY, .target = 3, .delay_ns = spike });
    world_run_to(w, W_PROBE_NS + 20 * W_LAT_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) {
        assert_int_equal(w->got[l], 1);
        assert_int_equal(w->got_ns[l], W_PROBE_NS + W_LAT_NS + (l == 3 ? spike : 0));
        assert_int_equal(w->run->links[l].spike_ns, l == 3 ? spike : 0);
    }
    world_run_to(w, W_AT_NS + W_FOR_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) assert_int_equal(w->run->links[l].spike_ns, 0);
    sim_run_destroy(w->run);
}

static void test_fault_link_loss_loses_only_on_its_link(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_LINK_LOSS, .target = 12, .ratio = { 1, 1 } });
    world_run_to(w, W_PROBE_NS + 10 * W_LAT_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) {
        assert_int_equal(w->got[l], l == 12 ? 0 : 1);
        assert_int_equal(w->run->links[l].lost, l == 12);
        assert_true(link_is_up(w->run, l));                          /* lost, not cut */
    }
    world_run_to(w, W_AT_NS + W_FOR_NS);
    for (uint32_t l = 0; l < W_LINKS; l++) assert_int_equal(w->run->links[l].loss.num, 0);
    sim_run_destroy(w->run);
}

static void test_fault_dev_slow_slows_only_its_device(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_DEV_SLOW, .target = 1, .factor = 4 });
    world_run_to(w, W_PROBE_NS + 10 * W_LAT_NS);
    for (uint32_t d = 0; d < W_DEVS; d++) {
        assert_int_equal(w->io_done[d], 1);
        assert_int_equal(w->io_ns[d], W_PROBE_NS + (d == 1 ? 4 : 1) * W_LAT_NS);
        assert_int_equal(w->run->devs[d].slow_extra, d == 1 ? 3 : 0);
    }
    world_run_to(w, W_AT_NS + W_FOR_NS);
    for (uint32_t d = 0; d < W_DEVS; d++) assert_int_equal(w->run->devs[d].slow_extra, 0);
    sim_run_destroy(w->run);
}

static void test_fault_dev_fail_fails_only_its_device(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_DEV_FAIL, .target = 2, .ratio = { 1, 1 } });
    world_run_to(w, W_PROBE_NS + 10 * W_LAT_NS);
    for (uint32_t d = 0; d < W_DEVS; d++) {
        assert_int_equal(w->io_done[d], 1);
        assert_int_equal(w->io_failed[d], d == 2);
        assert_int_equal(w->run->devs[d].failed_writes, d == 2);
    }
    sim_run_destroy(w->run);
}

/* Links that start or end on a paused actor, and when their probe
 * arrives: sent late by a paused sender (its probe timer waits for the
 * end), or on time and held at a paused receiver until the end. */
static void check_paused_probes(const world *w, bool (*paused)(uint32_t actor)) {
    const sim_time_ns end = W_AT_NS + W_FOR_NS;
    uint32_t held = 0, waiting = 0;
    for (uint32_t l = 0; l < W_LINKS; l++) {
        const sim_link *k = &w->run->links[l];
        sim_time_ns expect = W_PROBE_NS + W_LAT_NS;
        if (paused(k->src)) {
            expect = end + W_LAT_NS;
        } else if (paused(k->dst)) {
            expect = end;
            held++;
        }
        assert_int_equal(w->got[l], 1);                 /* nothing lost */
        assert_int_equal(w->got_ns[l], expect);
        assert_int_equal(k->breaks, 0);                 /* nothing broken */
    }
    for (uint32_t a = 0; a < W_ACTORS; a++) waiting += paused(a);   /* each one's probe timer */
    assert_int_equal(w->run->stats.deferred_paused, held + waiting);
    assert_int_equal(w->run->stats.dropped_down + w->run->stats.dropped_link, 0);
}

static bool on_machine_1(uint32_t actor) { return actor / 2 == 1; }
static bool is_actor_5(uint32_t actor) { return actor == 5; }

static void test_fault_machine_pause_pauses_every_actor_on_its_machine_and_no_other(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_MACHINE_PAUSE, .target = 1 });
    world_run_to(w, W_PROBE_NS);
    for (uint32_t a = 0; a < W_ACTORS; a++) {
        assert_int_equal(sim_actor_paused(w->run, a), on_machine_1(a));
        assert_true(w->run->actors[a].up);               /* paused, not down */
    }
    world_run_to(w, W_AT_NS + W_FOR_NS + 10 * W_LAT_NS);
    check_paused_probes(w, on_machine_1);
    for (uint32_t a = 0; a < W_ACTORS; a++) {
        assert_false(sim_actor_paused(w->run, a));
        assert_int_equal(w->run->actors[a].inc, 0);
    }
    assert_int_equal(w->io_done[0], 1);                  /* actor 0's writes were not held */
    assert_int_equal(w->io_ns[0], W_PROBE_NS + W_LAT_NS);
    sim_run_destroy(w->run);
}

static void test_fault_actor_pause_pauses_only_its_actor(void **state) {
    (void)state;
    world *w = world_create();
    world_fault(w, (fault_spec){ .kind = FAULT_ACTOR_PAUSE, .target = 5 });
    world_run_to(w, W_PROBE_NS);
    for (uint32_t a = 0; a < W_ACTORS; a++) assert_int_equal(sim_actor_paused(w->run, a), a == 5);
    world_run_to(w, W_AT_NS + W_FOR_NS + 10 * W_LAT_NS);
    check_paused_probes(w, is_actor_5);
    sim_run_destroy(w->run);
}

/* The new kinds have names, name their targets and settle at their
 * window's end (a pause delivers what waited at that same time). */
static void test_pause_and_ambiguous_faults_are_named_targeted_and_settle_at_their_window_end(void **state) {
    (void)state;
    assert_string_equal(fault_kind_name(FAULT_MACHINE_PAUSE), "machine-pause");
    assert_string_equal(fault_kind_name(FAULT_ACTOR_PAUSE), "actor-pause");
    assert_string_equal(fault_kind_name(FAULT_DEV_AMBIGUOUS), "ambiguous-store");
    world *w = world_create();
    uint32_t mp = world_fault(w, (fault_spec){ .kind = FAULT_MACHINE_PAUSE, .target = 2 });
    uint32_t ap = world_fault(w, (fault_spec){ .kind = FAULT_ACTOR_PAUSE, .target = 3 });
    uint32_t da = world_fault(w, (fault_spec){ .kind = FAULT_DEV_AMBIGUOUS, .target = 1, .ratio = { 1, 2 } });
    char buf[64];
    assert_string_equal(fault_target_text(w->run, mp, buf, sizeof buf), "m2");
    assert_string_equal(fault_target_text(w->run, ap, buf, sizeof buf), "a3");
    assert_string_equal(fault_target_text(w->run, da, buf, sizeof buf), "d1");
    world_run_to(w, W_PROBE_NS);
    assert_int_equal(fault_settled(w->run, mp), W_AT_NS + W_FOR_NS);   /* open: its planned end */
    world_run_to(w, W_AT_NS + W_FOR_NS + 10 * W_LAT_NS);
    for (uint32_t id = 0; id < 3; id++) {
        assert_true(fault_begun(w->run, id) && !w->run->faults[id].active);
        assert_int_equal(fault_settled(w->run, id), W_AT_NS + W_FOR_NS);
    }
    assert_int_equal(w->run->devs[1].ambiguous.num, 0);
    assert_int_equal(w->run->devs[1].ambiguous_fault, UINT32_MAX);
    sim_run_destroy(w->run);
}

/* ---- whether a fault began ------------------------------------------------ */

/* Nested windows compose: of the loss or fail windows open, the strongest
 * governs (a weaker one nested inside changes nothing), and when one ends
 * the strongest still open governs again; a target an outer crash window
 * keeps down stays down when an inner one ends. */
static void test_nested_windows_leave_the_outer_one_in_force_when_the_inner_ends(void **state) {
    (void)state;
    world *w = world_create();
    fault_add(w->run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .target = 12, .at_ns = 10, .duration_ns = 1000, .ratio = { 1, 2 } });
    uint32_t inner = fault_add(w->run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .target = 12, .at_ns = 20, .duration_ns = 30,
                                                       .ratio = { 1, 1 } });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_DEV_FAIL, .target = 1, .at_ns = 10, .duration_ns = 1000, .ratio = { 1, 1 } });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_DEV_FAIL, .target = 1, .at_ns = 20, .duration_ns = 30, .ratio = { 1, 100 } });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = 3, .at_ns = 10, .duration_ns = 1000 });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = 3, .at_ns = 20, .duration_ns = 30 });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 3, .at_ns = 10, .duration_ns = 1000 });
    fault_add(w->run, &(fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 3, .at_ns = 20, .duration_ns = 30 });
    world_run_to(w, 30);                          /* both open: the stronger governs */
    assert_int_equal(w->run->links[12].loss_fault, inner);
    assert_int_equal(w->run->links[12].loss.den, 1);
    assert_int_equal(w->run->devs[1].fail.den, 1);   /* the weaker inner one changes nothing */
    world_run_to(w, 60);                          /* the inner ones ended */
    assert_int_equal(w->run->links[12].loss.num, 1);
    assert_int_equal(w->run->links[12].loss.den, 2);
    assert_int_equal(w->run->devs[1].fail.num, 1);
    assert_int_equal(w->run->devs[1].fail.den, 1);
    assert_false(w->run->actors[3].up);
    assert_false(w->run->machines[3].up);
    world_run_to(w, 1100);                        /* the outer ones too */
    assert_int_equal(w->run->links[12].loss.num, 0);
    assert_int_equal(w->run->links[12].loss_fault, UINT32_MAX);
    assert_int_equal(w->run->devs[1].fail.num, 0);
    assert_true(w->run->actors[3].up);
    assert_true(w->run->machines[3].up);
    sim_run_destroy(w->run);
}

static void test_fault_begun_only_once_its_begin_event_ran(void **state) {
    (void)state;
    world *w = world_create();
    uint32_t early = world_fault(w, (fault_spec){ .kind = FAULT_LINK_CUT, .target = 0 });
    uint32_t late = fault_add(w->run, &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .at_ns = 10 * SIM_NS_PER_MS,
                                                     .target = 1 });
    assert_false(fault_begun(w->run, early));
    world_run_to(w, W_AT_NS - 1);
    assert_false(fault_begun(w->run, early));
    world_run_to(w, W_AT_NS);
    assert_true(fault_begun(w->run, early));
    assert_int_equal(w->run->faults[early].begun_ns, W_AT_NS);
    world_run_to(w, W_AT_NS + W_FOR_NS);                            /* ended: still begun */
    assert_true(fault_begun(w->run, early));
    assert_false(fault_begun(w->run, late));                        /* the run stopped before it */
    sim_run_destroy(w->run);
}

/* A mixed workload: three actors gossip over jittery stream and RPC links
 * with a store, under every fault kind. */
static void gossip(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (run->now_ns > 50 * SIM_NS_PER_MS) return;
    uint32_t out = self->id * 2 + (uint32_t)sim_choose(run, &self->rng, SIM_CHOICE_PICK, 2);
    switch (ev->kind) {
    case SIM_EV_START:
    case SIM_EV_MSG:
    case SIM_EV_LINK_DOWN:
        link_send(run, out, &(sim_msg){ .type = 1, .a = ev->msg.a + 1 }, 500);
        if (ev->kind == SIM_EV_MSG && ev->msg.a % 7 == 0) dev_write(run, 0, self->id, 4096, ev->msg.a);
        if (ev->kind != SIM_EV_MSG) sim_timer_set(run, self->id, SIM_NS_PER_MS, 0);
        break;
    case SIM_EV_TIMER:
        link_send(run, out, &(sim_msg){ .type = 2 }, 100);
        sim_timer_set(run, self->id, SIM_NS_PER_MS, 0);
        break;
    default:
        break;
    }
}

/* What a fault observer saw: each step's fault, edge, time and target. */
typedef struct fault_seen {
    uint32_t count;
    struct { uint32_t id; bool begin; sim_time_ns at_ns; char target[64]; } steps[32];
} fault_seen;

static void see_fault(void *ctx, const sim_run *run, uint32_t id, bool begin) {
    fault_seen *w = ctx;
    assert_true(w->count < 32);
    w->steps[w->count].id = id;
    w->steps[w->count].begin = begin;
    w->steps[w->count].at_ns = run->now_ns;
    fault_target_text(run, id, w->steps[w->count].target, sizeof w->steps[w->count].target);
    w->count++;
}

/* Pauses on top of every other fault kind: a machine paused while an actor
 * on it is down, an actor paused across the store's slow and failing
 * windows (its completions wait), and a pause nested in it. */
static void gossip_pauses(sim_run *run) {
    sim_time_ns ms = SIM_NS_PER_MS;
    fault_add(run, &(fault_spec){ .kind = FAULT_MACHINE_PAUSE, .at_ns = 13 * ms, .duration_ns = 4 * ms, .target = 1 });
    fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_PAUSE, .at_ns = 37 * ms, .duration_ns = 6 * ms, .target = 2 });
    fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_PAUSE, .at_ns = 38 * ms, .duration_ns = 2 * ms, .target = 2 });
    fault_add(run, &(fault_spec){ .kind = FAULT_MACHINE_PAUSE, .at_ns = 44 * ms, .duration_ns = 3 * ms, .target = 0 });
}

static uint64_t deferred_;            /* stats.deferred_paused of the last gossip run */

static uint64_t gossip_run_full(uint64_t seed, uint64_t *dropped, fault_seen *seen, bool pauses) {
    sim_cfg c = test_cfg(seed);
    sim_run *run = sim_run_create(&c);
    if (seen != NULL) fault_observe(run, see_fault, seen);
    uint32_t m[3], a[3];
    for (int i = 0; i < 3; i++) {
        char name[8];
        snprintf(name, sizeof name, "m%d", i);
        m[i] = sim_machine_add(run, name);
        a[i] = sim_actor_add(run, name, m[i], gossip, NULL);
    }
    link_cfg s = { .kind = LINK_STREAM, .latency_ns = 50000, .jitter_ns = 40000, .bandwidth_bytes_per_s = 10000000 };
    link_cfg r = { .kind = LINK_RPC, .latency_ns = 80000, .jitter_ns = 60000 };
    for (uint32_t i = 0; i < 3; i++) {         /* link 2i: stream to next, 2i+1: rpc to previous */
        link_add(run, a[i], a[(i + 1) % 3], &s);
        link_add(run, a[i], a[(i + 2) % 3], &r);
    }
    dev_add(run, "store", &(dev_cfg){ .latency_ns = 300000, .bandwidth_bytes_per_s = 20000000 });
    sim_time_ns ms = SIM_NS_PER_MS;
    fault_add(run, &(fault_spec){ .kind = FAULT_PARTITION, .at_ns = 5 * ms, .duration_ns = 5 * ms,
                                  .machines_a = 1, .machines_b = 6 });
    fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .at_ns = 12 * ms, .duration_ns = 3 * ms, .target = a[1] });
    fault_add(run, &(fault_spec){ .kind = FAULT_MACHINE_CRASH, .at_ns = 20 * ms, .duration_ns = 4 * ms, .target = m[2] });
    fault_add(run, &(fault_spec){ .kind = FAULT_LINK_CUT, .at_ns = 26 * ms, .duration_ns = 2 * ms, .target = 0 });
    fault_add(run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 30 * ms, .duration_ns = 5 * ms, .target = 2, .delay_ns = ms });
    fault_add(run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 32 * ms, .duration_ns = 10 * ms, .target = 1, .ratio = { 1, 3 } });
    fault_add(run, &(fault_spec){ .kind = FAULT_DEV_SLOW, .at_ns = 36 * ms, .duration_ns = 5 * ms, .target = 0, .factor = 4 });
    fault_add(run, &(fault_spec){ .kind = FAULT_DEV_FAIL, .at_ns = 40 * ms, .duration_ns = 5 * ms, .target = 0, .ratio = { 1, 2 } });
    if (pauses) gossip_pauses(run);
    sim_run_start(run);
    assert_int_equal(sim_run_loop(run), SIM_STOP_IDLE);
    assert_int_equal(run->pause_load, 0);
    deferred_ = run->stats.deferred_paused;
    uint64_t h = run->trace_hash;
    *dropped = run->stats.dropped_down + run->stats.dropped_link + run->links[1].lost + run->devs[0].failed_writes;
    sim_run_destroy(run);
    return h;
}

static uint64_t gossip_run_seen(uint64_t seed, uint64_t *dropped, fault_seen *seen) {
    return gossip_run_full(seed, dropped, seen, false);
}

static uint64_t gossip_run(uint64_t seed, uint64_t *dropped) { return gossip_run_seen(seed, dropped, NULL); }

/* The observer sees every fault begin and end, at its time, with its
 * target named, and the run is the same run (the golden hash). */
static void test_fault_observer_sees_every_step_with_its_target_and_changes_nothing(void **state) {
    (void)state;
    static fault_seen seen;
    memset(&seen, 0, sizeof seen);
    uint64_t dropped;
    assert_int_equal(gossip_run_seen(11, &dropped, &seen), GOSSIP_GOLDEN_HASH);
    assert_int_equal(seen.count, 16);                  /* 8 windows: a begin and an end each */
    static const char *const targets[8] = { "m0|m1,m2", "m1", "m2", "m0->m1", "m1->m2", "m0->m2", "store", "store" };
    for (uint32_t id = 0; id < 8; id++) {
        uint32_t begins = 0, ends = 0;
        for (uint32_t i = 0; i < seen.count; i++) {
            if (seen.steps[i].id != id) continue;
            assert_string_equal(seen.steps[i].target, targets[id]);
            if (seen.steps[i].begin) begins++; else ends++;
        }
        assert_int_equal(begins, 1);
        assert_int_equal(ends, 1);
    }
    assert_true(seen.steps[0].begin && seen.steps[0].id == 0 && seen.steps[0].at_ns == 5 * SIM_NS_PER_MS);
    assert_true(!seen.steps[1].begin && seen.steps[1].id == 0 && seen.steps[1].at_ns == 10 * SIM_NS_PER_MS);
}

static void test_run_with_every_fault_kind_is_deterministic_per_seed(void **state) {
    (void)state;
    uint64_t d1, d2, d3;
    uint64_t h1 = gossip_run(11, &d1);
    uint64_t h2 = gossip_run(11, &d2);
    uint64_t h3 = gossip_run(12, &d3);
    assert_true(h1 == h2);
    /* Golden: recorded before faults recorded their beginning, which must
     * not change a run (it schedules and draws nothing). */
    assert_int_equal(h1, GOSSIP_GOLDEN_HASH);
    assert_int_equal(d1, d2);
    assert_true(h1 != h3);
    assert_true(d1 > 0);                       /* the faults did bite */
}

/* Pauses are as deterministic as the rest: the same seed gives the same
 * hash, the deferrals are in it (a paused run differs from the same run
 * without pauses), and a run without pauses keeps its golden hash. */
static void test_run_with_pauses_is_deterministic_per_seed(void **state) {
    (void)state;
    uint64_t d1, d2, d0;
    uint64_t h1 = gossip_run_full(11, &d1, NULL, true);
    uint64_t deferred = deferred_;
    uint64_t h2 = gossip_run_full(11, &d2, NULL, true);
    assert_true(h1 == h2);
    assert_int_equal(d1, d2);
    assert_int_equal(deferred_, deferred);
    assert_true(deferred > 10);                 /* the pauses did hold events */
    uint64_t h0 = gossip_run(11, &d0);
    assert_int_equal(deferred_, 0);
    assert_int_equal(h0, GOSSIP_GOLDEN_HASH);
    assert_true(h1 != h0);
    assert_true(gossip_run_full(12, &d2, NULL, true) != h1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_with_a_duration_restarts_the_target_when_it_ends),
        cmocka_unit_test(test_fault_injected_by_a_handler_applies_before_later_events),
        cmocka_unit_test(test_fault_crash_actor_downs_only_its_actor),
        cmocka_unit_test(test_fault_crash_machine_downs_only_its_machine_and_actors),
        cmocka_unit_test(test_fault_partition_cuts_and_heals_exactly_the_crossing_links),
        cmocka_unit_test(test_fault_partition_end_leaves_other_cuts_in_place),
        cmocka_unit_test(test_fault_cut_link_cuts_only_its_link),
        cmocka_unit_test(test_fault_delay_link_delays_only_its_link),
        cmocka_unit_test(test_fault_link_loss_loses_only_on_its_link),
        cmocka_unit_test(test_fault_dev_slow_slows_only_its_device),
        cmocka_unit_test(test_fault_dev_fail_fails_only_its_device),
        cmocka_unit_test(test_nested_windows_leave_the_outer_one_in_force_when_the_inner_ends),
        cmocka_unit_test(test_fault_begun_only_once_its_begin_event_ran),
        cmocka_unit_test(test_run_with_every_fault_kind_is_deterministic_per_seed),
        cmocka_unit_test(test_fault_observer_sees_every_step_with_its_target_and_changes_nothing),
        cmocka_unit_test(test_fault_machine_pause_pauses_every_actor_on_its_machine_and_no_other),
        cmocka_unit_test(test_fault_actor_pause_pauses_only_its_actor),
        cmocka_unit_test(test_pause_and_ambiguous_faults_are_named_targeted_and_settle_at_their_window_end),
        cmocka_unit_test(test_run_with_pauses_is_deterministic_per_seed),
    };
    return cmocka_run_group_tests_name("fault", tests, NULL, NULL);
}
