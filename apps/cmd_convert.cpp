// `heptapod convert`: brings PyTorch weights (a state dict saved as safetensors, see
// tools/export_state_dict.py) into a Heptapod model file.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/io/model_file.h"
#include "heptapod/io/torch_import.h"

namespace heptapod::app {

namespace {

struct ConvertOptions {
  std::string input, output, from = "nn-transformer", config_path;
  NnTransformerImportOptions nn;
};

int run_convert(const ConvertOptions& o) {
  const SafetensorsFile file = SafetensorsFile::read(o.input);
  std::unique_ptr<Transformer<float>> model;
  if (o.from == "nn-transformer") {
    model = import_nn_transformer(file, o.nn);
  } else {
    require(!o.config_path.empty(), "convert --from heptapod needs --config (a model config JSON file)");
    model = import_heptapod_state_dict(file, model_config_from_json(read_file(o.config_path), o.config_path));
  }
  save_model(o.output, *model);
  std::printf("wrote %s (%lld parameters)\n", o.output.c_str(), parameter_count(model->config()));
  return 0;
}

}  // namespace

Runner add_convert_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("convert", "Convert PyTorch weights (safetensors state dict) to a model file");
  auto o = std::make_shared<ConvertOptions>();
  cmd->add_option("input", o->input, "State dict in safetensors format")->required();
  cmd->add_option("-o,--output", o->output, "Model file to write")->required();
  cmd->add_option("--from", o->from, "Layout of the state dict: nn-transformer or heptapod")
      ->check(CLI::IsMember({"nn-transformer", "heptapod"}));
  cmd->add_option("--config", o->config_path, "Model config JSON (for --from heptapod)");
  cmd->add_option("--heads", o->nn.n_heads, "Attention heads (nn-transformer)");
  cmd->add_option("--layer-norm-eps", o->nn.layer_norm_eps, "Layer norm epsilon (nn-transformer)");
  cmd->add_option("--pad-id", o->nn.pad_id, "Padding id (nn-transformer)");
  cmd->add_option("--bos-id", o->nn.bos_id, "Begin-of-sentence id (nn-transformer)");
  cmd->add_option("--eos-id", o->nn.eos_id, "End-of-sentence id (nn-transformer)");
  return [o] { return run_convert(*o); };
}

}  // namespace heptapod::app
