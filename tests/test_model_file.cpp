// Model files: save/load round trips, damaged files (every kind of corruption is an Error naming the
// problem, never a crash), atomic writes, and the `heptapod convert` command end to end.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "model_file_util.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;
using test::quoted;
using test::run_heptapod;
using test::TempDir;
using test::Contents;
using test::contents;
using test::Entry;
using test::find_entry;
using test::logits_of;
using test::make_model;
using test::rebuild;
using test::write_bytes;

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

// The bytes save_model writes, built in memory the same way.
std::string serialize_model(const Transformer<float>& model, const std::map<std::string, std::string>& extra = {}) {
  SafetensorsWriter w;
  for (const auto& [k, v] : extra) w.set_metadata(k, v);
  w.set_metadata("format", kModelFormat);
  w.set_metadata("format_version", std::to_string(kModelFormatVersion));
  w.set_metadata("config", to_json(model.config()));
  const auto& p = model.parameters();
  for (std::size_t i = 0; i < p.specs().size(); ++i)
    w.add(p.specs()[i].name, DType::F32, p.specs()[i].shape, p.values() + p.offset(i));
  return w.serialize();
}

// A serialized file split into its header (as JSON, order kept) and data section, and put back together.
struct Image {
  ordered_json header;
  std::string data;
};

std::uint64_t header_length(const std::string& bytes) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  return n;
}

void set_header_length(std::string& bytes, std::uint64_t n) {
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((n >> (8 * i)) & 0xff);
}

Image split(const std::string& bytes) {
  const std::uint64_t n = header_length(bytes);
  Image im;
  im.header = ordered_json::parse(bytes.substr(8, n));
  im.data = bytes.substr(8 + n);
  return im;
}

std::string assemble(const std::string& header_text, const std::string& data) {
  std::string text = header_text;
  while (text.size() % 8 != 0) text.push_back(' ');
  std::string out(8, '\0');
  set_header_length(out, text.size());
  return out + text + data;
}

std::string join(const Image& im) { return assemble(im.header.dump(), im.data); }

constexpr const char* kWhere = test::kDamagedWhere;
std::string load_error(const std::string& bytes) {
  return test::load_error_of(bytes, [](const SafetensorsFile& f) { load_model(f); });
}
void expect_load_error(const std::string& bytes, std::initializer_list<std::string> parts) {
  test::expect_load_error_of(bytes, parts, [](const SafetensorsFile& f) { load_model(f); });
}

// ---------------------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------------------

struct RoundTripCase {
  std::string name;
  std::function<void(ModelConfig&)> edit;
};

// Test logs show the case's name instead of its bytes.
void PrintTo(const RoundTripCase& c, std::ostream* os) { *os << c.name; }

ModelConfig tiny_variant(const RoundTripCase& rc) {
  ModelConfig c = model_preset("tiny");
  rc.edit(c);
  return c;
}

class ModelFileRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(ModelFileRoundTrip, SaveLoadIsBitExact) {
  const ModelConfig config = tiny_variant(GetParam());
  auto model = make_model(config, 7);
  TempDir dir;
  const std::string path = dir.file("model.htp");
  save_model(path, *model, {{"note", "round trip"}});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.htp"});  // no temp file left behind
  EXPECT_EQ(read_file(path), serialize_model(*model, {{"note", "round trip"}}));

  auto back = load_model(path);
  EXPECT_EQ(to_json(back->config()), to_json(model->config()));
  const auto& a = model->parameters();
  const auto& b = back->parameters();
  ASSERT_EQ(a.specs().size(), b.specs().size());
  for (std::size_t i = 0; i < a.specs().size(); ++i) {
    EXPECT_EQ(a.specs()[i].name, b.specs()[i].name);
    EXPECT_EQ(a.specs()[i].shape, b.specs()[i].shape);
    EXPECT_EQ(a.offset(i), b.offset(i));
  }
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.values(), b.values(), a.size() * sizeof(float)), 0) << "parameters differ";

  const std::vector<float> la = logits_of(*model), lb = logits_of(*back);
  ASSERT_EQ(la.size(), lb.size());
  EXPECT_EQ(std::memcmp(la.data(), lb.data(), la.size() * sizeof(float)), 0) << "logits differ";
  for (float x : la) ASSERT_TRUE(std::isfinite(x));

  // Metadata survives, and saving the loaded model reproduces the file byte for byte.
  const SafetensorsFile f = SafetensorsFile::read(path);
  EXPECT_EQ(f.metadata("note"), "round trip");
  EXPECT_EQ(to_json(read_model_config(f)), to_json(config));
  save_model(dir.file("again.htp"), *back, {{"note", "round trip"}});
  EXPECT_EQ(read_file(dir.file("again.htp")), read_file(path));
}

