/* scenarios/stmt.c: the scenario reader's statements, one a line (see
 * scenarios/README.md), but faults (sfault.c) and expectations
 * (sexpect.c); scn_parse and scn_load. */
#include "fkind.h"
#include "scn_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool st_seed(pctx *c) {
    return lex_opt_count(c, 0, UINT64_MAX, &c->s->cfg.seed);
}

static bool st_bounds(pctx *c) {
    static const char *const keys[] = { "time", "events", NULL };
    while (lex_more(c)) {
        const tok *k = lex_next(c, "an option");
        if (lex_is(k, "time")) {
            if (!lex_opt_duration(c, &c->s->cfg.time_max_ns)) return false;
        } else if (lex_is(k, "events")) {
            if (!lex_opt_count(c, 1, 1ull << 40, &c->s->cfg.events_max)) return false;
        } else {
            return lex_unknown(c, k, "bounds option", keys);
        }
    }
    return true;
}

static bool st_machines(pctx *c) {
    uint64_t n;
    /* A fault read before took its machine numbers, and jm's, from the
     * count then (jm is the machine after the last one). */
    for (uint32_t i = 0; i < c->s->faults_count; i++) {
        const scn_fault *f = &c->s->faults[i];
        fk_target t = fk_of(f->kind)->target;
        if (t != FK_MACHINE && t != FK_MACHINES) continue;
        return lex_fail_at(c, 1, "declare machines before the faults that name machines (line %u names some)", f->line);
    }
    if (!lex_opt_count(c, 1, PIPE_MACHINES_MAX, &n)) return false;
    c->s->cfg.machines = (uint32_t)n;
    static const char *const keys[] = { "slots", NULL };
    while (lex_more(c)) {                                /* machines N [slots S] */
        const tok *k = lex_next(c, "an option");
        if (!lex_is(k, "slots")) return lex_unknown(c, k, "machines option", keys);
        c->slots_line = c->line;
        c->slots_col = k->col;
        if (!lex_opt_count(c, 1, PIPE_TASK_SLOTS_MAX, &n)) return false;
        c->s->cfg.task_slots = (uint32_t)n;
    }
    return true;
}

/* heartbeat-interval D, heartbeat-timeout D: above 0 (0 means derived
 * from the RPC latency, which is what leaving the key out says). Checked
 * against each other once the whole file is read (finish_heartbeat), as
 * the RPC latency may come later. */
static bool heartbeat_key(pctx *c, const tok *k, sim_time_ns *out) {
    if (!lex_opt_duration(c, out)) return false;
    if (*out == 0) return lex_fail_at(c, k->col, "%.*s must be above 0 (leave it out for the default)", (int)k->len, k->s);
    c->heartbeat_line = c->line;
    c->heartbeat_col = k->col;
    return true;
}

static bool st_network(pctx *c) {
    static const char *const keys[] = { "latency", "jitter", "bandwidth", "rpc-latency", "heartbeat-interval",
                                        "heartbeat-timeout", NULL };
    pipe_cfg *g = &c->s->cfg;
    while (lex_more(c)) {
        const tok *k = lex_next(c, "an option");
        if (lex_is(k, "heartbeat-interval")) {
            if (!heartbeat_key(c, k, &g->heartbeat_interval_ns)) return false;
        } else if (lex_is(k, "heartbeat-timeout")) {
            if (!heartbeat_key(c, k, &g->heartbeat_timeout_ns)) return false;
        } else if (lex_is(k, "latency")) {
            if (!lex_opt_duration(c, &g->latency_ns)) return false;
        } else if (lex_is(k, "jitter")) {
            if (!lex_opt_duration(c, &g->jitter_ns)) return false;
        } else if (lex_is(k, "rpc-latency")) {
            if (!lex_opt_duration(c, &g->rpc_latency_ns)) return false;
        } else if (lex_is(k, "bandwidth")) {
            const tok *t = lex_next(c, "a bandwidth such as 10Gbit/s");
            if (t == NULL || !lex_with_unit(c, t, lex_bandwidth_units, "bandwidth", "10Gbit/s", 1ull << 50, &g->bandwidth_bytes_per_s)) return false;
            if (g->bandwidth_bytes_per_s == 0) return lex_fail_at(c, t->col, "a bandwidth must be above 0 (bit/s: use Kbit/s and up)");
        } else {
            return lex_unknown(c, k, "network option", keys);
        }
    }
    if (g->latency_ns == 0 || g->rpc_latency_ns == 0) return lex_fail_at(c, 1, "latencies must be above 0");
    if (g->jitter_ns >= UINT32_MAX - 1) return lex_fail_at(c, 1, "jitter must stay below 4.29 s");
    return true;
}

static bool st_channels(pctx *c) {
    static const char *const keys[] = { "credits", "queue", "buffer-timeout", NULL };
    pipe_cfg *g = &c->s->cfg;
    uint64_t v;
    while (lex_more(c)) {
        const tok *k = lex_next(c, "an option");
        if (lex_is(k, "credits")) {
            if (!lex_opt_count(c, 1, 64, &v)) return false;
            g->credits = (uint32_t)v;
        } else if (lex_is(k, "queue")) {
            if (!lex_opt_count(c, 1, 64, &v)) return false;
            g->out_queue = (uint32_t)v;
        } else if (lex_is(k, "buffer-timeout")) {
            if (!lex_opt_duration(c, &g->buffer_timeout_ns)) return false;
        } else {
            return lex_unknown(c, k, "channels option", keys);
        }
    }
    return true;
}

/* The options of a `broker` statement, into topic b; *size_col: the
 * option that made its input too large. */
