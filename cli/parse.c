/* cli/parse.c: strict number parsing for command-line options. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>

bool cli_parse_u64(const char *prog, const char *opt, const char *text, uint64_t lo, uint64_t hi,
                   uint64_t *out) {
    /* Decimal, or hexadecimal after 0x. Not octal: "010" is ten, as a
     * person reading a scenario or a shell history would take it. No sign,
     * no spaces (strtoull would skip them silently). */
    char *end = NULL;
    errno = 0;
    int base = 10;
    const char *digits = text;
    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        digits = text + 2;
    }
    if (!isxdigit((unsigned char)digits[0]) || (base == 10 && !isdigit((unsigned char)digits[0]))) goto bad;
    unsigned long long v = strtoull(digits, &end, base);
    if (errno != 0 || end == digits || *end != '\0') goto bad;
    if (v < lo || v > hi) {
        fprintf(stderr, "%s: %s %s: out of range [%" PRIu64 ", %" PRIu64 "]\n", prog, opt, text, lo, hi);
        return false;
    }
    *out = v;
    return true;
bad:
    fprintf(stderr, "%s: %s '%s': not a whole number\n", prog, opt, text);
    return false;
}

/* A probability written as a decimal in [0, 1] with at most six digits after
 * the point ("0.9", "0.000125", "1"), read exactly as num / 10^6 without
 * going through a float. */
bool cli_parse_ratio(const char *prog, const char *opt, const char *text, sim_ratio *out) {
    const char *p = text;
    uint32_t whole = 0, frac = 0, digits = 0;
    if (*p != '0' && *p != '1') goto bad;
    whole = (uint32_t)(*p++ - '0');
    if (*p == '.') {
        p++;
        if (*p == '\0') goto bad;
        while (*p >= '0' && *p <= '9') {
            if (++digits > 6) goto bad;
            frac = frac * 10 + (uint32_t)(*p++ - '0');
        }
    }
    if (*p != '\0') goto bad;
    while (digits++ < 6) frac *= 10;
    if (whole == 1 && frac != 0) goto bad;
    *out = (sim_ratio){ .num = whole * 1000000u + frac, .den = 1000000u };
    return true;
bad:
    fprintf(stderr, "%s: %s '%s': expected a probability such as 0.25 (0 to 1, at most 6 decimals)\n",
            prog, opt, text);
    return false;
}

int cli_bad_option(const char *prog, char **argv) {
    fprintf(stderr, "%s: unknown option or missing value: '%s' (see --help)\n", prog, argv[optind - 1]);
    return CLI_USAGE;
}

bool cli_no_operands(const char *prog, int argc, char **argv) {
    if (optind == argc) return true;
    fprintf(stderr, "%s: unexpected argument '%s' (see --help)\n", prog, argv[optind]);
    return false;
}

