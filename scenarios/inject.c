/* scenarios/inject.c: a scenario's faults handed to a running pipeline
 * (scenarios/inject.h): faults at times to the kernel at once, faults at
 * protocol points when an observer sees the point; what became of each,
 * for scn_unfired. Run-time injection, not reading. */
#include "fkind.h"
#include "inject.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The RPC link a lose or delay rpc fault acts on, and the message type it
 * is limited to (0: all): a kind the coordinator sends travels on its
 * link to the task, the others (and every message, untyped) on the
 * task's link to the coordinator. */
static uint32_t rpc_link(const pipeline *p, const scn_fault *f, uint32_t task, uint32_t *msg_type) {
    *msg_type = 0;
    if (f->rpc == 0) return pipe_task_rpc_link(p, task);
    bool to_task = false;
    bool known = pipe_rpc_kind(pipe_rpc_kind_names[f->rpc - 1], msg_type, &to_task);
    SIM_ASSERT(known);                               /* the reader took it from the same table */
    return to_task ? pipe_task_rpc_in_link(p, task) : pipe_task_rpc_link(p, task);
}

/* The kernel's target of a scenario fault, by its row's kind of target. */
static uint32_t kernel_target(const pipeline *p, const fk_info *k, const scn_fault *f, fault_spec *x) {
    const job *j = pipe_job(p);
    uint32_t a = j->vertex_first_task[f->vertex] + f->subtask;
    uint32_t b = j->vertex_first_task[f->vertex2] + f->subtask2;
    switch (k->target) {
    case FK_MACHINE:     return f->machine;
    case FK_TASK:        return pipe_task_actor(p, a);
    case FK_COORDINATOR: return pipe_coord_actor(p);
    case FK_MACHINES:
        x->machines_a = f->machines_a;
        x->machines_b = f->machines_b;
        return 0;
    case FK_LINK:        return pipe_chan_link(p, a, b);
    case FK_RPC:         return rpc_link(p, f, a, &x->msg_type);
    case FK_STORE:       return f->ha ? pipe_ha_dev(p) : pipe_store_dev(p);
    case FK_VERTEX:                                  /* a rescale is the model's */
    case FK_JOB:         break;                      /* so are a stop and a cancel */
    }
    SIM_ASSERT(!"a target the kernel acts on");
    return UINT32_MAX;
}

/* The kernel fault of a scenario fault (a kind the kernel runs). */
static fault_spec kernel_spec(const pipeline *p, const scn_fault *f, sim_time_ns at_ns) {
    const fk_info *k = fk_of(f->kind);
    SIM_ASSERT(k->kernel != 0);
    fault_spec x = { .kind = k->kernel, .at_ns = at_ns, .duration_ns = f->duration_ns };
    x.target = kernel_target(p, k, f, &x);
    if (k->flags & FK_BACK_AT_ONCE) x.duration_ns = 1;   /* the process restarts at once (a task: its TaskManager lives on) */
    switch (k->param) {
    case FK_BY_DELAY: x.delay_ns = f->delay_ns; break;
    case FK_RATIO:    x.ratio = f->ratio; break;
    case FK_FACTOR:   x.factor = f->factor; break;
    case FK_NO_PARAM:
    case FK_TO_PARALLELISM:
    case FK_RESUME: break;
    }
    SIM_ASSERT(x.target != UINT32_MAX);              /* links were checked in fin_all() */
    return x;
}

/* A slow task (fkind.c's row): the model's, not the kernel's. */
void fk_add_slow_task(pipeline *p, const scn_fault *f, sim_time_ns at_ns) {
    uint32_t task = pipe_job(p)->vertex_first_task[f->vertex] + f->subtask;
    bool added = pipe_add_slow(p, &(pipe_slow){ .task = task, .at_ns = at_ns, .duration_ns = f->duration_ns,
                                                .factor = f->factor });
    SIM_ASSERT(added);                               /* the reader allows PIPE_SLOW_MAX */
}

/* Hand one fault to the kernel (its fault id) or to the model
 * (UINT32_MAX). */
