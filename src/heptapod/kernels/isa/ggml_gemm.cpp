// The ggml block products (kernels/block_weights.h): y (rows, n) = x (rows, in) W^T (+ bias) (ReLU) with
// W's rows kept as ggml blocks and decoded in registers, never into a float copy of W.
//
// One kernel serves every type: it walks the rows 32 values (a sub-block) at a time, each type decoding a
// sub-block into two 16-lane float vectors (lanes 0-15 and 16-31) that equal dequantize_row's values bit for
// bit, and multiplies them with the float32 activations (which are not quantized). A tile of kWeightRows
// weight rows x R activation rows (R up to kMaxRows) keeps one accumulator per pair, so a decoded
// sub-block serves every activation row of the tile; with one activation row (decoding, memory-bound) each
// pair has two accumulators, lanes 0-15 and 16-31, for independent chains.
//
// Decoding: a sub-block's values are step * q + offset with q its 4, 5 or 6-bit integers (Q8_0 and Q6_K:
// step * q with q signed). The avx512 path looks 4 and 5-bit values up in a table of the 16 or 32 values the
// sub-block can hold (vpermps / vpermt2ps on the raw bytes: the permutes read only the index's low bits),
// built once per sub-block with one FMA (Q4_0, Q5_0: one product d * (q - 8 or 16)); the other paths convert q to float
// and take step * q + offset with one rounding (FMA on avx2; the baseline's product is exact, so its one rounding is
// the sum's). The K types read each block's eight 6-bit scales and mins (Q6_K its sixteen int8 scales) once per block
// into per-sub-block steps and offsets.
//
// Paths: avx512 (16-lane zmm, 4 weight rows x up to 4 activation rows), avx2 with FMA and F16C (each
// 16-lane vector as two ymm, 2 x 2), baseline (plain loops over 16-lane arrays, 2 x 2). They differ only
// in the order the products are summed.
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/half.h"
#include "heptapod/kernels/isa/ggml_fields.h"
#include "heptapod/kernels/isa/panel_product.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

#if defined(__AVX512F__)

// 16 lanes in one zmm register. (The zero-masked forms where GCC 12 warns about the unmasked ones.)
struct Lanes {
  using F = __m512;   // 16 floats
  using I = __m512i;  // 16 int32
  static constexpr int kWeightRows = 4, kMaxRows = 4;
  static constexpr __mmask16 kAll = 0xffff;

