// heptapod: one binary, one subcommand per job. Errors in user input end here as one clear line.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
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
  add(heptapod::app::add_generate_command);
  add(heptapod::app::add_chat_command);
  add(heptapod::app::add_score_command);
  add(heptapod::app::add_embed_command);
  add(heptapod::app::add_classify_command);
  add(heptapod::app::add_serve_command);
  add(heptapod::app::add_quantize_command);
  add(heptapod::app::add_average_command);
  add(heptapod::app::add_merge_command);
  add(heptapod::app::add_plot_command);
  add(heptapod::app::add_convert_command);
  add(heptapod::app::add_bleu_command);
  add(heptapod::app::add_error_rate_command);
  // No subcommand, or one that does not exist: exit 2 with the list (CLI11 alone would say "A subcommand is
  // required" for both).
  const bool known = argc >= 2 && std::any_of(commands.begin(), commands.end(),
                                              [&](const auto& c) { return c.first->check_name(argv[1]); });
  if (argc < 2 || (argv[1][0] != '-' && !known)) {
    std::string names;
    for (const auto& [cmd, run] : commands) names += (names.empty() ? "" : ", ") + cmd->get_name();
    if (argc < 2) std::fprintf(stderr, "heptapod: a command is needed: %s (heptapod COMMAND --help for one's options)\n", names.c_str());
    else std::fprintf(stderr, "heptapod: unknown command \"%s\" (commands: %s)\n", argv[1], names.c_str());
    return 2;
  }
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
