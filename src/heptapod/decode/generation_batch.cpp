// GenerationBatch: jobs join the running decoder state, rows draw their tokens as sample_search draws them,
// and jobs leave as their samples end.
#include "heptapod/decode/generation_batch.h"

#include <algorithm>

#include "heptapod/core/error.h"

namespace heptapod {

struct GenerationBatch::Job {
  int id = 0;
  GenerationJob job;
  SearchOptions search;          // search_options(job.options): the length penalty
  int limit = 0;                 // tokens a row may hold, prompt included
  std::vector<OutputText> texts;  // per sample
  std::vector<GeneratedText> samples;
  int running = 0;               // samples not yet ended
  bool cancelled = false, drew = false;
};


GenerationBatch::GenerationBatch(Generator& generator, const GenerationBatchOptions& options)
    : generator_(generator), options_(options), decoder_(generator.model()),
      banned_(banned_output_ids(generator.config())) {
  require(options.max_rows > 0, "generation batch: max_rows must be positive");
  require(options.max_positions > 1, "generation batch: max_positions must be at least 2");
  options_.max_positions = std::min(options.max_positions, generator.config().position_limit());
}

GenerationBatch::~GenerationBatch() = default;

int GenerationBatch::free_rows() const { return options_.max_rows - rows() - pending_rows_; }

int GenerationBatch::add(GenerationJob job) {
  validate(job.options);
  const GenerateOptions& o = job.options;
  require(o.beam == 0, "generation batch: beam search does not run in a continuous batch");
  require(o.nbest <= options_.max_rows, "generation batch: " + std::to_string(o.nbest) + " samples are more than " +
                                            std::to_string(options_.max_rows) + " rows");
  require(o.cache == options_.cache, "generation batch: a job's cache precision must be the batch's");
  const int prompt = static_cast<int>(job.prompt.tokens.size());
  require(prompt < options_.max_positions, "generation batch: a prompt of " + std::to_string(prompt) +
                                               " tokens leaves no room for a new token within " +
                                               std::to_string(options_.max_positions) + " positions");
  auto j = std::make_unique<Job>();
  j->id = next_id_++;
  j->search = search_options(o);
  j->limit = std::min(prompt + std::max(o.max_tokens, 1), options_.max_positions);
  j->running = o.nbest;
  j->samples.resize(static_cast<std::size_t>(o.nbest));
  j->job = std::move(job);
  j->texts.reserve(static_cast<std::size_t>(o.nbest));
  for (int s = 0; s < o.nbest; ++s)
    j->texts.emplace_back(generator_.vocabulary(), j->job.prompt.text, j->job.prompt.tokens.size(), j->job.options.stop);
  pending_rows_ += o.nbest;
  joining_.push_back(j.get());
  jobs_.push_back(std::move(j));
  return jobs_.back()->id;
}

void GenerationBatch::cancel(int id) {
  for (auto& j : jobs_)
    if (j->id == id) j->cancelled = true;
}

int GenerationBatch::step() {
  const ModelConfig& c = generator_.config();
  const int V = decoder_.vocabulary_size();
  // Cancelled jobs leave before anything is fed.
  std::vector<int> order;
  for (int r = 0; r < rows(); ++r)
    if (!rows_[r].job->cancelled) order.push_back(r);
  if (static_cast<int>(order.size()) < rows()) {
    std::vector<Row> kept;
    for (int r : order) kept.push_back(std::move(rows_[r]));
    decoder_.reorder(order);
    rows_ = std::move(kept);
  }
  std::erase_if(joining_, [](Job* j) { return j->cancelled; });
  std::erase_if(jobs_, [](const std::unique_ptr<Job>& j) { return j->cancelled; });
  const int running = rows();

  // The joining jobs' rows, after the running ones; each job's first row is fed its prompt but the last
  // token (bos first), as the Generator's prefill does, and its other rows take that row's state.
  std::vector<std::vector<int>> runs(static_cast<std::size_t>(running));
  for (int r = 0; r < running; ++r) runs[r] = {rows_[r].draw.tokens.empty() ? c.bos_id : rows_[r].draw.tokens.back()};
  std::vector<int> first_row_of;  // (joining rows) the row whose state each joining row takes
  bool prefill = false;
  for (Job* j : joining_) {
    const int zero = 0, n = j->job.options.nbest;
    if (rows_.empty())
      decoder_.start(nullptr, 1, 0, &zero, n, options_.max_positions + 1, options_.cache);
    else
      decoder_.join(nullptr, 1, 0, &zero, n);
    const int first = rows();
    const std::vector<int>& prompt = j->job.prompt.tokens;
    for (int s = 0; s < n; ++s) {
      Row row;
      row.job = j;
      row.sample = s;
      row.draw.tokens = prompt;
      row.draw.stream = sample_stream({}, &prompt, s);
      rows_.push_back(std::move(row));
      first_row_of.push_back(first);
      runs.emplace_back();
    }
    if (!prompt.empty()) {
      runs[static_cast<std::size_t>(first)] = {c.bos_id};
      runs[static_cast<std::size_t>(first)].insert(runs[static_cast<std::size_t>(first)].end(), prompt.begin(),
                                                   prompt.end() - 1);
      prefill = true;
    }
  }
  joining_.clear();
  pending_rows_ = 0;
  if (running == 0 && !prefill) {  // nothing to feed yet: the joined rows start from bos at the next step
    if (!rows_.empty()) return step();
    return 0;
  }

  // One pass: the running rows' step and the joining prompts' prefill (a joining row given no tokens stays
  // where it is). The running rows' logits are the same whichever call computes them.
  const float* logits = nullptr;  // (rows, V): the running rows' rows are read
  runs.resize(static_cast<std::size_t>(rows()));
  if (running == 0) {
    decoder_.feed(runs);
  } else if (rows() > running) {
    logits = decoder_.feed_logits(runs);
  } else {
    std::vector<int> tokens(static_cast<std::size_t>(running));
    for (int r = 0; r < running; ++r) tokens[r] = runs[r][0];
    logits = decoder_.step_logits(tokens);
  }

  // Every running row's next token, the rows drawn in parallel (each from its own stream: the same tokens on
  // any number of threads).
  std::vector<int> drawn_tokens(static_cast<std::size_t>(running));
#pragma omp parallel for schedule(static) if (running > 1)
  for (int r = 0; r < running; ++r) {
    thread_local std::vector<float> model_row, warped;  // (V) scratch of the row's draw
    Row& row = rows_[r];
    const GenerateOptions& o = row.job->job.options;
    const SampleDraw draw{o.guards, o.sampling, banned_, c.eos_id};
    drawn_tokens[r] = draw_sample(logits + static_cast<long>(r) * V, V, row.draw, -1, true, draw, model_row, warped);
  }

  int drawn = 0;
  order.clear();
  std::vector<Row> next;
  for (int r = 0; r < running; ++r) {
    Row& row = rows_[r];
    Job& j = *row.job;
    const int token = drawn_tokens[r];
    const bool exhausted = token < 0, ended = token == c.eos_id;
    if (!exhausted) {
      ++drawn;
      row.draw.alignment.push_back(0);  // no source to align with
      if (!j.drew && j.job.first_token) j.job.first_token();
      j.drew = true;
    }
    if (!ended && !exhausted) row.draw.tokens.push_back(token);
    OutputText::Emit emit;
    if (j.job.piece) emit = [&j, s = row.sample](std::string_view piece) { j.job.piece(s, piece); };
    const bool stopped = !ended && !exhausted && j.texts[row.sample].advance(row.draw.tokens, emit);
    if (!(ended || exhausted || stopped || static_cast<int>(row.draw.tokens.size()) >= j.limit)) {
      order.push_back(r);
      next.push_back(std::move(row));
      continue;
    }
    const std::size_t prompt = j.job.prompt.tokens.size();
    const Hypothesis h = finished_hypothesis(std::move(row.draw.tokens), std::move(row.draw.alignment),
                                             static_cast<float>(row.draw.log_prob), ended, j.search.length_penalty,
                                             static_cast<int>(prompt));
    bool cut = false;
    std::string text = j.texts[row.sample].finish(h.tokens, emit, cut);
    GeneratedText g = generated_text(h, prompt, std::move(text), cut);
    g.text = j.job.prompt.text + g.new_text;
    warn_at_context(g, c.position_limit(), j.job.options.max_tokens, j.job.prompt.warning);
    j.samples[static_cast<std::size_t>(row.sample)] = std::move(g);
    if (--j.running == 0 && j.job.done) j.job.done(std::move(j.samples), j.job.prompt.warning);
  }
  for (int r = running; r < rows(); ++r) {  // joining rows, each taking its job's first row's state
    order.push_back(first_row_of[static_cast<std::size_t>(r - running)]);
    next.push_back(std::move(rows_[r]));
  }
  decoder_.reorder(order);
  rows_ = std::move(next);
  std::erase_if(jobs_, [](const std::unique_ptr<Job>& j) { return j->running == 0; });
  // A batch that never empties joins sentences for ever: the decoder forgets the finished ones' records.
  if (decoder_.sentences() > 2 * static_cast<int>(jobs_.size()) + 64) decoder_.compact_sentences();
  return drawn;
}

}  // namespace heptapod