  static I load_u8(Bytes p) {
    return _mm512_maskz_cvtepu8_epi32(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I load_s8(Bytes p) {
    return _mm512_maskz_cvtepi8_epi32(kAll, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static I shift_right(I v, unsigned n) { return _mm512_maskz_srli_epi32(kAll, v, n); }
  static I shift_left(I v, unsigned n) { return _mm512_maskz_slli_epi32(kAll, v, n); }
  static I bits_and(I v, int m) { return _mm512_and_si512(v, _mm512_set1_epi32(m)); }
  static I bits_or(I a, I b) { return _mm512_or_si512(a, b); }
  static I minus(I v, int k) { return _mm512_sub_epi32(v, _mm512_set1_epi32(k)); }
  // Bit l: bit s of p[l], l < 16.
  static std::uint32_t bit_of_bytes(Bytes p, int s) {
    return _mm_test_epi8_mask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)),
                              _mm_set1_epi8(static_cast<char>(1 << s)));
  }
  static F to_float(I q) { return _mm512_maskz_cvtepi32_ps(kAll, q); }
  static F set1(float v) { return _mm512_set1_ps(v); }
  // The float16 at p in every lane (a broadcast and one conversion).
  static F set1_half(Bytes p) {
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return _mm512_maskz_cvtph_ps(kAll, _mm256_set1_epi16(static_cast<short>(h)));
  }
  // (a, ..., a, b, ..., b): eight of each.
  static F halves(float a, float b) { return _mm512_maskz_insertf32x8(kAll, _mm512_set1_ps(a), _mm256_set1_ps(b), 1); }
  static F zero() { return _mm512_setzero_ps(); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F load(const float* p) { return _mm512_loadu_ps(p); }
  static F load_half(Bytes p) {
    return _mm512_maskz_cvtph_ps(kAll, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static void store(F v, float* p) { _mm512_storeu_ps(p, v); }
  static float sum(F v) { return simd::horizontal_sum(v); }

  static F iota(float first) {
    return _mm512_add_ps(_mm512_set1_ps(first), _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  }
  // The values step * q + offset of every 4-bit q (one rounding), looked up by q's low 4 bits.
  struct Table4 {
    F values;
  };
  static Table4 table4(float step, float offset) { return {fma(iota(0), set1(step), set1(offset))}; }
  // The values d * (q - zero) of every 4-bit q (exact).
  static Table4 centred_table4(F d, float zero) { return {mul(iota(-zero), d)}; }
  static F lookup(const Table4& t, I q) { return _mm512_maskz_permutexvar_ps(kAll, q, t.values); }
  // The same for 5-bit q: the low 4 bits from q, the fifth from bit l of `high` in lane l.
  struct Table5 {
    F low, high;
  };
  static Table5 table5(float step, float offset) {
    return {fma(iota(0), set1(step), set1(offset)), fma(iota(16), set1(step), set1(offset))};
  }
  static Table5 centred_table5(F d, float zero) { return {mul(iota(-zero), d), mul(iota(16 - zero), d)}; }
  static F lookup(const Table5& t, I q, std::uint32_t high) {
    return _mm512_mask_permutexvar_ps(_mm512_maskz_permutexvar_ps(kAll, q, t.low), static_cast<__mmask16>(high), q,
                                      t.high);
  }
};

#elif defined(__AVX2__)

// 16 lanes as two ymm registers, lanes 0-7 and 8-15.
struct Lanes {
  struct F {
    __m256 a, b;
  };
  struct I {
    __m256i a, b;
  };
  static constexpr int kWeightRows = 2, kMaxRows = 2;

  static I load_u8(Bytes p) {
    return {_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))),
            _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8)))};
  }
  static I load_s8(Bytes p) {
    return {_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))),
            _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8)))};
  }
  static I shift_right(I v, int n) { return {_mm256_srli_epi32(v.a, n), _mm256_srli_epi32(v.b, n)}; }
  static I shift_left(I v, int n) { return {_mm256_slli_epi32(v.a, n), _mm256_slli_epi32(v.b, n)}; }
  static I bits_and(I v, int m) {
    const __m256i vm = _mm256_set1_epi32(m);
    return {_mm256_and_si256(v.a, vm), _mm256_and_si256(v.b, vm)};
  }
  static I bits_or(I x, I y) { return {_mm256_or_si256(x.a, y.a), _mm256_or_si256(x.b, y.b)}; }
  static I minus(I v, int k) {
    const __m256i vk = _mm256_set1_epi32(k);
    return {_mm256_sub_epi32(v.a, vk), _mm256_sub_epi32(v.b, vk)};
  }
  // Bit l: bit s of p[l], l < 16 (each byte's bit s moved to its top bit, then the bytes' top bits).
  static std::uint32_t bit_of_bytes(Bytes p, int s) {
    return static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_slli_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), 7 - s)));
  }
  static F to_float(I q) { return {_mm256_cvtepi32_ps(q.a), _mm256_cvtepi32_ps(q.b)}; }
  static F set1(float v) { return {_mm256_set1_ps(v), _mm256_set1_ps(v)}; }
  static F set1_half(Bytes p) { return set1(read_half(p)); }
  static F halves(float a, float b) { return {_mm256_set1_ps(a), _mm256_set1_ps(b)}; }
  static F zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static F mul(F x, F y) { return {_mm256_mul_ps(x.a, y.a), _mm256_mul_ps(x.b, y.b)}; }
  static F add(F x, F y) { return {_mm256_add_ps(x.a, y.a), _mm256_add_ps(x.b, y.b)}; }
  static F fma(F x, F y, F z) { return {_mm256_fmadd_ps(x.a, y.a, z.a), _mm256_fmadd_ps(x.b, y.b, z.b)}; }
  static F load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
  static F load_half(Bytes p) {
    return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)))};
  }
  static void store(F v, float* p) {
    _mm256_storeu_ps(p, v.a);
    _mm256_storeu_ps(p + 8, v.b);
  }
  static float sum(F v) { return simd::horizontal_sum(_mm256_add_ps(v.a, v.b)); }

  // Lane l of `bits` (bit l) as 16, lanes 0-15.
  static I bit4(std::uint32_t bits) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), one = _mm256_set1_epi32(1);
    const __m256i b = _mm256_set1_epi32(static_cast<int>(bits));
    return {_mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(b, lane), one), 4),
            _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(_mm256_srli_epi32(b, 8), lane), one), 4)};
  }
  // step * q + offset by FMA (the product is exact: one rounding, as dequantize_row's).
  struct Table4 {
    F step, offset;
  };
  using Table5 = Table4;
  static Table4 table4(float step, float offset) { return {set1(step), set1(offset)}; }
  static Table5 table5(float step, float offset) { return table4(step, offset); }
  static Table4 centred_table4(F d, float zero) { return {d, mul(d, set1(-zero))}; }
  static Table5 centred_table5(F d, float zero) { return centred_table4(d, zero); }
  static F lookup(const Table4& t, I q) { return fma(to_float(bits_and(q, 15)), t.step, t.offset); }
  static F lookup(const Table5& t, I q, std::uint32_t high) {
    return fma(to_float(bits_or(bits_and(q, 15), bit4(high))), t.step, t.offset);
  }
};

