// Continuous batching for a language model: sampled generations (greedy is temperature 0) share one running
// decoder batch. A job (one prompt's samples) joins at the next step and leaves as soon as it ends: the
// prompts of the jobs that join are prefilled together in the pass that also steps the running rows, and
// every row draws exactly what the Generator alone would draw for it (the same prefill and step passes per
// row, the same random stream: decode/sampling_search.h). With a batch-invariant compute type (int8,
// bfloat16) a job's outputs therefore do not depend on what shares its batch. Not thread-safe: one thread
// drives it (serve/generation_queue.h).
//
//   heptapod::GenerationBatch batch(generator, {});
//   batch.add(job);                 // joins at the next step()
//   while (!batch.empty()) batch.step();
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "heptapod/decode/generator.h"
#include "heptapod/decode/output_text.h"
#include "heptapod/decode/sampling_search.h"

namespace heptapod {

struct GenerationBatchOptions {
  int max_rows = 64;          // samples decoded together
  int max_positions = 2048;   // positions a row may reach (prompt and new tokens); the model's context bounds it too
  CachePrecision cache = CachePrecision::Float16;
};

// One prompt's samples, as a server asks for them.
struct GenerationJob {
  KeptPrompt prompt;        // Generator::keep_prompt's
  GenerateOptions options;  // beam 0 (sampling; temperature 0 is greedy): nbest samples, max_tokens, stop, ...
  // Each final piece of sample `sample`'s new text as it is made (empty: not streamed).
  std::function<void(int sample, std::string_view piece)> piece;
  // Once, after the job's first token was drawn.
  std::function<void()> first_token;
  // Once, when every sample has ended: the samples in draw order (GeneratedText::text is the prompt's text
  // and the new text).
  std::function<void(std::vector<GeneratedText> samples, std::string warning)> done;
};

class GenerationBatch {
 public:
  // The generator must outlive the batch; its model is shared (the batch keeps its own decoder state).
  GenerationBatch(Generator& generator, const GenerationBatchOptions& options);
  ~GenerationBatch();

  // Rows free for jobs that join at the next step.
  int free_rows() const;
  // Queues `job` to join at the next step; returns its id. Throws Error for options continuous batching does
  // not run (beam search) or a job that could never fit (more samples than max_rows, a prompt with no room
  // for a new token).
  int add(GenerationJob job);
  // Drops a job (its rows leave at the next step; `done` is not called). Unknown ids are ignored.
  void cancel(int id);
  // One pass through the model: the joining jobs' prompts prefilled, every running row fed its last token and
  // its next token drawn; rows that ended leave, and a job whose samples have all ended gets `done`. Returns
  // the tokens drawn.
  int step();

  bool empty() const { return jobs_.empty(); }
  int rows() const { return static_cast<int>(rows_.size()); }        // running rows
  const GenerationBatchOptions& options() const { return options_; }

 private:
  struct Job;
  struct Row {
    Job* job = nullptr;
    int sample = 0;
    SampleRow draw;  // tokens (prompt first), log-probability, random stream
  };

  Generator& generator_;
  GenerationBatchOptions options_;
  IncrementalDecoder decoder_;
  std::vector<int> banned_;
  std::vector<std::unique_ptr<Job>> jobs_;  // running and joining
  std::vector<Row> rows_;                   // one per decoder row, in the decoder's order
  std::vector<Job*> joining_;               // added since the last step
  int next_id_ = 0, pending_rows_ = 0;
};

}  // namespace heptapod
