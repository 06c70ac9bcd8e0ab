// A tokenized, length-filtered parallel corpus: one token array (each pair's source tokens, then its target
// tokens) with per-pair offsets; or a text's documents, each an example with an empty source, built once from raw text by streaming through it and cached on disk as a
// binary file that training memory-maps (reused while the text, the vocabularies and the filter are
// unchanged), so the tokens cost page cache shared by every process reading them, not private memory.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <memory>
#include <span>
#include <string>

#include "heptapod/data/text_file.h"
#include "heptapod/data/vocabulary.h"
#include "heptapod/io/mapped_file.h"

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
  bool documents = false;   // the examples are documents (build_documents), never filtered
  // "kept 9870 of 10000 pairs (empty 12, too long 100, length ratio 18)"; "5120 documents"
  std::string summary() const;
};

class ParallelCorpus {
 public:
  // Reads the two files a block of lines at a time, validates them (UTF-8, equal line counts), tokenizes
  // (on every OpenMP thread) and filters. With a non-empty cache_path the result is written there
  // (atomically) and mapped, and an existing cache whose fingerprint matches is mapped without tokenizing;
  // without one it is held in memory.
  static ParallelCorpus build(const std::string& source_path, const std::string& target_path, const Vocabulary& source_vocab,
                              const Vocabulary& target_vocab, const LengthFilter& filter,
                              const std::string& cache_path = "");

  // The documents of one text file (DocumentReader's rules) as examples with empty sources, tokenized by
  // `vocab`, never filtered; cached as build() caches.
  static ParallelCorpus build_documents(const std::string& path, DocumentSplit split, const Vocabulary& vocab,
                                        const std::string& cache_path = "");

  std::size_t size() const { return pairs_; }
  // Where example i's tokens start in the token array (its source's, then its target's): the tokens before
  // it, counted over every example.
  std::int64_t token_offset(std::size_t i) const { return starts_[i]; }
  std::span<const int> source(std::size_t i) const {
    return {tokens_ + starts_[i], static_cast<std::size_t>(source_lengths_[i])};
  }
  std::span<const int> target(std::size_t i) const {
    const std::int64_t begin = starts_[i] + source_lengths_[i];
    return {tokens_ + begin, static_cast<std::size_t>(starts_[i + 1] - begin)};
  }
  long long line_number(std::size_t i) const { return line_numbers_[i]; }  // 1-based line in the files
  const CorpusStats& stats() const { return stats_; }
  bool from_cache() const { return from_cache_; }
  // Throws Error naming the cache if the mapped file shrank while in use (its lost pages read as zeros).
  void check_intact() const {
    if (mapped_) mapped_->check_intact();
  }

 private:
  // Points the arrays into `bytes` (a cache file's layout) after checking them; `where` names it in errors.
  // The caller then keeps the bytes alive in owned_ or mapped_.
  void attach(std::string_view bytes, const std::string& where);
  // The corpus of fingerprint `print`: mapped from cache_path when it holds it, else written there by
  // write(out, print) (atomically) and mapped; in memory without a cache path. `where` names it in errors.
  static ParallelCorpus build_from(std::uint64_t print, const std::string& cache_path, const std::string& where,
                                   const std::function<void(std::ostream&, std::uint64_t)>& write);

  std::shared_ptr<const std::string> owned_;  // the bytes, when held in memory
  std::shared_ptr<const MappedFile> mapped_;  // or the mapped cache file
  std::size_t pairs_ = 0;
  const int* tokens_ = nullptr;                   // (all tokens)
  const std::int64_t* starts_ = nullptr;          // (pairs + 1) each pair's first token; the last: the total
  const std::int32_t* source_lengths_ = nullptr;  // (pairs)
  const std::int64_t* line_numbers_ = nullptr;    // (pairs)
  std::uint64_t fingerprint_ = 0;
  CorpusStats stats_;
  bool from_cache_ = false;
};

}  // namespace heptapod
