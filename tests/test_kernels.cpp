// Every fast kernel against its naive twin (kernels/naive/naive.h), in float and double, on tiny, odd and
// large shapes (the large ones cross kParallelMinWork so the OpenMP paths run), plus the invariants each
// kernel's header promises (all-zero rows, untouched padding, assigned vs accumulated outputs, dropout's
// mask properties).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "heptapod/core/random.h"
#include "heptapod/kernels/activation.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/block_gemm.h"
#include "heptapod/kernels/relu_dropout.h"
#include "heptapod/kernels/transpose.h"
#include "heptapod/kernels/cross_entropy.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/kernels/embedding.h"
#include "heptapod/kernels/layer_norm.h"
#include "heptapod/kernels/naive/naive.h"
#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/softmax.h"
#include "heptapod/kernels/vector_math.h"
#include "heptapod/kernels/visible_keys.h"
#include "heptapod/layers/sequences.h"
#include "test_util.h"

namespace heptapod {
namespace {

namespace k = kernels;
namespace nv = kernels::naive;
using k::Trans;
using test::expect_close;
using test::fill_uniform;
using test::kNaN;
using test::tol;
using test::uniform;

template <typename T>
class KernelTest : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(KernelTest, ScalarTypes);

// ---------------------------------------------------------------------------------------------- GEMM

TYPED_TEST(KernelTest, GemmMatchesNaiveForEveryTransposeAndLeadingDimension) {
  using T = TypeParam;
  struct Shape {
    int M, N, K;
  };
  // Tiny and odd shapes, then products at and above 64^3, where a oneDNN build hands float GEMM to oneDNN
  // (smaller ones stay with OpenBLAS), including a single row and a single column.
  const Shape shapes[] = {{1, 1, 1},    {7, 13, 5},   {1, 9, 4},     {6, 1, 3},     {5, 4, 1},    {1, 1, 17},
                          {33, 65, 47}, {64, 64, 64}, {130, 70, 90}, {1, 513, 600}, {300, 1, 900},
                          {4, 300, 257},  {3, 1500, 131}};  // up to kFewRows rows: the decoding kernel
  struct Scalars {
    double alpha, beta;
  };
  const Scalars scalars[] = {{1, 0}, {1, 1}, {0.5, -2}, {-1.25, 0.75}, {2, 1}};
  unsigned seed = 1;
  for (const Shape& s : shapes)
    for (Trans ta : {Trans::No, Trans::Yes})
      for (Trans tb : {Trans::No, Trans::Yes})
        for (const Scalars& sc : scalars) {
          const int rows_a = ta == Trans::No ? s.M : s.K, cols_a = ta == Trans::No ? s.K : s.M;
          const int rows_b = tb == Trans::No ? s.K : s.N, cols_b = tb == Trans::No ? s.N : s.K;
          const int lda = cols_a + 3, ldb = cols_b + 2, ldc = s.N + 5;  // wider than the used width
          const auto A = uniform<T>(static_cast<std::size_t>(rows_a) * lda, ++seed);
          const auto B = uniform<T>(static_cast<std::size_t>(rows_b) * ldb, ++seed);
          auto C0 = uniform<T>(static_cast<std::size_t>(s.M) * ldc, ++seed);
          if (sc.beta == 0)  // beta = 0 must ignore C (the arena hands out uninitialised memory)
            for (int i = 0; i < s.M; ++i)
              for (int j = 0; j < s.N; ++j) C0[i * ldc + j] = kNaN<T>;
          auto fast = C0, slow = C0;
          k::gemm<T>(ta, tb, s.M, s.N, s.K, T(sc.alpha), A.data(), lda, B.data(), ldb, T(sc.beta), fast.data(), ldc);
          nv::gemm<T>(ta, tb, s.M, s.N, s.K, T(sc.alpha), A.data(), lda, B.data(), ldb, T(sc.beta), slow.data(), ldc);
          const std::string what = "gemm M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
                                   " K=" + std::to_string(s.K) + " ta=" + std::to_string(ta == Trans::Yes) +
                                   " tb=" + std::to_string(tb == Trans::Yes) + " alpha=" + std::to_string(sc.alpha) +
                                   " beta=" + std::to_string(sc.beta);
          expect_close(fast, slow, 4 * tol<T>(), what);
          for (int i = 0; i < s.M; ++i)  // the columns past N belong to someone else
            for (int j = s.N; j < ldc; ++j)
              ASSERT_EQ(fast[i * ldc + j], C0[i * ldc + j]) << what << ": wrote padding at " << i << "," << j;
        }
}

TYPED_TEST(KernelTest, BlockGemmMatchesNaiveOnAttentionShapes) {
  // Attention's per-(sentence, head) products: operands are column blocks of wider matrices (leading
  // dimension C), sizes around the 6 x 16 (AVX2) and 12 x 32 (AVX-512) register tiles and their edges, an
  // empty inner dimension (a sentence without keys) giving zeros.
  using T = TypeParam;
  struct Shape {
    int M, N, K;
  };
  const Shape shapes[] = {{1, 1, 1},  {6, 16, 8},   {5, 17, 3}, {7, 15, 64}, {13, 64, 29}, {37, 33, 64},
                          {2, 9, 0},  {12, 64, 100}, {1, 64, 1}, {100, 7, 64}, {12, 32, 8},  {11, 33, 5},
                          {25, 31, 64}, {24, 64, 28}, {23, 47, 17}};
  unsigned seed = 60;
  for (const Shape& s : shapes)
    for (Trans ta : {Trans::No, Trans::Yes})
      for (Trans tb : {Trans::No, Trans::Yes}) {
        const int rows_a = ta == Trans::No ? s.M : s.K, cols_a = ta == Trans::No ? s.K : s.M;
        const int rows_b = tb == Trans::No ? s.K : s.N, cols_b = tb == Trans::No ? s.N : s.K;
        const int lda = cols_a + 3, ldb = cols_b + 19, ldc = s.N + 5;  // wider than the used width
        const auto A = uniform<T>(static_cast<std::size_t>(rows_a) * lda + 1, ++seed);
        const auto B = uniform<T>(static_cast<std::size_t>(rows_b) * ldb + 1, ++seed);
        auto C0 = uniform<T>(static_cast<std::size_t>(s.M) * ldc, ++seed);
        for (int i = 0; i < s.M; ++i)  // assigned: what was there must not matter
          for (int j = 0; j < s.N; ++j) C0[i * ldc + j] = kNaN<T>;
        auto fast = C0, slow = C0;
        k::block_gemm<T>(ta, tb, s.M, s.N, s.K, A.data(), lda, B.data(), ldb, fast.data(), ldc);
        nv::gemm<T>(ta, tb, s.M, s.N, s.K, T(1), A.data(), lda, B.data(), ldb, T(0), slow.data(), ldc);
        if (s.K == 0)
          for (int i = 0; i < s.M; ++i)
            for (int j = 0; j < s.N; ++j) slow[i * ldc + j] = T(0);
        const std::string what = "block gemm M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) +
                                 " K=" + std::to_string(s.K) + " ta=" + std::to_string(ta == Trans::Yes) +
                                 " tb=" + std::to_string(tb == Trans::Yes);
        expect_close(fast, slow, 4 * tol<T>(), what, 1.0);
        for (int i = 0; i < s.M; ++i)  // the columns past N belong to someone else
          for (int j = s.N; j < ldc; ++j)
            ASSERT_EQ(fast[i * ldc + j], C0[i * ldc + j]) << what << ": wrote past N at " << i << "," << j;
      }
}

TYPED_TEST(KernelTest, BlockGemmAccumulatedInPartsOfKMakesTheWholeProductsBytes) {
  // Attention's backward pass adds each tile of query rows' share of dK and dV in turn: the parts, added one
  // after another, must make exactly the bytes of one product over the whole inner dimension.
  using T = TypeParam;
  for (Trans ta : {Trans::No, Trans::Yes})
    for (int K : {1, 7, 64, 130}) {
      const int M = 29, N = 37, ld = 150;
      const auto A = uniform<T>(static_cast<std::size_t>(ld) * ld, 500 + K), B = uniform<T>(static_cast<std::size_t>(ld) * ld, 600 + K);
      std::vector<T> whole(static_cast<std::size_t>(M) * N, kNaN<T>), parts(whole.size(), T(0));
      k::block_gemm<T>(ta, Trans::No, M, N, K, A.data(), ld, B.data(), ld, whole.data(), N);
      for (int k0 = 0, step = 1; k0 < K; k0 += step, step += 5) {  // parts of 1, 6, 11, ... terms
        const int n = std::min(step, K - k0);
        const T* a = ta == Trans::No ? A.data() + k0 : A.data() + static_cast<long>(k0) * ld;
        k::block_gemm<T>(ta, Trans::No, M, N, n, a, ld, B.data() + static_cast<long>(k0) * ld, ld, parts.data(), N,
                         k::BlockOutput::Accumulate);
      }
      for (std::size_t i = 0; i < whole.size(); ++i)
        ASSERT_EQ(std::memcmp(&whole[i], &parts[i], sizeof(T)), 0) << "K=" << K << " element " << i << ": " << whole[i]
                                                                   << " whole, " << parts[i] << " in parts";
    }
}

TYPED_TEST(KernelTest, TransposeMatchesTheDefinition) {
  using T = TypeParam;
  for (int rows : {1, 7, 8, 9, 24, 61})
    for (int cols : {1, 3, 8, 16, 17, 64}) {
      const int ld_in = cols + 5, ld_out = rows + 3;  // wider than the used width
      const auto in = uniform<T>(static_cast<std::size_t>(rows) * ld_in, rows * 100 + cols);
      std::vector<T> out(static_cast<std::size_t>(cols) * ld_out, T(-7));
      k::transpose(in.data(), rows, cols, ld_in, out.data(), ld_out);
      for (int j = 0; j < cols; ++j)
        for (int i = 0; i < ld_out; ++i)
          ASSERT_EQ(out[static_cast<std::size_t>(j) * ld_out + i], i < rows ? in[static_cast<std::size_t>(i) * ld_in + j] : T(-7))
              << "rows=" << rows << " cols=" << cols << " at " << j << "," << i;
    }
}

// --------------------------------------------------------------------------------- attention softmax

struct SoftmaxCase {
  int Tq, K;
  double lo, hi;  // score range
};

std::vector<SoftmaxCase> softmax_cases() {
  return {
      {1, 1, -1, 1},
      {5, 7, -3, 3},      // odd sizes (causal: two keys before the queries, seen by all)
      {9, 4, -3, 3},      // more queries than keys (causal: the first five see none)
      {2, 1, -3, 3},      // one key
      {6, 6, -200, 200},  // large scores: needs the max subtraction
      {33, 37, -4, 4},    // wider than the vector width, with a tail
  };
}

TYPED_TEST(KernelTest, AttentionSoftmaxForwardMatchesNaive) {
  using T = TypeParam;
  unsigned seed = 100;
  for (const SoftmaxCase& c : softmax_cases())
    for (bool causal : {false, true}) {
      const long count = static_cast<long>(c.Tq) * c.K;
      const auto scores = uniform<T>(count, ++seed, c.lo, c.hi);
      const T scale = T(0.37);
      auto fast = scores, slow = scores;
      k::attention_softmax_forward(fast.data(), c.Tq, c.K, causal, scale);
      nv::attention_softmax_forward(slow.data(), c.Tq, c.K, causal, scale);
      const std::string what = "softmax Tq=" + std::to_string(c.Tq) + " K=" + std::to_string(c.K) +
                               " causal=" + std::to_string(causal);
      expect_close(fast, slow, tol<T>(), what);
      // Rows: the visible prefix sums to 1 and the rest is exactly 0 (a causal query before every key, with
      // fewer keys than queries, sees none).
      for (int i = 0; i < c.Tq; ++i) {
        const T* row = fast.data() + static_cast<long>(i) * c.K;
        const int visible = k::visible_keys(c.Tq, c.K, causal, i);
        double sum = 0;
        for (int j = 0; j < c.K; ++j) {
          if (j >= visible) {
            ASSERT_EQ(row[j], T(0)) << what << " i=" << i << " j=" << j;
          }
          ASSERT_GE(row[j], T(0));
          sum += row[j];
        }
        EXPECT_NEAR(sum, visible > 0 ? 1.0 : 0.0, 1e-5) << what << " i=" << i;
      }
    }
}

TYPED_TEST(KernelTest, AttentionSoftmaxBackwardMatchesNaive) {
  using T = TypeParam;
  unsigned seed = 200;
  for (const SoftmaxCase& c : softmax_cases())
    for (bool causal : {false, true}) {
      const long count = static_cast<long>(c.Tq) * c.K;
      auto probs = uniform<T>(count, ++seed, c.lo, c.hi);
      nv::attention_softmax_forward(probs.data(), c.Tq, c.K, causal, T(0.37));
      const auto dprobs = uniform<T>(count, ++seed);
      auto fast = dprobs, slow = dprobs;
      k::attention_softmax_backward(probs.data(), fast.data(), c.Tq, c.K, T(0.37));
      nv::attention_softmax_backward(probs.data(), slow.data(), c.Tq, c.K, T(0.37));
      const std::string what = "softmax backward Tq=" + std::to_string(c.Tq) + " K=" + std::to_string(c.K) +
                               " causal=" + std::to_string(causal);
      expect_close(fast, slow, tol<T>(), what);
      // Masked scores (probability 0) get exactly zero gradient, so future keys never receive any.
      for (long r = 0; r < count; ++r)
        if (probs[r] == T(0)) {
          ASSERT_EQ(fast[r], T(0)) << what << " at " << r;
        }
    }
}

// ---------------------------------------------------------------------------------------- layer norm

struct NC {
  int N, C;
};
const NC kLayerNormShapes[] = {{1, 1}, {1, 5}, {7, 13}, {4, 64}, {300, 67}};  // 300*67 = 20100: parallel

TYPED_TEST(KernelTest, LayerNormForwardMatchesNaive) {
  using T = TypeParam;
  unsigned seed = 300;
  for (const NC s : kLayerNormShapes) {
    const std::size_t n = static_cast<std::size_t>(s.N) * s.C;
    const auto x = uniform<T>(n, ++seed, -2, 3);
    const auto gamma = uniform<T>(s.C, ++seed, 0.5, 1.5), beta = uniform<T>(s.C, ++seed, -0.5, 0.5);
    std::vector<T> y(n, kNaN<T>), mean(s.N, kNaN<T>), rstd(s.N, kNaN<T>);
    auto y0 = y, mean0 = mean, rstd0 = rstd;
    k::layer_norm_forward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), s.N, s.C, T(1e-5));
    nv::layer_norm_forward(x.data(), gamma.data(), beta.data(), y0.data(), mean0.data(), rstd0.data(), s.N, s.C,
                           T(1e-5));
    const std::string what = "layer norm N=" + std::to_string(s.N) + " C=" + std::to_string(s.C);
    expect_close(y, y0, tol<T>(), what + " y");
    expect_close(mean, mean0, tol<T>(), what + " mean");
    expect_close(rstd, rstd0, tol<T>(), what + " rstd");
  }
}

