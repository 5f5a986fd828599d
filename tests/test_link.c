/* tests/test_link.c: link timing, FIFO under jitter, cuts, partitions,
 * connection breaks, delay spikes, RPC loss and duplicates. */
#include "harness.h"

static recorder log_;

typedef struct net {
    sim_run *run;
    uint32_t a, b, c;          /* a on m0, b on m1, c on m2 */
    uint32_t ab, ba, ac, rpc;  /* stream a->b, stream b->a, stream a->c, rpc a->b */
    uint32_t m0, m1, m2;
} net;

static void net_build(net *n, uint64_t seed, rec_ctx *ctx, const link_cfg *stream, const link_cfg *rpc) {
    sim_cfg c = test_cfg(seed);
    n->run = sim_run_create(&c);
    assert_non_null(n->run);
    n->m0 = sim_machine_add(n->run, "m0");
    n->m1 = sim_machine_add(n->run, "m1");
    n->m2 = sim_machine_add(n->run, "m2");
    n->a = sim_actor_add(n->run, "a", n->m0, rec_handler, ctx);
    n->b = sim_actor_add(n->run, "b", n->m1, rec_handler, ctx);
    n->c = sim_actor_add(n->run, "c", n->m2, rec_handler, ctx);
    n->ab = link_add(n->run, n->a, n->b, stream);
    n->ba = link_add(n->run, n->b, n->a, stream);
    n->ac = link_add(n->run, n->a, n->c, stream);
    n->rpc = link_add(n->run, n->a, n->b, rpc);
}

static const link_cfg plain_stream = { .kind = LINK_STREAM, .latency_ns = 1000 };
static const link_cfg plain_rpc = { .kind = LINK_RPC, .latency_ns = 1000 };

/* Every START of `a` sends `burst` messages on link ab; a's timers send more. */
static uint32_t burst_;
static uint32_t burst_link_;
static void burst_hook(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (self->id != 0) return;
    if (ev->kind == SIM_EV_START) {
        for (uint32_t i = 0; i < burst_; i++) {
            sim_timer_set(run, self->id, (sim_time_ns)i * 100, i);
        }
    } else if (ev->kind == SIM_EV_TIMER) {
        link_send(run, burst_link_, &(sim_msg){ .type = 1, .a = ev->msg.a }, 100);
    }
}

static void test_link_keeps_fifo_order_under_heavy_jitter(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        log_.count = 0;
        burst_ = 2000;
        burst_link_ = 0;
        rec_ctx ctx = { .log = &log_, .hook = burst_hook };
        /* Jitter is 500x the gap between sends: without the FIFO floor
         * almost every message would overtake others. */
        link_cfg jittery = { .kind = LINK_STREAM, .latency_ns = 1000, .jitter_ns = 50000 };
        net n;
        net_build(&n, seed, &ctx, &jittery, &plain_rpc);
        sim_run_start(n.run);
        sim_run_loop(n.run);
        uint64_t expect = 0;
        sim_time_ns last = 0;
        bool some_jitter = false;
        for (uint32_t i = 0; i < log_.count; i++) {
            const rec *r = &log_.items[i];
            if (r->kind != SIM_EV_MSG) continue;
            if (r->msg.a != expect) print_error("seed=0x%llx\n", (unsigned long long)seed);
            assert_int_equal(r->msg.a, expect);
            assert_true(r->at_ns >= last);
            sim_time_ns sent = r->msg.a * 100;
            assert_true(r->at_ns >= sent + 1000);
            if (r->at_ns > sent + 1000) some_jitter = true;
            last = r->at_ns;
            expect++;
        }
        assert_int_equal(expect, 2000);
        assert_true(some_jitter);
        sim_run_destroy(n.run);
    }
}

static void test_link_bandwidth_serialises_messages(void **state) {
    (void)state;
    log_.count = 0;
    burst_ = 1;
    burst_link_ = 0;
    rec_ctx ctx = { .log = &log_ };
    link_cfg slow = { .kind = LINK_STREAM, .latency_ns = 5000, .bandwidth_bytes_per_s = 1000000 };
    net n;
    net_build(&n, 1, &ctx, &slow, &plain_rpc);
    sim_run_start(n.run);
    sim_step(n.run);                           /* a's START, now = 0 */
    /* 1000 bytes at 1 MB/s take 1 ms on the wire; the second waits for the first. */
    link_send(n.run, n.ab, &(sim_msg){ .a = 1 }, 1000);
    link_send(n.run, n.ab, &(sim_msg){ .a = 2 }, 1000);
    link_send(n.run, n.ab, &(sim_msg){ .a = 3 }, 0);
    sim_run_loop(n.run);
    sim_time_ns at[4] = { 0 };
    for (uint32_t i = 0; i < log_.count; i++) {
        if (log_.items[i].kind == SIM_EV_MSG) at[log_.items[i].msg.a] = log_.items[i].at_ns;
    }
    assert_int_equal(at[1], 1000000 + 5000);
    assert_int_equal(at[2], 2000000 + 5000);
    assert_int_equal(at[3], 2000000 + 5000);   /* empty message: behind the others */
    assert_int_equal(n.run->links[n.ab].bytes_sent, 2000);
    sim_run_destroy(n.run);
}

