// Binds layer structs to their parameters and gradients in a ParameterStore, by the names of parameter_layout().
#pragma once

#include <string>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/relative_positions.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_layout.h"
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
                               heads, {}, {}};
}

template <typename T>
FeedForward<T> bind_feed_forward(ParameterStore<T>& p, const std::string& prefix, const ModelConfig& c) {
  return FeedForward<T>{bind_linear(p, prefix + "/fc1", c.d_ff, c.d_model),
                        bind_linear(p, prefix + "/fc2", c.d_model, c.d_ff), c.activation};
}

// The parameters of one Transformer layer; cross_attn and cross_attn_norm are empty in a layer without
// cross-attention.
template <typename T>
struct LayerParams {
  MultiHeadAttention<T> self_attn, cross_attn;
  LayerNorm<T> self_attn_norm, cross_attn_norm, ffn_norm;
  FeedForward<T> ffn;
  RelativePositionParams<T> relative;  // Transformer-XL's (config.relative_positions), else empty
};

// Layer `index` of `stack`, with cross-attention or without, under the names of parameter_layout().
template <typename T>
LayerParams<T> bind_layer(ParameterStore<T>& p, const ModelConfig& c, Stack stack, int index, bool cross) {
  const std::string prefix = layer_prefix(stack, index);
  LayerParams<T> l;
  l.self_attn = bind_attention(p, prefix + "/self_attn", c.d_model, c.n_heads);
  l.self_attn_norm = bind_layer_norm(p, prefix + "/self_attn_norm", c.d_model, c.layer_norm_eps);
  if (cross) {
    l.cross_attn = bind_attention(p, prefix + "/cross_attn", c.d_model, c.n_heads);
    l.cross_attn_norm = bind_layer_norm(p, prefix + "/cross_attn_norm", c.d_model, c.layer_norm_eps);
  }
  l.ffn_norm = bind_layer_norm(p, prefix + "/ffn_norm", c.d_model, c.layer_norm_eps);
  l.ffn = bind_feed_forward(p, prefix + "/ffn", c);
  if (c.relative_positions) {
    const std::string w = relative_projection_name(stack, index), u = relative_bias_name(c, stack, index, "u"),
                      v = relative_bias_name(c, stack, index, "v");
    l.relative = {p.value(w), p.value(u), p.value(v), p.grad(w), p.grad(u), p.grad(v), c.clamp_length};
  }
  return l;
}

}  // namespace heptapod
