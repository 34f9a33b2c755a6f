#!/usr/bin/env python3
"""Synthetic multi-rank PyTorch-profiler (Kineto) traces with known ground truth.

Usage:
  gen_traces.py --out DIR                 three scenario folders + DIR/<scenario>.truth.json
  gen_traces.py --big FILE --mb N         one rank, about N MB of uncompressed JSON
                                          (gzip when FILE ends in .gz); truth in FILE.truth.json

Scenarios (every number in truth.json is what the generator built, not what an analyser says):
  pipeline  4 PP stages x 2 DP replicas, 1F1B with m=8 micro-batches (F=2 ms, B=4 ms, P2P 0.2 ms):
            the bubble of every stage follows from the simulated schedule.
  dataload  4 DP ranks; rank 2 spends 50 ms longer fetching data in every step, so it also
            starts every gradient all-reduce last and the others wait for it.
  late      4 DP ranks; rank 1's backward is 30 ms longer, so it starts every all-reduce 30 ms
            late (compute spread across DP ranks, straggler).

The scenarios cover the format variants of trace-format.md between them: float relative ts with
baseTimeNanoseconds before or after traceEvents, integer absolute ts without a base, old
(ncclKernel_*) and new (ncclDevKernel_*) NCCL names, Comms Id / process group + Seq / neither,
distributedInfo present or absent (rank from the file name), pretty-printed or one-line, gzip or
plain, and the bare-array form. Times are built in integer ns. Standard library only.
"""
import argparse
import gzip
import json
import os

US = 1000  # ns per µs
MS = 1000 * US
BASE_NS = 1711964646000000000
ABS_US = 1700000000000000  # epoch µs for the traces without a base


