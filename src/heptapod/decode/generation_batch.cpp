// GenerationBatch: generation jobs as requests of the decoding loop, their outputs turned into texts.
#include "heptapod/decode/generation_batch.h"

#include <algorithm>

#include "heptapod/core/error.h"
#include "heptapod/decode/beam_search.h"
#include "heptapod/decode/output_text.h"
#include "heptapod/decode/sampling_search.h"

namespace heptapod {

struct GenerationBatch::Job {
  int id = 0;
  GenerationJob job;
  std::shared_ptr<SearchRequest> request;
  std::vector<OutputText> texts;        // per sample (one for a beam)
  std::vector<GeneratedText> outputs;   // samples by index, as they end
  bool drew = false, over = false;
};

namespace {

// The loop's positions for a batch's: a row feeds the start token and at most max_positions - 1 more.
DecodingLoopOptions loop_options(const GenerationBatchOptions& o, int position_limit) {
  return {o.cache, o.max_positions > 0 ? std::min(o.max_positions, position_limit) + 1 : 0};
}

}  // namespace

GenerationBatch::GenerationBatch(IncrementalDecoder& decoder, const Vocabulary& vocabulary,
                                 const GenerationBatchOptions& options)
    : vocabulary_(vocabulary), config_(decoder.config()), options_(options),
      loop_(decoder, loop_options(options, decoder.config().position_limit())) {
  require(options.max_rows > 0, "generation batch: max_rows must be positive");
  require(options.max_positions == 0 || options.max_positions > 1, "generation batch: max_positions must be at least 2");
  if (options_.max_positions > 0) options_.max_positions = std::min(options.max_positions, config_.position_limit());
}

GenerationBatch::~GenerationBatch() = default;

int GenerationBatch::free_rows() const { return options_.max_rows - loop_.rows() - loop_.waiting_rows(); }

void GenerationBatch::note_first_token(Job& j) {
  if (j.drew || j.request->tokens_taken() == 0) return;
  j.drew = true;
  if (j.job.first_token) j.job.first_token();
}

void GenerationBatch::send_piece(Job& j, int sample, std::string_view piece, const std::vector<TokenLogProb>& records,
                                 std::size_t first, std::size_t last) {
  thread_local std::vector<TokenLogProb> carried;
  carried.clear();
  const OutputText& text = j.texts[static_cast<std::size_t>(sample)];
  for (std::size_t i = first; i < std::min(last, records.size()); ++i) {
    carried.push_back(records[i]);
    carried.back().text_offset = text.token_start(i);
  }
  if (!piece.empty() || !carried.empty()) j.job.piece(sample, piece, carried);
}

GeneratedText GenerationBatch::output(Job& j, const Hypothesis& h, int text) {
  OutputText::Emit emit;
  if (j.job.piece && j.job.options.beam == 0)
    emit = [&j, &h](std::string_view piece, std::size_t first, std::size_t last) {
      send_piece(j, h.sample, piece, h.token_log_probs, first, last);
    };
  OutputText& output_text = j.texts[static_cast<std::size_t>(text)];
  OutputText::Finished f = output_text.finish(h.tokens, emit);
  GeneratedText g = generated_text(h, j.job.prompt.tokens.size(), std::move(f.text), f.stopped, f.tokens);
  for (std::size_t i = 0; i < g.token_log_probs.size(); ++i) g.token_log_probs[i].text_offset = output_text.token_start(i);
  g.text = j.job.prompt.text + g.new_text;
  warn_at_context(g, config_.position_limit(), j.job.options.max_tokens, j.job.prompt.warning);
  return g;
}

void GenerationBatch::check_options(const GenerationBatchOptions& batch, const GenerateOptions& o) {
  const int rows = rows_of(o);
  require(rows <= batch.max_rows, std::string("generate: ") + (o.beam > 0 ? "beam " : "nbest ") +
                                      std::to_string(rows) + " is more than the " + std::to_string(batch.max_rows) +
                                      " rows of the running batch");
  require(o.cache == batch.cache, "generate: the cache precision must be the running batch's (the server's)");
}

void GenerationBatch::check_prompt(const ModelConfig& config, const GenerationBatchOptions& batch,
                                   std::size_t tokens) {
  require(tokens > 0 || config.prompt_bos,
          "generate: an empty prompt: this model's sequences begin with their text, not a start token, so a prompt "
          "needs at least one token");
  require(batch.max_positions == 0 || static_cast<long>(tokens) < batch.max_positions,
          "generate: a prompt of " + std::to_string(tokens) + " tokens leaves no room for a new token within " +
              std::to_string(batch.max_positions) + " positions");
}

int GenerationBatch::add(GenerationJob job) {
  validate(job.options);
  const GenerateOptions& o = job.options;
  check_options(options_, o);
  check_prompt(config_, options_, job.prompt.tokens.size());
  const int prompt = static_cast<int>(job.prompt.tokens.size());
  SearchOptions search = search_options(o);
  if (options_.max_positions > 0) search.max_extra_length = std::min(o.max_tokens, options_.max_positions - prompt);
  auto owned = std::make_unique<Job>();
  Job* j = owned.get();
  j->id = next_id_++;
  j->job = std::move(job);
  const int texts = o.beam > 0 ? 1 : o.nbest;
  j->texts.reserve(static_cast<std::size_t>(texts));
  for (int s = 0; s < texts; ++s)
    j->texts.emplace_back(vocabulary_, j->job.prompt.text, j->job.prompt.tokens.size(), j->job.options.stop,
                          j->job.options.logprobs >= 0);
  j->outputs.resize(static_cast<std::size_t>(o.nbest));

  SearchHooks hooks;
  const bool streamed = static_cast<bool>(j->job.piece) && o.beam == 0;
  hooks.stop_after = [j, streamed](int sample, const std::vector<int>& tokens,
                                   const std::vector<TokenLogProb>& records) {
    OutputText::Emit emit;
    if (streamed)
      emit = [j, sample, &records](std::string_view piece, std::size_t first, std::size_t last) {
        send_piece(*j, sample, piece, records, first, last);
      };
    return j->texts[static_cast<std::size_t>(sample)].advance(tokens, emit);
  };
  hooks.ended = [this, j](const Hypothesis& h) { j->outputs[static_cast<std::size_t>(h.sample)] = output(*j, h, h.sample); };
  hooks.done = [this, j](std::vector<Hypothesis> outputs) {
    if (j->job.options.beam > 0) {  // a beam's best, best first
      j->outputs.clear();
      for (const Hypothesis& h : outputs) j->outputs.push_back(output(*j, h, 0));
    }
    note_first_token(*j);
    j->over = true;
    if (j->job.done) j->job.done(std::move(j->outputs), j->job.prompt.warning);
  };
  const std::vector<int> none;  // a language model reads no source
  if (o.beam > 0)
    j->request = beam_request(config_, none, j->job.prompt.tokens, search, std::move(hooks));
  else
    j->request = sample_request(config_, none, j->job.prompt.tokens, search, o.sampling, std::move(hooks));
  loop_.add(j->request);
  jobs_.push_back(std::move(owned));
  return j->id;
}

void GenerationBatch::cancel(int id) {
  for (auto& j : jobs_)
    if (j->id == id) j->request->cancel();  // the loop drops it at the next step, calling nothing of it
  std::erase_if(jobs_, [id](const std::unique_ptr<Job>& j) { return j->id == id; });
}

int GenerationBatch::step() {
  const int taken = loop_.step();
  for (auto& j : jobs_) note_first_token(*j);
  std::erase_if(jobs_, [](const std::unique_ptr<Job>& j) { return j->over; });
  return taken;
}

}  // namespace heptapod
