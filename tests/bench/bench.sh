#!/bin/sh
# tests/bench/bench.sh ABSIM PYTHON: `make bench`. PHOLD on absim against the
# same model in SimPy (tests/bench/phold_simpy.py: its leanest idiomatic
# form, one process per chain of events, and the form of SimPy's Event
# Latency example, a process per message), on the same machine, one run
# after the other, alternating: absim 5 rounds, each SimPy form 3. Both use 1000 LPs, remote 0.9, seed 1, mean 1 ms,
# lookahead 1 us. SimPy runs fewer events so the bench stays short; both
# report events per second of their run loop alone (set-up excluded), and
# the pending population is the same N in both, so the rates compare.
# Prints every JSON line, then the medians and their ratio.
#
# Environment: BENCH_ABSIM_EVENTS (default 10000000), BENCH_SIMPY_EVENTS
# (default 2000000; the message form runs half as many).
absim=${1:?usage: bench.sh ABSIM PYTHON}
python=${2:?usage: bench.sh ABSIM PYTHON}
model="$(dirname "$0")/phold_simpy.py"
a_events=${BENCH_ABSIM_EVENTS:-10000000}
s_events=${BENCH_SIMPY_EVENTS:-2000000}
a_rounds=5
s_rounds=3
flags="--lps 1000 --remote 0.9 --seed 1 --mean-ns 1000000 --lookahead-ns 1000"

field() {
    printf '%s\n' "$2" | sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}
# median of the numbers on stdin, one a line
median() {
    sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

versions=$("$python" -c 'import sys, simpy; print("SimPy %s, Python %s" % (simpy.__version__, sys.version.split()[0]))' 2>/dev/null) || {
    echo "bench: $python cannot import simpy (Debian package python3-simpy3)"; exit 1; }
echo "bench: PHOLD $flags; absim $a_events events x$a_rounds, simpy ($versions) $s_events events x$s_rounds, alternating"

m_events=$((s_events / 2))
a_rates=""; s_rates=""; m_rates=""; a_hashes=""; s_hashes=""
round=1
while [ $round -le $a_rounds ]; do
    out=$("$absim" bench phold $flags --events "$a_events") || { echo "bench: absim failed: $out"; exit 1; }
    printf '%s\n' "$out"
    a_rates="$a_rates $(field events_per_sec "$out")"
    a_hashes="$a_hashes $(field trace_hash "$out")"
    if [ $round -le $s_rounds ]; then
        out=$("$python" "$model" $flags --events "$s_events") || { echo "bench: simpy failed: $out"; exit 1; }
        printf '%s\n' "$out"
        s_rates="$s_rates $(field events_per_sec "$out")"
        s_hashes="$s_hashes $(field trace_hash "$out")"
        out=$("$python" "$model" $flags --style message --events "$m_events") || { echo "bench: simpy failed: $out"; exit 1; }
        printf '%s\n' "$out"
        m_rates="$m_rates $(field events_per_sec "$out")"
    fi
    round=$((round + 1))
done

# Same flags, same hash: a run that differs between rounds is a bug.
if [ "$(printf '%s\n' $a_hashes | sort -u | wc -l)" -ne 1 ] ||
   [ "$(printf '%s\n' $s_hashes | sort -u | wc -l)" -ne 1 ]; then
    echo "bench: trace_hash differs between rounds of the same run (absim:$a_hashes; simpy:$s_hashes)"
    exit 1
fi

a_med=$(printf '%s\n' $a_rates | median)
s_med=$(printf '%s\n' $s_rates | median)
m_med=$(printf '%s\n' $m_rates | median)
awk -v a="$a_med" -v s="$s_med" -v m="$m_med" -v ae="$a_events" -v se="$s_events" -v me="$m_events" \
    -v ar="$a_rounds" -v sr="$s_rounds" 'BEGIN {
    printf "bench: absim median %.1fM ev/s (%d events x%d)\n", a / 1e6, ae, ar
    printf "bench: simpy chain form   %.2fM ev/s (%d events x%d): absim/simpy %.1fx\n", s / 1e6, se, sr, (s > 0 ? a / s : 0)
    printf "bench: simpy message form %.2fM ev/s (%d events x%d): absim/simpy %.1fx\n", m / 1e6, me, sr, (m > 0 ? a / m : 0)
}'
