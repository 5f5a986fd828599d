/* sim/base.h: the kernel's basic types, limits and the always-on assertion.
 *
 * Contract:
 * - Simulated time is sim_time_ns, a 64-bit count of nanoseconds since the
 *   start of a run. Nothing in a run ever reads the wall clock.
 * - SIM_ASSERT stays on in every build (NDEBUG does not remove it). On failure
 *   it prints the expression, file:line, the seed and the virtual time of the
 *   run that was executing, then aborts, so every assertion failure names the
 *   seed that reproduces it.
 * - Probabilities are exact ratios of integers (sim_ratio), never floats, so a
 *   decision cannot depend on how a compiler rounds.
 */
#ifndef SIM_BASE_H
#define SIM_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t sim_time_ns;

#define SIM_TIME_NS_MAX UINT64_MAX
#define SIM_NS_PER_US   UINT64_C(1000)
#define SIM_NS_PER_MS   UINT64_C(1000000)
#define SIM_NS_PER_S    UINT64_C(1000000000)

/* Limits on everything the kernel holds. A run's configuration picks its own
 * sizes below these; the constants bound what the id encodings can carry. */
#define SIM_ACTORS_MAX         (1u << 20)
#define SIM_MACHINES_MAX       64u        /* partitions are 64-bit machine masks */
#define SIM_LINKS_MAX          (1u << 20)
#define SIM_TIMERS_MAX         (1u << 22)
#define SIM_DEVS_MAX           16u
#define SIM_FAULTS_MAX         4096u
#define SIM_EVENTS_PENDING_MAX (1u << 24) /* event slots fit the low 24 bits of a key */
#define SIM_PAUSED_RPC_MAX     2048u      /* RPC messages waiting for paused actors (sim/run.h); 1,600 random
                                             runs of the shipped swarm files needed at most 1,186 */
#define SIM_RPC_HELD_MAX       4096u      /* RPC messages delays hold at once in a run (sim/link.h): a delayed
                                             RPC link holds what its sender sends for as long as the delay */
#define SIM_RPC_LINK_HELD_MAX  256u       /* ... on one RPC link, so that one delayed link leaves the others room */
#define SIM_NAME_BYTES         32u        /* actor, machine and device names, with NUL */

_Static_assert(SIM_MACHINES_MAX <= 64, "a partition is a 64-bit mask of machines");
_Static_assert(SIM_EVENTS_PENDING_MAX <= (1u << 24), "slot index fits 24 bits of evq key");

/* An exact probability num/den; den > 0 and num <= den. */
typedef struct sim_ratio {
    uint32_t num;
    uint32_t den;
} sim_ratio;

#define SIM_RATIO_NEVER  ((sim_ratio){ .num = 0, .den = 1 })
#define SIM_RATIO_ALWAYS ((sim_ratio){ .num = 1, .den = 1 })

/* Context printed by a failing assertion. The kernel points it at the run it
 * is executing; it never influences a run, it only makes the crash message
 * name the seed and time. Thread-local so parallel test harnesses stay safe. */
typedef struct sim_assert_ctx {
    uint64_t seed;
    const sim_time_ns *now_ns;
} sim_assert_ctx;

extern _Thread_local sim_assert_ctx sim_assert_ctx_current;

_Noreturn void sim_assert_fail(const char *expr, const char *file, int line);

#define SIM_ASSERT(expr) \
    ((expr) ? (void)0 : sim_assert_fail(#expr, __FILE__, __LINE__))

#define SIM_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SIM_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* A hint to start loading p's line now: it changes no value, only when a
 * later load of it stops waiting. */
#define SIM_PREFETCH(p) __builtin_prefetch(p)

#endif
