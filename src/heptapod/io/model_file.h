// Saving and loading Heptapod model files: config + named F32 parameters + format version, in the
// safetensors layout described in docs/model-format.md.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "heptapod/io/safetensors.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

inline constexpr const char* kModelFormat = "heptapod-model";
inline constexpr int kModelFormatVersion = 1;

// Tensors stored beside the parameters; their names must start with "extra/" (vocabularies, optimizer state).
struct ExtraTensor {
  std::string name;
  DType dtype = DType::U8;
  std::vector<std::int64_t> shape;
  const void* data = nullptr;
};

// Writes the model atomically. extra_metadata keys must not clash with format, format_version or config.
void save_model(const std::string& path, const Transformer<float>& model,
                const std::map<std::string, std::string>& extra_metadata = {},
                const std::vector<ExtraTensor>& extra_tensors = {});

// Reads, validates and builds the model; any problem is an Error naming the file and the field or tensor.
std::unique_ptr<Transformer<float>> load_model(const std::string& path);
std::unique_ptr<Transformer<float>> load_model(const SafetensorsFile& file);

// The config a model file carries (validates format and version first).
ModelConfig read_model_config(const SafetensorsFile& file);

// Copies tensors named prefix + parameter name into params, checking that exactly the expected set is
// present (extra tensors outside `prefix` and under "extra/" are ignored), with F32 dtype, the right shapes
// and finite values.
template <typename T>
void load_parameters(const SafetensorsFile& file, ParameterStore<T>& params, const std::string& prefix = "");

}  // namespace heptapod
