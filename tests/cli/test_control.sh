#!/bin/sh
# perf-doctor's controls through the binary (issue 15): rules/explain and the generated rule
# pages, .perf-doctor.json discovery, --config/--no-config, --disable/--severity, severity-only
# rule files, --env and script arguments, bad values, the JSON report schema and SARIF 2.1.0.
BIN="$1"
TESTS="$2"
ROOT="$TESTS/.."
FX="$TESTS/fixtures/audit/scripts/training"
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; else echo "ok: $1"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- rules and explain -----------------------------------------------------------------------
out=$("$BIN" rules); st=$?
check "rules lists every rule" '[ $st -eq 0 ] && [ $(echo "$out" | grep -c "^| \[R-") -ge 70 ]'
check "rules shows modes" 'echo "$out" | grep -q "R-M06.*only where a rollout engine runs"'
n=$("$BIN" rules --format json | python3 -c "import json,sys; print(len(json.load(sys.stdin)[\"rules\"]))")
check "rules json" '[ "$n" -ge 70 ]'
out=$("$BIN" explain R-P04)
check "explain: why, when, fix, skip-if, sources, example, control" 'echo "$out" | grep -q "^## Why" && echo "$out" | grep -q "^## When it fires" && echo "$out" | grep -q "^## Fix" && echo "$out" | grep -q "^## Skip if" && echo "$out" | grep -q "Checked against" && echo "$out" | grep -q "^## Example" && echo "$out" | grep -q "disable=R-P04"'
out=$("$BIN" explain R-C01 --lang zh)
check "explain zh" 'echo "$out" | grep -q "## 原因"'
"$BIN" explain R-X99 >/dev/null 2>"$tmp/err"; st=$?
check "explain unknown rule -> 2" '[ $st -eq 2 ] && grep -q "unknown rule .R-X99." "$tmp/err"'
# every command's usage errors are said in --lang (issue 28): names and values as they are
"$BIN" explain R-X99 --lang zh >/dev/null 2>"$tmp/err"; st=$?
check "explain unknown rule, zh" '[ $st -eq 2 ] && grep -q "未知规则 .R-X99." "$tmp/err" && ! grep -q "unknown" "$tmp/err"'
"$BIN" check --lang zh --format xml "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null 2>"$tmp/err"; st=$?
check "check bad format, zh" '[ $st -eq 2 ] && grep -q "未知格式 .xml.（可选：md, json, sarif）" "$tmp/err"'
"$BIN" check --lang zh --gpu TPU9 "$FX/text/run-qwen3-4B-8xgpu.sh" >/dev/null 2>"$tmp/err"; st=$?
check "check unknown GPU, zh, with the table's ids" '[ $st -eq 2 ] && grep -q "未知 GPU .TPU9.（已知：H20-96G, " "$tmp/err" && grep -q "P800" "$tmp/err"'
"$BIN" check --lang=zh --bogus >/dev/null 2>"$tmp/err"; st=$?
check "check unknown option, zh" '[ $st -eq 2 ] && grep -q "未知选项 --bogus" "$tmp/err"'
"$BIN" context --lang zh a.sh b.sh >/dev/null 2>"$tmp/err"; st=$?
check "context one script, zh" '[ $st -eq 2 ] && grep -q "一次只能处理一个脚本" "$tmp/err"'
"$BIN" flags --lang zh --parser nope >/dev/null 2>"$tmp/err"; st=$?
check "flags unknown parser, zh" '[ $st -eq 2 ] && grep -q "未知解析器 .nope." "$tmp/err"'
LC_ALL= LC_MESSAGES= LANG=zh_CN.UTF-8 "$BIN" rules --format xml >/dev/null 2>"$tmp/err"; st=$?
check "the locale decides without --lang" '[ $st -eq 2 ] && grep -q "未知格式" "$tmp/err"'
"$BIN" rules --format xml --lang en >/dev/null 2>"$tmp/err"; st=$?
check "and --lang en says it in English" '[ $st -eq 2 ] && grep -q "unknown format .xml. (md, json)" "$tmp/err"'
"$BIN" rules --pages "$tmp/pages" >/dev/null
check "docs/rules is current (regenerate: perf-doctor rules --pages docs/rules)" 'diff -r "$tmp/pages" "$ROOT/docs/rules" >/dev/null'
check "version names the commit or says it has none" '"$BIN" version | grep -Eq "^perf-doctor [0-9]+\.[0-9]+\.[0-9]+ \((commit [0-9a-f]+|not built from a git checkout)\)$"'

