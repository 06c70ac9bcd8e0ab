// One decoder layer: causal self-attention, cross-attention over the encoder output, feed-forward; each
// wrapped in residual + layer norm.
#pragma once

#include "heptapod/layers/attention.h"
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

  DecoderLayerParams<T>& params() { return p_; }
  const DecoderLayerParams<T>& params() const { return p_; }

 private:
  DropoutSite site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const;

  const ModelConfig& config_;
  int index_;
  DecoderLayerParams<T> p_;
  SublayerSaved<T> self_sub_, cross_sub_, ffn_sub_;
  AttentionSaved<T> self_saved_, cross_saved_;
  FeedForwardSaved<T> ffn_saved_;
};

}  // namespace heptapod