TYPED_TEST(KernelTest, ResidualLayerNormMatchesNaiveDropoutAddThenNorm) {
  using T = TypeParam;
  unsigned seed = 350;
  for (const NC s : kLayerNormShapes)
    for (float p : {0.0f, 0.3f})
      for (bool in_place : {false, true}) {  // in place: y over x, as the incremental decoder calls it
        const std::size_t n = static_cast<std::size_t>(s.N) * s.C;
        auto x = uniform<T>(n, ++seed, -2, 3);
        const auto delta0 = uniform<T>(n, ++seed, -1, 1);
        const auto gamma = uniform<T>(s.C, ++seed, 0.5, 1.5), beta = uniform<T>(s.C, ++seed, -0.5, 0.5);
        const auto bias = uniform<T>(s.C, ++seed, -1, 1);
        const bool with_bias = in_place;  // the branch's bias left to this pass, or not
        auto sum = delta0;  // the reference: bias, dropout, add, then norm
        if (with_bias) nv::add_bias(sum.data(), bias.data(), s.N, s.C);
        nv::dropout(sum.data(), static_cast<long>(n), p, 11, 12);
        for (std::size_t i = 0; i < n; ++i) sum[i] += x[i];
        std::vector<T> y0(n), mean0(s.N), rstd0(s.N), y(n, kNaN<T>), mean(s.N, kNaN<T>), rstd(s.N, kNaN<T>);
        nv::layer_norm_forward(sum.data(), gamma.data(), beta.data(), y0.data(), mean0.data(), rstd0.data(), s.N, s.C,
                               T(1e-5));
        auto delta = delta0;
        T* out = in_place ? x.data() : y.data();
        k::residual_layer_norm(x.data(), delta.data(), with_bias ? bias.data() : nullptr, p, 11, 12, gamma.data(),
                               beta.data(), out, mean.data(), rstd.data(), s.N, s.C, T(1e-5));
        const std::string what = "residual layer norm N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                                 " p=" + std::to_string(p) + (with_bias ? " with bias" : "");
        expect_close(in_place ? x : y, y0, tol<T>(), what + (in_place ? " in place" : " y"));
        expect_close(delta, sum, tol<T>(), what + " the sum left in delta");
        expect_close(mean, mean0, tol<T>(), what + " mean", 1.0);
        expect_close(rstd, rstd0, tol<T>(), what + " rstd");
      }
}

