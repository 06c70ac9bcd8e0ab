// The bfloat16-input products (kernels/matmul_precision.h) against a double-precision product of the same
// inputs rounded to bfloat16 here (round to nearest even), for every transpose, with alpha, beta and leading
// dimensions past the widths; where the CPU or the selected ISA lacks bfloat16 (isa_avx2.*, isa_baseline.*),
// the float32 fallback and its reason. CTest runs each test in a process of its own, so the precision is set
// before oneDNN's first product, as `train` sets it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/matmul_precision.h"

namespace heptapod {
namespace {

namespace k = kernels;

float round_to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Product {
  k::Trans ta, tb;
  int M, N, K, lda, ldb, ldc;
  float alpha, beta;
  std::vector<float> A, B, C0;
};

Product make_product(k::Trans ta, k::Trans tb, std::mt19937& rng) {
  Product p{ta, tb, 67, 130, 300, 0, 0, 133, 1.5f, 0.5f, {}, {}, {}};
  p.lda = (ta == k::Trans::Yes ? p.M : p.K) + 3;
  p.ldb = (tb == k::Trans::Yes ? p.K : p.N) + 5;
  std::normal_distribution<float> normal(0.0f, 1.0f);
  p.A.resize(static_cast<std::size_t>(p.lda) * (ta == k::Trans::Yes ? p.K : p.M));
  p.B.resize(static_cast<std::size_t>(p.ldb) * (tb == k::Trans::Yes ? p.N : p.K));
  p.C0.resize(static_cast<std::size_t>(p.ldc) * p.M);
  for (auto* v : {&p.A, &p.B, &p.C0})
    for (float& x : *v) x = normal(rng);
  return p;
}

// alpha op(A) op(B) + beta C0 in double, the inputs rounded to bfloat16 first or not; and the sum of the
// terms' magnitudes, for the tolerance.
void reference(const Product& p, bool bf16, std::vector<double>& out, std::vector<double>& magnitude) {
  out.assign(static_cast<std::size_t>(p.M) * p.N, 0.0);
  magnitude.assign(out.size(), 0.0);
  auto a = [&](int m, int kk) { return p.ta == k::Trans::Yes ? p.A[kk * p.lda + m] : p.A[m * p.lda + kk]; };
  auto b = [&](int kk, int n) { return p.tb == k::Trans::Yes ? p.B[n * p.ldb + kk] : p.B[kk * p.ldb + n]; };
  for (int m = 0; m < p.M; ++m)
    for (int n = 0; n < p.N; ++n) {
      double s = 0, mag = 0;
      for (int kk = 0; kk < p.K; ++kk) {
        const double t = bf16 ? double(round_to_bf16(a(m, kk))) * round_to_bf16(b(kk, n)) : double(a(m, kk)) * b(kk, n);
        s += t;
        mag += std::fabs(t);
      }
      out[m * p.N + n] = p.alpha * s + p.beta * p.C0[m * p.ldc + n];
      magnitude[m * p.N + n] = std::fabs(p.alpha) * mag + std::fabs(p.beta * p.C0[m * p.ldc + n]);
    }
}

TEST(MatmulPrecision, Bfloat16ProductsAreTheProductsOfRoundedInputs) {
  const k::MatmulPrecisionChoice choice = k::set_matmul_precision(k::MatmulPrecision::bfloat16);
  const bool expected = k::selected_isa().isa == k::Isa::avx512 && cpu_info().avx512bf16;
  if (choice.reason.find("oneDNN ran before") != std::string::npos)
    GTEST_SKIP() << "run alone (as CTest does): " << choice.reason;
  ASSERT_EQ(choice.precision == k::MatmulPrecision::bfloat16, expected) << choice.reason;
  ASSERT_EQ(k::matmul_precision(), choice.precision);
  if (!expected) {
    EXPECT_FALSE(choice.reason.empty());
  }
  std::mt19937 rng(3);
  for (k::Trans ta : {k::Trans::No, k::Trans::Yes})
    for (k::Trans tb : {k::Trans::No, k::Trans::Yes}) {
      const Product p = make_product(ta, tb, rng);
      std::vector<float> C = p.C0;
      k::gemm<float>(ta, tb, p.M, p.N, p.K, p.alpha, p.A.data(), p.lda, p.B.data(), p.ldb, p.beta, C.data(), p.ldc);
      std::vector<double> rounded, exact, magnitude;
      reference(p, true, rounded, magnitude);
      reference(p, false, exact, magnitude);
      double worst = 0, from_exact = 0;
      for (int m = 0; m < p.M; ++m)
        for (int n = 0; n < p.N; ++n) {
          const double got = C[m * p.ldc + n], mag = magnitude[m * p.N + n];
          worst = std::max(worst, std::fabs(got - (expected ? rounded : exact)[m * p.N + n]) / mag);
          from_exact = std::max(from_exact, std::fabs(got - exact[m * p.N + n]) / mag);
        }
      const std::string where = std::string("ta ") + (ta == k::Trans::Yes ? "T" : "N") + " tb " + (tb == k::Trans::Yes ? "T" : "N");
      EXPECT_LT(worst, 2e-6) << where;  // float accumulation of 300 terms
      // bfloat16's 8 significant bits leave errors of about 2^-9 per input: far above float's rounding.
      if (expected) {
        EXPECT_GT(from_exact, 1e-4) << where;
      }
      // Columns N to ldc are not touched.
      for (int m = 0; m < p.M; ++m)
        for (int n = p.N; n < p.ldc; ++n) ASSERT_EQ(C[m * p.ldc + n], p.C0[m * p.ldc + n]) << where;
    }
  // Back to float32: the same call gives float32's products again.
  ASSERT_EQ(k::set_matmul_precision(k::MatmulPrecision::float32).precision, k::MatmulPrecision::float32);
  const Product p = make_product(k::Trans::No, k::Trans::Yes, rng);
  std::vector<float> C = p.C0;
  k::gemm<float>(p.ta, p.tb, p.M, p.N, p.K, p.alpha, p.A.data(), p.lda, p.B.data(), p.ldb, p.beta, C.data(), p.ldc);
  std::vector<double> exact, magnitude;
  reference(p, false, exact, magnitude);
  for (int m = 0; m < p.M; ++m)
    for (int n = 0; n < p.N; ++n)
      ASSERT_LT(std::fabs(C[m * p.ldc + n] - exact[m * p.N + n]) / magnitude[m * p.N + n], 2e-6);
}

}  // namespace
}  // namespace heptapod
