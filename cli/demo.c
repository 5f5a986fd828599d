/* cli/demo.c: `absim demo`, a small kernel-only run that shows every kernel
 * mechanism at work (until the protocol model lands and `make run` moves to
 * a real scenario).
 *
 * A producer on machine m0 streams numbered messages through a relay on m1
 * to a sink on m2 over two stream links; the sink acknowledges over an RPC
 * link; the producer keeps a window of 32 and goes back to the last
 * acknowledged message when its retransmission timer fires. The sink saves
 * progress to a store every 16 messages and retries failed writes. A fault
 * script partitions the relay away, crashes its machine, delays a link,
 * loses acknowledgements and makes the store slow and then failing. The run
 * ends when every message is acknowledged and saved. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "../sim/run.h"
#include "cli.h"

enum { DATA = 1, ACK = 2 };
enum { TICK = 1, RETRANSMIT = 2, RETRY_WRITE = 3 };
#define WINDOW 32u
#define SAVE_EVERY 16u

typedef struct demo {
    uint32_t     producer, relay, sink;
    uint32_t     to_relay, to_sink, ack_link, store;
    uint64_t     total;
    /* producer */
    uint64_t     next, acked, sent, retransmits;
    sim_timer_id rto;
    /* sink */
    uint64_t     expected, saved, saving, write_failures, done_at_ns;
} demo;

static void producer_fill(sim_run *run, demo *d) {
    while (d->next <= d->total && d->next <= d->acked + WINDOW) {
        sim_msg m = { .type = DATA, .a = d->next++ };
        link_send(run, d->to_relay, &m, 1024);
        d->sent++;
    }
}

static void producer_arm(sim_run *run, demo *d) {
    if (d->rto != 0) sim_timer_cancel(run, d->rto);
    d->rto = d->acked < d->total ? sim_timer_set(run, d->producer, 50 * SIM_NS_PER_MS, RETRANSMIT) : 0;
}

static void on_producer(sim_run *run, sim_actor *self, const sim_event *ev) {
    demo *d = self->ctx;
    switch (ev->kind) {
    case SIM_EV_START:
        d->next = d->acked + 1;
        producer_fill(run, d);
        producer_arm(run, d);
        break;
    case SIM_EV_MSG:
        if (ev->msg.type == ACK && ev->msg.a > d->acked) {
            d->acked = ev->msg.a;
            producer_arm(run, d);
            producer_fill(run, d);
        }
        break;
    case SIM_EV_TIMER:                 /* go back N */
        d->rto = 0;
        d->retransmits += d->next - d->acked - 1;
        d->next = d->acked + 1;
        producer_fill(run, d);
        producer_arm(run, d);
        break;
    default:                           /* link down: the timer will resend */
        break;
    }
}

static void on_relay(sim_run *run, sim_actor *self, const sim_event *ev) {
    demo *d = self->ctx;
    if (ev->kind == SIM_EV_MSG) link_send(run, d->to_sink, &ev->msg, 1024);
}

static void sink_save(sim_run *run, demo *d) {
    if (d->saving == 0 && d->expected - 1 >= d->saved + SAVE_EVERY) {
        d->saving = d->expected - 1;
        dev_write(run, d->store, d->sink, 4096, d->saving);
    } else if (d->saving == 0 && d->expected - 1 == d->total && d->saved < d->total) {
        d->saving = d->total;
        dev_write(run, d->store, d->sink, 4096, d->saving);
    }
}

