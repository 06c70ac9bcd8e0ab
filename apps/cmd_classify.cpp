// `heptapod classify -m CLASSIFIER`: the classes of each input line from an encoder-only classifier (the
// Encoder front end), streaming a window of lines at a time: per line the --top-k most probable classes and
// their probabilities ("label<TAB>probability", tab-separated), or a JSON object per line with --json
// ({"labels": the prediction, "top": [{"label", "probability"}, ...]}).
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "heptapod/serve/encoder_api.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/kernels/threads.h"
#include "encoder_lines.h"
#include "line_io.h"
#include "precision_options.h"

namespace heptapod::app {

namespace {

struct ClassifyFlags {
  std::string model, input, output;
  ClassifyOptions options;
  ModelLoadOptions load;
  bool json = false;
  int threads = 0;
  int window = 10000;
};

std::string format_line(const Classification& c, bool json) {
  if (json) return classification_json(c).dump() + "\n";  // the server's /v1/classify objects too
  char probability[32];
  std::string line;
  for (const ClassScore& s : c.top) {
    std::snprintf(probability, sizeof probability, "%.6f", static_cast<double>(s.probability));
    line += (line.empty() ? "" : "\t") + s.label + "\t" + probability;
  }
  return line + "\n";
}

int run_classify(const ClassifyFlags& f) {
  set_num_threads(f.threads);
  Encoder encoder(f.model, f.load, "classification");
  require(encoder.config().labels > 0,
          f.model + ": an encoder without a classifier (train one with --task classify, or embed with it)");
  LineWindows input(f.input);
  LineProgress progress(f.input, f.output);
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> lines;
    while (input.next(static_cast<std::size_t>(f.window), lines)) {
      const std::size_t first = input.lines_read() - lines.size();
      const auto inputs = encode_window(encoder, lines, f.options.pairs, f.input, first, "classified by");
      std::string text;
      for (const Classification& c : encoder.classify_inputs(inputs, f.options)) text += format_line(c, f.json);
      emit(text);
      progress.update(input.lines_read(), input.bytes_read());
    }
  });
  progress.finish(input.lines_read(), input.bytes_read());
  return 0;
}

}  // namespace

Runner add_classify_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("classify", "The classes of each input line from an encoder-only classifier");
  auto f = std::make_shared<ClassifyFlags>();
  cmd->add_option("-m,--model", f->model, "Classifier model file (train --task classify)")->required();
  cmd->add_option("-i,--input", f->input, "Text, one input per line (default: stdin)");
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout)");
  cmd->add_option("--top-k", f->options.top_k, "Classes listed per line, most probable first")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--pairs", f->options.pairs, "Each line is a sentence pair, its two texts separated by a tab (a classifier trained with --pairs reads "
                "pairs without it)");
  cmd->add_flag("--json", f->json, "A JSON object per line: {\"labels\": [...], \"top\": [{\"label\", \"probability\"}]}");
  cmd->add_option("--batch-tokens", f->options.batch_tokens, "Padded tokens per batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--window", f->window, "Lines read and classified together before their results are written")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_precision_options(cmd, f->load);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f] { return run_classify(*f); };
}

}  // namespace heptapod::app
