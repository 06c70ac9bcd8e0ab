// The integer block products (kernels/block_weights.h): y (rows, n) = x (rows, in) W^T (+ bias) (ReLU) with
// W's rows kept as ggml blocks and x quantized per block of 32 (BlockActivations: a scale d_x and int8 q_x),
// as llama.cpp computes them: the weights are decoded in registers two sub-blocks of 32 at a time, to 64 small
// integers u, and multiplied with q_x as exact byte products summed four to an int32 lane, then scaled in float:
//   value d_w * (u - z) (Q4_0 z = 8, Q5_0 16, Q6_K 32 with a d_w per 16 values, Q8_0: u signed)
//     sum = d_w d_x (sum u q_x - z sum q_x), the - z sum q_x started in the integer lanes;
//   value d_w * u + m (Q4_1, Q5_1; Q4_K / Q5_K: d sc_j * u - dmin m_j)
//     sum = d_w d_x sum u q_x + m (d_x sum q_x), the second term in a float of its own.
// Each lane's int32 is exact; a tile keeps 16 float lanes a (weight row, activation row) pair, adding
// float(lane) * (d_w d_x) per pair of sub-blocks (one rounding each: product, then FMA), and sums the lanes at
// the end. A row of an odd number of 32-value blocks pairs its last block with itself against the activations'
// zero padding (BlockActivations pads rows to 64 values), which adds exact zeros.
//
// Paths: avx512-vnni (vpdpbusd: 64 byte products an instruction), avx512 (vpmaddubsw then vpmaddwd), avx2 (the
// same on two ymm registers), baseline (plain loops); Q8_0's signed weights take |w| against q_x with w's sign
// where vpmaddubsw would otherwise saturate. They differ only in the order the float terms are summed. The
// 4-bit types' nibbles come out of the AVX-512 decoder as (low 16 of block 0, of block 1, high 16 of block 0,
// of block 1), one 128-bit quarter each: the activations, their sums and scales are put in the same order by
// one shuffle of quarters (order_nibbles). avx512 tiles 4 weight rows x up to 4 activation rows, the others
// 2 x 2.
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "heptapod/core/cpu_info.h"
#include "heptapod/core/error.h"
#include "heptapod/kernels/block_weights.h"
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

// 64 bytes, 16 int32 or 16 float lanes in one zmm register; lane l of a byte product holds bytes 4l .. 4l + 3.
// (The zero-masked forms where GCC 12 warns about the unmasked ones.)
struct Lanes {
  using U = __m512i;  // 64 bytes
  using I = __m512i;  // 16 int32
  using F = __m512;   // 16 floats
  static constexpr int kWeightRows = 4, kMaxRows = 4;

