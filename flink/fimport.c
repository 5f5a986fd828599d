/* flink/fimport.c: a Flink plan made into absim's vertices and edges (see
 * fimport.h); fimp_write is in fimport_write.c. */
#include "fimport.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOURCE_COST_NS 2000     /* absim's shipped files' costs per record */
#define OP_COST_NS     1000
#define KEYED_COST_NS  3000

void fimp_defaults(fimp_opts *o) {
    *o = (fimp_opts){ .rate_per_s = 0, .input_ns = 0, .keys = 1000, .records_max = 200000, .keep_pct = 100,
                      .interval_ns = 10000000000LL, .sink_output = NULL, .seed = 1 };
}

static void note(fimp_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(fimp_job *j, const char *fmt, ...) {
    if (j->ncount == FIMP_NOTES_MAX) { j->ndropped++; return; }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->notes[j->ncount++], sizeof j->notes[0], fmt, ap);
    va_end(ap);
}

static void append(char *buf, size_t n, const char *sep, const char *s) {
    size_t used = strlen(buf);
    if (used + 1 >= n) return;
    snprintf(buf + used, n - used, "%s%s", used > 0 ? sep : "", s);
}

/* A vertex name absim reads ([a-z0-9_-]) from the operator's name, unique. */
static void vertex_name(fimp_job *j, fimp_vertex *x, const char *op) {
    const char *b = fops_bare(op);
    if (strncmp(b, "Source: ", 8) == 0 || strncmp(b, "Sink: ", 6) == 0) b = strchr(b, ' ') + 1;
    if (strncmp(b, "TableSourceScan(table=[[", 24) == 0) {   /* SQL: [[catalog, database, table, ...]]: the table */
        const char *p = b + 24;
        for (int part = 0; part < 2 && p != NULL; part++) {
            p = strstr(p, ", ");
            if (p != NULL) p += 2;
        }
        if (p != NULL) b = p;
    }
    char base[24];
    size_t k = 0;
    for (const char *p = b; *p != '\0' && *p != '(' && *p != ']' && *p != ',' && k + 1 < sizeof base; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (word) base[k++] = c;
        else if (k > 0 && base[k - 1] != '-') base[k++] = '-';
    }
    while (k > 0 && base[k - 1] == '-') k--;
    base[k] = '\0';
    if (k == 0 || !(base[0] >= 'a' && base[0] <= 'z')) snprintf(base, sizeof base, "%s", fimp_kind_word(x->kind));
    snprintf(x->name, sizeof x->name, "%s", base);
    for (uint32_t tries = 2; ; tries++) {
        bool taken = false;
        for (uint32_t i = 0; i < j->vcount && !taken; i++) taken = &j->v[i] != x && strcmp(j->v[i].name, x->name) == 0;
        if (!taken) break;
        snprintf(x->name, sizeof x->name, "%.20s-%u", base, tries);
    }
}

const char *fimp_kind_word(fimp_kind k) {
    static const char *const words[] = { "source", "map", "filter", "keyed-aggregate", "window", "keyed-join",
                                         "union", "sink" };
    assert(k <= FV_SINK);
    return words[k];
}

static fimp_kind kind_of(fops_kind k) {
    switch (k) {
    case FOP_SOURCE: return FV_SOURCE;
    case FOP_SINK: return FV_SINK;
    case FOP_KEYED: return FV_KEYED;
    case FOP_WINDOW: return FV_WINDOW;
    case FOP_JOIN: return FV_JOIN;
    case FOP_FILTER: return FV_FILTER;
    case FOP_MAP:
    case FOP_WATERMARK:
    case FOP_UNKNOWN: break;
    }
    return FV_MAP;
}

static int64_t kind_cost(fimp_kind k) {
    return k == FV_SOURCE ? SOURCE_COST_NS : (k == FV_KEYED || k == FV_WINDOW || k == FV_JOIN) ? KEYED_COST_NS : OP_COST_NS;
}

static fimp_vertex *new_vertex(fimp_job *j, fimp_kind kind, const fplan_node *x, const char *op, char *err, size_t n) {
    if (j->vcount == FIMP_VERTICES_MAX) {
        snprintf(err, n, "the plan makes more than %u absim vertices (absim's limit on a job): %s", FIMP_VERTICES_MAX, op);
        return NULL;
    }
    fimp_vertex *v = &j->v[j->vcount++];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->parallelism = x->parallelism;
    v->max_parallelism = x->max_parallelism;
    v->cost_ns = kind_cost(v->kind);
    vertex_name(j, v, op);
    return v;
}

