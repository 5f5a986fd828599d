/* tests/test_evq.c: the event queue's order, tie-breaking and bounds,
 * checked against a sorted reference. */
#include "harness.h"

#include <stdlib.h>

#include "../sim/evq.h"
#include "../sim/rng.h"

typedef struct ref_ev {
    sim_time_ns at_ns;
    uint64_t    seq;
} ref_ev;

static int ref_cmp(const void *pa, const void *pb) {
    const ref_ev *a = pa, *b = pb;
    if (a->at_ns != b->at_ns) return a->at_ns < b->at_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

static void test_evq_pops_equal_times_in_push_order(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 1 << 20));
    evq q;
    evq_init(&q, &a, 1000);
    for (uint32_t i = 0; i < 1000; i++) {
        sim_event *ev = evq_push(&q, 5 + (i % 2));   /* two interleaved times */
        ev->aux = i;
    }
    sim_time_ns t;
    sim_event ev;
    uint32_t expect_odd = 1, expect_even = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        assert_true(evq_pop(&q, &t, &ev));
        if (i < 500) {
            assert_int_equal(t, 5);
            assert_int_equal(ev.aux, expect_even);
            expect_even += 2;
        } else {
            assert_int_equal(t, 6);
            assert_int_equal(ev.aux, expect_odd);
            expect_odd += 2;
        }
    }
    assert_false(evq_pop(&q, &t, &ev));
    arena_destroy(&a);
}

/* Random interleavings of pushes and pops agree with a reference that sorts
 * by (time, push number), over many seeds and heap sizes. */
static void test_evq_matches_sorted_reference_under_random_interleaving(void **state) {
    (void)state;
    enum { CAP = 4096 };
    arena a;
    assert_true(arena_create(&a, 1 << 22));
    ref_ev *ref = malloc(sizeof(ref_ev) * CAP);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        arena_reset(&a, 0);
        evq q;
        evq_init(&q, &a, CAP);
        rng r = rng_stream(seed, 0);
        uint32_t ref_n = 0;
        uint64_t pushes = 0;
        sim_time_ns now = 0;
        uint32_t time_span = seed % 2 ? 8 : 1000000;   /* many ties, or few */
        for (int step = 0; step < 10000; step++) {
            bool push = ref_n == 0 || (ref_n < CAP && rng_below(&r, 100) < 55);
            if (push) {
                sim_time_ns at = now + rng_below(&r, time_span);
                sim_event *ev = evq_push(&q, at);
                ev->msg.a = pushes;
                ref[ref_n++] = (ref_ev){ .at_ns = at, .seq = pushes++ };
            } else {
                uint32_t min = 0;
                for (uint32_t i = 1; i < ref_n; i++) {
                    if (ref_cmp(&ref[i], &ref[min]) < 0) min = i;
                }
                sim_time_ns t;
                sim_event ev;
                assert_true(evq_pop(&q, &t, &ev));
                if (t != ref[min].at_ns || ev.msg.a != ref[min].seq) {
                    print_error("seed=0x%llx step %d\n", (unsigned long long)seed, step);
                }
                assert_int_equal(t, ref[min].at_ns);
                assert_int_equal(ev.msg.a, ref[min].seq);
                now = t;
                ref[min] = ref[--ref_n];
            }
            assert_int_equal(q.count, ref_n);
        }
        assert_true(q.peak <= CAP);
    }
    free(ref);
    arena_destroy(&a);
}

static void test_evq_reuses_slots_and_tracks_peak(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 1 << 16));
    evq q;
    evq_init(&q, &a, 4);
    sim_time_ns t;
    sim_event ev;
    for (int round = 0; round < 1000; round++) {   /* far more pushes than slots */
        for (int i = 0; i < 4; i++) evq_push(&q, (sim_time_ns)(round * 10 + 3 - i))->aux = (uint32_t)i;
        assert_int_equal(q.count, 4);
        for (int i = 0; i < 4; i++) {
            assert_true(evq_pop(&q, &t, &ev));
            assert_int_equal(ev.aux, 3 - i);
        }
    }
    assert_int_equal(q.peak, 4);
    assert_int_equal(q.free_count, 4);
    assert_int_equal(q.seq_next, 4000);
    arena_destroy(&a);
}

static void test_evq_peek_sees_the_minimum(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 1 << 16));
    evq q;
    evq_init(&q, &a, 16);
    const sim_time_ns times[] = { 50, 20, 90, 20, 10, 70 };
    for (int i = 0; i < 6; i++) evq_push(&q, times[i]);
    assert_int_equal(evq_peek_ns(&q), 10);
    sim_time_ns t;
    sim_event ev;
    evq_pop(&q, &t, &ev);
    assert_int_equal(evq_peek_ns(&q), 20);
    arena_destroy(&a);
}

/* The sift-down's tournament: in a full node the least child may sit at
 * any of the four places, and decided by time or, at equal times, by
 * push order; the last node of the heap may hold one to three. Keys are
 * laid out so every case occurs: a pop must still yield the least, and a
 * tournament that compared only times, or dropped a child, pops out of
 * order. */
