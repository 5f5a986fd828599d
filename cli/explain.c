/* cli/explain.c: `absim explain FILE`: the run narrated for a learner, a
 * line per protocol step, from the model's observer (pipe_observe), and
 * the faults as they begin and end (cli/story.c), with filters for one
 * task or one checkpoint. Steps of the same instant that say the same of
 * several tasks make one line ("agg[0] and agg[1] restored checkpoint
 * 2"), and what a kind of step means is explained the first time only. */
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define PRED_BYTES   1024u                     /* a checkpoint's content fits (cli/holds.c) */
#define GROUPS_MAX   48u
#define NO_SUBJECT   (UINT32_MAX - 1)         /* a fault line: no task speaks */
#define ACKS_MAX     1024u                     /* acknowledgements on their way at once, lost ones included */

typedef struct group {                        /* lines of one instant that say the same */
    char     pred[PRED_BYTES];
    uint32_t first, count;                    /* subjects[first .. first + count) */
} group;

typedef struct sent_ack {
    uint32_t task;
    uint64_t ckpt;
} sent_ack;

enum told {                                   /* explanations given once */
    TOLD_SOURCE_TRIGGER, TOLD_ALIGNED_TRIGGER, TOLD_UNALIGNED_TRIGGER, TOLD_SYNC_KEYED, TOLD_SYNC_SOURCE,
    TOLD_SYNC_2PC, TOLD_SYNC_STATELESS, TOLD_ASYNC, TOLD_ONE_INPUT_TRIGGER, TOLD_COMPLETE, TOLD_ENDED, TOLD_END_DATA, TOLD_WINDOWS,
    TOLD_COMMITTABLES, TOLD_COLLECTOR, TOLD_MATERIALIZED, TOLD_CHANGELOG, TOLD_COUNT
};

