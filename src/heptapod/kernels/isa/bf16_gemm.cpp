// The bfloat16 product over 64-column panels of 2-value k-groups (kernels/low_precision_gemm.h), and the
// float -> bfloat16 rounding.
//
// Each input row is rounded to bfloat16 once per call (to_bfloat16's rounding on every path). Paths:
// avx512-bf16 (vdpbf16ps: per lane, both products of a k-group added into the float sum), 6 rows x 64
// columns of accumulators; avx512 and avx2 widen the weights to float on the fly (a bfloat16 is the high half
// of a float: a 16-bit shift or a mask) and FMA, 4 rows x 64 and 3 rows x 32 columns (a lone avx2 row 64);
// baseline: scalar multiply-add. The paths sum in different orders (and vdpbf16ps treats subnormal inputs
// as zero), so results agree to float rounding, not bit for bit.
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/isa/panel_product.h"
#include "heptapod/kernels/isa/registry.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

constexpr int kPanelElements = kLowPrecisionPanel * kBf16Group;  // one k-group of a panel

// The row-block functions (dot_rows, fma_rows) share one signature: panel (kg, 64, 2) bfloat16 bits, one
// panel of kg k-groups; x (R, ldx) the block's rounded rows; out, where the panel's results go; y (R,
// out.ldy) from the block's first row and the panel's first column.

// Round to nearest even; a NaN keeps its sign and top payload bits and is made quiet.
inline std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

inline float bf16_value(std::uint16_t b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Rows [r0, r1) of x (rows, in) rounded: xb (rows, kp) as bfloat16 bits (E = uint16_t) or as the floats they
// stand for (E = float), zeros past in.
template <typename E>
void round_rows(const float* x, int in, long kp, int r0, int r1, E* xb) {
  for (int r = r0; r < r1; ++r) {
    const float* xr = x + static_cast<long>(r) * in;
    E* out = xb + r * kp;
    for (int i = 0; i < in; ++i) {
      const std::uint16_t b = bf16_bits(xr[i]);
      if constexpr (std::is_same_v<E, float>)
        out[i] = bf16_value(b);
      else
        out[i] = b;
    }
    std::fill(out + in, out + kp, E(0));
  }
}

#if defined(__AVX512F__)

// R rows (bfloat16 rows ldx apart) x one panel, by vdpbf16ps.
template <int R>
__attribute__((target("avx512bf16"))) void dot_rows(const std::uint16_t* panel, int kg, const std::uint16_t* x,
                                                    long ldx, const PanelOut& out, float* y) {
  __m512 c[R][4];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) c[r][j] = _mm512_setzero_ps();
  for (int g = 0; g < kg; ++g) {
    const std::uint16_t* wg = panel + static_cast<long>(g) * kPanelElements;
    const __m512i w0 = _mm512_loadu_si512(wg), w1 = _mm512_loadu_si512(wg + 32), w2 = _mm512_loadu_si512(wg + 64),
                  w3 = _mm512_loadu_si512(wg + 96);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      std::int32_t x2;
      std::memcpy(&x2, x + r * ldx + 2 * g, 4);
      const __m512bh xb = (__m512bh)_mm512_set1_epi32(x2);
      c[r][0] = _mm512_dpbf16_ps(c[r][0], xb, (__m512bh)w0);
      c[r][1] = _mm512_dpbf16_ps(c[r][1], xb, (__m512bh)w1);
      c[r][2] = _mm512_dpbf16_ps(c[r][2], xb, (__m512bh)w2);
      c[r][3] = _mm512_dpbf16_ps(c[r][3], xb, (__m512bh)w3);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) store16(c[r][j], 16 * j, out, y + r * out.ldy);
}

// R rows (rounded floats ldx apart) x one panel: each 64-byte load is 16 columns x 2 k, widened to two float
// vectors (k even: shifted up; k odd: the high half masked).
template <int R>
void fma_rows(const std::uint16_t* panel, int kg, const float* x, long ldx, const PanelOut& out, float* y) {
  __m512 c[R][4];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) c[r][j] = _mm512_setzero_ps();
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
  for (int g = 0; g < kg; ++g) {
    const std::uint16_t* wg = panel + static_cast<long>(g) * kPanelElements;
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      const __m512i w = _mm512_loadu_si512(wg + 32 * j);
      const __m512 even = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, w, 16)),
                   odd = _mm512_castsi512_ps(_mm512_and_si512(w, high));
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        const float* xr = x + r * ldx + 2 * g;
        c[r][j] = _mm512_fmadd_ps(_mm512_set1_ps(xr[0]), even, c[r][j]);
        c[r][j] = _mm512_fmadd_ps(_mm512_set1_ps(xr[1]), odd, c[r][j]);
      }
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) store16(c[r][j], 16 * j, out, y + r * out.ldy);
}

