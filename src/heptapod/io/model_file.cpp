// Model file save and load with full validation.
#include "heptapod/io/model_file.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include <nlohmann/json.hpp>

#include "heptapod/core/error.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/kernels/block_weights.h"
#include "heptapod/kernels/low_precision_weights.h"
#include "heptapod/model/parameter_layout.h"

namespace heptapod {

namespace {
std::string scale_name(const std::string& name) { return name + "_scale"; }

// Checks the per-row scales of int8 tensor `name` (out rows): "<name>_scale", F32 (out), finite, >= 0.
void check_scales(const SafetensorsFile& file, const std::string& name, std::int64_t out) {
  const std::string& where = file.where();
  const std::string scales = scale_name(name);
  const TensorEntry* e = file.find(scales);
  require(e != nullptr, where + ": int8 tensor \"" + name + "\" has no scales (missing tensor \"" + scales + "\")");
  require(e->dtype == DType::F32 && e->shape == std::vector<std::int64_t>{out},
          where + ": tensor \"" + scales + "\" must be F32 of shape (" + std::to_string(out) + "), not " +
              dtype_name(e->dtype) + " " + shape_text(e->shape));
  const unsigned char* data = file.data(*e);
  for (std::int64_t k = 0; k < out; ++k) {
    float v;
    std::memcpy(&v, data + 4 * k, 4);
    if (!(std::isfinite(v) && v >= 0))
      throw Error(where + ": tensor \"" + scales + "\" holds " + std::to_string(v) + " at row " + std::to_string(k) +
                  " (a scale must be finite and >= 0)");
  }
}

// The non-finite values of a bfloat16 tensor (exponent bits all ones) are damage, as in F32 tensors.
void check_bfloat16(const SafetensorsFile& file, const TensorEntry& e) {
  const unsigned char* data = file.data(e);
  for (std::int64_t k = 0; k < e.numel(); ++k) {
    std::uint16_t v;
    std::memcpy(&v, data + 2 * k, 2);
    require((v & 0x7f80) != 0x7f80, file.where() + ": tensor \"" + e.name +
                                        "\" holds a non-finite value at index " + std::to_string(k));
  }
}

}  // namespace

std::map<std::string, kernels::GgmlType> ggml_types(const SafetensorsFile& file) {
  std::map<std::string, kernels::GgmlType> types;
  const auto it = file.metadata().find(kGgmlTypesKey);
  if (it == file.metadata().end()) return types;
  const std::string what = file.where() + ": metadata \"" + kGgmlTypesKey + "\"";
  const nlohmann::json j = nlohmann::json::parse(it->second, nullptr, false);
  require(j.is_object(), what + " is not a JSON object");
  for (const auto& [name, value] : j.items()) {
    require(value.is_string(), what + ": the type of \"" + name + "\" is not a string");
    const kernels::GgmlTypeInfo* info = nullptr;
    for (std::uint32_t id = 0; id < 64 && !info; ++id) {
      const kernels::GgmlTypeInfo* t = kernels::find_ggml_type(id);
      if (t && value.get<std::string>() == t->name) info = t;
    }
    require(info && kernels::is_block_compute_type(info->type),
            what + ": \"" + name + "\" has type \"" + value.get<std::string>() +
                "\", not one Heptapod computes (F16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q4_K, Q5_K, Q6_K)");
    types[name] = info->type;
  }
  return types;
}

namespace {

// Checks ggml tensor `e` of type `type` holding a matrix of `shape` (out, in): U8 (out, row bytes), finite
// scales.
void check_ggml_tensor(const SafetensorsFile& file, const TensorEntry& e, kernels::GgmlType type,
                       const std::vector<std::int64_t>& shape) {
  const std::string what = file.where() + ": tensor \"" + e.name + "\" (" + kernels::ggml_type_name(type) + ")";
  require(shape.size() == 2 && shape[1] % kernels::ggml_type_info(type).block_elements == 0,
          what + ": the config's shape " + shape_text(shape) + " is not whole blocks");
  const long row_bytes = kernels::ggml_row_bytes(type, shape[1]);
  require(e.dtype == DType::U8 && e.shape == std::vector<std::int64_t>{shape[0], row_bytes},
          what + " must be U8 of shape " + shape_text({shape[0], row_bytes}) + ", not " + dtype_name(e.dtype) + " " +
              shape_text(e.shape));
  const unsigned char* data = file.data(e);
  for (std::int64_t o = 0; o < shape[0]; ++o)
    require(kernels::ggml_row_finite(type, data + o * row_bytes, shape[1]),
            what + " holds a non-finite scale in row " + std::to_string(o));
}

// Checks that every tensor `specs` names is in the file with dtype F32 and the spec's shape (before any
// buffer of the config's size is allocated, so a header that claims a huge model costs nothing). Where
// `low_precision` says a name may be stored in low precision, I8 (with valid scales), BF16 or ggml blocks
// (named by `ggml`) pass too.
void check_tensors(const SafetensorsFile& file, const std::vector<ParamSpec>& specs, const std::string& prefix,
                   const std::function<bool(const ParamSpec&)>& low_precision = {},
                   const std::map<std::string, kernels::GgmlType>& ggml = {}) {
  const std::string& where = file.where();
  for (const ParamSpec& spec : specs) {
    const std::string name = prefix + spec.name;
    const TensorEntry* e = file.find(name);
    require(e != nullptr, where + ": missing tensor \"" + name + "\"");
    const bool allowed = low_precision && low_precision(spec);
    const auto blocks = ggml.find(name);
    if (blocks != ggml.end()) {
      require(allowed, where + ": tensor \"" + name + "\" cannot be stored in ggml blocks");
      check_ggml_tensor(file, *e, blocks->second, spec.shape);
      continue;
    }
    require(e->dtype == DType::F32 || (allowed && (e->dtype == DType::I8 || e->dtype == DType::BF16)),
            where + ": tensor \"" + name + "\" has dtype " + dtype_name(e->dtype) + ", expected F32" +
                (allowed ? ", I8 or BF16" : ""));
    require(e->shape == spec.shape, where + ": tensor \"" + name + "\" has shape " + shape_text(e->shape) +
                                        ", the config needs " + shape_text(spec.shape));
    if (e->dtype == DType::I8) check_scales(file, name, spec.shape[0]);
    if (e->dtype == DType::BF16) check_bfloat16(file, *e);
  }
  for (const auto& [name, type] : ggml)
    require(file.find(name) != nullptr, where + ": metadata \"" + kGgmlTypesKey + "\" names tensor \"" + name +
                                            "\", which the file does not hold");
}

// Copies F32 tensor `e` into dst (numel values of T), checking every value is finite, and gives the file's
// pages back.
template <typename T>
void copy_floats(const SafetensorsFile& file, const TensorEntry& e, T* dst) {
  const unsigned char* src = file.data(e);
  for (std::int64_t k = 0; k < e.numel(); ++k) {
    float v;
    std::memcpy(&v, src + 4 * k, 4);
    if (!std::isfinite(v))  // the message is built only then: once per value would cost more than the copy
      throw Error(file.where() + ": tensor \"" + e.name + "\" holds a non-finite value at index " + std::to_string(k));
    dst[k] = static_cast<T>(v);
  }
  file.release(e);  // copied: the file's pages need not stay in memory
}

// Every tensor under `prefix`, except "extra/" ones, must be one of `expected`.
void check_expected(const SafetensorsFile& file, const std::set<std::string>& expected, const std::string& prefix) {
  for (const auto& e : file.tensors()) {
    if (e.name.rfind(prefix, 0) != 0 || e.name.rfind("extra/", 0) == 0) continue;
    require(expected.count(e.name) > 0,
            file.where() + ": unexpected tensor \"" + e.name + "\" (not part of this config)");
  }
}

// Every layer owns several tensors, so a file with fewer tensors than the config has layers lacks some.
// Checked before parameter_layout(), whose size grows with the layer counts the (untrusted) config claims.
void check_layer_count(const SafetensorsFile& file, const ModelConfig& c) {
  const std::size_t n = file.tensors().size();
  for (auto [layers, stack] : {std::pair{c.encoder_layers, Stack::Encoder}, {c.decoder_layers, Stack::Decoder}}) {
    if (static_cast<std::size_t>(layers) <= n) continue;
    // Some layer index <= n has no tensors at all; name the first such tensor.
    for (int i = 0;; ++i) {
      const std::string name = tensor_name(Module::SelfAttnQuery, Leaf::Weight, stack, i);
      require(file.find(name) != nullptr, file.where() + ": missing tensor \"" + name + "\" (the config has " +
                                              std::to_string(layers) + " " + stack_name(stack) + " layers)");
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
  require(it == file.metadata().end() || it->second != kAdapterFormat,
          where + ": an adapter file (LoRA adapters, or a LoRA run's checkpoint), not a model: give its base model "
                  "and this file as --adapter, or fold it into its base first (heptapod merge BASE --adapter " +
              where + ")");
  require(it != file.metadata().end() && it->second == kModelFormat,
          where + ": not a Heptapod model file (metadata \"format\" is not \"" + kModelFormat + "\")");
  const std::string& version = file.metadata("format_version");
  require(version == std::to_string(kModelFormatVersion) || version == std::to_string(kLowPrecisionFormatVersion),
          where + ": model format version " + version + " is not supported (this build reads versions " +
              std::to_string(kModelFormatVersion) + " and " + std::to_string(kLowPrecisionFormatVersion) + ")");
  return model_config_from_json(file.metadata("config"), where);
}

namespace {

// stored_compute_type for a file whose format and version read_model_config has checked.
ComputeType stored_type(const SafetensorsFile& file) {
  if (file.metadata("format_version") == std::to_string(kModelFormatVersion)) return ComputeType::Float32;
  const std::string& weights = file.metadata("weights");
  if (weights == compute_type_name(ComputeType::Ggml)) return ComputeType::Ggml;
  const ComputeType type = parse_compute_type(weights, file.where() + ": metadata \"weights\"");
  require(type != ComputeType::Float32,
          file.where() + ": a version 2 model file must hold int8, bfloat16, int4 or ggml weights");
  return type;
}

}  // namespace

ComputeType stored_compute_type(const SafetensorsFile& file) {
  read_model_config(file);
  return stored_type(file);
}

template <typename T>
void load_parameters(const SafetensorsFile& file, ParameterStore<T>& params, const std::string& prefix) {
  check_tensors(file, params.specs(), prefix);
  std::set<std::string> expected;
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    const std::string name = prefix + spec.name;
    expected.insert(name);
    copy_floats(file, file.at(name), params.values() + params.offset(i));
  }
  check_expected(file, expected, prefix);
}

InferencePrecision stored_precision(const SafetensorsFile& file) {
  const ModelConfig config = read_model_config(file);
  const ComputeType type = stored_type(file);
  const TensorEntry* output = file.find(output_projection_name(config));
  return {type, type != ComputeType::Float32 && output && output->dtype == DType::F32};
}

std::unique_ptr<Transformer<float>> load_model(const SafetensorsFile& file) {
  const ModelConfig config = read_model_config(file);
  const ComputeType stored = stored_type(file);
  require(stored == ComputeType::Float32,
          file.where() + ": the model holds " + compute_type_name(stored) +
              " weights (heptapod quantize wrote it): it translates and scores, but cannot be trained, averaged "
              "or converted; use the float model it was made from");
  check_layer_count(file, config);
  check_tensors(file, parameter_layout(config), "");
  auto model = std::make_unique<Transformer<float>>(config);
  load_parameters(file, model->parameters());
  return model;
}

std::unique_ptr<Transformer<float>> load_model(const std::string& path) {
  return load_model(SafetensorsFile::read(path));
}

namespace {

// load_stored_parameters for `selected` specs that check_tensors has accepted.
StoredMatrices read_stored_parameters(const SafetensorsFile& file, ParameterStore<float>& params,
                                      const std::vector<ParamSpec>& selected,
                                      const std::map<std::string, kernels::GgmlType>& ggml) {
  const ComputeType type = stored_type(file);
  StoredMatrices stored;
  for (const ParamSpec& spec : selected) {
    const TensorEntry& e = file.at(spec.name);
    if (e.dtype == DType::F32) {
      copy_floats(file, e, params.value(spec.name));
      continue;
    }
    const int out = static_cast<int>(spec.shape[0]), in = static_cast<int>(spec.shape[1]);
    const auto blocks = ggml.find(spec.name);
    if (blocks != ggml.end()) {
      stored[spec.name] = {type, file.data(e), nullptr, out, in, blocks->second};
      continue;
    }
    StoredMatrix m{e.dtype == DType::I8 ? ComputeType::Int8 : ComputeType::BFloat16, file.data(e), nullptr, out, in};
    if (e.dtype == DType::I8) m.scales = file.data(file.at(scale_name(spec.name)));
    stored[spec.name] = m;
  }
  return stored;
}

}  // namespace

StoredMatrices load_stored_parameters(const SafetensorsFile& file, Transformer<float>& model,
                                      const std::function<bool(const ParamSpec&)>& which) {
  const ModelConfig& config = model.config();
  const std::map<std::string, kernels::GgmlType> ggml = ggml_types(file);
  std::vector<ParamSpec> selected;
  for (const ParamSpec& spec : model.parameters().specs())
    if (which(spec)) selected.push_back(spec);
  check_tensors(file, selected, "", [&](const ParamSpec& spec) { return is_low_precision_parameter(config, spec); },
                ggml);
  return read_stored_parameters(file, model.parameters(), selected, ggml);
}

void dequantize_stored(Transformer<float>& model, const StoredMatrices& stored) {
  for (const auto& [name, m] : stored) {
    const std::unique_ptr<kernels::WeightMatrix> matrix = pack_weights(m.type, std::span(&m, 1), nullptr);
    float* w = model.parameters().value(name);  // (out, in)
    for (int o = 0; o < m.out; ++o) matrix->row(o, w + static_cast<std::size_t>(o) * m.in);
  }
}

void release_stored_pages(const SafetensorsFile& file, const StoredMatrices& stored) {
  for (const auto& [name, m] : stored) {
    file.release(file.at(name));
    if (m.scales) file.release(file.at(scale_name(name)));
  }
}

std::unique_ptr<Transformer<float>> load_inference_model(const SafetensorsFile& file,
                                                         const InferencePrecision& precision) {
  const ModelConfig config = read_model_config(file);
  if (stored_type(file) == ComputeType::Float32) {
    auto model = load_model(file);
    model->pack_for_inference(precision);
    return model;
  }
  check_layer_count(file, config);
  // Every tensor checked (its values scanned) once, before any buffer of the config's size exists.
  const std::vector<ParamSpec> specs = parameter_layout(config);
  const std::map<std::string, kernels::GgmlType> ggml = ggml_types(file);
  check_tensors(file, specs, "", [&](const ParamSpec& spec) { return is_low_precision_parameter(config, spec); }, ggml);
  auto model = std::make_unique<Transformer<float>>(config);
  const StoredMatrices stored = read_stored_parameters(file, model->parameters(), specs, ggml);
  std::set<std::string> expected;
  for (const ParamSpec& spec : model->parameters().specs()) expected.insert(spec.name);
  for (const auto& [name, m] : stored)
    if (m.scales) expected.insert(scale_name(name));
  check_expected(file, expected, "");
  model->pack_for_inference(precision, stored);
  release_stored_pages(file, stored);  // packed: the file's pages need not stay in memory
  return model;
}

void save_low_precision_model(const SafetensorsFile& file, const InferencePrecision& precision,
                              const std::string& path) {
  const ComputeType type = precision.type;
  const bool blocks = type == ComputeType::Int4 || type == ComputeType::Int8Blocks;
  require(blocks || type == ComputeType::Int8 || type == ComputeType::BFloat16,
          "quantize: the target type must be int8, bfloat16, int4 or q8_0");
  const std::unique_ptr<Transformer<float>> model = load_model(file);  // validates the whole float model
  const ModelConfig& config = model->config();
  require(!config.lora.enabled(), file.where() + ": LoRA adapters beside the weights (a LoRA run's checkpoint); "
                                                 "quantize the merged model (heptapod merge BASE --adapter ADAPTER)");
  SafetensorsWriter w;
  for (const auto& [k, v] : file.metadata()) w.set_metadata(k, v);
  w.set_metadata("format_version", std::to_string(kLowPrecisionFormatVersion));
  w.set_metadata("weights", compute_type_name(type));
  nlohmann::json block_types = nlohmann::json::object();  // tensor name -> ggml type name
  const ParameterStore<float>& params = model->parameters();
  for (const TensorEntry& e : file.tensors()) {
    const bool output = e.name == output_projection_name(config);
    const bool low = params.contains(e.name) && is_low_precision_parameter(config, params.spec(e.name)) &&
                     !(precision.float_output && output);
    if (!low) {
      w.add(e.name, e.dtype, e.shape, file.data(e));
      continue;
    }
    const int out = static_cast<int>(e.shape[0]), in = static_cast<int>(e.shape[1]);
    const float* values = params.values() + params.offset(e.name);  // (out, in)
    if (blocks && in % 32 == 0) {
      const kernels::GgmlType blocks_of = block_type(type, output);  // as pack_weights packs it
      w.add(e.name, DType::U8, {out, kernels::ggml_row_bytes(blocks_of, in)},
            kernels::quantize_rows(blocks_of, values, out, in).data());
      block_types[e.name] = kernels::ggml_type_name(blocks_of);
    } else if (type != ComputeType::BFloat16) {  // int8, and block rows that blocks do not divide
      std::vector<std::int8_t> q(static_cast<std::size_t>(out) * in);  // (out, in)
      std::vector<float> scales(out);                                  // (out)
      kernels::quantize_rows_int8(values, out, in, q.data(), scales.data());
      w.add(e.name, DType::I8, e.shape, q.data());
      w.add(scale_name(e.name), DType::F32, {out}, scales.data());
    } else {
      std::vector<std::uint16_t> bits(static_cast<std::size_t>(out) * in);  // (out, in)
      kernels::to_bfloat16(values, static_cast<long>(out) * in, bits.data());
      w.add(e.name, DType::BF16, e.shape, bits.data());
    }
  }
  if (!block_types.empty()) w.set_metadata(kGgmlTypesKey, block_types.dump());
  file.check_intact();  // the tensors copied as they were must be the file's bytes
  w.write(path);
}

void rewrite_model_metadata(const SafetensorsFile& file, const std::map<std::string, std::string>& metadata,
                            const std::string& path) {
  SafetensorsWriter w;
  for (const auto& [k, v] : metadata) w.set_metadata(k, v);
  for (const TensorEntry& e : file.tensors()) w.add(e.name, e.dtype, e.shape, file.data(e));
  file.check_intact();  // the tensors copied must be the file's bytes
  w.write(path);
}

template <typename T>
void load_selected_parameters(const SafetensorsFile& file, ParameterStore<T>& params,
                              const std::function<bool(const ParamSpec&)>& which) {
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    if (!which(spec)) continue;
    const TensorEntry* e = file.find(spec.name);
    require(e != nullptr, file.where() + ": missing tensor \"" + spec.name + "\"");
    require(e->dtype == DType::F32 && e->shape == spec.shape,
            file.where() + ": tensor \"" + spec.name + "\" is not F32 of shape " + shape_text(spec.shape));
    copy_floats(file, *e, params.value(spec.name));
  }
}

bool is_body_parameter(const SafetensorsFile& file, const ParamSpec& spec) {
  // A head's tensors stay as initialized, but for a pre-trained encoder's pooler that the new head has too, and
  // an embedding model's Dense module (which the embeddings of the fine-tuned model still go through).
  const TensorEntry* e = file.find(spec.name);
  const bool kept = (spec.module == Module::Pooler || spec.module == Module::EmbedDense) && e && e->shape == spec.shape;
  return spec.role != ParamRole::Adapter && (spec.part != ParamPart::Output || kept);
}

template <typename T>
void load_body_parameters(const SafetensorsFile& file, ParameterStore<T>& params) {
  load_selected_parameters<T>(file, params, [&](const ParamSpec& spec) { return is_body_parameter(file, spec); });
}

template void load_selected_parameters<float>(const SafetensorsFile&, ParameterStore<float>&,
                                              const std::function<bool(const ParamSpec&)>&);
template void load_selected_parameters<double>(const SafetensorsFile&, ParameterStore<double>&,
                                               const std::function<bool(const ParamSpec&)>&);
template void load_body_parameters<float>(const SafetensorsFile&, ParameterStore<float>&);
template void load_body_parameters<double>(const SafetensorsFile&, ParameterStore<double>&);
template void load_parameters<float>(const SafetensorsFile&, ParameterStore<float>&, const std::string&);
template void load_parameters<double>(const SafetensorsFile&, ParameterStore<double>&, const std::string&);

}  // namespace heptapod
