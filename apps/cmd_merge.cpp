// `heptapod merge`: folds LoRA adapters into their base model, W += (alpha / r) B A, writing an ordinary model
// file (io/adapter_file.h).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "heptapod/io/adapter_file.h"

namespace heptapod::app {

namespace {

struct MergeFlags {
  std::string model, adapter, output;
};

int run_merge(const MergeFlags& f) {
  merge_adapter(SafetensorsFile::read(f.model), SafetensorsFile::read(f.adapter), f.output);
  std::printf("merged %s into %s: %s\n", f.adapter.c_str(), f.model.c_str(), f.output.c_str());
  return 0;
}

}  // namespace

Runner add_merge_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("merge", "Fold LoRA adapters (heptapod train --lora) into their base model, "
                                           "writing an ordinary model file");
  auto f = std::make_shared<MergeFlags>();
  cmd->add_option("model", f->model, "The base model the adapters were trained on (float32)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--adapter", f->adapter, "The adapter file (adapter.htp)")->required()->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", f->output, "Merged model to write")->required();
  return [f] { return run_merge(*f); };
}

}  // namespace heptapod::app
