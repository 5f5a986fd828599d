/* scenarios/write.c: a scenario written back as a file (scn_write). */
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The head of a scenario file: run, cluster, network and broker. */
static void write_head(const scn *s, FILE *f) {
    const pipe_cfg *c = &s->cfg;
    char d1[32], d2[32], d3[32], b1[32];
    fprintf(f, "seed %" PRIu64 "\n", c->seed);
    fprintf(f, "bounds time %s events %" PRIu64 "\n", txt_dur(d1, sizeof d1, c->time_max_ns), c->events_max);
    fprintf(f, "machines %u", c->machines);
    if (c->task_slots > 0) fprintf(f, " slots %u", c->task_slots);
    fputc('\n', f);
    fprintf(f, "network latency %s jitter %s bandwidth %s rpc-latency %s", txt_dur(d1, sizeof d1, c->latency_ns),
            txt_dur(d2, sizeof d2, c->jitter_ns), txt_bw(b1, sizeof b1, c->bandwidth_bytes_per_s),
            txt_dur(d3, sizeof d3, c->rpc_latency_ns));
    /* Only when set: 0 is "derived from the RPC latency", which the
     * reader takes as the key left out, and is what vary may change. */
    if (c->heartbeat_interval_ns > 0) fprintf(f, " heartbeat-interval %s", txt_dur(d1, sizeof d1, c->heartbeat_interval_ns));
    if (c->heartbeat_timeout_ns > 0) fprintf(f, " heartbeat-timeout %s", txt_dur(d1, sizeof d1, c->heartbeat_timeout_ns));
    fprintf(f, "\n");
    fprintf(f, "channels credits %u queue %u buffer-timeout %s\n", c->credits, c->out_queue,
            txt_dur(d1, sizeof d1, c->buffer_timeout_ns));
    for (uint32_t t = 0; t < broker_cfg_topics(&c->broker); t++) {   /* an empty default topic: no statement */
        broker_topic_cfg b = broker_cfg_topic(&c->broker, t);
        if (t == 0 && b.partitions == 0) continue;
        fprintf(f, "broker%s%s partitions %u records %" PRIu64 " keys %" PRIu64, t > 0 ? " topic " : "", b.name,
                b.partitions, b.records_per_partition, b.keys);
        if (b.dist == BROKER_ZIPF) {
            fprintf(f, " zipf %u.%03u", b.zipf_s_milli / 1000, b.zipf_s_milli % 1000);
        } else {
            fprintf(f, " uniform");
        }
        fprintf(f, " values %" PRId64 " gap %s", b.value_max, txt_dur(d1, sizeof d1, b.event_gap_ns));
        if (b.disorder_ns > 0) fprintf(f, " disorder %s", txt_dur(d1, sizeof d1, b.disorder_ns));
        fprintf(f, "\n");
    }
}