static void test_link_cut_drops_in_flight_and_new_messages_and_notifies_both_ends(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_ };
    net n;
    net_build(&n, 1, &ctx, &plain_stream, &plain_rpc);
    sim_run_start(n.run);
    for (int i = 0; i < 3; i++) sim_step(n.run);   /* the three STARTs */
    assert_true(link_send(n.run, n.ab, &(sim_msg){ .a = 1 }, 10));
    link_cut(n.run, n.ab);
    assert_false(link_is_up(n.run, n.ab));
    assert_false(link_send(n.run, n.ab, &(sim_msg){ .a = 2 }, 10));
    sim_run_loop(n.run);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_MSG), 0);
    assert_int_equal(rec_count(&log_, n.a, SIM_EV_LINK_DOWN), 1);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_LINK_DOWN), 1);
    const sim_link *l = &n.run->links[n.ab];
    assert_int_equal(l->dropped_in_flight, 1);
    assert_int_equal(l->dropped_cut, 1);
    link_heal(n.run, n.ab);
    assert_true(link_is_up(n.run, n.ab));
    assert_true(link_send(n.run, n.ab, &(sim_msg){ .a = 3 }, 10));
    sim_run_loop(n.run);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_MSG), 1);
    sim_run_destroy(n.run);
}

/* Closing a connection (a JobManager disconnecting a TaskManager it
 * declared lost) drops what is in flight and tells both ends, and the
 * link is usable at once: no cut is left behind. */
static void test_link_close_drops_in_flight_tells_both_ends_and_leaves_the_link_up(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_ };
    net n;
    net_build(&n, 1, &ctx, &plain_stream, &plain_rpc);
    sim_run_start(n.run);
    for (int i = 0; i < 3; i++) sim_step(n.run);   /* the three STARTs */
    assert_true(link_send(n.run, n.ab, &(sim_msg){ .a = 1 }, 10));
    uint32_t gen = n.run->links[n.ab].gen;
    link_close(n.run, n.ab);
    assert_int_equal(n.run->links[n.ab].gen, gen + 1);
    assert_true(link_is_up(n.run, n.ab));
    assert_true(link_send(n.run, n.ab, &(sim_msg){ .a = 2 }, 10));   /* a new connection */
    sim_run_loop(n.run);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_MSG), 1);
    assert_int_equal(rec_count(&log_, n.a, SIM_EV_LINK_DOWN), 1);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_LINK_DOWN), 1);
    assert_int_equal(n.run->links[n.ab].dropped_in_flight, 1);
    sim_run_destroy(n.run);
}

static void sender_every_100(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (self->id != 0) return;
    if (ev->kind == SIM_EV_START) {
        sim_timer_set(run, self->id, 100, 0);
    } else if (ev->kind == SIM_EV_TIMER && run->now_ns < 10000) {
        link_send(run, 0, &(sim_msg){ .a = run->now_ns }, 10);   /* a->b, crosses */
        link_send(run, 2, &(sim_msg){ .a = run->now_ns }, 10);   /* a->c, does not */
        sim_timer_set(run, self->id, 100, 0);
    }
}

static void test_partition_cuts_only_links_between_the_sets_for_its_duration(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = sender_every_100 };
    net n;
    net_build(&n, 1, &ctx, &plain_stream, &plain_rpc);
    /* {m0, m2} | {m1} from 2000 to 5000: a->b and b->a are cut, a->c is not. */
    fault_add(n.run, &(fault_spec){ .kind = FAULT_PARTITION, .at_ns = 2000, .duration_ns = 3000,
                                    .machines_a = (1u << n.m0) | (1u << n.m2),
                                    .machines_b = 1u << n.m1 });
    sim_run_start(n.run);
    sim_run_loop(n.run);
    uint32_t to_b = 0, to_c = 0;
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_MSG) continue;
        if (r->actor == n.b) {
            to_b++;
            /* sent before the cut and arrived before it, or sent after the heal */
            assert_true((r->msg.a < 1000 + 1) || r->msg.a >= 5000);
            assert_true(r->at_ns < 2000 || r->at_ns >= 6000);
        } else {
            to_c++;
        }
    }
    assert_int_equal(to_c, 99);                /* sends at 100 .. 9900 */
    assert_int_equal(to_b, 99 - 30 - 10);      /* 30 sent while cut, 10 lost in flight */
    assert_int_equal(n.run->links[n.ab].dropped_cut, 30);
    assert_int_equal(n.run->links[n.ab].dropped_in_flight, 10);
    assert_int_equal(n.run->links[n.ac].dropped_cut, 0);
    assert_int_equal(n.run->faults[0].links_cut, 3);   /* ab, ba and the rpc link */
    assert_true(link_is_up(n.run, n.ab) && link_is_up(n.run, n.ba) && link_is_up(n.run, n.rpc));
    sim_run_destroy(n.run);
}

