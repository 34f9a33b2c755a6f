#!/usr/bin/env python3
"""Two perf-doctor servers side by side on generated launch scripts (issue 25): rounds
interleaved (A, B, A, B, ...) so that the machine's load hits both alike; per size the median
over rounds of each measure lsp_drive.py reports (didChange->diagnostics p50 / p95, and the
round trips of definition, references, inlay hints and code lens where the server offers them).

usage: lsp_compare.py --a NAME=BINARY --b NAME=BINARY [--lines 300,30000] [--rounds 5]
                      [--edits 200] [--roundtrips 50] [--json OUT]
Prints a markdown table; didChange p50 of B against A as a percentage."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ["definition", "references", "inlay", "lens"]


def run(binary, script, ws, edits, roundtrips):
    p = subprocess.run([sys.executable, os.path.join(HERE, "lsp_drive.py"), "--script", script, "--root", ws,
                        "--edits", str(edits), "--roundtrips", str(roundtrips), "--timeout", "60",
                        "--", binary, "lsp"], capture_output=True, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(x):
    return "–" if x is None else ("%.2f" % x if x < 10 else "%.1f" % x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--lines", default="300,30000")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--roundtrips", type=int, default=50)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    servers = [tuple(x.split("=", 1)) for x in (a.a, a.b)]
    results = {}
    with tempfile.TemporaryDirectory(prefix="pd-lspcmp-") as tmp:
        for n in [int(x) for x in a.lines.split(",")]:
            ws = os.path.join(tmp, "ws%d" % n)
            subprocess.run([sys.executable, os.path.join(HERE, "gen_scripts.py"), "script", "--lines", str(n),
                            "--out", ws], check=True, stdout=subprocess.DEVNULL)
            d = os.path.join(ws, "scripts", "training", "text")
            script = os.path.join(d, os.listdir(d)[0])
            for r in range(a.rounds):
                for name, binary in (servers if r % 2 == 0 else servers[::-1]):
                    out = run(os.path.abspath(binary), script, ws, a.edits, a.roundtrips)
                    results.setdefault((name, n), []).append(out)
                    print("# %s %d lines round %d: change p50 %s ms" % (name, n, r + 1, fmt(out["change"]["p50"])),
                          file=sys.stderr)
    rows = []
    print("| server | lines | didChange→diags p50 / p95 ms | timeouts | definition p50 ms | references p50 ms |"
          " inlay hints p50 ms | code lens p50 ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    base = {}
    for (name, n), outs in results.items():
        row = {"server": name, "lines": outs[0]["lines"], "rounds": len(outs),
               "change_p50": med([o["change"]["p50"] for o in outs]),
               "change_p95": med([o["change"]["p95"] for o in outs]),
               "timeouts": sum(o["change"].get("timeouts", 0) or 0 for o in outs)}
        for k in KEYS:
            row[k + "_p50"] = med([(o.get(k) or {}).get("p50") for o in outs])
            row[k + "_results"] = (outs[-1].get(k) or {}).get("results")
        rows.append(row)
        if name == servers[0][0]:
            base[n] = row["change_p50"]
        rel = ""
        if name == servers[1][0] and base.get(n):
            rel = " (%+.1f %%)" % (100.0 * (row["change_p50"] - base[n]) / base[n])
        print("| %s | %s | %s / %s%s | %d | %s | %s | %s | %s |" % (
            name, "{:,}".format(row["lines"]), fmt(row["change_p50"]), fmt(row["change_p95"]), rel, row["timeouts"],
            *[fmt(row[k + "_p50"]) for k in KEYS]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
