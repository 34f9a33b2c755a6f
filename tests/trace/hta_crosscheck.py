#!/usr/bin/env python3
"""Optional cross-check against Holistic Trace Analysis itself on synthetic traces.

Usage: hta_crosscheck.py PERF_DOCTOR SYNTH_PIPELINE_DIR WORK_DIR
Runs only when HTA_SRC names a checkout of github.com/facebookresearch/HolisticTraceAnalysis
(never vendored here) and the interpreter has pandas; otherwise exits 77 (skipped). It copies the
8-rank pipeline scenario with ns-resolution jitter added to every timestamp and duration (so
HTA's ceil/floor rounding matters), runs HTA's temporal breakdown and comm-comp overlap, and
requires perf-doctor's `hta` numbers to agree within 0.1 % for every rank.
"""
import glob
import gzip
import json
import os
import random
import subprocess
import sys


def main():
    binary, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
    hta = os.environ.get("HTA_SRC")
    if not hta or not os.path.isdir(os.path.join(hta, "hta")):
        print("skipped: Holistic Trace Analysis, an optional peer, is not available "
              "(set HTA_SRC to its checkout; Debian's python3-pandas runs it)")
        return 77
    sys.path.insert(0, hta)
    try:
        import logging
        logging.disable(logging.WARNING)
        from hta.trace_analysis import TraceAnalysis
    except Exception as e:  # pandas & co missing
        print("skipped: Holistic Trace Analysis, an optional peer, is not importable (%s)" % e)
        return 77
    out = os.path.join(work, "hta_jitter")
    os.makedirs(out, exist_ok=True)
    rnd = random.Random(7)
    for f in sorted(glob.glob(os.path.join(src, "*.json.gz"))):
        d = json.load(gzip.open(f, "rt"))
        for e in d["traceEvents"]:
            if isinstance(e.get("ts"), float) and e.get("ph") == "X" and e.get("cat") != "Trace":
                e["ts"] = round(e["ts"] + rnd.randint(0, 999) / 1000.0, 3)
                e["dur"] = round(max(0.0, e["dur"] + rnd.randint(-999, 999) / 1000.0), 3)
        with gzip.open(os.path.join(out, os.path.basename(f)), "wt") as o:
            json.dump(d, o)
    ta = TraceAnalysis(trace_dir=out)
    tb = ta.get_temporal_breakdown(visualize=False)
    ov = ta.get_comm_comp_overlap(visualize=False)
    want = {}
    for _, row in tb.iterrows():
        want[int(row["rank"])] = {"kernel_time_us": row["kernel_time(us)"], "idle_us": row["idle_time(us)"],
                                  "compute_us": row["compute_time(us)"], "non_compute_us": row["non_compute_time(us)"]}
    for _, row in ov.iterrows():
        want[int(row["rank"])]["comm_comp_overlap_pct"] = row["comp_comm_overlap_pctg"]
    doc = json.loads(subprocess.run([binary, "trace", out, "--format", "json"], check=True,
                                    stdout=subprocess.PIPE).stdout)
    bad = 0
    for r in doc["ranks"]:
        for k, w in want[r["rank"]].items():
            g = r["hta"][k]
            if abs(g - float(w)) > 0.001 * abs(float(w)) + 1e-9:
                print("rank %d %s: perf-doctor %s, HTA %s" % (r["rank"], k, g, w))
                bad += 1
    print("%d ranks compared with HTA, %d mismatches" % (len(doc["ranks"]), bad))
    return 1 if bad or len(doc["ranks"]) != len(want) else 0


if __name__ == "__main__":
    sys.exit(main())
