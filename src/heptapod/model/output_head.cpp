// The head a config names, and the unfused default of a head's loss.
#include "heptapod/model/output_head.h"

#include "heptapod/model/encoder_heads.h"
#include "heptapod/model/language_model_head.h"

namespace heptapod {

template <typename T>
LossTotals OutputHead<T>::fused_loss(const T* hidden, const PackedBatch& batch, T label_smoothing, T grad_scale,
                                     T* row_nll, T** dhidden, Arena& arena) {
  T* logits = forward(hidden, batch, arena);  // (N, classes)
  const LossTotals totals = loss(logits, batch, label_smoothing, grad_scale, dhidden ? logits : nullptr, row_nll);
  if (dhidden) *dhidden = backward(logits, batch, arena);  // the gradient overwrote the logits in place
  return totals;
}

template <typename T>
std::unique_ptr<OutputHead<T>> make_output_head(ParameterStore<T>& params, const ModelConfig& config) {
  if (config.has_decoder()) return std::make_unique<LanguageModelHead<T>>(params, config);
  if (config.mlm_head) return std::make_unique<MaskedLmHead<T>>(params, config);
  if (config.labels > 0) return std::make_unique<ClassifierHead<T>>(params, config);
  return nullptr;
}

template class OutputHead<float>;
template class OutputHead<double>;
template std::unique_ptr<OutputHead<float>> make_output_head(ParameterStore<float>&, const ModelConfig&);
template std::unique_ptr<OutputHead<double>> make_output_head(ParameterStore<double>&, const ModelConfig&);

}  // namespace heptapod
