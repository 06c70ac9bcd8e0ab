// The one decoding loop over the incremental decoder. A request is one sentence's rows under a search
// strategy (beam search and greedy: beam_search.h; sampling: sampling_search.h); requests join a running
// batch at the next step, every step feeds every row once in one pass, each request chooses its rows' next
// tokens from that pass, and a request leaves as soon as it has ended. The one-shot searches (beam_search,
// sample_search) add a batch of sentences and run it to the end; continuous batching (generation_batch.h)
// keeps it running as requests come and go. Not thread-safe: one thread drives it.
//
//   DecodingLoop loop(decoder, {CachePrecision::Float16});
//   loop.add(beam_request(config, source, {}, options, done));   // joins at the next step()
//   while (!loop.empty()) loop.step();
//
// A step: requests that were cancelled leave; waiting requests join (their sources encoded, their rows
// appended; each request's first row fed its prompt but the last token, bos first, and its other rows given
// that row's state); the running rows are fed their last token, in the same pass as the joining prompts
// when the batch was running; every running row is scored in parallel (SearchRequest::score_row), then each
// request in turn picks the rows that continue (SearchRequest::advance); the decoder keeps those rows.
#pragma once

#include <memory>
#include <vector>

#include "heptapod/decode/incremental_decoder.h"

namespace heptapod {

// What a step gives a request for its rows: every row's raw logits, or, when no request of the step needed
// them, every row's best `next->top` tokens.
struct StepOutput {
  const IncrementalDecoder* decoder = nullptr;
  const float* logits = nullptr;     // (rows, V) or null
  const NextTokens* next = nullptr;  // (rows, top) when logits is null
  int vocab = 0;                     // V
};

// One sentence's rows under a search strategy, as the loop drives them. Rows are the request's own, numbered
// from 0; the loop keeps them together in the decoder, the first at `first_row`.
class SearchRequest {
 public:
  virtual ~SearchRequest() = default;

  // The sentence's source tokens as the search takes them (empty for a language model).
  virtual const std::vector<int>& source() const = 0;
  // Rows it begins with (the beam, or the samples).
  virtual int initial_rows() const = 0;
  // Positions its rows may feed at most (its length limit and the start token): a bound on the decoder's.
  virtual int max_steps() const = 0;
  // Tokens its first row is fed before its first step (a prompt but its last token, bos first); empty: none.
  virtual std::vector<int> prefill() const = 0;
  // The token row `row` feeds at the next step.
  virtual int next_input(int row) const = 0;
  // Whether the next step must give its rows' whole logits (sampling, repetition guards, a forced token);
  // otherwise their best top() tokens suffice.
  virtual bool needs_logits() const = 0;
  virtual int top() const = 0;
  // Reads row `row`'s part of the step's output (its decoder row `decoder_row`); called for every row, in
  // parallel across rows.
  virtual void score_row(int row, int decoder_row, const StepOutput& out) = 0;
  // After every row was scored: the rows that continue, each as the index of the row it continues (repeats
  // allowed); empty when the request has ended. first_row: its first decoder row.
  virtual std::vector<int> advance(const StepOutput& out, int first_row) = 0;
  // Called once after advance() returned no rows: hands the request's outputs over.
  virtual void finish() = 0;

  // Makes it leave at the next step, its outputs not handed over.
  void cancel() { cancelled_ = true; }
  bool cancelled() const { return cancelled_; }
  // Tokens its rows have taken so far (a beam's candidates chosen, samples' draws).
  long tokens_taken() const { return taken_; }

 protected:
  long taken_ = 0;

 private:
  bool cancelled_ = false;
};

struct DecodingLoopOptions {
  CachePrecision cache = CachePrecision::Float16;
  // Positions a decoder row may feed (prompt, outputs and the start token); every request must fit. 0: what
  // the requests that start a fresh batch need, a later request waiting while it does not fit (the one-shot
  // searches).
  int max_steps = 0;
};

class DecodingLoop {
 public:
  // `decoder` must outlive the loop, which restarts it whenever a batch begins afresh.
  DecodingLoop(IncrementalDecoder& decoder, const DecodingLoopOptions& options);

  // Queues `request` to join at the next step. Throws Error for a request that could never fit (more
  // positions than options.max_steps).
  void add(std::shared_ptr<SearchRequest> request);
  // One pass through the model (see the header); returns the tokens taken.
  int step();
  // Steps until every request has ended.
  void run();

  bool empty() const { return running_.empty() && waiting_.empty(); }
  int rows() const { return decoder_.rows(); }  // running rows
  int waiting_rows() const;                     // rows of the requests that join at the next step
  const DecodingLoopOptions& options() const { return options_; }

 private:
  struct Running {
    std::shared_ptr<SearchRequest> request;
    int rows = 0;
  };
  // Drops the cancelled requests, running or waiting.
  void drop_cancelled();
  // Moves the waiting requests that fit into the decoder (started afresh when empty), after its rows: appends
  // to `runs` each new row's prefill tokens and to `first_rows` the row whose state it takes; returns them.
  std::vector<Running> join_waiting(std::vector<std::vector<int>>& runs, std::vector<int>& first_rows);

  IncrementalDecoder& decoder_;
  DecodingLoopOptions options_;
  std::vector<Running> running_;  // in the decoder's row order
  std::vector<std::shared_ptr<SearchRequest>> waiting_;
};

}  // namespace heptapod
