// `heptapod error-rate REFS -i HYP`: token error rate (WER over words, PER over phonemes) and line error rate,
// with several acceptable references per line separated by " ||| ".
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "heptapod/eval/error_rate.h"
#include "line_io.h"

namespace heptapod::app {

namespace {

struct ErrorRateFlags {
  std::string references, input;
  std::string separator = "|||";
  bool json = false;
};

std::vector<std::string> split_alternatives(const std::string& line, const std::string& sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = line.find(sep, start);
    out.push_back(line.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + sep.size();
  }
  return out;
}

int run_error_rate(const ErrorRateFlags& f) {
  require(!f.separator.empty(), "--separator: an empty separator would split every reference everywhere");
  const auto hyps = read_input_lines(f.input);
  const auto ref_lines = read_input_lines(f.references);
  require(hyps.size() == ref_lines.size(), "line counts differ: " + (f.input.empty() ? std::string("stdin") : f.input) +
                                               " has " + std::to_string(hyps.size()) + " lines, " + f.references +
                                               " has " + std::to_string(ref_lines.size()));
  std::vector<std::vector<std::string>> refs;
  for (const auto& line : ref_lines) refs.push_back(split_alternatives(line, f.separator));
  const eval::ErrorRates r = eval::error_rates(hyps, refs);
  if (f.json) {
    const nlohmann::json j = {{"token_error_rate", r.token_error_rate()}, {"line_error_rate", r.line_error_rate()},
                              {"edits", r.edits}, {"reference_tokens", r.reference_tokens},
                              {"wrong_lines", r.wrong_lines}, {"lines", r.lines}};
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("token error rate = %.2f%% (%lld edits / %lld reference tokens)\n", r.token_error_rate(),
                static_cast<long long>(r.edits), static_cast<long long>(r.reference_tokens));
    std::printf("line error rate = %.2f%% (%lld of %lld lines wrong)\n", r.line_error_rate(),
                static_cast<long long>(r.wrong_lines), static_cast<long long>(r.lines));
  }
  return 0;
}

}  // namespace

Runner add_error_rate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("error-rate", "Token (WER/PER) and line error rates against one or more references");
  auto f = std::make_shared<ErrorRateFlags>();
  cmd->add_option("references", f->references, "References, one line per hypothesis; alternatives separated by |||")
      ->required();
  cmd->add_option("-i,--input", f->input, "Hypotheses (default: stdin)");
  cmd->add_option("--separator", f->separator, "Separator between alternative references");
  cmd->add_flag("--json", f->json, "Print JSON");
  return [f] { return run_error_rate(*f); };
}

}  // namespace heptapod::app
