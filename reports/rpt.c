/* reports/rpt.c: the protocol trace (JSON Lines) and the checkpoint
 * picture (Graphviz DOT). */
#include "rpt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *rpt_step_name(pipe_ev_kind kind) {
    switch (kind) {
    case PIPE_EV_BARRIER:        return "barrier";
    case PIPE_EV_CANCEL:         return "cancel";
    case PIPE_EV_END:            return "end-of-partition";
    case PIPE_EV_TRIGGER:        return "trigger";
    case PIPE_EV_DECLINE:        return "decline";
    case PIPE_EV_TASK_FINISHED:  return "task-finished";
    case PIPE_EV_CKPT_START:     return "checkpoint-start";
    case PIPE_EV_CKPT_COMPLETE:  return "checkpoint-complete";
    case PIPE_EV_CKPT_ABORT:     return "checkpoint-abort";
    case PIPE_EV_JOB_FAILED:     return "job-failed";
    case PIPE_EV_JOB_RESTARTED:  return "job-restarted";
    case PIPE_EV_SNAPSHOT_SYNC:  return "snapshot-sync";
    case PIPE_EV_SNAPSHOT_ASYNC: return "snapshot-async";
    case PIPE_EV_SINK_COMMIT:    return "sink-commit";
    case PIPE_EV_COORD_FAILOVER: return "coordinator-failover";
    case PIPE_EV_CONSUME:        return "consume";
    case PIPE_EV_ACK:            return "ack";
    case PIPE_EV_WRITE:          return "write";
    case PIPE_EV_WRITE_DONE:     return "write-done";
    case PIPE_EV_CHANNEL_STATE:  return "channel-state";
    case PIPE_EV_RESTORE:        return "restore";
    case PIPE_EV_SNAPSHOT_DROPPED: return "snapshot-dropped";
    case PIPE_EV_METADATA:       return "metadata-written";
    case PIPE_EV_SEND:           return "send";   /* message steps: pipe_observe_messages only */
    case PIPE_EV_RECV:           return "receive";
    case PIPE_EV_KIND_MAX:       break;
    }
    return "?";
}

static void task_label(const pipeline *p, uint32_t t, char *buf, size_t n) {
    const job *j = pipe_job(p);
    snprintf(buf, n, "%s[%u]", j->vertices[j->tasks[t].vertex].name, j->tasks[t].subtask);
}

bool rpt_init(rpt_recorder *r, pipeline *p, FILE *trace, bool keep) {
    memset(r, 0, sizeof *r);
    r->p = p;
    r->trace = trace;
    r->keep = keep;
    if (!keep) return true;
    uint32_t tasks = pipe_job(p)->tasks_count;
    r->steps = calloc((size_t)RPT_CKPTS_MAX * tasks, sizeof *r->steps);
    if (r->steps == NULL) return false;
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) r->ckpts[i].tasks = r->steps + (size_t)i * tasks;
    return true;
}

void rpt_free(rpt_recorder *r) {
    free(r->steps);
    r->steps = NULL;
}

static rpt_ckpt *ckpt_of(rpt_recorder *r, uint64_t id) {
    if (id == 0 || id > RPT_CKPTS_MAX) return NULL;   /* ids start at 1: slot id - 1 */
    rpt_ckpt *c = &r->ckpts[id - 1];
    return c->id == id ? c : NULL;
}

static void keep_step(rpt_recorder *r, const pipe_event *e) {
    if (e->kind == PIPE_EV_CKPT_START && e->ckpt >= 1 && e->ckpt <= RPT_CKPTS_MAX) {
        rpt_ckpt *c = &r->ckpts[e->ckpt - 1];
        c->id = e->ckpt;
        c->start_ns = e->at_ns;
        return;
    }
    rpt_ckpt *c = ckpt_of(r, e->ckpt);
    if (c == NULL) return;
    rpt_task_step *t = e->task != PIPE_NO_TASK ? &c->tasks[e->task] : NULL;
    switch (e->kind) {
    case PIPE_EV_BARRIER:
        if (t->first_barrier_ns == 0) t->first_barrier_ns = e->at_ns;
        break;
    case PIPE_EV_TRIGGER:
        t->trigger_ns = e->at_ns;
        t->unaligned = e->channel != 0;           /* snap_trigger passes the unaligned flag */
        break;
    case PIPE_EV_SNAPSHOT_ASYNC:
        t->ack_ns = e->at_ns;
        break;
    case PIPE_EV_DECLINE:
        t->declined = true;
        break;
    case PIPE_EV_CKPT_COMPLETE:
    case PIPE_EV_CKPT_ABORT:
        c->end_ns = e->at_ns;
        c->end = (pipe_ckpt_end)e->channel;
        break;
    default:
        break;
    }
}

