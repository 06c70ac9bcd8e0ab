#!/usr/bin/env bash
# Training throughput with bfloat16 products against float32, Heptapod's (`train --matmul-precision
# bfloat16`) and PyTorch 1.13's (CPU autocast to bfloat16), on identical work (the train phase of
# bench/vs_pytorch.sh: the same batches, Adam updates, label smoothing). One phase per process; then the
# table with the ratios (bench/train_precision_report.py).
#   bench/train_precision.sh [small|base ...]      (default: small base)
# BUILD (default build) holds bench/heptapod_bench; results go to OUT (default runs/bench-train-precision).
# Every configuration runs REPEATS times (default 2), round after round; the table takes each one's fastest
# run. The rival gets its best settings, as in vs_pytorch.sh. Needs a CPU with AVX512_BF16 (Heptapod's side
# refuses bfloat16 elsewhere, saying why). Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
results_setup runs/bench-train-precision 2 "$@"
$bench workload -o "$out/workload.json" --train-batches 6 --translate-batches 1 --latency-sentences 2
rm -f "$out"/heptapod-*.json "$out"/pytorch-*.json
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    for type in float32 bfloat16; do
      echo "== round $round: $model train heptapod $type" >&2
      $bench run --workload "$out/workload.json" --model "$model" --phase train --threads 2 --compute-type "$type" \
        > "$out/heptapod-$type-train-$model.$round.json"
      echo "== round $round: $model train pytorch $type" >&2
      run_rival --workload "$out/workload.json" --model "$model" --phase train --compute-type "$type" \
        > "$out/pytorch-$type-train-$model.$round.json"
    done
  done
done
{
  machine_line
  echo
  /usr/bin/python3 bench/train_precision_report.py "$out" "${models[@]}"
} | tee "$out/table.md"
