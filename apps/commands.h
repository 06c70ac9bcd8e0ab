// The subcommands of the heptapod binary. Each registers its options on a CLI11 app and returns the
// function that runs it; main() only dispatches.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace heptapod::app {

using Runner = std::function<int()>;

Runner add_info_command(CLI::App& root);
Runner add_demo_command(CLI::App& root);
Runner add_convert_command(CLI::App& root);
Runner add_bleu_command(CLI::App& root);
Runner add_vocab_command(CLI::App& root);
Runner add_train_command(CLI::App& root);
Runner add_average_command(CLI::App& root);
Runner add_plot_command(CLI::App& root);
Runner add_translate_command(CLI::App& root);
Runner add_score_command(CLI::App& root);
Runner add_quantize_command(CLI::App& root);
Runner add_error_rate_command(CLI::App& root);
Runner add_serve_command(CLI::App& root);

}  // namespace heptapod::app
