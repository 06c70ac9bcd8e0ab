// See cached_attention.h.
//
// With AVX-512 (head size a multiple of 16, row width a multiple of 64): position by position, every head's
// score from the position's whole key vector, then a vectorised softmax per head, then the values position by
// position in blocks of 256 (or 64) columns held in registers. Each cached vector is thus read front to back,
// and the vectors a few positions ahead are requested meanwhile. The cached vectors lie apart and far outside
// the caches, so waiting for memory had dominated: base greedy decoding of the benchmark's batches spent
// 150-163 ms in cross-attention and 88-101 ms in self-attention with the per-head path below, 107-112 and 70-78
// with this one (three alternating runs each).
//
// Otherwise per head: scores four keys at a time (four accumulators reduced together, instead of a horizontal
// sum per key), a vectorised softmax, then the values in 32-wide column strips, each strip's four accumulators
// held in registers across all positions. Scalar loops (the same order of work) where the build has no AVX2,
// or D is not a multiple of 8.
#include "heptapod/kernels/cached_attention.h"

#include <algorithm>

#include "heptapod/kernels/isa/half_simd.h"
#include "heptapod/kernels/isa/registry.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

namespace {

// Requests every line of the count vectors (H*D elements each) at base + offsets[j]: the cached vectors lie
// one per position far apart, which the hardware does not predict.
template <typename E>
void prefetch_vectors(const E* base, const long* offsets, int count, int HD) {
  const int lines = static_cast<int>((static_cast<long>(HD) * sizeof(E) + 63) / 64);
  for (int j = 0; j < count; ++j) {
    const char* v = reinterpret_cast<const char*>(base + offsets[j]);
    for (int l = 0; l < lines; ++l) __builtin_prefetch(v + 64L * l);
  }
}

// s (count) <- softmax(scale * s).
void softmax_in_place(float* s, int count, float scale) {
  const float inv = 1.0f / exp_sum(s, count, max_value(s, count), scale, s);
  for (int j = 0; j < count; ++j) s[j] *= inv;
}

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
          a0 = _mm256_fmadd_ps(qd, simd::load8(k0 + d), a0);
          a1 = _mm256_fmadd_ps(qd, simd::load8(k1 + d), a1);
          a2 = _mm256_fmadd_ps(qd, simd::load8(k2 + d), a2);
          a3 = _mm256_fmadd_ps(qd, simd::load8(k3 + d), a3);
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
          o0 = _mm256_fmadd_ps(wj, simd::load8(v), o0);
          o1 = _mm256_fmadd_ps(wj, simd::load8(v + 8), o1);
          o2 = _mm256_fmadd_ps(wj, simd::load8(v + 16), o2);
          o3 = _mm256_fmadd_ps(wj, simd::load8(v + 24), o3);
        }
        _mm256_storeu_ps(out + d, o0);
        _mm256_storeu_ps(out + d + 8, o1);
        _mm256_storeu_ps(out + d + 16, o2);
        _mm256_storeu_ps(out + d + 24, o3);
      }
      for (; d < D; d += 8) {
        __m256 o = _mm256_setzero_ps();
        for (int j = 0; j < count; ++j) o = _mm256_fmadd_ps(_mm256_set1_ps(w[j]), simd::load8(values + offsets[j] + d), o);
        _mm256_storeu_ps(out + d, o);
      }
      return;
    }
  }
#endif
  std::fill(out, out + D, 0.0f);
  for (int j = 0; j < count; ++j) add_scaled(w[j], values + offsets[j], out, D);
}

#if defined(__AVX512F__)

inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
inline __m512 load16(const half* p) {
  // (the zero-masked form: the unmasked one warns in GCC 12)
  return _mm512_maskz_cvtph_ps(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

constexpr int kPrefetchAhead = 4;  // positions whose key and value are requested ahead of their use

// out[c0, c0 + 16 G) = sum_j p[head(c), j] v_j[source(c)]; p: (H, stride) probabilities, head(c) = c / D; a
// query head h reads value head h / group: source(c) = (head(c) / group) D + c mod D.
template <int G, typename E>
void values_block(const float* p, int stride, const E* values, const long* offsets, int count, int D, int group,
                  int c0, float* out) {
  const float* w[G];  // each column group's head's probabilities
  long from[G];       // each column group's first column in the value vector
  for (int g = 0; g < G; ++g) {
    const int c = c0 + 16 * g, head = c / D;
    w[g] = p + static_cast<long>(head) * stride;
    from[g] = static_cast<long>(head / group) * D + c % D;
  }
  __m512 acc[G];
  for (int g = 0; g < G; ++g) acc[g] = _mm512_setzero_ps();
  for (int j = 0; j < count; ++j) {
    const E* v = values + offsets[j];
    for (int g = 0; g < G; ++g) acc[g] = _mm512_fmadd_ps(_mm512_set1_ps(w[g][j]), load16(v + from[g]), acc[g]);
  }
  for (int g = 0; g < G; ++g) _mm512_storeu_ps(out + c0 + 16 * g, acc[g]);
}

template <typename E>
void attend_avx512(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int KH,
                   int D, float scale, float* scores, int score_stride, float* out, const float* bias) {
  const int C = H * D, group = H / KH;
  auto request = [&](int first, int n) {  // the keys and values of positions [first, first + n)
    prefetch_vectors(keys, offsets + first, n, KH * D);
    prefetch_vectors(values, offsets + first, n, KH * D);
  };
  request(0, std::min(count, kPrefetchAhead));
  for (int j = 0; j < count; ++j) {
    if (j + kPrefetchAhead < count) request(j + kPrefetchAhead, 1);
    const E* k = keys + offsets[j];
    for (int h = 0; h < H; ++h) {
      const float* qh = q + h * D;
      const E* kh = k + (h / group) * D;
      __m512 acc = _mm512_mul_ps(_mm512_loadu_ps(qh), load16(kh));
      for (int d = 16; d < D; d += 16) acc = _mm512_fmadd_ps(_mm512_loadu_ps(qh + d), load16(kh + d), acc);
      const long at = static_cast<long>(h) * score_stride + j;
      scores[at] = simd::horizontal_sum(acc) + (bias ? bias[at] : 0.0f);
    }
  }
  for (int h = 0; h < H; ++h) {
    float* s = scores + static_cast<long>(h) * score_stride;
    softmax_in_place(s, count, scale);
  }
  int c0 = 0;
  for (; c0 + 256 <= C; c0 += 256) values_block<16>(scores, score_stride, values, offsets, count, D, group, c0, out);
  for (; c0 < C; c0 += 64) values_block<4>(scores, score_stride, values, offsets, count, D, group, c0, out);
}

#endif

}  // namespace

template <typename E>
void attend_cached(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int KH,
                   int D, float scale, float* scores, int score_stride, float* out, const float* bias) {
#if defined(__AVX512F__)
  if (D % 16 == 0 && H * D % 64 == 0) return attend_avx512(q, keys, values, offsets, count, H, KH, D, scale, scores,
                                                           score_stride, out, bias);
#endif
  const int group = H / KH;
  prefetch_vectors(keys, offsets, count, KH * D);
  prefetch_vectors(values, offsets, count, KH * D);
  for (int h = 0; h < H; ++h) {
    float* s = scores + static_cast<long>(h) * score_stride;
    const int kv = (h / group) * D;  // the head's key and value columns
    head_scores(q + h * D, keys + kv, offsets, count, D, s);
    if (bias)
      for (int j = 0; j < count; ++j) s[j] += bias[static_cast<long>(h) * score_stride + j];
    softmax_in_place(s, count, scale);
    head_values(s, values + kv, offsets, count, D, out + h * D);
  }
}

void register_cached_attention(KernelTable& t) {
  t.attend_cached_f32 = &attend_cached<float>;
  t.attend_cached_f16 = &attend_cached<half>;
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
