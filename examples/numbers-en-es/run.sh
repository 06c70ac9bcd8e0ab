#!/usr/bin/env bash
# A one-minute check that needs no data from outside: trains the tiny preset on the built-in English->Spanish
# numbers corpus (tests/data, made by tools/make_numbers_corpus.py), evaluates it with BLEU/chrF on held-out
# sentences and shows a few translations. Run from the repository root after scripts/build.sh (HEPTAPOD
# names another binary). Rerunning resumes (or reuses) runs/numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=tests/data
out=runs/numbers
mkdir -p "$out"
$heptapod train --source $data/numbers.train.en --target $data/numbers.train.es \
  --valid-source $data/numbers.dev.en --valid-target $data/numbers.dev.es -o "$out" \
  --preset tiny --vocab-size 200 --batch-tokens 2048 --warmup 100 --steps 600 --valid-every 200 "$@"
$heptapod translate -m "$out/model.htp" -i $data/numbers.dev.en -o "$out/dev.hyp"
echo "== held-out sentences (beam 4):"
$heptapod bleu $data/numbers.dev.es -i "$out/dev.hyp" --metrics bleu,chrf
echo "== examples (source => translation):"
paste -d'\t' <(head -5 $data/numbers.dev.en) <(head -5 "$out/dev.hyp") | sed 's/\t/  =>  /'
echo "== your own input:"
printf 'two hundred and forty-one\nninety-nine thousand nine hundred and ninety-nine\n' | $heptapod translate -m "$out/model.htp"
$heptapod plot "$out/metrics.jsonl" -o "$out/curves.svg"
echo "model: $out/model.htp  metrics: $out/metrics.jsonl  curves: $out/curves.svg"
