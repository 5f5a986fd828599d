#!/bin/sh
# Runs each cmocka test binary and prints one closing tally line.
passed=0; failed=0; failed_bins=""
for t in "$@"; do
    out=$(ASAN_OPTIONS=allocator_may_return_null=1 "$t" 2>&1); rc=$?
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    passed=$((passed + ${p:-0}))
    if [ $rc -ne 0 ]; then
        failed=$((failed + ${f:-1})); failed_bins="$failed_bins $t"
        printf '%s\n' "$out"
    else
        printf '%-28s %3s passed\n' "$(basename "$t")" "${p:-0}"
    fi
done
echo "unit: $passed passed, $failed failed"
[ $failed -eq 0 ] || { echo "failing:$failed_bins"; exit 1; }
