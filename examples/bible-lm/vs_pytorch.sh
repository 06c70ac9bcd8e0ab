#!/usr/bin/env bash
# The recipe's language model trained for the same wall time by Heptapod and by PyTorch 1.13
# (bench/pytorch_gpt.py), then both scored by the same code on the held-out test books. Same model (the
# recipe's: 6 pre-norm layers, d_model 256, 4 heads, context 256), the same vocabulary (the one Heptapod's run
# trains), the same batches in the same order (heptapod_bench lm-blocks writes what Heptapod's trainer reads),
# the same hyper-parameters (noam schedule, warm-up 500, Adam 0.9/0.98/1e-9, label smoothing 0.1, dropout 0.1
# on the embeddings and sub-layer outputs) and the same evaluation (the rival's weights converted to a model
# file with `heptapod convert --from heptapod`, then `heptapod score` on Mark, Ruth and Jonah, one verse per
# line, for both). Time: MINUTES (default 12) of updates each, validation and file work excluded, one side
# after the other; the rival gets its best settings (bench/common.sh). Run from the repository root after
# scripts/build.sh on an otherwise idle machine; results in OUT (default runs/bible-lm/vs-pytorch), a summary
# table on stdout.
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/common.sh
need_built "$bench" "$build/apps/heptapod"
need_rival
heptapod=$build/apps/heptapod
minutes=${MINUTES:-12}
data=runs/bible-lm/data
out=${OUT:-runs/bible-lm/vs-pytorch}
examples/bible-lm/prepare.sh "$data"
mkdir -p "$out"
grep -v '^$' $data/test.txt > "$out/test.lines"

echo "== Heptapod: $minutes minutes" >&2
$heptapod train --arch decoder-only --text $data/train.txt --documents paragraphs -o "$out/heptapod" --preset small \
  --layers 6 --norm pre --context 256 --vocab-size 8000 --batch-tokens 4096 --steps 1000000 --minutes "$minutes" \
  --warmup 500 --valid-every 1000000 --log-every 100 --dropout 0.1 --embedding-dropout 0.1 --attention-dropout 0 \
  --activation-dropout 0
$heptapod info -m "$out/heptapod/model.htp" | sed -n 's/^config: *//p' > "$out/config.json"
steps=$(tail -n 1 "$out/heptapod/metrics.jsonl" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["step"])')

echo "== the same batches for PyTorch (as many as Heptapod trained on)" >&2
$bench lm-blocks --text $data/train.txt --vocab "$out/heptapod/vocab.spm" --documents paragraphs --context 256 \
  --batch-tokens 4096 --seed 1 --batches "$steps" -o "$out/blocks" --work-dir "$out/blocks-work"

echo "== PyTorch: $minutes minutes" >&2
run_gpt_rival --phase train-recipe --config "$out/config.json" --blocks "$out/blocks" --time-limit "$(awk "BEGIN { print $minutes * 60 }")" \
  --warmup-steps 500 --lr-scale 1 --label-smoothing 0.1 --seed 1 -o "$out/pytorch.safetensors" > "$out/pytorch.json"
$heptapod convert "$out/pytorch.safetensors" --from heptapod --config "$out/config.json" \
  --target-spm "$out/heptapod/vocab.spm" -o "$out/pytorch.htp"

echo "== held-out scores (the same heptapod score for both)" >&2
for side in heptapod pytorch; do
  model="$out/$side.htp"
  [ $side = heptapod ] && model="$out/heptapod/model.htp"
  $heptapod score -m "$model" -i "$out/test.lines" -o "$out/$side.scores" 2> "$out/$side.score-summary"
done
/usr/bin/python3 - "$out" "$minutes" <<'PY'
import json, math, re, sys
from pathlib import Path
out, minutes = Path(sys.argv[1]), sys.argv[2]
train = [json.loads(l) for l in (out / "heptapod/metrics.jsonl").read_text().splitlines()]
last = [r for r in train if r["type"] == "train"][-1]
rival = json.loads((out / "pytorch.json").read_text().splitlines()[-1])
sides = {"Heptapod": (last["step"], last["target_tokens"], last["elapsed_seconds"]),
         "PyTorch 1.13": (rival["steps"], rival["tokens"], rival["seconds"])}
print(f"Same model, data order and evaluation; {minutes} minutes of updates each.\n")
print("| side | updates | tokens trained | seconds | tokens/s | test cross-entropy | perplexity | bits per character |")
print("|---|---|---|---|---|---|---|---|")
for (name, (steps, tokens, seconds)), side in zip(sides.items(), ("heptapod", "pytorch")):
    summary = (out / f"{side}.score-summary").read_text()
    ppl = float(re.search(r"perplexity ([0-9.]+)", summary).group(1))
    bpc = float(re.search(r"bits per character ([0-9.]+)", summary).group(1))
    print(f"| {name} | {steps} | {tokens} | {seconds:.0f} | {tokens / seconds:.0f} | {math.log(ppl):.4f} | {ppl:.2f} | {bpc:.4f} |")
PY