static uint32_t add_fault(pipeline *p, const scn_fault *f, sim_time_ns at_ns) {
    const fk_info *k = fk_of(f->kind);
    if (k->kernel == 0) {                            /* the model's */
        if (k->add != NULL) k->add(p, f, at_ns);
        return UINT32_MAX;
    }
    fault_spec x = kernel_spec(p, f, at_ns);
    return fault_add(pipe_sim(p), &x);
}

/* Add fault i at at_ns and, when armed, remember what became of it, so
 * scn_unfired() can tell whether it fired. */
static void add_tracked(scn_armed *a, const scn *s, pipeline *p, uint32_t i, sim_time_ns at_ns) {
    uint32_t id = add_fault(p, &s->faults[i], at_ns);
    if (a == NULL) return;
    a->added[i] = true;
    a->kernel_id[i] = id;
    a->begin_ns[i] = at_ns;
}

static void add_time_faults(const scn *s, pipeline *p, scn_armed *a) {
    for (uint32_t i = 0; i < s->faults_count; i++) {
        if (s->faults[i].point == SCN_AT_TIME) add_tracked(a, s, p, i, s->faults[i].at_ns);
    }
}

void scn_add_faults(const scn *s, pipeline *p) { add_time_faults(s, p, NULL); }

bool scn_point_hit(const scn_fault *f, const job *j, const pipe_event *e) {
    SIM_ASSERT(f->point != SCN_AT_TIME);
    bool same = e->ckpt == f->point_ckpt;
    uint32_t task = j->vertex_first_task[f->point_vertex] + f->point_subtask;
    switch (f->point) {
    case SCN_WHEN_ALIGNING:      return same && e->kind == PIPE_EV_BARRIER && e->task == task && e->blocked > 0;
    case SCN_WHEN_TRIGGERS:      return same && e->kind == PIPE_EV_TRIGGER && e->task == task;
    case SCN_WHEN_STARTS:        return same && e->kind == PIPE_EV_CKPT_START;
    case SCN_WHEN_COMPLETES:     return same && e->kind == PIPE_EV_CKPT_COMPLETE;
    case SCN_WHEN_SNAPSHOT_SYNC: return same && e->kind == PIPE_EV_SNAPSHOT_SYNC && e->task == task;
    case SCN_WHEN_COMMITS:       /* a commit covers every checkpoint up to its own */
        return e->kind == PIPE_EV_SINK_COMMIT && e->task == task && e->ckpt >= f->point_ckpt;
    case SCN_AT_TIME:            break;
    }
    SIM_ASSERT(false);
    return false;
}

bool scn_point_of(const pipe_event *e, const job *j, scn_fault *f) {
    scn_point pt = SCN_AT_TIME;
    switch (e->kind) {
    case PIPE_EV_BARRIER:       pt = e->blocked > 0 ? SCN_WHEN_ALIGNING : SCN_AT_TIME; break;
    case PIPE_EV_TRIGGER:       pt = SCN_WHEN_TRIGGERS; break;
    case PIPE_EV_CKPT_START:    pt = SCN_WHEN_STARTS; break;
    case PIPE_EV_CKPT_COMPLETE: pt = SCN_WHEN_COMPLETES; break;
    case PIPE_EV_SNAPSHOT_SYNC: pt = SCN_WHEN_SNAPSHOT_SYNC; break;
    case PIPE_EV_SINK_COMMIT:   pt = SCN_WHEN_COMMITS; break;
    default:                    break;
    }
    if (pt == SCN_AT_TIME) return false;
    bool coordinator = pt == SCN_WHEN_STARTS || pt == SCN_WHEN_COMPLETES;
    SIM_ASSERT(coordinator || e->task < j->tasks_count);
    f->point = pt;
    f->point_ckpt = e->ckpt;
    f->point_vertex = coordinator ? 0 : j->tasks[e->task].vertex;
    f->point_subtask = coordinator ? 0 : j->tasks[e->task].subtask;
    SIM_ASSERT(scn_point_hit(f, j, e));            /* the point it names is this one */
    return true;
}