  static U bytes(std::uint8_t v) { return _mm512_set1_epi8(static_cast<char>(v)); }
  static U load64(Bytes p) { return _mm512_loadu_si512(p); }
  static I load_lanes(const std::int32_t* p) { return _mm512_loadu_si512(p); }
  // 32 bytes from p, then 32 from q.
  static U load_pair(Bytes p, Bytes q) {
    return _mm512_inserti64x4(_mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))),
                              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)), 1);
  }
  // The 32 bytes at p twice.
  static U twice32(Bytes p) {
    return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  // Two blocks' 16 nibble bytes: low nibbles of p, of q, high nibbles of p, of q.
  static U nibble_pair(Bytes p, Bytes q) {
    const __m256i v = _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)), 1);
    const __m256i low = _mm256_set1_epi8(15);
    return _mm512_inserti64x4(_mm512_zextsi256_si512(_mm256_and_si256(v, low)),
                              _mm256_and_si256(_mm256_srli_epi16(v, 4), low), 1);
  }
  // 32 bytes' low nibbles, then their high nibbles.
  static U nibbles32(Bytes p) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i low = _mm256_set1_epi8(15);
    return _mm512_inserti64x4(_mm512_zextsi256_si512(_mm256_and_si256(v, low)),
                              _mm256_and_si256(_mm256_srli_epi16(v, 4), low), 1);
  }
  // Natural order (values 0-15, 16-31 of block 0, the same of block 1) to nibble_pair's, for bytes, int32 and
  // float lanes alike (quarters 0, 2, 1, 3).
  static U order_nibbles(U v) { return _mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(3, 1, 2, 0)); }
  static F order_nibbles(F v) { return _mm512_shuffle_f32x4(v, v, _MM_SHUFFLE(3, 1, 2, 0)); }
  // 16 in each byte of nibble_pair's order whose value (0-31 of block 0 in qh0, of block 1 in qh1) has its bit set.
  static U fifth_bits(std::uint32_t qh0, std::uint32_t qh1) {
    const std::uint64_t bits = (qh0 & 0xffffu) | static_cast<std::uint64_t>(qh1 & 0xffffu) << 16 |
                               static_cast<std::uint64_t>(qh0 >> 16) << 32 | static_cast<std::uint64_t>(qh1 >> 16) << 48;
    return _mm512_maskz_mov_epi8(bits, bytes(16));
  }
  // (byte >> s) & mask, s0 for bytes 0-31 and s1 for 32-63 (s < 8).
  static U fields(U v, int s0, int s1, std::uint8_t mask) {
    const __m512i shifts = _mm512_inserti64x4(_mm512_set1_epi16(static_cast<short>(s0)), _mm256_set1_epi16(static_cast<short>(s1)), 1);
    return _mm512_and_si512(_mm512_srlv_epi16(v, shifts), bytes(mask));
  }
  static U shift_up(U v, int s) { return _mm512_maskz_slli_epi16(~0u, v, s); }  // bytes whose bits stay in the byte
  static U bits_or(U a, U b) { return _mm512_or_si512(a, b); }
  static I shift_left(I v, int s) { return _mm512_maskz_slli_epi32(0xffff, v, s); }
  static I zero_lanes() { return _mm512_setzero_si512(); }

  // init + sum of u * q over each lane's four bytes (u 0..255 with VNNI, else below 64; q -127..127).
  template <bool kVnni>
  static I dot(I init, U u, U q) {
    if constexpr (kVnni) {
      asm("vpdpbusd %2, %1, %0" : "+v"(init) : "v"(u), "v"(q));
      return init;
    } else {
      return _mm512_add_epi32(init, _mm512_madd_epi16(_mm512_maddubs_epi16(u, q), _mm512_set1_epi16(1)));
    }
  }
  // sum of w * q over each lane's four bytes, w and q signed; neg_sums: -(sum q) per lane.
  template <bool kVnni>
  static I dot_signed(U w, U q, I neg_sums) {
    if constexpr (kVnni) return dot<true>(shift_left(neg_sums, 7), _mm512_xor_si512(w, bytes(0x80)), q);
    const __mmask64 negative = _mm512_movepi8_mask(w);
    return dot<false>(zero_lanes(), _mm512_abs_epi8(w), _mm512_mask_sub_epi8(q, negative, _mm512_setzero_si512(), q));
  }

  // The 4 bytes at p in every lane; v in every lane.
  static U broadcast4(const std::int8_t* p) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
  }
  static I set1_lanes(std::int32_t v) { return _mm512_set1_epi32(v); }
  // 16 in byte b where bit b of the 8 bytes at p is set.
  static U bits16(Bytes p) {
    std::uint64_t m;
    std::memcpy(&m, p, 8);
    return _mm512_maskz_mov_epi8(m, bytes(16));
  }
  // acc + the sum of (u - 128) * q over each lane's four bytes (q signed), except that with VNNI the - 128 sum q
  // is left to acc's start.
  template <bool kVnni>
  static I dot_biased_add(I acc, U u, U q) {
    if constexpr (kVnni) return dot<true>(acc, u, q);
    return _mm512_add_epi32(acc, dot_signed<false>(_mm512_xor_si512(u, bytes(0x80)), q, acc));
  }
  static F halves16(Bytes p) {
    return _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static F bytes16(Bytes p) {  // 16 unsigned bytes as floats
    return to_float(_mm512_maskz_cvtepu8_epi32(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static F signed_bytes16(Bytes p) {
    return to_float(_mm512_maskz_cvtepi8_epi32(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
  }
  static F set1(float v) { return _mm512_set1_ps(v); }
  static void store(F v, float* p) { _mm512_storeu_ps(p, v); }
  static F load(const float* p) { return _mm512_loadu_ps(p); }
  // The float16 at p in lanes 0-7, the one at q in 8-15.
  static F half_pair(Bytes p, Bytes q) {
    std::uint16_t a, b;
    std::memcpy(&a, p, 2);
    std::memcpy(&b, q, 2);
    return _mm512_maskz_cvtph_ps(0xffff, _mm256_set_m128i(_mm_set1_epi16(static_cast<short>(b)),
                                                          _mm_set1_epi16(static_cast<short>(a))));
  }
  static F pair(float a, float b) { return _mm512_maskz_insertf32x8(0xffff, _mm512_set1_ps(a), _mm256_set1_ps(b), 1); }
  // v[0] in lanes 0-3, v[1] in 4-7, v[2] in 8-11, v[3] in 12-15.
  static F quads(const float* v) {
    const __m512i index = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    return _mm512_maskz_permutexvar_ps(0xffff, index, _mm512_zextps128_ps512(_mm_loadu_ps(v)));
  }
  static F to_float(I v) { return _mm512_maskz_cvtepi32_ps(0xffff, v); }
  static F zero() { return _mm512_setzero_ps(); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F fma(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static float sum(F v) { return simd::horizontal_sum(v); }
};

#elif defined(__AVX2__)

// 64 bytes, 16 int32 or float lanes as two ymm registers (a: bytes 0-31, lanes 0-7; b: the rest).
struct Lanes {
  struct U {
    __m256i a, b;
  };
  using I = U;
  struct F {
    __m256 a, b;
  };
  static constexpr int kWeightRows = 2, kMaxRows = 2;

  static __m256i bytes(std::uint8_t v) { return _mm256_set1_epi8(static_cast<char>(v)); }
  static __m256i load32(Bytes p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static U load64(Bytes p) { return {load32(p), load32(p + 32)}; }
  static I load_lanes(const std::int32_t* p) { return load64(reinterpret_cast<Bytes>(p)); }
  static U load_pair(Bytes p, Bytes q) { return {load32(p), load32(q)}; }
  static U twice32(Bytes p) {
    const __m256i v = load32(p);
    return {v, v};
  }
  // 16 bytes' low nibbles, then their high nibbles.
  static __m256i nibbles16(Bytes p) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i low = _mm_set1_epi8(15);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(v, 4), low), _mm_and_si128(v, low));
  }
  static U nibble_pair(Bytes p, Bytes q) { return {nibbles16(p), nibbles16(q)}; }
  static U nibbles32(Bytes p) {
    const __m256i v = load32(p);
    return {_mm256_and_si256(v, bytes(15)), _mm256_and_si256(_mm256_srli_epi16(v, 4), bytes(15))};
  }
  static U order_nibbles(U v) { return v; }  // nibble_pair's order is the natural one here
  static F order_nibbles(F v) { return v; }
  // 16 in byte l where bit l of `bits` is set: byte l takes byte l / 8 of `bits` and keeps bit l % 8.
  static __m256i bit4(std::uint32_t bits) {
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32(static_cast<int>(bits)),
        _mm256_setr_epi64x(0, 0x0101010101010101, 0x0202020202020202, 0x0303030303030303));
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit), bytes(16));
  }
  static U fifth_bits(std::uint32_t qh0, std::uint32_t qh1) { return {bit4(qh0), bit4(qh1)}; }
  static U fields(U v, int s0, int s1, std::uint8_t mask) {
    return {_mm256_and_si256(_mm256_srli_epi16(v.a, s0), bytes(mask)),
            _mm256_and_si256(_mm256_srli_epi16(v.b, s1), bytes(mask))};
  }
  static U shift_up(U v, int s) { return {_mm256_slli_epi16(v.a, s), _mm256_slli_epi16(v.b, s)}; }
  static U bits_or(U x, U y) { return {_mm256_or_si256(x.a, y.a), _mm256_or_si256(x.b, y.b)}; }
  static I shift_left(I v, int s) { return {_mm256_slli_epi32(v.a, s), _mm256_slli_epi32(v.b, s)}; }
  static I zero_lanes() { return {_mm256_setzero_si256(), _mm256_setzero_si256()}; }

  static __m256i dot32(__m256i init, __m256i u, __m256i q) {
    return _mm256_add_epi32(init, _mm256_madd_epi16(_mm256_maddubs_epi16(u, q), _mm256_set1_epi16(1)));
  }
  template <bool>
  static I dot(I init, U u, U q) {
    return {dot32(init.a, u.a, q.a), dot32(init.b, u.b, q.b)};
  }
  template <bool>
  static I dot_signed(U w, U q, I) {
    const __m256i zero = _mm256_setzero_si256();
    return {dot32(zero, _mm256_abs_epi8(w.a), _mm256_sign_epi8(q.a, w.a)),
            dot32(zero, _mm256_abs_epi8(w.b), _mm256_sign_epi8(q.b, w.b))};
  }

  static U broadcast4(const std::int8_t* p) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return set1_lanes(v);
  }
  static I set1_lanes(std::int32_t v) { return {_mm256_set1_epi32(v), _mm256_set1_epi32(v)}; }
  static U bits16(Bytes p) { return {bit4(read_u32(p)), bit4(read_u32(p + 4))}; }
  template <bool>
  static I dot_biased_add(I acc, U u, U q) {
    const I s = dot_signed<false>({_mm256_xor_si256(u.a, bytes(0x80)), _mm256_xor_si256(u.b, bytes(0x80))}, q, acc);
    return {_mm256_add_epi32(acc.a, s.a), _mm256_add_epi32(acc.b, s.b)};
  }
  static F halves16(Bytes p) {
    return {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
            _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16)))};
  }
  static F bytes16(Bytes p) {
    return {_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))),
            _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8))))};
  }
  static F signed_bytes16(Bytes p) {
    return {_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)))),
            _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + 8))))};
  }
  static F set1(float v) { return {_mm256_set1_ps(v), _mm256_set1_ps(v)}; }
  static void store(F v, float* p) {
    _mm256_storeu_ps(p, v.a);
    _mm256_storeu_ps(p + 8, v.b);
  }
  static F load(const float* p) { return {_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}; }
  static F half_pair(Bytes p, Bytes q) { return pair(read_half(p), read_half(q)); }
  static F pair(float a, float b) { return {_mm256_set1_ps(a), _mm256_set1_ps(b)}; }
  static F quads(const float* v) {
    return {_mm256_set_m128(_mm_set1_ps(v[1]), _mm_set1_ps(v[0])), _mm256_set_m128(_mm_set1_ps(v[3]), _mm_set1_ps(v[2]))};
  }
  static F to_float(I v) { return {_mm256_cvtepi32_ps(v.a), _mm256_cvtepi32_ps(v.b)}; }
  static F zero() { return {_mm256_setzero_ps(), _mm256_setzero_ps()}; }
  static F mul(F x, F y) { return {_mm256_mul_ps(x.a, y.a), _mm256_mul_ps(x.b, y.b)}; }
  static F fma(F x, F y, F z) { return {_mm256_fmadd_ps(x.a, y.a, z.a), _mm256_fmadd_ps(x.b, y.b, z.b)}; }
  static float sum(F v) { return simd::horizontal_sum(_mm256_add_ps(v.a, v.b)); }
};

