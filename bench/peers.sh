#!/bin/sh
# Installs the benchmark's peers into ~/.cache/perf-doctor/bench (nothing in the repository):
#   bash-language-server 5.8.1 from npm (runs offline on Node >= 20; ShellCheck from Debian), and
#   Holistic Trace Analysis from a git checkout (HTA_GIT=URL-or-path, default GitHub) with its
#   Python dependencies from Debian (python3-pandas ...; run with /usr/bin/python3).
# Either step is skipped with a message when its tool (npm, git) is missing.
set -e
cache="${HOME}/.cache/perf-doctor/bench"
mkdir -p "$cache"
if command -v npm >/dev/null 2>&1; then
  mkdir -p "$cache/bls"
  (cd "$cache/bls" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-audit --no-fund bash-language-server@5.8.1)
  "$cache/bls/node_modules/.bin/bash-language-server" --version
else
  echo "npm not found: bash-language-server not installed" >&2
fi
if [ ! -d "$cache/hta/hta" ]; then
  if command -v git >/dev/null 2>&1; then
    git clone --depth 1 "${HTA_GIT:-https://github.com/facebookresearch/HolisticTraceAnalysis}" "$cache/hta" ||
      echo "HTA clone failed: set HTA_SRC to a checkout instead" >&2
  else
    echo "git not found: HTA not installed (set HTA_SRC to a checkout)" >&2
  fi
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends shellcheck valgrind \
    python3-pandas python3-numpy python3-plotly python3-networkx python3-pydot python3-tqdm python3-yaml python3-psutil
fi