scn *cli_load_scenario(const char *prog, int argc, char **argv, bool seed_given, uint64_t seed) {
    if (optind + 1 != argc) {
        fprintf(stderr, "%s: expected one scenario file (see --help)\n", prog);
        return NULL;
    }
    scn *s = malloc(sizeof *s);
    char err[SCN_ERR_BYTES];
    if (s == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return NULL;
    }
    if (!scn_load(s, argv[optind], err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        free(s);
        return NULL;
    }
    cli_input_note(argv[optind]);
    if (seed_given) s->cfg.seed = seed;
    return s;
}

bool cli_parse_config_format(const char *prog, const char *text, fconf_format *out) {
    static const char *const formats[] = { "legacy", "yaml", "rest", NULL };
    for (int i = 0; formats[i] != NULL; i++) {
        if (strcmp(text, formats[i]) == 0) {
            *out = (fconf_format)(FCONF_LEGACY + i);
            return true;
        }
    }
    fprintf(stderr, "%s: --config-format %s: legacy, yaml or rest\n", prog, text);
    return false;
}

bool cli_parse_range(const char *prog, const char *text, uint64_t most, uint64_t *a, uint64_t *b) {
    const char *dots = strstr(text, "..");
    char first[32];
    size_t n = dots != NULL ? (size_t)(dots - text) : 0;
    if (dots == NULL || n == 0 || n >= sizeof first) {
        fprintf(stderr, "%s: --seeds '%s': expected A..B\n", prog, text);
        return false;
    }
    memcpy(first, text, n);
    first[n] = '\0';
    if (!cli_parse_u64(prog, "--seeds", first, 0, UINT64_MAX, a)) return false;
    if (!cli_parse_u64(prog, "--seeds", dots + 2, *a, UINT64_MAX, b)) return false;
    if (*b - *a >= most) {
        fprintf(stderr, "%s: --seeds: at most %llu seeds at once\n", prog, (unsigned long long)most);
        return false;
    }
    return true;
}

bool cli_parse_faults(const char *prog, const char *text, bool *random_faults, uint8_t *profile) {
    bool random = strcmp(text, "random") == 0, buggify = strcmp(text, "buggify") == 0;
    if (random || buggify) {
        *random_faults = true;
        *profile = buggify ? SCN_PROFILE_BUGGIFY : SCN_PROFILE_RANDOM;
        return true;
    }
    fprintf(stderr, "%s: --faults '%s': the profiles are 'random' and 'buggify'\n", prog, text);
    return false;
}

const char *cli_faults_words(bool random_faults, uint8_t profile) {
    if (!random_faults) return "";
    return profile == SCN_PROFILE_BUGGIFY ? " --faults buggify" : " --faults random";
}

bool cli_parse_pct(const char *prog, const char *text, cli_pct *o) {
    char *end = NULL;
    *o = (cli_pct){ 0 };
    errno = 0;
    unsigned long long d = isdigit((unsigned char)text[0]) ? strtoull(text, &end, 10) : 0;
    bool ok = d >= 1 && d <= CHOICE_PCT_DEPTH_MAX && errno == 0;
    if (ok && *end == '/') {
        const char *k = end + 1;
        unsigned long long steps = isdigit((unsigned char)k[0]) ? strtoull(k, &end, 10) : 0;
        ok = steps >= 1 && steps <= 1ull << 40 && errno == 0;
        o->steps = steps;
    }
    if (ok && *end == '~') {                     /* the rest is the near window */
        char err[SCN_ERR_BYTES];
        ok = scn_parse_duration(end + 1, &o->near_ns, err, sizeof err) && o->near_ns > 0 &&
             o->near_ns <= PIPE_PCT_NEAR_MAX_NS;
        end += strlen(end);
    }
    if (!ok || *end != '\0') {
        fprintf(stderr, "%s: --pct '%s': expected DEPTH (1 to %u), DEPTH/STEPS (STEPS from 1 to 2^40), and ~NEAR "
                "after either (a duration from 1ns to 100us), as in --pct 3, --pct 3/250 or --pct 3~20us\n", prog, text,
                CHOICE_PCT_DEPTH_MAX);
        return false;
    }
    o->depth = (uint32_t)d;
    return true;
}

bool cli_apply_pct(const char *prog, scn *s, const cli_pct *o) {
    if (o->depth == 0) return true;
    if (s->cfg.ties_count > 0) {
        fprintf(stderr, "%s: --pct: %s has a schedule tie line (one order of simultaneous events at a time): drop "
                "one of them\n", prog, s->path);
        return false;
    }
    s->cfg.pct_depth = o->depth;
    s->cfg.pct_steps = o->steps;
    s->cfg.pct_near_ns = o->near_ns;
    return true;
}

const char *cli_pct_value(const cli_pct *o, char *buf, size_t n) {
    char steps[32] = "", near[40] = "", d[32];
    if (o->depth == 0) {
        snprintf(buf, n, "none");
        return buf;
    }
    if (o->steps > 0) snprintf(steps, sizeof steps, "/%" PRIu64, o->steps);
    if (o->near_ns > 0) snprintf(near, sizeof near, "~%s", scn_duration_text(d, sizeof d, o->near_ns));
    snprintf(buf, n, "%u%s%s", o->depth, steps, near);
    return buf;
}

const char *cli_pct_words(const cli_pct *o, char *buf, size_t n) {
    char value[40];
    snprintf(buf, n, "%s%s", o->depth > 0 ? " --pct " : "", o->depth > 0 ? cli_pct_value(o, value, sizeof value) : "");
    return buf;
}

bool cli_parse_bug(const char *prog, const char *text, pipe_bug *bug) {
    for (pipe_bug b = PIPE_BUG_NO_ALIGNMENT; b < PIPE_BUG_COUNT; b++) {
        if (strcmp(text, pipe_bug_name(b)) == 0) {
            *bug = b;
            return true;
        }
    }
    fprintf(stderr, "%s: --bug '%s': unknown; the deliberate bugs are", prog, text);
    for (pipe_bug b = PIPE_BUG_NO_ALIGNMENT; b < PIPE_BUG_COUNT; b++) {
        fprintf(stderr, "%s %s", b == PIPE_BUG_NO_ALIGNMENT ? "" : ",", pipe_bug_name(b));
    }
    fprintf(stderr, "\n");
    return false;
}

bool cli_parse_shard(const char *prog, const char *text, uint64_t *i, uint64_t *n) {
    const char *slash = strchr(text, '/');
    char first[24];
    if (slash == NULL || slash == text || (size_t)(slash - text) >= sizeof first) {
        fprintf(stderr, "%s: --shard '%s': expected I/N, as 0/4\n", prog, text);
        return false;
    }
    memcpy(first, text, (size_t)(slash - text));
    first[slash - text] = '\0';
    return cli_parse_u64(prog, "--shard", slash + 1, 1, 1u << 20, n) &&
           cli_parse_u64(prog, "--shard", first, 0, *n - 1, i);
}
