// The Transformer's forward pass, loss and backward pass (the forward pass read in reverse).
#include "heptapod/model/transformer.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/kernels/blas.h"
#include "heptapod/kernels/elementwise.h"
#include "heptapod/model/bind.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

using kernels::gemm;
using kernels::Trans;

template <typename T>
Transformer<T>::Transformer(const ModelConfig& config)
    : config_((validate(config), config)), params_(parameter_layout(config_)), positions_(config_.d_model) {
  const ModelConfig& c = config_;
  src_embedding_ = {params_.value(source_embedding_name(c)), params_.grad(source_embedding_name(c)), c.d_model};
  tgt_embedding_ = {params_.value(target_embedding_name(c)), params_.grad(target_embedding_name(c)), c.d_model};
  output_w_ = params_.value(output_projection_name(c));
  output_dw_ = params_.grad(output_projection_name(c));
  if (c.output_bias) {
    output_b_ = params_.value("decoder/output_proj/bias");
    output_db_ = params_.grad("decoder/output_proj/bias");
  }
  for (int i = 0; i < c.encoder_layers; ++i) encoder_.push_back(std::make_unique<EncoderLayer<T>>(params_, config_, i));
  for (int i = 0; i < c.decoder_layers; ++i) decoder_.push_back(std::make_unique<DecoderLayer<T>>(params_, config_, i));
  has_final_norm_ = c.has_final_norm();
  if (has_final_norm_) {
    encoder_final_norm_ = bind_layer_norm(params_, "encoder/final_norm", c.d_model, c.layer_norm_eps);
    decoder_final_norm_ = bind_layer_norm(params_, "decoder/final_norm", c.d_model, c.layer_norm_eps);
  }
}

template <typename T>
typename Transformer<T>::Shapes Transformer<T>::shapes(const Batch& b) const {
  Shapes s;
  s.encoder_self = {b.B, b.S, b.S, b.src_len.data(), false};
  s.decoder_self = {b.B, b.T, b.T, b.tgt_len.data(), true};
  s.cross = {b.B, b.T, b.S, b.src_len.data(), false};
  return s;
}

// Training keeps every layer's activations in `arena` for backward. Inference (layer_scratch given) runs each
// layer in the scratch arena and keeps only its output, so memory does not grow with depth.
template <typename T>
T* Transformer<T>::encode_stack(const int* src, int B, int S, const int* src_len, const DropoutContext& ctx,
                                Arena& arena, Arena* layer_scratch) {
  const AttentionShape shape{B, S, S, src_len, false};
  T* x = embedding_forward(src_embedding_, src, B, S, positions_.table(S),
                           ctx.site(config_, Stack::Encoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding),
                           arena);  // (B*S, C)
  Arena& layer_arena = layer_scratch ? *layer_scratch : arena;
  auto keep = [&](T* y) {  // y: (B*S, C), a layer's output
    if (!layer_scratch) return y;
    std::copy_n(y, static_cast<std::size_t>(B) * S * config_.d_model, x);
    layer_scratch->reset();
    return x;
  };
  for (auto& layer : encoder_) x = keep(layer->forward(x, shape, ctx, layer_arena));
  if (has_final_norm_) x = keep(layer_norm_forward(encoder_final_norm_, x, B * S, layer_arena, encoder_final_saved_));
  return x;  // (B*S, C)
}

template <typename T>
T* Transformer<T>::encode(const int* src, int B, int S, const int* src_len, Arena& arena) {
  for (int b = 0; b < B; ++b)
    for (int s = 0; s < S; ++s)
      require(src[b * S + s] >= 0 && src[b * S + s] < config_.src_vocab_size,
              "encode: source token id " + std::to_string(src[b * S + s]) + " is outside the vocabulary");
  return encode_stack(src, B, S, src_len, DropoutContext{}, arena, &inference_scratch_);
}

template <typename T>
T* Transformer<T>::forward(const Batch& b, const DropoutContext& ctx, Arena& arena) {
  const ModelConfig& c = config_;
  const Shapes sh = shapes(b);
  const int Nt = b.B * b.T;
  memory_ = encode_stack(b.src.data(), b.B, b.S, b.src_len.data(), ctx, arena, nullptr);  // (B*S, C)

  // Decoder.
  T* y = embedding_forward(tgt_embedding_, b.tgt_in.data(), b.B, b.T, positions_.table(b.T),
                           ctx.site(c, Stack::Decoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding), arena);
  for (auto& layer : decoder_) y = layer->forward(y, memory_, sh.decoder_self, sh.cross, ctx, arena);
  if (has_final_norm_) y = layer_norm_forward(decoder_final_norm_, y, Nt, arena, decoder_final_saved_);
  hidden_ = y;  // (B*T, C)

  // Output projection: logits (B*T, V) = hidden W_out^T (+ b).
  T* logits = arena.alloc<T>(static_cast<std::size_t>(Nt) * c.tgt_vocab_size);
  gemm<T>(Trans::No, Trans::Yes, Nt, c.tgt_vocab_size, c.d_model, T(1), hidden_, c.d_model, output_w_, c.d_model, T(0),
          logits, c.tgt_vocab_size);
  if (output_b_) kernels::add_bias(logits, output_b_, Nt, c.tgt_vocab_size);
  return logits;
}