// 4 rows for the FMA path: with 6, GCC holds all 12 broadcasts in registers and spills accumulators.
constexpr int kDotRows = 6, kFmaRows = 4;

#elif defined(__AVX2__)

// R rows (rounded floats ldx apart) x one panel, 32 columns a pass: each 32-byte load is 8 columns x 2 k,
// widened as in the avx512 build.
template <int R>
void fma_rows(const std::uint16_t* panel, int kg, const float* x, long ldx, const PanelOut& out, float* y) {
  constexpr int kLoads = R == 1 ? 8 : 4;  // one row takes the whole panel in one pass
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  for (int h = 0; h < 8; h += kLoads) {
    __m256 c[R][kLoads];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j) c[r][j] = _mm256_setzero_ps();
    for (int g = 0; g < kg; ++g) {
      const std::uint16_t* wg = panel + static_cast<long>(g) * kPanelElements + 16 * h;
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j) {
        const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wg + 16 * j));
        const __m256 even = _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)),
                     odd = _mm256_castsi256_ps(_mm256_and_si256(w, high));
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          const float* xr = x + r * ldx + 2 * g;
          c[r][j] = _mm256_fmadd_ps(_mm256_set1_ps(xr[0]), even, c[r][j]);
          c[r][j] = _mm256_fmadd_ps(_mm256_set1_ps(xr[1]), odd, c[r][j]);
        }
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int j = 0; j < kLoads; ++j) store8(c[r][j], 8 * (h + j), out, y + r * out.ldy);
  }
}

constexpr int kFmaRows = 3;

#else

// One row (rounded floats) x one panel, scalar.
template <int R>
void fma_rows(const std::uint16_t* panel, int kg, const float* x, long, const PanelOut& out, float* y) {
  float acc[kLowPrecisionPanel] = {};
  for (int g = 0; g < kg; ++g) {
    const std::uint16_t* wg = panel + static_cast<long>(g) * kPanelElements;
    const float x0 = x[2 * g], x1 = x[2 * g + 1];
    for (int c = 0; c < kLowPrecisionPanel; ++c) {
      acc[c] += x0 * bf16_value(wg[2 * c]);
      acc[c] += x1 * bf16_value(wg[2 * c + 1]);
    }
  }
  for (int c = 0; c < kLowPrecisionPanel; ++c) store1(acc[c], c, out, y);
}

constexpr int kFmaRows = 1;

#endif

// The product with x rounded into E rows, each row block handed to rows<R>(panel, k_groups, x rows, ldx,
// out, y).
template <typename E, int kRows, typename Rows>
void product(const Bf16Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y,
             Rows&& block) {
  const long kp = static_cast<long>(w.k_groups) * kBf16Group, panel_elements = kp * kLowPrecisionPanel;
  thread_local std::vector<E> rounded;
  rounded.resize(static_cast<std::size_t>(rows) * kp);
  E* xb = rounded.data();  // (rows, kp)
  for_panel_units(
      rows, n0, n, panel_elements * 2, w.in, bias, relu, y,
      [&](int r0, int r1) { round_rows(x, w.in, kp, r0, r1, xb); },
      [&](int p, int r0, int r1, const PanelOut& out) {
        const std::uint16_t* panel = w.values + p * panel_elements;
        for_row_blocks<kRows>(r0, r1, [&]<int R>(int r) {
          block.template operator()<R>(panel, w.k_groups, xb + r * kp, kp, out,
                                       out.y + static_cast<long>(r - r0) * out.ldy);
        });
      });
}

#if defined(__AVX512F__)
void bf16_dot(const Bf16Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  product<std::uint16_t, kDotRows>(w, x, rows, n0, n, bias, relu, y, []<int R>(auto... args) { dot_rows<R>(args...); });
}
#endif

void bf16_fma(const Bf16Panels& w, const float* x, int rows, int n0, int n, const float* bias, bool relu, float* y) {
  product<float, kFmaRows>(w, x, rows, n0, n, bias, relu, y, []<int R>(auto... args) { fma_rows<R>(args...); });
}

// This ISA's variants the CPU runs, best first.
std::vector<Bf16Variant> variants() {
  std::vector<Bf16Variant> v;
#if defined(__AVX512F__)
  if (cpu_info().avx512bf16) v.push_back({"avx512-bf16", &bf16_dot});
#endif
  v.push_back({HEPTAPOD_ISA_NAME, &bf16_fma});
  return v;
}

void convert(const float* x, long n, std::uint16_t* out) {
  for (long i = 0; i < n; ++i) out[i] = bf16_bits(x[i]);
}

}  // namespace

void register_bf16_gemm(KernelTable& t) {
  static const std::vector<Bf16Variant> list = variants();
  t.bf16_variants = [] { return std::span<const Bf16Variant>(list); };
  t.bf16_gemm = list.front().run;
  t.to_bfloat16 = &convert;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
