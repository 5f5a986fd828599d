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
lacks() {   # lacks NAME UNWANTED_OUTPUT_SUBSTRING COMMAND...: exit status ignored
    name=$1; unwanted=$2; shift 2
    out=$("$@" 2>&1)
    case "$out" in
        *"$unwanted"*) failed=$((failed + 1)); printf 'cli-check: FAILED %s: output has %s:\n%s\n' "$name" "$unwanted" "$out" ;;
        *) passed=$((passed + 1)) ;;
    esac
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
coord_stdin() { printf '%s' "$1" | "$absim" coord --interval 10; }
check "coord: a request behind max-concurrent waits in the queue and triggers at the completion" 0 \
    "$(printf 't=20 arm 30\nt=27 complete 1\nt=27 trigger 2\nt=30 arm 40')" \
    "$absim" coord --interval 10 --max-concurrent 1 start@0 wait@25 ack1@27 wait@30
check "coord: past tolerable the job fails and the count starts anew" 0 \
    "$(printf 't=22 abort 2 CHECKPOINT_DECLINED\nt=22 fail-job')" \
    "$absim" coord --interval 10 --tolerable 1 start@0 decline1@12 wait@20 decline2@22
check "coord: a barrier's abort is not counted" 0 "t=12 abort 1 CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER" \
    "$absim" coord --interval 10 start@0 cancel1@12 wait@20
check "coord: inside the min pause a request is dropped and the trigger moves" 0 \
    "$(printf 't=20 drop MINIMUM_TIME_BETWEEN_CHECKPOINTS\nt=20 arm 26')" \
    "$absim" coord --interval 10 --min-pause 8 start@0 wait@10 ack1@18 wait@20
check "coord: stdin error names line and column" 2 "<stdin>:2:1: 'ack1@3': time goes back (now 5)" \
    coord_stdin "$(printf 'start@0 wait@5 # five\nack1@3\n')"
check "coord: a first delay outside [min-pause, interval] is bad input" 2 "--first-delay 11 is outside [0, 10]" \
    "$absim" coord --interval 10 --first-delay 11
check "coord help" 0 "usage: absim coord" "$absim" coord --help
check "bench rejects a bad number" 2 "--events 'ten': not a whole number" "$absim" bench phold --events ten
check "bench rejects a bad probability" 2 "--remote '1.5'" "$absim" bench phold --remote 1.5
check "bench rejects an unknown option" 2 "unknown option or missing value: '--frob'" "$absim" bench phold --frob
check "bench phold prints its JSON line" 0 '"trace_hash":"' "$absim" bench phold --lps 10 --events 1000
check "bench pipeline times its repeats after a warm-up, one trace hash for all" 0 \
    '"status":"finished","warmup":1,"repeat":3,' "$absim" bench pipeline --records 20000 --parallelism 2 --repeat 3
check "bench pipeline against a peer times both in turns and gives the two ratios" 0 \
    '"against":{"parallelism":1,"status":"finished","records_per_sec":' "$absim" bench pipeline --records 20000 --parallelism 2 --against 1 --repeat 3
check "bench pipeline against a peer names both ratios" 0 '"ratio_of_medians":' \
    "$absim" bench pipeline --records 20000 --parallelism 2 --against 1 --repeat 1 --warmup 0
check "bench pipeline to a full device exits 2 and says so" 2 "writing to standard output failed: No space left on device" \
    sh -c "\"$absim\" bench pipeline --records 2000 --parallelism 2 --against 1 --repeat 1 --warmup 0 > /dev/full"
check "bench pipeline rejects a peer above the parallelism limit" 2 "--against 100000: out of range [1, 256]" \
    "$absim" bench pipeline --against 100000
check "bench pipeline rejects no timed run" 2 "--repeat 0: out of range [1, 99]" "$absim" bench pipeline --repeat 0
check "bench pipeline says its buffer timeout and how full its buffers went" 0 \
    '"buffer_timeout_ns":100000000,"data_buffers":' "$absim" bench pipeline --records 20000 --parallelism 2 --repeat 1
check "bench pipeline takes a buffer timeout" 0 '"buffer_timeout_ns":1000000,' \
    "$absim" bench pipeline --records 20000 --parallelism 2 --repeat 1 --buffer-timeout-ns 1000000
check "bench pipeline rejects a zero buffer timeout" 2 "--buffer-timeout-ns 0: out of range" \
    "$absim" bench pipeline --buffer-timeout-ns 0
check "bench bigjob: a small one finishes exactly-once after two restarts, its verdicts in JSON" 0 \
    '"restarts":2,"checkpoints":17,"verdicts":{"I1":"held","I2":"held","I3":"held","I4":"held","I5":"held","I6":"held"},"expectations":"held"' \
    "$absim" bench bigjob --parallelism 8 --keys 1000 --records 20000
bj=$(mktemp)
"$absim" bench bigjob --parallelism 8 --keys 1000 --records 20000 --scenario > "$bj"
check "bench bigjob --scenario: the same job as a file absim run takes" 0 "expect restarts == 2: held" "$absim" run "$bj"
rm -f "$bj"
check "bench bigjob rejects a parallelism past the limit" 2 "--parallelism 257: out of range [8, 256]" "$absim" bench bigjob --parallelism 257
check "demo runs to the end" 0 "delivered 200/200 messages" "$absim" demo --messages 200
check "unknown command" 2 "unknown command 'frob'" "$absim" frob
bad=$(mktemp); printf 'seed 1\nvertex a sourze\n' > "$bad"
check "run: a bad scenario names file, line and column" 2 "$bad:2:10: unknown vertex kind 'sourze' (did you mean 'source'?)" \
    "$absim" run "$bad"
printf 'machines 1 slots 2\nvertex a source parallelism 3\nvertex out sink\nedge a -> out rebalance\n' > "$bad"
check "run: slots too few for a vertex's parallelism name the machines statement" 2 \
    "$bad:1:12: machines 1 slots 2 give 2 slots, fewer than the parallelism 3 of vertex a" "$absim" run "$bad"
printf 'machines 2 slot 2\nvertex a source\nvertex out sink\nedge a -> out rebalance\n' > "$bad"
check "run: a misspelt machines option is suggested" 2 "$bad:1:12: unknown machines option 'slot' (did you mean 'slots'?)" \
    "$absim" run "$bad"
printf 'broker partitions 256\nvertex a source parallelism 257\nvertex out sink\nedge a -> out rebalance\n' > "$bad"
check "run: a parallelism past the limit names its statement and what to lower" 2 \
    "$bad:2:29: a: parallelism 257 is above the limit of 256 tasks per vertex (lower it)" "$absim" run "$bad"
printf 'broker partitions 256\nvertex a source parallelism 256\nvertex b sink parallelism 256\nvertex c sink parallelism 256\nedge a -> b hash\nedge a -> c hash\nedge a -> b hash\n' > "$bad"
check "run: a task's channels past the limit are the edge's" 2 \
    "$bad:7:13: a: a task would have more than 512 output channels (lower the parallelism of the vertices it feeds)" \
    "$absim" run "$bad"
printf 'vertex j source parallelism 2\nvertex out sink\nedge j -> out forward\n' > "$bad"
check "run: a mistake of the whole job names the edge's line and column" 2 \
    "$bad:3:15: j -> out: forward needs equal parallelism (2 and 1)" "$absim" run "$bad"
printf 'vertex a source\nvertex b source\nvertex out sink\nedge a -> out forward\nedge b -> out forward\n' > "$bad"
check "swarm: a second source of one topic names its vertex's line" 2 "$bad:2:8: b: the default topic is read by source a already" "$absim" swarm "$bad" --seeds 1..2
printf 'broker topic clicks partitions 2\nbroker topic views partitions 2\nvertex a source topic clicks\nvertex b source topic veiws\nvertex j keyed-join\nvertex out sink\nedge a -> j hash\nedge b -> j hash\nedge j -> out forward\n' > "$bad"
check "run: an unknown topic names its column and the nearest topic" 2 \
    "$bad:4:23: unknown topic 'veiws' (did you mean 'views'?)" "$absim" run "$bad"
check "run: a missing file" 2 "/nonexistent.scn: cannot open" "$absim" run /nonexistent.scn
{ cat scenarios/faults/crash-machine.scn; printf 'fault at 20ms lose rpc dploy agg[1] 100%% for 10ms\n'; } > "$bad"
check "run: an unknown RPC kind names its line and column and lists the kinds" 2 \
    "$bad:34:24: unknown RPC kind 'dploy' (did you mean 'deploy'? expected a task, as agg[1], or one of the kinds: deploy, cancel," \
    "$absim" run "$bad"
{ cat scenarios/faults/crash-machine.scn; printf 'network heartbeat-interval 10ms heartbeat-timeout 10ms\n'; } > "$bad"
check "run: a heartbeat timeout within its interval names the network statement" 2 \
    "$bad:34:33: network: heartbeat-timeout 10ms must be longer than heartbeat-interval 10ms plus a round trip" \
    "$absim" run "$bad"
check "run: a paused machine's zombies are fenced and the summary says so" 0 \
    "fencing: 26 messages of old attempts or connections dropped (8 data at tasks, 18 RPCs)" \
    "$absim" run scenarios/faults/pause-machine.scn
check "run: the heartbeat failure names the pause behind it" 0 \
    "answered no heartbeat within the timeout and was declared lost; cause: machine 1 was paused from t=40.000ms for 60.000ms" \
    "$absim" run scenarios/faults/pause-machine.scn
check "run --json counts fenced messages" 0 '"fenced_data":8,"fenced_rpcs":18' \
    "$absim" run scenarios/faults/pause-machine.scn --json
lacks "run: no fencing line when nothing was fenced" "fencing:" "$absim" run scenarios/faults/pause-coordinator.scn
sed 's/^expect restarts == 1$/expect restarts == 0/' scenarios/faults/crash-machine.scn > "$bad"
check "run: a failed expectation exits 1 and names its line" 1 "$bad:29: expectation failed: restarts == 0 (got 1)" \
    "$absim" run "$bad"
# A checkpoint's time holds to the precision it is written with: p1's
# first checkpoint was triggered at 15.200 ms.
printf 'expect checkpoint 1 triggered at 15.2ms\nexpect checkpoint 1 triggered at 15.20ms\n' |
    cat scenarios/teach/p1-periodic-trigger.scn - > "$bad"
check "run: a restart says how far the sources rewound each partition, adding up to the total" 0 \
    "the sources rewound 8224 records (by partition: p0 2032, p1 2080, p2 2032, p3 2080)" "$absim" run scenarios/teach/p9-recovery.scn
check "run: expect checkpoint N triggered at T holds when the time rounds to T as written" 0 \
    "expect checkpoint 1 triggered at 15.20ms: held" "$absim" run "$bad"
printf 'expect checkpoint 1 triggered at 15.3ms\n' | cat scenarios/teach/p1-periodic-trigger.scn - > "$bad"
check "run: ... and fails, with the time the run had, when it does not" 1 \
    "expectation failed: checkpoint 1 triggered at 15.3ms (got triggered at 15.200ms)" "$absim" run "$bad"
printf 'expect checkpoint 14 completed at 1ms\n' | cat scenarios/teach/p1-periodic-trigger.scn - > "$bad"
check "run: ... and says so of a checkpoint never triggered" 1 \
    "expectation failed: checkpoint 14 completed at 1ms (got checkpoint 14 was never triggered)" "$absim" run "$bad"
printf 'expect checkpoint 3 completed at 1ms\n' | cat scenarios/teach/p9-recovery.scn - > "$bad"
check "run: ... and of one that did not complete" 1 \
    "expectation failed: checkpoint 3 completed at 1ms (got checkpoint 3 did not complete (job-failed))" "$absim" run "$bad"
# The memory guard counts the whole run: this pipeline alone fits in 16 GiB
# (15.6), with the invariant checkers it does not (16.7). Behind a
# rebalance edge each of the 8 keyed tasks is sized for every key.
sed 's/records 20000 keys 500/records 1000 keys 3800000/; s/keyed-aggregate parallelism 2/keyed-aggregate parallelism 8/; s/edge map -> agg hash/edge map -> agg rebalance/' \
    scenarios/faults/crash-machine.scn > "$bad"
check "run: the memory guard counts the checkers and names what to lower" 2 \
    "more than the limit of 16.0 GiB: keyed state 6.5 GiB, checkpoint files 9.1 GiB, per-record tables 59.5 MiB, event kernel 12.7 MiB, invariant checkers 1.1 GiB; the largest part, checkpoint files, shrinks with \`broker ... keys\`" \
    "$absim" run "$bad"
# Behind a hash edge the keyed state grows with the keys, not the tasks:
# the same job fits.
sed 's/records 20000 keys 500/records 1000 keys 4194304/; s/keyed-aggregate parallelism 2/keyed-aggregate parallelism 7/; s/^fault .*$//; s/^expect .*$//' \
    scenarios/faults/crash-machine.scn > "$bad"
check "run: keyed tasks behind a hash edge hold the keys routed to them" 0 "invariants: I1 exactly-once state held" \
    "$absim" run "$bad"
sed 's/^expect output exactly-once$/expect output duplicates/' scenarios/teach/p10c-idempotent-sink.scn > "$bad"
check "run: an output expectation names a first lost or duplicated record only when there is one" 1 \
    "expectation failed: output duplicates (got 0 of 80000 records lost, 0 duplicated)" "$absim" run "$bad"
printf 'expect output exactly-once\n' | cat scenarios/teach/p10b-plain-sink-duplicates.scn - > "$bad"
check "run: ... and names the first one, as pP@O, when there is" 1 "(got 0 of 80000 records lost, 7314 duplicated (first p0@3728))" \
    "$absim" run "$bad"
check "run: an idempotent sink's records are visible once; its overwrites are counted apart" 0 \
    "at sinks 87314, visible 80000 (7314 overwrites by idempotent sinks)" "$absim" run scenarios/teach/p10c-idempotent-sink.scn
check "run --json: the same counts, and no event-time latency when the sources are not paced" 0 \
    '"visible_records":80000,"overwrites":7314,"latency_ms_mean":null,' "$absim" run scenarios/teach/p10c-idempotent-sink.scn --json
lb=scenarios/faults/liveness-bound.scn
sed 's/^expect liveness 25ms$/expect liveness 20ms/' $lb > "$bad"
check "run: a liveness bound below a minimum pause and a checkpoint's run fails I6" 1 "invariant I6 violated at t=21.064ms: no checkpoint completed for 21.064ms" \
    "$absim" run "$bad"
check "run: I6 counts after a failure's restart delay, the fault's after-effect" 1 "no checkpoint completed for 20.833ms after the faults' after-effects ran out (an expiry or a restart's delay) at 147.200ms" \
    "$absim" run "$bad"
check "run: ... and names the expect liveness line" 1 "$bad:38: expectation failed: liveness 20ms (got no checkpoint completed for 21.064ms" \
    "$absim" run "$bad"
sed '/^expect liveness/d' $lb > "$bad"
check "run: without expect liveness the default bound holds" 0 "I6 liveness held (10 checks)" "$absim" run "$bad"
sed 's/^expect liveness 25ms$/expect liveness 0.5/' $lb > "$bad"
check "run: a bad liveness bound is bad input" 2 "$bad:38:17: '0.5' needs a unit (duration)" "$absim" run "$bad"
for s in 1486 1605 1776; do   # a slow store's backlog outlasted its window: I6 counts from when it settled
    check "run: durable-incremental-timeouts seed $s keeps I6" 0 "I6 liveness held" \
        "$absim" run scenarios/swarm/durable-incremental-timeouts.scn --seed $s --faults random
done
check "run: the seed can be overridden" 0 "seed 7," "$absim" run scenarios/faults/crash-machine.scn --seed 7
check "swarm: every seed passes" 0 "swarm: 20 passed, 0 failed" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..20 --faults random
check "swarm: a clean campaign of random profiles bounds the share that would fail" 0 \
    "at 95% confidence fewer than 15% of the runs drawn so would fail (ln 20 / 20)" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..20 --faults random --quiet
lacks "swarm: a guided campaign says no such bound (its runs are not independent draws)" "95% confidence" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..20 --faults guided --quiet
check "swarm: shard 1/3 of 1..10 runs seeds 1, 4, 7, 10" 0 "swarm: 4 passed, 0 failed" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..10 --shard 1/3
sed 's/mode aligned/mode at-least-once/' scenarios/swarm/aligned-exactly-once.scn > "$bad"
check "swarm: at-least-once with a shuffle fails exactly-once for some seeds" 1 '"seed":' \
    "$absim" swarm "$bad" --seeds 1..60 --faults random --junit "$bad.xml"
check "swarm: the JUnit report names the failing seed" 0 '<failure message=' cat "$bad.xml"
# CI formats of swarm: JUnit that validates against tests/junit.xsd (a
# schema the check must not pass by accepting anything), in seed order
# whatever --jobs; --json stdout that is JSON lines only, the tally last.
xsd=tests/junit.xsd
check "swarm: the JUnit report validates against tests/junit.xsd" 0 "validates" xmllint --noout --schema $xsd "$bad.xml"
sed 's/<testsuite \(name="[^"]*"\) tests="[0-9]*"/<testsuite \1/' "$bad.xml" > "$bad.notests.xml"
check "swarm: ... and the schema rejects a testsuite without tests" 3 "The attribute 'tests' is required but missing" \
    xmllint --noout --schema $xsd "$bad.notests.xml"
sed 's/ type="[^"]*">/>/' "$bad.xml" > "$bad.notype.xml"
check "swarm: ... and a failure without a type" 3 "The attribute 'type' is required but missing" \
    xmllint --noout --schema $xsd "$bad.notype.xml"
