/* tests/test_task.c: the task actor (model/tm/task.c), in whole jobs:
 * which input buffer it takes next, and where its output buffers live.
 * The pump keeps its inputs in a list in arrival order and sets aside
 * what it finds on blocked channels; these tests hold it, at every buffer
 * it takes, to the definition: the earliest arrival among the channels the
 * gate does not block, as a scan of every channel's oldest buffer finds
 * it. Ring slots are reused last-freed-first: no two alive buffers may
 * share one. A buffer leaves full unless the buffer timeout, a barrier or
 * the end closes it first. White-box: it includes the model's internal
 * header to read the channels. */
#include "harness.h"

#include "../model/pipe_int.h"

#define WATCH_TASKS 64u

/* The oracle: every take checked against a scan of the task's inputs. */
typedef struct take_watch {
    pipeline *p;
    uint64_t  data_checks, control_checks;
    uint64_t  passed_blocked;        /* takes while a blocked channel held an older buffer */
    uint64_t  came_back;             /* takes of a buffer older than one taken before it (it was set aside) */
    uint64_t  wrong;                 /* takes that were not the earliest eligible arrival */
    uint64_t  newest[WATCH_TASKS];   /* arrival stamp of the newest buffer taken, per task and attempt */
    uint64_t  epoch[WATCH_TASKS];
    bool      blocked[WATCH_TASKS][GATE_CHANNELS_MAX];   /* the gate after the task's previous step */
} take_watch;

static rt_chan *input(pipeline *p, const rt_task *t, uint32_t i) {
    return &p->tm.chans[pipe_job(p)->in_chan[t->jt->in_first + i]];
}

static uint64_t head_arrival(rt_chan *c) {
    return c->consumed < c->received ? task_buf(c, c->consumed)->arrival : UINT64_MAX;
}

/* A data buffer is noted before it is consumed: it is its channel's oldest,
 * and no unblocked channel may hold an older one. */
static void check_data(take_watch *w, const rt_task *t, const pipe_event *e) {
    rt_chan *taken = &w->p->tm.chans[e->chan];
    uint64_t a = head_arrival(taken);
    bool passed = false;
    if (gate_blocked(&t->g, e->input)) w->wrong++;
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        uint64_t h = head_arrival(input(w->p, t, i));
        if (h >= a) continue;
        if (gate_blocked(&t->g, i)) {
            passed = true;
        } else {
            w->wrong++;
        }
    }
    w->passed_blocked += passed;
    w->data_checks++;
    if (a < w->newest[t->id]) w->came_back++;
    if (a > w->newest[t->id]) w->newest[t->id] = a;
}

/* A control buffer is noted after its gate step: it was its channel's
 * oldest (now consumed), and no channel unblocked before the step may hold
 * an older one. The gate's state before the step is the one after the
 * task's previous step, which every gate step is followed by. */
static void check_control(take_watch *w, const rt_task *t, const pipe_event *e) {
    rt_chan *taken = &w->p->tm.chans[e->chan];
    assert_true(taken->consumed > 0);
    uint64_t a = task_buf(taken, taken->consumed - 1)->arrival;
    if (w->blocked[t->id][e->input]) w->wrong++;
    for (uint32_t i = 0; i < t->jt->in_count; i++) {
        rt_chan *c = input(w->p, t, i);
        if (c == taken || head_arrival(c) >= a) continue;
        if (w->blocked[t->id][i]) {
            w->passed_blocked++;
        } else {
            w->wrong++;
        }
    }
    w->control_checks++;
    if (a < w->newest[t->id]) w->came_back++;
    if (a > w->newest[t->id]) w->newest[t->id] = a;
}

static void watch_takes(void *ctx, const pipe_event *e) {
    take_watch *w = ctx;
    if (e->task == PIPE_NO_TASK) return;
    assert_true(e->task < WATCH_TASKS);
    const rt_task *t = &w->p->tm.tasks[e->task];
    if (t->jt->in_count == 0 || t->life == LIFE_FREE) return;
    if (t->epoch != w->epoch[t->id]) {            /* a new attempt: its stamps start again */
        w->epoch[t->id] = t->epoch;
        w->newest[t->id] = 0;
        memset(w->blocked[t->id], 0, sizeof w->blocked[t->id]);
    }
    if (e->kind == PIPE_EV_CONSUME) check_data(w, t, e);
    bool control = e->kind == PIPE_EV_BARRIER || e->kind == PIPE_EV_CANCEL || e->kind == PIPE_EV_END ||
                   e->kind == PIPE_EV_END_DATA;
    if (control && !e->priority) check_control(w, t, e);
    for (uint32_t i = 0; i < t->jt->in_count; i++) w->blocked[t->id][i] = gate_blocked(&t->g, i);
}

static void attach(pipeline *p, void *ctx) {
    take_watch *w = ctx;
    w->p = p;
    pipe_observe(p, watch_takes, w);
}

/* source(4) -> map(4, forward) -> keyed aggregate(4, hash) -> sink(2, rebalance):
 * the aggregates have four inputs, the sinks two; a slow sink backpressures. */
