#!/usr/bin/python3
"""The table of bench/quantized_quality.sh: for each compute type, the per-token log-probability error
against float32 (mean and largest absolute difference over every reference token, and the mean per-sentence
difference of summed log-probabilities) and test BLEU / chrF2 (beam 4).
  quantized_quality_report.py OUT MODEL TYPE...   (float32 first: the reference)"""
import re
import sys


def scores(path):
    """(sentence log-probability, [token log-probabilities]) per line of `heptapod score --per-token`."""
    rows = []
    with open(path) as f:
        for line in f:
            values = [float(v) for v in line.split("\t")]
            rows.append((values[0], values[1:]))
    return rows


def metric(path, name):
    text = open(path).read()
    found = re.search(name + r"[^=]*= *([0-9.]+)", text)
    return found.group(1) if found else "?"


def main():
    out, model, types = sys.argv[1], sys.argv[2], sys.argv[3:]
    reference = scores(f"{out}/score-{types[0]}.txt")
    tokens = sum(len(t) for _, t in reference)
    print(f"Model {model}: {len(reference)} sentences, {tokens} reference tokens (end tokens included).\n")
    print("| compute type | mean abs token log-prob error | largest | mean abs sentence error | BLEU | chrF2 |")
    print("|---|---|---|---|---|---|")
    for t in types:
        rows = scores(f"{out}/score-{t}.txt")
        if len(rows) != len(reference):
            sys.exit(f"{out}/score-{t}.txt: {len(rows)} lines, the reference has {len(reference)}")
        diffs = [abs(a - b) for (_, ta), (_, tb) in zip(rows, reference) for a, b in zip(ta, tb)]
        sentence = sum(abs(a - b) for (a, _), (b, _) in zip(rows, reference)) / len(rows)
        print(f"| {t} | {sum(diffs) / len(diffs):.5f} | {max(diffs):.4f} | {sentence:.4f} | "
              f"{metric(f'{out}/bleu-{t}.txt', 'BLEU')} | {metric(f'{out}/bleu-{t}.txt', 'chrF')} |")


if __name__ == "__main__":
    main()