# --- bad values name themselves --------------------------------------------------------------
S="$FX/text/run-qwen3-4B-8xgpu.sh"
"$BIN" check --lang fr "$S" >/dev/null 2>"$tmp/err"; st=$?
check "--lang fr -> 2, named" '[ $st -eq 2 ] && grep -q "unknown language .fr. (en, zh)" "$tmp/err"'
"$BIN" check --format xml "$S" >/dev/null 2>"$tmp/err"; st=$?
check "--format xml -> 2, named" '[ $st -eq 2 ] && grep -q "unknown format .xml. (md, json, sarif)" "$tmp/err"'
"$BIN" check --fail-on loud "$S" >/dev/null 2>"$tmp/err"; st=$?
check "--fail-on loud -> 2, named" '[ $st -eq 2 ] && grep -q "unknown level .loud." "$tmp/err"'
"$BIN" check --model-config-dir /nonexistent "$S" >/dev/null 2>"$tmp/err"; st=$?
check "missing --model-config-dir -> 2" '[ $st -eq 2 ] && grep -q "/nonexistent" "$tmp/err"'
mkdir -p "$tmp/empty" "$tmp/nolaunch"
"$BIN" check "$tmp/empty" >/dev/null 2>&1; st=$?
check "directory without scripts -> 2" '[ $st -eq 2 ]'
printf 'echo hi\n' > "$tmp/nolaunch/a.sh"
"$BIN" check "$tmp/nolaunch" >/dev/null 2>"$tmp/err"; st=$?
check "directory without launch scripts -> 2" '[ $st -eq 2 ] && grep -q "no Relax launch scripts" "$tmp/err"'
"$BIN" check --disable R-X99 "$S" >/dev/null 2>"$tmp/err"; st=$?
check "unknown rule in --disable -> 2" '[ $st -eq 2 ] && grep -q "unknown rule .R-X99." "$tmp/err"'
"$BIN" check --severity R-P10 "$S" >/dev/null 2>"$tmp/err"; st=$?
check "--severity without =level -> 2" '[ $st -eq 2 ]'

# --- a project: config discovery, options over config, suppression ---------------------------
P="$tmp/proj"
mkdir -p "$P/scripts/training/text" "$P/scripts/models" "$P/scripts/entrypoint"
cp "$TESTS/fixtures/audit/scripts/models/qwen3-4B.sh" "$P/scripts/models/"
cp "$TESTS/fixtures/audit/scripts/entrypoint/local.sh" "$P/scripts/entrypoint/"
sed 's/^   --sequence-parallel$//' "$S" > "$P/scripts/training/text/run-qwen3-4B-8xgpu.sh"
PS="$P/scripts/training/text/run-qwen3-4B-8xgpu.sh"
mkdir -p "$P/.git"
rules() { "$BIN" check --format json "$@" | python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join(sorted(set(f['rule']+':'+f['severity'] for r in d['reports'] for f in r.get('findings',[]) if not f['suppressed']))))"; }
check "no config: R-P10 warn" 'rules "$PS" | grep -q "R-P10:warn"'
echo '{"rules": {"R-P10": "off"}, "gpu": "H100-80G"}' > "$P/.perf-doctor.json"
check "config found from the script: R-P10 off" '! rules "$PS" | grep -q "R-P10"'
check "config gpu used" '"$BIN" check "$PS" | grep -q "GPU=H100 80GB$"'
check "--no-config ignores it" 'rules --no-config "$PS" | grep -q "R-P10:warn"'
check "command line over config" 'rules --severity R-P10=info "$PS" | grep -q "R-P10:info"'
echo '{"rules": {"R-P10": "critical"}}' > "$tmp/other.json"
check "--config FILE" 'rules --config "$tmp/other.json" "$PS" | grep -q "R-P10:critical"'
echo '{"rules": {"R-P10": "loud"}}' > "$P/.perf-doctor.json"
"$BIN" check "$PS" >/dev/null 2>"$tmp/err"; st=$?
check "a bad config value -> 2 with the file named" '[ $st -eq 2 ] && grep -q ".perf-doctor.json" "$tmp/err" && grep -q "rules.R-P10" "$tmp/err"'
echo '{not json' > "$P/.perf-doctor.json"
"$BIN" check "$PS" >/dev/null 2>"$tmp/err"; st=$?
check "an unreadable config -> 2 with line and column" '[ $st -eq 2 ] && grep -q "perf-doctor.json:1:" "$tmp/err"'
rm "$P/.perf-doctor.json"
check "--disable" '! rules --disable R-P10,R-P04 "$PS" | grep -q "R-P10"'
echo '{"rules": [{"id": "R-P10", "severity": "info"}]}' > "$tmp/sev.json"
check "severity-only entry in a rule file" 'rules --rules "$tmp/sev.json" "$PS" | grep -q "R-P10:info"'
sed 's/^   --tensor-model-parallel-size 2$/   --tensor-model-parallel-size 2  # perf-doctor: disable=R-P10/' "$PS" > "$tmp/sup.sh"
cp "$tmp/sup.sh" "$PS"
out=$("$BIN" check --format json "$PS")
check "suppressed: listed, counted, not failing" 'printf "%s\n" "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); f=[x for x in d[\"reports\"][0][\"findings\"] if x[\"rule\"]==\"R-P10\"]; assert f and f[0][\"suppressed\"]; assert d[\"summary\"][\"suppressed\"]>=1"'
check "suppressed: counted in markdown" '"$BIN" check "$PS" | grep -q "Suppressed: 1"'
"$BIN" check --fail-on info --disable R-P04,R-P16,R-P17,R-P09,R-P13,R-M07,R-M08,R-P20,R-S03,R-P26,R-N01 "$PS" >/dev/null; st=$?
check "suppressed findings do not fail --fail-on" '[ $st -eq 0 ]'

