// GGUF export (data/gguf_export.h): the LLaMA-family and GPT-2 fixtures converted to model files, then
// written as GGUF in each weight type and read back with io/gguf_file.h: every key as llama.cpp's converter
// writes it, the tensor table of llama.cpp's names, F32 tensors equal to the model's values byte for byte
// (the llama query/key rows after the permutation is inverted by an index formula of this test's own), F16
// the values rounded to half, Q8_0 and Q4_0 blocks those of the reference quantizers, and the fallbacks (rows
// not a multiple of 32: F16) where they belong. The permutation is proved by its purpose: llama.cpp's
// rotation of adjacent pairs over the written (permuted) rows, with the rope_freqs divisors, gives the
// attention scores Heptapod's rotation of halves gives over the model's rows. The tokenizer keys
// (tokenizer.ggml.*) of byte-level, SentencePiece-style and Heptapod-trained vocabularies, the chat
// template, the refusals naming what GGUF cannot hold, and the command line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/data/gguf_export.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/io/gguf_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/kernels/gguf_blocks.h"
#include "heptapod/kernels/half.h"
#include "test_process.h"
#include "test_util.h"
#include "vocab_model.h"

namespace heptapod {
namespace {

namespace fs = std::filesystem;
using kernels::GgmlType;
using test::TempDir;

// The fixture checkpoint `family` (llama, mistral, qwen2, qwen3 or gpt2) converted to a model file in `dir`.
// Qwen 3's fixture uses dynamic rope scaling, which llama.cpp lacks: "qwen3" here is that fixture with the
// scaling dropped (the refusal of the original is a test of its own).
std::string convert_fixture(const std::string& family, const TempDir& dir, bool keep_dynamic = false) {
  std::string source = test::fixture(family);
  if (family == "qwen3" && !keep_dynamic) {
    source = dir.file("qwen3-plain");
    fs::copy(test::fixture("qwen3"), source);
    auto config = nlohmann::json::parse(test::slurp(source + "/config.json"));
    config["rope_parameters"] = {{"rope_theta", 10000.0}, {"rope_type", "default"}};
    dir.write("qwen3-plain/config.json", config.dump());
  }
  const std::string out = dir.file(family + (keep_dynamic ? "-dynamic" : "") + ".htp");
  std::string log;
  EXPECT_EQ(test::run_heptapod("convert " + test::quoted(source) + " --from " + (family == "gpt2" ? "gpt2" : "llama") +
                                   " -o " + test::quoted(out),
                               dir, log),
            0)
      << log;
  return out;
}

// A model file's parameter as floats.
std::vector<float> values(const SafetensorsFile& file, const std::string& name) { return file.floats<float>(name); }

// What a GGUF tensor must hold: its shape (PyTorch order) and values.
struct Want {
  std::vector<std::int64_t> shape;
  std::vector<float> data;
};

Want param(const SafetensorsFile& file, const std::string& name) { return {file.at(name).shape, values(file, name)}; }

// llama.cpp's row order for a llama query or key: written row h*d + p holds the model's row h*d + (p % 2) * d/2
// + p / 2 (pairs of adjacent rows from the two halves of each head).
Want permuted(const Want& w, int head_dim) {
  const long cols = w.shape.size() > 1 ? w.shape[1] : 1, rows = w.shape[0];
  Want out{w.shape, std::vector<float>(w.data.size())};
  for (long r = 0; r < rows; ++r) {
    const long h = r / head_dim, p = r % head_dim;
    const long from = h * head_dim + (p % 2) * (head_dim / 2) + p / 2;
    std::copy_n(w.data.begin() + from * cols, cols, out.data.begin() + r * cols);
  }
  return out;
}

// The tensors a family's file holds, by llama.cpp name.
std::map<std::string, Want> expected_tensors(const SafetensorsFile& file, const std::string& arch) {
  const ModelConfig c = read_model_config(file);
  std::map<std::string, Want> want;
  const std::string embedding = c.tie_embeddings == EmbeddingTying::All ? "shared_embedding/weight" : "decoder/embedding/weight";
  want["token_embd.weight"] = param(file, embedding);
  if (c.tie_embeddings == EmbeddingTying::None) want["output.weight"] = param(file, "decoder/output_proj/weight");
  want["output_norm.weight"] = param(file, "decoder/final_norm/weight");
  if (arch == "gpt2") {
    want["output_norm.bias"] = param(file, "decoder/final_norm/bias");
    want["position_embd.weight"] = param(file, "decoder/positions/weight");
  }
  for (int i = 0; i < c.decoder_layers; ++i) {
    const std::string ours = "decoder/layers/" + std::to_string(i) + "/", blk = "blk." + std::to_string(i) + ".";
    auto same = [&](const std::string& gguf, const std::string& name) {
      if (file.find(ours + name)) want[blk + gguf] = param(file, ours + name);
    };
    same("attn_norm.weight", "self_attn_norm/weight");
    same("attn_norm.bias", "self_attn_norm/bias");
    same("ffn_norm.weight", "ffn_norm/weight");
    same("ffn_norm.bias", "ffn_norm/bias");
    same("attn_output.weight", "self_attn/out_proj/weight");
    same("attn_output.bias", "self_attn/out_proj/bias");
    same("ffn_up.weight", "ffn/fc1/weight");
    same("ffn_up.bias", "ffn/fc1/bias");
    same("ffn_down.weight", "ffn/fc2/weight");
    same("ffn_down.bias", "ffn/fc2/bias");
    same("ffn_gate.weight", "ffn/gate/weight");
    same("attn_q_norm.weight", "self_attn/q_norm/weight");
    same("attn_k_norm.weight", "self_attn/k_norm/weight");
    if (arch == "gpt2") {
      for (const char* leaf : {"weight", "bias"}) {
        Want qkv;
        for (const char* m : {"q_proj", "k_proj", "v_proj"}) {
          const Want part = param(file, ours + "self_attn/" + m + "/" + leaf);
          qkv.shape = part.shape;
          qkv.data.insert(qkv.data.end(), part.data.begin(), part.data.end());
        }
        qkv.shape[0] *= 3;
        want[blk + "attn_qkv." + leaf] = qkv;
      }
      continue;
    }
    same("attn_v.weight", "self_attn/v_proj/weight");
    same("attn_v.bias", "self_attn/v_proj/bias");
    for (const auto& [gguf, m] : {std::pair<std::string, std::string>{"attn_q", "q_proj"}, {"attn_k", "k_proj"}})
      for (const char* leaf : {"weight", "bias"}) {
        if (!file.find(ours + "self_attn/" + m + "/" + leaf)) continue;
        const Want w = param(file, ours + "self_attn/" + m + "/" + leaf);
        want[blk + gguf + "." + leaf] = arch == "llama" ? permuted(w, c.head_size()) : w;
      }
  }
  return want;
}

// The type a tensor must have in a file of `weights`.
GgmlType expected_type(const std::string& name, const Want& w, GgufWeightType weights, bool tied) {
  if (w.shape.size() == 1 || name == "position_embd.weight" || name == "rope_freqs.weight" ||
      weights == GgufWeightType::F32)
    return GgmlType::F32;
  if (weights == GgufWeightType::F16) return GgmlType::F16;
  if (w.shape.back() % 32 != 0) return GgmlType::F16;
  const bool output = name == "output.weight" || (tied && name == "token_embd.weight");
  return weights == GgufWeightType::Q8_0 || output ? GgmlType::Q8_0 : GgmlType::Q4_0;
}

// The bytes a tensor of `type` holds for the values: the reference encodings.
std::string encoded(const Want& w, GgmlType type) {
  const long cols = w.shape.back(), rows = static_cast<long>(w.data.size()) / cols;
  const long row_bytes = kernels::ggml_row_bytes(type, cols);
  std::string out(static_cast<std::size_t>(rows * row_bytes), '\0');
  for (long r = 0; r < rows; ++r) {
    const float* x = w.data.data() + r * cols;
    char* o = out.data() + r * row_bytes;
    if (type == GgmlType::F32) std::memcpy(o, x, static_cast<std::size_t>(cols) * 4);
    if (type == GgmlType::F16)
      for (long i = 0; i < cols; ++i) {
        const kernels::half h = kernels::to_half_scalar(x[i]);
        std::memcpy(o + 2 * i, &h, 2);
      }
    if (type == GgmlType::Q8_0) kernels::quantize_row_q8_0(x, o, cols);
    if (type == GgmlType::Q4_0) kernels::quantize_row_q4_0(x, o, cols);
  }
  return out;
}

const char* arch_of(const std::string& family) {
  return family == "gpt2" ? "gpt2" : family == "qwen2" ? "qwen2" : family == "qwen3" ? "qwen3" : "llama";
}

// Every tensor of the GGUF file against the model file's values.
void expect_tensors(const GgufFile& g, const SafetensorsFile& file, GgufWeightType weights, const std::string& arch) {
  const ModelConfig c = read_model_config(file);
  std::map<std::string, Want> want = expected_tensors(file, arch);
  ASSERT_EQ(g.tensors().size(), want.size() + (c.rope.scaling == RopeScaling::Llama3 ? 1 : 0)) << g.where();
  for (const GgufTensor& t : g.tensors()) {
    if (t.name == "rope_freqs.weight") continue;  // RotaryPermutation checks it
    ASSERT_TRUE(want.count(t.name)) << g.where() << ": unexpected tensor " << t.name;
    const Want& w = want[t.name];
    EXPECT_EQ(t.shape, w.shape) << t.name;
    const GgmlType type = expected_type(t.name, w, weights, c.tie_embeddings != EmbeddingTying::None);
    EXPECT_EQ(t.type, type) << g.where() << " " << t.name << " is " << t.type_name;
    if (t.type != type) continue;
    const std::string bytes(reinterpret_cast<const char*>(g.data(t)), t.bytes);
    EXPECT_TRUE(bytes == encoded(w, type)) << g.where() << " " << t.name;
    // And the blocks decode to the values, within the type's step.
    const long cols = w.shape.back();
    std::vector<float> row(static_cast<std::size_t>(cols));
    kernels::dequantize_row(type, g.data(t), row.data(), cols);
    float largest = 0;
    for (long i = 0; i < cols; ++i) largest = std::max(largest, std::fabs(w.data[i]));
    const float step = type == GgmlType::Q4_0 ? largest / 7 : type == GgmlType::Q8_0 ? largest / 100 : largest / 500;
    for (long i = 0; i < cols; ++i) EXPECT_NEAR(row[i], w.data[i], step + 1e-7f) << t.name << " column " << i;
  }
}

TEST(GgufExport, FixturesInEveryWeightType) {
  TempDir dir;
  for (const std::string family : {"llama", "mistral", "qwen2", "qwen3", "gpt2"}) {
    const std::string htp = convert_fixture(family, dir);
    const SafetensorsFile file = SafetensorsFile::read(htp);
    const ModelConfig c = read_model_config(file);
    for (GgufWeightType weights : {GgufWeightType::F32, GgufWeightType::F16, GgufWeightType::Q8_0, GgufWeightType::Q4_0}) {
      SCOPED_TRACE(family + " " + gguf_weight_type_name(weights));
      const std::string out = dir.file(family + "-" + gguf_weight_type_name(weights) + ".gguf");
      const GgufExport exported = write_gguf(file, weights, out);
      EXPECT_EQ(exported.architecture, arch_of(family));
      const GgufFile g = GgufFile::read(out);
      const std::string a = arch_of(family);
      EXPECT_EQ(g.version(), 3u);
      EXPECT_EQ(g.keys().front(), "general.architecture");
      EXPECT_EQ(g.string("general.architecture"), a);
      EXPECT_EQ(g.string("general.name"), family);
      const std::uint32_t file_types[] = {0, 1, 7, 2};
      EXPECT_EQ(g.u32("general.file_type"), file_types[static_cast<int>(weights)]);
      EXPECT_EQ(g.u32("general.quantization_version"), 2u);
      EXPECT_EQ(g.u32(a + ".context_length"), static_cast<std::uint32_t>(c.position_limit()));
      EXPECT_EQ(g.u32(a + ".embedding_length"), 32u);
      EXPECT_EQ(g.u32(a + ".block_count"), 2u);
      EXPECT_EQ(g.u32(a + ".feed_forward_length"), family == "gpt2" ? 128u : 48u);
      EXPECT_EQ(g.u32(a + ".attention.head_count"), 4u);
      EXPECT_EQ(g.u32(a + ".attention.head_count_kv"), static_cast<std::uint32_t>(c.key_value_heads()));
      EXPECT_EQ(g.find(a + ".attention.key_length") != nullptr, family == "qwen3");  // head_dim 16 != 32 / 4
      if (family == "gpt2") {
        EXPECT_EQ(g.f32("gpt2.attention.layer_norm_epsilon"), 1e-5f);
        EXPECT_EQ(g.find("gpt2.rope.freq_base"), nullptr);
      } else {
        EXPECT_EQ(g.f32(a + ".attention.layer_norm_rms_epsilon"), c.layer_norm_eps);
        EXPECT_EQ(g.f32(a + ".rope.freq_base"), static_cast<float>(c.rope.theta));
        EXPECT_EQ(g.u32(a + ".rope.dimension_count"), static_cast<std::uint32_t>(c.head_size()));
        EXPECT_EQ(g.u32(a + ".vocab_size"), static_cast<std::uint32_t>(c.tgt_vocab_size));
        EXPECT_EQ(g.optional_string(a + ".rope.scaling.type"), family == "qwen2" ? std::optional<std::string>("linear")
                                                                                  : std::nullopt);
        if (family == "qwen2") EXPECT_EQ(g.f32("qwen2.rope.scaling.factor"), 2.0f);
      }
      EXPECT_EQ(g.find_tensor("rope_freqs.weight") != nullptr, family == "llama");  // llama3 scaling
      expect_tensors(g, file, weights, a);
      // Rows of 48 (the feed-forward network's down projection) cannot be blocks of 32: F16, said in a note.
      const bool quantized = weights == GgufWeightType::Q8_0 || weights == GgufWeightType::Q4_0;
      bool noted = false;
      for (const std::string& note : exported.notes) noted |= note.find("blk.0.ffn_down.weight: F16") == 0;
      EXPECT_EQ(noted, quantized && family != "gpt2");
    }
  }
}

// The tokenizer keys of each family's vocabulary against the model file's tokenizer.
TEST(GgufExport, TokenizerKeys) {
  TempDir dir;
  for (const std::string family : {"llama", "mistral", "qwen2", "gpt2"}) {
    SCOPED_TRACE(family);
    const std::string htp = convert_fixture(family, dir);
    const SafetensorsFile file = SafetensorsFile::read(htp);
    const ModelConfig c = read_model_config(file);
    const ModelVocabularies vocabs = *read_vocabularies(file, c);
    write_gguf(file, GgufWeightType::F32, dir.file("t.gguf"));
    const GgufFile g = GgufFile::read(dir.file("t.gguf"));
    const std::vector<std::string> tokens = g.strings("tokenizer.ggml.tokens");
    ASSERT_EQ(tokens.size(), static_cast<std::size_t>(c.tgt_vocab_size));
    for (int id = 0; id < vocabs.target.size(); ++id) EXPECT_EQ(tokens[id], vocabs.target.piece(id)) << id;
    const std::vector<std::int32_t> types = g.i32s("tokenizer.ggml.token_type");
    ASSERT_EQ(types.size(), tokens.size());
    EXPECT_EQ(g.u32("tokenizer.ggml.bos_token_id"), static_cast<std::uint32_t>(c.bos_id));
    EXPECT_EQ(g.u32("tokenizer.ggml.eos_token_id"), static_cast<std::uint32_t>(c.eos_id));
    EXPECT_EQ(g.u32("tokenizer.ggml.padding_token_id"), static_cast<std::uint32_t>(c.pad_id));
    EXPECT_EQ(g.boolean("tokenizer.ggml.add_bos_token"), c.prompt_bos);
    EXPECT_EQ(g.boolean("tokenizer.ggml.add_bos_token"), family != "qwen2");  // Qwen's prompts begin with text
    EXPECT_EQ(g.optional_string("tokenizer.chat_template"),
              read_chat_template(file) ? std::optional<std::string>(read_chat_template(file)->source) : std::nullopt);
    if (family == "mistral") {
      EXPECT_EQ(g.string("tokenizer.ggml.model"), "llama");
      EXPECT_EQ(g.find("tokenizer.ggml.pre"), nullptr);
      EXPECT_EQ(g.find("tokenizer.ggml.merges"), nullptr);
      EXPECT_TRUE(g.boolean("tokenizer.ggml.add_space_prefix"));
      EXPECT_EQ(g.u32("tokenizer.ggml.unknown_token_id"), 0u);
      EXPECT_EQ(types[0], 2);  // <unk>
      EXPECT_EQ(types[1], 3);  // <s>
      EXPECT_EQ(types[2], 3);  // </s>
      // Scores: a merge's piece scores minus its rank, so llama.cpp's highest-score-first merging applies the
      // merges in their order.
      const auto tokenizer = nlohmann::json::parse(test::slurp(test::fixture("mistral") + "/tokenizer.json"));
      const std::vector<float> scores = g.f32s("tokenizer.ggml.scores");
      ASSERT_EQ(scores.size(), tokens.size());
      const auto& merges = tokenizer["model"]["merges"];
      for (std::size_t rank = 0; rank < merges.size(); ++rank) {
        const std::string m = merges[rank].get<std::string>();
        const std::string piece = m.substr(0, m.find(' ')) + m.substr(m.find(' ') + 1);
        const int id = vocabs.target.id_of(piece);
        ASSERT_GE(id, 0) << piece;
        if (id >= 0 && scores[id] != -static_cast<float>(rank)) {  // a piece two merges make keeps the first
          EXPECT_GT(scores[id], -static_cast<float>(rank)) << piece;
        }
      }
      int bytes = 0;
      for (std::size_t id = 0; id < tokens.size(); ++id)
        if (tokens[id].rfind("<0x", 0) == 0) {
          EXPECT_EQ(types[id], 6) << tokens[id];
          ++bytes;
        }
      EXPECT_EQ(bytes, 256);
      continue;
    }
    EXPECT_EQ(g.string("tokenizer.ggml.model"), "gpt2");
    EXPECT_EQ(g.string("tokenizer.ggml.pre"), family == "llama" ? "llama-bpe" : family == "qwen2" ? "qwen2" : "gpt-2");
    EXPECT_EQ(g.find("tokenizer.ggml.scores"), nullptr);
    std::vector<std::string> merges;
    if (family == "gpt2") {
      std::istringstream in(test::slurp(test::fixture("gpt2") + "/merges.txt"));
      for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] != '#') merges.push_back(line);
    } else {
      const auto tokenizer = nlohmann::json::parse(test::slurp(test::fixture(family) + "/tokenizer.json"));
      for (const auto& m : tokenizer["model"]["merges"]) merges.push_back(m.get<std::string>());
    }
    EXPECT_EQ(g.strings("tokenizer.ggml.merges"), merges);
    for (std::size_t id = 0; id < tokens.size(); ++id)
      EXPECT_EQ(types[id], vocabs.target.is_special(static_cast<int>(id)) ? 3 : 1) << tokens[id];
  }
}

