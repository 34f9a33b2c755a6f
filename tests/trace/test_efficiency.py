#!/usr/bin/env python3
"""perf-doctor's efficiency figures against a peer and against the trace itself.

usage: test_efficiency.py PERF_DOCTOR FIXTURES SYNTH_DIR WORK_DIR

- GEMM and attention rows agree with TraceLens's sheets on the same traces (FIXTURES =
  tests/fixtures/traces/tracelens): per (op, M, N, K, B, dtype) the same calls, GFLOPs per call
  within 0.1 %, mean kernel time within 2 %.
- GPU memory peaks equal the maxima of the [memory] events' totals, computed here from the
  trace (per GPU device), and the step holding the allocated peak.
- Collective bandwidth on one rank agrees with TraceLens's NcclAnalyser (GiB/s there), and on
  a generated multi-rank set (SYNTH_DIR/late: 4 ranks, a 64 MiB fp32 all-reduce finishing 3 ms
  after the last rank arrives) equals the hand computation.
- A folder mixing three generated runs is summarised as three jobs, each with the figures it
  has on its own.
- Kernel names are printed whole or cut at a boundary with brackets closed; a negative
  non-compute time is explained.
Prints each comparison; exit 1 on any mismatch.
"""
import csv
import gzip
import json
import os
import re
import shutil
import subprocess
import sys

FAIL = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAIL.append(what)