static pipe_cfg job4(uint64_t seed) {
    pipe_cfg c = pipe_cfg_default(seed);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { 4, 4, 4, 2 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 1000, 500, 2000, 3000 } });
    c.broker.partitions = 8;
    c.broker.records_per_partition = 4000;
    c.broker.keys = 400;
    c.machines = 3;
    c.jitter_ns = SIM_NS_PER_MS;                  /* arrivals interleave across channels */
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    return c;
}

static take_watch watch_;

/* Liveness (I6) is left out where checkpoints are made to time out. */
static checked_run run_watched(const pipe_cfg *c) {
    memset(&watch_, 0, sizeof watch_);
    checked_run r = run_checked_with(c, attach, &watch_);
    assert_int_equal(watch_.wrong, 0);
    assert_int_equal(r.status, PIPE_FINISHED);
    for (uint32_t i = CHECK_I1; i < CHECK_INV_COUNT; i++) {
        if (r.report.violations[i] != 0 && (i != CHECK_I6 || c->ckpt.timeout_ns > 10 * SIM_NS_PER_MS)) {
            fail_msg("invariant I%u violated", i);
        }
    }
    assert_true(watch_.data_checks > 1000);
    assert_true(watch_.control_checks > 10);
    return r;
}

/* Aligned checkpoints under backpressure: channels block while others are
 * taken, and their buffers come back, oldest first, once the alignment ends. */
static void test_aligned_takes_the_earliest_arrival_of_unblocked_channels(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        pipe_cfg c = job4(seed);
        run_watched(&c);
        assert_true(watch_.passed_blocked > 0);   /* blocked channels held older buffers */
        assert_true(watch_.came_back > 0);        /* which were taken after the release */
    }
}

/* Cancel markers end alignments (checkpoints that time out, one or
 * several at a time), alignment timeouts and priority barriers switch
 * them to unaligned, and unaligned checkpoints block nothing: each
 * release brings the set-aside buffers back, oldest first. */
static void test_every_kind_of_release_brings_back_what_was_set_aside_in_order(void **state) {
    (void)state;
    for (int variant = 0; variant < 4; variant++) {
        pipe_cfg c = job4(10 + (uint64_t)variant);
        switch (variant) {
        case 0:
            c.ckpt.max_concurrent = 3;
            c.ckpt.interval_ns = SIM_NS_PER_MS;
            c.ckpt.timeout_ns = 3 * SIM_NS_PER_MS;
            c.ckpt.tolerable_failures = 1000;
            break;
        case 1:                                   /* shorter than a checkpoint takes with 1 ms of jitter a hop: */
            c.ckpt.timeout_ns = 2 * SIM_NS_PER_MS;    /* every one times out, so no final checkpoint would ever */
            c.ckpt.tolerable_failures = 1000;         /* complete and let the tasks finish (FLIP-147): they finish */
            c.ckpt.finished_tasks_off = true;         /* at the end of their input instead */
            break;
        case 2: c.ckpt.alignment_timeout_ns = 3 * SIM_NS_PER_MS; break;
        default: c.ckpt.mode = PIPE_UNALIGNED; break;
        }
        checked_run r = run_watched(&c);
        if (variant < 3) assert_true(watch_.passed_blocked > 0 && watch_.came_back > 0);
        if (variant < 2) assert_true(r.reach[PIPE_REACH_CANCEL_ALIGNED] > 0);
        if (variant == 2) assert_true(r.stats.alignment_timeouts > 0 && r.reach[PIPE_REACH_ALIGNED_TAKES_PRIORITY] > 0);
        if (variant == 3) assert_int_equal(watch_.passed_blocked, 0);
    }
}

/* A crash fails the job over: the redeployed tasks start with empty
 * lists, and nothing of the old attempt is taken. */
static void test_redeploy_clears_what_the_task_had_listed(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        pipe_cfg c = job4(20 + seed);
        c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = (uint32_t)seed % 3,
                                                   .at_ns = (20 + 7 * seed) * SIM_NS_PER_MS,
                                                   .duration_ns = 5 * SIM_NS_PER_MS };
        checked_run r = run_watched(&c);
        assert_true(r.stats.restarts >= 1);
        assert_true(watch_.passed_blocked > 0);
    }
}

/* At-least-once never blocks: the pump takes strictly in arrival order. */
static void test_at_least_once_takes_in_arrival_order(void **state) {
    (void)state;
    pipe_cfg c = job4(30);
    c.ckpt.mode = PIPE_AT_LEAST_ONCE;
    run_watched(&c);
    assert_int_equal(watch_.passed_blocked, 0);
    assert_int_equal(watch_.came_back, 0);
}

/* ---- ring slots ------------------------------------------------------------ */

typedef struct slot_watch {
    pipeline *p;
    uint64_t  checks, shared, full;
} slot_watch;

/* The buffers alive on a channel, [acked, filled] (the last while it
 * fills), each in a slot of its own, and the free slots the others. */
