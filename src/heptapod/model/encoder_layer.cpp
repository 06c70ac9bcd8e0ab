// Encoder layer: the forward pass and, read in reverse, the backward pass.
#include "heptapod/model/encoder_layer.h"

#include "heptapod/model/bind.h"

namespace heptapod {

template <typename T>
EncoderLayer<T>::EncoderLayer(ParameterStore<T>& p, const ModelConfig& c, int index)
    : config_(c), index_(index), p_(bind_encoder_layer(p, c, index)) {}

template <typename T>
DropoutSite EncoderLayer<T>::site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const {
  return ctx.site(config_, Stack::Encoder, index_, slot, kind);
}

template <typename T>
T* EncoderLayer<T>::forward(const T* x, const AttentionShape& shape, const DropoutContext& ctx, Arena& arena) {
  const int N = shape.q().rows();
  const DropoutSite attn_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  T* h = sublayer_forward(config_.norm, p_.self_attn_norm, x, N,
                          site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), arena, attn_sub_,
                          p_.self_attn.out_proj.b, [&](const T* in, T* out, OutputBias bias) {
                            attention_forward(p_.self_attn, in, in, shape, attn_drop, arena, attn_saved_, out, bias);
                          });
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  return sublayer_forward(config_.norm, p_.ffn_norm, h, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                          arena, ffn_sub_, p_.ffn.fc2.b, [&](const T* in, T* out, OutputBias bias) {
                            feed_forward_forward(p_.ffn, in, N, act_drop, arena, ffn_saved_, out, bias);
                          });
}

template <typename T>
void EncoderLayer<T>::backward(const T* dy, const AttentionShape& shape, const DropoutContext& ctx, Arena& arena,
                               T* dx) {
  const int N = shape.q().rows();
  T* dh = arena.alloc<T>(static_cast<std::size_t>(N) * config_.d_model);  // (N, C)
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  sublayer_backward(config_.norm, p_.ffn_norm, dy, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                    ffn_sub_, arena, dh, p_.ffn.fc2.db, [&](const T* dout, T* din, bool accumulate) {
                      feed_forward_backward(p_.ffn, dout, ffn_sub_.inner_input, N, act_drop, ffn_saved_, arena, din,
                                            accumulate, BiasGrad::Done);
                    });
  const DropoutSite attn_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  sublayer_backward(config_.norm, p_.self_attn_norm, dh, N,
                    site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), attn_sub_, arena, dx,
                    p_.self_attn.out_proj.db, [&](const T* dout, T* din, bool accumulate) {
                      const T* in = attn_sub_.inner_input;
                      attention_backward(p_.self_attn, dout, in, in, shape, attn_drop, attn_saved_, arena, din,
                                         accumulate, din, BiasGrad::Done);
                    });
}

template class EncoderLayer<float>;
template class EncoderLayer<double>;

}  // namespace heptapod
