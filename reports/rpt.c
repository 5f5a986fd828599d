/* reports/rpt.c: the protocol trace (JSON Lines) and what the checkpoint
 * picture (reports/dot.c) needs, kept as the run goes. */
#include "../model/flow/ckrules.h"
#include "holds.h"
#include "rpt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *rpt_step_name(pipe_ev_kind kind) { return pipe_ev_info_of(kind)->name; }

const char *rpt_receipt_name(pipe_receipt w) {
    switch (w) {
    case PIPE_RCV_COUNTED:      return "counted";
    case PIPE_RCV_LATE:         return "late";
    case PIPE_RCV_REPEATED:     return "repeated";
    case PIPE_RCV_FENCED:       return "old-attempt";
    case PIPE_RCV_RESTARTING:   return "job-not-running";
    case PIPE_RCV_FOR_FINISHED: return "for-finished-task";
    }
    return "?";
}

static void task_label(const pipeline *p, uint32_t t, char *buf, size_t n) {
    const job *j = pipe_job(p);
    snprintf(buf, n, "%s[%u]", j->vertices[j->tasks[t].vertex].name, j->tasks[t].subtask);
}

/* "map[0] -> agg[1]" */
static void chan_label(const pipeline *p, uint32_t chan, char *buf, size_t n) {
    const job *j = pipe_job(p);
    char a[48], b[48];
    task_label(p, j->chans[chan].producer, a, sizeof a);
    task_label(p, j->chans[chan].consumer, b, sizeof b);
    snprintf(buf, n, "%s -> %s", a, b);
}

bool rpt_init(rpt_recorder *r, pipeline *p, FILE *trace, bool keep) {
    memset(r, 0, sizeof *r);
    r->p = p;
    r->trace = trace;
    r->keep = keep;
    if ((trace != NULL || keep) && (r->holds = rpt_holds_create(p)) == NULL) return false;
    if (!keep) return true;
    const job *j = pipe_job(p);
    uint32_t tasks = j->tasks_count;
    r->words = (j->chans_count + 63) / 64;
    r->steps = calloc((size_t)RPT_CKPTS_MAX * tasks, sizeof *r->steps);
    r->bits = calloc((size_t)3 * RPT_CKPTS_MAX * (r->words ? r->words : 1), sizeof *r->bits);
    r->finished_ns = calloc(tasks ? tasks : 1, sizeof *r->finished_ns);
    bool timed = j->chans_count <= RPT_ARRIVALS_CHANS;
    if (timed) r->arrivals = calloc((size_t)RPT_CKPTS_MAX * (j->chans_count ? j->chans_count : 1), sizeof *r->arrivals);
    if (r->steps == NULL || r->bits == NULL || r->finished_ns == NULL || (timed && r->arrivals == NULL)) {
        rpt_free(r);
        return false;
    }
    for (uint32_t i = 0; i < RPT_CKPTS_MAX; i++) {
        rpt_ckpt *c = &r->ckpts[i];
        c->tasks = r->steps + (size_t)i * tasks;
        c->barriers = r->bits + (size_t)(3 * i) * r->words;
        c->priority = c->barriers + r->words;
        c->cancels = c->priority + r->words;
        c->arrivals = r->arrivals != NULL ? r->arrivals + (size_t)i * j->chans_count : NULL;
    }
    return true;
}

void rpt_keep_only(rpt_recorder *r, uint64_t ckpt) { r->only = ckpt; }

void rpt_free(rpt_recorder *r) {
    rpt_holds_destroy(r->holds);
    r->holds = NULL;
    free(r->steps);
    free(r->bits);
    free(r->finished_ns);
    free(r->arrivals);
    r->arrivals = NULL;
    r->steps = NULL;
    r->bits = NULL;
    r->finished_ns = NULL;
}

