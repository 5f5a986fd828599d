/* tests/fuzz/fuzz_scn.c: libFuzzer harness for the scenario reader. Any
 * input must give either a scenario or a message; never a crash, an
 * assertion or a sanitizer report. `make fuzz` builds and runs it with the
 * files of scenarios/ as its seed corpus. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../scenarios/inject.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static scn s;                                /* 40 KiB: not on the stack */
    char err[SCN_ERR_BYTES];
    if (size > SCN_FILE_BYTES_MAX) return 0;
    if (scn_parse(&s, "fuzz.scn", (const char *)data, size, err, sizeof err)) {
        /* Accepted: the configuration must be one pipe_create either builds
         * or refuses with a message. Building a job costs memory, so only
         * for small ones. */
        uint64_t records = broker_cfg_records(&s.cfg.broker);   /* every topic's */
        if (records <= 100000 && broker_cfg_keys(&s.cfg.broker) <= 100000) {
            char perr[256];
            pipeline *p = pipe_create(&s.cfg, perr, sizeof perr);
            if (p != NULL) {
                scn_add_faults(&s, p);
                pipe_destroy(p);
            }
        }
    } else if (err[0] == '\0') {
        abort();                                 /* a refusal must say why */
    }
    return 0;
}