#else

// 64 bytes and 16 lanes as plain arrays; the compiler vectorises what the target allows.
struct Lanes {
  struct U {
    std::uint8_t v[64];
  };
  struct I {
    std::int32_t v[16];
  };
  struct F {
    float v[16];
  };
  static constexpr int kWeightRows = 2, kMaxRows = 2;

  template <typename Op>
  static U mapu(Op op) {
    U r;
    for (int b = 0; b < 64; ++b) r.v[b] = static_cast<std::uint8_t>(op(b));
    return r;
  }
  template <typename Op>
  static I mapi(Op op) {
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
  static U load64(Bytes p) {
    return mapu([&](int b) { return p[b]; });
  }
  static I load_lanes(const std::int32_t* p) {
    return mapi([&](int l) { return p[l]; });
  }
  static U load_pair(Bytes p, Bytes q) {
    return mapu([&](int b) { return b < 32 ? p[b] : q[b - 32]; });
  }
  static U twice32(Bytes p) {
    return mapu([&](int b) { return p[b % 32]; });
  }
  static U nibble_pair(Bytes p, Bytes q) {
    return mapu([&](int b) {
      Bytes s = b < 32 ? p : q;
      const int k = b % 32;
      return k < 16 ? s[k] & 15 : s[k - 16] >> 4;
    });
  }
  static U nibbles32(Bytes p) {
    return mapu([&](int b) { return b < 32 ? p[b] & 15 : p[b - 32] >> 4; });
  }
  static U order_nibbles(U v) { return v; }
  static I order_nibbles(I v) { return v; }
  static F order_nibbles(F v) { return v; }
  static U fifth_bits(std::uint32_t qh0, std::uint32_t qh1) {
    return mapu([&](int b) { return (((b < 32 ? qh0 : qh1) >> (b % 32)) & 1u) << 4; });
  }
  static U fields(U v, int s0, int s1, std::uint8_t mask) {
    return mapu([&](int b) { return (v.v[b] >> (b < 32 ? s0 : s1)) & mask; });
  }
  static U shift_up(U v, int s) {
    return mapu([&](int b) { return v.v[b] << s; });
  }
  static U bits_or(U x, U y) {
    return mapu([&](int b) { return x.v[b] | y.v[b]; });
  }
  static I shift_left(I v, int s) {
    return mapi([&](int l) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v.v[l]) << s); });
  }
  static I zero_lanes() {
    return mapi([](int) { return 0; });
  }
  template <bool>
  static I dot(I init, U u, U q) {
    return mapi([&](int l) {
      std::int32_t s = init.v[l];
      for (int k = 4 * l; k < 4 * l + 4; ++k) s += u.v[k] * static_cast<std::int8_t>(q.v[k]);
      return s;
    });
  }
  template <bool>
  static I dot_signed(U w, U q, I) {
    return mapi([&](int l) {
      std::int32_t s = 0;
      for (int k = 4 * l; k < 4 * l + 4; ++k) s += static_cast<std::int8_t>(w.v[k]) * static_cast<std::int8_t>(q.v[k]);
      return s;
    });
  }
  static U broadcast4(const std::int8_t* p) {
    return mapu([&](int b) { return static_cast<std::uint8_t>(p[b % 4]); });
  }
  static I set1_lanes(std::int32_t v) {
    return mapi([&](int) { return v; });
  }
  static U bits16(Bytes p) {
    return mapu([&](int b) { return ((p[b / 8] >> (b % 8)) & 1) << 4; });
  }
  template <bool>
  static I dot_biased_add(I acc, U u, U q) {
    const I s = dot_signed<false>(mapu([&](int b) { return u.v[b] ^ 0x80; }), q, acc);
    return mapi([&](int l) { return acc.v[l] + s.v[l]; });
  }
  static F halves16(Bytes p) {
    return mapf([&](int l) { return read_half(p + 2 * l); });
  }
  static F bytes16(Bytes p) {
    return mapf([&](int l) { return static_cast<float>(p[l]); });
  }
  static F signed_bytes16(Bytes p) {
    return mapf([&](int l) { return static_cast<float>(static_cast<std::int8_t>(p[l])); });
  }
  static F set1(float v) {
    return mapf([&](int) { return v; });
  }
  static void store(F v, float* p) { std::memcpy(p, v.v, sizeof v.v); }
  static F load(const float* p) {
    return mapf([&](int l) { return p[l]; });
  }
  static F half_pair(Bytes p, Bytes q) { return pair(read_half(p), read_half(q)); }
  static F pair(float a, float b) {
    return mapf([&](int l) { return l < 8 ? a : b; });
  }
  static F quads(const float* v) {
    return mapf([&](int l) { return v[l / 4]; });
  }
  static F to_float(I v) {
    return mapf([&](int l) { return static_cast<float>(v.v[l]); });
  }
  static F zero() {
    return mapf([](int) { return 0.0f; });
  }
  static F mul(F a, F b) {
    return mapf([&](int l) { return a.v[l] * b.v[l]; });
  }
  static F fma(F a, F b, F c) {
    return mapf([&](int l) { return std::fma(a.v[l], b.v[l], c.v[l]); });
  }
  static float sum(F v) {
    float s = 0.0f;
    for (float e : v.v) s += e;
    return s;
  }
};