junit_order() {   # FILE SCENARIO...: suites in the order given, cases in seed order, counts that add up
    /usr/bin/python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = root.findall("testsuite")
assert [s.get("name") for s in suites] == sys.argv[2:], [s.get("name") for s in suites]
for s in suites:
    cases = s.findall("testcase")
    seeds = [int(c.get("name").split()[1]) for c in cases]
    assert seeds == sorted(seeds), (s.get("name"), seeds)
    assert all(c.get("classname") == s.get("name") for c in cases)
    for key, tag in (("failures", "failure"), ("errors", "error")):
        assert int(s.get(key)) == sum(c.find(tag) is not None for c in cases), key
    assert int(s.get("tests")) == len(cases) and s.get("skipped") == "0"
assert int(root.get("tests")) == sum(int(s.get("tests")) for s in suites)
print("in order:", len(suites), "suites,", sum(int(s.get("tests")) for s in suites), "cases,", root.get("failures"), "failed")
PY
}
s1=scenarios/swarm/aligned-exactly-once.scn s2=scenarios/swarm/durable-unaligned-2pc.scn
"$absim" swarm $s1 --seeds 1..40 --faults random --jobs 2 --quiet --junit "$bad.order.xml" > /dev/null
check "swarm --jobs 2: the JUnit cases come in seed order (runs end out of order)" 0 "in order: 1 suites, 40 cases, 0 failed" \
    junit_order "$bad.order.xml" $s1
"$absim" swarm $s1 $s2 --seeds 1..40 --faults random --jobs 2 --quiet --junit "$bad.order.xml" > /dev/null
check "swarm --jobs 2: the JUnit report has a testsuite per file, cases in seed order" 0 "in order: 2 suites, 80 cases, 0 failed" \
    junit_order "$bad.order.xml" $s1 $s2
check "swarm --jobs 2: ... and validates" 0 "validates" xmllint --noout --schema $xsd "$bad.order.xml"
"$absim" swarm $s1 --seeds 1..4 --faults random --bug no-alignment --jobs 2 --quiet --junit "$bad.fail.xml" > /dev/null
check "swarm: a failing campaign's JUnit report counts every failure" 0 "in order: 1 suites, 4 cases, 4 failed" \
    junit_order "$bad.fail.xml" $s1
check "swarm: ... and validates" 0 "validates" xmllint --noout --schema $xsd "$bad.fail.xml"
check "swarm: a failure's message is the first failure, the body lists them all, the output has the replay command" 0 \
    "checkpoint 1 (first p0@496)\" type=\"invariant I5\">$s1: invariant I5 violated at t=" cat "$bad.fail.xml"
check "swarm: ... and the output has the replay command, with the program as invoked" 0 "replay: $absim replay $s1 --seed 3 --hash" cat "$bad.fail.xml"
# Every command swarm prints runs as printed, from where it was invoked.
"$absim" swarm $s1 --seeds 3..3 --faults random --bug no-alignment --quiet > "$bad.cmds" 2>/dev/null
cmd_tmp=$(mktemp -d)
for key in replay explain shrink; do
    cmd=$(sed -n "s/.*\"$key\":\"\([^\"]*\)\".*/\1/p" "$bad.cmds")
    want=$s1; [ $key = shrink ] && want="still fails with"
    check "swarm: its $key command runs as printed ($cmd)" "$([ $key = shrink ] && echo 0 || echo 1)" "$want" \
        env TMPDIR="$cmd_tmp" sh -c "$cmd"
done
rm -rf "$bad.cmds" "$cmd_tmp"
odd_cmd_dir=$(mktemp -d); cp $s1 "$odd_cmd_dir/it's here.scn"
"$absim" swarm "$odd_cmd_dir/it's here.scn" --seeds 3..3 --faults random --bug no-alignment --quiet > "$bad.cmds" 2>/dev/null
check "swarm: a path with a quote and a space is quoted in the printed command, which runs" 1 "replay: trace hash" \
    sh -c "$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["replay"])' "$bad.cmds")"
rm -rf "$odd_cmd_dir" "$bad.cmds"
check "absim --version names the build" 0 "absim " "$absim" --version
slow=$(mktemp)
sed -e 's/^checkpoint interval 20ms timeout 10s/checkpoint interval 20ms timeout 3ms tolerable 1000/' -e '/^fault /d' \
    -e 's/^restart fixed-delay attempts 3 delay 50ms/restart fixed-delay attempts 100000 delay 50ms/' -e '/^expect restarts/d' \
    scenarios/faults/crash-task.scn > "$slow"
printf 'state backend durable store-latency 1ms store-bandwidth 1MB/s\nbounds time 2s\n' >> "$slow"
check "run: a timeout no checkpoint can meet is the configuration's verdict, not an I6 failure of the protocol" 1 \
    "$(printf 'I6 liveness not judged (no checkpoint can complete)\n  configuration: checkpoint ')" "$absim" run "$slow"
lacks "run: ... and no invariant is said violated" "violated at" "$absim" run "$slow"
rm -f "$slow"
case $absim in
*build-san*) ;;   # AddressSanitizer pads every frame with red zones: 64 KiB says nothing there
*)
check "run: a 64 KiB stack is enough (outcomes and outputs live on the heap)" 0 "I1 exactly-once state held" \
    sh -c "ulimit -s 64 && \"$absim\" run scenarios/faults/crash-task.scn --svg /dev/null"
check "swarm: ... for its runs too" 0 "swarm: 4 passed, 0 failed" \
    sh -c "ulimit -s 64 && \"$absim\" swarm scenarios/swarm/windows.scn --seeds 1..4 --faults random --quiet"
;;
esac
nest=$(mktemp)
sed -e '/^fault /d' -e '/^expect /d' scenarios/faults/nested-windows.scn > "$nest"
printf 'fault at 40ms lose rpc source[0] 100%% for 200ms\nfault at 60ms lose rpc source[0] 20%% for 100ms\n' >> "$nest"
check "run: a failure is blamed on the lost-RPC window that governs, not a weaker one nested in it" 0 \
    "declared lost; cause: messages source[0] -> coordinator were being lost from t=40.000ms" "$absim" run "$nest"
rm -f "$nest"
align_within() {   # FILE: the summary's alignment max is within its longest checkpoint (no aborts there)
    "$absim" run "$1" | sed -n 's/.*duration: mean [0-9.]*ms, max \([0-9.]*\)ms;.*alignment mean [0-9.]*ms, max \([0-9.]*\)ms.*/\1 \2/p' |
        awk '{ print ($2 <= $1) ? "alignment within the longest checkpoint" : "alignment " $2 " beyond the longest checkpoint " $1 }'
}
for f in scenarios/teach/p5a-unaligned-overtakes-backpressure.scn scenarios/teach/p5c-durations-under-backpressure.scn scenarios/teach/p3-alignment-blocks-inputs.scn; do
    check "run: alignment is timed from the checkpoint's own first barrier, never a stale one ($f)" 0 \
        "alignment within the longest checkpoint" align_within "$f"
done
violations_told() {   # FILE SEED BUG: every violation run reports is in explain's story, at its time
    "$absim" run "$1" --seed "$2" --faults random --bug "$3" > "$bad.run" 2>&1
    "$absim" explain "$1" --seed "$2" --faults random --bug "$3" > "$bad.explain" 2>&1
    echo "explain exit $?"
    python3 - "$bad.run" "$bad.explain" <<'PY'
import re, sys
run = open(sys.argv[1]).read()
told = open(sys.argv[2]).read()
kept = re.findall(r"^  invariant (I\d) violated at (t=[0-9.]+ms): (.*)$", run, re.M)
missing = [k for k in kept if "%s VIOLATION of %s (" % (k[1], k[0]) not in told or k[2] not in told]
print("%d violations run reports, %d missing from explain" % (len(kept), len(missing)))
PY
}
check "explain: on a --bug seed it names the bug, tells every violation run reports at its time, and exits 1" 0 \
    "$(printf 'explain exit 1\n8 violations run reports, 0 missing from explain')" \
    violations_told scenarios/swarm/aligned-exactly-once.scn 1 no-rewind
check "explain: ... naming the bug in its first line" 0 "the deliberate bug no-rewind is on (--bug)" head -1 "$bad.explain"
lacks "explain: ... and never says the sources rewound, which the bug stops" "sources rewind" cat "$bad.explain"
check "run: the summary names the deliberate bug" 1 "  deliberate bug: no-rewind (--bug): records between" \
    "$absim" run scenarios/swarm/aligned-exactly-once.scn --seed 1 --faults random --bug no-rewind
lacks "run: ... and says no rewind happened" "the sources rewound" \
    "$absim" run scenarios/swarm/aligned-exactly-once.scn --seed 1 --faults random --bug no-rewind
check "explain: a passing run exits 0 and ends with run's verdicts" 0 "expect exactly-once: held" \
    "$absim" explain scenarios/teach/p9-recovery.scn
rm -f "$bad.run" "$bad.explain"
in_dir=$(mktemp -d); cp scenarios/faults/crash-task.scn "$in_dir/x.scn"
check "run: an output that names the input is refused, whatever its spelling" 2 \
    "--trace $in_dir/./x.scn: that is an input of this command: it would be replaced" \
    "$absim" run "$in_dir/x.scn" --trace "$in_dir/./x.scn"
check "run: ... and the input is untouched" 0 "# One task crashes" head -1 "$in_dir/x.scn"
check "shrink: -o naming the scenario being shrunk is refused" 2 "that is the scenario being shrunk" \
    "$absim" shrink "$in_dir/x.scn" --seed 1 --bug no-rewind -o "$in_dir/x.scn"
timeout -s INT 2 "$absim" swarm scenarios/swarm/windows.scn --seeds 1..100000 --quiet --junit "$in_dir/j.xml" \
    --coverage "$in_dir/c.json" > /dev/null 2>&1
check "swarm: an interrupted campaign leaves no temporary file beside its outputs" 0 "x.scn" ls "$in_dir"
lacks "swarm: ... none at all" "tmp" ls "$in_dir"
rm -rf "$in_dir"
# A run that cannot start (this job needs more than 16 GiB: refused before
# anything is allocated) is an error, not a failure.
sed 's/records 20000 keys 500/records 1000 keys 4194304/; s/keyed-aggregate parallelism 2/keyed-aggregate parallelism 8/; s/edge map -> agg hash/edge map -> agg rebalance/' \
    scenarios/faults/crash-machine.scn > "$bad.huge.scn"
"$absim" swarm "$bad.huge.scn" --seeds 1..2 --jobs 2 --quiet --junit "$bad.err.xml" > /dev/null
check "swarm: a run that cannot start is a JUnit error" 0 'failures="0" errors="2" skipped="0"' cat "$bad.err.xml"
check "swarm: ... of type bad input, and the report validates" 0 "validates" \
    sh -c "grep -q '<error message=\"$bad.huge.scn: the run needs .* of memory, .* type=\"bad input\">' \"$bad.err.xml\" && xmllint --noout --schema $xsd \"$bad.err.xml\""
check "swarm: ... whose follow-up runs it again (no trace hash to replay)" 0 "replay: $absim run $bad.huge.scn --seed 1" cat "$bad.err.xml"
lacks "swarm: ... and never names a hash of zeros" "0000000000000000" cat "$bad.err.xml"
rm -f "$bad.huge.scn" "$bad.err.xml"
json_tally() {   # swarm ARGS... --json: every stdout line is JSON; the failing runs in seed order, the tally last
    "$absim" swarm "$@" --json 2>/dev/null | /usr/bin/python3 -c '
import json, sys
objs = [json.loads(l) for l in sys.stdin]
t = objs[-1]
assert t.get("tally") is True and all("tally" not in o for o in objs[:-1]), objs
fails = objs[:-1]
assert [o["seed"] for o in fails] == sorted(o["seed"] for o in fails)
assert all(isinstance(o["failures"], list) and o["failures"] for o in fails)
assert len(fails) == t["listed"] == t["failed"] and t["runs"] == t["passed"] + t["failed"]
print("tally passed %d failed %d runs %d jobs %d" % (t["passed"], t["failed"], t["runs"], t["jobs"]))'
}
check "swarm --json: a failing campaign is JSON lines, the tally last" 0 "tally passed 0 failed 4 runs 4 jobs 2" \
    json_tally $s1 --seeds 1..4 --faults random --bug no-alignment --jobs 2
check "swarm --json: a passing one is the tally alone" 0 "tally passed 5 failed 0 runs 5 jobs 2" \
    json_tally $s2 --seeds 1..5 --faults random --jobs 2
check "swarm --json: the tally's text goes to stderr" 1 "swarm: 0 passed, 4 failed" \
    sh -c "\"$absim\" swarm $s1 --seeds 1..4 --faults random --bug no-alignment --json 2>&1 >/dev/null"
check "swarm --json --coverage: the points not reached go to stderr too" 0 "tally passed 3 failed 0" \
    json_tally $s2 --seeds 1..3 --faults random --jobs 2 --coverage "$bad.cov"
stderr_of() { "$absim" swarm "$@" 2>&1 >/dev/null; }
check "swarm --progress 0: off a terminal, a progress line after every run" 1 \
    "$(printf ' runs/s, eta 0s\nswarm: 4/4 seeds, 4 failed, ')" stderr_of $s1 --seeds 1..4 --faults random --bug no-alignment --jobs 1 --progress 0
check "swarm --progress 0: ... with two files, runs are counted" 1 "swarm: 4/4 runs, 3 failed, " \
    stderr_of $s1 $s2 --seeds 1..2 --faults random --bug no-alignment --jobs 1 --progress 0
check "swarm: a campaign shorter than the progress interval prints no progress" 0 "[]" \
    sh -c "\"$absim\" swarm $s2 --seeds 1..3 --faults random 2>&1 >/dev/null | grep -v '^swarm: 3 passed' | /usr/bin/python3 -c 'import sys; print(sys.stdin.read().split())'"
check "swarm --quiet: stderr is empty without --json" 0 "[]" \
    sh -c "\"$absim\" swarm $s1 --seeds 1..4 --faults random --bug no-alignment --quiet --progress 0 2>&1 >/dev/null | /usr/bin/python3 -c 'import sys; print(sys.stdin.read().split())'"
check "swarm --quiet --json: stderr has the tally's text alone" 0 "1 lines: swarm: 0 passed, 4 failed" \
    sh -c "\"$absim\" swarm $s1 --seeds 1..4 --faults random --bug no-alignment --quiet --progress 0 --json 2>&1 >/dev/null | /usr/bin/python3 -c 'import sys; l = sys.stdin.readlines(); print(len(l), \"lines:\", l[0])'"
check "swarm --json: --junit - is refused (stdout is JSON lines only)" 2 "--junit -: with --json standard output carries the JSON lines only" \
    "$absim" swarm $s1 --seeds 1..2 --json --junit -
check "swarm: --junit and --coverage into one file are refused" 2 "--junit and --coverage name the same file" \
    "$absim" swarm $s1 --seeds 1..2 --junit "$bad.same" --coverage "$bad.same"
check "swarm: --progress takes whole seconds" 2 "--progress 'x'" "$absim" swarm $s1 --seeds 1..2 --progress x
# A path with quotes, markup and a byte that is not UTF-8 stays valid JSON and XML.
odd_dir=$(mktemp -d); odd="$odd_dir/a\"<&>'$(printf '\377').scn"
cp $s1 "$odd"
"$absim" swarm "$odd" --seeds 1..2 --faults random --bug no-alignment --quiet --json --junit "$odd_dir/j.xml" > "$odd_dir/out" 2>/dev/null
check "swarm --json: an odd path is escaped" 0 "tally passed 0 failed 2" json_tally "$odd" --seeds 1..2 --faults random --bug no-alignment
check "swarm --junit: an odd path is escaped" 0 "validates" xmllint --noout --schema $xsd "$odd_dir/j.xml"
odd_run() { "$absim" run "$odd" --faults random --bug no-alignment --json | /usr/bin/python3 -c 'import json, sys; print("ok:", json.load(sys.stdin)["ok"])'; }
check "run --json: an odd path is escaped" 0 "ok: False" odd_run
rm -rf "$odd_dir"
rm -f "$bad.notests.xml" "$bad.notype.xml" "$bad.order.xml" "$bad.fail.xml" "$bad.cov" "$bad.same"
seed=$("$absim" swarm "$bad" --seeds 1..60 --faults random | sed -n 's/.*"seed":\([0-9]*\),"trace_hash":"\([0-9a-f]*\)".*/\1 \2/p' | head -1)
check "replay: a failing seed's trace hash is reproduced" 1 "trace hash ${seed#* } as recorded" \
    "$absim" replay "$bad" --seed "${seed% *}" --hash "${seed#* }" --faults random
check "replay: another hash is reported as a divergence" 1 "replay diverged" \
    "$absim" replay "$bad" --seed "${seed% *}" --hash 1 --faults random
check "swarm: bad seed range" 2 "--seeds '5': expected A..B" "$absim" swarm "$bad" --seeds 5
check "explain: narrates alignment for one checkpoint" 0 "agg[1] got barrier 2 on input 0 (from map[0]); 1 of 2 inputs blocked" \
    "$absim" explain scenarios/faults/crash-machine.scn --checkpoint 2
check "explain: the coordinator restarts from the latest checkpoint" 0 "coordinator restarts every task from checkpoint 2; sources rewind to its offsets" \
    "$absim" explain scenarios/faults/crash-machine.scn --task coordinator
check "explain: a job failure names the task and how the coordinator learnt it" 0 \
    "coordinator lost its connection to source[1] (its TaskManager is gone): cancels every task" \
    "$absim" explain scenarios/faults/crash-machine.scn --task coordinator
