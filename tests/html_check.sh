#!/bin/sh
# tests/html_check.sh: the run viewer (absim run --html) in a real browser.
# Headless Chromium renders the page of teaching scenarios: the screenshot
# must not be blank (enough distinct colours, enough ink), and the page
# opened at two steps (#step=N) must show two different task states and
# step texts, so stepping changes what is shown. The checkpoint pictures:
# opened at #ck=1 and #ck=2 the page shows that picture alone, and the
# two renderings differ; opened at the step where a task triggers
# checkpoint 2, it shows checkpoint 2's picture with that task's box
# marked (the picture follows the stepper), and opened at #ck=2 (chosen
# by hand, the stepper no longer followed) no box is marked. At the first completion the
# stepper says what the checkpoint holds (the sources' offsets, as the
# page's data has them) and shows every stateful task's part of it, and
# the last completion (after the faults, put among the steps) its own;
# every completion in the page's data carries what it holds. The
# diagram's axis, as the page's data has it, keeps one scale: every
# segment but the breaks draws as many pixels a millisecond, and each
# break is labelled on the diagram with the time it leaves out. A run
# too long to draw whole (p4a) is drawn in windows: opened at a late step
# the page shows the last window, with the step's cursor in it.
# Without chromium (make deps
# installs it as root) it says so and passes.
#   sh tests/html_check.sh ABSIM [PYTHON]     p3 (alignment), p9 (a crash and a restart) and p9b (a region restart)
#   HTML_CHECK=all sh tests/html_check.sh ... every scenario under scenarios/teach/
absim=${1:?usage: html_check.sh ABSIM [PYTHON]}
python=${2:-/usr/bin/python3}
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
    echo "html-check: skipped: no chromium here (make deps as root installs it; or: sudo apt-get install chromium)"
    exit 0
fi
tmp=$(mktemp -d /tmp/absim-html-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir=$tmp/profile"
passed=0; failed=0
fail() { failed=$((failed + 1)); echo "html-check: FAILED $1"; }

# Distinct colours and the share of pixels that are not the page's
# background, from an 8-bit RGB(A) PNG, read with the standard library.
png_ink() {
    "$python" - "$1" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
colours, ink = set(), 0
for line in rows:
    for x in range(0, stride, bpp * 2):          # every other pixel: enough, and quick
        px = line[x:x + 3]
        colours.add(px)
        ink += px not in (b"\xfa\xfa\xfa", b"\xff\xff\xff")
share = 200.0 * ink / (w * h)
print("%d colours, %.1f%% ink" % (len(colours), share))
sys.exit(0 if len(colours) >= 16 and share > 2 else 1)
PY
}

state_at() {   # PAGE STEP: the step text and the state table the page shows at #step=STEP
    timeout 60 "$browser" $flags --virtual-time-budget=3000 --dump-dom "file://$1#step=$2" 2>/dev/null | tr -d '\n' |
        sed -n 's/.*\(<span id="st-pos">.*<\/table>\).*/\1/p'
}

dom_at() {   # PAGE FRAGMENT: the page's DOM after its script ran, on one line
    timeout 60 "$browser" $flags --virtual-time-budget=3000 --dump-dom "file://$1#$2" 2>/dev/null | tr -d '\n'
}
shown() { grep -o 'class="ckpic on" id="ck-[0-9]*"' | sed 's/.*id="//; s/"$//' | tr '\n' ' '; }   # the pictures shown
marked() { grep -o 'data-t="[0-9]*" class="curt"' | sed 's/data-t="//; s/".*//' | sort -u | tr '\n' ' '; }   # boxes marked

check_pictures() {   # NAME PAGE: which picture shows, as chosen and as the stepper goes
    a=$(dom_at "$2" ck=1 | shown)
    b=$(dom_at "$2" ck=2 | shown)
    case "$a|$b" in "ck-1 |ck-2 ") ;; *) fail "$1: #ck=1 and #ck=2 show '$a' and '$b'"; return 1 ;; esac
    o=$(dom_at "$2" ck=2 | marked)               # chosen by hand: the stepper's task is not outlined in it
    if [ -n "$o" ]; then fail "$1: #ck=2 (follow the stepper off) outlines task box '$o'"; return 1; fi
    for k in 1 2; do
        timeout 60 "$browser" $flags --virtual-time-budget=3000 --screenshot="$tmp/$1.ck$k.png" --window-size=1400,3200 \
            "file://$2#ck=$k" > /dev/null 2>&1
    done
    if ! png_ink "$tmp/$1.ck2.png" > /dev/null; then fail "$1: the page at #ck=2 looks blank"; return 1; fi
    if cmp -s "$tmp/$1.ck1.png" "$tmp/$1.ck2.png"; then fail "$1: checkpoints 1 and 2 render the same"; return 1; fi
    # the first step where a task triggers checkpoint 2: its index, and the task
    at=$(awk '/^\{"t":/ { if (match($0, /"k":"trigger","ti":[0-9]+,"c":2,/)) { split(substr($0, RSTART, RLENGTH), f, /[:,]/);
              print i, f[4]; exit } i++ }' "$2")
    set -- "$1" "$2" $at
    dom_at "$2" "step=$3" > "$tmp/$1.step"
    c=$(shown < "$tmp/$1.step"); m=$(marked < "$tmp/$1.step")
    if [ "$c" != "ck-2 " ] || [ "$m" != "$4 " ]; then
        fail "$1: step $3 (task $4 triggers checkpoint 2) shows '$c', marks '$m'"; return 1
    fi
    echo "html-check: $1: #ck=1 and #ck=2 show their pictures, rendered differently; step $3 shows checkpoint 2, task $4 marked"
}

