/* scenarios/space.c: the points and the fault menu of an exhaustive
 * exploration (scenarios/space.h). */
#include "fkind.h"
#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEEN_SLOTS (2u * SPC_POINTS_MAX)

bool spc_points_init(spc_points *ps, const job *j) {
    memset(ps, 0, sizeof *ps);
    ps->j = j;
    ps->at = calloc(SPC_POINTS_MAX, sizeof *ps->at);
    ps->at_ns = calloc(SPC_POINTS_MAX, sizeof *ps->at_ns);
    ps->seen = calloc(SEEN_SLOTS, sizeof *ps->seen);
    if (ps->at == NULL || ps->at_ns == NULL || ps->seen == NULL) {
        spc_points_free(ps);
        return false;
    }
    return true;
}

void spc_points_free(spc_points *ps) {
    free(ps->at);
    free(ps->at_ns);
    free(ps->seen);
    ps->at = NULL;
    ps->at_ns = NULL;
    ps->seen = NULL;
}

void spc_points_reset(spc_points *ps, const job *j) {
    memset(ps->seen, 0, SEEN_SLOTS * sizeof *ps->seen);
    ps->count = 0;
    ps->unnamed = 0;
    ps->ckpt_max = 0;
    ps->overflow = false;
    ps->j = j;
}

/* Its kind, vertex, subtask and checkpoint (checkpoint ids stay far
 * below 2^40, tasks below 2^20 in all); the kind is never 0 (at a time). */
uint64_t spc_point_key(const scn_fault *f) {
    SIM_ASSERT(f->point != SCN_AT_TIME && f->point < 16);
    SIM_ASSERT(f->point_ckpt < (1ull << 40) && f->point_vertex < 256 && f->point_subtask < 4096);
    return ((uint64_t)f->point << 60) | ((uint64_t)f->point_vertex << 52) | ((uint64_t)f->point_subtask << 40) |
           f->point_ckpt;
}

void spc_point_of_key(uint64_t key, scn_fault *f) {
    f->point = (scn_point)(key >> 60);
    f->point_vertex = (uint32_t)(key >> 52 & 0xff);
    f->point_subtask = (uint32_t)(key >> 40 & 0xfff);
    f->point_ckpt = key & ((1ull << 40) - 1);
    SIM_ASSERT(f->point != SCN_AT_TIME && spc_point_key(f) == key);
}

/* The slot that holds key, or the empty one where it would go. The set
 * never fills: it holds at most SPC_POINTS_MAX keys in twice as many
 * slots. */
static uint32_t seen_slot(const spc_points *ps, uint64_t key) {
    uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) % SEEN_SLOTS;
    while (ps->seen[i] != 0 && ps->seen[i] != key) i = (i + 1) % SEEN_SLOTS;
    return i;
}

void spc_points_observe(void *ctx, const pipe_event *e) {
    spc_points *ps = ctx;
    scn_fault f = { 0 };
    if (!scn_point_of(e, ps->j, &f)) return;
    if (f.point_ckpt == 0 || f.point_ckpt > UINT32_MAX) {   /* no line can name it (a restore's commit of nothing) */
        ps->unnamed++;
        return;
    }
    if (f.point_ckpt > ps->ckpt_max) ps->ckpt_max = f.point_ckpt;
    uint64_t key = spc_point_key(&f);
    uint32_t slot = seen_slot(ps, key);
    if (ps->seen[slot] != 0) return;                /* reached before: a fault there fired the first time */
    if (ps->count == SPC_POINTS_MAX) {              /* a new point past the bound: the space is too big */
        ps->overflow = true;
        return;
    }
    ps->seen[slot] = key;
    ps->at[ps->count] = f;
    ps->at_ns[ps->count] = e->at_ns;
    ps->count++;
}

/* ---- the menu ------------------------------------------------------------ */

uint64_t spc_kinds_all(void) {
    uint64_t all = 0;
    for (uint32_t i = 0; fk_at(i) != NULL; i++) {
        const fk_info *k = fk_at(i);
        if (!(k->flags & FK_AT_TIME)) all |= 1ull << k->kind;
    }
    return all;
}

typedef struct menu_ctx {
    const scn     *s;
    const job     *j;
    const spc_opts *o;
    scn           *scratch;
    spc_menu      *m;
} menu_ctx;

/* The fault with its parameter and window as the menu fixes them. */
static scn_fault menu_fault(const fk_info *k, sim_time_ns window_ns) {
    scn_fault f = { .kind = k->kind, .point = SCN_WHEN_STARTS, .point_ckpt = 1 };
    switch (k->param) {
    case FK_NO_PARAM:       break;
    case FK_BY_DELAY:       f.delay_ns = window_ns; break;
    case FK_RATIO:          f.ratio = (sim_ratio){ .num = 1, .den = 1 }; break;
    case FK_FACTOR:         f.factor = 10; break;
    case FK_TO_PARALLELISM:
    case FK_RESUME:         SIM_ASSERT(false); break;   /* rescale, stop, cancel: at a time only */
    }
    bool back_at_once = (k->flags & FK_BACK_AT_ONCE) != 0;
    if (k->window == FK_WINDOW_REQUIRED || (k->window == FK_WINDOW_OPTIONAL && !back_at_once)) {
        f.duration_ns = window_ns;
    }
    return f;
}

/* Appends f when the reader takes it in this scenario (round trip through
 * the writer and the reader: targets, stores and limits as a file says
 * them), else counts the refusal. */
