#!/usr/bin/env python3
"""Peak memory of `perf-doctor trace` on a large generated trace.

Usage: test_memory.py PERF_DOCTOR TRACE_PATH MEGABYTES
Generates TRACE_PATH (about MEGABYTES MB of uncompressed JSON, gzip if it ends in .gz) with
gen_traces.py unless a trace of that size is already there, summarises it, and asserts that the
child's peak RSS stays under 100 MB and that the summary's step count and compute total equal
what the generator built. Prints the measured figures.
"""
import json
import os
import resource
import subprocess
import sys
import time

LIMIT_MB = 100


def main():
    binary, path, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    here = os.path.dirname(os.path.abspath(__file__))
    truth_path = path + ".truth.json"
    truth = None
    if os.path.exists(path) and os.path.exists(truth_path):
        truth = json.load(open(truth_path))
        if truth.get("mb") != mb:
            truth = None
    if truth is None:
        t0 = time.time()
        subprocess.check_call([sys.executable, os.path.join(here, "gen_traces.py"), "--big", path, "--mb", str(mb)])
        truth = json.load(open(truth_path))
        truth["mb"] = mb
        json.dump(truth, open(truth_path, "w"))
        print("generated %s (%d MB JSON) in %.1f s" % (path, mb, time.time() - t0))
    t0 = time.time()
    proc = subprocess.run([binary, "trace", path, "--format", "json"], stdout=subprocess.PIPE)
    wall = time.time() - t0
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    if proc.returncode != 0:
        print("perf-doctor exited with %d" % proc.returncode)
        return 1
    doc = json.loads(proc.stdout)
    rank = doc["ranks"][0]
    steps = rank["steps"]
    compute = sum(s["compute_us"] for s in steps)
    print("json bytes %d, events %d, wall %.1f s, peak RSS %.1f MB (limit %d MB)"
          % (rank["json_bytes"], rank["events"], wall, rss_mb, LIMIT_MB))
    ok = True
    if rss_mb >= LIMIT_MB:
        print("FAIL: peak RSS %.1f MB >= %d MB" % (rss_mb, LIMIT_MB))
        ok = False
    if len(steps) != truth["steps"]:
        print("FAIL: %d steps, generator built %d" % (len(steps), truth["steps"]))
        ok = False
    if abs(compute - truth["compute_us"]) > 0.01 * truth["compute_us"]:
        print("FAIL: compute %.0f us, generator built %.0f us" % (compute, truth["compute_us"]))
        ok = False
    if rank["json_bytes"] < mb * 1000 * 1000:
        print("FAIL: only %d bytes of JSON were read" % rank["json_bytes"])
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
