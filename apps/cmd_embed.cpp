// `heptapod embed -m ENCODER`: one vector per input line from an encoder-only model (the Encoder front end:
// sentence-transformers' pooling modes, its Dense module, optional L2 normalisation, by default the model's own), streaming a window of lines at a time, written as JSON
// lines (a JSON array of floats per line) or as a float32 .npy matrix (one row per line) when the output
// file ends in .npy or --format npy says so.
#include <cstdio>
#include <memory>
#include <sstream>

#include "commands.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/io/npy.h"
#include "heptapod/kernels/threads.h"
#include "encoder_lines.h"
#include "line_io.h"
#include "precision_options.h"

namespace heptapod::app {

namespace {

struct EmbedFlags {
  std::string model, input, output, format, pooling;
  bool normalize = false, no_normalize = false;
  EmbedOptions options;
  ModelLoadOptions load;
  int threads = 0;
  int window = 10000;
  int max_length = 0;  // 0: the model's own (a sentence-transformers model's max_seq_length)
};

// A vector as a JSON array, each float with the digits that read back to it.
std::string json_line(const std::vector<float>& v) {
  std::string line = "[";
  char number[32];
  for (std::size_t c = 0; c < v.size(); ++c) {
    std::snprintf(number, sizeof number, "%.9g", static_cast<double>(v[c]));
    line += (c ? ", " : "") + std::string(number);
  }
  return line + "]\n";
}

int run_embed(EmbedFlags f) {
  set_num_threads(f.threads);
  if (!f.pooling.empty()) f.options.pooling = pooling_from_name(f.pooling, "--pooling");
  require(!(f.normalize && f.no_normalize), "embed: --normalize and --no-normalize exclude each other");
  if (f.normalize || f.no_normalize) f.options.normalize = f.normalize;
  const bool to_file = !f.output.empty() && f.output != "-";
  const bool npy = f.format.empty() ? to_file && f.output.size() > 4 && f.output.ends_with(".npy") : f.format == "npy";
  require(!npy || to_file, "embed: .npy output goes to a file (-o FILE.npy); standard output takes --format jsonl");
  Encoder encoder(f.model, f.load);
  if (f.max_length > 0) encoder.limit_inputs(f.max_length, "--max-length");
  LineWindows input(f.input);
  LineProgress progress(f.input, f.output);
  // Each window's vectors, with a warning for every line cut to the model's learned positions.
  auto next_window = [&](std::vector<std::vector<float>>& vectors) {
    std::vector<std::string> lines;
    if (!input.next(static_cast<std::size_t>(f.window), lines)) return false;
    const std::size_t first = input.lines_read() - lines.size();
    vectors = encoder.embed_inputs(encode_window(encoder, lines, f.options.pairs, f.input, first, "embedded"), f.options);
    progress.update(input.lines_read(), input.bytes_read());
    return true;
  };
  std::vector<std::vector<float>> vectors;
  if (npy) {
    write_file_atomic(f.output, [&](std::ostream& out) {
      NpyMatrixWriter writer(out, encoder.embedding_width(f.options));
      while (next_window(vectors))
        for (const auto& v : vectors) writer.add_row(v.data());
      writer.finish();
    });
  } else {
    stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
      while (next_window(vectors)) {
        std::string text;
        for (const auto& v : vectors) text += json_line(v);
        emit(text);
      }
    });
  }
  progress.finish(input.lines_read(), input.bytes_read());
  return 0;
}

}  // namespace

Runner add_embed_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("embed", "One vector per input line from an encoder-only model (JSON lines or .npy)");
  auto f = std::make_shared<EmbedFlags>();
  cmd->add_option("-m,--model", f->model, "Encoder-only model file")->required();
  cmd->add_option("-i,--input", f->input, "Text, one input per line (default: stdin)");
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout); a name ending in .npy writes .npy");
  cmd->add_option("--format", f->format, "jsonl (a JSON array per line) or npy (float32, one row per line)")
      ->check(CLI::IsMember({"jsonl", "npy"}));
  cmd->add_option("--pooling", f->pooling,
                  "mean (of every token's vector), cls (the start token's), max (each dimension's largest), "
                  "mean_sqrt_len (the sum over the square root of the count), weightedmean (weighted by position "
                  "1..n) or lasttoken; default: the model's (a converted sentence-transformers model's pooling, "
                  "several modes concatenated and its Dense module, else mean)")
      ->check(CLI::IsMember({"mean", "cls", "max", "mean_sqrt_len", "weightedmean", "lasttoken"}));
  cmd->add_flag("--normalize", f->normalize,
                "Scale every vector to unit length (L2; the default of a sentence-transformers model with Normalize)");
  cmd->add_flag("--no-normalize", f->no_normalize, "Leave the vectors as pooled, whatever the model's default");
  cmd->add_flag("--pairs", f->options.pairs, "Each line is a sentence pair, its two texts separated by a tab (a classifier trained with --pairs reads "
                "pairs without it)");
  cmd->add_option("--batch-tokens", f->options.batch_tokens, "Padded tokens per batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-length", f->max_length,
                  "Cut longer inputs to this many tokens, with a warning for each (default: the model's "
                  "max_seq_length when converted from sentence-transformers, else its learned positions)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--window", f->window, "Lines read and embedded together before their vectors are written")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_precision_options(cmd, f->load);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f] { return run_embed(*f); };
}

}  // namespace heptapod::app
