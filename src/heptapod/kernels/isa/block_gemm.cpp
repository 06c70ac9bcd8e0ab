// Small-block GEMM: transposes into thread-local buffers, then C = A B with register tiles.
#include "heptapod/kernels/block_gemm.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "heptapod/kernels/isa/calls.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

// in: (rows, cols), leading dimension ld -> out: (cols, rows), dense.
template <typename T>
const T* transposed(const T* in, int rows, int cols, int ld, std::vector<T>& out) {
  out.resize(static_cast<std::size_t>(rows) * cols);
  transpose(in, rows, cols, ld, out.data(), rows);
  return out.data();
}

// C (M, N) = (or +=, accumulate) A (M, K) B (K, N), all row-major: plain loops the compiler vectorises along N.
template <typename T>
void product(int M, int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc, bool accumulate) {
  for (int i = 0; i < M; ++i) {
    T* c = C + static_cast<long>(i) * ldc;
    if (!accumulate) std::fill_n(c, N, T(0));
    for (int k = 0; k < K; ++k) {
      const T a = A[static_cast<long>(i) * lda + k];
      const T* b = B + static_cast<long>(k) * ldb;
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

#ifdef HEPTAPOD_HAVE_AVX2

// The vector width a tile is built from: eight lanes (AVX2) or sixteen (AVX-512), with masked loads and stores
// for a tile's ragged right edge.
struct Lanes8 {
  using Vec = __m256;
  using Mask = __m256i;
  static constexpr int kWidth = 8;
  static constexpr int kMaxRows = 6;  // 12 accumulators of 16 registers
  static Mask mask(int n) { return simd::lane_mask(n); }
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec load(const float* p) { return _mm256_loadu_ps(p); }
  static Vec load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static Vec broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
  static void store(float* p, Mask m, Vec v) { _mm256_maskstore_ps(p, m, v); }
};

#if defined(__AVX512F__)
struct Lanes16 {
  using Vec = __m512;
  using Mask = __mmask16;
  static constexpr int kWidth = 16;
  static constexpr int kMaxRows = 12;  // 24 accumulators of 32 registers
  static Mask mask(int n) { return n >= 16 ? Mask(0xFFFF) : n <= 0 ? Mask(0) : Mask((1u << n) - 1); }
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec load(const float* p) { return _mm512_loadu_ps(p); }
  static Vec load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static Vec broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
  static void store(float* p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
};
using Lanes = Lanes16;
#else
using Lanes = Lanes8;
#endif

// One tile: rows [0, MR) and columns [0, n) of C, n <= two vectors, every step of K in registers, starting
// from zero or (accumulate) from C. The accumulators are named variables, not an array: GCC keeps an array of
// vectors in memory and stores it every step.
template <typename L, int MR, bool Full>
void tile(int n, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool accumulate) {
  static_assert(MR >= 1 && MR <= 12 && MR <= L::kMaxRows);
  using V = typename L::Vec;
  const typename L::Mask m0 = L::mask(n), m1 = L::mask(n - L::kWidth);
  V c00 = L::zero(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00, c40 = c00,
    c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00, c80 = c00, c81 = c00,
    c90 = c00, c91 = c00, ca0 = c00, ca1 = c00, cb0 = c00, cb1 = c00;
  // f(r, lo, hi) for each row r of the tile with its two accumulators.
  auto each_row = [&](auto&& f) {
    f(0, c00, c01);
    if constexpr (MR > 1) f(1, c10, c11);
    if constexpr (MR > 2) f(2, c20, c21);
    if constexpr (MR > 3) f(3, c30, c31);
    if constexpr (MR > 4) f(4, c40, c41);
    if constexpr (MR > 5) f(5, c50, c51);
    if constexpr (MR > 6) f(6, c60, c61);
    if constexpr (MR > 7) f(7, c70, c71);
    if constexpr (MR > 8) f(8, c80, c81);
    if constexpr (MR > 9) f(9, c90, c91);
    if constexpr (MR > 10) f(10, ca0, ca1);
    if constexpr (MR > 11) f(11, cb0, cb1);
  };
  if (accumulate)
    each_row([&](int r, V& lo, V& hi) {
      const float* c = C + static_cast<long>(r) * ldc;
      lo = Full ? L::load(c) : L::load(c, m0);
      hi = Full ? L::load(c + L::kWidth) : L::load(c + L::kWidth, m1);
    });
  const float* a = A;
  const long ld = lda;
  for (int k = 0; k < K; ++k, ++a) {
    const float* b = B + static_cast<long>(k) * ldb;
    const V b0 = Full ? L::load(b) : L::load(b, m0);
    const V b1 = Full ? L::load(b + L::kWidth) : L::load(b + L::kWidth, m1);
    auto step = [&](const float* x, V& lo, V& hi) {
      const V v = L::broadcast(x);
      lo = L::fmadd(v, b0, lo);
      hi = L::fmadd(v, b1, hi);
    };
    step(a, c00, c01);
    if constexpr (MR > 1) step(a + ld, c10, c11);
    if constexpr (MR > 2) step(a + 2 * ld, c20, c21);
    if constexpr (MR > 3) step(a + 3 * ld, c30, c31);
    if constexpr (MR > 4) step(a + 4 * ld, c40, c41);
    if constexpr (MR > 5) step(a + 5 * ld, c50, c51);
    if constexpr (MR > 6) step(a + 6 * ld, c60, c61);
    if constexpr (MR > 7) step(a + 7 * ld, c70, c71);
    if constexpr (MR > 8) step(a + 8 * ld, c80, c81);
    if constexpr (MR > 9) step(a + 9 * ld, c90, c91);
    if constexpr (MR > 10) step(a + 10 * ld, ca0, ca1);
    if constexpr (MR > 11) step(a + 11 * ld, cb0, cb1);
  }
  each_row([&](int r, V& lo, V& hi) {
    float* c = C + static_cast<long>(r) * ldc;
    if (Full) {
      L::store(c, lo);
      L::store(c + L::kWidth, hi);
    } else {
      L::store(c, m0, lo);
      L::store(c + L::kWidth, m1, hi);
    }
  });
}

template <int MR>
void tile_row(int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool accumulate) {
  constexpr int NR = 2 * Lanes::kWidth;
  int j = 0;
  for (; j + NR <= N; j += NR) tile<Lanes, MR, true>(NR, K, A, lda, B + j, ldb, C + j, ldc, accumulate);
  if (j < N) tile<Lanes, MR, false>(N - j, K, A, lda, B + j, ldb, C + j, ldc, accumulate);
}

// Rows [i, M) of the product, fewer than a full tile, as one tile of that height.
template <int R = Lanes::kMaxRows - 1>
void tail_rows(int rows, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
               bool accumulate) {
  if constexpr (R >= 1) {
    if (rows == R) return tile_row<R>(N, K, A, lda, B, ldb, C, ldc, accumulate);
    tail_rows<R - 1>(rows, N, K, A, lda, B, ldb, C, ldc, accumulate);
  }
}

template <>
void product<float>(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
                    bool accumulate) {
  constexpr int MR = Lanes::kMaxRows;
  int i = 0;
  for (; i + MR <= M; i += MR)
    tile_row<MR>(N, K, A + static_cast<long>(i) * lda, lda, B, ldb, C + static_cast<long>(i) * ldc, ldc, accumulate);
  tail_rows(M - i, N, K, A + static_cast<long>(i) * lda, lda, B, ldb, C + static_cast<long>(i) * ldc, ldc,
            accumulate);
}

#endif

}  // namespace

template <typename T>
void block_gemm(Trans ta, Trans tb, int M, int N, int K, const T* A, int lda, const T* B, int ldb, T* C, int ldc,
                BlockOutput out) {
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
  product(M, N, K, A, lda, B, ldb, C, ldc, out == BlockOutput::Accumulate);
}

void register_block_gemm(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, block_gemm);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
