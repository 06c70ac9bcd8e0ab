// The one Transformer layer every stack is made of: self-attention (bidirectional or causal, as the shape it is
// given says), optional cross-attention over an encoder's output, and the feed-forward network, each a
// residual sub-layer (post- or pre-norm). Its forward pass serves training and full decoding, step() the
// cached decoding of one position, and backward() is the forward pass read in reverse.
#pragma once

#include <optional>

#include <vector>

#include "heptapod/layers/attention.h"
#include "heptapod/layers/attention_step.h"
#include "heptapod/layers/feed_forward.h"
#include "heptapod/layers/sublayer.h"
#include "heptapod/model/bind.h"
#include "heptapod/model/config.h"
#include "heptapod/model/dropout_streams.h"
#include "heptapod/model/parameter_store.h"

namespace heptapod {

// What a layer's cross-attention reads in forward() and backward(): the encoder output, the rows of each of
// its sentences against the layer's queries, and optionally its keys and values already projected (the
// model projects them for every layer in one product).
template <typename T>
struct CrossInput {
  const T* encoder_output = nullptr;  // (Ns, C)
  const AttentionShape* shape = nullptr;  // queries: the layer's rows; keys: the encoder output's rows
  const ProjectedKeysValues<T>* projected = nullptr;  // null: the layer projects encoder_output itself
  // backward(): the encoder output's gradient (Ns, C), accumulated; unused with `projected`, whose dkv
  // receives the keys' and values' gradient instead.
  T* dencoder_output = nullptr;
};

template <typename T>
class TransformerLayer {
 public:
  // Layer `index` of `stack`; cross_attention: whether it attends to an encoder's output.
  TransformerLayer(ParameterStore<T>& params, const ModelConfig& config, Stack stack, int index, bool cross_attention);

  bool has_cross_attention() const { return cross_attention_; }

  // x: (N, C), N = self_shape.q().rows() -> returns (N, C) from the arena; saves what backward needs. cross:
  // given exactly when the layer has cross-attention.
  T* forward(const T* x, const AttentionShape& self_shape, const CrossInput<T>* cross, const DropoutContext& ctx,
             Arena& arena);
  // dy: (N, C) -> dx: (N, C) assigned, with the forward pass's shapes and cross input. Uses the state saved by
  // the last forward.
  void backward(const T* dy, const AttentionShape& self_shape, const CrossInput<T>* cross, const DropoutContext& ctx,
                Arena& arena, T* dx);

  // Cached decoding (inference), the same sub-layers as forward(): one position for each of `rows` rows,
  // x: (rows, C) -> returns (rows, C) from the arena; the attentions read their keys and values through
  // `cache` (as this stack's layer `index`). prepare_steps() first, once per batch.
  T* step(const T* x, int rows, AttentionCache<T>& cache, Arena& arena);
  // Readies the stacked projections step() and cross_kv_projection() use: a packed model's own, else copies
  // of the current weights (so they follow weights changed since the last batch).
  void prepare_steps();
  // Cross-attention's k|v projection stacked (2C, C): the encoder output's keys and values a decoder caches.
  const Linear<T>& cross_kv_projection() const { return step_kv_; }

  LayerParams<T>& params() { return p_; }
  const LayerParams<T>& params() const { return p_; }

 private:
  DropoutSite site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const;
  // The residual sub-layers in order around self(in, out, bias) and, with cross-attention, cross(in, out,
  // bias); the feed-forward network is the same for forward() and step(). x: (N, C) -> (N, C).
  template <typename SelfAttention, typename CrossAttention>
  T* sublayers(const T* x, int N, const DropoutContext& ctx, Arena& arena, SelfAttention&& self,
               CrossAttention&& cross);

  const ModelConfig& config_;
  Stack stack_;
  int index_;
  bool cross_attention_;
  LayerParams<T> p_;
  SublayerSaved<T> self_sub_, cross_sub_, ffn_sub_;
  AttentionSaved<T> self_saved_, cross_saved_;
  std::optional<RelativePositionTerm<T>> self_term_;  // the last forward's relative-position terms, if any
  FeedForwardSaved<T> ffn_saved_;
  Linear<T> step_qkv_, step_kv_;  // (3C, C) and, with cross-attention, (2C, C): see prepare_steps()
  Arena step_stacked_;            // their weights and biases when the model is not packed
};

}  // namespace heptapod
