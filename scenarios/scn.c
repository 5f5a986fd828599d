/* scenarios/scn.c: the scenario reader. One statement a line; '#' starts a
 * comment; tokens are separated by blanks. Each statement is a keyword and
 * then keyword-value options in any order (see scenarios/README.md). */
#include "scn.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKS_MAX 64u
#define SCN_FULL_EVERY_MAX 64u      /* SNAP_CHAIN_MAX - 1 (model/proto.h); pipe_create checks it too */
#define SCN_FACTOR_MAX 1000000u     /* slowdowns: the kernel's and the model's limit */

/* The coordinator's RPC latencies `vary network` draws from. */
static const sim_time_ns vary_rpc_ns[] = { 50 * SIM_NS_PER_US, 200 * SIM_NS_PER_US, SIM_NS_PER_MS, 3 * SIM_NS_PER_MS };
#define VARY_RPC_CHOICES (sizeof vary_rpc_ns / sizeof vary_rpc_ns[0])

static const char *dur(char *buf, size_t n, sim_time_ns ns);

typedef struct tok {
    const char *s;
    uint32_t    len;
    uint32_t    col;
} tok;

/* Where a vertex or an edge was declared, for the checks of the whole job
 * at the end (job_check): its line, and the column of each field
 * (job_field; 0: not written, the name's or the upstream vertex's then). */
typedef struct place {
    uint32_t line;
    uint32_t col[JOB_FIELD_COUNT];
    uint32_t topic_col;               /* a source's `topic`, 0: not written */
} place;

typedef struct pctx {
    scn        *s;
    const char *path;
    uint32_t    line;
    uint32_t    eol_col;
    tok         t[TOKS_MAX];
    uint32_t    n, i;
    char       *err;
    size_t      err_bytes;
    place       vertex_at[JOB_VERTICES_MAX];
    place       edge_at[JOB_EDGES_MAX];
    uint32_t    rate_line;                      /* the first source `rate`, 0: none */
    uint32_t    topic_line[BROKER_TOPICS_MAX];  /* the broker statement of each topic (0: the default's, when written) */
    uint32_t    topic_col[BROKER_TOPICS_MAX];
    uint32_t    topic_size_col[BROKER_TOPICS_MAX];   /* its partitions or records option */
    uint32_t    heartbeat_line, heartbeat_col;   /* the last network statement that set a heartbeat key, 0: none */
    uint32_t    incremental_line, incremental_col;   /* the last `state ... incremental`, 0: none */
    uint32_t    ckpt_line, ckpt_col;             /* the last `checkpoint` statement (not off), 0: none */
    bool        interval_set, restart_set;       /* an interval given; a restart statement */
    uint32_t    slots_line, slots_col;           /* the `machines ... slots` that set them, 0: none */
} pctx;

static bool vfail(pctx *c, uint32_t line, uint32_t col, const char *fmt, va_list ap) {
    int n = c->path != NULL ? snprintf(c->err, c->err_bytes, "%s:%u:%u: ", c->path, line, col) : 0;   /* NULL: one word */
    if (n >= 0 && (size_t)n < c->err_bytes) vsnprintf(c->err + n, c->err_bytes - (size_t)n, fmt, ap);
    return false;
}

static bool fail_at(pctx *c, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(pctx *c, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(c, c->line, col, fmt, ap);
    va_end(ap);
    return false;
}

/* A problem found after the whole file was read: on the line of the
 * statement that caused it. */
static bool fail_on(pctx *c, uint32_t line, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail_on(pctx *c, uint32_t line, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(c, line, col, fmt, ap);
    va_end(ap);
    return false;
}

static bool is(const tok *t, const char *w) {
    return strlen(w) == t->len && memcmp(t->s, w, t->len) == 0;
}

/* Edit distance with adjacent swaps counted as one edit ("=>" is one
 * edit from ">="), for suggesting the nearest name. */
static uint32_t edit_distance(const char *a, uint32_t la, const char *b) {
    uint32_t lb = (uint32_t)strlen(b), d[64][64];
    if (la >= 63 || lb >= 63) return 99;
    for (uint32_t i = 0; i <= la; i++) d[i][0] = i;
    for (uint32_t j = 0; j <= lb; j++) d[0][j] = j;
    for (uint32_t i = 1; i <= la; i++) {
        for (uint32_t j = 1; j <= lb; j++) {
            uint32_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best) {
                best = d[i - 2][j - 2] + 1;
            }
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* The choice nearest to t, if near enough to be what was meant, or NULL. */
static const char *nearest(const tok *t, const char *const *choices) {
    const char *best = NULL;
    uint32_t best_d = 99;
    for (const char *const *w = choices; *w != NULL; w++) {
        uint32_t d = edit_distance(t->s, t->len, *w);
        if (d < best_d) {
            best_d = d;
            best = *w;
        }
    }
    return best != NULL && best_d <= 2 + t->len / 4 ? best : NULL;
}

static void choice_list(const char *const *choices, char *list, size_t n) {
    list[0] = '\0';
    for (const char *const *w = choices; *w != NULL; w++) {
        strncat(list, w == choices ? "" : ", ", n - strlen(list) - 1);
        strncat(list, *w, n - strlen(list) - 1);
    }
}

/* "unknown X 'foo' (did you mean 'bar'?)" or with the list of choices. */
static bool unknown(pctx *c, const tok *t, const char *what, const char *const *choices) {
    const char *best = nearest(t, choices);
    if (best != NULL) {
        return fail_at(c, t->col, "unknown %s '%.*s' (did you mean '%s'?)", what, (int)t->len, t->s, best);
    }
    char list[256];
    choice_list(choices, list, sizeof list);
    return fail_at(c, t->col, "unknown %s '%.*s' (expected one of: %s)", what, (int)t->len, t->s, list);
}

static const tok *next(pctx *c, const char *what) {
    if (c->i < c->n) return &c->t[c->i++];
    fail_at(c, c->eol_col, "expected %s", what);
    return NULL;
}

static bool more(const pctx *c) { return c->i < c->n; }

static bool expect_word(pctx *c, const char *w) {
    const tok *t = next(c, w);
    if (t == NULL) return false;
    if (!is(t, w)) return fail_at(c, t->col, "expected '%s', not '%.*s'", w, (int)t->len, t->s);
    return true;
}

/* ---- numbers with units ------------------------------------------------ */

/* A decimal "123" or "1.25": value x 10^scale_digits, exactly, in 128 bits
 * (so "60000000000ns", scaled by 10^9, still fits). *rest points past the
 * number. False for no digits, too many decimals, or more than 2^120. */
static bool decimal(const tok *t, uint32_t scale_digits, unsigned __int128 *out, uint32_t *rest) {
    unsigned __int128 v = 0, cap = (unsigned __int128)1 << 120;
    uint32_t i = 0, frac = 0;
    bool digits = false, point = false;
    for (; i < t->len; i++) {
        char ch = t->s[i];
        if (ch == '.' && !point) {
            point = true;
            continue;
        }
        if (ch < '0' || ch > '9') break;
        digits = true;
        if (point) {
            if (frac == scale_digits) return false;   /* more precision than the unit has */
            frac++;
        }
        v = v * 10 + (unsigned)(ch - '0');
        if (v > cap) return false;
    }
    if (!digits) return false;
    for (; frac < scale_digits; frac++) {
        v *= 10;
        if (v > cap) return false;
    }
    *out = v;
    *rest = i;
    return true;
}

static bool count(pctx *c, const tok *t, uint64_t lo, uint64_t hi, uint64_t *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!decimal(t, 0, &v, &rest) || rest != t->len) {
        return fail_at(c, t->col, "'%.*s' is not a whole number", (int)t->len, t->s);
    }
    if (v < lo || v > hi) {
        return fail_at(c, t->col, "%.*s is out of range [%llu, %llu]", (int)t->len, t->s,
                       (unsigned long long)lo, (unsigned long long)hi);
    }
    *out = (uint64_t)v;
    return true;
}

typedef struct unit {
    const char *name;
    uint64_t    mul;        /* in the base unit, times 10^9 for durations: 1 ns = 1 */
} unit;

static bool with_unit(pctx *c, const tok *t, const unit *units, const char *what, const char *example,
                      uint64_t max, uint64_t *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!decimal(t, 9, &v, &rest)) {
        return fail_at(c, t->col, "'%.*s' is not a %s such as %s", (int)t->len, t->s, what, example);
    }
    tok u = { .s = t->s + rest, .len = t->len - rest, .col = t->col + rest };
    for (const unit *x = units; x->name != NULL; x++) {
        if (!is(&u, x->name)) continue;
        /* v is the number x 10^9; the result is v * mul / 10^9, exact or refused */
        if (x->mul > 0 && v > ((unsigned __int128)1 << 126) / x->mul) return fail_at(c, t->col, "'%.*s' is too large", (int)t->len, t->s);
        unsigned __int128 r = v * x->mul;
        if (r % 1000000000u != 0) return fail_at(c, t->col, "'%.*s' is finer than 1 %s", (int)t->len, t->s, units[0].name);
        r /= 1000000000u;
        if (r > max) return fail_at(c, t->col, "'%.*s' is too large", (int)t->len, t->s);
        *out = (uint64_t)r;
        return true;
    }
    if (u.len == 0) return fail_at(c, t->col, "'%.*s' needs a unit (%s)", (int)t->len, t->s, what);
    const char *names[16];
    uint32_t k = 0;
    for (const unit *x = units; x->name != NULL && k < 15; x++) names[k++] = x->name;
    names[k] = NULL;
    return unknown(c, &u, "unit", names);
}

static const unit DURATION[] = {
    { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "min", 60000000000ull }, { NULL, 0 },
};
static const unit BANDWIDTH[] = {   /* in bytes per second */
    { "B/s", 1 }, { "KB/s", 1000 }, { "MB/s", 1000000 }, { "GB/s", 1000000000 },
    { "KiB/s", 1024 }, { "MiB/s", 1048576 }, { "GiB/s", 1073741824 },
    { "bit/s", 0 }, { "Kbit/s", 125 }, { "Mbit/s", 125000 }, { "Gbit/s", 125000000 },
    { "Kb/s", 125 }, { "Mb/s", 125000 }, { "Gb/s", 125000000 },   /* lower-case b: bits */
    { NULL, 0 },
};

static bool duration(pctx *c, const tok *t, sim_time_ns *out) {
    return with_unit(c, t, DURATION, "duration", "200ms", 1ull << 62, out);
}

static bool opt_duration(pctx *c, sim_time_ns *out) {
    const tok *t = next(c, "a duration such as 200ms");
    return t != NULL && duration(c, t, out);
}

static bool opt_count(pctx *c, uint64_t lo, uint64_t hi, uint64_t *out) {
    const tok *t = next(c, "a number");
    return t != NULL && count(c, t, lo, hi, out);
}

static bool percent(pctx *c, const tok *t, sim_ratio *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!decimal(t, 4, &v, &rest) || rest + 1 != t->len || t->s[rest] != '%' || v > 1000000) {
        return fail_at(c, t->col, "'%.*s' is not a percentage such as 30%% or 2.5%%", (int)t->len, t->s);
    }
    *out = (sim_ratio){ .num = (uint32_t)v, .den = 1000000 };
    return true;
}

static bool milli(pctx *c, const tok *t, uint64_t lo, uint64_t hi, uint32_t *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!decimal(t, 3, &v, &rest) || rest != t->len) {
        return fail_at(c, t->col, "'%.*s' is not a decimal number such as 1.5", (int)t->len, t->s);
    }
    if (v < lo || v > hi) {
        return fail_at(c, t->col, "'%.*s' is out of range [%llu.%03llu, %llu.%03llu]", (int)t->len, t->s,
                       (unsigned long long)lo / 1000, (unsigned long long)lo % 1000,
                       (unsigned long long)hi / 1000, (unsigned long long)hi % 1000);
    }
    *out = (uint32_t)v;
    return true;
}

/* ---- names ----------------------------------------------------------------- */

static int find_vertex(const pctx *c, const char *s, uint32_t len) {
    const job *j = &c->s->cfg.graph;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (strlen(j->vertices[v].name) == len && memcmp(j->vertices[v].name, s, len) == 0) return (int)v;
    }
    return -1;
}

static bool vertex_ref(pctx *c, const tok *t, uint32_t *out) {
    int v = find_vertex(c, t->s, t->len);
    if (v >= 0) {
        *out = (uint32_t)v;
        return true;
    }
    const job *j = &c->s->cfg.graph;
    const char *names[JOB_VERTICES_MAX + 1];
    for (uint32_t i = 0; i < j->vertices_count; i++) names[i] = j->vertices[i].name;
    names[j->vertices_count] = NULL;
    if (j->vertices_count == 0) return fail_at(c, t->col, "no vertex named '%.*s' (declare vertices first)", (int)t->len, t->s);
    return unknown(c, t, "vertex", names);
}

/* name[i]: a task */
static bool task_ref(pctx *c, const tok *t, uint32_t *vertex, uint32_t *subtask) {
    const char *open = memchr(t->s, '[', t->len);
    if (open == NULL || t->s[t->len - 1] != ']') {
        return fail_at(c, t->col, "'%.*s' is not a task: write vertex[subtask], as in agg[0]", (int)t->len, t->s);
    }
    tok name = { .s = t->s, .len = (uint32_t)(open - t->s), .col = t->col };
    tok idx = { .s = open + 1, .len = (uint32_t)(t->s + t->len - 1 - (open + 1)), .col = t->col + name.len + 1 };
    uint64_t i;
    if (!vertex_ref(c, &name, vertex)) return false;
    uint32_t p = c->s->cfg.graph.vertices[*vertex].parallelism;
    if (!count(c, &idx, 0, p - 1, &i)) return false;
    *subtask = (uint32_t)i;
    return true;
}

static bool machine_set(pctx *c, const tok *t, uint64_t *mask) {
    *mask = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i <= t->len; i++) {
        if (i < t->len && t->s[i] != ',') continue;
        tok m = { .s = t->s + start, .len = i - start, .col = t->col + start };
        uint64_t id;
        if (is(&m, "jm")) {
            id = c->s->cfg.machines;              /* the coordinator's machine */
        } else if (!count(c, &m, 0, c->s->cfg.machines - 1, &id)) {
            return false;
        }
        *mask |= 1ull << id;
        start = i + 1;
    }
    return true;
}

/* ---- statements --------------------------------------------------------- */

static bool st_seed(pctx *c) {
    return opt_count(c, 0, UINT64_MAX, &c->s->cfg.seed);
}

