#!/usr/bin/env bash
# Classifying Debian packages into their archive Section (58 classes) from their descriptions, three ways on
# one split (prepare.sh: bookworm main, split by source package):
#   1. an encoder pre-trained by masked language modelling on the training split's descriptions (never dev or
#      test), then fine-tuned with a classification head;
#   2. the same architecture and vocabulary trained on the labels alone, for the wall time of 1 and its
#      fine-tuning together;
#   3. TF-IDF features of words and word pairs and logistic regression (python3-sklearn), tuned on dev (tfidf_baseline.py).
# Then each one's test accuracy and macro-F1 (`heptapod score --labels`) and the time it took, in
# $OUT/results.md. The encoders: 4 post-norm layers, d_model 256, 4 heads, GELU, learned positions, 128-token
# inputs, an 8000-piece vocabulary. PRETRAIN_MINUTES and FINETUNE_MINUTES (default 20 and 6) are the
# updates' time (`train --minutes`); the from-scratch run gets their sum. Run from the repository root after
# scripts/build.sh; rerunning skips what is done (training resumes, and a run that used its time stops at once).
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
out=${OUT:-runs/debian-sections}
pretrain_minutes=${PRETRAIN_MINUTES:-20}
finetune_minutes=${FINETUNE_MINUTES:-6}
data=$out/data
[ -f "$data/lists.txt" ] || examples/debian-sections/prepare.sh "$data"
shape=(--preset small --layers 4 --dropout 0.1 --seed 1 --threads "${THREADS:-0}")
classify=(--task classify --context 128 --text "$data/train.txt" --labels "$data/train.labels" --valid-text "$data/dev.txt"
          --valid-labels "$data/dev.labels" --batch-tokens 4096 --valid-every 250 --log-every 50)
timed() {  # timed NAME COMMAND...: runs it, appending its wall seconds to $out/times
  local start=$SECONDS
  "${@:2}"
  echo "$1 $((SECONDS - start))" >> "$out/times"
}
mkdir -p "$out"
echo "== 1. pre-training (masked language modelling, $pretrain_minutes minutes)"
timed pretrain $heptapod train --arch encoder-only --text "$data/train.txt" --valid-text "$data/dev.txt" \
  --documents lines --context 128 -o "$out/pretrain" "${shape[@]}" --vocab-size 8000 --batch-tokens 8192 \
  --lr-schedule inverse-sqrt --lr 7e-4 --warmup 500 --clip-norm 1 --valid-every 1000 --log-every 100 \
  --minutes "$pretrain_minutes"
echo "== 1. fine-tuning ($finetune_minutes minutes)"
timed finetune $heptapod train --init "$out/pretrain/model.htp" "${classify[@]}" -o "$out/finetune" \
  --lr 2e-4 --warmup 200 --seed 1 --threads "${THREADS:-0}" --minutes "$finetune_minutes"
scratch_minutes=$(awk -v a="$pretrain_minutes" -v b="$finetune_minutes" 'BEGIN { print a + b }')
echo "== 2. from scratch ($scratch_minutes minutes)"
timed scratch $heptapod train --arch encoder-only "${classify[@]}" -o "$out/scratch" "${shape[@]}" \
  --vocab "$out/pretrain/vocab.spm" --lr-schedule inverse-sqrt --lr 7e-4 --warmup 500 --clip-norm 1 \
  --minutes "$scratch_minutes"
echo "== 3. TF-IDF and logistic regression"
scripts/apt-install.sh python3-sklearn
[ -f "$out/tfidf.json" ] || timed tfidf /usr/bin/python3 examples/debian-sections/tfidf_baseline.py "$data" "$out/tfidf.json"
echo "== test"
{
  echo "| system | test accuracy | test macro-F1 | wall time |"
  echo "|---|---|---|---|"
  seconds() { awk -v n="$1" '$1 == n { s += $2 } END { printf "%.1f min", s / 60 }' "$out/times"; }
  for run in finetune scratch; do
    $heptapod score -m "$out/$run/model.htp" -i "$data/test.txt" --labels "$data/test.labels" \
      -o "$out/$run/test.scores" --summary "$out/$run/test.json"
    wall=$([ $run = finetune ] && echo "$(seconds pretrain) + $(seconds finetune)" || seconds scratch)
    /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("| %s | %.4f | %.4f | %s |" % (sys.argv[2], r["accuracy"], r["macro_f1"], sys.argv[3]))' \
      "$out/$run/test.json" "$run" "$wall"
  done
  /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("| tfidf (C=%g) | %.4f | %.4f | %.1f min |" % (r["C"], r["test_accuracy"], r["test_macro_f1"], r["seconds"]/60))' "$out/tfidf.json"
  cat "$data/lists.txt"
} | tee "$out/results.md"
