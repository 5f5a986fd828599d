/* cli/coverage.c: protocol coverage (model/pipe.h, pipe_reach): `absim
 * coverage` lists the reach points; `run` and `swarm` take --coverage
 * FILE and write every point's count as one JSON object, zero counts
 * too (through cli_out: a failed command leaves no truncated file), and
 * print the points a run or campaign did not reach. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

bool cli_cov_write(FILE *f, const uint64_t *counts) {
    bool ok = fputc('{', f) != EOF;
    for (uint32_t r = 0; r < PIPE_REACH_COUNT && ok; r++) {
        ok = fprintf(f, "%s\"%s\":%llu", r ? "," : "", pipe_reach_info_of((pipe_reach)r)->name,
                     (unsigned long long)counts[r]) > 0;
    }
    return ok && fputs("}\n", f) != EOF;
}

uint32_t cli_cov_report(FILE *f, const uint64_t *counts) {
    uint32_t missing = 0;
    for (uint32_t r = 0; r < PIPE_REACH_COUNT; r++) missing += counts[r] == 0;
    fprintf(f, "coverage: %u of %u reach points reached", PIPE_REACH_COUNT - missing, PIPE_REACH_COUNT);
    const char *sep = "; not reached: ";
    for (uint32_t r = 0; r < PIPE_REACH_COUNT; r++) {
        if (counts[r] != 0) continue;
        fprintf(f, "%s%s", sep, pipe_reach_info_of((pipe_reach)r)->name);
        sep = ", ";
    }
    fputc('\n', f);
    return missing;
}

static void usage(FILE *f) {
    fprintf(f, "usage: absim coverage [--json]\n"
               "\n"
               "Lists the protocol's reach points: the situations a campaign should drive\n"
               "the protocol into (a decline, a cancel marker per gate mode, an alignment\n"
               "timeout, a restore from an incremental chain, each restart strategy\n"
               "restarting and giving up, ...). 'absim run' and 'absim swarm' take\n"
               "--coverage FILE: they write every point's count as one JSON object\n"
               "{\"point\": count, ...} (zero counts too) and print the points not reached.\n"
               "  --json  one JSON array of {\"name\", \"what\"} instead of the table\n");
}

int cli_coverage(int argc, char **argv) {
    static const struct option opts[] = {
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim coverage";
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = true; break;
        case 'h': usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (!cli_no_operands(prog, argc, argv)) return CLI_USAGE;
    for (uint32_t r = 0; r < PIPE_REACH_COUNT; r++) {
        const pipe_reach_info *i = pipe_reach_info_of((pipe_reach)r);
        if (json) {
            printf("%s{\"name\":\"%s\",\"what\":\"%s\"}", r ? "," : "[", i->name, i->what);
        } else {
            printf("%-36s %s\n", i->name, i->what);
        }
    }
    if (json) printf("]\n");
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: writing the list failed\n", prog);
        return CLI_USAGE;
    }
    return CLI_OK;
}
