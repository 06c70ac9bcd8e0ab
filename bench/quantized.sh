#!/usr/bin/env bash
# Batch-1 (and batch-32) decoding speed, model file size and peak RSS of each weight type on the language
# models' shapes: each model's random weights (heptapod_bench lm-model, GPT-2's initialisation) written as a
# float32 file, quantized by `heptapod quantize` to int8, q8_0 and int4, and, where GGUF_TYPES names them,
# written by tools/gguf_requantize.py as GGUF files of ggml types (Q4_K, Q6_K, ...) from the float file's GGUF
# export; every file then generates through `heptapod_bench run --phase generate --model-file` (its stored
# types, one process each so peak RSS is the phase's). Then the table (bench/quantized_report.py).
#   bench/quantized.sh [gpt2-small|smollm-135m|lm-small ...]   (default: gpt2-small smollm-135m)
# BUILD (default build) holds the binaries; results go to OUT (default runs/bench-quantized); every phase runs
# REPEATS times (default 2), round after round, the table taking each one's fastest. ROWS (default "1 32").
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
bench=$build/bench/heptapod_bench
heptapod=$build/apps/heptapod
out=${OUT:-runs/bench-quantized}
repeats=${REPEATS:-2}
read -r -a rows_list <<< "${ROWS:-1 32}"
read -r -a gguf_types <<< "${GGUF_TYPES:-Q4_K Q6_K}"
if [ $# -gt 0 ]; then models=("$@"); else models=(gpt2-small smollm-135m); fi
mkdir -p "$out"
rm -f "$out"/*.json
for model in "${models[@]}"; do
  float=$out/$model-float32.htp
  [ -e "$float" ] || $bench lm-model --model "$model" -o "$float"
  for type in int8 q8_0 int4; do
    [ -e "$out/$model-$type.htp" ] || $heptapod quantize -m "$float" --to $type -o "$out/$model-$type.htp" >&2
  done
  if [ ${#gguf_types[@]} -gt 0 ]; then
    [ -e "$out/$model-f32.gguf" ] || $heptapod convert "$float" --to gguf --gguf-type f32 -o "$out/$model-f32.gguf" >&2
    for type in "${gguf_types[@]}"; do
      [ -e "$out/$model-$type.gguf" ] || /usr/bin/python3 tools/gguf_requantize.py "$out/$model-f32.gguf" "$type" \
        "$out/$model-$type.gguf"
    done
  fi
done
for round in $(seq 1 "$repeats"); do
  for model in "${models[@]}"; do
    files=("$out/$model-float32.htp" "$out/$model-int8.htp" "$out/$model-q8_0.htp" "$out/$model-int4.htp")
    for type in "${gguf_types[@]}"; do files+=("$out/$model-$type.gguf"); done
    for file in "${files[@]}"; do
      name=$(basename "$file"); name=${name#"$model-"}; name=${name%.*}
      for rows in "${rows_list[@]}"; do
        echo "== round $round: $model $name batch $rows" >&2
        $bench run --phase generate --model "$model" --model-file "$file" --batch "$rows" --prompt 64 --new 128 \
          --repeats 2 --threads 2 > "$out/$model-$name-$rows.$round.json"
      done
    done
  done
done
/usr/bin/python3 bench/quantized_report.py "$out" "${models[@]}"
