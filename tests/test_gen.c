/* tests/test_gen.c: job shapes drawn per seed (scenarios/gen.h): every
 * text the reader accepts and pipe_create builds, the same for the same
 * seed, and the shapes spread over what the bounds allow. */
#include "harness.h"

#include "../scenarios/gen.h"
#include "../scenarios/scn.h"
#include "../model/pipe.h"

#include <stdlib.h>

static scn s_;

static void test_every_drawn_job_is_one_the_reader_and_the_model_accept(void **state) {
    (void)state;
    char text[GEN_TEXT_BYTES], again[GEN_TEXT_BYTES], err[SCN_ERR_BYTES];
    uint32_t joins = 0, windows = 0, forward = 0, modes[4] = { 0 }, outputs[3] = { 0 }, max_par = 0, differ = 0;
    char prev[GEN_TEXT_BYTES] = "";
    for (uint64_t seed = 1; seed <= 1500; seed++) {
        size_t n = gen_job(seed, text, sizeof text);
        assert_int_equal(strlen(text), n);
        assert_int_equal(gen_job(seed, again, sizeof again), n);
        assert_string_equal(text, again);
        const char *shape = strstr(text, "machines ");   /* past the lines that name the seed */
        assert_non_null(shape);
        differ += strcmp(shape, prev) != 0;
        memcpy(prev, shape, strlen(shape) + 1);
        if (!scn_parse(&s_, "gen.scn", text, n, err, sizeof err)) fail_msg("seed %llu: %s\n%s", (unsigned long long)seed, err, text);
        pipeline *p = pipe_create(&s_.cfg, err, sizeof err);
        if (p == NULL) fail_msg("seed %llu: %s\n%s", (unsigned long long)seed, err, text);
        pipe_destroy(p);
        joins += strstr(text, "keyed-join") != NULL;
        windows += strstr(text, " window ") != NULL;
        forward += strstr(text, " forward\n") != NULL;
        max_par += strstr(text, "max-parallelism") != NULL;
        modes[s_.cfg.ckpt.mode]++;
        outputs[0] += strstr(text, "output plain") != NULL;
        outputs[1] += strstr(text, "output idempotent") != NULL;
        outputs[2] += strstr(text, "output two-phase-commit") != NULL;
    }
    print_message("gen: joins %u, windows %u, forward %u, max-parallelism %u, modes %u/%u/%u\n", joins, windows, forward,
                  max_par, modes[PIPE_ALIGNED], modes[PIPE_AT_LEAST_ONCE], modes[PIPE_UNALIGNED]);
    assert_true(joins > 300 && windows > 100 && forward > 200 && max_par > 100);
    assert_true(modes[PIPE_ALIGNED] > 300 && modes[PIPE_AT_LEAST_ONCE] > 300 && modes[PIPE_UNALIGNED] > 300);
    for (uint32_t i = 0; i < 3; i++) assert_true(outputs[i] > 300);
    assert_true(differ > 1490);                   /* a shape of its own nearly every seed */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_drawn_job_is_one_the_reader_and_the_model_accept),
    };
    return cmocka_run_group_tests_name("gen", tests, NULL, NULL);
}
