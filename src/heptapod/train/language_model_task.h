// Causal language modelling as a training task, as GPT trains (a decoder-only model): the documents of a text
// file (lines or paragraphs), each as bos, its tokens and eos, end to end in one stream, cut into blocks of
// `context` tokens whose targets are the next tokens, the blocks shuffled each epoch and batched
// batch_tokens / context at a time (train/document_blocks.h). One vocabulary, trained on the text unless
// given. Validation: the dev text's cross-entropy, perplexity, and bits per character and per byte. A model
// with a segment memory (Transformer-XL's) trains instead on the stream cut into parallel streams read
// segment after segment (train/segment_streams.h), and validates on the dev text's own streams with a fresh
// memory.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "heptapod/data/document_stream.h"
#include "heptapod/train/document_blocks.h"
#include "heptapod/train/segment_streams.h"
#include "heptapod/train/training_task.h"

namespace heptapod {

class LanguageModelTask final : public TrainingTask {
 public:
  explicit LanguageModelTask(const TrainConfig& config);

  void prepare(int rank) override;
  void prepare_validation() override;
  const ModelVocabularies& vocabularies() const override { return vocabs_; }
  ModelConfig resolve_model(const ModelConfig& requested) const override;
  std::string data_summary() const override;
  bool next_batch(TrainState& state, int max_epochs, const ModelConfig& model, Batch& batch) override;
  const TrainingLoss& loss() const override {
    return memory_loss_ ? static_cast<const TrainingLoss&>(*memory_loss_) : loss_;
  }
  void set_update_size(int micro_batches) override;
  std::vector<TaskStateTensor> checkpoint_state(int rank, int ranks, GradientReducer* reducer) const override;
  void restore_state(const SafetensorsFile& checkpoint, int rank, int ranks) override;
  bool validates() const override { return documents_.has_dev(); }
  ValidationReport validate(Transformer<float>& model, Arena& arena) override;
  void check_intact() const override { documents_.check_intact(); }

 private:
  bool remembers() const { return config_.model.memory_length > 0; }
  // Batch state.batch_in_epoch of the epoch state.epoch: the streams' next segments; false once the epoch has
  // no more.
  bool segment_batch(const TrainState& state, const DocumentStream& stream, Batch& batch) const;
  // The dev text's -log p summed over its tokens, in blocks, or segment after segment with a fresh memory.
  LossTotals dev_loss(Transformer<float>& model, Arena& arena);

  TrainConfig config_;
  ModelVocabularies vocabs_;  // the target: a decoder's one vocabulary
  DocumentBlocks documents_;
  ModelLoss loss_;
  std::unique_ptr<SegmentStreams> streams_;          // with a segment memory: the training order
  std::unique_ptr<SegmentMemoryLoss> memory_loss_;   // and the loss that carries the memories
};

}  // namespace heptapod
