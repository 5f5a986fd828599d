#!/bin/sh
# tests/flink_bar.sh ABSIM SEEDS: the import bar on the real Flink output
# in tests/flink (plans and hold-out alike): every plan, with no
# configuration and with every configuration, imported and run under SEEDS
# random fault profiles. One line per pair that fails or is refused, then
# a tally; exit 1 if a pair failed. Not part of `make test` (about ten
# minutes at 30 seeds on two cores).
absim=${1:?usage: flink_bar.sh ABSIM SEEDS}; seeds=${2:?usage: flink_bar.sh ABSIM SEEDS}
cd "$(dirname "$0")/.." || exit 2
scn=$(mktemp) || exit 2
trap 'rm -f "$scn" "$scn.err"' EXIT
pass=0; fail=0; refused=0; runs=0
for plan in tests/flink/plans/*.json tests/flink/holdout/plans/*.json; do
    case "$plan" in *TRUNCATED*) continue ;; esac       # cut off as published: refused at its line
    for conf in none tests/flink/conf/* tests/flink/holdout/conf/*; do
        if [ "$conf" = none ]; then set --; else set -- --config "$conf"; fi
        if ! "$absim" import "$plan" "$@" -o "$scn" >/dev/null 2>"$scn.err"; then
            refused=$((refused + 1)); echo "refused: $plan $conf: $(cat "$scn.err")"; continue
        fi
        out=$("$absim" swarm "$scn" --seeds "1..$seeds" --faults random 2>&1 | tail -1)
        runs=$((runs + seeds))
        case "$out" in
            *" 0 failed"*) pass=$((pass + 1)) ;;
            *) fail=$((fail + 1)); echo "failed: $plan $conf: $out" ;;
        esac
    done
done
echo "flink-bar: $pass pairs passed, $fail failed, $refused refused, $runs runs"
[ $fail -eq 0 ]
