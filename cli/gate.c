/* cli/gate.c: `absim gate`, one input gate by hand (model/flow/gatesim.h). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../model/flow/gatesim.h"
#include "cli.h"

static void gate_usage(FILE *f) {
    fprintf(f,
            "usage: absim gate --mode aligned|at-least-once|unaligned --channels N\n"
            "                  [--legacy-eop] [--show-blocked] [TOKEN...]\n"
            "\n"
            "Feeds tokens to one task's input gate, running the same barrier handler\n"
            "as the simulated tasks, and prints what the task does. Without TOKEN\n"
            "arguments, tokens are read from standard input (whitespace separated,\n"
            "'#' to the end of the line is a comment).\n"
            "\n"
            "tokens (C: channel 0..N-1, K: checkpoint id >= 1; a token's index is its\n"
            "0-based position):\n"
            "  r@C    a record on channel C\n"
            "  bK@C   the barrier of checkpoint K on channel C\n"
            "  xK@C   a cancel marker for checkpoint K on channel C\n"
            "  e@C    end of partition on channel C (nothing may follow on C)\n"
            "  pK@C   a priority (unaligned) barrier of K on C: taken on arrival,\n"
            "         it overtakes the records queued on C\n"
            "  tK     the alignment timeout of checkpoint K fires (aligned mode:\n"
            "         K switches to unaligned and triggers at once)\n"
            "\n"
            "output, one line per action:\n"
            "  emit I       the operator processed record or end-of-partition token I\n"
            "  trigger K    the task triggers checkpoint K\n"
            "  abort K      the task aborts checkpoint K\n"
            "  persist K I  unaligned (or switched): record I is saved as channel state\n"
            "               of K (consumed before its channel's barrier, or overtaken)\n"
            "  blocked C,.. with --show-blocked, after each token (\"blocked\" alone: none)\n"
            "\n"
            "  --legacy-eop  end of partition aborts pending checkpoints (Flink < 1.14)\n"
            "                instead of counting as that channel's barrier\n"
            "\n"
            "example: absim gate --mode aligned --channels 2 r@0 b1@0 r@0 r@1 b1@1\n"
            "         absim gate --mode aligned --channels 2 b1@0 r@0 r@1 t1 r@1 b1@1\n");
}

/* Reads whitespace-separated tokens from f, '#' comments to the end of a
 * line; feeds each one; errors name line and column. */
static int feed_stream(const char *prog, gatesim *s, FILE *f) {
    char tok[64], err[256];
    uint32_t line = 1, col = 0, tok_line = 0, tok_col = 0;
    size_t len = 0;
    bool comment = false, too_long = false;
    for (;;) {
        int ch = fgetc(f);
        col++;
        bool sep = ch == EOF || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '#';
        if (ch == '#') comment = true;
        if (!comment && !sep) {
            if (len == 0) {
                tok_line = line;
                tok_col = col;
            }
            if (len < sizeof tok - 1) tok[len++] = (char)ch; else too_long = true;
            continue;
        }
        if (len > 0) {
            tok[len] = '\0';
            gatesim_token t;
            if (too_long) {
                fprintf(stderr, "<stdin>:%u:%u: token '%s...' is too long\n", tok_line, tok_col, tok);
                return CLI_USAGE;
            }
            if (!gatesim_parse(tok, s->g.channels, &t, err, sizeof err) ||
                !gatesim_feed(s, &t, err, sizeof err)) {
                fprintf(stderr, "<stdin>:%u:%u: %s\n", tok_line, tok_col, err);
                return CLI_USAGE;
            }
            len = 0;
        }
        if (ch == '\n') {
            line++;
            col = 0;
            comment = false;
        }
        if (ch == EOF) break;
    }
    (void)prog;
    return CLI_OK;
}

/* Feeds the n tokens given as arguments, stopping at the first bad one;
 * errors name its index (a token's 0-based position, as --help says). */
static int feed_args(const char *prog, gatesim *s, int n, char **tokens) {
    char err[256];
    for (int i = 0; i < n; i++) {
        gatesim_token t;
        if (!gatesim_parse(tokens[i], s->g.channels, &t, err, sizeof err) ||
            !gatesim_feed(s, &t, err, sizeof err)) {
            fprintf(stderr, "%s: at index %d: %s\n", prog, i, err);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

int cli_gate(int argc, char **argv) {
    static const struct option opts[] = {
        { "mode", required_argument, NULL, 'm' },
        { "channels", required_argument, NULL, 'c' },
        { "legacy-eop", no_argument, NULL, 'l' },
        { "show-blocked", no_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim gate";
    gate_mode mode = 0;
    uint64_t channels = 0;
    bool legacy = false, show_blocked = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            for (gate_mode m = GATE_ALIGNED; m <= GATE_UNALIGNED; m++) {
                if (strcmp(optarg, gate_mode_name(m)) == 0) mode = m;
            }
            if (mode == 0) {
                fprintf(stderr, "%s: --mode '%s': expected aligned, at-least-once or unaligned\n", prog, optarg);
                return CLI_USAGE;
            }
            break;
        case 'c':
            if (!cli_parse_u64(prog, "--channels", optarg, 1, GATE_CHANNELS_MAX, &channels)) return CLI_USAGE;
            break;
        case 'l': legacy = true; break;
        case 'b': show_blocked = true; break;
        case 'h': gate_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (mode == 0 || channels == 0) {
        fprintf(stderr, "%s: --mode and --channels are required (see --help)\n", prog);
        return CLI_USAGE;
    }
    gatesim_token *tokens = malloc(sizeof *tokens * GATESIM_TOKENS_MAX);
    uint32_t *next = malloc(sizeof *next * GATESIM_TOKENS_MAX);
    gatesim *s = malloc(sizeof *s);
    if (tokens == NULL || next == NULL || s == NULL) {
        free(tokens);
        free(next);
        free(s);
        fprintf(stderr, "%s: out of memory\n", prog);
        return CLI_FAIL;
    }
    gatesim_init(s, mode, (uint32_t)channels, legacy, show_blocked, tokens, next, GATESIM_TOKENS_MAX, stdout);
    int rc = optind == argc ? feed_stream(prog, s, stdin) : feed_args(prog, s, argc - optind, argv + optind);
    fflush(stdout);
    free(tokens);
    free(next);
    free(s);
    return rc;
}
