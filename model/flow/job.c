/* model/flow/job.c: graph building, validation and expansion. */
#include "job.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *job_kind_name(job_kind kind) {
    switch (kind) {
    case JOB_SOURCE:     return "source";
    case JOB_MAP:        return "map";
    case JOB_FILTER:     return "filter";
    case JOB_KEYED_AGG:  return "keyed-aggregate";
    case JOB_UNION:      return "union";
    case JOB_KEYED_JOIN: return "keyed-join";
    case JOB_SINK:       return "sink";
    case JOB_WINDOW:     return "window";
    case JOB_COMMITTER:  return "committer";
    }
    return "?";
}

const char *job_cost_name(job_cost cost) {
    switch (cost) {
    case JOB_COST_FIXED:       return "fixed";
    case JOB_COST_UNIFORM:     return "uniform";
    case JOB_COST_EXPONENTIAL: return "exponential";
    }
    return "?";
}

const char *job_sink_name(job_sink sink) {
    switch (sink) {
    case JOB_SINK_PLAIN:      return "plain";
    case JOB_SINK_IDEMPOTENT: return "idempotent";
    case JOB_SINK_2PC:        return "two-phase-commit";
    case JOB_SINK_V2:         return "sink-v2";
    }
    return "?";
}

const char *job_part_name(job_part part) {
    switch (part) {
    case JOB_FORWARD:   return "forward";
    case JOB_REBALANCE: return "rebalance";
    case JOB_HASH:      return "hash";
    case JOB_BROADCAST: return "broadcast";
    }
    return "?";
}

void job_init(job *j) {
    memset(j, 0, sizeof *j);
}

uint32_t job_add_vertex(job *j, const char *name, job_kind kind, uint32_t parallelism, sim_time_ns cost_ns) {
    SIM_ASSERT(j->vertices_count < JOB_VERTICES_MAX);
    uint32_t id = j->vertices_count++;
    job_vertex *v = &j->vertices[id];
    snprintf(v->name, sizeof v->name, "%s", name);
    v->kind = kind;
    v->parallelism = parallelism;
    v->cost_ns = cost_ns;
    v->cost_dist = JOB_COST_UNIFORM;
    v->keep_percent = 100;
    return id;
}

void job_add_chain(job *j, const job_chain *c) {
    static const char *const vertex_names[4] = { "source", "map", "agg", "sink" };
    static const job_kind kinds[4] = { JOB_SOURCE, JOB_MAP, JOB_KEYED_AGG, JOB_SINK };
    uint32_t v[4];
    for (int i = 0; i < 4; i++) v[i] = job_add_vertex(j, vertex_names[i], kinds[i], c->parallelism[i], c->cost_ns[i]);
    for (int i = 1; i < 4; i++) job_add_edge(j, v[i - 1], v[i], c->into[i]);
}

uint32_t job_add_edge(job *j, uint32_t from, uint32_t to, job_part part) {
    SIM_ASSERT(j->edges_count < JOB_EDGES_MAX);
    SIM_ASSERT(from < j->vertices_count && to < j->vertices_count);
    uint32_t input = 0;
    for (uint32_t e = 0; e < j->edges_count; e++) input += j->edges[e].to == to;
    uint32_t id = j->edges_count++;
    j->edges[id] = (job_edge){ .from = from, .to = to, .part = part, .input = input };
    return id;
}

