#!/usr/bin/env python3
"""devc (analyzer/base/devc.c) against the shipped device table and against tables it must refuse:
the shipped one and the test's fixture compile; each planted fault (an unknown key, a figure that
is not positive or null, a link figure without its name, a repeated id or alias, an alias that is
not a word, a default that is trace-only or unknown, an id not starting with its family, a
missing figure) fails with a reason that names it, and writes no output.

usage: check_devc.py DEVC SOURCE_DIR WORK_DIR"""
import copy
import json
import os
import subprocess
import sys


def run(devc, doc, work, name):
    src = os.path.join(work, name + '.json')
    out = os.path.join(work, name + '.inc')
    if os.path.exists(out):
        os.remove(out)
    with open(src, 'w') as f:
        json.dump(doc, f)
    p = subprocess.run([devc, src, out], capture_output=True, text=True)
    return p.returncode, p.stderr, os.path.exists(out)


def faults(table):
    def dev(t, i=0):
        return t['devices'][i]
    cases = []

    def case(name, want, edit):
        t = copy.deepcopy(table)
        edit(t)
        cases.append((name, want, t))
    case('unknown-key', 'unknown key "memory"', lambda t: dev(t).update(memory=96))
    case('negative', '"bf16_tflops" must be a positive number or null', lambda t: dev(t).update(bf16_tflops=-1))
    case('string-figure', '"usable_gib" must be a positive number or null', lambda t: dev(t).update(usable_gib="95"))
    case('missing-figure', '"fp8_tflops" is required', lambda t: dev(t).pop('fp8_tflops'))
    case('link-unnamed', '"link" names the link', lambda t: dev(t).update(link=None))
    case('same-id', 'the id is given twice', lambda t: t['devices'].append(copy.deepcopy(dev(t))))
    case('same-alias', 'alias "NPU" is taken', lambda t: dev(t).update(aliases=['NPU']))
    case('alias-word', 'must be an upper-case word', lambda t: dev(t).update(aliases=['h20 card']))
    case('family', 'must begin with its family', lambda t: dev(t).update(family='B200'))
    case('class', 'is not gpu, npu or xpu', lambda t: dev(t).update({'class': 'tpu'}))
    case('quote', 'without quotes or backslashes', lambda t: dev(t).update(display='H20 "96"'))
    case('default-unknown', '"default" must name one of the devices', lambda t: t.update(default='X1'))
    case('default-trace-only', 'the default device must be one Relax targets',
         lambda t: t.update(default=next(d['id'] for d in t['devices'] if d.get('trace_only'))))
    case('top-key', 'unknown top-level key "aliases"', lambda t: t.update(aliases={}))
    return cases


def main():
    devc, src, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(src, 'analyzer/data/devices.json')) as f:
        table = json.load(f)
    with open(os.path.join(src, 'tests/audit/devices_extra.json')) as f:
        extra = json.load(f)
    bad = []
    for name, doc in (('shipped', table), ('extra', extra)):
        rc, err, wrote = run(devc, doc, work, name)
        if rc or not wrote:
            bad.append(f'{name}: refused: {err.strip()}')
    for name, want, doc in faults(table):
        rc, err, wrote = run(devc, doc, work, name)
        if rc == 0 or wrote:
            bad.append(f'{name}: accepted')
        elif want not in err:
            bad.append(f'{name}: refused without saying {want!r}: {err.strip()}')
    for b in bad:
        print(b)
    print(f'{2 + len(faults(table))} tables, {len(bad)} problems')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
