// Loading a model file for inference, as every front end does (Translator, Generator): the products' type
// (the file's, or converted at load), the model of the kind the front end serves, and its vocabularies.
#pragma once

#include <memory>
#include <optional>
#include <string>

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
  // A LoRA adapter file (io/adapter_file.h) to load over the model, which must be its base; empty: none.
  std::string adapter;
};

struct InferenceModel {
  std::unique_ptr<Transformer<float>> model;
  ModelVocabularies vocabs;
  GenerationDefaults generation;  // a converted model's sampling defaults (none for others)
  std::optional<StoredChatTemplate> chat_template;  // an instruction-tuned model's (none for others)
};

// The model in `path`, which must be a `kind` model with its vocabularies; otherwise an Error naming the file,
// what it holds and what `purpose` ("translation", "generation") needs.
InferenceModel load_for_inference(const std::string& path, const ModelLoadOptions& options, Architecture kind,
                                    const std::string& purpose);

}  // namespace heptapod
