// Sampling: one decoder row per sample, each drawing from its own counter-based random stream.
#include "heptapod/decode/sampling_search.h"

#include <algorithm>
#include <cmath>

#include "heptapod/core/error.h"
#include "heptapod/core/random.h"

namespace heptapod {

std::uint64_t sample_stream(const std::vector<int>& source, const std::vector<int>* prefix, int index) {
  std::uint64_t h = mix64(static_cast<std::uint64_t>(index) + 0x5851F42D4C957F2Dull);
  for (int t : source) h = mix64(h ^ static_cast<std::uint32_t>(t));
  h = mix64(h ^ 0xFFFFFFFFull);  // between source and prefix
  if (prefix)
    for (int t : *prefix) h = mix64(h ^ static_cast<std::uint32_t>(t));
  return h;
}

int draw_sample(const float* logits, int V, SampleRow& row, int forced, bool end_allowed, const SampleDraw& d,
                std::vector<float>& model, std::vector<float>& warped) {
  model.assign(logits, logits + V);
  int token = forced;
  if (token < 0) {  // drawn, under the guards
    apply_repetition_guards(model.data(), V, row.tokens, d.guards);
    warped = model;
    for (int id : d.banned) warped[id] = kRemovedLogit;
    if (!end_allowed) warped[d.end_id] = kRemovedLogit;
    apply_sampling_warpers(warped.data(), V, d.sampling);
    const auto step = static_cast<std::uint64_t>(row.tokens.size());  // tokens made: the draw's counter
    token = draw_token(warped.data(), V, counter_uniform(d.sampling.seed, row.stream, step));
  }
  if (token >= 0) {
    log_softmax(model.data(), V);
    row.log_prob += model[token];
  }
  return token;
}

std::vector<std::vector<Hypothesis>> sample_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                   const SearchOptions& o, const SamplingOptions& sampling,
                                                   const std::vector<std::vector<int>>& prefixes) {
  require(o.nbest >= 1, "sampling: need at least one sample per sentence");
  const ModelConfig& c = decoder.config();
  validate_search(c, sources, o, prefixes);
  validate(sampling);
  const int B = static_cast<int>(sources.size());
  std::vector<std::vector<Hypothesis>> results(B);
  if (B == 0) return results;
  const std::vector<int> banned = banned_output_ids(c);
  const std::vector<int> limit = start_search(decoder, sources, o, prefixes, o.nbest);
  std::vector<SampleRow> rows(static_cast<std::size_t>(B) * o.nbest);
  for (int r = 0; r < B * o.nbest; ++r)
    rows[r].stream = sample_stream(sources[r / o.nbest], prefixes.empty() ? nullptr : &prefixes[r / o.nbest], r % o.nbest);
  const int V = decoder.vocabulary_size();
  std::vector<float> model(V), warped(V);  // (V) one row's log-probabilities, and its logits as drawn from
  const SampleDraw draw{o.guards, sampling, banned, c.eos_id};
  std::vector<std::vector<int>> prompts = prefill_prompts(decoder, o, prefixes, o.nbest);
  for (int r = 0; r < B * o.nbest; ++r) rows[r].tokens = std::move(prompts[r]);
  while (decoder.rows() > 0) {
    std::vector<int> tokens(decoder.rows());
    for (int r = 0; r < decoder.rows(); ++r) tokens[r] = rows[r].tokens.empty() ? c.bos_id : rows[r].tokens.back();
    const float* logits = decoder.step_logits(tokens);  // (rows, V)
    std::vector<int> order;
    std::vector<SampleRow> next_rows;
    for (int r = 0; r < decoder.rows(); ++r) {
      SampleRow& row = rows[r];
      const int sentence = decoder.sentence_of(r);
      const int made = static_cast<int>(row.tokens.size()) - prompt_length(o, prefixes, sentence);
      const int token = draw_sample(logits + static_cast<long>(r) * V, V, row,
                                    forced_token(prefixes, sentence, row.tokens.size()), made >= o.min_length, draw,
                                    model, warped);
      // Nothing left to draw (every token banned or guarded against): the sample ends here, as at the limit.
      const bool exhausted = token < 0;
      if (!exhausted) row.alignment.push_back(aligned_source_position(decoder, r));
      const bool ended = token == c.eos_id;
      if (!ended && !exhausted) row.tokens.push_back(token);
      const bool stopped = !ended && !exhausted && o.stop_after && o.stop_after(sentence, row.tokens);
      if (ended || exhausted || stopped || static_cast<int>(row.tokens.size()) >= limit[sentence]) {
        results[sentence].push_back(finished_hypothesis(std::move(row.tokens), std::move(row.alignment),
                                                        static_cast<float>(row.log_prob), ended, o.length_penalty,
                                                        prompt_length(o, prefixes, sentence)));
        continue;
      }
      order.push_back(r);
      next_rows.push_back(std::move(row));
    }
    decoder.reorder(order);
    rows = std::move(next_rows);
  }
  for (auto& samples : results) sort_best_first(samples);
  return results;
}

}  // namespace heptapod
