/* scenarios/text.c: text appended to a fixed buffer, and durations,
 * bandwidths, machines and tasks written as the reader reads them. */
#include "scn_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void txt_put(txt_buf *b, const char *fmt, ...) {
    if (b->used + 1 >= b->n) return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(b->s + b->used, b->n - b->used, fmt, ap);
    va_end(ap);
    if (w > 0) b->used = b->used + (size_t)w < b->n ? b->used + (size_t)w : b->n - 1;
}

void txt_task(txt_buf *b, const job *j, uint32_t v, uint32_t i) {
    txt_put(b, "%s[%u]", j->vertices[v].name, i);
}

void txt_machines(txt_buf *b, uint64_t mask, uint32_t machines) {
    const char *sep = "";
    for (uint32_t m = 0; m <= machines; m++) {
        if (!(mask & (1ull << m))) continue;
        if (m == machines) txt_put(b, "%sjm", sep); else txt_put(b, "%s%u", sep, m);
        sep = ",";
    }
}

/* "whole.frac" with the fraction's trailing zeros dropped; frac < 10^digits. */
void txt_decimal(txt_buf *b, uint64_t whole, uint64_t frac, uint32_t digits) {
    txt_put(b, "%" PRIu64, whole);
    if (frac == 0) return;
    while (frac % 10 == 0) {
        frac /= 10;
        digits--;
    }
    txt_put(b, ".%0*" PRIu64, (int)digits, frac);
}

/* In the largest unit that reads it exactly: 10ms, 1.5s, 200us, 300ns
 * (the reader takes up to 9 decimals, so this is exact). */
void txt_duration(txt_buf *b, sim_time_ns ns) {
    static const struct { const char *name; uint64_t ns; uint32_t digits; } units[] = {
        { "s", SIM_NS_PER_S, 9 }, { "ms", SIM_NS_PER_MS, 6 }, { "us", SIM_NS_PER_US, 3 }, { "ns", 1, 0 },
    };
    if (ns == 0) {
        txt_put(b, "0ms");
        return;
    }
    uint32_t u = 0;
    while (ns < units[u].ns) u++;
    txt_decimal(b, ns / units[u].ns, ns % units[u].ns, units[u].digits);
    txt_put(b, "%s", units[u].name);
}

/* A duration as a person writes it (20ms, 1.5s), exact: the reader takes
 * it back to the same nanoseconds. */
const char *txt_dur(char *buf, size_t n, sim_time_ns ns) {
    txt_buf b = { .s = buf, .n = n };
    buf[0] = '\0';
    txt_duration(&b, ns);
    return buf;
}

/* A bandwidth in the largest unit that divides it (10Gbit/s, 200MB/s). */
const char *txt_bw(char *buf, size_t n, uint64_t bytes_per_s) {
    if (bytes_per_s > 0 && bytes_per_s % 125000000 == 0) snprintf(buf, n, "%" PRIu64 "Gbit/s", bytes_per_s / 125000000);
    else if (bytes_per_s > 0 && bytes_per_s % 1000000 == 0) snprintf(buf, n, "%" PRIu64 "MB/s", bytes_per_s / 1000000);
    else if (bytes_per_s > 0 && bytes_per_s % 125000 == 0) snprintf(buf, n, "%" PRIu64 "Mbit/s", bytes_per_s / 125000);
    else if (bytes_per_s > 0 && bytes_per_s % 1048576 == 0) snprintf(buf, n, "%" PRIu64 "MiB/s", bytes_per_s / 1048576);
    else snprintf(buf, n, "%" PRIu64 "B/s", bytes_per_s);
    return buf;
}

const char *scn_duration_text(char *buf, size_t n, sim_time_ns ns) { return txt_dur(buf, n, ns); }