#else

// 16 lanes as plain arrays; the compiler vectorises what the target allows.
struct Lanes {
  struct F {
    float v[16];
  };
  struct I {
    std::int32_t v[16];
  };
  static constexpr int kWeightRows = 2, kMaxRows = 2;

  template <typename Op>
  static I map(Op op) {
    I r;
    for (int l = 0; l < 16; ++l) r.v[l] = op(l);
    return r;
  }
  template <typename Op>
  static F mapf(Op op) {
    F r;
    for (int l = 0; l < 16; ++l) r.v[l] = op(l);
    return r;
  }
  static I load_u8(Bytes p) {
    return map([&](int l) { return static_cast<std::int32_t>(p[l]); });
  }
  static I load_s8(Bytes p) {
    return map([&](int l) { return static_cast<std::int32_t>(static_cast<std::int8_t>(p[l])); });
  }
  static I shift_right(I v, int n) {
    return map([&](int l) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v.v[l]) >> n); });
  }
  static I shift_left(I v, int n) {
    return map([&](int l) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v.v[l]) << n); });
  }
  static I bits_and(I v, int m) {
    return map([&](int l) { return v.v[l] & m; });
  }
  static I bits_or(I a, I b) {
    return map([&](int l) { return a.v[l] | b.v[l]; });
  }
  static I minus(I v, int k) {
    return map([&](int l) { return v.v[l] - k; });
  }
  static std::uint32_t bit_of_bytes(Bytes p, int s) {
    std::uint32_t bits = 0;
    for (int l = 0; l < 16; ++l) bits |= ((p[l] >> s) & 1u) << l;
    return bits;
  }
  static F to_float(I q) {
    return mapf([&](int l) { return static_cast<float>(q.v[l]); });
  }
  static F set1(float v) {
    return mapf([&](int) { return v; });
  }
  static F set1_half(Bytes p) { return set1(read_half(p)); }
  static F halves(float a, float b) {
    return mapf([&](int l) { return l < 8 ? a : b; });
  }
  static F zero() { return set1(0.0f); }
  static F mul(F a, F b) {
    return mapf([&](int l) { return a.v[l] * b.v[l]; });
  }
  static F add(F a, F b) {
    return mapf([&](int l) { return a.v[l] + b.v[l]; });
  }
  static F fma(F a, F b, F c) {
    return mapf([&](int l) { return a.v[l] * b.v[l] + c.v[l]; });
  }
  static F load(const float* p) {
    return mapf([&](int l) { return p[l]; });
  }
  static F load_half(Bytes p) {
    return mapf([&](int l) { return from_half_scalar(static_cast<half>(p[2 * l] | (p[2 * l + 1] << 8))); });
  }
  static void store(F v, float* p) { std::memcpy(p, v.v, sizeof v.v); }
  static float sum(F v) {
    float s = 0.0f;
    for (float e : v.v) s += e;
    return s;
  }

  // step * q + offset: the product is exact, the sum the one rounding, as dequantize_row's.
  struct Table4 {
    float step, offset;
  };
  using Table5 = Table4;
  static Table4 table4(float step, float offset) { return {step, offset}; }
  static Table5 table5(float step, float offset) { return {step, offset}; }
  static Table4 centred_table4(F d, float zero) { return {d.v[0], -zero * d.v[0]}; }
  static Table5 centred_table5(F d, float zero) { return centred_table4(d, zero); }
  static F lookup(const Table4& t, I q) {
    return mapf([&](int l) { return static_cast<float>(q.v[l] & 15) * t.step + t.offset; });
  }
  static F lookup(const Table5& t, I q, std::uint32_t high) {
    return mapf([&](int l) {
      return static_cast<float>((q.v[l] & 15) | static_cast<int>(((high >> l) & 1u) << 4)) * t.step + t.offset;
    });
  }
};