static bool broker_options(pctx *c, broker_topic_cfg *b, uint32_t *size_col) {
    static const char *const keys[] = { "partitions", "records", "keys", "uniform", "zipf", "values", "gap", "disorder",
                                        "topic", NULL };
    uint64_t v;
    while (lex_more(c)) {
        const tok *k = lex_next(c, "an option");
        if (lex_is(k, "partitions")) {
            if (!lex_opt_count(c, 1, 1024, &v)) return false;
            b->partitions = (uint32_t)v;
            *size_col = k->col;
        } else if (lex_is(k, "records")) {
            if (!lex_opt_count(c, 1, 1u << 30, &b->records_per_partition)) return false;
            *size_col = k->col;
        } else if (lex_is(k, "keys")) {
            if (!lex_opt_count(c, 1, BROKER_KEYS_MAX, &b->keys)) return false;
        } else if (lex_is(k, "uniform")) {
            b->dist = BROKER_UNIFORM;
        } else if (lex_is(k, "zipf")) {
            const tok *t = lex_next(c, "a Zipf exponent such as 1.1");
            if (t == NULL || !lex_milli(c, t, 1, 10000, &b->zipf_s_milli)) return false;
            b->dist = BROKER_ZIPF;
        } else if (lex_is(k, "values")) {
            if (!lex_opt_count(c, 1, 1u << 31, &v)) return false;
            b->value_max = (int64_t)v;
        } else if (lex_is(k, "gap")) {
            if (!lex_opt_duration(c, &b->event_gap_ns)) return false;
        } else if (lex_is(k, "disorder")) {
            if (!lex_opt_duration(c, &b->disorder_ns)) return false;
            if (b->disorder_ns > 3600 * SIM_NS_PER_S) return lex_fail_at(c, k->col, "a disorder of more than 1 hour");
        } else if (lex_is(k, "topic")) {
            return lex_fail_at(c, k->col, "'topic' comes first: broker topic NAME partitions ...");
        } else {
            return lex_unknown(c, k, "broker option", keys);
        }
    }
    if ((uint64_t)b->partitions * b->records_per_partition > (1u << 30)) {   /* pipe_create checks it too */
        return lex_fail_at(c, *size_col, "%llu records in all (partitions x records), more than 2^30 (the sinks count each one)",
                       (unsigned long long)b->partitions * b->records_per_partition);
    }
    return true;
}

/* A topic's name: letters, digits, '_' and '-', as a vertex's. */
static bool topic_name(pctx *c, const tok *name) {
    if (name->len >= SIM_NAME_BYTES) return lex_fail_at(c, name->col, "topic names have at most %u characters", SIM_NAME_BYTES - 1);
    for (uint32_t i = 0; i < name->len; i++) {
        char ch = name->s[i];
        if (!isalnum((unsigned char)ch) && ch != '_' && ch != '-') {
            return lex_fail_at(c, name->col + i, "topic names use letters, digits, '_' and '-'");
        }
    }
    int dup = broker_cfg_find(&c->s->cfg.broker, name->s, name->len);
    if (dup > 0) return lex_fail_at(c, name->col, "topic '%.*s' was already declared on line %u", (int)name->len, name->s,
                                  c->topic_line[dup]);
    return true;
}

/* `broker topic NAME ...`: a named topic, from the defaults every topic
 * starts with (pipe_cfg_init's), whatever the default topic says. */
static bool st_topic(pctx *c, const tok *kw) {
    broker_cfg *b = &c->s->cfg.broker;
    const tok *name = lex_next(c, "a topic name");
    if (name == NULL || !topic_name(c, name)) return false;
    if (b->topics_more == BROKER_TOPICS_MAX - 1) {
        return lex_fail_at(c, kw->col, "more than %u named topics (the broker holds %u topics, the default one counted)",
                       BROKER_TOPICS_MAX - 1, BROKER_TOPICS_MAX);
    }
    pipe_cfg d;
    pipe_cfg_init(&d, 0);
    broker_topic_cfg t = broker_cfg_topic(&d.broker, 0);
    snprintf(t.name, sizeof t.name, "%.*s", (int)name->len, name->s);
    uint32_t size_col = name->col;
    if (!broker_options(c, &t, &size_col)) return false;
    b->more[b->topics_more++] = t;
    c->topic_line[b->topics_more] = c->line;
    c->topic_col[b->topics_more] = kw->col;
    c->topic_size_col[b->topics_more] = size_col;
    return true;
}

static bool st_broker(pctx *c) {
    if (lex_more(c) && lex_is(&c->t[c->i], "topic")) return st_topic(c, lex_next(c, "topic"));
    broker_cfg *b = &c->s->cfg.broker;
    broker_topic_cfg t = broker_cfg_topic(b, 0);
    uint32_t size_col = 1;
    if (!broker_options(c, &t, &size_col)) return false;
    b->partitions = t.partitions;
    b->records_per_partition = t.records_per_partition;
    b->keys = t.keys;
    b->dist = t.dist;
    b->zipf_s_milli = t.zipf_s_milli;
    b->value_max = t.value_max;
    b->event_gap_ns = t.event_gap_ns;
    b->disorder_ns = t.disorder_ns;
    c->topic_line[0] = c->line;
    c->topic_col[0] = 1;
    c->topic_size_col[0] = size_col;
    return true;
}

/* `topic NAME` of a source: a topic declared before it. */
static bool source_topic(pctx *c, job_vertex *x, place *at, const tok *o) {
    if (x->kind != JOB_SOURCE) return lex_fail_at(c, o->col, "only a source reads a topic");
    const tok *t = lex_next(c, "a topic name");
    if (t == NULL) return false;
    const broker_cfg *b = &c->s->cfg.broker;
    int i = broker_cfg_find(b, t->s, t->len);
    if (i > 0) {
        x->topic = (uint32_t)i;
        at->topic_col = o->col;
        return true;
    }
    if (b->topics_more == 0) {
        return lex_fail_at(c, t->col, "no topic named '%.*s' (declare it first: broker topic %.*s partitions ...)",
                       (int)t->len, t->s, (int)t->len, t->s);
    }
    const char *names[BROKER_TOPICS_MAX];
    for (uint32_t k = 0; k < b->topics_more; k++) names[k] = b->more[k].name;
    names[b->topics_more] = NULL;
    return lex_unknown(c, t, "topic", names);
}

