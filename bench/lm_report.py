#!/usr/bin/python3
"""Prints the language-model Heptapod-vs-PyTorch table from bench/lm_vs_pytorch.sh's JSON results, with the
goals of issue 44 checked (docs/benchmarks.md): training >= 1.7x PyTorch (float32, and bfloat16 products
against its bf16 autocast), generation >= 2x PyTorch with a key/value cache (float32, int8, bfloat16; batch 1
and 32), batch-1 float32 generation >= 0.7x the weight-reading floor; issue 60's for smollm-135m (LLaMA's
pieces at SmolLM-135M's shape): the same, but training >= 1.49x.

usage: lm_report.py RESULTS_DIR MODEL...   (files RESULTS_DIR/{heptapod,pytorch}-{name}.{round}.json)

Each side's figure is its fastest run, with the largest peak RSS of its runs; the second table lists every
run. The floor: tokens/s if each new token read every decoder weight once (float32) at the measured read
bandwidth (heptapod_bench ceiling's read_gb_per_s; decode_weight_mb of the run)."""
import json
import sys
from pathlib import Path

# Issue 60's training bar for the LLaMA-shaped model: GPT-2-small's ratio when it was set (1.49x).
TRAIN_BAR = {"smollm-135m": 1.49}
PHASES = [("train", t) for t in ("float32", "bfloat16")] + \
         [(f"generate{rows}", t) for rows in (1, 32) for t in ("float32", "int8", "bfloat16")]


def runs(results, side, name):
    files = sorted(results.glob(f"{side}-{name}.*.json"), key=lambda f: int(f.suffixes[-2][1:]))
    if not files:
        sys.exit(f"lm_report.py: no {side}-{name}.*.json in {results}")
    return [json.loads(f.read_text()) for f in files]


def best(results, side, name):
    all_runs = runs(results, side, name)
    if name.startswith("ceiling"):
        top = dict(max(all_runs, key=lambda r: r["gflops"]))
        top["read_gb_per_s"] = max(r["read_gb_per_s"] for r in all_runs)
        return top
    top = dict(max(all_runs, key=lambda r: r["tokens_per_second"]))
    top["peak_rss_mb"] = max(r["peak_rss_mb"] for r in all_runs)
    return top


def label(phase, compute_type):
    if phase == "train":
        return "training, " + ("float32" if compute_type == "float32" else "bfloat16 products / bf16 autocast")
    return f"generation batch {phase[len('generate'):]}, {compute_type}"


def main():
    results, models = Path(sys.argv[1]), sys.argv[2:]
    rows = ["| model | phase | Heptapod tok/s | PyTorch 1.13 tok/s | ratio | Heptapod GFLOP/s | peak RSS MB (H / P) |",
            "|---|---|---|---|---|---|---|"]
    goals = ["| goal | measured | |", "|---|---|---|"]
    spread = ["| model | phase | Heptapod runs (tok/s) | PyTorch runs (tok/s) |", "|---|---|---|---|"]
    for m in models:
        ceiling = best(results, "heptapod", f"ceiling-{m}")
        rows.append(f"| {m} | sgemm ceiling (training shapes) | {ceiling['gflops']:.0f} GFLOP/s | | | | |")
        for phase, t in PHASES:
            name = f"{phase}-{t}-{m}"
            ours, theirs = best(results, "heptapod", name), best(results, "pytorch", name)
            ratio = ours["tokens_per_second"] / theirs["tokens_per_second"]
            gflops = ours["gflop"] / ours["seconds"]
            rows.append(f"| {m} | {label(phase, t)} | {ours['tokens_per_second']:.0f} | {theirs['tokens_per_second']:.0f} "
                        f"| {ratio:.2f}x | {gflops:.0f} | {ours['peak_rss_mb']:.0f} / {theirs['peak_rss_mb']:.0f} |")
            bar = (TRAIN_BAR.get(m, 1.7)) if phase == "train" else 2.0
            goals.append(f"| {m}: {label(phase, t)} >= {bar}x PyTorch | {ratio:.2f}x | {'met' if ratio >= bar else 'NOT met'} |")
            spread.append(f"| {m} | {label(phase, t)} | "
                          + " | ".join(", ".join(f"{r['tokens_per_second']:.0f}" for r in runs(results, side, name))
                                       for side in ("heptapod", "pytorch")) + " |")
            if phase == "generate1" and t == "float32":
                floor = ceiling["read_gb_per_s"] * 1e9 / (ours["decode_weight_mb"] * (1 << 20))
                share = ours["tokens_per_second"] / floor
                rows.append(f"| {m} | weight-reading floor, batch 1 float32 ({ours['decode_weight_mb']:.0f} MB at "
                            f"{ceiling['read_gb_per_s']:.1f} GB/s) | {floor:.0f} | | {share:.2f}x of floor | | |")
                goals.append(f"| {m}: batch-1 float32 generation >= 0.7x the weight-reading floor | {share:.2f}x "
                             f"| {'met' if share >= 0.7 else 'NOT met'} |")
    print("\n".join(rows))
    print()
    print("\n".join(goals))
    print()
    print("Every run:")
    print()
    print("\n".join(spread))


if __name__ == "__main__":
    main()
