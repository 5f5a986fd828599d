/* scenarios/buggify.c: two-level fault activation at protocol points
 * (scenarios/buggify.h). */
#include "buggify.h"

#define BGY_POINT_KINDS (SCN_WHEN_COMMITS + 1)
#define BGY_FAULT_KINDS (SCN_DUPLICATE_RPC + 1)

typedef struct bgy_fire {
    uint32_t point;                   /* index in pts */
    uint32_t kind;                    /* scn_fault_kind */
} bgy_fire;

static uint32_t menu_count(const spc_menu *m, uint32_t kind) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->count; i++) n += (uint32_t)m->faults[i].kind == kind;
    return n;
}

/* Level 1: which sites are active, in a fixed order (point kind, then
 * fault kind), one draw per site of the run. */
static void draw_sites(rng *r, const spc_points *pts, const spc_menu *m, bool active[][BGY_FAULT_KINDS], bgy_tally *t) {
    bool reached[BGY_POINT_KINDS] = { false };
    for (uint32_t i = 0; i < pts->count; i++) {
        SIM_ASSERT(pts->at[i].point > SCN_AT_TIME && pts->at[i].point < BGY_POINT_KINDS);
        reached[pts->at[i].point] = true;
    }
    for (uint32_t p = SCN_WHEN_ALIGNING; p < BGY_POINT_KINDS; p++) {
        for (uint32_t k = SCN_CRASH_MACHINE; k < BGY_FAULT_KINDS; k++) {
            active[p][k] = false;
            if (!reached[p] || menu_count(m, k) == 0) continue;
            t->sites++;
            active[p][k] = rng_below(r, 4) == 0;
            t->active += active[p][k];
        }
    }
}

/* Level 2: at each point, each active site of its kind fires with
 * probability 1/4; a uniform sample of BGY_FIRES_MAX of the firings is
 * kept (reservoir sampling). Returns how many are kept. */
static uint32_t draw_fires(rng *r, const spc_points *pts, bool active[][BGY_FAULT_KINDS], bgy_fire *kept,
                           bgy_tally *t) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < pts->count; i++) {
        for (uint32_t k = SCN_CRASH_MACHINE; k < BGY_FAULT_KINDS; k++) {
            if (!active[pts->at[i].point][k]) continue;
            t->chances++;
            if (rng_below(r, 4) != 0) continue;
            t->fired++;
            SIM_ASSERT(t->fired < UINT32_MAX);    /* points x kinds: 4096 x 17 at most */
            bgy_fire f = { .point = i, .kind = k };
            if (n < BGY_FIRES_MAX) {
                kept[n++] = f;
            } else {
                uint32_t j = rng_below(r, (uint32_t)t->fired);
                if (j < BGY_FIRES_MAX) kept[j] = f;
            }
        }
    }
    for (uint32_t a = 1; a < n; a++) {            /* in point order, then kind */
        bgy_fire x = kept[a];
        uint32_t b = a;
        for (; b > 0 && (kept[b - 1].point > x.point || (kept[b - 1].point == x.point && kept[b - 1].kind > x.kind)); b--) {
            kept[b] = kept[b - 1];
        }
        kept[b] = x;
    }
    return n;
}

/* The menu index of the fault of `kind` at index `pick` among those of its kind. */
static uint32_t menu_pick(const spc_menu *m, uint32_t kind, uint32_t pick) {
    for (uint32_t i = 0; i < m->count; i++) {
        if ((uint32_t)m->faults[i].kind != kind) continue;
        if (pick-- == 0) return i;
    }
    SIM_ASSERT(false);
    return 0;
}

void bgy_faults(scn *s, uint64_t seed, const spc_points *pts, const spc_menu *m, bgy_tally *t) {
    *t = (bgy_tally){ 0 };
    rng r = rng_stream(seed, rng_stream_id(RNG_DOMAIN_MODEL, 0xb0661f1e));
    bool active[BGY_POINT_KINDS][BGY_FAULT_KINDS];
    draw_sites(&r, pts, m, active, t);
    bgy_fire kept[BGY_FIRES_MAX];
    uint32_t n = draw_fires(&r, pts, active, kept, t);
    for (uint32_t i = 0; i < n && s->faults_count < SCN_FAULTS_MAX; i++) {
        uint32_t fault = menu_pick(m, kept[i].kind, rng_below(&r, menu_count(m, kept[i].kind)));
        scn_fault *f = &s->faults[s->faults_count++];
        spc_place(pts, m, (uint64_t)kept[i].point * m->count + fault, f);   /* the menu fault at the point */
        f->optional = true;
        f->line = 0;
        t->added++;
    }
    SIM_ASSERT(t->added <= BGY_FIRES_MAX && t->active <= t->sites);
}
