// Deterministic parallel reductions: each thread handles one fixed contiguous block of the range, and the
// per-thread partial results are added in thread order, so a result depends only on the data and the thread
// count, never on scheduling.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>

#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

// Calls body(begin, end, partial) for one block of [0, n) per thread (one thread when work is small) and
// returns the partials summed in thread order. Acc: default-constructible, with operator+=.
template <typename Acc, typename Body>
Acc deterministic_reduce(long n, long work, Body&& body) {
  constexpr int kMaxThreads = 256;
  std::array<Acc, kMaxThreads> partial{};
  const int threads = work > kParallelMinWork ? std::min(omp_get_max_threads(), kMaxThreads) : 1;
  int used = 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (t == 0) used = nt;
    body(n * t / nt, n * (t + 1) / nt, partial[t]);
  }
  Acc total{};
  for (int t = 0; t < used; ++t) total += partial[t];
  return total;
}

// Sum of squares of x (n), for gradient norms.
template <typename T>
double sum_of_squares(const T* x, long n) {
  return deterministic_reduce<double>(n, n, [x](long begin, long end, double& s) {
    for (long i = begin; i < end; ++i) s += static_cast<double>(x[i]) * x[i];
  });
}

}  // namespace heptapod::kernels