static void test_overlapping_partitions_heal_only_when_both_end(void **state) {
    (void)state;
    rec_ctx ctx = { .log = &log_ };
    net n;
    net_build(&n, 1, &ctx, &plain_stream, &plain_rpc);
    uint64_t m0 = 1u << n.m0, m1 = 1u << n.m1;
    fault_add(n.run, &(fault_spec){ .kind = FAULT_PARTITION, .at_ns = 100, .duration_ns = 1000,
                                    .machines_a = m0, .machines_b = m1 });
    fault_add(n.run, &(fault_spec){ .kind = FAULT_PARTITION, .at_ns = 500, .duration_ns = 1000,
                                    .machines_a = m1, .machines_b = m0 | (1u << n.m2) });
    sim_run_start(n.run);
    n.run->cfg.time_max_ns = 1200;
    sim_run_loop(n.run);
    assert_false(link_is_up(n.run, n.ab));     /* first ended, second still holds */
    n.run->cfg.time_max_ns = 2000;
    sim_run_loop(n.run);
    assert_true(link_is_up(n.run, n.ab));
    assert_int_equal(n.run->links[n.ab].cut_count, 0);
    sim_run_destroy(n.run);
}

static void test_endpoint_crash_breaks_stream_links_but_rpc_in_flight_survives(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_ };
    net n;
    net_build(&n, 1, &ctx, &plain_stream, &plain_rpc);
    sim_run_start(n.run);
    for (int i = 0; i < 3; i++) sim_step(n.run);
    link_send(n.run, n.ab, &(sim_msg){ .a = 1 }, 10);
    link_send(n.run, n.rpc, &(sim_msg){ .a = 2 }, 10);
    sim_actor_crash(n.run, n.a);               /* the sender dies */
    sim_run_loop(n.run);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_MSG), 1);   /* only the RPC */
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_LINK_DOWN), 2);  /* ab and ba broke */
    assert_int_equal(rec_count(&log_, n.c, SIM_EV_LINK_DOWN), 1);  /* ac broke */
    assert_int_equal(rec_count(&log_, n.a, SIM_EV_LINK_DOWN), 0);  /* a is down */
    const rec *last = NULL;
    for (uint32_t i = 0; i < log_.count; i++) {
        if (log_.items[i].kind == SIM_EV_MSG) last = &log_.items[i];
    }
    assert_int_equal(last->msg.a, 2);
    assert_int_equal(last->msg.src, n.a);
    sim_run_destroy(n.run);
}

static void test_delay_spike_adds_latency_only_during_its_window(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = sender_every_100 };
    net n;
    net_build(&n, 1, &ctx, &plain_stream, &plain_rpc);
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 3000, .duration_ns = 2000,
                                    .target = n.ab, .delay_ns = 7000 });
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 4000, .duration_ns = 2000,
                                    .target = n.ab, .delay_ns = 1000 });
    sim_run_start(n.run);
    sim_run_loop(n.run);
    sim_time_ns prev = 0;
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_MSG || r->actor != n.b) continue;
        sim_time_ns sent = r->msg.a, extra = 0;
        if (sent >= 3000 && sent < 5000) extra += 7000;
        if (sent >= 4000 && sent < 6000) extra += 1000;
        sim_time_ns expect = sent + 1000 + extra;
        if (expect < prev) expect = prev;      /* FIFO floor behind the spike */
        assert_int_equal(r->at_ns, expect);
        prev = r->at_ns;
    }
    assert_int_equal(n.run->links[n.ab].spike_ns, 0);
    sim_run_destroy(n.run);
}

static void rpc_sender(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (self->id != 0) return;
    if (ev->kind == SIM_EV_START) sim_timer_set(run, self->id, 10, 0);
    if (ev->kind == SIM_EV_TIMER && ev->msg.a < 20000) {
        link_send(run, 3, &(sim_msg){ .a = ev->msg.a }, 10);
        sim_timer_set(run, self->id, 10, ev->msg.a + 1);
    }
}

