/* tests/test_choice.c: the choice point and its record/replay strategies.
 * Replaying a recorded log under another seed must reproduce the recorded
 * run exactly: that proves every decision of the run went through the
 * choice point (a decision taken behind its back would follow the new seed
 * and change the trace hash). */
#include "harness.h"

#include <math.h>
#include <stdlib.h>

#include "../sim/choice.h"
#include "../sim/phold.h"

static sim_run *phold(uint64_t seed) {
    phold_cfg pc = phold_cfg_default();
    pc.seed = seed;
    pc.lps = 50;
    pc.events = 20000;
    return phold_create(&pc);
}

static void test_recording_does_not_change_the_run(void **state) {
    (void)state;
    sim_run *plain = phold(3);
    sim_run_start(plain);
    sim_run_loop(plain);

    choice_entry *entries = malloc(sizeof(choice_entry) * 100000);
    choice_log log;
    choice_log_init(&log, entries, 100000);
    sim_run *recd = phold(3);
    choice_record(recd, &log);
    sim_run_start(recd);
    sim_run_loop(recd);
    assert_true(recd->trace_hash == plain->trace_hash);
    assert_int_equal(log.count, recd->stats.choices);
    assert_false(log.overflow);
    sim_run_destroy(plain);
    sim_run_destroy(recd);
    free(entries);
}

static void test_replaying_a_log_under_another_seed_reproduces_the_run(void **state) {
    (void)state;
    choice_entry *entries = malloc(sizeof(choice_entry) * 100000);
    choice_log log;
    choice_log_init(&log, entries, 100000);
    sim_run *recd = phold(3);
    choice_record(recd, &log);
    sim_run_start(recd);
    sim_run_loop(recd);

    sim_run *other = phold(4);                 /* a different seed ... */
    sim_run_start(other);
    sim_run_loop(other);
    assert_true(other->trace_hash != recd->trace_hash);

    sim_run *rep = phold(4);                   /* ... driven by the log */
    choice_replay(rep, &log);
    sim_run_start(rep);
    sim_run_loop(rep);
    assert_false(log.diverged);
    assert_int_equal(log.cursor, log.count);
    assert_true(rep->trace_hash == recd->trace_hash);
    sim_run_destroy(recd);
    sim_run_destroy(other);
    sim_run_destroy(rep);
    free(entries);
}

static void test_replay_of_a_truncated_log_reports_where_it_diverged(void **state) {
    (void)state;
    choice_entry *entries = malloc(sizeof(choice_entry) * 1000);
    choice_log log;
    choice_log_init(&log, entries, 1000);
    sim_run *recd = phold(3);
    choice_record(recd, &log);
    sim_run_start(recd);
    sim_run_loop(recd);
    assert_true(log.overflow);                 /* the run took far more than 1000 */

    sim_run *rep = phold(4);
    choice_replay(rep, &log);
    sim_run_start(rep);
    assert_int_equal(sim_run_loop(rep), SIM_STOP_REQUESTED);   /* still finishes */
    assert_true(log.diverged);
    assert_int_equal(log.diverged_at, 1000);
    sim_run_destroy(recd);
    sim_run_destroy(rep);
    free(entries);
}

/* A strategy that always takes the first option (delay 0 draws the largest
 * exponential; PICK and DROP pick 0): every LP then sends to LP 0 and every
 * message is "remote" (0 < num). A plug-in changes the run without any
 * change to the model. */
static uint32_t first_choice(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    (void)run;
    (void)stream;
    uint64_t *counts = ctx;
    counts[kind]++;
    return n == 0 ? UINT32_MAX / 2 : 0;
}