/* Says where the problem lies and what it is; returns buf. */
static const char *bad(job_where *w, job_field field, uint32_t index, char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static const char *bad(job_where *w, job_field field, uint32_t index, char *buf, size_t n, const char *fmt, ...) {
    if (w != NULL) *w = (job_where){ .field = field, .index = index };
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return buf;
}

/* The k-th edge (from 0) into v (into) or out of it. */
static uint32_t nth_edge(const job *j, uint32_t v, bool into, uint32_t k) {
    for (uint32_t e = 0; e < j->edges_count; e++) {
        if ((into ? j->edges[e].to : j->edges[e].from) == v && k-- == 0) return e;
    }
    SIM_ASSERT(!"fewer edges than counted");
    return 0;
}

/* True when every source upstream of v emits watermarks. */
static bool timed_upstream(const job *j, uint32_t v, uint32_t depth) {
    if (j->vertices[v].kind == JOB_SOURCE) return j->vertices[v].watermarks;
    if (depth > JOB_VERTICES_MAX) return true;    /* a cycle: another check reports it */
    for (uint32_t e = 0; e < j->edges_count; e++) {
        if (j->edges[e].to == v && !timed_upstream(j, j->edges[e].from, depth + 1)) return false;
    }
    return true;
}

/* What the model of windows covers: one hash input from sources that all
 * emit watermarks, and only stateless vertices after it (the checkers
 * fold a window's results through maps and filters into the sinks). */
static const char *check_window(const job *j, uint32_t v, job_where *w, char *buf, size_t n) {
    const job_vertex *x = &j->vertices[v];
    if (x->window_size_ns == 0 || x->window_slide_ns == 0 || x->window_slide_ns > x->window_size_ns)
        return bad(w, JOB_FIELD_KIND, v, buf, n, "%s: a window needs a size and a slide of at most its size", x->name);
    uint32_t in = nth_edge(j, v, true, 0);
    if (j->edges[in].part != JOB_HASH)
        return bad(w, JOB_FIELD_PART, in, buf, n, "%s: a window is keyed: its input edge must be hash", x->name);
    if (!timed_upstream(j, v, 0))
        return bad(w, JOB_FIELD_VERTEX, v, buf, n, "%s: a window needs event time: every source before it must "
                   "emit watermarks (source ... watermark-delay D)", x->name);
    uint64_t after = 0, grew = 1ull << v;         /* every vertex downstream of the window */
    while (grew != 0) {
        uint64_t next = 0;
        for (uint32_t e = 0; e < j->edges_count; e++) {
            if ((grew >> j->edges[e].from & 1) && !(after >> j->edges[e].to & 1)) next |= 1ull << j->edges[e].to;
        }
        after |= next;
        grew = next;
    }
    for (uint32_t d = 0; d < j->vertices_count; d++) {
        job_kind k = j->vertices[d].kind;
        if ((after >> d & 1) && (k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN || k == JOB_WINDOW))
            return bad(w, JOB_FIELD_VERTEX, d, buf, n, "%s: a stateful vertex after the window %s is not "
                       "modelled (only map, filter, union and sinks may follow a window)", j->vertices[d].name, x->name);
    }
    return NULL;
}

/* Sink V2 as Flink's SinkTransformationTranslator expands a sink with a
 * committer (Flink 1.15 to 2.x): the writer's committables go over one
 * forward edge to a committer of the same parallelism, and nowhere else. */
static const char *check_writer(const job *j, uint32_t v, job_where *w, char *buf, size_t n) {
    const job_vertex *x = &j->vertices[v];
    uint32_t outs = 0;
    for (uint32_t e = 0; e < j->edges_count; e++) outs += j->edges[e].from == v;
    if (outs != 1)
        return bad(w, outs == 0 ? JOB_FIELD_VERTEX : JOB_FIELD_FROM, outs == 0 ? v : nth_edge(j, v, false, 1), buf, n,
                   "%s: a sink-v2 sink has one output, a forward edge to its committer (%u edges)", x->name, outs);
    uint32_t e = nth_edge(j, v, false, 0);
    if (j->vertices[j->edges[e].to].kind != JOB_COMMITTER || j->edges[e].part != JOB_FORWARD)
        return bad(w, JOB_FIELD_PART, e, buf, n, "%s: a sink-v2 sink's output is a forward edge to a committer",
                   x->name);
    return NULL;
}

/* A committer's one input is its writer's forward edge; it has no output,
 * or one edge to a global committer (StandardSinkTopologies
 * .addGlobalCommitter: a post-commit topology of parallelism 1, its input
 * every committer subtask). */
static const char *check_committer(const job *j, uint32_t v, job_where *w, char *buf, size_t n) {
    const job_vertex *x = &j->vertices[v];
    uint32_t ins = 0, outs = 0;
    for (uint32_t e = 0; e < j->edges_count; e++) {
        ins += j->edges[e].to == v;
        outs += j->edges[e].from == v;
    }
    const char *up = x->global ? "a committer" : "its sink-v2 sink";
    if (ins != 1)
        return bad(w, ins == 0 ? JOB_FIELD_VERTEX : JOB_FIELD_TO, ins == 0 ? v : nth_edge(j, v, true, 1), buf, n,
                   "%s: a %scommitter takes one input, from %s", x->name, x->global ? "global " : "", up);
    uint32_t in = nth_edge(j, v, true, 0);
    const job_vertex *from = &j->vertices[j->edges[in].from];
    bool ok = x->global ? from->kind == JOB_COMMITTER && !from->global
                        : from->kind == JOB_SINK && from->sink == JOB_SINK_V2;
    if (!ok) return bad(w, JOB_FIELD_TO, in, buf, n, "%s: a %scommitter's input is %s", x->name, x->global ? "global " : "", up);
    if (x->global && x->parallelism != 1)
        return bad(w, JOB_FIELD_PARALLELISM, v, buf, n, "%s: a global committer runs at parallelism 1", x->name);
    if (outs == 0) return NULL;
    uint32_t out = nth_edge(j, v, false, 0);
    const job_vertex *to = &j->vertices[j->edges[out].to];
    if (x->global || outs > 1 || to->kind != JOB_COMMITTER || !to->global)
        return bad(w, JOB_FIELD_FROM, x->global || outs == 1 ? out : nth_edge(j, v, false, 1), buf, n,
                   "%s: a %s", x->name, x->global ? "global committer has no output"
                                                  : "committer's only output is an edge to a global committer");
    return NULL;
}

bool job_ranges_overlap(uint32_t max_parallelism, uint32_t p_new, uint32_t i, uint32_t p_old, uint32_t k) {
    uint32_t a0, a1, b0, b1;
    job_group_range(max_parallelism, p_new, i, &a0, &a1);
    job_group_range(max_parallelism, p_old, k, &b0, &b1);
    return a0 < b1 && b0 < a1;
}

uint32_t job_default_max_parallelism(uint32_t parallelism) {
    uint32_t want = parallelism + parallelism / 2, pow2 = 1;
    while (pow2 < want && pow2 < JOB_MAX_PARALLELISM_UPPER) pow2 <<= 1;   /* roundUpToPowerOfTwo, capped */
    return pow2 < JOB_MAX_PARALLELISM_LOWER ? JOB_MAX_PARALLELISM_LOWER : pow2;
}

uint32_t job_max_parallelism(const job_vertex *v) {
    return v->max_parallelism != 0 ? v->max_parallelism : job_default_max_parallelism(v->parallelism);
}

/* Flink's start = ceil(i max / p), end (inclusive there) = ceil((i + 1) max / p) - 1. */
void job_group_range(uint32_t max_parallelism, uint32_t parallelism, uint32_t subtask, uint32_t *first, uint32_t *end) {
    SIM_ASSERT(parallelism >= 1 && parallelism <= max_parallelism && subtask < parallelism);
    *first = (uint32_t)(((uint64_t)subtask * max_parallelism + parallelism - 1) / parallelism);
    *end = (uint32_t)(((uint64_t)(subtask + 1) * max_parallelism - 1) / parallelism) + 1;
}

/* One vertex's settings and its edges' count. */
static const char *check_vertex(const job *j, uint32_t v, job_where *w, char *buf, size_t n) {
    const job_vertex *x = &j->vertices[v];
    uint32_t ins = 0, outs = 0;
    for (uint32_t e = 0; e < j->edges_count; e++) {
        ins += j->edges[e].to == v;
        outs += j->edges[e].from == v;
    }
    const char *kind = job_kind_name(x->kind);
    if (x->cost_dist < JOB_COST_FIXED || x->cost_dist > JOB_COST_EXPONENTIAL)
        return bad(w, JOB_FIELD_COST, v, buf, n, "%s: unknown cost distribution", x->name);
    if (x->cost_ns > SIM_NS_PER_S)
        return bad(w, JOB_FIELD_COST, v, buf, n, "%s: a record costing more than 1 s is not a stream", x->name);
    if (x->parallelism < 1 || x->parallelism > JOB_PARALLELISM_MAX)
        return bad(w, JOB_FIELD_PARALLELISM, v, buf, n, "%s: parallelism %u out of range [1, %u]", x->name,
                   x->parallelism, JOB_PARALLELISM_MAX);
    if (x->max_parallelism > JOB_MAX_PARALLELISM_UPPER)
        return bad(w, JOB_FIELD_MAX_PARALLELISM, v, buf, n, "%s: max-parallelism %u above Flink's limit of %u key "
                   "groups", x->name, x->max_parallelism, JOB_MAX_PARALLELISM_UPPER);
    if (x->parallelism > job_max_parallelism(x))   /* a subtask would own no key group */
        return bad(w, JOB_FIELD_MAX_PARALLELISM, v, buf, n, "%s: parallelism %u above its max-parallelism %u (the "
                   "key groups; raise it or lower the parallelism)", x->name, x->parallelism, job_max_parallelism(x));
    if (x->kind == JOB_SOURCE && ins != 0)
        return bad(w, JOB_FIELD_TO, nth_edge(j, v, true, 0), buf, n, "%s: a source takes no input", x->name);
    if (x->kind != JOB_SOURCE && ins == 0)
        return bad(w, JOB_FIELD_VERTEX, v, buf, n, "%s: a %s needs an input", x->name, kind);
    if (x->kind == JOB_SINK && x->sink == JOB_SINK_V2) return check_writer(j, v, w, buf, n);
    if (x->kind == JOB_COMMITTER) return check_committer(j, v, w, buf, n);
    if (x->kind == JOB_SINK && outs != 0)
        return bad(w, JOB_FIELD_FROM, nth_edge(j, v, false, 0), buf, n, "%s: a sink has no output (but a sink-v2 "
                   "sink's one edge to its committer)", x->name);
    if (x->kind != JOB_SINK && outs == 0)
        return bad(w, JOB_FIELD_VERTEX, v, buf, n, "%s: its output goes nowhere (add an edge to a sink)", x->name);
    if (x->kind == JOB_KEYED_JOIN && ins != 2) {        /* a third input is that edge's fault, a missing one the join's */
        return bad(w, ins > 2 ? JOB_FIELD_TO : JOB_FIELD_VERTEX, ins > 2 ? nth_edge(j, v, true, 2) : v, buf, n,
                   "%s: a keyed join takes exactly two inputs, not %u", x->name, ins);
    }
    if (x->kind != JOB_KEYED_JOIN && x->kind != JOB_UNION && x->kind != JOB_SINK && ins > 1)
        return bad(w, JOB_FIELD_TO, nth_edge(j, v, true, 1), buf, n, "%s: a %s takes one input (use a union)", x->name, kind);
    if (x->kind != JOB_SOURCE && x->topic != 0)
        return bad(w, JOB_FIELD_KIND, v, buf, n, "%s: only a source reads a topic", x->name);
    if (x->kind == JOB_WINDOW) return check_window(j, v, w, buf, n);
    return NULL;
}

static uint64_t edge_chans(const job *j, const job_edge *d) {
    uint64_t pa = j->vertices[d->from].parallelism, pb = j->vertices[d->to].parallelism;
    return d->part == JOB_FORWARD ? pa : pa * pb;
}

void job_counts(const job *j, uint64_t *tasks, uint64_t *chans) {
    *tasks = 0;
    *chans = 0;
    for (uint32_t v = 0; v < j->vertices_count; v++) *tasks += j->vertices[v].parallelism;
    for (uint32_t e = 0; e < j->edges_count; e++) *chans += edge_chans(j, &j->edges[e]);
}

/* The job's limits on tasks and channels, and each task's on its channels:
 * blamed on the vertex or edge that goes past them, with what to lower. */
static const char *check_limits(const job *j, job_where *w, char *buf, size_t n) {
    uint64_t tasks, chans, sum = 0;
    job_counts(j, &tasks, &chans);
    for (uint32_t v = 0; v < j->vertices_count && tasks > JOB_TASKS_MAX; v++) {
        if ((sum += j->vertices[v].parallelism) > JOB_TASKS_MAX)
            return bad(w, JOB_FIELD_PARALLELISM, v, buf, n, "%s: %llu tasks in all, more than the limit of %u "
                       "(lower the parallelism of this or another vertex)", j->vertices[v].name,
                       (unsigned long long)tasks, JOB_TASKS_MAX);
    }
    sum = 0;
    for (uint32_t e = 0; e < j->edges_count && chans > JOB_CHANNELS_MAX; e++) {
        if ((sum += edge_chans(j, &j->edges[e])) > JOB_CHANNELS_MAX)
            return bad(w, JOB_FIELD_PART, e, buf, n, "%llu channels in all, more than the limit of %u (an edge other "
                       "than forward joins every task of one vertex to every task of the other: lower their "
                       "parallelism, or use forward edges)", (unsigned long long)chans, JOB_CHANNELS_MAX);
    }
    uint64_t in[JOB_VERTICES_MAX] = { 0 }, out[JOB_VERTICES_MAX] = { 0 };   /* per task of the vertex */
    for (uint32_t e = 0; e < j->edges_count; e++) {
        const job_edge *d = &j->edges[e];
        in[d->to] += d->part == JOB_FORWARD ? 1 : j->vertices[d->from].parallelism;
        out[d->from] += d->part == JOB_FORWARD ? 1 : j->vertices[d->to].parallelism;
        if (in[d->to] > JOB_TASK_CHANNELS_MAX)
            return bad(w, JOB_FIELD_PART, e, buf, n, "%s: a task would have more than %u input channels (lower the "
                       "parallelism of the vertices feeding it)", j->vertices[d->to].name, JOB_TASK_CHANNELS_MAX);
        if (out[d->from] > JOB_TASK_CHANNELS_MAX)
            return bad(w, JOB_FIELD_PART, e, buf, n, "%s: a task would have more than %u output channels (lower the "
                       "parallelism of the vertices it feeds)", j->vertices[d->from].name, JOB_TASK_CHANNELS_MAX);
    }
    return NULL;
}

const char *job_check(const job *j, job_where *w, char *buf, size_t n) {
    if (j->vertices_count == 0) return bad(w, JOB_FIELD_JOB, 0, buf, n, "the job has no vertices");
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (check_vertex(j, v, w, buf, n) != NULL) return buf;
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {
        const job_edge *d = &j->edges[e];
        const job_vertex *a = &j->vertices[d->from], *b = &j->vertices[d->to];
        if (d->from >= d->to)
            return bad(w, JOB_FIELD_TO, e, buf, n, "%s -> %s: edges go from earlier to later vertices (no cycles)",
                       a->name, b->name);
        if (d->part == JOB_FORWARD && a->parallelism != b->parallelism)
            return bad(w, JOB_FIELD_PART, e, buf, n, "%s -> %s: forward needs equal parallelism (%u and %u)", a->name,
                       b->name, a->parallelism, b->parallelism);
    }
    return check_limits(j, w, buf, n);
}

size_t job_expand_bytes(const job *j) {
    uint64_t tasks, chans;
    job_counts(j, &tasks, &chans);
    SIM_ASSERT(tasks <= JOB_TASKS_MAX && chans <= JOB_CHANNELS_MAX);
    return (size_t)(tasks * sizeof(job_task) + chans * (sizeof(job_chan) + 2 * sizeof(uint32_t)) + 4 * 16);
}

static void expand_tasks(job *j, uint32_t machines) {
    j->tasks_count = 0;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        j->vertex_first_task[v] = j->tasks_count;
        for (uint32_t s = 0; s < j->vertices[v].parallelism; s++) {
            uint32_t t = j->tasks_count++;
            j->tasks[t] = (job_task){ .vertex = v, .subtask = s, .machine = t % machines };
        }
    }
}

