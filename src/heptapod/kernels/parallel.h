// Small helpers for OpenMP work splitting shared by the kernels.
#pragma once

#include <omp.h>

#include <algorithm>
#include <initializer_list>
#include <vector>

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

// A row pass that also sums columns into parameter gradients (biases, layer-norm gains). Threads take chunks
// of kSumChunkRows whole rows, so each streams whole rows (a split by columns hands each thread part of every
// row, which the hardware prefetchers follow poorly: on this machine such a pass did not speed up at all on two
// threads). fn(n0, n1, sums) handles rows [n0, n1) and adds their column sums into its chunk's own zeroed
// scratch sums: (outputs.size(), C), one row per output. The chunks' sums are then added into the outputs in
// chunk order, a fixed order whatever the thread count. Null outputs are skipped.
inline constexpr int kSumChunkRows = 32;
template <typename T, typename Fn>
void for_row_chunks_summing(int N, int C, std::initializer_list<T*> outputs, Fn&& fn) {
  const int chunks = (N + kSumChunkRows - 1) / kSumChunkRows;
  const int count = static_cast<int>(outputs.size());
  thread_local std::vector<T> scratch;
  scratch.assign(static_cast<std::size_t>(chunks) * count * C, T(0));  // (chunks, outputs, C)
  T* sums = scratch.data();
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * C > kParallelMinWork)
  for (int chunk = 0; chunk < chunks; ++chunk)
    fn(chunk * kSumChunkRows, std::min(N, (chunk + 1) * kSumChunkRows), sums + static_cast<long>(chunk) * count * C);
  for_column_blocks(C, static_cast<long>(chunks) * count * C, [&](int c0, int c1) {
    for (int chunk = 0; chunk < chunks; ++chunk)
      for (int k = 0; k < count; ++k) {
        T* out = outputs.begin()[k];
        if (!out) continue;
        const T* s = sums + (static_cast<long>(chunk) * count + k) * C;
#pragma omp simd
        for (int c = c0; c < c1; ++c) out[c] += s[c];
      }
  });
}

}  // namespace heptapod::kernels