static bool add_edge(fimp_job *j, uint32_t from, uint32_t to, const char *part, char *err, size_t n) {
    assert(from < to && to < j->vcount);
    if (j->ecount == FIMP_EDGES_MAX) {
        snprintf(err, n, "the plan makes more than %u absim edges (absim's limit on a job)", FIMP_EDGES_MAX);
        return false;
    }
    fimp_edge *e = &j->e[j->ecount++];
    e->from = from;
    e->to = to;
    snprintf(e->part, sizeof e->part, "%s", part);
    return true;
}

/* The edge absim has for a Flink ship strategy between these two vertices. */
static const char *edge_part(fimp_job *j, const fimp_vertex *a, const fimp_vertex *b, fplan_ship s, const char *text) {
    bool same = a->parallelism == b->parallelism;
    switch (s) {
    case FSHIP_HASH: return "hash";
    case FSHIP_BROADCAST: return "broadcast";
    case FSHIP_REBALANCE: return "rebalance";
    case FSHIP_FORWARD:
    case FSHIP_RESCALE:
        if (same) return "forward";   /* RESCALE at equal parallelism connects i to i */
        note(j, "%s -> %s: %s between parallelism %u and %u: modelled as rebalance (absim has no point-wise edge "
             "that changes parallelism; Flink connects each task to a subset)", a->name, b->name, text,
             a->parallelism, b->parallelism);
        return "rebalance";
    case FSHIP_SHUFFLE:
        note(j, "%s -> %s: SHUFFLE (random channel per record) modelled as rebalance (round robin): both connect "
             "every task to every task", a->name, b->name);
        return "rebalance";
    case FSHIP_GLOBAL:
        if (b->parallelism != 1)
            note(j, "%s -> %s: GLOBAL sends everything to subtask 0; modelled as rebalance over %u tasks", a->name,
                 b->name, b->parallelism);
        return "rebalance";
    case FSHIP_CUSTOM:
    case FSHIP_UNKNOWN:
        break;
    }
    note(j, "%s -> %s: ship strategy '%s' modelled as rebalance", a->name, b->name, text[0] ? text : "(none)");
    return "rebalance";
}

/* The operators of node x, as names: a StreamGraph node is one operator, a
 * JobGraph node the chain its description lists. */
static uint32_t node_ops(const fplan *p, const fplan_node *x, const char **ops) {
    if (p->shape == FPLAN_STREAM) {
        ops[0] = x->name[0] ? x->name : x->type;
        return 1;
    }
    for (uint32_t i = 0; i < x->op_count; i++) ops[i] = x->ops[i];
    return x->op_count;
}

static fops_class classify(const fplan_node *x, const char *op) {
    fops_class c = fops_classify(op, x->pact);
    if (c.kind == FOP_UNKNOWN && x->type[0] != '\0') c = fops_classify(x->type, x->pact);
    return c;
}


/* The kind of node x's first operator once its inputs are known: what a
 * name says is kept only where absim's vertex of that kind can take those
 * inputs; every change is a note. */
static fimp_kind head_kind(fimp_job *j, const fplan_node *x, fops_class c, const char *op) {
    fimp_kind k = kind_of(c.kind);
    bool hash_in = x->in_count > 0;
    for (uint32_t i = 0; i < x->in_count; i++) hash_in = hash_in && x->in[i].ship == FSHIP_HASH;
    const char *b = fops_bare(op);
    if (x->in_count == 0 && k != FV_SOURCE) {
        note(j, "%.120s: no input in the plan: modelled as a source", b);
        return FV_SOURCE;
    }
    if (x->in_count > 0 && k == FV_SOURCE) {
        k = FV_MAP;
        note(j, "%.120s: a source by its name, but it has inputs: modelled as a map", b);
    }
    if (k == FV_JOIN && (x->in_count != 2 || !hash_in)) {
        k = hash_in ? FV_KEYED : FV_MAP;
        note(j, "%.120s: two inputs joined by a name, but %u input%s%s: modelled as a union into a %s", b, x->in_count,
             x->in_count == 1 ? "" : "s", hash_in ? "" : " not all HASH", fimp_kind_word(k));
    } else if ((k == FV_MAP || k == FV_FILTER) && hash_in) {
        k = FV_KEYED;
        note(j, "%.120s: its input is keyed (HASH), so Flink lets it keep keyed state, and the plan cannot say "
             "whether it does: modelled as a keyed aggregate", b);
    } else if ((k == FV_KEYED || k == FV_WINDOW) && x->in_count > 0 && !hash_in) {
        k = FV_MAP;
        note(j, "%.120s: stateful by its name but its input is not HASH (no keyed state without keyBy): modelled "
             "as a map", b);
    }
    if (k == FV_WINDOW && c.processing_time) {
        k = FV_KEYED;
        note(j, "%.120s: a processing-time window: modelled as a keyed aggregate (absim's windows are event time)", b);
    }
    return k;
}

