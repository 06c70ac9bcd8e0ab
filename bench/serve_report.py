#!/usr/bin/python3
"""Prints the tables of bench/serve.sh from its raw results, with the goals checked, and writes them combined.

usage: serve_report.py RAW_DIR OUT_JSON
       (RAW_DIR holds the records bench/serve.sh writes. Its translation section: kind "server" (server-{front
       end}-{batching,one-at-a-time}-b{beam}-c{clients}.json), "offline", "alone" and "hostile" (hostile-{front
       end}-s{slow-loris}-i{idle}.json); a record without a front_end is the event front end's. Its generation
       and embeddings sections: kinds "generation-server" and "embeddings-server" ({section}-server-{batching,
       one-at-a-time}-c{clients}.json), "generation-alone" and "embeddings-alone" (the library one request at a
       time), "generation-offline" and "embeddings-offline" (the library, many requests per call). A section
       without records prints nothing.)

Translation goals, per front end and beam: at 32 clients batching gives >= 3x the sentences/s of one at a time; at
128 clients it gives >= 75% of the offline ceiling (`heptapod translate` over the whole file, model loading left
out); with one client its p50 latency is <= 1.2x that of the same sentences through the Translator API in a warm
process. Per front end, beside the hostile connections: p50 <= 2x that of the same server unloaded, no request
failed, the server's peak RSS < 500 MB.
Generation goals: at 32 clients batching gives >= 3x the generated tokens/s (completion tokens from the usage) of
the same server one at a time (--no-batching); with one client its time to first token (p50) is <= 1.2x that of the
same prompts through heptapod::Generator in a warm process. Embeddings goals: at 32 clients batching gives >= 3x the
texts/s of one at a time; with one client its p50 latency is <= 1.2x that of heptapod::Encoder::embed of one text in
a warm process."""
import json
import sys
from pathlib import Path

SERVERS = ("batching", "one-at-a-time")
TRANSLATION_KINDS = ("server", "offline", "alone", "hostile")
FRONT_ENDS = ("event", "baseline")
HOSTILE_KINDS = (("slow_loris", "slow-loris"), ("idle", "idle"))


def load_runs(raw):
    runs = [json.loads(f.read_text()) for f in sorted(raw.glob("*.json")) if not f.name.endswith(".load.json")]
    if not runs:
        sys.exit(f"serve_report.py: no results in {raw}")
    for r in runs:
        if r["kind"] in ("server", "hostile"):
            r.setdefault("front_end", "event")
        if r["kind"] == "offline":
            r["sentences_per_second"] = r["sentences"] / (r["seconds"] - r["load_seconds"])
    return runs


def find(runs, kind, beam, server=None, clients=None, front=None):
    for r in runs:
        if (r["kind"] == kind and r["beam"] == beam and r.get("server") == server and r.get("clients") == clients
                and r.get("front_end") == front):
            return r
    return None


def front_ends(runs):
    return [f for f in FRONT_ENDS if any(r.get("front_end") == f for r in runs)]


def cells(load):
    """sentences/s, p50, p99 of a serve_load result (dashes where the run wrote none or none succeeded)."""
    if load is None or load["requests"] == 0:
        return ["-", "-", "-"]
    return [f"{load['sentences_per_second']:.1f}", f"{load['p50_ms']:.1f}", f"{load['p99_ms']:.1f}"]


def mb(value):
    return "-" if value is None else f"{value:.0f}"


def server_notes(r, what):
    """The server's exit on SIGTERM and the load's failures, if any, of one server record."""
    notes = []
    if r["exit_code"] != 0:
        notes.append(f"{what}: the server exited {r['exit_code']} on SIGTERM")
    if r["load"] is None:
        notes.append(f"{what}: serve_load wrote no result (exit {r['load_exit_code']})")
    elif r["load"]["errors"]:
        notes.append(f"{what}: {r['load']['errors']} errors, the first: {r['load']['first_error'][:200]}")
    return notes


def server_row(r, leading, cells, what):
    """One server record's table row (after the `leading` cells) and its notes."""
    load = r["load"]
    errors = "-" if load is None else load["errors"]
    row = "| " + " | ".join(leading + cells(load)) + f" | {mb(r['peak_rss_mb'])} | {errors} |"
    return row, server_notes(r, what)


