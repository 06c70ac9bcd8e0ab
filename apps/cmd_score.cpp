// `heptapod score -m MODEL`: log-probabilities of given source/target pairs (a translation model), of the
// lines of a text (a language model), of a text's masked tokens (a pre-trained encoder) or of each line's true
// classes (a classifier, --labels), one line each (and per token with --per-token), streaming a window at a
// time; at the end the whole input's figures (stderr, and as JSON with --summary): a language model's
// perplexity and bits per character, an encoder's masked-token cross-entropy and accuracy, a classifier's
// accuracy and macro-F1.
#include <cmath>
#include <cstdio>
#include <chrono>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/data/utf8.h"
#include "heptapod/decode/encoder.h"
#include "heptapod/decode/generator.h"
#include "heptapod/decode/translator.h"
#include "heptapod/eval/classification_metrics.h"
#include "heptapod/io/atomic_file.h"
#include "heptapod/data/gguf_import.h"
#include "heptapod/io/model_file.h"
#include "encoder_lines.h"
#include "line_io.h"
#include "precision_options.h"

namespace heptapod::app {

namespace {

struct ScoreFlags {
  std::string model, source, target, input, output, labels, summary;
  std::string source_language, target_language;  // a multilingual model's pairs tagged as translate tags them
  bool per_token = false, normalize = false, pairs = false;
  ModelLoadOptions translator;
  MaskingOptions masking;
  std::uint64_t seed = 1;
  int threads = 0;
  int window = 10000;
  // A language model's text as one stream (decode/stream_scoring.h): --segment, --memory, --sliding-window.
  std::optional<int> segment, memory, sliding_window;
};

// The whole input's figures: into --summary as one JSON object (atomically), when given; called before the
// scores' own output is committed, so a summary that cannot be written leaves no output either.
void write_summary(const ScoreFlags& f, const nlohmann::json& figures) {
  if (f.summary.empty()) return;
  write_file_atomic(f.summary, [&](std::ostream& out) { out << figures.dump() << "\n"; });
}

// The next window of two line-aligned inputs; false once both are done. Inputs that end apart are an Error
// giving both files' line counts.
bool next_aligned(LineWindows& a, LineWindows& b, const std::string& a_name, const std::string& b_name,
                  std::size_t window, std::vector<std::string>& a_lines, std::vector<std::string>& b_lines) {
  const bool more_a = a.next(window, a_lines), more_b = b.next(window, b_lines);
  if (a_lines.size() != b_lines.size()) {
    // One file ended first: count the rest of the other for the message.
    std::vector<std::string> rest;
    while (a.next(1 << 16, rest)) {
    }
    while (b.next(1 << 16, rest)) {
    }
    throw Error("line counts differ: " + a_name + " has " + std::to_string(a.lines_read()) + " lines, " + b_name +
                " has " + std::to_string(b.lines_read()));
  }
  return more_a && more_b;
}

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

// The whole text's figures of a language model: stderr and --summary.
void report_text(const ScoreFlags& f, std::size_t lines, long long tokens, double log_prob, const TextLength& length,
                 nlohmann::json extra = nlohmann::json::object()) {
  const double bits = -log_prob / std::log(2.0), perplexity = std::exp(-log_prob / std::max(tokens, 1LL));
  std::fprintf(stderr, "%zu lines, %lld tokens: perplexity %.4f, bits per character %.4f, bits per byte %.4f\n", lines,
               tokens, perplexity, length.per_character(bits), length.per_byte(bits));
  extra.update({{"lines", lines}, {"tokens", tokens}, {"log_prob", log_prob}, {"perplexity", perplexity},
                {"bits_per_character", length.per_character(bits)}, {"bits_per_byte", length.per_byte(bits)}});
  write_summary(f, extra);
}

// A language model over a text read as one token stream (--segment with or without --memory, or
// --sliding-window): the whole input at once, one score per line (its tokens and end token given the text
// before it), then the figures with the time the scoring took.
int score_stream(const ScoreFlags& f, Generator& generator) {
  StreamScoring options;
  options.segment = f.segment.value_or(0);
  options.window = f.sliding_window.value_or(0);
  require(!f.memory || f.segment, "--memory goes with --segment");
  options.memory = f.memory.value_or(f.segment ? generator.config().memory_length : 0);
  validate(options, generator.config());
  LineWindows input(f.input);
  std::vector<std::string> lines, window;
  while (input.next(static_cast<std::size_t>(f.window), window)) lines.insert(lines.end(), window.begin(), window.end());
  const auto start = std::chrono::steady_clock::now();
  const std::vector<SentenceScore> scores = generator.score_stream(lines, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double log_prob = 0;
  long long tokens = 0;
  TextLength length;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    log_prob += scores[i].log_prob;
    tokens += scores[i].tokens;
    length.add(lines[i]);
  }
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    emit(format_scores(f, scores));
    std::fprintf(stderr, "scored in %.2f s (%.0f tokens/s)\n", seconds, tokens / std::max(seconds, 1e-9));
    report_text(f, lines.size(), tokens, log_prob, length,
                {{"mode", options.window > 0 ? "sliding-window" : options.memory > 0 ? "memory" : "blocks"},
                 {"segment", options.segment}, {"memory", options.memory}, {"window", options.window},
                 {"seconds", seconds}, {"tokens_per_second", tokens / std::max(seconds, 1e-9)}});
  });
  return 0;
}