/* Adds one operator to the vertex it is chained into (cur), or starts a
 * vertex: sources, sinks and stateful operators each get one; stateless
 * operators join the vertex before them, adding their cost. */
static fimp_vertex *place_op(fimp_job *j, const fplan_node *x, fimp_vertex *cur, fimp_kind k, fops_class c,
                             const char *op, char *err, size_t n) {
    bool major = k != FV_MAP && k != FV_FILTER;
    const char *b = fops_bare(op);
    if (cur != NULL && !major) {
        cur->cost_ns += OP_COST_NS;
        if (k == FV_FILTER && cur->kind == FV_MAP) cur->kind = FV_FILTER;
        else if (k == FV_FILTER) note(j, "%.120s: a filter chained into %s: modelled as its cost only", b, cur->name);
        append(cur->ops, sizeof cur->ops, " -> ", b);
    } else if (cur != NULL && (cur->kind == FV_MAP || cur->kind == FV_FILTER) && k != FV_SOURCE) {
        cur->kind = k;                               /* a stateless head takes the kind of what follows it */
        cur->cost_ns += kind_cost(k);                /* (and keeps its name: notes may name it already) */
        append(cur->ops, sizeof cur->ops, " -> ", b);
    } else {
        cur = new_vertex(j, k, x, op, err, n);
        if (cur == NULL) return NULL;
        snprintf(cur->ops, sizeof cur->ops, "%s", b);
    }
    if (c.kind == FOP_WATERMARK) cur->watermarks = true;
    if (c.kind == FOP_UNKNOWN) note(j, "%.160s: a name no rule of absim's knows: modelled as a stateless map", b);
    int64_t size, slide, delay;
    if (k == FV_WINDOW && fops_window_ns(op, &size, &slide)) {
        cur->win_size_ns = size;
        cur->win_slide_ns = slide;
    }
    if (c.kind == FOP_WATERMARK && fops_watermark_delay_ns(op, &delay)) cur->wm_delay_ns = delay;
    return cur;
}

/* A node's input edges, into `to` (its first vertex or the union before
 * it), from the vertex holding each input's operator. */
static bool node_edges(fimp_job *j, const fplan_node *x, const int32_t *last, uint32_t to, char *err, size_t n) {
    for (uint32_t i = 0; i < x->in_count; i++) {
        fimp_vertex *a = &j->v[last[x->in[i].from]], *b = &j->v[to];
        const char *part = edge_part(j, a, b, x->in[i].ship, x->in[i].ship_text);
        if (!add_edge(j, (uint32_t)last[x->in[i].from], to, part, err, n)) return false;
    }
    return true;
}

static uint32_t vidx(const fimp_job *j, const fimp_vertex *v) {
    return (uint32_t)(v - j->v);
}

/* Node x's first operator: its vertex (after a union when it needs one),
 * with the node's input edges into it. */
static fimp_vertex *place_head(fimp_job *j, const fplan_node *x, const int32_t *last, const char *op, char *err, size_t n) {
    fops_class c = classify(x, op);
    fimp_kind k = head_kind(j, x, c, op);
    if (x->in_count < 2 || k == FV_JOIN || k == FV_SINK) {
        fimp_vertex *v = place_op(j, x, NULL, k, c, op, err, n);
        return v != NULL && node_edges(j, x, last, vidx(j, v), err, n) ? v : NULL;
    }
    char uname[200];
    snprintf(uname, sizeof uname, "%.180s", fops_bare(op));
    uname[strcspn(uname, "([")] = '\0';
    snprintf(uname + strlen(uname), sizeof uname - strlen(uname), "-in");
    fimp_vertex *u = new_vertex(j, FV_UNION, x, uname, err, n);
    if (u == NULL) return NULL;
    snprintf(u->ops, sizeof u->ops, "the %u inputs of %.300s (a union: absim's %s takes one input)", x->in_count,
             fops_bare(op), fimp_kind_word(k));
    if (!node_edges(j, x, last, vidx(j, u), err, n)) return NULL;
    fimp_vertex *v = place_op(j, x, NULL, k, c, op, err, n);
    if (v == NULL) return NULL;
    /* Keyed after the union: hash again, which sends each key to the subtask it already is at. */
    bool keyed = k == FV_KEYED || k == FV_WINDOW;
    return add_edge(j, vidx(j, u), vidx(j, v), keyed ? "hash" : "forward", err, n) ? v : NULL;
}