static void test_a_plugged_in_strategy_takes_every_decision(void **state) {
    (void)state;
    uint64_t counts[SIM_CHOICE_KIND_COUNT] = { 0 };
    sim_run *run = phold(3);
    run->chooser = (sim_chooser){ .choose = first_choice, .ctx = counts };
    sim_run_start(run);
    sim_run_loop(run);
    /* Per event: one delay, one remote-or-not, one target. */
    uint64_t sends = 20000 - 1 + 50;
    assert_int_equal(counts[SIM_CHOICE_DELAY], sends);
    assert_int_equal(counts[SIM_CHOICE_BRANCH], sends);
    assert_int_equal(counts[SIM_CHOICE_PICK], sends);
    assert_int_equal(run->stats.choices, 3 * sends);
    /* Everything went to LP 0: it handled every message. */
    assert_int_equal(run->actors[0].delivered, 20000 + 1);
    sim_run_destroy(run);
}

/* PCT on the starts of four actors: every actor's START is due at time
 * 0, so the run takes three order decisions (4, 3, then 2 ready). */
#define PCT_ACTORS 4u

typedef struct start_order {
    uint32_t who[PCT_ACTORS];
    uint32_t count;
} start_order;

static void note_start(sim_run *run, sim_actor *self, const sim_event *ev) {
    (void)run;
    start_order *o = self->ctx;
    if (ev->kind == SIM_EV_START) o->who[o->count++] = self->id;
}

/* A run whose simultaneous events meet the choice point: n actors on one
 * machine, each handled by fn with ctx. */
static sim_run *ordered_run(uint64_t seed, sim_time_ns near_ns, uint32_t n, sim_handler_fn fn, void *ctx) {
    sim_cfg c = test_cfg(seed);
    c.order_ties = true;
    c.near_ns = near_ns;
    c.actors_max = n;
    sim_run *run = sim_run_create(&c);
    assert_non_null(run);
    uint32_t m = sim_machine_add(run, "m");
    for (uint32_t i = 0; i < n; i++) sim_actor_add(run, "a", m, fn, ctx);
    return run;
}

static void pct_run(uint64_t seed, uint32_t depth, uint64_t steps, start_order *o, choice_pct *p, uint64_t *prio) {
    *o = (start_order){ 0 };
    sim_run *run = ordered_run(seed, 0, PCT_ACTORS, note_start, o);
    choice_pct_install(run, p, depth, steps, prio);
    sim_run_start(run);
    sim_run_loop(run);
    assert_int_equal(o->count, PCT_ACTORS);
    assert_int_equal(p->seen, PCT_ACTORS - 1);
    assert_int_equal(p->met, PCT_ACTORS);
    sim_run_destroy(run);
}

static void test_pct_lets_the_ready_actor_of_highest_priority_go_first(void **state) {
    (void)state;
    uint64_t prio[PCT_ACTORS + 1];
    choice_pct p;
    start_order o;
    for (uint64_t seed = 1; seed <= 50; seed++) {
        pct_run(seed, 1, 1, &o, &p, prio);
        for (uint32_t i = 1; i < PCT_ACTORS; i++) assert_true(prio[o.who[i - 1]] > prio[o.who[i]]);
        assert_int_equal(p.changed, 0);
    }
}

static void test_a_pct_change_point_sends_its_actor_last(void **state) {
    (void)state;
    uint64_t prio[PCT_ACTORS + 1];
    choice_pct p;
    start_order o;
    uint32_t at[4] = { 0 };
    for (uint64_t seed = 1; seed <= 60; seed++) {
        pct_run(seed, 2, PCT_ACTORS - 1, &o, &p, prio);
        assert_int_equal(p.changed, 1);
        assert_true(p.change_at[0] >= 1 && p.change_at[0] <= PCT_ACTORS - 1);
        at[p.change_at[0]]++;
        assert_int_equal(prio[o.who[PCT_ACTORS - 1]], 1);    /* the lowered one: after every other */
        for (uint32_t i = 0; i + 1 < PCT_ACTORS; i++) assert_true(prio[o.who[i]] > 1);
    }
    for (uint32_t k = 1; k <= PCT_ACTORS - 1; k++) assert_true(at[k] > 0);   /* every decision can be one */
}