def run(pd, *args):
    p = subprocess.run([pd, "trace", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit("perf-doctor trace %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


DTYPE = {"c10::BFloat16": "bf16", "c10::Half": "fp16", "float": "fp32"}


def tracelens_rows(path, kind):
    """(name, B, M, N, K, dtype) -> [calls, gflops, kernel_us_sum] from a TraceLens sheet."""
    out = {}
    for r in csv.DictReader(open(path, encoding="utf-8")):
        dt = DTYPE.get(re.findall(r"'([^']+)'", r["param: dtype_A_B"])[0])
        if kind == "gemm":
            key = (r["name"], int(r["param: B"]), int(r["param: M"]), int(r["param: N"]), int(r["param: K"]), dt)
        else:
            key = (r["name"], int(r["param: B"]), int(r["param: N_Q"]), int(r["param: N_KV"]),
                   int(r["param: d_h_qk"]), dt)
        n = int(r["name_count"])
        acc = out.setdefault(key, [0, float(r["GFLOPS_first"]), 0.0])
        acc[0] += n
        acc[2] += float(r["Kernel Time (µs)_sum"])
    return out


def compare_ops(pd, fx, name):
    doc = json.loads(run(pd, os.path.join(fx, name + ".json.gz"), "--format", "json"))
    ours = {}
    for o in doc["ranks"][0]["ops"]:
        if o["kind"] == "attention" and o["backward"]:
            continue
        key = (o["name"], o["B"], o["M"], o["N"], o["K"], o["dtype"])
        ours[key] = o
    for sheet, kind in (("GEMM", "gemm"), ("SDPA_fwd", "attention")):
        path = os.path.join(fx, "%s.%s.csv" % (name, sheet))
        if not os.path.exists(path):
            continue
        for key, (calls, gf, kt) in tracelens_rows(path, kind).items():
            o = ours.get(key)
            if o is None:
                check(False, "%s %s: row %s missing" % (name, sheet, key))
                continue
            mean = kt / calls
            check(o["calls"] == calls and abs(o["gflops_per_call"] - gf) <= 1e-3 * gf and
                  abs(o["kernel_us_mean"] - mean) <= 0.02 * mean,
                  "%s %s %s: calls %d/%d, GFLOP %.6g/%.6g, mean kernel %.3f/%.3f µs (ours/TraceLens)"
                  % (name, sheet, key[0] + str(key[1:5]), o["calls"], calls, o["gflops_per_call"], gf,
                     o["kernel_us_mean"], mean))
    return doc


def memory_truth(path):
    """Per GPU device the maxima of the allocator totals, and the ts of the first allocated max."""
    d = json.load(gzip.open(path))
    dev = {}
    steps = []
    for e in d["traceEvents"]:
        if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#"):
            steps.append((e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1])))
        if e.get("name") != "[memory]" or e["args"].get("Device Type", 0) <= 0:
            continue
        a = e["args"]
        k = (a["Device Type"], a["Device Id"])
        m = dev.setdefault(k, {"alloc": -1, "res": -1, "ts": None})
        if a["Total Allocated"] > m["alloc"] or (a["Total Allocated"] == m["alloc"] and e["ts"] < m["ts"]):
            m["alloc"], m["ts"] = a["Total Allocated"], e["ts"]
        m["res"] = max(m["res"], a["Total Reserved"])
    props = {p["id"]: p.get("totalGlobalMem") for p in d.get("deviceProperties", [])}
    best = max(dev.items(), key=lambda kv: kv[1]["alloc"])
    step = next((n for b, e, n in steps if b <= best[1]["ts"] < e), None)
    return best, props.get(best[0][1]), step


def check_memory(pd, fx, name, doc):
    (dkey, m), total, step = memory_truth(os.path.join(fx, name + ".json.gz"))
    got = doc["ranks"][0]["memory"]
    check(got["measured"] and got["peak_allocated_bytes"] == m["alloc"] and got["peak_reserved_bytes"] == m["res"]
          and got["device_total_bytes"] == total and got["at_step"] == step and got["device_id"] == dkey[1],
          "%s memory: allocated %s/%d, reserved %s/%d, device %s/%s B, step %s/%s (ours/trace)"
          % (name, got.get("peak_allocated_bytes"), m["alloc"], got.get("peak_reserved_bytes"), m["res"],
             got.get("device_total_bytes"), total, got.get("at_step"), step))
    check(bool(got.get("at_op")), "%s memory: the CPU op at the peak is named (%s)" % (name, got.get("at_op")))


def check_bandwidth_tracelens(pd, fx):
    doc = json.loads(run(pd, os.path.join(fx, "mi300_resnet_rank0.json.gz"), "--format", "json"))
    rows = {(r["collective"], r["bytes"]): r for r in doc["cross_rank"]["collectives"]["bandwidth"]["rows"]}
    want = {}
    for r in csv.DictReader(open(os.path.join(fx, "mi300_resnet_rank0.nccl_implicit_sync.csv"))):
        b = int(float(r["In msg nelems"])) * 2  # BFloat16
        acc = want.setdefault((r["Collective name"], b), [0.0, 0.0, 0.0])
        acc[0] += b
        acc[1] += float(r["comm_latency"])
        acc[2] = float(r["Group size"])
    for key, (nbytes, lat, n) in want.items():
        gib = nbytes / 2 ** 30 / (lat / 1e6)  # TraceLens's algo bw: GiB/s
        o = rows.get(key)
        ok = o is not None and abs(o["algbw_gbps"] * 1e9 / 2 ** 30 - gib) <= 1e-3 * gib and \
            abs(o["busbw_gbps"] - o["algbw_gbps"] * 2 * (n - 1) / n) <= 1e-3 * o["busbw_gbps"]
        check(ok, "resnet %s %d B: algbw %s GiB/s vs TraceLens %.4f" %
              (key[0], key[1], "%.4f" % (o["algbw_gbps"] * 1e9 / 2 ** 30) if o else "missing", gib))


def check_bandwidth_synthetic(pd, synth):
    doc = json.loads(run(pd, os.path.join(synth, "late"), "--format", "json"))
    bw = doc["cross_rank"]["collectives"]["bandwidth"]
    rows = bw["rows"]
    nbytes, n, transfer_us = (1 << 24) * 4, 4, 3000.0  # what gen_traces.py's dp scenario builds
    algbw = nbytes / (transfer_us * 1e-6) / 1e9
    ok = len(rows) == 1 and rows[0]["bytes"] == nbytes and rows[0]["group_size"] == n and rows[0]["count"] == 3 and \
        abs(rows[0]["time_us_mean"] - transfer_us) < 0.01 and abs(rows[0]["algbw_gbps"] - algbw) < 1e-3 and \
        abs(rows[0]["busbw_gbps"] - algbw * 2 * (n - 1) / n) < 1e-3 and bw["basis"].startswith("shortest")
    check(ok, "synthetic 4-rank all-reduce: %s vs by hand algbw %.3f, busbw %.3f GB/s over %.0f µs"
          % ([(r["bytes"], r["count"], r["time_us_mean"], r["algbw_gbps"], r["busbw_gbps"]) for r in rows],
             algbw, algbw * 1.5, transfer_us))
    own = doc["ranks"][0]["collective_bandwidth"][0]
    check(own["time_us_mean"] > transfer_us, "rank 0's own kernel time includes its wait (%.0f µs)" % own["time_us_mean"])


def check_jobs(pd, synth, work):
    mixed = os.path.join(work, "mixed_jobs")
    shutil.rmtree(mixed, ignore_errors=True)
    alone = {}
    for s in ("late", "pipeline", "dataload"):
        shutil.copytree(os.path.join(synth, s), os.path.join(mixed, s))
        d = json.loads(run(pd, os.path.join(synth, s), "--format", "json"))
        alone[s] = (sorted(r["rank"] for r in d["ranks"]), d["cross_rank"]["collectives"]["matched_instances"])
    doc = json.loads(run(pd, mixed, "--format", "json"))
    validate(doc, "mixed folder")
    jobs = doc.get("jobs", [])
    got = sorted((sorted(j["ranks"]), j["cross_rank"]["collectives"]["matched_instances"],
                  sorted({f.split(os.sep)[-2] for f in j["files"]})) for j in jobs)
    want = sorted((r, m, [s]) for s, (r, m) in alone.items())
    check(got == want and "warning" in doc, "mixed folder: %d jobs %s, each as alone %s" % (len(jobs), got, want))
    md = run(pd, mixed)
    check(md.count("## Job ") == 3 and "**Warning:**" in md, "mixed folder markdown: three job sections and a warning")


def check_names_and_negative(pd, fx):
    md = run(pd, os.path.join(fx, "h100_qwen.json.gz"))
    m = re.search(r"non-compute time is negative \((-?\d+) µs\).*?: (\d+) non-compute rows shorter than 1 µs", md)
    check(m is not None and int(m.group(1)) < 0 and int(m.group(2)) == 22,
          "negative non-compute explained (%s)" % (m.group(0)[:120] if m else "no explanation"))
    for name in re.findall(r"Top kernel: `([^`]*)`", md):
        balanced = name.count("<") == name.count(">") and name.count("(") == name.count(")")
        check(balanced, "top kernel name printed with its brackets closed: %s" % name)


SCHEMA = None


def validate(doc, what):
    """The document against docs/trace.schema.json (skipped, and said, without jsonschema)."""
    try:
        import jsonschema
    except ImportError:
        print("skip schema check of %s: no jsonschema module" % what)
        return
    global SCHEMA
    if SCHEMA is None:
        here = os.path.dirname(os.path.abspath(__file__))
        SCHEMA = json.load(open(os.path.join(here, "..", "..", "docs", "trace.schema.json")))
    errs = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(doc), key=str)
    check(not errs, "%s validates against docs/trace.schema.json%s" % (what, (": " + errs[0].message) if errs else ""))


