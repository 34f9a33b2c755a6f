#!/bin/sh
# The VS Code extension's Node tests and its `vsce package` step, run on a copy of
# editors/vscode in the build tree (node_modules and the .vsix never land in the source tree).
# usage: vscode.sh SOURCE_DIR WORK_DIR test|package
# Exits 77 (skipped) only when node or npm is not installed. Dependencies come from
# package-lock.json through `npm ci`: from npm's cache when it has them, else the registry.
set -eu
src=$1 work=$2 step=$3

for tool in node npm; do
  if ! command -v $tool >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed"
    exit 77
  fi
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "FAIL: Node.js >= 20 is needed (@vscode/vsce 3 requires it); found $(node --version)"
  exit 1
fi

ext="$src/editors/vscode"
mkdir -p "$work"
rm -rf "$work/lib" "$work/test"
cp "$ext/package.json" "$ext/package-lock.json" "$ext/extension.js" "$ext/README.md" "$ext/.vscodeignore" "$work/"
cp "$src/LICENSE" "$work/LICENSE"
cp -R "$ext/lib" "$ext/test" "$work/"
cd "$work"

# Reinstall only when the lock file changed since the last install.
if ! cmp -s package-lock.json node_modules/.pd-package-lock.json 2>/dev/null; then
  npm ci --ignore-scripts --no-audit --no-fund --prefer-offline
  cp package-lock.json node_modules/.pd-package-lock.json
fi

case "$step" in
test)
  # Explicit file list: `node --test DIR` is read as a glob from Node 21 on.
  PD_SOURCE_DIR="$src" node --test test/*.test.js
  ;;
package)
  rm -rf perf-doctor.vsix dist
  # vsce runs the vscode:prepublish script (the esbuild bundle); it must not warn about anything
  node node_modules/@vscode/vsce/vsce package --out perf-doctor.vsix > vsce.log 2>&1 || { cat vsce.log; exit 1; }
  cat vsce.log
  if grep -qi "warning" vsce.log; then echo "FAIL: vsce package warned"; exit 1; fi
  # The package holds the bundled extension and its manifest, not the sources, tests or modules.
  node -e '
    const fs = require("fs");
    const buf = fs.readFileSync("perf-doctor.vsix");
    // Names from the zip central directory (signature 0x02014b50).
    const names = [];
    for (let i = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])), n = buf.readUInt16LE(i + 10), p = buf.readUInt32LE(i + 16); n-- > 0; ) {
      const len = buf.readUInt16LE(p + 28), extra = buf.readUInt16LE(p + 30), comment = buf.readUInt16LE(p + 32);
      names.push(buf.toString("utf8", p + 46, p + 46 + len));
      p += 46 + len + extra + comment;
    }
    const need = ["extension/package.json", "extension/dist/extension.js", "extension/LICENSE.txt", "extension.vsixmanifest"];
    const missing = need.filter((f) => !names.includes(f) && !names.includes(f.replace(".txt", "")));
    const unwanted = names.filter((f) => /^extension\/(test|lib|node_modules)\//.test(f));
    console.log(`perf-doctor.vsix: ${names.length} files, ${buf.length} bytes`);
    if (missing.length || unwanted.length) {
      console.log("missing:", missing, "unwanted:", unwanted.slice(0, 5));
      process.exit(1);
    }'
  ;;
*)
  echo "usage: vscode.sh SOURCE_DIR WORK_DIR test|package" >&2
  exit 2
  ;;
esac
