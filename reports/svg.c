/* reports/svg.c: the space-time diagram's recorder (what the run did, kept
 * from its steps) and the default window; the drawing is in
 * reports/svgdraw.c. */
#include "svg.h"
#include "holds.h"

#include <stdlib.h>
#include <string.h>

#include "../model/proto.h"

/* A checkpoint's identity, cycling: none of the colours that mean
 * something whatever the checkpoint (red: faults, losses, aborts; green:
 * completion; orange: blocked inputs and declines; purple: a new
 * coordinator; brown: a task finished; grey: other messages; dark grey:
 * deployments, restores). */
static const char *const palette[SVG_CKPT_COLOURS] = {
    "#1f77b4", "#e377c2", "#bcbd22", "#393b79", "#17becf",
};

const char *svg_ckpt_colour(uint64_t ckpt) {
    return ckpt == 0 ? "#777777" : palette[(ckpt - 1) % SVG_CKPT_COLOURS];
}

void svg_task_name(const pipeline *p, uint32_t task, char *buf, size_t n) {
    if (task == PIPE_NO_TASK) {
        snprintf(buf, n, "coordinator");
        return;
    }
    const job *j = pipe_job(p);
    snprintf(buf, n, "%s[%u]", j->vertices[j->tasks[task].vertex].name, j->tasks[task].subtask);
}

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 when s does not
 * start one: the same test as cli/text.c's, which reports/ cannot call. */
size_t svg_utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : (c & 0xF0) == 0xE0 ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
    }
    if (n >= 3) {
        unsigned d = s[1];
        if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d >= 0xA0) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d >= 0x90)) {
            return 0;
        }
    }
    return n;
}

/* A path or a scenario's text may hold any byte; one an XML reader
 * rejects becomes '?'. */
void svg_xml(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        size_t n = svg_utf8_len(p);
        if (n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n')) {
            fputc('?', f);
            p++;
            continue;
        }
        switch (*p) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fwrite(p, 1, n, f); break;
        }
        p += n;
    }
}

/* Room for one more of an array that doubles, up to max elements. */
static bool grow(void **arr, uint32_t *cap, uint32_t need, size_t elem, uint32_t max) {
    if (need <= *cap) return true;
    if (need > max) return false;
    uint32_t n = *cap != 0 ? *cap : 1024u;
    while (n < need) n *= 2;
    if (n > max) n = max;
    void *q = realloc(*arr, (size_t)n * elem);
    if (q == NULL) return false;
    *arr = q;
    *cap = n;
    return true;
}

bool svg_init(svg_recorder *r, pipeline *p) {
    memset(r, 0, sizeof *r);
    r->p = p;
    const job *j = pipe_job(p);
    r->tasks = j->tasks_count;
    r->links = pipe_sim(p)->links_count;
    r->in_first = calloc(r->tasks + 1, sizeof *r->in_first);
    r->hosts = calloc(r->tasks + 1, sizeof *r->hosts);
    r->head = malloc((r->links + 1) * sizeof *r->head);
    r->tail = malloc((r->links + 1) * sizeof *r->tail);
    if (r->in_first == NULL || r->hosts == NULL || r->head == NULL || r->tail == NULL) return false;
    for (uint32_t t = 0; t < r->tasks; t++) r->hosts[t] = 1u << pipe_task_host(p, t);
    for (uint32_t t = 0; t < r->tasks; t++) r->in_first[t + 1] = r->in_first[t] + j->tasks[t].in_count;
    r->now = calloc(r->in_first[r->tasks] + 1, sizeof *r->now);
    if (r->now == NULL) return false;
    for (uint32_t l = 0; l <= r->links; l++) r->head[l] = r->tail[l] = SVG_NONE;
    return true;
}

