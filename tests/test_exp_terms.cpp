// kernels::exp_terms, sampling's exp(x - shift) in double, against the C library's exp: within 2 ulp over the
// float inputs a softmax meets (from the largest logit down past exp's underflow, and up past its overflow),
// the special values exact (-inf -> 0, NaN kept, overflow -> inf); every row length gives what one long row
// gives; and the ISAs that share its vector code (AVX2, AVX-512) give the same bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "heptapod/core/cpu_info.h"
#include "heptapod/kernels/isa.h"
#include "heptapod/kernels/kernel_table.h"
#include "heptapod/kernels/vector_math.h"

namespace heptapod {
namespace {

// |a - b| in units of b's last place (the gap between b and the next double away from zero).
double ulps(double a, double b) {
  if (a == b) return 0;
  const double gap = std::nextafter(std::abs(b), std::numeric_limits<double>::infinity()) - std::abs(b);
  return std::abs(a - b) / gap;
}

// Inputs: every 1/64 in [-760, 720] plus a fine grid around 0, and shifts that make x - shift inexact.
std::vector<float> inputs() {
  std::vector<float> x;
  for (int i = -760 * 64; i <= 720 * 64; ++i) x.push_back(static_cast<float>(i) / 64.0f);
  for (int i = -4096; i <= 4096; ++i) x.push_back(static_cast<float>(i) * 1.2345e-4f);
  return x;
}

TEST(ExpTerms, AreWithinTwoUlpOfTheCLibrary) {
  const std::vector<float> x = inputs();
  std::vector<double> out(x.size());
  for (const double shift : {0.0, 3.25, -17.0625, 0.1}) {
    kernels::exp_terms(x.data(), static_cast<long>(x.size()), shift, out.data());
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double reference = std::exp(static_cast<double>(x[i]) - shift);
      if (reference < std::numeric_limits<double>::min()) {  // subnormal or zero: within 2 of the least step
        ASSERT_LE(std::abs(out[i] - reference), 2 * std::numeric_limits<double>::denorm_min()) << x[i] - shift;
        continue;
      }
      if (std::isinf(reference)) {
        ASSERT_TRUE(std::isinf(out[i])) << x[i] - shift;
        continue;
      }
      worst = std::max(worst, ulps(out[i], reference));
      ASSERT_LE(ulps(out[i], reference), 2.0) << "exp(" << x[i] << " - " << shift << ") (" <<
          kernels::selected_isa().reason << ")";
    }
    if (kernels::selected_isa().isa != kernels::Isa::baseline)  // the baseline build calls the C library
      EXPECT_GT(worst, 0.0);  // a function of its own, so some last place differs
  }
}

TEST(ExpTerms, SpecialValuesAndRowLengths) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {-inf, inf, std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f, -1e30f, 1e30f};
  std::vector<double> out(special.size());
  kernels::exp_terms(special.data(), static_cast<long>(special.size()), 0.0, out.data());
  EXPECT_EQ(out[0], 0.0);
  EXPECT_TRUE(std::isinf(out[1]) && out[1] > 0);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 1.0);
  EXPECT_EQ(out[4], 1.0);
  EXPECT_EQ(out[5], 0.0);
  EXPECT_TRUE(std::isinf(out[6]));
  // Every length from 1 to 11, at every offset, gives the bits one long row gives.
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = -0.37f * static_cast<float>(i) + 1.5f;
  std::vector<double> whole(x.size());
  kernels::exp_terms(x.data(), static_cast<long>(x.size()), 1.25, whole.data());
  for (long n = 1; n <= 11; ++n)
    for (long at = 0; at + n <= 64; at += 5) {
      std::vector<double> part(n);
      kernels::exp_terms(x.data() + at, n, 1.25, part.data());
      ASSERT_EQ(std::memcmp(part.data(), whole.data() + at, sizeof(double) * n), 0) << n << " at " << at;
    }
}

TEST(ExpTerms, AreTheSameBitsUnderAvx2AndAvx512) {
  const std::vector<float> x = inputs();
  std::vector<std::vector<double>> results;
  for (kernels::Isa isa : kernels::compiled_isas()) {
    if (isa == kernels::Isa::baseline || !kernels::cpu_runs(cpu_info(), isa)) continue;
    results.emplace_back(x.size());
    kernels::isa_kernels(isa).exp_terms(x.data(), static_cast<long>(x.size()), 2.5, results.back().data());
  }
  if (results.size() < 2) GTEST_SKIP() << "this machine runs fewer than two vector ISAs";
  for (std::size_t r = 1; r < results.size(); ++r)
    EXPECT_EQ(std::memcmp(results[r].data(), results[0].data(), sizeof(double) * x.size()), 0);
}

}  // namespace
}  // namespace heptapod