INSTANTIATE_TEST_SUITE_P(ModelFile, ModelFileRoundTrip,
                         ::testing::Values(RoundTripCase{"tiny", [](ModelConfig&) {}},
                                           RoundTripCase{"pre_norm",
                                                         [](ModelConfig& c) { c.norm = NormPosition::Pre; }},
                                           RoundTripCase{"tie_none_output_bias",
                                                         [](ModelConfig& c) {
                                                           c.tie_embeddings = EmbeddingTying::None;
                                                           c.output_bias = true;
                                                           c.src_vocab_size = 50;
                                                           c.tgt_vocab_size = 70;
                                                         }},
                                           RoundTripCase{"final_norm", [](ModelConfig& c) { c.final_norm = true; }},
                                           RoundTripCase{"target_output_odd_sizes",
                                                         [](ModelConfig& c) {
                                                           c.tie_embeddings = EmbeddingTying::TargetOutput;
                                                           c.src_vocab_size = 40;
                                                           c.tgt_vocab_size = 33;
                                                           c.d_model = 48;
                                                           c.n_heads = 3;
                                                           c.d_ff = 80;
                                                           c.encoder_layers = 1;
                                                           c.decoder_layers = 3;
                                                           c.dropout = 0.2f;
                                                           c.layer_norm_eps = 1e-6f;
                                                           c.pad_id = 2;
                                                           c.bos_id = 0;
                                                           c.eos_id = 1;
                                                         }},
                                           RoundTripCase{"decoder_only",
                                                         [](ModelConfig& c) {
                                                           c = one_stack_config(c, Architecture::DecoderOnly, 45);
                                                           c.decoder_layers = 3;
                                                         }},
                                           RoundTripCase{"decoder_only_pre_norm_untied",
                                                         [](ModelConfig& c) {
                                                           c.norm = NormPosition::Pre;
                                                           c.tie_embeddings = EmbeddingTying::None;
                                                           c.output_bias = true;
                                                           c = one_stack_config(c, Architecture::DecoderOnly, 30);
                                                         }},
                                           RoundTripCase{"encoder_only",
                                                         [](ModelConfig& c) {
                                                           c.final_norm = true;
                                                           c = one_stack_config(c, Architecture::EncoderOnly, 37);
                                                         }}),
                         [](const ::testing::TestParamInfo<RoundTripCase>& info) { return info.param.name; });

TEST(ModelFile, ReservedMetadataKeysAreRejected) {
  auto model = make_model(model_preset("tiny"), 1);
  TempDir dir;
  for (const char* key : {"format", "format_version", "config"}) {
    try {
      save_model(dir.file("m.htp"), *model, {{key, "x"}});
      ADD_FAILURE() << "no error for reserved key " << key;
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(e.what(), key);
    }
  }
  EXPECT_TRUE(dir.entries().empty());
}

// ---------------------------------------------------------------------------------------------------------
// Damaged files
// ---------------------------------------------------------------------------------------------------------

// A small model with every kind of tensor: untied embeddings, output bias, final norms.
ModelConfig damage_config() {
  ModelConfig c = model_preset("tiny");
  c.src_vocab_size = 11;
  c.tgt_vocab_size = 13;
  c.d_model = 8;
  c.n_heads = 2;
  c.d_ff = 12;
  c.encoder_layers = 1;
  c.decoder_layers = 2;
  c.tie_embeddings = EmbeddingTying::None;
  c.output_bias = true;
  c.final_norm = true;
  return c;
}

const std::string& valid_bytes() {
  static const std::string bytes = serialize_model(*make_model(damage_config(), 3));
  return bytes;
}

std::size_t data_start() { return 8 + header_length(valid_bytes()); }

// Rewrites the config JSON inside the metadata.
std::string with_config(const std::function<void(json&)>& edit) {
  Image im = split(valid_bytes());
  json config = json::parse(im.header["__metadata__"]["config"].get<std::string>());
  edit(config);
  im.header["__metadata__"]["config"] = config.dump();
  return join(im);
}

std::string with_header(const std::function<void(ordered_json&)>& edit) {
  Image im = split(valid_bytes());
  edit(im.header);
  return join(im);
}

std::string with_contents(const std::function<void(Contents&)>& edit) {
  Contents c = contents(valid_bytes());
  edit(c);
  return rebuild(c);
}

// The name of the tensor stored last in the data section, and first.
std::string last_tensor() { return contents(valid_bytes()).tensors.back().name; }

TEST(ModelFileDamage, ValidFileLoads) {
  EXPECT_EQ(load_error(valid_bytes()), "<loaded>");
  const SafetensorsFile f = SafetensorsFile::parse(valid_bytes(), "valid");
  auto loaded = load_model(f);
  auto original = make_model(damage_config(), 3);
  ASSERT_EQ(loaded->parameters().size(), original->parameters().size());
  EXPECT_EQ(std::memcmp(loaded->parameters().values(), original->parameters().values(),
                        original->parameters().size() * sizeof(float)),
            0);
  // The in-memory image is exactly what save_model writes.
  TempDir dir;
  save_model(dir.file("m.htp"), *original);
  EXPECT_EQ(read_file(dir.file("m.htp")), valid_bytes());
  // The editing helpers reproduce a loadable file when they change nothing.
  EXPECT_EQ(load_error(join(split(valid_bytes()))), "<loaded>");
  EXPECT_EQ(load_error(rebuild(contents(valid_bytes()))), "<loaded>");
}

TEST(ModelFileDamage, TruncatedAnywhere) {
  const std::string& valid = valid_bytes();
  const std::size_t header_end = data_start();
  std::vector<std::size_t> cuts;
  for (std::size_t i = 0; i < 64; ++i) cuts.push_back(i);
  for (std::size_t i = 64; i < header_end; i += 97) cuts.push_back(i);  // through the header
  for (std::size_t c : {header_end / 2, header_end - 1, header_end, header_end + 1, header_end + 4}) cuts.push_back(c);
  for (std::size_t i = header_end; i < valid.size(); i += 131) cuts.push_back(i);  // through the data
  for (std::size_t c : {valid.size() / 2, valid.size() - 4, valid.size() - 1}) cuts.push_back(c);
  for (const auto& e : contents(valid).tensors) {  // right at tensor boundaries
    const SafetensorsFile f = SafetensorsFile::parse(valid, "valid");
    cuts.push_back(header_end + f.at(e.name).begin);
  }
  for (std::size_t cut : cuts) {
    ASSERT_LT(cut, valid.size());
    SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(valid.size()));
    if (cut < 8)
      expect_load_error(valid.substr(0, cut), {"too short"});
    else
      expect_load_error(valid.substr(0, cut), {"truncated"});
  }
}