void svg_free(svg_recorder *r) {
    if (r->holds_f != NULL) fclose(r->holds_f);
    free(r->holds_buf);
    free(r->holds_refs);
    rpt_holds_destroy(r->holds);
    free(r->steps);
    free(r->msgs);
    free(r->gates);
    free(r->wms);
    free(r->now);
    free(r->in_first);
    free(r->hosts);
    free(r->head);
    free(r->tail);
    for (uint32_t i = 0; i < r->faults_count; i++) free(r->faults[i].tasks);
    memset(r, 0, sizeof *r);
}

void svg_attach(svg_recorder *r) { pipe_observe_messages(r->p, svg_observe, r); }

bool svg_keep_holds(svg_recorder *r) {
    r->holds = rpt_holds_create(r->p);
    r->holds_f = r->holds != NULL ? open_memstream(&r->holds_buf, &r->holds_len) : NULL;
    return r->holds_f != NULL;
}

const char *svg_step_holds(const svg_recorder *r, uint32_t i, size_t *len) {
    uint32_t lo = 0, hi = r->holds_count;         /* refs are in step order */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->holds_refs[mid].step < i) lo = mid + 1;
        else hi = mid;
    }
    if (lo == r->holds_count || r->holds_refs[lo].step != i || r->holds_f == NULL) return NULL;
    fflush(r->holds_f);                           /* the buffer is complete from here on */
    *len = r->holds_refs[lo].len;
    return r->holds_buf + r->holds_refs[lo].off;
}

/* A completion step (the last kept): what its checkpoint holds now. */
static void keep_holds(svg_recorder *r, uint64_t ckpt) {
    if (r->holds_f == NULL || !rpt_holds_read(r->holds, ckpt) ||
        !grow((void **)&r->holds_refs, &r->holds_cap, r->holds_count + 1, sizeof *r->holds_refs, SVG_STEPS_MAX)) return;
    fflush(r->holds_f);
    size_t off = r->holds_len;
    rpt_holds_json(r->holds, r->holds_f);
    fflush(r->holds_f);
    r->holds_refs[r->holds_count++] = (svg_holds_ref){ .step = r->steps_count - 1, .off = off, .len = r->holds_len - off };
}

/* The inputs whose view changed since the last step, appended to gates:
 * every task's, so that the viewer shows the buffers waiting everywhere
 * at each step; in a large job (more than SVG_POLL_ALL inputs) the
 * step's own task's, where its blocked inputs change. */
#define SVG_POLL_ALL 512u

static void poll_gates(svg_recorder *r, svg_step *s) {
    s->gate_first = r->gates_count;
    s->gate_count = 0;
    bool all = r->in_first[r->tasks] <= SVG_POLL_ALL;
    if (!all && s->e.task == PIPE_NO_TASK) return;
    for (uint32_t t = all ? 0 : s->e.task; t < (all ? r->tasks : s->e.task + 1); t++) {
        for (uint32_t i = 0; i < r->in_first[t + 1] - r->in_first[t]; i++) {
            pipe_input_view v;
            pipe_task_input(r->p, t, i, &v);
            pipe_input_view *was = &r->now[r->in_first[t] + i];
            if (v.blocked == was->blocked && v.buffers == was->buffers && v.records == was->records) continue;
            if (!grow((void **)&r->gates, &r->gates_cap, r->gates_count + 1, sizeof *r->gates, UINT32_MAX / 2)) {
                r->oom = true;
                return;
            }
            *was = v;
            r->gates[r->gates_count++] = (svg_gate){ .task = t, .input = i, .v = v };
            s->gate_count++;
        }
    }
}

static bool kept(const svg_recorder *r, sim_time_ns at) { return r->keep_until_ns == 0 || at <= r->keep_until_ns; }

static void on_step(svg_recorder *r, const pipe_event *e) {
    if (r->oom || !kept(r, e->at_ns) ||
        !grow((void **)&r->steps, &r->steps_cap, r->steps_count + 1, sizeof *r->steps, SVG_STEPS_MAX)) {
        r->steps_dropped++;
        return;
    }
    svg_step *s = &r->steps[r->steps_count++];
    memset(s, 0, sizeof *s);
    s->e = *e;
    s->fault = SVG_NONE;
    if (e->kind == PIPE_EV_JOB_RESTARTED && e->ckpt == 0) s->e.ckpt = pipe_restore_ckpt(r->p);   /* the one it restores */
    for (uint32_t t = 0; e->kind == PIPE_EV_JOB_RESTARTED && t < r->tasks; t++) r->hosts[t] |= 1u << pipe_task_host(r->p, t);
    poll_gates(r, s);
    if (e->kind == PIPE_EV_CKPT_COMPLETE) keep_holds(r, e->ckpt);
}

