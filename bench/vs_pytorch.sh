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
build=${BUILD:-build}
out=${OUT:-runs/bench}
repeats=${REPEATS:-3}
if [ $# -gt 0 ]; then models=("$@"); else models=(small base); fi
bench=$build/bench/heptapod_bench
tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
[ -x "$bench" ] || { echo "no $bench: build first (scripts/build.sh)" >&2; exit 1; }
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || [ ! -e $tcmalloc ]; then
  echo "the rival needs python3-torch and libtcmalloc-minimal4: apt-get install python3-torch libtcmalloc-minimal4" >&2
  exit 1
fi
mkdir -p "$out"
$bench workload -o "$out/workload.json" --train-batches 6 --translate-batches 8 --latency-sentences 12
rm -f "$out"/heptapod-*.json "$out"/pytorch-*.json
run_both() {  # model phase round
  echo "== round $3: $1 $2" >&2
  $bench run --workload "$out/workload.json" --model "$1" --phase "$2" --threads 2 > "$out/heptapod-$2-$1.$3.json"
  # (OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE, where the machine sets them, hold OpenBLAS to its AVX2 kernels: the
  # rival runs without them, as its AVX-512 kernels are faster.)
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_PRELOAD=$tcmalloc OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 bench/pytorch_rival.py \
    --workload "$out/workload.json" --model "$1" --phase "$2" --threads 2 > "$out/pytorch-$2-$1.$3.json"
}
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    echo "== round $round: $model ceiling" >&2
    $bench ceiling --workload "$out/workload.json" --model "$model" --threads 2 > "$out/heptapod-ceiling-$model.$round.json"
    for phase in train beam4 greedy latency; do run_both "$model" "$phase" "$round"; done
  done
done
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u +%Y-%m-%d)"
  echo
  /usr/bin/python3 bench/report.py "$out" "${models[@]}"
} | tee "$out/table.md"
