#!/usr/bin/env python3
"""Times Holistic Trace Analysis on a trace folder: load + temporal breakdown.

usage: hta_run.py HTA_SRC TRACE_DIR
Run it with an interpreter that has pandas (Debian: /usr/bin/python3 with python3-pandas).
HTA_SRC is a checkout of github.com/facebookresearch/HolisticTraceAnalysis (never vendored
here). Prints one JSON object: load_s (TraceAnalysis(trace_dir=...), which parses every rank,
with HTA's default multiprocessing), temporal_s (get_temporal_breakdown), total_s, cpu_s (user+system of this process and its
workers over load + temporal), peak RSS of
this process and of its worker processes, and the per-rank temporal rows. Exit 77 when HTA or
pandas cannot be imported.
"""
import json
import resource
import sys
import time


def main():
    src, trace_dir = sys.argv[1], sys.argv[2]
    t_imp = time.perf_counter()
    sys.path.insert(0, src)
    try:
        import logging
        logging.disable(logging.WARNING)
        from hta.trace_analysis import TraceAnalysis
        import hta.version
    except Exception as e:  # pandas & co missing
        print(json.dumps({"skipped": "HTA not importable: %s" % e}))
        return 77
    def cpu():
        a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

    c0 = cpu()
    t0 = time.perf_counter()
    ta = TraceAnalysis(trace_dir=trace_dir)
    t1 = time.perf_counter()
    tb = ta.get_temporal_breakdown(visualize=False)
    t2 = time.perf_counter()
    rows = [{k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()} for r in tb.to_dict("records")]
    out = {"hta_version": hta.version.__version__, "import_s": t0 - t_imp, "load_s": t1 - t0,
           "temporal_s": t2 - t1, "total_s": t2 - t0, "cpu_s": cpu() - c0,
           "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
           "children_maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
           "temporal": rows}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
