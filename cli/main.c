/* cli/main.c: `absim SUBCOMMAND ...`. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} commands[] = {
    { "run", cli_run, "run a scenario file and check its expectations" },
    { "swarm", cli_swarm, "run a scenario over many seeds in parallel processes" },
    { "explore", cli_explore, "every single fault at every protocol point of a small job, each run checked" },
    { "merge", cli_merge, "the shards of one swarm or explore campaign as one report" },
    { "replay", cli_replay, "re-run one seed and check its trace hash" },
    { "explain", cli_explain, "narrate a scenario's run, one line per protocol step" },
    { "diff", cli_diff, "one scenario under several checkpoint modes, side by side" },
    { "coverage", cli_coverage, "list the protocol's reach points (run/swarm --coverage FILE counts them)" },
    { "bugs", cli_bugs, "measure the checkers: every deliberate bug must be caught" },
    { "shrink", cli_shrink, "minimise a failing seed's scenario for scenarios/regress/" },
    { "generate", cli_generate, "a job shape drawn for a seed, as a scenario file" },
    { "bench", cli_bench, "benchmarks: PHOLD (kernel), pipeline (protocol model)" },
    { "demo", cli_kernel_demo, "a small kernel run with links, crashes and a partition, narrated" },
    { "gate", cli_gate, "one task's input gate by hand: barriers, alignment, cancel markers" },
    { "coord", cli_coord, "Flink's checkpoint coordinator rules by hand: triggers, queue, failures" },
    { "import", cli_import, "a scenario file from a Flink job's plan and configuration" },
    { "conform", cli_conform, "check a real Flink run's checkpoint history against the protocol's rules" },
};

static void usage(FILE *f) {
    fprintf(f, "usage: absim COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].what);
    }
    fprintf(f, "\n'absim COMMAND --help' describes each command; 'absim --version' names the build.\n");
}

int main(int argc, char **argv) {
    cli_self_set(argc > 0 ? argv[0] : NULL);
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {      /* the build: its commit, from git describe at build time */
        printf("absim %s\n", ABSIM_BUILD);
        return cli_stdout_ok("absim") ? CLI_OK : CLI_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) != 0) continue;
        int rc = commands[i].fn(argc - 1, argv + 1);
        /* Output that did not reach stdout (a full disk, a closed pipe) is
         * a failed command, whatever it found (commands that already said
         * so returned CLI_USAGE). */
        if (rc != CLI_USAGE && !cli_stdout_ok("absim")) return CLI_USAGE;
        return rc;
    }
    fprintf(stderr, "absim: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
