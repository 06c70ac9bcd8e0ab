#!/usr/bin/python3
"""Prints the low-precision table from bench/low_precision.sh's JSON results, with the goals checked.

usage: low_precision_report.py RESULTS_DIR MODEL...
       (files RESULTS_DIR/{heptapod,pytorch}-{type}-{phase}-{model}.{round}.json)

Each configuration's figure is its fastest run, with the largest peak RSS of its runs. Speed-ups are against
the same side's float32; the last column compares Heptapod int8 with PyTorch int8."""
import json
import sys
from pathlib import Path

PHASES = ("beam4", "greedy", "latency")


def load(results, side, ctype, phase, model):
    files = sorted(results.glob(f"{side}-{ctype}-{phase}-{model}.*.json"))
    if not files:
        sys.exit(f"low_precision_report.py: no {side}-{ctype}-{phase}-{model}.*.json in {results}")
    runs = [json.loads(f.read_text()) for f in files]
    best = dict(min(runs, key=lambda r: r["seconds"]))
    best["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    best["all"] = runs
    return best


def figure(run, phase):
    """Tokens/s, or ms per sentence for latency (lower is better)."""
    return run["ms_per_sentence"] if phase == "latency" else run["tokens_per_second"]


def speedup(run, base, phase):
    return figure(base, phase) / figure(run, phase) if phase == "latency" else figure(run, phase) / figure(base, phase)


def print_tables(speed, memory, spread, goals=()):
    """The speed table, then peak RSS, the goals (when there are any) and every run, each a list of lines."""
    print("\n".join(speed))
    print("\nPeak RSS:\n")
    print("\n".join(memory))
    if goals:
        print("\n| goal | measured | |\n|---|---|---|")
        print("\n".join(goals))
    print("\nEvery run:\n")
    print("\n".join(spread))


def main():
    results, models = Path(sys.argv[1]), sys.argv[2:]
    lines = ["| model: phase | Heptapod float32 | int8 | bfloat16 | PyTorch float32 | PyTorch int8 | "
             "Heptapod int8 / PyTorch int8 |", "|---|---|---|---|---|---|---|"]
    memory = ["| model: phase | Heptapod float32 | int8 | bfloat16 | PyTorch float32 | PyTorch int8 |",
              "|---|---|---|---|---|---|"]
    spread = ["| model: phase | runs (Heptapod f32 / int8 / bf16; PyTorch f32 / int8) |", "|---|---|"]
    goals = []

    def goal(text, ok, measured):
        goals.append(f"| {text} | {measured} | {'met' if ok else 'NOT met'} |")

    for m in models:
        for p in PHASES:
            h = {t: load(results, "heptapod", t, p, m) for t in ("float32", "int8", "bfloat16")}
            t = {c: load(results, "pytorch", c, p, m) for c in ("float32", "int8")}
            unit, fmt = ("ms/sentence", "{:.1f}") if p == "latency" else ("tokens/s", "{:.0f}")
            what = "batch-1 greedy latency" if p == "latency" else f"{p}, batch 32"
            cell = lambda r, base: f"{fmt.format(figure(r, p))} ({speedup(r, base, p):.2f}x)"
            lines.append(f"| {m}: {what}, {unit} | {fmt.format(figure(h['float32'], p))} | "
                         f"{cell(h['int8'], h['float32'])} | {cell(h['bfloat16'], h['float32'])} | "
                         f"{fmt.format(figure(t['float32'], p))} | {cell(t['int8'], t['float32'])} | "
                         f"{speedup(h['int8'], t['int8'], p):.2f}x |")
            memory.append(f"| {m}: {p} | " + " | ".join(
                f"{r['peak_rss_mb']:.0f} MB" for r in (h["float32"], h["int8"], h["bfloat16"], t["float32"], t["int8"])) + " |")
            runs = lambda r: ", ".join(fmt.format(figure(x, p)) for x in r["all"])
            spread.append(f"| {m}: {p} | {runs(h['float32'])} / {runs(h['int8'])} / {runs(h['bfloat16'])}; "
                          f"{runs(t['float32'])} / {runs(t['int8'])} |")
            s8, s16 = speedup(h["int8"], h["float32"], p), speedup(h["bfloat16"], h["float32"], p)
            if m == "base" and p == "beam4":
                goal("base: beam 4 batch 32, int8 >= 1.8x own float32", s8 >= 1.8, f"{s8:.2f}x")
                goal("base: beam 4 batch 32, bfloat16 >= 1.4x own float32", s16 >= 1.4, f"{s16:.2f}x")
            if m == "base" and p == "latency":
                goal("base: batch-1 greedy latency, int8 >= 2.5x lower than float32", s8 >= 2.5, f"{s8:.2f}x")
            if m == "small" and p == "beam4":
                goal("small: beam 4 batch 32, int8 >= 1.5x own float32", s8 >= 1.5, f"{s8:.2f}x")
    print_tables(lines, memory, spread, goals)


if __name__ == "__main__":
    main()
