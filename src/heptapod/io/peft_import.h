// PEFT's LoRA adapters (adapter_config.json and adapter_model.safetensors, as PeftModel.save_pretrained writes
// them) of a LLaMA-family, GPT-2 or BERT model converted to a Heptapod adapter file (io/adapter_file.h) over the
// model file their base was converted to (heptapod convert --from llama|gpt2|bert). Target modules are matched
// as PEFT matches them (a module's name, or its end after a dot) against the family's layer modules. GPT-2's
// c_attn holds q|k|v in one Conv1D: its one adapter, B (3C, r) over the fused output, is three adapters of the
// same rank exactly, each with A and its third of B's rows. A BERT classifier's head that PEFT saved in full
// (modules_to_save "classifier", its SEQ_CLS task's) goes into the adapter file, as a LoRA run's head does.
// Plain LoRA alone: rsLoRA, DoRA, per-module ranks or alphas, trained biases, other modules to save, some layers
// alone, excluded modules, targets outside the attention's and the feed-forward network's matrices, and a
// feed-forward network adapted in part are refused by name.
#pragma once

#include <string>

#include "heptapod/io/safetensors.h"

namespace heptapod {

// Reads the PEFT directory `directory` and writes its adapters over `base` to `output` (atomically).
void convert_peft_adapter(const std::string& directory, const SafetensorsFile& base, const std::string& output);

}  // namespace heptapod