check_holds() {   # NAME PAGE: at the first completion the stepper says what the checkpoint holds, every stateful task's part
    at=$("$python" - "$2" <<'PY'
import json, sys
i = 0
for line in open(sys.argv[1]):
    if not line.startswith('{"t":') and not line.startswith(',{"t":'): continue
    st = json.loads(line.lstrip(',').rstrip().rstrip(','))
    if st["k"] == "checkpoint-complete" and "h" in st:
        print(i, st["c"], st["h"]["offsets"][0], len(st["h"]["state"])); break
    i += 1
PY
)
    set -- "$1" "$2" $at
    if [ -z "$3" ]; then fail "$1: no completion carries what its checkpoint holds"; return 1; fi
    dom_at "$2" "step=$3" > "$tmp/$1.holds"
    if ! grep -q "<div id=\"st-holds\">Checkpoint $4, the last completed, holds the sources’ offsets (S_$4) p0 $5," "$tmp/$1.holds"; then
        fail "$1: step $3 does not say what checkpoint $4 holds"; return 1
    fi
    k=$(grep -o '<td>[0-9]* \(keys\|window entries\) ([0-9]* records)[^<]*, [0-9]* files\?[^<]*</td>' "$tmp/$1.holds" | wc -l)
    if [ "$k" -ne "$6" ]; then fail "$1: step $3 shows $k tasks' part of checkpoint $4, it holds $6"; return 1; fi
    last=$("$python" - "$2" <<'PY'
import json, sys
i, last = 0, ""
for line in open(sys.argv[1]):
    if not line.startswith('{"t":') and not line.startswith(',{"t":'): continue
    st = json.loads(line.lstrip(',').rstrip().split(']}</script>')[0].rstrip(','))   # the last step ends the data
    if st["k"] == "checkpoint-complete" and "h" not in st: last = "no-contents %d" % st["c"]; break
    if st["k"] == "checkpoint-complete": last = "%d %d" % (i, st["c"])
    i += 1
print(last)
PY
)
    case "$last" in no-contents*) fail "$1: the completion of checkpoint ${last#no-contents } carries no contents"; return 1 ;; esac
    set -- "$1" "$2" $last
    dom_at "$2" "step=$3" > "$tmp/$1.holds"
    if ! grep -q "<div id=\"st-holds\">Checkpoint $4, the last completed, holds" "$tmp/$1.holds"; then
        fail "$1: step $3, the last completion (checkpoint $4), does not say what it holds"; return 1
    fi
    echo "html-check: $1: the first completion shows what its checkpoint holds, and so does the last (step $3, checkpoint $4)"
}

