#!/usr/bin/env python3
"""tests/mutate.py: a deterministic mutation tester for the checks.

absim promises that a wrong protocol never passes.  This script measures
how close the checks come: it makes one-line, behaviour-changing defects
(mutants) in the protocol (model/*.c), builds each one, runs the
end-to-end checks on it, and reports the mutants that pass every check.

Mutation operators (each changes one token or one line):

    ror    relational swap: < <=, > >=, == !=  (both ways)
    lcr    && <-> ||
    not    a unary ! removed
    one    `+ 1` / `- 1` dropped, or flipped to the other sign
    bool   true <-> false in an assignment or a return
    del    a statement line (one call or assignment ending in `;`) deleted
    exit   an early exit deleted: `return;` (void), `continue;`, or a
           `break;` that leaves a loop (not a switch)

Not mutated: model/bugs.c (the deliberate bugs), model/reach.c (the reach
points' names) and model/flow/gatesim.c (the `absim gate` command's token
driver, which no run or swarm reaches); comments, string literals and
preprocessor lines; assertions (SIM_ASSERT); protocol coverage (REACHED,
p->reach[...], the gate's `saw` bits) and the observer calls (pipe_note*,
note, note_failed) with the functions that only serve them; `p->stats.`
counter updates (reporting only), except those the model reads back
(completed, restarts); and the deliberate bugs' switches (a `bug ==
PIPE_BUG_X` clause, and the code it makes dead).  The candidates are
enumerated in a fixed order and N of them (--count) sampled with a fixed
seed (--seed): the same options on the same model/*.c give the same
mutants (an edit there shifts the candidates, and so the sample).

Each mutant is applied in a scratch copy of the tree (--tree, default
/tmp/mut_tree; the files git tracks are copied there, never written in the
checkout), built incrementally with `make BUILD=build-mut build-mut/absim`
(a mutant that does not compile is a build failure and is left out of the
rates), then checked, stopping at the first failure:

    (a) every scenario file, `absim run FILE`, as tests/scenario_check.sh
        does: the exit status says whether its expect lines and the
        invariants held;
    (b) `absim swarm scenarios/swarm/*.scn --seeds 1..34 --faults random
        --jobs 1` (306 runs; --swarm-seeds changes the range).

A crash, an assertion, a timeout (each command gets 5x its unmutated time,
at least 2 s) or any failure kills the mutant.  A mutant that passes is
classified by rerunning what was checked with --json: the trace hash of
every scenario file (`absim run FILE --json`) and of every swarm run
(`absim run FILE --seed S --faults random --json`) against the unmutated
build's.  All equal: EQUIVALENT (no behaviour change in what was run; the
report notes when only a reported figure differed).  Any different: a
SURVIVOR, a behaviour change no check caught.  A mutant whose object code
(debug information stripped) equals the unmutated one's is equivalent too.

Usage (about 4 s a mutant on one core, 120 in about 9 minutes; not part
of `make test`):

    python3 tests/mutate.py --list                 # the candidates
    python3 tests/mutate.py --count 120 --seed 1 --out /tmp/mut_report.json
    python3 tests/mutate.py --only model/jm/coord.c:262:ror:30  # one mutant (an id of --list)

The unmutated tree must pass every check first.  The report (--out) is
JSON: the options, the counts, and one entry per mutant (file, line, op,
original and mutated line, status, what killed it or which runs changed;
a survivor's summary_changed_runs counts the runs whose reported figures
changed too: 0 means only the event schedule moved, e.g. extra timers).
The summary's survivor rate is survivors / (killed + survivors).
Exit status: 0 when the run finished (whatever the survivors), 2 on a
setup error (the unmutated build fails a check, or does not build).
"""

import argparse
import hashlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_FILES = {"model/bugs.c", "model/reach.c", "model/flow/gatesim.c"}
# Calls that only feed the observers or the coverage counters.
OBSERVER_CALLS = {"SIM_ASSERT", "REACHED", "tm_note", "tm_note_barrier", "world_note_ev", "jm_note",
                  "tm_note_send", "tm_note_recv", "jm_note_send", "jm_note_recv", "world_note_msg",
                  "note", "note_failed", "reach_gate", "reach_kind"}