/* Channels edge by edge, producer by producer, consumer by consumer. */
static void expand_chans(job *j) {
    j->chans_count = 0;
    for (uint32_t e = 0; e < j->edges_count; e++) {
        const job_edge *d = &j->edges[e];
        uint32_t pa = j->vertices[d->from].parallelism, pb = j->vertices[d->to].parallelism;
        for (uint32_t a = 0; a < pa; a++) {
            for (uint32_t b = 0; b < pb; b++) {
                if (d->part == JOB_FORWARD && a != b) continue;
                j->chans[j->chans_count++] = (job_chan){
                    .producer = j->vertex_first_task[d->from] + a,
                    .consumer = j->vertex_first_task[d->to] + b,
                    .edge = e,
                    .input = d->input,
                };
            }
        }
    }
}

/* Each task's inputs and outputs, in channel id order, by counting: the
 * counts give every task's first index, one pass in id order fills them. */
static void index_chans(job *j) {
    for (uint32_t t = 0; t < j->tasks_count; t++) j->tasks[t].in_count = j->tasks[t].out_count = 0;
    for (uint32_t c = 0; c < j->chans_count; c++) {
        j->tasks[j->chans[c].consumer].in_count++;
        j->tasks[j->chans[c].producer].out_count++;
    }
    uint32_t n_in = 0, n_out = 0;
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        job_task *k = &j->tasks[t];
        SIM_ASSERT(k->in_count <= JOB_TASK_CHANNELS_MAX && k->out_count <= JOB_TASK_CHANNELS_MAX);
        k->in_first = n_in;
        k->out_first = n_out;
        n_in += k->in_count;
        n_out += k->out_count;
        k->in_count = k->out_count = 0;           /* counted again as they are placed */
    }
    SIM_ASSERT(n_in == j->chans_count && n_out == j->chans_count);
    for (uint32_t c = 0; c < j->chans_count; c++) {
        job_chan *x = &j->chans[c];
        job_task *to = &j->tasks[x->consumer], *from = &j->tasks[x->producer];
        x->gate_index = to->in_count++;
        j->in_chan[to->in_first + x->gate_index] = c;
        x->out_index = from->out_count++;
        j->out_chan[from->out_first + x->out_index] = c;
    }
}