/* The slot of checkpoint id: ids start at 1, slot id - 1; or the one kept. */
static uint32_t slot_of(const rpt_recorder *r, uint64_t id) {
    if (r->only != 0) return id == r->only ? 0 : UINT32_MAX;
    return id >= 1 && id <= RPT_CKPTS_MAX ? (uint32_t)(id - 1) : UINT32_MAX;
}

static rpt_ckpt *ckpt_of(rpt_recorder *r, uint64_t id) {
    uint32_t i = slot_of(r, id);
    if (i == UINT32_MAX || r->ckpts[i].id != id) return NULL;
    return &r->ckpts[i];
}

static void set_bit(uint64_t *set, uint32_t i) { set[i / 64] |= 1ull << (i % 64); }

static void incident(rpt_recorder *r, sim_time_ns at_ns, const char *fmt, const char *a, const char *b) {
    r->incidents_all++;
    if (r->incidents_count == RPT_INCIDENTS_MAX) return;   /* counted, the picture says how many more */
    rpt_incident *x = &r->incidents[r->incidents_count++];
    x->at_ns = at_ns;
    int n = snprintf(x->text, sizeof x->text, fmt, a, b);
    if (n >= (int)sizeof x->text) memcpy(x->text + sizeof x->text - 4, "...", 4);   /* say it was cut */
}

/* Failures, restarts and failovers, for the picture's incident boxes. */
static void keep_incident(rpt_recorder *r, const pipe_event *e) {
    char who[64] = "", attempt[64];
    snprintf(attempt, sizeof attempt, "%" PRIu64, e->epoch);
    if (e->kind == PIPE_EV_JOB_FAILED) {
        if (e->culprit != PIPE_NO_TASK) task_label(r->p, e->culprit, who, sizeof who);
        char why[128];
        (void)snprintf(why, sizeof why, "%s%s%s", rpt_fail_cause_name(e->cause), who[0] ? " of " : "", who);
        uint32_t region, tasks;
        if (rpt_step_region(r->p, e, &region, &tasks)) {
            char which[64];
            snprintf(which, sizeof which, "the %u tasks of region %u", tasks, region);
            incident(r, e->at_ns, "job failed (%s): %s are cancelled", why, which);
        } else {
            incident(r, e->at_ns, "job failed (%s): attempt %s is cancelled", why, attempt);
        }
    } else if (e->kind == PIPE_EV_JOB_RESTARTED) {
        char from[64] = "the beginning";
        if (e->ckpt > 0) snprintf(from, sizeof from, "checkpoint %" PRIu64, e->ckpt);
        uint32_t region, tasks;
        if (rpt_step_region(r->p, e, &region, &tasks)) {
            char which[96];
            snprintf(which, sizeof which, "region %u (%u tasks) as attempt %s", region, tasks, attempt);
            incident(r, e->at_ns, "%s deployed, restoring %s", which, from);
        } else {
            incident(r, e->at_ns, "attempt %s deployed, restoring %s", attempt, from);
        }
    } else {
        incident(r, e->at_ns, "a new coordinator takes over%s%s", "", "");
    }
}

static void keep_ack(rpt_recorder *r, const pipe_event *e) {
    rpt_ckpt *c = ckpt_of(r, e->ckpt);
    if (c == NULL || e->culprit == PIPE_NO_TASK) return;
    rpt_task_step *t = &c->tasks[e->culprit];
    switch (e->receipt) {
    case PIPE_RCV_COUNTED:
        t->ack = RPT_ACK_COUNTED;
        t->ack_recv_ns = e->at_ns;
        break;
    case PIPE_RCV_FOR_FINISHED:
        t->ack = RPT_ACK_FOR_FINISHED;
        t->finished_ns = r->finished_ns[e->culprit];
        break;
    default:
        if (t->ack != RPT_ACK_COUNTED) {          /* a repeat of a counted one changes nothing */
            t->ack = RPT_ACK_DROPPED;
            t->why = (uint8_t)e->receipt;
            t->ack_recv_ns = e->at_ns;
        }
        break;
    }
}

