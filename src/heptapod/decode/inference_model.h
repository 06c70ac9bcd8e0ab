// Loading a model file for inference, as every front end does (Translator, Generator): the products' type
// (the file's, or converted at load), the model of the kind the front end serves, and its vocabularies.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "heptapod/data/language_codes.h"
#include "heptapod/data/model_vocab.h"
#include "heptapod/data/stored_chat_template.h"
#include "heptapod/io/generation_defaults.h"
#include "heptapod/model/transformer.h"

namespace heptapod {

// How a front end loads its model.
struct ModelLoadOptions {
  // The products' type: float32, int8 or bfloat16, converting the weights at load; unset: the type the file
  // stores (float32 unless heptapod quantize wrote it).
  std::optional<ComputeType> compute_type;
  // Keep the output projection, and the embeddings tied to it, in float32 (also when the file keeps it so).
  bool float_output = false;
  // A LoRA adapter file (io/adapter_file.h) to load over the model, which must be its base; empty: none. The
  // adapters stay unmerged beside the base's packed matrices (any precision), which they share.
  std::string adapter{};
  // The model of the file, already loaded and packed by load_packed_model with these options, to use rather
  // than loading it again: a server's base, shared by the base's own front end, which computes on it, and
  // every adapter over it, whose model object only reads its weights (one front end alone may compute on a
  // model object: it holds its passes' state). Null: load it.
  std::shared_ptr<Transformer<float>> base{};
};

// The model in `path` packed for inference as `options` say (compute type, float output; not the adapter).
std::shared_ptr<Transformer<float>> load_packed_model(const std::string& path, const ModelLoadOptions& options);

struct InferenceModel {
  std::shared_ptr<Transformer<float>> model;  // over options.base (shared) when given
  ModelVocabularies vocabs;
  GenerationDefaults generation;  // a converted model's sampling defaults (none for others)
  std::optional<StoredChatTemplate> chat_template;  // an instruction-tuned model's (none for others)
  LanguageCodes languages;  // a multilingual translation model's (none for others)
};

// The model in `path`, which must be a `kind` model with its vocabularies; otherwise an Error naming the file,
// what it holds and what `purpose` ("translation", "generation") needs.
InferenceModel load_for_inference(const std::string& path, const ModelLoadOptions& options, Architecture kind,
                                    const std::string& purpose);

}  // namespace heptapod
