// The feed-forward network's smooth activations, SiLU (swish), GELU and GELU's tanh approximation (GPT-2's
// gelu_new), forward and backward. ReLU, the
// paper's, has its own fused kernels (relu_dropout.h); these serve models that were trained with the others.
#pragma once

namespace heptapod::kernels {

// Gelu is the exact one, x * Phi(x) with erf; GeluTanh is 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
enum class Activation { Relu, Silu, Gelu, GeluTanh };

// pre: (N, F) x W^T in, x W^T + bias out (bias may be null); out: (N, F) = act(pre).
template <typename T>
void bias_activation_forward(T* pre, const T* bias, T* out, int N, int F, Activation act);

// x: (n) in place: act(x).
template <typename T>
void activation_forward(T* x, long n, Activation act);

// grad: (N, F) dL/d(act(pre)) in, dL/d(pre) out; pre: (N, F) the forward's pre-activation; dbias: (F)
// accumulated with the column sums of the result (skipped when null).
template <typename T>
void activation_backward(T* grad, const T* pre, T* dbias, int N, int F, Activation act);

}  // namespace heptapod::kernels
