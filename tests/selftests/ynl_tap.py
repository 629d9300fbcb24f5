# SPDX-License-Identifier: GPL-2.0
"""The TAP ending the host-side YNL checks share."""
import sys


def finish(tests, diag):
    """Prints @tests ((ok, what) pairs) and the @diag lines as TAP and
    exits 0 if every test passed, 1 otherwise."""
    print('TAP version 13')
    print(f'1..{len(tests)}')
    for i, (ok, what) in enumerate(tests, 1):
        print(f'{"" if ok else "not "}ok {i} {what}')
    for line in diag:
        print(line)
    sys.exit(0 if all(ok for ok, _ in tests) else 1)