// A language model over the lines of a text, window by window; then the whole text's figures.
int score_text(const ScoreFlags& f) {
  require(f.source.empty() && f.target.empty(),
          f.model + " is a decoder-only model (a language model): score its text with --input, not --source/--target");
  Generator generator(f.model, f.translator);
  if (f.segment || f.sliding_window || f.memory) return score_stream(f, generator);
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
    report_text(f, input.lines_read(), tokens, log_prob, length);
  });
  progress.finish(input.lines_read(), input.bytes_read());
  return 0;
}

// A pre-trained encoder's masked tokens, line by line: each line masked as pre-training masks (keyed by
// --seed and the line's number), the masked tokens' log-probability.
int score_masked(const ScoreFlags& f, Encoder& encoder) {
  LineWindows input(f.input);
  LineProgress progress(f.input, f.output);
  MaskedScoreOptions options;
  options.masking = f.masking;
  options.seed = f.seed;
  double log_prob = 0;
  long long tokens = 0, correct = 0;
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> lines;
    while (input.next(static_cast<std::size_t>(f.window), lines)) {
      const std::size_t first = input.lines_read() - lines.size();
      const std::vector<SentenceScore> scores =
          encoder.score_masked_inputs(encode_window(encoder, lines, f.pairs, f.input, first, "scored"), first, options);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        log_prob += scores[i].log_prob;
        tokens += scores[i].tokens;
        correct += scores[i].correct;
      }
      emit(format_scores(f, scores));
      progress.update(input.lines_read(), input.bytes_read());
    }
    const double ce = -log_prob / static_cast<double>(std::max(tokens, 1LL));
    const double accuracy = static_cast<double>(correct) / static_cast<double>(std::max(tokens, 1LL));
    std::fprintf(stderr, "%zu lines, %lld masked tokens: cross-entropy %.4f, perplexity %.4f, accuracy %.4f\n",
                 input.lines_read(), tokens, ce, std::exp(ce), accuracy);
    write_summary(f, {{"lines", input.lines_read()}, {"masked_tokens", tokens}, {"masked_ce", ce},
                      {"masked_ppl", std::exp(ce)}, {"masked_accuracy", accuracy}});
  });
  progress.finish(input.lines_read(), input.bytes_read());
  return 0;
}

