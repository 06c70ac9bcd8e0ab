// The one Transformer layer every stack is made of: self-attention (bidirectional or causal, as the shape it is
// given says), optional cross-attention over an encoder's output, and the feed-forward network, each a
// residual sub-layer (post- or pre-norm). Its forward pass serves training and full decoding, step() the
// cached decoding of one position, and backward() is the forward pass read in reverse.
#pragma once

#include <optional>
#include <utility>
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

// What a layer's self-attention reads from Transformer-XL's segment memory (model/segment_memory.h): the
// memory rows of every stream, attended before the segment's own rows and given no gradient.
template <typename T>
struct MemoryInput {
  const T* rows = nullptr;                // (memory->rows(), C) the layer's memory, stream after stream
  bool keys_values = false;               // rows are (memory->rows(), 2C): their keys | values (inference)
  const Sequences* memory = nullptr;      // its rows per stream
  const Sequences* keys = nullptr;        // per stream: the memory's rows, then the segment's
  const AttentionShape* shape = nullptr;  // queries: the segment's rows; keys: `keys` (causal)
};

template <typename T>
class TransformerLayer {
 public:
  // Layer `index` of `stack`; cross_attention: whether it attends to an encoder's output.
  TransformerLayer(ParameterStore<T>& params, const ModelConfig& config, Stack stack, int index, bool cross_attention);

  bool has_cross_attention() const { return cross_attention_; }

  // x: (N, C), N = self_shape.q().rows() -> returns (N, C) from the arena; saves what backward needs. cross:
  // given exactly when the layer has cross-attention. memory: Transformer-XL's memory before the segment (its
  // shape then replaces self_shape), or null. rotary: the rows' angles (N) with rotary positions, else null;
  // kept for backward.
  T* forward(const T* x, const AttentionShape& self_shape, const CrossInput<T>* cross, const DropoutContext& ctx,
             Arena& arena, const MemoryInput<T>* memory = nullptr, const RotaryAngles<T>* rotary = nullptr);
  // dy: (N, C) -> dx: (N, C) assigned, with the forward pass's shapes and cross input. Uses the state saved by
  // the last forward (its memory included; the memory's rows get no gradient).
  void backward(const T* dy, const AttentionShape& self_shape, const CrossInput<T>* cross, const DropoutContext& ctx,
                Arena& arena, T* dx);

  // Cached decoding (inference), the same sub-layers as forward(): one position for each of `rows` rows,
  // x: (rows, C) -> returns (rows, C) from the arena; the attentions read their keys and values through
  // `cache` (as this stack's layer `index`). rotary: the rows' angles with rotary positions, else null.
  // prepare_steps() first, once per batch.
  T* step(const T* x, int rows, AttentionCache<T>& cache, Arena& arena, const RotaryAngles<T>* rotary = nullptr);
  // Readies the stacked projections step() and cross_kv_projection() use: a packed model's own, else copies
  // of the current weights (so they follow weights changed since the last batch).
  void prepare_steps();
  // Cross-attention's k|v projection stacked (2K, C): the encoder output's keys and values a decoder caches.
  const Linear<T>& cross_kv_projection() const { return step_kv_; }

  // The last forward's self-attention keys | values of its own rows, (N, 2K), rows `ld` apart: what a
  // keys-and-values segment memory keeps.
  std::pair<const T*, long> segment_keys_values() const;

  LayerParams<T>& params() { return p_; }
  const LayerParams<T>& params() const { return p_; }

 private:
  DropoutSite site(const DropoutContext& ctx, SublayerSlot slot, DropoutKind kind) const;
  // The last forward's additive score term of self-attention (Transformer-XL's or T5's), or null.
  ScoreTerm<T>* score_term();
  // Self-attention over the memory and the segment: in (N, C), the sub-layer's inner input -> out (N, C).
  void memory_attention_forward(const T* in, T* out, OutputBias bias, const DropoutSite& drop, Arena& arena);
  // dout (N, C) -> din (N, C) assigned or accumulated: the segment rows' gradient; the memory rows' is dropped
  // (a pre-norm layer's norm parameters still get theirs).
  void memory_attention_backward(const T* dout, T* din, bool accumulate, const DropoutSite& drop, Arena& arena);
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
  std::optional<BucketedBiasTerm<T>> bucket_term_;  // the last forward's T5 position bias, if any
  RelativeTables<T> relative_tables_;  // a packed model's distance tables, kept across passes
  std::optional<MemoryInput<T>> memory_;  // the last forward's memory, if any
  T* memory_keys_ = nullptr;              // (memory_->keys->rows(), C) what its keys and values were projected from
                                          // ((Nk, 2C): the keys and values themselves with a keys-and-values memory)
  T* segment_kv_ = nullptr;               // (N, 2C) with a keys-and-values memory: the segment's own
  LayerNormSaved<T> memory_norm_;         // pre-norm: the norm of the memory rows
  FeedForwardSaved<T> ffn_saved_;
  Linear<T> step_qkv_, step_kv_;  // (Q + 2K, C) and, with cross-attention, (2K, C): see prepare_steps()
  Arena step_stacked_;            // their weights and biases when the model is not packed
};

}  // namespace heptapod
