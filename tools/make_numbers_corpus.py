#!/usr/bin/env python3
"""Writes the small committed parallel corpus used by the training tests: English number phrases and their
Spanish translations ("three hundred and forty-two" -> "trescientos cuarenta y dos"), a real translation task
with reordering-free but non-trivial morphology (veintiuno, quinientos, dieciséis, ...).

    python3 tools/make_numbers_corpus.py            # writes tests/data/numbers.{train,dev}.{en,es}

Deterministic: the same files every run.
"""
import argparse
import os
import random

EN_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " \
          "sixteen seventeen eighteen nineteen".split()
EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
ES_ONES = ["cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once",
           "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve", "veinte",
           "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis", "veintisiete",
           "veintiocho", "veintinueve"]
ES_TENS = "_ _ _ treinta cuarenta cincuenta sesenta setenta ochenta noventa".split()
ES_HUNDREDS = ["_", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos",
               "setecientos", "ochocientos", "novecientos"]


def en_below_1000(n):
    words = []
    if n >= 100:
        words += [EN_ONES[n // 100], "hundred"]
        n %= 100
        if n:
            words.append("and")
    if n >= 20:
        words.append(EN_TENS[n // 10] + ("-" + EN_ONES[n % 10] if n % 10 else ""))
    elif n or not words:
        words.append(EN_ONES[n])
    return words


def en(n):
    if n >= 1000:
        rest = n % 1000
        return " ".join(en_below_1000(n // 1000) + ["thousand"] + (en_below_1000(rest) if rest else []))
    return " ".join(en_below_1000(n))


def es_below_1000(n):
    words = []
    if n == 100:
        return ["cien"]
    if n >= 100:
        words.append(ES_HUNDREDS[n // 100])
        n %= 100
    if n >= 30:
        words.append(ES_TENS[n // 10])
        if n % 10:
            words += ["y", ES_ONES[n % 10]]
    elif n or not words:
        words.append(ES_ONES[n])
    return words


def es(n):
    if n >= 1000:
        thousands, rest = divmod(n, 1000)
        head = ["mil"] if thousands == 1 else es_below_1000(thousands) + ["mil"]
        head = [w if w != "uno" else "un" for w in head]
        head = [w if w != "veintiuno" else "veintiún" for w in head]
        return " ".join(head + (es_below_1000(rest) if rest else []))
    return " ".join(es_below_1000(n))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out-dir", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data"))
    args = parser.parse_args()
    rng = random.Random(2017)
    numbers = rng.sample(range(0, 100000), 4200)
    splits = {"train": numbers[:4000], "dev": numbers[4000:]}
    for split, values in splits.items():
        for lang, fn in (("en", en), ("es", es)):
            path = os.path.join(args.out_dir, f"numbers.{split}.{lang}")
            with open(path, "w", encoding="utf-8") as f:
                for v in values:
                    f.write(fn(v) + "\n")


if __name__ == "__main__":
    main()
