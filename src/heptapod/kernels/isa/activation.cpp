// SiLU, GELU and its tanh approximation, element-wise, forward and backward (kernels/activation.h). Double
// rows and builds without AVX2 call the C library (std::exp, std::erfc, std::tanh). With AVX2 (the AVX-512 build runs the same eight-lane code, so both give
// the same bits), float rows go eight at a time, a ragged end through masked loads and stores, every element
// by the same operations:
// - sigmoid(a) = 1 / (1 + exp(-a)) on isa/simd.h's exp; SiLU is x sigmoid(x), and the tanh GELU is
//   x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3), since (1 + tanh(u)) / 2 = sigmoid(2u): no cancellation
//   near -1;
// - the exact GELU is x Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2 with erfc(z) for z >= 0 from the Chebyshev
//   fit of Numerical Recipes (2nd ed., section 6.2, `erfcc`: t exp(-z^2 - 1.26551223 + t P(t)),
//   t = 1 / (1 + z / 2), fractional error below 1.2e-7 everywhere), z^2 = x^2 / 2 carried with its rounding
//   error so that the tail keeps its relative accuracy; Phi(x) = 1 - erfc(|x| / sqrt 2) / 2 for x >= 0.
// tests/test_activation_kernels.cpp holds both to bounds against the C library's functions in double.
#include "heptapod/kernels/activation.h"

#include <cmath>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

constexpr double kGeluTanhScale = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kGeluTanhCubic = 0.044715;
constexpr double kInvSqrt2Pi = 0.3989422804014327;  // 1 / sqrt(2 pi)

template <typename T>
T apply(T x, Activation act) {
  switch (act) {
    case Activation::Relu: return x > T(0) ? x : T(0);
    case Activation::Silu: return x / (T(1) + std::exp(-x));
    // x Phi(x) by erfc, and x (1 + tanh(u)) / 2 as x sigmoid(2u): the same functions as x (1 + erf(..)) / 2
    // and x (1 + tanh(u)) / 2, without their cancellation (to 0) far below zero.
    case Activation::Gelu: return T(0.5) * x * std::erfc(-x * T(M_SQRT1_2));
    case Activation::GeluTanh:
      return x / (T(1) + std::exp(T(-2) * T(kGeluTanhScale) * (x + T(kGeluTanhCubic) * x * x * x)));
  }
  return x;
}

// d act(x) / dx
template <typename T>
T slope(T x, Activation act) {
  switch (act) {
    case Activation::Relu: return x > T(0) ? T(1) : T(0);
    case Activation::Silu: {
      const T s = T(1) / (T(1) + std::exp(-x));
      return s * (T(1) + x * (T(1) - s));
    }
    case Activation::Gelu: {
      const T cdf = T(0.5) * std::erfc(-x * T(M_SQRT1_2));
      const T pdf = std::exp(T(-0.5) * x * x) * T(kInvSqrt2Pi);
      return cdf + x * pdf;
    }
    case Activation::GeluTanh: {
      const T t = std::tanh(T(kGeluTanhScale) * (x + T(kGeluTanhCubic) * x * x * x));
      return T(0.5) * (T(1) + t) +
             T(0.5) * x * (T(1) - t * t) * T(kGeluTanhScale) * (T(1) + T(3 * kGeluTanhCubic) * x * x);
    }
  }
  return T(1);
}

#ifdef HEPTAPOD_HAVE_AVX2
namespace lanes {

inline __m256 set(double v) { return _mm256_set1_ps(static_cast<float>(v)); }

// 1 / (1 + exp(-a)): 1 above 87.3, about 1e-38 (and then 0) far below -87.
inline __m256 sigmoid(__m256 a) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(one, _mm256_add_ps(one, simd::exp8(_mm256_sub_ps(_mm256_setzero_ps(), a))));
}

// Phi(x), the standard normal's distribution function, by erfc (see the file's comment).
inline __m256 normal_cdf(__m256 x) {
  const __m256 z = _mm256_mul_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), set(M_SQRT1_2));  // |x| / sqrt 2
  const __m256 t = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(z, _mm256_set1_ps(0.5f), _mm256_set1_ps(1.0f)));
  __m256 p = set(0.17087277);
  for (const double c : {-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
                         1.00002368, -1.26551223})
    p = _mm256_fmadd_ps(p, t, set(c));
  // z^2 = x^2 / 2 = z2 + z2_error exactly (z itself is rounded, and the tail's exp would magnify that).
  const __m256 half = _mm256_set1_ps(0.5f), x2 = _mm256_mul_ps(x, x);
  const __m256 z2 = _mm256_mul_ps(half, x2), z2_error = _mm256_mul_ps(half, _mm256_fmsub_ps(x, x, x2));
  const __m256 erfc = _mm256_mul_ps(t, simd::exp8(_mm256_sub_ps(_mm256_sub_ps(p, z2), z2_error)));
  const __m256 half_erfc = _mm256_mul_ps(_mm256_set1_ps(0.5f), erfc);
  const __m256 upper = _mm256_sub_ps(_mm256_set1_ps(1.0f), half_erfc);
  return _mm256_blendv_ps(half_erfc, upper, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
}

// sigmoid(2u) of the tanh GELU: (1 + tanh(u)) / 2.
inline __m256 gelu_tanh_gate(__m256 x) {
  const __m256 x2 = _mm256_mul_ps(x, x);
  const __m256 u = _mm256_mul_ps(set(kGeluTanhScale), _mm256_fmadd_ps(_mm256_mul_ps(set(kGeluTanhCubic), x2), x, x));
  return sigmoid(_mm256_add_ps(u, u));
}

