#!/usr/bin/python3
# gguf_blocks_reference.py -- an independent float64 reference of GGUF's block types (ggml's tensor types), for
# tests/test_gguf_blocks.cpp; written here from the published layouts (ggml's ggml-common.h block structs and
# ggml-quants.c dequantize_row_* / quantize_row_*_ref; summarised in docs/models.md section 4), with numpy's own
# float16 decoding and whole-array bit unpacking, without Heptapod's code.
#
#   /usr/bin/python3 tools/gguf_blocks_reference.py [--out PATH]
#       (default tests/fixtures/gguf_blocks/gguf_blocks.safetensors)
#
# Only numpy and the standard library are used. Output is deterministic (same bytes on every run).
#
# Decoding (every type): random blocks, random bytes in the quantised fields and float16 scales drawn to include
# the extremes (+0, -0, the smallest and largest subnormals, the smallest normal, +-65504, +-1, then random finite
# values of either sign); each block's values in float64, where they are exact (a float16 scale times a small
# integer, plus a float16 offset, fits in 53 bits). The float types (F32, F16, BF16) get random finite bit
# patterns, subnormals included.
#
# Quantising (Q8_0, Q4_0, as llama.cpp's reference quantizers define them, float32 arithmetic emulated step by
# step): rows of 64 float32 values (2 blocks): normal values at several magnitudes, a row of zeros, a row with one
# huge value, rows whose values sit on rounding ties, the same largest magnitude with both signs, and values so
# small that the float16 scale underflows.
#
# Fixture contents (metadata format "heptapod-gguf-blocks-fixture", format_version "1", types: JSON
# {name: [ggml id, values per block, bytes per block]} for every type of docs/models.md, Q2_K and Q3_K included):
#   <TYPE>/blocks    U8 (blocks, bytes per block)       for each type
#   <TYPE>/values    F64 (blocks * values per block)    their decoded values
#   quantize/<q8_0|q4_0>/input   F32 (rows, 64)
#   quantize/<q8_0|q4_0>/blocks  U8 (rows, 2 * bytes per block)   the reference quantizer's bytes

import argparse
import json
import os
import struct

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (ggml type id, values per block, bytes per block)
TYPES = {
    "F32": (0, 1, 4), "F16": (1, 1, 2), "Q4_0": (2, 32, 18), "Q4_1": (3, 32, 20), "Q5_0": (6, 32, 22),
    "Q5_1": (7, 32, 24), "Q8_0": (8, 32, 34), "Q2_K": (10, 256, 84), "Q3_K": (11, 256, 110),
    "Q4_K": (12, 256, 144), "Q5_K": (13, 256, 176), "Q6_K": (14, 256, 210), "BF16": (30, 1, 2),
}

# float16 bit patterns of the extreme scales: +0, -0, smallest subnormal, largest subnormal, smallest normal,
# 65504, -65504, 1, -1, -smallest subnormal.
SPECIAL_HALVES = [0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00, 0x8001]


# --------------------------------------------------------------------------------------------
# decoding, in float64

def halves(field):
    """field: (blocks, 2) uint8, little-endian float16 bits -> (blocks,) float64."""
    return np.ascontiguousarray(field).view("<f2").reshape(-1).astype(np.float64)