static void test_rpc_loss_loses_the_requested_fraction_only_in_its_window(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = rpc_sender };
    net n;
    net_build(&n, 7, &ctx, &plain_stream, &plain_rpc);
    /* Sends every 10 ns for 200 us; 30% loss for the middle 100 us. */
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 50000, .duration_ns = 100000,
                                    .target = n.rpc, .ratio = { 3, 10 } });
    sim_run_start(n.run);
    sim_run_loop(n.run);
    const sim_link *l = &n.run->links[n.rpc];
    assert_true(l->lost > 2700 && l->lost < 3300);           /* 10000 sends in window */
    assert_int_equal(l->lost + rec_count(&log_, n.b, SIM_EV_MSG), 20000);
    assert_int_equal(l->loss.num, 0);
    sim_run_destroy(n.run);
}

/* ---- typed windows --------------------------------------------------------
 *
 * a sends on the RPC link every 10 ns for 200 us, message i of type
 * i % 5 + 1 (types 1 to 5), tagged with its send time. */
static void typed_sender(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (self->id != 0) return;
    if (ev->kind == SIM_EV_START) sim_timer_set(run, self->id, 10, 0);
    if (ev->kind == SIM_EV_TIMER && ev->msg.a < 20000) {
        link_send(run, 3, &(sim_msg){ .type = (uint32_t)(ev->msg.a % 5) + 1, .a = run->now_ns }, 10);
        sim_timer_set(run, self->id, 10, ev->msg.a + 1);
    }
}

/* A delay of 100 us on the RPC link for its first 50 us, a send every
 * 10 ns: 5,000 would be in flight at once. Past SIM_RPC_LINK_HELD_MAX
 * they are lost at sending, the others arrive in order; as they arrive
 * the bound frees: of the sends after the last of them arrived (150 us,
 * FIFO holds the sends between behind it), none is lost. */
static void test_rpc_messages_a_delay_holds_past_the_link_bound_are_lost_and_the_bound_frees_as_they_arrive(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = typed_sender };
    net n;
    net_build(&n, 7, &ctx, &plain_stream, &plain_rpc);
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 0, .duration_ns = 50000,
                                    .target = n.rpc, .delay_ns = 100000 });
    sim_run_start(n.run);
    sim_run_loop(n.run);
    const sim_link *l = &n.run->links[n.rpc];
    uint32_t got = rec_count(&log_, n.b, SIM_EV_MSG);
    assert_int_equal(l->lost_held + got, 20000);
    assert_int_equal(n.run->stats.lost_held, l->lost_held);
    assert_true(l->lost_held >= 5000 - SIM_RPC_LINK_HELD_MAX);   /* none arrives before 100 us */
    assert_int_equal(n.run->rpc_held, 0);
    sim_time_ns last_sent = 0;
    uint32_t after = 0;                                      /* sent at 151 us or later: none lost */
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_MSG || r->actor != n.b) continue;
        assert_true(r->msg.a > last_sent || last_sent == 0);   /* in order */
        last_sent = r->msg.a;
        after += r->msg.a >= 151000;
    }
    assert_int_equal(after, 4901);                          /* sends at 151.00 us, 151.01 us, ..., 200 us */
    sim_run_destroy(n.run);
}

/* Without a delay nothing is held, however many messages are on their
 * way: a link of 1 ms latency, a send every 10 ns for 200 us, all 20,000
 * in flight at once, none held, none lost. */
static void test_a_link_without_delays_holds_nothing_however_many_messages_are_on_their_way(void **state) {
    (void)state;
    log_.count = 0;
    rec_ctx ctx = { .log = &log_, .hook = typed_sender };
    net n;
    link_cfg slow = { .kind = LINK_RPC, .latency_ns = SIM_NS_PER_MS, .jitter_ns = 500 };
    net_build(&n, 9, &ctx, &plain_stream, &slow);
    sim_run_start(n.run);
    while (n.run->now_ns < 200001 && sim_step(n.run)) assert_int_equal(n.run->rpc_held, 0);
    assert_int_equal(n.run->links[n.rpc].sent, 20000);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_MSG), 0);  /* all on their way */
    sim_run_loop(n.run);
    assert_int_equal(n.run->links[n.rpc].lost_held, 0);
    assert_int_equal(rec_count(&log_, n.b, SIM_EV_MSG), 20000);
    sim_run_destroy(n.run);
}

/* Twenty RPC links from a to b, all delayed by 1 ms for their first
 * 100 us, and a sends on them in turn every 10 ns: each link would hold
 * 500 at once. The run holds no more than SIM_RPC_HELD_MAX (less than
 * 20 links' SIM_RPC_LINK_HELD_MAX), no link more than its own bound,
 * and every message is delivered or lost. */
