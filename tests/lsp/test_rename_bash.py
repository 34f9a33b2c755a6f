#!/usr/bin/env python3
"""Bad input for the editor features (issue 25), through the real server (bench/lsp_drive.py's
Server).

1. Rename never produces a script bash rejects: on every launch script and model config of the
   fixture trees (and a generated 800-line script with functions, case, loops and heredocs), at
   seeded random places where a variable, array or function name is written, textDocument/rename
   to seeded random names (fresh ones, names the script already uses, bash's reserved words and
   special variables, words that are not names). Every edit the server answers is applied to its
   file and the result given to `bash -n`: it must accept every one (each original is accepted).
   An accepted rename also replaces exactly the old name, with a valid new one (not a reserved
   word for a function; bash takes `do=1` as a variable), in every edit; a refusal is an error with a reason (RequestFailed or InvalidParams), never an
   internal error.
2. Every new request on a stale or half-typed document answers: seeded random edits (cuts,
   deletions, quotes, parentheses, reserved words, heredoc markers inserted) sent one after the
   other without waiting for the diagnostics; after each, definition, references, documentSymbol,
   prepareRename, rename, inlayHint and codeLens at random places (some past the end of the text,
   some computed on the text before the edit). Each must answer with a result (null or empty
   allowed); the only errors allowed are rename / prepareRename refusals with a reason (the
   editor shows it); no window/showMessage.

usage: test_rename_bash.py PERF_DOCTOR [RENAMES] [EDITS]"""
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import lsp_drive  # noqa: E402

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
            "in", "function", "time", "coproc"}
SPECIAL = ["PATH", "HOME", "IFS", "BASH_SOURCE", "RANDOM", "LINENO", "PWD", "SECONDS", "FUNCNAME", "BASH"]
NOT_NAMES = ["1abc", "a-b", "a b", "$x", "", "x=", "a.b", "${x}", "x'y", "ü", "a\nb", "*", "@", "9", "a;b", "a)b"]
PLACES = [re.compile(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)"),          # uses: $X ${X} ${#X[@]} ${!X}
          re.compile(r"^\s*(?:local\s+|export\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_][A-Za-z0-9_]*)\+?=", re.M),
          re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\)", re.M),  # function definitions
          re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$", re.M)]     # a bare word: maybe a function call
TOKENS = ['"', "'", "(", ")", "{", "}", "[", "]", "fi", "done", "then", "do", "esac", "$(", "${", "`", ";", ";;",
          "&&", "|", "if ", "for x in a; do ", "case x in ", "\n", "<<EOF\n", "EOF\n", "=(", "+=(", "\\"]


def bash_ok(text, tmpdir):
    path = os.path.join(tmpdir, "t.sh")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return subprocess.run(["bash", "-n", path], capture_output=True).returncode == 0


def offset_of(text, line, u16col):
    """Character offset of an LSP (line, UTF-16 column) position in text."""
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    s = starts[min(line, len(starts) - 1)]
    end = text.find("\n", s)
    end = len(text) if end < 0 else end
    n = 0
    i = s
    while i < end and n < u16col:
        n += 2 if ord(text[i]) > 0xFFFF else 1
        i += 1
    return i


def position(text, off):
    line = text.count("\n", 0, off)
    ls = text.rfind("\n", 0, off) + 1
    return {"line": line, "character": lsp_drive.utf16_col(text[ls:], off - ls)}


def apply_edits(text, edits):
    spans = sorted(((offset_of(text, e["range"]["start"]["line"], e["range"]["start"]["character"]),
                     offset_of(text, e["range"]["end"]["line"], e["range"]["end"]["character"]), e["newText"])
                    for e in edits), reverse=True)
    for a, b, t in spans:
        text = text[:a] + t + text[b:]
    return text


def uri_path(uri):
    from urllib.parse import unquote, urlparse
    return unquote(urlparse(uri).path)