#endif

using F = Lanes::F;
using I = Lanes::I;

// The types. Each has kValues values in kBytes a block, kValues / 32 sub-blocks; prepare(b) reads what a
// block's sub-blocks share, decode(state, b, s, lo, hi) gives sub-block s's values 0-15 and 16-31.

// F16: a "block" of 32 halves (a row's last in % 32 values are summed apart).
struct F16 {
  static constexpr GgmlType kType = GgmlType::F16;
  static constexpr long kValues = 32, kBytes = 64;
  struct Block {};
  static Block prepare(Bytes) { return {}; }
  static void decode(const Block&, Bytes b, int, F& lo, F& hi) {
    lo = Lanes::load_half(b);
    hi = Lanes::load_half(b + 32);
  }
};

// Q8_0 (34 B): f16 d; i8 qs[32] -> d * q.
struct Q8_0 {
  static constexpr GgmlType kType = GgmlType::Q8_0;
  static constexpr long kValues = 32, kBytes = 34;
  struct Block {
    F d;
  };
  static Block prepare(Bytes b) { return {Lanes::set1_half(b)}; }
  static void decode(const Block& k, Bytes b, int, F& lo, F& hi) {
    lo = Lanes::mul(Lanes::to_float(Lanes::load_s8(b + 2)), k.d);
    hi = Lanes::mul(Lanes::to_float(Lanes::load_s8(b + 18)), k.d);
  }
};

// Value j < 16 of a 4-bit block: the low nibble of qs[j]; value j + 16: its high nibble.
template <typename Table>
void nibbles(const Table& t, Bytes qs, F& lo, F& hi) {
  const I q = Lanes::load_u8(qs);
  lo = Lanes::lookup(t, q);
  hi = Lanes::lookup(t, Lanes::shift_right(q, 4));
}
// The same with the fifth bit of value j from bit j of the u32 qh.
template <typename Table>
void nibbles5(const Table& t, Bytes qs, std::uint32_t qh, F& lo, F& hi) {
  const I q = Lanes::load_u8(qs);
  lo = Lanes::lookup(t, q, qh & 0xffffu);
  hi = Lanes::lookup(t, Lanes::shift_right(q, 4), qh >> 16);
}

// Q4_0 (18 B): f16 d; qs[16] -> d * (q - 8). Q4_1 (20 B): f16 d, f16 m; qs[16] -> d * q + m.
struct Q4_0 {
  static constexpr GgmlType kType = GgmlType::Q4_0;
  static constexpr long kValues = 32, kBytes = 18;
  using Block = Lanes::Table4;
  static Block prepare(Bytes b) { return Lanes::centred_table4(Lanes::set1_half(b), 8.0f); }
  static void decode(const Block& t, Bytes b, int, F& lo, F& hi) { nibbles(t, b + 2, lo, hi); }
};
struct Q4_1 {
  static constexpr GgmlType kType = GgmlType::Q4_1;
  static constexpr long kValues = 32, kBytes = 20;
  using Block = Lanes::Table4;
  static Block prepare(Bytes b) { return Lanes::table4(read_half(b), read_half(b + 2)); }
  static void decode(const Block& t, Bytes b, int, F& lo, F& hi) { nibbles(t, b + 4, lo, hi); }
};

// Q5_0 (22 B): f16 d; u32 qh; qs[16] -> d * (q - 16). Q5_1 (24 B): f16 d, f16 m; u32 qh; qs[16] -> d * q + m.
struct Q5_0 {
  static constexpr GgmlType kType = GgmlType::Q5_0;
  static constexpr long kValues = 32, kBytes = 22;
  using Block = Lanes::Table5;
  static Block prepare(Bytes b) { return Lanes::centred_table5(Lanes::set1_half(b), 16.0f); }
  static void decode(const Block& t, Bytes b, int, F& lo, F& hi) { nibbles5(t, b + 6, read_u32(b + 2), lo, hi); }
};
struct Q5_1 {
  static constexpr GgmlType kType = GgmlType::Q5_1;
  static constexpr long kValues = 32, kBytes = 24;
  using Block = Lanes::Table5;
  static Block prepare(Bytes b) { return Lanes::table5(read_half(b), read_half(b + 2)); }
  static void decode(const Block& t, Bytes b, int, F& lo, F& hi) { nibbles5(t, b + 8, read_u32(b + 4), lo, hi); }
};