def check_gpu_option(pd, fx):
    path = os.path.join(fx, "h100_bert.json.gz")
    doc = json.loads(run(pd, path, "--format", "json", "--gpu", "A100-80G"))
    dev, ref = doc["ranks"][0]["device"], json.loads(run(pd, path, "--format", "json"))["ranks"][0]
    ratio = ref["flops"]["mfu_pct"] and doc["ranks"][0]["flops"]["mfu_pct"] / ref["flops"]["mfu_pct"]
    check(dev["from"] == "--gpu" and dev["table_entry"] == "A100 80GB" and abs(ratio - 989 / 312) < 0.01,
          "--gpu A100-80G: judged against %s from %s, MFU x%.3f (989/312 = %.3f)" % (dev["table_entry"], dev["from"], ratio, 989 / 312))
    p = subprocess.run([pd, "trace", path, "--gpu", "Z9000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 2 and "unknown device 'Z9000'" in p.stderr, "--gpu with an unknown device: exit 2 naming it")


def main():
    pd, fx, synth, work = sys.argv[1:5]
    check_gpu_option(pd, fx)
    for path in ("h100_bert.json.gz", "mi300_resnet_rank0.json.gz"):
        validate(json.loads(run(pd, os.path.join(fx, path), "--format", "json")), path)
    validate(json.loads(run(pd, os.path.join(synth, "pipeline"), "--format", "json")), "synthetic pipeline set")
    for name in ("h100_bert", "mi300_bert", "h100_qwen", "torch_compile"):
        doc = compare_ops(pd, fx, name)
        if name != "torch_compile":
            check_memory(pd, fx, name, doc)
    check_bandwidth_tracelens(pd, fx)
    check_bandwidth_synthetic(pd, synth)
    check_jobs(pd, synth, work)
    check_names_and_negative(pd, fx)
    print("%d failed" % len(FAIL))
    return 1 if FAIL else 0


if __name__ == "__main__":
    sys.exit(main())
