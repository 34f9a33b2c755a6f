#!/usr/bin/env python3
"""check --trace, through the binary: findings gain what a trace measured.

usage: test_evidence.py PERF_DOCTOR TESTS_DIR SYNTH_DIR WORK_DIR

The trace is the generated `late` set (4 ranks, known exposed communication per step), copied
and given [memory] events whose peak is known (30 GiB reserved on rank 2 of a 96 GiB device).
Checked: the measured figures equal the ones computed here from `trace --format json` and from
the events written; R-P16 (exposed DP communication) is confirmed; the memory rules of a script
whose estimate says "does not fit" are contradicted and lowered a level, with the reason; the
exit status follows the lowered severity; without memory events memory evidence says "not
measured"; the report validates against docs/report.schema.json; markdown has the table."""
import glob
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

GIB = 1 << 30


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from pdcheck import Checker  # noqa: E402

CK = check = run = None  # set in main: Checker(the binary), its check and run


def with_world(d, world):
    """The trace as a run of `world` ranks: the synthetic sets record 4, the scripts train on 8
    (a trace of another world size is said not to be the script's, and backs no finding)."""
    if isinstance(d, dict) and isinstance(d.get("distributedInfo"), dict):
        d["distributedInfo"]["world_size"] = world
    return d


def copy_with_world(src, dst, world):
    os.makedirs(dst, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(src, "*.json.gz"))):
        d = with_world(json.load(gzip.open(f, "rt")), world)
        with gzip.open(os.path.join(dst, os.path.basename(f)), "wt") as o:
            json.dump(d, o)


def with_memory(src, dst, peak_rank, peak_bytes):
    os.makedirs(dst, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(src, "*.json.gz"))):
        d = with_world(json.load(gzip.open(f, "rt")), 8)
        rank = int(re.search(r"rank_?(\d+)", os.path.basename(f)).group(1))
        if isinstance(d, list):  # the bare-array form: no header for the device
            d = {"traceEvents": d}
        d["deviceProperties"] = [{"id": 0, "name": "NVIDIA H20", "totalGlobalMem": 96 * GIB}]
        xs = [e for e in d["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "kernel"]
        t0 = min(e["ts"] for e in xs)
        top = peak_bytes if rank == peak_rank else peak_bytes // 2
        for k, frac in enumerate((0.25, 0.5, 1.0, 0.75)):
            d["traceEvents"].append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                                     "pid": 4000 + rank, "tid": 4000 + rank, "ts": t0 + 10 * k,
                                     "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": 1,
                                              "Total Allocated": int(top * frac * 0.9),
                                              "Total Reserved": int(top * frac)}})
        with gzip.open(os.path.join(dst, os.path.basename(f)), "wt") as o:
            json.dump(d, o)


def exposed_comm_pct(summary):
    vals = []
    for r in summary["ranks"]:
        win = sum(s["window_us"] for s in r["steps"])
        vals.append(100.0 * sum(s["exposed_comm_us"] for s in r["steps"]) / win)
    return sum(vals) / len(vals)


def finding(doc, rule):
    for f in doc["reports"][0]["findings"]:
        if f["rule"] == rule:
            return f
    return None


def validate(doc, what):
    try:
        import jsonschema
    except ImportError:
        return
    schema = json.load(open(os.path.join(ROOT, "docs", "report.schema.json")))
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as e:
        check(False, "%s: schema: %s" % (what, e.message))