/* The checkpoint an RPC is about (its first word), or 0. */
static uint64_t rpc_ckpt(uint32_t msg, uint64_t a) {
    switch (msg) {
    case MSG_TRIGGER: case MSG_ACK: case MSG_DECLINE: case MSG_COMPLETE: case MSG_ABORTED: return a;
    default: return 0;
    }
}

static void on_send(svg_recorder *r, const pipe_event *e) {
    if (!kept(r, e->at_ns) || !grow((void **)&r->msgs, &r->msgs_cap, r->msgs_count + 1, sizeof *r->msgs, SVG_MSGS_MAX)) {
        r->msgs_dropped++;                       /* its delivery, if any, finds it missing: that is all */
        return;
    }
    uint32_t i = r->msgs_count++;
    svg_msg *m = &r->msgs[i];
    bool data = e->msg == MSG_DATA || e->msg == MSG_PRIORITY;
    *m = (svg_msg){ .sent_ns = e->at_ns, .from = e->task, .to = e->peer, .msg = e->msg, .chan = e->chan,
                    .count = e->count, .buf = data ? (uint8_t)e->buf : 0,
                    .ckpt = data ? e->ckpt : rpc_ckpt(e->msg, e->word_a), .a = e->word_a, .b = e->word_b,
                    .link = e->link, .next = SVG_NONE };
    if (e->priority) m->flags |= SVG_PRIORITY;
    if (!e->ok || e->link >= r->links) {
        m->flags |= SVG_LOST_AT_ONCE;
        return;
    }
    m->due_ns = e->due_ns;
    if (r->tail[e->link] == SVG_NONE) r->head[e->link] = i;
    else r->msgs[r->tail[e->link]].next = i;
    r->tail[e->link] = i;
}

/* The waiting send a delivery is of: the first with its words that was
 * due at this very moment (one to a receiver that was down when it came
 * was dropped, and a heartbeat's words repeat), else the first with its
 * words (a paused receiver takes what waited for it later than due). */
static uint32_t delivered_send(const svg_recorder *r, const pipe_event *e) {
    uint32_t first = SVG_NONE;
    for (uint32_t i = r->head[e->link]; i != SVG_NONE; i = r->msgs[i].next) {
        const svg_msg *m = &r->msgs[i];
        if (m->msg != e->msg || m->a != e->word_a || m->b != e->word_b) continue;
        if (m->due_ns == e->at_ns) return i;
        if (first == SVG_NONE) first = i;
    }
    return first;
}

/* A link delivers in send order: sends ahead of the one delivered that
 * are still waiting were lost on the way. */
static void on_recv(svg_recorder *r, const pipe_event *e) {
    if (e->link >= r->links) return;
    uint32_t got = delivered_send(r, e);
    if (got == SVG_NONE) return;                 /* its send was not kept (outside the window, or none left) */
    uint32_t i = r->head[e->link];
    while (i != SVG_NONE) {
        svg_msg *m = &r->msgs[i];
        r->head[e->link] = m->next;
        if (m->next == SVG_NONE) r->tail[e->link] = SVG_NONE;
        if (i == got) {
            m->recv_ns = e->at_ns;
            m->flags |= SVG_DELIVERED;
            return;
        }
        m->flags |= SVG_LOST_IN_FLIGHT;
        i = r->head[e->link];
    }
}

/* A watermark a task sent: a tick on its line, not a step (a source
 * sends one every watermark interval: the stepper would drown in them). */