typedef struct narrator {
    pipeline      *p;
    const scn     *s;
    check_set     *checks;                    /* attached before the narrator: it sees their violations */
    check_violation told_kept[CHECK_KEPT_MAX];    /* the report's kept entries as last told */
    cli_story     *story;
    FILE          *out;                       /* stdout, or the buffer of the lines before the first step told */
    char          *early;
    size_t         early_len;
    int64_t        task;                      /* -1: all; PIPE_NO_TASK: the coordinator */
    uint64_t       ckpt;                      /* 0: all */
    uint64_t       lines, said;               /* lines written; steps told (faults aside) */
    uint64_t       restoring;                 /* the checkpoint the last restart restores */
    uint64_t       savepoint;                 /* the last stop's savepoint triggered */
    sim_time_ns    at_ns;                     /* of the groups waiting */
    group          groups[GROUPS_MAX];
    uint32_t       groups_count;
    uint32_t      *subjects;                  /* GROUPS_MAX x (tasks + 1) */
    sim_time_ns   *align_ns;                  /* by task: the first barrier of ... */
    uint64_t      *align_ckpt;                /* ... this checkpoint */
    sim_time_ns   *txn_ns;                    /* by task: a restore resolved its transactions then */
    bool           told[TOLD_COUNT];
    sent_ack       acks[ACKS_MAX];            /* sent, not arrived (yet) */
    uint32_t       acks_count, acks_untracked;
    rpt_holds     *holds;                     /* what a completed checkpoint holds, read back */
    sim_time_ns    holds_ns;                  /* the completion being told */
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

/* "a", "a and b", "a, b and c"; the coordinator by name. */
static void subjects_text(const narrator *n, const group *g, FILE *out) {
    for (uint32_t i = 0; i < g->count; i++) {
        uint32_t t = n->subjects[g->first + i];
        if (t == NO_SUBJECT) continue;
        char name[48] = "coordinator";
        if (t != PIPE_NO_TASK) task_name(n->p, t, name, sizeof name);
        fprintf(out, "%s%s", i == 0 ? "" : i + 1 == g->count ? " and " : ", ", name);
    }
    if (g->count > 0 && n->subjects[g->first] != NO_SUBJECT) fputc(' ', out);
}

static void flush(narrator *n) {
    for (uint32_t i = 0; i < n->groups_count; i++) {
        fprintf(n->out, "t=%.3fms ", (double)n->at_ns / 1e6);
        subjects_text(n, &n->groups[i], n->out);
        fprintf(n->out, "%s\n", n->groups[i].pred);
        n->lines++;
    }
    n->groups_count = 0;
}

/* Lines go to a buffer until a step passes the filters (before, only
 * faults were told), then to stdout: a filter that matches nothing
 * prints nothing but why. */
static void to_stdout(narrator *n) {
    if (n->out == stdout) return;
    fclose(n->out);
    fwrite(n->early, 1, n->early_len, stdout);
    free(n->early);
    n->early = NULL;
    n->out = stdout;
}

static uint64_t shown_us(sim_time_ns ns) { return ns == SIM_TIME_NS_MAX ? UINT64_MAX : (ns + 500) / 1000; }

/* A line of the instant at_ns: subject, then what it did. Groups keep the
 * order their first line came in; a group's subjects are its own. */
static void say(narrator *n, sim_time_ns at_ns, uint32_t subject, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void say(narrator *n, sim_time_ns at_ns, uint32_t subject, const char *fmt, ...) {
    char pred[PRED_BYTES];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(pred, sizeof pred, fmt, ap);
    va_end(ap);
    if (w >= (int)sizeof pred) memcpy(pred + sizeof pred - 4, "...", 4);
    if (subject != NO_SUBJECT && n->said++ == 0) to_stdout(n);
    if (shown_us(at_ns) != shown_us(n->at_ns)) flush(n);   /* one instant: what a line shows, t=12.345ms */
    if (n->groups_count == 0) n->at_ns = at_ns;
    uint32_t tasks = pipe_job(n->p)->tasks_count + 1;
    for (uint32_t i = 0; i < n->groups_count && subject != NO_SUBJECT; i++) {
        group *g = &n->groups[i];
        if (strcmp(g->pred, pred) != 0 || n->subjects[g->first] == NO_SUBJECT) continue;
        if (g->count < tasks) n->subjects[g->first + g->count++] = subject;
        return;
    }
    if (n->groups_count == GROUPS_MAX) flush(n);
    group *g = &n->groups[n->groups_count++];
    memcpy(g->pred, pred, sizeof pred);
    g->first = (n->groups_count - 1) * tasks;
    g->count = 1;
    n->subjects[g->first] = subject;
}

/* An explanation the first time (told[id] is set then), "" after. */
static const char *once(narrator *n, enum told id, const char *text) {
    if (n->told[id]) return "";
    n->told[id] = true;
    return text;
}

static void on_barrier(narrator *n, const pipe_event *e) {
    const job *j = pipe_job(n->p);
    char in[96], tail[200] = "";
    input_name(n->p, e->task, e->input, in, sizeof in);
    if (n->align_ckpt[e->task] != e->ckpt) {      /* its first barrier of this checkpoint */
        n->align_ckpt[e->task] = e->ckpt;
        n->align_ns[e->task] = e->at_ns;
    }
    if (e->blocked > 0) {
        snprintf(tail, sizeof tail, "; %u of %u inputs blocked, %u buffer%s wait%s behind them", e->blocked,
                 j->tasks[e->task].in_count, e->waiting, e->waiting == 1 ? "" : "s", e->waiting == 1 ? "s" : "");
    } else if (e->released > 0) {
        snprintf(tail, sizeof tail, "; the inputs it blocked go on: %u buffer%s waited behind them", e->released,
                 e->released == 1 ? "" : "s");
    }
    say(n, e->at_ns, e->task, "got barrier %" PRIu64 " on %s%s%s", e->ckpt, in,
        e->priority ? " as a priority barrier (it overtook the data queued before it)" : "", tail);
}

static void on_trigger(narrator *n, const pipe_event *e) {
    const job *j = pipe_job(n->p);
    if (e->unaligned) {
        say(n, e->at_ns, e->task, "triggered checkpoint %" PRIu64 " unaligned%s", e->ckpt,
            once(n, TOLD_UNALIGNED_TRIGGER, ": the barrier overtakes the queued output (persisted as channel state), "
                 "the records queued on inputs without the barrier yet are persisted too, and the snapshot is taken at once"));
    } else if (j->tasks[e->task].in_count == 0) {
        say(n, e->at_ns, e->task, "triggered checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_SOURCE_TRIGGER, ": emitted the barrier on every output, after the records before it, and "
                 "recorded the offsets to read from after a restore"));
    } else {
        char aligned[64] = "";
        bool blocks = pipe_config(n->p)->ckpt.mode != PIPE_AT_LEAST_ONCE;   /* the barrier tracker never blocks */
        bool several = j->tasks[e->task].in_count > 1;
        if (n->align_ckpt[e->task] == e->ckpt && several) {
            double d = (double)(e->at_ns - n->align_ns[e->task]) / 1e6;
            if (blocks) snprintf(aligned, sizeof aligned, " (aligned in %.3fms)", d);
            else snprintf(aligned, sizeof aligned, " (the first came %.3fms earlier)", d);
        }
        const char *why = !several ? once(n, TOLD_ONE_INPUT_TRIGGER, ": forwarded it downstream and started the "
                                          "snapshot (one input: nothing to align)")
                        : blocks ? once(n, TOLD_ALIGNED_TRIGGER, ": forwarded it downstream, started the snapshot, "
                                        "unblocked the inputs")
                        : once(n, TOLD_ALIGNED_TRIGGER, ": forwarded it downstream and started the snapshot; "
                               "no input was blocked, so records that came after the first barriers are in it");
        say(n, e->at_ns, e->task, "had barrier %" PRIu64 " from every input%s%s", e->ckpt, aligned, why);
    }
    const job_vertex *v = &j->vertices[j->tasks[e->task].vertex];
    if (v->kind == JOB_SINK && v->sink == JOB_SINK_2PC) {   /* with the snapshot's start (TwoPhaseCommitSinkFunction.snapshotState) */
        say(n, e->at_ns, e->task, "pre-committed the open transaction for checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_SYNC_2PC, " and opened the next: its records become visible when the checkpoint completes"));
    }
}

static void on_sync(narrator *n, const pipe_event *e) {
    const job *j = pipe_job(n->p);
    const job_vertex *v = &j->vertices[j->tasks[e->task].vertex];
    bool keyed = v->kind == JOB_KEYED_AGG || v->kind == JOB_KEYED_JOIN || v->kind == JOB_WINDOW;
    const char *what = v->kind == JOB_WINDOW ? "window state (contents and timers)" : "keyed state";
    if (keyed && pipe_config(n->p)->state.changelog && e->ckpt == n->savepoint) {
        say(n, e->at_ns, e->task, "took savepoint %" PRIu64 " of its %s: the nested backend's full snapshot, not the "
            "state changelog (ChangelogKeyedStateBackend.savepoint delegates)", e->ckpt, what);
    } else if (keyed && pipe_config(n->p)->state.changelog) {   /* FLIP-158 */
        say(n, e->at_ns, e->task, "closed a batch of its state changelog for checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_CHANGELOG, ": it uploads only the changes not uploaded yet; the checkpoint is its last "
                 "materialization plus the log since it"));
    } else if (keyed && !pipe_config(n->p)->state.async) {
        say(n, e->at_ns, e->task, "marked its %s for checkpoint %" PRIu64 "%s", what, e->ckpt,
            once(n, TOLD_SYNC_KEYED, " and writes it now; with synchronous snapshots it processes nothing until the "
                 "write is done"));
    } else if (keyed) {
        char why[160];
        snprintf(why, sizeof why, ": a copy-on-write version of the %s is marked, written in the background while "
                 "processing goes on", what);
        say(n, e->at_ns, e->task, "took the synchronous part of checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_SYNC_KEYED, why));
    } else if (v->kind == JOB_SOURCE) {
        say(n, e->at_ns, e->task, "took the synchronous part of checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_SYNC_SOURCE, " (the offsets; no keyed state)"));
    } else if (v->kind == JOB_SINK && v->sink == JOB_SINK_2PC) {
        say(n, e->at_ns, e->task, "took the synchronous part of checkpoint %" PRIu64, e->ckpt);
    } else {
        say(n, e->at_ns, e->task, "took the synchronous part of checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_SYNC_STATELESS, " (stateless: nothing to write)"));
    }
}

/* "source[1] map[1] out[1]", the tasks of region r (the first of them);
 * returns how many it has. */
static uint32_t region_list(const pipeline *p, uint32_t r, char *buf, size_t size) {
    uint32_t count = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
        if (pipe_task_region(p, t) != r) continue;
        char name[48];
        task_name(p, t, name, sizeof name);
        if (used + strlen(name) + 6 < size) {
            used += (size_t)snprintf(buf + used, size - used, "%s%s", count > 0 ? " " : "", name);
        } else if (used + 5 < size && buf[used - 1] != '.') {
            used += (size_t)snprintf(buf + used, size - used, " ...");
        }
        count++;
    }
    return count;
}

/* Whether the coordinator restarts the culprit's region alone (it does
 * when the job has more than one: model/jm/deploy.c). */
static bool region_failover(const pipeline *p, uint32_t culprit) {
    if (pipe_config(p)->restart.failover != PIPE_FAILOVER_REGION || culprit == PIPE_NO_TASK) return false;
    for (uint32_t t = 0; t < pipe_job(p)->tasks_count; t++) {
        if (pipe_task_region(p, t) != 0) return true;
    }
    return false;
}

static void on_failed(narrator *n, const pipe_event *e) {
    char culprit[48] = "a task", what[200];
    if (e->culprit != PIPE_NO_TASK) task_name(n->p, e->culprit, culprit, sizeof culprit);
    switch (e->cause) {
    case PIPE_FAIL_REPORTED:   snprintf(what, sizeof what, "hears from %s that it failed", culprit); break;
    case PIPE_FAIL_CONNECTION: snprintf(what, sizeof what, "lost its connection to %s (its TaskManager is gone)", culprit); break;
    case PIPE_FAIL_EVENT_LOST: snprintf(what, sizeof what, "heard no acknowledgement of the splits it assigned to %s", culprit); break;
    case PIPE_FAIL_STOP:
        snprintf(what, sizeof what, "aborted the stop's savepoint: the tasks that took it fail (\"Stop-with-savepoint failed.\")");
        break;
    case PIPE_FAIL_THREW:
        snprintf(what, sizeof what, "hears that %s threw: a check of Flink's committer failed (a batch incomplete at its commit, a duplicate summary, a committable of an unknown subtask)", culprit);
        break;
    case PIPE_FAIL_HEARTBEAT:
        snprintf(what, sizeof what, "heard no heartbeat from %s's TaskManager within the timeout: it is lost", culprit);
        break;
    default: snprintf(what, sizeof what, "has seen more checkpoints fail in a row than tolerable"); break;
    }
    if (region_failover(n->p, e->culprit)) {
        char tasks[200];
        uint32_t count = region_list(n->p, pipe_task_region(n->p, e->culprit), tasks, sizeof tasks);
        say(n, e->at_ns, PIPE_NO_TASK, "%s: cancels the %u tasks of its pipelined region (%s), the others run on; "
            "pending checkpoints are aborted (attempt %" PRIu64 ")", what, count, tasks, e->epoch);
        return;
    }
    say(n, e->at_ns, PIPE_NO_TASK, "%s: cancels every task; pending checkpoints die with attempt %" PRIu64, what, e->epoch);
}

static void on_restarted(narrator *n, const pipe_event *e) {
    char from[64];
    if (e->ckpt > 0) snprintf(from, sizeof from, "from checkpoint %" PRIu64, e->ckpt);
    else snprintf(from, sizeof from, "from the beginning: no checkpoint to restore");
    if (e->one_region) {
        char tasks[200];
        (void)region_list(n->p, e->region, tasks, sizeof tasks);
        say(n, e->at_ns, PIPE_NO_TASK, "restarts the %u tasks of a pipelined region (%s) %s; its sources %s, the other "
            "regions kept running (attempt %" PRIu64 ")", e->count, tasks, from,
            pipe_config(n->p)->bug == PIPE_BUG_NO_REWIND ? "keep their positions (the deliberate bug no-rewind)"
                                                         : "rewind to their offsets", e->epoch);
    } else if (e->ckpt > 0 && pipe_config(n->p)->bug == PIPE_BUG_NO_REWIND) {   /* told as it happens */
        say(n, e->at_ns, PIPE_NO_TASK, "restarts every task %s; the sources keep their positions instead of rewinding "
            "to its offsets (the deliberate bug no-rewind) (attempt %" PRIu64 ")", from, e->epoch);
    } else if (e->ckpt > 0) {
        say(n, e->at_ns, PIPE_NO_TASK, "restarts every task %s; sources rewind to its offsets (attempt %" PRIu64 ")",
            from, e->epoch);
    } else {
        say(n, e->at_ns, PIPE_NO_TASK, "restarts every task %s%s (attempt %" PRIu64 ")", from,
            pipe_config(n->p)->bug == PIPE_BUG_NO_REWIND ? "; the sources keep their positions instead of starting "
                                                           "over (the deliberate bug no-rewind)" : "", e->epoch);
    }
}

/* A stop's savepoint triggered or completed. */
static void on_savepoint(narrator *n, const pipe_event *e) {
    if (e->kind == PIPE_EV_CKPT_START) {
        const pipe_cfg *c = pipe_config(n->p);
        uint32_t i = pipe_stops_done(n->p);       /* the stop under way: the ones before it are done */
        if (i < c->stops_count && c->stops[i].drain) {
            say(n, e->at_ns, PIPE_NO_TASK, "stops the job with savepoint %" PRIu64 ", drained: it aborted what was "
                "pending and stopped the periodic trigger; each source ends its input before the barrier, and every "
                "task ends its input and finishes once the savepoint, its final checkpoint, completed (stop --drain)",
                e->ckpt);
            return;
        }
        say(n, e->at_ns, PIPE_NO_TASK, "stops the job with savepoint %" PRIu64 ": it aborted what was pending and "
            "stopped the periodic trigger; the sources stop reading after its barrier, and every task finishes once "
            "it completed (stop-with-savepoint without drain)", e->ckpt);
        return;
    }
    say(n, e->at_ns, PIPE_NO_TASK, "completes savepoint %" PRIu64 ": its notice lets the sinks commit; no restart of "
        "this job restores it (since Flink 1.15 no savepoint is in the completed-checkpoint store, FLINK-25191)", e->ckpt);
}

/* The job ended at the user's stop or cancel. */
static void on_halted(narrator *n, const pipe_event *e) {
    if (e->ok) {
        say(n, e->at_ns, PIPE_NO_TASK, "sees every task finished after the drained savepoint %" PRIu64 ": the job is "
            "over, its input ended at the savepoint's offsets (stop --drain)", e->ckpt);
        return;
    }
    if (e->count == PIPE_HALT_STOP) {
        say(n, e->at_ns, PIPE_NO_TASK, "sees every task finished after savepoint %" PRIu64 ": the job is stopped, its "
            "checkpoints discarded with it; the user keeps the savepoint to resume from", e->ckpt);
    } else if (e->ckpt != 0) {
        say(n, e->at_ns, PIPE_NO_TASK, "cancels every task: the job is cancelled; its retained checkpoints stay on "
            "storage as the user's, who resumes from the latest, %" PRIu64, e->ckpt);
    } else {
        say(n, e->at_ns, PIPE_NO_TASK, "cancels every task: the job is cancelled before any checkpoint completed; the "
            "user submits it anew");
    }
}

/* The user submitted the job again. */
static void on_resumed(narrator *n, const pipe_event *e) {
    static const char *const modes[] = {
        [PIPE_CLAIM_NO_CLAIM] = "NO_CLAIM mode: it stays the user's, never deleted, and the first checkpoint after it "
                                "is a full one that shares none of its files",
        [PIPE_CLAIM_CLAIM] = "CLAIM mode: it is the job's own checkpoint now, deleted once a newer one subsumes it",
        [PIPE_CLAIM_LEGACY] = "LEGACY mode: it is never deleted, though the job's checkpoints may build on its files",
    };
    if (e->ckpt == 0) {
        say(n, e->at_ns, PIPE_NO_TASK, "starts the resubmitted job from nothing: the sources start over");
        return;
    }
    say(n, e->at_ns, PIPE_NO_TASK, "starts the resubmitted job from %" PRIu64 " in %s", e->ckpt,
        e->count >= PIPE_CLAIM_NO_CLAIM && e->count <= PIPE_CLAIM_LEGACY ? modes[e->count] : "an unknown mode");
}

/* A deployment at a new parallelism: where each new subtask's state comes from. */
static void on_rescaled(narrator *n, const pipe_event *e) {
    const job *j = pipe_job(n->p);
    const job_vertex *v = &j->vertices[e->vertex];
    bool keyed = v->kind == JOB_KEYED_AGG || v->kind == JOB_KEYED_JOIN;
    char how[160] = "";
    if (e->ckpt == 0) snprintf(how, sizeof how, ": no checkpoint completed, it starts from the beginning");
    else if (keyed) snprintf(how, sizeof how, "; each new subtask restores the key groups of its range (of %u) from "
                             "checkpoint %" PRIu64 "'s files of the old subtasks that held them", job_max_parallelism(v), e->ckpt);
    else if (v->kind == JOB_SOURCE) snprintf(how, sizeof how, "; each new subtask reads its share of the partitions "
                                             "from checkpoint %" PRIu64 "'s offsets", e->ckpt);
    say(n, e->at_ns, PIPE_NO_TASK, "rescales %s from parallelism %" PRIu64 " to %u%s", v->name, e->word_a, e->count, how);
}

static void on_abort(narrator *n, const pipe_event *e) {
    static const char *const why[] = {
        [PIPE_CKPT_DECLINED] = "a task declined it", [PIPE_CKPT_TIMED_OUT] = "not every acknowledgement came within the timeout",
        [PIPE_CKPT_SUBSUMED] = "a newer checkpoint completed first", [PIPE_CKPT_JOB_FAILED] = "its attempt failed",
        [PIPE_CKPT_TASK_FINISHED] = "a task finished before it took it, above a running task; the next one starts "
                                    "below the finished tasks",
    };
    pipe_ckpt_end end = e->end;
    const char *because = end >= PIPE_CKPT_DECLINED && end <= PIPE_CKPT_TASK_FINISHED ? why[end] : "?";
    say(n, e->at_ns, PIPE_NO_TASK, "aborts checkpoint %" PRIu64 " (%s: %s)", e->ckpt, pipe_ckpt_end_name(end), because);
}

/* What the coordinator made of an acknowledgement, when it is news: a
 * finished task acknowledged for, or one dropped (a counted one is the
 * snapshot's own line). */
static void on_receipt(narrator *n, const pipe_event *e) {
    switch (e->receipt) {
    case PIPE_RCV_COUNTED: return;
    case PIPE_RCV_FOR_FINISHED:
        say(n, e->at_ns, e->culprit, "had finished: the coordinator acknowledged checkpoint %" PRIu64
            " for it, with the final state", e->ckpt);
        return;
    case PIPE_RCV_LATE:
        say(n, e->at_ns, e->culprit, "acknowledged checkpoint %" PRIu64 " too late: the coordinator dropped the "
            "acknowledgement (the checkpoint had ended)", e->ckpt);
        return;
    case PIPE_RCV_REPEATED: return;
    case PIPE_RCV_FENCED:
        say(n, e->at_ns, e->culprit, "acknowledged checkpoint %" PRIu64 " from an old attempt: the coordinator dropped "
            "the acknowledgement (fencing)", e->ckpt);
        return;
    case PIPE_RCV_RESTARTING:
        say(n, e->at_ns, e->culprit, "acknowledged checkpoint %" PRIu64 " while the job was not running: the "
            "coordinator dropped the acknowledgement", e->ckpt);
        return;
    }
}

static void on_restore(narrator *n, const pipe_event *e) {
    if (e->ckpt > 0) {
        say(n, e->at_ns, e->task, "restored checkpoint %" PRIu64 " (attempt %" PRIu64 ")%s", e->ckpt, e->epoch,
            e->ok ? "" : ": a file it needs is gone");
    } else {
        say(n, e->at_ns, e->task, e->epoch == 0 ? "started (attempt %" PRIu64 ")"
                                                : "started over from scratch (attempt %" PRIu64 "): no checkpoint to restore",
            e->epoch);
    }
}

/* A transaction a restore resolved (those at completion notices are the
 * sink's commit line). */
static void on_txn(narrator *n, const pipe_event *e) {
    if (e->txn_why != PIPE_TXN_RESTORE) return;
    n->txn_ns[e->task] = e->at_ns;
    if (e->ok) {
        say(n, e->at_ns, e->task, "committed on restore the transaction pre-committed for checkpoint %" PRIu64
            " (%u records, now visible): checkpoint %" PRIu64 " holds it", e->ckpt, e->count, n->restoring);
    } else if (e->ckpt == 0) {
        say(n, e->at_ns, e->task, "aborted on restore the open transaction (%u records): written after the "
            "checkpoint, they are replayed", e->count);
    } else {
        say(n, e->at_ns, e->task, "aborted on restore the transaction pre-committed for checkpoint %" PRIu64
            " (%u records): that checkpoint is not the one restored", e->ckpt, e->count);
    }
}

/* Sink V2 (FLIP-191): the writer's summary and committable, sent ahead
 * of its barrier (SinkWriterOperator.prepareSnapshotPreBarrier) or at end
 * of input; the committer's collector taking them. */
static void on_committables(narrator *n, const pipe_event *e) {
    if (e->ok) {
        say(n, e->at_ns, e->task, "took the committable summary of checkpoint %" PRIu64 " (%u committable%s)%s", e->ckpt,
            e->count, e->count == 1 ? "" : "s",
            once(n, TOLD_COLLECTOR, " into its collector, which is its state: it commits them when that checkpoint or a "
                 "later one completes, or when a restore of one does"));
        return;
    }
    const job *j = pipe_job(n->p);
    if (j->vertices[j->tasks[e->task].vertex].kind == JOB_COMMITTER) {   /* after its commit, to the global committer */
        say(n, e->at_ns, e->task, "sent its committed batch of checkpoint %" PRIu64 " (%u committable%s) on to the global "
            "committer, as its own subtask", e->ckpt, e->count, e->count == 1 ? "" : "s");
        return;
    }
    if (e->count == 0) {
        say(n, e->at_ns, e->task, "sent a committable summary of checkpoint %" PRIu64 " announcing no committable%s",
            e->ckpt, e->at_end ? " at end of input" : ": it wrote nothing since the last");
        return;
    }
    say(n, e->at_ns, e->task, "pre-committed its open transaction for checkpoint %" PRIu64 " and sent its committable %s%s",
        e->ckpt, e->at_end ? "at end of input, for the checkpoint after the last it saw (FLINK-37605)"
                           : "ahead of its barrier",
        once(n, TOLD_COMMITTABLES, ": a summary first, then the committable naming the transaction; its committer "
             "commits it, the writer never does"));
}

static void on_align_timeout(narrator *n, const pipe_event *e) {
    char to[64];
    if (!e->output) {
        say(n, e->at_ns, e->task, "was still aligning checkpoint %" PRIu64 " at the alignment timeout (%u input%s blocked, "
            "%u buffer%s behind them): switched it to unaligned and snapshotted at once; what the other inputs deliver "
            "before their barrier is persisted as channel state", e->ckpt, e->blocked, e->blocked == 1 ? "" : "s",
            e->waiting, e->waiting == 1 ? "" : "s");
        return;
    }
    const job *j = pipe_job(n->p);
    task_name(n->p, j->chans[e->chan].consumer, to, sizeof to);
    say(n, e->at_ns, e->task, "still held barrier %" PRIu64 " behind %u queued buffer%s to %s at the alignment timeout: "
        "sent it ahead as a priority barrier, the buffers it overtook persisted as channel state", e->ckpt, e->count,
        e->count == 1 ? "" : "s", to);
}

/* A task's end: end of data on an input, its input ended, it finished
 * (FLIP-147: once its final checkpoint completed). False for the others. */
/* "watermark 12.300ms: fired 250 windows, purged 250" (the end of event time: "the last watermark"). */
static void windows_fired(narrator *n, const pipe_event *e) {
    char wm[48];
    if ((int64_t)e->word_a == INT64_MAX) snprintf(wm, sizeof wm, "the last watermark (its input ended)");
    else snprintf(wm, sizeof wm, "watermark %.3fms", (double)(int64_t)e->word_a / 1e6);
    say(n, e->at_ns, e->task, "%s: fired %u windows and purged %" PRIu64 "%s", wm, e->count, e->bytes,
        once(n, TOLD_WINDOWS, " (a window fires when the watermark passes its end: its result goes downstream; it is "
                              "purged, its state and timer cleared, at its end plus the allowed lateness)"));
}

static void holds_line(void *ctx, const char *text) {
    narrator *n = ctx;
    say(n, n->holds_ns, NO_SUBJECT, "%s", text);
}

static bool tell_ending(narrator *n, const pipe_event *e) {
    char in[96];
    switch (e->kind) {
    case PIPE_EV_END_DATA:
        input_name(n->p, e->task, e->input, in, sizeof in);
        say(n, e->at_ns, e->task, "got end of data on %s%s", in, once(n, TOLD_END_DATA, ": no records follow there, "
                                                                     "barriers still do"));
        return true;
    case PIPE_EV_WINDOWS_FIRED:
        windows_fired(n, e);
        return true;
    case PIPE_EV_INPUT_ENDED:
        say(n, e->at_ns, e->task, "reached the end of its input and sent end of data downstream%s", once(n, TOLD_ENDED,
            ": it goes on taking part in checkpoints, and finishes once one it takes from now on completes (FLIP-147)"));
        return true;
    case PIPE_EV_TASK_FINISHED: {
        const pipe_cfg *cfg = pipe_config(n->p);
        const job *j = pipe_job(n->p);
        const job_vertex *v = &j->vertices[j->tasks[e->task].vertex];
        bool lossy = cfg->ckpt.finished_tasks_off && v->kind == JOB_SINK && v->sink == JOB_SINK_2PC;
        bool lossy_v2 = cfg->ckpt.finished_tasks_off && cfg->ckpt.enabled && v->kind == JOB_COMMITTER;
        say(n, e->at_ns, e->task, "%s and sent end of partition downstream%s",
            cfg->ckpt.finished_tasks_off || !cfg->ckpt.enabled ? "finished (its input ended)"
                                                               : "finished (its final checkpoint completed)",
            lossy ? ": what it wrote since the last checkpoint it was told of is never committed (Flink up to 1.13: "
                    "TwoPhaseCommitSinkFunction.close aborts its open transaction, and a finished task gets no "
                    "completion notice; FLIP-147 Part One)"
            : lossy_v2 ? ": the committables it holds are never committed (CommitterOperator.endInput commits only "
                         "without checkpoints, and no final checkpoint comes)" : "");
        return true;
    }
    default:
        return false;
    }
}

/* The steps a learner reads; the finer ones checkers need are left out. */
/* The sinks' steps: commits, transactions, Sink V2's committables. */
static bool tell_sink(narrator *n, const pipe_event *e) {
    switch (e->kind) {
    case PIPE_EV_SINK_COMMIT:
        if (n->txn_ns[e->task] == e->at_ns) return true;   /* a restore's: its transactions were told one by one */
        if (pipe_job(n->p)->tasks[e->task].out_count > 0) {   /* a Sink V2 committer before a global committer */
            say(n, e->at_ns, e->task, "committed the batches up to checkpoint %" PRIu64 ": they go on to the global "
                "committer, which commits them to the external system", e->ckpt);
            return true;
        }
        say(n, e->at_ns, e->task, "committed the pre-committed transactions up to checkpoint %" PRIu64 ": their output is "
            "visible now", e->ckpt);
        return true;
    case PIPE_EV_TXN: on_txn(n, e); return true;
    case PIPE_EV_COMMITTABLES: on_committables(n, e); return true;
    case PIPE_EV_MATERIALIZED:
        if (!e->ok) {
            say(n, e->at_ns, e->task, "failed its changelog materialization %" PRIu64 ": the log stays as it was, the "
                "next comes an interval later", e->ckpt);
            return true;
        }
        say(n, e->at_ns, e->task, "materialized its state (%u keys, materialization %" PRIu64 ")%s", e->count, e->ckpt,
            once(n, TOLD_MATERIALIZED, ": checkpoints from now on are this snapshot plus the log written after it, and "
                 "the log before it is truncated (FLIP-158)"));
        return true;
    case PIPE_EV_GLOBAL_COMMIT:
        say(n, e->at_ns, e->task, "committed checkpoint %" PRIu64 " globally, every writer's transaction of it at once: "
            "%u of its %u upstream subtasks had sent their summary (one whose input ended counts as having sent all)",
            e->ckpt, e->count, (uint32_t)e->word_a);
        return true;
    default:
        return false;
    }
}

static void tell(narrator *n, const pipe_event *e) {
    char in[96];
    if (tell_ending(n, e) || tell_sink(n, e)) return;
    switch (e->kind) {
    case PIPE_EV_BARRIER: on_barrier(n, e); break;
    case PIPE_EV_CANCEL:
        input_name(n->p, e->task, e->input, in, sizeof in);
        say(n, e->at_ns, e->task, "got a cancel marker for checkpoint %" PRIu64 " on %s", e->ckpt, in);
        break;
    case PIPE_EV_END:
        input_name(n->p, e->task, e->input, in, sizeof in);
        say(n, e->at_ns, e->task, "got end of partition on %s", in);
        break;
    case PIPE_EV_TRIGGER: on_trigger(n, e); break;
    case PIPE_EV_DECLINE:
        say(n, e->at_ns, e->task, e->known_aborted ? "skipped checkpoint %" PRIu64 ": told it was aborted, sent cancel markers"
                                               " downstream instead of a barrier"
                                             : "declined checkpoint %" PRIu64 " and sent a cancel marker downstream", e->ckpt);
        break;
    case PIPE_EV_CKPT_START:
        if (e->savepoint) {
            on_savepoint(n, e);
            break;
        }
        say(n, e->at_ns, PIPE_NO_TASK, "triggers checkpoint %" PRIu64 " at the sources%s", e->ckpt,
            e->inner > 0 ? " and at the running tasks whose upstream all finished" : "");
        break;
    case PIPE_EV_CKPT_COMPLETE:
        if (e->savepoint) {
            on_savepoint(n, e);
            break;
        }
        say(n, e->at_ns, PIPE_NO_TASK, "completes checkpoint %" PRIu64 "%s", e->ckpt,
            once(n, TOLD_COMPLETE, ": every task acknowledged; it is the restore point now"));
        n->holds_ns = e->at_ns;                   /* then what it holds: a line, or all of it for --checkpoint */
        cli_holds_tell(n->p, n->holds, e->ckpt, e->at_ns, n->ckpt != 0, holds_line, n);
        break;
    case PIPE_EV_CKPT_ABORT: on_abort(n, e); break;
    case PIPE_EV_JOB_FAILED: on_failed(n, e); break;
    case PIPE_EV_JOB_RESTARTED: on_restarted(n, e); break;
    case PIPE_EV_RESCALED: on_rescaled(n, e); break;
    case PIPE_EV_SNAPSHOT_SYNC: on_sync(n, e); break;
    case PIPE_EV_SNAPSHOT_ASYNC:
        if (!pipe_config(n->p)->state.async) {   /* the write the task waited for */
            say(n, e->at_ns, e->task, "wrote checkpoint %" PRIu64 "%s and acknowledged it", e->ckpt,
                once(n, TOLD_ASYNC, " to the state backend (synchronously: it processes again from now)"));
            break;
        }
        say(n, e->at_ns, e->task, "wrote checkpoint %" PRIu64 "%s and acknowledged it", e->ckpt,
            once(n, TOLD_ASYNC, "'s asynchronous part to the state backend"));
        break;
    case PIPE_EV_COORD_FAILOVER:
        say(n, e->at_ns, PIPE_NO_TASK, "is a new coordinator: cancels every task, recovers the completed checkpoints it can");
        break;
    case PIPE_EV_HALTED: on_halted(n, e); break;
    case PIPE_EV_RESUMED: on_resumed(n, e); break;
    case PIPE_EV_ACK_RECEIVED: on_receipt(n, e); break;
    case PIPE_EV_RESTORE: on_restore(n, e); break;
    case PIPE_EV_ALIGN_TIMEOUT: on_align_timeout(n, e); break;
    case PIPE_EV_BACKPRESSURE:                    /* the short holds of steady flow control are not news */
        if (e->bytes >= SIM_NS_PER_MS) {
            say(n, e->at_ns, e->task, "goes on after %.3fms held up by backpressure (since t=%.3fms): an output "
                "channel had no credit, so it could not take its next input", (double)e->bytes / 1e6,
                (double)(e->at_ns - e->bytes) / 1e6);
        }
        break;
    default: break;
    }
}

/* Acknowledgements sent and not arrived: at the end, the lost ones. */
static void track_ack(narrator *n, const pipe_event *e) {
    if (e->kind == PIPE_EV_ACK) {
        if (n->acks_count == ACKS_MAX) {
            n->acks_untracked++;
            return;
        }
        n->acks[n->acks_count++] = (sent_ack){ .task = e->task, .ckpt = e->ckpt };
        return;
    }
    for (uint32_t i = 0; i < n->acks_count; i++) {
        if (n->acks[i].task != e->culprit || n->acks[i].ckpt != e->ckpt) continue;
        n->acks[i] = n->acks[--n->acks_count];   /* order does not matter until the end, which sorts */
        return;
    }
}

static bool ckpt_pending(const pipeline *p, uint64_t ckpt) {
    uint32_t count = 0;
    const pipe_ckpt_rec *h = pipe_history(p, &count);
    return ckpt >= 1 && ckpt <= count && h[ckpt - 1].end == PIPE_CKPT_PENDING;
}

static int by_task_then_ckpt(const void *a, const void *b) {
    const sent_ack *x = a, *y = b;
    if (x->task != y->task) return x->task < y->task ? -1 : 1;
    return x->ckpt < y->ckpt ? -1 : x->ckpt > y->ckpt;
}

/* "out[0]'s acknowledgements of checkpoints 4, 5 and 6 never reached the coordinator" */
static void tell_lost(narrator *n) {
    qsort(n->acks, n->acks_count, sizeof n->acks[0], by_task_then_ckpt);
    for (uint32_t i = 0; i < n->acks_count;) {    /* a task's acks of checkpoints still pending at the end, then the others */
        uint32_t t = n->acks[i].task, k = i;
        bool pending = ckpt_pending(n->p, n->acks[i].ckpt);
        while (k < n->acks_count && n->acks[k].task == t && ckpt_pending(n->p, n->acks[k].ckpt) == pending) k++;
        bool mine = n->task < 0 || (uint32_t)n->task == t;
        char list[400] = "";
        size_t used = 0;
        uint32_t shown = 0;
        for (uint32_t q = i; q < k && used < sizeof list - 40; q++) {
            if (n->ckpt != 0 && n->acks[q].ckpt != n->ckpt) continue;
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%" PRIu64, shown == 0 ? "" : q + 1 == k ? " and " : ", ",
                                     n->acks[q].ckpt);
            shown++;
        }
        if (mine && shown > 0) {
            say(n, pipe_sim(n->p)->now_ns, t, "had sent acknowledgement%s of checkpoint%s %s that never reached the "
                "coordinator: %s", shown == 1 ? "" : "s", shown == 1 ? "" : "s", list,
                pending ? "on the way when the run ended" : "lost on the way");
        }
        i = k;
    }
    if (n->acks_untracked > 0) {
        say(n, pipe_sim(n->p)->now_ns, NO_SUBJECT, "(%u more acknowledgements were on their way at once than explain "
            "follows: whether they arrived is not told)", n->acks_untracked);
    }
}

/* Violations the checkers found since the last step, told at the step
 * that made them whatever the filters: what the run broke is the story. */
static void tell_violations(narrator *n) {
    const check_report *r = check_progress(n->checks);
    for (uint32_t i = 0; i < r->kept_count; i++) {   /* an entry new since the last step, or replaced */
        const check_violation *v = &r->kept[i];
        const check_violation *was = &n->told_kept[i];
        if (v->inv == was->inv && v->at_ns == was->at_ns && v->task == was->task && v->ckpt == was->ckpt &&
            v->key == was->key && v->record == was->record && strcmp(v->what, was->what) == 0) {
            continue;                              /* told already (fields, not bytes: padding says nothing) */
        }
        n->told_kept[i] = *v;
        say(n, v->at_ns, NO_SUBJECT, "VIOLATION of %s (%s): %s", check_inv_name(v->inv), check_inv_title(v->inv), v->what);
    }
}

static void narrate(void *ctx, const pipe_event *e) {
    narrator *n = ctx;
    if (e->kind == PIPE_EV_JOB_RESTARTED) n->restoring = e->ckpt;
    if (e->kind == PIPE_EV_CKPT_START && e->savepoint) n->savepoint = e->ckpt;   /* whatever the filters */
    if (e->kind == PIPE_EV_ACK || (e->kind == PIPE_EV_ACK_RECEIVED && e->receipt != PIPE_RCV_FOR_FINISHED)) track_ack(n, e);
    bool receipt = e->kind == PIPE_EV_ACK_RECEIVED || e->kind == PIPE_EV_DECLINE_RECEIVED;
    uint32_t who = receipt ? e->culprit : e->task;   /* a receipt speaks of its sender */
    bool shown = (n->task < 0 || who == (uint32_t)n->task) && (n->ckpt == 0 || e->ckpt == n->ckpt);
    if (shown) tell(n, e);
    tell_violations(n);
}

/* Faults are told whatever the filters: they are what the steps answer to. */
static void on_fault(void *ctx, uint32_t fault, sim_time_ns at_ns, bool begin) {
    narrator *n = ctx;
    char words[SCN_FAULT_TEXT_BYTES + 2 * CLI_STORY_VICTIMS];
    cli_fault_words(n->s, n->story, fault, begin, words, sizeof words);
    say(n, at_ns, NO_SUBJECT, "%s %s", begin ? "fault:" : "fault over:", words);
}

static void explain_usage(FILE *f) {
    fprintf(f, "usage: absim explain FILE [--seed S] [--faults random|buggify] [--bug NAME] [--pct D[/K][~T]] [--task NAME[I]]\n"
               "                     [--checkpoint N]\n"
               "\n"
               "Runs the scenario, with the checkers, and narrates the protocol, a line per\n"
               "step: first the protocol the run follows (its checkpoint and restart\n"
               "settings, and a deliberate bug with what it breaks), then the faults as\n"
               "they begin and end, barriers arriving and blocking inputs, alignment\n"
               "timeouts, triggers, snapshots, acknowledgements dropped or made up for\n"
               "finished tasks, completed checkpoints with what each holds as a restore\n"
               "reads it back (the sources' offsets, each stateful task's keys and the\n"
               "records folded into them, the channel state), aborted checkpoints,\n"
               "failures, restarts and restores, transactions committed and aborted on\n"
               "restore, and each violation of an invariant at the step that made it\n"
               "(VIOLATION of ...), whatever the filters; last the verdicts, as run prints\n"
               "them. Steps of one instant that say the same of several tasks are one line.\n"
               "  --faults random  adds the fault profile swarm draws for the seed (narrates a swarm seed)\n"
               "  --faults buggify adds the seed's two-level fault activation profile (absim run --help)\n"
               "  --bug NAME       runs a deliberately wrong protocol (absim bugs --list)\n"
               "  --pct D[/K][~T]  orders simultaneous events by PCT (absim run --help)\n"
               "  --task NAME[I]   only that task (as agg[1]); 'coordinator' for the coordinator\n"
               "  --checkpoint N   only the steps of checkpoint N, and all it holds: a line per\n"
               "                   stateful task with its key groups and file chain (its keys\n"
               "                   one by one when it has few), the channel state by channel\n"
               "Exit 0 when the run passed, 1 when it failed (as run), 2 when a filter\n"
               "matches no step of the run (it says so).\n");
}

typedef struct explain_opts {
    uint64_t    seed, ckpt;
    bool        seed_given, random_faults;
    uint8_t     profile;
    pipe_bug    bug;
    cli_pct     pct;
    const char *task;
} explain_opts;

/* The options; -1 when the run goes on, else the exit status. */
static int parse_explain(const char *prog, int argc, char **argv, explain_opts *x) {
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },   { "task", required_argument, NULL, 't' },
        { "checkpoint", required_argument, NULL, 'c' }, { "faults", required_argument, NULL, 'f' },
        { "bug", required_argument, NULL, 'b' },    { "help", no_argument, NULL, 'h' },
        { "pct", required_argument, NULL, 'P' },
        { NULL, 0, NULL, 0 },
    };
    *x = (explain_opts){ .bug = PIPE_BUG_NONE };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!cli_parse_u64(prog, "--seed", optarg, 0, UINT64_MAX, &x->seed)) return CLI_USAGE;
            x->seed_given = true;
            break;
        case 't': x->task = optarg; break;
        case 'f': if (!cli_parse_faults(prog, optarg, &x->random_faults, &x->profile)) return CLI_USAGE; break;
        case 'b': if (!cli_parse_bug(prog, optarg, &x->bug)) return CLI_USAGE; break;
        case 'P': if (!cli_parse_pct(prog, optarg, &x->pct)) return CLI_USAGE; break;
        case 'c': if (!cli_parse_u64(prog, "--checkpoint", optarg, 1, UINT64_MAX, &x->ckpt)) return CLI_USAGE; break;
        case 'h': explain_usage(stdout); return CLI_OK;
        default: return cli_bad_option(prog, argv);
        }
    }
    return -1;
}

