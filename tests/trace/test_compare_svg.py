#!/usr/bin/env python3
"""trace --compare and trace --svg, through the binary.

usage: test_compare_svg.py PERF_DOCTOR SYNTH_DIR TRACELENS_FIXTURES WORK_DIR [HTA_FIXTURES]

--compare: a trace against itself changes nothing; against a copy where every time is 1.5x
(the same run, uniformly slower) the step time grows by exactly 50 % and is significant, the
shares do not move (within noise), every kernel and op grows by half its time; before/after are
the very objects `trace --format json` prints. Two one-step traces (TraceLens's H100 and MI300
runs of one model): nothing is called significant, every figure and row says "noise not measured
(1 step)", the changes are still shown. HTA's trace-diff pair (six steps each): the noise is
measured and the shares that moved in every step (compute up, launch-bound idle down) are
significant while the noisy step time is not. Every comparison validates against
docs/trace.schema.json's `comparison`. A folder of two runs: --compare and --svg read the ranks of
its first job. --svg: well-formed XML with one segment per
(rank, step, kind) that the summary has time for, labelled axes, memory lines only when memory
was recorded."""
import copy
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pdcheck import Checker  # noqa: E402

CK = check = run = None  # set in main: Checker(the binary), its check and run
SCHEMA = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                                     "trace.schema.json")))


def validate_comparison(doc, what):
    """The comparison against the schema's `comparison`, its two summaries against the root."""
    try:
        import jsonschema
    except ImportError:
        print("skip schema check of %s: no jsonschema module" % what)
        return
    sub = {"$ref": "#/$defs/comparison", "$defs": SCHEMA["$defs"]}
    errs = sorted(jsonschema.Draft202012Validator(sub).iter_errors(doc), key=str)
    for side in ("before", "after"):
        errs += sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc[side]), key=str)
    check(not errs, "%s validates against docs/trace.schema.json%s" % (what, (": " + str(errs[0].message)[:200]) if errs else ""))


def every_judged(d):
    """Every figure and row of a delta that carries a significance."""
    return [d["step"], d["mfu"]] + d["shares"] + d["ops"] + d["kernels"] + d["collectives"]


def one_step_checks(fx):
    """Two one-step traces: the changes are shown, none is called significant, and why is said."""
    a, b = os.path.join(fx, "h100_bert.json.gz"), os.path.join(fx, "mi300_bert.json.gz")
    rc, out, err = run("trace", "--compare", a, b, "--format", "json")
    check(rc == 0, "one-step compare runs (%d %s)" % (rc, err[:200]))
    c = json.loads(out)
    validate_comparison(c, "one-step comparison")
    d = c["delta"]
    n = d["noise"]
    check(not n["measured"] and n["reason"] == "noise not measured (1 step)" and n["step_noise_us"] is None
          and n["steps_before"] == 1 and n["steps_after"] == 1, "noise not measured, and why: %s" % n)
    judged = every_judged(d)
    check(not any(f["significant"] for f in judged), "no significant row with one step per trace: %s" % [
        f["name"] for f in judged if f["significant"]])
    check(all(f["significant"] is None and f["significance_note"] == "noise not measured (1 step)" for f in judged),
          "every figure and row: significant null with the reason")
    check(abs(d["step"]["change"]) > 0 and d["kernels"] and d["ops"], "the changes are still shown")
    md = run("trace", "--compare", a, b)[1]
    check("**yes**" not in md and md.count("noise not measured (1 step)") >= 10, "markdown: no **yes**, the reason in the table")
    check(md.count("(1 profiled step per rank, 1 rank)") == 2, "markdown: steps of each side said")


