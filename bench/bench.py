#!/usr/bin/env python3
"""perf-doctor benchmark suite: the language server, `check` and `trace`, each measured in the
same run against the tools people use today (bash-language-server, ShellCheck, `zcat`, Holistic
Trace Analysis) when they are installed. Standard library only.

usage: bench.py [--smoke] [--build DIR] [--data DIR] [--out FILE] [--parts LIST] [--hta-big]

  --smoke      tiny inputs, few repetitions, no targets judged: what ctest runs
  --build DIR  the build tree holding perf-doctor (default: ./build)
  --data DIR   where generated scripts and traces are cached (default: DIR/bench-data under
               the build tree; the 1 GB traces take a few minutes to generate once)
  --out FILE   JSON results (default: bench/results/run-<UTC time>[-smoke].json)
  --parts      comma list of lsp,bls,check,trace,hta,callgrind (default: all)
  --hta-big    also run HTA on the 1 GB sets (several minutes and GBs of memory)

Peers are found as: bash-language-server via $PD_BENCH_BLS, PATH, or
~/.cache/perf-doctor/bench/bls (bench/peers.sh installs it there); HTA via $HTA_SRC or
~/.cache/perf-doctor/bench/hta, run with $HTA_PYTHON (default /usr/bin/python3, which sees
Debian's python3-pandas). A missing peer is reported as such, never as a failure.

Exit status: 0 when every perf-doctor measurement completed (targets are reported, not
enforced), 1 when one failed, 77 when --parts asked only for peers and none is installed.
"""
import argparse
import datetime
import gzip
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "perf-doctor", "bench")
PY = sys.executable

FULL = {"lines": [300, 3000, 30000], "edits": 200, "roundtrips": 50, "corpus": 1000, "per_script": 200,
        "shellcheck_sample": 200, "trace_mb": [100, 1000], "bls_budget": 60.0,
        "cg_edits": {300: 20, 3000: 10, 30000: 4}, "cg_trace_mb": 20}
SMOKE = {"lines": [120], "edits": 20, "roundtrips": 5, "corpus": 20, "per_script": 5,
         "shellcheck_sample": 5, "trace_mb": [2], "bls_budget": 10.0,
         "cg_edits": {120: 2}, "cg_trace_mb": 1}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def load():
    return round(os.getloadavg()[0], 2)


