// Bias, ReLU and residual kernels: flat parallel loops the compiler vectorises.
#include "heptapod/kernels/elementwise.h"

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

template <typename T>
void add_bias(T* y, const T* bias, int N, int C) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * C > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    T* row = y + static_cast<long>(n) * C;
    for (int c = 0; c < C; ++c) row[c] += bias[c];
  }
}

template <typename T>
void bias_backward(const T* dy, T* dbias, int N, int C) {
  for_row_chunks_summing<T>(N, C, {dbias}, [&](int n0, int n1, T* sums) {
    for (int n = n0; n < n1; ++n) {
      const T* row = dy + static_cast<long>(n) * C;
#pragma omp simd
      for (int c = 0; c < C; ++c) sums[c] += row[c];
    }
  });
}

template <typename T>
void relu_forward(T* x, long n) {
#pragma omp parallel for schedule(static) if (n > kParallelMinWork)
  for (long i = 0; i < n; ++i) x[i] = x[i] > T(0) ? x[i] : T(0);
}

template <typename T>
void add(const T* a, const T* b, T* out, long n) {
#pragma omp parallel for schedule(static) if (n > kParallelMinWork)
  for (long i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

void register_elementwise(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, add_bias);
  HEPTAPOD_REGISTER_TYPED(t, bias_backward);
  HEPTAPOD_REGISTER_TYPED(t, relu_forward);
  HEPTAPOD_REGISTER_TYPED(t, add);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