/* `rate N/s` of a source: one for every source of the job (the model
 * paces every source task at one rate). */
static bool source_rate(pctx *c, const job_vertex *x, const tok *o) {
    if (x->kind != JOB_SOURCE) return lex_fail_at(c, o->col, "only a source has a rate");
    const tok *t = lex_next(c, "a rate such as 200000/s");
    if (t == NULL) return false;
    if (t->len < 3 || memcmp(t->s + t->len - 2, "/s", 2) != 0) return lex_fail_at(c, t->col, "a rate is written as records per second, such as 200000/s");
    tok num = { .s = t->s, .len = t->len - 2, .col = t->col };
    uint64_t rate;
    if (!lex_count(c, &num, 1, 1000000000, &rate)) return false;
    if (c->rate_line > 0 && c->rate_line != c->line && rate != c->s->cfg.source_rate_per_s) {   /* another source's */
        return lex_fail_at(c, t->col, "every source reads at one rate per task (%" PRIu64 "/s on line %u)",
                       c->s->cfg.source_rate_per_s, c->rate_line);
    }
    c->s->cfg.source_rate_per_s = rate;
    c->rate_line = c->line;
    return true;
}

/* `tumbling SIZE` or `sliding SIZE every SLIDE`, right after `window`. */
static bool window_shape(pctx *c, job_vertex *x) {
    static const char *const shapes[] = { "tumbling", "sliding", NULL };
    const tok *k = lex_next(c, "tumbling SIZE or sliding SIZE every SLIDE");
    if (k == NULL) return false;
    if (!lex_is(k, "tumbling") && !lex_is(k, "sliding")) return lex_unknown(c, k, "window shape", shapes);
    if (!lex_opt_duration(c, &x->window_size_ns)) return false;
    if (x->window_size_ns == 0 || x->window_size_ns > 3600 * SIM_NS_PER_S)
        return lex_fail_at(c, k->col, "a window's size is more than 0 and at most 1 hour");
    x->window_slide_ns = x->window_size_ns;
    if (lex_is(k, "tumbling")) return true;
    if (!lex_expect_word(c, "every")) return false;
    uint32_t col = c->i < c->n ? c->t[c->i].col : k->col;
    if (!lex_opt_duration(c, &x->window_slide_ns)) return false;
    if (x->window_slide_ns == 0 || x->window_slide_ns > x->window_size_ns)
        return lex_fail_at(c, col, "a sliding window starts every 1ns to SIZE (here up to %s)",
                       txt_dur((char[32]){ 0 }, 32, x->window_size_ns));
    if (x->window_size_ns / x->window_slide_ns > 64)
        return lex_fail_at(c, col, "a record would fall into %llu windows; at most 64 (a longer slide)",
                       (unsigned long long)(x->window_size_ns / x->window_slide_ns));
    return true;
}

/* Event-time options: a source's watermarks, a window's lateness. */
static bool time_option(pctx *c, job_vertex *x, const tok *o) {
    if (lex_is(o, "lateness")) {
        if (x->kind != JOB_WINDOW) return lex_fail_at(c, o->col, "only a window has an allowed lateness");
        return lex_opt_duration(c, &x->lateness_ns);
    }
    if (x->kind != JOB_SOURCE) return lex_fail_at(c, o->col, "only a source emits watermarks");
    if (lex_is(o, "watermark-delay")) {
        x->watermarks = true;
        return lex_opt_duration(c, &x->watermark_delay_ns);
    }
    uint32_t col = c->i < c->n ? c->t[c->i].col : o->col;
    if (!lex_opt_duration(c, &x->watermark_interval_ns)) return false;
    if (x->watermark_interval_ns == 0) return lex_fail_at(c, col, "a watermark interval is more than 0");
    return true;
}

