// Document corpora: a text's documents read by a DocumentReader into TokenizedExamples.
#include "heptapod/data/document_corpus.h"

#include <memory>

namespace heptapod {

namespace {

class DocumentExamples final : public ExampleReader {
 public:
  DocumentExamples(const std::string& path, DocumentSplit split) : reader_(path, split) {}
  bool next(std::string& source, std::string& target, long long& line) override {
    source.clear();
    return reader_.next(target, line);
  }
  long long bytes_read() const override { return reader_.bytes_read(); }
  bool documents() const override { return true; }

 private:
  DocumentReader reader_;
};

}  // namespace

DocumentCorpus DocumentCorpus::build(const std::string& path, DocumentSplit split, const Vocabulary& vocab,
                                     const std::string& cache_path) {
  const std::string settings = "/documents/" + std::string(document_split_name(split)) + "/" +
                               std::to_string(vocab.fingerprint());
  return DocumentCorpus(TokenizedExamples::build(
      TokenizedExamples::fingerprint(fingerprint_file(path, fnv1a("")), settings), path,
      [&] { return std::make_unique<DocumentExamples>(path, split); }, vocab, vocab, LengthFilter{}, cache_path));
}

}  // namespace heptapod
