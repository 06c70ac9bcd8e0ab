// The vocabulary of a text task: fine-tuned, given, saved or trained.
#include "heptapod/train/text_vocabulary.h"

#include <filesystem>

#include "heptapod/core/error.h"
#include "heptapod/core/progress.h"
#include "heptapod/data/masking.h"

namespace heptapod {

namespace fs = std::filesystem;

Vocabulary text_vocabulary(const TrainConfig& c, int rank, const Vocabulary* fine_tuned, DocumentSplit split,
                           const char* unit, bool mask_piece) {
  const std::string saved = (fs::path(c.output_dir) / "vocab.spm").string();
  Vocabulary vocab;
  if (fine_tuned) {
    vocab = *fine_tuned;
  } else if (!c.vocab.empty()) {
    vocab = Vocabulary::load(c.vocab);
  } else if (fs::exists(saved)) {
    vocab = Vocabulary::load(saved);
  } else {
    require(rank == 0, "rank " + std::to_string(rank) + " cannot see " + saved + " that rank 0 wrote: the output " +
                           "directory must be shared by every rank (the same path on a shared filesystem)");
    // At most the documents SentencePiece trains on, so memory does not grow with the text.
    const auto sample = sample_documents(c.train_text, split,
                                         static_cast<std::size_t>(c.vocab_config.max_training_sentences),
                                         c.vocab_config.seed);
    require(!sample.empty(), c.train_text + " holds no text to train on");
    log_line("training a vocabulary on " + std::to_string(sample.size()) + " " + unit);
    VocabConfig vocab_config = c.vocab_config;
    if (mask_piece) vocab_config.control_symbols.push_back(kMaskPiece);
    vocab = Vocabulary::train(sample, vocab_config);
  }
  if (rank == 0) {
    fs::create_directories(c.output_dir);
    vocab.save(saved);
  }
  return vocab;
}

}  // namespace heptapod
