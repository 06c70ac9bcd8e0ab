// Loading models for the front ends.
#include "heptapod/decode/inference_model.h"

#include <optional>

#include "heptapod/core/error.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/io/adapter_file.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

namespace {

// The file's model packed as `options` say.
std::shared_ptr<Transformer<float>> load_packed(const SafetensorsFile& file, const ModelLoadOptions& options) {
  InferencePrecision precision = stored_precision(file);
  if (options.compute_type) precision.type = *options.compute_type;
  precision.float_output = precision.float_output || options.float_output;
  return load_inference_model(file, precision);
}

}  // namespace

std::shared_ptr<Transformer<float>> load_packed_model(const std::string& path, const ModelLoadOptions& options) {
  return load_packed(open_model_file(path), options);
}

InferenceModel load_for_inference(const std::string& path, const ModelLoadOptions& options, Architecture kind,
                                    const std::string& purpose) {
  const SafetensorsFile file = open_model_file(path);
  const ModelConfig config = read_model_config(file);
  auto a = [](Architecture k) {  // "an encoder-decoder", "a decoder-only"
    const std::string name = architecture_name(k);
    return (name[0] == 'e' ? "an " : "a ") + name;
  };
  require(config.architecture == kind,
          path + ": " + a(config.architecture) + " model; " + purpose + " needs " + a(kind) + " model");
  InferenceModel loaded;
  std::shared_ptr<Transformer<float>> base = options.base ? options.base : load_packed(file, options);
  std::optional<SafetensorsFile> adapter;
  if (options.adapter.empty()) {
    loaded.model = std::move(base);
  } else {
    adapter = SafetensorsFile::read(options.adapter);
    loaded.model = load_adapter_over(std::move(base), file, *adapter);
  }
  // The base file's vocabularies; a classifier's class names are its adapter file's when that holds them (a
  // head trained beside the adapters).
  const bool adapter_labels = adapter && adapter->find("extra/labels") != nullptr;
  auto vocabs = read_vocabularies(file, adapter_labels ? config : loaded.model->config());
  require(vocabs.has_value(), path + ": the model file holds no vocabularies (models written by heptapod train do; "
                                     "a converted model needs them added)");
  loaded.vocabs = std::move(*vocabs);
  if (adapter_labels) loaded.vocabs.labels = read_label_names(*adapter, loaded.model->config());
  loaded.generation = read_generation_defaults(file);
  loaded.chat_template = read_chat_template(file);
  loaded.languages = read_language_codes(file);
  return loaded;
}

}  // namespace heptapod
