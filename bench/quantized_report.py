#!/usr/bin/python3
"""The table of bench/quantized.sh: per model and weight type, decoding tokens/s at each batch (the fastest
round; the rounds listed), the ratio to int8's, the model file's size and the batch-1 phase's peak RSS against
float32's, and the issue's goals checked: int4 and Q4_K batch 1 at least 1.6x int8, Q8_0 (q8_0) at least
0.95x int8, int4's file and peak RSS at most 0.3x float32's.
  quantized_report.py OUT MODEL..."""
import glob
import json
import os
import re
import sys


def main():
    out, models = sys.argv[1], sys.argv[2:]
    goals = []
    for model in models:
        runs = {}  # (type, rows) -> [result]
        for path in glob.glob(f"{out}/{model}-*.json"):
            found = re.fullmatch(rf"{re.escape(model)}-(.+)-(\d+)\.(\d+)\.json", os.path.basename(path))
            if found:
                runs.setdefault((found.group(1), int(found.group(2))), []).append(json.load(open(path)))
        types = [t for t in ("float32", "int8", "q8_0", "int4", "Q8_0", "Q4_0", "Q4_K", "Q5_K", "Q6_K")
                 if any(k[0] == t for k in runs)]
        rows_list = sorted({k[1] for k in runs})
        files = {t: next(iter(glob.glob(f"{out}/{model}-{t}.htp") + glob.glob(f"{out}/{model}-{t}.gguf")), None)
                 for t in types}
        size = {t: os.path.getsize(f) / 1e6 for t, f in files.items() if f}
        best = {k: max(r["tokens_per_second"] for r in v) for k, v in runs.items()}
        rss = {t: min(r["peak_rss_mb"] for r in runs[(t, rows_list[0])]) for t in types if (t, rows_list[0]) in runs}
        print(f"\n{model}: decoding after a 64-token prompt, 128 new tokens a row, 2 threads")
        head = " | ".join(f"batch {n}: tokens/s (runs) | / int8" for n in rows_list)
        print(f"| type | file MB | / float32 | peak RSS MB (batch {rows_list[0]}) | / float32 | {head} |")
        print("|---" * (5 + 2 * len(rows_list)) + "|")
        for t in types:
            cells = [t, f"{size.get(t, 0):.0f}", f"{size.get(t, 0) / size['float32']:.2f}",
                     f"{rss.get(t, 0):.0f}", f"{rss.get(t, 0) / rss['float32']:.2f}"]
            for n in rows_list:
                if (t, n) not in best:
                    cells += ["", ""]
                    continue
                listed = ", ".join(f"{r['tokens_per_second']:.1f}" for r in runs[(t, n)])
                cells += [f"{best[(t, n)]:.1f} ({listed})", f"{best[(t, n)] / best[('int8', n)]:.2f}x"]
            print("| " + " | ".join(cells) + " |")
        one = rows_list[0]
        for t, bar in (("int4", 1.6), ("Q4_K", 1.6), ("q8_0", 0.95)):
            if (t, one) in best:
                ratio = best[(t, one)] / best[("int8", one)]
                goals.append((f"{model}: batch {one} {t} >= {bar}x int8", f"{ratio:.2f}x", ratio >= bar))
        if "int4" in size:
            for what, value in (("file", size["int4"] / size["float32"]), ("peak RSS", rss["int4"] / rss["float32"])):
                goals.append((f"{model}: int4 {what} <= 0.3x float32", f"{value:.2f}x", value <= 0.3))
    print("\n| goal | measured | |\n|---|---|---|")
    for goal, measured, met in goals:
        print(f"| {goal} | {measured} | {'met' if met else 'not met'} |")


if __name__ == "__main__":
    main()