/* Every plan node's operators placed into vertices, in the plan's
 * topological order, so every edge goes from an earlier vertex to a later. */
static bool place_all(const fplan *p, fimp_job *j, int32_t *last, char *err, size_t n) {
    for (uint32_t i = 0; i < p->count; i++) {
        const fplan_node *x = &p->nodes[i];
        const char *ops[FPLAN_OPS_MAX];
        uint32_t nops = node_ops(p, x, ops);
        bool chained = p->shape == FPLAN_STREAM && x->in_count == 1 && p->nodes[x->in[0].from].chain == x->chain;
        fimp_vertex *cur = chained ? &j->v[last[x->in[0].from]] : NULL;
        for (uint32_t k = 0; k < nops; k++) {
            if (cur == NULL) {
                cur = place_head(j, x, last, ops[k], err, n);
                if (cur == NULL) return false;
                continue;
            }
            fimp_vertex *before = cur;
            fops_class c = classify(x, ops[k]);
            fimp_kind kind = kind_of(c.kind);
            if (kind == FV_SOURCE || kind == FV_JOIN) {   /* chained, so one input: neither can be */
                note(j, "%.120s: a %s by its name, but chained after another operator: modelled as a map",
                     fops_bare(ops[k]), kind == FV_SOURCE ? "source" : "two-input operator");
                kind = FV_MAP;
            }
            cur = place_op(j, x, cur, kind, c, ops[k], err, n);
            if (cur == NULL) return false;
            if (cur != before && !add_edge(j, vidx(j, before), vidx(j, cur), "forward", err, n)) return false;
        }
        last[i] = (int32_t)vidx(j, cur);
    }
    return true;
}

static bool has_out(const fimp_job *j, uint32_t v) {
    for (uint32_t e = 0; e < j->ecount; e++) {
        if (j->e[e].from == v) return true;
    }
    return false;
}

/* True when a stateful vertex is downstream of v (edges go forward only). */
static bool stateful_after(const fimp_job *j, uint32_t v) {
    uint32_t reach = 1u << v;   /* FIMP_VERTICES_MAX is 32 */
    for (uint32_t e = 0; e < j->ecount; e++) {
        if (reach >> j->e[e].from & 1) reach |= 1u << j->e[e].to;
    }
    for (uint32_t d = v + 1; d < j->vcount; d++) {
        fimp_kind k = j->v[d].kind;
        if ((reach >> d & 1) && (k == FV_KEYED || k == FV_WINDOW || k == FV_JOIN)) return true;
    }
    return false;
}

/* The sources upstream of v: a bit each. */
static uint32_t sources_above(const fimp_job *j, uint32_t v) {
    uint32_t up = 1u << v, found = 0;
    for (uint32_t e = j->ecount; e-- > 0;) {
        if (up >> j->e[e].to & 1) up |= 1u << j->e[e].from;
    }
    for (uint32_t s = 0; s < v; s++) found |= (up >> s & 1) && j->v[s].kind == FV_SOURCE ? 1u << s : 0;
    return found;
}

/* A watermark assigner's delay (a SQL WatermarkAssigner in a vertex of its
 * own) goes to the sources above it: absim's sources emit watermarks. */
static void carry_delays(fimp_job *j) {
    for (uint32_t v = 0; v < j->vcount; v++) {
        if (j->v[v].kind == FV_SOURCE || j->v[v].wm_delay_ns == 0) continue;
        uint32_t s = sources_above(j, v);
        for (uint32_t u = 0; u < v; u++) {
            if ((s >> u & 1) && j->v[u].wm_delay_ns < j->v[v].wm_delay_ns) j->v[u].wm_delay_ns = j->v[v].wm_delay_ns;
        }
    }
}

/* Every source upstream of v emits watermarks (absim's windows need them). */
static void timed_sources(fimp_job *j, uint32_t v) {
    uint32_t up = 1u << v;
    for (uint32_t e = j->ecount; e-- > 0;) {
        if (up >> j->e[e].to & 1) up |= 1u << j->e[e].from;
    }
    for (uint32_t s = 0; s < v; s++) {
        if ((up >> s & 1) && j->v[s].kind == FV_SOURCE) j->v[s].watermarks = true;
    }
}

