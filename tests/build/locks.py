#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The lock table in Documentation/architecture.rst names the locks of the
list in kernel/rths.h's Locking narrative, in the same order (outermost
first), so that neither can lose a lock.  Prints TAP."""
import re
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else '.'


def read(path):
    with open(f'{TOP}/{path}', encoding='utf-8') as f:
        return f.read().splitlines()


# kernel/rths.h: " *   NAME (kind...)" lines after "Locks, outermost first:"
src, on = [], False
for line in read('kernel/rths.h'):
    if 'Locks, outermost first:' in line:
        on = True
    elif on and line.strip() == '*' and src:
        break
    elif on:
        m = re.match(r'^ \*   (\S+) \(', line)
        if m:
            src.append(m[1])

# architecture.rst: first column of the table under "Locking" (its
# underline, then the table's three rules)
doc, on, rules = [], False, 0
for line in read('Documentation/architecture.rst'):
    if line == 'Locking':
        on = True
    elif on and line.startswith('====='):
        rules += 1
        if rules == 4:
            break
    elif on and rules == 3:
        m = re.match(r'^``([^`]+)``', line)
        if m:
            doc.append(m[1])

ok = bool(src) and src == doc
print('TAP version 13')
print('1..1')
print(f'# kernel/rths.h: {", ".join(src)}')
print(f'# Documentation/architecture.rst: {", ".join(doc)}')
print(f'{"ok" if ok else "not ok"} 1 - the lock table names the locks of '
      f'kernel/rths.h, in its order')
sys.exit(0 if ok else 1)
