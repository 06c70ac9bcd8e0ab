// The generation queue's worker: admit waiting prompts into the continuous batch, step it, hand each request
// its pieces and its result, drop what expired or was cancelled.
#include "heptapod/serve/generation_queue.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace heptapod {

using Clock = std::chrono::steady_clock;

struct GenerationQueue::Request {
  std::shared_ptr<GenerationTicket> ticket = std::make_shared<GenerationTicket>();
  std::vector<KeptPrompt> prompts;
  GenerateOptions options;
  bool stream = false;
  Clock::time_point submitted, deadline;
  std::size_t admitted = 0, finished = 0;  // prompts joined, and done
  std::vector<int> jobs;                   // their jobs in the batch
  std::vector<Generation> generations;     // (prompts)
  bool drew = false, over = false;         // a first token drawn; the request answered or dropped
  // Rows its prompts take in the batch: samples, or beams.
  int rows() const { return static_cast<int>(prompts.size()) * GenerationBatch::rows_of(options); }
};

void GenerationTicket::push(GenerationEvent event) {
  {
    std::lock_guard lock(mutex_);
    events_.push_back(std::move(event));
  }
  ready_.notify_one();
}

bool GenerationTicket::next(GenerationEvent& event, Clock::time_point until) {
  std::unique_lock lock(mutex_);
  if (!ready_.wait_until(lock, until, [&] { return !events_.empty(); })) return false;
  event = std::move(events_.front());
  events_.pop_front();
  return true;
}

namespace {

// The worker (and the compute threads it starts, which inherit its niceness) yields to the threads that read
// requests and write replies: a token made is worth little until it is written, and on few cores a waking
// writer otherwise waits behind the next steps' compute.
void lower_compute_priority() { ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 5); }

GenerationEvent failed(std::exception_ptr error) {
  GenerationEvent e;
  e.kind = GenerationEvent::Kind::Failed;
  e.error = std::move(error);
  return e;
}

}  // namespace

GenerationQueue::GenerationQueue(Generator& generator, const GenerationQueueOptions& options)
    : generator_(generator), options_(options), decoder_(std::make_unique<IncrementalDecoder>(generator.model())),
      batch_(std::make_unique<GenerationBatch>(*decoder_, generator.vocabulary(), options.batch)),
      batch_limits_(batch_->options()) {
  require(options.max_prefill_tokens > 0, "generation queue: max_prefill_tokens must be positive");
  require(options.max_queued_rows > 0, "generation queue: max_queued_rows must be positive");
  require(options.max_batch_requests >= 0, "generation queue: max_batch_requests must not be negative");
  worker_ = std::thread([this] { work(); });
}

GenerationQueue::~GenerationQueue() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  worker_.join();
}

std::shared_ptr<GenerationTicket> GenerationQueue::submit(std::vector<KeptPrompt> prompts, const GenerateOptions& options,
                                                          bool stream, Clock::time_point deadline) {
  validate(options);
  GenerationBatch::check_options(batch_limits_, options);
  for (const KeptPrompt& p : prompts) GenerationBatch::check_prompt(decoder_->config(), batch_limits_, p.tokens.size());
  auto r = std::make_shared<Request>();
  r->prompts = std::move(prompts);
  r->options = options;
  r->options.stream = nullptr;
  r->stream = stream;
  r->submitted = Clock::now();
  r->deadline = deadline;
  r->generations.resize(r->prompts.size());
  std::shared_ptr<GenerationTicket> ticket = r->ticket;
  {
    std::lock_guard lock(mutex_);
    require(!stopping_, "generation queue: stopping, no new requests");
    const int rows = r->rows();
    if (queued_rows_ > 0 && queued_rows_ + rows > options_.max_queued_rows) {
      ++stats_.refused;
      throw QueueFull("generation queue: full (" + std::to_string(queued_rows_) + " samples waiting, at most " +
                      std::to_string(options_.max_queued_rows) + ")");
    }
    queued_rows_ += rows;
    waiting_.push_back(std::move(r));
  }
  wake_.notify_one();
  return ticket;
}

GenerationStats GenerationQueue::stats() const {
  std::lock_guard lock(mutex_);
  GenerationStats s = stats_;
  s.queued_rows = queued_rows_;
  return s;
}

