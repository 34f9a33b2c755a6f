#!/usr/bin/env python3
"""Writes rules.json in its canonical layout: a rule's scalar keys on its first line, each text
and list on a line of its own, each case on its own lines. `fmt_rules.py [FILE]` rewrites FILE
(default: rules.json next to this script) in place; the content is unchanged."""
import json
import os
import sys

HEAD = ["id", "category", "severity", "verified", "related", "anchor", "condition", "about_file", "file_local", "group",
        "modes", "needs", "intent", "each", "note"]
TEXTS = ["title", "why", "fix", "skip_if"]
CASE_HEAD = ["when", "ratio", "band", "severity", "at", "at_env"]


def j(v):
    return json.dumps(v, ensure_ascii=False)


def case_lines(c):
    head = ", ".join("%s: %s" % (j(k), j(c[k])) for k in CASE_HEAD if k in c)
    rest = [k for k in c if k not in CASE_HEAD]
    lines = ["  {" + head + ("," if rest else "}")]
    for i, k in enumerate(rest):
        end = "}" if i == len(rest) - 1 else ","
        lines.append("   %s: %s%s" % (j(k), j(c[k]), end))
    return lines


def rule_lines(r):
    head = [k for k in HEAD if k in r]
    rest = [k for k in r if k not in HEAD and k != "cases"]
    texts = [k for k in TEXTS if k in rest] + [k for k in rest if k not in TEXTS]
    out = ["{" + ", ".join("%s: %s" % (j(k), j(r[k])) for k in head) + ","]
    for k in texts:
        out.append(" %s: %s," % (j(k), j(r[k])))
    if "cases" in r:
        out.append(' "cases": [')
        cases = []
        for c in r["cases"]:
            cases.append(case_lines(c))
        for i, cl in enumerate(cases):
            if i < len(cases) - 1:
                cl[-1] += ","
            out.extend(cl)
        out.append(" ]}")
    else:
        out[-1] = out[-1].rstrip(",") + "}"
    return out


def dump(doc):
    lines = ["{", '"version": %d,' % doc.get("version", 1), '"rules": [']
    rules = doc["rules"]
    for i, r in enumerate(rules):
        rl = rule_lines(r)
        if i < len(rules) - 1:
            rl[-1] += ","
        lines.extend(rl)
    lines += ["]", "}"]
    return "\n".join(lines) + "\n"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "rules.json")
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    text = dump(doc)
    assert json.loads(text) == doc
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