static void test_evq_sift_takes_the_least_child_at_every_place(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 1 << 20));
    ref_ev ref[64];
    for (uint32_t n = 2; n <= 64; n++) {         /* every size of the last node */
        for (uint32_t rot = 0; rot < 4; rot++) {  /* the least child at each place */
            arena_reset(&a, 0);
            evq q;
            evq_init(&q, &a, 64);
            for (uint32_t i = 0; i < n; i++) {
                /* Times repeat in fours (ties for push order to break), and
                 * rot turns which of four neighbours comes first. */
                sim_time_ns at = 100 + ((i + rot) % 4) * 10 + (i / 8) % 3;
                evq_push(&q, at)->msg.a = i;
                ref[i] = (ref_ev){ .at_ns = at, .seq = i };
            }
            qsort(ref, n, sizeof ref[0], ref_cmp);
            for (uint32_t i = 0; i < n; i++) {
                sim_time_ns t;
                sim_event ev;
                assert_true(evq_pop(&q, &t, &ev));
                assert_int_equal(t, ref[i].at_ns);
                assert_int_equal(ev.msg.a, ref[i].seq);
            }
            assert_true(evq_empty(&q));
        }
    }
    arena_destroy(&a);
}


/* The two tiers (sim/evq.h): a near heap before the horizon, a ring of
 * buckets after it, the heap again beyond the ring. A pop pops the least
 * of all of them, and each peek names it beforehand. */
static void pop_expect(evq *q, ref_ev *ref, uint32_t *ref_n, uint64_t *now) {
    uint32_t min = 0;
    for (uint32_t i = 1; i < *ref_n; i++) {
        if (ref_cmp(&ref[i], &ref[min]) < 0) min = i;
    }
    assert_int_equal(evq_peek_ns(q), ref[min].at_ns);
    assert_int_equal(evq_peek_seq(q), ref[min].seq);
    assert_int_equal(evq_peek_body(q)->msg.b, ref[min].seq);
    sim_time_ns t;
    sim_event ev;
    assert_true(evq_pop(q, &t, &ev));
    assert_int_equal(t, ref[min].at_ns);
    assert_int_equal(ev.msg.b, ref[min].seq);
    assert_int_equal(q->last_seq, ref[min].seq);
    *now = t;
    ref[min] = ref[--*ref_n];
}

static void push_ref(evq *q, ref_ev *ref, uint32_t *ref_n, sim_time_ns at, uint64_t seq, bool named) {
    sim_event *ev = named ? evq_push_seq(q, at, seq) : evq_push(q, at);
    ev->msg.b = seq;
    ref[(*ref_n)++] = (ref_ev){ .at_ns = at, .seq = seq };
}

/* Delays from "now" that land in every tier: before the horizon (within
 * a bucket), across the ring and at its far edge, and far beyond it;
 * equal times are frequent. */
static sim_time_ns some_delay(rng *r) {
    const sim_time_ns w = (sim_time_ns)1 << EVQ_RING_SHIFT;
    const sim_time_ns span = (sim_time_ns)EVQ_RING_N << EVQ_RING_SHIFT;
    switch (rng_below(r, 8)) {
    case 0: return 0;
    case 1: return rng_below(r, w);
    case 2: return w * rng_below(r, 4) + rng_below(r, 3);         /* bucket edges */
    case 3: return span - w + rng_below(r, 2 * w);                /* the ring's far edge */
    case 4: return span + rng_below(r, 4 * span);                 /* beyond the ring */
    default: return rng_below(r, span);
    }
}

static void test_evq_two_tiers_pop_in_reference_order_with_late_and_named_seqs(void **state) {
    (void)state;
    enum { CAP = 2048 };
    arena a;
    assert_true(arena_create(&a, (size_t)evq_bytes(CAP) + 4096));
    ref_ev *ref = malloc(sizeof(ref_ev) * CAP);
    for (uint64_t seed = 1; seed <= 12; seed++) {
        arena_reset(&a, 0);
        evq q;
        evq_init(&q, &a, CAP);
        rng r = rng_stream(seed, 7);
        uint32_t ref_n = 0, target = seed % 3 ? 600 : EVQ_RING_MIN + 2;   /* around the ring's threshold too */
        uint64_t now = 0;
        uint32_t ringed = 0;
        for (int step = 0; step < 40000; step++) {
            ringed += q.ring_count > 0;
            uint32_t roll = (uint32_t)rng_below(&r, 100);
            bool push = ref_n == 0 || (ref_n < CAP - 1 && roll < (ref_n < target ? 70 : 45));
            if (!push) {
                pop_expect(&q, ref, &ref_n, &now);
                if (roll % 7 == 0) {   /* put it back at a later time under its own seq, as defer() does */
                    push_ref(&q, ref, &ref_n, now + some_delay(&r), q.last_seq, true);
                }
                continue;
            }
            sim_time_ns at = now + some_delay(&r);
            if (roll % 11 == 0) {
                push_ref(&q, ref, &ref_n, at, evq_seq_take(&q) | EVQ_SEQ_LATE, true);
            } else {
                push_ref(&q, ref, &ref_n, at, q.seq_next, false);
            }
            assert_int_equal(q.count, ref_n);
        }
        while (ref_n > 0) pop_expect(&q, ref, &ref_n, &now);
        assert_true(evq_empty(&q));
        assert_int_equal(q.ring_count, 0);
        assert_true(ringed > 10000);             /* the ring was in use most of the time */
    }
    free(ref);
    arena_destroy(&a);
}

