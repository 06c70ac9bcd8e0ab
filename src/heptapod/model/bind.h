// Binds layer structs to their parameters and gradients in a ParameterStore, by the names of parameter_names.h.
#pragma once

#include <string>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/relative_positions.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_names.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

// A module's tensors (module: its name, parameter_names.h) as a linear layer (out, in) or a layer norm (C).
template <typename T>
Linear<T> bind_linear(ParameterStore<T>& p, const std::string& module, int out, int in) {
  const std::string w = tensor_name(module, Leaf::Weight), b = tensor_name(module, Leaf::Bias);
  return Linear<T>{p.value(w), p.value(b), p.grad(w), p.grad(b), in, out};
}

template <typename T>
LayerNorm<T> bind_layer_norm(ParameterStore<T>& p, const std::string& module, int C, float eps) {
  const std::string w = tensor_name(module, Leaf::Weight), b = tensor_name(module, Leaf::Bias);
  return LayerNorm<T>{p.value(w), p.value(b), p.grad(w), p.grad(b), C, static_cast<T>(eps)};
}

// The projections of attention `a` in layer `layer` of `stack`.
template <typename T>
MultiHeadAttention<T> bind_attention(ParameterStore<T>& p, const AttentionModules& a, Stack stack, int layer, int C,
                                     int heads) {
  auto projection = [&](Module m) { return bind_linear(p, module_name(m, stack, layer), C, C); };
  return MultiHeadAttention<T>{projection(a.query), projection(a.key), projection(a.value), projection(a.output),
                               heads, {}, {}};
}

template <typename T>
FeedForward<T> bind_feed_forward(ParameterStore<T>& p, const ModelConfig& c, Stack stack, int layer) {
  return FeedForward<T>{bind_linear(p, module_name(Module::FfnIn, stack, layer), c.d_ff, c.d_model),
                        bind_linear(p, module_name(Module::FfnOut, stack, layer), c.d_model, c.d_ff), c.activation};
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
  auto norm = [&](Module m) { return bind_layer_norm(p, module_name(m, stack, index), c.d_model, c.layer_norm_eps); };
  LayerParams<T> l;
  l.self_attn = bind_attention(p, kSelfAttention, stack, index, c.d_model, c.n_heads);
  l.self_attn_norm = norm(kSelfAttention.norm);
  if (cross) {
    l.cross_attn = bind_attention(p, kCrossAttention, stack, index, c.d_model, c.n_heads);
    l.cross_attn_norm = norm(kCrossAttention.norm);
  }
  l.ffn_norm = norm(Module::FfnNorm);
  l.ffn = bind_feed_forward(p, c, stack, index);
  if (c.relative_positions) {
    const auto [u_module, v_module] = relative_bias_modules(c);
    const std::string w = tensor_name(Module::RelativeProjection, Leaf::Weight, stack, index),
                      u = module_name(u_module, stack, index), v = module_name(v_module, stack, index);
    l.relative = {p.value(w), p.value(u), p.value(v), p.grad(w), p.grad(u), p.grad(v), c.clamp_length};
  }
  return l;
}

}  // namespace heptapod
