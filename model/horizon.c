/* model/horizon.c: how long a failure-free run of a configuration takes,
 * estimated from the job's input, rates and costs, without simulating.
 *
 * The random fault profiles place their faults inside this horizon. It
 * used to be measured by a failure-free run before every seed's run, which
 * cost a third of a swarm seed; the estimate costs microseconds and does
 * not depend on the seed beyond what the configuration says.
 *
 * The model: tasks work in a pipeline, so the run lasts about as long as
 * its busiest task is busy, plus the time a record needs to cross the job
 * and the deployment before the first one. The busiest task of a vertex
 * gets: a source, its topic's partitions (its partition i goes to subtask
 * i % p); a
 * forward edge, the busiest upstream task's output; a rebalance edge, an
 * even share; a hash edge, the share of the task that owns the most
 * frequent keys (the same routing as the tasks', model/tm/task.c); a
 * broadcast edge, everything. Filters keep their percentage; a window
 * sends on a result per key and window, at most. Where several
 * edges feed a vertex their busiest shares are added, which can only
 * overestimate. A channel also bounds the rate: credit-based flow control
 * lets `credits` buffers be on their way per round trip, and the link's
 * bandwidth caps the bytes. tests/test_horizon.c holds the estimate against measured
 * failure-free runs of every scenario file.
 *
 * A rescale schedule: each stretch between rescales runs at its
 * parallelisms' pace, and each rescale sets the input back by a
 * checkpoint interval and one and a half snapshot writes (about the age
 * of the checkpoint the restore replays from) and a deployment. A stop or
 * cancel adds its resume's wait, a deployment and as much replay. */
#include "plan.h"
#include "tm/tm.h"                /* CHAN_BUF_RECORDS */
#include "flow/window.h"

#include "../sim/dmath.h"

#define HZ_EXACT_KEYS 256u   /* keys whose share is computed one by one; the rest spread evenly */

/* The share of all records that the busiest of p hash-routed tasks gets. */
static double hash_share_max(const broker_topic_cfg *b, uint32_t max_parallelism, uint32_t p) {
    double share[JOB_PARALLELISM_MAX] = { 0 }, weight[HZ_EXACT_KEYS];
    uint64_t exact = b->keys < HZ_EXACT_KEYS ? b->keys : HZ_EXACT_KEYS;
    double s = b->dist == BROKER_ZIPF ? (double)b->zipf_s_milli / 1000.0 : 0.0;
    double head = 0.0, total;
    for (uint64_t k = 0; k < exact; k++) {       /* key k's weight: (k+1)^-s, or 1 when uniform */
        weight[k] = s > 0.0 ? dmath_pow((double)(k + 1), -s) : 1.0;
        head += weight[k];
    }
    if (s > 0.0 && exact < b->keys) {             /* the tail's sum as an integral: int x^-s dx */
        double a = (double)exact + 0.5, z = (double)b->keys + 0.5;
        total = head + (s == 1.0 ? dmath_ln(z / a) : (dmath_pow(z, 1.0 - s) - dmath_pow(a, 1.0 - s)) / (1.0 - s));
    } else {
        total = head + (double)(b->keys - exact);
    }
    for (uint64_t k = 0; k < exact; k++) {
        uint32_t t = job_key_subtask(k, max_parallelism, p);      /* the tasks' own routing */
        share[t] += weight[k] / total;
    }
    double tail = (total - head) / total / p, best = 0.0;
    for (uint32_t t = 0; t < p; t++) best = share[t] + tail > best ? share[t] + tail : best;
    return best;
}

/* Records into vertex v in all (total) and into its busiest task (busiest),
 * in vertex order: edges go from earlier to later vertices (job_check).
 * Each source reads its own topic; a hash edge routes the keys of the
 * topic that reaches its producer first (topic[v]: its first input's). */
