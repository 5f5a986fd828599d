/* model/flow/job.h: the job graph (vertices with a parallelism, edges with a
 * partitioning), its expansion into tasks and channels, and placement.
 *
 * Contract:
 * - A vertex is a source, an operator (map, filter, keyed aggregate,
 *   union, two-input keyed, keyed event-time window) or a sink, with a
 *   parallelism; a task is one
 *   parallel instance. An edge connects two vertices with forward (task i
 *   to task i; equal parallelism), rebalance (round robin), hash (by key)
 *   or broadcast partitioning. A two-input keyed vertex takes exactly two
 *   incoming edges, inputs 0 and 1, in the order the edges were added.
 * - job_expand() numbers tasks vertex by vertex, subtask by subtask, and
 *   channels edge by edge, producer by producer, consumer by consumer; a
 *   task's input channels are indexed in that order (the gate's channel
 *   numbers) and so are its output channels. The graph as written
 *   (vertices, edges) is a fixed-size value; the expansion (tasks,
 *   channels and their indexes) is carved from an arena of the caller's,
 *   sized by job_expand_bytes(), so a job holds what it uses: a hash edge
 *   between two 256-parallel vertices is 65,536 channels. The order
 *   depends on nothing but the graph, and expansion costs O(tasks +
 *   channels).
 * - Copying a job copies the expansion's pointers, not the memory: an
 *   expanded copy lives as long as the arena it was expanded in.
 * - Placement: tasks go round robin over the machines' slots in task order,
 *   so a machine hosts several tasks and its crash takes them all down.
 * - job_check() validates a graph written by a user and returns a message
 *   for the first problem (never asserts on user input), and says where it
 *   lies: the vertex or edge, and which of its fields, so that a reader of
 *   scenario files can name the statement. A job reads the broker through
 *   one or more source vertices, each naming its topic (job_check knows
 *   no broker: pipe_create checks that each topic has one reader).
 */
#ifndef MODEL_JOB_H
#define MODEL_JOB_H

#include "../../sim/arena.h"
#include "../../sim/base.h"
#include "../../sim/rng.h"

/* Flink-sized limits. A hash (rebalance, broadcast) edge between vertices
 * of parallelism a and b has a * b channels, so two 256-parallel vertices
 * take 65,536 channels per edge; the channels' limit allows four of
 * them, and a task's inputs two (a join of two hash inputs). Every limit
 * is checked by job_check with a message saying what to lower. */
#define JOB_VERTICES_MAX 32u
#define JOB_EDGES_MAX    64u
#define JOB_PARALLELISM_MAX 256u
#define JOB_TASKS_MAX    4096u
#define JOB_CHANNELS_MAX (1u << 18)
#define JOB_TASK_CHANNELS_MAX 512u     /* a task's inputs, and its outputs: the gate's limit */

typedef enum job_kind {
    JOB_SOURCE = 1,
    JOB_MAP,
    JOB_FILTER,
    JOB_KEYED_AGG,
    JOB_UNION,
    JOB_KEYED_JOIN,                   /* two-input keyed operator */
    JOB_SINK,
    JOB_WINDOW,                       /* keyed event-time window with an aggregate (system state) */
    JOB_COMMITTER,                    /* Sink V2's committer: commits the committables of its writer (a sink-v2 sink) */
} job_kind;

typedef enum job_part {
    JOB_FORWARD = 1,
    JOB_REBALANCE,
    JOB_HASH,
    JOB_BROADCAST,
} job_part;

typedef enum job_cost {
    JOB_COST_FIXED = 1,               /* every record costs cost_ns */
    JOB_COST_UNIFORM,                 /* a buffer of n: uniform on [n cost_ns/2, 3 n cost_ns/2] */
    JOB_COST_EXPONENTIAL,             /* per record exponential with mean cost_ns */
} job_cost;

typedef enum job_sink {
    JOB_SINK_PLAIN = 0,               /* output visible at once: at-least-once end to end */
    JOB_SINK_IDEMPOTENT,              /* upsert by record id: replays overwrite */
    JOB_SINK_2PC,                     /* two-phase commit: visible when its checkpoint completes */
    JOB_SINK_V2,                      /* Sink V2's writer: pre-commits at the barrier, a committer commits */
} job_sink;

typedef struct job_vertex {
    char        name[SIM_NAME_BYTES];
    job_kind    kind;
    uint32_t    parallelism;
    sim_time_ns cost_ns;              /* processing time per record, mean */
    job_cost    cost_dist;
    uint32_t    keep_percent;         /* filter: share of records kept */
    int64_t     map_add;              /* map: value += map_add */
    job_sink    sink;                 /* sink: how output becomes visible */
    uint32_t    topic;                /* source: the broker topic it reads (0: the default one) */
    /* Event time. A source with a watermark delay emits watermarks
     * (bounded out-of-orderness per split, every watermark_interval_ns
     * at most); a window assigns records to windows of size_ns starting
     * every slide_ns (tumbling: slide = size) and keeps each open until
     * its end plus lateness_ns. */
    sim_time_ns watermark_delay_ns;   /* source */
    sim_time_ns watermark_interval_ns;/* source */
    bool        watermarks;           /* source: it emits watermarks */
    sim_time_ns window_size_ns;       /* window */
    sim_time_ns window_slide_ns;      /* window */
    sim_time_ns lateness_ns;          /* window: allowed lateness */
    uint32_t    max_parallelism;      /* its key groups (0: Flink's default, job_max_parallelism) */
    bool        global;               /* committer: Sink V2's global committer (parallelism 1, after a committer) */
} job_vertex;

