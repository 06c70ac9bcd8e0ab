#!/usr/bin/python3
"""An independent GGUF writer (struct and numpy only), written from the format's description
(docs/models.md section 4), for the tests of Heptapod's GGUF reader (src/heptapod/io/gguf_file.h).

Writes versions 2 and 3 (little-endian): metadata of every value type, arrays included, and tensors of F32,
F16, BF16 and Q8_0 (quantised as ggml does: per block of 32, d = amax/127 stored as f16, q = round(x/d)),
each padded to the alignment (general.alignment when given, else 32); and, for model files
(tools/gguf_from_checkpoint.py), Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K and Q6_K by simple quantizers of ours
(valid blocks in the published layouts, not llama.cpp's searches for the best scales).

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
GGML_Q4_0, GGML_Q4_1, GGML_Q5_0, GGML_Q5_1, GGML_Q4_K, GGML_Q5_K, GGML_Q6_K = 2, 3, 6, 7, 12, 13, 14
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


def block_elements(ggml_type):
    """Values per block of a type (1 for the float types)."""
    if ggml_type in (GGML_F32, GGML_F16, GGML_BF16):
        return 1
    return 256 if ggml_type in (GGML_Q4_K, GGML_Q5_K, GGML_Q6_K) else 32


def _f16(values):
    return np.asarray(values, dtype=np.float32).astype("<f2")


def _pack_nibbles(q):
    """(blocks, 32) values 0..15 -> (blocks, 16) bytes: element j low nibble of byte j, j + 16 its high nibble."""
    return (q[:, :16] | (q[:, 16:] << 4)).astype(np.uint8)


def _symmetric(values, half):
    """Per block of 32: d = v/-half (v the value of largest magnitude), q = min(2 half - 1, trunc(x/d + half +
    0.5)), as ggml's quantize_row_q4_0_ref (half 8) and q5_0_ref (half 16) compute them in float32."""
    x = np.asarray(values, dtype=np.float32).reshape(-1, 32)
    v = x[np.arange(len(x)), np.argmax(np.abs(x), axis=1)]
    d = (v / np.float32(-half)).astype(np.float32)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(2 * half - 1, (x * inv[:, None] + np.float32(half + 0.5)).astype(np.int32))
    return x, d, q


def _q4_0_bytes(values):
    x, d, q = _symmetric(values, 8)
    q = q.astype(np.uint8)
    return b"".join(_f16(d[i]).tobytes() + _pack_nibbles(q[i:i + 1]).tobytes() for i in range(len(x)))


