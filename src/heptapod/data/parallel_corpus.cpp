// Parallel corpora: pairs of lines read from two files into TokenizedExamples.
#include "heptapod/data/parallel_corpus.h"

#include <memory>

#include "heptapod/data/text_file.h"

namespace heptapod {

namespace {

class PairReader final : public ExampleReader {
 public:
  PairReader(const std::string& source_path, const std::string& target_path) : reader_(source_path, target_path) {}
  bool next(std::string& source, std::string& target, long long& line) override {
    line = ++lines_;
    return reader_.next(source, target);
  }
  long long bytes_read() const override { return reader_.source_bytes_read(); }
  bool documents() const override { return false; }

 private:
  ParallelLineReader reader_;
  long long lines_ = 0;
};

}  // namespace

ParallelCorpus ParallelCorpus::build(const std::string& source_path, const std::string& target_path,
                                     const Vocabulary& sv, const Vocabulary& tv, const LengthFilter& filter,
                                     const std::string& cache_path) {
  const std::uint64_t files = fingerprint_file(target_path, fingerprint_file(source_path, fnv1a("")));
  const std::string settings = "/" + std::to_string(sv.fingerprint()) + "/" + std::to_string(tv.fingerprint()) + "/" +
                               std::to_string(filter.max_tokens) + "/" + std::to_string(filter.max_ratio);
  return ParallelCorpus(TokenizedExamples::build(
      fingerprint(files, settings), source_path,
      [&] { return std::make_unique<PairReader>(source_path, target_path); }, sv, tv, filter, cache_path));
}

}  // namespace heptapod
