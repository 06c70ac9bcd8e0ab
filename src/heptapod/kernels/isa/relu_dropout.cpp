// Fused feed-forward element-wise kernels: rows in parallel forward; chunks of rows backward, the bias
// gradient summed per chunk and the chunks added in a fixed order (parallel.h).
#include "heptapod/kernels/relu_dropout.h"

#include <algorithm>

#include "heptapod/kernels/isa/calls.h"
#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

template <typename T>
void bias_relu_dropout_forward(T* hidden, const T* bias, int N, int F, float p, std::uint64_t seed,
                               std::uint64_t stream) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * F > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    const long first = static_cast<long>(n) * F;
    T* h = hidden + first;
    if (bias)
      for (int f = 0; f < F; ++f) h[f] += bias[f];
    for (int f = 0; f < F; ++f) h[f] = std::max(h[f], T(0));
    dropout_slice(h, F, static_cast<std::uint64_t>(first), p, seed, stream);
  }
}

template <typename T>
void relu_dropout_backward(T* grad, const T* out, T* dbias, int N, int F, float p) {
  for_row_chunks_summing<T>(N, F, {dbias}, [&](int n0, int n1, T* sums) {
    const T keep_scale = T(1) / (T(1) - static_cast<T>(p));  // a local: stores through g cannot change it
    for (int n = n0; n < n1; ++n) {
      const long first = static_cast<long>(n) * F;
      T* g = grad + first;
      const T* o = out + first;
#pragma omp simd
      for (int f = 0; f < F; ++f) {
        const T v = o[f] > T(0) ? g[f] * keep_scale : T(0);
        g[f] = v;
        sums[f] += v;
      }
    }
  });
}

void register_relu_dropout(KernelTable& t) {
  HEPTAPOD_REGISTER_TYPED(t, bias_relu_dropout_forward);
  HEPTAPOD_REGISTER_TYPED(t, relu_dropout_backward);
}

}  // namespace heptapod::kernels::HEPTAPOD_ISA
