// The options that choose how a model computes (translate, score, generate, classify, embed, chat, serve):
// --compute-type and --float-output; and, for the commands of one model, --adapter: LoRA adapters over it (serve
// has its own, --adapter NAME=FILE, one model per adapter).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "heptapod/decode/translator.h"

namespace heptapod::app {

inline void add_precision_options(CLI::App* cmd, ModelLoadOptions& options, bool adapter = true) {
  cmd->add_option_function<std::string>(
         "--compute-type",
         [&options](const std::string& name) { options.compute_type = parse_compute_type(name, "--compute-type"); },
         "Products in float32, int8 (weights per row, activations per token, exact integer sums), bfloat16, "
         "int4 (Q4_0 blocks of 32 weights, float activations; the output projection in Q8_0) or q8_0 (Q8_0 "
         "blocks of 32 weights, float activations), converting the weights at load (default: the type the model "
         "file stores; a GGUF file's, each matrix in its type)")
      ->check(CLI::IsMember({"float32", "int8", "bfloat16", "int4", "q8_0"}))
      ->option_text("float32|int8|bfloat16|int4|q8_0");
  cmd->add_flag("--float-output", options.float_output,
                "Keep the output projection, and the embeddings tied to it, in float32");
  if (!adapter) return;
  cmd->add_option("--adapter", options.adapter,
                  "LoRA adapters (heptapod train --lora's adapter.htp) to load over the model, which must be the "
                  "base they were trained on (in any compute type: the adapters stay unmerged beside its weights)")
      ->check(CLI::ExistingFile);
}

}  // namespace heptapod::app