/* --task: the task's id, PIPE_NO_TASK for the coordinator, -1: none such. */
static int64_t task_of(const pipeline *p, const char *name) {
    if (strcmp(name, "coordinator") == 0) return PIPE_NO_TASK;
    const job *j = pipe_job(p);
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        char each[48];
        task_name(p, t, each, sizeof each);
        if (strcmp(each, name) == 0) return t;
    }
    return -1;
}

static narrator *narrator_new(pipeline *p, const scn *s, const explain_opts *x) {
    uint32_t tasks = pipe_job(p)->tasks_count;
    narrator *n = calloc(1, sizeof *n);
    if (n == NULL) return NULL;
    *n = (narrator){ .p = p, .s = s, .task = -1, .ckpt = x->ckpt, .at_ns = SIM_TIME_NS_MAX };
    n->story = calloc(1, sizeof *n->story);
    n->subjects = calloc((size_t)GROUPS_MAX * (tasks + 1), sizeof *n->subjects);
    n->align_ns = calloc(tasks, sizeof *n->align_ns);
    n->align_ckpt = calloc(tasks, sizeof *n->align_ckpt);
    n->txn_ns = calloc(tasks, sizeof *n->txn_ns);
    n->holds = rpt_holds_create(p);
    if (n->story == NULL || n->subjects == NULL || n->align_ns == NULL || n->align_ckpt == NULL || n->txn_ns == NULL ||
        n->holds == NULL) {
        free(n->story); free(n->subjects); free(n->align_ns); free(n->align_ckpt); free(n->txn_ns);
        rpt_holds_destroy(n->holds);
        free(n);
        return NULL;
    }
    for (uint32_t t = 0; t < tasks; t++) n->txn_ns[t] = SIM_TIME_NS_MAX;
    n->out = open_memstream(&n->early, &n->early_len);
    if (n->out == NULL) n->out = stdout;
    return n;
}

