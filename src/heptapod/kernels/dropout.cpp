// Dropout kernel over the counter-based generator in core/random.h.
#include "heptapod/kernels/dropout.h"

#include "heptapod/core/random.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  if (p <= 0.0f) return;
  const T keep_scale = T(1) / (T(1) - static_cast<T>(p));
  const std::uint64_t key = counter_key(seed, stream);
#pragma omp parallel for simd schedule(static) if (n > kParallelMinWork / 4)
  for (long i = 0; i < n; ++i) {
    x[i] = counter_uniform(key, static_cast<std::uint64_t>(i)) < p ? T(0) : x[i] * keep_scale;
  }
}

template void dropout<float>(float*, long, float, std::uint64_t, std::uint64_t);
template void dropout<double>(double*, long, float, std::uint64_t, std::uint64_t);

}  // namespace heptapod::kernels