static void on_watermark(svg_recorder *r, const pipe_event *e) {
    if (!kept(r, e->at_ns) || !grow((void **)&r->wms, &r->wms_cap, r->wms_count + 1, sizeof *r->wms, SVG_MSGS_MAX)) {
        r->wms_dropped++;
        return;
    }
    r->wms[r->wms_count++] = (svg_wm){ .at_ns = e->at_ns, .wm = (int64_t)e->word_a, .task = e->task };
}

void svg_observe(void *ctx, const pipe_event *e) {
    svg_recorder *r = ctx;
    switch (e->kind) {
    case PIPE_EV_SEND: on_send(r, e); break;
    case PIPE_EV_RECV: on_recv(r, e); break;
    case PIPE_EV_CONSUME: break;                 /* the buffer's arrow says it */
    case PIPE_EV_WATERMARK: on_watermark(r, e); break;
    default: on_step(r, e); break;
    }
}

bool svg_add_fault(svg_recorder *r, const svg_fault *f) {
    if (r->faults_count == SVG_FAULTS_MAX) return false;
    svg_fault *x = &r->faults[r->faults_count];
    *x = *f;
    x->tasks = calloc(r->tasks + 1, 1);
    if (x->tasks == NULL) return false;
    if (f->tasks != NULL) memcpy(x->tasks, f->tasks, r->tasks);
    r->faults_count++;
    return true;
}

typedef struct fault_edge {
    sim_time_ns at;
    uint32_t    fault;
    bool        begin;
} fault_edge;

static int by_edge(const void *pa, const void *pb) {
    const fault_edge *a = pa, *b = pb;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    if (a->fault != b->fault) return a->fault < b->fault ? -1 : 1;
    return a->begin == b->begin ? 0 : a->begin ? -1 : 1;
}

/* Faults among the steps, each edge before the steps of its instant. */
static void merge_faults(svg_recorder *r) {
    fault_edge edges[2 * SVG_FAULTS_MAX];
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->faults_count; i++) {
        edges[n++] = (fault_edge){ r->faults[i].begin_ns, i, true };
        if (r->faults[i].ended) edges[n++] = (fault_edge){ r->faults[i].end_ns, i, false };
    }
    if (n == 0) return;
    qsort(edges, n, sizeof *edges, by_edge);
    svg_step *all = malloc(((size_t)r->steps_count + n) * sizeof *all);
    if (all == NULL) {
        r->oom = true;
        return;
    }
    uint32_t k = 0, e = 0, h = 0;                 /* h: the completions' contents follow their steps */
    for (uint32_t i = 0; i <= r->steps_count; i++) {
        while (e < n && (i == r->steps_count || edges[e].at <= r->steps[i].e.at_ns)) {
            svg_step *s = &all[k++];
            memset(s, 0, sizeof *s);
            s->e.at_ns = edges[e].at;
            s->e.task = PIPE_NO_TASK;
            s->e.chan = PIPE_NO_CHAN;
            s->fault = edges[e].fault;
            s->begin = edges[e].begin;
            s->gate_first = r->gates_count;
            e++;
        }
        while (h < r->holds_count && r->holds_refs[h].step == i) r->holds_refs[h++].step = k;
        if (i < r->steps_count) all[k++] = r->steps[i];
    }
    SIM_ASSERT(h == r->holds_count);
    free(r->steps);
    r->steps = all;
    r->steps_count = k;
    r->steps_cap = k;
}

void svg_finish(svg_recorder *r) {
    r->end_ns = pipe_sim(r->p)->now_ns;
    for (uint32_t l = 0; l < r->links; l++) {
        for (uint32_t i = r->head[l]; i != SVG_NONE; i = r->msgs[i].next) {
            r->msgs[i].flags |= r->msgs[i].due_ns <= r->end_ns ? SVG_LOST_IN_FLIGHT : SVG_IN_FLIGHT;
        }
        r->head[l] = r->tail[l] = SVG_NONE;
    }
    merge_faults(r);
}

/* ---- the default window -------------------------------------------------- */