static bool st_bounds(pctx *c) {
    static const char *const keys[] = { "time", "events", NULL };
    while (more(c)) {
        const tok *k = next(c, "an option");
        if (is(k, "time")) {
            if (!opt_duration(c, &c->s->cfg.time_max_ns)) return false;
        } else if (is(k, "events")) {
            if (!opt_count(c, 1, 1ull << 40, &c->s->cfg.events_max)) return false;
        } else {
            return unknown(c, k, "bounds option", keys);
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
        if (f->kind != SCN_CRASH_MACHINE && f->kind != SCN_PAUSE_MACHINE && f->kind != SCN_PARTITION) continue;
        return fail_at(c, 1, "declare machines before the faults that name machines (line %u names some)", f->line);
    }
    if (!opt_count(c, 1, PIPE_MACHINES_MAX, &n)) return false;
    c->s->cfg.machines = (uint32_t)n;
    static const char *const keys[] = { "slots", NULL };
    while (more(c)) {                                /* machines N [slots S] */
        const tok *k = next(c, "an option");
        if (!is(k, "slots")) return unknown(c, k, "machines option", keys);
        c->slots_line = c->line;
        c->slots_col = k->col;
        if (!opt_count(c, 1, PIPE_TASK_SLOTS_MAX, &n)) return false;
        c->s->cfg.task_slots = (uint32_t)n;
    }
    return true;
}

/* heartbeat-interval D, heartbeat-timeout D: above 0 (0 means derived
 * from the RPC latency, which is what leaving the key out says). Checked
 * against each other once the whole file is read (finish_heartbeat), as
 * the RPC latency may come later. */
static bool heartbeat_key(pctx *c, const tok *k, sim_time_ns *out) {
    if (!opt_duration(c, out)) return false;
    if (*out == 0) return fail_at(c, k->col, "%.*s must be above 0 (leave it out for the default)", (int)k->len, k->s);
    c->heartbeat_line = c->line;
    c->heartbeat_col = k->col;
    return true;
}

static bool st_network(pctx *c) {
    static const char *const keys[] = { "latency", "jitter", "bandwidth", "rpc-latency", "heartbeat-interval",
                                        "heartbeat-timeout", NULL };
    pipe_cfg *g = &c->s->cfg;
    while (more(c)) {
        const tok *k = next(c, "an option");
        if (is(k, "heartbeat-interval")) {
            if (!heartbeat_key(c, k, &g->heartbeat_interval_ns)) return false;
        } else if (is(k, "heartbeat-timeout")) {
            if (!heartbeat_key(c, k, &g->heartbeat_timeout_ns)) return false;
        } else if (is(k, "latency")) {
            if (!opt_duration(c, &g->latency_ns)) return false;
        } else if (is(k, "jitter")) {
            if (!opt_duration(c, &g->jitter_ns)) return false;
        } else if (is(k, "rpc-latency")) {
            if (!opt_duration(c, &g->rpc_latency_ns)) return false;
        } else if (is(k, "bandwidth")) {
            const tok *t = next(c, "a bandwidth such as 10Gbit/s");
            if (t == NULL || !with_unit(c, t, BANDWIDTH, "bandwidth", "10Gbit/s", 1ull << 50, &g->bandwidth_bytes_per_s)) return false;
            if (g->bandwidth_bytes_per_s == 0) return fail_at(c, t->col, "a bandwidth must be above 0 (bit/s: use Kbit/s and up)");
        } else {
            return unknown(c, k, "network option", keys);
        }
    }
    if (g->latency_ns == 0 || g->rpc_latency_ns == 0) return fail_at(c, 1, "latencies must be above 0");
    if (g->jitter_ns >= UINT32_MAX - 1) return fail_at(c, 1, "jitter must stay below 4.29 s");
    return true;
}

static bool st_channels(pctx *c) {
    static const char *const keys[] = { "credits", "queue", "buffer-timeout", NULL };
    pipe_cfg *g = &c->s->cfg;
    uint64_t v;
    while (more(c)) {
        const tok *k = next(c, "an option");
        if (is(k, "credits")) {
            if (!opt_count(c, 1, 64, &v)) return false;
            g->credits = (uint32_t)v;
        } else if (is(k, "queue")) {
            if (!opt_count(c, 1, 64, &v)) return false;
            g->out_queue = (uint32_t)v;
        } else if (is(k, "buffer-timeout")) {
            if (!opt_duration(c, &g->buffer_timeout_ns)) return false;
        } else {
            return unknown(c, k, "channels option", keys);
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
    while (more(c)) {
        const tok *k = next(c, "an option");
        if (is(k, "partitions")) {
            if (!opt_count(c, 1, 1024, &v)) return false;
            b->partitions = (uint32_t)v;
            *size_col = k->col;
        } else if (is(k, "records")) {
            if (!opt_count(c, 1, 1u << 30, &b->records_per_partition)) return false;
            *size_col = k->col;
        } else if (is(k, "keys")) {
            if (!opt_count(c, 1, BROKER_KEYS_MAX, &b->keys)) return false;
        } else if (is(k, "uniform")) {
            b->dist = BROKER_UNIFORM;
        } else if (is(k, "zipf")) {
            const tok *t = next(c, "a Zipf exponent such as 1.1");
            if (t == NULL || !milli(c, t, 1, 10000, &b->zipf_s_milli)) return false;
            b->dist = BROKER_ZIPF;
        } else if (is(k, "values")) {
            if (!opt_count(c, 1, 1u << 31, &v)) return false;
            b->value_max = (int64_t)v;
        } else if (is(k, "gap")) {
            if (!opt_duration(c, &b->event_gap_ns)) return false;
        } else if (is(k, "disorder")) {
            if (!opt_duration(c, &b->disorder_ns)) return false;
            if (b->disorder_ns > 3600 * SIM_NS_PER_S) return fail_at(c, k->col, "a disorder of more than 1 hour");
        } else if (is(k, "topic")) {
            return fail_at(c, k->col, "'topic' comes first: broker topic NAME partitions ...");
        } else {
            return unknown(c, k, "broker option", keys);
        }
    }
    if ((uint64_t)b->partitions * b->records_per_partition > (1u << 30)) {   /* pipe_create checks it too */
        return fail_at(c, *size_col, "%llu records in all (partitions x records), more than 2^30 (the sinks count each one)",
                       (unsigned long long)b->partitions * b->records_per_partition);
    }
    return true;
}

/* A topic's name: letters, digits, '_' and '-', as a vertex's. */
static bool topic_name(pctx *c, const tok *name) {
    if (name->len >= SIM_NAME_BYTES) return fail_at(c, name->col, "topic names have at most %u characters", SIM_NAME_BYTES - 1);
    for (uint32_t i = 0; i < name->len; i++) {
        char ch = name->s[i];
        if (!isalnum((unsigned char)ch) && ch != '_' && ch != '-') {
            return fail_at(c, name->col + i, "topic names use letters, digits, '_' and '-'");
        }
    }
    int dup = broker_cfg_find(&c->s->cfg.broker, name->s, name->len);
    if (dup > 0) return fail_at(c, name->col, "topic '%.*s' was already declared on line %u", (int)name->len, name->s,
                                  c->topic_line[dup]);
    return true;
}

/* `broker topic NAME ...`: a named topic, from the defaults every topic
 * starts with (pipe_cfg_init's), whatever the default topic says. */
static bool st_topic(pctx *c, const tok *kw) {
    broker_cfg *b = &c->s->cfg.broker;
    const tok *name = next(c, "a topic name");
    if (name == NULL || !topic_name(c, name)) return false;
    if (b->topics_more == BROKER_TOPICS_MAX - 1) {
        return fail_at(c, kw->col, "more than %u named topics (the broker holds %u topics, the default one counted)",
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
    if (more(c) && is(&c->t[c->i], "topic")) return st_topic(c, next(c, "topic"));
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
    if (x->kind != JOB_SOURCE) return fail_at(c, o->col, "only a source reads a topic");
    const tok *t = next(c, "a topic name");
    if (t == NULL) return false;
    const broker_cfg *b = &c->s->cfg.broker;
    int i = broker_cfg_find(b, t->s, t->len);
    if (i > 0) {
        x->topic = (uint32_t)i;
        at->topic_col = o->col;
        return true;
    }
    if (b->topics_more == 0) {
        return fail_at(c, t->col, "no topic named '%.*s' (declare it first: broker topic %.*s partitions ...)",
                       (int)t->len, t->s, (int)t->len, t->s);
    }
    const char *names[BROKER_TOPICS_MAX];
    for (uint32_t k = 0; k < b->topics_more; k++) names[k] = b->more[k].name;
    names[b->topics_more] = NULL;
    return unknown(c, t, "topic", names);
}

/* `rate N/s` of a source: one for every source of the job (the model
 * paces every source task at one rate). */
static bool source_rate(pctx *c, const job_vertex *x, const tok *o) {
    if (x->kind != JOB_SOURCE) return fail_at(c, o->col, "only a source has a rate");
    const tok *t = next(c, "a rate such as 200000/s");
    if (t == NULL) return false;
    if (t->len < 3 || memcmp(t->s + t->len - 2, "/s", 2) != 0) return fail_at(c, t->col, "a rate is written as records per second, such as 200000/s");
    tok num = { .s = t->s, .len = t->len - 2, .col = t->col };
    uint64_t rate;
    if (!count(c, &num, 1, 1000000000, &rate)) return false;
    if (c->rate_line > 0 && c->rate_line != c->line && rate != c->s->cfg.source_rate_per_s) {   /* another source's */
        return fail_at(c, t->col, "every source reads at one rate per task (%" PRIu64 "/s on line %u)",
                       c->s->cfg.source_rate_per_s, c->rate_line);
    }
    c->s->cfg.source_rate_per_s = rate;
    c->rate_line = c->line;
    return true;
}

/* `tumbling SIZE` or `sliding SIZE every SLIDE`, right after `window`. */
static bool window_shape(pctx *c, job_vertex *x) {
    static const char *const shapes[] = { "tumbling", "sliding", NULL };
    const tok *k = next(c, "tumbling SIZE or sliding SIZE every SLIDE");
    if (k == NULL) return false;
    if (!is(k, "tumbling") && !is(k, "sliding")) return unknown(c, k, "window shape", shapes);
    if (!opt_duration(c, &x->window_size_ns)) return false;
    if (x->window_size_ns == 0 || x->window_size_ns > 3600 * SIM_NS_PER_S)
        return fail_at(c, k->col, "a window's size is more than 0 and at most 1 hour");
    x->window_slide_ns = x->window_size_ns;
    if (is(k, "tumbling")) return true;
    if (!expect_word(c, "every")) return false;
    uint32_t col = c->i < c->n ? c->t[c->i].col : k->col;
    if (!opt_duration(c, &x->window_slide_ns)) return false;
    if (x->window_slide_ns == 0 || x->window_slide_ns > x->window_size_ns)
        return fail_at(c, col, "a sliding window starts every 1ns to SIZE (here up to %s)",
                       dur((char[32]){ 0 }, 32, x->window_size_ns));
    if (x->window_size_ns / x->window_slide_ns > 64)
        return fail_at(c, col, "a record would fall into %llu windows; at most 64 (a longer slide)",
                       (unsigned long long)(x->window_size_ns / x->window_slide_ns));
    return true;
}

/* Event-time options: a source's watermarks, a window's lateness. */
static bool time_option(pctx *c, job_vertex *x, const tok *o) {
    if (is(o, "lateness")) {
        if (x->kind != JOB_WINDOW) return fail_at(c, o->col, "only a window has an allowed lateness");
        return opt_duration(c, &x->lateness_ns);
    }
    if (x->kind != JOB_SOURCE) return fail_at(c, o->col, "only a source emits watermarks");
    if (is(o, "watermark-delay")) {
        x->watermarks = true;
        return opt_duration(c, &x->watermark_delay_ns);
    }
    uint32_t col = c->i < c->n ? c->t[c->i].col : o->col;
    if (!opt_duration(c, &x->watermark_interval_ns)) return false;
    if (x->watermark_interval_ns == 0) return fail_at(c, col, "a watermark interval is more than 0");
    return true;
}

/* One option o of vertex x (declared at `at`). */
static bool vertex_option(pctx *c, job_vertex *x, place *at, const tok *o) {
    static const char *const keys[] = { "parallelism", "max-parallelism", "cost", "cost-dist", "rate", "keep", "add", "output",
                                        "topic", "watermark-delay", "watermark-interval", "lateness", NULL };
    static const char *const dists[] = { "fixed", "uniform", "exponential", NULL };
    static const char *const outputs[] = { "plain", "idempotent", "two-phase-commit", NULL };
    uint64_t n;
    if (is(o, "parallelism")) {
        const tok *t = next(c, "a number");
        if (t == NULL || !count(c, t, 1, UINT32_MAX, &n)) return false;
        if (n > JOB_PARALLELISM_MAX) {
            return fail_at(c, t->col, "%s: parallelism %llu is above the limit of %u tasks per vertex (lower it)",
                           x->name, (unsigned long long)n, JOB_PARALLELISM_MAX);
        }
        x->parallelism = (uint32_t)n;
        at->col[JOB_FIELD_PARALLELISM] = o->col;
    } else if (is(o, "max-parallelism")) {       /* its key groups; job_check compares it with the parallelism */
        const tok *t = next(c, "a number of key groups");
        if (t == NULL || !count(c, t, 1, JOB_MAX_PARALLELISM_UPPER, &n)) return false;
        x->max_parallelism = (uint32_t)n;
        at->col[JOB_FIELD_MAX_PARALLELISM] = o->col;
    } else if (is(o, "cost")) {
        at->col[JOB_FIELD_COST] = o->col;
        if (!opt_duration(c, &x->cost_ns)) return false;
        if (x->cost_ns > SIM_NS_PER_S) return fail_at(c, o->col, "a record costing more than 1 s is not a stream");
    } else if (is(o, "cost-dist")) {
        at->col[JOB_FIELD_COST] = o->col;
        const tok *d = next(c, "fixed, uniform or exponential");
        if (d == NULL) return false;
        if (is(d, "fixed")) x->cost_dist = JOB_COST_FIXED;
        else if (is(d, "uniform")) x->cost_dist = JOB_COST_UNIFORM;
        else if (is(d, "exponential")) x->cost_dist = JOB_COST_EXPONENTIAL;
        else return unknown(c, d, "cost distribution", dists);
    } else if (is(o, "rate")) {
        if (!source_rate(c, x, o)) return false;
    } else if (is(o, "topic")) {
        if (!source_topic(c, x, at, o)) return false;
    } else if (is(o, "watermark-delay") || is(o, "watermark-interval") || is(o, "lateness")) {
        if (!time_option(c, x, o)) return false;
    } else if (is(o, "keep")) {
        if (x->kind != JOB_FILTER) return fail_at(c, o->col, "only a filter keeps a share of records");
        const tok *t = next(c, "a whole percentage such as 40%");
        if (t == NULL) return false;
        tok num = { .s = t->s, .len = t->len ? t->len - 1 : 0, .col = t->col };
        if (t->len < 2 || t->s[t->len - 1] != '%' || !count(c, &num, 0, 100, &n)) {
            return fail_at(c, t->col, "'%.*s' is not a whole percentage such as 40%%", (int)t->len, t->s);
        }
        x->keep_percent = (uint32_t)n;
    } else if (is(o, "add")) {
        if (x->kind != JOB_MAP) return fail_at(c, o->col, "only a map adds to values");
        if (!opt_count(c, 0, 1u << 30, &n)) return false;
        x->map_add = (int64_t)n;
    } else if (is(o, "output")) {
        if (x->kind != JOB_SINK) return fail_at(c, o->col, "only a sink has an output mode");
        const tok *m = next(c, "plain, idempotent or two-phase-commit");
        if (m == NULL) return false;
        if (is(m, "plain")) x->sink = JOB_SINK_PLAIN;
        else if (is(m, "idempotent")) x->sink = JOB_SINK_IDEMPOTENT;
        else if (is(m, "two-phase-commit")) x->sink = JOB_SINK_2PC;
        else return unknown(c, m, "sink output", outputs);
    } else {
        return unknown(c, o, "vertex option", keys);
    }
    return true;
}

static bool st_vertex(pctx *c) {
    static const char *const kinds[] = { "source", "map", "filter", "keyed-aggregate", "union", "keyed-join", "sink",
                                         "window", NULL };
    static const job_kind kind_of[] = { JOB_SOURCE, JOB_MAP, JOB_FILTER, JOB_KEYED_AGG, JOB_UNION, JOB_KEYED_JOIN, JOB_SINK,
                                        JOB_WINDOW };
    job *j = &c->s->cfg.graph;
    const tok *name = next(c, "a vertex name");
    if (name == NULL) return false;
    if (name->len >= SIM_NAME_BYTES - 6) return fail_at(c, name->col, "vertex names have at most %u characters", SIM_NAME_BYTES - 7);
    for (uint32_t i = 0; i < name->len; i++) {
        char ch = name->s[i];
        if (!isalnum((unsigned char)ch) && ch != '_' && ch != '-') {
            return fail_at(c, name->col + i, "vertex names use letters, digits, '_' and '-'");
        }
    }
    int dup = find_vertex(c, name->s, name->len);
    if (dup >= 0) return fail_at(c, name->col, "vertex '%.*s' was already declared on line %u", (int)name->len, name->s,
                                   c->vertex_at[dup].line);
    if (j->vertices_count == JOB_VERTICES_MAX) return fail_at(c, name->col, "more than %u vertices", JOB_VERTICES_MAX);
    const tok *k = next(c, "a vertex kind (source, map, filter, keyed-aggregate, union, keyed-join, sink, window)");
    if (k == NULL) return false;
    int kind = -1;
    for (int i = 0; kinds[i] != NULL; i++) {
        if (is(k, kinds[i])) kind = i;
    }
    if (kind < 0) return unknown(c, k, "vertex kind", kinds);
    char buf[SIM_NAME_BYTES];
    snprintf(buf, sizeof buf, "%.*s", (int)name->len, name->s);
    uint32_t v = job_add_vertex(j, buf, kind_of[kind], 1, 0);
    place *at = &c->vertex_at[v];
    *at = (place){ .line = c->line };
    at->col[JOB_FIELD_VERTEX] = name->col;
    at->col[JOB_FIELD_KIND] = k->col;
    if (kind_of[kind] == JOB_WINDOW && !window_shape(c, &j->vertices[v])) return false;
    while (more(c)) {
        if (!vertex_option(c, &j->vertices[v], at, next(c, "an option"))) return false;
    }
    return true;
}

static bool st_edge(pctx *c) {
    static const char *const parts[] = { "forward", "rebalance", "hash", "broadcast", NULL };
    static const job_part part_of[] = { JOB_FORWARD, JOB_REBALANCE, JOB_HASH, JOB_BROADCAST };
    job *j = &c->s->cfg.graph;
    uint32_t from, to;
    const tok *a = next(c, "the upstream vertex");
    if (a == NULL || !vertex_ref(c, a, &from)) return false;
    if (!expect_word(c, "->")) return false;
    const tok *b = next(c, "the downstream vertex");
    if (b == NULL || !vertex_ref(c, b, &to)) return false;
    const tok *p = next(c, "a partitioning (forward, rebalance, hash, broadcast)");
    if (p == NULL) return false;
    int part = -1;
    for (int i = 0; parts[i] != NULL; i++) {
        if (is(p, parts[i])) part = i;
    }
    if (part < 0) return unknown(c, p, "partitioning", parts);
    if (from >= to) return fail_at(c, b->col, "edges go from a vertex declared earlier to one declared later");
    if (j->edges_count == JOB_EDGES_MAX) return fail_at(c, a->col, "more than %u edges", JOB_EDGES_MAX);
    uint32_t e = job_add_edge(j, from, to, part_of[part]);
    c->edge_at[e] = (place){ .line = c->line };
    c->edge_at[e].col[JOB_FIELD_FROM] = a->col;
    c->edge_at[e].col[JOB_FIELD_TO] = b->col;
    c->edge_at[e].col[JOB_FIELD_PART] = p->col;
    if (more(c)) return fail_at(c, c->t[c->i].col, "unexpected '%.*s' after the partitioning", (int)c->t[c->i].len, c->t[c->i].s);
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
    bool off = c->i < c->n && is(&c->t[c->i], "off");
    if (!off) {                                   /* a checkpoint statement turns them on (Flink: an interval does) */
        k->enabled = true;
        c->ckpt_line = c->line;
        c->ckpt_col = c->t[c->i - 1].col;
    }
    while (more(c)) {
        const tok *o = next(c, "an option");
        if (is(o, "off")) {
            k->enabled = false;
            c->ckpt_line = 0;
        } else if (is(o, "mode")) {
            const tok *m = next(c, "aligned, at-least-once or unaligned");
            if (m == NULL) return false;
            if (is(m, "aligned")) k->mode = PIPE_ALIGNED;
            else if (is(m, "at-least-once")) k->mode = PIPE_AT_LEAST_ONCE;
            else if (is(m, "unaligned")) k->mode = PIPE_UNALIGNED;
            else return unknown(c, m, "checkpoint mode", modes);
            mode_col = m->col;
        } else if (is(o, "interval")) {
            c->interval_set = true;
            if (!opt_duration(c, &k->interval_ns)) return false;
            if (k->interval_ns == 0) return fail_at(c, o->col, "the interval must be above 0");
        } else if (is(o, "min-pause")) {
            if (!opt_duration(c, &k->min_pause_ns)) return false;
        } else if (is(o, "timeout")) {
            if (!opt_duration(c, &k->timeout_ns)) return false;
            if (k->timeout_ns == 0) return fail_at(c, o->col, "the timeout must be above 0");
        } else if (is(o, "max-concurrent")) {
            if (!opt_count(c, 1, PIPE_CONCURRENT_MAX, &v)) return false;
            k->max_concurrent = (uint32_t)v;
            concurrent_col = o->col;
        } else if (is(o, "tolerable")) {
            if (!opt_count(c, 0, 1000000, &v)) return false;
            k->tolerable_failures = (uint32_t)v;
        } else if (is(o, "retained")) {
            if (!opt_count(c, 1, PIPE_RETAINED_MAX, &v)) return false;
            k->retained = (uint32_t)v;
        } else if (is(o, "legacy-eop")) {
            k->legacy_eop = true;
        } else if (is(o, "finished-tasks")) {
            static const char *const onoff[] = { "on", "off", NULL };
            const tok *m = next(c, "on or off");
            if (m == NULL) return false;
            if (!is(m, "on") && !is(m, "off")) return unknown(c, m, "finished-tasks setting", onoff);
            k->finished_tasks_off = is(m, "off");
        } else if (is(o, "alignment-timeout")) {
            if (!opt_duration(c, &k->alignment_timeout_ns)) return false;
            timeout_col = o->col;
        } else {
            return unknown(c, o, "checkpoint option", keys);
        }
    }
    /* Checked on the options so far, this line's and earlier lines'; the
     * column is this line's option that broke it (pipe_create checks the
     * same, without a place). */
    if (k->alignment_timeout_ns > 0 && k->mode != PIPE_ALIGNED) {
        return fail_at(c, timeout_col > 0 ? timeout_col : mode_col,
                       "an alignment timeout needs mode aligned (it turns an aligned checkpoint unaligned)");
    }
    if (k->mode == PIPE_UNALIGNED && k->max_concurrent > 1) {
        return fail_at(c, concurrent_col > 0 ? concurrent_col : mode_col,
                       "unaligned checkpoints go one at a time (max-concurrent 1), as in Flink");
    }
    if (k->alignment_timeout_ns > 0 && k->max_concurrent > 1) {
        return fail_at(c, concurrent_col > 0 ? concurrent_col : timeout_col > 0 ? timeout_col : mode_col,
                       "an alignment timeout allows one checkpoint at a time (max-concurrent 1), as in Flink "
                       "(it may turn a checkpoint unaligned)");
    }
    return true;
}

/* A store's bandwidth: at least 1 MB/s, so that a large snapshot on a
 * store slowed down a million times still takes less than 2^62 ns. */
static bool dev_bandwidth(pctx *c, uint64_t *out) {
    const tok *t = next(c, "a bandwidth such as 200MB/s");
    if (t == NULL || !with_unit(c, t, BANDWIDTH, "bandwidth", "200MB/s", 1ull << 50, out)) return false;
    if (*out < 1000000) return fail_at(c, t->col, "a store's bandwidth must be at least 1MB/s");
    return true;
}

static bool dev_latency(pctx *c, sim_time_ns *out) {
    const tok *o = &c->t[c->i - 1];
    if (!opt_duration(c, out)) return false;
    if (*out > 60 * SIM_NS_PER_S) return fail_at(c, o->col, "a store's latency must be at most 1min");
    return true;
}

static bool st_state(pctx *c) {
    static const char *const keys[] = { "backend", "async", "sync", "incremental", "full", "full-every", "sync-cost",
                                        "store-latency", "store-bandwidth", "memory-latency", "memory-bandwidth", NULL };
    static const char *const backends[] = { "memory", "durable", NULL };
    pipe_state_cfg *st = &c->s->cfg.state;
    uint64_t v;
    while (more(c)) {
        const tok *o = next(c, "an option");
        if (is(o, "backend")) {
            const tok *b = next(c, "memory or durable");
            if (b == NULL) return false;
            if (is(b, "memory")) st->backend = PIPE_BACKEND_MEMORY;
            else if (is(b, "durable")) st->backend = PIPE_BACKEND_DURABLE;
            else return unknown(c, b, "state backend", backends);
        } else if (is(o, "async")) {
            st->async = true;
        } else if (is(o, "sync")) {
            st->async = false;
        } else if (is(o, "incremental")) {
            st->incremental = true;
            c->incremental_line = c->line;
            c->incremental_col = o->col;
        } else if (is(o, "full")) {
            st->incremental = false;
        } else if (is(o, "full-every")) {
            if (!opt_count(c, 1, SCN_FULL_EVERY_MAX, &v)) return false;
            st->full_every = (uint32_t)v;
        } else if (is(o, "sync-cost")) {
            if (!opt_duration(c, &st->sync_ns)) return false;
            if (st->sync_ns > SIM_NS_PER_S) return fail_at(c, o->col, "a synchronous part longer than 1 s stops the stream");
        } else if (is(o, "store-latency")) {
            if (!dev_latency(c, &st->store.latency_ns)) return false;
        } else if (is(o, "store-bandwidth")) {
            if (!dev_bandwidth(c, &st->store.bandwidth_bytes_per_s)) return false;
        } else if (is(o, "memory-latency")) {
            if (!dev_latency(c, &st->memory.latency_ns)) return false;
        } else if (is(o, "memory-bandwidth")) {
            if (!dev_bandwidth(c, &st->memory.bandwidth_bytes_per_s)) return false;
        } else {
            return unknown(c, o, "state option", keys);
        }
    }
    return true;
}

/* Incremental checkpoints with the memory backend: Flink's HashMapStateBackend
 * has none (only RocksDB and the changelog backend do), so the file says
 * something Flink cannot do; the line that asked for them is named. */
static bool finish_incremental(pctx *c) {
    if (!c->s->cfg.state.incremental || c->s->cfg.state.backend != PIPE_BACKEND_MEMORY) return true;
    return fail_on(c, c->incremental_line, c->incremental_col, "incremental checkpoints need 'state backend durable' (Flink offers them with "
                   "RocksDB or the changelog backend, whose files are in durable storage; the memory backend keeps full "
                   "snapshots)");
}

static bool st_vary(pctx *c) {
    static const char *const words[] = { "checkpoint", "restart", "network", NULL };
    if (!more(c)) return fail_at(c, c->t[c->i - 1].col, "vary needs what to vary: checkpoint, restart or network");
    while (more(c)) {
        const tok *w = next(c, "checkpoint, restart or network");
        int k = -1;
        for (int i = 0; words[i] != NULL; i++) {
            if (is(w, words[i])) k = i;
        }
        if (k < 0) return unknown(c, w, "setting to vary", words);
        c->s->vary |= 1u << k;
    }
    return true;
}

static bool st_restart(pctx *c) {
    static const char *const kinds[] = { "none", "fixed-delay", "failure-rate", "exponential", NULL };
    static const char *const keys[] = { "attempts", "delay", "max", "per", "initial", "multiplier", "reset",
                                        "jitter", "failover", NULL };
    static const char *const failovers[] = { "region", "full", NULL };
    pipe_restart_cfg *r = &c->s->cfg.restart;
    c->restart_set = true;
    const tok *k = next(c, "a restart strategy (none, fixed-delay, failure-rate, exponential)");
    if (k == NULL) return false;
    if (is(k, "none")) r->kind = PIPE_RESTART_NONE;
    else if (is(k, "fixed-delay")) r->kind = PIPE_RESTART_FIXED_DELAY;
    else if (is(k, "failure-rate")) r->kind = PIPE_RESTART_FAILURE_RATE;
    else if (is(k, "exponential")) r->kind = PIPE_RESTART_EXPONENTIAL;
    else return unknown(c, k, "restart strategy", kinds);
    uint64_t v;
    while (more(c)) {
        const tok *o = next(c, "an option");
        if (is(o, "failover")) {                  /* any strategy's: what a failure restarts */
            const tok *f = next(c, "a failover strategy (region, full)");
            if (f == NULL) return false;
            if (is(f, "region")) r->failover = PIPE_FAILOVER_REGION;
            else if (is(f, "full")) r->failover = PIPE_FAILOVER_FULL;
            else return unknown(c, f, "failover strategy", failovers);
        } else if (is(o, "attempts") && r->kind == PIPE_RESTART_FIXED_DELAY) {
            if (!opt_count(c, 0, 1000000, &v)) return false;
            r->attempts = (uint32_t)v;
        } else if (is(o, "attempts") && r->kind == PIPE_RESTART_EXPONENTIAL) {   /* before a reset */
            if (!opt_count(c, 1, 1000000, &v)) return false;
            r->attempts_before_reset = (uint32_t)v;
        } else if (is(o, "jitter") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            const tok *t = next(c, "a jitter factor such as 0.1");
            if (t == NULL || !milli(c, t, 0, 1000, &r->jitter_milli)) return false;
        } else if (is(o, "delay") && (r->kind == PIPE_RESTART_FIXED_DELAY || r->kind == PIPE_RESTART_FAILURE_RATE)) {
            if (!opt_duration(c, &r->delay_ns)) return false;
        } else if (is(o, "max") && r->kind == PIPE_RESTART_FAILURE_RATE) {
            if (!opt_count(c, 1, RS_WINDOW_MAX - 1, &v)) return false;
            r->max_failures = (uint32_t)v;
        } else if (is(o, "per") && r->kind == PIPE_RESTART_FAILURE_RATE) {
            if (!opt_duration(c, &r->interval_ns)) return false;
        } else if (is(o, "initial") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            if (!opt_duration(c, &r->initial_ns)) return false;
        } else if (is(o, "max") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            if (!opt_duration(c, &r->max_ns)) return false;
        } else if (is(o, "multiplier") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            const tok *t = next(c, "a multiplier such as 2 or 1.5");
            if (t == NULL || !milli(c, t, 1001, 100000, &r->multiplier_milli)) return false;
        } else if (is(o, "reset") && r->kind == PIPE_RESTART_EXPONENTIAL) {
            if (!opt_duration(c, &r->reset_ns)) return false;
        } else if (r->kind == PIPE_RESTART_NONE) {
            return fail_at(c, o->col, "restart none takes no options but failover");
        } else {
            for (const char *const *w = keys; *w != NULL; w++) {
                if (is(o, *w)) return fail_at(c, o->col, "'%s' is not an option of %.*s", *w, (int)k->len, k->s);
            }
            return unknown(c, o, "restart option", keys);
        }
    }
    if (r->kind == PIPE_RESTART_EXPONENTIAL && r->initial_ns == 0) return fail_at(c, k->col, "exponential restarts need an initial delay above 0");
    if (r->kind == PIPE_RESTART_EXPONENTIAL && r->initial_ns > r->max_ns) {
        return fail_at(c, k->col, "the initial delay must be at most the max delay (Flink's "
                       "ExponentialDelayRestartBackoffTimeStrategy refuses it)");
    }
    return true;
}

static bool link_ref(pctx *c, scn_fault *f) {
    const tok *a = next(c, "the producing task, as map[0]");
    if (a == NULL || !task_ref(c, a, &f->vertex, &f->subtask)) return false;
    f->col = a->col;                              /* finish() checks the channel is there */
    if (!expect_word(c, "->")) return false;
    const tok *b = next(c, "the consuming task, as agg[1]");
    return b != NULL && task_ref(c, b, &f->vertex2, &f->subtask2);
}

static bool for_duration(pctx *c, scn_fault *f, bool required) {
    if (!more(c)) return required ? fail_at(c, c->eol_col, "expected 'for' and a duration") : true;
    if (!expect_word(c, "for")) return false;
    if (!opt_duration(c, &f->duration_ns)) return false;
    if (f->duration_ns == 0) return fail_at(c, c->t[c->i - 1].col, "the duration must be above 0");
    return true;
}

/* "5x": a slowdown factor, 2x to 1000000x (1x would change nothing). */
static bool factor(pctx *c, uint32_t *out) {
    const tok *t = next(c, "a slowdown factor such as 5x");
    if (t == NULL) return false;
    tok num = { .s = t->s, .len = t->len > 0 ? t->len - 1 : 0, .col = t->col };
    unsigned __int128 v;
    uint32_t rest;
    if (t->len < 2 || t->s[t->len - 1] != 'x' || !decimal(&num, 0, &v, &rest) || rest != num.len) {
        return fail_at(c, t->col, "'%.*s' is not a slowdown factor such as 5x", (int)t->len, t->s);
    }
    if (v < 2 || v > SCN_FACTOR_MAX) return fail_at(c, t->col, "%.*s is out of range [2x, %ux]", (int)t->len, t->s, SCN_FACTOR_MAX);
    *out = (uint32_t)v;
    return true;
}

/* After "fault when": a task point or a checkpoint point. */
static bool point(pctx *c, scn_fault *f) {
    static const char *const task_points[] = { "aligning", "triggers", "snapshot-sync", "commits", NULL };
    static const scn_point task_point_of[] = { SCN_WHEN_ALIGNING, SCN_WHEN_TRIGGERS, SCN_WHEN_SNAPSHOT_SYNC, SCN_WHEN_COMMITS };
    static const char *const ckpt_points[] = { "starts", "completes", NULL };
    uint64_t n;
    const tok *who = next(c, "a task (as agg[1]) or 'checkpoint'");
    if (who == NULL) return false;
    if (is(who, "checkpoint")) {
        if (!opt_count(c, 1, UINT32_MAX, &n)) return false;
        f->point_ckpt = n;
        const tok *what = next(c, "starts or completes");
        if (what == NULL) return false;
        if (is(what, "starts")) f->point = SCN_WHEN_STARTS;
        else if (is(what, "completes")) f->point = SCN_WHEN_COMPLETES;
        else return unknown(c, what, "checkpoint point", ckpt_points);
        return true;
    }
    if (!task_ref(c, who, &f->point_vertex, &f->point_subtask)) return false;
    const tok *what = next(c, "aligning, triggers, snapshot-sync or commits");
    if (what == NULL) return false;
    int k = -1;
    for (int i = 0; task_points[i] != NULL; i++) {
        if (is(what, task_points[i])) k = i;
    }
    if (k < 0) return unknown(c, what, "task point", task_points);
    f->point = task_point_of[k];
    if (f->point == SCN_WHEN_COMMITS) {          /* only a two-phase-commit sink commits */
        const job_vertex *v = &c->s->cfg.graph.vertices[f->point_vertex];
        if (v->kind != JOB_SINK) return fail_at(c, what->col, "only a sink commits, and %s is not one", v->name);
        if (v->sink != JOB_SINK_2PC) {
            return fail_at(c, what->col, "%s commits nothing: its output is %s (commits needs output two-phase-commit)",
                           v->name, v->sink == JOB_SINK_IDEMPOTENT ? "idempotent" : "plain");
        }
    }
    if (!opt_count(c, 1, UINT32_MAX, &n)) return false;
    f->point_ckpt = n;
    return true;
}

/* The next word, a task (vertex[subtask]). */
static bool task_arg(pctx *c, const char *what, uint32_t *vertex, uint32_t *subtask) {
    const tok *t = next(c, what);
    return t != NULL && task_ref(c, t, vertex, subtask);
}

static bool machine_arg(pctx *c, scn_fault *f) {
    uint64_t m;
    if (!opt_count(c, 0, c->s->cfg.machines - 1, &m)) return false;
    f->machine = (uint32_t)m;
    return true;
}

static bool fault_crash(pctx *c, scn_fault *f) {
    static const char *const what_kinds[] = { "machine", "task", "coordinator", NULL };
    const tok *what = next(c, "machine, task or coordinator");
    if (what == NULL) return false;
    if (is(what, "machine")) {
        f->kind = SCN_CRASH_MACHINE;
        return machine_arg(c, f) && for_duration(c, f, false);
    }
    if (is(what, "task")) {
        f->kind = SCN_CRASH_TASK;
        return task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask);
    }
    if (is(what, "coordinator")) {
        f->kind = SCN_CRASH_COORDINATOR;
        return for_duration(c, f, false);
    }
    return unknown(c, what, "crash target", what_kinds);
}

/* A pause stops its target handling anything and resumes it with its
 * state, so it always has a window: without one it would be a crash. */
static bool fault_pause(pctx *c, scn_fault *f) {
    static const char *const what_kinds[] = { "machine", "task", "coordinator", NULL };
    const tok *what = next(c, "machine, task or coordinator");
    if (what == NULL) return false;
    if (is(what, "machine")) {
        f->kind = SCN_PAUSE_MACHINE;
        if (!machine_arg(c, f)) return false;
    } else if (is(what, "task")) {
        f->kind = SCN_PAUSE_TASK;
        if (!task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask)) return false;
    } else if (is(what, "coordinator")) {
        f->kind = SCN_PAUSE_COORDINATOR;
    } else {
        return unknown(c, what, "pause target", what_kinds);
    }
    return for_duration(c, f, true);
}

static bool fault_partition(pctx *c, scn_fault *f) {
    f->kind = SCN_PARTITION;
    const tok *a = next(c, "machines, as 0,1");
    if (a == NULL || !machine_set(c, a, &f->machines_a)) return false;
    if (!expect_word(c, "|")) return false;
    const tok *b = next(c, "machines, as 2 or jm");
    if (b == NULL || !machine_set(c, b, &f->machines_b)) return false;
    if (f->machines_a & f->machines_b) return fail_at(c, b->col, "a machine cannot be on both sides of a partition");
    return for_duration(c, f, true);
}

/* The kinds are few and not guessable: list them even with a suggestion. */
static bool unknown_rpc_kind(pctx *c, const tok *t) {
    const char *best = nearest(t, pipe_rpc_kind_names);
    char list[256], mean[64] = "";
    choice_list(pipe_rpc_kind_names, list, sizeof list);
    if (best != NULL) snprintf(mean, sizeof mean, "did you mean '%s'? ", best);
    return fail_at(c, t->col, "unknown RPC kind '%.*s' (%sexpected a task, as agg[1], or one of the kinds: %s)",
                   (int)t->len, t->s, mean, list);
}

/* After "rpc": an optional RPC kind (pipe_rpc_kind_names), then the task.
 * A word without a subscript that names no vertex is taken for a kind, so
 * a mistyped kind is reported as one, with the kinds listed. */
static bool rpc_ref(pctx *c, scn_fault *f) {
    const tok *t = next(c, "a task, as agg[1], or an RPC kind such as ack");
    if (t == NULL) return false;
    f->rpc = 0;
    if (memchr(t->s, '[', t->len) == NULL && find_vertex(c, t->s, t->len) < 0) {   /* a vertex: a task was meant */
        for (uint32_t i = 0; pipe_rpc_kind_names[i] != NULL && f->rpc == 0; i++) {
            if (is(t, pipe_rpc_kind_names[i])) f->rpc = i + 1;
        }
        if (f->rpc == 0) return unknown_rpc_kind(c, t);
        t = next(c, "a task, as agg[1] (the RPCs of this kind between it and the coordinator)");
        if (t == NULL) return false;
    }
    return task_ref(c, t, &f->vertex, &f->subtask);
}

static bool fault_delay_cut(pctx *c, scn_fault *f, bool delay) {
    const tok *what = next(c, delay ? "link or rpc" : "link");
    if (what == NULL) return false;
    if (delay && is(what, "rpc")) {
        f->kind = SCN_DELAY_RPC;
        if (!rpc_ref(c, f)) return false;
    } else if (is(what, "link")) {
        f->kind = delay ? SCN_DELAY_LINK : SCN_CUT_LINK;
        if (!link_ref(c, f)) return false;
    } else if (delay) {
        static const char *const delay_kinds[] = { "link", "rpc", NULL };
        return unknown(c, what, "delay target", delay_kinds);
    } else {
        return fail_at(c, what->col, "expected 'link', not '%.*s'", (int)what->len, what->s);
    }
    if (delay && (!expect_word(c, "by") || !opt_duration(c, &f->delay_ns))) return false;
    return for_duration(c, f, true);
}

/* rescale V to N: at a time (the JobManager's decision), not at a point. */
static bool fault_rescale(pctx *c, scn_fault *f) {
    f->kind = SCN_RESCALE;
    if (f->point != SCN_AT_TIME) return fail_at(c, f->col, "a rescale is at a time ('fault at 60ms rescale ...'), not at a protocol point");
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->s->faults_count; i++) n += c->s->faults[i].kind == SCN_RESCALE;
    if (n == PIPE_RESCALES_MAX) return fail_at(c, f->col, "more than %u rescales", PIPE_RESCALES_MAX);
    const tok *v = next(c, "a vertex to rescale");
    if (v == NULL || !vertex_ref(c, v, &f->vertex) || !expect_word(c, "to")) return false;
    const tok *t = next(c, "the new parallelism");
    uint64_t p;
    if (t == NULL || !count(c, t, 1, JOB_PARALLELISM_MAX, &p)) return false;
    f->parallelism = (uint32_t)p;
    return true;
}

static bool fault_lose(pctx *c, scn_fault *f) {
    f->kind = SCN_LOSE_RPC;
    if (!expect_word(c, "rpc") || !rpc_ref(c, f)) return false;
    const tok *p = next(c, "a percentage such as 30%");
    if (p == NULL || !percent(c, p, &f->ratio)) return false;
    return for_duration(c, f, true);
}

static bool fault_slow(pctx *c, scn_fault *f) {
    static const char *const slow_kinds[] = { "store", "task", NULL };
    const tok *what = next(c, "store or task");
    if (what == NULL) return false;
    if (is(what, "store")) {
        f->kind = SCN_SLOW_STORE;
    } else if (is(what, "task")) {
        f->kind = SCN_SLOW_TASK;
        uint32_t slow = 0;
        for (uint32_t i = 0; i < c->s->faults_count; i++) slow += c->s->faults[i].kind == SCN_SLOW_TASK;
        if (slow == PIPE_SLOW_MAX) return fail_at(c, what->col, "more than %u slow tasks", PIPE_SLOW_MAX);
        if (!task_arg(c, "a task, as agg[1]", &f->vertex, &f->subtask)) return false;
    } else {
        return unknown(c, what, "slow target", slow_kinds);
    }
    return factor(c, &f->factor) && for_duration(c, f, true);
}

/* fail store P% / ambiguous store|ha P%: a share of the store's writes
 * (ha: the HA services' completed-checkpoint store, ambiguous only). */
static bool fault_store_ratio(pctx *c, scn_fault *f, scn_fault_kind kind) {
    f->kind = kind;
    if (kind == SCN_AMBIGUOUS_STORE && c->i < c->n && is(&c->t[c->i], "ha")) {
        f->ha = true;
        c->i++;
    } else if (!expect_word(c, "store")) {
        return false;
    }
    const tok *p = next(c, "a percentage of writes such as 30%");
    if (p == NULL || !percent(c, p, &f->ratio)) return false;
    return for_duration(c, f, true);
}

/* The head of a fault line: `optional` at its end, then `at T` or `when
 * POINT [after D]`. */
static bool fault_head(pctx *c, scn_fault *f) {
    if (c->n > c->i && is(&c->t[c->n - 1], "optional")) {   /* allowed not to fire */
        f->optional = true;
        c->eol_col = c->t[c->n - 1].col;           /* what is missing goes where 'optional' is */
        c->n--;
    }
    const tok *w = next(c, "'at' and a time, or 'when' and a protocol point");
    if (w == NULL) return false;
    if (is(w, "when")) {                          /* a named protocol point */
        if (!point(c, f)) return false;
        if (c->i < c->n && is(&c->t[c->i], "after")) {   /* optional delay after the point */
            c->i++;
            if (!opt_duration(c, &f->at_ns)) return false;
        }
        return true;
    }
    if (!is(w, "at")) {
        return fail_at(c, w->col, "expected 'at' and a time, or 'when' and a protocol point, not '%.*s'", (int)w->len, w->s);
    }
    return opt_duration(c, &f->at_ns);
}

static bool st_fault(pctx *c) {
    static const char *const kinds[] = { "crash", "partition", "delay", "cut", "lose", "slow", "fail", "pause",
                                         "ambiguous", "rescale", NULL };
    scn *s = c->s;
    if (s->faults_count == SCN_FAULTS_MAX) return fail_at(c, 1, "more than %u faults", SCN_FAULTS_MAX);
    scn_fault f = { .line = c->line };
    if (!fault_head(c, &f)) return false;
    const tok *k = next(c, "a fault (crash, partition, delay, cut, lose, slow, fail, pause, ambiguous, rescale)");
    if (k == NULL) return false;
    f.col = k->col;
    bool ok;
    if (is(k, "crash")) ok = fault_crash(c, &f);
    else if (is(k, "pause")) ok = fault_pause(c, &f);
    else if (is(k, "partition")) ok = fault_partition(c, &f);
    else if (is(k, "delay") || is(k, "cut")) ok = fault_delay_cut(c, &f, is(k, "delay"));
    else if (is(k, "lose")) ok = fault_lose(c, &f);
    else if (is(k, "slow")) ok = fault_slow(c, &f);
    else if (is(k, "fail")) ok = fault_store_ratio(c, &f, SCN_FAIL_STORE);
    else if (is(k, "ambiguous")) ok = fault_store_ratio(c, &f, SCN_AMBIGUOUS_STORE);
    else if (is(k, "rescale")) ok = fault_rescale(c, &f);
    else return unknown(c, k, "fault", kinds);
    if (!ok) return false;
    if (more(c)) return fail_at(c, c->t[c->i].col, "unexpected '%.*s' at the end of the fault", (int)c->t[c->i].len, c->t[c->i].s);
    s->faults[s->faults_count++] = f;
    return true;
}

static bool compares(scn_expect_kind k) {
    return k == SCN_EXPECT_CHECKPOINTS || k == SCN_EXPECT_RESTARTS || k == SCN_EXPECT_ABORTED ||
           k == SCN_EXPECT_FAILOVERS || k == SCN_EXPECT_UNALIGNED || k == SCN_EXPECT_FENCED || k == SCN_EXPECT_DURATION ||
           k == SCN_EXPECT_RELOCATED || k == SCN_EXPECT_BACKPRESSURE || k == SCN_EXPECT_CHECKPOINTED_BYTES ||
           k == SCN_EXPECT_RESTARTED_TASKS || k == SCN_EXPECT_RECORDS_READ || k == SCN_EXPECT_LATE_RECORDS ||
           k == SCN_EXPECT_WINDOWS_FIRED || k == SCN_EXPECT_LATE_FIRINGS || k == SCN_EXPECT_RESCALED;
}

/* `expect liveness D`: the bound I6 holds the run to. One per file (the
 * checkers use one bound), and above 0 (0 would mean the default). */
static bool liveness_bound(pctx *c, uint64_t *ns) {
    for (uint32_t i = 0; i < c->s->expects_count; i++) {
        if (c->s->expects[i].kind != SCN_EXPECT_LIVENESS) continue;
        return fail_at(c, c->t[c->i - 1].col, "a second 'expect liveness' (the first is on line %u)",
                       c->s->expects[i].line);
    }
    const tok *t = next(c, "the liveness bound, a duration such as 500ms");
    if (t == NULL || !duration(c, t, ns)) return false;
    if (*ns == 0) return fail_at(c, t->col, "the liveness bound must be above 0 (leave the line out for the default)");
    return true;
}

/* backpressure TASK: the task it is about. */
static bool expect_task(pctx *c, scn_expect *e) {
    const tok *t = next(c, "a task, as agg[1]");
    if (t == NULL || !task_ref(c, t, &e->vertex, &e->subtask)) return false;
    snprintf(e->task, sizeof e->task, "%s[%u]", c->s->cfg.graph.vertices[e->vertex].name, e->subtask);
    return true;
}

/* `checkpoint N triggered|completed at T`: a time the run must bear out
 * to the precision it is written with (the teaching files quote them), so
 * "15.2ms" holds for 15.15 ms up to, not including, 15.25 ms. */
static bool expect_ckpt_time(pctx *c, scn_expect *e) {
    static const char *const events[] = { "triggered", "completed", NULL };
    if (!opt_count(c, 1, PIPE_HISTORY_MAX, &e->ckpt)) return false;   /* the checkpoints whose times a run keeps */
    const tok *w = next(c, "triggered or completed");
    if (w == NULL) return false;
    if (!is(w, "triggered") && !is(w, "completed")) return unknown(c, w, "checkpoint event", events);
    e->kind = is(w, "triggered") ? SCN_EXPECT_CKPT_TRIGGERED : SCN_EXPECT_CKPT_COMPLETED;
    const tok *at = next(c, "'at' and a time such as 15.2ms");
    if (at == NULL) return false;
    if (!is(at, "at")) return fail_at(c, at->col, "expected 'at' before the time, found '%.*s'", (int)at->len, at->s);
    const tok *t = next(c, "a time such as 15.2ms");
    if (t == NULL || !duration(c, t, &e->value)) return false;
    if (t->len >= sizeof e->task) return fail_at(c, t->col, "'%.*s' is too long a time", (int)t->len, t->s);
    uint32_t digits = 0, u = 0;                   /* decimals written, and where the unit starts */
    while (u < t->len && ((t->s[u] >= '0' && t->s[u] <= '9') || t->s[u] == '.')) u++;
    for (const char *d = memchr(t->s, '.', u); d != NULL && d + 1 < t->s + u; d++) digits++;
    char one[16];
    int n = snprintf(one, sizeof one, "1%.*s", (int)(t->len - u), t->s + u);
    tok unit_tok = { .s = one, .len = (uint32_t)n, .col = t->col + u };
    sim_time_ns unit_ns = 0;
    if (n <= 0 || (size_t)n >= sizeof one || !duration(c, &unit_tok, &unit_ns)) return false;
    e->res_ns = unit_ns;
    for (uint32_t k = 0; k < digits && e->res_ns >= 10; k++) e->res_ns /= 10;
    memcpy(e->task, t->s, t->len);
    e->task[t->len] = '\0';
    return true;
}

static bool st_expect(pctx *c) {
    static const char *const kinds[] = { "finished", "failed", "exactly-once", "duplicates", "checkpoints",
                                         "restarts", "aborted", "output", "failovers", "unaligned", "liveness",
                                         "fenced", "duration", "relocated", "backpressure", "checkpointed-bytes",
                                         "restarted-tasks", "records-read", "late-records", "windows-fired",
                                         "late-firings", "rescaled", "checkpoint", NULL };
    static const scn_expect_kind kind_of[] = { SCN_EXPECT_FINISHED, SCN_EXPECT_FAILED, SCN_EXPECT_EXACTLY_ONCE,
                                               SCN_EXPECT_DUPLICATES, SCN_EXPECT_CHECKPOINTS, SCN_EXPECT_RESTARTS,
                                               SCN_EXPECT_ABORTED, 0, SCN_EXPECT_FAILOVERS, SCN_EXPECT_UNALIGNED,
                                               SCN_EXPECT_LIVENESS, SCN_EXPECT_FENCED, SCN_EXPECT_DURATION,
                                               SCN_EXPECT_RELOCATED, SCN_EXPECT_BACKPRESSURE,
                                               SCN_EXPECT_CHECKPOINTED_BYTES, SCN_EXPECT_RESTARTED_TASKS,
                                               SCN_EXPECT_RECORDS_READ, SCN_EXPECT_LATE_RECORDS,
                                               SCN_EXPECT_WINDOWS_FIRED, SCN_EXPECT_LATE_FIRINGS, SCN_EXPECT_RESCALED,
                                               SCN_EXPECT_CKPT_TRIGGERED };
    static const char *const outputs[] = { "exactly-once", "at-least-once", "duplicates", "lost", NULL };
    static const scn_expect_kind output_of[] = { SCN_EXPECT_OUTPUT_EXACTLY_ONCE, SCN_EXPECT_OUTPUT_AT_LEAST_ONCE,
                                                 SCN_EXPECT_OUTPUT_DUPLICATES, SCN_EXPECT_OUTPUT_LOST };
    static const char *const ops[] = { ">=", "<=", "==", ">", "<", NULL };   /* ties suggest the first */
    static const scn_cmp cmp_of[] = { SCN_GE, SCN_LE, SCN_EQ, SCN_GT, SCN_LT };
    scn *s = c->s;
    if (s->expects_count == SCN_EXPECTS_MAX) return fail_at(c, 1, "more than %u expectations", SCN_EXPECTS_MAX);
    scn_expect e = { .line = c->line };
    const tok *k = next(c, "what to expect (finished, exactly-once, duplicates, checkpoints >= N, ...)");
    if (k == NULL) return false;
    int kind = -1;
    for (int i = 0; kinds[i] != NULL; i++) {
        if (is(k, kinds[i])) kind = i;
    }
    if (kind < 0) return unknown(c, k, "expectation", kinds);
    e.kind = kind_of[kind];
    if (is(k, "output")) {                        /* what the sinks made visible */
        const tok *o = next(c, "exactly-once, at-least-once, duplicates or lost");
        if (o == NULL) return false;
        int x = -1;
        for (int i = 0; outputs[i] != NULL; i++) {
            if (is(o, outputs[i])) x = i;
        }
        if (x < 0) return unknown(c, o, "output expectation", outputs);
        e.kind = output_of[x];
    }
    if (e.kind == SCN_EXPECT_LIVENESS && !liveness_bound(c, &e.value)) return false;
    if (e.kind == SCN_EXPECT_BACKPRESSURE && !expect_task(c, &e)) return false;
    if (is(k, "checkpoint") && !expect_ckpt_time(c, &e)) return false;
    if (compares(e.kind)) {
        const tok *op = next(c, "a comparison (==, >=, <=, >, <)");
        if (op == NULL) return false;
        int o = -1;
        for (int i = 0; ops[i] != NULL; i++) {
            if (is(op, ops[i])) o = i;
        }
        if (o < 0) return unknown(c, op, "comparison", ops);
        e.cmp = cmp_of[o];
        if (e.kind == SCN_EXPECT_DURATION || e.kind == SCN_EXPECT_BACKPRESSURE) {   /* a duration such as 5ms */
            const tok *d = next(c, "a duration such as 5ms");
            if (d == NULL || !duration(c, d, &e.value)) return false;
        } else if (!opt_count(c, 0, UINT64_MAX, &e.value)) {
            return false;
        }
    }
    if (more(c)) return fail_at(c, c->t[c->i].col, "unexpected '%.*s'", (int)c->t[c->i].len, c->t[c->i].s);
    s->expects[s->expects_count++] = e;
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
    { "state", st_state },     { "vary", st_vary },
};

static bool statement(pctx *c) {
    const tok *k = &c->t[c->i++];
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) {
        if (is(k, statements[i].name)) {
            if (!statements[i].fn(c)) return false;
            if (more(c)) return fail_at(c, c->t[c->i].col, "unexpected '%.*s'", (int)c->t[c->i].len, c->t[c->i].s);
            return true;
        }
    }
    const char *names[sizeof statements / sizeof statements[0] + 1];
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++) names[i] = statements[i].name;
    names[sizeof statements / sizeof statements[0]] = NULL;
    return unknown(c, k, "statement", names);
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
            return fail_on(c, at->line, at->topic_col > 0 ? at->topic_col : at->col[JOB_FIELD_VERTEX],
                           "%s: %s%s is read by source %s already (a topic has one source: declare another with "
                           "`broker topic NAME ...` and read it with `topic NAME`)", x->name, x->topic == 0 ? "" : "topic ",
                           name, g->graph.vertices[reader[x->topic]].name);
        }
        reader[x->topic] = v;
    }
    for (uint32_t t = 1; t < broker_cfg_topics(&g->broker); t++) {
        if (reader[t] != UINT32_MAX) continue;
        return fail_on(c, c->topic_line[t], c->topic_col[t], "topic %s is read by no source (add `vertex NAME source "
                       "topic %s`)", g->broker.more[t - 1].name, g->broker.more[t - 1].name);
    }
    if (reader[0] == UINT32_MAX && g->graph.vertices_count > 0) {
        if (c->topic_line[0] > 0) {
            return fail_on(c, c->topic_line[0], 1, "the default topic is read by no source (every source names a topic: "
                           "name this one too, `broker topic NAME ...`, or read it with a source without `topic`)");
        }
        g->broker.partitions = 0;                 /* the default topic holds nothing */
    }
    if (broker_cfg_records(&g->broker) > (1u << 30)) {
        uint32_t t = broker_cfg_topics(&g->broker) - 1;   /* the last topic made it too many */
        return fail_on(c, c->topic_line[t], c->topic_size_col[t], "%llu records in all topics, more than 2^30 (the "
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
        if (w.field == JOB_FIELD_JOB) return fail_on(c, 1, 1, "%s", buf);
        bool edge = w.field >= JOB_FIELD_FROM;
        const place *at = edge ? &c->edge_at[w.index] : &c->vertex_at[w.index];
        return fail_on(c, at->line, place_col(at, w.field, edge), "%s", buf);
    }
    if (!finish_topics(c)) return false;
    for (uint32_t v = 0; v < g->graph.vertices_count; v++) {
        const job_vertex *x = &g->graph.vertices[v];
        if (x->kind != JOB_SOURCE) continue;
        uint32_t col = place_col(&c->vertex_at[v], JOB_FIELD_PARALLELISM, false);
        uint32_t parts = broker_cfg_topic(&g->broker, x->topic).partitions;
        if (x->parallelism > parts) {
            return fail_on(c, c->vertex_at[v].line, col, "%s: parallelism %u above the %u partitions (a source task would read nothing)",
                           x->name, x->parallelism, parts);
        }
        if ((parts + x->parallelism - 1) / x->parallelism > PIPE_SOURCE_PARTS_MAX) {
            return fail_on(c, c->vertex_at[v].line, col,
                           "%s: a source task would read more than %u of the %u partitions (its acknowledgement carries "
                           "their offsets): raise its parallelism or lower the partitions", x->name, PIPE_SOURCE_PARTS_MAX,
                           parts);
        }
    }
    return true;
}

