// Transpose kernels.
#include "heptapod/kernels/transpose.h"

#include <algorithm>
#include <type_traits>

#include "heptapod/kernels/vector_math.h"

namespace heptapod::kernels {

namespace {

template <typename T>
void transpose_plain(const T* in, int rows, int cols, long ld_in, T* out, long ld_out) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) out[j * ld_out + i] = in[i * ld_in + j];
}

#ifdef HEPTAPOD_HAVE_AVX2
// Lanes [0, n) of eight set.
inline __m256i lane_mask(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// Rows [0, rows) x columns [0, cols) of in -> out, transposed, rows and cols <= 8: an 8 x 8 register transpose
// whose loads and stores are masked at a ragged edge (Full: all 8 x 8, no masks).
template <bool Full>
inline void transpose8x8(const float* in, long ld_in, float* out, long ld_out, int rows = 8, int cols = 8) {
  __m256 r[8], t[8];
  const __m256i load_mask = lane_mask(cols), store_mask = lane_mask(rows);
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

void transpose_blocks(const float* in, int rows, int cols, long ld_in, float* out, long ld_out) {
  for (int i = 0; i < rows; i += 8)
    for (int j = 0; j < cols; j += 8) {
      const float* src = in + i * ld_in + j;
      float* dst = out + j * ld_out + i;
      if (i + 8 <= rows && j + 8 <= cols)
        transpose8x8<true>(src, ld_in, dst, ld_out);
      else
        transpose8x8<false>(src, ld_in, dst, ld_out, std::min(8, rows - i), std::min(8, cols - j));
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

template void transpose<float>(const float*, int, int, int, float*, int);
template void transpose<double>(const double*, int, int, int, double*, int);

}  // namespace heptapod::kernels