#define FAN_LINKS 20u
static uint32_t fan_max_link_, fan_max_run_;

static void fan_sender(sim_run *run, sim_actor *self, const sim_event *ev) {
    if (self->id != 0) return;
    if (ev->kind == SIM_EV_START) sim_timer_set(run, self->id, 10, 0);
    if (ev->kind == SIM_EV_TIMER && ev->msg.a < 10000) {
        link_send(run, (uint32_t)(ev->msg.a % FAN_LINKS), &(sim_msg){ .a = ev->msg.a }, 10);
        for (uint32_t i = 0; i < FAN_LINKS; i++) {
            if (run->links[i].held > fan_max_link_) fan_max_link_ = run->links[i].held;
        }
        if (run->rpc_held > fan_max_run_) fan_max_run_ = run->rpc_held;
        sim_timer_set(run, self->id, 10, ev->msg.a + 1);
    }
}

static void test_one_link_and_the_whole_run_hold_at_most_their_bounds_of_delayed_rpc_messages(void **state) {
    (void)state;
    log_.count = 0;
    fan_max_link_ = fan_max_run_ = 0;
    rec_ctx ctx = { .log = &log_, .hook = fan_sender };
    sim_cfg c = test_cfg(3);
    sim_run *run = sim_run_create(&c);
    assert_non_null(run);
    uint32_t m = sim_machine_add(run, "m");
    uint32_t a = sim_actor_add(run, "a", m, rec_handler, &ctx), b = sim_actor_add(run, "b", m, rec_handler, &ctx);
    for (uint32_t i = 0; i < FAN_LINKS; i++) {
        assert_int_equal(link_add(run, a, b, &plain_rpc), i);
        fault_add(run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 0, .duration_ns = 100000, .target = i,
                                      .delay_ns = SIM_NS_PER_MS });
    }
    sim_run_start(run);
    sim_run_loop(run);
    assert_true(fan_max_link_ <= SIM_RPC_LINK_HELD_MAX);
    assert_int_equal(fan_max_run_, SIM_RPC_HELD_MAX);     /* reached first: 20 x 256 is more */
    uint64_t lost = 0;
    for (uint32_t i = 0; i < FAN_LINKS; i++) {
        lost += run->links[i].lost_held;
        assert_int_equal(run->links[i].held, 0);
    }
    assert_int_equal(lost, run->stats.lost_held);
    assert_int_equal(lost + rec_count(&log_, b, SIM_EV_MSG), 10000);
    assert_int_equal(run->rpc_held, 0);
    sim_run_destroy(run);
}

/* Received at b by type (index 1..5), for sends inside [50 us, 150 us) and
 * outside it. */
typedef struct by_type {
    uint32_t in[6], out[6];
} by_type;

static by_type typed_received(void) {
    by_type t = { { 0 }, { 0 } };
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_MSG || r->actor != 1) continue;
        assert_true(r->msg.type >= 1 && r->msg.type <= 5);
        if (r->msg.a >= 50000 && r->msg.a < 150000) t.in[r->msg.type]++; else t.out[r->msg.type]++;
    }
    return t;
}

static net typed_net(uint64_t seed, rec_ctx *ctx) {
    log_.count = 0;
    *ctx = (rec_ctx){ .log = &log_, .hook = typed_sender };
    net n;
    net_build(&n, seed, ctx, &plain_stream, &plain_rpc);
    return n;
}

/* A loss window over [50 us, 150 us) on the RPC link; type 0: untyped. */
static uint32_t add_loss(const net *n, uint32_t type, sim_ratio r) {
    return fault_add(n->run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 50000, .duration_ns = 100000,
                                            .target = n->rpc, .ratio = r, .msg_type = type });
}

/* 2000 sends of each type fall inside the window (10000 in all). */
static void test_typed_loss_loses_only_messages_of_its_type(void **state) {
    (void)state;
    rec_ctx ctx;
    net n = typed_net(7, &ctx);
    add_loss(&n, 3, SIM_RATIO_ALWAYS);
    sim_run_start(n.run);
    n.run->cfg.time_max_ns = 100000;
    sim_run_loop(n.run);
    assert_int_equal(n.run->links[n.rpc].loss.num, 0);       /* untyped traffic sees no loss */
    assert_int_equal(n.run->links[n.rpc].typed, 1);
    n.run->cfg.time_max_ns = 1000ull * SIM_NS_PER_S;
    sim_run_loop(n.run);
    by_type t = typed_received();
    for (uint32_t k = 1; k <= 5; k++) {
        assert_int_equal(t.in[k], k == 3 ? 0 : 2000);
        assert_int_equal(t.out[k], 2000);
    }
    const sim_link *l = &n.run->links[n.rpc];
    assert_int_equal(l->lost, 2000);
    assert_int_equal(l->typed + l->faulted + n.run->typed_count, 0);   /* closed: the table is empty */
    sim_run_destroy(n.run);
}

