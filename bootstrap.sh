#!/bin/sh
# Installs, from Debian's packages, what perf-doctor needs, skipping what is present.
#   ./bootstrap.sh          what building and running need (compiler, CMake, jansson, zlib, ISA-L,
#                           the tree-sitter runtime; npm to fetch the pinned bash grammar once)
#   ./bootstrap.sh --tests  that, and what only the test suite needs: Neovim (the editor test),
#                           Node for the VS Code extension, clang (fuzzing, sanitizer runtime),
#                           valgrind (benchmark instruction counts), python3 with jsonschema and
#                           PyYAML (schema tests), dpkg-dev (the .deb test)
# Run as root (or with sudo available). Touches nothing outside the package manager.
set -eu

pkgs="build-essential cmake pkg-config libjansson-dev zlib1g-dev libisal-dev libtree-sitter-dev npm"
case "${1:-}" in
--tests) pkgs="$pkgs nodejs python3 python3-jsonschema python3-yaml neovim clang libclang-rt-14-dev valgrind dpkg-dev" ;;
"") ;;
*) echo "usage: ./bootstrap.sh [--tests]" >&2; exit 2 ;;
esac

need=""
for pkg in $pkgs; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
# npm may come from elsewhere (e.g. a Node.js install outside Debian); accept it if it runs.
case "$need" in *" npm"*) if command -v npm >/dev/null 2>&1; then need=$(echo "$need" | sed 's/ npm//; s/ nodejs//'); fi ;; esac
for pkg in ${PD_EXTRA_PACKAGES:-}; do need="$need $pkg"; done

if [ -n "$need" ]; then
  echo "bootstrap: installing$need"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need
else
  echo "bootstrap: all ${1:+test }dependencies present"
fi
