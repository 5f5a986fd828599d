/* scenarios/gen.c: job shapes drawn per seed (scenarios/gen.h). */
#include "gen.h"
#include "scn_int.h"

#include <inttypes.h>

#define GEN_OPS_MAX 3u

typedef struct gen_vertex {
    char     name[16];
    uint32_t par;
    bool     keyed;                   /* its input edges are hash edges */
} gen_vertex;

typedef struct gen_ctx {
    rng        r;
    txt_buf    b;
    gen_vertex v[GEN_OPS_MAX + 4];
    uint32_t   count;
    bool       keyed_state, window;
    bool       windowed;              /* a window is placed: only stateless operators may follow it */
} gen_ctx;

static uint32_t in(rng *r, uint32_t lo, uint32_t hi) { return lo + rng_below(r, hi - lo + 1); }

static gen_vertex *add(gen_ctx *g, const char *name, uint32_t par, bool keyed) {
    SIM_ASSERT(g->count < GEN_OPS_MAX + 4);
    gen_vertex *x = &g->v[g->count++];
    snprintf(x->name, sizeof x->name, "%s", name);
    x->par = par;
    x->keyed = keyed;
    return x;
}

/* Into a keyed vertex a hash edge; between equal parallelisms forward
 * half the time (a chain), else rebalance. */
static void edge(gen_ctx *g, const gen_vertex *from, const gen_vertex *to) {
    const char *kind = to->keyed ? "hash" : from->par == to->par && rng_below(&g->r, 2) ? "forward" : "rebalance";
    txt_put(&g->b, "edge %s -> %s %s\n", from->name, to->name, kind);
}

/* A keyed vertex's options: some name a max parallelism (the number of
 * key groups) instead of Flink's default. */
static void keyed_opts(gen_ctx *g, uint32_t par) {
    static const uint32_t maxes[] = { 4, 8, 16, 128 };
    uint32_t m = maxes[rng_below(&g->r, 4)];
    if (rng_below(&g->r, 3) == 0 && m >= par) txt_put(&g->b, " max-parallelism %u", m);
    txt_put(&g->b, "\n");
}

/* The input and its sources: one topic and source, or two into a join.
 * Windows need event time: records `gap` apart, watermarks at the sources. */
static void sources(gen_ctx *g, bool join) {
    uint32_t parts = in(&g->r, 1, 6), records = in(&g->r, 50, 300), keys = in(&g->r, 10, 200);
    const char *time = g->window ? " gap 10us disorder 30us" : "";
    const char *wm = g->window ? " watermark-delay 50us" : "";
    uint32_t rate = 20000 * in(&g->r, 1, 5);
    if (!join) {
        txt_put(&g->b, "broker partitions %u records %u keys %u%s\n", parts, records, keys, time);
        uint32_t par = in(&g->r, 1, parts < 4 ? parts : 4);   /* a source task per partition at most */
        txt_put(&g->b, "vertex src source parallelism %u cost 2us rate %u/s%s\n", par, rate, wm);
        add(g, "src", par, false);
        return;
    }
    txt_put(&g->b, "broker topic a partitions %u records %u keys %u%s\n", parts, records, keys, time);
    uint32_t parts_b = in(&g->r, 1, 6);
    txt_put(&g->b, "broker topic b partitions %u records %u keys %u%s\n", parts_b, in(&g->r, 50, 300), keys, time);
    uint32_t pa = in(&g->r, 1, parts < 3 ? parts : 3), pb = in(&g->r, 1, parts_b < 3 ? parts_b : 3);
    txt_put(&g->b, "vertex sa source topic a parallelism %u cost 2us rate %u/s%s\n", pa, rate, wm);
    txt_put(&g->b, "vertex sb source topic b parallelism %u cost 2us rate %u/s%s\n", pb, rate, wm);
    add(g, "sa", pa, false);
    add(g, "sb", pb, false);
}

/* One operator after the last vertex: map, filter, keyed aggregate or
 * window (only with event time; after a window only map and filter, as
 * the model has it); its name op1, op2, ... */
