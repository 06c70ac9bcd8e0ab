// What the two language-model tasks read alike, causal (train/language_model_task.h) and masked
// (train/masked_lm_task.h): the documents of the training text and of the dev text (data/document_corpus.h),
// tokenized by the task's one vocabulary and cached in the output directory, and the order of the blocks the
// task cuts their stream into (data/document_stream.h): each epoch a permutation drawn from (seed, epoch),
// read batch_tokens / context blocks at a time; the dev text's blocks in order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/data/document_corpus.h"
#include "heptapod/data/utf8.h"
#include "heptapod/train/checkpoint.h"
#include "heptapod/train/train_config.h"

namespace heptapod {

class DocumentBlocks {
 public:
  // `config` must outlive this (the owning task's).
  explicit DocumentBlocks(const TrainConfig& config);

  // The training documents tokenized by `vocab` (rank as TrainingTask::prepare); an Error when there are none.
  void prepare(int rank, const Vocabulary& vocab);
  // The dev documents and their length in characters and bytes, when the config has a dev text.
  void prepare_validation(const Vocabulary& vocab);
  const DocumentCorpus& train() const { return *train_; }
  bool has_dev() const { return dev_ != nullptr; }
  const DocumentCorpus& dev() const { return *dev_; }
  const TextLength& dev_length() const { return dev_length_; }

  // For the log: "4000 documents, 34024 tokens", then `layout` (" in blocks of 32"), then whether the tokens
  // came from the cache.
  std::string summary(const std::string& layout) const;
  int blocks_per_batch() const;
  // The blocks of batch state.batch_in_epoch in epoch state.epoch's order of `blocks` blocks; empty once the
  // epoch has no more.
  std::vector<std::int64_t> shuffled(const TrainState& state, std::int64_t blocks);
  // Blocks [0, blocks) in order, blocks_per_batch() at a time (the last batch may hold fewer).
  std::vector<std::vector<std::int64_t>> in_order(std::int64_t blocks) const;
  void check_intact() const { train_->check_intact(); }

 private:
  const TrainConfig& config_;
  std::string cache_dir_;
  std::unique_ptr<DocumentCorpus> train_, dev_;
  double tokenize_seconds_ = 0;
  TextLength dev_length_;
  // The epoch whose block order is held, and that order.
  std::int64_t planned_epoch_ = -1;
  std::vector<std::int64_t> order_;
};

}  // namespace heptapod
