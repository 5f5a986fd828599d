/* scenarios/lex.c: the scenario reader's words: a line split into
 * tokens, errors "file:line:col: what", names suggested for unknown
 * words, numbers with units read exactly, and references to vertices,
 * tasks and machines. */
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool vfail(pctx *c, uint32_t line, uint32_t col, const char *fmt, va_list ap) {
    int n = c->path != NULL ? snprintf(c->err, c->err_bytes, "%s:%u:%u: ", c->path, line, col) : 0;   /* NULL: one word */
    if (n >= 0 && (size_t)n < c->err_bytes) vsnprintf(c->err + n, c->err_bytes - (size_t)n, fmt, ap);
    return false;
}

bool lex_fail_at(pctx *c, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(c, c->line, col, fmt, ap);
    va_end(ap);
    return false;
}

/* A problem found after the whole file was read: on the line of the
 * statement that caused it. */
bool lex_fail_on(pctx *c, uint32_t line, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(c, line, col, fmt, ap);
    va_end(ap);
    return false;
}

bool lex_is(const tok *t, const char *w) {
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
const char *lex_nearest(const tok *t, const char *const *choices) {
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

void lex_choice_list(const char *const *choices, char *list, size_t n) {
    list[0] = '\0';
    for (const char *const *w = choices; *w != NULL; w++) {
        strncat(list, w == choices ? "" : ", ", n - strlen(list) - 1);
        strncat(list, *w, n - strlen(list) - 1);
    }
}

/* "unknown X 'foo' (did you mean 'bar'?)" or with the list of choices. */
bool lex_unknown(pctx *c, const tok *t, const char *what, const char *const *choices) {
    const char *best = lex_nearest(t, choices);
    if (best != NULL) {
        return lex_fail_at(c, t->col, "unknown %s '%.*s' (did you mean '%s'?)", what, (int)t->len, t->s, best);
    }
    char list[256];
    lex_choice_list(choices, list, sizeof list);
    return lex_fail_at(c, t->col, "unknown %s '%.*s' (expected one of: %s)", what, (int)t->len, t->s, list);
}

const tok *lex_next(pctx *c, const char *what) {
    if (c->i < c->n) return &c->t[c->i++];
    lex_fail_at(c, c->eol_col, "expected %s", what);
    return NULL;
}

bool lex_more(const pctx *c) { return c->i < c->n; }

bool lex_expect_word(pctx *c, const char *w) {
    const tok *t = lex_next(c, w);
    if (t == NULL) return false;
    if (!lex_is(t, w)) return lex_fail_at(c, t->col, "expected '%s', not '%.*s'", w, (int)t->len, t->s);
    return true;
}

/* ---- numbers with units ------------------------------------------------ */

/* A decimal "123" or "1.25": value x 10^scale_digits, exactly, in 128 bits
 * (so "60000000000ns", scaled by 10^9, still fits). *rest points past the
 * number. False for no digits, too many decimals, or more than 2^120. */
bool lex_decimal(const tok *t, uint32_t scale_digits, unsigned __int128 *out, uint32_t *rest) {
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

bool lex_count(pctx *c, const tok *t, uint64_t lo, uint64_t hi, uint64_t *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!lex_decimal(t, 0, &v, &rest) || rest != t->len) {
        return lex_fail_at(c, t->col, "'%.*s' is not a whole number", (int)t->len, t->s);
    }
    if (v < lo || v > hi) {
        return lex_fail_at(c, t->col, "%.*s is out of range [%llu, %llu]", (int)t->len, t->s,
                       (unsigned long long)lo, (unsigned long long)hi);
    }
    *out = (uint64_t)v;
    return true;
}

bool lex_with_unit(pctx *c, const tok *t, const lex_unit *units, const char *what, const char *example,
                      uint64_t max, uint64_t *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!lex_decimal(t, 9, &v, &rest)) {
        return lex_fail_at(c, t->col, "'%.*s' is not a %s such as %s", (int)t->len, t->s, what, example);
    }
    tok u = { .s = t->s + rest, .len = t->len - rest, .col = t->col + rest };
    for (const lex_unit *x = units; x->name != NULL; x++) {
        if (!lex_is(&u, x->name)) continue;
        /* v is the number x 10^9; the result is v * mul / 10^9, exact or refused */
        if (x->mul > 0 && v > ((unsigned __int128)1 << 126) / x->mul) return lex_fail_at(c, t->col, "'%.*s' is too large", (int)t->len, t->s);
        unsigned __int128 r = v * x->mul;
        if (r % 1000000000u != 0) return lex_fail_at(c, t->col, "'%.*s' is finer than 1 %s", (int)t->len, t->s, units[0].name);
        r /= 1000000000u;
        if (r > max) return lex_fail_at(c, t->col, "'%.*s' is too large", (int)t->len, t->s);
        *out = (uint64_t)r;
        return true;
    }
    if (u.len == 0) return lex_fail_at(c, t->col, "'%.*s' needs a unit (%s)", (int)t->len, t->s, what);
    const char *names[16];
    uint32_t k = 0;
    for (const lex_unit *x = units; x->name != NULL && k < 15; x++) names[k++] = x->name;
    names[k] = NULL;
    return lex_unknown(c, &u, "unit", names);
}

const lex_unit lex_duration_units[] = {
    { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "min", 60000000000ull },
    { "h", 3600000000000ull }, { NULL, 0 },
};
const lex_unit lex_bandwidth_units[] = {   /* in bytes per second */
    { "B/s", 1 }, { "KB/s", 1000 }, { "MB/s", 1000000 }, { "GB/s", 1000000000 },
    { "KiB/s", 1024 }, { "MiB/s", 1048576 }, { "GiB/s", 1073741824 },
    { "bit/s", 0 }, { "Kbit/s", 125 }, { "Mbit/s", 125000 }, { "Gbit/s", 125000000 },
    { "Kb/s", 125 }, { "Mb/s", 125000 }, { "Gb/s", 125000000 },   /* lower-case b: bits */
    { NULL, 0 },
};

bool lex_duration(pctx *c, const tok *t, sim_time_ns *out) {
    return lex_with_unit(c, t, lex_duration_units, "duration", "200ms", 1ull << 62, out);
}

bool lex_opt_duration(pctx *c, sim_time_ns *out) {
    const tok *t = lex_next(c, "a duration such as 200ms");
    return t != NULL && lex_duration(c, t, out);
}

bool lex_opt_count(pctx *c, uint64_t lo, uint64_t hi, uint64_t *out) {
    const tok *t = lex_next(c, "a number");
    return t != NULL && lex_count(c, t, lo, hi, out);
}

bool lex_percent(pctx *c, const tok *t, sim_ratio *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!lex_decimal(t, 4, &v, &rest) || rest + 1 != t->len || t->s[rest] != '%' || v > 1000000) {
        return lex_fail_at(c, t->col, "'%.*s' is not a percentage such as 30%% or 2.5%%", (int)t->len, t->s);
    }
    *out = (sim_ratio){ .num = (uint32_t)v, .den = 1000000 };
    return true;
}