# Functions whose whole body serves the observers or the coverage counters.
OBSERVER_FUNCS = {"tm_note", "tm_note_barrier", "world_note_ev", "jm_note", "shows_gate", "note",
                  "tm_note_send", "tm_note_recv", "jm_note_send", "jm_note_recv", "world_note_msg",
                  "note_failed", "reach_gate", "reach_kind"}
# p->stats fields the model reads back (coord.c: the minimum pause after the
# first completion, the fixed-delay attempts): their updates are behaviour.
STATS_READ = {"completed", "restarts"}
KEYWORDS_NOT_STMT = {"return", "break", "continue", "if", "else", "for", "while", "do", "switch",
                     "case", "default", "goto", "typedef", "struct", "union", "enum", "static",
                     "const", "extern", "volatile", "register", "unsigned", "signed", "void",
                     "bool", "char", "int", "long", "short", "float", "double"}

# ---- lexing ------------------------------------------------------------------

PUNCT = ["<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
         "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##"]
TOKEN_RE = re.compile(r"\s*(?:([A-Za-z_]\w*)|(\d[\w.]*)|(" + "|".join(re.escape(p) for p in PUNCT) +
                      r"|\S))")


def mask(text):
    """The text with comments blanked and literal contents replaced by
    spaces (newlines kept), so that offsets match the original."""
    out = []
    i, n = 0, len(text)
    state = None
    while i < n:
        c = text[i]
        if state is None:
            if text.startswith("/*", i):
                state = "block"; out.append("  "); i += 2; continue
            if text.startswith("//", i):
                state = "line"; out.append("  "); i += 2; continue
            if c == '"' or c == "'":
                state = c; out.append(c); i += 1; continue
            out.append(c); i += 1
        elif state == "block":
            if text.startswith("*/", i):
                state = None; out.append("  "); i += 2; continue
            out.append("\n" if c == "\n" else " "); i += 1
        elif state == "line":
            if c == "\n":
                state = None; out.append(c)
            else:
                out.append(" ")
            i += 1
        else:                                    # in a string or char literal
            if c == "\\" and i + 1 < n:
                out.append("  "); i += 2; continue
            if c == state:
                state = None; out.append(c)
            else:
                out.append("\n" if c == "\n" else " ")
            i += 1
    return "".join(out)


def tokens(code):
    """(kind, text, start, end) of each token of a masked line."""
    toks = []
    pos = 0
    while True:
        m = TOKEN_RE.match(code, pos)
        if not m or m.end() == pos:
            break
        if m.group(1):
            toks.append(("id", m.group(1), m.start(1), m.end(1)))
        elif m.group(2):
            toks.append(("num", m.group(2), m.start(2), m.end(2)))
        else:
            toks.append(("p", m.group(3), m.start(3), m.end(3)))
        pos = m.end()
    return toks


def balanced(code):
    depth = 0
    for ch in code:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth


# ---- candidates --------------------------------------------------------------

def bug_clause(toks):
    """For a line that tests a deliberate bug: the index of the clause's
    first token, or None when nothing on the line may be mutated (no
    clause: -1)."""
    for i, t in enumerate(toks):
        if t[0] == "id" and "_BUG_" in t[1]:
            break
    else:
        return -1
    # the clause starts at `p->cfg.bug ==` / `cfg->bug` / `(g->bugs &`
    j = i
    while j > 0 and toks[j - 1][1] in ("==", "!=", "&", "bug", "bugs", "->", ".", "cfg", "p", "c",
                                       "g", "s", "t", "state"):
        j -= 1
    normally_true = toks[i - 1][1] == "!=" if i > 0 else False
    k = j - 1
    while k >= 0 and toks[k][1] == "(":
        k -= 1
    joined = toks[k][1] if k >= 0 else None
    if joined == "&&" and not normally_true:
        return None                              # what it guards is dead
    if joined == "||" and normally_true:
        return None
    return j


