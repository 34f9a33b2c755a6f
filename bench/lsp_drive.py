#!/usr/bin/env python3
"""Stdio LSP latency and memory driver (Python 3 standard library only).

usage: lsp_drive.py --script FILE [--edits N] [--roundtrips N] [--budget S]
                    [--init-options JSON] [--env K=V ...] [--settle MS] -- SERVER ARGS...

Prints one JSON object on stdout. Against one live server process it measures:
  initialize      spawn -> initialize response (ms)
  open            didOpen -> first publishDiagnostics for the document (ms), and its count
  change          N single-character edits (alternately typing '7' after the edited value and
                  deleting it again, so every edit changes what the rules read), each timed
                  from the didChange to the publishDiagnostics for that version (p50/p95/max);
                  incremental ranges when the server offers incremental sync, else full text
  hover, action   round trips at the edited flag / on the line of the first diagnostic
  definition, references, inlay, lens
                  round trips, when the server offers them: definition and references at the
                  last "${..._ARGS[@]}" spread of the script, inlay hints over the whole
                  document, code lens (each with the number of results of the last answer)
  rss             the server's VmRSS and VmHWM after the run (kB, /proc)
  cpu             the server's user+system CPU time over the whole session (ms)

Following the usual LSP benchmark practice (quick-lint-js, ltex-ls latency scripts):
server-to-client requests get stub replies (workspace/configuration -> nulls, others -> null),
the workspace root is the script's own folder tree, one warm-up edit pair is untimed, and a lost
publish counts as a timeout (--timeout, 10 s by default, reported in "timeouts"). --budget caps the wall time spent on
edits (slow peers get fewer than N edits; the count measured is reported as n).
The edit point is the first occurrence of --anchor (default "--max-tokens-per-gpu 9216").
"""
import argparse
import json
import os
import select
import subprocess
import sys
import time

TIMEOUT = [10.0]  # seconds; --timeout