/* Type 3 at 100% and type 5 at 50% at once, on one link, each from its own
 * stream: the others are untouched; then a weaker type-5 window nested in
 * the 50% one changes nothing (the strongest of a type governs). */
static void test_two_typed_loss_windows_on_one_link_act_independently(void **state) {
    (void)state;
    rec_ctx ctx;
    net n = typed_net(7, &ctx);
    add_loss(&n, 3, SIM_RATIO_ALWAYS);
    add_loss(&n, 5, (sim_ratio){ 1, 2 });
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 60000, .duration_ns = 50000, .target = n.rpc,
                                    .ratio = { 1, 100 }, .msg_type = 5 });
    sim_run_start(n.run);
    sim_run_loop(n.run);
    by_type t = typed_received();
    for (uint32_t k = 1; k <= 5; k++) assert_int_equal(t.out[k], 2000);
    assert_int_equal(t.in[1] + t.in[2] + t.in[4], 3 * 2000);
    assert_int_equal(t.in[3], 0);
    assert_true(t.in[5] > 850 && t.in[5] < 1150);          /* half of 2000, give or take 3 sigma */
    assert_int_equal(n.run->links[n.rpc].lost, 2000 + (2000 - t.in[5]));
    assert_int_equal(n.run->typed_count, 0);
    sim_run_destroy(n.run);
}

/* An untyped window loses every type as before (the same draws: the golden
 * hash of test_fault's gossip run covers that); with a typed window open
 * too, a message of that type is lost by the strongest of the two. */
static void test_untyped_loss_acts_on_every_type_and_the_strongest_applicable_window_governs(void **state) {
    (void)state;
    rec_ctx ctx;
    net n = typed_net(7, &ctx);
    add_loss(&n, 0, (sim_ratio){ 3, 10 });
    add_loss(&n, 2, SIM_RATIO_ALWAYS);
    add_loss(&n, 4, SIM_RATIO_NEVER);   /* weaker: the untyped one governs */
    sim_run_start(n.run);
    sim_run_loop(n.run);
    by_type t = typed_received();
    assert_int_equal(t.in[2], 0);
    for (uint32_t k = 1; k <= 5; k++) {
        assert_int_equal(t.out[k], 2000);
        if (k != 2) assert_true(t.in[k] > 1200 && t.in[k] < 1600);   /* 70% of 2000 */
    }
    assert_int_equal(n.run->links[n.rpc].loss_fault, UINT32_MAX);
    sim_run_destroy(n.run);
}

/* A typed delay adds to messages of its type only; the link stays FIFO,
 * so a message sent right behind a delayed one waits for it. */
static void test_typed_delay_delays_only_its_type_and_the_link_stays_fifo(void **state) {
    (void)state;
    rec_ctx ctx;
    net n = typed_net(7, &ctx);
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 50000, .duration_ns = 100000, .target = n.rpc,
                                    .delay_ns = 35, .msg_type = 4 });
    sim_run_start(n.run);
    sim_run_loop(n.run);
    sim_time_ns prev = 0;
    uint32_t delayed = 0;
    for (uint32_t i = 0; i < log_.count; i++) {
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_MSG || r->actor != n.b) continue;
        bool in = r->msg.a >= 50000 && r->msg.a < 150000;
        sim_time_ns expect = r->msg.a + 1000 + (in && r->msg.type == 4 ? 35 : 0);
        if (expect < prev) expect = prev;                    /* behind a delayed one */
        assert_int_equal(r->at_ns, expect);
        delayed += r->at_ns > r->msg.a + 1000;
        prev = r->at_ns;
    }
    assert_int_equal(delayed, 2000 * 4);                     /* each type-4 message and the 3 sent behind it */
    assert_int_equal(n.run->links[n.rpc].spike_ns, 0);
    assert_int_equal(n.run->typed_count, 0);
    /* Settled when the last message sent inside the window arrived. */
    assert_true(fault_settled(n.run, 0) > 150000 && fault_settled(n.run, 0) <= 150000 + 1000 + 35);
    sim_run_destroy(n.run);
}

/* A pause of either end leaves the connection up: a paused receiver gets
 * what arrived meanwhile at the window's end, in order, a paused sender
 * sends late; no LINK_DOWN, nothing dropped, even under heavy jitter. */