/* One option o of vertex x (declared at `at`). */
static bool vertex_option(pctx *c, job_vertex *x, place *at, const tok *o) {
    static const char *const keys[] = { "parallelism", "max-parallelism", "cost", "cost-dist", "rate", "keep", "add", "output",
                                        "topic", "watermark-delay", "watermark-interval", "lateness", NULL };
    static const char *const dists[] = { "fixed", "uniform", "exponential", NULL };
    static const char *const outputs[] = { "plain", "idempotent", "two-phase-commit", "sink-v2", NULL };
    uint64_t n;
    if (lex_is(o, "parallelism")) {
        const tok *t = lex_next(c, "a number");
        if (t == NULL || !lex_count(c, t, 1, UINT32_MAX, &n)) return false;
        if (n > JOB_PARALLELISM_MAX) {
            return lex_fail_at(c, t->col, "%s: parallelism %llu is above the limit of %u tasks per vertex (lower it)",
                           x->name, (unsigned long long)n, JOB_PARALLELISM_MAX);
        }
        x->parallelism = (uint32_t)n;
        at->col[JOB_FIELD_PARALLELISM] = o->col;
    } else if (lex_is(o, "max-parallelism")) {       /* its key groups; job_check compares it with the parallelism */
        const tok *t = lex_next(c, "a number of key groups");
        if (t == NULL || !lex_count(c, t, 1, JOB_MAX_PARALLELISM_UPPER, &n)) return false;
        x->max_parallelism = (uint32_t)n;
        at->col[JOB_FIELD_MAX_PARALLELISM] = o->col;
    } else if (lex_is(o, "cost")) {
        at->col[JOB_FIELD_COST] = o->col;
        if (!lex_opt_duration(c, &x->cost_ns)) return false;
        if (x->cost_ns > SIM_NS_PER_S) return lex_fail_at(c, o->col, "a record costing more than 1 s is not a stream");
    } else if (lex_is(o, "cost-dist")) {
        at->col[JOB_FIELD_COST] = o->col;
        const tok *d = lex_next(c, "fixed, uniform or exponential");
        if (d == NULL) return false;
        if (lex_is(d, "fixed")) x->cost_dist = JOB_COST_FIXED;
        else if (lex_is(d, "uniform")) x->cost_dist = JOB_COST_UNIFORM;
        else if (lex_is(d, "exponential")) x->cost_dist = JOB_COST_EXPONENTIAL;
        else return lex_unknown(c, d, "cost distribution", dists);
    } else if (lex_is(o, "rate")) {
        if (!source_rate(c, x, o)) return false;
    } else if (lex_is(o, "topic")) {
        if (!source_topic(c, x, at, o)) return false;
    } else if (lex_is(o, "watermark-delay") || lex_is(o, "watermark-interval") || lex_is(o, "lateness")) {
        if (!time_option(c, x, o)) return false;
    } else if (lex_is(o, "keep")) {
        if (x->kind != JOB_FILTER) return lex_fail_at(c, o->col, "only a filter keeps a share of records");
        const tok *t = lex_next(c, "a whole percentage such as 40%");
        if (t == NULL) return false;
        tok num = { .s = t->s, .len = t->len ? t->len - 1 : 0, .col = t->col };
        if (t->len < 2 || t->s[t->len - 1] != '%' || !lex_count(c, &num, 0, 100, &n)) {
            return lex_fail_at(c, t->col, "'%.*s' is not a whole percentage such as 40%%", (int)t->len, t->s);
        }
        x->keep_percent = (uint32_t)n;
    } else if (lex_is(o, "add")) {
        if (x->kind != JOB_MAP) return lex_fail_at(c, o->col, "only a map adds to values");
        if (!lex_opt_count(c, 0, 1u << 30, &n)) return false;
        x->map_add = (int64_t)n;
    } else if (lex_is(o, "output")) {
        if (x->kind != JOB_SINK) return lex_fail_at(c, o->col, "only a sink has an output mode");
        const tok *m = lex_next(c, "plain, idempotent, two-phase-commit or sink-v2");
        if (m == NULL) return false;
        if (lex_is(m, "plain")) x->sink = JOB_SINK_PLAIN;
        else if (lex_is(m, "idempotent")) x->sink = JOB_SINK_IDEMPOTENT;
        else if (lex_is(m, "two-phase-commit")) x->sink = JOB_SINK_2PC;
        else if (lex_is(m, "sink-v2")) x->sink = JOB_SINK_V2;
        else return lex_unknown(c, m, "sink output", outputs);
    } else {
        return lex_unknown(c, o, "vertex option", keys);
    }
    return true;
}

static bool st_vertex(pctx *c) {
    static const char *const kinds[] = { "source", "map", "filter", "keyed-aggregate", "union", "keyed-join", "sink",
                                         "window", "committer", "global-committer", NULL };
    static const job_kind kind_of[] = { JOB_SOURCE, JOB_MAP, JOB_FILTER, JOB_KEYED_AGG, JOB_UNION, JOB_KEYED_JOIN, JOB_SINK,
                                        JOB_WINDOW, JOB_COMMITTER, JOB_COMMITTER };
    job *j = &c->s->cfg.graph;
    const tok *name = lex_next(c, "a vertex name");
    if (name == NULL) return false;
    if (name->len >= SIM_NAME_BYTES - 6) return lex_fail_at(c, name->col, "vertex names have at most %u characters", SIM_NAME_BYTES - 7);
    for (uint32_t i = 0; i < name->len; i++) {
        char ch = name->s[i];
        if (!isalnum((unsigned char)ch) && ch != '_' && ch != '-') {
            return lex_fail_at(c, name->col + i, "vertex names use letters, digits, '_' and '-'");
        }
    }
    int dup = lex_find_vertex(c, name->s, name->len);
    if (dup >= 0) return lex_fail_at(c, name->col, "vertex '%.*s' was already declared on line %u", (int)name->len, name->s,
                                   c->vertex_at[dup].line);
    if (j->vertices_count == JOB_VERTICES_MAX) return lex_fail_at(c, name->col, "more than %u vertices", JOB_VERTICES_MAX);
    const tok *k = lex_next(c, "a vertex kind (source, map, filter, keyed-aggregate, union, keyed-join, sink, window, "
                               "committer, global-committer)");
    if (k == NULL) return false;
    int kind = -1;
    for (int i = 0; kinds[i] != NULL; i++) {
        if (lex_is(k, kinds[i])) kind = i;
    }
    if (kind < 0) return lex_unknown(c, k, "vertex kind", kinds);
    char buf[SIM_NAME_BYTES];
    snprintf(buf, sizeof buf, "%.*s", (int)name->len, name->s);
    uint32_t v = job_add_vertex(j, buf, kind_of[kind], 1, 0);
    place *at = &c->vertex_at[v];
    *at = (place){ .line = c->line };
    at->col[JOB_FIELD_VERTEX] = name->col;
    at->col[JOB_FIELD_KIND] = k->col;
    j->vertices[v].global = lex_is(k, "global-committer");
    if (kind_of[kind] == JOB_WINDOW && !window_shape(c, &j->vertices[v])) return false;
    while (lex_more(c)) {
        if (!vertex_option(c, &j->vertices[v], at, lex_next(c, "an option"))) return false;
    }
    return true;
}

