#!/usr/bin/env python3
"""Every default a fact or a rule writes for an absent flag equals the default the flag catalog
(argparse, from the parsers' sources) gives it, unless it is listed below with the reason it
differs. Facts should ask the catalog (af_flag_numd) rather than carry a number; NaN or another
fact as the fallback ("unknown unless set", "derived from X") is not a default and is allowed;
'' in a rule is its "absent" sentinel.

usage: check_defaults.py ROOT"""
import glob
import json
import os
import re
import sys

# (flag, value as written): why the fact or rule differs from argparse's default on purpose
DELIBERATE = {
    ("--mtp-num-layers", "1"): "with --mtp-only-training set, at least one MTP layer trains",
    ("--num-rollout", "1000"): "absent: taken as a long run (a debug dump every step then matters)",
    ("--num-rollout", "1e18"): "absent: no end, so a profiling window never falls past it",
}


def catalog(root):
    out = {}
    for o in json.load(open(os.path.join(root, "analyzer/data/flags.json")))["options"]:
        for n in o["names"]:
            out.setdefault(n, []).append(o["default"])
    return out


def same(written, defaults):
    for d in defaults:
        if isinstance(d, bool):
            d = 1 if d else 0
        try:
            if float(written) == float(d):
                return True
        except (TypeError, ValueError):
            if str(d) == written:
                return True
    return False


def uses(root):
    for f in sorted(glob.glob(os.path.join(root, "analyzer/audit/*.c"))):
        s = open(f).read()
        for m in re.finditer(r'(?:af_flag_num|set_flag_num\(f, AF_[A-Z_]+,)\s*\(?f?,?\s*"(--[a-z0-9-]+)",\s*([^)]+)\)', s):
            yield os.path.basename(f), m.group(1), m.group(2).strip()
    rules = open(os.path.join(root, "analyzer/data/rules.json")).read()
    for m in re.finditer(r"\b(?:num|str)\('(--[a-z0-9-]+)',\s*([^)]+?)\)", rules):
        yield "rules.json", m.group(1), m.group(2).strip().strip("'")


def main():
    root = sys.argv[1]
    cat = catalog(root)
    bad, checked = [], 0
    for where, flag, written in uses(root):
        if written in ("NAN", "NaN", "null", "") or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_>. -]*", written) and \
                where != "rules.json" or "(" in written or "?" in written:
            continue  # unknown unless set, derived from another fact or variable, the "absent" sentinel
        checked += 1
        if (flag, written) in DELIBERATE:
            continue
        if flag not in cat:
            bad.append("%s: %s is not in the flag catalog" % (where, flag))
        elif not same(written, cat[flag]):
            bad.append("%s: %s defaults to %s here, argparse gives %s" % (where, flag, written, cat[flag]))
    for b in bad:
        print(b)
    print("%d written defaults checked, %d differ from the catalog" % (checked, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
