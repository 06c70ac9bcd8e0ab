#!/usr/bin/env bash
# make_model.sh HEPTAPOD DATA_DIR OUT_DIR: trains the tiny preset on the numbers corpus (DATA_DIR, i.e.
# tests/data) for 150 updates, a few seconds on 2 cores, and leaves OUT_DIR/model.htp (and nothing else of
# use) for the packaging tests to translate with. The translations need not be good, only deterministic;
# 150 updates make them short and number-like (an untrained model runs to the length limit).
set -euo pipefail
if (($# != 3)); then
  echo "usage: $0 HEPTAPOD DATA_DIR OUT_DIR" >&2
  exit 2
fi
heptapod=$1 data=$2 out=$3
rm -rf "$out"
mkdir -p "$out"
"$heptapod" train --source "$data/numbers.train.en" --target "$data/numbers.train.es" -o "$out" \
  --preset tiny --vocab-size 200 --batch-tokens 2048 --warmup 50 --steps 150 --valid-every 150 \
  --keep-checkpoints 1 --threads 2 --seed 1
[[ -s "$out/model.htp" ]] || { echo "make_model.sh: $heptapod train left no $out/model.htp" >&2; exit 1; }
