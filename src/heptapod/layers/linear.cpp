// Linear layer on GEMM: forward one GEMM plus bias, backward two GEMMs plus the bias reduction.
#include "heptapod/layers/linear.h"

#include <algorithm>
#include <type_traits>

#include "heptapod/core/error.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/elementwise.h"

namespace heptapod {

using kernels::gemm;
using kernels::Trans;

namespace {

// Columns [n0, n0 + n) of x W^T alone, y: (N, n), from the row-major weights.
template <typename T>
void product_columns(const Linear<T>& l, const T* x, int N, int n0, int n, T* y) {
  gemm<T>(Trans::No, Trans::Yes, N, n, l.in, T(1), x, l.in, l.w + static_cast<std::size_t>(n0) * l.in, l.in, T(0), y, n);
}

// Columns [n0, n0 + n) of y = x W^T + b, then ReLU when asked: one fused product with packed weights, else
// GEMM and row passes.
template <typename T>
void project(const Linear<T>& l, const T* x, int N, int n0, int n, bool relu, T* y, OutputBias bias = OutputBias::Add) {
  const T* b = bias == OutputBias::Add ? l.b : nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (l.packed) {
      l.packed->forward_columns(x, N, n0, n, b, relu, y);
      return;
    }
  }
  product_columns(l, x, N, n0, n, y);
  if (b) kernels::add_bias(y, b + n0, N, n);
  if (relu) kernels::relu_forward(y, static_cast<long>(N) * n);
}

}  // namespace

template <typename T>
void linear_forward(const Linear<T>& l, const T* x, int N, T* y, OutputBias bias) {
  project(l, x, N, 0, l.out, false, y, bias);
}

template <typename T>
void linear_product(const Linear<T>& l, const T* x, int N, T* y) {
  require(l.w != nullptr, "linear_product: the weights were packed for inference");
  product_columns(l, x, N, 0, l.out, y);
}

template <typename T>
void linear_relu_forward(const Linear<T>& l, const T* x, int N, T* y) {
  project(l, x, N, 0, l.out, true, y);
}

template <typename T>
void linear_forward_columns(const Linear<T>& l, const T* x, int N, int n0, int n, T* y) {
  require(n0 >= 0 && n > 0 && n0 + n <= l.out && n0 % linear_column_align(l) == 0, "linear: bad column range");
  project(l, x, N, n0, n, false, y);
}

template <typename T>
int linear_column_align(const Linear<T>& l) {
  if constexpr (std::is_same_v<T, float>) {
    if (l.packed) return l.packed->column_align();
  }
  return 1;
}

template <typename T>
void linear_backward(const Linear<T>& l, const T* dy, const T* x, int N, T* dx, bool accumulate_dx, BiasGrad bias) {
  require(l.w != nullptr, "linear_backward: the weights were packed for inference");
  if (dx) gemm<T>(Trans::No, Trans::No, N, l.in, l.out, T(1), dy, l.out, l.w, l.in, accumulate_dx ? T(1) : T(0), dx, l.in);
  gemm<T>(Trans::Yes, Trans::No, l.out, l.in, N, T(1), dy, l.out, x, l.in, T(1), l.dw, l.in);
  if (l.b && bias == BiasGrad::Compute) kernels::bias_backward(dy, l.db, N, l.out);
}

template <typename T>
Linear<T> stack_linear(std::span<const Linear<T>* const> parts, T* w, T* b) {
  Linear<T> s;
  s.in = parts.front()->in;
  s.w = w;
  const bool biased = parts.front()->b != nullptr;
  s.b = biased ? b : nullptr;
  for (const Linear<T>* p : parts) {
    require(p->in == s.in && p->w && (p->b != nullptr) == biased,
            "stack_linear: the layers need one input width, row-major weights, and biases in all or none");
    std::copy_n(p->w, static_cast<std::size_t>(p->out) * s.in, w + static_cast<std::size_t>(s.out) * s.in);
    if (biased) std::copy_n(p->b, p->out, b + s.out);
    s.out += p->out;
  }
  return s;
}

template <typename T>
Linear<T> stack_linear(std::span<const Linear<T>* const> parts, Arena& arena) {
  int out = 0;
  for (const Linear<T>* p : parts) out += p->out;
  const int in = parts.front()->in;
  return stack_linear(parts, arena.alloc<T>(static_cast<std::size_t>(out) * in), arena.alloc<T>(out));
}

template <typename T>
void stacked_backward(Linear<T> s, std::span<const Linear<T>* const> parts, const T* dy, const T* x, int N, T* dx,
                      bool accumulate_dx, Arena& arena) {
  s.dw = arena.alloc_zero<T>(static_cast<std::size_t>(s.out) * s.in);
  s.db = s.b ? arena.alloc_zero<T>(s.out) : nullptr;
  linear_backward(s, dy, x, N, dx, accumulate_dx);
  int o = 0;
  for (const Linear<T>* p : parts) {
    kernels::add(p->dw, s.dw + static_cast<std::size_t>(o) * s.in, p->dw, static_cast<long>(p->out) * s.in);
    if (s.db) kernels::add(p->db, s.db + o, p->db, p->out);
    o += p->out;
  }
}

template void linear_forward<float>(const Linear<float>&, const float*, int, float*, OutputBias);
template void linear_forward<double>(const Linear<double>&, const double*, int, double*, OutputBias);
template void linear_forward_columns<float>(const Linear<float>&, const float*, int, int, int, float*);
template void linear_forward_columns<double>(const Linear<double>&, const double*, int, int, int, double*);
template int linear_column_align<float>(const Linear<float>&);
template int linear_column_align<double>(const Linear<double>&);
template void linear_relu_forward<float>(const Linear<float>&, const float*, int, float*);
template void linear_relu_forward<double>(const Linear<double>&, const double*, int, double*);
template void linear_product<float>(const Linear<float>&, const float*, int, float*);
template void linear_product<double>(const Linear<double>&, const double*, int, double*);
template Linear<float> stack_linear<float>(std::span<const Linear<float>* const>, float*, float*);
template Linear<double> stack_linear<double>(std::span<const Linear<double>* const>, double*, double*);
template Linear<float> stack_linear<float>(std::span<const Linear<float>* const>, Arena&);
template Linear<double> stack_linear<double>(std::span<const Linear<double>* const>, Arena&);
template void stacked_backward<float>(Linear<float>, std::span<const Linear<float>* const>, const float*,
                                      const float*, int, float*, bool, Arena&);
template void stacked_backward<double>(Linear<double>, std::span<const Linear<double>* const>, const double*,
                                       const double*, int, double*, bool, Arena&);
template void linear_backward<float>(const Linear<float>&, const float*, const float*, int, float*, bool, BiasGrad);
template void linear_backward<double>(const Linear<double>&, const double*, const double*, int, double*, bool,
                                      BiasGrad);

}  // namespace heptapod
