// Binds layer structs to their parameters and gradients in a ParameterStore, by the names of parameter_names.h.
#pragma once

#include <string>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/layers/relative_buckets.h"
#include "heptapod/layers/relative_positions.h"
#include "heptapod/model/config.h"
#include "heptapod/model/parameter_names.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

// A module's tensors (module: its name, parameter_names.h) as a linear layer (out, in) or a norm (C); a bias
// or shift the layout does not have is null, and so is a frozen matrix's gradient. A LoRA adapter the layout
// has beside the matrix is bound too, scaled by the config's alpha / rank.
template <typename T>
Linear<T> bind_linear(ParameterStore<T>& p, const std::string& module, int out, int in, const LoraConfig& lora = {}) {
  const std::string w = tensor_name(module, Leaf::Weight), b = tensor_name(module, Leaf::Bias);
  const bool bias = p.contains(b);
  Linear<T> l{p.value(w), bias ? p.value(b) : nullptr, p.grad_if_trained(w), bias ? p.grad(b) : nullptr, in, out};
  const std::string a = tensor_name(module, Leaf::LoraA), bb = tensor_name(module, Leaf::LoraB);
  if (p.contains(a))
    l.adapter = {p.value(a), p.value(bb), p.grad(a), p.grad(bb), lora.rank, static_cast<T>(lora.scale())};
  return l;
}

template <typename T>
LayerNorm<T> bind_layer_norm(ParameterStore<T>& p, const std::string& module, int C, float eps) {
  const std::string w = tensor_name(module, Leaf::Weight), b = tensor_name(module, Leaf::Bias);
  const bool shift = p.contains(b);  // an RMSNorm has none
  return LayerNorm<T>{p.value(w), shift ? p.value(b) : nullptr, p.grad(w), shift ? p.grad(b) : nullptr, C,
                      static_cast<T>(eps)};
}

// The projections of attention `a` in layer `layer` of `stack`, in the config's shape.
template <typename T>
MultiHeadAttention<T> bind_attention(ParameterStore<T>& p, const ModelConfig& c, const AttentionModules& a,
                                     Stack stack, int layer) {
  const int C = c.d_model, Q = c.query_width(), K = c.key_value_width();
  auto projection = [&](Module m, int out, int in) {
    return bind_linear(p, module_name(m, stack, layer), out, in, c.lora);
  };
  MultiHeadAttention<T> attn;
  attn.q_proj = projection(a.query, Q, C);
  attn.k_proj = projection(a.key, K, C);
  attn.v_proj = projection(a.value, K, C);
  attn.out_proj = projection(a.output, C, Q);
  attn.heads = c.n_heads;
  attn.kv_heads = c.key_value_heads();
  attn.head_dim = c.head_size();
  attn.scaled = c.scale_attention;
  return attn;
}

template <typename T>
FeedForward<T> bind_feed_forward(ParameterStore<T>& p, const ModelConfig& c, Stack stack, int layer) {
  FeedForward<T> ffn;
  ffn.fc1 = bind_linear(p, module_name(Module::FfnIn, stack, layer), c.d_ff, c.d_model, c.lora);
  ffn.fc2 = bind_linear(p, module_name(Module::FfnOut, stack, layer), c.d_model, c.d_ff, c.lora);
  ffn.activation = c.activation;
  if (c.gated_ffn) ffn.gate = bind_linear(p, module_name(Module::FfnGate, stack, layer), c.d_ff, c.d_model, c.lora);
  return ffn;
}

// The parameters of one Transformer layer; cross_attn and cross_attn_norm are empty in a layer without
// cross-attention.
template <typename T>
struct LayerParams {
  MultiHeadAttention<T> self_attn, cross_attn;
  LayerNorm<T> self_attn_norm, cross_attn_norm, ffn_norm;
  FeedForward<T> ffn;
  RelativePositionParams<T> relative;  // Transformer-XL's (config.relative_positions), else empty
  BucketedBias<T> buckets;             // T5's, the stack's table (config.relative_buckets), else empty
};

// T5's relative position bias of `stack` (its table shared by the stack's layers); empty without
// relative_buckets.
template <typename T>
BucketedBias<T> bind_bucketed_bias(ParameterStore<T>& p, const ModelConfig& c, Stack stack) {
  if (c.relative_buckets == 0) return {};
  const std::string table = tensor_name(Module::RelativeBias, Leaf::Weight, stack);
  return {p.value(table), p.grad(table), c.relative_buckets, c.relative_max_distance, stack == Stack::Encoder};
}

// Layer `index` of `stack`, with cross-attention or without, under the names of parameter_layout().
template <typename T>
LayerParams<T> bind_layer(ParameterStore<T>& p, const ModelConfig& c, Stack stack, int index, bool cross) {
  auto norm = [&](Module m) { return bind_layer_norm(p, module_name(m, stack, index), c.d_model, c.layer_norm_eps); };
  LayerParams<T> l;
  l.self_attn = bind_attention(p, c, kSelfAttention, stack, index);
  l.self_attn_norm = norm(kSelfAttention.norm);
  if (c.qk_norm) {
    auto head_norm = [&](Module m) {
      return bind_layer_norm(p, module_name(m, stack, index), c.head_size(), c.layer_norm_eps);
    };
    l.self_attn.q_norm = head_norm(Module::SelfAttnQueryNorm);
    l.self_attn.k_norm = head_norm(Module::SelfAttnKeyNorm);
  }
  if (cross) {
    l.cross_attn = bind_attention(p, c, kCrossAttention, stack, index);
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
  l.buckets = bind_bucketed_bias(p, c, stack);
  return l;
}

}  // namespace heptapod