class Rank:
    """Builds one rank's events on a ns clock."""

    def __init__(self, rank, variant, name):
        self.rank, self.v, self.name = rank, variant, name
        self.ev = []
        self.corr = 1000
        self.pid, self.tid = 4000 + rank, 4000 + rank
        self.truth_steps = {}

    # time formatting by variant
    def t(self, ns):
        if self.v["ts"] == "float":
            return round((ns - self.v["origin"]) / US, 3)
        return ABS_US + (ns - self.v["origin"]) // US

    def d(self, ns):
        return round(ns / US, 3) if self.v["ts"] == "float" else ns // US

    def x(self, cat, name, b, e, args=None, pid=None, tid=None):
        ev = {"ph": "X", "cat": cat, "name": name, "pid": self.pid if pid is None else pid,
              "tid": self.tid if tid is None else tid, "ts": self.t(b), "dur": self.d(e - b)}
        if args is not None:
            ev["args"] = args
        self.ev.append(ev)

    def op(self, name, b, e, shapes=True):
        args = {"External id": len(self.ev), "Record function id": 0, "Ev Idx": len(self.ev)}
        if shapes:
            args.update({"Input Dims": [[4096, 4096], [4096, 4096], []],
                         "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"],
                         "Input Strides": [[4096, 1], [4096, 1], []],
                         "Concrete Inputs": ["", "", "1"]})
        self.x("cpu_op", name, b, e, args)

    def gpu(self, name, k0, k1, stream, cat="kernel", coll=None, launch_ns=None):
        """A GPU row [k0, k1) launched by a runtime call that ends before k0."""
        self.corr += 1
        c = self.corr
        l0 = (k0 - 15 * US) if launch_ns is None else launch_ns
        api = {"kernel": "cudaLaunchKernel", "gpu_memcpy": "cudaMemcpyAsync",
               "gpu_memset": "cudaMemsetAsync"}[cat]
        self.op("aten::launch_wrapper", l0 - 3 * US, l0 + 8 * US, shapes=False)
        self.x("cuda_runtime", api, l0, l0 + 5 * US, {"cbid": 211, "correlation": c, "External id": 0})
        if self.v.get("flows", True):
            self.ev.append({"ph": "s", "id": c, "pid": self.pid, "tid": self.tid, "ts": self.t(l0),
                            "cat": "ac2g", "name": "ac2g"})
            self.ev.append({"ph": "f", "id": c, "pid": 0, "tid": stream, "ts": self.t(k0),
                            "cat": "ac2g", "name": "ac2g", "bp": "e"})
        args = {"device": 0, "stream": stream, "correlation": c, "External id": 0,
                "registers per thread": 128, "grid": [132, 1, 1], "block": [256, 1, 1]}
        if coll:
            args.update(coll)
        self.x(cat, name, k0, k1, args, pid=0, tid=stream)

    def meta(self):
        m = [
            {"name": "process_name", "ph": "M", "pid": self.pid, "tid": 0,
             "args": {"name": "ray::MegatronTrainRayActor.train"}},
            {"name": "process_labels", "ph": "M", "pid": self.pid, "tid": 0, "args": {"labels": "CPU"}},
            {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "python3"}},
            {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
            {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
            {"name": "thread_name", "ph": "M", "pid": self.pid, "tid": self.tid,
             "args": {"name": "thread %d (pt_main_thread)" % self.tid}},
        ]
        return m

    def write(self, path, dist):
        v = self.v
        events = self.ev + self.meta()
        lo = min(e["ts"] for e in self.ev if "ts" in e)
        hi = max(e["ts"] + e.get("dur", 0) for e in self.ev if "ts" in e)
        events.append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
                       "tid": "PyTorch Profiler", "ts": lo, "dur": hi - lo})
        events.append({"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",
                       "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": lo})
        events.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": hi})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": self.pid,
                       "tid": -1, "ts": lo, "dur": 0, "args": {"cbid": 165}})
        head = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H20", "numSms": 78}]}
        if dist is not None:
            head["distributedInfo"] = dist
        tail = {"traceName": path, "displayTimeUnit": "ms"}
        if v.get("base") == "head":
            head["baseTimeNanoseconds"] = BASE_NS
        elif v.get("base") == "tail":
            tail["baseTimeNanoseconds"] = BASE_NS
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "wt") as f:
            if v.get("array"):
                f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]\n")
                return
            if v.get("pretty", True):
                f.write("{\n")
                for k, val in head.items():
                    f.write("  %s: %s,\n" % (json.dumps(k), json.dumps(val)))
                f.write('  "traceEvents": [\n')
                f.write(",\n".join("  " + json.dumps(e) for e in events))
                f.write("\n  ],\n")
                f.write(",\n".join("  %s: %s" % (json.dumps(k), json.dumps(val)) for k, val in tail.items()))
                f.write("\n}\n")
            else:
                doc = dict(head)
                doc["traceEvents"] = events
                doc.update(tail)
                f.write(json.dumps(doc))


