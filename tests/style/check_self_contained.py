#!/usr/bin/env python3
"""The suite reads only the repository: no test, CI or bench file may name a folder beside the
checkout (the reference material and traces a development machine keeps next to it) or an
absolute path of one machine. A fresh clone with nothing beside it must pass alone, so anything a
test needs lives under tests/ (real traces: tests/fixtures/traces/).

usage: check_self_contained.py ROOT            check ROOT's tests/, .ci/, bench/ and editors' tests
       check_self_contained.py --self-test     a planted reference must be found (exit 0 if it is)
Exit 0: clean; 1: a file names something outside the repository (each one is listed)."""
import os
import re
import sys
import tempfile

# Built from parts so that this file does not name what it looks for.
_UP = re.escape("..") + r"[\\/]+" + "sha" + "red" + r"\b"
# (pattern, what it names, also in prose): a provenance note may say where a fixture was copied
# from on the machine that made it, but code and data the tests read may not point there.
PATTERNS = [
    (re.compile(_UP), "a folder beside the checkout", True),
    (re.compile(r"\b" + "sha" + r"red[\\/]+(traces|reference|hooks)\b"), "the shared reference folder", True),
    (re.compile(r"\bPD_" + "SHA" + r"RED"), "the old PD_" + "SHA" + "RED_DIR variable", True),
    (re.compile(r"(?<![\w.])/" + "wo" + r"rk/"), "an absolute path of the development machine", False),
]
PROSE = (".md",)
WHERE = ["tests", ".ci", "bench", "editors/vscode/test", "editors/nvim", "CMakeLists.txt"]
SKIP_DIRS = {".git", "node_modules", "build", "__pycache__", "results"}  # results: recorded bench output


def text_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data[:4096]:
        return None  # binary (fuzz seeds that are gzip bytes, traces)
    return data.decode("utf-8", "replace")


def files_under(root):
    for rel in WHERE:
        top = os.path.join(root, rel)
        if os.path.isfile(top):
            yield top
            continue
        for d, dirs, names in os.walk(top):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
            for n in names:
                yield os.path.join(d, n)


def problems(root):
    me = os.path.realpath(__file__)
    out = []
    for path in files_under(root):
        if os.path.realpath(path) == me:
            continue
        text = text_of(path)
        if text is None:
            continue
        prose = path.endswith(PROSE)
        for lineno, line in enumerate(text.splitlines(), 1):
            for rx, what, in_prose in PATTERNS:
                if (in_prose or not prose) and rx.search(line):
                    out.append("%s:%d: names %s: %s" % (os.path.relpath(path, root), lineno, what,
                                                        line.strip()[:120]))
    return out


def self_test():
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "tests"))
        with open(os.path.join(d, "tests", "planted.cmake"), "w") as f:
            f.write("set(X ${CMAKE_SOURCE_DIR}/" + ".." + "/sha" + "red/traces)\n")
        with open(os.path.join(d, "tests", "planted.py"), "w") as f:
            f.write("TRACE = '/" + "work/elsewhere/t.json'\n")
        with open(os.path.join(d, "tests", "NOTES.md"), "w") as f:
            f.write("Copied from /" + "work/elsewhere on the machine that made it.\n")
        found = {p.split(":")[0] for p in problems(d)}
    want = {"tests/planted.cmake", "tests/planted.py"}
    if found != want:
        print("self-test: expected problems in %s, got %s" % (sorted(want), sorted(found)))
        return 1
    print("self-test: both planted references were found, the provenance note was not flagged")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    found = problems(sys.argv[1])
    for p in found:
        print(p)
    print("%d file reference(s) outside the repository" % len(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
