/* cli/explain.c: `absim explain FILE`: the run narrated for a learner, one
 * line per protocol step, from the model's observer (pipe_observe), with
 * filters for one task or one checkpoint. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct narrator {
    pipeline   *p;
    FILE       *out;
    int64_t     task;             /* -1: all */
    uint64_t    ckpt;             /* 0: all */
    uint64_t    lines;
} narrator;

static void task_name(const pipeline *p, uint32_t t, char *buf, size_t n) {
    const job *j = pipe_job(p);
    snprintf(buf, n, "%s[%u]", j->vertices[j->tasks[t].vertex].name, j->tasks[t].subtask);
}

static void input_name(const pipeline *p, uint32_t t, uint32_t ch, char *buf, size_t n) {
    const job *j = pipe_job(p);
    char from[48];
    task_name(p, j->chans[j->in_chan[j->tasks[t].in_first + ch]].producer, from, sizeof from);
    snprintf(buf, n, "input %u (from %s)", ch, from);
}

static void narrate(void *ctx, const pipe_event *e) {
    narrator *n = ctx;
    const pipeline *p = n->p;
    if (n->task >= 0 && e->task != (uint32_t)n->task) return;
    if (n->ckpt != 0 && e->ckpt != n->ckpt) return;
    switch (e->kind) {                            /* the finer steps checkers need are not narrated */
    case PIPE_EV_CONSUME: case PIPE_EV_ACK: case PIPE_EV_WRITE: case PIPE_EV_WRITE_DONE:
    case PIPE_EV_CHANNEL_STATE: case PIPE_EV_RESTORE: case PIPE_EV_SNAPSHOT_DROPPED: case PIPE_EV_METADATA:
    case PIPE_EV_ACK_RECEIVED: case PIPE_EV_DECLINE_RECEIVED: case PIPE_EV_NOTICE: case PIPE_EV_TXN:
    case PIPE_EV_ALIGN_TIMEOUT: case PIPE_EV_KIND_MAX:
        return;
    default:
        break;
    }
    char who[48] = "coordinator", in[96] = "";
    if (e->task != PIPE_NO_TASK) task_name(p, e->task, who, sizeof who);
    fprintf(n->out, "t=%.3fms %s ", (double)e->at_ns / 1e6, who);
    const job *j = pipe_job(p);
    switch (e->kind) {
    case PIPE_EV_BARRIER:
        input_name(p, e->task, e->channel, in, sizeof in);
        fprintf(n->out, "got barrier %" PRIu64 " on %s", e->ckpt, in);
        if (e->blocked > 0) {
            fprintf(n->out, "; %u of %u inputs blocked, %u buffers wait behind them", e->blocked,
                    j->tasks[e->task].in_count, e->waiting);
        }
        break;
    case PIPE_EV_CANCEL:
        input_name(p, e->task, e->channel, in, sizeof in);
        fprintf(n->out, "got a cancel marker for checkpoint %" PRIu64 " on %s", e->ckpt, in);
        break;
    case PIPE_EV_END:
        input_name(p, e->task, e->channel, in, sizeof in);
        fprintf(n->out, "%s ended (end of partition)", in);
        break;
    case PIPE_EV_TRIGGER:
        if (e->channel != 0) {                   /* unaligned */
            fprintf(n->out, "triggers checkpoint %" PRIu64 " unaligned: its barrier overtakes the queued output "
                    "(persisted as channel state), the records queued on inputs without the barrier yet are "
                    "persisted too, and it snapshots at once", e->ckpt);
        } else if (j->tasks[e->task].in_count == 0) {
            fprintf(n->out, "triggered checkpoint %" PRIu64 ": emits barrier %" PRIu64
                    " on every output, after the records before it, and records its offsets", e->ckpt, e->ckpt);
        } else {
            fprintf(n->out, "has barrier %" PRIu64 " from every input: forwards it downstream and starts its "
                    "snapshot; inputs unblocked", e->ckpt);
        }
        break;
    case PIPE_EV_DECLINE:
        fprintf(n->out, e->channel ? "skips checkpoint %" PRIu64 ": it was told the checkpoint is aborted; sends a"
                                     " cancel marker downstream instead of a barrier"
                                   : "aborts checkpoint %" PRIu64 ": declines it, sends a cancel marker downstream",
                e->ckpt);
        break;
    case PIPE_EV_TASK_FINISHED:
        fprintf(n->out, "finished: every input ended; sends end of partition downstream");
        break;
    case PIPE_EV_CKPT_START:
        fprintf(n->out, "triggers checkpoint %" PRIu64 " at the sources", e->ckpt);
        break;
    case PIPE_EV_CKPT_COMPLETE:
        fprintf(n->out, "completes checkpoint %" PRIu64 ": every task acknowledged; it is the restore point now",
                e->ckpt);
        break;
    case PIPE_EV_CKPT_ABORT:
        fprintf(n->out, "aborts checkpoint %" PRIu64 " (%s)", e->ckpt, pipe_ckpt_end_name((pipe_ckpt_end)e->channel));
        break;
    case PIPE_EV_JOB_FAILED: {
        char culprit[48] = "a task";
        if (e->culprit != PIPE_NO_TASK) task_name(p, e->culprit, culprit, sizeof culprit);
        if (e->channel == PIPE_FAIL_REPORTED) {
            fprintf(n->out, "hears from %s that it failed", culprit);
        } else if (e->channel == PIPE_FAIL_CONNECTION) {
            fprintf(n->out, "lost its connection to %s (its TaskManager is gone)", culprit);
        } else if (e->channel == PIPE_FAIL_EVENT_LOST) {
            fprintf(n->out, "heard no acknowledgement of the splits it assigned to %s", culprit);
        } else if (e->channel == PIPE_FAIL_CHECKPOINT_STORE) {
            fprintf(n->out, "cannot tell whether its checkpoint store took a metadata write");
        } else if (e->channel == PIPE_FAIL_HEARTBEAT) {
            fprintf(n->out, "heard no heartbeat from %s's TaskManager within the timeout: it is lost", culprit);
        } else {
            fprintf(n->out, "has seen more checkpoints fail in a row than tolerable");
        }
        fprintf(n->out, ": cancels every task; pending checkpoints die with this attempt");
        break;
    }
    case PIPE_EV_JOB_RESTARTED:
        if (pipe_restore_ckpt(p) > 0) {
            fprintf(n->out, "restarts every task from checkpoint %" PRIu64 "; sources rewind to its offsets",
                    pipe_restore_ckpt(p));
        } else {
            fprintf(n->out, "restarts every task from the beginning (no checkpoint completed yet)");
        }
        break;
    case PIPE_EV_SNAPSHOT_SYNC: {
        job_kind k = j->vertices[j->tasks[e->task].vertex].kind;
        if (k == JOB_KEYED_AGG || k == JOB_KEYED_JOIN) {
            fprintf(n->out, "synchronous part of checkpoint %" PRIu64 " done: a copy-on-write version of its keyed "
                    "state is marked; it writes that version in the background and goes on processing", e->ckpt);
        } else {
            fprintf(n->out, "synchronous part of checkpoint %" PRIu64 " done (%s); no keyed state to write", e->ckpt,
                    k == JOB_SOURCE ? "offsets recorded"
                    : k == JOB_SINK && j->vertices[j->tasks[e->task].vertex].sink == JOB_SINK_2PC
                        ? "open transaction pre-committed"
                        : "stateless");
        }
        break;
    }
    case PIPE_EV_SNAPSHOT_ASYNC:
        fprintf(n->out, "asynchronous part of checkpoint %" PRIu64 " written to the state backend; acknowledges",
                e->ckpt);
        break;
    case PIPE_EV_SINK_COMMIT:
        fprintf(n->out, "commits its pre-committed transactions up to checkpoint %" PRIu64 ": their output is visible now",
                e->ckpt);
        break;
    case PIPE_EV_COORD_FAILOVER:
        fprintf(n->out, "a new coordinator takes over: cancels every task, recovers the completed checkpoints it can");
        break;
    default:
        break;
    }
    fputc('\n', n->out);
    n->lines++;
}

