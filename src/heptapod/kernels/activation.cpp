// SiLU, GELU and its tanh approximation, element-wise, for the baseline ISA: the work is one pass over (N, F) beside two matrix
// products of (N, F, C), so it is left to the compiler's vectorizer.
#include "heptapod/kernels/activation.h"

#include <cmath>

#include "heptapod/kernels/parallel.h"

namespace heptapod::kernels {

namespace {

constexpr double kGeluTanhScale = 0.7978845608028654;  // sqrt(2 / pi)
constexpr double kGeluTanhCubic = 0.044715;

template <typename T>
T apply(T x, Activation act) {
  switch (act) {
    case Activation::Relu: return x > T(0) ? x : T(0);
    case Activation::Silu: return x / (T(1) + std::exp(-x));
    case Activation::Gelu: return T(0.5) * x * (T(1) + std::erf(x * T(M_SQRT1_2)));
    case Activation::GeluTanh:
      return T(0.5) * x * (T(1) + std::tanh(T(kGeluTanhScale) * (x + T(kGeluTanhCubic) * x * x * x)));
  }
  return x;
}

// d act(x) / dx
template <typename T>
T slope(T x, Activation act) {
  switch (act) {
    case Activation::Relu: return x > T(0) ? T(1) : T(0);
    case Activation::Silu: {
      const T s = T(1) / (T(1) + std::exp(-x));
      return s * (T(1) + x * (T(1) - s));
    }
    case Activation::Gelu: {
      const T cdf = T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2)));
      const T pdf = std::exp(T(-0.5) * x * x) * T(0.5 * M_2_SQRTPI * M_SQRT1_2);  // 1 / sqrt(2 pi)
      return cdf + x * pdf;
    }
    case Activation::GeluTanh: {
      const T t = std::tanh(T(kGeluTanhScale) * (x + T(kGeluTanhCubic) * x * x * x));
      return T(0.5) * (T(1) + t) +
             T(0.5) * x * (T(1) - t * t) * T(kGeluTanhScale) * (T(1) + T(3 * kGeluTanhCubic) * x * x);
    }
  }
  return T(1);
}

}  // namespace

template <typename T>
void bias_activation_forward(T* pre, const T* bias, T* out, int N, int F, Activation act) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * F > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    T* p = pre + static_cast<long>(n) * F;
    T* o = out + static_cast<long>(n) * F;
    for (int f = 0; f < F; ++f) {
      if (bias) p[f] += bias[f];
      o[f] = apply(p[f], act);
    }
  }
}

template <typename T>
void activation_forward(T* x, long n, Activation act) {
#pragma omp parallel for schedule(static) if (n > kParallelMinWork)
  for (long i = 0; i < n; ++i) x[i] = apply(x[i], act);
}

template <typename T>
void activation_backward(T* grad, const T* pre, T* dbias, int N, int F, Activation act) {
#pragma omp parallel for schedule(static) if (static_cast<long>(N) * F > kParallelMinWork)
  for (int n = 0; n < N; ++n) {
    T* g = grad + static_cast<long>(n) * F;
    const T* p = pre + static_cast<long>(n) * F;
    for (int f = 0; f < F; ++f) g[f] *= slope(p[f], act);
  }
  if (!dbias) return;
  for (int n = 0; n < N; ++n) {
    const T* g = grad + static_cast<long>(n) * F;
    for (int f = 0; f < F; ++f) dbias[f] += g[f];
  }
}

#define HEPTAPOD_ACTIVATION(T)                                                              \
  template void bias_activation_forward<T>(T*, const T*, T*, int, int, Activation);         \
  template void activation_forward<T>(T*, long, Activation);                                \
  template void activation_backward<T>(T*, const T*, T*, int, int, Activation);
HEPTAPOD_ACTIVATION(float)
HEPTAPOD_ACTIVATION(double)
#undef HEPTAPOD_ACTIVATION

}  // namespace heptapod::kernels
