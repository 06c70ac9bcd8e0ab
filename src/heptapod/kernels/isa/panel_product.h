// The work split shared by the low-precision products (isa/int8_gemm.cpp, isa/bf16_gemm.cpp): the input
// rows are converted once per call (quantized or rounded, split over the threads by rows), then the
// product runs as units of (panel of 64 columns, chunk of rows), panel-major, each thread taking one
// contiguous run of units. A thread thus streams its own run of panels from memory once, and with many rows
// it works a panel's row chunks one after another while the panel sits in L1 or L2.
#pragma once

#include <omp.h>

#include <algorithm>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "heptapod/kernels/low_precision_gemm.h"
#include "heptapod/kernels/parallel.h"

#ifndef HEPTAPOD_ISA
#error "kernels/isa/ headers belong to kernel sources compiled once per ISA (src/CMakeLists.txt)"
#endif

namespace heptapod::kernels::HEPTAPOD_ISA {

// Rows per unit: a 64-column int8 panel of K = 512 (32 KB) is read from cache once per chunk.
inline constexpr int kProductRowChunk = 96;

// Where a panel's results go: y (rows, ldy) from the panel's first column, `width` of its 64 columns inside
// the requested range; bias (64) for the panel's columns or null.
struct PanelOut {
  float* y = nullptr;
  long ldy = 0;
  int width = 0;
  const float* bias = nullptr;
  bool relu = false;
};

// convert(r0, r1) for all rows, then panel(p, r0, r1, out) for every unit of panels [n0 / 64, ceil((n0 + n) /
// 64)) and row chunks, with y (rows, n) and bias (the full out, or null). `weight_bytes` is one panel's size.
template <typename Convert, typename Panel>
void for_panel_units(int rows, int n0, int n, long weight_bytes, long k, const float* bias, bool relu, float* y,
                     Convert&& convert, Panel&& panel) {
  if (rows <= 0) return;
  const int p0 = n0 / kLowPrecisionPanel, p1 = (n0 + n + kLowPrecisionPanel - 1) / kLowPrecisionPanel;
  const int chunks = (rows + kProductRowChunk - 1) / kProductRowChunk;
  const long units = static_cast<long>(p1 - p0) * chunks;
  // One thread below ~128 KB of weights and little arithmetic: forking would cost more than it saves.
  const bool parallel =
      (p1 - p0) * weight_bytes >= (1L << 17) || static_cast<long>(rows) * n * k >= 64 * kParallelMinWork * 16;
  const int threads = parallel ? static_cast<int>(std::min<long>(omp_get_max_threads(), units)) : 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
#pragma omp for schedule(static)
    for (int r0 = 0; r0 < rows; r0 += 16) convert(r0, std::min(rows, r0 + 16));
    for (long u = units * t / nt; u < units * (t + 1) / nt; ++u) {
      const int p = p0 + static_cast<int>(u / chunks), chunk = static_cast<int>(u % chunks);
      const int r0 = chunk * kProductRowChunk, r1 = std::min(rows, r0 + kProductRowChunk);
      const int c0 = p * kLowPrecisionPanel - n0;
      PanelOut out{y + static_cast<long>(r0) * n + c0, n, std::min(kLowPrecisionPanel, n - c0),
                   bias ? bias + p * kLowPrecisionPanel : nullptr, relu};
      panel(p, r0, r1, out);
    }
  }
}

// Storing a finished value of column c of a panel's row y (64: the panel's columns of one output row):
// + bias, then ReLU as 0 > v ? 0 : v (NaN kept), only the columns inside out.width. The empty asm makes v final before
// the bias sum: the compiler may not fuse a caller's product into it, so every ISA rounds the same operations.
#if defined(__AVX512F__)
inline void store16(__m512 v, int c, const PanelOut& out, float* y) {
  const int lanes = std::clamp(out.width - c, 0, 16);
  if (lanes == 0) return;
  const __mmask16 m = static_cast<__mmask16>((1u << lanes) - 1u);
  if (out.bias) {
    __asm__("" : "+v"(v));
    v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, out.bias + c));
  }
  // (the maskz forms here and in the kernels: the unmasked ones warn in GCC 12)
  if (out.relu) v = _mm512_maskz_max_ps(0xffff, _mm512_setzero_ps(), v);
  _mm512_mask_storeu_ps(y + c, m, v);
}
#endif
#if defined(__AVX2__)
inline void store8(__m256 v, int c, const PanelOut& out, float* y) {
  const int lanes = std::clamp(out.width - c, 0, 8);
  if (lanes == 0) return;
  const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  if (out.bias) {
    __asm__("" : "+x"(v));
    v = _mm256_add_ps(v, _mm256_maskload_ps(out.bias + c, m));
  }
  if (out.relu) v = _mm256_max_ps(_mm256_setzero_ps(), v);
  _mm256_maskstore_ps(y + c, m, v);
}
#endif
inline void store1(float v, int c, const PanelOut& out, float* y) {
  if (c >= out.width) return;
  if (out.bias) v += out.bias[c];
  y[c] = out.relu && 0.0f > v ? 0.0f : v;
}

// fn.operator()<R>(r) for rows [r, r + R) of [r0, r1): blocks of kRows, the last one smaller (R from 1 to
// kRows, each a register block of its own).
template <int R, typename Fn>
void run_row_block(int m, int r, Fn& fn) {
  if constexpr (R > 1)
    if (m < R) return run_row_block<R - 1>(m, r, fn);
  fn.template operator()<R>(r);
}
template <int kRows, typename Fn>
void for_row_blocks(int r0, int r1, Fn&& fn) {
  for (int r = r0; r < r1; r += kRows) run_row_block<kRows>(std::min(kRows, r1 - r), r, fn);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