#endif

using U = Lanes::U;
using I = Lanes::I;
using F = Lanes::F;

// Two sub-blocks of 32 weights as the products take them: u (64 bytes), the step d_w of each lane, and the
// offsets m of `value = step * u + m` of the two (types with kMin).
struct Pair {
  U u;
  F step;
  float min0 = 0.0f, min1 = 0.0f;
};

// The types. kPairs pairs of sub-blocks make a block of kBytes; prepare(row, first) reads what the pairs of the
// block holding pair `first` share, decode(state, row, p, last) gives pair p of the row (last: the row's last
// 32-value block, which a 32-value type pairs with itself when the count is odd). kZeroShift: z = 2^kZeroShift
// subtracted from u (-1: none); kMin: offsets; kSigned: u holds signed bytes (Q8_0); kNibbleOrder: u in
// order_nibbles' order.
template <int kShift, bool kOffset, bool kSignedBytes = false, bool kNibbles = false>
struct Kind {
  static constexpr int kZeroShift = kShift;
  static constexpr bool kMin = kOffset, kSigned = kSignedBytes, kNibbleOrder = kNibbles;
};

// The blocks of a 32-value type holding pair p: 2p and 2p + 1, or 2p again past the last.
template <long kBytes>
struct BlockPair {
  Bytes first, second;
  BlockPair(Bytes row, long p, long last) : first(row + 2 * p * kBytes), second(row + std::min(2 * p + 1, last) * kBytes) {}
};

struct NoState {};