static void keep_start(rpt_recorder *r, const pipe_event *e) {
    if (e->ckpt > r->triggered) r->triggered = e->ckpt;
    uint32_t i = slot_of(r, e->ckpt);
    if (i == UINT32_MAX) return;
    rpt_ckpt *c = &r->ckpts[i];
    memset(c->tasks, 0, sizeof *c->tasks * pipe_job(r->p)->tasks_count);
    memset(c->barriers, 0, sizeof *c->barriers * 3 * r->words);
    if (c->arrivals != NULL) memset(c->arrivals, 0, sizeof *c->arrivals * pipe_job(r->p)->chans_count);
    c->id = e->ckpt;
    c->epoch = e->epoch;
    c->start_ns = e->at_ns;
    c->end_ns = 0;
    c->end = PIPE_CKPT_PENDING;
}

/* The first barrier or cancel marker of each channel, in the order the
 * consumer took them. */
static void arrival(rpt_ckpt *c, rpt_task_step *t, const pipe_event *e) {
    if (c->arrivals == NULL || e->chan == PIPE_NO_CHAN || c->arrivals[e->chan].order != 0) return;
    c->arrivals[e->chan] = (rpt_arrival){ .at_ns = e->at_ns, .order = ++t->arrived };
}

/* The snapshot's parts, what they wrote, and how the task left it. */
static void keep_snapshot_step(rpt_task_step *t, const pipe_event *e) {
    switch (e->kind) {
    case PIPE_EV_SNAPSHOT_SYNC: t->sync_ns = e->at_ns; break;
    case PIPE_EV_SNAPSHOT_ASYNC: t->async_ns = e->at_ns; break;
    case PIPE_EV_SNAPSHOT_DROPPED: t->dropped_ns = e->at_ns; break;
    case PIPE_EV_WRITE:
        if (e->what == PIPE_WRITE_KEYED) t->keyed_bytes += e->bytes;
        else t->cs_bytes += e->bytes;
        break;
    case PIPE_EV_WRITE_DONE: t->write_failed |= !e->ok; break;
    case PIPE_EV_ACK:
        t->ack_ns = e->at_ns;
        if (t->ack == RPT_ACK_NONE) t->ack = RPT_ACK_SENT;
        break;
    case PIPE_EV_DECLINE:
        t->declined = true;
        t->known_aborted = e->known_aborted;
        t->decline_ns = e->at_ns;
        break;
    default: break;
    }
}

static void keep_task_step(rpt_recorder *r, const pipe_event *e) {
    rpt_ckpt *c = ckpt_of(r, e->ckpt);
    if (c == NULL || e->task == PIPE_NO_TASK) return;
    rpt_task_step *t = &c->tasks[e->task];
    switch (e->kind) {
    case PIPE_EV_BARRIER:
        if (t->first_barrier_ns == 0) t->first_barrier_ns = e->at_ns;
        t->released += e->released;
        if (e->chan != PIPE_NO_CHAN) set_bit(e->priority ? c->priority : c->barriers, e->chan);
        arrival(c, t, e);
        break;
    case PIPE_EV_CANCEL:
        t->released += e->released;
        if (e->chan != PIPE_NO_CHAN) set_bit(c->cancels, e->chan);
        arrival(c, t, e);
        break;
    case PIPE_EV_TRIGGER:
        t->trigger_ns = e->at_ns;
        t->epoch = e->epoch;
        t->unaligned = e->unaligned;
        break;
    case PIPE_EV_ALIGN_TIMEOUT:
        t->timed_out = true;
        if (t->timeout_ns == 0) t->timeout_ns = e->at_ns;
        break;
    case PIPE_EV_CHANNEL_STATE: t->cs_records += e->count; break;
    default: keep_snapshot_step(t, e); break;
    }
}

