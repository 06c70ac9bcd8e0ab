#!/usr/bin/env python3
"""The classical baseline of the Debian-sections task: TF-IDF features (word 1-2 grams seen in at least two
descriptions, sublinear term frequencies) and logistic regression, one class against the rest (liblinear: the
multinomial lbfgs fit took 25 minutes per C here without converging in 300 iterations); its inverse
regularisation C chosen on dev accuracy from a small grid, then test accuracy and macro-F1 of that one.

usage: tfidf_baseline.py DATA_DIR RESULT.json   (DATA_DIR holds {train,dev,test}.{txt,labels})
"""
import json
import sys
import time

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score


def read(data, split):
    with open(f"{data}/{split}.txt", encoding="utf-8") as f:
        texts = f.read().split("\n")[:-1]
    with open(f"{data}/{split}.labels", encoding="utf-8") as f:
        labels = f.read().split()
    assert len(texts) == len(labels), split
    return texts, labels


def main():
    data, result = sys.argv[1], sys.argv[2]
    start = time.time()
    (train_x, train_y), (dev_x, dev_y), (test_x, test_y) = (read(data, s) for s in ("train", "dev", "test"))
    words = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=300000)
    train_f = words.fit_transform(train_x)
    dev_f, test_f = words.transform(dev_x), words.transform(test_x)
    tried = []
    best = None
    for c in (3.0, 10.0, 30.0):
        model = LogisticRegression(C=c, solver="liblinear")
        model.fit(train_f, train_y)
        accuracy = accuracy_score(dev_y, model.predict(dev_f))
        tried.append({"C": c, "dev_accuracy": accuracy})
        print(f"C={c}: dev accuracy {accuracy:.4f} ({time.time() - start:.0f}s)", file=sys.stderr)
        if best is None or accuracy > best[0]:
            best = (accuracy, c, model)
    accuracy, c, model = best
    predicted = model.predict(test_f)
    out = {"C": c, "dev_accuracy": accuracy, "grid": tried,
           "test_accuracy": accuracy_score(test_y, predicted),
           "test_macro_f1": f1_score(test_y, predicted, average="macro"),
           "seconds": time.time() - start}
    with open(result, "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out), file=sys.stderr)


if __name__ == "__main__":
    main()
