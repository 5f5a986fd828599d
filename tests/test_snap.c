/* tests/test_snap.c: a task's side of checkpoints in whole jobs (model/tm/snap.c):
 * asynchronous copy-on-write snapshots, the durable store, incremental
 * checkpoints and their shared files, unaligned checkpoints and the
 * alignment timeout, coordinator failover. White-box where an invariant
 * is about the store: it includes the model's internal header. */
#include "harness.h"

#include "../model/pipe_int.h"

/* source(p) -> map(p, forward) -> keyed aggregate(p, hash) -> sink(1, rebalance) */
static pipe_cfg chain(uint64_t seed, uint32_t p, uint64_t records_per_partition, uint32_t keys) {
    pipe_cfg c = pipe_cfg_default(seed);
    job_add_chain(&c.graph, &(job_chain){ .parallelism = { p, p, p, 1 },
                                          .into = { 0, JOB_FORWARD, JOB_HASH, JOB_REBALANCE },
                                          .cost_ns = { 2000, 1000, 3000, 500 } });
    c.broker.partitions = p * 2;
    c.broker.records_per_partition = records_per_partition;
    c.broker.keys = keys;
    c.machines = 2;
    c.ckpt.interval_ns = 20 * SIM_NS_PER_MS;
    c.restart.delay_ns = 5 * SIM_NS_PER_MS;
    return c;
}

static pipeline *make(const pipe_cfg *c) {
    char err[256];
    pipeline *p = pipe_create(c, err, sizeof err);
    if (p == NULL) fail_msg("pipe_create: %s", err);
    return p;
}

static pipeline *reference(const pipe_cfg *c) {
    pipe_cfg r = *c;
    r.faults_count = 0;
    r.slow_count = 0;
    pipeline *p = make(&r);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    return p;
}

static void crash_machine_at(pipe_cfg *c, uint32_t machine, sim_time_ns at_ns, sim_time_ns for_ns) {
    c->faults[c->faults_count++] = (fault_spec){ .kind = FAULT_MACHINE_CRASH, .target = machine, .at_ns = at_ns,
                                                 .duration_ns = for_ns };
}

static void assert_same_state(const pipeline *ref, const pipeline *p) {
    pipe_state_diff d;
    if (!pipe_compare_states(ref, p, &d)) {
        fail_msg("state differs at vertex %u key %llu: %llu records vs %llu", d.vertex, (unsigned long long)d.key,
                 (unsigned long long)d.records_b, (unsigned long long)d.records_a);
    }
}

/* Store invariants (I5), checked at every protocol step: every file a
 * live checkpoint refers to is alive; no file is alive that nothing
 * refers to (beyond the tasks' own final files). */
typedef struct store_watch {
    pipeline *p;
    uint64_t  checks, dead_referenced;
} store_watch;

static void watch_store(void *ctx, const pipe_event *e) {
    store_watch *w = ctx;
    pipeline *p = w->p;
    if (e->kind != PIPE_EV_CKPT_COMPLETE && e->kind != PIPE_EV_CKPT_ABORT) return;
    w->checks++;
    for (uint32_t i = 0; i < p->jm.slots_count; i++) {
        const rt_slot *s = &p->jm.slots[i];
        if (s->ckpt == 0) continue;
        for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
            for (uint32_t f = 0; f < s->chains[t].count; f++) w->dead_referenced += !store_alive(&p->w.files, s->chains[t].files[f]);
        }
    }
}

/* ---- P6: asynchronous copy-on-write snapshots ---------------------------- */

static void test_sync_part_costs_the_same_for_10_and_100000_keys(void **state) {
    (void)state;
    sim_time_ns sync_max[2], async_max[2], sync_blocking[2];
    uint32_t keys[2] = { 10, 100000 };
    for (int k = 0; k < 2; k++) {
        pipe_cfg c = chain(1, 2, 100000, keys[k]);
        c.broker.dist = BROKER_UNIFORM;
        c.state.backend = PIPE_BACKEND_DURABLE;
        pipeline *p = make(&c);
        pipe_run(p);
        assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
        const pipe_stats *st = pipe_get_stats(p);
        assert_true(st->snapshots > 0);
        sync_max[k] = st->sync_ns_max;
        async_max[k] = st->async_ns_max;
        pipe_destroy(p);
        c.state.async = false;                    /* the synchronous baseline */
        p = make(&c);
        pipe_run(p);
        sync_blocking[k] = pipe_get_stats(p)->sync_ns_max;
        pipe_destroy(p);
    }
    print_message("async: sync part max %llu / %llu ns, async part max %llu / %llu ns; sync mode: %llu / %llu ns\n",
                  (unsigned long long)sync_max[0], (unsigned long long)sync_max[1], (unsigned long long)async_max[0],
                  (unsigned long long)async_max[1], (unsigned long long)sync_blocking[0],
                  (unsigned long long)sync_blocking[1]);
    assert_int_equal(sync_max[0], sync_max[1]);   /* marking a version: independent of the state */
    assert_int_equal(sync_max[0], pipe_cfg_default(0).state.sync_ns);
    assert_true(async_max[1] > 4 * async_max[0]);           /* the write grows with the state */
    assert_true(sync_blocking[1] > 4 * sync_blocking[0]);   /* and blocks the task without async */
    assert_true(sync_blocking[1] >= async_max[1] / 2);
}

