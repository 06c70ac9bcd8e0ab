// The Encoder front end and `heptapod embed`: a text's vector is the pool of the encoder's output rows for
// it (checked against the model's encode() directly), does not depend on its batch-mates (within 1e-5 in
// float32, bit for bit in int8 and bfloat16), is unit length when normalised; the command writes the same
// numbers as JSON lines and as a .npy matrix, and refuses other kinds of model by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

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
      const EncodedText e = encoder.encode_text(kTexts[i]);
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
  EXPECT_HAS_SUBSTR(log, "line 5: longer than the model's learned positions");
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
  EXPECT_EQ(run_heptapod("generate -m " + quoted(model()) + " --prompt one", dir, log), 1);
  EXPECT_HAS_SUBSTR(log, "an encoder-only model; generation needs a decoder-only model");
}

}  // namespace
}  // namespace heptapod
