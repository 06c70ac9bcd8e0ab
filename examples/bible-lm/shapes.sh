#!/usr/bin/env bash
# The bible-lm recipe's language model in two shapes for the same training time, side by side: its GPT shape
# (run.sh: layer norms, sinusoidal positions, a ReLU feed-forward network of 1024, biases everywhere) and
# LLaMA's (RMSNorm, rotary positions, a SwiGLU network of 688 so that its three matrices hold what the two
# of 1024 hold, grouped-query attention of 2 key/value heads for 4 query heads, no biases). Both train at
# once, one thread each, so that they share whatever else the machine does; MINUTES (default 12) of updates
# each. Then both models' cross-entropy on the held-out test books (`heptapod score`). Run from the
# repository root after scripts/build.sh; results go to runs/bible-lm/{gpt,llama}-shape.
set -euo pipefail
cd "$(dirname "$0")/../.."
heptapod=${HEPTAPOD:-build/apps/heptapod}
data=runs/bible-lm/data
minutes=${MINUTES:-12}
examples/bible-lm/prepare.sh "$data"
common=(--arch decoder-only --text $data/train.txt --valid-text $data/dev.txt --documents paragraphs
        --preset small --layers 6 --norm pre --context 256 --vocab-size 8000 --batch-tokens 4096
        --steps 100000 --minutes "$minutes" --warmup 500 --valid-every 500 --log-every 100 --dropout 0.1
        --embedding-dropout 0.1 --attention-dropout 0 --activation-dropout 0 --threads 1)
$heptapod train "${common[@]}" -o runs/bible-lm/gpt-shape > runs/bible-lm/gpt-shape.log 2>&1 &
gpt=$!
$heptapod train "${common[@]}" -o runs/bible-lm/llama-shape --positions rotary --norm-type rms --ffn swiglu \
  --d-ff 688 --kv-heads 2 --biases none > runs/bible-lm/llama-shape.log 2>&1 &
llama=$!
wait $gpt
wait $llama
grep -v '^$' $data/test.txt > runs/bible-lm/test.lines
for shape in gpt llama; do
  echo "== $shape shape: $(grep -c . runs/bible-lm/$shape-shape/metrics.jsonl) metrics records"
  tail -n 1 runs/bible-lm/$shape-shape/metrics.jsonl
  $heptapod score -m runs/bible-lm/$shape-shape/model.htp -i runs/bible-lm/test.lines \
    -o runs/bible-lm/$shape-shape/test.scores 2>&1 | tail -n 3
done
