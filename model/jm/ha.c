/* model/jm/ha.c: the coordinator's side of the completed-checkpoint store
 * (world.h, ha_store): what a metadata write puts there, what retention
 * removes, and what a coordinator reads back after a failover or after a
 * write whose outcome it could not know.
 *
 * A checkpoint's metadata goes in two writes, as in Flink: the _metadata
 * file to the checkpoint storage, then its pointer to the HA services'
 * store (its own device, pipe_ha_dev). A pointer write that completed at
 * the store (reported done, or ambiguous: DEV_AMBIGUOUS) put the
 * checkpoint's handles there; one its writer was told failed did not. A
 * pointer write that ends after the coordinator abandoned the checkpoint
 * is taken as not done. A write whose writer crashed
 * before the completion is taken as not done: the store fences a leader
 * that lost its session. The store holds its own references to the files,
 * so a coordinator that dies or forgets a checkpoint deletes nothing the
 * store still names. */
#include "jm.h"

#include <string.h>

static uint32_t tasks_of(const jm_side *jm) { return world_job(jm->w)->tasks_count; }

/* A reference (ref) to every live file the handles name, or one let go
 * of: a deliberate bug may have deleted one, which stays named. */
static void hold_files(jm_side *jm, const rt_chain *chains, const uint64_t *cs_files, bool ref) {
    store *st = &jm->w->files;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        for (uint32_t i = 0; i <= chains[t].count; i++) {
            uint64_t f = i < chains[t].count ? chains[t].files[i] : cs_files[t];
            if (f == 0 || !store_alive(st, f)) continue;
            if (ref) store_ref(st, f);
            else store_unref(st, f);
        }
    }
}

void ha_entry_release(jm_side *jm, const ha_entry *e) { hold_files(jm, e->chains, e->cs_files, false); }

/* Entry i goes (its references too); the later ones move up. */
static void remove_at(jm_side *jm, uint32_t i) {
    ha_store *h = &jm->w->ha;
    SIM_ASSERT(i < h->count);
    ha_entry_release(jm, &h->entries[i]);
    ha_entry gone = h->entries[i];                /* its arrays are reused at the end */
    memmove(h->entries + i, h->entries + i + 1, sizeof(ha_entry) * (h->count - i - 1));
    h->entries[--h->count] = gone;
}

void ha_put(jm_side *jm, const rt_slot *s) {
    ha_store *h = &jm->w->ha;
    if (h->count == h->cap) remove_at(jm, 0);     /* the store keeps the newest */
    ha_entry_fill(jm, &h->entries[h->count++], s);
}

void ha_entry_fill(jm_side *jm, ha_entry *e, const rt_slot *s) {
    e->ckpt = s->ckpt;
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        e->chains[t] = s->chains[t];              /* as the metadata names them: a file a deliberate */
        e->cs_files[t] = s->cs_files[t];          /* bug deleted stays named, and its restore fails */
    }
    hold_files(jm, e->chains, e->cs_files, true);
    memcpy(e->offsets, s->offsets, sizeof(uint64_t) * jm->w->brk.partitions);
    memcpy(e->splits, s->splits, jm->w->brk.partitions);
    memcpy(e->par, s->par, sizeof e->par);
    e->unclaimed = s->unclaimed;
    e->canonical = s->canonical;
    e->drained = s->drained;
}

void ha_remove(jm_side *jm, uint64_t ckpt) {
    ha_store *h = &jm->w->ha;
    for (uint32_t i = 0; i < h->count; i++) {
        if (h->entries[i].ckpt == ckpt) {
            remove_at(jm, i);
            return;
        }
    }
}

bool ha_has(const jm_side *jm, uint64_t ckpt) {
    for (uint32_t i = 0; i < jm->w->ha.count; i++) {
        if (jm->w->ha.entries[i].ckpt == ckpt) return true;
    }
    return false;
}

rt_slot *ha_slot_from(jm_side *jm, const ha_entry *e) {
    rt_coord *co = &jm->coord;
    uint32_t k = 0;
    while (k < jm->slots_count && jm->slots[k].state != SLOT_FREE) k++;
    SIM_ASSERT(k < jm->slots_count);               /* slots = retained + concurrent + 1, all free but pending ones */
    SIM_ASSERT(co->completed_count < jm->w->cfg.ckpt.retained);
    rt_slot *s = &jm->slots[k];
    s->ckpt = e->ckpt;
    coord_slot_to(s, SLOT_COMPLETED);
    for (uint32_t t = 0; t < tasks_of(jm); t++) {
        s->chains[t] = e->chains[t];
        s->cs_files[t] = e->cs_files[t];
    }
    hold_files(jm, s->chains, s->cs_files, true);
    memcpy(s->offsets, e->offsets, sizeof(uint64_t) * jm->w->brk.partitions);
    memcpy(s->splits, e->splits, jm->w->brk.partitions);
    memcpy(s->par, e->par, sizeof s->par);
    s->unclaimed = e->unclaimed;
    s->canonical = e->canonical;
    s->drained = e->drained;
    co->completed_order[co->completed_count++] = k;
    co->restore_slot = k + 1;
    return s;
}

/* The coordinator's retained checkpoints become what the store holds: the
 * newest `retained` of its entries (older ones leave the store), oldest
 * first, the newest the one to restore. What the coordinator had in
 * memory is forgotten first (its references go; the store's keep the
 * files). */
void ha_recover(jm_side *jm) {
    rt_coord *co = &jm->coord;
    ha_store *h = &jm->w->ha;
    for (uint32_t i = 0; i < co->completed_count; i++) coord_free_slot(jm, &jm->slots[co->completed_order[i]]);
    co->completed_count = 0;
    co->restore_slot = 0;
    while (h->count > jm->w->cfg.ckpt.retained) remove_at(jm, 0);
    for (uint32_t i = 0; i < h->count; i++) ha_slot_from(jm, &h->entries[i]);
    if (jm->w->cfg.bug == PIPE_BUG_RESTORE_OLDER && co->completed_count > 0) co->restore_slot = co->completed_order[0] + 1;
}
