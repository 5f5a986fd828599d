#!/bin/sh
# Every scenario file is a test: `absim run` must exit 0 (all its expect
# lines held). Usage: sh tests/scenario_check.sh ABSIM
absim=${1:?usage: scenario_check.sh ABSIM}
passed=0; failed=0

# expect_ok WHAT FAILED_AS COMMAND...: counts the command's exit, says
# "ok FILE WHAT" or "FAIL FILE FAILED_AS" with its output ($f: the file).
expect_ok() {
    what=$1; failed_as=$2; shift 2
    if out=$("$@" 2>&1); then
        passed=$((passed + 1))
        printf 'scenario-check: ok   %s%s\n' "$f" "$what"
    else
        failed=$((failed + 1))
        printf 'scenario-check: FAIL %s%s\n%s\n' "$f" "$failed_as" "$out"
    fi
}

for f in $(find scenarios -name '*.scn' | sort); do
    expect_ok "" "" "$absim" run "$f"
done
# The swarm scenarios must hold under every random fault profile.
for f in $(find scenarios/swarm -name '*.scn' | sort); do
    expect_ok " under 300 random fault profiles" " under random faults" \
        "$absim" swarm "$f" --seeds 1..300 --faults random
done
# The explore scenarios must hold with every fault of the menu at every
# protocol point, and every order of simultaneous events one decision away
# from the default (absim explore --ties). EXPLORE_KINDS narrows the menu (the
# sanitizer build, whose runs are slower, takes the crashes and lost RPCs).
# Then every pair of coordinator crashes: the second at each point the
# first one's run reaches after it (absim explore --depth 2; a failover
# during a failover's recovery, crashes on both sides of a restore).
for f in $(find scenarios/explore -name '*.scn' | sort); do
    expect_ok " with every placement of ${EXPLORE_KINDS:-the whole menu} and every tie order" " under absim explore" \
        "$absim" explore "$f" --ties --quiet ${EXPLORE_KINDS:+--kinds "$EXPLORE_KINDS"}
    expect_ok " with every pair of coordinator crashes" " under absim explore --depth 2" \
        "$absim" explore "$f" --depth 2 --kinds crash-coordinator --quiet
    # Two-level fault activation (--faults buggify), with PCT ordering the
    # simultaneous events, and with Flink's test randomisation of unaligned
    # checkpoints (vary unaligned) under random and buggify profiles.
    expect_ok " under 200 buggify profiles with PCT" " under --faults buggify --pct 2" \
        "$absim" swarm "$f" --seeds 1..200 --faults buggify --pct 2 --quiet
    v=$(mktemp --suffix=.scn); printf 'vary unaligned\n' | cat "$f" - > "$v"
    expect_ok " with vary unaligned under 200 random and 200 buggify profiles" " with vary unaligned" \
        sh -c "\"$absim\" swarm \"$v\" --seeds 1..200 --faults random --quiet && \"$absim\" swarm \"$v\" --seeds 1..200 --faults buggify --quiet"
    rm -f "$v"
done
# Job shapes drawn per seed (absim generate): 40 of them, each under 3
# random and 2 buggify fault profiles.
gdir=$(mktemp -d)
if "$absim" generate --seeds 1..40 --dir "$gdir" > /dev/null; then
    f="$gdir (absim generate --seeds 1..40)"
    expect_ok " under 3 random and 2 buggify profiles each" " under random or buggify faults" \
        sh -c "\"$absim\" swarm \"$gdir\"/*.scn --seeds 1..3 --faults random --quiet && \"$absim\" swarm \"$gdir\"/*.scn --seeds 1..2 --faults buggify --quiet"
else
    failed=$((failed + 1)); echo "scenario-check: FAIL absim generate --seeds 1..40"
fi
rm -rf "$gdir"
echo "scenario-check: $passed passed, $failed failed"
[ $failed -eq 0 ]
