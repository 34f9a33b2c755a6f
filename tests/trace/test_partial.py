#!/usr/bin/env python3
"""trace --partial / --merge, through the binary: summarising each rank's file on its own and
merging the partials gives byte for byte the summary one process gives for the folder (markdown,
JSON and the SVG), on every generated multi-rank set, on a folder of several jobs, on the real
two-rank traces from HTA (tests/fixtures/traces/hta) and on a folder with a truncated file (reported the same way,
exit 1 both ways). Partials made with other options are refused, and so is a file that is not a
partial, by name.

usage: test_partial.py PERF_DOCTOR SYNTH_DIR HTA_DIR WORK_DIR"""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pdcheck import Checker  # noqa: E402


def partials(ck, folder, out, *opts):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    paths = []
    for i, f in enumerate(sorted(glob.glob(os.path.join(folder, "**", "*.json*"), recursive=True))):
        if f.endswith(".truth.json"):
            continue
        rc, text, err = ck.run("trace", "--partial", f, *opts)
        ck.check(rc in (0, 1) and text.startswith("{"), "partial of %s: exit %d %s" % (f, rc, err))
        p = os.path.join(out, "part%03d.json" % i)
        with open(p, "w") as o:
            o.write(text)
        paths.append(p)
    return paths


def same(ck, folder, parts, work, what):
    pic = os.path.join(work, "partial.svg")  # one name: the markdown links it
    for fmt in ("md", "json"):
        one = ck.run("trace", folder, "--format", fmt, "--svg", pic)
        one_svg = open(pic).read()
        merged = ck.run("trace", "--merge", *parts, "--format", fmt, "--svg", pic)
        ck.check(one[0] == merged[0], "%s %s: exit %d one process, %d merged" % (what, fmt, one[0], merged[0]))
        ck.check(one[1] == merged[1], "%s %s: merged summary differs from the one-process summary" % (what, fmt))
        ck.check(one_svg == open(pic).read(), "%s: the SVGs differ" % what)


def main():
    pd, synth, hta, work = sys.argv[1:5]
    ck = Checker(pd)
    sets = [os.path.join(synth, s) for s in ("late", "pipeline", "dataload")]
    two = os.path.join(hta, "hta-trace-filter-2rank")
    if not os.path.isdir(two):
        sys.exit("test_partial: %s is missing from the repository" % two)
    sets.append(two)
    mixed = os.path.join(work, "partial_mixed")  # two jobs in one folder
    shutil.rmtree(mixed, ignore_errors=True)
    shutil.copytree(os.path.join(synth, "late"), os.path.join(mixed, "a"))
    shutil.copytree(os.path.join(synth, "pipeline"), os.path.join(mixed, "b"))
    sets.append(mixed)
    broken = os.path.join(work, "partial_broken")  # one file cut short
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(os.path.join(synth, "late"), broken)
    victim = sorted(glob.glob(os.path.join(broken, "*.json.gz")))[1]
    data = open(victim, "rb").read()
    open(victim, "wb").write(data[: len(data) // 2])
    sets.append(broken)
    for s in sets:
        parts = partials(ck, s, os.path.join(work, "parts_" + os.path.basename(s)))
        same(ck, s, parts, work, os.path.basename(s))

    # options travel with the partials and must agree
    a = partials(ck, os.path.join(synth, "late"), os.path.join(work, "parts_last"), "--include-last-step")
    rc, out, _ = ck.run("trace", os.path.join(synth, "late"), "--include-last-step", "--format", "json")
    ck.check(ck.run("trace", "--merge", *a, "--format", "json")[1] == out, "--include-last-step carried by the partials")
    b = sorted(glob.glob(os.path.join(work, "parts_late", "*.json")))
    rc, _, err = ck.run("trace", "--merge", a[0], b[1])
    ck.check(rc == 2 and "other options" in err, "mixed options refused: %d %s" % (rc, err.strip()))
    bogus = os.path.join(work, "not_a_partial.json")
    with open(bogus, "w") as f:
        f.write('{"traceEvents": []}')
    rc, _, err = ck.run("trace", "--merge", bogus)
    ck.check(rc == 2 and bogus in err and "not a perf-doctor partial" in err, "non-partial refused: %s" % err.strip())
    rc, _, err = ck.run("trace", "--merge", *b, "--format", "xml")
    ck.check(rc == 2 and "--format must be md or json" in err, "--merge refuses a bad --format: %d %s" % (rc, err.strip()))
    rc, _, err = ck.run("trace", "--partial", synth)
    ck.check(rc == 2 and "one file" in err, "a folder is not a partial's input: %s" % err.strip())
    return ck.exit("trace_partial")


if __name__ == "__main__":
    sys.exit(main())
