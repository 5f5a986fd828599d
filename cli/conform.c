/* cli/conform.c: `absim conform HISTORY.json [--details DIR] [--config FILE]
 * [--plan PLAN]`: a real Flink run's checkpoint history (REST GET
 * /jobs/:jobid/checkpoints) checked against the protocol's rules
 * (flink/fhist.h), under the configuration it ran with; with --plan the
 * imported job is run under the same configuration and the model's
 * figures printed beside the cluster's. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../flink/fhist.h"
#include "cli.h"

static void conform_usage(FILE *f) {
    fprintf(f,
        "usage: absim conform HISTORY.json [--details DIR] [--config FILE] [--plan PLAN] [--json]\n\n"
        "Checks a Flink job's checkpoint history, the REST answer of\n"
        "GET /jobs/:jobid/checkpoints (Flink 1.7 to 2.x), against the protocol's rules:\n");
    for (int r = 0; r < FR_COUNT; r++) fprintf(f, "  %-15s %s\n", fhist_rule_name((fhist_rule)r), fhist_rule_text((fhist_rule)r));
    fprintf(f,
        "A rule flags only what the fields prove; a finding names its rule, its\n"
        "checkpoint and the fields it read.\n\n"
        "  --config FILE        the configuration the job ran with: flink-conf.yaml,\n"
        "                       config.yaml or REST GET /jobs/:jobid/checkpoints/config\n"
        "                       (default: Flink's defaults, which need no interval: the\n"
        "                       interval rule is then not checked)\n"
        "  --config-format F    legacy, yaml or rest (default: by name, then content)\n"
        "  --details DIR        GET .../checkpoints/details/:id and .../subtasks/:vertexid\n"
        "                       answers, one per .json file: per-task acknowledgements and\n"
        "                       each subtask's unaligned flag\n"
        "  --plan PLAN          also run the job imported from PLAN (absim import) under the\n"
        "                       same configuration and print the model's figures beside the\n"
        "                       history's\n"
        "  --tolerance MS       slack for the JobManager's own clocks (default 100)\n"
        "  --json               one JSON object for CI\n\n"
        "Exit status: 0 conformant, 1 a rule broken, 2 unreadable input (file:line:col, or\n"
        "a JSON path).\n");
}

typedef struct conform_args {
    const char  *history, *details, *config, *plan;
    fconf_format format;
    uint64_t     tol_ms;
    bool         json;
} conform_args;

static int parse_conform(const char *prog, int argc, char **argv, conform_args *a) {
    static const struct option opts[] = {
        { "details", required_argument, NULL, 'd' }, { "config", required_argument, NULL, 'c' },
        { "config-format", required_argument, NULL, 'F' }, { "plan", required_argument, NULL, 'p' },
        { "tolerance", required_argument, NULL, 't' }, { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->details = optarg; break;
        case 'c': a->config = optarg; break;
        case 'p': a->plan = optarg; break;
        case 'j': a->json = true; break;
        case 't': if (!cli_parse_u64(prog, "--tolerance", optarg, 0, 3600000, &a->tol_ms)) return CLI_USAGE; break;
        case 'F': if (!cli_parse_config_format(prog, optarg, &a->format)) return CLI_USAGE; break;
        case 'h': conform_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "%s: one HISTORY.json expected (see --help)\n", prog);
        return CLI_USAGE;
    }
    a->history = argv[optind];
    return -1;
}

/* The history's own figures, for the comparison with the model. */
typedef struct figures {
    uint64_t completed, failed;
    double   spacing_ms, e2e_mean_ms, e2e_max_ms, state_mean_bytes;
} figures;

static figures history_figures(const fhist *h) {
    figures f = { 0 };
    double e2e = 0, state = 0, spacing = 0;
    uint64_t gaps = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        const fhist_ckpt *c = &h->ckpts[i];
        f.failed += c->status == FH_FAILED;
        if (i > 0 && c->trigger_ms >= 0 && h->ckpts[i - 1].trigger_ms >= 0 && c->id == h->ckpts[i - 1].id + 1) {
            spacing += (double)(c->trigger_ms - h->ckpts[i - 1].trigger_ms);
            gaps++;
        }
        if (c->status != FH_COMPLETED) continue;
        f.completed++;
        e2e += (double)(c->e2e_ms > 0 ? c->e2e_ms : 0);
        if ((double)c->e2e_ms > f.e2e_max_ms) f.e2e_max_ms = (double)c->e2e_ms;
        state += (double)(c->state_bytes > 0 ? c->state_bytes : 0);
    }
    if (f.completed > 0) { f.e2e_mean_ms = e2e / (double)f.completed; f.state_mean_bytes = state / (double)f.completed; }
    if (gaps > 0) f.spacing_ms = spacing / (double)gaps;
    return f;
}