/* checkpoint, state and restart lines. */
static void write_settings(const scn *s, FILE *f) {
    static const char *const modes[] = { "", "aligned", "at-least-once", "unaligned" };
    const pipe_cfg *c = &s->cfg;
    char d1[32], d2[32], d3[32], d4[32], b1[32], b2[32];
    fprintf(f, "checkpoint mode %s interval %s min-pause %s timeout %s max-concurrent %u tolerable %u retained %u%s",
            modes[c->ckpt.mode], txt_dur(d1, sizeof d1, c->ckpt.interval_ns), txt_dur(d2, sizeof d2, c->ckpt.min_pause_ns),
            txt_dur(d3, sizeof d3, c->ckpt.timeout_ns), c->ckpt.max_concurrent, c->ckpt.tolerable_failures,
            c->ckpt.retained, c->ckpt.legacy_eop ? " legacy-eop" : "");
    if (c->ckpt.finished_tasks_off) fprintf(f, " finished-tasks off");
    if (c->ckpt.alignment_timeout_ns > 0) fprintf(f, " alignment-timeout %s", txt_dur(d1, sizeof d1, c->ckpt.alignment_timeout_ns));
    fprintf(f, "\n");
    if (!c->ckpt.enabled) fprintf(f, "checkpoint off\n");   /* after: a checkpoint statement turns them on */
    const pipe_state_cfg *st = &c->state;
    fprintf(f, "state backend %s %s %s full-every %u sync-cost %s store-latency %s store-bandwidth %s "
            "memory-latency %s memory-bandwidth %s\n",
            st->backend == PIPE_BACKEND_DURABLE ? "durable" : "memory", st->async ? "async" : "sync",
            st->incremental ? "incremental" : "full", st->full_every, txt_dur(d1, sizeof d1, st->sync_ns),
            txt_dur(d2, sizeof d2, st->store.latency_ns), txt_bw(b1, sizeof b1, st->store.bandwidth_bytes_per_s),
            txt_dur(d3, sizeof d3, st->memory.latency_ns), txt_bw(b2, sizeof b2, st->memory.bandwidth_bytes_per_s));
    if (st->changelog) fprintf(f, "state changelog materialize-interval %s\n", txt_dur(d1, sizeof d1, st->materialize_ns));
    const pipe_restart_cfg *r = &c->restart;
    switch (r->kind) {
    case PIPE_RESTART_NONE: fprintf(f, "restart none"); break;
    case PIPE_RESTART_FIXED_DELAY:
        fprintf(f, "restart fixed-delay attempts %u delay %s", r->attempts, txt_dur(d1, sizeof d1, r->delay_ns));
        break;
    case PIPE_RESTART_FAILURE_RATE:
        fprintf(f, "restart failure-rate max %u per %s delay %s", r->max_failures,
                txt_dur(d1, sizeof d1, r->interval_ns), txt_dur(d2, sizeof d2, r->delay_ns));
        break;
    case PIPE_RESTART_EXPONENTIAL:
        fprintf(f, "restart exponential initial %s max %s multiplier %u.%03u reset %s jitter %u.%03u",
                txt_dur(d1, sizeof d1, r->initial_ns), txt_dur(d2, sizeof d2, r->max_ns), r->multiplier_milli / 1000,
                r->multiplier_milli % 1000, txt_dur(d4, sizeof d4, r->reset_ns), r->jitter_milli / 1000,
                r->jitter_milli % 1000);
        if (r->attempts_before_reset != RS_UNLIMITED) fprintf(f, " attempts %u", r->attempts_before_reset);
        break;
    }
    fprintf(f, "%s\n", r->failover == PIPE_FAILOVER_FULL ? " failover full" : "");   /* region: the default */
}

/* A window's shape and lateness, as the reader takes them. */
static void write_window(const job_vertex *x, FILE *f) {
    char d1[32], d2[32];
    if (x->window_slide_ns == x->window_size_ns) fprintf(f, " tumbling %s", txt_dur(d1, sizeof d1, x->window_size_ns));
    else fprintf(f, " sliding %s every %s", txt_dur(d1, sizeof d1, x->window_size_ns), txt_dur(d2, sizeof d2, x->window_slide_ns));
    if (x->lateness_ns > 0) fprintf(f, " lateness %s", txt_dur(d1, sizeof d1, x->lateness_ns));
}

