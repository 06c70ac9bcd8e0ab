#!/usr/bin/env bash
# Low-precision translation against float32, Heptapod's own and PyTorch 1.13's, on identical work (the
# workload of bench/vs_pytorch.sh): beam-4 and greedy batches of 32 and batch-1 greedy latency, for Heptapod
# in float32, int8 and bfloat16 and for PyTorch in float32 and with dynamic int8 quantization of every linear
# layer (torch.quantization.quantize_dynamic). One phase per process, so peak RSS is the phase's; then the
# table with the goals checked (bench/low_precision_report.py).
#   bench/low_precision.sh [small|base ...]      (default: small base)
# BUILD (default build) holds bench/heptapod_bench; results go to OUT (default runs/bench-low-precision).
# Every configuration runs REPEATS times (default 2), round after round; the table takes each one's fastest
# run. The rival gets its best settings, as in vs_pytorch.sh. Run it on an otherwise idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
results_setup runs/bench-low-precision 2 "$@"
$bench workload -o "$out/workload.json" --train-batches 1 --translate-batches 8 --latency-sentences 12
rm -f "$out"/heptapod-*.json "$out"/pytorch-*.json
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    for phase in beam4 greedy latency; do
      for type in float32 int8 bfloat16; do
        echo "== round $round: $model $phase heptapod $type" >&2
        $bench run --workload "$out/workload.json" --model "$model" --phase "$phase" --threads 2 --compute-type "$type" \
          > "$out/heptapod-$type-$phase-$model.$round.json"
      done
      for type in float32 int8; do
        echo "== round $round: $model $phase pytorch $type" >&2
        run_rival --workload "$out/workload.json" --model "$model" --phase "$phase" --compute-type "$type" \
          > "$out/pytorch-$type-$phase-$model.$round.json"
      done
    done
  done
done
print_table bench/low_precision_report.py
