// Adapter files: saving, checking against their base, loading over it and merging into it.
#include "heptapod/io/adapter_file.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <vector>

#include "heptapod/core/checksum.h"
#include "heptapod/core/error.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

std::string weights_checksum(const SafetensorsFile& file) {
  std::vector<const TensorEntry*> weights;
  for (const TensorEntry& e : file.tensors())
    if (e.name.rfind("extra/", 0) != 0) weights.push_back(&e);
  std::sort(weights.begin(), weights.end(), [](const TensorEntry* a, const TensorEntry* b) { return a->name < b->name; });
  std::uint64_t h = kChecksumSeed;
  for (const TensorEntry* e : weights) {
    const std::string head = e->name + ":" + dtype_name(e->dtype) + ":" + shape_text(e->shape);
    h = checksum_words(h, head.data(), head.size());
    h = checksum_words(h, file.data(*e), e->end - e->begin);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016" PRIx64, h);
  return text;
}

void save_adapter(const std::string& path, const Transformer<float>& model, const std::string& base_checksum,
                  const std::vector<ExtraTensor>& extra_tensors,
                  const std::map<std::string, std::string>& extra_metadata) {
  require(model.config().lora.enabled(), "save_adapter: the model has no LoRA adapters");
  SafetensorsWriter w;
  for (const auto& [k, v] : extra_metadata) {
    require(k != "format" && k != "format_version" && k != "config" && k != "base_checksum",
            "save_adapter: reserved metadata key " + k);
    w.set_metadata(k, v);
  }
  w.set_metadata("format", kAdapterFormat);
  w.set_metadata("format_version", std::to_string(kAdapterFormatVersion));
  w.set_metadata("config", to_json(model.config()));
  w.set_metadata("base_checksum", base_checksum);
  const ParameterStore<float>& params = model.parameters();
  for (std::size_t i = 0; i < params.specs().size(); ++i) {
    const ParamSpec& spec = params.specs()[i];
    if (!spec.frozen) w.add(spec.name, DType::F32, spec.shape, params.values() + params.offset(i));
  }
  for (const ExtraTensor& e : extra_tensors) {
    require(e.name.rfind("extra/", 0) == 0, "save_adapter: extra tensor \"" + e.name + "\" must be named extra/...");
    w.add(e.name, e.dtype, e.shape, e.data);
  }
  w.write(path);
}

bool is_adapter_file(const SafetensorsFile& file) {
  const auto it = file.metadata().find("format");
  return it != file.metadata().end() && it->second == kAdapterFormat;
}

AdapterInfo read_adapter_info(const SafetensorsFile& adapter) {
  const std::string& where = adapter.where();
  require(is_adapter_file(adapter),
          where + ": not a Heptapod adapter file (metadata \"format\" is not \"" + kAdapterFormat + "\")");
  const std::string& version = adapter.metadata("format_version");
  require(version == std::to_string(kAdapterFormatVersion),
          where + ": adapter format version " + version + " is not supported (this build reads version " +
              std::to_string(kAdapterFormatVersion) + ")");
  AdapterInfo info;
  info.config = model_config_from_json(adapter.metadata("config"), where);
  require(info.config.lora.enabled(), where + ": the adapter file's config has no \"lora\"");
  info.base_checksum = adapter.metadata("base_checksum");
  for (const TensorEntry& e : adapter.tensors())
    if (e.name.rfind("extra/", 0) != 0) info.parameters += e.numel();
  return info;
}

namespace {

// The adapter file's info, checked against its base file (the checksums).
AdapterInfo adapter_info_over(const SafetensorsFile& base, const SafetensorsFile& adapter) {
  AdapterInfo info = read_adapter_info(adapter);
  const std::string checksum = weights_checksum(base);
  require(checksum == info.base_checksum,
          adapter.where() + ": the adapters were trained on another base model (base checksum " + info.base_checksum +
              "; " + base.where() + " has " + checksum + ")");
  return info;
}

// Loads the trained tensors (adapters, a new head) of `adapter` into `params`; a tensor that is not one of them
// (but "extra/") is an Error.
void load_trained_tensors(const SafetensorsFile& adapter, ParameterStore<float>& params) {
  load_selected_parameters<float>(adapter, params, [](const ParamSpec& spec) { return !spec.frozen; });
  std::set<std::string> trained;
  for (const ParamSpec& spec : params.specs())
    if (!spec.frozen) trained.insert(spec.name);
  for (const TensorEntry& e : adapter.tensors())
    require(trained.count(e.name) > 0 || e.name.rfind("extra/", 0) == 0,
            adapter.where() + ": unexpected tensor \"" + e.name + "\" (not part of its config)");
}

}  // namespace

std::unique_ptr<Transformer<float>> load_adapted_model(const SafetensorsFile& base, const SafetensorsFile& adapter) {
  const AdapterInfo info = adapter_info_over(base, adapter);
  auto model = std::make_unique<Transformer<float>>(info.config);
  // A base held in low precision: its dequantized weights, as training over it computed with.
  const StoredMatrices stored = load_stored_parameters(base, *model, [](const ParamSpec& spec) { return spec.frozen; });
  dequantize_stored(*model, stored);
  release_stored_pages(base, stored);
  load_trained_tensors(adapter, model->parameters());
  return model;
}

std::unique_ptr<Transformer<float>> load_adapter_over(std::shared_ptr<const Transformer<float>> base,
                                                      const SafetensorsFile& base_file, const SafetensorsFile& adapter) {
  const AdapterInfo info = adapter_info_over(base_file, adapter);
  // The base's tensors are checked by name and shape (the parameter store), its packed matrices by shape.
  auto model = std::make_unique<Transformer<float>>(info.config, std::move(base));
  load_trained_tensors(adapter, model->parameters());
  model->pack_for_inference();
  return model;
}

void merge_adapter(const SafetensorsFile& base, const SafetensorsFile& adapter, const std::string& path) {
  const std::unique_ptr<Transformer<float>> adapted = load_adapted_model(base, adapter);
  adapted->fold_adapters();
  ModelConfig config = adapted->config();
  config.lora = {};
  Transformer<float> merged(config);
  ParameterStore<float>& to = merged.parameters();
  const ParameterStore<float>& from = adapted->parameters();
  for (std::size_t i = 0; i < to.specs().size(); ++i)
    std::copy_n(from.values() + from.offset(to.specs()[i].name), to.specs()[i].numel(), to.values() + to.offset(i));
  std::map<std::string, std::string> metadata;
  for (const auto& [k, v] : base.metadata())
    if (k != "format" && k != "format_version" && k != "config") metadata[k] = v;
  // The base's extra tensors (vocabularies), but those the adapter file replaces (a new head's class names).
  std::vector<ExtraTensor> extras;
  for (const SafetensorsFile* file : {&adapter, &base})
    for (const TensorEntry& e : file->tensors()) {
      const bool replaced = file == &base && adapter.find(e.name) != nullptr;
      if (e.name.rfind("extra/", 0) == 0 && !replaced) extras.push_back({e.name, e.dtype, e.shape, file->data(e)});
    }
  base.check_intact();
  adapter.check_intact();
  save_model(path, merged, metadata, extras);
}

}  // namespace heptapod