// A model trained here: LLaMA's layout with Heptapod's own SentencePiece vocabulary, as "llama" with the
// SentencePiece model's scores and piece kinds.
TEST(GgufExport, HeptapodTrainedModelWithSentencePiece) {
  TempDir dir;
  const std::string htp = test::make_llama_layout_model(dir.file("lm.htp"));
  const SafetensorsFile file = SafetensorsFile::read(htp);
  const GgufExport exported = write_gguf(file, GgufWeightType::Q4_0, dir.file("lm.gguf"));
  EXPECT_EQ(exported.architecture, "llama");
  // No context bound: the default context, said.
  ASSERT_EQ(exported.notes.size(), 1u);
  EXPECT_NE(exported.notes[0].find("llama.context_length: 4096"), std::string::npos) << exported.notes[0];
  const GgufFile g = GgufFile::read(dir.file("lm.gguf"));
  EXPECT_EQ(g.u32("llama.context_length"), 64u);
  expect_tensors(g, file, GgufWeightType::Q4_0, "llama");
  EXPECT_EQ(g.string("tokenizer.ggml.model"), "llama");
  const Vocabulary vocab = test::numbers_vocabulary();
  const std::vector<ScoredPiece> pieces = sentencepiece_pieces(vocab.serialized(), "numbers");
  const std::vector<std::string> tokens = g.strings("tokenizer.ggml.tokens");
  const std::vector<float> scores = g.f32s("tokenizer.ggml.scores");
  const std::vector<std::int32_t> types = g.i32s("tokenizer.ggml.token_type");
  ASSERT_EQ(tokens.size(), pieces.size());
  for (std::size_t id = 0; id < pieces.size(); ++id) {
    EXPECT_EQ(tokens[id], vocab.piece(static_cast<int>(id)));
    EXPECT_EQ(scores[id], pieces[id].score);
  }
  EXPECT_EQ(types[kPadId], 3);
  EXPECT_EQ(types[kBosId], 3);
  EXPECT_EQ(types[kEosId], 3);
  EXPECT_EQ(types[kUnkId], 2);
  EXPECT_EQ(types[10], 1);
  EXPECT_EQ(g.u32("tokenizer.ggml.unknown_token_id"), static_cast<std::uint32_t>(kUnkId));
  EXPECT_EQ(g.u32("tokenizer.ggml.bos_token_id"), static_cast<std::uint32_t>(kBosId));
  EXPECT_TRUE(g.boolean("tokenizer.ggml.add_space_prefix"));
}