#define SVG_DEFAULT_CKPTS 6u
#define SVG_WHOLE_RUN_CKPTS 16u           /* a run with no more checkpoints is drawn whole by default */

/* The n-th checkpoint start at or after t (n from 1), and its end (its
 * completion or abort, else the run's end); false when there are fewer. */
static bool nth_ckpt_after(const svg_recorder *r, sim_time_ns t, uint32_t n, bool completed, sim_time_ns *start,
                           sim_time_ns *end) {
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const pipe_event *e = &r->steps[i].e;
        if (e->kind != PIPE_EV_CKPT_START || e->at_ns < t) continue;
        *end = r->end_ns;
        bool done = false;
        for (uint32_t k = i + 1; k < r->steps_count && !done; k++) {
            const pipe_event *x = &r->steps[k].e;
            if ((x->kind != PIPE_EV_CKPT_COMPLETE && x->kind != PIPE_EV_CKPT_ABORT) || x->ckpt != e->ckpt) continue;
            if (completed && x->kind != PIPE_EV_CKPT_COMPLETE) break;
            *end = x->at_ns;
            done = true;
        }
        if (completed && !done) continue;
        *start = e->at_ns;
        if (--n == 0) return true;
    }
    return false;
}

/* The last checkpoint start before t, or false. */
static bool ckpt_before(const svg_recorder *r, sim_time_ns t, sim_time_ns *start) {
    bool found = false;
    for (uint32_t i = 0; i < r->steps_count && r->steps[i].e.at_ns < t; i++) {
        if (r->steps[i].e.kind != PIPE_EV_CKPT_START) continue;
        *start = r->steps[i].e.at_ns;
        found = true;
    }
    return found;
}

/* The first fault or failure, and when things settled after it: the
 * fault over and, if the job failed, restarted. False: none. */
static bool first_incident(const svg_recorder *r, sim_time_ns *at, sim_time_ns *settled) {
    bool any = false;
    uint32_t fault = SVG_NONE;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const svg_step *s = &r->steps[i];
        bool fault_begins = s->e.kind == 0 && s->begin;
        if (!fault_begins && s->e.kind != PIPE_EV_JOB_FAILED && s->e.kind != PIPE_EV_COORD_FAILOVER) continue;
        *at = *settled = s->e.at_ns;
        if (fault_begins) fault = s->fault;
        any = true;
        break;
    }
    if (!any) return false;
    if (fault != SVG_NONE) *settled = r->faults[fault].ended ? r->faults[fault].end_ns : r->end_ns;
    for (uint32_t i = 0; i < r->steps_count; i++) {   /* a failure before or from it: its restart */
        const pipe_event *e = &r->steps[i].e;
        if (e->kind != PIPE_EV_JOB_FAILED || e->at_ns < *at || e->at_ns > *settled) continue;
        for (uint32_t k = i + 1; k < r->steps_count; k++) {
            if (r->steps[k].e.kind != PIPE_EV_JOB_RESTARTED) continue;
            if (r->steps[k].e.at_ns > *settled) *settled = r->steps[k].e.at_ns;
            break;
        }
        break;
    }
    return true;
}

/* The checkpoints the recording saw start. */
static uint32_t ckpt_starts(const svg_recorder *r) {
    uint32_t started = 0;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        started += r->steps[i].fault == SVG_NONE && r->steps[i].e.kind == PIPE_EV_CKPT_START;
    }
    return started;
}

/* A run small enough to draw whole: every step kept, few checkpoints. */
static bool small_run(const svg_recorder *r) {
    if (r->steps_dropped > 0 || r->msgs_dropped > 0 || r->keep_until_ns != 0) return false;
    return ckpt_starts(r) <= SVG_WHOLE_RUN_CKPTS;
}

