#!/usr/bin/python3
"""An independent GGUF writer (struct and numpy only), written from the format's description
(docs/models.md section 4), for the tests of Heptapod's GGUF reader (src/heptapod/io/gguf_file.h).

Writes versions 2 and 3 (little-endian): metadata of every value type, arrays included, and tensors of F32,
F16, BF16 and Q8_0 (quantised as ggml does: per block of 32, d = amax/127 stored as f16, q = round(x/d)),
each padded to the alignment (general.alignment when given, else 32).

Importable (GgufWriter), or from the command line:
  gguf_writer.py example OUT.gguf [--version 3] [--alignment N]
writes the example file that tests/test_gguf_file.cpp and tests/gguf/run.sh read back (see example()).
"""
import argparse
import struct

import numpy as np

# Metadata value type ids.
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR_FORMATS = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?",
                  U64: "<Q", I64: "<q", F64: "<d"}
# ggml tensor type ids this writer encodes.
GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
Q8_0_BLOCK = 32
DEFAULT_ALIGNMENT = 32


def _string(text):
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def _scalar(value_type, value):
    if value_type == STRING:
        return _string(value)
    return struct.pack(SCALAR_FORMATS[value_type], value)


def _align(n, alignment):
    return (n + alignment - 1) // alignment * alignment


def _bf16_bytes(values):
    """float32 -> bfloat16 bits, rounding to nearest even (finite values)."""
    bits = np.ascontiguousarray(values, dtype="<f4").view("<u4").astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype("<u2").tobytes()


def _q8_0_bytes(values):
    """Blocks of 32 (innermost dim, row by row): f16 d = amax/127, then i8 q = round(x/d) (half away from 0)."""
    blocks = np.ascontiguousarray(values, dtype=np.float32).reshape(-1, Q8_0_BLOCK)  # (n_blocks, 32)
    out = bytearray()
    for block in blocks:
        d = np.float32(np.max(np.abs(block))) / np.float32(127)
        inverse = np.float32(1) / d if d != 0 else np.float32(0)
        scaled = block * inverse
        q = (np.sign(scaled) * np.floor(np.abs(scaled) + np.float32(0.5))).astype(np.int8)  # roundf
        out += np.float16(d).astype("<f2").tobytes() + q.tobytes()
    return bytes(out)


class GgufWriter:
    def __init__(self, version=3, alignment=None):
        """alignment: written as general.alignment (u32) when given; the data is padded to it (else 32)."""
        self.version = version
        self.alignment = alignment or DEFAULT_ALIGNMENT
        self.metadata = []  # (key, encoded type and value)
        self.tensors = []  # (name, dims innermost first, ggml type, data bytes)
        if alignment is not None:
            self.add("general.alignment", U32, alignment)

    def add(self, key, value_type, value):
        self.metadata.append((key, struct.pack("<I", value_type) + _scalar(value_type, value)))

    def add_array(self, key, item_type, values):
        body = struct.pack("<IQ", item_type, len(values)) + b"".join(_scalar(item_type, v) for v in values)
        self.metadata.append((key, struct.pack("<I", ARRAY) + body))

    def add_tensor(self, name, values, ggml_type):
        """values: a numpy array in PyTorch shape; stored with its dims reversed (innermost first)."""
        values = np.asarray(values)
        dims = list(reversed(values.shape))
        if ggml_type == GGML_F32:
            data = np.ascontiguousarray(values, dtype="<f4").tobytes()
        elif ggml_type == GGML_F16:
            data = np.ascontiguousarray(values, dtype="<f2").tobytes()
        elif ggml_type == GGML_BF16:
            data = _bf16_bytes(values)
        elif ggml_type == GGML_Q8_0:
            assert dims and dims[0] % Q8_0_BLOCK == 0, "Q8_0 needs an innermost dim that is a multiple of 32"
            data = _q8_0_bytes(values)
        else:
            raise ValueError(f"ggml type {ggml_type} is not written by this tool")
        self.tensors.append((name, dims, ggml_type, data))

    def to_bytes(self):
        out = bytearray(b"GGUF" + struct.pack("<IQQ", self.version, len(self.tensors), len(self.metadata)))
        for key, encoded in self.metadata:
            out += _string(key) + encoded
        offset = 0
        for name, dims, ggml_type, data in self.tensors:
            out += _string(name) + struct.pack("<I", len(dims))
            out += b"".join(struct.pack("<Q", d) for d in dims) + struct.pack("<IQ", ggml_type, offset)
            offset = _align(offset + len(data), self.alignment)
        out += bytes(_align(len(out), self.alignment) - len(out))
        for _, _, _, data in self.tensors:
            out += data + bytes(_align(len(data), self.alignment) - len(data))
        return bytes(out)

    def write(self, path):
        with open(path, "wb") as f:
            f.write(self.to_bytes())