TEST(ModelFileDamage, TruncatedFileOnDisk) {
  TempDir dir;
  const std::string path = dir.file("cut.htp");
  for (std::size_t cut : {std::size_t{3}, std::size_t{40}, data_start() + 100}) {
    write_bytes(path, valid_bytes().substr(0, cut));
    try {
      load_model(path);
      ADD_FAILURE() << "no error for a file cut at " << cut;
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(e.what(), path);
      EXPECT_HAS_SUBSTR(e.what(), cut < 8 ? "too short" : "truncated");
    }
  }
  try {
    load_model(dir.file("does_not_exist.htp"));
    ADD_FAILURE() << "no error for a missing file";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), dir.file("does_not_exist.htp"));
  }
}

TEST(ModelFileDamage, MappedFileReleasedTensorsReadBackUnchanged) {
  TempDir dir;
  const std::string path = dir.file("mapped.htp");
  write_bytes(path, valid_bytes());
  const SafetensorsFile f = SafetensorsFile::read(path);
  for (const auto& e : f.tensors()) {
    const std::string before(reinterpret_cast<const char*>(f.data(e)), e.end - e.begin);
    f.release(e);  // the pages go; reading again brings them back from the file
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(f.data(e)), e.end - e.begin), before) << e.name;
  }
  try {
    SafetensorsFile::read(dir.path().string());
    ADD_FAILURE() << "no error for a directory";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), "not a regular file");
  }
}

// A model file cut short while it is mapped (another program truncating or rewriting it in place) would kill
// the process with SIGBUS when the loader touched its lost pages; it must be an Error naming the file.
TEST(ModelFileDamage, FileTruncatedWhileMappedIsAnErrorNotASignal) {
  TempDir dir;
  const std::string path = dir.file("shrinking.htp");
  const std::size_t cut = data_start() + 64;
  ASSERT_GT(valid_bytes().size(), (cut / 4096 + 2) * 4096) << "the model must reach whole pages past the cut";
  for (const bool inference : {false, true}) {
    write_bytes(path, valid_bytes());
    const SafetensorsFile f = SafetensorsFile::read(path);
    fs::resize_file(path, cut);
    try {
      if (inference)
        load_inference_model(f, InferencePrecision{ComputeType::Int8, false});
      else
        load_model(f);
      ADD_FAILURE() << "a model truncated while mapped loaded";
    } catch (const Error& e) {
      EXPECT_HAS_SUBSTR(e.what(), path);
      EXPECT_HAS_SUBSTR(e.what(), "shrank while it was being read");
    }
  }
  // A fresh map of the file rewritten whole is intact again.
  write_bytes(path, valid_bytes());
  EXPECT_NE(load_model(path), nullptr);
}

TEST(ModelFileDamage, MappedFileMarksPagesLostToTruncation) {
  TempDir dir;
  const std::string path = dir.file("bytes.bin");
  write_bytes(path, std::string(5 * 4096, 'x'));
  const auto kept = MappedFile::open(path);
  const auto shrinking = MappedFile::open(path);
  fs::resize_file(path, 4096);
  EXPECT_TRUE(shrinking->intact());
  const std::string_view bytes = shrinking->bytes();
  EXPECT_EQ(bytes[100], 'x');             // still in the file
  EXPECT_EQ(bytes[3 * 4096 + 7], '\0');   // lost: a zero page instead of SIGBUS
  EXPECT_FALSE(shrinking->intact());
  EXPECT_TRUE(kept->intact());            // only the map that touched a lost page is marked
  try {
    shrinking->check_intact();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), path);
  }
  // More maps at once than the guard records: the rest are read into memory, with the same bytes.
  write_bytes(path, std::string(3 * 4096, 'y'));
  std::vector<std::shared_ptr<const MappedFile>> many;
  for (int i = 0; i < 300; ++i) many.push_back(MappedFile::open(path));
  for (const auto& m : many) EXPECT_EQ(m->bytes(), std::string(3 * 4096, 'y'));
}

TEST(ModelFileDamage, HeaderLengthField) {
  const std::string& valid = valid_bytes();
  const std::uint64_t n = header_length(valid);
  auto with_length = [&](std::uint64_t len) {
    std::string b = valid;
    set_header_length(b, len);
    return b;
  };
  for (std::uint64_t absurd : {std::numeric_limits<std::uint64_t>::max(), std::uint64_t{1} << 63,
                               std::uint64_t{1} << 40, (std::uint64_t{100} << 20) + 1}) {
    SCOPED_TRACE(absurd);
    expect_load_error(with_length(absurd), {"header length", "implausible"});
  }
  expect_load_error(with_length(valid.size()), {"truncated"});
  expect_load_error(with_length(valid.size() - 7), {"truncated"});
  expect_load_error(with_length(0), {"not valid JSON"});
  expect_load_error(with_length(n - 8), {"not valid JSON"});
  expect_load_error(with_length(n + 8), {});  // JSON followed by binary: any Error will do
}

TEST(ModelFileDamage, HeaderNotJson) {
  const std::string data = split(valid_bytes()).data;
  for (const std::string text :
       {"this is not JSON", "{\"__metadata__\": {", "{\"a\xff\": 1}", "", "{}}", "{\"a\": 1,}"}) {
    SCOPED_TRACE(text);
    expect_load_error(assemble(text, data), {"not valid JSON"});
  }
}

TEST(ModelFileDamage, HeaderNotAnObject) {
  const std::string data = split(valid_bytes()).data;
  for (const std::string text : {"[1, 2, 3]", "\"model\"", "42", "null", "true"}) {
    SCOPED_TRACE(text);
    expect_load_error(assemble(text, data), {"not a JSON object"});
  }
}

