#!/bin/bash
# One run, side by side, best of 9 interleaved rounds: perf-doctor `trace --jobs 1` (ISA-L inflate), the same binary
# with PERF_DOCTOR_INFLATE=zlib, zcat of the same files (the zcat process alone), and HTA's load +
# temporal breakdown timed inside the interpreter (HTA s; what the ratio uses) and as a whole
# process, interpreter start and imports included (HTA process s, once).
# usage: bench/side_by_side.sh PERF_DOCTOR HTA_SRC|- SET_DIR...   (HTA_SRC "-" skips HTA)
set -u
pd=$1 hta=$2
shift 2
here=$(dirname "$0")
files() { find "$1" -name '*.json.gz' | sort; }
echo "| set | JSON MB | perf-doctor ISA-L s | zlib s | zcat s | ISA-L ÷ zcat | HTA s | HTA ÷ perf-doctor | HTA process s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for set in "$@"; do
  mapfile -t fs < <(files "$set")
  # the three readers round-robin, 9 rounds, best of each (bench/timeit.py: timed around the spawn
  # and the wait only); zcat is the zcat process alone on the set's files
  mapfile -t t < <(python3 "$here/timeit.py" 9 -- "$pd" trace --jobs 1 "$set" ";;" \
    PERF_DOCTOR_INFLATE=zlib "$pd" trace --jobs 1 "$set" ";;" zcat "${fs[@]}")
  a=${t[0]} z=${t[1]} c=${t[2]}
  mb=$(( $(zcat "${fs[@]}" | wc -c) / 1000000 ))
  h="–" hr="–" hp="–"
  if [ "$hta" != "-" ]; then
    s0=$(date +%s.%N)
    h=$(/usr/bin/python3 "$here/hta_run.py" "$hta" "$set" 2>/dev/null | tail -1 |
        python3 -c 'import json,sys; print(round(json.load(sys.stdin)["total_s"], 3))' 2>/dev/null || echo "–")
    hp=$(printf '%.2f' "$(echo "$(date +%s.%N) - $s0" | bc)")
    [ "$h" != "–" ] && hr="$(echo "scale=1; $h / $a" | bc)×"
  fi
  echo "| $(basename "$set") | $mb | $a | $z | $c | $(echo "scale=2; $a / $c" | bc) | $h | $hr | $hp |"
done
