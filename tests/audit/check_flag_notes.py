#!/usr/bin/env python3
"""The curated flag notes (analyzer/data/flag_notes.json) against the flag catalog: every note is
on an option a parser has (a note on a name no parser knows is never shown), has an English and a
Chinese text, the Chinese keeps every flag and code span of the English, and its "with" list
names options too. A note never restates what the catalog says (type, default, choices).

usage: check_flag_notes.py SOURCE_DIR [--self-test]"""
import json
import re
import sys

CJK = re.compile(r'[\u4e00-\u9fff]')
FLAG = re.compile(r'--[a-z0-9][a-z0-9-]*[a-z0-9]')
CODE = re.compile(r'`[^`]+`')
RESTATES = re.compile(r'\b(Default|default)\s*[:=]\s*`?[\w.-]+`?\s*$|\bType:\s', re.M)


def problems(notes, names):
    out = []
    for k, v in notes.items():
        if k not in names:
            out.append(f'{k}: no parser has this option')
        en, zh = v.get('en'), v.get('zh')
        if not isinstance(en, str) or not en.strip():
            out.append(f'{k}: no English text')
            continue
        if not isinstance(zh, str) or not CJK.search(zh):
            out.append(f'{k}: no Chinese text')
            continue
        for f in set(FLAG.findall(en)):
            if f not in zh:
                out.append(f'{k}: the Chinese text lacks {f}')
        if len(CODE.findall(en)) != len(CODE.findall(zh)):
            out.append(f'{k}: {len(CODE.findall(en))} code spans in English, {len(CODE.findall(zh))} in Chinese')
        if RESTATES.search(en):
            out.append(f'{k}: restates what the catalog says (type or default)')
        for w in v.get('with', []):
            if w not in names:
                out.append(f'{k}: "with" names {w}, which no parser has')
    return out


def main():
    src = sys.argv[1]
    notes = json.load(open(f'{src}/analyzer/data/flag_notes.json'))['notes']
    cat = json.load(open(f'{src}/analyzer/data/flags.json'))
    names = {n for o in cat['options'] for n in o['names']}
    if '--self-test' in sys.argv:
        planted = {'--lr': {'en': 'See `--lr-decay-style`.', 'zh': '见学习率衰减。'},
                   '--no-such-flag': {'en': 'x', 'zh': '某'},
                   '--seed': {'en': 'x', 'zh': 'english only', 'with': ['--nope']}}
        got = problems(planted, names)
        want = ['--lr: the Chinese text lacks --lr-decay-style', '--no-such-flag: no parser has this option',
                '--seed: no Chinese text']
        missing = [w for w in want if w not in got]
        print('self-test:', 'ok' if not missing else f'missed {missing}')
        return 1 if missing else 0
    found = problems(notes, names)
    for p in found:
        print('FAIL:', p)
    print(f'{len(notes)} notes checked, {len(found)} problems')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