// Q8_0 (34 B): f16 d; i8 qs[32] -> d * q.
struct Q8_0 : Kind<-1, false, true> {
  static constexpr GgmlType kType = GgmlType::Q8_0;
  static constexpr long kBytes = 34, kPairs = 1;
  static NoState prepare(Bytes, long) { return {}; }
  static Pair decode(NoState, Bytes row, long p, long last) {
    const BlockPair<kBytes> b(row, p, last);
    return {Lanes::load_pair(b.first + 2, b.second + 2), Lanes::half_pair(b.first, b.second)};
  }
};

// Q4_0 (18 B): f16 d; qs[16] -> d * (q - 8); value j < 16 the low nibble of qs[j], j + 16 its high nibble.
// Q4_1 (20 B): f16 d, f16 m; qs[16] -> d * q + m.
struct Q4_0 : Kind<3, false, false, true> {
  static constexpr GgmlType kType = GgmlType::Q4_0;
  static constexpr long kBytes = 18, kPairs = 1;
  static NoState prepare(Bytes, long) { return {}; }
  static Pair decode(NoState, Bytes row, long p, long last) {
    const BlockPair<kBytes> b(row, p, last);
    return {Lanes::nibble_pair(b.first + 2, b.second + 2), Lanes::order_nibbles(Lanes::half_pair(b.first, b.second))};
  }
};
struct Q4_1 : Kind<-1, true, false, true> {
  static constexpr GgmlType kType = GgmlType::Q4_1;
  static constexpr long kBytes = 20, kPairs = 1;
  static NoState prepare(Bytes, long) { return {}; }
  static Pair decode(NoState, Bytes row, long p, long last) {
    const BlockPair<kBytes> b(row, p, last);
    return {Lanes::nibble_pair(b.first + 4, b.second + 4), Lanes::order_nibbles(Lanes::half_pair(b.first, b.second)),
            read_half(b.first + 2), read_half(b.second + 2)};
  }
};

// Q5_0 (22 B): f16 d; u32 qh; qs[16] -> d * (q - 16), bit j of qh the fifth bit of value j.
// Q5_1 (24 B): f16 d, f16 m; u32 qh; qs[16] -> d * q + m.
template <bool kOffset>
struct Q5 : Kind<kOffset ? -1 : 4, kOffset, false, true> {
  static constexpr GgmlType kType = kOffset ? GgmlType::Q5_1 : GgmlType::Q5_0;
  static constexpr long kBytes = kOffset ? 24 : 22, kPairs = 1, kQh = kOffset ? 4 : 2;  // kQh: qh's offset
  static NoState prepare(Bytes, long) { return {}; }
  static Pair decode(NoState, Bytes row, long p, long last) {
    const BlockPair<kBytes> b(row, p, last);
    Pair pair{Lanes::bits_or(Lanes::nibble_pair(b.first + kQh + 4, b.second + kQh + 4),
                             Lanes::fifth_bits(read_u32(b.first + kQh), read_u32(b.second + kQh))),
              Lanes::order_nibbles(Lanes::half_pair(b.first, b.second))};
    if constexpr (kOffset) pair.min0 = read_half(b.first + 2), pair.min1 = read_half(b.second + 2);
    return pair;
  }
};

// Q4_K (144 B): f16 d, f16 dmin; scales[12]; qs[128]. Q5_K (176 B): the same with qh[32] before qs. Sub-block
// s holds qs[32 (s / 2) + l]'s nibble s % 2 plus, for Q5_K, bit s of qh[l] as 16; d * sc_s * q - dmin * m_s.
// Pair c is sub-blocks 2c and 2c + 1: the low and the high nibbles of qs[32c ..].
template <bool kFive>
struct QK : Kind<-1, true> {
  static constexpr GgmlType kType = kFive ? GgmlType::Q5_K : GgmlType::Q4_K;
  static constexpr long kBytes = kFive ? 176 : 144, kPairs = 4;
  struct Block {
    Bytes b;
    float steps[8], mins[8];
  };
  static Block prepare(Bytes row, long first) {
    Block k;
    k.b = row + first / kPairs * kBytes;
    const float d = read_half(k.b), dmin = read_half(k.b + 2);
    for (int j = 0; j < 8; ++j) {
      int scale, min;
      k_scale_min(k.b + 4, j, scale, min);
      k.steps[j] = d * static_cast<float>(scale);
      k.mins[j] = -(dmin * static_cast<float>(min));
    }
    return k;
  }
  static Pair decode(const Block& k, Bytes, long p, long) {
    const int c = static_cast<int>(p % kPairs);
    U u = Lanes::nibbles32(k.b + (kFive ? 48 : 16) + 32 * c);
    if constexpr (kFive) u = Lanes::bits_or(u, Lanes::shift_up(Lanes::fields(Lanes::twice32(k.b + 16), 2 * c, 2 * c + 1, 1), 4));
    return {u, Lanes::pair(k.steps[2 * c], k.steps[2 * c + 1]), k.mins[2 * c], k.mins[2 * c + 1]};
  }
};