def table(runs, beams):
    lines = ["| beam | clients | server | front end | sentences/s | p50 ms | p99 ms | peak RSS MB | errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for b in beams:
        offline = find(runs, "offline", b)
        if offline:
            lines.append(f"| {b} | - | offline: heptapod translate, {offline['sentences']} sentences | - | "
                         f"{offline['sentences_per_second']:.1f} | - | - | - | - |")
        alone = find(runs, "alone", b)
        if alone:
            a = alone["load"]
            lines.append(f"| {b} | 1 | Translator API alone | - | " + " | ".join(cells(a)) + f" | {mb(a['peak_rss_mb'])} | 0 |")
        for c in sorted({r["clients"] for r in runs if r["kind"] == "server" and r["beam"] == b}):
            for s in SERVERS:
                for f in front_ends(runs):
                    r = find(runs, "server", b, s, c, f)
                    if r is None:
                        continue
                    row, more = server_row(r, [str(b), str(c), s, f], cells, f"beam {b}, {c} clients, {s}, {f} front end")
                    lines.append(row)
                    notes += more
    return lines, notes


def answered(r):
    """The serve_load result of a record, or None when it has none or no request of it succeeded ("requests"
    counts the successful ones)."""
    load = None if r is None else r.get("load")
    return None if load is None or load["requests"] == 0 else load


def sps(r):
    load = answered(r)
    return None if load is None else load["sentences_per_second"]


def p50(r):
    load = answered(r)
    return None if load is None else load["p50_ms"]


def ratio(a, b):
    return None if a is None or not b else a / b


def goal_line(columns, value, ok, target, fmt):
    """A row of a goals table: its first columns, then the measured value against the target."""
    if value is None:
        return "| " + " | ".join(columns) + f" | not measured | {target} | |"
    return "| " + " | ".join(columns) + f" | {fmt.format(value)} | {target} | {'met' if ok(value) else 'NOT met'} |"


def goals(runs, beams):
    lines = ["| goal | front end | beam | measured | target | |", "|---|---|---|---|---|---|"]
    for f in front_ends(runs):
        for b in beams:
            batching = {c: find(runs, "server", b, "batching", c, f) for c in (1, 32, 128)}
            one = find(runs, "server", b, "one-at-a-time", 32, f)
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
            lines += [goal_line([text, f, str(b)], value, ok, target, fmt) for text, value, ok, target, fmt in checks]
    return lines


def hostile_runs(runs, f):
    """The unloaded and the hostile record of one front end (None where missing)."""
    mine = [r for r in runs if r["kind"] == "hostile" and r["front_end"] == f]
    unloaded = next((r for r in mine if r["slow_loris"] == 0 and r["idle"] == 0), None)
    loaded = next((r for r in mine if r is not unloaded), None)
    return unloaded, loaded


def hostile_cells(r):
    """hostile connections (held at the end), refused connections of a hostile record."""
    if r["slow_loris"] == 0 and r["idle"] == 0:
        return "none", "-"
    asked = f"{r['slow_loris']} slow-loris + {r['idle']} idle"
    h = (r["load"] or {}).get("hostile")
    if h is None:
        return asked, "-"
    held = sum(h[k]["open_now"] for k, _ in HOSTILE_KINDS)
    return f"{asked} ({held} held at the end)", str(sum(h[k]["refused_total"] for k, _ in HOSTILE_KINDS))


def hostile_notes(r, what):
    """How the server closed the hostile connections, and its refusal and timeout counters."""
    h = (r["load"] or {}).get("hostile")
    if h is None:
        return []
    notes = []
    def counts(by_answer):
        return ", ".join(f"{answer} x {n}" for answer, n in by_answer.items()) or "none"

    for k, name in HOSTILE_KINDS:
        s = h[k]
        notes.append(f"{what}: {name}: opened {s['opened']}, refused: {counts(s['refused'])}; closed by the server: "
                     f"{counts(s['closed'])} (after {s['close_seconds_median']:.1f} s median, "
                     f"{s['close_seconds_max']:.1f} s max)")
    metrics = r["load"].get("server_metrics")
    if metrics:
        notes.append(f"{what}: server metrics: " + ", ".join(f"{k} {v:g}" for k, v in metrics.items()))
    if h["first_connect_error"]:
        notes.append(f"{what}: first failed connect: {h['first_connect_error']}")
    return notes


def hostile_table(runs):
    lines = ["| front end | hostile connections | sentences/s | p50 ms | p99 ms | errors | refused hostile | peak RSS MB |",
             "|---|---|---|---|---|---|---|---|"]
    notes = []
    for f in front_ends(runs):
        for r in hostile_runs(runs, f):
            if r is None:
                continue
            hostile, refused = hostile_cells(r)
            sentences_per_second, p50_ms, p99_ms = cells(r["load"])
            errors = "-" if r["load"] is None else r["load"]["errors"]
            lines.append(f"| {f} | {hostile} | {sentences_per_second} | {p50_ms} | {p99_ms} | {errors} | {refused} | "
                         f"{mb(r['peak_rss_mb'])} |")
            what = f"{f} front end, {'hostile' if r['slow_loris'] or r['idle'] else 'unloaded'}"
            notes += server_notes(r, what) + hostile_notes(r, what)
    return lines, notes


def hostile_goals(runs):
    lines = ["| goal | front end | measured | target | |", "|---|---|---|---|---|"]
    for f in front_ends(runs):
        unloaded, loaded = hostile_runs(runs, f)
        if unloaded is None or loaded is None:
            continue
        errors = None if loaded["load"] is None else loaded["load"]["errors"]
        checks = [
            ("hostile p50 / unloaded p50", ratio(p50(loaded), p50(unloaded)), lambda x: x <= 2, "<= 2x", "{:.2f}x"),
            ("requests failed beside the hostile connections", errors, lambda x: x == 0, "0", "{}"),
            ("server peak RSS beside the hostile connections, MB", loaded["peak_rss_mb"], lambda x: x < 500, "< 500",
             "{:.0f}"),
        ]
        lines += [goal_line([text, f], value, ok, target, fmt) for text, value, ok, target, fmt in checks]
    return lines


def api_find(runs, section, server, clients):
    """The {section}-server record of that server and client count, or None."""
    return next((r for r in runs if r["kind"] == f"{section}-server" and r["server"] == server
                 and r["clients"] == clients), None)


def api_alone(runs, section, kind="alone"):
    """The section's library record: one at a time ("alone") or batched per call ("offline")."""
    return next((r for r in runs if r["kind"] == f"{section}-{kind}"), None)


def field(r, name):
    """A field of a record's serve_load result, or None when it has none or no request of it succeeded."""
    load = answered(r)
    return None if load is None else load.get(name)


def generation_cells(load):
    """completions, tokens/s, tokens per completion, TTFT p50 and p99, latency p50 and p99."""
    if load is None or load["requests"] == 0:
        return ["0" if load else "-"] + ["-"] * 6
    return [str(load["requests"]), f"{load['tokens_per_second']:.1f}", f"{load['tokens_per_request']:.1f}",
            f"{load['ttft_p50_ms']:.1f}", f"{load['ttft_p99_ms']:.1f}", f"{load['p50_ms']:.1f}",
            f"{load['p99_ms']:.1f}"]


def embeddings_cells(load):
    """texts, texts/s, latency p50 and p99."""
    if load is None or load["requests"] == 0:
        return ["0" if load else "-"] + ["-"] * 3
    return [str(load["requests"]), f"{load['texts_per_second']:.1f}", f"{load['p50_ms']:.1f}", f"{load['p99_ms']:.1f}"]


def api_table(runs, section):
    """The rows of a generation or embeddings section: its library reference, then every server run."""
    if section == "generation":
        lines = ["| clients | server | completions | tokens/s | tokens/completion | TTFT p50 ms | TTFT p99 ms | "
                 "latency p50 ms | latency p99 ms | peak RSS MB | errors |",
                 "|---|---|---|---|---|---|---|---|---|---|---|"]
        cells, reference = generation_cells, "Generator alone"
    else:
        lines = ["| clients | server | texts | texts/s | p50 ms | p99 ms | peak RSS MB | errors |",
                 "|---|---|---|---|---|---|---|---|"]
        cells, reference = embeddings_cells, "Encoder::embed alone"
    notes = []
    alone = api_alone(runs, section)
    if alone:
        a = alone["load"]
        lines.append(f"| 1 | {reference} | " + " | ".join(cells(a)) + f" | {mb(a['peak_rss_mb'])} | 0 |")
    offline = api_alone(runs, section, "offline")
    if offline:
        a = offline["load"]
        lines.append(f"| - | offline: {reference.split()[0]}, {offline['batch']} per call | " + " | ".join(cells(a)) +
                     f" | {mb(a['peak_rss_mb'])} | 0 |")
    for c in sorted({r["clients"] for r in runs if r["kind"] == f"{section}-server"}):
        for s in SERVERS:
            r = api_find(runs, section, s, c)
            if r is None:
                continue
            row, more = server_row(r, [str(c), s], cells, f"{section}, {c} clients, {s}")
            lines.append(row)
            notes += more
    return lines, notes


def api_goals(runs, section):
    batching32, one32 = api_find(runs, section, "batching", 32), api_find(runs, section, "one-at-a-time", 32)
    batching1, alone = api_find(runs, section, "batching", 1), api_alone(runs, section)
    alone_load = None if alone is None else alone["load"]
    # (rate field and its words, latency field and its words, the library's name)
    rate, rate_words, latency, latency_words, library = (
        ("tokens_per_second", "generated tokens/s", "ttft_p50_ms", "TTFT p50", "Generator")
        if section == "generation" else ("texts_per_second", "texts/s", "p50_ms", "p50", "Encoder::embed"))
    checks = [
        (f"32 clients: batching / one at a time, {rate_words}", ratio(field(batching32, rate), field(one32, rate)),
         lambda x: x >= 3, ">= 3x", "{:.2f}x"),
        (f"1 client: batching {latency_words} / {library} alone {latency_words}",
         ratio(field(batching1, latency), alone_load and alone_load[latency]), lambda x: x <= 1.2, "<= 1.2x", "{:.2f}x"),
    ]
    lines = ["| goal | measured | target | |", "|---|---|---|---|"]
    lines += [goal_line([text], value, ok, target, fmt) for text, value, ok, target, fmt in checks]
    # What batching can give at most here: the library's own batched calls against its calls one at a time.
    offline = api_alone(runs, section, "offline")
    if offline and alone_load:
        lines.append(f"| the library's own batching ({offline['batch']} per call) / one at a time | "
                     f"{ratio(offline['load'][rate], alone_load[rate]):.2f}x | (the offline ceiling of the ratio) | |")
    return lines


def print_rows(rows, notes):
    print("\n".join(rows))
    if notes:
        print()
        print("\n".join(f"- {n}" for n in notes))


def main():
    raw, out_json = Path(sys.argv[1]), Path(sys.argv[2])
    runs = load_runs(raw)
    translation = [r for r in runs if r["kind"] in TRANSLATION_KINDS]
    printed = False
    if translation:
        beams = sorted({r["beam"] for r in translation if r["kind"] != "hostile"}, reverse=True)
        if len(translation) < len(runs):  # a heading only beside the other sections
            print("Translation:")
            print()
        print_rows(*table(translation, beams))
        print()
        print("\n".join(goals(translation, beams)))
        if any(r["kind"] == "hostile" for r in translation):
            print()
            print("Beside hostile connections (beam 4, batching, 32 clients, the server's default limits):")
            print()
            print_rows(*hostile_table(translation))
            print()
            print("\n".join(hostile_goals(translation)))
        printed = True
    for section, title in (("generation", "Generation (POST /v1/completions, streamed)"),
                           ("embeddings", "Embeddings (POST /v1/embeddings, one text per request)")):
        if not any(r["kind"].startswith(section + "-") for r in runs):
            continue
        if printed:
            print()
        print(f"{title}:")
        print()
        print_rows(*api_table(runs, section))
        print()
        print("\n".join(api_goals(runs, section)))
        printed = True
    out_json.write_text(json.dumps({"runs": runs}, indent=2) + "\n")


if __name__ == "__main__":
    main()
