// Masked language modelling (an encoder-only model, BERT): the masks BERT's recipe draws (the chosen share
// within binomial bounds, the 80/10/10 split, special tokens never chosen, whole words together, the same
// draws for the same key), the blocks an encoder reads, and `heptapod train --arch encoder-only` end to end:
// masked-token validation, a resumed run equal to the uninterrupted one, a model file with one vocabulary.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "heptapod/core/random.h"
#include "heptapod/data/document_corpus.h"
#include "heptapod/io/model_file.h"
#include "heptapod/train/language_model_task.h"
#include "heptapod/data/masking.h"
#include "test_process.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

// A word vocabulary of the numbers text with the mask piece, as an encoder's training makes it.
Vocabulary encoder_vocab() {
  std::vector<std::string> lines;
  std::ifstream in(test::data_file("numbers.train.en"));
  for (std::string line; std::getline(in, line) && lines.size() < 2000;) lines.push_back(line);
  VocabConfig vc;
  vc.size = 200;
  vc.control_symbols = {kMaskPiece};
  return Vocabulary::train(lines, vc);
}

TEST(Masking, ChosenShareAndTheSplitFollowBertWithinBinomialBounds) {
  const Vocabulary vocab = encoder_vocab();
  const int mask_id = vocab.id_of(kMaskPiece);
  ASSERT_GT(mask_id, 3);
  ASSERT_TRUE(vocab.is_special(mask_id));
  const MaskingPlan plan(vocab, mask_id, MaskingOptions{0.15f, false});
  Rng rng(5);
  long long ordinary = 0, chosen = 0, masked = 0, kept = 0, replaced = 0;
  for (int block = 0; block < 400; ++block) {
    std::vector<int> tokens(256), targets;
    for (int& t : tokens) t = 4 + static_cast<int>(rng.below(static_cast<std::uint64_t>(vocab.size() - 4)));
    tokens[0] = kBosId;  // specials in every block: never chosen
    tokens[100] = kEosId;
    tokens[101] = kBosId;
    tokens[255] = kPadId;
    const std::vector<int> original = tokens;
    plan.mask(tokens, targets, static_cast<std::uint64_t>(block));
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const bool special = vocab.is_special(original[i]);
      ordinary += special ? 0 : 1;
      if (targets[i] < 0) {
        ASSERT_EQ(tokens[i], original[i]) << "an unchosen token changed";
        continue;
      }
      ASSERT_FALSE(special) << "a special token was chosen: " << original[i];
      ASSERT_EQ(targets[i], original[i]);
      ++chosen;
      if (tokens[i] == mask_id) ++masked;
      else if (tokens[i] == original[i]) ++kept;
      else ++replaced;
      ASSERT_FALSE(vocab.is_special(tokens[i]) && tokens[i] != mask_id) << "replaced by a special token";
    }
  }
  // Within 5 standard deviations of the binomial mean: fails by chance about once in 3.5 million runs.
  auto within = [](long long k, long long n, double p) {
    const double mean = n * p, sd = std::sqrt(n * p * (1 - p));
    return std::abs(static_cast<double>(k) - mean) < 5 * sd;
  };
  EXPECT_TRUE(within(chosen, ordinary, 0.15)) << chosen << " of " << ordinary;
  EXPECT_TRUE(within(masked, chosen, 0.8)) << masked << " of " << chosen;
  // A random replacement may draw the original token (1 in V): "kept" is 10% plus that sliver.
  EXPECT_TRUE(within(replaced + kept, chosen, 0.2)) << replaced << " + " << kept << " of " << chosen;
  EXPECT_TRUE(within(kept, chosen, 0.1 + 0.1 / (vocab.size() - 5))) << kept << " of " << chosen;
}

TEST(Masking, TheSameKeyDrawsTheSameMasksAndEveryBlockGetsOne) {
  const Vocabulary vocab = encoder_vocab();
  const MaskingPlan plan(vocab, vocab.id_of(kMaskPiece), MaskingOptions{0.01f, false});
  const std::vector<int> block = {kBosId, 10, 11, 12, 13, kEosId};
  std::vector<int> a = block, b = block, c = block, ta, tb, tc;
  plan.mask(a, ta, 42);
  plan.mask(b, tb, 42);
  EXPECT_EQ(a, b);
  EXPECT_EQ(ta, tb);
  int differ = 0;
  for (std::uint64_t key = 0; key < 50; ++key) {
    c = block;
    plan.mask(c, tc, key);
    differ += tc != ta ? 1 : 0;
    EXPECT_GE(std::count_if(tc.begin(), tc.end(), [](int t) { return t >= 0; }), 1) << "a block without a target";
  }
  EXPECT_GT(differ, 25);
}

