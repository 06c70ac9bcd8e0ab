// The subcommands of the heptapod binary. Each registers its options on a CLI11 app and returns the
// function that runs it; main() only dispatches.
#pragma once

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace heptapod::app {

using Runner = std::function<int()>;

// The real number all of `text` spells, or nullopt.
inline std::optional<double> real_number(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// A check of real numbers: `allowed` says which are; `name` is the help's tag, `what` the message's words.
inline CLI::Validator real_check(std::function<bool(double)> allowed, const std::string& name,
                                 const std::string& what) {
  return CLI::Validator(
      [allowed, what](std::string& text) {
        const std::optional<double> v = real_number(text);
        if (!v) return std::string("\"") + text + "\" is not a number";
        return allowed(*v) ? std::string() : std::string("\"") + text + "\" is not " + what;
      },
      name);
}

// A real number that is finite (CLI11's range checks let "nan" through, and "inf" and "1e999" parse).
inline const CLI::Validator kFinite =
    real_check([](double v) { return std::isfinite(v); }, "FINITE", "a finite number");

// A rate in [0, 1): dropout, label smoothing.
inline const CLI::Validator kRate = real_check([](double v) { return v >= 0 && v < 1; }, "[0, 1)", "in [0, 1)");

// An integer that fits T, in decimal: what CLI11 2.1 does not check for 64-bit types, where
// "99999999999999999999" saturates and, unsigned, "-1" wraps around.
template <typename T>
CLI::Validator integer_check() {
  return CLI::Validator(
      [](std::string& text) {
        const bool negative = !text.empty() && text[0] == '-';
        const bool digits =
            text.size() > (negative ? 1u : 0u) &&
            std::all_of(text.begin() + negative, text.end(), [](char c) { return c >= '0' && c <= '9'; });
        errno = 0;
        bool fits = false;
        if constexpr (std::is_signed_v<T>) {
          const long long v = digits ? std::strtoll(text.c_str(), nullptr, 10) : 0;
          fits = digits && errno != ERANGE && v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
        } else {
          const unsigned long long v = digits && !negative ? std::strtoull(text.c_str(), nullptr, 10) : 0;
          fits = digits && !negative && errno != ERANGE && v <= std::numeric_limits<T>::max();
        }
        return fits ? std::string()
                    : std::string("\"") + text + "\" is not an integer in [" +
                          std::to_string(std::numeric_limits<T>::min()) + ", " +
                          std::to_string(std::numeric_limits<T>::max()) + "]";
      },
      "");
}

Runner add_info_command(CLI::App& root);
Runner add_demo_command(CLI::App& root);
Runner add_convert_command(CLI::App& root);
Runner add_bleu_command(CLI::App& root);
Runner add_vocab_command(CLI::App& root);
Runner add_train_command(CLI::App& root);
Runner add_average_command(CLI::App& root);
Runner add_merge_command(CLI::App& root);
Runner add_plot_command(CLI::App& root);
Runner add_translate_command(CLI::App& root);
Runner add_generate_command(CLI::App& root);
Runner add_chat_command(CLI::App& root);
Runner add_score_command(CLI::App& root);
Runner add_embed_command(CLI::App& root);
Runner add_classify_command(CLI::App& root);
Runner add_quantize_command(CLI::App& root);
Runner add_error_rate_command(CLI::App& root);
Runner add_serve_command(CLI::App& root);

}  // namespace heptapod::app