bool lex_milli(pctx *c, const tok *t, uint64_t lo, uint64_t hi, uint32_t *out) {
    unsigned __int128 v;
    uint32_t rest;
    if (!lex_decimal(t, 3, &v, &rest) || rest != t->len) {
        return lex_fail_at(c, t->col, "'%.*s' is not a decimal number such as 1.5", (int)t->len, t->s);
    }
    if (v < lo || v > hi) {
        return lex_fail_at(c, t->col, "'%.*s' is out of range [%llu.%03llu, %llu.%03llu]", (int)t->len, t->s,
                       (unsigned long long)lo / 1000, (unsigned long long)lo % 1000,
                       (unsigned long long)hi / 1000, (unsigned long long)hi % 1000);
    }
    *out = (uint32_t)v;
    return true;
}

/* ---- names ----------------------------------------------------------------- */

int lex_find_vertex(const pctx *c, const char *s, uint32_t len) {
    const job *j = &c->s->cfg.graph;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        if (strlen(j->vertices[v].name) == len && memcmp(j->vertices[v].name, s, len) == 0) return (int)v;
    }
    return -1;
}

bool lex_vertex_ref(pctx *c, const tok *t, uint32_t *out) {
    int v = lex_find_vertex(c, t->s, t->len);
    if (v >= 0) {
        *out = (uint32_t)v;
        return true;
    }
    const job *j = &c->s->cfg.graph;
    const char *names[JOB_VERTICES_MAX + 1];
    for (uint32_t i = 0; i < j->vertices_count; i++) names[i] = j->vertices[i].name;
    names[j->vertices_count] = NULL;
    if (j->vertices_count == 0) return lex_fail_at(c, t->col, "no vertex named '%.*s' (declare vertices first)", (int)t->len, t->s);
    return lex_unknown(c, t, "vertex", names);
}

