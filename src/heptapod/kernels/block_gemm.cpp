// Small-block GEMM: transposes into thread-local buffers, then C = A B with register tiles.
#include "heptapod/kernels/block_gemm.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "heptapod/kernels/transpose.h"
#include "heptapod/kernels/vector_math.h"

namespace heptapod::kernels {

namespace {

// in: (rows, cols), leading dimension ld -> out: (cols, rows), dense.
template <typename T>
const T* transposed(const T* in, int rows, int cols, int ld, std::vector<T>& out) {
  out.resize(static_cast<std::size_t>(rows) * cols);
  transpose(in, rows, cols, ld, out.data(), rows);
  return out.data();
}

// C (M, N) = A (M, K) B (K, N), all row-major: plain loops the compiler vectorises along N.
template <typename T>
void product(int M, int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc) {
  for (int i = 0; i < M; ++i) {
    T* c = C + static_cast<long>(i) * ldc;
    std::fill_n(c, N, T(0));
    for (int k = 0; k < K; ++k) {
      const T a = A[static_cast<long>(i) * lda + k];
      const T* b = B + static_cast<long>(k) * ldb;
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

#ifdef HEPTAPOD_HAVE_AVX2

// Lanes [0, n) of eight set.
inline __m256i lane_mask(int n) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), index);
}

// One tile: rows [0, MR) and columns [0, n) of C, n <= 16, every step of K in registers. The accumulators
// are named variables, not an array: GCC keeps an array of vectors in memory and stores it every step.
template <int MR, bool Full>
void tile(int n, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  static_assert(MR >= 1 && MR <= 6);
  const __m256i m0 = lane_mask(n), m1 = lane_mask(n - 8);
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00,
         c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  const float* a = A;
  const long ld = lda;
  for (int k = 0; k < K; ++k, ++a) {
    const float* b = B + static_cast<long>(k) * ldb;
    const __m256 b0 = Full ? _mm256_loadu_ps(b) : _mm256_maskload_ps(b, m0);
    const __m256 b1 = Full ? _mm256_loadu_ps(b + 8) : _mm256_maskload_ps(b + 8, m1);
    auto step = [&](const float* x, __m256& lo, __m256& hi) {
      const __m256 v = _mm256_broadcast_ss(x);
      lo = _mm256_fmadd_ps(v, b0, lo);
      hi = _mm256_fmadd_ps(v, b1, hi);
    };
    step(a, c00, c01);
    if constexpr (MR > 1) step(a + ld, c10, c11);
    if constexpr (MR > 2) step(a + 2 * ld, c20, c21);
    if constexpr (MR > 3) step(a + 3 * ld, c30, c31);
    if constexpr (MR > 4) step(a + 4 * ld, c40, c41);
    if constexpr (MR > 5) step(a + 5 * ld, c50, c51);
  }
  auto store = [&](int r, __m256 lo, __m256 hi) {
    float* c = C + static_cast<long>(r) * ldc;
    if (Full) {
      _mm256_storeu_ps(c, lo);
      _mm256_storeu_ps(c + 8, hi);
    } else {
      _mm256_maskstore_ps(c, m0, lo);
      _mm256_maskstore_ps(c + 8, m1, hi);
    }
  };
  store(0, c00, c01);
  if constexpr (MR > 1) store(1, c10, c11);
  if constexpr (MR > 2) store(2, c20, c21);
  if constexpr (MR > 3) store(3, c30, c31);
  if constexpr (MR > 4) store(4, c40, c41);
  if constexpr (MR > 5) store(5, c50, c51);
}

template <int MR>
void tile_row(int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  int j = 0;
  for (; j + 16 <= N; j += 16) tile<MR, true>(16, K, A, lda, B + j, ldb, C + j, ldc);
  if (j < N) tile<MR, false>(N - j, K, A, lda, B + j, ldb, C + j, ldc);
}

template <>
void product<float>(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  constexpr int MR = 6;
  int i = 0;
  for (; i + MR <= M; i += MR) tile_row<MR>(N, K, A + static_cast<long>(i) * lda, lda, B, ldb, C + static_cast<long>(i) * ldc, ldc);
  const float* a = A + static_cast<long>(i) * lda;
  float* c = C + static_cast<long>(i) * ldc;
  switch (M - i) {
    case 5: tile_row<5>(N, K, a, lda, B, ldb, c, ldc); break;
    case 4: tile_row<4>(N, K, a, lda, B, ldb, c, ldc); break;
    case 3: tile_row<3>(N, K, a, lda, B, ldb, c, ldc); break;
    case 2: tile_row<2>(N, K, a, lda, B, ldb, c, ldc); break;
    case 1: tile_row<1>(N, K, a, lda, B, ldb, c, ldc); break;
    default: break;
  }
}

#endif

}  // namespace

template <typename T>
void block_gemm(Trans ta, Trans tb, int M, int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc) {
  if (M <= 0 || N <= 0) return;
  thread_local std::vector<T> a_buffer, b_buffer;
  if (ta == Trans::Yes) {  // A stored (K, M)
    A = transposed(A, K, M, lda, a_buffer);
    lda = K;
  }
  if (tb == Trans::Yes) {  // B stored (N, K)
    B = transposed(B, N, K, ldb, b_buffer);
    ldb = N;
  }
  product(M, N, K, A, lda, B, ldb, C, ldc);
}

template void block_gemm<float>(Trans, Trans, int, int, int, const float*, int, const float*, int, float*, int);
template void block_gemm<double>(Trans, Trans, int, int, int, const double*, int, const double*, int, double*, int);

}  // namespace heptapod::kernels
