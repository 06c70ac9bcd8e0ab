// `heptapod quantize -m MODEL --to int8|bfloat16|int4 -o OUT`: writes the model with low-precision weight matrices
// (docs/model-format.md), which translate and score load as they are.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "heptapod/core/error.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/io/model_file.h"

namespace heptapod::app {

namespace {

struct QuantizeFlags {
  std::string model, output, to;
  bool float_output = false;
};

int run_quantize(const QuantizeFlags& f) {
  namespace fs = std::filesystem;
  std::error_code same_error;
  require(!(fs::exists(f.output) && fs::equivalent(f.model, f.output, same_error)),
          "quantize: the output " + f.output + " is the input model; write the quantized model to another file");
  const SafetensorsFile file = open_model_file(f.model);
  const ComputeType stored = stored_compute_type(file);
  require(stored == ComputeType::Float32, f.model + ": the model already holds " +
                                              std::string(compute_type_name(stored)) +
                                              " weights; quantize the float model it was made from");
  const InferencePrecision precision{parse_compute_type(f.to, "--to"), f.float_output};
  save_low_precision_model(file, precision, f.output);
  const double before = static_cast<double>(fs::file_size(f.model)), after = static_cast<double>(fs::file_size(f.output));
  std::printf("wrote %s: %s weights%s, %.1f MB (the float model: %.1f MB, %.2fx smaller)\n", f.output.c_str(),
              compute_type_name(precision.type), precision.float_output ? " (output projection float32)" : "",
              after / 1e6, before / 1e6, before / after);
  return 0;
}

}  // namespace

Runner add_quantize_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("quantize", "Write a model with int8, bfloat16 or int4 weight matrices");
  auto f = std::make_shared<QuantizeFlags>();
  cmd->add_option("-m,--model", f->model, "Float model file (from heptapod train)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--to", f->to,
                  "int8 (per-row scales), bfloat16, or int4 (ggml's Q4_0: blocks of 32 weights with a float16 scale; "
                  "the output projection in Q8_0), or q8_0 (ggml's Q8_0: blocks of 32 8-bit weights with a float16 scale); rows whose width 32 does not divide stay int8")
      ->required()
      ->check(CLI::IsMember({"int8", "bfloat16", "int4", "q8_0"}));
  cmd->add_option("-o,--output", f->output, "Model file to write")->required();
  cmd->add_flag("--float-output", f->float_output,
                "Keep the output projection, and the embeddings tied to it, in float32");
  return [f] { return run_quantize(*f); };
}

}  // namespace heptapod::app