// Q6_K (210 B): ql[128]; qh[64]; i8 scales[16]; f16 d. Sub-block s = 4 h + i (half h of 128 values): value l
// has low 4 bits from ql[64 h + 32 (i % 2) + l] nibble i / 2, high 2 bits from qh[32 h + l] bits 2i, 2i + 1;
// d * scales[8 h + 2 i + l / 16] * (q - 32). Pair 2h + j is sub-blocks 4h + 2j and 4h + 2j + 1: nibble j of
// ql[64 h ..] (64 bytes), bits 4j, 4j + 1 and 4j + 2, 4j + 3 of qh[32 h ..].
struct Q6_K : Kind<5, false> {
  static constexpr GgmlType kType = GgmlType::Q6_K;
  static constexpr long kBytes = 210, kPairs = 4;
  struct Block {
    Bytes b;
    float steps[16];
  };
  static Block prepare(Bytes row, long first) {
    Block k;
    k.b = row + first / kPairs * kBytes;
    const float d = read_half(k.b + 208);
    for (int j = 0; j < 16; ++j) k.steps[j] = d * static_cast<float>(static_cast<std::int8_t>(k.b[192 + j]));
    return k;
  }
  static Pair decode(const Block& k, Bytes, long p, long) {
    const int h = static_cast<int>(p % kPairs) / 2, j = static_cast<int>(p % 2);
    const U low = Lanes::fields(Lanes::load64(k.b + 64 * h), 4 * j, 4 * j, 15);
    const U high = Lanes::shift_up(Lanes::fields(Lanes::twice32(k.b + 128 + 32 * h), 4 * j, 4 * j + 2, 3), 4);
    return {Lanes::bits_or(low, high), Lanes::quads(k.steps + 8 * h + 4 * j)};
  }
};

constexpr int kW = Lanes::kWeightRows;

// One activation row's view (BlockActivations, in padded to 64): q, neg_sums, lane_scales, scaled_sums.
struct XRow {
  const std::int8_t* q;
  const std::int32_t* neg_sums;
  const float* lane_scales;
  const float* scaled_sums;
};

// sums[w][r] = the product of weight row wr[w] (rows of blocks) and activation row x[r], for kW weight rows and
// R activation rows; `pairs` pairs of sub-blocks, `last` the rows' last 32-value block.
template <typename T, bool kVnni, int R>
void tile(const Bytes* wr, const XRow* x, long pairs, long last, float (*sums)[R]) {
  F acc[kW][R];
  float offsets[kW][R] = {};
#pragma GCC unroll 4
  for (int w = 0; w < kW; ++w)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[w][r] = Lanes::zero();
  for (long first = 0; first < pairs; first += T::kPairs) {
    decltype(T::prepare(wr[0], first)) state[kW];
#pragma GCC unroll 4
    for (int w = 0; w < kW; ++w) state[w] = T::prepare(wr[w], first);
#pragma GCC unroll 4
    for (long p = first; p < first + T::kPairs; ++p) {
      U q[R];
      I init[R];
      F scale[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        q[r] = Lanes::load64(reinterpret_cast<Bytes>(x[r].q + 64 * p));
        init[r] = Lanes::zero_lanes();
        if constexpr (T::kZeroShift >= 0 || T::kSigned) init[r] = Lanes::load_lanes(x[r].neg_sums + 16 * p);
        if constexpr (T::kZeroShift >= 0) init[r] = Lanes::shift_left(init[r], T::kZeroShift);
        scale[r] = Lanes::load(x[r].lane_scales + 16 * p);
        if constexpr (T::kNibbleOrder) {
          q[r] = Lanes::order_nibbles(q[r]);
          init[r] = Lanes::order_nibbles(init[r]);
          scale[r] = Lanes::order_nibbles(scale[r]);
        }
      }
#pragma GCC unroll 4
      for (int w = 0; w < kW; ++w) {
        const Pair d = T::decode(state[w], wr[w], p, last);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          I lanes;
          if constexpr (T::kSigned)
            lanes = Lanes::dot_signed<kVnni>(d.u, q[r], init[r]);
          else
            lanes = Lanes::dot<kVnni>(init[r], d.u, q[r]);
          acc[w][r] = Lanes::fma(Lanes::to_float(lanes), Lanes::mul(d.step, scale[r]), acc[w][r]);
          if constexpr (T::kMin)
            offsets[w][r] += d.min0 * x[r].scaled_sums[2 * p] + d.min1 * x[r].scaled_sums[2 * p + 1];
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int w = 0; w < kW; ++w)
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) sums[w][r] = Lanes::sum(acc[w][r]) + offsets[w][r];
}

// The product for one type: tiles of kW weight rows (the last repeating W's last row where n is short) x
// activation row blocks, each decoded pair serving every row of a block.
template <typename T, bool kVnni>
void product(Bytes w, const BlockActivations& x, long row_bytes, int n, const float* bias, bool relu, float* y,
             long ldy) {
  const long padded = x.padded_in(), pairs = x.in / 64 + (x.in % 64 != 0), last = x.in / 32 - 1;
  for (int o = 0; o < n; o += kW) {
    Bytes wr[kW];
    for (int j = 0; j < kW; ++j) wr[j] = w + std::min(o + j, n - 1) * row_bytes;
    for_row_blocks<Lanes::kMaxRows>(0, x.rows, [&]<int R>(int r) {
      XRow rows[R];
      for (int i = 0; i < R; ++i) {
        const long row = r + i;
        rows[i] = {x.q.data() + row * padded, x.neg_sums.data() + row * (padded / 4),
                   x.lane_scales.data() + row * (padded / 4), x.scaled_sums.data() + row * (padded / 32)};
      }
      float sums[kW][R];
      tile<T, kVnni, R>(wr, rows, pairs, last, sums);
      for (int j = 0; j < std::min(kW, n - o); ++j)
        for (int i = 0; i < R; ++i) {
          float v = sums[j][i];
          if (bias) v += bias[o + j];
          y[(r + i) * ldy + o + j] = relu && 0.0f > v ? 0.0f : v;
        }
    });
  }
}

// Rows in groups (kernels/block_weights.h: group_block_rows): one lane a row, 16 rows at once. Each block's
// 64-byte runs hold 4 values of every row, multiplied with those 4 values of x broadcast to every lane; the
// int32 lanes start at -z sum q_x of the block (Q4_0: z = 8; Q5_0: 16, each nibble's fifth bit from the
// block's bit planes; Q8_0 with VNNI: 128, its grouped weights being w + 128), and the block ends with one
// conversion and one FMA by the 16 rows' d_w times d_x.
template <GgmlType kType, bool kVnni, int R>
void group_tile(Bytes group, long blocks, const XRow* x, const std::int32_t* const* neg_block_sums, F* acc) {
  constexpr bool kQ8 = kType == GgmlType::Q8_0, kFive = kType == GgmlType::Q5_0;
  constexpr long kBlockBytes = (kQ8 ? 34 : kFive ? 22 : 18) * kGroupRows, kValues = (kFive ? 6 : 2) * kGroupRows;
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r] = Lanes::zero();
  for (long b = 0; b < blocks; ++b) {
    Bytes blk = group + b * kBlockBytes;
    I s[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      s[r] = Lanes::zero_lanes();
      if constexpr (!kQ8) s[r] = Lanes::set1_lanes(neg_block_sums[r][b] * (kFive ? 16 : 8));
      if constexpr (kQ8 && kVnni) s[r] = Lanes::set1_lanes(neg_block_sums[r][b] * 128);
    }
    if constexpr (kQ8) {
#pragma GCC unroll 8
      for (int t = 0; t < 8; ++t) {
        const U w = Lanes::load64(blk + kValues + 64 * t);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) s[r] = Lanes::dot_biased_add<kVnni>(s[r], w, Lanes::broadcast4(x[r].q + 32 * b + 4 * t));
      }
    } else {
#pragma GCC unroll 4
      for (int t = 0; t < 4; ++t) {
        const U v = Lanes::load64(blk + kValues + 64 * t);
        U low = Lanes::fields(v, 0, 0, 15), high = Lanes::fields(v, 4, 4, 15);
        if constexpr (kFive) {
          low = Lanes::bits_or(low, Lanes::bits16(blk + 2 * kGroupRows + 16 * t));
          high = Lanes::bits_or(high, Lanes::bits16(blk + 2 * kGroupRows + 16 * t + 8));
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          s[r] = Lanes::dot<kVnni>(s[r], low, Lanes::broadcast4(x[r].q + 32 * b + 4 * t));
          s[r] = Lanes::dot<kVnni>(s[r], high, Lanes::broadcast4(x[r].q + 32 * b + 16 + 4 * t));
        }
      }
    }
    const F d = Lanes::halves16(blk);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = Lanes::fma(Lanes::to_float(s[r]), Lanes::mul(d, Lanes::set1(x[r].lane_scales[8 * b])), acc[r]);
  }
}

