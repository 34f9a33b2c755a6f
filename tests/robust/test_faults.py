#!/usr/bin/env python3
"""Fault injection through the real binary (issue 6).

    test_faults.py PERF_DOCTOR TESTS_DIR HTA_DIR TEST...

Each TEST is one function below (ctest runs one per process). A test passes when the documented
behaviour holds (error reply / message naming the file, the server still answering, nothing
lost from the other inputs) and the server's stderr holds no sanitizer report. Exit 0 = pass,
1 = fail, 77 = skipped (a precondition of this machine is missing)."""
import gzip, json, os, resource, shutil, stat, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Server, TextModel, frame, is_sanitized, random_edit  # noqa: E402

BIN, TESTS, HTA = sys.argv[1], sys.argv[2], sys.argv[3]
SANITIZED = is_sanitized(BIN)
WS_FIXTURE = os.path.join(TESTS, "lsp/fixtures/ws")
SCRIPT_REL = "scripts/training/text/run-qwen3-4B-8xgpu.sh"
MODEL_REL = "scripts/models/qwen3-4B.sh"


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def uri(path):
    return "file://" + path


def workspace():
    d = tempfile.mkdtemp(prefix="pd-robust-")
    shutil.copytree(WS_FIXTURE, d, dirs_exist_ok=True)
    return d


def clean(srv):
    rep = srv.sanitizer_report()
    check(not rep, "sanitizer report in the server's stderr:\n" + rep)


def messages(diags):
    return [d["message"] for d in diags["diagnostics"]]


# ---- framing faults -------------------------------------------------------------------------

def eof_in_body():
    """The client disappears in the middle of a body, and in the middle of a header: the server
    answers what it had, stops with status 1 (no exit notification), and does not crash."""
    for cut in (b'Content-Length: 500\r\n\r\n{"jsonrpc":"2.0","id":2,"meth', b"Content-Len", b"Content-Length: 12\r\n"):
        s = Server(BIN)
        try:
            s.initialize()
            s.raw(cut)
            s.close_input()
            rc = s.wait(30)
            check(rc == 1, "status %r after EOF inside a message (want 1)" % rc)
            check(not any(m.get("id") == 2 for m in s.seen), "a reply to the cut request")
            clean(s)
        finally:
            s.cleanup()


def huge_message():
    """A 100 MB message (over the 64 MiB limit) is refused with an error reply, read and dropped
    without being held in memory, and the next request is answered."""
    d = workspace()
    s = Server(BIN)
    try:
        s.initialize(uri(d))
        n = 100 * 1000 * 1000
        head = b'{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///big.sh","languageId":"shellscript","version":1,"text":"'
        tail = b'"}}}'
        t0 = time.monotonic()
        s.raw(b"Content-Length: %d\r\n\r\n" % n + head)
        chunk = b"# " + b"x" * (1 << 20) + b"\\n"
        left = n - len(head) - len(tail)
        while left > 0:
            c = chunk[:left] if left < len(chunk) else chunk
            s.raw(c)
            left -= len(c)
        s.raw(tail)
        rid = s.request("textDocument/hover", {"textDocument": {"uri": "file:///big.sh"}, "position": {"line": 0, "character": 0}})
        err = s.wait_for(lambda m: "error" in m and m.get("id") is None, 120, "the too-large error")
        check(err["error"]["code"] == -32600 and "exceeds the limit" in err["error"]["message"]
              and str(n) in err["error"]["message"], "error reply: %r" % err)
        r = s.response(rid, 60)
        check(r.get("result", "missing") is None, "hover on the refused document: %r" % r)  # not open
        hwm = s.rss_kb("VmHWM")
        print("huge_message: 100 MB refused in %.1f s, server peak RSS %.1f MB" % (time.monotonic() - t0, hwm / 1024))
        if not SANITIZED:
            check(hwm < 64 * 1024, "peak RSS %d kB while dropping a 100 MB body (want < 64 MB)" % hwm)
        # the server still works
        p = os.path.join(d, SCRIPT_REL)
        s.open(uri(p), open(p).read())
        s.publish(uri(p), 1)
        check(s.shutdown_exit() == 0, "exit status after shutdown")
        clean(s)
    finally:
        s.cleanup()
        shutil.rmtree(d)


