#!/usr/bin/env bash
# English grapheme-to-phoneme on CMUdict, end to end: data (prepare.sh), training (the small preset: 3+3
# layers, d_model 256, as the reference 3-layer 256-wide Transformer), then word and phoneme error rates on
# the held-out test words with beam 4, from the average of the last three checkpoints (1000 updates apart).
# Run from the repository root after scripts/build.sh; about 90 minutes on 2 cores. STEPS sets the update
# budget (default 16000); other `heptapod train` flags may be appended. Rerunning resumes training where it
# stopped (raise STEPS to train further).
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=runs/g2p/data
out=${G2P_OUT:-runs/g2p/small}
examples/g2p-cmudict/prepare.sh "$data"
$heptapod train --source $data/train.src --target $data/train.tgt --valid-source $data/dev.src \
  --valid-target $data/dev.tgt -o "$out" --preset small --vocab-model word --batch-tokens 4096 \
  --steps "${STEPS:-16000}" --valid-every 1000 --log-every 100 --warmup 1000 --valid-bleu-sentences 0 "$@"
$heptapod average --dir "$out/checkpoints" --last 3 -o "$out/averaged.htp"
$heptapod translate -m "$out/averaged.htp" -i $data/test.src -o "$out/test.hyp" --beam 4
echo "== test words (WER = line error rate: a word is right if it matches any of its pronunciations;"
echo "   PER = token error rate against the closest pronunciation):"
$heptapod error-rate $data/test.refs -i "$out/test.hyp"
