#!/bin/bash
# One run, side by side, best of 5 (interleaved per set): perf-doctor `trace --jobs 1` (ISA-L inflate), the same binary
# with PERF_DOCTOR_INFLATE=zlib, zcat of the same files, and HTA's load + temporal breakdown.
# usage: bench/side_by_side.sh PERF_DOCTOR HTA_SRC|- SET_DIR...   (HTA_SRC "-" skips HTA)
set -u
pd=$1 hta=$2
shift 2
best() {
  local b=999 s e t
  for _ in 1 2 3 4 5; do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc); b=$(echo "if ($t < $b) $t else $b" | bc)
  done
  echo "$b"
}
zcat_all() { find "$1" -name '*.json.gz' -print0 | sort -z | xargs -0 zcat; }
echo "| set | JSON MB | perf-doctor ISA-L s | zlib s | zcat s | ISA-L ÷ zcat | HTA s | HTA ÷ perf-doctor |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for set in "$@"; do
  a=$(best "$pd" trace --jobs 1 "$set")
  z=$(PERF_DOCTOR_INFLATE=zlib best "$pd" trace --jobs 1 "$set")
  export -f zcat_all
  c=$(best bash -c 'zcat_all "$0"' "$set")
  mb=$(( $(zcat_all "$set" | wc -c) / 1000000 ))
  h="–" hr="–"
  if [ "$hta" != "-" ]; then
    h=$(/usr/bin/python3 "$(dirname "$0")/hta_run.py" "$hta" "$set" 2>/dev/null | tail -1 |
        python3 -c 'import json,sys; print(round(json.load(sys.stdin)["total_s"], 3))' 2>/dev/null || echo "–")
    [ "$h" != "–" ] && hr="$(echo "scale=1; $h / $a" | bc)×"
  fi
  echo "| $(basename "$set") | $mb | $a | $z | $c | $(echo "scale=2; $a / $c" | bc) | $h | $hr |"
done
