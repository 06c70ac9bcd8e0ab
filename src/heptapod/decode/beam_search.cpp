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

void validate_search(const ModelConfig& c, const std::vector<std::vector<int>>& sources, const SearchOptions& o,
                     const std::vector<std::vector<int>>& prefixes) {
  require(o.max_extra_length >= 0 && o.min_length >= 0, "search: max extra length and min length must be >= 0");
  validate(o.guards);
  require(prefixes.empty() || prefixes.size() == sources.size(), "search: one target prefix per source expected");
  const std::vector<int> banned = banned_output_ids(c);
  for (std::size_t b = 0; b < prefixes.size(); ++b)
    for (std::size_t t = 0; t < prefixes[b].size(); ++t) {
      const int id = prefixes[b][t];
      const std::string where = "search: target prefix " + std::to_string(b + 1) + ", token " + std::to_string(t + 1) +
                                " (id " + std::to_string(id) + ")";
      require(id >= 0 && id < c.tgt_vocab_size, where + " is outside the vocabulary");
      require(id != c.eos_id && std::find(banned.begin(), banned.end(), id) == banned.end(),
              where + " is the end, start or padding token, which no output holds");
    }
}

std::vector<int> start_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                              const SearchOptions& o, const std::vector<std::vector<int>>& prefixes,
                              int rows_per_sentence) {
  const PaddedSources padded = pad_sources(sources, decoder.config());
  std::vector<int> limit(sources.size());
  int max_steps = 1;
  for (std::size_t b = 0; b < sources.size(); ++b) {
    limit[b] = padded.lengths[b] + o.max_extra_length;
    if (!prefixes.empty()) {
      const int prefix = static_cast<int>(prefixes[b].size());
      limit[b] = o.prompts ? prefix + std::max(o.max_extra_length, 1) : std::max(limit[b], prefix + 1);
    }
    // Learned positions end the output where they end: the tokens fed (start token first) stay within them.
    limit[b] = std::min(limit[b], decoder.config().position_limit());
    max_steps = std::max(max_steps, limit[b] + 1);
  }
  decoder.start(padded.tokens.data(), static_cast<int>(sources.size()), padded.S, padded.lengths.data(),
                rows_per_sentence, max_steps, o.cache);
  return limit;
}

std::vector<std::vector<int>> prefill_prompts(IncrementalDecoder& decoder, const SearchOptions& o,
                                              const std::vector<std::vector<int>>& prefixes, int rows_per_sentence) {
  const int rows = decoder.rows();
  std::vector<std::vector<int>> made(rows);
  if (!o.prompts || prefixes.empty()) return made;
  std::vector<std::vector<int>> runs(rows);
  std::vector<int> order(rows);
  bool any = false;
  for (int r = 0; r < rows; ++r) {
    const std::vector<int>& prompt = prefixes[decoder.sentence_of(r)];
    made[r] = prompt;
    order[r] = r - r % rows_per_sentence;  // the sentence's first row
    if (r % rows_per_sentence != 0 || prompt.size() < 2) {
      if (r % rows_per_sentence == 0 && prompt.size() == 1) runs[r] = {decoder.config().bos_id};
    } else {
      runs[r] = {decoder.config().bos_id};
      runs[r].insert(runs[r].end(), prompt.begin(), prompt.end() - 1);
    }
    any = any || !runs[r].empty();
  }
  if (!any) return made;  // no prompts: the search starts from bos
  decoder.feed(runs);
  decoder.reorder(order);
  return made;
}

int prompt_length(const SearchOptions& o, const std::vector<std::vector<int>>& prefixes, int sentence) {
  return o.prompts && !prefixes.empty() ? static_cast<int>(prefixes[sentence].size()) : 0;
}

Hypothesis finished_hypothesis(std::vector<int> tokens, std::vector<int> alignment, float log_prob, bool ended,
                               float length_penalty_alpha, int unscored) {
  Hypothesis h;
  const int length = static_cast<int>(tokens.size()) - unscored + (ended ? 1 : 0);
  if (ended) alignment.pop_back();  // the end token's alignment is not reported
  h.tokens = std::move(tokens);
  h.alignment = std::move(alignment);
  h.log_prob = log_prob;
  h.score = log_prob / length_penalty(length, length_penalty_alpha);
  h.ended = ended;
  return h;
}