def main():
    global CK, ROOT, check, run
    pd, tests, synth, work = sys.argv[1:5]
    CK = Checker(pd)
    check, run = CK.check, CK.run
    ROOT = os.path.dirname(os.path.abspath(tests))
    scripts = os.path.join(tests, "script", "fixtures", "scripts", "training", "text")
    # R-P16 is said where the exposed reduce-scatter is a real share of the step: the 4B recipe
    # with a small batch of short responses (a copy of the fixture tree, edited)
    tree = os.path.join(work, "evidence_scripts")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(tests, "script", "fixtures", "scripts"), tree)
    small = os.path.join(tree, "training", "text", "run-qwen3-4B-8xgpu.sh")
    with open(small) as f:
        text = f.read()
    for old, new in (("--rollout-batch-size 32", "--rollout-batch-size 4"), ("--n-samples-per-prompt 8", "--n-samples-per-prompt 2"),
                     ("--global-batch-size 256", "--global-batch-size 8"), ("--rollout-max-response-len 8192", "--rollout-max-response-len 512")):
        check(old in text, "fixture holds %s" % old)
        text = text.replace(old, new)
    with open(small, "w") as f:
        f.write(text)
    big = os.path.join(scripts, "run-qwen35-35B-A3B-16xgpu-async.sh")  # R-M02 critical
    late = os.path.join(work, "evidence_late8")
    shutil.rmtree(late, ignore_errors=True)
    copy_with_world(os.path.join(synth, "late"), late, 8)
    mem = os.path.join(work, "evidence_late_mem")
    shutil.rmtree(mem, ignore_errors=True)
    with_memory(late, mem, 2, 30 * GIB)

    rc, out, _ = run("trace", late, "--format", "json")
    want_comm = exposed_comm_pct(json.loads(out))

    # 1. exposed communication confirms R-P16
    rc, out, err = run("check", small, "--trace", late, "--format", "json")
    check(rc in (0, 1), "check --trace runs (%d: %s)" % (rc, err))
    doc = json.loads(out)
    validate(doc, "small")
    f = finding(doc, "R-P16")
    check(f and f.get("evidence", {}).get("verdict") == "confirms", "R-P16 confirmed: %s" % (f and f.get("evidence")))
    got = doc["reports"][0]["trace"]["measures"]["exposed_comm_pct"]
    check(abs(got - want_comm) < 0.01, "exposed comm %.2f %% = %.2f %% from the summary" % (got, want_comm))
    check(f and ("%.1f" % want_comm) in f["evidence"]["measured"], "the text gives the figure: %s" % (f and f["evidence"]))
    # without memory events, memory evidence is "not measured"
    f = finding(doc, "R-P09")
    check(f and f["evidence"]["verdict"] == "inconclusive" and "not measured" in f["evidence"]["measured"],
          "R-P09 without memory events: %s" % (f and f.get("evidence")))

    # 2. a measured peak far below the device contradicts "does not fit": lowered, exit follows
    rc0, out0, _ = run("check", big, "--format", "json")
    before = finding(json.loads(out0), "R-M02")
    check(before and before["severity"] == "critical" and rc0 == 1, "R-M02 critical without a trace (exit %d)" % rc0)
    rc, out, err = run("check", big, "--trace", mem, "--format", "json")
    doc = json.loads(out)
    validate(doc, "big")
    f = finding(doc, "R-M02")
    ev = f and f.get("evidence", {})
    check(ev and ev["verdict"] == "contradicts" and ev.get("severity_before") == "critical" and f["severity"] == "warn",
          "R-M02 contradicted and lowered: %s %s" % (f and f["severity"], ev))
    check(ev and "30.0 GiB" in ev["measured"] and "rank 2" in ev["measured"], "peak and rank named: %s" % ev)
    crit = [x for x in doc["reports"][0]["findings"] if x["severity"] == "critical" and not x["suppressed"]]
    check((rc == 1) == bool(crit), "exit %d follows the remaining criticals (%d)" % (rc, len(crit)))
    rows = {r["quantity"]: r for r in doc["reports"][0]["trace"]["estimated_vs_measured"]}
    memrow = [r for q, r in rows.items() if q.startswith("GPU memory peak")][0]
    check(abs(memrow["measured"] - 30.0) < 0.01, "measured peak 30 GiB: %s" % memrow)
    est = finding(json.loads(run("context", big, "--format", "json")[1]) if False else doc, "R-M02")
    check(memrow["estimated"] is not None and memrow["error_pct"] is not None,
          "estimate and its error given: %s" % memrow)
    if memrow["estimated"] is not None:
        e = round(1000 * (memrow["estimated"] - 30.0) / 30.0) / 10
        check(abs(memrow["error_pct"] - e) <= 0.1, "error %% = (est - meas)/meas: %s vs %s" % (memrow["error_pct"], e))
    dev = [r for q, r in rows.items() if q.startswith("GPU memory of the device")][0]
    check(abs(dev["measured"] - 96.0) < 0.01, "device memory from totalGlobalMem: %s" % dev)

    # 3. markdown: the table and the evidence line
    rc, out, _ = run("check", big, "--trace", mem)
    check("## Measured by the trace" in out and "| GPU memory peak per actor GPU (reserved) |" in out, "markdown table")
    check("Measured (trace, contradicts)" in out, "markdown evidence line")
    check("nan" not in out and "?" not in out.replace("?(", ""), "no nan or ? in the text")

    # 3b. communication of the TP groups (size 2 in the pipeline set; a script with TP 2, DP 4
    # and no --sequence-parallel, so R-P10 fires)
    tp2 = os.path.join(work, "evidence_tp2.sh")
    with open(tp2, "w") as f:
        f.write("A_ARGS=(\n   --tensor-model-parallel-size 2\n)\npython3 -m relax.entrypoints.train --resource "
                "'{\"actor\": [1, 8], \"rollout\": [1, 8]}' --colocate \"${A_ARGS[@]}\"\n")
    pipe = os.path.join(synth, "pipeline")
    summ = json.loads(run("trace", pipe, "--format", "json")[1])
    vals = [sum(g["pct_of_steps"] for g in r["collectives"]["by_group"] if g["group_size"] == 2) for r in summ["ranks"]]
    want = sum(vals) / len(vals)
    doc = json.loads(run("check", tp2, "--trace", pipe, "--format", "json")[1])
    f = finding(doc, "R-P10")
    ev = f and f.get("evidence", {})
    check(ev and "TP groups" not in ev.get("measured", "") and ("tp groups (size 2" in ev["measured"]) and
          ("%.1f %%" % want) in ev["measured"], "R-P10 measured on the TP groups (%.2f %%): %s" % (want, ev))
    wantv = "confirms" if want >= 10 else "contradicts" if want < 2 else "inconclusive"
    check(ev and ev["verdict"] == wantv, "R-P10 verdict %s: %s" % (wantv, ev))
    doc = json.loads(run("check", tp2, "--trace", late, "--format", "json")[1])
    ev = (finding(doc, "R-P10") or {}).get("evidence", {})
    check(ev.get("verdict") == "inconclusive" and "group size 2" in ev.get("measured", ""),
          "no TP-size collectives in the late set: inconclusive: %s" % ev)

    # 4. a project's .perf-doctor.json names the trace (relative to the file) when --trace is not given
    proj = os.path.join(work, "evidence_project")
    shutil.rmtree(proj, ignore_errors=True)
    # the whole tree, so that the model config resolves: R-P16 needs the model's size for its cost
    shutil.copytree(tree, os.path.join(proj, "scripts"))
    shutil.copytree(late, os.path.join(proj, "traces", "late"))
    with open(os.path.join(proj, ".perf-doctor.json"), "w") as f:
        json.dump({"traceDir": "traces/late"}, f)
    rc, out, err = run("check", os.path.join(proj, "scripts", "training", "text", "run-qwen3-4B-8xgpu.sh"),
                       "--format", "json")
    doc = json.loads(out)
    f = finding(doc, "R-P16")
    check(f and f.get("evidence", {}).get("verdict") == "confirms" and "trace" in doc["reports"][0],
          "traceDir from .perf-doctor.json: %s %s" % (f and f.get("evidence"), err))

    # 4b. another job's trace (HTA's 2-rank set, world size 128) against the 8-GPU script: said not
    # to be this script's, and no finding confirmed or contradicted by it
    hta = os.path.join(ROOT, "tests", "fixtures", "traces", "hta", "hta-trace-filter-2rank")
    rc, out, err = run("check", small, "--trace", hta, "--format", "json")
    doc = json.loads(out)
    validate(doc, "mismatch")
    rep = doc["reports"][0]
    judged = [f["rule"] for f in rep["findings"] if f.get("evidence")]
    check(not judged, "a 128-rank trace judges no finding of an 8-GPU script: %s" % judged)
    check("128 ranks" in rep["trace"].get("mismatch", "") and "8 GPUs" in rep["trace"]["mismatch"],
          "the report says why: %s" % rep["trace"].get("mismatch"))
    check("not this script's" in err, "and so does stderr: %s" % err.strip())
    rc, out, err = run("check", small, "--trace", hta)
    check("> ⚠ this trace is not this script's" in out and "Measured (trace, confirms)" not in out,
          "markdown: the warning, no verdict")

    # 5. a trace path that does not exist is an error, not a green run
    rc, out, err = run("check", small, "--trace", os.path.join(work, "no-such-trace"))
    check(rc == 2 and "--trace" in err, "missing trace: exit %d, %s" % (rc, err.strip()))

    return CK.exit("cli_evidence")


if __name__ == "__main__":
    sys.exit(main())
