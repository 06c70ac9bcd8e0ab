// Linear layer on GEMM: forward one GEMM plus bias, backward two GEMMs plus the bias reduction.
#include "heptapod/layers/linear.h"

#include <type_traits>

#include "heptapod/core/error.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/elementwise.h"

namespace heptapod {

using kernels::gemm;
using kernels::Trans;

namespace {

// y = x W^T + b, then ReLU when asked: one fused product with packed weights, else GEMM and row passes.
template <typename T>
void project(const Linear<T>& l, const T* x, int N, bool relu, T* y) {
  if constexpr (std::is_same_v<T, float>) {
    if (l.packed) {
      l.packed->forward(x, N, l.b, relu, y);
      return;
    }
  }
  gemm<T>(Trans::No, Trans::Yes, N, l.out, l.in, T(1), x, l.in, l.w, l.in, T(0), y, l.out);
  if (l.b) kernels::add_bias(y, l.b, N, l.out);
  if (relu) kernels::relu_forward(y, static_cast<long>(N) * l.out);
}

}  // namespace

template <typename T>
void linear_forward(const Linear<T>& l, const T* x, int N, T* y) {
  project(l, x, N, false, y);
}

template <typename T>
void linear_relu_forward(const Linear<T>& l, const T* x, int N, T* y) {
  project(l, x, N, true, y);
}

template <typename T>
void linear_backward(const Linear<T>& l, const T* dy, const T* x, int N, T* dx, bool accumulate_dx) {
  require(l.w != nullptr, "linear_backward: the weights were packed for inference");
  if (dx) gemm<T>(Trans::No, Trans::No, N, l.in, l.out, T(1), dy, l.out, l.w, l.in, accumulate_dx ? T(1) : T(0), dx, l.in);
  gemm<T>(Trans::Yes, Trans::No, l.out, l.in, N, T(1), dy, l.out, x, l.in, T(1), l.dw, l.in);
  if (l.b) kernels::bias_backward(dy, l.db, N, l.out);
}

template void linear_forward<float>(const Linear<float>&, const float*, int, float*);
template void linear_forward<double>(const Linear<double>&, const double*, int, double*);
template void linear_relu_forward<float>(const Linear<float>&, const float*, int, float*);
template void linear_relu_forward<double>(const Linear<double>&, const double*, int, double*);
template void linear_backward<float>(const Linear<float>&, const float*, const float*, int, float*, bool);
template void linear_backward<double>(const Linear<double>&, const double*, const double*, int, double*, bool);

}  // namespace heptapod
