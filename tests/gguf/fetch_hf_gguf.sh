#!/usr/bin/env bash
# Fetches @huggingface/gguf, an independent GGUF parser, for the GGUF reader's cross-check (tests/gguf/run.sh).
# Usage: tests/gguf/fetch_hf_gguf.sh OUTDIR
#
# Two npm packages (MIT), fetched with `npm pack` (the tarballs only: nothing is installed and none of their
# scripts run), each checked against the sha256 pinned below and unpacked as OUTDIR/node_modules/<name>:
#   @huggingface/gguf@0.4.6     the GGUF parser of huggingface.js (`gguf(path, {allowLocalFile: true})`)
#   @huggingface/tasks@0.21.54  what it requires at run time
#
# If OUTDIR already holds both checked packages (each tarball with its hash beside the unpacked copy and its
# stamp), nothing is fetched. Exit status 77 (the "skipped" code of CTest/automake) when npm is missing or
# `npm pack` fails, e.g. without network; the reason goes to stderr as "skipped: npm registry unreachable
# (...)".
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1

# name, version and the sha256 of huggingface-<name>-<version>.tgz as npm serves it.
packages=(
  "gguf 0.4.6 1b06072c973f93b090b17e0ee7e48a07324b30489d5878d056a81a47a8cd9296"
  "tasks 0.21.54 ec3461a9eb087379adfc4e8830ae9980d1919d79c5f260dfc8564d67df65c7a2"
)

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# package_ok NAME VERSION SHA: the unpacked copy counts as checked when its tarball is kept with the pinned
# hash and its stamp (written last) says that hash.
package_ok() {
  [ -f "$out/huggingface-$1-$2.tgz" ] && [ "$(sha256_of "$out/huggingface-$1-$2.tgz")" = "$3" ] &&
    [ -f "$out/node_modules/@huggingface/$1/package.json" ] &&
    [ "$(cat "$out/node_modules/@huggingface/$1/.heptapod-checked" 2>/dev/null)" = "$3" ]
}

# fetch NAME VERSION SHA: npm pack @huggingface/NAME@VERSION, check the tarball, unpack it in place.
fetch() {
  local name=$1 version=$2 sha=$3 pkg="@huggingface/$1@$2" tmp rc=0 why got
  tmp=$(mktemp -d "$out/.fetch.XXXXXX")
  # A registry that cannot be reached fails within seconds (two quick retries), and any hang within 300 s.
  (cd "$tmp" && timeout 300 npm pack --loglevel=error --fetch-retries=2 --fetch-retry-mintimeout=1000 \
    --fetch-retry-maxtimeout=5000 --fetch-timeout=120000 "$pkg" >npm.log 2>&1) || rc=$?
  if [ "$rc" -ne 0 ]; then
    why=$(grep -m 1 -E '^npm (error|ERR!) (code|[A-Za-z]*Error)' "$tmp/npm.log" | sed 's/^npm [^ ]* //' || true)
    [ "$rc" -ne 124 ] || why="no answer within 300 s"
    rm -rf "$tmp"
    echo "skipped: npm registry unreachable (npm pack $pkg failed${why:+: $why})" >&2
    exit 77
  fi
  local tarball=$tmp/huggingface-$name-$version.tgz
  [ -f "$tarball" ] || { echo "error: npm pack $pkg wrote no $(basename "$tarball")" >&2; rm -rf "$tmp"; exit 1; }
  got=$(sha256_of "$tarball")
  if [ "$got" != "$sha" ]; then
    echo "error: sha256 mismatch for $pkg ($(basename "$tarball")): expected $sha, got $got" >&2
    rm -rf "$tmp"
    exit 1
  fi
  mkdir -p "$tmp/unpack" "$out/node_modules/@huggingface"
  tar xzf "$tarball" -C "$tmp/unpack"
  # The old copy (if any) goes first; the stamp that package_ok trusts is written last.
  rm -rf "$out/node_modules/@huggingface/$name" "$out/huggingface-$name-$version.tgz"
  mv "$tmp/unpack/package" "$out/node_modules/@huggingface/$name"
  mv "$tarball" "$out/huggingface-$name-$version.tgz"
  printf '%s' "$sha" >"$out/node_modules/@huggingface/$name/.heptapod-checked"
  rm -rf "$tmp"
  package_ok "$name" "$version" "$sha" ||
    { echo "error: $out/node_modules/@huggingface/$name failed its check after writing" >&2; exit 1; }
  echo "wrote $out/node_modules/@huggingface/$name ($pkg)" >&2
}

missing=()
for entry in "${packages[@]}"; do
  read -r name version sha <<<"$entry"
  package_ok "$name" "$version" "$sha" || missing+=("$entry")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "skipped: npm registry unreachable (npm or node not found)" >&2
  exit 77
fi
mkdir -p "$out"
for entry in "${missing[@]}"; do
  read -r name version sha <<<"$entry"
  fetch "$name" "$version" "$sha"
done
