// See cached_attention.h. Per head: scores four keys at a time (four accumulators reduced together, instead of
// a horizontal sum per key), a vectorised softmax, then the values in 32-wide column strips, each strip's four
// accumulators held in registers across all positions. Scalar loops (the same order of work) where the build
// has no AVX2, or D is not a multiple of 8.
#include "heptapod/kernels/cached_attention.h"

#include <algorithm>

namespace heptapod::kernels {

namespace {

// s[j] = q . k_j for one head (D), k_j = keys + offsets[j].
template <typename E>
void head_scores(const float* q, const E* keys, const long* offsets, int count, int D, float* s) {
  int j = 0;
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (has_load8<E>()) {
    if (D % 8 == 0) {
      for (; j + 4 <= count; j += 4) {
        const E* k0 = keys + offsets[j];
        const E* k1 = keys + offsets[j + 1];
        const E* k2 = keys + offsets[j + 2];
        const E* k3 = keys + offsets[j + 3];
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int d = 0; d < D; d += 8) {
          const __m256 qd = _mm256_loadu_ps(q + d);
          a0 = _mm256_fmadd_ps(qd, avx2::load8(k0 + d), a0);
          a1 = _mm256_fmadd_ps(qd, avx2::load8(k1 + d), a1);
          a2 = _mm256_fmadd_ps(qd, avx2::load8(k2 + d), a2);
          a3 = _mm256_fmadd_ps(qd, avx2::load8(k3 + d), a3);
        }
        // [a0 a1 a2 a3] lane sums: two rounds of pairwise adds, then the two 128-bit halves.
        const __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
        _mm_storeu_ps(s + j, _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1)));
      }
    }
  }
#endif
  for (; j < count; ++j) s[j] = dot(q, keys + offsets[j], D);
}

// out = sum_j w[j] v_j for one head (D), v_j = values + offsets[j].
template <typename E>
void head_values(const float* w, const E* values, const long* offsets, int count, int D, float* out) {
#ifdef HEPTAPOD_HAVE_AVX2
  if constexpr (has_load8<E>()) {
    if (D % 8 == 0) {
      int d = 0;
      for (; d + 32 <= D; d += 32) {
        __m256 o0 = _mm256_setzero_ps(), o1 = o0, o2 = o0, o3 = o0;
        for (int j = 0; j < count; ++j) {
          const __m256 wj = _mm256_set1_ps(w[j]);
          const E* v = values + offsets[j] + d;
          o0 = _mm256_fmadd_ps(wj, avx2::load8(v), o0);
          o1 = _mm256_fmadd_ps(wj, avx2::load8(v + 8), o1);
          o2 = _mm256_fmadd_ps(wj, avx2::load8(v + 16), o2);
          o3 = _mm256_fmadd_ps(wj, avx2::load8(v + 24), o3);
        }
        _mm256_storeu_ps(out + d, o0);
        _mm256_storeu_ps(out + d + 8, o1);
        _mm256_storeu_ps(out + d + 16, o2);
        _mm256_storeu_ps(out + d + 24, o3);
      }
      for (; d < D; d += 8) {
        __m256 o = _mm256_setzero_ps();
        for (int j = 0; j < count; ++j) o = _mm256_fmadd_ps(_mm256_set1_ps(w[j]), avx2::load8(values + offsets[j] + d), o);
        _mm256_storeu_ps(out + d, o);
      }
      return;
    }
  }
#endif
  std::fill(out, out + D, 0.0f);
  for (int j = 0; j < count; ++j) add_scaled(w[j], values + offsets[j], out, D);
}

}  // namespace

// Requests every line of the count vectors (H*D elements each) at base + offsets[j]: the cached vectors lie
// one per position far apart, which the hardware does not predict, and each head's pass reads only D of them.
template <typename E>
void prefetch_vectors(const E* base, const long* offsets, int count, int HD) {
  const int lines = static_cast<int>((static_cast<long>(HD) * sizeof(E) + 63) / 64);
  for (int j = 0; j < count; ++j) {
    const char* v = reinterpret_cast<const char*>(base + offsets[j]);
    for (int l = 0; l < lines; ++l) __builtin_prefetch(v + 64L * l);
  }
}

template <typename E>
void attend_cached(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int D,
                   float scale, float* scores, int score_stride, float* out) {
  prefetch_vectors(keys, offsets, count, H * D);
  prefetch_vectors(values, offsets, count, H * D);
  for (int h = 0; h < H; ++h) {
    float* s = scores + static_cast<long>(h) * score_stride;
    head_scores(q + h * D, keys + h * D, offsets, count, D, s);
    const float inv = 1.0f / exp_sum(s, count, max_value(s, count), scale, s);
    for (int j = 0; j < count; ++j) s[j] *= inv;
    head_values(s, values + h * D, offsets, count, D, out + h * D);
  }
}

template void attend_cached<float>(const float*, const float*, const float*, const long*, int, int, int, float, float*,
                                   int, float*);
template void attend_cached<half>(const float*, const half*, const half*, const long*, int, int, int, float, float*,
                                  int, float*);

}  // namespace heptapod::kernels