static void offer(menu_ctx *c, const scn_fault *f) {
    spc_menu *m = c->m;
    if (m->count == SPC_MENU_MAX) {
        m->beyond++;
        return;
    }
    *c->scratch = *c->s;
    if (c->scratch->faults_count == SCN_FAULTS_MAX) {
        m->refused++;
        if (m->first_refusal[0] == '\0') snprintf(m->first_refusal, sizeof m->first_refusal, "the script is full");
        return;
    }
    c->scratch->faults[c->scratch->faults_count++] = *f;
    char err[SCN_ERR_BYTES];
    bool ok = scn_reparse(c->scratch, c->scratch, err, sizeof err);
    if (ok) {
        m->faults[m->count++] = *f;
    } else {
        m->refused++;
        if (m->first_refusal[0] == '\0') snprintf(m->first_refusal, sizeof m->first_refusal, "%s", err);
    }
}

static void set_task(scn_fault *f, const job_task *t) {
    f->vertex = t->vertex;
    f->subtask = t->subtask;
}

/* The RPC kinds of the menu: every message from the task (0), and the
 * three the coordinator sends a task for a checkpoint. */
static void rpc_kinds(uint32_t out[SPC_RPC_KINDS]) {
    static const char *const to_task[SPC_RPC_KINDS - 1] = { "trigger", "complete", "abort" };
    out[0] = 0;
    for (uint32_t i = 0; i < SPC_RPC_KINDS - 1; i++) {
        uint32_t n = 0;
        while (pipe_rpc_kind_names[n] != NULL && strcmp(pipe_rpc_kind_names[n], to_task[i]) != 0) n++;
        SIM_ASSERT(pipe_rpc_kind_names[n] != NULL);
        out[i + 1] = n + 1;
    }
}

static void offer_partitions(menu_ctx *c, scn_fault f) {
    uint32_t n = c->s->cfg.machines;                 /* machine n: the JobManager's */
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t b = a + 1; b <= n; b++) {
            f.machines_a = 1ull << a;
            f.machines_b = 1ull << b;
            offer(c, &f);
        }
    }
}

bool spc_kind_timed(const fk_info *k) {
    scn_fault f = menu_fault(k, 1);
    return f.duration_ns != 0 || f.delay_ns != 0;
}

/* Every target of kind k, each offered, at window_ns. */
static void offer_targets(menu_ctx *c, const fk_info *k, sim_time_ns window_ns) {
    scn_fault f = menu_fault(k, window_ns);
    const job *j = c->j;
    switch (k->target) {
    case FK_MACHINE:
        for (uint32_t m = 0; m < c->s->cfg.machines; m++) f.machine = m, offer(c, &f);
        break;
    case FK_TASK:
        for (uint32_t t = 0; t < j->tasks_count; t++) set_task(&f, &j->tasks[t]), offer(c, &f);
        break;
    case FK_COORDINATOR: offer(c, &f); break;
    case FK_MACHINES:    offer_partitions(c, f); break;
    case FK_LINK:
        for (uint32_t ch = 0; ch < j->chans_count; ch++) {
            set_task(&f, &j->tasks[j->chans[ch].producer]);
            f.vertex2 = j->tasks[j->chans[ch].consumer].vertex;
            f.subtask2 = j->tasks[j->chans[ch].consumer].subtask;
            offer(c, &f);
        }
        break;
    case FK_RPC: {
        uint32_t kinds[SPC_RPC_KINDS];
        rpc_kinds(kinds);
        for (uint32_t t = 0; t < j->tasks_count; t++) {
            set_task(&f, &j->tasks[t]);
            for (uint32_t r = 0; r < SPC_RPC_KINDS; r++) f.rpc = kinds[r], offer(c, &f);
        }
        break;
    }
    case FK_STORE:
        offer(c, &f);
        if (k->flags & FK_HA) f.ha = true, offer(c, &f);
        break;
    case FK_VERTEX:
    case FK_JOB: SIM_ASSERT(false); break;          /* rescale, stop, cancel: at a time only, never on the menu */
    }
}

/* Kind k at the window (its bit) and at each length of its own, each
 * length once; an untimed kind once in all. */
static void offer_lengths(menu_ctx *c, const fk_info *k) {
    const spc_opts *o = c->o;
    sim_time_ns done[SPC_LENGTHS_MAX + 1];
    uint32_t n = 0;
    if (o->kinds >> k->kind & 1) done[n++] = o->window_ns;
    for (uint32_t e = 0; e < o->lengths_count; e++) {
        const spc_length *l = &o->lengths[e];
        SIM_ASSERT(l->window_ns > 0);
        bool seen = l->kind != k->kind || (n > 0 && !spc_kind_timed(k));
        for (uint32_t d = 0; d < n && !seen; d++) seen = done[d] == l->window_ns;
        if (!seen) done[n++] = l->window_ns;
    }
    for (uint32_t d = 0; d < n; d++) offer_targets(c, k, done[d]);
}

void spc_menu_build(const scn *s, const job *j, const spc_opts *o, scn *scratch, spc_menu *m) {
    memset(m, 0, sizeof *m);
    menu_ctx c = { .s = s, .j = j, .o = o, .scratch = scratch, .m = m };
    SIM_ASSERT(o->lengths_count <= SPC_LENGTHS_MAX);
    for (uint32_t i = 0; fk_at(i) != NULL; i++) {
        const fk_info *k = fk_at(i);
        if (!(k->flags & FK_AT_TIME)) offer_lengths(&c, k);
    }
}

void spc_place(const spc_points *ps, const spc_menu *m, uint64_t i, scn_fault *f) {
    SIM_ASSERT(m->count > 0 && i < (uint64_t)ps->count * m->count);
    const scn_fault *p = &ps->at[i / m->count];
    *f = m->faults[i % m->count];
    f->point = p->point;
    f->point_vertex = p->point_vertex;
    f->point_subtask = p->point_subtask;
    f->point_ckpt = p->point_ckpt;
    f->at_ns = 0;
    f->optional = false;
}
