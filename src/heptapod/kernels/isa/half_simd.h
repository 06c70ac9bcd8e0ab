// Half-precision rows inside one ISA's kernels (see kernels/half.h for the contracts): eight-lane loads of a
// stored (float or half) vector as floats, a row's conversion to half and the two products attention needs
// against a stored vector. F16C + AVX2 when the ISA has them.
#pragma once

#include <type_traits>

#include "heptapod/kernels/half.h"
#include "heptapod/kernels/isa/simd.h"

#if defined(HEPTAPOD_HAVE_AVX2) && defined(__F16C__)
#define HEPTAPOD_HAVE_F16C 1
#endif

namespace heptapod::kernels::HEPTAPOD_ISA {

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
namespace simd {
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
#ifdef HEPTAPOD_HAVE_F16C
inline __m256 load8(const half* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
#endif
}  // namespace simd
#endif

// sum_i a[i] * b[i] for a stored vector b.
inline float dot(const float* a, const half* b, long n) {
  long i = 0;
  float s = 0;
#ifdef HEPTAPOD_HAVE_F16C
  __m256 v0 = _mm256_setzero_ps(), v1 = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    v0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), simd::load8(b + i), v0);
    v1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), simd::load8(b + i + 8), v1);
  }
  for (; i + 8 <= n; i += 8) v0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), simd::load8(b + i), v0);
  s = simd::horizontal_sum(_mm256_add_ps(v0, v1));
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
      _mm256_storeu_ps(out + i, _mm256_fmadd_ps(vw, simd::load8(v + i), _mm256_loadu_ps(out + i)));
  }
#endif
  for (; i < n; ++i) out[i] += w * to_float(v[i]);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
