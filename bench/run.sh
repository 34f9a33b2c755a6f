#!/bin/sh
# The benchmark suite in one command: prints a table, writes bench/results/run-<time>.json.
#   bench/run.sh [--smoke] [--build DIR] [other bench.py options: --parts, --data, --out, --hta-big]
# Builds nothing: point --build at a Release build (default ./build). Peers (bash-language-server,
# HTA) are used when installed; bench/peers.sh installs them. See bench/README.md.
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/bench.py" "$@"