TYPED_TEST(KernelTest, DropoutCopyAndAddKeepTheMask) {
  using T = TypeParam;
  for (long n : {1L, 37L, 100000L})
    for (float p : {0.0f, 0.3f}) {
      const auto src = uniform<T>(n, 1500 + n), x = uniform<T>(n, 1600 + n);
      auto dropped = src;
      nv::dropout(dropped.data(), n, p, 21, 22);
      std::vector<T> copy(n, kNaN<T>);
      k::dropout_copy(src.data(), copy.data(), n, p, 21, 22);
      expect_close(copy, dropped, tol<T>(), "dropout_copy n=" + std::to_string(n));
      auto delta = src, sum = dropped;
      for (long i = 0; i < n; ++i) sum[i] += x[i];
      k::dropout_add(x.data(), delta.data(), n, p, 21, 22);
      expect_close(delta, sum, tol<T>(), "dropout_add n=" + std::to_string(n));
    }
}

TYPED_TEST(KernelTest, LayerNormBackwardMatchesNaive) {
  using T = TypeParam;
  unsigned seed = 400;
  for (const NC s : kLayerNormShapes)
    for (bool accumulate : {false, true}) {
      const std::size_t n = static_cast<std::size_t>(s.N) * s.C;
      const auto x = uniform<T>(n, ++seed, -2, 3);
      const auto gamma = uniform<T>(s.C, ++seed, 0.5, 1.5), beta = uniform<T>(s.C, ++seed, -0.5, 0.5);
      std::vector<T> y(n), mean(s.N), rstd(s.N);
      nv::layer_norm_forward(x.data(), gamma.data(), beta.data(), y.data(), mean.data(), rstd.data(), s.N, s.C,
                             T(1e-5));
      const auto dy = uniform<T>(n, ++seed);
      // dx assigned: start from NaN; accumulated: from random values. dgamma/dbeta always accumulate.
      auto dx = accumulate ? uniform<T>(n, ++seed) : std::vector<T>(n, kNaN<T>);
      auto dgamma = uniform<T>(s.C, ++seed, 1, 2), dbeta = uniform<T>(s.C, ++seed, -2, -1);
      auto dx0 = dx, dgamma0 = dgamma, dbeta0 = dbeta;
      k::layer_norm_backward(dy.data(), x.data(), mean.data(), rstd.data(), gamma.data(), dx.data(), dgamma.data(),
                             dbeta.data(), s.N, s.C, accumulate);
      nv::layer_norm_backward(dy.data(), x.data(), mean.data(), rstd.data(), gamma.data(), dx0.data(), dgamma0.data(),
                              dbeta0.data(), s.N, s.C, accumulate);
      const std::string what = "layer norm backward N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                               " accumulate=" + std::to_string(accumulate);
      // dx's natural scale is rstd * |dy * gamma|; with C = 1 the exact dx is 0 and rstd = eps^-1/2.
      double dx_scale = 0;
      for (int r = 0; r < s.N; ++r) dx_scale = std::max(dx_scale, static_cast<double>(rstd[r]));
      dx_scale *= 1.5;  // max |dy * gamma|
      expect_close(dx, dx0, 2 * tol<T>(), what + " dx", dx_scale);
      expect_close(dgamma, dgamma0, tol<T>(), what + " dgamma");
      expect_close(dbeta, dbeta0, tol<T>(), what + " dbeta");
    }
}