static void on_sink(sim_run *run, sim_actor *self, const sim_event *ev) {
    demo *d = self->ctx;
    switch (ev->kind) {
    case SIM_EV_START:
        if (d->expected == 0) d->expected = 1;
        break;
    case SIM_EV_MSG:
        if (ev->msg.a == d->expected) d->expected++;
        sim_msg ack = { .type = ACK, .a = d->expected - 1 };
        link_send(run, d->ack_link, &ack, 64);
        sink_save(run, d);
        break;
    case SIM_EV_IO_DONE:
        if (ev->gen == DEV_OK) {
            d->saved = ev->msg.a;
            d->saving = 0;
            if (d->saved == d->total) {
                d->done_at_ns = run->now_ns;
                sim_stop(run);
                return;
            }
            sink_save(run, d);
        } else {
            d->write_failures++;
            sim_timer_set(run, d->sink, 5 * SIM_NS_PER_MS, RETRY_WRITE);
        }
        break;
    case SIM_EV_TIMER:
        dev_write(run, d->store, d->sink, 4096, d->saving);
        break;
    default:
        break;
    }
}

static void demo_usage(FILE *f) {
    fprintf(f, "usage: absim demo [--seed S] [--messages N] [--log FILE]\n"
               "\n"
               "A kernel-only run: producer -> relay -> sink over stream links, acks over\n"
               "RPC, a store, and a fault script (partition, machine crash, delay spike,\n"
               "lost RPCs, slow and failing store). Prints a summary and the trace hash.\n"
               "  --seed S      run seed (default 1)\n"
               "  --messages N  messages to deliver (default 2000)\n"
               "  --log FILE    write the event log to FILE ('-': stdout)\n");
}

/* The three actors, one per machine (their ids into m: the fault script
 * names the machines), the two stream links of the data path, the RPC
 * link of the acks, and the store. */
static void demo_wire(sim_run *run, demo *d, uint32_t m[3]) {
    m[0] = sim_machine_add(run, "m0");
    m[1] = sim_machine_add(run, "m1");
    m[2] = sim_machine_add(run, "m2");
    d->producer = sim_actor_add(run, "producer", m[0], on_producer, d);
    d->relay = sim_actor_add(run, "relay", m[1], on_relay, d);
    d->sink = sim_actor_add(run, "sink", m[2], on_sink, d);
    link_cfg data = { .kind = LINK_STREAM, .latency_ns = 200 * SIM_NS_PER_US,
                      .jitter_ns = 100 * SIM_NS_PER_US, .bandwidth_bytes_per_s = 100000000 };
    link_cfg rpc = { .kind = LINK_RPC, .latency_ns = 300 * SIM_NS_PER_US,
                     .jitter_ns = 200 * SIM_NS_PER_US, .bandwidth_bytes_per_s = 0 };
    d->to_relay = link_add(run, d->producer, d->relay, &data);
    d->to_sink = link_add(run, d->relay, d->sink, &data);
    d->ack_link = link_add(run, d->sink, d->producer, &rpc);
    d->store = dev_add(run, "store", &(dev_cfg){ .latency_ns = 2 * SIM_NS_PER_MS,
                                                  .bandwidth_bytes_per_s = 50000000 });
}

/* The fault script the file's header describes, at fixed times: one fault
 * of each kind, so that one run shows every mechanism the summary counts. */
static void demo_faults(sim_run *run, const demo *d, const uint32_t m[3]) {
    sim_time_ns ms = SIM_NS_PER_MS;
    fault_add(run, &(fault_spec){ .kind = FAULT_PARTITION, .at_ns = 10 * ms, .duration_ns = 30 * ms,
                                  .machines_a = 1u << m[1], .machines_b = (1u << m[0]) | (1u << m[2]) });
    fault_add(run, &(fault_spec){ .kind = FAULT_MACHINE_CRASH, .at_ns = 60 * ms,
                                  .duration_ns = 20 * ms, .target = m[1] });
    fault_add(run, &(fault_spec){ .kind = FAULT_LINK_DELAY, .at_ns = 90 * ms, .duration_ns = 40 * ms,
                                  .target = d->to_relay, .delay_ns = 20 * ms });
    fault_add(run, &(fault_spec){ .kind = FAULT_LINK_LOSS, .at_ns = 110 * ms, .duration_ns = 60 * ms,
                                  .target = d->ack_link, .ratio = { 3, 10 } });
    fault_add(run, &(fault_spec){ .kind = FAULT_DEV_SLOW, .at_ns = 130 * ms, .duration_ns = 40 * ms,
                                  .target = d->store, .factor = 10 });
    fault_add(run, &(fault_spec){ .kind = FAULT_DEV_FAIL, .at_ns = 150 * ms, .duration_ns = 40 * ms,
                                  .target = d->store, .ratio = { 1, 2 } });
}

