#!/usr/bin/env python3
"""Golden outputs in English and Chinese beside each other: `trace` (a summary of vendored traces, and
its SVG), `trace --compare` (HTA's control vs test traces) and `profile` (three launch scripts), each
with --lang en and --lang zh, against tests/trace/golden and tests/cli/golden. Also: the JSON of every
case is the same in both languages, and without --lang the language follows the locale.

usage: test_golden.py PERF_DOCTOR SOURCE_ROOT     (PD_UPDATE_GOLDEN=1 rewrites the files)"""
import os
import re
import subprocess
import sys
import tempfile

BIN, ROOT = sys.argv[1], sys.argv[2]
UPDATE = bool(os.environ.get("PD_UPDATE_GOLDEN"))
TRACES = "tests/fixtures/traces"
SCRIPTS = "tests/fixtures/audit/scripts/training/text"

# (golden file stem, arguments); paths are relative to the source root, where the commands run
CASES = [
    ("tests/trace/golden/summary-2rank", ["trace", TRACES + "/hta/hta-trace-filter-2rank", "--jobs", "1"]),
    ("tests/trace/golden/summary-h100-bert", ["trace", TRACES + "/tracelens/h100_bert.json.gz", "--jobs", "1"]),
    ("tests/trace/golden/compare-hta", ["trace", "--compare", TRACES + "/hta/hta-trace-diff-control",
                                        TRACES + "/hta/hta-trace-diff-test", "--jobs", "1"]),
    ("tests/cli/golden/profile-qwen3-4B", ["profile", SCRIPTS + "/run-qwen3-4B-8xgpu.sh"]),
    ("tests/cli/golden/profile-already", ["profile", SCRIPTS + "/run-qwen3-4B-8xgpu-profile.sh"]),
    ("tests/cli/golden/profile-short-named", ["profile", "tests/cli/fixtures/profile/run-short-named.sh"]),
]
SVG = ("tests/trace/golden/summary-2rank", ["trace", TRACES + "/hta/hta-trace-filter-2rank", "--jobs", "1"])

failures = []


def run(args, env_lang=None):
    env = dict(os.environ)
    for k in ("LC_ALL", "LC_MESSAGES", "LANG"):
        env.pop(k, None)
    if env_lang:
        env["LANG"] = env_lang
    p = subprocess.run([BIN] + args, cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        failures.append("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
    return p.stdout


def golden(path, got):
    full = os.path.join(ROOT, path)
    if UPDATE:
        with open(full, "w", encoding="utf-8") as f:
            f.write(got)
        return
    try:
        want = open(full, encoding="utf-8").read()
    except OSError:
        failures.append("%s: missing (PD_UPDATE_GOLDEN=1 writes it)" % path)
        return
    if want != got:
        failures.append("%s differs; got:\n%s" % (path, got))


def main():
    for stem, args in CASES:
        out = {}
        for lang in ("en", "zh"):
            out[lang] = run(args + ["--lang", lang])
            golden("%s.%s.md" % (stem, lang), out[lang])
        if not re.search("[\u4e00-\u9fff]", out["zh"]) or out["en"] == out["zh"]:
            failures.append("%s: the zh output has no Chinese" % stem)
        if run(args, "C.UTF-8") != out["en"] or run(args, "zh_CN.UTF-8") != out["zh"]:
            failures.append("%s: without --lang the output does not follow the locale" % stem)
        js = [run(args + ["--format", "json", "--lang", lang]) for lang in ("en", "zh")]
        if js[0] != js[1] or not js[0].lstrip().startswith("{"):
            failures.append("%s: the JSON depends on the language" % stem)
    stem, args = SVG
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("en", "zh"):
            svg = os.path.join(tmp, lang + ".svg")
            run(args + ["--format", "json", "--svg", svg, "--lang", lang])
            golden("%s.%s.svg" % (stem, lang), open(svg, encoding="utf-8").read())
    for f in failures:
        print(f)
    print("%d golden case(s), %d failure(s)" % (len(CASES) + 1, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
