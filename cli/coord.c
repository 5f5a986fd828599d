/* cli/coord.c: `absim coord`, the checkpoint coordinator's rules by hand
 * (model/flow/ckrules.h): time passes, checkpoints complete or fail, and
 * the command prints what Flink's coordinator does. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../model/flow/ckrules.h"
#include "cli.h"

static void coord_usage(FILE *f) {
    fprintf(f,
            "usage: absim coord --interval MS [--min-pause MS] [--max-concurrent N]\n"
            "                   [--timeout MS] [--tolerable N] [--first-delay MS] [TOKEN...]\n"
            "\n"
            "Plays Flink's checkpoint coordinator rules (CheckpointCoordinator's periodic\n"
            "scheduler, CheckpointRequestDecider, CheckpointFailureManager; Flink 1.15 to\n"
            "2.x) by hand, in whole milliseconds as Flink counts them, and prints what the\n"
            "coordinator does. Without TOKEN arguments, tokens are read from standard input\n"
            "(whitespace separated, '#' to the end of the line is a comment). Each token\n"
            "first lets time pass to T (the periodic trigger fires and pending checkpoints\n"
            "expire on their way), then happens at T; T never goes back.\n"
            "\n"
            "tokens (K: a checkpoint id, T: a time in ms):\n"
            "  start@T     the job turns RUNNING: the scheduler starts, its first firing\n"
            "              --first-delay later (Flink draws it in [min-pause, interval])\n"
            "  stop@T      the job leaves RUNNING: pending checkpoints and queued requests go\n"
            "  wait@T      time passes to T\n"
            "  ackK@T      every acknowledgement of K is in: it completes\n"
            "  declineK@T  a task declines K, its snapshot failed (counted)\n"
            "  cancelK@T   a task's barrier handling aborts K (not counted)\n"
            "  down@T      some task to trigger is not running (requests fail)\n"
            "  up@T        every task runs again\n"
            "\n"
            "output, one line per action: t=T arm T2 | trigger K | complete K |\n"
            "  abort K REASON | drop REASON | fail-job (REASON as Flink's CheckpointFailureReason);\n"
            "  after fail-job the job fails over: stop@T, then start@T once it runs again\n"
            "\n"
            "  --interval MS        execution.checkpointing.interval (required)\n"
            "  --min-pause MS       execution.checkpointing.min-pause (default 0)\n"
            "  --max-concurrent N   execution.checkpointing.max-concurrent-checkpoints (default 1)\n"
            "  --timeout MS         execution.checkpointing.timeout (default 600000: 10 min)\n"
            "  --tolerable N        execution.checkpointing.tolerable-failed-checkpoints (default 0)\n"
            "  --first-delay MS     the scheduler's first delay (default: the base interval)\n"
            "\n"
            "example: absim coord --interval 10 --max-concurrent 1 start@0 wait@25 ack1@27\n");
}

typedef struct driver {
    ckr      k;
    int64_t  now, first_delay;
    bool     ready;
} driver;

static void print_acts(const driver *d, const ckr_acts *a) {
    for (uint32_t i = 0; i < a->count; i++) {
        const ckr_act *x = &a->items[i];
        printf("t=%lld ", (long long)d->now);
        switch (x->kind) {
        case CKR_ARM:      printf("arm %lld\n", (long long)x->at); break;
        case CKR_TRIGGER:  printf("trigger %llu\n", (unsigned long long)x->id); break;
        case CKR_COMPLETE: printf("complete %llu\n", (unsigned long long)x->id); break;
        case CKR_ABORT:    printf("abort %llu %s\n", (unsigned long long)x->id, ckr_why_name(x->why)); break;
        case CKR_DROP:     printf("drop %s\n", ckr_why_name(x->why)); break;
        case CKR_FAIL_JOB: printf("fail-job\n"); break;
        }
    }
}

/* Time passes to t: the armed trigger fires and deadlines pass, in order. */
static void advance(driver *d, int64_t t) {
    for (;;) {
        int64_t due = ckr_next_deadline(&d->k), fire = d->k.scheduling ? d->k.next_fire : INT64_MAX;
        int64_t next = fire <= due ? fire : due;
        if (next > t) break;
        d->now = next > d->now ? next : d->now;
        ckr_acts a = { .count = 0 };
        if (fire <= due) ckr_fire(&d->k, d->now, d->k.gen, d->ready, &a);
        else ckr_expire(&d->k, d->now, d->ready, &a);
        print_acts(d, &a);
    }
    d->now = t;
}

