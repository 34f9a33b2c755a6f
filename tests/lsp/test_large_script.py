#!/usr/bin/env python3
"""The editor features on a generated 3,000-line launch script (issue 25): through the real server
(bench/lsp_drive.py), the code lens (one, the memory budget), inlay hints, definition and
references answer, with results, and no edit loses its diagnostics.

usage: test_large_script.py PERF_DOCTOR [LINES]"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench")


def main():
    pd = os.path.abspath(sys.argv[1])
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    failures = 0
    with tempfile.TemporaryDirectory(prefix="pd-large-") as tmp:
        subprocess.run([sys.executable, os.path.join(BENCH, "gen_scripts.py"), "script", "--lines", str(lines),
                        "--out", tmp], check=True, stdout=subprocess.DEVNULL)
        d = os.path.join(tmp, "scripts", "training", "text")
        script = os.path.join(d, os.listdir(d)[0])
        p = subprocess.run([sys.executable, os.path.join(BENCH, "lsp_drive.py"), "--script", script, "--root", tmp,
                            "--edits", "10", "--roundtrips", "3", "--", pd, "lsp"], capture_output=True, text=True)
        r = json.loads(p.stdout.strip().splitlines()[-1])
    checks = [("edits published", r["change"]["n"] == 10 and not r["change"]["timeouts"]),
              ("one code lens", r["lens"] and r["lens"]["n"] == 3 and r["lens"]["results"] == 1),
              ("inlay hints", r["inlay"] and r["inlay"]["results"] and r["inlay"]["results"] > 0),
              ("definition", r["definition"] and r["definition"]["results"] and r["definition"]["results"] >= 1),
              ("references", r["references"] and r["references"]["results"] and r["references"]["results"] >= 2),
              ("clean exit", r["exit_status"] == 0)]
    for name, ok in checks:
        print("%s %s" % ("ok  " if ok else "FAIL", name))
        failures += not ok
    for k in ("lens", "inlay", "definition", "references"):
        if r.get(k):
            print("%s: p50 %.2f ms, %s results (%d lines)" % (k, r[k]["p50"], r[k]["results"], r["lines"]))
    print("%d passed, %d failed" % (len(checks) - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
