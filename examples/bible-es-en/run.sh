#!/usr/bin/env bash
# Spanish->English on the Bible, end to end: data (prepare.sh), a joint 8000-piece BPE vocabulary, the small
# preset (3+3 layers, d_model 256) trained for a fixed budget of updates, the average of the last checkpoints,
# then BLEU and chrF on the held-out test books (Mark, Ruth, Jonah) with beam 4. Run from the repository root
# after scripts/build.sh. The defaults are the full recipe (about 2 hours on 2 cores; settings chosen on the
# dev books, docs/quality.md): 24000 updates, residual and embedding dropout 0.1 with no attention or
# FFN-activation dropout, a validation and checkpoint every 1000 updates, and `train --average` writing the
# average of the last 10 checkpoints (averaged.htp) at the end.
# STEPS sets the update budget, VALID_EVERY the updates between validations and checkpoints, AVERAGE how many
# of the last checkpoints make the final model (1: the last alone), DROPOUT the residual and embedding dropout,
# INNER_DROPOUT the attention-probability and FFN-activation dropout; other `heptapod train` flags may be
# appended. Rerunning resumes training.
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=runs/bible/data
out=${BIBLE_OUT:-runs/bible/small}
average=${AVERAGE:-10}
dropout=${DROPOUT:-0.1}
inner_dropout=${INNER_DROPOUT:-0}
examples/bible-es-en/prepare.sh "$data"
$heptapod train --source $data/train.es --target $data/train.en --valid-source $data/dev.es \
  --valid-target $data/dev.en -o "$out" --preset small --vocab-size 8000 --batch-tokens 4096 \
  --steps "${STEPS:-24000}" --warmup 1000 --valid-every "${VALID_EVERY:-1000}" --log-every 100 \
  --dropout "$dropout" --embedding-dropout "$dropout" --attention-dropout "$inner_dropout" \
  --activation-dropout "$inner_dropout" --keep-checkpoints 5 --average "$average" \
  --valid-bleu-sentences 165 "$@"
model=$out/model.htp
[ "$average" -gt 1 ] && model=$out/averaged.htp
$heptapod translate -m "$model" -i $data/test.es -o "$out/test.hyp" --beam 4
echo "== test books (Mark, Ruth, Jonah), beam 4, $(basename "$model"):"
$heptapod bleu $data/test.en -i "$out/test.hyp" --metrics bleu,chrf
echo "== examples from the test books (source / reference / Heptapod):"
for line in 1 2 3 500; do
  for f in $data/test.ref $data/test.es $data/test.en "$out/test.hyp"; do sed -n "${line}p" "$f"; done | sed '2,$s/^/  /'
done
echo "model: $model ($(du -h "$model" | cut -f1))"