def wrong_content_length():
    """Content-Length shorter or longer than the body, not a number, negative, absurd: each is
    answered with an error, the reader resynchronises, and the request after it is answered."""
    cases = {
        "short": lambda body: b"Content-Length: %d\r\n\r\n" % (len(body) - 15) + body,
        "long": lambda body: b"Content-Length: %d\r\n\r\n" % (len(body) + 40) + body,
        "text": lambda body: b"Content-Length: twelve\r\n\r\n" + body,
        "negative": lambda body: b"Content-Length: -5\r\n\r\n" + body,
        "absurd": lambda body: b"Content-Length: 99999999999999999999999\r\n\r\n" + body,
        "missing": lambda body: b"Content-Type: application/vscode-jsonrpc\r\n\r\n" + body,
    }
    for name, make in cases.items():
        s = Server(BIN)
        try:
            s.initialize()
            bad = json.dumps({"jsonrpc": "2.0", "id": 50, "method": "textDocument/hover",
                              "params": {"textDocument": {"uri": "file:///x.sh"}, "position": {"line": 0, "character": 0}}}).encode()
            s.raw(make(bad))
            # The next messages: the first may be swallowed by a too-long body; the later ones
            # must come through.
            ids = [s.request("shutdown", send=False) for _ in range(3)]
            for i in ids[:-1]:
                s.send({"jsonrpc": "2.0", "id": i, "method": "perfDoctor/unknown"})
            s.send({"jsonrpc": "2.0", "id": ids[-1], "method": "shutdown"})
            r = s.response(ids[-1], 30)
            check(r.get("result", "missing") is None, "%s: shutdown after the bad message: %r" % (name, r))
            errs = [m for m in s.seen if "error" in m and m.get("id") in (None, 50)]
            check(errs, "%s: no error reply for the bad message" % name)
            check(all(m["error"]["code"] in (-32700, -32600) for m in errs), "%s: error codes %r" % (name, errs))
            check(not any(m.get("id") == 50 and "result" in m for m in s.seen), "%s: the bad message was answered as valid" % name)
            s.notify("exit", None)
            check(s.wait(30) == 0, "%s: exit status" % name)
            clean(s)
        finally:
            s.cleanup()


def after_shutdown():
    """After shutdown: requests get InvalidRequest, notifications are dropped (no diagnostics),
    a second shutdown is an error too, and exit gives status 0."""
    d = workspace()
    s = Server(BIN)
    try:
        s.initialize(uri(d))
        p = os.path.join(d, SCRIPT_REL)
        s.open(uri(p), open(p).read())
        s.publish(uri(p), 1)
        r = s.call("shutdown")
        check(r.get("result", "missing") is None, "shutdown: %r" % r)
        r = s.hover(uri(p), 10, 3)
        check(r.get("error", {}).get("code") == -32600, "hover after shutdown: %r" % r)
        s.change(uri(p), 2, [{"text": "echo hi\n"}])
        r = s.call("shutdown")
        check(r.get("error", {}).get("code") == -32600, "second shutdown: %r" % r)
        r = s.call("initialize", {"capabilities": {}})
        check(r.get("error", {}).get("code") == -32600, "initialize after shutdown: %r" % r)
        s.notify("exit", None)
        check(s.wait(30) == 0, "exit status after shutdown + exit")
        check(not any(m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 2
                      for m in s.seen), "a didChange after shutdown was analysed")
        clean(s)
    finally:
        s.cleanup()
        shutil.rmtree(d)


# ---- edit flood -----------------------------------------------------------------------------

def fresh_diagnostics(text, u, root):
    """Diagnostics a new server publishes for `text` opened at version 1 (the reference)."""
    s = Server(BIN)
    try:
        s.initialize(uri(root))
        s.open(u, text)
        p = s.publish(u, 1, 120)
        s.shutdown_exit()
        clean(s)
        return p["diagnostics"]
    finally:
        s.cleanup()


