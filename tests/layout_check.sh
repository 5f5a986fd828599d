#!/bin/sh
# tests/layout_check.sh [BUILD]: the model's floors, checked on every
# #include and, when BUILD holds the objects, on every call between them
# (a call is not an include: nm says who takes a symbol from whom).
#
# Floors of model/, lowest first; a file includes and calls only its own
# floor and those below it:
#   0  sim/ (the kernel) and model/flow/ (pure parts)
#   1  the vocabulary: bugs, reach, stats, event, cfg, proto (.h and .c)
#   2  the world: world.h, world.c
#   3  the sides: model/tm/ and model/jm/, which never include or call
#      each other
#   4  the assembly: pipe_int.h, pipe.c, plan.c, view.c, horizon.c, and
#      the face pipe.h with plan.h and view.h, which check/, reports/,
#      scenarios/ and cli/ include
# The only circles left are inside tm/ and inside jm/. A file that breaks
# a floor is named with its line; exit 1.
cd "$(dirname "$0")/.." || exit 2
build=${1:-build}
bad=0
VOCAB='bugs|reach|stats|event|cfg|proto'
includes() {   # file: its quoted includes, one per line as "line:path"
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" | sed 's/^\([0-9]*\):.*"\(.*\)".*/\1:\2/'
}
check() {   # files, allowed pattern (a path as written), what
    files=$1 allowed=$2 what=$3
    for f in $files; do
        [ -e "$f" ] || continue
        includes "$f" | while IFS=: read -r line path; do
            if ! echo "$path" | grep -Eq "^($allowed)\$"; then
                echo "layout-check: $f:$line: includes \"$path\": $what"
                echo x >> "$tmp"
            fi
        done
    done
}
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
check "sim/*.c sim/*.h" '[a-z_]+\.h' "sim/ includes only sim/"
check "model/flow/*.c model/flow/*.h" '[a-z_]+\.h|\.\./\.\./sim/[a-z_]+\.h' "model/flow/ includes only model/flow/ and sim/"
for v in bugs reach stats event cfg proto; do
    check "model/$v.h model/$v.c" "($VOCAB)\.h|flow/[a-z_]+\.h|\.\./sim/[a-z_]+\.h" \
          "the vocabulary (floor 1) includes only itself, model/flow/ and sim/"
done
check "model/world.h model/world.c" "world\.h|($VOCAB)\.h|flow/[a-z_]+\.h|\.\./sim/[a-z_]+\.h" \
      "the world (floor 2) includes only the vocabulary, model/flow/ and sim/"
check "model/tm/*.c model/tm/*.h" "[a-z_]+\.h|\.\./(world|$VOCAB)\.h|\.\./flow/[a-z_]+\.h|\.\./\.\./sim/[a-z_]+\.h" \
      "model/tm/ includes only tm/, the world, the vocabulary, flow/ and sim/ (never jm/ or the assembly)"
check "model/jm/*.c model/jm/*.h" "[a-z_]+\.h|\.\./(world|$VOCAB)\.h|\.\./flow/[a-z_]+\.h|\.\./\.\./sim/[a-z_]+\.h" \
      "model/jm/ includes only jm/, the world, the vocabulary, flow/ and sim/ (never tm/ or the assembly)"
check "flink/*.c flink/*.h" '[a-z_]+\.h' \
      "flink/ reads what Flink prints and includes only flink/ (never the model or the kernel)"
for d in check reports scenarios cli; do
    check "$d/*.c $d/*.h" "[a-z_]+\.h|\.\./sim/[a-z_]+\.h|\.\./model/(pipe|proto)\.h|\.\./model/flow/[a-z_]+\.h|\.\./[a-z]+/[a-z_]+\.h" \
          "$d/ sees the model through model/pipe.h (and proto.h, flow/) only"
done
[ -s "$tmp" ] && bad=1

# Calls: the objects of each floor take no symbol defined by a higher one.
defined() { for o in "$@"; do [ -e "$o" ] && nm --defined-only "$o" | awk '$2 ~ /[TDRB]/ {print $3}'; done | sort -u; }
taken() { for o in "$@"; do [ -e "$o" ] && nm -u "$o" | awk '{print $2}'; done | sort -u; }
link_check() {   # what, objects below, objects above
    what=$1 below=$2 above=$3
    hits=$(comm -12 "$below" "$above")
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|^|layout-check: $what takes |"
        bad=1
    fi
}
if [ -e "$build/model/pipe.o" ]; then
    B=$build/model
    d=$(mktemp -d) || exit 2
    trap 'rm -rf "$d" "$tmp"' EXIT
    taken $B/flow/*.o "$build"/sim/*.o > "$d/u0"
    taken $B/bugs.o $B/reach.o $B/event.o $B/cfg.o > "$d/u1"
    taken $B/world.o > "$d/u2"
    taken $B/tm/*.o > "$d/utm"
    taken $B/jm/*.o > "$d/ujm"
    defined $B/bugs.o $B/reach.o $B/event.o $B/cfg.o > "$d/d1"
    defined $B/world.o > "$d/d2"
    defined $B/tm/*.o > "$d/dtm"
    defined $B/jm/*.o > "$d/djm"
    defined $B/pipe.o $B/plan.o $B/view.o $B/horizon.o > "$d/d4"
    cat "$d/d1" "$d/d2" "$d/dtm" "$d/djm" "$d/d4" | sort -u > "$d/d1up"
    cat "$d/d2" "$d/dtm" "$d/djm" "$d/d4" | sort -u > "$d/d2up"
    cat "$d/dtm" "$d/djm" "$d/d4" | sort -u > "$d/d3up"
    cat "$d/djm" "$d/d4" | sort -u > "$d/abovetm"
    cat "$d/dtm" "$d/d4" | sort -u > "$d/abovejm"
    link_check "sim/ or model/flow/ (floor 0)" "$d/u0" "$d/d1up"
    link_check "the vocabulary (floor 1)" "$d/u1" "$d/d2up"
    link_check "the world (floor 2)" "$d/u2" "$d/d3up"
    link_check "model/tm/ (floor 3)" "$d/utm" "$d/abovetm"
    link_check "model/jm/ (floor 3)" "$d/ujm" "$d/abovejm"
    links=" and calls"
else
    links=" (calls not checked: no objects in $build)"
fi
if [ $bad -ne 0 ]; then
    echo "layout-check: failed"
    exit 1
fi
echo "layout-check: model/ keeps to its floors in includes$links; tm/ and jm/ never reach each other"