/* The job imported from the plan, run under the same configuration: its
 * figures; false after saying why. */
static bool model_figures(const char *prog, const conform_args *a, pipe_stats *st, sim_time_ns *end_ns) {
    cli_import_req req = { .plan = a->plan, .config = a->config, .format = a->format };
    fimp_defaults(&req.o);
    fimp_job *j = malloc(sizeof *j);
    scn *s = malloc(sizeof *s);
    cli_outcome *o = malloc(sizeof *o);
    char *text = NULL, err[2048];
    size_t len = 0;
    uint32_t unmodelled;
    char *argv[] = { "import", (char *)a->plan };
    bool ok = j != NULL && s != NULL && o != NULL && cli_import_text(prog, &req, 2, argv, &text, &len, j, &unmodelled);
    if (ok && !scn_parse(s, "(the imported job)", text, len, err, sizeof err)) {
        fprintf(stderr, "%s: %s: absim cannot model this job as written: %s\n", prog, a->plan, err);
        ok = false;
    }
    if (ok) {
        int rc = cli_run_scenario(s, false, NULL, NULL, NULL, NULL, 0, NULL, o);
        *st = o->stats;
        *end_ns = o->story.end_ns;
        ok = rc != CLI_USAGE;
    }
    free(text);
    free(j);
    free(s);
    free(o);
    return ok;
}

static void print_text(const conform_args *a, const fhist *h, const fconf_raw *raw, const fhist_result *r) {
    uint64_t done = 0, failed = 0, pending = 0;
    for (uint32_t i = 0; i < h->count; i++) {
        done += h->ckpts[i].status == FH_COMPLETED;
        failed += h->ckpts[i].status == FH_FAILED;
        pending += h->ckpts[i].status == FH_IN_PROGRESS;
    }
    printf("%s: %u checkpoints in the history (%" PRIu64 " completed, %" PRIu64 " failed, %" PRIu64 " in progress); "
           "counts: total %" PRId64 ", restored %" PRId64 "; %s\n", a->history, h->count, done, failed, pending, h->total,
           h->restored, h->class_key[0] == 'c' ? "className (Flink 1.15+)" : h->class_key[0] == '@' ? "@class (up to 1.14)" : "no type field");
    if (raw != NULL) printf("  configuration: %s, read as %s\n", raw->path, fconf_format_name(raw->format));
    else printf("  configuration: Flink's defaults (no --config)\n");
    for (int k = 0; k < FR_COUNT; k++) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < r->count; i++) n += r->found[i].rule == (fhist_rule)k;
        printf("  %-15s %5u checked, %s\n", fhist_rule_name((fhist_rule)k), r->checked[k],
               n > 0 ? "BROKEN" : r->checked[k] > 0 ? "held" : "not applicable to this history");
    }
    for (uint32_t i = 0; i < r->count; i++) {
        const fhist_finding *f = &r->found[i];
        if (f->ckpt >= 0) printf("  finding: %s: checkpoint %" PRId64 ": %s\n", fhist_rule_name(f->rule), f->ckpt, f->text);
        else printf("  finding: %s: %s\n", fhist_rule_name(f->rule), f->text);
    }
    if (r->dropped > 0) printf("  (%u findings more)\n", r->dropped);
    if (r->count == 0) printf("  verdict: conforms\n");
    else printf("  verdict: %u finding%s\n", r->count + r->dropped, r->count + r->dropped == 1 ? "" : "s");
}