/* The summary: why the run stopped, what was delivered and saved, and the
 * counters of each mechanism the faults exercised. */
static void demo_print(const sim_run *run, const demo *d, uint64_t seed) {
    char buf[256];
    sim_stop_describe(run, buf, sizeof buf);
    const sim_link *l0 = &run->links[d->to_relay], *l1 = &run->links[d->to_sink],
                   *la = &run->links[d->ack_link];
    const sim_dev *st = &run->devs[d->store];
    printf("absim demo: %s\n", buf);
    printf("  delivered %" PRIu64 "/%" PRIu64 " messages in order, saved through %" PRIu64
           ", done at t=%.3fms\n", d->expected - 1, d->total, d->saved, (double)d->done_at_ns / 1e6);
    printf("  producer: %" PRIu64 " sends, %" PRIu64 " retransmitted\n", d->sent, d->retransmits);
    printf("  links: %" PRIu64 " dropped while cut, %" PRIu64 " lost in flight on broken connections,"
           " %" PRIu64 " acks lost, %" PRIu64 " connection breaks\n",
           l0->dropped_cut + l1->dropped_cut + la->dropped_cut,
           l0->dropped_in_flight + l1->dropped_in_flight + la->dropped_in_flight, la->lost,
           l0->breaks + l1->breaks);
    printf("  store: %" PRIu64 " writes, %" PRIu64 " failed; machine crashes %" PRIu64
           ", events to down actors %" PRIu64 "\n",
           st->writes, st->failed_writes, run->stats.machine_crashes, run->stats.dropped_down);
    printf("  events %" PRIu64 ", choices %" PRIu64 ", seed %" PRIu64 ", trace_hash %016" PRIx64 "\n",
           run->stats.dispatched, run->stats.choices, seed, run->trace_hash);
}

int cli_kernel_demo(int argc, char **argv) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "messages", required_argument, NULL, 'n' },
        { "log", required_argument, NULL, 'l' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim demo";
    uint64_t seed = 1, total = 2000;
    const char *log_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE; break;
        case 'n': if (!cli_parse_u64(prog, "--messages", optarg, 1, 1u << 24, &total)) return CLI_USAGE; break;
        case 'l': log_path = optarg; break;
        case 'h': demo_usage(stdout); return CLI_OK;
        default:
            return cli_bad_option(prog, argv);
        }
    }
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    cli_out log;
    if (!cli_out_open(prog, "--log", log_path, &log)) return CLI_USAGE;

    sim_cfg cfg = sim_cfg_default(seed);
    cfg.time_max_ns = 600ull * SIM_NS_PER_S;
    cfg.log = log.f;
    sim_run *run = sim_run_create(&cfg);
    if (run == NULL) {
        cli_out_abandon(&log);
        return CLI_FAIL;
    }
    demo *d = sim_alloc(run, sizeof *d, _Alignof(demo));
    d->total = total;
    uint32_t m[3];
    demo_wire(run, d, m);
    demo_faults(run, d, m);
    sim_run_start(run);
    sim_stop_reason why = sim_run_loop(run);

    demo_print(run, d, seed);
    bool ok = why == SIM_STOP_REQUESTED && d->saved == d->total;
    sim_run_destroy(run);
    bool written = cli_out_commit(prog, "--log", &log);
    if (!cli_stdout_ok(prog) || !written) return CLI_USAGE;
    return ok ? CLI_OK : CLI_FAIL;
}
