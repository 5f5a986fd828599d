/* cli/import.c: `absim import PLAN [--config FILE] [-o job.scn]`: a Flink
 * job's plan and configuration, as Flink prints them, made into a scenario
 * file that runs at once. The text is parsed back (scn_parse) before any
 * file is written: a scenario absim cannot read is never left behind. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../flink/fimport.h"
#include "cli.h"

static void import_usage(FILE *f) {
    fprintf(f,
        "usage: absim import PLAN [--config FILE] [-o job.scn] [options]\n\n"
        "Writes a scenario file for a Flink job. PLAN is either plan Flink prints: the\n"
        "StreamGraph JSON (StreamExecutionEnvironment.getExecutionPlan(), `flink info`,\n"
        "SQL EXPLAIN's physical execution plan) or the JobGraph JSON (REST\n"
        "GET /jobs/:jobid/plan, or GET /jobs/:jobid with its `plan` field). Operators are\n"
        "chained as Flink chains them, each recognised by its name (what is not\n"
        "recognised is a stateless map, and the file says so).\n\n"
        "  --config FILE        the configuration: flink-conf.yaml (Flink 1.x's line reader),\n"
        "                       config.yaml (Flink 1.19+), or REST GET\n"
        "                       /jobs/:jobid/checkpoints/config JSON; both key spellings\n"
        "  --config-format F    legacy, yaml or rest (default: by name, then content)\n"
        "  -o, --out FILE       write there (replaced only once all went well); default stdout\n"
        "What a plan does not hold, with absim's defaults (the file names each):\n"
        "  --rate N             records per second per source task (default: at most\n"
        "                       --records in all, at most 1000/s)\n"
        "  --records N          records in all topics together (default 200000)\n"
        "  --input DURATION     how long the sources read (default 10 checkpoint intervals)\n"
        "  --keys N             distinct keys per topic (default 1000)\n"
        "  --keep PCT           what a filter keeps, 0 to 100 (default 100)\n"
        "  --interval DURATION  checkpoint interval when the configuration has none (10s)\n"
        "  --sink-output KIND   plain, idempotent or two-phase-commit for every sink\n"
        "                       (default: by the sink's name)\n"
        "  --seed N             the file's seed (default 1)\n\n"
        "Exit status: 0 written, 2 unreadable input (file:line:col, or a JSON path).\n");
}


/* A duration from 1 ns to a day (the run's bound is three inputs and
 * half an hour: it stays far from overflowing). */
static bool parse_dur(const char *prog, const char *opt, const char *text, int64_t *ns) {
    char err[256] = "";
    sim_time_ns v = 0;
    if (!scn_parse_duration(text, &v, err, sizeof err) || v == 0 || v > 24 * 3600 * SIM_NS_PER_S) {
        fprintf(stderr, "%s: %s %s: a duration above 0 and at most a day, such as 10s%s%s%s\n", prog, opt, text,
                err[0] ? " (" : "", err, err[0] ? ")" : "");
        return false;
    }
    *ns = (int64_t)v;
    return true;
}

static int parse_import(const char *prog, int argc, char **argv, cli_import_req *a) {
    static const struct option opts[] = {
        { "config", required_argument, NULL, 'c' }, { "config-format", required_argument, NULL, 'F' },
        { "out", required_argument, NULL, 'o' },    { "rate", required_argument, NULL, 'r' },
        { "records", required_argument, NULL, 'R' }, { "input", required_argument, NULL, 'i' },
        { "keys", required_argument, NULL, 'k' },   { "keep", required_argument, NULL, 'K' },
        { "interval", required_argument, NULL, 'I' }, { "sink-output", required_argument, NULL, 'S' },
        { "seed", required_argument, NULL, 's' },   { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    static const char *const outputs[] = { "plain", "idempotent", "two-phase-commit", NULL };
    uint64_t v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
        int k = -1;
        switch (c) {
        case 'c': a->config = optarg; break;
        case 'F': if (!cli_parse_config_format(prog, optarg, &a->format)) return CLI_USAGE; break;
        case 'o': a->out = optarg; break;
        case 'r': if (!cli_parse_u64(prog, "--rate", optarg, 1, 1000000, &v)) return CLI_USAGE; a->o.rate_per_s = (uint32_t)v; break;
        case 'R': if (!cli_parse_u64(prog, "--records", optarg, 1, 1u << 30, &v)) return CLI_USAGE; a->o.records_max = (uint32_t)v; break;
        case 'k': if (!cli_parse_u64(prog, "--keys", optarg, 1, 1u << 24, &v)) return CLI_USAGE; a->o.keys = (uint32_t)v; break;
        case 'K': if (!cli_parse_u64(prog, "--keep", optarg, 0, 100, &v)) return CLI_USAGE; a->o.keep_pct = (uint32_t)v; break;
        case 's': if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &a->o.seed)) return CLI_USAGE; break;
        case 'i': if (!parse_dur(prog, "--input", optarg, &a->o.input_ns)) return CLI_USAGE; break;
        case 'I': if (!parse_dur(prog, "--interval", optarg, &a->o.interval_ns)) return CLI_USAGE; break;
        case 'S':
            for (int i = 0; outputs[i] != NULL; i++) k = strcmp(optarg, outputs[i]) == 0 ? i : k;
            if (k < 0) { fprintf(stderr, "%s: --sink-output %s: plain, idempotent or two-phase-commit\n", prog, optarg); return CLI_USAGE; }
            a->o.sink_output = outputs[k];
            break;
        case 'h': import_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "%s: one PLAN file expected (see --help)\n", prog);
        return CLI_USAGE;
    }
    a->plan = argv[optind];
    return -1;
}

