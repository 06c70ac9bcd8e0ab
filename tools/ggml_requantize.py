#!/usr/bin/python3
"""Requantizes a float Heptapod model file's weight matrices to a ggml block type, as llama-quantize chooses
types for a GGUF file, for the benchmarks (bench/quantized.sh): every linear layer's matrix to TYPE, the
output projection (`decoder/output_proj/weight`, or the embedding tied to it) to Q6_K (Q8_0 when TYPE is
Q8_0), each falling back by shape as llama.cpp does (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0 where rows are
not whole blocks of 256; F16 where not whole blocks of 32). The result is a version 2 model file with
"weights": "ggml" (docs/model-format.md), what `heptapod convert` makes of such a GGUF file; norms, biases,
position tables and looked-up embedding tables stay F32. Blocks come from tools/gguf_writer.py's quantizers.
  ggml_requantize.py IN.htp TYPE OUT.htp      (TYPE: Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q4_K Q5_K Q6_K)"""
import argparse
import json
import struct

import numpy as np

import gguf_writer as gw

TYPES = {"Q8_0": gw.GGML_Q8_0, "Q4_0": gw.GGML_Q4_0, "Q4_1": gw.GGML_Q4_1, "Q5_0": gw.GGML_Q5_0,
         "Q5_1": gw.GGML_Q5_1, "Q4_K": gw.GGML_Q4_K, "Q5_K": gw.GGML_Q5_K, "Q6_K": gw.GGML_Q6_K}
NAMES = {v: k for k, v in TYPES.items()} | {gw.GGML_F16: "F16"}
FALLBACK = {gw.GGML_Q4_K: gw.GGML_Q5_0, gw.GGML_Q5_K: gw.GGML_Q5_1, gw.GGML_Q6_K: gw.GGML_Q8_0}
LINEAR = ("q_proj", "k_proj", "v_proj", "out_proj", "fc1", "fc2", "gate")


def read_model(path):
    """(metadata, [(name, dtype, shape, bytes)]) of a safetensors file."""
    data = open(path, "rb").read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    metadata = header.pop("__metadata__", {})
    tensors = []
    for name, e in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        begin, end = e["data_offsets"]
        tensors.append((name, e["dtype"], e["shape"], data[8 + n + begin:8 + n + end]))
    return metadata, tensors


def write_model(path, metadata, tensors):
    header, offset = {"__metadata__": metadata}, 0
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(t[3] for t in tensors))


def block_bytes(values, ggml_type):
    """values (rows, columns) float32 -> (rows, row bytes) of ggml blocks, row by row as GgufWriter encodes."""
    writer = gw.GgufWriter()
    writer.add_tensor("t", values, ggml_type)
    data = writer.tensors[0][3]
    return data, [values.shape[0], len(data) // values.shape[0]]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input")
    parser.add_argument("type", choices=sorted(TYPES))
    parser.add_argument("output")
    args = parser.parse_args()
    metadata, tensors = read_model(args.input)
    assert metadata.get("format_version") == "1", f"{args.input}: not a float Heptapod model file"
    config = json.loads(metadata["config"])
    names = {t[0] for t in tensors}
    output = "decoder/output_proj/weight"
    if output not in names:
        output = "decoder/embedding/weight"
        assert config.get("tie_embeddings", "none") != "none", f"{args.input}: no output projection"
    base = TYPES[args.type]
    out, types = [], {}
    for name, dtype, shape, data in tensors:
        leaf = name.split("/")[-2] if name.count("/") >= 1 else ""
        if dtype != "F32" or len(shape) != 2 or (name != output and leaf not in LINEAR):
            out.append((name, dtype, shape, data))
            continue
        values = np.frombuffer(data, "<f4").reshape(shape)
        wanted = base if name != output else (gw.GGML_Q8_0 if base == gw.GGML_Q8_0 else gw.GGML_Q6_K)
        if shape[1] % gw.block_elements(wanted):
            wanted = FALLBACK.get(wanted, gw.GGML_F16)
        if shape[1] % gw.block_elements(wanted):
            wanted = gw.GGML_F16
        blocks, block_shape = block_bytes(values, wanted)
        out.append((name, "U8", block_shape, blocks))
        types[name] = NAMES[wanted]
    metadata.update({"format_version": "2", "weights": "ggml", "ggml_types": json.dumps(types)})
    write_model(args.output, metadata, out)


if __name__ == "__main__":
    main()
