// The int8 product over 64-column panels of 4-value k-groups (kernels/low_precision_gemm.h).
//
// Each input row r is quantized once per call: a_r = max |x_r| / 127, q = round-to-nearest-even(x / a_r) in
// [-127, 127] (zeros for an all-zero row, or for one whose a_r underflows; a non-finite row gets a_r = NaN
// and zeros, so its outputs are NaN). The sums acc[r][o] = sum_i q[r][i] W[o][i] are exact int32 on every
// path, and every path finishes the same way, one rounding per operation and none fused:
// y = float(acc) * (a_r * scale[o]) (+ bias[o]) (then ReLU as 0 > v ? 0 : v, NaN kept). The results are
// therefore the same bits on every path, whatever the batch or the threads.
//
// Paths: avx512-vnni (vpdpbusd, u8 x s8: q + 128 as u8, minus the panel's precomputed 128 * sum_i W[o][i]),
// 6 rows x 64 columns of accumulators; avx512 and avx2 widen both operands to int16 and use vpmaddwd (two
// exact products and their sum per lane; vpmaddubsw would saturate), 4 rows x 32 and 3 rows x 16 columns
// (a lone row twice the columns, so it passes over streaming weights half as often);
// baseline: scalar int32.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/isa/panel_product.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

constexpr int kPanelBytes = kLowPrecisionPanel * kInt8Group;  // one k-group of a panel

// The row-block functions (vnni_rows, wide_rows, scalar_rows) share one signature: panel (kg, 64, 4) int8,
// one panel of kg k-groups; q (R, ldq) the block's quantized rows; a (R) their scales; scales (64) and comp
// (64) the panel's column scales and compensation; out, where the panel's results go; y (R, out.ldy) from
// the block's first row and the panel's first column. The finish functions take one row's y the same way.

// The largest |x[i]| of a row (n), and whether any is infinite or NaN (then the largest is not used). Exact
// in any order, so eight lanes at a time give the scalar loop's value.
inline float largest_magnitude(const float* x, int n, int& bad) {
  float m = 0.0f;
  bad = 0;
  int i = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  const __m256 sign = _mm256_set1_ps(-0.0f), largest_finite = _mm256_set1_ps(FLT_MAX);
  __m256 mv = _mm256_setzero_ps(), not_finite = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_andnot_ps(sign, _mm256_loadu_ps(x + i));
    mv = _mm256_max_ps(mv, v);
    not_finite = _mm256_or_ps(not_finite, _mm256_cmp_ps(v, largest_finite, _CMP_NLE_UQ));
  }
  m = simd::horizontal_max(mv);
  bad = _mm256_movemask_ps(not_finite) != 0;
#endif
  for (; i < n; ++i) {
    const float v = std::fabs(x[i]);
    m = v > m ? v : m;
    bad |= !(v <= FLT_MAX);
  }
  return m;
}

// Rows [r0, r1) of x (rows, in) quantized: q (rows, kp) as Q, value + kOffset (zero values past in), a
// (rows) the row scales.
template <typename Q, int kOffset>
void quantize_rows(const float* x, int in, long kp, int r0, int r1, Q* q, float* a) {
  for (int r = r0; r < r1; ++r) {
    const float* xr = x + static_cast<long>(r) * in;
    Q* qr = q + r * kp;
    int bad = 0;
    const float m = largest_magnitude(xr, in, bad);
    const float scale = bad ? NAN : m / 127.0f;
    std::fill(qr, qr + kp, static_cast<Q>(kOffset));
    a[r] = scale;
    if (bad || scale == 0.0f) continue;
    for (int i = 0; i < in; ++i) {
      // (v + 1.5 * 2^23) - 1.5 * 2^23 rounds |v| < 2^22 to the nearest integer, ties to even.
      const float v = std::clamp(xr[i] / scale, -127.0f, 127.0f);
      qr[i] = static_cast<Q>(static_cast<int>((v + 12582912.0f) - 12582912.0f) + kOffset);
    }
  }
}

#if defined(__AVX512F__)

// The 16 sums from column c of a panel on, finished: float(acc) * (a_r * scales) (+ bias) (ReLU).
inline void finish16(__m512i acc, int c, float a_r, const float* scales, const PanelOut& out, float* y) {
  store16(_mm512_mul_ps(_mm512_maskz_cvtepi32_ps(0xffff, acc),
                        _mm512_mul_ps(_mm512_set1_ps(a_r), _mm512_loadu_ps(scales + c))),
          c, out, y);
}

