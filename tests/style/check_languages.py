#!/usr/bin/env python3
"""Every sentence a user reads exists in English and in Chinese: each message of
analyzer/data/messages.json (the audit's) and analyzer/data/trace_messages.json (the trace layer's)
has a non-empty en and zh text, the keys are exactly those the code lists (AU_MESSAGES in
audit/messages.h, TR_MESSAGES in trace/messages.h), and a zh text contains Chinese characters
whenever its English says something in words (a template that is only layout — "{rule}: {title}",
"| {label} | {value} |", acronyms such as "TP{tp}·PP{pp}" — may be the same in both). For the trace
messages the zh text uses the same arguments as the en text (a plural choice may be dropped).

usage: check_languages.py ROOT     exit 0 when every message is in both languages
       check_languages.py --self-test  the check finds what is planted in a bad document"""
import json
import os
import re
import sys

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# a word: letters with at least one lowercase letter (acronyms like TP, NOTE, MFU are names)
WORD = re.compile(r"[A-Za-z]*[a-z][A-Za-z]*")


def strip_template(text):
    """The English a reader sees, without arguments, code, link targets and the tool's name."""
    text = text.replace("{{", "").replace("}}", "")
    while True:  # innermost {...} first: audit expressions nest ('a' : 'b' inside {...})
        t = re.sub(r"\{[^{}]*\}", " ", text)
        if t == text:
            break
        text = t
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text.replace("perf-doctor", " ")


def trace_args(text):
    """Argument names a trace template shows as values (plural choices are left out)."""
    return set(re.findall(r"(?<!\{)\{([A-Za-z_]\w*)(?::[^}]*)?\}", text.replace("{{", "")))


def listed_keys(header, macro):
    src = open(header, encoding="utf-8").read()
    body = src[src.index("#define " + macro):]
    body = body[:body.index("\n\n")]
    return re.findall(r'X\(\w+,\s*"([^"]+)"', body)


def check(path, header, macro, same_args, problems):
    doc = json.load(open(path, encoding="utf-8"))
    msgs = doc.get("messages", {})
    keys = listed_keys(header, macro)
    name = os.path.basename(path)
    for k in keys:
        if k not in msgs:
            problems.append("%s: %s (listed in %s) is missing" % (name, k, macro))
    for k, m in msgs.items():
        if k not in keys:
            problems.append("%s: %s is not in %s" % (name, k, macro))
        en, zh = m.get("en"), m.get("zh")
        if not isinstance(en, str) or not en.strip():
            problems.append("%s: %s has no English text" % (name, k))
            continue
        if not isinstance(zh, str) or not zh.strip():
            problems.append("%s: %s has no Chinese text" % (name, k))
            continue
        if WORD.search(strip_template(en)) and not CJK.search(zh):
            problems.append("%s: %s: the zh text has no Chinese: %r" % (name, k, zh))
        if same_args and trace_args(en) != trace_args(zh):
            problems.append("%s: %s: en uses %s, zh uses %s" % (name, k, sorted(trace_args(en)), sorted(trace_args(zh))))
    return len(msgs)


def self_test():
    """The check finds a missing zh, an English zh, a key the code does not list and a zh that drops
    an argument, in a planted document."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        hdr, doc = os.path.join(d, "m.h"), os.path.join(d, "m.json")
        open(hdr, "w").write('#define TR_MESSAGES(X) \\\n  X(A, "a", "") X(B, "b", "") X(C, "c", "n:i")\n\n')
        json.dump({"messages": {"a": {"en": "the figure"}, "b": {"en": "the figure", "zh": "the figure"},
                                "c": {"en": "{n} steps", "zh": "步数"}, "d": {"en": "x", "zh": "x"}}}, open(doc, "w"))
        problems = []
        check(doc, hdr, "TR_MESSAGES", True, problems)
    want = ["a has no Chinese text", "b: the zh text has no Chinese", "d is not in", "c: en uses"]
    missed = [w for w in want if not any(w in p for p in problems)]
    print("self-test: %d problem(s) found%s" % (len(problems), ", missed: %s" % missed if missed else ""))
    return 1 if missed else 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test()
    root = sys.argv[1]
    data = os.path.join(root, "analyzer", "data")
    problems = []
    n = check(os.path.join(data, "messages.json"), os.path.join(root, "analyzer/audit/messages.h"),
              "AU_MESSAGES", False, problems)
    n += check(os.path.join(data, "trace_messages.json"), os.path.join(root, "analyzer/trace/messages.h"),
               "TR_MESSAGES", True, problems)
    for p in problems:
        print(p)
    print("%d messages, %d problem(s)" % (n, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
