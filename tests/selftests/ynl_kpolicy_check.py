#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Generate C from a YNL spec with the kernel's ynl-gen-c and check the
hand-written kernel policies against the generated ones; print TAP.

Usage: ynl_kpolicy_check.py YNL_DIR SPEC NETLINK_C HEADER CC [ATTR...]

YNL_DIR is the tree extract-linux-source.sh made (tools/net/ynl and
Documentation/netlink of one kernel).  Every mode of ynl-gen-c (uapi,
kernel, user; header and source) must generate from SPEC.  Then the
policies of the generated kernel source and those of NETLINK_C are read
(the forms both use: { .type, .len }, NLA_POLICY_MAX, _MIN, _RANGE,
_FULL_RANGE(_SIGNED) with their range structs, _NESTED), their bounds
evaluated by a C program built with CC against HEADER (and the spec's
kernel-scope constants and the numbers kernel/rths.h defines), and for every operation's do request the two
must accept the same attributes with the same type, bounds and length,
nested policies compared the same way.  Each ATTR (a C name, e.g.
RTHS_A_DEV_CARD_PARAMS) is a nest the hand-written policy leaves to
someone else (the card) although the spec names its attribute set.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.dont_write_bytecode = True	# no __pycache__ in the tree
from ynl_tap import finish  # noqa: E402

ynl_dir, spec_path, netlink_c, header, cc = sys.argv[1:6]
delegated = set(sys.argv[6:])
tests = []
diag = []


def tap(ok, what, notes=()):
    tests.append((ok, what))
    diag.extend(f'# {n}' for n in notes)


def c_upper(name):
    return name.upper().replace('-', '_')


def strip_comments(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'//[^\n]*', '', text)


def expand_macros(text):
    """Expands object-like #defines whose body is policy entries."""
    text = text.replace('\\\n', ' ')
    macros = dict(re.findall(r'^#define\s+(\w+)\s+(\[.*)$', text, re.M))
    text = re.sub(r'^#define[^\n]*$', '', text, flags=re.M)
    for name, body in macros.items():
        text = re.sub(rf'\b{name}\b', body, text)
    return text


def split_top(s):
    """Splits @s at the commas outside brackets."""
    parts, depth, cur = [], 0, ''
    for ch in s:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def parse(text):
    """The range structs and the policies (attr -> entry) of a C file."""
    text = expand_macros(strip_comments(text))
    ranges = {}
    for name, body in re.findall(
            r'struct\s+netlink_range_validation(?:_signed)?\s+(\w+)\s*='
            r'\s*\{(.*?)\};', text, re.S):
        fields = dict(re.findall(r'\.(min|max)\s*=\s*([^,]+)', body))
        ranges[name] = (fields.get('min', '0').strip(),
                        fields.get('max', '0').strip())
    policies = {}
    for name, body in re.findall(
            r'struct\s+nla_policy\s+(\w+)\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\};',
            text, re.S):
        pol = {}
        for item in split_top(body):
            m = re.match(r'\[\s*(\w+)\s*\]\s*=\s*(.*)$', item, re.S)
            if m:
                pol[m.group(1)] = ' '.join(m.group(2).split())
        policies[name] = pol
    return ranges, policies


def entry(e, ranges):
    """(type, lo, hi, len, nested policy) of a policy entry; bounds as C
    expressions, None where the entry sets none."""
    m = re.match(r'NLA_POLICY_(\w+)\((.*)\)$', e)
    if not m:
        fields = dict(re.findall(r'\.(type|len)\s*=\s*([^,}]+)', e))
        return (fields['type'].strip(), None, None,
                fields.get('len', '').strip() or None, None)
    kind, args = m.group(1), split_top(m.group(2))
    if kind == 'MAX':
        return (args[0], '0', args[1], None, None)
    if kind == 'MIN':
        return (args[0], args[1], None, None, None)
    if kind == 'RANGE':
        return (args[0], args[1], args[2], None, None)
    if kind in ('FULL_RANGE', 'FULL_RANGE_SIGNED'):
        lo, hi = ranges[args[1].lstrip('&').strip()]
        return (args[0], lo, hi, None, None)
    if kind == 'NESTED':
        return ('NLA_NESTED', None, None, None, args[-1])
    raise ValueError(f'policy form not understood: {e}')


def ops_policies(text, table_type):
    """cmd -> policy name of the do operations of a genl ops table."""
    text = strip_comments(text)
    m = re.search(rf'struct\s+{table_type}\s+\w+\s*\[[^\]]*\]\s*=\s*\{{'
                  r'(.*?)\n\};', text, re.S)
    out = {}
    for op in split_top(m.group(1)):
        f = dict((k, v.strip()) for k, v in
                 re.findall(r'\.(\w+)\s*=\s*([^,]+)', op))
        if 'doit' in f and 'cmd' in f:
            out[f['cmd']] = f.get('policy')
    return out


