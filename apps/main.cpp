// heptapod: one binary, one subcommand per job. Errors in user input end here as one clear line.
#include <cstdio>
#include <exception>
#include <vector>

#include "commands.h"
#include "heptapod/core/error.h"
#include "heptapod/kernels/isa.h"

int main(int argc, char** argv) {
  CLI::App root{"Heptapod: the Transformer of \"Attention Is All You Need\", trained and served in C++"};
  root.require_subcommand(1);
  root.set_version_flag("--version", HEPTAPOD_VERSION);
  std::vector<std::pair<CLI::App*, heptapod::app::Runner>> commands;
  auto add = [&](heptapod::app::Runner (*adder)(CLI::App&)) {
    const std::size_t before = root.get_subcommands({}).size();
    heptapod::app::Runner run = adder(root);
    commands.emplace_back(root.get_subcommands({})[before], std::move(run));
  };
  add(heptapod::app::add_info_command);
  add(heptapod::app::add_demo_command);
  add(heptapod::app::add_vocab_command);
  add(heptapod::app::add_train_command);
  add(heptapod::app::add_translate_command);
  add(heptapod::app::add_score_command);
  add(heptapod::app::add_serve_command);
  add(heptapod::app::add_quantize_command);
  add(heptapod::app::add_average_command);
  add(heptapod::app::add_plot_command);
  add(heptapod::app::add_convert_command);
  add(heptapod::app::add_bleu_command);
  add(heptapod::app::add_error_rate_command);
  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return root.exit(e);
  }
  try {
    heptapod::kernels::selected_isa();  // a bad HEPTAPOD_ISA is reported here, before any work
    for (auto& [cmd, run] : commands)
      if (cmd->parsed()) return run();
  } catch (const heptapod::Error& e) {
    std::fprintf(stderr, "heptapod: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heptapod: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