check "explain: an unknown task" 2 "--task 'agg[7]': no such task" \
    "$absim" explain scenarios/faults/crash-machine.scn --task 'agg[7]'
check "explain: narrates the fault as it begins, on what" 0 \
    "t=47.000ms fault: machine 1 crashes, with source[1] map[1] agg[1] on it (line 25: fault at 47ms crash machine 1 for 20ms)" \
    "$absim" explain scenarios/faults/crash-machine.scn
check "explain: ... and as it ends" 0 "t=67.000ms fault over: machine 1 is back" \
    "$absim" explain scenarios/faults/crash-machine.scn --task coordinator
check "explain: an alignment timeout firing at a task's inputs" 0 \
    "agg[1] was still aligning checkpoint 3 at the alignment timeout (1 input blocked, 3 buffers behind them): switched it to unaligned" \
    "$absim" explain scenarios/faults/alignment-timeout-input.scn
check "explain: ... and at an output queue, where the barrier turns priority" 0 \
    "map[0] and map[1] still held barrier 1 behind 6 queued buffers to agg[0] at the alignment timeout: sent it ahead as a priority barrier" \
    "$absim" explain scenarios/teach/p5b-alignment-timeout.scn
check "explain: a completion says what the checkpoint holds: the sources' offsets, each stateful task's keys" 0 \
    "t=36.952ms checkpoint 2 holds: the sources' offsets (S_2) p0 3600, p1 3600, p2 3600, p3 3600: 14400 records before them; keyed state agg[0] 257 keys (7438 records), agg[1] 243 keys (6962 records); no channel state" \
    "$absim" explain scenarios/teach/p2-sources-emit-barriers.scn
check "explain --checkpoint: ... and all of it, a task's key groups and file chain a line" 0 \
    "t=36.952ms agg[1] 243 keys (6962 records); key groups 64-127 of 128, 1 file in its chain" \
    "$absim" explain scenarios/teach/p2-sources-emit-barriers.scn --checkpoint 2
check "explain --checkpoint: an unaligned checkpoint's channel state, by channel" 0 \
    "channel state 2656 records (by channel): map[0] -> agg[0] 458, map[1] -> agg[0] 436, map[0] -> agg[1] 406" \
    "$absim" explain scenarios/teach/p5a-unaligned-overtakes-backpressure.scn --checkpoint 1
holds_add_up() {   # every completion of p2: the records in keyed state are those before the offsets (one aggregate, no filter)
    "$absim" explain scenarios/teach/p2-sources-emit-barriers.scn | python3 -c '
import re, sys
n = bad = 0
for l in sys.stdin:
    m = re.search(r"holds: .*: (\d+) records? before them; keyed state (.*); ", l)
    if not m: continue
    n += 1
    folded = sum(int(x) for x in re.findall(r"\((\d+) records?\)", m.group(2)))
    bad += folded != int(m.group(1))
print("%d checkpoints told, %d whose keyed records differ from the records before their offsets" % (n, bad))'
}
check "explain: what each checkpoint holds adds up: its keyed state folds exactly the records before its offsets" 0 \
    "11 checkpoints told, 0 whose keyed records differ" holds_add_up
small_keys=$(mktemp)
sed -e 's/^broker partitions .*/broker partitions 2 records 40 keys 3/' -e '/^expect /d' scenarios/teach/p2-sources-emit-barriers.scn > "$small_keys"
check "explain --checkpoint: a small job's keys one by one, with their count and sum" 0 "agg[1] 3 keys (80 records); key groups 64-127 of 128, 1 file in its chain; by key (count, sum): 2 (23, 1221) 1 (31, 1729) 0 (26, 1192)" \
    "$absim" explain "$small_keys" --checkpoint 1
rm -f "$small_keys"
check "explain: a restored sink commits the transaction its checkpoint holds" 0 \
    "t=30.363ms out[0] committed on restore the transaction pre-committed for checkpoint 3 (3338 records, now visible)" \
    "$absim" explain scenarios/teach/p10a-two-phase-commit.scn --task 'out[0]'
check "explain: ... and aborts the others" 0 \
    "out[1] aborted on restore the transaction pre-committed for checkpoint 6 (3378 records): that checkpoint is not the one restored" \
    "$absim" explain scenarios/teach/p10a-two-phase-commit.scn
check "explain: tasks doing the same at the same instant share one line" 0 \
    "t=0.400ms source[0], source[1], map[0], map[1], agg[0], agg[1], out[0] and out[1] started (attempt 0)" \
    "$absim" explain scenarios/teach/p10a-two-phase-commit.scn
check "explain: acknowledgements lost on the way are named" 0 \
    "out[0] had sent acknowledgements of checkpoints 5 and 6 that never reached the coordinator: lost on the way" \
    "$absim" explain scenarios/teach/p8-complete-and-subsume.scn
no_repeats() {   # explain FILE: no two lines of one instant say the same of different tasks
    "$absim" explain "$1" | /usr/bin/python3 -c '
import re, sys
seen, lines = set(), 0
for l in sys.stdin:
    m = re.match(r"t=(\S+) ((?:\w+\[\d+\](?:, | and )?)+|coordinator) (.*)$", l)
    if not m: continue
    key = (m.group(1), m.group(3))
    assert key not in seen, l
    seen.add(key); lines += 1
print("no sentence repeated per task in", lines, "lines")'
}
for f in scenarios/teach/p9-recovery.scn scenarios/teach/p10a-two-phase-commit.scn scenarios/teach/p5a-unaligned-overtakes-backpressure.scn; do
    check "explain: $f says nothing twice at one instant" 0 "no sentence repeated per task" no_repeats "$f"
done
check "explain: a --checkpoint that matches no step says so and exits 2" 2 \
    "absim explain: --checkpoint 500 matches no step of the run (it triggered 11 checkpoints)" \
    "$absim" explain scenarios/faults/crash-machine.scn --checkpoint 500
check "explain: ... and prints nothing else" 0 "0 bytes" \
    sh -c "\"$absim\" explain scenarios/faults/crash-machine.scn --checkpoint 500 2>/dev/null | wc -c | sed 's/\$/ bytes/'"
check "explain: a --task and --checkpoint that match nothing together" 2 \
    "absim explain: --task agg[1] --checkpoint 12 matches no step of the run (it triggered 11 checkpoints)" \
    "$absim" explain scenarios/faults/crash-machine.scn --task 'agg[1]' --checkpoint 12
check "diff: at-least-once with a shuffle loses exactly-once, aligned keeps it" 0 "keyed state exactly-once                         yes                NO" \
    "$absim" diff scenarios/teach/p4a-at-least-once-duplicates.scn
check "diff: an unknown mode" 2 "unknown mode 'exact'" "$absim" diff scenarios/teach/p4a-at-least-once-duplicates.scn --modes aligned,exact
check "shrink: keeps the failure with fewer faults and records" 0 "still fails with 3 of 11 faults and 12500 of 30000 records" \
    "$absim" shrink "$bad" --seed 4 --faults random --out "$bad.min.scn"
check "shrink: the written scenario fails the same way" 1 "expectation failed: exactly-once" "$absim" run "$bad.min.scn"
check "shrink: a seed that does not fail" 1 "does not fail" "$absim" shrink scenarios/faults/crash-machine.scn --seed 1 --out "$bad.x"
lacks "shrink: the random faults that fired are scripted without optional" "optional" cat "$bad.min.scn"
lacks "shrink: every fault of the result fires" "never fired" "$absim" run "$bad.min.scn"
check "shrink: durations are written in human units" 0 "interval 10ms min-pause 0ms timeout 200ms" cat "$bad.min.scn"
lacks "shrink: no duration is left in ns" "0000ns" cat "$bad.min.scn"
sh_dir=$(mktemp -d)
case $absim in /*) absim_abs=$absim ;; *) absim_abs=$PWD/$absim ;; esac
sed 's/^fault at 47ms crash machine 1 for 20ms$/&\nfault at 120ms crash machine 1 for 20ms\nfault at 200ms crash machine 0 for 20ms/' \
    scenarios/faults/crash-machine.scn > "$sh_dir/dir.scn"
check "shrink: restarts == 1 failing with got 2 is the failure to keep" 1 "restarts == 1 (got 2)" "$absim" run "$sh_dir/dir.scn"
check "shrink: restarts == 1 (got 2) shrinks" 0 "still fails with 2 of 3 faults and 40000 of 80000 records (line 31: expect restarts == 1 failed)" \
    "$absim" shrink "$sh_dir/dir.scn" --seed 1 -o "$sh_dir/dir.min.scn"
check "shrink: the result still fails in the same direction" 1 "expectation failed: restarts == 1 (got 2)" "$absim" run "$sh_dir/dir.min.scn"
lacks "shrink: the result does not fail the other way (got 0)" "(got 0)" "$absim" run "$sh_dir/dir.min.scn"
printf 'expect checkpoints == 1000\n' | cat scenarios/teach/p4a-at-least-once-duplicates.scn - > "$sh_dir/dup.scn"
check "shrink: a held expect duplicates keeps the fault that causes it" 0 "still fails with 1 of 1 faults" \
    "$absim" shrink "$sh_dir/dup.scn" --seed 1 -o "$sh_dir/dup.min.scn"
check "shrink: expect duplicates still holds in the result" 1 "expect duplicates: held" "$absim" run "$sh_dir/dup.min.scn"
grep -v '^expect' scenarios/faults/crash-machine.scn | sed 's/^restart .*/restart none/' > "$sh_dir/failed.scn"
printf 'expect failed\nexpect checkpoints == 1000\n' >> "$sh_dir/failed.scn"
check "shrink: a held expect failed keeps the crash that causes it" 0 "still fails with 1 of 1 faults" \
    "$absim" shrink "$sh_dir/failed.scn" --seed 1 -o "$sh_dir/failed.min.scn"
check "shrink: expect failed still holds in the result" 1 "expect failed: held" "$absim" run "$sh_dir/failed.min.scn"
sed 's/^fault at 47ms crash machine 1 for 20ms$/&\nfault at 4700ms crash machine 0 for 20ms/' scenarios/faults/crash-machine.scn > "$sh_dir/unfired.scn"
check "shrink: refuses a run whose scripted faults do not all fire" 1 "a scripted fault never fired" \
    "$absim" shrink "$sh_dir/unfired.scn" --seed 1 -o "$sh_dir/unfired.min.scn"
printf 'mine\n' > "$sh_dir/dir-seed1.scn"
check "shrink: writes NAME-seedS.scn into a new folder of its own by default" 0 "$sh_dir/absim-shrink-" \
    sh -c "cd \"$sh_dir\" && TMPDIR=\"$sh_dir\" \"$absim_abs\" shrink dir.scn --seed 1 && test -s \"$sh_dir\"/absim-shrink-*/dir-seed1.scn"
check "shrink: a file of the same name in the current directory is left alone" 0 "mine" cat "$sh_dir/dir-seed1.scn"
rm -rf "$sh_dir"/absim-shrink-*
lacks "shrink: writes nothing into scenarios/regress/ by default" "seed1.scn" ls scenarios/regress
printf 'keep me\n' > "$sh_dir/keep.scn"
check "shrink: an existing output is not truncated when the seed does not fail" 0 "keep me" \
    sh -c "\"$absim\" shrink scenarios/faults/crash-machine.scn --seed 1 -o \"$sh_dir/keep.scn\"; cat \"$sh_dir/keep.scn\""
check "shrink: an output that cannot be created" 2 "cannot write /nonexistent/x.scn" \
    "$absim" shrink "$sh_dir/dir.scn" --seed 1 -o /nonexistent/x.scn
lacks "shrink: leaves no temporary file behind" ".scn." ls "$sh_dir"
check "shrink: a bug's catch shrinks keeping the invariants it violated" 0 "invariant I2 (consistent cut) violated" \
    "$absim" shrink scenarios/swarm/aligned-exactly-once.scn --seed 1 --faults random --bug no-rewind -o "$sh_dir/bug.scn"
check "shrink: the result still violates I2 under the bug" 1 "invariant I2 violated" "$absim" run "$sh_dir/bug.scn" --bug no-rewind
check "shrink: the correct protocol passes the result" 0 "expect exactly-once: held" "$absim" run "$sh_dir/bug.scn"
rm -rf "$sh_dir"
for b in no-alignment no-rewind offset-off-by-one partial-acks; do
    check "swarm: the deliberate bug $b is caught" 1 "violated" \
        "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..60 --faults random --bug "$b"
done
# The bug catalog: every registry entry, on its pinned scenario and seed,
# violates the invariant the registry names; the correct protocol passes
# the same run.
"$absim" bugs --list | cut -f1 > "$bad.bugs"
while read -r name must file seed; do
    check "bugs: $name is caught by $must on $file seed $seed" 1 "invariant $must violated" \
        "$absim" run "$file" --seed "$seed" --faults random --bug "$name"
    check "bugs: the correct protocol passes $file seed $seed" 0 "invariants: I1" \
        "$absim" run "$file" --seed "$seed" --faults random
done < "$bad.bugs"
# Valid inputs that once killed the run: a valid input never aborts one.
check "a delay that holds more RPC messages than the simulator keeps loses the rest, and the summary says so" 0 \
    "RPC messages lost past the simulator's bounds: 21176 that delays would have held past 256 on their link or 4096 in the run" \
    "$absim" run scenarios/regress/acks-delayed-for-seconds.scn
check "run --json: the RPC messages lost past the simulator's bounds, held and paused" 0 \
    '"rpc_lost_held":0,"rpc_lost_paused":552' "$absim" run scenarios/regress/paused-for-a-thousand-checkpoints.scn --json
lacks "a run without delays or pauses loses no RPC message to the simulator's bounds" "RPC messages lost past" \
    "$absim" run scenarios/swarm/notices-late.scn
check "a zombie's replay of channel state from a memory backend a new coordinator wiped fails its attempt, not the run" 0 \
    "I1 exactly-once state held" "$absim" run scenarios/swarm/unaligned-join.scn --seed 9002427 --faults random
uneven=$(mktemp); printf 'vertex src source parallelism 2 watermark-delay 200us\nvertex win window tumbling 2ms parallelism 2\nvertex out sink\nedge src -> win hash\nedge win -> out rebalance\ncheckpoint interval 10ms\nexpect finished\n' > "$uneven"
check "a window whose keys divide unevenly over its subtasks runs" 0 "I1 exactly-once state held" "$absim" run "$uneven"
rm -f "$uneven"
check "bugs: with its defaults every bug is caught, none on the correct protocol" 0 "bugs: 48 of 48 caught" \
    "$absim" bugs --jobs 2