def flood_did_change():
    """10,000 didChange notifications sent without waiting: the last version is published, with
    exactly the diagnostics a fresh server gives for the final text (no edit lost or reordered),
    and superseded versions are mostly not analysed."""
    import random
    rng = random.Random(10000)
    d = workspace()
    p = os.path.join(d, SCRIPT_REL)
    text = open(p).read()
    model = TextModel(text)
    s = Server(BIN)
    try:
        s.initialize(uri(d))
        u = uri(p)
        s.open(u, text)
        s.publish(u, 1)
        msgs = []
        for v in range(2, 10002):
            changes = [random_edit(rng, model, len(text))]
            msgs.append(frame({"jsonrpc": "2.0", "method": "textDocument/didChange",
                               "params": {"textDocument": {"uri": u, "version": v}, "contentChanges": changes}}))
        t0 = time.monotonic()
        w = threading.Thread(target=lambda: s.raw(b"".join(msgs)))
        w.start()
        last = s.publish(u, 10001, 300)
        dt = time.monotonic() - t0
        w.join(60)
        rid = s.hover(u, 0, 0)
        check("error" not in rid, "hover after the flood: %r" % rid)
        pubs = [m for m in s.seen if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u]
        versions = [m["params"]["version"] for m in pubs]
        check(versions == sorted(versions), "publishes out of order: %r" % versions[:50])
        print("flood_did_change: 10,000 edits applied and published in %.2f s; %d publishes (versions %s..%s)"
              % (dt, len(pubs), versions[0], versions[-1]))
        check(len(pubs) < 2000, "%d publishes for 10,000 queued edits (superseded analyses should be skipped)" % len(pubs))
        check(s.shutdown_exit() == 0, "exit status")
        clean(s)
        ref = fresh_diagnostics(model.t, u, d)
        key = lambda x: json.dumps(x, sort_keys=True)
        check(sorted(map(key, last["diagnostics"])) == sorted(map(key, ref)),
              "diagnostics after the flood differ from a fresh analysis of the final text:\n%s\n---\n%s"
              % (json.dumps(last["diagnostics"])[:1500], json.dumps(ref)[:1500]))
    finally:
        s.cleanup()
        shutil.rmtree(d)


# ---- files changing under the server ----------------------------------------------------------

def sourced_config_vanishes():
    """The model config a script sources is deleted, made unreadable (a directory in its place;
    chmod 000 when not root), replaced by a FIFO, then restored, while the script is open: the
    diagnostics name the file and say why, the server keeps answering, and restoring it brings
    the findings back."""
    d = workspace()
    p, mc = os.path.join(d, SCRIPT_REL), os.path.join(d, MODEL_REL)
    u, mu = uri(p), uri(mc)
    saved = open(mc).read()
    s = Server(BIN)

    def watched(kind):
        s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": mu, "type": kind}]})
        return s.publish(u, None, 60)

    def hover_ok():
        r = s.hover(u, 20, 5, 30)
        check("error" not in r, "hover: %r" % r)

    try:
        s.initialize(uri(d))
        s.open(u, open(p).read())
        base = s.publish(u, 1)
        check(not any("qwen3-4B.sh" in m for m in messages(base)), "a problem with the config before the fault: %r" % messages(base))
        os.unlink(mc)
        pd_ = watched(3)
        m = [x for x in messages(pd_) if "qwen3-4B.sh" in x]
        check(m and ("No such file" in m[0] or "cannot read" in m[0]), "after deletion: %r" % messages(pd_))
        hover_ok()
        if os.geteuid() != 0:
            with open(mc, "w") as f:
                f.write(saved)
            os.chmod(mc, 0)
            pd_ = watched(2)
            m = [x for x in messages(pd_) if "qwen3-4B.sh" in x]
            check(m and "ermission denied" in m[0], "after chmod 000: %r" % messages(pd_))
            os.unlink(mc)
        os.mkdir(mc)
        pd_ = watched(1)
        m = [x for x in messages(pd_) if "qwen3-4B.sh" in x]
        check(m and ("directory" in m[0] or "cannot read" in m[0]), "with a directory in its place: %r" % messages(pd_))
        hover_ok()
        os.rmdir(mc)
        os.mkfifo(mc)
        t0 = time.monotonic()
        pd_ = watched(1)  # must not block on the FIFO (nobody will ever write it)
        m = [x for x in messages(pd_) if "qwen3-4B.sh" in x]
        check(m, "with a FIFO in its place: %r" % messages(pd_))
        check(time.monotonic() - t0 < 20, "FIFO took %.1f s" % (time.monotonic() - t0))
        hover_ok()
        os.unlink(mc)
        with open(mc, "w") as f:
            f.write(saved)
        pd_ = watched(1)
        check(sorted(messages(pd_)) == sorted(messages(base)), "after restoring: %r vs %r" % (messages(pd_), messages(base)))
        # Open in the editor and deleted on disk: the buffer is what the script sources.
        s.open(mu, saved)
        os.unlink(mc)
        s.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": mu, "type": 3}]})
        s.change(u, 2, [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}])
        pd_ = s.publish(u, 2)
        check(not any("cannot read" in x for x in messages(pd_)), "open buffer ignored: %r" % messages(pd_))
        check(s.shutdown_exit() == 0, "exit status")
        clean(s)
    finally:
        s.cleanup()
        shutil.rmtree(d, ignore_errors=True)


