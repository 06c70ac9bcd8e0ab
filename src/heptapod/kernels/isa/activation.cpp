// SiLU, GELU and its tanh approximation, element-wise, forward and backward (kernels/activation.h). Double
// rows and builds without AVX2 call the C library (std::exp, std::erfc, std::tanh). With AVX2, float rows go
// eight at a time (sixteen in the AVX-512 build, the same operations lane by lane, so both give the same
// bits), a ragged end through masked loads and stores, every element by the same operations:
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

// The operations the activations need, on eight lanes (AVX2) and, in the AVX-512 build, sixteen: the same
// operations lane by lane, so both widths give the same bits (as the eight-lane code did in both builds).
// Those exp's lanes already name (isa/simd.h's Width8 and Width16) come from there.
struct Lanes8 : simd::Width8 {
  static Vec set(double v) { return set1(static_cast<float>(v)); }
  static Vec abs(Vec a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
  static Vec relu(Vec a) { return _mm256_max_ps(a, _mm256_setzero_ps()); }
  static Vec exp(Vec a) { return simd::exp8(a); }
  // if_nonnegative where x >= 0, else if_negative.
  static Vec choose(Vec x, Vec if_negative, Vec if_nonnegative) {
    return _mm256_blendv_ps(if_negative, if_nonnegative, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
  }
  static Vec step(Vec x) {  // 1 where x > 0, else 0
    return _mm256_and_ps(_mm256_set1_ps(1.0f), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ));
  }
  // f(i, v) over x (n) a vector at a time, the last group through a lane mask: v the loaded lanes, the
  // result stored to out (n). load(p, i) reads another row's lanes at the same place.
  template <typename F>
  static void each(const float* x, float* out, long n, F f) {
    long i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(i, _mm256_loadu_ps(x + i)));
    if (i == n) return;
    const __m256i mask = simd::lane_mask(static_cast<int>(n - i));
    _mm256_maskstore_ps(out + i, mask, f(i, _mm256_maskload_ps(x + i, mask)));
  }
  static Vec load(const float* p, long i, long n) {
    return _mm256_maskload_ps(p + i, simd::lane_mask(static_cast<int>(std::min<long>(8, n - i))));
  }
  static void store(float* p, long i, long n, Vec v) {
    _mm256_maskstore_ps(p + i, simd::lane_mask(static_cast<int>(std::min<long>(8, n - i))), v);
  }
};

#if defined(__AVX512F__)
// (The zero-masked forms where GCC 12 warns about the unmasked ones' undefined pass-through operand.)
struct Lanes16 : simd::Width16 {
  static Vec set(double v) { return set1(static_cast<float>(v)); }
  static Vec abs(Vec a) {
    return _mm512_castsi512_ps(
        _mm512_maskz_andnot_epi32(kAll, _mm512_castps_si512(_mm512_set1_ps(-0.0f)), _mm512_castps_si512(a)));
  }
  static Vec relu(Vec a) { return _mm512_maskz_max_ps(kAll, a, _mm512_setzero_ps()); }
  static Vec exp(Vec a) { return simd::exp16(a); }
  static Vec choose(Vec x, Vec if_negative, Vec if_nonnegative) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), if_negative, if_nonnegative);
  }
  static Vec step(Vec x) {
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ), _mm512_set1_ps(1.0f));
  }
  static __mmask16 mask(long i, long n) {
    return static_cast<__mmask16>((1u << std::min<long>(16, n - i)) - 1u);
  }
  template <typename F>
  static void each(const float* x, float* out, long n, F f) {
    long i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(i, _mm512_loadu_ps(x + i)));
    if (i == n) return;
    const __mmask16 m = mask(i, n);
    _mm512_mask_storeu_ps(out + i, m, f(i, _mm512_maskz_loadu_ps(m, x + i)));
  }
  static Vec load(const float* p, long i, long n) { return _mm512_maskz_loadu_ps(mask(i, n), p + i); }
  static void store(float* p, long i, long n, Vec v) { _mm512_mask_storeu_ps(p + i, mask(i, n), v); }
};
using Lanes = Lanes16;
#else
using Lanes = Lanes8;
#endif

template <typename W>
using V = typename W::Vec;

