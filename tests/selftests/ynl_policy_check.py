#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check what the running kernel reports for a genetlink family against
its YNL spec; print TAP.

Usage: ynl_policy_check.py YNL_DIR SPEC FAMILY_JSON POLICY_JSON [CARD]

FAMILY_JSON is the YNL CLI's JSON output of nlctrl's getfamily for the
family, POLICY_JSON that of the getpolicy dump (CTRL_CMD_GETPOLICY).
Checked: the version, maxattr, multicast groups and, per operation, its
flags and its policy: the attributes it accepts, each one's type, range
and length, nested policies included, against the spec's request
attributes and checks.

A card's parameters (dev-card-params) are validated by the card with its
own policy, which the family's policy dump cannot show.  With CARD (a
card type whose attribute set the spec names the same), each of its
attributes with checks is probed instead: a dev-new with a value just
outside the spec's range must fail with an extack naming the attribute
and reporting the policy's range (NLMSGERR_ATTR_POLICY) as the spec's.
"""
import json
import os
import sys

ynl_dir, spec_path, family_json, policy_json = sys.argv[1:5]
card = sys.argv[5] if len(sys.argv) > 5 else None
sys.path.insert(0, os.path.join(ynl_dir, 'tools/net/ynl'))
from lib.nlspec import SpecFamily  # noqa: E402
from lib import YnlFamily, NlError  # noqa: E402

spec = SpecFamily(spec_path, '')
with open(family_json) as f:
    fam = json.load(f)
with open(policy_json) as f:
    dump = json.load(f)

tests = []
notes = []


def tap(problems, what):
    tests.append((problems, what))


# The kernel's policies: policy index -> attribute type -> its properties,
# and command -> policy index.
policies = {}
op_policy = {}
for msg in dump:
    if 'policy' in msg:
        p = msg['policy']
        policies.setdefault(p['policy-id'], {})[p['attr-id']] = p
    if 'op-policy' in msg:
        op = msg['op-policy']
        op_policy[op['op-id']] = op

KERNEL_TYPE = {'string': 'nul-string', 'nest': 'nested'}
LIMITS = {'u8': (0, 2**8 - 1), 'u16': (0, 2**16 - 1), 'u32': (0, 2**32 - 1),
          'u64': (0, 2**64 - 1), 's8': (-2**7, 2**7 - 1),
          's16': (-2**15, 2**15 - 1), 's32': (-2**31, 2**31 - 1),
          's64': (-2**63, 2**63 - 1)}


def resolve(v):
    """A check's value: a number, a const's name, or "const - 1"."""
    if isinstance(v, int):
        return v
    minus = 0
    if v.endswith(' - 1'):
        v, minus = v[:-4], 1
    return spec.consts[v]['value'] - minus


def expected_range(attr):
    lo, hi = LIMITS[attr['type']]
    checks = attr.yaml.get('checks', {})
    if 'enum' in attr.yaml and not checks:
        vals = [e.value for e in spec.consts[attr['enum']].entries.values()]
        lo, hi = min(vals), max(vals)
    return resolve(checks.get('min', lo)), resolve(checks.get('max', hi))


def compare_attr(attr, kp, path, problems):
    want = KERNEL_TYPE.get(attr['type'], attr['type'])
    if attr['type'] == 'string' and \
            attr.yaml.get('checks', {}).get('unterminated-ok'):
        want = 'string'
    if kp['type'] != want:
        problems.append(f'{path}: kernel type {kp["type"]}, spec {want}')
        return
    checks = attr.yaml.get('checks', {})
    if attr['type'] in LIMITS:
        sign = 's' if attr['type'][0] == 's' else 'u'
        have = (kp.get(f'min-value-{sign}'), kp.get(f'max-value-{sign}'))
        want = expected_range(attr)
        if have != want:
            problems.append(f'{path}: kernel range {have[0]}..{have[1]}, '
                            f'spec {want[0]}..{want[1]}')
    elif attr['type'] in ('string', 'binary'):
        for key, check in (('max-length', 'max-len'),
                           ('min-length', 'min-len')):
            want = checks.get(check, checks.get('exact-len'))
            want = resolve(want) if want is not None else None
            if kp.get(key) != want:
                problems.append(f'{path}: kernel {key} {kp.get(key)}, '
                                f'spec {want}')
    elif attr['type'] == 'nest':
        if 'policy-idx' not in kp:
            # validated by someone else (dev-card-params: the card)
            notes.append(f'# {path}: nested, the family has no policy for '
                         'its content (the card validates it)')
            return
        inner = spec.attr_sets[attr['nested-attributes']]
        names = [a.name for a in inner.attrs.values() if a['type'] != 'pad']
        compare_policy(inner, names, kp['policy-idx'], path, problems)


def compare_policy(aset, names, idx, path, problems):
    kpol = policies.get(idx, {})
    by_val = {aset[n].value: n for n in names}
    for val in sorted(set(kpol) | set(by_val)):
        where = f'{path}.{by_val.get(val, aset.attrs_by_val.get(val, val))}'
        if val not in by_val:
            name = aset.attrs_by_val[val].name if val in aset.attrs_by_val \
                else val
            problems.append(f'{path}: the kernel accepts {name}, '
                            'the spec does not list it')
        elif val not in kpol:
            problems.append(f'{where}: listed in the spec, '
                            'the kernel does not accept it')
        else:
            # a subset's attribute is its parent set's: look it up there
            attr = aset[by_val[val]]
            if aset.subset_of:
                attr = spec.attr_sets[aset.subset_of][attr.name]
            compare_attr(attr, kpol[val], where, problems)


def items(array):
    """The nests of an indexed array, as the CLI prints it: {index: nest}."""
    return [nest for item in array for nest in item.values()]


# The family itself.
problems = []
if fam.get('version') != spec.yaml.get('version', 1):
    problems.append(f'version {fam.get("version")}')
rths_set = spec.attr_sets[spec.msgs[next(iter(spec.msgs))].yaml
                          ['attribute-set']]
top_max = max(a.value for a in rths_set.attrs.values())
if fam.get('maxattr') != top_max:
    problems.append(f'maxattr {fam.get("maxattr")}, spec {top_max}')
groups = sorted(g['name'] for g in items(fam.get('mcast-groups', [])))
want_groups = sorted(spec.mcast_groups)
if groups != want_groups:
    problems.append(f'multicast groups {groups}, spec {want_groups}')
tap(problems, f'family {spec.name}: version, maxattr and multicast groups')

kops = {o['id']: o for o in items(fam.get('ops', []))}
for op in spec.ops.values():
    problems = []
    y = op.yaml
    kop = kops.get(op.req_value)
    if not kop:
        tap([f'the kernel has no command {op.req_value}'], f'op {op.name}')
        continue
    kflags = set(kop.get('flags', []))
    want = {'cmd-cap-do'} if 'do' in y else set()
    if 'dump' in y:
        want.add('cmd-cap-dump')
    want |= set(y.get('flags', []))
    req = []
    for mode in ('do', 'dump'):
        req += y.get(mode, {}).get('request', {}).get('attributes', [])
    req = list(dict.fromkeys(req))
    # an empty policy rejects every attribute, as no policy would not
    kflags.discard('cmd-cap-haspol')
    if kflags != want:
        problems.append(f'flags {sorted(kflags)}, spec {sorted(want)}')
    pol = op_policy.get(op.req_value, {})
    for mode in ('do', 'dump'):
        if mode in y and req and mode not in pol:
            problems.append(f'no {mode} policy')
        elif mode in pol:
            compare_policy(spec.attr_sets[y['attribute-set']], req,
                           pol[mode], f'{op.name} {mode}', problems)
    tap(problems, f'op {op.name}: flags and policy '
        f'({len(req)} attributes) agree with the spec')
missing = sorted(set(kops) - {o.req_value for o in spec.ops.values()})
tap([f'commands {missing} not in the spec'] if missing else [],
    'every command the kernel has is in the spec')


def probe_card(card):
    """Out-of-range values of every checked attribute of @card's set."""
    ynl = YnlFamily(spec_path, '')
    aset = spec.attr_sets[card]
    n = 0
    problems = []
    for attr in aset.attrs.values():
        if attr['type'] not in LIMITS or 'checks' not in attr.yaml:
            continue
        lo, hi = expected_range(attr)
        tlo, thi = LIMITS[attr['type']]
        for bad in ([lo - 1] if lo > tlo else []) + \
                ([hi + 1] if hi < thi else []):
            n += 1
            where = f'{card}.{attr.name} = {bad}'
            try:
                ynl.do('dev-new', {'dev-name': 'ynlprobe', 'dev-card': card,
                                   'dev-channels': 1,
                                   'dev-card-params': {attr.name: bad}})
                problems.append(f'{where}: accepted')
                ynl.do('dev-del', {'dev-name': 'ynlprobe'})
                continue
            except NlError as e:
                ext = e.nl_msg.extack or {}
            if ext.get('bad-attr') != f'.dev-card-params.{attr.name}':
                problems.append(f'{where}: extack {ext}')
                continue
            pol = ext.get('policy', {})
            have = (pol.get('min-value'), pol.get('max-value'))
            if have != (lo, hi):
                problems.append(f'{where}: kernel range {have[0]}..'
                                f'{have[1]}, spec {lo}..{hi}')
    tap(problems, f'card {card}: {n} out-of-range values rejected with '
        'the spec\'s ranges')


if card:
    probe_card(card)

print('TAP version 13')
print(f'1..{len(tests)}')
for i, (problems, what) in enumerate(tests, 1):
    print(f'{"not " if problems else ""}ok {i} {what}')
    for p in problems:
        print(f'# {p}')
for n in dict.fromkeys(notes):
    print(n)
sys.exit(1 if any(p for p, _ in tests) else 0)