static void test_pct_is_the_same_run_for_the_same_seed_and_another_for_others(void **state) {
    (void)state;
    uint64_t prio[PCT_ACTORS + 1];
    choice_pct p;
    start_order a, b;
    pct_run(7, 3, 3, &a, &p, prio);
    pct_run(7, 3, 3, &b, &p, prio);
    assert_memory_equal(a.who, b.who, sizeof a.who);
    uint32_t firsts[PCT_ACTORS] = { 0 };
    for (uint64_t seed = 1; seed <= 40; seed++) {
        pct_run(seed, 3, 3, &a, &p, prio);
        firsts[a.who[0]]++;
    }
    for (uint32_t i = 0; i < PCT_ACTORS; i++) assert_true(firsts[i] > 0);   /* not push order */
}

/* The guarantee, 1 / (n * k^(d - 1)), held to on bugs of depth 1 (actor
 * 2 starts first: PCT needs its priority the highest) and depth 2 (actor
 * 2 first and actor 1 last: one more constraint, which a change point
 * meets). Both bounds are exact here (1/4, 1/12), so over fixed seeds the
 * counts scatter around them: each must lie within four standard
 * deviations below the bound's mean (the runs are independent draws). A
 * strategy that ignored the priorities (push order, or always the same
 * rank) finds neither: actor 0 would start first every time. */
static bool at_least_the_bound(uint32_t found, uint32_t runs, double p) {
    double mean = runs * p, sd = sqrt(runs * p * (1 - p));
    print_message("pct: %u of %u runs (bound %.0f, sd %.1f)\n", found, runs, mean, sd);
    return found >= mean - 4 * sd;
}

static void test_pct_finds_bugs_of_depth_d_as_often_as_its_bound(void **state) {
    (void)state;
    uint64_t prio[PCT_ACTORS + 1];
    choice_pct p;
    start_order o;
    const uint32_t runs = 3000;
    uint32_t d1 = 0, d2 = 0;
    for (uint64_t seed = 1; seed <= runs; seed++) {
        pct_run(seed, 1, PCT_ACTORS - 1, &o, &p, prio);
        d1 += o.who[0] == 2;
        assert_true(choice_pct_bound(&p) == 1.0 / PCT_ACTORS);
        pct_run(seed, 2, PCT_ACTORS - 1, &o, &p, prio);
        d2 += o.who[0] == 2 && o.who[PCT_ACTORS - 1] == 1;
        assert_true(choice_pct_bound(&p) == 1.0 / (PCT_ACTORS * (PCT_ACTORS - 1)));
    }
    assert_true(at_least_the_bound(d1, runs, 1.0 / PCT_ACTORS));
    assert_true(at_least_the_bound(d2, runs, 1.0 / (PCT_ACTORS * (PCT_ACTORS - 1))));
}

static void note_ready(sim_run *run, sim_actor *self, const sim_event *ev) {
    (void)ev;
    uint32_t n = 99;
    assert_null(sim_ready_dsts(run, &n));     /* outside a decision */
    assert_int_equal(n, 0);
    (void)self;
}

static uint32_t check_ready(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    (void)stream;
    uint32_t *calls = ctx;
    uint32_t got;
    const uint32_t *ready = sim_ready_dsts(run, &got);
    assert_int_equal(kind, SIM_CHOICE_ORDER);
    assert_int_equal(got, n);
    for (uint32_t k = 0; k < n; k++) assert_int_equal(ready[k], PCT_ACTORS - n + k);   /* push order */
    (*calls)++;
    return 0;
}

static void test_an_order_decision_shows_the_ready_destinations_in_push_order(void **state) {
    (void)state;
    sim_cfg c = test_cfg(1);
    c.order_ties = true;
    c.actors_max = PCT_ACTORS;
    sim_run *run = sim_run_create(&c);
    uint32_t m = sim_machine_add(run, "m");
    for (uint32_t i = 0; i < PCT_ACTORS; i++) sim_actor_add(run, "a", m, note_ready, NULL);
    uint32_t calls = 0;
    run->chooser = (sim_chooser){ .choose = check_ready, .ctx = &calls };
    sim_run_start(run);
    sim_run_loop(run);
    assert_int_equal(calls, PCT_ACTORS - 1);
    sim_run_destroy(run);
}

