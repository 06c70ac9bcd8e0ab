// `heptapod plot`: draws the training curves of a run (metrics.jsonl) to an SVG image.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "heptapod/train/plot_svg.h"

namespace heptapod::app {

Runner add_plot_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("plot", "Plot training curves from metrics.jsonl to an SVG image");
  auto input = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("metrics", *input, "metrics.jsonl written by heptapod train")->required();
  cmd->add_option("-o,--output", *output, "SVG file to write")->required();
  return [input, output] {
    plot_metrics_svg(*input, *output);
    std::printf("wrote %s\n", output->c_str());
    return 0;
  };
}

}  // namespace heptapod::app
