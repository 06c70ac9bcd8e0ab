#!/usr/bin/env bash
# The Bible language model (run.sh's) fine-tuned on another text, Matthew Henry's Concise Commentary
# (prepare_commentary.sh: the same books held out), three ways with the same updates, batch and schedule: full
# fine-tuning, LoRA adapters of rank 16 on every attention and feed-forward matrix, and LoRA with PEFT's
# defaults (rank 8 on q and v). Prints the held-out commentary's perplexity and bits per character under the
# base model and each fine-tuned one (`heptapod score --segment`, the test text as one stream in blocks of the
# model's context), with each run's trained parameters, time and peak memory.
#   examples/bible-lm/fine-tune.sh    # BASE (default runs/bible-lm/small/model.htp, trained by run.sh first
#                                     # if missing), OUT (default runs/bible-lm/fine-tune), STEPS (default 300),
#                                     # LR (full fine-tuning's peak, default 5e-4), LORA_LR (default 2e-3),
#                                     # CONTEXT (the base's training context, default 256)
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
base=${BASE:-runs/bible-lm/small/model.htp}
out=${OUT:-runs/bible-lm/fine-tune}
steps=${STEPS:-300}
[ -x "$heptapod" ] || { echo "build first (scripts/build.sh)" >&2; exit 1; }
if [ ! -f "$base" ]; then
  [ -z "${BASE:-}" ] || { echo "no $base" >&2; exit 1; }
  echo "== training the Bible language model first (examples/bible-lm/run.sh, 1000 updates)" >&2
  HEPTAPOD=$heptapod examples/bible-lm/run.sh
fi
d=runs/bible-lm/commentary
examples/bible-lm/prepare_commentary.sh "$d"
mkdir -p "$out"
rm -rf "$out/full" "$out/lora-all" "$out/lora-qv"  # each run starts afresh

# Every run: the same updates, batches and schedule (a quarter of the run to the peak, then inverse square root).
common=(--text $d/train.txt --valid-text $d/dev.txt --documents lines --steps "$steps" --batch-tokens 4096
  --valid-every 100 --log-every 50 --lr-schedule inverse-sqrt --warmup $((steps / 4)) --init "$base")
# Each run's wall time (s) and peak resident memory (KB) into $out/<run>.time, its log into $out/<run>.log.
timed() {
  local run=$1
  shift
  /usr/bin/time -f "%e %M" -o "$out/$run.time" "$heptapod" train "${common[@]}" "$@" -o "$out/$run" 2> >(tee "$out/$run.log" >&2)
}
echo "== full fine-tuning for $steps updates" >&2
timed full --lr "${LR:-5e-4}"
echo "== LoRA, rank 16 on every matrix, for $steps updates" >&2
timed lora-all --lora 16 --lora-alpha 32 --lora-targets q,k,v,o,ffn --lr "${LORA_LR:-2e-3}"
echo "== LoRA with PEFT's defaults (rank 8 on q, v) for $steps updates" >&2
timed lora-qv --lora 8 --lr "${LORA_LR:-2e-3}"

# The test text as one stream: paragraphs as documents, blocks of the training context (run.sh's 256), each
# seen alone.
score() {  # run name, model arguments...
  local run=$1
  shift
  "$heptapod" score "$@" -i $d/test.txt --segment "${CONTEXT:-256}" -o /dev/null --summary "$out/$run.test.json" 2>/dev/null
}
score base -m "$base"
score full -m "$out/full/model.htp"
score lora-all -m "$base" --adapter "$out/lora-all/adapter.htp"
score lora-qv -m "$base" --adapter "$out/lora-qv/adapter.htp"
echo
echo "| model | test perplexity | test bits per character | trained parameters | training time (s) | peak RSS (MB) |"
echo "|---|---|---|---|---|---|"
for run in base full lora-all lora-qv; do
  read -r ppl bpc < <(/usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))
print(f\"{s['perplexity']:.2f} {s['bits_per_character']:.4f}\")" "$out/$run.test.json")
  if [ "$run" = base ]; then
    echo "| base (no fine-tuning) | $ppl | $bpc | | | |"
    continue
  fi
  trained=$(grep -o '[0-9]* parameters trained' "$out/$run.log" | head -1 | cut -d' ' -f1 || true)
  read -r seconds kb < "$out/$run.time"
  echo "| $run | $ppl | $bpc | ${trained:-all} | $seconds | $((kb / 1024)) |"
done
