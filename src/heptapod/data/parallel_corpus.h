// A tokenized, length-filtered parallel corpus (translation's): each pair's source tokens, then its target
// tokens, read from two line-aligned text files and held as TokenizedExamples (data/tokenized_examples.h:
// streamed, cached on disk and memory-mapped).
#pragma once

#include <string>

#include "heptapod/data/tokenized_examples.h"
#include "heptapod/data/vocabulary.h"

namespace heptapod {

class ParallelCorpus : public TokenizedExamples {
 public:
  // Reads the two files a block of lines at a time, validates them (UTF-8, equal line counts), tokenizes
  // (on every OpenMP thread) and filters. With a non-empty cache_path the result is written there
  // (atomically) and mapped, and an existing cache whose fingerprint matches is mapped without tokenizing;
  // without one it is held in memory.
  static ParallelCorpus build(const std::string& source_path, const std::string& target_path, const Vocabulary& source_vocab,
                              const Vocabulary& target_vocab, const LengthFilter& filter,
                              const std::string& cache_path = "");

 private:
  explicit ParallelCorpus(TokenizedExamples pairs) : TokenizedExamples(std::move(pairs)) {}
};

}  // namespace heptapod
