#!/bin/sh
# Headless Neovim test of editors/nvim against the built server.
# usage: nvim.sh SOURCE_DIR WORK_DIR PERF_DOCTOR_BIN TRACE_DIR
# Exits 77 (skipped) only when nvim is not installed.
set -eu
src=$1 work=$2 bin=$3 trace=$4

if ! command -v nvim >/dev/null 2>&1; then
  echo "SKIP: nvim is not installed (Debian: apt-get install neovim)"
  exit 77
fi
[ -x "$bin" ] || { echo "FAIL: no server binary at $bin"; exit 1; }
[ -d "$trace" ] || { echo "FAIL: no trace folder at $trace"; exit 1; }

# The fixture tree is copied so that nothing the test does can touch the source tree.
rm -rf "$work"
mkdir -p "$work"
cp -R "$src/tests/editors/fixtures/scripts" "$work/scripts"

PD_NVIM_PLUGIN="$src/editors/nvim" PERF_DOCTOR_BIN="$bin" PD_TRACE="$trace" \
PD_SCRIPT="$work/scripts/training/text/run-qwen3-4B-8xgpu.sh" \
XDG_STATE_HOME="$work/state" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache" \
  timeout 120 nvim --headless -u NONE -i NONE -n -c "luafile $src/tests/editors/nvim_test.lua" </dev/null