static void default_window(const svg_recorder *r, sim_time_ns *from, sim_time_ns *to) {
    sim_time_ns at, settled, s, e;
    *from = 0;
    *to = r->end_ns;
    if (small_run(r)) return;
    if (first_incident(r, &at, &settled)) {
        *from = ckpt_before(r, at, &s) ? s : at;
        if (nth_ckpt_after(r, settled, 1, true, &s, &e)) *to = e;
    } else if (nth_ckpt_after(r, 0, 1, false, &s, &e)) {
        *from = s;
        for (uint32_t n = 3; n >= 1; n--) {
            sim_time_ns s3;
            if (!nth_ckpt_after(r, 0, n, false, &s3, &e)) continue;
            *to = e;
            break;
        }
    } else if (*to > 50 * SIM_NS_PER_MS) {
        *to = 50 * SIM_NS_PER_MS;
    }
    /* A run that takes long to settle (random faults, one after another)
     * still gets a picture one can read: six checkpoints at most. */
    if (nth_ckpt_after(r, *from, SVG_DEFAULT_CKPTS + 1, false, &s, &e) && s < *to) {
        nth_ckpt_after(r, *from, SVG_DEFAULT_CKPTS, false, &s, &e);
        *to = e;
    }
    sim_time_ns pad = (*to - *from) / 50;
    if (pad < 20 * SIM_NS_PER_US) pad = 20 * SIM_NS_PER_US;
    *from = *from > pad ? *from - pad : 0;
    *to = *to + pad < r->end_ns ? *to + pad : r->end_ns;
}

void svg_window(const svg_recorder *r, const svg_opts *o, sim_time_ns *from_ns, sim_time_ns *to_ns) {
    default_window(r, from_ns, to_ns);
    sim_time_ns s, e;
    if (o->from_given && o->to_given) {
        *from_ns = o->from_ns;
        *to_ns = o->to_ns;
    } else if (o->from_given) {                  /* three checkpoints from there */
        *from_ns = o->from_ns;
        *to_ns = r->end_ns;
        for (uint32_t n = 3; n >= 1; n--) {
            if (!nth_ckpt_after(r, o->from_ns, n, false, &s, &e)) continue;
            *to_ns = e;
            break;
        }
    } else if (o->to_given) {
        *to_ns = o->to_ns;
        if (*from_ns >= *to_ns) *from_ns = 0;
    }
    if (*to_ns <= *from_ns) *to_ns = *from_ns + SIM_NS_PER_MS;
}

uint32_t svg_panes(const svg_recorder *r, const svg_opts *o, sim_time_ns from_ns[SVG_PANES_MAX],
                   sim_time_ns to_ns[SVG_PANES_MAX], uint32_t *shown) {
    sim_time_ns from, to;
    svg_window(r, o, &from, &to);
    *shown = 0;
    from_ns[0] = from;
    to_ns[0] = to;
    if (o->from_given || o->to_given || (from == 0 && to >= r->end_ns)) return 1;
    uint32_t started = ckpt_starts(r);
    uint32_t want = (started + SVG_DEFAULT_CKPTS - 1) / SVG_DEFAULT_CKPTS;   /* windows of about six checkpoints */
    if (want > SVG_PANES_MAX) want = SVG_PANES_MAX;
    if (want == 0) want = 1;
    uint32_t n = 0, seen = 0;
    from_ns[0] = 0;
    for (uint32_t i = 0; i < r->steps_count; i++) {
        const svg_step *s = &r->steps[i];
        if (s->fault != SVG_NONE || s->e.kind != PIPE_EV_CKPT_START) continue;
        uint64_t cut = (uint64_t)(n + 1) * started / want;   /* window n + 1 begins at this checkpoint's start */
        if (n + 1 < want && seen == cut && s->e.at_ns > from_ns[n]) {
            to_ns[n++] = s->e.at_ns;
            from_ns[n] = s->e.at_ns;
        }
        seen++;
    }
    to_ns[n] = r->end_ns > from_ns[n] ? r->end_ns : from_ns[n] + 1;
    n++;
    for (uint32_t k = 0; k < n; k++) {
        if (from_ns[k] <= from && from < to_ns[k]) *shown = k;
    }
    SIM_ASSERT(n >= 1 && n <= SVG_PANES_MAX && from_ns[0] == 0);
    return n;
}
