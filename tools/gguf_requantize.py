#!/usr/bin/python3
"""Requantizes a float GGUF file's weight matrices to a ggml block type, as llama-quantize chooses them
(docs/models.md section 4, "llama-quantize type choices"), for the benchmarks (bench/quantized.sh): every 2-D
`*.weight` tensor but the position embedding to TYPE, the output projection (`output.weight`, or `token_embd`
when the model has none: a tied table) to Q6_K (Q8_0 when TYPE is Q8_0), each falling back by shape as
llama.cpp does (Q4_K -> Q5_0, Q5_K -> Q5_1, Q6_K -> Q8_0 where rows are not whole blocks of 256); norms,
biases and other tensors kept as they are. The metadata is copied and general.file_type set.
  gguf_requantize.py IN.gguf TYPE OUT.gguf      (TYPE: Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q4_K Q5_K Q6_K)
Reads F32 and F16 tensors only (write IN with `heptapod convert MODEL --to gguf --gguf-type f32`)."""
import argparse
import struct

import numpy as np

import gguf_writer as gw

TYPES = {"Q8_0": gw.GGML_Q8_0, "Q4_0": gw.GGML_Q4_0, "Q4_1": gw.GGML_Q4_1, "Q5_0": gw.GGML_Q5_0,
         "Q5_1": gw.GGML_Q5_1, "Q4_K": gw.GGML_Q4_K, "Q5_K": gw.GGML_Q5_K, "Q6_K": gw.GGML_Q6_K}
FALLBACK = {gw.GGML_Q4_K: gw.GGML_Q5_0, gw.GGML_Q5_K: gw.GGML_Q5_1, gw.GGML_Q6_K: gw.GGML_Q8_0}
# llama_ftype of each base type (general.file_type): the _M variants for the K types.
FILE_TYPES = {"Q8_0": 7, "Q4_0": 2, "Q4_1": 3, "Q5_0": 8, "Q5_1": 9, "Q4_K": 15, "Q5_K": 17, "Q6_K": 18}


class Reader:
    """The parts of a GGUF file this tool needs: metadata as (key, type, raw value bytes), tensors as arrays."""

    def __init__(self, path):
        self.data = open(path, "rb").read()
        self.at = 0
        magic, version, tensors, kvs = struct.unpack_from("<4sIQQ", self.data, 0)
        assert magic == b"GGUF" and version in (2, 3), f"{path}: not a GGUF file of version 2 or 3"
        self.at = 24
        self.metadata = []  # (key, value type, encoded value without the type)
        alignment = 32
        for _ in range(kvs):
            key = self.string()
            value_type = self.u32()
            start = self.at
            value = self.skip(value_type)
            if key == "general.alignment":
                alignment = value
            self.metadata.append((key, value_type, self.data[start:self.at]))
        infos = []
        for _ in range(tensors):
            name = self.string()
            dims = [self.u64() for _ in range(self.u32())]
            infos.append((name, dims, self.u32(), self.u64()))
        start = (self.at + alignment - 1) // alignment * alignment
        self.tensors = []  # (name, array in PyTorch shape)
        for name, dims, ggml_type, offset in infos:
            dtype = {gw.GGML_F32: "<f4", gw.GGML_F16: "<f2"}.get(ggml_type)
            assert dtype, f"{path}: tensor {name} is of ggml type {ggml_type}; only F32 and F16 are read"
            count = int(np.prod(dims))
            values = np.frombuffer(self.data, dtype, count, start + offset).astype(np.float32)
            self.tensors.append((name, values.reshape(list(reversed(dims)))))

    def u32(self):
        self.at += 4
        return struct.unpack_from("<I", self.data, self.at - 4)[0]

    def u64(self):
        self.at += 8
        return struct.unpack_from("<Q", self.data, self.at - 8)[0]

    def string(self):
        n = self.u64()
        self.at += n
        return self.data[self.at - n:self.at].decode("utf-8")

    def skip(self, value_type):
        """Moves past one value; returns it when it is a scalar number."""
        if value_type == gw.STRING:
            return self.string()
        if value_type == gw.ARRAY:
            item_type, count = self.u32(), self.u64()
            for _ in range(count):
                self.skip(item_type)
            return None
        fmt = gw.SCALAR_FORMATS[value_type]
        self.at += struct.calcsize(fmt)
        return struct.unpack_from(fmt, self.data, self.at - struct.calcsize(fmt))[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input")
    parser.add_argument("type", choices=sorted(TYPES))
    parser.add_argument("output")
    args = parser.parse_args()
    source = Reader(args.input)
    base = TYPES[args.type]
    names = {name for name, _ in source.tensors}
    output_name = "output.weight" if "output.weight" in names else "token_embd.weight"
    out = gw.GgufWriter()
    for key, value_type, encoded in source.metadata:
        if key not in ("general.file_type", "general.quantization_version"):
            out.metadata.append((key, struct.pack("<I", value_type) + encoded))
    out.add("general.file_type", gw.U32, FILE_TYPES[args.type])
    out.add("general.quantization_version", gw.U32, 2)
    for name, values in source.tensors:
        if values.ndim != 2 or not name.endswith(".weight") or name.startswith("position_embd"):
            out.add_tensor(name, values, gw.GGML_F32)
            continue
        wanted = base if name != output_name else (gw.GGML_Q8_0 if base == gw.GGML_Q8_0 else gw.GGML_Q6_K)
        if values.shape[1] % gw.block_elements(wanted):
            wanted = FALLBACK.get(wanted, gw.GGML_F16)
        if values.shape[1] % gw.block_elements(wanted):
            wanted = gw.GGML_F16
        out.add_tensor(name, values, wanted)
    out.write(args.output)


if __name__ == "__main__":
    main()
