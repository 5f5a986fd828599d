/* sim/base.c: the assertion failure path. */
#include "base.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

_Thread_local sim_assert_ctx sim_assert_ctx_current;

_Noreturn void sim_assert_fail(const char *expr, const char *file, int line) {
    const sim_assert_ctx *c = &sim_assert_ctx_current;
    if (c->now_ns != NULL) {
        fprintf(stderr, "%s:%d: assertion failed: %s (seed=0x%016" PRIx64 " now_ns=%" PRIu64 ")\n",
                file, line, expr, c->seed, *c->now_ns);
    } else {
        fprintf(stderr, "%s:%d: assertion failed: %s (outside a run)\n", file, line, expr);
    }
    fflush(stderr);
    abort();
}
