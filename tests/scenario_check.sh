#!/bin/sh
# Every scenario file is a test: `absim run` must exit 0 (all its expect
# lines held). Usage: sh tests/scenario_check.sh ABSIM
absim=${1:?usage: scenario_check.sh ABSIM}
passed=0; failed=0
for f in $(find scenarios -name '*.scn' | sort); do
    if out=$("$absim" run "$f" 2>&1); then
        passed=$((passed + 1))
        printf 'scenario-check: ok   %s\n' "$f"
    else
        failed=$((failed + 1))
        printf 'scenario-check: FAIL %s\n%s\n' "$f" "$out"
    fi
done
# The swarm scenarios must hold under every random fault profile.
for f in $(find scenarios/swarm -name '*.scn' | sort); do
    if out=$("$absim" swarm "$f" --seeds 1..300 --faults random 2>&1); then
        passed=$((passed + 1))
        printf 'scenario-check: ok   %s under 300 random fault profiles\n' "$f"
    else
        failed=$((failed + 1))
        printf 'scenario-check: FAIL %s under random faults\n%s\n' "$f" "$out"
    fi
done
# The explore scenarios must hold with every fault of the menu at every
# protocol point, and every order of simultaneous events one decision away
# from the default (absim explore --ties). EXPLORE_KINDS narrows the menu (the
# sanitizer build, whose runs are slower, takes the crashes and lost RPCs).
for f in $(find scenarios/explore -name '*.scn' | sort); do
    if out=$("$absim" explore "$f" --ties --quiet ${EXPLORE_KINDS:+--kinds "$EXPLORE_KINDS"} 2>&1); then
        passed=$((passed + 1))
        printf 'scenario-check: ok   %s with every placement of %s and every tie order\n' "$f" "${EXPLORE_KINDS:-the whole menu}"
    else
        failed=$((failed + 1))
        printf 'scenario-check: FAIL %s under absim explore\n%s\n' "$f" "$out"
    fi
done
echo "scenario-check: $passed passed, $failed failed"
[ $failed -eq 0 ]
