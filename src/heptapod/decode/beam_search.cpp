// Batched beam search over the incremental decoder.
#include "heptapod/decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heptapod/core/error.h"

namespace heptapod {

float length_penalty(int length, float alpha) {
  return alpha == 0.0f ? 1.0f : std::pow((5.0f + static_cast<float>(length)) / 6.0f, alpha);
}

namespace {

struct Row {
  std::vector<int> tokens;
  std::vector<int> alignment;
  float log_prob = 0;
  int parent = 0;  // the decoder row (cache) this row continues
};

struct Candidate {
  float total;
  int row;
  int token;
};

}  // namespace

std::vector<std::vector<Hypothesis>> beam_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                 const SearchOptions& o) {
  require(o.beam >= 1 && o.nbest >= 1 && o.nbest <= o.beam, "search: need beam >= 1 and 1 <= nbest <= beam");
  require(o.max_extra_length >= 0 && o.min_length >= 0, "search: max extra length and min length must be >= 0");
  const int B = static_cast<int>(sources.size());
  std::vector<std::vector<Hypothesis>> results(B);
  if (B == 0) return results;
  const ModelConfig& c = decoder.config();
  const int bos_id = c.bos_id, eos_id = c.eos_id;
  const std::vector<int> banned = banned_output_ids(c);
  const int extra = c.source_eos ? 1 : 0;  // the end token the model reads after each source
  int S = 1, max_steps = 1;
  for (const auto& s : sources) {
    S = std::max(S, static_cast<int>(s.size()) + extra);
    max_steps = std::max(max_steps, static_cast<int>(s.size()) + extra + o.max_extra_length + 1);
  }
  std::vector<int> src(static_cast<std::size_t>(B) * S, c.pad_id), src_len(B);
  for (int b = 0; b < B; ++b) {
    int* row = src.data() + static_cast<long>(b) * S;
    std::copy(sources[b].begin(), sources[b].end(), row);
    src_len[b] = static_cast<int>(sources[b].size()) + extra;
    if (extra) row[sources[b].size()] = eos_id;
  }
  decoder.start(src.data(), B, S, src_len.data(), o.beam, max_steps, o.cache);

  const int k = o.beam;
  std::vector<Row> rows(static_cast<std::size_t>(B) * k);
  // At the first step every row of a sentence is the same empty prefix: only the first one may expand.
  for (int r = 0; r < B * k; ++r) rows[r].log_prob = r % k == 0 ? 0.0f : -std::numeric_limits<float>::infinity();
  std::vector<std::vector<Hypothesis>> finished(B);
  const int vocab = decoder.vocabulary_size();
  const int top = std::min(2 * k + static_cast<int>(banned.size()), vocab);  // 2k candidates past any banned

  while (decoder.rows() > 0) {
    const int step = decoder.position();
    std::vector<int> tokens(decoder.rows());
    for (int r = 0; r < decoder.rows(); ++r) tokens[r] = rows[r].tokens.empty() ? bos_id : rows[r].tokens.back();
    const NextTokens& next = decoder.step(tokens, top);  // each row's best `top` tokens
    const float* attention = decoder.last_cross_attention();  // (rows, S)

    std::vector<int> order;
    std::vector<Row> next_rows;
    for (int base = 0; base < decoder.rows(); base += k) {
      const int sentence = decoder.sentence_of(base);
      const int limit = src_len[sentence] + o.max_extra_length;  // output tokens allowed before the end token
      // The best 2k extensions over the sentence's k rows.
      std::vector<Candidate> cands;
      for (int r = base; r < base + k; ++r) {
        if (!std::isfinite(rows[r].log_prob)) continue;
        for (int i = 0; i < top; ++i) {
          const std::size_t at = static_cast<std::size_t>(r) * top + i;
          if (std::find(banned.begin(), banned.end(), next.ids[at]) != banned.end()) continue;
          cands.push_back({rows[r].log_prob + next.log_probs[at], r, next.ids[at]});
        }
      }
      std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.total > b.total; });
      auto extend = [&](const Candidate& c) {
        Row row = rows[c.row];
        const float* att = attention + static_cast<long>(c.row) * decoder.padded_source_length();
        const int n = std::max(src_len[sentence], 1);
        row.alignment.push_back(static_cast<int>(std::max_element(att, att + n) - att));
        row.log_prob = c.total;
        row.parent = c.row;
        return row;
      };
      auto finish = [&](Row row, bool with_end) {
        Hypothesis h;
        const int length = static_cast<int>(row.tokens.size()) + (with_end ? 1 : 0);
        if (with_end) row.alignment.pop_back();  // the end token's alignment is not reported
        h.tokens = std::move(row.tokens);
        h.alignment = std::move(row.alignment);
        h.log_prob = row.log_prob;
        h.score = row.log_prob / length_penalty(length, o.length_penalty);
        finished[sentence].push_back(std::move(h));
      };
      std::vector<Row> beam;
      for (std::size_t i = 0; i < cands.size() && static_cast<int>(beam.size()) < k; ++i) {
        const Candidate& c = cands[i];
        if (c.token == eos_id) {
          if (step < o.min_length) continue;  // too short to end
          if (static_cast<int>(i) < k) finish(extend(c), true);  // only ends ranked within the beam count
          continue;
        }
        Row row = extend(c);
        row.tokens.push_back(c.token);
        beam.push_back(std::move(row));
      }
      const bool at_limit = step + 1 >= limit || beam.empty();
      if (static_cast<int>(finished[sentence].size()) >= k || at_limit) {
        if (static_cast<int>(finished[sentence].size()) < k)
          for (auto& row : beam) finish(std::move(row), false);
        continue;  // the sentence leaves the batch
      }
      while (static_cast<int>(beam.size()) < k) {  // a tiny vocabulary can leave fewer than k live candidates
        beam.push_back(beam.front());
        beam.back().log_prob = -std::numeric_limits<float>::infinity();
      }
      for (auto& row : beam) {
        order.push_back(row.parent);
        next_rows.push_back(std::move(row));
      }
    }
    decoder.reorder(order);
    rows = std::move(next_rows);
  }

  for (int b = 0; b < B; ++b) {
    auto& f = finished[b];
    std::stable_sort(f.begin(), f.end(), [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
    if (static_cast<int>(f.size()) > o.nbest) f.resize(o.nbest);
    results[b] = std::move(f);
  }
  return results;
}

}  // namespace heptapod
