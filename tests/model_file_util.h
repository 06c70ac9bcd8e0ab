// Helpers shared by the model-file tests: models with distinct parameters, and files taken apart tensor by
// tensor and rebuilt (to damage one piece of a valid file).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/initialize.h"
#include "heptapod/model/transformer.h"
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

}  // namespace heptapod::test
