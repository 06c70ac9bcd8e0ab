// Layer norm layer over the kernels in kernels/layer_norm.h.
#include "heptapod/layers/layer_norm.h"

#include "heptapod/kernels/layer_norm.h"

namespace heptapod {

template <typename T>
T* layer_norm_forward(const LayerNorm<T>& ln, const T* x, int N, Arena& arena, LayerNormSaved<T>& saved) {
  T* y = arena.alloc<T>(static_cast<std::size_t>(N) * ln.C);
  saved.x = x;
  saved.mean = arena.alloc<T>(N);
  saved.rstd = arena.alloc<T>(N);
  kernels::layer_norm_forward(x, ln.gamma, ln.beta, y, saved.mean, saved.rstd, N, ln.C, ln.eps);
  return y;
}

template <typename T>
T* residual_layer_norm_forward(const LayerNorm<T>& ln, const T* x, T* delta, const T* bias, int N,
                               const DropoutSite& drop, Arena& arena, LayerNormSaved<T>& saved) {
  T* y = arena.alloc<T>(static_cast<std::size_t>(N) * ln.C);  // (N, C)
  saved.x = delta;
  saved.mean = arena.alloc<T>(N);
  saved.rstd = arena.alloc<T>(N);
  kernels::residual_layer_norm(x, delta, bias, drop.rate, drop.seed, drop.stream, ln.gamma, ln.beta, y, saved.mean,
                               saved.rstd, N, ln.C, ln.eps);
  return y;
}

template <typename T>
void layer_norm_backward(const LayerNorm<T>& ln, const T* dy, int N, const LayerNormSaved<T>& saved, T* dx,
                         bool accumulate_dx) {
  kernels::layer_norm_backward(dy, saved.x, saved.mean, saved.rstd, ln.gamma, dx, ln.dgamma, ln.dbeta, N, ln.C,
                               accumulate_dx);
}

template <typename T>
void residual_layer_norm_backward(const LayerNorm<T>& ln, const T* dy, int N, const LayerNormSaved<T>& saved,
                                  const DropoutSite& drop, T* dx, T* dinner, T* dinner_bias) {
  const kernels::ResidualBranchGrad<T> branch{dinner, dinner_bias, drop.rate, drop.seed, drop.stream};
  kernels::layer_norm_backward(dy, saved.x, saved.mean, saved.rstd, ln.gamma, dx, ln.dgamma, ln.dbeta, N, ln.C,
                               false, &branch);
}

template float* layer_norm_forward<float>(const LayerNorm<float>&, const float*, int, Arena&, LayerNormSaved<float>&);
template double* layer_norm_forward<double>(const LayerNorm<double>&, const double*, int, Arena&,
                                            LayerNormSaved<double>&);
template float* residual_layer_norm_forward<float>(const LayerNorm<float>&, const float*, float*, const float*, int,
                                                  const DropoutSite&, Arena&, LayerNormSaved<float>&);
template double* residual_layer_norm_forward<double>(const LayerNorm<double>&, const double*, double*,
                                                    const double*, int, const DropoutSite&, Arena&,
                                                    LayerNormSaved<double>&);
template void layer_norm_backward<float>(const LayerNorm<float>&, const float*, int, const LayerNormSaved<float>&,
                                         float*, bool);
template void layer_norm_backward<double>(const LayerNorm<double>&, const double*, int,
                                          const LayerNormSaved<double>&, double*, bool);
template void residual_layer_norm_backward<float>(const LayerNorm<float>&, const float*, int,
                                                  const LayerNormSaved<float>&, const DropoutSite&, float*, float*,
                                                  float*);
template void residual_layer_norm_backward<double>(const LayerNorm<double>&, const double*, int,
                                                   const LayerNormSaved<double>&, const DropoutSite&, double*,
                                                   double*, double*);

}  // namespace heptapod
