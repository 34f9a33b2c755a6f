#!/usr/bin/env python3
"""Builds the committed seed corpora (tests/fuzz/corpus/<target>/) from the test fixtures.

Run from anywhere: python3 tests/fuzz/make_corpus.py [--traces DIR]. The seeds are small
on purpose (libFuzzer mutates them; coverage, not size, is what they are for). Re-running
rewrites the corpora deterministically."""
import argparse, glob, gzip, json, os, random, re, shutil, struct, subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
ROOT = os.path.dirname(TESTS)


def out_dir(target):
    d = os.path.join(HERE, "corpus", target)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def frame(body):
    b = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(b) + b


def read(p):
    with open(p, "rb") as f:
        return f.read()


SCRIPTS = sorted(glob.glob(os.path.join(TESTS, "fixtures/audit/scripts/training/*/*.sh")))
MODELS = os.path.join(TESTS, "fixtures/audit/scripts/models")


def script_corpus():
    d = out_dir("script")
    for p in SCRIPTS:
        text = read(p)
        m = re.search(rb"models/([\w.-]+)\.sh", text)
        name = os.path.basename(p)[:-3]
        if m and os.path.exists(os.path.join(MODELS, m.group(1).decode() + ".sh")):
            text += b"\n#@@\n" + read(os.path.join(MODELS, m.group(1).decode() + ".sh"))
        put(d, name, text)
    for p in sorted(glob.glob(os.path.join(TESTS, "script/fixtures/scripts/training/*/*.sh"))):
        put(d, "script-" + os.path.basename(p)[:-3], read(p))
    # source-following corner cases: a file that sources itself, deep chains
    put(d, "source-self", b'source "$0"\nsource ./run-qwen3-4B-8xgpu.sh\n#@@\nsource ./x.sh\nsource ./y.sh\n')


def lsp_corpus(ws_uri="file:///fuzz-ws"):
    d = out_dir("lsp")
    lsp = os.path.join(TESTS, "lsp")
    for p in sorted(glob.glob(os.path.join(lsp, "transcripts/*.lsp"))):
        out = b""
        for line in read(p).decode().splitlines():
            word, _, rest = line.partition(" ")
            rest = rest.replace("${WSURI}", ws_uri)
            if word == "send":
                out += frame(rest)
            elif word == "raw":
                out += json.loads(rest).encode()
            elif word == "open":
                parts = rest.split()
                if len(parts) < 2:
                    continue
                fp = os.path.join(lsp, "fixtures", parts[1])
                if not os.path.exists(fp):
                    continue
                text = read(fp).decode()
                out += frame(json.dumps({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
                    "textDocument": {"uri": parts[0], "languageId": "shellscript", "version": 1, "text": text}}}))
        if len(out) <= 65536:
            put(d, os.path.basename(p)[:-4], out)


def edit_corpus():
    d = out_dir("edit")
    rnd = random.Random(6)
    frags = [b"--tensor-model-parallel-size 4 ", b"\n", b"\r\n", b"\"", b"$(", b")", b"\xe4\xb8\xad",
             b"\xf0\x9f\x98\x80", b"{", b"}", b"\\\n", b"'", b"# NOTE(x)\n", b"ARGS=(", b"\xff"]
    for i, p in enumerate(SCRIPTS[:8]):
        text = read(p)[:1500]
        b = bytes([i % 3]) + struct.pack(">H", len(text)) + text
        for _ in range(12):
            ins = b"".join(rnd.choice(frags) for _ in range(rnd.randrange(3)))
            b += bytes([rnd.randrange(4) & 1 if rnd.random() < 0.9 else 2]) + struct.pack(">H", rnd.randrange(len(text)))
            b += bytes([rnd.randrange(20), len(ins)]) + ins
        put(d, "edits-" + os.path.basename(p)[:-3], b)