static bool st_edge(pctx *c) {
    static const char *const parts[] = { "forward", "rebalance", "hash", "broadcast", NULL };
    static const job_part part_of[] = { JOB_FORWARD, JOB_REBALANCE, JOB_HASH, JOB_BROADCAST };
    job *j = &c->s->cfg.graph;
    uint32_t from, to;
    const tok *a = lex_next(c, "the upstream vertex");
    if (a == NULL || !lex_vertex_ref(c, a, &from)) return false;
    if (!lex_expect_word(c, "->")) return false;
    const tok *b = lex_next(c, "the downstream vertex");
    if (b == NULL || !lex_vertex_ref(c, b, &to)) return false;
    const tok *p = lex_next(c, "a partitioning (forward, rebalance, hash, broadcast)");
    if (p == NULL) return false;
    int part = -1;
    for (int i = 0; parts[i] != NULL; i++) {
        if (lex_is(p, parts[i])) part = i;
    }
    if (part < 0) return lex_unknown(c, p, "partitioning", parts);
    if (from >= to) return lex_fail_at(c, b->col, "edges go from a vertex declared earlier to one declared later");
    if (j->edges_count == JOB_EDGES_MAX) return lex_fail_at(c, a->col, "more than %u edges", JOB_EDGES_MAX);
    uint32_t e = job_add_edge(j, from, to, part_of[part]);
    c->edge_at[e] = (place){ .line = c->line };
    c->edge_at[e].col[JOB_FIELD_FROM] = a->col;
    c->edge_at[e].col[JOB_FIELD_TO] = b->col;
    c->edge_at[e].col[JOB_FIELD_PART] = p->col;
    if (lex_more(c)) return lex_fail_at(c, c->t[c->i].col, "unexpected '%.*s' after the partitioning", (int)c->t[c->i].len, c->t[c->i].s);
    return true;
}

/* The options of checkpoint k that only fail together, checked on those
 * so far, this line's and earlier lines'; the error's column is this
 * line's option that broke it (a column of 0: not on this line; mode_col
 * is 1, the statement, then). pipe_create checks the same, without a place. */
static bool checkpoint_combination(pctx *c, const pipe_ckpt_cfg *k, uint32_t mode_col, uint32_t timeout_col,
                                   uint32_t concurrent_col) {
    if (k->alignment_timeout_ns > 0 && k->mode != PIPE_ALIGNED) {
        return lex_fail_at(c, timeout_col > 0 ? timeout_col : mode_col,
                       "an alignment timeout needs mode aligned (it turns an aligned checkpoint unaligned)");
    }
    if (k->mode == PIPE_UNALIGNED && k->max_concurrent > 1) {
        return lex_fail_at(c, concurrent_col > 0 ? concurrent_col : mode_col,
                       "unaligned checkpoints go one at a time (max-concurrent 1), as in Flink");
    }
    if (k->alignment_timeout_ns > 0 && k->max_concurrent > 1) {
        return lex_fail_at(c, concurrent_col > 0 ? concurrent_col : timeout_col > 0 ? timeout_col : mode_col,
                       "an alignment timeout allows one checkpoint at a time (max-concurrent 1), as in Flink "
                       "(it may turn a checkpoint unaligned)");
    }
    return true;
}

static bool st_checkpoint(pctx *c) {
    static const char *const keys[] = { "off", "mode", "interval", "min-pause", "timeout", "max-concurrent",
                                        "tolerable", "retained", "legacy-eop", "alignment-timeout", "finished-tasks",
                                        NULL };
    static const char *const modes[] = { "aligned", "at-least-once", "unaligned", NULL };
    pipe_ckpt_cfg *k = &c->s->cfg.ckpt;
    uint64_t v;
    uint32_t mode_col = 1, timeout_col = 0, concurrent_col = 0;   /* for the checks at the end */
    bool off = c->i < c->n && lex_is(&c->t[c->i], "off");
    if (!off) {                                   /* a checkpoint statement turns them on (Flink: an interval does) */
        k->enabled = true;
        c->ckpt_line = c->line;
        c->ckpt_col = c->t[c->i - 1].col;
    }
    while (lex_more(c)) {
        const tok *o = lex_next(c, "an option");
        if (lex_is(o, "off")) {
            k->enabled = false;
            c->ckpt_line = 0;
        } else if (lex_is(o, "mode")) {
            const tok *m = lex_next(c, "aligned, at-least-once or unaligned");
            if (m == NULL) return false;
            if (lex_is(m, "aligned")) k->mode = PIPE_ALIGNED;
            else if (lex_is(m, "at-least-once")) k->mode = PIPE_AT_LEAST_ONCE;
            else if (lex_is(m, "unaligned")) k->mode = PIPE_UNALIGNED;
            else return lex_unknown(c, m, "checkpoint mode", modes);
            mode_col = m->col;
        } else if (lex_is(o, "interval")) {
            c->interval_set = true;
            if (!lex_opt_duration(c, &k->interval_ns)) return false;
            if (k->interval_ns == 0) return lex_fail_at(c, o->col, "the interval must be above 0");
        } else if (lex_is(o, "min-pause")) {
            if (!lex_opt_duration(c, &k->min_pause_ns)) return false;
        } else if (lex_is(o, "timeout")) {
            if (!lex_opt_duration(c, &k->timeout_ns)) return false;
            if (k->timeout_ns == 0) return lex_fail_at(c, o->col, "the timeout must be above 0");
        } else if (lex_is(o, "max-concurrent")) {
            if (!lex_opt_count(c, 1, PIPE_CONCURRENT_MAX, &v)) return false;
            k->max_concurrent = (uint32_t)v;
            concurrent_col = o->col;
        } else if (lex_is(o, "tolerable")) {
            if (!lex_opt_count(c, 0, 1000000, &v)) return false;
            k->tolerable_failures = (uint32_t)v;
        } else if (lex_is(o, "retained")) {
            if (!lex_opt_count(c, 1, PIPE_RETAINED_MAX, &v)) return false;
            k->retained = (uint32_t)v;
        } else if (lex_is(o, "legacy-eop")) {
            k->legacy_eop = true;
        } else if (lex_is(o, "finished-tasks")) {
            static const char *const onoff[] = { "on", "off", NULL };
            const tok *m = lex_next(c, "on or off");
            if (m == NULL) return false;
            if (!lex_is(m, "on") && !lex_is(m, "off")) return lex_unknown(c, m, "finished-tasks setting", onoff);
            k->finished_tasks_off = lex_is(m, "off");
        } else if (lex_is(o, "alignment-timeout")) {
            if (!lex_opt_duration(c, &k->alignment_timeout_ns)) return false;
            timeout_col = o->col;
        } else {
            return lex_unknown(c, o, "checkpoint option", keys);
        }
    }
    return checkpoint_combination(c, k, mode_col, timeout_col, concurrent_col);
}

