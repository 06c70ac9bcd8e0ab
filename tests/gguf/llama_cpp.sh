#!/usr/bin/env bash
# llama_cpp.sh HEPTAPOD_TESTS DATA_DIR: llama.cpp itself runs Heptapod's GGUF export. Installs node-llama-cpp
# 3.21.1 (MIT: Node.js bindings of llama.cpp) with its prebuilt CPU build for Linux x64
# (@node-llama-cpp/linux-x64 3.21.1), both pinned, with npm into DATA_DIR (once; no install script runs, and no
# other platform's build is fetched), then runs the LlamaCpp tests of HEPTAPOD_TESTS with HEPTAPOD_LLAMA_CPP
# set to the package (tests/test_gguf_export.cpp; tests/gguf/llama_cpp_reference.mjs drives llama.cpp). Exits
# 77 (skipped) with the reason without node or npm, off Linux x64, or when npm cannot install the packages.
set -euo pipefail
tests_bin=$1
data=$2
version=3.21.1
command -v node >/dev/null && command -v npm >/dev/null || { echo "skipped: node or npm is not installed" >&2; exit 77; }
[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || { echo "skipped: the pinned llama.cpp build is Linux x64's" >&2; exit 77; }
package="$data/node_modules/node-llama-cpp"
installed() {
  [ "$(node -p "require('$package/package.json').version" 2>/dev/null)" = "$version" ] &&
    [ "$(node -p "require('$data/node_modules/@node-llama-cpp/linux-x64/package.json').version" 2>/dev/null)" = "$version" ]
}
if ! installed; then
  mkdir -p "$data"
  if ! npm install --prefix "$data" --ignore-scripts --omit=optional --no-audit --no-fund --no-save -E \
      "node-llama-cpp@$version" "@node-llama-cpp/linux-x64@$version" >"$data/npm.log" 2>&1 || ! installed; then
    echo "skipped: npm could not install node-llama-cpp@$version ($(tail -n 1 "$data/npm.log"))" >&2
    exit 77
  fi
fi
export HEPTAPOD_LLAMA_CPP="$package"
exec "$tests_bin" --gtest_filter='LlamaCpp.*'