TEST(ModelFileDamage, MalformedTensorEntries) {
  const std::string name = last_tensor();
  struct Case {
    std::function<void(ordered_json&)> edit;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {[&](ordered_json& h) { h[name] = 5; }, {name, "is not an object"}},
      {[&](ordered_json& h) { h[name].erase("dtype"); }, {name, "has no dtype"}},
      {[&](ordered_json& h) { h[name]["dtype"] = 32; }, {name, "has no dtype"}},
      {[&](ordered_json& h) { h[name]["dtype"] = "U16"; }, {name, "unsupported dtype \"U16\""}},
      {[&](ordered_json& h) { h[name].erase("shape"); }, {name, "has no shape"}},
      {[&](ordered_json& h) { h[name]["shape"] = ordered_json::array({-8}); },
       {name, "negative or non-integer dimension"}},
      {[&](ordered_json& h) { h[name]["shape"] = ordered_json::array({8.5}); },
       {name, "negative or non-integer dimension"}},
      {[&](ordered_json& h) {
         h[name]["shape"] = ordered_json::array({1u << 30, 1u << 30, 1u << 30});
       },
       {name, "implausibly large"}},
      {[&](ordered_json& h) { h[name].erase("data_offsets"); }, {name, "has no data_offsets"}},
      {[&](ordered_json& h) { h[name]["data_offsets"].push_back(0); }, {name, "has no data_offsets"}},
      {[&](ordered_json& h) { h[name]["data_offsets"][0] = -4; }, {name, "invalid data_offsets"}},
      {[&](ordered_json& h) { h[name]["data_offsets"][1] = "end"; }, {name, "invalid data_offsets"}},
      {[&](ordered_json& h) { h["__metadata__"] = "none"; }, {"__metadata__ is not an object"}},
      {[&](ordered_json& h) { h["__metadata__"]["format_version"] = 1; }, {"\"format_version\" is not a string"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const std::string bytes = with_header(cases[i].edit);
    const std::string message = load_error(bytes);
    EXPECT_HAS_SUBSTR(message, kWhere);
    for (const auto& p : cases[i].parts) EXPECT_HAS_SUBSTR(message, p);
  }
}

TEST(ModelFileDamage, FormatAndVersion) {
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"]["format"] = "pytorch"; }),
                    {"not a Heptapod model file", "format"});
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"].erase("format"); }),
                    {"not a Heptapod model file"});
  expect_load_error(with_header([](ordered_json& h) { h.erase("__metadata__"); }), {"not a Heptapod model file"});
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"]["format_version"] = "3"; }),
                    {"version 3 is not supported", "versions 1 and 2"});
  // Version 2 (low precision) names its weights' type.
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"]["format_version"] = "2"; }), {"weights"});
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"]["format_version"] = "1.0"; }),
                    {"version 1.0 is not supported"});
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"].erase("format_version"); }),
                    {"\"format_version\""});
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"].erase("config"); }), {"\"config\""});
  // Extra metadata is allowed.
  EXPECT_EQ(load_error(with_header([](ordered_json& h) { h["__metadata__"]["trained_steps"] = "1000"; })), "<loaded>");
}

// The file's encoder-decoder config as a decoder-only one: its decoder's vocabulary and depth as the one
// stack's.
void as_decoder_only(json& c) {
  c["architecture"] = "decoder-only";
  c["vocab_size"] = c["tgt_vocab_size"];
  c["layers"] = c["decoder_layers"];
  for (const char* k : {"src_vocab_size", "tgt_vocab_size", "encoder_layers", "decoder_layers"}) c.erase(k);
}