static void check_slots(slot_watch *w, const rt_chan *c) {
    bool used[CHAN_RING_MAX] = { false };
    uint64_t end = c->filled + (tm_fill(&w->p->tm, c)->filling ? 1 : 0);
    for (uint64_t n = c->acked; n < end; n++) {
        uint8_t s = CHAN_SLOT_OF(c)[n % c->ring_size];
        w->shared += used[s];
        used[s] = true;
    }
    for (uint32_t k = 0; k < c->free_count; k++) {
        w->shared += used[CHAN_FREE_SLOTS(c)[k]];
        used[CHAN_FREE_SLOTS(c)[k]] = true;
    }
    w->full += end - c->acked == c->ring_size - 3;   /* as many alive as room() lets a producer have */
    w->checks++;
}

static void watch_slots(void *ctx, const pipe_event *e) {
    slot_watch *w = ctx;
    if (e->kind != PIPE_EV_CONSUME) return;
    const rt_chan *c = &w->p->tm.chans[e->chan];
    if (w->p->tm.tasks[c->producer].life != LIFE_FREE) check_slots(w, c);
}

static void attach_slots(pipeline *p, void *ctx) {
    slot_watch *w = ctx;
    w->p = p;
    pipe_observe(p, watch_slots, w);
}

/* Under backpressure rings fill up, and a crash resets them mid-run: no
 * two alive buffers share a slot, and no free slot is an alive one's. */
static void test_alive_buffers_never_share_a_ring_slot(void **state) {
    (void)state;
    static slot_watch w;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        pipe_cfg c = job4(40 + seed);
        c.credits = 2;
        c.graph.vertices[3].cost_ns = 8000;       /* a slow sink: full rings */
        c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = 1,
                                                   .at_ns = 25 * SIM_NS_PER_MS, .duration_ns = 5 * SIM_NS_PER_MS };
        memset(&w, 0, sizeof w);
        checked_run r = run_checked_with(&c, attach_slots, &w);
        assert_int_equal(r.status, PIPE_FINISHED);
        assert_true(r.stats.restarts >= 1);
        assert_true(w.checks > 1000);
        assert_true(w.full > 0);
        assert_int_equal(w.shared, 0);
    }
}

/* The chain over 3,200 records in one partition, no checkpoint within
 * the run; the source takes cost_ns a record (it reads 32, a buffer's
 * worth, at a time), the others 100 ns. */
static void line_job(pipe_cfg *c, uint32_t aggs, sim_time_ns cost_ns, sim_time_ns timeout_ns) {
    *c = pipe_cfg_default(3);
    job_add_chain(&c->graph, &(job_chain){ .parallelism = { 1, 1, aggs, aggs },
                                           .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD },
                                           .cost_ns = { cost_ns, 100, 100, 100 } });
    c->broker.partitions = 1;
    c->broker.records_per_partition = 3200;
    c->machines = 1;
    c->ckpt.interval_ns = 100 * SIM_NS_PER_S;
    c->buffer_timeout_ns = timeout_ns;
}

static uint64_t buffers_of(const pipe_cfg *c) {
    checked_run r = run_checked(c);
    assert_int_equal(r.status, PIPE_FINISHED);
    assert_int_equal(r.stats.sink_records, 3200);
    return r.stats.data_buffers;
}

static void test_a_buffer_leaves_full_unless_the_timeout_closes_it_first(void **state) {
    (void)state;
    static pipe_cfg c;                            /* large: not on the stack */
    /* One channel an edge: every buffer takes a whole 32 records, three
     * edges of 100 buffers. */
    line_job(&c, 1, SIM_NS_PER_US, SIM_NS_PER_MS);
    assert_int_equal(buffers_of(&c), 3 * 3200 / CHAN_BUF_RECORDS);
    /* A hash edge to 4 fed 32 records every 3.2 ms: about 8 a channel,
     * which the 1 ms timeout sends on their own; with Flink's 100 ms the
     * buffers fill, each of the 9 channels sending at most a partial one
     * at its end and one at each of the run's 3 timeouts. */
    line_job(&c, 4, 100 * SIM_NS_PER_US, 100 * SIM_NS_PER_MS);
    uint64_t at_100ms = buffers_of(&c);
    assert_in_range(at_100ms, 3 * 3200 / CHAN_BUF_RECORDS, 3 * 3200 / CHAN_BUF_RECORDS + 9 * 4);
    line_job(&c, 4, 100 * SIM_NS_PER_US, SIM_NS_PER_MS);
    assert_true(buffers_of(&c) >= 2 * at_100ms);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aligned_takes_the_earliest_arrival_of_unblocked_channels),
        cmocka_unit_test(test_every_kind_of_release_brings_back_what_was_set_aside_in_order),
        cmocka_unit_test(test_redeploy_clears_what_the_task_had_listed),
        cmocka_unit_test(test_at_least_once_takes_in_arrival_order),
        cmocka_unit_test(test_alive_buffers_never_share_a_ring_slot),
        cmocka_unit_test(test_a_buffer_leaves_full_unless_the_timeout_closes_it_first),
    };
    return cmocka_run_group_tests_name("task", tests, NULL, NULL);
}
