// `heptapod score -m MODEL`: log-probabilities of given source/target pairs, one line per pair (and per
// token with --per-token).
#include <cstdio>
#include <memory>
#include <sstream>

#include "commands.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/decode/translator.h"
#include "line_io.h"
#include "precision_options.h"

namespace heptapod::app {

namespace {

struct ScoreFlags {
  std::string model, source, target, output;
  bool per_token = false, normalize = false;
  TranslatorOptions translator;
  int threads = 0;
};

int run_score(const ScoreFlags& f) {
  set_num_threads(f.threads);
  Translator translator(f.model, f.translator);
  const std::vector<std::string> src = read_input_lines(f.source);
  const std::vector<std::string> tgt = read_input_lines(f.target);
  require(src.size() == tgt.size(), "line counts differ: " + f.source + " has " + std::to_string(src.size()) +
                                        " lines, " + f.target + " has " + std::to_string(tgt.size()));
  const auto scores = translator.score(src, tgt);
  std::ostringstream text;
  text.precision(6);
  text << std::fixed;
  for (const SentenceScore& s : scores) {
    text << (f.normalize ? s.log_prob / s.tokens : s.log_prob);
    if (f.per_token)
      for (double t : s.token_log_probs) text << '\t' << t;
    text << '\n';
  }
  write_output(f.output, text.str());
  return 0;
}

}  // namespace

Runner add_score_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("score", "Log-probabilities of target sentences given source sentences");
  auto f = std::make_shared<ScoreFlags>();
  cmd->add_option("-m,--model", f->model, "Model file")->required();
  cmd->add_option("--source", f->source, "Source sentences, one per line")->required();
  cmd->add_option("--target", f->target, "Target sentences, line-aligned")->required();
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout)");
  cmd->add_flag("--per-token", f->per_token, "Also print each target token's log-probability (end token last)");
  cmd->add_flag("--normalize", f->normalize, "Print the log-probability per target token instead of the total");
  add_precision_options(cmd, f->translator);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)");
  return [f] { return run_score(*f); };
}

}  // namespace heptapod::app
