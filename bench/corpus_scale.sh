#!/usr/bin/env bash
# Training data at WMT scale (issue: work that grows): the Bible training corpus (runs/bible/data, from
# scripts/bible_data.sh) repeated SCALES times (default 1 10 100 167: 30,025 to about 5 million pairs), copy k
# with every line's words rotated by k so no two copies tokenize alike. For each scale, two `heptapod train`
# runs of 20 updates of a tiny model with the Bible run's vocabulary: the first tokenizes the corpus into its
# cache (build time, pairs per minute, peak memory of the build), the second maps that cache (the private
# memory a training run needs). Memory is sampled from /proc every 50 ms: RssAnon is private memory,
# RssFile the cache's pages in the page cache (shared with every process that maps it).
#   bench/corpus_scale.sh            # OUT (default runs/bench/corpus) keeps the corpora, runs and the table
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
heptapod=$build/apps/heptapod
need_built "$heptapod"
data=runs/bible/data
vocab_dir=runs/bible/small6000
[ -f $data/train.es ] && [ -f $vocab_dir/vocab.src.spm ] || { echo "needs $data/train.{es,en} and $vocab_dir/vocab.{src,tgt}.spm (the Bible run, docs/)" >&2; exit 1; }
out=${OUT:-runs/bench/corpus}
mkdir -p "$out/data"

# sample OUTPUT.json COMMAND...: runs COMMAND, writes its wall time and peak RssAnon / RssFile / VmHWM.
sample() {
  /usr/bin/python3 - "$@" <<'PY'
import json, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t0 = time.time()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(out + ".log", "w"))
peak = {"RssAnon": 0, "RssFile": 0, "VmHWM": 0}
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            key = line.split(":")[0]
            if key in peak:
                peak[key] = max(peak[key], int(line.split()[1]))
    except (FileNotFoundError, ProcessLookupError):
        pass
    time.sleep(0.05)
seconds = time.time() - t0
if p.returncode != 0:
    sys.exit(f"{' '.join(cmd)} failed: see {out}.log")
json.dump({"seconds": seconds, **{k: v / 1024 for k, v in peak.items()}}, open(out, "w"))
PY
}

train_args() {  # train_args OUTPUT_DIR SCALE: sets args, a short run of a tiny model
  args=(train --source "$out/data/x$2.es" --target "$out/data/x$2.en" --source-vocab "$vocab_dir/vocab.src.spm" --target-vocab "$vocab_dir/vocab.tgt.spm" -o "$1"
    --preset tiny --d-model 64 --d-ff 128 --batch-tokens 2048 --steps 20 --valid-every 1000000 --log-every 10)
}

machine_line
echo
echo "| scale | pairs | text MB | cache MB | cache build s | pairs/min | build peak RssAnon MB | training peak RssAnon MB | training peak RssFile MB |"
echo "|---|---|---|---|---|---|---|---|---|"
for scale in ${SCALES:-1 10 100 167}; do
  for side in es en; do
    [ -f "$out/data/x$scale.$side" ] || awk -v copies="$scale" '
      { line[NR] = $0 }
      END {
        for (k = 0; k < copies; ++k)
          for (i = 1; i <= NR; ++i) {
            n = split(line[i], w, " ")
            if (n == 0) { print ""; continue }
            s = w[(k % n) + 1]
            for (j = 2; j <= n; ++j) s = s " " w[((j - 1 + k) % n) + 1]
            print s
          }
      }' "$data/train.$side" > "$out/data/x$scale.$side"
  done
  rm -rf "$out/build-x$scale" "$out/train-x$scale"
  train_args "$out/build-x$scale" "$scale"
  sample "$out/build-x$scale.json" "$heptapod" "${args[@]}"
  mkdir -p "$out/train-x$scale/cache"
  cp "$out/build-x$scale/cache/train.cache" "$out/train-x$scale/cache/"
  cp "$out/build-x$scale"/vocab.*.spm "$out/train-x$scale/"
  train_args "$out/train-x$scale" "$scale"
  sample "$out/train-x$scale.json" "$heptapod" "${args[@]}"
  grep -q "\[cached\]" "$out/train-x$scale.json.log" || { echo "the second run at x$scale did not use the cache" >&2; exit 1; }
  /usr/bin/python3 - "$out" "$scale" <<'PY'
import json, os, re, sys
out, scale = sys.argv[1], sys.argv[2]
b = json.load(open(f"{out}/build-x{scale}.json"))
t = json.load(open(f"{out}/train-x{scale}.json"))
log = open(f"{out}/build-x{scale}.json.log").read()
pairs = int(re.search(r"kept (\d+) of (\d+)", log).group(2))
m = re.search(r"tokenized in (?:(\d+)m)?(\d+)s", log)
build_s = int(m.group(1) or 0) * 60 + int(m.group(2))
text_mb = sum(os.path.getsize(f"{out}/data/x{scale}.{s}") for s in ("es", "en")) / 2**20
cache_mb = os.path.getsize(f"{out}/train-x{scale}/cache/train.cache") / 2**20
rate = pairs / max(build_s, 1) * 60
print(f"| {scale}x | {pairs} | {text_mb:.0f} | {cache_mb:.0f} | {build_s} | {rate:,.0f} | {b['RssAnon']:.0f} | "
      f"{t['RssAnon']:.0f} | {t['RssFile']:.0f} |")
json.dump({"scale": scale, "pairs": pairs, "build_seconds": build_s, "pairs_per_minute": rate,
           "build_rss_anon_mb": b["RssAnon"], "train_rss_anon_mb": t["RssAnon"], "train_rss_file_mb": t["RssFile"]},
          open(f"{out}/x{scale}.json", "w"))
PY
done
/usr/bin/python3 - "$out" ${SCALES:-1 10 100 167} <<'PY'
import json, sys
out, scales = sys.argv[1], sys.argv[2:]
rows = [json.load(open(f"{out}/x{s}.json")) for s in scales]
lo, hi = rows[0], rows[-1]
per_pair = (hi["train_rss_anon_mb"] - lo["train_rss_anon_mb"]) * 2**20 / max(hi["pairs"] - lo["pairs"], 1)
print(f"\ntraining private memory growth: {per_pair:.1f} bytes per pair ({lo['scale']}x -> {hi['scale']}x)")
slowest = min(r["pairs_per_minute"] for r in rows if r["pairs"] >= 1_000_000) if hi["pairs"] >= 1_000_000 else None
if slowest is not None:
    print(f"cache build at >= 1M pairs: {slowest:,.0f} pairs/min (goal >= 1,000,000): {'met' if slowest >= 1e6 else 'NOT met'}")
PY