/* A store's bandwidth: at least 1 MB/s, so that a large snapshot on a
 * store slowed down a million times still takes less than 2^62 ns. */
static bool dev_bandwidth(pctx *c, uint64_t *out) {
    const tok *t = lex_next(c, "a bandwidth such as 200MB/s");
    if (t == NULL || !lex_with_unit(c, t, lex_bandwidth_units, "bandwidth", "200MB/s", 1ull << 50, out)) return false;
    if (*out < 1000000) return lex_fail_at(c, t->col, "a store's bandwidth must be at least 1MB/s");
    return true;
}

static bool dev_latency(pctx *c, sim_time_ns *out) {
    const tok *o = &c->t[c->i - 1];
    if (!lex_opt_duration(c, out)) return false;
    if (*out > 60 * SIM_NS_PER_S) return lex_fail_at(c, o->col, "a store's latency must be at most 1min");
    return true;
}

static bool st_state(pctx *c) {
    static const char *const keys[] = { "backend", "async", "sync", "incremental", "full", "full-every", "sync-cost",
                                        "store-latency", "store-bandwidth", "memory-latency", "memory-bandwidth",
                                        "changelog", "materialize-interval", NULL };
    static const char *const backends[] = { "memory", "durable", NULL };
    pipe_state_cfg *st = &c->s->cfg.state;
    uint64_t v;
    while (lex_more(c)) {
        const tok *o = lex_next(c, "an option");
        if (lex_is(o, "backend")) {
            const tok *b = lex_next(c, "memory or durable");
            if (b == NULL) return false;
            if (lex_is(b, "memory")) st->backend = PIPE_BACKEND_MEMORY;
            else if (lex_is(b, "durable")) st->backend = PIPE_BACKEND_DURABLE;
            else return lex_unknown(c, b, "state backend", backends);
        } else if (lex_is(o, "async")) {
            st->async = true;
        } else if (lex_is(o, "sync")) {
            st->async = false;
        } else if (lex_is(o, "incremental")) {
            st->incremental = true;
            c->incremental_line = c->line;
            c->incremental_col = o->col;
        } else if (lex_is(o, "full")) {
            st->incremental = false;
        } else if (lex_is(o, "changelog")) {
            st->changelog = true;
        } else if (lex_is(o, "materialize-interval")) {
            if (!lex_opt_duration(c, &st->materialize_ns)) return false;
            if (st->materialize_ns == 0) return lex_fail_at(c, o->col, "a materialize interval is more than 0");
        } else if (lex_is(o, "full-every")) {
            if (!lex_opt_count(c, 1, SCN_FULL_EVERY_MAX, &v)) return false;
            st->full_every = (uint32_t)v;
        } else if (lex_is(o, "sync-cost")) {
            if (!lex_opt_duration(c, &st->sync_ns)) return false;
            if (st->sync_ns > SIM_NS_PER_S) return lex_fail_at(c, o->col, "a synchronous part longer than 1 s stops the stream");
        } else if (lex_is(o, "store-latency")) {
            if (!dev_latency(c, &st->store.latency_ns)) return false;
        } else if (lex_is(o, "store-bandwidth")) {
            if (!dev_bandwidth(c, &st->store.bandwidth_bytes_per_s)) return false;
        } else if (lex_is(o, "memory-latency")) {
            if (!dev_latency(c, &st->memory.latency_ns)) return false;
        } else if (lex_is(o, "memory-bandwidth")) {
            if (!dev_bandwidth(c, &st->memory.bandwidth_bytes_per_s)) return false;
        } else {
            return lex_unknown(c, o, "state option", keys);
        }
    }
    return true;
}

static bool st_vary(pctx *c) {
    static const char *const words[] = { "checkpoint", "restart", "network", "unaligned", NULL };
    if (!lex_more(c)) {
        return lex_fail_at(c, c->t[c->i - 1].col, "vary needs what to vary: checkpoint, restart, network or unaligned");
    }
    while (lex_more(c)) {
        const tok *w = lex_next(c, "checkpoint, restart, network or unaligned");
        int k = -1;
        for (int i = 0; words[i] != NULL; i++) {
            if (lex_is(w, words[i])) k = i;
        }
        if (k < 0) return lex_unknown(c, w, "setting to vary", words);
        c->s->vary |= 1u << k;
        if ((1u << k) == SCN_VARY_UNALIGNED) c->vary_line = c->line, c->vary_col = w->col;
    }
    return true;
}

/* `near T` of a schedule pct line: events due within T of the earliest
 * count as simultaneous (model/cfg.h, pct_near_ns). */
static bool pct_near(pctx *c, sim_time_ns *near_ns) {
    const tok *w = &c->t[c->i];
    if (!lex_is(w, "near")) {
        bool steps = lex_is(&c->t[c->i - 2], "steps");   /* steps K came already */
        return lex_fail_at(c, w->col, "expected %s, not '%.*s'", steps ? "'near'" : "'steps' or 'near'", (int)w->len, w->s);
    }
    c->i++;
    const tok *x = lex_next(c, "the window within which events count as simultaneous (a duration, at most 100us)");
    if (x == NULL || !lex_duration(c, x, near_ns)) return false;
    if (*near_ns == 0 || *near_ns > PIPE_PCT_NEAR_MAX_NS) {
        return lex_fail_at(c, x->col, "near %.*s: from 1ns to 100us", (int)x->len, x->s);
    }
    if (lex_more(c)) {
        const tok *y = &c->t[c->i];
        return lex_fail_at(c, y->col, "unexpected '%.*s' after near %.*s (steps K comes before near T)", (int)y->len,
                           y->s, (int)x->len, x->s);
    }
    return true;
}

/* `schedule tie N pick K`: the N-th decision among simultaneous events
 * lets the K-th ready destination go first (model/cfg.h, ties); several
 * such lines, their decisions increasing, make one order.
 * `schedule pct depth D [steps K]`: PCT orders them (model/cfg.h,
 * pct_depth), alone. */
