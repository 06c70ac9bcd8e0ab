// Masked language modelling as a training task, as BERT trains (an encoder-only model): the documents of a
// text file (lines or paragraphs), each as the start token, its tokens and the end token, end to end in one
// stream, cut into blocks of the start token and context - 1 stream tokens, masked (data/masking.h); the
// blocks shuffled each epoch and batched batch_tokens / context at a time (train/document_blocks.h). One
// vocabulary with a "<mask>" piece, trained on the text unless given. Validation: the dev text's masked
// tokens' cross-entropy and accuracy under fixed masks.
#pragma once

#include <memory>
#include <string>

#include "heptapod/data/document_stream.h"
#include "heptapod/data/masking.h"
#include "heptapod/train/document_blocks.h"
#include "heptapod/train/training_task.h"

namespace heptapod {

class MaskedLmTask final : public TrainingTask {
 public:
  explicit MaskedLmTask(const TrainConfig& config);

  void prepare(int rank) override;
  void prepare_validation() override;
  const ModelVocabularies& vocabularies() const override { return vocabs_; }
  ModelConfig resolve_model(const ModelConfig& requested) const override;
  std::string data_summary() const override;
  bool next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) override;
  const TrainingLoss& loss() const override { return loss_; }
  bool validates() const override { return documents_.has_dev(); }
  ValidationReport validate(Transformer<float>& model, Arena& arena) override;
  void check_intact() const override { documents_.check_intact(); }

 private:
  // The blocks a stream is cut into.
  std::int64_t blocks(const DocumentStream& stream) const { return MaskingPlan::blocks_of(stream.size(), config_.context); }
  // The masking of the blocks, made on first use with the model's mask_id.
  const MaskingPlan& masking(const ModelConfig& model);

  TrainConfig config_;
  ModelVocabularies vocabs_;  // the source: an encoder's one vocabulary
  DocumentBlocks documents_;
  std::unique_ptr<MaskingPlan> masking_;
  ModelLoss loss_;
};

}  // namespace heptapod