// A classifier's lines against their true classes (--labels, line-aligned): each line's log-probability of
// its classes (the class's, or a multi-label line's sum over every class of log p or log (1 - p)).
int score_classes(const ScoreFlags& f, Encoder& encoder) {
  require(!f.labels.empty(), f.model + " is a classifier: score it with --labels (each --input line's classes)");
  require(!f.per_token && !f.normalize, "score: --per-token and --normalize are for tokens; a classifier scores "
                                        "each line's classes");
  const ModelConfig& c = encoder.config();
  const LabelNames& names = encoder.labels();
  const std::string input_name = f.input.empty() || f.input == "-" ? "the input" : f.input;
  LineWindows input(f.input), labels(f.labels);
  LineProgress progress(f.input, f.output);
  ClassifyOptions options;
  options.top_k = c.labels;
  ClassificationTally tally(c.labels);
  double log_prob = 0;
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> lines, label_lines;
    while (next_aligned(input, labels, input_name, f.labels, static_cast<std::size_t>(f.window), lines, label_lines)) {
      const std::size_t first = input.lines_read() - lines.size();
      const std::vector<Classification> results =
          encoder.classify_inputs(encode_window(encoder, lines, f.pairs, f.input, first, "scored"), options);
      std::ostringstream text;
      text.precision(6);
      text << std::fixed;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string where = f.labels + ":" + std::to_string(first + i + 1);
        const std::vector<int> truth = parse_classes(label_lines[i], names, where);
        require(c.multi_label || truth.size() == 1, where + ": several classes for a single-label classifier");
        std::vector<int> predicted;
        for (const std::string& name : results[i].labels) predicted.push_back(names.id_of(name));
        tally.add(truth, predicted);
        std::vector<double> p(static_cast<std::size_t>(c.labels));  // (labels)
        for (const ClassScore& s : results[i].top) p[static_cast<std::size_t>(s.id)] = s.probability;
        double line = 0;
        if (c.multi_label) {
          std::vector<char> is_true(static_cast<std::size_t>(c.labels), 0);
          for (int id : truth) is_true[static_cast<std::size_t>(id)] = 1;
          for (int l = 0; l < c.labels; ++l) {
            const double q = p[static_cast<std::size_t>(l)];
            line += std::log(std::max(is_true[static_cast<std::size_t>(l)] ? q : 1.0 - q, 1e-30));
          }
        } else {
          line = std::log(std::max(p[static_cast<std::size_t>(truth[0])], 1e-30));
        }
        log_prob += line;
        text << line << '\n';
      }
      emit(text.str());
      progress.update(input.lines_read(), input.bytes_read());
    }
    const double ce = -log_prob / static_cast<double>(std::max(tally.examples(), 1LL));
    std::fprintf(stderr, "%lld lines: accuracy %.4f, macro-F1 %.4f, cross-entropy %.4f\n", tally.examples(),
                 tally.accuracy(), tally.macro_f1(), ce);
    write_summary(f, {{"examples", tally.examples()}, {"accuracy", tally.accuracy()},
                      {"macro_f1", tally.macro_f1()}, {"ce", ce}});
  });
  progress.finish(input.lines_read(), input.bytes_read());
  return 0;
}

// An encoder-only model: a classifier's classes, or a pre-trained encoder's masked tokens.
int score_encoder(const ScoreFlags& f) {
  require(f.source.empty() && f.target.empty(),
          f.model + " is an encoder-only model: score its text with --input, not --source/--target");
  Encoder encoder(f.model, f.translator);
  if (encoder.config().labels > 0) return score_classes(f, encoder);
  require(f.labels.empty(), "score: --labels is for a classifier; " + f.model + " is a pre-trained encoder (its "
                            "masked tokens are scored)");
  return score_masked(f, encoder);
}

// Window by window over both files, as translate streams: memory bounded by the window.
int run_score(const ScoreFlags& f) {
  set_num_threads(f.threads);
  const Architecture kind = read_model_config(open_model_file(f.model)).architecture;
  require(!(f.segment || f.memory || f.sliding_window) || kind == Architecture::DecoderOnly,
          "score: --segment, --memory and --sliding-window score a language model's text as one stream; " + f.model +
              " is " + (kind == Architecture::EncoderOnly ? "an encoder-only" : "an encoder-decoder") + " model");
  require(kind == Architecture::EncoderDecoder || (f.source_language.empty() && f.target_language.empty()),
          "score: --source-lang and --target-lang tag a multilingual translation model's pairs; " + f.model + " is " +
              (kind == Architecture::EncoderOnly ? "an encoder-only" : "a decoder-only") + " model");
  if (kind == Architecture::EncoderOnly) return score_encoder(f);
  require(f.labels.empty(), "score: --labels is for a classifier (an encoder-only model)");
  require(!f.pairs, "score: --pairs is for an encoder-only model's sentence pairs");
  if (kind == Architecture::DecoderOnly) return score_text(f);
  require(f.input.empty() && !f.source.empty() && !f.target.empty(),
          "score: a translation model scores --source and --target (line-aligned); --input is a language model's text");
  Translator translator(f.model, f.translator);
  // Language codes the model lacks fail here, before any input is read.
  translator.languages().tags(f.source_language, f.target_language, "--source-lang", "--target-lang");
  LineWindows sources(f.source), targets(f.target);
  LineProgress progress(f.source, f.output);
  double log_prob = 0;
  long long tokens = 0;
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    std::vector<std::string> src, tgt;
    while (next_aligned(sources, targets, f.source, f.target, static_cast<std::size_t>(f.window), src, tgt)) {
      const std::vector<SentenceScore> scores = translator.score(src, tgt, 4096, f.source_language, f.target_language);
      for (const SentenceScore& s : scores) {
        log_prob += s.log_prob;
        tokens += s.tokens;
      }
      for (std::size_t i = 0; i < scores.size(); ++i)
        if (scores[i].truncated)
          std::fprintf(stderr, "warning: pair %zu: longer than the model's learned positions; scored what fits\n",
                       sources.lines_read() - src.size() + i + 1);
      emit(format_scores(f, scores));
      progress.update(sources.lines_read(), sources.bytes_read());
    }
    write_summary(f, {{"pairs", sources.lines_read()}, {"tokens", tokens}, {"log_prob", log_prob},
                      {"perplexity", std::exp(-log_prob / static_cast<double>(std::max(tokens, 1LL)))}});
  });
  progress.finish(sources.lines_read(), sources.bytes_read());
  return 0;
}

}  // namespace

