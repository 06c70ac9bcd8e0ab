#!/usr/bin/env bash
# Data-parallel training on this machine (docs/distributed.md): target tokens/s of the small and base models
# at 1 rank x 1 thread, 2 ranks x 1 thread (mpirun, TCP on loopback, as separate machines would talk) and
# 1 rank x 2 threads, with the sgemm ceiling on the training GEMM shapes on one core and on two measured in
# the same run. Goals: the 2-rank speed-up over 1 rank >= 92% of the ceiling's own two-core speed-up, and
# 2 ranks x 1 thread at least as fast as 1 rank x 2 threads. ROUNDS (default 2) rounds; the best of each.
#   bench/distributed.sh            # results and the table in OUT (default runs/bench/distributed)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
need_built "$bench"
out=${OUT:-runs/bench/distributed}
rounds=${ROUNDS:-2}
mkdir -p "$out"
mpirun_lo() {
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --mca btl self,tcp --mca btl_tcp_if_include lo \
    --mca oob_tcp_if_include lo "$@"
}
$bench workload -o "$out/workload.json" --train-batches 12 --translate-batches 1 --latency-sentences 1
for round in $(seq "$rounds"); do
  for model in small base; do
    w=(--workload "$out/workload.json" --model "$model")
    echo "== round $round, $model" >&2
    $bench ceiling "${w[@]}" --threads 1 > "$out/ceiling1-$model.$round.json"
    $bench ceiling "${w[@]}" --threads 2 > "$out/ceiling2-$model.$round.json"
    $bench run "${w[@]}" --phase train --threads 1 > "$out/r1t1-$model.$round.json"
    $bench run "${w[@]}" --phase train --threads 2 > "$out/r1t2-$model.$round.json"
    mpirun_lo -np 2 --bind-to core $bench run "${w[@]}" --phase train --threads 1 > "$out/r2t1-$model.$round.json"
    mpirun_lo -np 2 --bind-to core $bench run "${w[@]}" --phase allreduce --threads 1 > "$out/allreduce-$model.$round.json"
  done
done
/usr/bin/python3 - "$out" "$rounds" <<'PY'
import json, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def best(name, model, key):
    vals = [json.load(open(f"{out}/{name}-{model}.{r}.json"))[key] for r in range(1, rounds + 1)]
    return max(vals)
print("| model | ceiling 1 core GFLOP/s | ceiling 2 cores | ceiling speed-up | 1 rank x 1 thread tok/s | 1 rank x 2 threads | 2 ranks x 1 thread | 2-rank speed-up | share of ceiling's | 2 ranks / 2 threads |")
print("|---|---|---|---|---|---|---|---|---|---|")
goals, notes = [], []
for model in ("small", "base"):
    c1, c2 = best("ceiling1", model, "gflops"), best("ceiling2", model, "gflops")
    a, b, d = (best(n, model, "tokens_per_second") for n in ("r1t1", "r1t2", "r2t1"))
    share = (d / a) / (c2 / c1)
    ar = json.load(open(f"{out}/allreduce-{model}.1.json"))
    notes.append(f"{model}: all-reduce of {ar['bytes']/1e6:.0f} MB between 2 ranks over TCP on loopback: "
                 f"{1000*ar['seconds']:.0f} ms ({ar['bus_gbytes_per_second']:.2f} GB/s bus bandwidth)")
    print(f"| {model} | {c1:.0f} | {c2:.0f} | {c2/c1:.2f}x | {a:.0f} | {b:.0f} | {d:.0f} | {d/a:.2f}x | {100*share:.0f}% | {d/b:.2f}x |")
    goals.append((model, share >= 0.92, d >= b))
for line in notes:
    print(line)
for model, g1, g2 in goals:
    print(f"{model}: 2-rank speed-up >= 92% of the ceiling's: {'met' if g1 else 'NOT met'}; "
          f"2 ranks x 1 thread >= 1 rank x 2 threads: {'met' if g2 else 'NOT met'}")
PY
