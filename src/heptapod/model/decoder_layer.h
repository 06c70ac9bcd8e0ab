// One decoder layer: causal self-attention, cross-attention over the encoder output, feed-forward; each
// wrapped in residual + layer norm.
#pragma once

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

template <typename T>
class DecoderLayer {
 public:
  DecoderLayer(ParameterStore<T>& params, const ModelConfig& config, int index);

  // x: (Nt, C), memory: (Ns, C) (rows as in self_shape and cross_shape) -> returns (Nt, C) from the arena.
  // Cross-attention reads keys and values from memory_kv when given (projected by the caller), else projects
  // memory itself.
  T* forward(const T* x, const T* memory, const AttentionShape& self_shape, const AttentionShape& cross_shape,
             const DropoutContext& ctx, Arena& arena, const ProjectedKeysValues<T>* memory_kv = nullptr);
  // dy: (Nt, C) -> dx: (Nt, C) assigned; dmemory: (Ns, C) accumulated, or with memory_kv (as in forward) the
  // keys' and values' gradient written to memory_kv->dkv instead.
  void backward(const T* dy, const T* memory, const AttentionShape& self_shape, const AttentionShape& cross_shape,
                const DropoutContext& ctx, Arena& arena, T* dx, T* dmemory,
                const ProjectedKeysValues<T>* memory_kv = nullptr);

  // Incremental decoding (inference), the same sub-layers as forward(): one position for each of `rows`
  // hypotheses, x: (rows, C) -> returns (rows, C) from the arena; both attentions read their keys and values
  // through `cache`. prepare_steps() first, once per batch.
  T* step(const T* x, int rows, AttentionCache<T>& cache, Arena& arena);
  // Readies the stacked projections step() and source_kv_projection() use: a packed model's own, else copies
  // of the current weights (so they follow weights changed since the last batch).
  void prepare_steps();
  // Cross-attention's k|v projection stacked (2C, C): the source keys and values a decoder caches.
  const Linear<T>& source_kv_projection() const { return step_kv_; }

  DecoderLayerParams<T>& params() { return p_; }
  const DecoderLayerParams<T>& params() const { return p_; }

 private:
  DropoutSite site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const;
  // The three residual sub-layers in order around self(in, out, bias) and cross(in, out, bias), the two
  // attentions; the feed-forward network is the same for forward() and step(). x: (N, C) -> (N, C).
  template <typename SelfAttention, typename CrossAttention>
  T* sublayers(const T* x, int N, const DropoutContext& ctx, Arena& arena, SelfAttention&& self,
               CrossAttention&& cross);

  const ModelConfig& config_;
  int index_;
  DecoderLayerParams<T> p_;
  SublayerSaved<T> self_sub_, cross_sub_, ffn_sub_;
  AttentionSaved<T> self_saved_, cross_saved_;
  FeedForwardSaved<T> ffn_saved_;
  Linear<T> step_qkv_, step_kv_;  // (3C, C) and (2C, C): see prepare_steps()
  std::vector<T> step_stacked_;   // their weights and biases when the model is not packed
};

}  // namespace heptapod
