// One encoder layer: self-attention and feed-forward sub-layers, each wrapped in residual + layer norm.
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
class EncoderLayer {
 public:
  EncoderLayer(ParameterStore<T>& params, const ModelConfig& config, int index);

  // x: (Ns, C), Ns = shape.q().rows() -> returns (Ns, C) from the arena; saves what backward needs.
  T* forward(const T* x, const AttentionShape& shape, const DropoutContext& ctx, Arena& arena);
  // dy: (Ns, C) -> dx: (Ns, C) assigned. Uses the state saved by the last forward.
  void backward(const T* dy, const AttentionShape& shape, const DropoutContext& ctx, Arena& arena, T* dx);

  EncoderLayerParams<T>& params() { return p_; }

 private:
  DropoutSite site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const;

  const ModelConfig& config_;
  int index_;
  EncoderLayerParams<T> p_;
  SublayerSaved<T> attn_sub_, ffn_sub_;
  AttentionSaved<T> attn_saved_;
  FeedForwardSaved<T> ffn_saved_;
};

}  // namespace heptapod