// --------------------------------------------------------------------------------- bias, relu, add

TYPED_TEST(KernelTest, BiasForwardAndBackwardMatchNaive) {
  using T = TypeParam;
  unsigned seed = 500;
  for (const NC s : {NC{1, 1}, NC{7, 13}, NC{300, 67}, NC{20, 1000}}) {
    const std::size_t n = static_cast<std::size_t>(s.N) * s.C;
    const auto bias = uniform<T>(s.C, ++seed);
    auto y = uniform<T>(n, ++seed), y0 = y;
    k::add_bias(y.data(), bias.data(), s.N, s.C);
    nv::add_bias(y0.data(), bias.data(), s.N, s.C);
    const std::string what = "bias N=" + std::to_string(s.N) + " C=" + std::to_string(s.C);
    expect_close(y, y0, tol<T>(), what + " add_bias");

    const auto dy = uniform<T>(n, ++seed);
    auto db = uniform<T>(s.C, ++seed, 3, 4), db0 = db;  // accumulates onto non-zero values
    k::bias_backward(dy.data(), db.data(), s.N, s.C);
    nv::bias_backward(dy.data(), db0.data(), s.N, s.C);
    expect_close(db, db0, tol<T>(), what + " bias_backward");
  }
}

TYPED_TEST(KernelTest, ReluForwardMatchesNaive) {
  using T = TypeParam;
  unsigned seed = 600;
  for (long n : {1L, 13L, 20001L}) {
    auto x = uniform<T>(n, ++seed);
    for (long i = 0; i < n; i += 5) x[i] = T(0);
    if (n > 3) x[3] = -T(0);
    auto y = x, y0 = x;
    k::relu_forward(y.data(), n);
    nv::relu_forward(y0.data(), n);
    for (long i = 0; i < n; ++i) ASSERT_EQ(y[i], y0[i]) << "relu_forward n=" << n << " at " << i;
  }
}

TYPED_TEST(KernelTest, FusedBiasReluDropoutMatchesNaive) {
  // The fused passes against bias, ReLU, dropout and bias-gradient twins run one after another, with and
  // without dropout, with and without a bias; shapes on both sides of the parallel threshold. The fused
  // backward pass sees only the forward's result; the twin regenerates the mask and reads the ReLU output.
  using T = TypeParam;
  unsigned seed = 650;
  for (auto [N, F] : {std::pair{1, 1}, std::pair{5, 13}, std::pair{37, 600}})
    for (float p : {0.0f, 0.3f})
      for (bool with_bias : {true, false}) {
        const long n = static_cast<long>(N) * F;
        const std::string what = "N=" + std::to_string(N) + " F=" + std::to_string(F) + " p=" + std::to_string(p) +
                                 " bias=" + std::to_string(with_bias);
        const auto product = uniform<T>(n, ++seed);
        const auto bias = uniform<T>(F, ++seed);
        const T* b = with_bias ? bias.data() : nullptr;
        auto out = product, relu0 = product;
        std::vector<T> dropped0(n, kNaN<T>);
        T* out0 = p > 0 ? dropped0.data() : relu0.data();
        k::bias_relu_dropout_forward(out.data(), b, N, F, p, 5, 6);
        nv::bias_relu_dropout_forward(relu0.data(), out0, b, N, F, p, 5, 6);
        expect_close(out, p > 0 ? dropped0 : relu0, tol<T>(), what + " out");

        const auto g = uniform<T>(n, ++seed);
        auto grad = g, grad0 = g;
        auto db = uniform<T>(F, ++seed, 1, 2), db0 = db;  // accumulates
        k::relu_dropout_backward(grad.data(), out.data(), with_bias ? db.data() : nullptr, N, F, p);
        nv::relu_dropout_backward(grad0.data(), relu0.data(), with_bias ? db0.data() : nullptr, N, F, p, 5, 6);
        expect_close(grad, grad0, tol<T>(), what + " grad");
        expect_close(db, db0, tol<T>(), what + " dbias");
      }
}