nswarm=$(ls scenarios/swarm/*.scn | wc -l | tr -d " ")
check "bugs: one bug's catch names its file, and the correct protocol runs only the seeds the bug ran" 0 \
    "$(printf 'scenarios/swarm/aligned-exactly-once.scn\ncorrect protocol: %s runs over seeds 1..1, 0 failed' "$nswarm")" \
    "$absim" bugs --bug no-rewind --jobs 2
f=$(mktemp --suffix=.scn); sed 's/^fault at 47ms crash machine 1 for 20ms$/fault at 4700ms crash machine 1 for 20ms/' scenarios/faults/crash-machine.scn > "$f"
check "run: a scripted fault that cannot fire fails the run and is named" 1 "$f:25: fault at 4.7s crash machine 1 for 20ms never fired (the job ended at" \
    "$absim" run "$f"
rm -f "$f" "$bad.bugs"
check "run: --trace writes a JSON line per protocol step" 0 "expect exactly-once: held" \
    "$absim" run scenarios/teach/p9-recovery.scn --trace "$bad.trace"
check "run: the trace names the restart" 0 '"step":"job-restarted"' cat "$bad.trace"
check "run: --dot draws checkpoints that Graphviz renders" 0 "<svg" sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn --dot \"$bad.dot\" >/dev/null && dot -Tsvg \"$bad.dot\""
check "run --dot-checkpoint N draws that checkpoint alone" 0 "1 cluster: subgraph cluster_c4 {" \
    sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn --dot \"$bad.dot\" --dot-checkpoint 4 >/dev/null && echo \$(grep -c 'subgraph cluster_c' \"$bad.dot\") cluster: \$(grep 'subgraph cluster_c' \"$bad.dot\")"
check "run --dot: a run with more checkpoints than fit draws the first and says how to get the others" 0 \
    "checkpoints 1 to 13 of the 42 triggered (more would not fit a screen; --dot-checkpoint N draws any one)" \
    sh -c "\"$absim\" run scenarios/teach/p5a-unaligned-overtakes-backpressure.scn --dot \"$bad.dot\" >/dev/null && head -2 \"$bad.dot\""
echo "old picture" > "$bad.dot"
check "run --dot-checkpoint: a checkpoint the run never triggered is bad input" 2 \
    "absim run: --dot-checkpoint 99: the run triggered only 13 checkpoints" \
    "$absim" run scenarios/teach/p9-recovery.scn --dot "$bad.dot" --dot-checkpoint 99
check "run --dot-checkpoint: ... and the picture that was there stays" 0 "old picture" cat "$bad.dot"
check "run --dot-checkpoint needs --dot" 2 "--dot-checkpoint needs --dot FILE" \
    "$absim" run scenarios/teach/p9-recovery.scn --dot-checkpoint 3
check "run --dot: a lost acknowledgement is drawn lost, with a cross" 0 '[style=dashed, color=red, arrowhead=none, fontcolor=red, label="lost"]' \
    sh -c "\"$absim\" run scenarios/teach/p8-complete-and-subsume.scn --dot \"$bad.dot\" >/dev/null && cat \"$bad.dot\""
check "run --dot: the faults, the failure and the restart are in the picture, with the attempts" 0 \
    "t=53.000ms fault: crash machine 0 for 10ms (line 30), on source[0] map[0] agg[0] out[0]\\lt=53.200ms job failed (connection-lost of source[0]): attempt 0 is cancelled\\l" \
    sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn --dot \"$bad.dot\" >/dev/null && cat \"$bad.dot\""
# p3's lesson, as its comment quotes it: the blocked input backpressures
# map[0], and the slow link map[1] and source[1].
check "run: the summary names the tasks held up by backpressure longest" 0 \
    "backpressure (an output out of room): map[1] 59.928ms, source[1] 54.632ms, map[0] 53.189ms" \
    "$absim" run scenarios/teach/p3-alignment-blocks-inputs.scn
check "explain: a task held up by backpressure for a millisecond or more says so" 0 \
    "t=61.478ms map[0] goes on after 24.546ms held up by backpressure (since t=36.932ms)" \
    "$absim" explain scenarios/teach/p3-alignment-blocks-inputs.scn --task 'map[0]'
check "explain: the barrier waited behind four buffers, all the channel's credits" 0 \
    "the inputs it blocked go on: 4 buffers waited behind them" \
    "$absim" explain scenarios/teach/p3-alignment-blocks-inputs.scn --task 'agg[0]' --checkpoint 2
check "explain: a join aligns barrier 2 across the inputs of both sources (p3b's numbers)" 0 \
    "t=52.002ms join[0] had barrier 2 from every input (aligned in 16.829ms)" \
    "$absim" explain scenarios/teach/p3b-join-aligns-two-sources.scn --checkpoint 2
check "explain: the coordinator acknowledges for the finished source of clicks (p3b)" 0 \
    "t=194.822ms clicks[0] and clicks[1] had finished: the coordinator acknowledged checkpoint 10 for it" \
    "$absim" explain scenarios/teach/p3b-join-aligns-two-sources.scn --checkpoint 10
teach_dot() {   # every teaching scenario's picture: the same bytes twice, rendered by dot without a word, at most 2000 x 3000 pt
    for f in scenarios/teach/*.scn; do
        "$absim" run "$f" --dot "$bad.a.dot" >/dev/null && "$absim" run "$f" --dot "$bad.b.dot" >/dev/null || { echo "$f: run failed"; return 1; }
        cmp -s "$bad.a.dot" "$bad.b.dot" || { echo "$f: not the same picture twice"; return 1; }
        dot -Tsvg "$bad.a.dot" -o "$bad.svg" 2>"$bad.err" || { echo "$f: dot failed"; return 1; }
        [ -s "$bad.err" ] && { echo "$f: dot said:"; cat "$bad.err"; return 1; }
        w=$(sed -n 's/^<svg width="\([0-9]*\)pt" height="[0-9]*pt".*/\1/p' "$bad.svg")
        h=$(sed -n 's/^<svg width="[0-9]*pt" height="\([0-9]*\)pt".*/\1/p' "$bad.svg")
        [ -n "$w" ] && [ "$w" -le 2000 ] && [ -n "$h" ] && [ "$h" -le 3000 ] || { echo "$f: $w x $h pt"; return 1; }
    done
    echo "every teaching picture renders, twice the same, at most 2000 x 3000 pt"
    rm -f "$bad.a.dot" "$bad.b.dot" "$bad.svg" "$bad.err"
}
check "run --dot: the teaching scenarios' pictures" 0 "every teaching picture renders" teach_dot
check "run: --trace to a file that cannot be written" 2 "--trace /nonexistent/x: cannot write there" "$absim" run scenarios/teach/p9-recovery.scn --trace /nonexistent/x
check "run: --trace on a full device exits 2 and says so" 2 "--trace /dev/full: write failed: No space left on device" \
    "$absim" run scenarios/teach/p9-recovery.scn --trace /dev/full
check "run: a summary that cannot be written to stdout exits 2 and says so" 2 "writing to standard output failed" \
    sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn > /dev/full"
check "swarm: --junit on a full device exits 2 and says so" 2 "--junit /dev/full: write failed" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..2 --junit /dev/full
check "explain: a narration that cannot be written to stdout exits 2" 2 "writing to standard output failed" \
    sh -c "\"$absim\" explain scenarios/teach/p9-recovery.scn > /dev/full"
check "run, swarm and shrink work on a 256 KiB stack (no configuration is copied onto it)" 0 "swarm: 3 passed" \
    sh -c "ulimit -s 256 && \"$absim\" run scenarios/teach/p9-recovery.scn >/dev/null && \"$absim\" swarm scenarios/swarm/durable-unaligned-2pc.scn --seeds 1..3 --faults random"
follow_seed() {   # run the replay and explain commands a failing swarm seed's JSON line prints
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..1 --faults random --bug no-alignment 2>/dev/null |
        /usr/bin/python3 -c '
import json, shlex, subprocess, sys
d = json.loads(sys.stdin.readline())
assert d["bug"] == "no-alignment" and d["profile"], d
for key in ("replay", "explain"):
    argv = shlex.split(d[key]); argv[0] = sys.argv[1]
    out = subprocess.run(argv, capture_output=True, text=True).stdout
    assert d["trace_hash"] in out, (key, out[-300:])
print("replay and explain reproduce", d["trace_hash"])' "$absim"
}
check "swarm: a failing --bug seed prints its bug, faults and the replay and explain commands, which reproduce it" 0 "replay and explain reproduce" follow_seed
check "run: a violation names the file, the invariant and the time, no line (no statement broke it)" 1 \
    '"failures":["scenarios/swarm/aligned-exactly-once.scn: invariant I5 violated at t=' \
    "$absim" run scenarios/swarm/aligned-exactly-once.scn --bug no-alignment --json
lacks "swarm: a violation never names line 0" ".scn:0:" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..2 --faults random --bug no-alignment
H=$("$absim" run scenarios/swarm/aligned-exactly-once.scn --seed 3 --faults random --bug no-alignment --json | sed 's/.*"trace_hash":"\([0-9a-f]*\)".*/\1/')
check "diff: --faults random --bug runs a swarm seed's run in its own mode (the same trace hash)" 0 "$H" \
    "$absim" diff scenarios/swarm/aligned-exactly-once.scn --seed 3 --faults random --bug no-alignment --modes aligned
check "run: two outputs into one file are refused" 2 "--trace and --dot name the same file" \
    "$absim" run scenarios/teach/p9-recovery.scn --trace "$bad.same" --dot "$bad.same"
echo "old trace" > "$bad.keep"
check "run: a command refused for a later argument leaves an earlier output file as it was" 0 "old trace" \
    sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn --trace \"$bad.keep\" --dot /nonexistent/x.dot; cat \"$bad.keep\""
check "run: a bad scenario leaves an existing trace file as it was" 0 "old trace" \
    sh -c "printf 'seed 1\\nvertex a sourze\\n' > \"$bad.scn\"; \"$absim\" run \"$bad.scn\" --trace \"$bad.keep\"; cat \"$bad.keep\""
check "run: an output file is replaced only when the run is done, and no temporary file is left" 0 "0 left" \
    sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn --trace \"$bad.keep\" >/dev/null; grep -c '\"step\"' \"$bad.keep\" >/dev/null && echo \$(ls \"$bad\".keep.tmp* 2>/dev/null | wc -l) left"
rm -f "$bad.keep" "$bad.scn"
check "run: --json prints one line with the outcome" 1 '"ok":false,"status":"finished","checkpoints":11,"aborted":0,"restarts":1,"failovers":0' \
    "$absim" run scenarios/faults/crash-machine.scn --bug no-rewind --json
run_failures() {   # run --json FILE ARGS...: how many failures it lists, how many it dropped, the last one
    "$absim" run "$@" --json | /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert isinstance(d["failures"], list) and all("; " + d["file"] not in x for x in d["failures"]), d["failures"]
print("listed", len(d["failures"]), "dropped", d["failures_dropped"], "last:", d["failures"][-1])'
}
check "run --json: failures is a list, an unfired fault each (not joined)" 0 "listed 7 dropped 0 last: scenarios/faults/snapshot-and-commit-points.scn:33: fault when out[1] commits 9" \
    run_failures scenarios/faults/snapshot-and-commit-points.scn --bug no-alignment --faults random --seed 1
cp scenarios/faults/crash-machine.scn "$bad.many"
for i in $(seq 20); do echo "expect checkpoints == 100$i" >> "$bad.many"; done
check "run --json: the first 16 failures are listed, the others counted" 0 "listed 16 dropped 4 last: $bad.many:49: expectation failed: checkpoints == 10016 (got 11)" \
    run_failures "$bad.many"
check "run: the summary prints every failure, past the list's limit too" 1 "$bad.many:53: expectation failed: checkpoints == 10020 (got 11)" \
    "$absim" run "$bad.many"
check "run: each fault that never fired is a line of its own" 1 "$(printf 'the job ended at 204.761ms)\nscenarios/faults/snapshot-and-commit-points.scn:33: fault when')" \
    "$absim" run scenarios/faults/snapshot-and-commit-points.scn --bug no-alignment --faults random --seed 1
rm -f "$bad.many"
# The summary tells what happened: the faults (fired or not), which task
# failed, when and why, the checkpoint each restart restored and the
# records the sources rewound; it leaves out figures that mean nothing.
cm=scenarios/faults/crash-machine.scn
check "run: the summary lists the faults and what a machine crash took down" 0 \
    "t=47.000ms fired, ended t=67.000ms: fault at 47ms crash machine 1 for 20ms (line 25); machine 1 held source[1] map[1] agg[1]" \
    "$absim" run $cm
check "run: the summary names the failed task, why, and the fault behind it" 0 \
    "failure at t=47.200ms: source[1] failed, the coordinator lost its connection to it (its TaskManager went away); cause: machine 1 crashed at t=47.000ms (source[1] map[1] agg[1])" \
    "$absim" run $cm
check "run: the summary names the checkpoint a restart restored and the records rewound" 0 \
    "restart 1 at t=147.200ms from checkpoint 2 (completed at t=41.193ms); the sources rewound 2688 records" \
    "$absim" run $cm
lacks "run: no event-time latency when the sources read ahead of event time" "event-time latency" "$absim" run $cm
lacks "run: no files for the memory backend" "files:" "$absim" run $cm
sed 's/gap 1ms/gap 10us/' $cm > "$bad"
check "run: event-time latency when the sources keep to event time" 0 "event-time latency of the visible output: mean 83.759ms" \
    "$absim" run "$bad"
check "run: a cut link's failure names the task that reported it and the cut" 0 \
    "map[0] failed and reported it (it lost a connection it needs); cause: the link map[0] -> agg[1] was cut at t=45.000ms" \
    "$absim" run scenarios/faults/cut-link.scn
sed 's/^checkpoint \(.*\)/checkpoint \1 tolerable 0/' scenarios/faults/lost-acks.scn > "$bad"
check "run: too many failed checkpoints in a row: the checkpoint, the tolerance, and the lost messages behind it" 1 \
    "failure at t=34.625ms: checkpoint 5 timed out: more failed checkpoints in a row than the 0 tolerable; cause: messages out[0] -> coordinator were being lost from t=20.000ms" \
    "$absim" run "$bad"
check "run: a failover with the memory backend restarts from the beginning, and says why" 0 \
    "restart 1 at t=100.400ms from the beginning (the memory backend's checkpoints died with the coordinator)" \
    "$absim" run scenarios/faults/crash-coordinator-memory.scn
check "run: a checkpoint still pending at the end is named" 0 "checkpoint 23 was still pending at the end" \
    "$absim" run scenarios/swarm/durable-incremental-timeouts.scn
check "run: a failure the restart strategy does not survive says so" 0 "no restart: the restart strategy gave up" \
    "$absim" run scenarios/swarm/aligned-memory-vary.scn --seed 3 --faults random
check "run: a random profile is listed, fired or not" 0 \
    "t=23.678ms did not fire (the run ended first): fault at 23.67783ms delay link join[1] -> out[0] by 17ms for 13.283073ms optional" \
    "$absim" run scenarios/swarm/aligned-memory-vary.scn --seed 3 --faults random
check "run: the settings vary drew are shown" 0 "$(printf '  drawn by vary for seed 3:\n    checkpoint mode aligned interval 3ms min-pause 0ms timeout 162ms max-concurrent 3 tolerable 1000\n    restart fixed-delay attempts 0 delay 27ms\n    network rpc-latency 200us')" \
    "$absim" run scenarios/swarm/aligned-memory-vary.scn --seed 3 --faults random
check "run: --log names a fault's target" 0 "fault=0 crash-machine target=tm1" "$absim" run $cm --log -
story_json() {   # the --json line's faults, recovery and drawn settings
    "$absim" run $cm --json | /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
f, r = d["faults"][0], d["recovery"][0]
assert f["kind"] == "crash-machine" and f["target"] == "machine 1" and f["tasks"] == ["source[1]", "map[1]", "agg[1]"], f
assert f["at_ns"] == 47000000 and f["duration_ns"] == 20000000 and f["fired"] and f["text"] == "fault at 47ms crash machine 1 for 20ms", f
assert r["cause"] == "connection-lost" and r["task"] == "source[1]" and r["fault"] == 0, r
assert r["restart"]["restored_checkpoint"] == 2 and r["restart"]["rewound_records"] == 2688, r
assert d["latency_ms_mean"] is None and d["drawn"] is None and d["pending_checkpoints"] == [], d
assert d["fenced_data"] == 0 and d["fenced_rpcs"] == 3, d
print("json tells the story")' &&
    "$absim" run scenarios/swarm/aligned-memory-vary.scn --seed 3 --faults random --json | /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
assert d["drawn"]["restart"] == "restart fixed-delay attempts 0 delay 27ms", d["drawn"]
assert len(d["faults"]) == 18 and sum(x["fired"] for x in d["faults"]) == 1, d["faults"]
print("json tells the drawn settings")'
}
check "run --json: the faults, each failure and restart, and the settings vary drew" 0 "json tells the drawn settings" story_json
trace_faults() {   # every fault of a random profile that fired begins (and, if it ended, ends) in --trace, its target named
    for seed in 5 11; do
        "$absim" run scenarios/swarm/durable-unaligned-2pc.scn --seed $seed --faults random --json --trace "$bad.tr" |
            /usr/bin/python3 -c '
import json, sys
d = json.loads(sys.stdin.readline())
steps = [json.loads(l) for l in open(sys.argv[1])]
assert all(a["t_ns"] <= b["t_ns"] for a, b in zip(steps, steps[1:])), "in time order"
edges = {(s["fault"], s["step"]): s for s in steps if s["step"].startswith("fault-")}
assert d["faults"] and any(f["fired"] for f in d["faults"]), d["faults"]
for f in d["faults"]:
    b = edges.get((f["fault"], "fault-begin"))
    assert (b is not None) == f["fired"], f
    if b: assert b["t_ns"] == f["began_ns"] and b["target"] == f["target"] and b["kind"] == f["kind"] and b["text"] == f["text"], (b, f)
    e = edges.get((f["fault"], "fault-end"))
    assert (e is not None) == (f["ended_ns"] is not None), f
    if e: assert e["t_ns"] == f["ended_ns"] and e["target"] == f["target"], (e, f)
print("seed", d["seed"], len(edges), "fault steps")' "$bad.tr" || return 1
    done
}
check "run --trace: each fault of a random profile begins and ends in the trace with its target" 0 "seed 11" trace_faults
rm -f "$bad.tr"
check "run: an unknown bug is named" 2 "--bug 'foo': unknown; the deliberate bugs are no-alignment" \
    "$absim" run scenarios/faults/crash-machine.scn --bug foo
cov=$(mktemp)
check "coverage lists the reach points with a line each" 0 "decline-sent" "$absim" coverage
cov_json() {   # the points absim coverage lists, the counts the run wrote, and two of them
    "$absim" coverage --json > "$cov.list" && /usr/bin/python3 - "$cov.list" "$cov" <<'PY'
import json, sys
names = [p["name"] for p in json.load(open(sys.argv[1]))]
counts = json.load(open(sys.argv[2]))
assert list(counts) == names, "the file holds every listed point, in order"
print("every point", len(names), "write-failed", counts["snapshot-write-failed"], "restarts", counts["restart-fixed-delay"])
PY
}
check "run --coverage: a store that fails writes reaches snapshot-write-failed, and prints what it missed" 0 "not reached: checkpoint-subsumed" \
    "$absim" run scenarios/faults/store-slow-and-failing.scn --coverage "$cov"
check "run --coverage: the file holds every point, zero counts too" 0 "write-failed 2 restarts 0" cov_json
echo keep > "$cov.old"; printf 'seed 1\nvertex a sourze\n' > "$cov.bad"
check "run --coverage: a bad scenario leaves an existing file as it was" 0 "keep" \
    sh -c "\"$absim\" run \"$cov.bad\" --coverage \"$cov.old\"; cat \"$cov.old\""
check "run --coverage: a file that cannot be written is refused before the run" 2 "--coverage /nonexistent/c.json: cannot write there" \
    "$absim" run scenarios/faults/store-slow-and-failing.scn --coverage /nonexistent/c.json
check "swarm --coverage: sums the runs' counts and names what no run reached" 0 "not reached: " \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..6 --faults random --coverage "$cov"
check "swarm --coverage: the file holds every point" 0 "every point" cov_json
check "swarm --coverage: a file that cannot be written is refused before any run" 2 "cannot write there" \
    "$absim" swarm scenarios/swarm/aligned-exactly-once.scn --seeds 1..2 --coverage /nonexistent/c.json
