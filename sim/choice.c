/* sim/choice.c: record and replay strategies for the choice point. */
#include "choice.h"

void choice_log_init(choice_log *log, choice_entry *entries, uint64_t capacity) {
    SIM_ASSERT(entries != NULL);
    SIM_ASSERT(capacity > 0);
    *log = (choice_log){ 0 };
    log->entries = entries;
    log->capacity = capacity;
}

static uint32_t draw(rng *stream, uint32_t n) {
    return n != 0 ? rng_below(stream, n) : rng_u32(stream);
}

static uint32_t record_choose(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind,
                              uint32_t n) {
    (void)run;
    choice_log *log = ctx;
    uint32_t v = draw(stream, n);
    if (log->count < log->capacity) {
        log->entries[log->count++] = (choice_entry){ .value = v, .n = n, .kind = (uint8_t)kind };
    } else {
        log->overflow = true;
    }
    return v;
}

static uint32_t replay_choose(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind,
                              uint32_t n) {
    (void)run;
    choice_log *log = ctx;
    if (!log->diverged) {
        if (log->cursor < log->count) {
            const choice_entry *e = &log->entries[log->cursor];
            if (e->kind == kind && e->n == n) {
                log->cursor++;
                return e->value;
            }
        }
        log->diverged = true;
        log->diverged_at = log->cursor;
    }
    return draw(stream, n);
}

void choice_record(sim_run *run, choice_log *log) {
    SIM_ASSERT(!run->started);
    run->chooser = (sim_chooser){ .choose = record_choose, .ctx = log };
}

void choice_replay(sim_run *run, choice_log *log) {
    SIM_ASSERT(!run->started);
    log->cursor = 0;
    log->diverged = false;
    run->chooser = (sim_chooser){ .choose = replay_choose, .ctx = log };
}

static uint32_t deviate_choose(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    (void)run;
    choice_deviation *d = ctx;
    if (kind != SIM_CHOICE_ORDER) return draw(stream, n);
    SIM_ASSERT(n > 1);                          /* the kernel asks only when several are ready */
    d->seen++;
    if (d->log != NULL) {
        if (d->seen <= d->log_cap) d->log[d->seen - 1] = (uint16_t)(n < UINT16_MAX ? n : UINT16_MAX);
        else d->log_overflow = true;
    }
    if (d->next == d->count || d->ties[d->next].at != d->seen) return 0;
    uint32_t i = d->next++, pick = d->ties[i].pick;
    if (pick >= n) return 0;
    d->applied |= 1u << i;
    return pick;
}

void choice_deviate(sim_run *run, choice_deviation *d) {
    SIM_ASSERT(!run->started && run->cfg.order_ties);
    SIM_ASSERT(d->count <= CHOICE_TIES_MAX);
    for (uint32_t i = 0; i < d->count; i++) {
        SIM_ASSERT(d->ties[i].at >= 1 && d->ties[i].pick >= 1);
        SIM_ASSERT(i == 0 || d->ties[i].at > d->ties[i - 1].at);
    }
    d->seen = 0;
    d->next = 0;
    d->applied = 0;
    d->log_overflow = false;
    run->chooser = (sim_chooser){ .choose = deviate_choose, .ctx = d };
}

bool choice_deviation_applied(const choice_deviation *d, uint32_t *first) {
    for (uint32_t i = 0; i < d->count; i++) {
        if (d->applied >> i & 1) continue;
        *first = i;
        return false;
    }
    return true;
}

/* The change points, at the first decision: distinct unless there are
 * fewer decisions than change points. */
static void pct_draw_changes(choice_pct *p, rng *stream) {
    uint32_t changes = p->depth - 1;
    for (uint32_t i = 0; i < changes; i++) {
        bool again;
        do {
            p->change_at[i] = 1 + (p->steps <= UINT32_MAX ? rng_below(stream, (uint32_t)p->steps)
                                                          : ((uint64_t)rng_u32(stream) << 32 | rng_u32(stream)) % p->steps);
            again = false;
            for (uint32_t j = 0; j < i && p->steps >= changes; j++) again |= p->change_at[j] == p->change_at[i];
        } while (again);
    }
    p->drawn = true;
}

static uint32_t pct_slot(const choice_pct *p, uint32_t dst) {
    uint32_t slot = dst == SIM_KERNEL ? p->slots - 1 : dst;
    SIM_ASSERT(slot < p->slots);
    return slot;
}

/* The rank among the ready of the destination with the highest priority. */
static uint32_t pct_top(const choice_pct *p, const uint32_t *ready, uint32_t n) {
    uint32_t top = 0;
    for (uint32_t k = 1; k < n; k++) {
        if (p->prio[pct_slot(p, ready[k])] > p->prio[pct_slot(p, ready[top])]) top = k;
    }
    return top;
}

static uint32_t pct_choose(void *ctx, sim_run *run, rng *stream, sim_choice_kind kind, uint32_t n) {
    choice_pct *p = ctx;
    if (kind != SIM_CHOICE_ORDER) return draw(stream, n);
    uint32_t ready_n;
    const uint32_t *ready = sim_ready_dsts(run, &ready_n);
    SIM_ASSERT(ready != NULL && ready_n == n && n > 1);
    if (!p->drawn) pct_draw_changes(p, stream);
    p->seen++;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t *pr = &p->prio[pct_slot(p, ready[k])];
        if (*pr != 0) continue;
        *pr = ((uint64_t)rng_u32(stream) + 1) << 32 | ready[k];   /* above every change point's, distinct */
        p->met++;
    }
    for (uint32_t i = 0; i + 1 < p->depth; i++) {
        if (p->change_at[i] != p->seen) continue;
        p->prio[pct_slot(p, ready[pct_top(p, ready, n)])] = i + 1;
        p->changed++;
    }
    return pct_top(p, ready, n);
}

void choice_pct_install(sim_run *run, choice_pct *p, uint32_t depth, uint64_t steps, uint64_t *prio) {
    SIM_ASSERT(!run->started && run->cfg.order_ties);
    SIM_ASSERT(depth >= 1 && depth <= CHOICE_PCT_DEPTH_MAX && steps >= 1 && prio != NULL);
    *p = (choice_pct){ .depth = depth, .steps = steps, .prio = prio, .slots = run->cfg.actors_max + 1 };
    for (uint32_t i = 0; i < p->slots; i++) prio[i] = 0;
    run->chooser = (sim_chooser){ .choose = pct_choose, .ctx = p };
}

double choice_pct_bound(const choice_pct *p) {
    if (p->met == 0) return 0;
    double den = p->met;
    for (uint32_t i = 1; i < p->depth; i++) den *= (double)p->steps;
    return 1.0 / den;
}