// llama.cpp's rotation (LLAMA_ROPE_TYPE_NORM: pairs (2i, 2i + 1), angle p * base^(-2i/d) / rope_freqs[i]) over
// the written query and key rows gives the scores Heptapod's (halves (i, i + d/2), its own frequencies) gives
// over the model's rows: the permutation and the rope_freqs divisors are the ones llama.cpp needs.
TEST(GgufExport, RotaryPermutationGivesTheSameScores) {
  TempDir dir;
  const SafetensorsFile file = SafetensorsFile::read(convert_fixture("llama", dir));
  const ModelConfig c = read_model_config(file);
  write_gguf(file, GgufWeightType::F32, dir.file("l.gguf"));
  const GgufFile g = GgufFile::read(dir.file("l.gguf"));
  const int d = c.head_size(), C = c.d_model, half = d / 2;
  const float base = g.f32("llama.rope.freq_base");
  const GgufTensor& freqs_tensor = g.tensor("rope_freqs.weight");
  ASSERT_EQ(freqs_tensor.shape, (std::vector<std::int64_t>{half}));
  std::vector<float> divisors(static_cast<std::size_t>(half));
  std::memcpy(divisors.data(), g.data(freqs_tensor), divisors.size() * 4);
  const std::vector<double> ours = rotary_frequencies(c.rope, d, 64);
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> x(static_cast<std::size_t>(C)), y(static_cast<std::size_t>(C));
  for (float& v : x) v = normal(rng);
  for (float& v : y) v = normal(rng);
  // rows (R, C) times v: the product's rows [head * d, head * d + d).
  auto project = [&](const float* w, const std::vector<float>& v, int head) {
    std::vector<double> out(static_cast<std::size_t>(d));
    for (int r = 0; r < d; ++r)
      for (int k = 0; k < C; ++k) out[r] += static_cast<double>(w[(head * d + r) * C + k]) * v[k];
    return out;
  };
  auto rotate_pairs = [&](std::vector<double> v, int pos) {  // llama.cpp
    for (int i = 0; i < half; ++i) {
      const double angle = pos * std::pow(static_cast<double>(base), -2.0 * i / d) / divisors[i];
      const double a = v[2 * i], b = v[2 * i + 1];
      v[2 * i] = a * std::cos(angle) - b * std::sin(angle);
      v[2 * i + 1] = a * std::sin(angle) + b * std::cos(angle);
    }
    return v;
  };
  auto rotate_halves = [&](std::vector<double> v, int pos) {  // Heptapod (Hugging Face's layout)
    for (int i = 0; i < half; ++i) {
      const double angle = pos * ours[i];
      const double a = v[i], b = v[i + half];
      v[i] = a * std::cos(angle) - b * std::sin(angle);
      v[i + half] = a * std::sin(angle) + b * std::cos(angle);
    }
    return v;
  };
  const std::vector<float> q = values(file, "decoder/layers/1/self_attn/q_proj/weight");
  const std::vector<float> k = values(file, "decoder/layers/1/self_attn/k_proj/weight");
  const GgufTensor& gq = g.tensor("blk.1.attn_q.weight");
  const GgufTensor& gk = g.tensor("blk.1.attn_k.weight");
  std::vector<float> wq(q.size()), wk(k.size());
  std::memcpy(wq.data(), g.data(gq), wq.size() * 4);
  std::memcpy(wk.data(), g.data(gk), wk.size() * 4);
  const int group = c.n_heads / c.key_value_heads();
  for (int head = 0; head < c.n_heads; ++head)
    for (const auto& [pq, pk] : {std::pair{5, 2}, std::pair{40, 17}, std::pair{63, 0}}) {
      const auto a1 = rotate_halves(project(q.data(), x, head), pq), b1 = rotate_halves(project(k.data(), y, head / group), pk);
      const auto a2 = rotate_pairs(project(wq.data(), x, head), pq), b2 = rotate_pairs(project(wk.data(), y, head / group), pk);
      double s1 = 0, s2 = 0;
      for (int i = 0; i < d; ++i) {
        s1 += a1[i] * b1[i];
        s2 += a2[i] * b2[i];
      }
      EXPECT_NEAR(s1, s2, 1e-5 * (1 + std::fabs(s1))) << "head " << head << " positions " << pq << ", " << pk;
    }
  // And the permutation is not the identity here: the halves' rotation over the written rows differs.
  const auto wrong = rotate_halves(project(wq.data(), x, 0), 40);
  const auto right = rotate_pairs(project(wq.data(), x, 0), 40);
  double apart = 0;
  for (int i = 0; i < d; ++i) apart += std::fabs(wrong[i] - right[i]);
  EXPECT_GT(apart, 1e-3);
}