TYPED_TEST(KernelTest, Add) {
  using T = TypeParam;
  for (long n : {1L, 20001L}) {
    const auto a = uniform<T>(n, 701), b = uniform<T>(n, 702);
    std::vector<T> out(n, kNaN<T>);
    k::add(a.data(), b.data(), out.data(), n);
    auto alias = a;
    k::add(alias.data(), b.data(), alias.data(), n);  // out may alias a
    for (long i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], a[i] + b[i]);
      ASSERT_EQ(alias[i], a[i] + b[i]);
    }
  }
}

// ---------------------------------------------------------------------------------------- embedding

struct EmbeddingCase {
  int B, Tlen, C, V;
  bool one_token;  // every position the same token: the worst case for a racy scatter
};

TYPED_TEST(KernelTest, EmbeddingForwardAndBackwardMatchNaive) {
  using T = TypeParam;
  const EmbeddingCase cases[] = {
      {1, 1, 1, 1, false},
      {3, 5, 13, 7, false},    // repeated tokens within and across sentences
      {4, 50, 96, 20, false},  // 19200 elements, 6 column blocks: the parallel path
      {4, 64, 80, 9, true},
  };
  unsigned seed = 800;
  for (const EmbeddingCase& c : cases) {
    std::vector<int> lengths(c.B);  // (B) unequal, so positions restart at different rows
    for (int b = 0; b < c.B; ++b) lengths[b] = std::max(1, c.Tlen - b);
    const Sequences seq(lengths.data(), c.B);
    const long N = seq.rows();
    std::vector<int> tokens(N);
    std::uint64_t s = 12345 + seed;
    for (auto& t : tokens) t = c.one_token ? c.V / 2 : static_cast<int>((s = mix64(s)) % c.V);
    const auto table = uniform<T>(static_cast<std::size_t>(c.V) * c.C, ++seed);
    std::vector<T> pe(static_cast<std::size_t>(c.Tlen + 3) * c.C);  // longer than needed, as the model's is
    nv::sinusoid_table(c.Tlen + 3, c.C, kernels::SinusoidLayout::Interleaved, 0, pe.data());
    const T scale = std::sqrt(T(c.C));
    std::vector<T> out(N * c.C, kNaN<T>), out0 = out;
    k::embedding_forward(tokens.data(), N, seq.position.data(), table.data(), c.C, scale, pe.data(), out.data());
    nv::embedding_forward(tokens.data(), N, seq.position.data(), table.data(), c.C, scale, pe.data(), out0.data());
    const std::string what = "embedding B=" + std::to_string(c.B) + " T=" + std::to_string(c.Tlen) +
                             " C=" + std::to_string(c.C) + " V=" + std::to_string(c.V);
    expect_close(out, out0, tol<T>(), what + " forward");

    const auto dout = uniform<T>(N * c.C, ++seed);
    auto dtable = uniform<T>(table.size(), ++seed, 1, 2), dtable0 = dtable;  // accumulates
    k::embedding_backward(dout.data(), tokens.data(), N, c.C, scale, dtable.data());
    nv::embedding_backward(dout.data(), tokens.data(), N, c.C, scale, dtable0.data());
    expect_close(dtable, dtable0, tol<T>(), what + " backward");
  }
}

TYPED_TEST(KernelTest, SinusoidTableMatchesNaiveAndThePaper) {
  using T = TypeParam;
  for (int L : {1, 50})
    for (int C : {1, 7, 16, 512}) {
      std::vector<T> pe(static_cast<std::size_t>(L) * C, kNaN<T>), pe0 = pe;
      k::sinusoid_table(L, C, k::SinusoidLayout::Interleaved, 0, pe.data());
      nv::sinusoid_table(L, C, k::SinusoidLayout::Interleaved, 0, pe0.data());
      expect_close(pe, pe0, tol<T>(), "sinusoid L=" + std::to_string(L) + " C=" + std::to_string(C));
      for (int c = 0; c < C; ++c) EXPECT_EQ(pe[c], c % 2 == 0 ? T(0) : T(1)) << "position 0, column " << c;
      for (int p = 0; p < L; ++p) {
        EXPECT_NEAR(pe[static_cast<long>(p) * C], std::sin(static_cast<double>(p)), 1e-6);
        if (C > 1) {
          EXPECT_NEAR(pe[static_cast<long>(p) * C + 1], std::cos(static_cast<double>(p)), 1e-6);
        }
        if (C > 5) {  // PE(p, 2i) with i = 2
          EXPECT_NEAR(pe[static_cast<long>(p) * C + 4], std::sin(p / std::pow(10000.0, 4.0 / C)), 1e-6);
        }
      }
    }
}