// A Q4_K / Q5_K block's 8 sub-block steps d * scale (lanes 0-7) and offsets -dmin * min (lanes 8-15), from
// the 12 scale bytes: scale j < 4 is s[j] & 63, min j < 4 s[j + 4] & 63; for j >= 4 the low 4 bits come from
// s[j + 4] (scale: low nibble, min: high nibble), the top 2 from the top bits of s[j - 4] (scale) and s[j]
// (min). Rearranged as 16 bytes (scales 0-7, mins 0-7) in 32-bit words, as ggml's kernels do.
inline void k_steps(Bytes b, float* steps) {
  constexpr std::uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, low2 = 0x03030303;
  const std::uint32_t s0 = read_u32(b + 4), s1 = read_u32(b + 8), s2 = read_u32(b + 12);
  const std::uint32_t words[4] = {s0 & low6, (s2 & low4) | (((s0 >> 6) & low2) << 4), s1 & low6,
                                  ((s2 >> 4) & low4) | (((s1 >> 6) & low2) << 4)};
  std::uint8_t bytes[16];
  for (int w = 0; w < 4; ++w)
    for (int k = 0; k < 4; ++k) bytes[4 * w + k] = static_cast<std::uint8_t>(words[w] >> (8 * k));
  Lanes::store(Lanes::mul(Lanes::to_float(Lanes::load_u8(bytes)), Lanes::halves(read_half(b), -read_half(b + 2))),
               steps);
}

// Q4_K (144 B): f16 d, f16 dmin; scales[12]; qs[128]. Q5_K (176 B): the same with qh[32] before qs. Sub-block
// s holds qs[32 (s / 2) + l]'s nibble s % 2 plus, for Q5_K, bit s of qh[l] as 16; d * scale * q - dmin * min.
template <bool kFive>
struct QK {
  static constexpr GgmlType kType = kFive ? GgmlType::Q5_K : GgmlType::Q4_K;
  static constexpr long kValues = 256, kBytes = kFive ? 176 : 144;
  struct Block {
    float steps[16];
  };
  static Block prepare(Bytes b) {
    Block k;
    k_steps(b, k.steps);
    return k;
  }
  static void decode(const Block& k, Bytes b, int s, F& lo, F& hi) {
    Bytes qs = b + (kFive ? 48 : 16) + 32 * (s / 2);
    const int shift = 4 * (s % 2);
    const I q0 = Lanes::shift_right(Lanes::load_u8(qs), shift), q1 = Lanes::shift_right(Lanes::load_u8(qs + 16), shift);
    if constexpr (kFive) {
      const auto t = Lanes::table5(k.steps[s], k.steps[8 + s]);
      lo = Lanes::lookup(t, q0, Lanes::bit_of_bytes(b + 16, s));
      hi = Lanes::lookup(t, q1, Lanes::bit_of_bytes(b + 32, s));
    } else {
      const auto t = Lanes::table4(k.steps[s], k.steps[8 + s]);
      lo = Lanes::lookup(t, q0);
      hi = Lanes::lookup(t, q1);
    }
  }
};

// Q6_K (210 B): ql[128]; qh[64]; i8 scales[16]; f16 d. Sub-block s = 4 h + i (half h of 128 values): value l
// has low 4 bits from ql[64 h + 32 (i % 2) + l] nibble i / 2, high 2 bits from qh[32 h + l] bits 2i, 2i + 1;
// d * scales[8 h + 2 i + l / 16] * (q - 32).
struct Q6_K {
  static constexpr GgmlType kType = GgmlType::Q6_K;
  static constexpr long kValues = 256, kBytes = 210;
  struct Block {
    float steps[16];
  };
  static Block prepare(Bytes b) {
    Block k;
    Lanes::store(Lanes::mul(Lanes::to_float(Lanes::load_s8(b + 192)), Lanes::set1(read_half(b + 208))), k.steps);
    return k;
  }
  // Values 16 j .. 16 j + 15 of the sub-block, j = 0, 1.
  static F sixteen(const Block& k, Bytes b, int s, int j) {
    const int h = s / 4, i = s % 4;
    const I low =
        Lanes::bits_and(Lanes::shift_right(Lanes::load_u8(b + 64 * h + 32 * (i % 2) + 16 * j), 4 * (i / 2)), 15);
    const I high =
        Lanes::shift_left(Lanes::bits_and(Lanes::shift_right(Lanes::load_u8(b + 128 + 32 * h + 16 * j), 2 * i), 3), 4);
    return Lanes::mul(Lanes::to_float(Lanes::minus(Lanes::bits_or(low, high), 32)),
                      Lanes::set1(k.steps[8 * h + 2 * i + j]));
  }
  static void decode(const Block& k, Bytes b, int s, F& lo, F& hi) {
    lo = sixteen(k, b, s, 0);
    hi = sixteen(k, b, s, 1);
  }
};