dup_counts() {   # faults/duplicate-rpc.scn: second triggers ignored, second acks dropped
    "$absim" run scenarios/faults/duplicate-rpc.scn --coverage "$cov" --trace "$cov.jsonl" > /dev/null &&
        /usr/bin/python3 - "$cov" "$cov.jsonl" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
steps = [json.loads(l) for l in open(sys.argv[2])]
got = [s["outcome"] for s in steps if s.get("step") == "ack-received"]
print("out-of-order", c["trigger-out-of-order"], "acks", len(got), "counted", got.count("counted"),
      "repeated", got.count("repeated"), "late", got.count("late"))
PY
}
check "duplicate rpc: the sources ignore 16 second triggers; of 311 acks received 287 count, 16 repeated, 8 late" 0 \
    "out-of-order 16 acks 311 counted 287 repeated 16 late 8" dup_counts
check "run: a job failed on a failed metadata write says the checkpoint could not be finalized, not that it was declined" 1 \
    "could not be finalized (its metadata write failed or ended ambiguously): more failed checkpoints in a row than the 0 tolerable" \
    "$absim" run scenarios/faults/rescale-crash.scn --seed 5 --faults random
check "run: a cancel marker that ends several tracked checkpoints sends one cancel downstream (no output ring overflow)" 0 "I5 protocol safety held" \
    "$absim" run scenarios/swarm/backpressure-at-least-once.scn --seed 139 --faults random
check "run: I5 keeps the record of a live snapshot however many aborted ones came and went (no false alarm)" 0 "I5 protocol safety held" \
    "$absim" run scenarios/swarm/backpressure-vary.scn --seed 133 --faults random
# --svg and --html: a picture XML readers take, the same bytes on a rerun,
# a window and tasks chosen, bad options and unwritable files refused
# before anything is written.
pic=$(mktemp); p3=scenarios/teach/p3-alignment-blocks-inputs.scn
check "run --svg: the space-time diagram is XML that xmllint reads" 0 "expect exactly-once: held" \
    sh -c "\"$absim\" run $p3 --svg \"$pic.a.svg\" --html \"$pic.a.html\" && xmllint --noout \"$pic.a.svg\""
"$absim" run $p3 --svg "$pic.b.svg" --html "$pic.b.html" > /dev/null
check "run --svg: the same bytes on a rerun" 0 "" cmp "$pic.a.svg" "$pic.b.svg"
check "run --html: the same bytes on a rerun" 0 "" cmp "$pic.a.html" "$pic.b.html"
check "run --html: one page, its steps embedded as JSON" 0 '<script type="application/json" id="absim-data">' cat "$pic.a.html"
lacks "run --html: nothing is fetched from elsewhere" 'src="http' cat "$pic.a.html"
check "run --svg: a run of at most 16 checkpoints is drawn whole by default" 0 "t = 0.000ms to 276.114ms of a run that ended at t = 276.114ms" cat "$pic.a.svg"
check "run --svg: a longer run's default window holds the first fault and the checkpoints around it" 0 "t = 37.836ms to 165.242ms" \
    sh -c "\"$absim\" run scenarios/teach/p4a-at-least-once-duplicates.scn --svg \"$pic.l.svg\" >/dev/null && cat \"$pic.l.svg\""
check "run --svg --from --to: the window asked for, in the scenario's units" 0 "t = 40.000ms to 62.500ms" \
    sh -c "\"$absim\" run $p3 --svg \"$pic.w.svg\" --from 40ms --to 62.5ms >/dev/null && xmllint --noout \"$pic.w.svg\" && cat \"$pic.w.svg\""
check "run --svg --tasks: only the tasks asked for get a line" 0 ">agg[1]</text>" \
    sh -c "\"$absim\" run $p3 --svg \"$pic.t.svg\" --tasks 'agg,out[0]' >/dev/null && cat \"$pic.t.svg\""
lacks "run --svg --tasks: ... and the others none" ">map[0]</text>" cat "$pic.t.svg"
check "explain --checkpoint: a window task's part is its windows' contents and its timers, apart" 0 \
    "win[0] 50 window entries (569 records), 50 timers set; key groups 0-63 of 128, 1 file in its chain" \
    "$absim" explain scenarios/teach/p13a-windows-aligned.scn --checkpoint 3
check "run --svg: an event-time job's watermarks are ticks on the sending tasks' lines, each saying its event time" 0 \
    "source[1]: sent watermark 50.000ms (event time) among its records, on its outputs" \
    sh -c "\"$absim\" run scenarios/teach/p13a-windows-aligned.scn --svg \"$pic.wm.svg\" >/dev/null && xmllint --noout \"$pic.wm.svg\" && cat \"$pic.wm.svg\""
check "run --svg: a two-phase-commit sink's pre-commit is a mark at its snapshot" 0 \
    "t=24.621ms, out[0]: pre-commits its open transaction for checkpoint 3 and opens the next" \
    sh -c "\"$absim\" run scenarios/teach/p10a-two-phase-commit.scn --svg \"$pic.pc.svg\" >/dev/null && cat \"$pic.pc.svg\""
check "run --svg: ... and drawing them changes nothing in the run" 0 "trace_hash 299aa18ff9bb61ab" \
    "$absim" run scenarios/teach/p13a-windows-aligned.scn --svg "$pic.wm.svg"
check "run --svg: a bad --from is bad input, said as the scenario reader says it" 2 \
    "absim run: --from 10mss: unknown unit 'mss' (did you mean 'ms'?)" "$absim" run $p3 --svg "$pic.x.svg" --from 10mss
check "run --svg: --to needs a unit" 2 "--to 20: '20' needs a unit (duration)" "$absim" run $p3 --svg "$pic.x.svg" --to 20
check "run --svg: --from after --to is refused" 2 "--from 50.000ms must be before --to 20.000ms" \
    "$absim" run $p3 --svg "$pic.x.svg" --from 50ms --to 20ms
check "run: --from without a picture is refused" 2 "--from shapes the picture of --svg or --html" "$absim" run $p3 --from 5ms
check "run --svg --tasks: a pattern that matches no task is refused, the tasks named" 2 \
    "--tasks 'agg,sinks': 'sinks' matches no task (the tasks: source[0], source[1], map[0]" "$absim" run $p3 --svg "$pic.x.svg" --tasks agg,sinks
check "run --svg: ... and nothing is written" 1 "" test -e "$pic.x.svg"
check "run --svg: a file that cannot be written is refused before the run" 2 "--svg /nonexistent/x.svg: cannot write there" \
    "$absim" run $p3 --svg /nonexistent/x.svg
check "run --html: ... and so is a page" 2 "--html /nonexistent/x.html: cannot write there" "$absim" run $p3 --html /nonexistent/x.html
check "run --svg: a full device exits 2 and says so" 2 "--svg /dev/full: write failed: No space left on device" \
    "$absim" run $p3 --svg /dev/full
echo "old picture" > "$pic.keep"
check "run --svg: a refused command leaves an existing picture as it was, and no temporary file" 0 "old picture 0" \
    sh -c "\"$absim\" run $p3 --svg \"$pic.keep\" --html /nonexistent/x.html; echo \$(cat \"$pic.keep\") \$(ls \"$pic\".keep.tmp* 2>/dev/null | wc -l)"
check "run --svg --html: the two cannot name one file" 2 "--svg and --html name the same file" \
    "$absim" run $p3 --svg "$pic.same" --html "$pic.same"
# The page's checkpoint pictures: one per checkpoint it embeds (as many
# as it says and offers), each an SVG document of its own that xmllint
# reads, for every teaching scenario; bounded, and saying so.
teach_pics() {
    for f in scenarios/teach/*.scn; do
        "$absim" run "$f" --html "$pic.p.html" >/dev/null || { echo "$f: run failed"; return 1; }
        rm -f "$pic".ck*.svg
        awk -v out="$pic.ck" '/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" class="ckpic/ { n++; f = out n ".svg" }
                              f != "" { print > f } /^<\/svg>$/ { if (f != "") close(f); f = "" }' "$pic.p.html"
        n=$(ls "$pic".ck*.svg 2>/dev/null | wc -l)
        said=$(sed -n 's/.*<div id="ck-box" data-count="\([0-9]*\)">.*/\1/p' "$pic.p.html")
        offered=$(grep -o '<option value="' "$pic.p.html" | wc -l)
        [ "$n" -ge 1 ] && [ "$n" = "$said" ] && [ "$n" = "$offered" ] || { echo "$f: $n pictures, $said said, $offered offered"; return 1; }
        xmllint --noout "$pic".ck*.svg || { echo "$f: a picture xmllint refuses"; return 1; }
    done
    echo "every teaching page has a picture per checkpoint it embeds, each valid SVG"
}
check "run --html: the teaching scenarios' checkpoint pictures" 0 "every teaching page has a picture per checkpoint" teach_pics
check "run --html: a run of more checkpoints than a page holds embeds the first and says how to get the others" 0 \
    "Checkpoints 1 to 32 of the 42 triggered are embedded (at most 32 pictures and 512 task boxes a page); <code>absim run FILE --html OUT --dot OUT.dot --dot-checkpoint N</code> embeds checkpoint N." \
    sh -c "\"$absim\" run scenarios/teach/p5a-unaligned-overtakes-backpressure.scn --html \"$pic.p.html\" >/dev/null && cat \"$pic.p.html\""
check "run --html --dot-checkpoint N: the page's picture is checkpoint N alone" 0 \
    "Checkpoint 4 alone (--dot-checkpoint) of the 13 triggered. 1 ck-4" \
    sh -c "\"$absim\" run scenarios/teach/p9-recovery.scn --html \"$pic.p.html\" --dot-checkpoint 4 >/dev/null && echo \$(grep -o 'Checkpoint 4 alone[^.]*\\.' \"$pic.p.html\") \$(grep -c 'class=\"ckpic' \"$pic.p.html\") \$(grep -o 'class=\"ckpic on\" id=\"ck-[0-9]*' \"$pic.p.html\" | sed 's/.*id=\"//')"
check "run --html: a lost acknowledgement is said lost in its checkpoint's picture" 0 "ack sent t=24.311: LOST, never arrived" \
    sh -c "\"$absim\" run scenarios/teach/p8-complete-and-subsume.scn --html \"$pic.p.html\" >/dev/null && cat \"$pic.p.html\""
# The teaching files' variants: what a comment says a changed copy of its
# job does ("set min-pause to 0ms and ..."), run as the comment says. The
# files' own runs pin their numbers with expect lines (scenario-check).
tv=$(mktemp)
variant() {   # variant FILE SED_SCRIPT [EXPECT_LINES]: the variant, its expect lines dropped and the given ones added
    sed -e '/^expect /d' -e "$2" "scenarios/teach/$1" > "$tv"
    [ -n "${3:-}" ] && printf '%b' "$3" >> "$tv"
    "$absim" run "$tv"
}
hash_of() { "$absim" run "$1" | sed -n 's/^  trace_hash //p'; }
variant_explain() {   # variant_explain FILE SED_SCRIPT [TASK]: explain of the variant, the coordinator's steps or TASK's
    sed -e '/^expect /d' -e "$2" "scenarios/teach/$1" > "$tv"
    "$absim" explain "$tv" --task "${3:-coordinator}"
}
same_run() {   # same_run FILE SED_SCRIPT OTHER: the variant is the other file's run, hash for hash
    sed "$2" "scenarios/teach/$1" > "$tv"
    a=$(hash_of "$tv"); b=$(hash_of "scenarios/teach/$3")
    [ -n "$a" ] && [ "$a" = "$b" ] && echo "same trace_hash $a"
}
check "teach p1: with min-pause 0 a checkpoint every 10 ms, 20 in all" 0 "20 triggered, 20 completed" \
    variant p1-periodic-trigger.scn 's/min-pause 15ms/min-pause 0ms/' \
    'expect checkpoint 1 triggered at 10.3ms\nexpect checkpoint 3 triggered at 30.3ms\nexpect checkpoints == 20\n'
check "teach p1: with min-pause 0 the first request fails: not all tasks run yet" 0 '"trigger-tasks-not-running":1' \
    sh -c "sed -e 's/min-pause 15ms/min-pause 0ms/' -e '/^expect /d' scenarios/teach/p1-periodic-trigger.scn > \"$tv\" && \"$absim\" run \"$tv\" --coverage \"$tv.cov\" >/dev/null && cat \"$tv.cov\" && rm -f \"$tv.cov\""
check "teach p1: with min-pause 0 the 20th reaches the sources at 200.5 ms" 0 "t=200.486ms source[0] triggered checkpoint 20" \
    variant_explain p1-periodic-trigger.scn 's/min-pause 15ms/min-pause 0ms/' 'source[0]'
check "teach p1: with min-pause 0 the job ends at 201.7 ms" 0 "finished at t=201.691ms" \
    variant p1-periodic-trigger.scn 's/min-pause 15ms/min-pause 0ms/'
check "teach p4a: aligned, the keyed state is exact and the plain sink still shows duplicates" 0 "expect output duplicates: held" \
    variant p4a-at-least-once-duplicates.scn 's/mode at-least-once/mode aligned/' 'expect exactly-once\nexpect output duplicates\n'
check "teach p4b: a forward chain at least once is the aligned run" 0 "same trace_hash" \
    same_run p4b-at-least-once-forward-chain.scn 's/mode at-least-once/mode aligned/' p4b-at-least-once-forward-chain.scn
check "teach p5a: aligned, 12 of 19 complete, 33.6 ms on average" 0 "19 triggered, 12 completed, 7 aborted" \
    variant p5a-unaligned-overtakes-backpressure.scn 's/checkpoint mode unaligned/checkpoint mode aligned/' \
    'expect duration >= 33.55ms\nexpect duration < 33.65ms\n'
check "teach p5a: aligned, six aborts at the end, 445.9 to 446.0 ms" 0 \
    "$(printf 't=445.922ms coordinator aborts checkpoint 13 (task-finished')" \
    variant_explain p5a-unaligned-overtakes-backpressure.scn 's/checkpoint mode unaligned/checkpoint mode aligned/'
check "teach p5a: ... the last at 446.0 ms" 0 "t=446.035ms coordinator aborts checkpoint 18 (task-finished" \
    variant_explain p5a-unaligned-overtakes-backpressure.scn 's/checkpoint mode unaligned/checkpoint mode aligned/'
check "teach p5b: aligned, 33.6 ms on average" 0 "duration: mean 33.588ms" \
    variant p5b-alignment-timeout.scn 's/ alignment-timeout 2ms//'
check "teach p5b: a fast sink: agg is the bottleneck, 30 of 56 snapshots unaligned, the sources aligned" 0 "56 task snapshots" \
    variant p5b-alignment-timeout.scn 's/cost 20us/cost 500ns/' 'expect unaligned == 30\nexpect checkpoints == 7\n'
check "teach p5c: aligned, 13 of 19 complete, 31.1 ms on average, 19 at 413.1 ms" 0 "duration: mean 31.136ms" \
    variant p5c-durations-under-backpressure.scn 's/ alignment-timeout 2ms//' \
    'expect checkpoints == 13\nexpect checkpoint 19 completed at 413.1ms\nexpect checkpoint 13 triggered at 412.6ms\n'
check "teach p5c: a fast sink, unaligned, 0.77 ms" 0 "duration: mean 0.765ms" \
    variant p5c-durations-under-backpressure.scn 's/^vertex out sink parallelism 2 cost 20us/vertex out sink parallelism 2 cost 500ns/; s/^checkpoint mode aligned\(.*\) alignment-timeout 2ms/checkpoint mode unaligned\1/'
check "teach p5c: a fast sink, 0.85 ms" 0 "duration: mean 0.853ms" \
    variant p5c-durations-under-backpressure.scn 's/^vertex out sink parallelism 2 cost 20us/vertex out sink parallelism 2 cost 500ns/'
check "teach p6: synchronous snapshots hold processing up: the job ends at 334 ms, not 194" 0 "finished at t=334.271ms" \
    variant p6-async-snapshots.scn 's/^state backend durable async /state backend durable sync /'
check "teach p7: full snapshots write 34 files and share none" 0 "files: 34 written, 0 references to shared files; 1615744 bytes" \
    variant p7-incremental.scn 's/^state backend durable async incremental full-every 3/state backend durable async full/'
check "teach p7: a memory backend refuses incremental" 2 "incremental checkpoints need 'state backend durable'" \
    variant p7-incremental.scn 's/^state backend durable async incremental full-every 3/state backend memory incremental/'
check "teach p9: a full failover restarts what the region failover does, one region being the job" 0 "same trace_hash" \
    same_run p9-recovery.scn 's/^restart fixed-delay attempts 3 delay 50ms$/& failover full/' p9-recovery.scn
check "teach p9b: with failover full it is p9c" 0 "same trace_hash" \
    same_run p9b-region-failover.scn 's/ failover region$/ failover full/' p9c-full-failover.scn
check "teach p11: finished-tasks off loses what the finished tasks held: 9728 of 18000 records visible" 0 "at sinks 25760, visible 9728" \
    variant p11-final-checkpoint.scn 's/^checkpoint mode aligned interval 10ms timeout 10s$/& finished-tasks off/' 'expect output lost\n'
check "teach p11: finished-tasks off, the job ends at 98.1 ms" 0 "finished at t=98.059ms" \
    variant p11-final-checkpoint.scn 's/^checkpoint mode aligned interval 10ms timeout 10s$/& finished-tasks off/'
check "teach p11: ... the last source finishes at 67.7 ms" 0 "t=67.680ms source[1] finished" \
    variant_explain p11-final-checkpoint.scn 's/^checkpoint mode aligned interval 10ms timeout 10s$/& finished-tasks off/' 'source[1]'
