#!/usr/bin/python3
"""Prints the table of bench/serve.sh from its raw results, with the goals checked, and writes them combined.

usage: serve_report.py RAW_DIR OUT_JSON
       (RAW_DIR holds server-{batching,one-at-a-time}-b{beam}-c{clients}.json, offline-b{beam}.json and
       alone-b{beam}.json, as bench/serve.sh writes them)

Goals, per beam: at 32 clients batching gives >= 3x the sentences/s of one at a time; at 128 clients it gives
>= 75% of the offline ceiling (`heptapod translate` over the whole file, model loading left out); with one
client its p50 latency is <= 1.2x that of the same sentences through the Translator API in a warm process."""
import json
import sys
from pathlib import Path

SERVERS = ("batching", "one-at-a-time")


def load_runs(raw):
    runs = [json.loads(f.read_text()) for f in sorted(raw.glob("*.json")) if not f.name.endswith(".load.json")]
    if not runs:
        sys.exit(f"serve_report.py: no results in {raw}")
    for r in runs:
        if r["kind"] == "offline":
            r["sentences_per_second"] = r["sentences"] / (r["seconds"] - r["load_seconds"])
    return runs


def find(runs, kind, beam, server=None, clients=None):
    for r in runs:
        if r["kind"] == kind and r["beam"] == beam and r.get("server") == server and r.get("clients") == clients:
            return r
    return None


def cells(load):
    """sentences/s, p50, p99 of a serve_load result (dashes where the run wrote none)."""
    if load is None:
        return ["-", "-", "-"]
    return [f"{load['sentences_per_second']:.1f}", f"{load['p50_ms']:.1f}", f"{load['p99_ms']:.1f}"]


def mb(value):
    return "-" if value is None else f"{value:.0f}"


def table(runs, beams):
    lines = ["| beam | clients | server | sentences/s | p50 ms | p99 ms | peak RSS MB | errors |",
             "|---|---|---|---|---|---|---|---|"]
    notes = []
    for b in beams:
        offline = find(runs, "offline", b)
        if offline:
            lines.append(f"| {b} | - | offline: heptapod translate, {offline['sentences']} sentences | "
                         f"{offline['sentences_per_second']:.1f} | - | - | - | - |")
        alone = find(runs, "alone", b)
        if alone:
            a = alone["load"]
            lines.append(f"| {b} | 1 | Translator API alone | " + " | ".join(cells(a)) + f" | {mb(a['peak_rss_mb'])} | 0 |")
        for c in sorted({r["clients"] for r in runs if r["kind"] == "server" and r["beam"] == b}):
            for s in SERVERS:
                r = find(runs, "server", b, s, c)
                if r is None:
                    continue
                load = r["load"]
                errors = "-" if load is None else load["errors"]
                lines.append(f"| {b} | {c} | {s} | " + " | ".join(cells(load)) + f" | {mb(r['peak_rss_mb'])} | {errors} |")
                if r["exit_code"] != 0:
                    notes.append(f"beam {b}, {c} clients, {s}: the server exited {r['exit_code']} on SIGTERM")
                if load is None:
                    notes.append(f"beam {b}, {c} clients, {s}: serve_load wrote no result (exit {r['load_exit_code']})")
                elif load["errors"]:
                    notes.append(f"beam {b}, {c} clients, {s}: {load['errors']} errors, the first: {load['first_error'][:200]}")
    return lines, notes


def goals(runs, beams):
    lines = ["| goal | beam | measured | target | |", "|---|---|---|---|---|"]

    def sps(r):
        return None if r is None or r.get("load") is None else r["load"]["sentences_per_second"]

    def p50(r):
        return None if r is None or r.get("load") is None else r["load"]["p50_ms"]

    def ratio(a, b):
        return None if a is None or not b else a / b

    for b in beams:
        batching = {c: find(runs, "server", b, "batching", c) for c in (1, 32, 128)}
        one = find(runs, "server", b, "one-at-a-time", 32)
        offline = find(runs, "offline", b)
        checks = [
            ("32 clients: batching / one at a time, sentences/s", ratio(sps(batching[32]), sps(one)),
             lambda x: x >= 3, ">= 3x", "{:.2f}x"),
            ("128 clients: batching / offline, sentences/s",
             ratio(sps(batching[128]), offline and offline["sentences_per_second"]),
             lambda x: x >= 0.75, ">= 75%", "{:.0%}"),
            ("1 client: batching p50 / Translator alone p50", ratio(p50(batching[1]), p50(find(runs, "alone", b))),
             lambda x: x <= 1.2, "<= 1.2x", "{:.2f}x"),
        ]
        for text, value, ok, target, fmt in checks:
            if value is None:
                lines.append(f"| {text} | {b} | not measured | {target} | |")
            else:
                lines.append(f"| {text} | {b} | {fmt.format(value)} | {target} | {'met' if ok(value) else 'NOT met'} |")
    return lines


def main():
    raw, out_json = Path(sys.argv[1]), Path(sys.argv[2])
    runs = load_runs(raw)
    beams = sorted({r["beam"] for r in runs}, reverse=True)
    rows, notes = table(runs, beams)
    print("\n".join(rows))
    if notes:
        print()
        print("\n".join(f"- {n}" for n in notes))
    print()
    print("\n".join(goals(runs, beams)))
    out_json.write_text(json.dumps({"runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
