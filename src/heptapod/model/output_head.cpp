// The head a config names.
#include "heptapod/model/output_head.h"

#include "heptapod/model/encoder_heads.h"
#include "heptapod/model/language_model_head.h"

namespace heptapod {

template <typename T>
std::unique_ptr<OutputHead<T>> make_output_head(ParameterStore<T>& params, const ModelConfig& config) {
  if (config.has_decoder()) return std::make_unique<LanguageModelHead<T>>(params, config);
  if (config.mlm_head) return std::make_unique<MaskedLmHead<T>>(params, config);
  if (config.labels > 0) return std::make_unique<ClassifierHead<T>>(params, config);
  return nullptr;
}

template std::unique_ptr<OutputHead<float>> make_output_head(ParameterStore<float>&, const ModelConfig&);
template std::unique_ptr<OutputHead<double>> make_output_head(ParameterStore<double>&, const ModelConfig&);

}  // namespace heptapod
