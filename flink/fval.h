/* flink/fval.h: one configuration value's text read the way Flink reads it.
 *
 * Contract: each function takes the text of one value (NUL-terminated, as a
 * flink-conf.yaml line, a config.yaml scalar or a JSON field holds it), and
 * either fills *out and returns true, or returns false with *why pointing to
 * a static sentence that says what is wrong. No allocation, no state. The
 * Flink method each one follows is named at it; tests/test_fval.c holds them
 * to the cases of Flink's own unit tests (TimeUtilsTest,
 * ConfigurationConversionsTest). */
#ifndef FVAL_H
#define FVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* org.apache.flink.util.TimeUtils.parseDuration (Flink 1.10 to 2.x): digits,
 * optional whitespace, an optional unit label (case-insensitive): d day(s),
 * h hour(s), min minute(s) (and m since 1.15, FLINK-24886), s sec(s) second(s), ms
 * milli(s) millisecond(s), µs micro(s) microsecond(s), ns nano(s)
 * nanosecond(s); no unit means milliseconds. No sign, no fraction. Above
 * int64 nanoseconds (292 years) absim refuses what Flink would accept. */
bool fval_duration_ns(const char *text, int64_t *out_ns, const char **why);

/* ConfigurationUtils.convertToBoolean: "true" or "false", any case. */
bool fval_bool(const char *text, bool *out, const char **why);

/* Integer.parseInt / Long.parseLong: an optional sign and decimal digits,
 * nothing else (Java refuses surrounding whitespace); then within [lo, hi]. */
bool fval_int(const char *text, int64_t lo, int64_t hi, int64_t *out, const char **why);

/* Double.parseDouble, for a multiplier or a jitter factor: a finite decimal
 * number (Java's trailing 'd' or 'f' suffix too). */
bool fval_double(const char *text, double *out, const char **why);

/* ConfigurationUtils.convertToEnum: the constant whose name equals the text
 * in any case; names ends with NULL. Returns the index or -1. */
int fval_enum(const char *text, const char *const *names);

/* Java's String.trim(): the text without the characters <= ' ' at either
 * end (fval_java_space), copied into buf (cut to n - 1 bytes). */
bool fval_java_space(char c);
void fval_trim(const char *text, char *buf, size_t n);

#endif
