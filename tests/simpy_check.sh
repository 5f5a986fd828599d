#!/bin/sh
# tests/simpy_check.sh ABSIM PYTHON: cross-checks absim's PHOLD against the
# independent SimPy model (tests/bench/phold_simpy.py --exact), which ports
# PCG32, the deterministic exponential, the handler's draw order and the
# trace fold. For each configuration both must report the same trace_hash,
# end_ns and dispatched count: the two simulators dispatched the same events
# in the same order at the same times. Prints one line per configuration and
# "simpy-check: N passed, M failed"; exits 1 on any mismatch.
#
# The configurations cover one LP, remote 0 / 0.5 / 0.9 / 1 (no draw, a
# drawn chance, a certain one), both seeds, and zero delays (lookahead 0,
# tiny or zero means), where ties at equal times must break in push order,
# and a mean of 2^40 ns, where a last-bit difference in the deterministic
# log changes about one truncated delay in a thousand (at 1 ms it is lost in
# the truncation, so only this configuration checks the log bit for bit).
absim=${1:?usage: simpy_check.sh ABSIM PYTHON}
python=${2:?usage: simpy_check.sh ABSIM PYTHON}
model="$(dirname "$0")/bench/phold_simpy.py"

if ! "$python" -c 'import simpy' >/dev/null 2>&1; then
    echo "simpy-check: $python cannot import simpy (Debian package python3-simpy3)"
    echo "simpy-check: 0 passed, 1 failed"
    exit 1
fi

# key JSON: the value of "key" in a one-line JSON object (numbers or strings).
field() {
    printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}

passed=0
failed=0
check() {
    a_out=$("$absim" bench phold "$@" 2>&1); a_rc=$?
    s_out=$("$python" "$model" --exact "$@" 2>&1); s_rc=$?
    a_key="$(field trace_hash "$a_out") $(field end_ns "$a_out") $(field dispatched "$a_out")"
    s_key="$(field trace_hash "$s_out") $(field end_ns "$s_out") $(field dispatched "$s_out")"
    if [ $a_rc -eq 0 ] && [ $s_rc -eq 0 ] && [ "$a_key" != "  " ] && [ "$a_key" = "$s_key" ]; then
        passed=$((passed + 1))
        printf 'simpy-check: ok   hash %s end_ns %-16s %s\n' \
            "$(field trace_hash "$a_out")" "$(field end_ns "$a_out")" "$*"
    else
        failed=$((failed + 1))
        printf 'simpy-check: FAIL %s\n' "$*"
        printf '  absim (rc %s): %s\n' "$a_rc" "$a_out"
        printf '  simpy (rc %s): %s\n' "$s_rc" "$s_out"
    fi
}

for seed in 1 12345; do
    check --lps 1 --events 1000 --seed $seed
    check --lps 10 --events 100000 --remote 0.5 --seed $seed
    check --lps 1000 --events 200000 --remote 0.9 --seed $seed
    check --lps 7 --events 5000 --remote 0 --seed $seed
    check --lps 7 --events 5000 --remote 1 --seed $seed
    check --lps 100 --events 50000 --lookahead-ns 0 --seed $seed
    check --lps 100 --events 50000 --lookahead-ns 0 --mean-ns 3 --seed $seed
    check --lps 50 --events 20000 --mean-ns 0 --lookahead-ns 5 --seed $seed
    check --lps 100 --events 30000 --remote 0.5 --mean-ns 1099511627776 --lookahead-ns 0 --seed $seed
done

echo "simpy-check: $passed passed, $failed failed"
[ $failed -eq 0 ]