typedef struct job_edge {
    uint32_t from, to;
    job_part part;
    uint32_t input;                   /* 0, or 1 for a join's second edge */
} job_edge;

typedef struct job_task {
    uint32_t vertex;
    uint32_t subtask;
    uint32_t machine;
    uint32_t in_first, in_count;      /* its input channels: in_chan[in_first ..] */
    uint32_t out_first, out_count;    /* its output channels: out_chan[out_first ..] */
} job_task;

typedef struct job_chan {
    uint32_t producer, consumer;      /* task ids */
    uint32_t edge;
    uint32_t input;                   /* consumer's logical input (join: 0 or 1) */
    uint32_t gate_index;              /* channel number in the consumer's gate */
    uint32_t out_index;               /* position among the producer's outputs */
} job_chan;

typedef struct job {
    job_vertex vertices[JOB_VERTICES_MAX];
    job_edge   edges[JOB_EDGES_MAX];
    uint32_t   vertices_count, edges_count;
    /* filled by job_expand, in the arena it was given (NULL before) */
    job_task  *tasks;                 /* tasks_count */
    job_chan  *chans;                 /* chans_count */
    uint32_t  *in_chan;               /* channel ids grouped by consumer */
    uint32_t  *out_chan;              /* channel ids grouped by producer */
    uint32_t   vertex_first_task[JOB_VERTICES_MAX];
    uint32_t   tasks_count, chans_count;
} job;

/* source -> map -> keyed aggregate -> sink, the shape most tests and the
 * benchmark use: parallelism and incoming partitioning per stage. */
typedef struct job_chain {
    uint32_t    parallelism[4];      /* source, map, aggregate, sink */
    job_part    into[4];             /* into[1..3]: the edge into that stage */
    sim_time_ns cost_ns[4];
} job_chain;

/* Key groups, as Flink's KeyGroupRangeAssignment (1.15+). A keyed
 * stream's keys fall into max-parallelism key groups, the unit keyed state
 * is split into and redistributed by when a vertex is rescaled: key k is
 * in group murmurHash(hashCode(k)) % max-parallelism, where hashCode is
 * Java's Long.hashCode (the keys are longs: k ^ k >>> 32, cut to 32 bits)
 * and murmurHash Flink's MathUtils.murmurHash (one round of murmur3 and
 * its finaliser, made non-negative); subtask i of parallelism p owns the
 * contiguous groups [ceil(i max / p), ceil((i + 1) max / p)), so group g
 * goes to g * p / max. Every user of the hash partitioner (the producers,
 * a keyed task's owner, the set-up's sizing, the horizon) goes through
 * these, so a key's subtask is one function of (key, max, p). */
#define JOB_MAX_PARALLELISM_LOWER 128u        /* Flink's default lower bound */
#define JOB_MAX_PARALLELISM_UPPER 32768u      /* Flink's upper bound: 2^15 key groups */

static inline uint32_t job_rotl32(uint32_t x, uint32_t r) { return x << r | x >> (32 - r); }

/* Flink's MathUtils.murmurHash(int), in uint32 arithmetic (Java's ints wrap alike). */
static inline uint32_t job_murmur_hash(uint32_t code) {
    code *= 0xcc9e2d51u;
    code = job_rotl32(code, 15);
    code *= 0x1b873593u;
    code = job_rotl32(code, 13);
    code = code * 5u + 0xe6546b64u;
    code ^= 4u;
    code ^= code >> 16;                       /* bitMix */
    code *= 0x85ebca6bu;
    code ^= code >> 13;
    code *= 0xc2b2ae35u;
    code ^= code >> 16;
    if ((int32_t)code >= 0) return code;
    return code != 0x80000000u ? 0u - code : 0u;   /* -code, and Integer.MIN_VALUE to 0 */
}

/* KeyGroupRangeAssignment.assignToKeyGroup of a long key. */
static inline uint32_t job_key_group(uint64_t key, uint32_t max_parallelism) {
    return job_murmur_hash((uint32_t)(key ^ key >> 32)) % max_parallelism;
}

/* computeOperatorIndexForKeyGroup: the subtask of parallelism p owning group g. */
static inline uint32_t job_group_subtask(uint32_t group, uint32_t max_parallelism, uint32_t parallelism) {
    return (uint32_t)((uint64_t)group * parallelism / max_parallelism);
}

/* The hash partitioner: the subtask of a vertex of that parallelism (and
 * key groups) that a record with this key goes to over a hash edge. */
