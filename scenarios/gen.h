/* scenarios/gen.h: job shapes drawn per seed (absim generate): a scenario
 * file's text whose job graph, input, checkpointing, state backend and
 * restart strategy are drawn within fixed bounds, so that campaigns cover
 * shapes no hand-written file has.
 *
 * Contract:
 * - Deterministic: the same seed gives the same text (a stream of its own).
 * - Valid by construction: the reader accepts every text and pipe_create
 *   every job (tests/test_gen.c holds it for thousands of seeds); a text
 *   the reader refused would be a defect of the generator.
 * - What is drawn (the bounds in gen.c): one source, or two on topics of
 *   their own into a keyed join; then up to three operators among map,
 *   filter, keyed aggregate and event-time window (tumbling or sliding,
 *   its source then emitting watermarks); a sink of each output kind;
 *   parallelism 1 to 4 each, an explicit max parallelism for some keyed
 *   vertices; hash edges into keyed vertices, forward edges between equal
 *   parallelisms half the time, else rebalance; 1 to 3 machines; aligned,
 *   unaligned or at-least-once checkpoints (max-concurrent 1 to 3 where
 *   Flink allows more than one, an alignment timeout for some aligned
 *   ones); the memory or the durable backend, full or incremental; a
 *   fixed-delay restart strategy that does not give up, so the job
 *   finishes under any fault profile.
 * - Its expect lines: the job finishes; the invariants the configuration
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
