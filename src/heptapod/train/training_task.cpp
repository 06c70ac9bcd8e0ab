// The training task of each model kind.
#include "heptapod/train/training_task.h"

#include "heptapod/core/error.h"
#include "heptapod/train/classification_task.h"
#include "heptapod/train/language_model_task.h"
#include "heptapod/train/translation_task.h"

namespace heptapod {

std::unique_ptr<TrainingTask> make_training_task(const TrainConfig& config) {
  const Architecture kind = config.model.architecture;
  if (kind == Architecture::EncoderDecoder) return std::make_unique<TranslationTask>(config);
  if (config.encoder_task == TrainConfig::EncoderTask::Classify) return std::make_unique<ClassificationTask>(config);
  return std::make_unique<LanguageModelTask>(config);  // causal (decoder-only) or masked (encoder-only)
}

}  // namespace heptapod
