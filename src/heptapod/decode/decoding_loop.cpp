// DecodingLoop: requests join, every row is fed and scored once per step, requests choose and leave.
#include "heptapod/decode/decoding_loop.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/model/batch.h"

namespace heptapod {

DecodingLoop::DecodingLoop(IncrementalDecoder& decoder, const DecodingLoopOptions& options)
    : decoder_(decoder), options_(options) {
  require(options.max_steps >= 0, "decoding loop: max_steps must be 0 or more");
}

void DecodingLoop::add(std::shared_ptr<SearchRequest> request) {
  require(options_.max_steps == 0 || request->max_steps() <= options_.max_steps,
          "decoding loop: a request needs " + std::to_string(request->max_steps()) + " positions, more than the " +
              std::to_string(options_.max_steps) + " a row may feed");
  waiting_.push_back(std::move(request));
}

int DecodingLoop::waiting_rows() const {
  int rows = 0;
  for (const auto& request : waiting_) rows += request->initial_rows();
  return rows;
}

void DecodingLoop::run() {
  while (!empty()) step();
}

void DecodingLoop::drop_cancelled() {
  std::erase_if(waiting_, [](const auto& request) { return request->cancelled(); });
  if (std::none_of(running_.begin(), running_.end(), [](const Running& run) { return run.request->cancelled(); }))
    return;
  std::vector<int> order;
  std::vector<Running> kept;
  int first = 0;
  for (Running& run : running_) {
    if (!run.request->cancelled()) {
      for (int r = 0; r < run.rows; ++r) order.push_back(first + r);
      kept.push_back(run);
    }
    first += run.rows;
  }
  decoder_.reorder(order);
  running_ = std::move(kept);
}

std::vector<DecodingLoop::Running> DecodingLoop::join_waiting(std::vector<std::vector<int>>& runs,
                                                              std::vector<int>& first_rows) {
  const bool fresh = decoder_.rows() == 0;
  int max_steps = fresh ? options_.max_steps : decoder_.max_steps();
  if (max_steps == 0)  // a fresh batch sized for the requests that start it
    for (const auto& request : waiting_) max_steps = std::max(max_steps, request->max_steps());
  std::vector<std::shared_ptr<SearchRequest>> joining, still;
  for (auto& request : waiting_) (request->max_steps() <= max_steps ? joining : still).push_back(std::move(request));
  waiting_ = std::move(still);

  // Requests with the same number of rows join in one call, their sources encoded together.
  std::vector<Running> joined;
  for (std::size_t g = 0; g < joining.size();) {
    const int n = joining[g]->initial_rows();
    std::size_t end = g;
    std::vector<std::vector<int>> sources;
    for (; end < joining.size() && joining[end]->initial_rows() == n; ++end) sources.push_back(joining[end]->source());
    const PaddedSources padded = pad_sources(sources, decoder_.config());
    const int B = static_cast<int>(sources.size());
    int first = decoder_.rows();
    if (fresh && g == 0)
      decoder_.start(padded.tokens.data(), B, padded.S, padded.lengths.data(), n, std::max(max_steps, 1),
                     options_.cache);
    else
      decoder_.join(padded.tokens.data(), B, padded.S, padded.lengths.data(), n);
    for (; g < end; ++g) {
      for (int r = 0; r < n; ++r) {
        runs.push_back(r == 0 ? joining[g]->prefill() : std::vector<int>());
        first_rows.push_back(first);
      }
      joined.push_back({std::move(joining[g]), n});
      first += n;
    }
  }
  return joined;
}

int DecodingLoop::step() {
  drop_cancelled();
  std::vector<std::vector<int>> runs;  // per decoder row: the tokens this pass feeds it
  std::vector<int> first_rows;         // per joining row: the row whose state it takes after the pass
  if (running_.empty()) {
    // A fresh batch: the prompts are prefilled in a pass of their own, then every row steps.
    if (waiting_.empty()) return 0;
    running_ = join_waiting(runs, first_rows);
    if (std::any_of(runs.begin(), runs.end(), [](const auto& run) { return !run.empty(); })) {
      decoder_.feed(runs);
      decoder_.reorder(first_rows);
    }
    runs.clear();
    first_rows.clear();
  }

  const int running = decoder_.rows();
  std::vector<int> tokens(static_cast<std::size_t>(running));  // (running) each row's next input
  std::vector<std::pair<SearchRequest*, int>> row_of;          // (running) each row's request and its row there
  bool logits_needed = false;
  int top = 1;
  for (const Running& run : running_) {
    for (int r = 0; r < run.rows; ++r) {
      tokens[row_of.size()] = run.request->next_input(r);
      row_of.emplace_back(run.request.get(), r);
    }
    logits_needed = logits_needed || run.request->needs_logits();
    top = std::max(top, run.request->top());
  }
  // Waiting requests join the running batch, their prompts prefilled in the same pass.
  std::vector<Running> joined;
  if (!waiting_.empty()) {
    for (int token : tokens) runs.push_back({token});
    joined = join_waiting(runs, first_rows);
  }

  StepOutput out{&decoder_, nullptr, nullptr, decoder_.vocabulary_size()};
  if (!joined.empty())
    out.logits = decoder_.feed_logits(runs);
  else if (logits_needed)
    out.logits = decoder_.step_logits(tokens);
  else
    out.next = &decoder_.step(tokens, top);

#pragma omp parallel for schedule(dynamic) if (out.logits != nullptr && running > 1)
  for (int r = 0; r < running; ++r) row_of[r].first->score_row(row_of[r].second, r, out);

  std::vector<int> order;  // the decoder rows kept, in their new order
  std::vector<Running> kept;
  long taken = 0;
  int first = 0;
  for (Running& run : running_) {
    const long before = run.request->tokens_taken();
    const std::vector<int> parents = run.request->advance(out, first);
    taken += run.request->tokens_taken() - before;
    if (parents.empty()) {
      run.request->finish();
    } else {
      for (int parent : parents) order.push_back(first + parent);
      kept.push_back({std::move(run.request), static_cast<int>(parents.size())});
    }
    first += run.rows;
  }
  order.insert(order.end(), first_rows.begin(), first_rows.end());
  for (Running& run : joined) kept.push_back(std::move(run));
  decoder_.reorder(order);
  running_ = std::move(kept);
  // A batch that never empties joins sentences for ever: the decoder forgets the finished ones' records.
  if (decoder_.sentences() > 2 * static_cast<int>(running_.size()) + 64) decoder_.compact_sentences();
  return static_cast<int>(taken);
}

}  // namespace heptapod
