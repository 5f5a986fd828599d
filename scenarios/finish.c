/* scenarios/finish.c: the checks of a whole scenario file once every
 * line is read: the job, topics, faults against the expanded job, the
 * heartbeat, slots, windows, rescales. Errors point at the line that
 * set what is wrong. */
#include "fkind.h"
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Incremental checkpoints with the memory backend: Flink's HashMapStateBackend
 * has none (only RocksDB and the changelog backend do), so the file says
 * something Flink cannot do; the line that asked for them is named. */
static bool finish_incremental(pctx *c) {
    if (!c->s->cfg.state.incremental || c->s->cfg.state.backend != PIPE_BACKEND_MEMORY) return true;
    return lex_fail_on(c, c->incremental_line, c->incremental_col, "incremental checkpoints need 'state backend durable' (Flink offers them with "
                   "RocksDB or the changelog backend, whose files are in durable storage; the memory backend keeps full "
                   "snapshots)");
}

/* The column of a vertex's or an edge's field as written, or of the
 * vertex's name (the edge's upstream vertex) for one left at its default. */
static uint32_t place_col(const place *at, job_field field, bool edge) {
    return at->col[field] > 0 ? at->col[field] : at->col[edge ? JOB_FIELD_FROM : JOB_FIELD_VERTEX];
}

/* Each topic read by exactly one source: a second reader is refused at
 * its vertex, a named topic no source reads at its statement. The default
 * topic, when no source reads it, holds nothing (its records would never
 * be read), unless the file wrote it: then that statement is refused. */
static bool finish_topics(pctx *c) {
    pipe_cfg *g = &c->s->cfg;
    uint32_t reader[BROKER_TOPICS_MAX];
    for (uint32_t t = 0; t < BROKER_TOPICS_MAX; t++) reader[t] = UINT32_MAX;
    for (uint32_t v = 0; v < g->graph.vertices_count; v++) {
        const job_vertex *x = &g->graph.vertices[v];
        if (x->kind != JOB_SOURCE) continue;
        const place *at = &c->vertex_at[v];
        if (reader[x->topic] != UINT32_MAX) {
            const char *name = x->topic == 0 ? "the default topic" : g->broker.more[x->topic - 1].name;
            return lex_fail_on(c, at->line, at->topic_col > 0 ? at->topic_col : at->col[JOB_FIELD_VERTEX],
                           "%s: %s%s is read by source %s already (a topic has one source: declare another with "
                           "`broker topic NAME ...` and read it with `topic NAME`)", x->name, x->topic == 0 ? "" : "topic ",
                           name, g->graph.vertices[reader[x->topic]].name);
        }
        reader[x->topic] = v;
    }
    for (uint32_t t = 1; t < broker_cfg_topics(&g->broker); t++) {
        if (reader[t] != UINT32_MAX) continue;
        return lex_fail_on(c, c->topic_line[t], c->topic_col[t], "topic %s is read by no source (add `vertex NAME source "
                       "topic %s`)", g->broker.more[t - 1].name, g->broker.more[t - 1].name);
    }
    if (reader[0] == UINT32_MAX && g->graph.vertices_count > 0) {
        if (c->topic_line[0] > 0) {
            return lex_fail_on(c, c->topic_line[0], 1, "the default topic is read by no source (every source names a topic: "
                           "name this one too, `broker topic NAME ...`, or read it with a source without `topic`)");
        }
        g->broker.partitions = 0;                 /* the default topic holds nothing */
    }
    if (broker_cfg_records(&g->broker) > (1u << 30)) {
        uint32_t t = broker_cfg_topics(&g->broker) - 1;   /* the last topic made it too many */
        return lex_fail_on(c, c->topic_line[t], c->topic_size_col[t], "%llu records in all topics, more than 2^30 (the "
                       "sinks count each one)", (unsigned long long)broker_cfg_records(&g->broker));
    }
    return true;
}

/* The job must be valid (job_check), each problem on the statement that
 * caused it; a job with no vertices at the top of the file. pipe_create
 * checks the same again, without a place. */