class Cand:
    def __init__(self, path, line, op, col, orig, new, what):
        self.path, self.line, self.op, self.col = path, line, op, col
        self.orig, self.new, self.what = orig, new, what

    @property
    def id(self):
        return "%s:%d:%s:%d" % (self.path, self.line, self.op, self.col)

    def as_json(self):
        return {"id": self.id, "file": self.path, "line": self.line, "op": self.op, "what": self.what,
                "original": self.orig.rstrip("\n"), "mutated": self.new.rstrip("\n")}


def candidates_of(path, text):
    lines = text.split("\n")
    mlines = mask(text).split("\n")
    out = []
    skip_until = -1                              # inside an observer-only call or function
    in_func = False
    stack = []                                   # brace kinds: loop, switch, block
    stmt_head = []                               # tokens since the last ; { } (for brace kinds)
    prev_code = ""
    in_macro = False
    for ln, (orig, code) in enumerate(zip(lines, mlines), start=1):
        stripped = code.strip()
        toks = tokens(code)
        names = [t[1] for t in toks]
        # preprocessor lines and their continuations
        if in_macro or stripped.startswith("#"):
            in_macro = code.rstrip().endswith("\\")
            continue
        # observer-only functions: from their head to the closing brace in column 0
        m = re.match(r"^[A-Za-z_].*?\b(\w+)\s*\(", code)
        if m and m.group(1) in OBSERVER_FUNCS and not code.rstrip().endswith(";"):
            in_func = True
        skip = in_func or ln <= skip_until or not stripped
        if in_func and code.startswith("}"):
            in_func = False
        if not skip:
            for i, t in enumerate(toks):
                if t[1] in OBSERVER_CALLS and i + 1 < len(toks) and toks[i + 1][1] == "(":
                    skip = True
                    depth = balanced(code[t[2]:])
                    j = ln
                    while depth > 0 and j < len(mlines):
                        depth += balanced(mlines[j])
                        j += 1
                    skip_until = max(skip_until, j)
            if ("reach" in names and "[" in names) or "pipe_event" in names or "world_observed" in names:
                skip = True                      # p->reach[r]++, an event for the observers
                depth = balanced(code)           # and the rest of its statement or block
                j = ln
                while depth > 0 and j < len(mlines):
                    depth += balanced(mlines[j])
                    j += 1
                skip_until = max(skip_until, j)
            if "saw" in names and ("|=" in names or "!=" in names):
                skip = True                      # the gate's coverage bits
            for i, t in enumerate(toks):         # p->stats.F updates
                if (t[1] == "stats" and i >= 1 and toks[i - 1][1] == "->"
                        and i + 2 < len(toks) and toks[i + 1][1] == "."):
                    field = toks[i + 2][1]
                    after = toks[i + 3][1] if i + 3 < len(toks) else ""
                    if after in ("++", "--", "+=", "-=", "=") and field not in STATS_READ:
                        skip = True
        limit = len(toks)
        if not skip:
            bc = bug_clause(toks)
            if bc is None:
                skip = True
            elif bc >= 0:
                limit = bc
            if bc is None or bc >= 0:
                # `if (bug == X ...) {`, `for (...; ... && bug == X; ...) {`: the block is dead
                bug_at = next(i for i, t in enumerate(toks) if "_BUG_" in t[1])
                normally_false = toks[bug_at - 1][1] != "!="
                lead = [x for x in names[:3] if x not in ("}", "else")]
                if (normally_false and "||" not in names and lead and lead[0] in ("if", "for", "while")
                        and code.rstrip().endswith("{")):
                    skip = True
                    depth = 1
                    j = ln
                    while depth > 0 and j < len(mlines):
                        depth += balanced(mlines[j])
                        j += 1
                    skip_until = max(skip_until, j - 1)
        if not skip:
            out.extend(token_mutants(path, ln, orig, toks[:limit], toks))
            if limit == len(toks):
                out.extend(line_mutants(path, ln, orig, code, toks, prev_code, stack))
        # brace kinds for `break`
        for t in toks:
            if t[1] in ("{",):
                head = [x for x in stmt_head]
                kind = "block"
                if "switch" in head:
                    kind = "switch"
                elif any(h in ("for", "while", "do") for h in head):
                    kind = "loop"
                stack.append(kind)
                stmt_head = []
            elif t[1] == "}":
                if stack:
                    stack.pop()
                stmt_head = []
            elif t[1] == ";":
                stmt_head = []
            else:
                stmt_head.append(t[1])
        if stripped:
            prev_code = stripped
    return out


