#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a YNL spec against the uAPI header it describes; print TAP.

Usage: ynl_uapi_check.py YNL_DIR SPEC HEADER CC

The spec is loaded with the kernel's own YNL library from YNL_DIR (the
tree extract-ynl.sh made), which validates it against its schema.  Then
every value the spec defines (consts, enum and flags entries, attributes
with their count and max names, commands, the family and multicast group
names) becomes a check in a small C program built against the header
with CC and run, and every enumerator and define of the header must be
named by the spec: nothing is in one and missing from the other.
"""
import os
import re
import subprocess
import sys
import tempfile

ynl_dir, spec_path, header, cc = sys.argv[1:5]
sys.path.insert(0, os.path.join(ynl_dir, 'tools/net/ynl'))
from lib.nlspec import SpecFamily  # noqa: E402
sys.dont_write_bytecode = True	# no __pycache__ in the tree
from ynl_tap import finish  # noqa: E402

import yaml  # noqa: E402

with open(spec_path) as f:
    protocol = yaml.safe_load(f)['protocol']
schema = os.path.join(ynl_dir, f'Documentation/netlink/{protocol}.yaml')
tests = []
diag = []


def tap(ok, what):
    tests.append((ok, what))


def c_upper(name):
    return name.upper().replace('-', '_')


try:
    family = SpecFamily(spec_path, schema)
    tap(True, f'{spec_path} is valid against the {protocol} schema')
except Exception as e:  # the library raises plain exceptions
    tap(False, f'{spec_path}: {e}')
    family = None

# (group, C name, C expression of the expected value)
checks = []
strings = []
if family:
    y = family.yaml
    fam = family.name
    strings.append(('family', c_upper(y['c-family-name']), fam))
    checks.append(('family', c_upper(y['c-version-name']),
                   str(y.get('version', 1))))
    for d in y.get('definitions', []):
        name = d['name']
        if d['type'] == 'const':
            if d.get('scope', 'uapi') != 'uapi':
                continue	# the kernel's own, not in the uAPI
            checks.append(('consts', c_upper(f'{fam}-{name}'),
                           f"{d['value']}LL"))
            continue
        enum = family.consts[name]
        prefix = d.get('name-prefix', f'{fam}-{name}-')
        flags = d['type'] == 'flags'
        for e in enum.entries.values():
            checks.append((f'{d["type"]} {name}', c_upper(prefix + e.name),
                           str(e.user_value(as_flags=flags))))
    for aset in family.attr_sets.values():
        if aset.subset_of:
            continue
        prefix = aset.yaml['name-prefix']
        group = f'attribute-set {aset.name}'
        last = 0
        for a in aset.attrs.values():
            checks.append((group, c_upper(prefix + a.name), str(a.value)))
            last = max(last, a.value)
        checks.append((group, c_upper(aset.yaml['attr-max-name']), str(last)))
        checks.append((group, c_upper(aset.yaml['attr-cnt-name']),
                       str(last + 1)))
    ops = y['operations']
    last = 0
    for op in family.msgs.values():
        checks.append(('operations', c_upper(ops['name-prefix'] + op.name),
                       str(op.value)))
        last = max(last, op.value)
    checks.append(('operations', c_upper(y['cmd-max-name']), str(last)))
    checks.append(('operations', c_upper(y['cmd-cnt-name']), str(last + 1)))
    for g in y['mcast-groups']['list']:
        strings.append(('mcast-groups', c_upper(g['c-define-name']),
                        g['name']))

    def program(skip):
        """The C program checking every name but those in @skip."""
        prog = ['#include <stdio.h>', '#include <string.h>',
                f'#include "{os.path.abspath(header)}"', '',
                'static int bad;', '',
                'static void num(const char *name, long long have, '
                'long long want)',
                '{', '\tif (have != want) {',
                '\t\tprintf("# %s is %lld, the spec says %lld\\n", '
                'name, have, want);',
                '\t\tbad = 1;', '\t}', '}', '',
                'static void str(const char *name, const char *have, '
                'const char *want)',
                '{', '\tif (strcmp(have, want)) {',
                '\t\tprintf("# %s is \\"%s\\", the spec says '
                '\\"%s\\"\\n", name, have, want);',
                '\t\tbad = 1;', '\t}', '}', '',
                'int main(void)', '{', '\tint failed = 0;', '']
        groups = []
        for g, _, _ in strings + checks:
            if g not in groups:
                groups.append(g)
        for g in groups:
            n = 0
            prog.append('\tbad = 0;')
            for gg, cname, want in strings:
                if gg == g and cname not in skip:
                    prog.append(f'\tstr("{cname}", {cname}, "{want}");')
                    n += 1
            for gg, cname, want in checks:
                if gg == g and cname not in skip:
                    prog.append(f'\tnum("{cname}", (long long)({cname}), '
                                f'{want});')
                    n += 1
            prog.append(f'\tprintf("%sok {g}: {n} values agree with '
                        f'{os.path.basename(header)}\\n", '
                        'bad ? "not " : "");')
            prog.append('\tfailed |= bad;')
        prog += ['\treturn failed;', '}', '']
        return '\n'.join(prog)

    def build(skip, tmp):
        src = os.path.join(tmp, 'check.c')
        with open(src, 'w') as f:
            f.write(program(skip))
        return subprocess.run([cc, '-std=c11', '-Wall', '-Werror', '-o',
                               os.path.join(tmp, 'check'), src],
                              capture_output=True, text=True,
                              env=dict(os.environ, LC_ALL='C'))

    with tempfile.TemporaryDirectory() as tmp:
        built = build(set(), tmp)
        # an undeclared name: the header lacks what the spec defines
        missing = sorted(set(re.findall(r"'(\w+)' undeclared",
                                        built.stderr)))
        if missing:
            built = build(set(missing), tmp)
        tap(not missing, 'the header declares every name the spec defines' +
            (': not ' + ' '.join(missing) if missing else ''))
        if built.returncode:
            tap(False, 'the checks build: ' + built.stderr.strip())
            out = ''
        else:
            out = subprocess.run([os.path.join(tmp, 'check')],
                                 capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith('#'):
            diag.append(line)
            continue
        m = re.match(r'(not )?ok (.*)', line)
        tap(not m.group(1), m.group(2))

    # The other way round: everything the header names is in the spec.
    with open(header) as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    named = set(re.findall(r'^#define\s+(RTHS_\w+)\s', text, re.M))
    for body in re.findall(r'\benum\s+\w+\s*\{(.*?)\}', text, re.S):
        named |= set(re.findall(r'\b(RTHS_\w+)\b\s*(?:=[^,]*)?,', body))
    spec_names = {c for _, c, _ in checks + strings}
    extra = sorted(n for n in named - spec_names
                   if not n.endswith('_UNSPEC'))
    tap(not extra, f'every name {os.path.basename(header)} defines is in '
        'the spec' + (': not ' + ' '.join(extra) if extra else ''))

finish(tests, diag)
