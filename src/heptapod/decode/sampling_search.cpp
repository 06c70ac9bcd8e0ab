// Sampling: one decoder row per sample, each drawing from its own counter-based random stream.
#include "heptapod/decode/sampling_search.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"
#include "heptapod/decode/sentence_request.h"

namespace heptapod {

std::uint64_t sample_stream(const std::vector<int>& source, const std::vector<int>& prefix, int index) {
  std::uint64_t h = mix64(static_cast<std::uint64_t>(index) + 0x5851F42D4C957F2Dull);
  for (int t : source) h = mix64(h ^ static_cast<std::uint32_t>(t));
  h = mix64(h ^ 0xFFFFFFFFull);  // between source and prefix
  for (int t : prefix) h = mix64(h ^ static_cast<std::uint32_t>(t));
  return h;
}

int draw_sample(const float* logits, int V, SampleRow& row, int forced, bool end_allowed, const SampleDraw& d,
                std::vector<float>& model, std::vector<float>& warped) {
  thread_local RowExps exps;  // the model's terms: one pass of exp over the vocabulary serves every step below
  model.assign(logits, logits + V);
  int token = forced;
  if (token < 0) {  // drawn, under the guards, from the row without the tokens it may not take
    apply_repetition_guards(model.data(), V, row.tokens, d.guards);
    warped = model;
    for (int id : d.banned) warped[id] = kRemovedLogit;
    if (!end_allowed) {
      warped[d.config.eos_id] = kRemovedLogit;
      for (int id : d.config.extra_eos_ids) warped[id] = kRemovedLogit;
    }
  }
  exps.compute(model.data(), V, token < 0 ? warped.data() : nullptr);
  if (token < 0) {
    apply_sampling_warpers(warped.data(), V, d.sampling, &exps);
    const auto step = static_cast<std::uint64_t>(row.tokens.size());  // tokens made: the draw's counter
    token = draw_token(warped.data(), V, counter_uniform(d.sampling.seed, row.stream, step), &exps);
  }
  if (token >= 0)  // the token's log-probability, as log_softmax gives it
    row.log_prob += static_cast<float>(model[token] - exps.log_normalizer());
  return token;
}

namespace {

class SampleRequest final : public SentenceRequest {
 public:
  SampleRequest(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix, const SearchOptions& o,
                const SamplingOptions& sampling, SearchHooks hooks)
      : SentenceRequest(config, std::move(source), std::move(prefix), o, std::move(hooks)), sampling_(sampling) {
    require(o.nbest >= 1, "sampling: need at least one sample per sentence");
    validate(sampling);
    for (int s = 0; s < o.nbest; ++s) {
      Row row;
      row.sample = s;
      row.draw.stream = sample_stream(source_, prefix_, s);
      row.draw.tokens = first_tokens();
      rows_.push_back(std::move(row));
    }
  }

  int initial_rows() const override { return options_.nbest; }
  int next_input(int row) const override { return input_after(rows_[row].draw.tokens); }
  bool needs_logits() const override { return true; }
  int top() const override { return 1; }

  void score_row(int r, int decoder_row, const StepOutput& out) override {
    thread_local std::vector<float> model, warped;  // (V) the row's log-probabilities, and its logits as drawn from
    Row& row = rows_[r];
    const int made = static_cast<int>(row.draw.tokens.size()) - prompt_;
    const SampleDraw draw{options_.guards, sampling_, banned_, config_};
    const float* logits = out.logits + static_cast<long>(decoder_row) * out.vocab;  // (V)
    row.drawn = draw_sample(logits, out.vocab, row.draw, forced(row.draw.tokens.size()), made >= options_.min_length,
                            draw, model, warped);
    if (options_.logprobs >= 0 && row.drawn >= 0)
      row.drawn_log_prob = token_log_prob(logits, row_log_probs(logits, out.vocab, options_.logprobs), row.drawn);
  }

  std::vector<int> advance(const StepOutput& out, int first_row) override {
    std::vector<int> parents;
    std::vector<Row> next;
    for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
      Row& row = rows_[r];
      const int token = row.drawn;
      // Nothing left to draw (every token banned or guarded against): the sample ends here, as at the limit.
      const bool exhausted = token < 0, ended = token >= 0 && config_.is_end(token);
      if (!exhausted) {
        ++taken_;
        row.draw.alignment.push_back(aligned_source_position(*out.decoder, first_row + r));
      }
      if (!ended && !exhausted) {
        row.draw.tokens.push_back(token);
        if (options_.logprobs >= 0) row.log_probs.push_back(std::move(row.drawn_log_prob));
      }
      const bool stopped = !ended && !exhausted && hooks_.stop_after &&
                           hooks_.stop_after(row.sample, row.draw.tokens, row.log_probs);
      if (ended || exhausted || stopped || static_cast<int>(row.draw.tokens.size()) >= limit_) {
        Hypothesis h = finished_hypothesis(std::move(row.draw.tokens), std::move(row.draw.alignment),
                                           static_cast<float>(row.draw.log_prob), ended, options_.length_penalty,
                                           prompt_, std::move(row.log_probs));
        h.sample = row.sample;
        if (hooks_.ended) hooks_.ended(h);
        finished_.push_back(std::move(h));
        continue;
      }
      parents.push_back(r);
      next.push_back(std::move(row));
    }
    rows_ = std::move(next);
    return parents;
  }

  void finish() override {
    if (hooks_.done) hooks_.done(std::move(finished_));
  }

 private:
  struct Row {
    int sample = 0;
    SampleRow draw;  // tokens (prompt first), log-probability, random stream
    int drawn = -1;  // the token score_row drew
    TokenLogProb drawn_log_prob;          // its record (SearchOptions::logprobs >= 0)
    std::vector<TokenLogProb> log_probs;  // the records of its output tokens
  };

  SamplingOptions sampling_;
  std::vector<Row> rows_;
  std::vector<Hypothesis> finished_;
};

}  // namespace

std::unique_ptr<SearchRequest> sample_request(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix,
                                              const SearchOptions& options, const SamplingOptions& sampling,
                                              SearchHooks hooks) {
  return std::make_unique<SampleRequest>(config, std::move(source), std::move(prefix), options, sampling,
                                         std::move(hooks));
}

std::vector<std::vector<Hypothesis>> sample_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                   const SearchOptions& o, const SamplingOptions& sampling,
                                                   const std::vector<std::vector<int>>& prefixes) {
  require(o.nbest >= 1, "sampling: need at least one sample per sentence");
  validate_search(decoder.config(), sources, o, prefixes);
  validate(sampling);
  std::vector<std::vector<Hypothesis>> results(sources.size());
  DecodingLoop loop(decoder, {o.cache});
  for (std::size_t b = 0; b < sources.size(); ++b) {
    SearchHooks hooks;
    hooks.done = [&results, b](std::vector<Hypothesis> samples) {
      sort_best_first(samples);
      results[b] = std::move(samples);
    };
    loop.add(sample_request(decoder.config(), sources[b], prefixes.empty() ? std::vector<int>() : prefixes[b], o,
                            sampling, std::move(hooks)));
  }
  loop.run();
  return results;
}

}  // namespace heptapod
