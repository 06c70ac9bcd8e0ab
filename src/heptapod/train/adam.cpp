// Adam: the bias corrections of a step; the update itself is a kernel (kernels/adam_update.h).
#include "heptapod/train/adam.h"

#include <cmath>

#include "heptapod/kernels/adam_update.h"

namespace heptapod {

template <typename T>
void Adam<T>::step(T* params, const T* grads, double lr) {
  ++step_;
  const T b1 = static_cast<T>(config_.beta1), b2 = static_cast<T>(config_.beta2);
  const double bias1 = 1.0 - std::pow(config_.beta1, static_cast<double>(step_));
  const double bias2 = 1.0 - std::pow(config_.beta2, static_cast<double>(step_));
  const T step_size = static_cast<T>(lr / bias1);
  const T inv_sqrt_bias2 = static_cast<T>(1.0 / std::sqrt(bias2));
  kernels::adam_update(params, grads, m_.data(), v_.data(), static_cast<long>(m_.size()),
                       kernels::AdamStep<T>{b1, b2, step_size, inv_sqrt_bias2, static_cast<T>(config_.eps)});
}

template class Adam<float>;
template class Adam<double>;

}  // namespace heptapod
