// The Transformer layer: the forward pass, the cached step and, read in reverse, the backward pass.
#include "heptapod/model/transformer_layer.h"

#include <algorithm>

#include "heptapod/core/error.h"

namespace heptapod {

template <typename T>
TransformerLayer<T>::TransformerLayer(ParameterStore<T>& p, const ModelConfig& c, Stack stack, int index,
                                      bool cross_attention)
    : config_(c),
      stack_(stack),
      index_(index),
      cross_attention_(cross_attention),
      p_(bind_layer(p, c, stack, index, cross_attention)) {}

template <typename T>
DropoutSite TransformerLayer<T>::site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const {
  return ctx.site(config_, stack_, index_, slot, kind);
}

template <typename T>
ScoreTerm<T>* TransformerLayer<T>::score_term() {
  if (self_term_) return &*self_term_;
  return bucket_term_ ? &*bucket_term_ : nullptr;
}

template <typename T>
template <typename SelfAttention, typename CrossAttention>
T* TransformerLayer<T>::sublayers(const T* x, int N, const DropoutContext& ctx, Arena& arena, SelfAttention&& self,
                                  CrossAttention&& cross) {
  T* h = sublayer_forward(config_.norm, p_.self_attn_norm, x, N,
                          site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), arena, self_sub_,
                          p_.self_attn.out_proj.b, self);  // (N, C)
  if (cross_attention_)
    h = sublayer_forward(config_.norm, p_.cross_attn_norm, h, N,
                         site(ctx, SublayerSlot::CrossAttention, DropoutKind::Residual), arena, cross_sub_,
                         p_.cross_attn.out_proj.b, cross);  // (N, C)
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  return sublayer_forward(config_.norm, p_.ffn_norm, h, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                          arena, ffn_sub_, p_.ffn.fc2.b, [&](const T* in, T* out, OutputBias bias) {
                            feed_forward_forward(p_.ffn, in, N, act_drop, arena, ffn_saved_, out, bias);
                          });
}

template <typename T>
T* TransformerLayer<T>::forward(const T* x, const AttentionShape& self_shape, const CrossInput<T>* cross,
                                const DropoutContext& ctx, Arena& arena, const MemoryInput<T>* memory,
                                const RotaryAngles<T>* rotary) {
  require((cross != nullptr) == cross_attention_, "transformer layer: cross input given to a layer without "
                                                  "cross-attention, or missing");
  if (memory) memory_ = *memory;
  else memory_.reset();
  const AttentionShape& shape = memory ? *memory->shape : self_shape;
  const DropoutSite self_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  const DropoutSite cross_drop = site(ctx, SublayerSlot::CrossAttention, DropoutKind::Attention);
  return sublayers(
      x, self_shape.q().rows(), ctx, arena,
      [&](const T* in, T* out, OutputBias bias) {
        // A packed model's weights no longer change: its distance tables serve every pass.
        if (config_.relative_positions)
          self_term_.emplace(p_.relative, config_.d_model, config_.n_heads, shape,
                             p_.self_attn.qkv.packed ? &relative_tables_ : nullptr);
        if (config_.relative_buckets > 0) bucket_term_.emplace(p_.buckets, config_.n_heads, shape);
        if (memory_) memory_attention_forward(in, out, bias, self_drop, arena);
        else
          attention_forward<T>(p_.self_attn, in, in, self_shape, self_drop, arena, self_saved_, out, bias, nullptr,
                               score_term(), rotary);
      },
      [&](const T* in, T* out, OutputBias bias) {
        attention_forward(p_.cross_attn, in, cross->encoder_output, *cross->shape, cross_drop, arena, cross_saved_,
                          out, bias, cross->projected);
      });
}

namespace {

// Per stream, its memory rows and then its segment rows, each `width` wide: memory (Nm, width) and segment
// (N, width) -> (Nk, width) from the arena, in m.keys' layout.
template <typename T>
T* join_memory_and_segment(const MemoryInput<T>& m, const T* memory, const T* segment, int width, Arena& arena) {
  const Sequences& seg = m.shape->q();
  T* out = arena.alloc<T>(static_cast<std::size_t>(m.keys->rows()) * width);
  for (int b = 0; b < seg.count(); ++b) {
    T* rows = out + static_cast<std::size_t>(m.keys->start[b]) * width;
    std::copy_n(memory + static_cast<std::size_t>(m.memory->start[b]) * width,
                static_cast<std::size_t>(m.memory->len[b]) * width, rows);
    std::copy_n(segment + static_cast<std::size_t>(seg.start[b]) * width, static_cast<std::size_t>(seg.len[b]) * width,
                rows + static_cast<std::size_t>(m.memory->len[b]) * width);
  }
  return out;
}

}  // namespace

