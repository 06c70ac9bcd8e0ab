// Deterministic parallel reductions: each thread sums a fixed contiguous block, and the per-thread partial
// sums are added in thread order, so the result depends only on the data and the thread count.
#pragma once

#include <omp.h>

#include <array>

#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

// Sum over i in [0, n) of term(i), accumulated in double.
template <typename Term>
double deterministic_sum(long n, Term&& term) {
  constexpr int kMaxThreads = 256;
  std::array<double, kMaxThreads> partial{};
  const int threads = n > kParallelMinWork ? std::min(omp_get_max_threads(), kMaxThreads) : 1;
  int used = 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (t == 0) used = nt;
    const long begin = n * t / nt, end = n * (t + 1) / nt;
    double s = 0;
    for (long i = begin; i < end; ++i) s += term(i);
    partial[t] = s;
  }
  double total = 0;
  for (int t = 0; t < used; ++t) total += partial[t];
  return total;
}

// Sum of squares of x (n), for gradient norms.
template <typename T>
double sum_of_squares(const T* x, long n) {
  return deterministic_sum(n, [x](long i) { return static_cast<double>(x[i]) * x[i]; });
}

}  // namespace heptapod::kernels
