// Dropout kernel over the counter-based generator in core/random.h.
#include "heptapod/kernels/dropout.h"

#include <algorithm>

#include "heptapod/core/random.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

template <typename T>
void dropout_slice(T* x, long n, std::uint64_t first, float p, std::uint64_t seed, std::uint64_t stream) {
  if (p <= 0.0f) return;
  const T keep_scale = T(1) / (T(1) - static_cast<T>(p));
  const std::uint64_t key = counter_key(seed, stream);
#pragma omp simd
  for (long i = 0; i < n; ++i) {
    x[i] = counter_uniform(key, first + static_cast<std::uint64_t>(i)) < p ? T(0) : x[i] * keep_scale;
  }
}

template <typename T>
void dropout(T* x, long n, float p, std::uint64_t seed, std::uint64_t stream) {
  if (p <= 0.0f) return;
  constexpr long kChunk = 4096;
  const long chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (n > kParallelMinWork / 4)
  for (long c = 0; c < chunks; ++c) {
    const long begin = c * kChunk;
    dropout_slice(x + begin, std::min(kChunk, n - begin), static_cast<std::uint64_t>(begin), p, seed, stream);
  }
}

template void dropout<float>(float*, long, float, std::uint64_t, std::uint64_t);
template void dropout<double>(double*, long, float, std::uint64_t, std::uint64_t);
template void dropout_slice<float>(float*, long, std::uint64_t, float, std::uint64_t, std::uint64_t);
template void dropout_slice<double>(double*, long, std::uint64_t, float, std::uint64_t, std::uint64_t);

}  // namespace heptapod::kernels
