#!/bin/sh
# Installs what perf-doctor needs to build and test on Debian 12, skipping what is present.
# Run as root (or with sudo available). Touches nothing outside the package manager.
set -eu

need=""
for pkg in build-essential cmake pkg-config libjansson-dev zlib1g-dev libtree-sitter-dev nodejs npm python3 neovim clang libclang-rt-14-dev valgrind; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
# npm may come from elsewhere (e.g. a Node.js install outside Debian); accept it if it runs.
case "$need" in *" npm"*) if command -v npm >/dev/null 2>&1; then need=$(echo "$need" | sed 's/ npm//; s/ nodejs//'); fi ;; esac
# Optional peers used by some tests when present: neovim (editor test).
for pkg in ${PD_EXTRA_PACKAGES:-}; do need="$need $pkg"; done

if [ -n "$need" ]; then
  echo "bootstrap: installing$need"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need
else
  echo "bootstrap: all build dependencies present"
fi
