// IEEE binary16 ("half") storage for the decoder's key/value caches: conversion both ways (round to nearest
// even, overflow to infinity, subnormals kept), eight-lane loads of a stored (float or half) vector as floats,
// and the two products attention needs against a stored vector, a dot product and an accumulation, with float
// arithmetic throughout. F16C + AVX2 when the build targets them;
// the scalar conversions are the naive twins the kernel tests compare against, over every half value.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "heptapod/kernels/vector_math.h"

#if defined(HEPTAPOD_HAVE_AVX2) && defined(__F16C__)
#define HEPTAPOD_HAVE_F16C 1
#endif

namespace heptapod::kernels {

using half = std::uint16_t;

inline half to_half_scalar(float x) {
  std::uint32_t f;
  std::memcpy(&f, &x, sizeof f);
  const auto sign = static_cast<half>((f >> 16) & 0x8000u);
  f &= 0x7fffffffu;
  if (f >= 0x7f800000u) return sign | (f > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN stays NaN, inf stays inf
  if (f >= 0x477ff000u) return sign | 0x7c00u;                               // 65520 and above round to inf
  if (f < 0x38800000u) {                                                      // below 2^-14: subnormal or zero
    float a;
    std::memcpy(&a, &f, sizeof a);
    return sign | static_cast<half>(std::nearbyint(a * 16777216.0f));        // units of 2^-24, nearest even
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to nearest, ties to even.
  f += 0xc8000fffu + ((f >> 13) & 1u);
  return sign | static_cast<half>(f >> 13);
}

inline float from_half_scalar(half h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float out;
  if (e == 0) {
    out = static_cast<float>(m) * (1.0f / 16777216.0f);
    return sign ? -out : out;
  }
  const std::uint32_t bits = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112) << 23) | (m << 13));
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// y[i] = half(x[i]).
inline void to_half(const float* x, half* y, long n) {
  long i = 0;
#ifdef HEPTAPOD_HAVE_F16C
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i < n; ++i) y[i] = to_half_scalar(x[i]);
}

inline float to_float(float x) { return x; }
inline float to_float(half x) { return from_half_scalar(x); }

// Whether this build loads eight stored values of type E (float or half) at once: float with AVX2, half with
// F16C as well.
template <typename E>
constexpr bool has_load8() {
#if defined(HEPTAPOD_HAVE_F16C)
  return true;
#elif defined(HEPTAPOD_HAVE_AVX2)
  return std::is_same_v<E, float>;
#else
  return false;
#endif
}

#ifdef HEPTAPOD_HAVE_AVX2
namespace avx2 {
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
#ifdef HEPTAPOD_HAVE_F16C
inline __m256 load8(const half* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
#endif
}  // namespace avx2
#endif

// sum_i a[i] * b[i] for a stored vector b.
inline float dot(const float* a, const half* b, long n) {
  long i = 0;
  float s = 0;
#ifdef HEPTAPOD_HAVE_F16C
  __m256 v0 = _mm256_setzero_ps(), v1 = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    v0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), avx2::load8(b + i), v0);
    v1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), avx2::load8(b + i + 8), v1);
  }
  for (; i + 8 <= n; i += 8) v0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), avx2::load8(b + i), v0);
  s = avx2::horizontal_sum(_mm256_add_ps(v0, v1));
#endif
  for (; i < n; ++i) s += a[i] * from_half_scalar(b[i]);
  return s;
}

// out[i] += w * v[i] for a stored vector v (float or half).
template <typename E>
void add_scaled(float w, const E* v, float* out, long n) {
  long i = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (has_load8<E>()) {
    const __m256 vw = _mm256_set1_ps(w);
    for (; i + 8 <= n; i += 8)
      _mm256_storeu_ps(out + i, _mm256_fmadd_ps(vw, avx2::load8(v + i), _mm256_loadu_ps(out + i)));
  }
#endif
  for (; i < n; ++i) out[i] += w * to_float(v[i]);
}

}  // namespace heptapod::kernels
