// LoRA over a base held in low precision: the dequantized products against float64 loops over the rows they
// read (stacked parts, blocks of rows, column ranges), and training over an int8, bfloat16, int4 or q8_0 base
// against training over a float32 file of the same dequantized weights (the adapters within 1e-4 after
// several Adam steps), with the base file's bytes unchanged, checkpoints holding the adapters alone, and full
// fine-tuning of such a base refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "heptapod/core/random.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/kernels/dequantized_product.h"
#include "heptapod/model/inference_weights.h"
#include "heptapod/train/checkpoint.h"
#include "test_process.h"
#include "test_util.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

namespace fs = std::filesystem;
using test::quoted;
using test::run_heptapod;
using test::TempDir;

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(2 * rng.uniform() - 1);
  return v;
}

// The stacked matrix's rows as the products must read them: each part's dequantized rows (row()) or floats.
std::vector<double> rows_of(std::span<const kernels::RowSource> parts, int in) {
  std::vector<double> w;
  std::vector<float> row(in);
  for (const kernels::RowSource& p : parts)
    for (int o = 0; o < p.rows; ++o) {
      if (p.matrix) p.matrix->row(o, row.data());
      else std::copy_n(p.values + static_cast<std::size_t>(o) * in, in, row.data());
      w.insert(w.end(), row.begin(), row.end());
    }
  return w;
}

// Rows of an int8, a bfloat16 and a Q4_0 matrix and of float rows, stacked (300 + 40 + 200 + 30 rows, past
// two blocks of kDequantizedBlockRows): x W^T over column ranges that cross parts and blocks, and dy W
// assigned and accumulated, against float64 loops.
TEST(DequantizedProduct, EqualsFloat64LoopsOverTheRowsItReads) {
  const int in = 64, N = 5;
  const std::vector<int> heights = {300, 40, 200, 30};
  const std::vector<ComputeType> types = {ComputeType::Int8, ComputeType::BFloat16, ComputeType::Int4};
  std::vector<std::vector<float>> values;
  std::vector<std::unique_ptr<kernels::WeightMatrix>> matrices;
  std::vector<kernels::RowSource> parts;
  for (std::size_t i = 0; i < heights.size(); ++i) {
    values.push_back(random_floats(static_cast<std::size_t>(heights[i]) * in, 40 + i));
    if (i < types.size()) {
      const StoredMatrix m{ComputeType::Float32, values.back().data(), nullptr, heights[i], in};
      matrices.push_back(pack_weights(types[i], std::span(&m, 1), nullptr));
      parts.push_back({matrices.back().get(), nullptr, heights[i]});
    } else {
      parts.push_back({nullptr, values.back().data(), heights[i]});
    }
  }
  const int out = 570;
  const std::vector<double> w = rows_of(parts, in);  // (out, in)
  const std::vector<float> x = random_floats(static_cast<std::size_t>(N) * in, 50);
  for (const auto& [n0, n] : {std::pair{0, out}, std::pair{37, 290}, std::pair{299, 2}, std::pair{510, 60}}) {
    std::vector<float> y(static_cast<std::size_t>(N) * n, 7.0f);  // (N, n), assigned
    kernels::dequantized_product(parts, in, x.data(), N, n0, n, y.data());
    for (int r = 0; r < N; ++r)
      for (int c = 0; c < n; ++c) {
        double want = 0;
        for (int k = 0; k < in; ++k) want += x[r * in + k] * w[static_cast<std::size_t>(n0 + c) * in + k];
        ASSERT_NEAR(y[static_cast<std::size_t>(r) * n + c], want, 1e-4) << "columns " << n0 << "+" << n << " at " << r << "," << c;
      }
  }
  const std::vector<float> dy = random_floats(static_cast<std::size_t>(N) * out, 51);
  for (bool accumulate : {false, true}) {
    std::vector<float> dx = random_floats(static_cast<std::size_t>(N) * in, 52);  // (N, in)
    const std::vector<float> before = dx;
    kernels::dequantized_transposed_product(parts, in, dy.data(), N, dx.data(), accumulate);
    for (int r = 0; r < N; ++r)
      for (int k = 0; k < in; ++k) {
        double want = accumulate ? before[r * in + k] : 0.0;
        for (int o = 0; o < out; ++o) want += dy[static_cast<std::size_t>(r) * out + o] * w[static_cast<std::size_t>(o) * in + k];
        ASSERT_NEAR(dx[r * in + k], want, 1e-4) << (accumulate ? "accumulated" : "assigned") << " at " << r << "," << k;
      }
  }
}

// The float32 model file of a low-precision file's dequantized weights (every stored matrix's rows as its
// products read them), with the same vocabularies: what training over the low-precision base must equal.
void write_dequantized(const std::string& low_precision, const std::string& path) {
  const SafetensorsFile file = SafetensorsFile::read(low_precision);
  Transformer<float> model(read_model_config(file));
  const StoredMatrices stored = load_stored_parameters(file, model, [](const ParamSpec&) { return true; });
  ASSERT_FALSE(stored.empty());
  dequantize_stored(model, stored);
  std::vector<ExtraTensor> extras;
  for (const TensorEntry& e : file.tensors())
    if (e.name.rfind("extra/", 0) == 0) extras.push_back({e.name, e.dtype, e.shape, file.data(e)});
  save_model(path, model, {}, extras);
}

