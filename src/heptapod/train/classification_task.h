// Classification as a training task (an encoder-only model with a classifier head, `train --task classify`):
// each line of a text file is one example, read as BERT reads it (the start token [CLS], its tokens cut to
// --context - 2, the end token [SEP]), its classes on the line of the same number in a labels file (one, or
// several separated by spaces: then every class is a yes or no of its own, multi-label). The classes are the
// training labels' distinct names, sorted, or those of the classifier being fine-tuned. Examples of similar
// length are batched together (a window sorted by length, cut under --batch-tokens padded tokens), the batches
// shuffled each epoch. Validation: accuracy (exact match for multi-label) and macro-F1 (over the classes that
// occur in the references or the predictions), early stopping on the one --valid-metric names.
#pragma once

#include <string>
#include <vector>

#include "heptapod/train/training_task.h"

namespace heptapod {

class ClassificationTask final : public TrainingTask {
 public:
  explicit ClassificationTask(const TrainConfig& config);

  void prepare(int rank) override;
  void prepare_validation() override;
  const ModelVocabularies& vocabularies() const override { return vocabs_; }
  ModelConfig resolve_model(const ModelConfig& requested) const override;
  std::string data_summary() const override;
  bool next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) override;
  const TrainingLoss& loss() const override { return loss_; }
  bool validates() const override { return !dev_.tokens.empty(); }
  ValidationReport validate(Transformer<float>& model, Arena& arena) override;
  void check_intact() const override {}

 private:
  // Examples: their tokens as the encoder reads them and their classes (ids; one each, or several).
  struct Examples {
    std::vector<std::vector<int>> tokens;   // each (n): as the encoder reads it (data/encoder_input.h)
    std::vector<std::vector<int>> types;    // each (n): its tokens' segments
    std::vector<std::vector<int>> classes;
  };
  // The lines of `text_path` and `labels_path` as examples; an unknown class is an Error naming the file and
  // line unless `grow` (the training labels make the class set).
  Examples read_examples(const std::string& text_path, const std::string& labels_path) const;
  // The batch of examples `which` of `from`.
  Batch make_batch(const Examples& from, const std::vector<std::size_t>& which, const ModelConfig& model) const;
  // Example indices cut into batches of similar length (sorted windows), in the order of epoch `epoch`.
  std::vector<std::vector<std::size_t>> plan(std::uint64_t epoch) const;

  TrainConfig config_;
  ModelVocabularies vocabs_;  // the source vocabulary and the class names
  bool multi_label_ = false;
  Examples train_, dev_;
  ModelLoss loss_;  // the model's own loss over the batch's terms (its sentences)
  std::int64_t planned_epoch_ = -1;
  std::vector<std::vector<std::size_t>> batches_;
};

}  // namespace heptapod