TEST(ModelFileDamage, ConfigFields) {
  struct Case {
    std::string label;
    std::function<void(json&)> edit;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"missing", [](json& c) { c.erase("d_ff"); }, {"missing field \"d_ff\""}},
      {"missing last", [](json& c) { c.erase("eos_id"); }, {"missing field \"eos_id\""}},
      {"unknown", [](json& c) { c["n_experts"] = 4; }, {"unknown field \"n_experts\""}},
      {"int as string", [](json& c) { c["d_model"] = "8"; }, {"\"d_model\" must be an integer"}},
      {"int as float", [](json& c) { c["n_heads"] = 2.5; }, {"\"n_heads\" must be an integer"}},
      {"int too large", [](json& c) { c["d_ff"] = 4294967308ull; }, {"\"d_ff\"", "out of range"}},
      {"int too small", [](json& c) { c["pad_id"] = -4294967296ll; }, {"\"pad_id\"", "out of range"}},
      {"float as string", [](json& c) { c["dropout"] = "0.1"; }, {"\"dropout\" must be a number"}},
      {"float too large", [](json& c) { c["layer_norm_eps"] = 1e300; }, {"\"layer_norm_eps\"", "out of range"}},
      {"bool as int", [](json& c) { c["final_norm"] = 1; }, {"\"final_norm\" must be true or false"}},
      {"string as bool", [](json& c) { c["norm"] = true; }, {"\"norm\" must be a string"}},
      {"bad norm", [](json& c) { c["norm"] = "sideways"; }, {"\"norm\" must be \"post\" or \"pre\""}},
      {"bad tie", [](json& c) { c["tie_embeddings"] = "some"; }, {"\"tie_embeddings\" must be"}},
      {"heads do not divide", [](json& c) { c["n_heads"] = 3; }, {"divisible by n_heads"}},
      {"tie all, vocab differs",
       [](json& c) { c["tie_embeddings"] = "all"; },
       {"tie_embeddings \"all\"", "src_vocab_size == tgt_vocab_size"}},
      {"negative d_ff", [](json& c) { c["d_ff"] = -12; }, {"d_ff must be positive"}},
      {"zero layers", [](json& c) { c["encoder_layers"] = 0; }, {"encoder_layers must be positive"}},
      {"negative vocab", [](json& c) { c["src_vocab_size"] = -11; }, {"src_vocab_size must be positive"}},
      {"dropout 1", [](json& c) { c["attention_dropout"] = 1.0; }, {"attention_dropout must be in [0, 1)"}},
      {"eps 0", [](json& c) { c["layer_norm_eps"] = 0.0; }, {"layer_norm_eps must be positive"}},
      {"eos outside vocab", [](json& c) { c["eos_id"] = 12; }, {"eos_id must be a valid token id"}},
      {"bad architecture", [](json& c) { c["architecture"] = "gpt"; }, {"architecture \"gpt\" is not one of"}},
      {"architecture as number", [](json& c) { c["architecture"] = 2; }, {"\"architecture\" must be a string"}},
      {"decoder-only with two stacks' fields",
       [](json& c) { c["architecture"] = "decoder-only"; },
       {"missing field \"vocab_size\""}},
      {"decoder-only with an encoder's field",
       [](json& c) {
         const json src_vocab = c["src_vocab_size"];
         as_decoder_only(c);
         c["src_vocab_size"] = src_vocab;
       },
       {"unknown field \"src_vocab_size\""}},
      {"decoder-only tied all",
       [](json& c) {
         as_decoder_only(c);
         c["tie_embeddings"] = "all";
       },
       {"a one-stack model has one"}},
      {"decoder-only without layers",
       [](json& c) {
         as_decoder_only(c);
         c["layers"] = 0;
       },
       {"layers must be positive"}},
      {"not an object",
       [](json& c) {
         c = json::array({1, 2});
       },
       {"model config is not a JSON object"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.label);
    const std::string message = load_error(with_config(c.edit));
    EXPECT_HAS_SUBSTR(message, kWhere);
    for (const auto& p : c.parts) EXPECT_HAS_SUBSTR(message, p);
  }
  expect_load_error(with_header([](ordered_json& h) { h["__metadata__"]["config"] = "{not json"; }),
                    {"model config is not a JSON object"});
}

TEST(ModelFileDamage, ConfigDisagreesWithTensors) {
  // Valid configs that the tensors do not match: named by the first tensor that does not fit.
  expect_load_error(with_config([](json& c) { c["d_ff"] = 16; }),
                    {"tensor \"encoder/layers/0/ffn/fc1/weight\" has shape (12, 8), the config needs (16, 8)"});
  expect_load_error(with_config([](json& c) { c["tie_embeddings"] = "target_output"; }),
                    {"unexpected tensor \"decoder/output_proj/weight\""});
  expect_load_error(with_config([](json& c) { c["output_bias"] = false; }),
                    {"unexpected tensor \"decoder/output_proj/bias\""});
  expect_load_error(with_config([](json& c) { c["decoder_layers"] = 3; }), {"missing tensor \"decoder/layers/2/"});
  expect_load_error(with_config([](json& c) { c["decoder_layers"] = 1; }), {"unexpected tensor \"decoder/layers/1/"});
  // Huge claims fail on the tensors without allocating the model they describe.
  expect_load_error(with_config([](json& c) { c["encoder_layers"] = 2147483647; }),
                    {"missing tensor \"encoder/layers/1/self_attn/q_proj/weight\""});
  expect_load_error(with_config([](json& c) { c["decoder_layers"] = 1000000000; }),
                    {"missing tensor \"decoder/layers/2/self_attn/q_proj/weight\""});
  expect_load_error(with_config([](json& c) {
                      c["d_model"] = 1 << 30;
                      c["d_ff"] = 1 << 30;
                    }),
                    {"has shape", "the config needs"});
  expect_load_error(with_config([](json& c) { c["src_vocab_size"] = c["tgt_vocab_size"] = 2000000000; }),
                    {"has shape", "the config needs (2000000000, 8)"});
}

TEST(ModelFileDamage, MissingTensor) {
  for (const std::string name : {"decoder/layers/1/cross_attn/v_proj/bias", "encoder/embedding/weight",
                                 "decoder/final_norm/weight", "decoder/output_proj/bias"}) {
    SCOPED_TRACE(name);
    const std::string bytes = with_contents([&](Contents& c) {
      auto it = std::find_if(c.tensors.begin(), c.tensors.end(), [&](const Entry& e) { return e.name == name; });
      ASSERT_NE(it, c.tensors.end());
      c.tensors.erase(it);
    });
    expect_load_error(bytes, {"missing tensor \"" + name + "\""});
  }
}

TEST(ModelFileDamage, UnexpectedTensor) {
  for (const std::string name :
       {"encoder/layers/0/bogus/weight", "decoder/layers/2/ffn/fc1/weight", "shared_embedding/weight", "weights"}) {
    SCOPED_TRACE(name);
    const std::string bytes = with_contents([&](Contents& c) {
      c.tensors.push_back({name, DType::F32, {2}, std::string(8, '\0')});
    });
    expect_load_error(bytes, {"unexpected tensor \"" + name + "\""});
  }
}

TEST(ModelFileDamage, ExtraTensorsAreIgnored) {
  const std::string bytes = with_contents([](Contents& c) {
    c.tensors.push_back({"extra/src_vocab", DType::U8, {5}, "a\nbc\n"});
    c.tensors.insert(c.tensors.begin(), {"extra/ids", DType::I64, {2}, std::string(16, '\x01')});
    c.metadata["vocabulary"] = "extra/src_vocab";
  });
  EXPECT_EQ(load_error(bytes), "<loaded>");
  const SafetensorsFile f = SafetensorsFile::parse(bytes, "extra");
  auto model = load_model(f);
  auto original = make_model(damage_config(), 3);
  EXPECT_EQ(std::memcmp(model->parameters().values(), original->parameters().values(),
                        original->parameters().size() * sizeof(float)),
            0);
}