static void test_pause_of_either_end_keeps_the_stream_up_and_fifo(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        log_.count = 0;
        burst_ = 2000;
        burst_link_ = 0;
        rec_ctx ctx = { .log = &log_, .hook = burst_hook };
        link_cfg jittery = { .kind = LINK_STREAM, .latency_ns = 1000, .jitter_ns = 50000 };
        net n;
        net_build(&n, seed, &ctx, &jittery, &plain_rpc);
        fault_add(n.run, &(fault_spec){ .kind = FAULT_ACTOR_PAUSE, .at_ns = 30000, .duration_ns = 60000,
                                        .target = n.b });
        fault_add(n.run, &(fault_spec){ .kind = FAULT_MACHINE_PAUSE, .at_ns = 120000, .duration_ns = 30000,
                                        .target = n.m0 });
        sim_run_start(n.run);
        sim_run_loop(n.run);
        uint64_t expect = 0;
        sim_time_ns last = 0;
        uint32_t at_end = 0;
        for (uint32_t i = 0; i < log_.count; i++) {
            const rec *r = &log_.items[i];
            assert_int_not_equal(r->kind, SIM_EV_LINK_DOWN);
            if (r->kind != SIM_EV_MSG) continue;
            assert_int_equal(r->msg.a, expect);
            assert_true(r->at_ns >= last);
            assert_false(r->at_ns >= 30000 && r->at_ns < 90000);   /* b handled nothing inside its window */
            at_end += r->at_ns == 90000;
            last = r->at_ns;
            expect++;
        }
        assert_int_equal(expect, 2000);
        assert_true(at_end > 100);
        const sim_link *l = &n.run->links[n.ab];
        assert_int_equal(l->breaks + l->dropped_in_flight + l->gen, 0);
        assert_true(n.run->stats.deferred_paused > 100);
        sim_run_destroy(n.run);
    }
}

/* Payloads: the receiver gets the bytes as they were when sent (the
 * sender's buffer may change after), a slot is free again once its
 * message was delivered or dropped in flight, and a message dropped at
 * once takes none. */
static uint32_t got_[64];
static uint32_t got_count_;
static void payload_handler(sim_run *run, sim_actor *self, const sim_event *ev) {
    (void)self;
    if (ev->kind != SIM_EV_MSG) return;
    const uint32_t *v = sim_payload(run, ev);
    assert_non_null(v);
    assert_int_equal((uintptr_t)v % 16, 0);         /* slots are rounded up: payloads stay aligned */
    assert_int_equal(v[0], ev->msg.a);              /* the payload travelled with its message */
    assert_int_equal(v[1], ev->msg.a * 3);
    got_[got_count_++] = v[2];
}

static void test_payloads_travel_with_their_message_and_their_slots_come_back(void **state) {
    (void)state;
    sim_cfg c = test_cfg(5);
    c.payloads_max = 4;
    c.payload_bytes = 12;                            /* three words: not a multiple of the slots' alignment */
    sim_run *run = sim_run_create(&c);
    uint32_t m0 = sim_machine_add(run, "m0"), m1 = sim_machine_add(run, "m1");
    uint32_t a = sim_actor_add(run, "a", m0, payload_handler, NULL);
    uint32_t b = sim_actor_add(run, "b", m1, payload_handler, NULL);
    uint32_t l = link_add(run, a, b, &(link_cfg){ .kind = LINK_RPC, .latency_ns = 1000 });
    sim_run_start(run);
    sim_run_loop(run);
    got_count_ = 0;
    for (uint64_t round = 0; round < 5; round++) {   /* 20 payloads through 4 slots */
        for (uint64_t i = 0; i < 4; i++) {
            uint32_t id = (uint32_t)(round * 4 + i), buf[3] = { id, id * 3, id * 5 };
            assert_true(link_send_payload(run, l, &(sim_msg){ .type = 1, .a = id }, 64, buf, sizeof buf));
            buf[2] = 999;                            /* the sender's buffer is its own again */
        }
        assert_int_equal(run->payload_free_count, 0);
        sim_run_loop(run);
        assert_int_equal(run->payload_free_count, 4);
    }
    assert_int_equal(got_count_, 20);
    for (uint32_t i = 0; i < 20; i++) assert_int_equal(got_[i], i * 5);
    uint32_t buf[3] = { 7, 21, 35 };
    link_cut(run, l);                                /* dropped at once: no slot taken */
    assert_false(link_send_payload(run, l, &(sim_msg){ .type = 1, .a = 7 }, 64, buf, sizeof buf));
    assert_int_equal(run->payload_free_count, 4);
    link_heal(run, l);
    assert_true(link_send_payload(run, l, &(sim_msg){ .type = 1, .a = 7 }, 64, buf, sizeof buf));
    sim_actor_crash(run, b);                         /* dropped at the dead receiver: the slot comes back */
    assert_int_equal(run->payload_free_count, 3);
    sim_run_loop(run);
    assert_int_equal(run->payload_free_count, 4);
    assert_int_equal(got_count_, 20);
    sim_run_destroy(run);
}

