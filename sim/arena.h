/* sim/arena.h: one block of memory per run, carved by bumping a pointer.
 *
 * Contract:
 * - arena_create() is the only call that asks the system for memory (one
 *   calloc: pages are zeroed by the system when first touched, so a block
 *   sized for the worst case costs what a run touches; a block of 2 to
 *   64 MiB also asks for transparent huge pages, see arena.c); arena_destroy()
 *   gives all of it back with one free. Objects
 *   inside are never freed one by one.
 * - arena_alloc() returns zeroed memory aligned as asked, or aborts through
 *   SIM_ASSERT when the arena is full or frozen: running out is a sizing bug
 *   of the caller, not an operating error. arena_try_alloc() returns NULL
 *   instead, for callers that size by trial.
 * - arena_freeze() marks the end of initialisation: after it any allocation
 *   asserts, which is how "no allocation in steady state" is enforced.
 * - arena_mark()/arena_reset() roll the arena back to a mark (and unfreeze),
 *   so a test harness or a swarm worker can reuse one block for many runs.
 */
#ifndef SIM_ARENA_H
#define SIM_ARENA_H

#include "base.h"

typedef struct arena {
    uint8_t *base;
    size_t   size_bytes;
    size_t   used_bytes;
    size_t   peak_bytes;
    bool     frozen;
    uint32_t fail_after;   /* tests: the Nth try_alloc from now fails (0 = never) */
} arena;

bool   arena_create(arena *a, size_t size_bytes);   /* false when malloc fails */
void   arena_destroy(arena *a);
void  *arena_alloc(arena *a, size_t size_bytes, size_t align);
void  *arena_try_alloc(arena *a, size_t size_bytes, size_t align);
void   arena_freeze(arena *a);
size_t arena_mark(const arena *a);
void   arena_reset(arena *a, size_t mark);

#define ARENA_NEW(a, type, count) \
    ((type *)arena_alloc((a), sizeof(type) * (size_t)(count), _Alignof(type)))

#endif