TEST(ModelFileDamage, WrongDtype) {
  const std::string name = "encoder/layers/0/ffn/fc1/bias";
  expect_load_error(with_contents([&](Contents& c) {
                      Entry* e = find_entry(c, name);
                      std::vector<double> wide(e->bytes.size() / 4, 0.5);
                      e->dtype = DType::F64;
                      e->bytes.assign(reinterpret_cast<const char*>(wide.data()), wide.size() * 8);
                    }),
                    {"tensor \"" + name + "\" has dtype F64, expected F32"});
  // Same byte size, different label.
  expect_load_error(with_header([&](ordered_json& h) { h[name]["dtype"] = "I32"; }),
                    {"tensor \"" + name + "\" has dtype I32, expected F32"});
  // Relabelled as U8 the span no longer matches.
  expect_load_error(with_header([&](ordered_json& h) { h[name]["dtype"] = "U8"; }),
                    {"tensor \"" + name + "\"", "holds 48 bytes but its shape and dtype need 12"});
}

TEST(ModelFileDamage, WrongShape) {
  const std::string fc1 = "encoder/layers/0/ffn/fc1/weight";
  expect_load_error(with_header([&](ordered_json& h) {
                      h[fc1]["shape"] = ordered_json::array({8, 12});
                    }),
                    {"tensor \"" + fc1 + "\" has shape (8, 12), the config needs (12, 8)"});
  expect_load_error(with_header([&](ordered_json& h) { h[fc1]["shape"] = ordered_json::array({96}); }),
                    {"tensor \"" + fc1 + "\" has shape (96), the config needs (12, 8)"});
  expect_load_error(with_header([&](ordered_json& h) {
                      h[fc1]["shape"] = ordered_json::array({1, 12, 8});
                    }),
                    {"has shape (1, 12, 8)"});
  const std::string emb = "decoder/embedding/weight";
  expect_load_error(with_contents([&](Contents& c) {
                      Entry* e = find_entry(c, emb);
                      e->shape = {12, 8};
                      e->bytes.resize(12 * 8 * 4);
                    }),
                    {"tensor \"" + emb + "\" has shape (12, 8), the config needs (13, 8)"});
}

TEST(ModelFileDamage, DataOffsets) {
  const Contents c = contents(valid_bytes());
  ASSERT_GE(c.tensors.size(), 3u);
  const std::string second = c.tensors[1].name, last = c.tensors.back().name;
  auto shift = [](ordered_json& h, const std::string& name, std::int64_t delta_begin, std::int64_t delta_end) {
    h[name]["data_offsets"][0] = h[name]["data_offsets"][0].get<std::int64_t>() + delta_begin;
    h[name]["data_offsets"][1] = h[name]["data_offsets"][1].get<std::int64_t>() + delta_end;
  };
  // Overlap: the second tensor starts 4 bytes inside the first.
  {
    Image im = split(valid_bytes());
    shift(im.header, second, -4, -4);
    expect_load_error(join(im), {"overlap or gap"});
  }
  // Two tensors claiming the same bytes.
  {
    Image im = split(valid_bytes());
    const std::string third = c.tensors[2].name;
    im.header[third]["data_offsets"] = im.header[second]["data_offsets"];
    im.header[third]["shape"] = im.header[second]["shape"];
    expect_load_error(join(im), {"overlap or gap"});
  }
  // Gap: the last tensor moved 4 bytes further, data padded to match.
  {
    Image im = split(valid_bytes());
    shift(im.header, last, 4, 4);
    im.data.insert(im.data.size() - (c.tensors.back().bytes.size()), 4, '\0');
    expect_load_error(join(im), {"tensor \"" + last + "\" starts at byte", "overlap or gap"});
  }
  // Gap at the very start.
  {
    Image im = split(valid_bytes());
    for (const auto& e : c.tensors) shift(im.header, e.name, 8, 8);
    im.data.insert(0, 8, '\0');
    expect_load_error(join(im), {"starts at byte 8 but the previous tensor ends at 0"});
  }
  // Out of bounds.
  {
    Image im = split(valid_bytes());
    shift(im.header, last, 1000, 1000);
    expect_load_error(join(im), {"tensor \"" + last + "\"", "fall outside the data section"});
  }
  {
    Image im = split(valid_bytes());
    im.header[last]["data_offsets"] =
        ordered_json::array({std::numeric_limits<std::uint64_t>::max() - 3, std::numeric_limits<std::uint64_t>::max()});
    expect_load_error(join(im), {"fall outside the data section"});
  }
  // begin > end.
  {
    Image im = split(valid_bytes());
    const ordered_json offsets = im.header[second]["data_offsets"];
    im.header[second]["data_offsets"] = ordered_json::array({offsets[1], offsets[0]});
    expect_load_error(join(im), {"tensor \"" + second + "\"", "fall outside the data section"});
  }
  // Span not matching the shape.
  {
    Image im = split(valid_bytes());
    shift(im.header, last, 0, -4);
    im.data.resize(im.data.size() - 4);
    expect_load_error(join(im), {"tensor \"" + last + "\" holds", "its shape and dtype need"});
  }
  {
    Image im = split(valid_bytes());
    shift(im.header, second, 0, 4);
    expect_load_error(join(im), {"tensor \"" + second + "\" holds", "its shape and dtype need"});
  }
}