/* The file's job, expanded into mem (created here: the caller destroys
 * it); false when memory is short. */
static bool expand_job(const scn *s, job *j, arena *mem) {
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
    if (!expand_job(s, j, &mem)) {
        snprintf(c->err, c->err_bytes, "%s: out of memory", c->path);
        return false;
    }
    bool ok = true;
    for (uint32_t f = 0; f < s->faults_count && ok; f++) {
        const scn_fault *x = &s->faults[f];
        if (x->kind != SCN_DELAY_LINK && x->kind != SCN_CUT_LINK) continue;
        uint32_t a = j->vertex_first_task[x->vertex] + x->subtask, b = j->vertex_first_task[x->vertex2] + x->subtask2;
        bool found = false;
        for (uint32_t ch = 0; ch < j->chans_count && !found; ch++) found = j->chans[ch].producer == a && j->chans[ch].consumer == b;
        if (!found) {
            ok = fail_on(c, x->line, x->col, "there is no channel %s[%u] -> %s[%u] in this job",
                         j->vertices[x->vertex].name, x->subtask, j->vertices[x->vertex2].name, x->subtask2);
        }
    }
    arena_destroy(&mem);
    for (uint32_t f = 0; f < s->faults_count && ok; f++) {
        const scn_fault *x = &s->faults[f];
        bool store = x->kind == SCN_SLOW_STORE || x->kind == SCN_FAIL_STORE || x->kind == SCN_AMBIGUOUS_STORE;
        if (store && s->cfg.state.backend != PIPE_BACKEND_DURABLE) {
            ok = fail_on(c, x->line, x->col, "the %s store fault needs 'state backend durable' (the memory backend "
                         "keeps snapshots at the coordinator, not in the store)",
                         x->kind == SCN_SLOW_STORE ? "slow" : x->kind == SCN_FAIL_STORE ? "fail" : "ambiguous");
        }
    }
    return ok;
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
    for (uint32_t i = 0; i < VARY_RPC_CHOICES && (c->s->vary & SCN_VARY_NETWORK); i++) {
        if (vary_rpc_ns[i] > rpc) {
            rpc = vary_rpc_ns[i];
            varied = true;
        }
    }
    sim_time_ns written = g->rpc_latency_ns;
    g->rpc_latency_ns = rpc;
    pipe_heartbeat(g, &interval, &timeout);
    g->rpc_latency_ns = written;
    if (timeout > interval + 2 * rpc) return true;
    char t[32], i[32], r[32];
    dur(t, sizeof t, timeout);
    dur(i, sizeof i, interval);
    dur(r, sizeof r, rpc);
    return fail_on(c, c->heartbeat_line, c->heartbeat_col,
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
        return fail_on(c, c->slots_line, c->slots_col,
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
    if (g->ckpt.mode == PIPE_UNALIGNED || g->ckpt.alignment_timeout_ns > 0) {
        snprintf(buf, n, "rescaling needs aligned checkpoints without an alignment timeout: those hold channel state, "
                 "and redistributing channel state is not modelled");
    } else if (f->parallelism > job_max_parallelism(x)) {
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
        if (rescale_refusal(g, f, buf, sizeof buf) != NULL) return fail_on(c, f->line, f->col, "%s", buf);
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
        if (c->s->faults[i].kind == SCN_RESCALE) return fail_on(c, c->s->faults[i].line, c->s->faults[i].col, "%s", buf);
    }
    return false;
}

/* After the whole file: what one statement alone could not tell. */
/* A window the model cannot hold (its windows, state or results): at its
 * statement, with pipe_create's message. */
static bool finish_windows(pctx *c) {
    char msg[SCN_ERR_BYTES];
    uint32_t v;
    if (pipe_window_problem(&c->s->cfg, &v, msg, sizeof msg) == NULL) return true;
    return fail_on(c, c->vertex_at[v].line, c->vertex_at[v].col[JOB_FIELD_KIND], "%s", msg);
}

/* Flink's defaults that depend on the whole file: checkpoints need an
 * interval (execution.checkpointing.interval has no default); with no
 * restart statement, the strategy is exponential delay with checkpoints
 * and none without (RestartBackoffTimeStrategyFactoryLoader, 1.19+). */
static bool finish_flink_defaults(pctx *c) {
    pipe_cfg *g = &c->s->cfg;
    if (g->ckpt.enabled && !c->interval_set) {
        return fail_on(c, c->ckpt_line, c->ckpt_col, "checkpoints need an interval (Flink's "
                       "execution.checkpointing.interval has no default; 'checkpoint off' turns them off)");
    }
    if (!c->restart_set && !g->ckpt.enabled) g->restart.kind = PIPE_RESTART_NONE;
    return true;
}

static bool finish(pctx *c) {
    return finish_flink_defaults(c) && finish_job(c) && finish_faults(c) && finish_heartbeat(c) && finish_incremental(c) &&
           finish_slots(c) && finish_windows(c) && finish_rescales(c);   /* pipe_create checks the rest */
}

bool scn_parse_duration(const char *text, sim_time_ns *out, char *err, size_t err_bytes) {
    pctx c = { .path = NULL, .err = err, .err_bytes = err_bytes };
    size_t n = strlen(text);
    if (n == 0 || n > UINT32_MAX || strchr(text, ' ') != NULL) {
        snprintf(err, err_bytes, "'%s' is not a duration such as 200ms", text);
        return false;
    }
    tok t = { .s = text, .len = (uint32_t)n, .col = 1 };
    return duration(&c, &t, out);
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
        if (end - pos > SCN_LINE_BYTES_MAX) return fail_at(&c, SCN_LINE_BYTES_MAX, "line longer than %u bytes", SCN_LINE_BYTES_MAX);
        c.n = c.i = 0;
        uint32_t col = 0;
        for (size_t k = pos; k < end;) {
            unsigned char ch = (unsigned char)text[k];
            if (ch == '#') break;
            if (ch == ' ' || ch == '\t' || ch == '\r') {
                k++;
                continue;
            }
            if (ch < 32 || ch >= 127) return fail_at(&c, (uint32_t)(k - pos) + 1, "unexpected byte 0x%02x (scenario files are ASCII)", ch);
            if (c.n == TOKS_MAX) return fail_at(&c, (uint32_t)(k - pos) + 1, "more than %u words on a line", TOKS_MAX);
            size_t start = k;
            while (k < end && text[k] != ' ' && text[k] != '\t' && text[k] != '\r' && text[k] != '#') {
                if ((unsigned char)text[k] < 32 || (unsigned char)text[k] >= 127) break;
                k++;
            }
            c.t[c.n++] = (tok){ .s = text + start, .len = (uint32_t)(k - start), .col = (uint32_t)(start - pos) + 1 };
            col = (uint32_t)(k - pos) + 1;
        }
        c.eol_col = col > 0 ? col : 1;            /* just after the last word */
        if (c.n > 0 && !statement(&c)) return false;
        pos = end + 1;
    }
    return finish(&c);
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

/* The RPC link a lose or delay rpc fault acts on, and the message type it
 * is limited to (0: all): a kind the coordinator sends travels on its
 * link to the task, the others (and every message, untyped) on the
 * task's link to the coordinator. */
static uint32_t rpc_link(const pipeline *p, const scn_fault *f, uint32_t task, uint32_t *msg_type) {
    *msg_type = 0;
    if (f->rpc == 0) return pipe_task_rpc_link(p, task);
    bool to_task = false;
    bool known = pipe_rpc_kind(pipe_rpc_kind_names[f->rpc - 1], msg_type, &to_task);
    SIM_ASSERT(known);                               /* the reader took it from the same table */
    return to_task ? pipe_task_rpc_in_link(p, task) : pipe_task_rpc_link(p, task);
}

/* The kernel fault of a scenario fault (any but a slow task). */
static fault_spec kernel_spec(const pipeline *p, const scn_fault *f, sim_time_ns at_ns) {
    const job *j = pipe_job(p);
    uint32_t a = j->vertex_first_task[f->vertex] + f->subtask;
    uint32_t b = j->vertex_first_task[f->vertex2] + f->subtask2;
    fault_spec x = { .at_ns = at_ns, .duration_ns = f->duration_ns };
    switch (f->kind) {
    case SCN_CRASH_MACHINE: x.kind = FAULT_MACHINE_CRASH; x.target = f->machine; break;
    case SCN_CRASH_TASK:                             /* the task dies; its TaskManager lives on and offers the slot again */
        x.kind = FAULT_ACTOR_CRASH;
        x.target = pipe_task_actor(p, a);
        x.duration_ns = 1;
        break;
    case SCN_PARTITION:
        x.kind = FAULT_PARTITION;
        x.machines_a = f->machines_a;
        x.machines_b = f->machines_b;
        break;
    case SCN_DELAY_LINK: x.kind = FAULT_LINK_DELAY; x.target = pipe_chan_link(p, a, b); x.delay_ns = f->delay_ns; break;
    case SCN_CUT_LINK:   x.kind = FAULT_LINK_CUT; x.target = pipe_chan_link(p, a, b); break;
    case SCN_LOSE_RPC:   x.kind = FAULT_LINK_LOSS; x.target = rpc_link(p, f, a, &x.msg_type); x.ratio = f->ratio; break;
    case SCN_DELAY_RPC:
        x.kind = FAULT_LINK_DELAY;
        x.target = rpc_link(p, f, a, &x.msg_type);
        x.delay_ns = f->delay_ns;
        break;
    case SCN_CRASH_COORDINATOR: x.kind = FAULT_ACTOR_CRASH; x.target = pipe_coord_actor(p); break;
    case SCN_PAUSE_MACHINE:     x.kind = FAULT_MACHINE_PAUSE; x.target = f->machine; break;
    case SCN_PAUSE_COORDINATOR: x.kind = FAULT_ACTOR_PAUSE; x.target = pipe_coord_actor(p); break;
    case SCN_PAUSE_TASK:        x.kind = FAULT_ACTOR_PAUSE; x.target = pipe_task_actor(p, a); break;
    case SCN_SLOW_STORE: x.kind = FAULT_DEV_SLOW; x.target = pipe_store_dev(p); x.factor = f->factor; break;
    case SCN_FAIL_STORE: x.kind = FAULT_DEV_FAIL; x.target = pipe_store_dev(p); x.ratio = f->ratio; break;
    case SCN_AMBIGUOUS_STORE:
        x.kind = FAULT_DEV_AMBIGUOUS;
        x.target = f->ha ? pipe_ha_dev(p) : pipe_store_dev(p);
        x.ratio = f->ratio;
        break;
    case SCN_SLOW_TASK:
    case SCN_RESCALE:    SIM_ASSERT(!"the model's, not the kernel's"); break;
    }
    SIM_ASSERT(x.target != UINT32_MAX);              /* links were checked in finish() */
    return x;
}

/* Hand one fault to the kernel (its fault id) or, a slow task, to the
 * model (UINT32_MAX). */
static uint32_t add_fault(pipeline *p, const scn_fault *f, sim_time_ns at_ns) {
    if (f->kind == SCN_RESCALE) return UINT32_MAX;   /* the pipe has it from cfg.rescales */
    if (f->kind == SCN_SLOW_TASK) {                  /* the model's, not the kernel's */
        uint32_t task = pipe_job(p)->vertex_first_task[f->vertex] + f->subtask;
        bool added = pipe_add_slow(p, &(pipe_slow){ .task = task, .at_ns = at_ns, .duration_ns = f->duration_ns,
                                                    .factor = f->factor });
        SIM_ASSERT(added);                           /* the reader allows PIPE_SLOW_MAX */
        return UINT32_MAX;
    }
    fault_spec x = kernel_spec(p, f, at_ns);
    return fault_add(pipe_sim(p), &x);
}

/* Add fault i at at_ns and, when armed, remember what became of it, so
 * scn_unfired() can tell whether it fired. */
static void add_tracked(scn_armed *a, const scn *s, pipeline *p, uint32_t i, sim_time_ns at_ns) {
    uint32_t id = add_fault(p, &s->faults[i], at_ns);
    if (a == NULL) return;
    a->added[i] = true;
    a->kernel_id[i] = id;
    a->begin_ns[i] = at_ns;
}

static void add_time_faults(const scn *s, pipeline *p, scn_armed *a) {
    for (uint32_t i = 0; i < s->faults_count; i++) {
        if (s->faults[i].point == SCN_AT_TIME) add_tracked(a, s, p, i, s->faults[i].at_ns);
    }
}

void scn_add_faults(const scn *s, pipeline *p) { add_time_faults(s, p, NULL); }

static void armed_observe(void *ctx, const pipe_event *e) {
    scn_armed *a = ctx;
    const job *j = pipe_job(a->p);
    for (uint32_t i = 0; i < a->s->faults_count && a->points_waiting > 0; i++) {
        const scn_fault *f = &a->s->faults[i];
        if (f->point == SCN_AT_TIME || a->reached[i]) continue;
        bool hit = false, same = e->ckpt == f->point_ckpt;
        uint32_t task = j->vertex_first_task[f->point_vertex] + f->point_subtask;
        switch (f->point) {
        case SCN_WHEN_ALIGNING:      hit = same && e->kind == PIPE_EV_BARRIER && e->task == task && e->blocked > 0; break;
        case SCN_WHEN_TRIGGERS:      hit = same && e->kind == PIPE_EV_TRIGGER && e->task == task; break;
        case SCN_WHEN_STARTS:        hit = same && e->kind == PIPE_EV_CKPT_START; break;
        case SCN_WHEN_COMPLETES:     hit = same && e->kind == PIPE_EV_CKPT_COMPLETE; break;
        case SCN_WHEN_SNAPSHOT_SYNC: hit = same && e->kind == PIPE_EV_SNAPSHOT_SYNC && e->task == task; break;
        case SCN_WHEN_COMMITS:       /* a commit covers every checkpoint up to its own */
            hit = e->kind == PIPE_EV_SINK_COMMIT && e->task == task && e->ckpt >= f->point_ckpt;
            break;
        case SCN_AT_TIME:            break;
        }
        if (!hit) continue;
        a->reached[i] = true;                     /* once, the first time the point is reached */
        a->points_waiting--;
        add_tracked(a, a->s, a->p, i, e->at_ns + f->at_ns);
    }
    if (a->next != NULL) a->next(a->next_ctx, e);
}

void scn_arm_faults(const scn *s, pipeline *p, scn_armed *arm, pipe_observe_fn then, void *then_ctx) {
    memset(arm, 0, sizeof *arm);
    arm->s = s;
    arm->p = p;
    arm->next = then;
    arm->next_ctx = then_ctx;
    add_time_faults(s, p, arm);
    for (uint32_t i = 0; i < s->faults_count; i++) arm->points_waiting += s->faults[i].point != SCN_AT_TIME;
    pipe_observe(p, armed_observe, arm);
}

/* "1.399ms": to the microsecond, as the run summary prints times. */
static void ms_text(sim_time_ns ns, char *buf, size_t n) {
    uint64_t us = ns / 1000 + (ns % 1000 >= 500);
    snprintf(buf, n, "%" PRIu64 ".%03" PRIu64 "ms", us / 1000, us % 1000);
}

static bool fault_fired(const scn_armed *a, uint32_t i, sim_time_ns end_ns) {
    if (!a->added[i]) return false;                  /* its point was never reached */
    if (a->kernel_id[i] != UINT32_MAX) return fault_begun(pipe_sim(a->p), a->kernel_id[i]);
    return end_ns >= a->begin_ns[i];                 /* a slow task or a rescale: the run reached its time */
}

uint32_t scn_unfired(const scn_armed *a, sim_time_ns end_ns, char *out, size_t out_bytes) {
    const scn *s = a->s;
    uint32_t unfired = 0;
    size_t used = 0;
    if (out_bytes > 0) out[0] = '\0';
    char end[32], reached[32], text[SCN_FAULT_TEXT_BYTES], why[128];
    ms_text(end_ns, end, sizeof end);
    for (uint32_t i = 0; i < s->faults_count; i++) {
        const scn_fault *f = &s->faults[i];
        if (f->optional || fault_fired(a, i, end_ns)) continue;
        unfired++;
        if (f->point != SCN_AT_TIME && !a->reached[i]) {
            snprintf(why, sizeof why, "the point was never reached; the job ended at %s", end);
        } else if (f->point != SCN_AT_TIME) {
            ms_text(a->begin_ns[i] - f->at_ns, reached, sizeof reached);
            snprintf(why, sizeof why, "the point was reached at %s; the job ended at %s", reached, end);
        } else {
            snprintf(why, sizeof why, "the job ended at %s", end);
        }
        if (used >= out_bytes) continue;             /* counted, but no room left to say it */
        /* A fault drawn at random (shrink scripts them) has no line: "%.0u" of 0 prints nothing. */
        int w = snprintf(out + used, out_bytes - used, f->line > 0 ? "%s%s:%u: %s never fired (%s)" : "%s%s%.0u: %s never fired (%s)",
                         used > 0 ? "; " : "", s->path, f->line, scn_fault_text(s, f, text, sizeof text), why);
        used = w < 0 ? out_bytes : used + (size_t)w;
    }
    return unfired;
}

/* Where a profile's faults fall: from lo, over span, windows of 1 ms up
 * to 1 ms + dur_max. */
typedef struct draw_span {
    sim_time_ns lo, span, dur_max;
} draw_span;

/* A fault of `kind`, optional, with its time and window drawn (in that
 * order: every profile draws them so). */
static scn_fault draw_window(rng *r, const draw_span *w, scn_fault_kind kind) {
    scn_fault f = { .kind = kind, .optional = true, .line = 0 };
    f.at_ns = w->lo + (sim_time_ns)(((unsigned __int128)rng_u32(r) * w->span) >> 32);
    f.duration_ns = SIM_NS_PER_MS + (sim_time_ns)(((unsigned __int128)rng_u32(r) * w->dur_max) >> 32);
    return f;
}

static void draw_task(rng *r, const job *j, scn_fault *f) {
    const job_task *t = &j->tasks[rng_below(r, j->tasks_count)];
    f->vertex = t->vertex;
    f->subtask = t->subtask;
}

static bool room(const scn *s) { return s->faults_count < SCN_FAULTS_MAX; }

/* The first kinds, crash machine to lose rpc (of every message): each
 * fault draws a task and a channel whether it uses them or not, as it
 * always did, so seeds keep their profiles. */
static void draw_first_kinds(scn *s, rng *r, const job *j, const draw_span *w) {
    for (uint32_t kind = SCN_CRASH_MACHINE; kind <= SCN_LOSE_RPC; kind++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, (scn_fault_kind)kind);
            const job_task *t = &j->tasks[rng_below(r, j->tasks_count)];
            const job_chan *c = &j->chans[rng_below(r, j->chans_count)];
            switch (f.kind) {
            case SCN_CRASH_MACHINE: f.machine = rng_below(r, s->cfg.machines); break;
            case SCN_CRASH_TASK: f.vertex = t->vertex; f.subtask = t->subtask; f.duration_ns = 0; break;
            case SCN_PARTITION: {
                uint32_t m = s->cfg.machines + 1;       /* the coordinator's machine too */
                uint32_t a = rng_below(r, m), b = rng_below(r, m - 1);
                if (b >= a) b++;
                f.machines_a = 1ull << a;
                f.machines_b = 1ull << b;
                break;
            }
            case SCN_DELAY_LINK:
            case SCN_CUT_LINK:
                f.vertex = j->tasks[c->producer].vertex;
                f.subtask = j->tasks[c->producer].subtask;
                f.vertex2 = j->tasks[c->consumer].vertex;
                f.subtask2 = j->tasks[c->consumer].subtask;
                f.delay_ns = SIM_NS_PER_MS * (1 + rng_below(r, 20));
                if (f.kind == SCN_CUT_LINK) f.delay_ns = 0;   /* drawn to keep the stream, meaningless: as a cut reads back */
                break;
            case SCN_LOSE_RPC:
                f.vertex = t->vertex;
                f.subtask = t->subtask;
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                break;
            default: SIM_ASSERT(!"drawn below");
            }
            s->faults[s->faults_count++] = f;
        }
    }
}