/* Near-simultaneous events: three actors each set timers at their START
 * (actor i at 10 + 5i us, actor 0 a second one at 11 us). With near_ns
 * 12 us the first timer decision (at 10 us) also takes those due by 22
 * us: PCT's pick among actors 0, 1, 2 runs first, at its own time, and
 * the timers due before it wait until then, each actor's in its order. */
#define NEAR_ACTORS 3u

typedef struct near_log {
    uint32_t    who[NEAR_ACTORS + 1];
    uint64_t    tag[NEAR_ACTORS + 1];
    sim_time_ns at[NEAR_ACTORS + 1];
    sim_time_ns due[NEAR_ACTORS];     /* spaced_actor: when its timer was due (its START may have waited) */
    uint32_t    count;
} near_log;

static void near_actor(sim_run *run, sim_actor *self, const sim_event *ev) {
    near_log *l = self->ctx;
    if (ev->kind == SIM_EV_START) {
        sim_timer_set(run, self->id, (10 + 5 * (sim_time_ns)self->id) * SIM_NS_PER_US, 1);
        if (self->id == 0) sim_timer_set(run, self->id, 11 * SIM_NS_PER_US, 2);
        return;
    }
    SIM_ASSERT(ev->kind == SIM_EV_TIMER && l->count <= NEAR_ACTORS);
    l->who[l->count] = self->id;
    l->tag[l->count] = ev->msg.a;
    l->at[l->count++] = run->now_ns;
}

static uint64_t near_run(uint64_t seed, sim_time_ns near_ns, bool pct, near_log *l) {
    *l = (near_log){ 0 };
    sim_run *run = ordered_run(seed, near_ns, NEAR_ACTORS, near_actor, l);
    uint64_t prio[NEAR_ACTORS + 1];
    choice_pct p;
    choice_deviation none = { 0 };                 /* push order throughout */
    if (pct) choice_pct_install(run, &p, 1, 1, prio); else choice_deviate(run, &none);
    sim_run_start(run);
    sim_run_loop(run);
    assert_int_equal(l->count, NEAR_ACTORS + 1);
    for (uint32_t i = 1; i <= NEAR_ACTORS; i++) assert_true(l->at[i] >= l->at[i - 1]);   /* the clock never goes back */
    uint64_t h = run->trace_hash;
    sim_run_destroy(run);
    return h;
}

static void test_near_simultaneous_events_are_ordered_by_pct_and_wait_never_run_early(void **state) {
    (void)state;
    near_log l;
    uint32_t firsts[NEAR_ACTORS] = { 0 };
    for (uint64_t seed = 1; seed <= 60; seed++) {
        near_run(seed, 12 * SIM_NS_PER_US, true, &l);
        firsts[l.who[0]]++;
        int64_t zero_first = -1, zero_second = -1;
        for (uint32_t i = 0; i <= NEAR_ACTORS; i++) {
            sim_time_ns due = (10 + 5 * (sim_time_ns)l.who[i]) * SIM_NS_PER_US;
            if (l.who[i] == 0 && l.tag[i] == 2) due = 11 * SIM_NS_PER_US;
            assert_true(l.at[i] >= due);                        /* nothing runs before its time */
            if (l.who[i] == 0) *(l.tag[i] == 1 ? &zero_first : &zero_second) = i;
        }
        assert_true(zero_first >= 0 && zero_first < zero_second);   /* an actor's events keep their order */
    }
    for (uint32_t i = 0; i < NEAR_ACTORS; i++) assert_true(firsts[i] > 0);   /* each can go first */
    near_run(1, 0, true, &l);                                    /* exact ties only: time order */
    assert_int_equal(l.at[0], 10 * SIM_NS_PER_US);
    assert_int_equal(l.who[0], 0);
}

/* Three actors, a timer each at 10, 20 and 30 us, a 12 us window: the
 * first decision (10 us) takes actors 0 and 1; should 1 go first, 0
 * waits until 20 us, and the next decision, whose first event (0's)
 * waited already, is among the events of 20 us only: 0 is never made to
 * wait for 2 at 30 us as well, so nothing runs more than 12 us late. A
 * fault window beginning at 15 us (a pause of actor 2) ends the first
 * window before it: then 0 runs first, on time, whatever the seed. (The
 * STARTs, at 0, may wait for a timer too: each timer's due time is taken
 * when it is set.) */