static void explain_usage(FILE *f) {
    fprintf(f, "usage: absim explain FILE [--seed S] [--faults random] [--bug NAME] [--task NAME[I]] [--checkpoint N]\n"
               "\n"
               "Runs the scenario and narrates the protocol, one line per step: barriers\n"
               "arriving and blocking inputs, triggers, snapshots, acknowledgements,\n"
               "completed and aborted checkpoints, failures and restarts.\n"
               "  --faults random  adds the fault profile swarm draws for the seed (narrates a swarm seed)\n"
               "  --bug NAME       runs a deliberately wrong protocol (absim bugs --list)\n"
               "  --task NAME[I]   only that task (as agg[1]); 'coordinator' for the coordinator\n"
               "  --checkpoint N   only the steps of checkpoint N\n");
}

int cli_explain(int argc, char **argv) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "task", required_argument, NULL, 't' },
        { "checkpoint", required_argument, NULL, 'c' },
        { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *prog = "absim explain";
    uint64_t seed = 0, ckpt = 0;
    bool seed_given = false, random_faults = false;
    pipe_bug bug = PIPE_BUG_NONE;
    const char *task = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &seed)) return CLI_USAGE;
            seed_given = true;
            break;
        case 't': task = optarg; break;
        case 'f': if (!cli_parse_faults(prog, optarg, &random_faults)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &bug)) return CLI_USAGE; break;
        case 'c': if (!cli_parse_u64(prog, "--checkpoint", optarg, 1, UINT64_MAX, &ckpt)) return CLI_USAGE; break;
        case 'h': explain_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    scn *s = cli_load_scenario(prog, argc, argv, seed_given, seed);
    if (s == NULL) return CLI_USAGE;
    char err[SCN_ERR_BYTES];
    s->cfg.bug = bug;
    if (random_faults) cli_random_faults(s);
    bool ready = cli_memory_ok(&s->cfg, 1, false, err, sizeof err);
    pipeline *p = ready ? pipe_create(&s->cfg, err, sizeof err) : NULL;
    if (p == NULL) {
        fprintf(stderr, "%s: %s\n", argv[optind], err);
        free(s);
        return CLI_USAGE;
    }
    narrator n = { .p = p, .out = stdout, .task = -1, .ckpt = ckpt };
    if (task != NULL) {
        const job *j = pipe_job(p);
        if (strcmp(task, "coordinator") == 0) n.task = PIPE_NO_TASK;
        for (uint32_t t = 0; t < j->tasks_count && n.task < 0; t++) {
            char name[48];
            task_name(p, t, name, sizeof name);
            if (strcmp(name, task) == 0) n.task = t;
        }
        if (n.task < 0) {
            fprintf(stderr, "%s: --task '%s': no such task (write it as vertex[subtask], as in %s[0])\n", prog,
                    task, j->vertices[j->vertices_count > 1 ? 1 : 0].name);
            pipe_destroy(p);
            free(s);
            return CLI_USAGE;
        }
    }
    scn_armed arm;                               /* faults first, then the narration */
    scn_arm_faults(s, p, &arm, narrate, &n);
    pipe_run(p);
    printf("%s: seed %" PRIu64 ", %s; %" PRIu64 " steps narrated, trace_hash %016" PRIx64 "\n", argv[optind],
           s->cfg.seed, pipe_status_name(pipe_get_status(p)), n.lines, pipe_sim(p)->trace_hash);
    pipe_destroy(p);
    free(s);
    return CLI_OK;
}