// The same for Q4_K groups: per 256-value block, the 32-byte runs c of qs give sub-blocks 2c (low nibbles) and
// 2c + 1 (high), each summed in its own int32 lanes; each sub-block ends with one conversion and two FMAs: by
// d sc_s d_x, and by -dmin m_s times d_x sum q_x (the 16 rows' scales and mins converted from their bytes).
template <bool kVnni, int R>
void k4_group_tile(Bytes group, long blocks, const XRow* x, F* acc) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r] = Lanes::zero();
  for (long b = 0; b < blocks; ++b) {
    Bytes blk = group + b * kGroupBytesQ4K;
    const F d = Lanes::halves16(blk), dmin = Lanes::halves16(blk + 32);
#pragma GCC unroll 1
    for (int c = 0; c < 4; ++c) {
      I low[R], high[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) low[r] = high[r] = Lanes::zero_lanes();
#pragma GCC unroll 8
      for (int t = 0; t < 8; ++t) {
        const U v = Lanes::load64(blk + 320 + 512 * c + 64 * t);
        const U lo = Lanes::fields(v, 0, 0, 15), hi = Lanes::fields(v, 4, 4, 15);
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          const std::int8_t* q = x[r].q + 256 * b + 64 * c + 4 * t;
          low[r] = Lanes::dot<kVnni>(low[r], lo, Lanes::broadcast4(q));
          high[r] = Lanes::dot<kVnni>(high[r], hi, Lanes::broadcast4(q + 32));
        }
      }
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const int s = 2 * c + h;
        const long sub = 8 * b + s;  // the activations' block of 32
        const F step = Lanes::mul(d, Lanes::bytes16(blk + 64 + 16 * s)), min = Lanes::mul(dmin, Lanes::bytes16(blk + 192 + 16 * s));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          acc[r] = Lanes::fma(Lanes::to_float(h ? high[r] : low[r]), Lanes::mul(step, Lanes::set1(x[r].lane_scales[8 * sub])),
                              acc[r]);
          acc[r] = Lanes::fma(min, Lanes::set1(-x[r].scaled_sums[sub]), acc[r]);
        }
      }
    }
  }
}