TEST(GgufExport, RefusesWhatGgufCannotHold) {
  TempDir dir;
  auto refusal = [&](const std::string& htp) {
    try {
      write_gguf(SafetensorsFile::read(htp), GgufWeightType::F16, dir.file("refused.gguf"));
    } catch (const Error& e) {
      EXPECT_FALSE(fs::exists(dir.file("refused.gguf")));
      return std::string(e.what());
    }
    ADD_FAILURE() << htp << " was written";
    return std::string();
  };
  const std::string dynamic = refusal(convert_fixture("qwen3", dir, true));
  EXPECT_NE(dynamic.find("dynamic (NTK) rope scaling"), std::string::npos) << dynamic;
  const std::string encoder_decoder = refusal(test::make_model(dir.file("translation.htp")));
  EXPECT_NE(encoder_decoder.find("an encoder-decoder model"), std::string::npos) << encoder_decoder;
  EXPECT_NE(encoder_decoder.find("translation.htp"), std::string::npos) << encoder_decoder;
  const std::string encoder = refusal(test::make_encoder(dir.file("encoder.htp")));
  EXPECT_NE(encoder.find("an encoder-only model"), std::string::npos) << encoder;
  // The paper's decoder (post-norm, sinusoids, ReLU).
  const std::string paper = refusal(test::make_language_model(dir.file("paper.htp")));
  EXPECT_NE(paper.find("post-norm layers"), std::string::npos) << paper;
  // A quantized model file.
  const std::string llama = convert_fixture("llama", dir);
  InferencePrecision int8;
  int8.type = ComputeType::Int8;
  save_low_precision_model(SafetensorsFile::read(llama), int8, dir.file("int8.htp"));
  const std::string quantized = refusal(dir.file("int8.htp"));
  EXPECT_NE(quantized.find("quantized model file"), std::string::npos) << quantized;
  // No vocabulary.
  {
    const auto model = load_model(llama);
    save_model(dir.file("bare.htp"), *model);
  }
  const std::string bare = refusal(dir.file("bare.htp"));
  EXPECT_NE(bare.find("holds no vocabulary"), std::string::npos) << bare;
  EXPECT_THROW(parse_gguf_weight_type("q4_k", "--gguf-type"), Error);
  EXPECT_EQ(parse_gguf_weight_type("q8_0", "--gguf-type"), GgufWeightType::Q8_0);
}