/* The kinds added second, crash coordinator to slow task. The store is
 * only used by the durable backend: its faults are drawn either way (the
 * draws stay the same for both backends) but kept only there. */
static void draw_second_kinds(scn *s, rng *r, const job *j, const draw_span *w) {
    uint32_t slow = 0;
    for (uint32_t i = 0; i < s->faults_count; i++) slow += s->faults[i].kind == SCN_SLOW_TASK;
    bool durable = s->cfg.state.backend == PIPE_BACKEND_DURABLE;
    for (uint32_t kind = SCN_CRASH_COORDINATOR; kind <= SCN_SLOW_TASK; kind++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, (scn_fault_kind)kind);
            bool keep = true;
            switch (f.kind) {
            case SCN_CRASH_COORDINATOR: break;          /* a new one takes over after the window */
            case SCN_SLOW_STORE:
                f.factor = 2 + rng_below(r, 19);
                keep = durable;
                break;
            case SCN_FAIL_STORE:
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                keep = durable;
                break;
            case SCN_SLOW_TASK:
                draw_task(r, j, &f);
                f.factor = 2 + rng_below(r, 19);
                keep = slow < PIPE_SLOW_MAX;
                slow += keep;
                break;
            default: SIM_ASSERT(!"drawn above");
            }
            if (keep) s->faults[s->faults_count++] = f;
        }
    }
}