static bool finish_job(pctx *c) {
    const pipe_cfg *g = &c->s->cfg;
    char buf[200];
    job_where w;
    if (job_check(&g->graph, &w, buf, sizeof buf) != NULL) {
        if (w.field == JOB_FIELD_JOB) return lex_fail_on(c, 1, 1, "%s", buf);
        bool edge = w.field >= JOB_FIELD_FROM;
        const place *at = edge ? &c->edge_at[w.index] : &c->vertex_at[w.index];
        return lex_fail_on(c, at->line, place_col(at, w.field, edge), "%s", buf);
    }
    if (!finish_topics(c)) return false;
    for (uint32_t v = 0; v < g->graph.vertices_count; v++) {
        const job_vertex *x = &g->graph.vertices[v];
        if (x->kind != JOB_SOURCE) continue;
        uint32_t col = place_col(&c->vertex_at[v], JOB_FIELD_PARALLELISM, false);
        uint32_t parts = broker_cfg_topic(&g->broker, x->topic).partitions;
        if (x->parallelism > parts) {
            return lex_fail_on(c, c->vertex_at[v].line, col, "%s: parallelism %u above the %u partitions (a source task would read nothing)",
                           x->name, x->parallelism, parts);
        }
        if ((parts + x->parallelism - 1) / x->parallelism > PIPE_SOURCE_PARTS_MAX) {
            return lex_fail_on(c, c->vertex_at[v].line, col,
                           "%s: a source task would read more than %u of the %u partitions (its acknowledgement carries "
                           "their offsets): raise its parallelism or lower the partitions", x->name, PIPE_SOURCE_PARTS_MAX,
                           parts);
        }
    }
    return true;
}

/* The file's job, expanded into mem (created here: the caller destroys
 * it); false when memory is short. */
bool fin_expand_job(const scn *s, job *j, arena *mem) {
    *j = s->cfg.graph;
    if (!arena_create(mem, job_expand_bytes(j))) return false;
    job_expand(j, s->cfg.machines, mem);
    return true;
}

/* Every link a fault names must be a channel of the expanded job, and a
 * store fault needs the store (the memory backend never touches it). */
static bool finish_faults(pctx *c) {
    scn *s = c->s;
    job graph, *j = &graph;
    arena mem;
    if (!fin_expand_job(s, j, &mem)) {
        snprintf(c->err, c->err_bytes, "%s: out of memory", c->path);
        return false;
    }
    bool ok = true;
    for (uint32_t f = 0; f < s->faults_count && ok; f++) {
        const scn_fault *x = &s->faults[f];
        if (fk_of(x->kind)->target != FK_LINK) continue;
        uint32_t a = j->vertex_first_task[x->vertex] + x->subtask, b = j->vertex_first_task[x->vertex2] + x->subtask2;
        bool found = false;
        for (uint32_t ch = 0; ch < j->chans_count && !found; ch++) found = j->chans[ch].producer == a && j->chans[ch].consumer == b;
        if (!found) {
            ok = lex_fail_on(c, x->line, x->col, "there is no channel %s[%u] -> %s[%u] in this job",
                         j->vertices[x->vertex].name, x->subtask, j->vertices[x->vertex2].name, x->subtask2);
        }
    }
    arena_destroy(&mem);
    for (uint32_t f = 0; f < s->faults_count && ok; f++) {
        const scn_fault *x = &s->faults[f];
        const fk_info *k = fk_of(x->kind);
        if ((k->flags & FK_DURABLE) && s->cfg.state.backend != PIPE_BACKEND_DURABLE) {
            ok = lex_fail_on(c, x->line, x->col, "the %s store fault needs 'state backend durable' (the memory backend "
                             "keeps snapshots at the coordinator, not in the store)", k->verb);
        }
    }
    return ok;
}

/* `vary unaligned` draws Flink's test randomisation of unaligned
 * checkpoints (scenarios/random.c): Flink enables them for exactly-once
 * only (CheckpointConfig.enableUnalignedCheckpoints: "can only be enabled
 * if checkpointingMode is EXACTLY_ONCE"), and a rescale here refuses
 * them. Reported at the vary statement. */
static bool finish_vary_unaligned(pctx *c) {
    if (!(c->s->vary & SCN_VARY_UNALIGNED)) return true;
    const pipe_cfg *g = &c->s->cfg;
    if (!g->ckpt.enabled || g->ckpt.mode == PIPE_AT_LEAST_ONCE) {
        return lex_fail_on(c, c->vary_line, c->vary_col, "vary unaligned needs exactly-once checkpoints (checkpoint "
                           "mode aligned or unaligned): Flink enables unaligned checkpoints for exactly-once only");
    }
    for (uint32_t i = 0; i < c->s->faults_count; i++) {
        if (c->s->faults[i].kind != SCN_STOP_JOB) continue;
        return lex_fail_on(c, c->vary_line, c->vary_col, "vary unaligned draws unaligned checkpoints, which a stop "
                           "with a savepoint does not take here (line %u)", c->s->faults[i].line);
    }
    return true;
}