static void narrator_free(narrator *n) {
    if (n->out != stdout) fclose(n->out);
    free(n->early);
    free(n->story); free(n->subjects); free(n->align_ns); free(n->align_ckpt); free(n->txn_ns);
    rpt_holds_destroy(n->holds);
    free(n);
}

/* A filter that let no step through names what the run had instead. */
static int nothing_matched(const char *prog, const explain_opts *x, const pipeline *p) {
    char what[160] = "";
    if (x->task != NULL) snprintf(what, sizeof what, "--task %s", x->task);
    if (x->ckpt != 0) {
        size_t used = strlen(what);
        snprintf(what + used, sizeof what - used, "%s--checkpoint %" PRIu64, used ? " " : "", x->ckpt);
    }
    uint64_t triggered = pipe_get_stats(p)->triggered;
    fprintf(stderr, "%s: %s matches no step of the run (it triggered %" PRIu64 " checkpoint%s)\n", prog, what,
            triggered, triggered == 1 ? "" : "s");
    return CLI_USAGE;
}

/* The run, narrated: the protocol it follows first (a deliberate bug
 * named), then each step and each violation at its time, then the
 * verdicts as run prints them. CLI_FAIL when the run failed, as run. */
static int narrate_run(scn *s, pipeline *p, narrator *n, const explain_opts *x, const char *path) {
    char words[768];
    cli_protocol_words(&s->cfg, words, sizeof words);
    say(n, 0, NO_SUBJECT, "the protocol: %s", words);
    const choice_pct *pct = pipe_pct(p);
    if (pct != NULL) {
        char d[32], near[160] = "";
        if (s->cfg.pct_near_ns > 0) {
            scn_duration_text(d, sizeof d, s->cfg.pct_near_ns);
            snprintf(near, sizeof near, "; events due within %s of the earliest are ready with it, and wait until a "
                     "later one that goes first", d);
        }
        say(n, 0, NO_SUBJECT, "the order of simultaneous events: PCT of depth %u (schedule pct depth %u steps %" PRIu64
            "%s%s): each actor has a priority the seed draws, the ready one of highest goes first, and %u change points "
            "among the first %" PRIu64 " decisions lower the priority of the one that would go first%s", pct->depth,
            pct->depth, pct->steps, s->cfg.pct_near_ns > 0 ? " near " : "", s->cfg.pct_near_ns > 0 ? d : "",
            pct->depth - 1, pct->steps, near);
    }
    if (s->cfg.ties_count > 0) {
        char which[CHOICE_TIES_MAX * 40] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < s->cfg.ties_count; i++) {
            used += (size_t)snprintf(which + used, sizeof which - used, "%s%" PRIu64 " (ready destination %u)",
                                     i == 0 ? "" : i + 1 == s->cfg.ties_count ? " and " : ", ", s->cfg.ties[i].at,
                                     s->cfg.ties[i].pick + 1);
        }
        say(n, 0, NO_SUBJECT, "the order of simultaneous events: as they were pushed, but at decision%s %s among "
            "simultaneous events, where the one named goes first (schedule tie lines)", s->cfg.ties_count > 1 ? "s" : "",
            which);
    }
    scn_armed arm;                               /* faults first, then the story (for fault words), then the narration */
    cli_story_run story;
    cli_story_begin(&story, n->story, s, p, &arm, NULL, x->random_faults);
    story.on_fault = on_fault;
    story.on_fault_ctx = n;
    story.then = narrate;
    story.then_ctx = n;
    scn_arm_faults(s, p, &arm, cli_story_observe, &story);
    pipe_run(p);
    cli_story_end(&story);
    const check_report *r = check_finish(n->checks);
    tell_lost(n);
    tell_violations(n);                          /* those of the run's end: final state, output, liveness */
    flush(n);
    if (n->said == 0 && (x->task != NULL || x->ckpt != 0)) return nothing_matched("absim explain", x, p);
    to_stdout(n);
    printf("%s: seed %" PRIu64 ", %s; %" PRIu64 " lines narrated, trace_hash %016" PRIx64 "\n", path, s->cfg.seed,
           pipe_status_name(pipe_get_status(p)), n->lines, pipe_sim(p)->trace_hash);
    cli_outcome *o = calloc(1, sizeof *o);
    if (o == NULL) return CLI_USAGE;
    int rc = cli_verdicts(s, p, r, &arm, stdout, o);
    free(o);
    return rc;
}

