/* flink/fval.c: configuration values as Flink parses them (see fval.h). */
#include "fval.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool fval_java_space(char c) {
    return (unsigned char)c <= ' ';
}

void fval_trim(const char *text, char *buf, size_t n) {
    assert(text != NULL && buf != NULL && n > 0);
    while (*text != '\0' && fval_java_space(*text)) text++;
    size_t len = strlen(text);
    while (len > 0 && fval_java_space(text[len - 1])) len--;
    if (len > n - 1) len = n - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
}

/* TimeUtils.TimeUnit's labels, each with the nanoseconds of its unit; a
 * plural label is listed with and without its 's', as TimeUnit.plural()
 * adds it. */
static const struct {
    const char *label;
    int64_t     unit_ns;
} dur_units[] = {
    { "d", 86400000000000LL },  { "day", 86400000000000LL },   { "days", 86400000000000LL },
    { "h", 3600000000000LL },   { "hour", 3600000000000LL },   { "hours", 3600000000000LL },
    { "min", 60000000000LL },   { "m", 60000000000LL },        /* "m" since 1.15, FLINK-24886 */
    { "minute", 60000000000LL }, { "minutes", 60000000000LL },
    { "s", 1000000000LL },      { "sec", 1000000000LL },       { "secs", 1000000000LL },
    { "second", 1000000000LL }, { "seconds", 1000000000LL },
    { "ms", 1000000LL },        { "milli", 1000000LL },        { "millis", 1000000LL },
    { "millisecond", 1000000LL }, { "milliseconds", 1000000LL },
    { "\xc2\xb5s", 1000LL },    { "micro", 1000LL },           { "micros", 1000LL },
    { "microsecond", 1000LL },  { "microseconds", 1000LL },
    { "ns", 1LL },              { "nano", 1LL },               { "nanos", 1LL },
    { "nanosecond", 1LL },      { "nanoseconds", 1LL },
};

/* The unit label lower-cased as toLowerCase(Locale.US) does for ASCII; a
 * label longer than any of Flink's cannot match. */
static int64_t dur_unit_ns(const char *label) {
    char low[16];
    size_t n = strlen(label);
    if (n >= sizeof low) return 0;
    for (size_t i = 0; i <= n; i++) {
        char c = label[i];
        low[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    for (size_t i = 0; i < sizeof dur_units / sizeof dur_units[0]; i++) {
        if (strcmp(low, dur_units[i].label) == 0) return dur_units[i].unit_ns;
    }
    return 0;
}

bool fval_duration_ns(const char *text, int64_t *out_ns, const char **why) {
    assert(text != NULL && out_ns != NULL && why != NULL);
    char t[64];
    if (strlen(text) >= sizeof t) { *why = "not a duration (too long)"; return false; }
    fval_trim(text, t, sizeof t);
    if (t[0] == '\0') { *why = "an empty duration"; return false; }
    size_t pos = 0;
    while (t[pos] >= '0' && t[pos] <= '9') pos++;
    if (pos == 0) { *why = "a duration must start with a number (Flink's TimeUtils.parseDuration: no sign, no fraction)"; return false; }
    char unit[48];
    fval_trim(t + pos, unit, sizeof unit);
    int64_t unit_ns = unit[0] == '\0' ? 1000000LL : dur_unit_ns(unit);
    if (unit_ns == 0) {
        *why = "not a unit Flink knows (d, h, min, s, ms, us as \xc2\xb5s, ns, or their words: day, hour, minute, sec, second, milli, micro, nano)";
        return false;
    }
    int64_t v = 0;
    for (size_t i = 0; i < pos; i++) {
        int d = t[i] - '0';
        if (v > (INT64_MAX - d) / 10) { *why = "a number above 64 bits (Flink refuses it too)"; return false; }
        v = v * 10 + d;
    }
    if (v > INT64_MAX / unit_ns) { *why = "a duration above 292 years (absim counts in 64-bit nanoseconds)"; return false; }
    *out_ns = v * unit_ns;
    return true;
}

static bool ascii_ieq(const char *a, const char *b) {
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        char y = (*b >= 'A' && *b <= 'Z') ? (char)(*b - 'A' + 'a') : *b;
        if (x != y) return false;
    }
    return *a == *b;
}

bool fval_bool(const char *text, bool *out, const char **why) {
    assert(text != NULL && out != NULL && why != NULL);
    if (ascii_ieq(text, "true")) { *out = true; return true; }
    if (ascii_ieq(text, "false")) { *out = false; return true; }
    *why = "not a boolean (Flink takes true or false, in any case)";
    return false;
}

bool fval_int(const char *text, int64_t lo, int64_t hi, int64_t *out, const char **why) {
    assert(text != NULL && out != NULL && why != NULL && lo <= hi);
    const char *p = text;
    if (*p == '+' || *p == '-') p++;
    if (*p == '\0') { *why = "not an integer"; return false; }
    for (const char *q = p; *q != '\0'; q++) {
        if (*q < '0' || *q > '9') { *why = "not an integer (digits only, as Java's parseInt)"; return false; }
    }
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    if (errno == ERANGE) { *why = "an integer above 64 bits"; return false; }
    if (v < lo || v > hi) { *why = "an integer out of range"; return false; }
    *out = (int64_t)v;
    return true;
}

bool fval_double(const char *text, double *out, const char **why) {
    assert(text != NULL && out != NULL && why != NULL);
    char t[64];
    fval_trim(text, t, sizeof t);
    size_t n = strlen(t);
    if (n > 0 && strchr("dDfF", t[n - 1]) != NULL) t[--n] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(t, &end);
    if (n == 0 || end != t + n || errno == ERANGE || !isfinite(v) || strpbrk(t, "xXpP") != NULL) {
        *why = "not a finite decimal number";
        return false;
    }
    *out = v;
    return true;
}

int fval_enum(const char *text, const char *const *names) {
    assert(text != NULL && names != NULL);
    for (int i = 0; names[i] != NULL; i++) {
        if (ascii_ieq(text, names[i])) return i;
    }
    return -1;
}
