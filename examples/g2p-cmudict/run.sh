#!/usr/bin/env bash
# English grapheme-to-phoneme on CMUdict, end to end: data (prepare.sh), training (the small preset's width:
# d_model 256, 4 heads, d_ff 1024; here 4 encoder and 2 decoder layers), then word and phoneme error rates on
# the held-out test words with beam 4, from the average of the last checkpoints. Run from the repository root
# after scripts/build.sh; about 55 minutes of training on 2 cores with AVX512_BF16 (0.20 s per update).
# The defaults are the recipe of the README's figures: 16000 updates with bfloat16 products (`--matmul-precision bfloat16`;
# float32 on CPUs without AVX512_BF16, about 1.3x slower), the learning rate falling linearly towards 0 over
# the last 4000, dropout 0.1 on residuals and embeddings and none on attention probabilities or FFN
# activations, a validation and checkpoint every 500 updates, and `train --average` writing the average of
# the last 3 (averaged.htp). STEPS sets the update budget, COOLDOWN the updates of the final fall (0: none),
# VALID_EVERY the updates between validations and checkpoints, AVERAGE how many of the last checkpoints make
# the final model (1: the last alone), DROPOUT the residual and embedding dropout, INNER_DROPOUT the
# attention-probability and FFN-activation dropout, ENCODER_LAYERS and DECODER_LAYERS the depth,
# MATMUL_PRECISION float32 or bfloat16; other `heptapod train` flags may be appended. Rerunning resumes
# training where it stopped (raising STEPS trains further, the cool-down moving to the new end).
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=runs/g2p/data
out=${G2P_OUT:-runs/g2p/small}
average=${AVERAGE:-3}
dropout=${DROPOUT:-0.1}
inner_dropout=${INNER_DROPOUT:-0}
examples/g2p-cmudict/prepare.sh "$data"
$heptapod train --source $data/train.src --target $data/train.tgt --valid-source $data/dev.src \
  --valid-target $data/dev.tgt -o "$out" --preset small --vocab-model word --batch-tokens 4096 \
  --steps "${STEPS:-16000}" --cooldown "${COOLDOWN:-4000}" --valid-every "${VALID_EVERY:-500}" --log-every 100 \
  --warmup 1000 --dropout "$dropout" --embedding-dropout "$dropout" --attention-dropout "$inner_dropout" \
  --activation-dropout "$inner_dropout" --keep-checkpoints 10 --average "$average" \
  --encoder-layers "${ENCODER_LAYERS:-4}" --decoder-layers "${DECODER_LAYERS:-2}" \
  --matmul-precision "${MATMUL_PRECISION:-bfloat16}" --valid-bleu-sentences 0 "$@"
model=$out/model.htp
[ "$average" -gt 1 ] && model=$out/averaged.htp
$heptapod translate -m "$model" -i $data/test.src -o "$out/test.hyp" --beam 4
echo "== test words, beam 4, $(basename "$model") (WER = line error rate: a word is right if it matches any"
echo "   of its pronunciations; PER = token error rate against the closest pronunciation):"
$heptapod error-rate $data/test.refs -i "$out/test.hyp"
