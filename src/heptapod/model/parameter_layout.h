// The list of named parameters a config implies, in storage order (docs/model-format.md names them).
// The model, the model file and the importers all take names and shapes from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace heptapod {

struct ModelConfig;

struct ParamSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  enum class Init { Xavier, Embedding, Zero, One } init = Init::Zero;
  std::int64_t numel() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

std::vector<ParamSpec> parameter_layout(const ModelConfig& config);

// Names of the embedding matrices each role reads (the same name when tied).
std::string source_embedding_name(const ModelConfig& config);
std::string target_embedding_name(const ModelConfig& config);
std::string output_projection_name(const ModelConfig& config);

}  // namespace heptapod