TEST(ModelFileDamage, NonFiniteWeights) {
  const std::string name = "decoder/layers/1/ffn/fc2/weight";
  const float bad_values[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::signaling_NaN()};
  for (float bad : bad_values) {
    SCOPED_TRACE(bad);
    const std::string bytes =
        with_contents([&](Contents& c) { std::memcpy(find_entry(c, name)->bytes.data() + 4 * 5, &bad, 4); });
    expect_load_error(bytes, {"tensor \"" + name + "\" holds a non-finite value at index 5"});
  }
  // The last value of the last tensor in the file.
  std::string bytes = valid_bytes();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(bytes.data() + bytes.size() - 4, &nan, 4);
  expect_load_error(bytes, {"tensor \"" + last_tensor() + "\" holds a non-finite value"});
}

TEST(ModelFileDamage, TrailingGarbage) {
  for (const std::string& tail : {std::string(1, '\0'), std::string("xyz"), std::string(4096, '\x7f')}) {
    SCOPED_TRACE(tail.size());
    expect_load_error(valid_bytes() + tail, {std::to_string(tail.size()) + " unexpected bytes after the last tensor"});
  }
  TempDir dir;
  write_bytes(dir.file("tail.htp"), valid_bytes() + "garbage!");
  try {
    load_model(dir.file("tail.htp"));
    ADD_FAILURE() << "no error for trailing bytes";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), dir.file("tail.htp"));
    EXPECT_HAS_SUBSTR(e.what(), "unexpected bytes after the last tensor");
  }
}

// Seeded random damage: any outcome but a crash or a non-Error exception is acceptable.
struct Outcomes {
  int loaded = 0, rejected = 0;
};

void try_load(const std::string& bytes, Outcomes& out, const std::string& what) {
  try {
    const SafetensorsFile f = SafetensorsFile::parse(bytes, kWhere);
    auto model = load_model(f);
    ++out.loaded;
  } catch (const Error& e) {
    ++out.rejected;
    EXPECT_HAS_SUBSTR(e.what(), kWhere) << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": exception other than heptapod::Error: " << e.what();
  }
}

TEST(ModelFileDamage, RandomHeaderByteFlips) {
  const std::string& valid = valid_bytes();
  const std::size_t header_end = data_start();
  Outcomes out;
  for (unsigned seed = 0; seed < 400; ++seed) {
    std::mt19937 rng(seed);
    std::string bytes = valid;
    const int flips = 1 + static_cast<int>(rng() % 4);
    // One in eight also hits the length field; the rest stay in the JSON text.
    const std::size_t lo = seed % 8 == 0 ? 0 : 8;
    for (int k = 0; k < flips; ++k) {
      const std::size_t pos = lo + rng() % (header_end - lo);
      bytes[pos] = static_cast<char>(bytes[pos] ^ (1 + rng() % 255));
    }
    try_load(bytes, out, "seed " + std::to_string(seed));
  }
  EXPECT_EQ(out.loaded + out.rejected, 400);
  EXPECT_GT(out.rejected, 300);  // nearly every flip in the JSON is caught
}

TEST(ModelFileDamage, RandomDigitEdits) {
  // Replacing digits keeps the JSON valid and changes sizes, offsets and config numbers plausibly.
  const std::string& valid = valid_bytes();
  std::vector<std::size_t> digits;
  for (std::size_t i = 8; i < data_start(); ++i)
    if (valid[i] >= '0' && valid[i] <= '9') digits.push_back(i);
  ASSERT_FALSE(digits.empty());
  Outcomes out;
  for (unsigned seed = 0; seed < 300; ++seed) {
    std::mt19937 rng(1000 + seed);
    std::string bytes = valid;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) bytes[digits[rng() % digits.size()]] = static_cast<char>('0' + rng() % 10);
    try_load(bytes, out, "seed " + std::to_string(seed));
  }
  EXPECT_EQ(out.loaded + out.rejected, 300);
}

TEST(ModelFileDamage, RandomSplicesAnywhere) {
  const std::string& valid = valid_bytes();
  Outcomes out;
  for (unsigned seed = 0; seed < 200; ++seed) {
    std::mt19937 rng(5000 + seed);
    std::string bytes = valid;
    const std::size_t pos = rng() % bytes.size();
    switch (seed % 4) {
      case 0:
        bytes.erase(pos, 1 + rng() % 16);
        break;
      case 1:
        bytes.insert(pos, std::string(1 + rng() % 16, static_cast<char>(rng())));
        break;
      case 2:
        bytes[pos] = static_cast<char>(rng());
        break;  // anywhere, data included
      case 3:
        bytes = bytes.substr(0, pos) + bytes.substr(rng() % bytes.size());
        break;
    }
    try_load(bytes, out, "seed " + std::to_string(seed));
  }
  EXPECT_EQ(out.loaded + out.rejected, 200);
}

// ---------------------------------------------------------------------------------------------------------
// Atomic writes
// ---------------------------------------------------------------------------------------------------------

void write_text(const std::string& path, const std::string& text) {
  write_file_atomic(path, [&](std::ostream& out) { out << text; });
}

TEST(ModelFileAtomicWrite, ReplacesExistingFileAllAtOnce) {
  TempDir dir;
  const std::string path = dir.file("target.bin");
  write_text(path, "old content");
  EXPECT_EQ(read_file(path), "old content");
  bool checked = false;
  write_file_atomic(path, [&](std::ostream& out) {
    out << "new content, first half";
    out.flush();
    // While the new content is being written the target still holds the old content in full.
    EXPECT_EQ(read_file(path), "old content");
    out << ", second half";
    checked = true;
  });
  EXPECT_TRUE(checked);
  EXPECT_EQ(read_file(path), "new content, first half, second half");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"target.bin"});
}

