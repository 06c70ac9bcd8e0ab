// Transpose kernels.
#include "heptapod/kernels/transpose.h"

#include <algorithm>
#include <type_traits>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

template <typename T>
void transpose_plain(const T* in, int rows, int cols, long ld_in, T* out, long ld_out) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) out[j * ld_out + i] = in[i * ld_in + j];
}

#ifdef HEPTAPOD_HAVE_AVX2
// Rows [0, rows) x columns [0, cols) of in -> out, transposed, rows and cols <= 8: an 8 x 8 register transpose
// whose loads and stores are masked at a ragged edge (Full: all 8 x 8, no masks).
template <bool Full>
inline void transpose8x8(const float* in, long ld_in, float* out, long ld_out, int rows = 8, int cols = 8) {
  __m256 r[8], t[8];
  const __m256i load_mask = simd::lane_mask(cols), store_mask = simd::lane_mask(rows);
  for (int k = 0; k < 8; ++k)
    r[k] = Full ? _mm256_loadu_ps(in + k * ld_in)
                : k < rows ? _mm256_maskload_ps(in + k * ld_in, load_mask) : _mm256_setzero_ps();
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    r[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  auto store = [&](int k, __m256 v) {  // out row k: column k of in
    if (Full)
      _mm256_storeu_ps(out + k * ld_out, v);
    else if (k < cols)
      _mm256_maskstore_ps(out + k * ld_out, store_mask, v);
  };
  for (int k = 0; k < 4; ++k) {
    store(k, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
    store(k + 4, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
  }
}

#if defined(__AVX512F__)
// GCC 12 reports the unused pass-through operand inside its own _mm512_unpack*_ps as uninitialised.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// The same 16 x 16 at a time with AVX-512: 32-bit then 64-bit interleaves within 128-bit lanes, then two
// rounds of 128-bit lane shuffles (rows [0, rows) x columns [0, cols), both <= 16; Full: no masks).
template <bool Full>
inline void transpose16x16(const float* in, long ld_in, float* out, long ld_out, int rows = 16, int cols = 16) {
  const __mmask16 load_mask = static_cast<__mmask16>((1u << cols) - 1);
  const __mmask16 store_mask = static_cast<__mmask16>((1u << rows) - 1);
  __m512 r[16], t[16];
  for (int k = 0; k < 16; ++k)
    r[k] = Full ? _mm512_loadu_ps(in + k * ld_in)
                : k < rows ? _mm512_maskz_loadu_ps(load_mask, in + k * ld_in) : _mm512_setzero_ps();
  for (int k = 0; k < 16; k += 2) {  // per 128-bit lane j: rows k, k+1 of columns 4j, 4j+1 | 4j+2, 4j+3
    t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {  // r[k + c], lane j: rows k..k+3 of column 4j + c
    auto pd = [](__m512 v) { return _mm512_castps_pd(v); };
    r[k] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[k]), pd(t[k + 2])));
    r[k + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[k]), pd(t[k + 2])));
    r[k + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[k + 1]), pd(t[k + 3])));
    r[k + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[k + 1]), pd(t[k + 3])));
  }
  auto store = [&](int k, __m512 v) {  // out row k: column k of in
    if (Full)
      _mm512_storeu_ps(out + k * ld_out, v);
    else if (k < cols)
      _mm512_mask_storeu_ps(out + k * ld_out, store_mask, v);
  };
  for (int c = 0; c < 4; ++c) {  // column 4j + c: lane q of its output row is lane j of r[4q + c]
    const __m512 v0 = _mm512_shuffle_f32x4(r[c], r[4 + c], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 v1 = _mm512_shuffle_f32x4(r[c], r[4 + c], _MM_SHUFFLE(3, 1, 3, 1));
    const __m512 v2 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 v3 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], _MM_SHUFFLE(3, 1, 3, 1));
    store(c, _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(2, 0, 2, 0)));
    store(4 + c, _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(2, 0, 2, 0)));
    store(8 + c, _mm512_shuffle_f32x4(v0, v2, _MM_SHUFFLE(3, 1, 3, 1)));
    store(12 + c, _mm512_shuffle_f32x4(v1, v3, _MM_SHUFFLE(3, 1, 3, 1)));
  }
}
#pragma GCC diagnostic pop
#endif

// The widest register transpose the build targets.
#if defined(__AVX512F__)
constexpr int kBlock = 16;
template <bool Full>
void transpose_block(const float* in, long ld_in, float* out, long ld_out, int rows, int cols) {
  transpose16x16<Full>(in, ld_in, out, ld_out, rows, cols);
}
#else
constexpr int kBlock = 8;
template <bool Full>
void transpose_block(const float* in, long ld_in, float* out, long ld_out, int rows, int cols) {
  transpose8x8<Full>(in, ld_in, out, ld_out, rows, cols);
}
#endif

void transpose_blocks(const float* in, int rows, int cols, long ld_in, float* out, long ld_out) {
  for (int i = 0; i < rows; i += kBlock)
    for (int j = 0; j < cols; j += kBlock) {
      const float* src = in + i * ld_in + j;
      float* dst = out + j * ld_out + i;
      const int r = std::min(kBlock, rows - i), c = std::min(kBlock, cols - j);
      if (r == kBlock && c == kBlock)
        transpose_block<true>(src, ld_in, dst, ld_out, r, c);
      else
        transpose_block<false>(src, ld_in, dst, ld_out, r, c);
    }
}
#endif

}  // namespace

template <typename T>
void transpose(const T* in, int rows, int cols, int ld_in, T* out, int ld_out) {
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (std::is_same_v<T, float>) {
    transpose_blocks(in, rows, cols, ld_in, out, ld_out);
    return;
  }
#endif
  transpose_plain(in, rows, cols, ld_in, out, ld_out);
}

void register_transpose(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, transpose);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
