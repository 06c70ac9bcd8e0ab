#!/usr/bin/env bash
# The demo, end to end on a fresh Debian 12 machine: installs dependencies, builds, makes the verse-aligned
# Spanish->English Bible corpus from Debian's SWORD packages (examples/bible-es-en), trains the small preset
# for 1500 updates (about 10 minutes on 2 cores), reports BLEU and chrF on the held-out test books (Mark,
# Ruth, Jonah), and shows translations. About 15 minutes in all. STEPS sets another update budget; other
# `heptapod train` flags may be appended; rerunning resumes runs/demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
heptapod=build/apps/heptapod
out=runs/demo
$heptapod info
STEPS=${STEPS:-1500} BIBLE_OUT=$out examples/bible-es-en/run.sh "$@"
echo "== your own input (Spanish => English):"
own=$out/own.es
printf '%s\n' "Y Jesús les dijo: Venid a mí, y yo os daré descanso." "El rey mandó a sus siervos a la ciudad." > "$own"
$heptapod translate -m "$out/model.htp" -i "$own" | paste -d'\n' "$own" - | sed 'n;s/^/  => /'
$heptapod plot "$out/metrics.jsonl" -o "$out/curves.svg"
echo "model: $out/model.htp  metrics: $out/metrics.jsonl  curves: $out/curves.svg"
