// Beam search as a request of the decoding loop: a sentence's k rows, their best 2k extensions each step.
#include "heptapod/decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heptapod/core/error.h"
#include "heptapod/decode/sentence_request.h"

namespace heptapod {

namespace {

struct BeamRow {
  std::vector<int> tokens;     // the prefix or prompt, then the output
  std::vector<int> alignment;  // per output token
  std::vector<TokenLogProb> log_probs;  // per output token, with SearchOptions::logprobs >= 0
  float log_prob = 0;
  int parent = 0;  // the row (cache) this row continues
};

struct Candidate {
  float total;
  int row;
  int token;
};

class BeamRequest final : public SentenceRequest {
 public:
  BeamRequest(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix, const SearchOptions& o,
              SearchHooks hooks)
      : SentenceRequest(config, std::move(source), std::move(prefix), o, std::move(hooks)),
        top_(std::min(2 * o.beam + static_cast<int>(banned_.size()), config.tgt_vocab_size)) {
    require(o.beam >= 1 && o.nbest >= 1 && o.nbest <= o.beam, "search: need beam >= 1 and 1 <= nbest <= beam");
    rows_.resize(static_cast<std::size_t>(o.beam));
    ids_.resize(rows_.size() * static_cast<std::size_t>(top_));
    log_probs_.resize(ids_.size());
    if (o.logprobs >= 0) distributions_.resize(rows_.size());
    // At the first step every row is the same prefix: only the first one may expand.
    for (int r = 0; r < o.beam; ++r) {
      rows_[r].tokens = first_tokens();
      rows_[r].log_prob = r == 0 ? 0.0f : -std::numeric_limits<float>::infinity();
    }
  }

  int initial_rows() const override { return options_.beam; }
  int next_input(int row) const override { return input_after(rows_[row].tokens); }
  bool needs_logits() const override {
    if (options_.guards.active() || options_.logprobs >= 0) return true;
    return std::any_of(rows_.begin(), rows_.end(), [&](const BeamRow& row) { return forced(row.tokens.size()) >= 0; });
  }
  int top() const override { return top_; }

  // From whole logits: the row's best top_ tokens after the repetition guards, computed as the decoder's step
  // computes them; a row in its prefix has the forced token alone, with the model's log-probability. With
  // logprobs asked, also the row's raw distribution, for the records of its extensions.
  void score_row(int r, int decoder_row, const StepOutput& out) override {
    if (!out.logits) return;  // the decoder's own best tokens are read in advance()
    const int V = out.vocab;
    if (options_.logprobs >= 0)
      distributions_[r] = row_log_probs(out.logits + static_cast<long>(decoder_row) * V, V, options_.logprobs);
    thread_local std::vector<float> row;  // (V) this row's logits, under the guards
    row.assign(out.logits + static_cast<long>(decoder_row) * V, out.logits + static_cast<long>(decoder_row + 1) * V);
    const int token = forced(rows_[r].tokens.size());
    if (token < 0) apply_repetition_guards(row.data(), V, rows_[r].tokens, options_.guards);
    int* ids = ids_.data() + static_cast<std::size_t>(r) * top_;
    float* log_probs = log_probs_.data() + static_cast<std::size_t>(r) * top_;
    const float log_z = out.decoder->best_of_row(row.data(), top_, ids, log_probs);
    if (token < 0) return;
    ids[0] = token;
    log_probs[0] = row[token] - log_z;
    std::fill(log_probs + 1, log_probs + top_, kRemovedLogit);
  }

