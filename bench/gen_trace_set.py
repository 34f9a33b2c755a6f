#!/usr/bin/env python3
"""Large synthetic PyTorch-profiler traces for the throughput benchmark (standard library only).

usage: gen_trace_set.py --out DIR --mb N --ranks R

Writes R gzip files (rank{r}... .pt.trace.json.gz) into DIR holding about N MB of uncompressed
JSON in total (N/R each) and DIR.manifest.json (beside DIR, so that nothing but traces is in the
folder) with the exact uncompressed and compressed byte counts. Events come from tests/trace/gen_traces.py's builders (imported, not copied): per step a
data fetch, a pinned HtoD copy, 2,000 GEMM kernels each with its launch, a record_shapes-sized
aten op and a flow pair, a gradient all-reduce across all R ranks (ncclDevKernel with Comms Id
and Seq, rank 2 arriving 2 ms late), and the optimizer. Every rank has its own distributedInfo
rank, so HTA and perf-doctor see R distinct ranks. Deterministic; gzip level 1 (as fast as the
generator allows; the compressed size is recorded, not tuned).
"""
import argparse
import gzip
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(os.path.dirname(HERE), "tests", "trace", "gen_traces.py")


def load_gen():
    spec = importlib.util.spec_from_file_location("pd_gen_traces", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_rank(g, path, rank, nranks, target):
    v = {"ts": "float", "origin": 0, "base": "head", "nccl": "new", "keys": "id", "pretty": True}
    r = g.Rank(rank, v, "train_overall_rank%d_dp%d_tp0_pp0" % (rank, rank))
    MS, US = g.MS, g.US
    written, steps, t = 0, 0, 10 * MS
    kernels = int(min(2000, max(20, target / 6 / 1250)))  # about 1,250 bytes of JSON per kernel
    dist = {"backend": "nccl", "rank": rank, "world_size": nranks}
    with gzip.open(path, "wt", compresslevel=1) as f:
        f.write('{\n  "schemaVersion": 1,\n  "distributedInfo": %s,\n' % json.dumps(dist))
        f.write('  "deviceProperties": [{"id": 0, "name": "NVIDIA H20", "numSms": 78}],\n')
        f.write('  "baseTimeNanoseconds": %d,\n  "traceEvents": [\n' % g.BASE_NS)
        sep = ""
        while written < target or steps < 3:
            steps += 1
            st = g.Step(steps, t)
            k = g.begin_step(r, st, 2 * MS)
            for i in range(kernels):
                g.compute(r, st, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", k, k + 40 * US)
                r.op("aten::linear", k - 30 * US, k - 20 * US)
                k += 40 * US
            late = 2 * MS if rank == 2 % max(nranks, 1) and nranks > 1 else 0
            b = k + 20 * US + late
            e = k + 20 * US + 2 * MS + 3 * MS  # all ranks finish together: the late one waits less
            r.gpu(g.nccl_name(v, "allreduce"), b, e, 20,
                  coll=g.coll_args(v, "allreduce", "0", list(range(nranks)), steps, 1 << 24))
            r.x("user_annotation", "nccl:all_reduce", b - 40 * US, b - 5 * US, {"External id": 2})
            t = g.end_step(r, st, e + 10 * US, 1 * MS)
            chunk = ",\n".join("    " + json.dumps(ev) for ev in r.ev)
            f.write(sep + chunk)
            sep = ",\n"
            written += len(chunk) + len(sep)
            r.ev = []
        tail = ",\n".join("    " + json.dumps(ev) for ev in r.meta())
        f.write(sep + tail + '\n  ],\n  "displayTimeUnit": "ms"\n}\n')
    return steps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--mb", type=float, required=True)
    ap.add_argument("--ranks", type=int, default=1)
    a = ap.parse_args()
    g = load_gen()
    os.makedirs(a.out, exist_ok=True)
    files = []
    for rank in range(a.ranks):
        name = "train_overall_rank%d_dp%d_tp0_pp0.%d.pt.trace.json.gz" % (rank, rank, 1745000000000000000 + rank)
        path = os.path.join(a.out, name)
        steps = write_rank(g, path, rank, a.ranks, a.mb * 1e6 / a.ranks)
        raw = 0
        with gzip.open(path, "rb") as f:
            while True:
                b = f.read(1 << 22)
                if not b:
                    break
                raw += len(b)
        files.append({"file": name, "rank": rank, "steps": steps, "json_bytes": raw,
                      "gz_bytes": os.path.getsize(path)})
    man = {"mb_target": a.mb, "ranks": a.ranks, "files": files,
           "json_bytes": sum(f["json_bytes"] for f in files), "gz_bytes": sum(f["gz_bytes"] for f in files)}
    with open(a.out.rstrip("/") + ".manifest.json", "w") as f:
        json.dump(man, f, indent=1)
    print(json.dumps({k: man[k] for k in ("ranks", "json_bytes", "gz_bytes")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
