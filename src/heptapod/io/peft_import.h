// PEFT's LoRA adapters of a LLaMA-family model (adapter_config.json and adapter_model.safetensors, as
// PeftModel.save_pretrained writes them) converted to a Heptapod adapter file (io/adapter_file.h) over the model
// file their base was converted to (heptapod convert --from llama). Plain LoRA alone: rsLoRA, DoRA, per-module
// ranks or alphas, trained biases, modules to save, fan-in-fan-out layouts and targets other than the attention's
// and the feed-forward network's matrices are refused by name.
#pragma once

#include <string>

#include "heptapod/io/safetensors.h"

namespace heptapod {

// Reads the PEFT directory `directory` and writes its adapters over `base` to `output` (atomically).
void convert_peft_adapter(const std::string& directory, const SafetensorsFile& base, const std::string& output);

}  // namespace heptapod
