// One stack of Transformer layers, the piece every model is built from: the token embedding (scaled) plus
// positions (and token types, and a norm over the sum, where the config has them) and dropout, the layers,
// an optional final norm. The encoder of a translation model, its decoder
// (with cross-attention), a language model and an encoder-only model are each one of these.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "heptapod/core/arena.h"
#include "heptapod/layers/embedding.h"
#include "heptapod/layers/layer_norm.h"
#include "heptapod/model/positional_table.h"
#include "heptapod/model/segment_memory.h"
#include "heptapod/model/transformer_layer.h"

namespace heptapod {

template <typename T>
class TransformerStack {
 public:
  // `stack` names the parameters (parameter_names.h) and the dropout streams; cross_attention: every layer
  // attends to an encoder's output. The stack reads its embedding table by `embedding_name` and positions
  // from `positions` (shared with the model's other stack).
  TransformerStack(ParameterStore<T>& params, const ModelConfig& config, Stack stack, const std::string& embedding_name,
                   PositionalTable<T>& positions, bool cross_attention);
  TransformerStack(const TransformerStack&) = delete;
  TransformerStack& operator=(const TransformerStack&) = delete;

  int layer_count() const { return static_cast<int>(layers_.size()); }
  TransformerLayer<T>& layer(int i) { return *layers_[i]; }
  const TransformerLayer<T>& layer(int i) const { return *layers_[i]; }
  Embedding<T>& embedding() { return embedding_; }

  // tokens: (seq.rows()) at their positions in seq, types: (seq.rows()) their token types or null (all type
  // 0; a stack with token types only) -> returns the stack's output (seq.rows(), C), final norm applied. cross: one input per layer with cross-attention, empty otherwise. Training keeps every layer's
  // activations in `arena` for backward; inference (layer_scratch given) runs each layer in the scratch arena
  // and keeps only its output, so memory does not grow with depth. memory: Transformer-XL's segment memory,
  // one stream per sequence of seq, which every layer attends over first and which then takes this segment's
  // layer inputs (or their keys and values); null for none.
  T* forward(const int* tokens, const int* types, const Sequences& seq, const AttentionShape& self_shape,
             std::span<const CrossInput<T>> cross, const DropoutContext& ctx, Arena& arena,
             Arena* layer_scratch = nullptr, SegmentMemory<T>* memory = nullptr);
  // The forward pass in reverse down to the embedding: dy (N, C), the gradient at the stack's output ->
  // returns the gradient at the embedding's output (N, C), from the arena. stage_done() runs after the final
  // norm (when there is one) and after each layer, last layer first: the gradients they write are complete.
  // Each layer's transients come from a scratch arena of the stack's, freed once the layer is done, so the
  // pass holds one layer's at a time; only the gradients between layers (two (N, C) rows) use `arena`.
  T* backward_layers(const T* dy, const AttentionShape& self_shape, std::span<const CrossInput<T>> cross,
                     const DropoutContext& ctx, Arena& arena, const std::function<void()>& stage_done);
  // dx (N, C) from backward_layers (changed in place), tokens, types (or null) and positions (N) as forward
  // read them -> the gradients of the embedding table, the learned positions, the token types and the
  // embedding norm (those the stack has), accumulated.
  void backward_embedding(T* dx, const int* tokens, const int* types, const int* positions, long N,
                          const DropoutContext& ctx);

  // Cached decoding: one token per row at its position -> the stack's output (rows, C) (final norm applied),
  // from the arena; the layers read their keys and values through `cache`. lengths: (rows) the length of each
  // row's sequence after this call (what dynamic rotary scaling reads; unused by other models). With
  // `layer_scratch`, each layer's transients come from it and are freed once its output is copied out, so the
  // call holds one layer's activations at a time, not every layer's. prepare_steps() first.
  T* step(const int* tokens, const int* positions, const int* lengths, int rows, AttentionCache<T>& cache,
          Arena& arena, Arena* layer_scratch = nullptr);
  void prepare_steps();

 private:
  DropoutSite embedding_site(const DropoutContext& ctx) const;
  DropoutSite final_norm_site(const DropoutContext& ctx) const;  // final_norm_dropout's (rate 0 without it)
  // The embedding sum before dropout: E[token] * scale + positions (+ token types), through the embedding
  // norm when the stack has one (its input kept in `saved`) -> (N, C) from the arena.
  T* embed_input(const int* tokens, const int* types, long N, const int* positions, const T* pe,
                 LayerNormSaved<T>& saved, Arena& arena);
  // The position rows for sequences of up to `length` positions, (>= length, C): the learned table from
  // position_offset, or the sinusoids; a length past the learned table is an Error.
  const T* position_rows(int length);

  const ModelConfig& config_;
  Stack stack_;
  PositionalTable<T>& positions_;
  const T* learned_ = nullptr;  // (learned_positions, C) with learned positions, else null
  T* dlearned_ = nullptr;       // its gradient
  std::vector<T> no_positions_;  // zeros added for relative positions (the embedding kernels add a table)
  const T* types_ = nullptr;    // (token_types, C) token type embeddings, or null
  T* dtypes_ = nullptr;         // their gradient
  bool has_embedding_norm_ = false;
  LayerNorm<T> embedding_norm_;
  LayerNormSaved<T> embedding_saved_;
  Embedding<T> embedding_;
  std::vector<std::unique_ptr<TransformerLayer<T>>> layers_;
  // The last forward's memory layout (read again by backward): the memory's rows and the keys (memory then
  // segment) per stream, and the attention shape over them.
  std::unique_ptr<Sequences> memory_rows_, key_runs_;
  std::unique_ptr<AttentionShape> memory_shape_;
  RotaryAngles<T> rotary_;  // the last forward's rows' angles (in its arena), with rotary positions
  Arena backward_scratch_;  // one layer's backward transients
  // The decoder's output scale before the output layer (T5's tied d_model^-0.5, config.scale_output), else 1.
  T output_scale_ = T(1);
  // x (N, C) times output_scale_, in place.
  void scale_output(T* x, long N) const;
  bool has_final_norm_ = false;
  LayerNorm<T> final_norm_;
  LayerNormSaved<T> final_saved_;
};

}  // namespace heptapod
