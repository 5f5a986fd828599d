/* cli/bench.c: `absim bench phold`: the kernel benchmark; `pipeline` and
 * `snapshots`: the job model's; `bigjob`: a Flink-sized job checked end to
 * end (the time and memory a whole checked run takes).
 *
 * Wall-clock time is read here, around sim_run_loop() only (setup and
 * teardown excluded), never inside the run: it measures the run, it does not
 * steer it. The JSON keys match tests/bench/phold_simpy.py so `make bench`
 * can put the two side by side. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../model/pipe.h"
#include "../sim/phold.h"
#include "cli.h"

static void bench_usage(FILE *f) {
    fprintf(f,
            "usage: absim bench phold [--lps N] [--events M] [--remote P] [--seed S]\n"
            "                         [--mean-ns T] [--lookahead-ns T] [--log FILE]\n"
            "\n"
            "Runs PHOLD: N logical processes; each handled event schedules one new\n"
            "event after lookahead + an exponential delay (mean T), at a random LP\n"
            "with probability P and at itself otherwise. Prints one JSON line:\n"
            "events, wall_s, events_per_sec, peak_pending, trace_hash, ...\n"
            "\n"
            "  --lps N           logical processes (default 1000)\n"
            "  --events M        events to handle (default 10000000)\n"
            "  --remote P        probability of a remote event, 0..1 (default 0.9)\n"
            "  --seed S          run seed (default 1)\n"
            "  --mean-ns T       mean exponential delay in ns (default 1000000)\n"
            "  --lookahead-ns T  constant delay added to each event in ns (default 1000)\n"
            "  --log FILE        write the human-readable event log to FILE ('-': stdout)\n");
}

static double seconds_between(const struct timespec *a, const struct timespec *b) {
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

/* The options of bench phold into cfg and *log_path; returns -1 when the
 * run goes on, else the exit status. */
static int parse_phold(const char *prog, int argc, char **argv, phold_cfg *cfg, const char **log_path) {
    static const struct option opts[] = {
        { "lps", required_argument, NULL, 'n' },
        { "events", required_argument, NULL, 'm' },
        { "remote", required_argument, NULL, 'r' },
        { "seed", required_argument, NULL, 's' },
        { "mean-ns", required_argument, NULL, 'M' },
        { "lookahead-ns", required_argument, NULL, 'L' },
        { "log", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    uint64_t v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!cli_parse_u64(prog, "--lps", optarg, 1, 1u << 20, &v)) return CLI_USAGE;
            cfg->lps = (uint32_t)v;
            break;
        case 'm':
            if (!cli_parse_u64(prog, "--events", optarg, 1, 1ull << 39, &v)) return CLI_USAGE;
            cfg->events = v;
            break;
        case 'r':
            if (!cli_parse_ratio(prog, "--remote", optarg, &cfg->remote)) return CLI_USAGE;
            break;
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &v)) return CLI_USAGE;
            cfg->seed = v;
            break;
        case 'M':
            if (!cli_parse_u64(prog, "--mean-ns", optarg, 0, 1ull << 40, &v)) return CLI_USAGE;
            cfg->mean_ns = v;
            break;
        case 'L':
            if (!cli_parse_u64(prog, "--lookahead-ns", optarg, 0, 1ull << 40, &v)) return CLI_USAGE;
            cfg->lookahead_ns = v;
            break;
        case 'l':
            *log_path = optarg;
            break;
        case 'h':
            bench_usage(stdout);
            return CLI_OK;
        default:
            return cli_bad_option(prog, argv);
        }
    }
    return -1;
}

