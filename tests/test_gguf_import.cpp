// GGUF files as model files (data/gguf_import.h) against the safetensors import of the same checkpoints: the
// GGUF files are written at test time by our independent converter (tools/gguf_from_checkpoint.py, as
// llama.cpp's convert_hf_to_gguf.py lays them out: llama's q/k rows permuted, LLaMA 3's rope_freqs, the
// tokenizer as tokenizer.ggml.*) from the GPT-2 and LLaMA-family fixtures. An F32 file gives the config, the
// logits (1e-6) and the token ids of varied text that the safetensors route gives; an F16 or quantized file
// holds its matrices in their ggml types, in place, rows where the safetensors route has them; bad files are
// Errors naming the problem.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "heptapod/data/gguf_import.h"
#include "heptapod/data/llama_vocab.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/io/gpt2_import.h"
#include "heptapod/io/llama_import.h"
#include "heptapod/io/model_file.h"
#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/gguf_blocks.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

using test::quoted;
using test::TempDir;

const char* const kFamilies[] = {"gpt2", "llama", "mistral", "qwen2", "qwen3"};

// Runs tools/gguf_from_checkpoint.py on fixture `family` with `options`; returns the GGUF file's path.
std::string write_gguf(const TempDir& dir, const std::string& family, const std::string& options = "") {
  const std::string out = dir.file(family + ".gguf");
  const std::string tool = std::string(HEPTAPOD_FIXTURES) + "/../../tools/gguf_from_checkpoint.py";
  const std::string command =
      "/usr/bin/python3 " + quoted(tool) + " " + quoted(test::fixture(family)) + " " + quoted(out) + " " + options;
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return out;
}

// The safetensors route: what `heptapod convert DIR --from gpt2|llama` builds.
struct Imported {
  std::unique_ptr<Transformer<float>> model;
  Vocabulary vocab;
};

Imported import_safetensors(const std::string& family) {
  const std::string dir = test::fixture(family);
  Imported out;
  if (family == "gpt2") {
    out.model = import_gpt2(dir);
    out.vocab = gpt2_vocabularies(dir, out.model->config()).target;
  } else {
    LlamaConfig config = read_llama_config(dir);
    out.vocab = llama_vocabularies(dir, config.model).target;
    out.model = import_llama(dir, config.model);
  }
  return out;
}

