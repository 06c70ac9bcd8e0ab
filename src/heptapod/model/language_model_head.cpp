// The output projection onto the vocabulary, its loss and backward, and its column blocks.
#include "heptapod/model/language_model_head.h"

#include <algorithm>

namespace heptapod {

template <typename T>
LanguageModelHead<T>::LanguageModelHead(ParameterStore<T>& p, const ModelConfig& c) : config_(c) {
  const std::string weight = output_projection_name(c), bias = tensor_name(Module::OutputProjection, Leaf::Bias);
  output_.w = p.value(weight);
  output_.dw = p.grad_if_trained(weight);
  if (c.output_bias) {
    output_.b = p.value(bias);
    output_.db = p.grad(bias);
  }
  output_.in = c.d_model;
  output_.out = c.tgt_vocab_size;
  cut_column_blocks();
}

template <typename T>
T* LanguageModelHead<T>::forward(const T* hidden, const PackedBatch& batch, Arena& arena) {
  const int Nt = rows(batch);
  hidden_ = hidden;
  T* logits = arena.alloc<T>(static_cast<std::size_t>(Nt) * output_.out);  // (Nt, V) = hidden W_out^T (+ b)
  linear_forward(output_, hidden, Nt, logits);
  return logits;
}

template <typename T>
LossTotals LanguageModelHead<T>::loss(const T* logits, const PackedBatch& batch, T label_smoothing, T grad_scale,
                                      T* dlogits, T* row_nll) const {
  return kernels::cross_entropy(logits, batch.tgt_out.data(), rows(batch), output_.out, label_smoothing, grad_scale,
                                dlogits, row_nll);
}

template <typename T>
T* LanguageModelHead<T>::backward(const T* dlogits, const PackedBatch& batch, Arena& arena) {
  const int Nt = rows(batch);
  T* dy = arena.alloc<T>(static_cast<std::size_t>(Nt) * config_.d_model);  // (Nt, C)
  linear_backward(output_, dlogits, hidden_, Nt, dy, false);
  return dy;
}

template <typename T>
LossTotals LanguageModelHead<T>::fused_loss(const T* hidden, const PackedBatch& batch, T label_smoothing,
                                            T grad_scale, T* row_nll, T** dhidden, Arena& arena) {
  const int Nt = rows(batch), V = output_.out, C = config_.d_model;
  const int chunk_rows = static_cast<int>(
      std::clamp<std::size_t>(kFusedChunkBytes / (sizeof(T) * static_cast<std::size_t>(V)), 1, std::max(Nt, 1)));
  T* logits = arena.alloc<T>(static_cast<std::size_t>(chunk_rows) * V);  // (chunk_rows, V), reused by every chunk
  T* dy = dhidden ? arena.alloc<T>(static_cast<std::size_t>(Nt) * C) : nullptr;  // (Nt, C)
  LossTotals totals;
  for (int r0 = 0; r0 < Nt; r0 += chunk_rows) {
    const int n = std::min(chunk_rows, Nt - r0);
    const T* x = hidden + static_cast<std::size_t>(r0) * C;  // (n, C)
    linear_forward(output_, x, n, logits);                   // (n, V)
    totals += kernels::cross_entropy(logits, batch.tgt_out.data() + r0, n, V, label_smoothing, grad_scale,
                                     dy ? logits : nullptr, row_nll ? row_nll + r0 : nullptr);
    if (dy) linear_backward(output_, logits, x, n, dy + static_cast<std::size_t>(r0) * C, false);
  }
  if (dhidden) *dhidden = dy;
  return totals;
}

template <typename T>
void LanguageModelHead<T>::place_row_nll(const T* nll, const Batch& batch, const PackedBatch& packed,
                                         T* row_nll) const {
  packed.tgt.unpack(nll, 1, batch.T, row_nll);  // (B*T)
}

template <typename T>
T* LanguageModelHead<T>::placed_logits(T* logits, const Batch& batch, const PackedBatch& packed, Arena& arena) const {
  T* padded = arena.alloc<T>(static_cast<std::size_t>(batch.B) * batch.T * output_.out);  // (B*T, V)
  packed.tgt.unpack(logits, output_.out, batch.T, padded);
  return padded;
}

template <typename T>
bool LanguageModelHead<T>::writes_gradient(const ParamSpec& spec) const {
  return spec.module == Module::OutputProjection || spec.name == output_projection_name(config_);
}

template <typename T>
void LanguageModelHead<T>::cut_column_blocks() {
  constexpr int kBlockColumns = 8192;  // 128 rows of logits at a time then take 4 MB
  const int align = linear_column_align(output_);
  const int width = std::max(align, kBlockColumns / align * align);
  blocks_.clear();
  for (int v0 = 0; v0 < output_.out; v0 += width) blocks_.emplace_back(v0, std::min(width, output_.out - v0));
}

template class LanguageModelHead<float>;
template class LanguageModelHead<double>;

}  // namespace heptapod