static int bench_phold(int argc, char **argv) {
    const char *prog = "absim bench phold";
    phold_cfg cfg = phold_cfg_default();
    const char *log_path = NULL;
    int rc = parse_phold(prog, argc, argv, &cfg, &log_path);
    if (rc >= 0) return rc;
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    if (cfg.mean_ns == 0 && cfg.lookahead_ns == 0) {
        fprintf(stderr, "%s: --mean-ns and --lookahead-ns cannot both be 0 (time would stand still)\n", prog);
        return CLI_USAGE;
    }
    /* Virtual time must not run past 2^63 ns: a delay is at most lookahead
     * + 23 means (the largest exponential draw), and one LP could receive
     * every event, so events x that bound must fit. */
    unsigned __int128 worst = (unsigned __int128)(cfg.lookahead_ns + 23 * cfg.mean_ns) * (cfg.events + 1);
    if (worst >= (unsigned __int128)1 << 63) {
        fprintf(stderr, "%s: --events x (--lookahead-ns + 23 x --mean-ns) must stay below 2^63 ns of"
                        " virtual time; lower the delays or the events\n", prog);
        return CLI_USAGE;
    }
    cli_out log;
    if (!cli_out_open(prog, "--log", log_path, &log)) return CLI_USAGE;
    cfg.log = log.f;

    sim_run *run = phold_create(&cfg);
    if (run == NULL) {
        fprintf(stderr, "%s: out of memory for %" PRIu32 " LPs\n", prog, cfg.lps);
        cli_out_abandon(&log);
        return CLI_FAIL;
    }
    sim_run_start(run);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sim_stop_reason why = sim_run_loop(run);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall_s = seconds_between(&t0, &t1);
    uint64_t handled = phold_handled(run);
    rc = CLI_OK;
    if (why != SIM_STOP_REQUESTED || handled != cfg.events) {
        char buf[256];
        sim_stop_describe(run, buf, sizeof buf);
        fprintf(stderr, "%s: %s\n", prog, buf);
        rc = CLI_FAIL;
    }
    printf("{\"impl\":\"absim\",\"model\":\"phold\",\"lps\":%" PRIu32 ",\"events\":%" PRIu64
           ",\"remote\":%.6f,\"seed\":%" PRIu64 ",\"wall_s\":%.6f,\"events_per_sec\":%.0f"
           ",\"peak_pending\":%" PRIu32 ",\"dispatched\":%" PRIu64 ",\"end_ns\":%" PRIu64
           ",\"trace_hash\":\"%016" PRIx64 "\"}\n",
           cfg.lps, handled, (double)cfg.remote.num / (double)cfg.remote.den, cfg.seed, wall_s,
           wall_s > 0 ? (double)handled / wall_s : 0.0, run->events.peak, run->stats.dispatched,
           run->now_ns, run->trace_hash);
    sim_run_destroy(run);
    bool written = cli_out_commit(prog, "--log", &log);
    return cli_stdout_ok(prog) && written ? rc : CLI_USAGE;
}

static void pipeline_usage(FILE *f) {
    fprintf(f,
            "usage: absim bench pipeline [--records N] [--parallelism P] [--seed S]\n"
            "                            [--interval-ns T] [--mode aligned|at-least-once]\n"
            "                            [--buffer-timeout-ns B] [--warmup W] [--repeat R]\n"
            "                            [--against Q]\n"
            "\n"
            "Runs the reference job: source -> map (forward) -> keyed aggregate (hash)\n"
            "-> sink (forward), each with parallelism P, over N records in 2P\n"
            "partitions, checkpointing every T ns of virtual time. The job runs W\n"
            "times untimed, then R times timed, each a fresh run of the same job\n"
            "(every run must give the same trace hash). Prints one JSON line, the\n"
            "median of the timed runs: records, wall_s, records_per_sec, events,\n"
            "events_per_sec, checkpoints, data_buffers and records_per_buffer (how\n"
            "full the buffers went), ... and wall_s_min, wall_s_max.\n"
            "  --records N       records in all (default 1000000)\n"
            "  --parallelism P   tasks per vertex (default 4)\n"
            "  --seed S          run seed (default 1)\n"
            "  --interval-ns T   checkpoint interval (default 100000000: 100 ms)\n"
            "  --mode M          checkpoint mode (default aligned)\n"
            "  --buffer-timeout-ns B  a partly filled buffer is sent after B ns (default\n"
            "                    100000000: 100 ms, Flink's execution.buffer-timeout;\n"
            "                    a scenario's default too; at 1 ms the hash edge's\n"
            "                    buffers leave partly full once P is large, so the job\n"
            "                    moves more buffers per record than at a small P)\n"
            "  --warmup W        untimed runs first (default 1; 0: time a cold process)\n"
            "  --repeat R        timed runs, 1..99 (default 5)\n"
            "  --against Q       the same job at parallelism Q too, its runs taking\n"
            "                    turns with these; adds the peer's records_per_sec and\n"
            "                    ratio_of_medians and median_pair_ratio (this job's\n"
            "                    records/s over the peer's)\n");
}