int cli_explain(int argc, char **argv) {
    const char *prog = "absim explain";
    explain_opts x;
    int rc = parse_explain(prog, argc, argv, &x);
    if (rc >= 0) return rc;
    scn *s = cli_load_scenario(prog, argc, argv, x.seed_given, x.seed);
    if (s == NULL) return CLI_USAGE;
    char err[SCN_ERR_BYTES] = "out of memory";
    s->cfg.bug = x.bug;
    s->profile = x.profile;
    if (!cli_apply_pct(prog, s, &x.pct)) {
        free(s);
        return CLI_USAGE;
    }
    if (x.random_faults) cli_random_faults(s);
    bool ready = cli_memory_ok(&s->cfg, 1, true, err, sizeof err) && cli_pct_resolve(s, &s->cfg, err, sizeof err);
    pipeline *p = ready ? pipe_create(&s->cfg, err, sizeof err) : NULL;
    check_set *checks = p != NULL ? check_create(p, &(check_cfg){ .liveness_ns = scn_liveness_ns(s) }, err, sizeof err) : NULL;
    narrator *n = checks != NULL ? narrator_new(p, s, &x) : NULL;
    if (n == NULL) {
        fprintf(stderr, "%s: %s\n", argv[optind], err);
        check_destroy(checks);
        pipe_destroy(p);
        free(s);
        return CLI_USAGE;
    }
    n->checks = checks;
    check_attach(checks);                         /* the checkers observe first: the narrator sees their verdicts */
    if (x.task != NULL && (n->task = task_of(p, x.task)) < 0) {
        const job *j = pipe_job(p);
        fprintf(stderr, "%s: --task '%s': no such task (write it as vertex[subtask], as in %s[0])\n", prog, x.task,
                j->vertices[j->vertices_count > 1 ? 1 : 0].name);
        rc = CLI_USAGE;
    } else {
        rc = narrate_run(s, p, n, &x, argv[optind]);
    }
    narrator_free(n);
    check_destroy(checks);
    pipe_destroy(p);
    free(s);
    return rc;
}
