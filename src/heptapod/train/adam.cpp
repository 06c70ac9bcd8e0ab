// Adam update loop.
#include "heptapod/train/adam.h"

#include <cmath>

#include "heptapod/kernels/parallel.h"

namespace heptapod {

template <typename T>
void Adam<T>::step(T* params, const T* grads, double lr) {
  ++step_;
  const T b1 = static_cast<T>(config_.beta1), b2 = static_cast<T>(config_.beta2);
  const double bias1 = 1.0 - std::pow(config_.beta1, static_cast<double>(step_));
  const double bias2 = 1.0 - std::pow(config_.beta2, static_cast<double>(step_));
  const T step_size = static_cast<T>(lr / bias1);
  const T inv_sqrt_bias2 = static_cast<T>(1.0 / std::sqrt(bias2));
  const T eps = static_cast<T>(config_.eps);
  const long n = static_cast<long>(m_.size());
  T* m = m_.data();
  T* v = v_.data();
  // simd: the four arrays never overlap, which the compiler cannot prove (it would otherwise run scalar; see
  // also src/CMakeLists.txt on errno).
#pragma omp parallel for simd schedule(static) if (n > kernels::kParallelMinWork)
  for (long i = 0; i < n; ++i) {
    const T g = grads[i];
    m[i] = b1 * m[i] + (T(1) - b1) * g;
    v[i] = b2 * v[i] + (T(1) - b2) * g * g;
    params[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv_sqrt_bias2 + eps);
  }
}

template class Adam<float>;
template class Adam<double>;

}  // namespace heptapod