// The same for Q6_K groups: per half of 128 values and t, three 64-byte runs (ql, ql + 32, qh) give the 6-bit
// values 4t.. of the half's four sub-blocks i (low nibbles of ql for i = 0, 1, high for 2, 3; qh bits 2i,
// 2i + 1 above them); each 16 values (t = 0-3, 4-7) sum from -32 sum q_x in their own int32 lanes and end with
// one conversion and one FMA by d scale d_x.
template <bool kVnni, int R>
void q6k_group_tile(Bytes group, long blocks, const XRow* x, const std::int32_t* const* neg_half_sums, F* acc) {
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) acc[r] = Lanes::zero();
  for (long b = 0; b < blocks; ++b) {
    Bytes blk = group + b * kGroupBytesQ6K;
    const F d = Lanes::halves16(blk);
#pragma GCC unroll 1
    for (int h = 0; h < 2; ++h)
#pragma GCC unroll 1
      for (int half = 0; half < 2; ++half) {  // values 16 half .. 16 half + 15 of each sub-block
        I s[4][R];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r)
            s[i][r] = Lanes::set1_lanes(32 * neg_half_sums[r][16 * b + 8 * h + 2 * i + half]);
#pragma GCC unroll 4
        for (int t = 4 * half; t < 4 * half + 4; ++t) {
          Bytes run = blk + 288 + 1536 * h + 192 * t;
          const U a = Lanes::load64(run), c = Lanes::load64(run + 64), high = Lanes::load64(run + 128);
          const U u[4] = {Lanes::bits_or(Lanes::fields(a, 0, 0, 15), Lanes::shift_up(Lanes::fields(high, 0, 0, 3), 4)),
                          Lanes::bits_or(Lanes::fields(c, 0, 0, 15), Lanes::shift_up(Lanes::fields(high, 2, 2, 3), 4)),
                          Lanes::bits_or(Lanes::fields(a, 4, 4, 15), Lanes::shift_up(Lanes::fields(high, 4, 4, 3), 4)),
                          Lanes::bits_or(Lanes::fields(c, 4, 4, 15), Lanes::shift_up(Lanes::fields(high, 6, 6, 3), 4))};
#pragma GCC unroll 4
          for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
            for (int r = 0; r < R; ++r)
              s[i][r] = Lanes::dot<kVnni>(s[i][r], u[i], Lanes::broadcast4(x[r].q + 256 * b + 128 * h + 32 * i + 4 * t));
        }
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          const F step = Lanes::mul(d, Lanes::signed_bytes16(blk + 32 + 16 * (8 * h + 2 * i + half)));
          const long sub = 8 * b + 4 * h + i;  // the activations' block of 32
#pragma GCC unroll 4
          for (int r = 0; r < R; ++r)
            acc[r] = Lanes::fma(Lanes::to_float(s[i][r]), Lanes::mul(step, Lanes::set1(x[r].lane_scales[8 * sub])), acc[r]);
        }
      }
  }
}

template <bool kVnni>
void ggml_dot_groups(GgmlType type, const std::uint8_t* groups, long row_bytes, const BlockActivations& x, int c0,
                     int c1, const float* bias, bool relu, float* y, long ldy) {
  require(has_row_groups(type), "row groups: Q4_0, Q5_0, Q8_0, Q4_K or Q6_K only");
  const long padded = x.padded_in(), blocks = x.in / 32;
  for (int g = c0 / kGroupRows; g * kGroupRows < c1; ++g) {
    Bytes group = groups + static_cast<long>(g) * kGroupRows * row_bytes;
    const int lo = std::max(c0, g * kGroupRows), hi = std::min(c1, (g + 1) * kGroupRows);  // the columns wanted
    for_row_blocks<Lanes::kMaxRows>(0, x.rows, [&]<int R>(int r) {
      XRow rows[R];
      const std::int32_t* sums[R];
      const std::int32_t* half_sums[R];
      for (int i = 0; i < R; ++i) {
        const long row = r + i;
        half_sums[i] = x.neg_half_sums.data() + row * (padded / 16);
        rows[i] = {x.q.data() + row * padded, nullptr, x.lane_scales.data() + row * (padded / 4),
                   x.scaled_sums.data() + row * (padded / 32)};
        sums[i] = x.neg_block_sums.data() + row * (padded / 32);
      }
      F acc[R];
      if (type == GgmlType::Q8_0)
        group_tile<GgmlType::Q8_0, kVnni, R>(group, blocks, rows, sums, acc);
      else if (type == GgmlType::Q4_0)
        group_tile<GgmlType::Q4_0, kVnni, R>(group, blocks, rows, sums, acc);
      else if (type == GgmlType::Q5_0)
        group_tile<GgmlType::Q5_0, kVnni, R>(group, blocks, rows, sums, acc);
      else if (type == GgmlType::Q4_K)
        k4_group_tile<kVnni, R>(group, x.in / 256, rows, acc);
      else
        q6k_group_tile<kVnni, R>(group, x.in / 256, rows, half_sums, acc);
      for (int i = 0; i < R; ++i) {
        float v[kGroupRows];
        Lanes::store(acc[i], v);
        for (int c = lo; c < hi; ++c) {
          float e = v[c - g * kGroupRows];
          if (bias) e += bias[c - c0];
          y[(r + i) * ldy + c - c0] = relu && 0.0f > e ? 0.0f : e;
        }
      }
    });
  }
}

template <bool kVnni>
void ggml_dot(GgmlType type, const std::uint8_t* w, long row_bytes, const BlockActivations& x, int n, const float* bias,
              bool relu, float* y, long ldy) {
  for_ggml_type<Q8_0, Q4_0, Q4_1, Q5<false>, Q5<true>, QK<false>, QK<true>, Q6_K>(
      type, "integer block product", [&]<typename T>(T) { product<T, kVnni>(w, x, row_bytes, n, bias, relu, y, ldy); });
}

// This ISA's variants the CPU runs, best first.
std::vector<BlockDotVariant> variants() {
  std::vector<BlockDotVariant> v;
#if defined(__AVX512F__)
  if (cpu_info().avx512vnni) v.push_back({"avx512-vnni", &ggml_dot<true>, &ggml_dot_groups<true>});
#endif
  v.push_back({HEPTAPOD_ISA_NAME, &ggml_dot<false>, &ggml_dot_groups<false>});
  return v;
}

}  // namespace

void register_ggml_dot(KernelTable& t) {
  static const std::vector<BlockDotVariant> list = variants();
  t.block_dot_variants = [] { return std::span<const BlockDotVariant>(list); };
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