class Server:
    def __init__(self, argv, env, cwd):
        e = dict(os.environ)
        e.update(env)
        self.t_spawn = time.perf_counter()
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=e, cwd=cwd, bufsize=0)
        self.buf = b""
        self.next_id = 1
        self.fd = self.p.stdout.fileno()

    def send(self, obj):
        body = json.dumps(obj, separators=(",", ":")).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return i

    def notify(self, method, params):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    def _frame(self):
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        n = None
        for line in self.buf[:end].split(b"\r\n"):
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v)
        if n is None or len(self.buf) < end + 4 + n:
            return None
        body = self.buf[end + 4:end + 4 + n]
        self.buf = self.buf[end + 4 + n:]
        return json.loads(body)

    def recv(self, deadline):
        """Next message, or None at the deadline or end of output. Answers server requests."""
        while True:
            m = self._frame()
            if m is not None:
                if "method" in m and "id" in m:  # a request from the server: stub reply
                    if m["method"] == "workspace/configuration":
                        res = [None] * len(m.get("params", {}).get("items", []))
                    else:
                        res = None
                    self.send({"jsonrpc": "2.0", "id": m["id"], "result": res})
                    continue
                return m
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                return None
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk

    def wait(self, pred, t0):
        """Latency (ms) from t0 until a message satisfying pred arrives, and that message."""
        deadline = time.perf_counter() + TIMEOUT[0]
        while True:
            m = self.recv(deadline)
            if m is None:
                return None, None
            if pred(m):
                return (time.perf_counter() - t0) * 1e3, m

    def proc_status(self):
        out = {}
        try:
            with open("/proc/%d/status" % self.p.pid) as f:
                for line in f:
                    k, _, v = line.partition(":")
                    if k in ("VmRSS", "VmHWM"):
                        out[k] = int(v.split()[0])
            with open("/proc/%d/stat" % self.p.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            tck = os.sysconf("SC_CLK_TCK")
            out["cpu_ms"] = (int(fields[11]) + int(fields[12])) * 1000.0 / tck
        except OSError:
            pass
        return out


def pct(v, q):
    if not v:
        return None
    s = sorted(v)
    return s[min(len(s) - 1, int(q * len(s)))]


def stats(v):
    return {"n": len(v), "p50": pct(v, 0.5), "p95": pct(v, 0.95), "max": max(v) if v else None,
            "mean": sum(v) / len(v) if v else None}


def utf16_col(line_text, byte_col_chars):
    """UTF-16 column of the character offset byte_col_chars in a str line."""
    return len(line_text[:byte_col_chars].encode("utf-16-le")) // 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", required=True)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--roundtrips", type=int, default=50)
    ap.add_argument("--budget", type=float, default=0, help="max seconds of edits (0 = none)")
    ap.add_argument("--init-options", default=None)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--anchor", default="--max-tokens-per-gpu 9216")
    ap.add_argument("--root", default=None, help="workspace root (default: the script's folder)")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for one reply or publish")
    ap.add_argument("server", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    TIMEOUT[0] = a.timeout
    argv = a.server[1:] if a.server and a.server[0] == "--" else a.server
    if not argv:
        ap.error("no server command after --")
    script = os.path.abspath(a.script)
    with open(script, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    at = text.find(a.anchor)
    if at < 0:
        sys.exit("%s: anchor %r not found" % (script, a.anchor))
    eline = text.count("\n", 0, at)
    echar = at - (text.rfind("\n", 0, at) + 1) + len(a.anchor)
    ecol = utf16_col(lines[eline], echar)
    hcol = utf16_col(lines[eline], echar - len(a.anchor) + 4)  # inside the flag name
    root = os.path.abspath(a.root or os.path.dirname(script))
    uri = "file://" + script
    env = dict(kv.split("=", 1) for kv in a.env)

    out = {"script": script, "lines": len(lines) - (1 if text.endswith("\n") else 0), "bytes": len(text.encode()),
           "server": argv, "edit_line": eline + 1}
    s = Server(argv, env, root)
    init_params = {"processId": os.getpid(), "rootUri": "file://" + root, "rootPath": root,
                   "workspaceFolders": [{"uri": "file://" + root, "name": "bench"}],
                   "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True},
                                                     "synchronization": {"didSave": False},
                                                     "hover": {"contentFormat": ["markdown", "plaintext"]},
                                                     "codeAction": {"codeActionLiteralSupport": {
                                                         "codeActionKind": {"valueSet": ["quickfix"]}}}},
                                    "general": {"positionEncodings": ["utf-16"]}}}
    if a.init_options:
        init_params["initializationOptions"] = json.loads(a.init_options)
    iid = s.request("initialize", init_params)
    ms, init = s.wait(lambda m: m.get("id") == iid and "method" not in m, s.t_spawn)
    if ms is None:
        out["error"] = "no initialize response"
        print(json.dumps(out))
        s.p.kill()
        return 1
    out["initialize_ms"] = ms
    caps = init.get("result", {}).get("capabilities", {})
    sync = caps.get("textDocumentSync", 1)
    sync = sync.get("change", 1) if isinstance(sync, dict) else sync
    out["sync"] = {1: "full", 2: "incremental"}.get(sync, str(sync))
    s.notify("initialized", {})

    def published(version):
        def pred(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m.get("params", {})
            if p.get("uri") != uri:
                return False
            return version is None or p.get("version") in (None, version)
        return pred

    t0 = time.perf_counter()
    s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript",
                                                       "version": 1, "text": text}})
    ms, m = s.wait(published(None), t0)
    open_ok = ms is not None
    # a server that never publishes (e.g. a linter past its own timeout) still gets its round
    # trips and memory measured; the edits are skipped, as each would only time out
    out["open_ms"] = ms
    diags = m["params"].get("diagnostics", []) if m else []
    out["open_diagnostics"] = len(diags) if m else None
    if not open_ok:
        out["open_timeout_s"] = TIMEOUT[0]

    version = [1]
    cur = [lines[eline]]

    def edit(typing):
        version[0] += 1
        if sync == 2:
            rng = {"start": {"line": eline, "character": ecol},
                   "end": {"line": eline, "character": ecol + (0 if typing else 1)}}
            change = {"range": rng, "text": "7" if typing else ""}
        else:
            lines[eline] = cur[0][:echar] + ("7" if typing else "") + cur[0][echar:]
            change = {"text": "\n".join(lines)}
        t = time.perf_counter()
        s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version[0]},
                                            "contentChanges": [change]})
        ms, msg = s.wait(published(version[0]), t)
        return ms, msg

    lat, timeouts, last_count = [], 0, None
    for typing in (True, False) if open_ok else ():  # warm-up pair, untimed
        edit(typing)
    start = time.perf_counter()
    for i in range(a.edits if open_ok else 0):
        ms, msg = edit(i % 2 == 0)
        if ms is None:
            timeouts += 1
        else:
            lat.append(ms)
            last_count = len(msg["params"].get("diagnostics", []))
        if a.budget and time.perf_counter() - start > a.budget and i % 2 == 1:
            break
    out["change"] = stats(lat)
    out["change"]["timeouts"] = timeouts
    out["change_diagnostics"] = last_count

    hov, act = [], []
    dline = diags[0]["range"]["start"]["line"] if diags else eline
    ctx = [d for d in diags if d["range"]["start"]["line"] == dline]
    has_action = bool(caps.get("codeActionProvider"))
    for i in range(a.roundtrips):
        t = time.perf_counter()
        rid = s.request("textDocument/hover", {"textDocument": {"uri": uri},
                                               "position": {"line": eline, "character": hcol}})
        ms, _ = s.wait(lambda m: m.get("id") == rid and "method" not in m, t)
        if ms is not None:
            hov.append(ms)
        if has_action:
            t = time.perf_counter()
            rid = s.request("textDocument/codeAction", {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": dline, "character": 0}, "end": {"line": dline, "character": 0}},
                "context": {"diagnostics": ctx}})
            ms, _ = s.wait(lambda m: m.get("id") == rid and "method" not in m, t)
            if ms is not None:
                act.append(ms)
    out["hover"] = stats(hov)
    out["code_action"] = stats(act) if has_action else None
    spread = text.rfind('_ARGS[@]}"')
    sline = text.count("\n", 0, spread) if spread >= 0 else eline
    scol = utf16_col(lines[sline], spread - (text.rfind("\n", 0, spread) + 1)) if spread >= 0 else hcol
    doc = {"textDocument": {"uri": uri}}
    nav = [("definition", "definitionProvider", "textDocument/definition",
            dict(doc, position={"line": sline, "character": scol})),
           ("references", "referencesProvider", "textDocument/references",
            dict(doc, position={"line": sline, "character": scol}, context={"includeDeclaration": True})),
           ("inlay", "inlayHintProvider", "textDocument/inlayHint",
            dict(doc, range={"start": {"line": 0, "character": 0}, "end": {"line": len(lines), "character": 0}})),
           ("lens", "codeLensProvider", "textDocument/codeLens", doc)]
    for key, cap, method, params in nav:
        if not caps.get(cap):
            out[key] = None
            continue
        v, count = [], None
        for i in range(a.roundtrips):
            t = time.perf_counter()
            rid = s.request(method, params)
            ms, m = s.wait(lambda m: m.get("id") == rid and "method" not in m, t)
            if ms is not None:
                v.append(ms)
                res = m.get("result")
                count = len(res) if isinstance(res, list) else None
        out[key] = stats(v)
        out[key]["results"] = count
    st = s.proc_status()
    out["rss_kb"] = st.get("VmRSS")
    out["hwm_kb"] = st.get("VmHWM")
    out["cpu_ms"] = st.get("cpu_ms")
    sid = s.request("shutdown", None)
    s.wait(lambda m: m.get("id") == sid and "method" not in m, time.perf_counter())
    try:
        s.notify("exit", None)
        s.p.stdin.close()
    except OSError:
        pass
    try:
        out["exit_status"] = s.p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        s.p.kill()
        out["exit_status"] = "killed"
    print(json.dumps(out))
    # a clean session ends with exit status 0 (LSP: exit after shutdown)
    return 0 if open_ok and not timeouts and lat and out["exit_status"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
