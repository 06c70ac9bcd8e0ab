// Keeping a row's most likely next tokens while the vocabulary is scored a block at a time.
#pragma once

#include "heptapod/kernels/vector_math.h"

namespace heptapod {

// Merges the scores x (n), of tokens id0 .. id0 + n - 1, into a row's best-first list of `count` (<= top)
// values and ids. Ties keep the smaller id first, as the blocks arrive in id order. Once the list is full,
// eight scores at a time are compared with its last value and skipped together when none beats it.
inline void merge_top(const float* x, int n, int id0, int top, int& count, float* values, int* ids) {
  for (int i = 0; i < n; ++i) {
    if (count == top) {
#ifdef HEPTAPOD_HAVE_AVX2
      const __m256 last = _mm256_set1_ps(values[top - 1]);
      while (i + 8 <= n && _mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(x + i), last, _CMP_GT_OQ)) == 0) i += 8;
      if (i == n) break;
#endif
      if (!(x[i] > values[top - 1])) continue;
    }
    const float v = x[i];
    int at = count == top ? count - 1 : count++;
    for (; at > 0 && v > values[at - 1]; --at) {
      values[at] = values[at - 1];
      ids[at] = ids[at - 1];
    }
    values[at] = v;
    ids[at] = id0 + i;
  }
}

}  // namespace heptapod