def token_mutants(path, ln, orig, toks, all_toks):
    out = []

    def sub(a, b, new, what, op):
        out.append(Cand(path, ln, op, a, orig, orig[:a] + new + orig[b:], what))

    swaps = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
    for i, (kind, text, a, b) in enumerate(toks):
        nxt = all_toks[i + 1] if i + 1 < len(all_toks) else None
        prv = all_toks[i - 1] if i > 0 else None
        if kind != "p" and text not in ("true", "false"):
            continue
        if text in swaps:
            sub(a, b, swaps[text], "%s -> %s" % (text, swaps[text]), "ror")
        elif text in ("&&", "||"):
            other = "||" if text == "&&" else "&&"
            sub(a, b, other, "%s -> %s" % (text, other), "lcr")
        elif text == "!":
            sub(a, b, "", "! removed", "not")
        elif text in ("+", "-") and nxt and nxt[0] == "num" and re.fullmatch(r"1[uUlL]*", nxt[1]) \
                and prv and (prv[0] in ("id", "num") or prv[1] in (")", "]")):
            # binary + 1 / - 1 (not `x = -1`, not `a + 10`)
            after = all_toks[i + 2][1] if i + 2 < len(all_toks) else ""
            if after in ("*", "/", "%", "<<", ">>", "(", "[", "."):
                continue                         # 1 binds tighter elsewhere
            sub(prv[3], nxt[3], "", "%s 1 dropped" % text, "one")
            other = "-" if text == "+" else "+"
            sub(a, b, other, "%s 1 -> %s 1" % (text, other), "one")
        elif text in ("true", "false") and prv and (prv[1] in ("=", "return")):
            other = "false" if text == "true" else "true"
            sub(a, b, other, "%s -> %s" % (text, other), "bool")
    return out


def line_mutants(path, ln, orig, code, toks, prev_code, stack):
    out = []
    stripped = code.strip()
    indent = orig[:len(orig) - len(orig.lstrip())]
    names = [t[1] for t in toks]
    # an early exit at the end of the line: `return;`, `continue;`, `break;`
    if len(toks) >= 2 and toks[-1][1] == ";" and toks[-2][1] in ("return", "continue", "break"):
        word = toks[-2][1]
        ok = True
        if word == "break":
            in_loop_head = len(toks) > 2 and toks[0][1] in ("for", "while")
            inner = next((k for k in reversed(stack) if k != "block"), None)
            ok = in_loop_head or inner == "loop"
        if ok:
            a, b = toks[-2][2], toks[-1][3]
            new = orig[:a] + "{}" + orig[b:]
            out.append(Cand(path, ln, "exit", a, orig, new, "%s; deleted" % word))
        return out
    # a statement line: one call or assignment, complete on its line
    if not toks or toks[-1][1] != ";" or names.count(";") != 1 or balanced(code) != 0:
        return out
    if toks[0][1] in KEYWORDS_NOT_STMT or toks[0][0] != "id" and toks[0][1] not in ("*", "("):
        return out
    if not (prev_code.endswith((";", "{", "}", ":", ")")) or prev_code == "else" or
            prev_code.endswith(" else")):
        return out                               # a continuation line
    if prev_code.endswith(")") and not re.match(r"^(\}\s*)?(else\s+)?(if|for|while)\b", prev_code):
        return out
    # declarations: `type name ...`, `type *name ...`
    if len(toks) >= 2 and toks[0][0] == "id" and (toks[1][0] == "id" or
                                                 (toks[1][1] == "*" and len(toks) > 2 and
                                                  toks[2][0] == "id" and len(toks) > 3 and
                                                  toks[3][1] in ("=", ";", "["))):
        return out
    assigns = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}
    depth = 0
    top_assign = False
    for t in toks:
        if t[1] in "([{" and t[0] == "p":
            depth += 1
        elif t[1] in ")]}" and t[0] == "p":
            depth -= 1
        elif depth == 0 and t[1] in assigns:
            top_assign = True
    is_call = toks[0][0] == "id" and len(toks) > 1 and toks[1][1] == "("
    if not (top_assign or is_call):
        return out
    new = indent + "{}"
    out.append(Cand(path, ln, "del", len(indent), orig, new, "statement deleted"))
    return out


