#!/usr/bin/python3
"""Prints the Heptapod-vs-PyTorch table from bench/vs_pytorch.sh's JSON results, with the goals checked.

usage: report.py RESULTS_DIR MODEL...   (files RESULTS_DIR/{heptapod,pytorch}-{phase}-{model}.{round}.json)

Each side's figure for a phase is its fastest run (for the ceiling, the highest), with the largest peak RSS
of its runs; a second table lists every run, so the spread between them is on record.

GFLOP/s count useful work only (bench/workload.cpp): real tokens, and for translation what a cached
decoder must do. The ceiling is Heptapod's sgemm on the training step's linear-layer shapes."""
import json
import sys
from pathlib import Path


def runs(results, side, phase, model):
    files = sorted(results.glob(f"{side}-{phase}-{model}.*.json"), key=lambda f: int(f.suffixes[-2][1:]))
    if not files:
        sys.exit(f"report.py: no {side}-{phase}-{model}.*.json in {results}")
    return [json.loads(f.read_text()) for f in files]


def load(results, side, phase, model):
    """The fastest run (the highest ceiling and read bandwidth), carrying the largest peak RSS of all runs."""
    all_runs = runs(results, side, phase, model)
    if phase == "ceiling":
        best = dict(max(all_runs, key=lambda r: r["gflops"]))
        best["read_gb_per_s"] = max(r["read_gb_per_s"] for r in all_runs)
        return best
    best = dict(min(all_runs, key=lambda r: r["seconds"]))
    best["peak_rss_mb"] = max(r["peak_rss_mb"] for r in all_runs)
    return best


def spread(results, models):
    """Every run's figure: tokens/s (latency: ms per sentence; ceiling: GFLOP/s), in round order."""
    lines = ["| phase | Heptapod runs | PyTorch 1.13 runs |", "|---|---|---|"]
    for m in models:
        ceilings = ", ".join(f"{r['gflops']:.0f}" for r in runs(results, "heptapod", "ceiling", m))
        lines.append(f"| {m}: ceiling GFLOP/s | {ceilings} | |")
        for p in ("train", "beam4", "greedy", "latency"):
            key, fmt = ("ms_per_sentence", "{:.1f}") if p == "latency" else ("tokens_per_second", "{:.0f}")
            cells = [", ".join(fmt.format(r[key]) for r in runs(results, side, p, m)) for side in ("heptapod", "pytorch")]
            lines.append(f"| {m}: {p} | {cells[0]} | {cells[1]} |")
    return lines


def main():
    results, models = Path(sys.argv[1]), sys.argv[2:]
    rows, goals = [], []

    def row(what, ours, theirs, unit, better="higher", fmt="{:.0f}"):
        ratio = ours / theirs if better == "higher" else theirs / ours
        rows.append(f"| {what} | {fmt.format(ours)} {unit} | {fmt.format(theirs)} {unit} | {ratio:.2f}x |")

    def goal(text, ok, measured):
        goals.append(f"| {text} | {measured} | {'met' if ok else 'NOT met'} |")

    for m in models:
        ceiling = load(results, "heptapod", "ceiling", m)
        peak = ceiling["gflops"]
        h = {p: load(results, "heptapod", p, m) for p in ("train", "beam4", "greedy", "latency")}
        t = {p: load(results, "pytorch", p, m) for p in ("train", "beam4", "greedy", "latency")}
        rows.append(f"| **{m}** (sgemm ceiling {peak:.0f} GFLOP/s, read bandwidth {ceiling['read_gb_per_s']:.1f} GB/s) | | | |")
        row(f"{m}: training, target tokens/s", h["train"]["tokens_per_second"], t["train"]["tokens_per_second"], "")
        for p in ("train", "beam4", "greedy"):
            gh = h[p]["gflop"] / h[p]["seconds"]
            gt = h[p]["gflop"] / t[p]["seconds"]  # same work, the rival's time
            if p != "train":
                row(f"{m}: translation {p}, batch 32, tokens/s", h[p]["tokens_per_second"], t[p]["tokens_per_second"], "")
            rows.append(f"| {m}: {p} useful GFLOP/s (% of ceiling) | {gh:.0f} ({100 * gh / peak:.0f}%) | "
                        f"{gt:.0f} ({100 * gt / peak:.0f}%) | |")
            if p == "train":
                goal(f"{m}: training >= 85% of the sgemm ceiling", gh >= 0.85 * peak, f"{100 * gh / peak:.0f}%")
            elif m == "base":
                goal(f"base: {p} useful GFLOP/s >= 75% of the ceiling", gh >= 0.75 * peak, f"{100 * gh / peak:.0f}%")
            else:
                r = h[p]["tokens_per_second"] / t[p]["tokens_per_second"]
                goal(f"{m}: {p} tokens/s >= 2x the rival's", r >= 2, f"{r:.2f}x")
        row(f"{m}: batch-1 greedy latency, ms/sentence", h["latency"]["ms_per_sentence"],
            t["latency"]["ms_per_sentence"], "ms", better="lower", fmt="{:.1f}")
        lh, lt = h["latency"]["ms_per_sentence"], t["latency"]["ms_per_sentence"]
        if m == "base":
            tokens_per_sentence = h["latency"]["tokens"] / (h["latency"]["seconds"] * 1000 / lh)
            floor = tokens_per_sentence * h["latency"]["decode_weight_mb"] * 2**20 / (ceiling["read_gb_per_s"] * 1e9) * 1000
            goal("base: latency within 1.2x of the weight-reading floor", lh <= 1.2 * floor,
                 f"{lh / floor:.2f}x of {floor:.0f} ms")
        else:
            goal(f"{m}: latency >= 3x lower than the rival's", lt >= 3 * lh, f"{lt / lh:.2f}x")
        for p in ("train", "beam4", "greedy", "latency"):
            row(f"{m}: peak RSS, {p}", h[p]["peak_rss_mb"], t[p]["peak_rss_mb"], "MB", better="lower")
        limit = 1.3 * h["beam4"]["model_mb"] + 100
        worst = max(h[p]["peak_rss_mb"] for p in ("beam4", "greedy", "latency"))
        goal(f"{m}: translation peak RSS <= 1.3x model ({h['beam4']['model_mb']:.0f} MB) + 100 MB",
             worst <= limit, f"{worst:.0f} MB (limit {limit:.0f})")

    print("| measure | Heptapod | PyTorch 1.13 | Heptapod advantage |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| goal | measured | |")
    print("|---|---|---|")
    print("\n".join(goals))
    print()
    print("\n".join(spread(results, models)))


if __name__ == "__main__":
    main()
