// See cached_attention.h.
//
// With AVX-512 (head size a multiple of 16, row width a multiple of 64): eight positions at a time, each head's
// eight scores from the positions' key vectors, their lane sums reduced together (the order of a sum per key,
// with an eighth of the shuffles); then a vectorised softmax per head, then the values position by position in
// blocks of 256 (or 64) columns held in registers. The next eight positions' vectors are requested meanwhile:
// the cached vectors lie apart and far outside the caches, so waiting for memory had dominated (base greedy
// decoding of the benchmark's batches spent 150-163 ms in cross-attention and 88-101 ms in self-attention with
// the per-head path below, 107-112 and 70-78 with position-by-position scoring, three alternating runs each).
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

// q_h . k for one head (D a multiple of 16): sixteen lanes, the first product then fused multiply-adds.
template <typename E>
inline __m512 head_dot(const float* qh, const E* kh, int D) {
  __m512 acc = _mm512_mul_ps(_mm512_loadu_ps(qh), load16(kh));
  for (int d = 16; d < D; d += 16) acc = _mm512_fmadd_ps(_mm512_loadu_ps(qh + d), load16(kh + d), acc);
  return acc;
}

// The eight lane sums of a[0..7], in one vector: each sum added in simd::horizontal_sum's order ((0 + low
// half) + high half, then lanes i and i + 4, then i and i + 2, then the last two), so each equals
// horizontal_sum(a[i]) bit for bit, but eight sums share each shuffle and add.
// (The zero-masked forms of the shuffles: the unmasked ones warn in GCC 12.)
inline __m256 horizontal_sums8(const __m512 a[8]) {
  const __m512 zero = _mm512_setzero_ps();
  __m512 t[4];  // t[i]: the half sums (0 + low) + high of a[2i] (low 256 bits) and a[2i + 1] (high)
  for (int i = 0; i < 4; ++i) {
    const __m512 low = _mm512_maskz_shuffle_f32x4(0xFFFF, a[2 * i], a[2 * i + 1], 0x44);   // blocks 0 1 | 0 1
    const __m512 high = _mm512_maskz_shuffle_f32x4(0xFFFF, a[2 * i], a[2 * i + 1], 0xEE);  // blocks 2 3 | 2 3
    t[i] = _mm512_add_ps(_mm512_add_ps(zero, low), high);
  }
  __m512 s[2];  // s[i]: lanes i and i + 4 of the half sums: block b of s[0] holds a[b]'s, of s[1] a[4 + b]'s
  for (int i = 0; i < 2; ++i) {
    const __m512 first = _mm512_maskz_shuffle_f32x4(0xFFFF, t[2 * i], t[2 * i + 1], 0x88);  // blocks 0 2 | 0 2
    const __m512 second = _mm512_maskz_shuffle_f32x4(0xFFFF, t[2 * i], t[2 * i + 1], 0xDD);  // blocks 1 3 | 1 3
    s[i] = _mm512_add_ps(first, second);
  }
  // Per 128-bit block b: [s0 + s2, s1 + s3] of a[b], then of a[4 + b].
  const __m512 r = _mm512_add_ps(_mm512_shuffle_ps(s[0], s[1], 0x44), _mm512_shuffle_ps(s[0], s[1], 0xEE));
  // Per block: [a[b] sum, a[4 + b] sum, (the same again)].
  const __m512 sums = _mm512_add_ps(_mm512_shuffle_ps(r, r, 0x88), _mm512_shuffle_ps(r, r, 0xDD));
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512d ordered = _mm512_castps_pd(_mm512_maskz_permutexvar_ps(0xFFFF, order, sums));
  return _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, ordered, 0));
}

template <typename E>
void attend_avx512(const float* q, const E* keys, const E* values, const long* offsets, int count, int H, int KH,
                   int D, float scale, float* scores, int score_stride, float* out, const float* bias) {
  const int C = H * D, group = H / KH;
  auto request = [&](int first, int n) {  // the keys and values of positions [first, first + n)
    prefetch_vectors(keys, offsets + first, n, KH * D);
    prefetch_vectors(values, offsets + first, n, KH * D);
  };
  constexpr int kKeys = 8;  // positions scored together, their sums reduced together
  request(0, std::min(count, kKeys));
  int j = 0;
  for (; j + kKeys <= count; j += kKeys) {
    if (j + kKeys < count) request(j + kKeys, std::min(kKeys, count - j - kKeys));
    for (int h = 0; h < H; ++h) {
      const float* qh = q + h * D;
      const long kv = static_cast<long>(h / group) * D;
      __m512 acc[kKeys];
      for (int i = 0; i < kKeys; ++i) acc[i] = head_dot(qh, keys + offsets[j + i] + kv, D);
      __m256 sums = horizontal_sums8(acc);
      const long at = static_cast<long>(h) * score_stride + j;
      sums = _mm256_add_ps(sums, bias ? _mm256_loadu_ps(bias + at) : _mm256_setzero_ps());
      _mm256_storeu_ps(scores + at, sums);
    }
  }
  for (; j < count; ++j) {
    const E* k = keys + offsets[j];
    for (int h = 0; h < H; ++h) {
      const long at = static_cast<long>(h) * score_stride + j;
      scores[at] = simd::horizontal_sum(head_dot(q + h * D, k + (h / group) * D, D)) + (bias ? bias[at] : 0.0f);
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