// Marian's [sin | cos] halves and fairseq's tensor2tensor halves, from a first position other than 0, against the
// naive twin and the formulas written out (C = 8, h = 4).
TYPED_TEST(KernelTest, SinusoidHalvesLayoutsMatchNaiveAndTheirFormulas) {
  using T = TypeParam;
  const int L = 9, C = 8, h = 4, first = 2;
  for (auto layout : {k::SinusoidLayout::Halves, k::SinusoidLayout::Tensor2Tensor}) {
    std::vector<T> pe(static_cast<std::size_t>(L) * C, kNaN<T>), pe0 = pe;
    k::sinusoid_table(L, C, layout, first, pe.data());
    nv::sinusoid_table(L, C, layout, first, pe0.data());
    expect_close(pe, pe0, tol<T>(), "sinusoid halves layout");
    for (int r = 0; r < L; ++r)
      for (int i = 0; i < h; ++i) {
        const double p = first + r;
        const double freq = layout == k::SinusoidLayout::Halves ? std::pow(10000.0, -2.0 * i / C)
                                                                 : std::pow(10000.0, -static_cast<double>(i) / (h - 1));
        EXPECT_NEAR(pe[static_cast<long>(r) * C + i], std::sin(p * freq), 1e-6) << "row " << r << " sine " << i;
        EXPECT_NEAR(pe[static_cast<long>(r) * C + h + i], std::cos(p * freq), 1e-6) << "row " << r << " cosine " << i;
      }
  }
}

// SiLU, exact GELU and GELU's tanh approximation against values of their definitions (x * sigmoid(x);
// x * Phi(x); 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))), with the bias added.
TEST(Activation, SiluAndGeluMatchTheirDefinitions) {
  const std::vector<double> x = {-3.0, -0.5, 0.0, 1.0, 2.0};
  const std::vector<double> silu = {-0.1422776195, -0.1887703343, 0.0, 0.7310585786, 1.7615941560};
  const std::vector<double> gelu = {-0.0040496941, -0.1542687694, 0.0, 0.8413447461, 1.9544997361};
  const std::vector<double> gelu_tanh = {-0.0036373921, -0.1542859902, 0.0, 0.8411919906, 1.9545976941};
  for (auto [act, want] : {std::pair{k::Activation::Silu, silu}, {k::Activation::Gelu, gelu},
                           {k::Activation::GeluTanh, gelu_tanh}}) {
    std::vector<double> pre(x.size(), 0.25), out(x.size());
    std::vector<double> bias(x);
    for (auto& b : bias) b -= 0.25;  // pre + bias = x
    k::bias_activation_forward(pre.data(), bias.data(), out.data(), 1, static_cast<int>(x.size()), act);
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(pre[i], x[i], 1e-15);
      EXPECT_NEAR(out[i], want[i], 1e-9) << "x = " << x[i];
    }
  }
}

// ------------------------------------------------------------------------------------ cross-entropy

struct CrossEntropyCase {
  long N;
  int V;
};

TYPED_TEST(KernelTest, CrossEntropyMatchesNaive) {
  using T = TypeParam;
  const CrossEntropyCase cases[] = {{1, 1}, {7, 11}, {3, 2}, {160, 123}};  // 19680 logits: the parallel path
  unsigned seed = 900;
  for (const CrossEntropyCase& c : cases)
    for (double eps : {0.0, 0.1}) {
      const long N = c.N;
      const auto logits = uniform<T>(N * c.V, ++seed, -6, 6);
      std::vector<int> targets(N);
      std::uint64_t s = seed;
      for (long n = 0; n < N; ++n) targets[n] = static_cast<int>((s = mix64(s)) % c.V);
      const T grad_scale = T(0.37);
      const std::string what = "cross-entropy N=" + std::to_string(N) + " V=" + std::to_string(c.V) +
                               " eps=" + std::to_string(eps);

      std::vector<T> d(N * c.V, kNaN<T>), d0 = d, nll(N, kNaN<T>), nll0 = nll;
      const auto tot = k::cross_entropy(logits.data(), targets.data(), N, c.V, T(eps), grad_scale, d.data(), nll.data());
      const auto tot0 =
          nv::cross_entropy(logits.data(), targets.data(), N, c.V, T(eps), grad_scale, d0.data(), nll0.data());
      EXPECT_EQ(tot.tokens, N) << what;
      EXPECT_EQ(tot.tokens, tot0.tokens) << what;
      EXPECT_EQ(tot.correct, tot0.correct) << what;  // random logits: no ties
      EXPECT_GT(tot.correct, c.V == 1 ? N - 1 : -1) << what;  // one class: every row right
      EXPECT_NEAR(tot.loss, tot0.loss, tol<T>() * std::max(1.0, std::abs(tot0.loss))) << what << " loss";
      EXPECT_NEAR(tot.nll, tot0.nll, tol<T>() * std::max(1.0, std::abs(tot0.nll))) << what << " nll";
      // With V = 1 the exact gradient and nll are 0; measure against their natural scales.
      expect_close(d, d0, tol<T>(), what + " dlogits", grad_scale);
      expect_close(nll, nll0, tol<T>(), what + " row_nll", 1.0);

      // Sum of row_nll is the nll total; each gradient row sums to zero (softmax minus a distribution).
      double nll_sum = 0;
      for (long n = 0; n < N; ++n) {
        nll_sum += nll[n];
        double row_sum = 0;
        for (int v = 0; v < c.V; ++v) row_sum += d[n * c.V + v];
        EXPECT_NEAR(row_sum, 0.0, 1e-5) << what << " row " << n;
      }
      EXPECT_NEAR(nll_sum, tot.nll, 1e-4 * std::max(1.0, tot.nll)) << what;

      // dlogits aliasing logits: the gradient overwrites the logits in place, as the model does.
      auto inplace = logits;
      const auto tot_inplace = k::cross_entropy(inplace.data(), targets.data(), N, c.V, T(eps), grad_scale,
                                                inplace.data(), static_cast<T*>(nullptr));
      expect_close(inplace, d0, tol<T>(), what + " dlogits in place", grad_scale);
      EXPECT_EQ(tot_inplace.loss, tot.loss) << what;

      // No outputs at all: the totals alone.
      const auto tot_only = k::cross_entropy(logits.data(), targets.data(), N, c.V, T(eps), grad_scale,
                                             static_cast<T*>(nullptr), static_cast<T*>(nullptr));
      EXPECT_EQ(tot_only.loss, tot.loss) << what;
      EXPECT_EQ(tot_only.nll, tot.nll) << what;
    }
}

