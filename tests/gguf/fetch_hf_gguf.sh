#!/usr/bin/env bash
# Fetches @huggingface/gguf, an independent GGUF parser, for the GGUF reader's cross-check (tests/gguf/run.sh).
# Usage: tests/gguf/fetch_hf_gguf.sh OUTDIR
#
# Two npm packages (MIT), fetched and checked by tests/npm_pack.sh into OUTDIR/node_modules (exit 77 without
# npm or its registry):
#   @huggingface/gguf@0.4.6     the GGUF parser of huggingface.js (`gguf(path, {allowLocalFile: true})`)
#   @huggingface/tasks@0.21.54  what it requires at run time
set -euo pipefail
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
# Each package and the sha256 of its tarball as npm serves it.
exec "$(dirname "$0")/../npm_pack.sh" "$1" \
  @huggingface/gguf@0.4.6 1b06072c973f93b090b17e0ee7e48a07324b30489d5878d056a81a47a8cd9296 \
  @huggingface/tasks@0.21.54 ec3461a9eb087379adfc4e8830ae9980d1919d79c5f260dfc8564d67df65c7a2
