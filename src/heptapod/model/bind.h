// Binds layer structs to their parameters and gradients in a ParameterStore, by path name.
#pragma once

#include <string>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/layers/linear.h"
#include "heptapod/model/config.h"
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

// The parameters of one encoder layer.
template <typename T>
struct EncoderLayerParams {
  MultiHeadAttention<T> self_attn;
  LayerNorm<T> self_attn_norm;
  FeedForward<T> ffn;
  LayerNorm<T> ffn_norm;
};

// The parameters of one decoder layer (shared by the training decoder and the incremental decoder).
template <typename T>
struct DecoderLayerParams {
  MultiHeadAttention<T> self_attn, cross_attn;
  LayerNorm<T> self_attn_norm, cross_attn_norm, ffn_norm;
  FeedForward<T> ffn;
};

template <typename T>
EncoderLayerParams<T> bind_encoder_layer(ParameterStore<T>& p, const ModelConfig& c, int index) {
  const std::string prefix = "encoder/layers/" + std::to_string(index);
  return {bind_attention(p, prefix + "/self_attn", c.d_model, c.n_heads),
          bind_layer_norm(p, prefix + "/self_attn_norm", c.d_model, c.layer_norm_eps),
          bind_feed_forward(p, prefix + "/ffn", c),
          bind_layer_norm(p, prefix + "/ffn_norm", c.d_model, c.layer_norm_eps)};
}

template <typename T>
DecoderLayerParams<T> bind_decoder_layer(ParameterStore<T>& p, const ModelConfig& c, int index) {
  const std::string prefix = "decoder/layers/" + std::to_string(index);
  DecoderLayerParams<T> l;
  l.self_attn = bind_attention(p, prefix + "/self_attn", c.d_model, c.n_heads);
  l.cross_attn = bind_attention(p, prefix + "/cross_attn", c.d_model, c.n_heads);
  l.self_attn_norm = bind_layer_norm(p, prefix + "/self_attn_norm", c.d_model, c.layer_norm_eps);
  l.cross_attn_norm = bind_layer_norm(p, prefix + "/cross_attn_norm", c.d_model, c.layer_norm_eps);
  l.ffn_norm = bind_layer_norm(p, prefix + "/ffn_norm", c.d_model, c.layer_norm_eps);
  l.ffn = bind_feed_forward(p, prefix + "/ffn", c);
  return l;
}

}  // namespace heptapod