def run_timed(argv, stdout=subprocess.DEVNULL, env=None, cwd=None):
    """Runs argv; returns (exit status, wall s, user+sys s, peak RSS kB) from wait4."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def version_of(argv, pattern=r"(\d+\.\d+(?:\.\d+)?)"):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30).stdout.decode()
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(pattern, out)
    return m.group(1) if m else None


def find_bls():
    for c in (os.environ.get("PD_BENCH_BLS"), shutil.which("bash-language-server"),
              os.path.join(CACHE, "bls", "node_modules", ".bin", "bash-language-server")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def find_hta():
    for c in (os.environ.get("HTA_SRC"), os.path.join(CACHE, "hta")):
        if c and os.path.isfile(os.path.join(c, "hta", "trace_analysis.py")):
            return c
    return None


def hta_python():
    return os.environ.get("HTA_PYTHON", "/usr/bin/python3")


# ---------------------------------------------------------------------------------------------
# workloads (cached under --data)

def gen_script(data, lines):
    ws = os.path.join(data, "ws%d" % lines)
    path = os.path.join(ws, "scripts", "training", "text", "run-qwen3-4B-8xgpu-%d.sh" % lines)
    if not os.path.exists(path):
        subprocess.run([PY, os.path.join(HERE, "gen_scripts.py"), "script", "--lines", str(lines), "--out", ws],
                       check=True, stdout=subprocess.DEVNULL)
    return ws, path


def gen_corpus(data, count):
    out = os.path.join(data, "corpus%d" % count)
    d = os.path.join(out, "scripts", "training")
    if not os.path.isdir(d):
        subprocess.run([PY, os.path.join(HERE, "gen_scripts.py"), "corpus", "--count", str(count), "--out", out],
                       check=True, stdout=subprocess.DEVNULL)
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if f.endswith(".sh"))
    return d, files


def gen_traces(data, mb, ranks):
    d = os.path.join(data, "trace-%dMB-%drank" % (mb, ranks))
    man = d + ".manifest.json"
    if not os.path.exists(man):
        log("generating %d MB of trace JSON in %d rank file(s) under %s ..." % (mb, ranks, d))
        shutil.rmtree(d, ignore_errors=True)
        subprocess.run([PY, os.path.join(HERE, "gen_trace_set.py"), "--out", d, "--mb", str(mb),
                        "--ranks", str(ranks)], check=True, stdout=subprocess.DEVNULL)
    with open(man) as f:
        m = json.load(f)
    m["dir"] = d
    m["paths"] = [os.path.join(d, x["file"]) for x in m["files"]]
    return m


# ---------------------------------------------------------------------------------------------
# language servers

def drive(script, ws, server, cfg, extra=(), timeout_budget=0.0, edits=None):
    argv = [PY, os.path.join(HERE, "lsp_drive.py"), "--script", script, "--root", ws,
            "--edits", str(edits if edits is not None else cfg["edits"]),
            "--roundtrips", str(cfg["roundtrips"])]
    if timeout_budget:
        argv += ["--budget", str(timeout_budget)]
    argv += list(extra) + ["--"] + server
    ld = load()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        r = json.loads(p.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        r = {"error": "driver failed: " + p.stderr.decode()[-400:]}
    r["load"] = ld
    r["ok"] = p.returncode == 0 and "error" not in r
    return r


TOP_ANCHOR = "--save-interval 20"  # in CKPT_ARGS, line 23 of every generated script


def part_lsp(cfg, pd, data, res):
    rows = []
    for n in cfg["lines"]:
        ws, script = gen_script(data, n)
        log("lsp: perf-doctor, %d lines" % n)
        r = drive(script, ws, [pd, "lsp"], cfg)
        r.update({"server": "perf-doctor", "config": "default", "target_lines": n})
        rows.append(r)
    # The default edit is mid-file; an edit near the top leaves almost the whole script after it
    # (every statement there replayed rather than walked): the harder case, judged too.
    n = max(cfg["lines"])
    ws, script = gen_script(data, n)
    log("lsp: perf-doctor, %d lines, edit near the top" % n)
    r = drive(script, ws, [pd, "lsp"], cfg, ["--roundtrips", "0", "--anchor", TOP_ANCHOR])
    r.update({"server": "perf-doctor", "config": "edit at line %s" % r.get("edit_line", "?"),
              "target_lines": n})
    rows.append(r)
    res["lsp"] = rows
    return all(r["ok"] for r in rows)


def part_bls(cfg, data, res):
    bls = find_bls()
    node = version_of(["node", "--version"])
    if not bls:
        res["bls"] = {"skipped": "bash-language-server not installed (bench/peers.sh installs it)"}
        return None
    ver = version_of([bls, "--version"])
    res["peers"]["bash-language-server"] = ver
    res["peers"]["node"] = node
    res["peers"]["shellcheck"] = version_of(["shellcheck", "--version"], r"version: (\S+)")
    rows = []
    env = ["--env", "BASH_IDE_LOG_LEVEL=error"]
    for n in cfg["lines"]:
        ws, script = gen_script(data, n)
        for conf, extra in (("default", env),
                            ("shellcheck off", env + ["--init-options", json.dumps({"shellcheckPath": ""})])):
            log("lsp: bash-language-server %s (%s), %d lines" % (ver, conf, n))
            # ShellCheck alone takes ~12 s on 30,000 lines here: allow a minute per publish
            r = drive(script, ws, [bls, "start"], cfg, extra + ["--timeout", "60"], timeout_budget=cfg["bls_budget"])
            r.update({"server": "bash-language-server", "config": conf, "target_lines": n})
            rows.append(r)
    res["bls"] = rows
    return True


# ---------------------------------------------------------------------------------------------
# check

def part_check(cfg, pd, data, res):
    d, files = gen_corpus(data, cfg["corpus"])
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    ld = load()
    log("check: %d scripts in one process (pinned to one core)" % len(files))
    rc, wall, cpu, rss = run_timed(pin + [pd, "check", d])
    out = {"scripts": len(files), "load": ld, "exit_status": rc, "wall_s": wall, "cpu_s": cpu, "maxrss_kb": rss,
           "scripts_per_s": len(files) / wall, "scripts_per_cpu_s": len(files) / cpu if cpu else None,
           "ok": rc in (0, 1)}
    # per-script latency, one process per script, as an editor-less CI job would run it
    sample = files[::max(1, len(files) // cfg["per_script"])][:cfg["per_script"]]
    lat = []
    for f in sample:
        rc1, w, _, _ = run_timed(pin + [pd, "check", f])
        out["ok"] = out["ok"] and rc1 in (0, 1)
        lat.append(w * 1e3)
    lat.sort()
    out["per_script_ms"] = {"n": len(lat), "p50": lat[len(lat) // 2], "p95": lat[int(len(lat) * 0.95)]}
    sc = shutil.which("shellcheck")
    if sc:
        sc_sample = files[::max(1, len(files) // cfg["shellcheck_sample"])][:cfg["shellcheck_sample"]]
        log("check: shellcheck on %d of the scripts" % len(sc_sample))
        ld = load()
        rc2, w, c, m = run_timed(pin + [sc, "-f", "json1", "-x"] + sc_sample)
        out["shellcheck"] = {"version": version_of([sc, "--version"], r"version: (\S+)"), "scripts": len(sc_sample),
                             "wall_s": w, "scripts_per_s": len(sc_sample) / w, "maxrss_kb": m, "load": ld}
        res["peers"]["shellcheck"] = out["shellcheck"]["version"]
    res["check"] = out
    return out["ok"]


# ---------------------------------------------------------------------------------------------
# trace

def part_trace(cfg, pd, data, res, want_hta, hta_big):
    hta = find_hta() if want_hta else None
    rows = []
    ok = True
    for mb in cfg["trace_mb"]:
        for ranks in (1, 8):
            m = gen_traces(data, mb, ranks)
            row = {"set": "%d MB, %d rank%s" % (mb, ranks, "s" if ranks > 1 else ""), "mb": mb, "ranks": ranks,
                   "json_bytes": m["json_bytes"], "gz_bytes": m["gz_bytes"]}
            target = m["dir"] if ranks > 1 else m["paths"][0]
            mbytes = m["json_bytes"] / 1e6
            log("trace: %s" % row["set"])
            runs = {}
            for jobs in ([1, 2] if ranks > 1 else [1]):
                ld = load()
                with open(os.devnull, "w") as null:
                    rc, wall, cpu, rss = run_timed([pd, "trace", target, "--format", "json", "--jobs", str(jobs)],
                                                   stdout=null)
                runs["jobs%d" % jobs] = {"jobs": jobs, "exit_status": rc, "wall_s": wall, "cpu_s": cpu,
                                         "maxrss_kb": rss, "mb_per_s": mbytes / wall,
                                         "mb_per_cpu_s": mbytes / cpu if cpu else None, "load": ld}
                ok = ok and rc == 0
            row["perf_doctor"] = runs
            # the same binary with its zlib fallback (PERF_DOCTOR_INFLATE=zlib), one thread
            with open(os.devnull, "w") as null:
                env = dict(os.environ, PERF_DOCTOR_INFLATE="zlib")
                rc, wall, cpu, rss = run_timed([pd, "trace", target, "--format", "json", "--jobs", "1"], stdout=null,
                                               env=env)
            row["perf_doctor_zlib"] = {"wall_s": wall, "cpu_s": cpu, "exit_status": rc}
            ld = load()
            rc, wall, cpu, rss = run_timed(["sh", "-c", 'zcat "$@" > /dev/null', "zcat"] + m["paths"])
            row["zcat"] = {"wall_s": wall, "mb_per_s": mbytes / wall, "load": ld}
            row["vs_zcat"] = runs["jobs1"]["wall_s"] / wall
            if hta and (mb <= 100 or hta_big):
                log("trace: HTA on %s" % row["set"])
                ld = load()
                p = subprocess.run([hta_python(), os.path.join(HERE, "hta_run.py"), hta, m["dir"]],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                try:
                    h = json.loads(p.stdout.decode().strip().splitlines()[-1])
                except (ValueError, IndexError):
                    h = {"error": "HTA failed (exit %d)" % p.returncode}
                h["load"] = ld
                h.pop("temporal", None) if "error" in h else None
                row["hta"] = h
                if "total_s" in h:
                    best = runs.get("jobs2", runs["jobs1"])["wall_s"]
                    row["hta_over_pd"] = h["total_s"] / best
                    row["hta_over_pd_one_core"] = h["total_s"] / runs["jobs1"]["wall_s"]
                    if h.get("cpu_s") and runs["jobs1"]["cpu_s"]:
                        row["hta_over_pd_cpu"] = h["cpu_s"] / runs["jobs1"]["cpu_s"]
                    res["peers"]["hta"] = h.get("hta_version")
                    row["hta_agreement"] = hta_agreement(pd, target, h)
            elif want_hta:
                row["hta"] = {"skipped": "HTA not found" if not hta else "1 GB sets need --hta-big"}
            rows.append(row)
    res["trace"] = rows
    return ok


def hta_agreement(pd, target, h):
    """Largest |perf-doctor hta.idle_us - HTA idle_time(us)| over ranks (µs): a sanity check that
    both tools read the same traces."""
    p = subprocess.run([pd, "trace", target, "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return None
    mine = {r["rank"]: r["hta"] for r in doc.get("ranks", [])}
    worst = 0.0
    for row in h.get("temporal", []):
        r = int(row["rank"])
        if r not in mine:
            return None
        for k, hk in (("idle_us", "idle_time(us)"), ("compute_us", "compute_time(us)"),
                      ("kernel_time_us", "kernel_time(us)")):
            worst = max(worst, abs(float(mine[r][k]) - float(row[hk])))
    return {"max_abs_diff_us": worst, "ranks": len(h.get("temporal", []))}


# ---------------------------------------------------------------------------------------------
# callgrind instruction counts

def callgrind_total(path):
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    return None


def callgrind_inclusive(path):
    """{function: inclusive Ir} from callgrind_annotate --inclusive=yes."""
    p = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = {}
    for line in p.stdout.decode(errors="replace").splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$", line)
        if m and "PROGRAM TOTALS" not in line:
            fn = m.group(2).split(" [")[0]
            fn = fn.split(":", 1)[1] if ":" in fn else fn
            if "'" in fn or fn.startswith("0x"):
                continue  # recursion duplicates and unnamed library internals
            out[fn] = max(out.get(fn, 0), int(m.group(1).replace(",", "")))
    return out


SHELL_FNS = ("main", "pd_cmd_lsp", "pd_cmd_trace", "srv_serve", "(below main)", "__libc_start_main@@GLIBC_2.34",
             "start_thread", "clone3", "_dl_start", "_dl_start_final", "_start")


def part_callgrind(cfg, pd, data, res, work):
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        res["callgrind"] = {"skipped": "valgrind not installed"}
        return True
    os.makedirs(work, exist_ok=True)
    out = {"lsp_did_change": [], "trace": None}
    ok = True
    for n, edits in cfg["cg_edits"].items():
        ws, script = gen_script(data, n)
        tot, inc = {}, {}
        for e in (0, edits):
            f = os.path.join(work, "lsp%d-%d.cg" % (n, e))
            log("callgrind: perf-doctor lsp, %d lines, %d edits" % (n, e))
            server = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + f, pd, "lsp"]
            argv = [PY, os.path.join(HERE, "lsp_drive.py"), "--script", script, "--root", ws, "--edits", str(e),
                    "--roundtrips", "0", "--timeout", "900", "--"] + server
            p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if p.returncode not in (0, 1) or not os.path.exists(f):
                ok = False
                break
            tot[e] = callgrind_total(f)
            inc[e] = callgrind_inclusive(f)
        if len(tot) < 2 or tot[edits] is None or tot[0] is None:
            out["lsp_did_change"].append({"lines": n, "error": "callgrind run failed"})
            continue
        per = {fn: (inc[edits][fn] - inc[0].get(fn, 0)) / edits for fn in inc[edits]}
        top = sorted(((v, fn) for fn, v in per.items() if v > 0), reverse=True)
        out["lsp_did_change"].append({
            "lines": n, "edits": edits, "ir_per_edit": (tot[edits] - tot[0]) / edits,
            "top_inclusive_per_edit": [{"fn": fn, "ir": int(v)} for v, fn in top[:25]]})
    m = gen_traces(data, cfg["cg_trace_mb"], 1)
    f = os.path.join(work, "trace.cg")
    log("callgrind: perf-doctor trace, %d MB" % cfg["cg_trace_mb"])
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + f, pd, "trace", m["paths"][0],
                        "--format", "json", "--jobs", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if p.returncode == 0 and os.path.exists(f):
        total = callgrind_total(f)
        inc = callgrind_inclusive(f)
        top = sorted(((v, fn) for fn, v in inc.items()), reverse=True)
        out["trace"] = {"json_bytes": m["json_bytes"], "ir_total": total, "ir_per_json_byte": total / m["json_bytes"],
                        "top_inclusive": [{"fn": fn, "ir": v} for v, fn in top[:25]]}
    else:
        ok = False
        out["trace"] = {"error": "callgrind run failed (exit %d)" % p.returncode}
    res["callgrind"] = out
    return ok


# ---------------------------------------------------------------------------------------------
# report

TARGETS = [
    # (name, where, limit, "max"|"min")
    ("didChange->diagnostics p50, 300 lines", "lsp_change_p50_300", 2.0, "max", "ms"),
    ("didChange->diagnostics p50, 30,000 lines", "lsp_change_p50_30000", 30.0, "max", "ms"),
    ("initialize (spawn->reply)", "lsp_init_max", 10.0, "max", "ms"),
    ("server RSS (VmHWM), 300 lines", "lsp_hwm_300", 15.0, "max", "MB"),
    ("check, one core", "check_rate", 1000.0, "min", "scripts/s"),
    ("check, per CPU-second", "check_rate_cpu", 1000.0, "min", "scripts/s"),
    ("trace, one core (worst set)", "trace_rate_min", 100.0, "min", "MB/s"),
    ("trace, per CPU-second (worst set)", "trace_rate_cpu_min", 100.0, "min", "MB/s"),
    ("trace peak RSS (any set)", "trace_rss_max", 100.0, "max", "MB"),
    ("trace vs HTA load+temporal (worst set)", "hta_ratio_min", 20.0, "min", "x"),
    ("trace vs HTA, CPU time (worst set)", "hta_ratio_cpu_min", 20.0, "min", "x"),
]


def target_values(res):
    v = {}
    for r in res.get("lsp") or []:
        if not r.get("ok"):
            continue
        k = "lsp_change_p50_%d" % r["target_lines"]
        v[k] = max(v.get(k, 0), r["change"]["p50"])  # the worst edit position judged
        if r["target_lines"] == 300:
            v["lsp_hwm_300"] = r["hwm_kb"] / 1024.0
        v["lsp_init_max"] = max(v.get("lsp_init_max", 0), r["initialize_ms"])
    c = res.get("check")
    if c:
        v["check_rate"] = c["scripts_per_s"]
        v["check_rate_cpu"] = c.get("scripts_per_cpu_s")
    for t in res.get("trace") or []:
        for run in t["perf_doctor"].values():
            v["trace_rss_max"] = max(v.get("trace_rss_max", 0), run["maxrss_kb"] / 1024.0)
        j1 = t["perf_doctor"]["jobs1"]
        v["trace_rate_min"] = min(v.get("trace_rate_min", 1e18), j1["mb_per_s"])
        if j1.get("mb_per_cpu_s"):
            v["trace_rate_cpu_min"] = min(v.get("trace_rate_cpu_min", 1e18), j1["mb_per_cpu_s"])
        if "hta_over_pd" in t:
            v["hta_ratio_min"] = min(v.get("hta_ratio_min", 1e18), t["hta_over_pd"])
        if "hta_over_pd_cpu" in t:
            v["hta_ratio_cpu_min"] = min(v.get("hta_ratio_cpu_min", 1e18), t["hta_over_pd_cpu"])
    return v


def fmt(x, nd=1):
    if x is None:
        return "–"
    if isinstance(x, str):
        return x
    if abs(x) >= 100:
        return "{:,.0f}".format(x)
    return ("{:.%df}" % nd).format(x)


def table(res):
    L = []
    if res.get("lsp") or isinstance(res.get("bls"), list):
        L += ["### Language server (stdio; ms unless noted; load = 1-min load average at the start)", "",
              "| server | config | lines | initialize | didOpen→diags | didChange→diags p50 / p95 (n) | hover p50 | codeAction p50 | RSS (HWM) MB | load |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in (res.get("lsp") or []) + (res["bls"] if isinstance(res.get("bls"), list) else []):
            if "change" not in r or r.get("open_ms") is None:
                if r.get("open_timeout_s"):
                    L.append("| %s | %s | %s | %s | no publish in %g s | – | %s | %s | %s | %s |" % (
                        r["server"], r["config"], "{:,}".format(r["lines"]), fmt(r.get("initialize_ms")),
                        r["open_timeout_s"], fmt(r["hover"]["p50"], 2),
                        fmt((r.get("code_action") or {}).get("p50"), 2), fmt((r.get("hwm_kb") or 0) / 1024.0), r["load"]))
                    continue
                L.append("| %s | %s | %d | %s | – | – | – | – | – | %s |" % (
                    r["server"], r["config"], r["target_lines"], r.get("error", "failed"), r["load"]))
                continue
            ch = r["change"]
            ca = r.get("code_action") or {}
            L.append("| %s | %s | %s | %s | %s | %s / %s (%d%s) | %s | %s | %s | %s |" % (
                r["server"], r["config"], "{:,}".format(r["lines"]), fmt(r.get("initialize_ms")), fmt(r.get("open_ms")),
                fmt(ch["p50"], 2), fmt(ch["p95"], 2), ch["n"], ", %d timeouts" % ch["timeouts"] if ch["timeouts"] else "",
                fmt(r["hover"]["p50"], 2), fmt(ca.get("p50"), 2) if ca else "n/a",
                fmt((r.get("hwm_kb") or 0) / 1024.0), r["load"]))
        L.append("")
    c = res.get("check")
    if c:
        L += ["### check (one core)", "",
              "| tool | scripts | scripts/s (wall) | scripts per CPU-s | per-script p50 (own process) | peak RSS MB | load |",
              "|---|---:|---:|---:|---:|---:|---:|",
              "| perf-doctor check | %d | %s | %s | %s ms | %s | %s |" % (
                  c["scripts"], fmt(c["scripts_per_s"]), fmt(c.get("scripts_per_cpu_s")), fmt(c["per_script_ms"]["p50"], 2),
                  fmt(c["maxrss_kb"] / 1024.0), c["load"])]
        s = c.get("shellcheck")
        if s:
            L.append("| shellcheck %s -f json1 -x (reference) | %d | %s | – | – | %s | %s |" % (
                s["version"], s["scripts"], fmt(s["scripts_per_s"]), fmt(s["maxrss_kb"] / 1024.0), s["load"]))
        L.append("")
    if res.get("trace"):
        L += ["### trace (`.json.gz` input; MB = 10^6 bytes of uncompressed JSON)", "",
              "| set | JSON MB | gz MB | perf-doctor 1 thread: s, MB/s (per CPU-s) | 2 threads: s | peak RSS MB | same, zlib inflate: s | zcat s | vs zcat | HTA load+temporal s (RSS MB) | HTA ÷ perf-doctor: wall (CPU) | load |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for t in res["trace"]:
            j1 = t["perf_doctor"]["jobs1"]
            j2 = t["perf_doctor"].get("jobs2")
            rss = max(r["maxrss_kb"] for r in t["perf_doctor"].values()) / 1024.0
            h = t.get("hta") or {}
            if "total_s" in h:
                hs = "%s (%s)" % (fmt(h["total_s"], 2), fmt(max(h["maxrss_kb"], h["children_maxrss_kb"]) / 1024.0))
                ratio = "%s× (%s×)" % (fmt(t["hta_over_pd"]), fmt(t.get("hta_over_pd_cpu")))
            else:
                hs, ratio = h.get("skipped", h.get("error", "–")), "–"
            zl = t.get("perf_doctor_zlib")
            L.append("| %s | %s | %s | %s, %s (%s) | %s | %s | %s | %s | %s× | %s | %s | %s |" % (
                t["set"], fmt(t["json_bytes"] / 1e6), fmt(t["gz_bytes"] / 1e6), fmt(j1["wall_s"], 2), fmt(j1["mb_per_s"]),
                fmt(j1.get("mb_per_cpu_s")),
                fmt(j2["wall_s"], 2) if j2 else "–", fmt(rss), fmt(zl["wall_s"], 2) if zl else "–",
                fmt(t["zcat"]["wall_s"], 2), fmt(t["vs_zcat"]), hs,
                ratio, j1["load"]))
        L.append("")
    cg = res.get("callgrind")
    if cg and "skipped" not in cg:
        L += ["### Instruction counts (callgrind)", ""]
        for r in cg["lsp_did_change"]:
            if "ir_per_edit" in r:
                top = ", ".join("%s %.1fM" % (x["fn"], x["ir"] / 1e6) for x in [
                    x for x in r["top_inclusive_per_edit"] if x["fn"] not in SHELL_FNS][:8])
                L.append("- didChange at %s lines: **%.1fM Ir per edit** (mean of %d). Inclusive: %s" % (
                    "{:,}".format(r["lines"]), r["ir_per_edit"] / 1e6, r["edits"], top))
        t = cg.get("trace") or {}
        if "ir_per_json_byte" in t:
            L.append("- trace, one rank, %.0f MB: **%.1f Ir per JSON byte** (%.2fG Ir)" % (
                t["json_bytes"] / 1e6, t["ir_per_json_byte"], t["ir_total"] / 1e9))
        L.append("")
    if res.get("targets"):
        L += ["### Targets", "", "| target | limit | measured | met |", "|---|---:|---:|---|"]
        for t in res["targets"]:
            L.append("| %s | %s %s %s | %s | %s |" % (t["name"], "≤" if t["kind"] == "max" else "≥", fmt(t["limit"]),
                                                     t["unit"], fmt(t["measured"], 2),
                                                     "yes" if t["met"] else ("**no**" if t["met"] is False else "–")))
        L.append("")
    return "\n".join(L)


def machine_info(pd):
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL).stdout.decode().strip()
    # others edit the same checkout: say which tracked files differed from the commit when built
    dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--untracked-files=no"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode().split("\n")
    return {"dirty": [l[3:] for l in dirty if l.strip()], "cpu": cpu, "cores": os.cpu_count(), "mem_mb": mem, "kernel": platform.release(),
            "python": platform.python_version(), "commit": commit,
            "perf_doctor": version_of([pd, "version"], r"(\S+)$"), "date_utc": datetime.datetime.utcnow().isoformat() + "Z"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--data")
    ap.add_argument("--out")
    ap.add_argument("--parts", default="lsp,bls,check,trace,hta,callgrind")
    ap.add_argument("--hta-big", action="store_true")
    a = ap.parse_args()
    cfg = SMOKE if a.smoke else FULL
    parts = set(a.parts.split(","))
    unknown = parts - {"lsp", "bls", "check", "trace", "hta", "callgrind"}
    if unknown:
        ap.error("unknown parts: " + ",".join(sorted(unknown)))
    pd = os.path.join(os.path.abspath(a.build), "perf-doctor")
    if not os.access(pd, os.X_OK):
        sys.exit("no perf-doctor in %s (build it first, or pass --build)" % a.build)
    data = os.path.abspath(a.data or os.path.join(a.build, "bench-data" + ("-smoke" if a.smoke else "")))
    os.makedirs(data, exist_ok=True)
    stamp = datetime.datetime.utcnow().strftime("%Y%m%dT%H%M%SZ")
    out = a.out or os.path.join(HERE, "results", "run-%s%s.json" % (stamp, "-smoke" if a.smoke else ""))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)

    res = {"mode": "smoke" if a.smoke else "full", "machine": machine_info(pd), "load_start": os.getloadavg(),
           "peers": {}, "command": " ".join(sys.argv)}
    ok = True
    peers_only = parts <= {"bls", "hta"}
    found_peer = False
    # perf-doctor's timed parts first: in one run, `check` right after bash-language-server's
    # 30,000-line rows (ShellCheck peaks at 1.35 GB there) took 1.28 CPU-s for 1,000 scripts,
    # against 0.73-0.96 s on a quiet machine.
    if "lsp" in parts:
        ok = part_lsp(cfg, pd, data, res) and ok
    if "check" in parts:
        ok = part_check(cfg, pd, data, res) and ok
    if "trace" in parts or "hta" in parts:
        if "hta" in parts and find_hta():
            found_peer = True
        if "trace" not in parts and "hta" in parts and not find_hta():
            res["trace"] = None
        else:
            ok = part_trace(cfg, pd, data, res, "hta" in parts, a.hta_big) and ok
    if "bls" in parts:
        found_peer = part_bls(cfg, data, res) is not None or found_peer
    if "callgrind" in parts:
        ok = part_callgrind(cfg, pd, data, res, os.path.join(data, "callgrind")) and ok
    res["load_end"] = os.getloadavg()
    if not a.smoke:
        vals = target_values(res)
        res["targets"] = [{"name": n, "key": k, "limit": lim, "kind": kind, "unit": u, "measured": vals.get(k),
                           "met": None if vals.get(k) is None else (vals[k] <= lim if kind == "max" else vals[k] >= lim)}
                          for n, k, lim, kind, u in TARGETS]
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(table(res))
    print("results: %s" % out)
    if peers_only and not found_peer:
        print("skipped: the optional peer (%s) is not installed" % ", ".join(
            {"bls": "bash-language-server", "hta": "Holistic Trace Analysis"}[p] for p in sorted(parts)))
        return 77
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