inline __m256 apply(__m256 x, Activation act) {
  switch (act) {
    case Activation::Relu: return _mm256_max_ps(x, _mm256_setzero_ps());
    case Activation::Silu: return _mm256_mul_ps(x, sigmoid(x));
    case Activation::Gelu: return _mm256_mul_ps(x, normal_cdf(x));
    case Activation::GeluTanh: return _mm256_mul_ps(x, gelu_tanh_gate(x));
  }
  return x;
}

inline __m256 slope(__m256 x, Activation act) {
  const __m256 one = _mm256_set1_ps(1.0f);
  switch (act) {
    case Activation::Relu: return _mm256_and_ps(one, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
    case Activation::Silu: {  // s (1 + x (1 - s))
      const __m256 s = sigmoid(x);
      return _mm256_mul_ps(s, _mm256_fmadd_ps(x, _mm256_sub_ps(one, s), one));
    }
    case Activation::Gelu: {  // Phi(x) + x exp(-x^2 / 2) / sqrt(2 pi)
      const __m256 pdf = _mm256_mul_ps(simd::exp8(_mm256_mul_ps(_mm256_set1_ps(-0.5f), _mm256_mul_ps(x, x))), set(kInvSqrt2Pi));
      return _mm256_fmadd_ps(x, pdf, normal_cdf(x));
    }
    case Activation::GeluTanh: {  // s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 0.044715 x^2), s = sigmoid(2u)
      const __m256 s = gelu_tanh_gate(x);
      const __m256 du = _mm256_mul_ps(set(2 * kGeluTanhScale), _mm256_fmadd_ps(set(3 * kGeluTanhCubic), _mm256_mul_ps(x, x), one));
      return _mm256_fmadd_ps(_mm256_mul_ps(x, _mm256_mul_ps(s, _mm256_sub_ps(one, s))), du, s);
    }
  }
  return one;
}

// f(i, v) over x (n) eight at a time, the last group through a lane mask: v the loaded lanes, the result
// stored to out (n).
template <typename F>
inline void each_eight(const float* x, float* out, long n, F f) {
  long i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(i, _mm256_loadu_ps(x + i)));
  if (i == n) return;
  const __m256i mask = simd::lane_mask(static_cast<int>(n - i));
  _mm256_maskstore_ps(out + i, mask, f(i, _mm256_maskload_ps(x + i, mask)));
}

}  // namespace lanes
#endif

// One row of F: pre += bias (when given), out = act(pre).
template <typename T>
void activate_row(T* pre, const T* bias, T* out, int F, Activation act) {
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (std::is_same_v<T, float>) {
    lanes::each_eight(pre, out, F, [&](long i, __m256 p) {
      if (bias) {
        const __m256i mask = simd::lane_mask(static_cast<int>(std::min<long>(8, F - i)));
        p = _mm256_add_ps(p, _mm256_maskload_ps(bias + i, mask));
        _mm256_maskstore_ps(pre + i, mask, p);
      }
      return lanes::apply(p, act);
    });
    return;
  }
#endif
  for (int f = 0; f < F; ++f) {
    if (bias) pre[f] += bias[f];
    out[f] = apply(pre[f], act);
  }
}

// grad (n) *= act'(pre) (n).
template <typename T>
void scale_by_slope(T* grad, const T* pre, long n, Activation act) {
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (std::is_same_v<T, float>) {
    lanes::each_eight(pre, grad, n, [&](long i, __m256 p) {
      const __m256i mask = simd::lane_mask(static_cast<int>(std::min<long>(8, n - i)));
      return _mm256_mul_ps(_mm256_maskload_ps(grad + i, mask), lanes::slope(p, act));
    });
    return;
  }
#endif
  for (long i = 0; i < n; ++i) grad[i] *= slope(pre[i], act);
}

}  // namespace

template <typename T>
void bias_activation_forward(T* pre, const T* bias, T* out, int N, int F, Activation act) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * F > kParallelMinWork)
  for (int n = 0; n < N; ++n)
    activate_row(pre + static_cast<long>(n) * F, bias, out + static_cast<long>(n) * F, F, act);
}

template <typename T>
void activation_forward(T* x, long n, Activation act) {
  constexpr long kChunk = 4096;  // elements a thread takes at a time
#pragma omp parallel for schedule(static) if (n > kParallelMinWork)
  for (long c = 0; c < n; c += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, n - c));
    activate_row(x + c, static_cast<const T*>(nullptr), x + c, count, act);
  }
}

template <typename T>
void activation_backward(T* grad, const T* pre, T* dbias, int N, int F, Activation act) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * F > kParallelMinWork)
  for (int n = 0; n < N; ++n) scale_by_slope(grad + static_cast<long>(n) * F, pre + static_cast<long>(n) * F, F, act);
  if (!dbias) return;
  for (int n = 0; n < N; ++n) {
    const T* g = grad + static_cast<long>(n) * F;
    for (int f = 0; f < F; ++f) dbias[f] += g[f];
  }
}

void register_activation(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, bias_activation_forward);
  HEPTAPOD_REGISTER_TYPED(t, activation_forward);
  HEPTAPOD_REGISTER_TYPED(t, activation_backward);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
