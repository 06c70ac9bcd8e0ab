// Decoder layer: the forward pass and, read in reverse, the backward pass.
#include "heptapod/model/decoder_layer.h"

#include "heptapod/model/bind.h"

namespace heptapod {

template <typename T>
DecoderLayer<T>::DecoderLayer(ParameterStore<T>& p, const ModelConfig& c, int index) : config_(c), index_(index) {
  const std::string prefix = "decoder/layers/" + std::to_string(index);
  self_attn_ = bind_attention(p, prefix + "/self_attn", c.d_model, c.n_heads);
  self_attn_norm_ = bind_layer_norm(p, prefix + "/self_attn_norm", c.d_model, c.layer_norm_eps);
  cross_attn_ = bind_attention(p, prefix + "/cross_attn", c.d_model, c.n_heads);
  cross_attn_norm_ = bind_layer_norm(p, prefix + "/cross_attn_norm", c.d_model, c.layer_norm_eps);
  ffn_ = bind_feed_forward(p, prefix + "/ffn", c.d_model, c.d_ff);
  ffn_norm_ = bind_layer_norm(p, prefix + "/ffn_norm", c.d_model, c.layer_norm_eps);
}

template <typename T>
DropoutSite DecoderLayer<T>::site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const {
  return ctx.site(config_, Stack::Decoder, index_, slot, kind);
}

template <typename T>
T* DecoderLayer<T>::forward(const T* x, const T* memory, const AttentionShape& self_shape,
                            const AttentionShape& cross_shape, const DropoutContext& ctx, Arena& arena) {
  const int N = self_shape.B * self_shape.Tq;
  const DropoutSite self_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  T* h1 = sublayer_forward(config_.norm, self_attn_norm_, x, N,
                           site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), arena, self_sub_,
                           [&](const T* in, T* out) {
                             attention_forward(self_attn_, in, in, self_shape, self_drop, arena, self_saved_, out);
                           });
  const DropoutSite cross_drop = site(ctx, SublayerSlot::CrossAttention, DropoutKind::Attention);
  T* h2 = sublayer_forward(config_.norm, cross_attn_norm_, h1, N,
                           site(ctx, SublayerSlot::CrossAttention, DropoutKind::Residual), arena, cross_sub_,
                           [&](const T* in, T* out) {
                             attention_forward(cross_attn_, in, memory, cross_shape, cross_drop, arena, cross_saved_,
                                               out);
                           });
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  return sublayer_forward(config_.norm, ffn_norm_, h2, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                          arena, ffn_sub_, [&](const T* in, T* out) {
                            feed_forward_forward(ffn_, in, N, act_drop, arena, ffn_saved_, out);
                          });
}

template <typename T>
void DecoderLayer<T>::backward(const T* dy, const T* memory, const AttentionShape& self_shape,
                               const AttentionShape& cross_shape, const DropoutContext& ctx, Arena& arena, T* dx,
                               T* dmemory) {
  const int N = self_shape.B * self_shape.Tq;
  const std::size_t count = static_cast<std::size_t>(N) * config_.d_model;
  T* dh2 = arena.alloc<T>(count);  // (B*T, C)
  T* dh1 = arena.alloc<T>(count);  // (B*T, C)
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  sublayer_backward(config_.norm, ffn_norm_, dy, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                    ffn_sub_, arena, dh2, [&](const T* dout, T* din, bool accumulate) {
                      feed_forward_backward(ffn_, dout, ffn_sub_.inner_input, N, act_drop, ffn_saved_, arena, din,
                                            accumulate);
                    });
  const DropoutSite cross_drop = site(ctx, SublayerSlot::CrossAttention, DropoutKind::Attention);
  sublayer_backward(config_.norm, cross_attn_norm_, dh2, N,
                    site(ctx, SublayerSlot::CrossAttention, DropoutKind::Residual), cross_sub_, arena, dh1,
                    [&](const T* dout, T* din, bool accumulate) {
                      attention_backward(cross_attn_, dout, cross_sub_.inner_input, memory, cross_shape, cross_drop,
                                         cross_saved_, arena, din, accumulate, dmemory);
                    });
  const DropoutSite self_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  sublayer_backward(config_.norm, self_attn_norm_, dh1, N,
                    site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), self_sub_, arena, dx,
                    [&](const T* dout, T* din, bool accumulate) {
                      const T* in = self_sub_.inner_input;
                      attention_backward(self_attn_, dout, in, in, self_shape, self_drop, self_saved_, arena, din,
                                         accumulate, din);
                    });
}

template class DecoderLayer<float>;
template class DecoderLayer<double>;

}  // namespace heptapod
