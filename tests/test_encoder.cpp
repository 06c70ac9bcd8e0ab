// The Encoder front end and `heptapod embed`: a text's vector is the pool of the encoder's output rows for
// it (checked against the model's encode() directly), does not depend on its batch-mates (within 1e-5 in
// float32, bit for bit in int8 and bfloat16), is unit length when normalised; the command writes the same
// numbers as JSON lines and as a .npy matrix, and refuses other kinds of model by name. Masked-token scoring
// (`heptapod score` on a pre-trained encoder): the masks pre-training would draw for each text's key, each
// masked token's log-probability the log-softmax of the model's logits, whatever the batch-mates and windows;
// the command prints the library's numbers and the whole input's figures. Sentence pairs: read with the
// second segment's token type, in the library, `embed --pairs` and its error for a line without a tab.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/io/model_file.h"
#include "test_process.h"

namespace heptapod {
namespace {

using test::quoted;
using test::run_heptapod;
using test::TempDir;

// A tiny encoder trained for a few updates on the English numbers text.
class EncoderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    std::string log;
    ASSERT_EQ(run_heptapod("train --arch encoder-only --text " + quoted(test::data_file("numbers.train.en")) + " -o " +
                               quoted(dir_->file("enc")) +
                               " --preset tiny --layers 2 --vocab-size 120 --context 16 --batch-tokens 256 --steps 5"
                               " --warmup 5 --threads 2",
                           *dir_, log),
              0)
        << log;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string model() { return dir_->file("enc") + "/model.htp"; }
  static TempDir* dir_;
};
TempDir* EncoderTest::dir_ = nullptr;

const std::vector<std::string> kTexts = {"one hundred and five", "seven", "",
                                         "two thousand three hundred and forty one", "nine nine nine nine nine nine "
                                         "nine nine nine nine nine nine nine nine nine nine nine"};

TEST_F(EncoderTest, AVectorIsThePoolOfTheEncodersRowsForItsText) {
  Encoder encoder(model());
  for (const Pooling pooling : {Pooling::Mean, Pooling::Cls}) {
    EmbedOptions options;
    options.pooling = pooling;
    const auto vectors = encoder.embed(kTexts, options);
    ASSERT_EQ(vectors.size(), kTexts.size());
    // The reference: the float model's encode() of each text alone, pooled here.
    const auto file = SafetensorsFile::read(model());
    auto reference = load_inference_model(file, InferencePrecision{});
    for (std::size_t i = 0; i < kTexts.size(); ++i) {
      const EncoderInput e = encoder.encode_text(kTexts[i]);
      EXPECT_EQ(e.tokens.front(), encoder.config().bos_id);
      EXPECT_EQ(e.tokens.back(), encoder.config().eos_id);
      const int S = static_cast<int>(e.tokens.size()), C = encoder.config().d_model;
      Arena arena;
      const float* rows = reference->encode(e.tokens.data(), 1, S, &S, arena);  // (S, C)
      const int n = pooling == Pooling::Cls ? 1 : S;
      for (int c = 0; c < C; ++c) {
        double want = 0;
        for (int s = 0; s < n; ++s) want += rows[s * C + c];
        EXPECT_NEAR(vectors[i][static_cast<std::size_t>(c)], want / n, 1e-5) << "text " << i << " column " << c;
      }
    }
  }
  // The texts past the model's 16 learned positions are cut, and say so.
  EXPECT_TRUE(encoder.encode_text(kTexts[4]).truncated);
  EXPECT_EQ(static_cast<int>(encoder.encode_text(kTexts[4]).tokens.size()), encoder.config().position_limit());
  EXPECT_FALSE(encoder.encode_text(kTexts[0]).truncated);
}

TEST_F(EncoderTest, AVectorDoesNotDependOnItsBatchMates) {
  for (const char* type : {"float32", "int8", "bfloat16"}) {
    ModelLoadOptions load;
    load.compute_type = parse_compute_type(type, "test");
    Encoder encoder(model(), load);
    EmbedOptions options;
    const auto together = encoder.embed(kTexts, options);
    for (std::size_t i = 0; i < kTexts.size(); ++i) {
      const auto alone = encoder.embed({kTexts[i]}, options);
      for (std::size_t c = 0; c < alone[0].size(); ++c) {
        if (std::string(type) == "float32")
          EXPECT_NEAR(alone[0][c], together[i][c], 1e-5) << type << " text " << i;
        else
          EXPECT_EQ(alone[0][c], together[i][c]) << type << " text " << i;
      }
    }
  }
}

TEST_F(EncoderTest, NormalisedVectorsHaveUnitLength) {
  Encoder encoder(model());
  EmbedOptions options;
  options.normalize = true;
  for (const auto& v : encoder.embed(kTexts, options)) {
    double norm = 0;
    for (float x : v) norm += static_cast<double>(x) * x;
    EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-6);
  }
}

