// Generation requests from any thread onto one continuous batch (decode/generation_batch.h): one worker thread
// owns the Generator; each request's prompts join the running batch at the next step, as rows free up and
// under the prefill budget, in arrival order; their text streams back as it is made. Beam search requests
// join the same batch, their beams as rows. The queue is bounded (a full queue refuses at
// once), each request has a deadline (it fails with DeadlineExceeded, queued or running), and a request whose
// client is gone is cancelled: its rows leave the batch at the next step.
//
//   heptapod::GenerationQueue queue(generator, {});
//   auto ticket = queue.submit({generator.keep_prompt("Once", o)}, o, /*stream=*/true, deadline);
//   heptapod::GenerationEvent e;
//   while (ticket->next(e, deadline) && e.kind == heptapod::GenerationEvent::Kind::Piece) ...
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "heptapod/decode/generation_batch.h"
#include "heptapod/decode/generator.h"
#include "heptapod/serve/batch_queue.h"

namespace heptapod {

// What the worker reports after each step (for metrics).
struct GenerationStepReport {
  int rows = 0, max_rows = 0;  // rows in the step's batch, and the batch's limit
  int tokens = 0;              // tokens drawn
  double seconds = 0;          // the step
};

struct GenerationQueueOptions {
  GenerationBatchOptions batch;
  int max_prefill_tokens = 2048;  // prompt tokens that join in one step (a lone prompt longer still joins)
  int max_queued_rows = 4096;     // samples waiting beyond which submit() refuses
  int max_batch_requests = 0;     // requests in the batch at once; 0: no limit, 1: each request alone
  std::function<void(const GenerationStepReport&)> on_step;  // called by the worker after each step, if set
  std::function<void(double seconds)> on_first_token;        // a request's time from submit to its first token
};

struct GenerationStats {
  std::uint64_t refused = 0, expired = 0, cancelled = 0;  // steps and tokens: ServerMetrics counts them (on_step)
  int queued_rows = 0;   // samples waiting to join
  int running_rows = 0;  // rows in the step running, or in the batch after the last step
};

// What a request's reader receives, in order: pieces (when streamed), then Done or Failed.
struct GenerationEvent {
  enum class Kind { Piece, Done, Failed };
  Kind kind = Kind::Piece;
  std::size_t prompt = 0;  // Piece: the prompt
  int sample = 0;          // and its sample
  std::string text;        // the piece
  std::vector<TokenLogProb> token_log_probs;  // with logprobs: the records of the tokens whose text it completes
  // Done: one per prompt; a sampled prompt's outputs in draw order, a searched one's best first.
  std::vector<Generation> generations;
  std::exception_ptr error;  // Failed: DeadlineExceeded, or the error generating raised
};

// One request's channel between the worker and its reader.
class GenerationTicket {
 public:
  // The next event, waiting until `until` at most; false when none came by then.
  bool next(GenerationEvent& event, std::chrono::steady_clock::time_point until);
  // The reader is gone (a client that left): the worker drops the request at its next step. Any thread.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }

 private:
  friend class GenerationQueue;
  void push(GenerationEvent event);

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<GenerationEvent> events_;
  std::atomic<bool> cancelled_{false};
};

class GenerationQueue {
 public:
  // The generator must outlive the queue and is used by the queue's worker alone from now on.
  GenerationQueue(Generator& generator, const GenerationQueueOptions& options);
  // Stops taking requests, finishes every request queued or running, joins the worker.
  ~GenerationQueue();
  GenerationQueue(const GenerationQueue&) = delete;
  GenerationQueue& operator=(const GenerationQueue&) = delete;

  // Queues the prompts (Generator::keep_prompt's) for generation with `options` (validated: an Error names
  // the option). stream: each piece of sampled text is sent as made. deadline: the request fails with
  // DeadlineExceeded if it is not done by then. Throws QueueFull when the queue is full, Error once stopping.
  std::shared_ptr<GenerationTicket> submit(std::vector<KeptPrompt> prompts, const GenerateOptions& options, bool stream,
                                           std::chrono::steady_clock::time_point deadline);

  GenerationStats stats() const;
  const GenerationQueueOptions& options() const { return options_; }

 private:
  struct Request;
  void work();
  // Moves waiting prompts into the batch while rows and the prefill budget allow. Called with the lock held.
  void admit();
  // Fails requests past their deadline and drops cancelled ones (waiting or running).
  void expire(std::chrono::steady_clock::time_point now);
  // Adds the request's next prompt to the batch as a job.
  void start_job(const std::shared_ptr<Request>& r);
  // Fails every running request with `error` (a step that threw) and starts a fresh batch.
  void fail_running(std::exception_ptr error);

  Generator& generator_;
  GenerationQueueOptions options_;
  std::unique_ptr<IncrementalDecoder> decoder_;  // the batch's state
  std::unique_ptr<GenerationBatch> batch_;  // the worker's; replaced after a step that failed
  const GenerationBatchOptions batch_limits_;  // its options (max_positions within the model's), for submit()
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Request>> waiting_;     // under mutex_
  std::vector<std::shared_ptr<Request>> running_;    // the worker's
  int queued_rows_ = 0;
  bool stopping_ = false;
  GenerationStats stats_;
  std::thread worker_;
};

}  // namespace heptapod