/* The ABS paper's experiment in small: sources read at the broker's
 * production rate; synchronous snapshots stall the keyed aggregates while
 * the store writes, so the job falls behind (lower throughput, higher
 * event-time latency); asynchronous ones hardly cost anything. */
static void test_synchronous_snapshots_cost_throughput_and_latency(void **state) {
    (void)state;
    double latency_ms[2], vsec[2];
    for (int async = 0; async < 2; async++) {
        pipe_cfg c = chain(1, 2, 20000, 20000);
        c.state.backend = PIPE_BACKEND_DURABLE;
        c.state.async = async;
        c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
        c.broker.event_gap_ns = 20 * SIM_NS_PER_US;                  /* 2 partitions per source task */
        c.source_rate_per_s = 2 * SIM_NS_PER_S / c.broker.event_gap_ns;
        pipeline *p = make(&c);
        pipe_run(p);
        const pipe_stats *st = pipe_get_stats(p);
        assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
        latency_ms[async] = (double)st->latency_ns_sum / (double)st->visible_records / 1e6;
        vsec[async] = (double)pipe_sim(p)->now_ns / 1e9;
        pipe_destroy(p);
    }
    print_message("sync: %.3f virtual s, latency mean %.3f ms; async: %.3f s, %.3f ms\n", vsec[0], latency_ms[0],
                  vsec[1], latency_ms[1]);
    assert_true(latency_ms[0] > 5 * latency_ms[1]);
    assert_true(vsec[0] > 1.1 * vsec[1]);
    assert_true(latency_ms[1] < 5.0);             /* async keeps up with the input */
}

/* Records processed after the barrier never leak into the snapshot: the
 * state restored after a crash equals the failure-free run's. The
 * deliberate bug no-copy-on-write (read the live state when writing) is
 * caught on the same run. */
static void test_updates_after_the_barrier_stay_out_of_the_snapshot(void **state) {
    (void)state;
    pipe_cfg c = chain(3, 2, 20000, 500);
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.state.store.bandwidth_bytes_per_s = 2000000;           /* slow writes: much happens meanwhile */
    crash_machine_at(&c, 1, 97 * SIM_NS_PER_MS, 10 * SIM_NS_PER_MS);
    pipeline *ref = reference(&c);
    pipeline *p = make(&c);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(pipe_get_stats(p)->restarts >= 1);
    assert_true(pipe_get_stats(p)->completed >= 2);
    assert_same_state(ref, p);
    pipe_destroy(p);
    c.bug = PIPE_BUG_NO_COW;
    p = make(&c);
    pipe_run(p);
    pipe_state_diff d;
    assert_false(pipe_compare_states(ref, p, &d));
    print_message("no-copy-on-write: vertex %u key %llu, %llu records vs %llu\n", d.vertex, (unsigned long long)d.key,
                  (unsigned long long)d.records_b, (unsigned long long)d.records_a);
    pipe_destroy(p);
    pipe_destroy(ref);
}

/* The acknowledgement waits for the write: with the deliberate bug
 * ack-before-write a checkpoint completes before its files exist, and the
 * restore after a crash misses that state. */
static void test_acknowledging_before_the_write_loses_state(void **state) {
    (void)state;
    pipe_cfg c = chain(3, 2, 20000, 500);
    c.state.backend = PIPE_BACKEND_MEMORY;                  /* no metadata write to wait for */
    c.state.memory.bandwidth_bytes_per_s = 1000000;         /* writes take longer than barriers */
    crash_machine_at(&c, 1, 77 * SIM_NS_PER_MS, 10 * SIM_NS_PER_MS);
    pipeline *ref = reference(&c);
    pipeline *p = make(&c);
    pipe_run(p);
    assert_true(pipe_get_stats(p)->restarts >= 1);
    assert_true(pipe_get_stats(p)->completed >= 1);
    assert_same_state(ref, p);
    pipe_destroy(p);
    c.bug = PIPE_BUG_EARLY_ACK;
    p = make(&c);
    pipe_run(p);
    pipe_state_diff d;
    assert_false(pipe_compare_states(ref, p, &d));
    print_message("ack-before-write: vertex %u key %llu, %llu records vs %llu\n", d.vertex, (unsigned long long)d.key,
                  (unsigned long long)d.records_b, (unsigned long long)d.records_a);
    pipe_destroy(p);
    pipe_destroy(ref);
}

