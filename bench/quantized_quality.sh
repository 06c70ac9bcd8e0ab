#!/usr/bin/env bash
# What each compute type costs a translation model in quality: the per-token log-probability error against
# float32 on the test references (`heptapod score --per-token`, teacher-forced) and test BLEU / chrF2 with
# beam 4, for float32, int8 (per-row scales, activations per token), q8_0 (blocks of 32, activations per block
# of 32), int4 (Q4_0 blocks of 32, the output projection in Q8_0) and bfloat16, each converted at load from the
# float model; then one table (bench/quantized_quality_report.py). TYPES="q8_0 int4" reruns only those.
#   bench/quantized_quality.sh [MODEL [SOURCE REFERENCE]]
# Defaults: the demo's model (runs/demo/averaged.htp, scripts/demo.sh) and the Bible test books
# (runs/bible/data/test.es, test.en). BUILD (default build) holds apps/heptapod; results go to OUT (default
# runs/bench-quantized-quality).
set -euo pipefail
cd "$(dirname "$0")/.."
model=${1:-runs/demo/averaged.htp}
source=${2:-runs/bible/data/test.es}
reference=${3:-runs/bible/data/test.en}
heptapod=${BUILD:-build}/apps/heptapod
out=${OUT:-runs/bench-quantized-quality}
mkdir -p "$out"
types=(float32 int8 q8_0 int4 bfloat16)
read -r -a run_types <<< "${TYPES:-${types[*]}}"  # TYPES: rerun only these, the others' results kept in OUT
for type in "${run_types[@]}"; do
  echo "== $type" >&2
  $heptapod score -m "$model" --source "$source" --target "$reference" --per-token --compute-type "$type" \
    -o "$out/score-$type.txt"
  $heptapod translate -m "$model" -i "$source" -o "$out/hyp-$type.txt" --beam 4 --compute-type "$type"
  $heptapod bleu "$reference" -i "$out/hyp-$type.txt" --metrics bleu,chrf > "$out/bleu-$type.txt"
done
/usr/bin/python3 bench/quantized_quality_report.py "$out" "$model" "${types[@]}"
