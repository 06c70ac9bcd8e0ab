// What the searches share: option checks, length limits, finished hypotheses and their ranking.
#include "heptapod/decode/search.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/model/batch.h"

namespace heptapod {

float length_penalty(int length, float alpha) {
  return alpha == 0.0f ? 1.0f : std::pow((5.0f + static_cast<float>(length)) / 6.0f, alpha);
}

void validate_search(const ModelConfig& c, const std::vector<std::vector<int>>& sources, const SearchOptions& o,
                     const std::vector<std::vector<int>>& prefixes) {
  require(o.max_extra_length >= 0 && o.min_length >= 0, "search: max extra length and min length must be >= 0");
  require(o.logprobs >= -1, "search: logprobs must be -1 (none) or a number of most likely tokens");
  validate(o.guards);
  require(prefixes.empty() || prefixes.size() == sources.size(), "search: one target prefix per source expected");
  const std::vector<int> banned = banned_output_ids(c);
  for (std::size_t b = 0; b < prefixes.size(); ++b)
    for (std::size_t t = 0; t < prefixes[b].size(); ++t) {
      const int id = prefixes[b][t];
      const std::string where = "search: target prefix " + std::to_string(b + 1) + ", token " + std::to_string(t + 1) +
                                " (id " + std::to_string(id) + ")";
      require(id >= 0 && id < c.tgt_vocab_size, where + " is outside the vocabulary");
      require(!c.is_end(id) && std::find(banned.begin(), banned.end(), id) == banned.end(),
              where + " is the end, start or padding token, which no output holds");
    }
}

int length_limit(const ModelConfig& config, const std::vector<int>& source, const std::vector<int>& prefix,
                 const SearchOptions& o) {
  int limit = pad_sources({source}, config).lengths[0] + o.max_extra_length;
  const int length = static_cast<int>(prefix.size());
  if (o.prompts)
    limit = length + std::max(o.max_extra_length, 1);
  else if (length > 0)
    limit = std::max(limit, length + 1);
  // Learned positions end the output where they end: the tokens fed (start token first) stay within them.
  return std::min(limit, config.position_limit());
}

Hypothesis finished_hypothesis(std::vector<int> tokens, std::vector<int> alignment, float log_prob, bool ended,
                               float length_penalty_alpha, int unscored, std::vector<TokenLogProb> token_log_probs) {
  Hypothesis h;
  const int length = static_cast<int>(tokens.size()) - unscored + (ended ? 1 : 0);
  if (ended) alignment.pop_back();  // the end token's alignment is not reported
  h.tokens = std::move(tokens);
  h.alignment = std::move(alignment);
  h.log_prob = log_prob;
  h.score = log_prob / length_penalty(length, length_penalty_alpha);
  h.ended = ended;
  h.token_log_probs = std::move(token_log_probs);
  return h;
}

void sort_best_first(std::vector<Hypothesis>& hypotheses) {
  std::stable_sort(hypotheses.begin(), hypotheses.end(),
                   [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
}

int aligned_source_position(const IncrementalDecoder& decoder, int row) {
  if (decoder.padded_source_length() == 0) return 0;  // a decoder-only model reads no source
  const float* att = decoder.last_cross_attention() + static_cast<long>(row) * decoder.padded_source_length();
  const int n = std::max(std::min(decoder.source_length(row), decoder.padded_source_length()), 1);
  return static_cast<int>(std::max_element(att, att + n) - att);
}

}  // namespace heptapod
