#!/bin/sh
# tests/layout_check.sh: the model's layout rule, checked on every #include.
#   model/flow/  (pure parts) includes nothing of the model outside model/flow/;
#   model/tm/    (TaskManagers) never includes a header of model/jm/;
#   model/jm/    (JobManager) never includes a header of model/tm/;
#   sim/         never includes anything of model/.
# A file that breaks it is named with its line; exit 1.
cd "$(dirname "$0")/.." || exit 2
bad=0
check() {   # folder, forbidden pattern, what
    for f in "$1"/*.c "$1"/*.h; do
        [ -e "$f" ] || continue
        hits=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | grep -E "$2")
        if [ -n "$hits" ]; then
            echo "$hits" | sed "s|^|layout-check: $f:|; s|\$|: $3|"
            bad=1
        fi
    done
}
check model/flow '"\.\./[a-z_]+\.h"|"\.\./(tm|jm)/' "model/flow/ includes only model/flow/ and sim/"
check model/tm '"(\.\./)?jm/|"\.\./jm/' "model/tm/ must not include model/jm/"
check model/jm '"(\.\./)?tm/|"\.\./tm/' "model/jm/ must not include model/tm/"
check sim 'model/' "sim/ must not include model/"
for f in model/flow/*.[ch]; do   # flow's includes may reach sim/ only as ../../sim/
    hits=$(grep -n '#include "\.\./\.\./' "$f" | grep -v '"\.\./\.\./sim/')
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|^|layout-check: $f:|"
        bad=1
    fi
done
if [ $bad -ne 0 ]; then
    echo "layout-check: failed"
    exit 1
fi
echo "layout-check: model/flow, model/tm, model/jm and sim keep to their includes"
