// A tokenized, length-filtered parallel corpus held as two flat token arrays with offsets, built once from
// raw text and cached on disk (reused while the text, the vocabularies and the filter are unchanged).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heptapod/data/vocabulary.h"

namespace heptapod {

struct LengthFilter {
  int max_tokens = 250;     // per side, in sub-word tokens (bos/eos not counted)
  double max_ratio = 3.0;   // longer side / shorter side, in tokens; 0 disables
};

struct CorpusStats {
  long long lines = 0;      // pairs read
  long long kept = 0;
  long long empty = 0;      // one side (or both) empty
  long long too_long = 0;   // over max_tokens on a side
  long long bad_ratio = 0;  // length ratio over max_ratio
  std::string summary() const;  // "kept 9870 of 10000 pairs (empty 12, too long 100, length ratio 18)"
};

class ParallelCorpus {
 public:
  // Reads, validates (UTF-8, equal line counts), tokenizes and filters the two files. With a non-empty
  // cache_path the result is stored there and reused when its fingerprint matches.
  static ParallelCorpus build(const std::string& source_path, const std::string& target_path, const Vocabulary& source_vocab,
                              const Vocabulary& target_vocab, const LengthFilter& filter,
                              const std::string& cache_path = "");

  std::size_t size() const { return src_offsets_.size() - 1; }
  std::span<const int> source(std::size_t i) const;
  std::span<const int> target(std::size_t i) const;
  long long line_number(std::size_t i) const { return line_numbers_[i]; }  // 1-based line in the files
  const CorpusStats& stats() const { return stats_; }
  bool from_cache() const { return from_cache_; }

 private:
  std::vector<int> src_tokens_, tgt_tokens_;
  std::vector<std::int64_t> src_offsets_{0}, tgt_offsets_{0};
  std::vector<std::int64_t> line_numbers_;
  CorpusStats stats_;
  bool from_cache_ = false;
};

}  // namespace heptapod