/* name[i]: a task */
bool lex_task_ref(pctx *c, const tok *t, uint32_t *vertex, uint32_t *subtask) {
    const char *open = memchr(t->s, '[', t->len);
    if (open == NULL || t->s[t->len - 1] != ']') {
        return lex_fail_at(c, t->col, "'%.*s' is not a task: write vertex[subtask], as in agg[0]", (int)t->len, t->s);
    }
    tok name = { .s = t->s, .len = (uint32_t)(open - t->s), .col = t->col };
    tok idx = { .s = open + 1, .len = (uint32_t)(t->s + t->len - 1 - (open + 1)), .col = t->col + name.len + 1 };
    uint64_t i;
    if (!lex_vertex_ref(c, &name, vertex)) return false;
    uint32_t p = c->s->cfg.graph.vertices[*vertex].parallelism;
    if (!lex_count(c, &idx, 0, p - 1, &i)) return false;
    *subtask = (uint32_t)i;
    return true;
}

bool lex_machine_set(pctx *c, const tok *t, uint64_t *mask) {
    *mask = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i <= t->len; i++) {
        if (i < t->len && t->s[i] != ',') continue;
        tok m = { .s = t->s + start, .len = i - start, .col = t->col + start };
        uint64_t id;
        if (lex_is(&m, "jm")) {
            id = c->s->cfg.machines;              /* the coordinator's machine */
        } else if (!lex_count(c, &m, 0, c->s->cfg.machines - 1, &id)) {
            return false;
        }
        *mask |= 1ull << id;
        start = i + 1;
    }
    return true;
}

/* ---- statements --------------------------------------------------------- */

/* Line c->line, `len` bytes at `line`, split into c->t: words separated by
 * blanks, up to a '#'. False (and the error) on a byte that is not
 * printable ASCII or more than TOKS_MAX words. */
bool lex_line(pctx *c, const char *line, size_t len) {
    c->n = c->i = 0;
    uint32_t col = 0;
    for (size_t k = 0; k < len;) {
        unsigned char ch = (unsigned char)line[k];
        if (ch == '#') break;
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            k++;
            continue;
        }
        if (ch < 32 || ch >= 127) return lex_fail_at(c, (uint32_t)k + 1, "unexpected byte 0x%02x (scenario files are ASCII)", ch);
        if (c->n == TOKS_MAX) return lex_fail_at(c, (uint32_t)k + 1, "more than %u words on a line", TOKS_MAX);
        size_t start = k;
        while (k < len && line[k] != ' ' && line[k] != '\t' && line[k] != '\r' && line[k] != '#') {
            if ((unsigned char)line[k] < 32 || (unsigned char)line[k] >= 127) break;
            k++;
        }
        c->t[c->n++] = (tok){ .s = line + start, .len = (uint32_t)(k - start), .col = (uint32_t)start + 1 };
        col = (uint32_t)k + 1;
    }
    c->eol_col = col > 0 ? col : 1;               /* just after the last word */
    return true;
}