static void sink_output(fimp_job *j, fimp_vertex *v, const fimp_opts *o) {
    static const char *const commits[] = { "FileSink", "StreamingFileSink", "StreamingFileWriter", "Filesystem",
                                           "filesystem", "Committer", NULL };
    static const char *const at_once[] = { "Print", "Discard", "BlackHole", "blackhole", "Collect", NULL };
    const char *out = "plain", *why = "the plan does not say how it writes: plain (visible at once, so at-least-once "
                                      "after a restore; --sink-output to choose)";
    for (int i = 0; commits[i] != NULL; i++) {
        if (strstr(v->ops, commits[i]) != NULL) {
            out = "two-phase-commit";
            why = "a file sink or a Sink V2 committer: its output is committed when a checkpoint completes";
        }
    }
    for (int i = 0; at_once[i] != NULL; i++) {
        if (strstr(v->ops, at_once[i]) != NULL) { out = "plain"; why = "it prints or drops each record at once"; }
    }
    if (o->sink_output != NULL) { out = o->sink_output; why = "--sink-output"; }
    snprintf(v->output, sizeof v->output, "%s", out);
    snprintf(v->output_why, sizeof v->output_why, "%s", why);
    (void)j;
}

/* A vertex whose output goes nowhere (a plan of a query with no sink:
 * SQL EXPLAIN) gets a sink after it, so its state is still a stateful
 * vertex's; at absim's vertex limit it becomes the sink itself. */
static void add_sink(fimp_job *j, uint32_t v) {
    fimp_vertex *x = &j->v[v];
    if (j->vcount == FIMP_VERTICES_MAX || j->ecount == FIMP_EDGES_MAX) {
        note(j, "%s: its output goes nowhere in the plan: modelled as a sink", x->name);
        x->kind = FV_SINK;
        return;
    }
    fimp_vertex *k = &j->v[j->vcount++];
    *k = (fimp_vertex){ .kind = FV_SINK, .parallelism = x->parallelism, .cost_ns = OP_COST_NS };
    char name[48], from[32];
    snprintf(from, sizeof from, "%s", x->name);      /* not from j itself: gcc -O0 sees an overlap */
    snprintf(name, sizeof name, "%.24s-out", from);
    vertex_name(j, k, name);
    snprintf(k->ops, sizeof k->ops, "(no sink in the plan after %s: added)", from);
    j->e[j->ecount++] = (fimp_edge){ .from = v, .to = j->vcount - 1, .part = "forward" };
    note(j, "%s: its output goes nowhere in the plan: a sink %s added after it", x->name, k->name);
}

/* What absim's job checks would refuse, made to fit, each with a note. */
static void fit(fimp_job *j, const fimp_opts *o) {
    for (uint32_t v = 0; v < j->vcount; v++) {
        fimp_vertex *x = &j->v[v];
        if (x->kind == FV_SINK && has_out(j, v)) {
            x->kind = FV_MAP;
            note(j, "%s: a sink-like operator whose output goes on: modelled as a map", x->name);
        } else if (x->kind != FV_SINK && !has_out(j, v)) {
            add_sink(j, v);
            x = &j->v[v];
        }
        if (x->kind == FV_WINDOW && stateful_after(j, v)) {
            x->kind = FV_KEYED;
            note(j, "%s: a window with stateful operators after it: modelled as a keyed aggregate (absim models "
                 "only maps, filters, unions and sinks after a window)", x->name);
        }
        if (x->kind == FV_WINDOW && x->win_size_ns == 0) {
            x->win_size_ns = x->win_slide_ns = 1000000000LL;
            note(j, "%s: the window's size is not in its name: tumbling 1s assumed", x->name);
        }
        if (x->kind == FV_WINDOW) timed_sources(j, v);
        if (x->kind == FV_SINK) sink_output(j, x, o);
    }
}

bool fimp_build(const fplan *p, const fconf *c, const fimp_opts *o, fimp_job *j, char *err, size_t n) {
    assert(p != NULL && o != NULL && j != NULL && p->count > 0);
    memset(j, 0, sizeof *j);
    int32_t *last = calloc(p->count, sizeof *last);
    if (last == NULL) { snprintf(err, n, "out of memory"); return false; }
    bool ok = place_all(p, j, last, err, n);
    free(last);
    if (!ok) return false;
    fit(j, o);
    carry_delays(j);
    if (strcmp(p->job_type, "BATCH") == 0)
        note(j, "the plan is of a BATCH job, which Flink runs without checkpoints: absim runs its graph as a streaming job");
    for (uint32_t v = 0; v < j->vcount; v++) {
        fimp_vertex *x = &j->v[v];
        if (x->max_parallelism == 0 && c != NULL && c->num[FC_MAX_PARALLELISM] > 0) x->max_parallelism = (uint32_t)c->num[FC_MAX_PARALLELISM];
        if (x->kind == FV_SOURCE && x->watermarks && x->wm_delay_ns == 0) x->wm_delay_ns = 1000000;
    }
    return true;
}
