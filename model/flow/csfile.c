/* model/flow/csfile.c: channel-state records as store entries (csfile.h). */
#include "csfile.h"

bool csfile_append(store *st, uint64_t file, const rt_cs_rec *r) {
    SIM_ASSERT(r->chan < (1u << 31) && r->rec.key <= UINT32_MAX && r->output <= 1);
    kagg agg = { .count = r->rec.key | (uint64_t)r->chan << 32 | (uint64_t)r->output << 63,
                 .sum = r->rec.value, .fingerprint = r->rec.event_time_ns };
    return store_append(st, file, r->rec.id, &agg);
}

bool csfile_next(const store *st, uint64_t file, uint64_t *cursor, rt_cs_rec *out) {
    store_entry e;
    if (!store_next(st, file, cursor, &e)) return false;
    out->rec = (model_rec){ .id = e.key, .key = e.agg.count & UINT32_MAX, .value = e.agg.sum,
                            .event_time_ns = e.agg.fingerprint };
    out->chan = (uint32_t)(e.agg.count >> 32) & 0x7fffffffu;
    out->output = (uint32_t)(e.agg.count >> 63);
    return true;
}
