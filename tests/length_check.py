#!/usr/bin/python3
"""tests/length_check.py [MAX]: no function of absim's sources (sim/, model/,
check/, scenarios/, reports/, cli/; tests are not held to it) is longer than
MAX lines (70), counted from its signature's first line to its closing brace
at column 0. A function is a line at column 0 that opens a parameter list
and, on it or a later line, ends with '{' before any ';'. Tables (initialised
arrays) are not functions. Names each one over, with its file and line;
exit 1 if any."""
import glob
import os
import re
import sys

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 70
ATTR = re.compile(r'__attribute__\(\(.*?\)\)\s*')
HEAD = re.compile(r'^[A-Za-z_][\w \*]*?\b(\w+)\(')


def functions(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = HEAD.match(ATTR.sub('', lines[i]))   # the name, not __attribute__
        if m and '=' not in lines[i].split('(')[0] and not lines[i].startswith(('typedef', 'return')):
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith('{') and not lines[j].rstrip().endswith(';'):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith('{'):
                k = j + 1
                while k < len(lines) and lines[k] != '}':
                    k += 1
                yield m.group(1), i + 1, k - i + 1
                i = k
        i += 1


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    over = []
    for d in ('sim', 'model', 'check', 'scenarios', 'reports', 'cli'):
        for path in sorted(glob.glob(d + '/**/*.c', recursive=True)):
            over += [(n, path, line, name) for name, line, n in functions(path) if n > LIMIT]
    for n, path, line, name in sorted(over, reverse=True):
        print('length-check: %s:%d: %s is %d lines, more than %d' % (path, line, name, n, LIMIT))
    if over:
        print('length-check: failed')
        return 1
    print('length-check: no function over %d lines' % LIMIT)
    return 0


sys.exit(main())