/* A failing store declines the snapshots written in its window; the job
 * goes on (within tolerable failures) and stays exactly-once. */
static void test_failed_writes_decline_the_checkpoint(void **state) {
    (void)state;
    pipe_cfg c = chain(2, 2, 20000, 500);
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.ckpt.tolerable_failures = 100;
    c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_DEV_FAIL, .target = 0, .at_ns = 30 * SIM_NS_PER_MS,
                                               .duration_ns = 60 * SIM_NS_PER_MS, .ratio = SIM_RATIO_ALWAYS };
    pipeline *ref = reference(&c);
    pipeline *p = make(&c);
    assert_int_equal(pipe_store_dev(p), 0);
    pipe_run(p);
    const pipe_stats *st = pipe_get_stats(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(st->declined >= 2);
    assert_true(st->async_failures >= 2);
    assert_true(st->completed >= 2);
    assert_same_state(ref, p);
    pipe_destroy(p);
    pipe_destroy(ref);
}

/* ---- P7: incremental checkpoints ---------------------------------------- */

static void test_incremental_chains_restore_the_full_state_and_keep_shared_files(void **state) {
    (void)state;
    pipe_cfg c = chain(5, 2, 40000, 20000);
    c.broker.dist = BROKER_ZIPF;                  /* a few hot keys change, most do not */
    c.broker.zipf_s_milli = 1300;
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.state.incremental = true;
    c.state.full_every = 4;
    c.ckpt.retained = 2;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    crash_machine_at(&c, 1, 53 * SIM_NS_PER_MS, 5 * SIM_NS_PER_MS);
    crash_machine_at(&c, 0, 111 * SIM_NS_PER_MS, 5 * SIM_NS_PER_MS);
    crash_machine_at(&c, 1, 163 * SIM_NS_PER_MS, 5 * SIM_NS_PER_MS);
    pipeline *ref = reference(&c);
    pipeline *p = make(&c);
    store_watch w = { .p = p };
    pipe_observe(p, watch_store, &w);
    pipe_run(p);
    const pipe_stats *st = pipe_get_stats(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(st->restarts >= 3);
    assert_true(st->completed >= 8);
    assert_true(st->files_shared > st->files_created / 2);   /* increments refer to earlier files */
    assert_int_equal(st->restore_failures, 0);
    assert_true(w.checks > 10);
    assert_int_equal(w.dead_referenced, 0);
    assert_same_state(ref, p);
    uint64_t incr_bytes = st->bytes_written;
    pipe_destroy(p);
    /* The same run with full snapshots writes more. */
    c.state.incremental = false;
    p = make(&c);
    pipe_run(p);
    print_message("bytes in completed checkpoints: incremental %llu, full %llu\n", (unsigned long long)incr_bytes,
                  (unsigned long long)pipe_get_stats(p)->bytes_written);
    assert_true(incr_bytes * 2 < pipe_get_stats(p)->bytes_written);
    assert_same_state(ref, p);
    pipe_destroy(p);
    /* Deleting a shared file when its first checkpoint is dropped is caught. */
    /* Every seed keeps a dead file referenced; whether a restore reads one
     * depends on where the trigger grid (its random start) puts the
     * checkpoints the crashes restore: some seed of 5..12 must. */
    c.state.incremental = true;
    c.bug = PIPE_BUG_SHARED_DELETE;
    uint64_t failed_restores = 0;
    for (uint64_t seed = 5; seed <= 12; seed++) {
        c.seed = seed;
        p = make(&c);
        w = (store_watch){ .p = p };
        pipe_observe(p, watch_store, &w);
        pipe_run(p);
        assert_true(w.dead_referenced > 0);
        failed_restores += pipe_get_stats(p)->restore_failures;
        pipe_destroy(p);
    }
    assert_true(failed_restores > 0);
    pipe_destroy(ref);
}

/* What holds files at the end of a run goes: the retained checkpoints'
 * references, the coordinator's on finished tasks' final state, and the
 * completed-checkpoint store's entries, the checkpoint directories still
 * open (of checkpoints pending at the end,
 * and directory 0 of the final state). None may be the directory of an
 * aborted checkpoint (bit set in aborted[], if given): aborting a
 * checkpoint releases its directory. */
static void drop_everything(pipeline *p, const uint64_t *aborted) {
    for (uint32_t i = 0; i < p->jm.slots_count; i++) {
        if (p->jm.slots[i].ckpt != 0) coord_slot_release(&p->jm, &p->jm.slots[i]);
    }
    coord_forget_finished(&p->jm);
    while (p->w.ha.count > 0) ha_remove(&p->jm, p->w.ha.entries[0].ckpt);   /* the checkpoint store's references */
    while (p->w.files.holds_count > 0) {
        uint64_t ckpt = p->w.files.holds[0].ckpt;
        if (aborted != NULL && ckpt > 0 && ckpt < 4096) assert_false(aborted[ckpt / 64] >> (ckpt % 64) & 1);
        assert_true(store_dir_release(&p->w.files, ckpt) > 0);
    }
}

/* Once every checkpoint is dropped, no file is left: restart the job
 * many times and then compare the registry with the live checkpoints. */
static void test_no_file_outlives_its_last_reference(void **state) {
    (void)state;
    pipe_cfg c = chain(9, 2, 20000, 2000);
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.state.incremental = true;
    c.state.full_every = 3;
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    c.ckpt.retained = 3;
    for (uint32_t i = 0; i < 6; i++) crash_machine_at(&c, i % 2, (21 + 17 * i) * SIM_NS_PER_MS, 3 * SIM_NS_PER_MS);
    pipeline *p = make(&c);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    assert_true(pipe_get_stats(p)->restarts >= 6);
    store_stats before = store_get_stats(&p->w.files);
    assert_true(before.files_deleted > 0);
    drop_everything(p, NULL);                     /* every checkpoint, final state and directory */
    store_stats after = store_get_stats(&p->w.files);
    print_message("files created %llu, deleted during the run %llu, live before the drop %llu, after %llu\n",
                  (unsigned long long)after.files_created, (unsigned long long)before.files_deleted,
                  (unsigned long long)before.files_live, (unsigned long long)after.files_live);
    assert_int_equal(after.files_live, 0);
    assert_int_equal(after.entries_live, 0);
    pipe_destroy(p);
}

/* An acknowledgement carries the task's state handle: when it is lost,
 * the checkpoint never holds that task's files (it times out), and its
 * directory goes with it, so nothing written for a lost ack outlives the
 * run. */
typedef struct ack_watch {
    pipeline *p;
    uint32_t  task;
    uint64_t  acks_sent, aborted, held_without_ack;
    uint64_t  acked[64];              /* bit: the task sent an ack for checkpoint id (< 4096) */
    uint64_t  aborted_ids[64];        /* bit: checkpoint id aborted */
} ack_watch;

static void watch_acks(void *ctx, const pipe_event *e) {
    ack_watch *w = ctx;
    if (e->kind == PIPE_EV_ACK && e->task == w->task && e->ckpt < 4096) {
        w->acks_sent++;
        w->acked[e->ckpt / 64] |= 1ull << (e->ckpt % 64);
    }
    if (e->kind == PIPE_EV_CKPT_ABORT && e->ckpt < 4096) {
        w->aborted++;
        w->aborted_ids[e->ckpt / 64] |= 1ull << (e->ckpt % 64);
    }
    for (uint32_t i = 0; i < w->p->jm.slots_count; i++) {   /* a slot holds the task's chain only from its ack */
        const rt_slot *s = &w->p->jm.slots[i];
        bool sent = s->ckpt < 4096 && (w->acked[s->ckpt / 64] >> (s->ckpt % 64) & 1);
        if (s->ckpt != 0 && s->chains[w->task].count > 0 && !sent) w->held_without_ack++;
    }
}

static void test_a_lost_ack_loses_its_state_handle_and_leaks_no_file(void **state) {
    (void)state;
    pipe_cfg c = chain(3, 2, 20000, 1000);
    c.state.backend = PIPE_BACKEND_DURABLE;
    c.state.incremental = true;
    c.ckpt.interval_ns = 5 * SIM_NS_PER_MS;
    c.ckpt.timeout_ns = 15 * SIM_NS_PER_MS;
    c.ckpt.max_concurrent = 3;
    c.ckpt.tolerable_failures = 1000;
    pipeline *p = make(&c);
    uint32_t agg0 = 4;                                    /* source 0,1; map 2,3; agg 4,5; sink 6 */
    assert_string_equal(pipe_sim(p)->actor_names[agg0], "agg[0]");
    fault_add(pipe_sim(p), &(fault_spec){ .kind = FAULT_LINK_LOSS, .target = p->tm.tasks[agg0].rpc_to_coord,
                                          .ratio = { 1, 1 }, .at_ns = 12 * SIM_NS_PER_MS,
                                          .duration_ns = 20 * SIM_NS_PER_MS });
    ack_watch w = { .p = p, .task = agg0 };
    pipe_observe(p, watch_acks, &w);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    print_message("acks sent by agg[0] %llu, lost %llu; checkpoints completed %llu, timed out %llu, declined %llu\n",
                  (unsigned long long)w.acks_sent, (unsigned long long)pipe_sim(p)->links[p->tm.tasks[agg0].rpc_to_coord].lost,
                  (unsigned long long)pipe_get_stats(p)->completed, (unsigned long long)pipe_get_stats(p)->timed_out,
                  (unsigned long long)pipe_get_stats(p)->declined);
    assert_true(pipe_sim(p)->links[p->tm.tasks[agg0].rpc_to_coord].lost >= 2);
    assert_true(pipe_get_stats(p)->timed_out >= 2);       /* the checkpoints whose acks were lost */
    assert_true(pipe_get_stats(p)->completed >= 3);
    assert_int_equal(w.held_without_ack, 0);
    drop_everything(p, w.aborted_ids);            /* no directory of an aborted checkpoint is left */
    assert_int_equal(store_get_stats(&p->w.files).files_live, 0);
    pipe_destroy(p);
}

/* Completion notices to agg[0] held back while ten or more checkpoints
 * complete: more written snapshots await their
 * notice than the task remembers (PIPE_CONCURRENT_MAX + 1). Flink's task
 * keeps them all (an unbounded map); absim's forgets the oldest, whose
 * holds the coordinator releases with its directory. The run must go on
 * exactly-once, every checker content, with no file left over. */
static void delay_notices_to_agg0(pipeline *p, void *ctx) {
    sim_time_ns window_ns = *(const sim_time_ns *)ctx;
    uint32_t link = p->jm.coord.rpc_to_task[jm_slot_of(&p->jm, 4)];   /* agg[0]: source 0,1; map 2,3; agg 4,5 */
    fault_add(pipe_sim(p), &(fault_spec){ .kind = FAULT_LINK_DELAY, .target = link, .at_ns = 10 * SIM_NS_PER_MS,
                                          .duration_ns = window_ns, .delay_ns = window_ns + 8 * SIM_NS_PER_MS });
}

static void test_notices_late_for_many_checkpoints_forget_the_oldest_snapshot_and_lose_nothing(void **state) {
    (void)state;
    for (pipe_mode mode = PIPE_ALIGNED; mode <= PIPE_UNALIGNED; mode += PIPE_UNALIGNED - PIPE_ALIGNED) {
        pipe_cfg c = chain(2, 2, 5000, 500);
        c.ckpt.mode = mode;                       /* unaligned: channel-state files are held too */
        if (mode == PIPE_UNALIGNED) c.graph.vertices[3].cost_ns = 12000;   /* a slow sink: in-flight data to persist */
        c.state.backend = PIPE_BACKEND_DURABLE;
        c.state.incremental = true;
        c.ckpt.interval_ns = SIM_NS_PER_MS;
        c.ckpt.timeout_ns = 30 * SIM_NS_PER_MS;
        c.ckpt.max_concurrent = mode == PIPE_UNALIGNED ? 1 : PIPE_CONCURRENT_MAX;   /* as Flink requires */
        c.heartbeat_timeout_ns = SIM_NS_PER_S;    /* heartbeats wait behind the held notices: no loss declared */
        sim_time_ns window_ns = (mode == PIPE_UNALIGNED ? 150 : 12) * SIM_NS_PER_MS;   /* ten or more completions */
        checked_run r = run_checked_with(&c, delay_notices_to_agg0, &window_ns);
        print_message("mode %d: %llu completed, %llu snapshots forgotten, %llu unaligned\n", (int)mode,
                      (unsigned long long)r.stats.completed, (unsigned long long)r.stats.snapshots_forgotten,
                      (unsigned long long)r.stats.unaligned_triggers);
        assert_int_equal(r.status, PIPE_FINISHED);
        assert_true(r.reach[PIPE_REACH_NOTICE_TABLE_FULL] > 0);
        if (r.report.kept_count > 0) fail_msg("%s", r.report.kept[0].what);
        assert_true(r.report.state_known && r.report.state_equal);
        assert_true(r.stats.completed > 2 * (PIPE_CONCURRENT_MAX + 1));
    }
}

/* ---- P5: unaligned checkpoints -------------------------------------------- */

typedef struct bp_result {
    double   duration_ms_mean, alignment_ms_mean;
    uint64_t completed, cs_bytes;
} bp_result;

/* A slow sink backpressures the keyed aggregates: aligned barriers wait
 * behind the queued buffers, unaligned ones overtake them. */
static bp_result backpressure_run(pipe_mode mode, bool slow, sim_time_ns alignment_timeout_ns) {
    pipe_cfg c = chain(4, 2, 30000, 500);
    c.ckpt.mode = mode;
    c.ckpt.alignment_timeout_ns = alignment_timeout_ns;
    c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
    c.credits = 8;
    c.out_queue = 8;
    if (slow) c.graph.vertices[3].cost_ns = 12000;   /* the sink: far below the sources' rate */
    pipeline *p = make(&c);
    pipe_run(p);
    assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
    const pipe_stats *st = pipe_get_stats(p);
    bp_result r = { .completed = st->completed, .cs_bytes = st->cs_bytes };
    r.duration_ms_mean = st->completed ? (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6 : 0;
    r.alignment_ms_mean = st->alignments ? (double)st->alignment_ns_sum / (double)st->alignments / 1e6 : 0;
    pipe_destroy(p);
    return r;
}

static void test_unaligned_duration_stays_flat_under_backpressure(void **state) {
    (void)state;
    bp_result a0 = backpressure_run(PIPE_ALIGNED, false, 0), a1 = backpressure_run(PIPE_ALIGNED, true, 0);
    bp_result u0 = backpressure_run(PIPE_UNALIGNED, false, 0), u1 = backpressure_run(PIPE_UNALIGNED, true, 0);
    bp_result t1 = backpressure_run(PIPE_ALIGNED, true, 2 * SIM_NS_PER_MS);
    print_message("mean duration / alignment (ms), persisted bytes:\n"
                  "  aligned   no backpressure %.3f / %.3f  backpressure %.3f / %.3f\n"
                  "  unaligned no backpressure %.3f / %.3f  backpressure %.3f / %.3f  (%llu bytes)\n"
                  "  aligned, 2ms timeout, backpressure %.3f / %.3f (%llu bytes)\n",
                  a0.duration_ms_mean, a0.alignment_ms_mean, a1.duration_ms_mean, a1.alignment_ms_mean,
                  u0.duration_ms_mean, u0.alignment_ms_mean, u1.duration_ms_mean, u1.alignment_ms_mean,
                  (unsigned long long)u1.cs_bytes, t1.duration_ms_mean, t1.alignment_ms_mean,
                  (unsigned long long)t1.cs_bytes);
    assert_true(a1.duration_ms_mean > 3 * a0.duration_ms_mean);   /* aligned grows with the buffered data */
    assert_true(u1.duration_ms_mean < 2 * u0.duration_ms_mean);   /* unaligned stays flat */
    assert_true(u1.duration_ms_mean * 3 < a1.duration_ms_mean);
    assert_true(u1.cs_bytes > 0);
    assert_true(t1.duration_ms_mean < a1.duration_ms_mean);       /* the timeout caps alignment */
    assert_true(t1.cs_bytes > 0);
}

/* Channel state is replayed on restore and exactly-once state holds, for
 * unaligned checkpoints and for aligned ones that timed out. */
static void test_unaligned_recovery_replays_channel_state_exactly_once(void **state) {
    (void)state;
    for (int variant = 0; variant < 2; variant++) {
        for (uint64_t seed = 1; seed <= 4; seed++) {
            pipe_cfg c = chain(seed, 2, 20000, 500);
            c.ckpt.mode = variant == 0 ? PIPE_UNALIGNED : PIPE_ALIGNED;
            c.ckpt.alignment_timeout_ns = variant == 0 ? 0 : SIM_NS_PER_MS;
            c.ckpt.interval_ns = 10 * SIM_NS_PER_MS;
            c.jitter_ns = 2 * SIM_NS_PER_MS;
            c.graph.vertices[3].cost_ns = 8000;   /* backpressure: buffers in flight */
            crash_machine_at(&c, (uint32_t)seed % 2, (60 + 13 * seed) * SIM_NS_PER_MS, 5 * SIM_NS_PER_MS);
            pipeline *ref = reference(&c);
            pipeline *p = make(&c);
            pipe_run(p);
            const pipe_stats *st = pipe_get_stats(p);
            assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
            assert_true(st->restarts >= 1);
            assert_true(st->unaligned_triggers > 0);
            assert_true(st->cs_bytes > 0);
            if (variant == 1) assert_true(st->alignment_timeouts > 0);
            assert_same_state(ref, p);
            pipe_destroy(p);
            pipe_destroy(ref);
        }
    }
}

/* ---- coordinator failover -------------------------------------------------- */

typedef struct failover_watch {
    pipeline *p;
    uint64_t  read_at_failover;
} failover_watch;

static void watch_failover(void *ctx, const pipe_event *e) {
    failover_watch *w = ctx;
    if (e->kind == PIPE_EV_COORD_FAILOVER) w->read_at_failover = pipe_get_stats(w->p)->records_read;
}

/* After a coordinator crash a new one takes over. With the durable store
 * it recovers the latest completed checkpoint and sources replay only
 * what followed it; with the memory backend the checkpoints died with the
 * coordinator and every source reads its partitions again from offset 0.
 * The state is exactly-once either way. */
static void test_coordinator_crash_resumes_from_the_latest_checkpoint_with_a_durable_store(void **state) {
    (void)state;
    for (int durable = 0; durable < 2; durable++) {
        pipe_cfg c = chain(6, 2, 20000, 500);
        c.state.backend = durable ? PIPE_BACKEND_DURABLE : PIPE_BACKEND_MEMORY;
        pipeline *ref = reference(&c);
        pipeline *p = make(&c);
        fault_add(pipe_sim(p), &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = pipe_coord_actor(p),
                                              .at_ns = 50 * SIM_NS_PER_MS, .duration_ns = 20 * SIM_NS_PER_MS });
        failover_watch w = { .p = p };
        pipe_observe(p, watch_failover, &w);
        pipe_run(p);
        const pipe_stats *st = pipe_get_stats(p);
        uint64_t all = pipe_get_stats(ref)->records_read;
        print_message("%s: failovers %llu, checkpoints lost %llu, records read %llu before the failover, %llu in all "
                      "(input %llu)\n", durable ? "durable" : "memory", (unsigned long long)st->failovers,
                      (unsigned long long)st->checkpoints_lost, (unsigned long long)w.read_at_failover,
                      (unsigned long long)st->records_read, (unsigned long long)all);
        assert_int_equal(pipe_get_status(p), PIPE_FINISHED);
        assert_int_equal(st->failovers, 1);
        assert_true(w.read_at_failover > all / 4);
        assert_same_state(ref, p);                /* exactly-once state either way */
        if (durable) {
            assert_int_equal(st->checkpoints_lost, 0);
            assert_true(st->records_read < w.read_at_failover + all);   /* resumed after S_k */
        } else {
            assert_true(st->checkpoints_lost >= 1);
            assert_int_equal(st->records_read, w.read_at_failover + all);   /* every record again */
        }
        pipe_destroy(p);
        pipe_destroy(ref);
    }
}

/* ---- every mechanism together, under random crashes ------------------------ */

/* Seven configurations (incremental on a durable store, unaligned, aligned
 * with an alignment timeout, synchronous snapshots with concurrent
 * checkpoints, unaligned incremental, concurrent incremental with a slow
 * store, and a forward chain with a slow sink and an alignment timeout),
 * a two-phase-commit sink, and per seed four machine crashes, a
 * failing store every third seed and a coordinator crash every fourth:
 * state and committed output stay exactly-once. (A memory backend loses
 * its checkpoints with the coordinator: the job starts over and committed
 * output is then shown again; only state is checked in that case.) */
static void test_every_mode_stays_exactly_once_under_random_crashes(void **state) {
    (void)state;
    uint32_t runs = 0, failovers = 0, unaligned = 0;
    for (int k = 0; k < 7; k++) {
        for (uint64_t seed = 1; seed <= 40; seed++) {
            pipe_cfg c = pipe_cfg_default(seed);
            bool forward = k == 6;                /* single-input tasks: priority barriers finish alignment */
            job_add_chain(&c.graph, &(job_chain){ .parallelism = { 2, forward ? 2 : 3, 2, 2 },
                                                  .into = { 0, forward ? JOB_FORWARD : JOB_REBALANCE, JOB_HASH,
                                                            forward ? JOB_FORWARD : JOB_HASH },
                                                  .cost_ns = { 2000, 1000, 3000, forward ? 12000 : 2500 } });
            c.graph.vertices[3].sink = JOB_SINK_2PC;
            c.broker.partitions = 4;
            c.broker.records_per_partition = 5000;
            c.broker.keys = 300;
            c.machines = 3;
            c.jitter_ns = SIM_NS_PER_MS;
            c.ckpt.interval_ns = 7 * SIM_NS_PER_MS;
            c.ckpt.tolerable_failures = 1000;
            c.restart.delay_ns = 3 * SIM_NS_PER_MS;
            c.restart.attempts = 1000;
            switch (k) {
            case 0: c.state.backend = PIPE_BACKEND_DURABLE; c.state.incremental = true; c.state.full_every = 2;
                    c.ckpt.retained = 2; break;
            case 1: c.ckpt.mode = PIPE_UNALIGNED; break;
            case 2: c.ckpt.alignment_timeout_ns = SIM_NS_PER_MS; c.state.backend = PIPE_BACKEND_DURABLE; break;
            case 3: c.state.async = false; c.ckpt.max_concurrent = 3; c.ckpt.interval_ns = 3 * SIM_NS_PER_MS; break;
            case 4: c.ckpt.mode = PIPE_UNALIGNED; c.state.backend = PIPE_BACKEND_DURABLE; c.state.incremental = true;
                    c.state.full_every = 3; break;
            case 5: c.ckpt.max_concurrent = 4; c.ckpt.interval_ns = 2 * SIM_NS_PER_MS; c.state.incremental = true;
                    c.ckpt.retained = 3; c.state.store.latency_ns = 3 * SIM_NS_PER_MS;
                    c.state.backend = PIPE_BACKEND_DURABLE; break;
            default: c.ckpt.alignment_timeout_ns = SIM_NS_PER_MS; c.credits = 8; c.out_queue = 8; break;
            }
            pipeline *ref = reference(&c);
            rng r;
            rng_seed(&r, seed, 77);
            for (int f = 0; f < 4; f++) {
                crash_machine_at(&c, rng_below(&r, 3), (5 + rng_below(&r, 60)) * SIM_NS_PER_MS, 2 * SIM_NS_PER_MS);
            }
            if (seed % 3 == 0) {
                c.faults[c.faults_count++] = (fault_spec){ .kind = FAULT_DEV_FAIL, .target = 0, .at_ns = 20 * SIM_NS_PER_MS,
                                                           .duration_ns = 20 * SIM_NS_PER_MS, .ratio = { 1, 3 } };
            }
            pipeline *p = make(&c);
            if (seed % 4 == 1) {
                fault_add(pipe_sim(p), &(fault_spec){ .kind = FAULT_ACTOR_CRASH, .target = pipe_coord_actor(p),
                                                      .at_ns = (5 + rng_below(&r, 50)) * SIM_NS_PER_MS,
                                                      .duration_ns = 4 * SIM_NS_PER_MS });
            }
            pipe_run(p);
            const pipe_stats *st = pipe_get_stats(p);
            pipe_output_diff o;
            pipe_compare_output(ref, p, &o);
            bool memory_failover = c.state.backend == PIPE_BACKEND_MEMORY && st->failovers > 0;
            if (pipe_get_status(p) != PIPE_FINISHED || o.lost > 0 || (o.duplicated > 0 && !memory_failover) ||
                st->restore_failures > 0) {
                fail_msg("config %d seed %llu: status %s, %llu lost, %llu duplicated, %llu restore failures", k,
                         (unsigned long long)seed, pipe_status_name(pipe_get_status(p)), (unsigned long long)o.lost,
                         (unsigned long long)o.duplicated, (unsigned long long)st->restore_failures);
            }
            assert_same_state(ref, p);
            runs++;
            failovers += st->failovers > 0;
            unaligned += st->unaligned_triggers > 0;
            pipe_destroy(p);
            pipe_destroy(ref);
        }
    }
    print_message("%u runs, %u with a failover, %u with unaligned triggers\n", runs, failovers, unaligned);
    assert_true(failovers >= 60);
    assert_true(unaligned >= 120);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sync_part_costs_the_same_for_10_and_100000_keys),
        cmocka_unit_test(test_synchronous_snapshots_cost_throughput_and_latency),
        cmocka_unit_test(test_updates_after_the_barrier_stay_out_of_the_snapshot),
        cmocka_unit_test(test_acknowledging_before_the_write_loses_state),
        cmocka_unit_test(test_failed_writes_decline_the_checkpoint),
        cmocka_unit_test(test_incremental_chains_restore_the_full_state_and_keep_shared_files),
        cmocka_unit_test(test_no_file_outlives_its_last_reference),
        cmocka_unit_test(test_a_lost_ack_loses_its_state_handle_and_leaks_no_file),
        cmocka_unit_test(test_notices_late_for_many_checkpoints_forget_the_oldest_snapshot_and_lose_nothing),
        cmocka_unit_test(test_unaligned_duration_stays_flat_under_backpressure),
        cmocka_unit_test(test_unaligned_recovery_replays_channel_state_exactly_once),
        cmocka_unit_test(test_coordinator_crash_resumes_from_the_latest_checkpoint_with_a_durable_store),
        cmocka_unit_test(test_every_mode_stays_exactly_once_under_random_crashes),
    };
    return cmocka_run_group_tests_name("snap", tests, NULL, NULL);
}