def nccl_name(variant, coll):
    old = {"allreduce": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
           "send": "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
           "recv": "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"}
    new = {"allreduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
           "send": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
           "recv": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"}
    return (old if variant["nccl"] == "old" else new)[coll]


def coll_args(variant, coll, pg, ranks, seq, nelems):
    a = {"Collective name": coll, "In msg nelems": nelems, "Out msg nelems": nelems, "dtype": "Float",
         "Group size": len(ranks), "Process Group Ranks": str(ranks)}
    keys = variant.get("keys")
    if keys in ("seq", "id"):
        a["Process Group Name"] = pg
        a["Seq"] = seq
    if keys == "id":
        a["Comms Id"] = sum(ord(ch) * 131 ** k for k, ch in enumerate(pg)) * 1000003 + seq  # same on every rank
    return a


class Step:
    """Bookkeeping of what was built into one rank's step."""

    def __init__(self, n, start):
        self.n, self.start = n, start
        self.compute = 0
        self.data = 0


def begin_step(r, st, data_ns):
    """Data fetch (host in Python, no events, GPU idle), then the batch copy."""
    st.data += data_ns
    t = st.start + data_ns
    # host work starts exactly when the fetch ends: HtoD copy of the batch
    r.op("aten::copy_", t, t + 30 * US)
    r.gpu("Memcpy HtoD (Pinned -> Device)", t + 30 * US, t + 230 * US, 7, cat="gpu_memcpy", launch_ns=t + 5 * US)
    return t + 230 * US


def compute(r, st, name, b, e):
    r.gpu(name, b, e, 7)
    st.compute += e - b


def end_step(r, st, opt_start, opt_ns):
    compute(r, st, "void multi_tensor_apply_kernel<AdamFunctor>(...)", opt_start, opt_start + opt_ns)
    end = opt_start + opt_ns + 3 * US
    r.x("cuda_runtime", "cudaDeviceSynchronize", opt_start - 5 * US, end, {"cbid": 165, "correlation": -1})
    r.x("user_annotation", "ProfilerStep#%d" % st.n, st.start, end, {"External id": 1})
    st.end = end
    return end


def allreduce(ranks_starts, transfer_ns):
    tmax = max(ranks_starts.values())
    return {k: (a, tmax + transfer_ns) for k, a in ranks_starts.items()}, tmax


def dp_scenario(out, variant, name, n_dp, steps, data_ns, fb_ns, slow_data=None, slow_bwd=None):
    """Pure data parallel: fetch, fwd+bwd compute, all-reduce over all ranks, optimizer."""
    os.makedirs(out, exist_ok=True)
    ranks = [Rank(i, variant, "train_overall_rank%d_dp%d_tp0_pp0" % (i, i)) for i in range(n_dp)]
    start = {i: 10 * MS for i in range(n_dp)}
    truth = {"scenario": name, "ranks": {}, "collectives": {}, "steps": list(range(1, steps + 1))}
    waits = {i: 0 for i in range(n_dp)}
    last = {i: 0 for i in range(n_dp)}
    imposed = {i: 0 for i in range(n_dp)}
    per_step = {i: {} for i in range(n_dp)}
    for s in range(1, steps + 1):
        ar_start = {}
        sts = {}
        for i, r in enumerate(ranks):
            st = Step(s, start[i])
            sts[i] = st
            t = begin_step(r, st, data_ns + (slow_data[1] if slow_data and slow_data[0] == i else 0))
            fwd = fb_ns // 3
            bwd = fb_ns - fwd + (slow_bwd[1] if slow_bwd and slow_bwd[0] == i else 0)
            for k in range(4):  # forward and backward as a few back-to-back kernels
                compute(r, st, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", t, t + fwd // 4)
                t += fwd // 4
            for k in range(4):
                compute(r, st, "void at::native::elementwise_kernel<128, 2>(...)", t, t + bwd // 4)
                t += bwd // 4
            ar_start[i] = t + 20 * US
        spans, tmax = allreduce(ar_start, 3 * MS)
        order = sorted(ar_start.values())
        latest = max(ar_start, key=lambda k: ar_start[k])
        last[latest] += 1
        imposed[latest] += order[-1] - order[-2]
        for i, r in enumerate(ranks):
            b, e = spans[i]
            waits[i] += tmax - b
            r.gpu(nccl_name(variant, "allreduce"), b, e, 20,
                  coll=coll_args(variant, "allreduce", "0", list(range(n_dp)), s, 1 << 24))
            r.x("user_annotation", "nccl:all_reduce", b - 40 * US, b - 5 * US, {"External id": 2})
            st = sts[i]
            start[i] = end_step(r, st, e + 10 * US, 2 * MS)
            per_step[i][str(s)] = {"compute_us": st.compute / US, "data_supply_us": st.data / US,
                                   "window_us": (st.end - st.start) / US}
    for i, r in enumerate(ranks):
        v = dict(variant)
        if variant.get("array_rank") == i:
            v["array"] = True
        r.v = v
        ext = ".pt.trace.json.gz" if v.get("gz", True) else ".pt.trace.json"
        fname = "%s.%d%s" % (r.name, 1745000000000000000 + i, ext)
        dist = {"backend": "nccl", "rank": i, "world_size": n_dp} if variant.get("dist", True) else None
        r.write(os.path.join(out, fname), dist)
        truth["ranks"][fname] = {"rank": i, "steps": per_step[i], "coll_wait_us": waits[i] / US,
                                 "arrived_last": last[i], "imposed_wait_us": imposed[i] / US}
    truth["straggler"] = max(last, key=lambda k: (last[k], imposed[k])) if max(imposed.values()) > 0 else None
    with open(out.rstrip("/") + ".truth.json", "w") as f:
        json.dump(truth, f, indent=1)


def sched_1f1b(p, m, F, B, c, cmin, ready):
    """Simulates 1F1B on p stages from per-stage ready times; returns per-stage kernel lists."""
    seqs = []
    for s in range(p):
        warm = min(p - s - 1, m)
        seq = [("F", i) for i in range(warm)]
        for i in range(m - warm):
            seq += [("F", warm + i), ("B", i)]
        seq += [("B", i) for i in range(m - warm, m)]
        seqs.append(seq)
    done, ptr, free = {}, [0] * p, list(ready)
    kern = [[] for _ in range(p)]
    while any(ptr[s] < len(seqs[s]) for s in range(p)):
        progress = False
        for s in range(p):
            while ptr[s] < len(seqs[s]):
                kind, i = seqs[s][ptr[s]]
                src = ((s - 1, "F", i) if s > 0 else None) if kind == "F" else ((s + 1, "B", i) if s < p - 1 else None)
                if src and src not in done:
                    break
                t = free[s]
                if src:
                    se = done[src]
                    r1 = max(t + cmin, se + c)
                    kern[s].append(("recv", t, r1))
                    kern[src[0]].append(("send", se, se + c))
                    t = r1
                d = F if kind == "F" else B
                kern[s].append((kind, t, t + d))
                done[(s, kind, i)] = t + d
                free[s] = t + d
                ptr[s] += 1
                progress = True
        assert progress, "1F1B schedule deadlocked"
    return kern


def pipeline_scenario(out, variant, p=4, n_dp=2, m=8, steps=2):
    os.makedirs(out, exist_ok=True)
    F, B, c, cmin = 2 * MS, 4 * MS, 200 * US, 20 * US
    ranks = {}
    for dp in range(n_dp):
        for s in range(p):
            rk = s * n_dp + dp
            ranks[(dp, s)] = Rank(rk, variant, "train_overall_rank%d_dp%d_tp0_pp%d" % (rk, dp, s))
    start = {k: 10 * MS for k in ranks}
    truth = {"scenario": "pipeline", "ranks": {}, "pipeline": [], "steps": list(range(1, steps + 1))}
    per_step = {k: {} for k in ranks}
    seq = {}
    for n in range(1, steps + 1):
        sts, ar_start, first = {}, {}, {}
        for dp in range(n_dp):
            ready = []
            for s in range(p):
                r = ranks[(dp, s)]
                st = Step(n, start[(dp, s)])
                sts[(dp, s)] = st
                ready.append(begin_step(r, st, 10 * MS))
            kern = sched_1f1b(p, m, F, B, c, cmin, ready)
            for s in range(p):
                r, st = ranks[(dp, s)], sts[(dp, s)]
                for kind, b, e in sorted(kern[s], key=lambda k: k[1]):
                    if kind in ("F", "B"):
                        compute(r, st, "sm90_xmma_gemm_%s_bf16" % ("fprop" if kind == "F" else "dgrad"), b, e)
                        first.setdefault((dp, s), b)
                    else:
                        stream = 30 if kind == "send" else 31
                        seq[(dp, s, kind)] = seq.get((dp, s, kind), 0) + 1
                        r.gpu(nccl_name(variant, kind), b, e, stream,
                              coll=coll_args(variant, kind, "pp%d" % dp, [dp + n_dp * q for q in range(p)],
                                             seq[(dp, s, kind)], 1 << 20),
                              launch_ns=b - 15 * US)
                last_end = max(e for _, _, e in kern[s])
                ar_start[(dp, s)] = last_end + 20 * US
        # DP all-reduce per stage (group = the same pp across replicas); bubble truth per replica
        for dp in range(n_dp):
            w0 = min(first[(dp, s)] for s in range(p))
            w1 = max(ar_start[(dp, s)] for s in range(p))
            truth["pipeline"].append({
                "step": n, "dp": dp, "p": p, "m": m, "ideal_pct": 100.0 * (p - 1) / (m + p - 1),
                "window_us": (w1 - w0) / US,
                "bubble_pct": {str(s): 100.0 * (1 - m * (F + B) / (w1 - w0)) for s in range(p)}})
        for s in range(p):
            grp = {dp: ar_start[(dp, s)] for dp in range(n_dp)}
            spans, tmax = allreduce(grp, 2 * MS)
            for dp in range(n_dp):
                r, st = ranks[(dp, s)], sts[(dp, s)]
                b, e = spans[dp]
                r.gpu(nccl_name(variant, "allreduce"), b, e, 20,
                      coll=coll_args(variant, "allreduce", "dp%d" % s, [s * n_dp + q for q in range(n_dp)], n, 1 << 24))
                start[(dp, s)] = end_step(r, st, e + 10 * US, 1 * MS)
                per_step[(dp, s)][str(n)] = {"compute_us": st.compute / US, "data_supply_us": st.data / US,
                                             "window_us": (st.end - st.start) / US}
    for (dp, s), r in ranks.items():
        fname = "%s.%d.pt.trace.json.gz" % (r.name, 1745000000000000000 + r.rank)
        dist = {"backend": "nccl", "rank": r.rank, "world_size": p * n_dp,
                "pg_count": 1, "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                                              "pg_size": p * n_dp, "ranks": list(range(p * n_dp))}],
                "nccl_version": "2.21.5"}
        r.write(os.path.join(out, fname), dist)
        truth["ranks"][fname] = {"rank": r.rank, "dp": dp, "pp": s, "steps": per_step[(dp, s)]}
    with open(out.rstrip("/") + ".truth.json", "w") as f:
        json.dump(truth, f, indent=1)


def big(path, mb):
    """One rank, many steps, record_shapes-sized CPU ops: a large trace with known totals."""
    v = {"ts": "float", "origin": 0, "base": "head", "nccl": "new", "keys": "id", "pretty": True}
    r = Rank(0, v, "train_overall_rank0_dp0_tp0_pp0")
    opener = gzip.open if path.endswith(".gz") else open
    target = mb * 1000 * 1000
    written = 0
    steps = 0
    compute_total = 0
    t = 10 * MS
    f = gzip.open(path, "wt", compresslevel=1) if path.endswith(".gz") else opener(path, "w")
    f.write('{\n  "schemaVersion": 1,\n  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n')
    f.write('  "baseTimeNanoseconds": %d,\n  "traceEvents": [\n' % BASE_NS)
    sep = ""
    while written < target:
        steps += 1
        st = Step(steps, t)
        k = begin_step(r, st, 2 * MS)
        for i in range(2000):
            compute(r, st, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", k, k + 40 * US)
            r.op("aten::linear", k - 30 * US, k - 20 * US)  # padding ops with shapes, as record_shapes writes
            k += 40 * US
        end = end_step(r, st, k + 10 * US, 1 * MS)
        compute_total += st.compute
        t = end
        chunk = ",\n".join("    " + json.dumps(e) for e in r.ev)
        f.write(sep + chunk)
        sep = ",\n"
        written += len(chunk) + 2
        r.ev = []
    f.write('\n  ],\n  "displayTimeUnit": "ms"\n}\n')
    f.close()
    with open(path + ".truth.json", "w") as tf:
        json.dump({"steps": steps, "compute_us": compute_total / US, "json_bytes_approx": written}, tf)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--big")
    ap.add_argument("--mb", type=int, default=100)
    a = ap.parse_args()
    if a.big:
        big(a.big, a.mb)
        return
    if not a.out:
        ap.error("--out or --big is required")
    pipeline_scenario(os.path.join(a.out, "pipeline"),
                      {"ts": "float", "origin": 0, "base": "tail", "nccl": "old", "keys": None, "pretty": True})
    dp_scenario(os.path.join(a.out, "dataload"),
                {"ts": "float", "origin": 0, "base": "head", "nccl": "new", "keys": "seq", "pretty": False,
                 "gz": False, "dist": False},
                "dataload", 4, 3, 20 * MS, 30 * MS, slow_data=(2, 50 * MS))
    dp_scenario(os.path.join(a.out, "late"),
                {"ts": "int", "origin": 0, "base": None, "nccl": "new", "keys": "id", "pretty": True,
                 "array_rank": 3, "flows": False},
                "late", 4, 3, 20 * MS, 30 * MS, slow_bwd=(1, 30 * MS))


if __name__ == "__main__":
    main()