static void print_json(const conform_args *a, const fhist *h, const fhist_result *r, const pipe_stats *st) {
    printf("{\"history\":");
    cli_json_string(stdout, a->history);
    printf(",\"checkpoints\":%u,\"conforms\":%s,\"rules\":{", h->count, r->count == 0 ? "true" : "false");
    for (int k = 0; k < FR_COUNT; k++) printf("%s\"%s\":%u", k ? "," : "", fhist_rule_name((fhist_rule)k), r->checked[k]);
    printf("},\"findings\":[");
    for (uint32_t i = 0; i < r->count; i++) {
        printf("%s{\"rule\":\"%s\",\"checkpoint\":%" PRId64 ",\"text\":", i ? "," : "", fhist_rule_name(r->found[i].rule),
               r->found[i].ckpt);
        cli_json_string(stdout, r->found[i].text);
        printf("}");
    }
    printf("],\"findings_dropped\":%u", r->dropped);
    if (st != NULL) {                              /* --plan: the model's figures */
        printf(",\"model\":{\"completed\":%" PRIu64 ",\"aborted\":%" PRIu64 ",\"duration_mean_ms\":%.3f,"
               "\"bytes_per_checkpoint\":%.0f}", st->completed, st->aborted,
               st->completed > 0 ? (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6 : 0.0,
               st->completed > 0 ? (double)st->bytes_written / (double)st->completed : 0.0);
    }
    printf("}\n");
}

static void print_beside(const fhist *h, const pipe_stats *st, sim_time_ns end_ns) {
    figures f = history_figures(h);
    printf("  the model beside the cluster (the model's input rates, costs and state sizes are import's defaults):\n");
    printf("    %-34s %14s %14s\n", "", "history", "model");
    printf("    %-34s %14" PRIu64 " %14" PRIu64 "\n", "completed checkpoints", f.completed, st->completed);
    printf("    %-34s %14" PRIu64 " %14" PRIu64 "\n", "failed checkpoints", f.failed, st->aborted);
    printf("    %-34s %14.1f %14.1f\n", "trigger spacing, mean (ms)", f.spacing_ms,
           st->triggered > 0 ? (double)end_ns / (double)st->triggered / 1e6 : 0.0);
    printf("    %-34s %14.1f %14.3f\n", "duration, mean (ms)", f.e2e_mean_ms,
           st->completed > 0 ? (double)st->ckpt_duration_ns_sum / (double)st->completed / 1e6 : 0.0);
    printf("    %-34s %14.1f %14.3f\n", "duration, max (ms)", f.e2e_max_ms, (double)st->ckpt_duration_ns_max / 1e6);
    printf("    %-34s %14s %14.3f\n", "alignment, mean (ms)", "-",
           st->alignments > 0 ? (double)st->alignment_ns_sum / (double)st->alignments / 1e6 : 0.0);
    printf("    %-34s %14.0f %14.0f\n", "state size per checkpoint (bytes)", f.state_mean_bytes,
           st->completed > 0 ? (double)st->bytes_written / (double)st->completed : 0.0);
}

int cli_conform(int argc, char **argv) {
    const char *prog = "absim conform";
    conform_args a = { .format = FCONF_AUTO, .tol_ms = 100 };
    int rc = parse_conform(prog, argc, argv, &a);
    if (rc >= 0) return rc;
    char err[FCONF_ERR_BYTES + 1024];
    fhist h;
    fconf_raw raw;
    fconf c;
    fhist_result *r = malloc(sizeof *r);
    if (r == NULL) return CLI_FAIL;
    bool have_raw = false, ok = fhist_read(a.history, &h, err, sizeof err);
    uint32_t files = 0;
    if (ok && a.details != NULL) ok = fhist_details(&h, a.details, &files, err, sizeof err);
    if (ok && a.config != NULL) ok = have_raw = fconf_read(a.config, a.format, &raw, err, sizeof err);
    if (ok) ok = fconf_resolve(have_raw ? &raw : NULL, &c, err, sizeof err);
    if (!ok) {
        fprintf(stderr, "%s: %s\n", prog, err);
        rc = CLI_USAGE;
    } else {
        fhist_check(&h, &c, (int64_t)a.tol_ms, r);
        pipe_stats st;
        sim_time_ns end_ns = 0;
        bool model = a.plan != NULL && model_figures(prog, &a, &st, &end_ns);
        if (a.json) print_json(&a, &h, r, model ? &st : NULL);
        else print_text(&a, &h, have_raw ? &raw : NULL, r);
        if (!a.json && a.details != NULL) printf("  details: %u files read from %s\n", files, a.details);
        if (model && !a.json) print_beside(&h, &st, end_ns);
        rc = a.plan != NULL && !model ? CLI_USAGE : r->count > 0 ? CLI_FAIL : CLI_OK;
    }
    if (have_raw) fconf_raw_free(&raw);
    fhist_free(&h);
    free(r);
    return rc;
}
