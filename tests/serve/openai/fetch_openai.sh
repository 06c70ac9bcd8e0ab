#!/usr/bin/env bash
# Fetches OpenAI's official JavaScript client library, for the test that drives `heptapod serve` with it
# (tests/serve/openai/run.sh).
# Usage: tests/serve/openai/fetch_openai.sh OUTDIR
#
# The package, openai@7.60.0 (Apache-2.0), comes from npm with `npm pack`: the tarball only, nothing is
# installed and none of its scripts run. Its sha256 is checked against the value pinned below (a mismatch is
# an error), and it is unpacked as OUTDIR/node_modules/openai, so that `require("OUTDIR/node_modules/openai")`
# (or a plain `require("openai")` from a script under OUTDIR) loads it. The library needs none of its declared
# peer dependencies for plain HTTP use (those are for AWS Bedrock, Google auth, websockets and zod helpers).
#
# Why 7.60.0: it is the current release. Its package.json declares engines node >= 22, but it runs on the
# Node 20 this project's machines have (v20.20.2) when loaded as CommonJS: `require('openai')` works there,
# and the test uses nothing beyond Node 20's built-in fetch, streams and TextDecoder.
#
# If OUTDIR already holds the checked package (the tarball, with its hash, next to the unpacked copy), nothing
# is fetched. Exit status 77 (the "skipped" code of CTest/automake) when npm is missing or `npm pack` fails,
# e.g. without network; the reason goes to stderr as "skipped: npm registry unreachable (...)".
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 OUTDIR" >&2
  exit 2
fi
out=$1

pkg=openai@7.60.0
version=7.60.0
sha_tarball=7506885e23fe43b71e3f818b8e650a63d7b9ea738719a81c7133a4ff415385ac # openai-7.60.0.tgz as npm serves it

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# The unpacked copy counts as checked when the tarball it came from is kept beside it with the pinned hash,
# and the copy's package.json names the pinned version (a stamp file is written last, after both are in place).
outputs_ok() {
  [ -f "$out/openai-$version.tgz" ] &&
    [ "$(sha256_of "$out/openai-$version.tgz")" = "$sha_tarball" ] &&
    [ -f "$out/node_modules/openai/package.json" ] &&
    [ -f "$out/node_modules/openai/index.js" ] &&
    [ "$(cat "$out/node_modules/openai/.heptapod-checked" 2>/dev/null)" = "$sha_tarball" ]
}

if outputs_ok; then
  exit 0
fi

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  echo "skipped: npm registry unreachable (npm or node not found)" >&2
  exit 77
fi

mkdir -p "$out"
tmp=$(mktemp -d "$out/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A registry that cannot be reached fails within seconds (two quick retries), and any hang within 120 s.
rc=0
(cd "$tmp" && timeout 120 npm pack --loglevel=error --fetch-retries=2 --fetch-retry-mintimeout=1000 \
  --fetch-retry-maxtimeout=5000 --fetch-timeout=60000 "$pkg" >npm.log 2>&1) || rc=$?
if [ "$rc" -ne 0 ]; then
  why=$(grep -m 1 -E '^npm (error|ERR!) (code|[A-Za-z]*Error)' "$tmp/npm.log" | sed 's/^npm [^ ]* //' || true)
  [ "$rc" -ne 124 ] || why="no answer within 120 s"
  echo "skipped: npm registry unreachable (npm pack $pkg failed${why:+: $why})" >&2
  exit 77
fi

tarball=$tmp/openai-$version.tgz
if [ ! -f "$tarball" ]; then
  echo "error: npm pack $pkg wrote no openai-$version.tgz in $tmp" >&2
  exit 1
fi
got=$(sha256_of "$tarball")
if [ "$got" != "$sha_tarball" ]; then
  echo "error: sha256 mismatch for $pkg (openai-$version.tgz): expected $sha_tarball, got $got" >&2
  exit 1
fi

mkdir -p "$tmp/unpack"
tar xzf "$tarball" -C "$tmp/unpack"
unpacked=$tmp/unpack/package
node -e '
const p = require(process.argv[1]);
if (p.name !== "openai" || p.version !== process.argv[2]) {
  console.error("error: the tarball holds " + p.name + "@" + p.version + ", expected openai@" + process.argv[2]);
  process.exit(1);
}' "$unpacked/package.json" "$version"

# Put it in place: the old copy (if any) goes first, the stamp that outputs_ok() trusts is written last.
mkdir -p "$out/node_modules"
rm -rf "$out/node_modules/openai" "$out/openai-$version.tgz"
mv "$unpacked" "$out/node_modules/openai"
mv "$tarball" "$out/openai-$version.tgz"
printf '%s' "$sha_tarball" >"$out/node_modules/openai/.heptapod-checked"
outputs_ok || { echo "error: $out/node_modules/openai failed its check after writing" >&2; exit 1; }
echo "wrote $out/node_modules/openai ($pkg)" >&2