// The .npy file: magic, version 1.0, a header naming little-endian float32 and the shape, then the rows.
std::vector<std::vector<float>> read_npy(const std::string& path, int columns) {
  const std::string bytes = test::slurp(path);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  const std::string dict = bytes.substr(10, header);
  EXPECT_NE(dict.find("'descr': '<f4'"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'fortran_order': False"), std::string::npos) << dict;
  const std::size_t data = 10 + header, rows = (bytes.size() - data) / (sizeof(float) * columns);
  EXPECT_NE(dict.find("'shape': (" + std::to_string(rows) + ", " + std::to_string(columns) + ")"), std::string::npos)
      << dict;
  EXPECT_EQ(data % 64, 0u) << "numpy aligns the data to 64 bytes";
  std::vector<std::vector<float>> out(rows, std::vector<float>(static_cast<std::size_t>(columns)));
  for (std::size_t r = 0; r < rows; ++r)
    std::memcpy(out[r].data(), bytes.data() + data + r * columns * sizeof(float), columns * sizeof(float));
  return out;
}

TEST_F(EncoderTest, TheCommandWritesJsonLinesAndNpyWithTheLibrarysNumbers) {
  TempDir dir;
  const std::string input = dir.file("in.txt");
  {
    std::ofstream out(input);
    for (const std::string& t : kTexts) out << t << "\n";
  }
  std::string log;
  ASSERT_EQ(run_heptapod("embed -m " + quoted(model()) + " -i " + quoted(input) + " -o " + quoted(dir.file("v.jsonl")) +
                             " --normalize",
                         dir, log),
            0)
      << log;
  EXPECT_HAS_SUBSTR(log, "line 5: longer than the model's");
  ASSERT_EQ(run_heptapod("embed -m " + quoted(model()) + " -i " + quoted(input) + " -o " + quoted(dir.file("w.jsonl")) +
                             " --normalize --window 2",
                         dir, log),
            0)
      << log;
  ASSERT_EQ(run_heptapod("embed -m " + quoted(model()) + " -i " + quoted(input) + " -o " + quoted(dir.file("v.npy")) +
                             " --normalize",
                         dir, log),
            0)
      << log;
  Encoder encoder(model());
  EmbedOptions options;
  options.normalize = true;
  const auto want = encoder.embed(kTexts, options);
  auto read_json = [&](const std::string& name) {
    std::vector<std::vector<float>> vectors;
    std::istringstream lines(test::slurp(dir.file(name)));
    for (std::string line; std::getline(lines, line);) vectors.push_back(nlohmann::json::parse(line).get<std::vector<float>>());
    return vectors;
  };
  const auto from_json = read_json("v.jsonl"), windowed = read_json("w.jsonl");
  const auto from_npy = read_npy(dir.file("v.npy"), encoder.config().d_model);
  ASSERT_EQ(from_json.size(), want.size());
  ASSERT_EQ(windowed.size(), want.size());
  ASSERT_EQ(from_npy.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(from_json[i], want[i]) << "line " << i;  // %.9g reads back to the same float
    EXPECT_EQ(from_npy[i], want[i]) << "line " << i;
    // Other batch-mates (two lines a window): the same vectors within float32's batch-mate tolerance.
    ASSERT_EQ(windowed[i].size(), want[i].size());
    for (std::size_t c = 0; c < want[i].size(); ++c) EXPECT_NEAR(windowed[i][c], want[i][c], 1e-5) << "line " << i;
  }
  // .npy needs a file; a model of another kind is refused by name.
  EXPECT_EQ(run_heptapod("embed -m " + quoted(model()) + " -i " + quoted(input) + " --format npy", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, ".npy output goes to a file");
  ASSERT_EQ(run_heptapod("train --arch decoder-only --text " + quoted(test::data_file("numbers.dev.en")) + " -o " +
                             quoted(dir.file("lm")) + " --preset tiny --layers 1 --vocab-size 60 --context 16 "
                             "--batch-tokens 64 --steps 1 --warmup 1 --threads 1",
                         dir, log),
            0)
      << log;
  EXPECT_EQ(run_heptapod("embed -m " + quoted(dir.file("lm") + "/model.htp") + " -i " + quoted(input), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "a decoder-only model; embedding needs an encoder-only model");
  EXPECT_EQ(run_heptapod("classify -m " + quoted(dir.file("lm") + "/model.htp") + " -i " + quoted(input), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "a decoder-only model; classification needs an encoder-only model");
  EXPECT_EQ(run_heptapod("generate -m " + quoted(model()) + " --prompt one", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "an encoder-only model; generation needs a decoder-only model");
}

TEST_F(EncoderTest, MaskedScoresAreTheMaskedTokensLogProbabilitiesWhateverTheBatch) {
  Encoder encoder(model());
  MaskedScoreOptions options;
  options.seed = 5;
  const auto together = encoder.score_masked(kTexts, 0, options);
  ASSERT_EQ(together.size(), kTexts.size());
  // The reference: each text alone, masked here with the documented key, its logits from the float model's
  // forward pass, the log-softmax in double.
  const auto file = SafetensorsFile::read(model());
  auto reference = load_inference_model(file, InferencePrecision{});
  const ModelConfig& c = encoder.config();
  const MaskingPlan masking(encoder.vocabulary(), c.mask_id, options.masking);
  long long masked = 0;
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    std::vector<int> tokens = encoder.encode_text(kTexts[i]).tokens, targets;
    masking.mask(tokens, targets, mix64(options.seed) ^ mix64(i));
    std::vector<double> want;
    Batch b;
    b.B = 1;
    b.S = static_cast<int>(tokens.size());
    b.src = tokens;
    b.src_len = {b.S};
    b.tgt_len = {0};
    b.mlm_targets = targets;
    if (std::any_of(targets.begin(), targets.end(), [](int t) { return t >= 0; })) {
      Arena arena;
      const float* logits = reference->logits(b, arena);  // (Nm, V)
      const int V = c.src_vocab_size;
      std::size_t row = 0;
      for (int t : targets) {
        if (t < 0) continue;
        const float* r = logits + row++ * static_cast<std::size_t>(V);
        double top = r[0], sum = 0;
        for (int v = 1; v < V; ++v) top = std::max(top, static_cast<double>(r[v]));
        for (int v = 0; v < V; ++v) sum += std::exp(r[v] - top);
        want.push_back(r[t] - top - std::log(sum));
      }
    }
    const SentenceScore& got = together[i];
    ASSERT_EQ(got.tokens, static_cast<int>(want.size())) << "text " << i;
    ASSERT_EQ(got.token_log_probs.size(), want.size());
    double total = 0;
    for (std::size_t k = 0; k < want.size(); ++k) {
      EXPECT_NEAR(got.token_log_probs[k], want[k], 1e-4) << "text " << i << " token " << k;
      EXPECT_LE(got.token_log_probs[k], 0.0);
      total += got.token_log_probs[k];
    }
    EXPECT_NEAR(got.log_prob, total, 1e-9);
    EXPECT_LE(got.correct, got.tokens);
    masked += got.tokens;
    // Alone, at its place in a longer input: the same masks and scores.
    const SentenceScore alone = encoder.score_masked({kTexts[i]}, i, options)[0];
    EXPECT_EQ(alone.tokens, got.tokens);
    EXPECT_NEAR(alone.log_prob, got.log_prob, 1e-4) << "text " << i;
  }
  EXPECT_GT(masked, 0);
  EXPECT_EQ(together[2].tokens, 0);  // the empty text: nothing to mask
  // Another seed draws other masks.
  options.seed = 6;
  const auto other = encoder.score_masked(kTexts, 0, options);
  bool differs = false;
  for (std::size_t i = 0; i < kTexts.size(); ++i) differs = differs || other[i].log_prob != together[i].log_prob;
  EXPECT_TRUE(differs);
}

TEST_F(EncoderTest, ScoreOfAnEncoderPrintsTheLibrarysMaskedScoresAndTheFigures) {
  TempDir dir;
  std::string log;
  std::string text;
  for (const std::string& t : kTexts) text += t + "\n";
  const std::string input = dir.write("in.txt", text);
  ASSERT_EQ(run_heptapod("score -m " + quoted(model()) + " -i " + quoted(input) + " -o " + quoted(dir.file("s.txt")) +
                             " --seed 5 --window 2 --per-token --summary " + quoted(dir.file("s.json")),
                         dir, log),
            0)
      << log;
  Encoder encoder(model());
  MaskedScoreOptions options;
  options.seed = 5;
  const auto want = encoder.score_masked(kTexts, 0, options);
  std::istringstream lines(test::slurp(dir.file("s.txt")));
  double log_prob = 0;
  long long tokens = 0, correct = 0;
  for (std::size_t i = 0; i < kTexts.size(); ++i) {
    std::string line;
    ASSERT_TRUE(static_cast<bool>(std::getline(lines, line))) << "line " << i;
    std::istringstream fields(line);
    std::vector<double> numbers;
    for (double x; fields >> x;) numbers.push_back(x);
    ASSERT_EQ(numbers.size(), 1 + want[i].token_log_probs.size()) << line;
    EXPECT_NEAR(numbers[0], want[i].log_prob, 1e-4) << "line " << i;  // windows of 2: other batch-mates
    log_prob += want[i].log_prob;
    tokens += want[i].tokens;
    correct += want[i].correct;
  }
  const auto summary = nlohmann::json::parse(test::slurp(dir.file("s.json")));
  EXPECT_EQ(summary["lines"], kTexts.size());
  EXPECT_EQ(summary["masked_tokens"], tokens);
  EXPECT_NEAR(summary["masked_ce"].get<double>(), -log_prob / tokens, 1e-4);
  EXPECT_NEAR(summary["masked_accuracy"].get<double>(), static_cast<double>(correct) / tokens, 1e-9);
  EXPECT_HAS_SUBSTR(log, "masked tokens: cross-entropy");
  // A rate outside (0, 1) and labels for a model without a classifier are refused by name.
  EXPECT_EQ(run_heptapod("score -m " + quoted(model()) + " -i " + quoted(input) + " --mask-rate 0", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "mask rate");
  EXPECT_EQ(run_heptapod("score -m " + quoted(model()) + " -i " + quoted(input) + " --labels " + quoted(input), dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "--labels is for a classifier");
}

TEST_F(EncoderTest, ASentencePairIsReadWithItsSecondSegmentsTokenType) {
  Encoder encoder(model());
  ASSERT_GE(encoder.config().token_types, 2);
  const EncoderInput pair = encoder.encode_pair("one hundred", "seven");
  const std::vector<int> first = encoder.vocabulary().encode("one hundred"), second = encoder.vocabulary().encode("seven");
  std::vector<int> want = {encoder.config().bos_id};
  want.insert(want.end(), first.begin(), first.end());
  want.push_back(encoder.config().eos_id);
  want.insert(want.end(), second.begin(), second.end());
  want.push_back(encoder.config().eos_id);
  EXPECT_EQ(pair.tokens, want);
  const std::size_t split = first.size() + 2;
  for (std::size_t i = 0; i < pair.types.size(); ++i) EXPECT_EQ(pair.types[i], i < split ? 0 : 1) << i;
  // A line "first<TAB>second" with pairs: the same vector as the laid-out pair, whatever its batch-mates; the
  // same tokens read as one segment give another vector.
  EmbedOptions options;
  options.pairs = true;
  const auto lines = encoder.embed({"one hundred\tseven", "two\tthree thousand"}, options);
  const auto alone = encoder.embed_inputs({pair}, options);
  EncoderInput one_segment = pair;
  one_segment.types.assign(pair.types.size(), 0);
  const auto flat = encoder.embed_inputs({one_segment}, options);
  double difference = 0;
  for (std::size_t c = 0; c < alone[0].size(); ++c) {
    EXPECT_NEAR(lines[0][c], alone[0][c], 1e-5) << c;
    difference += std::abs(flat[0][c] - alone[0][c]);
  }
  EXPECT_GT(difference, 1e-3);
  EXPECT_THROW(encoder.embed({"no tab"}, options), Error);
  // The command: the library's vectors; a line without a tab is refused naming the file and line.
  TempDir dir;
  std::string log;
  const std::string input = dir.write("pairs.txt", "one hundred\tseven\ntwo\tthree thousand\n");
  ASSERT_EQ(run_heptapod("embed -m " + quoted(model()) + " -i " + quoted(input) + " --pairs -o " + quoted(dir.file("v.jsonl")),
                         dir, log),
            0)
      << log;
  std::istringstream got(test::slurp(dir.file("v.jsonl")));
  for (const auto& v : lines) {
    std::string line;
    ASSERT_TRUE(static_cast<bool>(std::getline(got, line)));
    const auto j = nlohmann::json::parse(line);
    ASSERT_EQ(j.size(), v.size());
    for (std::size_t c = 0; c < v.size(); ++c) EXPECT_NEAR(j[c].get<float>(), v[c], 1e-5);
  }
  const std::string bad = dir.write("bad.txt", "one\ttwo\nthree four\n");
  EXPECT_EQ(run_heptapod("embed -m " + quoted(model()) + " -i " + quoted(bad) + " --pairs", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, bad + ":2: a sentence pair needs a tab");
}

}  // namespace
}  // namespace heptapod