TYPED_TEST(KernelTest, CrossEntropyOfUniformLogitsIsLogV) {
  // Every class equally likely: -log p_j = log V for all j, so the smoothed loss is log V for any eps.
  using T = TypeParam;
  const int V = 17, N = 5;
  const std::vector<T> logits(static_cast<std::size_t>(N) * V, T(0.25));
  const std::vector<int> targets = {0, 5, 16, 3, 3};
  for (double eps : {0.0, 0.1}) {
    const auto tot = k::cross_entropy(logits.data(), targets.data(), N, V, T(eps), T(1), static_cast<T*>(nullptr),
                                      static_cast<T*>(nullptr));
    EXPECT_EQ(tot.tokens, 5);
    EXPECT_NEAR(tot.loss / tot.tokens, std::log(17.0), 1e-6);
    EXPECT_NEAR(tot.nll / tot.tokens, std::log(17.0), 1e-6);
  }
}

// ------------------------------------------------------------------------------------------ dropout

TYPED_TEST(KernelTest, DropoutMatchesNaive) {
  using T = TypeParam;
  for (long n : {1L, 37L, 100000L})
    for (float p : {0.1f, 0.3f, 0.9f}) {
      const auto x = uniform<T>(n, 1000 + n, 0.5, 1.5);
      auto fast = x, slow = x;
      k::dropout(fast.data(), n, p, 42, 7);
      nv::dropout(slow.data(), n, p, 42, 7);
      for (long i = 0; i < n; ++i) ASSERT_EQ(fast[i] == T(0), slow[i] == T(0)) << "mask differs at " << i;
      expect_close(fast, slow, tol<T>(), "dropout n=" + std::to_string(n) + " p=" + std::to_string(p));
      // Any slice, dropped on its own, keeps the mask the whole tensor gives it.
      const long first = n / 3, count = n - first - n / 5;
      auto slice = std::vector<T>(x.begin() + first, x.begin() + first + count);
      k::dropout_slice(slice.data(), count, static_cast<std::uint64_t>(first), p, 42, 7);
      for (long i = 0; i < count; ++i) ASSERT_EQ(slice[i], fast[first + i]) << "slice differs at " << first + i;
    }
  // A slice across index 2^32, where the generator's words continue in their next block, against the
  // definition element by element.
  const long n = 300;
  const std::uint64_t first = (1ull << 32) - 120;
  const auto x = uniform<T>(n, 1050, 0.5, 1.5);
  auto y = x;
  k::dropout_slice(y.data(), n, first, 0.4f, 42, 7);
  long dropped_below = 0, dropped_above = 0;
  for (long i = 0; i < n; ++i) {
    const bool drop = heptapod::counter_uniform(42, 7, first + static_cast<std::uint64_t>(i)) < 0.4f;
    ASSERT_EQ(y[i] == T(0), drop) << "element " << first + i;
    (i < 120 ? dropped_below : dropped_above) += drop;
  }
  EXPECT_GT(dropped_below, 20);  // both blocks drop about 40%
  EXPECT_GT(dropped_above, 40);
}

TYPED_TEST(KernelTest, DropoutBackwardFromOutputMatchesTheMask) {
  // Read off the output, the backward pass equals dropout(grad) wherever the input was nonzero, and is 0 where
  // the input was 0 (there the mask cannot be seen).
  using T = TypeParam;
  const long n = 5000;
  const float p = 0.3f;
  auto x = uniform<T>(n, 1060, 0.5, 1.5);
  for (long i = 0; i < n; i += 7) x[i] = T(0);
  auto out = x;
  k::dropout(out.data(), n, p, 42, 9);
  const auto g = uniform<T>(n, 1061);
  auto masked = g, fast = g;
  nv::dropout(masked.data(), n, p, 42, 9);
  k::dropout_backward_from_output(fast.data(), out.data(), n, p);
  for (long i = 0; i < n; ++i) {
    if (x[i] == T(0))
      ASSERT_EQ(fast[i], T(0)) << "element " << i;
    else
      ASSERT_NEAR(fast[i], masked[i], tol<T>() * std::abs(masked[i])) << "element " << i;
  }
  auto unchanged = g;
  k::dropout_backward_from_output(unchanged.data(), out.data(), n, 0.0f);  // no dropout: no change
  EXPECT_EQ(unchanged, g);
}

TYPED_TEST(KernelTest, DropoutWithZeroRateIsANoOp) {
  using T = TypeParam;
  const long n = 50000;
  const auto x = uniform<T>(n, 1100);
  auto y = x;
  k::dropout(y.data(), n, 0.0f, 42, 7);
  EXPECT_EQ(std::memcmp(x.data(), y.data(), sizeof(T) * n), 0);
}

TYPED_TEST(KernelTest, DropoutMaskProperties) {
  using T = TypeParam;
  const long n = 200000;
  const float p = 0.3f;
  const auto x = uniform<T>(n, 1200, 0.5, 1.5);  // no zeros: a zero output means dropped
  auto run_n = [&](std::uint64_t seed, std::uint64_t stream, long count) {
    std::vector<T> y(x.begin(), x.begin() + count);
    k::dropout(y.data(), count, p, seed, stream);
    return y;
  };
  auto run = [&](std::uint64_t seed, std::uint64_t stream) { return run_n(seed, stream, n); };
  const auto a = run(42, 7);

  // Same (seed, stream): the same mask and values, bit for bit (this is what the backward pass relies on).
  const auto again = run(42, 7);
  EXPECT_EQ(std::memcmp(a.data(), again.data(), sizeof(T) * n), 0);

  // Kept fraction near 1 - p (the standard deviation is 0.001); kept values scaled by 1 / (1 - p).
  long kept = 0;
  const double keep_scale = 1.0 / (1.0 - static_cast<double>(p));
  for (long i = 0; i < n; ++i)
    if (a[i] != T(0)) {
      ++kept;
      ASSERT_NEAR(a[i], x[i] * keep_scale, 4 * tol<T>() * std::abs(x[i] * keep_scale)) << "element " << i;
    }
  EXPECT_NEAR(static_cast<double>(kept) / n, 1.0 - p, 0.01);

  // A mask depends only on (seed, stream, index), not on how many elements the call covers.
  const auto prefix = run_n(42, 7, 1000);
  EXPECT_EQ(std::memcmp(a.data(), prefix.data(), sizeof(T) * 1000), 0);

  // Different streams or seeds: independent masks, which differ in about 2 p (1 - p) = 42% of places.
  for (const std::vector<T>& other : {run(42, 8), run(43, 7)}) {
    long differ = 0;
    for (long i = 0; i < n; ++i) differ += (a[i] == T(0)) != (other[i] == T(0));
    EXPECT_NEAR(static_cast<double>(differ) / n, 2 * p * (1 - p), 0.02);
  }
}

