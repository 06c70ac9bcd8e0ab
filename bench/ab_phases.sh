#!/usr/bin/env bash
# Two builds of heptapod_bench on the same work, phase by phase: each case (MODEL:PHASE:TYPE) runs for the old
# and the new binary alternately, REPEATS (3) times each, and the table gives the best time of each and
# new/old. For a change that must not move speed (a refactoring): every ratio should be within the machine's
# noise of 1. The cases cover every kind: translation (small: training, beam 4 and greedy search, one-sentence
# latency; beam 4 in int8 and bfloat16), a language model (lm-small: training; generation of 32 prompts in
# float32 and int8, and of one prompt in int8) and an encoder (enc-small: masked-LM training; embedding of 32
# inputs in float32 and int8). CASES="MODEL:PHASE:TYPE ..." runs some of them only.
#
#   bench/ab_phases.sh OLD/heptapod_bench [NEW/heptapod_bench]   (default: build/bench/heptapod_bench)
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: $0 OLD_HEPTAPOD_BENCH [NEW_HEPTAPOD_BENCH]}
new=${2:-build/bench/heptapod_bench}
repeats=${REPEATS:-3}
out=${OUT:-runs/ab}
mkdir -p "$out"
rm -f "$out"/*.json
"$new" workload -o "$out/workload.json" --train-batches 6 --translate-batches 8 --latency-sentences 12
default_cases="small:train:float32 small:beam4:float32 small:greedy:float32 small:latency:float32 small:beam4:int8
  small:beam4:bfloat16 lm-small:lm-train:float32 lm-small:generate:float32 lm-small:generate:int8
  lm-small:generate-1:int8 enc-small:mlm-train:float32 enc-small:embed:float32 enc-small:embed:int8"
read -r -a cases <<< "$(echo ${CASES:-$default_cases})"
for c in "${cases[@]}"; do
  IFS=: read -r model phase type <<< "$c"
  args=(--phase "$phase")
  case $phase in
    generate) args+=(--batch 32 --prompt 32 --new 32) ;;
    generate-1) args=(--phase generate --batch 1 --prompt 32 --new 64) ;;
    embed) args+=(--batch 32 --repeats 5) ;;
    lm-train | mlm-train) args+=(--batches 3 --warmup 1) ;;
  esac
  for round in $(seq 1 "$repeats"); do
    for side in old new; do
      bin=$old
      [ $side = new ] && bin=$new
      "$bin" run --workload "$out/workload.json" --model "$model" "${args[@]}" --compute-type "$type" \
        --threads 2 > "$out/$side-$model-$phase-$type.$round.json"
    done
  done
  echo "== $model $phase $type" >&2
done
/usr/bin/python3 - "$out" "${cases[*]}" <<'PY'
import json, pathlib, sys
out, cases = pathlib.Path(sys.argv[1]), sys.argv[2].split()
print("| model | phase | compute | old best s | new best s | new / old |")
print("|---|---|---|---|---|---|")
for case in cases:
    m, phase, kind = case.split(":")
    best = {side: min(json.loads(f.read_text())["seconds"] for f in out.glob(f"{side}-{m}-{phase}-{kind}.*.json"))
            for side in ("old", "new")}
    print(f"| {m} | {phase} | {kind} | {best['old']:.3f} | {best['new']:.3f} | {best['new'] / best['old']:.3f} |")
PY