class Client:
    def __init__(self, pd, root):
        self.s = lsp_drive.Server([pd, "lsp"], {}, root)
        self.messages = []
        iid = self.s.request("initialize", {
            "processId": os.getpid(), "rootUri": "file://" + root,
            "workspaceFolders": [{"uri": "file://" + root, "name": "t"}],
            "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True},
                                              "rename": {"prepareSupport": True}},
                             "general": {"positionEncodings": ["utf-16"]}}})
        if self.call_wait(iid) is None:
            raise SystemExit("FAIL: no initialize reply")
        self.s.notify("initialized", {})

    def call_wait(self, iid, timeout=20.0):
        deadline = time.perf_counter() + timeout
        while True:
            m = self.s.recv(deadline)
            if m is None:
                return None
            if m.get("method") == "window/showMessage":
                self.messages.append(m["params"].get("message", ""))
            if m.get("id") == iid and "method" not in m:
                return m

    def call(self, method, params):
        return self.call_wait(self.s.request(method, params))

    def close(self):
        iid = self.s.request("shutdown", None)
        self.call_wait(iid)
        self.s.notify("exit", None)
        try:
            return self.s.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.s.p.kill()
            return -1


def fixture_roots(tmp):
    """(root, [script paths to open]) for each fixture tree, and a generated large script."""
    out = []
    for root in [os.path.join(ROOT, "tests/fixtures/audit"), os.path.join(ROOT, "tests/lsp/fixtures/ws"),
                 os.path.join(ROOT, "tests/editors/fixtures")]:
        files = sorted(glob.glob(os.path.join(root, "scripts/training/**/*.sh"), recursive=True) +
                       glob.glob(os.path.join(root, "scripts/models/*.sh")))
        out.append((root, files))
    gen = os.path.join(tmp, "gen")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench/gen_scripts.py"), "script", "--lines", "800",
                    "--out", gen], check=True, stdout=subprocess.DEVNULL)
    out.append((gen, sorted(glob.glob(os.path.join(gen, "scripts/**/*.sh"), recursive=True))))
    return out


def places(text):
    out = []
    for rx in PLACES:
        for m in rx.finditer(text):
            out.append((m.start(1), m.group(1)))
    return out


def new_name(rng, used):
    r = rng.random()
    if r < 0.45:
        return rng.choice(["X", "NEW_", "a", "_", "v"]) + "".join(
            rng.choice("ABCXYZ_019abz") for _ in range(rng.randint(0, 8)))
    if r < 0.65 and used:
        return rng.choice(sorted(used))
    if r < 0.8:
        return rng.choice(sorted(RESERVED) + SPECIAL)
    return rng.choice(NOT_NAMES)


