/* model/flow/csfile.h: channel-state files: the in-flight records an
 * unaligned snapshot persisted, kept as the entries of one store file per
 * task and checkpoint (model/flow/store.h), so that they reach the
 * coordinator as a handle in the acknowledgement and a restore reads them
 * back from the store, as Flink's channel state does.
 *
 * Contract:
 * - One entry per record, in the order the task persisted them; the
 *   encoding is lossless for records of the broker (model/flow/broker.h):
 *   key = the record's id; agg.count = its key | channel << 32 | output << 63;
 *   agg.sum = its value; agg.fingerprint = its event time. So a channel id
 *   is below 2^31 and a key below 2^32 (asserted; job and broker limits are
 *   far lower).
 * - csfile_append() is false when the store has no room for the entry (the
 *   snapshot fails), like store_append(); csfile_next() iterates a live
 *   file from *cursor = 0.
 * - A channel-state file is never part of a keyed-state chain: restoring
 *   keyed state from one is a misuse nothing here can detect.
 */
#ifndef MODEL_FLOW_CSFILE_H
#define MODEL_FLOW_CSFILE_H

#include "store.h"

/* One record of channel state: an in-flight record a checkpoint overtook. */
typedef struct rt_cs_rec {
    model_rec rec;
    uint32_t  chan;
    uint32_t  output;                 /* 1: the producer re-emits it; 0: the consumer replays it */
} rt_cs_rec;

#define CSFILE_RECORD_BYTES ((uint64_t)sizeof(store_entry))   /* what one record takes in the store */

bool csfile_append(store *st, uint64_t file, const rt_cs_rec *r);
bool csfile_next(const store *st, uint64_t file, uint64_t *cursor, rt_cs_rec *out);

#endif
