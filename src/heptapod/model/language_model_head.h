// The head of a language model and of an encoder-decoder: the output projection of every target row onto the
// vocabulary, logits = hidden W_out^T (+ b), W_out the decoder's embedding table when tied (or a matrix of
// its own), with the cross-entropy of each row's next token. Cached decoding reads it a block of the
// vocabulary at a time; packing for inference (inference_packing.cpp) packs its projection.
#pragma once

#include <utility>
#include <vector>

#include "heptapod/layers/linear.h"
#include "heptapod/model/output_head.h"

namespace heptapod {

template <typename T>
class LanguageModelHead final : public OutputHead<T> {
 public:
  LanguageModelHead(ParameterStore<T>& params, const ModelConfig& config);

  int rows(const PackedBatch& batch) const override { return batch.tgt.rows(); }
  // hidden (Nt, C) -> logits (Nt, V).
  T* forward(const T* hidden, const PackedBatch& batch, Arena& arena) override;
  LossTotals loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale, T* dlogits,
                  T* row_nll) const override;
  // dlogits (Nt, V) -> (Nt, C).
  T* backward(const T* dlogits, const PackedBatch& batch, Arena& arena) override;
  // The logits in chunks of rows (about kFusedChunkBytes of logits each, one chunk for a small vocabulary or
  // batch): each chunk's loss, gradient and products with the projection before the next, so that the whole
  // (Nt, V) matrix never exists. Rows are independent, so every row's loss, gradient and the gradient at the
  // stack's output are those of the unfused path; the projection's gradient sums the chunks in a fixed order.
  LossTotals fused_loss(const T* hidden, const PackedBatch& batch, T label_smoothing, T grad_scale, T* row_nll,
                        T** dhidden, Arena& arena) override;
  void place_row_nll(const T* nll, const Batch& batch, const PackedBatch& packed, T* row_nll) const override;
  // (Nt, V) -> (B*T, V), zeros at padding positions.
  T* placed_logits(T* logits, const Batch& batch, const PackedBatch& packed, Arena& arena) const override;
  bool writes_gradient(const ParamSpec& spec) const override;

  // Vocabulary entries [v0, v0 + n) of the logits alone: hidden (rows, C) -> logits (rows, n); v0 one of
  // column_blocks().
  void project_columns(const T* hidden, int rows, int v0, int n, T* logits) const {
    linear_forward_columns(output_, hidden, rows, v0, n, logits);
  }
  // The vocabulary cut into blocks [v0, v0 + n) of about 8192 entries for project_columns: an incremental
  // decoder scores one block at a time for all its rows.
  const std::vector<std::pair<int, int>>& column_blocks() const { return blocks_; }

  // The projection (V, C), for packing; after packing changed it, cut_column_blocks() cuts the blocks at its
  // new column alignment.
  Linear<T>& projection() { return output_; }
  const Linear<T>& projection() const { return output_; }
  void cut_column_blocks();

  static constexpr std::size_t kFusedChunkBytes = std::size_t(128) << 20;

 private:
  const ModelConfig& config_;
  Linear<T> output_;                         // (V, C), tied to an embedding table or not
  std::vector<std::pair<int, int>> blocks_;  // (v0, n) column blocks of output_
  const T* hidden_ = nullptr;                // (Nt, C) the last forward's input
};

}  // namespace heptapod