def rename_property(pd, n_renames, rng, tmp):
    stats = {"asked": 0, "accepted": 0, "refused": 0, "no_place": 0, "files_checked": 0}
    failures = []
    roots = fixture_roots(tmp)
    budget = {}
    total = sum(len(f) for _, f in roots)
    for root, files in roots:
        c = Client(pd, root)
        texts = {}
        for p in files:
            with open(p, encoding="utf-8") as f:
                texts[p] = f.read()
        for p in files:
            c.s.notify("textDocument/didOpen", {"textDocument": {"uri": "file://" + p, "languageId": "shellscript",
                                                                 "version": 1, "text": texts[p]}})
        for p in files:
            text = texts[p]
            if not bash_ok(text, tmp):
                continue  # the property is about scripts bash accepts
            cands = places(text)
            if not cands:
                continue
            used = {n for _, n in cands}
            k = max(4, n_renames // total)
            budget[p] = k
            for _ in range(k):
                off, old = rng.choice(cands)
                off += rng.randint(0, len(old) - 1)  # anywhere in the name
                new = new_name(rng, used)
                stats["asked"] += 1
                r = c.call("textDocument/rename", {"textDocument": {"uri": "file://" + p},
                                                   "position": position(text, off), "newName": new})
                where = "%s:%d %s -> %r" % (os.path.relpath(p, ROOT if p.startswith(ROOT) else tmp),
                                            text.count("\n", 0, off) + 1, old, new)
                if r is None:
                    failures.append("no answer to rename at " + where)
                    break
                if "error" in r:
                    code = r["error"].get("code")
                    if code not in (-32803, -32602) or not r["error"].get("message"):
                        failures.append("rename at %s: error %s" % (where, json.dumps(r["error"])))
                    stats["refused"] += 1
                    continue
                edit = r.get("result")
                changes = (edit or {}).get("changes") or {}
                if not changes:
                    stats["no_place"] += 1
                    continue
                stats["accepted"] += 1
                # bash takes a reserved word as a variable's name (`do=1`), not as a function's.
                is_function = any(re.search(r"^\s*(?:function\s+)?%s\s*\(\)" % re.escape(old), t, re.M)
                                  for t in texts.values())
                if not NAME.match(new) or (is_function and new in RESERVED):
                    failures.append("rename at %s accepted a name that is not a %s name" % (
                        where, "function" if is_function else "variable"))
                for uri, edits in changes.items():
                    path = uri_path(uri)
                    before = texts.get(path)
                    if before is None:
                        with open(path, encoding="utf-8") as f:
                            before = f.read()
                    olds = {before[offset_of(before, e["range"]["start"]["line"], e["range"]["start"]["character"]):
                                   offset_of(before, e["range"]["end"]["line"], e["range"]["end"]["character"])]
                            for e in edits}
                    if len(olds) != 1 or any(e["newText"] != new for e in edits):
                        failures.append("rename at %s: edits in %s replace %s by %s" % (
                            where, os.path.basename(path), sorted(olds), sorted({e["newText"] for e in edits})))
                    after = apply_edits(before, edits)
                    stats["files_checked"] += 1
                    if not bash_ok(after, tmp):
                        failures.append("rename at %s: bash -n rejects the renamed %s" % (where, os.path.basename(path)))
                        with open(os.path.join(tmp, "rejected-%d.sh" % len(failures)), "w") as f:
                            f.write(after)
        if c.messages:
            failures.append("window/showMessage during renames in %s: %s" % (root, c.messages[:3]))
        st = c.close()
        if st != 0:
            failures.append("server exit status %s (%s)" % (st, root))
    return stats, failures


METHODS = ["textDocument/definition", "textDocument/references", "textDocument/documentSymbol",
           "textDocument/prepareRename", "textDocument/rename", "textDocument/inlayHint", "textDocument/codeLens"]


def mutate(rng, text):
    """One random edit: (range start offset, end offset, inserted text)."""
    n = len(text)
    r = rng.random()
    a = rng.randint(0, n)
    if r < 0.1:
        return a, n, ""                      # cut the rest: a half-typed end
    if r < 0.45:
        return a, min(n, a + rng.randint(1, 12)), ""
    return a, a, rng.choice(TOKENS)


def params_for(method, uri, text, rng, stale):
    src = stale if stale is not None and rng.random() < 0.3 else text
    if rng.random() < 0.1:
        pos = {"line": rng.choice([len(text), 10 ** 6]), "character": rng.choice([0, 5, 10 ** 6])}
    else:
        pos = position(src, rng.randint(0, len(src))) if src else {"line": 0, "character": 0}
        if src is not text:
            pos["character"] += rng.choice([0, 0, 3, 200])
    td = {"uri": uri}
    if method in ("textDocument/documentSymbol", "textDocument/codeLens"):
        return {"textDocument": td}
    if method == "textDocument/inlayHint":
        end = {"line": rng.choice([pos["line"] + 5, 10 ** 6]), "character": 0}
        return {"textDocument": td, "range": {"start": pos, "end": end}}
    p = {"textDocument": td, "position": pos}
    if method == "textDocument/references":
        p["context"] = {"includeDeclaration": rng.random() < 0.5}
    if method == "textDocument/rename":
        p["newName"] = rng.choice(["NEW_NAME", "X1", "if", "a-b"])
    return p


def stale_property(pd, n_edits, rng, tmp):
    stats = {"edits": 0, "requests": 0, "answered": 0, "results": {}, "rename_refused": 0}
    failures = []
    cases = [(os.path.join(ROOT, "tests/lsp/fixtures/ws"), "scripts/training/text/run-qwen3-4B-8xgpu.sh"),
             (os.path.join(ROOT, "tests/fixtures/audit"), "scripts/training/text/run-qwen3-30B-A3B-16xgpu-async.sh"),
             (os.path.join(ROOT, "tests/fixtures/audit"), "scripts/training/multimodal/run-qwen3-vl-4B-8xgpu.sh"),
             (os.path.join(tmp, "gen"), None)]
    per = max(10, n_edits // len(cases))
    for root, rel in cases:
        if rel is None:
            d = os.path.join(root, "scripts/training/text")
            rel = os.path.relpath(os.path.join(d, os.listdir(d)[0]), root)
        path = os.path.join(root, rel)
        uri = "file://" + path
        with open(path, encoding="utf-8") as f:
            text = f.read()
        c = Client(pd, root)
        c.s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "shellscript",
                                                             "version": 1, "text": text}})
        version = 1
        stale = None
        for _ in range(per):
            a, b, ins = mutate(rng, text)
            if rng.random() < 0.2:  # start again from the file now and then: not only debris
                a, b, ins = 0, len(text), open(path, encoding="utf-8").read()
            version += 1
            c.s.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                  "contentChanges": [{"range": {"start": position(text, a),
                                                                                "end": position(text, b)},
                                                                      "text": ins}]})
            stale, text = text, text[:a] + ins + text[b:]
            stats["edits"] += 1
            # The requests go out at once, before the server has analysed this version.
            ids = {}
            for m in rng.sample(METHODS, rng.randint(2, len(METHODS))):
                ids[c.s.request(m, params_for(m, uri, text, rng, stale))] = m
            stats["requests"] += len(ids)
            deadline = time.perf_counter() + 20
            while ids:
                msg = c.s.recv(deadline)
                if msg is None:
                    failures.append("%s: no answer to %s after edit %d" % (rel, sorted(ids.values()), stats["edits"]))
                    ids = {}
                    break
                if msg.get("method") == "window/showMessage":
                    c.messages.append(msg["params"].get("message", ""))
                if "method" in msg or msg.get("id") not in ids:
                    continue
                m = ids.pop(msg["id"])
                stats["answered"] += 1
                if "error" in msg:
                    e = msg["error"]
                    if m in ("textDocument/rename", "textDocument/prepareRename") and \
                            e.get("code") in (-32803, -32602) and e.get("message"):
                        stats["rename_refused"] += 1
                    else:
                        failures.append("%s: %s answered an error %s after edit %d" % (rel, m, json.dumps(e),
                                                                                      stats["edits"]))
                else:
                    res = msg.get("result")
                    k = "%s %s" % (m.split("/")[1], "empty" if res in (None, [], {}) else "result")
                    stats["results"][k] = stats["results"].get(k, 0) + 1
            if len(failures) > 20:
                break
        if c.messages:
            failures.append("%s: window/showMessage on bad input: %s" % (rel, c.messages[:3]))
        st = c.close()
        if st != 0:
            failures.append("%s: server exit status %s" % (rel, st))
    return stats, failures


