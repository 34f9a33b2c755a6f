"""A minimal LSP client for the robustness tests: runs `perf-doctor lsp`, frames messages,
reads replies on a thread, and never blocks forever (every wait has a deadline).

Standard library only. stderr of the server goes to a file so that a chatty server can never
block on a full pipe; sanitizer_report() reads it back."""
import json, os, queue, subprocess, tempfile, threading, time


def frame(obj):
    body = json.dumps(obj, separators=(",", ":")).encode() if not isinstance(obj, bytes) else obj
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def is_sanitized(binary):
    """True when the binary was built with AddressSanitizer (RSS figures are then meaningless)."""
    with open(binary, "rb") as f:
        data = f.read()
    # clang links the runtime in (its messages are in the binary); gcc links libasan.so and
    # only the symbol names are.
    return any(k in data for k in (b"AddressSanitizer", b"__asan_init", b"libasan.so"))


SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "==ERROR")


class Server:
    def __init__(self, binary, cwd=None, env=None):
        self.errf = tempfile.NamedTemporaryFile(prefix="pd-lsp-stderr-", delete=False)
        e = dict(os.environ)
        e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        if env:
            e.update(env)
        self.p = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.errf, cwd=cwd, env=e)
        self.msgs = queue.Queue()
        self.seen = []          # every message received, in order
        self.next_id = 0
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self._read, daemon=True)
        self.t.start()

    # -- output side -------------------------------------------------------------------------
    def _read(self):
        f = self.p.stdout
        while True:
            n = None
            while True:
                line = f.readline()
                if not line:
                    self.msgs.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.partition(b":")
                if k.strip().lower() == b"content-length":
                    n = int(v)
            body = f.read(n) if n is not None else b""
            m = json.loads(body)
            with self.lock:
                self.seen.append(m)
            self.msgs.put(m)

    def wait_for(self, pred, timeout=30.0, what="a message"):
        """Returns the first message (received from now on) satisfying pred; raises on timeout
        or when the server's output ends first."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("no %s within %.0f s" % (what, timeout))
            try:
                m = self.msgs.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                self.msgs.put(None)
                raise EOFError("server output ended while waiting for %s" % what)
            if pred(m):
                return m

    def response(self, rid, timeout=30.0):
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m, timeout, "response %r" % rid)

    def publish(self, uri, version=None, timeout=60.0):
        def ok(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        return self.wait_for(ok, timeout, "diagnostics for %s v%s" % (uri, version))["params"]

    # -- input side --------------------------------------------------------------------------
    def raw(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def send(self, obj):
        self.raw(frame(obj))

    def notify(self, method, params):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:  # "params": null is not valid JSON-RPC 2.0
            msg["params"] = params
        self.send(msg)

    def request(self, method, params=None, send=True):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        if send:
            self.send(msg)
        return self.next_id

    def call(self, method, params=None, timeout=30.0):
        return self.response(self.request(method, params), timeout)

    def initialize(self, root_uri=None, caps=None):
        r = self.call("initialize", {"processId": None, "rootUri": root_uri, "capabilities": caps or {}})
        assert "result" in r, r
        self.notify("initialized", {})
        return r

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript",
                                                              "version": version, "text": text}})

    def change(self, uri, version, changes):
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": changes})

    def hover(self, uri, line, ch, timeout=30.0):
        return self.call("textDocument/hover", {"textDocument": {"uri": uri},
                                                "position": {"line": line, "character": ch}}, timeout)

    def shutdown_exit(self, timeout=60.0):
        r = self.call("shutdown", None, timeout)
        assert r.get("result", "missing") is None, r
        self.notify("exit", None)
        return self.wait(timeout)

    def close_input(self):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass

    def wait(self, timeout=60.0):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise TimeoutError("server did not stop within %.0f s" % timeout)

    def rss_kb(self, field="VmRSS"):
        with open("/proc/%d/status" % self.p.pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        return -1

    def stderr_text(self):
        self.errf.flush()
        with open(self.errf.name, "rb") as f:
            return f.read().decode(errors="replace")

    def sanitizer_report(self):
        """The sanitizer report in the server's stderr, or '' when there is none."""
        t = self.stderr_text()
        for mark in SANITIZER_MARKS:
            i = t.find(mark)
            if i >= 0:
                return t[i:i + 4000]
        return ""

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def cleanup(self):
        self.kill()
        try:
            os.unlink(self.errf.name)
        except OSError:
            pass


class TextModel:
    """The document as the client sees it (ASCII only, so UTF-16 units are bytes)."""
    def __init__(self, text):
        self.t = text

    def pos(self, off):
        line = self.t.count("\n", 0, off)
        start = self.t.rfind("\n", 0, off) + 1
        return {"line": line, "character": off - start}

    def edit(self, a, b, ins):
        ch = {"range": {"start": self.pos(a), "end": self.pos(b)}, "text": ins}
        self.t = self.t[:a] + ins + self.t[b:]
        return ch


FRAGS = [" ", "x", "\n", "# note\n", "--foo 1 ", "\"", "$", "(", ")", "   --sequence-parallel \\\n", "{", "'"]


def random_edit(rng, model, target_len):
    n = len(model.t)
    if n > target_len * 1.2 or (n > target_len * 0.8 and rng.random() < 0.5):
        a = rng.randrange(n + 1)
        return model.edit(a, min(n, a + rng.randrange(1, 12)), "")
    a = rng.randrange(n + 1)
    return model.edit(a, a, rng.choice(FRAGS))
