// `heptapod score -m MODEL`: log-probabilities of given source/target pairs, one line per pair (and per
// token with --per-token), streaming a window of pairs at a time.
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
  int window = 10000;
};

// Window by window over both files, as translate streams: memory bounded by the window.
int run_score(const ScoreFlags& f) {
  set_num_threads(f.threads);
  Translator translator(f.model, f.translator);
  LineWindows sources(f.source), targets(f.target);
  LineProgress progress(f.source, f.output);
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> src, tgt;
    for (;;) {
      const bool more_src = sources.next(static_cast<std::size_t>(f.window), src);
      const bool more_tgt = targets.next(static_cast<std::size_t>(f.window), tgt);
      if (src.size() != tgt.size()) {
        // One file ended first: count the rest of the other for the message.
        std::vector<std::string> rest;
        while (sources.next(1 << 16, rest)) {
        }
        while (targets.next(1 << 16, rest)) {
        }
        throw Error("line counts differ: " + f.source + " has " + std::to_string(sources.lines_read()) + " lines, " +
                    f.target + " has " + std::to_string(targets.lines_read()));
      }
      if (!more_src || !more_tgt) return;
      std::ostringstream text;
      text.precision(6);
      text << std::fixed;
      for (const SentenceScore& s : translator.score(src, tgt)) {
        text << (f.normalize ? s.log_prob / s.tokens : s.log_prob);
        if (f.per_token)
          for (double t : s.token_log_probs) text << '\t' << t;
        text << '\n';
      }
      emit(text.str());
      progress.update(sources.lines_read(), sources.bytes_read());
    }
  });
  progress.finish(sources.lines_read(), sources.bytes_read());
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
  cmd->add_option("--window", f->window, "Pairs read and scored together before their results are written")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--per-token", f->per_token, "Also print each target token's log-probability (end token last)");
  cmd->add_flag("--normalize", f->normalize, "Print the log-probability per target token instead of the total");
  add_precision_options(cmd, f->translator);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f] { return run_score(*f); };
}

}  // namespace heptapod::app
