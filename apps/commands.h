// The subcommands of the heptapod binary. Each registers its options on a CLI11 app and returns the
// function that runs it; main() only dispatches.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <functional>
#include <string>

namespace heptapod::app {

using Runner = std::function<int()>;

// A real number that is finite (CLI11's range checks let "nan" through, and "inf" and "1e999" parse).
inline const CLI::Validator kFinite(
    [](std::string& text) {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(text, &used);
      } catch (const std::exception&) {
        return std::string("\"") + text + "\" is not a number";
      }
      if (used != text.size()) return std::string("\"") + text + "\" is not a number";
      if (!std::isfinite(v)) return std::string("\"") + text + "\" is not a finite number";
      return std::string();
    },
    "FINITE");

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
