#!/usr/bin/env bash
# The demo, end to end on a fresh Debian 12 machine: installs dependencies, builds the heptapod binary, makes
# the verse-aligned Spanish->English Bible corpus from Debian's SWORD packages (examples/bible-es-en), trains
# the small preset for 3000 updates without attention or FFN-activation dropout (about 13 minutes on 2 cores;
# settings chosen on the dev books, docs/quality.md), averages the last 3 checkpoints (one every 250 updates),
# reports BLEU and chrF on the held-out test books (Mark, Ruth, Jonah), and shows translations. About 20
# minutes in all. STEPS sets another update budget; other `heptapod train` flags may be appended; rerunning
# resumes runs/demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_TARGET=heptapod scripts/build.sh
heptapod=build/apps/heptapod
out=runs/demo
$heptapod info
STEPS=${STEPS:-3000} VALID_EVERY=250 AVERAGE=3 DROPOUT=0.1 INNER_DROPOUT=0 BIBLE_OUT=$out \
  examples/bible-es-en/run.sh "$@"
echo "== your own input (Spanish => English):"
own=$out/own.es
printf '%s\n' "Y Jesús les dijo: Venid a mí, y yo os daré descanso." "El rey mandó a sus siervos a la ciudad." > "$own"
$heptapod translate -m "$out/averaged.htp" -i "$own" | paste -d'\n' "$own" - | sed 'n;s/^/  => /'
$heptapod plot "$out/metrics.jsonl" -o "$out/curves.svg"
echo "model: $out/averaged.htp (the average of the last 3 checkpoints; the last alone: $out/model.htp)  metrics: $out/metrics.jsonl  curves: $out/curves.svg"
