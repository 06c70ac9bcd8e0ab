// Fast kernels against their naive twins (kernels/naive/naive.h) where the twins came later than the kernels:
// the decoder's cached attention (float and half caches, on and off the AVX2 and AVX-512 paths), the residual
// layer norm, dropout_add and transpose. Float results agree to rounding (relative 1e-5, absolute 1e-6 where
// values are small); transpose moves values, so it agrees exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "heptapod/kernels/cached_attention.h"
#include "heptapod/kernels/dropout.h"
#include "heptapod/kernels/half.h"
#include "heptapod/kernels/layer_norm.h"
#include "heptapod/kernels/naive/naive.h"
#include "heptapod/kernels/panel_gemm.h"
#include "heptapod/kernels/transpose.h"
#include "test_util.h"

namespace heptapod {
namespace {

namespace k = kernels;
namespace nv = kernels::naive;
using test::expect_close;
using test::kNaN;
using test::tol;
using test::uniform;

template <typename T>
class NaiveTwins : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(NaiveTwins, ScalarTypes);

// ---------------------------------------------------------------------------------- cached attention

// Every (count, H, KH, D) case for cache element type E: q (H*D); keys and values each a buffer of scattered
// (KH*D) vectors (KH < H: grouped-query attention), position j's at offsets[j] (shuffled slots of a wider stride, shifted by a few elements, as a
// beam's history lies); scores (H, stride) with stride > count, its padding columns left as they were.
template <typename E>
void check_attend_cached() {
  struct Heads {
    int H, KH, D;
  };
  // 64, 320 (256 + 64) and 512 wide with D = 64, and 4 x 16: the AVX-512 path where the build has it;
  // 3 x 8 and 2 x 24: the AVX2 per-head path; 3 x 7 and 1 x 1: the scalar loops; each with fewer key/value
  // heads too.
  const Heads heads[] = {{1, 1, 64}, {5, 5, 64}, {8, 8, 64}, {8, 2, 64}, {8, 1, 64}, {4, 4, 16}, {4, 2, 16},
                         {3, 3, 8},  {6, 3, 8},  {2, 2, 24}, {3, 3, 7},  {3, 1, 7},  {1, 1, 1}};
  std::mt19937 rng(23);
  unsigned seed = 1;
  for (const Heads hd : heads)
    for (int count : {1, 2, 5, 37, 300}) {
      const int H = hd.H, KH = hd.KH, D = hd.D, C = H * D;
      const int slots = count + 7;
      const long slot_stride = KH * D + 5;
      const std::size_t cache_size = static_cast<std::size_t>(slots) * slot_stride;
      std::vector<int> slot(slots);
      std::iota(slot.begin(), slot.end(), 0);
      std::shuffle(slot.begin(), slot.end(), rng);
      std::vector<long> offsets(count);  // (count)
      for (int j = 0; j < count; ++j) offsets[j] = slot[j] * slot_stride + static_cast<long>(rng() % 6);

      const auto q = uniform<float>(C, ++seed, -1.5, 1.5);
      const auto raw_keys = uniform<float>(cache_size, ++seed, -1.5, 1.5);
      const auto raw_values = uniform<float>(cache_size, ++seed, -1.5, 1.5);
      std::vector<E> keys(cache_size), values(cache_size);
      for (std::size_t i = 0; i < cache_size; ++i) {
        if constexpr (std::is_same_v<E, float>) {
          keys[i] = raw_keys[i];
          values[i] = raw_values[i];
        } else {
          keys[i] = k::to_half_scalar(raw_keys[i]);
          values[i] = k::to_half_scalar(raw_values[i]);
        }
      }

      const float scale = 1.0f / std::sqrt(static_cast<float>(D));
      const int stride = count + 3;
      // Without and with additive score terms (Transformer-XL's positions), (H, stride).
      const auto bias = uniform<float>(static_cast<std::size_t>(H) * stride, ++seed, -2.0, 2.0);
      for (const float* b : {static_cast<const float*>(nullptr), bias.data()}) {
        std::vector<float> scores(static_cast<std::size_t>(H) * stride, -9.0f), out(C, kNaN<float>);  // (H, stride), (C)
        auto scores0 = scores, out0 = out;
        k::attend_cached(q.data(), keys.data(), values.data(), offsets.data(), count, H, KH, D, scale, scores.data(),
                         stride, out.data(), b);
        nv::attend_cached(q.data(), keys.data(), values.data(), offsets.data(), count, H, KH, D, scale,
                          scores0.data(), stride, out0.data(), b);

        const std::string what = "attend_cached H=" + std::to_string(H) + " KH=" + std::to_string(KH) +
                                 " D=" + std::to_string(D) +
                                 " count=" + std::to_string(count) + (b ? " with bias" : "");
        std::vector<float> probs, probs0;  // (H, count): the scores without their padding
        for (int h = 0; h < H; ++h)
          for (int j = 0; j < stride; ++j) {
            const std::size_t i = static_cast<std::size_t>(h) * stride + j;
            if (j < count) {
              probs.push_back(scores[i]);
              probs0.push_back(scores0[i]);
            } else {
              ASSERT_EQ(scores[i], -9.0f) << what << ": wrote score padding at head " << h << " column " << j;
            }
          }
        expect_close(probs, probs0, 1e-5, what + " scores", 0.1);
        expect_close(out, out0, 1e-5, what + " out", 0.1);
      }
    }
}

TEST(NaiveTwins, AttendCachedFloatCacheMatchesNaive) { check_attend_cached<float>(); }
TEST(NaiveTwins, AttendCachedHalfCacheMatchesNaive) { check_attend_cached<k::half>(); }

// ------------------------------------------------------------------------------- residual layer norm

TYPED_TEST(NaiveTwins, ResidualLayerNormMatchesNaive) {
  using T = TypeParam;
  struct NC {
    int N, C;
  };
  // C off and on the vector width; 40 x 512 and 300 x 67 above kParallelMinWork (the OpenMP path).
  const NC shapes[] = {{1, 1}, {1, 5}, {3, 37}, {16, 64}, {40, 512}, {300, 67}};
  unsigned seed = 100;
  for (const NC s : shapes)
    for (bool with_bias : {false, true})
      for (float p : {0.0f, 0.1f})
        for (bool in_place : {false, true}) {  // in place: y over x with mean and rstd null, as the decoder calls it
          const std::size_t n = static_cast<std::size_t>(s.N) * s.C;
          const auto x0 = uniform<T>(n, ++seed, -2, 3);      // (N, C)
          const auto delta0 = uniform<T>(n, ++seed, -1, 1);  // (N, C)
          const auto gamma = uniform<T>(s.C, ++seed, 0.5, 1.5), beta = uniform<T>(s.C, ++seed, -0.5, 0.5);  // (C)
          const auto bias = uniform<T>(s.C, ++seed, -1, 1);                                                 // (C)
          const T* b = with_bias ? bias.data() : nullptr;

          auto x = x0, delta = delta0, x_twin = x0, delta_twin = delta0;
          std::vector<T> y(n, kNaN<T>), mean(s.N, kNaN<T>), rstd(s.N, kNaN<T>);  // (N, C), (N), (N)
          auto y_twin = y, mean_twin = mean, rstd_twin = rstd;
          T* out = in_place ? x.data() : y.data();
          T* out_twin = in_place ? x_twin.data() : y_twin.data();
          k::residual_layer_norm(x.data(), delta.data(), b, p, 11, 12, gamma.data(), beta.data(), out,
                                 in_place ? nullptr : mean.data(), in_place ? nullptr : rstd.data(), s.N, s.C, T(1e-5));
          nv::residual_layer_norm(x_twin.data(), delta_twin.data(), b, p, 11, 12, gamma.data(), beta.data(), out_twin,
                                  in_place ? nullptr : mean_twin.data(), in_place ? nullptr : rstd_twin.data(), s.N,
                                  s.C, T(1e-5));

          const std::string what = "residual layer norm N=" + std::to_string(s.N) + " C=" + std::to_string(s.C) +
                                   " p=" + std::to_string(p) + (with_bias ? " with bias" : "") +
                                   (in_place ? " in place" : "");
          expect_close(in_place ? x : y, in_place ? x_twin : y_twin, tol<T>(), what + " y");
          expect_close(delta, delta_twin, tol<T>(), what + " the sum left in delta");
          if (in_place) continue;  // mean and rstd not asked for
          expect_close(mean, mean_twin, tol<T>(), what + " mean", 1.0);
          expect_close(rstd, rstd_twin, tol<T>(), what + " rstd");
        }
}

// ----------------------------------------------------------------------------------------- dropout_add

TYPED_TEST(NaiveTwins, DropoutAddMatchesNaive) {
  using T = TypeParam;
  for (long n : {1L, 17L, 1000L, 100003L})  // the last crosses the parallel threshold with a ragged chunk
    for (float p : {0.0f, 0.3f}) {
      const auto x = uniform<T>(n, 200 + n);  // (n)
      auto delta = uniform<T>(n, 300 + n);    // (n)
      auto delta_twin = delta;
      k::dropout_add(x.data(), delta.data(), n, p, 31, 32);
      nv::dropout_add(x.data(), delta_twin.data(), n, p, 31, 32);
      expect_close(delta, delta_twin, tol<T>(), "dropout_add n=" + std::to_string(n) + " p=" + std::to_string(p));
    }
}

// ------------------------------------------------------------------------------------------- transpose

TYPED_TEST(NaiveTwins, TransposeMatchesNaiveExactly) {
  using T = TypeParam;
  struct Shape {
    int rows, cols;
  };
  // Whole 8 x 8 and 16 x 16 register blocks, ragged edges on either side, and single elements.
  const Shape shapes[] = {{1, 1}, {7, 9}, {16, 16}, {28, 64}, {64, 28}, {33, 100}, {1, 40}, {40, 1}};
  for (const Shape s : shapes) {
    const int ld_in = s.cols + 3, ld_out = s.rows + 5;  // wider than the used width
    const auto in = uniform<T>(static_cast<std::size_t>(s.rows) * ld_in, 400 + s.rows * 101 + s.cols);  // (rows, ld_in)
    std::vector<T> out(static_cast<std::size_t>(s.cols) * ld_out, T(-7));  // (cols, ld_out)
    auto out_twin = out;
    k::transpose(in.data(), s.rows, s.cols, ld_in, out.data(), ld_out);
    nv::transpose(in.data(), s.rows, s.cols, ld_in, out_twin.data(), ld_out);
    for (int j = 0; j < s.cols; ++j)
      for (int i = 0; i < ld_out; ++i) {  // the padding past rows too: neither may write it
        const std::size_t at = static_cast<std::size_t>(j) * ld_out + i;
        ASSERT_EQ(out[at], out_twin[at]) << "transpose rows=" << s.rows << " cols=" << s.cols << " at " << j << ","
                                         << i;
      }
  }
}

// panel_gemm against the naive product on weights laid out in its column panels directly (not through
// oneDNN, whose layout depends on its ISA): under every ISA, the AVX-512 tiles or the plain loops run.
TEST(NaiveTwins, PanelGemmMatchesNaive) {
  unsigned seed = 40;
  for (int N : {1, 64, 100, 300})
    for (int K : {1, 7, 64, 300})
      for (int rows : {1, 5, 6, 13, 40})
        for (bool with_bias : {false, true})
          for (bool relu : {false, true}) {
            const int k_padded = (K + 15) / 16 * 16, panels = (N + k::kPanelWidth - 1) / k::kPanelWidth;
            const auto w = uniform<float>(static_cast<std::size_t>(N) * K, ++seed);  // (N, K)
            const auto x = uniform<float>(static_cast<std::size_t>(rows) * K, ++seed);  // (rows, K)
            const auto bias = uniform<float>(N, ++seed);                                // (N)
            // (panels, k_padded, 64): element (k, n) at (n / 64) * k_padded * 64 + k * 64 + n % 64; zero padding.
            std::vector<float> packed(static_cast<std::size_t>(panels) * k_padded * k::kPanelWidth, 0.0f);
            for (int n = 0; n < N; ++n)
              for (int kk = 0; kk < K; ++kk)
                packed[(static_cast<std::size_t>(n / k::kPanelWidth) * k_padded + kk) * k::kPanelWidth +
                       n % k::kPanelWidth] = w[static_cast<std::size_t>(n) * K + kk];
            std::vector<float> want(static_cast<std::size_t>(rows) * N), got(want.size(), kNaN<float>);  // (rows, N)
            nv::gemm<float>(k::Trans::No, k::Trans::Yes, rows, N, K, 1.0f, x.data(), K, w.data(), K, 0.0f,
                            want.data(), N);
            for (int r = 0; r < rows; ++r)
              for (int n = 0; n < N; ++n) {
                float& v = want[static_cast<std::size_t>(r) * N + n];
                if (with_bias) v += bias[n];
                if (relu) v = std::max(v, 0.0f);
              }
            k::panel_gemm(packed.data(), N, K, k_padded, x.data(), rows, with_bias ? bias.data() : nullptr, relu,
                          got.data());
            expect_close(got, want, tol<float>(),
                         "N " + std::to_string(N) + " K " + std::to_string(K) + " rows " + std::to_string(rows), 0.1);
          }
}

}  // namespace
}  // namespace heptapod
