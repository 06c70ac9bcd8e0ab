// DocumentBlocks: the language-model tasks' documents and their blocks' order.
#include "heptapod/train/document_blocks.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/core/random.h"

namespace heptapod {

namespace fs = std::filesystem;

namespace {

// The length of a text's documents, as bits per character and per byte count it.
TextLength text_length(const std::string& path, DocumentSplit split) {
  DocumentReader reader(path, split);
  TextLength length;
  long long line = 0;
  for (std::string text; reader.next(text, line);) length.add(text);
  return length;
}

}  // namespace

DocumentBlocks::DocumentBlocks(const TrainConfig& config)
    : config_(config), cache_dir_((fs::path(config.output_dir) / "cache").string()) {}

void DocumentBlocks::prepare(int rank, const Vocabulary& vocab) {
  const TrainConfig& c = config_;
  if (rank == 0) fs::create_directories(cache_dir_);
  const auto t0 = std::chrono::steady_clock::now();
  train_ = std::make_unique<DocumentCorpus>(
      DocumentCorpus::build(c.train_text, c.documents, vocab, (fs::path(cache_dir_) / "train.cache").string()));
  tokenize_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  require(train_->size() > 0, c.train_text + " holds no text to train on");
}

void DocumentBlocks::prepare_validation(const Vocabulary& vocab) {
  const TrainConfig& c = config_;
  if (c.valid_text.empty()) return;
  dev_ = std::make_unique<DocumentCorpus>(
      DocumentCorpus::build(c.valid_text, c.documents, vocab, (fs::path(cache_dir_) / "valid.cache").string()));
  require(dev_->size() > 0, c.valid_text + " holds no text to validate on");
  dev_length_ = text_length(c.valid_text, c.documents);
  log_line("dev data: " + dev_->summary() + ", " + std::to_string(dev_length_.characters) + " characters");
}

std::string DocumentBlocks::summary(const std::string& layout) const {
  return train_->summary() + ", " + std::to_string(train_->token_offset(train_->size())) + " tokens" + layout +
         (train_->from_cache() ? " [cached]" : " [tokenized in " + format_duration(tokenize_seconds_) + "]");
}

int DocumentBlocks::blocks_per_batch() const { return std::max(1, config_.batch_tokens / config_.context); }

std::vector<std::int64_t> DocumentBlocks::shuffled(const TrainState& state, std::int64_t blocks) {
  if (planned_epoch_ != static_cast<std::int64_t>(state.epoch)) {
    // The epoch's block order: a permutation drawn from (seed, epoch), as the translation batches are.
    order_.resize(static_cast<std::size_t>(blocks));
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::int64_t>(i);
    Rng rng(mix64(config_.seed) ^ mix64(state.epoch + 0x5eed));
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
    planned_epoch_ = static_cast<std::int64_t>(state.epoch);
  }
  const std::uint64_t first = state.batch_in_epoch * static_cast<std::uint64_t>(blocks_per_batch());
  if (first >= order_.size()) return {};
  const std::size_t end = std::min<std::size_t>(order_.size(), first + blocks_per_batch());
  return {order_.begin() + static_cast<long>(first), order_.begin() + static_cast<long>(end)};
}

std::vector<std::vector<std::int64_t>> DocumentBlocks::in_order(std::int64_t blocks) const {
  std::vector<std::vector<std::int64_t>> batches;
  for (std::int64_t first = 0; first < blocks; first += blocks_per_batch()) {
    std::vector<std::int64_t>& batch = batches.emplace_back();
    for (std::int64_t b = first; b < std::min<std::int64_t>(blocks, first + blocks_per_batch()); ++b) batch.push_back(b);
  }
  return batches;
}

}  // namespace heptapod