void job_expand(job *j, uint32_t machines, arena *a) {
    char buf[200];
    SIM_ASSERT(job_check(j, NULL, buf, sizeof buf) == NULL);
    SIM_ASSERT(machines >= 1);
    uint64_t tasks, chans;
    job_counts(j, &tasks, &chans);
    j->tasks = ARENA_NEW(a, job_task, tasks);
    j->chans = ARENA_NEW(a, job_chan, chans > 0 ? chans : 1);
    j->in_chan = ARENA_NEW(a, uint32_t, chans > 0 ? chans : 1);
    j->out_chan = ARENA_NEW(a, uint32_t, chans > 0 ? chans : 1);
    expand_tasks(j, machines);
    expand_chans(j);
    index_chans(j);
    SIM_ASSERT(j->tasks_count == tasks && j->chans_count == chans);
}

/* Union-find over the tasks, in region_of itself (a task's parent, then
 * its root); the smaller root wins, so a root is its region's lowest task. */
static uint32_t region_root(uint32_t *parent, uint32_t t) {
    while (parent[t] != t) {
        parent[t] = parent[parent[t]];           /* path halving */
        t = parent[t];
    }
    return t;
}

uint32_t job_regions(const job *j, uint32_t *region_of) {
    SIM_ASSERT(j->tasks != NULL);                 /* expanded */
    for (uint32_t t = 0; t < j->tasks_count; t++) region_of[t] = t;
    for (uint32_t c = 0; c < j->chans_count; c++) {
        uint32_t a = region_root(region_of, j->chans[c].producer), b = region_root(region_of, j->chans[c].consumer);
        if (a < b) region_of[b] = a; else region_of[a] = b;
    }
    for (uint32_t t = 0; t < j->tasks_count; t++) region_of[t] = region_root(region_of, t);   /* each to its root */
    uint32_t count = 0;
    for (uint32_t t = 0; t < j->tasks_count; t++) {   /* a root comes before its region's other tasks */
        region_of[t] = region_of[t] == t ? count++ : region_of[region_of[t]];
    }
    return count;
}