check "teach p12: --bug rescale-wrong-range fails I2 as the comment quotes" 1 "agg, key 10: 3 records in the checkpoint, 29 in the prefixes" \
    "$absim" run scenarios/teach/p12-rescale.scn --bug rescale-wrong-range
check "teach p13b: aligned, it is p13a" 0 "same trace_hash" \
    same_run p13b-windows-at-least-once.scn 's/^checkpoint mode at-least-once /checkpoint mode aligned /' p13a-windows-aligned.scn
check "teach p13b: each result is visible once, 21 too high" 1 "output exactly-once (got 0 of 2000 records lost, 21 duplicated (first a window result: key 75, window 6, firing 0))" \
    variant p13b-windows-at-least-once.scn 's/^x//' 'expect output exactly-once\n'
check "teach p13c: a watermark delay of 1 ms drops no record" 0 "0 records dropped as late" \
    variant p13c-late-records.scn 's/watermark-delay 100us/watermark-delay 1ms/'
# The teaching files' numbers that no expect line can say, as run and
# explain print them.
check "teach p1: the sources read their last records at 200.4 ms" 0 \
    "t=200.404ms source[1] reached the end of its input" "$absim" explain scenarios/teach/p1-periodic-trigger.scn --task 'source[1]'
check "teach p3b: barrier 2 reaches join[0] from clicks[1], views[0], clicks[0], at 35.2 ms" 0 \
    "$(printf 't=35.173ms join[0] got barrier 2 on input 1 (from clicks[1]); 1 of 4 inputs blocked, 0 buffers wait behind them\nt=35.217ms join[0] got barrier 2 on input 2 (from views[0])')" \
    "$absim" explain scenarios/teach/p3b-join-aligns-two-sources.scn --task 'join[0]' --checkpoint 2
check "teach p5a: 4.5 MB of in-flight data persisted" 0 "4462528 bytes of in-flight data persisted" \
    "$absim" run scenarios/teach/p5a-unaligned-overtakes-backpressure.scn
check "teach p5c: 3.9 MB of in-flight data persisted" 0 "3887264 bytes of in-flight data persisted" \
    "$absim" run scenarios/teach/p5c-durations-under-backpressure.scn
check "teach p6: the job ends at 194 ms; sync part 0.010 ms, async 2.774 ms on average, 14.548 at most" 0 \
    "sync part mean 0.010ms max 0.010ms, async part mean 2.774ms max 14.548ms" "$absim" run scenarios/teach/p6-async-snapshots.scn
check "teach p6: ... finished at 194.263 ms" 0 "finished at t=194.263ms" "$absim" run scenarios/teach/p6-async-snapshots.scn
check "teach p9: the coordinator learns of the crash at 53.2 ms and redeploys at 103.2 ms" 0 \
    "failure at t=53.200ms" "$absim" run scenarios/teach/p9-recovery.scn
check "teach p9: ... restart 1 at 103.2 ms from checkpoint 2" 0 "restart 1 at t=103.200ms from checkpoint 2" \
    "$absim" run scenarios/teach/p9-recovery.scn
check "teach p10a: 30 transactions committed, 4 aborted" 0 "transactions: 30 committed, 4 aborted" \
    "$absim" run scenarios/teach/p10a-two-phase-commit.scn
check "teach p13b: every result visible once" 0 "at sinks 2000, visible 2000" "$absim" run scenarios/teach/p13b-windows-at-least-once.scn
x() {   # x FILE TASK: explain of the teaching file, TASK's steps
    "$absim" explain "scenarios/teach/$1" --task "$2"
}
check "teach p11: source[1] reaches its end at 30.4 ms" 0 "t=30.400ms source[1] reached the end of its input" x p11-final-checkpoint.scn 'source[1]'
check "teach p11: source[1] and map[1] finish at 33.8 ms" 0 "t=33.787ms source[1] finished" x p11-final-checkpoint.scn 'source[1]'
check "teach p11: ... map[1]" 0 "t=33.841ms map[1] finished" x p11-final-checkpoint.scn 'map[1]'
check "teach p11: the restart at 60.2 ms" 0 "restart 1 at t=60.200ms from checkpoint 6" "$absim" run scenarios/teach/p11-final-checkpoint.scn
check "teach p11: they finish again at 62.8 ms" 0 "t=62.763ms source[1] finished" x p11-final-checkpoint.scn 'source[1]'
check "teach p11: source[0] reaches its end at 67.8 ms" 0 "t=67.760ms source[0] reached the end of its input" x p11-final-checkpoint.scn 'source[0]'
check "teach p11: source[0] finishes at 72.7 ms" 0 "t=72.724ms source[0] finished" x p11-final-checkpoint.scn 'source[0]'
check "teach p11: out[1] last, at 72.9 ms" 0 "t=72.893ms out[1] finished" x p11-final-checkpoint.scn 'out[1]'
check "teach p11: the job ends at 73.1 ms" 0 "finished at t=73.093ms" "$absim" run scenarios/teach/p11-final-checkpoint.scn
check "teach p11: finished-tasks off: 3 complete, the last at 23.7 ms" 0 "from checkpoint 3 (completed at t=23.719ms)" \
    variant p11-final-checkpoint.scn 's/^checkpoint mode aligned interval 10ms timeout 10s$/& finished-tasks off/' \
    'expect checkpoint 4 completed at 62.6ms\nexpect checkpoints == 4\n'
check "teach p12: the rescaled deployment at 45.4 ms, from checkpoint 5" 0 \
    "t=45.400ms coordinator restarts every task from checkpoint 5" x p12-rescale.scn coordinator
check "teach p3: agg[0] gets barrier 2 from map[0] at 35.2 ms" 0 "t=35.215ms agg[0] got barrier 2 on input 0 (from map[0])" \
    x p3-alignment-blocks-inputs.scn 'agg[0]'
check "teach p3: ... from map[1] at 61.3 ms, aligned in 26.1 ms" 0 "t=61.338ms agg[0] had barrier 2 from every input (aligned in 26.123ms)" \
    x p3-alignment-blocks-inputs.scn 'agg[0]'
check "teach p3: map[0] held up until 92.0 ms" 0 "t=91.961ms map[0] goes on after 28.270ms held up by backpressure (since t=63.691ms)" \
    x p3-alignment-blocks-inputs.scn 'map[0]'
check "teach p3b: the sources emit barrier 2 at 35.0 ms" 0 "t=35.022ms clicks[1], views[0] and views[1] triggered checkpoint 2" \
    "$absim" explain scenarios/teach/p3b-join-aligns-two-sources.scn --checkpoint 2
check "teach p3b: join[1] aligns in 0.5 ms" 0 "join[1] had barrier 2 from every input (aligned in 0.504ms)" x p3b-join-aligns-two-sources.scn 'join[1]'
check "teach p3b: the alignment max, 19.3 ms" 0 "alignment mean 3.685ms, max 19.295ms" "$absim" run scenarios/teach/p3b-join-aligns-two-sources.scn
check "teach p3b: checkpoint 4 at 74.8 ms, the next request 20 ms later (94.8 ms), 5 as 4 completes" 0 \
    "$(printf 't=74.822ms coordinator triggers checkpoint 4 at the sources\nt=95.189ms coordinator completes checkpoint 4')" \
    sh -c "\"$absim\" explain scenarios/teach/p3b-join-aligns-two-sources.scn --task coordinator | grep -v 'fault\\|holds'"
check "teach p3b: clicks[0] ends at 165.4 ms, clicks[1] at 165.7 ms" 0 "t=165.376ms clicks[0] reached the end of its input" \
    x p3b-join-aligns-two-sources.scn 'clicks[0]'
check "teach p3b: ... clicks[1]" 0 "t=165.655ms clicks[1] reached the end of its input" x p3b-join-aligns-two-sources.scn 'clicks[1]'
check "teach p3b: they finish on checkpoint 9's notice, 175.9 ms" 0 "t=175.876ms clicks[0] and clicks[1] finished" \
    "$absim" explain scenarios/teach/p3b-join-aligns-two-sources.scn
check "teach p11: finished-tasks off: the crash restores checkpoint 3 and 7920 records are read again" 0 "the sources rewound 7920 records" \
    variant p11-final-checkpoint.scn 's/^checkpoint mode aligned interval 10ms timeout 10s$/& finished-tasks off/'
check "teach p13a: 2000 results visible (100 keys x 20 windows), 2100 firings with the replays" 0 "at sinks 2100, visible 2000" \
    "$absim" run scenarios/teach/p13a-windows-aligned.scn
check "teach p3b: barrier 2 from views[1] at 52.0 ms, 12 buffers waited" 0 \
    "t=52.002ms join[0] got barrier 2 on input 3 (from views[1]); the inputs it blocked go on: 12 buffers waited behind them" \
    x p3b-join-aligns-two-sources.scn 'join[0]'
check "teach p9b: with failover full every task restarts, 12, and the sources read 68832 records" 0 "records read 68832" \
    variant p9b-region-failover.scn 's/ failover region$/ failover full/' 'expect restarted-tasks == 12\n'
check "teach p5a: aligned, a task sees its first barrier 20.9 ms after the trigger" 0 "start delay mean 20.909ms" \
    variant p5a-unaligned-overtakes-backpressure.scn 's/checkpoint mode unaligned/checkpoint mode aligned/'
check "teach p5b: unaligned, 1.5 ms" 0 "duration: mean 1.525ms" \
    variant p5b-alignment-timeout.scn 's/^checkpoint mode aligned\(.*\) alignment-timeout 2ms/checkpoint mode unaligned\1/'
check "teach p5c: unaligned, 1.3 ms, 42 completed" 0 "duration: mean 1.337ms" \
    variant p5c-durations-under-backpressure.scn 's/^checkpoint mode aligned\(.*\) alignment-timeout 2ms/checkpoint mode unaligned\1/' \
    'expect checkpoints == 42\n'

# absim import: every real plan (tests/flink, SOURCES.md), with and without
# a real configuration, makes a scenario that runs, and under random faults.
imp=$(mktemp) || exit 2
imp2=$(mktemp) || exit 2
check "import help" 0 "usage: absim import PLAN" "$absim" import --help
check "import: a plan cut off names its line and column" 2 \
    "streamgraph-1.15-docs-explain-union-TRUNCATED-invalid.json:26:1: JSON:" \
    "$absim" import tests/flink/plans/streamgraph-1.15-docs-explain-union-TRUNCATED-invalid.json -o "$imp"
check "import: a configuration value Flink refuses names its line" 2 \
    "flink-conf-1.15-rocksdb-placeholders-lihuashiyu.yaml:32:1: taskmanager.numberOfTaskSlots: '\${cpu_thread}'" \
    "$absim" import tests/flink/plans/jobdetails-1.15-statemachine-k8sop.json \
    --config tests/flink/conf/flink-conf-1.15-rocksdb-placeholders-lihuashiyu.yaml -o "$imp"
check "import: -o naming an input is refused" 2 "that is" \
    "$absim" import tests/flink/plans/jobdetails-1.15-statemachine-k8sop.json -o tests/flink/plans/jobdetails-1.15-statemachine-k8sop.json
check "import: every key of the configuration is modelled or listed" 0 "16 keys of tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml that absim does not model" \
    "$absim" import tests/flink/plans/streamgraph-docs-master-explain-union-groupagg.json \
    --config tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml
check "import: the configuration's settings become the statements, each with its line" 0 \
    "$(printf '#   restart-strategy.fixed-delay.delay: 10s (tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml:48)\n#   jobmanager.execution.failover-strategy: region (tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml:10)\nrestart fixed-delay attempts 3 delay 10s')" \
    "$absim" import tests/flink/plans/streamgraph-docs-master-explain-union-groupagg.json \
    --config tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml
printf '{"nodes":[{"id":1,"type":"Source: S","pact":"Data Source","contents":"Source: S","parallelism":2},{"id":2,"type":"Frobnicate","pact":"Operator","contents":"Frobnicate","parallelism":2,"predecessors":[{"id":1,"ship_strategy":"REBALANCE","side":"second"}]},{"id":3,"type":"Sink: K","pact":"Data Sink","contents":"Sink: K","parallelism":2,"predecessors":[{"id":2,"ship_strategy":"FORWARD","side":"second"}]}]}' > "$imp2"
check "import: AT_LEAST_ONCE checkpoints (a REST config of a job without checkpoints) expect at-least-once output, and hold it under random faults" 0 \
    "swarm: 20 passed, 0 failed" \
    sh -c "'$absim' import tests/flink/plans/streamgraph-docs-master-explain-union-groupagg.json --config tests/flink/conf/restconfig-1.15plus-streampark-archive-d933fa6c.json -o '$imp' >/dev/null && grep -q '^expect output at-least-once' '$imp' && '$absim' swarm '$imp' --seeds 1..20 --faults random"
check "import: an operator no rule knows is a stateless map, and the file says so" 0 \
    "#   Frobnicate: a name no rule of absim's knows: modelled as a stateless map" "$absim" import "$imp2"
for plan in tests/flink/plans/*.json tests/flink/holdout/plans/*.json; do
    case "$plan" in *TRUNCATED*) continue ;; esac
    check "import $plan: written" 0 "absim import: wrote $imp" "$absim" import "$plan" -o "$imp"
    check "import $plan: runs exactly-once" 0 "expect exactly-once: held" "$absim" run "$imp"
    check "import $plan: runs exactly-once under random faults" 0 "swarm: 12 passed, 0 failed" \
        "$absim" swarm "$imp" --seeds 1..12 --faults random
    check "import $plan with a 2.x config.yaml: runs under random faults" 0 "swarm: 6 passed, 0 failed" \
        sh -c "'$absim' import '$plan' --config tests/flink/conf/config-2.0-nested-restart-codedstreams.yaml -o '$imp2' >/dev/null && '$absim' swarm '$imp2' --seeds 1..6 --faults random"
done
rm -f "$imp" "$imp2"

# absim conform: real histories conform; one with a field changed is flagged.
check "conform help" 0 "usage: absim conform HISTORY.json" "$absim" conform --help
for h in tests/flink/history/checkpoints-*.json tests/flink/holdout/history/checkpoints-*.json; do
    check "conform $h: conforms" 0 "verdict: conforms" "$absim" conform "$h"
done
check "conform: a 1.9.1 history under its own REST config, with details, and the model beside it" 0 \
    "$(printf '  interval            8 checked, held\n  timeout            10 checked, held')" \
    "$absim" conform tests/flink/history/checkpoints-1.9.1-statemachine-soojae-638total.json \
    --config tests/flink/conf/restconfig-1.9.1-statemachine-soojae.json --details tests/flink/history \
    --plan tests/flink/holdout/plans/jobdetails-1.9.1-statemachine-soojae.json
check "conform --plan prints the model beside the history" 0 "trigger spacing, mean (ms)                 2000.0" \
    "$absim" conform tests/flink/history/checkpoints-1.9.1-statemachine-soojae-638total.json \
    --config tests/flink/conf/restconfig-1.9.1-statemachine-soojae.json \
    --plan tests/flink/holdout/plans/jobdetails-1.9.1-statemachine-soojae.json
hb=$(mktemp) || exit 2
sed 's/"num_acknowledged_subtasks":4\(,"checkpoint_type":"CHECKPOINT","tasks":{},"external_path":"[^"]*chk-2"\)/"num_acknowledged_subtasks":3\1/' \
    tests/flink/history/checkpoints-1.15-k8sop-restresponsetest.json > "$hb"
check "conform: a completed checkpoint one acknowledgement short is flagged, exit 1" 1 \
    "finding: acknowledged: checkpoint 2: \$.history[1]: COMPLETED with num_acknowledged_subtasks 3 of num_subtasks 4" \
    "$absim" conform "$hb"
printf 'execution.checkpointing.interval: 5 s\n' > "$hb.yaml"
check "conform: triggers 2 s apart under a 5 s interval are flagged" 1 \
    '{"rule":"interval","checkpoint":631,"text":"$.history[7] trigger_timestamp 1577410355721 is 2000 ms after checkpoint 630'"'"'s, which completed in time' \
    "$absim" conform tests/flink/history/checkpoints-1.9.1-statemachine-soojae-638total.json --config "$hb.yaml" --json
check "conform --json --plan: one JSON object with the model's figures" 0 \
    '"findings":[],"findings_dropped":0,"model":{"completed":' \
    "$absim" conform tests/flink/history/checkpoints-1.9.1-statemachine-soojae-638total.json --json \
    --plan tests/flink/holdout/plans/jobdetails-1.9.1-statemachine-soojae.json
check "conform: not a history" 2 "\$.counts or \$.history: missing" \
    "$absim" conform tests/flink/history/details-1.9.1-statemachine-soojae-714.json
# swarm --faults guided: coverage-guided profiles, the same whatever --jobs.
g1=scenarios/swarm/aligned-exactly-once.scn g2=scenarios/swarm/control-plane.scn
"$absim" swarm $g1 $g2 --seeds 1..60 --faults guided --quiet --jobs 1 --coverage "$bad.g1" > /dev/null
"$absim" swarm $g1 $g2 --seeds 1..60 --faults guided --quiet --jobs 2 --coverage "$bad.g2" > /dev/null
check "swarm --faults guided: the campaign is the same whatever --jobs" 0 "" cmp "$bad.g1" "$bad.g2"
check "swarm --faults guided: every run passes on the correct protocol" 0 "swarm: 120 passed, 0 failed" \
    "$absim" swarm $g1 $g2 --seeds 1..60 --faults guided --quiet
check "swarm --coverage: the points fewer than --target runs reached, rarest first" 0 "points reached by fewer than 50 runs (--target): " \
    "$absim" swarm $g1 --seeds 1..20 --faults guided --quiet --coverage "$bad.g1" --target 50
line=$("$absim" swarm $g1 --seeds 1..4 --faults guided --quiet --bug no-rewind --json 2>/dev/null | head -1)
check "swarm --faults guided: a failing run says its profile is guided" 0 '"faults":"guided"' echo "$line"
cmd=$(printf '%s' "$line" | sed -n 's/.*"replay":"\([^"]*\)".*/\1/p')
check "swarm --faults guided: its replay command, on the run's scenario file, runs as printed" 1 "as recorded" sh -c "$cmd"
rm -rf "$(dirname "$(printf '%s' "$cmd" | cut -d' ' -f3)")"
# Every failing guided run replays from its file, percentages included
# (a drawn 12% reads back as 120000/1000000: runs take the profile as
# the reader reads it).
"$absim" swarm scenarios/swarm/backpressure-vary.scn --seeds 1..12 --faults guided --bug FLINK-10377 --target 5 --json --quiet \
    2>/dev/null | sed -n 's/.*"replay":"\([^"]*\)".*/\1/p' > "$bad.g1"
