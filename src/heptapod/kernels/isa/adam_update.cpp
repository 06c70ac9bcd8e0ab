// Adam's element-wise update, one ISA's build. Compiled without errno (src/CMakeLists.txt): the square roots
// are of values known not to be negative, and the loop then vectorises (correctly rounded either way).
#include "heptapod/kernels/adam_update.h"

#include <cmath>

#include "heptapod/kernels/isa/registry.h"
#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels::HEPTAPOD_ISA {

template <typename T>
void adam_update(T* params, const T* grads, T* m, T* v, long n, const AdamStep<T>& step) {
  const T b1 = step.beta1, b2 = step.beta2, step_size = step.step_size, inv = step.inv_sqrt_bias2, eps = step.eps;
  // simd: the four arrays never overlap, which the compiler cannot prove (it would otherwise run scalar).
#pragma omp parallel for simd schedule(static) if (n > kParallelMinWork)
  for (long i = 0; i < n; ++i) {
    const T g = grads[i];
    m[i] = b1 * m[i] + (T(1) - b1) * g;
    v[i] = b2 * v[i] + (T(1) - b2) * g * g;
    params[i] -= step_size * m[i] / (std::sqrt(v[i]) * inv + eps);
  }
}

void register_adam_update(KernelTable& t) { HEPTAPOD_REGISTER_TYPED(t, adam_update); }

}  // namespace heptapod::kernels::HEPTAPOD_ISA