// c + the u8 x s8 dot products of each lane's 4 bytes (vpdpbusd). Written as asm: GCC 12 keeps the
// intrinsic's accumulators in memory (a store and two register copies per instruction).
__attribute__((target("avx512vnni"))) inline __m512i dpbusd(__m512i c, __m512i u8, __m512i s8) {
  __asm__("vpdpbusd %2, %1, %0" : "+v"(c) : "v"(u8), "v"(s8));
  return c;
}

// R rows (q rows ldq apart, u8 = q + 128) x one panel, by vpdpbusd.
template <int R>
__attribute__((target("avx512vnni"))) void vnni_rows(const std::int8_t* panel, int kg, const std::uint8_t* q, long ldq,
                                                     const float* a, const float* scales, const std::int32_t* comp,
                                                     const PanelOut& out, float* y) {
  __m512i c[R][4];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) c[r][j] = _mm512_setzero_si512();
  for (int g = 0; g < kg; ++g) {
    const std::int8_t* wg = panel + static_cast<long>(g) * kPanelBytes;
    const __m512i w0 = _mm512_loadu_si512(wg), w1 = _mm512_loadu_si512(wg + 64), w2 = _mm512_loadu_si512(wg + 128),
                  w3 = _mm512_loadu_si512(wg + 192);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      std::int32_t x4;
      std::memcpy(&x4, q + r * ldq + 4 * g, 4);
      const __m512i xb = _mm512_set1_epi32(x4);
      c[r][0] = dpbusd(c[r][0], xb, w0);
      c[r][1] = dpbusd(c[r][1], xb, w1);
      c[r][2] = dpbusd(c[r][2], xb, w2);
      c[r][3] = dpbusd(c[r][3], xb, w3);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j)
      finish16(_mm512_sub_epi32(c[r][j], _mm512_loadu_si512(comp + 16 * j)), 16 * j, a[r], scales, out,
               y + r * out.ldy);
}

// R rows (int16 q rows ldq apart) x one panel, a half (32 columns) a pass, or the whole panel for one row
// (fewer passes over streaming weights), both operands widened to int16: vpmaddwd on a column's groups gives
// two lanes per column (k 0-1 and 2-3), added together at the end.
template <int R>
void wide_rows(const std::int8_t* panel, int kg, const std::int16_t* q, long ldq, const float* a, const float* scales,
               const std::int32_t*, const PanelOut& out, float* y) {
  constexpr int kLoads = R == 1 ? 8 : 4;  // 32-byte loads (8 columns x 4 k) a pass
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
  for (int h = 0; h < 8; h += kLoads) {
    __m512i c[R][kLoads];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j) c[r][j] = _mm512_setzero_si512();
    for (int g = 0; g < kg; ++g) {
      const std::int8_t* wg = panel + static_cast<long>(g) * kPanelBytes + 32 * h;
      __m512i w[kLoads];
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j)
        w[j] = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + 32 * j)));
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        long long x4;
        std::memcpy(&x4, q + r * ldq + 4 * g, 8);
        const __m512i xb = _mm512_set1_epi64(x4);
#pragma GCC unroll 8
        for (int j = 0; j < kLoads; ++j) c[r][j] = _mm512_add_epi32(c[r][j], _mm512_madd_epi16(w[j], xb));
      }
    }
    // c[r][2s] holds columns 16s..16s+7 of the pass as lane pairs, c[r][2s+1] columns 16s+8..16s+15.
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int s = 0; s < kLoads / 2; ++s) {
        const __m512i lo = c[r][2 * s], hi = c[r][2 * s + 1];
        const __m512i sum =
            _mm512_add_epi32(_mm512_permutex2var_epi32(lo, even, hi), _mm512_permutex2var_epi32(lo, odd, hi));
        finish16(sum, 8 * h + 16 * s, a[r], scales, out, y + r * out.ldy);
      }
  }
}

constexpr int kVnniRows = 6, kWideRows = 4;

#elif defined(__AVX2__)

// 8 sums from column c of a panel on, finished as finish16 in the avx512 build.
inline void finish8(__m256i acc, int c, float a_r, const float* scales, const PanelOut& out, float* y) {
  store8(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), _mm256_mul_ps(_mm256_set1_ps(a_r), _mm256_loadu_ps(scales + c))), c,
         out, y);
}

