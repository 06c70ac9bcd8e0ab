#!/usr/bin/env bash
# Heptapod's language models against PyTorch 1.13 (bench/pytorch_gpt.py) on identical work, one phase per
# process on each side, then the table (bench/lm_report.py): training tokens/s in float32 and with bfloat16
# products (PyTorch: bf16 autocast), generation tokens/s at batch 1 and 32 (prompt 64, 128 new tokens) in
# float32, int8 and bfloat16 (PyTorch: its float32, dynamic int8 and bf16 autocast, with a key/value cache),
# batch-1 float32 generation against the weight-reading floor, peak RSS, and the goals checked.
#   bench/lm_vs_pytorch.sh [lm-small|gpt2-small|smollm-135m ...]      (default: lm-small gpt2-small)
# BUILD (default build) holds bench/heptapod_bench; results and the table go to OUT (default runs/lm-bench).
# Everything runs REPEATS times (default 2), each round over all models and phases; the table takes each
# side's fastest run of a phase and lists every run. TRAIN_BATCHES (default 3) timed updates of 4096 tokens
# after two untimed; GENERATE_REPEATS (default 2) timed rounds after one untimed. Run it on an otherwise idle
# machine; both sides use both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
DEFAULT_MODELS="lm-small gpt2-small" results_setup runs/lm-bench 2 "$@"
[ -f bench/pytorch_gpt.py ] || { echo "no bench/pytorch_gpt.py" >&2; exit 1; }
train_batches=${TRAIN_BATCHES:-3}
generate_repeats=${GENERATE_REPEATS:-2}
rm -f "$out"/heptapod-*.json "$out"/pytorch-*.json
both() { run_both bench/pytorch_gpt.py "$@"; }  # NAME ROUND ARGS...
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    echo "== round $round: $model ceiling" >&2
    $bench ceiling --model "$model" --threads 2 > "$out/heptapod-ceiling-$model.$round.json"
    for type in float32 bfloat16; do
      both "train-$type-$model" "$round" --phase lm-train --model "$model" --compute-type $type --batches "$train_batches" --warmup 2
    done
    for rows in 1 32; do
      for type in float32 int8 bfloat16; do
        both "generate$rows-$type-$model" "$round" --phase generate --model "$model" --batch $rows --prompt 64 --new 128 \
          --compute-type $type --repeats "$generate_repeats"
      done
    done
  done
done
print_table bench/lm_report.py
