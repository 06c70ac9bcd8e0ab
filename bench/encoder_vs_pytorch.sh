#!/usr/bin/env bash
# Heptapod's encoder-only models against PyTorch 1.13 (bench/pytorch_bert.py) on identical work, one phase per
# process on each side, then the table (bench/encoder_report.py): embedding throughput at batch 32 and
# latency at batch 1 of 128-token inputs in float32, int8 and bfloat16 (PyTorch: float32, dynamic int8 and
# bf16 autocast, under inference_mode), and masked-language-model training tokens/s in float32 and with
# bfloat16 products (PyTorch: bf16 autocast), peak RSS, and the goals checked.
#   bench/encoder_vs_pytorch.sh [enc-small|bert-base ...]      (default: enc-small bert-base)
# BUILD (default build) holds bench/heptapod_bench; results and the table go to OUT (default
# runs/encoder-bench). Everything runs REPEATS times (default 2), each round over all models and phases; the
# table takes each side's best run of a phase and lists every run. EMBED_REPEATS (default 5) timed batches
# after one untimed; TRAIN_BATCHES (default 3) timed updates of 4096 tokens after one untimed. Run it on an
# otherwise idle machine; both sides use both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
DEFAULT_MODELS="enc-small bert-base" results_setup runs/encoder-bench 2 "$@"
[ -f bench/pytorch_bert.py ] || { echo "no bench/pytorch_bert.py" >&2; exit 1; }
embed_repeats=${EMBED_REPEATS:-5}
train_batches=${TRAIN_BATCHES:-3}
rm -f "$out"/heptapod-*.json "$out"/pytorch-*.json
both() { run_both bench/pytorch_bert.py "$@"; }  # NAME ROUND ARGS...
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    for rows in 32 1; do
      for type in float32 int8 bfloat16; do
        both "embed$rows-$type-$model" "$round" --phase embed --model "$model" --batch $rows \
          --compute-type $type --repeats "$embed_repeats" --warmup 1
      done
    done
    for type in float32 bfloat16; do
      both "mlm-train-$type-$model" "$round" --phase mlm-train --model "$model" --compute-type $type \
        --batches "$train_batches" --warmup 1
    done
  done
done
print_table bench/encoder_report.py
