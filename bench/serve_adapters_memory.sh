#!/usr/bin/env bash
# What LoRA adapters cost a server: the resident memory (VmRSS, after one completion from every model) of
# `heptapod serve` holding a language model alone, the model with three adapters over it (--adapter NAME=FILE,
# sharing its weights), and four separate copies of the model (what serving merged models would cost).
#   bench/serve_adapters_memory.sh [--compute-type int8|float32|bfloat16] [TEXT]
# The model is bench/serve_models' untrained GPT (d_model 512, 6 layers, 21 M parameters, a vocabulary of 4000
# pieces trained on TEXT, default runs/bible/data/test.en); the adapters are one `heptapod train --lora 8`
# run of 2 steps on TEXT, copied three times (memory does not depend on their values). BUILD (default build)
# holds apps/heptapod and bench/serve_models; files go to OUT (default runs/bench/serve-adapters). A minute.
set -euo pipefail
build=${BUILD:-build}
out=${OUT:-runs/bench/serve-adapters}
compute_type=int8
if [ "${1:-}" = "--compute-type" ]; then
  compute_type=$2
  shift 2
fi
text=${1:-runs/bible/data/test.en}
for b in "$build/apps/heptapod" "$build/bench/serve_models"; do
  [ -x "$b" ] || { echo "no $b: build first" >&2; exit 1; }
done
heptapod=$build/apps/heptapod
mkdir -p "$out"
lm=$out/lm.htp
[ -f "$lm" ] || "$build/bench/serve_models" --text "$text" --lm "$lm" --vocab-size 4000
if [ ! -f "$out/a3.htp" ]; then
  rm -rf "$out/run"
  "$heptapod" train --init "$lm" --lora 8 --text "$text" -o "$out/run" --context 32 --steps 2 --batch-tokens 128 \
      > "$out/train.log" 2>&1 || { tail "$out/train.log" >&2; exit 1; }
  for i in 1 2 3; do cp "$out/run/adapter.htp" "$out/a$i.htp"; done
fi

# measure LABEL NAME=FILE...: serves the models (-m for the first, the others --adapter ADAPTERS=1 or -m),
# asks each for a completion, prints the server's VmRSS and VmHWM.
measure() {
  local label=$1
  shift
  "$heptapod" serve --port 0 --compute-type "$compute_type" "$@" > "$out/serve.log" 2>&1 &
  local pid=$! names port
  names=$(printf '%s\n' "$@" | grep = | sed 's/=.*//')
  for _ in $(seq 600); do
    [ "$(grep -c ' loaded ' "$out/serve.log" || true)" -ge "$(echo "$names" | wc -l)" ] && break
    sleep 0.2
  done
  port=$(grep -o 'http://[0-9.]*:[0-9]*' "$out/serve.log" | head -1 | sed 's/.*://')
  for m in $names; do
    curl -sf "localhost:$port/v1/completions" -o /dev/null \
        -d "{\"model\": \"$m\", \"prompt\": \"In the beginning\", \"max_tokens\": 8, \"temperature\": 0}"
  done
  printf '%-32s VmRSS %7d kB   VmHWM %7d kB\n' "$label:" "$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")" \
      "$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")"
  kill "$pid"
  wait "$pid" 2> /dev/null || true
}
echo "heptapod serve, $compute_type, $(nproc) cores; adapters of $(stat -c %s "$out/a1.htp") bytes"
measure "the model alone" -m "lm=$lm"
measure "the model + 3 adapters" -m "lm=$lm" --adapter "a1=$out/a1.htp" --adapter "a2=$out/a2.htp" \
    --adapter "a3=$out/a3.htp"
measure "4 copies of the model" -m "lm=$lm" -m "b=$lm" -m "c=$lm" -m "d=$lm"
