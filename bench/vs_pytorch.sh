#!/usr/bin/env bash
# Heptapod against PyTorch 1.13 on identical work, one phase per process on each side, then the table
# (bench/report.py): training and translation throughput, batch-1 latency, peak RSS, GFLOP/s against the
# measured sgemm ceiling, and the goals of docs/benchmarks.md checked.
#   bench/vs_pytorch.sh [small|base ...]      (default: small base)
# BUILD (default build) holds bench/heptapod_bench; results and the table go to OUT (default runs/bench).
# Everything runs REPEATS times (default 3), each round over all models and phases, so that a burst of load
# from elsewhere on a shared machine hits one round rather than all runs of a phase; the table takes each
# side's fastest run of a phase (the ceiling's highest) and its largest peak RSS, and lists every run.
# The rival gets its best settings: 2 threads, tcmalloc preloaded, OMP_WAIT_POLICY=PASSIVE, OpenBLAS free to
# pick its AVX-512 kernels. Run it on an otherwise idle machine; both sides use both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
results_setup runs/bench 3 "$@"
$bench workload -o "$out/workload.json" --train-batches 6 --translate-batches 8 --latency-sentences 12
rm -f "$out"/heptapod-*.json "$out"/pytorch-*.json
run_both() {  # model phase round
  echo "== round $3: $1 $2" >&2
  $bench run --workload "$out/workload.json" --model "$1" --phase "$2" --threads 2 > "$out/heptapod-$2-$1.$3.json"
  run_rival --workload "$out/workload.json" --model "$1" --phase "$2" > "$out/pytorch-$2-$1.$3.json"
}
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    echo "== round $round: $model ceiling" >&2
    $bench ceiling --workload "$out/workload.json" --model "$model" --threads 2 > "$out/heptapod-ceiling-$model.$round.json"
    for phase in train beam4 greedy latency; do run_both "$model" "$phase" "$round"; done
  done
done
print_table bench/report.py