total=$(wc -l < "$bad.g1"); same=0
while read -r c; do sh -c "$c" 2>/dev/null | grep -q "as recorded" && same=$((same + 1)); done < "$bad.g1"
check "swarm --faults guided: every failing run replays from its file as recorded" 0 "$total of $total" echo "$same of $total"
check "swarm --faults guided: ... and there were some" 1 "" test "$total" -eq 0
while read -r c; do rm -rf "$(dirname "$(printf '%s' "$c" | cut -d' ' -f3)")"; done < "$bad.g1"
check "swarm: --target 0 is bad input" 2 "--target 0: out of range" "$absim" swarm $g1 --seeds 1..2 --faults guided --target 0
check "swarm: an unknown profile is bad input" 2 "--faults 'nice': random, buggify or guided" "$absim" swarm $g1 --seeds 1..2 --faults nice
rm -f "$bad.g1" "$bad.g2"
# absim merge: the shards of one campaign as one report.
mg=scenarios/swarm/aligned-exactly-once.scn
for i in 0 1 2; do
    "$absim" swarm $mg --seeds 1..30 --faults random --bug no-rewind --shard $i/3 --json --quiet --coverage "$bad.mc$i" \
        --junit "$bad.mj$i.xml" > "$bad.m$i" 2>/dev/null
done
"$absim" swarm $mg --seeds 1..30 --faults random --bug no-rewind --json --quiet --junit "$bad.mju.xml" > /dev/null 2>&1
check "merge --junit: the shards' JUnit reports as one, which validates" 0 "validates" \
    sh -c "\"$absim\" merge \"$bad.mj0.xml\" \"$bad.mj1.xml\" \"$bad.mj2.xml\" --junit \"$bad.mjm.xml\" 2>/dev/null; xmllint --noout --schema tests/junit.xsd \"$bad.mjm.xml\""
# The testcases, failures and output of a report, without what differs
# by run or by shard (times, the suites' counts, the properties).
cases() { grep -v '<testsuite\|</testsuite\|<propert\|</propert\|<?xml' "$1" | sed 's/^ *//; s/ time="[^"]*"//'; }
cases "$bad.mju.xml" > "$bad.mjx"; cases "$bad.mjm.xml" > "$bad.mjy"
check "merge --junit: ... with the unsharded campaign's testcases, in seed order, failures and all" 0 "" cmp "$bad.mjx" "$bad.mjy"
check "merge --junit: ... all 30 of them" 0 "30" grep -c "<testcase" "$bad.mjy"
check "merge --junit: ... and says what it holds, with failures" 1 "3 of 3 shards' JUnit reports of absim swarm: 30 testcases, " \
    "$absim" merge "$bad.mj0.xml" "$bad.mj1.xml" "$bad.mj2.xml" --junit "$bad.mjm.xml"
check "merge --junit: the same shard twice is bad input, at its place" 2 "$bad.mj0.xml:3:1: a shard given twice" \
    "$absim" merge "$bad.mj0.xml" "$bad.mj0.xml" --junit "$bad.mjm.xml"
printf '<testsuites name="absim swarm">\n<testsuite\n' > "$bad.mjx"
check "merge --junit: XML that does not parse is bad input, with its line and column" 2 "$bad.mjx:3:1: " \
    "$absim" merge "$bad.mjx" --junit "$bad.mjm.xml"
check "merge: JUnit reports without --junit are bad input" 2 "name the merged one's file with --junit OUT" \
    "$absim" merge "$bad.mj0.xml"
rm -f "$bad.mj0.xml" "$bad.mj1.xml" "$bad.mj2.xml" "$bad.mju.xml" "$bad.mjm.xml" "$bad.mjx" "$bad.mjy"
"$absim" swarm $mg --seeds 1..30 --faults random --bug no-rewind --json --quiet --coverage "$bad.mcu" 2>/dev/null | grep -v '"tally"' > "$bad.mu"
"$absim" merge "$bad.m0" "$bad.m1" "$bad.m2" "$bad.mc0" "$bad.mc1" "$bad.mc2" --coverage "$bad.mca" 2>/dev/null | grep -v '"tally"' > "$bad.mm"
check "merge: three swarm shards give the unsharded campaign's failing runs, in its order" 0 "" cmp "$bad.mu" "$bad.mm"
check "merge: ... and its coverage" 0 "" cmp "$bad.mcu" "$bad.mca"
check "merge: ... and a tally that says the campaign is complete" 1 '"runs":30,"unrun":0,"seeds":30,"files":1,"range":"1..30"' \
    "$absim" merge "$bad.m0" "$bad.m1" "$bad.m2"
check "merge: ... and says it is complete" 1 '"shards":3,"of":3,"complete":true' "$absim" merge "$bad.m0" "$bad.m1" "$bad.m2"
check "merge: a missing shard is named, and the campaign is not complete" 1 "the campaign is NOT complete: shards missing: 1" \
    "$absim" merge "$bad.m0" "$bad.m2"
check "merge: the same shard twice is bad input, at its tally" 2 "$bad.m0:" "$absim" merge "$bad.m0" "$bad.m0"
"$absim" swarm $mg --seeds 1..31 --faults random --shard 1/3 --json --quiet > "$bad.mx" 2>/dev/null
check "merge: a shard of another campaign is bad input" 2 "a shard of another campaign (its \"range\" differs from the first input's)" \
    "$absim" merge "$bad.m0" "$bad.mx"
head -2 "$bad.m0" > "$bad.mx"
check "merge: a report cut short is bad input" 2 "no tally at the end: the shard's report is cut short" "$absim" merge "$bad.mx"
printf '{"tally":true,\n' > "$bad.mx"
check "merge: JSON that does not parse is bad input, with its line and column" 2 "$bad.mx:1:" "$absim" merge "$bad.mx"
for i in 0 1; do
    "$absim" explore scenarios/explore/join-2pc.scn --kinds crash-task --shard $i/2 --json --quiet > "$bad.e$i" 2>/dev/null
done
printf '{"tally":true,"placements":1,"shard":"0/1"}\n' > "$bad.mx"
check "merge: a tally without its counts is bad input" 2 "$bad.mx:1:1: a tally without its \"passed\"" "$absim" merge "$bad.mx"
sed 's/"paths":\[[^]]*\]/"paths":[1]/' "$bad.m0" > "$bad.mx"
check "merge: a failing run of a file the tally does not name is bad input, not a crash" 2 "$bad.mx:1:1: a failing run of a file" \
    "$absim" merge "$bad.mx"
check "merge: a folder is bad input" 2 "Is a directory" "$absim" merge "$(dirname "$bad")"
check "merge: two explore shards cover the space" 0 "the campaign is complete: every shard ran all its runs" \
    "$absim" merge "$bad.e0" "$bad.e1"
check "merge: ... and the tally sums their runs" 0 '"placements":497,"runs":498,"passed":498' "$absim" merge "$bad.e0" "$bad.e1"
check "merge: a swarm shard among explore shards is bad input" 2 "a tally of another command than the first input's" \
    "$absim" merge "$bad.e0" "$bad.m1"
rm -f "$bad.m0" "$bad.m1" "$bad.m2" "$bad.mc0" "$bad.mc1" "$bad.mc2" "$bad.mca" "$bad.mcu" "$bad.mu" "$bad.mm" "$bad.mx" "$bad.e0" "$bad.e1"
# absim explore: every fault of the menu at every protocol point of a small job.
ex=scenarios/explore/join-2pc.scn
check "explore --list: the points and the menu, and the size of the space" 0 \
    "seed 1: 71 points x 138 faults = 9798 placements (window 4ms)" "$absim" explore $ex --list
check "explore --list: placement i is point i / menu with fault i % menu" 0 "   70  when checkpoint 4 completes  (t=17.962724ms)" \
    "$absim" explore $ex --list
check "explore: every task crash at every point passes and the space is covered" 0 \
    "explore: 498 runs (the file as it is and 497 placements): 498 passed, 0 failed (0 died)" \
    "$absim" explore $ex --kinds crash-task --quiet
check "explore: ... and the tally says the space was covered completely" 0 "the space was covered completely" \
    "$absim" explore $ex --kinds crash-task --quiet
check "explore --shard: a shard says it covered its part only" 0 "shard 1/2: 249 of the space's 498 runs): 249 passed" \
    "$absim" explore $ex --kinds crash-task --shard 1/2 --quiet
check "explore --json: the tally object" 0 '"points":71,"faults":7,"placements":497,"runs":498,"passed":498,"failed":0,"died":0,"shard":"0/1","shard_runs":498,"complete":true' \
    "$absim" explore $ex --kinds crash-task --json --quiet
check "explore: a deliberate bug fails placements, each with the command that runs it alone" 1 \
    "FAIL fault when clicks[0] triggers 1 crash task clicks[0]: " "$absim" explore $ex --kinds crash-task --bug no-rewind --quiet
cmd=$("$absim" explore $ex --kinds crash-task --bug no-rewind --quiet | sed -n 's/^  run alone: //p' | head -1)
check "explore: the command printed runs the placement alone, as printed" 1 "invariants: I1 exactly-once state VIOLATED" sh -c "$cmd"
check "explore --only: the placement, as absim run tells it" 1 "placement 0 of 497: fault when checkpoint 1 starts crash task clicks[0]" \
    sh -c "$cmd"
check "explore --only -o: the placement as a scenario file" 0 "" "$absim" explore $ex --kinds crash-task --bug no-rewind --only 0 -o "$bad.ex.scn"
check "explore --only -o: ... which absim run fails the same way" 1 "I1 exactly-once state VIOLATED" "$absim" run "$bad.ex.scn" --bug no-rewind
check "explore --only -o: ... and says where it came from" 0 "# Placement 0 of 497 of absim explore $ex --kinds crash-task --bug no-rewind:" head -2 "$bad.ex.scn"
check "explore: an unknown kind is bad input" 2 "--kinds: 'crash-everything' is no fault kind" "$absim" explore $ex --kinds crash-everything
check "explore: a kind at a time only is bad input" 2 "--kinds: 'rescale' is a fault at a time only" "$absim" explore $ex --kinds rescale
check "explore: --only past the space is bad input" 2 "--only 497: the space has 497 placements (0 to 496)" \
    "$absim" explore $ex --kinds crash-task --only 497
check "explore: --only with --json is bad input" 2 "--only prints the run as absim run does; --json is for the space's runs" \
    "$absim" explore $ex --only 0 --json
check "explore: -o without --only is bad input" 2 "-o writes one placement's scenario: it needs --only I" "$absim" explore $ex -o "$bad.ex.scn"
grep -v '^checkpoint\|^state\|^expect' $ex | sed 's/ output two-phase-commit//' > "$bad.ex.scn"
check "explore: a job without checkpoints has nothing to explore" 2 "nothing to explore: the run reaches no protocol point" \
    "$absim" explore "$bad.ex.scn"
grep -v '^state' $ex > "$bad.ex.scn"
check "explore: store faults without a durable store are refused, and the head says so" 0 \
    "134 faults = 9514 placements (window 4ms; 4 faults the reader refused here, as: " "$absim" explore "$bad.ex.scn" --list
check "explore --ties: every decision among simultaneous events, each other destination first" 0 \
    "and 735 tie orders (222 decisions among simultaneous events, each destination that could have gone first instead)" \
    "$absim" explore $ex --ties --list
check "explore --only: a tie order, as absim run tells it" 0 "schedule: at decision 25 among simultaneous events (of 222), ready destination 2 went first" \
    "$absim" explore $ex --ties --kinds crash-task --only 600
"$absim" explore $ex --ties --kinds crash-task --only 600 -o "$bad.ex.scn"
check "explore --only -o: a tie order is a schedule line of the file" 0 "schedule tie 25 pick 1" cat "$bad.ex.scn"
check "explore --ties: a file that deviates already is refused" 2 "already deviates from the default order (schedule tie 25 pick 1)" \
    "$absim" explore "$bad.ex.scn" --ties
sed 's/^schedule tie 25 pick 1$/schedule tie 500000 pick 1/' "$bad.ex.scn" > "$bad.ex2.scn"
check "run: a schedule line that never applied fails the run, as a fault that never fired" 1 \
    "schedule tie 500000 pick 1 never applied (the run made 222 decisions among simultaneous events" "$absim" run "$bad.ex2.scn"
check "explain: a schedule line that never applied fails as run does" 1 "schedule tie 500000 pick 1 never applied" \
    "$absim" explain "$bad.ex2.scn"
rm -f "$bad.ex2.scn"
# PCT (--pct on run, replay, swarm, shrink, explain; the schedule pct line).
check "run --pct: PCT orders simultaneous events, its steps counted from the default order's run" 0 \
    "schedule: PCT depth 3 over 222 order decisions (schedule pct depth 3 steps 222)" "$absim" run $ex --pct 3
check "run --pct: the run says its probability bound" 0 "with probability at least 1/(" "$absim" run $ex --pct 3
check "run --pct --json: what PCT did" 0 '"pct":{"depth":3,"steps":222,' "$absim" run $ex --pct 3 --json
check "run --pct: a depth past 8 is bad input" 2 "--pct '9': expected DEPTH (1 to 8)" "$absim" run $ex --pct 9
check "run --pct: with a schedule tie line is bad input" 2 "has a schedule tie line" "$absim" run "$bad.ex.scn" --pct 2
pct_hash=$("$absim" run $ex --pct 3 --seed 5 | sed -n 's/.*trace_hash //p')
pct_steps=$("$absim" run $ex --pct 3 --seed 5 --json | sed -n 's/.*"pct":{"depth":3,"steps":\([0-9]*\),.*/\1/p')
check "replay --pct: the same run, event for event" 0 "replay: trace hash $pct_hash as recorded" \
    "$absim" replay $ex --seed 5 --pct 3 --hash "$pct_hash"
check "replay without --pct: diverges, and says the hash is of --pct too" 1 \
    "no --pct); the hash is of the file, --seed, --faults, --bug and --pct" "$absim" replay $ex --seed 5 --hash "$pct_hash"
check "run --pct D/K: K as the run counted them gives the same run" 0 "trace_hash $pct_hash" \
    "$absim" run $ex --seed 5 --pct "3/$pct_steps"
pct_cmd=$("$absim" swarm $ex --seeds 1..1 --pct 3 --faults random --bug no-rewind --json --quiet 2>/dev/null |
          sed -n 's/.*"replay":"\([^"]*\)".*/\1/p' | head -1)
check "swarm --pct: a failing run's replay command names --pct ..." 0 "--pct 3" echo "$pct_cmd"
check "swarm --pct: ... and runs as printed" 1 "as recorded" sh -c "$pct_cmd"
check "shrink --pct: a PCT run's catch shrinks" 0 "written to $bad.pct.scn" \
    "$absim" shrink $ex --seed 1 --faults random --bug no-rewind --pct 3 -o "$bad.pct.scn"
check "shrink --pct: ... its steps pinned in a schedule pct line" 0 "schedule pct depth 3 steps " cat "$bad.pct.scn"
check "shrink --pct: ... and the result fails as the run did" 1 "I1 exactly-once state VIOLATED" "$absim" run "$bad.pct.scn" --bug no-rewind
check "explain --pct: the narration says how simultaneous events are ordered" 0 \
    "the order of simultaneous events: PCT of depth 2 (schedule pct depth 2 steps 222)" "$absim" explain $ex --pct 2
check "explore --ties: a PCT file is refused" 2 "orders simultaneous events by PCT (schedule pct)" \
    "$absim" explore "$bad.pct.scn" --ties
"$absim" swarm $ex --seeds 1..2 --shard 0/2 --json --quiet > "$bad.m0.json" 2>/dev/null
"$absim" swarm $ex --seeds 1..2 --shard 1/2 --pct 2 --json --quiet > "$bad.m1.json" 2>/dev/null
check "merge: a shard of a campaign with another --pct is bad input" 2 'its "pct" differs from the first input' \
    "$absim" merge "$bad.m0.json" "$bad.m1.json"
# PCT of near-simultaneous events (--pct D~T, schedule pct ... near T).
check "run --pct D~T: decisions among events due within T of the earliest" 0 \
    "(schedule pct depth 2 steps 635 near 50us): the run took 536 decisions among events due within 50us of the earliest" \
    "$absim" run $ex --pct 2~50us
check "run --pct D~T --json: the near window" 0 '"near_ns":50000,' "$absim" run $ex --pct 2~50us --json
check "run --pct: a near window of 0 is bad input" 2 "and ~NEAR after either (a duration from 1ns to 100us)" \
    "$absim" run $ex --pct 2~0us
