// The composed model file of a GGUF file: a small image (metadata, converted tensors, the vocabulary) and the
// GGUF file's tensors in place.
#include "heptapod/data/gguf_import.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "heptapod/data/gguf_vocab.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/pretrained_vocab.h"
#include "heptapod/io/gguf_model.h"
#include "heptapod/io/model_file.h"

namespace heptapod {

bool is_gguf_path(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string(magic, 4) == "GGUF";
}

SafetensorsFile gguf_model_file(const GgufFile& gguf) {
  GgufModel model = read_gguf_model(gguf);
  ModelVocabularies vocabs;
  vocabs.target = gguf_vocabulary(gguf);
  check_vocabularies(vocabs, model.config, gguf.where());
  SafetensorsWriter image;
  image.set_metadata("format", kModelFormat);
  image.set_metadata("config", to_json(model.config));
  if (model.weights.empty()) {
    image.set_metadata("format_version", std::to_string(kModelFormatVersion));
  } else {
    image.set_metadata("format_version", std::to_string(kLowPrecisionFormatVersion));
    image.set_metadata("weights", model.weights);
  }
  if (!model.ggml_types.empty()) image.set_metadata(kGgmlTypesKey, nlohmann::json(model.ggml_types).dump());
  if (const auto chat = gguf_chat_template(gguf)) image.set_metadata(kChatTemplateMetadata, to_json(*chat));
  for (const GgufModel::Owned& t : model.owned) image.add(t.name, t.dtype, t.shape, t.bytes.data());
  for (const ExtraTensor& e : vocabulary_tensors(vocabs)) image.add(e.name, e.dtype, e.shape, e.data);
  return SafetensorsFile::compose(image.serialize(), gguf.where(), {gguf.owner(), gguf.bytes(), gguf.mapping()},
                                  std::move(model.in_place));
}

SafetensorsFile open_model_file(const std::string& path) {
  if (is_gguf_path(path)) return gguf_model_file(GgufFile::read(path));
  return SafetensorsFile::read(path);
}

}  // namespace heptapod