def _affine(x, levels):
    """Per block of x (blocks, n): d = (max - min)/levels, m = min, q = round((x - m)/d) in [0, levels], with d and m
    rounded to f16 first so the stored values decode as quantised."""
    lo, hi = x.min(axis=1), x.max(axis=1)
    d = _f16((hi - lo) / levels).astype(np.float32)
    m = _f16(lo).astype(np.float32)
    inv = np.divide(np.float32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.clip(np.rint((x - m[:, None]) * inv[:, None]), 0, levels).astype(np.uint32)
    return d, m, q


def _q4_1_bytes(values):
    x = np.asarray(values, dtype=np.float32).reshape(-1, 32)
    d, m, q = _affine(x, 15)
    return b"".join(_f16(d[i]).tobytes() + _f16(m[i]).tobytes() + _pack_nibbles(q[i:i + 1]).tobytes()
                    for i in range(len(x)))


def _high_bits(q):
    """(blocks, 32) 5-bit values -> (blocks,) u32 qh: bit j is element j's fifth bit."""
    return ((q >> 4) & 1).astype(np.uint64) @ (np.uint64(1) << np.arange(32, dtype=np.uint64))


def _q5_0_bytes(values):
    """Low nibbles as Q4_0, fifth bits in qh."""
    x, d, q = _symmetric(values, 16)
    q = q.astype(np.uint32)
    qh = _high_bits(q)
    return b"".join(_f16(d[i]).tobytes() + struct.pack("<I", int(qh[i])) + _pack_nibbles(q[i:i + 1] & 15).tobytes()
                    for i in range(len(x)))


def _q5_1_bytes(values):
    x = np.asarray(values, dtype=np.float32).reshape(-1, 32)
    d, m, q = _affine(x, 31)
    qh = _high_bits(q)
    return b"".join(_f16(d[i]).tobytes() + _f16(m[i]).tobytes() + struct.pack("<I", int(qh[i])) +
                    _pack_nibbles(q[i:i + 1] & 15).tobytes() for i in range(len(x)))


def _k_scales(sc, mn):
    """8 six-bit scales and mins -> the 12 bytes get_scale_min_k4 reads."""
    s = [0] * 12
    for j in range(8):
        if j < 4:
            s[j] |= sc[j] & 63
            s[j + 4] |= mn[j] & 63
        else:
            s[j + 4] |= (sc[j] & 15) | ((mn[j] & 15) << 4)
            s[j - 4] |= (sc[j] >> 4) << 6
            s[j] |= (mn[j] >> 4) << 6
    return bytes(s)


def _k_block(x, levels):
    """One 256-value block of Q4_K (levels 15) or Q5_K (31): 8 sub-blocks of 32, value d*sc*q - dmin*m."""
    sub = x.reshape(8, 32).astype(np.float64)
    mins = np.maximum(0.0, -sub.min(axis=1))
    scales = (sub.max(axis=1) + mins) / levels
    d = np.float32(_f16(scales.max() / 63)) if scales.max() > 0 else np.float32(0)
    dmin = np.float32(_f16(mins.max() / 63)) if mins.max() > 0 else np.float32(0)
    sc = np.clip(np.rint(scales / d), 0, 63).astype(int) if d > 0 else np.zeros(8, int)
    mn = np.clip(np.rint(mins / dmin), 0, 63).astype(int) if dmin > 0 else np.zeros(8, int)
    step = np.float64(d) * sc
    q = np.zeros((8, 32), dtype=np.int64)
    for j in range(8):
        if step[j] > 0:
            q[j] = np.clip(np.rint((sub[j] + np.float64(dmin) * mn[j]) / step[j]), 0, levels)
    head = _f16(d).tobytes() + _f16(dmin).tobytes() + _k_scales(list(sc), list(mn))
    return head, q.reshape(256)


def _k_low_nibbles(q):
    """256 values -> 128 bytes: chunk c holds sub-blocks 2c (low nibbles) and 2c + 1 (high nibbles)."""
    q = q.reshape(4, 2, 32)
    return ((q[:, 0] & 15) | ((q[:, 1] & 15) << 4)).astype(np.uint8).tobytes()


def _q4_k_bytes(values):
    out = bytearray()
    for x in np.asarray(values, dtype=np.float32).reshape(-1, 256):
        head, q = _k_block(x, 15)
        out += head + _k_low_nibbles(q)
    return bytes(out)


def _q5_k_bytes(values):
    out = bytearray()
    for x in np.asarray(values, dtype=np.float32).reshape(-1, 256):
        head, q = _k_block(x, 31)
        qh = np.zeros(32, dtype=np.uint8)
        for j in range(8):  # element 32j + l: bit j of qh[l]
            qh |= (((q[32 * j:32 * j + 32] >> 4) & 1) << j).astype(np.uint8)
        out += head + qh.tobytes() + _k_low_nibbles(q)
    return bytes(out)


def _q6_k_bytes(values):
    """16 sub-blocks of 16 with int8 scales: value d*sc*(q - 32), q in 0..63."""
    out = bytearray()
    for x in np.asarray(values, dtype=np.float32).reshape(-1, 256):
        sub = x.reshape(16, 16).astype(np.float64)
        scales = np.abs(sub).max(axis=1) / 31
        d = np.float32(_f16(scales.max() / 127)) if scales.max() > 0 else np.float32(0)
        sc = np.clip(np.rint(scales / d), -128, 127).astype(int) if d > 0 else np.zeros(16, int)
        q = np.full((16, 16), 32, dtype=np.int64)
        for j in range(16):
            if sc[j] != 0:
                q[j] = np.clip(np.rint(sub[j] / (np.float64(d) * sc[j])) + 32, 0, 63)
        q = q.reshape(256)
        ql, qh = np.zeros(128, np.uint8), np.zeros(64, np.uint8)
        for n in range(2):
            y = q[128 * n:128 * n + 128]
            q1, q2, q3, q4 = y[0:32], y[32:64], y[64:96], y[96:128]
            ql[64 * n:64 * n + 32] = (q1 & 15) | ((q3 & 15) << 4)
            ql[64 * n + 32:64 * n + 64] = (q2 & 15) | ((q4 & 15) << 4)
            qh[32 * n:32 * n + 32] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6)
        out += ql.tobytes() + qh.tobytes() + np.asarray(sc, dtype=np.int8).tobytes() + _f16(d).tobytes()
    return bytes(out)


BLOCK_WRITERS = {GGML_Q4_0: _q4_0_bytes, GGML_Q4_1: _q4_1_bytes, GGML_Q5_0: _q5_0_bytes, GGML_Q5_1: _q5_1_bytes,
                 GGML_Q4_K: _q4_k_bytes, GGML_Q5_K: _q5_k_bytes, GGML_Q6_K: _q6_k_bytes}


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
        elif ggml_type in BLOCK_WRITERS:
            assert dims and dims[0] % block_elements(ggml_type) == 0, "rows must be whole blocks"
            data = BLOCK_WRITERS[ggml_type](values)
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