class LoraOverQuantizedBase : public ::testing::TestWithParam<const char*> {};

// Adapters on every matrix of a language model trained for 6 updates over the quantized base equal those
// trained over its dequantized float32 weights; the run says how the base is held, its checkpoints are adapter
// files of the trained tensors alone, the base file is unchanged, and the adapters generate over the base.
TEST_P(LoraOverQuantizedBase, TrainsAsOverItsDequantizedWeights) {
  TempDir dir;
  const std::string type = GetParam();
  const std::string lm = test::make_language_model(dir.file("lm.htp"), 32);
  const std::string quantized = dir.file("q.htp"), dequantized = dir.file("dq.htp");
  std::string log;
  ASSERT_EQ(run_heptapod("quantize --model " + quoted(lm) + " --to " + type + " -o " + quoted(quantized), dir, log), 0)
      << log;
  write_dequantized(quantized, dequantized);
  const std::string before = weights_checksum(SafetensorsFile::read(quantized));
  auto train = [&](const std::string& base, const std::string& out) {
    return "train --init " + quoted(base) + " --text " + quoted(test::data_file("numbers.train.en")) + " -o " +
           quoted(out) + " --lora 4 --lora-targets q,k,v,o,ffn --context 16 --batch-tokens 128 --threads 2"
           " --steps 6 --valid-every 3 --log-every 1 --lr 1e-2";
  };
  ASSERT_EQ(run_heptapod(train(quantized, dir.file("q")), dir, log), 0) << log;
  EXPECT_NE(log.find("the base held in " + type), std::string::npos) << log;
  ASSERT_EQ(run_heptapod(train(dequantized, dir.file("dq")), dir, log), 0) << log;
  EXPECT_EQ(log.find("the base held in"), std::string::npos) << log;

  const SafetensorsFile got = SafetensorsFile::read(dir.file("q/adapter.htp"));
  const SafetensorsFile want = SafetensorsFile::read(dir.file("dq/adapter.htp"));
  int compared = 0;
  for (const TensorEntry& e : want.tensors()) {
    if (e.name.rfind("extra/", 0) == 0) continue;
    const std::vector<float> a = got.floats<float>(e.name), b = want.floats<float>(e.name);
    ASSERT_EQ(a.size(), b.size()) << e.name;
    double change = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(a[i], b[i], 1e-4) << e.name << "[" << i << "]";
      change += std::abs(b[i]);
    }
    EXPECT_GT(change, 0) << e.name;
    ++compared;
  }
  EXPECT_EQ(compared, 2 * 2 * 6);  // 2 layers x (q, k, v, o, fc1, fc2) x (A, B)

  EXPECT_EQ(weights_checksum(SafetensorsFile::read(quantized)), before) << "the base file changed";
  const SafetensorsFile checkpoint = SafetensorsFile::read(checkpoint_path(dir.file("q/checkpoints"), 6));
  EXPECT_TRUE(is_adapter_file(checkpoint));
  EXPECT_EQ(read_adapter_info(checkpoint).base_checksum, before);
  int held = 0;  // the checkpoint's parameters: the adapters alone
  for (const TensorEntry& e : checkpoint.tensors())
    if (e.name.rfind("extra/", 0) != 0) {
      EXPECT_NE(want.find(e.name), nullptr) << e.name;
      ++held;
    }
  EXPECT_EQ(held, compared);
  ASSERT_EQ(run_heptapod("generate --model " + quoted(quantized) + " --adapter " + quoted(dir.file("q/adapter.htp")) +
                             " --prompt one --max-tokens 4 --seed 1",
                         dir, log),
            0)
      << log;
}

INSTANTIATE_TEST_SUITE_P(Types, LoraOverQuantizedBase, ::testing::Values("int8", "bfloat16", "int4", "q8_0"));

// Full fine-tuning cannot update weights held in low precision: refused by name, with the way out.
TEST(LoraOverQuantizedBase, FullFineTuningIsRefused) {
  TempDir dir;
  const std::string lm = test::make_language_model(dir.file("lm.htp"), 32);
  std::string log;
  ASSERT_EQ(run_heptapod("quantize --model " + quoted(lm) + " --to int8 -o " + quoted(dir.file("q.htp")), dir, log), 0)
      << log;
  EXPECT_NE(run_heptapod("train --init " + quoted(dir.file("q.htp")) + " --text " +
                             quoted(test::data_file("numbers.dev.en")) + " -o " + quoted(dir.file("run")) +
                             " --context 16 --steps 1",
                         dir, log),
            0);
  EXPECT_NE(log.find("holds int8 weights, which full fine-tuning cannot update"), std::string::npos) << log;
  EXPECT_NE(log.find("--lora"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir.file("run")));
}

}  // namespace
}  // namespace heptapod
