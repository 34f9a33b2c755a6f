#!/usr/bin/env python3
"""ARCHITECTURE.md is the map of the house: every source file under analyzer/ and lsp/ and every
folder of the repository must have its line there, and every file the map names must exist.

usage: check_map.py ROOT      exit 0 when the map is current, 1 with the differences listed"""
import os
import re
import sys

CODE_DIRS = ["analyzer", "lsp"]
TOP_SKIP = {".git", "build", "node_modules"}


def sources(root):
    for top in CODE_DIRS:
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if not x.startswith(".")]
            for n in names:
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, n), root)


def named_in(text):
    """File names the map mentions in backticks: x.c, x.h, x.[ch], a/b/x.c."""
    out = set()
    for tok in re.findall(r"`([^`\s]+)`", text):
        for part in re.split(r",\s*", tok):
            m = re.fullmatch(r"(?:[\w./-]*/)?([\w-]+)\.(\[ch\]|c|h)", part)
            if m:
                stem, ext = m.group(1), m.group(2)
                for e in (["c", "h"] if ext == "[ch]" else [ext]):
                    out.add(stem + "." + e)
    return out


def main():
    root = sys.argv[1]
    text = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()
    named = named_in(text)
    have = {os.path.basename(p) for p in sources(root)}
    problems = ["%s has no line in ARCHITECTURE.md" % p for p in sorted(sources(root))
                if os.path.basename(p) not in named]
    problems += ["ARCHITECTURE.md names %s, which does not exist" % n for n in sorted(named - have)
                 if n.endswith((".c", ".h")) and not n.startswith(("fuzz_", "test_"))]
    for d in sorted(os.listdir(root)):
        full = os.path.join(root, d)
        if os.path.isdir(full) and d not in TOP_SKIP and not d.startswith("build"):
            if "`%s/" % d not in text and "`%s`" % d not in text:
                problems.append("folder %s/ has no line in ARCHITECTURE.md" % d)
    for d in sorted(os.listdir(os.path.join(root, "analyzer"))):
        if os.path.isdir(os.path.join(root, "analyzer", d)) and "`analyzer/%s/`" % d not in text:
            problems.append("folder analyzer/%s/ has no line in ARCHITECTURE.md" % d)
    for p in problems:
        print(p)
    print("%d difference(s) between the map and the tree" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
