#!/usr/bin/env python3
"""The long editing session (issue 6): EDITS incremental edits across 20 open documents in one
`perf-doctor lsp` process, with hovers and code actions in between.

    test_long_session.py PERF_DOCTOR TESTS_DIR [EDITS=100000] [BATCH=50]

Each document gets BATCH edits in a row, then the client waits for the diagnostics of its last
version (so each batch is analysed once, as when a user types and pauses). Checked:
  - every document's last published diagnostics equal a fresh server's for the final text
    (spot-checked on 4 documents: nothing lost, nothing applied twice);
  - shutdown + exit gives status 0, and the server's stderr holds no sanitizer report (run the
    ASan build of the binary for LeakSanitizer's verdict at exit);
  - resident memory is flat: VmRSS after the whole session is within 6 MiB of its value after
    the first fifth (not checked for a sanitized binary, whose allocator quarantines freed
    memory). The samples are printed."""
import json, os, random, shutil, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lspclient import Server, TextModel, is_sanitized, random_edit  # noqa: E402

BIN, TESTS = sys.argv[1], sys.argv[2]
EDITS = int(sys.argv[3]) if len(sys.argv) > 3 else 100000
BATCH = int(sys.argv[4]) if len(sys.argv) > 4 else 50
NDOCS = 20
SANITIZED = is_sanitized(BIN)


def fresh(text, u, root):
    s = Server(BIN)
    try:
        s.initialize("file://" + root)
        s.open(u, text)
        p = s.publish(u, 1, 120)
        s.shutdown_exit()
        assert not s.sanitizer_report(), s.sanitizer_report()
        return p["diagnostics"]
    finally:
        s.cleanup()


def main():
    rng = random.Random(100000)
    ws = tempfile.mkdtemp(prefix="pd-long-")
    shutil.copytree(os.path.join(TESTS, "lsp/fixtures/ws"), ws, dirs_exist_ok=True)
    src = os.path.join(ws, "scripts/training/text/run-qwen3-4B-8xgpu.sh")
    text = open(src).read()
    docs = []
    for i in range(NDOCS):
        p = os.path.join(ws, "scripts/training/text/run-qwen3-4B-8xgpu-s%02d.sh" % i)
        shutil.copy(src, p)
        docs.append({"uri": "file://" + p, "model": TextModel(text), "version": 1, "last": None})
    s = Server(BIN)
    failures = []
    try:
        s.initialize("file://" + ws, {"textDocument": {"publishDiagnostics": {"relatedInformation": True}}})
        for d in docs:
            s.open(d["uri"], text)
        for d in docs:
            d["last"] = s.publish(d["uri"], 1, 120)
        samples = [(0, s.rss_kb())]
        t0 = time.monotonic()
        done, nreq = 0, 0
        next_sample = EDITS // 10
        while done < EDITS:
            d = docs[(done // BATCH) % NDOCS]
            n = min(BATCH, EDITS - done)
            for _ in range(n):
                d["version"] += 1
                s.change(d["uri"], d["version"], [random_edit(rng, d["model"], len(text))])
            done += n
            d["last"] = s.publish(d["uri"], d["version"], 120)
            if (done // BATCH) % 7 == 0:  # a hover and a code action now and then
                line = rng.randrange(d["model"].t.count("\n") + 1)
                r = s.hover(d["uri"], line, rng.randrange(40), 60)
                if "error" in r:
                    failures.append("hover error: %r" % r)
                r = s.call("textDocument/codeAction", {"textDocument": {"uri": d["uri"]},
                           "range": {"start": {"line": line, "character": 0}, "end": {"line": line + 3, "character": 0}},
                           "context": {"diagnostics": []}}, 60)
                if "error" in r:
                    failures.append("codeAction error: %r" % r)
                nreq += 2
            if done >= next_sample:
                samples.append((done, s.rss_kb()))
                next_sample += EDITS // 10
        dt = time.monotonic() - t0
        peak = s.rss_kb("VmHWM")
        print("long_session: %d edits over %d documents in %.1f s (%.0f edits/s), %d requests" % (EDITS, NDOCS, dt, EDITS / dt, nreq))
        print("long_session: VmRSS (MiB) by edits: " + ", ".join("%d:%.1f" % (k, v / 1024) for k, v in samples)
              + "; peak %.1f MiB%s" % (peak / 1024, " (sanitized build: not judged)" if SANITIZED else ""))
        rc = s.shutdown_exit(120)
        if rc != 0:
            failures.append("exit status %r" % rc)
        rep = s.sanitizer_report()
        if rep:
            failures.append("sanitizer report:\n" + rep)
        if not SANITIZED:
            base = [v for k, v in samples if k >= EDITS // 5][0]
            growth = samples[-1][1] - base
            print("long_session: RSS growth from %d edits to the end: %+.2f MiB" % (EDITS // 5, growth / 1024))
            if growth > 6 * 1024:
                failures.append("resident memory grew by %.1f MiB after the first fifth" % (growth / 1024))
        for d in rng.sample(docs, 4):
            ref = fresh(d["model"].t, d["uri"], ws)
            key = lambda x: json.dumps(x, sort_keys=True)
            if sorted(map(key, d["last"]["diagnostics"])) != sorted(map(key, ref)):
                failures.append("%s: final diagnostics differ from a fresh analysis of the final text" % d["uri"])
    finally:
        s.cleanup()
        shutil.rmtree(ws)
    for f in failures:
        print("FAIL " + f)
    print("PASS long_session" if not failures else "FAIL long_session")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