static void flow(const pipe_cfg *cfg, const job *j, double *total, double *busiest, double *chan) {
    uint32_t topic[JOB_VERTICES_MAX];
    for (uint32_t v = 0; v < j->vertices_count; v++) topic[v] = UINT32_MAX;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        const job_vertex *x = &j->vertices[v];
        if (x->kind == JOB_SOURCE) {
            broker_topic_cfg b = broker_cfg_topic(&cfg->broker, x->topic);
            topic[v] = x->topic;
            total[v] = (double)b.partitions * (double)b.records_per_partition;
            busiest[v] = (double)((b.partitions + x->parallelism - 1) / x->parallelism) * (double)b.records_per_partition;
        }
        if (topic[v] == UINT32_MAX) topic[v] = 0;   /* no input: pipe_create() refuses the job */
        broker_topic_cfg b = broker_cfg_topic(&cfg->broker, topic[v]);
        double kept = x->kind == JOB_FILTER ? x->keep_percent / 100.0 : 1.0;
        for (uint32_t e = 0; e < j->edges_count; e++) {
            const job_edge *d = &j->edges[e];
            if (d->from != v) continue;
            uint32_t p = j->vertices[d->to].parallelism, mp = job_max_parallelism(&j->vertices[d->to]);
            double out = total[v] * kept, load = 0.0, per_producer = busiest[v] * kept;
            if (x->kind == JOB_WINDOW && total[v] > 0.0) {   /* it sends on a result per key and window */
                double results = (double)b.keys * (double)win_count(x, broker_cfg_event_end(&cfg->broker));
                if (results < out) per_producer *= results / out, out = results;
            }
            switch (d->part) {
            case JOB_FORWARD:   load = per_producer; chan[e] = load; break;
            case JOB_REBALANCE: load = out / p; chan[e] = per_producer / p; break;
            case JOB_HASH:      load = out * hash_share_max(&b, mp, p); chan[e] = per_producer * hash_share_max(&b, mp, p); break;
            case JOB_BROADCAST: load = out; out *= p; chan[e] = per_producer; break;
            }
            total[d->to] += out;
            busiest[d->to] += load;
            if (topic[d->to] == UINT32_MAX) topic[d->to] = topic[v];
        }
    }
}

/* Whether the estimate can be made (an invalid job: pipe_create() will
 * say what is wrong). */
