// Row-wise bias, ReLU and residual kernels.
#pragma once

namespace heptapod::kernels {

// y: (N, C) += bias (C) on every row.
template <typename T>
void add_bias(T* y, const T* bias, int N, int C);
// dbias: (C) += column sums of dy (N, C).
template <typename T>
void bias_backward(const T* dy, T* dbias, int N, int C);
// x: (n) in place, max(0, x).
template <typename T>
void relu_forward(T* x, long n);
// out: (n) = a + b (out may alias a).
template <typename T>
void add(const T* a, const T* b, T* out, long n);

}  // namespace heptapod::kernels
