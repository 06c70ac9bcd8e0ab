// Fully connected layer y = x W^T + b, forward and backward.
#pragma once

#include "heptapod/kernels/packed_weights.h"

namespace heptapod {

template <typename T>
struct Linear {
  T* w = nullptr;   // (out, in); null once the model is packed for inference
  T* b = nullptr;   // (out)
  T* dw = nullptr;  // (out, in) gradient, accumulated
  T* db = nullptr;  // (out) gradient, accumulated
  int in = 0, out = 0;
  const kernels::PackedWeights* packed = nullptr;  // W in the GEMM's layout (float inference), used when set
};

// x: (N, in) -> y: (N, out), assigned.
template <typename T>
void linear_forward(const Linear<T>& layer, const T* x, int N, T* y);
// y = relu(x W^T + b): one fused pass when the weights are packed.
template <typename T>
void linear_relu_forward(const Linear<T>& layer, const T* x, int N, T* y);

// dy: (N, out), x: (N, in) the forward input. dx: (N, in) assigned, or accumulated when accumulate_dx;
// skipped when null. dw, db accumulated.
template <typename T>
void linear_backward(const Linear<T>& layer, const T* dy, const T* x, int N, T* dx, bool accumulate_dx);

}  // namespace heptapod