static bool estimable(const pipe_cfg *cfg) {
    const job *j = &cfg->graph;
    uint32_t n = j->vertices_count;
    for (uint32_t v = 0; v < n; v++) {
        if (j->vertices[v].parallelism == 0 || j->vertices[v].parallelism > JOB_PARALLELISM_MAX) return false;
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {
        if (j->edges[e].from >= j->edges[e].to || j->edges[e].to >= n) return false;
    }
    for (uint32_t t = 0; t < broker_cfg_topics(&cfg->broker); t++) {
        if (broker_cfg_topic(&cfg->broker, t).keys == 0) return false;
    }
    for (uint32_t v = 0; v < n; v++) {
        if (j->vertices[v].kind == JOB_SOURCE && j->vertices[v].topic >= broker_cfg_topics(&cfg->broker)) return false;
    }
    for (uint32_t i = 0; i < cfg->rescales_count; i++) {
        if (cfg->rescales[i].vertex >= n || cfg->rescales[i].parallelism == 0 ||
            cfg->rescales[i].parallelism > JOB_PARALLELISM_MAX) return false;
    }
    return broker_cfg_partitions(&cfg->broker) > 0 && cfg->credits > 0;
}

/* How long the busiest task (or channel) of job j is busy with the whole input. */
static double busy_of(const pipe_cfg *cfg, const job *j) {
    double total[JOB_VERTICES_MAX] = { 0 }, busiest[JOB_VERTICES_MAX] = { 0 }, chan[JOB_EDGES_MAX] = { 0 };
    uint32_t n = j->vertices_count;
    flow(cfg, j, total, busiest, chan);
    double busy_ns = 0.0;
    for (uint32_t v = 0; v < n; v++) {
        const job_vertex *x = &j->vertices[v];
        double per_ns = (double)x->cost_ns;
        if (x->kind == JOB_SOURCE && cfg->source_rate_per_s > 0) {
            double paced = 1e9 / (double)cfg->source_rate_per_s;
            if (paced > per_ns) per_ns = paced;
        }
        if (busiest[v] * per_ns > busy_ns) busy_ns = busiest[v] * per_ns;
    }
    /* A buffer out, its credit back. Links are FIFO: a message waits for
     * the one before it, so a direction's delay averages about three
     * quarters of the jitter rather than half (measured on p4a). */
    double rtt_ns = 2.0 * (double)cfg->latency_ns + 1.5 * (double)cfg->jitter_ns;
    double buf_ns = rtt_ns / (double)cfg->credits;
    if (cfg->bandwidth_bytes_per_s > 0) {
        double wire_ns = 1e9 * (double)(CHAN_BUF_RECORDS * sizeof(model_rec)) / (double)cfg->bandwidth_bytes_per_s;
        if (wire_ns > buf_ns) buf_ns = wire_ns;
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {
        double ns = chan[e] / CHAN_BUF_RECORDS * buf_ns;
        if (ns > busy_ns) busy_ns = ns;
    }
    return busy_ns;
}

/* The busy time of the whole run under a rescale schedule, from `start_ns`
 * on: stretch by stretch, the share of the input each gets through. */
static double busy_rescaled(const pipe_cfg *cfg, double start_ns) {
    job g = cfg->graph;
    const dev_cfg *dev = cfg->state.backend == PIPE_BACKEND_DURABLE ? &cfg->state.store : &cfg->state.memory;
    double back_ns = (double)cfg->ckpt.interval_ns + 1.5 * (double)dev->latency_ns;   /* measured on swarm/rescale */
    double t = start_ns, done = 0.0, busy = 0.0;
    for (uint32_t i = 0; i <= cfg->rescales_count; i++) {
        sim_time_ns from = i == 0 ? 0 : cfg->rescales[i - 1].at_ns;
        for (uint32_t v = 0; v < g.vertices_count; v++) g.vertices[v].parallelism = pipe_parallelism_at(cfg, v, from);
        busy = busy_of(cfg, &g);
        if (busy <= 0.0) return 0.0;
        double end = i < cfg->rescales_count ? (double)cfg->rescales[i].at_ns : 1e300;
        if (t + (1.0 - done) * busy <= end) return t + (1.0 - done) * busy - start_ns;
        if (end > t) done += (end - t) / busy;
        done -= back_ns / busy;                   /* replayed from the checkpoint before */
        if (done < 0.0) done = 0.0;
        if (end > t) t = end;
        t += 4.0 * (double)cfg->rpc_latency_ns;
    }
    return t + (1.0 - done) * busy - start_ns;
}

sim_time_ns pipe_horizon_ns(const pipe_cfg *cfg) {
    if (!estimable(cfg)) return 0;
    const job *j = &cfg->graph;
    /* Crossing the job: a hop per vertex, each a latency and at worst a
     * buffer's timeout; before it, deployment and the first assignment. */
    double cross_ns = (double)j->vertices_count * (double)(cfg->latency_ns + cfg->jitter_ns + cfg->buffer_timeout_ns);
    double start_ns = 4.0 * (double)cfg->rpc_latency_ns;
    double busy_ns = cfg->rescales_count == 0 ? busy_of(cfg, j) : busy_rescaled(cfg, start_ns);
    double h = busy_ns + cross_ns + start_ns;
    /* A stop or cancel and its resume: the wait before it, a deployment,
     * and the input since the checkpoint it resumes from, replayed. */
    const dev_cfg *dev = cfg->state.backend == PIPE_BACKEND_DURABLE ? &cfg->state.store : &cfg->state.memory;
    for (uint32_t i = 0; i < cfg->stops_count; i++) {
        double back = start_ns + (double)cfg->ckpt.interval_ns + 1.5 * (double)dev->latency_ns;
        if (cfg->stops[i].drain) {                /* the job ends at its savepoint */
            double end = (double)cfg->stops[i].at_ns + back + cross_ns;
            if (end < h) h = end;
            break;
        }
        h += (double)cfg->stops[i].resume_ns + back;
    }
    return h >= 1e15 ? (sim_time_ns)1e15 : (sim_time_ns)h;
}