check_scale() {   # NAME PAGE: one time scale on the diagram's axis, and each break labelled with how long
    out=$("$python" - "$2" <<'PY'
import json, re, sys
page = open(sys.argv[1]).read()
data = json.loads(re.search(r'<script type="application/json" id="absim-data">(.*?)</script>', page, re.S).group(1))
out = []
for k, pane in enumerate(data["panes"]):
    axis = pane["axis"]
    scales = [(x1 - x0) / (t1 - t0) for t0, t1, x0, x1, gap in axis if not gap and t1 > t0 and x1 - x0 >= 20]
    breaks = ["%.2f ms" % ((t1 - t0) / 1e6) for t0, t1, x0, x1, gap in axis if gap]
    unlabelled = [b for b in breaks if ">%s</text>" % b not in page]
    if not scales or max(scales) > min(scales) * 1.02 or unlabelled:
        print("window %d: scales %s px/ms, unlabelled breaks %s" % (k, sorted({round(s * 1e6, 1) for s in scales}), unlabelled))
        sys.exit(1)
    out.append("%d segment%s at %.1f px/ms, %d break%s labelled" % (len(scales), "" if len(scales) == 1 else "s", scales[0] * 1e6, len(breaks), "" if len(breaks) == 1 else "s"))
print("; ".join(out))
PY
) || { fail "$1: the diagram's axis: $out"; return 1; }
    echo "html-check: $1: one time scale: $out"
}

check_panes() {   # SCENARIO: a run drawn in windows: a late step opens the window that holds it, its cursor shown
    name=$(basename "$1" .scn)
    page="$tmp/$name.html"
    if ! "$absim" run "$1" --html "$page" > /dev/null; then fail "$name: absim run --html"; return; fi
    n=$(grep -c '^,\?{"t":' "$page")
    at=$((n - 20))
    dom_at "$page" "step=$at" > "$tmp/$name.late"
    w=$(grep -o '<span id="sd-now">window [0-9]* of [0-9]*' "$tmp/$name.late" | sed 's/.*window //')
    on=$(grep -o 'class="sd-pane on" id="sd-pane-[0-9]*"' "$tmp/$name.late" | sed 's/.*sd-pane-//; s/"//')
    case "$w" in "$((on + 1)) of $((on + 1))") ;; *) fail "$name: step $at shows '$w' (window $on on), not the last window"; return ;; esac
    if ! grep -q "<line id=\"sd-cursor-$on\"[^>]*visibility=\"visible\"" "$tmp/$name.late" ||
       grep -q '<div id="st-where">(this step is outside' "$tmp/$name.late"; then
        fail "$name: step $at has no cursor in window $on"; return
    fi
    passed=$((passed + 1))
    echo "html-check: $name: step $at of $n opens window $w, the last, its cursor at the step"
}

check_page() {   # SCENARIO
    name=$(basename "$1" .scn)
    page="$tmp/$name.html"
    if ! "$absim" run "$1" --html "$page" > /dev/null; then fail "$name: absim run --html"; return; fi
    timeout 60 "$browser" $flags --screenshot="$tmp/$name.png" --window-size=1200,900 "file://$page" > /dev/null 2>&1
    if [ ! -s "$tmp/$name.png" ]; then fail "$name: no screenshot"; return; fi
    if ! ink=$(png_ink "$tmp/$name.png"); then fail "$name: the screenshot looks blank ($ink)"; return; fi
    n=$(grep -c '^{"t":' "$page")          # the embedded steps, one a line
    a=$(state_at "$page" 3)
    b=$(state_at "$page" $((n / 2)))
    if [ -z "$a" ] || [ -z "$b" ]; then fail "$name: the stepper shows nothing"; return; fi
    if [ "$a" = "$b" ]; then fail "$name: steps 3 and $((n / 2)) show the same"; return; fi
    case "$b" in *"step $((n / 2)) of"*) ;; *) fail "$name: #step=$((n / 2)) did not open that step"; return ;; esac
    check_pictures "$name" "$page" || return
    check_holds "$name" "$page" || return
    check_scale "$name" "$page" || return
    passed=$((passed + 1))
    echo "html-check: $name: $ink; steps 3 and $((n / 2)) of $n show different states"
}

if [ "${HTML_CHECK:-}" = all ]; then
    for s in scenarios/teach/*.scn; do check_page "$s"; done
else
    check_page scenarios/teach/p3-alignment-blocks-inputs.scn
    check_page scenarios/teach/p9-recovery.scn
    check_page scenarios/teach/p9b-region-failover.scn   # a region restarts: the others' tasks stay running
    check_panes scenarios/teach/p4a-at-least-once-duplicates.scn   # 49 checkpoints: drawn in windows
fi
echo "html-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