def nibbles(qs):
    """qs: (blocks, 16) uint8 -> (blocks, 32): element j the low nibble of qs[j], element j + 16 the high one."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.int64)


def fifth_bits(qh):
    """qh: (blocks, 4) uint8 = a little-endian u32 -> (blocks, 32): bit j of it for element j, as 16."""
    word = np.ascontiguousarray(qh).view("<u4").astype(np.int64)  # (blocks, 1)
    return ((word >> np.arange(32)) & 1) * 16


def k_scales_mins(s):
    """s: (blocks, 12) uint8 -> the 6-bit scales and mins (blocks, 8) of the 8 sub-blocks of Q4_K / Q5_K:
    sub-blocks 0-3 the low 6 bits of bytes 0-3 (scales) and 4-7 (mins); sub-blocks 4-7 the nibbles of bytes 8-11
    (low: scale, high: min) with the top 2 bits of bytes 0-3 (scales) and 4-7 (mins) above them."""
    s = s.astype(np.int64)
    scales = np.concatenate([s[:, 0:4] & 63, (s[:, 8:12] & 15) | ((s[:, 0:4] >> 6) << 4)], axis=1)
    mins = np.concatenate([s[:, 4:8] & 63, (s[:, 8:12] >> 4) | ((s[:, 4:8] >> 6) << 4)], axis=1)
    return scales, mins


def k_quants(qs, qh):
    """qs: (blocks, 128), qh: (blocks, 32) or None -> (blocks, 8, 32) the 4- or 5-bit values of Q4_K / Q5_K:
    sub-block 2c + h takes nibble h (0 low, 1 high) of qs[32c .. 32c + 31], and bit 2c + h of qh[l] as 16."""
    chunks = qs.reshape(-1, 4, 32).astype(np.int64)
    q = np.stack([chunks & 15, chunks >> 4], axis=2).reshape(-1, 8, 32)  # (blocks, chunk, nibble, 32) flattened
    if qh is not None:
        q = q + ((qh.astype(np.int64)[:, None, :] >> np.arange(8)[None, :, None]) & 1) * 16
    return q


def decode(name, blocks):
    """blocks: (n, bytes per block) uint8 -> (n * values per block,) float64."""
    b = blocks
    if name == "F32":
        return np.ascontiguousarray(b).view("<f4").reshape(-1).astype(np.float64)
    if name == "F16":
        return halves(b)
    if name == "BF16":
        return (np.ascontiguousarray(b).view("<u2").astype(np.uint32) << 16).view(np.float32).reshape(-1) \
            .astype(np.float64)
    if name == "Q8_0":
        return (halves(b[:, 0:2])[:, None] * b[:, 2:34].view(np.int8)).reshape(-1)
    if name == "Q4_0":
        return (halves(b[:, 0:2])[:, None] * (nibbles(b[:, 2:18]) - 8)).reshape(-1)
    if name == "Q4_1":
        return (halves(b[:, 0:2])[:, None] * nibbles(b[:, 4:20]) + halves(b[:, 2:4])[:, None]).reshape(-1)
    if name == "Q5_0":
        q = nibbles(b[:, 6:22]) + fifth_bits(b[:, 2:6])
        return (halves(b[:, 0:2])[:, None] * (q - 16)).reshape(-1)
    if name == "Q5_1":
        q = nibbles(b[:, 8:24]) + fifth_bits(b[:, 4:8])
        return (halves(b[:, 0:2])[:, None] * q + halves(b[:, 2:4])[:, None]).reshape(-1)
    if name in ("Q4_K", "Q5_K"):
        d, dmin = halves(b[:, 0:2]), halves(b[:, 2:4])
        scales, mins = k_scales_mins(b[:, 4:16])
        q = k_quants(b[:, 16:144], None) if name == "Q4_K" else k_quants(b[:, 48:176], b[:, 16:48])
        values = (d[:, None] * scales)[:, :, None] * q - (dmin[:, None] * mins)[:, :, None]  # (blocks, 8, 32)
        return values.reshape(-1)
    if name == "Q6_K":
        return decode_q6_k(b)
    if name == "Q2_K":
        sub = b[:, 0:16].astype(np.int64)  # (blocks, 16): scale low nibble, min high nibble, per 16 values
        scales, mins = np.repeat(sub & 15, 16, axis=1), np.repeat(sub >> 4, 16, axis=1)  # (blocks, 256)
        d, dmin = halves(b[:, 80:82]), halves(b[:, 82:84])
        return (d[:, None] * scales * crumbs(b[:, 16:80]) - dmin[:, None] * mins).reshape(-1)
    if name == "Q3_K":
        high = (b[:, 0:32].astype(np.int64)[:, None, :] >> np.arange(8)[None, :, None]) & 1  # (blocks, 8, 32)
        q = crumbs(b[:, 32:96]) - 4 * (1 - high.reshape(-1, 256))
        s = b[:, 96:108].astype(np.int64)
        low = np.concatenate([s[:, 0:8] & 15, s[:, 0:8] >> 4], axis=1)  # (blocks, 16)
        top = np.concatenate([(s[:, 8:12] >> (2 * k)) & 3 for k in range(4)], axis=1)  # (blocks, 16)
        scales = np.repeat((low | (top << 4)) - 32, 16, axis=1)  # (blocks, 256)
        return (halves(b[:, 108:110])[:, None] * scales * q).reshape(-1)
    raise ValueError("no decoder for " + name)


def crumbs(qs):
    """qs: (blocks, 64) uint8 -> (blocks, 256) the 2-bit values of Q2_K / Q3_K: each half of 128 values reads
    its 32 bytes four times, bits 0-1 for values 0-31, bits 2-3 for 32-63, and so on."""
    q = qs.astype(np.int64).reshape(-1, 2, 1, 32) >> (2 * np.arange(4))[None, None, :, None]  # (blocks, 2, 4, 32)
    return (q & 3).reshape(-1, 256)


def decode_q6_k(b):
    """Q6_K: ql[128], qh[64], int8 scales[16], f16 d. Two halves of 128 values; in half h, with ql = ql[64h:],
    qh = qh[32h:], value 32i + l (quarter i = 0..3, l < 32) takes its low 4 bits from nibble i // 2 of
    ql[l + 32 (i % 2)], its high 2 bits from bits 2i, 2i + 1 of qh[l], and scale scales[8h + 2i + l // 16]:
    d * scale * (q - 32)."""
    ql = b[:, 0:128].astype(np.int64).reshape(-1, 2, 2, 32)   # (blocks, half, i % 2, l)
    qh = b[:, 128:192].astype(np.int64).reshape(-1, 2, 32)    # (blocks, half, l)
    scales = b[:, 192:208].view(np.int8).astype(np.int64).reshape(-1, 2, 4, 2)  # (blocks, half, i, l // 16)
    d = halves(b[:, 208:210])
    out = np.empty((b.shape[0], 2, 4, 32), dtype=np.float64)  # (blocks, half, i, l)
    for i in range(4):
        low = (ql[:, :, i % 2, :] >> (4 * (i // 2))) & 15
        high = (qh >> (2 * i)) & 3
        q = (low | (high << 4)) - 32
        scale = np.repeat(scales[:, :, i, :], 16, axis=2)  # (blocks, half, 32)
        out[:, :, i, :] = d[:, None, None] * scale * q
    return out.reshape(-1)


# --------------------------------------------------------------------------------------------
# random blocks

HALF_FIELDS = {  # byte offsets of each type's float16 fields
    "Q8_0": [0], "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q4_K": [0, 2], "Q5_K": [0, 2],
    "Q6_K": [208], "Q2_K": [80, 82], "Q3_K": [108],
}


def random_finite_halves(rng, n):
    bits = rng.integers(0, 1 << 16, size=n, dtype=np.uint32)
    return np.where((bits & 0x7C00) == 0x7C00, bits & 0xBFFF, bits).astype(np.uint16)  # exponent 31 -> 15


def random_blocks(rng, name, count):
    """(count, bytes per block) uint8: random bytes, float16 fields replaced by scales; the first blocks take
    the special scales in turn (a second field the list read backwards), the rest random finite values."""
    _, _, size = TYPES[name]
    blocks = rng.integers(0, 256, size=(count, size), dtype=np.uint8)
    if name == "F32":
        words = blocks.view("<u4")
        words[(words & 0x7F800000) == 0x7F800000] &= 0xBFFFFFFF  # no inf / NaN
        words[:len(SPECIAL_HALVES), 0] = [0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
                                          0x3F800000, 0xBF800000, 0x80000001]
        return blocks
    if name in ("F16", "BF16"):
        words = blocks.view("<u2")
        if name == "F16":
            words[:, 0] = random_finite_halves(rng, count)
            words[:len(SPECIAL_HALVES), 0] = SPECIAL_HALVES
        else:
            words[(words & 0x7F80) == 0x7F80] &= 0xBFFF
            words[:4, 0] = [0x0001, 0x807F, 0x7F7F, 0x8000]  # subnormals, the largest finite, -0
        return blocks
    for k, offset in enumerate(HALF_FIELDS[name]):
        specials = SPECIAL_HALVES if k == 0 else SPECIAL_HALVES[::-1]
        values = random_finite_halves(rng, count)
        values[:len(specials)] = specials
        blocks[:, offset:offset + 2] = values.astype("<u2").view(np.uint8).reshape(count, 2)
    return blocks


# --------------------------------------------------------------------------------------------
# quantising, float32 arithmetic step by step as llama.cpp's quantize_row_q8_0_ref / quantize_row_q4_0_ref

F32 = np.float32


def half_bytes(d):
    """float32 d -> its float16 (round to nearest even) as 2 little-endian bytes."""
    return np.array([d], dtype=np.float32).astype("<f2").view(np.uint8)


def quantize_q8_0_block(x):
    """x: (32,) float32 -> 34 bytes: d = amax / 127 (float32), q = roundf(x * (1 / d)) (halves away from 0)."""
    amax = np.max(np.abs(x))
    d = F32(amax) / F32(127)
    inverse = F32(1) / d if d != 0 else F32(0)
    scaled = (x * inverse).astype(np.float64)  # float32 products, exact in float64
    q = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    return np.concatenate([half_bytes(d), q.astype(np.int8).view(np.uint8)])


def quantize_q4_0_block(x):
    """x: (32,) float32 -> 18 bytes: d = v / -8 (float32) with v the first value of largest magnitude (+0 when
    all are zero), q = min(15, trunc(float32(float32(x * (1 / d)) + 8.5)))."""
    magnitudes = np.abs(x)
    v = x[int(np.argmax(magnitudes))] if magnitudes.max() > 0 else F32(0)
    d = F32(v) / F32(-8)
    inverse = F32(1) / d if d != 0 else F32(0)
    shifted = (x * inverse).astype(np.float32) + F32(8.5)  # each step rounded to float32
    q = np.minimum(15, np.trunc(shifted.astype(np.float64)).astype(np.int64))
    return np.concatenate([half_bytes(d), (q[:16] | (q[16:] << 4)).astype(np.uint8)])


def quantize_rows(rows, block_quantizer):
    """rows: (n, 64) float32 -> (n, 2 * bytes per block) uint8."""
    return np.stack([np.concatenate([block_quantizer(row[b:b + 32]) for b in range(0, row.size, 32)])
                     for row in rows])


def quantize_inputs(rng):
    """(rows, 64) float32 rows that exercise the quantizers' cases."""
    rows = [rng.standard_normal(64) * scale for scale in (1e-3, 1.0, 1e3)]
    rows.append(np.zeros(64))
    huge = rng.standard_normal(64)
    huge[37] = 3e4  # one huge value: the rest of its block rounds to 0 or near
    rows.append(huge)
    ties = np.concatenate([np.arange(-64, 64, 4) + 0.5, np.arange(-64, 64, 4) - 0.5])
    ties[0], ties[32] = 127.0, -127.0  # d = 1: the rest sit exactly on halves
    rows.append(ties)
    both_signs = rng.standard_normal(64)
    both_signs[[3, 9, 40, 33]] = [-5.0, 5.0, 5.0, -5.0]  # the same magnitude, first negative / first positive
    rows.append(both_signs)
    rows.append(rng.standard_normal(64) * 1e-6)  # float16 scale subnormal or zero
    rows.append(np.linspace(-8.0, 7.0, 64))  # Q4_0 levels near the clip at 15
    return np.stack(rows).astype(np.float32)


# --------------------------------------------------------------------------------------------
# checks and output

def self_check():
    """Hand-worked blocks against the decoders."""
    q8 = np.zeros((1, 34), dtype=np.uint8)
    q8[0, 0:2] = [0x00, 0x38]  # d = 0.5
    q8[0, 2:5] = [0x80, 0x7F, 0xFF]  # -128, 127, -1
    assert list(decode("Q8_0", q8)[:4]) == [-64.0, 63.5, -0.5, 0.0]
    q5 = np.zeros((1, 22), dtype=np.uint8)
    q5[0, 0:2] = [0x00, 0x3C]  # d = 1
    q5[0, 2:6] = [0x01, 0x00, 0x01, 0x00]  # bits 0 and 16: elements 0 and 16 get +16
    q5[0, 6] = 0x3F  # element 0 low nibble 15, element 16 high nibble 3
    got = decode("Q5_0", q5)
    assert got[0] == 15 and got[16] == 3 and got[1] == -16, got
    k4 = np.zeros((1, 144), dtype=np.uint8)
    k4[0, 0:4] = [0x00, 0x3C, 0x00, 0x40]  # d = 1, dmin = 2
    k4[0, 4 + 0], k4[0, 4 + 4] = 0xC3, 0x05  # sub-block 0: scale 3, min 5; top bits 3 go to sub-block 4's scale
    k4[0, 4 + 8] = 0x21  # sub-block 4: scale 1 | 3 << 4 = 49, min 2
    k4[0, 16] = 0x97  # element 0: 7, element 32 (sub-block 1, scale 0): 9
    got = decode("Q4_K", k4)
    assert got[0] == 3 * 7 - 2 * 5 and got[1] == -10 and got[32] == 0, got[:33]
    assert got[128] == -4, got[128]  # sub-block 4: 49 * 0 - 2 * 2
    q6 = np.zeros((1, 210), dtype=np.uint8)
    q6[0, 208:210] = [0x00, 0x3C]  # d = 1
    q6[0, 192:208] = np.arange(1, 17, dtype=np.int8).view(np.uint8)
    q6[0, 32] = 0xA0  # value 32 (i = 1): low 0, value 96 (i = 3): low 10
    q6[0, 128] = 0b11001001  # value 0: high 1, value 32: high 2, value 64: high 0, value 96: high 3
    got = decode("Q6_K", q6)
    assert got[0] == 1 * (16 - 32) and got[32] == 3 * (32 - 32) and got[96] == 7 * (58 - 32), (got[0], got[96])
    assert got[255] == 16 * -32, got[255]
    q2 = np.zeros((1, 84), dtype=np.uint8)
    q2[0, 80:84] = [0x00, 0x3C, 0x00, 0x38]  # d = 1, dmin = 0.5
    q2[0, 0], q2[0, 2], q2[0, 15] = 0x35, 0x07, 0x2F  # values 0-15: scale 5, min 3; 32-47: 7, 0; 240-255: 15, 2
    q2[0, 16] = 0b11100100  # values 0, 32, 64, 96: 0, 1, 2, 3
    q2[0, 16 + 63] = 0b11000000  # value 255 (half 1, byte 31, bits 6-7): 3
    got = decode("Q2_K", q2)
    assert list(got[[0, 32, 255]]) == [-1.5, 7.0, 15 * 3 - 1.0], got[[0, 32, 255]]
    q3 = np.zeros((1, 110), dtype=np.uint8)
    q3[0, 108:110] = [0x00, 0x3C]  # d = 1
    q3[0, 0] = 0b00000010  # hmask: value 32 (bit 1 of byte 0) without the -4
    q3[0, 96] = 0x21  # scales 0 and 8: low nibbles 1 and 2
    q3[0, 104] = 0b00100011  # scale 0 high bits 3 (-> 49), scale 8 (bits 4-5) 2 (-> 34)
    q3[0, 32] = 0b00001011  # value 0: 3, value 32: 2
    got = decode("Q3_K", q3)
    assert got[0] == (49 - 32) * (3 - 4) and got[32] == -32 * 2, got[[0, 32]]  # value 32: scale 2 (0, so -32)
    assert got[128] == (34 - 32) * -4 and got[16] == -32 * -4, got[[16, 128]]


def write_safetensors(path, tensors, metadata):
    """tensors: [(name, numpy array)] in file order, arrays of uint8, float32 or float64."""
    codes = {np.dtype(np.uint8): "U8", np.dtype(np.float32): "F32", np.dtype(np.float64): "F64"}
    header, blobs, offset = {"__metadata__": metadata}, [], 0
    for name, array in tensors:
        blob = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": codes[array.dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    text = json.dumps(header, separators=(",", ":")).encode("ascii")
    text += b" " * ((-len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=os.path.join(REPO, "tests", "fixtures", "gguf_blocks",
                                                      "gguf_blocks.safetensors"))
    args = parser.parse_args()
    self_check()
    rng = np.random.default_rng(62)
    tensors = []
    for name in ("F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K", "Q5_K", "Q6_K", "Q2_K",
                 "Q3_K"):
        count = {1: 64, 32: 16, 256: 12}[TYPES[name][1]]
        blocks = random_blocks(rng, name, count)
        values = decode(name, blocks)
        assert values.size == count * TYPES[name][1] and np.all(np.isfinite(values)), name
        tensors += [(name + "/blocks", blocks), (name + "/values", values)]
    inputs = quantize_inputs(rng)
    for name, quantizer in (("q8_0", quantize_q8_0_block), ("q4_0", quantize_q4_0_block)):
        tensors += [("quantize/%s/input" % name, inputs),
                    ("quantize/%s/blocks" % name, quantize_rows(inputs, quantizer))]
    metadata = {"format": "heptapod-gguf-blocks-fixture", "format_version": "1",
                "types": json.dumps({k: list(v) for k, v in TYPES.items()}, separators=(",", ":"))}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    write_safetensors(args.out, tensors, metadata)


if __name__ == "__main__":
    main()
