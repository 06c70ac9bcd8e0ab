// Import of Hugging Face MarianMT (OPUS-MT) checkpoints: config.json and model.safetensors from a model
// directory. What differs from the paper and is carried into the config: positions laid out [sin | cos]
// ("halves"), an output bias (final_logits_bias), the decoder starting from the pad token, every source
// ending with </s>, the FFN activation (many OPUS-MT models use swish) and, per model, the embedding scale.
// Anything else the config cannot express (pre-norm, embedding layer norms, learned positions, different
// encoder and decoder widths) is refused by name.
#pragma once

#include <memory>
#include <string>

#include "heptapod/model/transformer.h"

namespace heptapod {

// The model config a MarianMT config.json describes; `where` names the file in errors.
ModelConfig marian_model_config(const std::string& config_json, const std::string& where);

// Weights from the directory's model.safetensors under MarianMTModel's state-dict names.
std::unique_ptr<Transformer<float>> import_marian(const std::string& directory);

}  // namespace heptapod
