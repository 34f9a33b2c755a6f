#!/usr/bin/env python3
"""Summaries a person can read, on every real trace the repository carries.

usage: test_readable.py PERF_DOCTOR TRACELENS_FIXTURES HTA_FIXTURES

For the summary of each vendored trace (TraceLens's five, HTA's four files and its two-rank
folder) and for two comparisons (two one-step traces; HTA's six-step trace-diff pair): every
markdown table row has its header's number of cells (a "|" in a name is escaped), the longest
cell is under 160 characters, the kernel names a table shows are unique in it, and a long tail
is one "… N more (x % of the time)" row whose N and x agree with the JSON, which holds every
kernel and op. The SVG's rank labels name their longest kernels the same short way."""
import glob
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pdcheck import Checker  # noqa: E402

CK = check = run = None
CELL_MAX = 160


def tables(md):
    """The markdown tables: lists of rows, each a list of cells (split at unescaped '|')."""
    out, cur = [], []
    for line in md.splitlines() + [""]:
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and len(s) > 1:
            cur.append([c.strip() for c in re.split(r"(?<!\\)\|", s)[1:-1]])
        elif cur:
            out.append(cur)
            cur = []
    return out


def table_checks(md, what):
    ts = tables(md)
    check(ts, "%s: has tables" % what)
    longest = ""
    for t in ts:
        width = len(t[0])
        bad = [r for r in t if len(r) != width]
        check(not bad, "%s: every row of a table has %d cells: %s" % (what, width, bad[:1]))
        for r in t:
            for c in r:
                if len(c) > len(longest):
                    longest = c
    check(len(longest) < CELL_MAX, "%s: longest cell %d characters (< %d): %s" % (what, len(longest), CELL_MAX, longest[:200]))
    return ts, len(longest)


def kernel_table(ts):
    for t in ts:
        if t[0][:2] == ["kernel", "type"]:
            return t
    return None


def tail(rows):
    """(N, x) of a table's "… N more (x % of ...)" row, or None."""
    m = re.match(r"… (\d+) more \(([\d.]+) % of the (time|change)\)", rows[-1][0]) if rows else None
    return (int(m.group(1)), float(m.group(2))) if m else None


def summary_checks(path, what):
    rc, md, err = run("trace", path)
    check(rc == 0, "%s: summary runs (%d %s)" % (what, rc, err[:200]))
    doc = json.loads(run("trace", path, "--format", "json")[1])
    ts, longest = table_checks(md, what)
    kt, kj = kernel_table(ts), doc["kernels"]
    check(len(kj["rows"]) == kj["distinct"] and kj["distinct"] > 0, "%s: JSON holds every kernel (%d)" % (what, kj["distinct"]))
    want = sorted({k["name"] for r in doc["ranks"] for k in r["hta"]["top_kernels"]})
    check(set(want) <= {k["name"] for k in kj["rows"]}, "%s: the ranks' top kernels are in the job's table" % what)
    check(kt is not None, "%s: a kernel table" % what)
    if kt:
        body = kt[2:]
        more = tail(body)
        shown = body[:-1] if more else body
        names = [r[0] for r in shown]
        check(len(set(names)) == len(names), "%s: kernel names unique in the table: %s" % (what, names))
        check(len(shown) == min(10, kj["distinct"]), "%s: top %d rows shown" % (what, len(shown)))
        if kj["distinct"] > 10:
            rest = 100.0 * sum(k["sum_us"] for k in kj["rows"][10:]) / kj["total_us"]
            check(more and more[0] == kj["distinct"] - 10 and abs(more[1] - rest) < 0.06,
                  "%s: '… %s more' row against the JSON (%d, %.1f %%)" % (what, more, kj["distinct"] - 10, rest))
        else:
            check(more is None, "%s: no tail row for %d kernels" % (what, kj["distinct"]))
        for r, k in zip(shown, kj["rows"]):
            check(len(r[0]) < len(k["name"]) + 3 or len(k["name"]) < 100, "%s: %s shortened" % (what, k["name"][:60]))
    for r in doc["ranks"]:
        check(len(r["ops"]) == r["ops_total"], "%s: every op row in the JSON (%d of %d)" % (what, len(r["ops"]), r["ops_total"]))
    svg_checks(path, doc, what)
    return longest


def svg_checks(path, doc, what):
    with tempfile.TemporaryDirectory() as d:
        pic = os.path.join(d, "s.svg")
        run("trace", path, "--svg", pic)
        root = ET.parse(pic).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    titles = [t.find(ns + "title").text for t in root.iter(ns + "text") if t.get("class") == "rank"]
    check(len(titles) == len(doc["ranks"]), "%s: a hover on every rank label" % what)
    for t in titles:
        parts = t.split(", longest kernels: ", 1)[1].split("; ") if ", longest kernels: " in t else []
        check(parts and all(len(p) < CELL_MAX and "at::native::" not in p and not p.startswith("void ") for p in parts),
              "%s: SVG hover names its kernels shortly: %s" % (what, t[:200]))


def compare_checks(a, b, what):
    rc, md, err = run("trace", "--compare", a, b)
    check(rc == 0, "%s: comparison runs (%d %s)" % (what, rc, err[:200]))
    ts, longest = table_checks(md, what)
    d = json.loads(run("trace", "--compare", a, b, "--format", "json")[1])["delta"]
    kt = [t for t in ts if t[0][0] == "Name"]
    check(len(kt) >= 2, "%s: change tables" % what)
    if len(kt) >= 2:
        body = kt[1][2:]  # the kernels' table
        more = tail(body)
        names = [r[0] for r in (body[:-1] if more else body)]
        check(len(set(names)) == len(names), "%s: kernel names unique in the table" % what)
        check(not more or more[0] == len(d["kernels"]) - 10, "%s: '… N more' against the JSON's %d rows" % (what, len(d["kernels"])))
    return longest


def main():
    global CK, check, run
    pd, tl, hta = sys.argv[1:4]
    CK = Checker(pd)
    check, run = CK.check, CK.run
    paths = sorted(glob.glob(os.path.join(tl, "*.json.gz"))) + sorted(glob.glob(os.path.join(hta, "*", "*.json.gz")))
    paths.append(os.path.join(hta, "hta-trace-filter-2rank"))
    check(len(paths) == 11, "eleven traces and folders (%d)" % len(paths))
    worst = {}
    for p in paths:
        worst[os.path.relpath(p, os.path.dirname(tl))] = summary_checks(p, os.path.basename(p))
    worst["compare 1 step"] = compare_checks(os.path.join(tl, "h100_bert.json.gz"), os.path.join(tl, "mi300_bert.json.gz"),
                                             "one-step comparison")
    worst["compare 6 steps"] = compare_checks(os.path.join(hta, "hta-trace-diff-control", "control.json.gz"),
                                              os.path.join(hta, "hta-trace-diff-test", "test.json.gz"), "multi-step comparison")
    for k, v in worst.items():
        print("longest cell %3d  %s" % (v, k))
    return CK.exit("trace_readable")


if __name__ == "__main__":
    sys.exit(main())