def example(version=3, alignment=None):
    """Every value type as a scalar and as an array, and one tensor of each written type. The C++ test
    (tests/test_gguf_file.cpp, GgufExample) expects exactly these values."""
    w = GgufWriter(version, alignment)
    w.add("general.architecture", STRING, "llama")
    w.add("general.name", STRING, "h\u00e9ptapod \u2713")
    w.add("test.u8", U8, 200)
    w.add("test.i8", I8, -100)
    w.add("test.u16", U16, 60000)
    w.add("test.i16", I16, -30000)
    w.add("test.u32", U32, 4000000000)
    w.add("test.i32", I32, -2000000000)
    w.add("test.f32", F32, 0.1)
    w.add("test.bool", BOOL, True)
    w.add("test.u64", U64, 2**64 - 1)
    w.add("test.i64", I64, -(2**62) - 7)
    w.add("test.f64", F64, 3.141592653589793)
    w.add("test.empty", STRING, "")
    w.add_array("tokenizer.ggml.tokens", STRING, ["<s>", "hello", "w\u00f6rld", ""])
    w.add_array("tokenizer.ggml.scores", F32, [0.0, -1.5, 2.25])
    w.add_array("tokenizer.ggml.token_type", I32, [1, 2, 3, 6])
    w.add_array("array.u8", U8, [0, 255])
    w.add_array("array.i8", I8, [-128, 127])
    w.add_array("array.u16", U16, [0, 65535])
    w.add_array("array.i16", I16, [-32768, 32767])
    w.add_array("array.u32", U32, [0, 4294967295])
    w.add_array("array.i32", I32, [-2147483648, 2147483647])
    w.add_array("array.u64", U64, [0, 2**64 - 1])
    w.add_array("array.i64", I64, [-(2**63), 2**63 - 1])
    w.add_array("array.f32", F32, [1.0, -0.5, 1e-3])
    w.add_array("array.f64", F64, [2.5, -1e300])
    w.add_array("array.bool", BOOL, [True, False, True])
    w.add_array("array.empty", U32, [])
    # Values exact in their type, so the test compares them exactly (Q8_0 within its step).
    w.add_tensor("token_embd.weight", np.arange(15, dtype=np.float32).reshape(3, 5) * 0.5 - 3, GGML_F32)
    w.add_tensor("blk.0.attn_q.weight", (np.arange(14, dtype=np.float32).reshape(2, 7) - 3) * 0.25, GGML_F16)
    w.add_tensor("blk.0.attn_k.weight", (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 12) * 0.125, GGML_BF16)
    q = np.arange(128, dtype=np.float32).reshape(2, 64)
    w.add_tensor("output.weight", np.sin(q * 0.37) * (1 + q // 32), GGML_Q8_0)
    return w


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("example", help="write the test example file")
    ex.add_argument("out")
    ex.add_argument("--version", type=int, default=3, choices=[2, 3])
    ex.add_argument("--alignment", type=int, default=None)
    args = parser.parse_args()
    example(args.version, args.alignment).write(args.out)


if __name__ == "__main__":
    main()