/* The kinds added third, in this order: pauses (machine, coordinator,
 * task), lost RPCs of one kind, delayed RPCs (of every message from a
 * task, or of one kind), ambiguous store writes (kept with the durable
 * backend only, drawn either way). A machine pause is one time in four
 * longer than the heartbeat timeout, so the coordinator declares its
 * TaskManager lost and restarts the job. No pause lasts more than twice
 * the timeout: past one timeout a TaskManager is lost whatever the length,
 * and a long coordinator pause piles up what the tasks keep sending it
 * (their finished reports repeat every 50 RPC latencies) beyond the
 * message payloads a run holds (model/pipe.c sizes them for messages in
 * flight, not for seconds of them). The timeout is the file's (its RPC
 * latency, before `vary network` draws another), so that a seed's faults
 * stay the same with or without `vary`. */
static void draw_third_kinds(scn *s, rng *r, const job *j, const draw_span *w) {
    static const scn_fault_kind kinds[] = { SCN_PAUSE_MACHINE, SCN_PAUSE_COORDINATOR, SCN_PAUSE_TASK, SCN_LOSE_RPC,
                                            SCN_DELAY_RPC, SCN_AMBIGUOUS_STORE };
    uint32_t rpc_kinds = 0;
    while (pipe_rpc_kind_names[rpc_kinds] != NULL) rpc_kinds++;
    sim_time_ns interval, timeout;
    pipe_heartbeat(&s->cfg, &interval, &timeout);
    bool durable = s->cfg.state.backend == PIPE_BACKEND_DURABLE;
    for (uint32_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (rng_below(r, 2) == 0) continue;             /* this kind is off for this seed */
        uint32_t n = 1 + rng_below(r, 2);
        for (uint32_t i = 0; i < n && room(s); i++) {
            scn_fault f = draw_window(r, w, kinds[k]);
            bool pause = f.kind == SCN_PAUSE_MACHINE || f.kind == SCN_PAUSE_COORDINATOR || f.kind == SCN_PAUSE_TASK;
            if (pause && f.duration_ns > 2 * timeout) f.duration_ns = 2 * timeout;
            switch (f.kind) {
            case SCN_PAUSE_MACHINE:
                f.machine = rng_below(r, s->cfg.machines);
                if (rng_below(r, 4) == 0) {              /* beyond the timeout, within twice it */
                    f.duration_ns = timeout + 1 + (sim_time_ns)(((unsigned __int128)rng_u32(r) * (timeout - 1)) >> 32);
                }
                break;
            case SCN_PAUSE_COORDINATOR: break;
            case SCN_PAUSE_TASK: draw_task(r, j, &f); break;
            case SCN_LOSE_RPC:
                draw_task(r, j, &f);
                f.rpc = 1 + rng_below(r, rpc_kinds);
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                break;
            case SCN_DELAY_RPC:
                draw_task(r, j, &f);
                f.rpc = rng_below(r, rpc_kinds + 1);    /* 0: every message from the task */
                f.delay_ns = SIM_NS_PER_MS * (1 + rng_below(r, 20));
                break;
            case SCN_AMBIGUOUS_STORE:
                f.ratio = (sim_ratio){ .num = 1 + rng_below(r, 100), .den = 100 };
                f.ha = rng_below(r, 2) == 0;        /* the checkpoint storage, or the HA store */
                break;
            default: SIM_ASSERT(!"not drawn here");
            }
            if (f.kind != SCN_AMBIGUOUS_STORE || durable) s->faults[s->faults_count++] = f;
        }
    }
}