TEST(GgufExport, CommandLine) {
  TempDir dir;
  const std::string htp = convert_fixture("mistral", dir);
  std::string log;
  const std::string out = dir.file("m.gguf");
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(htp) + " --to gguf --gguf-type q4_0 -o " + test::quoted(out), dir, log), 0)
      << log;
  EXPECT_NE(log.find("architecture llama, weights q4_0"), std::string::npos) << log;
  EXPECT_NE(log.find("note: blk.0.ffn_down.weight: F16, not Q4_0"), std::string::npos) << log;
  const GgufFile g = GgufFile::read(out);
  EXPECT_EQ(g.tensor("blk.0.attn_q.weight").type, GgmlType::Q4_0);
  EXPECT_EQ(g.tensor("output.weight").type, GgmlType::Q8_0);
  // The default type is f16, as llama.cpp's converter's.
  ASSERT_EQ(test::run_heptapod("convert " + test::quoted(htp) + " --to gguf -o " + test::quoted(out), dir, log), 0) << log;
  EXPECT_EQ(GgufFile::read(out).tensor("blk.0.attn_q.weight").type, GgmlType::F16);
  const std::string gguf_help = [&] {
    test::run_heptapod("convert --help", dir, log);
    return log;
  }();
  EXPECT_NE(gguf_help.find("convert_hf_to_gguf.py"), std::string::npos) << gguf_help;
  // Bad input: a clear error, nothing written.
  fs::remove(out);
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(htp) + " --to gguf --gguf-type q4_k -o " + test::quoted(out), dir, log), 0);
  EXPECT_NE(log.find("--gguf-type"), std::string::npos) << log;
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(htp) + " --gguf-type q8_0 -o " + test::quoted(out), dir, log), 0);
  EXPECT_NE(log.find("--gguf-type is for --to gguf"), std::string::npos) << log;
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(htp) + " --to gguf", dir, log), 0);
  EXPECT_NE(log.find("--output"), std::string::npos) << log;
  const std::string translation = test::make_model(dir.file("translation.htp"));
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(translation) + " --to gguf -o " + test::quoted(out), dir, log), 0);
  EXPECT_NE(log.find("an encoder-decoder model"), std::string::npos) << log;
  EXPECT_NE(test::run_heptapod("convert " + test::quoted(test::fixture("mistral")) + " --to gguf -o " + test::quoted(out), dir, log), 0);
  EXPECT_NE(log.find("is not a Heptapod model file"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace heptapod
