// `heptapod vocab`: trains a SentencePiece vocabulary (joint over all given files, as the paper) and writes
// it as a standard SentencePiece model file.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "heptapod/core/error.h"
#include "heptapod/data/text_file.h"
#include "heptapod/data/vocabulary.h"

namespace heptapod::app {

namespace {

struct VocabFlags {
  std::vector<std::string> inputs;
  std::string output;
  std::string model = "bpe";
  VocabConfig config;
};

int run_vocab(const VocabFlags& f) {
  std::vector<std::string> lines;
  for (const auto& path : f.inputs) {
    auto more = read_lines(path);
    lines.insert(lines.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  std::string names;
  for (const auto& path : f.inputs) names += (names.empty() ? "" : ", ") + path;
  require(!lines.empty(), names + ": no text to train a vocabulary on");
  VocabConfig c = f.config;
  c.model = vocab_model_from_name(f.model);
  const Vocabulary v = Vocabulary::train(lines, c);
  v.save(f.output);
  std::printf("wrote %s: %d pieces (%s) from %zu lines\n", f.output.c_str(), v.size(), f.model.c_str(), lines.size());
  return 0;
}

}  // namespace

Runner add_vocab_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("vocab", "Train a vocabulary (SentencePiece, or a byte-level BPE) from raw text files");
  auto f = std::make_shared<VocabFlags>();
  cmd->add_option("inputs", f->inputs, "Text files, one sentence per line (all are joined)")->required();
  cmd->add_option("-o,--output", f->output, "Vocabulary file to write")->required();
  cmd->add_option("--size", f->config.size, "Number of pieces (bpe, unigram, byte-bpe)")->check(CLI::PositiveNumber);
  cmd->add_option("--model", f->model, "bpe, unigram, char, word (space-separated symbols), or byte-bpe (GPT-2's byte-level BPE)")
      ->check(CLI::IsMember({"bpe", "unigram", "char", "word", "byte-bpe"}));
  cmd->add_option("--character-coverage", f->config.character_coverage, "Share of characters kept (rest -> unk)")
      ->check(CLI::Range(0.98, 1.0) & kFinite);
  cmd->add_flag("--byte-fallback", f->config.byte_fallback,
                "bpe, unigram: spell characters without a piece as UTF-8 bytes instead of unk");
  cmd->add_option("--seed", f->config.seed, "Random seed")->check(integer_check<std::uint64_t>());
  return [f] { return run_vocab(*f); };
}

}  // namespace heptapod::app