uint32_t scn_random_faults(scn *s, uint64_t seed, sim_time_ns horizon_ns) {
    SIM_ASSERT(horizon_ns >= 10 * SIM_NS_PER_MS);
    rng r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0x5ca1ab1e));
    job graph, *j = &graph;
    arena mem;
    bool expanded = expand_job(s, j, &mem);
    SIM_ASSERT(expanded);                         /* a job of a few MiB at most */
    uint32_t before = s->faults_count;
    draw_span w = { .lo = horizon_ns / 10, .span = horizon_ns * 7 / 10, .dur_max = horizon_ns / 8 };
    /* Each group of kinds draws after the ones before it, from the same
     * stream, so a seed keeps the faults of the older kinds it had. */
    draw_first_kinds(s, &r, j, &w);
    draw_second_kinds(s, &r, j, &w);
    draw_third_kinds(s, &r, j, &w);
    arena_destroy(&mem);
    scn_random_settings(s, seed);                 /* after: the faults are drawn against the file's settings */
    return s->faults_count - before;
}

/* Uniform on [lo, hi]. */
static uint64_t draw_in(rng *r, uint64_t lo, uint64_t hi) {
    SIM_ASSERT(lo <= hi && hi - lo < UINT32_MAX);
    return lo + rng_below(r, (uint32_t)(hi - lo + 1));
}

