#!/usr/bin/env bash
# Translation in bounded memory: peak RSS and lines/s of `heptapod translate` (greedy, a small random model from
# the tests' make_test_model, outputs capped at input length + 2) on inputs of LINES lines (default 10000
# 300000 3000000; the numbers corpus repeated), with the default --window. Goal: peak RSS for the largest
# input within 50 MB of the smallest's, throughput within 5%.
#   bench/streaming.sh                  # OUT (default runs/bench/streaming) keeps inputs, outputs and the table
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
make_model=$build/tests/make_test_model
heptapod=$build/apps/heptapod
need_built "$make_model" "$heptapod"
[ -x /usr/bin/time ] || { echo "bench/streaming.sh needs /usr/bin/time: apt-get install time" >&2; exit 1; }
out=${OUT:-runs/bench/streaming}
mkdir -p "$out"
"$make_model" "$out/model.htp" > /dev/null
machine_line
echo
echo "| lines | seconds | lines/s | peak RSS MB |"
echo "|---|---|---|---|"
for n in ${LINES:-10000 300000 3000000}; do
  /usr/bin/python3 - "$n" "$out/in.txt" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
src = [l.rstrip("\n") for l in open("tests/data/numbers.train.es")]
with open(path, "w") as f:
    for i in range(n):
        f.write(src[i % len(src)] + "\n")
PY
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$heptapod" translate -m "$out/model.htp" --beam 1 --max-extra-length 2 \
    -i "$out/in.txt" -o "$out/out.txt"
  read -r seconds kb < "$out/time.txt"
  /usr/bin/python3 -c "import sys; n,s,kb=int(sys.argv[1]),float(sys.argv[2]),int(sys.argv[3]); print(f'| {n} | {s:.1f} | {n/s:.0f} | {kb/1024:.1f} |')" "$n" "$seconds" "$kb"
done