int forced_token(const std::vector<std::vector<int>>& prefixes, int sentence, std::size_t made) {
  if (prefixes.empty()) return -1;
  const std::vector<int>& prefix = prefixes[sentence];
  return made < prefix.size() ? prefix[made] : -1;
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

std::vector<std::vector<Hypothesis>> beam_search(IncrementalDecoder& decoder, const std::vector<std::vector<int>>& sources,
                                                 const SearchOptions& o, const std::vector<std::vector<int>>& prefixes) {
  require(o.beam >= 1 && o.nbest >= 1 && o.nbest <= o.beam, "search: need beam >= 1 and 1 <= nbest <= beam");
  const ModelConfig& c = decoder.config();
  validate_search(c, sources, o, prefixes);
  const int B = static_cast<int>(sources.size());
  std::vector<std::vector<Hypothesis>> results(B);
  if (B == 0) return results;
  const int bos_id = c.bos_id, eos_id = c.eos_id;
  const std::vector<int> banned = banned_output_ids(c);
  const std::vector<int> limit = start_search(decoder, sources, o, prefixes, o.beam);

  const int k = o.beam;
  std::vector<Row> rows(static_cast<std::size_t>(B) * k);
  std::vector<std::vector<int>> prompts = prefill_prompts(decoder, o, prefixes, k);
  // At the first step every row of a sentence is the same prefix: only the first one may expand.
  for (int r = 0; r < B * k; ++r) {
    rows[r].tokens = std::move(prompts[r]);
    rows[r].log_prob = r % k == 0 ? 0.0f : -std::numeric_limits<float>::infinity();
  }
  std::vector<std::vector<Hypothesis>> finished(B);
  const int vocab = decoder.vocabulary_size();
  const int top = std::min(2 * k + static_cast<int>(banned.size()), vocab);  // 2k candidates past any banned

  // The prefix token row r must take now, or -1.
  auto forced = [&](int r) { return forced_token(prefixes, decoder.sentence_of(r), rows[r].tokens.size()); };
  NextTokens processed;  // each row's candidates when the whole distribution was needed
  while (decoder.rows() > 0) {
    std::vector<int> tokens(decoder.rows());
    bool whole = o.guards.active();  // whether this step needs every row's whole distribution
    for (int r = 0; r < decoder.rows(); ++r) {
      tokens[r] = rows[r].tokens.empty() ? bos_id : rows[r].tokens.back();
      whole = whole || forced(r) >= 0;
    }
    // Each row's best `top` tokens: straight from the decoder, or from its logits (after the repetition
    // guards) computed as the decoder computes them; a row in its prefix has the forced token alone, with the
    // model's log-probability.
    const NextTokens& next = whole ? processed : decoder.step(tokens, top);
    if (whole) {
      const float* logits = decoder.step_logits(tokens);  // (rows, V)
      processed.top = top;
      processed.ids.assign(static_cast<std::size_t>(decoder.rows()) * top, 0);
      processed.log_probs.assign(processed.ids.size(), 0.0f);
#pragma omp parallel for schedule(dynamic)
      for (int r = 0; r < decoder.rows(); ++r) {
        thread_local std::vector<float> row;  // (V) this row's logits, under the guards
        row.assign(logits + static_cast<long>(r) * vocab, logits + static_cast<long>(r + 1) * vocab);
        const int token = forced(r);
        if (token < 0) apply_repetition_guards(row.data(), vocab, rows[r].tokens, o.guards);
        int* ids = processed.ids.data() + static_cast<std::size_t>(r) * top;
        float* log_probs = processed.log_probs.data() + static_cast<std::size_t>(r) * top;
        const float log_z = decoder.best_of_row(row.data(), top, ids, log_probs);
        if (token < 0) continue;
        ids[0] = token;
        log_probs[0] = row[token] - log_z;
        std::fill(log_probs + 1, log_probs + top, kRemovedLogit);
      }
    }

    std::vector<int> order;
    std::vector<Row> next_rows;
    for (int base = 0; base < decoder.rows(); base += k) {
      const int sentence = decoder.sentence_of(base);
      const int made = static_cast<int>(rows[base].tokens.size());  // by each of the sentence's rows
      const int prompt = prompt_length(o, prefixes, sentence);
      // The best 2k extensions over the sentence's k rows.
      std::vector<Candidate> cands;
      for (int r = base; r < base + k; ++r) {
        if (!std::isfinite(rows[r].log_prob)) continue;
        for (int i = 0; i < top; ++i) {
          const std::size_t at = static_cast<std::size_t>(r) * top + i;
          if (!std::isfinite(next.log_probs[at])) continue;  // a forced or guarded row's missing candidates
          if (std::find(banned.begin(), banned.end(), next.ids[at]) != banned.end()) continue;
          cands.push_back({rows[r].log_prob + next.log_probs[at], r, next.ids[at]});
        }
      }
      std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.total > b.total; });
      auto extend = [&](const Candidate& c) {
        Row row = rows[c.row];
        row.alignment.push_back(aligned_source_position(decoder, c.row));
        row.log_prob = c.total;
        row.parent = c.row;
        return row;
      };
      auto finish = [&](Row row, bool with_end) {
        finished[sentence].push_back(finished_hypothesis(std::move(row.tokens), std::move(row.alignment), row.log_prob,
                                                         with_end, o.length_penalty, prompt));
      };
      std::vector<Row> beam;
      for (std::size_t i = 0; i < cands.size() && static_cast<int>(beam.size()) < k; ++i) {
        const Candidate& c = cands[i];
        if (c.token == eos_id) {
          if (made - prompt < o.min_length) continue;  // too short to end
          if (static_cast<int>(i) < k) finish(extend(c), true);  // only ends ranked within the beam count
          continue;
        }
        Row row = extend(c);
        row.tokens.push_back(c.token);
        if (o.stop_after && o.stop_after(sentence, row.tokens)) {  // ends like the end token, without it
          if (static_cast<int>(i) < k) finish(std::move(row), false);
          continue;
        }
        beam.push_back(std::move(row));
      }
      const bool at_limit = made + 1 >= limit[sentence] || beam.empty();
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
    sort_best_first(f);
    if (static_cast<int>(f.size()) > o.nbest) f.resize(o.nbest);
    results[b] = std::move(f);
  }
  return results;
}

}  // namespace heptapod
