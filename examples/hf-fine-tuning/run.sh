#!/usr/bin/env bash
# Converting and fine-tuning pre-trained GPT-2, BERT and LLaMA-family (LLaMA, Mistral, Qwen) checkpoints, end to end. No real weights are reachable
# from here, so this runs on the small Hugging Face-layout checkpoints of the test fixtures
# (tests/fixtures/gpt2, bert, bert_classifier: random weights under the real tensor names and config keys, with
# their own vocab.json/merges.txt and vocab.txt; tools/make_hf_fixtures.py). With a real snapshot, point the
# same commands at its directory:
#   git clone https://huggingface.co/gpt2                 (or: huggingface-cli download gpt2 --local-dir gpt2)
#   git clone https://huggingface.co/bert-base-uncased
#   heptapod convert gpt2 --from gpt2 -o gpt2.htp
#   heptapod convert bert-base-uncased --from bert -o bert.htp
# Usage: examples/hf-fine-tuning/run.sh [OUT]   (default runs/hf-fine-tuning; HEPTAPOD=path/to/heptapod)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-runs/hf-fine-tuning}
heptapod=${HEPTAPOD:-$root/build/apps/heptapod}
[ -x "$heptapod" ] || (cd "$root" && scripts/build.sh)
fixtures="$root/tests/fixtures"
mkdir -p "$out"
steps=(--steps 40 --batch-tokens 512 --log-every 10 --valid-every 20 --seed 1)

echo "== convert"
"$heptapod" convert "$fixtures/gpt2" --from gpt2 -o "$out/gpt2.htp"
"$heptapod" convert "$fixtures/bert" --from bert -o "$out/bert.htp"   # a BertForPreTraining-style checkpoint
"$heptapod" info -m "$out/gpt2.htp" | sed -n '/^model:/,$p'

echo "== GPT-2: language modelling on new text"
cat > "$out/prose.txt" <<'TEXT'
The quick brown fox jumps over the lazy dog.
The dog sleeps in the sun, and the fox runs into the woods.
Hello, world! It's a small test of the tokenizer.
We've got 42 apples and 7 pears; they're on the table in the kitchen.
TEXT
"$heptapod" train --text "$out/prose.txt" --valid-text "$out/prose.txt" --init "$out/gpt2.htp" \
  -o "$out/gpt2-tuned" "${steps[@]}"
"$heptapod" generate -m "$out/gpt2-tuned/model.htp" --prompt "The dog" --max-tokens 12 --beam 1

echo "== BERT: masked language modelling, then a classifier with a fresh head"
words=("the cat sat on the mat" "where is the dog" "the dog is outside" "we like playing" "it is the cat"
       "the dog sat outside" "hello, we like the cat" "where is it?")
: > "$out/sentences.txt"
: > "$out/labels.txt"
for repeat in 1 2 3 4 5 6; do
  for line in "${words[@]}"; do
    echo "$line" >> "$out/sentences.txt"
    case "$line" in *dog*) echo dog ;; *) echo other ;; esac >> "$out/labels.txt"
  done
done
"$heptapod" train --text "$out/sentences.txt" --init "$out/bert.htp" -o "$out/bert-mlm" "${steps[@]}"
"$heptapod" score -m "$out/bert-mlm/model.htp" -i "$out/sentences.txt" -o "$out/bert-mlm/scores.txt"
"$heptapod" train --task classify --pooling cls --text "$out/sentences.txt" --labels "$out/labels.txt" \
  --valid-text "$out/sentences.txt" --valid-labels "$out/labels.txt" --init "$out/bert.htp" \
  -o "$out/bert-classifier" "${steps[@]}" --lr 1e-3
printf 'the dog sat on the mat\nwe like the cat\n' | "$heptapod" classify -m "$out/bert-classifier/best.htp" --top-k 2
printf 'the dog sat on the mat\nwe like the cat\n' | "$heptapod" embed -m "$out/bert-classifier/best.htp" | cut -c1-72

echo "== a converted classifier (BertForSequenceClassification), as it is"
"$heptapod" convert "$fixtures/bert_classifier" --from bert -o "$out/bert-classifier-converted.htp"
echo "the cat sat on the mat" | "$heptapod" classify -m "$out/bert-classifier-converted.htp" --top-k 3

echo "== LLaMA-family checkpoints (tests/fixtures/{llama,mistral,qwen2,qwen3}; tools/make_llama_fixtures.py)"
for family in llama mistral qwen2 qwen3; do
  "$heptapod" convert "$fixtures/$family" --from llama -o "$out/$family.htp"
done
"$heptapod" info -m "$out/llama.htp" | sed -n '/^model:/,/^vocab:/p'
"$heptapod" generate -m "$out/qwen2.htp" --prompt "The tokenizer" --max-tokens 8 --beam 1
"$heptapod" train --text "$out/prose.txt" --valid-text "$out/prose.txt" --init "$out/llama.htp" \
  -o "$out/llama-tuned" "${steps[@]}"
"$heptapod" quantize -m "$out/llama-tuned/model.htp" --to int8 -o "$out/llama-tuned-int8.htp"
"$heptapod" generate -m "$out/llama-tuned-int8.htp" --prompt "The dog" --max-tokens 12 --seed 1