void GenerationQueue::work() {
  lower_compute_priority();
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait_for(lock, std::chrono::milliseconds(100),
                   [&] { return stopping_ || !waiting_.empty() || !batch_->empty(); });
    if (stopping_ && waiting_.empty() && batch_->empty()) return;
    expire(Clock::now());
    admit();
    if (batch_->empty()) continue;
    // The rows of the step about to run, joining ones included: a row may take its first token in it.
    const int rows = batch_->options().max_rows - batch_->free_rows();
    stats_.running_rows = rows;
    lock.unlock();
    const Clock::time_point start = Clock::now();
    int tokens = 0;
    try {
      tokens = batch_->step();
    } catch (...) {
      fail_running(std::current_exception());
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (options_.on_step) options_.on_step({rows, batch_->options().max_rows, tokens, seconds});
    lock.lock();
    stats_.running_rows = batch_->rows();
  }
}

void GenerationQueue::expire(Clock::time_point now) {
  auto drop = [&](Request& r, bool timed_out) {
    for (int id : r.jobs) batch_->cancel(id);
    r.over = true;
    if (timed_out) {
      ++stats_.expired;
      r.ticket->push(failed(std::make_exception_ptr(DeadlineExceeded("generation: the request's deadline passed"))));
    } else {
      ++stats_.cancelled;
    }
  };
  for (const auto& r : running_)
    if (!r->over && (r->ticket->cancelled() || r->deadline < now)) drop(*r, !r->ticket->cancelled());
  std::erase_if(running_, [](const std::shared_ptr<Request>& r) { return r->over; });
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Request& r = **it;
    if (r.over || r.ticket->cancelled() || r.deadline < now) {
      if (!r.over) drop(r, !r.ticket->cancelled());
      queued_rows_ -= static_cast<int>(r.prompts.size() - r.admitted) * GenerationBatch::rows_of(r.options);
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void GenerationQueue::admit() {
  int budget = options_.max_prefill_tokens;
  bool joined = false;
  while (!waiting_.empty()) {
    const std::shared_ptr<Request> r = waiting_.front();
    if (r->admitted == 0 && options_.max_batch_requests > 0 &&
        static_cast<int>(running_.size()) >= options_.max_batch_requests)
      return;
    while (r->admitted < r->prompts.size()) {
      const int tokens = static_cast<int>(r->prompts[r->admitted].tokens.size());
      const int rows = GenerationBatch::rows_of(r->options);
      if (batch_->free_rows() < rows || (joined && tokens > budget)) return;
      if (r->admitted == 0) running_.push_back(r);
      start_job(r);
      budget -= tokens;
      joined = true;
      queued_rows_ -= rows;
    }
    waiting_.pop_front();
  }
}

void GenerationQueue::start_job(const std::shared_ptr<Request>& r) {
  const std::size_t p = r->admitted++;
  GenerationJob job;
  job.prompt = r->prompts[p];
  job.options = r->options;
  if (r->stream)
    job.piece = [r, p](int sample, std::string_view piece, std::span<const TokenLogProb> records) {
      GenerationEvent e;
      e.prompt = p;
      e.sample = sample;
      e.text = std::string(piece);
      e.token_log_probs.assign(records.begin(), records.end());
      r->ticket->push(std::move(e));
    };
  job.first_token = [this, r] {
    if (r->drew) return;
    r->drew = true;
    if (options_.on_first_token) options_.on_first_token(std::chrono::duration<double>(Clock::now() - r->submitted).count());
  };
  job.done = [r, p](std::vector<GeneratedText> samples, std::string warning) {
    r->generations[p].outputs = std::move(samples);
    r->generations[p].warning = std::move(warning);
    if (++r->finished < r->prompts.size() || r->over) return;
    r->over = true;
    GenerationEvent e;
    e.kind = GenerationEvent::Kind::Done;
    e.generations = std::move(r->generations);
    r->ticket->push(std::move(e));
  };
  r->jobs.push_back(batch_->add(std::move(job)));
}

void GenerationQueue::fail_running(std::exception_ptr error) {
  for (const auto& r : running_)
    if (!r->over) {
      r->over = true;
      r->ticket->push(failed(error));
    }
  batch_ = std::make_unique<GenerationBatch>(*decoder_, generator_.vocabulary(), options_.batch);
}

}  // namespace heptapod
