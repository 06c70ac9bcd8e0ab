// Language modelling as a training task, causal as GPT trains (a decoder-only model) or masked as BERT does
// (an encoder-only model): the documents of a text file (lines or paragraphs), each as bos, its tokens and
// eos, end to end in one stream, cut into blocks of `context` tokens; a causal block's targets are the next
// tokens, a masked block is the start token and context - 1 stream tokens, masked (data/masking.h). The
// blocks shuffled each epoch and batched batch_tokens / context at a time. One vocabulary, trained on the
// text unless given (an encoder's with a "<mask>" piece). Validation: the dev text's cross-entropy,
// perplexity, and bits per character and per byte (causal), or its masked tokens' cross-entropy and accuracy
// under fixed masks (masked). A model with a segment memory (Transformer-XL's) trains instead on the stream cut
// into parallel streams read segment after segment (train/segment_streams.h), and validates on the dev text's
// own streams with a fresh memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "heptapod/data/parallel_corpus.h"
#include "heptapod/data/utf8.h"
#include "heptapod/data/document_stream.h"
#include "heptapod/data/masking.h"
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
  bool validates() const override { return dev_ != nullptr; }
  ValidationReport validate(Transformer<float>& model, Arena& arena) override;
  void check_intact() const override { corpus_->check_intact(); }

 private:
  struct DevText {
    std::unique_ptr<ParallelCorpus> corpus;
    TextLength length;  // of its documents
  };

  bool masked() const { return config_.model.architecture == Architecture::EncoderOnly; }
  bool remembers() const { return config_.model.memory_length > 0; }
  int streams_per_batch() const { return std::max(1, config_.batch_tokens / config_.context); }
  Vocabulary& vocab() { return masked() ? vocabs_.source : vocabs_.target; }
  const Vocabulary& vocab() const { return masked() ? vocabs_.source : vocabs_.target; }
  std::int64_t block_count(const DocumentStream& stream) const;
  // Batch state.batch_in_epoch of the epoch state.epoch: the streams' next segments (with a segment memory) or
  // shuffled blocks; false once the epoch has no more.
  bool segment_batch(const TrainState& state, const DocumentStream& stream, Batch& batch) const;
  bool block_batch(const TrainState& state, const DocumentStream& stream, const ModelConfig& model, Batch& batch);
  // The masking of a masked task's blocks, made on first use with the model's mask_id.
  const MaskingPlan& masking(const ModelConfig& model);
  ValidationReport validate_masked(Transformer<float>& model, Arena& arena);
  // The dev text's -log p summed over its tokens, in blocks, or segment after segment with a fresh memory.
  LossTotals dev_loss(Transformer<float>& model, Arena& arena);

  TrainConfig config_;
  std::string cache_dir_;
  ModelVocabularies vocabs_;  // one side: the target (causal) or the source (masked)
  std::unique_ptr<MaskingPlan> masking_;  // masked: made on first use, with the model's mask_id
  std::unique_ptr<ParallelCorpus> corpus_;
  double tokenize_seconds_ = 0;
  std::unique_ptr<DevText> dev_;
  ModelLoss loss_;
  std::unique_ptr<SegmentStreams> streams_;          // with a segment memory: the training order
  std::unique_ptr<SegmentMemoryLoss> memory_loss_;   // and the loss that carries the memories
  // The epoch whose block order is held, and that order.
  std::int64_t planned_epoch_ = -1;
  std::vector<std::int64_t> order_;
};

}  // namespace heptapod