constexpr int kW = Lanes::kWeightRows;

// sums[w][r] = sum_i x[r][i] * W_w[i] over the whole blocks of `in`, for the kW weight rows wr (rows of blocks)
// and R activation rows x (R, in).
template <typename T, int R>
void tile(const Bytes* wr, const float* x, long in, float (*sums)[R]) {
  constexpr int kA = R == 1 ? 2 : 1;  // accumulators a pair: lanes 0-15, then 16-31 (one when R > 1)
  constexpr int kSubs = static_cast<int>(T::kValues / 32);
  F acc[kW][R][kA];
#pragma GCC unroll 4
  for (int w = 0; w < kW; ++w)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
      for (int a = 0; a < kA; ++a) acc[w][r][a] = Lanes::zero();
  const long blocks = in / T::kValues;
  for (long blk = 0; blk < blocks; ++blk) {
    typename T::Block state[kW];
#pragma GCC unroll 4
    for (int w = 0; w < kW; ++w) state[w] = T::prepare(wr[w] + blk * T::kBytes);
#pragma GCC unroll 8
    for (int s = 0; s < kSubs; ++s) {
      const float* xs = x + blk * T::kValues + 32 * s;
#pragma GCC unroll 4
      for (int w = 0; w < kW; ++w) {
        F lo, hi;
        T::decode(state[w], wr[w] + blk * T::kBytes, s, lo, hi);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          acc[w][r][0] = Lanes::fma(lo, Lanes::load(xs + r * in), acc[w][r][0]);
          acc[w][r][kA - 1] = Lanes::fma(hi, Lanes::load(xs + r * in + 16), acc[w][r][kA - 1]);
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int w = 0; w < kW; ++w)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
      sums[w][r] = Lanes::sum(kA == 2 ? Lanes::add(acc[w][r][0], acc[w][r][kA - 1]) : acc[w][r][0]);
}

// The product for one type: tiles of kW weight rows (the last repeating W's last row where n is short) x
// activation row blocks, the decoded weights reused by every row of a block.
template <typename T>
void product(Bytes w, long row_bytes, const float* x, int rows, int in, int n, const float* bias, bool relu, float* y,
             long ldy) {
  const long whole = in / T::kValues * T::kValues;  // F16: the values past it are summed here
  for (int o = 0; o < n; o += kW) {
    Bytes wr[kW];
    for (int j = 0; j < kW; ++j) wr[j] = w + std::min(o + j, n - 1) * row_bytes;
    for_row_blocks<Lanes::kMaxRows>(0, rows, [&]<int R>(int r) {
      float sums[kW][R];
      const float* xr = x + static_cast<long>(r) * in;
      tile<T, R>(wr, xr, in, sums);
      for (int j = 0; j < std::min(kW, n - o); ++j)
        for (int i = 0; i < R; ++i) {
          float v = sums[j][i];
          for (long k = whole; k < in; ++k) v += xr[i * static_cast<long>(in) + k] * read_half(wr[j] + 2 * k);
          if (bias) v += bias[o + j];
          y[(r + i) * ldy + o + j] = relu && 0.0f > v ? 0.0f : v;
        }
    });
  }
}

void ggml_gemm(GgmlType type, const std::uint8_t* w, long row_bytes, const float* x, int rows, int in, int n,
               const float* bias, bool relu, float* y, long ldy) {
  for_ggml_type<F16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, QK<false>, QK<true>, Q6_K>(
      type, "block product", [&]<typename T>(T) { product<T>(w, row_bytes, x, rows, in, n, bias, relu, y, ldy); });
}

}  // namespace

void register_ggml_gemm(KernelTable& t) {
  static const std::vector<BlockGemmVariant> list = {{HEPTAPOD_ISA_NAME, &ggml_gemm}};
  t.block_gemm_variants = [] { return std::span<const BlockGemmVariant>(list); };
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
