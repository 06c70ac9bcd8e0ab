// The storage of a tokenized corpus, shared by ParallelCorpus (data/parallel_corpus.h: sentence pairs) and
// DocumentCorpus (data/document_corpus.h: a text's documents): one token array (each example's source tokens,
// then its target tokens; a document has target tokens alone) with per-example offsets, built once from raw
// text by streaming through it a block of examples at a time and cached on disk as a binary file that
// training memory-maps (reused while the text, the vocabularies and the settings are unchanged), so the
// tokens cost page cache shared by every process reading them, not private memory.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "heptapod/data/vocabulary.h"
#include "heptapod/io/mapped_file.h"

namespace heptapod {

struct LengthFilter {
  int max_tokens = 250;     // per side, in sub-word tokens (bos/eos not counted)
  double max_ratio = 3.0;   // longer side / shorter side, in tokens; 0 disables
};

struct CorpusStats {
  long long lines = 0;      // examples read
  long long kept = 0;
  long long empty = 0;      // one side (or both) empty
  long long too_long = 0;   // over max_tokens on a side
  long long bad_ratio = 0;  // length ratio over max_ratio
  // "kept 9870 of 10000 pairs (empty 12, too long 100, length ratio 18)"
  std::string summary() const;
};

// What a corpus is read from, an example at a time: a pair of lines, or a document (its source empty).
class ExampleReader {
 public:
  virtual ~ExampleReader() = default;
  // The next example and the 1-based line it starts on; false at the end.
  virtual bool next(std::string& source, std::string& target, long long& line) = 0;
  virtual long long bytes_read() const = 0;
  // Documents: tokenized by the target vocabulary alone, never filtered (but dropped when empty).
  virtual bool documents() const = 0;
};

class TokenizedExamples {
 public:
  // The cache fingerprint of examples read from files whose contents fingerprint to `files`
  // (data/text_file.h's fingerprint_file), under `settings` (the vocabularies', the filter's, ...).
  static std::uint64_t fingerprint(std::uint64_t files, const std::string& settings);

  // The examples `open` reads (made only when they must be tokenized; `path` is the file they come from),
  // tokenized by the vocabularies on every OpenMP thread and filtered. With a non-empty cache_path the
  // result is written there (atomically) and mapped, and an existing cache whose fingerprint is `print` is
  // mapped without tokenizing; without one it is held in memory.
  static TokenizedExamples build(std::uint64_t print, const std::string& path,
                                 const std::function<std::unique_ptr<ExampleReader>()>& open,
                                 const Vocabulary& source_vocab, const Vocabulary& target_vocab,
                                 const LengthFilter& filter, const std::string& cache_path);

  std::size_t size() const { return examples_; }
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

  std::shared_ptr<const std::string> owned_;  // the bytes, when held in memory
  std::shared_ptr<const MappedFile> mapped_;  // or the mapped cache file
  std::size_t examples_ = 0;
  const int* tokens_ = nullptr;                   // (all tokens)
  const std::int64_t* starts_ = nullptr;          // (examples + 1) each example's first token; the last: the total
  const std::int32_t* source_lengths_ = nullptr;  // (examples)
  const std::int64_t* line_numbers_ = nullptr;    // (examples)
  CorpusStats stats_;
  bool from_cache_ = false;
};

}  // namespace heptapod