template <typename T>
void TransformerLayer<T>::memory_attention_forward(const T* in, T* out, OutputBias bias, const DropoutSite& drop,
                                                   Arena& arena) {
  const MemoryInput<T>& m = *memory_;
  const int C = config_.d_model;
  const Sequences& seg = m.shape->q();
  if (m.keys_values) {  // the memory's keys and values as they were projected, then the segment's
    segment_kv_ = arena.alloc<T>(static_cast<std::size_t>(seg.rows()) * 2 * C);  // (N, 2C)
    project_keys_values(p_.self_attn, in, seg.rows(), arena, segment_kv_);
    memory_keys_ = join_memory_and_segment(m, m.rows, segment_kv_, 2 * C, arena);  // (Nk, 2C)
    const ProjectedKeysValues<T> projected{memory_keys_, nullptr, 2 * C};
    attention_forward<T>(p_.self_attn, in, memory_keys_, *m.shape, drop, arena, self_saved_, out, bias, &projected,
                         score_term());
    return;
  }
  const T* mem = m.rows;  // (Nm, C): pre-norm reads it through the same norm as the segment's rows
  if (config_.norm == NormPosition::Pre) {
    // The norm's backward reads its input again, and the memory moves on after this layer: a copy.
    const std::size_t count = static_cast<std::size_t>(m.memory->rows()) * C;
    T* rows = arena.alloc<T>(count);  // (Nm, C)
    std::copy_n(m.rows, count, rows);
    mem = layer_norm_forward(p_.self_attn_norm, rows, m.memory->rows(), arena, memory_norm_);
  }
  memory_keys_ = join_memory_and_segment(m, mem, in, C, arena);  // (Nk, C)
  attention_forward<T>(p_.self_attn, in, memory_keys_, *m.shape, drop, arena, self_saved_, out, bias, nullptr,
                       score_term());
}

template <typename T>
void TransformerLayer<T>::memory_attention_backward(const T* dout, T* din, bool accumulate, const DropoutSite& drop,
                                                    Arena& arena) {
  const MemoryInput<T>& m = *memory_;
  require(!m.keys_values, "transformer layer: a keys-and-values memory is inference's (it has no backward)");
  const int C = config_.d_model;
  const Sequences& seg = m.shape->q();
  const std::size_t key_count = static_cast<std::size_t>(m.keys->rows()) * C;
  T* dkeys = arena.alloc<T>(key_count);  // (Nk, C) the keys' and values' input rows' gradient
  std::fill_n(dkeys, key_count, T(0));
  attention_backward<T>(p_.self_attn, dout, self_sub_.inner_input, memory_keys_, *m.shape, drop, self_saved_, arena,
                        din, accumulate, dkeys, BiasGrad::Done, nullptr, score_term());
  const bool pre = config_.norm == NormPosition::Pre;
  T* dmem = pre ? arena.alloc<T>(static_cast<std::size_t>(m.memory->rows()) * C) : nullptr;  // (Nm, C)
  for (int b = 0; b < seg.count(); ++b) {
    const T* dk = dkeys + static_cast<std::size_t>(m.keys->start[b]) * C;
    if (pre)
      std::copy_n(dk, static_cast<std::size_t>(m.memory->len[b]) * C,
                  dmem + static_cast<std::size_t>(m.memory->start[b]) * C);
    dk += static_cast<std::size_t>(m.memory->len[b]) * C;
    T* d = din + static_cast<std::size_t>(seg.start[b]) * C;
    for (std::size_t i = 0; i < static_cast<std::size_t>(seg.len[b]) * C; ++i) d[i] += dk[i];
  }
  if (!pre || m.memory->rows() == 0) return;
  // The norm's parameters see the memory rows too; the gradient at the memory itself goes nowhere.
  T* unused = arena.alloc<T>(static_cast<std::size_t>(m.memory->rows()) * C);  // (Nm, C)
  layer_norm_backward(p_.self_attn_norm, dmem, m.memory->rows(), memory_norm_, unused, false);
}