def all_candidates(root):
    cands = []
    paths = []
    for folder, _, names in os.walk(os.path.join(root, "model")):
        for name in names:
            paths.append(os.path.relpath(os.path.join(folder, name), root))
    for path in sorted(paths):
        if not path.endswith(".c") or path in SKIP_FILES:
            continue
        with open(os.path.join(root, path)) as f:
            cands.extend(candidates_of(path, f.read()))
    return cands


# ---- running -----------------------------------------------------------------

def run_cmd(argv, cwd, timeout):
    """(status, seconds, stdout, stderr); status is the exit code, or
    'timeout', or -signal."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)     # the command and the runs it started
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        rc = "timeout"
    return rc, time.monotonic() - t0, out.decode(errors="replace"), err.decode(errors="replace")


class Tree:
    def __init__(self, path, swarm_seeds):
        self.path = os.path.abspath(path)
        if os.path.realpath(self.path) == os.path.realpath(REPO):
            sys.exit("mutate: --tree must not be the checkout")
        self.absim = os.path.join(self.path, "build-mut", "absim")
        self.swarm_seeds = swarm_seeds
        self.scenarios = []
        self.swarm_files = []
        self.limits = {}

    def sync(self):
        """Copy the files git tracks into the scratch tree where they differ
        (copied, not their times: make must see them as new)."""
        files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, check=True,
                               stdout=subprocess.PIPE).stdout.decode().split("\0")
        for rel in filter(None, files):
            src, dst = os.path.join(REPO, rel), os.path.join(self.path, rel)
            if not os.path.isfile(src):
                continue
            with open(src, "rb") as f:
                data = f.read()
            if os.path.exists(dst):
                with open(dst, "rb") as f:
                    if f.read() == data:
                        continue
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(data)
        self.prune(set(filter(None, files)))
        self.scenarios = sorted(os.path.relpath(os.path.join(d, f), self.path)
                                for d, _, fs in os.walk(os.path.join(self.path, "scenarios"))
                                for f in fs if f.endswith(".scn"))
        self.swarm_files = sorted(s for s in self.scenarios if s.startswith("scenarios/swarm/"))

    def prune(self, tracked):
        """Delete what git no longer tracks from a reused scratch tree (a
        source file moved away would still be compiled by the Makefile's
        wildcards, a scenario removed still run); build output stays."""
        for d, dirs, fs in os.walk(self.path):
            if os.path.samefile(d, self.path):
                dirs[:] = [x for x in dirs if not x.startswith("build")]
            for f in fs:
                rel = os.path.relpath(os.path.join(d, f), self.path)
                if rel not in tracked:
                    os.remove(os.path.join(d, f))

    def build(self):
        rc, secs, out, err = run_cmd(["make", "BUILD=build-mut", "build-mut/absim"], self.path, 600)
        return rc == 0, secs, (out + err)

    def object_digest(self, rel):
        obj = os.path.join(self.path, "build-mut", rel[:-2] + ".o")
        tmp = "/tmp/mut_strip_%d.o" % os.getpid()
        subprocess.run(["objcopy", "--strip-debug", obj, tmp], check=True)
        with open(tmp, "rb") as f:
            d = hashlib.sha256(f.read()).hexdigest()
        os.unlink(tmp)
        return d

    def swarm_argv(self):
        lo, hi = self.swarm_seeds
        return [self.absim, "swarm"] + self.swarm_files + ["--seeds", "%d..%d" % (lo, hi), "--faults",
                                                          "random", "--jobs", "1", "--quiet"]

    def limit(self, key, secs):
        return max(5 * self.limits.get(key, secs), 2.0)

    def check(self, baseline=False):
        """None when every check passed, else (check, detail)."""
        for f in self.scenarios:
            rc, secs, out, err = run_cmd([self.absim, "run", f], self.path,
                                         600 if baseline else self.limit(f, 1))
            if baseline:
                self.limits[f] = secs
            if rc != 0:
                return ("scenario " + f, describe(rc, out + err))
        rc, secs, out, err = run_cmd(self.swarm_argv(), self.path,
                                     600 if baseline else self.limit("swarm", 10))
        if baseline:
            self.limits["swarm"] = secs
        if rc != 0:
            return ("swarm", describe(rc, out + err))
        return None

    def hashes(self, baseline=False):
        """{run: (trace_hash, the rest of the --json output)} of every
        scenario file and every swarm run."""
        runs = [(f, [self.absim, "run", f, "--json"]) for f in self.scenarios]
        lo, hi = self.swarm_seeds
        for f in self.swarm_files:
            for s in range(lo, hi + 1):
                runs.append(("%s --seed %d --faults random" % (f, s),
                             [self.absim, "run", f, "--seed", str(s), "--faults", "random", "--json"]))
        res = {}
        for key, argv in runs:
            rc, secs, out, err = run_cmd(argv, self.path, 600 if baseline else 60)
            try:
                d = json.loads(out.strip().splitlines()[-1])
                h = d.pop("trace_hash", None)
                res[key] = (h, json.dumps(d, sort_keys=True))
            except (ValueError, IndexError):
                res[key] = ("no json (%s)" % rc, "")
        return res


def describe(rc, text):
    """The first line that says what failed."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    head = "timeout" if rc == "timeout" else ("signal %d" % -rc if isinstance(rc, int) and rc < 0
                                              else "exit %s" % rc)
    for key in ("assertion failed", "violated", "expectation failed", "failed:", "error", "FAIL"):
        for l in lines:
            if key in l and not l.endswith(": held"):
                return "%s: %s" % (head, l[:300])
    return "%s: %s" % (head, (lines[-1] if lines else "")[:300])


