#!/bin/sh
# Command-line behaviour of build/absim: outputs, error messages and exit
# codes (0 ok, 1 failure, 2 bad input). Usage: sh tests/cli_check.sh ABSIM
absim=${1:?usage: cli_check.sh ABSIM}
passed=0; failed=0
check() {   # check NAME EXPECTED_RC EXPECTED_OUTPUT_SUBSTRING COMMAND...
    name=$1; want_rc=$2; want=$3; shift 3
    out=$("$@" 2>&1); rc=$?
    case "$out" in
        *"$want"*) ok=1 ;;
        *) ok=0 ;;
    esac
    if [ "$rc" = "$want_rc" ] && [ $ok = 1 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf 'cli-check: FAILED %s: exit %s (want %s), output:\n%s\n' "$name" "$rc" "$want_rc" "$out"
    fi
}
gate_stdin() { printf '%s' "$1" | "$absim" gate --mode aligned --channels 2; }

check "gate aligned by arguments" 0 "$(printf 'emit 0\nemit 3\ntrigger 1\nemit 2')" \
    "$absim" gate --mode aligned --channels 2 r@0 b1@0 r@0 r@1 b1@1
check "gate reads stdin with comments" 0 "$(printf 'emit 0\nemit 3\ntrigger 1\nemit 2')" \
    gate_stdin "$(printf 'r@0 b1@0 # the first barrier blocks input 0\nr@0\n  r@1 b1@1\n')"
check "gate stdin error names line and column" 2 "<stdin>:2:3: token 'r@7': channel 7 out of range" \
    gate_stdin "$(printf 'r@0\n  r@7\n')"
check "gate argument error names the token" 2 "absim gate: at index 1: token 'zz': unknown kind" \
    "$absim" gate --mode aligned --channels 2 r@0 zz
check "gate unknown mode" 2 "--mode 'foo': expected aligned, at-least-once or unaligned" \
    "$absim" gate --mode foo --channels 2
check "gate help" 0 "usage: absim gate" "$absim" gate --help
check "bench rejects a bad number" 2 "--events 'ten': not a whole number" "$absim" bench phold --events ten
check "bench rejects a bad probability" 2 "--remote '1.5'" "$absim" bench phold --remote 1.5
check "bench rejects an unknown option" 2 "unknown option or missing value: '--frob'" "$absim" bench phold --frob
check "bench phold prints its JSON line" 0 '"trace_hash":"' "$absim" bench phold --lps 10 --events 1000
check "demo runs to the end" 0 "delivered 200/200 messages" "$absim" demo --messages 200
check "unknown command" 2 "unknown command 'frob'" "$absim" frob
bad=$(mktemp); printf 'seed 1\nvertex a sourze\n' > "$bad"
check "run: a bad scenario names file, line and column" 2 "$bad:2:10: unknown vertex kind 'sourze' (did you mean 'source'?)" \
    "$absim" run "$bad"
check "run: a missing file" 2 "/nonexistent.scn: cannot open" "$absim" run /nonexistent.scn
sed 's/^expect restarts == 1$/expect restarts == 0/' scenarios/faults/crash-machine.scn > "$bad"
check "run: a failed expectation exits 1 and names its line" 1 "$bad:29: expectation failed: restarts == 0 (got 1)" \
    "$absim" run "$bad"
check "run: the seed can be overridden" 0 "seed 7," "$absim" run scenarios/faults/crash-machine.scn --seed 7
rm -f "$bad"
echo "cli-check: $passed passed, $failed failed"
[ $failed -eq 0 ]
