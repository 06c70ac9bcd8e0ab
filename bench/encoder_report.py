#!/usr/bin/python3
"""Prints the encoder-only (BERT-style) Heptapod-vs-PyTorch table from the encoder benchmark's JSON results,
with the goals of issue 45 checked: embedding throughput at batch 32 >= 2x PyTorch (sentences/s), batch-1
embedding latency >= 3x lower than PyTorch's (ms per batch), each in float32, int8 and bfloat16 (against
PyTorch's dynamic int8 quantization and its bf16 autocast); masked-LM training >= 1.7x PyTorch (tokens/s;
float32, and bfloat16 products against its bf16 autocast).

usage: encoder_report.py RESULTS_DIR MODEL...   (files RESULTS_DIR/{heptapod,pytorch}-{name}.{round}.json)

Names: embed32-{float32,int8,bfloat16}-MODEL (sentences_per_second), embed1-{float32,int8,bfloat16}-MODEL
(ms_per_batch) and mlm-train-{float32,bfloat16}-MODEL (tokens_per_second); both sides write the same keys
(bench/pytorch_bert.py's JSON, "side" "heptapod" or "pytorch"). Each side's figure is its best run (the
highest throughput, the lowest latency), with the largest peak RSS of its runs; the ratio is Heptapod's
advantage (throughput: Heptapod / PyTorch; latency: PyTorch ms / Heptapod ms), so above 1 is Heptapod ahead.
The last table lists every run."""
import json
import sys
from pathlib import Path

TYPES = ("float32", "int8", "bfloat16")
# (phase, compute type, the figure, higher is better, the goal, its unit)
PHASES = [("embed32", t, "sentences_per_second", True, 2.0, "sentences/s") for t in TYPES] + \
         [("embed1", t, "ms_per_batch", False, 3.0, "ms") for t in TYPES] + \
         [("mlm-train", t, "tokens_per_second", True, 1.7, "tokens/s") for t in ("float32", "bfloat16")]


def runs(results, side, name):
    files = sorted(results.glob(f"{side}-{name}.*.json"), key=lambda f: int(f.suffixes[-2][1:]))
    if not files:
        sys.exit(f"encoder_report.py: no {side}-{name}.*.json in {results}")
    return [json.loads(f.read_text()) for f in files]


def best(results, side, name, key, higher):
    all_runs = runs(results, side, name)
    pick = max if higher else min
    top = dict(pick(all_runs, key=lambda r: r[key]))
    top["peak_rss_mb"] = max(r["peak_rss_mb"] for r in all_runs)
    return top


def label(phase, compute_type):
    if phase == "mlm-train":
        return "MLM training, " + ("float32" if compute_type == "float32" else "bfloat16 products / bf16 autocast")
    if phase == "embed32":
        kind = "embedding batch 32 throughput"
    else:
        kind = "embedding batch 1 latency"
    if compute_type == "int8":
        return f"{kind}, int8 / dynamic int8"
    if compute_type == "bfloat16":
        return f"{kind}, bfloat16 / bf16 autocast"
    return f"{kind}, float32"


def figure(value):
    """Three or more significant digits: 12345, 123, 12.3, 1.23."""
    return f"{value:.0f}" if value >= 100 else f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    results, models = Path(sys.argv[1]), sys.argv[2:]
    rows = ["| model | phase | Heptapod | PyTorch 1.13 | ratio | Heptapod GFLOP/s | peak RSS MB (H / P) |",
            "|---|---|---|---|---|---|---|"]
    goals = ["| goal | measured | |", "|---|---|---|"]
    spread = ["| model | phase | Heptapod runs | PyTorch runs |", "|---|---|---|---|"]
    for m in models:
        for phase, t, key, higher, bar, unit in PHASES:
            name = f"{phase}-{t}-{m}"
            ours, theirs = best(results, "heptapod", name, key, higher), best(results, "pytorch", name, key, higher)
            ratio = ours[key] / theirs[key] if higher else theirs[key] / ours[key]
            gflops = ours["gflop"] / ours["seconds"]
            rows.append(f"| {m} | {label(phase, t)} | {figure(ours[key])} {unit} "
                        f"| {figure(theirs[key])} {unit} | {ratio:.2f}x | {gflops:.0f} "
                        f"| {ours['peak_rss_mb']:.0f} / {theirs['peak_rss_mb']:.0f} |")
            claim = f">= {bar}x PyTorch" if higher else f">= {bar}x lower latency than PyTorch"
            goals.append(f"| {m}: {label(phase, t)} {claim} | {ratio:.2f}x | {'met' if ratio >= bar else 'NOT met'} |")
            spread.append(f"| {m} | {label(phase, t)} ({unit}) | "
                          + " | ".join(", ".join(figure(r[key]) for r in runs(results, side, name))
                                       for side in ("heptapod", "pytorch")) + " |")
    print("\n".join(rows))
    print()
    print("\n".join(goals))
    print()
    print("Every run:")
    print()
    print("\n".join(spread))


if __name__ == "__main__":
    main()