# ---- traces -----------------------------------------------------------------------------------

def run(args, timeout=300):
    e = dict(os.environ)
    e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    t0 = time.monotonic()
    r = subprocess.run([BIN] + args, capture_output=True, timeout=timeout, env=e)
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    out, err = r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")
    for mark in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
        check(mark not in err, "sanitizer report from %s:\n%s" % (" ".join(args), err[:3000]))
    return r.returncode, out, err, time.monotonic() - t0, ru.ru_maxrss


def trace_folder_faults():
    """A folder of two good rank traces, one truncated and one file that is not a trace: the
    summary covers the good ranks exactly as when they are alone, names each bad file with the
    reason, and the status says that some files failed (1)."""
    src = os.path.join(HTA, "hta-trace-filter-2rank")
    if not os.path.isdir(src):
        raise AssertionError("%s is missing from the repository" % src)
    d = tempfile.mkdtemp(prefix="pd-robust-trace-")
    good = os.path.join(d, "good")
    os.mkdir(good)
    try:
        for f in sorted(os.listdir(src)):
            shutil.copy(os.path.join(src, f), good)
        rc0, ref, err0, _, _ = run(["trace", good, "--format", "json"])
        check(rc0 == 0, "good folder: status %d: %s" % (rc0, err0))
        mixed = os.path.join(d, "mixed")
        shutil.copytree(good, mixed)
        raw = gzip.decompress(open(os.path.join(src, "sampled_rank-1.json.gz"), "rb").read())
        with open(os.path.join(mixed, "rank-2-truncated.json"), "wb") as f:
            f.write(raw[: len(raw) // 2])
        with open(os.path.join(mixed, "notes.json"), "w") as f:
            json.dump({"comment": "not a trace", "items": [1, 2, 3]}, f)
        with open(os.path.join(mixed, "cut.json.gz"), "wb") as f:
            f.write(gzip.compress(raw)[:5000])
        rc, out, err, dt, _ = run(["trace", mixed, "--format", "json"])
        check(rc == 1, "mixed folder: status %d (want 1: some files failed); stderr %s" % (rc, err[:500]))
        j, jr = json.loads(out), json.loads(ref)
        text = out + err
        for bad in ("rank-2-truncated.json", "notes.json", "cut.json.gz"):
            check(bad in text, "%s not named in the output" % bad)
        check("truncated" in text or "ends" in text or "unexpected end" in text, "no reason for the truncated file")
        # Nothing lost from the good inputs: each good rank's entry is identical.
        def ranks(doc):
            rs = doc.get("ranks") or []
            return {os.path.basename(r.get("file", "")): r for r in rs if not r.get("error")}
        gr, mr = ranks(jr), ranks(j)
        check(gr and set(gr) <= set(mr), "good ranks %r missing from %r" % (sorted(gr), sorted(mr)))
        for k in gr:
            a, b = dict(gr[k]), dict(mr[k])
            a.pop("file", None), b.pop("file", None)
            check(a == b, "rank %s differs when bad files are present" % k)
        print("trace_folder_faults: %d good ranks unchanged, 3 bad files named, %.1f s" % (len(gr), dt))
    finally:
        shutil.rmtree(d)


# ---- limits -----------------------------------------------------------------------------------

def script_size_limit():
    """A script or a sourced file over 16 MiB is refused with a message saying so; nothing is
    analysed from it, and the rest of the input still is."""
    d = tempfile.mkdtemp(prefix="pd-robust-limit-")
    try:
        big = os.path.join(d, "run-qwen3-4B-8xgpu.sh")
        with open(big, "w") as f:
            line = "# " + "x" * 1000 + "\n"
            for _ in range(17 * 1024):
                f.write(line)
        small = os.path.join(d, "run-qwen3-4B-2xgpu.sh")
        shutil.copy(os.path.join(TESTS, "fixtures/audit/scripts/training/text/run-qwen3-4B-2xgpu.sh"), small)
        rc, out, err, dt, rss = run(["check", big, small, "--format", "json"], 120)
        check(rc == 2, "check on a 17 MiB script: status %d" % rc)
        check("too large" in err.lower() and "run-qwen3-4B-8xgpu.sh" in err, "check's message: %r" % err[:300])
        check("run-qwen3-4B-2xgpu.sh" in out, "the other script was not reported")
        rc, out, err, dt, rss = run(["context", big], 120)
        check(rc != 0 and "16 MiB" in err, "context on a 17 MiB script: %d %r" % (rc, err[:300]))
        # A sourced model config over the limit.
        ws = workspace()
        mc = os.path.join(ws, MODEL_REL)
        with open(mc, "a") as f:
            for _ in range(17 * 1024):
                f.write(line)
        rc, out, err, dt, rss = run(["context", os.path.join(ws, SCRIPT_REL), "--format", "json"], 120)
        check("qwen3-4B.sh" in out and "too large" in out, "sourced 17 MiB config: %s" % out[:800])
        shutil.rmtree(ws)
        print("script_size_limit: 17 MiB script refused by check and context; 17 MiB sourced config refused")
    finally:
        shutil.rmtree(d)


def trace_event_limit():
    """A trace whose single event is larger than the reader's window (here a 300 MB name,
    compressed to well under 1 MB) is refused with a message naming the file and the offset,
    with bounded memory."""
    d = tempfile.mkdtemp(prefix="pd-robust-tevent-")
    try:
        p = os.path.join(d, "huge_event.json.gz")
        with gzip.open(p, "wb", compresslevel=1) as f:
            f.write(b'{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "')
            chunk = b"a" * (1 << 20)
            for _ in range(300):
                f.write(chunk)
            f.write(b'", "ts": 1, "dur": 1, "pid": 0, "tid": 0}]}')
        rc, out, err, dt, rss = run(["trace", p], 300)
        check(rc == 2, "status %d (want 2: nothing could be read)" % rc)
        check("huge_event.json.gz" in err and "larger than" in err, "message: %r" % err[:400])
        print("trace_event_limit: 300 MB event refused in %.1f s, peak RSS %.0f MB: %s" % (dt, rss / 1024, err.strip()[:200]))
        if not SANITIZED:
            check(rss < 800 * 1024, "peak RSS %d kB" % rss)
    finally:
        shutil.rmtree(d)


def source_following():
    """`source` never leaves the workspace (also not through a symlink) and never loops: a
    script that sources itself, two that source each other, and a fan-out that would source
    10^8 files if every path were followed all finish quickly with a condition saying why."""
    ws = tempfile.mkdtemp(prefix="pd-robust-src-")
    outside = tempfile.mkdtemp(prefix="pd-robust-outside-")
    try:
        with open(os.path.join(outside, "secret.sh"), "w") as f:
            f.write("MODEL_ARGS=(--num-layers 99)\n")
        os.symlink(os.path.join(outside, "secret.sh"), os.path.join(ws, "link.sh"))
        files = {
            # each starts a launch script (it has a flag array): others get no diagnostics at all
            "self.sh": 'source "./self.sh"\nsource "${BASH_SOURCE[0]}"\nX_ARGS=(--seed 1)\n',
            "a.sh": "source ./b.sh\nA=1\nX_ARGS=(--seed 1)\n",
            "b.sh": "source ./a.sh\nB=1\n",
            "out.sh": "source %s/secret.sh\nsource ./link.sh\nX_ARGS=(--seed 1)\n" % outside,
        }
        for i in range(12):  # f0 sources f1 ten times, f1 sources f2 ten times, ...
            files["f%d.sh" % i] = "".join("source ./f%d.sh\n" % (i + 1) for _ in range(10))
        files["f0.sh"] += "X_ARGS=(--seed 1)\n"
        for k, v in files.items():
            with open(os.path.join(ws, k), "w") as f:
                f.write(v)
        runs = [("self.sh", ("sources itself",)), ("a.sh", ("sources itself",)),
                ("out.sh", ("outside the workspace",)), ("f0.sh", ("more than 64 files sourced",))]
        s = Server(BIN)
        try:
            s.initialize(uri(ws))
            for name, want in runs:
                u = uri(os.path.join(ws, name))
                t0 = time.monotonic()
                start = len(s.seen)
                s.open(u, files[name])
                s.publish(u, 1, 60)
                dt = time.monotonic() - t0
                s.hover(u, 0, 0)  # everything the analysis published comes before this reply
                # Conditions sit where the `source` is: in the file that sources (maybe not u).
                ms = [d["message"] for m in s.seen[start:] if m.get("method") == "textDocument/publishDiagnostics"
                      for d in m["params"]["diagnostics"]]
                check(all(any(w in m for m in ms) for w in want), "%s: diagnostics %r (want %r)" % (name, ms, want))
                check(dt < 10, "%s took %.1f s" % (name, dt))
                if name == "out.sh":
                    check(sum("outside the workspace" in m for m in ms) == 2, "%s: symlink followed out of the workspace: %r" % (name, ms))
                    check(not any("99" in m for m in ms), "secret.sh was read: %r" % ms)
                print("source_following: %s: %.2f s, %s" % (name, dt, [m for m in ms if any(w in m for w in want)][:2]))
                s.notify("textDocument/didClose", {"textDocument": {"uri": u}})
            check(s.shutdown_exit() == 0, "exit status")
            clean(s)
        finally:
            s.cleanup()
        # The CLI (no workspace): still no loop, and no exponential fan-out.
        rc, out, err, dt, _ = run(["context", os.path.join(ws, "f0.sh"), "--format", "json"], 60)
        check(dt < 20, "context f0.sh took %.1f s" % dt)
        n = len(json.loads(out).get("files", []))
        check(n <= 64, "context f0.sh read %d files" % n)
    finally:
        shutil.rmtree(ws)
        shutil.rmtree(outside)


TESTS_BY_NAME = {f.__name__: f for f in (eof_in_body, huge_message, wrong_content_length, after_shutdown,
                                          flood_did_change, sourced_config_vanishes, trace_folder_faults,
                                          script_size_limit, trace_event_limit, source_following)}

if __name__ == "__main__":
    names = sys.argv[4:] or list(TESTS_BY_NAME)
    status = 0
    for n in names:
        t0 = time.monotonic()
        try:
            TESTS_BY_NAME[n]()
            print("PASS %s (%.1f s)" % (n, time.monotonic() - t0))
        except Skip as e:
            print("SKIP %s: %s" % (n, e))
            status = status or 77
        except Exception as e:  # noqa: BLE001 - report any failure with its text
            import traceback
            traceback.print_exc()
            print("FAIL %s: %s" % (n, e))
            status = 1
    sys.exit(status if status != 77 or len(names) == 1 else 0)
