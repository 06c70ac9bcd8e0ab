#!/usr/bin/env bash
# Transformer-XL against a vanilla language model of the same size and training time, character by character
# on the World English Bible (examples/bible-lm/prepare.sh: whole books held out; test = Mark, Ruth, Jonah).
# Both: 4 pre-norm layers, d_model 256, 4 heads, d_ff 1024, a character vocabulary, segments of 128
# characters, 16 of them per update, the same schedule and dropout, trained side by side for MINUTES (default
# 25) each on one core. The vanilla model reads fixed 128-character blocks with sinusoidal positions;
# Transformer-XL (--positions relative --memory 128) reads the text as 16 parallel streams, each segment over
# the memory of the 128 characters before it.
# Then the held-out books' bits per character (`heptapod score`, verses as documents, end to end):
# - vanilla: fixed blocks (what it was trained on), and the sliding window (every character from the 128
#   before it, one pass per character) over the first WINDOW_LINES verses;
# - Transformer-XL: segments of 128 over memories of 0, 128, 256, 512 and 1024 characters.
# Run from the repository root after scripts/build.sh; rerunning resumes or skips finished training. Results:
# $out/results.md (and JSON summaries beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=runs/bible-lm/data
out=${XL_OUT:-runs/xl-bible}
minutes=${MINUTES:-25}
examples/bible-lm/prepare.sh "$data" > /dev/null
mkdir -p "$out"
grep -v '^$' $data/train.txt > "$out/train.lines"
grep -v '^$' $data/dev.txt > "$out/dev.lines"
grep -v '^$' $data/test.txt > "$out/test.lines"
head -n "${WINDOW_LINES:-150}" "$out/test.lines" > "$out/test.first.lines"

common=(--arch decoder-only --text "$out/train.lines" --valid-text "$out/dev.lines" --vocab-model char
        --vocab-size 100 --layers 4 --d-model 256 --heads 4 --d-ff 1024 --norm pre --context 128
        --batch-tokens 2048 --warmup 500 --dropout 0.1 --embedding-dropout 0.1 --attention-dropout 0
        --activation-dropout 0 --steps 1000000 --minutes "$minutes" --valid-every 500 --log-every 100
        --threads 1)
train() {  # name, extra options
  local name=$1
  shift
  if [ -f "$out/$name/model.htp" ]; then echo "$name: trained already ($out/$name/model.htp)"; return; fi
  $heptapod train "${common[@]}" -o "$out/$name" "$@" > "$out/$name.log" 2>&1
  tail -n 2 "$out/$name.log"
}
train vanilla --positions sinusoidal &
train xl --positions relative --memory 128 &
wait

score() {  # model, input, label, options
  local model=$1 input=$2 label=$3
  shift 3
  $heptapod score -m "$out/$model/model.htp" -i "$input" -o /dev/null --summary "$out/$label.json" "$@" 2> /dev/null
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print("| %s | %.4f | %.2f | %.0f |" % (sys.argv[2], s["bits_per_character"], s["perplexity"], s["tokens_per_second"]))' "$out/$label.json" "$label"
}
{
  echo "| held-out (Mark, Ruth, Jonah) | bits per character | perplexity | tokens/s |"
  echo "|---|---|---|---|"
  score vanilla "$out/test.lines" "vanilla, fixed blocks of 128" --segment 128
  for m in 0 128 256 512 1024; do
    score xl "$out/test.lines" "Transformer-XL, segments of 128, memory $m" --segment 128 --memory $m
  done
  echo
  echo "| first ${WINDOW_LINES:-150} held-out verses | bits per character | perplexity | tokens/s |"
  echo "|---|---|---|---|"
  score vanilla "$out/test.first.lines" "vanilla, fixed blocks of 128 (first verses)" --segment 128
  score vanilla "$out/test.first.lines" "vanilla, sliding window of 128 (first verses)" --sliding-window 128
  score xl "$out/test.first.lines" "Transformer-XL, memory 128 (first verses)" --segment 128 --memory 128
  score xl "$out/test.first.lines" "Transformer-XL, memory 1024 (first verses)" --segment 128 --memory 1024
  echo
  for name in vanilla xl; do
    python3 -c 'import json,sys
rows=[json.loads(l) for l in open(sys.argv[1])]
train=[r for r in rows if r.get("type")=="train"]
valid=[r for r in rows if r.get("type")=="valid"]
print("%s: %d updates, %.0f training tokens/s (mean of the logged windows), last dev bpc %s" % (sys.argv[2], train[-1]["step"], sum(r["tokens_per_second"] for r in train)/len(train), ("%.4f" % valid[-1]["bpc"]) if valid else "-"))' "$out/$name/metrics.jsonl" "$name"
  done
} | tee "$out/results.md"