/* order_ties pops every event of one instant and pushes them back under
 * their old seqs: they must pop again in seq order, ahead of later ones,
 * with many more pending in the ring. */
static void test_evq_repushed_equal_times_pop_again_in_seq_order(void **state) {
    (void)state;
    enum { CAP = 1024, TIES = 40 };
    arena a;
    assert_true(arena_create(&a, (size_t)evq_bytes(CAP) + 4096));
    evq q;
    evq_init(&q, &a, CAP);
    const sim_time_ns at = 5000;
    for (uint32_t i = 0; i < 300; i++) evq_push(&q, at + 1 + i * 997)->msg.b = 1000 + i;
    for (uint32_t i = 0; i < TIES; i++) evq_push(&q, at)->msg.b = i;
    assert_true(q.ring_count > 0);
    sim_event ev[TIES];
    uint64_t seqs[TIES];
    sim_time_ns t;
    for (uint32_t i = 0; i < 300 + TIES; i++) {
        if (evq_peek_ns(&q) != at) break;
        assert_true(evq_pop(&q, &t, &ev[i]));
        seqs[i] = q.last_seq;
    }
    for (uint32_t i = TIES; i-- > 0;) *evq_push_seq(&q, at, seqs[i]) = ev[i];   /* back in reverse */
    for (uint32_t i = 0; i < TIES; i++) {
        sim_event e;
        assert_true(evq_pop(&q, &t, &e));
        assert_int_equal(t, at);
        assert_int_equal(e.msg.b, i);
        assert_int_equal(q.last_seq, seqs[i]);
    }
    sim_time_ns prev = at;
    for (uint32_t i = 0; i < 300; i++) {
        sim_event e;
        assert_true(evq_pop(&q, &t, &e));
        assert_true(t > prev);
        assert_int_equal(e.msg.b, 1000 + i);
        prev = t;
    }
    assert_true(evq_empty(&q));
    arena_destroy(&a);
}

/* Far-future events wait in the heap while the ring fills and drains many
 * times, and events near the end of time never overflow a bucket. */
static void test_evq_far_future_and_end_of_time_events_pop_in_order(void **state) {
    (void)state;
    enum { CAP = 4096 };
    arena a;
    assert_true(arena_create(&a, (size_t)evq_bytes(CAP) + 4096));
    ref_ev *ref = malloc(sizeof(ref_ev) * CAP);
    const sim_time_ns span = (sim_time_ns)EVQ_RING_N << EVQ_RING_SHIFT;
    const sim_time_ns starts[] = { 0, SIM_TIME_NS_MAX - 3 * span, SIM_TIME_NS_MAX - 200 };
    for (uint32_t s = 0; s < 3; s++) {
        arena_reset(&a, 0);
        evq q;
        evq_init(&q, &a, CAP);
        rng r = rng_stream(s + 1, 9);
        uint32_t ref_n = 0;
        uint64_t now = starts[s];
        for (uint32_t i = 0; i < 200; i++) {     /* far ones first, then a steady load */
            sim_time_ns room = SIM_TIME_NS_MAX - now;
            sim_time_ns x = rng_below(&r, 1u << 30) * (sim_time_ns)(i + 1);
            push_ref(&q, ref, &ref_n, now + room / 2 + (x < room / 2 ? x : room / 2), q.seq_next, false);
        }
        for (int step = 0; step < 30000; step++) {
            sim_time_ns room = SIM_TIME_NS_MAX - now;
            if (room == 0) break;                /* time has run out: pop what is left */
            bool push = ref_n < 400 || (ref_n < CAP - 1 && rng_below(&r, 2));
            if (push) {
                sim_time_ns d = some_delay(&r);
                push_ref(&q, ref, &ref_n, now + (d < room ? d : room), q.seq_next, false);
            } else {
                pop_expect(&q, ref, &ref_n, &now);
            }
        }
        while (ref_n > 0) pop_expect(&q, ref, &ref_n, &now);
        assert_true(evq_empty(&q));
    }
    free(ref);
    arena_destroy(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evq_pops_equal_times_in_push_order),
        cmocka_unit_test(test_evq_matches_sorted_reference_under_random_interleaving),
        cmocka_unit_test(test_evq_reuses_slots_and_tracks_peak),
        cmocka_unit_test(test_evq_peek_sees_the_minimum),
        cmocka_unit_test(test_evq_sift_takes_the_least_child_at_every_place),
        cmocka_unit_test(test_evq_two_tiers_pop_in_reference_order_with_late_and_named_seqs),
        cmocka_unit_test(test_evq_repushed_equal_times_pop_again_in_seq_order),
        cmocka_unit_test(test_evq_far_future_and_end_of_time_events_pop_in_order),
    };
    return cmocka_run_group_tests_name("evq", tests, NULL, NULL);
}