def trace_events(path, limit):
    """A small but connected sample: metadata, ProfilerStep spans, GPU rows (kernels, copies,
    NCCL) with the runtime launches and flow events that share their correlation ids, and a few
    CPU ops, so that the per-rank analyses have something to join."""
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    evs = doc.get("traceEvents", [])
    corr = lambda e: (e.get("args") or {}).get("correlation")
    pick, seen = [], {}
    for e in evs:
        if e.get("ph") == "M" or str(e.get("name", "")).startswith("ProfilerStep"):
            pick.append(e)
    gpu = [e for e in evs if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation")]
    for e in gpu:
        k = (e.get("cat"), "nccl" in str(e.get("name", "")).lower())
        if seen.get(k, 0) < 3:
            seen[k] = seen.get(k, 0) + 1
            pick.append(e)
    ids = {corr(e) for e in pick if corr(e) is not None}
    pick += [e for e in evs if e.get("cat") in ("cuda_runtime", "cuda_driver", "ac2g") and corr(e) in ids
             or e.get("ph") in ("s", "f") and e.get("id") in ids]
    pick += [e for e in evs if e.get("cat") == "cpu_op"][:6]
    pick = pick[:limit]
    pick.sort(key=lambda e: (e.get("ts") or 0))
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    return head, pick


def trace_corpus(traces):
    d = out_dir("trace")
    srcs = sorted(glob.glob(os.path.join(traces, "*/*.json.gz")))
    ranks = []
    for i, p in enumerate(srcs):
        head, evs = trace_events(p, 60)
        doc = dict(head)
        doc["traceEvents"] = evs
        text = json.dumps(doc).encode()
        ranks.append(text)
        name = os.path.basename(p).split(".")[0]
        put(d, "raw-" + name, b"\x00" + text)
        put(d, "gz-" + name, b"\x01" + text)             # compressed by the target
        put(d, "gzbytes-" + name, b"\x02" + gzip.compress(text, mtime=0))  # raw gzip bytes
        put(d, "array-" + name, b"\x00" + json.dumps(evs).encode())
    if len(ranks) >= 2:
        put(d, "two-ranks", b"\x00" + ranks[-2] + b"\n@@RANK@@\n" + ranks[-1])


def rules_corpus():
    d = out_dir("rules")
    rules = json.loads(read(os.path.join(ROOT, "analyzer/data/rules.json")))["rules"]
    exprs = []
    for r in rules:
        for c in r.get("cases", []):
            for k in ("when", "ratio"):
                if k in c:
                    exprs.append(c[k])
        if "skip" in r:
            exprs.append(r["skip"])
    for i, e in enumerate(exprs[::3]):
        put(d, "expr-%03d" % i, b"\x01" + e.encode())
    for i, r in enumerate(rules[::4]):
        put(d, "rule-" + r["id"], b"\x00" + json.dumps({"rules": [r]}, ensure_ascii=False).encode())
    put(d, "rule-disable", b"\x00" + json.dumps({"rules": [{"id": "R-C01", "disabled": True}]}).encode())


def flags_corpus():
    """The Python reader's fixtures (byte 0 = 1) and small catalogs (byte 0 = 0): the fixture one
    and slices of the built-in one, each with a few options of every parser."""
    d = out_dir("flags")
    fix = os.path.join(ROOT, "tests/flagcat/fixtures")
    for i, p in enumerate(sorted(glob.glob(os.path.join(fix, "**/*.py"), recursive=True))):
        put(d, "py-%02d-%s" % (i, os.path.basename(p)), b"\x01" + read(p))
    put(d, "cat-mini", b"\x00" + read(os.path.join(fix, "mini.json")))
    flagc = os.path.join(ROOT, "build", "pd_flagc")  # the binary form, when a build made the tool
    if os.path.exists(flagc):
        out = os.path.join(d, ".mini.bin")
        subprocess.run([flagc, os.path.join(fix, "mini.json"), out], check=True)
        put(d, "bin-mini", b"\x02" + read(out))
        os.remove(out)
    built = json.loads(read(os.path.join(ROOT, "analyzer/data/flags.json")))
    by = {}
    for o in built["options"]:
        by.setdefault(o["parser"], []).append(o)
    for k in range(3):
        opts = [o for p in sorted(by) for o in by[p][k * 7:(k + 1) * 7]]
        doc = {"perf_doctor_flags": 1, "sources": built.get("sources", {}), "options": opts,
               "dropped_sglang": built.get("dropped_sglang", [])[:5]}
        put(d, "cat-slice-%d" % k, b"\x00" + json.dumps(doc, ensure_ascii=False).encode())


def kname_corpus():
    """Kernel names from the vendored traces, eight a seed: every 24th distinct name in order, the
    mangled ones, the longest ones."""
    names = set()
    gpu = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
    for f in sorted(glob.glob(os.path.join(TESTS, "fixtures/traces/*/*.json.gz")) +
                    glob.glob(os.path.join(TESTS, "fixtures/traces/*/*/*.json.gz"))):
        d = json.load(gzip.open(f, "rt"))
        for e in d if isinstance(d, list) else d.get("traceEvents", []):
            if isinstance(e, dict) and e.get("cat") in gpu and isinstance(e.get("name"), str):
                names.add(e["name"])
    names = sorted(names)
    d = out_dir("kname")
    picks = [names[i::24] for i in range(0, 24, 3)]
    picks.append([n for n in names if n.startswith("_Z")])
    picks.append(sorted(names, key=lambda n: (-len(n), n))[:8])
    for i, p in enumerate(picks):
        put(d, "names-%02d" % i, "\n".join(p[:8]))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", default=os.path.join(ROOT, "tests/fixtures/traces/hta"))
    a = ap.parse_args()
    script_corpus()
    lsp_corpus()
    edit_corpus()
    trace_corpus(a.traces)
    rules_corpus()
    flags_corpus()
    kname_corpus()
    for t in sorted(os.listdir(os.path.join(HERE, "corpus"))):
        files = glob.glob(os.path.join(HERE, "corpus", t, "*"))
        print("%-7s %3d seeds, %7d bytes" % (t, len(files), sum(os.path.getsize(f) for f in files)))
