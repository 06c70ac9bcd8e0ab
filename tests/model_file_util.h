// Helpers shared by the model-file tests: models with distinct parameters, and files taken apart tensor by
// tensor and rebuilt (to damage one piece of a valid file).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/core/error.h"
#include "heptapod/io/safetensors.h"
#include "heptapod/model/batch.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
#include "test_process.h"
#include "test_util.h"

namespace heptapod::test {

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// A model whose every parameter is distinct from its neighbours (initialised, then perturbed so that zero
// biases and unit gains are not left at round values).
inline std::unique_ptr<Transformer<float>> make_model(const ModelConfig& config, unsigned seed) {
  auto model = std::make_unique<Transformer<float>>(config);
  initialize_parameters(model->parameters(), config, seed);
  std::vector<float> noise(model->parameters().size());
  test::fill_uniform(noise, seed + 17, -0.05, 0.05);
  for (std::size_t i = 0; i < noise.size(); ++i) model->parameters().values()[i] += noise[i];
  return model;
}

// The logits (B*T, V) of a fixed three-sentence batch with token ids valid for any vocabulary of 4 or more; a
// decoder-only model reads the targets alone, and an encoder-only model gives its encoder output (B*S, C).
inline std::vector<float> logits_of(Transformer<float>& model) {
  const ModelConfig& c = model.config();
  const int v = !c.has_encoder() ? c.tgt_vocab_size : !c.has_decoder() ? c.src_vocab_size
                                                                       : std::min(c.src_vocab_size, c.tgt_vocab_size);
  auto tok = [&](int k) { return 3 + k % (v - 3); };
  std::vector<std::vector<int>> sources = {{tok(0), tok(1), tok(2), tok(3)}, {tok(4)}, {tok(5), tok(6)}};
  Arena arena;
  if (!c.has_decoder()) {
    const PaddedSources padded = pad_sources(sources, c);
    const int B = static_cast<int>(sources.size());
    const float* y = model.encode(padded.tokens.data(), B, padded.S, padded.lengths.data(), arena);
    return std::vector<float>(y, y + static_cast<std::size_t>(B) * padded.S * c.d_model);
  }
  if (!c.has_encoder()) sources = {{}, {}, {}};
  const Batch batch =
      make_batch(sources, {{tok(7), tok(8)}, {tok(9), tok(10), tok(11), tok(12), tok(13)}, {tok(14)}}, c);
  const float* l = model.logits(batch, arena);
  return std::vector<float>(l, l + static_cast<std::size_t>(batch.B) * batch.T * c.tgt_vocab_size);
}

// One tensor of a file, for rebuilding files tensor by tensor.
struct Entry {
  std::string name;
  DType dtype;
  std::vector<std::int64_t> shape;
  std::string bytes;
};

struct Contents {
  std::map<std::string, std::string> metadata;
  std::vector<Entry> tensors;  // in data order
};

inline Contents contents(const std::string& bytes) {
  const SafetensorsFile f = SafetensorsFile::parse(bytes, "valid");
  Contents c;
  c.metadata = f.metadata();
  for (const auto& e : f.tensors())
    c.tensors.push_back(
        {e.name, e.dtype, e.shape, std::string(reinterpret_cast<const char*>(f.data(e)), e.end - e.begin)});
  return c;
}

inline std::string rebuild(const Contents& c) {
  SafetensorsWriter w;
  for (const auto& [k, v] : c.metadata) w.set_metadata(k, v);
  for (const auto& e : c.tensors) w.add(e.name, e.dtype, e.shape, e.bytes.data());
  return w.serialize();
}

inline Entry* find_entry(Contents& c, const std::string& name) {
  for (auto& e : c.tensors)
    if (e.name == name) return &e;
  return nullptr;
}

// The name damaged images are parsed under, so that messages can be checked to name the file.
inline constexpr const char* kDamagedWhere = "damaged.htp";

// The error load(file) raises for these bytes (parsed as kDamagedWhere), or "<loaded>". Any exception other
// than Error escapes and fails the test.
template <typename Load>
std::string load_error_of(const std::string& bytes, Load&& load) {
  try {
    load(SafetensorsFile::parse(bytes, kDamagedWhere));
  } catch (const Error& e) {
    return e.what();
  }
  return "<loaded>";
}

// That error exists, names the file and holds every one of `parts`.
template <typename Load>
void expect_load_error_of(const std::string& bytes, std::initializer_list<std::string> parts, Load&& load) {
  const std::string message = load_error_of(bytes, load);
  EXPECT_NE(message, "<loaded>");
  EXPECT_HAS_SUBSTR(message, kDamagedWhere);
  for (const auto& p : parts) EXPECT_HAS_SUBSTR(message, p);
}

}  // namespace heptapod::test
