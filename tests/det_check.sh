#!/bin/sh
# Determinism across builds: the same PHOLD run, kernel demo, streaming
# job (checkpointing every 10 ms) and scenario under a random fault profile
# (durable store, incremental and unaligned checkpoints, two-phase commit,
# crashes) must print the same trace hash from gcc and clang builds at -O0 and -O2,
# and each build must pass the golden-value tests (tests/test_rng.c,
# tests/test_run.c, tests/test_dmath.c, tests/test_broker.c). Prints one line per build and a closing tally.
set -u
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p build-det
ref_phold=""; ref_demo=""; ref_job=""; ref_scn=""; passed=0; failed=0
for cc in gcc clang; do
    for opt in -O0 -O2; do
        b="build-det/$cc$opt"
        if ! make --no-print-directory -s -j"$jobs" CC=$cc OPT=$opt BUILD=$b \
                "$b/absim" "$b/tests/test_rng" "$b/tests/test_run" "$b/tests/test_dmath" "$b/tests/test_broker" >"$b.log" 2>&1; then
            mkdir -p build-det; echo "det-check: $cc $opt: build failed"; cat "$b.log"; failed=$((failed + 1)); continue
        fi
        phold=$("$b/absim" bench phold --lps 1000 --events 1000000 --seed 7 | sed 's/.*"trace_hash":"\([0-9a-f]*\)".*/\1/')
        demo=$("$b/absim" demo --seed 3 | sed -n 's/.*trace_hash \([0-9a-f]*\).*/\1/p')
        job=$("$b/absim" bench pipeline --records 200000 --seed 5 --interval-ns 10000000 | sed 's/.*"trace_hash":"\([0-9a-f]*\)".*/\1/')
        scn=$("$b/absim" run scenarios/swarm/durable-unaligned-2pc.scn --seed 11 --faults random --json | sed 's/.*"trace_hash":"\([0-9a-f]*\)".*/\1/')
        golden=ok
        "$b/tests/test_rng" >/dev/null 2>&1 && "$b/tests/test_run" >/dev/null 2>&1 && "$b/tests/test_dmath" >/dev/null 2>&1 && "$b/tests/test_broker" >/dev/null 2>&1 || golden=FAILED
        [ -n "$ref_phold" ] || { ref_phold=$phold; ref_demo=$demo; ref_job=$job; ref_scn=$scn; }
        if [ "$phold" = "$ref_phold" ] && [ "$demo" = "$ref_demo" ] && [ "$job" = "$ref_job" ] && [ "$scn" = "$ref_scn" ] &&
           [ $golden = ok ] && [ -n "$phold" ] && [ -n "$demo" ] && [ -n "$job" ] && [ -n "$scn" ]; then
            passed=$((passed + 1)); verdict=same
        else
            failed=$((failed + 1)); verdict=DIFFERENT
        fi
        printf 'det-check: %-5s %s  phold %s  demo %s  job %s  scenario %s  golden tests %s  %s\n' "$cc" "$opt" "$phold" "$demo" "$job" "$scn" "$golden" "$verdict"
    done
done
echo "det-check: $passed passed, $failed failed"
[ $failed -eq 0 ]