/* Checkpoint settings that let checkpoints complete when nothing fails
 * (a timeout of at least 40 ms and 3 intervals: a shorter one than the
 * checkpoints need with no tolerable failure restarts the job forever, a
 * configuration's livelock, not the protocol's) but also time out, pile
 * up, wait for the minimum pause and fail the job past `tolerable`.
 * Unaligned checkpoints (and aligned ones with an alignment timeout)
 * stay one at a time, as Flink requires. */
static void draw_checkpoint(rng *r, pipe_ckpt_cfg *k) {
    static const uint32_t tolerable[] = { 0, 1, 3, 1000 };
    k->interval_ns = draw_in(r, 2, 20) * SIM_NS_PER_MS;
    sim_time_ns floor = 3 * k->interval_ns > 40 * SIM_NS_PER_MS ? 3 * k->interval_ns : 40 * SIM_NS_PER_MS;
    k->timeout_ns = floor + draw_in(r, 0, 160) * SIM_NS_PER_MS;
    k->min_pause_ns = rng_below(r, 2) ? draw_in(r, 0, k->interval_ns / SIM_NS_PER_US) * SIM_NS_PER_US : 0;
    k->max_concurrent = k->mode == PIPE_UNALIGNED ? 1 : (uint32_t)draw_in(r, 1, 3);
    k->tolerable_failures = tolerable[rng_below(r, 4)];
    k->alignment_timeout_ns = 0;                  /* it may turn a checkpoint unaligned: one at a time */
    if (k->mode == PIPE_ALIGNED && rng_below(r, 2)) {
        k->max_concurrent = 1;
        k->alignment_timeout_ns = draw_in(r, 1, 5) * SIM_NS_PER_MS;
    }
}

/* A restart strategy; strategies that give up do so after a few failures. */
static void draw_restart(rng *r, pipe_restart_cfg *x) {
    static const pipe_restart kinds[] = { PIPE_RESTART_NONE, PIPE_RESTART_FIXED_DELAY, PIPE_RESTART_FIXED_DELAY,
                                          PIPE_RESTART_FAILURE_RATE, PIPE_RESTART_FAILURE_RATE,
                                          PIPE_RESTART_EXPONENTIAL, PIPE_RESTART_EXPONENTIAL };
    *x = (pipe_restart_cfg){ .kind = kinds[rng_below(r, 7)], .failover = x->failover };   /* the file's failover stays */
    switch (x->kind) {
    case PIPE_RESTART_NONE: break;
    case PIPE_RESTART_FIXED_DELAY:
        x->attempts = (uint32_t)draw_in(r, 0, 4);
        x->delay_ns = draw_in(r, 1, 30) * SIM_NS_PER_MS;
        break;
    case PIPE_RESTART_FAILURE_RATE:
        x->max_failures = (uint32_t)draw_in(r, 1, 3);
        x->interval_ns = draw_in(r, 50, 300) * SIM_NS_PER_MS;
        x->delay_ns = draw_in(r, 1, 20) * SIM_NS_PER_MS;
        break;
    case PIPE_RESTART_EXPONENTIAL:
        x->initial_ns = draw_in(r, 1, 5) * SIM_NS_PER_MS;
        x->max_ns = draw_in(r, 20, 60) * SIM_NS_PER_MS;
        x->multiplier_milli = (uint32_t)draw_in(r, 1500, 3000);
        x->reset_ns = draw_in(r, 20, 100) * SIM_NS_PER_MS;
        x->jitter_milli = (uint32_t)draw_in(r, 0, 2) * 100;   /* 0, Flink's 0.1, or 0.2 */
        x->attempts_before_reset = rng_below(r, 2) ? (uint32_t)draw_in(r, 1, 6) : RS_UNLIMITED;
        break;
    }
}

void scn_random_settings(scn *s, uint64_t seed) {
    rng r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0x5e7711e5));
    if (s->vary & SCN_VARY_CHECKPOINT) draw_checkpoint(&r, &s->cfg.ckpt);
    if (s->vary & SCN_VARY_RESTART) draw_restart(&r, &s->cfg.restart);
    if (s->vary & SCN_VARY_NETWORK) s->cfg.rpc_latency_ns = vary_rpc_ns[rng_below(&r, VARY_RPC_CHOICES)];
    /* A checkpoint waits on RPCs (the trigger, each acknowledgement, with
     * slow ones the notices and redeployments around it): a drawn timeout
     * leaves room for ten of them beyond its floor, or at 3 ms each a
     * timeout of 41 ms with three concurrent checkpoints let none complete
     * (aligned-memory-vary seed 9101408: 4353 timeouts in 60 s, the job
     * never ended). No draw is added: every other setting stays. */
    if ((s->vary & SCN_VARY_CHECKPOINT) && (s->vary & SCN_VARY_NETWORK)) s->cfg.ckpt.timeout_ns += 10 * s->cfg.rpc_latency_ns;
    /* A strategy that never gives up, few tolerable failures and a timeout
     * shorter than the first checkpoint after a restart (it runs under the
     * catch-up load) fail the job over forever: a configuration's livelock,
     * in Flink as here, not the protocol's (seed 9101642 of the same file:
     * a 46 ms timeout, tolerable 0). Such a draw takes a timeout of 200 ms
     * or more. */
    const pipe_restart_cfg *x = &s->cfg.restart;
    bool endless = x->kind == PIPE_RESTART_EXPONENTIAL && x->attempts_before_reset == RS_UNLIMITED;
    if ((s->vary & SCN_VARY_CHECKPOINT) && endless && s->cfg.ckpt.tolerable_failures < 1000 &&
        s->cfg.ckpt.timeout_ns < 200 * SIM_NS_PER_MS) {
        s->cfg.ckpt.timeout_ns += 200 * SIM_NS_PER_MS;
    }
}

/* ---- fault text ------------------------------------------------------------ */

/* Text appended to a fixed buffer; what does not fit is cut off. */
typedef struct wbuf {
    char  *s;
    size_t n, used;
} wbuf;

static void put(wbuf *b, const char *fmt, ...) {
    if (b->used + 1 >= b->n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s + b->used, b->n - b->used, fmt, ap);
    va_end(ap);
    if (w > 0) b->used = b->used + (size_t)w < b->n ? b->used + (size_t)w : b->n - 1;
}

static void put_task(wbuf *b, const job *j, uint32_t v, uint32_t i) {
    put(b, "%s[%u]", j->vertices[v].name, i);
}

static void put_machines(wbuf *b, uint64_t mask, uint32_t machines) {
    const char *sep = "";
    for (uint32_t m = 0; m <= machines; m++) {
        if (!(mask & (1ull << m))) continue;
        if (m == machines) put(b, "%sjm", sep); else put(b, "%s%u", sep, m);
        sep = ",";
    }
}

/* "whole.frac" with the fraction's trailing zeros dropped; frac < 10^digits. */
static void put_decimal(wbuf *b, uint64_t whole, uint64_t frac, uint32_t digits) {
    put(b, "%" PRIu64, whole);
    if (frac == 0) return;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    put(b, ".%0*" PRIu64, (int)digits, frac);
}

/* In the largest unit that reads it exactly: 10ms, 1.5s, 200us, 300ns
 * (the reader takes up to 9 decimals, so this is exact). */
static void put_duration(wbuf *b, sim_time_ns ns) {
    static const struct { const char *name; uint64_t ns; uint32_t digits; } units[] = {
        { "s", SIM_NS_PER_S, 9 }, { "ms", SIM_NS_PER_MS, 6 }, { "us", SIM_NS_PER_US, 3 }, { "ns", 1, 0 },
    };
    if (ns == 0) {
        put(b, "0ms");
        return;
    }
    uint32_t u = 0;
    while (ns < units[u].ns) u++;
    put_decimal(b, ns / units[u].ns, ns % units[u].ns, units[u].digits);
    put(b, "%s", units[u].name);
}

const char *scn_expect_text(const scn_expect *e, char *buf, size_t size_bytes) {
    static const char *const names[] = { "", "finished", "failed", "exactly-once", "duplicates", "checkpoints",
                                         "restarts", "aborted", "output exactly-once", "output at-least-once",
                                         "output duplicates", "failovers", "unaligned", "liveness", "fenced",
                                         "duration", "relocated", "backpressure", "checkpointed-bytes",
                                         "restarted-tasks", "records-read", "late-records", "windows-fired",
                                         "late-firings", "rescaled", "output lost", "checkpoint", "checkpoint" };
    static const char *const ops[] = { "", "==", ">=", "<=", ">", "<" };
    SIM_ASSERT(e->kind >= SCN_EXPECT_FINISHED && e->kind <= SCN_EXPECT_CKPT_COMPLETED);
    if (e->kind == SCN_EXPECT_LIVENESS) {         /* in human units, exact: the reader takes it back */
        wbuf b = { .s = buf, .n = size_bytes };
        buf[0] = '\0';
        put(&b, "liveness ");
        put_duration(&b, e->value);
    } else if (e->kind == SCN_EXPECT_DURATION || e->kind == SCN_EXPECT_BACKPRESSURE) {
        wbuf b = { .s = buf, .n = size_bytes };
        buf[0] = '\0';
        if (e->kind == SCN_EXPECT_BACKPRESSURE) put(&b, "backpressure %s %s ", e->task, ops[e->cmp]);
        else put(&b, "duration %s ", ops[e->cmp]);
        put_duration(&b, e->value);
    } else if (e->kind == SCN_EXPECT_CKPT_TRIGGERED || e->kind == SCN_EXPECT_CKPT_COMPLETED) {   /* as written */
        snprintf(buf, size_bytes, "checkpoint %llu %s at %s", (unsigned long long)e->ckpt,
                 e->kind == SCN_EXPECT_CKPT_TRIGGERED ? "triggered" : "completed", e->task);
    } else if (compares(e->kind)) {
        snprintf(buf, size_bytes, "%s %s %llu", names[e->kind], ops[e->cmp], (unsigned long long)e->value);
    } else {
        snprintf(buf, size_bytes, "%s", names[e->kind]);
    }
    return buf;
}

sim_time_ns scn_liveness_ns(const scn *s) {
    for (uint32_t i = 0; i < s->expects_count; i++) {
        if (s->expects[i].kind == SCN_EXPECT_LIVENESS) return s->expects[i].value;
    }
    return 0;
}

/* "12.5%": in 1/10000 %, as the reader reads it. */
static void put_percent(wbuf *b, sim_ratio r) {
    uint64_t ppm = (uint64_t)r.num * 1000000 / r.den;
    put_decimal(b, ppm / 10000, ppm % 10000, 4);
    put(b, "%%");
}

static void put_for(wbuf *b, sim_time_ns ns) {
    put(b, " for ");
    put_duration(b, ns);
}