/* ---- duplicates ------------------------------------------------------------ */

/* A duplicate window of type 3 at 100% and an untyped one at 50%: inside
 * [50 us, 150 us) every type-3 message arrives twice, the others about
 * half the times; each copy right behind its original (the log at b, in
 * arrival order, never goes back in send time); outside the window all
 * arrive once. A window at 100% loss of type 5 nested inside: a lost
 * message is not duplicated. */
static void test_duplicate_windows_deliver_twice_right_behind_and_never_a_lost_message(void **state) {
    (void)state;
    rec_ctx ctx;
    net n = typed_net(7, &ctx);
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_DUP, .at_ns = 50000, .duration_ns = 100000,
                                    .target = n.rpc, .ratio = SIM_RATIO_ALWAYS, .msg_type = 3 });
    fault_add(n.run, &(fault_spec){ .kind = FAULT_LINK_DUP, .at_ns = 50000, .duration_ns = 100000,
                                    .target = n.rpc, .ratio = { 1, 2 } });
    add_loss(&n, 5, SIM_RATIO_ALWAYS);
    sim_run_start(n.run);
    sim_run_loop(n.run);
    by_type t = typed_received();
    assert_int_equal(t.in[3], 4000);                 /* 2000 sends, each twice */
    assert_int_equal(t.in[5], 0);                    /* lost, so never duplicated */
    for (uint32_t k = 1; k <= 5; k++) assert_int_equal(t.out[k], 2000);
    for (uint32_t k = 1; k <= 4; k++) {
        if (k == 3) continue;
        assert_true(t.in[k] > 2000 + 850 && t.in[k] < 2000 + 1150);   /* half of 2000 copied */
    }
    uint64_t last = 0, copies = 0;
    for (uint32_t i = 0; i < log_.count; i++) {      /* FIFO: a copy comes right after its original */
        const rec *r = &log_.items[i];
        if (r->kind != SIM_EV_MSG || r->actor != 1) continue;
        assert_true(r->msg.a >= last);
        copies += r->msg.a == last;
        last = r->msg.a;
    }
    const sim_link *l = &n.run->links[n.rpc];
    assert_int_equal(copies, l->duplicated);
    assert_int_equal(l->dup_skipped, 0);
    assert_int_equal(l->typed + l->faulted + n.run->typed_count, 0);   /* closed: the table is empty */
    sim_run_destroy(n.run);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_keeps_fifo_order_under_heavy_jitter),
        cmocka_unit_test(test_payloads_travel_with_their_message_and_their_slots_come_back),
        cmocka_unit_test(test_link_bandwidth_serialises_messages),
        cmocka_unit_test(test_link_cut_drops_in_flight_and_new_messages_and_notifies_both_ends),
        cmocka_unit_test(test_link_close_drops_in_flight_tells_both_ends_and_leaves_the_link_up),
        cmocka_unit_test(test_partition_cuts_only_links_between_the_sets_for_its_duration),
        cmocka_unit_test(test_overlapping_partitions_heal_only_when_both_end),
        cmocka_unit_test(test_endpoint_crash_breaks_stream_links_but_rpc_in_flight_survives),
        cmocka_unit_test(test_delay_spike_adds_latency_only_during_its_window),
        cmocka_unit_test(test_rpc_loss_loses_the_requested_fraction_only_in_its_window),
        cmocka_unit_test(test_rpc_messages_a_delay_holds_past_the_link_bound_are_lost_and_the_bound_frees_as_they_arrive),
        cmocka_unit_test(test_one_link_and_the_whole_run_hold_at_most_their_bounds_of_delayed_rpc_messages),
        cmocka_unit_test(test_a_link_without_delays_holds_nothing_however_many_messages_are_on_their_way),
        cmocka_unit_test(test_typed_loss_loses_only_messages_of_its_type),
        cmocka_unit_test(test_two_typed_loss_windows_on_one_link_act_independently),
        cmocka_unit_test(test_untyped_loss_acts_on_every_type_and_the_strongest_applicable_window_governs),
        cmocka_unit_test(test_typed_delay_delays_only_its_type_and_the_link_stays_fifo),
        cmocka_unit_test(test_pause_of_either_end_keeps_the_stream_up_and_fifo),
        cmocka_unit_test(test_duplicate_windows_deliver_twice_right_behind_and_never_a_lost_message),
    };
    return cmocka_run_group_tests_name("link", tests, NULL, NULL);
}
