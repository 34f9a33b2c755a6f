#!/bin/sh
# Install and distribution through the real tools (issue 15): `cmake --install` into a scratch
# prefix gives a working binary, its man page, the Neovim plugin and the docs; CPack's .deb,
# unpacked with dpkg-deb, runs; the pre-commit hook manifest parses and names a real command.
# usage: test_install.sh BUILD_DIR SOURCE_DIR
set -u
BUILD="$1"
SRC="$2"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FX="$SRC/tests/fixtures/audit/scripts/training/text/run-qwen3-4B-8xgpu-async-issues.sh"

cmake --install "$BUILD" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1
check "cmake --install succeeds" '[ $? -eq 0 ]'
P="$tmp/prefix"
check "bin/perf-doctor" '[ -x "$P/bin/perf-doctor" ]'
check "man page" 'head -1 "$P/share/man/man1/perf-doctor.1" | grep -q "^.TH PERF-DOCTOR 1"'
check "Neovim plugin" '[ -f "$P/share/perf-doctor/nvim/lua/perf_doctor/init.lua" ]'
check "docs: rule pages, schema, licence" '[ -f "$P/share/doc/perf-doctor/rules/R-P04.md" ] && [ -f "$P/share/doc/perf-doctor/report.schema.json" ] && [ -f "$P/share/doc/perf-doctor/LICENSE" ]'
# the installed binary needs nothing from the source or build tree
cp "$FX" "$tmp/run-x-8xgpu.sh"
(cd / && env -i PATH=/usr/bin:/bin "$P/bin/perf-doctor" check --no-config "$tmp/run-x-8xgpu.sh" > "$tmp/report.md")
check "the installed binary audits a script" 'grep -q "^## Summary" "$tmp/report.md" && grep -q "R-P02" "$tmp/report.md"'
check "the installed binary explains a rule" '"$P/bin/perf-doctor" explain R-C01 | grep -q "^# R-C01"'

# a Debian package of the same, unpacked and run
(cd "$BUILD" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1)
deb=$(ls "$tmp"/pkg/*.deb 2>/dev/null | head -1)
check "cpack builds a .deb" '[ -n "$deb" ] && [ -f "$deb" ]'
if [ -n "$deb" ]; then
  dpkg-deb -x "$deb" "$tmp/deb"
  check ".deb holds usr/bin/perf-doctor and the man page" '[ -x "$tmp/deb/usr/bin/perf-doctor" ] && [ -f "$tmp/deb/usr/share/man/man1/perf-doctor.1" ]'
  check "the unpacked binary runs" '"$tmp/deb/usr/bin/perf-doctor" version | grep -q "^perf-doctor "'
  check ".deb depends on the runtime libraries" 'dpkg-deb -f "$deb" Depends | grep -q libtree-sitter0'
fi

# pre-commit's hook manifest
check "pre-commit manifest parses and runs perf-doctor check" 'python3 - "$SRC/.pre-commit-hooks.yaml" <<PY
import sys, yaml
hooks = yaml.safe_load(open(sys.argv[1]))
assert isinstance(hooks, list) and hooks, hooks
for h in hooks:
    for key in ("id", "name", "entry", "language"):
        assert key in h, (key, h)
    assert h["entry"].startswith("perf-doctor check"), h
    assert "--fail-on" in h["entry"]
PY'
check "GitHub Actions example parses and uploads SARIF" 'python3 - "$SRC/docs/ci/github-actions.yml" <<PY
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
steps = [s for job in wf["jobs"].values() for s in job["steps"]]
assert any("perf-doctor check" in s.get("run", "") and "sarif" in s.get("run", "") for s in steps)
assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
PY'
exit $fail
