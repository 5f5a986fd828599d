/* scenarios/gen.h: job shapes drawn per seed (absim generate): a scenario
 * file's text whose job graph, input, checkpointing, state backend and
 * restart strategy are drawn within fixed bounds, so that campaigns cover
 * shapes no hand-written file has.
 *
 * Contract:
 * - Deterministic: the same seed gives the same text (a stream of its own).
 * - Valid by construction: the reader accepts every text and pipe_create
 *   every job (tests/test_gen.c holds it for 1,500 seeds); a text the
 *   reader refused would be a defect of the generator.
 * - What is drawn (the bounds in gen.c): one source, or two on topics of
 *   their own into a keyed join; for a third of the jobs without a join,
 *   event time (records 10 us apart, watermarks at the source), and then
 *   an operator may be an event-time window (tumbling or sliding; only
 *   map and filter after it); up to three operators among map, filter,
 *   keyed aggregate (and window); a sink of each output kind; parallelism
 *   1 to 4 (a sink 1 to 3, a source at most a task per partition, a
 *   join's sources at most 3), an explicit max parallelism for some keyed
 *   vertices; hash edges into keyed vertices, forward edges between equal
 *   parallelisms half the time, else rebalance; 1 to 3 machines; aligned,
 *   unaligned or at-least-once checkpoints (max-concurrent 1 to 3 where
 *   Flink allows more than one, an alignment timeout for some aligned
 *   ones); the memory or the durable backend, full or incremental; a
 *   fixed-delay restart strategy that does not give up, so the job
 *   finishes under any fault profile.
 * - Its expect lines: the job finishes, and with exactly-once checkpoints
 *   and keyed state, exactly-once; the invariants the configuration
 *   promises are checked on every run whatever the file says.
 */
#ifndef SCN_GEN_H
#define SCN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GEN_TEXT_BYTES 4096u

/* The text of seed's job into buf (n >= GEN_TEXT_BYTES); its length. */
size_t gen_job(uint64_t seed, char *buf, size_t n);

#endif
