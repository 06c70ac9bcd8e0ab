// Masked attention softmax: rows in parallel, exp over the visible prefix only.
#include "heptapod/kernels/softmax.h"

#include <algorithm>
#include <cmath>

#include "heptapod/kernels/parallel.h"
#include "heptapod/kernels/vector_math.h"
#include "heptapod/kernels/visible_keys.h"

namespace heptapod::kernels {

template <typename T>
void masked_softmax_forward(T* scores, int B, int H, int Tq, int K, const int* key_len, bool causal, T scale) {
  const long rows = static_cast<long>(B) * H * Tq;
#pragma omp parallel for schedule(static) if (rows * K > kParallelMinWork)
  for (long r = 0; r < rows; ++r) {
    const int b = static_cast<int>(r / (static_cast<long>(H) * Tq));
    const int i = static_cast<int>(r % Tq);
    T* row = scores + r * K;
    const int visible = visible_keys(key_len[b], K, causal, i);
    const T sum = exp_sum(row, visible, max_value(row, visible), scale, row);
    const T inv = visible > 0 ? T(1) / sum : T(0);
    for (int j = 0; j < visible; ++j) row[j] *= inv;
    std::fill(row + visible, row + K, T(0));
  }
}

template <typename T>
void masked_softmax_backward(const T* probs, T* grad, int B, int H, int Tq, int K, T scale) {
  const long rows = static_cast<long>(B) * H * Tq;
#pragma omp parallel for schedule(static) if (rows * K > kParallelMinWork)
  for (long r = 0; r < rows; ++r) {
    const T* p = probs + r * K;
    T* g = grad + r * K;
    T dot = 0;
    for (int j = 0; j < K; ++j) dot += p[j] * g[j];
    for (int j = 0; j < K; ++j) g[j] = scale * p[j] * (g[j] - dot);
  }
}

template void masked_softmax_forward<float>(float*, int, int, int, int, const int*, bool, float);
template void masked_softmax_forward<double>(double*, int, int, int, int, const int*, bool, double);
template void masked_softmax_backward<float>(const float*, float*, int, int, int, int, float);
template void masked_softmax_backward<double>(const double*, double*, int, int, int, int, double);

}  // namespace heptapod::kernels
