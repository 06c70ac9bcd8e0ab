// `heptapod average`: averages checkpoints into one model (explicit files, or the last K in a directory).
#include <cstdio>
#include <memory>

#include "commands.h"
#include "heptapod/core/error.h"
#include "heptapod/train/average.h"
#include "heptapod/train/checkpoint.h"

namespace heptapod::app {

namespace {

struct AverageFlags {
  std::vector<std::string> inputs;
  std::string dir, output;
  int last = 5;
  bool last_given = false;
};

int run_average(const AverageFlags& f) {
  require(!f.inputs.empty() || !f.dir.empty(), "average: give model files, or --dir (a checkpoints directory)");
  require(!f.last_given || !f.dir.empty(), "average: --last counts the checkpoints of --dir; give --dir");
  std::vector<std::string> paths = f.inputs;
  if (!f.dir.empty()) {
    const auto last = last_checkpoints(f.dir, static_cast<std::size_t>(f.last));
    require(!last.empty(), "average: no checkpoints (step-*.htp) in " + f.dir);
    paths.insert(paths.end(), last.begin(), last.end());
  }
  average_checkpoints(paths, f.output);
  std::printf("averaged %zu models into %s\n", paths.size(), f.output.c_str());
  return 0;
}

}  // namespace

Runner add_average_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("average", "Average checkpoints (parameter-wise mean) into one model");
  auto f = std::make_shared<AverageFlags>();
  cmd->add_option("inputs", f->inputs, "Model files to average");
  cmd->add_option("--dir", f->dir, "A checkpoints directory: average its last --last checkpoints");
  cmd->add_option("--last", f->last, "How many of the newest checkpoints to average with --dir")
      ->check(CLI::Range(1, 1000))
      ->each([f](const std::string&) { f->last_given = true; });
  cmd->add_option("-o,--output", f->output, "Averaged model to write")->required();
  return [f] { return run_average(*f); };
}

}  // namespace heptapod::app