template <typename T>
void Transformer<T>::backward(const Batch& b, const DropoutContext& ctx, Arena& arena, T* dlogits) {
  const ModelConfig& c = config_;
  const Shapes sh = shapes(b);
  const int Nt = b.B * b.T, Ns = b.B * b.S, C = c.d_model, V = c.tgt_vocab_size;

  // Output projection.
  T* dy = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (B*T, C)
  gemm<T>(Trans::No, Trans::No, Nt, C, V, T(1), dlogits, V, output_w_, C, T(0), dy, C);
  gemm<T>(Trans::Yes, Trans::No, V, C, Nt, T(1), dlogits, V, hidden_, C, T(1), output_dw_, C);
  if (output_db_) kernels::bias_backward(dlogits, output_db_, Nt, V);

  // Decoder, last layer first; every cross-attention adds into dmemory.
  if (has_final_norm_) {
    T* d = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (B*T, C)
    layer_norm_backward(decoder_final_norm_, dy, Nt, decoder_final_saved_, d, false);
    dy = d;
  }
  T* dmemory = arena.alloc_zero<T>(static_cast<std::size_t>(Ns) * C);  // (B*S, C)
  for (int i = c.decoder_layers - 1; i >= 0; --i) {
    T* dx = arena.alloc<T>(static_cast<std::size_t>(Nt) * C);  // (B*T, C)
    decoder_[i]->backward(dy, memory_, sh.decoder_self, sh.cross, ctx, arena, dx, dmemory);
    dy = dx;
  }
  embedding_backward(tgt_embedding_, dy, b.tgt_in.data(), b.B, b.T,
                     ctx.site(c, Stack::Decoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding));

  // Encoder, last layer first.
  T* dx = dmemory;
  if (has_final_norm_) {
    T* d = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);  // (B*S, C)
    layer_norm_backward(encoder_final_norm_, dx, Ns, encoder_final_saved_, d, false);
    dx = d;
  }
  for (int i = c.encoder_layers - 1; i >= 0; --i) {
    T* d = arena.alloc<T>(static_cast<std::size_t>(Ns) * C);  // (B*S, C)
    encoder_[i]->backward(dx, sh.encoder_self, ctx, arena, d);
    dx = d;
  }
  embedding_backward(src_embedding_, dx, b.src.data(), b.B, b.S,
                     ctx.site(c, Stack::Encoder, -1, SublayerSlot::SelfAttention, DropoutKind::Embedding));
}

template <typename T>
LossTotals Transformer<T>::forward_backward(const Batch& b, const StepOptions& options, Arena& arena) {
  validate_batch(b, config_);
  const DropoutContext ctx{options.training, options.seed};
  T* logits = forward(b, ctx, arena);
  const double normalizer = options.grad_normalizer > 0 ? options.grad_normalizer : static_cast<double>(b.target_tokens());
  const LossTotals totals =
      kernels::cross_entropy(logits, b.tgt_out.data(), b.tgt_len.data(), b.B, b.T, config_.tgt_vocab_size,
                             static_cast<T>(options.label_smoothing), static_cast<T>(1.0 / normalizer), logits, static_cast<T*>(nullptr));
  backward(b, ctx, arena, logits);  // the gradient overwrote the logits in place
  return totals;
}

template <typename T>
LossTotals Transformer<T>::evaluate(const Batch& b, float label_smoothing, Arena& arena, T* row_nll) {
  validate_batch(b, config_);
  T* out = forward(b, DropoutContext{}, arena);
  return kernels::cross_entropy(out, b.tgt_out.data(), b.tgt_len.data(), b.B, b.T, config_.tgt_vocab_size,
                                static_cast<T>(label_smoothing), T(0), static_cast<T*>(nullptr), row_nll);
}

template <typename T>
T* Transformer<T>::logits(const Batch& b, Arena& arena) {
  validate_batch(b, config_);
  return forward(b, DropoutContext{}, arena);
}

template class Transformer<float>;
template class Transformer<double>;

}  // namespace heptapod
