// Generation jobs on the decoding loop (decoding_loop.h): a language model's prompts, each continued by
// sampling (greedy is temperature 0) or beam search, share one running decoder batch. A job joins at the next
// step and leaves as soon as it ends; its rows draw or search exactly as they would alone (the same prefill
// and step passes per row, the same random streams), so with a batch-invariant compute type (int8, bfloat16)
// a job's outputs do not depend on what shares its batch. The Generator runs its prompts through one
// (generator.h), a server keeps one running (serve/generation_queue.h). Not thread-safe: one thread drives it.
//
//   heptapod::GenerationBatch batch(decoder, vocabulary, {});
//   batch.add(job);                 // joins at the next step()
//   while (!batch.empty()) batch.step();
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heptapod/data/vocabulary.h"
#include "heptapod/decode/decoding_loop.h"
#include "heptapod/decode/generate_options.h"

namespace heptapod {

struct GenerationBatchOptions {
  int max_rows = 64;          // rows decoded together (a sampling job's samples, a beam job's beam)
  // Positions a row may reach (prompt and new tokens; the model's context bounds it too). 0: what the jobs
  // that start a fresh batch need, later jobs joining when they fit (the Generator's batches).
  int max_positions = 2048;
  CachePrecision cache = CachePrecision::Float16;
};

// One prompt's outputs, as a server or the Generator asks for them.
struct GenerationJob {
  KeptPrompt prompt;        // Generator::keep_prompt's
  GenerateOptions options;  // beam 0: nbest samples (temperature 0 is greedy); else beam search; max_tokens, stop, ...
  // Each final piece of sample `sample`'s new text as it is made (sampling; empty: not streamed), with the
  // records of the tokens whose text it completes when options.logprobs >= 0 (GenerateOptions::stream's rule).
  std::function<void(int sample, std::string_view piece, std::span<const TokenLogProb> token_log_probs)> piece;
  // Once, after the job's first token was taken.
  std::function<void()> first_token;
  // Once, when the job has ended: its outputs (samples in draw order; a beam's best first); GeneratedText::text
  // is the prompt's text and the new text.
  std::function<void(std::vector<GeneratedText> outputs, std::string warning)> done;
};

class GenerationBatch {
 public:
  // The batch drives `decoder` (a decoder-only model's), which must outlive it, as must `vocabulary`.
  GenerationBatch(IncrementalDecoder& decoder, const Vocabulary& vocabulary, const GenerationBatchOptions& options);
  ~GenerationBatch();

  // Decoder rows a job of these options takes: its beam, or its samples.
  static int rows_of(const GenerateOptions& options) { return options.beam > 0 ? options.beam : options.nbest; }

  // Throw Error for a job `batch` could never run: more rows than max_rows or another cache precision; a prompt
  // of `tokens` with no room for a new token within max_positions, or an empty one where the model's sequences
  // begin with their text (config.prompt_bos false: nothing to continue). add() checks both; a server checks a
  // request's before queuing it.
  static void check_options(const GenerationBatchOptions& batch, const GenerateOptions& options);
  static void check_prompt(const ModelConfig& config, const GenerationBatchOptions& batch, std::size_t tokens);

  // Rows free for jobs that join at the next step.
  int free_rows() const;
  // Queues `job` to join at the next step; returns its id. Throws Error for a job that could never run here
  // (check_options, check_prompt).
  int add(GenerationJob job);
  // Drops a job (its rows leave at the next step; `done` is not called). Unknown ids are ignored.
  void cancel(int id);
  // One pass through the model (DecodingLoop::step): joining jobs' prompts prefilled, every running row's next
  // token taken; a job that has ended gets `done`. Returns the tokens taken.
  int step();

  // No job running or waiting, nor rows of a cancelled one that the next step drops.
  bool empty() const { return loop_.empty(); }
  int rows() const { return loop_.rows(); }  // running rows
  const GenerationBatchOptions& options() const { return options_; }

 private:
  struct Job;
  // An ended output as the job reports it: its new text cut at a stop string (streaming what was held back).
  GeneratedText output(Job& job, const Hypothesis& h, int text);
  // Calls the job's first_token once it has taken a token.
  static void note_first_token(Job& job);
  // Hands sample `sample`'s piece and the records of new tokens [first, last) (of `records`, a row's) to the
  // job's piece callback; nothing when both are empty.
  static void send_piece(Job& job, int sample, std::string_view piece, const std::vector<TokenLogProb>& records,
                         std::size_t first, std::size_t last);

  const Vocabulary& vocabulary_;
  const ModelConfig& config_;
  GenerationBatchOptions options_;
  DecodingLoop loop_;
  std::vector<std::unique_ptr<Job>> jobs_;  // running and joining
  int next_id_ = 0;
};

}  // namespace heptapod