// R rows (int16 q rows ldq apart) x kS 16-column sub-tiles of a panel at a time, by vpmaddwd: each 16-byte
// load widens to 4 columns x 4 k, two lanes per column, added pairwise at the end. One row takes two
// sub-tiles a pass (8 accumulators): fewer passes over the panel when the weights stream from memory.
template <int R>
void wide_rows(const std::int8_t* panel, int kg, const std::int16_t* q, long ldq, const float* a, const float* scales,
               const std::int32_t*, const PanelOut& out, float* y) {
  constexpr int kS = R == 1 ? 2 : 1, kLoads = 4 * kS;
  for (int s = 0; s < 4; s += kS) {
    __m256i c[R][kLoads];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j) c[r][j] = _mm256_setzero_si256();
    for (int g = 0; g < kg; ++g) {
      const std::int8_t* wg = panel + static_cast<long>(g) * kPanelBytes + 64 * s;
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j) {
        const __m256i w = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(wg + 16 * j)));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          long long x4;
          std::memcpy(&x4, q + r * ldq + 4 * g, 8);
          c[r][j] = _mm256_add_epi32(c[r][j], _mm256_madd_epi16(w, _mm256_set1_epi64x(x4)));
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int j = 0; j < kLoads; j += 2) {
        // hadd gives columns (0 1 4 5 | 2 3 6 7) of a pair of loads; the permute puts them in order.
        const __m256i sums = _mm256_permute4x64_epi64(_mm256_hadd_epi32(c[r][j], c[r][j + 1]), 0xD8);
        finish8(sums, 16 * s + 4 * j, a[r], scales, out, y + r * out.ldy);
      }
  }
}

constexpr int kWideRows = 3;

#else

// One row x one panel in scalar int32.
template <int R>
void scalar_rows(const std::int8_t* panel, int kg, const std::int8_t* q, long, const float* a, const float* scales,
                 const std::int32_t*, const PanelOut& out, float* y) {
  std::int32_t acc[kLowPrecisionPanel] = {};
  for (int g = 0; g < kg; ++g) {
    const std::int8_t* wg = panel + static_cast<long>(g) * kPanelBytes;
    const std::int8_t* qg = q + 4 * g;
    for (int c = 0; c < kLowPrecisionPanel; ++c)
      for (int j = 0; j < kInt8Group; ++j) acc[c] += qg[j] * wg[c * kInt8Group + j];
  }
  for (int c = 0; c < out.width; ++c) store1(static_cast<float>(acc[c]) * (a[0] * scales[c]), c, out, y);
}

#endif

// The product with activations quantized as Q (+ kOffset), each row block handed to rows<R>(panel, k_groups,
// q rows, ldq, row scales, the panel's scales and compensation, out, y).
template <typename Q, int kOffset, int kRows, typename Rows>
void product(const Int8Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y,
             Rows&& block) {
  const long kp = static_cast<long>(w.k_groups) * kInt8Group, panel_bytes = kp * kLowPrecisionPanel;
  thread_local std::vector<Q> q_rows;
  thread_local std::vector<float> scale_rows;
  q_rows.resize(static_cast<std::size_t>(rows) * kp);
  scale_rows.resize(rows);
  Q* q = q_rows.data();          // (rows, kp)
  float* a = scale_rows.data();  // (rows)
  for_panel_units(
      rows, n0, n, panel_bytes, w.in, bias, relu, y,
      [&](int r0, int r1) { quantize_rows<Q, kOffset>(x, w.in, kp, r0, r1, q, a); },
      [&](int p, int r0, int r1, const PanelOut& out) {
        const std::int8_t* panel = w.values + p * panel_bytes;
        const long c = static_cast<long>(p) * kLowPrecisionPanel;
        for_row_blocks<kRows>(r0, r1, [&]<int R>(int r) {
          block.template operator()<R>(panel, w.k_groups, q + r * kp, kp, a + r, w.scales + c, w.compensation + c, out,
                                       out.y + static_cast<long>(r - r0) * out.ldy);
        });
      });
}

#if defined(__AVX512F__)
void int8_vnni(const Int8Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  product<std::uint8_t, 128, kVnniRows>(w, x, rows, n0, n, bias, relu, y,
                                        []<int R>(auto... args) { vnni_rows<R>(args...); });
}
#endif

#if defined(__AVX2__)
void int8_plain(const Int8Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  product<std::int16_t, 0, kWideRows>(w, x, rows, n0, n, bias, relu, y,
                                      []<int R>(auto... args) { wide_rows<R>(args...); });
}
#else
void int8_plain(const Int8Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  product<std::int8_t, 0, 1>(w, x, rows, n0, n, bias, relu, y, []<int R>(auto... args) { scalar_rows<R>(args...); });
}
#endif

// This ISA's variants the CPU runs, best first.
std::vector<Int8Variant> variants() {
  std::vector<Int8Variant> v;
#if defined(__AVX512F__)
  if (cpu_info().avx512vnni) v.push_back({"avx512-vnni", &int8_vnni});
#endif
  v.push_back({HEPTAPOD_ISA_NAME, &int8_plain});
  return v;
}

}  // namespace

void register_int8_gemm(KernelTable& t) {
  static const std::vector<Int8Variant> list = variants();
  t.int8_variants = [] { return std::span<const Int8Variant>(list); };
  t.int8_gemm = list.front().run;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
