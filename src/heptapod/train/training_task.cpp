// The training task of each model kind.
#include "heptapod/train/training_task.h"

#include "heptapod/core/error.h"
#include "heptapod/train/language_model_task.h"
#include "heptapod/train/translation_task.h"

namespace heptapod {

std::unique_ptr<TrainingTask> make_training_task(const TrainConfig& config) {
  const Architecture kind = config.model.architecture;
  if (kind == Architecture::DecoderOnly) return std::make_unique<LanguageModelTask>(config);
  require(kind == Architecture::EncoderDecoder,
          std::string("train: no training task for a ") + architecture_name(kind) + " model yet");
  return std::make_unique<TranslationTask>(config);
}

}  // namespace heptapod
