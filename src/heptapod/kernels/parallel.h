// Small helpers for OpenMP work splitting shared by the kernels.
#pragma once

#include <omp.h>

#include <algorithm>

namespace heptapod::kernels {

// Below this many scalar operations a kernel runs on one thread: forking costs more than it saves.
inline constexpr long kParallelMinWork = 16384;

// Splits columns [0, C) into one contiguous block per thread and calls fn(c0, c1) for each. Used for
// reductions over rows into per-column parameter gradients: each thread owns its columns, so there are no
// races, no scratch buffers, and the summation order is fixed.
template <typename Fn>
void for_column_blocks(int C, long work, Fn&& fn) {
  const int threads = work > kParallelMinWork ? std::min(omp_get_max_threads(), std::max(1, C / 16)) : 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int c0 = static_cast<int>(static_cast<long>(C) * t / nt);
    const int c1 = static_cast<int>(static_cast<long>(C) * (t + 1) / nt);
    if (c0 < c1) fn(c0, c1);
  }
}

}  // namespace heptapod::kernels
