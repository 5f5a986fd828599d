/* tests/bench/phold_ns3.cc: PHOLD on ns-3's discrete-event core, absim's
 * strongest speed peer in Debian (libns3-dev). A benchmark peer only:
 * `make bench` builds and runs it when ns-3 is installed; `make test`
 * never needs it.
 *
 *   phold_ns3 [--lps N] [--events M] [--remote P] [--seed S]
 *             [--mean-ns T] [--lookahead-ns T] [--scheduler NAME]
 *
 * The model is sim/phold.h's, and so are the draws: each LP owns the PCG32
 * stream absim gives actor `lp` (rng_stream(seed, 1 << 32 | lp), linked
 * from sim/rng.c), and a handled event draws, in phold_on_event's order, a
 * raw 32-bit delay draw (lookahead + rng_exp_ns), the remote chance
 * (rng_below(10^6) < P * 10^6, unless P is 0 or 1) and the remote LP
 * (rng_below(N)). ns-3 orders events by (time, insertion uid), absim by
 * (time, push order), and the N start events are scheduled at t=0 in LP
 * order as sim_run_start() pushes them: the two dispatch the same events
 * in the same order, and the trace fold of sim/trace.h over every
 * dispatched event gives absim's trace_hash (bench.sh checks that, so the
 * peer provably runs the same model). The per-event work is therefore
 * absim's: three draws, one fold, one schedule.
 *
 * --scheduler picks ns-3's pending-event set through ObjectFactory and
 * Simulator::SetScheduler: map (ns3::MapScheduler, ns-3's default, a
 * std::map), heap (ns3::HeapScheduler, a binary heap), calendar
 * (ns3::CalendarScheduler), priority-queue (ns3::PriorityQueueScheduler,
 * std::priority_queue) or list (ns3::ListScheduler, O(N) inserts). Each
 * event is an ns-3 EventImpl made by Simulator::Schedule, as every ns-3
 * model makes them. wall_s times Simulator::Run() alone, not the set-up.
 * Prints one JSON line with the keys of `absim bench phold` (impl "ns3").
 */
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <ns3/core-module.h>

extern "C" {
/* sim/rng.h's out-of-line functions, linked from sim/rng.c (C11): its
 * header is C, not C++, so only what is called is declared here. */
struct absim_rng {
    uint64_t state;
    uint64_t inc;
};
absim_rng rng_stream(uint64_t run_seed, uint64_t stream_id);
uint64_t rng_exp_ns(uint32_t u, uint64_t mean_ns);
}

namespace {

const uint32_t kDomainActor = 1;          /* RNG_DOMAIN_ACTOR */
const uint32_t kRatioDen = 1000000;       /* cli_parse_ratio's denominator */
const uint16_t kEvStart = 1, kEvMsg = 2;  /* SIM_EV_START, SIM_EV_MSG */
const uint32_t kPholdMsg = 1, kNoLink = 0xffffffffu;
const uint64_t kHashInit = 0x243f6a8885a308d3ull;

/* sim/rng.h's rng_u32 and rng_below (inline there, so copied here the
 * same way: PCG32 XSH-RR and the reference bounded rejection). */
inline uint32_t RngU32(absim_rng *r) {
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ull + r->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

inline uint32_t RngBelow(absim_rng *r, uint32_t bound) {
    uint32_t threshold = (0u - bound) % bound;
    for (;;) {
        uint32_t x = RngU32(r);
        if (x >= threshold) return x % bound;
    }
}

/* sim/trace.h's fold. */
inline uint64_t Mix(uint64_t h, uint64_t w) {
    h ^= w;
    h *= 0x9fb21c651e98df25ull;
    return h ^ (h >> 29);
}

struct Lp {
    absim_rng rng;
    uint64_t sent;
};

struct Model {
    std::vector<Lp> lps;
    uint64_t handled = 0, target = 0, dispatched = 0, hash = kHashInit;
    uint32_t remote = 0;                  /* num of num / 10^6 */
    uint64_t mean_ns = 0, lookahead_ns = 0;
};

Model g;                                  /* ns-3 handlers are free functions */

void OnEvent(uint32_t dst, uint16_t kind, uint32_t src, uint64_t a) {
    uint64_t now = (uint64_t)ns3::Simulator::Now().GetNanoSeconds();
    uint32_t type = kind == kEvMsg ? kPholdMsg : 0;
    g.dispatched++;
    g.hash = Mix(g.hash, now);
    g.hash = Mix(g.hash, ((uint64_t)dst << 32) | ((uint64_t)kind << 16));   /* outcome 0: delivered */
    g.hash = Mix(g.hash, ((uint64_t)kNoLink << 32));                       /* aux, gen 0 */
    g.hash = Mix(g.hash, ((uint64_t)type << 32) | src);
    g.hash = Mix(g.hash, a);
    g.hash = Mix(g.hash, 0);                                               /* msg.b */
    if (kind == kEvMsg && ++g.handled >= g.target) {
        ns3::Simulator::Stop();           /* after this event, as sim_stop() */
        return;
    }
    Lp *lp = &g.lps[dst];
    uint64_t delay = g.lookahead_ns + rng_exp_ns(RngU32(&lp->rng), g.mean_ns);
    uint32_t to = dst;
    bool far = g.remote == kRatioDen || (g.remote != 0 && RngBelow(&lp->rng, kRatioDen) < g.remote);
    if (far) to = RngBelow(&lp->rng, (uint32_t)g.lps.size());
    ns3::Simulator::Schedule(ns3::NanoSeconds(delay), &OnEvent, to, kEvMsg, dst, ++lp->sent);
}

[[noreturn]] void Usage(const char *why) {
    std::fprintf(stderr, "phold_ns3: %s\n"
                 "usage: phold_ns3 [--lps N] [--events M] [--remote P] [--seed S] [--mean-ns T]\n"
                 "                 [--lookahead-ns T] [--scheduler map|heap|calendar|priority-queue|list]\n",
                 why);
    std::exit(2);
}

uint64_t ParseU64(const char *opt, const char *text) {
    char *end = nullptr;
    if (text == nullptr || *text < '0' || *text > '9') Usage(opt);
    unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0') Usage(opt);
    return (uint64_t)v;
}

/* A probability as cli_parse_ratio reads it: 0 or 1, up to 6 decimals. */
uint32_t ParseRatio(const char *text) {
    const char *p = text;
    uint32_t frac = 0, digits = 0;
    if (p == nullptr || (*p != '0' && *p != '1')) Usage("--remote: expected 0..1");
    uint32_t whole = (uint32_t)(*p++ - '0');
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && digits < 6) {
            frac = frac * 10 + (uint32_t)(*p++ - '0');
            digits++;
        }
        if (digits == 0) Usage("--remote: expected 0..1");
    }
    if (*p != '\0' || (whole == 1 && frac != 0)) Usage("--remote: expected 0..1, at most 6 decimals");
    while (digits++ < 6) frac *= 10;
    return whole * kRatioDen + frac;
}