static void op(gen_ctx *g, uint32_t i) {
    char name[16];
    snprintf(name, sizeof name, "op%u", i);
    uint32_t par = in(&g->r, 1, 4), kind = rng_below(&g->r, g->windowed ? 2 : g->window ? 4 : 3);
    gen_vertex *x = add(g, name, par, kind >= 2);
    switch (kind) {
    case 0: txt_put(&g->b, "vertex %s map parallelism %u cost 1us add %u\n", name, par, in(&g->r, 0, 9)); break;
    case 1: txt_put(&g->b, "vertex %s filter parallelism %u cost 1us keep %u%%\n", name, par, in(&g->r, 50, 100)); break;
    case 2: txt_put(&g->b, "vertex %s keyed-aggregate parallelism %u cost 3us", name, par); keyed_opts(g, par); break;
    default:
        if (rng_below(&g->r, 2)) txt_put(&g->b, "vertex %s window tumbling %ums parallelism %u cost 3us", name, in(&g->r, 1, 2), par);
        else txt_put(&g->b, "vertex %s window sliding 2ms every %uus parallelism %u cost 3us", name, 500 * in(&g->r, 1, 2), par);
        keyed_opts(g, par);
        g->windowed = true;
        break;
    }
    g->keyed_state |= x->keyed;
}

/* The graph: sources, a join of two or a chain of operators, a sink. */
static void graph(gen_ctx *g) {
    bool join = rng_below(&g->r, 3) == 0;
    g->window = !join && rng_below(&g->r, 3) == 0;
    sources(g, join);
    if (join) {
        uint32_t par = in(&g->r, 1, 4);
        txt_put(&g->b, "vertex join keyed-join parallelism %u cost 3us", par);
        keyed_opts(g, par);
        add(g, "join", par, true);
        g->keyed_state = true;
    }
    uint32_t ops = join ? rng_below(&g->r, 2) : in(&g->r, g->window ? 1 : 0, GEN_OPS_MAX);
    for (uint32_t i = 1; i <= ops; i++) op(g, i);
    static const char *const outputs[] = { "plain", "idempotent", "two-phase-commit" };
    uint32_t par = in(&g->r, 1, 3);
    txt_put(&g->b, "vertex out sink parallelism %u cost 1us output %s\n", par, outputs[rng_below(&g->r, 3)]);
    add(g, "out", par, false);
    if (join) {
        edge(g, &g->v[0], &g->v[2]);
        edge(g, &g->v[1], &g->v[2]);
    }
    for (uint32_t i = join ? 2 : 0; i + 1 < g->count; i++) edge(g, &g->v[i], &g->v[i + 1]);   /* the chain */
}

/* Checkpointing, state and restarts: max-concurrent above 1 and an
 * alignment timeout only where Flink allows them (model/cfg.c). */
static void settings(gen_ctx *g, bool *exactly_once) {
    static const char *const modes[] = { "aligned", "unaligned", "at-least-once" };
    uint32_t mode = rng_below(&g->r, 3), interval = in(&g->r, 2, 8);
    uint32_t concurrent = mode == 1 ? 1 : in(&g->r, 1, 3);
    bool align_timeout = mode == 0 && rng_below(&g->r, 3) == 0;
    if (align_timeout) concurrent = 1;
    txt_put(&g->b, "checkpoint mode %s interval %ums timeout 1s max-concurrent %u", modes[mode], interval, concurrent);
    if (align_timeout) txt_put(&g->b, " alignment-timeout %ums", in(&g->r, 1, 3));
    txt_put(&g->b, "\n");
    if (rng_below(&g->r, 2)) {
        txt_put(&g->b, "state backend durable%s store-latency %uus\n", rng_below(&g->r, 2) ? " incremental" : "",
                100 * in(&g->r, 1, 10));
    } else {
        txt_put(&g->b, "state backend memory\n");
    }
    txt_put(&g->b, "restart fixed-delay attempts 1000 delay %ums\n", in(&g->r, 1, 5));
    *exactly_once = mode != 2;
}

size_t gen_job(uint64_t seed, char *buf, size_t n) {
    SIM_ASSERT(n >= GEN_TEXT_BYTES);
    gen_ctx *g = &(gen_ctx){ .r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0x6e6a0b5)),
                             .b = { .s = buf, .n = n } };
    buf[0] = '\0';
    txt_put(&g->b, "# absim generate --seed %" PRIu64 ": a job shape drawn for the seed\n", seed);
    txt_put(&g->b, "seed %" PRIu64 "\nmachines %u\nchannels buffer-timeout 1ms\nbounds time 60s\n", seed,
            in(&g->r, 1, 3));
    graph(g);
    bool exactly_once;
    settings(g, &exactly_once);
    txt_put(&g->b, "expect finished\n");
    if (exactly_once && g->keyed_state) txt_put(&g->b, "expect exactly-once\n");
    SIM_ASSERT(g->b.used < n);                    /* never cut: a few hundred bytes at most */
    return g->b.used;
}