static void spaced_actor(sim_run *run, sim_actor *self, const sim_event *ev) {
    near_log *l = self->ctx;
    if (ev->kind == SIM_EV_START) {
        sim_time_ns after = (10 + 10 * (sim_time_ns)self->id) * SIM_NS_PER_US;
        sim_timer_set(run, self->id, after, 1);
        l->due[self->id] = run->now_ns + after;
        return;
    }
    SIM_ASSERT(ev->kind == SIM_EV_TIMER && l->count < NEAR_ACTORS);
    l->who[l->count] = self->id;
    l->at[l->count++] = run->now_ns;
}

static void spaced_run(uint64_t seed, bool pause, near_log *l) {
    *l = (near_log){ 0 };
    sim_run *run = ordered_run(seed, 12 * SIM_NS_PER_US, NEAR_ACTORS, spaced_actor, l);
    if (pause) fault_add(run, &(fault_spec){ .kind = FAULT_ACTOR_PAUSE, .at_ns = 15 * SIM_NS_PER_US, .duration_ns = 1, .target = 2 });
    uint64_t prio[NEAR_ACTORS + 1];
    choice_pct p;
    choice_pct_install(run, &p, 1, 1, prio);
    sim_run_start(run);
    sim_run_loop(run);
    assert_int_equal(l->count, NEAR_ACTORS);
    sim_run_destroy(run);
}

static void test_an_event_waits_once_at_most_and_never_past_a_fault_window(void **state) {
    (void)state;
    near_log l;
    uint32_t waited = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        spaced_run(seed, false, &l);
        for (uint32_t i = 0; i < NEAR_ACTORS; i++) {
            sim_time_ns due = l.due[l.who[i]];
            assert_true(l.at[i] >= due && l.at[i] - due <= 12 * SIM_NS_PER_US);
            waited += l.at[i] > due;
        }
        spaced_run(seed, true, &l);
        assert_int_equal(l.who[0], 0);
        assert_int_equal(l.at[0], 10 * SIM_NS_PER_US);
    }
    assert_true(waited > 0);                                     /* the window did make events wait, for some seeds */
}

/* Push order (the first ready destination at every decision) with
 * near_ns on is the run without it: near_ns changes a run only where a
 * choice deviates. */
static void test_near_simultaneous_ordering_in_push_order_is_the_run_without_it(void **state) {
    (void)state;
    near_log a, b;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        assert_int_equal(near_run(seed, 12 * SIM_NS_PER_US, false, &a), near_run(seed, 0, false, &b));
        assert_memory_equal(&a, &b, sizeof a);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recording_does_not_change_the_run),
        cmocka_unit_test(test_replaying_a_log_under_another_seed_reproduces_the_run),
        cmocka_unit_test(test_replay_of_a_truncated_log_reports_where_it_diverged),
        cmocka_unit_test(test_a_plugged_in_strategy_takes_every_decision),
        cmocka_unit_test(test_an_order_decision_shows_the_ready_destinations_in_push_order),
        cmocka_unit_test(test_pct_lets_the_ready_actor_of_highest_priority_go_first),
        cmocka_unit_test(test_a_pct_change_point_sends_its_actor_last),
        cmocka_unit_test(test_pct_is_the_same_run_for_the_same_seed_and_another_for_others),
        cmocka_unit_test(test_pct_finds_bugs_of_depth_d_as_often_as_its_bound),
        cmocka_unit_test(test_near_simultaneous_events_are_ordered_by_pct_and_wait_never_run_early),
        cmocka_unit_test(test_near_simultaneous_ordering_in_push_order_is_the_run_without_it),
        cmocka_unit_test(test_an_event_waits_once_at_most_and_never_past_a_fault_window),
    };
    return cmocka_run_group_tests_name("choice", tests, NULL, NULL);
}
