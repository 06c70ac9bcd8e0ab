// `heptapod score -m MODEL`: log-probabilities of given source/target pairs (a translation model) or of the
// lines of a text (a language model), one line each (and per token with --per-token), streaming a window at
// a time; for a language model, the text's perplexity and bits per character at the end (stderr).
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "commands.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/data/utf8.h"
#include "heptapod/decode/generator.h"
#include "heptapod/decode/translator.h"
#include "heptapod/io/model_file.h"
#include "line_io.h"
#include "precision_options.h"

namespace heptapod::app {

namespace {

struct ScoreFlags {
  std::string model, source, target, input, output;
  bool per_token = false, normalize = false;
  ModelLoadOptions translator;
  int threads = 0;
  int window = 10000;
};

// One output line per score: the log-probability (or per token), and each token's with --per-token.
std::string format_scores(const ScoreFlags& f, const std::vector<SentenceScore>& scores) {
  std::ostringstream text;
  text.precision(6);
  text << std::fixed;
  for (const SentenceScore& s : scores) {
    text << (f.normalize ? s.log_prob / s.tokens : s.log_prob);
    if (f.per_token)
      for (double t : s.token_log_probs) text << '\t' << t;
    text << '\n';
  }
  return text.str();
}

// A language model over the lines of a text, window by window; then the whole text's figures.
int score_text(const ScoreFlags& f) {
  require(f.source.empty() && f.target.empty(),
          f.model + " is a decoder-only model (a language model): score its text with --input, not --source/--target");
  Generator generator(f.model, f.translator);
  LineWindows input(f.input);
  LineProgress progress(f.input, f.output);
  double log_prob = 0;
  long long tokens = 0;
  TextLength length;
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> lines;
    while (input.next(static_cast<std::size_t>(f.window), lines)) {
      const std::vector<SentenceScore> scores = generator.score(lines);
      const std::size_t first = input.lines_read() - lines.size();
      for (std::size_t i = 0; i < lines.size(); ++i) {
        if (scores[i].truncated)
          std::fprintf(stderr, "warning: line %zu: longer than the model's learned positions; scored its first %d "
                               "tokens\n", first + i + 1, scores[i].tokens - 1);
        log_prob += scores[i].log_prob;
        tokens += scores[i].tokens;
        length.add(lines[i]);
      }
      emit(format_scores(f, scores));
      progress.update(input.lines_read(), input.bytes_read());
    }
  });
  progress.finish(input.lines_read(), input.bytes_read());
  const double bits = -log_prob / std::log(2.0);
  std::fprintf(stderr, "%zu lines, %lld tokens: perplexity %.4f, bits per character %.4f, bits per byte %.4f\n",
               input.lines_read(), tokens, std::exp(-log_prob / std::max(tokens, 1LL)),
               length.per_character(bits), length.per_byte(bits));
  return 0;
}

// Window by window over both files, as translate streams: memory bounded by the window.
int run_score(const ScoreFlags& f) {
  set_num_threads(f.threads);
  if (read_model_config(SafetensorsFile::read(f.model)).architecture == Architecture::DecoderOnly) return score_text(f);
  require(f.input.empty() && !f.source.empty() && !f.target.empty(),
          "score: a translation model scores --source and --target (line-aligned); --input is a language model's text");
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
      const std::vector<SentenceScore> scores = translator.score(src, tgt);
      for (std::size_t i = 0; i < scores.size(); ++i)
        if (scores[i].truncated)
          std::fprintf(stderr, "warning: pair %zu: longer than the model's learned positions; scored what fits\n",
                       sources.lines_read() - src.size() + i + 1);
      emit(format_scores(f, scores));
      progress.update(sources.lines_read(), sources.bytes_read());
    }
  });
  progress.finish(sources.lines_read(), sources.bytes_read());
  return 0;
}

}  // namespace

Runner add_score_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("score", "Log-probabilities of target sentences given source sentences, or of a "
                                           "language model's text line by line");
  auto f = std::make_shared<ScoreFlags>();
  cmd->add_option("-m,--model", f->model, "Model file")->required();
  cmd->add_option("--source", f->source, "Source sentences, one per line (a translation model)");
  cmd->add_option("--target", f->target, "Target sentences, line-aligned (a translation model)");
  cmd->add_option("-i,--input", f->input, "Text scored line by line (a language model; default: stdin)");
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
