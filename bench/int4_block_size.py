#!/usr/bin/python3
"""Why int4 uses blocks of 32: the weight error of Q4_0's rule (a float16 scale d = v / -8 per block, v the
value of largest magnitude, q = min(15, trunc(x / d + 8.5))) with blocks of 32 and of 64 weights, on every
linear layer's matrix of a float Heptapod model file: the relative RMS error ||W - W_q|| / ||W|| over all of
them, and the bits each weight takes (4 + 16 / block).
  int4_block_size.py MODEL.htp"""
import json
import struct
import sys

import numpy as np

LINEAR = ("q_proj", "k_proj", "v_proj", "out_proj", "fc1", "fc2", "gate")


def matrices(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    for name, e in header.items():
        if e["dtype"] == "F32" and len(e["shape"]) == 2 and name.split("/")[-2] in LINEAR:
            begin, end = e["data_offsets"]
            yield name, np.frombuffer(data[8 + n + begin:8 + n + end], "<f4").reshape(e["shape"]).astype(np.float64)


def q4_0(w, block):
    x = w.reshape(-1, block)
    v = x[np.arange(len(x)), np.abs(x).argmax(axis=1)]
    d = (v / -8).astype(np.float16).astype(np.float64)
    inv = np.divide(1.0, d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(15, np.trunc(x * inv[:, None] + 8.5))
    return ((q - 8) * d[:, None]).reshape(w.shape)


def main():
    totals = {32: [0.0, 0.0], 64: [0.0, 0.0]}
    for _, w in matrices(sys.argv[1]):
        if w.shape[1] % 64:
            continue
        for block, t in totals.items():
            t[0] += float(((w - q4_0(w, block)) ** 2).sum())
            t[1] += float((w ** 2).sum())
    print(f"{sys.argv[1]}: every linear matrix whose width 64 divides")
    print("| block | bits a weight | relative RMS weight error |\n|---|---|---|")
    for block, (err, norm) in totals.items():
        print(f"| {block} | {4 + 16 / block:.2f} | {np.sqrt(err / norm):.4f} |")


if __name__ == "__main__":
    main()