// 1 / (1 + exp(-a)): 1 above 87.3, about 1e-38 (and then 0) far below -87.
template <typename W>
inline V<W> sigmoid(V<W> a) {
  const V<W> one = W::set(1.0);
  return W::div(one, W::add(one, W::exp(W::sub(W::zero(), a))));
}

// Phi(x), the standard normal's distribution function, by erfc (see the file's comment).
template <typename W>
inline V<W> normal_cdf(V<W> x) {
  const V<W> z = W::mul(W::abs(x), W::set(M_SQRT1_2));  // |x| / sqrt 2
  const V<W> t = W::div(W::set(1.0), W::fmadd(z, W::set(0.5), W::set(1.0)));
  V<W> p = W::set(0.17087277);
  for (const double c : {-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
                         1.00002368, -1.26551223})
    p = W::fmadd(p, t, W::set(c));
  // z^2 = x^2 / 2 = z2 + z2_error exactly (z itself is rounded, and the tail's exp would magnify that).
  const V<W> half = W::set(0.5), x2 = W::mul(x, x);
  const V<W> z2 = W::mul(half, x2), z2_error = W::mul(half, W::fmsub(x, x, x2));
  const V<W> erfc = W::mul(t, W::exp(W::sub(W::sub(p, z2), z2_error)));
  const V<W> half_erfc = W::mul(half, erfc);
  return W::choose(x, half_erfc, W::sub(W::set(1.0), half_erfc));
}

// sigmoid(2u) of the tanh GELU: (1 + tanh(u)) / 2.
template <typename W>
inline V<W> gelu_tanh_gate(V<W> x) {
  const V<W> x2 = W::mul(x, x);
  const V<W> u = W::mul(W::set(kGeluTanhScale), W::fmadd(W::mul(W::set(kGeluTanhCubic), x2), x, x));
  return sigmoid<W>(W::add(u, u));
}

template <typename W>
inline V<W> apply(V<W> x, Activation act) {
  switch (act) {
    case Activation::Relu: return W::relu(x);
    case Activation::Silu: return W::mul(x, sigmoid<W>(x));
    case Activation::Gelu: return W::mul(x, normal_cdf<W>(x));
    case Activation::GeluTanh: return W::mul(x, gelu_tanh_gate<W>(x));
  }
  return x;
}

template <typename W>
inline V<W> slope(V<W> x, Activation act) {
  const V<W> one = W::set(1.0);
  switch (act) {
    case Activation::Relu: return W::step(x);
    case Activation::Silu: {  // s (1 + x (1 - s))
      const V<W> s = sigmoid<W>(x);
      return W::mul(s, W::fmadd(x, W::sub(one, s), one));
    }
    case Activation::Gelu: {  // Phi(x) + x exp(-x^2 / 2) / sqrt(2 pi)
      const V<W> pdf = W::mul(W::exp(W::mul(W::set(-0.5), W::mul(x, x))), W::set(kInvSqrt2Pi));
      return W::fmadd(x, pdf, normal_cdf<W>(x));
    }
    case Activation::GeluTanh: {  // s + 2 x s (1 - s) sqrt(2/pi) (1 + 3 0.044715 x^2), s = sigmoid(2u)
      const V<W> s = gelu_tanh_gate<W>(x);
      const V<W> du = W::mul(W::set(2 * kGeluTanhScale), W::fmadd(W::set(3 * kGeluTanhCubic), W::mul(x, x), one));
      return W::fmadd(W::mul(x, W::mul(s, W::sub(one, s))), du, s);
    }
  }
  return one;
}

}  // namespace lanes
#endif

// One row of F: pre += bias (when given), out = act(pre).
template <typename T>
void activate_row(T* pre, const T* bias, T* out, int F, Activation act) {
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (std::is_same_v<T, float>) {
    using W = lanes::Lanes;
    W::each(pre, out, F, [&](long i, W::Vec p) {
      if (bias) {
        p = W::add(p, W::load(bias, i, F));
        W::store(pre, i, F, p);
      }
      return lanes::apply<W>(p, act);
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
    using W = lanes::Lanes;
    W::each(pre, grad, n, [&](long i, W::Vec p) { return W::mul(W::load(grad, i, n), lanes::slope<W>(p, act)); });
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
