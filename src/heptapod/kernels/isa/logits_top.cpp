// A decoding step's vocabulary block for one row (see kernels/logits_top.h), one ISA's build: the
// log-sum-exp from the vectorised row primitives; once the list is full, eight scores at a time are compared
// with its last value and skipped together when none beats it.
#include "heptapod/kernels/logits_top.h"

#include <cmath>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/isa/simd.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

float logits_top(const float* x, int n, int id0, int top, int& count, float* values, int* ids) {
  const float m = max_value(x, n);
  const float log_sum = m + std::log(exp_sum(x, n, m, 1.0f, nullptr));
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
  return log_sum;
}

void register_logits_top(KernelTable& t) { t.logits_top = &logits_top; }

}  // namespace heptapod::kernels::HEPTAPOD_ISA
