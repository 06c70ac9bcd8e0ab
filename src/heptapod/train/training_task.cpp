// The training task of each kind, and the epochs they read.
#include "heptapod/train/training_task.h"

#include "heptapod/train/classification_task.h"
#include "heptapod/train/language_model_task.h"
#include "heptapod/train/masked_lm_task.h"
#include "heptapod/train/translation_task.h"

namespace heptapod {

std::unique_ptr<TrainingTask> make_training_task(const TrainConfig& config) {
  switch (config.task) {
    case TaskKind::Translation: return std::make_unique<TranslationTask>(config);
    case TaskKind::LanguageModel: return std::make_unique<LanguageModelTask>(config);
    case TaskKind::MaskedLm: return std::make_unique<MaskedLmTask>(config);
    case TaskKind::Classification: return std::make_unique<ClassificationTask>(config);
  }
  return nullptr;
}

bool next_batch_of_epochs(TrainState& state, int max_epochs, const std::function<bool(const TrainState&)>& batch_of) {
  while (true) {
    if (max_epochs > 0 && state.epoch >= static_cast<std::uint64_t>(max_epochs)) return false;
    if (batch_of(state)) {
      ++state.batch_in_epoch;
      return true;
    }
    ++state.epoch;
    state.batch_in_epoch = 0;
  }
}

}  // namespace heptapod