def main():
    pd = os.path.abspath(sys.argv[1])
    n_renames = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    n_edits = int(sys.argv[3]) if len(sys.argv) > 3 else 600
    rng = random.Random(25)
    with tempfile.TemporaryDirectory(prefix="pd-rename-") as tmp:
        t0 = time.time()
        rs, rf = rename_property(pd, n_renames, rng, tmp)
        print("renames: %d asked, %d accepted (%d renamed files, all given to bash -n), %d refused, "
              "%d with nothing to rename (%.1f s)" % (rs["asked"], rs["accepted"], rs["files_checked"], rs["refused"],
                                                       rs["no_place"], time.time() - t0))
        t0 = time.time()
        ss, sf = stale_property(pd, n_edits, rng, tmp)
        print("stale/half-typed: %d edits, %d requests, %d answered, %d rename refusals (%.1f s)" % (
            ss["edits"], ss["requests"], ss["answered"], ss["rename_refused"], time.time() - t0))
        print("  " + ", ".join("%s %d" % kv for kv in sorted(ss["results"].items())))
        failures = rf + sf
        for f in failures[:40]:
            print("FAIL " + f)
        if rs["accepted"] < 50:
            failures.append("too few accepted renames to test the property (%d)" % rs["accepted"])
            print("FAIL " + failures[-1])
    print("%s" % ("ok" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