def multi_step_checks(hta):
    """HTA's trace-diff control and test runs, six steps each: what moved in every step is significant."""
    a = os.path.join(hta, "hta-trace-diff-control", "control.json.gz")
    b = os.path.join(hta, "hta-trace-diff-test", "test.json.gz")
    rc, out, err = run("trace", "--compare", a, b, "--format", "json")
    check(rc == 0, "multi-step compare runs (%d %s)" % (rc, err[:200]))
    c = json.loads(out)
    validate_comparison(c, "multi-step comparison")
    d = c["delta"]
    n = d["noise"]
    check(n["measured"] and n["reason"] is None and n["steps_before"] == 6 and n["steps_after"] == 6
          and n["step_noise_us"] > 0, "noise measured over six steps a side: %s" % n)
    share = {f["name"]: f for f in d["shares"]}
    # the compute share of every test step is above every control step's, launch-bound idle below
    steps_b = c["before"]["ranks"][0]["steps"]
    steps_a = c["after"]["ranks"][0]["steps"]
    apart = (min(s["compute_pct"] for s in steps_a) > max(s["compute_pct"] for s in steps_b)
             and max(s["idle_launch_bound_pct"] for s in steps_a) < min(s["idle_launch_bound_pct"] for s in steps_b))
    check(apart, "the runs differ in every step (compute up, launch-bound down)")
    check(share["compute"]["significant"] is True and share["compute"]["change"] > 10, "compute share: a real change, significant")
    check(share["idle: launch-bound"]["significant"] is True and share["idle: launch-bound"]["change"] < -10,
          "launch-bound idle: a real change, significant")
    check(d["step"]["significant"] is False, "step time: +%.0f %% but within its noise (%.1f ms sd after)" % (
        d["step"]["change_pct"], d["step"]["after_std"]))
    check(all(isinstance(f["significant"], bool) and "significance_note" not in f for f in every_judged(d)),
          "every figure and row judged yes or no")
    md = run("trace", "--compare", a, b)[1]
    check("| compute |" in md and "**yes**" in md and "noise not measured" not in md
          and "(6 profiled steps per rank, 1 rank)" in md, "markdown: significant rows, steps of each side")


def load(f):
    d = json.load(gzip.open(f, "rt"))
    return {"traceEvents": d} if isinstance(d, list) else d


def rewrite(src_files, dst, fn):
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for f in src_files:
        d = fn(load(f), f)
        with gzip.open(os.path.join(dst, os.path.basename(f)), "wt") as o:
            json.dump(d, o)


def slower(d, _f, k=1.5):
    ts = [e["ts"] for e in d["traceEvents"] if isinstance(e.get("ts"), (int, float))]
    t0 = min(ts)
    for e in d["traceEvents"]:
        if isinstance(e.get("ts"), (int, float)):
            e["ts"] = t0 + (e["ts"] - t0) * k
        if isinstance(e.get("dur"), (int, float)):
            e["dur"] = e["dur"] * k
    return d


def with_memory(d, f):
    rank = int(re.search(r"rank_?(\d+)", os.path.basename(f)).group(1))
    t0 = min(e["ts"] for e in d["traceEvents"] if e.get("cat") == "kernel")
    for k, frac in enumerate((0.5, 1.0)):
        d["traceEvents"].append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                                 "pid": 4000 + rank, "tid": 4000 + rank, "ts": t0 + 5 * k,
                                 "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": 1,
                                          "Total Allocated": int((rank + 1) * frac * 2 ** 30),
                                          "Total Reserved": int((rank + 1) * frac * 2 ** 31)}})
    return d


def compare_checks(late, slow, qwen, qwen_slow):
    rc, out, err = run("trace", "--compare", late, late, "--format", "json")
    check(rc == 0, "compare runs (%d %s)" % (rc, err))
    c = json.loads(out)
    same = json.loads(run("trace", late, "--format", "json")[1])
    check(c["before"] == same and c["after"] == same, "before/after are the trace --format json objects")
    d = c["delta"]
    figs = [d["step"], d["mfu"]] + d["shares"]
    check(not any(f["significant"] for f in figs), "nothing significant against itself")
    check(not d["ops"] and not d["kernels"] and not d["collectives"], "no rows changed against itself")

    rc, out, _ = run("trace", "--compare", late, slow, "--format", "json")
    validate_comparison(json.loads(out), "comparison of a run with its slower copy")
    d = json.loads(out)["delta"]
    st = d["step"]
    check(st["significant"] and abs(st["change_pct"] - 50.0) < 0.1, "step time +50 %%: %s" % st)
    check(not any(f["significant"] for f in d["shares"]), "shares unchanged: %s" % [
        (f["name"], f["change"]) for f in d["shares"] if f["significant"]])
    ks = d["kernels"]
    # HTA's kernel table rounds each kernel to whole µs (ceil start, floor end): up to 1 µs a call
    check(ks and all(abs(k["after_us_per_step"] - 1.5 * k["before_us_per_step"]) <= 2 * k["calls_after"] + 0.02
                     for k in ks), "every kernel 1.5x: %s" % ks[:2])
    noise = json.loads(out)["delta"]["noise"]["step_noise_us"]
    check(ks and all(k["significant"] == (abs(k["change_us_per_step"]) > noise) for k in ks), "kernels flagged against the noise")
    rc, out, _ = run("trace", "--compare", late, slow)
    check("# Trace comparison" in out and "| step time |" in out and "**yes**" in out and "nan" not in out,
          "markdown comparison")

    rc, out, _ = run("trace", "--compare", qwen, qwen_slow, "--format", "json")
    ops = json.loads(out)["delta"]["ops"]
    check(ops and all(abs(o["after_us_per_step"] - 1.5 * o["before_us_per_step"]) <= 0.02 + 1e-3 * o["after_us_per_step"]
                      for o in ops), "ops matched by name and shape, 1.5x: %s" % ops[:2])
    check(all("[B" in o["name"] for o in ops), "op rows name their shape")
    rc, _, err = run("trace", "--compare", late)
    check(rc == 2 and "BEFORE and AFTER" in err, "--compare needs two paths")


