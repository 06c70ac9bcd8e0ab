#!/usr/bin/env bash
# A language model of English prose, end to end: the World English Bible (prepare.sh; chapters as documents,
# whole books held out), an 8000-piece BPE vocabulary, a decoder-only model of the small preset's shape
# (6 pre-norm layers, d_model 256, 4 heads, context 256) trained for a fixed budget of updates, then the
# held-out test books' perplexity and bits per character (`heptapod score`) and samples (`heptapod generate`).
# Run from the repository root after scripts/build.sh. STEPS sets the update budget (default 1000, about 12
# minutes on 2 cores when the machine is otherwise idle), VALID_EVERY the updates between validations; other
# `heptapod train` flags may be appended. Rerunning resumes training (a larger STEPS goes on from there).
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=runs/bible-lm/data
out=${LM_OUT:-runs/bible-lm/small}
examples/bible-lm/prepare.sh "$data"
$heptapod train --arch decoder-only --text $data/train.txt --valid-text $data/dev.txt --documents paragraphs \
  -o "$out" --preset small --layers 6 --norm pre --context 256 --vocab-size 8000 --batch-tokens 4096 \
  --steps "${STEPS:-1000}" --warmup 500 --valid-every "${VALID_EVERY:-500}" --log-every 100 --dropout 0.1 \
  --embedding-dropout 0.1 --attention-dropout 0 --activation-dropout 0 "$@"
echo "== test books (Mark, Ruth, Jonah), one verse per line:"
grep -v '^$' $data/test.txt > "$out/test.lines"
$heptapod score -m "$out/model.htp" -i "$out/test.lines" -o "$out/test.scores"
echo "== samples (seed 1, temperature 0.8, top-k 40, top-p 0.95):"
for prompt in "In the beginning" "Jesus said to them," "The king of Israel"; do
  $heptapod generate -m "$out/model.htp" --prompt "$prompt" --max-tokens 60 --seed 1
done
