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
    if (d->seen != d->at || d->pick >= n) return 0;
    d->applied = true;
    return d->pick;
}

void choice_deviate(sim_run *run, choice_deviation *d) {
    SIM_ASSERT(!run->started && run->cfg.order_ties);
    d->seen = 0;
    d->applied = false;
    d->log_overflow = false;
    run->chooser = (sim_chooser){ .choose = deviate_choose, .ctx = d };
}