TEST(Masking, WholeWordsAreChosenTogether) {
  const Vocabulary vocab = encoder_vocab();
  const MaskingPlan plan(vocab, vocab.id_of(kMaskPiece), MaskingOptions{0.3f, true});
  std::vector<int> tokens = vocab.encode("seven hundred thousand four hundred and twenty one ninety nine");
  tokens.insert(tokens.begin(), kBosId);
  const std::vector<int> original = tokens;
  std::vector<int> targets;
  for (std::uint64_t key = 0; key < 40; ++key) {
    tokens = original;
    plan.mask(tokens, targets, key);
    for (std::size_t i = 2; i < tokens.size(); ++i) {
      const bool continues = vocab.piece(original[i]).rfind("\xe2\x96\x81", 0) != 0;
      if (continues && !vocab.is_special(original[i - 1])) {
        EXPECT_EQ(targets[i] >= 0, targets[i - 1] >= 0) << "a word split at " << i << " (key " << key << ")";
      }
    }
  }
}

TEST(Masking, AnEncoderBlockIsTheStartTokenThenTheStream) {
  TempDir dir;
  std::ofstream(dir.file("t.txt")) << "one two three\nfour five\nsix\n";
  const Vocabulary vocab = encoder_vocab();
  const DocumentCorpus corpus = DocumentCorpus::build(dir.file("t.txt"), DocumentSplit::Lines, vocab);
  ModelConfig model;
  model.pad_id = kPadId;
  model.bos_id = kBosId;
  model.eos_id = kEosId;
  const DocumentStream stream(corpus, model);
  std::vector<int> all(static_cast<std::size_t>(stream.size()));
  stream.read(0, static_cast<int>(all.size()), all.data());
  const MaskingPlan plan(vocab, vocab.id_of(kMaskPiece), MaskingOptions{0.15f, false});
  const int context = 4;
  const std::int64_t blocks = MaskingPlan::blocks_of(stream.size(), context);
  EXPECT_EQ(blocks, (stream.size() + context - 2) / (context - 1));
  std::vector<std::int64_t> every(static_cast<std::size_t>(blocks));
  for (std::int64_t b = 0; b < blocks; ++b) every[static_cast<std::size_t>(b)] = b;
  const Batch batch = plan.batch(stream, every, context, 9);
  std::vector<int> read;  // the stream again, from each block's original tokens after its start token
  for (int i = 0; i < batch.B; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * batch.S;
    EXPECT_EQ(batch.src[row], kBosId);
    EXPECT_EQ(batch.mlm_targets[row], -1);
    for (int s = 1; s < batch.src_len[i]; ++s)
      read.push_back(batch.mlm_targets[row + s] >= 0 ? batch.mlm_targets[row + s] : batch.src[row + s]);
  }
  EXPECT_EQ(read, all);
}

// A small encoder on the English numbers text.
std::string encoder_args(const std::string& out, int steps, const std::string& extra = "") {
  return "train --arch encoder-only --text " + quoted(test::data_file("numbers.train.en")) + " --valid-text " +
         quoted(test::data_file("numbers.dev.en")) + " -o " + quoted(out) +
         " --preset tiny --layers 2 --vocab-size 120 --context 32 --batch-tokens 512 --warmup 30 --threads 2"
         " --log-every 5 --valid-every 10 --steps " + std::to_string(steps) + " " + extra;
}

TEST(MaskedLmTrain, TrainsValidatesMaskedTokensAndResumesExactly) {
  TempDir dir;
  std::string log;
  const std::string a = dir.file("a"), b = dir.file("b");
  ASSERT_EQ(run_heptapod(encoder_args(a, 40, "--whole-word-mask"), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "masked ce");
  const std::vector<nlohmann::json> valid = test::metrics_records(a, "valid");
  ASSERT_EQ(valid.size(), 4u);
  EXPECT_LT(valid.back()["masked_ce"].get<double>(), valid.front()["masked_ce"].get<double>());
  EXPECT_GT(valid.back()["masked_accuracy"].get<double>(), valid.front()["masked_accuracy"].get<double>());
  // The model file: encoder-only with its masked-LM head, BERT's choices, its one vocabulary (the source).
  const SafetensorsFile file = SafetensorsFile::read(a + "/model.htp");
  const ModelConfig config = read_model_config(file);
  EXPECT_EQ(config.architecture, Architecture::EncoderOnly);
  EXPECT_TRUE(config.mlm_head);
  EXPECT_EQ(config.token_types, 2);
  EXPECT_EQ(config.learned_positions, 32);
  EXPECT_NE(file.find("encoder/mlm/transform/weight"), nullptr);
  EXPECT_NE(file.find("extra/vocab/source"), nullptr);
  EXPECT_EQ(file.find("extra/vocab/target"), nullptr);
  const auto vocabs = read_vocabularies(file, config);
  ASSERT_TRUE(vocabs.has_value());
  EXPECT_EQ(vocabs->source.piece(config.mask_id), kMaskPiece);
  // Stopped at 20 and resumed to 40: the uninterrupted run, bit for bit (the masks follow the data order).
  ASSERT_EQ(run_heptapod(encoder_args(b, 20, "--whole-word-mask"), dir, log), 0) << log;
  ASSERT_EQ(run_heptapod(encoder_args(b, 40, "--whole-word-mask"), dir, log), 0) << log;
  EXPECT_HAS_SUBSTR(log, "resuming from");
  EXPECT_EQ(test::slurp(a + "/model.htp"), test::slurp(b + "/model.htp"));
}

}  // namespace
}  // namespace heptapod
