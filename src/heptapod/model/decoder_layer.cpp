// Decoder layer: the forward pass and, read in reverse, the backward pass.
#include "heptapod/model/decoder_layer.h"

#include "heptapod/core/error.h"
#include "heptapod/model/bind.h"

namespace heptapod {

template <typename T>
DecoderLayer<T>::DecoderLayer(ParameterStore<T>& p, const ModelConfig& c, int index)
    : config_(c), index_(index), p_(bind_decoder_layer(p, c, index)) {}

template <typename T>
DropoutSite DecoderLayer<T>::site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const {
  return ctx.site(config_, Stack::Decoder, index_, slot, kind);
}

template <typename T>
template <typename SelfAttention, typename CrossAttention>
T* DecoderLayer<T>::sublayers(const T* x, int N, const DropoutContext& ctx, Arena& arena, SelfAttention&& self,
                              CrossAttention&& cross) {
  T* h1 = sublayer_forward(config_.norm, p_.self_attn_norm, x, N,
                           site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), arena, self_sub_,
                           p_.self_attn.out_proj.b, self);
  T* h2 = sublayer_forward(config_.norm, p_.cross_attn_norm, h1, N,
                           site(ctx, SublayerSlot::CrossAttention, DropoutKind::Residual), arena, cross_sub_,
                           p_.cross_attn.out_proj.b, cross);
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  return sublayer_forward(config_.norm, p_.ffn_norm, h2, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                          arena, ffn_sub_, p_.ffn.fc2.b, [&](const T* in, T* out, OutputBias bias) {
                            feed_forward_forward(p_.ffn, in, N, act_drop, arena, ffn_saved_, out, bias);
                          });
}

template <typename T>
T* DecoderLayer<T>::forward(const T* x, const T* memory, const AttentionShape& self_shape,
                            const AttentionShape& cross_shape, const DropoutContext& ctx, Arena& arena,
                            const ProjectedKeysValues<T>* memory_kv) {
  const DropoutSite self_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  const DropoutSite cross_drop = site(ctx, SublayerSlot::CrossAttention, DropoutKind::Attention);
  return sublayers(
      x, self_shape.q().rows(), ctx, arena,
      [&](const T* in, T* out, OutputBias bias) {
        attention_forward(p_.self_attn, in, in, self_shape, self_drop, arena, self_saved_, out, bias);
      },
      [&](const T* in, T* out, OutputBias bias) {
        attention_forward(p_.cross_attn, in, memory, cross_shape, cross_drop, arena, cross_saved_, out, bias,
                          memory_kv);
      });
}

template <typename T>
T* DecoderLayer<T>::step(const T* x, int rows, AttentionCache<T>& cache, Arena& arena) {
  require(step_qkv_.out > 0, "decoder layer: step() before prepare_steps()");
  return sublayers(
      x, rows, DropoutContext{}, arena,
      [&](const T* in, T* out, OutputBias bias) {
        self_attention_step(p_.self_attn, step_qkv_, index_, in, rows, cache, arena, out, bias);
      },
      [&](const T* in, T* out, OutputBias bias) {
        cross_attention_step(p_.cross_attn, index_, in, rows, cache, arena, out, bias);
      });
}

template <typename T>
void DecoderLayer<T>::prepare_steps() {
  const MultiHeadAttention<T>& self = p_.self_attn;
  const MultiHeadAttention<T>& cross = p_.cross_attn;
  if (self.qkv.packed && cross.kv.packed) {
    step_qkv_ = self.qkv;
    step_kv_ = cross.kv;
    return;
  }
  const long C = config_.d_model;
  step_stacked_.resize(static_cast<std::size_t>(5 * C * C + 5 * C));  // q|k|v and k|v weights, then their biases
  T* w = step_stacked_.data();
  T* b = w + 5 * C * C;
  step_qkv_ = stack_linear({&self.q_proj, &self.k_proj, &self.v_proj}, w, b);
  step_kv_ = stack_linear({&cross.k_proj, &cross.v_proj}, w + 3 * C * C, b + 3 * C);
}

template <typename T>
void DecoderLayer<T>::backward(const T* dy, const T* memory, const AttentionShape& self_shape,
                               const AttentionShape& cross_shape, const DropoutContext& ctx, Arena& arena, T* dx,
                               T* dmemory, const ProjectedKeysValues<T>* memory_kv) {
  const int N = self_shape.q().rows();
  const std::size_t count = static_cast<std::size_t>(N) * config_.d_model;
  T* dh2 = arena.alloc<T>(count);  // (B*T, C)
  T* dh1 = arena.alloc<T>(count);  // (B*T, C)
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  sublayer_backward(config_.norm, p_.ffn_norm, dy, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                    ffn_sub_, arena, dh2, p_.ffn.fc2.db, [&](const T* dout, T* din, bool accumulate) {
                      feed_forward_backward(p_.ffn, dout, ffn_sub_.inner_input, N, act_drop, ffn_saved_, arena, din,
                                            accumulate, BiasGrad::Done);
                    });
  const DropoutSite cross_drop = site(ctx, SublayerSlot::CrossAttention, DropoutKind::Attention);
  sublayer_backward(config_.norm, p_.cross_attn_norm, dh2, N,
                    site(ctx, SublayerSlot::CrossAttention, DropoutKind::Residual), cross_sub_, arena, dh1,
                    p_.cross_attn.out_proj.db, [&](const T* dout, T* din, bool accumulate) {
                      attention_backward(p_.cross_attn, dout, cross_sub_.inner_input, memory, cross_shape, cross_drop,
                                         cross_saved_, arena, din, accumulate, dmemory, BiasGrad::Done, memory_kv);
                    });
  const DropoutSite self_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  sublayer_backward(config_.norm, p_.self_attn_norm, dh1, N,
                    site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), self_sub_, arena, dx,
                    p_.self_attn.out_proj.db, [&](const T* dout, T* din, bool accumulate) {
                      const T* in = self_sub_.inner_input;
                      attention_backward(p_.self_attn, dout, in, in, self_shape, self_drop, self_saved_, arena, din,
                                         accumulate, din, BiasGrad::Done);
                    });
}

template class DecoderLayer<float>;
template class DecoderLayer<double>;

}  // namespace heptapod
