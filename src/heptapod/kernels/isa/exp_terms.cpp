// exp(x - shift) in double over a float row (kernels/vector_math.h's exp_terms): sampling's terms of the
// softmax over the vocabulary. Builds without AVX2 call the C library's std::exp. With AVX2 (the AVX-512
// build runs the same four-lane code, so both give the same bits), four at a time, a ragged end padded,
// every element by the same operations:
// - d = x - shift, clamped to [-746, 710] (exp is 0 below and infinite above in double), NaN kept;
// - d = n ln2 + r, n = round(d / ln2), |r| <= ln2 / 2, ln2 split into a 42-bit head (n ln2_hi exact for
//   |n| < 2^11) and its tail;
// - e^r = 1 + (r + r^2 P(r)), P the Taylor series' coefficients 1/2! .. 1/13! (truncation below 5e-18 of
//   the result), so the two last additions carry the rounding: within about 1 ulp;
// - times 2^n as 2^floor(n/2) 2^(n - floor(n/2)), two normal powers of two built in the exponent bits, so
//   subnormal results are rounded once and overflow gives infinity.
// tests/test_kernels.cpp holds it to 2 ulp of the C library's exp over the float inputs that matter.
#include <algorithm>
#include <cmath>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

#ifdef HEPTAPOD_HAVE_AVX2
// 2^k for integral k in [-1022, 1023], held in doubles: k + 2^52 + 2^51 puts k in the low mantissa bits.
inline __m256d power_of_two(__m256d k) {
  const __m256d magic = _mm256_set1_pd(6755399441055744.0);  // 2^52 + 2^51
  const __m256i bits = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(k, magic)), _mm256_castpd_si256(magic));
  return _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(bits, _mm256_set1_epi64x(1023)), 52));
}

// exp(d) on four lanes.
inline __m256d exp4(__m256d d) {
  const __m256d nan = _mm256_cmp_pd(d, d, _CMP_UNORD_Q);
  const __m256d x = _mm256_min_pd(_mm256_max_pd(d, _mm256_set1_pd(-746.0)), _mm256_set1_pd(710.0));
  const __m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(1.4426950408889634)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(6.93147180369123816490e-01), x);  // ln2's head
  r = _mm256_fnmadd_pd(n, _mm256_set1_pd(1.90821492927058770002e-10), r);           // and its tail
  constexpr double kInverseFactorials[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
                                           1.0 / 3628800.0,    1.0 / 362880.0,    1.0 / 40320.0,
                                           1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,
                                           1.0 / 24.0,         1.0 / 6.0,         1.0 / 2.0};  // 1/13! .. 1/2!
  __m256d p = _mm256_set1_pd(kInverseFactorials[0]);
  for (int i = 1; i < 12; ++i) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(kInverseFactorials[i]));
  const __m256d er = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_fmadd_pd(_mm256_mul_pd(r, r), p, r));
  const __m256d half_n = _mm256_floor_pd(_mm256_mul_pd(n, _mm256_set1_pd(0.5)));
  const __m256d e = _mm256_mul_pd(_mm256_mul_pd(er, power_of_two(half_n)), power_of_two(_mm256_sub_pd(n, half_n)));
  return _mm256_blendv_pd(e, d, nan);
}
#endif

void exp_terms(const float* x, long n, double shift, double* out) {
  long i = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  const __m256d s = _mm256_set1_pd(shift);
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(out + i, exp4(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i)), s)));
  if (i < n) {  // the ragged end, padded, through the same lanes
    float tail[4] = {0, 0, 0, 0};
    double result[4];
    std::copy(x + i, x + n, tail);
    _mm256_storeu_pd(result, exp4(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(tail)), s)));
    std::copy(result, result + (n - i), out + i);
  }
  return;
#endif
  for (; i < n; ++i) out[i] = std::exp(static_cast<double>(x[i]) - shift);
}

}  // namespace

void register_exp_terms(KernelTable& t) { t.exp_terms = &exp_terms; }

}  // namespace heptapod::kernels::HEPTAPOD_ISA