near_hash=$("$absim" run $ex --pct 2~50us --seed 4 | sed -n 's/.*trace_hash //p')
check "replay --pct D~T: the same run, event for event" 0 "replay: trace hash $near_hash as recorded" \
    "$absim" replay $ex --seed 4 --pct 2~50us --hash "$near_hash"
check "replay --pct D without ~T: another run" 1 "the hash is of the file, --seed, --faults, --bug and --pct" \
    "$absim" replay $ex --seed 4 --pct 2 --hash "$near_hash"
pct_cmd=$("$absim" swarm $ex --seeds 1..1 --pct 2~50us --faults random --bug no-rewind --json --quiet 2>/dev/null |
          sed -n 's/.*"replay":"\([^"]*\)".*/\1/p' | head -1)
check "swarm --pct D~T: a failing run's replay command names the window ..." 0 "--pct 2~50us" echo "$pct_cmd"
check "swarm --pct D~T: ... and runs as printed" 1 "as recorded" sh -c "$pct_cmd"
printf 'schedule pct depth 2 near 50us\n' | cat $ex - > "$bad.pct.scn"
check "schedule pct ... near T: the line does what --pct 2~50us does" 0 "trace_hash $near_hash" \
    "$absim" run "$bad.pct.scn" --seed 4
check "schedule pct ... near: a window without a unit is bad input" 2 "'3' needs a unit" \
    sh -c "printf 'schedule pct depth 2 near 3\n' | cat $ex - > \"$bad.pct.scn\" && \"$absim\" run \"$bad.pct.scn\""
check "explain --pct D~T: the narration says the window" 0 \
    "(schedule pct depth 2 steps 635 near 50us): each actor has a priority" "$absim" explain $ex --pct 2~50us
rm -f "$bad.pct.scn" "$bad.m0.json" "$bad.m1.json"
# --faults buggify: two-level fault activation at the protocol points.
check "run --faults buggify: the seed's sites fire at the run's points, as fault when lines" 0 \
    "faults: 8 drawn by --faults buggify for seed 3, 7 fired" "$absim" run $ex --seed 3 --faults buggify
check "run --faults: an unknown profile is bad input" 2 "--faults 'bogus': the profiles are 'random' and 'buggify'" \
    "$absim" run $ex --faults bogus
bgy_cmd=$("$absim" swarm $ex --seeds 1..1 --faults buggify --bug no-rewind --json --quiet 2>/dev/null |
          sed -n 's/.*"replay":"\([^"]*\)".*/\1/p' | head -1)
check "swarm --faults buggify: a failing run's replay command names the profile ..." 0 "--faults buggify" echo "$bgy_cmd"
check "swarm --faults buggify: ... and runs as printed" 1 "as recorded" sh -c "$bgy_cmd"
check "shrink --faults buggify: the profile's faults become the script, and shrink" 0 "with its buggify fault profile" \
    sh -c "\"$absim\" shrink $ex --seed 1 --faults buggify --bug no-rewind -o \"$bad.bgy.scn\" >/dev/null && cat \"$bad.bgy.scn\""
check "swarm --faults buggify: the correct protocol passes" 0 "swarm: 40 passed, 0 failed" \
    "$absim" swarm $ex --seeds 1..40 --faults buggify --quiet
# vary unaligned: Flink's test randomisation of unaligned checkpoints.
printf 'vary unaligned\n' | cat $ex - > "$bad.vu.scn"
check "vary unaligned: a seed draws unaligned on with a 100 ms aligned timeout ..." 0 \
    "checkpoint mode aligned interval 4ms min-pause 0ms timeout 1s max-concurrent 1 tolerable 0 alignment-timeout 100ms" \
    "$absim" run "$bad.vu.scn" --seed 6 --faults random
check "vary unaligned: ... another unaligned from the start" 0 "checkpoint mode unaligned interval 4ms" \
    "$absim" run "$bad.vu.scn" --seed 3 --faults random
rm -f "$bad.bgy.scn" "$bad.vu.scn"
# absim generate: a job shape drawn per seed, as a scenario file.
check "generate --seed: a job shape as a scenario file the reader takes" 0 "expect finished" "$absim" generate --seed 7
"$absim" generate --seed 7 -o "$bad.gen.scn"
check "generate -o: the file runs and its expectations hold" 0 "expect finished: held" "$absim" run "$bad.gen.scn"
check "generate: the same seed gives the same file" 0 "" sh -c "\"$absim\" generate --seed 7 | cmp - \"$bad.gen.scn\""
check "generate: --seed and --seeds together are bad input" 2 "give --seed S [-o FILE], or --seeds A..B --dir DIR" \
    "$absim" generate --seed 1 --seeds 1..2 --dir /tmp
check "generate --seeds: a reversed range is bad input" 2 "--seeds 2: out of range [5," "$absim" generate --seeds 5..2 --dir /tmp
check "generate --seeds: a malformed range is bad input" 2 "--seeds '3x': not a whole number" "$absim" generate --seeds 1..3x --dir /tmp
gd=$(mktemp -d)
check "generate --seeds --dir: a file per seed" 0 "3 files in $gd (gen-4.scn to gen-6.scn)" "$absim" generate --seeds 4..6 --dir "$gd"
check "generate --seeds --dir: the files are the --seed ones" 0 "" sh -c "\"$absim\" generate --seed 7 | cmp - \"$bad.gen.scn\" && \"$absim\" generate --seed 5 | cmp - \"$gd/gen-5.scn\""
check "generate --dir: a folder that does not exist is bad input" 2 "gen-1.scn: cannot write there" "$absim" generate --seeds 1..2 --dir "$gd/none"
rm -rf "$gd" "$bad.gen.scn"
# explore --depth 2: a second fault at every point the first fault's run
# reaches after it fired. FLINK-22494 needs two: an ambiguous write of
# the HA store, then a coordinator failover.
d2="--kinds crash-coordinator,ambiguous-store --depth 2"
check "explore --depth 2: the pairs follow the single faults, each at a point the first one's run reaches after it" 0 \
    "213 placements (window 4ms), and 30870 pairs (10290 points the placements' runs first reach after their fault fired x 3 faults)" \
    "$absim" explore $ex $d2 --list
check "explore --depth 2 --only: a pair, as absim run tells it" 1 \
    "placement 741 of 31083: fault when checkpoint 1 starts ambiguous ha 100% for 4ms; fault when checkpoint 2 starts crash coordinator for 4ms" \
    "$absim" explore $ex $d2 --bug FLINK-22494 --only 741
check "explore --depth 2: that pair catches FLINK-22494, which no single fault does" 1 \
    "invariant I5 violated at t=19.359ms: join[0] restored checkpoint 1 and found a file of it deleted" \
    "$absim" explore $ex $d2 --bug FLINK-22494 --only 741
check "explore --depth 2: ... and the correct protocol passes it" 0 "I5 protocol safety held" "$absim" explore $ex $d2 --only 741
"$absim" explore $ex $d2 --only 741 -o "$bad.ex.scn"
check "explore --depth 2 --only -o: the pair is two fault lines of the file" 0 \
    "$(printf 'fault when checkpoint 1 starts ambiguous ha 100%% for 4ms\nfault when checkpoint 2 starts crash coordinator for 4ms')" \
    sh -c "grep '^fault' \"$bad.ex.scn\""
check "explore --depth 2 --only -o: ... which absim run fails as explore did" 1 "I5 protocol safety VIOLATED" \
    "$absim" run "$bad.ex.scn" --bug FLINK-22494
check "explore --depth 2 --shard: the shard with the first catch fails, and says so" 1 \
    "the first failing run is run 742 (placement 741" "$absim" explore $ex $d2 --bug FLINK-22494 --shard 38/64 --quiet
check "explore --depth 2 --shard: ... and the correct protocol passes that shard" 0 \
    "shard 38/64: 486 of the space's 31084 runs): 486 passed, 0 failed" "$absim" explore $ex $d2 --shard 38/64 --quiet
# FLINK-7783 needs a coordinator failover while the store fails: the
# failure must outlast the crash, so the store's fault has a length of
# its own (KIND=D), and --then narrows the second fault's menu.
d3="--kinds fail-store=12ms --depth 2 --then crash-coordinator"
check "explore --then: the second fault's menu, a kind at a length of its own" 0 \
    "71 points x 1 faults = 71 placements (window 4ms; some kinds at lengths of their own), and 5188 pairs (5188 points the placements' runs first reach after their fault fired x 1 faults of --then)" \
    "$absim" explore $ex $d3 --list
check "explore --then --only: a pair of the store failing 12 ms and the coordinator crashing inside it" 1 \
    "placement 3563 of 5259: fault when checkpoint 2 completes fail store 100% for 12ms; fault when out[0] commits 2 crash coordinator for 4ms" \
    "$absim" explore $ex $d3 --bug FLINK-7783 --only 3563
check "explore --then: that pair catches FLINK-7783, which no single fault does" 1 \
    "invariant I5 violated at t=15.517ms: join[0] restored checkpoint 2 and found a file of it deleted" \
    "$absim" explore $ex $d3 --bug FLINK-7783 --only 3563
check "explore --then: ... and the correct protocol passes it" 0 "I5 protocol safety held" "$absim" explore $ex $d3 --only 3563
check "explore --then --shard: the shard with the first catch says so, with --then in its commands" 1 \
    "the first failing run is run 3564 (placement 3563" "$absim" explore $ex $d3 --bug FLINK-7783 --shard 44/64 --quiet
check "explore --then --shard: ... whose commands repeat --then" 1 "--depth 2 --then crash-coordinator --only 3563" \
    "$absim" explore $ex $d3 --bug FLINK-7783 --shard 44/64 --quiet
check "explore --then --json: the tally names the second menu" 0 '"kinds":"fail-store=12ms","then":"crash-coordinator"}' \
    "$absim" explore $ex $d3 --shard 0/5260 --json --quiet
check "explore: --then without --depth 2 is bad input" 2 "--then names the second and later faults' menu: it needs --depth 2 or more" \
    "$absim" explore $ex --then crash-task
check "explore: a kind named twice is bad input" 2 "--kinds: 'crash-task' is named twice" "$absim" explore $ex --kinds crash-task,crash-task
check "explore: a kind's length that is no duration is bad input" 2 "--then: 'fail-store=4': '4' needs a unit" \
    "$absim" explore $ex --depth 2 --then fail-store=4
check "explore: a kind's length of 0 is bad input" 2 "--kinds: 'fail-store=0ms': the length must be above 0" \
    "$absim" explore $ex --kinds fail-store=0ms
check "explore: a length for a kind with no window is bad input" 2 \
    "--kinds: 'crash-task=5ms': crash-task takes no length (it has no window and no delay)" "$absim" explore $ex --kinds crash-task=5ms
check "explore: a kind at one length named twice is bad input" 2 "--kinds: 'fail-store=12ms': named twice" \
    "$absim" explore $ex --kinds fail-store=12ms,fail-store=12ms
check "explore: an empty item of --kinds is bad input" 2 "--kinds: an empty item (two commas, or one at an end)" \
    "$absim" explore $ex --kinds crash-task,
check "explore: --then given twice is bad input" 2 "--then given twice: name every kind in one list" \
    "$absim" explore $ex --depth 2 --then crash-task --then fail-store
check "explore --then --list: the second fault's kinds" 0 "kinds of the second and later faults (--then): crash-machine (off) crash-task (off) crash-coordinator partition (off)" \
    "$absim" explore $ex $d3 --list
check "explore: --depth 5 is bad input" 2 "--depth" "$absim" explore $ex --depth 5
# explore --depth 3: each pair extended by a fault at each point its run
# first reaches after its second fault fired.
check "explore --depth 3: placements of three faults follow the pairs" 0 \
    "and 3280 pairs (3280 points the placements' runs first reach after their fault fired x 1 faults), and 147917 placements of 3 faults (147917 points the runs of placements of 2 first reach after their last fault fired x 1 faults)" \
    "$absim" explore $ex --kinds crash-coordinator --depth 3 --list --quiet
check "explore --depth 3 --only: three coordinator crashes, each after the one before, as absim run tells it" 0 \
    "placement 3351 of 151268: fault when checkpoint 1 starts crash coordinator for 4ms; fault when checkpoint 2 starts crash coordinator for 4ms; fault when checkpoint 3 starts crash coordinator for 4ms" \
    "$absim" explore $ex --kinds crash-coordinator --depth 3 --only 3351 --quiet
check "explore --depth 3 --only: ... all three fire" 0 "faults: 3 placed by absim explore, 3 fired" \
    "$absim" explore $ex --kinds crash-coordinator --depth 3 --only 3351 --quiet
# explore --tie-depth K: orders up to K ties away from the default; on a
# small enough job, every order of its simultaneous events.
eo=scenarios/explore/every-order.scn
check "explore --tie-depth: each order of fewer ties extended at each decision its run makes after its last" 0 \
    "and 12 tie orders (11 decisions among simultaneous events, each destination that could have gone first instead), and 61 orders of 2 ties (61 decisions the runs of orders of 1 make after their last tie" \
    "$absim" explore $eo --kinds crash-coordinator --tie-depth 2 --list --quiet
check "explore --tie-depth: when runs of K ties decide more, the tally says more orders exist" 0 \
    "every order with at most 2 ties ran; 41 of the runs with 2 made decisions after their last tie, so more orders exist" \
    "$absim" explore $eo --kinds crash-coordinator --tie-depth 2 --quiet
check "explore --tie-depth --json: the tally says whether every order ran" 0 '"tie_depth":2,"orders_beyond":41,"orders_unknown":0,"every_order":false,' \
    "$absim" explore $eo --kinds crash-coordinator --tie-depth 2 --json --quiet
check "explore --tie-depth: every order of the small job's simultaneous events runs, and passes" 0 \
    "every order of simultaneous events ran: the default one and 1151 others (of 1 to 8 ties); no run made a decision among simultaneous events after its last tie" \
    "$absim" explore $eo --kinds crash-coordinator --tie-depth 9 --quiet
check "explore --tie-depth --only: an order of three ties, as absim run tells it" 0 \
    "placement 191 of 1160: schedule tie 2 pick 1; schedule tie 8 pick 1; schedule tie 9 pick 1" \
    "$absim" explore $eo --kinds crash-coordinator --tie-depth 9 --only 191 --quiet
"$absim" explore $eo --kinds crash-coordinator --tie-depth 9 --only 191 -o "$bad.ex.scn" --quiet
check "explore --tie-depth --only -o: the order is schedule tie lines of the file" 0 \
    "$(printf 'schedule tie 2 pick 1\nschedule tie 8 pick 1\nschedule tie 9 pick 1')" sh -c "grep '^schedule' \"$bad.ex.scn\""
check "run: the schedule tie lines each say what they did" 0 \
    "at decision 9 among simultaneous events (of 11), ready destination 2 went first instead of the first in push order (schedule tie 9 pick 1)" \
    "$absim" run "$bad.ex.scn"
check "explain: the narration says which decisions the schedule tie lines change" 0 \
    "the order of simultaneous events: as they were pushed, but at decisions 2 (ready destination 2), 8 (ready destination 2) and 9 (ready destination 2)" \
    "$absim" explain "$bad.ex.scn"
printf 'schedule tie 9 pick 1\nschedule tie 8 pick 1\n' | cat $eo - > "$bad.ex2.scn"
check "run: schedule tie lines whose decisions do not increase are bad input" 2 \
    ".ex2.scn:25:14: decision 8 after decision 9: schedule tie lines name increasing decisions" "$absim" run "$bad.ex2.scn"
check "explore: --tie-depth 17 is bad input" 2 "--tie-depth" "$absim" explore $eo --tie-depth 17
check "explore --tie-depth --shard: a shard whose runs decide nothing more says merge must tell" 0 \
    "every order with at most 8 ties ran in this shard, and none of its runs with 8 made a decision after its last tie; absim merge" \
    "$absim" explore $eo --kinds crash-coordinator --tie-depth 8 --shard 0/40 --quiet
for i in 0 1; do "$absim" explore $eo --kinds crash-coordinator --tie-depth 2 --shard $i/2 --json --quiet > "$bad.m$i.json" 2>/dev/null; done
check "merge: the shards' runs that decided after their last tie add up" 0 '"orders_beyond":41,"orders_unknown":0,"every_order":false,' \
    "$absim" merge "$bad.m0.json" "$bad.m1.json"
for i in 0 1; do "$absim" explore $eo --kinds crash-coordinator --tie-depth 9 --shard $i/2 --json --quiet > "$bad.m$i.json" 2>/dev/null; done
check "merge: every order ran when no shard's deepest runs decided more" 0 "merge: every order of simultaneous events ran" \
    "$absim" merge "$bad.m0.json" "$bad.m1.json"
"$absim" explore $eo --kinds crash-coordinator --tie-depth 8 --shard 1/2 --json --quiet > "$bad.m1.json" 2>/dev/null
check "merge: a shard of another --tie-depth is bad input" 2 'its "tie_depth" differs from the first input' \
    "$absim" merge "$bad.m0.json" "$bad.m1.json"
rm -f "$bad.m0.json" "$bad.m1.json"
rm -f "$bad.ex2.scn"
rm -f "$bad.ex.scn"
rm -f "$hb" "$hb.yaml"
rm -f "$tv"
rm -f "$pic" "$pic".*
rm -f "$cov" "$cov.list" "$cov.old" "$cov.bad"
rm -f "$bad" "$bad.xml" "$bad.min.scn" "$bad.x" "$bad.dot" "$bad.trace"
echo "cli-check: $passed passed, $failed failed"
[ $failed -eq 0 ]
