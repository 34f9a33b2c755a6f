#!/bin/sh
# Runs each libFuzzer target for SECONDS on a scratch copy of its committed seed corpus and
# fails on any crash, leak, timeout or sanitizer report.
#
#   tests/fuzz/run.sh SECONDS [BUILD_DIR] [TARGET...]
#
# BUILD_DIR is a clang build with -DPD_FUZZ=ON (default: build-fuzz next to the sources).
# TARGETs default to all (lsp script edit trace rules partial kname). Findings (crash-*, leak-*, timeout-*)
# and the log of each run are kept in $PD_FUZZ_OUT (default BUILD_DIR/fuzz-out/<target>).
# Extra libFuzzer flags can be passed in $PD_FUZZ_FLAGS (e.g. "-jobs=2 -workers=2").
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-30}
build=${2:-$here/../../build-fuzz}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
targets=${*:-lsp script edit trace rules partial kname}
status=0
for t in $targets; do
  bin=$build/fuzz_$t
  if [ ! -x "$bin" ]; then
    echo "run.sh: $bin not built (configure with CC=clang -DPD_FUZZ=ON)" >&2
    status=1
    continue
  fi
  out=${PD_FUZZ_OUT:-$build/fuzz-out}/$t
  rm -rf "$out/corpus"
  mkdir -p "$out/corpus" "$out/findings"
  cp "$here/corpus/$t"/* "$out/corpus/" 2>/dev/null
  dict=""
  [ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
  # close_fd_mask=3: the targets' own stdout/stderr (server logs) are silenced; libFuzzer and
  # sanitizer reports still go to the log. Leak checking is on by default with ASan.
  # shellcheck disable=SC2086
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$bin" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -max_len=65536 \
      -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$out/findings/" $dict \
      ${PD_FUZZ_FLAGS:-} "$out/corpus" </dev/null >"$out/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$out/log" | tail -1)
  if [ -z "$execs" ]; then # -fork=N mode: no final stats; its last status line has the totals
    last=$(grep -E '^#[0-9]+: cov' "$out/log" | tail -1)
    execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
    speed=$(echo "$last" | sed -n 's/.*exec\/s \([0-9]*\).*/\1/p')
  fi
  if [ $rc -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$out/log"; then
    echo "FAIL fuzz_$t (exit $rc): see $out/log"
    grep -E 'ERROR:|runtime error:|SUMMARY:|Test unit written' "$out/log" | head -20
    status=1
  else
    echo "ok   fuzz_$t: ${secs}s, ${execs:-?} execs, ${speed:-?} exec/s, ${cov:-cov: ?}"
  fi
done
exit $status
