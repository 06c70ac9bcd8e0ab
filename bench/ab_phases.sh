#!/usr/bin/env bash
# Two builds of heptapod_bench on the same work, phase by phase: each phase (train, beam4, greedy, latency;
# translation phases also in int8 and bfloat16) runs for the old and the new binary alternately, REPEATS
# (3) times each, and the table gives the best time of each and new/old. For a change that must not move speed
# (a refactoring): every ratio should be within the machine's noise of 1. CASES="phase:type ..." runs some
# of them only.
#
#   bench/ab_phases.sh OLD/heptapod_bench [NEW/heptapod_bench] [MODEL...]   (default: build/bench, small)
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_HEPTAPOD_BENCH [NEW_HEPTAPOD_BENCH] [MODEL...]}
new=${2:-build/bench/heptapod_bench}
shift $(($# >= 2 ? 2 : 1))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(small)
repeats=${REPEATS:-3}
out=${OUT:-runs/ab}
mkdir -p "$out"
rm -f "$out"/*.json
"$new" workload -o "$out/workload.json" --train-batches 6 --translate-batches 8 --latency-sentences 12
read -r -a cases <<< "${CASES:-train:float32 beam4:float32 greedy:float32 latency:float32 beam4:int8 beam4:bfloat16}"
for model in "${models[@]}"; do
  for c in "${cases[@]}"; do
    phase=${c%%:*} type=${c##*:}
    for round in $(seq 1 "$repeats"); do
      for side in old new; do
        bin=$old
        [ $side = new ] && bin=$new
        "$bin" run --workload "$out/workload.json" --model "$model" --phase "$phase" --compute-type "$type" \
          --threads 2 > "$out/$side-$model-$phase-$type.$round.json"
      done
    done
    echo "== $model $phase $type" >&2
  done
done
/usr/bin/python3 - "$out" "${cases[*]}" "${models[@]}" <<'PY'
import json, pathlib, sys
out, cases, models = pathlib.Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
print("| model | phase | compute | old best s | new best s | new / old |")
print("|---|---|---|---|---|---|")
for m in models:
    for case in cases:
        phase, kind = case.split(":")
        best = {side: min(json.loads(f.read_text())["seconds"] for f in out.glob(f"{side}-{m}-{phase}-{kind}.*.json"))
                for side in ("old", "new")}
        print(f"| {m} | {phase} | {kind} | {best['old']:.3f} | {best['new']:.3f} | {best['new'] / best['old']:.3f} |")
PY
