#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The ring barriers are labelled once, in the uapi header, and at every
site as "/* B: matches A */".  Checks that every label at a site is
defined there with the same pair, that each label is used on every side
the header names, and that every barrier in the ring code carries one.
Prints TAP."""
import re
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else '.'
HEADER = 'include/uapi/linux/rths.h'
SIDES = {
    'kernel': ['kernel/ring.c', 'kernel/loop.c'],
    'lib': ['lib/dev/ring.c', 'lib/dev/io.c'],
}
# What must carry a label: each file's barrier calls.
BARRIER = {
    'kernel/ring.c': r'smp_load_acquire|smp_store_release|smp_[rw]?mb\(|'
                     r'READ_ONCE\(\*r->(producer|consumer)',
    'kernel/loop.c': r'hdr->state',
    'lib/dev/ring.c': r'__atomic_|\batomic_',
    'lib/dev/io.c': r'hdr->state',
}
DEF = re.compile(r'^ \*\s+([A-Z]) \(matches ([A-Z](?:, [A-Z])*|none)\) '
                 r'\[([a-z, ]+)\]:')
SITE = re.compile(r'/\* ([A-Z]): matches ([A-Z](?:, [A-Z])*|none) \*/')


def read(path):
    with open(f'{TOP}/{path}', encoding='utf-8') as f:
        return f.read().splitlines()


defs = {}
for line in read(HEADER):
    m = DEF.match(line)
    if m:
        defs[m[1]] = (m[2], [s.strip() for s in m[3].split(',')])

fails = []
used = {}
for side, files in SIDES.items():
    for path in files:
        lines = read(path)
        for n, line in enumerate(lines, 1):
            for m in SITE.finditer(line):
                where = f'{path}:{n}'
                if m[1] not in defs:
                    fails.append(f'{where}: label {m[1]} is not in {HEADER}')
                elif defs[m[1]][0] != m[2]:
                    fails.append(f'{where}: {m[1]} matches {m[2]} here, '
                                 f'{defs[m[1]][0]} in {HEADER}')
                used.setdefault(m[1], set()).add(side)
        pat = re.compile(BARRIER[path])
        for n, line in enumerate(lines, 1):
            code = re.sub(r'/\*.*?\*/', '', line)
            if not pat.search(code) or code.lstrip().startswith('*'):
                continue
            # the label stands on the line or up to three lines above
            near = lines[max(0, n - 4):n]
            if not any(SITE.search(x) for x in near):
                fails.append(f'{path}:{n}: barrier without a label: '
                             f'{line.strip()}')

for label, (pair, sides) in sorted(defs.items()):
    for p in pair.split(', '):
        if p != 'none' and p not in defs:
            fails.append(f'{HEADER}: {label} matches {p}, not defined')
    for side in sides:
        if side not in used.get(label, ()):
            fails.append(f'{HEADER}: {label} is never used on the {side} side')

print('TAP version 13')
print('1..2')
print(f'{"ok" if len(defs) >= 4 else "not ok"} 1 - {len(defs)} labels in '
      f'{HEADER}')
for f in fails:
    print(f'# {f}')
print(f'{"not ok" if fails else "ok"} 2 - every ring barrier labelled, '
      f'every label defined and used')
sys.exit(1 if fails else 0)
