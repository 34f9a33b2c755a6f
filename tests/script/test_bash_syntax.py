#!/usr/bin/env python3
"""Syntax errors where bash reports them (issue 25).

1. Every broken script of fixtures/broken: `bash -n` names a line; perf-doctor's R-S02 finding
   (`check --format json`) is on that line, and every other finding it shows lies before the
   error (the ones after it, or about the script as a whole, are suppressed as following from it).
2. Random mutations (seeded) of the repository's scripts: quotes, parentheses, reserved words and
   operators inserted or characters deleted. Where `bash -n` refuses the text, perf-doctor
   reports R-S02 on bash's line in at least 90 % of them; where bash accepts it, perf-doctor
   reports no bash syntax error (R-S02 "bash -n fails") in any. bash's reading is consulted
   when tree-sitter finds an error (or a closing reserved word where a command should be): the
   misses are texts tree-sitter accepts and bash refuses.

usage: test_bash_syntax.py PERF_DOCTOR [MUTATIONS]"""
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOKENS = ['"', "'", "(", ")", "{", "}", "fi", "done", "then", "do", "esac", "$(", "${", "`", ";", ";;", "&&",
          "|", "if ", "for x in a; do ", "case x in ", "\n"]


def bash_line(path):
    err = subprocess.run(["bash", "-n", path], capture_output=True, text=True).stderr
    m = re.search(r"line (\d+):", err)
    return int(m.group(1)) if m else None


def report(pd, path):
    p = subprocess.run([pd, "check", "--format", "json", "--no-config", path], capture_output=True, text=True)
    return json.loads(p.stdout)["reports"][0]


def syntax_lines(rep):
    return [f["line"] for f in rep.get("findings", []) if f["rule"] == "R-S02" and "bash -n fails" in f["cost"]]


def main():
    pd = os.path.abspath(sys.argv[1])
    n_mut = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    failures = checks = 0
    for path in sorted(glob.glob(os.path.join(HERE, "fixtures", "broken", "*.sh"))):
        want = bash_line(path)
        rep = report(pd, path)
        got = syntax_lines(rep)
        shown_after = [f for f in rep["findings"] if not f["suppressed"] and f["rule"] != "R-S02" and want
                       and f["line"] >= want]
        ok = want is not None and got == [want] and not shown_after
        checks += 1
        failures += not ok
        print("%s %s: bash line %s, perf-doctor %s%s" % ("ok  " if ok else "FAIL", os.path.basename(path), want, got,
                                                         "" if not shown_after else ", shown after it: %s" %
                                                         [f["rule"] for f in shown_after]))
    srcs = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "**", "*.sh"), recursive=True)
                  if "/broken/" not in p)
    rng = random.Random(20261201)
    refused = agree = false_alarms = 0
    with tempfile.TemporaryDirectory(prefix="pd-syntax-") as tmp:
        path = os.path.join(tmp, "run-mutated.sh")
        for i in range(n_mut):
            with open(rng.choice(srcs), encoding="utf-8") as f:
                t = f.read()
            for _ in range(rng.randint(1, 2)):
                p = rng.randrange(len(t) + 1)
                t = t[:p] + rng.choice(TOKENS) + t[p:] if rng.random() < 0.7 else t[:p] + t[p + rng.randint(1, 3):]
            with open(path, "w", encoding="utf-8") as f:
                f.write(t)
            want = bash_line(path)
            got = syntax_lines(report(pd, path))
            if want is None:
                false_alarms += bool(got)
            else:
                refused += 1
                agree += got == [want]
    rate = agree / refused if refused else 1.0
    print("mutations: %d, bash refused %d, perf-doctor on bash's line in %d (%.1f %%), false alarms %d"
          % (n_mut, refused, agree, 100 * rate, false_alarms))
    checks += 2
    failures += rate < 0.90
    failures += false_alarms > 0
    print("%d passed, %d failed" % (checks - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
