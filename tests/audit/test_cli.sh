#!/bin/sh
# perf-doctor check through the real binary: exit status, formats, directories, the corpus of
# realistic scripts (every one must produce a report without crashing).
BIN="$1"
TESTS="$2"
FX="$TESTS/fixtures/audit/scripts/training"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

"$BIN" check >/dev/null 2>&1; check "no script -> 2" '[ $? -eq 2 ]'
"$BIN" check --format xml "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null 2>&1; check "bad format -> 2" '[ $? -eq 2 ]'
"$BIN" check --gpu TPUv5 "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null 2>&1; check "unknown gpu -> 2" '[ $? -eq 2 ]'
out=$("$BIN" check --gpu h100 "$FX/text/run-qwen3-4B-8xgpu.sh"); check "gpu option shown, not assumed" 'echo "$out" | grep -q "GPU=H100 80GB$"'
"$BIN" check /nonexistent/run.sh >/dev/null 2>&1; check "missing file -> 2" '[ $? -eq 2 ]'
"$BIN" check --rules /nonexistent.json "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null 2>&1; check "missing rules file -> 2" '[ $? -eq 2 ]'
"$BIN" check --lang en "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null; check "clean script -> 0" '[ $? -eq 0 ]'
"$BIN" check --lang en "$FX/text/run-qwen35-35B-A3B-16xgpu-issues.sh" >/dev/null; check "critical -> 1" '[ $? -eq 1 ]'
"$BIN" check --lang en --fail-on info "$FX/text/run-qwen3-4B-8xgpu-async-issues.sh" >/dev/null; check "fail-on info -> 1" '[ $? -eq 1 ]'

out=$("$BIN" check --format json "$FX/text/run-qwen3-4B-8xgpu-async-issues.sh")
check "json has findings" 'echo "$out" | grep -q "\"rule\": \"R-P02\""'
check "json has summary" 'echo "$out" | grep -q "\"summary\""'
out=$("$BIN" check --format sarif "$FX/text/run-qwen3-4B-8xgpu-async-issues.sh" "$FX/text/run-qwen3-4B-8xgpu.sh")
check "sarif version" 'echo "$out" | grep -q "\"version\": \"2.1.0\""'
check "sarif results" 'echo "$out" | grep -q "\"ruleId\": \"R-P02\""'

# a user rule file: add a rule and disable a built-in one, without rebuilding
tmp=$(mktemp)
cat > "$tmp" <<'JSON'
{"rules": [
 {"id": "X-001", "category": "performance", "severity": "warn", "title": {"en": "Staleness above 1"},
  "cases": [{"when": "staleness > 0", "at": ["--max-staleness"], "cost": {"en": "staleness {staleness}"}}]},
 {"id": "R-P02", "disabled": true}
]}
JSON
out=$("$BIN" check --format json --rules "$tmp" "$FX/text/run-qwen3-4B-8xgpu-async.sh")
check "user rule fires" 'echo "$out" | grep -q "\"rule\": \"X-001\""'
echo '{"rules": [{"id": "X-002", "severity": "warn", "title": "t", "cases": [{"when": "nosuchfact > 1"}]}]}' > "$tmp"
"$BIN" check --rules "$tmp" "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null 2>"$tmp.err"; st=$?
check "bad user rule -> 2 with a message" '[ $st -eq 2 ] && grep -q "nosuchfact" "$tmp.err"'
rm -f "$tmp" "$tmp.err"

# a file that is not a launch script: named, it is an error (2) saying so; in a directory, skipped
tmpd=$(mktemp -d)
printf 'echo building\nmake -j8\n' > "$tmpd/build.sh"
cp "$FX/text/run-qwen3-4B-8xgpu.sh" "$tmpd/"
out=$("$BIN" check "$tmpd/build.sh"); st=$?
check "non-launch file named -> 2" '[ $st -eq 2 ]'
check "non-launch file: says so, no report" 'echo "$out" | grep -q "Not a Relax launch script" && ! echo "$out" | grep -q "Top action"'
out=$("$BIN" check --format json "$tmpd/build.sh")
check "non-launch file json" 'echo "$out" | grep -q "\"launch_script\": false"'
out=$("$BIN" check "$tmpd"); st=$?
check "directory: non-launch file skipped with a note" '[ $st -le 1 ] && echo "$out" | grep -q "Skipped, not Relax launch scripts.*build.sh" && [ $(echo "$out" | grep -c "^# perf-doctor: ") -eq 1 ]'
out=$("$BIN" check --format json "$tmpd")
check "directory json: skipped entry" 'printf "%s\n" "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); assert any(p.endswith(\"build.sh\") for p in d[\"summary\"][\"skipped\"]); assert d[\"reports\"][0][\"launch_script\"]"'
rm -rf "$tmpd"

# the corpus: every script gets a report, no crash (exit 0 or 1 only)
n=$(find "$FX" -name '*.sh' | wc -l)
out=$("$BIN" check --lang en "$FX" 2>/tmp/pd-corpus.err); st=$?
check "corpus: no sanitizer report" '! grep -q -e Sanitizer -e "runtime error" /tmp/pd-corpus.err'
rm -f /tmp/pd-corpus.err
check "corpus exit 0/1 (got $st)" '[ $st -le 1 ]'
reports=$(echo "$out" | grep -c '^# perf-doctor: ')
check "corpus: one report per script ($reports of $n)" '[ "$reports" -eq "$n" ]'
check "corpus has >= 20 scripts" '[ "$n" -ge 20 ]'
out=$("$BIN" check --lang zh --format json "$FX" >/dev/null); st=$?
check "corpus json zh exit 0/1" '[ $st -le 1 ]'
exit $fail