static inline uint32_t job_key_subtask(uint64_t key, uint32_t max_parallelism, uint32_t parallelism) {
    return job_group_subtask(job_key_group(key, max_parallelism), max_parallelism, parallelism);
}

/* job_key_subtask when max_parallelism is 1 << shift (Flink's default
 * rule always gives a power of two): the same subtask, the two divisions a
 * mask and a shift, for the hash partitioner's per-record path. */
#define JOB_MP_NOT_POW2 0xffu
static inline uint32_t job_mp_shift(uint32_t max_parallelism) {
    SIM_ASSERT(max_parallelism >= 1);
    if ((max_parallelism & (max_parallelism - 1)) != 0) return JOB_MP_NOT_POW2;
    return (uint32_t)__builtin_ctz(max_parallelism);
}
static inline uint32_t job_key_subtask_pow2(uint64_t key, uint32_t shift, uint32_t parallelism) {
    SIM_ASSERT(shift < 32);
    uint32_t group = job_murmur_hash((uint32_t)(key ^ key >> 32)) & ((1u << shift) - 1u);
    return (uint32_t)(((uint64_t)group * parallelism) >> shift);
}

/* computeKeyGroupRangeForOperatorIndex: subtask i's groups [*first, *end). */
void job_group_range(uint32_t max_parallelism, uint32_t parallelism, uint32_t subtask, uint32_t *first, uint32_t *end);
/* Whether subtask i of p_new and subtask k of p_old own overlapping key-group
 * ranges: the RANGE SubtaskStateMapper's relation (a hash edge's channel
 * state goes from old subtask k to new subtask i when it holds). */
bool job_ranges_overlap(uint32_t max_parallelism, uint32_t p_new, uint32_t i, uint32_t p_old, uint32_t k);

/* computeDefaultMaxParallelism: roundUpToPowerOfTwo(p + p / 2), at least
 * 128, at most 32768. */
uint32_t job_default_max_parallelism(uint32_t parallelism);

/* A vertex's key groups: its max-parallelism, or the default for its parallelism. */
uint32_t job_max_parallelism(const job_vertex *v);

void     job_init(job *j);
void     job_add_chain(job *j, const job_chain *c);
uint32_t job_add_vertex(job *j, const char *name, job_kind kind, uint32_t parallelism, sim_time_ns cost_ns);
uint32_t job_add_edge(job *j, uint32_t from, uint32_t to, job_part part);

/* Where a problem job_check() found lies: the whole job (no vertices), a
 * vertex or one of its fields, or an edge or one of its fields. A problem
 * with what comes into or goes out of a vertex is the edge's that breaks
 * the rule (a map's second input: that edge's TO); a missing one is the
 * vertex's (a map with no input: its VERTEX). */
typedef enum job_field {
    JOB_FIELD_JOB = 0,                /* the job as a whole: it has no vertices */
    JOB_FIELD_VERTEX,                 /* a vertex: its name */
    JOB_FIELD_KIND,
    JOB_FIELD_PARALLELISM,
    JOB_FIELD_COST,                   /* its cost or cost distribution */
    JOB_FIELD_MAX_PARALLELISM,        /* its key groups */
    JOB_FIELD_FROM,                   /* an edge: its upstream vertex */
    JOB_FIELD_TO,
    JOB_FIELD_PART,                   /* its partitioning */
    JOB_FIELD_COUNT
} job_field;

typedef struct job_where {
    job_field field;
    uint32_t  index;                  /* the vertex's (VERTEX..MAX_PARALLELISM) or the edge's (FROM..PART) */
} job_where;

/* NULL when the graph is valid, else what is wrong with it; then *where
 * (when not NULL) says where. */
const char *job_check(const job *j, job_where *where, char *buf, size_t size_bytes);

/* The tasks and channels a graph expands to (valid or not: sums of its
 * vertices' parallelism and of its edges' channels, in 64 bits). */
void job_counts(const job *j, uint64_t *tasks, uint64_t *chans);
/* Arena bytes job_expand carves for j (a valid graph), alignment included. */
size_t job_expand_bytes(const job *j);
/* Tasks, channels and placement over `machines` machines, carved from a
 * (which must have job_expand_bytes(j) free); an earlier expansion of j
 * is forgotten, not freed. */
void job_expand(job *j, uint32_t machines, arena *a);

/* Pipelined regions (Flink's PipelinedRegionComputeUtil for a streaming
 * job, where every exchange is pipelined): the connected components of
 * the expanded task graph. A forward edge joins task i to task i, any
 * other joins every task of one vertex to every task of the other, so a
 * chain of forward edges of parallelism p is p regions and a job with a
 * hash edge over all its vertices is one. Fills region_of (by task, of
 * an expanded j) with region numbers 0 .. count - 1, numbered in the
 * order of their lowest task; returns the count. */
uint32_t job_regions(const job *j, uint32_t *region_of);

const char *job_kind_name(job_kind kind);
const char *job_part_name(job_part part);
const char *job_cost_name(job_cost cost);
const char *job_sink_name(job_sink sink);

#endif
