// The element-wise Adam update over a flat parameter buffer (train/adam.h owns the state and the schedule).
#pragma once

namespace heptapod::kernels {

// The constants of one Adam step, already bias-corrected by the caller.
template <typename T>
struct AdamStep {
  T beta1, beta2;
  T step_size;       // lr / (1 - beta1^t)
  T inv_sqrt_bias2;  // 1 / sqrt(1 - beta2^t)
  T eps;
};

// params, grads, m, v: (n), none overlapping. m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// params -= step_size * m / (sqrt(v) * inv_sqrt_bias2 + eps), exactly as PyTorch's Adam.
template <typename T>
void adam_update(T* params, const T* grads, T* m, T* v, long n, const AdamStep<T>& step);

}  // namespace heptapod::kernels