def evaluate(exprs, kconsts):
    """The values of C expressions, computed against the header."""
    exprs = sorted(set(x for x in exprs if x is not None))
    prog = ['#include <stdio.h>', f'#include "{os.path.abspath(header)}"']
    prog += [f'#define {n} ({v}LL)' for n, v in kconsts.items()]
    prog += ['int main(void)', '{']
    prog += [f'\tprintf("%lld\\n", (long long)({x}));' for x in exprs]
    prog += ['\treturn 0;', '}', '']
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'eval.c')
        with open(src, 'w') as f:
            f.write('\n'.join(prog))
        built = subprocess.run([cc, '-std=c11', '-w', '-o',
                                os.path.join(tmp, 'eval'), src],
                               capture_output=True, text=True)
        if built.returncode:
            raise RuntimeError(built.stderr.strip())
        out = subprocess.run([os.path.join(tmp, 'eval')],
                             capture_output=True, text=True).stdout.split()
    return dict(zip(exprs, (int(v) for v in out)))


def main():
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    gen = os.path.join(ynl_dir, 'tools/net/ynl/ynl-gen-c.py')
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        # ynl-gen-c finds the tree's root by its MAINTAINERS file, the
        # schema next to specs/
        specs = os.path.join(tmp, 'Documentation/netlink/specs')
        os.makedirs(specs)
        open(os.path.join(tmp, 'MAINTAINERS'), 'w').close()
        schema = f'{spec["protocol"]}.yaml'
        shutil.copy(os.path.join(ynl_dir, 'Documentation/netlink', schema),
                    os.path.dirname(specs))
        copy = os.path.join(specs, os.path.basename(spec_path))
        shutil.copy(spec_path, copy)
        for mode, kind in (('uapi', 'header'), ('kernel', 'header'),
                           ('kernel', 'source'), ('user', 'header'),
                           ('user', 'source')):
            out = os.path.join(tmp, f'{mode}-{kind}.c')
            run = subprocess.run([sys.executable, gen, '--mode', mode,
                                  f'--{kind}', '--spec', copy, '-o', out],
                                 capture_output=True, text=True, timeout=300)
            err = (run.stderr.strip().splitlines() or [''])[-1]
            tap(run.returncode == 0,
                f'ynl-gen-c --mode {mode} --{kind} generates from the spec',
                [err] if run.returncode else [])
            if run.returncode == 0:
                with open(out) as f:
                    files[(mode, kind)] = f.read()
    if ('kernel', 'source') not in files:
        return
    with open(netlink_c) as f:
        hand = f.read()
    granges, gpols = parse(files[('kernel', 'source')])
    hranges, hpols = parse(hand)
    gops = ops_policies(files[('kernel', 'source')], 'genl_split_ops')
    hops = ops_policies(hand, 'genl_ops')
    kconsts = {c_upper(f'{spec["name"]}-{d["name"]}'): d['value']
               for d in spec.get('definitions', [])
               if d.get('type') == 'const' and d.get('scope') == 'kernel'}

    # the kernel's own numbers the hand-written policies use (rths.h)
    for path in (netlink_c, os.path.join(os.path.dirname(netlink_c),
                                         'rths.h')):
        if os.path.exists(path):
            with open(path) as f:
                kconsts.update(re.findall(r'^#define\s+(RTHS_\w+)\s+(\d+)\b',
                                          f.read(), re.M))
    pairs = []	# (where, generated entry, hand-written entry)
    problems = []

    def compare(where, gname, hname):
        gp, hp = gpols.get(gname, {}), hpols.get(hname, {})
        for attr in sorted(set(gp) | set(hp)):
            w = f'{where} {attr}'
            if attr not in hp:
                problems.append(f'{w}: generated, not in {hname}')
            elif attr not in gp:
                problems.append(f'{w}: in {hname}, not generated')
            else:
                g, h = entry(gp[attr], granges), entry(hp[attr], hranges)
                if g[4] and h[4]:
                    compare(w, g[4], h[4])
                elif g[4] and attr in delegated and h[0] == 'NLA_NESTED':
                    diag.append(f'# {w}: nested, left to the card '
                                f'(generated: {g[4]})')
                    continue
                pairs.append((w, g[:4], h[:4]))

    for cmd in sorted(set(gops) | set(hops)):
        if cmd not in hops or cmd not in gops:
            problems.append(f'{cmd}: a do operation in only one of them')
            continue
        compare(cmd, gops[cmd], hops[cmd])
    values = evaluate([x for _, g, h in pairs for x in g[1:] + h[1:]],
                      kconsts)
    for where, g, h in pairs:
        gv = (g[0],) + tuple(values.get(x) for x in g[1:])
        hv = (h[0],) + tuple(values.get(x) for x in h[1:])
        if gv != hv:
            problems.append(f'{where}: generated {gv}, hand-written {hv}')
    tap(not problems, f'the policies of {os.path.basename(netlink_c)} are '
        f'the generated ones ({len(gops)} do operations, {len(pairs)} '
        'attributes)', problems)


try:
    main()
except Exception as e:  # report, do not hide, what the checker failed at
    tap(False, f'the check ran: {type(e).__name__}: {e}')
finish(tests, diag)
