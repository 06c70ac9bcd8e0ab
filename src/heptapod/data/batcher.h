// Batching as the paper and Marian do it: read a large window of sentence pairs, sort it by length, cut
// batches under a padded token budget (source + target), then shuffle the batches. The plan for an epoch is
// a pure function of (corpus, settings, seed, epoch), so a data position is just (epoch, batch index).
#pragma once

#include <cstdint>
#include <vector>

#include "heptapod/data/language_codes.h"
#include "heptapod/data/parallel_corpus.h"
#include "heptapod/model/batch.h"

namespace heptapod {

struct BatchingConfig {
  int max_tokens = 4096;  // padded source + target tokens per batch (bos/eos included)
  int window = 100000;    // sentence pairs sorted together
  std::uint64_t seed = 1;
};

// Sentence indices of each batch of one epoch, in training order.
std::vector<std::vector<std::uint32_t>> plan_epoch(const ParallelCorpus& corpus, const BatchingConfig& config,
                                                   std::uint64_t epoch);

// Sentence indices in corpus order cut into batches (for validation and scoring; no shuffling).
std::vector<std::vector<std::uint32_t>> plan_in_order(const ParallelCorpus& corpus, int max_tokens);

// The model batch for the given sentences, each pair tagged by `tags` (a multilingual model's languages).
Batch make_corpus_batch(const ParallelCorpus& corpus, const std::vector<std::uint32_t>& indices,
                        const ModelConfig& config, const LanguageTags& tags = {});

}  // namespace heptapod