/* The coordinator declares a TaskManager lost when it heard nothing for
 * the timeout; an answer takes an interval to be asked for and a round
 * trip to come, so a timeout not longer than that loses healthy ones.
 * With `vary network` it must hold for every latency that may be drawn.
 * Reported at the network statement that set a heartbeat key last. */
static bool finish_heartbeat(pctx *c) {
    if (c->heartbeat_line == 0) return true;      /* derived: 250 RPC latencies > 50 + 2 */
    pipe_cfg *g = &c->s->cfg;                     /* large: asked as it is, with the latency put back */
    sim_time_ns rpc = g->rpc_latency_ns, interval, timeout;
    bool varied = false;
    for (uint32_t i = 0; i < SCN_VARY_RPC_CHOICES && (c->s->vary & SCN_VARY_NETWORK); i++) {
        if (scn_vary_rpc_ns[i] > rpc) {
            rpc = scn_vary_rpc_ns[i];
            varied = true;
        }
    }
    sim_time_ns written = g->rpc_latency_ns;
    g->rpc_latency_ns = rpc;
    pipe_heartbeat(g, &interval, &timeout);
    g->rpc_latency_ns = written;
    if (timeout > interval + 2 * rpc) return true;
    char t[32], i[32], r[32];
    txt_dur(t, sizeof t, timeout);
    txt_dur(i, sizeof i, interval);
    txt_dur(r, sizeof r, rpc);
    return lex_fail_on(c, c->heartbeat_line, c->heartbeat_col,
                   "network: heartbeat-timeout %s%s must be longer than heartbeat-interval %s%s plus a round trip "
                   "(2 x rpc-latency %s%s), or every TaskManager is declared lost", t,
                   g->heartbeat_timeout_ns == 0 ? " (five intervals)" : "", i,
                   g->heartbeat_interval_ns == 0 ? " (50 RPC latencies)" : "", r,
                   varied ? ", the largest that vary network draws" : "");
}

/* Slot sharing: a slot holds one task of every vertex, so each vertex's
 * parallelism must fit in the slots of all machines, or the job could
 * never be deployed (Flink would wait for resources until it gives up). */
static bool finish_slots(pctx *c) {
    const pipe_cfg *g = &c->s->cfg;
    if (g->task_slots == 0) return true;
    for (uint32_t v = 0; v < g->graph.vertices_count; v++) {
        if (g->graph.vertices[v].parallelism <= g->machines * g->task_slots) continue;
        return lex_fail_on(c, c->slots_line, c->slots_col,
                       "machines %u slots %u give %u slots, fewer than the parallelism %u of vertex %s (a slot holds "
                       "one task of every vertex): raise the slots or the machines", g->machines, g->task_slots,
                       g->machines * g->task_slots, g->graph.vertices[v].parallelism, g->graph.vertices[v].name);
    }
    return true;
}

/* What rescale fault f cannot go with, at the fault (pipe_create checks
 * the same without a place): NULL when it can. */
static const char *rescale_refusal(const pipe_cfg *g, const scn_fault *f, char *buf, size_t n) {
    const job_vertex *x = &g->graph.vertices[f->vertex];
    if (f->parallelism > job_max_parallelism(x)) {
        snprintf(buf, n, "%s: rescale to %u above its max-parallelism %u (its key groups)", x->name, f->parallelism,
                 job_max_parallelism(x));
    } else if (g->task_slots > 0) {
        snprintf(buf, n, "rescaling with slots is not modelled");
    } else if (g->ckpt.finished_tasks_off) {
        snprintf(buf, n, "rescaling with finished-tasks off is not modelled");
    } else if (x->kind == JOB_WINDOW || (x->kind == JOB_SOURCE && x->watermarks)) {
        snprintf(buf, n, "%s: rescaling a window or a source that emits watermarks is not modelled (a window's state "
                 "would have to move with its key groups, a split's watermark with its split)", x->name);
    } else {
        for (uint32_t e = 0; e < g->graph.edges_count; e++) {
            const job_edge *d = &g->graph.edges[e];
            if (d->part != JOB_FORWARD || (d->from != f->vertex && d->to != f->vertex)) continue;
            snprintf(buf, n, "%s: a rescaled vertex takes no forward edge (%s -> %s forward needs equal parallelism)",
                     x->name, g->graph.vertices[d->from].name, g->graph.vertices[d->to].name);
            return buf;
        }
        return NULL;
    }
    return buf;
}

