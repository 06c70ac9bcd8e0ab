// `heptapod generate -m LM.htp`: continues prompts (--prompt, or one per line from a file or stdin) with a
// language model, writing one output per line (n-best: id ||| text ||| score; with --logprobs K, one JSON
// object per output with each new token's log-probability and its K most likely tokens); on a terminal each
// output streams as it is made (not with --logprobs).
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <sstream>

#include "commands.h"
#include "heptapod/decode/generator.h"
#include "heptapod/kernels/threads.h"
#include "heptapod/serve/log_probs_json.h"
#include "line_io.h"
#include "precision_options.h"
#include "search_options.h"

namespace heptapod::app {

namespace {

struct GenerateFlags {
  std::string model, input, output;
  std::optional<std::string> prompt;
  GenerateOptions options;
  ModelLoadOptions load;
  bool scores = false;
  int threads = 0;
  int window = 1000;
  ChosenSettings chosen;  // the settings given on the command line, over the model's generation defaults
};

// With --logprobs, an output as one JSON line: {"prompt" (from 0), "output" (its rank), "text", "new_text",
// "new_tokens", "log_prob", "score", "end", "logprobs": [{"token", "id", "bytes", "logprob", "top_logprobs":
// [{"token", "id", "bytes", "logprob"}]}] (serve/log_probs_json.h: one per token of new_text)}.
std::string json_line(const GeneratedText& g, std::size_t prompt, std::size_t output, const Vocabulary& vocab) {
  const nlohmann::json line = {{"prompt", prompt},           {"output", output},
                               {"text", g.text},             {"new_text", g.new_text},
                               {"new_tokens", g.new_tokens}, {"log_prob", g.log_prob},
                               {"score", g.score},           {"end", g.end},
                               {"logprobs", token_log_probs_json(g.token_log_probs, vocab)}};
  return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// The output lines of one window's generations; ids (n-best) count from `first`.
std::string format_window(const GenerateFlags& f, const std::vector<Generation>& out, std::size_t first,
                          const Vocabulary& vocab) {
  std::ostringstream text;
  const bool nbest = f.options.nbest > 1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!out[i].warning.empty()) std::fprintf(stderr, "warning: prompt %zu: %s\n", first + i + 1, out[i].warning.c_str());
    for (std::size_t s = 0; s < out[i].outputs.size(); ++s) {
      const GeneratedText& g = out[i].outputs[s];
      if (f.options.logprobs >= 0) {
        text << json_line(g, first + i, s, vocab);
        continue;
      }
      if (nbest) text << first + i << " ||| ";
      text << g.text;
      if (nbest || f.scores) text << " ||| " << g.score;
      text << "\n";
    }
  }
  return text.str();
}

// Writes every prompt's outputs, the options settled.
int run_generation(const GenerateFlags& f, Generator& generator);

int run_generate(const GenerateFlags& f) {
  set_num_threads(f.threads);
  require(!f.prompt || f.input.empty(), "--prompt and --input exclude each other");
  Generator generator(f.model, f.load);
  GenerateFlags flags = f;  // the model's generation defaults under the options given
  apply_generation_defaults(flags.options, generator.generation_defaults(), f.chosen);
  if (flags.options.beam > 0) flags.options.beam = std::max(flags.options.beam, flags.options.nbest);
  return run_generation(flags, generator);
}

int run_generation(const GenerateFlags& f, Generator& generator) {
  const bool to_terminal = (f.output.empty() || f.output == "-") && ::isatty(::fileno(stdout));
  const bool stream = to_terminal && !f.scores && f.options.nbest == 1 && f.options.beam == 0 && f.options.logprobs < 0;
  auto generate = [&](const std::vector<std::string>& prompts, std::size_t first,
                      const std::function<void(const std::string&)>& emit) {
    if (!stream) {
      emit(format_window(f, generator.generate(prompts, f.options), first, generator.vocabulary()));
      return;
    }
    // One prompt at a time: the prompt as kept, then its new text piece by piece as it is made (the same
    // bytes as the output written to a file).
    GenerateOptions o = f.options;
    o.stream = [&](std::size_t, std::string_view piece, std::span<const TokenLogProb>) { emit(std::string(piece)); };
    for (std::size_t i = 0; i < prompts.size(); ++i) {
      emit(generator.keep_prompt(prompts[i], o).text);
      const Generation g = generator.generate({prompts[i]}, o)[0];
      if (!g.warning.empty()) std::fprintf(stderr, "\nwarning: prompt %zu: %s\n", first + i + 1, g.warning.c_str());
      emit("\n");
    }
  };
  stream_output(f.output, [&](const std::function<void(const std::string&)>& emit) {
    if (f.prompt) {
      generate({*f.prompt}, 0, emit);
      return;
    }
    LineWindows input(f.input);
    LineProgress progress(f.input, f.output);
    std::vector<std::string> lines;
    while (input.next(static_cast<std::size_t>(f.window), lines)) {
      generate(lines, input.lines_read() - lines.size(), emit);
      progress.update(input.lines_read(), input.bytes_read());
    }
    progress.finish(input.lines_read(), input.bytes_read());
  });
  return 0;
}

}  // namespace

Runner add_generate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("generate", "Continue prompts with a language model (sampling or beam search)");
  auto f = std::make_shared<GenerateFlags>();
  GenerateOptions& o = f->options;
  cmd->add_option("-m,--model", f->model, "Language model file (heptapod train --arch decoder-only)")->required();
  cmd->add_option("--prompt", f->prompt, "The prompt (empty: from the start token); else one per line of --input");
  cmd->add_option("-i,--input", f->input, "Prompts, one per line (default: stdin)");
  cmd->add_option("-o,--output", f->output, "Output file (default: stdout; a terminal sees the text as it is made)");
  add_reply_options(cmd, o);
  cmd->add_option("--beam", o.beam, "Beam search of this width instead of sampling (1: greedy; 0: sample)")
      ->check(CLI::Range(0, 256));
  cmd->add_option("--alpha", o.length_penalty, "With --beam: length penalty alpha, ((5 + |Y|) / 6)^alpha")
      ->check(kFinite);
  cmd->add_option("--nbest", o.nbest, "Outputs per prompt (samples, or the beam's best) as: id ||| text ||| score")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--batch-size", o.batch_prompts, "Prompts prefilled and generated together")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-prompt-tokens", o.max_prompt_tokens, "Longer prompts keep their last tokens (with a warning)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--window", f->window, "Prompts read before their outputs are written")->check(CLI::PositiveNumber);
  cmd->add_flag("--scores", f->scores, "Append ||| score (log-probability of the new tokens)");
  cmd->add_option("--logprobs", o.logprobs,
                  "Write one JSON object per output (JSON Lines): {prompt, output, text, new_text, new_tokens, "
                  "log_prob, score, end, logprobs: [{token, id, bytes, logprob, top_logprobs: [{token, id, bytes, "
                  "logprob}]}]}, each new token's raw log-probability (before sampling settings, as `heptapod score "
                  "--per-token` gives it) with this many most likely tokens")
      ->check(CLI::Range(0, 20));
  add_precision_options(cmd, f->load);
  cmd->add_option("--threads", f->threads, "Threads (0: all cores)")->check(CLI::NonNegativeNumber);
  return [f, cmd] {
    GenerateFlags flags = *f;
    flags.chosen = chosen_settings(cmd);
    return run_generate(flags);
  };
}

}  // namespace heptapod::app