void rpt_observe(void *ctx, const pipe_event *e) {
    rpt_recorder *r = ctx;
    if (r->keep) keep_step(r, e);
    if (r->trace == NULL || e->kind == PIPE_EV_CONSUME) return;   /* one per buffer: too many to list */
    char who[64] = "coordinator";
    if (e->task != PIPE_NO_TASK) task_label(r->p, e->task, who, sizeof who);
    fprintf(r->trace, "{\"t_ns\":%" PRIu64 ",\"step\":\"%s\",\"task\":\"%s\",\"ckpt\":%" PRIu64 ",\"epoch\":%" PRIu64,
            e->at_ns, rpt_step_name(e->kind), who, e->ckpt, e->epoch);
    switch (e->kind) {
    case PIPE_EV_BARRIER:
    case PIPE_EV_CANCEL:
    case PIPE_EV_END:
        fprintf(r->trace, ",\"input\":%u,\"blocked\":%u,\"waiting\":%u", e->channel, e->blocked, e->waiting);
        break;
    case PIPE_EV_TRIGGER:
        fprintf(r->trace, ",\"unaligned\":%s", e->channel ? "true" : "false");
        break;
    case PIPE_EV_DECLINE:                         /* 1: told of the abort before it triggered: no decline sent */
        fprintf(r->trace, ",\"known_aborted\":%s", e->channel ? "true" : "false");
        break;
    case PIPE_EV_CKPT_COMPLETE:
    case PIPE_EV_CKPT_ABORT:
        fprintf(r->trace, ",\"end\":\"%s\"", pipe_ckpt_end_name((pipe_ckpt_end)e->channel));
        break;
    case PIPE_EV_WRITE:
        fprintf(r->trace, ",\"what\":\"%s\",\"bytes\":%" PRIu64, e->what == PIPE_WRITE_KEYED ? "keyed" : "channels", e->bytes);
        break;
    case PIPE_EV_WRITE_DONE:
        fprintf(r->trace, ",\"what\":\"%s\",\"ok\":%s", e->what == PIPE_WRITE_KEYED ? "keyed" : "channels",
                e->ok ? "true" : "false");
        break;
    case PIPE_EV_CHANNEL_STATE:
        fprintf(r->trace, ",\"records\":%u", e->count);
        break;
    case PIPE_EV_RESTORE:
        fprintf(r->trace, ",\"ok\":%s", e->ok ? "true" : "false");
        break;
    case PIPE_EV_JOB_FAILED:                      /* who failed the job, and how the coordinator learnt it */
        fprintf(r->trace, ",\"cause\":\"%s\"", rpt_fail_cause_name((pipe_fail_cause)e->channel));
        if (e->culprit != PIPE_NO_TASK) {
            task_label(r->p, e->culprit, who, sizeof who);
            fprintf(r->trace, ",\"culprit\":\"%s\"", who);
        }
        break;
    default:
        break;
    }
    fputs("}\n", r->trace);
    r->lines++;
}

void rpt_fault(rpt_recorder *r, sim_time_ns at_ns, bool begin, const char *fields) {
    if (r->trace == NULL) return;
    fprintf(r->trace, "{\"t_ns\":%" PRIu64 ",\"step\":\"%s\"%s}\n", at_ns, begin ? "fault-begin" : "fault-end", fields);
    r->lines++;
}