/* The script's rescales go into cfg.rescales, in time order (a stable
 * insertion: equal times keep the file's order), each refused at its
 * fault when it cannot be; the schedule's limits (the largest
 * parallelism's tasks and channels, a source's partitions, the handles a
 * task reads) then as pipe_create says them. */
static bool finish_rescales(pctx *c) {
    pipe_cfg *g = &c->s->cfg;
    char buf[300];
    g->rescales_count = 0;
    for (uint32_t i = 0; i < c->s->faults_count; i++) {
        const scn_fault *f = &c->s->faults[i];
        if (f->kind != SCN_RESCALE) continue;
        if (rescale_refusal(g, f, buf, sizeof buf) != NULL) return lex_fail_on(c, f->line, f->col, "%s", buf);
        uint32_t k = g->rescales_count++;
        while (k > 0 && g->rescales[k - 1].at_ns > f->at_ns) {
            g->rescales[k] = g->rescales[k - 1];
            k--;
        }
        g->rescales[k] = (pipe_rescale){ .at_ns = f->at_ns, .vertex = f->vertex, .parallelism = f->parallelism };
    }
    if (g->rescales_count == 0) return true;
    pipe_mem m;
    if (pipe_memory(g, &m, buf, sizeof buf)) return true;
    for (uint32_t i = c->s->faults_count; i-- > 0;) {   /* the last rescale took it past a limit */
        if (c->s->faults[i].kind == SCN_RESCALE) return lex_fail_on(c, c->s->faults[i].line, c->s->faults[i].col, "%s", buf);
    }
    return false;
}

/* The script's stops and cancels go into cfg.stops, in time order (equal
 * times keep the file's order); what the configuration cannot take is
 * refused at the first of them, with cfg_check's message. */
static bool finish_stops(pctx *c) {
    pipe_cfg *g = &c->s->cfg;
    g->stops_count = 0;
    uint32_t first = UINT32_MAX;
    for (uint32_t i = 0; i < c->s->faults_count; i++) {
        const scn_fault *f = &c->s->faults[i];
        if (f->kind != SCN_STOP_JOB && f->kind != SCN_CANCEL_JOB) continue;
        if (first == UINT32_MAX) first = i;
        uint32_t k = g->stops_count++;
        while (k > 0 && g->stops[k - 1].at_ns > f->at_ns) {
            g->stops[k] = g->stops[k - 1];
            k--;
        }
        g->stops[k] = (pipe_stop){ .at_ns = f->at_ns, .how = f->kind == SCN_STOP_JOB ? PIPE_HALT_STOP : PIPE_HALT_CANCEL,
                                   .resume_ns = f->resume_ns, .claim = (pipe_claim)f->claim, .drain = f->drain };
    }
    if (first == UINT32_MAX) return true;
    char buf[300];
    if (pipe_stops_problem(g, buf, sizeof buf) == NULL) return true;   /* pipe_create says the rest */
    return lex_fail_on(c, c->s->faults[first].line, c->s->faults[first].col, "%s", buf);
}

/* After the whole file: what one statement alone could not tell. */
/* A window the model cannot hold (its windows, state or results): at its
 * statement, with pipe_create's message. */
static bool finish_windows(pctx *c) {
    char msg[SCN_ERR_BYTES];
    uint32_t v;
    if (pipe_window_problem(&c->s->cfg, &v, msg, sizeof msg) == NULL) return true;
    return lex_fail_on(c, c->vertex_at[v].line, c->vertex_at[v].col[JOB_FIELD_KIND], "%s", msg);
}

/* Flink's defaults that depend on the whole file: checkpoints need an
 * interval (execution.checkpointing.interval has no default); with no
 * restart statement, the strategy is exponential delay with checkpoints
 * and none without (RestartBackoffTimeStrategyFactoryLoader, 1.19+). */
static bool finish_flink_defaults(pctx *c) {
    pipe_cfg *g = &c->s->cfg;
    if (g->ckpt.enabled && !c->interval_set) {
        return lex_fail_on(c, c->ckpt_line, c->ckpt_col, "checkpoints need an interval (Flink's "
                       "execution.checkpointing.interval has no default; 'checkpoint off' turns them off)");
    }
    if (!c->restart_set && !g->ckpt.enabled) g->restart.kind = PIPE_RESTART_NONE;
    return true;
}

bool fin_all(pctx *c) {
    return finish_flink_defaults(c) && finish_job(c) && finish_faults(c) && finish_heartbeat(c) && finish_vary_unaligned(c) && finish_incremental(c) &&
           finish_slots(c) && finish_windows(c) && finish_rescales(c) &&
           finish_stops(c);   /* pipe_create checks the rest */
}
