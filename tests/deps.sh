#!/bin/sh
# Checks the Debian packages that absim's build and tests need; as root it
# installs the missing ones with apt-get, otherwise it stops with one line
# naming them.
missing=""
[ -f /usr/include/cmocka.h ] || missing="$missing libcmocka-dev"
command -v lcov >/dev/null 2>&1 || missing="$missing lcov"
command -v dot >/dev/null 2>&1 || missing="$missing graphviz"
/usr/bin/python3 -c 'import simpy' >/dev/null 2>&1 || missing="$missing python3-simpy3"
command -v clang >/dev/null 2>&1 || missing="$missing clang"
[ -f /usr/include/jansson.h ] || missing="$missing libjansson-dev"   # Flink's JSON: plans, REST histories (absim import, conform)
[ -f /usr/include/yaml.h ] || missing="$missing libyaml-dev"           # Flink's config.yaml (1.19+)
command -v xmllint >/dev/null 2>&1 || missing="$missing libxml2-utils"   # validates swarm's JUnit report and the SVG
[ -f /usr/include/libxml2/libxml/parser.h ] || missing="$missing libxml2-dev"   # absim merge --junit reads and writes JUnit
# Headless Chromium renders the run viewer (tests/html_check.sh). Large, so
# optional: installed as root, otherwise the check says it skips.
optional=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || optional="chromium"
if [ "$(id -u)" != 0 ] && [ -n "$optional" ]; then
    echo "deps: no chromium: tests/html_check.sh will skip (to run it: sudo apt-get install chromium)"
fi
[ "$(id -u)" = 0 ] && missing="$missing $optional"
[ -z "${missing# }" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >/tmp/absim-apt.log 2>&1 || {
        echo "deps: apt-get failed, see /tmp/absim-apt.log"; tail -5 /tmp/absim-apt.log; exit 1; }
    exit 0
fi
echo "absim needs these Debian packages: sudo apt-get install$missing"
exit 1