/* One token; false with a message in err. */
static bool feed(driver *d, const char *tok, char *err, size_t n) {
    const char *at = strchr(tok, '@');
    char *end;
    if (at == NULL || at[1] == '\0') return snprintf(err, n, "'%s': expected NAME@T", tok), false;
    long long t = strtoll(at + 1, &end, 10);
    if (*end != '\0' || t < 0) return snprintf(err, n, "'%s': T must be a whole number of ms", tok), false;
    if (t < d->now) return snprintf(err, n, "'%s': time goes back (now %lld)", tok, (long long)d->now), false;
    static const char *const ids[] = { "ack", "decline", "cancel" };
    size_t len = (size_t)(at - tok);
    advance(d, t);
    ckr_acts a = { .count = 0 };
    for (int i = 0; i < 3; i++) {
        size_t m = strlen(ids[i]);
        if (len <= m || strncmp(tok, ids[i], m) != 0) continue;
        unsigned long long k = strtoull(tok + m, &end, 10);
        if (end != at || k == 0) return snprintf(err, n, "'%s': expected a checkpoint id after %s", tok, ids[i]), false;
        if (!ckr_is_pending(&d->k, k)) return snprintf(err, n, "'%s': checkpoint %llu is not pending", tok, k), false;
        if (i == 0) ckr_complete(&d->k, k, d->now, d->ready, &a);
        else ckr_abort(&d->k, k, i == 1 ? CKR_DECLINED : CKR_DECLINED_BY_BARRIERS, 0, d->now, d->ready, &a);
        print_acts(d, &a);
        return true;
    }
    if (len == 5 && strncmp(tok, "start", 5) == 0) ckr_start(&d->k, d->now, d->first_delay, &a);
    else if (len == 4 && strncmp(tok, "stop", 4) == 0) ckr_stop(&d->k, &a);
    else if (len == 4 && strncmp(tok, "wait", 4) == 0) {}
    else if (len == 4 && strncmp(tok, "down", 4) == 0) d->ready = false;
    else if (len == 2 && strncmp(tok, "up", 2) == 0) d->ready = true;
    else return snprintf(err, n, "'%s': unknown token (start, stop, wait, ackK, declineK, cancelK, down, up)", tok), false;
    print_acts(d, &a);
    return true;
}

/* Tokens from f, '#' comments to the end of a line; errors name line and column. */
static int feed_stream(driver *d, FILE *f) {
    char tok[64], err[160];
    uint32_t line = 1, col = 0, tok_col = 0;
    size_t len = 0;
    bool comment = false;
    for (int ch = 0; ch != EOF;) {
        ch = fgetc(f);
        col++;
        bool sep = ch == EOF || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '#';
        comment |= ch == '#';
        if (!comment && !sep) {
            if (len == 0) tok_col = col;
            if (len == sizeof tok - 1) return fprintf(stderr, "<stdin>:%u:%u: token too long\n", line, tok_col), CLI_USAGE;
            tok[len++] = (char)ch;
            continue;
        }
        if (len > 0) {
            tok[len] = '\0';
            len = 0;
            if (!feed(d, tok, err, sizeof err)) return fprintf(stderr, "<stdin>:%u:%u: %s\n", line, tok_col, err), CLI_USAGE;
        }
        if (ch == '\n') {
            line++;
            col = 0;
            comment = false;
        }
    }
    return CLI_OK;
}

int cli_coord(int argc, char **argv) {
    static const struct option opts[] = {
        { "interval", required_argument, NULL, 'i' }, { "min-pause", required_argument, NULL, 'p' },
        { "max-concurrent", required_argument, NULL, 'c' }, { "timeout", required_argument, NULL, 't' },
        { "tolerable", required_argument, NULL, 'f' }, { "first-delay", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim coord";
    uint64_t interval = 0, pause = 0, conc = 1, timeout = 600000, tolerable = 0, first = UINT64_MAX;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'i': ok = cli_parse_u64(prog, "--interval", optarg, 1, INT32_MAX, &interval); break;
        case 'p': ok = cli_parse_u64(prog, "--min-pause", optarg, 0, INT32_MAX, &pause); break;
        case 'c': ok = cli_parse_u64(prog, "--max-concurrent", optarg, 1, CKR_PENDING_MAX, &conc); break;
        case 't': ok = cli_parse_u64(prog, "--timeout", optarg, 1, INT32_MAX, &timeout); break;
        case 'f': ok = cli_parse_u64(prog, "--tolerable", optarg, 0, INT32_MAX, &tolerable); break;
        case 'd': ok = cli_parse_u64(prog, "--first-delay", optarg, 0, INT32_MAX, &first); break;
        case 'h': coord_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
        if (!ok) return CLI_USAGE;
    }
    if (interval == 0) return fprintf(stderr, "%s: --interval is required (see --help)\n", prog), CLI_USAGE;
    driver *d = calloc(1, sizeof *d);
    if (d == NULL) return fprintf(stderr, "%s: out of memory\n", prog), CLI_FAIL;
    ckr_cfg cfg = { .interval = (int64_t)interval, .min_pause = (int64_t)pause, .timeout = (int64_t)timeout,
                    .max_concurrent = (uint32_t)conc, .tolerable = (uint32_t)tolerable };
    ckr_init(&d->k, &cfg, 1);
    int64_t lo, hi;
    ckr_init_delay_range(&d->k, &lo, &hi);
    d->first_delay = first == UINT64_MAX ? hi : (int64_t)first;
    d->ready = true;
    int rc = CLI_OK;
    if (d->first_delay < lo || d->first_delay > hi) {
        fprintf(stderr, "%s: --first-delay %lld is outside [%lld, %lld] (min-pause, max(interval, min-pause))\n",
                prog, (long long)d->first_delay, (long long)lo, (long long)hi);
        rc = CLI_USAGE;
    } else if (optind == argc) {
        rc = feed_stream(d, stdin);
    } else {
        char err[160];
        for (int i = optind; i < argc && rc == CLI_OK; i++) {
            if (!feed(d, argv[i], err, sizeof err)) {
                fprintf(stderr, "%s: at index %d: %s\n", prog, i - optind, err);
                rc = CLI_USAGE;
            }
        }
    }
    fflush(stdout);
    free(d);
    return rc;
}