/* What a checkpoint that just completed holds, as the store has it. */
static void keep_held(rpt_recorder *r, rpt_ckpt *c) {
    if (r->holds == NULL || !rpt_holds_read(r->holds, c->id)) return;
    const job *j = pipe_job(r->p);
    const uint64_t *off = rpt_holds_offsets(r->holds);
    c->held = true;
    c->held_parts = pipe_broker(r->p)->partitions;
    c->held_before = 0;
    for (uint32_t i = 0; i < c->held_parts; i++) {
        if (i < RPT_HELD_PARTS) c->held_offsets[i] = off[i];
        c->held_before += off[i];
    }
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        const rpt_task_holds *x = rpt_holds_task(r->holds, t);
        rpt_task_step *s = &c->tasks[t];
        s->held_entries = x->entries;
        s->held_files = x->files;
        s->held_records = x->records;
        s->held_gone = x->gone;
        s->held_timers = x->timers;
        s->held_inflight = 0;
        for (uint32_t k = 0; k < j->tasks[t].in_count; k++) s->held_inflight += rpt_holds_chan(r->holds, j->in_chan[j->tasks[t].in_first + k]);
    }
}

static void keep_step(rpt_recorder *r, const pipe_event *e) {
    r->last_ns = e->at_ns;
    switch (e->kind) {
    case PIPE_EV_CKPT_START: keep_start(r, e); return;
    case PIPE_EV_CKPT_COMPLETE:
    case PIPE_EV_CKPT_ABORT: {
        rpt_ckpt *c = ckpt_of(r, e->ckpt);
        if (c == NULL) return;
        c->end_ns = e->at_ns;
        c->end = e->end;
        if (e->kind == PIPE_EV_CKPT_COMPLETE) keep_held(r, c);
        return;
    }
    case PIPE_EV_ACK_RECEIVED: keep_ack(r, e); return;
    case PIPE_EV_JOB_FAILED:
    case PIPE_EV_JOB_RESTARTED:
    case PIPE_EV_COORD_FAILOVER: keep_incident(r, e); return;
    case PIPE_EV_TASK_FINISHED: r->finished_ns[e->task] = e->at_ns; return;
    case PIPE_EV_RESTORE: r->finished_ns[e->task] = 0; return;   /* a new attempt runs it again */
    case PIPE_EV_RESCALED: return;                /* the run summary says it with the restart */
    default: keep_task_step(r, e); return;
    }
}

/* The members a step adds to its trace line (scenarios/README.md). */
static void gate_fields(FILE *f, const pipe_event *e) {
    fprintf(f, ",\"input\":%u,\"blocked\":%u,\"waiting\":%u,\"released\":%u", e->input, e->blocked, e->waiting,
            e->released);
    if (e->kind == PIPE_EV_BARRIER) fprintf(f, ",\"priority\":%s", e->priority ? "true" : "false");
}

static void receipt_fields(const rpt_recorder *r, FILE *f, const pipe_event *e) {
    char from[64];
    task_label(r->p, e->culprit, from, sizeof from);
    fprintf(f, ",\"from\":\"%s\",\"outcome\":\"%s\"", from, rpt_receipt_name(e->receipt));
}

static void channel_fields(const rpt_recorder *r, FILE *f, const pipe_event *e) {
    char ch[112];
    chan_label(r->p, e->chan, ch, sizeof ch);
    if (e->kind == PIPE_EV_CHANNEL_STATE) {
        fprintf(f, ",\"channel\":\"%s\",\"side\":\"%s\",\"records\":%u", ch, e->output ? "output" : "input", e->count);
    } else {                                      /* an alignment timeout at an output queue */
        fprintf(f, ",\"at\":\"output\",\"channel\":\"%s\",\"buffers\":%u", ch, e->count);
    }
}

/* A completion's "holds": what the checkpoint holds as the store has it
 * (reports/holds.h). */
static void holds_fields(const rpt_recorder *r, FILE *f, uint64_t ckpt) {
    if (r->holds == NULL || !rpt_holds_read(r->holds, ckpt)) return;
    fputs(",\"holds\":", f);
    rpt_holds_json(r->holds, f);
}