const char *rpt_fail_cause_name(pipe_fail_cause c) {
    switch (c) {
    case PIPE_FAIL_REPORTED:    return "task-reported";
    case PIPE_FAIL_CONNECTION:  return "connection-lost";
    case PIPE_FAIL_CHECKPOINTS: return "checkpoint-failures";
    case PIPE_FAIL_HEARTBEAT:   return "heartbeat-timeout";
    case PIPE_FAIL_CHECKPOINT_STORE: return "checkpoint-store-ambiguous";
    case PIPE_FAIL_EVENT_LOST:  return "assignment-lost";
    }
    return "?";
}

static double ms(sim_time_ns ns) { return (double)ns / 1e6; }

void rpt_write_dot(const rpt_recorder *r, FILE *f, const char *title) {
    const pipeline *p = r->p;
    const job *j = pipe_job(p);
    fprintf(f, "digraph absim {\n  label=\"%s\";\n  labelloc=t;\n  rankdir=LR;\n  compound=true;\n"
               "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", fontsize=10];\n"
               "  edge [fontname=\"Helvetica\", fontsize=9];\n", title);
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) {
        const rpt_ckpt *c = &r->ckpts[i];
        if (c->id == 0) continue;
        bool done = c->end_ns != 0;
        fprintf(f, "  subgraph cluster_c%" PRIu64 " {\n    label=\"checkpoint %" PRIu64 ": %s", c->id, c->id,
                done ? pipe_ckpt_end_name(c->end) : "pending at the end");
        if (done) fprintf(f, " after %.3f ms", ms(c->end_ns - c->start_ns));
        fprintf(f, "\";\n    color=%s;\n", done && c->end == PIPE_CKPT_COMPLETED ? "darkgreen" : "firebrick");
        fprintf(f, "    c%" PRIu64 "_start [shape=ellipse, label=\"coordinator\\ntriggers %" PRIu64 "\\nt=%.3fms\"];\n",
                c->id, c->id, ms(c->start_ns));
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            const rpt_task_step *s = &c->tasks[t];
            char name[64];
            task_label(p, t, name, sizeof name);
            fprintf(f, "    c%" PRIu64 "_t%u [label=\"%s", c->id, t, name);
            if (s->trigger_ns != 0) {
                fprintf(f, "\\ntrigger t=%.3fms", ms(s->trigger_ns));
                if (s->first_barrier_ns != 0) fprintf(f, "\\naligned in %.3fms", ms(s->trigger_ns - s->first_barrier_ns));
                if (s->ack_ns != 0) fprintf(f, "\\nack t=%.3fms", ms(s->ack_ns));
            } else {
                fprintf(f, "\\nno trigger");
            }
            const char *fill = s->declined ? "mistyrose" : s->trigger_ns == 0 ? "gray90" : s->unaligned ? "lightyellow" : "white";
            fprintf(f, "%s%s\", fillcolor=%s];\n", s->unaligned ? "\\nunaligned" : "", s->declined ? "\\ndeclined" : "", fill);
        }
        fprintf(f, "    c%" PRIu64 "_end [shape=ellipse, label=\"%s\\nt=%.3fms\"];\n", c->id,
                done ? pipe_ckpt_end_name(c->end) : "pending", ms(done ? c->end_ns : c->start_ns));
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            if (j->vertices[j->tasks[t].vertex].kind == JOB_SOURCE) {
                fprintf(f, "    c%" PRIu64 "_start -> c%" PRIu64 "_t%u [label=\"trigger\"];\n", c->id, c->id, t);
            }
            const job_task *jt = &j->tasks[t];
            for (uint32_t k = 0; k < jt->out_count; k++) {    /* one edge per producer-consumer pair */
                uint32_t to = j->chans[j->out_chan[jt->out_first + k]].consumer;
                bool first = true;
                for (uint32_t q = 0; q < k && first; q++) first = j->chans[j->out_chan[jt->out_first + q]].consumer != to;
                if (first) fprintf(f, "    c%" PRIu64 "_t%u -> c%" PRIu64 "_t%u [label=\"barrier\"];\n", c->id, t, c->id, to);
            }
            if (c->tasks[t].ack_ns != 0) {
                fprintf(f, "    c%" PRIu64 "_t%u -> c%" PRIu64 "_end [style=dashed, label=\"ack\"];\n", c->id, t, c->id);
            }
        }
        fprintf(f, "  }\n");
    }
    fprintf(f, "}\n");
}
