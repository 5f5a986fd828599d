/* tests/test_arena.c: the run arena. */
#define _DEFAULT_SOURCE                      /* mincore */
#include "harness.h"

#include <sys/mman.h>
#include <unistd.h>

#include "../sim/arena.h"

static void test_arena_returns_aligned_zeroed_memory(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 4096));
    uint8_t *p = arena_alloc(&a, 3, 1);
    p[0] = p[1] = p[2] = 0xff;
    uint64_t *q = arena_alloc(&a, 64, 64);
    assert_int_equal((uintptr_t)q % 64, 0);
    for (int i = 0; i < 8; i++) assert_int_equal(q[i], 0);
    assert_true((uint8_t *)q >= p + 3);
    arena_destroy(&a);
}

static void test_arena_reset_reuses_memory_and_rezeroes_it(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 1024));
    size_t mark = arena_mark(&a);
    uint32_t *first = arena_alloc(&a, 256, 8);
    memset(first, 0xab, 256);
    arena_freeze(&a);
    assert_true(a.frozen);
    arena_reset(&a, mark);
    assert_false(a.frozen);
    assert_int_equal(arena_mark(&a), mark);
    uint32_t *second = arena_alloc(&a, 256, 8);
    assert_ptr_equal(first, second);           /* same memory handed out again */
    for (int i = 0; i < 64; i++) assert_int_equal(second[i], 0);
    assert_int_equal(a.peak_bytes, 256);
    arena_destroy(&a);
}

/* Only memory below the high-water mark is cleared by hand: an
 * allocation that straddles it is zero on both sides, and one at an
 * unaligned offset inside dirty memory is zero too. */
static void test_arena_zeroes_reused_memory_across_the_high_water_mark(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 4096));
    uint8_t *dirty = arena_alloc(&a, 300, 1);
    memset(dirty, 0xcd, 300);
    arena_reset(&a, 0);
    uint8_t *small = arena_alloc(&a, 7, 1);     /* inside the dirty part */
    for (int i = 0; i < 7; i++) assert_int_equal(small[i], 0);
    memset(small, 0xee, 7);
    uint8_t *wide = arena_alloc(&a, 1000, 64);  /* from dirty bytes into untouched ones */
    for (int i = 0; i < 1000; i++) assert_int_equal(wide[i], 0);
    assert_true(a.peak_bytes >= 1007);
    arena_destroy(&a);
}


/* Resident pages of [p, p + n), whole pages inside it only. */
static size_t resident_pages(const void *p, size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1), hi = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
    static unsigned char vec[1u << 16];
    assert_true(hi > lo && (hi - lo) / page <= sizeof vec);
    assert_int_equal(mincore((void *)lo, hi - lo, vec), 0);
    size_t in = 0;
    for (size_t i = 0; i < (hi - lo) / page; i++) in += vec[i] & 1;
    return in;
}

/* Lazy zeroing: memory never handed out before comes zero from the
 * system when first touched, so carving a large block touches none of
 * its pages (a run sized for the worst case pays for what it uses); only
 * memory handed out before a reset is cleared by hand, and is zero. */
static void test_arena_hands_out_fresh_memory_without_touching_it_and_reused_memory_zeroed(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 64u << 20));  /* beyond malloc's mmap threshold: fresh pages */
    uint8_t *big = arena_alloc(&a, 32u << 20, 64);
    uint8_t *more = arena_alloc(&a, 16u << 20, 64);
    /* Checked before anything is read: a huge page faulted in by a read
     * could spill over into a neighbour. */
    assert_int_equal(resident_pages(big, 32u << 20), 0);
    assert_int_equal(resident_pages(more, 16u << 20), 0);
    for (size_t i = 0; i < (32u << 20); i += 4096) assert_int_equal(big[i], 0);
    memset(big, 0x5a, 1u << 20);               /* dirty the first MiB */
    arena_reset(&a, 0);
    uint8_t *again = arena_alloc(&a, 2u << 20, 64);
    assert_ptr_equal(again, big);
    for (size_t i = 0; i < (2u << 20); i++) if (again[i] != 0) fail_msg("byte %zu handed out again is not zero", i);
    arena_destroy(&a);
}

static void test_arena_try_alloc_fails_cleanly_when_full(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 100));
    assert_non_null(arena_try_alloc(&a, 60, 4));
    assert_null(arena_try_alloc(&a, 60, 4));   /* would overflow */
    assert_non_null(arena_try_alloc(&a, 40, 4));
    assert_null(arena_try_alloc(&a, 1, 1));    /* exactly full */
    assert_int_equal(arena_mark(&a), 100);
    arena_destroy(&a);
}

static void test_arena_injected_failure_hits_the_nth_allocation(void **state) {
    (void)state;
    arena a;
    assert_true(arena_create(&a, 1024));
    a.fail_after = 3;
    assert_non_null(arena_try_alloc(&a, 8, 8));
    assert_non_null(arena_try_alloc(&a, 8, 8));
    size_t before = arena_mark(&a);
    assert_null(arena_try_alloc(&a, 8, 8));
    assert_int_equal(arena_mark(&a), before);  /* a failed allocation takes nothing */
    assert_non_null(arena_try_alloc(&a, 8, 8));
    arena_destroy(&a);
}

static void test_run_creation_fails_without_memory_instead_of_crashing(void **state) {
    (void)state;
    sim_cfg c = sim_cfg_default(1);
    c.model_bytes = SIZE_MAX / 2;              /* malloc must refuse this */
    assert_null(sim_run_create(&c));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena_returns_aligned_zeroed_memory),
        cmocka_unit_test(test_arena_reset_reuses_memory_and_rezeroes_it),
        cmocka_unit_test(test_arena_zeroes_reused_memory_across_the_high_water_mark),
        cmocka_unit_test(test_arena_hands_out_fresh_memory_without_touching_it_and_reused_memory_zeroed),
        cmocka_unit_test(test_arena_try_alloc_fails_cleanly_when_full),
        cmocka_unit_test(test_arena_injected_failure_hits_the_nth_allocation),
        cmocka_unit_test(test_run_creation_fails_without_memory_instead_of_crashing),
    };
    return cmocka_run_group_tests_name("arena", tests, NULL, NULL);
}
