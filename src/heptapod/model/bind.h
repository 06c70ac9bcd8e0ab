// Binds layer structs to their parameters and gradients in a ParameterStore, by path name.
#pragma once

#include <string>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

template <typename T>
Linear<T> bind_linear(ParameterStore<T>& p, const std::string& prefix, int out, int in) {
  return Linear<T>{p.value(prefix + "/weight"), p.value(prefix + "/bias"), p.grad(prefix + "/weight"),
                   p.grad(prefix + "/bias"), in, out};
}

template <typename T>
LayerNorm<T> bind_layer_norm(ParameterStore<T>& p, const std::string& prefix, int C, float eps) {
  return LayerNorm<T>{p.value(prefix + "/weight"), p.value(prefix + "/bias"), p.grad(prefix + "/weight"),
                      p.grad(prefix + "/bias"), C, static_cast<T>(eps)};
}

template <typename T>
MultiHeadAttention<T> bind_attention(ParameterStore<T>& p, const std::string& prefix, int C, int heads) {
  return MultiHeadAttention<T>{bind_linear(p, prefix + "/q_proj", C, C), bind_linear(p, prefix + "/k_proj", C, C),
                               bind_linear(p, prefix + "/v_proj", C, C), bind_linear(p, prefix + "/out_proj", C, C),
                               heads};
}

template <typename T>
FeedForward<T> bind_feed_forward(ParameterStore<T>& p, const std::string& prefix, int C, int F) {
  return FeedForward<T>{bind_linear(p, prefix + "/fc1", F, C), bind_linear(p, prefix + "/fc2", C, F)};
}

}  // namespace heptapod
