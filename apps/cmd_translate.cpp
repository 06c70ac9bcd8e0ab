// `heptapod translate -m MODEL`: translates lines from stdin or a file, in input order, to stdout or a file,
// streaming: a window of lines at a time.
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/decode/translator.h"
#include "line_io.h"
#include "precision_options.h"
#include "search_options.h"

namespace heptapod::app {

namespace {

struct TranslateFlags {
  std::string model, input, output, target_prefix;
  TranslateOptions options;
  bool alignments = false, scores = false;
  ModelLoadOptions translator;
  int threads = 0;
  int window = 10000;
};

// The output lines of one window's translations; line ids (n-best) count from `first`.
std::string format_window(const TranslateFlags& f, const std::vector<Translation>& out, std::size_t first) {
  std::ostringstream text;
  const bool nbest = f.options.search.nbest > 1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::size_t id = first + i;
    if (!out[i].warning.empty()) std::fprintf(stderr, "warning: line %zu: %s\n", id + 1, out[i].warning.c_str());
    if (out[i].hypotheses.empty()) {
      if (nbest) text << id << " ||| ||| 0\n";
      else text << "\n";
      continue;
    }
    const std::size_t shown = nbest ? out[i].hypotheses.size() : 1;
    for (std::size_t h = 0; h < shown; ++h) {
      const TranslatedHypothesis& t = out[i].hypotheses[h];
      if (nbest) text << id << " ||| ";
      text << t.text;
      if (nbest || f.scores) text << " ||| " << t.score;
      if (f.alignments) text << " ||| " << t.alignment;
      text << "\n";
    }
  }
  return text.str();
}

// Window by window: read `window` lines, translate them (sorted by length within the window), write their
// results in input order, go on. Memory is bounded by the window, not by the input.
int run_translate(const TranslateFlags& f) {
  set_num_threads(f.threads);
  Translator translator(f.model, f.translator);
  // Language codes the model lacks fail here, before any input is read.
  translator.languages().tags(f.options.source_language, f.options.target_language, "--source-lang", "--target-lang");
  LineWindows input(f.input);
  std::optional<LineWindows> prefixes;  // line-aligned with the input
  const auto is_stdin = [](const std::string& path) { return path.empty() || path == "-"; };
  require(f.target_prefix.empty() || !is_stdin(f.target_prefix) || !is_stdin(f.input),
          "--target-prefix: standard input is the input already; give the prefixes as a file");
  if (!f.target_prefix.empty()) prefixes.emplace(f.target_prefix);
  LineProgress progress(f.input, f.output);
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> lines, prefix_lines;
    while (input.next(static_cast<std::size_t>(f.window), lines)) {
      const std::size_t first = input.lines_read() - lines.size();
      if (prefixes) {
        prefixes->next(lines.size(), prefix_lines);
        require(prefix_lines.size() == lines.size(),
                f.target_prefix + ": " + std::to_string(prefixes->lines_read()) + " lines, but the input has more");
      }
      emit(format_window(f, translator.translate(lines, f.options, prefix_lines), first));
      progress.update(input.lines_read(), input.bytes_read());
    }
    if (prefixes) {
      require(!prefixes->next(1, prefix_lines),
              f.target_prefix + ": more lines than the input's " + std::to_string(input.lines_read()));
    }
  });
  progress.finish(input.lines_read(), input.bytes_read());
  return 0;
}

}  // namespace

Runner add_translate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("translate", "Translate text with a trained model (beam search or sampling)");
  auto f = std::make_shared<TranslateFlags>();
  SearchOptions& s = f->options.search;
  cmd->add_option("-m,--model", f->model, "Model file (from heptapod train)")->required();
  cmd->add_option("-i,--input", f->input, "Input file, one sentence per line (default: stdin)");
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout)");
  cmd->add_option("--window", f->window,
                  "Lines read, sorted by length and translated together before their results are written (memory is "
                  "bounded by it; 1 for interactive use)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_search_options(cmd, f->options);
  cmd->add_option("--nbest", s.nbest, "Print this many hypotheses (or samples) per line as: id ||| text ||| score")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--target-prefix", f->target_prefix,
                  "File line-aligned with the input: each translation begins with its line (forced), the model "
                  "continuing it (an empty line forces nothing)");
  cmd->add_option("--source-lang", f->options.source_language,
                  "A multilingual model's source language: one of its codes (heptapod info lists them, e.g. fra_Latn, "
                  "__fr__, fr_XX) or an ISO 639-1 code (fr); the input is tagged with it");
  cmd->add_option("--target-lang", f->options.target_language,
                  "A multilingual model's target language, as --source-lang: every translation is forced to begin "
                  "with its code");
  CLI::Option* sample = cmd->add_flag("--sample", f->options.sample,
                "Draw each token from the model's distribution instead of beam search (back-translation); "
                "reproducible for a given --seed");
  for (CLI::Option* option : add_sampling_options(cmd, f->options.sampling, "With --sample: ")) option->needs(sample);
  cmd->add_flag("--scores", f->scores, "Append ||| score (length-normalised log-probability)");
  cmd->add_flag("--alignments", f->alignments, "Append ||| i-j source-target token alignments from attention");
  add_precision_options(cmd, f->translator);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f] {
    TranslateFlags flags = *f;
    if (!flags.options.sample) flags.options.search.beam = std::max(flags.options.search.beam, flags.options.search.nbest);
    return run_translate(flags);
  };
}

}  // namespace heptapod::app