  std::vector<int> advance(const StepOutput& out, int first_row) override {
    const int k = options_.beam;
    const int made = static_cast<int>(rows_[0].tokens.size());  // by each of the rows
    // Row r's i-th best token and its log-probability.
    const int stride = out.logits ? top_ : out.next->top;
    const int* ids = out.logits ? ids_.data() : out.next->ids.data() + static_cast<std::size_t>(first_row) * stride;
    const float* log_probs =
        out.logits ? log_probs_.data() : out.next->log_probs.data() + static_cast<std::size_t>(first_row) * stride;
    // The best 2k extensions over the k rows.
    std::vector<Candidate> cands;
    for (int r = 0; r < k; ++r) {
      if (!std::isfinite(rows_[r].log_prob)) continue;
      for (int i = 0; i < top_; ++i) {
        const std::size_t at = static_cast<std::size_t>(r) * stride + i;
        if (!std::isfinite(log_probs[at])) continue;  // a forced or guarded row's missing candidates
        if (std::find(banned_.begin(), banned_.end(), ids[at]) != banned_.end()) continue;
        cands.push_back({rows_[r].log_prob + log_probs[at], r, ids[at]});
      }
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.total > b.total; });
    auto extend = [&](const Candidate& c) {
      BeamRow row = rows_[c.row];
      row.alignment.push_back(aligned_source_position(*out.decoder, first_row + c.row));
      row.log_prob = c.total;
      row.parent = c.row;
      return row;
    };
    auto finish = [&](BeamRow row, bool with_end) {
      finished_.push_back(finished_hypothesis(std::move(row.tokens), std::move(row.alignment), row.log_prob, with_end,
                                              options_.length_penalty, prompt_, std::move(row.log_probs)));
    };
    std::vector<BeamRow> beam;
    for (std::size_t i = 0; i < cands.size() && static_cast<int>(beam.size()) < k; ++i) {
      const Candidate& c = cands[i];
      if (config_.is_end(c.token)) {
        if (made - prompt_ < options_.min_length) continue;  // too short to end
        if (static_cast<int>(i) < k) finish(extend(c), true);  // only ends ranked within the beam count
        continue;
      }
      BeamRow row = extend(c);
      row.tokens.push_back(c.token);
      if (options_.logprobs >= 0)
        row.log_probs.push_back(token_log_prob(out.logits + static_cast<long>(first_row + c.row) * out.vocab,
                                               distributions_[c.row], c.token));
      ++taken_;
      if (hooks_.stop_after && hooks_.stop_after(0, row.tokens, row.log_probs)) {  // ends like the end token, without it
        if (static_cast<int>(i) < k) finish(std::move(row), false);
        continue;
      }
      beam.push_back(std::move(row));
    }
    const bool at_limit = made + 1 >= limit_ || beam.empty();
    if (static_cast<int>(finished_.size()) >= k || at_limit) {
      if (static_cast<int>(finished_.size()) < k)
        for (auto& row : beam) finish(std::move(row), false);
      return {};  // the sentence leaves the batch
    }
    while (static_cast<int>(beam.size()) < k) {  // a tiny vocabulary can leave fewer than k live candidates
      beam.push_back(beam.front());
      beam.back().log_prob = -std::numeric_limits<float>::infinity();
    }
    std::vector<int> parents;
    for (const BeamRow& row : beam) parents.push_back(row.parent);
    rows_ = std::move(beam);
    return parents;
  }

  void finish() override {
    sort_best_first(finished_);
    if (static_cast<int>(finished_.size()) > options_.nbest) finished_.resize(options_.nbest);
    if (hooks_.done) hooks_.done(std::move(finished_));
  }

 private:
  int top_;  // candidates per row: 2k past any banned id
  std::vector<BeamRow> rows_;
  std::vector<Hypothesis> finished_;
  std::vector<int> ids_;          // (k, top_) each row's candidates when the step gave whole logits
  std::vector<float> log_probs_;  // (k, top_)
  std::vector<RowLogProbs> distributions_;  // (k) each row's raw distribution when logprobs are asked
};

}  // namespace

std::unique_ptr<SearchRequest> beam_request(const ModelConfig& config, std::vector<int> source, std::vector<int> prefix,
                                            const SearchOptions& options, SearchHooks hooks) {
  return std::make_unique<BeamRequest>(config, std::move(source), std::move(prefix), options, std::move(hooks));
}

std::vector<std::vector<Hypothesis>> beam_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                 const SearchOptions& o, const std::vector<std::vector<int>>& prefixes) {
  require(o.beam >= 1 && o.nbest >= 1 && o.nbest <= o.beam, "search: need beam >= 1 and 1 <= nbest <= beam");
  validate_search(decoder.config(), sources, o, prefixes);
  std::vector<std::vector<Hypothesis>> results(sources.size());
  DecodingLoop loop(decoder, {o.cache});
  for (std::size_t b = 0; b < sources.size(); ++b) {
    SearchHooks hooks;
    hooks.done = [&results, b](std::vector<Hypothesis> h) { results[b] = std::move(h); };
    loop.add(beam_request(decoder.config(), sources[b], prefixes.empty() ? std::vector<int>() : prefixes[b], o,
                          std::move(hooks)));
  }
  loop.run();
  return results;
}

}  // namespace heptapod
