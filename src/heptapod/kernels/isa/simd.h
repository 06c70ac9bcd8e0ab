// Vectorised row primitives for softmax-like and normalising kernels, inside one ISA's kernels (see
// kernels/isa.h; only kernel sources compiled per ISA include this): max, sum, centred sum of squares, dot
// product, exp with its sum.
// The float versions use AVX2+FMA when the ISA has them (an 8-lane Cephes-style exp: range reduction by
// ln 2, degree-6 polynomial, relative error below 2e-7 on [-87, 88], exactly 0 below -87.3); double and
// non-AVX2 builds take the scalar loops, which are also the naive twins the kernel tests compare against.
// AVX-512 builds run the same exp sixteen lanes at a time, operation for operation, and add each half into
// the eight-lane sums in the AVX2 order: results are bit-identical to the AVX2 build's.
#pragma once

#include <algorithm>
#include <cmath>

#include "heptapod/kernels/vector_math.h"

#ifndef HEPTAPOD_ISA
#error "kernels/isa/ headers belong to kernel sources compiled once per ISA (src/CMakeLists.txt)"
#endif

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define HEPTAPOD_HAVE_AVX2 1
#endif

namespace heptapod::kernels::HEPTAPOD_ISA {

template <typename T>
T max_value_scalar(const T* x, long n) {
  T m = -INFINITY;
  for (long i = 0; i < n; ++i) m = std::max(m, x[i]);
  return m;
}

template <typename T>
T sum_value_scalar(const T* x, long n) {
  T s = 0;
  for (long i = 0; i < n; ++i) s += x[i];
  return s;
}

// out[i] = exp(scale * (x[i] - shift)) (out may be x, or null to only sum); returns the sum of those.
template <typename T>
T exp_sum_scalar(const T* x, long n, T shift, T scale, T* out) {
  T s = 0;
  for (long i = 0; i < n; ++i) {
    const T e = std::exp(scale * (x[i] - shift));
    if (out) out[i] = e;
    s += e;
  }
  return s;
}

#ifdef HEPTAPOD_HAVE_AVX2
namespace simd {

// Lanes [0, n) of eight set: the mask of masked loads and stores at a ragged edge.
inline __m256i lane_mask(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The exp of exp8 and exp16, written once over the vector width W (its intrinsics): x = n ln2 + r with
// |r| <= ln2 / 2 (ln2 split in two for an exact product), a degree-6 polynomial in r, times 2^n built in the
// exponent bits; 0 below -87.3.
template <typename W>
inline typename W::Vec exp_lanes(typename W::Vec x) {
  using V = typename W::Vec;
  const V lo = W::set1(-87.3f);
  const auto underflow = W::less(x, lo);
  x = W::min(W::max(x, lo), W::set1(88.37f));
  const V n = W::round(W::mul(x, W::set1(1.44269504088896341f)));
  V r = W::fnmadd(n, W::set1(0.693359375f), x);
  r = W::fnmadd(n, W::set1(-2.12194440e-4f), r);
  V p = W::set1(1.9875691500e-4f);
  p = W::fmadd(p, r, W::set1(1.3981999507e-3f));
  p = W::fmadd(p, r, W::set1(8.3334519073e-3f));
  p = W::fmadd(p, r, W::set1(4.1665795894e-2f));
  p = W::fmadd(p, r, W::set1(1.6666665459e-1f));
  p = W::fmadd(p, r, W::set1(5.0000001201e-1f));
  p = W::fmadd(p, W::mul(r, r), W::add(r, W::set1(1.0f)));
  return W::times_pow2_unless(p, n, underflow);
}

struct Width8 {
  using Vec = __m256;
  static Vec set1(float v) { return _mm256_set1_ps(v); }
  static Vec less(Vec a, Vec b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
  static Vec min(Vec a, Vec b) { return _mm256_min_ps(a, b); }
  static Vec max(Vec a, Vec b) { return _mm256_max_ps(a, b); }
  static Vec round(Vec a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
  static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
  static Vec div(Vec a, Vec b) { return _mm256_div_ps(a, b); }
  static Vec fmsub(Vec a, Vec b, Vec c) { return _mm256_fmsub_ps(a, b, c); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  static Vec fnmadd(Vec a, Vec b, Vec c) { return _mm256_fnmadd_ps(a, b, c); }
  // p * 2^n, 0 where `zero` is set.
  static Vec times_pow2_unless(Vec p, Vec n, Vec zero) {
    const __m256i pow2n = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_andnot_ps(zero, _mm256_mul_ps(p, _mm256_castsi256_ps(pow2n)));
  }
};

inline __m256 exp8(__m256 x) { return exp_lanes<Width8>(x); }

#if defined(__AVX512F__)
// Sixteen lanes through the zero-masked forms of the intrinsics: GCC 12 flags the unmasked ones' undefined
// pass-through operand as maybe uninitialised.
struct Width16 {
  using Vec = __m512;
  static constexpr __mmask16 kAll = 0xFFFF;
  static Vec set1(float v) { return _mm512_set1_ps(v); }
  static __mmask16 less(Vec a, Vec b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
  static Vec min(Vec a, Vec b) { return _mm512_maskz_min_ps(kAll, a, b); }
  static Vec max(Vec a, Vec b) { return _mm512_maskz_max_ps(kAll, a, b); }
  static Vec round(Vec a) { return _mm512_maskz_roundscale_ps(kAll, a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec mul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
  static Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
  static Vec sub(Vec a, Vec b) { return _mm512_sub_ps(a, b); }
  static Vec div(Vec a, Vec b) { return _mm512_div_ps(a, b); }
  static Vec fmsub(Vec a, Vec b, Vec c) { return _mm512_fmsub_ps(a, b, c); }
  static Vec fmadd(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  static Vec fnmadd(Vec a, Vec b, Vec c) { return _mm512_fnmadd_ps(a, b, c); }
  static Vec times_pow2_unless(Vec p, Vec n, __mmask16 zero) {
    const __m512i exponent = _mm512_add_epi32(_mm512_maskz_cvtps_epi32(kAll, n), _mm512_set1_epi32(127));
    const __m512i pow2n = _mm512_maskz_slli_epi32(kAll, exponent, 23);
    return _mm512_maskz_mul_ps(static_cast<__mmask16>(~zero), p, _mm512_castsi512_ps(pow2n));
  }
};

// exp8 on sixteen lanes, the same operations in the same order.
inline __m512 exp16(__m512 x) { return exp_lanes<Width16>(x); }

// acc + v's low eight lanes, then + its high eight: sixteen elements summed in the eight-lane order.
inline __m256 add_halves(__m256 acc, __m512 v) {
  const __m512d halves = _mm512_castps_pd(v);
  acc = _mm256_add_ps(acc, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, halves, 0)));
  return _mm256_add_ps(acc, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, halves, 1)));
}
#endif

inline float horizontal_sum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

#if defined(__AVX512F__)
// The sixteen lanes' sum: the two halves added, then horizontal_sum.
inline float horizontal_sum(__m512 v) { return horizontal_sum(add_halves(_mm256_setzero_ps(), v)); }
#endif

inline float horizontal_max(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

}  // namespace simd
#endif

inline float max_value(const float* x, long n) {
  long i = 0;
  float m = -INFINITY;
#ifdef HEPTAPOD_HAVE_AVX2
  __m256 vm = _mm256_set1_ps(-INFINITY);
  for (; i + 8 <= n; i += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
  m = simd::horizontal_max(vm);
#endif
  return std::max(m, max_value_scalar(x + i, n - i));
}

inline float sum_value(const float* x, long n) {
  long i = 0;
  float s = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  __m256 vs = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) vs = _mm256_add_ps(vs, _mm256_loadu_ps(x + i));
  s = simd::horizontal_sum(vs);
#endif
  return s + sum_value_scalar(x + i, n - i);
}

// The sum and the maximum of x in one pass (the sum in sum_value's order).
inline SumMax<float> sum_and_max(const float* x, long n) {
  long i = 0;
  float s = 0, m = -INFINITY;
#ifdef HEPTAPOD_HAVE_AVX2
  __m256 vs = _mm256_setzero_ps(), vm = _mm256_set1_ps(-INFINITY);
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
    vs = _mm256_add_ps(vs, v);
    vm = _mm256_max_ps(vm, v);
  }
  s = simd::horizontal_sum(vs);
  m = simd::horizontal_max(vm);
#endif
  return {s + sum_value_scalar(x + i, n - i), std::max(m, max_value_scalar(x + i, n - i))};
}

inline float exp_sum(const float* x, long n, float shift, float scale, float* out) {
#ifdef HEPTAPOD_HAVE_AVX2
  long i = 0;
  float s = 0;
  const __m256 vshift = _mm256_set1_ps(shift), vscale = _mm256_set1_ps(scale);
  __m256 vs = _mm256_setzero_ps();
#if defined(__AVX512F__)
  const __m512 wshift = _mm512_set1_ps(shift), wscale = _mm512_set1_ps(scale);
  for (; i + 16 <= n; i += 16) {
    const __m512 e = simd::exp16(_mm512_mul_ps(wscale, _mm512_sub_ps(_mm512_loadu_ps(x + i), wshift)));
    if (out) _mm512_storeu_ps(out + i, e);
    vs = simd::add_halves(vs, e);
  }
#endif
  for (; i + 8 <= n; i += 8) {
    const __m256 e = simd::exp8(_mm256_mul_ps(vscale, _mm256_sub_ps(_mm256_loadu_ps(x + i), vshift)));
    if (out) _mm256_storeu_ps(out + i, e);
    vs = _mm256_add_ps(vs, e);
  }
  s = simd::horizontal_sum(vs);
  // The tail goes through the same polynomial (padded to 8 lanes) so every element rounds alike.
  if (i < n) {
    alignas(32) float tail[8];
    for (int j = 0; j < 8; ++j) tail[j] = i + j < n ? x[i + j] : shift;  // padding lanes are not used
    const __m256 e = simd::exp8(_mm256_mul_ps(vscale, _mm256_sub_ps(_mm256_load_ps(tail), vshift)));
    _mm256_store_ps(tail, e);
    for (long j = 0; i + j < n; ++j) {
      if (out) out[i + j] = tail[j];
      s += tail[j];
    }
  }
  return s;
#else
  // The library's exp, flushed to 0 below -87.3 as the vector paths are (no denormals).
  float s = 0;
  for (long i = 0; i < n; ++i) {
    const float a = scale * (x[i] - shift);
    const float e = a < -87.3f ? 0.0f : std::exp(a);
    if (out) out[i] = e;
    s += e;
  }
  return s;
#endif
}

inline float dot(const float* a, const float* b, long n) {
  long i = 0;
  float s = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  __m256 vs = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) vs = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), vs);
  s = simd::horizontal_sum(vs);
#endif
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

// sum_i (x[i] - mean)^2.
inline float centered_square_sum(const float* x, long n, float mean) {
  long i = 0;
  float s = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  const __m256 vm = _mm256_set1_ps(mean);
  __m256 vs = _mm256_setzero_ps();
  for (; i + 8 <= n; i += 8) {
    const __m256 d = _mm256_sub_ps(_mm256_loadu_ps(x + i), vm);
    vs = _mm256_fmadd_ps(d, d, vs);
  }
  s = simd::horizontal_sum(vs);
#endif
  for (; i < n; ++i) s += (x[i] - mean) * (x[i] - mean);
  return s;
}

inline double centered_square_sum(const double* x, long n, double mean) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += (x[i] - mean) * (x[i] - mean);
  return s;
}

inline double dot(const double* a, const double* b, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

inline double max_value(const double* x, long n) { return max_value_scalar(x, n); }
inline SumMax<double> sum_and_max(const double* x, long n) { return {sum_value_scalar(x, n), max_value_scalar(x, n)}; }
inline double sum_value(const double* x, long n) { return sum_value_scalar(x, n); }
inline double exp_sum(const double* x, long n, double shift, double scale, double* out) {
  return exp_sum_scalar(x, n, shift, scale, out);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