Runner add_score_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("score", "Log-probabilities of target sentences given source sentences, of a "
                                           "language model's text line by line, of an encoder's masked tokens or "
                                           "of a classifier's true classes; the input's figures at the end");
  auto f = std::make_shared<ScoreFlags>();
  cmd->add_option("-m,--model", f->model, "Model file")->required();
  cmd->add_option("--source", f->source, "Source sentences, one per line (a translation model)");
  cmd->add_option("--target", f->target, "Target sentences, line-aligned (a translation model)");
  cmd->add_option("-i,--input", f->input, "Text scored line by line (a language model or an encoder; default: stdin)");
  cmd->add_option("--labels", f->labels, "A classifier's true classes of each --input line, on the line of the same "
                                         "number (several, space-separated: multi-label)");
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout)");
  cmd->add_option("--summary", f->summary, "Also write the whole input's figures to this file as one JSON object");
  cmd->add_option("--mask-rate", f->masking.rate, "A pre-trained encoder: the share of each line's tokens masked")
      ->check(CLI::Range(0.0, 1.0) & kFinite)
      ->capture_default_str();
  cmd->add_flag("--whole-word-mask", f->masking.whole_words, "A pre-trained encoder: mask whole words");
  cmd->add_flag("--pairs", f->pairs, "An encoder: each line is a sentence pair, its two texts separated by a tab");
  cmd->add_option("--seed", f->seed, "A pre-trained encoder: the seed of the masks (with each line's number)")
      ->check(integer_check<std::uint64_t>())
      ->capture_default_str();
  cmd->add_option("--window", f->window, "Pairs read and scored together before their results are written")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--segment", f->segment,
                  "A language model: score the input as one token stream (its lines as documents, end to end) in "
                  "segments of this many tokens, each over the memory of the text before it (a Transformer-XL "
                  "model; see --memory) or alone")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--memory", f->memory,
                  "With --segment: the positions of the text before each segment that it attends over (a model "
                  "trained with --positions relative; default: its training memory; 0: none)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--sliding-window", f->sliding_window,
                  "A language model: score the input as one token stream, every token from the this many tokens "
                  "before it, one forward pass per token (the vanilla baseline of Transformer-XL's evaluation)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--source-lang", f->source_language,
                  "A multilingual translation model's source language: one of its codes (heptapod info lists them) "
                  "or an ISO 639-1 code; each source is tagged with it, as translate tags it");
  cmd->add_option("--target-lang", f->target_language,
                  "A multilingual translation model's target language, as --source-lang: each target is scored "
                  "with its code first, as translate forces it (the code's log-probability included)");
  cmd->add_flag("--per-token", f->per_token, "Also print each target token's log-probability (end token last)");
  cmd->add_flag("--normalize", f->normalize, "Print the log-probability per target token instead of the total");
  add_precision_options(cmd, f->translator);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f] { return run_score(*f); };
}

}  // namespace heptapod::app
