// Transpose kernels.
#include "heptapod/kernels/transpose.h"

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
// Rows [0, 8) x columns [0, 8) of in -> out, transposed.
inline void transpose8x8(const float* in, long ld_in, float* out, long ld_out) {
  __m256 r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(in + k * ld_in);
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
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(out + k * ld_out, _mm256_permute2f128_ps(r[k], r[k + 4], 0x20));
    _mm256_storeu_ps(out + (k + 4) * ld_out, _mm256_permute2f128_ps(r[k], r[k + 4], 0x31));
  }
}

void transpose_blocks(const float* in, int rows, int cols, long ld_in, float* out, long ld_out) {
  const int rows8 = rows / 8 * 8, cols8 = cols / 8 * 8;
  for (int i = 0; i < rows8; i += 8)
    for (int j = 0; j < cols8; j += 8) transpose8x8(in + i * ld_in + j, ld_in, out + j * ld_out + i, ld_out);
  transpose_plain(in + cols8, rows8, cols - cols8, ld_in, out + cols8 * ld_out, ld_out);  // right edge
  transpose_plain(in + rows8 * ld_in, rows - rows8, cols, ld_in, out + rows8, ld_out);    // bottom edge
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
