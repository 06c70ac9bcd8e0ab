#!/usr/bin/env bash
# Fine-tuning memory and speed with LoRA: a language model preset's random weights (heptapod_bench lm-model)
# written as a float32 file and quantized by `heptapod quantize` to int8 and int4, then fine-tuned on the
# same random 4096-token updates (4096 / context blocks, the preset's context: 1024 for gpt2-small) by
# `heptapod_bench run --phase lm-train --model-file`: in full (float32), and with LoRA adapters of rank RANK
# (default 16) on TARGETS (default "q v") over the float32, int8 and int4 files (the base frozen in the
# precision the file holds). One process per run, so peak RSS is the run's; then the table (peak RSS,
# tokens/s, trained parameters, and each against full fine-tuning).
#   bench/lora_memory.sh [gpt2-small|lm-small|smollm-135m]   (default gpt2-small)
# BUILD (default build) holds the binaries; files and results go to OUT (default runs/bench-lora); BATCHES
# (default 3) timed updates after WARMUP (default 1); REPEATS (default 1) rounds, the table taking each run's
# fastest round.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bench=$build/bench/heptapod_bench
heptapod=$build/apps/heptapod
model=${1:-gpt2-small}
out=${OUT:-runs/bench-lora}
rank=${RANK:-16}
read -r -a targets <<< "${TARGETS:-q v}"
mkdir -p "$out"
rm -f "$out"/*.json
float=$out/$model-float32.htp
[ -e "$float" ] || $bench lm-model --model "$model" -o "$float"
for type in int8 int4; do
  [ -e "$out/$model-$type.htp" ] || $heptapod quantize -m "$float" --to $type -o "$out/$model-$type.htp" >&2
done
for round in $(seq 1 "${REPEATS:-1}"); do
  for run in full float32 int8 int4; do
    echo "== round $round: $model $run" >&2
    if [ "$run" = full ]; then args=(--model-file "$float"); else args=(--model-file "$out/$model-$run.htp" --lora "$rank" --lora-targets "${targets[@]}"); fi
    $bench run --phase lm-train --model "$model" "${args[@]}" --batches "${BATCHES:-3}" --warmup "${WARMUP:-1}" \
      --threads 2 > "$out/$run.$round.json"
  done
done
/usr/bin/python3 - "$out" "$model" "$rank" "${targets[*]}" <<'PY'
import glob, json, os, sys
out, model, rank, targets = sys.argv[1:]
best = {}
for path in glob.glob(os.path.join(out, "*.json")):
    run = os.path.basename(path).split(".")[0]
    r = json.load(open(path))
    if run not in best or r["seconds"] < best[run]["seconds"]:
        best[run] = r
full = best["full"]
print(f"{model}, updates of {full['blocks']} x {full['context']} tokens, LoRA rank {rank} on {targets}")
print()
print("| run | trained parameters | peak RSS (MB) | RSS below full (MB) | tokens/s | x full |")
print("|---|---|---|---|---|---|")
for run, name in (("full", "full fine-tuning, float32"), ("float32", "LoRA over float32"),
                  ("int8", "LoRA over int8"), ("int4", "LoRA over int4")):
    if run not in best:
        continue
    r = best[run]
    speed = r["tokens"] / r["seconds"]
    full_speed = full["tokens"] / full["seconds"]
    print(f"| {name} | {r['trained_parameters']:,} | {r['peak_rss_mb']:.0f} | {full['peak_rss_mb'] - r['peak_rss_mb']:.0f} "
          f"| {speed:.0f} | {speed / full_speed:.2f}x |")
PY