# --- environment and script arguments --------------------------------------------------------
cat > "$tmp/env.sh" <<'SH'
TP=${TP:-2}
A_ARGS=(--tensor-model-parallel-size ${TP} --sequence-parallel)
python3 -m relax.entrypoints.train --resource '{"actor": [1, 8], "rollout": [1, 8]}' --colocate "${A_ARGS[@]}" "$@"
SH
tp() { "$BIN" check --format json --no-config "$@" | python3 -c "import json,sys; print(json.load(sys.stdin)['reports'][0]['context']['tp'])"; }
check "default TP 2" '[ "$(tp "$tmp/env.sh")" = 2 ]'
check "--env TP=4" '[ "$(tp --env TP=4 "$tmp/env.sh")" = 4 ]'
check "-- script arguments reach \"\$@\"" '[ "$(tp "$tmp/env.sh" -- --tensor-model-parallel-size 8)" = 8 ]'
"$BIN" check --env TP "$tmp/env.sh" >/dev/null 2>&1; st=$?
check "--env without = -> 2" '[ $st -eq 2 ]'

# --- JSON and SARIF shapes --------------------------------------------------------------------
"$BIN" check --format json "$FX" > "$tmp/all.json"
"$BIN" check --format json "$S" > "$tmp/one.json"
"$BIN" check --format json /etc/passwd > "$tmp/notlaunch.json"
check "JSON reports validate against docs/report.schema.json" 'python3 - "$ROOT/docs/report.schema.json" "$tmp/all.json" "$tmp/one.json" "$tmp/notlaunch.json" <<PY
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
for path in sys.argv[2:]:
    doc = json.load(open(path))
    jsonschema.Draft7Validator(schema).validate(doc)
    assert isinstance(doc["reports"], list)
PY'
(cd "$ROOT" && "$BIN" check --format sarif "tests/fixtures/audit/scripts/training") > "$tmp/all.sarif"
check "SARIF validates against the OASIS 2.1.0 schema" 'python3 - "$TESTS/fixtures/sarif/sarif-schema-2.1.0.json" "$tmp/all.sarif" <<PY
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
run = log["runs"][0]
assert run["tool"]["driver"]["informationUri"].startswith("https://")
assert all(r["helpUri"].endswith(r["id"] + ".md") for r in run["tool"]["driver"]["rules"])
for res in run["results"]:
    loc = res["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uriBaseId"] == "SRCROOT" and not loc["uri"].startswith("/"), loc
    assert res["partialFingerprints"]["perfDoctorFinding/v1"]
assert run["originalUriBaseIds"]["SRCROOT"]["uri"].startswith("file:///")
PY'
"$BIN" check --format sarif --base-dir "$FX" "$FX/text/run-qwen3-4B-8xgpu-async-issues.sh" > "$tmp/b.sarif"
check "--base-dir makes paths relative to it" 'grep -q "\"uri\": \"text/run-qwen3-4B-8xgpu-async-issues.sh\"" "$tmp/b.sarif"'
# the fingerprint follows the finding, not its line number
sed '1i # a comment line added at the top' "$PS" > "$tmp/shifted.sh"
cp "$PS" "$tmp/orig.sh"
fp() { "$BIN" check --format sarif --no-config --base-dir "$tmp" "$1" | python3 -c "import json,sys; print(sorted(r['partialFingerprints']['perfDoctorFinding/v1'] for r in json.load(sys.stdin)['runs'][0]['results'] if r['ruleId']=='R-P10'))"; }
cp "$tmp/orig.sh" "$tmp/x.sh"; a=$(fp "$tmp/x.sh")
cp "$tmp/shifted.sh" "$tmp/x.sh"; b=$(fp "$tmp/x.sh")
check "fingerprints survive a shift of lines" '[ -n "$a" ] && [ "$a" = "$b" ]'
exit $fail
