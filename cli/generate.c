/* cli/generate.c: `absim generate`: job shapes drawn per seed
 * (scenarios/gen.h) as scenario files, for campaigns over shapes no
 * hand-written file has. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "../scenarios/gen.h"

#define GENERATE_FILES_MAX 10000u

static void usage(FILE *f) {
    fprintf(f, "usage: absim generate --seed S [-o FILE]\n"
               "       absim generate --seeds A..B --dir DIR\n"
               "\n"
               "Draws a job shape for the seed and writes it as a scenario file: one\n"
               "source or two into a keyed join, up to three operators (map, filter, keyed\n"
               "aggregate, event-time window), a sink of any output kind, parallelism 1 to\n"
               "4, hash, forward and rebalance edges, 1 to 3 machines, aligned, unaligned\n"
               "or at-least-once checkpoints, the memory or durable backend, a restart\n"
               "strategy that never gives up, and `expect finished` (and `expect\n"
               "exactly-once` with exactly-once checkpoints and keyed state). Every file\n"
               "is one the reader accepts (scenarios/gen.h has the bounds). With --seeds, DIR/gen-S.scn for each seed from A to B (at\n"
               "most %u); DIR must exist. Run them with absim swarm DIR/*.scn --seeds 1..N\n"
               "--faults random.\n"
               "  -o, --out FILE  where to write (default: standard output)\n",
            GENERATE_FILES_MAX);
}

static bool write_one(const char *prog, const char *opt, uint64_t seed, const char *path) {
    char text[GEN_TEXT_BYTES];
    size_t n = gen_job(seed, text, sizeof text);
    cli_out o;
    if (!cli_out_open(prog, opt, path, &o)) return false;
    if (fwrite(text, 1, n, o.f) != n) {
        cli_out_abandon(&o);
        fprintf(stderr, "%s: %s: write failed\n", prog, path);
        return false;
    }
    return cli_out_commit(prog, opt, &o);
}

int cli_generate(int argc, char **argv) {
    const char *prog = "absim generate";
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' }, { "seeds", required_argument, NULL, 'S' },
        { "out", required_argument, NULL, 'o' },  { "dir", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },       { NULL, 0, NULL, 0 },
    };
    uint64_t seed = 0, a = 0, b = 0;
    bool one = false, many = false;
    const char *out = "-", *dir = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        switch (c) {
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE; one = true; break;
        case 'S': if (!cli_parse_range(prog, optarg, GENERATE_FILES_MAX, &a, &b)) return CLI_USAGE; many = true; break;
        case 'o': out = optarg; break;
        case 'd': dir = optarg; break;
        case 'h': usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    if (one == many || (many && dir == NULL) || (one && dir != NULL)) {
        fprintf(stderr, "%s: give --seed S [-o FILE], or --seeds A..B --dir DIR (see --help)\n", prog);
        return CLI_USAGE;
    }
    if (one) return write_one(prog, strcmp(out, "-") == 0 ? "standard output" : "-o", seed, out) ? CLI_OK : CLI_USAGE;
    for (uint64_t s = a;; s++) {                  /* to b inclusive, b may be UINT64_MAX */
        char path[4096];
        snprintf(path, sizeof path, "%s/gen-%" PRIu64 ".scn", dir, s);
        if (!write_one(prog, "--dir", s, path)) return CLI_USAGE;
        if (s == b) break;
    }
    printf("absim generate: %" PRIu64 " files in %s (gen-%" PRIu64 ".scn to gen-%" PRIu64 ".scn)\n", b - a + 1, dir, a, b);
    return cli_stdout_ok(prog) ? CLI_OK : CLI_USAGE;
}