def main():
    ap = argparse.ArgumentParser(description="mutation testing of absim's checks (see the header)")
    ap.add_argument("--count", type=int, default=120, help="mutants to sample (default 120)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    ap.add_argument("--list", action="store_true", help="print the candidates and exit")
    ap.add_argument("--only", action="append", default=[], help="run this candidate id (repeatable)")
    ap.add_argument("--out", help="write the JSON report here")
    ap.add_argument("--tree", default="/tmp/mut_tree", help="scratch copy (default /tmp/mut_tree)")
    ap.add_argument("--swarm-seeds", default="1..34", help="swarm seed range (default 1..34)")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.swarm_seeds.split(".."))

    cands = all_candidates(REPO)
    if args.list:
        for c in cands:
            print("%s\t%s\t%s" % (c.id, c.what, c.orig.strip()))
        by_op = {}
        for c in cands:
            by_op[c.op] = by_op.get(c.op, 0) + 1
        print("%d candidates: %s" % (len(cands), ", ".join("%s %d" % kv for kv in sorted(by_op.items()))))
        return 0
    if args.only:
        ids = {c.id: c for c in cands}
        missing = [i for i in args.only if i not in ids]
        if missing:
            sys.exit("mutate: no candidate " + ", ".join(missing))
        sample = [ids[i] for i in args.only]
    else:
        sample = random.Random(args.seed).sample(cands, min(args.count, len(cands)))

    t_start = time.monotonic()
    tree = Tree(args.tree, (lo, hi))
    os.makedirs(tree.path, exist_ok=True)
    tree.sync()
    ok, secs, log = tree.build()
    if not ok:
        print(log, file=sys.stderr)
        print("mutate: the unmutated tree does not build", file=sys.stderr)
        return 2
    fail = tree.check(baseline=True)
    if fail:
        print("mutate: the unmutated tree fails a check: %s: %s" % fail, file=sys.stderr)
        return 2
    base_hashes = tree.hashes(baseline=True)
    files = sorted({c.path for c in sample})
    base_obj = {f: tree.object_digest(f) for f in files}
    print("mutate: %d candidates, %d sampled (seed %d); unmutated tree passes (scenarios %.1f s, "
          "swarm %.1f s, %d runs hashed)" % (len(cands), len(sample), args.seed,
                                             sum(v for k, v in tree.limits.items() if k != "swarm"),
                                             tree.limits["swarm"], len(base_hashes)), flush=True)

    results = []
    for n, c in enumerate(sample, start=1):
        r = c.as_json()
        t0 = time.monotonic()
        src = os.path.join(tree.path, c.path)
        with open(src) as f:
            original = f.read()
        lines = original.split("\n")
        assert lines[c.line - 1] == c.orig
        lines[c.line - 1] = c.new
        try:
            with open(src, "w") as f:
                f.write("\n".join(lines))
            ok, _, log = tree.build()
            if not ok:
                r["status"] = "build-failure"
                r["detail"] = next((l for l in log.splitlines() if "error" in l), log.strip()[-300:])[:300]
            elif tree.object_digest(c.path) == base_obj[c.path]:
                r["status"] = "equivalent"
                r["detail"] = "same object code as the unmutated build"
            else:
                fail = tree.check()
                if fail:
                    r["status"] = "killed"
                    r["killed_by"], r["detail"] = fail
                else:
                    h = tree.hashes()
                    changed = sorted(k for k in base_hashes if h.get(k, (None,))[0] != base_hashes[k][0])
                    reported = sorted(k for k in base_hashes if k not in changed and
                                      h.get(k, (None, None))[1] != base_hashes[k][1])
                    if changed:
                        r["status"] = "survivor"
                        r["changed_runs"] = len(changed)
                        r["changed_examples"] = changed[:8]
                        # runs whose reported figures changed too (none: only
                        # the event schedule moved, e.g. extra timer events)
                        r["summary_changed_runs"] = sum(1 for k in changed if h[k][1] != base_hashes[k][1])
                    else:
                        r["status"] = "equivalent"
                        r["detail"] = "every trace hash unchanged"
                        if reported:
                            r["detail"] += "; reported figures differ in %d runs (e.g. %s)" % (
                                len(reported), reported[0])
        finally:
            with open(src, "w") as f:
                f.write(original)
        r["seconds"] = round(time.monotonic() - t0, 2)
        results.append(r)
        print("[%3d/%d] %-13s %s  %s" % (n, len(sample), r["status"], c.id,
                                         r.get("killed_by", r.get("detail", "%s runs changed" %
                                                                  r.get("changed_runs", "")))),
              flush=True)
    ok, _, log = tree.build()                   # leave the scratch build unmutated
    counts = {s: sum(1 for r in results if r["status"] == s)
              for s in ("build-failure", "killed", "equivalent", "survivor")}
    changing = counts["killed"] + counts["survivor"]
    rate = counts["survivor"] / changing if changing else 0.0
    report = {
        "options": {"count": args.count, "seed": args.seed, "swarm_seeds": args.swarm_seeds,
                    "only": args.only},
        "candidates": len(cands), "sampled": len(sample), "counts": counts,
        "survivor_rate": round(rate, 4), "seconds": round(time.monotonic() - t_start, 1),
        "mutants": results,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    print()
    print("candidates %d, sampled %d, build failures %d, killed %d, equivalent %d, survivors %d" %
          (len(cands), len(sample), counts["build-failure"], counts["killed"], counts["equivalent"],
           counts["survivor"]))
    print("survivor rate among behaviour-changing mutants: %d/%d = %.1f%%  (%.0f s)" %
          (counts["survivor"], changing, 100 * rate, report["seconds"]))
    for r in results:
        if r["status"] == "survivor":
            print("SURVIVOR %s:%d (%s; %d runs changed, %d in their reported figures)\n    - %s\n    + %s" %
                  (r["file"], r["line"], r["what"], r["changed_runs"], r["summary_changed_runs"],
                   r["original"].strip(), r["mutated"].strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
