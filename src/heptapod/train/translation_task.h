// Translation as a training task: source and target vocabularies (from the model to fine-tune, given files,
// an earlier run in the output directory, or trained on the corpus), the tokenized parallel corpus cached in
// the output directory, batches planned as the paper does (sorted windows under a token budget, shuffled),
// next-token cross-entropy, and validation by dev cross-entropy, perplexity and BLEU.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/data/batcher.h"
#include "heptapod/data/language_codes.h"
#include "heptapod/data/parallel_corpus.h"
#include "heptapod/train/training_task.h"
#include "heptapod/train/validation.h"

namespace heptapod {

class TranslationTask final : public TrainingTask {
 public:
  explicit TranslationTask(const TrainConfig& config);

  void prepare(int rank) override;
  void prepare_validation() override;
  const ModelVocabularies& vocabularies() const override { return vocabs_; }
  ModelConfig resolve_model(const ModelConfig& requested) const override;
  std::string data_summary() const override;
  bool next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) override;
  const TrainingLoss& loss() const override { return loss_; }
  bool validates() const override { return dev_.has_value(); }
  ValidationReport validate(Transformer<float>& model, Arena& arena) override;
  void check_intact() const override { corpus_->check_intact(); }

 private:
  TrainConfig config_;
  std::string cache_dir_;
  ModelVocabularies vocabs_;
  LanguageTags tags_;  // a multilingual --init model's languages (--source-lang, --target-lang)
  std::unique_ptr<ParallelCorpus> corpus_;
  double tokenize_seconds_ = 0;
  std::optional<DevSet> dev_;
  ModelLoss loss_;
  // The epoch whose plan is held, and its batches' sentence indices in training order.
  std::int64_t planned_epoch_ = -1;
  std::vector<std::vector<std::uint32_t>> plan_;
};

}  // namespace heptapod
