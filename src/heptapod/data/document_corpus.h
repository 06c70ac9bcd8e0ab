// The documents of one text file (DocumentReader's rules: each non-empty line, or each paragraph), tokenized
// by one vocabulary, never filtered: a language model's or an encoder's training text. Held as
// TokenizedExamples (data/tokenized_examples.h: streamed, cached on disk and memory-mapped), each document an
// example of target tokens alone.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "heptapod/data/text_file.h"
#include "heptapod/data/tokenized_examples.h"
#include "heptapod/data/vocabulary.h"

namespace heptapod {

class DocumentCorpus {
 public:
  // With a non-empty cache_path the documents are written there (atomically) and mapped, and an existing cache
  // of the same text, split and vocabulary is mapped without tokenizing; without one they are held in memory.
  static DocumentCorpus build(const std::string& path, DocumentSplit split, const Vocabulary& vocab,
                              const std::string& cache_path = "");

  std::size_t size() const { return documents_.size(); }
  std::span<const int> document(std::size_t d) const { return documents_.target(d); }
  // The tokens of the documents before document d (of all of them: d = size()).
  std::int64_t token_offset(std::size_t d) const { return documents_.token_offset(d); }
  std::string summary() const { return std::to_string(size()) + " documents"; }  // "5120 documents"
  bool from_cache() const { return documents_.from_cache(); }
  // Throws Error naming the cache if the mapped file shrank while in use.
  void check_intact() const { documents_.check_intact(); }

 private:
  explicit DocumentCorpus(TokenizedExamples documents) : documents_(std::move(documents)) {}
  TokenizedExamples documents_;
};

}  // namespace heptapod