/* The command line as it can be typed again, for the file's header. */
static void command_line(int argc, char **argv, char *buf, size_t n) {
    size_t used = (size_t)snprintf(buf, n, "absim");
    for (int i = 0; i < argc && used < n; i++) {
        char w[1024];
        used += (size_t)snprintf(buf + used, n - used, " %s", cli_shell_word(argv[i], w, sizeof w));
    }
}

bool cli_import_text(const char *prog, const cli_import_req *a, int argc, char **argv, char **text, size_t *len,
                     fimp_job *j, uint32_t *unmodelled) {
    char err[FCONF_ERR_BYTES + 1024], cmd[4096];
    fplan p;
    fconf_raw raw;
    fconf c;
    if (!fplan_read(a->plan, &p, err, sizeof err)) { fprintf(stderr, "%s: %s\n", prog, err); return false; }
    bool have_raw = a->config != NULL;
    if (have_raw && !fconf_read(a->config, a->format, &raw, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", prog, err);
        fplan_free(&p);
        return false;
    }
    bool ok = fconf_resolve(have_raw ? &raw : NULL, &c, err, sizeof err) &&
              (!have_raw || fconf_check_heartbeat(&raw, &c, err, sizeof err));
    if (ok) {
        fplan_chain(&p, c.num[FC_CHAINING] != 0);
        ok = fimp_build(&p, &c, &a->o, j, err, sizeof err);
        if (!ok) fprintf(stderr, "%s: %s: %s\n", prog, a->plan, err);
    } else {
        fprintf(stderr, "%s: %s\n", prog, err);
    }
    FILE *mem = ok ? open_memstream(text, len) : NULL;
    if (ok && mem == NULL) { fprintf(stderr, "%s: out of memory\n", prog); ok = false; }
    if (ok) {
        command_line(argc, argv, cmd, sizeof cmd);
        char path[1024];
        cli_shell_word(a->out != NULL ? a->out : "job.scn", path, sizeof path);
        fimp_write(mem, &p, have_raw ? &raw : NULL, &c, &a->o, j, cmd, path);
        ok = fclose(mem) == 0;
    }
    *unmodelled = 0;
    for (uint32_t i = 0; have_raw && i < raw.count; i++) *unmodelled += raw.entries[i].use == FCONF_NOT_MODELLED;
    if (have_raw) fconf_raw_free(&raw);
    fplan_free(&p);
    return ok;
}

int cli_import(int argc, char **argv) {
    const char *prog = "absim import";
    cli_import_req a = { .format = FCONF_AUTO };
    fimp_defaults(&a.o);
    int rc = parse_import(prog, argc, argv, &a);
    if (rc >= 0) return rc;
    cli_input_note(a.plan);
    if (a.config != NULL) cli_input_note(a.config);
    fimp_job *j = malloc(sizeof *j);
    scn *s = malloc(sizeof *s);
    char *text = NULL, err[2048];
    size_t len = 0;
    uint32_t unmodelled = 0;
    rc = CLI_USAGE;
    if (j == NULL || s == NULL) fprintf(stderr, "%s: out of memory\n", prog);
    else if (cli_import_text(prog, &a, argc, argv, &text, &len, j, &unmodelled)) {
        const char *name = a.out != NULL ? a.out : "(the imported scenario)";
        if (!scn_parse(s, name, text, len, err, sizeof err)) {
            fprintf(stderr, "%s: %s: absim cannot model this job as written: %s\n", prog, a.plan, err);
        } else {
            cli_out o;
            if (cli_out_open(prog, "-o", a.out != NULL ? a.out : "-", &o)) {
                fwrite(text, 1, len, o.f);
                if (cli_out_commit(prog, "-o", &o)) rc = CLI_OK;
            }
        }
    }
    if (rc == CLI_OK && a.out != NULL) {
        printf("%s: wrote %s: %u vertices, %u edges, %u departures from the plan noted, %u configuration keys "
               "not modelled (listed in the file); run it: absim run %s\n", prog, a.out, j->vcount, j->ecount,
               j->ncount + j->ndropped, unmodelled, cli_shell_word(a.out, err, sizeof err));
    }
    free(text);
    free(j);
    free(s);
    return rc;
}