def svg_checks(late, mem, work):
    for src, memory in ((late, False), (mem, True)):
        path = os.path.join(work, "pic.svg")
        rc, out, err = run("trace", src, "--svg", path)
        check(rc == 0 and ("](%s)" % path) in out, "markdown references the picture (%d %s)" % (rc, err))
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            check(False, "SVG well-formed: %s" % e)
            continue
        segs = [r for r in root.iter(NS + "rect") if r.get("class") == "seg"]
        summ = json.loads(run("trace", src, "--format", "json")[1])
        keys = ["compute_us", "exposed_comm_us", "exposed_memcpy_us", "other_gpu_us", "idle_data_supply_us",
                "idle_collective_wait_us", "idle_launch_bound_us"]
        want = sum(1 for r in summ["ranks"] for s in r["steps"] for k in keys if s.get(k, 0) > 0)
        check(len(segs) == want, "one segment per (rank, step, kind) with time: %d vs %d" % (len(segs), want))
        texts = " ".join(t.text or "" for t in root.iter(NS + "text"))
        check("(ms)" in texts and "rank 0" in texts, "labelled axes and ranks")
        lines = list(root.iter(NS + "polyline"))
        check(len(lines) == (len(summ["ranks"]) if memory else 0), "memory lines %d (memory %s)" % (len(lines), memory))
        if not memory:
            check("not measured" in texts, "no memory: says not measured")
        heat = [r for r in root.iter(NS + "rect") if r.get("class") == "heat"]
        steps = max(len(r["steps"]) for r in summ["ranks"])
        check(len(heat) == steps * len(summ["ranks"]), "heat row: a cell per rank and step (%d)" % len(heat))


def multi_job_checks(synth, work):
    """A folder of two runs: --compare and --svg read its first job's ranks, as they say."""
    mixed = os.path.join(work, "cmp_two_jobs")
    shutil.rmtree(mixed, ignore_errors=True)
    for s in ("late", "pipeline"):
        shutil.copytree(os.path.join(synth, s), os.path.join(mixed, s))
    doc = json.loads(run("trace", mixed, "--format", "json")[1])
    check(len(doc.get("jobs", [])) == 2, "two jobs in the folder")
    first = [r for r in doc["ranks"] if r.get("job") == doc["jobs"][0]["id"]]
    d = json.loads(run("trace", "--compare", mixed, mixed, "--format", "json")[1])["delta"]
    check(d["noise"]["ranks_before"] == len(first) and d["noise"]["steps_before"] >= 2 and d["step"]["before"],
          "compare reads the first job's ranks: %s" % d["noise"])
    pic = os.path.join(work, "two_jobs.svg")
    run("trace", mixed, "--svg", pic)
    segs = [r for r in ET.parse(pic).getroot().iter(NS + "rect") if r.get("class") == "seg"]
    keys = ["compute_us", "exposed_comm_us", "exposed_memcpy_us", "other_gpu_us", "idle_data_supply_us",
            "idle_collective_wait_us", "idle_launch_bound_us"]
    want = sum(1 for r in first for s in r["steps"] for k in keys if s.get(k, 0) > 0)
    check(want and len(segs) == want, "svg draws the first job: %d segments of %d" % (len(segs), want))


def main():
    global CK, check, run
    pd, synth, fx, work = sys.argv[1:5]
    hta = sys.argv[5] if len(sys.argv) > 5 else os.path.join(fx, "..", "hta")
    CK = Checker(pd)
    check, run = CK.check, CK.run
    late = os.path.join(synth, "late")
    files = sorted(glob.glob(os.path.join(late, "*.json.gz")))
    slow = os.path.join(work, "cmp_late_slow")
    rewrite(files, slow, slower)
    qwen = os.path.join(fx, "h100_qwen.json.gz")
    qdir = os.path.join(work, "cmp_qwen_slow")
    rewrite([qwen], qdir, slower)
    compare_checks(late, slow, qwen, os.path.join(qdir, "h100_qwen.json.gz"))
    one_step_checks(fx)
    multi_step_checks(hta)
    mem = os.path.join(work, "svg_late_mem")
    rewrite(files, mem, with_memory)
    svg_checks(late, mem, work)
    multi_job_checks(synth, work)
    return CK.exit("trace_compare_svg")


if __name__ == "__main__":
    sys.exit(main())
