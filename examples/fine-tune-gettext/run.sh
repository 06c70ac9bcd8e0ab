#!/usr/bin/env bash
# Transfer learning on real data: a Spanish->English model pre-trained on the Bible (by default the demo's
# model, scripts/demo.sh's settings: the small preset for 3000 updates, the last 3 checkpoints averaged, but
# with a byte-fallback vocabulary; trained here first if missing, about 13 minutes on 2 cores; or
# PRETRAINED=...)
# fine-tuned on software messages (the Spanish gettext catalogues of a few Debian packages,
# extract_pairs.py), against the same architecture trained on those messages alone, with the same number of
# updates and the same batch size, and against LoRA adapters over the frozen pre-trained model (rank LORA_RANK,
# default 16, alpha LORA_ALPHA, default 32 (a scale of 2, as examples/bible-lm/fine-tune.sh's), on every
# attention and feed-forward matrix, peak learning rate LORA_LR, default 2e-3: adapters start from zero and take
# larger steps). Prints BLEU and chrF of each on the held-out messages with each run's
# time and peak memory, and the unknown-token rate of the pre-trained vocabulary on them.
#   examples/fine-tune-gettext/run.sh            # OUT (default runs/fine-tune-gettext), STEPS (default 1200)
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${BUILD:-build}/apps/heptapod
pretrained=${PRETRAINED:-runs/bible/bf3000/averaged.htp}
out=${OUT:-runs/fine-tune-gettext}
steps=${STEPS:-1200}
[ -x "$heptapod" ] || { echo "build first (scripts/build.sh)" >&2; exit 1; }
if [ ! -f "$pretrained" ]; then
  [ -z "${PRETRAINED:-}" ] || { echo "no $pretrained" >&2; exit 1; }
  # Byte fallback: the messages' %s, [ ] and quotes, unseen in the Bible, become bytes instead of unknown.
  echo "== pre-training on the Bible (the demo's 3000 updates, byte-fallback vocabulary)" >&2
  STEPS=3000 VALID_EVERY=250 AVERAGE=3 DROPOUT=0.1 INNER_DROPOUT=0 BIBLE_OUT=$(dirname "$pretrained") \
    HEPTAPOD=$heptapod examples/bible-es-en/run.sh --byte-fallback
fi

# The catalogues come with the packages themselves (their Spanish .mo files).
packages=(coreutils grep sed tar findutils diffutils bash dpkg apt wget make)
scripts/apt-install.sh "${packages[@]}"
catalogues=()
for p in "${packages[@]}"; do
  f=/usr/share/locale/es/LC_MESSAGES/$p.mo
  [ -f "$f" ] && catalogues+=("$f") || echo "note: $p has no Spanish catalogue here" >&2
done
/usr/bin/python3 examples/fine-tune-gettext/extract_pairs.py "$out/data" "${catalogues[@]}"
d=$out/data
rm -rf "$out/fine-tuned" "$out/lora" "$out/scratch"  # both runs start afresh (a rerun with other settings could not resume)

# Both runs: the same updates, batch size and schedule (inverse square root, a quarter of the run to a peak
# of 5e-4; the paper's 4000 warm-up updates would never reach their peak in so few, and noam with 300
# diverges on so little data from scratch).
common=(--source $d/train.es --target $d/train.en --valid-source $d/dev.es --valid-target $d/dev.en
  --steps "$steps" --batch-tokens 2048 --valid-every 300 --valid-bleu-sentences 0 --log-every 100
  --lr-schedule inverse-sqrt --warmup $((steps / 4)))
# Each run's wall time (s) and peak resident memory (KB) into $out/<run>.time, its log into $out/<run>.log.
timed() {
  local run=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out/$run.time" "$heptapod" train "${common[@]}" "$@" -o "$out/$run" 2> >(tee "$out/$run.log" >&2)
}
echo "== fine-tuning $pretrained for $steps updates" >&2
timed fine-tuned --init "$pretrained" --lr 5e-4
echo "== LoRA adapters over $pretrained for $steps updates" >&2
timed lora --init "$pretrained" --lora "${LORA_RANK:-16}" --lora-alpha "${LORA_ALPHA:-32}" \
  --lora-targets q,k,v,o,xq,xk,xv,xo,ffn --lr "${LORA_LR:-2e-3}"
# From scratch: the pre-trained model's architecture, its own vocabulary trained on the messages.
arch=$(/usr/bin/python3 -c "
import json, struct, sys
f = open(sys.argv[1], 'rb'); n = struct.unpack('<Q', f.read(8))[0]
c = json.loads(json.loads(f.read(n))['__metadata__']['config'])
print(c['d_model'], c['n_heads'], c['d_ff'], c['encoder_layers'], c['decoder_layers'])" "$pretrained")
read -r d_model heads d_ff enc dec <<< "$arch"
echo "== training the same architecture on the messages alone for $steps updates" >&2
timed scratch --lr 5e-4 --d-model "$d_model" --heads "$heads" --d-ff "$d_ff" \
  --encoder-layers "$enc" --decoder-layers "$dec" --vocab-size 4000

echo
echo "| model | BLEU | chrF2 | trained parameters | training time (s) | peak RSS (MB) |"
echo "|---|---|---|---|---|---|"
for run in fine-tuned lora scratch; do
  model=(-m "$out/$run/best.htp")
  [ "$run" = lora ] && model=(-m "$pretrained" --adapter "$out/$run/best.htp")
  "$heptapod" translate "${model[@]}" -i $d/test.es -o "$out/$run.test.hyp"
  scores=$("$heptapod" bleu -i "$out/$run.test.hyp" $d/test.en)
  bleu=$(echo "$scores" | awk '/^BLEU/ {print $3}')
  chrf=$(echo "$scores" | awk '/^chrF2/ {print $3}')
  trained=$(grep -o '[0-9]* parameters trained' "$out/$run.log" | head -1 | cut -d' ' -f1 || true)
  read -r seconds kb < "$out/$run.time"
  echo "| $run | $bleu | $chrf | ${trained:-all} | $seconds | $((kb / 1024)) |"
done
PYTHONPATH=${BUILD:-build}/python /usr/bin/python3 - "$pretrained" $d/test.es $d/test.en <<'PY'
import sys
import heptapod
t = heptapod.Translator(sys.argv[1])
unk = 3  # Heptapod's vocabularies: pad 0, bos 1, eos 2, unk 3
for path, target in ((sys.argv[2], False), (sys.argv[3], True)):
    ids = [i for line in open(path, encoding="utf-8") for i in t.encode(line.rstrip("\n"), target=target)]
    print(f"pre-trained vocabulary on {path}: {100 * ids.count(unk) / len(ids):.2f}% unknown tokens ({len(ids)} tokens)")
PY