TEST(ModelFileAtomicWrite, FailingWriterLeavesOldFileAndNoTempFile) {
  TempDir dir;
  const std::string path = dir.file("target.bin");
  write_text(path, "old content");
  EXPECT_THROW(write_file_atomic(path,
                                 [](std::ostream& out) {
                                   out << "partial new content";
                                   out.flush();
                                   throw std::runtime_error("writer failed");
                                 }),
               std::runtime_error);
  EXPECT_EQ(read_file(path), "old content");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"target.bin"});

  try {
    write_file_atomic(path, [](std::ostream& out) {
      out << "x";
      throw Error("serialisation failed");
    });
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), "serialisation failed");
  }
  EXPECT_EQ(read_file(path), "old content");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"target.bin"});

  // A failing writer on a new path leaves nothing at all.
  EXPECT_THROW(write_file_atomic(dir.file("new.bin"), [](std::ostream&) { throw std::runtime_error("no"); }),
               std::runtime_error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"target.bin"});
}

// A device or pipe (`-o /dev/null`, `-o /dev/stdout`) is written as it is: renaming a temporary file over it
// would replace it with a regular file. A pipe stands in for the device, so a failure cannot damage the machine.
TEST(ModelFileAtomicWrite, PipeIsWrittenInPlaceNotReplaced) {
  TempDir dir;
  const std::string pipe = dir.file("pipe");
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  // The read end opened first (without waiting for a writer), so the write neither blocks nor, replacing the
  // pipe, leaves a reader waiting: the few bytes wait in the pipe's buffer.
  const int fd = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  write_text(pipe, "through the pipe");
  char buffer[64] = {};
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
  EXPECT_EQ(std::filesystem::status(pipe).type(), std::filesystem::file_type::fifo);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"pipe"});
}

TEST(ModelFileAtomicWrite, MissingDirectoryIsAnErrorNamingThePath) {
  TempDir dir;
  const std::string path = dir.file("no_such_dir/model.htp");
  try {
    write_text(path, "content");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), path);
  }
  auto model = make_model(model_preset("tiny"), 2);
  try {
    save_model(path, *model);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_HAS_SUBSTR(e.what(), path);
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(ModelFileAtomicWrite, SaveModelOverAnotherModel) {
  TempDir dir;
  const std::string path = dir.file("model.htp");
  auto first = make_model(model_preset("tiny"), 1);
  save_model(path, *first);
  ModelConfig c = model_preset("tiny");
  c.norm = NormPosition::Pre;
  auto second = make_model(c, 2);
  save_model(path, *second);
  auto back = load_model(path);
  EXPECT_EQ(to_json(back->config()), to_json(c));
  EXPECT_EQ(std::memcmp(back->parameters().values(), second->parameters().values(),
                        second->parameters().size() * sizeof(float)),
            0);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.htp"});
}

// ---------------------------------------------------------------------------------------------------------
// heptapod convert
// ---------------------------------------------------------------------------------------------------------

TEST(ModelFileConvert, NnTransformerStateDictMatchesPyTorch) {
  TempDir dir;
  const std::string input = test::fixture("torch_nn_transformer.safetensors");
  const std::string output = dir.file("m.htp");
  std::string log;
  const int rc =
      run_heptapod("convert " + quoted(input) + " --from nn-transformer --norm post --heads 4 -o " + quoted(output), dir, log);
  ASSERT_EQ(rc, 0) << log;
  EXPECT_HAS_SUBSTR(log, output);

  auto model = load_model(output);
  const ModelConfig& c = model->config();
  EXPECT_EQ(c.n_heads, 4);
  EXPECT_EQ(c.d_model, 32);
  EXPECT_EQ(c.encoder_layers, 2);
  EXPECT_EQ(c.decoder_layers, 2);
  EXPECT_EQ(c.src_vocab_size, 19);
  EXPECT_EQ(c.tgt_vocab_size, 23);
  EXPECT_EQ(c.norm, NormPosition::Post);
  EXPECT_TRUE(c.final_norm);
  EXPECT_EQ(c.tie_embeddings, EmbeddingTying::None);
  EXPECT_TRUE(c.output_bias);

  const SafetensorsFile f = SafetensorsFile::read(input);
  const Batch batch = test::fixture_batch(f);
  Arena arena;
  const float* logits = model->logits(batch, arena);
  const std::vector<float> expect = test::expected_logits(f, batch);
  ASSERT_EQ(expect.size(), static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size);
  EXPECT_LT(test::max_rel_error(logits, expect.data(), expect.size()), 1e-5);
}

TEST(ModelFileConvert, MissingInputFails) {
  TempDir dir;
  const std::string input = dir.file("no_such_state_dict.safetensors");
  const std::string output = dir.file("m.htp");
  std::string log;
  const int rc =
      run_heptapod("convert " + quoted(input) + " --from nn-transformer --norm post --heads 4 -o " + quoted(output), dir, log);
  EXPECT_NE(rc, 0) << log;
  EXPECT_HAS_SUBSTR(log, input);
  EXPECT_FALSE(fs::exists(output));
}

TEST(ModelFileConvert, ModelFileIsNotAStateDict) {
  // A Heptapod model file given to the nn-transformer importer: a clear error, not a crash.
  TempDir dir;
  const std::string input = dir.file("model.htp");
  write_bytes(input, valid_bytes());
  std::string log;
  const int rc = run_heptapod("convert " + quoted(input) + " --heads 2 --norm post -o " + quoted(dir.file("m.htp")), dir, log);
  EXPECT_EQ(rc, 1) << log;
  EXPECT_HAS_SUBSTR(log, input);
  EXPECT_HAS_SUBSTR(log, "missing tensor");
}

}  // namespace
}  // namespace heptapod
