// `heptapod translate -m MODEL`: translates lines from stdin or a file, in input order, to stdout or a file.
#include <cstdio>
#include <memory>
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
  std::string model, input, output;
  TranslateOptions options;
  bool alignments = false, scores = false;
  TranslatorOptions translator;
  int threads = 0;
};

int run_translate(const TranslateFlags& f) {
  set_num_threads(f.threads);
  Translator translator(f.model, f.translator);
  const std::vector<std::string> lines = read_input_lines(f.input);
  const std::vector<Translation> out = translator.translate(lines, f.options);
  std::ostringstream text;
  const bool nbest = f.options.search.nbest > 1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!out[i].warning.empty()) std::fprintf(stderr, "warning: line %zu: %s\n", i + 1, out[i].warning.c_str());
    if (out[i].hypotheses.empty()) {
      if (nbest) text << i << " ||| ||| 0\n";
      else text << "\n";
      continue;
    }
    const std::size_t shown = nbest ? out[i].hypotheses.size() : 1;
    for (std::size_t h = 0; h < shown; ++h) {
      const TranslatedHypothesis& t = out[i].hypotheses[h];
      if (nbest) text << i << " ||| ";
      text << t.text;
      if (nbest || f.scores) text << " ||| " << t.score;
      if (f.alignments) text << " ||| " << t.alignment;
      text << "\n";
    }
  }
  write_output(f.output, text.str());
  return 0;
}

}  // namespace

Runner add_translate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("translate", "Translate text with a trained model (beam search)");
  auto f = std::make_shared<TranslateFlags>();
  SearchOptions& s = f->options.search;
  cmd->add_option("-m,--model", f->model, "Model file (from heptapod train)")->required();
  cmd->add_option("-i,--input", f->input, "Input file, one sentence per line (default: stdin)");
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout)");
  add_search_options(cmd, f->options);
  cmd->add_option("--nbest", s.nbest, "Print this many hypotheses per line as: id ||| text ||| score")
      ->check(CLI::Range(1, 256));
  cmd->add_flag("--scores", f->scores, "Append ||| score (length-normalised log-probability)");
  cmd->add_flag("--alignments", f->alignments, "Append ||| i-j source-target token alignments from attention");
  add_precision_options(cmd, f->translator);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)");
  return [f] {
    TranslateFlags flags = *f;
    flags.options.search.beam = std::max(flags.options.search.beam, flags.options.search.nbest);
    return run_translate(flags);
  };
}

}  // namespace heptapod::app
