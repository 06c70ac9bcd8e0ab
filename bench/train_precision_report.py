#!/usr/bin/python3
"""Prints the training-precision table from bench/train_precision.sh's JSON results.

usage: train_precision_report.py RESULTS_DIR MODEL...
       (files RESULTS_DIR/{heptapod,pytorch}-{float32,bfloat16}-train-{model}.{round}.json)

Each configuration's figure is its fastest run (training tokens per second), with the largest peak RSS of its
runs. Speed-ups are against the same side's float32; the last column compares the two sides in bfloat16."""
import sys
from pathlib import Path

from low_precision_report import figure, load, print_tables, speedup


def main():
    results, models = Path(sys.argv[1]), sys.argv[2:]
    lines = ["| model: train, tokens/s | Heptapod float32 | Heptapod bfloat16 | PyTorch float32 | PyTorch bfloat16 | "
             "Heptapod / PyTorch, bfloat16 |", "|---|---|---|---|---|---|"]
    memory = ["| model | Heptapod float32 | Heptapod bfloat16 | PyTorch float32 | PyTorch bfloat16 |", "|---|---|---|---|---|"]
    spread = ["| model | runs (Heptapod f32 / bf16; PyTorch f32 / bf16) |", "|---|---|"]
    for m in models:
        h = {t: load(results, "heptapod", t, "train", m) for t in ("float32", "bfloat16")}
        t = {c: load(results, "pytorch", c, "train", m) for c in ("float32", "bfloat16")}
        tps = lambda r: f"{figure(r, 'train'):.0f}"
        cell = lambda r, base: f"{tps(r)} ({speedup(r, base, 'train'):.2f}x)"
        lines.append(f"| {m} | {tps(h['float32'])} | {cell(h['bfloat16'], h['float32'])} | {tps(t['float32'])} | "
                     f"{cell(t['bfloat16'], t['float32'])} | {speedup(h['bfloat16'], t['bfloat16'], 'train'):.2f}x |")
        memory.append(f"| {m} | " + " | ".join(f"{r['peak_rss_mb']:.0f} MB" for r in
                                               (h["float32"], h["bfloat16"], t["float32"], t["bfloat16"])) + " |")
        runs = lambda r: ", ".join(tps(x) for x in r["all"])
        spread.append(f"| {m} | {runs(h['float32'])} / {runs(h['bfloat16'])}; {runs(t['float32'])} / {runs(t['bfloat16'])} |")
    print_tables(lines, memory, spread)


if __name__ == "__main__":
    main()