std::string SchedulerType(const std::string &name) {
    if (name == "map") return "ns3::MapScheduler";
    if (name == "heap") return "ns3::HeapScheduler";
    if (name == "calendar") return "ns3::CalendarScheduler";
    if (name == "priority-queue") return "ns3::PriorityQueueScheduler";
    if (name == "list") return "ns3::ListScheduler";
    Usage("--scheduler: map, heap, calendar, priority-queue or list");
}

}  // namespace

int main(int argc, char **argv) {
    uint32_t lps = 1000;
    uint64_t seed = 1;
    std::string scheduler = "heap";
    g.target = 10000000;
    g.remote = 900000;
    g.mean_ns = 1000000;
    g.lookahead_ns = 1000;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : nullptr;
        if (std::strcmp(opt, "--help") == 0) Usage("PHOLD on ns-3");
        if (val == nullptr) Usage("missing value");
        i++;
        if (std::strcmp(opt, "--lps") == 0) lps = (uint32_t)ParseU64(opt, val);
        else if (std::strcmp(opt, "--events") == 0) g.target = ParseU64(opt, val);
        else if (std::strcmp(opt, "--remote") == 0) g.remote = ParseRatio(val);
        else if (std::strcmp(opt, "--seed") == 0) seed = ParseU64(opt, val);
        else if (std::strcmp(opt, "--mean-ns") == 0) g.mean_ns = ParseU64(opt, val);
        else if (std::strcmp(opt, "--lookahead-ns") == 0) g.lookahead_ns = ParseU64(opt, val);
        else if (std::strcmp(opt, "--scheduler") == 0) scheduler = val;
        else Usage("unknown option");
    }
    if (lps < 1 || lps > (1u << 20) || g.target < 1) Usage("need 1 <= --lps <= 2^20 and --events >= 1");
    if (g.mean_ns == 0 && g.lookahead_ns == 0) Usage("--mean-ns and --lookahead-ns cannot both be 0");

    ns3::ObjectFactory factory;
    factory.SetTypeId(SchedulerType(scheduler));
    ns3::Simulator::SetScheduler(factory);
    g.lps.resize(lps);
    for (uint32_t i = 0; i < lps; i++) {
        g.lps[i].rng = rng_stream(seed, ((uint64_t)kDomainActor << 32) | i);
        g.lps[i].sent = 0;
        ns3::Simulator::Schedule(ns3::NanoSeconds(0), &OnEvent, i, kEvStart, 0u, (uint64_t)0);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ns3::Simulator::Run();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    uint64_t end_ns = (uint64_t)ns3::Simulator::Now().GetNanoSeconds();
    ns3::Simulator::Destroy();
    std::printf("{\"impl\":\"ns3\",\"model\":\"phold\",\"scheduler\":\"%s\",\"lps\":%" PRIu32
                ",\"events\":%" PRIu64 ",\"remote\":%.6f,\"seed\":%" PRIu64 ",\"wall_s\":%.6f"
                ",\"events_per_sec\":%.0f,\"dispatched\":%" PRIu64 ",\"end_ns\":%" PRIu64
                ",\"trace_hash\":\"%016" PRIx64 "\"}\n",
                scheduler.c_str(), lps, g.handled, (double)g.remote / kRatioDen, seed, wall_s,
                wall_s > 0 ? (double)g.handled / wall_s : 0.0, g.dispatched, end_ns, g.hash);
    return g.handled == g.target ? 0 : 1;
}