/* A job's end at a stop or cancel (how), and its resume (the restore mode). */
static void halt_fields(FILE *f, const pipe_event *e) {
    if (e->kind == PIPE_EV_HALTED) {
        fprintf(f, ",\"how\":\"%s\"", e->ok ? "drain" : e->count == PIPE_HALT_STOP ? "stop" : "cancel");
        return;
    }
    fprintf(f, ",\"mode\":\"%s\"", e->count == PIPE_CLAIM_CLAIM ? "CLAIM" : e->count == PIPE_CLAIM_LEGACY ? "LEGACY"
                                                                                              : "NO_CLAIM");
}

static void trace_fields(const rpt_recorder *r, FILE *f, const pipe_event *e) {
    switch (e->kind) {
    case PIPE_EV_BARRIER: case PIPE_EV_CANCEL: case PIPE_EV_END: gate_fields(f, e); break;
    case PIPE_EV_TRIGGER: fprintf(f, ",\"unaligned\":%s", e->unaligned ? "true" : "false"); break;
    case PIPE_EV_DECLINE:                         /* 1: told of the abort before it triggered: no decline sent */
        fprintf(f, ",\"known_aborted\":%s", e->known_aborted ? "true" : "false");
        break;
    case PIPE_EV_CKPT_START: if (e->savepoint) fputs(",\"savepoint\":true", f); break;
    case PIPE_EV_CKPT_COMPLETE: case PIPE_EV_CKPT_ABORT:
        fprintf(f, ",\"end\":\"%s\"", pipe_ckpt_end_name(e->end));
        if (e->savepoint) fputs(",\"savepoint\":true", f);
        if (e->count != 0) fprintf(f, ",\"reason\":\"%s\"", ckr_why_name((ckr_why)e->count));   /* Flink's */
        if (e->kind == PIPE_EV_CKPT_COMPLETE) holds_fields(r, f, e->ckpt);
        break;
    case PIPE_EV_WRITE:
        fprintf(f, ",\"what\":\"%s\",\"bytes\":%" PRIu64, e->what == PIPE_WRITE_KEYED ? "keyed" : "channels", e->bytes);
        break;
    case PIPE_EV_WRITE_DONE:
        fprintf(f, ",\"what\":\"%s\",\"ok\":%s", e->what == PIPE_WRITE_KEYED ? "keyed" : "channels", e->ok ? "true" : "false");
        break;
    case PIPE_EV_CHANNEL_STATE: channel_fields(r, f, e); break;
    case PIPE_EV_RESTORE: fprintf(f, ",\"ok\":%s", e->ok ? "true" : "false"); break;
    case PIPE_EV_METADATA:
        fprintf(f, ",\"ok\":%s,\"ambiguous\":%s", e->ok ? "true" : "false", e->ambiguous ? "true" : "false");
        break;
    case PIPE_EV_JOB_FAILED:                      /* who failed the job, and how the coordinator learnt it */
        fprintf(f, ",\"cause\":\"%s\"", rpt_fail_cause_name(e->cause));
        if (e->culprit != PIPE_NO_TASK) {
            char who[64];
            task_label(r->p, e->culprit, who, sizeof who);
            fprintf(f, ",\"culprit\":\"%s\"", who);
        }
        break;
    case PIPE_EV_JOB_RESTARTED:                   /* region failover: the region deployed, and its tasks */
        if (e->one_region) fprintf(f, ",\"region\":%u,\"tasks\":%u", e->region, e->count);
        break;
    case PIPE_EV_RESCALED:                        /* the vertex, its parallelism before and now */
        fprintf(f, ",\"vertex\":\"%s\",\"from\":%" PRIu64 ",\"to\":%u",
                e->vertex < pipe_job(r->p)->vertices_count ? pipe_job(r->p)->vertices[e->vertex].name : "?", e->word_a,
                e->count);
        break;
    case PIPE_EV_ACK_RECEIVED: case PIPE_EV_DECLINE_RECEIVED: receipt_fields(r, f, e); break;
    case PIPE_EV_NOTICE: fprintf(f, ",\"outcome\":\"%s\"", e->ok ? "completed" : "aborted"); break;
    case PIPE_EV_COMMITTABLES:
        fprintf(f, ",\"committables\":%u,\"action\":\"%s\",\"at_end\":%s", e->count, e->ok ? "taken" : "sent",
                e->at_end ? "true" : "false");
        break;
    case PIPE_EV_GLOBAL_COMMIT:
        fprintf(f, ",\"subtasks\":%u,\"finished\":%" PRIu64 ",\"of\":%" PRIu64, e->count, e->word_b, e->word_a);
        break;
    case PIPE_EV_HALTED: case PIPE_EV_RESUMED: halt_fields(f, e); break;
    case PIPE_EV_MATERIALIZED:
        fprintf(f, ",\"materialization\":%" PRIu64 ",\"keys\":%u,\"ok\":%s", e->ckpt, e->count, e->ok ? "true" : "false");
        break;
    case PIPE_EV_TXN:
        fprintf(f, ",\"outcome\":\"%s\",\"records\":%u,\"on\":\"%s\"", e->ok ? "committed" : "aborted", e->count,
                e->txn_why == PIPE_TXN_RESTORE ? "restore" : "notice");
        break;
    case PIPE_EV_ALIGN_TIMEOUT:
        if (!e->output) fprintf(f, ",\"at\":\"inputs\",\"blocked\":%u,\"waiting\":%u", e->blocked, e->waiting);
        else channel_fields(r, f, e);
        break;
    case PIPE_EV_BACKPRESSURE: fprintf(f, ",\"since_ns\":%" PRIu64 ",\"held_ns\":%" PRIu64, e->at_ns - e->bytes, e->bytes); break;
    default: break;
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
    trace_fields(r, r->trace, e);
    fputs("}\n", r->trace);
    r->lines++;
}

void rpt_fault(rpt_recorder *r, sim_time_ns at_ns, bool begin, const char *fields) {
    if (r->trace == NULL) return;
    fprintf(r->trace, "{\"t_ns\":%" PRIu64 ",\"step\":\"%s\"%s}\n", at_ns, begin ? "fault-begin" : "fault-end", fields);
    r->lines++;
}

void rpt_fault_mark(rpt_recorder *r, sim_time_ns at_ns, bool begin, const char *what) {
    if (!r->keep) return;
    incident(r, at_ns, "%s %s", begin ? "fault:" : "fault over:", what);
}

bool rpt_step_region(const pipeline *p, const pipe_event *e, uint32_t *region, uint32_t *tasks) {
    const job *j = pipe_job(p);
    if (e->kind == PIPE_EV_JOB_RESTARTED && e->one_region) {
        *region = e->region;
    } else if (e->kind == PIPE_EV_JOB_FAILED && e->culprit != PIPE_NO_TASK &&
               pipe_config(p)->restart.failover == PIPE_FAILOVER_REGION) {
        *region = pipe_task_region(p, e->culprit);   /* alone unless the job is one region */
    } else {
        return false;
    }
    *tasks = 0;
    for (uint32_t t = 0; t < j->tasks_count; t++) *tasks += pipe_task_region(p, t) == *region;
    return *tasks < j->tasks_count;
}

const char *rpt_fail_cause_name(pipe_fail_cause c) {
    switch (c) {
    case PIPE_FAIL_REPORTED:    return "task-reported";
    case PIPE_FAIL_CONNECTION:  return "connection-lost";
    case PIPE_FAIL_CHECKPOINTS: return "checkpoint-failures";
    case PIPE_FAIL_HEARTBEAT:   return "heartbeat-timeout";
    case PIPE_FAIL_EVENT_LOST:  return "assignment-lost";
    case PIPE_FAIL_STOP:        return "stop-savepoint-aborted";
    case PIPE_FAIL_THREW:       return "committer-threw";
    }
    return "?";
}