/* "fault at 10ms " or "fault when agg[1] aligning 3 after 1ms ". */
static void put_when(wbuf *b, const job *j, const scn_fault *x) {
    static const char *const points[] = { [SCN_WHEN_ALIGNING] = "aligning", [SCN_WHEN_TRIGGERS] = "triggers",
                                          [SCN_WHEN_STARTS] = "starts", [SCN_WHEN_COMPLETES] = "completes",
                                          [SCN_WHEN_SNAPSHOT_SYNC] = "snapshot-sync", [SCN_WHEN_COMMITS] = "commits" };
    if (x->point == SCN_AT_TIME) {
        put(b, "fault at ");
        put_duration(b, x->at_ns);
        put(b, " ");
        return;
    }
    put(b, "fault when ");
    if (x->point == SCN_WHEN_STARTS || x->point == SCN_WHEN_COMPLETES) {
        put(b, "checkpoint %" PRIu64 " %s ", x->point_ckpt, points[x->point]);
    } else {
        put_task(b, j, x->point_vertex, x->point_subtask);
        put(b, " %s %" PRIu64 " ", points[x->point], x->point_ckpt);
    }
    if (x->at_ns > 0) {
        put(b, "after ");
        put_duration(b, x->at_ns);
        put(b, " ");
    }
}

/* "lose rpc ack out[0] 50%" / "delay rpc out[0] by 3ms": the RPCs of a task. */
static void put_rpc(wbuf *b, const job *j, const scn_fault *x) {
    put(b, "%s rpc ", x->kind == SCN_LOSE_RPC ? "lose" : "delay");
    if (x->rpc > 0) put(b, "%s ", pipe_rpc_kind_names[x->rpc - 1]);
    put_task(b, j, x->vertex, x->subtask);
    if (x->kind == SCN_LOSE_RPC) {
        put(b, " ");
        put_percent(b, x->ratio);
    } else {
        put(b, " by ");
        put_duration(b, x->delay_ns);
    }
    put_for(b, x->duration_ns);
}

/* A fault of a target with a window: what it does, then "for D". */
static void put_windowed(wbuf *b, const scn *s, const scn_fault *x) {
    const job *j = &s->cfg.graph;
    switch (x->kind) {
    case SCN_PARTITION:
        put(b, "partition ");
        put_machines(b, x->machines_a, s->cfg.machines);
        put(b, " | ");
        put_machines(b, x->machines_b, s->cfg.machines);
        break;
    case SCN_DELAY_LINK:
    case SCN_CUT_LINK:
        put(b, "%s link ", x->kind == SCN_DELAY_LINK ? "delay" : "cut");
        put_task(b, j, x->vertex, x->subtask);
        put(b, " -> ");
        put_task(b, j, x->vertex2, x->subtask2);
        if (x->kind == SCN_DELAY_LINK) {
            put(b, " by ");
            put_duration(b, x->delay_ns);
        }
        break;
    case SCN_SLOW_STORE: put(b, "slow store %ux", x->factor); break;
    case SCN_FAIL_STORE:
    case SCN_AMBIGUOUS_STORE:
        put(b, "%s %s ", x->kind == SCN_FAIL_STORE ? "fail" : "ambiguous", x->ha ? "ha" : "store");
        put_percent(b, x->ratio);
        break;
    case SCN_SLOW_TASK:
        put(b, "slow task ");
        put_task(b, j, x->vertex, x->subtask);
        put(b, " %ux", x->factor);
        break;
    case SCN_PAUSE_MACHINE: put(b, "pause machine %u", x->machine); break;
    case SCN_PAUSE_COORDINATOR: put(b, "pause coordinator"); break;
    case SCN_PAUSE_TASK:
        put(b, "pause task ");
        put_task(b, j, x->vertex, x->subtask);
        break;
    default: SIM_ASSERT(!"told by put_what"); break;
    }
    put_for(b, x->duration_ns);
}

static void put_what(wbuf *b, const scn *s, const scn_fault *x) {
    const job *j = &s->cfg.graph;
    switch (x->kind) {
    case SCN_CRASH_MACHINE:
        put(b, "crash machine %u", x->machine);
        if (x->duration_ns > 0) put_for(b, x->duration_ns);
        break;
    case SCN_CRASH_TASK:
        put(b, "crash task ");
        put_task(b, j, x->vertex, x->subtask);
        break;
    case SCN_CRASH_COORDINATOR:
        put(b, "crash coordinator");
        if (x->duration_ns > 0) put_for(b, x->duration_ns);
        break;
    case SCN_RESCALE: put(b, "rescale %s to %u", j->vertices[x->vertex].name, x->parallelism); break;
    case SCN_LOSE_RPC:
    case SCN_DELAY_RPC: put_rpc(b, j, x); break;
    default: put_windowed(b, s, x); break;
    }
}

const char *scn_fault_text(const scn *s, const scn_fault *f, char *buf, size_t n) {
    SIM_ASSERT(n > 0);
    wbuf b = { .s = buf, .n = n };
    buf[0] = '\0';
    put_when(&b, &s->cfg.graph, f);
    put_what(&b, s, f);
    if (f->optional) put(&b, " optional");
    return buf;
}

/* A duration as a person writes it (20ms, 1.5s), exact: the reader takes
 * it back to the same nanoseconds. */
static const char *dur(char *buf, size_t n, sim_time_ns ns) {
    wbuf b = { .s = buf, .n = n };
    buf[0] = '\0';
    put_duration(&b, ns);
    return buf;
}

/* A bandwidth in the largest unit that divides it (10Gbit/s, 200MB/s). */
static const char *bw(char *buf, size_t n, uint64_t bytes_per_s) {
    if (bytes_per_s > 0 && bytes_per_s % 125000000 == 0) snprintf(buf, n, "%" PRIu64 "Gbit/s", bytes_per_s / 125000000);
    else if (bytes_per_s > 0 && bytes_per_s % 1000000 == 0) snprintf(buf, n, "%" PRIu64 "MB/s", bytes_per_s / 1000000);
    else if (bytes_per_s > 0 && bytes_per_s % 125000 == 0) snprintf(buf, n, "%" PRIu64 "Mbit/s", bytes_per_s / 125000);
    else if (bytes_per_s > 0 && bytes_per_s % 1048576 == 0) snprintf(buf, n, "%" PRIu64 "MiB/s", bytes_per_s / 1048576);
    else snprintf(buf, n, "%" PRIu64 "B/s", bytes_per_s);
    return buf;
}

/* The head of a scenario file: run, cluster, network and broker. */
static void write_head(const scn *s, FILE *f) {
    const pipe_cfg *c = &s->cfg;
    char d1[32], d2[32], d3[32], b1[32];
    fprintf(f, "seed %" PRIu64 "\n", c->seed);
    fprintf(f, "bounds time %s events %" PRIu64 "\n", dur(d1, sizeof d1, c->time_max_ns), c->events_max);
    fprintf(f, "machines %u", c->machines);
    if (c->task_slots > 0) fprintf(f, " slots %u", c->task_slots);
    fputc('\n', f);
    fprintf(f, "network latency %s jitter %s bandwidth %s rpc-latency %s", dur(d1, sizeof d1, c->latency_ns),
            dur(d2, sizeof d2, c->jitter_ns), bw(b1, sizeof b1, c->bandwidth_bytes_per_s),
            dur(d3, sizeof d3, c->rpc_latency_ns));
    /* Only when set: 0 is "derived from the RPC latency", which the
     * reader takes as the key left out, and is what vary may change. */
    if (c->heartbeat_interval_ns > 0) fprintf(f, " heartbeat-interval %s", dur(d1, sizeof d1, c->heartbeat_interval_ns));
    if (c->heartbeat_timeout_ns > 0) fprintf(f, " heartbeat-timeout %s", dur(d1, sizeof d1, c->heartbeat_timeout_ns));
    fprintf(f, "\n");
    fprintf(f, "channels credits %u queue %u buffer-timeout %s\n", c->credits, c->out_queue,
            dur(d1, sizeof d1, c->buffer_timeout_ns));
    for (uint32_t t = 0; t < broker_cfg_topics(&c->broker); t++) {   /* an empty default topic: no statement */
        broker_topic_cfg b = broker_cfg_topic(&c->broker, t);
        if (t == 0 && b.partitions == 0) continue;
        fprintf(f, "broker%s%s partitions %u records %" PRIu64 " keys %" PRIu64, t > 0 ? " topic " : "", b.name,
                b.partitions, b.records_per_partition, b.keys);
        if (b.dist == BROKER_ZIPF) {
            fprintf(f, " zipf %u.%03u", b.zipf_s_milli / 1000, b.zipf_s_milli % 1000);
        } else {
            fprintf(f, " uniform");
        }
        fprintf(f, " values %" PRId64 " gap %s", b.value_max, dur(d1, sizeof d1, b.event_gap_ns));
        if (b.disorder_ns > 0) fprintf(f, " disorder %s", dur(d1, sizeof d1, b.disorder_ns));
        fprintf(f, "\n");
    }
}

/* checkpoint, state and restart lines. */
static void write_settings(const scn *s, FILE *f) {
    static const char *const modes[] = { "", "aligned", "at-least-once", "unaligned" };
    const pipe_cfg *c = &s->cfg;
    char d1[32], d2[32], d3[32], d4[32], b1[32], b2[32];
    fprintf(f, "checkpoint mode %s interval %s min-pause %s timeout %s max-concurrent %u tolerable %u retained %u%s",
            modes[c->ckpt.mode], dur(d1, sizeof d1, c->ckpt.interval_ns), dur(d2, sizeof d2, c->ckpt.min_pause_ns),
            dur(d3, sizeof d3, c->ckpt.timeout_ns), c->ckpt.max_concurrent, c->ckpt.tolerable_failures,
            c->ckpt.retained, c->ckpt.legacy_eop ? " legacy-eop" : "");
    if (c->ckpt.finished_tasks_off) fprintf(f, " finished-tasks off");
    if (c->ckpt.alignment_timeout_ns > 0) fprintf(f, " alignment-timeout %s", dur(d1, sizeof d1, c->ckpt.alignment_timeout_ns));
    fprintf(f, "\n");
    if (!c->ckpt.enabled) fprintf(f, "checkpoint off\n");   /* after: a checkpoint statement turns them on */
    const pipe_state_cfg *st = &c->state;
    fprintf(f, "state backend %s %s %s full-every %u sync-cost %s store-latency %s store-bandwidth %s "
            "memory-latency %s memory-bandwidth %s\n",
            st->backend == PIPE_BACKEND_DURABLE ? "durable" : "memory", st->async ? "async" : "sync",
            st->incremental ? "incremental" : "full", st->full_every, dur(d1, sizeof d1, st->sync_ns),
            dur(d2, sizeof d2, st->store.latency_ns), bw(b1, sizeof b1, st->store.bandwidth_bytes_per_s),
            dur(d3, sizeof d3, st->memory.latency_ns), bw(b2, sizeof b2, st->memory.bandwidth_bytes_per_s));
    const pipe_restart_cfg *r = &c->restart;
    switch (r->kind) {
    case PIPE_RESTART_NONE: fprintf(f, "restart none"); break;
    case PIPE_RESTART_FIXED_DELAY:
        fprintf(f, "restart fixed-delay attempts %u delay %s", r->attempts, dur(d1, sizeof d1, r->delay_ns));
        break;
    case PIPE_RESTART_FAILURE_RATE:
        fprintf(f, "restart failure-rate max %u per %s delay %s", r->max_failures,
                dur(d1, sizeof d1, r->interval_ns), dur(d2, sizeof d2, r->delay_ns));
        break;
    case PIPE_RESTART_EXPONENTIAL:
        fprintf(f, "restart exponential initial %s max %s multiplier %u.%03u reset %s jitter %u.%03u",
                dur(d1, sizeof d1, r->initial_ns), dur(d2, sizeof d2, r->max_ns), r->multiplier_milli / 1000,
                r->multiplier_milli % 1000, dur(d4, sizeof d4, r->reset_ns), r->jitter_milli / 1000,
                r->jitter_milli % 1000);
        if (r->attempts_before_reset != RS_UNLIMITED) fprintf(f, " attempts %u", r->attempts_before_reset);
        break;
    }
    fprintf(f, "%s\n", r->failover == PIPE_FAILOVER_FULL ? " failover full" : "");   /* region: the default */
}

/* A window's shape and lateness, as the reader takes them. */
static void write_window(const job_vertex *x, FILE *f) {
    char d1[32], d2[32];
    if (x->window_slide_ns == x->window_size_ns) fprintf(f, " tumbling %s", dur(d1, sizeof d1, x->window_size_ns));
    else fprintf(f, " sliding %s every %s", dur(d1, sizeof d1, x->window_size_ns), dur(d2, sizeof d2, x->window_slide_ns));
    if (x->lateness_ns > 0) fprintf(f, " lateness %s", dur(d1, sizeof d1, x->lateness_ns));
}

void scn_write(const scn *s, FILE *f) {
    static const char *const kinds[] = { "", "source", "map", "filter", "keyed-aggregate", "union", "keyed-join", "sink",
                                         "window" };
    static const char *const parts[] = { "", "forward", "rebalance", "hash", "broadcast" };
    static const char *const dists[] = { "", "fixed", "uniform", "exponential" };
    static const char *const outputs[] = { "plain", "idempotent", "two-phase-commit" };
    const pipe_cfg *c = &s->cfg;
    const job *j = &c->graph;
    char d1[32];
    write_head(s, f);
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        const job_vertex *x = &j->vertices[v];
        fprintf(f, "vertex %s %s", x->name, kinds[x->kind]);
        if (x->kind == JOB_WINDOW) write_window(x, f);
        fprintf(f, " parallelism %u cost %s cost-dist %s", x->parallelism, dur(d1, sizeof d1, x->cost_ns),
                dists[x->cost_dist]);
        if (x->watermarks) fprintf(f, " watermark-delay %s", dur(d1, sizeof d1, x->watermark_delay_ns));
        if (x->watermarks && x->watermark_interval_ns > 0)
            fprintf(f, " watermark-interval %s", dur(d1, sizeof d1, x->watermark_interval_ns));
        if (x->max_parallelism > 0) fprintf(f, " max-parallelism %u", x->max_parallelism);
        if (x->kind == JOB_SOURCE && c->source_rate_per_s > 0) fprintf(f, " rate %" PRIu64 "/s", c->source_rate_per_s);
        if (x->kind == JOB_SOURCE && x->topic > 0) fprintf(f, " topic %s", c->broker.more[x->topic - 1].name);
        if (x->kind == JOB_FILTER) fprintf(f, " keep %u%%", x->keep_percent);
        if (x->kind == JOB_MAP) fprintf(f, " add %" PRId64, x->map_add);
        if (x->kind == JOB_SINK) fprintf(f, " output %s", outputs[x->sink]);
        fprintf(f, "\n");
    }
    for (uint32_t e = 0; e < j->edges_count; e++) {
        fprintf(f, "edge %s -> %s %s\n", j->vertices[j->edges[e].from].name, j->vertices[j->edges[e].to].name,
                parts[j->edges[e].part]);
    }
    write_settings(s, f);
    if (s->vary != 0) {
        fprintf(f, "vary%s%s%s\n", s->vary & SCN_VARY_CHECKPOINT ? " checkpoint" : "",
                s->vary & SCN_VARY_RESTART ? " restart" : "", s->vary & SCN_VARY_NETWORK ? " network" : "");
    }
    for (uint32_t i = 0; i < s->faults_count; i++) {
        char text[SCN_FAULT_TEXT_BYTES];
        scn_fault_text(s, &s->faults[i], text, sizeof text);
        SIM_ASSERT(strlen(text) + 1 < sizeof text);  /* not cut off: names are short, so any fault fits */
        fprintf(f, "%s\n", text);
    }
    for (uint32_t i = 0; i < s->expects_count; i++) {
        char text[96];
        fprintf(f, "expect %s\n", scn_expect_text(&s->expects[i], text, sizeof text));
    }
}