static void armed_observe(void *ctx, const pipe_event *e) {
    scn_armed *a = ctx;
    const job *j = pipe_job(a->p);
    for (uint32_t i = 0; i < a->s->faults_count && a->points_waiting > 0; i++) {
        const scn_fault *f = &a->s->faults[i];
        if (f->point == SCN_AT_TIME || a->reached[i] || !scn_point_hit(f, j, e)) continue;
        a->reached[i] = true;                     /* once, the first time the point is reached */
        a->points_waiting--;
        add_tracked(a, a->s, a->p, i, e->at_ns + f->at_ns);
    }
    if (a->next != NULL) a->next(a->next_ctx, e);
}

void scn_arm_faults(const scn *s, pipeline *p, scn_armed *arm, pipe_observe_fn then, void *then_ctx) {
    memset(arm, 0, sizeof *arm);
    arm->s = s;
    arm->p = p;
    arm->next = then;
    arm->next_ctx = then_ctx;
    add_time_faults(s, p, arm);
    for (uint32_t i = 0; i < s->faults_count; i++) arm->points_waiting += s->faults[i].point != SCN_AT_TIME;
    pipe_observe(p, armed_observe, arm);
}

/* "1.399ms": to the microsecond, as the run summary prints times. */
static void ms_text(sim_time_ns ns, char *buf, size_t n) {
    uint64_t us = ns / 1000 + (ns % 1000 >= 500);
    snprintf(buf, n, "%" PRIu64 ".%03" PRIu64 "ms", us / 1000, us % 1000);
}

/* Stop or cancel i's place in cfg.stops (finish.c: time order, the
 * file's among equal times). */
static uint32_t stop_index(const scn *s, uint32_t i) {
    uint32_t k = 0;
    for (uint32_t j = 0; j < s->faults_count; j++) {
        const scn_fault *g = &s->faults[j];
        if (g->kind != SCN_STOP_JOB && g->kind != SCN_CANCEL_JOB) continue;
        k += g->at_ns < s->faults[i].at_ns || (g->at_ns == s->faults[i].at_ns && j < i);
    }
    return k;
}

static bool fault_fired(const scn_armed *a, uint32_t i, sim_time_ns end_ns) {
    if (!a->added[i]) return false;                  /* its point was never reached */
    if (a->kernel_id[i] != UINT32_MAX) return fault_begun(pipe_sim(a->p), a->kernel_id[i]);
    scn_fault_kind kind = a->s->faults[i].kind;
    if (kind == SCN_STOP_JOB || kind == SCN_CANCEL_JOB) return stop_index(a->s, i) < pipe_stops_done(a->p);   /* it ended the job */
    return end_ns >= a->begin_ns[i];                 /* a slow task or a rescale: the run reached its time */
}

uint32_t scn_unfired(const scn_armed *a, sim_time_ns end_ns, char *out, size_t out_bytes) {
    const scn *s = a->s;
    uint32_t unfired = 0;
    size_t used = 0;
    if (out_bytes > 0) out[0] = '\0';
    char end[32], reached[32], text[SCN_FAULT_TEXT_BYTES], why[128];
    ms_text(end_ns, end, sizeof end);
    for (uint32_t i = 0; i < s->faults_count; i++) {
        const scn_fault *f = &s->faults[i];
        if (f->optional || fault_fired(a, i, end_ns)) continue;
        unfired++;
        if (f->point != SCN_AT_TIME && !a->reached[i]) {
            snprintf(why, sizeof why, "the point was never reached; the job ended at %s", end);
        } else if (f->point != SCN_AT_TIME) {
            ms_text(a->begin_ns[i] - f->at_ns, reached, sizeof reached);
            snprintf(why, sizeof why, "the point was reached at %s; the job ended at %s", reached, end);
        } else {
            snprintf(why, sizeof why, "the job ended at %s", end);
        }
        if (used >= out_bytes) continue;             /* counted, but no room left to say it */
        /* A fault drawn at random (shrink scripts them) has no line: "%.0u" of 0 prints nothing. */
        int w = snprintf(out + used, out_bytes - used, f->line > 0 ? "%s%s:%u: %s never fired (%s)" : "%s%s%.0u: %s never fired (%s)",
                         used > 0 ? "; " : "", s->path, f->line, scn_fault_text(s, f, text, sizeof text), why);
        used = w < 0 ? out_bytes : used + (size_t)w;
    }
    return unfired;
}
