#!/usr/bin/python3
"""Translate a file with a Heptapod model from Python and score the result against references.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/translate_and_score.py \
        runs/demo/model.htp runs/bible/data/test.es runs/bible/data/test.en
"""
import sys
from concurrent.futures import ThreadPoolExecutor

import heptapod


def main(model_path, source_path, reference_path):
    with open(source_path, encoding="utf-8") as f:
        sources = f.read().splitlines()
    with open(reference_path, encoding="utf-8") as f:
        references = f.read().splitlines()
    translator = heptapod.Translator(model_path, threads=1, compute_type="int8")
    # The GIL is released while a translator computes: two translators on two threads use two cores.
    other = heptapod.Translator(model_path, threads=1, compute_type="int8")
    half = len(sources) // 2
    with ThreadPoolExecutor(2) as pool:
        parts = pool.map(lambda job: job[0].translate(job[1], beam=4),
                         [(translator, sources[:half]), (other, sources[half:])])
    hypotheses = [r["hypotheses"][0]["text"] if r["hypotheses"] else "" for part in parts for r in part]
    print(heptapod.bleu(hypotheses, references))
    print(heptapod.chrf(hypotheses, references))
    best = max(zip(translator.score(sources, hypotheses), sources, hypotheses),
               key=lambda s: s[0]["log_prob"] / s[0]["tokens"])
    print(f"most confident: {best[1]!r} -> {best[2]!r}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
