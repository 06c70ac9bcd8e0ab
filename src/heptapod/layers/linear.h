// Fully connected layer y = x W^T + b, forward and backward.
#pragma once

namespace heptapod {

template <typename T>
struct Linear {
  T* w = nullptr;   // (out, in)
  T* b = nullptr;   // (out)
  T* dw = nullptr;  // (out, in) gradient, accumulated
  T* db = nullptr;  // (out) gradient, accumulated
  int in = 0, out = 0;
};

// x: (N, in) -> y: (N, out), assigned.
template <typename T>
void linear_forward(const Linear<T>& layer, const T* x, int N, T* y);

// dy: (N, out), x: (N, in) the forward input. dx: (N, in) assigned, or accumulated when accumulate_dx;
// skipped when null. dw, db accumulated.
template <typename T>
void linear_backward(const Linear<T>& layer, const T* dy, const T* x, int N, T* dx, bool accumulate_dx);

}  // namespace heptapod