static bool st_schedule_tie(pctx *c, uint32_t col) {
    pipe_cfg *cfg = &c->s->cfg;
    uint64_t at, pick;
    const tok *n = lex_next(c, "the decision's number, from 1");
    if (n == NULL || !lex_count(c, n, 1, 1ull << 40, &at)) return false;
    if (cfg->ties_count > 0 && at <= cfg->ties[cfg->ties_count - 1].at)
        return lex_fail_at(c, n->col, "decision %" PRIu64 " after decision %" PRIu64 ": schedule tie lines name "
                           "increasing decisions", at, cfg->ties[cfg->ties_count - 1].at);
    if (cfg->ties_count == CHOICE_TIES_MAX)
        return lex_fail_at(c, col, "more than %u schedule tie lines", CHOICE_TIES_MAX);
    if (!lex_expect_word(c, "pick")) return false;
    const tok *k = lex_next(c, "which ready destination goes first, from 1 (0 is the default order's)");
    if (k == NULL || !lex_count(c, k, 1, UINT16_MAX - 1, &pick)) return false;
    cfg->ties[cfg->ties_count++] = (choice_tie){ .at = at, .pick = (uint32_t)pick };
    return true;
}

static bool st_schedule(pctx *c) {
    static const char *const kinds[] = { "tie", "pct", NULL };
    uint32_t col = c->t[c->i - 1].col;
    if (c->s->cfg.pct_depth > 0)
        return lex_fail_at(c, col, "a schedule line after schedule pct: one order of simultaneous events per file");
    const tok *w = lex_next(c, "tie or pct");
    if (w == NULL) return false;
    if (lex_is(w, "pct")) {
        if (c->s->cfg.ties_count > 0)
            return lex_fail_at(c, w->col, "schedule pct after schedule tie: one order of simultaneous events per file");
        uint64_t depth, steps = 0;
        if (!lex_expect_word(c, "depth")) return false;
        const tok *d = lex_next(c, "PCT's depth, the bug depth it aims at (1 to 8)");
        if (d == NULL || !lex_count(c, d, 1, CHOICE_PCT_DEPTH_MAX, &depth)) return false;
        if (lex_more(c) && lex_is(&c->t[c->i], "steps")) {
            c->i++;
            const tok *k = lex_next(c, "the order decisions the change points are drawn among, from 1");
            if (k == NULL || !lex_count(c, k, 1, 1ull << 40, &steps)) return false;
        }
        sim_time_ns near_ns = 0;
        if (lex_more(c) && !pct_near(c, &near_ns)) return false;
        c->s->cfg.pct_depth = (uint32_t)depth;
        c->s->cfg.pct_steps = steps;
        c->s->cfg.pct_near_ns = near_ns;
        return true;
    }
    if (!lex_is(w, "tie")) return lex_unknown(c, w, "schedule", kinds);
    return st_schedule_tie(c, col);
}

static bool st_restart(pctx *c) {
    static const char *const kinds[] = { "none", "fixed-delay", "failure-rate", "exponential", NULL };
    static const char *const keys[] = { "attempts", "delay", "max", "per", "initial", "multiplier", "reset",
                                        "jitter", "failover", NULL };
    static const char *const failovers[] = { "region", "full", NULL };
    pipe_restart_cfg *r = &c->s->cfg.restart;
    c->restart_set = true;
    const tok *k = lex_next(c, "a restart strategy (none, fixed-delay, failure-rate, exponential)");
    if (k == NULL) return false;
    if (lex_is(k, "none")) r->kind = PIPE_RESTART_NONE;
    else if (lex_is(k, "fixed-delay")) r->kind = PIPE_RESTART_FIXED_DELAY;
    else if (lex_is(k, "failure-rate")) r->kind = PIPE_RESTART_FAILURE_RATE;
    else if (lex_is(k, "exponential")) r->kind = PIPE_RESTART_EXPONENTIAL;
    else return lex_unknown(c, k, "restart strategy", kinds);
    uint64_t v;
    while (lex_more(c)) {
        const tok *o = lex_next(c, "an option");
        if (lex_is(o, "failover")) {                  /* any strategy's: what a failure restarts */
            const tok *f = lex_next(c, "a failover strategy (region, full)");
            if (f == NULL) return false;
            if (lex_is(f, "region")) r->failover = PIPE_FAILOVER_REGION;
            else if (lex_is(f, "full")) r->failover = PIPE_FAILOVER_FULL;
            else return lex_unknown(c, f, "failover strategy", failovers);
        } else if (lex_is(o, "attempts") && r->kind == PIPE_RESTART_FIXED_DELAY) {
            if (!lex_opt_count(c, 0, 1000000, &v)) return false;
            r->attempts = (uint32_t)v;
        } else if (lex_is(o, "attempts") && r->kind == PIPE_RESTART_EXPONENTIAL) {   /* before a reset */
            if (!lex_opt_count(c, 1, 1000000, &v)) return false;
            r->attempts_before_reset = (uint32_t)v;
        } else if (lex_is(o, "jitter") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            const tok *t = lex_next(c, "a jitter factor such as 0.1");
            if (t == NULL || !lex_milli(c, t, 0, 1000, &r->jitter_milli)) return false;
        } else if (lex_is(o, "delay") && (r->kind == PIPE_RESTART_FIXED_DELAY || r->kind == PIPE_RESTART_FAILURE_RATE)) {
            if (!lex_opt_duration(c, &r->delay_ns)) return false;
        } else if (lex_is(o, "max") && r->kind == PIPE_RESTART_FAILURE_RATE) {
            if (!lex_opt_count(c, 1, RS_WINDOW_MAX - 1, &v)) return false;
            r->max_failures = (uint32_t)v;
        } else if (lex_is(o, "per") && r->kind == PIPE_RESTART_FAILURE_RATE) {
            if (!lex_opt_duration(c, &r->interval_ns)) return false;
        } else if (lex_is(o, "initial") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            if (!lex_opt_duration(c, &r->initial_ns)) return false;
        } else if (lex_is(o, "max") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            if (!lex_opt_duration(c, &r->max_ns)) return false;
        } else if (lex_is(o, "multiplier") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            const tok *t = lex_next(c, "a multiplier such as 2 or 1.5");
            if (t == NULL || !lex_milli(c, t, 1001, 100000, &r->multiplier_milli)) return false;
        } else if (lex_is(o, "reset") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            if (!lex_opt_duration(c, &r->reset_ns)) return false;
        } else if (r->kind == PIPE_RESTART_NONE) {
            return lex_fail_at(c, o->col, "restart none takes no options but failover");
        } else {
            for (const char *const *w = keys; *w != NULL; w++) {
                if (lex_is(o, *w)) return lex_fail_at(c, o->col, "'%s' is not an option of %.*s", *w, (int)k->len, k->s);
            }
            return lex_unknown(c, o, "restart option", keys);
        }
    }
    if (r->kind == PIPE_RESTART_EXPONENTIAL && r->initial_ns == 0) return lex_fail_at(c, k->col, "exponential restarts need an initial delay above 0");
    if (r->kind == PIPE_RESTART_EXPONENTIAL && r->initial_ns > r->max_ns) {
        return lex_fail_at(c, k->col, "the initial delay must be at most the max delay (Flink's "
                       "ExponentialDelayRestartBackoffTimeStrategy refuses it)");
    }
    return true;
}

