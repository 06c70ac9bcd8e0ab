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
build=${BUILD:-build}
out=${OUT:-runs/bench-low-precision}
repeats=${REPEATS:-2}
if [ $# -gt 0 ]; then models=("$@"); else models=(small base); fi
bench=$build/bench/heptapod_bench
tcmalloc=/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4
[ -x "$bench" ] || { echo "no $bench: build first (scripts/build.sh)" >&2; exit 1; }
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null || [ ! -e $tcmalloc ]; then
  echo "the rival needs python3-torch and libtcmalloc-minimal4: apt-get install python3-torch libtcmalloc-minimal4" >&2
  exit 1
fi
mkdir -p "$out"
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
        env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE LD_PRELOAD=$tcmalloc OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 \
          bench/pytorch_rival.py --workload "$out/workload.json" --model "$model" --phase "$phase" --threads 2 \
          --compute-type "$type" 2> >(grep -v 'qlinear_dynamic' >&2) > "$out/pytorch-$type-$phase-$model.$round.json"
      done
    done
  done
done
{
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u +%Y-%m-%d)"
  echo
  /usr/bin/python3 bench/low_precision_report.py "$out" "${models[@]}"
} | tee "$out/table.md"
