#!/usr/bin/env bash
# Transformer-XL's evaluation and training speed against a vanilla model of the same shape (the xl-bible
# recipe's: 4 pre-norm layers, d_model 256, 4 heads, d_ff 1024, characters), untrained (one update each),
# on the recipe's held-out books, all cores:
# - evaluation per character at attention lengths 800 and 1800 (ATTENTION): Transformer-XL scores segments of
#   128 over a memory of attention - 128 (`heptapod score --segment 128 --memory M`); the vanilla model slides a
#   window of the attention length (`--sliding-window A`), one pass per character, over its first N_WINDOW
#   (default 60) positions after the first window; Transformer-XL over the first N_XL (default 40000)
#   characters; the ratio of the times per character is the speed-up;
# - training tokens/s at equal segments of 128 (STEPS updates of 2048 tokens each, default 40): the memory's cost.
# Needs examples/xl-bible/run.sh's data (it prepares it if missing).
#   bench/xl.sh          # OUT (default runs/bench/xl) keeps models, inputs and the JSON summaries
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
heptapod=$build/apps/heptapod
need_built "$heptapod"
out=${OUT:-runs/bench/xl}
data=runs/bible-lm/data
mkdir -p "$out"
examples/bible-lm/prepare.sh "$data" > /dev/null
grep -v '^$' $data/train.txt > "$out/train.lines"
grep -v '^$' $data/test.txt > "$out/test.lines"
shape=(--arch decoder-only --text "$out/train.lines" --vocab-model char --vocab-size 100 --layers 4 --d-model 256
       --heads 4 --d-ff 1024 --norm pre --context 128 --batch-tokens 2048 --warmup 500 --dropout 0.1
       --embedding-dropout 0.1 --attention-dropout 0 --activation-dropout 0 --log-every 1 --valid-every 100000)
train() {  # name, steps, options
  local name=$1 steps=$2
  shift 2
  rm -rf "$out/$name"
  "$heptapod" train "${shape[@]}" --steps "$steps" -o "$out/$name" "$@" > "$out/$name.log" 2>&1
}
# tokens/s of a run's updates after its first (which pays for the kernels' set-up).
train_speed() {
  python3 -c 'import json,sys
rows=[r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "train"][1:]
print("%.0f" % (sum(r["tokens_per_second"] for r in rows) / len(rows)))' "$1/metrics.jsonl"
}
seconds() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["seconds"], s["tokens"])' "$1"; }

machine_line
echo
steps=${STEPS:-40}
train vanilla "$steps" --positions sinusoidal
train xl "$steps" --positions relative --memory 128
v=$(train_speed "$out/vanilla") x=$(train_speed "$out/xl")
echo "| training, segments of 128, 2048 tokens per update | tokens/s |"
echo "|---|---|"
echo "| vanilla | $v |"
echo "| Transformer-XL, memory 128 | $x ($(python3 -c "print('%.2f' % ($x / $v))")x vanilla) |"
echo
echo "| attention length | Transformer-XL ms/char (segment 128, memory A - 128) | vanilla ms/char (sliding window A) | speed-up |"
echo "|---|---|---|---|"
for A in ${ATTENTION:-800 1800}; do
  # The held-out text's first verses: enough for N_WINDOW windows after the first (vanilla), and N_XL
  # characters (default 40000) for Transformer-XL.
  first_verses() {  # characters, output
    python3 - "$out/test.lines" "$2" "$1" <<'PY'
import sys
src, dst, need = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = []
for line in open(src):
    out.append(line)
    need -= len(line) + 1  # its characters and the end token between documents
    if need <= 0: break
open(dst, "w").writelines(out)
PY
  }
  first_verses $((A + ${N_WINDOW:-60})) "$out/window.$A"
  first_verses "${N_XL:-40000}" "$out/segments.$A"
  "$heptapod" score -m "$out/xl/model.htp" -i "$out/segments.$A" -o /dev/null --segment 128 --memory $((A - 128)) \
    --summary "$out/xl.$A.json" 2> /dev/null
  "$heptapod" score -m "$out/vanilla/model.htp" -i "$out/window.$A" -o /dev/null --sliding-window "$A" \
    --summary "$out/vanilla.$A.json" 2> /dev/null
  read -r xs xt <<< "$(seconds "$out/xl.$A.json")"
  read -r vs vt <<< "$(seconds "$out/vanilla.$A.json")"
  python3 -c "
import sys
a, xs, xt, vs, vt = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
x = 1000 * xs / xt          # every character
v = 1000 * vs / (vt - a + 1)  # one pass per character after the first window, and that window's one pass
print('| %d | %.4f | %.2f | %.0fx |' % (a, x, v, v / x))" "$A" "$xs" "$xt" "$vs" "$vt"
done