std::vector<std::string> varied_lines() {
  std::vector<std::string> lines;
  for (const char* name : {"varied_text.txt", "special_text.txt"}) {
    std::ifstream in(std::string(HEPTAPOD_FIXTURES) + "/../tokenizers/" + name);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  return lines;
}

void check_f32_family(const std::string& family) {
  TempDir dir;
  const SafetensorsFile file = open_model_file(write_gguf(dir, family));
  const Imported want = import_safetensors(family);
  const ModelConfig config = read_model_config(file);
  EXPECT_EQ(to_json(config), to_json(want.model->config())) << family;
  EXPECT_EQ(stored_compute_type(file), ComputeType::Float32) << family;
  const auto got = load_model(file);
  const auto vocabs = read_vocabularies(file, config);
  ASSERT_TRUE(vocabs.has_value()) << family;

  // The same ids for every line of varied text (and its specials), and the same logits for the first lines.
  int compared = 0;
  for (const std::string& line : varied_lines()) {
    const std::vector<int> ids = vocabs->target.encode(line);
    ASSERT_EQ(ids, want.vocab.encode(line)) << family << ": " << line;
    EXPECT_EQ(vocabs->target.decode(ids), want.vocab.decode(ids)) << family << ": " << line;
    if (ids.empty() || compared >= 6) continue;
    std::vector<int> prompt = ids;
    if (config.prompt_bos) prompt.insert(prompt.begin(), config.bos_id);
    prompt.resize(std::min<std::size_t>(prompt.size(), std::min(24, config.position_limit())));
    const std::vector<float> a = test::sequence_logits(*got, prompt), b = test::sequence_logits(*want.model, prompt);
    EXPECT_LT(test::max_rel_error(a.data(), b.data(), a.size(), 1.0), 1e-6) << family << ": " << line;
    ++compared;
  }
  EXPECT_EQ(compared, 6) << family;
}

TEST(GgufImport, Gpt2F32MatchesTheSafetensorsImport) { check_f32_family("gpt2"); }
TEST(GgufImport, LlamaF32MatchesTheSafetensorsImport) { check_f32_family("llama"); }
TEST(GgufImport, MistralF32MatchesTheSafetensorsImport) { check_f32_family("mistral"); }
TEST(GgufImport, Qwen2F32MatchesTheSafetensorsImport) { check_f32_family("qwen2"); }
TEST(GgufImport, Qwen3F32MatchesTheSafetensorsImport) { check_f32_family("qwen3"); }

// Every weight matrix of an F16 file is a U8 (out, row bytes) tensor of ggml type F16 whose rows decode to the
// safetensors route's values rounded to half precision, row for row (llama's q and k rows back in order).
TEST(GgufImport, F16MatricesStayInTheirGgmlTypeRowForRow) {
  for (const char* family : kFamilies) {
    TempDir dir;
    const SafetensorsFile file = open_model_file(write_gguf(dir, family, "--type f16"));
    const Imported want = import_safetensors(family);
    EXPECT_EQ(file.metadata("weights"), "ggml") << family;
    EXPECT_EQ(file.metadata("format_version"), "2") << family;
    const auto types = nlohmann::json::parse(file.metadata(kGgmlTypesKey));
    const ModelConfig& c = want.model->config();
    int matrices = 0;
    for (const ParamSpec& spec : want.model->parameters().specs()) {
      const TensorEntry& e = file.at(spec.name);
      const float* values = want.model->parameters().value(spec.name);
      const bool matrix = spec.shape.size() == 2 && is_low_precision_parameter(c, spec);
      if (!matrix) {
        EXPECT_EQ(e.dtype, DType::F32) << family << " " << spec.name;
        continue;
      }
      ++matrices;
      ASSERT_EQ(e.dtype, DType::U8) << family << " " << spec.name;
      EXPECT_EQ(types.value(spec.name, ""), "F16") << family << " " << spec.name;
      const long in = static_cast<long>(spec.shape[1]);
      ASSERT_EQ(e.shape, (std::vector<std::int64_t>{spec.shape[0], 2 * in})) << family << " " << spec.name;
      std::vector<float> row(static_cast<std::size_t>(in));
      for (std::int64_t r = 0; r < spec.shape[0]; ++r) {
        kernels::dequantize_row(kernels::GgmlType::F16, file.data(e) + r * 2 * in, row.data(), in);
        for (long k = 0; k < in; ++k) {
          const float v = values[r * in + k];
          ASSERT_NEAR(row[static_cast<std::size_t>(k)], v, 1e-3 * std::abs(v) + 1e-7)
              << family << " " << spec.name << " row " << r << " column " << k;
        }
      }
    }
    EXPECT_GE(matrices, 7) << family;
  }
}

// The matrices of a quantized file keep their blocks (no dequantization at open) and point into the GGUF
// file; where a row is not a whole number of blocks the converter fell back as llama-quantize does.
TEST(GgufImport, QuantizedMatricesKeepTheirBlocks) {
  TempDir dir;
  const std::string path = write_gguf(dir, "llama", "--type q8_0");
  const SafetensorsFile file = open_model_file(path);
  const auto types = nlohmann::json::parse(file.metadata(kGgmlTypesKey));
  const ModelConfig c = read_model_config(file);
  const std::string q = tensor_name(Module::SelfAttnQuery, Leaf::Weight, Stack::Decoder, 0);
  const std::string down = tensor_name(Module::FfnOut, Leaf::Weight, Stack::Decoder, 0);
  const std::string up = tensor_name(Module::FfnIn, Leaf::Weight, Stack::Decoder, 0);
  EXPECT_EQ(types.value(q, ""), "Q8_0");
  EXPECT_EQ(types.value(up, ""), "Q8_0");
  EXPECT_EQ(types.value(down, ""), "F16");  // 48 columns: not whole blocks of 32
  EXPECT_EQ(file.at(up).shape, (std::vector<std::int64_t>{c.d_ff, 34}));
  EXPECT_TRUE(file.at(up).outside);   // read in place
  EXPECT_FALSE(file.at(q).outside);   // rows reordered (llama's q/k order)
  // The q rows decode close to the safetensors route's, row for row (Q8_0's error: amax / 254 per block).
  const Imported want = import_safetensors("llama");
  const float* values = want.model->parameters().value(q);
  std::vector<float> row(static_cast<std::size_t>(c.d_model));
  for (int r = 0; r < c.d_model; ++r) {
    kernels::dequantize_row(kernels::GgmlType::Q8_0, file.data(file.at(q)) + r * 34, row.data(), c.d_model);
    float amax = 0;
    for (int k = 0; k < c.d_model; ++k) amax = std::max(amax, std::abs(values[r * c.d_model + k]));
    for (int k = 0; k < c.d_model; ++k)
      ASSERT_NEAR(row[static_cast<std::size_t>(k)], values[r * c.d_model + k], amax / 200) << "row " << r;
  }
}

// The wide random checkpoint (tools/make_wide_checkpoint.py: rows of 256 values) as a GGUF file of `type`, and
// the checkpoint of what its blocks decode to (gguf_from_checkpoint.py --dequantized), imported.
struct Quantized {
  std::string gguf;
  std::unique_ptr<Transformer<float>> decoded;  // the safetensors import of the decoded weights
};

Quantized quantized_wide(const TempDir& dir, const std::string& type) {
  const std::string tools = std::string(HEPTAPOD_FIXTURES) + "/../../tools/";
  const std::string wide = dir.file("wide"), decoded = dir.file("wide-" + type), gguf = dir.file("wide-" + type + ".gguf");
  std::string command = "/usr/bin/python3 " + quoted(tools + "make_wide_checkpoint.py") + " " + quoted(wide);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  command = "/usr/bin/python3 " + quoted(tools + "gguf_from_checkpoint.py") + " " + quoted(wide) + " " + quoted(gguf) +
            " --type " + type + " --dequantized " + quoted(decoded);
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  LlamaConfig config = read_llama_config(decoded);
  llama_vocabularies(decoded, config.model);
  return {gguf, import_llama(decoded, config.model)};
}

const char* const kBlockTypes[] = {"q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k"};

// Every weight matrix keeps the requested blocks, each row decoding (by our block decoder) to the Python
// reference decoder's values of the same row of the checkpoint; the untied token table is decoded to F32.
TEST(GgufImport, EveryBlockTypeKeepsItsRows) {
  for (const char* type : kBlockTypes) {
    TempDir dir;
    const Quantized q = quantized_wide(dir, type);
    const SafetensorsFile file = open_model_file(q.gguf);
    const auto types = nlohmann::json::parse(file.metadata(kGgmlTypesKey));
    const ModelConfig& c = q.decoded->config();
    EXPECT_EQ(to_json(read_model_config(file)), to_json(c)) << type;
    std::string upper = type;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    int matrices = 0;
    for (const ParamSpec& spec : q.decoded->parameters().specs()) {
      const TensorEntry& e = file.at(spec.name);
      const float* want = q.decoded->parameters().value(spec.name);
      const std::int64_t rows = spec.shape[0], in = spec.shape.size() == 2 ? spec.shape[1] : 1;
      std::vector<float> got(static_cast<std::size_t>(rows * in));
      if (e.dtype == DType::F32) {
        std::memcpy(got.data(), file.data(e), got.size() * 4);
      } else {
        ASSERT_EQ(types.value(spec.name, ""), upper) << spec.name;
        kernels::GgmlType stored = kernels::GgmlType::F32;
        for (std::uint32_t id = 0; id < 40; ++id)
          if (const auto* i = kernels::find_ggml_type(id); i && upper == i->name) stored = i->type;
        const long row_bytes = kernels::ggml_row_bytes(stored, static_cast<long>(in));
        ASSERT_EQ(e.shape, (std::vector<std::int64_t>{rows, row_bytes})) << spec.name;
        for (std::int64_t r = 0; r < rows; ++r)
          kernels::dequantize_row(stored, file.data(e) + r * row_bytes, got.data() + r * in, static_cast<long>(in));
        ++matrices;
      }
      for (std::size_t k = 0; k < got.size(); ++k)
        ASSERT_NEAR(got[k], want[k], 1e-6 * (1 + std::abs(want[k]))) << type << " " << spec.name << " value " << k;
    }
    EXPECT_EQ(matrices, 2 * 7 + 1) << type;  // every layer's seven matrices and the output layer
  }
}

// A quantized file computes the logits of its decoded weights, its matrices packed from their blocks: with
// float32 activations within 1e-4, with the default 8-bit activations (per block of 32) within 3e-2.
TEST(GgufImport, QuantizedLogitsAreTheDecodedWeightsLogits) {
  for (const char* type : kBlockTypes) {
    TempDir dir;
    const Quantized q = quantized_wide(dir, type);
    const SafetensorsFile file = open_model_file(q.gguf);
    const std::vector<int> ids = {296, 17, 94, 33, 250, 7, 120, 41, 5, 260};
    const std::vector<float> want = test::sequence_logits(*q.decoded, ids);
    for (auto precision : {kernels::BlockActivationPrecision::Float32, kernels::BlockActivationPrecision::Int8}) {
      kernels::set_block_activation_precision(precision);
      const auto model = load_inference_model(file, stored_precision(file));
      kernels::set_block_activation_precision(kernels::BlockActivationPrecision::Int8);
      const std::vector<float> got = test::sequence_logits(*model, ids);
      const bool exact = precision == kernels::BlockActivationPrecision::Float32;
      EXPECT_LT(test::max_rel_error(got.data(), want.data(), got.size(), 1.0), exact ? 1e-4 : 3e-2)
          << type << (exact ? " float32 activations" : " int8 activations");
    }
  }
}

// `heptapod convert model.gguf -o model.htp` writes the view as a model file; info reads both.
TEST(GgufImport, ConvertWritesTheModelFile) {
  TempDir dir;
  const std::string template_path = dir.write("chat.jinja", "{% for m in messages %}{{ m.content }}{% endfor %}");
  const std::string gguf = write_gguf(dir, "qwen2", "--chat-template " + quoted(template_path));
  const std::string htp = dir.file("qwen2.htp");
  std::string log;
  ASSERT_EQ(test::run_heptapod("convert " + quoted(gguf) + " -o " + quoted(htp), dir, log), 0) << log;
  const SafetensorsFile written = SafetensorsFile::read(htp), view = open_model_file(gguf);
  EXPECT_EQ(written.metadata(), view.metadata());
  ASSERT_EQ(written.tensors().size(), view.tensors().size());
  for (const TensorEntry& e : view.tensors()) {
    const TensorEntry& w = written.at(e.name);
    ASSERT_EQ(w.shape, e.shape) << e.name;
    EXPECT_EQ(std::memcmp(written.data(w), view.data(e), e.end - e.begin), 0) << e.name;
  }
  const auto chat = read_chat_template(written);
  ASSERT_TRUE(chat.has_value());
  EXPECT_EQ(chat->source, "{% for m in messages %}{{ m.content }}{% endfor %}");
  EXPECT_EQ(chat->tokens.at("eos_token"), "<|im_end|>");
  ASSERT_EQ(test::run_heptapod("info -m " + quoted(gguf), dir, log), 0) << log;
  EXPECT_NE(log.find("decoder-only"), std::string::npos) << log;
  ASSERT_EQ(test::run_heptapod("generate -m " + quoted(gguf) + " --max-tokens 4 --prompt hello", dir, log), 0) << log;
}

// ---------------------------------------------------------------------------------------------- bad files

std::string slurp_bytes(const std::string& path) { return test::slurp(path); }

// `bytes` with the first `from` replaced by `to` (the same length).
std::string patched(std::string bytes, const std::string& from, const std::string& to) {
  const std::size_t at = bytes.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(from.size(), to.size());
  if (at != std::string::npos) bytes.replace(at, from.size(), to);
  return bytes;
}

std::string refusal(const std::string& bytes) {
  try {
    gguf_model_file(GgufFile::parse(bytes, "bad.gguf"));
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GgufImport, RefusesBadFilesByName) {
  TempDir dir;
  const std::string good = slurp_bytes(write_gguf(dir, "llama"));
  EXPECT_NO_THROW(gguf_model_file(GgufFile::parse(good, "good.gguf")));
  auto expect = [](const std::string& message, std::initializer_list<const char*> parts) {
    for (const char* part : parts) EXPECT_NE(message.find(part), std::string::npos) << message;
  };
  // A string value "llama" (u64 length 5 before it) of general.architecture.
  expect(refusal(patched(good, std::string("\x05\0\0\0\0\0\0\0llama", 13), std::string("\x05\0\0\0\0\0\0\0falco", 13))),
         {"bad.gguf", "general.architecture", "falco"});
  expect(refusal(patched(good, "llama.block_count", "llama.block_cxunt")), {"bad.gguf", "llama.block_count"});
  expect(refusal(patched(good, "llama.attention.layer_norm_rms_epsilon", "llama.attention.layer_norm_rms_epsilox")),
         {"bad.gguf", "llama.attention.layer_norm_rms_epsilon"});
  expect(refusal(patched(good, "tokenizer.ggml.eos_token_id", "tokenizer.ggml.eos_token_ix")),
         {"bad.gguf", "tokenizer.ggml.eos_token_id"});
  expect(refusal(patched(good, "blk.1.ffn_up.weight", "blk.1.ffn_xp.weight")), {"bad.gguf", "blk.1.ffn_up.weight"});
  expect(refusal(patched(good, "rope_freqs.weight", "rope_freqs.weixht")), {"bad.gguf", "unexpected", "rope_freqs.weixht"});
  // The tensor table's entry of blk.0.ffn_up.weight: name, u32 n_dims 2, u64 dims (32, 48), u32 type, u64 offset.
  const std::string name = "blk.0.ffn_up.weight";
  const std::size_t entry = good.find(name) + name.size();
  std::string shape = good, type = good;
  shape[entry + 4 + 8] = 40;  // 48 rows -> 40: a shape the config does not make
  expect(refusal(shape), {"bad.gguf", "blk.0.ffn_up.weight", "(40, 32)", "(48, 32)"});
  type[entry + 4 + 16] = 99;  // type id 99
  expect(refusal(type), {"bad.gguf", "blk.0.ffn_up.weight", "99"});
  expect(refusal(patched(good, "llama-bpe", "llama-xpe")), {"bad.gguf", "tokenizer.ggml.pre", "llama-xpe"});
  // rope_freqs whose divisors no llama3 scaling gives: the high-frequency pair's 1 made 3.
  const std::string freqs = "rope_freqs.weight";
  const std::size_t freqs_entry = good.find(freqs) + freqs.size();
  std::uint64_t offset = 0;
  std::memcpy(&offset, good.data() + freqs_entry + 4 + 8 + 4, 8);
  const GgufFile parsed = GgufFile::parse(good, "good.gguf");
  std::string freqs_bad = good;
  const float three = 3.0f;
  std::memcpy(freqs_bad.data() + parsed.data_start() + offset, &three, 4);
  expect(refusal(freqs_bad), {"bad.gguf", "rope_freqs"});
}

}  // namespace
}  // namespace heptapod