/* One run of the reference job, timed around pipe_run() only. */
typedef struct pipeline_timed {
    double      wall_s;
    pipe_status status;
    pipe_stats  st;
    uint64_t    dispatched;
    sim_time_ns end_ns;
    uint64_t    trace_hash;
} pipeline_timed;

static bool pipeline_time(const pipe_cfg *cfg, pipeline_timed *out, char *err, size_t err_len) {
    pipeline *pl = pipe_create(cfg, err, err_len);
    if (pl == NULL) return false;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pipe_run(pl);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_s = seconds_between(&t0, &t1);
    out->status = pipe_get_status(pl);
    out->st = *pipe_get_stats(pl);
    out->dispatched = pipe_sim(pl)->stats.dispatched;
    out->end_ns = pipe_sim(pl)->now_ns;
    out->trace_hash = pipe_sim(pl)->trace_hash;
    pipe_destroy(pl);
    return true;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The timed runs of one job: its first run (what the line reports) and
 * every timed run's wall time. */
typedef struct pipeline_series {
    const pipe_cfg *cfg;
    uint32_t        p;
    pipeline_timed  first;
    double          walls[99];
} pipeline_series;

/* Run i of a series (i < warmup: untimed); false, with the exit code in
 * *rc, when the job cannot be built or is not deterministic. */
static bool pipeline_round(pipeline_series *s, uint32_t i, uint32_t warmup, int *rc) {
    const char *prog = "absim bench pipeline";
    pipeline_timed r = { 0 };
    char err[256];
    if (!pipeline_time(s->cfg, &r, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        *rc = CLI_USAGE;
        return false;
    }
    if (i == 0) s->first = r;
    if (r.trace_hash != s->first.trace_hash || r.status != s->first.status) {
        fprintf(stderr, "%s: parallelism %u, run %u gave trace hash %016" PRIx64 ", run 1 %016" PRIx64
                ": not deterministic\n", prog, s->p, i + 1, r.trace_hash, s->first.trace_hash);
        *rc = CLI_FAIL;
        return false;
    }
    if (i >= warmup) s->walls[i - warmup] = r.wall_s;
    return true;
}

static double median_of(double *v, uint32_t n) {
    qsort(v, n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t pipeline_records(const pipe_cfg *cfg) {
    return (uint64_t)cfg->broker.partitions * cfg->broker.records_per_partition;
}

/* Records per second of a job's run of wall_s seconds. */
static double pipeline_rate(const pipe_cfg *cfg, double wall_s) {
    return wall_s > 0 ? (double)pipeline_records(cfg) / wall_s : 0.0;
}

/* The peer's fields and the two ratios, for --against: each ratio is
 * this job's records/s over the peer's, once of the medians and once the
 * median of the ratios of runs that ran one after the other (on a shared
 * machine the load moves within seconds, and a pair shares it). */
static void pipeline_print_against(const pipeline_series *s, const pipeline_series *q, uint32_t repeat) {
    double pair[99], ws[99], wq[99];
    for (uint32_t i = 0; i < repeat; i++) {
        double peer = pipeline_rate(q->cfg, q->walls[i]);
        pair[i] = peer > 0 ? pipeline_rate(s->cfg, s->walls[i]) / peer : 0.0;
        ws[i] = s->walls[i];
        wq[i] = q->walls[i];
    }
    double ms = pipeline_rate(s->cfg, median_of(ws, repeat)), mq = pipeline_rate(q->cfg, median_of(wq, repeat));
    printf(",\"against\":{\"parallelism\":%u,\"status\":\"%s\",\"records_per_sec\":%.0f,\"data_buffers\":%" PRIu64
           ",\"trace_hash\":\"%016" PRIx64 "\"},\"ratio_of_medians\":%.3f,\"median_pair_ratio\":%.3f", q->p,
           pipe_status_name(q->first.status), mq, q->first.st.data_buffers, q->first.trace_hash, mq > 0 ? ms / mq : 0.0,
           median_of(pair, repeat));
}

/* Warm-up runs, then timed ones: the first run of a process pays for a
 * cold cache, first-touched pages and, on a shared machine, a cold core
 * (measured 2026-12-02: 1,000,000 records at parallelism 1 ran 9-13 M
 * records/s cold against 13 M warm), which is not the per-record cost the
 * bench is for. Every run must give the first one's trace hash. With a
 * peer (--against) the two jobs take turns, run for run. */
static int pipeline_measure(pipeline_series *s, pipeline_series *q, uint32_t warmup, uint32_t repeat,
                            pipe_mode mode) {
    SIM_ASSERT(repeat >= 1 && repeat <= 99);
    int rc = CLI_OK;
    for (uint32_t i = 0; i < warmup + repeat; i++) {
        if (!pipeline_round(s, i, warmup, &rc)) return rc;
        if (q != NULL && !pipeline_round(q, i, warmup, &rc)) return rc;
    }
    double walls[99];
    memcpy(walls, s->walls, sizeof walls);
    double wall_s = median_of(walls, repeat);
    const pipeline_timed *first = &s->first;
    const pipe_stats *st = &first->st;
    printf("{\"impl\":\"absim\",\"model\":\"pipeline\",\"parallelism\":%u,\"records\":%" PRIu64
           ",\"mode\":\"%s\",\"status\":\"%s\",\"warmup\":%u,\"repeat\":%u,\"wall_s\":%.6f,\"wall_s_min\":%.6f"
           ",\"wall_s_max\":%.6f,\"records_per_sec\":%.0f,\"record_hops\":%" PRIu64 ",\"events\":%" PRIu64
           ",\"events_per_sec\":%.0f,\"virtual_s\":%.6f,\"checkpoints\":%" PRIu64 ",\"aborted\":%" PRIu64
           ",\"ckpt_ms_mean\":%.3f,\"align_ms_max\":%.3f,\"buffer_timeout_ns\":%" PRIu64 ",\"data_buffers\":%" PRIu64
           ",\"records_per_buffer\":%.2f,\"trace_hash\":\"%016" PRIx64 "\"",
           s->p, pipeline_records(s->cfg), mode == PIPE_ALIGNED ? "aligned" : "at-least-once",
           pipe_status_name(first->status), warmup, repeat, wall_s, walls[0], walls[repeat - 1],
           pipeline_rate(s->cfg, wall_s), st->records_processed, first->dispatched,
           wall_s > 0 ? (double)first->dispatched / wall_s : 0.0, (double)first->end_ns / 1e9, st->completed,
           st->aborted, st->completed ? (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6 : 0.0,
           (double)st->alignment_ns_max / 1e6, s->cfg->buffer_timeout_ns, st->data_buffers,
           st->data_buffers ? (double)st->records_processed / (double)st->data_buffers : 0.0, first->trace_hash);
    if (q != NULL) pipeline_print_against(s, q, repeat);
    printf("}\n");
    if (!cli_stdout_ok("absim bench pipeline")) return CLI_USAGE;
    bool finished = first->status == PIPE_FINISHED && (q == NULL || q->first.status == PIPE_FINISHED);
    return finished ? CLI_OK : CLI_FAIL;
}

/* The reference job at parallelism p. */
static void pipeline_cfg(pipe_cfg *cfg, uint64_t seed, uint32_t p, uint64_t records, pipe_mode mode,
                         uint64_t interval_ns, uint64_t timeout_ns) {
    pipe_cfg_init(cfg, seed);
    job_add_chain(&cfg->graph, &(job_chain){ .parallelism = { p, p, p, p },
                                             .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD },
                                             .cost_ns = { 200, 100, 300, 50 } });
    cfg->broker.partitions = 2 * p;
    cfg->broker.records_per_partition = (records + 2 * p - 1) / (2 * p);
    cfg->broker.keys = 10000;
    cfg->machines = p < PIPE_MACHINES_MAX ? p : PIPE_MACHINES_MAX;
    cfg->ckpt.mode = mode;
    cfg->ckpt.interval_ns = interval_ns;
    cfg->buffer_timeout_ns = timeout_ns;
}

static int bench_pipeline(int argc, char **argv) {
    static const struct option opts[] = {
        { "records", required_argument, NULL, 'n' },
        { "parallelism", required_argument, NULL, 'p' },
        { "seed", required_argument, NULL, 's' },
        { "interval-ns", required_argument, NULL, 'i' },
        { "mode", required_argument, NULL, 'm' },
        { "warmup", required_argument, NULL, 'w' },
        { "repeat", required_argument, NULL, 'r' },
        { "against", required_argument, NULL, 'a' },
        { "buffer-timeout-ns", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim bench pipeline";
    uint64_t records = 1000000, par = 4, seed = 1, interval = 100 * SIM_NS_PER_MS, warmup = 1, repeat = 5;
    uint64_t against = 0, timeout = 100 * SIM_NS_PER_MS;
    pipe_mode mode = PIPE_ALIGNED;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n': if (!cli_parse_u64(prog, "--records", optarg, 1, 1u << 30, &records)) return CLI_USAGE; break;
        case 'p': if (!cli_parse_u64(prog, "--parallelism", optarg, 1, JOB_PARALLELISM_MAX, &par)) return CLI_USAGE; break;
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE; break;
        case 'i': if (!cli_parse_u64(prog, "--interval-ns", optarg, 1, 1ull << 50, &interval)) return CLI_USAGE; break;
        case 'w': if (!cli_parse_u64(prog, "--warmup", optarg, 0, 99, &warmup)) return CLI_USAGE; break;
        case 'r': if (!cli_parse_u64(prog, "--repeat", optarg, 1, 99, &repeat)) return CLI_USAGE; break;
        case 'a': if (!cli_parse_u64(prog, "--against", optarg, 1, JOB_PARALLELISM_MAX, &against)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_u64(prog, "--buffer-timeout-ns", optarg, 1, 1ull << 50, &timeout)) return CLI_USAGE; break;
        case 'm':
            if (strcmp(optarg, "aligned") == 0) {
                mode = PIPE_ALIGNED;
            } else if (strcmp(optarg, "at-least-once") == 0) {
                mode = PIPE_AT_LEAST_ONCE;
            } else {
                fprintf(stderr, "%s: --mode '%s': expected aligned or at-least-once\n", prog, optarg);
                return CLI_USAGE;
            }
            break;
        case 'h': pipeline_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    static pipe_cfg cfg, peer;                    /* large: not on the stack */
    pipeline_cfg(&cfg, seed, (uint32_t)par, records, mode, interval, timeout);
    pipeline_series s = { .cfg = &cfg, .p = (uint32_t)par }, q = { .cfg = &peer, .p = (uint32_t)against };
    if (against != 0) pipeline_cfg(&peer, seed, (uint32_t)against, records, mode, interval, timeout);
    return pipeline_measure(&s, against != 0 ? &q : NULL, (uint32_t)warmup, (uint32_t)repeat, mode);
}

static void snapshots_usage(FILE *f) {
    fprintf(f,
            "usage: absim bench snapshots [--records N] [--keys K] [--seed S]\n"
            "\n"
            "The ABS paper's experiment on the simulator: the reference job\n"
            "(parallelism 4, durable backend) at checkpoint intervals of 10 ms to\n"
            "1 s of virtual time, with synchronous snapshots (the task stops while\n"
            "its state is written) and asynchronous copy-on-write ones. Prints a\n"
            "table: the job's virtual duration and throughput (records per virtual\n"
            "second), completed checkpoints, their mean duration, the time tasks\n"
            "stood still for snapshots, and the event-time latency of the output\n"
            "(sources read at the broker's production rate, so a job that falls\n"
            "behind shows it as latency).\n"
            "  --records N   records in all (default 400000)\n"
            "  --keys K      distinct keys (default 100000: big state)\n");
}

static int bench_snapshots(int argc, char **argv) {
    static const struct option opts[] = {
        { "records", required_argument, NULL, 'n' },
        { "keys", required_argument, NULL, 'k' },
        { "seed", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim bench snapshots";
    uint64_t records = 400000, keys = 100000, seed = 1;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'n': if (!cli_parse_u64(prog, "--records", optarg, 1, 1u << 26, &records)) return CLI_USAGE; break;
        case 'k': if (!cli_parse_u64(prog, "--keys", optarg, 1, BROKER_KEYS_MAX, &keys)) return CLI_USAGE; break;
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE; break;
        case 'h': snapshots_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    static const uint64_t intervals_ms[] = { 10, 25, 50, 100, 250, 1000 };
    printf("%-10s %-6s %10s %14s %12s %13s %15s %16s %15s\n", "interval", "mode", "virtual_s", "records/vsec",
           "checkpoints", "ckpt_ms_mean", "stalled_ms_sum", "latency_ms_mean", "latency_ms_max");
    for (size_t i = 0; i < sizeof intervals_ms / sizeof intervals_ms[0]; i++) {
        for (int async = 0; async < 2; async++) {
            static pipe_cfg cfg;                  /* large: not on the stack */
            pipe_cfg_init(&cfg, seed);
            job_add_chain(&cfg.graph, &(job_chain){ .parallelism = { 4, 4, 4, 4 },
                                                    .into = { 0, JOB_FORWARD, JOB_HASH, JOB_FORWARD },
                                                    .cost_ns = { 2000, 1000, 3000, 500 } });
            cfg.broker.partitions = 8;
            cfg.broker.records_per_partition = (records + 7) / 8;
            cfg.broker.keys = (uint32_t)keys;
            cfg.machines = 4;
            cfg.ckpt.interval_ns = intervals_ms[i] * SIM_NS_PER_MS;
            cfg.ckpt.timeout_ns = 60 * SIM_NS_PER_S;
            cfg.state.backend = PIPE_BACKEND_DURABLE;
            cfg.state.async = async;
            /* Sources read at the rate the broker produces (2 partitions
             * per source task, a record every 8us in each): the event-time
             * latency at the sinks then shows how far the job falls behind. */
            cfg.broker.event_gap_ns = 8 * SIM_NS_PER_US;
            cfg.source_rate_per_s = 2 * SIM_NS_PER_S / cfg.broker.event_gap_ns;
            char err[256];
            pipeline *pl = pipe_create(&cfg, err, sizeof err);
            if (pl == NULL) {
                fprintf(stderr, "%s: %s\n", prog, err);
                return CLI_USAGE;
            }
            pipe_run(pl);
            const pipe_stats *st = pipe_get_stats(pl);
            double vs = (double)pipe_sim(pl)->now_ns / 1e9;
            uint64_t total = (uint64_t)cfg.broker.partitions * cfg.broker.records_per_partition;
            char iv[16];
            snprintf(iv, sizeof iv, "%" PRIu64 "ms", intervals_ms[i]);
            printf("%-10s %-6s %10.3f %14.0f %12" PRIu64 " %13.3f %15.3f %16.3f %15.3f\n", iv, async ? "async" : "sync",
                   vs, vs > 0 ? (double)total / vs : 0.0, st->completed,
                   st->completed ? (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6 : 0.0,
                   (double)st->sync_ns_sum / 1e6,
                   st->visible_records ? (double)st->latency_ns_sum / (double)st->visible_records / 1e6 : 0.0,
                   (double)st->latency_ns_max / 1e6);
            pipe_destroy(pl);
        }
    }
    return CLI_OK;
}


static void bigjob_usage(FILE *f) {
    fprintf(f,
            "usage: absim bench bigjob [--parallelism P] [--keys K] [--records N] [--seed S]\n"
            "                          [--scenario]\n"
            "\n"
            "A Flink-sized job, run as absim run runs a scenario, with every invariant\n"
            "checker attached: source -> map (forward) -> keyed aggregate (hash: the\n"
            "keyBy) -> two-phase-commit sink (forward), each with parallelism P, on 16\n"
            "machines, over N records in P partitions with K keys (the sources paced to\n"
            "read them in 80 ms of virtual time), aligned checkpoints every 5 ms. A\n"
            "machine crashes when checkpoint 1 completes, a keyed task when checkpoint 3\n"
            "(the first after that restart) does; the job must finish exactly-once\n"
            "(state and output) after two restarts. Prints one JSON line: wall_s (the\n"
            "whole checked run, set-up included), peak_rss_mib (getrusage), the\n"
            "verdicts of I1-I6 and of the expectations; exit 1 when one failed.\n"
            "  --parallelism P   tasks per vertex (default 64)\n"
            "  --keys K          distinct keys (default 1000000)\n"
            "  --records N       records in all (default 1000000)\n"
            "  --seed S          run seed (default 1)\n"
            "  --scenario        print the scenario file instead (absim run takes it)\n");
}

/* The scenario. Sources are paced to read their partition in 80 ms of
 * virtual time whatever the job's size, and the crashes come at protocol
 * points, so that each fails an attempt that made progress: a machine
 * when the first checkpoint completes, a keyed task when the first one
 * after that restart (id 3) completes. */
static int bigjob_text(char *buf, size_t n, uint64_t par, uint64_t keys, uint64_t records, uint64_t seed) {
    uint64_t per = (records + par - 1) / par;    /* records of a partition, and of a source task */
    return snprintf(buf, n,
                    "# absim bench bigjob: parallelism %" PRIu64 ", %" PRIu64 " keys, %" PRIu64 " records\n"
                    "seed %" PRIu64 "\nmachines 16\n"
                    "broker partitions %" PRIu64 " records %" PRIu64 " keys %" PRIu64 "\n"
                    "vertex source source parallelism %" PRIu64 " cost 2us rate %" PRIu64 "/s\n"
                    "vertex map map parallelism %" PRIu64 " cost 1us\n"
                    "vertex agg keyed-aggregate parallelism %" PRIu64 " cost 3us\n"
                    "vertex out sink parallelism %" PRIu64 " cost 1us output two-phase-commit\n"
                    "edge source -> map forward\nedge map -> agg hash\nedge agg -> out forward\n"
                    "checkpoint mode aligned interval 5ms timeout 1s\n"
                    "restart fixed-delay attempts 10 delay 5ms\n"
                    "fault when checkpoint 1 completes crash machine 3 for 5ms\n"
                    "fault when checkpoint 3 completes crash task agg[7]\n"
                    "expect finished\nexpect exactly-once\nexpect output exactly-once\nexpect restarts == 2\n",
                    par, keys, records, seed, par, per, keys, par, per * 25 / 2 + 1, par, par, par);
}

static const char *verdict_of(const check_report *r, check_inv i) {
    return !r->applies[i] ? "not promised" : r->violations[i] > 0 ? "violated"
         : i == CHECK_I6 && r->unreachable[0] != '\0' ? "not judged" : r->checks[i] == 0 ? "not reached" : "held";
}

static void bigjob_print(const scn *s, const cli_outcome *o, double wall_s, int rc) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);                   /* ru_maxrss: KiB on Linux */
    uint64_t tasks, chans;
    job_counts(&s->cfg.graph, &tasks, &chans);
    const job_vertex *v = &s->cfg.graph.vertices[0];
    printf("{\"impl\":\"absim\",\"model\":\"bigjob\",\"parallelism\":%u,\"keys\":%" PRIu64 ",\"records\":%" PRIu64
           ",\"tasks\":%" PRIu64 ",\"channels\":%" PRIu64 ",\"status\":\"%s\",\"wall_s\":%.3f,\"peak_rss_mib\":%.1f"
           ",\"virtual_s\":%.6f,\"restarts\":%" PRIu64 ",\"checkpoints\":%" PRIu64 ",\"verdicts\":{",
           v->parallelism, s->cfg.broker.keys, (uint64_t)s->cfg.broker.partitions * s->cfg.broker.records_per_partition,
           tasks, chans, pipe_status_name(o->status), wall_s, (double)ru.ru_maxrss / 1024.0,
           (double)o->story.end_ns / 1e9, o->restarts, o->completed);
    for (check_inv i = CHECK_I1; i < CHECK_INV_COUNT; i++)
        printf("%s\"%s\":\"%s\"", i == CHECK_I1 ? "" : ",", check_inv_name(i), verdict_of(&o->report, i));
    printf("},\"expectations\":\"%s\",\"trace_hash\":\"%016" PRIx64 "\"}\n", rc == CLI_OK ? "held" : "failed",
           o->trace_hash);
}

static int bench_bigjob(int argc, char **argv) {
    static const struct option opts[] = {
        { "parallelism", required_argument, NULL, 'p' },
        { "keys", required_argument, NULL, 'k' },
        { "records", required_argument, NULL, 'n' },
        { "seed", required_argument, NULL, 's' },
        { "scenario", no_argument, NULL, 'S' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim bench bigjob";
    uint64_t par = 64, keys = 1000000, records = 1000000, seed = 1;
    bool text_only = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p': if (!cli_parse_u64(prog, "--parallelism", optarg, 8, JOB_PARALLELISM_MAX, &par)) return CLI_USAGE; break;
        case 'k': if (!cli_parse_u64(prog, "--keys", optarg, 1, BROKER_KEYS_MAX, &keys)) return CLI_USAGE; break;
        case 'n': if (!cli_parse_u64(prog, "--records", optarg, 1, 1u << 30, &records)) return CLI_USAGE; break;
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE; break;
        case 'S': text_only = true; break;
        case 'h': bigjob_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    char text[2048];
    int len = bigjob_text(text, sizeof text, par, keys, records, seed);
    SIM_ASSERT(len > 0 && (size_t)len < sizeof text);
    if (text_only) {
        fputs(text, stdout);
        return cli_stdout_ok(prog) ? CLI_OK : CLI_USAGE;
    }
    scn *s = malloc(sizeof *s);                   /* large: not on the stack */
    cli_outcome *o = malloc(sizeof *o);
    char err[SCN_ERR_BYTES];
    int rc = CLI_USAGE;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (s == NULL || o == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
    } else if (!scn_parse(s, "bigjob.scn", text, (size_t)len, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
    } else {
        rc = cli_run_scenario(s, false, NULL, NULL, NULL, NULL, 0, NULL, o);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        for (uint32_t i = 0; i < o->failures.count; i++) fprintf(stderr, "%s: %s\n", prog, o->failures.text[i]);
        if (rc != CLI_USAGE) bigjob_print(s, o, seconds_between(&t0, &t1), rc);
    }
    free(o);
    free(s);
    return rc;
}

int cli_bench(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        bench_usage(argc < 2 ? stderr : stdout);
        pipeline_usage(argc < 2 ? stderr : stdout);
        snapshots_usage(argc < 2 ? stderr : stdout);
        bigjob_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    if (strcmp(argv[1], "phold") == 0) return bench_phold(argc - 1, argv + 1);
    if (strcmp(argv[1], "pipeline") == 0) return bench_pipeline(argc - 1, argv + 1);
    if (strcmp(argv[1], "snapshots") == 0) return bench_snapshots(argc - 1, argv + 1);
    if (strcmp(argv[1], "bigjob") == 0) return bench_bigjob(argc - 1, argv + 1);
    fprintf(stderr, "absim bench: unknown benchmark '%s' (known: phold, pipeline, snapshots, bigjob)\n", argv[1]);
    return CLI_USAGE;
}