template <typename T>
std::pair<const T*, long> TransformerLayer<T>::segment_keys_values() const {
  if (memory_ && memory_->keys_values) return {segment_kv_, 2L * config_.key_value_width()};
  return {self_saved_.k, self_saved_.ldkv};  // the plain pass's q | k | v rows: their k | v columns
}

template <typename T>
T* TransformerLayer<T>::step(const T* x, int rows, AttentionCache<T>& cache, Arena& arena,
                             const RotaryAngles<T>* rotary) {
  require(step_qkv_.out > 0, "transformer layer: step() before prepare_steps()");
  return sublayers(
      x, rows, DropoutContext{}, arena,
      [&](const T* in, T* out, OutputBias bias) {
        self_attention_step(p_.self_attn, step_qkv_, index_, in, rows, cache, arena, out, bias, rotary);
      },
      [&](const T* in, T* out, OutputBias bias) {
        cross_attention_step(p_.cross_attn, index_, in, rows, cache, arena, out, bias);
      });
}

template <typename T>
void TransformerLayer<T>::prepare_steps() {
  step_stacked_.reset();
  step_qkv_ = stacked_projection(p_.self_attn, true, step_stacked_);
  if (cross_attention_) step_kv_ = stacked_projection(p_.cross_attn, false, step_stacked_);
}

template <typename T>
void TransformerLayer<T>::backward(const T* dy, const AttentionShape& self_shape, const CrossInput<T>* cross,
                                   const DropoutContext& ctx, Arena& arena, T* dx) {
  const int N = self_shape.q().rows();
  const std::size_t count = static_cast<std::size_t>(N) * config_.d_model;
  T* dffn_in = arena.alloc<T>(count);                               // (N, C) gradient at the FFN sub-layer's input
  T* dcross_in = cross_attention_ ? arena.alloc<T>(count) : nullptr;  // (N, C) at the cross-attention's input
  const DropoutSite act_drop = site(ctx, SublayerSlot::FeedForward, DropoutKind::Activation);
  sublayer_backward(config_.norm, p_.ffn_norm, dy, N, site(ctx, SublayerSlot::FeedForward, DropoutKind::Residual),
                    ffn_sub_, arena, dffn_in, p_.ffn.fc2.db, [&](const T* dout, T* din, bool accumulate) {
                      feed_forward_backward(p_.ffn, dout, ffn_sub_.inner_input, N, act_drop, ffn_saved_, arena, din,
                                            accumulate, BiasGrad::Done);
                    });
  const T* dself_out = dffn_in;  // (N, C) gradient at the self-attention sub-layer's output
  if (cross_attention_) {
    const DropoutSite cross_drop = site(ctx, SublayerSlot::CrossAttention, DropoutKind::Attention);
    sublayer_backward(config_.norm, p_.cross_attn_norm, dffn_in, N,
                      site(ctx, SublayerSlot::CrossAttention, DropoutKind::Residual), cross_sub_, arena, dcross_in,
                      p_.cross_attn.out_proj.db, [&](const T* dout, T* din, bool accumulate) {
                        attention_backward(p_.cross_attn, dout, cross_sub_.inner_input, cross->encoder_output,
                                           *cross->shape, cross_drop, cross_saved_, arena, din, accumulate,
                                           cross->dencoder_output, BiasGrad::Done, cross->projected);
                      });
    dself_out = dcross_in;
  }
  const DropoutSite self_drop = site(ctx, SublayerSlot::SelfAttention, DropoutKind::Attention);
  sublayer_backward(config_.norm, p_.self_attn_norm, dself_out, N,
                    site(ctx, SublayerSlot::SelfAttention, DropoutKind::Residual), self_sub_, arena, dx,
                    p_.self_attn.out_proj.db, [&](const T* dout, T* din, bool accumulate) {
                      if (memory_) {
                        memory_attention_backward(dout, din, accumulate, self_drop, arena);
                      } else {
                        const T* in = self_sub_.inner_input;
                        attention_backward<T>(p_.self_attn, dout, in, in, self_shape, self_drop, self_saved_, arena,
                                              din, accumulate, din, BiasGrad::Done, nullptr,
                                              score_term());
                      }
                      if (self_term_) self_term_->finish_backward();
                      if (bucket_term_) bucket_term_->finish_backward();
                    });
}

template class TransformerLayer<float>;
template class TransformerLayer<double>;

}  // namespace heptapod
