// Model file save and load with full validation.
#include "heptapod/io/model_file.h"

#include <cmath>
#include <cstring>
#include <set>

#include "heptapod/core/error.h"

namespace heptapod {

namespace {
std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

// Checks that every tensor `specs` names is in the file with dtype F32 and the spec's shape (before any
// buffer of the config's size is allocated, so a header that claims a huge model costs nothing).
void check_tensors(const SafetensorsFile& file, const std::vector<ParamSpec>& specs, const std::string& prefix) {
  const std::string& where = file.where();
  for (const ParamSpec& spec : specs) {
    const std::string name = prefix + spec.name;
    const TensorEntry* e = file.find(name);
    require(e != nullptr, where + ": missing tensor \"" + name + "\"");
    require(e->dtype == DType::F32, where + ": tensor \"" + name + "\" has dtype " + dtype_name(e->dtype) +
                                        ", expected F32");
    require(e->shape == spec.shape, where + ": tensor \"" + name + "\" has shape " + shape_string(e->shape) +
                                        ", the config needs " + shape_string(spec.shape));
  }
}

// Every layer owns several tensors, so a file with fewer tensors than the config has layers lacks some.
// Checked before parameter_layout(), whose size grows with the layer counts the (untrusted) config claims.
void check_layer_count(const SafetensorsFile& file, const ModelConfig& c) {
  const std::size_t n = file.tensors().size();
  for (auto [layers, stack] : {std::pair{c.encoder_layers, "encoder"}, {c.decoder_layers, "decoder"}}) {
    if (static_cast<std::size_t>(layers) <= n) continue;
    // Some layer index <= n has no tensors at all; name the first such tensor.
    for (std::size_t i = 0;; ++i) {
      const std::string name = std::string(stack) + "/layers/" + std::to_string(i) + "/self_attn/q_proj/weight";
      require(file.find(name) != nullptr, file.where() + ": missing tensor \"" + name + "\" (the config has " +
                                              std::to_string(layers) + " " + stack + " layers)");
    }
  }
}
}  // namespace

void save_model(const std::string& path, const Transformer<float>& model,
                const std::map<std::string, std::string>& extra_metadata,
                const std::vector<ExtraTensor>& extra_tensors) {
  SafetensorsWriter w;
  for (const auto& [k, v] : extra_metadata) {
    require(k != "format" && k != "format_version" && k != "config", "save_model: reserved metadata key " + k);
    w.set_metadata(k, v);
  }
  w.set_metadata("format", kModelFormat);
  w.set_metadata("format_version", std::to_string(kModelFormatVersion));
  w.set_metadata("config", to_json(model.config()));
  const auto& params = model.parameters();
  for (std::size_t i = 0; i < params.specs().size(); ++i)
    w.add(params.specs()[i].name, DType::F32, params.specs()[i].shape, params.values() + params.offset(i));
  for (const ExtraTensor& e : extra_tensors) {
    require(e.name.rfind("extra/", 0) == 0, "save_model: extra tensor \"" + e.name + "\" must be named extra/...");
    w.add(e.name, e.dtype, e.shape, e.data);
  }
  w.write(path);
}

ModelConfig read_model_config(const SafetensorsFile& file) {
  const std::string& where = file.where();
  auto it = file.metadata().find("format");
  require(it != file.metadata().end() && it->second == kModelFormat,
          where + ": not a Heptapod model file (metadata \"format\" is not \"" + kModelFormat + "\")");
  const std::string& version = file.metadata("format_version");
  require(version == std::to_string(kModelFormatVersion),
          where + ": model format version " + version + " is not supported (this build reads version " +
              std::to_string(kModelFormatVersion) + ")");
  return model_config_from_json(file.metadata("config"), where);
}

template <typename T>
void load_parameters(const SafetensorsFile& file, ParameterStore<T>& params, const std::string& prefix) {
  const std::string& where = file.where();
  check_tensors(file, params.specs(), prefix);
  std::set<std::string> expected;
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    const std::string name = prefix + spec.name;
    expected.insert(name);
    const TensorEntry& entry = file.at(name);
    const unsigned char* src = file.data(entry);
    T* dst = params.values() + params.offset(i);
    for (std::int64_t k = 0; k < spec.numel(); ++k) {
      float v;
      std::memcpy(&v, src + 4 * k, 4);
      require(std::isfinite(v), where + ": tensor \"" + name + "\" holds a non-finite value at index " +
                                    std::to_string(k));
      dst[k] = static_cast<T>(v);
    }
    file.release(entry);  // copied: the file's pages need not stay in memory
  }
  for (const auto& e : file.tensors()) {
    if (e.name.rfind(prefix, 0) != 0 || e.name.rfind("extra/", 0) == 0) continue;
    require(expected.count(e.name) > 0, where + ": unexpected tensor \"" + e.name + "\" (not part of this config)");
  }
}

std::unique_ptr<Transformer<float>> load_model(const SafetensorsFile& file) {
  const ModelConfig config = read_model_config(file);
  check_layer_count(file, config);
  check_tensors(file, parameter_layout(config), "");
  auto model = std::make_unique<Transformer<float>>(config);
  load_parameters(file, model->parameters());
  return model;
}

std::unique_ptr<Transformer<float>> load_model(const std::string& path) {
  return load_model(SafetensorsFile::read(path));
}

template void load_parameters<float>(const SafetensorsFile&, ParameterStore<float>&, const std::string&);
template void load_parameters<double>(const SafetensorsFile&, ParameterStore<double>&, const std::string&);

}  // namespace heptapod