typedef bool (*st_fn)(pctx *c);

static const struct {
    const char *name;
    st_fn       fn;
} statements[] = {
    { "seed", st_seed },       { "bounds", st_bounds },         { "machines", st_machines },
    { "network", st_network }, { "channels", st_channels },     { "broker", st_broker },
    { "vertex", st_vertex },   { "edge", st_edge },             { "checkpoint", st_checkpoint },
    { "restart", st_restart }, { "fault", st_fault },           { "expect", st_expect },
    { "state", st_state },     { "vary", st_vary },             { "schedule", st_schedule },
};

static bool statement(pctx *c) {
    const tok *k = &c->t[c->i++];
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
        if (lex_is(k, statements[i].name)) {
            if (!statements[i].fn(c)) return false;
            if (lex_more(c)) return lex_fail_at(c, c->t[c->i].col, "unexpected '%.*s'", (int)c->t[c->i].len, c->t[c->i].s);
            return true;
        }
    }
    const char *names[sizeof statements / sizeof statements[0] + 1];
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) names[i] = statements[i].name;
    names[sizeof statements / sizeof statements[0]] = NULL;
    return lex_unknown(c, k, "statement", names);
}

bool scn_parse_duration(const char *text, sim_time_ns *out, char *err, size_t err_bytes) {
    pctx c = { .path = NULL, .err = err, .err_bytes = err_bytes };
    size_t n = strlen(text);
    if (n == 0 || n > UINT32_MAX || strchr(text, ' ') != NULL) {
        snprintf(err, err_bytes, "'%s' is not a duration such as 200ms", text);
        return false;
    }
    tok t = { .s = text, .len = (uint32_t)n, .col = 1 };
    return lex_duration(&c, &t, out);
}

void scn_flink_defaults(pipe_cfg *g) {
    g->ckpt.enabled = false;                      /* until a checkpoint statement */
    g->ckpt.timeout_ns = 600 * SIM_NS_PER_S;      /* execution.checkpointing.timeout: 10 min */
    g->restart = (pipe_restart_cfg){ .kind = PIPE_RESTART_EXPONENTIAL, .failover = PIPE_FAILOVER_REGION,
                                     .attempts = 1, .delay_ns = SIM_NS_PER_S,          /* fixed-delay: 1, 1 s */
                                     .max_failures = 1, .interval_ns = 60 * SIM_NS_PER_S,   /* failure-rate: 1 per 1 min */
                                     .initial_ns = SIM_NS_PER_S, .max_ns = 60 * SIM_NS_PER_S, .multiplier_milli = 1500,
                                     .reset_ns = 3600 * SIM_NS_PER_S, .jitter_milli = 100,
                                     .attempts_before_reset = RS_UNLIMITED };
    g->buffer_timeout_ns = 100 * SIM_NS_PER_MS;  /* execution.buffer-timeout: 100 ms */
}

bool scn_parse(scn *s, const char *path, const char *text, size_t len, char *err, size_t err_bytes) {
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    pipe_cfg_init(&s->cfg, 1);
    scn_flink_defaults(&s->cfg);
    pctx c = { .s = s, .path = s->path, .err = err, .err_bytes = err_bytes };
    size_t pos = 0;
    while (pos < len) {
        c.line++;
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        if (end - pos > SCN_LINE_BYTES_MAX) return lex_fail_at(&c, SCN_LINE_BYTES_MAX, "line longer than %u bytes", SCN_LINE_BYTES_MAX);
        if (!lex_line(&c, text + pos, end - pos)) return false;
        if (c.n > 0 && !statement(&c)) return false;
        pos = end + 1;
    }
    return fin_all(&c);
}

bool scn_load(scn *s, const char *path, char *err, size_t err_bytes) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_bytes, "%s: cannot open", path);
        return false;
    }
    char *buf = malloc(SCN_FILE_BYTES_MAX + 1);
    if (buf == NULL) {
        fclose(f);
        snprintf(err, err_bytes, "%s: out of memory", path);
        return false;
    }
    size_t n = fread(buf, 1, SCN_FILE_BYTES_MAX + 1, f);
    bool read_error = ferror(f);
    fclose(f);
    bool ok;
    if (read_error) {
        snprintf(err, err_bytes, "%s: read error", path);
        ok = false;
    } else if (n > SCN_FILE_BYTES_MAX) {
        snprintf(err, err_bytes, "%s: larger than %u bytes", path, SCN_FILE_BYTES_MAX);
        ok = false;
    } else {
        ok = scn_parse(s, path, buf, n, err, err_bytes);
    }
    free(buf);
    return ok;
}