void scn_write(const scn *s, FILE *f) {
    static const char *const kinds[] = { "", "source", "map", "filter", "keyed-aggregate", "union", "keyed-join", "sink",
                                         "window", "committer" };
    static const char *const parts[] = { "", "forward", "rebalance", "hash", "broadcast" };
    static const char *const dists[] = { "", "fixed", "uniform", "exponential" };
    static const char *const outputs[] = { "plain", "idempotent", "two-phase-commit", "sink-v2" };
    const pipe_cfg *c = &s->cfg;
    const job *j = &c->graph;
    char d1[32];
    write_head(s, f);
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        const job_vertex *x = &j->vertices[v];
        fprintf(f, "vertex %s %s", x->name, x->global ? "global-committer" : kinds[x->kind]);
        if (x->kind == JOB_WINDOW) write_window(x, f);
        fprintf(f, " parallelism %u cost %s cost-dist %s", x->parallelism, txt_dur(d1, sizeof d1, x->cost_ns),
                dists[x->cost_dist]);
        if (x->watermarks) fprintf(f, " watermark-delay %s", txt_dur(d1, sizeof d1, x->watermark_delay_ns));
        if (x->watermarks && x->watermark_interval_ns > 0)
            fprintf(f, " watermark-interval %s", txt_dur(d1, sizeof d1, x->watermark_interval_ns));
        if (x->max_parallelism > 0) fprintf(f, " max-parallelism %u", x->max_parallelism);
        if (x->kind == JOB_SOURCE && c->source_rate_per_s > 0) fprintf(f, " rate %" PRIu64 "/s", c->source_rate_per_s);
        if (x->kind == JOB_SOURCE && x->topic > 0) fprintf(f, " topic %s", c->broker.more[x->topic - 1].name);
        if (x->kind == JOB_FILTER) fprintf(f, " keep %u%%", x->keep_percent);
        if (x->kind == JOB_MAP) fprintf(f, " add %" PRId64, x->map_add);
        if (x->kind == JOB_SINK) fprintf(f, " output %s", outputs[x->sink]);
        fprintf(f, "\n");
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {
        fprintf(f, "edge %s -> %s %s\n", j->vertices[j->edges[e].from].name, j->vertices[j->edges[e].to].name,
                parts[j->edges[e].part]);
    }
    write_settings(s, f);
    for (uint32_t i = 0; i < s->cfg.ties_count; i++)
        fprintf(f, "schedule tie %" PRIu64 " pick %u\n", s->cfg.ties[i].at, s->cfg.ties[i].pick);
    if (s->cfg.pct_depth > 0) {
        fprintf(f, "schedule pct depth %u", s->cfg.pct_depth);
        if (s->cfg.pct_steps > 0) fprintf(f, " steps %" PRIu64, s->cfg.pct_steps);
        char d[32];
        if (s->cfg.pct_near_ns > 0) fprintf(f, " near %s", scn_duration_text(d, sizeof d, s->cfg.pct_near_ns));
        fprintf(f, "\n");
    }
    if (s->vary != 0) {
        fprintf(f, "vary%s%s%s%s\n", s->vary & SCN_VARY_CHECKPOINT ? " checkpoint" : "",
                s->vary & SCN_VARY_RESTART ? " restart" : "", s->vary & SCN_VARY_NETWORK ? " network" : "",
                s->vary & SCN_VARY_UNALIGNED ? " unaligned" : "");
    }
    for (uint32_t i = 0; i < s->faults_count; i++) {
        char text[SCN_FAULT_TEXT_BYTES];
        scn_fault_text(s, &s->faults[i], text, sizeof text);
        SIM_ASSERT(strlen(text) + 1 < sizeof text);  /* not cut off: names are short, so any fault fits */
        fprintf(f, "%s\n", text);
    }
    for (uint32_t i = 0; i < s->expects_count; i++) {
        char text[96];
        fprintf(f, "expect %s\n", scn_expect_text(&s->expects[i], text, sizeof text));
    }
}

bool scn_reparse(const scn *s, scn *out, char *err, size_t err_bytes) {
    char *text = NULL, path[sizeof s->path];
    size_t len = 0;
    FILE *w = open_memstream(&text, &len);
    if (w == NULL) {
        snprintf(err, err_bytes, "%s: out of memory", s->path);
        return false;
    }
    scn_write(s, w);
    if (fclose(w) != 0) {
        free(text);
        snprintf(err, err_bytes, "%s: out of memory", s->path);
        return false;
    }
    snprintf(path, sizeof path, "%s", s->path);         /* out may be s */
    bool ok = scn_parse(out, path, text, len, err, err_bytes);
    free(text);
    return ok;
}
