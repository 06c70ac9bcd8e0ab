#!/usr/bin/env bash
# Fetches @huggingface/jinja 0.5.11 (MIT), the JavaScript Jinja renderer that is the chat-template tests' second
# reference (render_hf_jinja.js), with tests/npm_pack.sh (pinned sha256) into OUTDIR/node_modules/@huggingface/jinja.
# Usage: tests/chat_templates/fetch_hf_jinja.sh OUTDIR
# Nothing is fetched when OUTDIR already holds the checked package. Exit status 77 when npm is missing or cannot
# reach its registry (the reason goes to stderr as "skipped: ...").
set -euo pipefail
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
exec "$(dirname "$0")/../npm_pack.sh" "$1" \
  @huggingface/jinja@0.5.11 c92401a23cdef23be5a2773eafc22db6723e113380aa02fedd0ca40ceb123f29