TYPED_TEST(KernelTest, DropoutIndependentOfThreadCount) {
  using T = TypeParam;
  const long n = 100000;  // well past the dropout kernel's parallel threshold
  ASSERT_GT(n, k::kParallelMinWork);
  const auto x = uniform<T>(n, 1300);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = x;
  k::dropout(one.data(), n, 0.3f, 99, 5);
  omp_set_num_threads(2);
  auto two = x;
  k::dropout(two.data(), n, 0.3f, 99, 5);
  omp_set_num_threads(saved);
  EXPECT_EQ(std::memcmp(one.data(), two.data(), sizeof(T) * n), 0);
}

TYPED_TEST(KernelTest, ParameterGradientSumsIndependentOfThreadCount) {
  // bias_backward and relu_dropout_backward sum columns per chunk of rows and add the chunks in order;
  // embedding_backward adds each token's rows in row order. Neither order depends on the thread count, so the
  // results are bit-identical.
  using T = TypeParam;
  const int N = 300, C = 67, V = 9;
  const auto dy = uniform<T>(static_cast<std::size_t>(N) * C, 1400);
  std::vector<int> tokens(N);
  for (int n = 0; n < N; ++n) tokens[n] = (n * 7) % V;
  const int saved = omp_get_max_threads();
  const auto out = uniform<T>(static_cast<std::size_t>(N) * C, 1401, -1, 1);  // a ReLU output's sign pattern
  std::vector<T> db[2], dt[2], dr[2];
  for (int threads : {1, 2}) {
    omp_set_num_threads(threads);
    db[threads - 1].assign(C, T(0.5));
    dt[threads - 1].assign(static_cast<std::size_t>(V) * C, T(0.5));
    dr[threads - 1].assign(C, T(0.5));
    k::bias_backward(dy.data(), db[threads - 1].data(), N, C);
    k::embedding_backward(dy.data(), tokens.data(), N, C, T(3), dt[threads - 1].data());
    auto grad = dy;
    k::relu_dropout_backward(grad.data(), out.data(), dr[threads - 1].data(), N, C, 0.1f);
  }
  omp_set_num_threads(saved);
  EXPECT_EQ(std::memcmp(db[0].data(), db[1].data(), sizeof(T) * C), 0);
  EXPECT_EQ(std::memcmp(dt[0].data(), dt[1].data(), sizeof(T) * dt[0].size()), 0);
  EXPECT_EQ(std::memcmp(dr[0].data(), dr[1].data(), sizeof(T) * C), 0);
}

TEST(VectorMath, ExpMatchesTheLibraryOverTheWholeRange) {
  std::vector<float> x;
  for (float v = -100.0f; v <= 88.0f; v += 0.0137f) x.push_back(v);
  x.push_back(-INFINITY);
  std::vector<float> out(x.size(), -1.0f);
  k::exp_sum(x.data(), static_cast<long>(x.size()), 0.0f, 1.0f, out.data());  // (the sum overflows float here)
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = std::exp(static_cast<double>(x[i]));
    if (x[i] < -87.3f) {
      EXPECT_EQ(out[i], 0.0f) << x[i];  // flushed to zero, no denormals
    } else {
      EXPECT_NEAR(out[i] / e, 1.0, 3e-7) << x[i];
    }
  }
}

TEST(VectorMath, RowPrimitivesEqualTheScalarLoopsOnEveryLength) {
  for (int n : {0, 1, 7, 8, 9, 31, 1000, 37003}) {
    std::vector<float> x(n), y(n), out(n), out_scalar(n);
    fill_uniform(x, n + 1, -6.0, 6.0);
    fill_uniform(y, n + 2, -1.0, 1.0);
    EXPECT_EQ(k::max_value(x.data(), n), nv::max_value(x.data(), n)) << n;
    EXPECT_NEAR(k::sum_value(x.data(), n), nv::sum_value(x.data(), n), 1e-5 * (n + 1)) << n;
    double dot = 0;
    for (int i = 0; i < n; ++i) dot += static_cast<double>(x[i]) * y[i];
    EXPECT_NEAR(k::dot(x.data(), y.data(), n), dot, 1e-5 * (n + 1)) << n;
    const float s = k::exp_sum(x.data(), n, 1.5f, 0.7f, out.data());
    const float s_scalar = nv::exp_sum(x.data(), n, 1.5f, 0.7f, out_scalar.data());
    EXPECT_NEAR(s, s_scalar, 1e-5 * std::abs(s_scalar)) << n;
    for (int i = 0; i < n; ++i) ASSERT_NEAR(out[i], out_scalar[i], 3e-7 * out_scalar[i]) << n << " " << i;
    EXPECT_NEAR(k::exp_sum(x.data(), n, 1.5f, 0.7f, nullptr), s, 1e-6 * std::abs(s)) << "sum only, " << n;
    // Every lane of the main loops (sixteen or eight wide) rounds as the padded tail's single lane does.
    for (int i = 0; i < n; ++i) {
      float one = 0;
      k::exp_sum(x.data() + i, 1, 1.5f, 0.7f, &one);
      ASSERT_EQ(out[i], one) << n << " " << i;
    }
    const auto [sum, max] = k::sum_and_max(x.data(), n);
    EXPECT_EQ(sum, k::sum_value(x.data(), n)) << n;
    EXPECT_EQ(max, k::max_value(x.data(), n)) << n;
  }
}

}  // namespace
}  // namespace heptapod
